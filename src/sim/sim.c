/*
 * sim: the tick loop of `crawlsim run` (see include/crawlsim/sim.h for one tick on one rank):
 * set-up, the tasks, signals and teardown. The engine's parts are in sim_*.c (sim_engine.h).
 */
#include "sim/sim_engine.h"

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

/* Local. This rank's part of the tick's counts (summed over ranks by the caller): fetches,
 * frontier entries, records waiting in the outboxes, and the checkpoint and stop signals noted
 * since the last tick boundary (taken: the next tick sees only new ones). */
void sim_tick_counts(const sim *s, int64_t nsel, int64_t *c)
{
    const int64_t sig_c = sig_ckpt, sig_s = sig_stop;
    if (sig_c)
        sig_ckpt = 0;
    c[0] = nsel;
    c[1] = cs_frontier_size(s->fr);
    c[2] = (int64_t)(cs_outbox_bytes(&s->x.out) / sizeof(cs_link_msg));
    c[3] = sig_c;
    c[4] = sig_s;
}

/* Adds the collectives this rank made since `from` (the tick's start) to its counters: the
 * cost side of synchronisation (docs/guide/synchronisation.md), the same on a restart since the
 * counters are checkpointed and record points and checkpoints are left out. */
static void count_collectives(sim *s, const cs_coll_stats *from)
{
    const cs_coll_stats *now = &s->ctx->coll;
    for (int k = 0; k < CS_COLL_N; k++) {
        s->m.c[C_COLLS] += now->calls[k] - from->calls[k];
        s->m.c[C_COLL_BYTES] += now->bytes[k] - from->bytes[k];
    }
    s->m.c[C_ALLREDUCES] += now->calls[CS_COLL_ALLREDUCE] - from->calls[CS_COLL_ALLREDUCE];
    s->m.c[C_ALLREDUCE_BYTES] += now->bytes[CS_COLL_ALLREDUCE] - from->bytes[CS_COLL_ALLREDUCE];
}

/* Collective. A task's start: empty frontier, visited set, host counts and outboxes, the
 * policy's task, the global counts at the start, the budget's share. */
static cs_err task_begin(sim *s, loop_state *ls, int64_t task)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_frontier_clear(s->fr);
    sim_visited_clear(s);
    memset(s->h.rel_host, 0, (size_t)s->h.host_words * 8);
    s->h.rel_count = 0;
    cs_outbox_clear(&s->x.out);
    memset(s->h.host_fetched, 0, (size_t)s->h.n_slots * 4);
    memset(s->h.host_rel, 0, (size_t)s->h.n_slots * 4);
    s->h.cap_now = cap_at(s, 0);
    if (s->ops->begin_task != NULL)
        CS_TRY_AGREE(ctx, s->ops->begin_task(s->pol, ctx, task));
    int64_t tot[NC], hosts;
    sim_global_counts(s, tot, &hosts);
    ls->task_base[0] = tot[C_FETCHED];
    ls->task_base[1] = tot[C_RELEVANT];
    s->sl.share = cs_comm_split_fixed(s->cfg->crawl.bandwidth, ctx->rank, ctx->size);
fail:
    return rc;
}

/* Collective. [refresh]: one budget, the re-crawls due by this tick's time first (*n_refresh
 * over all ranks), discovery the rest. */
static cs_err tick_refresh(sim *s, loop_state *ls, int64_t *n_refresh)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t B = s->cfg->crawl.bandwidth;
    const double t0 = cs_now();
    const cs_recrawl_crawl *cr = NULL;
    int64_t ncr = 0;
    CS_TRY(ctx, cs_simrf_step(ctx, s->rf, ls->tick, &cr, &ncr, n_refresh));
    CS_TRY(ctx, sim_refresh_quota(s, cr, ncr));
    cs_simrf_excess(s->rf, *n_refresh > B ? *n_refresh - B : 0);
    s->m.t[PH_REFRESH] += cs_now() - t0;
fail:
    return rc;
}

/* Collective. The tick's picks (task tick t; at t = 0 the seed pages) taken from the frontier
 * into s->f.fx[0..*nsel): the values refreshed when stale, the budget of the tick (bandwidth
 * less the re-crawls, at most the pages left in the task), the selection, the mode's picks and
 * the visited bits shared. *local: this rank's code from here to the tick's agreement. */
