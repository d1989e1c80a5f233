/*
 * check_qnet: unit tests of the linear Q-function (serial, forked, no MPI_Init).
 *
 * For a = 0..4 categories and random weights: cs_qlinear_value is the sum of one weight per
 * unpacked index (Eq. 2 over one-hot features), cs_qlinear_step adds the step to exactly those
 * weights (Eq. 3), the float tables evaluated by cs_qlinear_eval agree with the exact value to
 * float rounding (also with a frontier stride wider than G), and value2 on separate state and
 * action codes is the value of their concatenation.
 */
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/features.h"
#include "crawlsim/qnet.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_CODES 3000

static cs_ctx ctx;

static void layout(cs_feat_layout *L, int a)
{
    cs_sarsa_config sc;
    memset(&sc, 0, sizeof sc);
    sc.categories = a;
    sc.delta1 = 0.1;
    sc.delta2 = 0.3;
    sc.beta = 0.4;
    cs_feat_layout_init(L, &sc);
}

/* A random valid index vector idx[0..n_index) and its packed codes[0..n_groups). */
static void random_x(const cs_feat_layout *L, cs_rng *r, uint8_t *idx, uint8_t *codes)
{
    for (int i = 0; i < L->n_index; i++)
        idx[i] = (uint8_t)cs_rng_below(r, (uint64_t)L->buckets[i]);
    cs_feat_pack(L, 0, L->n_index, idx, codes);
}

/* Random weights of mixed signs and magnitudes (values around 30, as rewards are). */
static void random_w(const cs_feat_layout *L, cs_rng *r, double *w)
{
    for (int i = 0; i < L->n_weights; i++)
        w[i] = (cs_rng_uniform(r) - 0.5) * (i % 3 == 0 ? 60.0 : i % 3 == 1 ? 1.0 : 1e-3);
}

static double ref_value(const cs_feat_layout *L, const double *w, const uint8_t *idx)
{
    double s = 0.0;
    for (int i = 0; i < L->n_index; i++)
        s += w[L->weight_off[i] + idx[i]];
    return s;
}

static void init_q(cs_qlinear *q, const cs_feat_layout *L)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    ck_assert_int_eq(cs_qlinear_init(&ctx, q, L), CS_OK);
    ck_assert_ptr_eq(q->L, L);
    for (int i = 0; i < L->n_weights; i++) /* zero weights */
        ck_assert_double_eq(q->w[i], 0.0);
}

START_TEST(test_value_is_sum_of_weights)
{
    const int a = _i;
    cs_feat_layout L;
    layout(&L, a);
    cs_qlinear q;
    init_q(&q, &L);
    cs_rng r;
    cs_rng_init(&r, 100 + (uint64_t)a, CS_RNG_TEST, 0, 0);
    random_w(&L, &r, q.w);
    int bad = 0;
    double worst = 0.0;
    for (int t = 0; t < N_CODES; t++) {
        uint8_t idx[CS_FEAT_MAX_INDEXES], codes[CS_FEAT_MAX_GROUPS];
        random_x(&L, &r, idx, codes);
        const double want = ref_value(&L, q.w, idx), got = cs_qlinear_value(&q, codes);
        /* the same terms, grouped differently: a few ulps of the largest partial sum */
        const double err = fabs(got - want);
        worst = err > worst ? err : worst;
        bad += err > 1e-12;
    }
    ck_assert_msg(bad == 0, "a = %d: %d values differ from the sum of weights (worst %g)", a, bad,
                  worst);
    /* one-hot: with a single nonzero weight, exactly the codes using it see it */
    memset(q.w, 0, (size_t)L.n_weights * sizeof *q.w);
    for (int i = 0; i < L.n_index; i++) {
        const int b = (int)cs_rng_below(&r, (uint64_t)L.buckets[i]);
        q.w[L.weight_off[i] + b] = 1.0;
        for (int t = 0; t < 50; t++) {
            uint8_t idx[CS_FEAT_MAX_INDEXES], codes[CS_FEAT_MAX_GROUPS];
            random_x(&L, &r, idx, codes);
            bad += cs_qlinear_value(&q, codes) != (idx[i] == b ? 1.0 : 0.0);
        }
        q.w[L.weight_off[i] + b] = 0.0;
    }
    ck_assert_int_eq(bad, 0);
    cs_qlinear_fini(&q);
    ck_assert_ptr_null(q.w);
}
END_TEST

