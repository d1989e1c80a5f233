/*
 * gen_sets: the scratch sets of a generated page's targets (a short list scanned, an
 * open-addressing set for pages with many links) and the sort of its targets. Included by gen.c
 * only (its hot path inlines them).
 */
#ifndef CRAWLSIM_GEN_SETS_H
#define CRAWLSIM_GEN_SETS_H

#include "crawlsim/rng.h"
#include "rng/idset.h"

#include <stddef.h>
#include <stdint.h>

static inline int contains(const int64_t *a, int64_t n, int64_t x)
{
    for (int64_t i = 0; i < n; i++)
        if (a[i] == x)
            return 1;
    return 0;
}

/* The set of page ids for pages with many links: rng/idset.h (scratch per thread). */

/* Sorts a page's targets: insertion sort for short lists, else quicksort (median of three)
 * down to short runs. In place, no callbacks: it runs once per page in the hot loop. */
static inline void sort_i64(int64_t *a, int64_t n)
{
    while (n > 24) {
        int64_t x = a[0], y = a[n / 2], z = a[n - 1];
        int64_t piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < piv)
                i++;
            while (a[j] > piv)
                j--;
            if (i >= j)
                break;
            int64_t t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        /* recurse into the smaller part, loop on the larger */
        if (j + 1 < n - j - 1) {
            sort_i64(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            sort_i64(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        int64_t x = a[i], j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

#endif
