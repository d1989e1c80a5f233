/*
 * main: the `crawlsim` command. Initialises MPI (FUNNELED: OpenMP threads never call MPI),
 * parses the command line identically on every rank, dispatches to a subcommand and turns its
 * agreed error into one message from rank 0 and the same exit code on every rank.
 *
 * Exit codes: 0 success, 1 error in data, files or configuration, 2 bad command line; compare
 * (like cmp and diff): 0 the same, 1 different, 2 any error.
 */
#include "crawlsim/bandit.h"
#include "crawlsim/comm.h"
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/discover.h"
#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "crawlsim/h5.h"
#include "crawlsim/import.h"
#include "crawlsim/partition.h"
#include "crawlsim/recrawl.h"
#include "crawlsim/sim.h"
#include "main/cli.h"
#include "main/cmd_bandit.h"
#include "main/cmd_compare.h"
#include "main/cmd_fit.h"
#include "main/cmd_schedule.h"
#include "main/cmd_stats.h"
#include "main/main_impl.h"

#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct command {
    const char *name;
    const char *synopsis;
    const char *help;
    cs_err (*run)(cs_ctx *ctx, const cli *c);
    int err_status;     /* exit status of an error other than a bad command line (which is 2) */
    void (*more)(void); /* prints what follows the help text (the registries), or NULL */
} command;

cs_err main_usage(cs_ctx *ctx, const char *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_fail(ctx, CS_ERR_USAGE, "%s (see crawlsim%s --help)", msg, cmd);
}

/* ---- gen ------------------------------------------------------------------------------------ */

static cs_err cmd_gen(cs_ctx *ctx, const cli *c)
{
    if (c->npos > 1)
        return main_usage(ctx, "", "gen takes at most one spec file, got extra argument '%s'",
                          c->pos[1]);
    if (c->output == NULL)
        return main_usage(ctx, "", "gen needs an output file: -o FILE.h5");
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, c->npos ? c->pos[0] : NULL, c->sets, c->nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    const cs_h5_file out = {"graph file", c->output}, spec = {"spec", c->npos ? c->pos[0] : NULL};
    rc = cs_h5_check_outputs(ctx, &out, 1, &spec, 1);
    if (rc != CS_OK)
        return rc;
    return cs_gen_write(ctx, &cfg, c->output);
}

/* ---- info ----------------------------------------------------------------------------------- */

/* Local. Whether path names a job or spec file (SPEC.ini) rather than a graph file. */
static int is_spec(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcmp(path + n - 4, ".ini") == 0;
}

/* info SPEC.ini: the [gen] world's statistics estimated from a sample of its pages, computed on
 * rank 0 (the others wait for its verdict) */
static cs_err info_spec(cs_ctx *ctx, const cli *c)
{
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, c->pos[0], c->sets, c->nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    cs_gen_estimate e;
    if (ctx->rank == 0) {
        const double t0 = cs_now();
        cs_gen *g = NULL;
        rc = cs_gen_create(ctx, &cfg.gen, &g);
        const double t1 = cs_now();
        if (rc == CS_OK)
            rc = cs_gen_estimate_stats(ctx, g, (uint64_t)cfg.gen.seed,
                                       c->sample > 0 ? c->sample : 100000,
                                       c->threshold_set ? c->threshold : 0.5, &e);
        if (rc == CS_OK) {
            printf("spec %s (the [gen] world, not generated)\n", c->pos[0]);
            printf("source gen, seed %lld, target topic %lld\n", (long long)cfg.gen.seed,
                   (long long)cfg.gen.target_topic);
            cs_gen_estimate_print(stdout, &e);
            printf("model built in %.2f s, sample generated and summarised in %.2f s on 1 rank\n",
                   t1 - t0, cs_now() - t1);
            fflush(stdout);
        }
        cs_gen_destroy(&g);
    }
    return cs_agree(ctx, rc);
}