START_TEST(test_step_touches_exactly_the_indexes)
{
    const int a = _i;
    cs_feat_layout L;
    layout(&L, a);
    cs_qlinear q;
    init_q(&q, &L);
    cs_rng r;
    cs_rng_init(&r, 200 + (uint64_t)a, CS_RNG_TEST, 0, 0);
    random_w(&L, &r, q.w);
    double *before = malloc((size_t)L.n_weights * sizeof *before);
    ck_assert_ptr_nonnull(before);
    int bad = 0;
    for (int t = 0; t < 500; t++) {
        uint8_t idx[CS_FEAT_MAX_INDEXES], codes[CS_FEAT_MAX_GROUPS];
        random_x(&L, &r, idx, codes);
        const double step = (cs_rng_uniform(&r) - 0.5) * 0.1;
        memcpy(before, q.w, (size_t)L.n_weights * sizeof *before);
        cs_qlinear_step(&q, codes, step);
        int touched = 0;
        for (int i = 0; i < L.n_index; i++)
            for (int b = 0; b < L.buckets[i]; b++) {
                const int k = L.weight_off[i] + b;
                const double want = b == idx[i] ? before[k] + step : before[k];
                bad += q.w[k] != want;
                touched += q.w[k] != before[k];
            }
        bad += touched != L.n_index;
        /* the value moves by n_index * step (the gradient of a one-hot linear Q is x) */
        const double dv = ref_value(&L, q.w, idx) - ref_value(&L, before, idx);
        bad += fabs(dv - L.n_index * step) > 1e-9;
    }
    ck_assert_msg(bad == 0, "a = %d: %d mismatches", a, bad);
    free(before);
    cs_qlinear_fini(&q);
}
END_TEST

START_TEST(test_eval_matches_value)
{
    const int a = _i;
    cs_feat_layout L;
    layout(&L, a);
    const int G = L.n_groups;
    cs_qlinear q;
    init_q(&q, &L);
    cs_rng r;
    cs_rng_init(&r, 300 + (uint64_t)a, CS_RNG_TEST, 0, 0);
    const int stride = G + 3; /* frontier rows wider than G: the padding must be ignored */
    uint8_t *codes = malloc((size_t)N_CODES * (size_t)stride);
    float *out = malloc(N_CODES * sizeof *out);
    ck_assert(codes != NULL && out != NULL);
    for (int round = 0; round < 3; round++) {
        if (round == 0) {
            /* zero weights: tables built by init give 0 */
        } else {
            random_w(&L, &r, q.w);
            cs_qlinear_tables(&q);
        }
        for (int t = 0; t < N_CODES; t++) {
            uint8_t idx[CS_FEAT_MAX_INDEXES];
            random_x(&L, &r, idx, codes + (size_t)t * (size_t)stride);
            for (int p = G; p < stride; p++)
                codes[(size_t)t * (size_t)stride + (size_t)p] = (uint8_t)cs_rng_below(&r, 256);
        }
        for (int t = 0; t < N_CODES; t++)
            out[t] = NAN;
        cs_qlinear_eval(&q, codes, stride, N_CODES, out);
        int bad = 0;
        double worst = 0.0;
        for (int t = 0; t < N_CODES; t++) {
            const uint8_t *c = codes + (size_t)t * (size_t)stride;
            const double want = cs_qlinear_value(&q, c);
            /* G table entries rounded to float, then G float additions: each rounding is at
             * most 2^-24 of a partial sum, bounded by the sum of |w| over the indexes */
            double mag = 0.0;
            uint8_t idx[CS_FEAT_MAX_INDEXES];
            int k = 0;
            for (int g = 0; g < G; g++)
                k += cs_feat_unpack(&L, g, c[g], idx + k);
            for (int i = 0; i < L.n_index; i++)
                mag += fabs(q.w[L.weight_off[i] + idx[i]]);
            const double tol = 2.0 * (G + 1) * ldexp(mag, -24) + 1e-30;
            const double err = fabs((double)out[t] - want);
            worst = err / tol > worst ? err / tol : worst;
            bad += !(err <= tol);
        }
        ck_assert_msg(bad == 0, "a = %d round %d: %d of %d evaluations off (worst %.3g tol)", a,
                      round, bad, N_CODES, worst);
    }
    /* after a step, eval is stale until the tables are rebuilt */
    uint8_t *c0 = codes;
    const double v0 = cs_qlinear_value(&q, c0);
    cs_qlinear_step(&q, c0, 1.0);
    ck_assert_double_eq_tol(cs_qlinear_value(&q, c0), v0 + L.n_index, 1e-9);
    cs_qlinear_tables(&q);
    cs_qlinear_eval(&q, c0, stride, 1, out);
    ck_assert_double_eq_tol(out[0], v0 + L.n_index, 1e-3);
    /* n = 0 writes nothing */
    out[0] = 42.0f;
    cs_qlinear_eval(&q, codes, stride, 0, out);
    ck_assert_float_eq(out[0], 42.0f);
    free(codes);
    free(out);
    cs_qlinear_fini(&q);
}
END_TEST

