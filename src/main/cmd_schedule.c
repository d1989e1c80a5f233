/*
 * crawlsim schedule: reads a page table (CSV: id, mu, delta, complete), computes a re-crawl
 * schedule with one of the refresh policies (refresh.h: LambdaCrawl, Kolobov et al. 2019, and
 * its Section 7 baselines) under the bandwidth R, and writes id,rate,probability in input order.
 *
 * Rank 0 reads and checks the whole file (so that every error names its line), the rows are
 * scattered in contiguous blocks over the ranks, each rank solves its block with the distributed
 * solvers, and rank 0 gathers the rates and writes the output under a temporary name
 * (.NAME.tmp.PID beside the target) renamed only when complete.
 */
#include "main/cmd_schedule.h"
#include "main/cmd_schedule_csv.h"
#include "main/main_impl.h"

#include "crawlsim/bandit.h"
#include "crawlsim/comm.h"
#include "crawlsim/h5.h"
#include "crawlsim/refresh.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Local (rank 0). Writes the schedule to path atomically. */
static cs_err write_output(cs_ctx *ctx, const char *path, const cs_schedule_table *t,
                           const double *rate, const double *prob)
{
    const size_t plen = strlen(path);
    char *tmp = malloc(plen + 64);
    if (tmp == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "out of memory for a file name");
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(tmp, plen + 64, ".%s.tmp.%ld", path, (long)getpid());
    else
        snprintf(tmp, plen + 64, "%.*s/.%s.tmp.%ld", (int)(slash - path), path, slash + 1,
                 (long)getpid());
    cs_h5_tmp_guard(tmp); /* a signal that kills the process removes it */
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        cs_err rc = cs_fail(ctx, CS_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
        cs_h5_tmp_unguard();
        free(tmp);
        return rc;
    }
    int bad = fprintf(f, "id,rate,probability\n") < 0;
    for (int64_t i = 0; i < t->n && !bad; i++) {
        if (prob[i] >= 0.0)
            bad = fprintf(f, "%s,%.17g,%.17g\n", t->ids[i], rate[i], prob[i]) < 0;
        else
            bad = fprintf(f, "%s,%.17g,\n", t->ids[i], rate[i]) < 0;
    }
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    const int err = errno;
    bad |= fclose(f) != 0;
    if (!bad && rename(tmp, path) == 0) {
        cs_h5_tmp_unguard();
        free(tmp);
        return CS_OK;
    }
    cs_err rc = cs_fail(ctx, CS_ERR_IO, "cannot write '%s': %s", path, strerror(err ? err : errno));
    unlink(tmp);
    cs_h5_tmp_unguard();
    free(tmp);
    return rc;
}

/* The command's checked options: the solver and the bandwidth. */
typedef struct sched_opts {
    int static_opt;           /* static-opt (bandit.h): Azar et al.'s binary-freshness optimum */
    cs_refresh_policy policy; /* else a refresh.h policy */
    double R;                 /* crawls per time unit */
    cs_refresh_opts opts;
} sched_opts;

/* Checks --policy: a policy of refresh.h, or a bandit policy whose schedule is the static
 * optimisation of the DRL paper's Eq. 8 (its registry entry's input); the message lists both. */
static cs_err parse_policy(cs_ctx *ctx, const cs_schedule_args *a, sched_opts *o)
{
    if (a->policy == NULL)
        return main_usage(ctx, " schedule", "schedule needs --policy P");
    const cs_bandit_ops *bo = cs_bandit_find(a->policy);
    o->static_opt = bo != NULL && bo->input == CS_BANDIT_IN_STATIC_OPT;
    o->policy = CS_REFRESH_UNIFORM;
    if (o->static_opt || cs_refresh_policy_parse(a->policy, &o->policy) == CS_OK)
        return CS_OK;
    char names[512];
    size_t at = 0;
    for (int p = 0; p < CS_REFRESH_POLICY_COUNT_ && at < sizeof names; p++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                               cs_refresh_policy_name((cs_refresh_policy)p));
    for (int i = 0; cs_bandit_at(i) != NULL && at < sizeof names; i++)
        if (cs_bandit_at(i)->input == CS_BANDIT_IN_STATIC_OPT)
            at += (size_t)snprintf(names + at, sizeof names - at, ", %s",
                                   cs_bandit_name(cs_bandit_at(i)));
    return main_usage(ctx, " schedule", "--policy '%s' is not one of %s", a->policy, names);
}

