/*
 * import, building: the importer's state (read by import_parse.c) turned into a graph slice (CSR
 * links, hosts, topics, relevance, features, the [gen] model's change rates), and the
 * collective `crawlsim import` that writes it as a graph file.
 *
 * Rank 0 does all the reading of text files (sequential, often gzip) and of BVGraphs with page
 * tables; a BVGraph without them is read by every rank (import_bvpar.c), and so are integer
 * edge lists without them (import_textpar.c), both chosen in cs_import_run.
 * Links are collected as (source, target, weight) triples in geometrically grown arrays, then
 * turned into CSR by one counting sort on the source; each page's list is sorted (when it is
 * not already) and its duplicates merged. The other ranks take part only in the agreement on
 * the outcome and in the collective write, each with an empty slice.
 */
#include "crawlsim/comm.h"
#include "crawlsim/import.h"

#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "crawlsim/h5.h"
#include "crawlsim/rng.h"
#include "import_bvgraph.h"
#include "import_impl.h"

#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Building the graph */

cs_err cs_imp_resolve(cs_ctx *ctx, const cs_config *cfg, const char *item, char *path, size_t size)
{
    cs_import_resolve_path(cfg, item, path, size);
    if (path[0] == '\0' && strncmp(item, "@datasets/", 10) == 0)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] %s: '@datasets/' names the folder in the environment variable "
                       "CRAWLSIM_DATASETS, which is not set",
                       item);
    return CS_OK;
}

cs_err cs_imp_check_config(cs_ctx *ctx, const cs_import_config *ic)
{
    if (ic->edges[0] == '\0')
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] edges: no edge file given");
    if ((ic->edge_format == CS_EDGES_ADJACENCY_INDEXED || ic->edge_format == CS_EDGES_SUCCESSORS ||
         ic->edge_format == CS_EDGES_ASCIIGRAPH || ic->edge_format == CS_EDGES_BVGRAPH) &&
        ic->node_ids == CS_IDS_NAME)
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] edge_format = %s needs node_ids = integer",
                       cs_import_format_name(ic->edge_format));
    if (ic->edge_format == CS_EDGES_BVGRAPH && strchr(ic->edges, ',') != NULL)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] edge_format = bvgraph reads one graph: edges names its .graph "
                       "file");
    if (ic->page_ids == CS_PAGE_IDS_LINE && ic->node_ids == CS_IDS_NAME)
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] page_ids = line needs node_ids = integer");
    if (ic->node_count > 0 && ic->node_ids == CS_IDS_NAME)
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] node_count needs node_ids = integer");
    if (ic->weight_field != CS_FIELD_NONE && ic->edge_format != CS_EDGES_PAIRS)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] weight_field applies to edge_format = pairs only");
    if (ic->edge_format == CS_EDGES_PAIRS &&
        (ic->src_field == ic->dst_field || ic->src_field == ic->weight_field ||
         ic->dst_field == ic->weight_field))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] src_field, dst_field and weight_field must differ");
    int tables = ic->pages[0] != '\0';
    if (ic->page_features != CS_FEAT_NONE && !tables)
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] page_features needs a page table (pages)");
    if (ic->page_features == CS_FEAT_DENSE_BINARY && ic->page_features_count <= 0)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] page_features = dense-binary needs page_features_count > 0");
    if (ic->page_features_count > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "[import] page_features_count above 2^31 - 1");
    if (ic->hosts == CS_HOSTS_FIELD && (!tables || ic->page_host_field == CS_FIELD_NONE))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] hosts = field needs a page table (pages) and page_host_field");
    if (ic->edge_format == CS_EDGES_GML && ic->hosts == CS_HOSTS_URL && ic->gml_url[0] == '\0' &&
        (!tables || ic->page_url_field == CS_FIELD_NONE))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] edge_format = gml with hosts = url needs gml_url (the node "
                       "attribute holding the URL); or choose hosts = node, single or per-page");
    int gml_labels = ic->edge_format == CS_EDGES_GML && ic->gml_label[0] != '\0';
    if (ic->target_label[0] != '\0' && !gml_labels &&
        (!tables || ic->page_label_field == CS_FIELD_NONE))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] target_label needs a page table (pages) with page_label_field, "
                       "or edge_format = gml with gml_label");
    if (ic->hosts == CS_HOSTS_URL && (!tables || ic->page_url_field == CS_FIELD_NONE) &&
        ic->node_ids != CS_IDS_NAME && ic->edge_format != CS_EDGES_GML)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] hosts = url needs a page table with page_url_field, or node "
                       "names that are URLs (node_ids = name)");
    if ((ic->hosts == CS_HOSTS_BLOCKS) != (ic->host_spec[0] != '\0'))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] hosts = blocks needs host_spec (the generator spec whose hosts "
                       "lay out the blocks), and host_spec applies to hosts = blocks only");
    if (ic->page_relevance_field != CS_FIELD_NONE && (!tables || ic->target_label[0] != '\0'))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] page_relevance_field needs a page table (pages) and no "
                       "target_label (relevance comes from one or the other)");

    return CS_OK;
}

/* Sorts a[0, n) ascending: insertion sort for short lists, heap sort beyond (no recursion,
 * O(n log n) whatever the input). */
