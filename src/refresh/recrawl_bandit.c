/*
 * recrawl_bandit: the restless-bandit policies (bandit.h) as slot re-crawl policies of
 * `crawlsim run` (docs/guide/bandit.md).
 *
 * Arms are groups of cached pages (cfg.group: by host or by change-rate class, chosen by the
 * caller). Time is slotted: a slot ends at each step (one tick of crawlsim run) and has a budget
 * of n crawls, n = the integer part of R * slot plus the carried fraction (so the realised rate
 * is R). Each slot:
 *
 *   1. the policy (a registered bandit policy, bandit.h: refresh.policy = bandit-<name>; its
 *      implementation is the one `crawlsim bandit` runs) allocates the n crawls to groups, from
 *      state that every rank holds identically (replicated: the same decisions on every rank,
 *      and for any rank count):
 *        bandit-uniform     n groups uniformly at random (with repetition)
 *        bandit-static-opt  n groups drawn from q_k = sum of the group's page-level optima of
 *                           Eq. 8 (cs_static_opt_solve over the cached pages of all ranks, at each
 *                           sync, with the slot budget R * slot and per-slot change probability
 *                           1 - exp(-delta * slot)), normalised
 *        bandit-thompson    n picks, each the argmax of Beta(a_k, b_k) posterior draws (Beta(1, 1)
 *                           priors; success = a crawl that found a change)
 *        bandit-whittle     the groups of largest Whittle index (Eqs. 4-5 at the group's age in
 *                           slots, cs_whittle_index_age) with arrival rate lambda_k = slot *
 *                           sum_i mu_i delta_i over its cached pages (importance-weighted changes
 *                           per slot), decay c = whittle_decay * slot, M = infinity, C = 1; each
 *                           group once, the remainder of n dealt again in index order
 *        bandit-whittle-learn  the learning scheme of the Whittle paper (Sec. IV-V, cs_lspe_step)
 *                           on the same arms (u_k as bandit-whittle, created at the first sync
 *                           with cached pages, u updated at later syncs): the slot's n crawls are
 *                           dealt over the groups it draws active, by decreasing activity
 *                           probability; a slot with no active group crawls nothing
 *        bandit-fgdqn       n epsilon-greedy picks on the Q of FG-DQN (state (X_k / x_scale,
 *                           Y_k): slots since group k was chosen, whether its last crawl found a
 *                           change); one transition per pick with the group's reward (sum of mu
 *                           over its crawls that found a change, shared among its picks), one
 *                           full-gradient step per slot
 *      Only groups that held cached pages at the last sync are eligible (pages that join between
 *      syncs are scheduled from the next sync, as for the other policies).
 *   2. group k's c_k crawls go to its c_k least recently crawled cached pages over all ranks
 *      (ties: lower page id) -- round-robin inside the group, as in the DRL paper. Each rank
 *      keeps its group members in a FIFO by (last crawl, id), with lazy deletion; the candidates
 *      are allgathered and every rank takes the same winners.
 *   3. the outcomes (crawls, changes found, importance of the changed pages) are summed over
 *      ranks per chosen group, exactly (integer counts and a fixed-point sum, cs_xsum, so the
 *      same for any rank count), and update the replicated state.
 *
 * thompson and fgdqn keep per-group state of every group on every rank and need K <= 4096.
 * This file owns the groups' members and the slot's mechanics (steps 2 and 3, the sync's inputs
 * over the cached pages); the policies' state and decisions are in src/bandit (cs_bandit).
 */
#include "crawlsim/bandit.h"
#include "crawlsim/rng.h"
#include "refresh/recrawl_impl.h"
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A group member: last crawl time, global id, slot. */
typedef struct qent {
    double t;
    uint32_t id, li;
} qent;

/* A candidate sent to every rank: group, id, last crawl. */
typedef struct cand {
    int32_t k;
    uint32_t id;
    double t;
} cand;

