/*
 * sim internals: the engine of `crawlsim run`. A tick is a sequence of phases, each a file
 * that owns its state (a struct of its own, in the header named for it) and its functions
 * (docs/developer/architecture.md "One tick, and the data's path through it"):
 *
 *   sim.c           the run: set-up, the tick loop of a task (run_task), signals, teardown
 *   sim_mode.c      the crawl's modes (owned, owned strict, replicated strict) as ops tables
 *   sim_world.c     the world, its partition, the host tables, the seed pages, the strict setting
 *   sim_select.c    select: candidates, budget modes, politeness and MAX caps, the picks taken
 *   sim_fetch.c     fetch: the fetched pages, their rewards and link records
 *   sim_learn.c     learn: statistics, the policy's observations, the weights' synchronisation
 *   sim_route.c     route: link records sorted by owner rank into the outboxes
 *   sim_exchange.c  exchange: the outboxes to their owners, the replicated fetches (rep)
 *   sim_visited.c   the visited set and its notes
 *   sim_insert.c    insert: link records into the frontier
 *   sim_evict.c     evict: the frontier's capacity, locally or over all ranks
 *   sim_refresh.c   refresh: the re-crawls of [refresh] (sim_impl.h)
 *   sim_results.c   record: metrics, series and the results file
 *   sim_ckpt.c      checkpoints (write and restart)
 *   sim_diag.c      the learning diagnostics
 *
 * Functions shared between the files carry the sim_ prefix; the small ones of the hot loops are
 * static inline here.
 */
#ifndef CRAWLSIM_SIM_ENGINE_H
#define CRAWLSIM_SIM_ENGINE_H

#include "crawlsim/ckpt.h"
#include "crawlsim/comm.h"
#include "crawlsim/discover.h"
#include "crawlsim/features.h"
#include "crawlsim/frontier.h"
#include "crawlsim/gen.h"
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/partition.h"
#include "crawlsim/results.h"
#include "crawlsim/rng.h"
#include "crawlsim/sim.h"
#include "sim/sim_evict.h"
#include "sim/sim_exchange.h"
#include "sim/sim_fetch.h"
#include "sim/sim_impl.h"
#include "sim/sim_insert.h"
#include "sim/sim_learn.h"
#include "sim/sim_record.h"
#include "sim/sim_route.h"
#include "sim/sim_select.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per host (H entries each, this rank's view): politeness quotas, the MAX cap's counts and the
 * relevant hosts found. */
typedef struct sim_hosts {
    int64_t max_cap;                  /* tres.max_per_host: CS_TRES_MAX_INF, _ADAPTIVE or the cap */
    int64_t cap_now;                  /* the cap this tick (0: none) */
    int32_t *host_fetched, *host_rel; /* this rank's fetches per host in the task */
    uint64_t *rel_host;     /* bitset over hosts: a relevant page was fetched (this task) */
    uint64_t *rel_host_all; /* its OR over ranks (global_counts); NULL when rel_disjoint */
    int64_t host_words;
    int64_t rel_count; /* bits set in rel_host */
    int rel_disjoint;  /* no two ranks share a relevant host (one rank, or no host split and
                          not replicated): their count is the sum of the ranks' rel_count */
    int32_t *host_k, *host_idx, *host_used; /* ranks owning pages of the host, this rank's index
                                               among them (both NULL when no host is split:
                                               sim_build_hosts), the host's fetches this tick */
    const int32_t *share_k, *share_idx;     /* the ranks sharing a host's quota and MAX cap:
                                               host_k, host_idx, or NULL when a host's counts
                                               are over all ranks (the strict setting) */
    uint8_t *host_mark;                     /* host in touched[] this tick */
    int32_t *touched;
    int64_t n_touched;
    int32_t *host_all;  /* rep: every page's host */
    int any_split;      /* some host has pages on several ranks (host_k > 1) */
    int32_t *sp_before; /* per host, when some host is split: its global count before a
                           selection phase */
    /* The slots of the host tables host_fetched, host_rel, host_used, host_mark (hslot): a
     * host's id (slot_bits NULL, n_slots = H), or, in the procedural world under host-hash with
     * one policy per rank (no rep), where only this rank's hosts are counted, this rank's hosts
     * numbered in increasing id: bit h of slot_bits says whether it owns host h, slot_below[w]
     * counts its hosts before word w (0.19 bytes a host instead of 17 for the others). */
    uint64_t *slot_bits;
    int32_t *slot_below;
    int64_t n_slots;
} sim_hosts;

