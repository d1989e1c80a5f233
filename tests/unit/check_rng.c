/*
 * check_rng: unit tests of the rng module (serial, forked, no MPI_Init).
 *
 * Determinism: Philox known-answer vector, the (seed, id) key and (block, domain, sub, 0) counter
 * layout, reproducibility, independence of streams from one another and from interleaving, seek,
 * and pinned values of the integer-valued distributions (a change there changes every world).
 * Distributions: chi-square tests for the discrete ones, Kolmogorov-Smirnov tests for the
 * continuous ones, and mean/variance checks whose tolerances come from the variance. Every test
 * uses fixed seeds, so it is reproducible; see stats.h for the test statistics.
 */
#include "crawlsim/rng.h"
#include "rng/zig_tables.h"
#include "unit/stats.h"

#include <Random123/philox.h>

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Goodness-of-fit threshold. The seeds are fixed, so each p-value is a fixed number; a correct
 * generator falls below 1e-4 for a given seed with probability 1e-4, while every broken variant we
 * tried gives p < 1e-20 at these sample sizes. */
#define P_MIN 1e-4

/* Sample sizes: 10^6 draws for chi-square tests (a bin of probability 1e-3 still expects 1000),
 * 5*10^5 for KS tests (sorting dominates; at p = 1e-4 D detects CDF errors of about 0.003). */
#define N_CHI2 1000000
#define N_KS 500000

#define SEED 0x5eed0fc0ffee1234ULL

/* Check records a mark point on every assertion, a system call in fork mode: loops over many
 * draws count their violations and assert once afterwards. */
#define COUNT_UNLESS(bad, cond) ((bad) += !(cond))

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* Determinism and stream layout                                                              */

/* Philox4x64-10 at counter 0 and key 0: the known-answer vector of Random123 (kat_vectors). */
START_TEST(test_philox_kat)
{
    static const uint64_t kat[4] = {0x16554d9eca36314cULL, 0xdb20fe9d672d0fdcULL,
                                    0xd7e772cee186176bULL, 0x7e68b68aec7ba23bULL};
    cs_rng r;
    cs_rng_init(&r, 0, CS_RNG_TEST, 0, 0);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(cs_rng_u64(&r), kat[i]);
}
END_TEST

/* Key = {seed, id}, counter = {block, domain, sub, 0}, the four words of a block in order. */
START_TEST(test_key_counter_layout)
{
    static const struct {
        uint64_t seed, id, sub, block;
        cs_rng_domain domain;
    } cases[] = {
        {1, 2, 3, 0, CS_RNG_PAGE},
        {SEED, 123456789, 0, 7, CS_RNG_LINKS},
        {UINT64_MAX, UINT64_MAX, UINT64_MAX, 1000000, CS_RNG_ANCHOR},
        {0, 0, 5, 3, CS_RNG_CHANGES},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_rng r;
        cs_rng_init(&r, cases[c].seed, cases[c].domain, cases[c].id, cases[c].sub);
        cs_rng_seek(&r, cases[c].block);
        for (uint64_t b = cases[c].block; b < cases[c].block + 3; b++) {
            philox4x64_ctr_t ctr = {{b, (uint64_t)cases[c].domain, cases[c].sub, 0}};
            philox4x64_key_t key = {{cases[c].seed, cases[c].id}};
            philox4x64_ctr_t want = philox4x64(ctr, key);
            for (int i = 0; i < 4; i++)
                ck_assert_uint_eq(cs_rng_u64(&r), want.v[i]);
        }
    }
}
END_TEST

/* Draws a mix of every distribution, so that reproducibility covers their word consumption. */
static void draw_mix(cs_rng *r, const cs_zipf *z, const cs_alias *a, uint64_t out[16])
{
    union {
        double d;
        uint64_t u;
    } v;
    out[0] = cs_rng_u64(r);
    v.d = cs_rng_uniform(r);
    out[1] = v.u;
    v.d = cs_rng_uniform_pos(r);
    out[2] = v.u;
    out[3] = cs_rng_below(r, 1000003);
    out[4] = (uint64_t)cs_rng_bernoulli(r, 0.4);
    v.d = cs_rng_normal(r);
    out[5] = v.u;
    v.d = cs_rng_lognormal(r, 1.0, 0.5);
    out[6] = v.u;
    v.d = cs_rng_exponential(r, 3.0);
    out[7] = v.u;
    out[8] = cs_rng_poisson(r, 4.5);
    out[9] = cs_rng_poisson(r, 250.0);
    v.d = cs_rng_pareto(r, 1.0, 2.2);
    out[10] = v.u;
    v.d = cs_rng_power_bounded(r, 1.0, 50.0, 1.7);
    out[11] = v.u;
    out[12] = cs_zipf_draw(z, r);
    out[13] = (uint64_t)cs_alias_draw(a, r);
    out[14] = cs_rng_u64(r);
    out[15] = cs_rng_below(r, 3);
}

START_TEST(test_same_key_same_sequence)
{
    cs_zipf z;
    cs_alias a;
    static const double w[] = {0.5, 1.0, 0.0, 2.5};
    ck_assert_int_eq(cs_zipf_init(&z, 1000, 1.1), CS_OK);
    ck_assert_int_eq(cs_alias_init(&a, w, 4), CS_OK);
    cs_rng r1, r2;
    cs_rng_init(&r1, SEED, CS_RNG_PAGE, 42, 7);
    cs_rng_init(&r2, SEED, CS_RNG_PAGE, 42, 7);
    int bad = 0;
    for (int rep = 0; rep < 200; rep++) {
        uint64_t x1[16], x2[16];
        draw_mix(&r1, &z, &a, x1);
        draw_mix(&r2, &z, &a, x2);
        for (int i = 0; i < 16; i++)
            COUNT_UNLESS(bad, x1[i] == x2[i]);
    }
    ck_assert_int_eq(bad, 0);
    cs_alias_fini(&a);
}
END_TEST

/* Streams differing in exactly one of seed, domain, id, sub share no word among their first 64
 * (a collision among 6*64 random 64-bit words has probability about 4e-15). */
START_TEST(test_keys_differ)
{
    enum { S = 6, W = 64 };
    cs_rng r[S];
    cs_rng_init(&r[0], SEED, CS_RNG_PAGE, 10, 0);
    cs_rng_init(&r[1], SEED + 1, CS_RNG_PAGE, 10, 0);
    cs_rng_init(&r[2], SEED, CS_RNG_LINKS, 10, 0);
    cs_rng_init(&r[3], SEED, CS_RNG_PAGE, 11, 0);
    cs_rng_init(&r[4], SEED, CS_RNG_PAGE, 10, 1);
    /* Swapping id and sub must not give the same stream. */
    cs_rng_init(&r[5], SEED, CS_RNG_PAGE, 0, 10);
    uint64_t w[S][W];
    for (int s = 0; s < S; s++)
        for (int i = 0; i < W; i++)
            w[s][i] = cs_rng_u64(&r[s]);
    for (int s = 0; s < S; s++)
        for (int t = s + 1; t < S; t++) {
            int shared = 0;
            for (int i = 0; i < W; i++)
                for (int j = 0; j < W; j++)
                    COUNT_UNLESS(shared, w[s][i] != w[t][j]);
            ck_assert_msg(shared == 0, "streams %d and %d share %d words", s, t, shared);
        }
}
END_TEST

START_TEST(test_seek)
{
    enum { B = 16 };
    uint64_t ref[4 * B];
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_HOST, 99, 3);
    for (int i = 0; i < 4 * B; i++)
        ref[i] = cs_rng_u64(&r);
    /* Forward, backward, and from the middle of a buffered block. */
    static const uint64_t order[] = {5, 0, 15, 3, 3, 9, 1};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
        (void)cs_rng_u64(&r); /* leave a partly used buffer behind */
        cs_rng_seek(&r, order[o]);
        int bad = 0;
        for (uint64_t i = 4 * order[o]; i < 4 * B; i++)
            COUNT_UNLESS(bad, cs_rng_u64(&r) == ref[i]);
        ck_assert_msg(bad == 0, "seek(%llu): %d words differ", (unsigned long long)order[o], bad);
    }
    /* A fresh stream sought to block 0 is the stream itself. */
    cs_rng s;
    cs_rng_init(&s, SEED, CS_RNG_HOST, 99, 3);
    cs_rng_seek(&s, 0);
    ck_assert_uint_eq(cs_rng_u64(&s), ref[0]);
}
END_TEST

