/*
 * sim: metrics at record points and the results file of `crawlsim run`.
 */
#include "sim/sim_engine.h"

#include <sys/resource.h>

int64_t sim_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (int64_t)ru.ru_maxrss * 1024; /* Linux: kilobytes */
}

int64_t sim_shared_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "RssShmem: %lld", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return (int64_t)kb * 1024;
}

int64_t sim_node_memory(const sim *s, int64_t peak)
{
    int shared = 0;
    const int64_t held = s->w.gen != NULL ? cs_gen_shared_held(s->w.gen, &shared) : 0;
    return shared ? peak - sim_shared_rss() + held : peak;
}

const char *const sim_phase_name[NPH] = {"evaluate", "select", "fetch", "learn",     "route",
                                         "exchange", "insert", "wait",  "allreduce", "refresh"};

const char *const sim_series_name[NS] = {"fetched",
                                         "relevant",
                                         "frontier",
                                         "evictions",
                                         "q_evals",
                                         "bytes_exchanged",
                                         "messages",
                                         "links",
                                         "dropped_visited",
                                         "politeness_violations",
                                         "leaves",
                                         "collectives",
                                         "collective_bytes",
                                         "allreduces",
                                         "allreduce_bytes",
                                         "visited_notes",
                                         "tick",
                                         "task",
                                         "relevant_hosts"};

/* Relevant-host bitmaps up to this many words travel in the counters' fused allreduce; larger
 * ones (over 32 768 hosts) in an allreduce of their own, where MPI may pipeline them. */
#define FUSED_HOST_WORDS 512

/*
 * Collective. Global totals of the counters and of the relevant hosts, and (tmax not NULL) the
 * largest phase timers: one fused allreduce. When no two ranks share a host (rel_disjoint) the
 * relevant hosts are the sum of the ranks' counts, one more number in it; otherwise the ranks'
 * bitmaps are OR-ed, in it or (with many hosts) in an allreduce of their own, and counted. The
 * same count either way. local: this rank's code of its last step, agreed with them
 * (cs_allreduce_fused).
 */
static cs_err global_totals(sim *s, cs_err local, int64_t *tot, int64_t *hosts, double *tmax)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    s->m.c[C_FRONTIER] = s->tally ? cs_frontier_size(s->fr) : 0; /* replicated: counted once */
    int64_t sums[NC + 1];
    memcpy(sums, s->m.c, sizeof s->m.c);
    sums[NC] = s->h.rel_count;
    uint64_t tb[NPH];
    if (tmax != NULL) /* non-negative doubles: their order is that of their bits */
        memcpy(tb, s->m.t, sizeof tb);
    const int disjoint = s->h.rel_disjoint;
    uint64_t *u = s->h.rel_host_all;
    const int64_t hw = s->h.host_words;
    const int fuse = !disjoint && hw <= FUSED_HOST_WORDS;
    if (fuse)
        memcpy(u, s->h.rel_host, (size_t)hw * 8);
    CS_TRY(ctx,
           cs_allreduce_fused(ctx, local, sums, disjoint ? NC + 1 : NC, tmax != NULL ? tb : NULL,
                              tmax != NULL ? NPH : 0, fuse ? u : NULL, fuse ? (int)hw : 0));
    if (!disjoint && !fuse)
        cs_allreduce(ctx, s->h.rel_host, u, hw, CS_T_U64, CS_OP_BOR);
    memcpy(tot, sums, sizeof s->m.c);
    if (tmax != NULL)
        memcpy(tmax, tb, sizeof tb);
    *hosts = disjoint ? sums[NC] : cs_popcount_words(u, hw);
fail:
    return rc;
}

void sim_global_counts(sim *s, int64_t *tot, int64_t *hosts)
{
    CS_ASSERT(global_totals(s, CS_OK, tot, hosts, NULL) == CS_OK);
}

cs_err sim_record_trace(sim *s, int64_t n, uint64_t tick)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    if (!s->cfg->run.trace)
        return CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->m.trace, &s->m.trace_cap, s->m.trace_len + 2 * (size_t)n + 2,
                        sizeof *s->m.trace, "trace"));
    for (int64_t i = 0; i < n; i++) {
        s->m.trace[s->m.trace_len++] = (int64_t)tick;
        s->m.trace[s->m.trace_len++] = s->f.fx[i].page;
    }
