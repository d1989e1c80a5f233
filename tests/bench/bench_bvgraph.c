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

static int write_graph(const char *base, int64_t n, int64_t deg, int with_offsets)
{
    int64_t *off = malloc(((size_t)n + 1) * sizeof *off);
    int32_t *tgt = malloc((size_t)(n * (deg + 2)) * sizeof *tgt);
    uint8_t *mark = calloc((size_t)n, 1);
    uint64_t s = 12345;
    int64_t m = 0;
    for (int64_t x = 0; x < n; x++) {
        off[x] = m;
        int64_t b = m;
        if (x > 0 && (s >> 33) % 3 != 0) /* most lists resemble the previous one */
            for (int64_t k = off[x - 1]; k < b; k++)
                if ((k ^ (int64_t)(s >> 40)) % 5 != 0 && !mark[tgt[k]])
                    mark[tgt[m++] = tgt[k]] = 1;
        while (m - b < deg) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int64_t t = (s >> 35) % 4 == 0 ? (int64_t)((s >> 20) % (uint64_t)n)
                                           : (x + (int64_t)((s >> 24) % 64) - 32 + n) % n;
            if (!mark[t])
                mark[tgt[m++] = (int32_t)t] = 1;
        }
        for (int64_t k = b; k < m; k++)
            mark[tgt[k]] = 0;
        for (int64_t k = b + 1; k < m; k++) { /* insertion sort of the short list */
            int32_t v = tgt[k];
            int64_t j = k;
            while (j > b && tgt[j - 1] > v) {
                tgt[j] = tgt[j - 1];
                j--;
            }
            tgt[j] = v;
        }
    }
    off[n] = m;
    cs_bv_params p;
    cs_bv_params_default(&p);
    p.nodes = n;
    bw_stats st = bw_write(base, n, off, tgt, &p, 1, 0, with_offsets, 1);
    printf("wrote %s.graph: %lld nodes, %lld arcs, %lld references, %lld intervals\n", base,
           (long long)n, (long long)m, (long long)st.refs, (long long)st.intervals);
    free(off);
    free(tgt);
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
