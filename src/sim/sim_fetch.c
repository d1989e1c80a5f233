/*
 * sim: a tick's fetches: rewards, the learner's observations, and the link records of the
 * fetched pages' out-links.
 */
#include "sim/sim_engine.h"

#include <omp.h>

/* ---- fetching --------------------------------------------------------------------------------
 */

/*
 * Fetches s->f.fx[0..n) (visited already marked): estimates, state, reward (OpenMP over pages),
 * then the policy learns in order, then the out-link records go to the outboxes.
 */
#define FETCH_CHUNK 16     /* pages per chunk of the fetch loop's dynamic schedule */
#define FETCH_PARALLEL 128 /* fewer pages' degrees are read serially */
/* Link records per block of the routing's counting sort: 128, or 8 per rank beyond 16 ranks
 * (each block zeroes and sums one count per rank). A stable counting sort gives the same order
 * for any blocks; fixed ones keep the work of a block independent of the thread count. */
static inline int64_t route_block(int P)
{
    return P <= 16 ? 128 : 8 * (int64_t)P;
}

/* A hint that the anchors of the out-links tg[j0..j1) follow: the evidence rows of the targets
 * not visited yet, the only ones the anchors will read (most targets are visited already). */
static inline void prefetch_targets(const cs_evidence *ev, const uint64_t *visited,
                                    const int32_t *slot, const int64_t *tg, int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j < j1; j++) {
        const int64_t row = slot != NULL ? (int64_t)slot[j] : tg[j];
        if (!BIT_GET(visited, row))
            cs_evidence_prefetch(ev, row);
    }
}

/* A hint that the visited bits of the targets tg[j0..j1) follow soon (at random places in a
 * bit per page of the world). */
static inline void prefetch_visited(const uint64_t *visited, const int32_t *slot, const int64_t *tg,
                                    int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j < j1; j++) {
        const int64_t row = slot != NULL ? (int64_t)slot[j] : tg[j];
        __builtin_prefetch(&visited[row >> 6]);
    }
}

cs_err sim_fetch_pages(sim *s, int64_t n, uint64_t tick)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_graph *g = s->g;
    const cs_gen *gen = s->gen;
    const int proc = s->proc;
    const int64_t *off = cs_graph_offsets(g), *tg = cs_graph_targets(g);
    const double *relv = cs_graph_relevance(g);
    const int64_t *hostv = cs_graph_host(g);
    const int G = s->G, GA = s->GA, GS = G - GA;
    double t0 = cs_now();
    /* where each fetch's page lies in off, relv and hostv: its local index, or in the
     * procedural world its place among the tick's pages, generated now (the same links and
     * attributes as the materialized graph's, from the same function) */
    CS_TRY(ctx, cs_grow(ctx, &s->f.at, &s->f.at_cap, (size_t)n + 1, sizeof *s->f.at, "fetches"));
    if (proc) {
        CS_TRY(ctx,
               cs_grow(ctx, &s->f.pid, &s->f.pid_cap, (size_t)n + 1, sizeof *s->f.pid, "fetches"));
        for (int64_t i = 0; i < n; i++) {
            s->f.pid[i] = s->f.fx[i].page;
            s->f.at[i] = i;
        }
        cs_graph_slice_fini(&s->f.pages);
        CS_TRY(ctx, cs_gen_pages(ctx, gen, s->f.pid, n, &s->f.pages));
        off = s->f.pages.offsets;
        tg = s->f.pages.targets;
        relv = s->f.pages.relevance;
        hostv = s->f.pages.host;
    } else {
        for (int64_t i = 0; i < n; i++)
            s->f.at[i] = s->f.fx[i].li;
    }
    const int64_t *pat = s->f.at;
    CS_TRY(ctx, cs_grow(ctx, &s->f.pst, &s->f.pst_cap, (size_t)n + 1, sizeof *s->f.pst, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.reward, &s->f.reward_cap, (size_t)n + 1, sizeof *s->f.reward,
                        "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->f.base, &s->f.base_cap, (size_t)n + 1, sizeof *s->f.base, "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->f.nout, &s->f.nout_cap, (size_t)n + 1, sizeof *s->f.nout, "fetches"));
    /* the pages' out-degrees (reads at random places) in parallel, their prefix sums */
    int64_t links = 0, *deg = s->f.base;
