/*
 * gen_hostgraph: METIS on a generated world's host graph without the graph
 * (run.partition_method = metis-sampled). The host graph (vertex = host, weight = its pages;
 * edge weight = links a->b plus b->a, as `crawlsim partition --method metis-host` contracts a
 * graph file) is estimated from the out-links of a few pages per host, generated on demand by
 * the functions `crawlsim gen` uses, each host's links scaled by its pages over those sampled;
 * METIS k-way (Karypis & Kumar 1998) partitions it and a page's owner is its host's part.
 * The graph of 10^9 pages (1.6 x 10^10 links) is never built: the sample's links are.
 */
#include "gen_impl.h"

#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/partition.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sampled pages generated at once: bounds the slice's memory (about 16 links a page). */
#define CHUNK_PAGES ((int64_t)1 << 18)

/* Local. The pages of host h that the sample reads: s evenly spaced pages, the middle of each
 * s-th of the host (so not systematically its home page, whose in-host links differ), or
 * every page of a host of at most s pages (s = 0: every page). */
static int64_t sampled_count(int64_t count, int64_t s)
{
    return s == 0 || count < s ? count : s;
}

static int64_t sampled_page(int64_t first, int64_t count, int64_t s, int64_t j)
{
    return s == count ? first + j : first + ((2 * j + 1) * count) / (2 * s);
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Local. Appends n entries to a growing pair of arrays (capacity doubled). */
static cs_err grow(cs_ctx *ctx, int32_t **dst, int32_t **w, int64_t *cap, int64_t need)
{
    if (need <= *cap)
        return CS_OK;
    int64_t c = *cap > 0 ? *cap : 1 << 20;
    while (c < need)
        c *= 2;
    int32_t *d2 = realloc(*dst, (size_t)c * sizeof **dst);
    if (d2 == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "sampled host graph: %lld edges", (long long)c);
    *dst = d2;
    int32_t *w2 = realloc(*w, (size_t)c * sizeof **w);
    if (w2 == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "sampled host graph: %lld edges", (long long)c);
    *w = w2;
    *cap = c;
    return CS_OK;
}

/* The buffers of directed(): a chunk's sampled pages and each host's target hosts. */
typedef struct hg_chunk {
    int64_t *ids;       /* the chunk's sampled pages (room for CHUNK_PAGES, more for a big host) */
    int64_t *ps;        /* per host of the chunk its first page in ids, and the end */
    int64_t *nd;        /* per host its distinct target hosts */
    int32_t *tmp, *cnt; /* per link: target hosts, then the distinct ones and their counts */
    int64_t tmp_cap;
} hg_chunk;

/* Local. The next chunk from host h0: hosts [h0, *h1), at least one, their sampled pages (s a
 * host, 0: all) into c->ids (*n of them), each host's first in c->ps. */
static cs_err chunk_hosts(cs_ctx *ctx, const cs_gen *g, int64_t s, int64_t h0, hg_chunk *c,
                          int64_t *h1, int64_t *n)
{
    const int64_t H = g->n_hosts;
    *h1 = h0;
    *n = 0;
    while (*h1 < H && *h1 - h0 < CHUNK_PAGES) {
        const host_rec *hr = &g->hosts[*h1];
        const int64_t m = sampled_count(hr->count, s);
        if (*h1 > h0 && *n + m > CHUNK_PAGES)
            break;
        if (*n + m > CHUNK_PAGES) { /* one host with more sampled pages than a chunk */
            int64_t *i2 = realloc(c->ids, (size_t)(*n + m + 1) * sizeof *c->ids);
            if (i2 == NULL)
                return cs_fail(ctx, CS_ERR_NOMEM, "host sample: %lld pages", (long long)m);
            c->ids = i2;
        }
        c->ps[*h1 - h0] = *n;
        for (int64_t j = 0; j < m; j++)
            c->ids[*n + j] = sampled_page(hr->first, hr->count, m, j);
        *n += m;
        (*h1)++;
    }
    c->ps[*h1 - h0] = *n;
    return CS_OK;
}

/* Local. For each of the chunk's nh hosts from h0 (their pages generated in sl): its target
 * hosts, sorted and counted (links scaled to the host's pages, rounded), in its own span of
 * c->tmp and c->cnt (c->nd of them); its relevant pages estimated into rel. OpenMP over the
 * hosts; *in_host: the links within a host. Returns the largest count. */
static int64_t count_host_links(const cs_gen *g, int64_t s, int64_t h0, int64_t nh,
                                const cs_graph_slice *sl, hg_chunk *c, int32_t *rel,
                                int64_t *in_host_out)
{
    const int64_t *ps = c->ps, *off = sl->offsets, *tg = sl->targets;
    int32_t *tmp = c->tmp, *cnt = c->cnt;
    int64_t *nd = c->nd;
    const double *rv = sl->relevance, th = g->cfg.relevance_threshold;
    int64_t in_host = 0, big = 0;
#pragma omp parallel for default(none) shared(g, ps, off, tg, tmp, cnt, nd, nh, h0, s, rv, th, rel) \
    reduction(+ : in_host) reduction(max : big) schedule(dynamic, 64)
    for (int64_t i = 0; i < nh; i++) {
        const int64_t a = h0 + i, lo = off[ps[i]], hi = off[ps[i + 1]];
        const host_rec *hr = &g->hosts[a];
        const int64_t m = sampled_count(hr->count, s);
        int64_t e = lo, nr = 0;
        for (int64_t p = ps[i]; p < ps[i + 1]; p++)
            nr += rv[p] >= th;
        /* the host's relevant pages, estimated as its links are */
        rel[a] = (int32_t)((2 * nr * (int64_t)hr->count + m) / (2 * m));
        for (int64_t j = lo; j < hi; j++) {
            const int64_t b = cs_gen_host_of(g, tg[j]);
            if (b != a)
                tmp[e++] = (int32_t)b;
        }
        in_host += hi - e;
        qsort(tmp + lo, (size_t)(e - lo), sizeof *tmp, cmp_i32);
        int64_t w = lo;
        for (int64_t j = lo; j < e;) {
            int64_t r = j;
            while (r < e && tmp[r] == tmp[j])
                r++;
            /* links a->tmp[j] of the sample, scaled to the host's pages, rounded */
            const int64_t x = (2 * (r - j) * (int64_t)hr->count + m) / (2 * m);
            big = x > big ? x : big;
            tmp[w] = tmp[j];
            cnt[w++] = (int32_t)(x < INT32_MAX ? x : INT32_MAX);
            j = r;
        }
        nd[i] = w - lo;
    }
    *in_host_out = in_host;
    return big;
}

/*
 * Local. The directed host graph of the sample: oo[H + 1] offsets, od (target hosts, sorted
 * within a host) and ow (scaled link counts). Hosts in chunks of about CHUNK_PAGES sampled
 * pages: the chunk's pages generated (cs_gen_pages, OpenMP), then each host's targets mapped
 * to their hosts, sorted and counted (OpenMP over the hosts, each in its own span of the
 * chunk's links), then appended in host order: the result does not depend on the threads.
 */
static cs_err directed(cs_ctx *ctx, const cs_gen *g, int64_t s, int64_t *oo, int32_t **od,
                       int32_t **ow, int32_t *rel, cs_gen_host_graph_info *info)
{
    cs_err rc = CS_OK;
    const int64_t H = g->n_hosts;
    int64_t cap = 0, D = 0, big = 0;
    hg_chunk c;
    memset(&c, 0, sizeof c);
    cs_graph_slice sl;
    cs_graph_slice_init(&sl);
    *od = NULL;
    *ow = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &c.ids, (size_t)CHUNK_PAGES + 1, sizeof *c.ids, "host sample"));
    CS_TRY(ctx, cs_alloc(ctx, &c.ps, (size_t)CHUNK_PAGES + 2, sizeof *c.ps, "host sample"));
    CS_TRY(ctx, cs_alloc(ctx, &c.nd, (size_t)CHUNK_PAGES + 1, sizeof *c.nd, "host sample"));
    oo[0] = 0;
    for (int64_t h0 = 0; h0 < H;) {
        int64_t h1 = h0, n = 0;
        CS_TRY(ctx, chunk_hosts(ctx, g, s, h0, &c, &h1, &n));
        cs_graph_slice_fini(&sl);
        cs_graph_slice_init(&sl);
        CS_TRY(ctx, cs_gen_pages(ctx, g, c.ids, n, &sl));
        const int64_t L = sl.offsets[n];
        info->sampled_pages += n;
        info->sampled_links += L;
        if (L + 1 > c.tmp_cap) {
            free(c.tmp);
            free(c.cnt);
            c.tmp = NULL;
            c.cnt = NULL;
            c.tmp_cap = L + 1;
            CS_TRY(ctx, cs_alloc(ctx, &c.tmp, (size_t)c.tmp_cap, sizeof *c.tmp, "host sample"));
            CS_TRY(ctx, cs_alloc(ctx, &c.cnt, (size_t)c.tmp_cap, sizeof *c.cnt, "host sample"));
        }
        const int64_t nh = h1 - h0;
        int64_t in_host = 0;
        const int64_t x = count_host_links(g, s, h0, nh, &sl, &c, rel, &in_host);
        big = x > big ? x : big;
        info->sampled_in_host += in_host;
        if (big >= INT32_MAX) {
            rc = cs_fail(ctx, CS_ERR_LIMIT,
                         "the sampled host graph: the links between two hosts exceed 2^31 - 1");
            goto fail;
        }
        for (int64_t i = 0; i < nh; i++) {
            const int64_t lo = sl.offsets[c.ps[i]];
            if (c.nd[i] > 0) { /* (memcpy's pointers must be valid even for no bytes) */
                CS_TRY(ctx, grow(ctx, od, ow, &cap, D + c.nd[i]));
                memcpy(*od + D, c.tmp + lo, (size_t)c.nd[i] * sizeof **od);
                memcpy(*ow + D, c.cnt + lo, (size_t)c.nd[i] * sizeof **ow);
            }
            D += c.nd[i];
            oo[h0 + i + 1] = D;
        }
        h0 = h1;
    }
    info->directed_edges = D;
