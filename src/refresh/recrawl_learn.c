/*
 * refresh/recrawl_learn: LambdaLearnAndCrawl (Kolobov et al. 2019, Alg. 4) and its flavours with
 * LambdaCrawlApprox (LLCA) and the non-starving BinaryLambdaCrawl (BLLC).
 *
 * Observations are logged per epoch: for an incomplete page each crawl gives (a_j, z_j), the
 * time since its previous crawl and whether it had changed; for a complete page each notified
 * change. At an epoch boundary the estimates are recomputed from the last `learn_suffix` epochs
 * (all of them when 0, the condition of Prop. 8), as in the authors' code including the whole
 * interval before the first observation of the suffix:
 *   incomplete  Eq. 10 with one imaginary changed and one unchanged interval of 0.5 (line 11)
 *   complete    Eq. 11 with 0.5 imaginary observations over 0.5 extra time (line 13)
 * then the flavour's solver runs on the estimates. The Eq. 10 root is bracketed from the data
 * (recrawl.h) and evaluated with e^{-a d}, so no interval length can overflow it (the authors'
 * code bisects on the fixed range [0.0005, 7] and overflows exp(a d) beyond ~100 days).
 */
#include "refresh/recrawl_impl.h"
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double cs_recrawl_mle_complete(int64_t changes, double time)
{
    return ((double)changes + 0.5) / (fmax(time, 0.0) + 0.5);
}

/* sum over the changed intervals (with the imaginary 0.5) of a / (e^{a d} - 1), overflow-free */
static double mle_f(const double *a, const uint8_t *z, int64_t n, double d, double U)
{
    double s = 0.5 * exp(-0.5 * d) / -expm1(-0.5 * d);
    for (int64_t j = 0; j < n; j++)
        if (z[j]) {
            const double x = a[j] * d;
            s += a[j] * exp(-x) / -expm1(-x);
        }
    return s - U;
}