static cs_err tick_select(sim *s, loop_state *ls, int64_t t, int64_t fetched_task,
                          int64_t n_refresh, int64_t *nsel, cs_err *local)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_crawl_config *cc = &s->cfg->crawl;
    const int64_t K = cc->sync_every;
    const int64_t rebalance = cc->rebalance_every ? cc->rebalance_every : K ? K : 1;
    if (t == 0) {
        CS_TRY(ctx, sim_take_seeds(s, nsel));
        sim_polite_check(s, ls->tick);
        CS_TRY(ctx, s->mode->seeded(s, *nsel));
        return CS_OK;
    }
    const double t0 = cs_now();
    if (s->ops->stale(s->pol)) {
        cs_frontier_view v;
        cs_frontier_view_get(s->fr, &v);
        sim_evaluate(s);
        s->m.c[C_QEVALS] += v.n;
        cs_simcost_charge(CS_COST_EVALUATE, (double)v.n);
    }
    const double t1 = cs_now();
    s->m.t[PH_EVALUATE] += t1 - t0;
    if (cc->budget == CS_BUDGET_PROPORTIONAL && (t - 1) % rebalance == 0)
        s->sl.share = cs_comm_split(ctx, cc->bandwidth, cs_frontier_size(s->fr));
    int64_t Bt = cc->bandwidth - n_refresh;
    if (Bt < 0)
        Bt = 0;
    const int64_t pages = s->cfg->run.pages;
    if (pages > 0 && pages - fetched_task < Bt)
        Bt = pages - fetched_task;
    s->h.cap_now = cap_at(s, fetched_task);
    cs_simcost_charge(CS_COST_SELECT, (double)cs_frontier_size(s->fr));
    CS_TRY(ctx, sim_select_tick(s, ls->tick, ls->total_fetched, Bt, nsel));
    *local = sim_take_selected(s, *nsel);
    if (*local == CS_OK)
        *local = s->mode->picked(s, nsel);
    s->m.t[PH_SELECT] += cs_now() - t1;
    *local = s->mode->visited(s, *local, *nsel);
fail:
    return rc;
}

/* Collective. The tick's fetches and their links: fetch, learn, route, the weights' exact sums,
 * the mode's step after the fetches, the re-crawl side, the exchange. From the selection on, a
 * rank's error (*local) travels to the tick's next agreement (rep: the shared fetches'; the
 * strict setting: the eviction's fused allreduce; else the tick's counts'): the collectives
 * between are made by every rank whatever its code, and a rank that failed skips its later
 * local steps. */
static cs_err tick_links(sim *s, loop_state *ls, int64_t t, int64_t nsel, int64_t force,
                         cs_err *local)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const uint64_t tick = (uint64_t)ls->tick;
    if (*local == CS_OK)
        *local = sim_fetch_pages(s, nsel);
    if (*local == CS_OK)
        *local = s->mode->learn(s, nsel, tick);
    if (*local == CS_OK)
        *local = s->mode->route(s, nsel);
    if (s->sum)
        CS_TRY(ctx, sim_sum_sync(s, t));
    CS_TRY(ctx, s->mode->fetched(s, local, nsel, tick));
    if (s->rf != NULL && *local == CS_OK) {
        const double t_rf = cs_now();
        *local = sim_refresh_fetched(s, nsel, ls->tick);
        s->m.t[PH_REFRESH] += cs_now() - t_rf;
    }
    if (t % s->cfg->crawl.exchange_every == 0 || force)
        *local = s->mode->exchange(s, *local);
fail:
    return rc;
}

/* Collective. The tick's agreement: the eviction, the policy's counters, the weights' average
 * (every K ticks under weight_sync = average), and the tick's counts glob[0..5) summed over
 * ranks with local agreed (fetches, frontier, records waiting in the outboxes, the signals). */
static cs_err tick_agree(sim *s, int64_t t, int64_t nsel, cs_err local, int64_t *glob)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx, s->mode->evict(s, &local, nsel, glob));
    sim_learn_counters(s);
    const double t0 = cs_now();
    CS_TRY(ctx, s->mode->agree(s, t, local, nsel, glob));
    s->m.t[PH_ALLREDUCE] += cs_now() - t0;
