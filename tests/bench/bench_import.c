/*
 * bench_import: times cs_import_run on a graph spec.
 *
 *   mpiexec -n P bench_import graphs/cnr-2000.ini out.h5 [repeats]
 *
 * Prints the wall time of each import (read + convert on rank 0, collective write) and the
 * best of the repeats.
 */
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/import.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_INFO);
    if (argc < 3) {
        if (ctx.rank == 0)
            fprintf(stderr, "usage: bench_import SPEC.ini OUT.h5 [repeats]\n");
        MPI_Finalize();
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    cs_config cfg;
    cs_err rc = cs_config_load(&ctx, argv[1], NULL, 0, &cfg);
    double best = 1e30;
    for (int r = 0; rc == CS_OK && r < repeats; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        rc = cs_import_run(&ctx, &cfg, argv[2]);
        double t = MPI_Wtime() - t0;
        if (t < best)
            best = t;
        if (ctx.rank == 0 && rc == CS_OK)
            printf("bench_import %s: run %d: %.3f s on %d rank(s)\n", argv[1], r, t, ctx.size);
    }
    if (rc != CS_OK)
        cs_report_error(&ctx, rc);
    else if (ctx.rank == 0)
        printf("bench_import %s: best %.3f s\n", argv[1], best);
    cs_ctx_fini(&ctx);
    MPI_Finalize();
    return rc == CS_OK ? 0 : 1;
}
