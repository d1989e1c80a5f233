/*
 * sim/sim_refresh: discovery and refresh sharing one budget in `crawlsim run` (DESIGN.md "The
 * time model"). Every page discovery fetches joins its rank's cache (cache.h)
 * at the time of its tick; a re-crawl policy (recrawl.h) crawls the cached pages as Poisson
 * processes (or Nutch intervals) under the refresh bandwidth R = f B / tick_time, solved over
 * the cached pages of all ranks at every refresh sync (so a rank's refresh share is the sum of
 * its pages' optimal rates, LambdaCrawl Eq. 5 for the lambdacrawl family); the tick's re-crawls
 * are cut from the tick's discovery budget. Staleness is integrated exactly (Eq. 1) and
 * reported per epoch beside the closed forms (Props. 1, 4) of the schedule in force.
 */
#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"
#include "sim/sim_impl.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integer and real columns of /refresh (one row per epoch). */
enum { RI_TICK, RI_CACHED, RI_CRAWLS, RI_CHANGED, RI_EXCESS, NRI };
enum {
    RD_T0,
    RD_T1,
    RD_SHARE,
    RD_FRACTION,
    RD_BANDWIDTH,
    RD_JH,
    RD_JB,
    RD_JH_CLOSED,
    RD_JB_CLOSED,
    RD_DELTA_ERR,
    RD_IH,
    RD_IB,
    NRD
};
static const char *const ri_name[NRI] = {"tick", "cache_size", "crawls", "crawls_changed",
                                         "budget_excess"};
static const char *const rd_name[NRD] = {"t0",        "t1",        "share", "fraction",
                                         "bandwidth", "jh",        "jb",    "jh_closed",
                                         "jb_closed", "delta_err", "ih",    "ib"};

/* The procedural world's pages, computed when they join the cache (proc_attr, proc_group). */
typedef struct proc_pages {
    const cs_gen *gen;
    const cs_gen_config *c;
    const cs_graph *g;
    int by_host;   /* bandit groups by host, else by class of change rate: */
    int64_t K;     /* classes, */
    double lo, hi; /* the smallest and largest change rate over all pages */
} proc_pages;

struct sim_refresh {
    const cs_config *cfg;
    int32_t *group; /* bandit-* policies on a materialized world: the group of each local page */
    proc_pages pp;  /* the procedural world */
    char policy[64];
    cs_cache_pages pg;
    cs_cache *cache;
    cs_recrawl *rc;
    double tau;      /* refresh.tick_time */
    double frac;     /* the share f in force */
    int adaptive;    /* refresh.fraction = adaptive */
    int synced;      /* the first sync happened */
    int64_t t_sync;  /* tick of the last sync */
    double ih0, ib0; /* integrals at the last sync */
    double R;        /* bandwidth of the schedule in force */
    double jh_closed, jb_closed, derr;
    /* counts: local cumulative re-crawls and those that found a change; global excess */
    int64_t crawls, changed, excess;
    /* global counts at the last sync (the adaptive split compares epochs) */
    int64_t g_crawls0, g_changed0, g_fetched0, g_relevant0;
    /* the rows */
    int64_t n, cap;
    int64_t *vi[NRI];
    double *vd[NRD];
    double jh_run, jb_run; /* time averages over the whole run (finish) */
    int64_t crawls_run;
};

/* The name of choice idx of the ENUM key section.key (the schema's own list). */
static int choice_name(const char *section, const char *key, int idx, char *out, size_t size)
{
    size_t n = 0;
    const cs_conf_entry *s = cs_config_schema(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s[i].section, section) != 0 || strcmp(s[i].key, key) != 0)
            continue;
        const char *c = s[i].choices;
        for (int j = 0; j < idx && c != NULL; j++) {
            c = strchr(c, '|');
            if (c != NULL)
                c++;
        }
        if (c == NULL)
            return 0;
        const char *bar = strchr(c, '|');
        snprintf(out, size, "%.*s", (int)(bar ? (size_t)(bar - c) : strlen(c)), c);
        return 1;
    }
    return 0;
}

/* The class of change rate delta among K log-spaced between lo and hi (all 0 when equal). */
static int32_t rate_class(double delta, double lo, double hi, int64_t K)
{
    const double span = log(hi) - log(lo);
    int64_t c = span > 0.0 ? (int64_t)floor((double)K * (log(delta) - log(lo)) / span) : 0;
    return (int32_t)(c < 0 ? 0 : c >= K ? K - 1 : c);
}