fail:
    return rc;
}

/* Collective. The re-crawl side's synchronisation at the tick's end (the discovery counts of the
 * adaptive split: over the run, identical everywhere). */
static cs_err tick_refresh_sync(sim *s, loop_state *ls)
{
    cs_err rc = CS_OK;
    int64_t tot[NC] = {0}, hosts = 0;
    const double t0 = cs_now();
    if (ls->tick % s->cfg->refresh.sync_every == 0)
        sim_global_counts(s, tot, &hosts);
    CS_TRY(s->ctx, cs_simrf_sync(s->ctx, s->rf, ls->tick, tot[C_FETCHED], tot[C_RELEVANT]));
    s->m.t[PH_REFRESH] += cs_now() - t0;
fail:
    return rc;
}

/* Collective. A checkpoint at the tick boundary after tick t of the task (the next tick is
 * (task, t + 1), global tick + 1). */
static cs_err tick_checkpoint(sim *s, loop_state *ls, int64_t task, int64_t t, int64_t fetched_task,
                              int64_t force)
{
    ls->task = task;
    ls->t_next = t + 1;
    ls->fetched_task = fetched_task;
    ls->force = force;
    ls->tick++;
    const cs_err rc = sim_save_checkpoint(s, ls);
    ls->tick--;
    return rc;
}

/* Collective. The task's results at its end. */
static void task_end(sim *s, loop_state *ls, int64_t task)
{
    int64_t tot[NC], hosts;
    sim_global_counts(s, tot, &hosts);
    ls->task_v[0][task] = tot[C_FETCHED] - ls->task_base[0];
    ls->task_v[1][task] = tot[C_RELEVANT] - ls->task_base[1];
    ls->task_v[2][task] = hosts;
    ls->task_v[3][task] = ls->tick;
    ls->tick++;
}

/* Collective. One task: seeds, then ticks until the page limit, the tick limit or an empty
 * frontier everywhere. */
static cs_err run_task(sim *s, loop_state *ls, int64_t task)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_run_config *rn = &s->cfg->run;
    const int64_t K = s->cfg->crawl.sync_every;
    const int64_t R = rn->record_every ? rn->record_every : K ? K : 10;
    const int64_t CE = rn->checkpoint[0] != '\0' ? rn->checkpoint_every : 0;
    int64_t fetched_task = 0, force = 0, t = 0;
    if (ls->resume) {
        /* the checkpoint restored this task's state (load_checkpoint) */
        ls->resume = 0;
        t = ls->t_next;
        fetched_task = ls->fetched_task;
        force = ls->force;
    } else {
        CS_TRY(ctx, task_begin(s, ls, task));
    }
    for (;; t++, ls->tick++) {
        int64_t nsel = 0, n_refresh = 0, glob[5];
        cs_err local = CS_OK; /* this rank's code since the tick's last agreement */
        const cs_coll_stats coll0 = ctx->coll;
        if (s->rf != NULL)
            CS_TRY(ctx, tick_refresh(s, ls, &n_refresh));
        CS_TRY(ctx, tick_select(s, ls, t, fetched_task, n_refresh, &nsel, &local));
        CS_TRY(ctx, tick_links(s, ls, t, nsel, force, &local));
        CS_TRY(ctx, tick_agree(s, t, nsel, local, glob));
        fetched_task += glob[0];
        ls->total_fetched += glob[0];
        sim_diag_tick(s, glob[0]);
        cs_progress_update(&ls->progress, (uint64_t)ls->total_fetched);
        force = glob[1] == 0 && glob[2] > 0;
        if (s->rf != NULL)
            CS_TRY(ctx, tick_refresh_sync(s, ls));
        /* with refresh on, an empty frontier does not end a task: the cache still needs it */
        const int done = (rn->pages > 0 && fetched_task >= rn->pages) ||
                         (glob[1] == 0 && glob[2] == 0 && s->rf == NULL) || t + 1 >= rn->ticks;
        count_collectives(s, &coll0);
        if (done || (t + 1) % R == 0)
            CS_TRY(ctx, sim_record_point(s, ls, task));
        if (done)
            break;
        if ((CE > 0 && (ls->tick + 1) % CE == 0) || glob[3] > 0 || glob[4] > 0) {
            CS_TRY(ctx, tick_checkpoint(s, ls, task, t, fetched_task, force));
            if (glob[4] > 0) {
                ls->stopped = 1;
                goto fail;
            }
        }
    }
    task_end(s, ls, task);