START_TEST(test_value2_is_value_of_concatenation)
{
    const int a = _i;
    cs_feat_layout L;
    layout(&L, a);
    const int Gs = L.n_state_groups, G = L.n_groups;
    cs_qlinear q;
    init_q(&q, &L);
    cs_rng r;
    cs_rng_init(&r, 400 + (uint64_t)a, CS_RNG_TEST, 0, 0);
    random_w(&L, &r, q.w);
    int bad = 0;
    for (int t = 0; t < N_CODES; t++) {
        uint8_t idx[CS_FEAT_MAX_INDEXES], codes[CS_FEAT_MAX_GROUPS];
        uint8_t state[CS_FEAT_MAX_GROUPS], action[CS_FEAT_MAX_GROUPS];
        random_x(&L, &r, idx, codes);
        /* separately packed state and action, as the page and the link carry them */
        cs_feat_pack(&L, 0, L.n_state, idx, state);
        cs_feat_pack(&L, L.n_state, L.n_action, idx + L.n_state, action);
        bad += memcmp(state, codes, (size_t)Gs) != 0;
        bad += memcmp(action, codes + Gs, (size_t)(G - Gs)) != 0;
        /* the same sum in the same order: identical */
        bad += cs_qlinear_value2(&q, state, action) != cs_qlinear_value(&q, codes);
        /* and in two steps, the state's part shared by many actions */
        bad += cs_qlinear_value_action(&q, cs_qlinear_value_state(&q, state), action) !=
               cs_qlinear_value2(&q, state, action);
    }
    ck_assert_msg(bad == 0, "a = %d: %d mismatches", a, bad);
    cs_qlinear_fini(&q);
}
END_TEST

/* Every group count from 1 to that of a = 4, by truncating that layout after g groups: the
 * evaluation does not depend on which group counts it specialises for. */
START_TEST(test_eval_any_group_count)
{
    cs_feat_layout full;
    layout(&full, CS_FEAT_MAX_CATEGORIES);
    cs_rng r;
    cs_rng_init(&r, 500, CS_RNG_TEST, 0, 0);
    for (int G = 1; G <= full.n_groups; G++) {
        cs_feat_layout L = full;
        L.n_groups = G;
        L.n_index = L.group_first[G];
        L.n_weights = L.weight_off[L.n_index - 1] + L.buckets[L.n_index - 1];
        if (L.n_state_groups > G)
            L.n_state_groups = G;
        cs_qlinear q;
        init_q(&q, &L);
        random_w(&L, &r, q.w);
        cs_qlinear_tables(&q);
        enum { N = 500, STRIDE = CS_FEAT_MAX_GROUPS };
        uint8_t codes[N * STRIDE];
        float out[N];
        for (int t = 0; t < N; t++) {
            uint8_t idx[CS_FEAT_MAX_INDEXES];
            for (int i = 0; i < L.n_index; i++)
                idx[i] = (uint8_t)cs_rng_below(&r, (uint64_t)L.buckets[i]);
            cs_feat_pack(&L, 0, L.n_index, idx, codes + t * STRIDE);
            for (int p = G; p < STRIDE; p++)
                codes[t * STRIDE + p] = (uint8_t)cs_rng_below(&r, 256);
        }
        cs_qlinear_eval(&q, codes, STRIDE, N, out);
        int bad = 0;
        for (int t = 0; t < N; t++) {
            const double want = cs_qlinear_value(&q, codes + t * STRIDE);
            bad += !(fabs((double)out[t] - want) <= 2.0 * (G + 1) * ldexp(30.0 * G * 3, -24));
        }
        ck_assert_msg(bad == 0, "G = %d: %d of %d evaluations off", G, bad, N);
        cs_qlinear_fini(&q);
    }
}
END_TEST