static cs_err cmd_info(cs_ctx *ctx, const cli *c)
{
    if (c->npos != 1)
        return main_usage(ctx, "", "info takes exactly one graph file or spec file");
    if (is_spec(c->pos[0]))
        return info_spec(ctx, c);
    if (c->sample > 0 || c->nsets > 0)
        return main_usage(ctx, "",
                          "%s is a graph file: --sample and --set apply to a spec (SPEC.ini), "
                          "whose world info estimates without generating it",
                          c->pos[0]);
    cs_graph_info info;
    cs_err rc = cs_graph_info_compute(ctx, c->pos[0], c->threshold_set ? c->threshold : 0.5, &info);
    if (rc != CS_OK)
        return rc;
    if (ctx->rank == 0) {
        printf("file %s\n", c->pos[0]);
        cs_graph_info_print(stdout, &info);
        fflush(stdout);
    }
    int has_part = 0;
    rc = cs_partition_exists(ctx, c->pos[0], &has_part);
    if (rc != CS_OK || !has_part)
        return rc;
    cs_partition p;
    cs_partition_init(&p);
    rc = cs_partition_read(ctx, c->pos[0], NULL, &p);
    if (rc == CS_OK && ctx->rank == 0) {
        cs_partition_print(stdout, &p);
        fflush(stdout);
    }
    cs_partition_fini(&p);
    return rc;
}

/* ---- partition ------------------------------------------------------------------------------ */

static cs_err cmd_partition(cs_ctx *ctx, const cli *c)
{
    if (c->npos < 1 || c->npos > 2)
        return main_usage(ctx, "", "partition takes a graph file and optionally a job file");
    if (!c->k_set)
        return main_usage(ctx, "", "partition needs the number of parts: -k K");
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, c->npos == 2 ? c->pos[1] : NULL, c->sets, c->nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    /* --method overrides the job file and --set; the same argv on every rank, so the same
     * answer everywhere. */
    if (c->method != NULL) {
        char method_set[128];
        snprintf(method_set, sizeof method_set, "partition.method=%s", c->method);
        rc = cs_agree(ctx, cs_config_set(ctx, &cfg, method_set, "--method"));
        if (rc != CS_OK)
            return rc;
    }
    const cs_h5_file out = {"partition file", c->output},
                     ins[] = {{"graph file", c->pos[0]},
                              {"job file", c->npos == 2 ? c->pos[1] : NULL}};
    if (c->output != NULL && (rc = cs_h5_check_outputs(ctx, &out, 1, ins, 2)) != CS_OK)
        return rc;
    cs_partition p;
    cs_partition_init(&p);
    rc = cs_partition_compute(ctx, c->pos[0], &cfg.partition, (int32_t)c->k, &p);
    if (rc == CS_OK)
        rc = cs_partition_write(ctx, c->output != NULL ? c->output : c->pos[0], c->output == NULL,
                                &p);
    if (rc == CS_OK && ctx->rank == 0) {
        printf("file %s\n", c->pos[0]);
        cs_partition_print(stdout, &p);
        printf("wrote %s%s\n", c->output != NULL ? c->output : c->pos[0],
               c->output != NULL ? "" : " (group /partition)");
        fflush(stdout);
    }
    cs_partition_fini(&p);
    return rc;
}

/* ---- import --------------------------------------------------------------------------------- */

static cs_err cmd_import(cs_ctx *ctx, const cli *c)
{
    if (c->npos != 1)
        return main_usage(ctx, "", "import takes exactly one import spec (see graphs/*.ini)");
    if (c->output == NULL)
        return main_usage(ctx, "", "import needs an output file: -o FILE.h5");
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, c->pos[0], c->sets, c->nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    return cs_import_run(ctx, &cfg, c->output);
}

/* ---- run ------------------------------------------------------------------------------------ */

enum { MAX_SEEDS = 10000 };

/* Local. Parses --seeds: comma-separated seeds or ranges A-B (A <= B), at most MAX_SEEDS in
 * all; *n seeds into v (MAX_SEEDS long). 0, or -1 with *bad the offending item. */
static int parse_seeds(const char *list, int64_t *v, int *n, const char **bad)
{
    *n = 0;
    const char *p = list;
    for (;;) {
        *bad = p;
        char *end = NULL;
        errno = 0;
        long long a = strtoll(p, &end, 10), b = a;
        if (end == p || errno != 0 || a < 0 || !isdigit((unsigned char)*p))
            return -1;
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            b = strtoll(q, &end, 10);
            if (end == q || errno != 0 || b < a || !isdigit((unsigned char)*q))
                return -1;
            p = end;
        }
        if (b - a >= MAX_SEEDS - *n)
            return -1;
        for (long long x = a; x <= b; x++)
            v[(*n)++] = (int64_t)x;
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            return -1;
    }
}

/* Local. output with its one "{seed}" replaced by seed; -1 when it does not fit. */
static int seed_path(const char *pattern, int64_t seed, char *out, size_t cap)
{
    const char *at = strstr(pattern, "{seed}");
    int k = snprintf(out, cap, "%.*s%lld%s", (int)(at - pattern), pattern, (long long)seed,
                     at + strlen("{seed}"));
    return k < 0 || (size_t)k >= cap ? -1 : 0;
}

