/*
 * import, GML: graphs in the Graph Modelling Language (M. Himsolt, "GML: A portable Graph File
 * Format", Universität Passau, 1996), the format of many classic network datasets (political
 * blogs, ...): `graph [ directed 1 node [ id 7 label "x" ... ] edge [ source 7 target 9 ] ]`.
 *
 * Nodes are named by their id (pages numbered in the order of the node list); a node attribute
 * named by gml_label becomes the page's label (topics, target_label), one named by gml_url its
 * URL (hosts = url). Edges link source to target, in both directions when the graph is not
 * directed (GML's default). Lists that are not nodes or edges, and attributes not asked for,
 * are skipped. Strings are double-quoted on one line.
 */
#include "import_impl.h"

#include <stdlib.h>
#include <string.h>

enum { K_TOP, K_GRAPH, K_NODE, K_EDGE, K_OTHER };

#define GML_DEPTH 64

typedef struct gml {
    cs_imp *im;
    int stack[GML_DEPTH];
    int depth;
    char key[64];
    int have_key;
    int directed;
    /* the node or edge being read: its values (copies: lines are reused) */
    char id[256], label[1024], url[4096], src[256], dst[256];
    int have_id, have_label, have_url, have_src, have_dst;
} gml;

static cs_err gml_bad(cs_imp *im, const char *what, const char *tok, size_t n)
{
    return cs_fail(im->ctx, CS_ERR_FORMAT, "%s:%lld: %s '%.*s'", im->file, (long long)im->line,
                   what, cs_imp_quote_len(n), tok);
}

/* Copies a value into a record buffer; too long is an error. */
static cs_err keep(cs_imp *im, char *dst, size_t cap, int *have, const char *v, size_t n)
{
    if (n >= cap)
        return gml_bad(im, "value too long", v, n);
    memcpy(dst, v, n);
    dst[n] = '\0';
    *have = 1;
    return CS_OK;
}

static cs_err end_node(gml *G)
{
    cs_err rc = CS_OK;
    cs_imp *im = G->im;
    if (!G->have_id)
        return cs_fail(im->ctx, CS_ERR_FORMAT, "%s:%lld: a node without an id", im->file,
                       (long long)im->line);
    int32_t page;
    CS_TRY(im->ctx, cs_imp_strtab_intern(im->ctx, &im->nodes, G->id, strlen(G->id), &page, NULL,
                                         "node names"));
    CS_TRY(im->ctx, cs_imp_ensure_pages(im, (size_t)page + 1));
    if (G->have_url && im->pg.host[page] < 0 && im->ic->hosts == CS_HOSTS_URL)
        CS_TRY(im->ctx, cs_imp_url_host_id(im, G->url, strlen(G->url), &im->pg.host[page]));
    if (G->have_label)
        CS_TRY(im->ctx, cs_imp_page_label(im, page, G->label, strlen(G->label)));
    return CS_OK;
fail:
    return rc;
}

static cs_err end_edge(gml *G)
{
    cs_err rc = CS_OK;
    cs_imp *im = G->im;
    if (!G->have_src || !G->have_dst)
        return cs_fail(im->ctx, CS_ERR_FORMAT, "%s:%lld: an edge without %s", im->file,
                       (long long)im->line, G->have_src ? "a target" : "a source");
    const char *ends[2] = {G->src, G->dst};
    int32_t p[2];
    for (int i = 0; i < 2; i++) {
        if (im->ic->new_ids == CS_NEW_IDS_ERROR &&
            cs_imp_strtab_find(&im->nodes, ends[i], strlen(ends[i])) < 0)
            return gml_bad(im,
                           i == 0 ? "the edge's source is no node of the file (new_ids = allow "
                                    "makes it one):"
                                  : "the edge's target is no node of the file (new_ids = allow "
                                    "makes it one):",
                           ends[i], strlen(ends[i]));
        CS_TRY(im->ctx, cs_imp_node_id(im, ends[i], strlen(ends[i]), "edge", &p[i]));
    }
    CS_TRY(im->ctx, cs_imp_add_link(im, p[0], p[1]));
    if (!G->directed && p[0] != p[1])
        CS_TRY(im->ctx, cs_imp_add_link(im, p[1], p[0]));
    return CS_OK;
fail:
    return rc;
}