typedef struct ring {
    qent *e;
    int64_t head, n, cap;
} ring;

typedef struct pend {
    int64_t k;
    qent q;
} pend;

typedef struct bandit {
    const cs_bandit_ops *ops;
    cs_bandit *pol; /* the policy's replicated state and decisions */
    int64_t K;
    double slot;
    ring *q;
    pend *pd;
    size_t npd, pd_cap;
    int64_t *members; /* local cached pages per group */
    int32_t *grp;     /* the group of each slot */
    int64_t grp_cap;
    /* replicated */
    int64_t *cnt; /* cached pages per group over all ranks, at the last sync */
    double carry;
    /* per-slot scratch */
    int64_t *elig, *took, *cpos; /* eligible groups; per group: taken, position in chosen */
    double *w;                   /* the sync's inputs per group */
    /* the slot's outcomes per chosen group c: osum[w c ..] = (crawls, changes found, limbs of
     * omu[c], the importance of the pages found changed), w = 2 + CS_XSUM_LIMBS, this rank's
     * then (from w nchosen on) their sum over ranks */
    cs_xsum *omu;
    int64_t *osum;
    size_t omu_cap, osum_cap;
    cand *mine, *all;
    qent *mine_q;
    pend *back;
    size_t mine_cap, mine_q_cap, back_cap, all_cap;
    int *rc_cnt, *rc_dsp;
} bandit;

/* ---- rings ----------------------------------------------------------------------------------- */

static int ring_reserve(ring *g, int64_t need)
{
    if (need <= g->cap)
        return 1;
    int64_t cap = g->cap ? 2 * g->cap : 8;
    while (cap < need)
        cap *= 2;
    qent *e = malloc((size_t)cap * sizeof *e);
    if (e == NULL)
        return 0;
    for (int64_t i = 0; i < g->n; i++)
        e[i] = g->e[(g->head + i) % g->cap];
    free(g->e);
    g->e = e;
    g->head = 0;
    g->cap = cap;
    return 1;
}

static int ring_push_back(ring *g, const qent *x)
{
    if (!ring_reserve(g, g->n + 1))
        return 0;
    g->e[(g->head + g->n) % g->cap] = *x;
    g->n++;
    return 1;
}

static int ring_push_front(ring *g, const qent *x)
{
    if (!ring_reserve(g, g->n + 1))
        return 0;
    g->head = (g->head + g->cap - 1) % g->cap;
    g->e[g->head] = *x;
    g->n++;
    return 1;
}

static qent ring_pop_front(ring *g)
{
    qent x = g->e[g->head];
    g->head = (g->head + 1) % g->cap;
    g->n--;
    return x;
}

/* ---- create, destroy, hooks ------------------------------------------------------------------ */

static void bandit_destroy(void *st)
{
    bandit *b = st;
    if (b == NULL)
        return;
    for (int64_t k = 0; b->q != NULL && k < b->K; k++)
        free(b->q[k].e);
    free(b->q);
    free(b->pd);
    free(b->members);
    free(b->grp);
    free(b->cnt);
    cs_bandit_destroy(&b->pol);
    free(b->elig);
    free(b->took);
    free(b->cpos);
    free(b->w);
    free(b->omu);
    free(b->osum);
    free(b->mine);
    free(b->all);
    free(b->mine_q);
    free(b->back);
    free(b->rc_cnt);
    free(b);
}

