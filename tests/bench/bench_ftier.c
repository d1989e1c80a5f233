/*
 * bench_ftier: the frontier's key index in tiers (cs_frontier_set_hot) against every key in the
 * index, under a crawl's tick, side by side in one run. A frontier of N entries with an index of
 * its keys; each tick moves the values of M distinct entries (new evidence: a value drawn
 * afresh, so most land below the best keys, as most of a large frontier's records do) and rekeys
 * them in one batch (cs_frontier_rekey_many, as the insert phase does), takes the best B entries
 * out (cs_frontier_index_down, then cs_frontier_remove_sorted, as the selection does) and adds B
 * new entries with their values (the tick's new pages). One thread, the same operations from the
 * same start for each setting: H = 0 (every key indexed) and H = HOT (the default 2^18).
 * Built, never run by ctest.
 * Usage: bench_ftier [entries N, default 1e7] [moves M a tick, 20000] [B, 1000] [ticks, 100]
 *        [HOT, 262144]
 * Prints per setting the mean CPU time of a tick, the entries at the end, the index's keys and
 * a checksum of every pick in order (FNV-1a of the picked keys), then the ratio of the two
 * times. The checksums must be equal (the tiers change the time, never the picks): exit status 1
 * when they differ.
 */
#include "crawlsim/findex.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct setting {
    int64_t n, m, b, hot;
    int ticks;
    double us;      /* CPU time of a tick */
    int64_t left;   /* entries at the end */
    int64_t keys;   /* the index's keys at the end */
    uint64_t check; /* FNV-1a of every pick's key, in order */
} setting;

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Entry e takes value q: the old key into old[k], the entry into ent[k]. */
static void set_q(cs_frontier *f, int64_t e, float q, int64_t *ent, uint64_t *old, int64_t k)
{
    cs_frontier_view v;
    cs_frontier_view_get(f, &v);
    old[k] = cs_frontier_key(v.q[e], v.id[e]);
    ent[k] = e;
    v.q[e] = q;
}

/* The k new pages first, first + 1, ... join the frontier, each with a value drawn from r,
 * rekeyed in one batch. */
static cs_err add_pages(cs_ctx *ctx, cs_frontier *f, cs_rng *r, int64_t first, int64_t k,
                        int64_t *ids, int64_t *ent, uint64_t *old)
{
    for (int64_t j = 0; j < k; j++)
        ids[j] = first + j;
    cs_err rc = cs_frontier_add_new(ctx, f, ids, k, ent);
    if (rc != CS_OK)
        return rc;
    for (int64_t j = 0; j < k; j++)
        set_q(f, ent[j] & (CS_FRONTIER_ADDED - 1), (float)cs_rng_uniform(r), ent, old, j);
    return cs_frontier_rekey_many(ctx, f, ent, old, k);
}