static void sort_u64(uint64_t *a, size_t n)
{
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            uint64_t v = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    for (size_t start = n / 2; start-- > 0;) {
        size_t root = start;
        for (;;) {
            size_t c = 2 * root + 1;
            if (c >= n)
                break;
            if (c + 1 < n && a[c + 1] > a[c])
                c++;
            if (a[root] >= a[c])
                break;
            uint64_t t = a[root];
            a[root] = a[c];
            a[c] = t;
            root = c;
        }
    }
    for (size_t end = n - 1; end > 0; end--) {
        uint64_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        size_t root = 0;
        for (;;) {
            size_t c = 2 * root + 1;
            if (c >= end)
                break;
            if (c + 1 < end && a[c + 1] > a[c])
                c++;
            if (a[root] >= a[c])
                break;
            t = a[root];
            a[root] = a[c];
            a[c] = t;
            root = c;
        }
    }
}

cs_err cs_imp_merge_lists(cs_ctx *ctx, const char *edges, int64_t first, int64_t n, int64_t *off,
                          uint64_t *key, int weighted, uint64_t *merged, cs_graph_slice *g)
{
    cs_err rc = CS_OK;
    size_t out = 0;
    for (int64_t i = 0; i < n; i++) {
        size_t b = (size_t)off[i], e = (size_t)off[i + 1];
        int sorted = 1;
        for (size_t j = b + 1; j < e && sorted; j++)
            sorted = key[j - 1] <= key[j];
        if (!sorted)
            sort_u64(key + b, e - b);
        size_t start = out;
        for (size_t j = b; j < e; j++) {
            if (out > start && (key[out - 1] >> 32) == (key[j] >> 32)) {
                uint64_t sum = (key[out - 1] & 0xffffffffu) + (key[j] & 0xffffffffu);
                if (sum > UINT32_MAX) {
                    rc = cs_fail(ctx, CS_ERR_LIMIT,
                                 "%s: the weights of link %lld -> %llu sum beyond 2^32 - 1", edges,
                                 (long long)(first + i), (unsigned long long)(key[j] >> 32));
                    goto fail;
                }
                key[out - 1] = (key[out - 1] & ~(uint64_t)0xffffffffu) | sum;
                (*merged)++;
            } else {
                key[out++] = key[j];
            }
        }
        off[i] = (int64_t)start;
    }
    off[n] = (int64_t)out;

    CS_TRY(ctx, cs_alloc(ctx, &g->targets, out, sizeof *g->targets, "link targets"));
    if (weighted)
        CS_TRY(ctx, cs_alloc(ctx, &g->weights, out, sizeof *g->weights, "link weights"));
    for (size_t k = 0; k < out; k++) {
        g->targets[k] = (int64_t)(key[k] >> 32);
        if (weighted)
            g->weights[k] = (uint32_t)(key[k] & 0xffffffffu);
    }
    free(key);
    g->offsets = off;
    g->n_links_total = (int64_t)out;
    return CS_OK;
fail:
    free(off);
    free(key);
    return rc;
}

/* CSR of the collected links: counting sort on the source into keys (target << 32 | weight),
 * then per page sort and merge of duplicates (cs_imp_merge_lists). Frees the triples. */
static cs_err build_links(cs_imp *im, int64_t n, cs_graph_slice *g)
{
    cs_err rc = CS_OK;
    cs_ctx *ctx = im->ctx;
    int64_t *off = NULL, *pos = NULL;
    uint64_t *key = NULL;
    size_t m = im->m;
    CS_TRY(ctx, cs_calloc(ctx, &off, (size_t)n + 1, sizeof *off, "link offsets"));
    CS_TRY(ctx, cs_alloc(ctx, &key, m, sizeof *key, "link sort keys"));
    for (size_t k = 0; k < m; k++)
        off[im->src[k] + 1]++;
    for (int64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    CS_TRY(ctx, cs_alloc(ctx, &pos, (size_t)n, sizeof *pos, "link offsets"));
    memcpy(pos, off, (size_t)n * sizeof *pos);
    for (size_t k = 0; k < m; k++)
        key[pos[im->src[k]]++] =
            (uint64_t)(uint32_t)im->dst[k] << 32 | (im->weighted ? im->w[k] : 0u);
    free(pos);
    pos = NULL;
    free(im->src);
    free(im->dst);
    free(im->w);
    im->src = im->dst = NULL;
    im->w = NULL;
    im->m = im->m_cap = 0;
    return cs_imp_merge_lists(ctx, im->ic->edges, 0, n, off, key, im->weighted, &im->n_merged, g);
fail:
    free(off);
    free(pos);
    free(key);
    return rc;
}

/* Copies a name table into a meta blob + offsets. */
static cs_err copy_names(cs_ctx *ctx, const cs_imp_strtab *t, char **blob, int64_t **offs)
{
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_alloc(ctx, blob, t->arena_len, 1, "name table"));
    CS_TRY(ctx, cs_alloc(ctx, offs, (size_t)t->n, sizeof **offs, "name table"));
    if (t->arena_len > 0)
        memcpy(*blob, t->arena, t->arena_len);
    if (t->n > 0)
        memcpy(*offs, t->off, (size_t)t->n * sizeof **offs);
    return CS_OK;
fail:
    free(*blob);
    *blob = NULL;
    return rc;
}

/* Host of every page and the host names, per the `hosts` key (blocks: per page here, laid out
 * by cs_imp_block_hosts once the graph is shared). */
