/*
 * rng: the Philox4x64-10 block function behind every stream (Random123: J. K. Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", SC 2011) and the distributions that need more
 * than a few instructions: normal (Box-Muller), lognormal, exponential, Poisson (inversion, and
 * PTRS of W. Hormann, "The transformed rejection method for generating Poisson random
 * variables", Insurance: Mathematics and Economics 12, 1993), Pareto and bounded power law
 * (inversion), Zipf (rejection-inversion of W. Hormann and G. Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", ACM TOMACS 6(3), 1996) and the setup
 * of Walker's alias tables (M. D. Vose, "A linear algorithm for generating random numbers with a
 * given distribution", IEEE TSE 17(9), 1991).
 *
 * The inline fast paths (u64, uniform, below, bernoulli, alias draw) live in crawlsim/rng.h.
 * Every distribution consumes a number of words that depends only on the words it saw, never on
 * hidden state, so a stream's position is a function of its history of calls.
 */
#include "crawlsim/rng.h"
#include "rng/rng_impl.h"

#include <Random123/philox.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs_rng_init(cs_rng *r, uint64_t seed, cs_rng_domain domain, uint64_t id, uint64_t sub)
{
    r->key[0] = seed;
    r->key[1] = id;
    r->ctr[0] = 0;
    r->ctr[1] = (uint64_t)domain;
    r->ctr[2] = sub;
    r->ctr[3] = 0;
    memset(r->buf, 0, sizeof r->buf);
    r->used = 4;
}

void cs_rng_seek(cs_rng *r, uint64_t block)
{
    r->ctr[0] = block;
    r->used = 4;
}

uint64_t cs_rng_refill(cs_rng *r)
{
    philox4x64_ctr_t c = {{r->ctr[0], r->ctr[1], r->ctr[2], r->ctr[3]}};
    philox4x64_key_t k = {{r->key[0], r->key[1]}};
    philox4x64_ctr_t out = philox4x64(c, k);
    r->buf[0] = out.v[0];
    r->buf[1] = out.v[1];
    r->buf[2] = out.v[2];
    r->buf[3] = out.v[3];
    r->ctr[0]++;
    r->used = 1;
    return r->buf[0];
}

void cs_rng_words(cs_rng *r, int64_t n, uint64_t *w)
{
    int64_t i = 0;
    for (; i < n && r->used < 4; i++)
        w[i] = r->buf[r->used++];
    /* whole blocks: independent Philox blocks back to back, so their multiplications overlap
     * (one block at a time waits for each round's product); the state as cs_rng_refill leaves
     * it after the last */
    const philox4x64_key_t k = {{r->key[0], r->key[1]}};
    for (; n - i >= 16; i += 16) { /* four an iteration: more of them in flight at once */
        philox4x64_ctr_t o[4];
        for (int j = 0; j < 4; j++) {
            const philox4x64_ctr_t c = {{r->ctr[0] + (uint64_t)j, r->ctr[1], r->ctr[2], r->ctr[3]}};
            o[j] = philox4x64(c, k);
        }
        memcpy(w + i, o, sizeof o);
        memcpy(r->buf, o[3].v, sizeof o[3].v);
        r->ctr[0] += 4;
        r->used = 4;
    }
    for (; n - i >= 4; i += 4) {
        const philox4x64_ctr_t c = {{r->ctr[0]++, r->ctr[1], r->ctr[2], r->ctr[3]}};
        const philox4x64_ctr_t o = philox4x64(c, k);
        memcpy(w + i, o.v, sizeof o.v);
        memcpy(r->buf, o.v, sizeof o.v);
        r->used = 4;
    }
    for (; i < n; i++) {
        if (r->used >= 4) {
            (void)cs_rng_refill(r);
            r->used = 0;
        }
        w[i] = r->buf[r->used++];
    }
}

/* Two words per call, no cached sine value. */
double cs_rng_normal(cs_rng *r)
{
    const uint64_t w1 = cs_rng_u64(r);
    const uint64_t w2 = cs_rng_u64(r);
    return cs_box_muller(w1, w2);
}

