/*
 * crawlsim bandit: runs the restless-bandit experiments of Avrachenkov & Borkar (Whittle index
 * and its learning scheme, ephemeral content) and Avrachenkov, Borkar & Patil (binary freshness
 * over page groups: static optimisation, FG-DQN, Thompson sampling, uniform) directly from arm
 * parameters in the [bandit] section, and writes per policy
 *   /series/<policy>/{running_mean, running_ci95, moving_mean, moving_ci95}   [horizon]
 *   /final/<policy>/average                                                   [runs]
 * (running average = mean reward of ticks 1..t; moving = of the last `window` ticks; ci95 = the
 * half-width of the Student-t 95 % interval over runs) plus the resolved config.
 *
 * Runs are dealt to ranks (run r on rank r mod P) and their reward series combined by an
 * a sum reduction in which every element has exactly one non-zero contribution, so the file is
 * identical for any rank count.
 */
#include "main/cmd_bandit.h"

#include "crawlsim/bandit.h"
#include "crawlsim/comm.h"
#include "crawlsim/config.h"
#include "crawlsim/h5.h"
#include "crawlsim/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARMS 4096
#define MAX_POL 16

/* Parses a comma-separated list of positive numbers ("inf" allowed when allow_inf) into v[]. */
static cs_err parse_list(cs_ctx *ctx, const char *key, const char *text, int allow_inf, double *v,
                         int64_t *n)
{
    int64_t k = 0;
    const char *s = text;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        char *end = NULL;
        const char *next;
        double x;
        if (strncmp(s, "inf", 3) == 0 && allow_inf) {
            x = (double)INFINITY;
            next = s + 3;
        } else {
            x = strtod(s, &end);
            next = end;
            if (end == s || !isfinite(x))
                return cs_fail(ctx, CS_ERR_CONFIG, "bandit.%s = '%s': entry %lld is not a number%s",
                               key, text, (long long)k + 1, allow_inf ? " or inf" : "");
        }
        if (!(x > 0.0))
            return cs_fail(ctx, CS_ERR_CONFIG, "bandit.%s = '%s': entry %lld must be > 0", key,
                           text, (long long)k + 1);
        if (k == MAX_ARMS)
            return cs_fail(ctx, CS_ERR_CONFIG, "bandit.%s: more than %d arms", key, MAX_ARMS);
        v[k++] = x;
        s = next;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return cs_fail(ctx, CS_ERR_CONFIG, "bandit.%s = '%s': expected ',' after entry %lld",
                           key, text, (long long)k);
    }
    if (k == 0)
        return cs_fail(ctx, CS_ERR_CONFIG, "bandit.%s is empty", key);
    *n = k;
    return CS_OK;
}

/* A list of length 1 is broadcast to n entries; otherwise it must have n. */
static cs_err fit_list(cs_ctx *ctx, const char *key, double *v, int64_t got, int64_t n,
                       const char *what)
{
    if (got == n)
        return CS_OK;
    if (got == 1) {
        for (int64_t i = 1; i < n; i++)
            v[i] = v[0];
        return CS_OK;
    }
    return cs_fail(ctx, CS_ERR_CONFIG, "bandit.%s has %lld entries but %s has %lld", key,
                   (long long)got, what, (long long)n);
}

/* Student-t 0.975 quantile for df degrees of freedom. */
static double t975(int64_t df)
{
    static const double t[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < 1)
        return (double)NAN;
    if (df <= 30)
        return df == 3 ? 3.182 : t[df - 1];
    return 1.96 + 2.4 / (double)df; /* within 0.2 % of the quantile for df > 30 */
}

/* A series: a registered policy, and its arm for a policy with one series per arm. */
typedef struct pol {
    char name[32];
    const cs_bandit_ops *ops;
    int64_t arm;
} pol;

/* One run of one policy into rw[horizon]. */
static cs_err run_one(cs_ctx *local, const cs_bandit_config *b, const pol *p,
                      const cs_ephemeral_setup *es, const cs_fresh_setup *fs, uint64_t run,
                      double *rw)
{
    const uint64_t seed = (uint64_t)b->seed;
    if (b->experiment == CS_BANDIT_FRESHNESS)
        return cs_fresh_run(local, fs, p->ops, b->horizon, seed, run, rw);
    return p->ops->ephemeral(local, es, p->arm, b->horizon, seed, run, rw);
}