static int run(cs_ctx *ctx, setting *st)
{
    const int64_t n = st->n, m = st->m, b = st->b, most = n + b * st->ticks;
    const int64_t w = n > m ? (n > b ? n : b) : (m > b ? m : b); /* the work arrays' length */
    int ok = 0;
    cs_frontier *f = NULL;
    int64_t *ids = malloc((size_t)w * sizeof *ids);
    int64_t *ent = malloc((size_t)w * sizeof *ent);
    uint64_t *old = malloc((size_t)w * sizeof *old);
    uint64_t *best = malloc((size_t)b * sizeof *best);
    uint32_t *stamp = calloc((size_t)most, sizeof *stamp);
    if (ids == NULL || ent == NULL || old == NULL || best == NULL || stamp == NULL ||
        cs_frontier_create(ctx, most, 1, &f) != CS_OK || cs_frontier_index_keys(ctx, f) != CS_OK)
        goto done;
    cs_frontier_set_hot(f, st->hot);
    cs_rng r;
    cs_rng_init(&r, 7, CS_RNG_TEST, 0, 0);
    /* the start: n entries, each with a value */
    if (add_pages(ctx, f, &r, 0, n, ids, ent, old) != CS_OK)
        goto done;
    int64_t next_id = n;
    uint64_t h = 1469598103934665603ULL;
    double t = 0.0;
    for (int tick = 1; tick <= st->ticks; tick++) {
        const double t0 = cpu_now();
        /* M distinct entries' values drawn afresh, rekeyed in one batch */
        const int64_t size = cs_frontier_size(f);
        int64_t k = 0;
        for (int64_t j = 0; j < m; j++) {
            const int64_t e = (int64_t)(cs_rng_u64(&r) % (uint64_t)size);
            const float q = (float)cs_rng_uniform(&r);
            if (stamp[e] == (uint32_t)tick)
                continue;
            stamp[e] = (uint32_t)tick;
            set_q(f, e, q, ent, old, k++);
        }
        if (cs_frontier_rekey_many(ctx, f, ent, old, k) != CS_OK)
            goto done;
        /* the best B out */
        int64_t got = 0;
        if (cs_frontier_index_down(ctx, f, UINT64_MAX, best, b, &got) != CS_OK)
            goto done;
        for (int64_t j = 0; j < got; j++) {
            for (int s = 0; s < 8; s++)
                h = (h ^ ((best[j] >> (8 * s)) & 0xff)) * 1099511628211ULL;
            ent[j] = cs_frontier_find(f, cs_frontier_key_id(best[j]));
            if (ent[j] < 0)
                goto done;
        }
        qsort(ent, (size_t)got, sizeof *ent, cmp_i64);
        if (cs_frontier_remove_sorted(ctx, f, ent, got) != CS_OK)
            goto done;
        /* B new pages */
        if (add_pages(ctx, f, &r, next_id, b, ids, ent, old) != CS_OK)
            goto done;
        next_id += b;
        t += cpu_now() - t0;
    }
    st->us = 1e6 * t / st->ticks;
    st->left = cs_frontier_size(f);
    st->keys = cs_findex_size(cs_frontier_index(f));
    st->check = h;
    ok = 1;
done:
    cs_frontier_destroy(&f);
    free(ids);
    free(ent);
    free(old);
    free(best);
    free(stamp);
    return ok;
}

int main(int argc, char **argv)
{
    setting s = {argc > 1 ? (int64_t)atof(argv[1]) : 10000000,
                 argc > 2 ? (int64_t)atof(argv[2]) : 20000,
                 argc > 3 ? (int64_t)atof(argv[3]) : 1000,
                 argc > 5 ? (int64_t)atof(argv[5]) : 262144,
                 argc > 4 ? atoi(argv[4]) : 100,
                 0.0,
                 0,
                 0,
                 0};
    if (s.n < 1 || s.m < 1 || s.b < 1 || s.ticks < 1 || s.hot < 1 ||
        s.n + s.b * s.ticks > INT32_MAX) {
        fprintf(stderr, "usage: bench_ftier [entries] [moves a tick] [B] [ticks] [HOT]\n");
        return 2;
    }
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    setting every = s, tiers = s;
    every.hot = 0;
    printf("bench_ftier: %lld entries, %lld moves a tick, B = %lld, %d ticks, one thread\n",
           (long long)s.n, (long long)s.m, (long long)s.b, s.ticks);
    int rc = 0;
    setting *both[2] = {&every, &tiers};
    for (int i = 0; i < 2; i++) {
        setting *st = both[i];
        if (!run(&ctx, st)) {
            fprintf(stderr, "bench_ftier: %s\n", ctx.errmsg[0] ? ctx.errmsg : "no memory");
            rc = 1;
            break;
        }
        printf("%-26s %10.1f us a tick, %lld entries, %lld keys indexed, picks %016llx\n",
               st->hot == 0 ? "every key indexed:" : "tiers:", st->us, (long long)st->left,
               (long long)st->keys, (unsigned long long)st->check);
    }
    if (rc == 0) {
        printf("tiers (hot %lld) over every key: %.3f\n", (long long)s.hot, tiers.us / every.us);
        if (tiers.check != every.check || tiers.left != every.left) {
            fprintf(stderr, "bench_ftier: the tiers picked other entries\n");
            rc = 1;
        }
    }
    return rc;
}
