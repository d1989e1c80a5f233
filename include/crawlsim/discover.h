/*
 * discover: focused-crawl policies behind one interface, registered by name (STYLE.md). The
 * engine (sim) owns the frontier and the fetches; a policy gives values to frontier entries
 * and learns from what was fetched. Policies see only their rank's data and never call MPI:
 * the engine averages their weights (cs_comm_average) every crawl.sync_every ticks.
 *
 *   random      a fixed uniform priority per page, from (run seed, page id): a random-order crawl
 *   best-first  Han et al.'s no-learning baseline: the priority of a link is the relevance
 *               estimate from its anchor evidence (the best anchor seen for it)
 *   sarsa       Han et al.'s SARSA with linear Q over state and action features (Alg. 1;
 *               synchronous / asynchronous / moderated, sarsa.c)
 *
 * Adding a policy is adding a file with its ops table and a line in the registry (discover.c)
 * and in the run.policy choices (config schema).
 */
#ifndef CRAWLSIM_DISCOVER_H
#define CRAWLSIM_DISCOVER_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/features.h"
#include "crawlsim/frontier.h"

#include <stdint.h>

/* One fetched page, as the learner sees it. Arrays are borrowed for the call. */
typedef struct cs_discover_fetch {
    int64_t page;
    const uint8_t *x; /* the codes of the entry that was selected (n_groups bytes) */
    double reward;
    int relevant;
    const uint8_t *state;      /* the fetched page's state codes (n_state_groups bytes) */
    int64_t n_out;             /* its out-links not yet known visited */
    const uint8_t *out_action; /* n_out * (n_groups - n_state_groups) action codes */
} cs_discover_fetch;

typedef struct cs_discover_ops {
    const char *name;
    /* Local. Creates the policy state. */
    cs_err (*create)(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st);
    void (*destroy)(void *st);
    /* Local. Values of entries [first, first + n) of v (new or updated entries). */
    void (*value)(void *st, cs_frontier_view *v, int64_t first, int64_t n);
    /* Local. Nonzero when every entry must be re-evaluated before the next selection
     * (synchronous SARSA after its weights changed); then evaluate_all is called. */
    int (*stale)(void *st);
    void (*evaluate_all)(void *st, cs_frontier_view *v);
    /* Local. Learns from the fetches of one tick, in order (may be NULL). */
    void (*observe)(void *st, const cs_discover_fetch *f, int64_t n, uint64_t tick);
    /* Local. The weights the engine averages over ranks, or NULL (n = 0). */
    double *(*weights)(void *st, int64_t *n);
    /* Local. Called after the weights changed from outside (averaging) or after observe. */
    void (*synced)(void *st);
    /* Local. The probability that a fetch is a uniformly random frontier entry. */
    double (*epsilon)(void *st);
} cs_discover_ops;

/* Local. The policy registered as `name`, or NULL. */
CS_API const cs_discover_ops *cs_discover_find(const char *name);
/* Local. The registry: n entries. */
CS_API const cs_discover_ops *const *cs_discover_list(int *n);

#endif