#pragma omp parallel for if (n >= FETCH_PARALLEL) default(none) shared(deg, off, pat, n)           \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        deg[i] = off[pat[i] + 1] - off[pat[i]];
    for (int64_t i = 0; i < n; i++) {
        const int64_t d = deg[i];
        deg[i] = links;
        links += d;
    }
    CS_TRY(ctx,
           cs_grow(ctx, &s->r.msgs, &s->r.msgs_cap, (size_t)links + 1, sizeof *s->r.msgs, "links"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->f.acts, &s->f.acts_cap, (size_t)(links + 1) * (size_t)GA, 1, "links"));
    const int TD = s->tres_d, HF = s->host_features;
    if (TD > 0)
        CS_TRY(ctx, cs_grow(ctx, &s->f.tx, &s->f.tx_cap, (size_t)(links + 1) * (size_t)TD,
                            sizeof *s->f.tx, "links"));
    float *tx = s->f.tx;
    const int32_t *hfetch = s->h.host_fetched, *hrel = s->h.host_rel, *hall = s->h.host_all;
    const int me = ctx->rank, rp = s->rep;

    const cs_feat_layout *L = &s->L;
    const cs_evidence *ev = s->ev;
    const fetch *fx = s->f.fx;
    cs_feat_page *pst = s->f.pst;
    double *reward = s->f.reward;
    int64_t *base = s->f.base, *nout = s->f.nout;
    cs_link_msg *msgs = s->r.msgs;
    uint8_t *acts = s->f.acts;
    const uint64_t *visited = s->vis.bits;
    const int32_t *slot = s->vis.slot; /* NULL: bits by page id (sim_visited.c) */
    const cs_config *cfg = s->cfg;
    double (*const reward_of)(const cs_config *, int, double) = s->ops->reward; /* the policy's */
    const double thr = s->threshold;
    int64_t skipped = 0; /* out-links to visited pages */
    const sim *cs = s;   /* the host slots (hslot) */
