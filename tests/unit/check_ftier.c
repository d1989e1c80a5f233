/*
 * check_ftier: unit tests of the frontier's index tiers (cs_frontier_set_hot; serial, forked,
 * no MPI_Init).
 *
 * Two frontiers take the same operations, one with every key in its index, one in tiers that
 * keep a few dozen keys: additions, value changes one by one and in batches (cs_frontier_rekey,
 * _rekey_many, _set_value), removals one at a time and sorted, values with ties, infinities, NaN
 * of both signs and zeros of both signs. After each round the walks from the top
 * (cs_frontier_index_down, from the highest key and from a random bound, short and to the end)
 * and the value ranges must be the same bit for bit; the tiered index must have held fewer keys
 * than its frontier and refilled (else the comparison would test nothing). Then evictions below
 * a cut and to the capacity, which make the index whole, must leave the same entries. The tiers
 * run once on one thread and once with their refills' passes on 3 threads (a frontier that
 * small shares them only when the tests lower its threshold).
 */
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"
#include "frontier/frontier_impl.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

/* A value: mostly a few tied values or a uniform, sometimes an infinity, a NaN or a zero of
 * either sign. */
static float draw_value(cs_rng *r)
{
    const double u = cs_rng_uniform(r);
    if (u < 0.3)
        return (float)(int)(cs_rng_uniform(r) * 5.0) * 0.25f;
    if (u < 0.32)
        return cs_rng_uniform(r) < 0.5 ? INFINITY : -INFINITY;
    if (u < 0.34)
        return cs_rng_uniform(r) < 0.5 ? NAN : -NAN;
    if (u < 0.36)
        return cs_rng_uniform(r) < 0.5 ? 0.0f : -0.0f;
    return (float)(cs_rng_uniform(r) * 20.0 - 10.0);
}

/* Every key of f from the top, into out (room for n + 1), by walks of `step` keys. */
static int64_t walk_all(cs_frontier *f, uint64_t *out, int64_t step)
{
    int64_t k = 0, got = 0;
    uint64_t bound = UINT64_MAX;
    for (;;) {
        ck_assert_int_eq(cs_frontier_index_down(&ctx, f, bound, out + k, step, &got), CS_OK);
        k += got;
        if (got < step || out[k - 1] == 0)
            return k;
        bound = out[k - 1] - 1;
    }
}

/* The two frontiers answer the same: value ranges, a walk from a random bound, walks of every
 * key (in that order: a walk to the end moves every cold key into the index). */
static void agree(cs_frontier **fr, cs_rng *r, uint64_t *a, uint64_t *b, const char *what)
{
    const int64_t n = cs_frontier_size(fr[0]);
    ck_assert_int_eq(cs_frontier_size(fr[1]), n);
    double la, ha, lb, hb;
    cs_frontier_value_range(fr[0], &la, &ha);
    cs_frontier_value_range(fr[1], &lb, &hb);
    if (memcmp(&la, &lb, sizeof la) != 0 || memcmp(&ha, &hb, sizeof ha) != 0)
        ck_abort_msg("%s: value ranges [%g, %g] and [%g, %g]", what, la, ha, lb, hb);
    const int64_t step = 1 + (int64_t)(cs_rng_uniform(r) * 40.0);
    const uint64_t bound = cs_frontier_key((float)(cs_rng_uniform(r) * 20.0 - 10.0), 0);
    int64_t ga = 0, gb = 0;
    ck_assert_int_eq(cs_frontier_index_down(&ctx, fr[0], bound, a, step, &ga), CS_OK);
    ck_assert_int_eq(cs_frontier_index_down(&ctx, fr[1], bound, b, step, &gb), CS_OK);
    if (ga != gb || memcmp(a, b, (size_t)ga * sizeof *a) != 0)
        ck_abort_msg("%s: the walks from a bound differ", what);
    const int64_t na = walk_all(fr[0], a, step), nb = walk_all(fr[1], b, step);
    if (na != n || nb != n || memcmp(a, b, (size_t)n * sizeof *a) != 0)
        ck_abort_msg("%s: the walks differ (%lld and %lld keys of %lld)", what, (long long)na,
                     (long long)nb, (long long)n);
}