fail:
    cs_graph_slice_fini(&sl);
    free(c.cnt);
    free(c.tmp);
    free(c.nd);
    free(c.ps);
    free(c.ids);
    return rc;
}

/* The directed host graph's lists: out (oo offsets, od targets, ow weights) and in (io, id,
 * iw), H hosts, D edges. */
typedef struct hg_lists {
    int64_t *oo, *io;
    int32_t *od, *ow, *id, *iw;
} hg_lists;

/* Local. The reverse lists of the directed graph (a counting sort over the sources in order:
 * each sorted) into l->io, l->id, l->iw. */
static cs_err reverse_lists(cs_ctx *ctx, int64_t H, hg_lists *l)
{
    const int64_t D = l->oo[H];
    int64_t *fill = NULL;
    cs_err rc;
    CS_TRY(ctx, cs_calloc(ctx, &l->io, (size_t)H + 1, sizeof *l->io, "sampled host graph"));
    CS_TRY(ctx, cs_alloc(ctx, &l->id, (size_t)D + 1, sizeof *l->id, "sampled host graph"));
    CS_TRY(ctx, cs_alloc(ctx, &l->iw, (size_t)D + 1, sizeof *l->iw, "sampled host graph"));
    for (int64_t e = 0; e < D; e++)
        l->io[l->od[e] + 1]++;
    for (int64_t h = 0; h < H; h++)
        l->io[h + 1] += l->io[h];
    CS_TRY(ctx, cs_alloc(ctx, &fill, (size_t)H + 1, sizeof *fill, "sampled host graph"));
    memcpy(fill, l->io, (size_t)H * sizeof *fill);
    for (int64_t a = 0; a < H; a++)
        for (int64_t e = l->oo[a]; e < l->oo[a + 1]; e++) {
            const int64_t j = fill[l->od[e]]++;
            l->id[j] = (int32_t)a;
            l->iw[j] = l->ow[e];
        }
fail:
    free(fill);
    return rc;
}

