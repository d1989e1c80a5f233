/*
 * crawlsim stats: parses the command's options, computes the statistics of a graph file or of a
 * spec's world (stats.h) and prints them; -o writes the table (TSV) for tools/realism.
 */
#include "main/cmd_stats.h"

#include "crawlsim/config.h"
#include "crawlsim/stats.h"
#include "main/main_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cs_cmd_stats_option(const char *a)
{
    if (strcmp(a, "--sampled") == 0)
        return 1;
    const char *with_value[] = {"--sources", "--cluster-pages", "--bfs-seeds", "--stats-seed",
                                "--orders"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(a, with_value[i]) == 0)
            return 2;
    return 0;
}

int cs_cmd_stats_orders(const char *val, unsigned *orders)
{
    const char *names[3] = {"bfs", "indeg", "random"};
    const unsigned bits[3] = {CS_STATS_ORDER_BFS, CS_STATS_ORDER_INDEG, CS_STATS_ORDER_RANDOM};
    *orders = 0;
    for (const char *p = val;;) {
        const size_t n = strcspn(p, ",");
        int j = 0;
        while (j < 3 && !(strlen(names[j]) == n && strncmp(p, names[j], n) == 0))
            j++;
        if (j == 3 || (*orders & bits[j]) != 0)
            return -1;
        *orders |= bits[j];
        if (p[n] == '\0')
            return 0;
        p += n + 1;
    }
}

/* Local. The options into o and *sampled; CS_ERR_USAGE for a bad value. */
static cs_err parse_opts(cs_ctx *ctx, const cs_stats_args *a, cs_stats_opts *o, int *sampled)
{
    cs_stats_opts_default(o);
    *sampled = 0;
    if (a->sample > 0)
        o->pages = a->sample;
    o->relevance_threshold = a->threshold;
    o->orders = CS_STATS_ORDER_ALL;
    for (int i = 0; i + 1 < a->nopt; i += 2) {
        const char *name = a->opt[i], *val = a->opt[i + 1];
        if (strcmp(name, "--sampled") == 0) {
            *sampled = 1;
            continue;
        }
        if (strcmp(name, "--orders") == 0) {
            if (cs_cmd_stats_orders(val, &o->orders) != 0)
                return main_usage(ctx, " stats",
                                  "--orders '%s' is not a comma-separated list of distinct "
                                  "orders bfs, indeg and random",
                                  val);
            continue;
        }
        char *end = NULL;
        errno = 0;
        const long long v = strtoll(val, &end, 10);
        const long long lo = 0;
        const long long hi = strcmp(name, "--bfs-seeds") == 0 ? CS_STATS_MAX_SEEDS : 1000000000LL;
        if (end == val || *end != '\0' || errno != 0 || v < lo || v > hi)
            return main_usage(ctx, " stats", "%s '%s' is not a whole number in [%lld, %lld]", name,
                              val, lo, hi);
        if (strcmp(name, "--sources") == 0)
            o->sources = v;
        else if (strcmp(name, "--cluster-pages") == 0)
            o->cluster_pages = v;
        else if (strcmp(name, "--bfs-seeds") == 0)
            o->bfs_seeds = (int)v;
        else
            o->seed = (uint64_t)v;
    }
    return CS_OK;
}

/* Local. Whether path names a spec (SPEC.ini) rather than a graph file. */
static int is_spec(const char *path)
{
    const size_t n = strlen(path);
    return n >= 4 && strcmp(path + n - 4, ".ini") == 0;
}

/* Local (rank 0). The table into path, under a temporary name renamed when complete. */
static cs_err write_table(cs_ctx *ctx, const char *path, const cs_stats *s)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cs_fail(ctx, CS_ERR_IO, "stats: output name too long: %s", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return cs_fail(ctx, CS_ERR_IO, "stats: cannot write %s: %s", path, strerror(errno));
    const int bad = cs_stats_write_tsv(f, s) != 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return cs_fail(ctx, CS_ERR_IO, "stats: writing %s failed", path);
    }
    return CS_OK;
}

cs_err cs_cmd_stats(cs_ctx *ctx, const cs_stats_args *a)
{
    if (a->npos != 1)
        return main_usage(ctx, " stats", "stats takes exactly one graph file or spec file");
    cs_stats_opts o;
    int sampled = 0;
    cs_err rc = parse_opts(ctx, a, &o, &sampled);
    if (rc != CS_OK)
        return rc;
    cs_stats s;
    if (is_spec(a->path)) {
        cs_config cfg;
        rc = cs_config_load(ctx, a->path, a->sets, a->nsets, &cfg);
        if (rc != CS_OK)
            return rc;
        rc = cs_stats_spec(ctx, &cfg.gen, &o, sampled, &s);
    } else {
        if (a->nsets > 0 || sampled)
            return main_usage(ctx, " stats",
                              "%s is a graph file: --set and --sampled apply to a spec "
                              "(SPEC.ini)",
                              a->path);
        rc = cs_stats_file(ctx, a->path, &o, &s);
    }
    if (rc != CS_OK)
        return rc;
    if (ctx->rank == 0) {
        printf("%s %s\n", is_spec(a->path) ? "spec" : "file", a->path);
        cs_stats_print(stdout, &s);
        fflush(stdout);
        if (a->output != NULL)
            rc = write_table(ctx, a->output, &s);
    }
    return cs_agree(ctx, rc);
}
