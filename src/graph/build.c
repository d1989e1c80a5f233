/*
 * graph building: cs_graph_build, the run-time graph of one rank made from pages held in
 * memory (a generated world, DESIGN.md "The world": a host-hash run needs no graph file).
 *
 * The partition check, the owner lookup and the local ids come from the same functions as in
 * cs_graph_load_with (graph_impl.h); the CSR and the page attributes are taken over from the
 * caller's slice without a copy, after the checks cs_graph_load_with makes on a file's pages.
 */
#include "graph_impl.h"

#include "crawlsim/graph.h"
#include "crawlsim/partition.h"

#include <stdlib.h>
#include <string.h>

/* Local. The slice holds g's pages: the count, the arrays, the CSR and the attribute ranges. */
static cs_err check_pages(cs_ctx *ctx, const cs_graph *g, const cs_graph_slice *s)
{
    const int64_t n = s->n, N = g->n_pages, H = g->n_hosts, K = g->n_topics;
    if (n != g->n_local)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cs_graph_build: the slice holds %lld pages but the partition gives rank %d "
                       "%lld pages",
                       (long long)n, g->rank, (long long)g->n_local);
    if (n > 0 &&
        (s->offsets == NULL || s->targets == NULL || s->host == NULL || s->topic == NULL ||
         s->relevance == NULL || s->delta == NULL || s->mu == NULL || s->observable == NULL))
        return cs_fail(ctx, CS_ERR_ARG, "cs_graph_build: the slice of %lld pages lacks an array",
                       (long long)n);
    if (s->offsets == NULL)
        return CS_OK;
    const int64_t *off = s->offsets, *tg = s->targets, *host = s->host;
    const int32_t *topic = s->topic;
    int64_t bad_off = off[0] != 0 ? 0 : INT64_MAX, bad = INT64_MAX;
#pragma omp parallel for default(none) shared(off, n) reduction(min : bad_off) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (off[i + 1] < off[i])
            bad_off = i < bad_off ? i : bad_off;
    if (bad_off != INT64_MAX)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cs_graph_build: the slice's offsets do not start at 0 or decrease at "
                       "local page %lld",
                       (long long)bad_off);
#pragma omp parallel for default(none) shared(off, tg, host, topic, n, N, H, K) reduction(min      \
                                                                                          : bad)   \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int ok = host[i] >= 0 && host[i] < H && topic[i] >= -1 && topic[i] < K;
        for (int64_t e = off[i]; ok && e < off[i + 1]; e++)
            ok = tg[e] >= 0 && tg[e] < N && (e == off[i] || tg[e] > tg[e - 1]);
        if (!ok)
            bad = i < bad ? i : bad;
    }
    if (bad != INT64_MAX)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cs_graph_build: page %lld has a host outside [0, %lld), a topic outside "
                       "[-1, %d) or out-links outside [0, %lld) or not strictly increasing",
                       (long long)g->ids[bad], (long long)H, (int)K, (long long)N);
    return CS_OK;
}

/* Local. *dst = an array of one zeroed element when the slice has none (an empty slice), so
 * that an empty graph's accessors return valid pointers as cs_graph_load_with's do. */
static cs_err placeholder(cs_ctx *ctx, void *dst, const void *src, size_t elem)
{
    if (src != NULL)
        return CS_OK;
    return cs_calloc(ctx, dst, 1, elem, "empty graph arrays");
}

/* Local. g (its owner lookup and local index made) takes the slice's pages after the checks of
 * check_pages: its arrays change hands (pages is left zeroed, its weights and terms freed); on
 * failure g and pages are as they were. */
