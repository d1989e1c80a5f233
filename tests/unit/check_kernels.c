/*
 * check_kernels: the engine's kernels on small hand-checked frontiers, one rank (a local
 * context): the insertion of a tick's new pages (cs_frontier_add_new), the selection's global
 * top-k and the removal of the picks (cs_comm_topk, cs_frontier_remove_sorted), and the
 * eviction's cut (cs_comm_kth_largest, cs_frontier_evict_below), and the routing of a tick's link
 * records to the ranks owning their pages (sim_route_records). Every expected value below is
 * worked out by hand in the comment above it, not computed by the code under test.
 */
#include "crawlsim/comm.h"
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"
#include "sim/sim_route.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* A route phase with room for n records on P ranks, the records' page order ridx[0..n). */
static void route_init(sim_route_phase *r, const int64_t *ridx, int64_t n, int P)
{
    memset(r, 0, sizeof *r);
    r->own = calloc((size_t)n + 1, sizeof *r->own);
    r->ridx = calloc((size_t)n + 1, sizeof *r->ridx);
    r->route = calloc((size_t)n + 1, sizeof *r->route);
    r->route_bytes = calloc((size_t)P, sizeof *r->route_bytes);
    ck_assert(r->own != NULL && r->ridx != NULL && r->route != NULL && r->route_bytes != NULL);
    r->own_cap = r->ridx_cap = (size_t)n + 1;
    r->route_cap = (size_t)n + 1;
    memcpy(r->ridx, ridx, (size_t)n * sizeof *ridx);
}

static void route_fini(sim_route_phase *r)
{
    free(r->own);
    free(r->ridx);
    free(r->route);
    free(r->route_bytes);
    free(r->rblk);
}

/* Routing on 3 ranks, this one rank 1. Pages 0..9 are owned by 0 0 1 1 2 2 0 1 2 1. Records
 * 0..6 point to pages 4 2 0 9 5 6 3 (record i's source is 100 + i, to tell copies apart); the
 * tick made them in the order 3 0 5 1 6 2 4, whose pages 9 4 6 2 3 0 5 are owned by 1 2 0 1 1 0
 * 2. So rank 1 keeps records 3 1 6 (by index, in that order), rank 0's box gets records 5 2
 * (pages 6 0) and rank 2's box, which already held one record (source 7), gets 0 4 (pages 4 5)
 * after it: 2, 3 and 2 records' bytes per rank. */
START_TEST(test_routing)
{
    ctx.size = 3;
    ctx.rank = 1;
    const uint8_t own8[10] = {0, 0, 1, 1, 2, 2, 0, 1, 2, 1};
    const int64_t dst[7] = {4, 2, 0, 9, 5, 6, 3}, ridx[7] = {3, 0, 5, 1, 6, 2, 4};
    cs_link_msg msgs[7];
    memset(msgs, 0, sizeof msgs);
    for (int i = 0; i < 7; i++) {
        msgs[i].src = 100 + i;
        msgs[i].dst = dst[i];
    }
    cs_outbox ob;
    ck_assert_int_eq(cs_outbox_init(&ctx, &ob, 3), CS_OK);
    cs_link_msg old;
    memset(&old, 0, sizeof old);
    old.src = 7;
    ck_assert_int_eq(cs_outbox_put(&ctx, &ob, 2, &old, sizeof old), CS_OK);
    sim_route_phase r;
    route_init(&r, ridx, 7, 3);
    ck_assert_int_eq(sim_route_records(&ctx, &r, msgs, 7, own8, NULL, &ob), CS_OK);
    ck_assert_int_eq(r.n_own, 3);
    ck_assert_int_eq(r.own[0], 3);
    ck_assert_int_eq(r.own[1], 1);
    ck_assert_int_eq(r.own[2], 6);
    ck_assert_uint_eq(r.route_bytes[0], 2 * sizeof(cs_link_msg));
    ck_assert_uint_eq(r.route_bytes[1], 3 * sizeof(cs_link_msg));
    ck_assert_uint_eq(r.route_bytes[2], 2 * sizeof(cs_link_msg));
    ck_assert_uint_eq(ob.len[0], 2 * sizeof(cs_link_msg));
    ck_assert_uint_eq(ob.len[1], 0);
    ck_assert_uint_eq(ob.len[2], 3 * sizeof(cs_link_msg));
    const cs_link_msg *b0 = (const cs_link_msg *)ob.buf[0], *b2 = (const cs_link_msg *)ob.buf[2];
    ck_assert(b0[0].src == 105 && b0[0].dst == 6 && b0[1].src == 102 && b0[1].dst == 0);
    ck_assert(b2[0].src == 7 && b2[1].src == 100 && b2[1].dst == 4);
    ck_assert(b2[2].src == 104 && b2[2].dst == 5);
    route_fini(&r);
    cs_outbox_fini(&ob);
}
END_TEST

/* Routing over several blocks of the counting sort (128 records a block): 1 000 records in
 * reverse order, record i to page i, page p owned by rank p mod 3, this one rank 0. Rank 0 keeps
 * the records 999, 996, ..., 0 (334 of them: i = 999 - 3k), rank 1's box gets 997, 994, ..., 1
 * (333), rank 2's 998, 995, ..., 2 (333): within each rank the tick's order, across the blocks'
 * boundaries. On one rank every record stays, in the tick's order. */
START_TEST(test_routing_blocks)
{
    enum { N = 1000 };
    static cs_link_msg msgs[N];
    static uint8_t own8[N];
    static int64_t ridx[N];
    memset(msgs, 0, sizeof msgs);
    for (int i = 0; i < N; i++) {
        msgs[i].dst = i;
        own8[i] = (uint8_t)(i % 3);
        ridx[i] = N - 1 - i;
    }
    for (int P = 1; P <= 3; P += 2) {
        ctx.size = P;
        ctx.rank = 0;
        cs_outbox ob;
        ck_assert_int_eq(cs_outbox_init(&ctx, &ob, P), CS_OK);
        sim_route_phase r;
        route_init(&r, ridx, N, P);
        ck_assert_int_eq(sim_route_records(&ctx, &r, msgs, N, own8, NULL, &ob), CS_OK);
        const int64_t step = P == 1 ? 1 : 3;
        ck_assert_int_eq(r.n_own, P == 1 ? N : 334);
        for (int64_t k = 0; k < r.n_own; k++)
            ck_assert_int_eq(r.own[k], N - 1 - step * k);
        for (int o = 1; o < P; o++) {
            const cs_link_msg *b = (const cs_link_msg *)ob.buf[o];
            const int64_t first = o == 1 ? 997 : 998;
            ck_assert_uint_eq(ob.len[o], 333 * sizeof(cs_link_msg));
            for (int64_t k = 0; k < 333; k++)
                ck_assert_int_eq(b[k].dst, first - 3 * k);
        }
        route_fini(&r);
        cs_outbox_fini(&ob);
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
    tcase_add_test(tc, test_routing);
    tcase_add_test(tc, test_routing_blocks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
