/*
 * partition quality: edge cut, communication volume, page and link balance, hosts split
 * (partition.h). The distributed version reads the graph in blocks and sums integer counts,
 * so its result does not depend on the rank count; the serial version is an independent
 * reference for the tests.
 */
#include "crawlsim/comm.h"
#include "crawlsim/partition.h"

#include "crawlsim/graphio.h"

#include <stdlib.h>
#include <string.h>

/* Local. Balances and fractions from the integer totals. */
static void finish(cs_part_quality *q, const int64_t *pages, const int64_t *links, int32_t k,
                   int64_t N, int64_t M)
{
    int64_t pmax = 0, lmax = 0;
    for (int32_t p = 0; p < k; p++) {
        if (pages[p] > pmax)
            pmax = pages[p];
        if (links[p] > lmax)
            lmax = links[p];
    }
    q->cut_fraction = M > 0 ? (double)q->edge_cut / (double)M : 0.0;
    q->page_balance = N > 0 ? (double)pmax * (double)k / (double)N : 1.0;
    q->link_balance = M > 0 ? (double)lmax * (double)k / (double)M : 1.0;
}

cs_err cs_partition_quality(cs_ctx *ctx, const char *graph_path, const int32_t *part, int32_t k,
                            cs_part_quality *q)
{
    cs_err rc = CS_OK;
    cs_graph_slice g;
    cs_graph_slice_init(&g);
    int64_t *counts = NULL, *seen = NULL;
    int32_t *hmin = NULL, *hmax = NULL;
    int64_t first = 0, n = 0;
    memset(q, 0, sizeof *q);
    cs_graph_header hdr;
    CS_TRY(ctx, cs_graphio_read_header(ctx, graph_path, &hdr));
    if (hdr.n_hosts > INT32_MAX || k < 1) {
        rc = cs_fail(ctx, CS_ERR_LIMIT, "graph file %s: %lld hosts, k = %d: beyond the limits",
                     graph_path, (long long)hdr.n_hosts, (int)k);
        goto fail;
    }
    const int64_t H = hdr.n_hosts;
    cs_block_range(hdr.n_pages, ctx->rank, ctx->size, &first, &n);
    CS_TRY(ctx, cs_graphio_read_slice(ctx, graph_path, first, n, &g, NULL));
    /* counts: [0] edge cut, [1] volume, [2, 2 + k) pages per part, [2 + k, 2 + 2k) links. */
    rc = cs_calloc(ctx, &counts, 2 + 2 * (size_t)k, sizeof(int64_t), "quality counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &seen, (size_t)k, sizeof(int64_t), "quality marker");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &hmin, (size_t)(H > 0 ? H : 1), sizeof(int32_t), "host min part");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &hmax, (size_t)(H > 0 ? H : 1), sizeof(int32_t), "host max part");
    CS_TRY_AGREE(ctx, rc);
    for (int32_t p = 0; p < k; p++)
        seen[p] = -1;
    for (int64_t h = 0; h < H; h++) {
        hmin[h] = INT32_MAX;
        hmax[h] = -1;
    }
    int64_t *pages = counts + 2, *links = counts + 2 + k;
    for (int64_t i = 0; i < n; i++) {
        int32_t pu = part[first + i];
        int64_t h = g.host[i];
        pages[pu]++;
        links[pu] += g.offsets[i + 1] - g.offsets[i];
        if (pu < hmin[h])
            hmin[h] = pu;
        if (pu > hmax[h])
            hmax[h] = pu;
        for (int64_t j = g.offsets[i]; j < g.offsets[i + 1]; j++) {
            int32_t pv = part[g.targets[j]];
            if (pv != pu) {
                counts[0]++;
                if (seen[pv] != i) {
                    seen[pv] = i;
                    counts[1]++;
                }
            }
        }
    }
    cs_allreduce(ctx, NULL, counts, 2 + 2 * k, CS_T_I64, CS_OP_SUM);
    cs_allreduce(ctx, NULL, hmin, (int)H, CS_T_I32, CS_OP_MIN);
    cs_allreduce(ctx, NULL, hmax, (int)H, CS_T_I32, CS_OP_MAX);
    q->edge_cut = counts[0];
    q->volume = counts[1];
    for (int64_t h = 0; h < H; h++)
        q->hosts_split += hmax[h] > hmin[h];
    finish(q, pages, links, k, hdr.n_pages, hdr.n_links);
fail:
    free(hmax);
    free(hmin);
    free(seen);
    free(counts);
    cs_graph_slice_fini(&g);
    return rc;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

cs_err cs_partition_quality_serial(cs_ctx *ctx, const cs_graph_slice *g, const int32_t *part,
                                   int32_t k, cs_part_quality *q)
{
    cs_err rc = CS_OK;
    int64_t *pages = NULL, *links = NULL;
    int32_t *host_first = NULL, *buf = NULL;
    char *split = NULL;
    int64_t maxdeg = 0;
    memset(q, 0, sizeof *q);
    for (int64_t u = 0; u < g->n; u++)
        if (g->offsets[u + 1] - g->offsets[u] > maxdeg)
            maxdeg = g->offsets[u + 1] - g->offsets[u];
    CS_TRY(ctx, cs_calloc(ctx, &pages, (size_t)k, sizeof(int64_t), "pages per part"));
    CS_TRY(ctx, cs_calloc(ctx, &links, (size_t)k, sizeof(int64_t), "links per part"));
    CS_TRY(ctx, cs_alloc(ctx, &host_first, (size_t)(g->n_hosts > 0 ? g->n_hosts : 1),
                         sizeof(int32_t), "host part"));
    CS_TRY(ctx, cs_calloc(ctx, &split, (size_t)(g->n_hosts > 0 ? g->n_hosts : 1), 1, "split"));
    CS_TRY(ctx, cs_alloc(ctx, &buf, (size_t)(maxdeg > 0 ? maxdeg : 1), sizeof(int32_t), "parts"));
    for (int64_t h = 0; h < g->n_hosts; h++)
        host_first[h] = -1;
    for (int64_t u = 0; u < g->n; u++) {
        int32_t pu = part[u];
        int64_t deg = g->offsets[u + 1] - g->offsets[u];
        pages[pu] += 1;
        links[pu] += deg;
        int64_t h = g->host[u];
        if (host_first[h] < 0)
            host_first[h] = pu;
        else if (host_first[h] != pu)
            split[h] = 1;
        /* Volume: the distinct remote parts among u's targets, by sorting them. */
        for (int64_t j = 0; j < deg; j++) {
            buf[j] = part[g->targets[g->offsets[u] + j]];
            if (buf[j] != pu)
                q->edge_cut++;
        }
        qsort(buf, (size_t)deg, sizeof(int32_t), cmp_i32);
        for (int64_t j = 0; j < deg; j++)
            if (buf[j] != pu && (j == 0 || buf[j] != buf[j - 1]))
                q->volume++;
    }
    for (int64_t h = 0; h < g->n_hosts; h++)
        q->hosts_split += split[h];
    finish(q, pages, links, k, g->n, g->offsets[g->n]);
fail:
    free(buf);
    free(split);
    free(host_first);
    free(links);
    free(pages);
    return rc;
}