/* crawlsim run --seeds LIST: one run per seed (run.seed), each exactly the run of
 * --set run.seed=S, on one world loaded once (cs_sim_run_in). */
static cs_err run_seeds(cs_ctx *ctx, const cli *c, const cs_config *cfg, const char *output,
                        const cs_h5_file *ins, int nin)
{
    int64_t *seeds = NULL;
    int n = 0;
    const char *bad = NULL;
    cs_config *one = NULL;
    cs_sim_world *w = NULL;
    char path[CS_CONF_STR + 96];
    if (c->restart != NULL)
        return main_usage(ctx, "",
                          "--seeds and --restart do not go together: restart each run "
                          "from its own checkpoint");
    if (cfg->run.checkpoint[0] != '\0')
        return main_usage(ctx, "",
                          "--seeds and run.checkpoint do not go together: run seeds with "
                          "checkpoints one by one");
    const char *at = strstr(output, "{seed}");
    if (at == NULL || strstr(at + 1, "{seed}") != NULL)
        return main_usage(ctx, "",
                          "--seeds needs a results name with {seed} once, e.g. -o "
                          "results/run-s{seed}.h5 (got %s)",
                          output);
    cs_err rc = cs_alloc(ctx, &seeds, MAX_SEEDS, sizeof *seeds, "seeds");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &one, 1, sizeof *one, "configuration");
    if (rc != CS_OK)
        goto fail;
    if (parse_seeds(c->seeds, seeds, &n, &bad) != 0) {
        rc = main_usage(ctx, "",
                        "--seeds %s: bad list at '%s' (seeds >= 0, ranges A-B with A <= B, "
                        "commas between, at most %d seeds)",
                        c->seeds, bad, MAX_SEEDS);
        goto fail;
    }
    for (int i = 0; i < n && rc == CS_OK; i++) {
        if (seed_path(output, seeds[i], path, sizeof path) != 0) {
            rc = main_usage(ctx, "", "results name too long: %s", output);
            break;
        }
        for (int j = 0; j < i; j++)
            if (seeds[j] == seeds[i])
                rc = main_usage(ctx, "", "--seeds %s: seed %lld twice", c->seeds,
                                (long long)seeds[i]);
        const cs_h5_file out = {"results file", path};
        if (rc == CS_OK)
            rc = cs_h5_check_outputs(ctx, &out, 1, ins, nin);
    }
    if (rc != CS_OK)
        goto fail;
    rc = cs_sim_world_load(ctx, cfg, &w);
    for (int i = 0; i < n && rc == CS_OK; i++) {
        char set[64];
        snprintf(set, sizeof set, "run.seed=%lld", (long long)seeds[i]);
        *one = *cfg;
        rc = cs_agree(ctx, cs_config_set(ctx, one, set, "--seeds"));
        if (rc != CS_OK)
            break;
        seed_path(output, seeds[i], path, sizeof path);
        CS_LOG(ctx, CS_LOG_INFO, "run %d of %d: run.seed = %lld", i + 1, n, (long long)seeds[i]);
        cs_sim_summary sum;
        rc = cs_sim_run_in(ctx, one, w, path, NULL, &sum);
        if (rc == CS_OK && sum.stopped) {
            *c->status = 3;
            break;
        }
    }
fail:
    cs_sim_world_destroy(&w);
    free(one);
    free(seeds);
    return rc;
}