double cs_recrawl_mle_incomplete(const double *a, const uint8_t *z, int64_t n)
{
    double U = 0.5, S = 0.5, C = 1.0;
    for (int64_t j = 0; j < n; j++) {
        if (z[j]) {
            C += 1.0;
            S += a[j];
        } else {
            U += a[j];
        }
    }
    /* x / (e^x - 1) lies in [1 - x/2, 1]: f(d) in [C/d - S/2 - U, C/d - U] */
    double lo = C / (U + 0.5 * S), hi = C / U;
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
        const double mid = 0.5 * (lo + hi);
        if (mle_f(a, z, n, mid, U) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The estimates are kept incremental: a page's estimate changes only when its observations in
 * the suffix do (it got new ones, old ones left the suffix, or it joined), and complete pages'
 * (Eq. 11) through their count and the time. Each observation links to its page's previous one
 * (lprev, from the page's last one, head), so a re-estimate walks its own page's observations
 * and no CSR over all pages and the whole log is built; cnt counts each page's observations
 * from the suffix's start (wj0) on, its top bit marks a page listed in the dirty list. */
#define CNT_DIRTY 0x80000000u
#define NO_OBS UINT32_MAX

typedef struct learn {
    double *est;    /* per slot */
    double *t_join; /* per slot */
    uint32_t *head; /* per slot: its last observation in the log, NO_OBS */
    uint32_t *cnt;  /* per slot: its observations from wj0 on; CNT_DIRTY */
    int64_t cap;
    /* the observation log: page, interval (or change time), z (0, 1; 2 = a notified change),
     * the page's previous observation (NO_OBS) */
    uint32_t *lp, *lprev;
    double *la;
    uint8_t *lz;
    size_t ln, lcap, lcap2, lcap3, lcap4;
    int64_t *ep_start;
    double *ep_time;
    size_t nep, ecap, ecap2;
    /* the incremental state (none of it checkpointed: full rebuilds it from the log) */
    double est0;    /* Eq. 10 without observations (pages that joined without being crawled) */
    int full;       /* re-estimate every joined page, recount cnt (at the start, after a load) */
    int64_t wj0;    /* cnt counts from here */
    int64_t joined; /* slots [0, joined) have a join time */
    uint32_t *dl;   /* the dirty pages, each once */
    size_t dn, dcap;
    int64_t *doff; /* scratch of a re-estimate: offsets of the dirty pages' observations */
    double *da;
    uint8_t *dz;
    size_t doff_cap, da_cap, dz_cap;
} learn;

static cs_err learn_create(cs_ctx *ctx, cs_recrawl *r, void **st)
{
    cs_err rc = CS_OK;
    learn *l = NULL;
    (void)r;
    CS_TRY(ctx, cs_calloc(ctx, &l, 1, sizeof *l, "lambda-learn"));
    l->full = 1;
    l->est0 = cs_recrawl_mle_incomplete(NULL, NULL, 0);
    *st = l;
fail:
    return rc;
}

/* Slots [n0, n1) joined: the initial guess, no join time yet, no observations. */
static cs_err learn_grow(cs_recrawl *r, void *st, int64_t n0, int64_t n1)
{
    learn *l = st;
    void *const pp[] = {&l->est, &l->t_join, &l->head, &l->cnt}; /* never NULL */
    const size_t sz[] = {sizeof *l->est, sizeof *l->t_join, sizeof *l->head, sizeof *l->cnt};
    if (cs_slots_reserve(pp, sz, 4, &l->cap, n1) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory for the estimates");
    for (int64_t i = n0; i < n1; i++) {
        l->est[i] = r->cfg.learn_guess;
        l->t_join[i] = CS_NAN;
        l->head[i] = NO_OBS;
        l->cnt[i] = 0;
    }
    return CS_OK;
}

static void learn_destroy(void *st)
{
    learn *l = st;
    free(l->est);
    free(l->t_join);
    free(l->head);
    free(l->cnt);
    free(l->lp);
    free(l->lprev);
    free(l->la);
    free(l->lz);
    free(l->ep_start);
    free(l->ep_time);
    free(l->dl);
    free(l->doff);
    free(l->da);
    free(l->dz);
    free(l);
}

/* Local. Lists page i as dirty (once). CS_ERR_NOMEM (message recorded). */
static cs_err mark_dirty(cs_ctx *ctx, learn *l, uint32_t i)
{
    if (l->cnt[i] & CNT_DIRTY)
        return CS_OK;
    if (l->dn == l->dcap &&
        cs_grow(ctx, &l->dl, &l->dcap, l->dn + 1, sizeof *l->dl, "estimates") != CS_OK)
        return CS_ERR_NOMEM;
    l->cnt[i] |= CNT_DIRTY;
    l->dl[l->dn++] = i;
    return CS_OK;
}

static void log_obs(cs_recrawl *r, learn *l, int64_t i, double a, uint8_t z)
{
    if (l->ln >= NO_OBS) {
        r->err = cs_fail(r->ctx, CS_ERR_NOMEM, "lambda-learn: over %u observations on one rank",
                         NO_OBS - 1);
        return;
    }
    if (l->ln == l->lcap || l->ln == l->lcap2 || l->ln == l->lcap3 || l->ln == l->lcap4) {
        if (cs_grow(r->ctx, &l->lp, &l->lcap, l->ln + 1, sizeof *l->lp, "observations") != CS_OK ||
            cs_grow(r->ctx, &l->la, &l->lcap2, l->ln + 1, sizeof *l->la, "observations") != CS_OK ||
            cs_grow(r->ctx, &l->lz, &l->lcap3, l->ln + 1, sizeof *l->lz, "observations") != CS_OK ||
            cs_grow(r->ctx, &l->lprev, &l->lcap4, l->ln + 1, sizeof *l->lprev, "observations") !=
                CS_OK) {
            r->err = CS_ERR_NOMEM;
            return;
        }
    }
    if (mark_dirty(r->ctx, l, (uint32_t)i) != CS_OK) {
        r->err = CS_ERR_NOMEM;
        return;
    }
    l->lp[l->ln] = (uint32_t)i;
    l->la[l->ln] = a;
    l->lz[l->ln] = z;
    l->lprev[l->ln] = l->head[i];
    l->head[i] = (uint32_t)l->ln;
    l->cnt[i]++; /* from the first epoch on every new observation is in the suffix */
    l->ln++;
}

static void learn_on_crawl(cs_recrawl *r, void *st, int64_t i, double t, double t_prev,
                           uint32_t changes)
{
    if (r->pg.complete != NULL && r->pg.complete[i])
        return; /* complete pages learn from their notifications */
    log_obs(r, st, i, t - t_prev, changes > 0);
}

/* With learn_suffix = 0 a complete page's estimate reads only its count of notified changes
 * from the first epoch on (Eq. 11): the count is kept, nothing logged (a complete page changes
 * far more often than it is re-crawled, so its log entries were most of the log). */
static void learn_on_change(cs_recrawl *r, void *st, int64_t i, double tau)
{
    learn *l = st;
    if (r->cfg.learn_suffix > 0)
        log_obs(r, l, i, tau, 2);
    else if (l->nep > 0) /* before the first epoch: outside the suffix */
        l->cnt[i]++;
}

/* Whether page i's count is kept by learn_on_change rather than counted from the log. */
static inline int counted_directly(const cs_recrawl *r, int64_t i)
{
    return r->cfg.learn_suffix == 0 && r->pg.complete != NULL && r->pg.complete[i];
}

/* Local. The suffix now starts at log entry j0: the pages whose observations left it are dirty
 * (only with learn_suffix > 0); in full mode cnt is recounted and every page is dirty. */
static cs_err move_suffix(cs_ctx *ctx, cs_recrawl *r, learn *l, int64_t j0)
{
    if (l->full) {
        for (int64_t i = 0; i < r->n; i++)
            if (!counted_directly(r, i))
                l->cnt[i] &= CNT_DIRTY;
        for (int64_t j = j0; j < (int64_t)l->ln; j++)
            l->cnt[l->lp[j]]++;
        for (int64_t i = 0; i < l->joined; i++)
            if (mark_dirty(ctx, l, (uint32_t)i) != CS_OK)
                return CS_ERR_NOMEM;
        l->full = 0;
    } else {
        CS_ASSERT(j0 >= l->wj0);
        for (int64_t j = l->wj0; j < j0; j++) {
            l->cnt[l->lp[j]]--;
            if (mark_dirty(ctx, l, l->lp[j]) != CS_OK)
                return CS_ERR_NOMEM;
        }
    }
    l->wj0 = j0;
    return CS_OK;
}

/* Local. Re-estimates the cached pages from the log of the suffix ending at t: the dirty
 * incomplete pages (Eq. 10) from their observations in log order (time order), gathered
 * through the links, and every complete page (Eq. 11) from its count. The same observations
 * in the same order through the same arithmetic as a re-estimate of every page. */
static cs_err estimate(cs_ctx *ctx, cs_recrawl *r, learn *l, double t)
{
    cs_err rc = CS_OK;
    const size_t S = (size_t)r->cfg.learn_suffix;
    const size_t first = S > 0 && l->nep > S ? l->nep - S : 0;
    const int64_t j0 = l->ep_start[first];
    const double ts = l->ep_time[first];
    CS_TRY(ctx, move_suffix(ctx, r, l, j0));
    /* the dirty incomplete pages with a join time, compacted in place, their offsets */
    size_t nd = 0;
    for (size_t k = 0; k < l->dn; k++) {
        const uint32_t i = l->dl[k];
        l->cnt[i] &= ~CNT_DIRTY;
        if (!isnan(l->t_join[i]) && !(r->pg.complete != NULL && r->pg.complete[i]))
            l->dl[nd++] = i;
    }
    l->dn = 0;
    CS_TRY(ctx, cs_grow(ctx, &l->doff, &l->doff_cap, nd + 1, sizeof *l->doff, "estimates"));
    l->doff[0] = 0;
    for (size_t k = 0; k < nd; k++)
        l->doff[k + 1] = l->doff[k] + l->cnt[l->dl[k]];
    const size_t m = (size_t)l->doff[nd];
    CS_TRY(ctx, cs_grow(ctx, &l->da, &l->da_cap, m + 1, sizeof *l->da, "estimates"));
    CS_TRY(ctx, cs_grow(ctx, &l->dz, &l->dz_cap, m + 1, sizeof *l->dz, "estimates"));
    /* one page's gathering and estimate per iteration (the bisection's length varies) */
    const learn *cl = l;
    const int64_t ndi = (int64_t)nd;
#pragma omp parallel for if (ndi >= 4096) default(none) shared(cl, ndi, j0) schedule(dynamic, 256)
    for (int64_t k = 0; k < ndi; k++) {
        const uint32_t i = cl->dl[k];
        const int64_t b = cl->doff[k];
        int64_t q = cl->doff[k + 1];
        for (uint32_t j = cl->head[i]; j != NO_OBS && (int64_t)j >= j0; j = cl->lprev[j]) {
            q--;
            cl->da[q] = cl->la[j];
            cl->dz[q] = cl->lz[j];
        }
        cl->est[i] = b < cl->doff[k + 1]
                         ? cs_recrawl_mle_incomplete(cl->da + b, cl->dz + b, cl->doff[k + 1] - b)
                         : cl->est0;
    }
    if (r->pg.complete != NULL) {
        const uint8_t *comp = r->pg.complete;
        const int64_t nj = l->joined;
#pragma omp parallel for if (nj >= 4096) default(none) shared(cl, comp, nj, t, ts) schedule(static)
        for (int64_t i = 0; i < nj; i++)
            if (comp[i]) {
                const double span = t - fmax(ts, cl->t_join[i]);
                cl->est[i] = cs_recrawl_mle_complete(cl->cnt[i] & ~CNT_DIRTY, span);
            }
    }
fail:
    return rc;
}

static cs_err learn_sync(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    cs_err rc = CS_OK;
    learn *l = st;
    cs_err local = CS_OK;
    if (l->nep > 0)
        local = estimate(ctx, r, l, t);
    if (local == CS_OK && (l->nep == l->ecap || l->nep == l->ecap2)) {
        local = cs_grow(ctx, &l->ep_start, &l->ecap, l->nep + 1, sizeof *l->ep_start, "epochs");
        if (local == CS_OK)
            local = cs_grow(ctx, &l->ep_time, &l->ecap2, l->nep + 1, sizeof *l->ep_time, "epochs");
    }
    /* a page's observations start when it joined: its first fetch (cs_recrawl_fetch) or, when
     * it was added to the cache directly, this sync (cs_recrawl_sync set its last crawl to t).
     * Slots are numbered in the order pages joined and never leave: the ones without a join
     * time are those since the last sync; their first estimate is at the next. */
    for (int64_t i = l->joined; i < r->n && local == CS_OK; i++) {
        l->t_join[i] = isnan(r->t_last[i]) ? t : r->t_last[i];
        local = mark_dirty(ctx, l, (uint32_t)i);
    }
    l->joined = r->n;
    CS_TRY_AGREE(ctx, local);
    l->ep_start[l->nep] = (int64_t)l->ln;
    l->ep_time[l->nep] = t;
    l->nep++;
    return cs_recrawl_solve_rates(ctx, r, r->ops->solver, l->est);
fail:
    return rc;
}

static const double *learn_estimates(const void *st)
{
    return ((const learn *)st)->est;
}

/* The estimates, join times, the observation log and the epoch table. */
static cs_err learn_save(cs_ctx *ctx, const cs_recrawl *r, const void *st, cs_ckpt *ck)
{
    const learn *l = st;
    cs_err rc = CS_OK;
    const int64_t ln = (int64_t)l->ln, nep = (int64_t)l->nep;
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/est", CS_CK_F64, r->n, l->est));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/t_join", CS_CK_F64, r->n, l->t_join));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/log_page", CS_CK_I32, ln, l->lp));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/log_a", CS_CK_F64, ln, l->la));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/log_z", CS_CK_BYTES, ln, l->lz));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/ep_start", CS_CK_I64, nep, l->ep_start));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/ep_time", CS_CK_F64, nep, l->ep_time));
    if (r->cfg.learn_suffix == 0) /* the complete pages' counts (learn_on_change) */
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/learn/count", CS_CK_I32, r->n, l->cnt));
fail:
    return rc;
}