/* The registered policies of the experiment, for messages ("a, b, c"). */
static void policy_list(int ephemeral, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; cs_bandit_at(i) != NULL && at < len; i++) {
        const cs_bandit_ops *o = cs_bandit_at(i);
        if (ephemeral ? o->ephemeral == NULL : !o->freshness)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", cs_bandit_name(o));
    }
}

/* The ephemeral experiment's arms from [bandit] (arrival, decay, lifetime, cost; a list of one
 * entry is broadcast to every arm) into es, its values kept in v (6 MAX_ARMS); *K: the arms.
 * The same config on every rank: the checks agree without communication. */
static cs_err ephemeral_arms(cs_ctx *ctx, const cs_bandit_config *b, double *v,
                             cs_ephemeral_setup *es, int64_t *K)
{
    double *v1 = v, *v2 = v1 + MAX_ARMS, *v3 = v2 + MAX_ARMS, *v4 = v3 + MAX_ARMS;
    double *u = v4 + MAX_ARMS, *alpha = u + MAX_ARMS;
    int64_t n2 = 0, n3 = 0, n4 = 0;
    cs_err rc;
    CS_TRY(ctx, parse_list(ctx, "arrival", b->arrival, 0, v1, K));
    CS_TRY(ctx, parse_list(ctx, "decay", b->decay, 0, v2, &n2));
    CS_TRY(ctx, fit_list(ctx, "decay", v2, n2, *K, "bandit.arrival"));
    CS_TRY(ctx, parse_list(ctx, "lifetime", b->lifetime, 1, v3, &n3));
    CS_TRY(ctx, fit_list(ctx, "lifetime", v3, n3, *K, "bandit.arrival"));
    CS_TRY(ctx, parse_list(ctx, "cost", b->cost, 0, v4, &n4));
    CS_TRY(ctx, fit_list(ctx, "cost", v4, n4, *K, "bandit.arrival"));
    for (int64_t i = 0; i < *K; i++) {
        alpha[i] = exp(-v2[i]);
        u[i] = cs_whittle_u(v1[i], v2[i], v3[i]);
    }
    es->K = *K;
    es->u = u;
    es->alpha = alpha;
    es->cost = v4;
    es->crawlers = b->crawlers;
    return CS_OK;
fail:
    return rc;
}

/* The freshness experiment's page groups from [bandit] (group_sizes, rates, importance) into
 * fs, the values kept in v (3 MAX_ARMS) and sizes (MAX_ARMS); *K: the groups. */
static cs_err freshness_arms(cs_ctx *ctx, const cs_bandit_config *b, double *v, int64_t *sizes,
                             cs_fresh_setup *fs, int64_t *K)
{
    double *v1 = v, *v2 = v1 + MAX_ARMS, *v3 = v2 + MAX_ARMS;
    int64_t n2 = 0, n3 = 0;
    cs_err rc;
    CS_TRY(ctx, parse_list(ctx, "group_sizes", b->group_sizes, 0, v1, K));
    for (int64_t i = 0; i < *K; i++) {
        if (v1[i] != floor(v1[i]) || v1[i] > 1e9)
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "bandit.group_sizes: entry %lld (%g) is not a whole number of pages",
                           (long long)i + 1, v1[i]);
        sizes[i] = (int64_t)v1[i];
    }
    CS_TRY(ctx, parse_list(ctx, "rates", b->rates, 0, v2, &n2));
    CS_TRY(ctx, fit_list(ctx, "rates", v2, n2, *K, "bandit.group_sizes"));
    CS_TRY(ctx, parse_list(ctx, "importance", b->importance, 0, v3, &n3));
    CS_TRY(ctx, fit_list(ctx, "importance", v3, n3, *K, "bandit.group_sizes"));
    fs->K = *K;
    fs->size = sizes;
    fs->rate = v2;
    fs->mu = v3;
    fs->slot = b->slot;
    if (b->replay < b->batch)
        return cs_fail(ctx, CS_ERR_CONFIG, "bandit.replay (%lld) is below bandit.batch (%lld)",
                       (long long)b->replay, (long long)b->batch);
    return CS_OK;
