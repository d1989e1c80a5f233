/*
 * sim: the tick loop of `crawlsim run` (see include/crawlsim/sim.h for one tick on one rank).
 */
#include "crawlsim/sim.h"
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
#include "sim/sim_impl.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Phases of a tick (wall-clock seconds, /timing). evaluate: re-evaluating the frontier (the
 * synchronous method); route: sorting the tick's link records to their owners (local work: this
 * rank's stay in place, the others' are copied into the outboxes); exchange: the fetched pages'
 * allgather and the outboxes' alltoall(v); insert: merging link records into the frontier (with
 * their values); wait: blocked in the count exchange (load imbalance); allreduce: weights, the
 * tick's integer allreduce and metrics. */
enum phase {
    PH_EVALUATE,
    PH_SELECT,
    PH_FETCH,
    PH_LEARN,
    PH_ROUTE,
    PH_EXCHANGE,
    PH_INSERT,
    PH_WAIT,
    PH_ALLREDUCE,
    NPH
};
static const char *const phase_name[NPH] = {"evaluate", "select", "fetch", "learn",    "route",
                                            "exchange", "insert", "wait",  "allreduce"};

/* Local counters of a rank (int64, summed over ranks at record points). */
enum counter {
    C_FETCHED,
    C_RELEVANT,
    C_FRONTIER,
    C_EVICTIONS,
    C_QEVALS,
    C_BYTES,
    C_MESSAGES,
    C_LINKS,
    C_DROPPED,
    C_POLITE,
    C_LEAVES, /* Tree-Frontier leaves now (not cumulative) */
    NC
};

/* A page being fetched this tick. */
typedef struct fetch {
    int64_t page, li;
    int64_t pick; /* selecting policies: index among the committed picks */
    cs_feat_parents par;
    int has_x;
} fetch;

/* The series recorded at record points. */
typedef struct series {
    int64_t n, cap;
    int64_t *v[NC + 4]; /* tick, task, relevant_hosts, then counters */
    double *t[NPH];
} series;

typedef struct sim {
    cs_ctx *ctx;
    const cs_config *cfg;
    cs_config world; /* cfg with the [gen] of the world actually crawled */
    double threshold;
    cs_graph *g;
    cs_gen *gen;
    cs_evidence *ev;
    cs_feat_layout L;
    const cs_discover_ops *ops;
    void *pol;
    cs_frontier *fr;
    int G, GA;
    /* TRES features (selecting policies) and the per-host MAX cap (tres.max_per_host) */
    int tres_d;                       /* TRES vector length, 0 when the policy does not use them */
    int host_features;                /* tres.host_features */
    int64_t max_cap;                  /* CS_TRES_MAX_INF, CS_TRES_MAX_ADAPTIVE or the cap */
    int64_t cap_now;                  /* the cap this tick (0: none) */
    int32_t *host_fetched, *host_rel; /* this rank's fetches per host in the task */
    float *tx;                        /* TRES vectors of a tick's out-links */
    size_t tx_cap;
    int64_t pol_qevals; /* the policy's Q evaluations already counted */
    int64_t sel_tick;   /* the tick being selected (admit) */
    /* per-rank state */
    uint64_t *visited;      /* bitset over all page ids: fetched by any rank (share_visited) */
    uint64_t *rel_host;     /* bitset over hosts: a relevant page was fetched (this task) */
    uint64_t *rel_host_all; /* its OR over ranks (global_counts) */
    int64_t host_words;
    int32_t *host_k, *host_idx, *host_used;
    uint8_t *host_mark; /* host in touched[] this tick */
    int64_t *touched;
    int64_t n_touched;
    uint8_t *taken; /* per frontier slot, this tick */
    size_t taken_cap;
    uint64_t *cands; /* selection keys; each encodes its page id (cs_frontier_key_id) */
    size_t cands_cap;
    int64_t *sel;
    size_t sel_cap;
    uint64_t floor;     /* greedy selection: keys below are skipped first (candidates) */
    uint64_t *sort_tmp; /* cs_sort_u64 scratch */
    size_t sort_tmp_cap;
    uint64_t *acc; /* the keys a selection walk accepted */
    size_t acc_cap;
    /* fetches of a tick */
    fetch *fx;
    size_t fx_cap;
    uint8_t *fx_codes; /* n * G codes of the selected entries */
    size_t fx_codes_cap;
    cs_feat_page *pst;
    size_t pst_cap;
    double *reward;
    size_t reward_cap;
    int64_t *base, *nout;
    size_t base_cap, nout_cap;
    int64_t *own; /* this tick's records for this rank's own pages: indexes into msgs */
    int64_t n_own;
    size_t own_cap;
    int64_t *ridx;  /* this tick's records in order: indexes into msgs (routing) */
    int32_t *route; /* and their owners */
    size_t ridx_cap, route_cap;
    size_t *route_bytes; /* bytes of records per destination rank */
    cs_link_msg *msgs;
    size_t msgs_cap;
    uint8_t *acts;
    size_t acts_cap;
    cs_discover_fetch *obs;
    size_t obs_cap;
    int64_t *vis_all; /* share_visited: the tick's fetched pages of all ranks */
    size_t vis_all_cap;
    int *vis_counts, *vis_displs; /* P each */
    cs_outbox out;
    char *recv;
    size_t recv_cap;
    double *avg_scratch;
    size_t avg_cap;
    /* seeds of every task: global page ids, replicated */
    int64_t *seeds;
    int64_t n_seeds;
    /* metrics */
    int64_t c[NC];
    double t[NPH];
    series s;
    int64_t share;  /* proportional budget share */
    int64_t *trace; /* run.trace: (tick, page) pairs of this rank's fetches */
    size_t trace_len, trace_cap;
    sim_refresh *rf; /* [refresh]: NULL when refresh.policy = none */
    /* crawl.weight_sync = sum (the policy learns as one learner over all ranks), and the strict
     * setting (docs/guide/synchronisation.md): global budget, E = 1 and, for a learner, sum
     * with K = 1. Under it the engine decides everything on global quantities in an order that
     * does not depend on P: fetches sorted by page id, link records inserted in (source page,
     * link) order, host quotas over all ranks, one global frontier capacity. */
    int sum, strict;
    /* strict with a selecting policy (tres, tres-async, tree-random): every rank runs the one
     * logical policy on replicated state (rep_share): the whole frontier, every link record and
     * every fetch's observation; a rank fetches the picks it owns. host_all: every page's host. */
    int rep;
    int cap_global; /* strict, value-based, MAX cap, split hosts: host_fetched counts all ranks' */
    int32_t *host_all;
    char *rep_buf, *rep_all; /* rep_share: this rank's and all ranks' fetches and records */
    size_t rep_buf_cap, rep_all_cap;
    int *rep_counts, *rep_displs; /* 2P each */
    int any_split;                /* some host has pages on several ranks (host_k > 1) */
    int64_t *perm;                /* sort_fetches */
    size_t perm_cap;
    fetch *fx_tmp;
    size_t fx_tmp_cap;
    uint8_t *codes_tmp;
    size_t codes_tmp_cap;
    const cs_link_msg **ord; /* insert_merged: the tick's records in canonical order */
    size_t ord_cap;
    int64_t *runs; /* insert_merged: run bounds and a heap of run heads */
    size_t runs_cap;
    uint64_t *ev_keys; /* evict_global */
    size_t ev_keys_cap;
    int64_t *sp, *sp_all; /* split-host (host, key) pairs of a selection, this rank's and all */
    size_t sp_cap, sp_all_cap;
    int *sp_counts, *sp_displs; /* P each */
    int32_t *sp_before;         /* per host: its global count before a selection phase */
} sim;

#define BIT_GET(b, i) (((b)[(i) >> 6] >> ((i)&63)) & 1u)
#define BIT_SET(b, i) ((b)[(i) >> 6] |= (uint64_t)1 << ((i)&63))

/* ---- world --------------------------------------------------------------------------------- */

/* Builds s->g (and s->gen when the world is synthetic). */
static cs_err build_world(sim *s)
{
    cs_ctx *ctx = s->ctx;
    const cs_config *cfg = s->cfg;
    cs_err rc = CS_OK;
    cs_partition part;
    cs_partition_init(&part);
    cs_config *spec = NULL;
    char *text = NULL;
    s->threshold = cfg->gen.relevance_threshold;
    if (cfg->run.graph[0] == '\0') {
        if (cfg->run.partition_method == CS_RUN_PART_FILE)
            rc = cs_fail(ctx, CS_ERR_CONFIG,
                         "run.partition_method = file needs a graph file (run.graph); a world "
                         "generated in memory takes host-hash or block");
        CS_TRY_AGREE(ctx, rc);
        CS_TRY_AGREE(ctx, cs_gen_create(ctx, &cfg->gen, &s->gen));
        int method =
            cfg->run.partition_method == CS_RUN_PART_BLOCK ? CS_PART_BLOCK : CS_PART_HOST_HASH;
        CS_TRY_AGREE(ctx,
                     cs_gen_partition(ctx, s->gen, method, ctx->size, cfg->partition.seed, &part));
        CS_TRY(ctx, cs_gen_graph(ctx, s->gen, &part, &s->g));
    } else {
        char path[CS_CONF_STR + 64], ppath[CS_CONF_STR + 64];
        cs_config_resolve_path(cfg, cfg->run.graph, path, sizeof path);
        hid_t file = -1;
        cs_graph_header hdr;
        CS_TRY(ctx, cs_graphio_open(ctx, path, &file, &hdr));
        if (strcmp(hdr.source, "gen") == 0) {
            /* a generated world: its spec rebuilds the model (term vectors for the evidence) */
            const size_t cap = 1 << 16;
            rc = cs_alloc(ctx, &text, cap, 1, "graph spec");
            if (rc == CS_OK)
                rc = cs_graphio_attr_read_string(ctx, file, "spec", text, cap, path);
            if (rc == CS_OK)
                rc = cs_alloc(ctx, &spec, 1, sizeof *spec, "graph spec");
            if (rc == CS_OK) {
                cs_config_defaults(spec);
                rc = cs_config_parse_string(ctx, text, path, spec);
            }
            if (rc == CS_OK && (spec->gen.pages != hdr.n_pages))
                rc = cs_fail(ctx, CS_ERR_FORMAT,
                             "graph file %s: its spec describes %lld pages but it has %lld", path,
                             (long long)spec->gen.pages, (long long)hdr.n_pages);
            if (rc == CS_OK)
                rc = cs_gen_create(ctx, &spec->gen, &s->gen);
            if (rc == CS_OK)
                s->threshold = spec->gen.relevance_threshold;
        }
        H5Fclose(file);
        CS_TRY_AGREE(ctx, rc);
        if (cfg->run.partition_method == CS_RUN_PART_FILE) {
            if (cfg->run.partition[0] != '\0')
                cs_config_resolve_path(cfg, cfg->run.partition, ppath, sizeof ppath);
            CS_TRY(ctx, cs_graph_load(ctx, path, cfg->run.partition[0] ? ppath : NULL, &s->g));
        } else {
            cs_partition_config pc = cfg->partition;
            pc.method =
                cfg->run.partition_method == CS_RUN_PART_BLOCK ? CS_PART_BLOCK : CS_PART_HOST_HASH;
            CS_TRY(ctx, cs_partition_compute(ctx, path, &pc, ctx->size, &part));
            CS_TRY(ctx, cs_graph_load_with(ctx, path, &part, &s->g));
        }
    }
fail:
    if (rc == CS_OK && spec != NULL)
        s->world.gen = spec->gen; /* the evidence uses the world's own parameters */
    free(text);
    free(spec);
    cs_partition_fini(&part);
    return rc;
}

/* Politeness bookkeeping: how many ranks own pages of each host and this rank's index. */
static cs_err build_hosts(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t H = cs_graph_n_hosts(s->g), nl = cs_graph_n_local(s->g);
    const int64_t *host = cs_graph_host(s->g);
    int32_t *mine = NULL;
    s->host_words = (H + 63) / 64;
    rc = cs_calloc(ctx, &s->rel_host, (size_t)s->host_words + 1, 8, "relevant hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->rel_host_all, (size_t)s->host_words + 1, 8, "relevant hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->host_k, (size_t)H + 1, 4, "host owners");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->host_idx, (size_t)H + 1, 4, "host owners");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->host_used, (size_t)H + 1, 4, "host quotas");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &s->touched, (size_t)H + 1, 8, "host quotas");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->host_mark, (size_t)H + 1, 1, "host quotas");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->host_fetched, (size_t)H + 1, 4, "host caps");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->host_rel, (size_t)H + 1, 4, "host caps");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &mine, (size_t)H + 1, 4, "host owners");
    if (rc == CS_OK && H > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "more than 2^31 - 1 hosts");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t i = 0; i < nl; i++)
        mine[host[i]] = 1;
    MPI_Allreduce(mine, s->host_k, (int)H, MPI_INT32_T, MPI_SUM, ctx->comm);
    MPI_Exscan(mine, s->host_idx, (int)H, MPI_INT32_T, MPI_SUM, ctx->comm);
    if (ctx->rank == 0)
        memset(s->host_idx, 0, (size_t)H * 4);
fail:
    free(mine);
    return rc;
}

/* The most fetches of host h this rank may make in tick t: the host's rate, split over the
 * ranks owning its pages (the remainder rotating with the tick), so the sum over ranks never
 * exceeds crawl.host_rate. */
static int64_t quota(const sim *s, int64_t h, int64_t t)
{
    const int64_t rate = s->cfg->crawl.host_rate;
    if (rate == 0)
        return INT64_MAX;
    if (s->strict)
        return rate; /* host_used holds the host's count over all ranks (pick_strict) */
    const int64_t k = s->host_k[h];
    if (k <= 1)
        return rate;
    const int64_t extra = ((s->host_idx[h] + k - t % k) % k) < rate % k;
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
static int capped(const sim *s, int64_t h, int with_tick)
{
    const int64_t cap = s->cap_now;
    if (cap <= 0)
        return 0;
    const int64_t k = s->strict ? 1 : s->host_k[h]; /* strict: global counts */
    const int64_t mine = k <= 1 ? cap : cap / k + (s->host_idx[h] < cap % k);
    return s->host_fetched[h] + (with_tick ? s->host_used[h] : 0) >= mine;
}

/* The cap of this tick: the fixed one, or the adaptive 5 -> 2 schedule (5, 4, 3, 2 in the
 * quarters of the task's fetches: run.pages, or run.ticks * bandwidth without a page limit). */
static int64_t cap_at(const sim *s, int64_t fetched_task)
{
    if (s->max_cap != CS_TRES_MAX_ADAPTIVE)
        return s->max_cap;
    const cs_run_config *rn = &s->cfg->run;
    const double horizon =
        rn->pages > 0 ? (double)rn->pages : (double)rn->ticks * (double)s->cfg->crawl.bandwidth;
    int64_t q = (int64_t)(4.0 * (double)fetched_task / horizon);
    if (q > 3)
        q = 3;
    return 5 - q;
}

/* ---- seeds --------------------------------------------------------------------------------- */

static uint64_t seed_key(const sim *s, int64_t p)
{
    return cs_mix64((uint64_t)p ^ cs_mix64((uint64_t)s->cfg->run.seed + 0x5eed));
}

/* The run.seeds relevant pages of smallest hash, the same for any rank count. */
static cs_err choose_seeds(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t S = s->cfg->run.seeds, nl = cs_graph_n_local(s->g);
    const int64_t *ids = cs_graph_local_ids(s->g);
    const double *rel = cs_graph_relevance(s->g);
    uint64_t *mine = NULL, *all = NULL;
    if (S * 2 * ctx->size > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_CONFIG, "run.seeds = %lld is too large", (long long)S);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &mine, (size_t)S * 2, 8, "seeds");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &all, (size_t)S * 2 * (size_t)ctx->size, 8, "seeds");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &s->seeds, (size_t)S, 8, "seeds");
    CS_TRY_AGREE(ctx, rc);
    /* the S smallest (key, id) pairs of this rank, by insertion into a sorted list */
    int64_t m = 0;
    for (int64_t i = 0; i < nl; i++) {
        if (rel[i] < s->threshold)
            continue;
        uint64_t k = seed_key(s, ids[i]);
        if (m == S && k >= mine[2 * (m - 1)])
            continue;
        int64_t j = m < S ? m++ : m - 1;
        while (j > 0 && mine[2 * (j - 1)] > k) {
            mine[2 * j] = mine[2 * (j - 1)];
            mine[2 * j + 1] = mine[2 * (j - 1) + 1];
            j--;
        }
        mine[2 * j] = k;
        mine[2 * j + 1] = (uint64_t)ids[i];
    }
    for (int64_t j = m; j < S; j++)
        mine[2 * j] = mine[2 * j + 1] = UINT64_MAX;
    MPI_Allgather(mine, (int)(2 * S), MPI_UINT64_T, all, (int)(2 * S), MPI_UINT64_T, ctx->comm);
    /* merge: repeatedly the smallest head (lists are sorted) */
    int64_t *head = calloc((size_t)ctx->size, sizeof *head);
    CS_ASSERT(head != NULL);
    s->n_seeds = 0;
    while (s->n_seeds < S) {
        int best = -1;
        for (int r = 0; r < ctx->size; r++) {
            if (head[r] >= S)
                continue;
            uint64_t k = all[(size_t)r * 2 * (size_t)S + 2 * (size_t)head[r]];
            if (k != UINT64_MAX &&
                (best < 0 || k < all[(size_t)best * 2 * (size_t)S + 2 * (size_t)head[best]]))
                best = r;
        }
        if (best < 0)
            break;
        s->seeds[s->n_seeds++] =
            (int64_t)all[(size_t)best * 2 * (size_t)S + 2 * (size_t)head[best] + 1];
        head[best]++;
    }
    free(head);
    if (s->n_seeds == 0)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "the world has no relevant page (relevance >= %g) to start the crawl from",
                     s->threshold);