/* Checks the command's options into o: the same argv on every rank, so these checks agree
 * without communication. */
static cs_err parse_options(cs_ctx *ctx, const cs_schedule_args *a, sched_opts *o)
{
    cs_err rc = parse_policy(ctx, a, o);
    if (rc != CS_OK)
        return rc;
    if (a->bandwidth == NULL)
        return main_usage(ctx, " schedule", "schedule needs --bandwidth R (crawls per time unit)");
    char *end = NULL;
    o->R = strtod(a->bandwidth, &end);
    if (end == a->bandwidth || *end != '\0' || !isfinite(o->R) || !(o->R > 0.0))
        return main_usage(ctx, " schedule", "--bandwidth '%s' is not a positive number",
                          a->bandwidth);
    cs_refresh_opts_default(&o->opts);
    if (a->epsilon != NULL) {
        if (o->static_opt || o->policy != CS_REFRESH_BLC_FLOOR)
            return main_usage(ctx, " schedule",
                              "--epsilon applies to --policy binary-lambdacrawl-floor only");
        end = NULL;
        o->opts.epsilon = strtod(a->epsilon, &end);
        if (end == a->epsilon || *end != '\0' || !(o->opts.epsilon > 0.0 && o->opts.epsilon < 1.0))
            return main_usage(ctx, " schedule", "--epsilon '%s' is not a number in (0, 1)",
                              a->epsilon);
    }
    if (a->input == NULL)
        return main_usage(ctx, " schedule", "schedule needs --input PAGES.csv");
    if (a->output == NULL)
        return main_usage(ctx, " schedule", "schedule needs an output file: -o/--output RATES.csv");
    return CS_OK;
}

/* The static optimum's figures for the summary. */
typedef struct static_opt_sums {
    double lambda; /* the multiplier */
    double F;      /* F(p) of Eq. 8 */
    int64_t never; /* pages never crawled */
} static_opt_sums;

/* Collective. Azar et al.'s static optimum over this rank's n pages, one slot = one time unit:
 * the change probability per slot D = 1 - exp(-delta); rate = prob = p (crawls per slot). */
static cs_err solve_static_opt(cs_ctx *ctx, int n, const double *mu, const double *delta, double R,
                               double *rate, double *prob, static_opt_sums *so)
{
    cs_err rc;
    for (int i = 0; i < n; i++)
        rate[i] = cs_static_opt_change_prob(delta[i], 1.0);
    CS_TRY(ctx, cs_static_opt_solve(ctx, n, mu, rate, R, prob, &so->lambda));
    for (int i = 0; i < n; i++) {
        const double D = rate[i];
        rate[i] = mu[i] * prob[i] / (prob[i] + D - D * prob[i]);
        so->never += prob[i] == 0.0;
    }
    /* exact sum: the printed F is the same for any rank count */
    CS_TRY(ctx, cs_comm_sum_exact(ctx, rate, n, &so->F));
    cs_allreduce(ctx, NULL, &so->never, 1, CS_T_I64, CS_OP_SUM);
    for (int i = 0; i < n; i++)
        rate[i] = prob[i];
    return CS_OK;
fail:
    return rc;
}

