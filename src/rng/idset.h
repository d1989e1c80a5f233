/*
 * idset: an open-addressing set of non-negative int64 ids in caller-owned scratch (slots of -1
 * when empty, linear probing from a hash of the id), emptied and sized for each use: the
 * generator's set of a page's targets, the insert phase's set of the entries it has moved.
 * Internal (src/; in the rng module for its hash, cs_mix64): every function inline, for hot
 * paths.
 */
#ifndef CRAWLSIM_RNG_IDSET_H
#define CRAWLSIM_RNG_IDSET_H

#include "crawlsim/rng.h"

#include <stddef.h>
#include <stdint.h>

typedef struct idset {
    int64_t *slot;
    size_t mask;
} idset;

/* The slots a set of n ids takes: a power of two at least 2n. */
static inline size_t idset_slots(int64_t n)
{
    size_t cap = 1;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    return cap;
}

/* Empties the set and sizes it for n ids (s->slot holds at least idset_slots(n)). */
static inline void idset_reset(idset *s, int64_t n)
{
    const size_t cap = idset_slots(n);
    s->mask = cap - 1;
    for (size_t i = 0; i < cap; i++)
        s->slot[i] = -1;
}

/* Adds x (>= 0); 1 when it was new, 0 when the set held it. */
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

#endif