fail:
    free(mine);
    free(all);
    return rc;
}

/* ---- selection ------------------------------------------------------------------------------ */

static void reset_hosts(sim *s)
{
    for (int64_t i = 0; i < s->n_touched; i++) {
        s->host_used[s->touched[i]] = 0;
        s->host_mark[s->touched[i]] = 0;
    }
    s->n_touched = 0;
}

/* Politeness: discovery never exceeds a host's quota by construction, re-crawls (which take the
 * quota first and are never deferred) may; the counter proves the one and counts the other. */
static void polite_check(sim *s, int64_t tick)
{
    for (int64_t i = 0; i < s->n_touched; i++) {
        int64_t h = s->touched[i], q = quota(s, h, tick);
        /* strict: a split host's count is global and known to every rank: rank 0 counts it */
        if (s->strict && (s->rep || s->host_k[h] > 1) && s->ctx->rank != 0)
            continue;
        if (s->host_used[h] > q)
            s->c[C_POLITE] += s->host_used[h] - q;
    }
    reset_hosts(s);
}

/* The tick's re-crawls take their hosts' quotas before discovery selects (select_tick, or
 * polite_check at a task's seed tick, resets the counts). */
static void touch(sim *s, int64_t h)
{
    if (!s->host_mark[h]) {
        s->host_mark[h] = 1;
        s->touched[s->n_touched++] = h;
    }
}

/*
 * Collective. The layout of an allgatherv: every rank's count (n here), their displacements in
 * rank order and *tot their sum. A count beyond int, or a total beyond int, fails on every rank
 * alike (the counts are the same everywhere): CS_ERR_LIMIT naming `what`.
 */
static cs_err gather_layout(cs_ctx *ctx, int64_t n, int *counts, int *displs, int64_t *tot,
                            const char *what)
{
    const int mine = n <= INT32_MAX ? (int)n : -1;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, ctx->comm);
    *tot = 0;
    for (int r = 0; r < ctx->size; r++) {
        if (counts[r] < 0 || *tot + counts[r] > INT32_MAX)
            return cs_fail(ctx, CS_ERR_LIMIT, "more than 2^31 - 1 %s in one tick", what);
        displs[r] = (int)*tot;
        *tot += counts[r];
    }
    return CS_OK;
}

/*
 * Collective. Strict setting: every rank learns the n values of every rank's sp[0..2n) pairs
 * (host, key) into s->sp_all (rank order; *tot pairs). One allgather of the counts and one of
 * the pairs; nothing without split hosts.
 */
static cs_err gather_split(sim *s, int64_t n, int64_t *tot)
{
    cs_ctx *ctx = s->ctx;
    int64_t t = 0;
    cs_err rc = gather_layout(ctx, 2 * n, s->sp_counts, s->sp_displs, &t, "split-host pick values");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->sp_all, &s->sp_all_cap, (size_t)t + 2, sizeof *s->sp_all,
                     "host quotas");
    CS_TRY_AGREE(ctx, rc);
    MPI_Allgatherv(s->sp, (int)(2 * n), MPI_INT64_T, s->sp_all, s->sp_counts, s->sp_displs,
                   MPI_INT64_T, ctx->comm);
    *tot = t / 2;
fail:
    return rc;
}

/* Collective (strict setting with split hosts; Local otherwise). The tick's re-crawls take their
 * hosts' quotas before discovery selects (select_tick, or polite_check at a task's seed tick,
 * resets the counts); strict: a host with pages on several ranks counts every rank's. */
static cs_err refresh_quota(sim *s, const cs_recrawl_crawl *cr, int64_t n)
{
    cs_err rc = CS_OK;
    const int64_t *host = cs_graph_host(s->g);
    int64_t m = 0;
    const int global = s->rep || (s->strict && s->any_split);
    if (global)
        CS_TRY_AGREE(s->ctx, cs_grow(s->ctx, &s->sp, &s->sp_cap, 2 * (size_t)n + 2, sizeof *s->sp,
                                     "host quotas"));
    for (int64_t i = 0; i < n; i++) {
        const int64_t h = host[cr[i].page];
        s->host_used[h]++;
        touch(s, h);
        if (global && (s->rep || s->host_k[h] > 1)) {
            s->sp[2 * m] = h;
            s->sp[2 * m++ + 1] = 0;
        }
    }
    if (global) {
        int64_t tot = 0;
        CS_TRY(s->ctx, gather_split(s, m, &tot));
        const int64_t mine0 = s->sp_displs[s->ctx->rank] / 2;
        for (int64_t i = 0; i < tot; i++) {
            if (i >= mine0 && i < mine0 + m)
                continue; /* this rank's own, counted above */
            s->host_used[s->sp_all[2 * i]]++;
            touch(s, s->sp_all[2 * i]);
        }
    }
fail:
    return rc;
}

/* The host of a frontier entry's page: a local page's, or any page's under rep. */
static int64_t host_of_page(const sim *s, int64_t page)
{
    if (s->rep)
        return s->host_all[page];
    return cs_graph_host(s->g)[cs_graph_local_index(s->g, page)];
}

static int64_t host_of_key(const sim *s, uint64_t key)
{
    return cs_graph_host(s->g)[cs_graph_local_index(s->g, cs_frontier_key_id(key))];
}

/* A hint that host_of_key(key) follows soon (its host is a miss at a random place). */
static void prefetch_host(const sim *s, uint64_t key)
{
    __builtin_prefetch(&cs_graph_host(s->g)[cs_graph_local_index(s->g, cs_frontier_key_id(key))]);
}

/* An exploration key: a hash of (run seed, tick, page id) above the id. th = tick_hash(s, tick),
 * computed once per tick. */
static uint64_t tick_hash(const sim *s, int64_t tick)
{
    return cs_mix64((uint64_t)s->cfg->run.seed * 0x9e3779b97f4a7c15u + (uint64_t)tick);
}

static uint64_t explore_key(uint64_t th, int64_t id)
{
    uint64_t h = cs_mix64((uint64_t)id ^ th);
    return (h & 0xffffffff00000000u) | (uint64_t)(0xffffffffu - (uint32_t)id);
}

/* Local. The keys >= floor of the entries not yet taken into s->cands; returns how many. */
static int64_t fill_keys(sim *s, int explore, int64_t tick, uint64_t floor)
{
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    uint64_t *c = s->cands;
    const uint8_t *taken = s->taken;
    int64_t n = 0;
    if (explore) {
        const uint64_t th = tick_hash(s, tick);
        for (int64_t i = 0; i < v.n; i++) {
            const uint64_t k = explore_key(th, v.id[i]);
            c[n] = k;
            n += !taken[i] & (k >= floor);
        }
    } else {
        for (int64_t i = 0; i < v.n; i++) {
            const uint64_t k = cs_frontier_key(v.q[i], v.id[i]);
            c[n] = k;
            n += !taken[i] & (k >= floor);
        }
    }
    return n;
}

/*
 * Local. The best `want` entries not yet taken, in decreasing key order, under the host quotas
 * (s->host_used counts them): into s->cands[0..*got). explore: random keys instead of values.
 *
 * The keys are walked in decreasing order, m at a time: the best m of the keys not yet walked
 * are selected (quickselect) and sorted, and the walk accepts them under the quotas until it
 * has `want`. When the quotas skip too many, the walk goes on with the next 2m keys, so the
 * keys and quota decisions already made stand (the walk is one pass over the sorted keys, in
 * rounds).
 *
 * A floor spares the quickselect most of the frontier: only keys >= floor are collected, and
 * when at least m are, their best m are the frontier's best m; when the walk runs out of them
 * before it has `want`, it is undone and repeated over all keys. So the floor changes the work,
 * never the result. Greedy keys keep the key of rank POOL * m of the last pass without a floor
 * (values change little from tick to tick); exploration keys are uniform hashes, so their floor
 * leaves POOL * m keys expected.
 */
#define POOL 4
static cs_err candidates(sim *s, int explore, int64_t tick, int64_t want, int64_t *got)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t size = cs_frontier_size(s->fr);
    *got = 0;
    if (want <= 0 || size == 0)
        return CS_OK;
    CS_TRY(ctx,
           cs_grow(ctx, &s->cands, &s->cands_cap, (size_t)size + 1, sizeof *s->cands, "selection"));
    CS_TRY(ctx, cs_grow(ctx, &s->acc, &s->acc_cap, (size_t)want + 1, sizeof *s->acc, "selection"));
    for (int64_t m = want + want / 2 + 64;; m *= 2) {
        uint64_t floor = 0;
        if (explore && POOL * m < size)
            floor = UINT64_MAX - (uint64_t)(0x1.0p64 * ((double)(POOL * m) / (double)size));
        else if (!explore)
            floor = s->floor;
        int64_t n = fill_keys(s, explore, tick, floor);
        if (n < m && floor > 0) {
            floor = 0;
            n = fill_keys(s, explore, tick, 0);
        }
        if (!explore && floor == 0) {
            /* a full pass: the new floor is the key of rank POOL m */
            s->floor = 0;
            if (n > POOL * m) {
                s->floor = cs_select_u64(s->cands, n, n - POOL * m);
                /* the POOL m largest are last now: select within them */
                cs_select_u64(s->cands + (n - POOL * m), POOL * m, (POOL - 1) * m);
            } else if (m < n) {
                cs_select_u64(s->cands, n, n - m);
            }
        } else if (m < n) {
            cs_select_u64(s->cands, n, n - m); /* the m largest keys last */
        }
        /* the walk in rounds: cands[0..pool) are the keys not walked yet, all below the walked
         * ones; the round's r keys are the pool's largest, last */
        int64_t k = 0, pool = n, r = m < n ? m : n;
        for (;;) {
            uint64_t *top = s->cands + (pool - r);
            CS_TRY(ctx, cs_grow(ctx, &s->sort_tmp, &s->sort_tmp_cap, (size_t)r + 1,
                                sizeof *s->sort_tmp, "selection"));
            cs_sort_u64(top, r, s->sort_tmp);
            int64_t ahead[8]; /* ahead[i & 7]: the host of top[i], found 8 keys earlier */
            for (int64_t i = r - 1; i >= 0 && k < want; i--) { /* decreasing key order */
                /* two stages: the page's host 16 keys ahead, that host's counters 8 ahead */
                const int64_t h = i + 8 < r ? ahead[i & 7] : host_of_key(s, top[i]);
                if (i >= 16)
                    prefetch_host(s, top[i - 16]);
                if (i >= 8) {
                    const int64_t h8 = host_of_key(s, top[i - 8]);
                    ahead[i & 7] = h8; /* (i - 8) & 7 == i & 7, read above already */
                    __builtin_prefetch(&s->host_used[h8]);
                    __builtin_prefetch(&s->host_mark[h8]);
                    __builtin_prefetch(&s->host_k[h8]);
                }
                if (capped(s, h, 1)) {
                    if (capped(s, h, 0) && !s->strict) {
                        /* MAX: never again; demoted so that later ticks do not walk it first */
                        cs_frontier_view v;
                        cs_frontier_view_get(s->fr, &v);
                        v.q[cs_frontier_find(s->fr, cs_frontier_key_id(top[i]))] = -INFINITY;
                    }
                    continue;
                }
                if (s->host_used[h] >= quota(s, h, tick))
                    continue;
                s->host_used[h]++;
                if (!s->host_mark[h]) {
                    s->host_mark[h] = 1;
                    s->touched[s->n_touched++] = h;
                }
                s->acc[k++] = top[i];
            }
            pool -= r;
            if (k == want || pool == 0)
                break;
            r = 2 * r < pool ? 2 * r : pool; /* the quotas skipped too many: the next keys */
            if (r < pool)
                cs_select_u64(s->cands, pool, pool - r);
        }
        if (k == want || floor == 0) { /* or all of the frontier was walked */
            memcpy(s->cands, s->acc, (size_t)k * sizeof *s->cands);
            *got = k;
            return CS_OK;
        }
        /* the keys above the floor ran out: undo this walk's counts and take all keys */
        for (int64_t i = 0; i < k; i++)
            s->host_used[host_of_key(s, s->acc[i])]--;
        if (!explore)
            s->floor = 0;
        m = n > m ? n : m;
    }
fail:
    return rc;
}

/* Keeps the first `take` candidates: marks them taken, appends their slots to s->sel and
 * recounts the host quotas for exactly them. */
static cs_err keep(sim *s, int64_t got, int64_t take, int64_t *nsel)
{
    cs_err rc = CS_OK;
    for (int64_t i = take; i < got; i++)
        s->host_used[host_of_key(s, s->cands[i])]--;
    CS_TRY(s->ctx, cs_grow(s->ctx, &s->sel, &s->sel_cap, (size_t)(*nsel + take) + 1, sizeof *s->sel,
                           "selection"));
    for (int64_t i = 0; i < take; i++) {
        if (i + 16 < take)
            cs_frontier_prefetch(s->fr, cs_frontier_key_id(s->cands[i + 16]), 1);
        if (i + 8 < take)
            cs_frontier_prefetch(s->fr, cs_frontier_key_id(s->cands[i + 8]), 2);
        int64_t slot = cs_frontier_find(s->fr, cs_frontier_key_id(s->cands[i]));
        CS_ASSERT(slot >= 0);
        s->taken[slot] = 1;
        s->sel[(*nsel)++] = slot;
    }
fail:
    return rc;
}

/* Collective. The global top-k of this rank's candidates (keys are all a rank needs to
 * search on), kept. */
static cs_err keep_global(sim *s, int64_t got, int64_t k, int64_t *nsel)
{
    int64_t take = 0;
    cs_comm_topk(s->ctx, s->cands, got, k, &take);
    return keep(s, got, take, nsel);
}

