/*
 * sim: the select phase's state (sim_select.c): the tick's candidates, budget and picks, and
 * the seed pages every task starts from.
 */
#ifndef CRAWLSIM_SIM_SELECT_H
#define CRAWLSIM_SIM_SELECT_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_select_phase {
    int64_t sel_tick; /* the tick being selected (admit) */
    int64_t share;    /* this rank's budget share (budget = proportional or fixed) */
    int64_t *seeds;   /* the seed pages of every task: global page ids, replicated */
    int64_t n_seeds;
    uint8_t *taken; /* per frontier slot, this tick */
    size_t taken_cap;
    int any_taken;     /* some entry is taken this tick */
    size_t taken_zero; /* taken[0..taken_zero) are zero between ticks (indexed frontiers) */
    uint64_t *cands;   /* selection keys; each encodes its page id (cs_frontier_key_id) */
    size_t cands_cap;
    int64_t *sel; /* the picks: frontier slots */
    size_t sel_cap;
    uint64_t *sort_tmp; /* cs_sort_u64 scratch */
    size_t sort_tmp_cap;
    int64_t *khost; /* the hosts of a selection walk's keys */
    size_t khost_cap;
    uint64_t *acc; /* the keys a selection walk accepted */
    size_t acc_cap;
    int64_t *sp, *sp_all; /* split-host (host, key) pairs of a selection, this rank's and all */
    size_t sp_cap, sp_all_cap;
    int *sp_counts, *sp_displs; /* P each */
    int64_t *blk;               /* fill_keys: per share of the entries, its keys */
    size_t blk_cap;
    uint32_t *hist; /* hist_floor: per thread a histogram of keys, their sum, chunk sums */
    size_t hist_cap;
    int hist_fresh; /* the per-thread histograms hold the keys' first round (sim_evaluate) */
    int hist_T;     /* and how many threads counted them */
} sim_select_phase;

#endif