fail:
    return rc;
}

static void sim_free(sim *s)
{
    cs_simrf_destroy(&s->rf);
    if (s->pol != NULL)
        s->ops->destroy(s->pol);
    cs_frontier_destroy(&s->fr);
    if (!s->w.ev_shared)
        cs_evidence_destroy(&s->w.ev);
    cs_sim_world_destroy(&s->w.own);
    sim_visited_free(s);
    sim_diag_free(s);
    sim_hosts_fini(&s->h);
    sim_select_fini(&s->sl);
    sim_fetch_fini(&s->f);
    sim_learn_fini(&s->ln);
    sim_route_fini(&s->r);
    sim_exchange_fini(&s->x);
    sim_insert_fini(&s->in);
    sim_evict_fini(&s->evict);
    sim_record_fini(&s->m);
}

cs_err cs_sim_run(cs_ctx *ctx, const cs_config *cfg, const char *output, const char *restart,
                  cs_sim_summary *out)
{
    return cs_sim_run_in(ctx, cfg, NULL, output, restart, out);
}

/* Collective. run.policy from the registry, its TRES and MAX settings, and that it can crawl
 * under run.relevance. Errors agreed: CS_ERR_CONFIG. */
static cs_err setup_policy(sim *s)
{
    cs_ctx *ctx = s->ctx;
    const cs_config *cfg = s->cfg;
    cs_err rc = CS_OK;
    int npol = 0;
    const cs_discover_policy *reg = cs_discover_list(&npol);
    CS_ASSERT(cfg->run.policy >= 0 && cfg->run.policy < npol);
    s->ops = reg[cfg->run.policy].ops; /* run.policy's choices are the registry's names */
    s->pname = reg[cfg->run.policy].name;
    CS_ASSERT(s->ops->reward != NULL); /* every policy states its reward (discover.h) */
    CS_ASSERT(cs_tres_max_parse(cfg->tres.max_per_host, &s->h.max_cap));
    s->tres_d = s->ops->tres_features ? cs_tres_dim(cfg->tres.host_features) : 0;
    s->host_features = cfg->tres.host_features;
    if (cfg->run.relevance == CS_RELEVANCE_NONE && s->ops->needs_relevance) {
        char without[256] = ""; /* the registry's policies that crawl without relevance */
        for (int i = 0, k = 0; i < npol; i++)
            if (!reg[i].ops->needs_relevance)
                k += snprintf(without + k, k < (int)sizeof without ? sizeof without - (size_t)k : 0,
                              "%s%s", k > 0 ? " or " : "", reg[i].name);
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "run.policy = %s learns from relevance, which run.relevance = none (a "
                     "coverage crawl: every page counts) does not give; run.policy = %s crawls "
                     "without it",
                     s->pname, without);
    }
    return cs_agree(ctx, rc);
}

/* Collective. The evidence table of a materialized world with the rows `rows` (NULL: every
 * page): the shared world's when it holds the same rows on every rank (its last run's: the
 * same categories and ghosts), else built and, on a shared world, kept for its next run. The
 * table is a function of the world, the categories and the rows alone, so a run reads the same
 * bits either way; one allreduce on both paths. Errors: those of cs_evidence_create. */
