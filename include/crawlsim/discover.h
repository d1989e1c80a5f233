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
 *   tres        Kontogiannis et al.'s TRES: TRES features (features.h), a Tree-Frontier per rank
 *               (tree.h) and a double DQN (ddqn.h) (tres.c)
 *   tres-async  TRES features and double DQN without the tree: each frontier sample is valued
 *               once, when it arrives (like SARSA's asynchronous mode), the best value first
 *   tree-random the Tree-Frontier alone: a uniform sample of a uniform leaf
 *
 * Two kinds of policies. Value policies (random, best-first, sarsa) give every frontier entry a
 * value and the engine selects by value. Selecting policies (tres, tres-async, tree-random) keep
 * their own structure over the frontier's samples (one sample per link record, the paper's
 * (path, url) pairs) and propose picks: `select` returns this rank's picks with 64-bit keys in
 * strictly decreasing order (cs_frontier_key(Q, page) for greedy picks; a hash of (run seed,
 * tick, page) with the page in the low 32 bits for exploration picks), and the engine's budget
 * modes apply to the keys as to value keys: `global` keeps the global top-B of all ranks' keys
 * (cs_comm_topk: each rank learns how many of its first picks to take), proportional and fixed
 * take the rank's share. `commit` then tells the policy how many of its first picks were taken;
 * the others go back into its structure. The engine's admit callback is asked about every
 * candidate before it is proposed: CS_ADMIT_NEVER for a page that is no longer in the frontier
 * (fetched, evicted) or whose host reached its MAX cap (tres.max_per_host) -- the policy drops
 * the sample for good (lazy rejection: nothing rescans the frontier); CS_ADMIT_LATER for a page
 * the politeness quota or an earlier proposal blocks this tick.
 *
 * Adding a policy is adding a file with its ops table (cs_discover_<id>_ops) and one line in the
 * registry, src/config/registry_discover.def, from which the run.policy choices, --help and the
 * reference are made (docs/developer/adding-a-policy.md).
 */
#ifndef CRAWLSIM_DISCOVER_H
#define CRAWLSIM_DISCOVER_H

#include "crawlsim/ckpt.h"
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/features.h"
#include "crawlsim/frontier.h"

#include <stdint.h>

/* One fetched page, as the learner sees it. Arrays are borrowed for the call. */
typedef struct cs_discover_fetch {
    int64_t pick;       /* selecting policies: its index among the picks of the last commit */
    const float *out_x; /* selecting policies: n_out TRES vectors of its out-links (d floats) */
    int64_t page;
    const uint8_t *x; /* the codes of the entry that was selected (n_groups bytes) */
    double reward;
    int relevant;
    const uint8_t *state;      /* the fetched page's state codes (n_state_groups bytes) */
    int64_t n_out;             /* its out-links not yet known visited */
    const uint8_t *out_action; /* n_out * (n_groups - n_state_groups) action codes */
} cs_discover_fetch;

/* What the engine's admit callback answers (see above). */
enum { CS_ADMIT_OK = 0, CS_ADMIT_NEVER = 1, CS_ADMIT_LATER = 2 };

/* One selection of a selecting policy. */
typedef struct cs_discover_select {
    int64_t want; /* at most this many picks */
    uint64_t tick;
    int64_t step; /* fetches over all ranks since the run began (identical on every rank) */
    /* Local. Asked once per candidate; CS_ADMIT_OK reserves the page's politeness quota. */
    int (*admit)(void *eng, int64_t page);
    void *eng;
    uint64_t *keys; /* out: room for `want` keys; filled in strictly decreasing order */
    int64_t n;      /* out: picks proposed */
} cs_discover_select;

#define CS_WEIGHT_BLOCKS_MAX 4

