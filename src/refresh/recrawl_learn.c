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

typedef struct learn {
    double *est;    /* per slot */
    double *t_join; /* per slot */
    int64_t cap;
    /* the observation log: page, interval (or change time), z (0, 1; 2 = a notified change) */
    uint32_t *lp;
    double *la;
    uint8_t *lz;
    size_t ln, lcap, lcap2, lcap3;
    int64_t *ep_start;
    double *ep_time;
    size_t nep, ecap, ecap2;
} learn;

static cs_err learn_create(cs_ctx *ctx, cs_recrawl *r, void **st)
{
    cs_err rc = CS_OK;
    learn *l = NULL;
    (void)r;
    CS_TRY(ctx, cs_calloc(ctx, &l, 1, sizeof *l, "lambda-learn"));
    *st = l;
fail:
    return rc;
}

/* Slots [n0, n1) joined: the initial guess, no join time yet. */
static cs_err learn_grow(cs_recrawl *r, void *st, int64_t n0, int64_t n1)
{
    learn *l = st;
    void *const pp[] = {&l->est, &l->t_join}; /* never NULL: cs_recrawl_estimates */
    const size_t sz[] = {sizeof *l->est, sizeof *l->t_join};
    if (cs_slots_reserve(pp, sz, 2, &l->cap, n1) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory for the estimates");
    for (int64_t i = n0; i < n1; i++) {
        l->est[i] = r->cfg.learn_guess;
        l->t_join[i] = CS_NAN;
    }
    return CS_OK;
}

static void learn_destroy(void *st)
{
    learn *l = st;
    free(l->est);
    free(l->t_join);
    free(l->lp);
    free(l->la);
    free(l->lz);
    free(l->ep_start);
    free(l->ep_time);
    free(l);
}

static void log_obs(cs_recrawl *r, learn *l, int64_t i, double a, uint8_t z)
{
    if (l->ln == l->lcap || l->ln == l->lcap2 || l->ln == l->lcap3) {
        if (cs_grow(r->ctx, &l->lp, &l->lcap, l->ln + 1, sizeof *l->lp, "observations") != CS_OK ||
            cs_grow(r->ctx, &l->la, &l->lcap2, l->ln + 1, sizeof *l->la, "observations") != CS_OK ||
            cs_grow(r->ctx, &l->lz, &l->lcap3, l->ln + 1, sizeof *l->lz, "observations") != CS_OK) {
            r->err = CS_ERR_NOMEM;
            return;
        }
    }
    l->lp[l->ln] = (uint32_t)i;
    l->la[l->ln] = a;
    l->lz[l->ln] = z;
    l->ln++;
}

static void learn_on_crawl(cs_recrawl *r, void *st, int64_t i, double t, double t_prev,
                           uint32_t changes)
{
    if (r->pg.complete != NULL && r->pg.complete[i])
        return; /* complete pages learn from their notifications */
    log_obs(r, st, i, t - t_prev, changes > 0);
}

static void learn_on_change(cs_recrawl *r, void *st, int64_t i, double tau)
{
    log_obs(r, st, i, tau, 2);
}

/* Local. Re-estimates every cached page from the log of the suffix ending at t. */
static cs_err estimate(cs_ctx *ctx, cs_recrawl *r, learn *l, double t)
{
    cs_err rc = CS_OK;
    const size_t S = (size_t)r->cfg.learn_suffix;
    const size_t first = S > 0 && l->nep > S ? l->nep - S : 0;
    const int64_t j0 = l->ep_start[first];
    const double ts = l->ep_time[first];
    const int64_t m = (int64_t)l->ln - j0, n = r->n;
    int64_t *off = NULL, *pos = NULL;
    double *a = NULL;
    uint8_t *z = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &off, (size_t)n + 1, sizeof *off, "estimates"));
    CS_TRY(ctx, cs_alloc(ctx, &pos, (size_t)n + 1, sizeof *pos, "estimates"));
    CS_TRY(ctx, cs_alloc(ctx, &a, m > 0 ? (size_t)m : 1, sizeof *a, "estimates"));
    CS_TRY(ctx, cs_alloc(ctx, &z, m > 0 ? (size_t)m : 1, 1, "estimates"));
    for (int64_t j = j0; j < (int64_t)l->ln; j++)
        off[l->lp[j] + 1]++;
    for (int64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    memcpy(pos, off, ((size_t)n + 1) * sizeof *pos);
    for (int64_t j = j0; j < (int64_t)l->ln; j++) { /* in log order: time order per page */
        const int64_t q = pos[l->lp[j]]++;
        a[q] = l->la[j];
        z[q] = l->lz[j];
    }
    /* one page's estimate per iteration (its bisection's length varies: dynamic) */
    const cs_recrawl *cr = r;
    const learn *cl = l;
#pragma omp parallel for if (n >= 4096) default(none) shared(cr, cl, off, a, z, n, t, ts)          \
    schedule(dynamic, 1024)
    for (int64_t i = 0; i < n; i++) {
        if (isnan(cl->t_join[i]))
            continue;
        const int64_t b = off[i], e = off[i + 1];
        if (cr->pg.complete != NULL && cr->pg.complete[i]) {
            const double span = t - fmax(ts, cl->t_join[i]);
            cl->est[i] = cs_recrawl_mle_complete(e - b, span);
        } else {
            cl->est[i] = cs_recrawl_mle_incomplete(a + b, z + b, e - b);
        }
    }
fail:
    free(off);
    free(pos);
    free(a);
    free(z);
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
    CS_TRY_AGREE(ctx, local);
    l->ep_start[l->nep] = (int64_t)l->ln;
    l->ep_time[l->nep] = t;
    l->nep++;
    /* a page's observations start when it joined: its first fetch (cs_recrawl_fetch) or, when
     * it was added to the cache directly, this sync (cs_recrawl_sync set its last crawl to t) */
    const int64_t m = recrawl_cached(r);
    const uint32_t *idx = r->cidx;
    const double *tl = r->t_last;
    double *tj = l->t_join;
#pragma omp parallel for if (m >= 4096) default(none) shared(idx, tl, tj, m, t) schedule(static)
    for (int64_t j = 0; j < m; j++)
        if (isnan(tj[idx[j]]))
            tj[idx[j]] = isnan(tl[idx[j]]) ? t : tl[idx[j]];
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
    free(l->la);
    free(l->lz);
    free(l->ep_start);
    free(l->ep_time);
    l->lp = NULL;
    l->la = NULL;
    l->lz = NULL;
    l->ep_start = NULL;
    l->ep_time = NULL;
    l->ln = l->lcap = l->lcap2 = l->lcap3 = l->nep = l->ecap = l->ecap2 = 0;
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/log_page", CS_CK_I32, &ln, &l->lp));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/log_a", CS_CK_F64, &n2, &l->la));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/log_z", CS_CK_BYTES, &n3, &l->lz));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/ep_start", CS_CK_I64, &nep, &l->ep_start));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, "refresh/recrawl/learn/ep_time", CS_CK_F64, &ne2, &l->ep_time));
    if (n2 != ln || n3 != ln || ne2 != nep)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: a malformed observation log",
                     cs_ckpt_path(ck));
    CS_TRY_AGREE(ctx, rc);
    /* the arrays hold one element more than the items (cs_ckpt_get) */
    l->ln = (size_t)ln;
    l->lcap = l->lcap2 = l->lcap3 = (size_t)ln + 1;
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
