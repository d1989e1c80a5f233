/*
 * recrawl_bandit: the restless-bandit policies (bandit.h) as slot re-crawl policies of
 * `crawlsim run` (docs/guide/bandit.md).
 *
 * Arms are groups of cached pages (cfg.group: by host or by change-rate class, chosen by the
 * caller). Time is slotted: a slot ends at each step (one tick of crawlsim run) and has a budget
 * of n crawls, n = the integer part of R * slot plus the carried fraction (so the realised rate
 * is R). Each slot:
 *
 *   1. the policy allocates the n crawls to groups, from state that every rank holds identically
 *      (replicated: the same decisions on every rank, and for any rank count):
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
 */
#include "crawlsim/bandit.h"
#include "crawlsim/rng.h"
#include "refresh/recrawl_impl.h"
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { B_UNIFORM, B_STATIC, B_THOMPSON, B_WHITTLE, B_FGDQN, B_LEARN };

/* A group member: last crawl time, global id, local index. */
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

/* A group and its index (sort key). */
typedef struct kv {
    double v;
    int64_t k;
} kv;

typedef struct bandit {
    enum kind kind;
    int64_t K;
    double slot;
    ring *q;
    pend *pd;
    size_t npd, pd_cap;
    int64_t *members; /* local cached pages per group */
    /* replicated */
    int64_t *cnt; /* cached pages per group over all ranks, at the last sync */
    double *w;    /* static-opt: draw weight; whittle: u_k */
    double alpha; /* whittle */
    double *ta, *tb;
    int64_t *X;
    uint8_t *Y;
    double carry;
    int64_t slots;
    cs_fgdqn *net;
    cs_lspe *lspe; /* whittle-learn: created at the first sync with cached pages */
    uint8_t *act;
    /* per-slot scratch */
    int64_t *alloc, *chosen, *picks, *elig, *took;
    int64_t nchosen, npicks, nelig;
    size_t picks_cap;
    float *z, *z1, *qv;
    double *val;   /* whittle: the index of each group */
    kv *ord;       /* whittle, whittle-learn: sort scratch */
    int64_t *cpos; /* the position of a chosen group in chosen[] */
    double *rew;   /* the reward of a chosen group over all ranks (sum of mu of its changed) */
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
    free(b->cnt);
    free(b->w);
    free(b->ta);
    free(b->tb);
    free(b->X);
    free(b->Y);
    cs_fgdqn_destroy(&b->net);
    cs_lspe_destroy(&b->lspe);
    free(b->act);
    free(b->alloc);
    free(b->chosen);
    free(b->picks);
    free(b->elig);
    free(b->took);
    free(b->z);
    free(b->z1);
    free(b->qv);
    free(b->val);
    free(b->ord);
    free(b->cpos);
    free(b->rew);
    free(b->omu);
    free(b->osum);
    free(b->mine);
    free(b->all);
    free(b->mine_q);
    free(b->back);
    free(b->rc_cnt);
    free(b);
}

