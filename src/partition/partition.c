/*
 * partition: computing a partition of the pages of a graph file into k parts. METIS k-way
 * (Karypis & Kumar 1998, METIS_PartGraphKway) on the host graph, pages contracted into their
 * hosts so that no host is split, or on the symmetrised page graph; the host hash of web
 * crawlers (Nutch, Frontera, StormCrawler); contiguous page-id blocks. METIS runs on rank 0,
 * which reads the whole graph; the result is broadcast.
 */
#include "crawlsim/partition.h"
#include "crawlsim/comm.h"

#include "crawlsim/graphio.h"
#include "crawlsim/rng.h"

#include <metis.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(IDXTYPEWIDTH == 32 && sizeof(idx_t) == sizeof(int32_t),
               "cs_part_csr assumes METIS with 32-bit idx_t");

void cs_partition_init(cs_partition *p)
{
    memset(p, 0, sizeof *p);
}

void cs_partition_fini(cs_partition *p)
{
    if (p == NULL)
        return;
    free(p->part);
    free(p->host_part);
    free(p->part_first);
    free(p->run_first);
    free(p->run_part);
    memset(p, 0, sizeof *p);
}

const char *cs_partition_method_name(int method)
{
    switch (method) {
    case CS_PART_METIS_HOST:
        return "metis-host";
    case CS_PART_METIS:
        return "metis";
    case CS_PART_HOST_HASH:
        return "host-hash";
    case CS_PART_BLOCK:
        return "block";
    default:
        return "?";
    }
}

int32_t cs_partition_host_hash(int64_t host, int64_t seed, int32_t k)
{
    uint64_t h = cs_mix64((uint64_t)host + cs_mix64((uint64_t)seed));
    return (int32_t)(h % (uint64_t)k);
}

void cs_part_csr_fini(cs_part_csr *c)
{
    if (c == NULL)
        return;
    free(c->xadj);
    free(c->adjncy);
    free(c->adjwgt);
    free(c->vwgt);
    memset(c, 0, sizeof *c);
}

/* ---- contraction ---------------------------------------------------------------------------- */

/* Step 1 of a contraction: the entries per vertex (both ends of every link between distinct
 * vertices, vertex vmap[p] of page p, or p) as offsets pos[nv + 1] (zeroed by the caller). */
static void count_entries(const cs_graph_slice *g, const int64_t *vmap, int64_t nv, int64_t *pos)
{
    for (int64_t p = 0; p < g->n; p++) {
        int64_t a = vmap != NULL ? vmap[p] : p;
        for (int64_t j = g->offsets[p]; j < g->offsets[p + 1]; j++) {
            int64_t b = vmap != NULL ? vmap[g->targets[j]] : g->targets[j];
            if (a != b) {
                pos[a + 1]++;
                pos[b + 1]++;
            }
        }
    }
    for (int64_t v = 0; v < nv; v++)
        pos[v + 1] += pos[v];
}

/* Step 2: a counting sort of the entries by their first vertex into adj; pos[v] ends at v's
 * end. */
static void sort_entries(const cs_graph_slice *g, const int64_t *vmap, int64_t *pos, int32_t *adj)
{
    for (int64_t p = 0; p < g->n; p++) {
        int64_t a = vmap != NULL ? vmap[p] : p;
        for (int64_t j = g->offsets[p]; j < g->offsets[p + 1]; j++) {
            int64_t b = vmap != NULL ? vmap[g->targets[j]] : g->targets[j];
            if (a != b) {
                adj[pos[a]++] = (int32_t)b;
                adj[pos[b]++] = (int32_t)a;
            }
        }
    }
}

/* Step 3: the repeated entries of each vertex (ending at pos[v]) aggregated in place into one
 * entry with a weight (wgt), the vertices' offsets in xadj[nv + 1]. slot[b] (nv entries, -1) is
 * where b went for the current vertex, valid when it lies at or after the vertex's first output
 * entry (outputs only move forward). *w: the entries kept. Local. */
