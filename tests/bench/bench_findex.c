/*
 * bench_findex: the frontier's ordered key index (findex.h) under a crawl's tick: of an index of
 * N keys, each round moves M keys to new values (a removal and an insertion, as a link's new
 * evidence rekeys its entry), takes the best B keys out (a walk down from the top, then their
 * removals, as the selection does) and inserts B new keys (the tick's new pages). One thread.
 * The same operations run twice, one after another and from the same start: one at a time, then
 * in groups of 32 moves whose 64 keys cs_findex_prefetch announces first (as the engine does).
 * Built, never run by ctest.
 * Usage: bench_findex [keys N, default 1e6] [moves M a round, 20000] [B, 1000] [rounds, 200]
 * Prints for each the mean CPU time (of the calling thread) of an insertion or a removal over
 * the run's operations, the keys' count at the end and a checksum of the set (the sum of the
 * keys' hashes, read by one walk up), which must not depend on the implementation; then the
 * ratio of the two times and the index's bytes per key.
 */
#include "crawlsim/core.h"
#include "crawlsim/findex.h"
#include "crawlsim/rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GROUP 32

/* The thread's CPU time (the machine may be shared: time off the core is not counted). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A key as the frontier makes one: a value's 32 bits above a page id's (cs_frontier_key), here
 * a hash of (id, version) for the value: a moved key lands anywhere. */
static uint64_t key_of(uint32_t id, uint64_t version)
{
    return (cs_mix64(((uint64_t)id << 20) ^ version) & 0xffffffff00000000ULL) | id;
}

typedef struct run {
    int64_t n, m, b;
    int rounds;
    double ns;      /* per operation */
    int64_t count;  /* keys at the end */
    uint64_t check; /* the set's checksum */
    double bytes;   /* per key */
} run;

/* The run's index: slot i holds page id[i] (ids are n-periodic: id % n == i) with key[i]. */
typedef struct state {
    cs_findex *x;
    uint64_t *key, *best, *old, *nu;
    uint32_t *id;
    uint64_t *ver;
} state;

/* One group of g moves of slots at[0..g): announced first when prefetch is set. */
static int move_group(cs_ctx *ctx, state *st, const int64_t *at, int g, int prefetch)
{
    for (int j = 0; j < g; j++) {
        st->old[j] = st->key[at[j]];
        st->nu[j] = key_of(st->id[at[j]], st->ver[at[j]] + 1);
        st->old[g + j] = st->nu[j];
    }
    if (prefetch)
        cs_findex_prefetch(st->x, st->old, 2 * g);
    int added = 0;
    for (int j = 0; j < g; j++) {
        const int64_t i = at[j];
        if (!cs_findex_remove(st->x, st->key[i]))
            return 0;
        st->ver[i]++;
        st->key[i] = key_of(st->id[i], st->ver[i]);
        if (cs_findex_insert(ctx, st->x, st->key[i], &added) != CS_OK || !added)
            return 0;
    }
    return 1;
}

