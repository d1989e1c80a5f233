/*
 * sim: the exchange phase's state (sim_exchange.c, sim_visited.c): the outboxes of link
 * records and what arrived, the visited notes' allgather, and the replicated fetches of the
 * strict setting with a selecting policy (rep_share).
 */
#ifndef CRAWLSIM_SIM_EXCHANGE_H
#define CRAWLSIM_SIM_EXCHANGE_H

#include "crawlsim/comm.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sim_exchange_phase {
    cs_outbox out; /* the link records to the other ranks (sim_route_records) */
    char *recv;    /* the records received */
    size_t recv_cap;
    int64_t *vis_all; /* share_visited: the tick's fetched pages of all ranks */
    size_t vis_all_cap;
    int *vis_counts, *vis_displs; /* P each */
    char *rep_buf, *rep_all;      /* rep_share: this rank's and all ranks' fetches and records */
    size_t rep_buf_cap, rep_all_cap;
    int *rep_counts, *rep_displs; /* 2P and 3P */
} sim_exchange_phase;

#endif