static cs_err aggregate(cs_ctx *ctx, const char *what, const int64_t *pos, int64_t nv, int32_t *adj,
                        int32_t *wgt, int64_t *slot, int32_t *xadj, int64_t *w)
{
    int64_t begin = 0;
    *w = 0;
    for (int64_t v = 0; v < nv; v++) {
        int64_t end = pos[v], vstart = *w;
        if (*w > INT32_MAX)
            break;
        xadj[v] = (int32_t)*w;
        for (int64_t r = begin; r < end; r++) {
            int32_t b = adj[r];
            if (slot[b] >= vstart) {
                if (wgt[slot[b]] == INT32_MAX)
                    return cs_fail(ctx, CS_ERR_LIMIT,
                                   "%s: an edge weight exceeds METIS's 32-bit limit", what);
                wgt[slot[b]]++;
            } else {
                slot[b] = *w;
                adj[*w] = b;
                wgt[*w] = 1;
                (*w)++;
            }
        }
        begin = end;
    }
    if (*w > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT,
                       "%s: the symmetrised adjacency has more than %d entries, beyond METIS's "
                       "32-bit idx_t",
                       what, INT32_MAX);
    xadj[nv] = (int32_t)*w;
    return CS_OK;
}

/* Step 4: the vertex weights into vw (zeroed): pages, or links (at least 1) under
 * CS_PART_VW_LINKS. Local. */
static cs_err vertex_weights(cs_ctx *ctx, const cs_graph_slice *g, const int64_t *vmap, int64_t nv,
                             int vertex_weight, const char *what, int32_t *vw)
{
    for (int64_t p = 0; p < g->n; p++) {
        int64_t a = vmap != NULL ? vmap[p] : p;
        int64_t add = vertex_weight == CS_PART_VW_LINKS ? g->offsets[p + 1] - g->offsets[p] : 1;
        if ((int64_t)vw[a] + add > INT32_MAX)
            return cs_fail(ctx, CS_ERR_LIMIT, "%s: a vertex weight exceeds METIS's 32-bit limit",
                           what);
        vw[a] += (int32_t)add;
    }
    if (vertex_weight == CS_PART_VW_LINKS)
        for (int64_t v = 0; v < nv; v++)
            if (vw[v] == 0)
                vw[v] = 1;
    return CS_OK;
}

cs_err cs_partition_contract(cs_ctx *ctx, const cs_graph_slice *g, const int64_t *vmap,
                             int64_t n_vertices, int vertex_weight, const char *what,
                             cs_part_csr *out)
{
    cs_err rc = CS_OK;
    int64_t *pos = NULL, *slot = NULL;
    int32_t *adj = NULL, *wgt = NULL, *xadj = NULL, *vw = NULL;
    const int64_t nv = n_vertices;
    memset(out, 0, sizeof *out);
    if (nv > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT,
                       "%s: %lld vertices exceed METIS's 32-bit limit of %d (idx_t)", what,
                       (long long)nv, INT32_MAX);
    CS_TRY(ctx, cs_calloc(ctx, &pos, (size_t)nv + 1, sizeof(int64_t), "contraction offsets"));
    count_entries(g, vmap, nv, pos);
    const int64_t raw = pos[nv];
    CS_TRY(ctx, cs_alloc(ctx, &adj, (size_t)(raw > 0 ? raw : 1), sizeof(int32_t), "adjacency"));
    CS_TRY(ctx, cs_alloc(ctx, &wgt, (size_t)(raw > 0 ? raw : 1), sizeof(int32_t), "edge weights"));
    sort_entries(g, vmap, pos, adj);
    CS_TRY(ctx, cs_alloc(ctx, &slot, (size_t)(nv > 0 ? nv : 1), sizeof(int64_t), "marker"));
    for (int64_t v = 0; v < nv; v++)
        slot[v] = -1;
    CS_TRY(ctx, cs_alloc(ctx, &xadj, (size_t)nv + 1, sizeof(int32_t), "xadj"));
    int64_t w = 0;
    CS_TRY(ctx, aggregate(ctx, what, pos, nv, adj, wgt, slot, xadj, &w));
    free(slot);
    slot = NULL;
    free(pos);
    pos = NULL;
    if (w > 0) {
        int32_t *a2 = realloc(adj, (size_t)w * sizeof(int32_t));
        int32_t *w2 = a2 != NULL ? realloc(wgt, (size_t)w * sizeof(int32_t)) : NULL;
        if (a2 != NULL)
            adj = a2;
        if (w2 != NULL)
            wgt = w2;
    }
    CS_TRY(ctx, cs_calloc(ctx, &vw, (size_t)(nv > 0 ? nv : 1), sizeof(int32_t), "vertex weights"));
    CS_TRY(ctx, vertex_weights(ctx, g, vmap, nv, vertex_weight, what, vw));
    out->n = (int32_t)nv;
    out->xadj = xadj;
    out->adjncy = adj;
    out->adjwgt = wgt;
    out->vwgt = vw;
    return CS_OK;
fail:
    free(vw);
    free(xadj);
    free(slot);
    free(wgt);
    free(adj);
    free(pos);
    return rc;
}