static cs_err build_hosts(cs_imp *im, int64_t n, cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    cs_ctx *ctx = im->ctx;
    const cs_import_config *ic = im->ic;
    int32_t *remap = NULL;
    cs_imp_strtab numbers;
    cs_imp_strtab_init(&numbers);
    CS_TRY(ctx, cs_alloc(ctx, &g->host, (size_t)n, sizeof *g->host, "page hosts"));
    switch (ic->hosts == CS_HOSTS_BLOCKS ? CS_HOSTS_PER_PAGE : ic->hosts) {
    case CS_HOSTS_SINGLE:
        for (int64_t i = 0; i < n; i++)
            g->host[i] = 0;
        meta->n_hosts = 1;
        break;
    case CS_HOSTS_NODE:
    case CS_HOSTS_PER_PAGE:
        for (int64_t i = 0; i < n; i++)
            g->host[i] = i;
        meta->n_hosts = n;
        if (im->names) {
            CS_TRY(ctx, copy_names(ctx, &im->nodes, &meta->host_blob, &meta->host_name_off));
        } else if (ic->hosts == CS_HOSTS_NODE) {
            /* integer nodes: the host is named by the number as written */
            char num[32];
            for (int64_t i = 0; i < n; i++) {
                int32_t id;
                int l = snprintf(num, sizeof num, "%lld", (long long)(i + ic->id_base));
                CS_TRY(ctx, cs_imp_strtab_intern(ctx, &numbers, num, (size_t)l, &id, NULL,
                                                 "host names"));
            }
            CS_TRY(ctx, copy_names(ctx, &numbers, &meta->host_blob, &meta->host_name_off));
        }
        break;
    default: { /* url, field: host strings, renumbered by first page */
        for (int64_t i = 0; i < n; i++) {
            if (im->pg.host[i] >= 0)
                continue;
            if (ic->hosts == CS_HOSTS_URL && im->names) {
                const char *name = cs_imp_strtab_get(&im->nodes, (int32_t)i);
                const char *h;
                size_t hl;
                cs_imp_url_host(name, strlen(name), &h, &hl);
                if (hl == 0) {
                    rc = cs_fail(ctx, CS_ERR_FORMAT,
                                 "hosts = url: page '%.*s' has no page-table URL and its name is "
                                 "no URL with a host",
                                 cs_imp_quote_len(strlen(name)), name);
                    goto fail;
                }
                CS_TRY(ctx, cs_imp_intern_host(im, h, hl, 1, &im->pg.host[i]));
                continue;
            }
            rc = cs_fail(
                ctx, CS_ERR_FORMAT, "hosts = %s: page %lld%s%s%s has no line in the page tables %s",
                ic->hosts == CS_HOSTS_URL ? "url" : "field", (long long)i, im->names ? " ('" : "",
                im->names ? cs_imp_strtab_get(&im->nodes, (int32_t)i) : "", im->names ? "')" : "",
                ic->pages);
            goto fail;
        }
        /* host strings were interned in line order; hosts are numbered by their first page */
        int32_t nh = im->hosts.n, next = 0;
        CS_TRY(ctx, cs_alloc(ctx, &remap, 2 * (size_t)nh, sizeof *remap, "host numbering"));
        int32_t *order = remap + nh; /* order[host id] = host string */
        for (int32_t h = 0; h < nh; h++)
            remap[h] = -1;
        size_t bytes = 0;
        for (int64_t i = 0; i < n; i++) {
            int32_t h = im->pg.host[i];
            if (remap[h] < 0) {
                order[next] = h;
                remap[h] = next++;
                bytes += strlen(cs_imp_strtab_get(&im->hosts, h)) + 1;
            }
            g->host[i] = remap[h];
        }
        meta->n_hosts = next;
        CS_TRY(ctx, cs_alloc(ctx, &meta->host_blob, bytes, 1, "host names"));
        CS_TRY(ctx,
               cs_alloc(ctx, &meta->host_name_off, (size_t)next, sizeof(int64_t), "host names"));
        size_t at = 0;
        for (int32_t k = 0; k < next; k++) {
            const char *s = cs_imp_strtab_get(&im->hosts, order[k]);
            size_t l = strlen(s) + 1;
            memcpy(meta->host_blob + at, s, l);
            meta->host_name_off[k] = (int64_t)at;
            at += l;
        }
        break;
    }
    }
    g->n_hosts = meta->n_hosts;
    free(remap);
    cs_imp_strtab_fini(&numbers);
    return CS_OK;
fail:
    free(remap);
    cs_imp_strtab_fini(&numbers);
    return rc;
}

static cs_err build_features(cs_imp *im, int64_t n, cs_graph_slice *g)
{
    cs_err rc = CS_OK;
    cs_ctx *ctx = im->ctx;
    const cs_import_config *ic = im->ic;
    int64_t dim = ic->page_features == CS_FEAT_DENSE_BINARY || ic->page_features_count > 0
                      ? ic->page_features_count
                      : im->feat.dim;
    if (dim <= 0)
        return CS_OK; /* sparse features configured but none present */
    size_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += (size_t)im->pg.nfeat[i];
    CS_TRY(ctx, cs_alloc(ctx, &g->term_offsets, (size_t)n + 1, sizeof *g->term_offsets,
                         "feature offsets"));
    CS_TRY(ctx, cs_alloc(ctx, &g->term_index, total, sizeof *g->term_index, "feature indices"));
    CS_TRY(ctx, cs_alloc(ctx, &g->term_value, total, sizeof *g->term_value, "feature values"));
    size_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        g->term_offsets[i] = (int64_t)at;
        if (im->pg.nfeat[i] > 0) {
            size_t k = (size_t)im->pg.nfeat[i];
            memcpy(g->term_index + at, im->feat.idx + im->pg.feat[i], k * sizeof *g->term_index);
            memcpy(g->term_value + at, im->feat.val + im->pg.feat[i], k * sizeof *g->term_value);
            at += k;
        }
    }
    g->term_offsets[n] = (int64_t)at;
    g->term_dim = (int32_t)dim;
    return CS_OK;
fail:
    return rc;
}

