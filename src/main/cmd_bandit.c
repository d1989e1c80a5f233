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

cs_err cs_cmd_bandit(cs_ctx *ctx, const char *job, const char *const *sets, int nsets,
                     const char *output)
{
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, job, sets, nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    const cs_bandit_config *b = &cfg.bandit;
    double *v1 = NULL, *v2, *v3, *v4, *u, *alpha;
    int64_t *sizes = NULL;
    int64_t K = 0, n2 = 0, n3 = 0, n4 = 0;
    cs_fresh_setup fs;
    memset(&fs, 0, sizeof fs);
    cs_ephemeral_setup es;
    memset(&es, 0, sizeof es);
    pol pols[MAX_POL];
    int np = 0;
    double *all = NULL, *sum = NULL, *s1 = NULL, *s2 = NULL, *avg = NULL;
    char *ini = NULL;
    cs_results *res = NULL;
    cs_err local = cs_alloc(ctx, &v1, 6 * (size_t)MAX_ARMS, sizeof *v1, "arms");
    if (local == CS_OK)
        local = cs_alloc(ctx, &sizes, MAX_ARMS, sizeof *sizes, "arms");
    CS_TRY_AGREE(ctx, local);
    v2 = v1 + MAX_ARMS;
    v3 = v2 + MAX_ARMS;
    v4 = v3 + MAX_ARMS;
    u = v4 + MAX_ARMS;
    alpha = u + MAX_ARMS;

    cs_bandit_settings(b, &fs.fgdqn, &es.lspe);
    /* arms (the same config on every rank: the checks agree without communication) */
    if (b->experiment == CS_BANDIT_EPHEMERAL) {
        CS_TRY(ctx, parse_list(ctx, "arrival", b->arrival, 0, v1, &K));
        CS_TRY(ctx, parse_list(ctx, "decay", b->decay, 0, v2, &n2));
        CS_TRY(ctx, fit_list(ctx, "decay", v2, n2, K, "bandit.arrival"));
        CS_TRY(ctx, parse_list(ctx, "lifetime", b->lifetime, 1, v3, &n3));
        CS_TRY(ctx, fit_list(ctx, "lifetime", v3, n3, K, "bandit.arrival"));
        CS_TRY(ctx, parse_list(ctx, "cost", b->cost, 0, v4, &n4));
        CS_TRY(ctx, fit_list(ctx, "cost", v4, n4, K, "bandit.arrival"));
        for (int64_t i = 0; i < K; i++) {
            alpha[i] = exp(-v2[i]);
            u[i] = cs_whittle_u(v1[i], v2[i], v3[i]);
        }
        es.K = K;
        es.u = u;
        es.alpha = alpha;
        es.cost = v4;
        es.crawlers = b->crawlers;
    } else {
        CS_TRY(ctx, parse_list(ctx, "group_sizes", b->group_sizes, 0, v1, &K));
        for (int64_t i = 0; i < K; i++) {
            if (v1[i] != floor(v1[i]) || v1[i] > 1e9)
                CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG,
                                    "bandit.group_sizes: entry %lld (%g) is not a whole number of "
                                    "pages",
                                    (long long)i + 1, v1[i]));
            sizes[i] = (int64_t)v1[i];
        }
        CS_TRY(ctx, parse_list(ctx, "rates", b->rates, 0, v2, &n2));
        CS_TRY(ctx, fit_list(ctx, "rates", v2, n2, K, "bandit.group_sizes"));
        CS_TRY(ctx, parse_list(ctx, "importance", b->importance, 0, v3, &n3));
        CS_TRY(ctx, fit_list(ctx, "importance", v3, n3, K, "bandit.group_sizes"));
        fs.K = K;
        fs.size = sizes;
        fs.rate = v2;
        fs.mu = v3;
        fs.slot = b->slot;
        if (b->replay < b->batch)
            CS_TRY(ctx,
                   cs_fail(ctx, CS_ERR_CONFIG, "bandit.replay (%lld) is below bandit.batch (%lld)",
                           (long long)b->replay, (long long)b->batch));
    }
    if (K < 2)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG, "bandit: at least 2 arms are needed, got %lld",
                            (long long)K));

    /* policies */
    const char *list = b->policies[0]                         ? b->policies
                       : b->experiment == CS_BANDIT_EPHEMERAL ? "whittle,learn,fixed"
                                                              : "static-opt,fgdqn,thompson,uniform";
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
         tok = strtok_r(NULL, ", \t", &save)) {
        const int eph = b->experiment == CS_BANDIT_EPHEMERAL;
        const cs_bandit_ops *ops = cs_bandit_find(tok);
        if (ops == NULL || (eph ? ops->ephemeral == NULL : !ops->freshness)) {
            char names[256];
            policy_list(eph, names, sizeof names);
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG,
                                "bandit.policies: '%s' is not a policy of the %s experiment (%s)",
                                tok, eph ? "ephemeral" : "freshness", names));
        }
        for (int q = 0; q < np; q++)
            if (pols[q].ops == ops)
                CS_TRY(ctx,
                       cs_fail(ctx, CS_ERR_CONFIG, "bandit.policies: '%s' is listed twice", tok));
        const int64_t series = eph && ops->per_arm ? K : 1;
        for (int64_t a = 0; a < series; a++) {
            if (np == MAX_POL)
                CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG, "bandit.policies: too many series"));
            pols[np].ops = ops;
            pols[np].arm = a;
            if (series > 1)
                snprintf(pols[np].name, sizeof pols[np].name, "%.16s-arm%d", tok,
                         (int)(a + 1)); /* a < K <= MAX_ARMS: fits */
            else
                snprintf(pols[np].name, sizeof pols[np].name, "%s", tok);
            np++;
        }
    }
    if (np == 0)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG, "bandit.policies names no policy"));

    char out[CS_CONF_STR + 64];
    if (output != NULL) {
        snprintf(out, sizeof out, "%s", output);
    } else if (b->output[0] != '\0') {
        cs_config_resolve_path(&cfg, b->output, out, sizeof out);
    } else {
        cs_config_default_output(job ? job : "bandit.ini", out, sizeof out);
    }
    const cs_h5_file out_file = {"results file", out}, job_file = {"job file", job};
    CS_TRY(ctx, cs_h5_check_outputs(ctx, &out_file, 1, &job_file, 1));

    const int64_t H = b->horizon, R = b->runs, W = b->window;
    const size_t cells = (size_t)R * (size_t)H;
    local = cs_alloc(ctx, &all, cells, sizeof *all, "reward series");
    if (local == CS_OK)
        local = cs_alloc(ctx, &sum, cells, sizeof *sum, "reward series");
    if (local == CS_OK)
        local = cs_alloc(ctx, &s1, 4 * (size_t)H, sizeof *s1, "statistics");
    if (local == CS_OK)
        local = cs_alloc(ctx, &s2, (size_t)R, sizeof *s2, "statistics");
    if (local == CS_OK)
        local = cs_alloc(ctx, &avg, (size_t)R, sizeof *avg, "statistics");
    if (local == CS_OK)
        local = cs_results_create(ctx, &res);
    CS_TRY_AGREE(ctx, local);

    cs_ctx lctx;
    cs_ctx_init_local(&lctx, ctx->level);
    const double tq = t975(R - 1);
    if (ctx->rank == 0)
        printf("experiment %s: %lld arms, %lld runs of %lld ticks, window %lld\n",
               b->experiment == CS_BANDIT_EPHEMERAL ? "ephemeral (Whittle paper)"
                                                    : "freshness (DRL paper)",
               (long long)K, (long long)R, (long long)H, (long long)W);
    for (int p = 0; p < np; p++) {
        const double t0 = cs_now();
        memset(all, 0, cells * sizeof *all);
        local = CS_OK;
        for (int64_t r = ctx->rank; r < R && local == CS_OK; r += ctx->size) {
            local = run_one(&lctx, b, &pols[p], &es, &fs, (uint64_t)r, all + (size_t)r * (size_t)H);
            if (local != CS_OK)
                cs_fail(ctx, local, "%s", lctx.errmsg);
        }
        CS_TRY_AGREE(ctx, local);
        /* one non-zero contribution per element: the sum is exact, any rank count */
        cs_allreduce(ctx, all, sum, (int)cells, CS_T_F64, CS_OP_SUM);
        double *rm = s1, *rc95 = s1 + H, *mm = s1 + 2 * H, *mc95 = s1 + 3 * H;
        for (int64_t r = 0; r < R; r++)
            s2[r] = 0.0;
        double *win = all; /* reuse: running sums per run of the current window */
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
            rm[t] = m1;
            mm[t] = m2;
            rc95[t] = R > 1 ? tq * sqrt(q1 / (double)(R - 1) / (double)R) : (double)NAN;
            mc95[t] = R > 1 ? tq * sqrt(q2 / (double)(R - 1) / (double)R) : (double)NAN;
        }
        for (int64_t r = 0; r < R; r++)
            avg[r] = s2[r] / (double)H;
        char path[96];
        const char *nm = pols[p].name;
        const struct {
            const char *dir, *leaf;
            int64_t n;
            const double *v;
        } item[] = {{"series", "running_mean", H, rm},
                    {"series", "running_ci95", H, rc95},
                    {"series", "moving_mean", H, mm},
                    {"series", "moving_ci95", H, mc95},
                    {"final", "average", R, avg}};
        local = CS_OK;
        for (size_t o = 0; o < sizeof item / sizeof item[0] && local == CS_OK; o++) {
            snprintf(path, sizeof path, "%s/%.31s/%s", item[o].dir, nm, item[o].leaf);
            local = cs_results_add(ctx, res, path, CS_RES_F64, item[o].n, 0, item[o].v);
        }
        CS_TRY_AGREE(ctx, local);
        if (ctx->rank == 0)
            printf("%-12s running average at t = %lld: %.4f +- %.4f (95 %%), last-%lld moving "
                   "average %.4f +- %.4f   [%.2f s]\n",
                   nm, (long long)H, rm[H - 1], rc95[H - 1], (long long)W, mm[H - 1], mc95[H - 1],
                   cs_now() - t0);
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
    free(avg);
    free(s2);
    free(s1);
    free(sum);
    free(all);
    free(sizes);
    free(v1);
    return rc;
}
