/*
 * sim: the insert phase's state (sim_insert.c): the link records that reached their owner on
 * their way into the frontier.
 */
#ifndef CRAWLSIM_SIM_INSERT_H
#define CRAWLSIM_SIM_INSERT_H

#include "crawlsim/features.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sim_insert_phase {
    const cs_link_msg *
        *ord; /* the tick's records in canonical order (sim_insert_merged, rep_share) */
    size_t ord_cap;
    int64_t *runs; /* sim_insert_merged: run bounds and a heap of run heads */
    size_t runs_cap;
    int64_t *ent; /* per record its frontier entry (or why none) */
    size_t ent_cap;
    int64_t *list; /* per thread the records of its entries */
    size_t list_cap;
    int64_t *fresh; /* the records of new pages: their indexes, pages and entries */
    size_t fresh_cap;
    int64_t *kidx; /* selecting policies: per record its place among the kept, their pages */
    size_t kidx_cap;
    float *kx; /* and their TRES vectors, then their values */
    size_t kx_cap;
    uint64_t *oldk; /* an indexed frontier: per record its entry's key before the merge */
    size_t oldk_cap;
    uint64_t *newk; /* and after it */
    size_t newk_cap;
    int64_t *moved; /* and the set of the entries whose keys have moved (rng/idset.h) */
    size_t moved_cap;
} sim_insert_phase;

#endif