const char *cs_import_format_name(int edge_format)
{
    static const char *const names[] = {
        "pairs", "adjacency", "adjacency-indexed", "successors", "asciigraph", "bvgraph", "gml"};
    return edge_format >= 0 && edge_format < (int)(sizeof names / sizeof names[0])
               ? names[edge_format]
               : "?";
}

/* Adds what was being read or built to a memory failure's message (cs_alloc and cs_grow name
 * only the array). */
static void nomem_context(cs_ctx *ctx, cs_err rc, const char *fmt, ...) CS_PRINTF(3, 4);
static void nomem_context(cs_ctx *ctx, cs_err rc, const char *fmt, ...)
{
    if (rc != CS_ERR_NOMEM || ctx->err != CS_ERR_NOMEM)
        return;
    size_t at = strnlen(ctx->errmsg, sizeof ctx->errmsg - 1);
    if (at + 3 >= sizeof ctx->errmsg)
        return;
    memcpy(ctx->errmsg + at, ", ", 3);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->errmsg + at + 2, sizeof ctx->errmsg - at - 2, fmt, ap);
    va_end(ap);
}

/* "FILE:LINE" of the largest integer node id, for messages. */
static void max_id_where(const cs_imp *im, char *out, size_t size)
{
    if (im->seen.max_id < 0 || im->seen.files.n == 0)
        snprintf(out, size, "?");
    else
        snprintf(out, size, "%.*s:%lld", CS_IMP_PATH_MAX,
                 cs_imp_strtab_get(&im->seen.files, im->seen.max_id_file),
                 (long long)im->seen.max_id_line);
}

void cs_imp_fini(cs_imp *im)
{
    cs_imp_strtab_fini(&im->seen.files);
    free(im->src_seen);
    cs_imp_strtab_fini(&im->nodes);
    cs_imp_strtab_fini(&im->hosts);
    cs_imp_strtab_fini(&im->topics);
    free(im->src);
    free(im->dst);
    free(im->w);
    free(im->pg.host);
    free(im->pg.topic);
    free(im->pg.rel);
    free(im->pg.score);
    free(im->rev);
    free(im->pg.feat);
    free(im->pg.nfeat);
    free(im->feat.idx);
    free(im->feat.val);
    free(im->fields);
    free(im->low);
    memset(im, 0, sizeof *im);
}

/* A BVGraph (edges = its .graph file) decoded and added as links; ids are below its node
 * count by construction (the decoder checks them). */
static cs_err read_bvgraph(cs_imp *im, const char *path)
{
    cs_err rc = CS_OK;
    int64_t n = 0, *off = NULL;
    int32_t *tgt = NULL;
    CS_TRY(im->ctx, cs_imp_file_begin(im, path));
    CS_TRY(im->ctx, cs_bv_read_graph(im->ctx, path, im->ic->node_count, &n, &off, &tgt));
    CS_LOG(im->ctx, CS_LOG_VERBOSE, "import: %s: %lld nodes, %lld arcs decoded", path, (long long)n,
           (long long)off[n]);
    rc = cs_imp_add_csr(im, n, off, tgt);
fail:
    free(off);
    free(tgt);
    return rc;
}

enum { LIST_PAGE_LIST, LIST_PAGES, LIST_EDGES };

static cs_err read_one(cs_imp *im, const char *path, int kind, cs_progress *prog, uint64_t *done)
{
    if (kind == LIST_EDGES && im->ic->edge_format == CS_EDGES_BVGRAPH)
        return read_bvgraph(im, path);
    if (kind == LIST_EDGES && im->ic->edge_format == CS_EDGES_GML)
        return cs_imp_read_gml(im, path, prog, done);
    if (kind == LIST_EDGES)
        return cs_imp_read_edge_file(im, path, prog, done);
    return cs_imp_read_page_file(im, path, kind == LIST_PAGE_LIST, prog, done);
}

/* Reads the files of a comma-separated [import] list in order; an item with a wildcard (*, ?,
 * [) stands for the files it matches, in sorted order (several parts of one graph). */
static cs_err read_list(cs_imp *im, const cs_config *cfg, const char *list, int kind,
                        cs_progress *prog, uint64_t *done)
{
    cs_err rc = CS_OK;
    char item[CS_IMP_PATH_MAX], path[CS_IMP_PATH_MAX];
    for (const char *p = list; rc == CS_OK && cs_imp_next_item(&p, item, sizeof item);) {
        CS_TRY(im->ctx, cs_imp_resolve(im->ctx, cfg, item, path, sizeof path));
        if (strpbrk(path, "*?[") == NULL) {
            rc = read_one(im, path, kind, prog, done);
            continue;
        }
        glob_t gl;
        int g = glob(path, GLOB_ERR, NULL, &gl);
        if (g == GLOB_NOMATCH)
            rc = cs_fail(im->ctx, CS_ERR_IO, "%s: no file matches", path);
        else if (g != 0)
            rc = cs_fail(im->ctx, g == GLOB_NOSPACE ? CS_ERR_NOMEM : CS_ERR_IO,
                         "%s: cannot list the matching files", path);
        else if (kind == LIST_EDGES && im->ic->edge_format == CS_EDGES_BVGRAPH && gl.gl_pathc > 1)
            rc = cs_fail(im->ctx, CS_ERR_CONFIG,
                         "[import] edge_format = bvgraph reads one graph, but %s matches %zu "
                         "files",
                         path, (size_t)gl.gl_pathc);
        for (size_t i = 0; rc == CS_OK && g == 0 && i < (size_t)gl.gl_pathc; i++)
            rc = read_one(im, gl.gl_pathv[i], kind, prog, done);
        if (g == 0)
            globfree(&gl);
    }
    return rc;
fail:
    return rc;
}

