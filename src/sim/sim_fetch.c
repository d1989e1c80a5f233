/*
 * sim: the fetch phase: a tick's fetched pages, their relevance estimates, states and rewards,
 * and the link records of their out-links not visited yet (the route phase sends them on).
 */
#include "sim/sim_engine.h"

#include <omp.h>

#define FETCH_CHUNK 16     /* pages per chunk of the fetch loop's dynamic schedule */
#define FETCH_PARALLEL 128 /* fewer pages' degrees are read serially */

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

/* What the fetch loop reads: the fetched pages' links and attributes (by at[i]: the graph's,
 * or in the procedural world the tick's generated pages'), and where it writes. */
typedef struct fetch_args {
    const sim *s;
    const int64_t *off, *tg, *at;
    const double *relv;
    const int64_t *hostv;
    const uint64_t *visited;
    const int32_t *slot; /* NULL: visited bits by page id (sim_visited.c) */
    int64_t n;
    int GS, GA, TD, HF;
    cs_feat_page *pst;
    double *reward;
    const int64_t *base;
    int64_t *nout;
    cs_link_msg *msgs;
    uint8_t *acts;
    float *tx;
} fetch_args;

/* Local. The fetches' pages in a materialized world: the graph's rows, by local index. */
cs_err sim_pages_graph(sim *s, int64_t n, sim_pages *p)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_fetch_phase *f = &s->f;
    CS_TRY(ctx, cs_grow(ctx, &f->at, &f->at_cap, (size_t)n + 1, sizeof *f->at, "fetches"));
    for (int64_t i = 0; i < n; i++)
        f->at[i] = f->fx[i].li;
    p->off = cs_graph_offsets(s->w.g);
    p->tg = cs_graph_targets(s->w.g);
    p->relv = cs_graph_relevance(s->w.g);
    p->hostv = cs_graph_host(s->w.g);
    p->at = f->at;
fail:
    return rc;
}

/* Local. The fetches' pages in the procedural world: the tick's pages generated now, page i at
 * row i (the same links and attributes as the materialized graph's, from the same function). */
cs_err sim_pages_generated(sim *s, int64_t n, sim_pages *p)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_fetch_phase *f = &s->f;
    CS_TRY(ctx, cs_grow(ctx, &f->at, &f->at_cap, (size_t)n + 1, sizeof *f->at, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &f->pid, &f->pid_cap, (size_t)n + 1, sizeof *f->pid, "fetches"));
    for (int64_t i = 0; i < n; i++) {
        f->pid[i] = f->fx[i].page;
        f->at[i] = i;
    }
    cs_graph_slice_fini(&f->pages);
    CS_TRY(ctx, cs_gen_pages(ctx, s->w.gen, f->pid, n, &f->pages));
    p->off = f->pages.offsets;
    p->tg = f->pages.targets;
    p->relv = f->pages.relevance;
    p->hostv = f->pages.host;
    p->at = f->at;
fail:
    return rc;
}

/* Local. Where each fetch's page lies in the arrays the fetch reads: the world's answer. */
static cs_err fetch_locate(sim *s, int64_t n, fetch_args *a)
{
    sim_pages p;
    const cs_err rc = s->w.ops->pages(s, n, &p);
    if (rc != CS_OK)
        return rc;
    a->off = p.off;
    a->tg = p.tg;
    a->relv = p.relv;
    a->hostv = p.hostv;
    a->at = p.at;
    s->f.host = p.hostv;
    return CS_OK;
}

/* Local. Room for the tick's fetches and their links: the pages' out-degrees (reads at random
 * places) in parallel, their prefix sums in f->base (*links: the sum). */
