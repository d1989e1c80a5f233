/*
 * bench_frontier: the synchronous frontier evaluation (cs_qlinear_eval) against the machine's
 * memory bandwidth, measured side by side in one run with OMP_NUM_THREADS threads.
 * Built, never run by ctest. Usage: bench_frontier [entries, default 1e7] [repetitions, default 5]
 *
 *   triad       a[i] = b[i] + s * c[i] over three double arrays of 80 MB (or 8 N bytes if
 *               larger): 24 bytes per element, the STREAM reference
 *   read        a read-only pass over the frontier's codes (sum of 64-bit words): the ceiling
 *               of any scan of these bytes
 *   eval        cs_qlinear_eval over N entries of G random valid codes (layout of [sarsa] with
 *               categories = 2): feature bytes N * G, total traffic N * (G + 4) with the float
 *               output; with the kernel the CPU selects (avx512 where it has F/BW/VBMI) and
 *               again with the scalar kernel forced
 *
 * Every figure is the best of the repetitions. The eval results are checked bit for bit against
 * a serial evaluation in group order and summarised by a checksum (FNV-1a of the output bits),
 * which must not depend on the thread count.
 */
#include "crawlsim/features.h"
#include "crawlsim/qnet.h"
#include "crawlsim/rng.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRIAD_MIN_ELEMS 10000000 /* 80 MB per array */

static double triad(double *a, const double *b, const double *c, int64_t n, double s)
{
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
    return omp_get_wtime() - t0;
}

static double read_codes(const uint8_t *codes, int64_t bytes, uint64_t *sink)
{
    const int64_t words = bytes / 8;
    uint64_t s = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < words; i++) {
        uint64_t x;
        memcpy(&x, codes + 8 * i, sizeof x);
        s += x;
    }
    double dt = omp_get_wtime() - t0;
    for (int64_t i = 8 * words; i < bytes; i++)
        s += codes[i];
    *sink += s;
    return dt;
}

static uint64_t fnv1a(const float *v, int64_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &v[i], sizeof b);
        for (int k = 0; k < 4; k++) {
            h ^= (b >> (8 * k)) & 0xffu;
            h *= 1099511628211ull;
        }
    }
    return h;
}