/* A stream's values do not depend on other streams created or drawn from in between. */
START_TEST(test_interleaving_independent)
{
    cs_zipf z;
    cs_alias a;
    static const double w[] = {3.0, 1.0, 4.0, 1.0, 5.0};
    ck_assert_int_eq(cs_zipf_init(&z, 50, 0.9), CS_OK);
    ck_assert_int_eq(cs_alias_init(&a, w, 5), CS_OK);
    enum { REP = 100 };
    uint64_t alone[REP][16];
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TERMS, 5, 0);
    for (int k = 0; k < REP; k++)
        draw_mix(&r, &z, &a, alone[k]);

    cs_rng_init(&r, SEED, CS_RNG_TERMS, 5, 0);
    cs_rng other;
    cs_rng_init(&other, SEED, CS_RNG_TERMS, 6, 0);
    int bad = 0;
    for (int k = 0; k < REP; k++) {
        uint64_t x[16], junk[16];
        for (int j = 0; j < k % 7; j++)
            draw_mix(&other, &z, &a, junk);
        cs_rng fresh;
        cs_rng_init(&fresh, SEED, CS_RNG_TERMS, 5, (uint64_t)k + 1);
        (void)cs_rng_normal(&fresh);
        draw_mix(&r, &z, &a, x);
        for (int i = 0; i < 16; i++)
            COUNT_UNLESS(bad, x[i] == alone[k][i]);
    }
    ck_assert_int_eq(bad, 0);
    cs_alias_fini(&a);
}
END_TEST

/* The 64-bit fallback of the 128-bit product agrees with the compiler's 128-bit integers. */
START_TEST(test_mul64_portable)
{
    static const uint64_t edge[] = {
        0, 1, 2, 0xffffffffULL, 0x100000000ULL, UINT64_MAX, UINT64_MAX - 1, 0x8000000000000000ULL};
    const size_t ne = sizeof edge / sizeof edge[0];
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 0, 0);
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t x = i < (int)(ne * ne) ? edge[(size_t)i / ne] : cs_rng_u64(&r);
        uint64_t y = i < (int)(ne * ne) ? edge[(size_t)i % ne] : cs_rng_u64(&r);
        uint64_t lo1, lo2;
        uint64_t hi1 = cs_rng_mul64_portable_(x, y, &lo1);
        COUNT_UNLESS(bad, lo1 == x * y);
#if defined(__SIZEOF_INT128__)
        __extension__ unsigned __int128 m = (unsigned __int128)x * y;
        COUNT_UNLESS(bad, hi1 == (uint64_t)(m >> 64));
#endif
        uint64_t hi2 = cs_rng_mul64_(x, y, &lo2);
        COUNT_UNLESS(bad, hi1 == hi2 && lo1 == lo2);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/*
 * Pinned outputs. Generated worlds are a pure function of the seed through these algorithms; if
 * this test fails after a deliberate change of an algorithm, every world changes with it: update
 * the values only together with a note in the change log. Only integer-valued outputs are pinned,
 * which libm rounding differences between platforms cannot move except in astronomically rare
 * boundary cases.
 */
START_TEST(test_pinned_values)
{
    static const uint64_t want_below[8] = {725213023, 831095339, 991761449, 129473659,
                                           606675393, 257338139, 535122425, 693877097};
    static const uint64_t want_poisson[8] = {116, 4, 102, 5, 131, 4, 130, 2};
    static const uint64_t want_zipf[8] = {22, 215, 5355, 161, 1527, 474292, 465691, 322706};
    static const int64_t want_alias[8] = {3, 2, 3, 1, 1, 3, 1, 0};
    static const double w[] = {1.0, 2.0, 3.0, 4.0};
    cs_zipf z;
    cs_alias a;
    ck_assert_int_eq(cs_zipf_init(&z, 1000000, 1.05), CS_OK);
    ck_assert_int_eq(cs_alias_init(&a, w, 4), CS_OK);
    cs_rng r;
    cs_rng_init(&r, 2024, CS_RNG_LINKS, 77, 0);
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq(cs_rng_below(&r, 1000000007), want_below[i]);
        ck_assert_uint_eq(cs_rng_poisson(&r, i % 2 ? 3.5 : 120.0), want_poisson[i]);
        ck_assert_uint_eq(cs_zipf_draw(&z, &r), want_zipf[i]);
        ck_assert_int_eq(cs_alias_draw(&a, &r), want_alias[i]);
    }
    cs_alias_fini(&a);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Uniform variates and integers                                                              */

static double cdf_uniform(double x, const void *par)
{
    (void)par;
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

START_TEST(test_uniform_ks)
{
    double *x = xmalloc(N_KS * sizeof *x);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 1, 0);
    int bad = 0;
    for (int i = 0; i < N_KS; i++) {
        x[i] = cs_rng_uniform(&r);
        COUNT_UNLESS(bad, x[i] >= 0.0 && x[i] < 1.0);
    }
    ck_assert_int_eq(bad, 0);
    st_ks ks = st_ks_test(x, N_KS, cdf_uniform, NULL);
    ck_assert_msg(ks.p > P_MIN, "uniform: D = %g, p = %g", ks.d, ks.p);

    for (int i = 0; i < N_KS; i++) {
        x[i] = cs_rng_uniform_pos(&r);
        COUNT_UNLESS(bad, x[i] > 0.0 && x[i] <= 1.0);
    }
    ck_assert_int_eq(bad, 0);
    ks = st_ks_test(x, N_KS, cdf_uniform, NULL);
    ck_assert_msg(ks.p > P_MIN, "uniform_pos: D = %g, p = %g", ks.d, ks.p);
    free(x);
}
END_TEST

/* The exact constructions: uniform = (w >> 11) 2^-53, uniform_pos = ((w >> 11) + 1) 2^-53 and
 * bernoulli(p) = [uniform < p], each from one word w, in stream order. */
START_TEST(test_uniform_construction)
{
    enum { W = 1000 };
    uint64_t w[W];
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 22, 0);
    for (int i = 0; i < W; i++)
        w[i] = cs_rng_u64(&r);
    cs_rng_seek(&r, 0);
    int bad = 0;
    for (int i = 0; i + 2 < W; i += 3) {
        COUNT_UNLESS(bad, cs_rng_uniform(&r) == (double)(w[i] >> 11) * 0x1.0p-53);
        COUNT_UNLESS(bad, cs_rng_uniform_pos(&r) == (double)((w[i + 1] >> 11) + 1) * 0x1.0p-53);
        COUNT_UNLESS(bad,
                     cs_rng_bernoulli(&r, 0.3) == ((double)(w[i + 2] >> 11) * 0x1.0p-53 < 0.3));
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_uniform_moments)
{
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 2, 0);
    for (int i = 0; i < N_CHI2; i++)
        st_moments_add(&m, cs_rng_uniform(&r));
    double n = m.n;
    /* Mean 1/2, variance 1/12: standard error sqrt(1/(12 n)); allow 5 standard errors (a
     * correct generator fails with probability 6e-7). */
    ck_assert_double_le(fabs(m.mean - 0.5), 5.0 * sqrt(1.0 / (12.0 * n)));
    /* Var(s^2) ~ (mu4 - sigma^4) / n with mu4 = 1/80 for U(0,1); 5 standard errors. */
    ck_assert_double_le(fabs(st_moments_var(&m) - 1.0 / 12.0),
                        5.0 * sqrt((1.0 / 80.0 - 1.0 / 144.0) / n));
    /* The 53-bit construction uses the high bits: the low bit of the mantissa must vary. */
    int odd = 0;
    for (int i = 0; i < 64; i++)
        odd += (int)((uint64_t)(cs_rng_uniform(&r) * 0x1.0p53) & 1);
    ck_assert(odd > 0 && odd < 64);
}
END_TEST

