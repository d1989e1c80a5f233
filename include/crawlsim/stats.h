/*
 * stats: the web-likeness statistics of a world (`crawlsim stats`), the same figures for a graph
 * file (generated or imported), for a graph held in memory, and for a generator spec of any size.
 *
 * Design. One plain struct, cs_stats, holds every figure as a cs_stats_est: a value, its 95 %
 * interval and the sample size behind it (0 when the figure is exact, computed on every page and
 * link); a figure that is not available (no hosts, no labels, or a row that needs the whole graph
 * when only a sample of a spec is drawn) has value NaN. Three entry points fill it:
 *
 *   cs_stats_compute  the core: each rank passes its block of pages (cs_block_range order, as
 *                     cs_gen_slice or cs_graphio_read_slice give them), so a caller that generates
 *                     a world in memory (fitting a twin) needs no file;
 *   cs_stats_file     reads a graph file's blocks and calls cs_stats_compute;
 *   cs_stats_spec     a [gen] spec: up to CS_STATS_MAX_PAGES pages generated in memory and
 *                     measured whole (the same figures as `crawlsim gen` then cs_stats_file);
 *                     beyond, or when asked, estimated from a uniform sample of pages and their
 *                     out-links (the rows that need in-links or the whole graph are NaN).
 *
 * The whole-graph figures (in-degrees, clustering, bow-tie, distances, BFS discovery) gather the
 * graph on every rank (4 bytes a link twice, out and in, plus about 30 bytes a page), which bounds
 * the size to about 10^7 pages on a node; larger graphs are refused with CS_ERR_LIMIT. The work
 * is split over the ranks and their threads by page block (counts over links) or by sampled item
 * (distance sources, clustering pages, BFS seeds); every item is a pure function of the gathered
 * graph and (seed, item index), and every combination is an integer sum or a sum of per-item
 * values in item order, so the result does not depend on the rank or thread count.
 *
 * Definitions (docs/guide/statistics.md says more):
 *   degrees        out-links and in-links per page as stored (self links count once);
 *   tail exponent  the in-degree's discrete power law, Clauset, Shalizi & Newman 2009 Eq. 3.7,
 *                  x_min by their KS criterion (as `crawlsim info`); alpha20 at x_min = 20;
 *   gap profile    share of links with |target - source| < 2^4, 2^8, 2^12 (self links are gap
 *                  0); forward8: of the links with 0 < |gap| < 2^8, the share with target > source;
 *   within host    share of links whose two pages share a host (when 1 < hosts < pages);
 *   between hosts  of the log out-degree over the pages with out-links, and of having none over
 *                  all pages: the share of its variance that lies between the hosts' means,
 *                  sum_h n_h (mean_h - mean)^2 / sum (x - mean)^2, summed in page order (with
 *                  no host effect about (hosts - 1) / (pages - 1));
 *   reciprocity    share of links u->v, u != v, with v->u present;
 *   target out     mean out-degree of a link's target (the out-degree weighted by in-degree);
 *   clustering     mean over uniformly drawn pages of the local clustering coefficient of the
 *                  undirected simple graph (0 for pages of fewer than two neighbours, as
 *                  networkx's average_clustering);
 *   link overlap   mean over uniformly drawn links u->v (v with out-links) of the share of v's
 *                  out-links that u also links to (pages of one site repeat one menu: a crawl
 *                  that follows u's links to v learns little new there);
 *   bow-tie        shares of pages in the largest strongly connected component, reaching it
 *                  (IN), reached from it (OUT), and the rest (tendrils, tubes, other components);
 *   distances      directed shortest paths from sources drawn uniformly in the largest SCC to
 *                  the pages they reach: the mean, and the 90 % effective diameter (the distance
 * within which 90 % of the reachable pairs lie, linearly interpolated between integer distances);
 *   topics         P(same topic | link) over links whose two pages have a known topic, the base
 *                  rate sum_k p_k^2 over pages with a known topic, and their ratio (lift);
 *   relevance      P(target relevant | link from a relevant page) and the share of relevant
 *                  pages (relevance >= the threshold; when the graph has a target topic);
 *   BFS discovery  a breadth-first crawl from a seed drawn in the largest SCC: pages known
 *                  (fetched or seen in a fetched page's links) after fetching 1 % and 10 % of the
 *                  pages, and the share of the first 10 % fetches that find no new page; value
 *                  = mean over seeds, lo/hi = their range.
 *   other orders   the same crawl from the same seeds in two more orders (cs_stats_opts.orders):
 *                  in-degree first (the known unfetched page with the most links from fetched
 *                  pages, the smallest page id among equals) and random (uniform among the known
 *                  unfetched pages, drawn from the stream (seed, CS_RNG_SAMPLE, 22, seed index)).
 *
 * Ownership: cs_stats is plain data; nothing to free.
 */
#ifndef CRAWLSIM_STATS_H
#define CRAWLSIM_STATS_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/slice.h"

