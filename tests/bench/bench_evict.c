/*
 * bench_evict: the frontier's eviction at capacity, as a crawl's tick makes it once the frontier
 * is full: cs_frontier_add_new of the tick's new pages, then cs_frontier_evict_below of the cut
 * that leaves the capacity (the keys' pass, the dropped entries' deletion from the hash and the
 * moves that fill their places; the cut itself, which the crawl finds over all ranks, is not
 * timed). One thread (OMP_NUM_THREADS decides). Built, never run by ctest.
 * Usage: bench_evict [capacity, default 1e6] [new entries per round, default 8000] [rounds, 200]
 * Prints the mean CPU time (of the calling thread) of a round and per entry of the frontier, and a
 * checksum of the set of entries left (the sum of their ids' hashes: the entries' order is not
 * part of a frontier's contract), which must not depend on the implementation; then the
 * frontier's bytes per entry (cs_frontier_bytes_per_entry) and the process's peak RSS.
 */
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* The thread's CPU time (the machine may be shared: time off the core is not counted). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t page_id(uint64_t c)
{
    return (int64_t)((c * 0x9E3779B1u) & 0x7fffffffu);
}

int main(int argc, char **argv)
{
    const int64_t cap = argc > 1 ? (int64_t)atof(argv[1]) : 1000000;
    const int64_t k = argc > 2 ? (int64_t)atof(argv[2]) : 8000;
    const int rounds = argc > 3 ? atoi(argv[3]) : 200;
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_frontier *f = NULL;
    int64_t *ids = malloc((size_t)(cap + k) * sizeof *ids);
    int64_t *ent = malloc((size_t)(cap + k) * sizeof *ent);
    uint64_t *keys = malloc((size_t)(cap + k) * sizeof *keys);
    int rc = 1;
    if (ids == NULL || ent == NULL || keys == NULL ||
        cs_frontier_create(&ctx, cap, 16, &f) != CS_OK)
        goto done;
    uint64_t next = 1;
    /* the pages' ids: a counter times an odd number modulo 2^31 (distinct, scattered); their
     * values: hashes in [0, 1), of another hash than the one that places ids in the frontier's
     * table (the same one would leave the entries kept, the high values, in one end of it) */
    for (int64_t j = 0; j < cap; j++)
        ids[j] = page_id(next++);
    if (cs_frontier_add_new(&ctx, f, ids, cap, ent) != CS_OK)
        goto done;
    cs_frontier_view v;
    double t = 0.0;
    for (int r = 0; r <= rounds; r++) {
        for (int64_t j = 0; j < k; j++)
            ids[j] = page_id(next++);
        if (cs_frontier_add_new(&ctx, f, ids, k, ent) != CS_OK)
            goto done;
        cs_frontier_view_get(f, &v);
        for (int64_t i = 0; i < v.n; i++)
            v.q[i] = (float)(cs_mix64((uint64_t)v.id[i] ^ 0x5bd1e995u) >> 40) * 0x1.0p-24f;
        /* the cut (as the crawl's k-th largest key over the ranks), not timed */
        for (int64_t i = 0; i < v.n; i++)
            keys[i] = cs_frontier_key(v.q[i], v.id[i]);
        const uint64_t cut = cs_select_u64(keys, v.n, v.n - cap);
        const double t0 = cpu_now();
        cs_frontier_evict_below(f, cut);
        if (r > 0) /* (round 0 grows the arrays) */
            t += cpu_now() - t0;
    }
    cs_frontier_view_get(f, &v);
    uint64_t h = 0;
    for (int64_t i = 0; i < v.n; i++)
        h += cs_mix64((uint64_t)v.id[i]);
    printf("capacity %lld, %lld new per round, %d rounds, %d threads: %.3f ms a round, %.2f ns "
           "an entry; checksum %016llx\n",
           (long long)cap, (long long)k, rounds, omp_get_max_threads(), 1e3 * t / rounds,
           1e9 * t / rounds / (double)cap, (unsigned long long)h);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("frontier memory: %.2f bytes an entry (allocated, G = 16), peak RSS %.1f MiB\n",
           cs_frontier_bytes_per_entry(f), (double)ru.ru_maxrss / 1024.0);
    rc = 0;
done:
    if (rc != 0)
        fprintf(stderr, "bench_evict: %s\n", ctx.errmsg[0] ? ctx.errmsg : "out of memory");
    cs_frontier_destroy(&f);
    free(ids);
    free(ent);
    free(keys);
    return rc;
}