/* Local. The procedural world's attributes of local page li: those of cs_gen_slice, bit for
 * bit (cs_cache_attr_fn). */
static void proc_attr(const void *arg, int64_t li, cs_cache_attr *a)
{
    const proc_pages *pp = arg;
    const int64_t p = cs_graph_local_id(pp->g, li);
    a->id = p;
    cs_gen_page_dynamics(pp->c, cs_gen_host_of(pp->gen, p), p, CS_RNG_PAGE, &a->delta, &a->mu,
                         &a->complete);
}

/* Local. The bandit group of the procedural world's local page li: its host, or its class of
 * change rate. */
static int32_t proc_group(const void *arg, int64_t li)
{
    const proc_pages *pp = arg;
    const int64_t p = cs_graph_local_id(pp->g, li);
    const int64_t h = cs_gen_host_of(pp->gen, p);
    if (pp->by_host)
        return (int32_t)h;
    double delta = 0.0, mu = 0.0;
    uint8_t cf = 0;
    cs_gen_page_dynamics(pp->c, h, p, CS_RNG_PAGE, &delta, &mu, &cf);
    return rate_class(delta, pp->lo, pp->hi, pp->K);
}

/* Inside a parallel region: a thread's range into the team's (min and max, in any order the
 * same). Not a min/max reduction clause: its copies start at +-inf with gcc but at the largest
 * finite values with clang, which a rank without pages would return. */
static void range_join(double *lo, double *hi, double tlo, double thi)
{
#pragma omp critical(crawlsim_proc_range)
    {
        *lo = tlo < *lo ? tlo : *lo;
        *hi = thi > *hi ? thi : *hi;
    }
}

/* Local. The smallest and largest change rate over the procedural world's local pages, O(N / P),
 * run only for the bandit-* policies' rate classes: nothing stored, each host's base rate drawn
 * once, and a page drawn in full only when the bound on its jitter lets it leave the range found
 * so far (cs_gen_rate_range). The change rates are log-normal: the world's parameters bound them
 * by no finite value, so only a pass gives the range the materialized world's arrays give. The
 * rank's pages are runs of consecutive ids (one for host-preserving ranges, a host's pages for
 * host hashing): the threads share the runs, or each run's pages when there are few runs. */
static void proc_range(const proc_pages *pp, double *lo, double *hi)
{
    const int64_t nr = cs_graph_n_local_runs(pp->g);
    double dlo = (double)INFINITY, dhi = -(double)INFINITY;
    if (nr < 0) { /* the local ids one by one (a directory): runs of consecutive ids found here */
        const int64_t n = cs_graph_n_local(pp->g);
#pragma omp parallel default(none) shared(pp, n, dlo, dhi)
        {
            const int64_t T = omp_get_num_threads(), me = omp_get_thread_num();
            const int64_t e = n * (me + 1) / T;
            double tlo = (double)INFINITY, thi = -(double)INFINITY;
            for (int64_t i = n * me / T; i < e;) {
                const int64_t first = cs_graph_local_id(pp->g, i);
                int64_t k = 1;
                while (i + k < e && cs_graph_local_id(pp->g, i + k) == first + k)
                    k++;
                cs_gen_rate_range(pp->gen, pp->c, first, k, CS_RNG_PAGE, &tlo, &thi);
                i += k;
            }
            range_join(&dlo, &dhi, tlo, thi);
        }
    } else {
#pragma omp parallel default(none) shared(pp, nr, dlo, dhi)
        {
            const int64_t T = omp_get_num_threads(), me = omp_get_thread_num();
            const int split = nr < 4 * T; /* few runs: each thread takes a part of every run */
            double tlo = (double)INFINITY, thi = -(double)INFINITY;
            for (int64_t i = split ? 0 : me; i < nr; i += split ? 1 : T) {
                int64_t first = 0, count = 0, base = 0;
                cs_graph_local_run(pp->g, i, &first, &count, &base);
                const int64_t a = split ? count * me / T : 0,
                              b = split ? count * (me + 1) / T : count;
                cs_gen_rate_range(pp->gen, pp->c, first + a, b - a, CS_RNG_PAGE, &tlo, &thi);
            }
            range_join(&dlo, &dhi, tlo, thi);
        }
    }
    *lo = dlo;
    *hi = dhi;
}

