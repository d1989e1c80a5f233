/*
 * The command line of crawlsim: every option of every command, parsed the same on every rank
 * (the same argv); option parsers by group, each taking what is its own.
 */
#include "main/cli.h"
#include "main/cmd_fit.h"
#include "main/main_impl.h"

#include <stdlib.h>
#include <string.h>

/* The options of parse_cli, one group each: an option parser returns 1 when argv[*i] is one of
 * its options (*rc set: CS_OK, or a usage error; *i moved past a value it takes), else 0. */

/* The value of the option at argv[*i] (and *i moved to it), NULL when it is the last argument. */
static const char *option_value(int argc, char **argv, int *i)
{
    return *i + 1 < argc ? argv[++*i] : NULL;
}

/* -o/--output and --set (any command). */
static int output_set_option(cs_ctx *ctx, int argc, char **argv, int *i, cli *c, cs_err *rc)
{
    const char *a = argv[*i];
    *rc = CS_OK;
    if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
        if ((c->output = option_value(argc, argv, i)) == NULL)
            *rc = main_usage(ctx, "", "%s needs a file name", a);
    } else if (strncmp(a, "--output=", 9) == 0) {
        c->output = a + 9;
    } else if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) {
        const char *val = a[5] == '=' ? a + 6 : option_value(argc, argv, i);
        if (val == NULL)
            *rc = main_usage(ctx, "", "%s needs SECTION.KEY=VALUE", a);
        else if (c->nsets == MAX_SETS)
            *rc = main_usage(ctx, "", "too many --set options (at most %d)", MAX_SETS);
        else
            c->sets[c->nsets++] = val;
    } else {
        return 0;
    }
    return 1;
}

/* --relevance-threshold V, --sample N, -k K: the numbers of info, stats and partition. */
static cs_err parse_number(cs_ctx *ctx, const char *a, const char *v, cli *c)
{
    char *end = NULL;
    if (a[1] == 'k') {
        if (v == NULL)
            return main_usage(ctx, "", "%s needs a number of parts", a);
        c->k = strtol(v, &end, 10);
        if (end == v || *end != '\0' || c->k < -2147483647L || c->k > 2147483647L)
            return main_usage(ctx, "", "-k '%s' is not a number of parts", v);
        c->k_set = 1;
    } else if (a[2] == 's') {
        if (v == NULL)
            return main_usage(ctx, "", "%s needs a number of pages", a);
        long long n = strtoll(v, &end, 10);
        if (end == v || *end != '\0' || n < 2)
            return main_usage(ctx, "", "--sample '%s' is not a number of pages (at least 2)", v);
        c->sample = (int64_t)n;
    } else {
        if (v == NULL)
            return main_usage(ctx, "", "%s needs a number", a);
        c->threshold = strtod(v, &end);
        if (end == v || *end != '\0' || !(c->threshold >= 0.0 && c->threshold <= 1.0))
            return main_usage(ctx, "", "--relevance-threshold '%s' is not a number in [0,1]", v);
        c->threshold_set = 1;
    }
    return CS_OK;
}

/* compare's --ignore PATH and --only PATH (also --ignore=PATH, --only=PATH): checked by the
 * command. */
static cs_err parse_compare_path(cs_ctx *ctx, int argc, char **argv, int *i, cli *c)
{
    const char *a = argv[*i];
    const int is_ignore = a[2] == 'i';
    const char *eq = strchr(a, '=');
    const char *val = eq != NULL ? eq + 1 : option_value(argc, argv, i);
    if (val == NULL)
        return main_usage(ctx, "", "%s needs a path in the file (e.g. /timing)", a);
    if ((is_ignore ? c->nignore : c->nonly) == MAX_PATHS)
        return main_usage(ctx, "", "too many %s options (at most %d)",
                          is_ignore ? "--ignore" : "--only", MAX_PATHS);
    if (is_ignore)
        c->ignore[c->nignore++] = val;
    else
        c->only[c->nonly++] = val;
    if (c->compare_opt == NULL)
        c->compare_opt = is_ignore ? "--ignore" : "--only";
    return CS_OK;
}

/* The numbers and names of info, partition and stats: --relevance-threshold, --sample, -k,
 * --method. */
static int number_option(cs_ctx *ctx, int argc, char **argv, int *i, cli *c, cs_err *rc)
{
    const char *a = argv[*i];
    *rc = CS_OK;
    if (strcmp(a, "--relevance-threshold") == 0 || strcmp(a, "--sample") == 0 ||
        strcmp(a, "-k") == 0) {
        *rc = parse_number(ctx, a, option_value(argc, argv, i), c);
    } else if (strcmp(a, "--method") == 0) {
        if ((c->method = option_value(argc, argv, i)) == NULL)
            *rc = main_usage(ctx, "", "%s needs a method (metis-host, metis, host-hash, block)", a);
    } else {
        return 0;
    }
    return 1;
}