fail:
    return rc;
}

/* Collective. Appends a point to the series (counters are cumulative over the run; fetched and
 * relevant restart with each task, like the paper's per-task curves). */
cs_err sim_record(sim *s, int64_t tick, int64_t task, const int64_t *task_base)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    double t0 = cs_now();
    series *se = &s->m.s;
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
            rc = sim_diag_reserve(s, cap);
        if (rc == CS_OK)
            se->cap = cap;
    }
    int64_t tot[NC], hosts;
    double tmax[NPH];
    CS_TRY(ctx, global_totals(s, rc, tot, &hosts, tmax));
    sim_diag_record(s, se->n);
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
    s->m.t[PH_ALLREDUCE] += cs_now() - t0;
fail:
    return rc;
}

cs_err sim_record_point(sim *s, loop_state *ls, int64_t task)
{
    cs_err rc = sim_record(s, ls->tick, task, ls->task_base);
    if (rc != CS_OK)
        return rc;
    if (s->m.s.n > ls->wall_cap) {
        ls->wall_cap = s->m.s.cap;
        double *w = realloc(ls->wall, (size_t)ls->wall_cap * sizeof *w);
        CS_ASSERT(w != NULL);
        ls->wall = w;
    }
    ls->wall[s->m.s.n - 1] = cs_now() - ls->t_begin;
    return CS_OK;
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
    int mine = (int)s->m.trace_len;
    rc = cs_alloc(ctx, &cnt, (size_t)ctx->size * 2, sizeof *cnt, "trace");
    CS_TRY_AGREE(ctx, rc);
    dsp = cnt + ctx->size;
    cs_gather(ctx, &mine, 1, cnt, CS_T_INT, 0);
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
    cs_gatherv(ctx, s->m.trace, mine, all, cnt, dsp, CS_T_I64, 0);
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
/* Local. The config, the series of the record points (with the harvest rate and the
 * diagnostics), the tasks' results and the series' wall clocks into r. */
static cs_err results_series(sim *s, const loop_state *ls, cs_results *r)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    char *ini = NULL, path[128];
    const int64_t n = s->m.s.n, T = s->cfg->run.tasks;
    rc = cs_config_to_ini(ctx, s->cfg, NULL, &ini);
    if (rc == CS_OK)
        rc = cs_results_add_text(ctx, r, "config", ini);
    if (rc == CS_OK)
        rc = cs_results_attr(ctx, r, "/", "policy", s->pname);
    if (rc == CS_OK)
        rc = cs_results_attr(ctx, r, "/", "strict", s->strict ? "yes" : "no");
    for (int i = 0; i < NS && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "series/%s", sim_series_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_I64, n, 0, s->m.s.v[i]);
    }
    /* harvest rate = relevant / fetched at each point */
    double *hr = calloc((size_t)(n > T ? n : T) + 1, sizeof *hr);
    CS_ASSERT(hr != NULL);
    for (int64_t i = 0; i < n; i++)
        hr[i] = s->m.s.v[C_FETCHED][i] > 0
                    ? (double)s->m.s.v[C_RELEVANT][i] / (double)s->m.s.v[C_FETCHED][i]
                    : 0.0;
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "series/harvest_rate", CS_RES_F64, n, 0, hr);
    if (rc == CS_OK)
        rc = sim_diag_write(s, r, n);
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
        snprintf(path, sizeof path, "timing/series/%s", sim_phase_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_F64, n, 0, s->m.s.t[i]);
    }
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "timing/series/wall", CS_RES_F64, n, 0, ls->wall);
    free(hr);
    free(ini);
    return rc;
}

/* Local. The final weights (w[0..nw), NULL: none) and the summary's figures into r. */
static cs_err results_final(sim *s, const loop_state *ls, const cs_sim_summary *sum,
                            const double *w, int64_t nw, cs_results *r)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    char path[128];
    if (w != NULL)
        rc = cs_results_add(ctx, r, "final/weights", CS_RES_F64, nw, 0, w);
    if (rc != CS_OK)
        return rc;
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
    /* how this run was executed, not what it found: beside the wall clocks, outside what
     * compare compares, so that a restarted run still equals the uninterrupted one */
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "timing/resumed_at_tick", CS_RES_I64, 1, 0, &ls->resumed_tick);
    return rc;
}