static void row(const char *what, double bytes_per_s, double ref, const char *note)
{
    printf("%-22s %9.2f GB/s %7.1f %%  %s\n", what, 1e-9 * bytes_per_s, 100.0 * bytes_per_s / ref,
           note);
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 10000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n <= 0 || reps <= 0) {
        fprintf(stderr, "usage: bench_frontier [entries, default 1e7] [repetitions, default 5]\n");
        return EXIT_FAILURE;
    }

    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_WARN);
    cs_sarsa_config sc;
    memset(&sc, 0, sizeof sc);
    sc.categories = 2;
    sc.delta1 = 0.1;
    sc.delta2 = 0.3;
    sc.beta = 0.4;
    cs_feat_layout L;
    cs_feat_layout_init(&L, &sc);
    const int G = L.n_groups;
    int range[CS_FEAT_MAX_GROUPS];
    for (int g = 0; g < G; g++) {
        range[g] = 1;
        for (int f = L.group_first[g]; f < L.group_first[g + 1]; f++)
            range[g] *= L.buckets[f];
    }

    cs_qlinear q;
    if (cs_qlinear_init(&ctx, &q, &L) != CS_OK)
        return EXIT_FAILURE;
    cs_rng r;
    cs_rng_init(&r, 2024, CS_RNG_TEST, 0, 0);
    for (int k = 0; k < L.n_weights; k++)
        q.w[k] = 30.0 * (cs_rng_uniform(&r) - 0.5);
    cs_qlinear_tables(&q);

    const int64_t stride = G;
    const int64_t m = n > TRIAD_MIN_ELEMS ? n : TRIAD_MIN_ELEMS;
    uint8_t *codes = malloc((size_t)(n * stride));
    float *out = malloc((size_t)n * sizeof *out);
    float *ref = malloc((size_t)n * sizeof *ref);
    double *a = malloc((size_t)m * sizeof *a);
    double *b = malloc((size_t)m * sizeof *b);
    double *c = malloc((size_t)m * sizeof *c);
    int rc = EXIT_FAILURE;
    if (!codes || !out || !ref || !a || !b || !c) {
        fprintf(stderr, "bench_frontier: out of memory\n");
        goto done;
    }

    /* First touch with the static schedule the loops use; codes drawn per entry from its own
     * stream, so the input does not depend on the thread count either. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        a[i] = 0.0;
        b[i] = 1.0 + (double)(i & 7);
        c[i] = 2.0 - (double)(i & 3);
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        cs_rng e;
        cs_rng_init(&e, 2024, CS_RNG_TEST, (uint64_t)i, 1);
        for (int g = 0; g < G; g++)
            codes[i * stride + g] = (uint8_t)cs_rng_below(&e, (uint64_t)range[g]);
        out[i] = 0.0f;
    }
    for (int64_t i = 0; i < n; i++) {
        float s = 0.0f;
        for (int g = 0; g < G; g++)
            s += q.table[g * CS_FEAT_CODES + codes[i * stride + g]];
        ref[i] = s;
    }

    const int threads = omp_get_max_threads();
    double t_triad = 1e30, t_read = 1e30, t_eval = 1e30, t_scalar = 1e30;
    uint64_t sink = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t = triad(a, b, c, m, 3.0);
        t_triad = t < t_triad ? t : t_triad;
        t = read_codes(codes, n * stride, &sink);
        t_read = t < t_read ? t : t_read;
        double t0 = omp_get_wtime();
        cs_qlinear_eval(&q, codes, stride, n, out);
        t = omp_get_wtime() - t0;
        t_eval = t < t_eval ? t : t_eval;
        cs_qlinear_eval_force_scalar(&q, 1);
        t0 = omp_get_wtime();
        cs_qlinear_eval(&q, codes, stride, n, out);
        t = omp_get_wtime() - t0;
        t_scalar = t < t_scalar ? t : t_scalar;
        cs_qlinear_eval_force_scalar(&q, 0);
    }
    const int same_scalar = memcmp(out, ref, (size_t)n * sizeof *out) == 0;
    cs_qlinear_eval(&q, codes, stride, n, out);
    const int same = same_scalar && memcmp(out, ref, (size_t)n * sizeof *out) == 0;

    const double bw_triad = 24.0 * (double)m / t_triad;
    const double bw_read = (double)(n * stride) / t_read;
    const double bw_feat = (double)(n * stride) / t_eval;
    const double bw_total = (double)(n * (stride + 4)) / t_eval;
    printf("bench_frontier: N = %lld entries, G = %d bytes of codes per entry, %d thread(s), "
           "best of %d\n",
           (long long)n, G, threads, reps);
    printf("command: OMP_NUM_THREADS=%d %s %lld %d\n", threads, argv[0], (long long)n, reps);
    printf("%-22s %14s %9s\n", "", "bandwidth", "of triad");
    row("triad (3 x double)", bw_triad, bw_triad, "");
    {
        char note[96];
        snprintf(note, sizeof note, "%lld MB of codes", (long long)(n * stride >> 20));
        row("read codes", bw_read, bw_triad, note);
    }
    {
        char note[96];
        snprintf(note, sizeof note, "%.2f ns/entry, %.3g entries/s", 1e9 * t_eval / (double)n,
                 (double)n / t_eval);
        char what[64];
        snprintf(what, sizeof what, "eval (%s): features", cs_qlinear_eval_kernel(&q, stride));
        row(what, bw_feat, bw_triad, note);
        snprintf(note, sizeof note, "%.2f ns/entry, %.3g entries/s", 1e9 * t_scalar / (double)n,
                 (double)n / t_scalar);
        row("eval (scalar): features", (double)(n * stride) / t_scalar, bw_triad, note);
    }
    row("eval: total (+4 B out)", bw_total, bw_triad, "");
    printf("eval vs serial group-order reference: %s; checksum %016llx\n",
           same ? "bit-identical" : "DIFFERENT", (unsigned long long)fnv1a(out, n));
    printf("(sinks: %g %llu)\n", a[m / 2], (unsigned long long)sink);
    rc = same ? EXIT_SUCCESS : EXIT_FAILURE;
done:
    free(codes);
    free(out);
    free(ref);
    free(a);
    free(b);
    free(c);
    cs_qlinear_fini(&q);
    cs_ctx_fini(&ctx);
    return rc;
}
