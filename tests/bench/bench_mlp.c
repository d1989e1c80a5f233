/*
 * bench_mlp: batched Q evaluation of the TRES MLP (cs_mlp_eval): samples/s and GFLOP/s for batch
 * sizes 1..4096, for the authors' 7 -> 30 -> 15 -> 1 network and wider hidden layers, with the
 * OpenMP thread count of the environment (OMP_NUM_THREADS). Also one training step (forward +
 * backward + Adam) on a minibatch of 60. Built, never run by ctest.
 * Usage: bench_mlp [seconds per line, default 0.2].
 *
 * FLOPs per sample: 2 (d h1 + h1 h2 + h2) multiply-adds of the three layers (bias and
 * activations not counted). Outputs are summed into a sink printed at the end.
 */
#include "crawlsim/core.h"
#include "crawlsim/mlp.h"
#include "crawlsim/rng.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const double secs = argc > 1 ? strtod(argv[1], NULL) : 0.2;
    if (!(secs > 0.0)) {
        fprintf(stderr, "usage: bench_mlp [seconds per line]\n");
        return EXIT_FAILURE;
    }
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    const int shapes[3][3] = {{7, 30, 15}, {7, 128, 64}, {7, 512, 256}};
    const int64_t batches[] = {1, 4, 16, 64, 256, 1024, 4096};
    const int64_t maxb = 4096;
    float *x = malloc((size_t)maxb * 7 * sizeof *x), *q = malloc((size_t)maxb * sizeof *q);
    cs_mlp *m = NULL;
    int rc = EXIT_FAILURE;
    if (x == NULL || q == NULL)
        goto done;
    cs_rng r;
    cs_rng_init(&r, 1, CS_RNG_TEST, 0, 0);
    for (int64_t i = 0; i < maxb * 7; i++)
        x[i] = (float)cs_rng_uniform(&r);
    double sink = 0.0;
    printf("bench_mlp: %d OpenMP threads, OpenBLAS single-threaded, %.2f s per line\n",
           omp_get_max_threads(), secs);
    printf("%-14s %6s %14s %10s %12s\n", "net", "batch", "samples/s", "GFLOP/s", "us/call");
    for (int s = 0; s < 3; s++) {
        cs_mlp_config c = {shapes[s][0], shapes[s][1], shapes[s][2], 0.1f};
        if (cs_mlp_create(&ctx, &c, &m) != CS_OK)
            goto done;
        cs_mlp_init_weights(m, CS_MLP_INIT_HE, &r);
        const double flops = 2.0 * (double)(c.d_in * c.h1 + c.h1 * c.h2 + c.h2);
        char name[32];
        snprintf(name, sizeof name, "%d-%d-%d-1", c.d_in, c.h1, c.h2);
        for (size_t k = 0; k < sizeof batches / sizeof *batches; k++) {
            const int64_t b = batches[k];
            if (cs_mlp_eval(&ctx, m, x, 7, b, q) != CS_OK) /* warm-up, scratch */
                goto done;
            int64_t calls = 0;
            const double t0 = cs_now();
            double t = t0;
            while (t - t0 < secs) {
                for (int j = 0; j < 16; j++)
                    (void)cs_mlp_eval(&ctx, m, x, 7, b, q);
                calls += 16;
                sink += (double)q[b - 1];
                t = cs_now();
            }
            const double dt = t - t0, n = (double)calls * (double)b;
            printf("%-14s %6lld %14.3e %10.2f %12.2f\n", name, (long long)b, n / dt,
                   n * flops / dt * 1e-9, dt / (double)calls * 1e6);
        }
        /* one training step on a minibatch of 60 */
        cs_mlp_opt o;
        cs_mlp_opt_default(&o);
        int64_t steps = 0;
        const double t0 = cs_now();
        double t = t0, loss = 0.0;
        while (t - t0 < secs) {
            for (int j = 0; j < 16; j++)
                (void)cs_mlp_train_step(&ctx, m, &o, x, 7, 60, x + 60, &loss);
            steps += 16;
            sink += loss;
            t = cs_now();
        }
        printf("%-14s train step (batch 60): %.2f us\n", name, (t - t0) / (double)steps * 1e6);
        cs_mlp_destroy(&m);
    }
    printf("sink %g\n", sink);
    rc = EXIT_SUCCESS;
done:
    if (rc != EXIT_SUCCESS)
        fprintf(stderr, "bench_mlp: %s\n", ctx.errmsg[0] ? ctx.errmsg : "out of memory");
    cs_mlp_destroy(&m);
    free(x);
    free(q);
    return rc;
}