static cs_err bandit_create(cs_ctx *ctx, cs_recrawl *r, void **st)
{
    cs_err rc = CS_OK;
    bandit *b = NULL;
    const cs_bandit_ops *ops = cs_bandit_find_recrawl(r->cfg.policy);
    const int64_t K = r->cfg.n_groups;
    if (ops == NULL || (r->cfg.group == NULL && r->cfg.group_of == NULL) || K < 1 ||
        K > INT32_MAX || !(r->cfg.slot > 0.0))
        return cs_fail(ctx, CS_ERR_ARG, "%s: needs groups of pages and a slot length",
                       r->cfg.policy);
    if (ops->max_groups > 0 && K > ops->max_groups)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "refresh.policy = %s %s and supports at most %lld groups; "
                       "refresh.group_by gives %lld (use group_by = rate-class)",
                       r->cfg.policy, ops->max_why, (long long)ops->max_groups, (long long)K);
    if (ops->input == CS_BANDIT_IN_INDEX && !(r->cfg.whittle_decay > 0.0))
        return cs_fail(ctx, CS_ERR_CONFIG, "refresh.whittle_decay must be > 0");
    for (int64_t i = 0; r->cfg.group != NULL && i < r->npages; i++)
        if (r->cfg.group[i] < 0 || r->cfg.group[i] >= K)
            return cs_fail(ctx, CS_ERR_ARG, "%s: page %lld in group %d of %lld", r->cfg.policy,
                           (long long)i, (int)r->cfg.group[i], (long long)K);
    CS_TRY(ctx, cs_calloc(ctx, &b, 1, sizeof *b, "bandit policy"));
    b->ops = ops;
    b->K = K;
    b->slot = r->cfg.slot;
    const size_t Kz = (size_t)K;
    CS_TRY(ctx, cs_calloc(ctx, &b->q, Kz, sizeof *b->q, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->members, Kz, sizeof *b->members, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->cnt, Kz, sizeof *b->cnt, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->elig, Kz, sizeof *b->elig, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->took, Kz, sizeof *b->took, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->cpos, Kz, sizeof *b->cpos, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->w, Kz, sizeof *b->w, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->rc_cnt, 2 * (size_t)ctx->size, sizeof *b->rc_cnt, "bandit"));
    b->rc_dsp = b->rc_cnt + ctx->size;
    cs_bandit_setup bs;
    memset(&bs, 0, sizeof bs);
    bs.K = K;
    bs.seed = r->cfg.seed;
    bs.run = 0;
    bs.fgdqn = r->cfg.fgdqn;
    bs.lspe = r->cfg.lspe;
    CS_TRY(ctx, cs_bandit_create(ctx, ops, &bs, &b->pol));
    *st = b;
    return CS_OK;
fail:
    bandit_destroy(b);
    return rc;
}

