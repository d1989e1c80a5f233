/*
 * comm/fixsum: exact sums across ranks in 128-bit fixed point (cs_fix, comm.h), and the global
 * k-th largest of unsorted keys. Both give every rank the same answer whatever the rank count
 * and the order of contributions: they are what makes crawl.weight_sync = sum and the global
 * frontier capacity of the strict setting independent of P.
 */
#include "crawlsim/comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIX_SCALE 64   /* bit 0 of a cs_fix weighs 2^-64 */
#define FIX_LIMIT 62.0 /* |values| saturate at 2^62 */

cs_fix cs_fix_from_double(double x)
{
    if (x != x)
        return 0;
    const double lim = ldexp(1.0, (int)FIX_LIMIT);
    if (x >= lim)
        x = lim;
    else if (x <= -lim)
        x = -lim;
    /* x 2^64 is exact (a power-of-two scaling); nearbyint rounds it to an integer in the
     * current rounding mode (to nearest, ties to even), which converts to 128 bits exactly */
    return (cs_fix)nearbyint(ldexp(x, FIX_SCALE));
}

double cs_fix_to_double(cs_fix v)
{
    /* the integer to double conversion rounds once; the scaling by 2^-64 is exact */
    return ldexp((double)v, -FIX_SCALE);
}

/* MPI_Op over 16-byte elements: 128-bit integer addition (memcpy: MPI buffers need not be
 * 16-byte aligned). */
static void fix_add(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const unsigned char *a = in;
    unsigned char *b = inout;
    for (int i = 0; i < *len; i++) {
        cs_fix x, y;
        memcpy(&x, a + (size_t)i * sizeof x, sizeof x);
        memcpy(&y, b + (size_t)i * sizeof y, sizeof y);
        /* wrapping addition (unsigned: no undefined behaviour) */
        __extension__ unsigned __int128 s = (unsigned __int128)x + (unsigned __int128)y;
        memcpy(b + (size_t)i * sizeof s, &s, sizeof s);
    }
}

cs_err cs_comm_sum_fix(cs_ctx *ctx, cs_fix *a, int64_t n)
{
    cs_err rc = CS_OK;
    if (n > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "exact sum: %lld values is too many", (long long)n);
    CS_TRY_AGREE(ctx, rc);
    if (ctx->size == 1 || n == 0)
        return CS_OK;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous((int)sizeof(cs_fix), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(fix_add, 1, &op);
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, n * (int64_t)sizeof(cs_fix));
    MPI_Allreduce(MPI_IN_PLACE, a, (int)n, t, op, ctx->comm);
    MPI_Op_free(&op);
    MPI_Type_free(&t);
fail:
    return rc;
}

void cs_comm_kth_largest(cs_ctx *ctx, const uint64_t *keys, int64_t n, int64_t k, uint64_t *cut)
{
    int64_t total = 0;
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)sizeof n);
    MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
    CS_ASSERT(k >= 1);
    *cut = 0;
    if (total <= k)
        return;
    /* prefix: the bytes above `shift` fixed so far; need: how many keys of the top-k still lie
     * among the keys matching the prefix (the keys above the prefix's range are counted out).
     * After the first round only the keys matching the prefix are kept (in a scratch copy), so
     * the later rounds touch few keys. */
    uint64_t prefix = 0, *live = NULL;
    const uint64_t *cur = keys;
    int64_t m = n;
    int64_t need = k;
    for (int shift = 56; shift >= 0; shift -= 8) {
        int64_t h[256], hg[256];
        memset(h, 0, sizeof h);
        for (int64_t i = 0; i < m; i++)
            h[(cur[i] >> shift) & 0xff]++;
        cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)sizeof h);
        MPI_Allreduce(h, hg, 256, MPI_INT64_T, MPI_SUM, ctx->comm);
        /* from the top bucket down until the top-k's k-th key is inside the bucket */
        int b = 255;
        for (; b > 0; b--) {
            if (hg[b] >= need)
                break;
            need -= hg[b];
        }
        prefix |= (uint64_t)b << shift;
        if (shift == 0)
            break;
        /* keep the keys of bucket b (in place after the first round's copy) */
        if (live == NULL) {
            live = malloc(((size_t)h[b] + 1) * sizeof *live);
            CS_ASSERT(live != NULL);
        }
        int64_t w = 0;
        for (int64_t i = 0; i < m; i++)
            if ((int)((cur[i] >> shift) & 0xff) == b)
                live[w++] = cur[i];
        cur = live;
        m = w;
    }
    free(live);
    *cut = prefix;
}