/* The reading state of an import, before any file is read (import_impl.h). */
void cs_imp_start(cs_imp *im, cs_ctx *ctx, const cs_import_config *ic)
{
    memset(im, 0, sizeof *im);
    im->ctx = ctx;
    im->ic = ic;
    im->names = ic->node_ids == CS_IDS_NAME || ic->edge_format == CS_EDGES_GML;
    im->weighted = ic->edge_format == CS_EDGES_PAIRS && ic->weight_field != CS_FIELD_NONE;
    cs_imp_seps_init(&im->eseps, ic->separators);
    cs_imp_seps_init(&im->pseps, ic->page_separators);
    im->comment_len = strlen(ic->comment);
    cs_imp_strtab_init(&im->nodes);
    cs_imp_strtab_init(&im->hosts);
    cs_imp_strtab_init(&im->topics);
    cs_imp_strtab_init(&im->seen.files);
    im->limit = ic->node_count > 0 ? ic->node_count : -1;
    im->n_pages = ic->node_count;
    im->seen.max_id = -1;
}

/* The page tables, then the edge files, read with a progress line. */
static cs_err read_lists(cs_imp *im, const cs_config *cfg)
{
    const cs_import_config *ic = im->ic;
    cs_progress prog;
    uint64_t done = 0;
    cs_progress_begin(&prog, im->ctx, "import: reading",
                      cs_imp_list_bytes(cfg, ic->page_list) + cs_imp_list_bytes(cfg, ic->pages) +
                          cs_imp_list_bytes(cfg, ic->edges));
    cs_err rc = read_list(im, cfg, ic->page_list, LIST_PAGE_LIST, &prog, &done);
    if (rc == CS_OK)
        rc = read_list(im, cfg, ic->pages, LIST_PAGES, &prog, &done);
    if (rc == CS_OK)
        rc = read_list(im, cfg, ic->edges, LIST_EDGES, &prog, &done);
    nomem_context(im->ctx, rc, "while reading %s:%lld", im->file != NULL ? im->file : "?",
                  (long long)im->line);
    if (rc == CS_OK)
        cs_progress_end(&prog);
    return rc;
}

/* Ids beyond the count implied by the lines of the edge files, or declared by a header that the
 * page tables were read before, refused unless new_ids = allow. `where` names the largest id's
 * line. */
static cs_err check_ids(const cs_imp *im, const char *where)
{
    const cs_import_config *ic = im->ic;
    int indexed =
        ic->edge_format == CS_EDGES_ADJACENCY_INDEXED || ic->edge_format == CS_EDGES_SUCCESSORS;
    int64_t count = im->limit >= 0 ? im->limit : indexed ? im->adj_next : -1;
    if (im->names || count < 0 || im->seen.max_id < count || ic->new_ids != CS_NEW_IDS_ERROR)
        return CS_OK;
    if (im->seen.max_id_table)
        return cs_fail(im->ctx, CS_ERR_FORMAT,
                       "%s: page %lld is beyond the node count %lld of the edge files %s (%s; "
                       "new_ids = allow keeps such pages, without links)",
                       where, (long long)(im->seen.max_id + ic->id_base), (long long)count,
                       ic->edges,
                       ic->page_ids == CS_PAGE_IDS_LINE ? "page_ids = line: line i is page i"
                                                        : "an id of the page tables");
    return cs_fail(im->ctx, CS_ERR_FORMAT,
                   "%s: node id %lld is beyond the node count %lld (edge_format = %s: the "
                   "edge files have %lld lines, line i is page i; new_ids = allow makes "
                   "new pages)",
                   where, (long long)(im->seen.max_id + ic->id_base), (long long)count,
                   cs_import_format_name(ic->edge_format), (long long)im->adj_next);
}

/* A graph with pages, and a target label that some page carries. */
static cs_err check_pages(const cs_imp *im, int64_t n)
{
    const cs_import_config *ic = im->ic;
    if (n == 0)
        return cs_fail(im->ctx, CS_ERR_FORMAT, "%s: empty graph: no pages in the edge files%s%s",
                       ic->edges, ic->pages[0] ? " or page tables " : "", ic->pages);
    if (ic->target_label[0] != '\0' && !im->any_label_match)
        return cs_fail(im->ctx, CS_ERR_CONFIG,
                       "[import] target_label = '%s' matches no label in the page tables %s%s%s%s",
                       ic->target_label, ic->pages, im->topics.n > 0 ? " (labels look like '" : "",
                       im->topics.n > 0 ? cs_imp_strtab_get(&im->topics, 0) : "",
                       im->topics.n > 0 ? "')" : "");
    return CS_OK;
}

/* The pages' topics and relevance from the tables, their dynamics drawn as the generator's,
 * and their features. */
static cs_err page_attributes(cs_imp *im, const cs_config *cfg, int64_t n, cs_graph_slice *g)
{
    cs_ctx *ctx = im->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_alloc(ctx, &g->topic, (size_t)n, sizeof *g->topic, "page topics"));
    CS_TRY(ctx, cs_alloc(ctx, &g->relevance, (size_t)n, sizeof *g->relevance, "page relevance"));
    CS_TRY(ctx, cs_alloc(ctx, &g->delta, (size_t)n, sizeof *g->delta, "page change rates"));
    CS_TRY(ctx, cs_alloc(ctx, &g->mu, (size_t)n, sizeof *g->mu, "page importance"));
    CS_TRY(ctx,
           cs_alloc(ctx, &g->observable, (size_t)n, sizeof *g->observable, "page observability"));
    for (int64_t i = 0; i < n; i++) {
        g->topic[i] = im->pg.topic[i];
        g->relevance[i] = !isnan(im->pg.score[i]) ? im->pg.score[i] : im->pg.rel[i] ? 1.0 : 0.0;
        cs_gen_page_dynamics(&cfg->gen, g->host[i], i, CS_RNG_IMPORT, &g->delta[i], &g->mu[i],
                             &g->observable[i]);
    }
    if (im->ic->page_features != CS_FEAT_NONE)
        CS_TRY(ctx, build_features(im, n, g));