void cs_rng_normals(cs_rng *r, int64_t n, double *z)
{
    enum { CHUNK = 32 };
    uint64_t w[2 * CHUNK] = {0}; /* (the analyser cannot tell 2 m words fill it) */
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        cs_rng_words(r, 2 * m, w);
        for (int64_t i = 0; i < m; i++)
            z[i0 + i] = cs_box_muller(w[2 * i], w[2 * i + 1]);
    }
}

/*
 * Ziggurat normal (G. Marsaglia and W. W. Tsang, "The ziggurat method for generating random
 * variables", J. Stat. Softw. 5(8), 2000), 128 layers, with J. A. Doornik's fix ("An improved
 * ziggurat method to generate normal random samples", 2005): the layer index and the value come
 * from disjoint bits of one 64-bit word (bits 0-6 and 8-63), so they are independent. About 98.8 %
 * of draws take one word, one multiply and one compare; the rest sample the wedge or the tail
 * with further words of the same stream. The tables are constants (zig_tables.h).
 */
#define ZIG_N 128
#define ZIG_R 3.442619855899
#define ZIG_V 9.91256303526217e-3
#define ZIG_M 36028797018963968.0 /* 2^55: the value is a signed 56-bit integer */

#include "rng/zig_tables.h"

/* The ziggurat's fast path on one word: 1 and *x when the point falls inside its layer's
 * rectangle (~98.8 %), else 0 (the caller goes on with the wedge or the tail). */
static inline int zig_fast(uint64_t u, double *x)
{
    const int iz = (int)(u & (ZIG_N - 1));
    const int64_t h = (int64_t)u >> 8; /* arithmetic: sign from bit 63 */
    const int64_t a = h < 0 ? -h : h;
    *x = (double)h * zig_w[iz];
    return a < zig_k[iz];
}

double cs_rng_normal_zig(cs_rng *r)
{
    for (;;) {
        const uint64_t u = cs_rng_u64(r);
        double x;
        if (zig_fast(u, &x))
            return x; /* inside the layer's rectangle */
        const int iz = (int)(u & (ZIG_N - 1));
        const int64_t h = (int64_t)u >> 8;
        if (iz == 0) { /* the tail beyond R (Marsaglia's method) */
            double xt, y;
            do {
                xt = -log(cs_rng_uniform_pos(r)) / ZIG_R;
                y = -log(cs_rng_uniform_pos(r));
            } while (y + y < xt * xt);
            return h > 0 ? ZIG_R + xt : -ZIG_R - xt;
        }
        if (zig_f[iz] + cs_rng_uniform(r) * (zig_f[iz - 1] - zig_f[iz]) < exp(-0.5 * x * x))
            return x; /* in the wedge under the density */
    }
}

void cs_rng_normals_zig(cs_rng *r, int64_t n, double *z)
{
    for (int64_t i = 0; i < n; i++) {
        if (r->used >= 4) {
            (void)cs_rng_refill(r);
            r->used = 0;
        }
        if (zig_fast(r->buf[r->used], &z[i]))
            r->used++;
        else
            z[i] = cs_rng_normal_zig(r); /* from the same word, still the stream's next one */
    }
}

void cs_rng_normals_zig_batch(uint64_t seed, cs_rng_domain domain, uint64_t id, const int64_t *subs,
                              int64_t n, int m, double *z)
{
    CS_ASSERT(m >= 0);
    enum { CHUNK = 32 };
    uint64_t w[CHUNK][4];
    const philox4x64_key_t k = {{seed, id}};
    for (int64_t c0 = 0; c0 < n; c0 += CHUNK) {
        const int64_t c1 = c0 + CHUNK < n ? c0 + CHUNK : n;
        /* independent Philox blocks back to back: their multiplications overlap */
        for (int64_t i = c0; i < c1; i++) {
            const philox4x64_ctr_t c = {{0, (uint64_t)domain, (uint64_t)subs[i], 0}};
            const philox4x64_ctr_t o = philox4x64(c, k);
            memcpy(w[i - c0], o.v, sizeof w[i - c0]);
        }
        for (int64_t i = c0; i < c1; i++) {
            double *out = z + i * m;
            int used = 0;
            for (; used < m && used < 4; used++) /* the fast path on word `used` */
                if (!zig_fast(w[i - c0][used], &out[used]))
                    break;
            if (used < m) {
                /* a rare slow draw: continue with the stream's exact state after these words */
                cs_rng r;
                cs_rng_init(&r, seed, domain, id, (uint64_t)subs[i]);
                memcpy(r.buf, w[i - c0], sizeof r.buf);
                r.ctr[0] = 1;
                r.used = (unsigned)used;
                for (int j = used; j < m; j++)
                    out[j] = cs_rng_normal_zig(&r);
            }
        }
    }
}