/* The visited set (sim_visited.c): replicated (slot == NULL: bit = page id; rep, or one rank)
 * or owned (bits of the local pages by local index, then of the ghosts: the other ranks' pages
 * the local pages link to, kept current by their owners' notes to their subscribers). */
typedef struct sim_visited {
    uint64_t *bits;
    int64_t nbits;
    int64_t n_local; /* owned: bits [0, n_local) are the local pages' */
    int64_t *ghost;  /* owned: the ghosts' page ids, sorted */
    int64_t n_ghost;
    int32_t *slot;    /* owned: per local link (CSR order), its target's bit */
    int64_t *sub_off; /* owned: per local page li, its subscribers sub[sub_off[li] .. [li + 1]) */
    int32_t *sub;
    cs_outbox note; /* the tick's notes: fetched page ids to their subscribers */
    char *recv;
    size_t recv_cap;
} sim_visited;

/* A loaded world (sim.h): what every run of it shares, read-only. */
struct cs_sim_world {
    cs_graph *g;
    cs_gen *gen;           /* generated worlds: the model (term vectors), else NULL */
    cs_gen_config gen_cfg; /* the world's own [gen] (a generated file's spec, or cfg's) */
    double threshold;      /* relevance threshold; -1 for run.relevance = none */
    char *key;             /* what it was built from (sim_world_check) */
    int proc;              /* the procedural world (gen.materialize = false): g has no pages'
                              links or attributes; gen computes them) */
    cs_gen_owner owner;    /* a generated world under host-hash: g's owner lookup */
    int gen_owner;         /* g's owner is computed from gen (a generated world under
                              host-hash or metis-sampled): gen is kept for the crawl, and no
                              host is split */
    uint16_t *host_part;   /* metis-sampled: the part of each host (owner.host_part), else NULL */
    /* The evidence table its last run built (a materialized world), kept for the next run whose
     * table is the same, so that a seed sweep (crawlsim run --seeds) builds it once: the only
     * part a run writes (setup_world). It holds rows for ev_cats categories and, per rank, every
     * page (ev_n_ghost = -1) or the rank's local pages and the ghosts ev_ghost[0..ev_n_ghost). */
    cs_evidence *ev;
    int ev_cats;
    int64_t ev_n_ghost;
    int64_t *ev_ghost;
};

typedef struct sim sim;

/* Where the fetch phase reads the tick's fetched pages: the arrays of their links (CSR offsets
 * and targets), relevance and hosts, and per fetch i its page's row at[i] in them. */
typedef struct sim_pages {
    const int64_t *off, *tg, *at;
    const double *relv;
    const int64_t *hostv;
} sim_pages;

/* The world's accessors, chosen once at set-up (sim_world_choose, sim_mode.c): a materialized
 * world's graph holds every page's links and attributes and this rank's pages' hosts (every
 * page's in the map sim_host_map makes for the replicated mode and a global MAX cap); the
 * procedural world's generator computes them (a host from its ranges, O(log H), nothing
 * stored per page). The phases ask these and never which world it is. */
typedef struct sim_world_ops {
    const char *name;
    /* Local. Where the links and attributes of the tick's fetched pages s->f.fx[0..n) lie. */
    cs_err (*pages)(sim *s, int64_t n, sim_pages *p);
    /* The host of any page (the replicated mode, a global MAX cap). */
    int64_t (*host_any)(const sim *s, int64_t page);
    /* The host of this rank's local page li. */
    int64_t (*host_local)(const sim *s, int64_t li);
    /* The host of a frontier entry's page: a local page's, or any page's (replicated mode). */
    int64_t (*host_page)(const sim *s, int64_t page);
    /* A hint that host_page(page) follows soon (its host is a miss at a random place). */
    void (*prefetch_host)(const sim *s, int64_t page);
} sim_world_ops;