fail:
    return rc;
}

/* The series of bandit.policies (the experiment's defaults when empty) into pols[*np]: one per
 * policy, one per arm for a per-arm policy of the ephemeral experiment (K arms). */
static cs_err read_policies(cs_ctx *ctx, const cs_bandit_config *b, int64_t K, pol *pols, int *np)
{
    const int eph = b->experiment == CS_BANDIT_EPHEMERAL;
    const char *list = b->policies[0] ? b->policies
                       : eph          ? "whittle,learn,fixed"
                                      : "static-opt,fgdqn,thompson,uniform";
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    *np = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
         tok = strtok_r(NULL, ", \t", &save)) {
        const cs_bandit_ops *ops = cs_bandit_find(tok);
        if (ops == NULL || (eph ? ops->ephemeral == NULL : !ops->freshness)) {
            char names[256];
            policy_list(eph, names, sizeof names);
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "bandit.policies: '%s' is not a policy of the %s experiment (%s)", tok,
                           eph ? "ephemeral" : "freshness", names);
        }
        for (int q = 0; q < *np; q++)
            if (pols[q].ops == ops)
                return cs_fail(ctx, CS_ERR_CONFIG, "bandit.policies: '%s' is listed twice", tok);
        const int64_t series = eph && ops->per_arm ? K : 1;
        for (int64_t a = 0; a < series; a++) {
            if (*np == MAX_POL)
                return cs_fail(ctx, CS_ERR_CONFIG, "bandit.policies: too many series");
            pol *p = &pols[(*np)++];
            p->ops = ops;
            p->arm = a;
            if (series > 1)
                snprintf(p->name, sizeof p->name, "%.16s-arm%d", tok,
                         (int)(a + 1)); /* a < K <= MAX_ARMS: fits */
            else
                snprintf(p->name, sizeof p->name, "%s", tok);
        }
    }
    if (*np == 0)
        return cs_fail(ctx, CS_ERR_CONFIG, "bandit.policies names no policy");
    return CS_OK;
}

/* Per-policy statistics over the runs: the running average, the moving average over the last
 * `window` ticks and their 95 % half-widths ([horizon] each), and each run's average reward. */
typedef struct series_stats {
    double *rm, *rc95, *mm, *mc95; /* H each (one allocation, at rm) */
    double *acc, *avg;             /* R each: running sums, then averages */
} series_stats;

/* Allocates st for H ticks and R runs (free st->rm, st->acc and st->avg). Local. */
static cs_err alloc_stats(cs_ctx *ctx, int64_t H, int64_t R, series_stats *st)
{
    cs_err local = cs_alloc(ctx, &st->rm, 4 * (size_t)H, sizeof *st->rm, "statistics");
    if (local == CS_OK)
        local = cs_alloc(ctx, &st->acc, (size_t)R, sizeof *st->acc, "statistics");
    if (local == CS_OK)
        local = cs_alloc(ctx, &st->avg, (size_t)R, sizeof *st->avg, "statistics");
    if (local == CS_OK) {
        st->rc95 = st->rm + H;
        st->mm = st->rm + 2 * H;
        st->mc95 = st->rm + 3 * H;
    }
    return local;
}