/* Local. The symmetric graph's offsets mo[H + 1]: each host's out- and in-lists merged. */
static void merged_offsets(int64_t H, const hg_lists *l, int64_t *mo)
{
    const int64_t *oo = l->oo, *io = l->io;
    const int32_t *od = l->od, *id = l->id;
    mo[0] = 0;
#pragma omp parallel for default(none) shared(oo, od, io, id, mo, H) schedule(static)
    for (int64_t v = 0; v < H; v++) {
        int64_t i = oo[v], j = io[v], c = 0;
        while (i < oo[v + 1] || j < io[v + 1]) {
            const int32_t x = i < oo[v + 1] ? od[i] : INT32_MAX;
            const int32_t y = j < io[v + 1] ? id[j] : INT32_MAX;
            i += x <= y;
            j += y <= x;
            c++;
        }
        mo[v + 1] = c;
    }
    for (int64_t v = 0; v < H; v++)
        mo[v + 1] += mo[v];
}

/* Local. The symmetric graph into out (allocated, H hosts, A = mo[H] entries, ncon vertex
 * weights: pages, and relevant pages rel): w(a, b) = w_ab + w_ba, divided so that the weights
 * sum below 2^30 (METIS sums them in idx_t); *div_out: the divisor. */
static cs_err fill_symmetric(cs_ctx *ctx, const cs_gen *g, const hg_lists *l, const int64_t *mo,
                             const int32_t *rel, int ncon, cs_part_csr *out, int64_t *div_out)
{
    const int64_t H = g->n_hosts, A = mo[H], D = l->oo[H];
    const int64_t *oo = l->oo, *io = l->io;
    const int32_t *od = l->od, *ow = l->ow, *id = l->id, *iw = l->iw;
    cs_err rc;
    out->n = (int32_t)H;
    CS_TRY(ctx, cs_alloc(ctx, &out->xadj, (size_t)H + 1, sizeof *out->xadj, "host graph"));
    CS_TRY(ctx, cs_alloc(ctx, &out->adjncy, (size_t)A + 1, sizeof *out->adjncy, "host graph"));
    CS_TRY(ctx, cs_alloc(ctx, &out->adjwgt, (size_t)A + 1, sizeof *out->adjwgt, "host graph"));
    CS_TRY(ctx, cs_alloc(ctx, &out->vwgt, (size_t)(H * ncon + 1), sizeof *out->vwgt, "host graph"));
    out->ncon = ncon;
    int64_t total = 0;
    int32_t *xadj = out->xadj, *adj = out->adjncy, *wgt = out->adjwgt, *vw = out->vwgt;
    for (int64_t e = 0; e < D; e++)
        total += 2 * (int64_t)ow[e];
    const int64_t div = total / ((int64_t)1 << 30) + 1;
#pragma omp parallel for default(none)                                                             \
    shared(g, oo, od, ow, io, id, iw, mo, xadj, adj, wgt, vw, rel, ncon, H, div) schedule(static)
    for (int64_t v = 0; v < H; v++) {
        int64_t i = oo[v], j = io[v], o = mo[v];
        xadj[v] = (int32_t)o;
        vw[v * ncon] = g->hosts[v].count;
        if (ncon > 1)
            vw[v * ncon + 1] = rel[v];
        while (i < oo[v + 1] || j < io[v + 1]) {
            const int32_t x = i < oo[v + 1] ? od[i] : INT32_MAX;
            const int32_t y = j < io[v + 1] ? id[j] : INT32_MAX;
            int64_t w = 0;
            if (x <= y)
                w += (int64_t)ow[i++];
            if (y <= x)
                w += iw[j++];
            w = (w + div / 2) / div;
            adj[o] = x < y ? x : y;
            wgt[o++] = (int32_t)(w > 0 ? w : 1);
        }
    }
    xadj[H] = (int32_t)A;
    *div_out = div;
fail:
    return rc;
}

