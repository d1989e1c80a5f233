/*
 * gen_sets: the scratch sets of a generated page's targets (a short list scanned, an
 * open-addressing set for pages with many links) and the sort of its targets. Included by gen.c
 * only (its hot path inlines them).
 */
#ifndef CRAWLSIM_GEN_SETS_H
#define CRAWLSIM_GEN_SETS_H

#include "crawlsim/rng.h"

#include <stddef.h>
#include <stdint.h>

static inline int contains(const int64_t *a, int64_t n, int64_t x)
{
    for (int64_t i = 0; i < n; i++)
        if (a[i] == x)
            return 1;
    return 0;
}

/* Open-addressing set of page ids for pages with many links (scratch per thread). */
typedef struct idset {
    int64_t *slot;
    size_t mask;
} idset;

/* Empties the set and sizes it for n ids (a power of two at least 2n slots). */
static inline void idset_reset(idset *s, int64_t n)
{
    size_t cap = 1;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    s->mask = cap - 1;
    for (size_t i = 0; i < cap; i++)
        s->slot[i] = -1;
}

static inline int idset_insert(idset *s, int64_t x)
{
    size_t i = (size_t)cs_mix64((uint64_t)x) & s->mask;
    while (s->slot[i] != -1) {
        if (s->slot[i] == x)
            return 0;
        i = (i + 1) & s->mask;
    }
    s->slot[i] = x;
    return 1;
}

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