#include <stdint.h>
#include <stdio.h>

#define CS_STATS_MAX_SEEDS 256      /* BFS discovery seeds */
#define CS_STATS_CURVE 41           /* discovery-curve points: fetched share 10^(-4 + k / 10) */
#define CS_STATS_MAX_PAGES 20000000 /* whole-graph statistics up to this many pages */
#define CS_STATS_N_BLOCKS 3         /* block sizes of block_repeat: 16, 256, 4096 consecutive ids */
#define CS_STATS_IN_CLASSES 4 /* in-degree classes of discovery fetches: <= 1, 2-9, 10-99, 100+ */

/* Discovery orders, bits of cs_stats_opts.orders. */
#define CS_STATS_ORDER_BFS 1u    /* breadth-first */
#define CS_STATS_ORDER_INDEG 2u  /* in-degree first: most links from fetched pages, then page id */
#define CS_STATS_ORDER_RANDOM 4u /* uniform among the known unfetched pages */
#define CS_STATS_ORDER_ALL 7u

/* A figure: value, 95 % interval [lo, hi], sample size n (0: exact). value NaN: not available. */
typedef struct cs_stats_est {
    double value, lo, hi;
    int64_t n;
} cs_stats_est;

/* What to sample. cs_stats_opts_default gives the defaults in brackets. 0 sources, clustering
 * pages or BFS seeds leaves those figures out (NaN), to save their time; so does an order left
 * out of `orders` (its crawls from the seeds). */
typedef struct cs_stats_opts {
    uint64_t seed;              /* sampling seed [1] */
    int64_t sources;            /* distance sources, in the largest SCC [64] */
    int64_t cluster_pages;      /* clustering sample [10000] */
    int bfs_seeds;              /* BFS discovery seeds [5], at most CS_STATS_MAX_SEEDS */
    unsigned orders;            /* discovery orders, CS_STATS_ORDER_* bits [CS_STATS_ORDER_BFS] */
    int64_t pages;              /* spec sampling: pages drawn [100000] */
    double relevance_threshold; /* relevant pages: relevance >= this [0.5] */
} cs_stats_opts;

/* A degree (or host-size) distribution. */
typedef struct cs_stats_dist {
    cs_stats_est mean, median, max, zero; /* zero: share of pages with none */
    cs_stats_est one, two;                /* shares of pages with exactly 1, 2 */
    cs_stats_est few, ten;                /* shares of pages with 3 to 9, 10 or more */
    cs_stats_est alpha;                   /* power-law exponent, x_min by KS */
    int64_t xmin, tail;                   /* its x_min and the pages at or above it */
    cs_stats_est alpha20;                 /* exponent at x_min = 20 */
    cs_stats_est rich; /* out-degrees only: the 90th percentile (the page at 0-based rank
                          floor(0.9 N) in ascending order), at least 1: link-rich pages have
                          at least this many out-links */
    /* out-degrees with hosts only: the share of the variance between hosts (the correlation
     * ratio: the hosts' means' spread around the mean over the variance) of the log out-degree
     * of the pages with out-links, and of having none */
    cs_stats_est between, zero_between;
} cs_stats_dist;

typedef struct cs_stats_links {
    cs_stats_est gap4, gap8, gap12, forward8;
    cs_stats_est within_host, reciprocity;
    cs_stats_est target_out; /* mean out-degree of a link's target (in-degree-weighted) */
    cs_stats_est top1_in;    /* share of links into the ceil(N / 100) most-linked pages */
    cs_stats_est top1_club;  /* share of those pages' own links that go to one of them */
    cs_stats_est leaf_top1;  /* share of the links of pages with one in-link that go to them */
    cs_stats_est block_repeat[CS_STATS_N_BLOCKS]; /* share of links whose target an earlier
                                    link of their block of 16^(k+1) consecutive ids points to */
    cs_stats_est lone_parents;   /* share of pages linking to a page no other page links to */
    cs_stats_est lone_top1;      /* share of those lone pages listed by the ceil(N / 100) pages
                                    that list the most of them */
    cs_stats_est lone_parent_in; /* in-degree of a lone page's one parent, median over them */
    cs_stats_est same_topic, topic_base, topic_lift;
    cs_stats_est rel_link, rel_base; /* P(relevant | link from relevant), P(relevant) */
} cs_stats_links;

typedef struct cs_stats_shape {
    cs_stats_est clustering;
    cs_stats_est overlap; /* share of a link's target's out-links its source links to too */
    cs_stats_est scc, in, out, rest; /* bow-tie shares of the pages */
    cs_stats_est dist_mean, dist_eff90;
    cs_stats_est reach; /* share of the pages a source reaches (the SCC and OUT), mean */
} cs_stats_shape;

