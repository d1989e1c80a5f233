/*
 * gen internals shared by gen.c (pages and links), gen_model.c (the model's tables) and
 * gen_graph.c.
 */
#ifndef CRAWLSIM_GEN_IMPL_H
#define CRAWLSIM_GEN_IMPL_H

#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <stdint.h>

/* The in-host ranks page_in_host_u finds by thresholds, and their relative margin in x: 10 times
 * the error of its computed x (fast_log2 and fast_exp2: below 1.5e-5 relative for |e| <= 8;
 * ipow: a few ulps), so that a threshold's verdict is the computed x's, bit for bit. */
#define GEN_RANKS 8
#define GEN_RANK_MARGIN 1e-4

/* A host as seen by a link into it. */
typedef struct host_rec {
    int64_t first; /* first page */
    int32_t count; /* pages */
    float c;       /* in-host popularity constant (see page_in_host) */
} host_rec;

/*
 * One entry of an alias table over hosts that stores the hosts themselves, so that picking a
 * popular host costs one cache miss instead of three (alias arrays, then the host list).
 */
typedef struct host_pick {
    uint32_t thresh; /* keep `host` when the low 32 bits of the draw are below this */
    int32_t host;
    int32_t alias_host;
} host_pick;

struct cs_gen {
    cs_gen_config cfg;
    int64_t n_pages;
    int64_t n_hosts;
    int32_t n_topics;
    cs_node *node; /* the ranks sharing the tables below (one block of its memory) */
    char *block;   /* the tables */
    int64_t block_bytes;
    host_rec *hosts;      /* n_hosts: the host's pages and what a link into it needs */
    uint16_t *host_topic; /* n_hosts (gen.topics <= 65536) */
    int32_t *host_at;     /* host_buckets + 1: the host of page b << host_shift */
    int64_t host_buckets;
    int host_shift;
    cs_alias topic_size;    /* topic of a host or of an off-topic page, by size */
    int64_t *topic_off;     /* n_topics + 1 offsets into topic_picks */
    host_pick *topic_picks; /* per topic: hosts by popularity (Zipf), as alias entries */
    host_pick *any_picks;   /* all hosts by popularity (but those of gen.in/isolated_hosts) */
    int64_t n_any;          /* entries of any_picks: the hosts other hosts may link to */
    int64_t *topic_fill;    /* n_topics, while the model is built */
    float *proto;           /* n_topics x term_dim unit prototypes (each rank its own) */
    double deg_xmin;        /* bounded power-law lower end for out-degrees */
    cs_powlaw deg_law;      /* the out-degrees' law */
    double deg_mu;          /* gen.degree_sigma > 0: the log-normal out-degrees' location */
    double page_inv;        /* 1 / (1 - page_popularity_skew), or 0 when skew == 1 */
    int page_int_exp;       /* page_inv when it is a small nonzero integer, else 0 */
    int64_t struct_max;     /* most structural links of a page (directory tree, template) */
    /* gen.c page_in_host_u with skew > 1: x = q^e decreases in q = c u + 1; x < k + 2 for sure
     * where q > rank_hi[k] and x >= k + 2 where q < rank_lo[k], GEN_RANK_MARGIN off the exact
     * boundary (k + 2)^(1/e) on either side (rank_n = GEN_RANKS; 0: no table) */
    int rank_n;
    double rank_hi[GEN_RANKS], rank_lo[GEN_RANKS];
};

/* A host from a pick table of n entries for the random word w: its high half chooses the entry
 * (multiply-shift, a bias below n / 2^32), the low word the coin. */
static inline int64_t pick_host(const host_pick *p, int64_t n, uint64_t w)
{
    const host_pick *e = &p[((w >> 32) * (uint64_t)n) >> 32];
    return (uint32_t)w < e->thresh ? e->host : e->alias_host;
}

/* A host's bow-tie role (gen.in_hosts, gen.out_hosts, gen.isolated_hosts): one uniform of the
 * host's hash under CS_HASH_ROLE, [0, in) IN, then [in, in + isolated) isolated, then the next
 * out_hosts OUT, the rest open; a host of one page is open (hidden, it would have no in-link;
 * closed, no out-link). Hidden hosts (IN, isolated) are in no pick table, so no other
 * host links to them; closed hosts (OUT, isolated) keep every drawn link inside. */
enum { HOST_OPEN = 0, HOST_HIDDEN = 1, HOST_CLOSED = 2 };

static inline int host_role(const cs_gen *g, int64_t host)
{
    const cs_gen_config *c = &g->cfg;
    if ((c->web.in_hosts <= 0.0 && c->web.out_hosts <= 0.0 && c->web.isolated_hosts <= 0.0) ||
        g->hosts[host].count < 2)
        return HOST_OPEN;
    const uint64_t key = cs_mix64((uint64_t)c->seed ^ CS_HASH_ROLE);
    const double u = (double)(cs_mix64((uint64_t)host + key) >> 11) * 0x1.0p-53;
    const double a = c->web.in_hosts, b = a + c->web.isolated_hosts, e = b + c->web.out_hosts;
    return u < a   ? HOST_HIDDEN
           : u < b ? HOST_HIDDEN | HOST_CLOSED
           : u < e ? HOST_CLOSED
                   : HOST_OPEN;
}

/*
 * Local. cs_gen_slice for the pages ids[0..n) (strictly increasing, in [0, pages); CS_ERR_ARG
 * otherwise) instead of a contiguous range: page i of out is page ids[i], generated exactly
 * as cs_gen_slice generates it, with the same OpenMP parallelism over all n pages whatever
 * the gaps between them. out->first is ids[0] (0 when n = 0) but the slice's pages are the
 * ids, not [first, first + n). ids is borrowed.
 */
cs_err gen_slice_ids(cs_ctx *ctx, const cs_gen *g, const int64_t *ids, int64_t n,
                     cs_graph_slice *out, cs_progress *progress);

#endif