double cs_rng_lognormal(cs_rng *r, double mu, double sigma)
{
    return exp(mu + sigma * cs_rng_normal(r));
}

double cs_rng_exponential(cs_rng *r, double rate)
{
    return -log(cs_rng_uniform_pos(r)) / rate;
}

/*
 * log(k!) for an integer-valued k >= 0. Exact sum of logs below 16, Stirling's series with four
 * correction terms above (truncation error below 1/(1188 k^9) < 2e-14). Used instead of lgamma(),
 * which writes the global signgam and so races between OpenMP threads.
 */
static double log_factorial(double k)
{
    if (k < 16.0) {
        double s = 0.0;
        for (double i = 2.0; i <= k; i += 1.0)
            s += log(i);
        return s;
    }
    double k2 = k * k;
    double series =
        (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * k2)) / k2) / k2) / k;
    return k * log(k) - k + 0.5 * log(CS_TWO_PI * k) + series;
}

/*
 * Poisson by sequential inversion of the CDF from 0, for mean < 30: one word per draw except
 * when rounding leaves the accumulated CDF below u (u within ~1e-14 of 1), where the draw is
 * repeated with a fresh word rather than looping for ever.
 */
static uint64_t poisson_inversion(cs_rng *r, double mean)
{
    double p0 = exp(-mean);
    for (;;) {
        double u = cs_rng_uniform(r);
        double p = p0, cdf = p0;
        uint64_t k = 0;
        while (u >= cdf && k < 400) {
            k++;
            p *= mean / (double)k;
            cdf += p;
        }
        if (k < 400)
            return k;
    }
}

/*
 * Poisson by PTRS, transformed rejection with squeeze (Hormann 1993, algorithm PTRS; valid for
 * mean >= 10, used here from 30). Two words per trial; the acceptance rate is above 0.9 for
 * large means. The constants a, b, 1/alpha and v_r are those of the paper.
 */
static uint64_t poisson_ptrs(cs_rng *r, double mean)
{
    double slam = sqrt(mean);
    double loglam = log(mean);
    double b = 0.931 + 2.53 * slam;
    double a = -0.059 + 0.02483 * b;
    double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    double v_r = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        double u = cs_rng_uniform(r) - 0.5;
        double v = cs_rng_uniform_pos(r);
        double us = 0.5 - fabs(u);
        double k = floor((2.0 * a / us + b) * u + mean + 0.43);
        /* The squeeze: inside it the proposal is accepted without evaluating the density. */
        if (us >= 0.07 && v <= v_r)
            return (uint64_t)k;
        /* us == 0 (u = -0.5) gives k = -inf and is rejected here too, before any conversion. */
        if (k < 0.0 || (us < 0.013 && v > us))
            continue;
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <=
            -mean + k * loglam - log_factorial(k))
            return (uint64_t)k;
    }
}

/* Zero for mean <= 0 or NaN (no word drawn); the mean must be finite. */
uint64_t cs_rng_poisson(cs_rng *r, double mean)
{
    if (!(mean > 0.0))
        return 0;
    if (mean < 30.0)
        return poisson_inversion(r, mean);
    return poisson_ptrs(r, mean);
}

double cs_rng_pareto(cs_rng *r, double xmin, double alpha)
{
    return xmin * pow(cs_rng_uniform_pos(r), -1.0 / (alpha - 1.0));
}

/*
 * Inversion of the CDF of x^-alpha on [xmin, xmax). With a = 1 - alpha, L = log(xmax/xmin):
 *   a < 0:  x = xmin * exp(log1p(u expm1(a L)) / a),
 *   a > 0:  x = xmax * exp(log1p((1-u) expm1(-a L)) / a)   (the same CDF, solved from xmax),
 * so that expm1() always sees a negative argument and cannot overflow however wide the range;
 * both tend to the log-uniform xmin * exp(u L) as a -> 0 without cancellation, and a == 0
 * takes that limit directly. x increases with u in every branch (common random numbers).
 */
