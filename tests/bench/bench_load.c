/*
 * bench_load: times cs_graph_load_with (distributed loading, issue 3) on an existing graph
 * file, for a block partition, a host-hash partition (part = cs_mix64(host) mod ranks) and a
 * random per-page partition (the worst case: almost every page is a run of its own), all
 * built in memory; then, when the graph file has a /partition group (or PART.h5 is given),
 * cs_graph_load with it.
 *
 *   mpiexec -n P bench_load GRAPH.h5 [repeats] [PART.h5]
 *
 * Prints, per partition and repeat, the load time (maximum over ranks) and the pages, links
 * and runs of consecutive page ids of the slowest rank's share, then the best time.
 */
#include "crawlsim/core.h"
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/partition.h"
#include "crawlsim/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collective. Fills part (zeroed) with the block (kind 0), host-hash (1) or random per-page (2)
 * partition of path for ctx->size parts; every rank reads the hosts of its block and the
 * parts are allgathered. */
static cs_err make_partition(cs_ctx *ctx, const char *path, int kind, cs_partition *part)
{
    cs_err rc = CS_OK;
    cs_graph_header hdr;
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    int *counts = NULL, *displs = NULL;
    CS_TRY(ctx, cs_graphio_read_header(ctx, path, &hdr));
    const int64_t N = hdr.n_pages;
    int64_t first = 0, n = 0;
    cs_block_range(N, ctx->rank, ctx->size, &first, &n);
    memset(part, 0, sizeof *part);
    const int hash = kind != 0;
    part->method = kind == 1 ? CS_PART_HOST_HASH : kind == 0 ? CS_PART_BLOCK : CS_PART_METIS;
    part->k = ctx->size;
    part->n_pages = N;
    part->n_links = hdr.n_links;
    part->n_hosts = hdr.n_hosts;
    part->part = malloc((size_t)N * sizeof *part->part + 1);
    counts = malloc((size_t)ctx->size * sizeof *counts);
    displs = malloc((size_t)ctx->size * sizeof *displs);
    CS_ASSERT(part->part != NULL && counts != NULL && displs != NULL && N < INT32_MAX);
    if (!hash) {
        part->part_first = malloc(((size_t)ctx->size + 1) * sizeof *part->part_first);
        CS_ASSERT(part->part_first != NULL);
        for (int r = 0; r < ctx->size; r++) {
            int64_t f = 0, c = 0;
            cs_block_range(N, r, ctx->size, &f, &c);
            part->part_first[r] = f;
            for (int64_t p = f; p < f + c; p++)
                part->part[p] = r;
        }
        part->part_first[ctx->size] = N;
        goto fail; /* done: the common exit */
    }
    CS_TRY(ctx, cs_graphio_read_slice(ctx, path, first, n, &s, NULL));
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = kind == 1 ? (uint64_t)s.host[i] : (uint64_t)(first + i) ^ 0x5eedULL;
        part->part[first + i] = (int32_t)(cs_mix64(key) % (uint64_t)ctx->size);
    }
    for (int r = 0; r < ctx->size; r++) {
        int64_t f = 0, c = 0;
        cs_block_range(N, r, ctx->size, &f, &c);
        counts[r] = (int)c;
        displs[r] = (int)f;
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT32_T, part->part, counts, displs, MPI_INT32_T,
                   ctx->comm);
fail:
    free(displs);
    free(counts);
    cs_graph_slice_fini(&s);
    return rc;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_INFO);
    if (argc < 2) {
        if (ctx.rank == 0)
            fprintf(stderr, "usage: bench_load GRAPH.h5 [repeats]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    int repeats = argc > 2 ? atoi(argv[2]) : 3;
    cs_err rc = CS_OK;
    static const char *names[4] = {"block", "host-hash", "random", "file"};
    const char *ppath = argc > 3 ? argv[3] : NULL;
    for (int kind = 0; rc == CS_OK && kind < 4; kind++) {
        cs_partition part;
        memset(&part, 0, sizeof part);
        int exists = 1;
        if (kind < 3)
            rc = make_partition(&ctx, path, kind, &part);
        else if (ppath == NULL)
            rc = cs_partition_exists(&ctx, path, &exists);
        if (rc != CS_OK || !exists)
            break;
        double best = 1e30;
        for (int r = 0; rc == CS_OK && r < repeats; r++) {
            cs_graph *g = NULL;
            MPI_Barrier(ctx.comm);
            double t0 = MPI_Wtime();
            rc = kind < 3 ? cs_graph_load_with(&ctx, path, &part, &g)
                          : cs_graph_load(&ctx, path, ppath, &g);
            double t = MPI_Wtime() - t0, tmax = 0;
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
            if (rc != CS_OK)
                break;
            const int64_t *ids = cs_graph_local_ids(g);
            int64_t nl = cs_graph_n_local(g), runs = 0;
            for (int64_t i = 0; i < nl; i++)
                runs += i == 0 || ids[i] != ids[i - 1] + 1;
            int64_t mine[3] = {nl, cs_graph_n_local_links(g), runs}, mx[3];
            MPI_Allreduce(mine, mx, 3, MPI_INT64_T, MPI_MAX, ctx.comm);
            if (ctx.rank == 0)
                printf("%-9s ranks %d repeat %d: %.3f s (max per rank: %lld pages, %lld links, "
                       "%lld runs)\n",
                       names[kind], ctx.size, r, tmax, (long long)mx[0], (long long)mx[1],
                       (long long)mx[2]);
            fflush(stdout);
            best = tmax < best ? tmax : best;
            cs_graph_destroy(&g);
        }
        if (rc == CS_OK && ctx.rank == 0)
            printf("%-9s ranks %d best: %.3f s\n", names[kind], ctx.size, best);
        free(part.part);
        free(part.part_first);
    }
    if (rc != CS_OK)
        cs_report_error(&ctx, rc);
    MPI_Finalize();
    return rc == CS_OK ? 0 : 1;
}
