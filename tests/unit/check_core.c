/*
 * check_core: unit tests of the core helpers used on the crawl's hot paths (serial, forked, no
 * MPI_Init): cs_sort_u64 (radix sort) and cs_select_u64 (quickselect) against qsort on random,
 * sorted, reversed, constant and few-distinct inputs, at sizes around the insertion-sort cut;
 * cs_cpu_packages (the placement check's sockets) on a fake sysfs tree; cs_popcount64 against
 * a bit-by-bit count, cs_popcount_words against known sums.
 */
#include "crawlsim/core.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

enum { RANDOM, SORTED, REVERSED, CONSTANT, FEW, HIGH_BYTE_ONLY, N_KINDS };

static void fill(uint64_t *a, int64_t n, int kind, uint64_t seed)
{
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_TEST, (uint64_t)n, (uint64_t)kind);
    for (int64_t i = 0; i < n; i++) {
        switch (kind) {
        case RANDOM:
            a[i] = cs_rng_u64(&r);
            break;
        case SORTED:
            a[i] = (uint64_t)i * 977u;
            break;
        case REVERSED:
            a[i] = UINT64_MAX - (uint64_t)i;
            break;
        case CONSTANT:
            a[i] = 0x1234567890abcdefu;
            break;
        case FEW:
            a[i] = cs_rng_below(&r, 3) << 40;
            break;
        default: /* only the top byte varies: every other pass is skipped */
            a[i] = (cs_rng_u64(&r) & 0xff00000000000000u) | 0x42u;
            break;
        }
    }
}

static const int64_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, 100000};

START_TEST(test_sort)
{
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const int64_t n = sizes[si];
        for (int kind = 0; kind < N_KINDS; kind++) {
            uint64_t *a = malloc((size_t)(n + 1) * sizeof *a);
            uint64_t *ref = malloc((size_t)(n + 1) * sizeof *ref);
            uint64_t *tmp = malloc((size_t)(n + 1) * sizeof *tmp);
            fill(a, n, kind, 7);
            memcpy(ref, a, (size_t)n * sizeof *a);
            qsort(ref, (size_t)n, sizeof *ref, cmp_u64);
            cs_sort_u64(a, n, tmp);
            ck_assert_msg(memcmp(a, ref, (size_t)n * sizeof *a) == 0, "sort: n = %lld, kind %d",
                          (long long)n, kind);
            free(a);
            free(ref);
            free(tmp);
        }
    }
}
END_TEST

START_TEST(test_select)
{
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const int64_t n = sizes[si];
        if (n == 0)
            continue;
        for (int kind = 0; kind < N_KINDS; kind++) {
            uint64_t *a = malloc((size_t)n * sizeof *a);
            uint64_t *ref = malloc((size_t)n * sizeof *ref);
            fill(a, n, kind, 11);
            memcpy(ref, a, (size_t)n * sizeof *a);
            qsort(ref, (size_t)n, sizeof *ref, cmp_u64);
            const int64_t ks[] = {0, n / 3, n / 2, n - 1};
            for (int t = 0; t < 4; t++) {
                const int64_t k = ks[t];
                uint64_t v = cs_select_u64(a, n, k);
                ck_assert_msg(v == ref[k] && a[k] == v, "select: n = %lld, kind %d, k = %lld",
                              (long long)n, kind, (long long)k);
                int ok = 1;
                for (int64_t i = 0; i < n; i++)
                    ok &= i < k ? a[i] <= v : a[i] >= v;
                ck_assert_msg(ok, "select: not partitioned around k = %lld", (long long)k);
            }
            free(a);
            free(ref);
        }
    }
}
END_TEST

/* A fake sysfs: cpu0 and cpu1 on socket 0, cpu2 on socket 1, cpu3 with no topology. */
static void write_id(const char *root, int cpu, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpu%d", root, cpu);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/cpu%d/topology", root, cpu);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    if (text == NULL)
        return;
    snprintf(path, sizeof path, "%s/cpu%d/topology/physical_package_id", root, cpu);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(test_cpu_packages)
{
    char root[] = "/tmp/check_core_sysXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(root));
    write_id(root, 0, "0\n");
    write_id(root, 1, "0\n");
    write_id(root, 2, "1\n");
    write_id(root, 3, NULL);
    const int one[] = {0, 1}, two[] = {0, 2}, all[] = {2, 0, 1}, gap[] = {0, 3}, none[] = {7};
    ck_assert_int_eq(cs_cpu_packages(root, one, 2), 1);
    ck_assert_int_eq(cs_cpu_packages(root, two, 2), 2);
    ck_assert_int_eq(cs_cpu_packages(root, all, 3), 2);
    ck_assert_int_eq(cs_cpu_packages(root, gap, 2), 0);  /* no package id: unknown */
    ck_assert_int_eq(cs_cpu_packages(root, none, 1), 0); /* no such CPU */
    ck_assert_int_eq(cs_cpu_packages(root, one, 0), 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_popcount)
{
    const uint64_t fixed[] = {0,
                              1,
                              3,
                              0x8000000000000000u,
                              UINT64_MAX,
                              0x5555555555555555u,
                              0xaaaaaaaaaaaaaaaau,
                              0x0123456789abcdefu};
    for (int i = 0; i < 8 + 10000; i++) {
        const uint64_t x = i < 8 ? fixed[i] : cs_mix64((uint64_t)i) >> (i % 64);
        int n = 0;
        for (int b = 0; b < 64; b++)
            n += (int)((x >> b) & 1);
        ck_assert_int_eq(cs_popcount64(x), n);
    }
    /* 0 + 1 + 2 + 1 + 64 + 32 + 32 + 32 */
    ck_assert_int_eq(cs_popcount_words(fixed, 8), 164);
    ck_assert_int_eq(cs_popcount_words(fixed, 0), 0);
}
END_TEST

static Suite *core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("sort");
    tcase_add_test(tc, test_sort);
    tcase_add_test(tc, test_select);
    tcase_add_test(tc, test_cpu_packages);
    tcase_add_test(tc, test_popcount);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(core_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