/* Chi-square of below(n) over n bins. */
static st_chi2 below_chi2(uint64_t seed, uint64_t n, int draws)
{
    uint64_t *obs = calloc(n, sizeof *obs);
    double *prob = xmalloc(n * sizeof *prob);
    ck_assert_ptr_nonnull(obs);
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_TEST, 3, n);
    int bad = 0;
    for (int i = 0; i < draws; i++) {
        uint64_t v = cs_rng_below(&r, n);
        COUNT_UNLESS(bad, v < n);
        obs[v < n ? v : 0]++;
    }
    ck_assert_int_eq(bad, 0);
    for (uint64_t i = 0; i < n; i++)
        prob[i] = 1.0 / (double)n;
    st_chi2 c = st_chi2_test(obs, prob, n, (uint64_t)draws);
    free(prob);
    free(obs);
    return c;
}

START_TEST(test_below_small_chi2)
{
    static const uint64_t ns[] = {2, 7, 10, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        st_chi2 c = below_chi2(SEED, ns[i], N_CHI2);
        ck_assert_msg(c.p > P_MIN, "below(%llu): chi2 = %g, df = %d, p = %g",
                      (unsigned long long)ns[i], c.chi2, c.df, c.p);
    }
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 4, 0);
    int bad = 0;
    for (int i = 0; i < 1000; i++)
        COUNT_UNLESS(bad, cs_rng_below(&r, 1) == 0);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/*
 * Large n exposes the bias that Lemire's rejection step removes. With n about 2^64 * 2/3, plain
 * x % n puts twice the mass on [0, n/2), and the multiply-shift variant without rejection gives
 * even values two preimages and odd values one. Bins: four ranges of equal width times parity,
 * 10^5 draws.
 */
START_TEST(test_below_large_chi2)
{
    static const uint64_t ns[] = {0xaaaaaaaaaaaaaaabULL, 0x8000000000000001ULL, UINT64_MAX,
                                  0x5555555555555556ULL};
    enum { DRAWS = 100000, RANGES = 4, BINS = 2 * RANGES };
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        uint64_t n = ns[t];
        uint64_t obs[BINS] = {0};
        double prob[BINS];
        uint64_t width = n / RANGES; /* the last range takes the remainder of at most 3 values */
        cs_rng r;
        cs_rng_init(&r, SEED, CS_RNG_TEST, 5, t);
        int bad = 0;
        for (int i = 0; i < DRAWS; i++) {
            uint64_t v = cs_rng_below(&r, n);
            COUNT_UNLESS(bad, v < n);
            uint64_t b = v / width;
            obs[2 * (b < RANGES ? b : RANGES - 1) + (v & 1)]++;
        }
        ck_assert_int_eq(bad, 0);
        for (int b = 0; b < BINS; b++)
            prob[b] = 1.0 / BINS; /* a remainder of 3 values in 2^63: invisible */
        st_chi2 c = st_chi2_test(obs, prob, BINS, DRAWS);
        ck_assert_msg(c.p > P_MIN, "below(%#llx): chi2 = %g, p = %g", (unsigned long long)n, c.chi2,
                      c.p);
    }
}
END_TEST

START_TEST(test_bernoulli)
{
    static const double ps[] = {0.3, 0.5, 0.999, 1e-3};
    for (size_t t = 0; t < sizeof ps / sizeof ps[0]; t++) {
        uint64_t obs[2] = {0, 0};
        double prob[2] = {1.0 - ps[t], ps[t]};
        cs_rng r;
        cs_rng_init(&r, SEED, CS_RNG_TEST, 6, t);
        for (int i = 0; i < N_CHI2; i++)
            obs[cs_rng_bernoulli(&r, ps[t])]++;
        st_chi2 c = st_chi2_test(obs, prob, 2, N_CHI2);
        ck_assert_msg(c.p > P_MIN, "bernoulli(%g): %llu ones, p = %g", ps[t],
                      (unsigned long long)obs[1], c.p);
    }
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 7, 0);
    int bad = 0;
    for (int i = 0; i < 10000; i++) {
        COUNT_UNLESS(bad, cs_rng_bernoulli(&r, 0.0) == 0);
        COUNT_UNLESS(bad, cs_rng_bernoulli(&r, 1.0) == 1);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Continuous distributions                                                                   */

static double cdf_normal(double x, const void *par)
{
    (void)par;
    return 0.5 * erfc(-x / sqrt(2.0));
}

START_TEST(test_normal)
{
    double *x = xmalloc(N_KS * sizeof *x);
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 8, 0);
    for (int i = 0; i < N_KS; i++) {
        x[i] = cs_rng_normal(&r);
        st_moments_add(&m, x[i]);
    }
    double n = m.n;
    /* Mean 0, standard error 1/sqrt(n); 5 standard errors. */
    ck_assert_double_le(fabs(m.mean), 5.0 / sqrt(n));
    /* Var(s^2) = 2 sigma^4 / (n - 1) for normal data; 5 standard errors. */
    ck_assert_double_le(fabs(st_moments_var(&m) - 1.0), 5.0 * sqrt(2.0 / (n - 1.0)));
    st_ks ks = st_ks_test(x, N_KS, cdf_normal, NULL);
    ck_assert_msg(ks.p > P_MIN, "normal: D = %g, p = %g", ks.d, ks.p);
    free(x);
}
END_TEST

/* The ziggurat: the same tests as Box-Muller, plus the tail beyond the base strip (R = 3.4426,
 * P(|z| > R) = 5.76e-4) and beyond 4, where a wrong wedge or tail sampler shows first. */
/* The ziggurat's constant tables are the values of their construction (Marsaglia and Tsang,
 * 2000, as in Doornik 2005) on this machine's libm, bit for bit: the program that writes them. */
START_TEST(test_zig_tables)
{
    enum { NZ = 128 };
    const double R = 3.442619855899, V = 9.91256303526217e-3, M = 36028797018963968.0;
    int64_t k[NZ];
    double w[NZ], f[NZ];
    double dn = R, tn = dn;
    const double q = V / exp(-0.5 * dn * dn);
    k[0] = (int64_t)((dn / q) * M);
    k[1] = 0;
    w[0] = q / M;
    w[NZ - 1] = dn / M;
    f[0] = 1.0;
    f[NZ - 1] = exp(-0.5 * dn * dn);
    for (int i = NZ - 2; i >= 1; i--) {
        dn = sqrt(-2.0 * log(V / dn + exp(-0.5 * dn * dn)));
        k[i + 1] = (int64_t)((dn / tn) * M);
        tn = dn;
        f[i] = exp(-0.5 * dn * dn);
        w[i] = dn / M;
    }
    for (int i = 0; i < NZ; i++) {
        ck_assert_msg(k[i] == zig_k[i], "zig_k[%d] = %lld, the construction gives %lld", i,
                      (long long)zig_k[i], (long long)k[i]);
        ck_assert_msg(memcmp(&w[i], &zig_w[i], sizeof w[i]) == 0, "zig_w[%d] = %a, not %a", i,
                      zig_w[i], w[i]);
        ck_assert_msg(memcmp(&f[i], &zig_f[i], sizeof f[i]) == 0, "zig_f[%d] = %a, not %a", i,
                      zig_f[i], f[i]);
    }
}
END_TEST

START_TEST(test_normal_zig)
{
    enum { N_TAIL = 4000000 };
    double *x = xmalloc(N_KS * sizeof *x);
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 18, 0);
    for (int i = 0; i < N_KS; i++) {
        x[i] = cs_rng_normal_zig(&r);
        st_moments_add(&m, x[i]);
    }
    double n = m.n;
    ck_assert_double_le(fabs(m.mean), 5.0 / sqrt(n));
    ck_assert_double_le(fabs(st_moments_var(&m) - 1.0), 5.0 * sqrt(2.0 / (n - 1.0)));
    st_ks ks = st_ks_test(x, N_KS, cdf_normal, NULL);
    ck_assert_msg(ks.p > P_MIN, "normal_zig: D = %g, p = %g", ks.d, ks.p);
    free(x);

    const double R = 3.442619855899;
    int64_t beyond_r = 0, beyond_4 = 0, positive = 0;
    for (int i = 0; i < N_TAIL; i++) {
        double z = cs_rng_normal_zig(&r);
        beyond_r += fabs(z) > R;
        beyond_4 += fabs(z) > 4.0;
        positive += z > 0.0;
    }
    const double p_r = erfc(R / sqrt(2.0)), p_4 = erfc(4.0 / sqrt(2.0));
    /* binomial counts: 5 standard errors */
    ck_assert_double_le(fabs((double)beyond_r - N_TAIL * p_r), 5.0 * sqrt(N_TAIL * p_r));
    ck_assert_double_le(fabs((double)beyond_4 - N_TAIL * p_4), 5.0 * sqrt(N_TAIL * p_4));
    ck_assert_double_le(fabs((double)positive - 0.5 * N_TAIL), 5.0 * sqrt(0.25 * N_TAIL));
}
END_TEST

