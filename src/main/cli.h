/*
 * main internals: the parsed command line (cli.c), read identically on every rank.
 */
#ifndef CRAWLSIM_MAIN_CLI_H
#define CRAWLSIM_MAIN_CLI_H

#include "crawlsim/core.h"
#include "main/cmd_schedule.h"
#include "main/cmd_stats.h"

#include <stdint.h>

#define MAX_SETS 256
#define MAX_PATHS 64

/* The parsed command line: global flags plus what the subcommand takes. */
typedef struct cli {
    const char *cmd;
    const char *pos[8];
    int npos;
    const char *output;
    const char *sets[MAX_SETS];
    int nsets;
    int verbosity; /* -1 quiet, 0 normal, 1.. verbose */
    int help;
    int markdown;
    double threshold;
    int threshold_set;
    int64_t sample; /* info: --sample N (0: not given) */
    long k;         /* partition: -k */
    int k_set;
    const char *method;
    cs_schedule_args sched;        /* schedule: --policy, --bandwidth, --epsilon, --input */
    const char *restart;           /* run: --restart CKPT */
    const char *seeds;             /* run: --seeds LIST */
    const char *ignore[MAX_PATHS]; /* compare: --ignore PATH ... */
    int nignore;
    const char *only[MAX_PATHS]; /* compare: --only PATH ... */
    int nonly;
    int no_default_ignore;                    /* compare: --no-default-ignore */
    const char *stats_opt[2 * CS_STATS_OPTS]; /* stats: its options and their values */
    int nstats_opt;
    const char *fit_candidates; /* fit: --candidates N */
    const char *fit_table;      /* fit: --table FILE */
    const char *fit_twin;       /* fit: --twin SPEC */
    const char *fit_opt;        /* the first option of fit seen (refused by other commands) */
    const char *compare_opt;    /* the first option of compare seen (refused by other commands) */
    int *status;                /* a command's exit status other than 0 / 1 / 2 (run: 3, stopped) */
} cli;

/* Local. Parses argv into c (pointers into argv): the options of every command, the command
 * and its positional arguments; which command takes which option is checked by the commands.
 * CS_ERR_USAGE (with main_usage's message) on an unknown option, a missing value or too many
 * values. */
cs_err main_parse_cli(cs_ctx *ctx, int argc, char **argv, cli *c);

#endif
