/*
 * bench_gen: generation throughput of the web model without I/O, in links per second, for
 * one slice of pages on this process with the current OMP_NUM_THREADS. With BATCH, the same
 * number of pages drawn at random instead, BATCH at a time (cs_gen_pages, as a crawl of the
 * procedural world asks for a tick's fetched pages): run it at 1 and 2 threads to see how a
 * tick's generation shares the threads.
 * Usage: bench_gen [PAGES] [SLICE_PAGES] [BATCH]   (defaults 10^7, 10^6 and 0: one slice)
 */
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = argc > 1 ? atoll(argv[1]) : 10000000;
    int64_t n = argc > 2 ? atoll(argv[2]) : 1000000;
    const int64_t batch = argc > 3 ? atoll(argv[3]) : 0;
    if (n > cfg.gen.pages)
        n = cfg.gen.pages;
    if (batch < 0 || batch > n) {
        fprintf(stderr, "bench_gen: BATCH must be in [0, SLICE_PAGES]\n");
        return 2;
    }
    double t0 = cs_now();
    cs_gen *g = NULL;
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    int64_t *ids = NULL;
    int rc = 1;
    if (cs_gen_create(&ctx, &cfg.gen, &g) != CS_OK)
        goto fail;
    double t1 = cs_now();
    double links = 0.0;
    if (batch == 0) {
        if (cs_gen_slice(&ctx, g, 0, n, &s, NULL) != CS_OK)
            goto fail;
        links = (double)s.offsets[s.n];
    } else {
        ids = malloc((size_t)batch * sizeof *ids);
        if (ids == NULL) {
            snprintf(ctx.errmsg, sizeof ctx.errmsg, "out of memory");
            goto fail;
        }
        uint64_t x = 12345;
        for (int64_t done = 0; done + batch <= n; done += batch) {
            for (int64_t i = 0; i < batch; i++) {
                x = cs_mix64(x + 0x9e3779b97f4a7c15u);
                ids[i] = (int64_t)(x % (uint64_t)cfg.gen.pages);
            }
            cs_graph_slice_fini(&s);
            if (cs_gen_pages(&ctx, g, ids, batch, &s) != CS_OK)
                goto fail;
            links += (double)s.offsets[s.n];
        }
        n -= n % batch;
    }
    double t2 = cs_now();
    char what[64] = "slice";
    if (batch > 0)
        snprintf(what, sizeof what, "random pages, %lld a call,", (long long)batch);
    printf("bench_gen: world %lld pages (%lld hosts), model tables %.3fs; %s %lld pages, "
           "%.0f links in %.3fs with %d thread(s): %.2f M links/s (%.1f ns/link/thread)\n",
           (long long)cfg.gen.pages, (long long)cs_gen_n_hosts(g), t1 - t0, what, (long long)n,
           links, t2 - t1, omp_get_max_threads(), links / (t2 - t1) / 1e6,
           (t2 - t1) * 1e9 * omp_get_max_threads() / links);
    rc = 0;
fail:
    if (rc != 0)
        fprintf(stderr, "bench_gen: %s\n", ctx.errmsg);
    free(ids);
    cs_graph_slice_fini(&s);
    cs_gen_destroy(&g);
    return rc;
}