/* libm's Box-Muller draw from two words, as cs_rng_normal makes it. */
static double libm_box_muller(uint64_t w1, uint64_t w2)
{
    const double u1 = (double)((w1 >> 11) + 1) * 0x1.0p-53;
    const double u2 = (double)(w2 >> 11) * 0x1.0p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
}

/* cs_rng_normal is Box-Muller on two words, u1 = (w1 >> 11) + 1 and u2 = w2 >> 11 times 2^-53,
 * sqrt(-2 log u1) cos(2 pi u2): the generator's term vectors and page attributes depend on these
 * bits. cs_rng_normals gives n one-by-one draws bit for bit from any position of the stream (an
 * odd one: the first pair straddles two blocks), and leaves the stream where they leave it. */
START_TEST(test_normals_batch)
{
    static const int64_t ns[] = {0, 1, 2, 3, 7, 16, 33};
    int bad = 0;
    for (int skip = 0; skip < 6; skip++)
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            cs_rng a, b, w;
            cs_rng_init(&a, SEED, CS_RNG_TERMS, 99, (uint64_t)skip);
            b = a;
            w = a;
            for (int i = 0; i < skip; i++) {
                (void)cs_rng_u64(&a);
                (void)cs_rng_u64(&b);
                (void)cs_rng_u64(&w);
            }
            double z[40];
            cs_rng_normals(&a, ns[k], z);
            for (int64_t i = 0; i < ns[k]; i++) {
                const double one = cs_rng_normal(&b);
                const uint64_t w1 = cs_rng_u64(&w), w2 = cs_rng_u64(&w);
                const double want = libm_box_muller(w1, w2);
                bad += memcmp(&one, &want, sizeof want) != 0;
                bad += memcmp(&z[i], &want, sizeof want) != 0;
            }
            COUNT_UNLESS(bad, cs_rng_u64(&a) == cs_rng_u64(&b));
        }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* cs_rng_words gives the words n cs_rng_u64 calls give, from any position, whole Philox blocks
 * and partial ones, and leaves the stream where they do. */
START_TEST(test_words)
{
    static const int64_t ns[] = {0, 1, 3, 4, 5, 8, 15, 16, 17, 31, 32, 33, 64, 67};
    int bad = 0;
    for (int skip = 0; skip < 6; skip++)
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            cs_rng a, b;
            cs_rng_init(&a, SEED, CS_RNG_TERMS, 7, (uint64_t)skip);
            for (int i = 0; i < skip; i++)
                (void)cs_rng_u64(&a);
            b = a;
            uint64_t w[80];
            cs_rng_words(&a, ns[k], w);
            for (int64_t i = 0; i < ns[k]; i++)
                COUNT_UNLESS(bad, w[i] == cs_rng_u64(&b));
            for (int i = 0; i < 9; i++)
                COUNT_UNLESS(bad, cs_rng_u64(&a) == cs_rng_u64(&b));
        }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The approximation behind cs_rng_normals_f32 stays within 1e-13 of libm's draw (its floats are
 * exact as long as the error stays below the check's tolerance, 2^-40 (|base| + 10 |scale|)
 * over |scale|, at least 1.4e-10): on 2 x 10^6 random pairs of words and on the ends of both
 * uniforms and the quarter and eighth turns of the cosine, where its reductions change branch. */
START_TEST(test_normal_approx_error)
{
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 41, 0);
    static const uint64_t edge2[] = {0,
                                     1ULL << 11,
                                     1ULL << 59, /* u2 = 1/16 */
                                     (1ULL << 60) - (1ULL << 11),
                                     1ULL << 60, /* 1/8: the nearest quarter's tie */
                                     (1ULL << 60) + (1ULL << 11),
                                     1ULL << 62, /* 1/4 */
                                     3ULL << 60, /* 3/8 */
                                     1ULL << 63, /* 1/2 */
                                     5ULL << 60,
                                     3ULL << 62,
                                     7ULL << 60,
                                     UINT64_MAX};
    static const uint64_t edge1[] = {
        0,          1ULL << 11,       5ULL << 11, 1ULL << 40,
        1ULL << 52, (1ULL << 63) - 1, 1ULL << 63, UINT64_MAX - (1ULL << 11),
        UINT64_MAX};
    double worst = 0.0;
    for (size_t a = 0; a < sizeof edge1 / sizeof *edge1; a++)
        for (size_t b = 0; b < sizeof edge2 / sizeof *edge2; b++) {
            const double d = fabs(cs_rng_normal_approx(edge1[a], edge2[b]) -
                                  libm_box_muller(edge1[a], edge2[b]));
            worst = d > worst || d != d ? d : worst;
        }
    for (int i = 0; i < 2000000; i++) {
        const uint64_t w1 = cs_rng_u64(&r), w2 = cs_rng_u64(&r);
        const double d = fabs(cs_rng_normal_approx(w1, w2) - libm_box_muller(w1, w2));
        worst = d > worst || d != d ? d : worst;
    }
    printf("check_rng: the approximated Box-Muller draws' largest error: %.3g\n", worst);
    ck_assert_msg(worst <= 1e-13, "approximation error %g above 1e-13", worst);
}
END_TEST

/* One kernel's floats against libm's (test_normals_f32). */
static void normals_f32_case(const char *kernel)
{
    static const int64_t ns[] = {1, 2, 3, 16, 31, 32, 33, 100};
    static const double scales[] = {0.25, 1.0, 0.01, -0.5, 3.0};
    cs_rng br;
    cs_rng_init(&br, SEED, CS_RNG_TEST, 43, 0);
    float base[100], f[100];
    double z[100];
    int64_t bad = 0, redrawn = 0, draws = 0;
    for (int page = 0; page < 16000; page++) {
        const int64_t n = ns[page % 8];
        const double scale = scales[page % 5];
        const int skip = page % 3;
        for (int64_t i = 0; i < n; i++) /* prototypes' values, zeros and tiny ones included */
            base[i] = i % 7 == 6   ? 0.0f
                      : i % 7 == 5 ? (float)(1e-6 * cs_rng_normal(&br))
                                   : (float)(0.4 * cs_rng_normal(&br));
        cs_rng a, b;
        cs_rng_init(&a, SEED, CS_RNG_TERMS, (uint64_t)page, 0);
        for (int i = 0; i < skip; i++)
            (void)cs_rng_u64(&a);
        b = a;
        redrawn += cs_rng_normals_f32(&a, n, base, scale, f);
        cs_rng_normals(&b, n, z);
        for (int64_t i = 0; i < n; i++) {
            const float want = (float)((double)base[i] + scale * z[i]);
            bad += memcmp(&want, &f[i], sizeof want) != 0;
        }
        COUNT_UNLESS(bad, cs_rng_u64(&a) == cs_rng_u64(&b));
        draws += n;
    }
    printf("check_rng: %s kernel: %lld of %lld float draws through libm\n", kernel,
           (long long)redrawn, (long long)draws);
    ck_assert_int_eq(bad, 0);
    ck_assert_int_gt(draws, 400000);
    /* the slow path is taken, and rarely (tiny bases make most of it) */
    ck_assert_int_gt(redrawn, 100);
    ck_assert_int_lt(redrawn, draws / 10);
}

