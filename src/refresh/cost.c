/*
 * refresh costs: LambdaCrawl's closed forms for a schedule's staleness (Prop. 1 and Prop. 4 for
 * the harmonic penalty of Eq. 2; the binary penalty 1{n>0} used by Azar et al. and in the paper's
 * Section 7), their exact sums over ranks, the fixed-point helpers and the collectives the
 * re-crawl policies use instead of calling MPI themselves (refresh_impl.h).
 */
#include "refresh/refresh_impl.h"

#include <limits.h>
#include <math.h>
#include <string.h>

double cs_refresh_rho(double mu, double delta, double lambda)
{
    /* (sqrt(d^2 + x) - d) / 2 = x / (2 (sqrt(d^2 + x) + d)): no cancellation when x << d^2 */
    const double x = 4.0 * mu * delta / lambda;
    return x / (2.0 * (sqrt(delta * delta + x) + delta));
}

double cs_refresh_jh_incomplete(double mu, double delta, double rho)
{
    /* Prop. 1: -mu ln(rho / (delta + rho)) = mu ln(1 + delta / rho) */
    return rho > 0.0 ? mu * log1p(delta / rho) : CS_INF;
}

double cs_refresh_jh_complete(double mu, double p)
{
    /* Prop. 4: the uncrawled changes are Geometric(p), E[H(N)] = sum_i (1-p)^i / i = -ln p */
    return p > 0.0 ? -mu * log(p) : CS_INF;
}

double cs_refresh_jb_incomplete(double mu, double delta, double rho)
{
    /* stale iff a change fell in the Exp(rho) time since the last crawl */
    return mu * delta / (delta + rho);
}

double cs_refresh_jb_complete(double mu, double p)
{
    /* fresh iff the number of uncrawled changes (Geometric(p)) is 0 */
    return mu * (1.0 - p);
}

/* The harmonic and binary cost terms of one page under the schedule's form: observation-
 * triggered with probability prob >= 0 (Prop. 4), else Poisson at rate (Prop. 1). */
static inline void page_cost(double mu, double delta, double rate, double prob, double *h,
                             double *b)
{
    const int trig = prob >= 0.0;
    *h = trig ? cs_refresh_jh_complete(mu, prob) : cs_refresh_jh_incomplete(mu, delta, rate);
    *b = trig ? cs_refresh_jb_complete(mu, prob) : cs_refresh_jb_incomplete(mu, delta, rate);
}

cs_err cs_refresh_cost(cs_ctx *ctx, const cs_refresh_pages *pg, const double *rate,
                       const double *prob, double *jh, double *jb)
{
    const int64_t n = pg->n;
    const double *mu = pg->mu, *delta = pg->delta;
    /* pass 1: the largest finite terms and whether any is infinite */
    double mh = 0.0, mb = 0.0, infh = 0.0;
#pragma omp parallel for default(none) shared(n, mu, delta, rate, prob) reduction(max              \
                                                                                  : mh, mb, infh)  \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double h, b;
        page_cost(mu[i], delta[i], rate[i], prob[i], &h, &b);
        if (isfinite(h))
            mh = h > mh ? h : mh;
        else
            infh = 1.0;
        mb = b > mb ? b : mb;
    }
    double m[3] = {mh, mb, infh}, gm[3];
    cs_allreduce(ctx, m, gm, 3, CS_T_F64, CS_OP_MAX);
    const double sh = cs_comm_fx_scale(gm[0]), sb = cs_comm_fx_scale(gm[1]);
    int64_t h0 = 0, h1 = 0, h2 = 0, b0 = 0, b1 = 0, b2 = 0;
#pragma omp parallel for default(none) shared(n, mu, delta, rate, prob, sh, sb)                   \
    reduction(+ : h0, h1, h2, b0, b1, b2) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double h, b;
        page_cost(mu[i], delta[i], rate[i], prob[i], &h, &b);
        CS_FX_ADD(isfinite(h) ? h : 0.0, sh, h0, h1, h2);
        CS_FX_ADD(b, sb, b0, b1, b2);
    }
    int64_t a[6] = {h0, h1, h2, b0, b1, b2}, g[6];
    cs_allreduce(ctx, a, g, 6, CS_T_I64, CS_OP_SUM);
    *jh = gm[2] != 0.0 ? CS_INF : cs_comm_fx_value(g, sh);
    *jb = cs_comm_fx_value(g + 3, sb);
    return CS_OK;
}
