/*
 * check_kernels: the engine's kernels on small hand-checked frontiers, one rank (a local
 * context): the insertion of a tick's new pages (cs_frontier_add_new), the selection's global
 * top-k and the removal of the picks (cs_comm_topk, cs_frontier_remove_sorted), and the
 * eviction's cut (cs_comm_kth_largest, cs_frontier_evict_below). Every expected value below is
 * worked out by hand in the comment above it, not computed by the code under test.
 */
#include "crawlsim/comm.h"
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

static cs_frontier *make(int64_t capacity)
{
    cs_frontier *f = NULL;
    ck_assert_int_eq(cs_frontier_create(&ctx, capacity, 4, &f), CS_OK);
    return f;
}

/* the ids of entries 0..n-1, in slot order */
static void ids_are(cs_frontier *f, const int64_t *want, int64_t n)
{
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    ck_assert_int_eq(v.n, n);
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq(v.id[i], want[i]);
}

/* Insertion: pages 40 12 40 7 12 99 (repeats as a tick's link records bring them) make one entry
 * per distinct page in the order of first occurrences: 40 -> 0, 12 -> 1, 7 -> 2, 99 -> 3; each
 * record learns its page's entry, flagged at the page's first occurrence only. */
START_TEST(test_insertion)
{
    cs_frontier *f = make(100);
    const int64_t ids[6] = {40, 12, 40, 7, 12, 99};
    int64_t ent[6];
    ck_assert_int_eq(cs_frontier_add_new(&ctx, f, ids, 6, ent), CS_OK);
    const int64_t A = CS_FRONTIER_ADDED;
    const int64_t want[6] = {0 | A, 1 | A, 0, 2 | A, 1, 3 | A};
    for (int j = 0; j < 6; j++)
        ck_assert_int_eq(ent[j], want[j]);
    const int64_t order[4] = {40, 12, 7, 99};
    ids_are(f, order, 4);
    ck_assert_int_eq(cs_frontier_find(f, 7), 2);
    ck_assert_int_eq(cs_frontier_find(f, 8), -1);
    cs_frontier_destroy(&f);
}
END_TEST

/* Selection: values 40: 0.5, 12: 0.9, 7: 0.5, 99: 0.1. Keys order by value, a tie going to the
 * lower page id, so the decreasing order is 12, 7, 40, 99 and the top 2 are 12 and 7 (7 beats 40
 * at 0.5). The picks are entries 1 and 2; removing them as one removal at a time in decreasing
 * slot order: slot 2 (7) takes the last entry (99): 40 12 99; slot 1 (12) takes the last (99):
 * 40 99. */
START_TEST(test_selection)
{
    cs_frontier *f = make(100);
    const int64_t ids[4] = {40, 12, 7, 99};
    int64_t ent[4];
    ck_assert_int_eq(cs_frontier_add_new(&ctx, f, ids, 4, ent), CS_OK);
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    const float q[4] = {0.5f, 0.9f, 0.5f, 0.1f};
    for (int i = 0; i < 4; i++)
        v.q[i] = q[i];
    const uint64_t keys[4] = {cs_frontier_key(0.9f, 12), cs_frontier_key(0.5f, 7),
                              cs_frontier_key(0.5f, 40), cs_frontier_key(0.1f, 99)};
    for (int i = 0; i < 3; i++)
        ck_assert(keys[i] > keys[i + 1]); /* the hand order is the keys' order */
    int64_t take = -1;
    cs_comm_topk(&ctx, keys, 4, 2, &take);
    ck_assert_int_eq(take, 2);
    const int64_t picks[2] = {1, 2}; /* the entries of 12 and 7 */
    ck_assert_int_eq(cs_frontier_remove_sorted(&ctx, f, picks, 2), CS_OK);
    const int64_t left[2] = {40, 99};
    ids_are(f, left, 2);
    ck_assert_int_eq(cs_frontier_find(f, 99), 1);
    ck_assert_int_eq(cs_frontier_find(f, 12), -1);
    cs_frontier_destroy(&f);
}
END_TEST

/* Eviction: pages 1..6 with values 0.3 0.8 0.1 0.8 0.5 0.2 and a capacity of 3. The top 3 are
 * 2 and 4 (0.8, 2 first) and 5 (0.5); the cut lies above the 4th key (page 1, 0.3), so the
 * entries below it are 1, 3 and 6. Dropping them fills holes from the tail: the set left is
 * {2, 4, 5}. A cut at page 1's own key drops only 3 and 6 (0.1 and 0.2). */
START_TEST(test_eviction)
{
    const int64_t ids[6] = {1, 2, 3, 4, 5, 6};
    const float q[6] = {0.3f, 0.8f, 0.1f, 0.8f, 0.5f, 0.2f};
    for (int variant = 0; variant < 2; variant++) {
        cs_frontier *f = make(3);
        int64_t ent[6];
        ck_assert_int_eq(cs_frontier_add_new(&ctx, f, ids, 6, ent), CS_OK);
        cs_frontier_view v;
        cs_frontier_view_get(f, &v);
        uint64_t keys[6];
        for (int i = 0; i < 6; i++) {
            v.q[i] = q[i];
            keys[i] = cs_frontier_key(q[i], ids[i]);
        }
        uint64_t cut = 0;
        if (variant == 0) {
            ck_assert_int_eq(cs_comm_kth_largest(&ctx, CS_OK, keys, 6, 3, &cut), CS_OK);
            ck_assert(cut > keys[0] && cut <= keys[4]); /* in (page 1's key, page 5's] */
            ck_assert_int_eq(cs_frontier_evict_below(f, cut), 3);
        } else {
            cut = keys[0];
            ck_assert_int_eq(cs_frontier_evict_below(f, cut), 2);
        }
        const int64_t kept0[3] = {2, 4, 5}, kept1[4] = {1, 2, 4, 5};
        const int64_t *kept = variant == 0 ? kept0 : kept1;
        const int nk = variant == 0 ? 3 : 4;
        ck_assert_int_eq(cs_frontier_size(f), nk);
        for (int i = 0; i < nk; i++)
            ck_assert_int_ge(cs_frontier_find(f, kept[i]), 0);
        ck_assert_int_eq(cs_frontier_find(f, 3), -1);
        ck_assert_int_eq(cs_frontier_find(f, 6), -1);
        cs_frontier_destroy(&f);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("hand-checked");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_insertion);
    tcase_add_test(tc, test_selection);
    tcase_add_test(tc, test_eviction);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