/* cs_rng_normals_f32 gives the floats of libm's draws for any length, position, base and scale
 * (4 x 10^5 draws with each kernel this CPU runs: hundreds go through the check's slow path) and
 * leaves the stream where cs_rng_normals does. */
START_TEST(test_normals_f32)
{
    static const char *const kernel[] = {"base", "avx2", "avx512"};
    int ran = 0;
    for (int k = 0; k < 3; k++) {
        if (cs_rng_normals_f32_kernel(kernel[k]) == NULL) {
            printf("check_rng: the %s kernel of the float normals: not on this CPU\n", kernel[k]);
            continue;
        }
        normals_f32_case(kernel[k]);
        ran++;
    }
    ck_assert_ptr_nonnull(cs_rng_normals_f32_kernel(NULL));
    ck_assert_int_ge(ran, 1);
    ck_assert_ptr_null(cs_rng_normals_f32_kernel("sse9"));
}
END_TEST

/* cs_rng_normals_zig gives n cs_rng_normal_zig draws bit for bit from any position, the slow
 * draws (wedge, tail: a few in 100 of 4000) included, and leaves the stream where they do. */
START_TEST(test_normals_zig_batch)
{
    enum { N = 4000 };
    double *z = xmalloc(N * sizeof *z);
    int bad = 0;
    for (int skip = 0; skip < 5; skip++) {
        cs_rng a, b;
        cs_rng_init(&a, SEED, CS_RNG_TERMS, 98, (uint64_t)skip);
        for (int i = 0; i < skip; i++)
            (void)cs_rng_u64(&a);
        b = a;
        cs_rng_normals_zig(&a, N, z);
        for (int i = 0; i < N; i++) {
            const double want = cs_rng_normal_zig(&b);
            bad += memcmp(&z[i], &want, sizeof want) != 0;
        }
        COUNT_UNLESS(bad, cs_rng_u64(&a) == cs_rng_u64(&b));
        COUNT_UNLESS(bad, b.ctr[0] * 4 > N + (uint64_t)skip + 4); /* slow draws took words */
    }
    free(z);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The batch of first draws of many streams is bit-identical to drawing them one by one,
 * including the streams whose draws leave the fast path (wedge, tail, or more than one block),
 * and for m beyond one Philox block (m = 5: sarsa.categories = 4 asks for 1 + 4 draws). */
START_TEST(test_normal_zig_batch)
{
    enum { N = 20000 };
    int64_t *subs = xmalloc(N * sizeof *subs);
    double *z = xmalloc((size_t)N * 6 * sizeof *z);
    for (int i = 0; i < N; i++)
        subs[i] = (int64_t)(cs_mix64((uint64_t)i) >> 20);
    for (int m = 1; m <= 6; m++) {
        cs_rng_normals_zig_batch(SEED, CS_RNG_ANCHOR, 77, subs, N, m, z);
        int bad = 0, slow = 0;
        for (int i = 0; i < N; i++) {
            cs_rng r;
            cs_rng_init(&r, SEED, CS_RNG_ANCHOR, 77, (uint64_t)subs[i]);
            for (int j = 0; j < m; j++) {
                double want = cs_rng_normal_zig(&r);
                bad += memcmp(&want, &z[i * m + j], sizeof want) != 0;
            }
            slow += r.ctr[0] > 1 || r.used > (unsigned)m; /* more words than the fast path */
        }
        ck_assert_msg(bad == 0, "m = %d: %d draws differ", m, bad);
        ck_assert_msg(slow > 0, "m = %d: no stream left the fast path: the slow branch untested",
                      m);
    }
    free(subs);
    free(z);
}
END_TEST

typedef struct lognormal_par {
    double mu, sigma;
} lognormal_par;

static double cdf_lognormal(double x, const void *par)
{
    const lognormal_par *p = par;
    return x <= 0.0 ? 0.0 : cdf_normal((log(x) - p->mu) / p->sigma, NULL);
}

START_TEST(test_lognormal)
{
    lognormal_par par = {0.5, 0.8};
    double *x = xmalloc(N_KS * sizeof *x);
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 9, 0);
    for (int i = 0; i < N_KS; i++) {
        x[i] = cs_rng_lognormal(&r, par.mu, par.sigma);
        st_moments_add(&m, x[i]);
    }
    /* Mean exp(mu + sigma^2/2), variance (exp(sigma^2) - 1) exp(2 mu + sigma^2); 5 standard
     * errors of the mean. */
    double s2 = par.sigma * par.sigma;
    double mean = exp(par.mu + 0.5 * s2), var = (exp(s2) - 1.0) * exp(2.0 * par.mu + s2);
    ck_assert_double_le(fabs(m.mean - mean), 5.0 * sqrt(var / m.n));
    st_ks ks = st_ks_test(x, N_KS, cdf_lognormal, &par);
    ck_assert_msg(ks.p > P_MIN, "lognormal: D = %g, p = %g", ks.d, ks.p);
    free(x);
}
END_TEST

/* The normal quantile: reference values (to 16 digits), the symmetry, the round trip through
 * erfc over the whole range of a double uniform, the ends. */
START_TEST(test_normal_quantile)
{
    static const struct {
        double u, z;
    } ref[] = {{0.5, 0.0},
               {0.975, 1.959963984540054},
               {0.8413447460685429, 1.0},
               {0.02275013194817921, -2.0},
               {1e-10, -6.361340902404056},
               {1e-300, -37.0470962993612}};
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        const double z = cs_normal_quantile(ref[i].u);
        ck_assert_msg(fabs(z - ref[i].z) <= 1e-13 * fmax(1.0, fabs(ref[i].z)),
                      "quantile of %g: %.17g against %.17g", ref[i].u, z, ref[i].z);
    }
    double worst = 0.0;
    for (int k = 1; k < 4000; k++) { /* u from 2^-60 to 1 - 2^-40, log-spaced at both ends */
        const double t = (double)k / 4000.0;
        const double u = k < 2000 ? ldexp(1.0, -(int)(60.0 * (1.0 - 2.0 * t))) * 0.5
                                  : 1.0 - ldexp(1.0, -(int)(40.0 * (2.0 * t - 1.0))) * 0.5;
        const double z = cs_normal_quantile(u);
        const double back = u < 0.5 ? 0.5 * erfc(-z / sqrt(2.0)) : 0.5 * erfc(z / sqrt(2.0));
        const double err = fabs(back - (u < 0.5 ? u : 1.0 - u)) / (u < 0.5 ? u : 1.0 - u);
        worst = fmax(worst, err);
    }
    ck_assert_msg(worst < 1e-12, "quantile round trip: relative error %g", worst);
    ck_assert_msg(fabs(cs_normal_quantile(0.3) + cs_normal_quantile(0.7)) < 1e-15,
                  "quantile not symmetric");
    ck_assert(isinf(cs_normal_quantile(0.0)) && cs_normal_quantile(0.0) < 0.0);
    ck_assert(isinf(cs_normal_quantile(1.0)) && cs_normal_quantile(1.0) > 0.0);
}
END_TEST

static double cdf_exponential(double x, const void *par)
{
    double rate = *(const double *)par;
    return x <= 0.0 ? 0.0 : -expm1(-rate * x);
}

START_TEST(test_exponential)
{
    const double rate = 2.5;
    double *x = xmalloc(N_KS * sizeof *x);
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 10, 0);
    int bad = 0;
    for (int i = 0; i < N_KS; i++) {
        x[i] = cs_rng_exponential(&r, rate);
        COUNT_UNLESS(bad, x[i] >= 0.0 && isfinite(x[i]));
        st_moments_add(&m, x[i]);
    }
    ck_assert_int_eq(bad, 0);
    double n = m.n;
    /* Mean 1/rate with standard error 1/(rate sqrt(n)); 5 standard errors. */
    ck_assert_double_le(fabs(m.mean - 1.0 / rate), 5.0 / (rate * sqrt(n)));
    /* Var(s^2) ~ (mu4 - sigma^4)/n = 8 / (rate^4 n) (mu4 = 9/rate^4); 5 standard errors. */
    ck_assert_double_le(fabs(st_moments_var(&m) - 1.0 / (rate * rate)),
                        5.0 * sqrt(8.0 / n) / (rate * rate));
    st_ks ks = st_ks_test(x, N_KS, cdf_exponential, &rate);
    ck_assert_msg(ks.p > P_MIN, "exponential: D = %g, p = %g", ks.d, ks.p);
    free(x);
}
END_TEST

