/*
 * bench_gen_graph: the run-time graph of a generated world built in memory (cs_gen_partition +
 * cs_gen_graph) against loading it from a graph file of the same world (cs_graph_load_with
 * under the partition cs_partition_compute makes, and cs_graph_load from a partition file),
 * for block and host-hash partitions on the job's ranks. The world is the default [gen]
 * config (cs_config_defaults) with `pages` pages.
 *
 *   mpiexec -n P bench_gen_graph GRAPH.h5 [repeats] [pages]
 *
 * GRAPH.h5 is written first when it does not exist (timed, not repeated); GRAPH.h5.part is a
 * scratch partition file. Prints per method and repeat the times (maximum over ranks), then
 * the best of each, and checks that both graphs have the same local links on every rank.
 */
#include "crawlsim/config.h"
#include "crawlsim/gen.h"
#include "crawlsim/graph.h"
#include "crawlsim/partition.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double tmax(const cs_ctx *ctx, double t)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    return m;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    if (argc < 2) {
        if (ctx.rank == 0)
            fprintf(stderr, "usage: bench_gen_graph GRAPH.h5 [repeats] [pages]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    const int repeats = argc > 2 ? atoi(argv[2]) : 3;
    char ppath[1024];
    snprintf(ppath, sizeof ppath, "%s.part", path);
    cs_config cfg;
    cs_config_defaults(&cfg);
    if (argc > 3)
        cfg.gen.pages = atoll(argv[3]);
    cs_err rc = CS_OK;
    int exists = access(path, R_OK) == 0;
    MPI_Bcast(&exists, 1, MPI_INT, 0, ctx.comm);
    if (!exists) {
        double t0 = MPI_Wtime();
        rc = cs_gen_write(&ctx, &cfg, path);
        double t = tmax(&ctx, MPI_Wtime() - t0);
        if (rc == CS_OK && ctx.rank == 0)
            printf("wrote %s in %.3f s\n", path, t);
    }
    if (ctx.rank == 0)
        printf("world %lld pages, %d rank(s) x %d thread(s)\n", (long long)cfg.gen.pages, ctx.size,
               omp_get_max_threads());
    static const int methods[2] = {CS_PART_BLOCK, CS_PART_HOST_HASH};
    for (int mi = 0; rc == CS_OK && mi < 2; mi++) {
        const char *name = cs_partition_method_name(methods[mi]);
        double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
        for (int r = 0; rc == CS_OK && r < repeats; r++) {
            cs_gen *g = NULL;
            cs_partition gp, fp, pp;
            cs_partition_init(&gp);
            cs_partition_init(&fp);
            cs_partition_init(&pp);
            cs_graph *a = NULL, *b = NULL, *c = NULL;
            double t[6];
            /* in memory: model tables, partition, pages */
            MPI_Barrier(ctx.comm);
            double t0 = MPI_Wtime();
            rc = cs_agree(&ctx, cs_gen_create(&ctx, &cfg.gen, &g));
            double t1 = MPI_Wtime();
            if (rc == CS_OK)
                rc = cs_agree(&ctx, cs_gen_partition(&ctx, g, methods[mi], ctx.size,
                                                     cfg.partition.seed, &gp));
            double t2 = MPI_Wtime();
            if (rc == CS_OK)
                rc = cs_gen_graph(&ctx, g, &gp, &a);
            double t3 = MPI_Wtime();
            t[0] = tmax(&ctx, t3 - t0);
            t[1] = tmax(&ctx, t1 - t0);
            t[2] = tmax(&ctx, t2 - t1);
            t[3] = tmax(&ctx, t3 - t2);
            /* from the file: cs_partition_compute + cs_graph_load_with */
            cs_partition_config pc = cfg.partition;
            pc.method = methods[mi];
            MPI_Barrier(ctx.comm);
            t0 = MPI_Wtime();
            if (rc == CS_OK)
                rc = cs_partition_compute(&ctx, path, &pc, ctx.size, &fp);
            if (rc == CS_OK)
                rc = cs_graph_load_with(&ctx, path, &fp, &b);
            t[4] = tmax(&ctx, MPI_Wtime() - t0);
            /* from the file with a partition file: cs_graph_load */
            if (rc == CS_OK)
                rc = cs_partition_write(&ctx, ppath, 0, &fp);
            MPI_Barrier(ctx.comm);
            t0 = MPI_Wtime();
            if (rc == CS_OK)
                rc = cs_graph_load(&ctx, path, ppath, &c);
            t[5] = tmax(&ctx, MPI_Wtime() - t0);
            if (rc == CS_OK) {
                int same = cs_graph_n_local(a) == cs_graph_n_local(b) &&
                           cs_graph_n_local_links(a) == cs_graph_n_local_links(c) &&
                           cs_graph_n_links(a) == cs_graph_n_links(b);
                MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, ctx.comm);
                int64_t most = cs_graph_n_local(a);
                MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, ctx.comm);
                if (ctx.rank == 0)
                    printf(
                        "%-9s repeat %d: in memory %.3f s (model tables %.3f, partition %.3f, "
                        "pages %.3f); file: load_with %.3f s, load %.3f s; %s (max %lld pages per "
                        "rank)\n",
                        name, r, t[0], t[1], t[2], t[3], t[4], t[5], same ? "same" : "DIFFERENT",
                        (long long)most);
                for (int i = 0; i < 6; i++)
                    best[i] = t[i] < best[i] ? t[i] : best[i];
            }
            cs_graph_destroy(&c);
            cs_graph_destroy(&b);
            cs_graph_destroy(&a);
            cs_partition_fini(&pp);
            cs_partition_fini(&fp);
            cs_partition_fini(&gp);
            cs_gen_destroy(&g);
        }
        if (rc == CS_OK && ctx.rank == 0)
            printf("%-9s best: in memory %.3f s (model tables %.3f, partition %.3f, pages %.3f); "
                   "file: load_with %.3f s, load %.3f s\n",
                   name, best[0], best[1], best[2], best[3], best[4], best[5]);
    }
    if (rc != CS_OK)
        cs_report_error(&ctx, rc);
    if (ctx.rank == 0)
        unlink(ppath);
    MPI_Finalize();
    return rc == CS_OK ? 0 : 1;
}