/* Collective. The groups of the bandit-* policies: a local page's host, or its class of change
 * rate (refresh.groups classes log-spaced between the smallest and largest delta over all
 * pages; all in class 0 when they are equal). On a materialized world an array over the local
 * pages, on the procedural world computed when a page joins (proc_group). */
static cs_err make_groups(cs_ctx *ctx, const cs_config *cfg, const cs_graph *g, sim_refresh *rf,
                          cs_recrawl_config *rcfg)
{
    const int64_t n = cs_graph_n_local(g);
    const int proc = rf->pp.gen != NULL;
    rf->pp.by_host = cfg->refresh.group_by == CS_GROUP_HOST;
    rf->pp.K = cfg->refresh.groups;
    if (proc) {
        rcfg->group_of = proc_group;
        rcfg->group_arg = &rf->pp;
    } else {
        cs_err rc = cs_alloc(ctx, &rf->group, n > 0 ? (size_t)n : 1, sizeof *rf->group, "groups");
        if (cs_agree(ctx, rc) != CS_OK)
            return CS_ERR_NOMEM;
        rcfg->group = rf->group;
    }
    if (rf->pp.by_host) {
        const int64_t *host = cs_graph_host(g);
        for (int64_t i = 0; !proc && i < n; i++)
            rf->group[i] = (int32_t)host[i];
        rcfg->n_groups = cs_graph_n_hosts(g);
        return CS_OK;
    }
    double lo = (double)INFINITY, hi = -(double)INFINITY;
    if (proc) {
        proc_range(&rf->pp, &lo, &hi);
    } else {
        const double *delta = rf->pg.delta;
        for (int64_t i = 0; i < n; i++) {
            lo = delta[i] < lo ? delta[i] : lo;
            hi = delta[i] > hi ? delta[i] : hi;
        }
    }
    cs_allreduce(ctx, NULL, &lo, 1, CS_T_F64, CS_OP_MIN);
    cs_allreduce(ctx, NULL, &hi, 1, CS_T_F64, CS_OP_MAX);
    rf->pp.lo = lo;
    rf->pp.hi = hi;
    for (int64_t i = 0; !proc && i < n; i++)
        rf->group[i] = rate_class(rf->pg.delta[i], lo, hi, rf->pp.K);
    rcfg->n_groups = rf->pp.K;
    return CS_OK;
}

cs_err cs_simrf_create(cs_ctx *ctx, const cs_config *cfg, const cs_graph *g, const cs_gen *gen,
                       sim_refresh **out)
{
    cs_err rc = CS_OK;
    const cs_refresh_config *fc = &cfg->refresh;
    *out = NULL;
    if (fc->policy == 0)
        return CS_OK;
    sim_refresh *rf = NULL;
    CS_TRY_AGREE(ctx, cs_calloc(ctx, &rf, 1, sizeof *rf, "refresh"));
    rf->cfg = cfg;
    CS_ASSERT(choice_name("refresh", "policy", fc->policy, rf->policy, sizeof rf->policy));
    double f = 0.0;
    CS_ASSERT(cs_refresh_fraction_parse(fc->fraction, &f)); /* validated with the config */
    rf->adaptive = f == CS_REFRESH_SPLIT_ADAPTIVE;
    rf->frac = rf->adaptive ? fc->split_start : f;
    rf->tau = fc->tick_time;
    rf->R = rf->frac * (double)cfg->crawl.bandwidth / rf->tau;
    rf->jh_closed = rf->jb_closed = rf->derr = (double)NAN;
    rf->pg.n = cs_graph_n_local(g);
    if (gen != NULL) { /* the procedural world: a page's attributes when it joins */
        rf->pp.gen = gen;
        rf->pp.c = &cfg->gen;
        rf->pp.g = g;
        /* the queue sized by the expected complete pages, not counted: set-up stays O(1) in
         * the rank's pages (the bucket count changes no result) */
        rf->pg.n_complete = (int64_t)(cfg->gen.observable_fraction * (double)rf->pg.n);
        rf->pg.attr = proc_attr;
        rf->pg.attr_arg = &rf->pp;
    } else {
        rf->pg.id = cs_graph_local_ids(g);
        rf->pg.mu = cs_graph_mu(g);
        rf->pg.delta = cs_graph_delta(g);
        rf->pg.complete = cs_graph_observable(g);
    }
    cs_cache_opts co;
    cs_cache_opts_default(&co);
    co.seed = (uint64_t)cfg->gen.seed; /* the world's change streams */
    co.t0 = 0.0;
    co.queue_width = rf->tau; /* polls come once per tick */
    CS_TRY_AGREE(ctx, cs_cache_create(ctx, &rf->pg, &co, &rf->cache));
    cs_recrawl_config rcfg;
    cs_recrawl_config_default(&rcfg);
    rcfg.policy = rf->policy;
    rcfg.bandwidth = rf->R;
    rcfg.seed = cs_mix64((uint64_t)cfg->run.seed ^ CS_HASH_REFRESH);
    rcfg.epsilon = fc->epsilon;
    rcfg.adapt_shrink = fc->adapt_shrink;
    rcfg.adapt_grow = fc->adapt_grow;
    rcfg.adapt_init = fc->adapt_init;
    rcfg.adapt_min = fc->adapt_min;
    rcfg.adapt_max = fc->adapt_max;
    rcfg.learn_guess = fc->learn_guess;
    rcfg.learn_suffix = (int)fc->learn_suffix;
    if (cs_recrawl_is_slot(rf->policy)) {
        CS_TRY_AGREE(ctx, make_groups(ctx, cfg, g, rf, &rcfg));
        rcfg.slot = rf->tau;
        rcfg.whittle_decay = fc->whittle_decay;
        cs_bandit_settings(&cfg->bandit, &rcfg.fgdqn, &rcfg.lspe); /* as crawlsim bandit */
    }
    CS_TRY_AGREE(ctx, cs_recrawl_create(ctx, &rcfg, &rf->pg, rf->cache, &rf->rc));
    *out = rf;
    return CS_OK;
fail:
    cs_simrf_destroy(&rf);
    return rc;
}