fail:
    return rc;
}

/* The graph's metadata: topics and their names, the target topic, the source, the seed. */
void cs_imp_source(char *buf, size_t cap, const char *path)
{
    static const char head[] = "import:", cut[] = "import:...";
    const char *p = path[0] != '\0' ? path : "(no spec file)";
    const size_t n = strlen(p);
    if (sizeof head - 1 + n < cap) {
        snprintf(buf, cap, "%s%s", head, p);
        return;
    }
    const size_t keep = cap - sizeof cut; /* the path's last bytes after the marker, and '\0' */
    snprintf(buf, cap, "%s%s", cut, p + (n - keep));
}

static cs_err import_meta(cs_imp *im, const cs_config *cfg, cs_graph_slice *g, cs_graph_meta *meta)
{
    const cs_import_config *ic = im->ic;
    meta->n_topics = im->topics.n;
    g->n_topics = im->topics.n;
    meta->target_topic =
        ic->target_label[0] != '\0'
            ? cs_imp_strtab_find(&im->topics, ic->target_label, strlen(ic->target_label))
            : -1;
    cs_imp_source(meta->source, sizeof meta->source, cfg->path);
    meta->seed = (uint64_t)cfg->gen.seed;
    if (im->topics.n > 0)
        return copy_names(im->ctx, &im->topics, &meta->topic_blob, &meta->topic_name_off);
    return CS_OK;
}

