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
    /* n is the same on every rank (logically collective): so is this check, agreed without a
     * collective */
    if (n > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "exact sum: %lld values is too many", (long long)n);
    if (ctx->size == 1 || n == 0)
        return CS_OK;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous((int)sizeof(cs_fix), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(fix_add, 1, &op);
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, n * (int64_t)sizeof(cs_fix));
    const int mrc = MPI_Allreduce(MPI_IN_PLACE, a, (int)n, t, op, ctx->comm);
    if (mrc != MPI_SUCCESS)
        cs_assert_fail(__FILE__, __LINE__, "MPI_Allreduce in cs_comm_sum_fix");
    MPI_Op_free(&op);
    MPI_Type_free(&t);
    return CS_OK;
}

/* The high bits (above bit) that every key in [lo, hi] shares, bit being the highest bit of
 * hi ^ lo. */
static uint64_t common_prefix(uint64_t lo, int bit)
{
    return bit == 63 ? 0 : lo & ~((UINT64_C(2) << bit) - 1);
}

/* From the top bucket of a round's histogram h (nb buckets) down, the bucket that holds the
 * top-k's k-th key, *need being how many of the top-k are still to be found at or below the
 * top bucket; on return, how many of them lie in the bucket returned. */
static int top_bucket(const int64_t *h, int nb, int64_t *need)
{
    int b = nb - 1;
    for (; b > 0; b--) {
        if (h[b] >= *need)
            break;
        *need -= h[b];
    }
    return b;
}

cs_err cs_comm_kth_largest(cs_ctx *ctx, cs_err local, const uint64_t *keys, int64_t n, int64_t k,
                           uint64_t *cut)
{
    CS_ASSERT(k >= 1);
    *cut = 0;
    if (local != CS_OK)
        n = 0;
    /* the first round: the count, the largest key and the smallest (as the largest complement) */
    uint64_t hi = 0, nlo = 0;
    for (int64_t i = 0; i < n; i++) {
        hi = keys[i] > hi ? keys[i] : hi;
        nlo = ~keys[i] > nlo ? ~keys[i] : nlo;
    }
    int64_t total = n;
    uint64_t mx[2] = {hi, nlo};
    const cs_err rc = cs_allreduce_fused(ctx, local, &total, 1, mx, 2, NULL, 0);
    if (rc != CS_OK || total <= k)
        return rc;
    /* Every key lies in [lo, hi] (two keys at least, unique: hi > lo): the cut shares their
     * common high bits (prefix). Below them, 8 bits a round: need is how many keys of the top-k
     * still lie among the keys matching the prefix (the keys above the prefix's range are
     * counted out). When the bucket of the k-th largest key holds exactly `need` keys, the k-th
     * largest is the bucket's smallest, and the bucket's lower end is a cut that keeps the same
     * keys: the search stops there. After the first round only the keys matching the prefix are
     * kept (in a scratch copy), so the later rounds touch few keys. */
    hi = mx[0];
    const uint64_t lo = ~mx[1];
    CS_ASSERT(hi > lo);
    int bit = 63 - __builtin_clzll(hi ^ lo); /* the highest bit still to set */
    uint64_t prefix = common_prefix(lo, bit), *live = NULL;
    const uint64_t *cur = keys;
    int64_t m = n;
    int64_t need = k;
    while (bit >= 0) {
        const int w = bit + 1 < 8 ? bit + 1 : 8, shift = bit + 1 - w;
        const int nb = 1 << w;
        const uint64_t mask = (uint64_t)(nb - 1);
        int64_t h[256];
        memset(h, 0, sizeof h);
        for (int64_t i = 0; i < m; i++) /* (after the first round, all of cur match the prefix) */
            h[(cur[i] >> shift) & mask]++;
        cs_allreduce(ctx, NULL, h, nb, CS_T_I64, CS_OP_SUM); /* a local context: as one rank */
        const int b = top_bucket(h, nb, &need);
        prefix |= (uint64_t)b << shift;
        if (shift == 0 || h[b] == need)
            break;
        /* keep the keys of bucket b (in place after the first round's copy); the mask of the
         * bits set so far: the prefix's */
        const uint64_t above = ~((UINT64_C(1) << shift) - 1);
        if (live == NULL) {
            live = malloc(((size_t)m + 1) * sizeof *live);
            CS_ASSERT(live != NULL);
        }
        int64_t wr = 0;
        for (int64_t i = 0; i < m; i++)
            if ((cur[i] & above) == prefix)
                live[wr++] = cur[i];
        cur = live;
        m = wr;
        bit = shift - 1;
    }
    free(live);
    *cut = prefix;
    return CS_OK;
}

/*
 * The same search as cs_comm_kth_largest (the same collectives with the same contents, so the
 * same cut) on keys this rank holds in an ordered structure: n keys in [kmin, kmax], and hist
 * giving a round's counts per bucket (as cs_findex_hist) instead of a pass over the keys.
 */
cs_err cs_comm_kth_largest_hist(cs_ctx *ctx, cs_err local, int64_t n, uint64_t kmin, uint64_t kmax,
                                cs_comm_hist_fn hist, const void *arg, int64_t k, uint64_t *cut)
{
    CS_ASSERT(k >= 1);
    *cut = 0;
    if (local != CS_OK)
        n = 0;
    int64_t total = n;
    uint64_t mx[2] = {n > 0 ? kmax : 0, n > 0 ? ~kmin : 0};
    const cs_err rc = cs_allreduce_fused(ctx, local, &total, 1, mx, 2, NULL, 0);
    if (rc != CS_OK || total <= k)
        return rc;
    const uint64_t hi = mx[0], lo = ~mx[1];
    CS_ASSERT(hi > lo);
    int bit = 63 - __builtin_clzll(hi ^ lo);
    uint64_t prefix = common_prefix(lo, bit);
    int64_t need = k;
    while (bit >= 0) {
        const int w = bit + 1 < 8 ? bit + 1 : 8, shift = bit + 1 - w;
        const int nb = 1 << w;
        int64_t h[256];
        memset(h, 0, sizeof h);
        if (n > 0)
            hist(arg, prefix, shift, nb, h);
        cs_allreduce(ctx, NULL, h, nb, CS_T_I64, CS_OP_SUM);
        const int b = top_bucket(h, nb, &need);
        prefix |= (uint64_t)b << shift;
        if (shift == 0 || h[b] == need)
            break;
        bit = shift - 1;
    }
    *cut = prefix;
    return CS_OK;
}