/* Slots [n0, n1) joined: their groups (cfg.group of their local pages, or cfg.group_of). */
static cs_err bandit_grow(cs_recrawl *r, void *st, int64_t n0, int64_t n1)
{
    bandit *b = st;
    void *const pp[] = {&b->grp};
    const size_t sz[] = {sizeof *b->grp};
    if (cs_slots_reserve(pp, sz, 1, &b->grp_cap, n1) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory for the groups");
    for (int64_t i = n0; i < n1; i++) {
        const int64_t li = r->pg.local[i];
        const int32_t k =
            r->cfg.group != NULL ? r->cfg.group[li] : r->cfg.group_of(r->cfg.group_arg, li);
        if (k < 0 || k >= b->K)
            return cs_fail(r->ctx, CS_ERR_ARG, "%s: page %lld in group %d of %lld", r->cfg.policy,
                           (long long)li, (int)k, (long long)b->K);
        b->grp[i] = k;
    }
    return CS_OK;
}

/* A member (re)enters its group's FIFO at the next slot (sorted there by (time, id)). */
static void enqueue(cs_recrawl *r, bandit *b, int64_t i, double t)
{
    if (b->npd == b->pd_cap &&
        cs_grow(r->ctx, &b->pd, &b->pd_cap, b->npd + 1, sizeof *b->pd, "bandit members") != CS_OK) {
        r->err = CS_ERR_NOMEM;
        return;
    }
    pend *p = &b->pd[b->npd++];
    p->k = b->grp[i];
    p->q.t = t;
    p->q.id = (uint32_t)r->pg.id[i];
    p->q.li = (uint32_t)i;
}

static void bandit_on_join(cs_recrawl *r, void *st, int64_t i, double t)
{
    bandit *b = st;
    b->members[b->grp[i]]++;
    enqueue(r, b, i, t);
}

static void bandit_on_crawl(cs_recrawl *r, void *st, int64_t i, double t, double t_prev,
                            uint32_t changes)
{
    (void)changes;
    if (t != t_prev) /* a second crawl in the same slot keeps its entry */
        enqueue(r, st, i, t);
}

static double never(cs_recrawl *r, void *st, int64_t i, double t)
{
    (void)r;
    (void)st;
    (void)i;
    (void)t;
    return CS_INF;
}

/* ---- sync ------------------------------------------------------------------------------------ */

/* bandit-whittle, -whittle-learn: u_k of each group, with arrival rate lambda_k = slot * the
 * sum of mu delta over the group's cached pages (exact sums), decay c = whittle_decay * slot,
 * M = infinity; *alpha = exp(-c). */
static cs_err index_inputs(cs_ctx *ctx, cs_recrawl *r, bandit *b, double *alpha)
{
    cs_xsum *xs = NULL, *tot = NULL;
    cs_err rc = cs_calloc(ctx, &xs, (size_t)b->K, sizeof *xs, "whittle rates");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &tot, (size_t)b->K, sizeof *tot, "whittle rates");
    for (int64_t i = 0; rc == CS_OK && i < r->n; i++) /* exact sums: any order */
        cs_xsum_add(&xs[b->grp[i]], r->pg.mu[i] * r->pg.delta[i]);
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK) {
        cs_xsum_allreduce(ctx, xs, tot, (int)b->K);
        const double c = r->cfg.whittle_decay * b->slot;
        *alpha = exp(-c);
        for (int64_t k = 0; k < b->K; k++)
            b->w[k] = cs_whittle_u(cs_xsum_value(&tot[k]) * b->slot, c, (double)INFINITY);
    }
    free(xs);
    free(tot);
    return rc;
}

/* bandit-static-opt: w_k = the sum of the group's page-level optima of Eq. 8
 * (cs_static_opt_solve over the cached pages of all ranks, with the slot budget R * slot and
 * per-slot change probability 1 - exp(-delta * slot)); exact sums, so the same weights for any
 * rank count. */
static cs_err static_opt_inputs(cs_ctx *ctx, cs_recrawl *r, bandit *b)
{
    int64_t m = 0, total = 0;
    for (int64_t k = 0; k < b->K; k++)
        total += b->cnt[k];
    memset(b->w, 0, (size_t)b->K * sizeof *b->w);
    if (total == 0)
        return CS_OK;
    double *mu = NULL, *D = NULL, *p = NULL;
    cs_xsum *loc = NULL, *sum = NULL;
    const size_t nz = r->n > 0 ? (size_t)r->n : 1;
    cs_err rc = cs_alloc(ctx, &mu, 3 * nz, sizeof *mu, "static-opt");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &loc, (size_t)b->K, sizeof *loc, "static-opt");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &sum, (size_t)b->K, sizeof *sum, "static-opt");
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK) {
        D = mu + nz;
        p = D + nz;
        const int64_t nc = recrawl_cached(r); /* in page order: the solve's sums */
        for (int64_t j = 0; j < nc; j++) {
            const int64_t i = r->cidx[j];
            mu[m] = r->pg.mu[i];
            D[m] = cs_static_opt_change_prob(r->pg.delta[i], b->slot);
            if (!(D[m] > 0.0))
                D[m] = 1e-300; /* a page that (numerically) never changes */
            m++;
        }
        double R = r->cfg.bandwidth * b->slot;
        if (R > (double)total)
            R = (double)total;
        rc = cs_static_opt_solve(ctx, m, mu, D, R, p, NULL);
    }
    if (rc == CS_OK) {
        for (int64_t j = 0; j < m; j++)
            cs_xsum_add(&loc[b->grp[r->cidx[j]]], p[j]);
        cs_xsum_allreduce(ctx, loc, sum, (int)b->K);
        for (int64_t k = 0; k < b->K; k++)
            b->w[k] = cs_xsum_value(&sum[k]);
    }
    free(mu);
    free(loc);
    free(sum);
    return rc;
}