/* The world a run crawls as the engine sees it: set at set-up (sim.c setup_world), read-only
 * in the ticks. */
typedef struct sim_world_view {
    cs_config cfg; /* the run's config with the [gen] of the world actually crawled */
    double threshold;
    cs_sim_world *own; /* the world, when this run loaded it (else shared by the caller) */
    const cs_graph *g;
    const cs_gen *gen;         /* generated worlds at set-up; kept for the crawl when proc */
    int proc;                  /* the procedural world (gen.materialize = false): set-up only */
    const sim_world_ops *ops;  /* its accessors (the phases' view of proc) */
    int gen_owner;             /* g's owner lookup reads gen (cs_sim_world): gen is kept */
    const cs_gen_owner *owner; /* the world's owner of a host, when gen_owner */
    cs_evidence *ev;           /* the evidence of pages and anchors (features.h) */
    int ev_shared;             /* ev is the shared world's (cs_sim_world.ev): not freed here */
} sim_world_view;

/* The learning diagnostics (sim_diag.c): per record point on every rank the values below (rank
 * 0's are the global ones and are written), on rank 0 the per-rank counts [point][rank]. */
enum diag_value { D_WNORM, D_SPREAD, D_UPDATE, D_STEP, D_QMIN, D_QMAX, ND };
enum diag_rank { DR_FETCHED, DR_RELEVANT, DR_FRONTIER, DR_LEAVES, DR_REPLAY, NDR };
enum diag_block { DB_WNORM, DB_SPREAD, DB_UPDATE, NDB };
typedef struct sim_diag {
    double *v[ND];
    int64_t *rk[NDR];
    int64_t cap;         /* record points the arrays hold */
    int64_t nw;          /* the policy's weights (0: none) */
    double *w_sync;      /* the weights after the last synchronisation (at first the initial) */
    double *send, *all;  /* a rank's values at a record point; rank 0: every rank's */
    double *mean;        /* the mean of the ranks' weights (scratch) */
    double spread;       /* the largest spread as an averaging started since the last point */
    double update, step; /* the last synchronisation's (NaN before the first) */
    int64_t window;      /* fetches over all ranks since the last synchronisation */
    int synced;          /* the weights were synchronised in this tick */
    double seconds;      /* wall-clock time spent here (/timing/ranks/diagnostics) */
    /* the weights' blocks (ops->weight_blocks; nb = 0 without): per block the norm, spread and
     * update at each record point, and the spread and update as d->spread and d->update */
    int nb;
    double *bv[NDB][CS_WEIGHT_BLOCKS_MAX];
    double bspread[CS_WEIGHT_BLOCKS_MAX], bupdate[CS_WEIGHT_BLOCKS_MAX];
} sim_diag;

/* The crawl's mode, chosen once at set-up (sim_mode_choose, sim_mode.c): the steps of a tick
 * that differ between the owned crawl (each rank its own pages' frontier), the owned crawl of
 * the strict setting (decisions on global quantities in an order independent of P) and the
 * replicated one (the strict setting with a selecting policy: every rank runs the one logical
 * policy on replicated state). Collective steps are made by every rank whatever its code;
 * local is a rank's code since the tick's last agreement. */