/*
 * Collective. The global top-k of all ranks' candidates (explore: random keys), kept. Each rank
 * first proposes about its fair share (k / P plus a margin) instead of k, which halves the keys
 * sorted and walked at 2 ranks. It is exact all the same: a rank's unproposed keys are below its
 * last proposed one, so they can only belong to the top-k when every one of its proposals did;
 * if that happens on any rank, every rank proposes k and the search is repeated.
 */
static cs_err pick_global(sim *s, int explore, int64_t tick, int64_t k, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    int64_t want = k;
    if (ctx->size > 1) {
        const int64_t share = k / ctx->size + k / (4 * ctx->size) + 64;
        want = share < k ? share : k;
    }
    for (;;) {
        int64_t got = 0, take = 0;
        CS_TRY_AGREE(ctx, candidates(s, explore, tick, want, &got));
        cs_comm_topk(ctx, s->cands, got, k, &take);
        int more = want < k && got == want && take == got, any = 0;
        MPI_Allreduce(&more, &any, 1, MPI_INT, MPI_LOR, ctx->comm);
        if (!any)
            return cs_agree(ctx, keep(s, got, take, nsel));
        CS_TRY_AGREE(ctx, keep(s, got, 0, nsel)); /* give the host quotas back */
        want = k;
    }
fail:
    return rc;
}

static int pair_desc(const void *a, const void *b)
{
    const int64_t *x = a, *y = b; /* (host, key): host ascending, key descending */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (uint64_t)x[1] > (uint64_t)y[1] ? -1 : (uint64_t)x[1] < (uint64_t)y[1];
}

/*
 * Collective. The strict setting's pick: exactly what one rank holding the whole frontier would
 * select, whatever the partition. That selection walks the keys in decreasing order and accepts
 * a key while its host has quota left, so it takes the global top-k of the union over hosts of
 * each host's best (quota left) keys. Each rank walks its own keys under the global counts of
 * its hosts (host_used; a host owned by this rank alone is exact already); the walk's keys of
 * hosts with pages on several ranks (split hosts) are then gathered on every rank, which keeps,
 * per split host, the best (quota left) of them (sp_before: the host's global count before
 * this pick) and drops the rest; the global top-k of what remains is found with cs_comm_topk.
 * A rank whose walk stopped at `want` keys and whose keys were all taken may hold better ones
 * unwalked: then every rank walks twice as far and the search is repeated (as pick_global).
 * Finally every rank counts the split hosts' accepted keys (those at or above the smallest
 * taken key over all ranks that passed their host's cut), so the global counts stay exact.
 */
static cs_err pick_strict(sim *s, int explore, int64_t tick, int64_t k, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t rate = s->cfg->crawl.host_rate;
    const int split = s->any_split && rate > 0;
    int64_t want = k;
    if (ctx->size > 1) {
        const int64_t share = k / ctx->size + k / (4 * ctx->size) + 64;
        want = share < k ? share : k;
    }
    if (k <= 0)
        return CS_OK;
    for (;;) {
        int64_t got = 0, take = 0, kept = 0, tot = 0;
        CS_TRY_AGREE(ctx, candidates(s, explore, tick, want, &got));
        if (split) {
            /* this walk's split-host keys, and their hosts' counts before it */
            rc =
                cs_grow(ctx, &s->sp, &s->sp_cap, 2 * (size_t)got + 2, sizeof *s->sp, "host quotas");
            int64_t m = 0;
            for (int64_t i = 0; rc == CS_OK && i < got; i++) {
                const int64_t h = host_of_key(s, s->cands[i]);
                if (s->host_k[h] > 1) {
                    s->sp[2 * m] = h;
                    s->sp[2 * m++ + 1] = (int64_t)s->cands[i];
                }
            }
            CS_TRY_AGREE(ctx, rc);
            CS_TRY(ctx, gather_split(s, m, &tot));
            for (int64_t i = 0; i < tot; i++)
                s->sp_before[s->sp_all[2 * i]] = s->host_used[s->sp_all[2 * i]];
            for (int64_t i = 0; i < m; i++)
                s->sp_before[s->sp[2 * i]]--; /* this walk's own picks */
            /* per split host, its best (rate - count before) keys pass */
            qsort(s->sp_all, (size_t)tot, 2 * sizeof *s->sp_all, pair_desc);
            /* filter this rank's candidates in place (order kept); dropped keys give their
             * quota back */
            for (int64_t i = 0; i < got; i++) {
                const int64_t h = host_of_key(s, s->cands[i]);
                int pass = 1;
                if (s->host_k[h] > 1) {
                    /* binary search of (h, key) among the sorted pairs: its rank in h */
                    const int64_t key[2] = {h, (int64_t)s->cands[i]};
                    const int64_t *at =
                        bsearch(key, s->sp_all, (size_t)tot, 2 * sizeof *s->sp_all, pair_desc);
                    CS_ASSERT(at != NULL);
                    int64_t first = (at - s->sp_all) / 2;
                    while (first > 0 && s->sp_all[2 * (first - 1)] == h)
                        first--;
                    const int64_t rank_in_h = (at - s->sp_all) / 2 - first;
                    pass = rank_in_h < rate - s->sp_before[h];
                }
                if (pass)
                    s->cands[kept++] = s->cands[i];
                else
                    s->host_used[h]--;
            }
        } else {
            kept = got;
        }
        cs_comm_topk(ctx, s->cands, kept, k, &take);
        int more = got == want && take == kept && kept < k, any = 0;
        MPI_Allreduce(&more, &any, 1, MPI_INT, MPI_LOR, ctx->comm);
        if (any) {
            CS_TRY_AGREE(ctx, keep(s, kept, 0, nsel)); /* give the host quotas back */
            if (split) /* and the split hosts' counts their values before this walk */
                for (int64_t i = 0; i < tot; i++)
                    s->host_used[s->sp_all[2 * i]] = s->sp_before[s->sp_all[2 * i]];
            want *= 2;
            continue;
        }
        CS_TRY_AGREE(ctx, keep(s, kept, take, nsel));
        if (split) {
            /* the split hosts' global counts: their gathered keys that passed and were taken */
            uint64_t last = take > 0 ? s->cands[take - 1] : UINT64_MAX, cut = 0;
            MPI_Allreduce(&last, &cut, 1, MPI_UINT64_T, MPI_MIN, ctx->comm);
            for (int64_t i = 0; i < tot; i++)
                s->host_used[s->sp_all[2 * i]] = s->sp_before[s->sp_all[2 * i]];
            for (int64_t i = 0, j; i < tot; i = j) {
                const int64_t h = s->sp_all[2 * i];
                for (j = i; j < tot && s->sp_all[2 * j] == h; j++)
                    if (j - i < rate - s->sp_before[h] && (uint64_t)s->sp_all[2 * j + 1] >= cut)
                        s->host_used[h]++;
                touch(s, h);
            }
        }
        return CS_OK;
    }
fail:
    return rc;
}

/* Binomial(n, p) by counting Bernoulli draws of one stream (n is a tick's budget). */
static int64_t binomial(uint64_t seed, uint64_t id, uint64_t sub, int64_t n, double p)
{
    if (p <= 0.0)
        return 0;
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_POLICY, id, sub);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += cs_rng_uniform(&r) < p;
    return k;
}

/*
 * Collective. Selects this tick's fetches from the frontier into s->sel (frontier slots, in
 * selection order): greedy then exploration picks, by the budget mode.
 */
/* Local. The engine's answer to a selecting policy about a candidate page (discover.h). */
static int admit(void *eng, int64_t page)
{
    sim *s = eng;
    const int64_t e = cs_frontier_find(s->fr, page);
    if (e < 0)
        return CS_ADMIT_NEVER; /* fetched or evicted */
    const int64_t h = host_of_page(s, page);
    if (capped(s, h, 0))
        return CS_ADMIT_NEVER;
    if (s->taken[e] || capped(s, h, 1) || s->host_used[h] >= quota(s, h, s->sel_tick))
        return CS_ADMIT_LATER;
    s->taken[e] = 1;
    s->host_used[h]++;
    if (!s->host_mark[h]) {
        s->host_mark[h] = 1;
        s->touched[s->n_touched++] = h;
    }
    return CS_ADMIT_OK;
}

/* Local. A selecting policy's picks of this rank: their keys into s->cands[0..*got). */
static cs_err propose(sim *s, int64_t tick, int64_t step, int64_t want, int64_t *got)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    *got = 0;
    CS_TRY(ctx,
           cs_grow(ctx, &s->cands, &s->cands_cap, (size_t)want + 1, sizeof *s->cands, "selection"));
    cs_discover_select a;
    memset(&a, 0, sizeof a);
    a.want = want;
    a.tick = (uint64_t)tick;
    a.step = step;
    a.admit = admit;
    a.eng = s;
    a.keys = s->cands;
    s->sel_tick = tick;
    CS_TRY(ctx, s->ops->select(s->pol, ctx, &a));
    *got = a.n;
fail:
    return rc;
}

static cs_err select_tick(sim *s, int64_t tick, int64_t step, int64_t Bt, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_crawl_config *cc = &s->cfg->crawl;
    const double eps = s->ops->epsilon(s->pol);
    const uint64_t seed = (uint64_t)s->cfg->run.seed;
    const uint64_t tick_id = ((uint64_t)1 << 62) + (uint64_t)tick;
    int64_t n = cs_frontier_size(s->fr);
    *nsel = 0;
    rc = cs_grow(ctx, &s->taken, &s->taken_cap, (size_t)n + 1, 1, "selection");
    if (rc == CS_OK)
        memset(s->taken, 0, (size_t)n + 1);
    CS_TRY_AGREE(ctx, rc);
    int64_t got = 0;
    if (s->ops->select != NULL) {
        int64_t b = Bt;
        if (cc->budget == CS_BUDGET_FIXED)
            b = cs_comm_split_fixed(Bt, ctx->rank, ctx->size);
        else if (cc->budget == CS_BUDGET_PROPORTIONAL)
            b = Bt < cc->bandwidth ? cs_comm_split(ctx, Bt, s->share) : s->share;
        CS_TRY_AGREE(ctx, propose(s, tick, step, b, &got));
        if (s->rep) /* every rank proposed the same picks: the one policy's */
            rc = keep(s, got, got, nsel);
        else if (cc->budget == CS_BUDGET_GLOBAL)
            rc = keep_global(s, got, Bt, nsel);
        else
            rc = keep(s, got, got, nsel);
        CS_TRY_AGREE(ctx, rc);
        CS_TRY_AGREE(ctx, s->ops->commit(s->pol, ctx, *nsel));
    } else if (s->strict) {
        const int64_t nx = binomial(seed, tick_id, 0, Bt, eps);
        CS_TRY(ctx, pick_strict(s, 0, tick, Bt - nx, nsel));
        CS_TRY(ctx, pick_strict(s, 1, tick, nx, nsel));
    } else if (cc->budget == CS_BUDGET_GLOBAL) {
        const int64_t nx = binomial(seed, tick_id, 0, Bt, eps);
        CS_TRY_AGREE(ctx, pick_global(s, 0, tick, Bt - nx, nsel));
        CS_TRY_AGREE(ctx, pick_global(s, 1, tick, nx, nsel));
    } else {
        int64_t b;
        if (cc->budget == CS_BUDGET_FIXED)
            b = cs_comm_split_fixed(Bt, ctx->rank, ctx->size);
        else
            b = Bt < cc->bandwidth ? cs_comm_split(ctx, Bt, s->share) : s->share;
        const int64_t nx = binomial(seed, tick_id, (uint64_t)ctx->rank + 1, b, eps);
        rc = candidates(s, 0, tick, b - nx, &got);
        if (rc == CS_OK)
            rc = keep(s, got, got, nsel);
        if (rc == CS_OK)
            rc = candidates(s, 1, tick, nx, &got);
        if (rc == CS_OK)
            rc = keep(s, got, got, nsel);
        CS_TRY_AGREE(ctx, rc);
    }
    polite_check(s, tick);
fail:
    return rc;
}

/* ---- fetching --------------------------------------------------------------------------------
 */

static double reward_of(const cs_sarsa_config *sc, int relevant, double rl)
{
    if (sc->reward == CS_REWARD_BINARY)
        return relevant ? 1.0 : 0.0;
    if (relevant)
        return sc->reward_relevant;
    if (rl > sc->high_threshold)
        return sc->reward_high;
    if (rl > sc->mid_threshold)
        return sc->reward_mid;
    return sc->reward_other;
}

/*
 * Fetches s->fx[0..n) (visited already marked): estimates, state, reward (OpenMP over pages),
 * then the policy learns in order, then the out-link records go to the outboxes.
 */
#define FETCH_CHUNK 16 /* pages per chunk of the fetch loop's dynamic schedule */

/* A hint that the anchors of the out-links tg[j0..j1) follow: the evidence rows of the targets
 * not visited yet, the only ones the anchors will read (most targets are visited already). */
