/*
 * import, at scale: BVGraph files opened (properties, offsets, the .graph mapped), and a
 * BVGraph imported by every rank. Each rank maps the .graph file
 * (its pages are read as decoding touches them, into the page cache that the ranks of a node
 * share), takes the lists' bit offsets (the .offsets file, or one sequential decoding pass that
 * every rank makes itself: the same wall time as one rank making it and sending the result,
 * without the copy), cuts the nodes into ranges of about equal arc counts (cs_bv_split: every
 * rank computes the same cut), decodes its own range with its OpenMP threads, computes its
 * pages' attributes and writes its part of the graph file with cs_graphio_write (collective
 * writes of disjoint hyperslabs). Nothing of the graph passes through rank 0, and the file is
 * the one the serial reader (cs_import_read) gives.
 *
 * What cannot be read this way stays serial (cs_import_read on rank 0): page tables and lists
 * (text, often gzip, whose hosts and labels are numbered in file order), reverse (a rank
 * would need the lists of every other rank), hosts = url or field. cs_imp_bvgraph_parallel
 * says which.
 *
 * Memory per rank (docs/guide/importing.md "Big graphs on several ranks"): while decoding, 8
 * bytes per node of the whole graph (the offsets) and the mapped input pages; then 8 bytes per
 * local arc and 45 per local page (the slice): about 2x the rank's share of the output file (4
 * bytes per arc, 41 per page).
 */
#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "crawlsim/rng.h"
#include "import_bvgraph.h"
#include "import_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- BVGraph files ---- */

cs_err cs_bv_map(cs_ctx *ctx, const char *path, const uint8_t **data, uint64_t *nbytes)
{
    static const uint8_t empty[8] = {0};
    int fd = -1;
    *data = NULL;
    *nbytes = 0;
    cs_err rc = cs_open_regular(ctx, path, "BVGraph file", &fd, NULL);
    if (rc != CS_OK)
        return rc;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0) {
        close(fd);
        return cs_fail(ctx, CS_ERR_IO, "%s: cannot stat", path);
    }
    if (st.st_size == 0) {
        close(fd);
        *data = empty;
        return CS_OK;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    close(fd);
    if (m == MAP_FAILED)
        return cs_fail(ctx, err == ENOMEM ? CS_ERR_NOMEM : CS_ERR_IO, "%s: cannot map it: %s", path,
                       strerror(err));
    *data = m;
    *nbytes = (uint64_t)st.st_size;
    return CS_OK;
}

void cs_bv_unmap(const uint8_t *data, uint64_t nbytes)
{
    if (data != NULL && nbytes > 0)
        munmap((void *)(uintptr_t)data, (size_t)nbytes);
}

cs_err cs_bv_open(cs_ctx *ctx, const char *graph_path, int64_t nodes_hint, cs_bv_params *p,
                  const uint8_t **graph, uint64_t *nbytes, uint64_t **offsets)
{
    cs_err rc = CS_OK;
    char base[CS_IMP_PATH_MAX], path[CS_IMP_PATH_MAX + 16];
    *graph = NULL;
    *nbytes = 0;
    *offsets = NULL;
    size_t l = strlen(graph_path);
    if (l >= sizeof base)
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: path too long", graph_path);
    memcpy(base, graph_path, l + 1);
    if (l >= 6 && strcmp(base + l - 6, ".graph") == 0)
        base[l - 6] = '\0';
    snprintf(path, sizeof path, "%s.properties", base);
    struct stat st;
    if (stat(path, &st) == 0) {
        CS_TRY(ctx, cs_bv_read_properties(ctx, path, p));
        if (p->nodes < 0)
            return cs_fail(ctx, CS_ERR_FORMAT, "%s: no 'nodes' entry", path);
        if (nodes_hint > 0 && nodes_hint != p->nodes)
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "[import] node_count = %lld but %s says nodes = %lld",
                           (long long)nodes_hint, path, (long long)p->nodes);
    } else {
        cs_bv_params_default(p);
        if (nodes_hint <= 0)
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "%s: no properties file (%s): give the node count with [import] "
                           "node_count (WebGraph's default parameters are then assumed)",
                           graph_path, path);
        p->nodes = nodes_hint;
    }
    if (p->nodes > (int64_t)CS_IMP_ID_MAX + 1)
        return cs_fail(ctx, CS_ERR_LIMIT, "%s: %lld nodes: at most 2^31 - 1", graph_path,
                       (long long)p->nodes);
    CS_TRY(ctx, cs_bv_map(ctx, graph_path, graph, nbytes));
    snprintf(path, sizeof path, "%s.offsets", base);
    rc = cs_bv_read_offsets(ctx, path, p, *nbytes * 8, offsets);
    if (rc != CS_OK) {
        cs_bv_unmap(*graph, *nbytes);
        *graph = NULL;
        *nbytes = 0;
    }
    return rc;