void cs_simrf_destroy(sim_refresh **prf)
{
    if (prf == NULL || *prf == NULL)
        return;
    sim_refresh *rf = *prf;
    cs_recrawl_destroy(&rf->rc);
    cs_cache_destroy(&rf->cache);
    free(rf->group);
    for (int i = 0; i < NRI; i++)
        free(rf->vi[i]);
    for (int i = 0; i < NRD; i++)
        free(rf->vd[i]);
    free(rf);
    *prf = NULL;
}

double cs_simrf_time(const sim_refresh *rf, int64_t tick)
{
    return (double)tick * rf->tau;
}

cs_err cs_simrf_step(cs_ctx *ctx, sim_refresh *rf, int64_t tick, const cs_recrawl_crawl **crawls,
                     int64_t *n, int64_t *n_all)
{
    cs_err rc = CS_OK;
    *crawls = NULL;
    *n = 0;
    if (rf->synced)
        CS_TRY(ctx, cs_recrawl_step_all(ctx, rf->rc, cs_simrf_time(rf, tick), crawls, n));
    for (int64_t i = 0; i < *n; i++)
        rf->changed += (*crawls)[i].changes > 0;
    rf->crawls += *n;
    cs_allreduce(ctx, n, n_all, 1, CS_T_I64, CS_OP_SUM);
fail:
    return rc;
}

cs_err cs_simrf_fetched(sim_refresh *rf, const int64_t *li, int64_t n, int64_t tick)
{
    return cs_recrawl_fetch_batch(rf->rc, li, n, cs_simrf_time(rf, tick));
}

void cs_simrf_excess(sim_refresh *rf, int64_t excess)
{
    rf->excess += excess;
}

/* Local. Room for one more row. */
static cs_err grow_rows(cs_ctx *ctx, sim_refresh *rf)
{
    if (rf->n < rf->cap)
        return CS_OK;
    const int64_t cap = rf->cap ? 2 * rf->cap : 64;
    for (int i = 0; i < NRI; i++) {
        void *p = realloc(rf->vi[i], (size_t)cap * sizeof(int64_t));
        if (p == NULL)
            return cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the refresh series");
        rf->vi[i] = p;
    }
    for (int i = 0; i < NRD; i++) {
        void *p = realloc(rf->vd[i], (size_t)cap * sizeof(double));
        if (p == NULL)
            return cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the refresh series");
        rf->vd[i] = p;
    }
    rf->cap = cap;
    return CS_OK;
}

/* Collective. The row of the epoch (last sync, tick]; g[] = global crawls, changed (cumulative).
 * Returns the integrals at tick in *ih, *ib. */
