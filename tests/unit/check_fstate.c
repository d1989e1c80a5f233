/*
 * check_fstate: unit tests of the frontier's states (serial, forked, no MPI_Init).
 *
 * A hand-checked frontier of five entries in three states, walked under several values: equal
 * values across states interleave their members by page id (the lower first), +0 ranks above -0
 * as cs_frontier_key ranks them; then many random insertions, removals, moves (the frontier's
 * swap with the last entry) and recodings against a reference array, each round's walk (in
 * chunks of random sizes) compared with every entry's cs_frontier_key sorted, under values drawn
 * from a few (so that many states tie), and the states released and their ids reused; and a
 * frontier that tracks its states (cs_frontier_track_states) through batched additions and
 * removals on 3 threads, recodings through its view and evictions, its states always its
 * entries' codes and its walk its keys in order.
 */
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"
#include "crawlsim/fstate.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

/* Sets the value of the state of codes c (which must be live). */
static void set_value(cs_fstate *st, int64_t member, float v)
{
    int64_t n;
    const uint8_t *codes;
    float *val;
    cs_fstate_table(st, &n, &codes, &val);
    val[cs_fstate_of(st, member)] = v;
}

/* The whole walk's entries into ents (at most cap), in chunks of `chunk`; returns how many. */
static int64_t walk_all(cs_fstate *st, int64_t chunk, int64_t *ents, uint64_t *keys, int64_t cap)
{
    cs_err rc = CS_OK;
    int64_t n = 0, got;
    ck_assert_int_eq(cs_fstate_walk_begin(&ctx, st), CS_OK);
    while ((got = cs_fstate_walk_next(&ctx, st, chunk < cap - n ? chunk : cap - n, keys + n,
                                      ents + n, &rc)) > 0)
        n += got;
    ck_assert_int_eq(rc, CS_OK);
    return n;
}

static void expect_walk(cs_fstate *st, const int64_t *want, int64_t n)
{
    int64_t ents[16];
    uint64_t keys[16];
    for (int64_t chunk = 1; chunk <= n + 1; chunk++) {
        const int64_t got = walk_all(st, chunk, ents, keys, 16);
        ck_assert_int_eq(got, n);
        for (int64_t i = 0; i < n; i++)
            ck_assert_int_eq(ents[i], want[i]);
    }
}

START_TEST(test_hand_checked)
{
    cs_fstate *st = NULL;
    ck_assert_int_eq(cs_fstate_create(&ctx, 2, &st), CS_OK);
    const uint8_t A[2] = {1, 1}, B[2] = {2, 2}, C[2] = {3, 3};
    /* entry: id, state */
    ck_assert_int_eq(cs_fstate_insert(&ctx, st, 0, 5, A), CS_OK);
    ck_assert_int_eq(cs_fstate_insert(&ctx, st, 1, 9, A), CS_OK);
    ck_assert_int_eq(cs_fstate_insert(&ctx, st, 2, 3, B), CS_OK);
    ck_assert_int_eq(cs_fstate_insert(&ctx, st, 3, 7, B), CS_OK);
    ck_assert_int_eq(cs_fstate_insert(&ctx, st, 4, 1, C), CS_OK);
    ck_assert_int_eq(cs_fstate_states(st), 3);
    ck_assert_int_eq(cs_fstate_members(st), 5);
    ck_assert_int_eq(cs_fstate_of(st, 0), cs_fstate_of(st, 1));
    ck_assert_int_ne(cs_fstate_of(st, 0), cs_fstate_of(st, 2));
    /* A = B = 1 > C: A's and B's members by id (3 5 7 9), then C's */
    set_value(st, 0, 1.0f);
    set_value(st, 2, 1.0f);
    set_value(st, 4, 0.5f);
    const int64_t w1[] = {2, 0, 3, 1, 4};
    expect_walk(st, w1, 5);
    /* all equal: ids 1 3 5 7 9 */
    set_value(st, 4, 1.0f);
    const int64_t w2[] = {4, 2, 0, 3, 1};
    expect_walk(st, w2, 5);
    /* A above: 5 9, then B and C by id: 1 3 7 */
    set_value(st, 0, 2.0f);
    const int64_t w3[] = {0, 1, 4, 2, 3};
    expect_walk(st, w3, 5);
    /* +0 above -0 (the key's order), -infinity last */
    set_value(st, 0, -0.0f);
    set_value(st, 2, 0.0f);
    set_value(st, 4, -INFINITY);
    const int64_t w4[] = {2, 3, 0, 1, 4};
    expect_walk(st, w4, 5);
    /* the keys are cs_frontier_key's */
    int64_t ents[8];
    uint64_t keys[8];
    ck_assert_int_eq(walk_all(st, 8, ents, keys, 8), 5);
    ck_assert(keys[0] == cs_frontier_key(0.0f, 3));
    ck_assert(keys[4] == cs_frontier_key(-INFINITY, 1));
    /* the frontier moves entry 4 into 1's place after 1 leaves; B's 7 changes to A's codes */
    cs_fstate_remove(st, 1);
    cs_fstate_move(st, 4, 1);
    ck_assert_int_eq(cs_fstate_recode(&ctx, st, 3, A), CS_OK);
    ck_assert_int_eq(cs_fstate_members(st), 4);
    ck_assert_int_eq(cs_fstate_states(st), 3);
    const int64_t w5[] = {2, 0, 3, 1}; /* 0: 3, then -0: 5 7, then -inf: 1 */
    expect_walk(st, w5, 4);
    /* C's last member leaves: C is released, its id reused by a new state */
    const int32_t c_id = cs_fstate_of(st, 1);
    cs_fstate_remove(st, 1);
    ck_assert_int_eq(cs_fstate_states(st), 2);
    const uint8_t D[2] = {4, 0};
    ck_assert_int_eq(cs_fstate_insert(&ctx, st, 1, 11, D), CS_OK);
    ck_assert_int_eq(cs_fstate_of(st, 1), c_id);
    ck_assert_int_eq(memcmp(cs_fstate_codes(st, c_id), D, 2), 0);
    cs_fstate_destroy(&st);
    ck_assert_ptr_null(st);
    cs_fstate_destroy(&st);
}
END_TEST