fail:
    return rc;
}

cs_err cs_bv_read_graph(cs_ctx *ctx, const char *graph_path, int64_t nodes_hint, int64_t *n,
                        int64_t **off, int32_t **tgt)
{
    cs_err rc = CS_OK;
    const uint8_t *g = NULL;
    uint64_t nb = 0, *offsets = NULL;
    cs_bv_params p;
    CS_TRY(ctx, cs_bv_open(ctx, graph_path, nodes_hint, &p, &g, &nb, &offsets));
    rc = cs_bv_decode(ctx, graph_path, g, nb, &p, offsets, off, tgt);
    if (rc == CS_OK)
        *n = p.nodes;
    cs_bv_unmap(g, nb);
    free(offsets);
    return rc;
fail:
    return rc;
}

/* ---- the import on every rank ---- */

int cs_imp_bvgraph_parallel(const cs_import_config *ic, const char **why)
{
    const char *w = NULL;
    if (ic->edge_format != CS_EDGES_BVGRAPH)
        w = "not a BVGraph";
    else if (ic->pages[0] != '\0' || ic->page_list[0] != '\0')
        w = "page tables and page lists are read on one rank";
    else if (ic->reverse)
        w = "reverse = 1 needs every rank's lists";
    else if (ic->hosts != CS_HOSTS_PER_PAGE && ic->hosts != CS_HOSTS_SINGLE &&
             ic->hosts != CS_HOSTS_NODE && ic->hosts != CS_HOSTS_BLOCKS)
        w = "hosts from URLs or a field are read on one rank";
    else if (strpbrk(ic->edges, "*?[") != NULL)
        w = "the .graph file is named with a wildcard";
    if (why != NULL)
        *why = w;
    return w == NULL;
}

/* Local. Peak resident memory of this process in bytes (getrusage). */
int64_t cs_imp_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (int64_t)ru.ru_maxrss * 1024; /* Linux: kilobytes */
}

/* Local. Drops the self-loops of the local CSR (pages first + i) in place; their count. */
static uint64_t drop_self_loops(int64_t first, int64_t n, int64_t *off, int64_t *tgt)
{
    int64_t out = 0;
    uint64_t dropped = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t b = off[i], e = off[i + 1];
        off[i] = out;
        for (int64_t k = b; k < e; k++) {
            if (tgt[k] == first + i)
                dropped++;
            else
                tgt[out++] = tgt[k];
        }
    }
    off[n] = out;
    return dropped;
}

static uint64_t count_self_loops(int64_t first, int64_t n, const int64_t *off, const int64_t *tgt)
{
    uint64_t c = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = off[i]; k < off[i + 1]; k++)
            c += tgt[k] == first + i;
    return c;
}

/* Local (rank 0). hosts = node with integer ids: host i is named by node i's number as
 * written (i + id_base), as the serial reader names it. */
cs_err cs_imp_number_names(cs_ctx *ctx, int64_t n, int64_t base, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    size_t bytes = 0;
    char num[32];
    for (int64_t i = 0; i < n; i++)
        bytes += (size_t)snprintf(num, sizeof num, "%lld", (long long)(i + base)) + 1;
    CS_TRY(ctx, cs_alloc(ctx, &meta->host_blob, bytes, 1, "host names"));
    CS_TRY(ctx, cs_alloc(ctx, &meta->host_name_off, (size_t)n, sizeof(int64_t), "host names"));
    size_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        meta->host_name_off[i] = (int64_t)at;
        at += (size_t)snprintf(meta->host_blob + at, bytes - at, "%lld", (long long)(i + base)) + 1;
    }
    return CS_OK;
fail:
    return rc;
}

/* Local. The page attributes of the slice's pages: hosts per `hosts`, no topic, relevance 0
 * (no labels without page tables), the [gen] model's dynamics keyed by (host, page). */