/* ---- METIS ---------------------------------------------------------------------------------- */

/* Local. max part weight / mean part weight of vpart under c's vertex weights. */
static double vbalance(const cs_part_csr *c, const int32_t *vpart, int32_t k, int64_t *wsum)
{
    int64_t total = 0, max = 0;
    for (int32_t p = 0; p < k; p++)
        wsum[p] = 0;
    for (int32_t v = 0; v < c->n; v++) {
        wsum[vpart[v]] += c->vwgt[v];
        total += c->vwgt[v];
    }
    for (int32_t p = 0; p < k; p++)
        if (wsum[p] > max)
            max = wsum[p];
    return total > 0 ? (double)max * (double)k / (double)total : 1.0;
}

/* Local. One METIS call: k-way or recursive bisection. */
static cs_err metis_call(cs_ctx *ctx, cs_part_csr *c, const cs_partition_config *pc, int32_t k,
                         int recursive, int32_t *vpart, const char *what)
{
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_UFACTOR] = (idx_t)pc->ufactor;
    options[METIS_OPTION_SEED] = (idx_t)pc->seed;
    if (!recursive)
        options[METIS_OPTION_OBJTYPE] =
            pc->objective == CS_PART_OBJ_VOLUME ? METIS_OBJTYPE_VOL : METIS_OBJTYPE_CUT;
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t nv = c->n, ncon = c->ncon > 1 ? c->ncon : 1, nparts = k, objval = 0;
    int st = recursive
                 ? METIS_PartGraphRecursive(&nv, &ncon, c->xadj, c->adjncy, c->vwgt, NULL,
                                            c->adjwgt, &nparts, NULL, NULL, options, &objval, vpart)
                 : METIS_PartGraphKway(&nv, &ncon, c->xadj, c->adjncy, c->vwgt, NULL, c->adjwgt,
                                       &nparts, NULL, NULL, options, &objval, vpart);
    if (st == METIS_OK)
        return CS_OK;
    if (st == METIS_ERROR_MEMORY)
        return cs_fail(ctx, CS_ERR_NOMEM, "%s: METIS ran out of memory (k = %d, %d vertices)", what,
                       (int)k, (int)nv);
    return cs_fail(ctx, CS_ERR_INTERNAL, "%s: METIS_PartGraph%s failed (%s, k = %d)", what,
                   recursive ? "Recursive" : "Kway",
                   st == METIS_ERROR_INPUT ? "input error" : "error", (int)k);
}

/*
 * Local. METIS k-way on c into vpart[c->n]; k >= 2. K-way refinement gives up on balance when
 * a few vertices are very heavy (big hosts: on the 1 M default graph at k = 16 it returned a
 * part of 2.16 times the mean where 1.22, the largest host, is possible). When its balance is
 * more than 0.05 above what is feasible (max(1 + ufactor/1000, heaviest vertex / mean)), we
 * also run recursive bisection, which balances such graphs well, and keep the better balanced
 * of the two. Deterministic for a given seed.
 */
static cs_err run_metis(cs_ctx *ctx, cs_part_csr *c, const cs_partition_config *pc, int32_t k,
                        int32_t *vpart, const char *what)
{
    cs_err rc = CS_OK;
    int64_t *wsum = NULL;
    int32_t *alt = NULL;
    idx_t nv = c->n;
    if (nv <= k) {
        /* METIS cannot split fewer vertices than parts: each vertex gets a part of its own. */
        CS_LOG(ctx, CS_LOG_WARN, "%s: k = %d is not below the %d vertices: one vertex per part",
               what, (int)k, (int)nv);
        for (idx_t v = 0; v < nv; v++)
            vpart[v] = v;
        return CS_OK;
    }
    CS_TRY(ctx, metis_call(ctx, c, pc, k, 0, vpart, what));
    CS_TRY(ctx, cs_alloc(ctx, &wsum, (size_t)k, sizeof(int64_t), "part weights"));
    int64_t total = 0, heaviest = 0;
    for (int32_t v = 0; v < c->n; v++) {
        total += c->vwgt[v];
        if (c->vwgt[v] > heaviest)
            heaviest = c->vwgt[v];
    }
    double feasible = 1.0 + (double)pc->ufactor / 1000.0;
    if (total > 0 && (double)heaviest * (double)k / (double)total > feasible)
        feasible = (double)heaviest * (double)k / (double)total;
    double kway = vbalance(c, vpart, k, wsum);
    if (kway > feasible + 0.05) {
        CS_TRY(ctx, cs_alloc(ctx, &alt, (size_t)c->n, sizeof(int32_t), "recursive partition"));
        CS_TRY(ctx, metis_call(ctx, c, pc, k, 1, alt, what));
        double rec = vbalance(c, alt, k, wsum);
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "partition: k-way balance %.3f (feasible %.3f), recursive bisection %.3f", kway,
               feasible, rec);
        if (rec < kway)
            memcpy(vpart, alt, (size_t)c->n * sizeof(int32_t));
    }
