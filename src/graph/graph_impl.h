/*
 * graph internals shared by load.c (cs_graph_load_with) and build.c (cs_graph_build): the
 * cs_graph struct and the three steps both constructors take the same way, so that a graph
 * loaded from a file and one built in memory are the same object for the same partition: the
 * partition check, the owner lookup and the local ids with their index (owner.c).
 */
#ifndef CRAWLSIM_GRAPH_IMPL_H
#define CRAWLSIM_GRAPH_IMPL_H

#include "crawlsim/graph.h"
#include "crawlsim/partition.h"

#include <stdint.h>

/*
 * Runs of page ids: run i covers [start[i], start[i + 1]) (or, for the local runs, starts
 * there), start increasing, start[n] the end of the range covered. A bucket index finds a
 * page's run in O(1) on average: bucket b holds the pages start[0] + [b, b + 1) x 2^shift,
 * and at[b] is the last run starting at or before the bucket's first page, so a page of
 * bucket b lies in a run of [at[b], at[b + 1]] (a binary search over that range, one or two
 * runs when run lengths are near the bucket width). About as many buckets as runs: 12 bytes
 * per run.
 */
typedef struct graph_runs {
    int64_t n;
    int64_t *start; /* n + 1 */
    int32_t *at;    /* buckets + 1 */
    int shift;
} graph_runs;

struct cs_graph {
    int64_t n_pages, n_links, n_hosts;
    int32_t n_topics;
    int k, rank;

    int64_t n_local, n_local_links;
    int64_t *ids;         /* n_local sorted global ids (NULL: cs_graph_build_index) */
    int64_t id_lo, id_hi; /* the first and last of them */
    int64_t *offsets;     /* n_local + 1 */
    int64_t *targets;
    int64_t *host;
    int32_t *topic;
    double *relevance, *delta, *mu;
    uint8_t *observable;

    /* local index: a subtraction when the ids are contiguous, else one of two forms, the
     * smaller for this rank's ids (owner.c): the local runs (lrun: the starts of this rank's
     * maximal runs of consecutive ids, lbase[i] the local index of run i's first page, lbase[n]
     * = n_local), or a rank directory over all pages (bit p of mine[] is set when this rank
     * owns page p, below[w] counts the owned pages before word w: 0.19 B per page) */
    int contiguous; /* ids are ids[0] .. ids[0] + n_local - 1 */
    graph_runs lrun;
    int32_t *lbase;
    uint64_t *mine;
    int32_t *below;

    /* owner lookup: exactly one of part_first (block range table), the owner runs (orun with
     * the part of each run in orun8/16/32: a partition that keeps hosts whole on a world whose
     * hosts are page ranges has about one run per host) or the owner map owner8/16/32 (a part
     * per page: partitions with more runs than that costs, such as METIS on pages) is set */
    int64_t *part_first; /* k + 1 */
    graph_runs orun;
    uint8_t *orun8;
    uint16_t *orun16;
    int32_t *orun32;
    uint8_t *owner8;
    uint16_t *owner16;
    int32_t *owner32;
    cs_graph_owner_fn owner_fn; /* else, computed: owner_fn(owner_arg, page) */
    const void *owner_arg;
};

/*
 * Local (same verdict on every rank: part is replicated). part fits this job: k ==
 * ctx->size (CS_ERR_ARG asking to re-partition), a part array, part_first or runs for its
 * pages (CS_ERR_ARG), part ids in [0, k), part_first and the runs, when present, well formed
 * and consistent with part when it is present too (CS_ERR_FORMAT).
 * Messages name the graph file `path`, or "the partition" when path is NULL (in memory).
 */
cs_err graph_check_partition(cs_ctx *ctx, const char *path, const cs_partition *part);

/* Local. g->part_first (a copy of the block range table), the owner runs or the narrow owner
 * map, whichever holds fewer bytes. */
cs_err graph_build_owner(cs_ctx *ctx, cs_graph *g, const cs_partition *part);

/* Local. g->ids (this rank's sorted page ids), g->n_local, and the local index over them.
 * CS_ERR_LIMIT beyond 2^31 - 2 local pages. */
cs_err graph_build_local(cs_ctx *ctx, cs_graph *g, const cs_partition *part);

/* Local. The bucket index of runs r whose r->n starts r->start[0 .. n] are set (n >= 1). */
cs_err graph_runs_index(cs_ctx *ctx, graph_runs *r);

/* Local. Frees the owner lookup and the local index (cs_graph_destroy). */
void graph_free_index(cs_graph *g);

#endif
