/*
 * sim: the route phase: the tick's link records (sim_fetch.c) sorted by the rank owning their
 * target page. Other ranks' records are copied into the outboxes for the exchange
 * (sim_exchange.c); this rank's stay where they are and are inserted by index (sim_insert.c).
 */
#include "sim/sim_engine.h"

/* Link records per block of the routing's counting sort: 128, or 8 per rank beyond 16 ranks
 * (each block zeroes and sums one count per rank). A stable counting sort gives the same order
 * for any blocks; fixed ones keep the work of a block independent of the thread count. */
static inline int64_t route_block(int P)
{
    return P <= 16 ? 128 : 8 * (int64_t)P;
}

/* The owners of the records in parallel over blocks (the owner map's reads are at random places:
 * prefetched 16 records ahead; the owner runs of a host partition are found through their bucket
 * index), and each block's count of records per rank in rblk[b * P + rank]. */
static void route_owners(sim_route_phase *r, const cs_link_msg *msgs, int64_t nl, int64_t nb,
                         int64_t RB, int P, const uint8_t *own8, const cs_graph *g)
{
    int64_t *rblk = r->rblk;
    const int64_t *ridx = r->ridx;
    int32_t *route = r->route;
#pragma omp parallel for if (nb > 1) default(none)                                                 \
    shared(g, own8, msgs, ridx, route, rblk, nb, nl, P, RB) schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t e = (b + 1) * RB < nl ? (b + 1) * RB : nl;
        int64_t *cnt = rblk + b * P;
        for (int rk = 0; rk < P; rk++)
            cnt[rk] = 0;
        for (int64_t j = b * RB; j < e; j++) {
            const int64_t d = msgs[ridx[j]].dst;
            int o;
            if (own8 != NULL) {
                if (j + 16 < e)
                    __builtin_prefetch(&own8[msgs[ridx[j + 16]].dst]);
                o = own8[d];
            } else {
                o = cs_graph_owner(g, d);
            }
            route[j] = o;
            cnt[o]++;
        }
    }
}

cs_err sim_route_records(cs_ctx *ctx, sim_route_phase *r, const cs_link_msg *msgs, int64_t nl,
                         const uint8_t *own8, const cs_graph *g, cs_outbox *ob)
{
    cs_err rc = CS_OK;
    const int P = ctx->size, me = ctx->rank;
    if (P == 1) {
        /* one rank owns every page: the records in page order are its own, as the counting
         * sort below would leave them (the two scratch arrays change places) */
        int64_t *t = r->own;
        const size_t tc = r->own_cap;
        r->own = r->ridx;
        r->own_cap = r->ridx_cap;
        r->ridx = t;
        r->ridx_cap = tc;
        r->n_own = nl;
        return CS_OK;
    }
    /* a counting sort by owner over fixed blocks of records (route_block: independent of the
     * thread count): the owners and each block's count per rank in parallel, the offsets in
     * (rank, block) order, then each block copies its records to its places in parallel */
    const int64_t RB = route_block(P), nb = (nl + RB - 1) / RB;
    CS_TRY(ctx, cs_grow(ctx, &r->rblk, &r->rblk_cap, (size_t)(nb + 1) * (size_t)P, sizeof *r->rblk,
                        "links"));
    route_owners(r, msgs, nl, nb, RB, P, own8, g);
    int64_t *rblk = r->rblk, *ridx = r->ridx;
    const int32_t *route = r->route;
    size_t *need = r->route_bytes;
    for (int rk = 0; rk < P; rk++) {
        /* rank rk's records: block 0's first; offsets in records from the box's end (own: from
         * 0 in r->own) */
        int64_t at = 0;
        for (int64_t b = 0; b < nb; b++) {
            const int64_t k = rblk[b * P + rk];
            rblk[b * P + rk] = at;
            at += k;
        }
        need[rk] = (size_t)at * sizeof(cs_link_msg);
        if (rk != me)
            CS_TRY(ctx, cs_outbox_reserve(ctx, ob, rk, need[rk]));
    }
    int64_t *ownv = r->own;
    char **obuf = ob->buf;
    const size_t *olen = ob->len;
#pragma omp parallel for if (nb > 1) default(none)                                                 \
    shared(msgs, ridx, route, rblk, nb, nl, P, RB, me, ownv, obuf, olen) schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t e = (b + 1) * RB < nl ? (b + 1) * RB : nl;
        int64_t *at = rblk + b * P;
        for (int64_t j = b * RB; j < e; j++) {
            const int o = route[j];
            if (o == me)
                ownv[at[o]++] = ridx[j];
            else
                memcpy(obuf[o] + olen[o] + (size_t)at[o]++ * sizeof(cs_link_msg), &msgs[ridx[j]],
                       sizeof(cs_link_msg));
        }
    }
    r->n_own = (int64_t)(need[me] / sizeof(cs_link_msg));
    for (int rk = 0; rk < P; rk++)
        if (rk != me)
            ob->len[rk] += need[rk];
fail:
    return rc;
}

/* Local. The tick's n fetches' link records (page i's nout[i] at base[i] of the records,
 * sim_fetch_pages) in page order into r->ridx, then routed (sim_route_records). */
static cs_err route_records_of(sim *s, int64_t n, int64_t nl)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t *base = s->f.base, *nout = s->f.nout;
    sim_route_phase *r = &s->r;
    CS_TRY(ctx, cs_grow(ctx, &r->own, &r->own_cap, (size_t)(nl > n ? nl : n) + 1, sizeof *r->own,
                        "links"));
    CS_TRY(ctx, cs_grow(ctx, &r->ridx, &r->ridx_cap, (size_t)nl + 1, sizeof *r->ridx, "links"));
    CS_TRY(ctx, cs_grow(ctx, &r->route, &r->route_cap, (size_t)nl + 1, sizeof *r->route, "links"));
    /* the records in page order: page i's at the prefix sum of nout (in r->own for now) */
    int64_t *rat = r->own, *rix = r->ridx, at = 0;
    for (int64_t i = 0; i < n; i++) {
        rat[i] = at;
        at += nout[i];
    }
#pragma omp parallel for if (n >= 128) default(none) shared(rat, rix, base, nout, n)               \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < nout[i]; k++)
            rix[rat[i] + k] = base[i] + k;
    CS_TRY(ctx, sim_route_records(ctx, r, s->f.msgs, nl, cs_graph_owner_map8(s->w.g), s->w.g,
                                  &s->x.out));
fail:
    return rc;
}

/* Local. The route phase of the tick's n fetches: with routed, their link records to their
 * owners; without (the replicated mode: every record goes to every rank, rep_share), only
 * counted. */
static cs_err route_links(sim *s, int64_t n, int routed)
{
    cs_err rc = CS_OK;
    const double t0 = cs_now();
    int64_t nl = 0;
    for (int64_t i = 0; i < n; i++)
        nl += s->f.nout[i];
    if (routed)
        CS_TRY(s->ctx, route_records_of(s, n, nl));
    s->m.c[C_LINKS] += nl;
    cs_simcost_charge(CS_COST_ROUTE, (double)nl);
    s->m.t[PH_ROUTE] += cs_now() - t0;
fail:
    return rc;
}

cs_err sim_route_links(sim *s, int64_t n)
{
    return route_links(s, n, 1);
}

cs_err sim_route_counted(sim *s, int64_t n)
{
    return route_links(s, n, 0);
}

void sim_route_fini(sim_route_phase *p)
{
    free(p->own);
    free(p->ridx);
    free(p->route);
    free(p->route_bytes);
    free(p->rblk);
}