typedef struct sim_mode {
    const char *name;
    int replicated; /* every rank holds the same frontier and policy: counted on rank 0 only */
    /* Collective. The tick's picks (budget Bt, exploration rate eps) into s->sl.sel[0..*nsel). */
    cs_err (*select)(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt, double eps,
                     int64_t *nsel);
    /* Collective. The seed fetches of a task's first tick are taken (agreed); with a global MAX
     * cap the other ranks' seeds count towards their hosts' caps. */
    cs_err (*seeded)(sim *s, int64_t n);
    /* Local. The tick's picks s->f.fx[0..*n) were taken: the fetches this rank makes. */
    cs_err (*picked)(sim *s, int64_t *n);
    /* Local. The learn phase of the tick's n fetches (sim_learn.c). */
    cs_err (*learn)(sim *s, int64_t n, uint64_t tick);
    /* Local. This rank holds the host counts of page's host (the TRES features of a link). */
    int (*knows_host)(const sim *s, int64_t page);
    /* Local. The route phase of the tick's n fetches (sim_route.c). */
    cs_err (*route)(sim *s, int64_t n);
    /* Collective. The fetched pages' visited bits reach the ranks that keep them. */
    cs_err (*visited)(sim *s, cs_err local, int64_t n);
    /* Collective. After the fetches: the links that need no exchange into the frontier; the
     * agreed code is returned, the local one updated. */
    cs_err (*fetched)(sim *s, cs_err *local, int64_t n, uint64_t tick);
    /* Collective. The outboxes' exchange and insertion (every crawl.exchange_every ticks). */
    cs_err (*exchange)(sim *s, cs_err local);
    /* Collective. The frontier's capacity; in the strict setting the tick's counts glob[0..5)
     * (this rank's in, the sums out) and local are agreed here (returned), else *local is
     * updated. */
    cs_err (*evict)(sim *s, cs_err *local, int64_t nsel, int64_t *glob);
    /* Collective. The tick's agreement after the eviction (tick t): crawl.weight_sync = average
     * averages the ranks' weights every sync_every ticks (the owned crawl), and the tick's counts
     * glob[0..5) are summed with local agreed, unless the eviction did (returned: the code). */
    cs_err (*agree)(sim *s, int64_t t, cs_err local, int64_t nsel, int64_t *glob);
    /* Local. Host h's count of the tick is over all ranks and known to every rank (rank 0
     * counts its politeness): the strict setting's split hosts, every host when replicated. */
    int (*host_global)(const sim *s, int64_t h);
    /* Local. Some host's count is global (host_global): the re-crawls' quotas are gathered
     * (sim_refresh_quota is then collective). */
    int (*quotas_global)(const sim *s);
    /* A MAX-capped entry met by a selection walk is demoted in the frontier (not in the strict
     * setting: its value stays as every rank count would leave it). */
    int demotes;
} sim_mode;

/* The engine: the world it crawls, the policy, the phases' states and the mode. */
struct sim {
    cs_ctx *ctx;
    const cs_config *cfg;
    sim_world_view w;
    cs_feat_layout L;
    const cs_discover_ops *ops;
    const char *pname; /* run.policy */
    void *pol;
    cs_frontier *fr;
    int G, GA;
    int tres_d;        /* TRES vector length, 0 when the policy does not use them */
    int host_features; /* tres.host_features */
    sim_visited vis;   /* pages fetched in the task (sim_visited.c) */
    sim_refresh *rf;   /* [refresh]: NULL when refresh.policy = none */
    /* crawl.weight_sync = sum (the policy learns as one learner over all ranks), and the strict
     * setting (docs/guide/synchronisation.md): global budget, E = 1 and, for a learner, sum
     * with K = 1. Under it the engine decides everything on global quantities in an order that
     * does not depend on P: fetches sorted by page id, link records inserted in (source page,
     * link) order, host quotas over all ranks, one global frontier capacity. */
    int sum, strict;
    /* strict with a selecting policy (tres, tres-async, tree-random): every rank runs the one
     * logical policy on replicated state (rep_share): the whole frontier, every link record and
     * every fetch's observation; a rank fetches the picks it owns. */
    int rep;
    int cap_global; /* strict, value-based, MAX cap, split hosts: host_fetched counts all ranks' */
    int tally;      /* this rank's counts of the mode's replicated work count (mode, rank 0) */
    const sim_mode *mode;
    sim_hosts h;
    sim_select_phase sl;
    sim_fetch_phase f;
    sim_learn_phase ln;
    sim_route_phase r;
    sim_exchange_phase x;
    sim_insert_phase in;
    sim_evict_phase evict;
    sim_record_phase m;
    sim_diag d;
};