/* Collective. The per-rank tables (gathered on rank 0): pages, counters, phase times, memory.
 * local: the code so far (the gathers are made only after success). */
static cs_err results_ranks(sim *s, cs_err local, cs_results *r)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = local;
    char path[128];
    s->m.c[C_FRONTIER] = cs_frontier_size(s->fr);
    int64_t pages = cs_graph_n_local(s->w.g);
    if (rc == CS_OK)
        rc = cs_results_gather(ctx, r, "ranks/pages", CS_RES_I64, 1, &pages);
    for (int i = 0; i < NC && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "ranks/%s", sim_series_name[i]);
        rc = cs_results_gather(ctx, r, path, CS_RES_I64, 1, &s->m.c[i]);
    }
    for (int i = 0; i < NPH && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "timing/ranks/%s", sim_phase_name[i]);
        rc = cs_results_gather(ctx, r, path, CS_RES_F64, 1, &s->m.t[i]);
    }
    int64_t rss = sim_peak_rss(), shm = 0, held = 0;
    int shared = 0;
    if (s->w.gen != NULL)
        held = cs_gen_shared_held(s->w.gen, &shared);
    if (shared)
        shm = sim_shared_rss();
    if (rc == CS_OK) /* the diagnostics' time on each rank, beside the phases' */
        rc = cs_results_gather(ctx, r, "timing/ranks/diagnostics", CS_RES_F64, 1, &s->d.seconds);
    if (rc == CS_OK)
        rc = cs_results_gather(ctx, r, "timing/ranks/peak_rss", CS_RES_I64, 1, &rss);
    if (rc == CS_OK)
        rc = cs_results_gather(ctx, r, "timing/ranks/shared_rss", CS_RES_I64, 1, &shm);
    if (rc == CS_OK)
        rc = cs_results_gather(ctx, r, "timing/ranks/shared_held", CS_RES_I64, 1, &held);
    return cs_agree(ctx, rc);
}

/* Collective. Whether all ranks hold bit-identical weights w[0..nw) at the end (they do right
 * after averaging): final/weights_identical. */
static cs_err results_weights_identical(cs_ctx *ctx, const double *w, int64_t nw, cs_results *r)
{
    cs_err rc = CS_OK;
    uint64_t h = 0x9e3779b97f4a7c15u;
    const unsigned char *b = (const unsigned char *)w;
    for (size_t i = 0; w != NULL && i < (size_t)nw * sizeof *w; i++)
        h = cs_mix64(h ^ b[i]);
    uint64_t hmin = 0, hmax = 0;
    cs_allreduce(ctx, &h, &hmin, 1, CS_T_U64, CS_OP_MIN);
    cs_allreduce(ctx, &h, &hmax, 1, CS_T_U64, CS_OP_MAX);
    int64_t same = hmin == hmax;
    CS_TRY_AGREE(ctx, cs_results_add(ctx, r, "final/weights_identical", CS_RES_I64, 1, 0, &same));
fail:
    return rc;
}

cs_err sim_write_results(sim *s, loop_state *ls, const char *output, cs_sim_summary *sum)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_results *r = NULL;
    CS_TRY_AGREE(ctx, cs_results_create(ctx, &r));
    rc = results_series(s, ls, r);
    int64_t nw = 0;
    double *w = s->ops->weights != NULL ? s->ops->weights(s->pol, &nw) : NULL;
    if (rc == CS_OK)
        rc = results_final(s, ls, sum, w, nw, r);
    rc = cs_agree(ctx, rc);
    CS_TRY(ctx, results_ranks(s, rc, r));
    CS_TRY(ctx, write_trace(s, r));
    if (s->rf != NULL)
        CS_TRY_AGREE(ctx, cs_simrf_results(ctx, s->rf, r));
    CS_TRY(ctx, results_weights_identical(ctx, w, nw, r));
    CS_TRY(ctx, cs_results_write(ctx, r, output));
fail:
    cs_results_destroy(&r);
    return rc;
}

void sim_record_fini(sim_record_phase *p)
{
    free(p->trace);
    for (int i = 0; i < NS; i++)
        free(p->s.v[i]);
    for (int i = 0; i < NPH; i++)
        free(p->s.t[i]);
}
