/*
 * sim: checkpoints of `crawlsim run`: the loop state, metrics and every part of the engine,
 * written atomically, and the restart from them.
 */
#include "sim/sim_engine.h"

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

/*
 * Collective. A fingerprint of the world's contents: the sum (mod 2^64) over every page of a
 * hash of its id, host, topic, relevance, change rate, importance, observability and out-links.
 * Integer sums: the same whatever the order of the pages or the ranks. A checkpoint compares its
 * job's text, which names the graph file but says nothing of what the file holds: a restart on
 * a graph changed in place (its relevance edited) would continue on another world. The
 * procedural world is a function of its [gen], which the job's text holds: 0 there.
 */
static uint64_t world_fingerprint(const sim *s)
{
    const cs_graph *g = s->w.g;
    uint64_t mine = 0, sum = 0;
    if (!s->w.proc) {
        const int64_t n = cs_graph_n_local(g), *ids = cs_graph_local_ids(g);
        const int64_t *off = cs_graph_offsets(g), *tg = cs_graph_targets(g);
        const int64_t *host = cs_graph_host(g);
        const int32_t *topic = cs_graph_topic(g);
        const double *rel = cs_graph_relevance(g), *delta = cs_graph_delta(g);
        const double *mu = cs_graph_mu(g);
        const uint8_t *obs = cs_graph_observable(g);
        for (int64_t i = 0; i < n; i++) {
            uint64_t h = cs_mix64((uint64_t)ids[i] + 0x9e3779b97f4a7c15ULL), b;
            h = cs_mix64(h ^ (uint64_t)host[i]);
            h = cs_mix64(h ^ (uint64_t)(int64_t)topic[i]);
            memcpy(&b, &rel[i], sizeof b);
            h = cs_mix64(h ^ b);
            memcpy(&b, &delta[i], sizeof b);
            h = cs_mix64(h ^ b);
            memcpy(&b, &mu[i], sizeof b);
            h = cs_mix64(h ^ b);
            h = cs_mix64(h ^ obs[i]);
            for (int64_t e = off[i]; e < off[i + 1]; e++)
                h = cs_mix64(h ^ (uint64_t)tg[e]);
            mine += h;
        }
    }
    cs_allreduce(s->ctx, &mine, &sum, 1, CS_T_U64, CS_OP_SUM);
    return sum;
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
    LS_UNUSED, /* always 0: the place of a field of old, kept so checkpoints still read */
    LS_SERIES,
    LS_TRACE,
    LS_N
};

/* Collective. Writes run.checkpoint: the loop's position, metrics and series, this rank's
 * crawl state (visited set, hosts, outboxes, frontier), the policy's and the refresh's state. */