cs_err cs_imp_page_attributes(cs_ctx *ctx, const cs_config *cfg, cs_graph_slice *g)
{
    cs_err rc = CS_OK;
    const int64_t n = g->n;
    const int single = cfg->import.hosts == CS_HOSTS_SINGLE;
    CS_TRY(ctx, cs_alloc(ctx, &g->host, (size_t)n, sizeof *g->host, "page hosts"));
    CS_TRY(ctx, cs_alloc(ctx, &g->topic, (size_t)n, sizeof *g->topic, "page topics"));
    CS_TRY(ctx, cs_alloc(ctx, &g->relevance, (size_t)n, sizeof *g->relevance, "page relevance"));
    CS_TRY(ctx, cs_alloc(ctx, &g->delta, (size_t)n, sizeof *g->delta, "page change rates"));
    CS_TRY(ctx, cs_alloc(ctx, &g->mu, (size_t)n, sizeof *g->mu, "page importance"));
    CS_TRY(ctx,
           cs_alloc(ctx, &g->observable, (size_t)n, sizeof *g->observable, "page observability"));
    const cs_gen_config *gen = &cfg->gen;
    const int64_t first = g->first;
    int64_t *host = g->host;
    int32_t *topic = g->topic;
    double *rel = g->relevance, *delta = g->delta, *mu = g->mu;
    uint8_t *obs = g->observable;
#pragma omp parallel for default(none)                                                             \
    shared(n, single, gen, first, host, topic, rel, delta, mu, obs) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        host[i] = single ? 0 : first + i;
        topic[i] = -1;
        rel[i] = 0.0;
        cs_gen_page_dynamics(gen, host[i], first + i, CS_RNG_IMPORT, &delta[i], &mu[i], &obs[i]);
    }
    return CS_OK;
fail:
    return rc;
}

/* The BVGraph's basename: the first (only) item of [import] edges, resolved. Local (the same
 * config on every rank). */
static cs_err edge_path(cs_ctx *ctx, const cs_config *cfg, char *path, size_t len)
{
    const cs_import_config *ic = &cfg->import;
    cs_err rc = cs_imp_check_config(ctx, ic);
    if (rc != CS_OK)
        return rc;
    const char *e = ic->edges;
    char item[CS_IMP_PATH_MAX];
    if (!cs_imp_next_item(&e, item, sizeof item))
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] edges: no edge file given");
    return cs_imp_resolve(ctx, cfg, item, path, len);
}

/* The lists' bit offsets found by a pass over the graph (no .offsets file), with a progress
 * line. Collective. */
static cs_err scan_offsets(cs_ctx *ctx, const char *path, const uint8_t *graph, uint64_t nbytes,
                           cs_bv_params *p, uint64_t **offsets)
{
    cs_progress prog;
    cs_progress_begin(&prog, ctx, "import: finding the lists (no .offsets file)",
                      (uint64_t)p->nodes);
    prog.unit = "nodes";
    prog.interval = prog.interval > 5.0 ? 5.0 : prog.interval;
    cs_err rc = cs_bv_scan(ctx, path, graph, nbytes, p, offsets, &prog);
    cs_progress_end(&prog);
    return cs_agree(ctx, rc);
}

/* Nodes [a, b) of the graph decoded into g's offsets and targets, with a progress line. Local:
 * the caller agrees on the code. */
static cs_err decode_block(cs_ctx *ctx, const char *path, const uint8_t *graph, uint64_t nbytes,
                           cs_bv_params *p, const uint64_t *offsets, int64_t a, int64_t b,
                           cs_graph_slice *g)
{
    cs_progress prog;
    cs_progress_begin(&prog, ctx, "import: decoding", 0);
    prog.unit = "links";
    prog.interval = prog.interval > 5.0 ? 5.0 : prog.interval;
    cs_err rc = cs_bv_decode_range(ctx, path, graph, nbytes, p, offsets, a, b, &g->offsets,
                                   &g->targets, &prog);
    cs_progress_end(&prog);
    return rc;
}

/* At -v: per rank its pages, links, decode seconds (t_decode) and peak memory, printed by rank
 * 0. Collective. */
static cs_err log_ranks(cs_ctx *ctx, const cs_graph_slice *g, double t_decode)
{
    int64_t row[4] = {g->n, g->n_links_total, (int64_t)(t_decode * 1000.0), cs_imp_peak_rss()};
    int64_t *all = NULL;
    cs_err rc =
        cs_agree(ctx, cs_alloc(ctx, &all, (size_t)ctx->size * 4, sizeof *all, "rank table"));
    if (rc != CS_OK)
        return rc;
    cs_allgather(ctx, row, 4, all, CS_T_I64);
    for (int r = 0; r < ctx->size; r++)
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "import: rank %d: %lld pages, %lld links, decoded in %.2f s, peak memory "
               "%.1f MiB",
               r, (long long)all[4 * r], (long long)all[4 * r + 1], (double)all[4 * r + 2] / 1000.0,
               (double)all[4 * r + 3] / 1048576.0);
    free(all);
    return CS_OK;
}