static cs_err take_pages(cs_ctx *ctx, cs_graph *g, cs_graph_slice *pages)
{
    cs_err rc = CS_OK;
    CS_TRY(ctx, check_pages(ctx, g, pages));

    /* Everything that can fail is done before the slice's arrays change hands. */
    CS_TRY(ctx, placeholder(ctx, &g->offsets, pages->offsets, sizeof *g->offsets));
    CS_TRY(ctx, placeholder(ctx, &g->targets, pages->targets, sizeof *g->targets));
    CS_TRY(ctx, placeholder(ctx, &g->host, pages->host, sizeof *g->host));
    CS_TRY(ctx, placeholder(ctx, &g->topic, pages->topic, sizeof *g->topic));
    CS_TRY(ctx, placeholder(ctx, &g->relevance, pages->relevance, sizeof *g->relevance));
    CS_TRY(ctx, placeholder(ctx, &g->delta, pages->delta, sizeof *g->delta));
    CS_TRY(ctx, placeholder(ctx, &g->mu, pages->mu, sizeof *g->mu));
    CS_TRY(ctx, placeholder(ctx, &g->observable, pages->observable, sizeof *g->observable));
    if (pages->offsets != NULL)
        g->offsets = pages->offsets;
    if (pages->targets != NULL)
        g->targets = pages->targets;
    if (pages->host != NULL)
        g->host = pages->host;
    if (pages->topic != NULL)
        g->topic = pages->topic;
    if (pages->relevance != NULL)
        g->relevance = pages->relevance;
    if (pages->delta != NULL)
        g->delta = pages->delta;
    if (pages->mu != NULL)
        g->mu = pages->mu;
    if (pages->observable != NULL)
        g->observable = pages->observable;
    g->n_local_links = g->offsets[g->n_local];
    pages->offsets = pages->targets = pages->host = NULL;
    pages->topic = NULL;
    pages->relevance = pages->delta = pages->mu = NULL;
    pages->observable = NULL;
    cs_graph_slice_fini(pages); /* weights and terms, if any */
    return CS_OK;
fail:
    return rc;
}

cs_err cs_graph_build(cs_ctx *ctx, const cs_partition *part, int64_t n_links_total, int64_t n_hosts,
                      int32_t n_topics, cs_graph_slice *pages, cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_graph *g = NULL;
    CS_TRY(ctx, graph_check_partition(ctx, NULL, part));
    if (n_links_total < 0 || n_hosts < 0 || n_topics < 0 || pages == NULL) {
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "cs_graph_build: no slice, or negative sizes (%lld links, %lld hosts, %d "
                     "topics)",
                     (long long)n_links_total, (long long)n_hosts, (int)n_topics);
        goto fail;
    }
    if (part->n_links != 0 && part->n_links != n_links_total) {
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "the partition has %lld links but the graph %lld: it was made for another "
                     "graph",
                     (long long)part->n_links, (long long)n_links_total);
        goto fail;
    }
    CS_TRY(ctx, cs_calloc(ctx, &g, 1, sizeof *g, "graph"));
    g->n_pages = part->n_pages;
    g->n_links = n_links_total;
    g->n_hosts = n_hosts;
    g->n_topics = n_topics;
    g->k = part->k;
    g->rank = ctx->rank;
    CS_TRY(ctx, graph_build_owner(ctx, g, part));
    CS_TRY(ctx, graph_build_local(ctx, g, part));
    CS_TRY(ctx, take_pages(ctx, g, pages));
    *out = g;
    return CS_OK;
fail:
    cs_graph_destroy(&g);
    return rc;
}

/* Local. The local runs' arrays for LR runs (filled by the caller: start[0..LR), lbase[0..LR)). */
static cs_err local_runs_alloc(cs_ctx *ctx, cs_graph *g, int64_t LR)
{
    cs_err rc = cs_alloc(ctx, &g->lrun.start, (size_t)LR + 1, sizeof *g->lrun.start, "local runs");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->lbase, (size_t)LR + 1, sizeof *g->lbase, "local runs");
    return rc;
}

/* Local. Closes the LR local runs (the last ending before page `end`) and indexes them. */
static cs_err local_runs_index(cs_ctx *ctx, cs_graph *g, int64_t LR, int64_t end)
{
    g->lrun.start[LR] = end;
    g->lbase[LR] = (int32_t)g->n_local;
    g->lrun.n = LR;
    return graph_runs_index(ctx, &g->lrun);
}

