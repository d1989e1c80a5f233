/*
 * crawlsim stats: the web-likeness statistics of a graph file or a spec (stats.h), printed and
 * written as a table.
 */
#ifndef CRAWLSIM_MAIN_CMD_STATS_H
#define CRAWLSIM_MAIN_CMD_STATS_H

#include "crawlsim/core.h"

#include <stdint.h>

#define CS_STATS_OPTS 9 /* distinct stats options */

#define CS_STATS_SYNOPSIS                                                                          \
    "crawlsim stats WEB.h5|SPEC.ini [-o TABLE.tsv] [--set gen.KEY=VALUE ...] [--sampled] "         \
    "[--sample N] [--sources N] [--cluster-pages N] [--bfs-seeds N] [--orders LIST] "              \
    "[--stats-seed S] [--relevance-threshold X]"

#define CS_STATS_HELP                                                                              \
    "Prints how web-like a world is (docs/guide/statistics.md): out- and in-degree mean,\n"        \
    "median, max and zero shares, the in-degree tail exponent (discrete MLE, x_min by KS\n"        \
    "distance), the link id-gap and direction profile, links within host and host sizes,\n"        \
    "reciprocity, average clustering, the bow-tie, directed distances, topical lift and\n"         \
    "P(relevant | link from a relevant page) where labels exist, and discovery curves of\n"        \
    "breadth-first, in-degree-first and random crawls. Sampled figures come with their sample\n"   \
    "size and 95 % interval.\n"                                                                    \
    "With a graph file (generated or imported) every rank holds the whole graph (up to 2x10^7\n"   \
    "pages); with a spec (a file ending in .ini) its world is generated in memory and measured\n"  \
    "whole up to that size, and beyond it, or with --sampled, estimated from --sample N pages\n"   \
    "(default 10^5) and their out-links (rows needing in-links or the whole graph: '-').\n"        \
    "--sources N: distance sources in the largest SCC (64); --cluster-pages N: clustering\n"       \
    "sample (10^4); --bfs-seeds N: discovery seeds (5, at most 256); 0 leaves those figures\n"     \
    "out. The first seeds are the same for any N, so more seeds only add crawls.\n"                \
    "--orders LIST: the discovery crawls' orders, a comma-separated subset of bfs, indeg\n"        \
    "(in-degree first) and random (default: all three); the same seeds in every order.\n"          \
    "--stats-seed S: the sampling seed (1). -o writes the table (TSV: statistic, value, lo, hi,\n" \
    "n; n = 0 exact) and the discovery curves. Runs under mpirun; the figures do not depend on\n"  \
    "the rank or thread count.\n"

/* The command's arguments as given (borrowed). */
typedef struct cs_stats_args {
    const char *path; /* the graph file or spec */
    int npos;         /* positional arguments given */
    const char *output;
    const char *const *sets;
    int nsets;
    int64_t sample; /* --sample (0: not given) */
    double threshold;
    const char *const *opt; /* name, value pairs of the options of cs_cmd_stats_option */
    int nopt;
} cs_stats_args;

/* Local. 0 when a is not an option of stats, 1 for a flag (--sampled), 2 for one with a value. */
int cs_cmd_stats_option(const char *a);

/* Local. --orders' comma-separated list of distinct orders (bfs, indeg, random) into *orders,
 * CS_STATS_ORDER_* bits; -1 for a bad list (fit takes it too). */
int cs_cmd_stats_orders(const char *val, unsigned *orders);

/*
 * Collective(ctx->comm). Logically collective: a. Computes the statistics (cs_stats_file or
 * cs_stats_spec), prints them from rank 0 and writes the table to a->output (rank 0, under a
 * temporary name renamed when complete). Errors, agreed: CS_ERR_USAGE (arguments), those of the
 * computation, CS_ERR_IO (the table).
 */
cs_err cs_cmd_stats(cs_ctx *ctx, const cs_stats_args *a);

#endif