cs_err cs_import_read(cs_ctx *ctx, const cs_config *cfg, cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = &cfg->import;
    double t0 = cs_now();
    cs_imp im;
    cs_imp_start(&im, ctx, ic);
    cs_graph_slice_init(g);
    cs_graph_meta_init(meta);
    CS_TRY(ctx, cs_imp_check_config(ctx, ic));
    CS_TRY(ctx, read_lists(&im, cfg));
    double t_read = cs_now();

    char where[CS_IMP_PATH_MAX + 32];
    max_id_where(&im, where, sizeof where);
    CS_TRY(ctx, check_ids(&im, where));
    int64_t n = im.names ? (int64_t)im.nodes.n : im.n_pages;
    CS_TRY(ctx, check_pages(&im, n));
    g->n_pages_total = n;
    g->first = 0;
    g->n = n;
    g->link_first = 0;
    size_t m_read = im.m;
    rc = cs_imp_ensure_pages(&im, (size_t)n);
    if (rc == CS_OK)
        rc = build_links(&im, n, g);
    if (rc == CS_OK)
        rc = build_hosts(&im, n, g, meta);
    if (im.names)
        nomem_context(ctx, rc, "building %lld pages and %zu links", (long long)n, m_read);
    else
        nomem_context(ctx, rc,
                      "building %lld pages (the largest node id, %lld, is at %s) and %zu links",
                      (long long)n, (long long)(im.seen.max_id + ic->id_base), where, m_read);
    CS_TRY(ctx, rc);
    CS_TRY(ctx, page_attributes(&im, cfg, n, g));
    CS_TRY(ctx, import_meta(&im, cfg, g, meta));

    /* What was changed in the data is part of the result: shown at the default level. */
    CS_LOG(ctx, CS_LOG_INFO, "import: %llu self-loop%s %s, %llu duplicate link%s merged",
           (unsigned long long)im.n_self, im.n_self == 1 ? "" : "s",
           ic->self_loops == 0 ? "dropped" : "kept", (unsigned long long)im.n_merged,
           im.n_merged == 1 ? "" : "s");
    CS_LOG(ctx, CS_LOG_VERBOSE, "import: read %.2f s, built %.2f s", t_read - t0,
           cs_now() - t_read);
    cs_imp_fini(&im);
    return CS_OK;
fail:
    cs_imp_fini(&im);
    cs_graph_slice_fini(g);
    cs_graph_meta_fini(meta);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* The collective part */

/* Broadcasts bytes from rank 0 in pieces that fit MPI's int counts. */
static cs_err bcast_bytes(cs_ctx *ctx, void *p, size_t bytes)
{
    char *c = p;
    const size_t piece = (size_t)1 << 30;
    for (size_t at = 0; at < bytes; at += piece) {
        size_t k = bytes - at < piece ? bytes - at : piece;
        cs_bcast(ctx, c + at, (int)k, CS_T_BYTE, 0);
    }
    return CS_OK;
}

/* What the other ranks need to know of rank 0's result. */
typedef struct shape {
    int64_t n_pages, n_links, n_hosts, host_bytes, topic_bytes;
    uint64_t seed;
    int32_t n_topics, target_topic, term_dim;
    int32_t has_weights, has_terms, has_host_names, has_topic_names;
    char source[256];
} shape;

/* Collective. Gives the ranks other than 0 rank 0's meta and an empty slice at the end of the
 * page range, with the same optional arrays present. */
static cs_err share(cs_ctx *ctx, cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    shape s;
    memset(&s, 0, sizeof s);
    if (ctx->rank == 0) {
        s.n_pages = g->n_pages_total;
        s.n_links = g->n_links_total;
        s.n_hosts = meta->n_hosts;
        s.n_topics = meta->n_topics;
        s.target_topic = meta->target_topic;
        s.term_dim = g->term_dim;
        s.seed = meta->seed;
        s.has_weights = g->weights != NULL;
        s.has_terms = g->term_offsets != NULL;
        s.has_host_names = meta->host_blob != NULL;
        s.has_topic_names = meta->topic_blob != NULL;
        if (s.has_host_names)
            s.host_bytes = meta->host_name_off[meta->n_hosts - 1] +
                           (int64_t)strlen(cs_graph_meta_host_name(meta, meta->n_hosts - 1)) + 1;
        if (s.has_topic_names)
            s.topic_bytes = meta->topic_name_off[meta->n_topics - 1] +
                            (int64_t)strlen(cs_graph_meta_topic_name(meta, meta->n_topics - 1)) + 1;
        memcpy(s.source, meta->source, sizeof s.source);
    }
    CS_TRY(ctx, bcast_bytes(ctx, &s, sizeof s));
    rc = CS_OK;
    if (ctx->rank != 0) {
        meta->n_hosts = s.n_hosts;
        meta->n_topics = s.n_topics;
        meta->target_topic = s.target_topic;
        meta->seed = s.seed;
        memcpy(meta->source, s.source, sizeof meta->source);
        meta->source[sizeof meta->source - 1] = '\0';
        rc = cs_graph_slice_alloc(ctx, g, 0, 0);
        if (rc == CS_OK && s.has_weights)
            rc = cs_alloc(ctx, &g->weights, 0, sizeof *g->weights, "link weights");
        if (rc == CS_OK && s.has_terms)
            rc = cs_calloc(ctx, &g->term_offsets, 1, sizeof *g->term_offsets, "features");
        if (rc == CS_OK && s.has_terms)
            rc = cs_alloc(ctx, &g->term_index, 0, sizeof *g->term_index, "features");
        if (rc == CS_OK && s.has_terms)
            rc = cs_alloc(ctx, &g->term_value, 0, sizeof *g->term_value, "features");
        if (rc == CS_OK && s.has_host_names)
            rc = cs_alloc(ctx, &meta->host_blob, (size_t)s.host_bytes, 1, "host names");
        if (rc == CS_OK && s.has_host_names)
            rc = cs_alloc(ctx, &meta->host_name_off, (size_t)s.n_hosts, sizeof(int64_t),
                          "host names");
        if (rc == CS_OK && s.has_topic_names)
            rc = cs_alloc(ctx, &meta->topic_blob, (size_t)s.topic_bytes, 1, "topic names");
        if (rc == CS_OK && s.has_topic_names)
            rc = cs_alloc(ctx, &meta->topic_name_off, (size_t)s.n_topics, sizeof(int64_t),
                          "topic names");
        g->n_pages_total = s.n_pages;
        g->n_links_total = s.n_links;
        g->n_hosts = s.n_hosts;
        g->n_topics = s.n_topics;
        g->first = s.n_pages;
        g->n = 0;
        g->term_dim = s.term_dim;
    }
    CS_TRY(ctx, cs_agree(ctx, rc));
    if (s.has_host_names) {
        CS_TRY(ctx, bcast_bytes(ctx, meta->host_blob, (size_t)s.host_bytes));
        CS_TRY(ctx, bcast_bytes(ctx, meta->host_name_off, (size_t)s.n_hosts * sizeof(int64_t)));
    }
    if (s.has_topic_names) {
        CS_TRY(ctx, bcast_bytes(ctx, meta->topic_blob, (size_t)s.topic_bytes));
        CS_TRY(ctx, bcast_bytes(ctx, meta->topic_name_off, (size_t)s.n_topics * sizeof(int64_t)));
    }
    return CS_OK;
fail:
    return rc;
}

/* Collective. The output is none of the files the import reads (the spec, the page lists,
 * page tables and edge files, a BVGraph's .properties and .offsets beside its .graph) and can
 * be created (cs_h5_check_outputs). */
static cs_err check_output(cs_ctx *ctx, const cs_config *cfg, const char *out_path)
{
    const cs_import_config *ic = &cfg->import;
    const char *lists[3] = {ic->page_list, ic->pages, ic->edges};
    const char *kinds[3] = {"page list", "page table", "edge file"};
    char item[CS_IMP_PATH_MAX];
    const int bv = ic->edge_format == CS_EDGES_BVGRAPH;
    int n = 1 + 2 * bv;
    for (int l = 0; l < 3; l++)
        for (const char *p = lists[l]; cs_imp_next_item(&p, item, sizeof item);)
            n++;
    char *paths = NULL;
    cs_h5_file *ins = NULL;
    cs_err rc = cs_alloc(ctx, &paths, (size_t)n, CS_IMP_PATH_MAX, "input names");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &ins, (size_t)n, sizeof *ins, "input names");
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK) {
        ins[0] = (cs_h5_file){"import spec", cfg->path[0] ? cfg->path : NULL};
        int i = 1;
        for (int l = 0; l < 3; l++)
            for (const char *p = lists[l]; cs_imp_next_item(&p, item, sizeof item); i++) {
                char *path = paths + (size_t)i * CS_IMP_PATH_MAX;
                cs_import_resolve_path(cfg, item, path, CS_IMP_PATH_MAX);
                ins[i] = (cs_h5_file){kinds[l], path};
            }
        /* the companions a BVGraph import reads beside BASENAME.graph (src/import/import_bvpar.c)
         */
        static const char *const sfx[2] = {".properties", ".offsets"};
        for (int k = 0; bv && k < 2; k++, i++) {
            char *path = paths + (size_t)i * CS_IMP_PATH_MAX;
            cs_import_resolve_path(cfg, ic->edges, path, CS_IMP_PATH_MAX);
            size_t l = strlen(path);
            if (l >= 6 && strcmp(path + l - 6, ".graph") == 0)
                path[l -= 6] = '\0';
            snprintf(path + l, CS_IMP_PATH_MAX - l, "%s", sfx[k]);
            ins[i] = (cs_h5_file){k == 0 ? "BVGraph properties" : "BVGraph offsets", path};
        }
        const cs_h5_file out = {"graph file", out_path};
        rc = cs_h5_check_outputs(ctx, &out, 1, ins, n);
    }
    free(ins);
    free(paths);
    return rc;
}

