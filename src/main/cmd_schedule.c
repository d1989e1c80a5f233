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
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        cs_err rc = cs_fail(ctx, CS_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
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
        free(tmp);
        return CS_OK;
    }
    cs_err rc = cs_fail(ctx, CS_ERR_IO, "cannot write '%s': %s", path, strerror(err ? err : errno));
    unlink(tmp);
    free(tmp);
    return rc;
}

cs_err cs_cmd_schedule(cs_ctx *ctx, const cs_schedule_args *a)
{
    /* options: the same argv on every rank, so these checks agree without communication */
    if (a->policy == NULL)
        return main_usage(ctx, " schedule", "schedule needs --policy P");
    /* static-opt (bandit.h): Azar et al.'s binary-freshness optimum in discrete time */
    const int static_opt = strcmp(a->policy, "static-opt") == 0;
    cs_refresh_policy policy = CS_REFRESH_UNIFORM;
    if (!static_opt && cs_refresh_policy_parse(a->policy, &policy) != CS_OK)
        return main_usage(ctx, " schedule",
                          "--policy '%s' is not one of lambdacrawl, lambdacrawl-incomplete, "
                          "lca, binary-lambdacrawl, binary-lambdacrawl-floor, uniform, "
                          "change-rate, static-opt",
                          a->policy);
    if (a->bandwidth == NULL)
        return main_usage(ctx, " schedule", "schedule needs --bandwidth R (crawls per time unit)");
    char *end = NULL;
    const double R = strtod(a->bandwidth, &end);
    if (end == a->bandwidth || *end != '\0' || !isfinite(R) || !(R > 0.0))
        return main_usage(ctx, " schedule", "--bandwidth '%s' is not a positive number",
                          a->bandwidth);
    cs_refresh_opts opts;
    cs_refresh_opts_default(&opts);
    if (a->epsilon != NULL) {
        if (static_opt || policy != CS_REFRESH_BLC_FLOOR)
            return main_usage(ctx, " schedule",
                              "--epsilon applies to --policy binary-lambdacrawl-floor only");
        end = NULL;
        opts.epsilon = strtod(a->epsilon, &end);
        if (end == a->epsilon || *end != '\0' || !(opts.epsilon > 0.0 && opts.epsilon < 1.0))
            return main_usage(ctx, " schedule", "--epsilon '%s' is not a number in (0, 1)",
                              a->epsilon);
    }
    if (a->input == NULL)
        return main_usage(ctx, " schedule", "schedule needs --input PAGES.csv");
    if (a->output == NULL)
        return main_usage(ctx, " schedule", "schedule needs an output file: -o/--output RATES.csv");

    const cs_h5_file out_file = {"output", a->output}, in_file = {"input", a->input};
    cs_err rc = cs_h5_check_outputs(ctx, &out_file, 1, &in_file, 1);
    if (rc != CS_OK)
        return rc;
    cs_schedule_table t;
    memset(&t, 0, sizeof t);
    double *mu = NULL, *delta = NULL, *rate = NULL, *prob = NULL, *grate = NULL, *gprob = NULL;
    uint8_t *cf = NULL;
    int *counts = NULL, *displs = NULL;
    CS_TRY_AGREE(ctx, ctx->rank == 0 ? cs_schedule_table_read(ctx, a->input, &t) : CS_OK);

    /* contiguous blocks of rows */
    int64_t N = t.n;
    cs_bcast(ctx, &N, 1, CS_T_I64, 0);
    const int P = ctx->size;
    if (N / P + 1 > INT_MAX)
        CS_TRY_AGREE(ctx, cs_fail(ctx, CS_ERR_LIMIT, "%s: %lld pages is over 2^31 per rank",
                                  a->input, (long long)N));
    cs_err local = cs_alloc(ctx, &counts, (size_t)P, sizeof *counts, "row counts");
    if (local == CS_OK)
        local = cs_alloc(ctx, &displs, (size_t)P, sizeof *displs, "row offsets");
    CS_TRY_AGREE(ctx, local);
    for (int r = 0; r < P; r++) {
        displs[r] = (int)(N * r / P);
        counts[r] = (int)(N * (r + 1) / P) - displs[r];
    }
    const int n = counts[ctx->rank];
    const size_t nz = (size_t)(n > 0 ? n : 1);
    local = cs_alloc(ctx, &mu, nz, sizeof *mu, "mu");
    if (local == CS_OK)
        local = cs_alloc(ctx, &delta, nz, sizeof *delta, "delta");
    if (local == CS_OK)
        local = cs_alloc(ctx, &cf, nz, 1, "complete flags");
    if (local == CS_OK)
        local = cs_alloc(ctx, &rate, nz, sizeof *rate, "rates");
    if (local == CS_OK)
        local = cs_alloc(ctx, &prob, nz, sizeof *prob, "probabilities");
    if (local == CS_OK && ctx->rank == 0)
        local = cs_alloc(ctx, &grate, (size_t)N, sizeof *grate, "rates");
    if (local == CS_OK && ctx->rank == 0)
        local = cs_alloc(ctx, &gprob, (size_t)N, sizeof *gprob, "probabilities");
    CS_TRY_AGREE(ctx, local);
    cs_scatterv(ctx, t.mu, counts, displs, mu, n, CS_T_F64, 0);
    cs_scatterv(ctx, t.delta, counts, displs, delta, n, CS_T_F64, 0);
    cs_scatterv(ctx, t.complete, counts, displs, cf, n, CS_T_U8, 0);

    const cs_refresh_pages pg = {n, mu, delta, cf};
    cs_refresh_result res;
    cs_barrier(ctx);
    const double t0 = cs_now();
    double so_lambda = 0.0, so_F = 0.0; /* F(p) of Eq. 8 */
    int64_t so_never = 0;               /* pages never crawled */
    if (static_opt) {
        /* one slot = one time unit: D = 1 - exp(-delta); rate = prob = p (crawls per slot) */
        for (int i = 0; i < n; i++)
            rate[i] = cs_static_opt_change_prob(delta[i], 1.0);
        CS_TRY(ctx, cs_static_opt_solve(ctx, n, mu, rate, R, prob, &so_lambda));
        for (int i = 0; i < n; i++) {
            const double D = rate[i];
            rate[i] = mu[i] * prob[i] / (prob[i] + D - D * prob[i]);
            so_never += prob[i] == 0.0;
        }
        /* exact sum: the printed F is the same for any rank count */
        CS_TRY(ctx, cs_comm_sum_exact(ctx, rate, n, &so_F));
        cs_allreduce(ctx, NULL, &so_never, 1, CS_T_I64, CS_OP_SUM);
        for (int i = 0; i < n; i++)
            rate[i] = prob[i];
    } else {
        CS_TRY(ctx, cs_refresh_solve(ctx, policy, &pg, R, &opts, rate, prob, &res));
    }
    const double dt = cs_now() - t0;

    cs_gatherv(ctx, rate, n, grate, counts, displs, CS_T_F64, 0);
    cs_gatherv(ctx, prob, n, gprob, counts, displs, CS_T_F64, 0);
    CS_TRY_AGREE(ctx, ctx->rank == 0 ? write_output(ctx, a->output, &t, grate, gprob) : CS_OK);

    if (ctx->rank == 0 && static_opt) {
        printf("policy static-opt on %lld pages, R = %.17g crawls per slot (one slot = one time "
               "unit; change probability per slot 1 - exp(-delta))\n",
               (long long)N, R);
        printf("lambda %.17g\n", so_lambda);
        printf("F %.17g (Eq. 8: sum over pages of mu * probability of being fresh)\n", so_F);
        printf("never crawled %lld\n", (long long)so_never);
        printf("solve %.3f s\nwrote %s\n", dt, a->output);
        fflush(stdout);
    } else if (ctx->rank == 0) {
        const int mixed =
            policy == CS_REFRESH_LAMBDACRAWL && res.n_complete > 0 && res.n_complete < res.n;
        printf("policy %s on %lld pages (%lld with complete change observations), R = %.17g\n",
               cs_refresh_policy_name(policy), (long long)res.n, (long long)res.n_complete, R);
        if (policy == CS_REFRESH_LAMBDACRAWL)
            printf("solver %s\n", mixed            ? "mixed observability (Problem 3), one "
                                                     "lambda for both classes"
                                  : res.n_complete ? "LC-ComplObs (Alg. 2)"
                                                   : "LC-IncomplObs (Alg. 1)");
        if (!isnan(res.lambda))
            printf("lambda %.17g\n", res.lambda);
        if (!isnan(res.lambda_complete))
            printf("lambda_complete %.17g\n", res.lambda_complete);
        printf("split R_incomplete %.17g R_complete %.17g (sum of rates - R: %.2e relative)\n",
               res.r_incomplete, res.r_complete, res.residual);
        printf("J_h %.17g (sum over pages of mu * expected harmonic staleness, Eq. 1 with Eq. 2)\n",
               res.j_h);
        printf("J_b %.17g (sum over pages of mu * probability of being stale)\n", res.j_b);
        printf("starved %lld, complete pages with p = 1: %lld\n", (long long)res.n_starved,
               (long long)res.n_saturated);
        printf("solve %.3f s, %d root-find passes%s\n", dt, res.iterations,
               res.golden_iterations ? " (golden-section split)" : "");
        printf("wrote %s\n", a->output);
        fflush(stdout);
    }
    rc = CS_OK;
fail:
    free(gprob);
    free(grate);
    free(prob);
    free(rate);
    free(cf);
    free(delta);
    free(mu);
    free(displs);
    free(counts);
    cs_schedule_table_fini(&t);
    return rc;
}