static cs_err cmd_run(cs_ctx *ctx, const cli *c)
{
    if (c->npos > 1)
        return main_usage(ctx, "", "run takes at most one job file, got extra argument '%s'",
                          c->pos[1]);
    if (c->restart != NULL && c->restart[0] == '\0')
        return main_usage(ctx, "", "--restart needs a checkpoint file");
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, c->npos ? c->pos[0] : NULL, c->sets, c->nsets, &cfg);
    if (rc ==
        CS_OK) /* the SMPI build's modelled computation (the same environment on every rank) */
        rc = cs_simcost_init(ctx);
    if (rc != CS_OK)
        return rc;
    char output[CS_CONF_STR + 64];
    if (c->output != NULL) {
        snprintf(output, sizeof output, "%s", c->output);
    } else if (cfg.run.output[0] != '\0') {
        snprintf(output, sizeof output, "%s", cfg.run.output);
    } else {
        /* results/<job name>.h5 in the current directory */
        cs_config_default_output(c->npos ? c->pos[0] : "crawl.ini", output, sizeof output);
    }
    /* the files the run reads must survive it, and what it writes must be writable now, not
     * when the first checkpoint is due */
    char graph[CS_CONF_STR + 64] = "", part[CS_CONF_STR + 64] = "", seeds[CS_CONF_STR + 64] = "";
    if (cfg.run.graph[0] != '\0')
        cs_config_resolve_path(&cfg, cfg.run.graph, graph, sizeof graph);
    if (cfg.run.partition[0] != '\0')
        cs_config_resolve_path(&cfg, cfg.run.partition, part, sizeof part);
    if (cfg.run.seed_file[0] != '\0')
        cs_config_resolve_path(&cfg, cfg.run.seed_file, seeds, sizeof seeds);
    const cs_h5_file outs[] = {{"results file", output},
                               {"checkpoint", cfg.run.checkpoint[0] ? cfg.run.checkpoint : NULL}},
                     ins[] = {{"job file", c->npos ? c->pos[0] : NULL},
                              {"graph file", graph[0] ? graph : NULL},
                              {"partition file", part[0] ? part : NULL},
                              {"seed file", seeds[0] ? seeds : NULL}},
                     restart = {"checkpoint", c->restart};
    rc = cs_h5_check_outputs(ctx, outs, 2, ins, 4);
    if (rc == CS_OK && c->restart != NULL) /* the checkpoint may be written where it was read */
        rc = cs_h5_check_outputs(ctx, outs, 1, &restart, 1);
    if (rc != CS_OK)
        return rc;
    if (c->seeds != NULL)
        return run_seeds(ctx, c, &cfg, output, ins, 4);
    cs_sim_summary sum;
    rc = cs_sim_run(ctx, &cfg, output, c->restart, &sum);
    if (rc == CS_OK && sum.stopped)
        *c->status = 3;
    return rc;
}

/* ---- schedule (cmd_schedule.c) -----------------------------------------------------------------
 */

static cs_err cmd_schedule(cs_ctx *ctx, const cli *c)
{
    if (c->npos > 0)
        return main_usage(ctx, "", "schedule takes no positional argument, got '%s'", c->pos[0]);
    cs_schedule_args a = c->sched;
    a.output = c->output;
    return cs_cmd_schedule(ctx, &a);
}

/* ---- bandit (cmd_bandit.c) ------------------------------------------------------------------ */

static cs_err cmd_bandit(cs_ctx *ctx, const cli *c)
{
    if (c->npos > 1)
        return main_usage(ctx, "", "bandit takes at most one job file, got extra argument '%s'",
                          c->pos[1]);
    return cs_cmd_bandit(ctx, c->npos ? c->pos[0] : NULL, c->sets, c->nsets, c->output);
}

/* ---- fit (cmd_fit.c) ---------------------------------------------------------------------- */

/* Local. The value of the stats option `name` on the command line, or NULL. */
static const char *stats_option_value(const cli *c, const char *name)
{
    const char *v = NULL;
    for (int i = 0; i + 1 < c->nstats_opt; i += 2)
        if (strcmp(c->stats_opt[i], name) == 0)
            v = c->stats_opt[i + 1];
    return v;
}

/* Local. The first stats option that the command does not take (fit: --orders and --bfs-seeds,
 * stats: all), or NULL. */
static const char *misplaced_stats_option(const cli *c)
{
    const int fit = c->cmd != NULL && strcmp(c->cmd, "fit") == 0;
    for (int i = 0; i + 1 < c->nstats_opt; i += 2)
        if (fit ? strcmp(c->stats_opt[i], "--orders") != 0 &&
                      strcmp(c->stats_opt[i], "--bfs-seeds") != 0
                : c->cmd == NULL || strcmp(c->cmd, "stats") != 0)
            return c->stats_opt[i];
    return NULL;
}

static cs_err cmd_fit(cs_ctx *ctx, const cli *c)
{
    const cs_fit_args a = {c->npos == 1 ? c->pos[0] : NULL,
                           c->npos,
                           c->output,
                           c->fit_table,
                           c->fit_candidates,
                           stats_option_value(c, "--orders"),
                           stats_option_value(c, "--bfs-seeds"),
                           c->fit_twin,
                           c->sets,
                           c->nsets};
    return cs_cmd_fit(ctx, &a);
}

/* ---- stats (cmd_stats.c) ------------------------------------------------------------------ */

static cs_err cmd_stats(cs_ctx *ctx, const cli *c)
{
    const cs_stats_args a = {c->npos == 1 ? c->pos[0] : NULL,
                             c->npos,
                             c->output,
                             c->sets,
                             c->nsets,
                             c->sample,
                             c->threshold_set ? c->threshold : 0.5,
                             c->stats_opt,
                             c->nstats_opt};
    return cs_cmd_stats(ctx, &a);
}

