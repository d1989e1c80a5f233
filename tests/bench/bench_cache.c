/*
 * bench_cache: throughput of the cache's staleness bookkeeping and of its notification queue
 * (cache.h), one core.
 *
 *   bench_cache [pages] [ticks]
 *
 * World: pages with delta log-normal(-1, 1.5) per time unit, mu Pareto(1, 2.5), 4 % complete
 * (and a second run with every page complete for the queue). Each tick (length 1/16) crawls
 * pages/80 pages chosen uniformly (R = 20 % of the pages per time unit, the paper's setting),
 * each crawl drawing the page's changes since its last crawl and closing its staleness
 * integral; then one poll delivers the complete pages' changes to a callback that crawls on one
 * change in eight. Prints crawls/s, changes/s, notifications/s, the integral pass and bytes per
 * page.
 */
#include "crawlsim/cache.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"

#include <stdio.h>
#include <stdlib.h>

static int on_change(void *arg, int64_t page, double tau, uint64_t k)
{
    (void)tau;
    (void)page;
    int64_t *n = arg;
    (*n)++;
    return (k & 7) == 0; /* crawl on one change in eight */
}

static void run(cs_ctx *ctx, int64_t n, int ticks, double fc)
{
    int64_t *id = malloc((size_t)n * sizeof *id);
    double *mu = malloc((size_t)n * sizeof *mu), *delta = malloc((size_t)n * sizeof *delta);
    uint8_t *c = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        cs_rng r;
        cs_rng_init(&r, 1, CS_RNG_TEST, (uint64_t)i, 0);
        id[i] = i;
        delta[i] = cs_rng_lognormal(&r, -1.0, 1.5);
        mu[i] = cs_rng_pareto(&r, 1.0, 2.5);
        c[i] = (uint8_t)cs_rng_bernoulli(&r, fc);
    }
    cs_cache_pages pg = {n, id, mu, delta, c};
    cs_cache_opts o;
    cs_cache_opts_default(&o);
    o.seed = 9;
    o.queue_width = 1.0 / 16.0;
    cs_cache *cache = NULL;
    if (cs_cache_create(ctx, &pg, &o, &cache) != CS_OK) {
        fprintf(stderr, "%s\n", ctx->errmsg);
        exit(1);
    }
    double t0 = cs_now();
    for (int64_t i = 0; i < n; i++)
        (void)cs_cache_add(cache, i, 0.0);
    const double t_add = cs_now() - t0;
    const int64_t per_tick = n / 80; /* 0.2 n per time unit at 16 ticks per unit */
    cs_rng r;
    cs_rng_init(&r, 2, CS_RNG_TEST, 0, 0);
    int64_t notes = 0, crawls = 0;
    double t_crawl = 0.0, t_poll = 0.0;
    for (int k = 0; k < ticks; k++) {
        const double t = (k + 1) / 16.0;
        t0 = cs_now();
        for (int64_t j = 0; j < per_tick; j++) {
            const int64_t i = (int64_t)cs_rng_below(&r, (uint64_t)n);
            (void)cs_cache_crawl(cache, i, t, on_change, &notes, NULL);
        }
        crawls += per_tick;
        t_crawl += cs_now() - t0;
        t0 = cs_now();
        (void)cs_cache_poll(cache, t, on_change, &notes, NULL, NULL);
        t_poll += cs_now() - t0;
    }
    cs_cache_stats st;
    cs_cache_get_stats(cache, &st);
    t0 = cs_now();
    double ih, ib;
    cs_cache_integrals_local(cache, ticks / 16.0, &ih, &ib);
    const double t_int = cs_now() - t0;
    printf("pages %lld, complete %.0f %%, %d ticks of 1/16: add %.3f s (%.2e pages/s)\n",
           (long long)n, 100.0 * fc, ticks, t_add, (double)n / t_add);
    printf("  crawls %lld in %.3f s: %.2e crawls/s (%.2e changes accounted/s overall)\n",
           (long long)crawls, t_crawl, (double)crawls / t_crawl,
           (double)st.changes / (t_crawl + t_poll));
    printf("  polls: %lld notifications in %.3f s: %.2e notifications/s (%.3f ms per tick)\n",
           (long long)st.notified, t_poll, (double)st.notified / t_poll, 1e3 * t_poll / ticks);
    printf("  integrals over all pages at the end: %.3f s; J_h integral %.6e, J_b %.6e\n", t_int,
           ih, ib);
    printf("  bookkeeping %.2f bytes per cached page\n", (double)st.bytes / (double)st.cached);
    cs_cache_destroy(&cache);
    free(id);
    free(mu);
    free(delta);
    free(c);
}

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    const int ticks = argc > 2 ? atoi(argv[2]) : 160;
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    run(&ctx, n, ticks, 0.04);
    run(&ctx, n, ticks, 1.0);
    return 0;
}