/* Rank 0: the static optimum's summary on stdout (N pages, dt seconds of solving). */
static void print_static_opt(const static_opt_sums *so, int64_t N, double R, double dt,
                             const char *output)
{
    printf("policy static-opt on %lld pages, R = %.17g crawls per slot (one slot = one time "
           "unit; change probability per slot 1 - exp(-delta))\n",
           (long long)N, R);
    printf("lambda %.17g\n", so->lambda);
    printf("F %.17g (Eq. 8: sum over pages of mu * probability of being fresh)\n", so->F);
    printf("never crawled %lld\n", (long long)so->never);
    printf("solve %.3f s\nwrote %s\n", dt, output);
    fflush(stdout);
}

/* Rank 0: a refresh.h policy's summary on stdout (dt seconds of solving). */
static void print_refresh(cs_refresh_policy policy, const cs_refresh_result *res, double R,
                          double dt, const char *output)
{
    const int mixed =
        policy == CS_REFRESH_LAMBDACRAWL && res->n_complete > 0 && res->n_complete < res->n;
    printf("policy %s on %lld pages (%lld with complete change observations), R = %.17g\n",
           cs_refresh_policy_name(policy), (long long)res->n, (long long)res->n_complete, R);
    if (policy == CS_REFRESH_LAMBDACRAWL)
        printf("solver %s\n", mixed             ? "mixed observability (Problem 3), one "
                                                  "lambda for both classes"
                              : res->n_complete ? "LC-ComplObs (Alg. 2)"
                                                : "LC-IncomplObs (Alg. 1)");
    if (!isnan(res->lambda))
        printf("lambda %.17g\n", res->lambda);
    if (!isnan(res->lambda_complete))
        printf("lambda_complete %.17g\n", res->lambda_complete);
    printf("split R_incomplete %.17g R_complete %.17g (sum of rates - R: %.2e relative)\n",
           res->r_incomplete, res->r_complete, res->residual);
    printf("J_h %.17g (sum over pages of mu * expected harmonic staleness, Eq. 1 with Eq. 2)\n",
           res->j_h);
    printf("J_b %.17g (sum over pages of mu * probability of being stale)\n", res->j_b);
    printf("starved %lld, complete pages with p = 1: %lld\n", (long long)res->n_starved,
           (long long)res->n_saturated);
    printf("solve %.3f s, %d root-find passes%s\n", dt, res->iterations,
           res->golden_iterations ? " (golden-section split)" : "");
    printf("wrote %s\n", output);
    fflush(stdout);
}

/* A rank's block of the table's rows, the rows dealt to the ranks in contiguous blocks. */
typedef struct sched_rows {
    int *counts, *displs; /* P each: the blocks */
    int n;                /* this rank's rows: */
    double *mu, *delta, *rate, *prob;
    uint8_t *cf; /* complete flags */
} sched_rows;

/* Collective. Deals the N rows of rank 0's table t to the ranks into w (free with
 * sched_rows_fini), with room for their rates and probabilities. */
static cs_err scatter_rows(cs_ctx *ctx, const cs_schedule_table *t, int64_t N, sched_rows *w)
{
    const int P = ctx->size;
    cs_err local = cs_alloc(ctx, &w->counts, (size_t)P, sizeof *w->counts, "row counts");
    if (local == CS_OK)
        local = cs_alloc(ctx, &w->displs, (size_t)P, sizeof *w->displs, "row offsets");
    cs_err rc;
    CS_TRY_AGREE(ctx, local);
    for (int r = 0; r < P; r++) {
        w->displs[r] = (int)(N * r / P);
        w->counts[r] = (int)(N * (r + 1) / P) - w->displs[r];
    }
    w->n = w->counts[ctx->rank];
    const size_t nz = (size_t)(w->n > 0 ? w->n : 1);
    local = cs_alloc(ctx, &w->mu, nz, sizeof *w->mu, "mu");
    if (local == CS_OK)
        local = cs_alloc(ctx, &w->delta, nz, sizeof *w->delta, "delta");
    if (local == CS_OK)
        local = cs_alloc(ctx, &w->cf, nz, 1, "complete flags");
    if (local == CS_OK)
        local = cs_alloc(ctx, &w->rate, nz, sizeof *w->rate, "rates");
    if (local == CS_OK)
        local = cs_alloc(ctx, &w->prob, nz, sizeof *w->prob, "probabilities");
    CS_TRY_AGREE(ctx, local);
    cs_scatterv(ctx, t->mu, w->counts, w->displs, w->mu, w->n, CS_T_F64, 0);
    cs_scatterv(ctx, t->delta, w->counts, w->displs, w->delta, w->n, CS_T_F64, 0);
    cs_scatterv(ctx, t->complete, w->counts, w->displs, w->cf, w->n, CS_T_U8, 0);
    return CS_OK;
fail:
    return rc;
}