/* ---- compare (cmd_compare.c) ---------------------------------------------------------------- */

static cs_err cmd_compare(cs_ctx *ctx, const cli *c)
{
    if (c->npos != 2)
        return main_usage(ctx, "", "compare takes exactly two files, got %d", c->npos);
    const cs_compare_args a = {.a = c->pos[0],
                               .b = c->pos[1],
                               .ignore = c->ignore,
                               .n_ignore = c->nignore,
                               .only = c->only,
                               .n_only = c->nonly,
                               .no_default_ignore = c->no_default_ignore,
                               .verbosity = c->verbosity};
    int differ = 0;
    cs_err rc = cs_cmd_compare(ctx, &a, &differ);
    if (rc == CS_OK && differ)
        *c->status = 1;
    return rc;
}

/* ---- help ----------------------------------------------------------------------------------- */

static cs_err cmd_help(cs_ctx *ctx, const cli *c);

/* run --help: the registries' policies, one per line. */
static void print_policies(void)
{
    int n = 0;
    const cs_discover_policy *d = cs_discover_list(&n);
    printf("\nDiscovery policies (run.policy):\n");
    for (int i = 0; i < n; i++)
        printf("  %-26s %s\n", d[i].name, d[i].summary);
    printf("\nRe-crawl policies (refresh.policy; docs/guide/refresh.md):\n  none\n");
    for (int i = 0; cs_recrawl_name(i) != NULL; i++)
        printf("  %-26s %s\n", cs_recrawl_name(i), cs_recrawl_summary(cs_recrawl_name(i)));
}

/* bandit --help: the bandit registry's policies of each experiment. */
static void print_bandit_policies(void)
{
    printf("\nPolicies (bandit.policies), from the bandit registry:\n  ephemeral:");
    for (int i = 0; cs_bandit_at(i) != NULL; i++)
        if (cs_bandit_at(i)->ephemeral != NULL)
            printf(" %s", cs_bandit_name(cs_bandit_at(i)));
    printf("\n  freshness:");
    for (int i = 0; cs_bandit_at(i) != NULL; i++)
        if (cs_bandit_at(i)->freshness)
            printf(" %s", cs_bandit_name(cs_bandit_at(i)));
    printf("\n");
}