/* The groups' cached pages over all ranks, and the policy's inputs (its ops->input). */
static cs_err bandit_sync(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    (void)t;
    bandit *b = st;
    cs_err rc = CS_OK;
    double alpha = 0.0;
    cs_allreduce(ctx, b->members, b->cnt, (int)b->K, CS_T_I64, CS_OP_SUM);
    if (b->ops->input == CS_BANDIT_IN_NONE)
        return CS_OK;
    if (b->ops->input == CS_BANDIT_IN_INDEX)
        CS_TRY(ctx, index_inputs(ctx, r, b, &alpha));
    else
        CS_TRY(ctx, static_opt_inputs(ctx, r, b));
    CS_TRY_AGREE(ctx, cs_bandit_sync(ctx, b->pol, b->w, alpha, 0.0));
fail:
    return rc;
}

/* ---- the slot -------------------------------------------------------------------------------- */

static int cand_cmp(const void *x, const void *y)
{
    const cand *a = x, *c = y;
    if (a->k != c->k)
        return a->k < c->k ? -1 : 1;
    if (a->t != c->t)
        return a->t < c->t ? -1 : 1;
    return a->id < c->id ? -1 : a->id > c->id;
}

static int pend_cmp(const void *x, const void *y)
{
    const pend *a = x, *c = y;
    if (a->k != c->k)
        return a->k < c->k ? -1 : 1;
    if (a->q.t != c->q.t)
        return a->q.t < c->q.t ? -1 : 1;
    return a->q.id < c->q.id ? -1 : a->q.id > c->q.id;
}

static int qent_id_cmp(const void *x, const void *y)
{
    const qent *a = x, *c = y;
    return a->id < c->id ? -1 : a->id > c->id;
}

/* Step 1 of a slot: the members that (re)joined since the last slot enter their groups'
 * FIFOs, in (group, time, id) order. Local: the caller agrees on the code. */
static cs_err join_pending(cs_ctx *ctx, bandit *b)
{
    cs_err rc = CS_OK;
    qsort(b->pd, b->npd, sizeof *b->pd, pend_cmp);
    for (size_t j = 0; j < b->npd && rc == CS_OK; j++)
        if (!ring_push_back(&b->q[b->pd[j].k], &b->pd[j].q))
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the bandit groups");
    b->npd = 0;
    return rc;
}

/* Step 2: the slot's budget (the bandwidth's whole crawls, the fraction carried over) and the
 * policy's replicated choice among the groups with members. Collective. */
static cs_err choose_groups(cs_ctx *ctx, cs_recrawl *r, bandit *b)
{
    b->carry += r->cfg.bandwidth * b->slot;
    int64_t n = (int64_t)floor(b->carry);
    b->carry -= (double)n;
    int64_t E = 0;
    for (int64_t k = 0; k < b->K; k++)
        if (b->cnt[k] > 0)
            b->elig[E++] = k;
    cs_rng rng;
    cs_rng_init(&rng, r->cfg.seed, CS_RNG_BANDIT, CS_BANDIT_ID_RECRAWL + b->ops->stream,
                (uint64_t)cs_bandit_slots(b->pol));
    return cs_agree(ctx, cs_bandit_choose(ctx, b->pol, &rng, b->elig, E, n));
}

/* Step 3: this rank's candidates, per chosen group its alloc oldest live members (b->mine, their
 * queue entries in b->mine_q; *m of them). Collective (the growth is agreed). */