static cs_err create_kind(cs_ctx *ctx, cs_recrawl *r, void **st, enum kind kind)
{
    cs_err rc = CS_OK;
    bandit *b = NULL;
    const int64_t K = r->cfg.n_groups;
    if (r->cfg.group == NULL || K < 1 || K > INT32_MAX || !(r->cfg.slot > 0.0))
        return cs_fail(ctx, CS_ERR_ARG, "%s: needs groups of pages and a slot length",
                       r->cfg.policy);
    if ((kind == B_THOMPSON || kind == B_FGDQN) && K > 4096)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "refresh.policy = %s keeps the state of every group on every rank and "
                       "supports at most 4096 groups; refresh.group_by gives %lld (use "
                       "group_by = rate-class, or bandit-uniform, -static-opt, -whittle)",
                       r->cfg.policy, (long long)K);
    if (kind == B_LEARN && K > 64)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "refresh.policy = bandit-whittle-learn learns a value function with "
                       "K + K (K + 1) / 2 quadratic features and supports at most 64 groups; "
                       "refresh.group_by gives %lld (use group_by = rate-class)",
                       (long long)K);
    if ((kind == B_WHITTLE || kind == B_LEARN) && !(r->cfg.whittle_decay > 0.0))
        return cs_fail(ctx, CS_ERR_CONFIG, "refresh.whittle_decay must be > 0");
    for (int64_t i = 0; i < r->n; i++)
        if (r->cfg.group[i] < 0 || r->cfg.group[i] >= K)
            return cs_fail(ctx, CS_ERR_ARG, "%s: page %lld in group %d of %lld", r->cfg.policy,
                           (long long)i, (int)r->cfg.group[i], (long long)K);
    CS_TRY(ctx, cs_calloc(ctx, &b, 1, sizeof *b, "bandit policy"));
    b->kind = kind;
    b->K = K;
    b->slot = r->cfg.slot;
    const size_t Kz = (size_t)K;
    CS_TRY(ctx, cs_calloc(ctx, &b->q, Kz, sizeof *b->q, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->members, Kz, sizeof *b->members, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->cnt, Kz, sizeof *b->cnt, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->w, Kz, sizeof *b->w, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->ta, Kz, sizeof *b->ta, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->tb, Kz, sizeof *b->tb, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->X, Kz, sizeof *b->X, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->Y, Kz, 1, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->alloc, Kz, sizeof *b->alloc, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->chosen, Kz, sizeof *b->chosen, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->elig, Kz, sizeof *b->elig, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->took, Kz, sizeof *b->took, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->val, Kz, sizeof *b->val, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->ord, Kz, sizeof *b->ord, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->cpos, Kz, sizeof *b->cpos, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->rew, Kz, sizeof *b->rew, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->rc_cnt, 2 * (size_t)ctx->size, sizeof *b->rc_cnt, "bandit"));
    b->rc_dsp = b->rc_cnt + ctx->size;
    for (int64_t k = 0; k < K; k++)
        b->ta[k] = b->tb[k] = 1.0;
    if (kind == B_FGDQN) {
        CS_TRY(ctx, cs_alloc(ctx, &b->z, 2 * Kz, sizeof *b->z, "FG-DQN state"));
        CS_TRY(ctx, cs_alloc(ctx, &b->z1, 2 * Kz, sizeof *b->z1, "FG-DQN state"));
        CS_TRY(ctx, cs_alloc(ctx, &b->qv, Kz, sizeof *b->qv, "FG-DQN values"));
        CS_TRY(ctx, cs_fgdqn_create(ctx, &r->cfg.fgdqn, K, r->cfg.seed, 0, &b->net));
    }
    if (kind == B_LEARN)
        CS_TRY(ctx, cs_calloc(ctx, &b->act, Kz, 1, "learning scheme"));
    *st = b;
    return CS_OK;
fail:
    bandit_destroy(b);
    return rc;
}

#define CREATE(fn, kind)                                                                           \
    static cs_err fn(cs_ctx *ctx, cs_recrawl *r, void **st)                                        \
    {                                                                                              \
        return create_kind(ctx, r, st, kind);                                                      \
    }
CREATE(uniform_create, B_UNIFORM)
CREATE(static_create, B_STATIC)
CREATE(thompson_create, B_THOMPSON)
CREATE(whittle_create, B_WHITTLE)
CREATE(fgdqn_create, B_FGDQN)
CREATE(learn_create, B_LEARN)

/* A member (re)enters its group's FIFO at the next slot (sorted there by (time, id)). */
static void enqueue(cs_recrawl *r, bandit *b, int64_t i, double t)
{
    if (b->npd == b->pd_cap &&
        cs_grow(r->ctx, &b->pd, &b->pd_cap, b->npd + 1, sizeof *b->pd, "bandit members") != CS_OK) {
        r->err = CS_ERR_NOMEM;
        return;
    }
    pend *p = &b->pd[b->npd++];
    p->k = r->cfg.group[i];
    p->q.t = t;
    p->q.id = (uint32_t)(r->pg.id != NULL ? r->pg.id[i] : i);
    p->q.li = (uint32_t)i;
}