/* schedule's --policy, --bandwidth, --epsilon, --input and compare's --ignore, --only,
 * --no-default-ignore: their values are checked by the commands. */
static int schedule_compare_option(cs_ctx *ctx, int argc, char **argv, int *i, cli *c, cs_err *rc)
{
    const char *a = argv[*i];
    *rc = CS_OK;
    if (strcmp(a, "--policy") == 0 || strcmp(a, "--bandwidth") == 0 ||
        strcmp(a, "--epsilon") == 0 || strcmp(a, "--input") == 0) {
        const char **slot = a[2] == 'p'   ? &c->sched.policy
                            : a[2] == 'b' ? &c->sched.bandwidth
                            : a[2] == 'e' ? &c->sched.epsilon
                                          : &c->sched.input;
        if ((*slot = option_value(argc, argv, i)) == NULL)
            *rc = main_usage(ctx, "", "%s needs a value", a);
    } else if (strcmp(a, "--ignore") == 0 || strcmp(a, "--only") == 0 ||
               strncmp(a, "--ignore=", 9) == 0 || strncmp(a, "--only=", 7) == 0) {
        *rc = parse_compare_path(ctx, argc, argv, i, c);
    } else if (strcmp(a, "--no-default-ignore") == 0) {
        c->no_default_ignore = 1;
        if (c->compare_opt == NULL)
            c->compare_opt = a;
    } else {
        return 0;
    }
    return 1;
}

/* fit's and stats' options (cs_cmd_fit_option, cs_cmd_stats_option): their values are checked
 * by the commands. */
static int fit_stats_option(cs_ctx *ctx, int argc, char **argv, int *i, cli *c, cs_err *rc)
{
    const char *a = argv[*i];
    *rc = CS_OK;
    if (cs_cmd_fit_option(a) != 0) {
        const char *v = option_value(argc, argv, i);
        if (v == NULL)
            *rc = main_usage(ctx, "", "%s needs a value", a);
        else if (strcmp(a, "--candidates") == 0)
            c->fit_candidates = v;
        else if (strcmp(a, "--twin") == 0)
            c->fit_twin = v;
        else
            c->fit_table = v;
        if (c->fit_opt == NULL)
            c->fit_opt = a;
    } else if (cs_cmd_stats_option(a) != 0) {
        const int takes_value = cs_cmd_stats_option(a) == 2;
        const char *v = takes_value ? option_value(argc, argv, i) : "";
        if (c->nstats_opt + 2 > 2 * CS_STATS_OPTS)
            *rc = main_usage(ctx, "", "too many stats options");
        else if (v == NULL)
            *rc = main_usage(ctx, "", "%s needs a value", a);
        else {
            c->stats_opt[c->nstats_opt++] = a;
            c->stats_opt[c->nstats_opt++] = v;
        }
    } else {
        return 0;
    }
    return 1;
}

/* run's --restart and --seeds; verbosity, help, --markdown, --version. */
static int run_log_option(cs_ctx *ctx, int argc, char **argv, int *i, cli *c, cs_err *rc)
{
    const char *a = argv[*i];
    *rc = CS_OK;
    if (strcmp(a, "--restart") == 0) {
        if ((c->restart = option_value(argc, argv, i)) == NULL)
            *rc = main_usage(ctx, "", "%s needs a checkpoint file", a);
    } else if (strcmp(a, "--seeds") == 0) {
        if ((c->seeds = option_value(argc, argv, i)) == NULL)
            *rc = main_usage(ctx, "", "%s needs a list of run seeds, e.g. 1-10 or 1,4,9", a);
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
        c->verbosity++;
    } else if (strcmp(a, "-vv") == 0) {
        c->verbosity += 2;
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
        c->verbosity = -1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        c->help = 1;
    } else if (strcmp(a, "--markdown") == 0) {
        c->markdown = 1;
    } else if (strcmp(a, "--version") == 0) {
        c->cmd = "version";
    } else {
        return 0;
    }
    return 1;
}

cs_err main_parse_cli(cs_ctx *ctx, int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        cs_err rc = CS_OK;
        if (output_set_option(ctx, argc, argv, &i, c, &rc) ||
            number_option(ctx, argc, argv, &i, c, &rc) ||
            schedule_compare_option(ctx, argc, argv, &i, c, &rc) ||
            fit_stats_option(ctx, argc, argv, &i, c, &rc) ||
            run_log_option(ctx, argc, argv, &i, c, &rc)) {
            if (rc != CS_OK)
                return rc;
        } else if (a[0] == '-' && a[1] != '\0') {
            return main_usage(ctx, "", "unknown option '%s'", a);
        } else if (c->cmd == NULL) {
            c->cmd = a;
        } else {
            if (c->npos == (int)(sizeof c->pos / sizeof c->pos[0]))
                return main_usage(ctx, "", "too many arguments at '%s'", a);
            c->pos[c->npos++] = a;
        }
    }
    return CS_OK;
}