static cs_err take_candidates(cs_ctx *ctx, cs_recrawl *r, bandit *b, const int64_t *alloc,
                              const int64_t *chosen, int64_t nchosen, int64_t *m)
{
    int64_t nm = 0;
    for (int64_t c = 0; c < nchosen; c++)
        nm += alloc[chosen[c]];
    cs_err rc = cs_grow(ctx, &b->mine, &b->mine_cap, (size_t)nm + 1, sizeof *b->mine, "bandit");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->mine_q, &b->mine_q_cap, (size_t)nm + 1, sizeof *b->mine_q, "bandit");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->back, &b->back_cap, (size_t)nm + 1, sizeof *b->back, "bandit");
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    *m = 0;
    for (int64_t c = 0; c < nchosen; c++) {
        const int64_t k = chosen[c];
        ring *g = &b->q[k];
        int64_t got = 0;
        while (got < alloc[k] && g->n > 0) {
            qent e = ring_pop_front(g);
            if (!(r->t_last[e.li] == e.t)) /* a stale entry: the page was crawled since */
                continue;
            b->mine[*m].k = (int32_t)k;
            b->mine[*m].id = e.id;
            b->mine[*m].t = e.t;
            b->mine_q[(*m)++] = e;
            got++;
        }
    }
    return CS_OK;
}

/* The candidates not taken (taken[j] == 0 for b->mine_q[j], m of them) go back to the fronts of
 * their FIFOs: pushed in decreasing (group, time, id) order, each front stays sorted. Local. */
static cs_err put_back(cs_ctx *ctx, bandit *b, const int64_t *taken, int64_t m)
{
    cs_err rc = CS_OK;
    int64_t nb = 0;
    for (int64_t j = 0; j < m; j++)
        if (!taken[j]) {
            b->back[nb].k = b->grp[b->mine_q[j].li];
            b->back[nb++].q = b->mine_q[j];
        }
    qsort(b->back, (size_t)nb, sizeof *b->back, pend_cmp);
    for (int64_t j = nb - 1; j >= 0 && rc == CS_OK; j--)
        if (!ring_push_front(&b->q[b->back[j].k], &b->back[j].q))
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the bandit groups");
    return rc;
}

/* Step 4: from every rank's candidates sorted (b->all, na), each chosen group's first alloc win
 * everywhere; this rank crawls its winners (of its m candidates) at time t, counts their
 * outcomes per chosen group (b->osum, b->omu) and puts the others back. Collective. */
static cs_err crawl_winners(cs_ctx *ctx, cs_recrawl *r, bandit *b, double t, const int64_t *alloc,
                            const int64_t *chosen, int64_t nchosen, int64_t m, int64_t na)
{
    int64_t *taken = NULL;
    const size_t nc = (size_t)nchosen, w = 2 + CS_XSUM_LIMBS;
    qsort(b->mine_q, (size_t)m, sizeof *b->mine_q, qent_id_cmp);
    cs_err rc = cs_calloc(ctx, &taken, (size_t)m + 1, sizeof *taken, "bandit");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->omu, &b->omu_cap, nc + 1, sizeof *b->omu, "bandit outcomes");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->osum, &b->osum_cap, 2 * w * nc + 1, sizeof *b->osum,
                     "bandit outcomes");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t c = 0; c < nchosen; c++) {
        const int64_t k = chosen[c];
        b->took[k] = 0;
        b->cpos[k] = c;
        b->osum[w * (size_t)c] = b->osum[w * (size_t)c + 1] = 0;
        cs_xsum_zero(&b->omu[c]);
    }
    for (int64_t a = 0; a < na && rc == CS_OK; a++) {
        const int64_t k = b->all[a].k;
        if (b->took[k] >= alloc[k])
            continue;
        b->took[k]++;
        qent key = {0.0, b->all[a].id, 0};
        qent *hit = bsearch(&key, b->mine_q, (size_t)m, sizeof *b->mine_q, qent_id_cmp);
        if (hit == NULL)
            continue;
        taken[hit - b->mine_q] = 1;
        uint32_t ch = 0;
        rc = recrawl_crawl_now(r, hit->li, t, &ch);
        const int64_t c = b->cpos[k];
        b->osum[w * (size_t)c]++;
        b->osum[w * (size_t)c + 1] += ch > 0;
        if (ch > 0)
            cs_xsum_add(&b->omu[c], r->pg.mu[hit->li]);
    }
    if (rc == CS_OK)
        rc = put_back(ctx, b, taken, m);
    CS_TRY_AGREE(ctx, rc);