/* Local. The local index of a partition without a part array (a block's range, or runs of
 * pages of one part) straight from its ranges, without the list of ids graph_build_local
 * makes (8 bytes a page at set-up): the same lookups, the local runs being the partition's
 * runs of this rank (maximal: consecutive runs have different parts). */
static cs_err index_from_ranges(cs_ctx *ctx, cs_graph *g, const cs_partition *part)
{
    cs_err rc = CS_OK;
    const int32_t me = (int32_t)ctx->rank;
    int64_t cnt = 0, LR = 0, lo = 0, hi = -1;
    if (part->part_first != NULL) {
        lo = part->part_first[me];
        cnt = part->part_first[me + 1] - lo;
        LR = cnt > 0;
    } else {
        for (int64_t j = 0; j < part->n_runs; j++) {
            if (part->run_part[j] != me)
                continue;
            if (cnt == 0)
                lo = part->run_first[j];
            cnt += part->run_first[j + 1] - part->run_first[j];
            hi = part->run_first[j + 1] - 1;
            LR++;
        }
    }
    if (cnt >= INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "rank %d owns %lld pages: at most %d are supported",
                       ctx->rank, (long long)cnt, INT32_MAX - 1);
    g->n_local = cnt;
    g->id_lo = cnt > 0 ? lo : 0;
    g->id_hi = cnt > 0 ? (part->part_first != NULL ? lo + cnt - 1 : hi) : -1;
    g->contiguous = LR <= 1;
    if (g->contiguous)
        return CS_OK;
    CS_TRY(ctx, local_runs_alloc(ctx, g, LR));
    int64_t i = 0, base = 0;
    for (int64_t j = 0; j < part->n_runs; j++) {
        if (part->run_part[j] != me)
            continue;
        g->lrun.start[i] = part->run_first[j];
        g->lbase[i++] = (int32_t)base;
        base += part->run_first[j + 1] - part->run_first[j];
    }
    CS_TRY(ctx, local_runs_index(ctx, g, LR, hi + 1));
fail:
    return rc;
}

cs_err cs_graph_build_index(cs_ctx *ctx, const cs_partition *part, int64_t n_hosts,
                            int32_t n_topics, cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_graph *g = NULL;
    CS_TRY(ctx, graph_check_partition(ctx, NULL, part));
    if (n_hosts < 0 || n_topics < 0) {
        rc =
            cs_fail(ctx, CS_ERR_ARG, "cs_graph_build_index: negative sizes (%lld hosts, %d topics)",
                    (long long)n_hosts, (int)n_topics);
        goto fail;
    }
    CS_TRY(ctx, cs_calloc(ctx, &g, 1, sizeof *g, "graph"));
    g->n_pages = part->n_pages;
    g->n_hosts = n_hosts;
    g->n_topics = n_topics;
    g->k = part->k;
    g->rank = ctx->rank;
    CS_TRY(ctx, graph_build_owner(ctx, g, part));
    if (part->part == NULL)
        CS_TRY(ctx, index_from_ranges(ctx, g, part));
    else
        CS_TRY(ctx, graph_build_local(ctx, g, part));
    free(g->ids); /* 8 bytes a page: the index answers without them (cs_graph_local_id) */
    g->ids = NULL;
    *out = g;
    return CS_OK;
fail:
    cs_graph_destroy(&g);
    return rc;
}