void cs_powlaw_init(cs_powlaw *p, double xmin, double xmax, double alpha)
{
    p->xmin = xmin;
    p->xmax = xmax;
    p->a = 1.0 - alpha;
    p->span = log(xmax / xmin);
    p->e = p->a < 0.0 ? expm1(p->a * p->span) : p->a > 0.0 ? expm1(-p->a * p->span) : 0.0;
}

double cs_normal_quantile(double u)
{
    if (!(u > 0.0))
        return -HUGE_VAL;
    if (!(u < 1.0))
        return HUGE_VAL;
    /* the lower tail's quantile of q, the nearer tail (1 - u keeps its digits), then mirrored */
    const double q = u < 1e-300 ? 1e-300 : u < 0.5 ? u : 1.0 - u; /* exp(z^2 / 2) finite */
    const double t = sqrt(-2.0 * log(q));
    double z = (2.515517 + t * (0.802853 + t * 0.010328)) /
                   (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))) -
               t;
    for (int it = 0; it < 2; it++) { /* Halley: e the CDF's error over the density */
        const double cdf = 0.5 * erfc(-z * 0.70710678118654752440); /* z / sqrt 2 */
        const double e = (cdf - q) * sqrt(CS_TWO_PI) * exp(0.5 * z * z);
        z -= e / (1.0 + 0.5 * z * e);
    }
    if (u > 0.5)
        z = -z;
    return z;
}

double cs_powlaw_draw(const cs_powlaw *p, cs_rng *r)
{
    return cs_powlaw_at(p, cs_rng_uniform(r));
}

double cs_powlaw_at(const cs_powlaw *p, double u)
{
    const double xmin = p->xmin, xmax = p->xmax, a = p->a;
    double x;
    if (a < 0.0)
        x = xmin * exp(log1p(u * p->e) / a);
    else if (a > 0.0)
        x = xmax * exp(log1p((1.0 - u) * p->e) / a);
    else
        x = xmin * exp(u * p->span);
    /* Rounding in exp() can land on xmax itself (or below xmin); keep [xmin, xmax). */
    if (x < xmin)
        return xmin;
    return x < xmax ? x : nextafter(xmax, xmin);
}

double cs_rng_power_bounded(cs_rng *r, double xmin, double xmax, double alpha)
{
    cs_powlaw p;
    cs_powlaw_init(&p, xmin, xmax, alpha);
    return cs_powlaw_draw(&p, r);
}

/* ---- Zipf by rejection-inversion (Hormann & Derflinger 1996) ----
 * h(x) = x^-s is the unnormalised density; H is an antiderivative of h,
 * H(x) = (x^(1-s) - 1) / (1-s)  (log x when s = 1), and H^-1 its inverse. Both are written
 * through log1p(t)/t and expm1(t)/t so that s = 1, and s within rounding of 1, need no special
 * case: those quotients tend to 1 as t -> 0 and are replaced by their Taylor series near 0. */

/* log1p(t) / t, continuous at t = 0. */
static double zipf_log1p_ratio(double t)
{
    if (fabs(t) > 1e-8)
        return log1p(t) / t;
    return 1.0 - t * (0.5 - t * (1.0 / 3.0 - 0.25 * t));
}

/* expm1(t) / t, continuous at t = 0. */
static double zipf_expm1_ratio(double t)
{
    if (fabs(t) > 1e-8)
        return expm1(t) / t;
    return 1.0 + t * 0.5 * (1.0 + t / 3.0 * (1.0 + 0.25 * t));
}

static double zipf_H(double x, double s)
{
    double lx = log(x);
    return zipf_expm1_ratio((1.0 - s) * lx) * lx;
}

static double zipf_h(double x, double s)
{
    return exp(-s * log(x));
}

static double zipf_H_inv(double y, double s)
{
    double t = y * (1.0 - s);
    if (t < -1.0)
        t = -1.0; /* rounding guard: H^-1 is only ever asked for y in the range of H on x >= 1/2 */
    return exp(zipf_log1p_ratio(t) * y);
}

