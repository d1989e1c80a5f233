/*
 * rng: Box-Muller's normals rounded to float, bit for bit as with libm's log and cos, without
 * calling them for most draws.
 *
 * The generator's term vectors are out[i] = (float)(base[i] + scale z_i) with z_i =
 * sqrt(-2 log u1) cos(2 pi u2), Box-Muller's value of cs_rng_normal. What is stored is the
 * float, 2^29 times coarser than the double it is rounded from, so the double need not be libm's
 * to the last bit: it need only round to the float libm's would. Here a chunk of draws first
 * takes its logarithms and cosines from short polynomials in a loop the compiler vectorizes (no
 * call, no branch), good to about 1e-15 relative (the test measures it); then each value v is
 * rounded, and so are v - tol and v + tol with tol = 2^-40 (|base| + 10 |scale|), far above what
 * the polynomials and the roundings of the sum can move v (|z| < 8.6 for any u1 of 53 bits).
 * When the three floats agree, libm's value, which lies within tol of v, rounds to the same
 * float (rounding is monotone). When they do not (v within tol of the midpoint between two
 * floats: about one draw in a thousand), the draw is made again with libm, as
 * cs_rng_normal makes it. So the floats are cs_rng_normal's, whatever the polynomials' last bits.
 */
#include "crawlsim/rng.h"
#include "rng/rng_impl.h"

#include <math.h>
#include <string.h>

/* draws per chunk: the polynomials' loop runs over a chunk at a time */
#define CHUNK 32

/* A double's bits and back. */
static inline uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
static inline double of_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}
/* A count below 2^52 as a double, without the conversion instruction the x86-64 baseline lacks
 * for vectors: its bits under 2^52's exponent, less 2^52 (exact). */
static inline double small_count(uint64_t c)
{
    return of_bits(c | 0x4330000000000000ULL) - 0x1.0p52;
}
/* A count below 2^53 as a double: its high 27 and low 26 bits, exactly. */
static inline double count53(uint64_t c)
{
    return small_count(c >> 26) * 0x1.0p26 + small_count(c & 0x3ffffffULL);
}

/*
 * One draw's approximation. log(u1) for u1 = k 2^-53, k = (w1 >> 11) + 1 in [1, 2^53]: k = m 2^e
 * with m in [3/4, 3/2) from the double's bits, log m = 2 atanh(s) with s = (m - 1) / (m + 1) in
 * [-1/7, 1/5], by its series to s^21 (the next term below 3e-17); near u1 = 1, where
 * z = sqrt(-2 log u1) magnifies the logarithm's absolute error, e = 0 and the series alone makes
 * it, to its relative precision. cos(2 pi u2) for u2 = j 2^-53 in [0, 1): u2 = q / 4 + t exactly,
 * q the nearest quarter and |t| <= 1/8, x = 2 pi t in [-pi/4, pi/4], and cos(x + q pi / 2) is
 * cos x, -sin x, -cos x or sin x by q mod 4, each by its Taylor series to x^16 (the next term
 * below 5e-17).
 */
