/*
 * check_frontier: unit tests of the bounded frontier (serial, forked, no MPI_Init).
 *
 * Add/find/remove against a reference array through many random operations (the last entry
 * moves into a removed slot, the hash follows it), growth past the initial 1024 entries and
 * hash rehashes, eviction against a sorted reference (ties in value broken by the lower id),
 * the order of cs_frontier_key, the memory per entry of a large frontier, and the batched
 * addition of new pages (cs_frontier_add_new, on 3 OpenMP threads) against one
 * cs_frontier_find_or_add per page, and the removal of many entries at once on 3 threads
 * against one removal at a time, and rounds of additions and evictions at capacity (one thread
 * and 3, the keys computed or given) that must leave the same entries and a hash that finds them.
 */
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <float.h>
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

static cs_frontier *make(int64_t capacity, int stride)
{
    cs_frontier *f = NULL;
    ck_assert_int_eq(cs_frontier_create(&ctx, capacity, stride, &f), CS_OK);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(cs_frontier_size(f), 0);
    ck_assert_int_eq(cs_frontier_capacity(f), capacity);
    return f;
}

/* Adds id and stamps the entry's fields with values derived from id. Checks without a Check
 * assertion per call (each records a mark point, a system call in fork mode). */
static int64_t add(cs_frontier *f, int64_t id)
{
    int64_t slot = -2;
    if (cs_frontier_add(&ctx, f, id, &slot) != CS_OK || slot != cs_frontier_size(f) - 1)
        ck_abort_msg("add(%lld) failed or gave slot %lld", (long long)id, (long long)slot);
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    int bad = v.id[slot] != id || v.q[slot] != 0.0f || v.lk[slot].anchor_rl != 0.0f ||
              v.lk[slot].par.sum_rel != 0.0f || v.lk[slot].par.n != 0 ||
              v.lk[slot].par.sum_rl != 0.0f || v.lk[slot].par.path_rel != 0;
    for (int g = 0; g < v.stride; g++)
        bad |= v.codes[slot * v.stride + g] != 0;
    if (bad)
        ck_abort_msg("the new entry of %lld is not zeroed", (long long)id);
    v.q[slot] = (float)(id % 1000) * 0.5f;
    v.lk[slot].anchor_rl = (float)id;
    v.lk[slot].par.sum_rel = (float)(id * 7);
    v.lk[slot].par.n = (uint16_t)(id & 0xffff);
    v.lk[slot].par.sum_rl = 1.0f;
    v.lk[slot].par.path_rel = (uint8_t)(id >> 3);
    for (int g = 0; g < v.stride; g++)
        v.codes[slot * v.stride + g] = (uint8_t)(id + g);
    return slot;
}

/* Number of entries whose find or stamped fields disagree with their id; reference ids ref[] of
 * the entries (in slot order). */
static int64_t check_all(cs_frontier *f, const int64_t *ref, int64_t n)
{
    int64_t bad = 0;
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    bad += v.n != n || cs_frontier_size(f) != n;
    for (int64_t i = 0; i < n && v.n == n; i++) {
        const int64_t id = ref[i];
        bad += v.id[i] != id;
        bad += cs_frontier_find(f, id) != i;
        bad += v.q[i] != (float)(id % 1000) * 0.5f || v.lk[i].anchor_rl != (float)id ||
               v.lk[i].par.sum_rel != (float)(id * 7) || v.lk[i].par.n != (uint16_t)(id & 0xffff) ||
               v.lk[i].par.path_rel != (uint8_t)(id >> 3);
        for (int g = 0; g < v.stride; g++)
            bad += v.codes[i * v.stride + g] != (uint8_t)(id + g);
    }
    return bad;
}

START_TEST(test_add_find_remove_small)
{
    cs_frontier *f = make(100, 3);
    ck_assert_int_eq(cs_frontier_find(f, 0), -1);
    ck_assert_int_eq(cs_frontier_find(f, 12345), -1);
    int64_t ref[4] = {10, 20, 30, 40};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(add(f, ref[i]), i);
    ck_assert_int_eq(check_all(f, ref, 4), 0);
    /* removing slot 1 moves the last entry (40) into it */
    cs_frontier_remove(f, 1);
    ref[1] = 40;
    ck_assert_int_eq(cs_frontier_find(f, 20), -1);
    ck_assert_int_eq(check_all(f, ref, 3), 0);
    /* removing the last entry moves nothing */
    cs_frontier_remove(f, 2);
    ck_assert_int_eq(cs_frontier_find(f, 30), -1);
    ck_assert_int_eq(check_all(f, ref, 2), 0);
    cs_frontier_remove(f, 0);
    ref[0] = 40;
    ck_assert_int_eq(check_all(f, ref, 1), 0);
    cs_frontier_remove(f, 0);
    ck_assert_int_eq(cs_frontier_size(f), 0);
    ck_assert_int_eq(cs_frontier_find(f, 40), -1);
    /* ids can come back */
    ck_assert_int_eq(add(f, 20), 0);
    ck_assert_int_eq(cs_frontier_find(f, 20), 0);
    cs_frontier_clear(f);
    ck_assert_int_eq(cs_frontier_size(f), 0);
    ck_assert_int_eq(cs_frontier_find(f, 20), -1);
    cs_frontier_destroy(&f);
    ck_assert_ptr_null(f);
    cs_frontier_destroy(&f); /* NULL is fine */
    cs_frontier_destroy(NULL);
}
END_TEST