#pragma omp parallel for default(none)                                                             \
    shared(g, off, tg, relv, L, ev, fx, pst, reward, base, nout, msgs, acts, visited, slot, cfg, reward_of, thr, \
               n, GS, GA, TD, HF, tx, hfetch, hrel, hostv, me, hall, rp, pat, gen, proc, cs)        \
    schedule(dynamic, FETCH_CHUNK) reduction(+ : skipped)
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = fx[i].page, li = fx[i].li, ai = pat[i];
        float cats[CS_FEAT_MAX_CATEGORIES];
        const float rl = cs_evidence_page(ev, slot != NULL ? li : p, cats);
        const int relevant = relv[ai] >= thr;
        cs_feat_page *ps = &pst[i];
        cs_feat_page_state(L, rl, cats, relevant, &fx[i].par, ps);
        reward[i] = reward_of(cfg, relevant, (double)rl);
        /* Software pipeline over the pages (each of these is a cache miss at a random place):
         * the offsets of page i + 4, the targets of page i + 3, the visited bits of page i + 2's
         * targets, the evidence rows of page i + 1 and of its targets not visited yet (and of
         * page i's when a thread's chunk starts here: the chunks of a dynamic schedule start at
         * multiples of the chunk size). */
        if (i + 4 < n)
            __builtin_prefetch(&off[pat[i + 4]]);
        if (i + 3 < n)
            __builtin_prefetch(&tg[off[pat[i + 3]]]);
        if (i + 2 < n)
            prefetch_visited(visited, slot, tg, off[pat[i + 2]], off[pat[i + 2] + 1]);
        if (i % FETCH_CHUNK == 0)
            prefetch_targets(ev, visited, slot, tg, off[ai], off[ai + 1]);
        if (i + 1 < n) {
            __builtin_prefetch(&relv[pat[i + 1]]);
            cs_evidence_prefetch(ev, slot != NULL ? fx[i + 1].li : fx[i + 1].page);
            prefetch_targets(ev, visited, slot, tg, off[pat[i + 1]], off[pat[i + 1] + 1]);
        }
        /* what every out-link record of this page shares, and the parent part of the action
         * as seen from this page alone (one parent) */
        cs_link_msg tmpl;
        memset(&tmpl, 0, sizeof tmpl);
        tmpl.src = p;
        tmpl.parent_rl = rl;
        tmpl.parent_wrl = ps->wrl;
        tmpl.parent_dist = ps->dist;
        tmpl.parent_relevant = ps->relevant;
        memcpy(tmpl.state, ps->state, (size_t)GS);
        tmpl.parent_path_len = fx[i].par.path_len;
        tmpl.parent_path_rel = fx[i].par.path_rel;
        cs_tres_path_step(&tmpl.parent_path_len, &tmpl.parent_path_rel, relevant);
        cs_feat_parents one = {0};
        cs_feat_parents_add(&one, &tmpl);
        uint8_t pidx[4];
        cs_feat_parent_idx(&one, pidx);
        int64_t k = 0;
        for (int64_t j = off[ai]; j < off[ai + 1];) {
            /* a batch of the out-links not known visited, then their anchors at once */
            int64_t dst[CS_EVIDENCE_BATCH], row[CS_EVIDENCE_BATCH];
            int nb = 0;
            for (; j < off[ai + 1] && nb < CS_EVIDENCE_BATCH; j++) {
                /* without branches (visited or not is a coin flip to a branch predictor): one
                 * bit, of any rank's pages (sim_visited.c), which is also the row of its
                 * evidence; p itself is neither kept nor counted */
                const int64_t d = tg[j], r = slot != NULL ? (int64_t)slot[j] : d;
                const int vis = (int)BIT_GET(visited, r), self = d == p;
                dst[nb] = d;
                row[nb] = r;
                nb += !vis & !self;
                skipped += vis & !self;
            }
            float arl[CS_EVIDENCE_BATCH], acats[CS_EVIDENCE_BATCH * CS_FEAT_MAX_CATEGORIES];
            cs_evidence_anchors(ev, p, dst, row, nb, arl, acats);
            for (int b = 0; b < nb; b++) {
                const int64_t d = dst[b];
                cs_link_msg *m = &msgs[base[i] + k];
                *m = tmpl;
                m->dst = d;
                m->anchor_rl = arl[b];
                m->anchor_cat = cs_feat_pack_anchor_cats(L, acats + b * L->categories);
                cs_feat_action_with(L, m->anchor_rl, m->anchor_cat, pidx,
                                    acts + (base[i] + k) * GA);
                if (TD > 0) {
                    /* the next candidates of the transition (host features as this rank knows
                     * them: a host of another rank's pages is unknown here) */
                    m->url_rl = (uint16_t)(cs_tres_url_rl(ev, d, row[b]) * 65535.0f + 0.5f);
                    int64_t hf = 0, hr = 0;
                    if (rp) { /* rep: every host's counts are global and everywhere */
                        const int64_t h = proc ? cs_gen_host_of(gen, d) : hall[d];
                        hf = hfetch[hslot(cs, h)];
                        hr = hrel[hslot(cs, h)];
                    } else if (cs_graph_owner(g, d) == me) {
                        const int64_t h =
                            proc ? cs_gen_host_of(gen, d) : hostv[cs_graph_local_index(g, d)];
                        hf = hfetch[hslot(cs, h)];
                        hr = hrel[hslot(cs, h)];
                    }
                    cs_tres_x(HF, m, hf, hr, tx + (base[i] + k) * TD);
                }
                k++;
            }
        }
        nout[i] = k;
    }
    s->m.c[C_DROPPED] += skipped;
    cs_simcost_charge(CS_COST_FETCH, (double)n); /* the fetch with its learning step */
    double t1 = cs_now();
    s->m.t[PH_FETCH] += t1 - t0;

    /* statistics and learning, in selection order */
    const int64_t *host = hostv; /* by at[i] */
    if (s->cfg->run.trace) {
        CS_TRY(ctx, cs_grow(ctx, &s->m.trace, &s->m.trace_cap, s->m.trace_len + 2 * (size_t)n + 2,
                            sizeof *s->m.trace, "trace"));
        for (int64_t i = 0; i < n; i++) {
            s->m.trace[s->m.trace_len++] = (int64_t)tick;
            s->m.trace[s->m.trace_len++] = fx[i].page;
        }
    }
    /* the host counters (reads at random places): integer increments and bit sets, the same
     * whatever their order */
    int64_t nrel = 0;
    int32_t *hfc = s->h.host_fetched, *hrc = s->h.host_rel;
    uint64_t *relh = s->h.rel_host;