#if defined(__GNUC__)
#define APPROX_INLINE static inline __attribute__((always_inline))
#else
#define APPROX_INLINE static inline
#endif
APPROX_INLINE double approx_one(uint64_t w1, uint64_t w2)
{
    /* k = (w1 >> 11) + 1 = m 2^e with m in [3/4, 3/2): the significand in [1, 2) halved
     * when its top bit is set (from the bits: no comparison, no branch) */
    const double k = count53(w1 >> 11) + 1.0;
    const uint64_t b = bits_of(k);
    const double top = small_count((b >> 51) & 1); /* 0 or 1 */
    const double m =
        of_bits((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL) * (1.0 - 0.5 * top);
    const double e = small_count(b >> 52) - (1023.0 + 53.0) + top;
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    /* sum_j s2^j / (2j + 1), j = 0..10, by Estrin's scheme (a shorter chain than Horner's:
     * the draws of a chunk wait on this one) */
    const double t2 = s2 * s2, t4 = t2 * t2, t8 = t4 * t4;
    const double a0 = 1.0 + s2 * (1.0 / 3.0), a1 = 1.0 / 5.0 + s2 * (1.0 / 7.0);
    const double a2 = 1.0 / 9.0 + s2 * (1.0 / 11.0), a3 = 1.0 / 13.0 + s2 * (1.0 / 15.0);
    const double a4 = 1.0 / 17.0 + s2 * (1.0 / 19.0);
    const double p = (a0 + a1 * t2) + (a2 + a3 * t2) * t4 + (a4 + t2 * (1.0 / 21.0)) * t8;
    const double lg = e * 0.69314718055994530942 + 2.0 * s * p;

    /* u2 = q / 4 + t: q the nearest quarter (its low bits those of y's significand) */
    const double u2 = count53(w2 >> 11) * 0x1.0p-53;
    const double y = 4.0 * u2 + 0x1.8p52;
    const uint64_t yb = bits_of(y);
    const double q = y - 0x1.8p52;
    const double x = CS_TWO_PI * (u2 - 0.25 * q), x2 = x * x;
    double sn = -1.0 / 1307674368000.0;
    sn = sn * x2 + 1.0 / 6227020800.0;
    sn = sn * x2 - 1.0 / 39916800.0;
    sn = sn * x2 + 1.0 / 362880.0;
    sn = sn * x2 - 1.0 / 5040.0;
    sn = sn * x2 + 1.0 / 120.0;
    sn = sn * x2 - 1.0 / 6.0;
    sn = x + x * x2 * sn;
    double cn = 1.0 / 20922789888000.0;
    cn = cn * x2 - 1.0 / 87178291200.0;
    cn = cn * x2 + 1.0 / 479001600.0;
    cn = cn * x2 - 1.0 / 3628800.0;
    cn = cn * x2 + 1.0 / 40320.0;
    cn = cn * x2 - 1.0 / 720.0;
    cn = cn * x2 + 1.0 / 24.0;
    cn = cn * x2 - 0.5;
    cn = 1.0 + x2 * cn;
    /* cos(x + q pi / 2): cos x, -sin x, -cos x, sin x for q mod 4 = 0, 1, 2, 3 */
    const double odd = small_count(yb & 1), neg = small_count(((yb + 1) >> 1) & 1);
    const double c = (odd * sn + (1.0 - odd) * cn) * (1.0 - 2.0 * neg);
    return sqrt(-2.0 * lg) * c;
}

/* A chunk's floats: out[i] from the approximated draw of the words w[2i], w[2i + 1], and bad[i]
 * set when v - tol, v and v + tol do not all round to it (or v is not a number). */
APPROX_INLINE void chunk_body(const uint64_t *w, const float *base, double scale, int n, float *out,
                              int32_t *bad)
{
    const double as10 = 10.0 * fabs(scale);
#pragma omp simd
    for (int i = 0; i < n; i++) {
        const double b = (double)base[i];
        const double v = b + scale * approx_one(w[2 * i], w[2 * i + 1]);
        const double tol = 0x1.0p-40 * (fabs(b) + as10);
        const float f = (float)v;
        out[i] = f;
        bad[i] = ((float)(v - tol) != f) | ((float)(v + tol) != f);
    }
}

/* The chunk in vectors of the baseline's width or, where the CPU has them, AVX2's or AVX-512's
 * (the same polynomials; what differs is below the check's tolerance). */
typedef void (*chunk_fn)(const uint64_t *, const float *, double, int, float *, int32_t *);
static void chunk_base(const uint64_t *w, const float *base, double scale, int n, float *out,
                       int32_t *bad)
{
    chunk_body(w, base, scale, n, out, bad);
}
#if defined(__x86_64__) && defined(__GNUC__)
#define CS_NORMALS_X86 1
__attribute__((target("avx2,fma"))) static void
chunk_avx2(const uint64_t *w, const float *base, double scale, int n, float *out, int32_t *bad)
{
    chunk_body(w, base, scale, n, out, bad);
}
__attribute__((target("avx512f,avx512dq"))) static void
chunk_avx512(const uint64_t *w, const float *base, double scale, int n, float *out, int32_t *bad)
{
    chunk_body(w, base, scale, n, out, bad);
}
#endif

static const struct {
    const char *name;
    chunk_fn fn;
} kernels[] = {
#ifdef CS_NORMALS_X86
    {"avx512", chunk_avx512},
    {"avx2", chunk_avx2},
#endif
    {"base", chunk_base},
};
enum { NKERNELS = (int)(sizeof kernels / sizeof *kernels) };

/* Whether this CPU runs kernel k. */
static int kernel_runs(int k)
{
#ifdef CS_NORMALS_X86
    __builtin_cpu_init();
    if (kernels[k].fn == chunk_avx512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    if (kernels[k].fn == chunk_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return kernels[k].fn == chunk_base;
}

/* The kernel in use (-1: not chosen yet; then the first this CPU runs). Threads that race on the
 * first choice store the same value. */
static int kernel_in_use = -1;

static int kernel_best(void)
{
    int k = 0;
    while (!kernel_runs(k))
        k++;
    return k;
}

const char *cs_rng_normals_f32_kernel(const char *force)
{
    int k = -1;
    if (force == NULL)
        k = kernel_best();
    else
        for (int i = 0; i < NKERNELS && k < 0; i++)
            if (strcmp(force, kernels[i].name) == 0 && kernel_runs(i))
                k = i;
    if (k < 0)
        return NULL;
    __atomic_store_n(&kernel_in_use, k, __ATOMIC_RELAXED);
    return kernels[k].name;
}

static void chunk(const uint64_t *w, const float *base, double scale, int n, float *out,
                  int32_t *bad)
{
    int k = __atomic_load_n(&kernel_in_use, __ATOMIC_RELAXED);
    if (k < 0) {
        k = kernel_best();
        __atomic_store_n(&kernel_in_use, k, __ATOMIC_RELAXED);
    }
    kernels[k].fn(w, base, scale, n, out, bad);
}

double cs_rng_normal_approx(uint64_t w1, uint64_t w2)
{
    return approx_one(w1, w2);
}

int64_t cs_rng_normals_f32(cs_rng *r, int64_t n, const float *base, double scale, float *out)
{
    uint64_t w[2 * CHUNK];
    int32_t bad[CHUNK];
    int64_t redrawn = 0;
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int m = n - i0 < CHUNK ? (int)(n - i0) : CHUNK;
        cs_rng_words(r, 2 * m, w);
        chunk(w, base + i0, scale, m, out + i0, bad);
        for (int i = 0; i < m; i++)
            if (bad[i]) {
                out[i0 + i] =
                    (float)((double)base[i0 + i] + scale * cs_box_muller(w[2 * i], w[2 * i + 1]));
                redrawn++;
            }
    }
    return redrawn;
}
