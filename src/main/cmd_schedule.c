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

#define MAX_COLUMNS 64

/* The page table, on rank 0 only. ids point into the file buffer. */
typedef struct table {
    char *buf;
    int64_t n;
    size_t cap_ids, cap_line, cap_mu, cap_delta, cap_c;
    const char **ids;
    int64_t *line;
    double *mu, *delta;
    uint8_t *complete;
} table;

static void table_fini(table *t)
{
    free(t->buf);
    free(t->ids);
    free(t->line);
    free(t->mu);
    free(t->delta);
    free(t->complete);
    memset(t, 0, sizeof *t);
}

/* Local. The whole file into a NUL-terminated buffer. */
static cs_err read_all(cs_ctx *ctx, const char *path, char **out)
{
    int fd = -1;
    {
        cs_err orc = cs_open_regular(ctx, path, "page table", &fd, NULL);
        if (orc != CS_OK)
            return orc;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return cs_fail(ctx, CS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    char *buf = NULL;
    size_t cap = 0, len = 0;
    cs_err rc = CS_OK;
    for (;;) {
        if (len + 65536 + 1 > cap &&
            (rc = cs_grow(ctx, &buf, &cap, len + 65536 + 1, 1, "input file")) != CS_OK)
            break;
        const size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = cs_fail(ctx, CS_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len) != NULL) {
        free(buf);
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: not a text file (contains NUL bytes)", path);
    }
    *out = buf;
    return CS_OK;
}

/* Splits line s (NUL-terminated, modified) at commas into trimmed fields; returns the count or
 * -1 when there are more than MAX_COLUMNS. */
static int split_fields(char *s, char **field)
{
    int nf = 0;
    for (;;) {
        char *end = strchr(s, ',');
        if (end != NULL)
            *end = '\0';
        if (nf == MAX_COLUMNS)
            return -1;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t l = strlen(s);
        while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
            s[--l] = '\0';
        field[nf++] = s;
        if (end == NULL)
            return nf;
        s = end + 1;
    }
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r')
            return 0;
    return 1;
}

/* A positive finite number, or an error naming the file, line and column. */
static cs_err parse_positive(cs_ctx *ctx, const char *path, int64_t line, const char *col,
                             const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    if (*s == '\0' || end == s || *end != '\0' || !isfinite(v))
        return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %s = '%s' is not a number", path,
                       (long long)line, col, s);
    if (!(v > 0.0))
        return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %s = %s must be > 0", path, (long long)line,
                       col, s);
    *out = v;
    return CS_OK;
}

typedef struct id_row {
    const char *id;
    int64_t row;
} id_row;

static int cmp_id_row(const void *pa, const void *pb)
{
    const id_row *a = pa, *b = pb;
    const int c = strcmp(a->id, b->id);
    return c != 0 ? c : (a->row > b->row) - (a->row < b->row);
}