#pragma omp parallel for if (n >= FETCH_PARALLEL) default(none)                                   \
    shared(cs, host, pat, pst, hfc, hrc, relh, rp, n) reduction(+ : nrel) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t h = host[pat[i]];
        if (!rp) /* rep: rep_share counts every rank's fetches */
            __atomic_fetch_add(&hfc[hslot(cs, h)], 1, __ATOMIC_RELAXED);
        if (pst[i].relevant) {
            nrel++;
            if (!rp)
                __atomic_fetch_add(&hrc[hslot(cs, h)], 1, __ATOMIC_RELAXED);
            __atomic_fetch_or(&relh[h >> 6], (uint64_t)1 << (h & 63), __ATOMIC_RELAXED);
        }
    }
    s->m.c[C_FETCHED] += n;
    s->m.c[C_RELEVANT] += nrel;
    if (s->ops->observe != NULL && !s->rep) {
        CS_TRY(ctx,
               cs_grow(ctx, &s->f.obs, &s->f.obs_cap, (size_t)n + 1, sizeof *s->f.obs, "fetches"));
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!fx[i].has_x)
                continue; /* a seed was not chosen by an action */
            cs_discover_fetch *o = &s->f.obs[m++];
            o->pick = fx[i].pick;
            o->out_x = TD > 0 ? tx + base[i] * TD : NULL;
            o->page = fx[i].page;
            o->x = s->f.fx_codes + i * G;
            o->reward = reward[i];
            o->relevant = pst[i].relevant;
            o->state = pst[i].state;
            o->n_out = nout[i];
            o->out_action = acts + base[i] * GA;
        }
        s->ops->observe(s->pol, s->f.obs, m, tick);
    }
    double t2 = cs_now();
    s->m.t[PH_LEARN] += t2 - t1;

    /* route the link records: other ranks' to the outboxes, this rank's stay where they are
     * (insert_own reads them by index, in the same order, without a copy). The owners first
     * (the owner map's reads are at random places: prefetched 16 records ahead; the owner runs
     * of a host partition are found through their bucket index), then each box
     * grows once and the records are copied in, in the same order as one pass would. */
    if (s->rep) { /* every record goes to every rank (rep_share), none is routed */
        int64_t nl = 0;
        for (int64_t i = 0; i < n; i++)
            nl += nout[i];
        s->m.c[C_LINKS] += nl;
        cs_simcost_charge(CS_COST_ROUTE, (double)nl);
        s->m.t[PH_ROUTE] += cs_now() - t2;
        return CS_OK;
    }
    CS_TRY(ctx, cs_grow(ctx, &s->r.own, &s->r.own_cap, (size_t)(links > n ? links : n) + 1,
                        sizeof *s->r.own, "links"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->r.ridx, &s->r.ridx_cap, (size_t)links + 1, sizeof *s->r.ridx, "links"));
    CS_TRY(ctx, cs_grow(ctx, &s->r.route, &s->r.route_cap, (size_t)links + 1, sizeof *s->r.route,
                        "links"));
    /* the records in page order: page i's at the prefix sum of nout (in s->r.own for now) */
    int64_t nl = 0, *rat = s->r.own, *rix = s->r.ridx;
    for (int64_t i = 0; i < n; i++) {
        rat[i] = nl;
        nl += nout[i];
    }