/* One token: a key, a value (number, word or string without its quotes), '[' or ']'. */
static cs_err token(gml *G, const char *t, size_t n, int quoted)
{
    cs_err rc = CS_OK;
    cs_imp *im = G->im;
    const int kind = G->depth > 0 ? G->stack[G->depth - 1] : K_TOP;
    if (!G->have_key) {
        if (!quoted && n == 1 && t[0] == ']') {
            if (G->depth == 0)
                return gml_bad(im, "unbalanced", t, n);
            G->depth--;
            if (kind == K_NODE)
                CS_TRY(im->ctx, end_node(G));
            else if (kind == K_EDGE)
                CS_TRY(im->ctx, end_edge(G));
            return CS_OK;
        }
        if (quoted || n == 0 || n >= sizeof G->key || t[0] == '[')
            return gml_bad(im, "expected a key, found", t, n);
        memcpy(G->key, t, n);
        G->key[n] = '\0';
        G->have_key = 1;
        return CS_OK;
    }
    G->have_key = 0;
    if (!quoted && n == 1 && t[0] == '[') {
        if (G->depth == GML_DEPTH)
            return gml_bad(im, "lists nested too deep at", G->key, strlen(G->key));
        int k = K_OTHER;
        if (kind == K_TOP && strcmp(G->key, "graph") == 0)
            k = K_GRAPH;
        else if (kind == K_GRAPH && strcmp(G->key, "node") == 0)
            k = K_NODE;
        else if (kind == K_GRAPH && strcmp(G->key, "edge") == 0)
            k = K_EDGE;
        if (k == K_NODE)
            G->have_id = G->have_label = G->have_url = 0;
        if (k == K_EDGE)
            G->have_src = G->have_dst = 0;
        G->stack[G->depth++] = k;
        return CS_OK;
    }
    const cs_import_config *ic = im->ic;
    if (kind == K_GRAPH && strcmp(G->key, "directed") == 0)
        G->directed = !(n == 1 && t[0] == '0');
    else if (kind == K_NODE && strcmp(G->key, "id") == 0)
        CS_TRY(im->ctx, keep(im, G->id, sizeof G->id, &G->have_id, t, n));
    else if (kind == K_NODE && ic->gml_label[0] != '\0' && strcmp(G->key, ic->gml_label) == 0)
        CS_TRY(im->ctx, keep(im, G->label, sizeof G->label, &G->have_label, t, n));
    else if (kind == K_NODE && ic->gml_url[0] != '\0' && strcmp(G->key, ic->gml_url) == 0)
        CS_TRY(im->ctx, keep(im, G->url, sizeof G->url, &G->have_url, t, n));
    else if (kind == K_EDGE && strcmp(G->key, "source") == 0)
        CS_TRY(im->ctx, keep(im, G->src, sizeof G->src, &G->have_src, t, n));
    else if (kind == K_EDGE && strcmp(G->key, "target") == 0)
        CS_TRY(im->ctx, keep(im, G->dst, sizeof G->dst, &G->have_dst, t, n));
    return CS_OK;
fail:
    return rc;
}

cs_err cs_imp_read_gml(cs_imp *im, const char *path, cs_progress *prog, uint64_t *prog_base)
{
    cs_err rc = CS_OK;
    cs_imp_reader r;
    char *line;
    size_t len;
    gml *G = NULL;
    CS_TRY(im->ctx, cs_imp_file_begin(im, path));
    CS_TRY(im->ctx, cs_calloc(im->ctx, &G, 1, sizeof *G, "GML parser"));
    G->im = im;
    CS_TRY(im->ctx, cs_imp_reader_open(im->ctx, &r, path, prog, *prog_base));
    for (;;) {
        rc = cs_imp_reader_next(&r, &line, &len);
        if (rc != CS_OK)
            goto fail_open;
        if (line == NULL)
            break;
        im->line = r.line;
        const char *p = line, *end = line + len;
        while (p < end) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
            if (p == end || *p == '#') /* a comment to the end of the line */
                break;
            if (*p == '"') {
                const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
                if (q == NULL) {
                    rc = gml_bad(im, "a string not closed on its line:", p, (size_t)(end - p));
                    goto fail_open;
                }
                rc = token(G, p + 1, (size_t)(q - p - 1), 1);
                p = q + 1;
            } else if (*p == '[' || *p == ']') {
                rc = token(G, p, 1, 0);
                p++;
            } else {
                const char *q = p;
                while (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '[' && *q != ']')
                    q++;
                rc = token(G, p, (size_t)(q - p), 0);
                p = q;
            }
            if (rc != CS_OK)
                goto fail_open;
        }
    }
    if (G->depth != 0 || G->have_key) {
        rc = cs_fail(im->ctx, CS_ERR_FORMAT, "%s:%lld: the file ends inside a list", path,
                     (long long)r.line);
        goto fail_open;
    }
    *prog_base += (uint64_t)gzoffset(r.gz);
    free(G);
    return cs_imp_reader_close(&r);
fail_open:
    cs_imp_reader_close(&r);
fail:
    free(G);
    return rc;
}
