/*
 * check_findex: unit tests of the frontier's ordered key index (serial, forked, no MPI_Init).
 *
 * Hand-checked ties through cs_frontier_key (+0 above -0, -infinity last, equal values in the
 * order of the lower id first), walks down and up from any bound, counts below a bound and the
 * histograms of the k-th largest's rounds, all against a sorted reference through random rounds
 * of insertions and removals (values drawn from few distinct ones, so most keys tie on value),
 * removals in bulk from the top and the bottom (the selection's and the eviction's pattern,
 * which empties leaves and makes the tree rebuild itself), and a load from sorted keys.
 */
#include "crawlsim/core.h"
#include "crawlsim/findex.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

static cs_findex *make(void)
{
    cs_findex *x = NULL;
    ck_assert_int_eq(cs_findex_create(&ctx, &x), CS_OK);
    ck_assert_int_eq(cs_findex_size(x), 0);
    return x;
}

static void put(cs_findex *x, uint64_t key, int want_added)
{
    int added = -1;
    ck_assert_int_eq(cs_findex_insert(&ctx, x, key, &added), CS_OK);
    ck_assert_int_eq(added, want_added);
}

START_TEST(test_ties_by_hand)
{
    cs_findex *x = make();
    /* (value, id) in the order the selection must see them: best first */
    const float q[] = {1.0f, 1.0f, 0.5f, 0.0f, -0.0f, -1.0f, -INFINITY, -INFINITY};
    const int64_t id[] = {2, 9, 7, 5, 3, 4, 1, 6};
    const int n = 8;
    for (int i = n - 1; i >= 0; i--) /* inserted in another order */
        put(x, cs_frontier_key(q[(i * 3) % n], id[(i * 3) % n]), 1);
    put(x, cs_frontier_key(0.5f, 7), 0); /* there already */
    ck_assert_int_eq(cs_findex_size(x), n);
    uint64_t out[16];
    ck_assert_int_eq(cs_findex_down(x, UINT64_MAX, out, 16), n);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(cs_frontier_key_id(out[i]), id[i]);
    ck_assert_int_eq(cs_findex_up(x, 0, out, 16), n);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(cs_frontier_key_id(out[i]), id[n - 1 - i]);
    /* +0 above -0; -infinity below -1 */
    ck_assert_int_eq(cs_findex_count_below(x, cs_frontier_key(0.0f, 5)), 4);
    ck_assert_int_eq(cs_findex_count_below(x, cs_frontier_key(-0.0f, 3)), 3);
    ck_assert_int_eq(cs_findex_count_below(x, cs_frontier_key(-1.0f, 4)), 2);
    /* a walk from a bound between keys, and one limited in length */
    ck_assert_int_eq(cs_findex_down(x, cs_frontier_key(0.5f, 7) - 1, out, 2), 2);
    ck_assert_int_eq(cs_frontier_key_id(out[0]), 5);
    ck_assert_int_eq(cs_frontier_key_id(out[1]), 3);
    ck_assert_int_eq(cs_findex_up(x, cs_frontier_key(-1.0f, 4) + 1, out, 2), 2);
    ck_assert_int_eq(cs_frontier_key_id(out[0]), 3);
    ck_assert_int_eq(cs_frontier_key_id(out[1]), 5);
    ck_assert_int_eq(cs_findex_remove(x, cs_frontier_key(1.0f, 2)), 1);
    ck_assert_int_eq(cs_findex_remove(x, cs_frontier_key(1.0f, 2)), 0);
    ck_assert_int_eq(cs_findex_remove(x, cs_frontier_key(1.0f, 3)), 0); /* no such key */
    ck_assert_int_eq(cs_findex_down(x, UINT64_MAX, out, 1), 1);
    ck_assert_int_eq(cs_frontier_key_id(out[0]), 9);
    ck_assert(cs_findex_check(x));
    cs_findex_destroy(&x);
    ck_assert_ptr_null(x);
    cs_findex_destroy(&x);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The reference: the keys present, unsorted (ref[0..n)), and a sorted copy. */
typedef struct ref {
    uint64_t *k, *s;
    int64_t n, cap;
} ref;

/* A key of a random entry: few distinct values (ties decided by the id), some -0 and -inf. */
static uint64_t rand_key(cs_rng *r)
{
    static const float vals[] = {0.0f, -0.0f, 1.0f, 0.25f, -0.5f, 3.0f, -INFINITY, 0.125f};
    const float q = vals[cs_rng_below(r, 8)];
    return cs_frontier_key(q, (int64_t)cs_rng_below(r, 200000));
}

/* Compares every query of x with the reference from a few random bounds. */
static void compare(const cs_findex *x, ref *R, cs_rng *r)
{
    memcpy(R->s, R->k, (size_t)R->n * sizeof *R->s);
    qsort(R->s, (size_t)R->n, sizeof *R->s, cmp_u64);
    ck_assert(cs_findex_check(x));
    ck_assert_int_eq(cs_findex_size(x), R->n);
    uint64_t *out = malloc(((size_t)R->n + 1) * sizeof *out);
    ck_assert_ptr_nonnull(out);
    for (int t = 0; t < 8; t++) {
        const uint64_t b = t == 0 ? UINT64_MAX : t == 1 ? 0 : rand_key(r) + (uint64_t)(t & 1);
        int64_t below = 0;
        while (below < R->n && R->s[below] < b)
            below++;
        ck_assert_int_eq(cs_findex_count_below(x, b), below);
        const int64_t m = (int64_t)cs_rng_below(r, (uint64_t)R->n + 2);
        const int64_t le = below + (below < R->n && R->s[below] == b);
        /* one assertion per walk (an assertion per key would cost Check a write each) */
        const int64_t nd = cs_findex_down(x, b, out, m);
        ck_assert_int_eq(nd, m < le ? m : le);
        int64_t bad = 0;
        while (bad < nd && out[bad] == R->s[le - 1 - bad])
            bad++;
        ck_assert_msg(bad == nd, "down from %#llx: key %lld is %#llx, not %#llx",
                      (unsigned long long)b, (long long)bad, (unsigned long long)out[bad],
                      (unsigned long long)R->s[le - 1 - bad]);
        const int64_t nu = cs_findex_up(x, b, out, m);
        ck_assert_int_eq(nu, m < R->n - below ? m : R->n - below);
        bad = 0;
        while (bad < nu && out[bad] == R->s[below + bad])
            bad++;
        ck_assert_msg(bad == nu, "up from %#llx: key %lld is %#llx, not %#llx",
                      (unsigned long long)b, (long long)bad, (unsigned long long)out[bad],
                      (unsigned long long)R->s[below + bad]);
    }
    free(out);
}

static void ref_add(ref *R, uint64_t key)
{
    if (R->n == R->cap) {
        R->cap = R->cap ? 2 * R->cap : 1024;
        R->k = realloc(R->k, (size_t)R->cap * sizeof *R->k);
        R->s = realloc(R->s, (size_t)R->cap * sizeof *R->s);
        ck_assert(R->k != NULL && R->s != NULL);
    }
    R->k[R->n++] = key;
}

/* Where each key of the reference is in R.k: open addressing with linear probing (2^17 slots,
 * more than twice the keys the test ever holds; no key is 0 or 1: cs_frontier_key's low word is
 * 2^32 - 1 less an id below 200000), 1 marking a removed key's slot. */
enum { MAP_BITS = 17, MAP_N = 1 << MAP_BITS };
typedef struct keymap {
    uint64_t key[MAP_N];
    int64_t at[MAP_N];
} keymap;

static int64_t map_slot(const keymap *m, uint64_t key)
{
    int64_t i = (int64_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - MAP_BITS));
    while (m->key[i] != 0 && m->key[i] != key)
        i = (i + 1) & (MAP_N - 1);
    return i;
}