/* ---- temporaries of killed imports ---- */

/* Local (rank 0). A warning naming the temporaries that earlier imports killed by SIGKILL (or a
 * crash) left beside out_path (a signal that can be caught removes it: cs_h5_tmp_guard in
 * cs_graphio_write). */
static void temporaries(cs_ctx *ctx, const char *out_path)
{
    const char *slash = strrchr(out_path, '/');
    int dl = slash != NULL ? (int)(slash - out_path) : 0;
    const char *base = slash != NULL ? slash + 1 : out_path;
    char pattern[CS_IMP_PATH_MAX + 64];
    if (slash != NULL)
        snprintf(pattern, sizeof pattern, "%.*s/.%s.tmp.*", dl, out_path, base);
    else
        snprintf(pattern, sizeof pattern, ".%s.tmp.*", base);
    glob_t gl;
    if (glob(pattern, 0, NULL, &gl) != 0)
        return;
    for (size_t i = 0; i < (size_t)gl.gl_pathc; i++) {
        struct stat st;
        double mib = stat(gl.gl_pathv[i], &st) == 0 ? (double)st.st_size / 1048576.0 : 0.0;
        CS_LOG(ctx, CS_LOG_WARN,
               "%s (%.1f MiB) is the temporary of an earlier write of %s that was killed (or of "
               "one still running): remove it if none is",
               gl.gl_pathv[i], mib, out_path);
    }
    globfree(&gl);
}

cs_err cs_import_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path)
{
    cs_err rc = CS_OK;
    cs_graph_slice g;
    cs_graph_meta meta;
    char *spec = NULL;
    double t0 = cs_now();
    rc = check_output(ctx, cfg, out_path); /* agreed */
    if (rc != CS_OK)
        return rc;
    cs_graph_slice_init(&g);
    cs_graph_meta_init(&meta);
    if (ctx->rank == 0)
        temporaries(ctx, out_path);
    const char *why = NULL;
    if (cs_imp_bvgraph_parallel(&cfg->import, &why)) {
        int64_t np = 0, nl = 0, nh = 0;
        CS_TRY(ctx, cs_agree(ctx, cs_config_to_ini(ctx, cfg, NULL, &spec)));
        CS_TRY(ctx, cs_imp_bvgraph_run(ctx, cfg, out_path, spec, &np, &nl, &nh));
        CS_LOG(ctx, CS_LOG_INFO,
               "import: %lld pages, %lld links, %lld hosts, 0 topics -> %s (%d rank%s, %.2f s)",
               (long long)np, (long long)nl, (long long)nh, out_path, ctx->size,
               ctx->size == 1 ? "" : "s", cs_now() - t0);
        goto fail;
    }
    if (cs_imp_text_parallel(&cfg->import, NULL)) {
        int64_t np = 0, nl = 0, nh = 0;
        CS_TRY(ctx, cs_agree(ctx, cs_config_to_ini(ctx, cfg, NULL, &spec)));
        CS_TRY(ctx, cs_imp_text_run(ctx, cfg, out_path, spec, &np, &nl, &nh));
        CS_LOG(ctx, CS_LOG_INFO,
               "import: %lld pages, %lld links, %lld hosts, 0 topics -> %s (%d rank%s, %.2f s)",
               (long long)np, (long long)nl, (long long)nh, out_path, ctx->size,
               ctx->size == 1 ? "" : "s", cs_now() - t0);
        goto fail;
    }
    if (cfg->import.edge_format == CS_EDGES_BVGRAPH && ctx->size > 1)
        CS_LOG(ctx, CS_LOG_INFO, "import: read on rank 0 only: %s", why);
    else if (ctx->size > 1 && !cs_imp_text_parallel(&cfg->import, &why))
        CS_LOG(ctx, CS_LOG_VERBOSE, "import: read on rank 0 only: %s", why);
    if (ctx->rank == 0)
        rc = cs_import_read(ctx, cfg, &g, &meta);
    if (rc == CS_OK)
        rc = cs_config_to_ini(ctx, cfg, NULL, &spec);
    CS_TRY(ctx, cs_agree(ctx, rc));
    double t_read = cs_now();
    CS_TRY(ctx, share(ctx, &g, &meta));
    CS_TRY(ctx, cs_imp_block_hosts(ctx, cfg, g.n_pages_total, &g, &meta));
    CS_TRY(ctx, cs_graphio_write(ctx, out_path, &g, &meta, spec));
    CS_LOG(ctx, CS_LOG_INFO,
           "import: %lld pages, %lld links, %lld hosts, %d topics -> %s (read %.2f s, write "
           "%.2f s)",
           (long long)g.n_pages_total, (long long)g.n_links_total, (long long)meta.n_hosts,
           (int)meta.n_topics, out_path, t_read - t0, cs_now() - t_read);
fail:
    free(spec);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    return rc;
}