static const command commands[] = {
    {"gen", "crawlsim gen [SPEC.ini] -o WEB.h5 [--set gen.KEY=VALUE ...]",
     "Generates a synthetic web graph from the [gen] section of SPEC.ini (defaults without one)\n"
     "and writes it to WEB.h5. Run it under mpirun/srun with any number of ranks: each rank\n"
     "generates a slice of the page ids, with OpenMP threads inside; the file is identical for\n"
     "any rank or thread count. Written atomically (temporary name, then rename).\n",
     cmd_gen, 1, NULL},
    {"info",
     "crawlsim info WEB.h5 [--relevance-threshold X] | crawlsim info SPEC.ini [--sample N] "
     "[--set gen.KEY=VALUE ...]",
     "Prints the statistics of a graph file: pages, links, hosts, topics, out/in-degree\n"
     "summaries with fitted power-law exponents, links within host and topic, relevant\n"
     "fraction (relevance >= X, default 0.5), reciprocity, change-rate and importance summaries.\n"
     "Runs under mpirun with any number of ranks (each reads its block of pages).\n"
     "With a spec (a file ending in .ini) it estimates the statistics of its [gen] world\n"
     "without generating it (worlds of 10^9 pages and more): pages, hosts and host sizes\n"
     "exactly from the host model; the rest from a uniform sample of N pages (default 10^5)\n"
     "and one out-link of each, with 95 % intervals. In-degree distributions need the graph.\n",
     cmd_info, 1, NULL},
    {"stats", CS_STATS_SYNOPSIS, CS_STATS_HELP, cmd_stats, 1, NULL},
    {"fit", CS_FIT_SYNOPSIS, CS_FIT_HELP, cmd_fit, 1, NULL},
    {"import", "crawlsim import SPEC.ini -o WEB.h5 [--set import.KEY=VALUE ...]",
     "Imports a real graph (edge list, plain or gzip, plus an optional page table) described by\n"
     "the [import] section of SPEC.ini into the graph schema. Change rates, importance and\n"
     "observability come from the [gen] model. Specs for the bundled datasets: graphs/*.ini.\n",
     cmd_import, 1, NULL},
    {"partition",
     "crawlsim partition WEB.h5 -k K [--method M] [-o PART.h5] [JOB.ini] "
     "[--set partition.KEY=VALUE ...]",
     "Partitions the pages of WEB.h5 into K parts (one per rank of a run) and writes the\n"
     "partition into WEB.h5 (group /partition, replaced atomically) or into PART.h5 with -o.\n"
     "Methods (--method or partition.method): metis-host (default; METIS k-way on the host\n"
     "graph, hosts kept whole), metis (METIS on the symmetrised page graph), host-hash (hash of\n"
     "the host, what Nutch and StormCrawler do), block (contiguous page ids). METIS runs on\n"
     "rank 0, which reads the whole graph. Prints the method, k, time and the quality: edge\n"
     "cut, communication volume, page and link balance, hosts split.\n",
     cmd_partition, 1, NULL},
    {"run",
     "crawlsim run [JOB.ini] [-o RESULTS.h5] [--restart CKPT | --seeds LIST] [--set "
     "SECTION.KEY=VALUE ...]",
     "Runs a focused crawl (docs/developer/architecture.md \"One rank, one tick\") under\n"
     "mpirun/srun: the world of run.graph (or the [gen] world generated in memory, each rank its\n"
     "own pages), partitioned by run.partition_method, crawled by run.policy (below) for\n"
     "run.tasks tasks, with re-crawls of the fetched pages when refresh.policy (below) is set.\n"
     "Writes the results file (HDF5: config, /series, /tasks, /ranks, /final, /timing) to -o,\n"
     "run.output or results/<job name>.h5, and prints a summary.\n"
     "Every key: crawlsim help config run|crawl|sarsa|tres|refresh|bandit. Use OMP_NUM_THREADS\n"
     "for threads per rank.\n\n"
     "Checkpoints: with run.checkpoint = FILE the whole state is written to FILE (atomically)\n"
     "every run.checkpoint_every ticks and at the next tick boundary after SIGUSR1 (the run goes\n"
     "on) or SIGTERM (the run stops with exit status 3). --restart CKPT continues from a\n"
     "checkpoint, with the same job file, --set options and number of ranks: the results equal\n"
     "those of an uninterrupted run (everything outside /timing).\n\n"
     "Several seeds: --seeds LIST (e.g. 1-10 or 1,4,9) runs the job once per run.seed in LIST,\n"
     "one after the other on the world loaded once, and writes each run's results to the -o\n"
     "name with {seed} replaced (-o results/job-s{seed}.h5). Each run is exactly the run of\n"
     "--set run.seed=S (its results file is the same outside /timing); the world's reading,\n"
     "partitioning, its evidence table (the pages' term projections) and MPI's start-up are\n"
     "paid once. Not with checkpoints.\n",
     cmd_run, 1, print_policies},
    {"schedule",
     "crawlsim schedule --policy P --bandwidth R --input PAGES.csv -o RATES.csv [--epsilon E]",
     "Computes re-crawl rates under the bandwidth R (crawls per time unit, summed over pages)\n"
     "with LambdaCrawl (Kolobov et al. 2019) or a baseline, and writes id,rate,probability in\n"
     "input order. PAGES.csv has a header naming id, mu, delta, complete (any order, no other\n"
     "column). Policies: lambdacrawl (Alg. 1, 2 or the mixed optimum, from the data),\n"
     "lambdacrawl-incomplete (Alg. 1 on every page), lca (Prop. 9), binary-lambdacrawl (Azar et\n"
     "al.; may starve pages), binary-lambdacrawl-floor (rates >= E R / N, E in (0,1), default\n"
     "0.1), uniform, change-rate, static-opt (Azar et al.'s binary-freshness optimum in discrete\n"
     "time, DRL paper Eq. 8: R crawls per slot of one time unit, change probability per slot\n"
     "1 - exp(-delta); rate = probability = the page's crawl probability per slot). Prints\n"
     "lambda, the split of R and the costs J_h and J_b (sums over pages; static-opt: F of Eq. 8).\n"
     "Runs under mpirun: the rows are split over the ranks.\n",
     cmd_schedule, 1, NULL},
    {"bandit", "crawlsim bandit [JOB.ini] [-o RESULTS.h5] [--set bandit.KEY=VALUE ...]",
     "Runs a restless-bandit experiment from the [bandit] section of JOB.ini: bandit.experiment\n"
     "= ephemeral (Avrachenkov & Borkar 2019: arms with arrival rates, decays and lifetimes)\n"
     "or freshness (Avrachenkov, Borkar & Patil 2021: groups of pages with change rates and\n"
     "importances), with bandit.policies from the registry (below). Writes the running- and "
     "moving-average reward series with 95 % intervals over\n"
     "bandit.runs runs to -o, bandit.output or results/<job name>.h5 and prints a summary. Runs\n"
     "under mpirun: the runs are dealt to the ranks; the file is the same for any rank count.\n"
     "Every key: crawlsim help config bandit.\n",
     cmd_bandit, 1, print_bandit_policies},
    {"compare",
     "crawlsim compare A.h5 B.h5 [--ignore PATH ...] [--only PATH ...] [--no-default-ignore]",
     "Compares two HDF5 files (results, graphs, checkpoints) object by object. Exit status 0:\n"
     "the same, 1: they differ, 2: an error (a missing or unreadable file, not HDF5, bad\n"
     "arguments). The same means: the same objects (groups, datasets, committed datatypes and\n"
     "links; a path in one file only is a difference); for every dataset and attribute the same\n"
     "datatype (class, size, sign, byte order; strings: size, padding, character set), the same\n"
     "shape, and bit-identical values (-0.0 is not 0.0, NaN payloads count; strings compare by\n"
     "their contents); the same attributes (names, types, shapes, values) on every object, the\n"
     "root included. Storage (layout, chunks, filters) and object times are not compared.\n"
     "/timing (the wall-clock times of crawlsim run) is ignored unless --no-default-ignore;\n"
     "--ignore PATH leaves out PATH and everything below it, --only PATH compares only PATH and\n"
     "what lies below it (both repeatable; an --only path in neither file is an error). Prints\n"
     "the first 10 differences (-v: all; -q: nothing, the exit status only), one per line with\n"
     "the path and what differs (missing, kind, type, shape, attribute, or the first differing\n"
     "element with both values and the number of differing elements), then a summary line.\n"
     "Runs on one process (no mpirun needed); under mpirun rank 0 compares and every rank exits\n"
     "with its status.\n",
     cmd_compare, 2, NULL},
    {"help", "crawlsim help [COMMAND | config [SECTION] [--markdown]]",
     "Shows the help of a command, or the reference of every job-file key (config).\n", cmd_help, 1,
     NULL},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_main_help(FILE *out)
{
    fprintf(
        out,
        "crawlsim %s - a distributed simulator of learning web crawlers\n\n"
        "usage: mpirun -n P crawlsim [-v|-vv|-q] COMMAND [ARGS] [--set SECTION.KEY=VALUE ...]\n\n"
        "commands:\n",
        CRAWLSIM_VERSION);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %s\n", commands[i].synopsis);
    fprintf(out, "\noptions (any command):\n"
                 "  -o, --output FILE   output file\n"
                 "  --set S.K=V         override a key of the job/spec file (repeatable)\n"
                 "  -v, -vv             more log output (verbose, debug); -q errors only\n"
                 "  -h, --help          help (crawlsim COMMAND --help for a command)\n"
                 "  --version           print the version\n\n"
                 "Every key, its default and range: crawlsim help config\n"
                 "Exit status: 0 success, 1 error in data/files/configuration, 2 bad command "
                 "line\n(compare: 0 the same, 1 different, 2 error).\n");
}

static void print_command_help(const command *cmd)
{
    printf("usage: %s\n\n%s", cmd->synopsis, cmd->help);
    if (cmd->more != NULL)
        cmd->more();
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static cs_err cmd_help(cs_ctx *ctx, const cli *c)
{
    if (c->npos >= 1 && strcmp(c->pos[0], "config") == 0) {
        const char *section = c->npos >= 2 ? c->pos[1] : NULL;
        int known = section == NULL;
        size_t n = 0;
        const cs_conf_entry *e = cs_config_schema(&n);
        for (size_t i = 0; i < n && !known; i++)
            known = strcmp(e[i].section, section) == 0;
        if (!known)
            return main_usage(ctx, "",
                              "no config section '%s' (sections: run, crawl, sarsa, tres, bandit, "
                              "gen, import, partition)",
                              section);
        if (ctx->rank == 0)
            cs_config_print_help(stdout, section, c->markdown);
        return CS_OK;
    }
    if (c->npos >= 1) {
        const command *cmd = find_command(c->pos[0]);
        if (cmd == NULL)
            return main_usage(ctx, "", "no command '%s'", c->pos[0]);
        if (ctx->rank == 0)
            print_command_help(cmd);
        return CS_OK;
    }
    if (ctx->rank == 0)
        print_main_help(stdout);
    return CS_OK;
}

int main(int argc, char **argv)
{
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "crawlsim: error: MPI_Init_thread failed\n");
        return 1;
    }
    /* HDF5 prints its error stack on every rank by default: a damaged file would fill the
     * terminal with them. Every failure that matters is reported as one crawlsim error naming
     * the file and the dataset, so the stacks stay off for every command. */
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_INFO);
    cs_err rc = CS_OK;
    cli c;
    int status = 0;
    const command *cmd = NULL;