/* Many random adds and removes with ids drawn from a small range (so that probe chains collide
 * and removals shift them), through growth from 0 to 6000 entries and back: after every phase,
 * every present id is at its slot and every absent id gives -1. */
START_TEST(test_random_ops_against_reference)
{
    const int64_t U = 20000; /* id universe */
    cs_frontier *f = make(1 << 20, 5);
    int64_t *ref = malloc((size_t)U * sizeof *ref);   /* slot -> id */
    int64_t *where = malloc((size_t)U * sizeof *ref); /* id -> slot or -1 */
    ck_assert_ptr_nonnull(ref);
    ck_assert_ptr_nonnull(where);
    for (int64_t i = 0; i < U; i++)
        where[i] = -1;
    int64_t n = 0, bad = 0;
    cs_rng r;
    cs_rng_init(&r, 1234, CS_RNG_TEST, 0, 0);
    /* phases: grow (add-heavy), churn, shrink (remove-heavy), grow again */
    static const struct {
        int ops, add_per_mille;
    } phases[] = {{9000, 900}, {20000, 500}, {12000, 150}, {8000, 800}, {20000, 500}};
    for (size_t ph = 0; ph < sizeof phases / sizeof phases[0]; ph++) {
        for (int op = 0; op < phases[ph].ops; op++) {
            const int do_add = n == 0 || (int)cs_rng_below(&r, 1000) < phases[ph].add_per_mille;
            if (do_add) {
                /* ids spread over 2^32 (the key's limit) but drawn from U values */
                int64_t u = (int64_t)cs_rng_below(&r, (uint64_t)U);
                if (where[u] >= 0)
                    continue;
                const int64_t id = u * 104729 + 3;
                add(f, id);
                ref[n] = id;
                where[u] = n++;
            } else {
                int64_t s = (int64_t)cs_rng_below(&r, (uint64_t)n);
                const int64_t id = ref[s];
                bad += cs_frontier_find(f, id) != s;
                cs_frontier_remove(f, s);
                where[(id - 3) / 104729] = -1;
                if (s != n - 1) {
                    ref[s] = ref[n - 1];
                    where[(ref[s] - 3) / 104729] = s;
                }
                n--;
            }
        }
        bad += check_all(f, ref, n);
        for (int64_t u = 0; u < U; u++)
            bad += cs_frontier_find(f, u * 104729 + 3) != where[u];
        for (int64_t u = 0; u < 2000; u++) /* ids never added */
            bad += cs_frontier_find(f, u * 104729 + 4) != -1;
        ck_assert_msg(bad == 0, "phase %zu: %lld mismatches at n = %lld", ph, (long long)bad,
                      (long long)n);
    }
    free(ref);
    free(where);
    cs_frontier_destroy(&f);
}
END_TEST

/* Growth past the first 1024 entries, and hash tables doubled several times: consecutive ids,
 * ids that share their low bits, then removal of every other entry. */
START_TEST(test_growth_and_rehash)
{
    for (int pattern = 0; pattern < 2; pattern++) {
        cs_frontier *f = make(1 << 20, 16);
        const int64_t n = 50000;
        int64_t *ref = malloc((size_t)n * sizeof *ref);
        ck_assert_ptr_nonnull(ref);
        for (int64_t i = 0; i < n; i++) {
            ref[i] = pattern == 0 ? i : i << 16;
            add(f, ref[i]);
            if (i == 1023 || i == 1024 || i == 4096 || i == 30000)
                ck_assert_int_eq(check_all(f, ref, i + 1), 0);
        }
        ck_assert_int_eq(check_all(f, ref, n), 0);
        ck_assert_int_eq(cs_frontier_find(f, pattern == 0 ? n : n << 16), -1);
        /* remove from the front: each removal moves the last entry */
        int64_t m = n;
        for (int64_t k = 0; k < n / 2; k++) {
            cs_frontier_remove(f, k);
            ref[k] = ref[--m];
        }
        ck_assert_int_eq(check_all(f, ref, m), 0);
        cs_frontier_destroy(&f);
        free(ref);
    }
}
END_TEST

/* Batches of new pages with repeats (each page about 3 times, first occurrences in a random
 * order) on 3 threads, the frontier growing through its hash's rebuilds: the same entries, in
 * the same order, as one find_or_add per page; every page found at its entry. */
