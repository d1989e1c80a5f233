/*
 * bench_perlink: the per-link work of the procedural world (gen.materialize = false) on one
 * thread, as a crawl's fetch phase does it, in ns per link, with the random accesses per link
 * that the code makes (counted here from the links themselves), to set against this machine's
 * memory latency and bandwidth (bench_memory). Built, never run by ctest.
 *
 * FETCHES pages drawn uniformly from a world of PAGES pages (the spec SPEC's [gen] keys, e.g.
 * graphs/default.ini), in ticks of B pages, each tick:
 *   generation: cs_gen_pages (the pages' attributes and out-links, what the fetch phase calls);
 *   host:       cs_gen_host_of of every link's target (the route's owner and the host tables);
 *   evidence:   cs_evidence_anchors for every link (the target's term vector and relevance
 *               projections, through the per-thread row cache, and the anchor noise); the crawl
 *               does it for the targets not visited yet only.
 *
 * The random accesses per link, from the code (docs/developer/performance-model.md): per fetched
 * page 3 (its host's bucket, record and topic); per link leaving the page's host 4 (the pick
 * table's entry and the target host's record in the generation, its bucket for the host, its
 * topic for the term vector); per link 1 (the evidence row cache, a table of up to 8 MiB a
 * thread). The cross-host share and the degree are counted here. Streamed: 24 bytes a link (its
 * target written, then read by the host and the evidence steps) and 57 bytes a page. Times are the
 * thread's CPU time (OMP_NUM_THREADS=1), not the wall clock. Usage: bench_perlink SPEC PAGES
 * [FETCHES (200000)] [B (1000)]
 */
#include "crawlsim/config.h"
#include "crawlsim/features.h"
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The thread's CPU time: a core shared with other processes gives the same figures (their
 * caches and memory traffic still count). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct tally {
    double t_gen, t_host, t_ev;
    int64_t pages, links, cross;
    double sink;
} tally;

static cs_err load_spec(cs_ctx *ctx, const char *path, cs_config *cfg)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return cs_fail(ctx, CS_ERR_IO, "bench_perlink: cannot open %s", path);
    char *text = malloc(1 << 20);
    const size_t n = text != NULL ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (text == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "bench_perlink: out of memory");
    text[n] = '\0';
    const cs_err rc = cs_config_parse_string(ctx, text, path, cfg);
    free(text);
    return rc;
}

/* One tick: the B pages ids[0..n) generated, their links' hosts and evidence. */
static cs_err tick(cs_ctx *ctx, const cs_gen *g, const cs_evidence *ev, const int64_t *ids,
                   int64_t n, cs_graph_slice *s, tally *t)
{
    double t0 = cpu_now();
    cs_graph_slice_fini(s);
    cs_err rc = cs_gen_pages(ctx, g, ids, n, s);
    if (rc != CS_OK)
        return rc;
    double t1 = cpu_now();
    int64_t cross = 0, hsum = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = s->offsets[i]; j < s->offsets[i + 1]; j++) {
            const int64_t h = cs_gen_host_of(g, s->targets[j]);
            cross += h != s->host[i];
            hsum += h;
        }
    double t2 = cpu_now();
    float rl[CS_EVIDENCE_BATCH], cats[CS_EVIDENCE_BATCH * CS_FEAT_MAX_CATEGORIES];
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = s->offsets[i]; j < s->offsets[i + 1]; j += CS_EVIDENCE_BATCH) {
            const int64_t left = s->offsets[i + 1] - j;
            const int64_t nb = left < CS_EVIDENCE_BATCH ? left : CS_EVIDENCE_BATCH;
            cs_evidence_anchors(ev, ids[i], s->targets + j, s->targets + j, nb, rl, cats);
            acc += (double)rl[0];
        }
    double t3 = cpu_now();
    t->t_gen += t1 - t0;
    t->t_host += t2 - t1;
    t->t_ev += t3 - t2;
    t->pages += n;
    t->links += s->offsets[n];
    t->cross += cross;
    t->sink += acc + (double)(hsum & 1);
    return CS_OK;
}