#define BIT_GET(b, i) (((b)[(i) >> 6] >> ((i)&63)) & 1u)
#define BIT_SET(b, i) ((b)[(i) >> 6] |= (uint64_t)1 << ((i)&63))

typedef struct loop_state {
    int64_t tick; /* global tick counter over all tasks */
    /* where the loop stands at a tick boundary (checkpoints): the task, its next tick, the
     * task's global fetches so far, whether an exchange is forced next tick */
    int64_t task, t_next, fetched_task, force;
    int resume;           /* run_task continues the checkpoint's task instead of starting it */
    int64_t resumed_tick; /* the checkpoint's tick on a restart, else -1 (/timing) */
    int stopped;          /* SIGTERM: a checkpoint was written and the run stops */
    int64_t task_base[2]; /* global fetched, relevant at the task's start */
    cs_progress progress;
    int64_t total_fetched;
    double t_begin;
    double *wall; /* wall time at each record point */
    int64_t wall_cap;
    int64_t *task_v[4]; /* per task: fetched, relevant, relevant hosts, ticks */
} loop_state;

/* The slot of host h in the host tables (sim_hosts): h, or its rank among this rank's hosts
 * (the host must be this rank's then). */
static inline int64_t hslot(const sim *s, int64_t h)
{
    if (s->h.slot_bits == NULL)
        return h;
    const uint64_t below = (1ULL << (h & 63)) - 1;
    return s->h.slot_below[h >> 6] + cs_popcount64(s->h.slot_bits[h >> 6] & below);
}

/* The most fetches of host h this rank may make in tick t: the host's rate, split over the
 * ranks owning its pages (the remainder rotating with the tick), so the sum over ranks never
 * exceeds crawl.host_rate. */
static inline int64_t quota(const sim *s, int64_t h, int64_t t)
{
    const int64_t rate = s->cfg->crawl.host_rate;
    if (rate == 0)
        return INT64_MAX;
    if (s->h.share_k == NULL)
        return rate; /* strict: host_used holds the host's count over all ranks (pick_strict) */
    const int64_t k = s->h.share_k[h];
    if (k <= 1)
        return rate;
    const int64_t extra = ((s->h.share_idx[h] + k - t % k) % k) < rate % k;
    return rate / k + extra;
}

/*
 * The per-host MAX cap (tres.max_per_host, the paper's Sec. 3.5) on this rank: a host owned by k
 * ranks (k = 1 under host-hash partitions: exact) gets cap / k fetches per rank, the remainder
 * to its first owners, so the sum over ranks never exceeds the cap without any communication
 * (conservative when a host's relevant pages sit on one of its ranks). Counts are of this task
 * and, with with_tick, the picks already made in this tick (host_used; the global budget may
 * still give some back, so only the fetches make a page's rejection final).
 */
static inline int capped(const sim *s, int64_t h, int with_tick)
{
    const int64_t cap = s->h.cap_now;
    if (cap <= 0)
        return 0;
    const int64_t k = s->h.share_k == NULL ? 1 : s->h.share_k[h]; /* strict: global */
    const int64_t mine = k <= 1 ? cap : cap / k + (s->h.share_idx[h] < cap % k);
    const int64_t hs = hslot(s, h);
    return s->h.host_fetched[hs] + (with_tick ? s->h.host_used[hs] : 0) >= mine;
}

/* The cap of this tick: the fixed one, or the adaptive 5 -> 2 schedule (5, 4, 3, 2 in the
 * quarters of the task's fetches: run.pages, or run.ticks * bandwidth without a page limit). */