cs_err sim_save_checkpoint(sim *s, loop_state *ls)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_ckpt *ck = NULL;
    char *ini = NULL, *box = NULL;
    char name[96];
    double t0 = cs_now();
    const int64_t T = s->cfg->run.tasks, n = s->m.s.n;
    CS_TRY_AGREE(ctx, resumable_ini(s, &ini));
    CS_TRY(ctx, cs_ckpt_create(ctx, s->cfg->run.checkpoint, &ck));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/config", CS_CK_BYTES, (int64_t)strlen(ini) + 1, ini));
    const uint64_t world = world_fingerprint(s);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/world", CS_CK_U64, 1, &world));
    int64_t st[LS_N] = {ls->task,
                        ls->t_next,
                        ls->tick,
                        ls->fetched_task,
                        ls->force,
                        ls->total_fetched,
                        ls->task_base[0],
                        ls->task_base[1],
                        s->sl.share,
                        s->ln.pol_qevals,
                        0,
                        n,
                        (int64_t)s->m.trace_len};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/state", CS_CK_I64, LS_N, st));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/counters", CS_CK_I64, NC, s->m.c));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/times", CS_CK_F64, NPH, s->m.t));
    for (int i = 0; i < NS; i++) {
        snprintf(name, sizeof name, "run/series/%s", sim_series_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, n, s->m.s.v[i]));
    }
    for (int i = 0; i < NPH; i++) {
        snprintf(name, sizeof name, "run/series_time/%s", sim_phase_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F64, n, s->m.s.t[i]));
    }
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/wall", CS_CK_F64, n, ls->wall));
    CS_TRY(ctx, sim_diag_save(s, ck, n));
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "run/tasks/%d", i);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, T, ls->task_v[i]));
    }
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/visited", CS_CK_U64, sim_visited_words(s), s->vis.bits));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/rel_host", CS_CK_U64, s->h.host_words, s->h.rel_host));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, "run/host_fetched", CS_CK_I32, s->h.n_slots, s->h.host_fetched));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/host_rel", CS_CK_I32, s->h.n_slots, s->h.host_rel));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/trace", CS_CK_I64, (int64_t)s->m.trace_len, s->m.trace));
    /* the outboxes (links waiting for the next exchange when E > 1), one after the other */
    {
        int64_t *len = NULL;
        size_t tot = cs_outbox_bytes(&s->x.out), at = 0;
        rc = cs_alloc(ctx, &len, (size_t)ctx->size, sizeof *len, "checkpoint");
        if (rc == CS_OK)
            rc = cs_alloc(ctx, &box, tot + 1, 1, "checkpoint");
        for (int q = 0; q < ctx->size && rc == CS_OK; q++) {
            len[q] = (int64_t)s->x.out.len[q];
            if (s->x.out.len[q] > 0)
                memcpy(box + at, s->x.out.buf[q], s->x.out.len[q]);
            at += s->x.out.len[q];
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

/* Local. Grows the series to hold n points (the layout sim_record() appends to). */
static cs_err series_reserve(sim *s, loop_state *ls, int64_t n)
{
    series *se = &s->m.s;
    int64_t cap = n > 256 ? n : 256;
    for (int i = 0; i < NS + NPH; i++) {
        void **pp = i < NS ? (void **)&se->v[i] : (void **)&se->t[i - NS];
        void *p = realloc(*pp, (size_t)cap * 8);
        if (p == NULL)
            return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the series");
        *pp = p;
    }
    if (sim_diag_reserve(s, cap) != CS_OK)
        return CS_ERR_NOMEM;
    se->cap = cap;
    double *w = realloc(ls->wall, (size_t)cap * sizeof *w);
    if (w == NULL)
        return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the series");
    ls->wall = w;
    ls->wall_cap = cap;
    return CS_OK;
}

/* Collective. The checkpoint was written by this job (the same resolved config) on this world.
 * Errors agreed: CS_ERR_CONFIG. */
static cs_err load_check(sim *s, cs_ckpt *ck, const char *path)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    char *ini = NULL, *saved = NULL;
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
    uint64_t world = 0;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/world", CS_CK_U64, 1, &world));
    if (world != world_fingerprint(s))
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "checkpoint %s was written on another world: the graph file's contents "
                     "changed since (restart on the graph the checkpoint was written on)",
                     path);
    CS_TRY_AGREE(ctx, rc);
fail:
    free(ini);
    free(saved);
    return rc;
}

/* Collective. The loop's position (run/state into ls and st[0..LS_N)), the same on every rank
 * (the tick, the task, the global fetch counts and the records taken): a checkpoint whose
 * ranks disagree would send the ranks into different collectives. Errors agreed. */
static cs_err load_state(sim *s, loop_state *ls, cs_ckpt *ck, const char *path, int64_t *st)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/state", CS_CK_I64, LS_N, st));
    ls->task = st[LS_TASK];
    ls->t_next = st[LS_T_NEXT];
    ls->tick = st[LS_TICK];
    ls->fetched_task = st[LS_FETCHED_TASK];
    ls->force = st[LS_FORCE];
    ls->total_fetched = st[LS_TOTAL];
    ls->task_base[0] = st[LS_BASE0];
    ls->task_base[1] = st[LS_BASE1];
    s->sl.share = st[LS_SHARE];
    s->ln.pol_qevals = st[LS_POL_QEVALS];
    static const int global[] = {LS_TASK,  LS_T_NEXT, LS_TICK,  LS_FETCHED_TASK, LS_FORCE,
                                 LS_TOTAL, LS_BASE0,  LS_BASE1, LS_SERIES};
    enum { NG = (int)(sizeof global / sizeof global[0]) };
    int64_t mine[2 * NG], agreed[2 * NG];
    for (int i = 0; i < NG; i++) {
        mine[i] = st[global[i]];
        mine[NG + i] = -st[global[i]];
    }
    cs_allreduce(ctx, mine, agreed, 2 * NG, CS_T_I64, CS_OP_MAX);
    int differ = 0;
    for (int i = 0; i < NG; i++)
        differ |= agreed[i] != -agreed[NG + i];
    if (differ)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: the ranks' run/state differ (damaged)",
                     path);
    else if (ls->task < 0 || ls->task >= s->cfg->run.tasks || ls->tick < 0 || ls->t_next < 0 ||
             ls->fetched_task < 0 || (ls->force != 0 && ls->force != 1) || ls->total_fetched < 0 ||
             ls->fetched_task > ls->total_fetched || st[LS_BASE0] < 0 || st[LS_BASE1] < 0 ||
             st[LS_SERIES] < 0 || st[LS_TRACE] < 0 || s->sl.share < 0 || s->ln.pol_qevals < 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: run/state out of range", path);
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

/* Collective. The record phase's state: n series points, counters, times, wall clocks, the
 * diagnostics and the tasks' results. */
static cs_err load_series(sim *s, loop_state *ls, cs_ckpt *ck, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    char name[96];
    CS_TRY_AGREE(ctx, series_reserve(s, ls, n));
    s->m.s.n = n;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/counters", CS_CK_I64, NC, s->m.c));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/times", CS_CK_F64, NPH, s->m.t));
    for (int i = 0; i < NS; i++) {
        snprintf(name, sizeof name, "run/series/%s", sim_series_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, s->m.s.n, s->m.s.v[i]));
    }
    for (int i = 0; i < NPH; i++) {
        snprintf(name, sizeof name, "run/series_time/%s", sim_phase_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F64, s->m.s.n, s->m.s.t[i]));
    }
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/wall", CS_CK_F64, s->m.s.n, ls->wall));
    CS_TRY(ctx, sim_diag_load(s, ck, s->m.s.n));
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "run/tasks/%d", i);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, s->cfg->run.tasks, ls->task_v[i]));
    }