/* The index of key in R.k, or -1. */
static int64_t map_find(const keymap *m, uint64_t key)
{
    const int64_t i = map_slot(m, key);
    return m->key[i] == key ? m->at[i] : -1;
}

static void map_put(keymap *m, uint64_t key, int64_t at)
{
    int64_t i = (int64_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - MAP_BITS));
    while (m->key[i] > 1 && m->key[i] != key)
        i = (i + 1) & (MAP_N - 1);
    const int64_t j = map_slot(m, key); /* key already present after a removed slot */
    if (m->key[j] == key)
        i = j;
    m->key[i] = key;
    m->at[i] = at;
}

static void map_del(keymap *m, uint64_t key)
{
    m->key[map_slot(m, key)] = 1;
}

START_TEST(test_random_rounds)
{
    cs_findex *x = make();
    ref R = {0};
    keymap *m = calloc(1, sizeof *m);
    ck_assert_ptr_nonnull(m);
    cs_rng r;
    cs_rng_init(&r, 7, CS_RNG_POLICY, 0, 0);
    for (int round = 0; round < 40; round++) {
        /* mostly insertions while growing, mostly removals in the last rounds */
        const int grow = round < 25;
        for (int op = 0; op < 1500; op++) {
            const uint64_t key = cs_rng_below(&r, 3) == 0 && R.n > 0
                                     ? R.k[cs_rng_below(&r, (uint64_t)R.n)]
                                     : rand_key(&r);
            const int64_t at = map_find(m, key);
            if (cs_rng_below(&r, 10) < (grow ? 7u : 3u)) {
                put(x, key, at < 0);
                if (at < 0) {
                    map_put(m, key, R.n);
                    ref_add(&R, key);
                }
            } else {
                ck_assert_int_eq(cs_findex_remove(x, key), at >= 0);
                if (at >= 0) { /* the last key moves into its place */
                    ck_assert(R.k != NULL && at < R.n);
                    map_del(m, key);
                    R.k[at] = R.k[--R.n];
                    if (at < R.n)
                        map_put(m, R.k[at], at);
                }
            }
        }
        compare(x, &R, &r);
    }
    cs_findex_destroy(&x);
    free(m);
    free(R.k);
    free(R.s);
}
END_TEST

