/*
 * bandit/static_opt: static optimisation of binary freshness (Azar, Horvitz, Lubetzky, Peres,
 * Shahaf, PNAS 2018), the baseline "SO" of the DRL paper (Avrachenkov, Borkar, Patil 2021, Eq. 8):
 * maximise F(p) = sum_k mu_k p_k / (p_k + D_k - D_k p_k) over crawl probabilities per slot.
 *
 * F is separable and concave in each p_k (D_k in (0,1)); its KKT conditions with one multiplier
 * lambda for sum p_k = R give dF/dp_k = mu_k D_k / (p_k (1 - D_k) + D_k)^2 = lambda, i.e.
 * p_k = (sqrt(mu_k D_k / lambda) - D_k) / (1 - D_k), clamped to [0, 1]. Pages with
 * mu_k / D_k <= lambda are never crawled (the DRL paper's "page 4 is never crawled").
 *
 * As a registered bandit policy ("static-opt"): the sync gives each group its share w_k of the
 * page-level optimum (the caller solves it over its pages), and each crawl of a slot goes to a
 * group drawn with probability proportional to w_k among the eligible groups.
 */
#include "bandit/bandit_impl.h"
#include "crawlsim/comm.h"

#include <math.h>
#include <stdlib.h>

double cs_static_opt_change_prob(double rate, double slot)
{
    return -expm1(-rate * slot);
}

static double so_p(double mu, double D, double lambda)
{
    if (D >= 1.0)
        return lambda < mu ? 1.0 : 0.0;
    const double p = (sqrt(mu * D / lambda) - D) / (1.0 - D);
    return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

cs_err cs_static_opt_solve(cs_ctx *ctx, int64_t n, const double *mu, const double *D, double R,
                           double *p, double *lambda_out)
{
    cs_err rc = CS_OK;
    double lo = (double)INFINITY, hi = 0.0; /* lambda: all crawled at lo, none at hi */
    for (int64_t k = 0; k < n && rc == CS_OK; k++) {
        if (!(isfinite(mu[k]) && mu[k] > 0.0) || !(D[k] > 0.0 && D[k] <= 1.0))
            rc = cs_fail(ctx, CS_ERR_ARG,
                         "static optimisation: page %lld has mu %g and change probability %g "
                         "(need mu > 0 and 0 < D <= 1)",
                         (long long)k, mu[k], D[k]);
        else {
            if (mu[k] * D[k] < lo)
                lo = mu[k] * D[k];
            if (mu[k] / D[k] > hi)
                hi = mu[k] / D[k];
        }
    }
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    int64_t N = n;
    cs_allreduce(ctx, &lo, &lo, 1, CS_T_F64, CS_OP_MIN);
    cs_allreduce(ctx, &hi, &hi, 1, CS_T_F64, CS_OP_MAX);
    cs_allreduce(ctx, &N, &N, 1, CS_T_I64, CS_OP_SUM);
    if (!(isfinite(R) && R > 0.0 && R <= (double)N))
        return cs_fail(ctx, CS_ERR_ARG,
                       "static optimisation: bandwidth %g is not in (0, %lld] (crawls per slot "
                       "cannot exceed the number of pages)",
                       R, (long long)N);
    if (R == (double)N) {
        for (int64_t k = 0; k < n; k++)
            p[k] = 1.0;
        if (lambda_out)
            *lambda_out = lo;
        return CS_OK;
    }
    /* sum_k p_k(lambda) is continuous and non-increasing; bisection in log lambda on the exact
     * fixed-point sum, so every rank takes the same branches */
    double a = log(lo) - 1.0, b = log(hi) + 1.0;
    for (int it = 0; it < 200 && b - a > 1e-15 * (fabs(a) + fabs(b) + 1.0); it++) {
        const double mid = 0.5 * (a + b), lam = exp(mid);
        for (int64_t k = 0; k < n; k++)
            p[k] = so_p(mu[k], D[k], lam);
        double s = 0.0;
        rc = cs_comm_sum_exact(ctx, p, n, &s);
        if (rc != CS_OK)
            return rc;
        if (s > R)
            a = mid;
        else
            b = mid;
    }
    const double lam = exp(b);
    for (int64_t k = 0; k < n; k++)
        p[k] = so_p(mu[k], D[k], lam);
    if (lambda_out)
        *lambda_out = lam;
    return CS_OK;
}

/* Each crawl: v uniform on [0, scale) (scale 0: the eligible groups' total), the first group
 * whose cumulated weight exceeds v (groups of weight 0 are never drawn). */
static cs_err so_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E, int64_t n)
{
    cs_err rc = CS_OK;
    double tot = 0.0;
    for (int64_t e = 0; e < E; e++)
        tot += b->w[elig[e]];
    const double scale = b->scale > 0.0 ? b->scale : tot;
    for (int64_t j = 0; j < n && tot > 0.0; j++) {
        const double v = cs_rng_uniform(g) * scale;
        double acc = 0.0;
        int64_t pick = -1;
        for (int64_t e = 0; e < E; e++) {
            const int64_t k = elig[e];
            if (b->w[k] <= 0.0)
                continue;
            acc += b->w[k];
            pick = k;
            if (v < acc)
                break;
        }
        CS_TRY(ctx, bandit_pick(ctx, b, pick));
    }
fail:
    return rc;
}

const cs_bandit_ops cs_bandit_static_opt_ops = {
    .freshness = 1, .stream = 1, .input = CS_BANDIT_IN_STATIC_OPT, .choose = so_choose};