static inline void prefetch_targets(const cs_evidence *ev, const uint64_t *visited,
                                    const int64_t *tg, int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j < j1; j++)
        if (!BIT_GET(visited, tg[j]))
            cs_evidence_prefetch(ev, tg[j]);
}
static cs_err fetch_pages(sim *s, int64_t n, uint64_t tick)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_graph *g = s->g;
    const int64_t *off = cs_graph_offsets(g), *tg = cs_graph_targets(g);
    const double *relv = cs_graph_relevance(g);
    const int G = s->G, GA = s->GA, GS = G - GA;
    double t0 = cs_now();
    CS_TRY(ctx, cs_grow(ctx, &s->pst, &s->pst_cap, (size_t)n + 1, sizeof *s->pst, "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->reward, &s->reward_cap, (size_t)n + 1, sizeof *s->reward, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->base, &s->base_cap, (size_t)n + 1, sizeof *s->base, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->nout, &s->nout_cap, (size_t)n + 1, sizeof *s->nout, "fetches"));
    int64_t links = 0;
    for (int64_t i = 0; i < n; i++) {
        s->base[i] = links;
        links += off[s->fx[i].li + 1] - off[s->fx[i].li];
    }
    CS_TRY(ctx, cs_grow(ctx, &s->msgs, &s->msgs_cap, (size_t)links + 1, sizeof *s->msgs, "links"));
    CS_TRY(ctx, cs_grow(ctx, &s->acts, &s->acts_cap, (size_t)(links + 1) * (size_t)GA, 1, "links"));
    const int TD = s->tres_d, HF = s->host_features;
    if (TD > 0)
        CS_TRY(ctx, cs_grow(ctx, &s->tx, &s->tx_cap, (size_t)(links + 1) * (size_t)TD,
                            sizeof *s->tx, "links"));
    float *tx = s->tx;
    const int32_t *hfetch = s->host_fetched, *hrel = s->host_rel, *hall = s->host_all;
    const int64_t *hostv = cs_graph_host(g);
    const int me = ctx->rank, rp = s->rep;

    const cs_feat_layout *L = &s->L;
    const cs_evidence *ev = s->ev;
    const fetch *fx = s->fx;
    cs_feat_page *pst = s->pst;
    double *reward = s->reward;
    int64_t *base = s->base, *nout = s->nout;
    cs_link_msg *msgs = s->msgs;
    uint8_t *acts = s->acts;
    const uint64_t *visited = s->visited;
    const cs_sarsa_config *sc = &s->cfg->sarsa;
    const double thr = s->threshold;
    int64_t skipped = 0; /* out-links to visited pages */
#pragma omp parallel for default(none)                                                             \
    shared(g, off, tg, relv, L, ev, fx, pst, reward, base, nout, msgs, acts, visited, sc, thr, n,  \
           GS, GA, TD, HF, tx, hfetch, hrel, hostv, me, hall, rp)                          \
        schedule(dynamic, FETCH_CHUNK)            \
    reduction(+ : skipped)
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = fx[i].page, li = fx[i].li;
        float cats[CS_FEAT_MAX_CATEGORIES];
        const float rl = cs_evidence_page(ev, p, cats);
        const int relevant = relv[li] >= thr;
        cs_feat_page *ps = &pst[i];
        cs_feat_page_state(L, rl, cats, relevant, &fx[i].par, ps);
        reward[i] = reward_of(sc, relevant, (double)rl);
        /* Software pipeline over the pages (each of these is a cache miss at a random place):
         * the offsets of page i + 3, the targets of page i + 2, the evidence rows of page i + 1
         * and of its targets not visited yet (and of page i's when a thread's chunk starts
         * here: the chunks of a dynamic schedule start at multiples of the chunk size). */
        if (i + 3 < n)
            __builtin_prefetch(&off[fx[i + 3].li]);
        if (i + 2 < n)
            __builtin_prefetch(&tg[off[fx[i + 2].li]]);
        if (i % FETCH_CHUNK == 0)
            prefetch_targets(ev, visited, tg, off[li], off[li + 1]);
        if (i + 1 < n) {
            __builtin_prefetch(&relv[fx[i + 1].li]);
            cs_evidence_prefetch(ev, fx[i + 1].page);
            prefetch_targets(ev, visited, tg, off[fx[i + 1].li], off[fx[i + 1].li + 1]);
        }
        /* what every out-link record of this page shares, and the parent part of the action
         * as seen from this page alone (one parent) */
        cs_link_msg tmpl;
        memset(&tmpl, 0, sizeof tmpl);
        tmpl.src = p;
        tmpl.parent_rl = rl;
        tmpl.parent_wrl = ps->wrl;
        tmpl.parent_dist = ps->dist;
        tmpl.parent_relevant = ps->relevant;
        memcpy(tmpl.state, ps->state, (size_t)GS);
        tmpl.parent_path_len = fx[i].par.path_len;
        tmpl.parent_path_rel = fx[i].par.path_rel;
        cs_tres_path_step(&tmpl.parent_path_len, &tmpl.parent_path_rel, relevant);
        cs_feat_parents one = {0};
        cs_feat_parents_add(&one, &tmpl);
        uint8_t pidx[4];
        cs_feat_parent_idx(&one, pidx);
        int64_t k = 0;
        for (int64_t j = off[li]; j < off[li + 1];) {
            /* a batch of the out-links not known visited, then their anchors at once */
            int64_t dst[CS_EVIDENCE_BATCH];
            int nb = 0;
            for (; j < off[li + 1] && nb < CS_EVIDENCE_BATCH; j++) {
                /* without branches (visited or not is a coin flip to a branch predictor): one
                 * bit, of any rank's pages (share_visited); p itself is neither kept nor counted */
                const int64_t d = tg[j];
                const int vis = (int)BIT_GET(visited, d), self = d == p;
                dst[nb] = d;
                nb += !vis & !self;
                skipped += vis & !self;
            }
            float arl[CS_EVIDENCE_BATCH], acats[CS_EVIDENCE_BATCH * CS_FEAT_MAX_CATEGORIES];
            cs_evidence_anchors(ev, p, dst, nb, arl, acats);
            for (int b = 0; b < nb; b++) {
                const int64_t d = dst[b];
                cs_link_msg *m = &msgs[base[i] + k];
                *m = tmpl;
                m->dst = d;
                m->anchor_rl = arl[b];
                m->anchor_cat = cs_feat_pack_anchor_cats(L, acats + b * L->categories);
                cs_feat_action_with(L, m->anchor_rl, m->anchor_cat, pidx,
                                    acts + (base[i] + k) * GA);
                if (TD > 0) {
                    /* the next candidates of the transition (host features as this rank knows
                     * them: a host of another rank's pages is unknown here) */
                    m->url_rl = (uint16_t)(cs_tres_url_rl(ev, d) * 65535.0f + 0.5f);
                    int64_t hf = 0, hr = 0;
                    if (rp) { /* rep: every host's counts are global and everywhere */
                        hf = hfetch[hall[d]];
                        hr = hrel[hall[d]];
                    } else if (cs_graph_owner(g, d) == me) {
                        const int64_t h = hostv[cs_graph_local_index(g, d)];
                        hf = hfetch[h];
                        hr = hrel[h];
                    }
                    cs_tres_x(HF, m, hf, hr, tx + (base[i] + k) * TD);
                }
                k++;
            }
        }
        nout[i] = k;
    }
    s->c[C_DROPPED] += skipped;
    double t1 = cs_now();
    s->t[PH_FETCH] += t1 - t0;

    /* statistics and learning, in selection order */
    const int64_t *host = cs_graph_host(g);
    if (s->cfg->run.trace) {
        CS_TRY(ctx, cs_grow(ctx, &s->trace, &s->trace_cap, s->trace_len + 2 * (size_t)n + 2,
                            sizeof *s->trace, "trace"));
        for (int64_t i = 0; i < n; i++) {
            s->trace[s->trace_len++] = (int64_t)tick;
            s->trace[s->trace_len++] = fx[i].page;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        s->c[C_FETCHED]++;
        if (!s->rep) /* rep: rep_share counts every rank's fetches */
            s->host_fetched[host[fx[i].li]]++;
        if (pst[i].relevant) {
            s->c[C_RELEVANT]++;
            if (!s->rep)
                s->host_rel[host[fx[i].li]]++;
            BIT_SET(s->rel_host, host[fx[i].li]);
        }
    }
    if (s->ops->observe != NULL && !s->rep) {
        CS_TRY(ctx, cs_grow(ctx, &s->obs, &s->obs_cap, (size_t)n + 1, sizeof *s->obs, "fetches"));
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!fx[i].has_x)
                continue; /* a seed was not chosen by an action */
            cs_discover_fetch *o = &s->obs[m++];
            o->pick = fx[i].pick;
            o->out_x = TD > 0 ? tx + base[i] * TD : NULL;
            o->page = fx[i].page;
            o->x = s->fx_codes + i * G;
            o->reward = reward[i];
            o->relevant = pst[i].relevant;
            o->state = pst[i].state;
            o->n_out = nout[i];
            o->out_action = acts + base[i] * GA;
        }
        s->ops->observe(s->pol, s->obs, m, tick);
    }
    double t2 = cs_now();
    s->t[PH_LEARN] += t2 - t1;

    /* route the link records: other ranks' to the outboxes, this rank's stay where they are
     * (insert_own reads them by index, in the same order, without a copy). The owners first
     * (the owner map's reads are at random places: prefetched 16 records ahead), then each box
     * grows once and the records are copied in, in the same order as one pass would. */
    if (s->rep) { /* every record goes to every rank (rep_share), none is routed */
        for (int64_t i = 0; i < n; i++)
            s->c[C_LINKS] += nout[i];
        s->t[PH_ROUTE] += cs_now() - t2;
        return CS_OK;
    }
    CS_TRY(ctx, cs_grow(ctx, &s->own, &s->own_cap, (size_t)links + 1, sizeof *s->own, "links"));
    CS_TRY(ctx, cs_grow(ctx, &s->ridx, &s->ridx_cap, (size_t)links + 1, sizeof *s->ridx, "links"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->route, &s->route_cap, (size_t)links + 1, sizeof *s->route, "links"));
    int64_t nl = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < nout[i]; k++)
            s->ridx[nl++] = base[i] + k;
    const uint8_t *own8 = cs_graph_owner_map8(g);
    size_t *need = s->route_bytes;
    for (int r = 0; r < ctx->size; r++)
        need[r] = 0;
    for (int64_t j = 0; j < nl; j++) {
        const int64_t d = msgs[s->ridx[j]].dst;
        int o;
        if (own8 != NULL) {
            if (j + 16 < nl)
                __builtin_prefetch(&own8[msgs[s->ridx[j + 16]].dst]);
            o = own8[d];
        } else {
            o = cs_graph_owner(g, d);
        }
        s->route[j] = o;
        need[o] += sizeof(cs_link_msg);
    }
    cs_outbox *ob = &s->out;
    for (int r = 0; r < ctx->size; r++)
        if (r != me)
            CS_TRY(ctx, cs_outbox_reserve(ctx, ob, r, need[r]));
    s->n_own = 0;
    for (int64_t j = 0; j < nl; j++) {
        const int o = s->route[j];
        if (o == me) {
            s->own[s->n_own++] = s->ridx[j];
        } else {
            memcpy(ob->buf[o] + ob->len[o], &msgs[s->ridx[j]], sizeof(cs_link_msg));
            ob->len[o] += sizeof(cs_link_msg);
        }
    }
    s->c[C_LINKS] += nl;
    s->t[PH_ROUTE] += cs_now() - t2;
fail:
    return rc;
}

/* Inserts link records into the frontier (the owner's side of the exchange): *ptrs[i] for i in
 * [0, n) when ptrs is not NULL, else recs[idx[i]], or recs[0..n) when idx is NULL too. */
static cs_err insert_links(sim *s, const cs_link_msg *const *ptrs, const cs_link_msg *recs,
                           const int64_t *idx, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int GS = s->G - s->GA;
#define REC(i) (ptrs != NULL ? ptrs[(i)] : idx != NULL ? &recs[idx[(i)]] : &recs[(i)])
    for (int64_t i = 0; i < n; i++) {
        /* a software pipeline over the records: every lookup is at a random place */
        if (i + 16 < n)
            cs_frontier_prefetch(s->fr, REC(i + 16)->dst, 1);
        if (i + 8 < n)
            cs_frontier_prefetch(s->fr, REC(i + 8)->dst, 2);
        const cs_link_msg *m = REC(i);
        if (BIT_GET(s->visited, m->dst)) {
            s->c[C_DROPPED] += !s->rep || ctx->rank == 0; /* rep: counted once */
            continue;
        }
        int64_t h = -1;
        if (s->cap_now > 0 || s->tres_d > 0) {
            h = host_of_page(s, m->dst);
            if (capped(s, h, 0))
                continue; /* MAX reached: the link can never be fetched in this task */
        }
        int64_t e = cs_frontier_find(s->fr, m->dst);
        cs_frontier_view v;
        cs_frontier_link *lk;
        if (e < 0) {
            CS_TRY(ctx, cs_frontier_add(ctx, s->fr, m->dst, &e));
            cs_frontier_view_get(s->fr, &v);
            lk = &v.lk[e];
            lk->anchor_rl = m->anchor_rl;
            lk->anchor_cat = m->anchor_cat;
            memcpy(v.codes + e * v.stride, m->state, (size_t)GS);
        } else {
            cs_frontier_view_get(s->fr, &v);
            lk = &v.lk[e];
            if (m->anchor_rl > lk->anchor_rl) {
                lk->anchor_rl = m->anchor_rl;
                lk->anchor_cat = m->anchor_cat;
            }
            /* the state part comes from the parent with the largest w_rl (Sec. 3.1's max) */
            if (m->parent_wrl > lk->par.best_wrl)
                memcpy(v.codes + e * v.stride, m->state, (size_t)GS);
        }
        cs_feat_parents_add(&lk->par, m);
        cs_feat_action(&s->L, lk->anchor_rl, lk->anchor_cat, &lk->par, v.codes + e * v.stride + GS);
        if (s->ops->link != NULL) {
            float x[CS_TRES_MAX_D];
            cs_tres_x(s->host_features, m, s->host_fetched[h], s->host_rel[h], x);
            CS_TRY(ctx, s->ops->link(s->pol, ctx, m->dst, x, &v.q[e]));
        } else {
            s->ops->value(s->pol, &v, e, 1);
            s->c[C_QEVALS] += !s->rep || ctx->rank == 0;
        }
    }
fail:
    return rc;
#undef REC
}

/* ---- metrics and results -------------------------------------------------------------------- */

enum { S_TICK = NC, S_TASK, S_HOSTS, NS };

static const char *const series_name[NS] = {
    "fetched",         "relevant", "frontier", "evictions",       "q_evals",
    "bytes_exchanged", "messages", "links",    "dropped_visited", "politeness_violations",
    "leaves",          "tick",     "task",     "relevant_hosts"};

/* Collective. Global totals of the counters and of the relevant hosts. */
static void global_counts(sim *s, int64_t *tot, int64_t *hosts)
{
    s->c[C_FRONTIER] = s->rep && s->ctx->rank != 0 ? 0 : cs_frontier_size(s->fr);
    MPI_Allreduce(s->c, tot, NC, MPI_INT64_T, MPI_SUM, s->ctx->comm);
    uint64_t *u = s->rel_host_all;
    MPI_Allreduce(s->rel_host, u, (int)s->host_words, MPI_UINT64_T, MPI_BOR, s->ctx->comm);
    int64_t h = 0;
    for (int64_t i = 0; i < s->host_words; i++)
        h += __builtin_popcountll(u[i]);
    *hosts = h;
}

/* Collective. Appends a point to the series (counters are cumulative over the run; fetched and
 * relevant restart with each task, like the paper's per-task curves). */
static cs_err record(sim *s, int64_t tick, int64_t task, const int64_t *task_base)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    double t0 = cs_now();
    int64_t tot[NC], hosts;
    global_counts(s, tot, &hosts);
    double tmax[NPH];
    MPI_Allreduce(s->t, tmax, NPH, MPI_DOUBLE, MPI_MAX, ctx->comm);
    series *se = &s->s;
    if (se->n == se->cap) {
        int64_t cap = se->cap ? 2 * se->cap : 256;
        for (int i = 0; i < NS && rc == CS_OK; i++) {
            void *p = realloc(se->v[i], (size_t)cap * 8);
            if (p == NULL)
                rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the series");
            else
                se->v[i] = p;
        }
        for (int i = 0; i < NPH && rc == CS_OK; i++) {
            void *p = realloc(se->t[i], (size_t)cap * 8);
            if (p == NULL)
                rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the series");
            else
                se->t[i] = p;
        }
        if (rc == CS_OK)
            se->cap = cap;
    }
    CS_TRY_AGREE(ctx, rc);
    for (int i = 0; i < NC; i++)
        se->v[i][se->n] = tot[i];
    se->v[C_FETCHED][se->n] -= task_base[0];
    se->v[C_RELEVANT][se->n] -= task_base[1];
    se->v[S_TICK][se->n] = tick;
    se->v[S_TASK][se->n] = task;
    se->v[S_HOSTS][se->n] = hosts;
    for (int i = 0; i < NPH; i++)
        se->t[i][se->n] = tmax[i];
    se->n++;
    s->t[PH_ALLREDUCE] += cs_now() - t0;
fail:
    return rc;
}

/* ---- the tick loop ------------------------------------------------------------------------ */

/* Links to this rank's own pages go into the frontier at once. */
static cs_err insert_own(sim *s)
{
    const int me = s->ctx->rank;
    double t0 = cs_now();
    CS_ASSERT(s->out.len[me] == 0);
    cs_err rc = insert_links(s, NULL, s->msgs, s->own, s->n_own);
    s->n_own = 0;
    s->t[PH_INSERT] += cs_now() - t0;
    return rc;
}

/*
 * Local. Strict setting: inserts this tick's records, this rank's own (s->own, deferred) and
 * those received (s->recv, len bytes), in the order of their source pages, as one rank would.
 * The fetches were sorted by page id (sort_fetches), so the own records and each sender's
 * records are runs sorted by source (a page's out-links in graph order); the received buffer
 * is cut into runs where the source decreases, and the runs are merged with a binary heap of
 * their heads (sources are disjoint across runs: a page is fetched by its owner only).
 */