#pragma omp parallel for if (n >= FETCH_PARALLEL) default(none) shared(rat, rix, base, nout, n)    \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < nout[i]; k++)
            rix[rat[i] + k] = base[i] + k;
    const int P = ctx->size;
    if (P == 1) {
        /* one rank owns every page: the records in page order are its own, as the counting
         * sort below would leave them (the two scratch arrays change places) */
        int64_t *t = s->r.own;
        const size_t tc = s->r.own_cap;
        s->r.own = s->r.ridx;
        s->r.own_cap = s->r.ridx_cap;
        s->r.ridx = t;
        s->r.ridx_cap = tc;
        s->r.n_own = nl;
        s->m.c[C_LINKS] += nl;
        cs_simcost_charge(CS_COST_ROUTE, (double)nl);
        s->m.t[PH_ROUTE] += cs_now() - t2;
        return CS_OK;
    }
    /* a counting sort by owner over fixed blocks of records (route_block: independent of the
     * thread count): the owners and each block's count per rank in parallel, the offsets in
     * (rank, block) order, then each block copies its records to its places in parallel */
    const int64_t RB = route_block(P), nb = (nl + RB - 1) / RB;
    CS_TRY(ctx, cs_grow(ctx, &s->r.rblk, &s->r.rblk_cap, (size_t)(nb + 1) * (size_t)P,
                        sizeof *s->r.rblk, "links"));
    const uint8_t *own8 = cs_graph_owner_map8(g);
    int64_t *rblk = s->r.rblk, *ridx = s->r.ridx;
    int32_t *route = s->r.route;
#pragma omp parallel for if (nb > 1) default(none)                                                 \
    shared(g, own8, msgs, ridx, route, rblk, nb, nl, P, RB) schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t e = (b + 1) * RB < nl ? (b + 1) * RB : nl;
        int64_t *cnt = rblk + b * P;
        for (int r = 0; r < P; r++)
            cnt[r] = 0;
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
    cs_outbox *ob = &s->r.out;
    size_t *need = s->r.route_bytes;
    for (int r = 0; r < P; r++) {
        /* rank r's records: block 0's first; offsets in records from the box's end (own: from
         * 0 in s->r.own) */
        int64_t at = 0;
        for (int64_t b = 0; b < nb; b++) {
            const int64_t k = rblk[b * P + r];
            rblk[b * P + r] = at;
            at += k;
        }
        need[r] = (size_t)at * sizeof(cs_link_msg);
        if (r != me)
            CS_TRY(ctx, cs_outbox_reserve(ctx, ob, r, need[r]));
    }
    int64_t *ownv = s->r.own;
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
    s->r.n_own = (int64_t)(need[me] / sizeof(cs_link_msg));
    for (int r = 0; r < P; r++)
        if (r != me)
            ob->len[r] += need[r];
    s->m.c[C_LINKS] += nl;
    cs_simcost_charge(CS_COST_ROUTE, (double)nl);
    s->m.t[PH_ROUTE] += cs_now() - t2;
fail:
    return rc;
}

/* Local. One record's update of its frontier entry e (first: e was created for it): the anchor
 * evidence, the state part, the parents and the action codes (Sec. 3.1). */
static inline void merge_record(const sim *s, cs_frontier_view *v, int64_t e, int first,
                                const cs_link_msg *m)
{
    const int GS = s->G - s->GA;
    cs_frontier_link *lk = &v->lk[e];
    if (first) {
        lk->anchor_rl = m->anchor_rl;
        lk->anchor_cat = m->anchor_cat;
        memcpy(v->codes + e * v->stride, m->state, (size_t)GS);
    } else {
        if (m->anchor_rl > lk->anchor_rl) {
            lk->anchor_rl = m->anchor_rl;
            lk->anchor_cat = m->anchor_cat;
        }
        /* the state part comes from the parent with the largest w_rl (Sec. 3.1's max) */
        if (m->parent_wrl > lk->par.best_wrl)
            memcpy(v->codes + e * v->stride, m->state, (size_t)GS);
    }
    cs_feat_parents_add(&lk->par, m);
    cs_feat_action(&s->L, lk->anchor_rl, lk->anchor_cat, &lk->par, v->codes + e * v->stride + GS);
}

/* What the first pass of sim_insert_links found for a record (else its entry, | INS_FIRST when
 * the record created it). */