/* The selection's and the eviction's pattern: rounds of insertions, then the best keys and the
 * lowest removed in bulk, through walks from the ends (leaves emptied, the tree rebuilt). */
START_TEST(test_bulk_ends)
{
    cs_findex *x = make();
    ref R = {0};
    cs_rng r;
    cs_rng_init(&r, 11, CS_RNG_POLICY, 0, 0);
    uint64_t *out = malloc(40000 * sizeof *out);
    ck_assert_ptr_nonnull(out);
    for (int round = 0; round < 30; round++) {
        for (int i = 0; i < (round < 10 ? 6000 : 1000); i++) {
            const uint64_t key = rand_key(&r);
            int added = 0;
            ck_assert_int_eq(cs_findex_insert(&ctx, x, key, &added), CS_OK);
            if (added)
                ref_add(&R, key);
        }
        const int64_t top = cs_findex_down(x, UINT64_MAX, out, round < 10 ? 500 : 2500);
        for (int64_t i = 0; i < top; i++)
            ck_assert_int_eq(cs_findex_remove(x, out[i]), 1);
        const int64_t low = cs_findex_up(x, 0, out, round < 10 ? 500 : 2000);
        for (int64_t i = 0; i < low; i++)
            ck_assert_int_eq(cs_findex_remove(x, out[i]), 1);
        /* the reference: its keys less the removed ones (the best top, the lowest low) */
        memcpy(R.s, R.k, (size_t)R.n * sizeof *R.s);
        qsort(R.s, (size_t)R.n, sizeof *R.s, cmp_u64);
        ck_assert_int_ge(R.n, top + low);
        memcpy(R.k, R.s + low, (size_t)(R.n - top - low) * sizeof *R.k);
        R.n -= top + low;
        compare(x, &R, &r);
    }
    ck_assert_int_lt(cs_findex_size(x), 20000);
    /* what remains is loaded again from its sorted keys: the same answers */
    const int64_t n = cs_findex_up(x, 0, out, 40000);
    ck_assert_int_eq(cs_findex_load(&ctx, x, out, n), CS_OK);
    compare(x, &R, &r);
    cs_findex_clear(x);
    R.n = 0;
    compare(x, &R, &r);
    free(out);
    cs_findex_destroy(&x);
    free(R.k);
    free(R.s);
}
END_TEST

/* Removals at random places leave the leaves sparse: the tree rebuilds itself, the answers stay. */
START_TEST(test_sparse_rebuild)
{
    cs_findex *x = make();
    ref R = {0};
    cs_rng r;
    cs_rng_init(&r, 5, CS_RNG_POLICY, 0, 0);
    for (int i = 0; i < 40000; i++) {
        const uint64_t key = cs_frontier_key((float)cs_rng_uniform(&r), i);
        put(x, key, 1);
        ref_add(&R, key);
    }
    for (int64_t i = 0; i < R.n;) {
        if (cs_rng_below(&r, 5) != 0) {
            ck_assert_int_eq(cs_findex_remove(x, R.k[i]), 1);
            R.k[i] = R.k[--R.n];
        } else {
            i++;
        }
        if (R.n % 4096 == 0)
            ck_assert(cs_findex_check(x));
    }
    compare(x, &R, &r);
    cs_findex_destroy(&x);
    free(R.k);
    free(R.s);
}
END_TEST

