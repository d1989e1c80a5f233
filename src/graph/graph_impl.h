/*
 * graph internals shared by load.c (cs_graph_load_with) and build.c (cs_graph_build): the
 * cs_graph struct and the three steps both constructors take the same way, so that a graph
 * loaded from a file and one built in memory are the same object for the same partition: the
 * partition check, the owner map and the local ids with their index.
 */
#ifndef CRAWLSIM_GRAPH_IMPL_H
#define CRAWLSIM_GRAPH_IMPL_H

#include "crawlsim/graph.h"
#include "crawlsim/partition.h"

#include <stdint.h>

struct cs_graph {
    int64_t n_pages, n_links, n_hosts;
    int32_t n_topics;
    int k, rank;

    int64_t n_local, n_local_links;
    int64_t *ids;     /* n_local sorted global ids */
    int64_t *offsets; /* n_local + 1 */
    int64_t *targets;
    int64_t *host;
    int32_t *topic;
    double *relevance, *delta, *mu;
    uint8_t *observable;

    /* local index */
    int contiguous; /* ids are ids[0] .. ids[0] + n_local - 1 */
    /* when not contiguous, a rank directory over all pages: bit p of mine[] is set when this
     * rank owns page p, and below[w] counts the owned pages before word w (0.625 B per page) */
    uint64_t *mine;
    int32_t *below;

    /* owner map: exactly one of part_first (block range table), owner8/16/32 is set */
    int64_t *part_first; /* k + 1 */
    uint8_t *owner8;
    uint16_t *owner16;
    int32_t *owner32;
};

/*
 * Local (same verdict on every rank: part is replicated). part fits this job: k ==
 * ctx->size (CS_ERR_ARG asking to re-partition), a part array for its pages (CS_ERR_ARG),
 * part ids in [0, k) and part_first, when present, consistent with part (CS_ERR_FORMAT).
 * Messages name the graph file `path`, or "the partition" when path is NULL (in memory).
 */
cs_err graph_check_partition(cs_ctx *ctx, const char *path, const cs_partition *part);

/* Local. g->part_first (a copy of the block range table) or the narrow owner map. */
cs_err graph_build_owner(cs_ctx *ctx, cs_graph *g, const cs_partition *part);

/* Local. g->ids (this rank's sorted page ids), g->n_local, and the local index over them.
 * CS_ERR_LIMIT beyond 2^31 - 2 local pages. */
cs_err graph_build_local(cs_ctx *ctx, cs_graph *g, const cs_partition *part);

#endif