cs_err cs_zipf_init(cs_zipf *z, uint64_t n, double s)
{
    if (z == NULL || n == 0 || !(s >= 0.0) || !isfinite(s))
        return CS_ERR_ARG;
    z->n = n;
    z->s = s;
    z->h_x1 = zipf_H(1.5, s) - 1.0;
    z->h_n = zipf_H((double)n + 0.5, s);
    z->sconst = 2.0 - zipf_H_inv(zipf_H(2.5, s) - zipf_h(2.0, s), s);
    return CS_OK;
}

/*
 * One word per trial. u is uniform on (H(3/2) - 1, H(n + 1/2)]; x = H^-1(u) is a continuous
 * variate with density h, rounded to the nearest integer k. The area under h over
 * [k - 1/2, k + 1/2] is at least h(k), so accepting when u >= H(k + 1/2) - h(k) gives exactly
 * P(k) proportional to h(k); the test k - x <= sconst accepts most draws without evaluating H
 * (Hormann & Derflinger 1996, algorithm ZRI).
 */
uint64_t cs_zipf_draw(const cs_zipf *z, cs_rng *r)
{
    double nd = (double)z->n;
    for (;;) {
        double u = z->h_n + cs_rng_uniform(r) * (z->h_x1 - z->h_n);
        double x = zipf_H_inv(u, z->s);
        double kd = floor(x + 0.5);
        uint64_t k;
        if (kd < 1.0) {
            k = 1;
            kd = 1.0;
        } else if (kd >= nd) {
            k = z->n;
            kd = nd;
        } else {
            k = (uint64_t)kd;
        }
        if (kd - x <= z->sconst || u >= zipf_H(kd + 0.5, z->s) - zipf_h(kd, z->s))
            return k;
    }
}

/*
 * Vose's setup: scale the weights to mean 1, then repeatedly pair a column below 1 ("small")
 * with one at or above 1 ("large"), the large one donating what the small one lacks. Columns left
 * over when one list empties are exactly 1 up to rounding and are set to 1. One scratch array
 * of k indices holds both lists: small grows from the front, large from the back.
 */
cs_err cs_alias_init(cs_alias *a, const double *weights, int64_t k)
{
    if (a == NULL)
        return CS_ERR_ARG;
    memset(a, 0, sizeof *a);
    if (weights == NULL || k <= 0)
        return CS_ERR_ARG;
    /* Tables of k doubles must be addressable; checked before any weight is read. */
    if ((uint64_t)k > SIZE_MAX / sizeof(double))
        return CS_ERR_NOMEM;
    double sum = 0.0;
    for (int64_t i = 0; i < k; i++) {
        if (!(weights[i] >= 0.0)) /* negative or NaN; an infinite weight makes sum infinite */
            return CS_ERR_ARG;
        sum += weights[i];
    }
    if (!(sum > 0.0) || !isfinite(sum))
        return CS_ERR_ARG;

    size_t uk = (size_t)k;
    double *prob = malloc(uk * sizeof *prob);
    int64_t *alias = malloc(uk * sizeof *alias);
    int64_t *work = malloc(uk * sizeof *work);
    if (prob == NULL || alias == NULL || work == NULL) {
        free(work);
        free(alias);
        free(prob);
        return CS_ERR_NOMEM;
    }

    double dk = (double)k;
    int64_t n_small = 0, n_large = 0;
    for (int64_t i = 0; i < k; i++) {
        prob[i] = weights[i] / sum * dk; /* divide first: k / sum may overflow for tiny sums */
        alias[i] = i;
        if (prob[i] < 1.0)
            work[n_small++] = i;
        else
            work[k - 1 - n_large++] = i;
    }
    while (n_small > 0 && n_large > 0) {
        int64_t s = work[--n_small];
        int64_t l = work[k - n_large];
        alias[s] = l;
        prob[l] = (prob[l] + prob[s]) - 1.0; /* Vose's order of operations limits rounding */
        if (prob[l] < 1.0) {
            n_large--;
            work[n_small++] = l;
        }
    }
    while (n_large > 0)
        prob[work[k - n_large--]] = 1.0;
    while (n_small > 0)
        prob[work[--n_small]] = 1.0;
    free(work);

    a->k = k;
    a->prob = prob;
    a->alias = alias;
    return CS_OK;
}

void cs_alias_fini(cs_alias *a)
{
    if (a == NULL)
        return;
    free(a->prob);
    free(a->alias);
    memset(a, 0, sizeof *a);
}
