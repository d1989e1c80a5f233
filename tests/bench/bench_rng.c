/*
 * bench_rng: draws per second of the rng module on one core, i.e. the per-draw budget of the
 * graph generator. Built, never run by ctest. Usage: bench_rng [draws per line, default 1e8].
 *
 * Each line sums its draws into a sink printed at the end, so the compiler cannot drop them. The
 * term normals (16 Box-Muller draws a page into floats, as the generator's term vectors) run
 * through libm and through cs_rng_normals_f32 side by side, and the floats are compared: exit
 * status 1 when one differs.
 */
#include "crawlsim/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report(const char *what, uint64_t n, double t0)
{
    double dt = now() - t0;
    printf("%-28s %12.3e draws/s  %7.2f ns/draw\n", what, (double)n / dt, 1e9 * dt / (double)n);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? (uint64_t)strtod(argv[1], NULL) : 100000000u;
    if (n == 0) {
        fprintf(stderr, "usage: bench_rng [draws per line]\n");
        return EXIT_FAILURE;
    }
    cs_rng r;
    cs_rng_init(&r, 12345, CS_RNG_TEST, 0, 0);
    uint64_t isink = 0;
    double dsink = 0.0;
    double t0;

    printf("bench_rng: %llu draws per line, one core\n", (unsigned long long)n);

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += cs_rng_u64(&r);
    report("u64", n, t0);

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        dsink += cs_rng_uniform(&r);
    report("uniform", n, t0);

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += cs_rng_below(&r, 1000000007u);
    report("below(1e9+7)", n, t0);

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        dsink += cs_rng_normal(&r);
    report("normal", n, t0);
    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        dsink += cs_rng_normal_zig(&r);
    report("normal (ziggurat)", n, t0);

    /* the generator's term vectors: 16 Box-Muller draws a page into floats, through libm for
     * every draw and through cs_rng_normals_f32, side by side; the floats must be the same */
    {
        enum { DIM = 16 };
        float base[DIM], a[DIM], b[DIM];
        double z[DIM];
        for (int d = 0; d < DIM; d++)
            base[d] = (float)(0.3 * cs_rng_normal(&r));
        const uint64_t pages = n / DIM;
        int64_t redrawn = 0, differ = 0;
        double t_libm = 0.0, t_f32 = 0.0;
        for (uint64_t p0 = 0; p0 < pages; p0 += 4096) {
            const uint64_t p1 = p0 + 4096 < pages ? p0 + 4096 : pages;
            t0 = now();
            for (uint64_t p = p0; p < p1; p++) {
                cs_rng_init(&r, 12345, CS_RNG_TEST, p, 1);
                cs_rng_normals(&r, DIM, z);
                for (int d = 0; d < DIM; d++)
                    a[d] = (float)((double)base[d] + 0.25 * z[d]);
                dsink += a[p % DIM];
            }
            t_libm += now() - t0;
            t0 = now();
            for (uint64_t p = p0; p < p1; p++) {
                cs_rng_init(&r, 12345, CS_RNG_TEST, p, 1);
                redrawn += cs_rng_normals_f32(&r, DIM, base, 0.25, b);
                dsink += b[p % DIM];
            }
            t_f32 += now() - t0;
            for (uint64_t p = p0; p < p1; p++) { /* the check, outside the timed loops */
                cs_rng_init(&r, 12345, CS_RNG_TEST, p, 1);
                cs_rng_normals(&r, DIM, z);
                cs_rng_init(&r, 12345, CS_RNG_TEST, p, 1);
                (void)cs_rng_normals_f32(&r, DIM, base, 0.25, b);
                for (int d = 0; d < DIM; d++)
                    differ += (float)((double)base[d] + 0.25 * z[d]) != b[d];
            }
        }
        const double draws = (double)(pages * DIM);
        printf("%-28s %12.3e draws/s  %7.2f ns/draw\n", "term normals (libm)", draws / t_libm,
               1e9 * t_libm / draws);
        printf("%-28s %12.3e draws/s  %7.2f ns/draw  (%s kernel; %.2e redrawn with libm; %.3f of "
               "libm's time)\n",
               "term normals (f32)", draws / t_f32, 1e9 * t_f32 / draws,
               cs_rng_normals_f32_kernel(NULL), (double)redrawn / draws, t_f32 / t_libm);
        if (differ != 0) {
            fprintf(stderr, "bench_rng: %lld term floats differ from libm's\n", (long long)differ);
            return EXIT_FAILURE;
        }
    }

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        dsink += cs_rng_exponential(&r, 2.0);
    report("exponential", n, t0);

    cs_zipf z;
    if (cs_zipf_init(&z, 1000000, 1.0) != CS_OK)
        return EXIT_FAILURE;
    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += cs_zipf_draw(&z, &r);
    report("zipf(n=1e6, s=1.0)", n, t0);

    if (cs_zipf_init(&z, 1000000000, 2.1) != CS_OK)
        return EXIT_FAILURE;
    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += cs_zipf_draw(&z, &r);
    report("zipf(n=1e9, s=2.1)", n, t0);

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += cs_rng_poisson(&r, 3.0);
    report("poisson(3)", n, t0);

    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += cs_rng_poisson(&r, 100.0);
    report("poisson(100)", n, t0);

    double w[64];
    for (int i = 0; i < 64; i++)
        w[i] = 1.0 + (double)(i % 7);
    cs_alias a;
    if (cs_alias_init(&a, w, 64) != CS_OK)
        return EXIT_FAILURE;
    t0 = now();
    for (uint64_t i = 0; i < n; i++)
        isink += (uint64_t)cs_alias_draw(&a, &r);
    report("alias(k=64)", n, t0);
    cs_alias_fini(&a);

    printf("(sinks: %llu %g)\n", (unsigned long long)isink, dsink);
    return EXIT_SUCCESS;
}