static cs_err evidence_table(sim *s, cs_sim_world *shared, const cs_evidence_rows *rows)
{
    cs_ctx *ctx = s->ctx;
    const int64_t n_ghost = rows != NULL ? rows->n_ghost : -1;
    int same = shared != NULL && shared->ev != NULL && shared->ev_cats == s->L.categories &&
               shared->ev_n_ghost == n_ghost &&
               (n_ghost <= 0 ||
                memcmp(shared->ev_ghost, rows->ghost, (size_t)n_ghost * sizeof *rows->ghost) == 0);
    cs_allreduce(ctx, NULL, &same, 1, CS_T_INT, CS_OP_MIN);
    if (same) {
        s->w.ev = shared->ev;
        s->w.ev_shared = 1;
        CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: the evidence table of the world's previous run");
        return CS_OK;
    }
    cs_err rc = cs_evidence_create(ctx, s->w.g, s->w.gen, &s->w.cfg, &s->L, rows, &s->w.ev);
    if (rc != CS_OK || shared == NULL)
        return rc;
    cs_evidence_destroy(&shared->ev);
    free(shared->ev_ghost);
    shared->ev_ghost = NULL;
    /* (without the memory for the ghosts' copy the table is not kept: the next run builds its
     * own, since no rank's table then matches) */
    if (n_ghost > 0 && cs_alloc(ctx, &shared->ev_ghost, (size_t)n_ghost, sizeof *rows->ghost,
                                "evidence rows") != CS_OK) {
        cs_ctx_clear_error(ctx);
        return CS_OK;
    }
    if (n_ghost > 0)
        memcpy(shared->ev_ghost, rows->ghost, (size_t)n_ghost * sizeof *rows->ghost);
    shared->ev = s->w.ev;
    shared->ev_cats = s->L.categories;
    shared->ev_n_ghost = n_ghost;
    s->w.ev_shared = 1;
    return CS_OK;
}

/* Collective. The world (shared by the caller, or loaded), the feature layout, the visited set
 * and the evidence; the generator's model is dropped when the crawl does not need it. */
static cs_err setup_world(sim *s, cs_sim_world *shared, double t_setup)
{
    cs_ctx *ctx = s->ctx;
    const cs_config *cfg = s->cfg;
    cs_err rc = CS_OK;
    if (shared != NULL) {
        CS_TRY_AGREE(ctx, sim_world_check(ctx, shared, cfg));
    } else {
        CS_TRY(ctx, cs_sim_world_load(ctx, cfg, &s->w.own));
        shared = s->w.own;
        CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: world read and partitioned (%.2f s)",
               cs_now() - t_setup);
    }
    s->w.g = shared->g;
    s->w.gen = shared->gen;
    s->w.proc = shared->proc;
    s->w.ops = sim_world_choose(s->w.proc, s->mode->replicated);
    s->w.gen_owner = shared->gen_owner;
    s->w.owner = &shared->owner;
    s->w.cfg.gen = shared->gen_cfg;
    s->w.threshold = shared->threshold;
    cs_feat_layout_init(&s->L, &cfg->sarsa);
    s->G = s->L.n_groups;
    s->GA = s->L.n_groups - s->L.n_state_groups;
    CS_TRY(ctx, sim_visited_create(s)); /* its ghosts are also the evidence's rows */
    const sim_visited *v = &s->vis;
    const cs_evidence_rows rows = {v->ghost, v->n_ghost, v->sub_off, v->sub};
    if (s->w.proc)
        CS_TRY_AGREE(ctx, cs_evidence_create_on_demand(ctx, s->w.gen, &s->w.cfg, &s->L, &s->w.ev));
    else
        CS_TRY(ctx, evidence_table(s, shared, v->slot != NULL ? &rows : NULL));
    CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: visited set and evidence (%.2f s)", cs_now() - t_setup);
    /* the model (H entries per node) is not needed further; a world shared by several runs
     * (--seeds) keeps it for their evidence, the procedural world for its pages, a generated
     * world under host-hash for its owners */
    if (s->w.own != NULL && !s->w.proc && !s->w.gen_owner)
        cs_gen_destroy(&s->w.own->gen);
    if (!s->w.proc && !s->w.gen_owner)
        s->w.gen = NULL;
fail:
    return rc;
}

/* crawl.frontier_capacity; 0: the larger of CAP_AUTO_MIN and a fifth of the world's pages (the
 * frontier's peak without a capacity stays below that: docs/reports/frontier-capacity.md). */
#define CAP_AUTO_MIN 1000000
/* The keys the frontier's index keeps when it has tiers (cs_frontier_set_hot): 2^18, a tree of
 * about 3 MB that the caches hold (2^22, 46 MB, is slower: docs/reports/procedural-world.md). */