fail:
    free(alt);
    free(wsum);
    return rc;
}

cs_err cs_partition_metis(cs_ctx *ctx, cs_part_csr *c, const cs_partition_config *pc, int32_t k,
                          int32_t *vpart, const char *what)
{
    if (k < 1)
        return cs_fail(ctx, CS_ERR_ARG, "%s: k = %d parts", what, (int)k);
    if (k == 1) {
        memset(vpart, 0, (size_t)c->n * sizeof *vpart);
        return CS_OK;
    }
    if (c->ncon > 1 && c->n > k) /* the fallback below weighs one constraint */
        return metis_call(ctx, c, pc, k, 0, vpart, what);
    return run_metis(ctx, c, pc, k, vpart, what);
}

/* Rank 0. The whole graph g into out->part (and host_part for metis-host). Frees all of g but
 * g->host on the way (the caller still finalises g). */
static cs_err metis_rank0(cs_ctx *ctx, cs_graph_slice *g, const cs_partition_config *pc, int32_t k,
                          cs_partition *out, const char *path)
{
    cs_err rc = CS_OK;
    cs_part_csr c;
    memset(&c, 0, sizeof c);
    char what[CS_CONF_STR + 64];
    const int host = pc->method == CS_PART_METIS_HOST;
    snprintf(what, sizeof what, "graph file %s (%s graph)", path, host ? "host" : "page");
    if (k == 1) {
        memset(out->part, 0, (size_t)out->n_pages * sizeof(int32_t));
        if (host)
            memset(out->host_part, 0, (size_t)out->n_hosts * sizeof(int32_t));
        return CS_OK;
    }
    CS_TRY(ctx,
           cs_partition_contract(ctx, g, host ? g->host : NULL, host ? out->n_hosts : out->n_pages,
                                 pc->vertex_weight, what, &c));
    CS_LOG(ctx, CS_LOG_VERBOSE, "partition: %s graph of %d vertices, %d adjacency entries",
           host ? "host" : "page", (int)c.n, (int)c.xadj[c.n]);
    /* Only the hosts are needed from now on: give the links and page attributes back before
     * METIS builds its own copies (a third of the peak memory on the 10 M-page graph). */
    int64_t *keep_host = g->host;
    g->host = NULL;
    cs_graph_slice_fini(g);
    g->host = keep_host;
    if (host) {
        CS_TRY(ctx, run_metis(ctx, &c, pc, k, out->host_part, what));
        for (int64_t p = 0; p < out->n_pages; p++)
            out->part[p] = out->host_part[g->host[p]];
    } else {
        CS_TRY(ctx, run_metis(ctx, &c, pc, k, out->part, what));
    }
fail:
    cs_part_csr_fini(&c);
    return rc;
}

/* Collective. Broadcasts n int32 from rank 0 in pieces of at most 2^30. */
static void bcast_i32(cs_ctx *ctx, int32_t *v, int64_t n)
{
    const int64_t step = (int64_t)1 << 30;
    for (int64_t o = 0; o < n; o += step)
        cs_bcast(ctx, v + o, n - o < step ? n - o : step, CS_T_I32, 0);
}

/* ---- the driver ----------------------------------------------------------------------------- */