static inline int64_t cap_at(const sim *s, int64_t fetched_task)
{
    if (s->h.max_cap != CS_TRES_MAX_ADAPTIVE)
        return s->h.max_cap;
    const cs_run_config *rn = &s->cfg->run;
    const double horizon =
        rn->pages > 0 ? (double)rn->pages : (double)rn->ticks * (double)s->cfg->crawl.bandwidth;
    int64_t q = (int64_t)(4.0 * (double)fetched_task / horizon);
    if (q > 3)
        q = 3;
    return 5 - q;
}

/* The tick's re-crawls take their hosts' quotas before discovery selects (select_tick, or
 * polite_check at a task's seed tick, resets the counts). */
static inline void touch(sim *s, int64_t h)
{
    const int64_t hs = hslot(s, h);
    if (!s->h.host_mark[hs]) {
        s->h.host_mark[hs] = 1;
        s->h.touched[s->h.n_touched++] = (int32_t)h;
    }
}

/* Host h has pages on several ranks (never under a partition that keeps hosts whole). */
static inline int host_split(const sim *s, int64_t h)
{
    return s->h.host_k != NULL && s->h.host_k[h] > 1;
}

/* The visited bit of a local page (li, page): by local index when owned, else by id. */
static inline int64_t visited_bit_local(const sim *s, int64_t li, int64_t page)
{
    return s->vis.slot != NULL ? li : page;
}

/* The host of any page (replicated mode, cap_global): the world's accessor (sim_world_ops). */
static inline int64_t host_any(const sim *s, int64_t page)
{
    return s->w.ops->host_any(s, page);
}

/* The host of this rank's local page li. */
static inline int64_t host_of_local(const sim *s, int64_t li)
{
    return s->w.ops->host_local(s, li);
}

/* The host of a frontier entry's page: a local page's, or any page's in the replicated mode. */
static inline int64_t host_of_page(const sim *s, int64_t page)
{
    return s->w.ops->host_page(s, page);
}

static inline int64_t host_of_key(const sim *s, uint64_t key)
{
    return s->w.ops->host_page(s, cs_frontier_key_id(key));
}

/* A hint that host_of_key(key) follows soon (its host is a miss at a random place). */
static inline void prefetch_host(const sim *s, uint64_t key)
{
    s->w.ops->prefetch_host(s, cs_frontier_key_id(key));
}

/*
 * Exploration. The frontier's entries stand on a circle in the order of their tags (a hash of
 * (run seed, page id) above the id, cs_frontier_tag, seeded by explore_tag_seed); each tick starts
 * at a cursor, a hash of (run seed, tick) in the high 32 bits, and the exploring picks walk the
 * circle forward from it. An entry's exploration key, the larger the earlier it is walked:
 * ~(tag - cursor), whose low 32 bits are the complement of the page id (cs_frontier_key_id).
 */
static inline uint64_t explore_tag_seed(const sim *s)
{
    return cs_mix64((uint64_t)s->cfg->run.seed * CS_HASH_GOLDEN + CS_HASH_EXPLORE_TAG);
}

static inline uint64_t explore_cursor(const sim *s, int64_t tick)
{
    const uint64_t h =
        cs_mix64((uint64_t)s->cfg->run.seed * CS_HASH_GOLDEN + (uint64_t)tick + CS_HASH_EXPLORE);
    return h & 0xffffffff00000000u;
}

static inline uint64_t explore_key(uint64_t cursor, uint64_t tag)
{
    return ~(tag - cursor);
}

extern const char *const sim_phase_name[NPH];
extern const char *const sim_series_name[NS];

cs_err sim_world_check(cs_ctx *ctx, const cs_sim_world *w, const cs_config *cfg);
cs_err sim_build_hosts(sim *s);
cs_err sim_choose_seeds(sim *s);
cs_err sim_host_map(sim *s);
cs_err sim_strict_setting(sim *s);
void sim_polite_check(sim *s, int64_t tick);
cs_err sim_gather_layout(cs_ctx *ctx, int64_t n, int *counts, int *displs, int64_t *tot,
                         const char *what);