#define FRONTIER_HOT ((int64_t)1 << 18)
static int64_t frontier_capacity(const sim *s)
{
    const int64_t c = s->cfg->crawl.frontier_capacity, fifth = cs_graph_n_pages(s->w.g) / 5;
    return c > 0 ? c : fifth > CAP_AUTO_MIN ? fifth : CAP_AUTO_MIN;
}

/* Collective. The phases' state of a run: the policy, the re-crawl side, the frontier, the
 * outboxes, the per-rank layouts and (replicated, or a global MAX cap) every page's host.
 * Errors agreed. */
static cs_err setup_phases(sim *s, loop_state *ls)
{
    cs_ctx *ctx = s->ctx;
    const cs_config *cfg = s->cfg;
    const size_t P = (size_t)ctx->size;
    cs_err rc = CS_OK;
    CS_TRY_AGREE(ctx, s->ops->create(ctx, cfg, &s->L, &s->pol));
    if (s->sum)
        s->ops->sum_begin(s->pol);
    CS_TRY_AGREE(ctx, sim_diag_create(s));
    s->cap_global = s->strict && !s->rep && s->h.any_split && s->h.max_cap != CS_TRES_MAX_INF;
    s->mode = sim_mode_choose(s->strict, s->rep, s->cap_global); /* the caps are known now */
    CS_TRY(ctx, cs_simrf_create(ctx, &s->w.cfg, s->w.g, s->w.proc ? s->w.gen : NULL, &s->rf));
    const int64_t cap = frontier_capacity(s);
    rc = cs_frontier_create(ctx, cap, s->G, &s->fr);
    if (rc == CS_OK)
        cs_frontier_seed_tags(s->fr, explore_tag_seed(s));
    CS_LOG(ctx, CS_LOG_VERBOSE, "frontier: capacity %lld entries%s", (long long)cap,
           cfg->crawl.frontier_capacity > 0 ? "" : " (the default: 10^6 or a fifth of the pages)");
    /* CRAWLSIM_FRONTIER_INDEX=0: the passes over the frontier instead (the tests' reference) */
    const char *fx = getenv("CRAWLSIM_FRONTIER_INDEX");
    if (rc == CS_OK && s->ops->static_values != NULL && s->ops->static_values(s->pol) &&
        (fx == NULL || strcmp(fx, "0") != 0)) {
        rc = cs_frontier_index_keys(ctx, s->fr);
        /* CRAWLSIM_FRONTIER_HOT: the keys the index keeps in its tiers (0: all; the tests') */
        const char *fh = getenv("CRAWLSIM_FRONTIER_HOT");
        const int64_t hot = fh != NULL ? strtoll(fh, NULL, 10) : FRONTIER_HOT;
        cs_frontier_set_hot(s->fr, hot);
        if (hot > 0)
            CS_LOG(ctx, CS_LOG_VERBOSE,
                   "frontier: selection and eviction by its ordered key index (in tiers: it "
                   "keeps the best %lld keys of a larger frontier)",
                   (long long)hot);
        else
            CS_LOG(ctx, CS_LOG_VERBOSE,
                   "frontier: selection and eviction by its ordered key index (every key)");
    } else if (rc == CS_OK) {
        CS_LOG(ctx, CS_LOG_VERBOSE, "frontier: selection and eviction by passes over it");
    }
    if (rc == CS_OK)
        rc = cs_outbox_init(ctx, &s->x.out, ctx->size);
    s->x.out.method = cfg->crawl.exchange;
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->r.route_bytes, P, sizeof *s->r.route_bytes, "routing");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->x.vis_counts, P, sizeof *s->x.vis_counts, "visited");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->x.vis_displs, P, sizeof *s->x.vis_displs, "visited");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->x.rep_counts, 2 * P, sizeof *s->x.rep_counts, "fetches");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->x.rep_displs, 3 * P, sizeof *s->x.rep_displs, "fetches");
    if (rc == CS_OK && (s->rep || s->cap_global) && !s->w.proc) /* proc: host_any */
        rc = sim_host_map(s);
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->sl.sp_counts, P, sizeof *s->sl.sp_counts, "hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->sl.sp_displs, P, sizeof *s->sl.sp_displs, "hosts");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->h.sp_before,
                       (size_t)(s->h.any_split ? cs_graph_n_hosts(s->w.g) : 0) + 1,
                       sizeof *s->h.sp_before, "hosts");
    for (int i = 0; i < 4 && rc == CS_OK; i++)
        rc = cs_calloc(ctx, &ls->task_v[i], (size_t)cfg->run.tasks + 1, 8, "task results");
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

