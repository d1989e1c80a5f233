/*
 * bench_gen: generation throughput of the web model without I/O, in links per second, for
 * one slice of pages on this process with the current OMP_NUM_THREADS.
 * Usage: bench_gen [PAGES] [SLICE_PAGES]   (defaults 10^7 and 10^6)
 */
#include "crawlsim/gen.h"

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
    if (n > cfg.gen.pages)
        n = cfg.gen.pages;
    double t0 = cs_now();
    cs_gen *g = NULL;
    if (cs_gen_create(&ctx, &cfg.gen, &g) != CS_OK) {
        fprintf(stderr, "bench_gen: %s\n", ctx.errmsg);
        return 1;
    }
    double t1 = cs_now();
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    if (cs_gen_slice(&ctx, g, 0, n, &s, NULL) != CS_OK) {
        fprintf(stderr, "bench_gen: %s\n", ctx.errmsg);
        return 1;
    }
    double t2 = cs_now();
    double links = (double)s.offsets[s.n];
    printf("bench_gen: world %lld pages (%lld hosts), model tables %.3fs; slice %lld pages, "
           "%.0f links in %.3fs with %d thread(s): %.2f M links/s (%.1f ns/link/thread)\n",
           (long long)cfg.gen.pages, (long long)cs_gen_n_hosts(g), t1 - t0, (long long)n, links,
           t2 - t1, omp_get_max_threads(), links / (t2 - t1) / 1e6,
           (t2 - t1) * 1e9 * omp_get_max_threads() / links);
    cs_graph_slice_fini(&s);
    cs_gen_destroy(&g);
    return 0;
}