/* The statistics of the reward series sum[R][H] into st; win: R values of scratch. */
static void compute_stats(const double *sum, int64_t R, int64_t H, int64_t W, double *win,
                          series_stats *st)
{
    const double tq = t975(R - 1);
    double *s2 = st->acc;
    for (int64_t r = 0; r < R; r++)
        s2[r] = 0.0;
    for (int64_t r = 0; r < R; r++)
        win[r] = 0.0;
    for (int64_t t = 0; t < H; t++) {
        double m1 = 0, q1 = 0, m2 = 0, q2 = 0;
        for (int64_t r = 0; r < R; r++) {
            const double *x = sum + (size_t)r * (size_t)H;
            s2[r] += x[t];
            win[r] += x[t] - (t >= W ? x[t - W] : 0.0);
            const double ra = s2[r] / (double)(t + 1);
            const double ma = win[r] / (double)(t + 1 < W ? t + 1 : W);
            m1 += ra;
            m2 += ma;
        }
        m1 /= (double)R;
        m2 /= (double)R;
        for (int64_t r = 0; r < R; r++) {
            const double ra = s2[r] / (double)(t + 1);
            const double ma = win[r] / (double)(t + 1 < W ? t + 1 : W);
            q1 += (ra - m1) * (ra - m1);
            q2 += (ma - m2) * (ma - m2);
        }
        st->rm[t] = m1;
        st->mm[t] = m2;
        st->rc95[t] = R > 1 ? tq * sqrt(q1 / (double)(R - 1) / (double)R) : (double)NAN;
        st->mc95[t] = R > 1 ? tq * sqrt(q2 / (double)(R - 1) / (double)R) : (double)NAN;
    }
    for (int64_t r = 0; r < R; r++)
        st->avg[r] = s2[r] / (double)H;
}

/* Adds a policy's series (/series/NAME/...) and final averages (/final/NAME/average) to res.
 * Local: the caller agrees on the code. */
static cs_err add_series(cs_ctx *ctx, cs_results *res, const char *nm, int64_t H, int64_t R,
                         const series_stats *st)
{
    char path[96];
    const struct {
        const char *dir, *leaf;
        int64_t n;
        const double *v;
    } item[] = {{"series", "running_mean", H, st->rm},
                {"series", "running_ci95", H, st->rc95},
                {"series", "moving_mean", H, st->mm},
                {"series", "moving_ci95", H, st->mc95},
                {"final", "average", R, st->avg}};
    cs_err local = CS_OK;
    for (size_t o = 0; o < sizeof item / sizeof item[0] && local == CS_OK; o++) {
        snprintf(path, sizeof path, "%s/%.31s/%s", item[o].dir, nm, item[o].leaf);
        local = cs_results_add(ctx, res, path, CS_RES_F64, item[o].n, 0, item[o].v);
    }
    return local;
}

/* This rank's runs of one policy (run r on rank r mod P) into all[R][H] (zero elsewhere). Local:
 * the caller agrees on the code (the message is copied from lctx into ctx). */
static cs_err run_policy(cs_ctx *ctx, cs_ctx *lctx, const cs_bandit_config *b, const pol *p,
                         const cs_ephemeral_setup *es, const cs_fresh_setup *fs, double *all)
{
    const int64_t H = b->horizon, R = b->runs;
    memset(all, 0, (size_t)R * (size_t)H * sizeof *all);
    cs_err local = CS_OK;
    for (int64_t r = ctx->rank; r < R && local == CS_OK; r += ctx->size) {
        local = run_one(lctx, b, p, es, fs, (uint64_t)r, all + (size_t)r * (size_t)H);
        if (local != CS_OK)
            cs_fail(ctx, local, "%s", lctx->errmsg);
    }
    return local;
}

/* Where the results go: -o, else bandit.output (relative to the job file), else beside the job
 * file. */
static void output_path(const cs_config *cfg, const char *job, const char *output, char *out,
                        size_t len)
{
    if (output != NULL)
        snprintf(out, len, "%s", output);
    else if (cfg->bandit.output[0] != '\0')
        cs_config_resolve_path(cfg, cfg->bandit.output, out, len);
    else
        cs_config_default_output(job ? job : "bandit.ini", out, len);
}

