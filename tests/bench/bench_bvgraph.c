/*
 * bench_bvgraph: times the BVGraph decoder (src/import/import_bvgraph.c), serial, no MPI.
 *
 *   bench_bvgraph read BASENAME.graph [repeats]     decode a graph (with its .properties)
 *   bench_bvgraph write BASENAME NODES DEGREE [offsets]  a random graph with web-like locality
 *                                                   (the tests' writer, WebGraph's defaults)
 *
 * read prints the wall time of each decode (sequential offsets pass, when there is no .offsets
 * file, plus the parallel pass over OMP_NUM_THREADS threads) and the arcs per second of the
 * best.
 */
#include "../unit/bvgraph_writer.h"
#include "crawlsim/core.h"
#include "import/import_bvgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A random graph with web-like locality, streamed through the tests' encoder (a few megabytes
 * of memory whatever its size): most lists resemble the previous one, most targets lie within
 * 32 of the source. */
static int write_graph(const char *base, int64_t n, int64_t deg, int with_offsets)
{
    int32_t *prev = malloc((size_t)(deg + 2) * sizeof *prev);
    int32_t *cur = malloc((size_t)(deg + 2) * sizeof *cur);
    uint8_t *mark = calloc((size_t)n, 1);
    if (prev == NULL || cur == NULL || mark == NULL || deg < 1 || deg > n) {
        fprintf(stderr, "bench_bvgraph: out of memory (or a degree outside [1, nodes])\n");
        free(prev);
        free(cur);
        free(mark);
        return 1;
    }
    cs_bv_params p;
    cs_bv_params_default(&p);
    p.nodes = n;
    bw_enc e;
    bw_enc_open(&e, base, &p, with_offsets, 1);
    uint64_t s = 12345;
    int64_t m = 0, np = 0, prev_first = 0;
    double t0 = cs_now(), last = t0;
    for (int64_t x = 0; x < n; x++) {
        int64_t c = 0;
        if (x > 0 && (s >> 33) % 3 != 0) /* most lists resemble the previous one */
            for (int64_t i = 0; i < np; i++)
                if (((prev_first + i) ^ (int64_t)(s >> 40)) % 5 != 0 && !mark[prev[i]])
                    mark[cur[c++] = prev[i]] = 1;
        while (c < deg) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int64_t t = (s >> 35) % 4 == 0 ? (int64_t)((s >> 20) % (uint64_t)n)
                                           : ((x + (int64_t)((s >> 24) % 64) - 32) % n + n) % n;
            if (!mark[t])
                mark[cur[c++] = (int32_t)t] = 1;
        }
        for (int64_t k = 0; k < c; k++)
            mark[cur[k]] = 0;
        for (int64_t k = 1; k < c; k++) { /* insertion sort of the short list */
            int32_t v = cur[k];
            int64_t j = k;
            while (j > 0 && cur[j - 1] > v) {
                cur[j] = cur[j - 1];
                j--;
            }
            cur[j] = v;
        }
        bw_enc_node(&e, cur, c);
        prev_first = m;
        m += c;
        int32_t *t = prev;
        prev = cur;
        cur = t;
        np = c;
        if (cs_now() - last > 10.0) {
            last = cs_now();
            fprintf(stderr, "bench_bvgraph: %lld of %lld nodes, %lld arcs, %.0f s\n",
                    (long long)x + 1, (long long)n, (long long)m, last - t0);
        }
    }
    bw_stats st = bw_enc_close(&e, 1, 0);
    printf("wrote %s.graph: %lld nodes, %lld arcs, %lld references, %lld intervals (%.1f s)\n",
           base, (long long)n, (long long)m, (long long)st.refs, (long long)st.intervals,
           cs_now() - t0);
    free(prev);
    free(cur);
    free(mark);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "write") == 0)
        return write_graph(argv[2], atoll(argv[3]), atoll(argv[4]),
                           argc > 5 && strcmp(argv[5], "offsets") == 0);
    if (argc < 3 || strcmp(argv[1], "read") != 0) {
        fprintf(stderr, "usage: bench_bvgraph read BASENAME.graph [repeats]\n"
                        "       bench_bvgraph write BASENAME NODES DEGREE [offsets]\n");
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    double best = 1e300;
    int64_t arcs = 0;
    for (int r = 0; r < repeats; r++) {
        int64_t n = 0, *off = NULL;
        int32_t *tgt = NULL;
        double t0 = cs_now();
        if (cs_bv_read_graph(&ctx, argv[2], 0, &n, &off, &tgt) != CS_OK) {
            fprintf(stderr, "bench_bvgraph: %s\n", ctx.errmsg);
            return 1;
        }
        double t = cs_now() - t0;
        arcs = off[n];
        printf("decode %d: %lld nodes, %lld arcs, %.3f s\n", r, (long long)n, (long long)arcs, t);
        best = t < best ? t : best;
        free(off);
        free(tgt);
    }
    printf("best %.3f s, %.1f M arcs/s\n", best, (double)arcs / best / 1e6);
    return 0;
}