fail:
    free(taken);
    return rc;
}

/* Step 5: the outcomes over all ranks, per chosen group: integer counts and exact sums of mu (a
 * floating-point sum over ranks would depend on the rank count, and FG-DQN learns from it),
 * packed into one allreduce, given to the policy. Collective. */
static void report_outcomes(cs_ctx *ctx, bandit *b, const int64_t *chosen, int64_t nchosen)
{
    const size_t nc = (size_t)nchosen, w = 2 + CS_XSUM_LIMBS;
    int64_t *ob = b->osum, *og = b->osum + w * nc;
    for (size_t c = 0; c < nc; c++) {
        cs_xsum_norm(&b->omu[c]); /* limbs below 2^32: no sum over ranks overflows */
        memcpy(ob + w * c + 2, b->omu[c].limb, sizeof b->omu[c].limb);
    }
    cs_allreduce(ctx, ob, og, (int)(w * nc), CS_T_I64, CS_OP_SUM);
    for (size_t c = 0; c < nc; c++) {
        const int64_t crawled = og[w * c], changed = og[w * c + 1];
        cs_xsum s;
        cs_xsum_zero(&s);
        memcpy(s.limb, og + w * c + 2, sizeof s.limb);
        cs_bandit_outcome(b->pol, chosen[c], crawled, changed, cs_xsum_value(&s));
    }
}

static cs_err bandit_slot(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    bandit *b = st;
    cs_err rc;
    int64_t nchosen = 0, m = 0, na = 0;
    CS_TRY_AGREE(ctx, join_pending(ctx, b));
    CS_TRY(ctx, choose_groups(ctx, r, b));
    const int64_t *alloc = cs_bandit_alloc(b->pol);
    const int64_t *chosen = cs_bandit_chosen(b->pol, &nchosen);
    CS_TRY(ctx, take_candidates(ctx, r, b, alloc, chosen, nchosen, &m));
    /* every rank's candidates; the same winners everywhere */
    CS_TRY(ctx, cs_comm_allgather(ctx, b->mine, m, sizeof *b->mine, &b->all, &b->all_cap, b->rc_cnt,
                                  b->rc_dsp, &na));
    qsort(b->all, (size_t)na, sizeof *b->all, cand_cmp);
    CS_TRY(ctx, crawl_winners(ctx, r, b, t, alloc, chosen, nchosen, m, na));
    report_outcomes(ctx, b, chosen, nchosen);
    cs_bandit_end_slot(b->pol);
fail:
    return rc;
}

/* ---- checkpoints ----------------------------------------------------------------------------- */

/* The FIFOs (entries from each head, in order), the pending entries, the members per group, the
 * cached pages per group and the policy's replicated state (cs_bandit_save). */