static void report(const cs_gen *g, const tally *t, int64_t b)
{
    const double L = t->links > 0 ? (double)t->links : 1.0;
    const double x = (double)t->cross / L, d = L / (double)t->pages;
    const double ns_gen = 1e9 * t->t_gen / L, ns_host = 1e9 * t->t_host / L,
                 ns_ev = 1e9 * t->t_ev / L;
    printf("bench_perlink: world %lld pages, %lld hosts; %lld fetches at random in ticks of "
           "%lld, 1 thread; sink %.3g\n",
           (long long)cs_gen_n_pages(g), (long long)cs_gen_n_hosts(g), (long long)t->pages,
           (long long)b, t->sink);
    printf("links per fetched page        %10.2f\n", d);
    printf("cross-host share of links     %10.4f\n", x);
    printf("generation                    %10.1f ns/link\n", ns_gen);
    printf("target host                   %10.1f ns/link\n", ns_host);
    printf("evidence (term vector, anchor)%10.1f ns/link\n", ns_ev);
    printf("per-link work                 %10.1f ns/link\n", ns_gen + ns_host + ns_ev);
    /* the code's count (top of this file): 3 a page, 4 a cross-host link, 1 the row cache */
    printf("random accesses per link      %10.3f (%.3f beyond the row cache)\n",
           3.0 / d + 4.0 * x + 1.0, 3.0 / d + 4.0 * x);
    /* streamed: a link's target written once and read by the two later steps (8 bytes each),
     * and a page's 57 bytes of attributes, offsets and degree bounds */
    printf("sequential bytes per link     %10.1f\n", 24.0 + 57.0 / d);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_perlink SPEC PAGES [FETCHES] [B]\n");
        return 2;
    }
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_config cfg;
    cs_config_defaults(&cfg);
    const int64_t fetches = argc > 3 ? (int64_t)strtod(argv[3], NULL) : 200000;
    const int64_t B = argc > 4 ? (int64_t)strtod(argv[4], NULL) : 1000;
    cs_gen *g = NULL;
    cs_evidence *ev = NULL;
    int64_t *ids = NULL;
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    tally t = {0};
    cs_feat_layout L;
    if (load_spec(&ctx, argv[1], &cfg) != CS_OK)
        goto fail;
    cfg.gen.pages = (int64_t)strtod(argv[2], NULL);
    if (fetches < 1 || B < 1 || cfg.gen.pages < 2) {
        fprintf(stderr, "bench_perlink: PAGES >= 2, FETCHES >= 1 and B >= 1\n");
        return 2;
    }
    cs_feat_layout_init(&L, &cfg.sarsa);
    const double t0 = cs_now();
    if (cs_gen_create(&ctx, &cfg.gen, &g) != CS_OK ||
        cs_evidence_create_on_demand(&ctx, g, &cfg, &L, &ev) != CS_OK)
        goto fail;
    printf("bench_perlink: %s, model %.2f s\n", argv[1], cs_now() - t0);
    ids = malloc((size_t)B * sizeof *ids);
    if (ids == NULL)
        goto fail;
    uint64_t z = 42;
    for (int64_t done = 0; done < fetches; done += B) {
        const int64_t n = fetches - done < B ? fetches - done : B;
        for (int64_t i = 0; i < n; i++) {
            z = cs_mix64(z);
            ids[i] = (int64_t)(z % (uint64_t)cfg.gen.pages);
        }
        if (tick(&ctx, g, ev, ids, n, &s, &t) != CS_OK)
            goto fail;
    }
    report(g, &t, B);
    cs_graph_slice_fini(&s);
    free(ids);
    cs_evidence_destroy(&ev);
    cs_gen_destroy(&g);
    return 0;
fail:
    fprintf(stderr, "bench_perlink: %s\n", ctx.errmsg[0] ? ctx.errmsg : "out of memory");
    cs_graph_slice_fini(&s);
    free(ids);
    cs_evidence_destroy(&ev);
    cs_gen_destroy(&g);
    return 1;
}