/* Local (rank 0). Parses and checks the page table. */
static cs_err read_table(cs_ctx *ctx, const char *path, table *t)
{
    cs_err rc = CS_OK;
    id_row *order = NULL;
    CS_TRY(ctx, read_all(ctx, path, &t->buf));
    char *field[MAX_COLUMNS];
    int col_id = -1, col_mu = -1, col_delta = -1, col_c = -1, ncol = 0;
    int64_t lineno = 0;
    char *p = t->buf;
    int have_header = 0;
    while (*p != '\0') {
        char *nl = strchr(p, '\n');
        if (nl != NULL)
            *nl = '\0';
        lineno++;
        char *line = p;
        p = nl != NULL ? nl + 1 : p + strlen(p);
        if (is_blank(line))
            continue;
        if (strchr(line, '"') != NULL)
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT,
                                "%s:%lld: quoted fields are not supported (ids must not contain "
                                "commas or quotes)",
                                path, (long long)lineno));
        const int nf = split_fields(line, field);
        if (nf < 0)
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: more than %d fields", path,
                                (long long)lineno, MAX_COLUMNS));
        if (!have_header) {
            have_header = 1;
            ncol = nf;
            for (int k = 0; k < nf; k++) {
                int *slot = strcmp(field[k], "id") == 0         ? &col_id
                            : strcmp(field[k], "mu") == 0       ? &col_mu
                            : strcmp(field[k], "delta") == 0    ? &col_delta
                            : strcmp(field[k], "complete") == 0 ? &col_c
                                                                : NULL;
                if (slot == NULL)
                    CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT,
                                        "%s:%lld: unknown column '%s' (the header names exactly "
                                        "id, mu, delta, complete, in any order)",
                                        path, (long long)lineno, field[k]));
                if (*slot >= 0)
                    CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: column '%s' appears twice",
                                        path, (long long)lineno, field[k]));
                *slot = k;
            }
            const char *missing = col_id < 0      ? "id"
                                  : col_mu < 0    ? "mu"
                                  : col_delta < 0 ? "delta"
                                  : col_c < 0     ? "complete"
                                                  : NULL;
            if (missing != NULL)
                CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT,
                                    "%s:%lld: missing column '%s' (the header must name id, mu, "
                                    "delta, complete)",
                                    path, (long long)lineno, missing));
            continue;
        }
        if (nf != ncol)
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %d fields, the header has %d", path,
                                (long long)lineno, nf, ncol));
        const int64_t i = t->n;
        const size_t need = (size_t)i + 1;
        CS_TRY(ctx, cs_grow(ctx, &t->ids, &t->cap_ids, need, sizeof *t->ids, "page ids"));
        CS_TRY(ctx, cs_grow(ctx, &t->line, &t->cap_line, need, sizeof *t->line, "line numbers"));
        CS_TRY(ctx, cs_grow(ctx, &t->mu, &t->cap_mu, need, sizeof *t->mu, "mu"));
        CS_TRY(ctx, cs_grow(ctx, &t->delta, &t->cap_delta, need, sizeof *t->delta, "delta"));
        CS_TRY(ctx, cs_grow(ctx, &t->complete, &t->cap_c, need, 1, "complete flags"));
        if (field[col_id][0] == '\0')
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: empty id", path, (long long)lineno));
        t->ids[i] = field[col_id];
        t->line[i] = lineno;
        CS_TRY(ctx, parse_positive(ctx, path, lineno, "mu", field[col_mu], &t->mu[i]));
        CS_TRY(ctx, parse_positive(ctx, path, lineno, "delta", field[col_delta], &t->delta[i]));
        const char *c = field[col_c];
        if (strcmp(c, "1") == 0 || strcmp(c, "true") == 0)
            t->complete[i] = 1;
        else if (strcmp(c, "0") == 0 || strcmp(c, "false") == 0)
            t->complete[i] = 0;
        else
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT,
                                "%s:%lld: complete = '%s' is not 0, 1, true or false", path,
                                (long long)lineno, c));
        t->n++;
    }
    if (!have_header)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT,
                            "%s: empty file (expected a header id,mu,delta,"
                            "complete and one row per page)",
                            path));
    if (t->n == 0)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_FORMAT, "%s: no pages after the header", path));
    /* duplicate ids: sort (id, row) and compare neighbours */
    CS_TRY(ctx, cs_alloc(ctx, &order, (size_t)t->n, sizeof *order, "id check"));
    for (int64_t i = 0; i < t->n; i++)
        order[i] = (id_row){t->ids[i], i};
    qsort(order, (size_t)t->n, sizeof *order, cmp_id_row);
    for (int64_t k = 1; k < t->n; k++)
        if (strcmp(order[k - 1].id, order[k].id) == 0)
            CS_TRY(ctx,
                   cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: duplicate id '%s' (first on line %lld)",
                           path, (long long)t->line[order[k].row], order[k].id,
                           (long long)t->line[order[k - 1].row]));
    free(order);
    return CS_OK;
fail:
    free(order);
    return rc;
}

/* Local (rank 0). Writes the schedule to path atomically. */
static cs_err write_output(cs_ctx *ctx, const char *path, const table *t, const double *rate,
                           const double *prob)
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
    table t;
    memset(&t, 0, sizeof t);
    double *mu = NULL, *delta = NULL, *rate = NULL, *prob = NULL, *grate = NULL, *gprob = NULL;
    uint8_t *cf = NULL;
    int *counts = NULL, *displs = NULL;
    CS_TRY_AGREE(ctx, ctx->rank == 0 ? read_table(ctx, a->input, &t) : CS_OK);

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
    table_fini(&t);
    return rc;
}