/* Local. The run's first line: the world, the policy and the crawl's settings. */
static void log_crawl(const sim *s, double t_setup)
{
    cs_ctx *ctx = s->ctx;
    const cs_config *cfg = s->cfg;
    char step[64] = "";
    if (s->ops->step_report != NULL)
        s->ops->step_report(cfg, ctx->size, step, sizeof step);
    char links[48];
    if (s->w.proc)
        snprintf(links, sizeof links, "links made when fetched (procedural)");
    else
        snprintf(links, sizeof links, "%lld links", (long long)cs_graph_n_links(s->w.g));
    CS_LOG(ctx, CS_LOG_INFO,
           "crawl: %lld pages, %s, %lld hosts on %d ranks (set-up %.2f s); policy %s%s, "
           "B = %lld fetches/tick, budget %s, E = %lld, K = %lld (%s), %lld seed pages%s",
           (long long)cs_graph_n_pages(s->w.g), links, (long long)cs_graph_n_hosts(s->w.g),
           ctx->size, t_setup, s->pname, step, (long long)cfg->crawl.bandwidth,
           cfg->crawl.budget == CS_BUDGET_GLOBAL         ? "global"
           : cfg->crawl.budget == CS_BUDGET_PROPORTIONAL ? "proportional"
                                                         : "fixed",
           (long long)cfg->crawl.exchange_every, (long long)cfg->crawl.sync_every,
           cfg->crawl.weight_sync == CS_WSYNC_SUM ? "sum" : "average", (long long)s->sl.n_seeds,
           s->strict ? "; strict: rank-invariant" : "");
}

/* Collective. The fetch rate over the second half of the loop's wall time (warm-up excluded),
 * rank 0's (the wall clocks differ per rank). */
static double steady_rate(cs_ctx *ctx, const sim *s, const loop_state *ls)
{
    double tw = 0.0, rate = 0.0;
    int64_t cum = 0, cum0 = 0;
    const series *se = &s->m.s;
    const double w_end = se->n ? ls->wall[se->n - 1] : 0.0;
    /* series fetched restart per task: accumulate across tasks */
    int64_t prev = 0;
    for (int64_t i = 0; i < se->n; i++) {
        int64_t f = se->v[C_FETCHED][i];
        if (i > 0 && se->v[S_TASK][i] != se->v[S_TASK][i - 1])
            prev = 0;
        cum += f - prev;
        prev = f;
        if (ls->wall[i] <= w_end / 2) {
            cum0 = cum;
            tw = ls->wall[i];
        }
    }
    rate = w_end > tw ? (double)(cum - cum0) / (w_end - tw) : 0.0;
    cs_bcast(ctx, &rate, 1, CS_T_F64, 0);
    return rate;
}

/* Local. The run's summary on stdout (rank 0): the result, not a log line (-q keeps it). */
static void print_summary(const sim *s, const cs_sim_summary *sum, int64_t peak_once,
                          const char *output)
{
    if (s->ctx->rank != 0)
        return;
    printf("crawl: %s on %d ranks, %lld ticks, %.2f s\n", s->pname, s->ctx->size,
           (long long)sum->ticks, sum->seconds);
    printf("  fetched %lld, relevant %lld (harvest rate %.4f), relevant hosts %lld\n",
           (long long)sum->fetched, (long long)sum->relevant, sum->harvest_rate,
           (long long)sum->relevant_hosts);
    printf("  %.3g fetches/s (second half of the run), politeness violations %lld\n",
           sum->fetch_rate, (long long)sum->politeness_violations);
    printf("  peak memory %.1f MiB on the largest rank, %.1f MiB over %d ranks",
           (double)sum->peak_rss_max / 1048576.0, (double)sum->peak_rss_sum / 1048576.0,
           s->ctx->size);
    if (peak_once != sum->peak_rss_sum)
        printf(" (%.1f MiB with the memory the ranks of a node share counted once)",
               (double)peak_once / 1048576.0);
    printf("\n");
    if (s->rf != NULL)
        cs_simrf_summary(s->rf);
    printf("  results: %s\n", output);
    fflush(stdout);
}