cs_err sim_refresh_quota(sim *s, const cs_recrawl_crawl *cr, int64_t n);
/* Local. The re-crawl side learns of the tick's fetches s->f.fx[0..n) (cs_simrf_fetched). */
cs_err sim_refresh_fetched(sim *s, int64_t n, int64_t tick);
/* Local. Each phase's state freed (accepts a zeroed one). */
void sim_hosts_fini(sim_hosts *h);
void sim_select_fini(sim_select_phase *p);
void sim_fetch_fini(sim_fetch_phase *p);
void sim_learn_fini(sim_learn_phase *p);
void sim_route_fini(sim_route_phase *p);
void sim_exchange_fini(sim_exchange_phase *p);
void sim_insert_fini(sim_insert_phase *p);
void sim_evict_fini(sim_evict_phase *p);
void sim_record_fini(sim_record_phase *p);
/* The crawl's mode of the strict setting's flags and, once the hosts are known, cap_global
 * (sim_mode.c). */
const sim_mode *sim_mode_choose(int strict, int rep, int cap_global);
/* The world's accessors: procedural or materialized, and in the replicated mode (sim_mode.c). */
const sim_world_ops *sim_world_choose(int proc, int replicated);
/* Local. This rank's part of the tick's counts (sim.c: it takes the signals noted). */
void sim_tick_counts(const sim *s, int64_t nsel, int64_t *c);
/* select (sim_select.c) */
void sim_evaluate(sim *s);
cs_err sim_select_tick(sim *s, int64_t tick, int64_t step, int64_t Bt, int64_t *nsel);
cs_err sim_select_owned(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt, double eps,
                        int64_t *nsel);
cs_err sim_select_strict(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt, double eps,
                         int64_t *nsel);
cs_err sim_select_replicated(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt,
                             double eps, int64_t *nsel);
cs_err sim_take_selected(sim *s, int64_t nsel);
void sim_keep_own_fetches(sim *s, int64_t *n);
cs_err sim_sort_fetches(sim *s, int64_t n);
cs_err sim_take_seeds(sim *s, int64_t *n);
/* fetch (sim_fetch.c) */
cs_err sim_fetch_pages(sim *s, int64_t n);
/* Local. The fetched pages of a materialized world: the graph's arrays, by local index. */
cs_err sim_pages_graph(sim *s, int64_t n, sim_pages *p);
/* Local. The procedural world's: the tick's pages generated now (the same links and attributes
 * as the materialized graph's, from the same function). */
cs_err sim_pages_generated(sim *s, int64_t n, sim_pages *p);
/* learn (sim_learn.c). Local: the statistics of the tick's n fetches and the policy's
 * observation of them; in the replicated mode the statistics only (rep_share observes). */
cs_err sim_learn_fetches(sim *s, int64_t n, uint64_t tick);
cs_err sim_learn_replicated(sim *s, int64_t n, uint64_t tick);
cs_err sim_sum_sync(sim *s, int64_t t);
cs_err sim_average_sync(sim *s);
void sim_learn_counters(sim *s);
/* route (sim_route.c). Local: the link records of the tick's n fetches to their owners, or
 * (the replicated mode) only counted. */
cs_err sim_route_links(sim *s, int64_t n);
cs_err sim_route_counted(sim *s, int64_t n);
/* exchange (sim_exchange.c) */
cs_err sim_exchange(sim *s, cs_err local, int merged);
cs_err sim_rep_share(sim *s, cs_err local, int64_t n, uint64_t tick);
/* insert (sim_insert.c) */
cs_err sim_insert_links(sim *s, const cs_link_msg *const *ptrs, const cs_link_msg *recs,
                        const int64_t *idx, int64_t n);
