/*
 * sim: the fetch phase's state (sim_fetch.c): the tick's fetched pages, what the crawler learns
 * of each (relevance estimate, state, reward) and the link records of their out-links.
 */
#ifndef CRAWLSIM_SIM_FETCH_H
#define CRAWLSIM_SIM_FETCH_H

#include "crawlsim/features.h"
#include "crawlsim/slice.h"

#include <stddef.h>
#include <stdint.h>

/* A page being fetched this tick. */
typedef struct fetch {
    int64_t page, li;
    int64_t pick; /* selecting policies: index among the committed picks */
    cs_feat_parents par;
    int has_x;
} fetch;

typedef struct sim_fetch_phase {
    fetch *fx; /* the tick's fetches (select: sim_take_selected, sim_take_seeds) */
    size_t fx_cap;
    uint8_t *fx_codes; /* n * G codes of the selected entries */
    size_t fx_codes_cap;
    cs_feat_page *pst; /* per fetch: its page's state */
    size_t pst_cap;
    double *reward;
    size_t reward_cap;
    int64_t *base, *nout; /* per fetch: its first link record, and how many */
    size_t base_cap, nout_cap;
    cs_link_msg *msgs; /* the tick's link records, fetch after fetch */
    size_t msgs_cap;
    uint8_t *acts; /* per record its action codes */
    size_t acts_cap;
    float *tx; /* TRES vectors of a tick's out-links */
    size_t tx_cap;
    int64_t *perm; /* sort_fetches, rep_share */
    size_t perm_cap;
    fetch *fx_tmp;
    size_t fx_tmp_cap;
    uint8_t *codes_tmp;
    size_t codes_tmp_cap;
    /* the procedural world: the tick's fetched pages generated (page i = fx[i].page), their ids,
     * and per fetch where its page lies in the arrays read (fx[i].li in the graph, or i) */
    cs_graph_slice pages;
    int64_t *pid, *at;
    size_t pid_cap, at_cap;
    const int64_t *host; /* the fetched pages' hosts, by at[i] (the graph's, or pages') */
    int64_t *li;         /* the fetches' local pages, for the re-crawl side (sim_refresh_fetched) */
    size_t li_cap;
} sim_fetch_phase;

#endif
