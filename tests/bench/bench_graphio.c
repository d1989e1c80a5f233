/*
 * bench_graphio: times the graph-file I/O and statistics on an existing graph file.
 *
 *   mpiexec -n P bench_graphio GRAPH.h5 [OUT.h5] [repeats]
 *
 * Per repeat: cs_graphio_read_header, cs_graphio_read_slice of each rank's block
 * (cs_block_range), cs_graphio_write of those slices to OUT.h5 (when given: a scratch path,
 * overwritten by every repeat and left behind), and cs_graph_info_compute. Prints each time, the
 * read and write bandwidth, and the best of the repeats.
 */
#include "crawlsim/core.h"
#include "crawlsim/graphio.h"

#include <stdio.h>
#include <stdlib.h>

/* Bytes of a slice's arrays as stored in a graph file (page attributes, offsets, links). */
static double slice_bytes(const cs_graph_slice *g)
{
    double nl = g->n > 0 ? (double)g->offsets[g->n] : 0.0;
    return (double)g->n * (8 + 4 + 8 + 8 + 8 + 1 + 8) + nl * (8 + (g->weights ? 4 : 0));
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_INFO);
    if (argc < 2) {
        if (ctx.rank == 0)
            fprintf(stderr, "usage: bench_graphio GRAPH.h5 [OUT.h5] [repeats]\n");
        MPI_Finalize();
        return 2;
    }
    const char *in = argv[1], *out = argc > 2 && argv[2][0] ? argv[2] : NULL;
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    cs_err rc = CS_OK;
    for (int r = 0; rc == CS_OK && r < repeats; r++) {
        double t[5];
        cs_graph_header h;
        cs_graph_slice g;
        cs_graph_meta m;
        cs_graph_info info;
        MPI_Barrier(ctx.comm);
        t[0] = MPI_Wtime();
        rc = cs_graphio_read_header(&ctx, in, &h);
        t[1] = MPI_Wtime();
        int64_t first = 0, n = 0;
        cs_block_range(h.n_pages, ctx.rank, ctx.size, &first, &n);
        if (rc == CS_OK)
            rc = cs_graphio_read_slice(&ctx, in, first, n, &g, &m);
        t[2] = MPI_Wtime();
        double bytes = rc == CS_OK ? slice_bytes(&g) : 0.0, total = 0.0;
        MPI_Allreduce(&bytes, &total, 1, MPI_DOUBLE, MPI_SUM, ctx.comm);
        if (rc == CS_OK && out != NULL)
            rc = cs_graphio_write(&ctx, out, &g, &m, "");
        t[3] = MPI_Wtime();
        if (rc == CS_OK)
            cs_graph_slice_fini(&g);
        cs_graph_meta_fini(&m);
        if (rc == CS_OK)
            rc = cs_graph_info_compute(&ctx, in, 0.5, &info);
        t[4] = MPI_Wtime();
        if (rc == CS_OK && ctx.rank == 0) {
            printf("bench_graphio %s: run %d on %d rank(s): header %.3f s, read %.3f s (%.0f "
                   "MB/s), write %.3f s (%.0f MB/s), info %.3f s\n",
                   in, r, ctx.size, t[1] - t[0], t[2] - t[1], total / 1e6 / (t[2] - t[1]),
                   t[3] - t[2], out ? total / 1e6 / (t[3] - t[2]) : 0.0, t[4] - t[3]);
            fflush(stdout);
        }
        for (int k = 0; k < 4; k++)
            best[k] = t[k + 1] - t[k] < best[k] ? t[k + 1] - t[k] : best[k];
    }
    if (rc != CS_OK)
        cs_report_error(&ctx, rc);
    else if (ctx.rank == 0)
        printf("bench_graphio %s: best header %.3f s, read %.3f s, write %.3f s, info %.3f s\n", in,
               best[0], best[1], best[2], best[3]);
    cs_ctx_fini(&ctx);
    MPI_Finalize();
    return rc == CS_OK ? 0 : 1;
}