cs_err cs_cmd_bandit(cs_ctx *ctx, const char *job, const char *const *sets, int nsets,
                     const char *output)
{
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, job, sets, nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    const cs_bandit_config *b = &cfg.bandit;
    double *v = NULL;
    int64_t *sizes = NULL;
    int64_t K = 0;
    cs_fresh_setup fs;
    memset(&fs, 0, sizeof fs);
    cs_ephemeral_setup es;
    memset(&es, 0, sizeof es);
    pol pols[MAX_POL];
    int np = 0;
    double *all = NULL, *sum = NULL;
    series_stats st = {NULL, NULL, NULL, NULL, NULL, NULL};
    char *ini = NULL;
    cs_results *res = NULL;
    cs_err local = cs_alloc(ctx, &v, 6 * (size_t)MAX_ARMS, sizeof *v, "arms");
    if (local == CS_OK)
        local = cs_alloc(ctx, &sizes, MAX_ARMS, sizeof *sizes, "arms");
    CS_TRY_AGREE(ctx, local);

    cs_bandit_settings(b, &fs.fgdqn, &es.lspe);
    if (b->experiment == CS_BANDIT_EPHEMERAL)
        CS_TRY(ctx, ephemeral_arms(ctx, b, v, &es, &K));
    else
        CS_TRY(ctx, freshness_arms(ctx, b, v, sizes, &fs, &K));
    if (K < 2)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG, "bandit: at least 2 arms are needed, got %lld",
                            (long long)K));
    CS_TRY(ctx, read_policies(ctx, b, K, pols, &np));

    char out[CS_CONF_STR + 64];
    output_path(&cfg, job, output, out, sizeof out);
    const cs_h5_file out_file = {"results file", out}, job_file = {"job file", job};
    CS_TRY(ctx, cs_h5_check_outputs(ctx, &out_file, 1, &job_file, 1));

    const int64_t H = b->horizon, R = b->runs, W = b->window;
    const size_t cells = (size_t)R * (size_t)H;
    local = cs_alloc(ctx, &all, cells, sizeof *all, "reward series");
    if (local == CS_OK)
        local = cs_alloc(ctx, &sum, cells, sizeof *sum, "reward series");
    if (local == CS_OK)
        local = alloc_stats(ctx, H, R, &st);
    if (local == CS_OK)
        local = cs_results_create(ctx, &res);
    CS_TRY_AGREE(ctx, local);

    cs_ctx lctx;
    cs_ctx_init_local(&lctx, ctx->level);
    if (ctx->rank == 0)
        printf("experiment %s: %lld arms, %lld runs of %lld ticks, window %lld\n",
               b->experiment == CS_BANDIT_EPHEMERAL ? "ephemeral (Whittle paper)"
                                                    : "freshness (DRL paper)",
               (long long)K, (long long)R, (long long)H, (long long)W);
    for (int p = 0; p < np; p++) {
        const double t0 = cs_now();
        CS_TRY_AGREE(ctx, run_policy(ctx, &lctx, b, &pols[p], &es, &fs, all));
        /* one non-zero contribution per element: the sum is exact, any rank count */
        cs_allreduce(ctx, all, sum, (int)cells, CS_T_F64, CS_OP_SUM);
        compute_stats(sum, R, H, W, all, &st); /* all: reused as scratch */
        CS_TRY_AGREE(ctx, add_series(ctx, res, pols[p].name, H, R, &st));
        if (ctx->rank == 0)
            printf("%-12s running average at t = %lld: %.4f +- %.4f (95 %%), last-%lld moving "
                   "average %.4f +- %.4f   [%.2f s]\n",
                   pols[p].name, (long long)H, st.rm[H - 1], st.rc95[H - 1], (long long)W,
                   st.mm[H - 1], st.mc95[H - 1], cs_now() - t0);
    }
    local = cs_config_to_ini(ctx, &cfg, "bandit", &ini);
    if (local == CS_OK)
        local = cs_results_add_text(ctx, res, "config", ini);
    if (local == CS_OK)
        local = cs_results_attr(ctx, res, "", "command", "bandit");
    CS_TRY_AGREE(ctx, local);
    CS_TRY(ctx, cs_results_write(ctx, res, out));
    if (ctx->rank == 0) {
        printf("wrote %s\n", out);
        fflush(stdout);
    }
    rc = CS_OK;
fail:
    cs_results_destroy(&res);
    free(ini);
    free(st.avg);
    free(st.acc);
    free(st.rm);
    free(sum);
    free(all);
    free(sizes);
    free(v);
    return rc;
}