static void bandit_on_join(cs_recrawl *r, void *st, int64_t i, double t)
{
    bandit *b = st;
    b->members[r->cfg.group[i]]++;
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

static cs_err bandit_sync(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    (void)t;
    bandit *b = st;
    cs_err rc = CS_OK;
    double *mu = NULL, *D = NULL, *p = NULL;
    cs_refresh_allreduce(ctx, b->members, b->cnt, (int)b->K, MPI_INT64_T, MPI_SUM);
    if (b->kind == B_WHITTLE || b->kind == B_LEARN) {
        /* lambda_k = slot * sum of mu delta over the group's cached pages: exact sums */
        cs_xsum *xs = NULL;
        rc = cs_calloc(ctx, &xs, (size_t)b->K, sizeof *xs, "whittle rates");
        for (int64_t i = 0; rc == CS_OK && i < r->n; i++)
            if (cs_cache_has(r->cache, i))
                cs_xsum_add(&xs[r->cfg.group[i]], r->pg.mu[i] * r->pg.delta[i]);
        CS_TRY_AGREE(ctx, rc);
        cs_xsum *tot = NULL;
        rc = cs_alloc(ctx, &tot, (size_t)b->K, sizeof *tot, "whittle rates");
        if (cs_agree(ctx, rc) != CS_OK) {
            free(xs);
            rc = CS_ERR_NOMEM;
            goto fail;
        }
        cs_xsum_allreduce(ctx, xs, tot, (int)b->K);
        for (int64_t k = 0; k < b->K; k++)
            b->w[k] = cs_xsum_value(&tot[k]);
        free(xs);
        free(tot);
        const double c = r->cfg.whittle_decay * b->slot;
        b->alpha = exp(-c);
        double umax = 0.0;
        for (int64_t k = 0; k < b->K; k++) {
            b->w[k] = cs_whittle_u(b->w[k] * b->slot, c, (double)INFINITY);
            umax = b->w[k] > umax ? b->w[k] : umax;
        }
        if (b->kind == B_LEARN && umax > 0.0) {
            /* the learning scheme's arms need u > 0: a group without cached pages gets a tiny
             * one (and is not eligible) */
            for (int64_t k = 0; k < b->K; k++)
                b->w[k] = b->w[k] > 1e-9 * umax ? b->w[k] : 1e-9 * umax;
            if (b->lspe == NULL) {
                double *al = NULL;
                rc = cs_alloc(ctx, &al, (size_t)b->K, sizeof *al, "learning scheme");
                for (int64_t k = 0; rc == CS_OK && k < b->K; k++)
                    al[k] = b->alpha;
                if (rc == CS_OK)
                    rc =
                        cs_lspe_create(ctx, &r->cfg.lspe, b->K, b->w, al, r->cfg.seed, 0, &b->lspe);
                free(al);
                CS_TRY_AGREE(ctx, rc);
            } else {
                cs_lspe_set_u(b->lspe, b->w);
            }
        }
    } else if (b->kind == B_STATIC) {
        int64_t m = 0, total = 0;
        for (int64_t k = 0; k < b->K; k++)
            total += b->cnt[k];
        const size_t nz = r->n > 0 ? (size_t)r->n : 1;
        rc = cs_alloc(ctx, &mu, nz, sizeof *mu, "static-opt");
        if (rc == CS_OK)
            rc = cs_alloc(ctx, &D, nz, sizeof *D, "static-opt");
        if (rc == CS_OK)
            rc = cs_alloc(ctx, &p, nz, sizeof *p, "static-opt");
        CS_TRY_AGREE(ctx, rc);
        for (int64_t i = 0; i < r->n; i++)
            if (cs_cache_has(r->cache, i)) {
                mu[m] = r->pg.mu[i];
                D[m] = cs_static_opt_change_prob(r->pg.delta[i], b->slot);
                if (!(D[m] > 0.0))
                    D[m] = 1e-300; /* a page that (numerically) never changes */
                m++;
            }
        memset(b->w, 0, (size_t)b->K * sizeof *b->w);
        if (total > 0) {
            double R = r->cfg.bandwidth * b->slot;
            if (R > (double)total)
                R = (double)total;
            CS_TRY(ctx, cs_static_opt_solve(ctx, m, mu, D, R, p, NULL));
            /* exact sums: the same weights for any rank count */
            cs_xsum *loc = NULL, *sum = NULL;
            rc = cs_calloc(ctx, &loc, (size_t)b->K, sizeof *loc, "static-opt");
            if (rc == CS_OK)
                rc = cs_calloc(ctx, &sum, (size_t)b->K, sizeof *sum, "static-opt");
            if (cs_agree(ctx, rc) != CS_OK) {
                free(loc);
                free(sum);
                rc = CS_ERR_NOMEM;
                goto fail;
            }
            for (int64_t i = 0, j = 0; i < r->n; i++)
                if (cs_cache_has(r->cache, i))
                    cs_xsum_add(&loc[r->cfg.group[i]], p[j++]);
            cs_xsum_allreduce(ctx, loc, sum, (int)b->K);
            for (int64_t k = 0; k < b->K; k++)
                b->w[k] = cs_xsum_value(&sum[k]);
            free(loc);
            free(sum);
        }
    }
fail:
    free(mu);
    free(D);
    free(p);
    return rc;
}

/* ---- the slot -------------------------------------------------------------------------------- */

static cs_err add_pick(cs_ctx *ctx, bandit *b, int64_t k)
{
    cs_err rc = cs_grow(ctx, &b->picks, &b->picks_cap, (size_t)b->npicks + 1, sizeof *b->picks,
                        "bandit picks");
    if (rc != CS_OK)
        return rc;
    b->picks[b->npicks++] = k;
    if (b->alloc[k]++ == 0)
        b->chosen[b->nchosen++] = k;
    return CS_OK;
}

/* Gamma(shape >= 1, 1), Marsaglia & Tsang, as fresh.c. */
static double gamma_draw(cs_rng *r, double shape)
{
    const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = cs_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = cs_rng_uniform_pos(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

static int64_t cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* whittle, whittle-learn: groups by decreasing index, then lower group */
static int by_index(const void *x, const void *y)
{
    const kv *a = x, *c = y;
    if (a->v != c->v)
        return a->v > c->v ? -1 : 1;
    return (int)cmp_i64(a->k, c->k);
}

/* Sorts elig[0..n) by by_index on v[group] (ord: scratch of n pairs). */
static void sort_by_index(int64_t *elig, int64_t n, const double *v, kv *ord)
{
    for (int64_t e = 0; e < n; e++) {
        ord[e].v = v[elig[e]];
        ord[e].k = elig[e];
    }
    qsort(ord, (size_t)n, sizeof *ord, by_index);
    for (int64_t e = 0; e < n; e++)
        elig[e] = ord[e].k;
}

/* The replicated allocation of n crawls to groups (alloc, chosen, picks). */
static cs_err allocate(cs_ctx *ctx, cs_recrawl *r, bandit *b, int64_t n)
{
    cs_err rc = CS_OK;
    cs_rng g;
    cs_rng_init(&g, r->cfg.seed, CS_RNG_BANDIT, 0x62616e6400000000ULL + (uint64_t)b->kind,
                (uint64_t)b->slots);
    const int64_t E = b->nelig;
    switch (b->kind) {
    case B_UNIFORM:
        for (int64_t j = 0; j < n; j++)
            CS_TRY(ctx, add_pick(ctx, b, b->elig[cs_rng_below(&g, (uint64_t)E)]));
        break;
    case B_STATIC: {
        double tot = 0.0;
        for (int64_t e = 0; e < E; e++)
            tot += b->w[b->elig[e]];
        for (int64_t j = 0; j < n && tot > 0.0; j++) {
            const double v = cs_rng_uniform(&g) * tot;
            double acc = 0.0;
            int64_t pick = -1;
            for (int64_t e = 0; e < E; e++) {
                const int64_t k = b->elig[e];
                if (b->w[k] <= 0.0)
                    continue;
                acc += b->w[k];
                pick = k;
                if (v < acc)
                    break;
            }
            CS_TRY(ctx, add_pick(ctx, b, pick));
        }
        break;
    }
    case B_THOMPSON:
        for (int64_t j = 0; j < n; j++) {
            double best = -1.0;
            int64_t pick = b->elig[0];
            for (int64_t e = 0; e < E; e++) {
                const int64_t k = b->elig[e];
                const double x = gamma_draw(&g, b->ta[k]), y = gamma_draw(&g, b->tb[k]);
                const double th = x / (x + y);
                if (th > best) {
                    best = th;
                    pick = k;
                }
            }
            CS_TRY(ctx, add_pick(ctx, b, pick));
        }
        break;
    case B_WHITTLE: {
        /* the index at the group's age (slots since its last crawl, + 1 for this slot) */
        for (int64_t e = 0; e < E; e++) {
            const int64_t k = b->elig[e];
            b->val[k] = cs_whittle_index_age(b->X[k] + 1, b->w[k], b->alpha, 1.0);
        }
        sort_by_index(b->elig, E, b->val, b->ord);
        for (int64_t j = 0; j < n; j++)
            CS_TRY(ctx, add_pick(ctx, b, b->elig[j % E]));
        break;
    }
    case B_LEARN: {
        /* the active groups of the logistic relaxation, by decreasing activity probability */
        if (b->lspe == NULL)
            break;
        cs_lspe_step(b->lspe, b->act);
        const double *fa = cs_lspe_activity(b->lspe);
        int64_t A = 0;
        for (int64_t e = 0; e < E; e++)
            if (b->act[b->elig[e]])
                b->elig[A++] = b->elig[e];
        sort_by_index(b->elig, A, fa, b->ord);
        for (int64_t j = 0; j < n && A > 0; j++)
            CS_TRY(ctx, add_pick(ctx, b, b->elig[j % A]));
        break;
    }
    case B_FGDQN: {
        const cs_fgdqn_config *fc = &r->cfg.fgdqn;
        const double frac = fc->eps_steps > 0 ? (double)b->slots / (double)fc->eps_steps : 1.0;
        const double eps =
            frac >= 1.0 ? fc->eps_end : fc->eps_start + (fc->eps_end - fc->eps_start) * frac;
        for (int64_t k = 0; k < b->K; k++) {
            b->z[k] = (float)((double)b->X[k] / fc->x_scale);
            b->z[b->K + k] = (float)b->Y[k];
        }
        cs_fgdqn_q(b->net, b->z, b->qv);
        for (int64_t j = 0; j < n; j++) {
            int64_t pick = -1;
            if (cs_rng_uniform(&g) < eps) {
                pick = b->elig[cs_rng_below(&g, (uint64_t)E)];
            } else {
                /* the best eligible group not picked yet (all picked: the best) */
                for (int pass = 0; pass < 2 && pick < 0; pass++)
                    for (int64_t e = 0; e < E; e++) {
                        const int64_t k = b->elig[e];
                        if (pass == 0 && b->alloc[k] > 0)
                            continue;
                        if (pick < 0 || b->qv[k] > b->qv[pick])
                            pick = k;
                    }
            }
            CS_TRY(ctx, add_pick(ctx, b, pick));
        }
        break;
    }
    }
fail:
    return rc;
}

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

static cs_err bandit_slot(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    bandit *b = st;
    cs_err rc = CS_OK;
    /* 1. members that (re)joined since the last slot, in (group, time, id) order */
    qsort(b->pd, b->npd, sizeof *b->pd, pend_cmp);
    for (size_t j = 0; j < b->npd && rc == CS_OK; j++)
        if (!ring_push_back(&b->q[b->pd[j].k], &b->pd[j].q))
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the bandit groups");
    b->npd = 0;
    CS_TRY_AGREE(ctx, rc);
    /* 2. the slot's budget and the replicated allocation */
    b->carry += r->cfg.bandwidth * b->slot;
    int64_t n = (int64_t)floor(b->carry);
    b->carry -= (double)n;
    b->nelig = 0;
    for (int64_t k = 0; k < b->K; k++)
        if (b->cnt[k] > 0)
            b->elig[b->nelig++] = k;
    for (int64_t j = 0; j < b->nchosen; j++)
        b->alloc[b->chosen[j]] = 0;
    b->nchosen = b->npicks = 0;
    if (n > 0 && b->nelig > 0)
        CS_TRY_AGREE(ctx, allocate(ctx, r, b, n));
    /* 3. this rank's candidates: per chosen group its alloc oldest live members */
    int64_t nm = 0;
    for (int64_t c = 0; c < b->nchosen; c++)
        nm += b->alloc[b->chosen[c]];
    rc = cs_grow(ctx, &b->mine, &b->mine_cap, (size_t)nm + 1, sizeof *b->mine, "bandit");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->mine_q, &b->mine_q_cap, (size_t)nm + 1, sizeof *b->mine_q, "bandit");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->back, &b->back_cap, (size_t)nm + 1, sizeof *b->back, "bandit");
    CS_TRY_AGREE(ctx, rc);
    int64_t m = 0;
    for (int64_t c = 0; c < b->nchosen; c++) {
        const int64_t k = b->chosen[c];
        ring *g = &b->q[k];
        int64_t got = 0;
        while (got < b->alloc[k] && g->n > 0) {
            qent e = ring_pop_front(g);
            if (!(r->t_last[e.li] == e.t)) /* a stale entry: the page was crawled since */
                continue;
            b->mine[m].k = (int32_t)k;
            b->mine[m].id = e.id;
            b->mine[m].t = e.t;
            b->mine_q[m++] = e;
            got++;
        }
    }
    /* 4. every rank's candidates; the same winners everywhere */
    int64_t na = 0;
    CS_TRY(ctx, cs_refresh_allgather(ctx, b->mine, m, sizeof *b->mine, &b->all, &b->all_cap,
                                     b->rc_cnt, b->rc_dsp, &na));
    qsort(b->all, (size_t)na, sizeof *b->all, cand_cmp);
    /* my candidates by id, to find my winners; the outcomes per chosen group */
    int64_t *slot_of = NULL;
    const size_t nc = (size_t)b->nchosen, w = 2 + CS_XSUM_LIMBS;
    qsort(b->mine_q, (size_t)m, sizeof *b->mine_q, qent_id_cmp);
    rc = cs_calloc(ctx, &slot_of, (size_t)m + 1, sizeof *slot_of, "bandit");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->omu, &b->omu_cap, nc + 1, sizeof *b->omu, "bandit outcomes");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &b->osum, &b->osum_cap, 2 * w * nc + 1, sizeof *b->osum,
                     "bandit outcomes");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t c = 0; c < b->nchosen; c++) {
        const int64_t k = b->chosen[c];
        b->took[k] = 0;
        b->cpos[k] = c;
        b->osum[w * (size_t)c] = b->osum[w * (size_t)c + 1] = 0;
        cs_xsum_zero(&b->omu[c]);
    }
    for (int64_t a = 0; a < na && rc == CS_OK; a++) {
        const int64_t k = b->all[a].k;
        if (b->took[k] >= b->alloc[k])
            continue;
        b->took[k]++;
        qent key = {0.0, b->all[a].id, 0};
        qent *hit = bsearch(&key, b->mine_q, (size_t)m, sizeof *b->mine_q, qent_id_cmp);
        if (hit == NULL)
            continue;
        slot_of[hit - b->mine_q] = 1; /* taken */
        uint32_t ch = 0;
        rc = recrawl_crawl_now(r, hit->li, t, &ch);
        const int64_t c = b->cpos[k];
        b->osum[w * (size_t)c]++;
        b->osum[w * (size_t)c + 1] += ch > 0;
        if (ch > 0)
            cs_xsum_add(&b->omu[c], r->pg.mu[hit->li]);
    }
    /* the candidates not taken go back to the fronts of their FIFOs: pushed in decreasing
     * (group, time, id) order, each front stays sorted */
    int64_t nb = 0;
    for (int64_t j = 0; j < m; j++)
        if (!slot_of[j]) {
            b->back[nb].k = r->cfg.group[b->mine_q[j].li];
            b->back[nb++].q = b->mine_q[j];
        }
    qsort(b->back, (size_t)nb, sizeof *b->back, pend_cmp);
    for (int64_t j = nb - 1; j >= 0 && rc == CS_OK; j--)
        if (!ring_push_front(&b->q[b->back[j].k], &b->back[j].q))
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the bandit groups");
    free(slot_of);
    CS_TRY_AGREE(ctx, rc);
    /* 5. outcomes over all ranks, per chosen group: integer counts and exact sums of mu (a
     * floating-point sum over ranks would depend on the rank count, and FG-DQN learns from it),
     * packed into one allreduce */
    int64_t *ob = b->osum, *og = b->osum + w * nc;
    for (size_t c = 0; c < nc; c++) {
        cs_xsum_norm(&b->omu[c]); /* limbs below 2^32: no sum over ranks overflows */
        memcpy(ob + w * c + 2, b->omu[c].limb, sizeof b->omu[c].limb);
    }
    cs_refresh_allreduce(ctx, ob, og, (int)(w * nc), MPI_INT64_T, MPI_SUM);
    for (size_t c = 0; c < nc; c++) {
        const int64_t k = b->chosen[c];
        const int64_t crawled = og[w * c], changed = og[w * c + 1];
        cs_xsum s;
        cs_xsum_zero(&s);
        memcpy(s.limb, og + w * c + 2, sizeof s.limb);
        b->ta[k] += (double)changed;
        b->tb[k] += (double)(crawled - changed);
        b->Y[k] = changed > 0;
        b->rew[k] = cs_xsum_value(&s); /* the group's reward, for the transitions */
    }
    if (b->kind == B_FGDQN) {
        for (int64_t k = 0; k < b->K; k++) {
            const int64_t x = b->alloc[k] > 0 ? 0 : b->X[k] + 1;
            b->z1[k] = (float)((double)x / r->cfg.fgdqn.x_scale);
            b->z1[b->K + k] = (float)b->Y[k];
        }
        for (int64_t j = 0; j < b->npicks; j++) {
            const int64_t k = b->picks[j];
            cs_fgdqn_push(b->net, b->z, k, (float)(b->rew[k] / (double)b->alloc[k]), b->z1);
        }
        if (b->npicks > 0)
            cs_fgdqn_train(b->net);
    }
    for (int64_t k = 0; k < b->K; k++)
        b->X[k] = b->alloc[k] > 0 ? 0 : b->X[k] + 1;
    b->slots++;