static cs_err learn_load(cs_ctx *ctx, cs_recrawl *r, void *st, cs_ckpt *ck)
{
    learn *l = st;
    cs_err rc = CS_OK;
    int64_t ln = 0, n2 = 0, n3 = 0, nep = 0, ne2 = 0;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/learn/est", CS_CK_F64, r->n, l->est));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/learn/t_join", CS_CK_F64, r->n, l->t_join));
    free(l->lp);
    free(l->lprev);
    free(l->la);
    free(l->lz);
    free(l->ep_start);
    free(l->ep_time);
    l->lprev = NULL;
    l->lp = NULL;
    l->la = NULL;
    l->lz = NULL;
    l->ep_start = NULL;
    l->ep_time = NULL;
    l->ln = l->lcap = l->lcap2 = l->lcap3 = l->lcap4 = l->nep = l->ecap = l->ecap2 = 0;
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/log_page", CS_CK_I32, &ln, &l->lp));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/log_a", CS_CK_F64, &n2, &l->la));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/log_z", CS_CK_BYTES, &n3, &l->lz));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/ep_start", CS_CK_I64, &nep, &l->ep_start));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/ep_time", CS_CK_F64, &ne2, &l->ep_time));
    int ok = n2 == ln && n3 == ln && ne2 == nep && ln < (int64_t)NO_OBS;
    for (int64_t j = 0; j < ln && ok; j++)
        ok = l->lp[j] < (uint64_t)r->n;
    if (ok)
        rc = cs_alloc(ctx, &l->lprev, (size_t)ln + 1, sizeof *l->lprev, "observations");
    else
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: a malformed observation log",
                     cs_ckpt_path(ck));
    CS_TRY_AGREE(ctx, rc);
    /* the incremental state from the log: the links, and a full re-estimate at the next sync
     * (it gives what the uninterrupted run's incremental ones give) */
    for (int64_t i = 0; i < r->n; i++) {
        l->head[i] = NO_OBS;
        l->cnt[i] = 0;
    }
    if (r->cfg.learn_suffix == 0) {
        CS_TRY(ctx,
               cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/learn/count", CS_CK_I32, r->n, l->cnt));
        for (int64_t i = 0; i < r->n; i++)
            l->cnt[i] = counted_directly(r, i) ? l->cnt[i] & ~CNT_DIRTY : 0;
    }
    for (int64_t j = 0; j < ln; j++) {
        l->lprev[j] = l->head[l->lp[j]];
        l->head[l->lp[j]] = (uint32_t)j;
    }
    l->joined = r->n;
    while (l->joined > 0 && isnan(l->t_join[l->joined - 1]))
        l->joined--;
    l->dn = 0;
    l->full = 1;
    /* the arrays hold one element more than the items (cs_ckpt_get) */
    l->ln = (size_t)ln;
    l->lcap = l->lcap2 = l->lcap3 = l->lcap4 = (size_t)ln + 1;
    l->nep = (size_t)nep;
    l->ecap = l->ecap2 = (size_t)nep + 1;
fail:
    return rc;
}

#define LEARN(var, nm, pol)                                                                        \
    const recrawl_ops var = {.name = nm,                                                           \
                             .solver = pol,                                                        \
                             .create = learn_create,                                               \
                             .destroy = learn_destroy,                                             \
                             .sync = learn_sync,                                                   \
                             .on_crawl = learn_on_crawl,                                           \
                             .on_change = learn_on_change,                                         \
                             .estimates = learn_estimates,                                         \
                             .save = learn_save,                                                   \
                             .load = learn_load,                                                   \
                             .grow = learn_grow}

LEARN(cs_recrawl_learn_ops, "lambda-learn", CS_REFRESH_LAMBDACRAWL);
LEARN(cs_recrawl_learn_lca_ops, "lambda-learn-lca", CS_REFRESH_LCA);
LEARN(cs_recrawl_learn_binary_ops, "lambda-learn-binary", CS_REFRESH_BLC_FLOOR);
