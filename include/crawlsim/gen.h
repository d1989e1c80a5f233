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
#include "crawlsim/partition.h"

#include <stdint.h>
#include <stdio.h>

typedef struct cs_gen cs_gen;

/*
 * Local (every rank computes the same tables). Builds the model for cfg: O(hosts) time and
 * memory. CS_ERR_CONFIG when the parameters cannot be met (e.g. a mean below what the
 * exponent allows).
 */
CS_API cs_err cs_gen_create(cs_ctx *ctx, const cs_gen_config *cfg, cs_gen **out);
/*
 * Collective(ctx->comm). Logically collective: cfg. The same model, its host tables (host
 * records, topics, popularity tables, host index: about 46 bytes a host) held once per node in
 * memory its ranks share (cs_node_create) and built by them together, each rank a share of the
 * hosts and of the tables, its OpenMP threads over them: the same tables bit for bit. With one rank
 * per node (or CRAWLSIM_SHARED=0) each rank builds and holds its own. The model is then destroyed
 * collectively: cs_gen_destroy on every rank of the node. Errors as cs_gen_create, agreed.
 */
CS_API cs_err cs_gen_create_shared(cs_ctx *ctx, const cs_gen_config *cfg, cs_gen **out);
/* Local for a model of cs_gen_create, Collective(the node's ranks) for one of
 * cs_gen_create_shared. Frees the model; accepts NULL and sets *g = NULL. */
CS_API void cs_gen_destroy(cs_gen **g);

CS_API int64_t cs_gen_n_pages(const cs_gen *g);
CS_API int64_t cs_gen_n_hosts(const cs_gen *g);
CS_API int32_t cs_gen_n_topics(const cs_gen *g);
/* Local. Host of a page, O(log hosts). */
CS_API int64_t cs_gen_host_of(const cs_gen *g, int64_t page);
/* Local. A hint that cs_gen_host_of(g, page) and the page's topic follow soon: each is a cache
 * miss at a random place in tables of the world's size, the second depending on the first, so
 * in two stages: 1, the page's bucket of the host index; 2 (once stage 1's line has come), the
 * host records the bucket points to and the host's topic. */
CS_API void cs_gen_prefetch_host(const cs_gen *g, int64_t page, int stage);
/* Local. A host's bow-tie role (gen.in_hosts, out_hosts, isolated_hosts): 0 open, 1 hidden (no
 * other host links to it: IN), 2 closed (it links to no other host: OUT), 3 both (isolated);
 * with gen.host_cross, links between hosts of the same role are kept. */
CS_API int cs_gen_host_role(const cs_gen *g, int64_t host);
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
 * Local. The pages ids[0..n) (any order, repeats allowed, each in [0, pages): CS_ERR_ARG
 * otherwise) into out (initialised with cs_graph_slice_init; page i of out is page ids[i]),
 * each generated exactly as cs_gen_slice generates it: links and attributes bit for bit. For
 * the procedural world (gen.materialize = false), where a run generates the pages it fetches
 * when it fetches them. OpenMP-parallel over the pages; no log line.
 */
CS_API cs_err cs_gen_pages(cs_ctx *ctx, const cs_gen *g, const int64_t *ids, int64_t n,
                           cs_graph_slice *out);

/* One page's attributes, as cs_gen_slice gives them (graphio.h's page columns). */
typedef struct cs_gen_page {
    int64_t host;
    int32_t topic;
    double relevance, delta, mu;
    uint8_t observable;
} cs_gen_page;

/* Local, pure. The attributes of `page` without its links: the values cs_gen_slice writes for
 * it, bit for bit. O(log hosts) for the host, then the page's own streams. */
CS_API void cs_gen_page_attrs(const cs_gen *g, int64_t page, cs_gen_page *out);

/* Local. The bytes of the model (host records, topics, alias tables, the host index,
 * prototypes): about 46 per host, what a procedural world keeps for the whole crawl (once per
 * node with cs_gen_create_shared). */
CS_API int64_t cs_gen_model_bytes(const cs_gen *g);
/* Local. *shared: whether the model's tables are shared by several ranks (cs_gen_create_shared
 * on a node of several ranks); returns the bytes of them this rank holds (the node's first
 * rank: all, written when the model was built; 0 on the others and without sharing). */