typedef struct cs_discover_ops {
    /* ---- capabilities: what the engine asks of a policy instead of comparing its name ---- */
    /* Nonzero when the policy values or learns from the relevance of pages: refused under
     * run.relevance = none (a coverage crawl, where every page counts). */
    int needs_relevance;
    /* Local. The reward that observe sees for a fetched page: relevant (0/1) and its estimated
     * relevance rl. Required (cs_discover_reward_han: Han et al.'s, from [sarsa]'s settings). */
    double (*reward)(const cs_config *cfg, int relevant, double rl);
    /* Local, may be NULL. The learning step of one update on `ranks` ranks (a learner's step
     * per fetch), and step_key, the job-file key that sets it: under crawl.weight_sync = sum a
     * tick applies B updates at once, and the engine warns when B times the step exceeds 0.1. */
    double (*step)(const cs_config *cfg, int ranks);
    const char *step_key;
    /* Local, may be NULL. Writes what the run's start-up line says of the policy's settings on
     * `ranks` ranks after its name (", alpha = 1e-05 (auto)") into buf of n bytes. */
    void (*step_report)(const cs_config *cfg, int ranks, char *buf, size_t n);
    /* A value policy learns when it has weights (the engine synchronises them); a selecting
     * policy is one with select (below). */

    /* Selecting policies only (NULL otherwise; see above). tres_features: the engine computes
     * the TRES vector (features.h) of every link record. */
    int tres_features;
    /* Local. New frontier samples (link records arrived), in record order: pages[i] with its
     * TRES vector x + i * d. value[i] (out): what the sample makes of its frontier entry's value
     * (used only for eviction: the engine keeps the largest over the entry's samples). Called
     * from the main thread; may use the OpenMP threads, never with a result depending on their
     * count. */
    cs_err (*link)(void *st, cs_ctx *ctx, const int64_t *pages, const float *x, int64_t n,
                   float *value);
    /* Local. Proposes the tick's picks (see cs_discover_select). */
    cs_err (*select)(void *st, cs_ctx *ctx, cs_discover_select *a);
    /* Local. The first `take` picks of the last select are fetched; the rest go back. */
    cs_err (*commit)(void *st, cs_ctx *ctx, int64_t take);
    /* Local. A task starts with an empty frontier (the learned weights stay). */
    cs_err (*begin_task)(void *st, cs_ctx *ctx, int64_t task);
    /* Local. Tree-Frontier leaves now and Q evaluations so far (cumulative). */
    void (*counters)(void *st, int64_t *leaves, int64_t *q_evals);

    /* Local. Creates the policy state. */
    cs_err (*create)(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st);
    void (*destroy)(void *st);
    /* Local. Values of entries [first, first + n) of v (new or updated entries). */
    void (*value)(void *st, cs_frontier_view *v, int64_t first, int64_t n);
    /* Local. Nonzero when every entry must be re-evaluated before the next selection
     * (synchronous SARSA after its weights changed); then evaluate_all is called. */
    int (*stale)(void *st);
    void (*evaluate_all)(void *st, cs_frontier_view *v);
    /* Local; may be NULL. evaluate_all in parts, which the engine's threads value at once
     * (disjoint parts; the values are evaluate_all's): entries [first, first + n) of v. The
     * values are fresh once every entry's part is valued. */
    void (*evaluate_part)(void *st, cs_frontier_view *v, int64_t first, int64_t n);
    /* Local; may be NULL (no). Nonzero when an entry's value changes only when the engine
     * writes it, at the insert of the entry's link records (value or link), never through
     * evaluate_all: the keys then stay in order between ticks, and the engine has the frontier
     * keep them in an index (cs_frontier_index_keys) instead of passing over every entry each
     * tick to select and evict. */
    int (*static_values)(void *st);
    /* Local. Learns from the fetches of one tick, in order (may be NULL). */
    void (*observe)(void *st, const cs_discover_fetch *f, int64_t n, uint64_t tick);
    /* Local. The weights the engine averages over ranks, or NULL (n = 0). */
    double *(*weights)(void *st, int64_t *n);
    /* May be NULL. The names of the equal, consecutive blocks the weights are made of (at
     * most CS_WEIGHT_BLOCKS_MAX, NULL-terminated; TRES: its online and target networks): the
     * learning diagnostics add each block's norm, spread and update (/series/weights_norm_BLOCK and
     * the like). */
    const char *const *weight_blocks;
    /* Local. Called after the weights changed from outside (averaging) or after observe. */
    void (*synced)(void *st);
    /*
     * crawl.weight_sync = sum (NULL when the policy does not support it: then the engine
     * refuses sum). sum_begin switches the policy to it at creation: observe then computes a
     * tick's updates from the weights at the tick's start and adds them, exactly, to the
     * accumulator `updates` returns (cs_fix values, comm.h: n of them) instead of applying
     * them. After observe the engine either applies this rank's updates (sum_apply(st, 0): the
     * weights become those of the last sync plus the updates since) or, at a sync, sums the
     * accumulators over ranks in place (cs_comm_sum_fix) and calls sum_apply(st, 1): the
     * weights become those of the last sync plus every rank's updates, the new sync point.
     * All Local.
     */
    void (*sum_begin)(void *st);
    void *(*updates)(void *st, int64_t *n);
    void (*sum_apply)(void *st, int global);
    /* Local, may be NULL. The step of one update (SARSA's alpha): the engine's /series/step is
     * it times the updates a synchronisation applies. */
    double (*step_size)(void *st);
    /* Local, may be NULL. Transitions in the replay buffer now (/ranks/series/replay). */
    int64_t (*replay_size)(void *st);
    /* Local. The probability that a fetch is a uniformly random frontier entry. */
    double (*epsilon)(void *st);
    /* Collective (ckpt.h), may be NULL (nothing beyond what create builds): the policy's state
     * at a tick boundary (weights, optimiser, replay, trees, counters, RNG counters) as items
     * under "policy/", and its restoration into a policy freshly created with the same
     * configuration, after which it behaves exactly as the saved one would have. Every rank
     * writes the same items in the same order, whatever its local data. */
    cs_err (*save)(void *st, cs_ctx *ctx, cs_ckpt *ck);
    cs_err (*load)(void *st, cs_ctx *ctx, cs_ckpt *ck);
} cs_discover_ops;

/* A registered policy (src/config/registry_discover.def). */
typedef struct cs_discover_policy {
    const char *name;    /* as in run.policy */
    const char *summary; /* one line for --help and the reference */
    const cs_discover_ops *ops;
} cs_discover_policy;

/* Local. The policy registered as `name`, or NULL. */
CS_API const cs_discover_policy *cs_discover_find(const char *name);
/* Local. Han et al.'s reward under [sarsa]'s settings (binary, or graded by the estimated
 * relevance rl: reward_relevant, reward_high above high_threshold, reward_mid above
 * mid_threshold, reward_other). */
CS_API double cs_discover_reward_han(const cs_config *cfg, int relevant, double rl);
/* Local. The registry: n entries, in the order of the run.policy choices (cfg->run.policy is an
 * index into it). */
CS_API const cs_discover_policy *cs_discover_list(int *n);

#endif
