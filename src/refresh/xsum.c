/*
 * refresh/xsum: the exact signed fixed-point accumulator of refresh_impl.h (cs_xsum), used for
 * the staleness integrals of the cache (cache.c), whose terms have no bound known in advance.
 */
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XS_MASK 0xffffffffLL
#define XS_NORM_EVERY (1LL << 29)

void cs_xsum_zero(cs_xsum *s)
{
    memset(s, 0, sizeof *s);
}

void cs_xsum_norm(cs_xsum *s)
{
    int64_t carry = 0;
    for (int i = 0; i < CS_XSUM_LIMBS - 1; i++) {
        const int64_t v = s->limb[i] + carry;
        /* floor division by 2^32, also for negative v */
        carry = (v - (v & XS_MASK)) / (XS_MASK + 1);
        s->limb[i] = v & XS_MASK;
    }
    s->limb[CS_XSUM_LIMBS - 1] += carry;
    s->adds = 0;
}

void cs_xsum_add(cs_xsum *s, double x)
{
    /* |x| = m 2^(p - CS_XSUM_LOW) read off the bits (no frexp and ldexp calls). Zeros and
     * subnormals (below 2^-1022, far under the lowest bit) add nothing, nor what is not finite. */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int eb = (int)((bits >> 52) & 0x7ff);
    if (eb == 0 || eb == 0x7ff)
        return;
    uint64_t m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
    int p = eb - 1075 + CS_XSUM_LOW; /* bit position of m's lowest bit */
    if (p < 0) {
        if (p <= -64)
            return;
        m >>= -p;
        p = 0;
    }
    const int li = p / 32, sh = p % 32;
    if (li + 2 >= CS_XSUM_LIMBS)
        return; /* beyond the range: the documented bound is far below */
    const uint64_t lo = (m & (uint64_t)XS_MASK) << sh; /* < 2^63 */
    const uint64_t hi = (m >> 32) << sh;               /* < 2^52 */
    const int64_t a0 = (int64_t)(lo & (uint64_t)XS_MASK);
    const int64_t a1 = (int64_t)(lo >> 32) + (int64_t)(hi & (uint64_t)XS_MASK);
    const int64_t a2 = (int64_t)(hi >> 32);
    if (!(bits >> 63)) {
        s->limb[li] += a0;
        s->limb[li + 1] += a1;
        s->limb[li + 2] += a2;
    } else {
        s->limb[li] -= a0;
        s->limb[li + 1] -= a1;
        s->limb[li + 2] -= a2;
    }
    if (++s->adds >= XS_NORM_EVERY)
        cs_xsum_norm(s);
}

void cs_xsum_merge(cs_xsum *s, const cs_xsum *t)
{
    cs_xsum a = *t;
    cs_xsum_norm(&a);
    cs_xsum_norm(s);
    for (int i = 0; i < CS_XSUM_LIMBS; i++)
        s->limb[i] += a.limb[i];
    cs_xsum_norm(s);
}

double cs_xsum_value(const cs_xsum *s)
{
    cs_xsum a = *s;
    cs_xsum_norm(&a);
    /* from the top limb down; the lower limbs are non-negative after normalisation */
    double v = 0.0;
    for (int i = CS_XSUM_LIMBS - 1; i >= 0; i--)
        v = v * 4294967296.0 + (double)a.limb[i];
    /* v counts units of 2^-CS_XSUM_LOW */
    return ldexp(v, -CS_XSUM_LOW);
}

void cs_xsum_allreduce(cs_ctx *ctx, const cs_xsum *a, cs_xsum *out, int n)
{
    /* up to 8 accumulators on the stack, more on the heap (one allreduce either way) */
    int64_t sbuf[8 * CS_XSUM_LIMBS] = {0}, sres[8 * CS_XSUM_LIMBS];
    int64_t *buf = sbuf, *res = sres;
    CS_ASSERT(n >= 0);
    if (n > 8) {
        buf = malloc((size_t)n * CS_XSUM_LIMBS * 2 * sizeof *buf);
        CS_ASSERT(buf != NULL); /* n * 192 bytes: one per group or page class */
        res = buf + (size_t)n * CS_XSUM_LIMBS;
    }
    for (int j = 0; j < n; j++) {
        cs_xsum t = a[j];
        cs_xsum_norm(&t);
        memcpy(buf + (size_t)j * CS_XSUM_LIMBS, t.limb, sizeof t.limb);
    }
    cs_allreduce(ctx, buf, res, n * CS_XSUM_LIMBS, CS_T_I64, CS_OP_SUM);
    for (int j = 0; j < n; j++) {
        memcpy(out[j].limb, res + (size_t)j * CS_XSUM_LIMBS, sizeof out[j].limb);
        out[j].adds = 0;
        cs_xsum_norm(&out[j]);
    }
    if (buf != sbuf)
        free(buf);
}