fail:
    return rc;
}

/* Collective. This rank's outboxes. Errors agreed: CS_ERR_FORMAT, CS_ERR_NOMEM. */
static cs_err load_outbox(sim *s, cs_ckpt *ck, const char *path)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    char *box = NULL;
    int64_t *len = NULL, n = 0;
    CS_TRY(ctx, cs_alloc(ctx, &len, (size_t)ctx->size, sizeof *len, "checkpoint"));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/outbox/len", CS_CK_I64, ctx->size, len));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "run/outbox/data", CS_CK_BYTES, &n, &box));
    cs_outbox_clear(&s->x.out);
    int64_t at = 0;
    for (int q = 0; q < ctx->size && rc == CS_OK; q++) {
        if (len[q] < 0 || at + len[q] > n)
            rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: bad outbox lengths", path);
        else if (len[q] > 0)
            rc = cs_outbox_put(ctx, &s->x.out, q, box + at, (size_t)len[q]);
        at += len[q];
    }
    CS_TRY_AGREE(ctx, rc);
fail:
    free(box);
    free(len);
    return rc;
}

/* Collective. The crawl's state on this rank: visited set, host counts, trace, outboxes and
 * frontier (of pages of the world: not only the rank's own, the strict TRES keeps others). */
static cs_err load_crawl(sim *s, cs_ckpt *ck, const char *path)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "run/visited", CS_CK_U64, sim_visited_words(s), s->vis.bits));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "run/rel_host", CS_CK_U64, s->h.host_words, s->h.rel_host));
    s->h.rel_count = cs_popcount_words(s->h.rel_host, s->h.host_words);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/host_fetched", CS_CK_I32, s->h.n_slots,
                                  s->h.host_fetched));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/host_rel", CS_CK_I32, s->h.n_slots, s->h.host_rel));
    free(s->m.trace);
    s->m.trace = NULL;
    int64_t n = 0;
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "run/trace", CS_CK_I64, &n, &s->m.trace));
    s->m.trace_len = (size_t)n;
    s->m.trace_cap = (size_t)n + 1;
    CS_TRY(ctx, load_outbox(s, ck, path));
    cs_frontier_clear(s->fr);
    CS_TRY(ctx, cs_frontier_load(ctx, s->fr, ck));
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    const int64_t N = cs_graph_n_pages(s->w.g);
    for (int64_t i = 0; i < v.n && rc == CS_OK; i++)
        if (v.id[i] >= N)
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "checkpoint %s: frontier page %lld is not a page of the world (%lld)",
                         path, (long long)v.id[i], (long long)N);
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

/* Collective. Restores what save_checkpoint wrote into the freshly built run s (world,
 * policy and refresh created from the same job); run_task then continues the saved task. */
cs_err sim_load_checkpoint(sim *s, loop_state *ls, const char *path)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_ckpt *ck = NULL;
    double t0 = cs_now();
    int64_t st[LS_N];
    CS_TRY(ctx, cs_ckpt_open(ctx, path, &ck));
    CS_TRY(ctx, load_check(s, ck, path));
    CS_TRY(ctx, load_state(s, ls, ck, path, st));
    CS_TRY(ctx, load_series(s, ls, ck, st[LS_SERIES]));
    CS_TRY(ctx, load_crawl(s, ck, path));
    if (s->ops->load != NULL)
        CS_TRY(ctx, s->ops->load(s->pol, ctx, ck));
    if (s->rf != NULL)
        CS_TRY(ctx, cs_simrf_load(ctx, s->rf, ck));
    ls->resume = 1;
    ls->resumed_tick = ls->tick;
    CS_LOG(ctx, CS_LOG_INFO, "restarting from checkpoint %s: task %lld, tick %lld (%.2f s)", path,
           (long long)ls->task, (long long)ls->tick, cs_now() - t0);
fail:
    cs_ckpt_close(ctx, &ck);
    return rc;
}