START_TEST(test_add_new_batch)
{
    omp_set_num_threads(3);
    cs_frontier *f = make(1 << 20, 12), *g = make(1 << 20, 12);
    const int64_t n = 12000;
    int64_t *ids = malloc((size_t)n * sizeof *ids), *ent = malloc((size_t)n * sizeof *ent);
    ck_assert_ptr_nonnull(ids);
    ck_assert_ptr_nonnull(ent);
    cs_rng r;
    cs_rng_init(&r, 5, 0, 0, 0);
    int64_t base = 0, bad = 0;
    for (int batch = 0; batch < 6; batch++) {
        const int64_t m = batch == 0 ? 100 : n / (6 - batch); /* one batch below the threshold */
        for (int64_t j = 0; j < m; j++)
            ids[j] = base + (int64_t)(cs_rng_u64(&r) % (uint64_t)(m / 3 + 1));
        base += m;
        ck_assert_int_eq(cs_frontier_add_new(&ctx, f, ids, m, ent), CS_OK);
        for (int64_t j = 0; j < m; j++) {
            int64_t e = -1;
            int added = 0;
            ck_assert_int_eq(cs_frontier_find_or_add(&ctx, g, ids[j], &e, &added), CS_OK);
            bad += ent[j] != (e | (added ? CS_FRONTIER_ADDED : 0));
        }
    }
    cs_frontier_view v, w;
    cs_frontier_view_get(f, &v);
    cs_frontier_view_get(g, &w);
    ck_assert_int_eq(v.n, w.n);
    for (int64_t i = 0; i < v.n; i++) {
        bad += v.id[i] != w.id[i] || cs_frontier_find(f, v.id[i]) != i || v.q[i] != 0.0f ||
               v.lk[i].par.n != 0;
        for (int c = 0; c < v.stride; c++)
            bad += v.codes[i * v.stride + c] != 0;
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(cs_frontier_find(f, base), -1);
    cs_frontier_destroy(&f);
    cs_frontier_destroy(&g);
    free(ids);
    free(ent);
}
END_TEST

/* Sets of entries removed at once on 3 threads (cs_frontier_remove_sorted: random sets, one with
 * the whole tail, one below the parallel threshold), against one cs_frontier_remove per entry
 * in decreasing order: the same entries in the same places, each found at its place, the
 * removed pages gone. */
START_TEST(test_remove_sorted)
{
    omp_set_num_threads(3);
    cs_frontier *f = make(1 << 20, 12), *g = make(1 << 20, 12);
    const int64_t n = 8000;
    int64_t *sl = malloc((size_t)n * sizeof *sl);
    ck_assert_ptr_nonnull(sl);
    for (int64_t i = 0; i < n; i++) {
        add(f, i * 7919);
        add(g, i * 7919);
    }
    cs_rng r;
    cs_rng_init(&r, 6, 0, 0, 0);
    int64_t bad = 0;
    for (int round = 0; round < 5; round++) {
        const int64_t size = cs_frontier_size(f);
        int64_t k = 0;
        for (int64_t e = 0; e < size; e++) {
            const int take = round == 0   ? e % 97 == 0 && k < 100
                             : round == 1 ? e >= size - 1000 || e % 5 == 0
                                          : cs_rng_u64(&r) % 16 == 0;
            if (take)
                sl[k++] = e;
        }
        cs_frontier_view w;
        cs_frontier_view_get(g, &w);
        for (int64_t i = 0; i < k; i++)
            bad += cs_frontier_find(f, w.id[sl[i]]) != sl[i];
        ck_assert_int_eq(cs_frontier_remove_sorted(&ctx, f, sl, k), CS_OK);
        for (int64_t i = k - 1; i >= 0; i--)
            cs_frontier_remove(g, sl[i]);
        cs_frontier_view v;
        cs_frontier_view_get(f, &v);
        cs_frontier_view_get(g, &w);
        ck_assert_int_eq(v.n, w.n);
        ck_assert_int_eq(v.n, size - k);
        for (int64_t i = 0; i < v.n; i++) {
            bad += v.id[i] != w.id[i] || cs_frontier_find(f, v.id[i]) != i || v.q[i] != w.q[i] ||
                   memcmp(&v.lk[i], &w.lk[i], sizeof v.lk[i]) != 0 ||
                   memcmp(v.codes + i * v.stride, w.codes + i * w.stride, (size_t)v.stride) != 0;
        }
        for (int64_t id = 0; id < n * 7919; id += 7919)
            bad += (cs_frontier_find(f, id) >= 0) != (cs_frontier_find(g, id) >= 0);
    }
    ck_assert_int_eq(bad, 0);
    cs_frontier_destroy(&f);
    cs_frontier_destroy(&g);
    free(sl);
}
END_TEST

/* ---- keys and eviction --------------------------------------------------------------------- */

START_TEST(test_key_order)
{
    /* increasing values */
    const float vals[] = {-INFINITY, -1e30f, -3.5f, -1.0f, -1e-30f, -1e-45f, 0.0f,
                          1e-45f,    1e-30f, 0.25f, 1.0f,  3.5f,    1e30f,   INFINITY};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
            /* value decides, whatever the ids */
            if (i < j) {
                ck_assert_uint_lt(cs_frontier_key(vals[i], 0),
                                  cs_frontier_key(vals[j], 0xffffffff));
                ck_assert_uint_lt(cs_frontier_key(vals[i], 5), cs_frontier_key(vals[j], 7));
                ck_assert_uint_lt(cs_frontier_key(vals[i], 7), cs_frontier_key(vals[j], 5));
            }
        }
    for (int i = 0; i < nv; i++) {
        /* equal values: the lower id has the higher key */
        ck_assert_uint_gt(cs_frontier_key(vals[i], 0), cs_frontier_key(vals[i], 1));
        ck_assert_uint_gt(cs_frontier_key(vals[i], 41), cs_frontier_key(vals[i], 42));
        ck_assert_uint_gt(cs_frontier_key(vals[i], 0xfffffffe),
                          cs_frontier_key(vals[i], 0xffffffff));
        ck_assert_uint_eq(cs_frontier_key(vals[i], 9), cs_frontier_key(vals[i], 9));
    }
    /* random pairs against the (value, lower id first) comparison */
    cs_rng r;
    cs_rng_init(&r, 5, CS_RNG_TEST, 0, 0);
    int bad = 0;
    for (int t = 0; t < 200000; t++) {
        float a = (float)(cs_rng_uniform(&r) * 20.0 - 10.0),
              b = (float)(cs_rng_uniform(&r) * 20.0 - 10.0);
        if (t % 3 == 0)
            b = a;
        if (t % 7 == 0)
            a = 0.0f;
        const int64_t ia = (int64_t)cs_rng_below(&r, 1ULL << 32),
                      ib = (int64_t)cs_rng_below(&r, 1ULL << 32);
        const int want = a > b ? 1 : a < b ? -1 : ia < ib ? 1 : ia > ib ? -1 : 0;
        const uint64_t ka = cs_frontier_key(a, ia), kb = cs_frontier_key(b, ib);
        const int got = ka > kb ? 1 : ka < kb ? -1 : 0;
        bad += want != got;
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

typedef struct ent {
    float q;
    int64_t id;
} ent;

/* Descending (value, then lower id first). */
static int by_key_desc(const void *pa, const void *pb)
{
    const ent *a = pa, *b = pb;
    if (a->q != b->q)
        return a->q > b->q ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id ? 1 : 0;
}

static int by_id(const void *pa, const void *pb)
{
    const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Fills a frontier of capacity cap with n entries, values from `levels` distinct levels (many
 * ties) including negative ones, evicts, and compares the survivors with the first cap entries
 * of the sorted reference. Entries keep their fields through the compaction. */
static void evict_case(int64_t cap, int64_t n, int levels, uint64_t seed)
{
    cs_frontier *f = make(cap, 7);
    ent *e = malloc((size_t)n * sizeof *e);
    int64_t *kept = malloc((size_t)n * sizeof *kept), *want = malloc((size_t)n * sizeof *want);
    ck_assert(e != NULL && kept != NULL && want != NULL);
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_TEST, (uint64_t)n, (uint64_t)cap);
    cs_frontier_view v;
    for (int64_t i = 0; i < n; i++) {
        int64_t id;
        do
            id = (int64_t)cs_rng_below(&r, (uint64_t)n * 10);
        while (cs_frontier_find(f, id) >= 0);
        int64_t s = add(f, id);
        e[i].id = id;
        e[i].q = (float)((int)cs_rng_below(&r, (uint64_t)levels) - levels / 2) * 0.375f;
        cs_frontier_view_get(f, &v);
        v.q[s] = e[i].q;
    }
    const int64_t dropped = cs_frontier_evict(f);
    const int64_t left = n > cap ? cap : n;
    ck_assert_int_eq(dropped, n - left);
    ck_assert_int_eq(cs_frontier_size(f), left);
    qsort(e, (size_t)n, sizeof *e, by_key_desc);
    cs_frontier_view_get(f, &v);
    int64_t bad = 0;
    for (int64_t i = 0; i < left; i++) {
        want[i] = e[i].id;
        kept[i] = v.id[i];
        /* the fields moved with the entry; find follows */
        bad += cs_frontier_find(f, v.id[i]) != i;
        bad += v.lk[i].anchor_rl != (float)v.id[i] || v.lk[i].par.sum_rel != (float)(v.id[i] * 7) ||
               v.lk[i].par.n != (uint16_t)(v.id[i] & 0xffff);
        for (int g = 0; g < 7; g++)
            bad += v.codes[i * 7 + g] != (uint8_t)(v.id[i] + g);
    }
    ck_assert_int_eq(bad, 0);
    qsort(want, (size_t)left, sizeof *want, by_id);
    qsort(kept, (size_t)left, sizeof *kept, by_id);
    for (int64_t i = 0; i < left; i++)
        if (kept[i] != want[i])
            ck_abort_msg("cap %lld n %lld: kept[%lld] = %lld, want %lld", (long long)cap,
                         (long long)n, (long long)i, (long long)kept[i], (long long)want[i]);
    for (int64_t i = left; i < n; i++) /* the evicted are gone from the hash too */
        bad += cs_frontier_find(f, e[i].id) != -1;
    ck_assert_int_eq(bad, 0);
    /* a second eviction has nothing to do */
    ck_assert_int_eq(cs_frontier_evict(f), 0);
    ck_assert_int_eq(cs_frontier_size(f), left);
    free(e);
    free(kept);
    free(want);
    cs_frontier_destroy(&f);
}

START_TEST(test_evict_against_sorted_reference)
{
    evict_case(10, 5, 3, 1);       /* under capacity: nothing */
    evict_case(10, 10, 3, 2);      /* at capacity */
    evict_case(10, 11, 3, 3);      /* one over */
    evict_case(1, 50, 2, 4);       /* keep one */
    evict_case(100, 1000, 1, 6);   /* all values equal: the lowest ids survive */
    evict_case(100, 1000, 5, 7);   /* heavy ties */
    evict_case(3000, 5000, 40, 8); /* past the initial storage */
    evict_case(4999, 5000, 1000, 9);
    evict_case(777, 20000, 100000, 10); /* almost no ties */
}
END_TEST

/* Eviction after removals (the arrays were permuted by swaps) and re-adds after eviction. */
START_TEST(test_evict_after_churn)
{
    cs_frontier *f = make(50, 2);
    cs_frontier_view v;
    for (int64_t id = 0; id < 200; id++) {
        int64_t s = add(f, id);
        cs_frontier_view_get(f, &v);
        v.q[s] = (float)(id % 10); /* values 0..9, 20 ids each */
    }
    for (int64_t id = 0; id < 200; id += 3)
        cs_frontier_remove(f, cs_frontier_find(f, id));
    ck_assert_int_eq(cs_frontier_evict(f), 200 - 67 - 50);
    /* survivors: value 9 (ids 9, 19, .. not multiple of 3), then 8, .. lower ids first */
    int64_t want[50], m = 0;
    for (int val = 9; val >= 0 && m < 50; val--)
        for (int64_t id = val; id < 200 && m < 50; id += 10)
            if (id % 3 != 0)
                want[m++] = id;
    ck_assert_int_eq(m, 50);
    for (int i = 0; i < 50; i++)
        ck_assert_msg(cs_frontier_find(f, want[i]) >= 0, "id %lld evicted", (long long)want[i]);
    ck_assert_int_eq(cs_frontier_size(f), 50);
    for (int64_t id = 1000; id < 1100; id++)
        add(f, id);
    ck_assert_int_eq(cs_frontier_size(f), 150);
    for (int64_t id = 1000; id < 1100; id++)
        ck_assert_int_eq(cs_frontier_find(f, id), 50 + id - 1000);
    cs_frontier_destroy(&f);
}
END_TEST

/* A crawl's ticks at capacity: each round adds new pages and evicts below the cut that leaves
 * the capacity, by cs_frontier_evict_below on one thread and by cs_frontier_evict_below_keys
 * (the keys given) on 3 threads (the removals in parallel) on a twin frontier. Both leave the
 * same entries in the same order, every kept key >= the cut, every entry found where it is
 * and every dropped page gone from the hash, round after round (the holes are filled from the
 * tail and the hash is never rebuilt). */
START_TEST(test_evict_rounds)
{
    const int64_t cap = 3000, k = 700;
    cs_frontier *f[2] = {make(cap, 3), make(cap, 3)};
    int64_t *ids = malloc((size_t)k * sizeof *ids), *ent = malloc((size_t)k * sizeof *ent);
    uint64_t *keys = malloc((size_t)(cap + k) * sizeof *keys);
    uint64_t *sel = malloc((size_t)(cap + k) * sizeof *sel);
    ck_assert(ids != NULL && ent != NULL && keys != NULL && sel != NULL);
    cs_rng r;
    cs_rng_init(&r, 41, CS_RNG_TEST, 0, 0);
    int64_t next = 0, bad = 0;
    for (int round = 0; round < 40; round++) {
        for (int64_t j = 0; j < k; j++)
            ids[j] = next++ * 7919 % 1000003;
        const float qr = (float)cs_rng_uniform(&r);
        for (int w = 0; w < 2; w++) {
            ck_assert_int_eq(cs_frontier_add_new(&ctx, f[w], ids, k, ent), CS_OK);
            cs_frontier_view v;
            cs_frontier_view_get(f[w], &v);
            for (int64_t i = 0; i < v.n; i++)
                if (v.q[i] == 0.0f) /* the new entries: values of the round's level and id */
                    v.q[i] = qr + (float)(cs_mix64((uint64_t)v.id[i]) >> 44) * 0x1.0p-20f;
        }
        cs_frontier_view v0, v1;
        cs_frontier_view_get(f[0], &v0);
        const int64_t n = v0.n;
        if (n <= cap)
            continue;
        for (int64_t i = 0; i < n; i++)
            keys[i] = sel[i] = cs_frontier_key(v0.q[i], v0.id[i]);
        const uint64_t cut = cs_select_u64(sel, n, n - cap);
        ck_assert_int_eq(cs_frontier_evict_below(f[0], cut), n - cap);
        omp_set_num_threads(3);
        ck_assert_int_eq(cs_frontier_evict_below_keys(f[1], keys, cut), n - cap);
        omp_set_num_threads(1);
        cs_frontier_view_get(f[0], &v0);
        cs_frontier_view_get(f[1], &v1);
        ck_assert_int_eq(v0.n, cap);
        ck_assert_int_eq(v1.n, cap);
        for (int64_t i = 0; i < cap; i++) {
            bad += v0.id[i] != v1.id[i] || v0.q[i] != v1.q[i];
            bad += cs_frontier_key(v0.q[i], v0.id[i]) < cut;
            bad += cs_frontier_find(f[0], v0.id[i]) != i || cs_frontier_find(f[1], v1.id[i]) != i;
        }
        for (int64_t i = 0; i < n; i++) /* the dropped: gone from both hashes */
            if (keys[i] < cut)
                bad += cs_frontier_find(f[0], cs_frontier_key_id(keys[i])) != -1 ||
                       cs_frontier_find(f[1], cs_frontier_key_id(keys[i])) != -1;
        ck_assert_msg(bad == 0, "round %d: %lld mismatches", round, (long long)bad);
    }
    free(ids);
    free(ent);
    free(keys);
    free(sel);
    cs_frontier_destroy(&f[0]);
    cs_frontier_destroy(&f[1]);
}
END_TEST

/* The header's budget: 38.7 + G bytes per entry at capacity (50.7 at the default G = 12, 54.7
 * with G = 16, the layout of a = 4 categories): full frontiers at capacities on and off powers of
 * two (the hash is sized for the capacity, not rounded to a power of two). */
START_TEST(test_bytes_per_entry)
{
    static const int64_t caps[] = {100000, 131073};
    static const int strides[] = {12, CS_FEAT_MAX_GROUPS};
    for (size_t k = 0; k < 4; k++) {
        const int64_t n = caps[k / 2];
        const int G = strides[k % 2];
        cs_frontier *f = make(n, G);
        for (int64_t id = 0; id < n; id++) {
            int64_t s;
            ck_assert_int_eq(cs_frontier_add(&ctx, f, id, &s), CS_OK);
        }
        const double b = cs_frontier_bytes_per_entry(f), want = 38.67 + G;
        ck_assert_msg(b >= want - 0.01 && b <= want + 0.01,
                      "capacity %lld, G = %d: %.2f bytes per entry, not %.2f", (long long)n, G, b,
                      want);
        cs_frontier_destroy(&f);
    }
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The reference of cs_frontier_tags_up: every entry's tag, sorted, into ref[0..n). */
static int64_t sorted_tags(cs_frontier *f, uint64_t seed, uint64_t *ref)
{
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    for (int64_t i = 0; i < v.n; i++)
        ref[i] = cs_frontier_tag(seed, v.id[i]);
    uint64_t *tmp = malloc((size_t)(v.n + 1) * sizeof *tmp);
    ck_assert_ptr_nonnull(tmp);
    cs_sort_u64(ref, v.n, tmp);
    free(tmp);
    return v.n;
}

/* The tags in [lo, hi], at most max of them, checked against the sorted reference: ascending,
 * the range's smallest, all of them when fewer than max. Returns how many. */
static int64_t check_range(cs_frontier *f, const uint64_t *ref, int64_t nref, uint64_t lo,
                           uint64_t hi, int64_t max)
{
    const uint64_t *t;
    int64_t n = -1;
    ck_assert_int_eq(cs_frontier_tags_up(&ctx, f, lo, hi, max, &t, &n), CS_OK);
    int64_t a = 0, in = 0;
    while (a < nref && ref[a] < lo)
        a++;
    for (int64_t j = a; j < nref && ref[j] <= hi; j++)
        in++;
    if (lo > hi)
        in = 0;
    const int64_t expect = in < max ? in : max;
    if (n < expect || n > in)
        ck_abort_msg("[%llx, %llx] max %lld: %lld tags, %lld in the range", (unsigned long long)lo,
                     (unsigned long long)hi, (long long)max, (long long)n, (long long)in);
    for (int64_t j = 0; j < n; j++)
        if (t[j] != ref[a + j])
            ck_abort_msg("[%llx, %llx] max %lld: tag %lld is %llx, not %llx",
                         (unsigned long long)lo, (unsigned long long)hi, (long long)max,
                         (long long)j, (unsigned long long)t[j], (unsigned long long)ref[a + j]);
    return n;
}

/* cs_frontier_tags_up against a sort of all tags: random ranges (wide, narrow, inside one home
 * slot, empty, the whole circle) on frontiers after growth, removals, evictions and a clear. */
START_TEST(test_tags_up)
{
    const uint64_t seed = 0x1234abcdu;
    cs_frontier *f = make(20000, 4);
    cs_frontier_seed_tags(f, seed);
    cs_rng r;
    cs_rng_init(&r, 7, CS_RNG_TEST, 11, 0);
    uint64_t *ref = malloc(60000 * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    for (int round = 0; round < 6; round++) {
        const int64_t add_n = round == 0 ? 5 : 12000;
        for (int64_t i = 0; i < add_n; i++) {
            int64_t s, id = (int64_t)(cs_rng_u64(&r) & 0xffffffffu);
            int added = 0;
            ck_assert_int_eq(cs_frontier_find_or_add(&ctx, f, id, &s, &added), CS_OK);
            cs_frontier_view v;
            cs_frontier_view_get(f, &v);
            v.q[s] = (float)cs_rng_uniform(&r);
        }
        for (int64_t i = 0; round >= 3 && i < 3000 && cs_frontier_size(f) > 0; i++)
            cs_frontier_remove(f, (int64_t)cs_rng_below(&r, (uint64_t)cs_frontier_size(f)));
        if (round >= 2)
            cs_frontier_evict(f);
        const int64_t nref = sorted_tags(f, seed, ref);
        check_range(f, ref, nref, 0, UINT64_MAX, nref + 10);
        check_range(f, ref, nref, 0, UINT64_MAX, 1);
        check_range(f, ref, nref, 5, 4, 10);
        for (int q = 0; q < 300; q++) {
            uint64_t lo = cs_rng_u64(&r), hi = cs_rng_u64(&r);
            if (q % 3 == 1 && nref > 0) { /* a range that starts and ends at tags */
                lo = ref[cs_rng_below(&r, (uint64_t)nref)];
                hi = lo + (cs_rng_u64(&r) >> (1 + q % 40));
            }
            if (q % 3 == 2) /* narrow: inside one home or a few */
                hi = lo + (cs_rng_u64(&r) >> 36);
            if (hi < lo) {
                const uint64_t x = lo;
                lo = hi;
                hi = x;
            }
            check_range(f, ref, nref, lo, hi, 1 + (int64_t)cs_rng_below(&r, 400));
        }
    }
    cs_frontier_clear(f);
    check_range(f, ref, 0, 0, UINT64_MAX, 10);
    free(ref);
    cs_frontier_destroy(&f);
}
END_TEST

/* The exploration rule's statistics (sim_select.c): k picks a tick, the successors of a random
 * cursor on the circle of n tags. Over T ticks every entry's expected count is k T / n; around
 * it, the binomial spread and that of the entries' arcs (an entry's chance is the span of the k
 * gaps before it, a Gamma(k) of mean k / n): variance k T / n + (T / n)^2 k. The measured
 * variance and mean must agree with these within 15 % and 2 %, and no entry is never picked. */
START_TEST(test_tags_arc_statistics)
{
    const int64_t n = 4000, k = 16, T = 20000;
    cs_frontier *f = make(n, 4);
    cs_frontier_seed_tags(f, 99);
    uint64_t *ref = malloc((size_t)n * sizeof *ref);
    int64_t *cnt = calloc((size_t)n, sizeof *cnt);
    ck_assert(ref != NULL && cnt != NULL);
    for (int64_t id = 0; id < n; id++) {
        int64_t s;
        ck_assert_int_eq(cs_frontier_add(&ctx, f, id * 7919 % 1000003, &s), CS_OK);
    }
    ck_assert_int_eq(sorted_tags(f, 99, ref), n);
    cs_rng r;
    cs_rng_init(&r, 3, CS_RNG_TEST, 12, 0);
    for (int64_t t = 0; t < T; t++) {
        const uint64_t cur = cs_rng_u64(&r) & 0xffffffff00000000u;
        const uint64_t *tg;
        int64_t m = 0, got = 0;
        ck_assert_int_eq(cs_frontier_tags_up(&ctx, f, cur, UINT64_MAX, k, &tg, &m), CS_OK);
        for (int64_t j = 0; j < m && got < k; j++, got++) {
            const uint64_t *at = bsearch(&tg[j], ref, (size_t)n, sizeof *ref, cmp_u64);
            cnt[at - ref]++;
        }
        if (got < k) {
            ck_assert_int_eq(cs_frontier_tags_up(&ctx, f, 0, cur - 1, k - got, &tg, &m), CS_OK);
            for (int64_t j = 0; j < m && got < k; j++, got++)
                cnt[(uint64_t *)bsearch(&tg[j], ref, (size_t)n, sizeof *ref, cmp_u64) - ref]++;
        }
        ck_assert_int_eq(got, k);
    }
    double mean = 0.0, var = 0.0;
    int64_t zero = 0;
    for (int64_t i = 0; i < n; i++) {
        mean += (double)cnt[i] / (double)n;
        zero += cnt[i] == 0;
    }
    for (int64_t i = 0; i < n; i++)
        var += ((double)cnt[i] - mean) * ((double)cnt[i] - mean) / (double)(n - 1);
    const double em = (double)(k * T) / (double)n;
    const double ev = em + (double)T * (double)T / ((double)n * (double)n) * (double)k;
    ck_assert_msg(fabs(mean - em) < 0.02 * em, "mean count %.3f, expected %.3f", mean, em);
    ck_assert_msg(fabs(var - ev) < 0.15 * ev, "variance %.1f, expected %.1f", var, ev);
    ck_assert_int_eq(zero, 0);
    free(ref);
    free(cnt);
    cs_frontier_destroy(&f);
}
END_TEST

/* cs_frontier_value_range from the key index's ends equals a pass over the values (the frontier
 * without an index) and a brute-force minimum and maximum that leave NaN out: negative and
 * positive values, infinities, NaN of either sign, a frontier of NaN only, and an empty one. */
static void range_brute(const cs_frontier *f, double *lo, double *hi)
{
    cs_frontier_view v;
    cs_frontier_view_get((cs_frontier *)f, &v);
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int64_t i = 0; i < v.n; i++) {
        if (isnan(v.q[i]))
            continue;
        *lo = fmin(*lo, (double)v.q[i]);
        *hi = fmax(*hi, (double)v.q[i]);
    }
}

static void range_agree(cs_frontier *const fr[2], const char *what)
{
    double lo[3], hi[3];
    cs_frontier_value_range(fr[0], &lo[0], &hi[0]);
    cs_frontier_value_range(fr[1], &lo[1], &hi[1]);
    range_brute(fr[0], &lo[2], &hi[2]);
    for (int k = 0; k < 2; k++)
        if (lo[k] != lo[2] || hi[k] != hi[2])
            ck_abort_msg("%s: the %s frontier's range is [%g, %g], not [%g, %g]", what,
                         k == 0 ? "indexed" : "plain", lo[k], hi[k], lo[2], hi[2]);
}

/* Sets entry e of page id to q in both frontiers (the indexed one rekeyed). */
static void set_both(cs_frontier *const fr[2], int64_t id, float q)
{
    for (int k = 0; k < 2; k++) {
        const int64_t e = cs_frontier_find(fr[k], id);
        ck_assert_int_ge(e, 0);
        ck_assert_int_eq(cs_frontier_set_value(&ctx, fr[k], e, q), CS_OK);
    }
}

START_TEST(test_value_range)
{
    cs_frontier *fr[2] = {make(1 << 20, 4), make(1 << 20, 4)};
    ck_assert_int_eq(cs_frontier_index_keys(&ctx, fr[0]), CS_OK);
    range_agree(fr, "empty");
    double lo, hi;
    cs_frontier_value_range(fr[0], &lo, &hi);
    ck_assert(isinf(lo) && lo > 0 && isinf(hi) && hi < 0);
    cs_rng r;
    cs_rng_init(&r, 7, CS_RNG_TEST, 31, 0);
    const int64_t n = 3000;
    for (int64_t id = 0; id < n; id++) {
        for (int k = 0; k < 2; k++) {
            int64_t e = -1;
            ck_assert_int_eq(cs_frontier_add(&ctx, fr[k], id * 977, &e), CS_OK);
            ck_assert_int_eq(cs_frontier_rekey(&ctx, fr[k], e, cs_frontier_key(0.0f, id * 977)),
                             CS_OK);
        }
        set_both(fr, id * 977, (float)(cs_rng_uniform(&r) * 200.0 - 100.0));
    }
    range_agree(fr, "numbers");
    set_both(fr, 5 * 977, INFINITY);
    set_both(fr, 6 * 977, -INFINITY);
    range_agree(fr, "infinities");
    set_both(fr, 9 * 977, -0.0f);
    set_both(fr, 10 * 977, 0.0f);
    range_agree(fr, "zeros of both signs");
    set_both(fr, 7 * 977, NAN);
    set_both(fr, 8 * 977, -NAN);
    range_agree(fr, "NaN of both signs");
    for (int64_t id = 0; id < n; id++)
        set_both(fr, id * 977, id % 2 ? NAN : -NAN);
    range_agree(fr, "NaN only");
    cs_frontier_value_range(fr[0], &lo, &hi);
    ck_assert(isinf(lo) && lo > 0 && isinf(hi) && hi < 0);
    set_both(fr, 11 * 977, -3.5f);
    range_agree(fr, "one number among NaN");
    cs_frontier_value_range(fr[0], &lo, &hi);
    ck_assert(lo == -3.5 && hi == -3.5);
    /* +inf, then -inf, the only number: the plain pass must not stop at the largest (smallest)
     * finite float, where clang's min (max) reduction starts */
    set_both(fr, 11 * 977, INFINITY);
    range_agree(fr, "+inf among NaN");
    cs_frontier_value_range(fr[1], &lo, &hi);
    ck_assert(isinf(lo) && lo > 0 && isinf(hi) && hi > 0);
    set_both(fr, 11 * 977, -INFINITY);
    range_agree(fr, "-inf among NaN");
    cs_frontier_value_range(fr[1], &lo, &hi);
    ck_assert(isinf(lo) && lo < 0 && isinf(hi) && hi < 0);
    /* the largest finite float itself, and the smallest */
    set_both(fr, 11 * 977, FLT_MAX);
    set_both(fr, 12 * 977, -FLT_MAX);
    range_agree(fr, "the largest and smallest finite floats among NaN");
    cs_frontier_destroy(&fr[0]);
    cs_frontier_destroy(&fr[1]);
}
END_TEST

static Suite *frontier_suite(void)
{
    Suite *s = suite_create("frontier");
    TCase *tc = tcase_create("hash");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_add_find_remove_small);
    tcase_add_test(tc, test_random_ops_against_reference);
    tcase_add_test(tc, test_growth_and_rehash);
    tcase_add_test(tc, test_add_new_batch);
    tcase_add_test(tc, test_remove_sorted);
    suite_add_tcase(s, tc);
    tc = tcase_create("evict");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_key_order);
    tcase_add_test(tc, test_evict_against_sorted_reference);
    tcase_add_test(tc, test_evict_after_churn);
    tcase_add_test(tc, test_evict_rounds);
    tcase_add_test(tc, test_bytes_per_entry);
    tcase_add_test(tc, test_tags_up);
    tcase_add_test(tc, test_tags_arc_statistics);
    tcase_add_test(tc, test_value_range);
    tcase_set_timeout(tc, 120); /* full frontiers of 10^5 entries: slow under the sanitizers */
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(frontier_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