fail:
    return rc;
}

/* ---- checkpoints ----------------------------------------------------------------------------- */

/* The FIFOs (entries from each head, in order), the pending entries, the members per group, the
 * replicated state and FG-DQN. */
static cs_err bandit_save(cs_ctx *ctx, const cs_recrawl *r, const void *st, cs_ckpt *ck)
{
    (void)r;
    const bandit *b = st;
    cs_err rc = CS_OK;
    int64_t *len = NULL, tot = 0;
    qent *flat = NULL;
    pend *pd = NULL;
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
    const int64_t si[3] = {b->K, b->slots, (int64_t)b->npd};
    const double sd[2] = {b->carry, b->alpha};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/state", CS_CK_I64, 3, si));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/values", CS_CK_F64, 2, sd));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/fifo_len", CS_CK_I64, b->K, len));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/fifo", CS_CK_BYTES,
                            tot * (int64_t)sizeof *flat, flat));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/pending", CS_CK_BYTES,
                            (int64_t)(b->npd * sizeof *b->pd), b->pd));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/members", CS_CK_I64, b->K, b->members));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/cnt", CS_CK_I64, b->K, b->cnt));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/w", CS_CK_F64, b->K, b->w));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/ta", CS_CK_F64, b->K, b->ta));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/tb", CS_CK_F64, b->K, b->tb));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/X", CS_CK_I64, b->K, b->X));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/Y", CS_CK_BYTES, b->K, b->Y));
    if (b->net != NULL)
        CS_TRY(ctx, cs_fgdqn_save(ctx, b->net, ck, "refresh/recrawl/bandit/fgdqn"));
    if (b->kind == B_LEARN) {
        const int64_t has = b->lspe != NULL;
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/bandit/has_lspe", CS_CK_I64, 1, &has));
        if (has)
            CS_TRY(ctx, cs_lspe_save(ctx, b->lspe, ck, "refresh/recrawl/bandit/lspe"));
    }