static cs_err add_row(cs_ctx *ctx, sim_refresh *rf, int64_t tick, const int64_t *g, double *ih,
                      double *ib)
{
    cs_err rc = CS_OK;
    const double t0 = cs_simrf_time(rf, rf->t_sync), t1 = cs_simrf_time(rf, tick);
    CS_TRY(ctx, cs_cache_integrals(ctx, rf->cache, t1, ih, ib));
    cs_cache_stats st;
    cs_cache_get_stats(rf->cache, &st);
    int64_t cached = 0;
    cs_allreduce(ctx, &st.cached, &cached, 1, CS_T_I64, CS_OP_SUM);
    CS_TRY_AGREE(ctx, grow_rows(ctx, rf));
    const int64_t k = rf->n++;
    rf->vi[RI_TICK][k] = tick;
    rf->vi[RI_CACHED][k] = cached;
    rf->vi[RI_CRAWLS][k] = g[0] - rf->g_crawls0;
    rf->vi[RI_CHANGED][k] = g[1] - rf->g_changed0;
    rf->vi[RI_EXCESS][k] = rf->excess;
    rf->vd[RD_T0][k] = t0;
    rf->vd[RD_T1][k] = t1;
    rf->vd[RD_SHARE][k] = rf->R;
    rf->vd[RD_FRACTION][k] = rf->frac;
    rf->vd[RD_BANDWIDTH][k] = (double)(g[0] - rf->g_crawls0) / (t1 - t0);
    rf->vd[RD_JH][k] = (*ih - rf->ih0) / (t1 - t0);
    rf->vd[RD_JB][k] = (*ib - rf->ib0) / (t1 - t0);
    rf->vd[RD_JH_CLOSED][k] = rf->jh_closed;
    rf->vd[RD_JB_CLOSED][k] = rf->jb_closed;
    rf->vd[RD_DELTA_ERR][k] = rf->derr;
    rf->vd[RD_IH][k] = *ih;
    rf->vd[RD_IB][k] = *ib;
fail:
    return rc;
}

/*
 * The adaptive split: one step of refresh.split_step toward the side whose last epoch was the
 * more useful per fetch, judged on integer counts over all ranks (the same decision for any
 * rank count): re-crawls that found a change per re-crawl against relevant pages per discovery
 * fetch. No discovery fetch in the epoch (nothing left to discover) moves toward refresh; no
 * re-crawl leaves the share as it is.
 */
static void adapt_split(sim_refresh *rf, const int64_t *g)
{
    const cs_refresh_config *fc = &rf->cfg->refresh;
    const int64_t dc = g[0] - rf->g_crawls0, dz = g[1] - rf->g_changed0;
    const int64_t df = g[2] - rf->g_fetched0, dr = g[3] - rf->g_relevant0;
    int dir = 0;
    if (dc > 0 && df == 0)
        dir = 1;
    else if (dc > 0) /* dz / dc > dr / df; the same counts on every rank: the same decision */
        dir = (long double)dz * (long double)df > (long double)dr * (long double)dc ? 1 : -1;
    rf->frac += dir * fc->split_step;
    if (rf->frac > fc->split_max)
        rf->frac = fc->split_max;
    if (rf->frac < fc->split_min)
        rf->frac = fc->split_min;
}

/*
 * Collective. Caps R when every cached page is complete: crawling on each notified change then
 * uses at most the sum of their change rates (cs_refresh_solve refuses more); the share left
 * over is not used (discovery gets it back tick by tick). Exact sums: the same R everywhere.
 */
static cs_err cap_complete(cs_ctx *ctx, sim_refresh *rf, double *R)
{
    cs_err rc = CS_OK;
    int64_t inc = 0, ginc = 0;
    cs_cache_slot_view v;
    cs_cache_slots(rf->cache, &v);
    const int64_t n = v.n;
    const uint8_t *cf = v.complete;
#pragma omp parallel for if (n >= 4096) default(none) shared(cf, n) reduction(+ : inc)             \
    schedule(static)
    for (int64_t i = 0; i < n; i++)
        inc += !(cf != NULL && cf[i]);
    cs_allreduce(ctx, &inc, &ginc, 1, CS_T_I64, CS_OP_SUM);
    if (ginc > 0)
        return CS_OK;
    double sum = 0.0;
    CS_TRY(ctx, cs_comm_sum_exact(ctx, v.delta, n, &sum)); /* the slots: an exact sum */
    if (sum > 0.0 && *R > 0.999 * sum)
        *R = 0.999 * sum;
fail:
    return rc;
}

