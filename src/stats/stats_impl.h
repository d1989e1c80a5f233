/*
 * stats internals shared by stats.c (gathering, link counts, degrees, the entry points),
 * stats_graph.c (the whole-graph figures: bow-tie, distances, clustering, BFS discovery),
 * stats_crawl.c (the discovery crawls), stats_sample.c (a spec's sampled figures) and
 * stats_report.c (the report and the table).
 *
 * Test hook (read from the environment at each call, so no global state; it only lowers the
 * limit):
 *   CRAWLSIM_STATS_MAX_PAGES  the whole-graph statistics' page limit (default and maximum
 *                             CS_STATS_MAX_PAGES), so that the tests reach the refusal and the
 *                             sampling of a spec beyond it with small worlds
 */
#ifndef CRAWLSIM_STATS_IMPL_H
#define CRAWLSIM_STATS_IMPL_H

#include "crawlsim/graphio.h"
#include "crawlsim/stats.h"

#include <stdint.h>

/* Sub-stream ids of the sampling draws (rng domain CS_RNG_SAMPLE; ids 0 and 1 are
 * crawlsim info's): item k of a kind is drawn from stream (seed, CS_RNG_SAMPLE, id, k). */
enum {
    ST_RNG_SOURCE = 16,  /* distance sources */
    ST_RNG_CLUSTER = 17, /* clustering pages */
    ST_RNG_SEED = 18,    /* BFS seeds */
    ST_RNG_BOOT = 19,    /* bootstrap of the effective diameter */
    ST_RNG_PAGE = 20,    /* a spec's sampled pages */
    ST_RNG_LINK = 21,    /* the out-link drawn of each sampled page */
    ST_RNG_ORDER = 22,   /* the random discovery order: sub = the seed's index */
    ST_RNG_OVERLAP = 23  /* the links of the link overlap */
};

/* The discovery orders, in the order of their items and rows. */
enum { ST_ORDER_BFS, ST_ORDER_INDEG, ST_ORDER_RANDOM, ST_ORDERS };

#define ST_DMAX 4095 /* distances above count as ST_DMAX */

/* The whole graph, gathered on every rank: out-links and in-links in CSR (32-bit ids, each list
 * sorted), and the page classes. */
typedef struct st_graph {
    int64_t N, M;
    int64_t *off, *ioff; /* N + 1 each */
    int32_t *tg, *isrc;  /* M each */
    int32_t *host;       /* N, or NULL without hosts */
    int32_t *topic;      /* N, -1 unknown */
    uint8_t *rel;        /* N: relevance >= threshold */
    int64_t rich;        /* link-rich pages: at least this many out-links (cs_stats_dist) */
} st_graph;

/* Local. The whole-graph statistics' page limit (CS_STATS_MAX_PAGES, or the test hook's). */
int64_t st_max_pages(void);

/* Local. st_mean of the values of x[0..n) that are not NaN (x's order kept, moved forward). */
cs_stats_est st_mean_defined(double *x, int64_t n);
/* Local. An exact figure. */
cs_stats_est st_exact(double v);
/* Local. A figure that is not available. */
cs_stats_est st_none(void);
/* Local. Mean of x[0..n) and its normal 95 % interval. */
cs_stats_est st_mean(const double *x, int64_t n);
/* Local. sum(a) / sum(d) over n items and its 95 % interval (delta method). */
cs_stats_est st_ratio(const double *a, const double *d, int64_t n);
/* Local. The uniform draw of item k of kind id: a page in [0, N). */
int64_t st_draw(uint64_t seed, int id, int64_t k, int64_t N);
/* Local. The exact figures of the histogram h[0..kmax] (items of value k): summary, power law
 * (cs_graphio_hist_stats) and the exponent at x_min = 20. CS_ERR_NOMEM. */
cs_err st_dist_hist(cs_ctx *ctx, const int64_t *h, int64_t kmax, cs_stats_dist *out);

/* Collective. The bow-tie, distances, clustering and BFS discovery of g into s. */
cs_err st_shape(cs_ctx *ctx, const st_graph *g, const cs_stats_opts *o, cs_stats *s);

/* Collective. A spec's sampled figures (cs_stats_spec with sampling). */
cs_err st_sample_spec(cs_ctx *ctx, const cs_gen_config *cfg, const cs_stats_opts *o, cs_stats *s);

/* Local. Whether the sorted a[0..n) holds x (binary search). */
static inline int st_holds32(const int32_t *a, int64_t n, int32_t x)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo] == x;
}

/* A discovery crawl's row: known1, known10, empty10, fetched, the curve, then of the first 1 %
 * fetches: those at link-rich pages, the pages they made known, the other fetches, theirs, and
 * per in-degree class of the fetched page (CS_STATS_IN_CLASSES) its fetches and theirs. */
#define ST_SEED_ROW (4 + CS_STATS_CURVE + 4 + 2 * CS_STATS_IN_CLASSES)
#define ST_ROW_RICH (4 + CS_STATS_CURVE)
#define ST_ROW_IN (ST_ROW_RICH + 4)

/* A thread's scratch for the discovery crawls: known N + 1 bytes, zero on entry and on return;
 * queue, heap, pos and cnt N + 1 entries each (heap, pos and cnt for in-degree first and random
 * only, NULL otherwise). */
typedef struct st_crawl_scratch {
    uint8_t *known;
    int32_t *queue, *heap, *pos, *cnt;
} st_crawl_scratch;

/* Local. The fetch count of curve point k: the fetched share 10^(-4 + k / 10) of N, at least 1. */
int64_t st_curve_fetches(int64_t N, int k);

/* Local. A discovery crawl of g in order ST_ORDER_* from page seed, until no known page is left
 * unfetched, into row (ST_SEED_ROW); the random order draws from the stream (rseed,
 * CS_RNG_SAMPLE, ST_RNG_ORDER, index). */
void st_crawl(const st_graph *g, int order, int32_t seed, uint64_t rseed, int64_t index,
              st_crawl_scratch *w, double *row);

/* Local. All figures of s set to "not available". */
void st_clear(cs_stats *s);

#endif