static cs_err insert_merged(sim *s, size_t len)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_link_msg *rv = (const cs_link_msg *)s->recv;
    const int64_t nr = (int64_t)(len / sizeof(cs_link_msg)), n = s->n_own + nr;
    CS_TRY(ctx, cs_grow(ctx, &s->ord, &s->ord_cap, 2 * (size_t)n + 1, sizeof *s->ord, "links"));
    CS_TRY(ctx, cs_grow(ctx, &s->runs, &s->runs_cap, 3 * (size_t)n + 8, sizeof *s->runs, "links"));
    const cs_link_msg **in = s->ord + n, **out = s->ord;
    for (int64_t j = 0; j < s->n_own; j++)
        in[j] = &s->msgs[s->own[j]];
    for (int64_t j = 0; j < nr; j++)
        in[s->n_own + j] = &rv[j];
    /* runs: [b, e) ranges of in[]; the own records are one run */
    int64_t *rb = s->runs, nrun = 0;
    if (s->n_own > 0) {
        rb[2 * nrun] = 0;
        rb[2 * nrun++ + 1] = s->n_own;
    }
    for (int64_t j = s->n_own; j < n; j++) {
        if (j == s->n_own || in[j]->src < in[j - 1]->src) {
            rb[2 * nrun] = j;
            rb[2 * nrun++ + 1] = j + 1;
        } else {
            rb[2 * nrun - 1] = j + 1;
        }
    }
    if (nrun <= 1) {
        memcpy(out, in, (size_t)n * sizeof *out);
    } else if (nrun == 2) {
        /* two runs (2 ranks, or every sender's sources above the other's): a plain merge */
        int64_t a = rb[0], ae = rb[1], b = rb[2], be = rb[3], o = 0;
        while (a < ae && b < be)
            out[o++] = in[b]->src < in[a]->src ? in[b++] : in[a++];
        while (a < ae)
            out[o++] = in[a++];
        while (b < be)
            out[o++] = in[b++];
    } else {
        /* a min-heap of run indexes by the source of their head record */
        int64_t *heap = rb + 2 * nrun, hn = 0;
#define HEAD(r) (in[rb[2 * (r)]]->src)
        for (int64_t r = 0; r < nrun; r++) {
            int64_t i = hn++;
            while (i > 0 && HEAD(heap[(i - 1) / 2]) > HEAD(r)) {
                heap[i] = heap[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            heap[i] = r;
        }
        for (int64_t o = 0; o < n; o++) {
            const int64_t r = heap[0];
            out[o] = in[rb[2 * r]++];
            int64_t e = r;
            if (rb[2 * r] == rb[2 * r + 1])
                e = heap[--hn]; /* the run is done: the last leaf sifts down from the top */
            int64_t i = 0;
            for (;;) {
                int64_t c = 2 * i + 1;
                if (c >= hn)
                    break;
                if (c + 1 < hn && HEAD(heap[c + 1]) < HEAD(heap[c]))
                    c++;
                if (HEAD(heap[c]) >= HEAD(e))
                    break;
                heap[i] = heap[c];
                i = c;
            }
            if (hn > 0)
                heap[i] = e;
        }
#undef HEAD
    }
    s->n_own = 0;
    rc = insert_links(s, out, NULL, NULL, n);
fail:
    return rc;
}

/*
 * Collective. Strict setting: crawl.frontier_capacity over all ranks. When the ranks hold more,
 * the globally lowest keys are evicted (cs_comm_kth_largest), as one frontier would evict them.
 */
static cs_err evict_global(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t C = s->cfg->crawl.frontier_capacity;
    int64_t n = cs_frontier_size(s->fr), tot = 0;
    MPI_Allreduce(&n, &tot, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
    if (tot <= C)
        return CS_OK;
    CS_TRY_AGREE(ctx, cs_grow(ctx, &s->ev_keys, &s->ev_keys_cap, (size_t)n + 1, sizeof *s->ev_keys,
                              "eviction"));
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    for (int64_t i = 0; i < n; i++)
        s->ev_keys[i] = cs_frontier_key(v.q[i], v.id[i]);
    uint64_t cut = 0;
    cs_comm_kth_largest(ctx, s->ev_keys, n, C, &cut);
    s->c[C_EVICTIONS] += cs_frontier_evict_below(s->fr, cut);
fail:
    return rc;
}

/*
 * Collective. crawl.weight_sync = sum, after the tick's learning (before its links are valued):
 * every K ticks the ranks' exact update sums are added up and applied on every rank (the new
 * sync point); on the other ticks each rank applies its own.
 */
static cs_err sum_sync(sim *s, int64_t t)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t K = s->cfg->crawl.sync_every;
    double t0 = cs_now();
    if (K > 0 && t % K == 0) {
        int64_t n = 0;
        void *u = s->ops->updates(s->pol, &n);
        CS_TRY(ctx, cs_comm_sum_fix(ctx, u, n));
        s->ops->sum_apply(s->pol, 1);
    } else {
        s->ops->sum_apply(s->pol, 0);
    }
    s->t[PH_ALLREDUCE] += cs_now() - t0;
fail:
    return rc;
}

/* Collective. The exchange of the outboxes and the insertion of what arrived. */
static cs_err exchange(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_exchange_stats st = {0};
    size_t len = 0;
    double t0 = cs_now();
    CS_TRY(ctx, cs_comm_exchange(ctx, &s->out, &s->recv, &s->recv_cap, &len, &st));
    s->t[PH_WAIT] += st.wait;
    s->t[PH_EXCHANGE] += cs_now() - t0 - st.wait;
    s->c[C_BYTES] += st.bytes_sent;
    s->c[C_MESSAGES] += st.messages_sent;
    double t1 = cs_now();
    if (s->strict)
        rc = insert_merged(s, len);
    else
        rc = insert_links(s, NULL, (const cs_link_msg *)s->recv, NULL,
                          (int64_t)(len / sizeof(cs_link_msg)));
    s->t[PH_INSERT] += cs_now() - t1;
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

/* Moves the selected frontier entries into s->fx (slots removed in decreasing order so that
 * the swap-with-last removal never moves an entry still to be removed). */
static cs_err take_selected(sim *s, int64_t nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->fx, &s->fx_cap, (size_t)nsel + 1, sizeof *s->fx, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->fx_codes, &s->fx_codes_cap, (size_t)(nsel + 1) * (size_t)s->G, 1,
                        "fetches"));
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    for (int64_t i = 0; i < nsel; i++) {
        if (i + 8 < nsel) { /* the entries are at random places */
            const int64_t e8 = s->sel[i + 8];
            __builtin_prefetch(&v.id[e8]);
            __builtin_prefetch(&v.lk[e8]);
            __builtin_prefetch(v.codes + e8 * v.stride);
        }
        int64_t e = s->sel[i];
        fetch *f = &s->fx[i];
        f->page = v.id[e];
        f->li = cs_graph_local_index(s->g, f->page);
        f->pick = i;
        f->par = v.lk[e].par;
        f->has_x = 1;
        memcpy(s->fx_codes + i * s->G, v.codes + e * v.stride, (size_t)s->G);
        BIT_SET(s->visited, f->page);
    }
    /* remove by decreasing slot */
    CS_TRY(ctx, cs_grow(ctx, &s->sort_tmp, &s->sort_tmp_cap, (size_t)nsel + 1, sizeof *s->sort_tmp,
                        "fetches"));
    uint64_t *slots = (uint64_t *)s->sel; /* slots are >= 0 */
    cs_sort_u64(slots, nsel, s->sort_tmp);
    for (int64_t i = nsel - 1; i >= 0; i--)
        cs_frontier_remove(s->fr, (int64_t)slots[i]);
fail:
    return rc;
}

/* Local. rep: keeps in s->fx[0..*n) the fetches of this rank's own pages (every rank selected
 * every pick; each is fetched by its owner), in their order, with their codes. */
static void keep_own_fetches(sim *s, int64_t *n)
{
    const size_t G = (size_t)s->G;
    int64_t m = 0;
    for (int64_t i = 0; i < *n; i++) {
        if (s->fx[i].li < 0)
            continue;
        if (m != i) {
            s->fx[m] = s->fx[i];
            memcpy(s->fx_codes + (size_t)m * G, s->fx_codes + (size_t)i * G, G);
        }
        m++;
    }
    *n = m;
}

/* A fetch as rep_share sends it: its page, pick, relevance and out-link count; its records
 * follow the rank's fetches: n_out link records, then their n_out TRES vectors (padded to 8
 * bytes, so the next records stay aligned). */
typedef struct rep_fetch {
    int64_t page, pick, relevant, n_out;
    int64_t order; /* its place in the tick: the pick's index, or a seed's index in s->seeds */
} rep_fetch;

static size_t rep_block(int64_t n_out, int TD)
{
    const size_t v = ((size_t)n_out * (size_t)TD * sizeof(float) + 7) / 8 * 8;
    return (size_t)n_out * sizeof(cs_link_msg) + v;
}

/*
 * Collective. rep: every rank learns every rank's fetches of this tick (s->fx[0..n) here, with
 * their link records s->msgs and TRES vectors s->tx from fetch_pages) and applies them to its
 * replicated state in one order whatever P, the order of the picks (every rank knows them; the
 * seeds' order at a task's start), then the links: the host counts, the policy's observation
 * (its replay and Tree-Frontier experience), then the records into the frontier and the
 * policy's samples. On 1 rank that is the order of the engine outside the strict setting, so
 * the strict setting on 1 rank crawls as 1 rank always did. One allgather of the sizes and one
 * allgatherv of the bytes.
 */
static cs_err rep_share(sim *s, int64_t n, uint64_t tick)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int P = ctx->size, TD = s->tres_d;
    size_t mine = (size_t)n * sizeof(rep_fetch);
    for (int64_t i = 0; i < n; i++)
        mine += rep_block(s->nout[i], TD);
    rc = cs_grow(ctx, &s->rep_buf, &s->rep_buf_cap, mine + 8, 1, "replicated fetches");
    CS_TRY_AGREE(ctx, rc);
    rep_fetch *hf = (rep_fetch *)s->rep_buf;
    char *rr = s->rep_buf + (size_t)n * sizeof(rep_fetch);
    for (int64_t i = 0; i < n; i++) {
        hf[i].page = s->fx[i].page;
        hf[i].pick = s->fx[i].has_x ? s->fx[i].pick : -1;
        hf[i].relevant = s->pst[i].relevant;
        hf[i].n_out = s->nout[i];
        hf[i].order = hf[i].pick;
        for (int64_t k = 0; hf[i].pick < 0 && k < s->n_seeds; k++)
            if (s->seeds[k] == hf[i].page)
                hf[i].order = k;
        memcpy(rr, &s->msgs[s->base[i]], (size_t)s->nout[i] * sizeof(cs_link_msg));
        if (TD > 0)
            memcpy(rr + (size_t)s->nout[i] * sizeof(cs_link_msg), s->tx + s->base[i] * TD,
                   (size_t)(s->nout[i] * TD) * sizeof(float));
        rr += rep_block(s->nout[i], TD);
    }
    /* sizes: fetches and bytes of every rank */
    int *fcnt = s->rep_counts, *bcnt = s->rep_counts + P, *bdsp = s->rep_displs;
    int my[2] = {n <= INT32_MAX ? (int)n : -1, mine <= INT32_MAX ? (int)mine : -1};
    MPI_Allgather(my, 2, MPI_INT, s->rep_displs + P, 2, MPI_INT, ctx->comm);
    int64_t tot = 0, nf = 0;
    for (int r = 0; r < P; r++) {
        fcnt[r] = s->rep_displs[P + 2 * r];
        bcnt[r] = s->rep_displs[P + 2 * r + 1];
        if (fcnt[r] < 0 || bcnt[r] < 0 || tot + bcnt[r] > INT32_MAX) {
            rc = cs_fail(ctx, CS_ERR_LIMIT, "more than 2 GiB of fetches in one tick");
            break;
        }
        bdsp[r] = (int)tot;
        tot += bcnt[r];
        nf += fcnt[r];
    }
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->rep_all, &s->rep_all_cap, (size_t)tot + 8, 1, "replicated fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->perm, &s->perm_cap, 3 * (size_t)nf + 1, sizeof *s->perm, "fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->sort_tmp, &s->sort_tmp_cap, (size_t)nf + 1, sizeof *s->sort_tmp,
                     "fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->obs, &s->obs_cap, (size_t)nf + 1, sizeof *s->obs, "fetches");
    CS_TRY_AGREE(ctx, rc);
    double t0 = cs_now();
    MPI_Allgatherv(s->rep_buf, my[1], MPI_BYTE, s->rep_all, bcnt, bdsp, MPI_BYTE, ctx->comm);
    s->t[PH_EXCHANGE] += cs_now() - t0;
    double t1 = cs_now();
    /* every fetch: where its header and its records are (byte offsets), then the page order */
    uint64_t *key = (uint64_t *)s->perm;
    int64_t *fo = s->perm + nf, *ro = s->perm + 2 * nf, j = 0, nrec = 0;
    for (int r = 0; r < P; r++) {
        const int64_t b = bdsp[r];
        int64_t at = b + (int64_t)fcnt[r] * (int64_t)sizeof(rep_fetch);
        for (int64_t k = 0; k < fcnt[r]; k++, j++) {
            rep_fetch f;
            memcpy(&f, s->rep_all + b + k * (int64_t)sizeof(rep_fetch), sizeof f);
            fo[j] = b + k * (int64_t)sizeof(rep_fetch);
            ro[j] = at;
            at += (int64_t)rep_block(f.n_out, TD);
            nrec += f.n_out;
            CS_ASSERT(f.order >= 0 && f.order < ((int64_t)1 << 40) && nf < ((int64_t)1 << 24));
            key[j] = (uint64_t)f.order << 24 | (uint64_t)j;
        }
    }
    cs_sort_u64(key, nf, s->sort_tmp);
    CS_TRY_AGREE(ctx,
                 cs_grow(ctx, &s->ord, &s->ord_cap, (size_t)nrec + 1, sizeof *s->ord, "links"));
    int64_t m = 0, o = 0;
    for (int64_t i = 0; i < nf; i++) {
        const int64_t k = (int64_t)(key[i] & 0xffffff);
        const rep_fetch *f = (const rep_fetch *)(s->rep_all + fo[k]);
        const cs_link_msg *recs = (const cs_link_msg *)(s->rep_all + ro[k]);
        const int64_t h = s->host_all[f->page];
        s->host_fetched[h]++;
        s->host_rel[h] += f->relevant != 0;
        for (int64_t l = 0; l < f->n_out; l++)
            s->ord[o++] = &recs[l];
        if (f->pick < 0)
            continue; /* a seed was not chosen by an action */
        cs_discover_fetch *ob = &s->obs[m++];
        memset(ob, 0, sizeof *ob);
        ob->pick = f->pick;
        ob->page = f->page;
        ob->relevant = (int)f->relevant;
        ob->reward = f->relevant ? 1.0 : 0.0;
        ob->n_out = f->n_out;
        ob->out_x = TD > 0 ? (const float *)(recs + f->n_out) : NULL;
    }
    if (s->ops->observe != NULL)
        s->ops->observe(s->pol, s->obs, m, tick);
    double t2 = cs_now();
    s->t[PH_LEARN] += t2 - t1;
    rc = insert_links(s, s->ord, NULL, NULL, o);
    s->t[PH_INSERT] += cs_now() - t2;
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

static int page_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Local. Strict setting: s->fx[0..n) and their codes in page id order, so that the link records
 * come out in (source page, link) order on any rank count (insert_merged). */
