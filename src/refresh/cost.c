/*
 * refresh costs: LambdaCrawl's closed forms for a schedule's staleness (Prop. 1 and Prop. 4 for
 * the harmonic penalty of Eq. 2; the binary penalty 1{n>0} used by Azar et al. and in the paper's
 * Section 7), their exact sums over ranks, the fixed-point helpers and the collectives the
 * re-crawl policies use instead of calling MPI themselves (refresh_impl.h).
 */
#include "refresh/refresh_impl.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <string.h>

void cs_refresh_allreduce(cs_ctx *ctx, const void *in, void *out, int count, MPI_Datatype type,
                          MPI_Op op)
{
    if (ctx->comm == MPI_COMM_NULL) {
        memcpy(out, in, (size_t)count * 8); /* both types are 8 bytes */
        return;
    }
    MPI_Allreduce(in, out, count, type, op, ctx->comm);
}

cs_err cs_refresh_allgather(cs_ctx *ctx, const void *send, int64_t n, size_t size, void *recv,
                            size_t *cap, int *cnt, int *dsp, int64_t *total)
{
    void **out = recv;
    *total = 0;
    if (ctx->comm == MPI_COMM_NULL) {
        cs_err rc = cs_grow(ctx, recv, cap, (size_t)n + 1, size, "gathered items");
        if (rc != CS_OK)
            return rc;
        if (n > 0)
            memcpy(*out, send, (size_t)n * size);
        *total = n;
        return CS_OK;
    }
    /* byte counts; a rank beyond INT_MAX sends -1, and every rank sees the same counts, so the
     * refusal below is agreed without another collective */
    const int64_t bytes = n * (int64_t)size;
    const int mine = bytes <= INT_MAX ? (int)bytes : -1;
    MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, ctx->comm);
    int64_t sum = 0;
    int bad = 0;
    for (int q = 0; q < ctx->size; q++) {
        bad |= cnt[q] < 0;
        dsp[q] = (int)(sum <= INT_MAX ? sum : 0);
        sum += cnt[q] > 0 ? cnt[q] : 0;
    }
    if (bad || sum > INT_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "%lld bytes to gather from every rank, at most %d",
                       (long long)sum, INT_MAX);
    const int64_t items = sum / (int64_t)size;
    cs_err rc = cs_agree(ctx, cs_grow(ctx, recv, cap, (size_t)items + 1, size, "gathered items"));
    if (rc != CS_OK)
        return rc;
    MPI_Allgatherv(send, mine, MPI_BYTE, *out, cnt, dsp, MPI_BYTE, ctx->comm);
    *total = items;
    return CS_OK;
}

double cs_refresh_fx_scale(double bound)
{
    if (!(bound > 0.0) || !isfinite(bound))
        return 1.0;
    int e = 0;
    (void)frexp(bound, &e); /* bound < 2^e */
    return ldexp(1.0, 50 - e);
}

double cs_refresh_fx_value(const int64_t *a, double scale)
{
    const double units = ((double)a[0] * 16777216.0 + (double)a[1]) + (double)a[2] / FX_FRAC;
    return units / scale;
}

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

cs_err cs_refresh_sum(cs_ctx *ctx, const double *x, int64_t n, double *sum)
{
    double mx[2] = {0.0, 0.0}, gmx[2]; /* max, any bad value */
    for (int64_t i = 0; i < n; i++) {
        if (!(x[i] >= 0.0) || !isfinite(x[i]))
            mx[1] = 1.0;
        else if (x[i] > mx[0])
            mx[0] = x[i];
    }
    cs_refresh_allreduce(ctx, mx, gmx, 2, MPI_DOUBLE, MPI_MAX);
    if (gmx[1] != 0.0)
        return cs_agree(ctx, cs_fail(ctx, CS_ERR_ARG,
                                     "cs_refresh_sum: a value is negative or not "
                                     "finite"));
    const double scale = cs_refresh_fx_scale(gmx[0]);
    int64_t a[4] = {0, 0, 0, n}, g[4];
    int64_t a0 = 0, a1 = 0, a2 = 0;
#pragma omp parallel for simd default(none) shared(x, n, scale) reduction(+ : a0, a1, a2)          \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        FX_ADD(x[i], scale, a0, a1, a2);
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    cs_refresh_allreduce(ctx, a, g, 4, MPI_INT64_T, MPI_SUM);
    if (g[3] > FX_MAX_TERMS)
        return cs_agree(ctx, cs_fail(ctx, CS_ERR_LIMIT, "%lld values: exact sums take at most 2^32",
                                     (long long)g[3]));
    *sum = cs_refresh_fx_value(g, scale);
    return CS_OK;
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
        const int trig = prob[i] >= 0.0;
        const double h = trig ? cs_refresh_jh_complete(mu[i], prob[i])
                              : cs_refresh_jh_incomplete(mu[i], delta[i], rate[i]);
        const double b = trig ? cs_refresh_jb_complete(mu[i], prob[i])
                              : cs_refresh_jb_incomplete(mu[i], delta[i], rate[i]);
        if (isfinite(h))
            mh = h > mh ? h : mh;
        else
            infh = 1.0;
        mb = b > mb ? b : mb;
    }
    double m[3] = {mh, mb, infh}, gm[3];
    cs_refresh_allreduce(ctx, m, gm, 3, MPI_DOUBLE, MPI_MAX);
    const double sh = cs_refresh_fx_scale(gm[0]), sb = cs_refresh_fx_scale(gm[1]);
    int64_t h0 = 0, h1 = 0, h2 = 0, b0 = 0, b1 = 0, b2 = 0;
#pragma omp parallel for default(none) shared(n, mu, delta, rate, prob, sh, sb)                   \
    reduction(+ : h0, h1, h2, b0, b1, b2) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int trig = prob[i] >= 0.0;
        const double h = trig ? cs_refresh_jh_complete(mu[i], prob[i])
                              : cs_refresh_jh_incomplete(mu[i], delta[i], rate[i]);
        const double b = trig ? cs_refresh_jb_complete(mu[i], prob[i])
                              : cs_refresh_jb_incomplete(mu[i], delta[i], rate[i]);
        FX_ADD(isfinite(h) ? h : 0.0, sh, h0, h1, h2);
        FX_ADD(b, sb, b0, b1, b2);
    }
    int64_t a[6] = {h0, h1, h2, b0, b1, b2}, g[6];
    cs_refresh_allreduce(ctx, a, g, 6, MPI_INT64_T, MPI_SUM);
    *jh = gm[2] != 0.0 ? CS_INF : cs_refresh_fx_value(g, sh);
    *jb = cs_refresh_fx_value(g + 3, sb);
    return CS_OK;
}