CS_API int64_t cs_gen_shared_held(const cs_gen *g, int *shared);

/*
 * Collective(ctx->comm). Logically collective: cfg, path. Each rank generates its block of
 * pages and the graph file is written through cs_graphio_write (atomically).
 */
CS_API cs_err cs_gen_write(cs_ctx *ctx, const cs_config *cfg, const char *path);

/* ---- a run-time graph without a graph file ------------------------------------------------ */

struct cs_partition; /* partition.h */

/*
 * Local (replicated: every rank computes the same partition, no communication). The partition
 * of the generated world g into k parts by `method`, exactly the one `crawlsim partition F -k
 * K --method ...` computes (cs_partition_compute) on a graph file F written by `crawlsim gen`
 * for the same [gen] config, with the same seed:
 *   CS_PART_BLOCK      contiguous page-id ranges (cs_block_range), part_first filled;
 *   CS_PART_HOST_HASH  part of host h = cs_partition_host_hash(h, seed, k), that is
 *                      cs_mix64(h + cs_mix64(seed)) mod k; host_part filled, and the runs
 *                      (n_runs, run_first, run_part: consecutive hosts of one part, about
 *                      H (1 - 1 / k) runs).
 * Neither has the part array (part is NULL: no 4 bytes per page of the world on every rank);
 * the graph takes part_first or the runs. out must be zeroed (cs_partition_init) and is freed
 * with cs_partition_fini; it gets method, k, seed, n_pages, n_hosts, graph_source "gen", and
 * n_links = 0 (unknown
 * before generating: cs_graph_load_with and cs_graph_build accept 0); quality, seconds and
 * the METIS settings stay zero. Errors (out left zeroed): CS_ERR_ARG for a METIS method
 * (METIS needs the graph: `crawlsim gen` then `crawlsim partition`), an unknown method, or k
 * outside [1, pages]; CS_ERR_NOMEM.
 */
CS_API cs_err cs_gen_partition(cs_ctx *ctx, const cs_gen *g, int method, int32_t k, int64_t seed,
                               struct cs_partition *out);

/*
 * Collective(ctx->comm). Logically collective: g's config, part (identical, replicated on every
 * rank). The run-time graph of the generated world g under part without a graph file: each rank
 * generates only the pages part gives it (a block's range, or the list of its owned ids,
 * OpenMP-parallel over all of them) and builds its graph with cs_graph_build; the only
 * communication is the error agreement and one int64 allreduce of the link count. The result is
 * identical, array for array and accessor for accessor, to cs_graph_load_with of a file written
 * by cs_gen_write for the same config under the same partition. part may come from
 * cs_gen_partition or from a partition file of that world (METIS included); it is borrowed. On
 * success *out is a new graph (cs_graph_destroy); on failure *out is untouched and every rank
 * returns the same code and message: CS_ERR_ARG for a partition of another world (page or host
 * count), for part->k != ctx->size or a part array cs_graph_build refuses, CS_ERR_LIMIT,
 * CS_ERR_NOMEM. Memory per rank: the owned pages' graph plus its owner lookup (as loading:
 * a block's range table, the runs, or an owner map for a partition file with many runs), and
 * transiently 8 bytes per owned page for the id list.
 */
CS_API cs_err cs_gen_graph(cs_ctx *ctx, const cs_gen *g, const struct cs_partition *part,
                           cs_graph **out);

/* The owner of a page of a partition that keeps hosts whole, computed from the model: its
 * host's part, cs_gen_host_owner. Under host-hash (cs_gen_partition's CS_PART_HOST_HASH;
 * host_part NULL) cs_partition_host_hash(host, seed, k); under metis-sampled the table
 * host_part[host] (cs_gen_partition_sampled; borrowed). */
typedef struct cs_gen_owner {
    const cs_gen *g;
    int64_t seed;
    int32_t k;
    const uint16_t *host_part; /* H parts, or NULL: the host's hash */
} cs_gen_owner;
/* Local. The part of host h under o. */
CS_API int32_t cs_gen_host_owner(const cs_gen_owner *o, int64_t h);
/* Local, O(1) on average. The owner of page under *(const cs_gen_owner *)arg: a
 * cs_graph_owner_fn (cs_graph_build_index_runs), so that a procedural world keeps no owner runs. */