static cs_err sort_fetches(sim *s, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const size_t G = (size_t)s->G;
    if (n < 2)
        return CS_OK;
    CS_TRY(ctx,
           cs_grow(ctx, &s->perm, &s->perm_cap, 2 * (size_t)n + 1, sizeof *s->perm, "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->fx_tmp, &s->fx_tmp_cap, (size_t)n + 1, sizeof *s->fx_tmp, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->codes_tmp, &s->codes_tmp_cap, (size_t)n * G + 1, 1, "fetches"));
    int64_t *idx = s->perm;
    if (n < ((int64_t)1 << 24) && cs_graph_n_pages(s->g) < ((int64_t)1 << 40)) {
        /* (page, index) packed into one key: the radix sort */
        uint64_t *k = (uint64_t *)s->perm;
        for (int64_t i = 0; i < n; i++)
            k[i] = (uint64_t)s->fx[i].page << 24 | (uint64_t)i;
        CS_TRY(ctx, cs_grow(ctx, &s->sort_tmp, &s->sort_tmp_cap, (size_t)n + 1, sizeof *s->sort_tmp,
                            "fetches"));
        cs_sort_u64(k, n, s->sort_tmp);
        for (int64_t i = 0; i < n; i++)
            idx[i] = (int64_t)(k[i] & 0xffffff);
    } else {
        for (int64_t i = 0; i < n; i++) {
            idx[2 * i] = s->fx[i].page;
            idx[2 * i + 1] = i;
        }
        qsort(idx, (size_t)n, 2 * sizeof *idx, page_cmp);
        for (int64_t i = 0; i < n; i++)
            idx[i] = idx[2 * i + 1];
    }
    memcpy(s->fx_tmp, s->fx, (size_t)n * sizeof *s->fx);
    memcpy(s->codes_tmp, s->fx_codes, (size_t)n * G);
    for (int64_t i = 0; i < n; i++) {
        s->fx[i] = s->fx_tmp[idx[i]];
        memcpy(s->fx_codes + (size_t)i * G, s->codes_tmp + (size_t)idx[i] * G, G);
    }
fail:
    return rc;
}

/*
 * Collective. Every rank marks the pages fetched in this tick on all ranks (s->fx[0..n) here)
 * visited, so that a fetch skips its out-links to any visited page at the source (fetch_pages)
 * instead of computing, routing and sending records that the owner would drop on arrival. The
 * owner still drops what became visited while a record waited in an outbox (E > 1). One
 * allgather of the counts and one of the page ids (8 bytes per fetch); nothing with 1 rank.
 */
static cs_err share_visited(sim *s, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    if (ctx->size == 1)
        return CS_OK;
    double t0 = cs_now();
    int64_t tot = 0;
    cs_err rc = gather_layout(ctx, n, s->vis_counts, s->vis_displs, &tot, "fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->vis_all, &s->vis_all_cap, (size_t)tot + 1, sizeof *s->vis_all,
                     "visited");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t i = 0; i < n; i++)
        s->vis_all[s->vis_displs[ctx->rank] + i] = s->fx[i].page;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->vis_all, s->vis_counts, s->vis_displs,
                   MPI_INT64_T, ctx->comm);
    for (int64_t i = 0; i < tot; i++)
        BIT_SET(s->visited, s->vis_all[i]);
    if (s->cap_global) /* the other ranks' fetches count towards their hosts' MAX caps */
        for (int64_t i = 0; i < tot; i++)
            if (i < s->vis_displs[ctx->rank] || i >= s->vis_displs[ctx->rank] + n)
                s->host_fetched[s->host_all[s->vis_all[i]]]++;
    s->t[PH_EXCHANGE] += cs_now() - t0;
fail:
    return rc;
}

/* Collective. Sets s->fx to this rank's seed pages (task start). */
static cs_err take_seeds(sim *s, int64_t *n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    *n = 0;
    CS_TRY(ctx, cs_grow(ctx, &s->fx, &s->fx_cap, (size_t)s->n_seeds + 1, sizeof *s->fx, "seeds"));
    CS_TRY(ctx, cs_grow(ctx, &s->fx_codes, &s->fx_codes_cap,
                        (size_t)(s->n_seeds + 1) * (size_t)s->G, 1, "seeds"));
    for (int64_t i = 0; i < s->n_seeds; i++) {
        BIT_SET(s->visited, s->seeds[i]); /* replicated: every rank knows every seed visited */
        int64_t li = cs_graph_local_index(s->g, s->seeds[i]);
        if (li < 0 && s->cap_global)
            s->host_fetched[s->host_all[s->seeds[i]]]++;
        if (li < 0)
            continue;
        fetch *f = &s->fx[(*n)++];
        memset(f, 0, sizeof *f);
        f->pick = -1;
        f->page = s->seeds[i];
        f->li = li;
    }
fail:
    return cs_agree(ctx, rc);
}

typedef struct loop_state {
    int64_t tick; /* global tick counter over all tasks */
    /* where the loop stands at a tick boundary (checkpoints): the task, its next tick, the
     * task's global fetches so far, whether an exchange is forced next tick */
    int64_t task, t_next, fetched_task, force;
    int resume;           /* run_task continues the checkpoint's task instead of starting it */
    int stopped;          /* SIGTERM: a checkpoint was written and the run stops */
    int64_t task_base[2]; /* global fetched, relevant at the task's start */
    cs_progress progress;
    int64_t total_fetched;
    double t_begin;
    double *wall; /* wall time at each record point */
    int64_t wall_cap;
    int64_t *task_v[4]; /* per task: fetched, relevant, relevant hosts, ticks */
} loop_state;

static cs_err record_point(sim *s, loop_state *ls, int64_t task)
{
    cs_err rc = record(s, ls->tick, task, ls->task_base);
    if (rc != CS_OK)
        return rc;
    if (s->s.n > ls->wall_cap) {
        ls->wall_cap = s->s.cap;
        double *w = realloc(ls->wall, (size_t)ls->wall_cap * sizeof *w);
        CS_ASSERT(w != NULL);
        ls->wall = w;
    }
    ls->wall[s->s.n - 1] = cs_now() - ls->t_begin;
    return CS_OK;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

/* SIGUSR1 and SIGTERM are only noted here (async-signal-safe); the tick loop acts on them at the
 * next tick boundary on every rank together (the flags travel in the tick's allreduce). The one
 * piece of global state in the engine: a signal handler has nowhere else to write. */
static volatile sig_atomic_t sig_ckpt, sig_stop;

static void on_signal(int sig)
{
    if (sig == SIGTERM)
        sig_stop = 1;
    else
        sig_ckpt = 1;
}

/* Local. The job's resolved INI text without the keys a restart may change (where checkpoints
 * and results go, progress): a checkpoint continues only the run it was written by. */
static cs_err resumable_ini(sim *s, char **ini)
{
    cs_config c = *s->cfg;
    c.run.checkpoint[0] = '\0';
    c.run.checkpoint_every = 0;
    c.run.output[0] = '\0';
    c.run.progress = 0;
    return cs_config_to_ini(s->ctx, &c, NULL, ini);
}

/* The loop's scalars in run/state. */
enum {
    LS_TASK,
    LS_T_NEXT,
    LS_TICK,
    LS_FETCHED_TASK,
    LS_FORCE,
    LS_TOTAL,
    LS_BASE0,
    LS_BASE1,
    LS_SHARE,
    LS_POL_QEVALS,
    LS_FLOOR,
    LS_SERIES,
    LS_TRACE,
    LS_N
};

/* Collective. Writes run.checkpoint: the loop's position, metrics and series, this rank's
 * crawl state (visited set, hosts, outboxes, frontier), the policy's and the refresh's state. */
static cs_err save_checkpoint(sim *s, loop_state *ls)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_ckpt *ck = NULL;
    char *ini = NULL, *box = NULL;
    char name[96];
    double t0 = cs_now();
    const int64_t H = cs_graph_n_hosts(s->g), T = s->cfg->run.tasks, n = s->s.n;
    CS_TRY_AGREE(ctx, resumable_ini(s, &ini));
    CS_TRY(ctx, cs_ckpt_create(ctx, s->cfg->run.checkpoint, &ck));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/config", CS_CK_BYTES, (int64_t)strlen(ini) + 1, ini));
    int64_t st[LS_N] = {ls->task,
                        ls->t_next,
                        ls->tick,
                        ls->fetched_task,
                        ls->force,
                        ls->total_fetched,
                        ls->task_base[0],
                        ls->task_base[1],
                        s->share,
                        s->pol_qevals,
                        (int64_t)s->floor,
                        n,
                        (int64_t)s->trace_len};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/state", CS_CK_I64, LS_N, st));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/counters", CS_CK_I64, NC, s->c));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/times", CS_CK_F64, NPH, s->t));
    for (int i = 0; i < NS; i++) {
        snprintf(name, sizeof name, "run/series/%s", series_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, n, s->s.v[i]));
    }
    for (int i = 0; i < NPH; i++) {
        snprintf(name, sizeof name, "run/series_time/%s", phase_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F64, n, s->s.t[i]));
    }
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/wall", CS_CK_F64, n, ls->wall));
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "run/tasks/%d", i);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, T, ls->task_v[i]));
    }
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/visited", CS_CK_U64, (cs_graph_n_pages(s->g) + 63) / 64,
                            s->visited));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/rel_host", CS_CK_U64, s->host_words, s->rel_host));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/host_fetched", CS_CK_I32, H, s->host_fetched));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/host_rel", CS_CK_I32, H, s->host_rel));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/trace", CS_CK_I64, (int64_t)s->trace_len, s->trace));
    /* the outboxes (links waiting for the next exchange when E > 1), one after the other */
    {
        int64_t *len = NULL;
        size_t tot = cs_outbox_bytes(&s->out), at = 0;
        rc = cs_alloc(ctx, &len, (size_t)ctx->size, sizeof *len, "checkpoint");
        if (rc == CS_OK)
            rc = cs_alloc(ctx, &box, tot + 1, 1, "checkpoint");
        for (int q = 0; q < ctx->size && rc == CS_OK; q++) {
            len[q] = (int64_t)s->out.len[q];
            if (s->out.len[q] > 0)
                memcpy(box + at, s->out.buf[q], s->out.len[q]);
            at += s->out.len[q];
        }
        rc = cs_agree(ctx, rc);
        if (rc == CS_OK)
            rc = cs_ckpt_put(ctx, ck, "run/outbox/len", CS_CK_I64, ctx->size, len);
        if (rc == CS_OK)
            rc = cs_ckpt_put(ctx, ck, "run/outbox/data", CS_CK_BYTES, (int64_t)tot, box);
        free(len);
        CS_TRY(ctx, rc);
    }
    CS_TRY(ctx, cs_frontier_save(ctx, s->fr, ck));
    if (s->ops->save != NULL)
        CS_TRY(ctx, s->ops->save(s->pol, ctx, ck));
    if (s->rf != NULL)
        CS_TRY(ctx, cs_simrf_save(ctx, s->rf, ck));
    CS_TRY(ctx, cs_ckpt_commit(ctx, &ck));
    CS_LOG(ctx, CS_LOG_INFO, "checkpoint %s written at tick %lld (%.2f s)", s->cfg->run.checkpoint,
           (long long)ls->tick, cs_now() - t0);
fail:
    cs_ckpt_close(ctx, &ck);
    free(ini);
    free(box);
    return rc;
}

/* Local. Grows the series to hold n points (the layout record() appends to). */
static cs_err series_reserve(sim *s, loop_state *ls, int64_t n)
{
    series *se = &s->s;
    int64_t cap = n > 256 ? n : 256;
    for (int i = 0; i < NS + NPH; i++) {
        void **pp = i < NS ? (void **)&se->v[i] : (void **)&se->t[i - NS];
        void *p = realloc(*pp, (size_t)cap * 8);
        if (p == NULL)
            return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the series");
        *pp = p;
    }
    se->cap = cap;
    double *w = realloc(ls->wall, (size_t)cap * sizeof *w);
    if (w == NULL)
        return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the series");
    ls->wall = w;
    ls->wall_cap = cap;
    return CS_OK;
}

/* Collective. Restores what save_checkpoint wrote into the freshly built run s (world,
 * policy and refresh created from the same job); run_task then continues the saved task. */
static cs_err load_checkpoint(sim *s, loop_state *ls, const char *path)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_ckpt *ck = NULL;
    char *ini = NULL, *saved = NULL, *box = NULL;
    int64_t *len = NULL;
    char name[96];
    double t0 = cs_now();
    const int64_t H = cs_graph_n_hosts(s->g), T = s->cfg->run.tasks;
    CS_TRY(ctx, cs_ckpt_open(ctx, path, &ck));
    CS_TRY_AGREE(ctx, resumable_ini(s, &ini));
    int64_t n = 0;
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "run/config", CS_CK_BYTES, &n, &saved));
    if (n < 1 || saved[n - 1] != '\0' || strcmp(saved, ini) != 0)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "checkpoint %s was written by another job: restart with the same job file "
                     "and --set options (only run.checkpoint, run.checkpoint_every, run.output "
                     "and run.progress may change)",
                     path);
    CS_TRY_AGREE(ctx, rc);
    int64_t st[LS_N];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/state", CS_CK_I64, LS_N, st));
    ls->task = st[LS_TASK];
    ls->t_next = st[LS_T_NEXT];
    ls->tick = st[LS_TICK];
    ls->fetched_task = st[LS_FETCHED_TASK];
    ls->force = st[LS_FORCE];
    ls->total_fetched = st[LS_TOTAL];
    ls->task_base[0] = st[LS_BASE0];
    ls->task_base[1] = st[LS_BASE1];
    s->share = st[LS_SHARE];
    s->pol_qevals = st[LS_POL_QEVALS];
    s->floor = (uint64_t)st[LS_FLOOR];
    if (ls->task < 0 || ls->task >= T || st[LS_SERIES] < 0 || st[LS_TRACE] < 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: run/state out of range", path);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, series_reserve(s, ls, st[LS_SERIES]));
    s->s.n = st[LS_SERIES];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/counters", CS_CK_I64, NC, s->c));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/times", CS_CK_F64, NPH, s->t));
    for (int i = 0; i < NS; i++) {
        snprintf(name, sizeof name, "run/series/%s", series_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, s->s.n, s->s.v[i]));
    }
    for (int i = 0; i < NPH; i++) {
        snprintf(name, sizeof name, "run/series_time/%s", phase_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F64, s->s.n, s->s.t[i]));
    }
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/wall", CS_CK_F64, s->s.n, ls->wall));
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "run/tasks/%d", i);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, T, ls->task_v[i]));
    }
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/visited", CS_CK_U64,
                                  (cs_graph_n_pages(s->g) + 63) / 64, s->visited));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/rel_host", CS_CK_U64, s->host_words, s->rel_host));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/host_fetched", CS_CK_I32, H, s->host_fetched));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/host_rel", CS_CK_I32, H, s->host_rel));
    free(s->trace);
    s->trace = NULL;
    n = 0;
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "run/trace", CS_CK_I64, &n, &s->trace));
    s->trace_len = (size_t)n;
    s->trace_cap = (size_t)n + 1;
    CS_TRY(ctx, cs_alloc(ctx, &len, (size_t)ctx->size, sizeof *len, "checkpoint"));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/outbox/len", CS_CK_I64, ctx->size, len));
    n = 0;
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "run/outbox/data", CS_CK_BYTES, &n, &box));
    cs_outbox_clear(&s->out);
    {
        int64_t at = 0;
        for (int q = 0; q < ctx->size && rc == CS_OK; q++) {
            if (len[q] < 0 || at + len[q] > n)
                rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: bad outbox lengths", path);
            else if (len[q] > 0)
                rc = cs_outbox_put(ctx, &s->out, q, box + at, (size_t)len[q]);
            at += len[q];
        }
        CS_TRY_AGREE(ctx, rc);
    }
    cs_frontier_clear(s->fr);
    CS_TRY(ctx, cs_frontier_load(ctx, s->fr, ck));
    if (s->ops->load != NULL)
        CS_TRY(ctx, s->ops->load(s->pol, ctx, ck));
    if (s->rf != NULL)
        CS_TRY(ctx, cs_simrf_load(ctx, s->rf, ck));
    ls->resume = 1;
    CS_LOG(ctx, CS_LOG_INFO, "restarting from checkpoint %s: task %lld, tick %lld (%.2f s)", path,
           (long long)ls->task, (long long)ls->tick, cs_now() - t0);
fail:
    cs_ckpt_close(ctx, &ck);
    free(ini);
    free(saved);
    free(box);
    free(len);
    return rc;
}

/* Collective. One task: seeds, then ticks until the page limit, the tick limit or an empty
 * frontier everywhere. */