typedef struct pareto_par {
    double xmin, alpha;
} pareto_par;

static double cdf_pareto(double x, const void *par)
{
    const pareto_par *p = par;
    return x <= p->xmin ? 0.0 : 1.0 - pow(p->xmin / x, p->alpha - 1.0);
}

START_TEST(test_pareto)
{
    static const pareto_par cases[] = {{2.0, 2.5}, {1.0, 1.5}, {0.1, 6.0}};
    double *x = xmalloc(N_KS * sizeof *x);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        st_moments m = {0, 0, 0};
        cs_rng r;
        cs_rng_init(&r, SEED, CS_RNG_TEST, 11, t);
        int bad = 0;
        for (int i = 0; i < N_KS; i++) {
            x[i] = cs_rng_pareto(&r, cases[t].xmin, cases[t].alpha);
            COUNT_UNLESS(bad, x[i] >= cases[t].xmin && isfinite(x[i]));
            st_moments_add(&m, x[i]);
        }
        ck_assert_int_eq(bad, 0);
        if (cases[t].alpha > 3.0) {
            /* Tail exponent alpha - 1 > 2: finite variance, so the CLT applies. Mean
             * xmin (alpha-1)/(alpha-2), variance xmin^2 (alpha-1) / ((alpha-3)(alpha-2)^2);
             * 5 standard errors. */
            double a = cases[t].alpha, xm = cases[t].xmin;
            double mean = xm * (a - 1.0) / (a - 2.0);
            double var = xm * xm * (a - 1.0) / ((a - 3.0) * (a - 2.0) * (a - 2.0));
            ck_assert_double_le(fabs(m.mean - mean), 5.0 * sqrt(var / m.n));
        }
        st_ks ks = st_ks_test(x, N_KS, cdf_pareto, &cases[t]);
        ck_assert_msg(ks.p > P_MIN, "pareto(%g, %g): D = %g, p = %g", cases[t].xmin, cases[t].alpha,
                      ks.d, ks.p);
    }
    free(x);
}
END_TEST

typedef struct power_par {
    double xmin, xmax, alpha;
} power_par;

/* CDF of x^-alpha on [xmin, xmax], written independently of the generator's formula. */
static double cdf_power(double x, const void *par)
{
    const power_par *p = par;
    if (x <= p->xmin)
        return 0.0;
    if (x >= p->xmax)
        return 1.0;
    if (p->alpha == 1.0)
        return log(x / p->xmin) / log(p->xmax / p->xmin);
    double a = 1.0 - p->alpha;
    return (pow(x, a) - pow(p->xmin, a)) / (pow(p->xmax, a) - pow(p->xmin, a));
}

START_TEST(test_power_bounded)
{
    /* Decreasing, log-uniform, within rounding of 1 (the expm1/log1p path), and increasing. */
    static const power_par cases[] = {
        {1.0, 1000.0, 2.1}, {1.0, 1000.0, 1.0}, {3.0, 300.0, 1.0 + 1e-7}, {0.5, 8.0, -1.5}};
    double *x = xmalloc(N_KS * sizeof *x);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        cs_rng r;
        cs_rng_init(&r, SEED, CS_RNG_TEST, 12, t);
        int bad = 0;
        for (int i = 0; i < N_KS; i++) {
            x[i] = cs_rng_power_bounded(&r, cases[t].xmin, cases[t].xmax, cases[t].alpha);
            COUNT_UNLESS(bad, x[i] >= cases[t].xmin && x[i] < cases[t].xmax);
        }
        ck_assert_int_eq(bad, 0);
        st_ks ks = st_ks_test(x, N_KS, cdf_power, &cases[t]);
        ck_assert_msg(ks.p > P_MIN, "power_bounded(%g, %g, %g): D = %g, p = %g", cases[t].xmin,
                      cases[t].xmax, cases[t].alpha, ks.d, ks.p);
    }
    free(x);

    /* A range so wide that x^(1-alpha) overflows (1e300^2): draws stay finite and in range, and
     * the median is xmax / sqrt(2) (CDF (x^2 - 1)/(xmax^2 - 1)): the count below it is
     * Binomial(n, 1/2) within 5 standard errors. Likewise a steep law on it, median 2 xmin. */
    enum { N_WIDE = 100000 };
    static const power_par wide[] = {{1.0, 1e300, -1.0}, {1e-300, 1e300, 2.0}};
    const double median[] = {1e300 / sqrt(2.0), 2e-300};
    for (size_t t = 0; t < 2; t++) {
        cs_rng r;
        cs_rng_init(&r, SEED, CS_RNG_TEST, 23, t);
        int bad = 0, below = 0;
        for (int i = 0; i < N_WIDE; i++) {
            double v = cs_rng_power_bounded(&r, wide[t].xmin, wide[t].xmax, wide[t].alpha);
            COUNT_UNLESS(bad, v >= wide[t].xmin && v < wide[t].xmax);
            below += v < median[t];
        }
        ck_assert_int_eq(bad, 0);
        ck_assert_double_le(fabs(below - 0.5 * N_WIDE), 5.0 * sqrt(0.25 * N_WIDE));
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Poisson                                                                                    */

/* Chi-square of `draws` Poisson(mean) draws; bins 0..kmax-1 and a tail bin. Also checks the mean
 * and variance (both equal mean) within 5 standard errors. */
static void check_poisson(double mean, uint64_t seed, int draws)
{
    size_t kmax = (size_t)(mean + 12.0 * sqrt(mean) + 20.0);
    uint64_t *obs = calloc(kmax + 1, sizeof *obs);
    double *prob = xmalloc((kmax + 1) * sizeof *prob);
    ck_assert_ptr_nonnull(obs);
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_TEST, 13, (uint64_t)mean);
    for (int i = 0; i < draws; i++) {
        uint64_t k = cs_rng_poisson(&r, mean);
        obs[k < kmax ? k : kmax]++;
        st_moments_add(&m, (double)k);
    }
    double cdf = 0.0;
    for (size_t k = 0; k < kmax; k++) {
        prob[k] = exp((double)k * log(mean) - mean - lgamma((double)k + 1.0));
        cdf += prob[k];
    }
    prob[kmax] = cdf < 1.0 ? 1.0 - cdf : 0.0;
    st_chi2 c = st_chi2_test(obs, prob, kmax + 1, (uint64_t)draws);
    ck_assert_msg(c.p > P_MIN, "poisson(%g): chi2 = %g, df = %d, p = %g", mean, c.chi2, c.df, c.p);
    double n = m.n;
    /* Mean: standard error sqrt(mean / n); 5 standard errors. */
    ck_assert_double_le(fabs(m.mean - mean), 5.0 * sqrt(mean / n));
    /* Variance: mu4 = mean + 3 mean^2, so Var(s^2) ~ (mean + 2 mean^2) / n; 5 standard errors. */
    ck_assert_double_le(fabs(st_moments_var(&m) - mean),
                        5.0 * sqrt((mean + 2.0 * mean * mean) / n));
    free(prob);
    free(obs);
}

START_TEST(test_poisson_small)
{
    check_poisson(3.0, SEED, N_CHI2);
}
END_TEST

/* 4 * 10^6 draws (0.15 s): a mean shift of 0.025 is then 5 standard errors. */
START_TEST(test_poisson_large)
{
    check_poisson(100.0, SEED, 4 * N_CHI2);
}
END_TEST

/* Both sides of the switch from inversion to PTRS, and a tiny mean. */
START_TEST(test_poisson_edges)
{
    check_poisson(29.5, SEED + 1, N_CHI2);
    check_poisson(30.0, SEED + 2, N_CHI2);
    check_poisson(0.05, SEED + 3, N_CHI2);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 14, 0);
    int bad = 0;
    for (int i = 0; i < 1000; i++)
        COUNT_UNLESS(bad, cs_rng_poisson(&r, 0.0) == 0);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* A very large mean through PTRS: mean and variance within 5 standard errors (as above). */