#ifdef CRAWLSIM_SMPI
    /* SMPI reports MPI_THREAD_SINGLE; a simulated rank calls MPI from its own thread only, which
     * is all that FUNNELED asks (docs/guide/simulated-cluster.md) */
    const int needed = MPI_THREAD_SINGLE;
#else
    const int needed = MPI_THREAD_FUNNELED;
#endif
    if (provided < needed) {
        rc = cs_fail(&ctx, CS_ERR_MPI,
                     "the MPI library provides thread level %d, crawlsim needs "
                     "MPI_THREAD_FUNNELED",
                     provided);
        goto done;
    }
    /* argv is the same on every rank, so parse errors agree without communication. */
    rc = main_parse_cli(&ctx, argc, argv, &c);
    if (rc == CS_OK && c.restart != NULL && (c.cmd == NULL || strcmp(c.cmd, "run") != 0))
        rc = main_usage(&ctx, "", "--restart applies to crawlsim run only");
    if (rc == CS_OK && c.seeds != NULL && (c.cmd == NULL || strcmp(c.cmd, "run") != 0))
        rc = main_usage(&ctx, "", "--seeds applies to crawlsim run only");
    /* fit takes two of the stats options: the discovery crawls' orders and seeds */
    const char *fit_stats = misplaced_stats_option(&c);
    if (rc == CS_OK && fit_stats != NULL)
        rc = main_usage(&ctx, "", "%s applies to crawlsim stats only", fit_stats);
    if (rc == CS_OK && c.fit_opt != NULL && (c.cmd == NULL || strcmp(c.cmd, "fit") != 0))
        rc = main_usage(&ctx, "", "%s applies to crawlsim fit only", c.fit_opt);
    if (rc == CS_OK && c.compare_opt != NULL && (c.cmd == NULL || strcmp(c.cmd, "compare") != 0))
        rc = main_usage(&ctx, "", "%s applies to crawlsim compare only", c.compare_opt);
    if (rc != CS_OK)
        goto done;
    c.status = &status;
    ctx.level = c.verbosity < 0    ? CS_LOG_ERROR
                : c.verbosity == 0 ? CS_LOG_INFO
                : c.verbosity == 1 ? CS_LOG_VERBOSE
                                   : CS_LOG_DEBUG;
    if (c.cmd != NULL && strcmp(c.cmd, "version") == 0) {
        if (ctx.rank == 0)
            printf("crawlsim %s\n", CRAWLSIM_VERSION);
        goto done;
    }
    if (c.cmd == NULL) {
        if (c.help) {
            if (ctx.rank == 0)
                print_main_help(stdout);
            goto done;
        }
        if (ctx.rank == 0)
            print_main_help(stderr);
        rc = cs_fail(&ctx, CS_ERR_USAGE, "no command given");
        goto done;
    }
    cmd = find_command(c.cmd);
    if (cmd == NULL) {
        rc = main_usage(&ctx, "", "unknown command '%s'", c.cmd);
        goto done;
    }
    if (c.help) {
        if (ctx.rank == 0)
            print_command_help(cmd);
        goto done;
    }
    CS_LOG(&ctx, CS_LOG_VERBOSE, "crawlsim %s: %s on %d rank(s), %d OpenMP thread(s) per rank",
           CRAWLSIM_VERSION, cmd->name, ctx.size, omp_get_max_threads());
    main_check_placement(&ctx);
    rc = cmd->run(&ctx, &c);
done:
    /* Every path above is taken by all ranks alike; agree once more so that a local failure
     * inside a command that returned without agreeing still ends the job together. */
    rc = cs_agree(&ctx, rc);
    cs_report_error(&ctx, rc);
    cs_ctx_fini(&ctx);
    cs_h5_quiet_end(&quiet);
    /* HDF5 ends before MPI: its clean-up would otherwise run inside MPI_Finalize */
    cs_h5_finish(ctx.rank);
    MPI_Finalize();
    return rc != CS_OK ? (rc == CS_ERR_USAGE ? 2 : cmd != NULL ? cmd->err_status : 1) : status;
}
