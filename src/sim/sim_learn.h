/*
 * sim: the learn phase's state (sim_learn.c): what the policy observes of the tick's fetches,
 * the weights' synchronisation scratch and the policy's counters already counted.
 */
#ifndef CRAWLSIM_SIM_LEARN_H
#define CRAWLSIM_SIM_LEARN_H

#include "crawlsim/discover.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sim_learn_phase {
    cs_discover_fetch *obs; /* the observations of the tick's fetches */
    size_t obs_cap;
    double *avg; /* crawl.weight_sync = average: the ranks' weights (cs_comm_average) */
    size_t avg_cap;
    int64_t pol_qevals; /* the policy's Q evaluations already counted */
} sim_learn_phase;

#endif
