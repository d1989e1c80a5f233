/*
 * crawlsim fit: a generator spec whose world matches a real graph's statistics (a twin),
 * docs/guide/fitting.md.
 */
#ifndef CRAWLSIM_MAIN_CMD_FIT_H
#define CRAWLSIM_MAIN_CMD_FIT_H

#include "crawlsim/core.h"

#include <stdint.h>

#define CS_FIT_SYNOPSIS                                                                            \
    "crawlsim fit REAL.h5 -o TWIN.ini|--twin TWIN.ini [--candidates N] [--table TABLE.md] "        \
    "[--orders bfs,indeg,random] [--bfs-seeds N] [--set gen.KEY=VALUE ...]"

#define CS_FIT_HELP                                                                                \
    "Fits the generator to a real graph (docs/guide/fitting.md): measures REAL.h5 with the\n"      \
    "statistics of crawlsim stats, then generates up to N candidate worlds of the same size\n"     \
    "(default 24) in memory, each the best one so far moved by a fixed rule that moves every\n"    \
    "fitted key towards its statistic (out-degree mean and median, dangling and unlinked\n"        \
    "shares, in-degree median (gen.near_snap, gen.tree_only) and tail, reciprocity,\n"             \
    "clustering, the id-gap profile and its direction, the bow-tie by host roles, the\n"           \
    "distances by the tree's base, the links into the 1 % most-linked pages by\n"                  \
    "gen.site_hosts, breadth-first discovery by gen.tree_lift and gen.community_hosts and,\n"      \
    "where REAL.h5 has hosts\n"                                                                    \
    "(import.hosts = blocks with the twin's host_spec for LAW's graphs), the share of links\n"     \
    "within host by gen.host_cross, the in/out-degree correlation by gen.popular_degree,\n"        \
    "reciprocal pairs by gen.link_pairs) with a step that halves when a candidate is no\n"         \
    "better, then one group of keys at a time; where the twin has closed hosts, twice (with\n"     \
    "gen.closed_own off and on, unless --set gives it), the better kept. --orders LIST\n"          \
    "(default bfs) adds the discovery\n"                                                           \
    "crawls of the other orders to the targets (indeg, random: pages known after 1 % and 10 %\n"   \
    "fetched); with indeg, gen.popular_degree follows in-degree-first discovery instead.\n"        \
    "--bfs-seeds N: the discovery crawls' seeds on the real graph and in the twin's table\n"       \
    "(default 5, at most 256); each candidate is crawled from the first N / 4 (at least 2).\n"     \
    "Keeps the one meeting the most targets and writes its [gen] section to TWIN.ini (every\n"     \
    "key, so that the twin does not move with the defaults; --set gen.pages=N scales it).\n"       \
    "Prints the table real / twin / difference / target / met and writes it to TABLE.md\n"         \
    "(default: TWIN.ini with .fit.md for .ini). --set gen.KEY=VALUE sets the keys the fit\n"       \
    "leaves alone (gen.seed, gen.topics, ...). Deterministic: the same twin on any\n"              \
    "rank and thread count. --twin TWIN.ini (no -o) measures that spec's world at the real\n"      \
    "size instead, as the fit measures its best, and prints its table (and writes it to\n"         \
    "--table): no search.\n"

/* The command's arguments as given (borrowed). */
typedef struct cs_fit_args {
    const char *path; /* the real graph file */
    int npos;
    const char *output; /* the twin spec */
    const char *table;  /* NULL: derived from output */
    const char *candidates;
    const char *orders;    /* --orders: discovery orders compared (NULL: bfs) */
    const char *bfs_seeds; /* --bfs-seeds: discovery seeds (NULL: 5) */
    const char *twin;      /* --twin: a spec measured without a search (NULL: the fit) */
    const char *const *sets;
    int nsets;
} cs_fit_args;

/* Local. 2 when a is an option of fit with a value (--candidates, --table, --twin), else 0. */
int cs_cmd_fit_option(const char *a);

/*
 * Collective(ctx->comm). Logically collective: a. The fit: the real graph's statistics
 * (cs_stats_file), the candidates (cs_stats_spec on each rank's block), the twin written from
 * rank 0 with its table. Errors, agreed: CS_ERR_USAGE, those of the statistics and the
 * generator, CS_ERR_IO.
 */
cs_err cs_cmd_fit(cs_ctx *ctx, const cs_fit_args *a);

#endif