static cs_err bandit_save(cs_ctx *ctx, const cs_recrawl *r, const void *st, cs_ckpt *ck)
{
    (void)r;
    const bandit *b = st;
    cs_err rc = CS_OK;
    int64_t *len = NULL, tot = 0;
    qent *flat = NULL;
    for (int64_t k = 0; k < b->K; k++)
        tot += b->q[k].n;
    rc = cs_alloc(ctx, &len, (size_t)b->K, sizeof *len, "bandit checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &flat, (size_t)tot + 1, sizeof *flat, "bandit checkpoint");
    CS_TRY_AGREE(ctx, rc);
    tot = 0;
    for (int64_t k = 0; k < b->K; k++) {
        const ring *g = &b->q[k];
        len[k] = g->n;
        for (int64_t i = 0; i < g->n; i++)
            flat[tot++] = g->e[(g->head + i) % g->cap];
    }
    const int64_t si[2] = {b->K, (int64_t)b->npd};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/state", CS_CK_I64, 2, si));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/carry", CS_CK_F64, 1, &b->carry));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/fifo_len", CS_CK_I64, b->K, len));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/fifo", CS_CK_BYTES,
                            tot * (int64_t)sizeof *flat, flat));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/pending", CS_CK_BYTES,
                            (int64_t)(b->npd * sizeof *b->pd), b->pd));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/members", CS_CK_I64, b->K, b->members));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/cnt", CS_CK_I64, b->K, b->cnt));
    CS_TRY(ctx, cs_bandit_save(ctx, b->pol, ck, "refresh/recrawl/bandit/policy"));
fail:
    free(len);
    free(flat);
    return rc;
}

static cs_err bandit_load(cs_ctx *ctx, cs_recrawl *r, void *st, cs_ckpt *ck)
{
    (void)r;
    bandit *b = st;
    cs_err rc = CS_OK;
    int64_t *len = NULL, n = 0, np = 0;
    qent *flat = NULL;
    pend *pd = NULL;
    int64_t si[2];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/state", CS_CK_I64, 2, si));
    if (si[0] != b->K)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: bandit policy over %lld groups, not %lld",
                     cs_ckpt_path(ck), (long long)si[0], (long long)b->K);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/carry", CS_CK_F64, 1, &b->carry));
    CS_TRY_AGREE(ctx, cs_alloc(ctx, &len, (size_t)b->K, sizeof *len, "bandit checkpoint"));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/fifo_len", CS_CK_I64, b->K, len));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/bandit/fifo", CS_CK_BYTES, &n, &flat));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/bandit/pending", CS_CK_BYTES, &np, &pd));
    int64_t tot = 0;
    for (int64_t k = 0; k < b->K; k++)
        tot += len[k] >= 0 ? len[k] : INT32_MAX;
    if (tot * (int64_t)sizeof *flat != n || np != si[1] * (int64_t)sizeof *pd)
        rc =
            cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: malformed bandit groups", cs_ckpt_path(ck));
    for (int64_t k = 0, at = 0; k < b->K && rc == CS_OK; k++) {
        ring *g = &b->q[k];
        g->head = g->n = 0;
        if (!ring_reserve(g, len[k]))
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the bandit groups");
        for (int64_t i = 0; rc == CS_OK && i < len[k]; i++)
            ring_push_back(g, &flat[at++]);
    }
    CS_TRY_AGREE(ctx, rc);
    free(b->pd);
    b->pd = pd;
    pd = NULL;
    b->npd = b->pd_cap = (size_t)si[1];
    if (b->pd_cap == 0) {
        free(b->pd);
        b->pd = NULL;
    }
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/members", CS_CK_I64, b->K,
                                  b->members));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/cnt", CS_CK_I64, b->K, b->cnt));
    CS_TRY(ctx, cs_bandit_load(ctx, b->pol, ck, "refresh/recrawl/bandit/policy"));
fail:
    free(len);
    free(flat);
    free(pd);
    return rc;
}

/* One ops table for every bandit policy: the policy itself is looked up in the bandit registry
 * by refresh.policy (cs_bandit_find_recrawl). */
const recrawl_ops cs_recrawl_bandit_ops = {.name = "bandit-*",
                                           .solver = CS_REFRESH_UNIFORM,
                                           .create = bandit_create,
                                           .destroy = bandit_destroy,
                                           .sync = bandit_sync,
                                           .on_crawl = bandit_on_crawl,
                                           .next = never,
                                           .slot = bandit_slot,
                                           .on_join = bandit_on_join,
                                           .save = bandit_save,
                                           .load = bandit_load,
                                           .grow = bandit_grow};