cs_err cs_gen_host_graph(cs_ctx *ctx, const cs_gen *g, int64_t sample, int relevant,
                         cs_part_csr *out, cs_gen_host_graph_info *info)
{
    cs_err rc = CS_OK;
    const int64_t H = g->n_hosts;
    hg_lists l;
    memset(&l, 0, sizeof l);
    int64_t *mo = NULL;
    int32_t *rel = NULL;
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    if (sample < 0)
        return cs_fail(ctx, CS_ERR_ARG,
                       "partition.sample = %lld: the pages sampled per host "
                       "must be at least 1, or 0 for every page",
                       (long long)sample);
    if (H > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT,
                       "the generated world has %lld hosts: METIS's 32-bit idx_t allows %d",
                       (long long)H, INT32_MAX);
    const double t0 = cs_now();
    CS_TRY(ctx, cs_alloc(ctx, &l.oo, (size_t)H + 1, sizeof *l.oo, "sampled host graph"));
    CS_TRY(ctx, cs_alloc(ctx, &rel, (size_t)H + 1, sizeof *rel, "sampled host graph"));
    CS_TRY(ctx, directed(ctx, g, sample, l.oo, &l.od, &l.ow, rel, info));
    int64_t n_rel = 0;
    for (int64_t h = 0; h < H; h++)
        n_rel += rel[h];
    info->relevant = n_rel;
    /* a second constraint only when it has weight (METIS divides by each total) */
    const int ncon = relevant && n_rel > 0 ? 2 : 1;
    CS_TRY(ctx, reverse_lists(ctx, H, &l));
    CS_TRY(ctx, cs_alloc(ctx, &mo, (size_t)H + 1, sizeof *mo, "sampled host graph"));
    merged_offsets(H, &l, mo);
    const int64_t A = mo[H];
    if (A > INT32_MAX) {
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "the sampled host graph has %lld adjacency entries, beyond METIS's 32-bit "
                     "idx_t (%d): lower partition.sample",
                     (long long)A, INT32_MAX);
        goto fail;
    }
    CS_TRY(ctx, fill_symmetric(ctx, g, &l, mo, rel, ncon, out, &info->weight_divisor));
    info->adjacency = A;
    info->seconds = cs_now() - t0;