static cs_err run_task(sim *s, loop_state *ls, int64_t task)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_run_config *rn = &s->cfg->run;
    const cs_crawl_config *cc = &s->cfg->crawl;
    const int64_t E = cc->exchange_every, K = cc->sync_every;
    const int64_t R = rn->record_every ? rn->record_every : K ? K : 10;
    const int64_t rebalance = cc->rebalance_every ? cc->rebalance_every : K ? K : 1;
    const int64_t CE = rn->checkpoint[0] != '\0' ? rn->checkpoint_every : 0;
    int64_t fetched_task = 0, force = 0, t = 0;
    if (ls->resume) {
        /* the checkpoint restored this task's state (load_checkpoint) */
        ls->resume = 0;
        t = ls->t_next;
        fetched_task = ls->fetched_task;
        force = ls->force;
        goto loop;
    }
    cs_frontier_clear(s->fr);
    memset(s->visited, 0, (size_t)((cs_graph_n_pages(s->g) + 63) / 64) * 8);
    memset(s->rel_host, 0, (size_t)s->host_words * 8);
    cs_outbox_clear(&s->out);
    memset(s->host_fetched, 0, (size_t)cs_graph_n_hosts(s->g) * 4);
    memset(s->host_rel, 0, (size_t)cs_graph_n_hosts(s->g) * 4);
    s->cap_now = cap_at(s, 0);
    if (s->ops->begin_task != NULL)
        CS_TRY_AGREE(ctx, s->ops->begin_task(s->pol, ctx, task));
    {
        int64_t tot[NC], hosts;
        global_counts(s, tot, &hosts);
        ls->task_base[0] = tot[C_FETCHED];
        ls->task_base[1] = tot[C_RELEVANT];
    }
    s->share = cs_comm_split_fixed(cc->bandwidth, ctx->rank, ctx->size);
loop:
    for (;; t++, ls->tick++) {
        int64_t nsel = 0, n_refresh = 0;
        double t0 = cs_now();
        if (s->rf != NULL) {
            /* one budget: the re-crawls due by this tick's time first, discovery the rest */
            const cs_recrawl_crawl *cr = NULL;
            int64_t ncr = 0;
            CS_TRY(ctx, cs_simrf_step(ctx, s->rf, ls->tick, &cr, &ncr, &n_refresh));
            CS_TRY(ctx, refresh_quota(s, cr, ncr));
            cs_simrf_excess(s->rf, n_refresh > cc->bandwidth ? n_refresh - cc->bandwidth : 0);
        }
        if (t == 0) {
            CS_TRY(ctx, take_seeds(s, &nsel));
            polite_check(s, ls->tick);
            if (s->strict && !s->rep) /* rep: rep_share orders every rank's fetches */
                CS_TRY_AGREE(ctx, sort_fetches(s, nsel));
        } else {
            cs_frontier_view v;
            if (s->ops->stale(s->pol)) {
                cs_frontier_view_get(s->fr, &v);
                s->ops->evaluate_all(s->pol, &v);
                s->c[C_QEVALS] += v.n;
            }
            double t1 = cs_now();
            s->t[PH_EVALUATE] += t1 - t0;
            if (cc->budget == CS_BUDGET_PROPORTIONAL && (t - 1) % rebalance == 0)
                s->share = cs_comm_split(ctx, cc->bandwidth, cs_frontier_size(s->fr));
            int64_t Bt = cc->bandwidth - n_refresh;
            if (Bt < 0)
                Bt = 0;
            if (rn->pages > 0 && rn->pages - fetched_task < Bt)
                Bt = rn->pages - fetched_task;
            s->cap_now = cap_at(s, fetched_task);
            CS_TRY(ctx, select_tick(s, ls->tick, ls->total_fetched, Bt, &nsel));
            rc = take_selected(s, nsel);
            if (rc == CS_OK && s->rep)
                keep_own_fetches(s, &nsel); /* every rank knows every pick visited already */
            if (rc == CS_OK && s->strict && !s->rep)
                rc = sort_fetches(s, nsel);
            CS_TRY_AGREE(ctx, rc);
            s->t[PH_SELECT] += cs_now() - t1;
            if (!s->rep)
                CS_TRY(ctx, share_visited(s, nsel));
        }
        CS_TRY_AGREE(ctx, fetch_pages(s, nsel, (uint64_t)ls->tick));
        if (s->sum)
            CS_TRY(ctx, sum_sync(s, t));
        if (s->rep)
            CS_TRY(ctx, rep_share(s, nsel, (uint64_t)ls->tick));
        else if (!s->strict) /* strict: inserted with the received records, in one order */
            rc = insert_own(s);
        for (int64_t i = 0; s->rf != NULL && i < nsel && rc == CS_OK; i++)
            rc = cs_simrf_fetched(s->rf, s->fx[i].li, ls->tick);
        CS_TRY_AGREE(ctx, rc);
        if (!s->rep && (t % E == 0 || force))
            CS_TRY(ctx, exchange(s));
        if (s->strict && !s->rep) {
            CS_TRY(ctx, evict_global(s));
        } else {
            const int64_t ev = cs_frontier_evict(s->fr); /* rep: the replicated frontier */
            s->c[C_EVICTIONS] += s->rep && ctx->rank != 0 ? 0 : ev;
        }
        if (s->ops->counters != NULL) {
            int64_t lv = 0, qe = 0;
            s->ops->counters(s->pol, &lv, &qe);
            const int once = !s->rep || ctx->rank == 0; /* rep: the one policy's, counted once */
            s->c[C_QEVALS] += once ? qe - s->pol_qevals : 0;
            s->pol_qevals = qe;
            s->c[C_LEAVES] = once ? lv : 0;
        }

        double t2 = cs_now();
        if (K > 0 && t % K == 0 && s->ops->weights != NULL && !s->sum && !s->rep) {
            int64_t nw = 0;
            double *w = s->ops->weights(s->pol, &nw);
            CS_TRY(ctx, cs_comm_average(ctx, w, nw, &s->avg_scratch, &s->avg_cap));
            s->ops->synced(s->pol);
        }
        /* the signals noted since the last tick boundary travel with the tick's counts */
        const int64_t sig_c = sig_ckpt, sig_s = sig_stop;
        if (sig_c)
            sig_ckpt = 0;
        int64_t loc[5] = {nsel, cs_frontier_size(s->fr),
                          (int64_t)(cs_outbox_bytes(&s->out) / sizeof(cs_link_msg)), sig_c, sig_s};
        int64_t glob[5];
        MPI_Allreduce(loc, glob, 5, MPI_INT64_T, MPI_SUM, ctx->comm);
        s->t[PH_ALLREDUCE] += cs_now() - t2;
        fetched_task += glob[0];
        ls->total_fetched += glob[0];
        cs_progress_update(&ls->progress, (uint64_t)ls->total_fetched);
        force = glob[1] == 0 && glob[2] > 0;
        if (s->rf != NULL) {
            /* the discovery counts of the adaptive split: over the run, identical everywhere */
            int64_t tot[NC] = {0}, hosts = 0;
            if (ls->tick % s->cfg->refresh.sync_every == 0)
                global_counts(s, tot, &hosts);
            CS_TRY(ctx, cs_simrf_sync(ctx, s->rf, ls->tick, tot[C_FETCHED], tot[C_RELEVANT]));
        }
        /* with refresh on, an empty frontier does not end a task: the cache still needs it */
        const int done = (rn->pages > 0 && fetched_task >= rn->pages) ||
                         (glob[1] == 0 && glob[2] == 0 && s->rf == NULL) || t + 1 >= rn->ticks;
        if (done || (t + 1) % R == 0)
            CS_TRY(ctx, record_point(s, ls, task));
        if (done)
            break;
        if ((CE > 0 && (ls->tick + 1) % CE == 0) || glob[3] > 0 || glob[4] > 0) {
            /* a tick boundary: the next tick is (task, t + 1), global tick + 1 */
            ls->task = task;
            ls->t_next = t + 1;
            ls->fetched_task = fetched_task;
            ls->force = force;
            ls->tick++;
            rc = save_checkpoint(s, ls);
            ls->tick--;
            CS_TRY(ctx, rc);
            if (glob[4] > 0) {
                ls->stopped = 1;
                goto fail;
            }
        }
    }
    {
        int64_t tot[NC], hosts;
        global_counts(s, tot, &hosts);
        ls->task_v[0][task] = tot[C_FETCHED] - ls->task_base[0];
        ls->task_v[1][task] = tot[C_RELEVANT] - ls->task_base[1];
        ls->task_v[2][task] = hosts;
        ls->task_v[3][task] = ls->tick;
    }
    ls->tick++;
fail:
    return rc;
}

/* ---- set-up, results, tear-down ------------------------------------------------------------ */

/* Collective. rep: s->host_all, the host of every page (4 bytes a page on every rank), from each
 * rank's own pages. */
static cs_err host_map(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t N = cs_graph_n_pages(s->g), nl = cs_graph_n_local(s->g);
    const int64_t *ids = cs_graph_local_ids(s->g), *host = cs_graph_host(s->g);
    int32_t *mine = NULL;
    rc = cs_calloc(ctx, &s->host_all, (size_t)N + 1, sizeof *s->host_all, "host map");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &mine, (size_t)N + 1, sizeof *mine, "host map");
    if (rc == CS_OK && N > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "the strict setting of run.policy = %s keeps every "
                     "page's host on every rank: at most 2^31 - 1 pages",
                     s->ops->name);
    CS_TRY_AGREE(ctx, rc);
    /* each page's host + 1 on its owner, 0 elsewhere: a sum over ranks */
    for (int64_t i = 0; i < nl; i++)
        mine[ids[i]] = (int32_t)(host[i] + 1);
    MPI_Allreduce(mine, s->host_all, (int)N, MPI_INT32_T, MPI_SUM, ctx->comm);
    for (int64_t p = 0; p < N; p++)
        s->host_all[p]--;
fail:
    free(mine);
    return rc;
}

/*
 * Collective. crawl.weight_sync and the strict setting (docs/guide/synchronisation.md): sets
 * s->sum and s->strict, or fails with a clear error when the job asks for what the policy
 * cannot honour. The strict setting is budget = global, exchange_every = 1, and for a learner
 * weight_sync = sum with sync_every = 1. It is exact for the value-based policies (random,
 * best-first, sarsa); the selecting policies (tres, tres-async, tree-random: a Tree-Frontier
 * or heap per rank, Adam per rank) are not rank-invariant yet, so under sum on more than one
 * rank they are refused rather than run with results that depend on P.
 */
/* The largest alpha x B at which a SARSA tick under weight_sync = sum learned as the online loop
 * does (measured: docs/guide/synchronisation.md; sarsa.alpha = auto stays at a tenth of it). */
#define SUM_STEP_MAX 0.1

static cs_err strict_setting(sim *s)
{
    cs_ctx *ctx = s->ctx;
    const cs_crawl_config *cc = &s->cfg->crawl;
    const int learner = s->ops->weights != NULL, wsum = cc->weight_sync == CS_WSYNC_SUM;
    const int global1 = cc->budget == CS_BUDGET_GLOBAL && cc->exchange_every == 1;
    s->sum = wsum && learner && s->ops->sum_begin != NULL;
    /* Under sum a SARSA tick applies its B updates together, all computed from the weights at
     * the tick's start: the tick's step is about alpha x B. Measured on the quickstart world
     * (docs/guide/synchronisation.md), alpha x B = 0.1 learns as the online loop does, 0.3
     * loses a third of the harvest and 1 collapses below random. */
    const double step = cs_sarsa_alpha(s->cfg) * (double)cc->bandwidth;
    if (s->sum && strcmp(s->ops->name, "sarsa") == 0 && step > SUM_STEP_MAX)
        CS_LOG(ctx, CS_LOG_WARN,
               "sarsa.alpha x crawl.bandwidth = %g under crawl.weight_sync = sum: a tick's %lld "
               "updates come from the same weights and are applied together, so its step is "
               "about %g; above %g the learner degrades and near 1 it collapses. Set "
               "sarsa.alpha <= %g for this bandwidth, or auto (docs/guide/synchronisation.md)",
               step, (long long)cc->bandwidth, step, SUM_STEP_MAX,
               SUM_STEP_MAX / (double)cc->bandwidth);
    if (s->ops->select == NULL) {
        s->strict = global1 && (!learner || (s->sum && cc->sync_every == 1));
    } else {
        /* the selecting policies: one logical policy on replicated state (rep_share) */
        s->strict = s->rep = global1 && wsum && cc->sync_every == 1;
        if (wsum && ctx->size > 1 && !s->rep)
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "run.policy = %s with crawl.weight_sync = sum (the default: one "
                           "learner) on %d ranks needs crawl.budget = global, exchange_every = "
                           "1 and sync_every = 1 (the strict setting: every rank runs the one "
                           "policy on replicated state); with other settings set "
                           "crawl.weight_sync = average (the ranks' networks averaged every "
                           "sync_every ticks)",
                           s->ops->name, ctx->size);
    }
    return CS_OK;
}

static void sim_free(sim *s)
{
    cs_simrf_destroy(&s->rf);
    if (s->pol != NULL)
        s->ops->destroy(s->pol);
    cs_frontier_destroy(&s->fr);
    cs_evidence_destroy(&s->ev);
    cs_graph_destroy(&s->g);
    cs_gen_destroy(&s->gen);
    cs_outbox_fini(&s->out);
    free(s->visited);
    free(s->vis_all);
    free(s->vis_counts);
    free(s->vis_displs);
    free(s->perm);
    free(s->host_all);
    free(s->rep_buf);
    free(s->rep_all);
    free(s->rep_counts);
    free(s->rep_displs);
    free(s->fx_tmp);
    free(s->codes_tmp);
    free(s->ord);
    free(s->runs);
    free(s->ev_keys);
    free(s->sp);
    free(s->sp_all);
    free(s->sp_counts);
    free(s->sp_displs);
    free(s->sp_before);
    free(s->rel_host);
    free(s->rel_host_all);
    free(s->host_k);
    free(s->host_idx);
    free(s->host_used);
    free(s->touched);
    free(s->host_mark);
    free(s->host_fetched);
    free(s->host_rel);
    free(s->tx);
    free(s->taken);
    free(s->cands);
    free(s->sel);
    free(s->sort_tmp);
    free(s->fx);
    free(s->fx_codes);
    free(s->pst);
    free(s->reward);
    free(s->base);
    free(s->nout);
    free(s->own);
    free(s->acc);
    free(s->ridx);
    free(s->route);
    free(s->route_bytes);
    free(s->msgs);
    free(s->acts);
    free(s->obs);
    free(s->recv);
    free(s->avg_scratch);
    free(s->seeds);
    free(s->trace);
    for (int i = 0; i < NS; i++)
        free(s->s.v[i]);
    for (int i = 0; i < NPH; i++)
        free(s->s.t[i]);
}

static int pair_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Collective. run.trace: every rank's (tick, page) pairs gathered on rank 0, sorted, as
 * /trace/tick and /trace/page: the same datasets for any rank count when the crawl is. */
static cs_err write_trace(sim *s, cs_results *r)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    if (!s->cfg->run.trace)
        return CS_OK;
    int *cnt = NULL, *dsp = NULL;
    int64_t *all = NULL, *col = NULL;
    int mine = (int)s->trace_len;
    rc = cs_alloc(ctx, &cnt, (size_t)ctx->size * 2, sizeof *cnt, "trace");
    CS_TRY_AGREE(ctx, rc);
    dsp = cnt + ctx->size;
    MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, ctx->comm);
    int64_t tot = 0;
    if (ctx->rank == 0)
        for (int q = 0; q < ctx->size; q++) {
            dsp[q] = (int)tot;
            tot += cnt[q];
        }
    if (tot > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "run.trace: too many fetches to gather");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &all, (size_t)tot + 2, sizeof *all, "trace");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &col, (size_t)tot / 2 + 1, sizeof *col, "trace");
    CS_TRY_AGREE(ctx, rc);
    MPI_Gatherv(s->trace, mine, MPI_INT64_T, all, cnt, dsp, MPI_INT64_T, 0, ctx->comm);
    const int64_t n = tot / 2;
    if (ctx->rank == 0)
        qsort(all, (size_t)n, 2 * sizeof *all, pair_cmp);
    for (int c = 0; c < 2 && rc == CS_OK; c++) {
        for (int64_t i = 0; i < n; i++)
            col[i] = all[2 * i + c];
        rc = cs_results_add(ctx, r, c == 0 ? "trace/tick" : "trace/page", CS_RES_I64, n, 0, col);
    }
    rc = cs_agree(ctx, rc);
