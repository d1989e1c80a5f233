/*
 * bench_bandit: the two figures for the bandit module (bandit.h). Built, never run by
 * ctest.
 *
 * Usage: mpirun -np P bench_bandit [arms, default 10000000] [N0, default 1000] [ticks, 20]
 *                                  [FG-DQN steps, default 20000]
 *
 * 1. Whittle selection: `arms` cached pages in contiguous blocks over the ranks (parameters a pure
 *    function of the id: decay c in [0.05, 2), arrival rate in [1, 100), age in [1, 200)), one
 *    cs_whittle_tick per tick (index pass + local top-N0 heap + cs_comm_topk + mean dynamics);
 *    reported: the slowest rank's time per tick, mean over `ticks` ticks after 2 warm-up ticks,
 *    and the part spent in the distributed top-k (measured by a separate cs_comm_topk call on
 *    the same keys).
 * 2. FG-DQN: training steps per second (cs_fgdqn_train: a minibatch of 32 from the replay memory,
 *    forward and full-gradient backward pass of 64 rows, Eq. 9 update with its noise) for the
 *    4-group example with hidden layers 64 and 8, then 4000 and 8 (the paper's); rank 0 only.
 */
#include "crawlsim/bandit.h"
#include "crawlsim/comm.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static double fgdqn_rate(cs_ctx *ctx, int64_t h1, int64_t h2, int64_t steps)
{
    cs_fgdqn_config c;
    cs_fgdqn_config_default(&c);
    c.hidden1 = h1;
    c.hidden2 = h2;
    cs_fgdqn *f = NULL;
    if (cs_fgdqn_create(ctx, &c, 4, 1, 0, &f) != CS_OK)
        return NAN;
    cs_rng r;
    cs_rng_init(&r, 5, CS_RNG_TEST, 0, 0);
    float z[8], z1[8];
    for (int i = 0; i < 1000; i++) {
        for (int k = 0; k < 8; k++) {
            z[k] = (float)cs_rng_uniform(&r);
            z1[k] = (float)cs_rng_uniform(&r);
        }
        cs_fgdqn_push(f, z, (int64_t)cs_rng_below(&r, 4), (float)cs_rng_uniform(&r), z1);
    }
    cs_fgdqn_train(f); /* warm-up */
    const double t0 = MPI_Wtime();
    double loss = 0;
    for (int64_t s = 0; s < steps; s++)
        loss += cs_fgdqn_train(f);
    const double dt = MPI_Wtime() - t0;
    cs_fgdqn_destroy(&f);
    if (!isfinite(loss))
        fprintf(stderr, "warning: non-finite loss\n");
    return (double)steps / dt;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_INFO);
    const int64_t G = argc > 1 ? atoll(argv[1]) : 10000000;
    const int64_t n0 = argc > 2 ? atoll(argv[2]) : 1000;
    const int ticks = argc > 3 ? atoi(argv[3]) : 20;
    const int64_t steps = argc > 4 ? atoll(argv[4]) : 20000;
    if (G < 1 || n0 < 1 || ticks < 1 || steps < 0) {
        if (ctx.rank == 0)
            fprintf(stderr,
                    "usage: bench_bandit [ARMS >= 1] [N0 >= 1] [TICKS >= 1] [STEPS >= 0]\n");
        cs_ctx_fini(&ctx);
        MPI_Finalize();
        return 2;
    }
    const int64_t lo = G * ctx.rank / ctx.size, hi = G * (ctx.rank + 1) / ctx.size;
    cs_whittle_arms A;
    if (cs_whittle_arms_init(&ctx, &A, hi - lo) != CS_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int64_t id = lo; id < hi; id++) {
        cs_rng r;
        cs_rng_init(&r, 9, CS_RNG_TEST, (uint64_t)id, 0);
        const double c = 0.05 + 1.95 * cs_rng_uniform(&r);
        const double lam = 1 + 99 * cs_rng_uniform(&r);
        const uint32_t age = (uint32_t)(1 + cs_rng_below(&r, 199));
        cs_whittle_arms_set(&A, id - lo, (uint64_t)id, cs_whittle_u(lam, c, INFINITY), exp(-c), 1.0,
                            age);
    }
    int64_t *chosen = malloc((size_t)n0 * sizeof *chosen);
    double t_tick = 0, t_topk = 0;
    int64_t crawled = 0;
    for (int t = 0; t < ticks + 2; t++) {
        int64_t nc;
        double rw;
        MPI_Barrier(ctx.comm);
        const double t0 = MPI_Wtime();
        cs_whittle_tick(&ctx, &A, n0, chosen, &nc, &rw);
        double dt = MPI_Wtime() - t0;
        /* the distributed top-k alone, on the heap's keys of this tick (sorted decreasing) */
        int64_t h = A.n < n0 ? A.n : n0, take;
        MPI_Barrier(ctx.comm);
        const double t1 = MPI_Wtime();
        cs_comm_topk(&ctx, A.heap_key, h, n0, &take);
        double dk = MPI_Wtime() - t1;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
        MPI_Allreduce(MPI_IN_PLACE, &dk, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
        MPI_Allreduce(MPI_IN_PLACE, &nc, 1, MPI_INT64_T, MPI_SUM, ctx.comm);
        if (t >= 2) {
            t_tick += dt;
            t_topk += dk;
            crawled += nc;
        }
    }
    if (ctx.rank == 0)
        printf("whittle: %lld arms on %d ranks, N0 = %lld: %.2f ms per tick (of which the "
               "distributed top-k %.2f ms), %lld crawls per tick\n",
               (long long)G, ctx.size, (long long)n0, 1e3 * t_tick / ticks, 1e3 * t_topk / ticks,
               (long long)(crawled / ticks));
    free(chosen);
    cs_whittle_arms_fini(&A);
    if (ctx.rank == 0 && steps > 0) {
        printf("fgdqn: 4 groups, hidden 64 and 8, batch 32: %.0f training steps/s\n",
               fgdqn_rate(&ctx, 64, 8, steps));
        printf("fgdqn: 4 groups, hidden 4000 and 8 (the paper's), batch 32: %.0f training "
               "steps/s\n",
               fgdqn_rate(&ctx, 4000, 8, steps / 20));
    }
    MPI_Finalize();
    return 0;
}