static int bench(cs_ctx *ctx, run *rn, int prefetch)
{
    const int64_t n = rn->n, b = rn->b;
    state st = {NULL,
                malloc((size_t)n * sizeof(uint64_t)),
                malloc((size_t)b * sizeof(uint64_t)),
                malloc(2 * GROUP * sizeof(uint64_t)),
                malloc(GROUP * sizeof(uint64_t)),
                malloc((size_t)n * sizeof(uint32_t)),
                calloc((size_t)n, sizeof(uint64_t))};
    int ok = 0;
    if (st.key == NULL || st.best == NULL || st.old == NULL || st.nu == NULL || st.id == NULL ||
        st.ver == NULL || cs_findex_create(ctx, &st.x) != CS_OK)
        goto done;
    int added = 0;
    for (int64_t i = 0; i < n; i++) {
        st.id[i] = (uint32_t)i;
        st.key[i] = key_of(st.id[i], 0);
        if (cs_findex_insert(ctx, st.x, st.key[i], &added) != CS_OK)
            goto done;
    }
    cs_rng r;
    cs_rng_init(&r, 1, CS_RNG_TEST, 0, 0);
    double t = 0.0;
    int64_t ops = 0, at[GROUP];
    for (int round = 0; round < rn->rounds; round++) {
        const double t0 = cpu_now();
        for (int64_t j = 0; j < rn->m; j += GROUP) {
            const int g = (int)(rn->m - j < GROUP ? rn->m - j : GROUP);
            for (int k = 0; k < g; k++) /* (a slot may move twice in a group: as in a tick) */
                at[k] = (int64_t)(cs_rng_u64(&r) % (uint64_t)n);
            if (!move_group(ctx, &st, at, g, prefetch))
                goto done;
        }
        /* the best b out, b new pages in their slots */
        const int64_t got = cs_findex_down(st.x, UINT64_MAX, st.best, b);
        if (prefetch)
            cs_findex_prefetch(st.x, st.best, got);
        for (int64_t j = 0; j < got; j++) {
            const int64_t i = (int64_t)(st.best[j] & 0xffffffffu) % n;
            if (!cs_findex_remove(st.x, st.best[j]))
                goto done;
            st.id[i] += (uint32_t)n; /* a new page in the slot */
            st.key[i] = key_of(st.id[i], st.ver[i]);
            if (cs_findex_insert(ctx, st.x, st.key[i], &added) != CS_OK || !added)
                goto done;
        }
        t += cpu_now() - t0;
        ops += 2 * (rn->m + got);
    }
    rn->ns = 1e9 * t / (double)ops;
    uint64_t h = 0, from = 0;
    rn->count = 0;
    for (;;) {
        const int64_t k = cs_findex_up(st.x, from, st.best, b);
        for (int64_t j = 0; j < k; j++)
            h += cs_mix64(st.best[j]);
        rn->count += k;
        if (k < b || st.best[k - 1] == UINT64_MAX)
            break;
        from = st.best[k - 1] + 1;
    }
    rn->check = h;
    rn->bytes = cs_findex_bytes(st.x) / (double)rn->count;
    ok = 1;
done:
    cs_findex_destroy(&st.x);
    free(st.key);
    free(st.best);
    free(st.old);
    free(st.nu);
    free(st.id);
    free(st.ver);
    return ok;
}

int main(int argc, char **argv)
{
    run rn = {argc > 1 ? (int64_t)atof(argv[1]) : 1000000,
              argc > 2 ? (int64_t)atof(argv[2]) : 20000, argc > 3 ? (int64_t)atof(argv[3]) : 1000,
              argc > 4 ? atoi(argv[4]) : 200};
    if (rn.n < 1 || rn.n > ((int64_t)1 << 31) || rn.m < 0 || rn.b < 1 || rn.rounds < 1 ||
        rn.n + (int64_t)rn.rounds * rn.n > (int64_t)UINT32_MAX) {
        fprintf(stderr, "usage: bench_findex [N in [1, 2^31]] [M >= 0] [B >= 1] [rounds >= 1]\n");
        return 2;
    }
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    run one = rn, grouped = rn;
    if (!bench(&ctx, &one, 0) || !bench(&ctx, &grouped, 1)) {
        fprintf(stderr, "bench_findex: an operation failed\n");
        return 1;
    }
    const run *rs[2] = {&one, &grouped};
    for (int k = 0; k < 2; k++)
        printf("findex (%s): %lld keys, %lld moves and %lld best out a round, %d rounds: %.1f ns "
               "an operation (insertion or removal); %lld keys at the end, checksum %016llx\n",
               k ? "prefetched groups" : "one at a time", (long long)rn.n, (long long)rn.m,
               (long long)rn.b, rn.rounds, rs[k]->ns, (long long)rs[k]->count,
               (unsigned long long)rs[k]->check);
    printf("prefetched groups over one at a time: %.3f\n", grouped.ns / one.ns);
    printf("findex memory: %.2f bytes a key\n", grouped.bytes);
    return one.count == rn.n && grouped.count == rn.n && one.check == grouped.check ? 0 : 1;
}
