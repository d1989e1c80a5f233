/*
 * gen_math: the generator's fast, libm-free math for the in-host popularity ranks (gen.c
 * page_in_host_u): log2, exp2 and integral powers with the same bits on every machine. Included
 * by gen.c only.
 */
#ifndef CRAWLSIM_GEN_MATH_H
#define CRAWLSIM_GEN_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * t^e for the in-host rank, t in (0, 1] (skew > 1) or t >= 1 (skew < 1). Two paths, chosen once
 * per model: an integral exponent (the default skew 1.2 gives e = -5) by repeated squaring;
 * otherwise log2 and exp2 by bit manipulation and short series, accurate to about 3e-6
 * relative, which only moves ranks whose value lies within 3e-6 of an integer. Both are a few
 * times faster than pow() and give the same bits on every libm: the world must not depend on
 * the machine's math library.
 */
static inline double fast_log2(double y)
{
    uint64_t b;
    memcpy(&b, &y, sizeof b);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    b = (b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL; /* mantissa in [1, 2) */
    double m;
    memcpy(&m, &b, sizeof m);
    if (m > 1.4142135623730951) { /* centre on 1 so that the series converges fast */
        m *= 0.5;
        e += 1;
    }
    double z = (m - 1.0) / (m + 1.0), z2 = z * z; /* |z| < 0.172 */
    double atanh = z * (1.0 + z2 * (1.0 / 3 + z2 * (1.0 / 5)));
    return (double)e + 2.8853900817779268 * atanh; /* 2 / ln 2 */
}

/* floor(v), the same value (and sign of zero but for v = -0, which fast_exp2 never passes), by a
 * conversion to an integer: a libm call or a long inline sequence on baseline x86-64 otherwise. */
static inline double floor_fast(double v)
{
    if (!(fabs(v) < 0x1.0p52)) /* also NaN: floor's own value */
        return floor(v);
    const double t = (double)(int64_t)v; /* v rounded towards zero */
    return t > v ? t - 1.0 : t;
}

static inline double fast_exp2(double y)
{
    double n = floor_fast(y + 0.5), f = (y - n) * 0.6931471805599453; /* |f| <= ln2 / 2 */
    double p = 1.0 + f * (1.0 + f * (1.0 / 2 + f * (1.0 / 6 + f * (1.0 / 24 + f * (1.0 / 120)))));
    if (n < -1022.0)
        return 0.0;
    uint64_t b = (uint64_t)((int64_t)n + 1023) << 52;
    double scale;
    memcpy(&scale, &b, sizeof scale);
    return p * scale;
}

static inline double ipow(double t, int e)
{
    int neg = e < 0;
    unsigned k = (unsigned)(neg ? -e : e);
    double r = 1.0;
    while (k) {
        if (k & 1u)
            r *= t;
        t *= t;
        k >>= 1;
    }
    return neg ? 1.0 / r : r;
}

#endif
