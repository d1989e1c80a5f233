/*
 * bench_sampled: the cut of run.partition_method = metis-sampled (METIS on the host graph
 * estimated from SAMPLE pages per host, cs_gen_host_parts) against host hashing, on the default
 * world of PAGES pages, for each k of KLIST, and what computing it took (one process, OpenMP
 * threads of OMP_NUM_THREADS; rank 0's share of a run).
 * Usage: bench_sampled PAGES SAMPLE KLIST [EVAL]
 *   SAMPLE  pages per host (0: every page: the exact host graph, METIS on the full host graph)
 *   KLIST   comma-separated part counts, e.g. 2,4,16
 *   EVAL    0 (default): the cut over every page's links (exact); else over the links of EVAL
 *           pages drawn uniformly (with replacement), with its 95 % half-width
 * With BALANCE_RELEVANT=0 in the environment METIS balances the pages only
 * (partition.balance_relevant = false; default: the pages and the relevant pages).
 * Prints per k: the set-up (host graph, METIS) in seconds, the cut fraction of links between
 * parts (metis-sampled and host-hash, the same pages), the page balance (largest part / mean),
 * and the peak RSS of the process so far.
 */
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* Local. Counts, over the pages of ids, links and links cut by hp (or by the host hash when hp
 * is NULL); per page into c[i], l[i] for the variance. */
static int cut_of(cs_ctx *ctx, const cs_gen *g, const uint16_t *hp, int32_t k, int64_t n,
                  int uniform, double *cut, double *half)
{
    const int64_t step = 1 << 18, N = cs_gen_n_pages(g);
    const uint64_t salt = cs_mix64(0x5a3b1ed);
    int64_t *ids = malloc((size_t)step * sizeof *ids);
    if (ids == NULL) {
        snprintf(ctx->errmsg, sizeof ctx->errmsg, "out of memory");
        return 1;
    }
    double sc = 0, sl = 0, scc = 0, sll = 0, scl = 0;
    const cs_gen_owner o = {g, 1, k, hp};
    cs_graph_slice sl_;
    for (int64_t o0 = 0; o0 < n; o0 += step) {
        const int64_t m = n - o0 < step ? n - o0 : step;
        for (int64_t i = 0; i < m; i++)
            ids[i] =
                uniform ? (int64_t)(cs_mix64((uint64_t)(o0 + i) ^ salt) % (uint64_t)N) : o0 + i;
        cs_graph_slice_init(&sl_);
        if (cs_gen_pages(ctx, g, ids, m, &sl_) != CS_OK) {
            free(ids);
            return 1;
        }
        for (int64_t i = 0; i < m; i++) {
            const int32_t a = cs_gen_host_owner(&o, sl_.host[i]);
            double c = 0, l = 0;
            for (int64_t j = sl_.offsets[i]; j < sl_.offsets[i + 1]; j++) {
                c += cs_gen_host_hash_owner(&o, sl_.targets[j]) != a;
                l++;
            }
            sc += c;
            sl += l;
            scc += c * c;
            sll += l * l;
            scl += c * l;
        }
        cs_graph_slice_fini(&sl_);
    }
    free(ids);
    const double R = sc / sl, nn = (double)n, ml = sl / nn;
    /* the ratio estimator's variance: var(c - R l) / (n mean(l)^2) */
    const double v =
        (scc - 2 * R * scl + R * R * sll) / nn - (sc / nn - R * ml) * (sc / nn - R * ml);
    *cut = R;
    *half = 1.96 * sqrt(v / nn) / ml;
    return 0;
}

static double balance(const cs_gen *g, const uint16_t *hp, int32_t k)
{
    double *w = calloc((size_t)k, sizeof *w), mx = 0;
    if (w == NULL)
        return NAN;
    const cs_gen_owner o = {g, 1, k, hp};
    for (int64_t h = 0; h < cs_gen_n_hosts(g); h++) {
        int64_t f = 0, c = 0;
        cs_gen_host_range(g, h, &f, &c);
        w[cs_gen_host_owner(&o, h)] += (double)c;
    }
    for (int32_t p = 0; p < k; p++)
        mx = w[p] > mx ? w[p] : mx;
    free(w);
    return mx * k / (double)cs_gen_n_pages(g);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_sampled PAGES SAMPLE KLIST [EVAL]\n");
        return 2;
    }
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = atoll(argv[1]);
    cfg.partition.sample = atoll(argv[2]);
    const char *br = getenv("BALANCE_RELEVANT");
    cfg.partition.balance_relevant = br == NULL || atoi(br) != 0;
    const int64_t eval = argc > 4 ? atoll(argv[4]) : 0;
    double t0 = cs_now();
    cs_gen *g = NULL;
    if (cs_gen_create(&ctx, &cfg.gen, &g) != CS_OK) {
        fprintf(stderr, "bench_sampled: %s\n", ctx.errmsg);
        return 1;
    }
    const int64_t N = cs_gen_n_pages(g), H = cs_gen_n_hosts(g), n = eval > 0 ? eval : N;
    printf("world %lld pages, %lld hosts, model %.2f s, %d thread(s); sample %lld pages per "
           "host, balance_relevant %d; cut over %s\n",
           (long long)N, (long long)H, cs_now() - t0, omp_get_max_threads(),
           (long long)cfg.partition.sample, cfg.partition.balance_relevant,
           eval > 0 ? "a uniform page sample" : "every page");
    uint16_t *hp = malloc((size_t)H * sizeof *hp);
    int rc = 1;
    if (hp == NULL) {
        snprintf(ctx.errmsg, sizeof ctx.errmsg, "out of memory");
        goto fail;
    }
    for (char *tok = strtok(argv[3], ","); tok != NULL; tok = strtok(NULL, ",")) {
        const int32_t k = atoi(tok);
        cs_gen_host_graph_info info;
        t0 = cs_now();
        if (cs_gen_host_parts(&ctx, g, &cfg.partition, k, hp, &info) != CS_OK)
            goto fail;
        const double setup = cs_now() - t0, rss = peak_mib();
        double cm = 0, hm = 0, ch = 0, hh = 0;
        if (cut_of(&ctx, g, hp, k, n, eval > 0, &cm, &hm) ||
            cut_of(&ctx, g, NULL, k, n, eval > 0, &ch, &hh))
            goto fail;
        printf("k %d: set-up %.2f s (host graph %.2f s: %lld sampled pages, %lld links, %lld "
               "adjacency entries; METIS %.2f s), peak RSS %.0f MiB; cut metis-sampled %.4f +- "
               "%.4f, host-hash %.4f +- %.4f, ratio %.3f; page balance %.3f vs %.3f\n",
               (int)k, setup, info.seconds, (long long)info.sampled_pages,
               (long long)info.sampled_links, (long long)info.adjacency, info.metis_seconds, rss,
               cm, eval > 0 ? hm : 0.0, ch, eval > 0 ? hh : 0.0, cm / ch, balance(g, hp, k),
               balance(g, NULL, k));
        fflush(stdout);
    }
    rc = 0;
fail:
    if (rc != 0)
        fprintf(stderr, "bench_sampled: %s\n", ctx.errmsg);
    free(hp);
    cs_gen_destroy(&g);
    return rc;
}
