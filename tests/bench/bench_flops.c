/*
 * bench_flops: this machine's double-precision flop rate on one core, as OpenBLAS's DGEMM
 * reaches it (one OpenBLAS thread, 1024 x 1024 matrices, best of 7): the smpi/host-speed
 * that tools/smpi-run gives the simulation, against the per-core Linpack rate of the simulated
 * cluster's platform file (docs/guide/simulated-cluster.md). Built, never run by ctest.
 * Usage: bench_flops [n, default 1024]. Prints the rate in flop/s on stdout.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 1024;
    if (n < 16 || n > 8192) {
        fprintf(stderr, "usage: bench_flops [n in 16..8192]\n");
        return 2;
    }
    const size_t nn = (size_t)n * (size_t)n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    if (a == NULL || b == NULL || c == NULL) {
        fprintf(stderr, "bench_flops: out of memory\n");
        free(a);
        free(b);
        free(c);
        return 1;
    }
    for (size_t i = 0; i < nn; i++) {
        a[i] = (double)(i % 97) / 97.0;
        b[i] = (double)(i % 89) / 89.0;
    }
    openblas_set_num_threads(1);
    double best = 0.0;
    for (int r = 0; r < 7; r++) {
        double t = now();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
        t = now() - t;
        double f = 2.0 * (double)n * (double)n * (double)n / t;
        if (f > best)
            best = f;
    }
    printf("%.4g\n", best);
    fprintf(stderr, "bench_flops: DGEMM %d x %d on one core: %.4g flop/s (check %.3g)\n", n, n,
            best, c[nn / 2]);
    free(a);
    free(b);
    free(c);
    return 0;
}