enum { INS_NEW = -1, INS_VISITED = -2, INS_CAPPED = -3 };
#define INS_FIRST CS_FRONTIER_ADDED
/* Entries are shared among the threads of the third pass in blocks of INS_BLOCK: each entry's
 * records are applied by one thread, in record order, so no bit depends on the thread count. */
#define INS_BLOCK 64
/* Fewer records than this are inserted without waking the threads. */
#define INS_PARALLEL 128
/* Records per block of the lookups and of the list of new pages (fixed: the work of a block does
 * not depend on the threads; the list is in record order for any blocks). */
#define INS_LIST_BLOCK 256

/* Local. A selecting policy's new frontier samples (sim_insert_links between its passes 2 and
 * 3: ent holds every record's entry, or why none): the kept records' pages and TRES vectors in
 * parallel (the host counts do not change during insertion), then ops->link in record order.
 * *kidx: per record its place among the kept ones; *kval: per kept record its value. */
static cs_err link_samples(sim *s, const cs_link_msg *const *ptrs, const cs_link_msg *recs,
                           const int64_t *idx, int64_t n, const int64_t **kidx, const float **kval)
{
#define REC(i) (ptrs != NULL ? ptrs[(i)] : idx != NULL ? &recs[idx[(i)]] : &recs[(i)])
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int TD = s->tres_d, HF = s->host_features;
    const int64_t *ent = s->r.ins_ent;
    CS_TRY(ctx, cs_grow(ctx, &s->r.ins_k, &s->r.ins_k_cap, 2 * (size_t)n + 1, sizeof *s->r.ins_k,
                        "links"));
    int64_t *ki = s->r.ins_k, *pg = ki + n, nk = 0;
    for (int64_t i = 0; i < n; i++) {
        ki[i] = nk;
        nk += ent[i] >= 0;
    }
    CS_TRY(ctx, cs_grow(ctx, &s->r.ins_x, &s->r.ins_x_cap, (size_t)nk * (size_t)(TD + 1) + 1,
                        sizeof *s->r.ins_x, "links"));
    float *x = s->r.ins_x, *val = x + nk * TD;
    const sim *cs = s;
    const int32_t *hf = s->h.host_fetched, *hr = s->h.host_rel;
#pragma omp parallel for if (n >= INS_PARALLEL) default(none)                                      \
    shared(cs, ptrs, recs, idx, n, ent, ki, pg, x, hf, hr, TD, HF) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (ent[i] < 0)
            continue;
        const cs_link_msg *m = REC(i);
        const int64_t h = host_of_page(cs, m->dst);
        pg[ki[i]] = m->dst;
        cs_tres_x(HF, m, hf[hslot(cs, h)], hr[hslot(cs, h)], x + ki[i] * TD);
    }
    CS_TRY(ctx, s->ops->link(s->pol, ctx, pg, x, nk, val));
    *kidx = ki;
    *kval = val;
fail:
    return rc;
#undef REC
}

/* Inserts link records into the frontier (the owner's side of the exchange): *ptrs[i] for i in
 * [0, n) when ptrs is not NULL, else recs[idx[i]], or recs[0..n) when idx is NULL too.
 *
 * In three passes: (1) in parallel over the records, whether each is dropped (its page visited,
 * or its host at the MAX cap) or the frontier entry of its page, if any (read-only lookups, the
 * cache misses of the phase); (2) the pages not in the frontier get their entries in record
 * order (cs_frontier_add_new, in parallel: entry indexes are those of one serial pass); (3) in
 * parallel over the entries (by blocks), each entry's records merged in record order and its
 * value computed (value policies: ops->value, a pure function of the entry). Selecting policies
 * (ops->link) get the kept records' samples between (2) and (3), their TRES vectors computed in
 * parallel, in record order (the policy's state changes with every sample); (3) keeps the
 * largest of each entry's samples' values. The result is the serial loop's, bit for bit, for
 * any thread count. */
