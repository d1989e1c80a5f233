/*
 * check_replay: unit tests of the DDQN replay buffer (serial, forked, no MPI_Init).
 *
 * Transitions whose content is a function of their push number are pushed with random candidate
 * counts into a small ring and arena (so both wrap many times); every stored transition must
 * read back exactly, the stored ones must be the newest pushes, the arena must never hold more
 * rows than it has; minibatches are distinct, in range, and uniform (chi-square on index
 * counts); errors are reported for impossible requests.
 */
#include "crawlsim/core.h"
#include "crawlsim/replay.h"
#include "crawlsim/rng.h"

#include "unit/stats.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define D 3

static cs_ctx ctx;

static float val(int64_t push, int64_t row, int col)
{
    return (float)(push * 1000 + row * 10 + col);
}

START_TEST(test_ring_and_arena_read_back)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_replay_config c = {D, 50, 200};
    cs_replay *b = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &c, &b), CS_OK);
    cs_rng r;
    cs_rng_init(&r, 1, CS_RNG_TEST, 0, 0);
    int32_t *k_of = malloc(5000 * sizeof *k_of);
    float next[40 * D];
    int64_t n_before = 0;
    for (int64_t p = 0; p < 5000; p++) {
        const int32_t k = (int32_t)cs_rng_below(&r, 13); /* 0..12, mean 6: the arena binds */
        k_of[p] = k;
        float x[D];
        for (int j = 0; j < D; j++)
            x[j] = val(p, 99, j);
        for (int32_t i = 0; i < k; i++)
            for (int j = 0; j < D; j++)
                next[i * (D + 1) + j] = val(p, i, j);
        ck_assert_int_eq(cs_replay_push(&ctx, b, x, (float)p, next, D + 1, k), CS_OK);
        const int64_t n = cs_replay_size(b);
        ck_assert(n >= 1 && n <= 50);
        /* the stored transitions are the newest n pushes, oldest first, intact */
        int64_t rows = 0;
        for (int64_t i = 0; i < n; i++) {
            const int64_t q = p - n + 1 + i;
            cs_replay_item it;
            cs_replay_get(b, i, &it);
            int bad = it.r != (float)q || it.k != k_of[q];
            for (int j = 0; j < D; j++)
                bad += it.x[j] != val(q, 99, j);
            for (int32_t a = 0; a < it.k && it.k == k_of[q]; a++)
                for (int j = 0; j < D; j++)
                    bad += it.next[a * D + j] != val(q, a, j);
            ck_assert_msg(bad == 0, "push %lld: stored transition %lld (push %lld) corrupted",
                          (long long)p, (long long)i, (long long)q);
            rows += it.k;
        }
        ck_assert(rows <= 200);
        /* eviction only when needed: if this push evicted for arena space (the ring had a
         * free slot), then before the last eviction the free rows lay in at most two pieces
         * each shorter than k <= 12, and that eviction freed at most 12 rows: so the arena is
         * still at least 200 - 3 * 12 rows full */
        if (n_before < 50 && n <= n_before)
            ck_assert_msg(rows >= 200 - 3 * 12, "push %lld: %lld rows live after eviction",
                          (long long)p, (long long)rows);
        n_before = n;
    }
    ck_assert_int_eq(cs_replay_pushed(b), 5000);
    ck_assert(cs_replay_bytes(b) >= 200 * D * sizeof(float));
    free(k_of);
    cs_replay_destroy(&b);
    ck_assert_ptr_null(b);
}
END_TEST

START_TEST(test_errors)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_replay_config c = {D, 4, 5};
    cs_replay *b = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &c, &b), CS_OK);
    float x[D] = {0}, nx[6 * D] = {0};
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 0, nx, D, 6), CS_ERR_LIMIT);
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 0, nx, D, -1), CS_ERR_ARG);
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 0, nx, D - 1, 2), CS_ERR_ARG);
    ck_assert_int_eq(cs_replay_size(b), 0);
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 0, nx, D, 5), CS_OK);
    int64_t idx[2];
    cs_rng r;
    cs_rng_init(&r, 2, CS_RNG_TEST, 0, 0);
    ck_assert_int_eq(cs_replay_sample(&ctx, b, &r, 2, idx), CS_ERR_ARG);
    ck_assert_int_eq(cs_replay_sample(&ctx, b, &r, 1, idx), CS_OK);
    ck_assert_int_eq(idx[0], 0);
    cs_replay_config bad = {0, 4, 5};
    cs_replay *b2 = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &bad, &b2), CS_ERR_ARG);
    ck_assert_ptr_null(b2);
    cs_replay_destroy(&b);
}
END_TEST

/* Minibatches of 60 from 200 stored: distinct, in range; each index appears with probability
 * 60/200 per batch, so over 2000 batches the 200 counts are multinomial-like with expectation
 * 600 each: chi-square against uniform (df 199); p > 1e-4 with this fixed seed. */
START_TEST(test_sample_uniform_distinct)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_replay_config c = {D, 200, 0};
    cs_replay *b = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &c, &b), CS_OK);
    float x[D] = {0};
    for (int i = 0; i < 200; i++)
        ck_assert_int_eq(cs_replay_push(&ctx, b, x, (float)i, NULL, 0, 0), CS_OK);
    uint64_t count[200] = {0};
    double prob[200];
    for (int i = 0; i < 200; i++)
        prob[i] = 1.0 / 200;
    cs_rng r;
    cs_rng_init(&r, 3, CS_RNG_TEST, 0, 0);
    int64_t idx[60];
    for (int t = 0; t < 2000; t++) {
        ck_assert_int_eq(cs_replay_sample(&ctx, b, &r, 60, idx), CS_OK);
        unsigned char seen[200] = {0};
        for (int i = 0; i < 60; i++) {
            ck_assert(idx[i] >= 0 && idx[i] < 200);
            ck_assert_msg(!seen[idx[i]], "index %lld twice in one batch", (long long)idx[i]);
            seen[idx[i]] = 1;
            count[idx[i]]++;
        }
    }
    /* Sampling without replacement makes the counts less variable than multinomial (factor
     * 1 - 60/200), so the plain chi-square statistic is conservative here. */
    st_chi2 res = st_chi2_test(count, prob, 200, 2000 * 60);
    ck_assert_msg(res.p > 1e-4, "chi2 %g df %d p %g", res.chi2, res.df, res.p);
    cs_replay_destroy(&b);
}
END_TEST

static Suite *replay_suite(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("replay");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ring_and_arena_read_back);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_sample_uniform_distinct);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(replay_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