fail:
    free(len);
    free(flat);
    free(pd);
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
    int64_t si[3];
    double sd[2];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/state", CS_CK_I64, 3, si));
    if (si[0] != b->K)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: bandit policy over %lld groups, not %lld",
                     cs_ckpt_path(ck), (long long)si[0], (long long)b->K);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/values", CS_CK_F64, 2, sd));
    CS_TRY_AGREE(ctx, cs_alloc(ctx, &len, (size_t)b->K, sizeof *len, "bandit checkpoint"));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/fifo_len", CS_CK_I64, b->K, len));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/bandit/fifo", CS_CK_BYTES, &n, &flat));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/bandit/pending", CS_CK_BYTES, &np, &pd));
    int64_t tot = 0;
    for (int64_t k = 0; k < b->K; k++)
        tot += len[k] >= 0 ? len[k] : INT32_MAX;
    if (tot * (int64_t)sizeof *flat != n || np != si[2] * (int64_t)sizeof *pd)
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
    b->npd = b->pd_cap = (size_t)si[2];
    if (b->pd_cap == 0) {
        free(b->pd);
        b->pd = NULL;
    }
    b->slots = si[1];
    b->carry = sd[0];
    b->alpha = sd[1];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/members", CS_CK_I64, b->K,
                                  b->members));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/cnt", CS_CK_I64, b->K, b->cnt));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/w", CS_CK_F64, b->K, b->w));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/ta", CS_CK_F64, b->K, b->ta));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/tb", CS_CK_F64, b->K, b->tb));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/X", CS_CK_I64, b->K, b->X));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/Y", CS_CK_BYTES, b->K, b->Y));
    if (b->net != NULL)
        CS_TRY(ctx, cs_fgdqn_load(ctx, b->net, ck, "refresh/recrawl/bandit/fgdqn"));
    if (b->kind == B_LEARN) {
        int64_t has = 0;
        CS_TRY(ctx,
               cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/bandit/has_lspe", CS_CK_I64, 1, &has));
        if (has) {
            /* created with any valid arms, then overwritten by the saved state */
            double *al = NULL, *uu = NULL;
            rc = cs_alloc(ctx, &al, 2 * (size_t)b->K, sizeof *al, "learning scheme");
            if (rc == CS_OK) {
                uu = al + b->K;
                for (int64_t k = 0; k < b->K; k++) {
                    al[k] = 0.5;
                    uu[k] = 1.0;
                }
                rc = cs_lspe_create(ctx, &r->cfg.lspe, b->K, uu, al, r->cfg.seed, 0, &b->lspe);
            }
            free(al);
            CS_TRY_AGREE(ctx, rc);
            CS_TRY(ctx, cs_lspe_load(ctx, b->lspe, ck, "refresh/recrawl/bandit/lspe"));
        }
    }
fail:
    free(len);
    free(flat);
    free(pd);
    return rc;
}

#define BANDIT(var, nm, cr)                                                                        \
    const recrawl_ops var = {.name = nm,                                                           \
                             .solver = CS_REFRESH_UNIFORM,                                         \
                             .create = cr,                                                         \
                             .destroy = bandit_destroy,                                            \
                             .sync = bandit_sync,                                                  \
                             .on_crawl = bandit_on_crawl,                                          \
                             .next = never,                                                        \
                             .slot = bandit_slot,                                                  \
                             .on_join = bandit_on_join,                                            \
                             .save = bandit_save,                                                  \
                             .load = bandit_load}

BANDIT(cs_recrawl_bandit_uniform_ops, "bandit-uniform", uniform_create);
BANDIT(cs_recrawl_bandit_static_opt_ops, "bandit-static-opt", static_create);
BANDIT(cs_recrawl_bandit_thompson_ops, "bandit-thompson", thompson_create);
BANDIT(cs_recrawl_bandit_whittle_ops, "bandit-whittle", whittle_create);
BANDIT(cs_recrawl_bandit_fgdqn_ops, "bandit-fgdqn", fgdqn_create);
BANDIT(cs_recrawl_bandit_learn_ops, "bandit-whittle-learn", learn_create);
