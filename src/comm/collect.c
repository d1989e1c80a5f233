/*
 * comm/collect: the collectives of the modules that do not call MPI themselves (refresh,
 * bandit): an allgather of variable-size items (a copy on a local context, as the typed
 * collectives it is made of) and the exact fixed-point sums of non-negative values (comm.h).
 */
#include "crawlsim/comm.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <string.h>

int cs_comm_is_local(const cs_ctx *ctx)
{
    return ctx->comm == MPI_COMM_NULL;
}

cs_err cs_comm_allgather(cs_ctx *ctx, const void *send, int64_t n, size_t size, void *recv,
                         size_t *cap, int *cnt, int *dsp, int64_t *total)
{
    void **out = recv;
    *total = 0;
    /* byte counts; a rank beyond INT_MAX sends -1, and every rank sees the same counts, so the
     * refusal below is agreed without another collective */
    const int64_t bytes = n * (int64_t)size;
    const int mine = bytes <= INT_MAX ? (int)bytes : -1;
    cs_allgather(ctx, &mine, 1, cnt, CS_T_INT);
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
    cs_allgatherv(ctx, send, mine, *out, cnt, dsp, CS_T_BYTE);
    *total = items;
    return CS_OK;
}

double cs_comm_fx_scale(double bound)
{
    if (!(bound > 0.0) || !isfinite(bound))
        return 1.0;
    int e = 0;
    (void)frexp(bound, &e); /* bound < 2^e */
    return ldexp(1.0, 50 - e);
}

double cs_comm_fx_value(const int64_t *a, double scale)
{
    const double units = ((double)a[0] * 16777216.0 + (double)a[1]) + (double)a[2] / CS_FX_FRAC;
    return units / scale;
}

cs_err cs_comm_fx_begin(cs_ctx *ctx, double mx, int bad, const char *what, double *scale)
{
    double loc[2] = {mx, bad ? 1.0 : 0.0}, g[2];
    cs_allreduce(ctx, loc, g, 2, CS_T_F64, CS_OP_MAX);
    if (g[1] != 0.0)
        return cs_agree(ctx,
                        cs_fail(ctx, CS_ERR_ARG, "%s: a value is negative or not finite", what));
    *scale = cs_comm_fx_scale(g[0]);
    return CS_OK;
}

cs_err cs_comm_fx_end(cs_ctx *ctx, const int64_t *a, int64_t n, double scale, double *sum,
                      int64_t *count)
{
    int64_t loc[4] = {a[0], a[1], a[2], n}, g[4];
    cs_allreduce(ctx, loc, g, 4, CS_T_I64, CS_OP_SUM);
    if (g[3] > CS_FX_MAX_TERMS)
        return cs_agree(ctx, cs_fail(ctx, CS_ERR_LIMIT, "%lld values: exact sums take at most 2^32",
                                     (long long)g[3]));
    *sum = cs_comm_fx_value(g, scale);
    if (count != NULL)
        *count = g[3];
    return CS_OK;
}

cs_err cs_comm_sum_exact(cs_ctx *ctx, const double *x, int64_t n, double *sum)
{
    double m0 = 0.0, m1 = 0.0, scale = 1.0; /* max, any bad value */
#pragma omp parallel for default(none) shared(x, n) reduction(max : m0, m1) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (!(x[i] >= 0.0) || !isfinite(x[i]))
            m1 = 1.0;
        else if (x[i] > m0)
            m0 = x[i];
    }
    cs_err rc = cs_comm_fx_begin(ctx, m0, m1 != 0.0, "cs_comm_sum_exact", &scale);
    if (rc != CS_OK)
        return rc;
    int64_t a[3] = {0, 0, 0}, a0 = 0, a1 = 0, a2 = 0;
#pragma omp parallel for simd default(none) shared(x, n, scale) reduction(+ : a0, a1, a2)          \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        CS_FX_ADD(x[i], scale, a0, a1, a2);
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    return cs_comm_fx_end(ctx, a, n, scale, sum, NULL);
}