/* The discovery crawls of one order from the seeds (the same seeds in every order). */
typedef struct cs_stats_bfs {
    int seeds; /* 0: the order was not crawled */
    int64_t seed_page[CS_STATS_MAX_SEEDS];
    cs_stats_est known1, known10, empty10; /* mean over seeds, [min, max] */
    cs_stats_est rich1;      /* share of the first 1 % fetches at link-rich pages (out.rich) */
    cs_stats_est rich_new1;  /* new pages per such fetch */
    cs_stats_est other_new1; /* new pages per other fetch of the first 1 % */
    /* the first 1 % fetches by the fetched page's in-degree (CS_STATS_IN_CLASSES, from
     * cs_stats_in_class_lo): their share, and the new pages per such fetch */
    cs_stats_est by_in[CS_STATS_IN_CLASSES], by_in_new[CS_STATS_IN_CLASSES];
    double curve[CS_STATS_MAX_SEEDS][CS_STATS_CURVE]; /* known share at fetched share x_k */
    int64_t fetched[CS_STATS_MAX_SEEDS];              /* fetches until the frontier emptied */
} cs_stats_bfs;

typedef struct cs_stats {
    int64_t n_pages, n_links, n_hosts;
    int32_t n_topics, topics_used; /* topics with at least one page */
    int sampled;                   /* 1: a spec's sample; whole-graph rows are NaN */
    int has_hosts, has_topics, has_relevance;
    cs_stats_dist out, in, host;
    cs_stats_links links;
    cs_stats_shape shape;
    cs_stats_bfs bfs;   /* breadth-first */
    cs_stats_bfs indeg; /* in-degree first */
    cs_stats_bfs rnd;   /* random */
    int n_ranks;
    double seconds; /* wall time, maximum over ranks */
} cs_stats;

/* Local. The smallest in-degree of class c < CS_STATS_IN_CLASSES of cs_stats_bfs.by_in (class 0
 * also holds the pages without in-links, such as a seed): 1, 2, 10, 100. */
static inline int64_t cs_stats_in_class_lo(int c)
{
    return c <= 0 ? 1 : c == 1 ? 2 : c == 2 ? 10 : 100;
}

/* Local. The defaults of cs_stats_opts. */
CS_API void cs_stats_opts_default(cs_stats_opts *o);

/*
 * Collective(ctx->comm). Logically collective: o, meta's n_hosts, n_topics and target_topic.
 * The statistics of the graph whose block of pages this rank holds in `block` (pages
 * [first, first + n) of n_pages_total, the blocks of the ranks in rank order tiling the graph,
 * with targets, host, topic and relevance), filled identically on every rank. The block is
 * borrowed. Errors, the same on every rank: CS_ERR_LIMIT (more than CS_STATS_MAX_PAGES pages or
 * 2^31 - 1 links), CS_ERR_ARG (blocks that do not tile the graph, bad options), CS_ERR_NOMEM.
 */
CS_API cs_err cs_stats_compute(cs_ctx *ctx, const cs_graph_slice *block, const cs_graph_meta *meta,
                               const cs_stats_opts *o, cs_stats *out);

/*
 * Collective(ctx->comm). Logically collective: path, o. cs_stats_compute on a graph file, each
 * rank reading its block (cs_block_range). Errors of cs_graphio_read_slice and cs_stats_compute.
 */
CS_API cs_err cs_stats_file(cs_ctx *ctx, const char *path, const cs_stats_opts *o, cs_stats *out);

/*
 * Collective(ctx->comm). Logically collective: cfg, o, sampled. The statistics of the [gen]
 * world of cfg: with sampled = 0 and at most CS_STATS_MAX_PAGES pages, each rank generates its
 * block (cs_gen_slice) and cs_stats_compute measures the whole world; otherwise o->pages pages
 * are drawn uniformly (with replacement, from o->seed), generated with their out-links, and the
 * rows that need only a page and its out-links are estimated with their intervals (one out-link
 * of each page drawn for reciprocity); the rest are NaN and out->sampled = 1. Host sizes come
 * exactly from the host model. Errors: those of cs_gen_create and cs_stats_compute.
 */
CS_API cs_err cs_stats_spec(cs_ctx *ctx, const cs_gen_config *cfg, const cs_stats_opts *o,
                            int sampled, cs_stats *out);

/* Local. The statistics as a readable report (what `crawlsim stats` prints). */
CS_API void cs_stats_print(FILE *f, const cs_stats *s);

/*
 * Local. The statistics as a table, one row per figure (docs/reference/formats.md "Statistics
 * table"): a header line, then `statistic value lo hi n` separated by tabs (NaN written as "nan";
 * n 0 = exact), then the BFS curve rows `curve.<seed index>.<k> known_share fetched_share
 * fetched_share seed_page`, and those of the other orders crawled (`indeg.curve.*`,
 * `random.curve.*`).
 * Returns 0, or -1 when writing failed.
 */
CS_API int cs_stats_write_tsv(FILE *f, const cs_stats *s);

#endif