/* The page id of entry e. */
static int64_t view_id(cs_frontier *f, int64_t e)
{
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    return (int64_t)v.id[e];
}

/* The value of the entry of key k. */
static float key_q(cs_frontier *f, uint64_t k)
{
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    return v.q[cs_frontier_find(f, cs_frontier_key_id(k))];
}

/* Entry of page id in both (the same id), value q, rekeyed one by one. */
static void set_both(cs_frontier **fr, int64_t id, float q)
{
    for (int k = 0; k < 2; k++) {
        const int64_t e = cs_frontier_find(fr[k], id);
        ck_assert_int_ge(e, 0);
        ck_assert_int_eq(cs_frontier_set_value(&ctx, fr[k], e, q), CS_OK);
    }
}

/* The tiers against the whole index, the tiers' refills on `threads` threads. */
static void tiers_answer_as_whole(int threads)
{
    const int64_t N = 4000; /* distinct pages */
    cs_frontier *fr[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(cs_frontier_create(&ctx, 1 << 20, 2, &fr[k]), CS_OK);
        ck_assert_int_eq(cs_frontier_index_keys(&ctx, fr[k]), CS_OK);
    }
    cs_frontier_set_hot(fr[1], 24);
    omp_set_num_threads(threads);
    fr[1]->tier_par_min = threads > 1 ? 1 : FR_TIER_PARALLEL;
    uint64_t *a = malloc((size_t)(N + 1) * sizeof *a), *b = malloc((size_t)(N + 1) * sizeof *b);
    int64_t *ent = malloc((size_t)N * sizeof *ent), *ids = malloc((size_t)N * sizeof *ids);
    uint64_t *old = malloc((size_t)N * sizeof *old);
    uint8_t *in = calloc((size_t)N, 1);
    ck_assert(a != NULL && b != NULL && ent != NULL && ids != NULL && old != NULL && in != NULL);
    cs_rng r;
    cs_rng_init(&r, 11, CS_RNG_TEST, 77, 0);
    int tiered = 0, refilled = 0;
    for (int round = 0; round < 60; round++) {
        /* additions with a value, one rekey_many per frontier */
        int64_t m = 0;
        for (int t = 0; t < 80; t++) {
            const int64_t id = (int64_t)(cs_rng_uniform(&r) * (double)N);
            if (in[id])
                continue;
            in[id] = 1;
            ids[m++] = id * 13 + 5;
        }
        for (int k = 0; k < 2; k++) {
            cs_rng rv = r; /* the same values for both */
            cs_frontier_view v;
            for (int64_t j = 0; j < m; j++) {
                ck_assert_int_eq(cs_frontier_add(&ctx, fr[k], ids[j], &ent[j]), CS_OK);
                old[j] = cs_frontier_key(0.0f, ids[j]);
                cs_frontier_view_get(fr[k], &v);
                v.q[ent[j]] = draw_value(&rv);
            }
            ck_assert_int_eq(cs_frontier_rekey_many(&ctx, fr[k], ent, old, m), CS_OK);
            if (k == 1)
                r = rv;
        }
        /* value changes: a batch through rekey_many, a few through set_value */
        const int64_t n = cs_frontier_size(fr[0]);
        int64_t c = 0;
        for (int t = 0; t < 60 && n > 0; t++) {
            const int64_t e0 = (int64_t)(cs_rng_uniform(&r) * (double)n);
            ids[c++] = view_id(fr[0], e0);
        }
        for (int k = 0; k < 2; k++) {
            cs_rng rv = r;
            cs_frontier_view v;
            cs_frontier_view_get(fr[k], &v);
            for (int64_t j = 0; j < c; j++) {
                ent[j] = cs_frontier_find(fr[k], ids[j]);
                old[j] = cs_frontier_key(v.q[ent[j]], ids[j]);
                v.q[ent[j]] = draw_value(&rv);
            }
            ck_assert_int_eq(cs_frontier_rekey_many(&ctx, fr[k], ent, old, c), CS_OK);
            if (k == 1)
                r = rv;
        }
        for (int t = 0; t < 5 && n > 0; t++)
            set_both(fr, view_id(fr[0], (int64_t)(cs_rng_uniform(&r) * (double)n)), draw_value(&r));
        /* the lowest keys of numbers change (the cold tier's lowest, which it keeps) */
        const int64_t nn = walk_all(fr[0], a, 64);
        for (int64_t j = nn - 1, t = 0; j >= 0 && t < 3; j--)
            if (!isnan(key_q(fr[0], a[j])) || t > 0) {
                set_both(fr, cs_frontier_key_id(a[j]), draw_value(&r));
                t++;
            }
        /* removals: a few one at a time, then the best few as a selection takes them */
        for (int t = 0; t < 4 && cs_frontier_size(fr[0]) > 0; t++) {
            const int64_t id =
                view_id(fr[0], (int64_t)(cs_rng_uniform(&r) * (double)cs_frontier_size(fr[0])));
            for (int k = 0; k < 2; k++)
                cs_frontier_remove(fr[k], cs_frontier_find(fr[k], id));
            in[(id - 5) / 13] = 0;
        }
        const int64_t before = cs_findex_size(cs_frontier_index(fr[1]));
        int64_t got = 0;
        ck_assert_int_eq(cs_frontier_index_down(&ctx, fr[0], UINT64_MAX, a, 30, &got), CS_OK);
        for (int k = 0; k < 2; k++) {
            for (int64_t j = 0; j < got; j++)
                ent[j] = cs_frontier_find(fr[k], cs_frontier_key_id(a[j]));
            cs_sort_u64((uint64_t *)ent, got, (uint64_t *)old);
            ck_assert_int_eq(cs_frontier_remove_sorted(&ctx, fr[k], ent, got), CS_OK);
        }
        for (int64_t j = 0; j < got; j++)
            in[(cs_frontier_key_id(a[j]) - 5) / 13] = 0;
        tiered += cs_findex_size(cs_frontier_index(fr[1])) < cs_frontier_size(fr[1]);
        agree(fr, &r, a, b, "a round");
        refilled += cs_findex_size(cs_frontier_index(fr[1])) > before;
    }
    ck_assert_int_ge(tiered, 30); /* the tiers held: the comparison compared something */
    ck_assert_int_ge(refilled, 5);
    /* evictions read the lowest keys: the tiered index becomes whole */
    const int64_t n = cs_frontier_size(fr[0]);
    ck_assert_int_gt(n, 200);
    (void)walk_all(fr[0], a, 64);
    const uint64_t mid = a[n / 2];
    ck_assert_int_eq(cs_frontier_evict_below(fr[0], mid), cs_frontier_evict_below(fr[1], mid));
    ck_assert_int_eq(cs_findex_size(cs_frontier_index(fr[1])), cs_frontier_size(fr[1]));
    agree(fr, &r, a, b, "after the eviction");
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(cs_frontier_index_whole(&ctx, fr[k]), CS_OK);
    agree(fr, &r, a, b, "whole");
    free(a);
    free(b);
    free(ent);
    free(ids);
    free(old);
    free(in);
    cs_frontier_destroy(&fr[0]);
    cs_frontier_destroy(&fr[1]);
}

START_TEST(test_tiers_answer_as_whole)
{
    tiers_answer_as_whole(1);
}
END_TEST

START_TEST(test_tiers_refill_on_threads)
{
    tiers_answer_as_whole(3);
}
END_TEST

static Suite *ftier_suite(void)
{
    Suite *s = suite_create("ftier");
    TCase *tc = tcase_create("tiers");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_tiers_answer_as_whole);
    tcase_add_test(tc, test_tiers_refill_on_threads);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ftier_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