fail:
    free(cnt);
    free(all);
    free(col);
    return rc;
}

/* Collective. The results file (graphio.h "Results file format"). */
static cs_err write_results(sim *s, loop_state *ls, const char *output, cs_sim_summary *sum)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_results *r = NULL;
    char *ini = NULL;
    char path[128];
    const int64_t n = s->s.n, T = s->cfg->run.tasks;
    CS_TRY_AGREE(ctx, cs_results_create(ctx, &r));
    rc = cs_config_to_ini(ctx, s->cfg, NULL, &ini);
    if (rc == CS_OK)
        rc = cs_results_add_text(ctx, r, "config", ini);
    if (rc == CS_OK)
        rc = cs_results_attr(ctx, r, "/", "policy", s->ops->name);
    if (rc == CS_OK)
        rc = cs_results_attr(ctx, r, "/", "strict", s->strict ? "yes" : "no");
    for (int i = 0; i < NS && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "series/%s", series_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_I64, n, 0, s->s.v[i]);
    }
    /* harvest rate = relevant / fetched at each point */
    double *hr = calloc((size_t)(n > T ? n : T) + 1, sizeof *hr);
    CS_ASSERT(hr != NULL);
    for (int64_t i = 0; i < n; i++)
        hr[i] = s->s.v[C_FETCHED][i] > 0
                    ? (double)s->s.v[C_RELEVANT][i] / (double)s->s.v[C_FETCHED][i]
                    : 0.0;
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "series/harvest_rate", CS_RES_F64, n, 0, hr);
    static const char *const task_name[4] = {"fetched", "relevant", "relevant_hosts", "end_tick"};
    for (int i = 0; i < 4 && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "tasks/%s", task_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_I64, T, 0, ls->task_v[i]);
    }
    for (int64_t i = 0; i < T; i++)
        hr[i] = ls->task_v[0][i] > 0 ? (double)ls->task_v[1][i] / (double)ls->task_v[0][i] : 0.0;
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "tasks/harvest_rate", CS_RES_F64, T, 0, hr);
    for (int i = 0; i < NPH && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "timing/series/%s", phase_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_F64, n, 0, s->s.t[i]);
    }
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "timing/series/wall", CS_RES_F64, n, 0, ls->wall);
    free(hr);
    int64_t nw = 0;
    double *w = s->ops->weights != NULL ? s->ops->weights(s->pol, &nw) : NULL;
    if (rc == CS_OK && w != NULL)
        rc = cs_results_add(ctx, r, "final/weights", CS_RES_F64, nw, 0, w);
    if (rc == CS_OK) {
        int64_t fin[4] = {sum->fetched, sum->relevant, sum->relevant_hosts, sum->ticks};
        static const char *const fin_name[4] = {"fetched", "relevant", "relevant_hosts", "ticks"};
        for (int i = 0; i < 4 && rc == CS_OK; i++) {
            snprintf(path, sizeof path, "final/%s", fin_name[i]);
            rc = cs_results_add(ctx, r, path, CS_RES_I64, 1, 0, &fin[i]);
        }
        if (rc == CS_OK)
            rc = cs_results_add(ctx, r, "final/harvest_rate", CS_RES_F64, 1, 0, &sum->harvest_rate);
        if (rc == CS_OK)
            rc = cs_results_add(ctx, r, "final/politeness_violations", CS_RES_I64, 1, 0,
                                &sum->politeness_violations);
        if (rc == CS_OK)
            rc = cs_results_add(ctx, r, "timing/seconds", CS_RES_F64, 1, 0, &sum->seconds);
        if (rc == CS_OK)
            rc = cs_results_add(ctx, r, "timing/fetch_rate", CS_RES_F64, 1, 0, &sum->fetch_rate);
    }
    rc = cs_agree(ctx, rc);
    /* per-rank tables */
    s->c[C_FRONTIER] = cs_frontier_size(s->fr);
    int64_t pages = cs_graph_n_local(s->g);
    if (rc == CS_OK)
        rc = cs_results_gather(ctx, r, "ranks/pages", CS_RES_I64, 1, &pages);
    for (int i = 0; i < NC && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "ranks/%s", series_name[i]);
        rc = cs_results_gather(ctx, r, path, CS_RES_I64, 1, &s->c[i]);
    }
    for (int i = 0; i < NPH && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "timing/ranks/%s", phase_name[i]);
        rc = cs_results_gather(ctx, r, path, CS_RES_F64, 1, &s->t[i]);
    }
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, write_trace(s, r));
    if (s->rf != NULL)
        CS_TRY_AGREE(ctx, cs_simrf_results(ctx, s->rf, r));
    /* do all ranks hold bit-identical weights at the end? (they do right after averaging) */
    {
        uint64_t h = 0x9e3779b97f4a7c15u;
        const unsigned char *b = (const unsigned char *)w;
        for (size_t i = 0; w != NULL && i < (size_t)nw * sizeof *w; i++)
            h = cs_mix64(h ^ b[i]);
        uint64_t hmin = 0, hmax = 0;
        MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, ctx->comm);
        MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, ctx->comm);
        int64_t same = hmin == hmax;
        CS_TRY_AGREE(ctx,
                     cs_results_add(ctx, r, "final/weights_identical", CS_RES_I64, 1, 0, &same));
    }
    CS_TRY(ctx, cs_results_write(ctx, r, output));
fail:
    free(ini);
    cs_results_destroy(&r);
    return rc;
}

cs_err cs_sim_run(cs_ctx *ctx, const cs_config *cfg, const char *output, const char *restart,
                  cs_sim_summary *out)
{
    cs_err rc = CS_OK;
    sim S;
    memset(&S, 0, sizeof S);
    sim *s = &S;
    loop_state ls;
    memset(&ls, 0, sizeof ls);
    cs_sim_summary sum;
    memset(&sum, 0, sizeof sum);
    s->ctx = ctx;
    s->cfg = cfg;
    s->world = *cfg;
    double t_setup = cs_now();
    /* with a checkpoint file, SIGUSR1 and SIGTERM ask for a checkpoint at the next tick
     * boundary (SIGTERM then stops the run), also when they arrive during the set-up; without
     * one they keep their default action */
    struct sigaction sa, old_usr1, old_term;
    const int handlers = cfg->run.checkpoint[0] != '\0';
    if (handlers) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sig_ckpt = sig_stop = 0;
        sigaction(SIGUSR1, &sa, &old_usr1);
        sigaction(SIGTERM, &sa, &old_term);
    }

    int npol = 0;
    const cs_discover_ops *const *reg = cs_discover_list(&npol);
    CS_ASSERT(cfg->run.policy >= 0 && cfg->run.policy < npol);
    s->ops = reg[cfg->run.policy]; /* the registry's order is the run.policy choices' */
    CS_ASSERT(cs_tres_max_parse(cfg->tres.max_per_host, &s->max_cap));
    s->tres_d = s->ops->tres_features ? cs_tres_dim(cfg->tres.host_features) : 0;
    s->host_features = cfg->tres.host_features;
    CS_TRY_AGREE(ctx, strict_setting(s));
    CS_TRY(ctx, build_world(s));
    cs_feat_layout_init(&s->L, &cfg->sarsa);
    s->G = s->L.n_groups;
    s->GA = s->L.n_groups - s->L.n_state_groups;
    CS_TRY(ctx, cs_evidence_create(ctx, s->g, s->gen, &s->world, &s->L, &s->ev));
    CS_TRY(ctx, build_hosts(s));
    CS_TRY(ctx, choose_seeds(s));
    CS_TRY_AGREE(ctx, s->ops->create(ctx, cfg, &s->L, &s->pol));
    if (s->sum)
        s->ops->sum_begin(s->pol);
    for (int64_t h = 0; h < cs_graph_n_hosts(s->g); h++)
        s->any_split |= s->host_k[h] > 1; /* host_k is global: the same on every rank */
    s->cap_global = s->strict && !s->rep && s->any_split && s->max_cap != CS_TRES_MAX_INF;
    CS_TRY(ctx, cs_simrf_create(ctx, &s->world, s->g, &s->rf));
    if (rc == CS_OK)
        rc = cs_frontier_create(ctx, cfg->crawl.frontier_capacity, s->G, &s->fr);
    if (rc == CS_OK)
        rc = cs_outbox_init(ctx, &s->out, ctx->size);
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->route_bytes, (size_t)ctx->size, sizeof *s->route_bytes, "routing");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->vis_counts, (size_t)ctx->size, sizeof *s->vis_counts, "visited");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->vis_displs, (size_t)ctx->size, sizeof *s->vis_displs, "visited");
    if (rc == CS_OK)
        rc =
            cs_calloc(ctx, &s->rep_counts, 2 * (size_t)ctx->size, sizeof *s->rep_counts, "fetches");
    if (rc == CS_OK)
        rc =
            cs_calloc(ctx, &s->rep_displs, 3 * (size_t)ctx->size, sizeof *s->rep_displs, "fetches");
    if (rc == CS_OK && (s->rep || s->cap_global))
        rc = host_map(s);
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->sp_counts, (size_t)ctx->size, sizeof *s->sp_counts, "hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->sp_displs, (size_t)ctx->size, sizeof *s->sp_displs, "hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->sp_before, (size_t)cs_graph_n_hosts(s->g) + 1, sizeof *s->sp_before,
                       "hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->visited, (size_t)(cs_graph_n_pages(s->g) + 63) / 64 + 1, 8,
                       "visited set");
    for (int i = 0; i < 4 && rc == CS_OK; i++)
        rc = cs_calloc(ctx, &ls.task_v[i], (size_t)cfg->run.tasks + 1, 8, "task results");
    CS_TRY_AGREE(ctx, rc);
    t_setup = cs_now() - t_setup;
    char step[64] = "";
    if (strcmp(s->ops->name, "sarsa") == 0)
        snprintf(step, sizeof step, ", alpha = %g%s", cs_sarsa_alpha(cfg),
                 strcmp(cfg->sarsa.alpha, "auto") == 0 ? " (auto)" : "");
    CS_LOG(ctx, CS_LOG_INFO,
           "crawl: %lld pages, %lld links, %lld hosts on %d ranks (set-up %.2f s); policy %s%s, "
           "B = %lld fetches/tick, budget %s, E = %lld, K = %lld (%s), %lld seed pages%s",
           (long long)cs_graph_n_pages(s->g), (long long)cs_graph_n_links(s->g),
           (long long)cs_graph_n_hosts(s->g), ctx->size, t_setup, s->ops->name, step,
           (long long)cfg->crawl.bandwidth,
           cfg->crawl.budget == CS_BUDGET_GLOBAL         ? "global"
           : cfg->crawl.budget == CS_BUDGET_PROPORTIONAL ? "proportional"
                                                         : "fixed",
           (long long)cfg->crawl.exchange_every, (long long)cfg->crawl.sync_every,
           cfg->crawl.weight_sync == CS_WSYNC_SUM ? "sum" : "average", (long long)s->n_seeds,
           s->strict ? "; strict: rank-invariant" : "");

    if (restart != NULL)
        CS_TRY(ctx, load_checkpoint(s, &ls, restart));
    uint64_t total = cfg->run.pages > 0 ? (uint64_t)(cfg->run.pages * cfg->run.tasks) : 0;
    cs_progress_begin(&ls.progress, ctx, "crawl (fetches)", total);
    ls.t_begin = cs_now() - (ls.resume && s->s.n > 0 ? ls.wall[s->s.n - 1] : 0.0);
    for (int64_t task = ls.resume ? ls.task : 0; task < cfg->run.tasks && rc == CS_OK; task++) {
        rc = run_task(s, &ls, task);
        if (ls.stopped)
            break;
    }
    cs_progress_end(&ls.progress);
    CS_TRY(ctx, rc);
    if (ls.stopped) {
        CS_LOG(ctx, CS_LOG_WARN,
               "stopped by SIGTERM after tick %lld; checkpoint %s continues with tick %lld: "
               "crawlsim run --restart %s",
               (long long)ls.tick, cfg->run.checkpoint, (long long)ls.tick + 1,
               cfg->run.checkpoint);
        sum.stopped = 1;
        if (out != NULL)
            *out = sum;
        goto fail;
    }
    if (s->rf != NULL)
        CS_TRY(ctx, cs_simrf_finish(ctx, s->rf, ls.tick - 1));
    sum.seconds = cs_now() - ls.t_begin;

    int64_t tot[NC], hosts;
    global_counts(s, tot, &hosts);
    sum.fetched = tot[C_FETCHED];
    sum.relevant = tot[C_RELEVANT];
    sum.relevant_hosts = ls.task_v[2][cfg->run.tasks - 1];
    sum.ticks = ls.tick;
    sum.harvest_rate = sum.fetched > 0 ? (double)sum.relevant / (double)sum.fetched : 0.0;
    sum.politeness_violations = tot[C_POLITE];
    /* steady rate: over the second half of the loop's wall time (warm-up excluded) */
    {
        double tw = 0.0;
        int64_t cum = 0, cum0 = 0;
        double w_end = s->s.n ? ls.wall[s->s.n - 1] : 0.0;
        /* series fetched restart per task: accumulate across tasks */
        int64_t prev = 0;
        for (int64_t i = 0; i < s->s.n; i++) {
            int64_t f = s->s.v[C_FETCHED][i];
            if (i > 0 && s->s.v[S_TASK][i] != s->s.v[S_TASK][i - 1])
                prev = 0;
            cum += f - prev;
            prev = f;
            if (ls.wall[i] <= w_end / 2) {
                cum0 = cum;
                tw = ls.wall[i];
            }
        }
        sum.fetch_rate = w_end > tw ? (double)(cum - cum0) / (w_end - tw) : 0.0;
        /* the allreduced wall clocks differ per rank: use rank 0's, identical everywhere */
        MPI_Bcast(&sum.fetch_rate, 1, MPI_DOUBLE, 0, ctx->comm);
        MPI_Bcast(&sum.seconds, 1, MPI_DOUBLE, 0, ctx->comm);
    }
    CS_TRY(ctx, write_results(s, &ls, output, &sum));
    if (ctx->rank == 0 && ctx->level >= CS_LOG_WARN) {
        printf("crawl: %s on %d ranks, %lld ticks, %.2f s\n", s->ops->name, ctx->size,
               (long long)sum.ticks, sum.seconds);
        printf("  fetched %lld, relevant %lld (harvest rate %.4f), relevant hosts %lld\n",
               (long long)sum.fetched, (long long)sum.relevant, sum.harvest_rate,
               (long long)sum.relevant_hosts);
        printf("  %.3g fetches/s (second half of the run), politeness violations %lld\n",
               sum.fetch_rate, (long long)sum.politeness_violations);
        if (s->rf != NULL)
            cs_simrf_summary(s->rf);
        printf("  results: %s\n", output);
        fflush(stdout);
    }
    if (out != NULL)
        *out = sum;
fail:
    if (handlers) {
        sigaction(SIGUSR1, &old_usr1, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    free(ls.wall);
    for (int i = 0; i < 4; i++)
        free(ls.task_v[i]);
    sim_free(s);
    return rc;
}