cs_err cs_simrf_sync(cs_ctx *ctx, sim_refresh *rf, int64_t tick, int64_t fetched, int64_t relevant)
{
    cs_err rc = CS_OK;
    if (tick % rf->cfg->refresh.sync_every != 0)
        return CS_OK;
    const double t = cs_simrf_time(rf, tick);
    /* the integrals below then walk only the changes since the last sync */
    cs_cache_settle(rf->cache, t);
    int64_t loc[2] = {rf->crawls, rf->changed}, g[4];
    cs_allreduce(ctx, loc, g, 2, CS_T_I64, CS_OP_SUM);
    g[2] = fetched;
    g[3] = relevant;
    double ih = 0.0, ib = 0.0;
    if (rf->synced && tick > rf->t_sync) {
        CS_TRY(ctx, add_row(ctx, rf, tick, g, &ih, &ib));
        if (rf->adaptive)
            adapt_split(rf, g);
    } else {
        CS_TRY(ctx, cs_cache_integrals(ctx, rf->cache, t, &ih, &ib));
    }
    double R = rf->frac * (double)rf->cfg->crawl.bandwidth / rf->tau;
    CS_TRY(ctx, cap_complete(ctx, rf, &R));
    CS_TRY_AGREE(ctx, cs_recrawl_set_bandwidth(rf->rc, R));
    CS_TRY(ctx, cs_recrawl_sync(ctx, rf->rc, t));
    CS_TRY(ctx, cs_recrawl_cost(ctx, rf->rc, &rf->jh_closed, &rf->jb_closed));
    CS_TRY(ctx, cs_recrawl_delta_error(ctx, rf->rc, &rf->derr));
    rf->R = R;
    rf->ih0 = ih;
    rf->ib0 = ib;
    rf->t_sync = tick;
    rf->synced = 1;
    rf->g_crawls0 = g[0];
    rf->g_changed0 = g[1];
    rf->g_fetched0 = g[2];
    rf->g_relevant0 = g[3];
fail:
    return rc;
}

cs_err cs_simrf_finish(cs_ctx *ctx, sim_refresh *rf, int64_t tick)
{
    cs_err rc = CS_OK;
    int64_t loc[2] = {rf->crawls, rf->changed}, g[2];
    cs_allreduce(ctx, loc, g, 2, CS_T_I64, CS_OP_SUM);
    double ih = 0.0, ib = 0.0;
    const double t = cs_simrf_time(rf, tick);
    if (rf->synced && tick > rf->t_sync)
        CS_TRY(ctx, add_row(ctx, rf, tick, g, &ih, &ib));
    else
        CS_TRY(ctx, cs_cache_integrals(ctx, rf->cache, t, &ih, &ib));
    rf->jh_run = t > 0.0 ? ih / t : (double)NAN;
    rf->jb_run = t > 0.0 ? ib / t : (double)NAN;
    rf->crawls_run = g[0];
    CS_TRY_AGREE(ctx, cs_cache_close(rf->cache, t));
fail:
    return rc;
}

cs_err cs_simrf_results(cs_ctx *ctx, const sim_refresh *rf, cs_results *r)
{
    cs_err rc = CS_OK;
    char path[128];
    for (int i = 0; i < NRI && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "refresh/%s", ri_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_I64, rf->n, 0, rf->vi[i]);
    }
    for (int i = 0; i < NRD && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "refresh/%s", rd_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_F64, rf->n, 0, rf->vd[i]);
    }
    if (rc == CS_OK)
        rc = cs_results_attr(ctx, r, "refresh", "policy", rf->policy);
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "final/refresh_crawls", CS_RES_I64, 1, 0, &rf->crawls_run);
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "final/refresh_jh", CS_RES_F64, 1, 0, &rf->jh_run);
    if (rc == CS_OK)
        rc = cs_results_add(ctx, r, "final/refresh_jb", CS_RES_F64, 1, 0, &rf->jb_run);
    return rc;
}

