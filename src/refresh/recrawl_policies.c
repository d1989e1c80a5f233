/*
 * refresh/recrawl_policies: the re-crawl policies with known change rates (the rates of
 * cs_refresh_solve on the true delta: LambdaCrawl Algs. 1-3, LCA (Prop. 9), BinaryLambdaCrawl with
 * and without floor, uniform, change-rate; Kolobov et al. 2019 Sections 4 and 7) and the
 * production rule of Nutch's AdaptiveFetchSchedule and StormCrawler's adaptive scheduler.
 */
#include "refresh/recrawl_impl.h"
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdlib.h>

/* ---- known rates ----------------------------------------------------------------------------- */

static cs_err known_sync(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    (void)st;
    (void)t;
    return cs_recrawl_solve_rates(ctx, r, r->ops->solver, r->pg.delta);
}

#define KNOWN(var, nm, pol) const recrawl_ops var = {.name = nm, .solver = pol, .sync = known_sync}

KNOWN(cs_recrawl_uniform_ops, "uniform", CS_REFRESH_UNIFORM);
KNOWN(cs_recrawl_change_rate_ops, "change-rate", CS_REFRESH_CHANGE_RATE);
KNOWN(cs_recrawl_lc_ops, "lambdacrawl", CS_REFRESH_LAMBDACRAWL);
KNOWN(cs_recrawl_lc_incomplete_ops, "lambdacrawl-incomplete", CS_REFRESH_LC_INCOMPLETE);
KNOWN(cs_recrawl_lca_ops, "lca", CS_REFRESH_LCA);
KNOWN(cs_recrawl_blc_ops, "binary-lambdacrawl", CS_REFRESH_BLC);
KNOWN(cs_recrawl_blc_floor_ops, "binary-lambdacrawl-floor", CS_REFRESH_BLC_FLOOR);

/* ---- adaptive -------------------------------------------------------------------------------- */

/* Per page (slot) interval; 0 until the first sync sets the initial one. */
typedef struct adaptive {
    double *iv;
    int64_t cap;
    double init, lo, hi;
} adaptive;

static cs_err adaptive_create(cs_ctx *ctx, cs_recrawl *r, void **st)
{
    (void)r;
    adaptive *a = NULL;
    cs_err rc = cs_calloc(ctx, &a, 1, sizeof *a, "adaptive");
    if (rc != CS_OK)
        return rc;
    *st = a;
    return CS_OK;
}

static cs_err adaptive_grow(cs_recrawl *r, void *st, int64_t n0, int64_t n1)
{
    adaptive *a = st;
    void *const pp[] = {&a->iv};
    const size_t sz[] = {sizeof *a->iv};
    if (cs_slots_reserve(pp, sz, 1, &a->cap, n1) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory for the intervals");
    for (int64_t i = n0; i < n1; i++)
        a->iv[i] = 0.0;
    return CS_OK;
}

static void adaptive_destroy(void *st)
{
    adaptive *a = st;
    free(a->iv);
    free(a);
}

static cs_err adaptive_sync(cs_ctx *ctx, cs_recrawl *r, void *st, double t)
{
    (void)t;
    adaptive *a = st;
    if (a->init == 0.0) {
        /* the uniform interval N / R over the pages cached at the first sync (an exact count) */
        int64_t m = r->n, gm = 0; /* every slot is cached */
        cs_allreduce(ctx, &m, &gm, 1, CS_T_I64, CS_OP_SUM);
        a->init = r->cfg.adapt_init > 0.0 ? r->cfg.adapt_init
                                          : (double)(gm > 0 ? gm : 1) / r->cfg.bandwidth;
        a->lo = r->cfg.adapt_min > 0.0 ? r->cfg.adapt_min : a->init / 64.0;
        a->hi = r->cfg.adapt_max > 0.0 ? r->cfg.adapt_max : a->init * 64.0;
    }
    for (int64_t i = 0; i < r->n; i++) {
        r->prob[i] = -1.0;
        if (a->iv[i] == 0.0)
            a->iv[i] = fmin(a->hi, fmax(a->lo, a->init));
        r->rate[i] = 1.0 / a->iv[i];
    }
    return CS_OK;
}

static void adaptive_on_crawl(cs_recrawl *r, void *st, int64_t i, double t, double t_prev,
                              uint32_t changes)
{
    (void)t;
    (void)t_prev;
    adaptive *a = st;
    const double f = changes > 0 ? r->cfg.adapt_shrink : r->cfg.adapt_grow;
    a->iv[i] = fmin(a->hi, fmax(a->lo, a->iv[i] * f));
    r->rate[i] = 1.0 / a->iv[i];
}

static double adaptive_next(cs_recrawl *r, void *st, int64_t i, double t)
{
    (void)r;
    const adaptive *a = st;
    return a->iv[i] > 0.0 ? t + a->iv[i] : CS_INF;
}

/* The intervals and their bounds (set at the first sync). */
static cs_err adaptive_save(cs_ctx *ctx, const cs_recrawl *r, const void *st, cs_ckpt *ck)
{
    const adaptive *a = st;
    cs_err rc = CS_OK;
    const double b[3] = {a->init, a->lo, a->hi};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/adaptive/iv", CS_CK_F64, r->n, a->iv));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/adaptive/bounds", CS_CK_F64, 3, b));
fail:
    return rc;
}

static cs_err adaptive_load(cs_ctx *ctx, cs_recrawl *r, void *st, cs_ckpt *ck)
{
    adaptive *a = st;
    cs_err rc = CS_OK;
    double b[3];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/adaptive/iv", CS_CK_F64, r->n, a->iv));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/adaptive/bounds", CS_CK_F64, 3, b));
    a->init = b[0];
    a->lo = b[1];
    a->hi = b[2];
fail:
    return rc;
}

const recrawl_ops cs_recrawl_adaptive_ops = {
    .name = "adaptive",
    .solver = CS_REFRESH_UNIFORM,
    .create = adaptive_create,
    .destroy = adaptive_destroy,
    .sync = adaptive_sync,
    .on_crawl = adaptive_on_crawl,
    .next = adaptive_next,
    .save = adaptive_save,
    .load = adaptive_load,
    .grow = adaptive_grow,
};