/* Collective. Reads the hosts of pages [first, first + n) of a graph file, checked. */
static cs_err read_hosts(cs_ctx *ctx, const char *path, const cs_graph_header *hdr, int64_t first,
                         int64_t n, int64_t **host)
{
    hid_t file = -1, dset = -1;
    cs_graph_header h2;
    cs_err rc = cs_alloc(ctx, host, (size_t)(n > 0 ? n : 1), sizeof **host, "page hosts");
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_graphio_open(ctx, path, &file, &h2));
    dset = H5Dopen2(file, "/pages/host", H5P_DEFAULT);
    if (dset < 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "graph file %s: no dataset /pages/host", path);
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK)
        rc = cs_agree(ctx, cs_h5_read_1d(ctx, dset, H5T_NATIVE_INT64, first, n, *host, 8, path,
                                         "/pages/host"));
    if (rc == CS_OK)
        rc = cs_graphio_check_ids64(ctx, path, "/pages/host", *host, first, n, 0, hdr->n_hosts);
    rc = cs_agree(ctx, rc);
fail:
    if (dset >= 0)
        H5Dclose(dset);
    if (file >= 0)
        H5Fclose(file);
    return rc;
}

/* k parts of N pages in contiguous blocks (cs_block_range), their first pages in part_first. */
static void block_parts(cs_partition *out, int64_t N, int32_t k)
{
    for (int32_t p = 0; p < k; p++) {
        int64_t f = 0, c = 0;
        cs_block_range(N, p, k, &f, &c);
        out->part_first[p] = f;
        for (int64_t i = f; i < f + c; i++)
            out->part[i] = p;
    }
    out->part_first[k] = N;
}

/* Each host's part by a hash of its id (cs_partition_host_hash), each page its host's: every
 * rank reads the hosts of a block of pages and the blocks are gathered on every rank.
 * Collective. */
static cs_err host_hash_parts(cs_ctx *ctx, const char *graph_path, const cs_graph_header *hdr,
                              const cs_partition_config *pc, int32_t k, cs_partition *out)
{
    const int64_t N = hdr->n_pages, H = hdr->n_hosts;
    int64_t first = 0, n = 0;
    cs_block_range(N, ctx->rank, ctx->size, &first, &n);
    int64_t *host = NULL; /* only the hosts: a run's load checks the rest of its pages */
    cs_err rc = read_hosts(ctx, graph_path, hdr, first, n, &host);
    if (rc != CS_OK)
        return rc;
    for (int64_t h = 0; h < H; h++)
        out->host_part[h] = cs_partition_host_hash(h, pc->seed, k);
    for (int64_t i = 0; i < n; i++)
        out->part[first + i] = out->host_part[host[i]];
    free(host);
    int *counts = NULL, *displs = NULL;
    rc = cs_alloc(ctx, &counts, (size_t)ctx->size, sizeof(int), "counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &displs, (size_t)ctx->size, sizeof(int), "displacements");
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK) {
        for (int r = 0; r < ctx->size; r++) {
            int64_t f = 0, c = 0;
            cs_block_range(N, r, ctx->size, &f, &c);
            counts[r] = (int)c;
            displs[r] = (int)f;
        }
        cs_allgatherv(ctx, NULL, 0, out->part, counts, displs, CS_T_I32);
    }
    free(displs);
    free(counts);
    return rc;
}

/* METIS on rank 0 over the whole graph (its pages or its hosts), the parts broadcast.
 * Collective. */
static cs_err metis_parts(cs_ctx *ctx, const char *graph_path, const cs_graph_header *hdr,
                          const cs_partition_config *pc, int32_t k, cs_partition *out)
{
    cs_graph_slice g;
    cs_graph_slice_init(&g);
    cs_err rc =
        cs_graphio_read_slice(ctx, graph_path, 0, ctx->rank == 0 ? hdr->n_pages : 0, &g, NULL);
    if (rc != CS_OK)
        return rc;
    if (ctx->rank == 0)
        rc = metis_rank0(ctx, &g, pc, k, out, graph_path);
    cs_graph_slice_fini(&g);
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    bcast_i32(ctx, out->part, hdr->n_pages);
    if (out->host_part != NULL)
        bcast_i32(ctx, out->host_part, hdr->n_hosts);
    return CS_OK;
}

/* The header is the same on every rank: these checks agree without communication. */
static cs_err check_k(cs_ctx *ctx, const char *graph_path, const cs_graph_header *hdr, int32_t k)
{
    if (k < 1 || k > hdr->n_pages)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot partition graph file %s (%lld pages) into k = %d "
                       "parts: k must lie in [1, %lld]",
                       graph_path, (long long)hdr->n_pages, (int)k, (long long)hdr->n_pages);
    if (hdr->n_pages > INT32_MAX || hdr->n_hosts > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT,
                       "graph file %s has %lld pages and %lld hosts: partitioning needs both at "
                       "most %d (METIS's 32-bit idx_t)",
                       graph_path, (long long)hdr->n_pages, (long long)hdr->n_hosts, INT32_MAX);
    return CS_OK;
}