CS_API int cs_gen_host_hash_owner(const void *arg, int64_t page);
/*
 * Local. The pages rank `me` owns under o (host-hash with (o->seed, o->k), as cs_gen_partition's
 * CS_PART_HOST_HASH, or o's host table), as maximal runs of consecutive pages: *start and *count
 * (n_runs of each, the caller frees both), from the hosts' parts without the partition's
 * arrays; OpenMP over the hosts. CS_ERR_NOMEM.
 */
CS_API cs_err cs_gen_host_hash_runs(cs_ctx *ctx, const cs_gen_owner *o, int32_t me, int64_t **start,
                                    int64_t **count, int64_t *n_runs);

/* What building a sampled host graph took (cs_gen_host_graph). */
typedef struct cs_gen_host_graph_info {
    int64_t sampled_pages, sampled_links; /* pages generated, their out-links */
    int64_t sampled_in_host;              /* of those links, the ones within their host */
    int64_t directed_edges;               /* distinct (host, other host) pairs of the sample */
    int64_t adjacency;                    /* entries of the symmetric graph (2 per edge) */
    int64_t weight_divisor;               /* the scaled weights were divided by this */
    int64_t relevant;                     /* the relevant pages, estimated from the sample */
    double seconds;                       /* building the graph */
    double metis_seconds;                 /* METIS (cs_gen_host_parts) */
} cs_gen_host_graph_info;

/*
 * Local. The host graph of g's world estimated from a sample (run.partition_method =
 * metis-sampled), in METIS's form: vertex = host (weight = its pages), edge {a, b} weighted
 * by the links a->b plus b->a, as `crawlsim partition --method metis-host` contracts a graph
 * file. The links are those of `sample` pages per host (evenly spaced in it; every page of a
 * host of at most `sample` pages, and of every host when sample = 0: then the weights are
 * the exact link counts), generated by cs_gen_pages; the links host a's sampled pages send to
 * host b count count_a / sampled_a each (rounded), and when the weights sum beyond 2^30 all
 * are divided by one integer (info->weight_divisor; at least 1 each) so that METIS's 32-bit
 * sums hold. With `relevant` (and some relevant page sampled) a second vertex weight (ncon =
 * 2): the host's relevant pages (relevance >= gen.relevance_threshold), estimated from its
 * sampled pages and scaled alike, so that METIS balances where a focused crawl goes too.
 * OpenMP inside; the graph does not depend on the thread count. Memory: 8
 * bytes per directed edge of the sample, twice, plus the result (8 bytes per adjacency entry).
 * Errors (out zeroed): CS_ERR_ARG (sample < 0), CS_ERR_LIMIT (hosts or adjacency entries beyond
 * INT32_MAX), CS_ERR_NOMEM. out is freed with cs_part_csr_fini.
 */
CS_API cs_err cs_gen_host_graph(cs_ctx *ctx, const cs_gen *g, int64_t sample, int relevant,
                                cs_part_csr *out, cs_gen_host_graph_info *info);
/*
 * Local. The part of every host (host_part[H], the caller's) for k parts: METIS k-way
 * (cs_partition_metis with pc's ufactor, seed, objective) on cs_gen_host_graph(pc->sample,
 * pc->balance_relevant);
 * k = 1: all 0. Deterministic for the config, whatever the thread count. Errors: CS_ERR_ARG (k
 * outside [1, min(pages, 65535)]), those of cs_gen_host_graph and cs_partition_metis.
 */
CS_API cs_err cs_gen_host_parts(cs_ctx *ctx, const cs_gen *g, const cs_partition_config *pc,
                                int32_t k, uint16_t *host_part, cs_gen_host_graph_info *info);
/*
 * Collective(ctx->comm). Logically collective: g's config, pc. cs_gen_host_parts for k =
 * ctx->size on rank 0, broadcast: *host_part (H entries, 2 bytes a host, the caller frees) is
 * the same on every rank, and so is *info. Errors, the same on every rank: those of
 * cs_gen_host_parts, CS_ERR_NOMEM.
 */