cs_err sim_insert_own(sim *s);
cs_err sim_insert_merged(sim *s, size_t len);
/* evict (sim_evict.c) */
void sim_evict_local(sim *s);
cs_err sim_evict_global(sim *s, cs_err local, int64_t *sums, int ns);
/* the visited set (sim_visited.c) */
cs_err sim_visited_create(sim *s);
void sim_visited_free(sim *s);
void sim_visited_clear(sim *s);
int64_t sim_visited_words(const sim *s);
int sim_visited_get(const sim *s, int64_t page);
/* A hint that sim_visited_get(s, page) follows soon (the visited bits by page id: a bit at a
 * random place of the world's). */
void sim_visited_prefetch(const sim *s, int64_t page);
void sim_visited_set(sim *s, int64_t page);
cs_err sim_share_visited(sim *s, cs_err local, int64_t n);
/* The same, and (cap_global) the other ranks' fetches counted towards their hosts' MAX caps. */
cs_err sim_share_visited_counted(sim *s, cs_err local, int64_t n);
void sim_global_counts(sim *s, int64_t *tot, int64_t *hosts);
/* record (sim_results.c). Local: run.trace's (tick, page) pairs of the tick's n fetches. */
cs_err sim_record_trace(sim *s, int64_t n, uint64_t tick);
cs_err sim_record(sim *s, int64_t tick, int64_t task, const int64_t *task_base);
cs_err sim_record_point(sim *s, loop_state *ls, int64_t task);
/* Local. This process's peak resident memory so far, in bytes (getrusage). */
int64_t sim_peak_rss(void);
/* This process's resident pages of memory shared with other processes (RssShmem of
 * /proc/self/status) in bytes, 0 when unknown. */
int64_t sim_shared_rss(void);
/* This rank's part of the node's memory given its peak resident memory: with the generator's
 * model shared by the node's ranks (cs_gen_create_shared), whose pages count in the peak of
 * every rank that touched them, the peak less the rank's shared pages at the end of the run
 * plus the shared bytes it holds (the node's first rank: the whole model, once); else the
 * peak. Summed over ranks: the memory of the nodes, exact when each rank's peak is at the
 * end of the run (a procedural crawl's memory grows with it). In the results as
 * /timing/ranks/shared_rss and shared_held. */
int64_t sim_node_memory(const sim *s, int64_t peak);
cs_err sim_write_results(sim *s, loop_state *ls, const char *output, cs_sim_summary *sum);
/* Local. The diagnostics' state, after the policy's creation (and sum_begin): the initial
 * weights are the first synchronisation's reference. CS_ERR_NOMEM, CS_ERR_LIMIT. */
cs_err sim_diag_create(sim *s);
void sim_diag_free(sim *s);
/* Local. Room for cap record points. CS_ERR_NOMEM. */
cs_err sim_diag_reserve(sim *s, int64_t cap);
/* Local. The weights were just synchronised (identical on every rank): the update is their
 * distance from the last synchronisation's. */
void sim_diag_synced(sim *s);
/* Local. An averaging (cs_comm_average) started from the ranks' weights all[0..P * nw), rank
 * after rank (its allgathered scratch, identical on every rank): their spread counts in the
 * next record point's. */
void sim_diag_averaged(sim *s, const double *all);
/* Local. The tick's end, fetched: its fetches over all ranks; after a synchronisation, the
 * step of its window (the policy's step_size x the window's fetches, / P when averaging). */
void sim_diag_tick(sim *s, int64_t fetched);
/* Collective. The diagnostics of record point `at` (< the capacity sim_diag_reserve made):
 * one gather on rank 0; nothing can fail. */
void sim_diag_record(sim *s, int64_t at);
/* Local. /series/{weights_norm,...} and (rank 0) /ranks/series/... of n points into r. */
cs_err sim_diag_write(sim *s, cs_results *r, int64_t n);
/* Collective (ckpt.h). The diagnostics of n record points and the synchronisation state. */
cs_err sim_diag_save(sim *s, cs_ckpt *ck, int64_t n);
cs_err sim_diag_load(sim *s, cs_ckpt *ck, int64_t n);
cs_err sim_save_checkpoint(sim *s, loop_state *ls);
cs_err sim_load_checkpoint(sim *s, loop_state *ls, const char *path);

#endif