fail:
    if (rc != CS_OK)
        cs_part_csr_fini(out);
    free(rel);
    free(mo);
    free(l.iw);
    free(l.id);
    free(l.io);
    free(l.ow);
    free(l.od);
    free(l.oo);
    return rc;
}

cs_err cs_gen_host_parts(cs_ctx *ctx, const cs_gen *g, const cs_partition_config *pc, int32_t k,
                         uint16_t *host_part, cs_gen_host_graph_info *info)
{
    cs_err rc = CS_OK;
    const int64_t H = g->n_hosts;
    cs_part_csr c;
    memset(&c, 0, sizeof c);
    int32_t *vpart = NULL;
    memset(info, 0, sizeof *info);
    if (k < 1 || k > UINT16_MAX || k > g->n_pages)
        return cs_fail(ctx, CS_ERR_ARG,
                       "run.partition_method = metis-sampled: k = %d parts (ranks) must lie in "
                       "[1, %lld] (a part per host is kept in 16 bits)",
                       (int)k, (long long)(g->n_pages < UINT16_MAX ? g->n_pages : UINT16_MAX));
    if (pc->sample < 0) /* refused at any k (cs_gen_host_graph checks it too) */
        return cs_fail(ctx, CS_ERR_ARG,
                       "partition.sample = %lld: the pages sampled per host must be at least "
                       "1, or 0 for every page",
                       (long long)pc->sample);
    if (k == 1) {
        memset(host_part, 0, (size_t)H * sizeof *host_part);
        return CS_OK;
    }
    CS_TRY(ctx, cs_gen_host_graph(ctx, g, pc->sample, pc->balance_relevant, &c, info));
    CS_TRY(ctx, cs_alloc(ctx, &vpart, (size_t)H + 1, sizeof *vpart, "host parts"));
    const double t0 = cs_now();
    CS_TRY(ctx, cs_partition_metis(ctx, &c, pc, k, vpart, "the sampled host graph"));
    info->metis_seconds = cs_now() - t0;
    for (int64_t h = 0; h < H; h++)
        host_part[h] = (uint16_t)vpart[h];
fail:
    free(vpart);
    cs_part_csr_fini(&c);
    return rc;
}

cs_err cs_gen_partition_sampled(cs_ctx *ctx, const cs_gen *g, const cs_partition_config *pc,
                                uint16_t **host_part, cs_gen_host_graph_info *info)
{
    cs_err rc = CS_OK;
    const int64_t H = g->n_hosts;
    uint16_t *hp = NULL;
    memset(info, 0, sizeof *info);
    rc = cs_alloc(ctx, &hp, (size_t)H + 1, sizeof *hp, "host parts");
    if (rc == CS_OK && ctx->rank == 0)
        rc = cs_gen_host_parts(ctx, g, pc, ctx->size, hp, info);
    CS_TRY_AGREE(ctx, rc);
    /* rank 0's table to every rank, in pieces of at most 2^30 bytes */
    const int64_t step = (int64_t)1 << 29;
    for (int64_t o = 0; o < H; o += step)
        cs_bcast(ctx, hp + o, 2 * (H - o < step ? H - o : step), CS_T_BYTE, 0);
    cs_bcast(ctx, info, (int64_t)sizeof *info, CS_T_BYTE, 0);
    *host_part = hp;
    hp = NULL;
fail:
    free(hp);
    return rc;
}