START_TEST(test_poisson_huge)
{
    const double mean = 1e7;
    enum { N = 200000 };
    st_moments m = {0, 0, 0};
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 15, 0);
    for (int i = 0; i < N; i++)
        st_moments_add(&m, (double)cs_rng_poisson(&r, mean));
    ck_assert_double_le(fabs(m.mean - mean), 5.0 * sqrt(mean / N));
    ck_assert_double_le(fabs(st_moments_var(&m) - mean),
                        5.0 * sqrt((mean + 2.0 * mean * mean) / N));
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Zipf                                                                                       */

/* Chi-square of `draws` Zipf(n, s) draws, one bin per value, exact probabilities k^-s / sum. */
static st_chi2 zipf_chi2(uint64_t n, double s, uint64_t sub, int draws)
{
    cs_zipf z;
    ck_assert_int_eq(cs_zipf_init(&z, n, s), CS_OK);
    uint64_t *obs = calloc(n, sizeof *obs);
    double *prob = xmalloc(n * sizeof *prob);
    ck_assert_ptr_nonnull(obs);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 16, sub);
    int bad = 0;
    for (int i = 0; i < draws; i++) {
        uint64_t k = cs_zipf_draw(&z, &r);
        COUNT_UNLESS(bad, k >= 1 && k <= n);
        obs[k >= 1 && k <= n ? k - 1 : 0]++;
    }
    ck_assert_int_eq(bad, 0);
    double norm = 0.0;
    for (uint64_t k = n; k >= 1; k--) /* smallest terms first */
        norm += pow((double)k, -s);
    for (uint64_t k = 1; k <= n; k++)
        prob[k - 1] = pow((double)k, -s) / norm;
    st_chi2 c = st_chi2_test(obs, prob, n, (uint64_t)draws);
    free(prob);
    free(obs);
    return c;
}

START_TEST(test_zipf_chi2)
{
    static const struct {
        uint64_t n;
        double s;
    } cases[] = {
        {10, 1.2},   {1000, 0.8}, {50, 0.0},  /* s = 0: uniform */
        {1000, 1.0}, {2, 1.0},    {200, 3.5}, /* s = 1 exactly; two values; steep */
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        st_chi2 c = zipf_chi2(cases[t].n, cases[t].s, t, N_CHI2);
        ck_assert_msg(c.p > P_MIN, "zipf(%llu, %g): chi2 = %g, df = %d, p = %g",
                      (unsigned long long)cases[t].n, cases[t].s, c.chi2, c.df, c.p);
    }
}
END_TEST

/* s within rounding of 1: (1 - s) log x falls below 1e-8 (the Taylor branches of H and H^-1)
 * or just above it (log1p/expm1 of tiny arguments); the law must still be k^-s. */
START_TEST(test_zipf_near_one)
{
    static const double ss[] = {1.0 + 1e-12, 1.0 - 1e-12, 1.0 + 1e-9, 1.0 - 1e-7};
    for (size_t t = 0; t < sizeof ss / sizeof ss[0]; t++) {
        st_chi2 c = zipf_chi2(1000, ss[t], 100 + t, N_CHI2);
        ck_assert_msg(c.p > P_MIN, "zipf(1000, 1%+g): chi2 = %g, df = %d, p = %g", ss[t] - 1.0,
                      c.chi2, c.df, c.p);
    }
}
END_TEST

/* Large n: bins [2^j, 2^(j+1)) with exact probabilities, 10^6 draws. */
START_TEST(test_zipf_large_n)
{
    const uint64_t n = 1000000;
    static const double ss[] = {1.0, 0.6, 2.0};
    enum { BINS = 20 };
    for (size_t t = 0; t < sizeof ss / sizeof ss[0]; t++) {
        cs_zipf z;
        ck_assert_int_eq(cs_zipf_init(&z, n, ss[t]), CS_OK);
        uint64_t obs[BINS] = {0};
        double prob[BINS] = {0};
        cs_rng r;
        cs_rng_init(&r, SEED, CS_RNG_TEST, 17, t);
        int bad = 0;
        for (int i = 0; i < N_CHI2; i++) {
            uint64_t k = cs_zipf_draw(&z, &r);
            COUNT_UNLESS(bad, k >= 1 && k <= n);
            obs[k >= 1 && k <= n ? 63 - __builtin_clzll(k) : 0]++;
        }
        ck_assert_int_eq(bad, 0);
        double norm = 0.0;
        for (uint64_t k = n; k >= 1; k--) {
            double p = pow((double)k, -ss[t]);
            prob[63 - __builtin_clzll(k)] += p;
            norm += p;
        }
        for (int b = 0; b < BINS; b++)
            prob[b] /= norm;
        st_chi2 c = st_chi2_test(obs, prob, BINS, N_CHI2);
        ck_assert_msg(c.p > P_MIN, "zipf(%llu, %g): chi2 = %g, df = %d, p = %g",
                      (unsigned long long)n, ss[t], c.chi2, c.df, c.p);
    }
    /* Huge n: values stay in range and k = 1 has probability 1/H_n (H_n ~ ln n + gamma for
     * s = 1); 10^5 draws, 5 binomial standard errors. */
    cs_zipf z;
    const uint64_t big = 1000000000000ULL;
    ck_assert_int_eq(cs_zipf_init(&z, big, 1.0), CS_OK);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 18, 0);
    int ones = 0, bad = 0;
    enum { DRAWS = 100000 };
    for (int i = 0; i < DRAWS; i++) {
        uint64_t k = cs_zipf_draw(&z, &r);
        COUNT_UNLESS(bad, k >= 1 && k <= big);
        ones += k == 1;
    }
    ck_assert_int_eq(bad, 0);
    double p1 = 1.0 / (log((double)big) + 0.5772156649015329 + 0.5 / (double)big);
    ck_assert_double_le(fabs(ones - DRAWS * p1), 5.0 * sqrt(DRAWS * p1 * (1.0 - p1)));
}
END_TEST

START_TEST(test_zipf_edges)
{
    cs_zipf z;
    ck_assert_int_eq(cs_zipf_init(&z, 0, 1.0), CS_ERR_ARG);
    ck_assert_int_eq(cs_zipf_init(&z, 10, -0.1), CS_ERR_ARG);
    ck_assert_int_eq(cs_zipf_init(&z, 10, (double)NAN), CS_ERR_ARG);
    ck_assert_int_eq(cs_zipf_init(&z, 10, (double)INFINITY), CS_ERR_ARG);
    ck_assert_int_eq(cs_zipf_init(NULL, 10, 1.0), CS_ERR_ARG);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 19, 0);
    static const double ss[] = {0.0, 1.0, 2.5};
    int bad = 0;
    for (size_t t = 0; t < 3; t++) {
        ck_assert_int_eq(cs_zipf_init(&z, 1, ss[t]), CS_OK);
        for (int i = 0; i < 1000; i++)
            COUNT_UNLESS(bad, cs_zipf_draw(&z, &r) == 1);
    }
    /* The largest n: k - 1/2 <= x rounding must not overflow the conversion. */
    ck_assert_int_eq(cs_zipf_init(&z, UINT64_MAX, 0.0), CS_OK);
    for (int i = 0; i < 10000; i++)
        COUNT_UNLESS(bad, cs_zipf_draw(&z, &r) >= 1);
    ck_assert_int_eq(cs_zipf_init(&z, UINT64_MAX, 1.2), CS_OK);
    for (int i = 0; i < 10000; i++)
        COUNT_UNLESS(bad, cs_zipf_draw(&z, &r) >= 1);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Alias tables                                                                               */

