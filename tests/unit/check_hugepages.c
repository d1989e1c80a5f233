/*
 * check_hugepages: cs_mem_huge (core.h) marks the whole 2 MiB pages of a large array for
 * transparent huge pages, and only them: the kernel's flag of the advised range ("hg" among
 * the VmFlags of /proc/self/smaps) is looked up on anonymous mappings made here (not malloc's,
 * which glibc's own hugetlb tunable may mark: the test runs itself again without it, so that
 * only cs_alloc's and cs_grow's advice marks their blocks). Exit status 77
 * (ctest: skipped) on a kernel without transparent huge pages, where there is nothing to see.
 */
#ifndef _DEFAULT_SOURCE /* (smpicc defines it) */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#endif
#include "crawlsim/core.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

/* The line of /proc/self/smaps that starts with `key` in the entry of the VMA holding address a,
 * into line (size n); 0 when no VMA holds it or its entry has no such line. */
static int smaps_line(const void *a, const char *key, char *line, int n)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    ck_assert_ptr_nonnull(f);
    int in = 0, found = 0;
    const uintptr_t x = (uintptr_t)a;
    while (!found && fgets(line, n, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = x >= lo && x < hi;
        else
            found = in && strncmp(line, key, strlen(key)) == 0;
    }
    fclose(f);
    return found;
}

/* Whether the VMA holding address a carries the huge-page advice (VmFlags "hg"). */
static int advised(const void *a)
{
    char line[512];
    ck_assert(smaps_line(a, "VmFlags:", line, sizeof line));
    return strstr(line, " hg") != NULL;
}

/* The kB of huge pages ("AnonHugePages") in the VMA holding address a. */
static long huge_kb(const void *a)
{
    char line[512];
    long kb = -1;
    ck_assert(smaps_line(a, "AnonHugePages:", line, sizeof line));
    ck_assert_int_eq(sscanf(line, "AnonHugePages: %ld kB", &kb), 1);
    return kb;
}

/* An anonymous mapping of `bytes` starting on a 2 MiB boundary (the rest unmapped). */
static char *mapped(size_t bytes)
{
    char *m =
        mmap(NULL, bytes + 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    char *p = (char *)(((uintptr_t)m + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    munmap(p + bytes, (size_t)(m + bytes + 2 * MIB - (p + bytes)));
    return p;
}

START_TEST(test_advice)
{
    unsetenv("CRAWLSIM_HUGE_PAGES");
    /* 8 MiB from 1 MiB past a boundary: the pages [2, 8) MiB are whole, [1, 2) and [8, 9) not */
    char *p = mapped(10 * MIB);
    cs_mem_huge(p + MIB, 8 * MIB, 0);
    ck_assert_int_eq(advised(p + MIB), 0);
    ck_assert_int_eq(advised(p + 2 * MIB), 1);
    ck_assert_int_eq(advised(p + 8 * MIB - 1), 1);
    ck_assert_int_eq(advised(p + 8 * MIB), 0);
    p[3 * MIB] = 7; /* still ordinary memory */
    ck_assert_int_eq(p[3 * MIB], 7);
    munmap(p, 10 * MIB);

    /* below CS_HUGE_MIN: nothing */
    p = mapped(4 * MIB);
    cs_mem_huge(p, CS_HUGE_MIN - 1, 0);
    ck_assert_int_eq(advised(p), 0);
    munmap(p, 4 * MIB);

    /* CRAWLSIM_HUGE_PAGES=0: nothing */
    p = mapped(8 * MIB);
    setenv("CRAWLSIM_HUGE_PAGES", "0", 1);
    cs_mem_huge(p, 8 * MIB, 0);
    unsetenv("CRAWLSIM_HUGE_PAGES");
    ck_assert_int_eq(advised(p), 0);
    cs_mem_huge(p, 8 * MIB, 0);
    ck_assert_int_eq(advised(p), 1);
    munmap(p, 8 * MIB);

    cs_mem_huge(NULL, 8 * MIB, 0); /* accepted */
}
END_TEST

START_TEST(test_collapse)
{
    /* data already in small pages (no advice when written): the filled part is collapsed now,
     * where the kernel can (MADV_COLLAPSE, Linux 6.1; probed on a mapping of the test's own) */
    unsetenv("CRAWLSIM_HUGE_PAGES");
    char *probe = mapped(2 * MIB);
    memset(probe, 1, 2 * MIB);
    const int can = madvise(probe, 2 * MIB, 25 /* MADV_COLLAPSE */) == 0;
    munmap(probe, 2 * MIB);
    char *p = mapped(8 * MIB);
    madvise(p, 8 * MIB, MADV_NOHUGEPAGE); /* small pages whatever the system's mode */
    memset(p, 3, 8 * MIB);
    madvise(p, 8 * MIB, MADV_HUGEPAGE);
    ck_assert_int_eq(huge_kb(p), 0);
    cs_mem_huge(p, 8 * MIB, 4 * MIB);
    if (can) {
        ck_assert_int_ge(huge_kb(p), 4096); /* the filled 4 MiB at least */
    } else {
        printf("check_hugepages: the kernel cannot collapse (MADV_COLLAPSE): not checked\n");
    }
    for (size_t i = 0; i < 8 * MIB; i += 4096)
        ck_assert_int_eq(p[i], 3); /* the data kept */
    munmap(p, 8 * MIB);
}
END_TEST

START_TEST(test_alloc)
{
    /* cs_alloc and cs_grow advise what they allocate (glibc serves such sizes by mmap) */
    unsetenv("CRAWLSIM_HUGE_PAGES");
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_WARN);
    char *a = NULL;
    ck_assert_int_eq(cs_alloc(&ctx, &a, 16 * MIB, 1, "test"), CS_OK);
    ck_assert_int_eq(advised(a + 8 * MIB), 1);
    int64_t *g = NULL;
    size_t cap = 0;
    ck_assert_int_eq(cs_grow(&ctx, &g, &cap, 2 * MIB, sizeof *g, "test"), CS_OK);
    ck_assert_int_eq(advised((char *)g + 8 * MIB), 1);
    free(a);
    free(g);
    cs_ctx_fini(&ctx);
}
END_TEST

int main(int argc, char **argv)
{
    (void)argc;
    /* glibc's hugetlb tunable (the tests' environment sets it) advises every large malloc
     * itself: without it, only cs_alloc and cs_grow can have marked their blocks */
    const char *t = getenv("GLIBC_TUNABLES");
    if (t != NULL && strstr(t, "hugetlb") != NULL) {
        unsetenv("GLIBC_TUNABLES");
        execv("/proc/self/exe", argv);
        perror("check_hugepages: execv");
        return EXIT_FAILURE;
    }
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0) {
        printf("check_hugepages: SKIPPED: the kernel has no transparent huge pages\n");
        return 77;
    }
    Suite *s = suite_create("hugepages");
    TCase *tc = tcase_create("advice");
    tcase_add_test(tc, test_advice);
    tcase_add_test(tc, test_collapse);
    tcase_add_test(tc, test_alloc);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
