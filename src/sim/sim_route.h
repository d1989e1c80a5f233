/*
 * sim: the route phase of a tick, its state and its kernel (sim_route.c): the tick's link
 * records sorted by the rank owning their target page, the other ranks' into the outboxes, this
 * rank's listed where they are.
 */
#ifndef CRAWLSIM_SIM_ROUTE_H
#define CRAWLSIM_SIM_ROUTE_H

#include "crawlsim/comm.h"
#include "crawlsim/core.h"
#include "crawlsim/features.h"
#include "crawlsim/graph.h"

#include <stddef.h>
#include <stdint.h>

/* The route phase's state: scratch of one tick, and the records it kept for this rank. */
typedef struct sim_route_phase {
    int64_t *own; /* this tick's records of this rank's own pages: indexes into the records */
    int64_t n_own;
    size_t own_cap;
    int64_t *ridx;  /* the tick's records in page order: indexes into the records */
    int32_t *route; /* and their owners */
    size_t ridx_cap, route_cap;
    size_t *route_bytes; /* bytes of records per destination rank (P) */
    int64_t *rblk;       /* per block of records and rank, a count, then an offset */
    size_t rblk_cap;
} sim_route_phase;

/*
 * Local. The routing kernel: the records msgs[r->ridx[j]], j in [0, nl), sorted by the rank
 * owning their target page dst (own8[dst] when own8 is not NULL, else cs_graph_owner(g, dst))
 * with a stable counting sort over fixed blocks of records: rank ctx->rank's are listed by
 * index in r->own[0 .. r->n_own), every other rank's are appended to its box of ob in the same
 * order. The order does not depend on the thread count; r->ridx is scratch afterwards. r->own
 * must hold nl entries and r->route_bytes ctx->size. Errors: CS_ERR_NOMEM (the boxes keep what
 * they had).
 */
cs_err sim_route_records(cs_ctx *ctx, sim_route_phase *r, const cs_link_msg *msgs, int64_t nl,
                         const uint8_t *own8, const cs_graph *g, cs_outbox *ob);

#endif
