/*
 * sim: the evict phase's state (sim_evict.c): the frontier's keys when the strict setting cuts
 * the globally lowest.
 */
#ifndef CRAWLSIM_SIM_EVICT_H
#define CRAWLSIM_SIM_EVICT_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_evict_phase {
    uint64_t *keys; /* per frontier entry its key */
    size_t keys_cap;
} sim_evict_phase;

#endif