/* The k-th largest's histogram rounds: counts per bucket of 8 bits below a prefix. */
START_TEST(test_hist)
{
    cs_findex *x = make();
    cs_rng r;
    cs_rng_init(&r, 3, CS_RNG_POLICY, 0, 0);
    enum { N = 20000 };
    uint64_t *k = malloc(N * sizeof *k);
    ck_assert_ptr_nonnull(k);
    int64_t n = 0;
    for (int i = 0; i < N; i++) {
        int added = 0;
        const uint64_t key = i % 3 ? rand_key(&r) : cs_rng_u64(&r); /* and keys of any bits */
        ck_assert_int_eq(cs_findex_insert(&ctx, x, key, &added), CS_OK);
        if (added)
            k[n++] = key;
    }
    const struct {
        uint64_t prefix;
        int shift, nb;
    } cases[] = {{0, 56, 256},
                 {UINT64_C(0xff) << 56, 48, 256},
                 {UINT64_C(0xbf) << 56, 48, 256},
                 {cs_frontier_key(0.0f, 0) & ~UINT64_C(0xffffffff), 24, 256},
                 {0, 60, 16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t h[256], want[256];
        memset(want, 0, sizeof want);
        const int w = cases[c].shift + __builtin_ctz((unsigned)cases[c].nb);
        for (int64_t i = 0; i < n; i++) {
            const int match = w == 64 || (k[i] >> w) == (cases[c].prefix >> w);
            if (match)
                want[(k[i] >> cases[c].shift) & (uint64_t)(cases[c].nb - 1)]++;
        }
        cs_findex_hist(x, cases[c].prefix, cases[c].shift, cases[c].nb, h);
        for (int b = 0; b < cases[c].nb; b++)
            ck_assert_int_eq(h[b], want[b]);
    }
    free(k);
    cs_findex_destroy(&x);
}
END_TEST

/* cs_findex_prefetch is a hint: on an index large enough for it to descend (2^19 keys and more),
 * with keys present, absent and at both ends, in groups of any length, it leaves the index as it
 * was (its invariants, size and every key, read by walks from both ends). */
static uint64_t walk_sum(const cs_findex *x, int64_t *count)
{
    uint64_t out[512], h = 0, from = 0;
    *count = 0;
    for (;;) {
        const int64_t k = cs_findex_up(x, from, out, 512);
        for (int64_t j = 0; j < k; j++)
            h += cs_mix64(out[j]);
        *count += k;
        if (k < 512 || out[k - 1] == UINT64_MAX)
            return h;
        from = out[k - 1] + 1;
    }
}

START_TEST(test_prefetch_changes_nothing)
{
    cs_findex *x = make();
    cs_rng r;
    cs_rng_init(&r, 11, CS_RNG_POLICY, 0, 0);
    const int64_t n = ((int64_t)1 << 19) + 1000;
    uint64_t *k = malloc((size_t)n * sizeof *k);
    ck_assert_ptr_nonnull(k);
    for (int64_t i = 0; i < n; i++) {
        k[i] = cs_rng_u64(&r);
        put(x, k[i], 1);
    }
    int64_t c0 = 0;
    const uint64_t h0 = walk_sum(x, &c0);
    uint64_t q[100];
    for (int round = 0; round < 200; round++) {
        const int m = 1 + (int)cs_rng_below(&r, 100);
        for (int j = 0; j < m; j++) {
            const uint64_t c = cs_rng_below(&r, 4);
            q[j] = c == 0   ? k[cs_rng_below(&r, (uint64_t)n)]
                   : c == 1 ? cs_rng_u64(&r)
                   : c == 2 ? 0
                            : UINT64_MAX;
        }
        cs_findex_prefetch(x, q, m);
    }
    ck_assert(cs_findex_check(x));
    int64_t c1 = 0;
    ck_assert_int_eq(cs_findex_size(x), n);
    ck_assert(walk_sum(x, &c1) == h0);
    ck_assert_int_eq(c1, c0);
    ck_assert_int_eq(c1, n);
    cs_findex_destroy(&x);
    free(k);
}
END_TEST

static Suite *findex_suite(void)
{
    Suite *s = suite_create("findex");
    TCase *tc = tcase_create("order");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_ties_by_hand);
    tcase_add_test(tc, test_random_rounds);
    tcase_add_test(tc, test_bulk_ends);
    tcase_add_test(tc, test_sparse_rebuild);
    tcase_add_test(tc, test_hist);
    tcase_add_test(tc, test_prefetch_changes_nothing);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(findex_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