CS_API cs_err cs_gen_partition_sampled(cs_ctx *ctx, const cs_gen *g, const cs_partition_config *pc,
                                       uint16_t **host_part, cs_gen_host_graph_info *info);

/*
 * Collective(ctx->comm). Logically collective: the model (identical on every rank), owner's
 * seed and k == ctx->size. cs_gen_graph under host-hash (cs_gen_partition's CS_PART_HOST_HASH
 * with owner->seed) without the partition object: this rank's runs of pages from the hosts'
 * hashes (cs_gen_host_hash_runs), its pages generated, and the graph built with
 * cs_graph_build_runs, whose owner lookup is cs_gen_host_hash_owner(owner, page). The same
 * pages, links, attributes, local ids and owners as cs_gen_graph under that partition, without
 * its arrays of the world's size on every rank (a part per host, every rank's runs, the owner
 * runs: about 29 bytes per host); owner and its model are borrowed and must outlive the graph.
 * Memory per rank: the owned pages' graph, transiently 8 bytes per owned page and a bit per
 * host. On failure *out is untouched and every rank returns the same code: CS_ERR_LIMIT,
 * CS_ERR_NOMEM.
 */
CS_API cs_err cs_gen_graph_host_hash(cs_ctx *ctx, const cs_gen_owner *owner, cs_graph **out);

/* Local. The page's term vector (length cfg.term_dim): noisy evidence of its topic, its topic's
 * prototype plus term_noise / sqrt(term_dim) times normals of the stream (seed, TERMS, page), drawn
 * by Box-Muller or the ziggurat (gen.term_normals). */
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
/* Local, pure. The parts of cs_gen_page_dynamics's delta, the same bits: the host's base rate,
 * and the page's change rate given it (rate = cs_gen_host_rate of the page's host). A pass over
 * many pages of few hosts draws each host's rate once and nothing of a page but its rate. */
CS_API double cs_gen_host_rate(const cs_gen_config *cfg, int64_t host);
CS_API double cs_gen_page_rate(const cs_gen_config *cfg, double rate, int64_t page, int domain);
/* Local, pure. Widens [*lo, *hi] to the smallest and largest change rate (cs_gen_page_dynamics's
 * delta in stream domain `domain`, the same bits) over pages [first, first + count) of g's world
 * (cfg: its gen configuration); start from lo = +inf, hi = -inf. The exhaustive pass's result,
 * faster: each host's base rate is drawn once, and a page whose jitter's bound (from the first
 * uniform of its stream) cannot leave the range found so far is not drawn in full. */
CS_API void cs_gen_rate_range(const cs_gen *g, const cs_gen_config *cfg, int64_t first,
                              int64_t count, int domain, double *lo, double *hi);

/* An estimate and its 95 % half-width. */
typedef struct cs_gen_est {
    double value, half;
} cs_gen_est;

/* The statistics of a generated world estimated without generating it (crawlsim info SPEC.ini;
 * src/gen/gen_sample.c says how): exact where the host model gives them, else from a uniform
 * sample of pages. Quantile arrays hold min, median, p90, p99, max. */
typedef struct cs_gen_estimate {
    int64_t n_pages, n_hosts; /* exact */
    int32_t n_topics;
    double host_size[5]; /* exact */
    int64_t sample;      /* pages sampled (distinct) */
    double threshold;    /* relevance threshold of `relevant` */
    cs_gen_est links, out_degree, no_out_links, within_host, within_topic, reciprocity;
    cs_gen_est relevant, observable, relevance, change_rate, importance;
    double out_degree_q[5], relevance_q[5], change_rate_q[5], importance_q[5];
} cs_gen_estimate;

/*
 * Local. Estimates the statistics of g's world from `sample` distinct pages drawn uniformly with
 * `seed` (all pages when sample >= the world's), each page and one of its out-links generated on
 * demand: O(sample) pages generated, O(hosts) for the exact host sizes.
 */
CS_API cs_err cs_gen_estimate_stats(cs_ctx *ctx, const cs_gen *g, uint64_t seed, int64_t sample,
                                    double threshold, cs_gen_estimate *out);
/* Prints an estimate in the manner of crawlsim info. */
CS_API void cs_gen_estimate_print(FILE *f, const cs_gen_estimate *e);

#endif