static cs_err fetch_reserve(sim *s, const fetch_args *a, int64_t *links)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_fetch_phase *f = &s->f;
    const int64_t n = a->n;
    CS_TRY(ctx, cs_grow(ctx, &f->pst, &f->pst_cap, (size_t)n + 1, sizeof *f->pst, "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &f->reward, &f->reward_cap, (size_t)n + 1, sizeof *f->reward, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &f->base, &f->base_cap, (size_t)n + 1, sizeof *f->base, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &f->nout, &f->nout_cap, (size_t)n + 1, sizeof *f->nout, "fetches"));
    int64_t nl = 0, *deg = f->base;
    const int64_t *off = a->off, *pat = a->at;
#pragma omp parallel for if (n >= FETCH_PARALLEL) default(none) shared(deg, off, pat, n)           \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        deg[i] = off[pat[i] + 1] - off[pat[i]];
    for (int64_t i = 0; i < n; i++) {
        const int64_t d = deg[i];
        deg[i] = nl;
        nl += d;
    }
    CS_TRY(ctx, cs_grow(ctx, &f->msgs, &f->msgs_cap, (size_t)nl + 1, sizeof *f->msgs, "links"));
    CS_TRY(ctx, cs_grow(ctx, &f->acts, &f->acts_cap, (size_t)(nl + 1) * (size_t)a->GA, 1, "links"));
    if (a->TD > 0)
        CS_TRY(ctx, cs_grow(ctx, &f->tx, &f->tx_cap, (size_t)(nl + 1) * (size_t)a->TD,
                            sizeof *f->tx, "links"));
    *links = nl;
fail:
    return rc;
}

/* Software pipeline over the pages (each of these is a cache miss at a random place): the
 * offsets of page i + 4, the targets of page i + 3, the visited bits of page i + 2's targets,
 * the evidence rows of page i + 1 and of its targets not visited yet (and of page i's when a
 * thread's chunk starts here: the chunks of a dynamic schedule start at multiples of the chunk
 * size). */
static inline void fetch_prefetch(const fetch_args *a, int64_t i)
{
    const int64_t *off = a->off, *tg = a->tg, *pat = a->at, n = a->n;
    const cs_evidence *ev = a->s->w.ev;
    const fetch *fx = a->s->f.fx;
    if (i + 4 < n)
        __builtin_prefetch(&off[pat[i + 4]]);
    if (i + 3 < n)
        __builtin_prefetch(&tg[off[pat[i + 3]]]);
    if (i + 2 < n)
        prefetch_visited(a->visited, a->slot, tg, off[pat[i + 2]], off[pat[i + 2] + 1]);
    if (i % FETCH_CHUNK == 0)
        prefetch_targets(ev, a->visited, a->slot, tg, off[pat[i]], off[pat[i] + 1]);
    if (i + 1 < n) {
        __builtin_prefetch(&a->relv[pat[i + 1]]);
        cs_evidence_prefetch(ev, a->slot != NULL ? fx[i + 1].li : fx[i + 1].page);
        prefetch_targets(ev, a->visited, a->slot, tg, off[pat[i + 1]], off[pat[i + 1] + 1]);
    }
}

/* The next candidates' TRES features of record m (host features as this rank knows them: a
 * host of another rank's pages is unknown here) into x. */
static inline void fetch_tres_x(const fetch_args *a, cs_link_msg *m, int64_t row, float *x)
{
    const sim *s = a->s;
    const int64_t d = m->dst;
    m->url_rl = (uint16_t)(cs_tres_url_rl(s->w.ev, d, row) * 65535.0f + 0.5f);
    int64_t hf = 0, hr = 0;
    if (s->mode->knows_host(s, d)) {
        const int64_t h = host_of_page(s, d);
        hf = s->h.host_fetched[hslot(s, h)];
        hr = s->h.host_rel[hslot(s, h)];
    }
    cs_tres_x(a->HF, m, hf, hr, x);
}

/* The link records of fetch i (page p, each record from tmpl) at msgs[base[i]..]: batches of
 * the out-links not known visited, then their anchors at once. Returns the records written;
 * *skipped counts the out-links to visited pages. */
static int64_t fetch_links(const fetch_args *a, int64_t i, const cs_link_msg *tmpl,
                           const uint8_t *pidx, int64_t *skipped)
{
    const cs_feat_layout *L = &a->s->L;
    const cs_evidence *ev = a->s->w.ev;
    const int64_t p = tmpl->src, ai = a->at[i], *tg = a->tg, bi = a->base[i];
    const int64_t j1 = a->off[ai + 1];
    const int32_t *slot = a->slot;
    const uint64_t *visited = a->visited;
    int64_t k = 0, sk = 0;
    for (int64_t j = a->off[ai]; j < j1;) {
        int64_t dst[CS_EVIDENCE_BATCH], row[CS_EVIDENCE_BATCH];
        int nb = 0;
        for (; j < j1 && nb < CS_EVIDENCE_BATCH; j++) {
            /* without branches (visited or not is a coin flip to a branch predictor): one
             * bit, of any rank's pages (sim_visited.c), which is also the row of its
             * evidence; p itself is neither kept nor counted */
            const int64_t d = tg[j], r = slot != NULL ? (int64_t)slot[j] : d;
            const int vis = (int)BIT_GET(visited, r), self = d == p;
            dst[nb] = d;
            row[nb] = r;
            nb += !vis & !self;
            sk += vis & !self;
        }
        float arl[CS_EVIDENCE_BATCH], acats[CS_EVIDENCE_BATCH * CS_FEAT_MAX_CATEGORIES];
        cs_evidence_anchors(ev, p, dst, row, nb, arl, acats);
        for (int b = 0; b < nb; b++) {
            cs_link_msg *m = &a->msgs[bi + k];
            *m = *tmpl;
            m->dst = dst[b];
            m->anchor_rl = arl[b];
            m->anchor_cat = cs_feat_pack_anchor_cats(L, acats + b * L->categories);
            cs_feat_action_with(L, m->anchor_rl, m->anchor_cat, pidx, a->acts + (bi + k) * a->GA);
            if (a->TD > 0)
                fetch_tres_x(a, m, row[b], a->tx + (bi + k) * a->TD);
            k++;
        }
    }
    *skipped += sk;
    return k;
}

/* Fetch i: its page's relevance estimate, state and reward, then its link records. */
static void fetch_one(const fetch_args *a, int64_t i, int64_t *skipped)
{
    const sim *s = a->s;
    const fetch *fx = &s->f.fx[i];
    const int64_t p = fx->page, ai = a->at[i];
    float cats[CS_FEAT_MAX_CATEGORIES];
    const float rl = cs_evidence_page(s->w.ev, a->slot != NULL ? fx->li : p, cats);
    const int relevant = a->relv[ai] >= s->w.threshold;
    cs_feat_page *ps = &a->pst[i];
    cs_feat_page_state(&s->L, rl, cats, relevant, &fx->par, ps);
    a->reward[i] = s->ops->reward(s->cfg, relevant, (double)rl); /* the policy's */
    fetch_prefetch(a, i);
    /* what every out-link record of this page shares, and the parent part of the action as
     * seen from this page alone (one parent) */
    cs_link_msg tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.src = p;
    tmpl.parent_rl = rl;
    tmpl.parent_wrl = ps->wrl;
    tmpl.parent_dist = ps->dist;
    tmpl.parent_relevant = ps->relevant;
    memcpy(tmpl.state, ps->state, (size_t)a->GS);
    tmpl.parent_path_len = fx->par.path_len;
    tmpl.parent_path_rel = fx->par.path_rel;
    cs_tres_path_step(&tmpl.parent_path_len, &tmpl.parent_path_rel, relevant);
    cs_feat_parents one = {0};
    cs_feat_parents_add(&one, &tmpl);
    uint8_t pidx[4];
    cs_feat_parent_idx(&one, pidx);
    a->nout[i] = fetch_links(a, i, &tmpl, pidx, skipped);
}

/*
 * Local. Fetches s->f.fx[0..n) (visited already marked): estimates, state, reward and link
 * records, in parallel over the pages (each page's records at its own offset, so the result
 * does not depend on the thread count).
 */
cs_err sim_fetch_pages(sim *s, int64_t n)
{
    cs_err rc = CS_OK;
    const double t0 = cs_now();
    fetch_args a;
    memset(&a, 0, sizeof a);
    a.s = s;
    a.n = n;
    a.GS = s->G - s->GA;
    a.GA = s->GA;
    a.TD = s->tres_d;
    a.HF = s->host_features;
    a.visited = s->vis.bits;
    a.slot = s->vis.slot;
    int64_t links = 0;
    CS_TRY(s->ctx, fetch_locate(s, n, &a));
    CS_TRY(s->ctx, fetch_reserve(s, &a, &links));
    a.pst = s->f.pst;
    a.reward = s->f.reward;
    a.base = s->f.base;
    a.nout = s->f.nout;
    a.msgs = s->f.msgs;
    a.acts = s->f.acts;
    a.tx = s->f.tx;
    int64_t skipped = 0; /* out-links to visited pages */
    const fetch_args *pa = &a;
#pragma omp parallel for default(none) shared(pa, n) schedule(dynamic, FETCH_CHUNK)              \
    reduction(+ : skipped)
    for (int64_t i = 0; i < n; i++)
        fetch_one(pa, i, &skipped);
    s->m.c[C_DROPPED] += skipped;
    cs_simcost_charge(CS_COST_FETCH, (double)n); /* the fetch with its learning step */
    s->m.t[PH_FETCH] += cs_now() - t0;
fail:
    return rc;
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

void sim_fetch_fini(sim_fetch_phase *p)
{
    free(p->fx);
    free(p->fx_codes);
    free(p->pst);
    free(p->reward);
    free(p->base);
    free(p->nout);
    free(p->msgs);
    free(p->acts);
    free(p->tx);
    free(p->perm);
    free(p->fx_tmp);
    free(p->codes_tmp);
    cs_graph_slice_fini(&p->pages);
    free(p->pid);
    free(p->at);
    free(p->li);
}