static void sched_rows_fini(sched_rows *w)
{
    free(w->prob);
    free(w->rate);
    free(w->cf);
    free(w->delta);
    free(w->mu);
    free(w->displs);
    free(w->counts);
}

cs_err cs_cmd_schedule(cs_ctx *ctx, const cs_schedule_args *a)
{
    sched_opts o;
    memset(&o, 0, sizeof o);
    cs_err rc = parse_options(ctx, a, &o);
    if (rc != CS_OK)
        return rc;
    const cs_h5_file out_file = {"output", a->output}, in_file = {"input", a->input};
    rc = cs_h5_check_outputs(ctx, &out_file, 1, &in_file, 1);
    if (rc != CS_OK)
        return rc;
    cs_schedule_table t;
    memset(&t, 0, sizeof t);
    sched_rows w;
    memset(&w, 0, sizeof w);
    double *grate = NULL, *gprob = NULL;
    const int root = ctx->rank == 0; /* rank 0 reads, gathers and writes */
    CS_TRY_AGREE(ctx, root ? cs_schedule_table_read(ctx, a->input, &t) : CS_OK);

    int64_t N = t.n;
    cs_bcast(ctx, &N, 1, CS_T_I64, 0);
    if (N / ctx->size + 1 > INT_MAX)
        CS_TRY_AGREE(ctx, cs_fail(ctx, CS_ERR_LIMIT, "%s: %lld pages is over 2^31 per rank",
                                  a->input, (long long)N));
    CS_TRY(ctx, scatter_rows(ctx, &t, N, &w));
    cs_err local = CS_OK;
    if (root)
        local = cs_alloc(ctx, &grate, (size_t)N, sizeof *grate, "rates");
    if (local == CS_OK && root)
        local = cs_alloc(ctx, &gprob, (size_t)N, sizeof *gprob, "probabilities");
    CS_TRY_AGREE(ctx, local);

    const cs_refresh_pages pg = {w.n, w.mu, w.delta, w.cf};
    cs_refresh_result res;
    static_opt_sums so = {0.0, 0.0, 0};
    cs_barrier(ctx);
    const double t0 = cs_now();
    if (o.static_opt)
        CS_TRY(ctx, solve_static_opt(ctx, w.n, w.mu, w.delta, o.R, w.rate, w.prob, &so));
    else
        CS_TRY(ctx, cs_refresh_solve(ctx, o.policy, &pg, o.R, &o.opts, w.rate, w.prob, &res));
    const double dt = cs_now() - t0;

    cs_gatherv(ctx, w.rate, w.n, grate, w.counts, w.displs, CS_T_F64, 0);
    cs_gatherv(ctx, w.prob, w.n, gprob, w.counts, w.displs, CS_T_F64, 0);
    CS_TRY_AGREE(ctx, root ? write_output(ctx, a->output, &t, grate, gprob) : CS_OK);
    if (root && o.static_opt)
        print_static_opt(&so, N, o.R, dt, a->output);
    else if (root)
        print_refresh(o.policy, &res, o.R, dt, a->output);
    rc = CS_OK;
fail:
    free(gprob);
    free(grate);
    sched_rows_fini(&w);
    cs_schedule_table_fini(&t);
    return rc;
}