cs_err sim_insert_links(sim *s, const cs_link_msg *const *ptrs, const cs_link_msg *recs,
                        const int64_t *idx, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
#define REC(i) (ptrs != NULL ? ptrs[(i)] : idx != NULL ? &recs[idx[(i)]] : &recs[(i)])
    const int once = !s->rep || ctx->rank == 0; /* rep: counted once */
    const int nthr = omp_get_max_threads();
    CS_TRY(ctx, cs_grow(ctx, &s->r.ins_ent, &s->r.ins_ent_cap, (size_t)n + 1, sizeof *s->r.ins_ent,
                        "links"));
    /* the third pass's lists: T x T of n / T + 1 records for a team of T <= nthr threads, and
     * their lengths: at most nthr (n + 2 nthr) */
    CS_TRY(ctx, cs_grow(ctx, &s->r.ins_list, &s->r.ins_list_cap,
                        (size_t)nthr * ((size_t)n + 2 * (size_t)nthr) + 1, sizeof *s->r.ins_list,
                        "links"));
    int64_t *ent = s->r.ins_ent, *list = s->r.ins_list;
    const sim *cs = s;
    const int check_cap = s->h.cap_now > 0;
    int64_t dropped = 0;
    /* 1. lookups, by fixed blocks of records, each block counting its records of pages not in
     * the frontier (the list of new pages below is made from these counts: block order, one
     * serial pass's; the counts live in the third pass's lists) */
    const int64_t nbk = (n + INS_LIST_BLOCK - 1) / INS_LIST_BLOCK;
    int64_t nn = 0, *bcnt = list;
#pragma omp parallel for if (n >= INS_PARALLEL) num_threads(nthr) default(none)                     \
    shared(cs, ptrs, recs, idx, n, ent, check_cap, bcnt, nbk) reduction(+ : dropped)              \
    schedule(static)
    for (int64_t b = 0; b < nbk; b++) {
        const int64_t e = (b + 1) * INS_LIST_BLOCK < n ? (b + 1) * INS_LIST_BLOCK : n;
        int64_t k = 0;
        for (int64_t i = b * INS_LIST_BLOCK; i < e; i++) {
            if (i + 16 < n)
                cs_frontier_prefetch(cs->fr, REC(i + 16)->dst, 1);
            if (i + 8 < n)
                cs_frontier_prefetch(cs->fr, REC(i + 8)->dst, 2);
            const cs_link_msg *m = REC(i);
            if (sim_visited_get(cs, m->dst)) {
                dropped++;
                ent[i] = INS_VISITED;
            } else if (check_cap && capped(cs, host_of_page(cs, m->dst), 0)) {
                ent[i] = INS_CAPPED; /* MAX reached: the link can never be fetched in this task */
            } else {
                const int64_t f = cs_frontier_find(cs->fr, m->dst);
                ent[i] = f >= 0 ? f : INS_NEW;
                k += f < 0;
            }
        }
        bcnt[b] = k;
    }
    s->m.c[C_DROPPED] += once ? dropped : 0;
    /* 2. new entries, in record order (a page may come twice: the second finds the first's):
     * their list from the blocks' counts (prefix sums in block order, then each block writes
     * its part) */
    for (int64_t b = 0; b < nbk; b++) {
        const int64_t k = bcnt[b];
        bcnt[b] = nn;
        nn += k;
    }
    if (nn > 0) {
        CS_TRY(ctx, cs_grow(ctx, &s->r.ins_new, &s->r.ins_new_cap, 3 * (size_t)nn + 1,
                            sizeof *s->r.ins_new, "links"));
        int64_t *ni = s->r.ins_new, *nid = ni + nn, *ne = ni + 2 * nn;
#pragma omp parallel for if (nbk > 1 && nn >= INS_PARALLEL) default(none)                          \
    shared(ptrs, recs, idx, ent, bcnt, ni, nid, n, nbk) schedule(static)
        for (int64_t b = 0; b < nbk; b++) {
            const int64_t e = (b + 1) * INS_LIST_BLOCK < n ? (b + 1) * INS_LIST_BLOCK : n;
            int64_t j = bcnt[b];
            for (int64_t i = b * INS_LIST_BLOCK; i < e; i++) {
                if (ent[i] == INS_NEW) {
                    ni[j] = i;
                    nid[j++] = REC(i)->dst;
                }
            }
        }
        CS_TRY(ctx, cs_frontier_add_new(ctx, s->fr, nid, nn, ne));
        for (int64_t j = 0; j < nn; j++)
            ent[ni[j]] = ne[j]; /* (INS_FIRST is cs_frontier_add_new's flag) */
    }
    /* selecting policies: the kept records' samples, in record order (kidx: a record's place
     * among them) */
    const int link = s->ops->link != NULL;
    const int64_t *kidx = NULL;
    const float *kval = NULL;
    if (link)
        CS_TRY(ctx, link_samples(s, ptrs, recs, idx, n, &kidx, &kval));
    /* 3. each entry's records, in record order, by the thread owning the entry's block */
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    int64_t qevals = 0;
#pragma omp parallel if (n >= INS_PARALLEL) num_threads(nthr) default(none)                         \
    shared(cs, ptrs, recs, idx, n, ent, list, v, link, kidx, kval) reduction(+ : qevals)
    {
        /* each thread sorts its share of the records by the thread owning their entry's block
         * (lists (chunk, owner), record order kept), then works through its own lists in chunk
         * order: an entry's records in record order, and no thread reads all the records */
        const int64_t T = omp_get_num_threads(), me = omp_get_thread_num();
        const int64_t cap = n / T + 1, *cnt = list + T * T * cap;
        int64_t *lens = list + T * T * cap + me * T;
        for (int64_t o = 0; o < T; o++)
            lens[o] = 0;
        for (int64_t i = n * me / T; i < n * (me + 1) / T; i++) {
            if (ent[i] < 0)
                continue;
            const int64_t o = ((ent[i] & (INS_FIRST - 1)) / INS_BLOCK) % T;
            list[(me * T + o) * cap + lens[o]++] = i;
        }
#pragma omp barrier
        cs_frontier_view w = v;
        for (int64_t c = 0; c < T; c++) {
            const int64_t *my = list + (c * T + me) * cap, k = cnt[c * T + me];
            for (int64_t j = 0; j < k; j++) {
                /* 16 records and 8 entries ahead: the records were written by whichever
                 * thread fetched their page, an entry's lines by whichever thread last wrote
                 * it; a line in the other CPU's cache costs a round trip between caches, which
                 * on some machines is 4 times a miss to memory. The entry's lines are fetched
                 * for writing (PREFETCHW where the build has it: owned, not shared, so the
                 * stores need no second trip) */
                if (j + 16 < k)
                    __builtin_prefetch(REC(my[j + 16]));
                if (j + 8 < k) {
                    const int64_t e8 = ent[my[j + 8]] & (INS_FIRST - 1);
                    __builtin_prefetch(&w.lk[e8], 1);
                    __builtin_prefetch((const char *)&w.lk[e8 + 1] - 1, 1);
                    __builtin_prefetch(w.codes + e8 * w.stride, 1);
                    __builtin_prefetch(&w.q[e8], 1);
                }
                const int64_t e = ent[my[j]] & (INS_FIRST - 1);
                merge_record(cs, &w, e, (ent[my[j]] & INS_FIRST) != 0, REC(my[j]));
                if (link) {
                    const float q = kval[kidx[my[j]]];
                    if (q > w.q[e])
                        w.q[e] = q;
                } else {
                    cs->ops->value(cs->pol, &w, e, 1);
                    qevals++;
                }
            }
        }
    }
    s->m.c[C_QEVALS] += once ? qevals : 0;
fail:
    return rc;
#undef REC
}

cs_err sim_refresh_fetched(sim *s, int64_t n, int64_t tick)
{
    cs_err rc = CS_OK;
    CS_TRY(s->ctx,
           cs_grow(s->ctx, &s->f.li, &s->f.li_cap, (size_t)n + 1, sizeof *s->f.li, "fetches"));
    for (int64_t i = 0; i < n; i++)
        s->f.li[i] = s->f.fx[i].li;
    rc = cs_simrf_fetched(s->rf, s->f.li, n, tick);
fail:
    return rc;
}