static cs_err compute(cs_ctx *ctx, const char *graph_path, const cs_partition_config *pc, int32_t k,
                      int with_quality, cs_partition *out)
{
    cs_err rc = CS_OK;
    cs_graph_header hdr;
    double t0 = cs_now();
    CS_TRY(ctx, cs_graphio_read_header(ctx, graph_path, &hdr));
    CS_TRY(ctx, check_k(ctx, graph_path, &hdr, k));
    out->method = pc->method;
    out->k = k;
    out->seed = pc->seed;
    out->ufactor = (int32_t)pc->ufactor;
    out->objective = pc->objective;
    out->vertex_weight = pc->vertex_weight;
    out->n_pages = hdr.n_pages;
    out->n_links = hdr.n_links;
    out->n_hosts = hdr.n_hosts;
    snprintf(out->graph_source, sizeof out->graph_source, "%s", hdr.source);
    const int64_t N = hdr.n_pages, H = hdr.n_hosts;
    const int keeps_hosts = pc->method == CS_PART_METIS_HOST || pc->method == CS_PART_HOST_HASH;
    rc = cs_alloc(ctx, &out->part, (size_t)N, sizeof(int32_t), "partition");
    if (rc == CS_OK && keeps_hosts)
        rc = cs_alloc(ctx, &out->host_part, (size_t)(H > 0 ? H : 1), sizeof(int32_t),
                      "host partition");
    if (rc == CS_OK && pc->method == CS_PART_BLOCK)
        rc = cs_alloc(ctx, &out->part_first, (size_t)k + 1, sizeof(int64_t), "part ranges");
    CS_TRY_AGREE(ctx, rc);

    if (pc->method == CS_PART_BLOCK)
        block_parts(out, N, k);
    else if (pc->method == CS_PART_HOST_HASH)
        CS_TRY(ctx, host_hash_parts(ctx, graph_path, &hdr, pc, k, out));
    else if (pc->method == CS_PART_METIS_HOST || pc->method == CS_PART_METIS)
        CS_TRY(ctx, metis_parts(ctx, graph_path, &hdr, pc, k, out));
    else
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_ARG, "unknown partition method %d", pc->method));
    out->seconds = cs_now() - t0;
    cs_bcast(ctx, &out->seconds, 1, CS_T_F64, 0);
    if (with_quality)
        CS_TRY(ctx, cs_partition_quality(ctx, graph_path, out->part, k, &out->quality));
    return CS_OK;
fail:
    cs_partition_fini(out);
    return rc;
}

cs_err cs_partition_compute(cs_ctx *ctx, const char *graph_path, const cs_partition_config *pc,
                            int32_t k, cs_partition *out)
{
    return compute(ctx, graph_path, pc, k, 1, out);
}

cs_err cs_partition_assign(cs_ctx *ctx, const char *graph_path, const cs_partition_config *pc,
                           int32_t k, cs_partition *out)
{
    return compute(ctx, graph_path, pc, k, 0, out);
}

void cs_partition_print(FILE *out, const cs_partition *p)
{
    const cs_part_quality *q = &p->quality;
    fprintf(out, "partition %s, k %d", cs_partition_method_name(p->method), (int)p->k);
    if (p->method == CS_PART_METIS_HOST || p->method == CS_PART_METIS)
        fprintf(out, ", seed %lld, ufactor %d, objective %s, vertex weight %s", (long long)p->seed,
                (int)p->ufactor, p->objective == 1 ? "volume" : "cut",
                p->vertex_weight == 1 ? "links" : "pages");
    else if (p->method == CS_PART_HOST_HASH)
        fprintf(out, ", seed %lld", (long long)p->seed);
    fprintf(out, " (%.2f s)\n", p->seconds);
    fprintf(out, "partition edge cut %lld (%.4f of links)\n", (long long)q->edge_cut,
            q->cut_fraction);
    fprintf(out, "partition volume %lld\n", (long long)q->volume);
    fprintf(out, "partition balance pages %.4f, links %.4f (max part / mean)\n", q->page_balance,
            q->link_balance);
    fprintf(out, "partition hosts split %lld\n", (long long)q->hosts_split);
}