void cs_simrf_summary(const sim_refresh *rf)
{
    const int64_t k = rf->n - 1;
    printf("  refresh %s: %lld re-crawls, cache %lld pages, J_h %.6g J_b %.6g over the run",
           rf->policy, (long long)rf->crawls_run, (long long)(k >= 0 ? rf->vi[RI_CACHED][k] : 0),
           rf->jh_run, rf->jb_run);
    if (k >= 0)
        printf("; last epoch J_h %.6g (closed form %.6g), %.6g crawls/time unit (share %.6g)",
               rf->vd[RD_JH][k], rf->vd[RD_JH_CLOSED][k], rf->vd[RD_BANDWIDTH][k],
               rf->vd[RD_SHARE][k]);
    printf("\n");
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

enum {
    SI_SYNCED,
    SI_TSYNC,
    SI_CRAWLS,
    SI_CHANGED,
    SI_EXCESS,
    SI_GC,
    SI_GCH,
    SI_GF,
    SI_GR,
    SI_ROWS,
    SI_CRUN,
    SI_N
};
enum { SD_FRAC, SD_IH0, SD_IB0, SD_R, SD_JHC, SD_JBC, SD_DERR, SD_JHRUN, SD_JBRUN, SD_N };

cs_err cs_simrf_save(cs_ctx *ctx, const sim_refresh *rf, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    char name[96];
    const int64_t si[SI_N] = {rf->synced,      rf->t_sync,    rf->crawls,     rf->changed,
                              rf->excess,      rf->g_crawls0, rf->g_changed0, rf->g_fetched0,
                              rf->g_relevant0, rf->n,         rf->crawls_run};
    const double sd[SD_N] = {rf->frac,      rf->ih0,  rf->ib0,    rf->R,     rf->jh_closed,
                             rf->jb_closed, rf->derr, rf->jh_run, rf->jb_run};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/state", CS_CK_I64, SI_N, si));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/values", CS_CK_F64, SD_N, sd));
    for (int i = 0; i < NRI; i++) {
        snprintf(name, sizeof name, "refresh/rows/%s", ri_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, rf->n, rf->vi[i]));
    }
    for (int i = 0; i < NRD; i++) {
        snprintf(name, sizeof name, "refresh/rows/%s", rd_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F64, rf->n, rf->vd[i]));
    }
    CS_TRY(ctx, cs_cache_save(ctx, rf->cache, ck));
    CS_TRY(ctx, cs_recrawl_save(ctx, rf->rc, ck));
fail:
    return rc;
}

cs_err cs_simrf_load(cs_ctx *ctx, sim_refresh *rf, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    char name[96];
    int64_t si[SI_N];
    double sd[SD_N];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/state", CS_CK_I64, SI_N, si));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/values", CS_CK_F64, SD_N, sd));
    if (si[SI_ROWS] < 0)
        rc =
            cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: malformed refresh state", cs_ckpt_path(ck));
    while (rc == CS_OK && rf->cap < si[SI_ROWS]) {
        rf->n = rf->cap; /* grow_rows grows a full table */
        rc = grow_rows(ctx, rf);
    }
    CS_TRY_AGREE(ctx, rc);
    rf->n = si[SI_ROWS];
    for (int i = 0; i < NRI; i++) {
        snprintf(name, sizeof name, "refresh/rows/%s", ri_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, rf->n, rf->vi[i]));
    }
    for (int i = 0; i < NRD; i++) {
        snprintf(name, sizeof name, "refresh/rows/%s", rd_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F64, rf->n, rf->vd[i]));
    }
    CS_TRY(ctx, cs_cache_load(ctx, rf->cache, ck));
    CS_TRY(ctx, cs_recrawl_load(ctx, rf->rc, ck));
    rf->synced = (int)si[SI_SYNCED];
    rf->t_sync = si[SI_TSYNC];
    rf->crawls = si[SI_CRAWLS];
    rf->changed = si[SI_CHANGED];
    rf->excess = si[SI_EXCESS];
    rf->g_crawls0 = si[SI_GC];
    rf->g_changed0 = si[SI_GCH];
    rf->g_fetched0 = si[SI_GF];
    rf->g_relevant0 = si[SI_GR];
    rf->crawls_run = si[SI_CRUN];
    rf->frac = sd[SD_FRAC];
    rf->ih0 = sd[SD_IH0];
    rf->ib0 = sd[SD_IB0];
    rf->R = sd[SD_R];
    rf->jh_closed = sd[SD_JHC];
    rf->jb_closed = sd[SD_JBC];
    rf->derr = sd[SD_DERR];
    rf->jh_run = sd[SD_JHRUN];
    rf->jb_run = sd[SD_JBRUN];
fail:
    return rc;
}