cs_err cs_graph_build_index_runs(cs_ctx *ctx, int64_t n_pages, int64_t n_hosts, int32_t n_topics,
                                 const int64_t *start, const int64_t *count, int64_t n_runs,
                                 cs_graph_owner_fn owner, const void *arg, cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_graph *g = NULL;
    int64_t cnt = 0, bad = -1;
    for (int64_t i = 0; i < n_runs && bad < 0; i++) {
        if (count[i] < 1 || start[i] < 0 || start[i] + count[i] > n_pages ||
            (i > 0 && start[i] <= start[i - 1] + count[i - 1]))
            bad = i;
        cnt += count[i];
    }
    if (bad >= 0 || n_runs < 0 || owner == NULL || n_hosts < 0 || n_topics < 0)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cs_graph_build_index_runs: run %lld of %lld is empty, outside [0, %lld), "
                       "not after the previous one with a gap, or no owner function",
                       (long long)bad, (long long)n_runs, (long long)n_pages);
    if (cnt >= INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "rank %d owns %lld pages: at most %d are supported",
                       ctx->rank, (long long)cnt, INT32_MAX - 1);
    CS_TRY(ctx, cs_calloc(ctx, &g, 1, sizeof *g, "graph"));
    g->n_pages = n_pages;
    g->n_hosts = n_hosts;
    g->n_topics = n_topics;
    g->k = ctx->size;
    g->rank = ctx->rank;
    g->owner_fn = owner;
    g->owner_arg = arg;
    g->n_local = cnt;
    g->id_lo = cnt > 0 ? start[0] : 0;
    g->id_hi = cnt > 0 ? start[n_runs - 1] + count[n_runs - 1] - 1 : -1;
    g->contiguous = n_runs <= 1;
    if (!g->contiguous) {
        CS_TRY(ctx, local_runs_alloc(ctx, g, n_runs));
        for (int64_t i = 0, base = 0; i < n_runs; base += count[i++]) {
            g->lrun.start[i] = start[i];
            g->lbase[i] = (int32_t)base;
        }
        CS_TRY(ctx, local_runs_index(ctx, g, n_runs, g->id_hi + 1));
    }
    *out = g;
    return CS_OK;
fail:
    cs_graph_destroy(&g);
    return rc;
}

cs_err cs_graph_build_runs(cs_ctx *ctx, int64_t n_pages, int64_t n_links_total, int64_t n_hosts,
                           int32_t n_topics, const int64_t *start, const int64_t *count,
                           int64_t n_runs, cs_graph_owner_fn owner, const void *arg,
                           cs_graph_slice *pages, cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_graph *g = NULL;
    if (n_links_total < 0 || pages == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "cs_graph_build_runs: no slice, or %lld links",
                       (long long)n_links_total);
    CS_TRY(ctx, cs_graph_build_index_runs(ctx, n_pages, n_hosts, n_topics, start, count, n_runs,
                                          owner, arg, &g));
    g->n_links = n_links_total;
    /* the local ids, as cs_graph_build keeps them (cs_graph_local_ids) */
    CS_TRY(ctx, cs_alloc(ctx, &g->ids, (size_t)g->n_local + 1, sizeof *g->ids, "local page ids"));
    for (int64_t i = 0, li = 0; i < n_runs; i++)
        for (int64_t p = start[i]; p < start[i] + count[i]; p++)
            g->ids[li++] = p;
    CS_TRY(ctx, take_pages(ctx, g, pages));
    *out = g;
    return CS_OK;
fail:
    cs_graph_destroy(&g);
    return rc;
}

int64_t cs_graph_local_id(const cs_graph *g, int64_t li)
{
    CS_ASSERT(li >= 0 && li < g->n_local);
    if (g->ids != NULL)
        return g->ids[li];
    if (g->contiguous)
        return g->id_lo + li;
    if (g->lbase != NULL) { /* the last run whose first page's index is <= li */
        int64_t lo = 0, hi = g->lrun.n - 1;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo + 1) / 2;
            if (g->lbase[mid] <= li)
                lo = mid;
            else
                hi = mid - 1;
        }
        return g->lrun.start[lo] + (li - g->lbase[lo]);
    }
    /* the directory: the last word with fewer owned pages before it than li + 1, then the
     * (li - below)-th set bit of that word */
    int64_t lo = 0, hi = (g->n_pages >> 6);
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (g->below[mid] <= li)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint64_t w = g->mine[lo];
    for (int64_t k = li - g->below[lo]; k > 0; k--)
        w &= w - 1; /* drop the lowest set bit */
    return (lo << 6) + __builtin_ctzll(w);
}