cs_err cs_imp_bvgraph_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path, const char *spec,
                          int64_t *pages, int64_t *links, int64_t *hosts)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = &cfg->import;
    char path[CS_IMP_PATH_MAX];
    const uint8_t *graph = NULL;
    uint64_t nbytes = 0, *offsets = NULL;
    cs_bv_params p;
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_graph_slice_init(&g);
    cs_graph_meta_init(&meta);
    double t0 = cs_now();

    CS_TRY_AGREE(ctx, edge_path(ctx, cfg, path, sizeof path));
    CS_TRY_AGREE(ctx, cs_bv_open(ctx, path, ic->node_count, &p, &graph, &nbytes, &offsets));
    const int64_t N = p.nodes;
    if (N == 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: empty graph: no pages in the edge files", path);
    CS_TRY_AGREE(ctx, rc);
    const int scanned = offsets == NULL;
    if (scanned)
        CS_TRY(ctx, scan_offsets(ctx, path, graph, nbytes, &p, &offsets));
    double t_offsets = cs_now();
    int64_t a = 0, b = 0, arcs = 0;
    CS_TRY_AGREE(ctx, cs_bv_split(ctx, path, graph, nbytes, &p, offsets, ctx->size, ctx->rank, &a,
                                  &b, &arcs));
    double t_split = cs_now();
    CS_LOG(ctx, CS_LOG_VERBOSE,
           "import: %s: %lld nodes, %lld arcs, decoded on %d rank%s (offsets %s, %.2f s)", path,
           (long long)N, (long long)arcs, ctx->size, ctx->size == 1 ? "" : "s",
           scanned ? "found by a pass" : "read", t_offsets - t0);
    rc = decode_block(ctx, path, graph, nbytes, &p, offsets, a, b, &g);
    /* the input is no longer needed: unmapped before the page arrays are allocated */
    free(offsets);
    offsets = NULL;
    cs_bv_unmap(graph, nbytes);
    graph = NULL;
    CS_TRY_AGREE(ctx, rc);
    double t_decode = cs_now();

    g.n_pages_total = N;
    g.first = a;
    g.n = b - a;
    uint64_t self = ic->self_loops == 0 ? drop_self_loops(a, b - a, g.offsets, g.targets)
                                        : count_self_loops(a, b - a, g.offsets, g.targets);
    g.n_links_total = g.offsets[b - a];
    CS_TRY(ctx, cs_imp_par_meta(ctx, cfg, N, &g, &meta));

    uint64_t self_all = 0;
    int64_t mine = g.n_links_total, links_all = 0;
    cs_allreduce(ctx, &self, &self_all, 1, CS_T_U64, CS_OP_SUM);
    cs_allreduce(ctx, &mine, &links_all, 1, CS_T_I64, CS_OP_SUM);
    CS_TRY_AGREE(ctx, rc);
    double t_pages = cs_now();
    CS_LOG(ctx, CS_LOG_INFO, "import: %llu self-loop%s %s, 0 duplicate links merged",
           (unsigned long long)self_all, self_all == 1 ? "" : "s",
           ic->self_loops == 0 ? "dropped" : "kept");

    CS_TRY(ctx, cs_graphio_write(ctx, out_path, &g, &meta, spec));
    double t_write = cs_now();
    if (ctx->level >= CS_LOG_VERBOSE) {
        CS_TRY(ctx, log_ranks(ctx, &g, t_decode - t_split));
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "import: offsets %.2f s, cut %.2f s, decode %.2f s, pages %.2f s, write %.2f s",
               t_offsets - t0, t_split - t_offsets, t_decode - t_split, t_pages - t_decode,
               t_write - t_pages);
    }
    if (pages != NULL)
        *pages = N;
    if (links != NULL)
        *links = links_all;
    if (hosts != NULL)
        *hosts = meta.n_hosts;
fail:
    free(offsets);
    cs_bv_unmap(graph, nbytes);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    return rc;
}

cs_err cs_imp_par_meta(cs_ctx *ctx, const cs_config *cfg, int64_t N, cs_graph_slice *g,
                       cs_graph_meta *meta)
{
    const cs_import_config *ic = &cfg->import;
    cs_err rc = cs_agree(ctx, cs_imp_page_attributes(ctx, cfg, g));
    if (rc != CS_OK)
        return rc;
    meta->n_hosts = ic->hosts == CS_HOSTS_SINGLE ? 1 : N;
    g->n_hosts = meta->n_hosts;
    meta->n_topics = 0;
    meta->target_topic = -1;
    meta->seed = (uint64_t)cfg->gen.seed;
    cs_imp_source(meta->source, sizeof meta->source, cfg->path);
    if (ic->hosts == CS_HOSTS_NODE && ctx->rank == 0)
        rc = cs_imp_number_names(ctx, N, ic->id_base, meta);
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK)
        rc = cs_imp_block_hosts(ctx, cfg, N, g, meta);
    return rc;
}