/* Collective. The run's end: the re-crawl side's last epoch, the summary's figures, the results
 * file and the summary on stdout. */
static cs_err finish_run(sim *s, loop_state *ls, const char *output, cs_sim_summary *sum)
{
    cs_ctx *ctx = s->ctx;
    const cs_config *cfg = s->cfg;
    cs_err rc = CS_OK;
    int64_t peak_once = 0;
    if (s->rf != NULL)
        CS_TRY(ctx, cs_simrf_finish(ctx, s->rf, ls->tick - 1));
    sum->seconds = cs_now() - ls->t_begin;
    int64_t tot[NC], hosts;
    sim_global_counts(s, tot, &hosts);
    sum->fetched = tot[C_FETCHED];
    sum->relevant = tot[C_RELEVANT];
    sum->relevant_hosts = ls->task_v[2][cfg->run.tasks - 1];
    sum->ticks = ls->tick;
    sum->harvest_rate = sum->fetched > 0 ? (double)sum->relevant / (double)sum->fetched : 0.0;
    sum->politeness_violations = tot[C_POLITE];
    sum->fetch_rate = steady_rate(ctx, s, ls);
    cs_bcast(ctx, &sum->seconds, 1, CS_T_F64, 0);
    {
        /* the node-shared model's pages count in the peak of every rank that touched them:
         * once instead (sim_node_memory) */
        const int64_t rss = sim_peak_rss(), once = sim_node_memory(s, rss);
        cs_allreduce(ctx, &rss, &sum->peak_rss_max, 1, CS_T_I64, CS_OP_MAX);
        cs_allreduce(ctx, &rss, &sum->peak_rss_sum, 1, CS_T_I64, CS_OP_SUM);
        cs_allreduce(ctx, &once, &peak_once, 1, CS_T_I64, CS_OP_SUM);
    }
    CS_TRY(ctx, sim_write_results(s, ls, output, sum));
    print_summary(s, sum, peak_once, output);
fail:
    return rc;
}

cs_err cs_sim_run_in(cs_ctx *ctx, const cs_config *cfg, cs_sim_world *shared, const char *output,
                     const char *restart, cs_sim_summary *out)
{
    cs_err rc = CS_OK;
    sim S;
    memset(&S, 0, sizeof S);
    sim *s = &S;
    loop_state ls;
    memset(&ls, 0, sizeof ls);
    ls.resumed_tick = -1;
    cs_sim_summary sum;
    memset(&sum, 0, sizeof sum);
    s->ctx = ctx;
    s->cfg = cfg;
    s->w.cfg = *cfg;
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
    CS_TRY(ctx, setup_policy(s));
    CS_TRY_AGREE(ctx, sim_strict_setting(s));
    s->mode = sim_mode_choose(s->strict, s->rep, 0);
    s->tally = !s->mode->replicated || ctx->rank == 0;
    CS_TRY(ctx, setup_world(s, shared, t_setup));
    CS_TRY(ctx, sim_build_hosts(s));
    /* the strict setting counts a host's fetches over all ranks: no quota or cap is shared */
    s->h.share_k = s->strict ? NULL : s->h.host_k;
    s->h.share_idx = s->strict ? NULL : s->h.host_idx;
    CS_TRY(ctx, sim_choose_seeds(s));
    CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: hosts and seed pages (%.2f s)", cs_now() - t_setup);
    CS_TRY(ctx, setup_phases(s, &ls));
    log_crawl(s, cs_now() - t_setup);
    if (restart != NULL)
        CS_TRY(ctx, sim_load_checkpoint(s, &ls, restart));
    uint64_t total = cfg->run.pages > 0 ? (uint64_t)(cfg->run.pages * cfg->run.tasks) : 0;
    cs_progress_begin(&ls.progress, ctx, "crawl (fetches)", total);
    ls.t_begin = cs_now() - (ls.resume && s->m.s.n > 0 ? ls.wall[s->m.s.n - 1] : 0.0);
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
    } else {
        CS_TRY(ctx, finish_run(s, &ls, output, &sum));
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