static int cmp_desc(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

#define RG 3
#define RMAX 3000

/* The reference: entries 0..n dense (as the frontier's), their ids and codes. */
typedef struct ref {
    int64_t n;
    int64_t id[RMAX];
    uint8_t codes[RMAX * RG];
} ref;

static void random_codes(cs_rng *r, uint8_t *c)
{
    for (int g = 0; g < RG; g++)
        c[g] = (uint8_t)cs_rng_below(r, g == 0 ? 3 : 2); /* 12 states at most */
}

/* One random operation on st and the reference. */
static void random_op(cs_fstate *st, ref *R, cs_rng *r, int64_t *next_id)
{
    const uint64_t op = cs_rng_below(r, 10);
    if (R->n < 10 || (op < 5 && R->n < RMAX)) {
        const int64_t e = R->n++;
        R->id[e] = (*next_id += 1 + (int64_t)cs_rng_below(r, 3)); /* increasing, not dense */
        if (cs_rng_below(r, 4) == 0) /* some ids from the top of the 32-bit range */
            R->id[e] = (int64_t)UINT32_MAX - *next_id;
        random_codes(r, R->codes + e * RG);
        if (cs_fstate_insert(&ctx, st, e, R->id[e], R->codes + e * RG) != CS_OK)
            ck_abort_msg("insert of entry %lld failed", (long long)e);
    } else if (op < 8) { /* the frontier's removal: the last entry moves into the hole */
        const int64_t e = (int64_t)cs_rng_below(r, (uint64_t)R->n), last = --R->n;
        cs_fstate_remove(st, e);
        if (e != last) {
            cs_fstate_move(st, last, e);
            R->id[e] = R->id[last];
            memcpy(R->codes + e * RG, R->codes + last * RG, RG);
        }
    } else {
        const int64_t e = (int64_t)cs_rng_below(r, (uint64_t)R->n);
        random_codes(r, R->codes + e * RG);
        if (cs_fstate_recode(&ctx, st, e, R->codes + e * RG) != CS_OK)
            ck_abort_msg("recode of entry %lld failed", (long long)e);
    }
}

START_TEST(test_random_against_reference)
{
    static ref R;
    static uint64_t want[RMAX], keys[RMAX];
    static int64_t ents[RMAX];
    const float vals[] = {-INFINITY, -1.0f, -0.0f, 0.0f, 0.25f, 1.0f};
    cs_fstate *st = NULL;
    ck_assert_int_eq(cs_fstate_create(&ctx, RG, &st), CS_OK);
    cs_rng r;
    cs_rng_init(&r, 7, CS_RNG_POLICY, 1, 2);
    memset(&R, 0, sizeof R);
    int64_t next_id = 0;
    int ties = 0;
    for (int round = 0; round < 60; round++) {
        const int64_t ops = 1 + (int64_t)cs_rng_below(&r, 200);
        for (int64_t i = 0; i < ops; i++)
            random_op(st, &R, &r, &next_id);
        ck_assert_int_eq(cs_fstate_members(st), R.n);
        int64_t ns;
        const uint8_t *codes;
        float *val;
        cs_fstate_table(st, &ns, &codes, &val);
        for (int64_t s = 0; s < ns; s++)
            val[s] = vals[cs_rng_below(&r, sizeof vals / sizeof vals[0])];
        for (int64_t e = 0; e < R.n; e++) {
            const int32_t sid = cs_fstate_of(st, e);
            if (sid < 0 || memcmp(cs_fstate_codes(st, sid), R.codes + e * RG, RG) != 0)
                ck_abort_msg("round %d: entry %lld is in the wrong state", round, (long long)e);
            want[e] = cs_frontier_key(val[sid], R.id[e]);
        }
        qsort(want, (size_t)R.n, sizeof *want, cmp_desc);
        const int64_t chunk = 1 + (int64_t)cs_rng_below(&r, 300);
        const int64_t got = walk_all(st, chunk, ents, keys, RMAX);
        ck_assert_int_eq(got, R.n);
        for (int64_t i = 0; i < got; i++) {
            if (keys[i] != want[i] || cs_frontier_key_id(keys[i]) != R.id[ents[i]])
                ck_abort_msg("round %d: walk %lld: key %llx (entry %lld), want %llx", round,
                             (long long)i, (unsigned long long)keys[i], (long long)ents[i],
                             (unsigned long long)want[i]);
            ties += i > 0 && keys[i] >> 32 == keys[i - 1] >> 32 &&
                    cs_fstate_of(st, ents[i]) != cs_fstate_of(st, ents[i - 1]);
        }
    }
    ck_assert_int_gt(ties, 100); /* equal values across states were walked, interleaved */
    while (R.n > 0) {
        cs_fstate_remove(st, --R.n);
    }
    ck_assert_int_eq(cs_fstate_states(st), 0);
    ck_assert_int_eq(cs_fstate_members(st), 0);
    cs_fstate_destroy(&st);
}
END_TEST

/* The tracked frontier's states against its codes and its walk against its keys. */
static void check_tracked(cs_frontier *f, uint64_t *want, uint64_t *keys, int64_t *ents)
{
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    ck_assert_ptr_nonnull(v.st);
    ck_assert_int_eq(cs_fstate_members(v.st), v.n);
    int64_t ns;
    const uint8_t *codes;
    float *val;
    cs_fstate_table(v.st, &ns, &codes, &val);
    for (int64_t e = 0; e < v.n; e++) {
        const int32_t sid = cs_fstate_of(v.st, e);
        if (sid < 0 || memcmp(cs_fstate_codes(v.st, sid), v.codes + e * v.stride, RG) != 0)
            ck_abort_msg("entry %lld is in the wrong state", (long long)e);
        want[e] = cs_frontier_key(val[sid], v.id[e]);
    }
    qsort(want, (size_t)v.n, sizeof *want, cmp_desc);
    ck_assert_int_eq(walk_all(v.st, 97, ents, keys, v.n), v.n);
    for (int64_t i = 0; i < v.n; i++)
        if (keys[i] != want[i] || v.id[ents[i]] != cs_frontier_key_id(keys[i]))
            ck_abort_msg("walk %lld: key %llx, want %llx", (long long)i,
                         (unsigned long long)keys[i], (unsigned long long)want[i]);
}

/* One round of the tracked frontier: a batch of new pages (some repeated) with random codes
 * written through the view, some entries recoded, some removed at once. */
static void tracked_round(cs_frontier *f, cs_rng *r, int64_t *next_id, int64_t *ids, int64_t *ent)
{
    const int64_t nb = 200 + (int64_t)cs_rng_below(r, 400);
    for (int64_t j = 0; j < nb; j++)
        ids[j] = j > 0 && cs_rng_below(r, 5) == 0 ? ids[j - 1] : (*next_id += 1);
    ck_assert_int_eq(cs_frontier_add_new(&ctx, f, ids, nb, ent), CS_OK);
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    int bad = 0;
    for (int64_t j = 0; j < nb; j++) {
        const int64_t e = ent[j] & (CS_FRONTIER_ADDED - 1);
        if ((ent[j] & CS_FRONTIER_ADDED) || cs_rng_below(r, 3) == 0) {
            random_codes(r, v.codes + e * v.stride);
            bad |= cs_frontier_recode(&ctx, f, e) != CS_OK;
        }
    }
    ck_assert_int_eq(bad, 0);
    int64_t k = 0;
    for (int64_t e = 0; e < v.n; e++)
        if (cs_rng_below(r, 6) == 0)
            ent[k++] = e;
    ck_assert_int_eq(cs_frontier_remove_sorted(&ctx, f, ent, k), CS_OK);
}

START_TEST(test_tracked_frontier)
{
    static uint64_t want[RMAX * 2], keys[RMAX * 2];
    static int64_t ents[RMAX * 2], ids[RMAX];
    const float vals[] = {-1.0f, 0.0f, 0.5f, 1.0f};
    omp_set_num_threads(3);
    cs_frontier *f = NULL;
    ck_assert_int_eq(cs_frontier_create(&ctx, 1500, RG, &f), CS_OK);
    ck_assert_int_eq(cs_frontier_track_states(&ctx, f), CS_OK);
    cs_rng r;
    cs_rng_init(&r, 9, CS_RNG_POLICY, 3, 4);
    int64_t next_id = 0, evicted = 0;
    for (int round = 0; round < 40; round++) {
        tracked_round(f, &r, &next_id, ids, ents);
        cs_frontier_view v;
        cs_frontier_view_get(f, &v);
        int64_t ns;
        const uint8_t *codes;
        float *val;
        cs_fstate_table(v.st, &ns, &codes, &val);
        for (int64_t s = 0; s < ns; s++)
            val[s] = vals[cs_rng_below(&r, 4)];
        for (int64_t e = 0; e < v.n; e++)
            v.q[e] = val[cs_fstate_of(v.st, e)];
        check_tracked(f, want, keys, ents);
        evicted += cs_frontier_evict(f); /* the lowest keys leave, their states follow */
        check_tracked(f, want, keys, ents);
    }
    ck_assert_int_gt(evicted, 500);
    cs_frontier_clear(f);
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    ck_assert_int_eq(cs_fstate_members(v.st), 0);
    ck_assert_int_eq(cs_fstate_states(v.st), 0);
    cs_frontier_destroy(&f);
}
END_TEST

/* The memory of a full tracked frontier at G = 12 (the default), its entries in 1 000 states:
 * the untracked figure (check_frontier) plus 16 bytes an entry and the states'. */
START_TEST(test_tracked_bytes)
{
    const int64_t n = 100000;
    cs_frontier *f = NULL, *u = NULL;
    ck_assert_int_eq(cs_frontier_create(&ctx, n, 12, &f), CS_OK);
    ck_assert_int_eq(cs_frontier_create(&ctx, n, 12, &u), CS_OK);
    ck_assert_int_eq(cs_frontier_track_states(&ctx, f), CS_OK);
    int bad = 0; /* (no Check assertion per entry: each is a system call in fork mode) */
    for (int64_t id = 0; id < n; id++) {
        int64_t e;
        bad |= cs_frontier_add(&ctx, f, id, &e) != CS_OK || cs_frontier_add(&ctx, u, id, &e);
        cs_frontier_view v;
        cs_frontier_view_get(f, &v);
        v.codes[e * 12] = (uint8_t)(id % 40);
        v.codes[e * 12 + 1] = (uint8_t)(id / 40 % 25);
        bad |= cs_frontier_recode(&ctx, f, e) != CS_OK;
    }
    ck_assert_int_eq(bad, 0);
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    ck_assert_int_eq(cs_fstate_states(v.st), 1000);
    const double bt = cs_frontier_bytes_per_entry(f), bu = cs_frontier_bytes_per_entry(u);
    ck_assert_msg(bt >= bu + 16.0 && bt <= bu + 24.0, "tracked %.2f, untracked %.2f bytes", bt, bu);
    fprintf(stderr,
            "bytes per entry at G = 12, 10^5 entries in 1 000 states: %.2f tracked, "
            "%.2f untracked\n",
            bt, bu);
    cs_frontier_destroy(&f);
    cs_frontier_destroy(&u);
}
END_TEST

START_TEST(test_bad_width)
{
    cs_fstate *st = NULL;
    ck_assert_int_eq(cs_fstate_create(&ctx, 0, &st), CS_ERR_ARG);
    ck_assert_ptr_null(st);
}
END_TEST

static Suite *fstate_suite(void)
{
    Suite *s = suite_create("fstate");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_hand_checked);
    tcase_add_test(tc, test_random_against_reference);
    tcase_add_test(tc, test_tracked_frontier);
    tcase_add_test(tc, test_tracked_bytes);
    tcase_add_test(tc, test_bad_width);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fstate_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