static st_chi2 alias_chi2(const double *w, int64_t k, uint64_t sub)
{
    cs_alias a;
    ck_assert_int_eq(cs_alias_init(&a, w, k), CS_OK);
    uint64_t *obs = calloc((size_t)k, sizeof *obs);
    double *prob = xmalloc((size_t)k * sizeof *prob);
    ck_assert_ptr_nonnull(obs);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 20, sub);
    int bad = 0, zero_drawn = 0;
    for (int i = 0; i < N_CHI2; i++) {
        int64_t v = cs_alias_draw(&a, &r);
        COUNT_UNLESS(bad, v >= 0 && v < k);
        if (v < 0 || v >= k)
            continue;
        COUNT_UNLESS(zero_drawn, w[v] > 0.0);
        obs[v]++;
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(zero_drawn == 0, "drew outcomes of weight 0 %d times", zero_drawn);
    double sum = 0.0;
    for (int64_t i = 0; i < k; i++)
        sum += w[i];
    for (int64_t i = 0; i < k; i++)
        prob[i] = w[i] / sum;
    st_chi2 c = st_chi2_test(obs, prob, (size_t)k, N_CHI2);
    cs_alias_fini(&a);
    free(prob);
    free(obs);
    return c;
}

START_TEST(test_alias_chi2)
{
    static const double w1[] = {1.0, 2.0, 3.0, 4.0, 0.0, 10.0, 0.5};
    st_chi2 c = alias_chi2(w1, 7, 0);
    ck_assert_msg(c.p > P_MIN, "alias small: chi2 = %g, df = %d, p = %g", c.chi2, c.df, c.p);

    /* Many categories with very unequal weights, and tiny weights (scale independence). */
    enum { K = 1000 };
    double *w = xmalloc(K * sizeof *w);
    cs_rng r;
    cs_rng_init(&r, SEED, CS_RNG_TEST, 21, 0);
    for (int i = 0; i < K; i++)
        w[i] = i % 17 == 0 ? 0.0 : 1e-300 * cs_rng_pareto(&r, 1.0, 2.5);
    c = alias_chi2(w, K, 1);
    ck_assert_msg(c.p > P_MIN, "alias 1000: chi2 = %g, df = %d, p = %g", c.chi2, c.df, c.p);
    free(w);

    static const double one[] = {3.0};
    cs_alias a;
    ck_assert_int_eq(cs_alias_init(&a, one, 1), CS_OK);
    int bad = 0;
    for (int i = 0; i < 100; i++)
        COUNT_UNLESS(bad, cs_alias_draw(&a, &r) == 0);
    ck_assert_int_eq(bad, 0);
    cs_alias_fini(&a);
    ck_assert_ptr_null(a.prob);
    cs_alias_fini(&a); /* twice: the struct is zeroed */
    cs_alias_fini(NULL);
}
END_TEST

START_TEST(test_alias_errors)
{
    cs_alias a;
    static const double zero[] = {0.0, 0.0};
    static const double neg[] = {3.0, -1.0}; /* positive sum */
    const double nan_w[] = {1.0, (double)NAN};
    const double inf_w[] = {1.0, (double)INFINITY};
    const double big[] = {1e308, 1e308};
    ck_assert_int_eq(cs_alias_init(&a, zero, 2), CS_ERR_ARG);
    ck_assert_ptr_null(a.prob);
    ck_assert_int_eq(cs_alias_init(&a, neg, 2), CS_ERR_ARG);
    ck_assert_int_eq(cs_alias_init(&a, nan_w, 2), CS_ERR_ARG);
    ck_assert_int_eq(cs_alias_init(&a, inf_w, 2), CS_ERR_ARG);
    ck_assert_int_eq(cs_alias_init(&a, big, 2), CS_ERR_ARG); /* sum overflows */
    ck_assert_int_eq(cs_alias_init(&a, zero, 0), CS_ERR_ARG);
    ck_assert_int_eq(cs_alias_init(&a, zero, -3), CS_ERR_ARG);
    ck_assert_int_eq(cs_alias_init(&a, NULL, 2), CS_ERR_ARG);
    ck_assert_int_eq(cs_alias_init(NULL, zero, 2), CS_ERR_ARG);
    /* A k whose tables cannot be addressed fails before any weight is read. */
    ck_assert_int_eq(cs_alias_init(&a, zero, INT64_MAX), CS_ERR_NOMEM);
    cs_alias_fini(&a);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* The statistics themselves, against tabulated values, so that a p-value stuck at 1 cannot
 * pass every test above. */

START_TEST(test_stats_selftest)
{
    /* Upper 5% points of chi-square: df 1 -> 3.841459, df 10 -> 18.307038, df 100 -> 124.342. */
    ck_assert_double_eq_tol(st_chi2_pvalue(3.841459, 1), 0.05, 1e-6);
    ck_assert_double_eq_tol(st_chi2_pvalue(18.307038, 10), 0.05, 1e-6);
    ck_assert_double_eq_tol(st_chi2_pvalue(124.342, 100), 0.05, 1e-5);
    ck_assert_double_eq_tol(st_chi2_pvalue(2.0, 2), exp(-1.0), 1e-12); /* df 2: exp(-x/2) */
    ck_assert_double_lt(st_chi2_pvalue(200.0, 10), 1e-30);
    /* Kolmogorov: P(K > 1.3581) = 0.05, P(K > 1.6276) = 0.01, P(K > 0.8276) = 0.5. */
    ck_assert_double_eq_tol(st_kolmogorov_q(1.3581), 0.05, 1e-4);
    ck_assert_double_eq_tol(st_kolmogorov_q(1.6276), 0.01, 1e-4);
    ck_assert_double_eq_tol(st_kolmogorov_q(0.8276), 0.5, 1e-4);
    ck_assert_double_eq_tol(st_kolmogorov_q(1.18 - 1e-12), st_kolmogorov_q(1.18), 1e-12);
    /* A biased sample must fail both tests. */
    uint64_t obs[2] = {520000, 480000};
    double prob[2] = {0.5, 0.5};
    ck_assert_double_lt(st_chi2_test(obs, prob, 2, 1000000).p, 1e-20);
    enum { N = 10000 };
    double *x = xmalloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = pow((i + 0.5) / N, 1.1);
    ck_assert_double_lt(st_ks_test(x, N, cdf_uniform, NULL).p, 1e-6);
    free(x);
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("streams");
    tcase_add_test(tc, test_philox_kat);
    tcase_add_test(tc, test_key_counter_layout);
    tcase_add_test(tc, test_same_key_same_sequence);
    tcase_add_test(tc, test_keys_differ);
    tcase_add_test(tc, test_seek);
    tcase_add_test(tc, test_interleaving_independent);
    tcase_add_test(tc, test_mul64_portable);
    tcase_add_test(tc, test_pinned_values);
    suite_add_tcase(s, tc);

    tc = tcase_create("uniform");
    tcase_add_test(tc, test_uniform_ks);
    tcase_add_test(tc, test_uniform_construction);
    tcase_add_test(tc, test_uniform_moments);
    tcase_add_test(tc, test_below_small_chi2);
    tcase_add_test(tc, test_below_large_chi2);
    tcase_add_test(tc, test_bernoulli);
    suite_add_tcase(s, tc);

    tc = tcase_create("continuous");
    tcase_add_test(tc, test_normal);
    tcase_add_test(tc, test_zig_tables);
    tcase_add_test(tc, test_normal_zig);
    tcase_add_test(tc, test_normal_zig_batch);
    tcase_add_test(tc, test_normals_batch);
    tcase_add_test(tc, test_words);
    tcase_add_test(tc, test_normal_approx_error);
    tcase_add_test(tc, test_normals_f32);
    tcase_add_test(tc, test_normals_zig_batch);
    tcase_add_test(tc, test_lognormal);
    tcase_add_test(tc, test_normal_quantile);
    tcase_add_test(tc, test_exponential);
    tcase_add_test(tc, test_pareto);
    tcase_add_test(tc, test_power_bounded);
    suite_add_tcase(s, tc);

    tc = tcase_create("discrete");
    tcase_add_test(tc, test_poisson_small);
    tcase_add_test(tc, test_poisson_large);
    tcase_add_test(tc, test_poisson_edges);
    tcase_add_test(tc, test_poisson_huge);
    tcase_add_test(tc, test_zipf_chi2);
    tcase_add_test(tc, test_zipf_near_one);
    tcase_add_test(tc, test_zipf_large_n);
    tcase_add_test(tc, test_zipf_edges);
    tcase_add_test(tc, test_alias_chi2);
    tcase_add_test(tc, test_alias_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("stats");
    tcase_add_test(tc, test_stats_selftest);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rng_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