/* The vector kernel (where the CPU has one) and the scalar kernel give bit-identical values for
 * every layout, at row strides G .. 16 (vector) and above (scalar only), for entry counts that
 * are and are not multiples of its 16-entry blocks, with garbage in the padding bytes; and the
 * values do not depend on the thread count (checked by the callers' crawlsim compare at 1 vs 2
 * threads). */
START_TEST(test_eval_kernels_identical)
{
    const int a = _i;
    cs_feat_layout L;
    layout(&L, a);
    const int G = L.n_groups;
    cs_qlinear q;
    init_q(&q, &L);
    cs_rng r;
    cs_rng_init(&r, 900 + (uint64_t)a, CS_RNG_TEST, 0, 0);
    random_w(&L, &r, q.w);
    cs_qlinear_tables(&q);
    static const int64_t counts[] = {1, 15, 16, 17, 33, 1000, 4099};
    for (int stride = G; stride <= 18; stride++) {
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
            const int64_t n = counts[ci];
            uint8_t *codes = malloc((size_t)(n * stride));
            float *v = malloc((size_t)n * sizeof *v), *sc = malloc((size_t)n * sizeof *sc);
            ck_assert(codes != NULL && v != NULL && sc != NULL);
            for (int64_t t = 0; t < n; t++) {
                uint8_t idx[CS_FEAT_MAX_INDEXES];
                random_x(&L, &r, idx, codes + t * stride);
                for (int p = G; p < stride; p++)
                    codes[t * stride + p] = (uint8_t)cs_rng_below(&r, 256);
            }
            cs_qlinear_eval_force_scalar(&q, 0);
            cs_qlinear_eval(&q, codes, stride, n, v);
            cs_qlinear_eval_force_scalar(&q, 1);
            cs_qlinear_eval(&q, codes, stride, n, sc);
            cs_qlinear_eval_force_scalar(&q, 0);
            ck_assert_msg(memcmp(v, sc, (size_t)n * sizeof *v) == 0,
                          "a = %d, stride %d, n = %lld: kernel %s differs from scalar", a, stride,
                          (long long)n, cs_qlinear_eval_kernel(&q, stride));
            /* and both are the group-order float sum */
            int bad = 0;
            for (int64_t t = 0; t < n; t++) {
                float want = 0.0f;
                for (int g = 0; g < G; g++)
                    want += q.table[g * CS_FEAT_CODES + codes[t * stride + g]];
                bad += memcmp(&want, &sc[t], sizeof want) != 0;
            }
            ck_assert_int_eq(bad, 0);
            free(codes);
            free(v);
            free(sc);
        }
    }
    cs_qlinear_fini(&q);
}
END_TEST

static Suite *qnet_suite(void)
{
    Suite *s = suite_create("qnet");
    TCase *tc = tcase_create("linear");
    tcase_add_loop_test(tc, test_value_is_sum_of_weights, 0, CS_FEAT_MAX_CATEGORIES + 1);
    tcase_add_loop_test(tc, test_step_touches_exactly_the_indexes, 0, CS_FEAT_MAX_CATEGORIES + 1);
    tcase_add_loop_test(tc, test_eval_matches_value, 0, CS_FEAT_MAX_CATEGORIES + 1);
    tcase_add_loop_test(tc, test_value2_is_value_of_concatenation, 0, CS_FEAT_MAX_CATEGORIES + 1);
    tcase_add_test(tc, test_eval_any_group_count);
    tcase_add_loop_test(tc, test_eval_kernels_identical, 0, CS_FEAT_MAX_CATEGORIES + 1);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(qnet_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
