/*
 * gen: the synthetic web model (DESIGN.md "The world").
 *
 * Every value is a pure function of (seed, page id): a world is the same whether it is
 * generated on 1 rank or 1000, with 1 thread or 64. A cs_gen holds only what every rank can
 * compute identically from the config: the host layout (hosts are contiguous page ranges with
 * heavy-tailed sizes), the host topics, per-topic host lists and the samplers' constants.
 */
#ifndef CRAWLSIM_GEN_H
#define CRAWLSIM_GEN_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/graph.h"

#include <stdint.h>

typedef struct cs_gen cs_gen;

/*
 * Local (every rank computes the same tables). Builds the model for cfg: O(hosts) time and
 * memory. CS_ERR_CONFIG when the parameters cannot be met (e.g. a mean below what the
 * exponent allows).
 */
CS_API cs_err cs_gen_create(cs_ctx *ctx, const cs_gen_config *cfg, cs_gen **out);
/* Local. Frees the model; accepts NULL and sets *g = NULL. */
CS_API void cs_gen_destroy(cs_gen **g);

CS_API int64_t cs_gen_n_pages(const cs_gen *g);
CS_API int64_t cs_gen_n_hosts(const cs_gen *g);
/* Local. Host of a page, O(log hosts). */
CS_API int64_t cs_gen_host_of(const cs_gen *g, int64_t page);
/* Local. First page and page count of a host. */
CS_API void cs_gen_host_range(const cs_gen *g, int64_t host, int64_t *first, int64_t *count);

/*
 * Local. Generates pages [first, first + n) into out (initialised with cs_graph_slice_init):
 * links (sorted, unique, no self links) and attributes. OpenMP-parallel over pages; the
 * result does not depend on the thread count. `progress` may be NULL.
 */
CS_API cs_err cs_gen_slice(cs_ctx *ctx, const cs_gen *g, int64_t first, int64_t n,
                           cs_graph_slice *out, cs_progress *progress);

/*
 * Collective(ctx->comm). Logically collective: cfg, path. Each rank generates its block of
 * pages and the graph file is written through cs_graphio_write (atomically).
 */
CS_API cs_err cs_gen_write(cs_ctx *ctx, const cs_config *cfg, const char *path);

/* Local. The page's term vector (length cfg.term_dim): noisy evidence of its topic. */
CS_API void cs_gen_page_terms(const cs_gen *g, int64_t page, float *out);
/* Local. The anchor vector of link src->dst (length term_dim): the target's term vector plus
 * anchor noise, keyed by (seed, src, dst). */
CS_API void cs_gen_anchor_terms(const cs_gen *g, int64_t src, int64_t dst, float *out);
/* Local. The topic prototype (unit vector, length term_dim). */
CS_API const float *cs_gen_topic_prototype(const cs_gen *g, int32_t topic);

/*
 * Local, pure. The change-rate / importance / observability model of DESIGN.md, shared with
 * the importer: the host's rate class and base rate come from (seed, host), the page's
 * jitter, mu and observability from (seed, page) in stream domain `domain`.
 */
CS_API void cs_gen_page_dynamics(const cs_gen_config *cfg, int64_t host, int64_t page, int domain,
                                 double *delta, double *mu, uint8_t *observable);

#endif
