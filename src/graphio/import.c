/*
 * import: `crawlsim import` - real graphs (edge lists plus optional page tables) into the
 * crawlsim graph schema (include/crawlsim/import.h has the full semantics).
 *
 * Rank 0 does all the reading: the files are sequential text, so there is nothing to split.
 * Links are collected as (source, target, weight) triples in geometrically grown arrays, then
 * turned into CSR by one counting sort on the source; each page's list is sorted (when it is
 * not already) and its duplicates merged. Page attributes from page tables live in arrays
 * indexed by page id. The other ranks take part only in the agreement on the outcome and in
 * the collective write, each with an empty slice.
 */
#include "crawlsim/import.h"

#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "crawlsim/rng.h"
#include "import_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Largest page id: pages are capped at 2^31 - 1 so that METIS's 32-bit idx_t holds them. */
#define ID_MAX ((uint64_t)INT32_MAX - 1)
/* Characters of an offending token quoted in a message. */
#define QUOTE_MAX 60
#define PATH_MAX_ 4096

typedef struct field {
    const char *p;
    size_t n;
} field;

typedef struct imp {
    cs_ctx *ctx;
    const cs_import_config *ic;
    int names; /* node_ids == name */
    cs_imp_seps eseps, pseps;
    size_t comment_len;

    cs_imp_strtab nodes;  /* node names -> page id (node_ids = name) */
    cs_imp_strtab hosts;  /* host strings (hosts = url, field) */
    cs_imp_strtab topics; /* labels cut to label_depth */
    int64_t n_pages;      /* integer ids: max id + 1 so far */
    int64_t adj_next;     /* adjacency-indexed: page of the next data line */

    /* links as triples */
    int32_t *src, *dst;
    uint32_t *w;
    size_t m, m_cap;
    int weighted;
    uint64_t n_self;   /* self-loops dropped */
    uint64_t n_merged; /* duplicate links merged */

    /* page attributes from page tables, indexed by page id */
    size_t p_cap;
    int32_t *p_host;  /* host string id, -1 */
    int32_t *p_topic; /* -1 */
    uint8_t *p_rel;
    int64_t *p_feat; /* first feature in f_idx/f_val, -1 = none yet */
    int32_t *p_nfeat;
    int any_label_match;

    /* features of page-table lines, in line order */
    int32_t *f_idx;
    float *f_val;
    size_t nf, f_cap;
    int64_t f_dim; /* sparse: 1 + largest index */

    /* the file being read, for messages */
    const char *file;
    int64_t line;
    int64_t table_fields; /* dense features: fields of the first data line of the table */

    /* scratch */
    field *fields;
    size_t fields_cap;
    char *low;
    size_t low_cap;
} imp;

/* Records "<file>:<line>: <message>" as the error. */
static cs_err bad(imp *im, cs_err code, const char *fmt, ...) CS_PRINTF(3, 4);
static cs_err bad(imp *im, cs_err code, const char *fmt, ...)
{
    char msg[CS_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_fail(im->ctx, code, "%s:%lld: %s", im->file, (long long)im->line, msg);
}

static int quote_len(size_t n)
{
    return (int)(n < QUOTE_MAX ? n : QUOTE_MAX);
}

/* ------------------------------------------------------------------------------------------ */
/* Paths */

void cs_import_resolve_path(const cs_config *cfg, const char *p, char *out, size_t size)
{
    static const char prefix[] = "@datasets/";
    if (strncmp(p, prefix, sizeof prefix - 1) == 0) {
        const char *rest = p + sizeof prefix - 1;
        const char *env = getenv("CRAWLSIM_DATASETS");
        int n;
        if (env != NULL && env[0] != '\0')
            n = snprintf(out, size, "%s/%s", env, rest);
        else
            n = snprintf(out, size, "%s/../../shared/datasets/%s",
                         cfg->dir[0] != '\0' ? cfg->dir : ".", rest);
        if (n < 0 || (size_t)n >= size)
            out[0] = '\0'; /* too long: an empty path, which the caller's open rejects */
        return;
    }
    cs_config_resolve_path(cfg, p, out, size);
}

/* Next item of a comma-separated list at *p, trimmed, into out; 0 when the list is done. */
static int next_item(const char **p, char *out, size_t size)
{
    for (;;) {
        const char *s = *p;
        if (*s == '\0')
            return 0;
        const char *e = strchr(s, ',');
        if (e == NULL)
            e = s + strlen(s);
        *p = *e == ',' ? e + 1 : e;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        const char *t = e;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        if (t > s) {
            size_t n = (size_t)(t - s);
            if (n >= size)
                n = size - 1;
            memcpy(out, s, n);
            out[n] = '\0';
            return 1;
        }
    }
}

/* Sum of the on-disk sizes of the files of a list (for the progress line). */
static uint64_t list_bytes(const cs_config *cfg, const char *list)
{
    char item[PATH_MAX_], path[PATH_MAX_];
    uint64_t total = 0;
    for (const char *p = list; next_item(&p, item, sizeof item);) {
        struct stat st;
        cs_import_resolve_path(cfg, item, path, sizeof path);
        if (stat(path, &st) == 0 && st.st_size > 0)
            total += (uint64_t)st.st_size;
    }
    return total;
}

/* ------------------------------------------------------------------------------------------ */
/* Tokens */

/* Splits line into im->fields; returns the count through *nf. Runs of separators count as one
 * and separators at either end are ignored. */
static cs_err split(imp *im, const cs_imp_seps *seps, const char *line, size_t len, size_t *nf)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t n = 0, tl;
    while ((tl = cs_imp_token(seps, &p, end, &tok)) > 0) {
        if (n == im->fields_cap)
            CS_TRY(im->ctx, cs_grow(im->ctx, &im->fields, &im->fields_cap, n + 1, sizeof(field),
                                    "field table"));
        im->fields[n].p = tok;
        im->fields[n].n = tl;
        n++;
    }
    *nf = n;
    return CS_OK;
fail:
    return rc;
}

/* Position of configured field f in a line of nf fields: f, or nf - 1 for CS_FIELD_LAST; -1
 * when the line has no such field. */
static int64_t field_at(int64_t f, size_t nf)
{
    if (f == CS_FIELD_LAST)
        return nf > 0 ? (int64_t)nf - 1 : -1;
    return f >= 0 && (uint64_t)f < nf ? f : -1;
}

/* The missing-field error. */
static cs_err missing(imp *im, const char *key, int64_t f, size_t nf)
{
    if (f == CS_FIELD_LAST)
        return bad(im, CS_ERR_FORMAT, "missing field for %s (last field): the line is empty", key);
    return bad(im, CS_ERR_FORMAT, "missing field %lld (%s): the line has only %zu field%s",
               (long long)f, key, nf, nf == 1 ? "" : "s");
}

/* s[0, len) lower-cased (ASCII) into im's scratch buffer when lowercase_names is on. */
static cs_err maybe_lower(imp *im, int on, const char **s, size_t len)
{
    cs_err rc = CS_OK;
    if (!on)
        return CS_OK;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->low, &im->low_cap, len + 1, 1, "name buffer"));
    for (size_t i = 0; i < len; i++) {
        char c = (*s)[i];
        im->low[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    im->low[len] = '\0';
    *s = im->low;
    return CS_OK;
fail:
    return rc;
}

/* Page id of a node token, field number `pos` of its line; `what` names the field in
 * messages. Integer ids must be decimal, at least id_base and at most ID_MAX + id_base. */
static cs_err node_id(imp *im, const char *tok, size_t len, const char *what, int64_t pos,
                      int32_t *id)
{
    cs_err rc = CS_OK;
    if (im->names) {
        CS_TRY(im->ctx, maybe_lower(im, im->ic->lowercase_names, &tok, len));
        CS_TRY(im->ctx,
               cs_imp_strtab_intern(im->ctx, &im->nodes, tok, len, id, NULL, "node names"));
        return CS_OK;
    }
    uint64_t base = (uint64_t)im->ic->id_base, v = 0;
    int r = cs_imp_parse_u64(tok, len, ID_MAX + base, &v);
    if (r == CS_IMP_NUM_BAD)
        return bad(im, CS_ERR_FORMAT,
                   "%s (field %lld): non-numeric node id '%.*s' (node_ids = integer)", what,
                   (long long)pos, quote_len(len), tok);
    if (r == CS_IMP_NUM_RANGE && tok[0] == '-')
        return bad(im, CS_ERR_FORMAT, "%s (field %lld): node id '%.*s' is out of range (negative)",
                   what, (long long)pos, quote_len(len), tok);
    if (r == CS_IMP_NUM_RANGE)
        return bad(im, CS_ERR_LIMIT,
                   "%s (field %lld): node id '%.*s' is out of range (pages are limited to "
                   "2^31 - 1, ids to %llu)",
                   what, (long long)pos, quote_len(len), tok, (unsigned long long)(ID_MAX + base));
    if (v < base)
        return bad(im, CS_ERR_FORMAT,
                   "%s (field %lld): node id %llu is out of range (below id_base = %llu)", what,
                   (long long)pos, (unsigned long long)v, (unsigned long long)base);
    *id = (int32_t)(v - base);
    if (*id >= im->n_pages)
        im->n_pages = (int64_t)*id + 1;
    return CS_OK;
fail:
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Edges */

static cs_err grow_links(imp *im)
{
    cs_err rc = CS_OK;
    size_t cap = im->m_cap, need = im->m + 1;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->src, &cap, need, sizeof *im->src, "link sources"));
    cap = im->m_cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->dst, &cap, need, sizeof *im->dst, "link targets"));
    if (im->weighted) {
        cap = im->m_cap;
        CS_TRY(im->ctx, cs_grow(im->ctx, &im->w, &cap, need, sizeof *im->w, "link weights"));
    }
    im->m_cap = cap;
    return CS_OK;
fail:
    return rc;
}

/* Appends link s -> d as written in the file (reverse and self_loops applied here). */
static inline cs_err add_link(imp *im, int32_t s, int32_t d, uint32_t w)
{
    if (im->ic->reverse) {
        int32_t t = s;
        s = d;
        d = t;
    }
    if (s == d && im->ic->self_loops == 0) {
        im->n_self++;
        return CS_OK;
    }
    if (im->m == im->m_cap) {
        cs_err rc = grow_links(im);
        if (rc != CS_OK)
            return rc;
    }
    im->src[im->m] = s;
    im->dst[im->m] = d;
    if (im->weighted)
        im->w[im->m] = w;
    im->m++;
    return CS_OK;
}

static cs_err edge_line_pairs(imp *im, const char *line, size_t len)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = im->ic;
    size_t nf;
    CS_TRY(im->ctx, split(im, &im->eseps, line, len, &nf));
    if (nf == 0)
        return CS_OK;
    int64_t fs = field_at(ic->src_field, nf), fd = field_at(ic->dst_field, nf);
    if (fs < 0)
        return missing(im, "src_field", ic->src_field, nf);
    if (fd < 0)
        return missing(im, "dst_field", ic->dst_field, nf);
    uint32_t w = 1;
    if (im->weighted) {
        int64_t fw = field_at(ic->weight_field, nf);
        if (fw < 0)
            return missing(im, "weight_field", ic->weight_field, nf);
        const field *f = &im->fields[fw];
        uint64_t v = 0;
        int r = cs_imp_parse_u64(f->p, f->n, UINT32_MAX, &v);
        if (r != CS_IMP_NUM_OK)
            return bad(im, r == CS_IMP_NUM_BAD ? CS_ERR_FORMAT : CS_ERR_LIMIT,
                       "weight_field (field %lld): '%.*s' is not a link count in [0, 2^32-1]",
                       (long long)fw, quote_len(f->n), f->p);
        w = (uint32_t)v;
    }
    int32_t s, d;
    CS_TRY(im->ctx, node_id(im, im->fields[fs].p, im->fields[fs].n, "src_field", fs, &s));
    CS_TRY(im->ctx, node_id(im, im->fields[fd].p, im->fields[fd].n, "dst_field", fd, &d));
    CS_TRY(im->ctx, add_link(im, s, d, w));
    return CS_OK;
fail:
    return rc;
}

static cs_err edge_line_adjacency(imp *im, const char *line, size_t len)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t tl = cs_imp_token(&im->eseps, &p, end, &tok);
    if (tl == 0)
        return CS_OK;
    int32_t s, d;
    CS_TRY(im->ctx, node_id(im, tok, tl, "source", 0, &s));
    for (int64_t f = 1; (tl = cs_imp_token(&im->eseps, &p, end, &tok)) > 0; f++) {
        CS_TRY(im->ctx, node_id(im, tok, tl, "target", f, &d));
        CS_TRY(im->ctx, add_link(im, s, d, 1));
    }
    return CS_OK;
fail:
    return rc;
}

static cs_err edge_line_indexed(imp *im, const char *line, size_t len)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t tl = cs_imp_token(&im->eseps, &p, end, &tok);
    if (tl == 0)
        return bad(im, CS_ERR_FORMAT,
                   "missing field 0 (out-degree): empty line in an adjacency-indexed file (line i "
                   "is page i)");
    if ((uint64_t)im->adj_next > ID_MAX)
        return bad(im, CS_ERR_LIMIT, "more than 2^31 - 1 lines (pages)");
    int32_t s = (int32_t)im->adj_next++;
    if (s >= im->n_pages)
        im->n_pages = (int64_t)s + 1;
    uint64_t deg = 0;
    int r = cs_imp_parse_u64(tok, tl, UINT64_MAX / 2, &deg);
    if (r != CS_IMP_NUM_OK)
        return bad(im, CS_ERR_FORMAT, "field 0 (out-degree): '%.*s' is not a count", quote_len(tl),
                   tok);
    uint64_t k = 0;
    int32_t d;
    while ((tl = cs_imp_token(&im->eseps, &p, end, &tok)) > 0) {
        CS_TRY(im->ctx, node_id(im, tok, tl, "target", (int64_t)k + 1, &d));
        CS_TRY(im->ctx, add_link(im, s, d, 1));
        k++;
    }
    if (k != deg)
        return bad(im, CS_ERR_FORMAT,
                   "the out-degree field says %llu target%s but the line lists %llu",
                   (unsigned long long)deg, deg == 1 ? "" : "s", (unsigned long long)k);
    return CS_OK;
fail:
    return rc;
}

/* True for lines to skip: comments (by prefix). */
static int is_comment(const imp *im, const char *line, size_t len)
{
    return im->comment_len > 0 && len >= im->comment_len &&
           memcmp(line, im->ic->comment, im->comment_len) == 0;
}

static cs_err read_edge_file(imp *im, const char *path, cs_progress *prog, uint64_t *prog_base)
{
    cs_err rc = CS_OK;
    cs_imp_reader r;
    char *line;
    size_t len;
    im->file = path;
    im->line = 0;
    CS_TRY(im->ctx, cs_imp_reader_open(im->ctx, &r, path, prog, *prog_base));
    for (;;) {
        CS_TRY(im->ctx, cs_imp_reader_next(&r, &line, &len));
        if (line == NULL)
            break;
        im->line = r.line;
        if (r.line <= im->ic->skip_lines || is_comment(im, line, len))
            continue;
        switch (im->ic->edge_format) {
        case CS_EDGES_PAIRS:
            CS_TRY(im->ctx, edge_line_pairs(im, line, len));
            break;
        case CS_EDGES_ADJACENCY:
            CS_TRY(im->ctx, edge_line_adjacency(im, line, len));
            break;
        default:
            CS_TRY(im->ctx, edge_line_indexed(im, line, len));
            break;
        }
    }
    *prog_base += (uint64_t)gzoffset(r.gz);
    return cs_imp_reader_close(&r);
fail:
    cs_imp_reader_close(&r);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Page tables */

/* Makes the per-page arrays hold pages [0, n), new pages with default attributes. */
static cs_err ensure_pages(imp *im, size_t n)
{
    cs_err rc = CS_OK;
    if (n <= im->p_cap)
        return CS_OK;
    size_t nc = im->p_cap ? im->p_cap : 4096;
    while (nc < n)
        nc *= 2;
    size_t c;
    c = im->p_cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->p_host, &c, nc, sizeof *im->p_host, "page table"));
    c = im->p_cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->p_topic, &c, nc, sizeof *im->p_topic, "page table"));
    c = im->p_cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->p_rel, &c, nc, sizeof *im->p_rel, "page table"));
    c = im->p_cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->p_feat, &c, nc, sizeof *im->p_feat, "page table"));
    c = im->p_cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->p_nfeat, &c, nc, sizeof *im->p_nfeat, "page table"));
    for (size_t i = im->p_cap; i < nc; i++) {
        im->p_host[i] = -1;
        im->p_topic[i] = -1;
        im->p_rel[i] = 0;
        im->p_feat[i] = -1;
        im->p_nfeat[i] = 0;
    }
    im->p_cap = nc;
    return CS_OK;
fail:
    return rc;
}

/* The authority of a URL without userinfo and port: [*h, *h + *hl). Accepts "scheme://auth/..."
 * and, without a scheme, "auth/..." or "//auth/...". */
static void url_host(const char *u, size_t n, const char **h, size_t *hl)
{
    const char *p = u, *end = u + n;
    for (size_t i = 0; i + 2 < n; i++) {
        if (u[i] == ':' && u[i + 1] == '/' && u[i + 2] == '/') {
            p = u + i + 3;
            break;
        }
        if (u[i] == '/' || u[i] == '?' || u[i] == '#')
            break;
    }
    if (p == u && n >= 2 && u[0] == '/' && u[1] == '/')
        p = u + 2;
    const char *a = p;
    while (a < end && *a != '/' && *a != '?' && *a != '#')
        a++;
    /* userinfo ends at the last '@' of the authority */
    for (const char *q = a; q > p; q--)
        if (q[-1] == '@') {
            p = q;
            break;
        }
    const char *e = a;
    if (p < a && *p == '[') { /* IPv6 literal: keep the brackets, drop what follows */
        const char *rb = memchr(p, ']', (size_t)(a - p));
        if (rb != NULL)
            e = rb + 1;
    } else {
        const char *colon = NULL;
        for (const char *q = p; q < a; q++)
            if (*q == ':')
                colon = q;
        if (colon != NULL) {
            const char *q = colon + 1;
            while (q < a && *q >= '0' && *q <= '9')
                q++;
            if (q == a)
                e = colon;
        }
    }
    *h = p;
    *hl = (size_t)(e - p);
}

/* Host string id of a host token (lower-cased when `lower`). */
static cs_err intern_host(imp *im, const char *s, size_t len, int lower, int32_t *id)
{
    cs_err rc = CS_OK;
    CS_TRY(im->ctx, maybe_lower(im, lower, &s, len));
    CS_TRY(im->ctx, cs_imp_strtab_intern(im->ctx, &im->hosts, s, len, id, NULL, "host names"));
    return CS_OK;
fail:
    return rc;
}

/* Host string id of the URL in u[0, n); an error naming the line when it has no host. */
static cs_err url_host_id(imp *im, const char *u, size_t n, int32_t *id)
{
    const char *h;
    size_t hl;
    url_host(u, n, &h, &hl);
    if (hl == 0)
        return bad(im, CS_ERR_FORMAT, "no host in URL '%.*s'", quote_len(n), u);
    return intern_host(im, h, hl, 1, id);
}

/* Is field index f one of the fields holding the id, URL, host or label? */
static int is_attr_field(const imp *im, size_t f, size_t nf)
{
    const cs_import_config *ic = im->ic;
    int64_t k[4] = {ic->page_id_field, ic->page_url_field, ic->page_host_field,
                    ic->page_label_field};
    for (int i = 0; i < 4; i++)
        if (k[i] != CS_FIELD_NONE && field_at(k[i], nf) == (int64_t)f)
            return 1;
    return 0;
}

static cs_err push_feature(imp *im, int32_t idx, float val)
{
    cs_err rc = CS_OK;
    if (im->nf == im->f_cap) {
        size_t c = im->f_cap;
        CS_TRY(im->ctx,
               cs_grow(im->ctx, &im->f_idx, &c, im->nf + 1, sizeof *im->f_idx, "features"));
        c = im->f_cap;
        CS_TRY(im->ctx,
               cs_grow(im->ctx, &im->f_val, &c, im->nf + 1, sizeof *im->f_val, "features"));
        im->f_cap = c;
    }
    im->f_idx[im->nf] = idx;
    im->f_val[im->nf] = val;
    im->nf++;
    return CS_OK;
fail:
    return rc;
}

/* Fields needed by a dense-binary line: the features and every configured field, plus one
 * when a field is "last" (it must come after the features). */
static int64_t dense_min_fields(const cs_import_config *ic)
{
    int64_t need = ic->page_features_first + ic->page_features_count;
    int last = 0;
    int64_t k[4] = {ic->page_id_field, ic->page_url_field, ic->page_host_field,
                    ic->page_label_field};
    for (int i = 0; i < 4; i++) {
        if (k[i] == CS_FIELD_LAST)
            last = 1;
        else if (k[i] >= 0 && k[i] + 1 > need)
            need = k[i] + 1;
    }
    return need + last;
}

static cs_err page_features(imp *im, int32_t page, size_t nf)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = im->ic;
    int store = im->p_feat[page] < 0; /* a page's features come from its first line */
    int64_t first = ic->page_features_first;
    if (store)
        im->p_feat[page] = (int64_t)im->nf;
    if (ic->page_features == CS_FEAT_DENSE_BINARY) {
        int64_t need = dense_min_fields(ic);
        if (im->table_fields < 0)
            im->table_fields = (int64_t)nf;
        if ((int64_t)nf < need || (int64_t)nf != im->table_fields)
            return bad(im, CS_ERR_FORMAT,
                       "wrong number of dense features: the line has %zu fields, expected %lld "
                       "(%lld features from field %lld%s)",
                       nf, (long long)((int64_t)nf < need ? need : im->table_fields),
                       (long long)ic->page_features_count, (long long)first,
                       (int64_t)nf < need ? "" : ", as on the table's first line");
        for (int64_t j = 0; j < ic->page_features_count; j++) {
            const field *f = &im->fields[first + j];
            if (f->n != 1 || (f->p[0] != '0' && f->p[0] != '1'))
                return bad(im, CS_ERR_FORMAT,
                           "field %lld (dense feature %lld) is '%.*s', expected 0 or 1",
                           (long long)(first + j), (long long)j, quote_len(f->n), f->p);
            if (store && f->p[0] == '1')
                CS_TRY(im->ctx, push_feature(im, (int32_t)j, 1.0f));
        }
    } else {
        for (size_t j = (size_t)first; j < nf; j++) {
            if (is_attr_field(im, j, nf))
                continue;
            const field *f = &im->fields[j];
            const char *colon = memchr(f->p, ':', f->n);
            uint64_t idx = 0;
            char num[64];
            size_t vl = colon != NULL ? f->n - (size_t)(colon + 1 - f->p) : 0;
            char *endp = NULL;
            double v = 0.0;
            int ok = colon != NULL && vl > 0 && vl < sizeof num &&
                     cs_imp_parse_u64(f->p, (size_t)(colon - f->p), (uint64_t)INT32_MAX - 1,
                                      &idx) == CS_IMP_NUM_OK;
            if (ok) {
                memcpy(num, colon + 1, vl);
                num[vl] = '\0';
                v = strtod(num, &endp);
                ok = endp == num + vl && isfinite(v);
            }
            if (!ok)
                return bad(im, CS_ERR_FORMAT,
                           "field %zu: '%.*s' is not a sparse feature 'index:value'", j,
                           quote_len(f->n), f->p);
            if (ic->page_features_count > 0 && (int64_t)idx >= ic->page_features_count)
                return bad(im, CS_ERR_FORMAT,
                           "field %zu: feature index %llu beyond page_features_count = %lld", j,
                           (unsigned long long)idx, (long long)ic->page_features_count);
            if ((int64_t)idx + 1 > im->f_dim)
                im->f_dim = (int64_t)idx + 1;
            if (store)
                CS_TRY(im->ctx, push_feature(im, (int32_t)idx, (float)v));
        }
    }
    if (store)
        im->p_nfeat[page] = (int32_t)((int64_t)im->nf - im->p_feat[page]);
    return CS_OK;
fail:
    return rc;
}

/* Is `label` (length len) target_label or below it in the '.' hierarchy? */
static int label_matches(const char *target, size_t tlen, const char *label, size_t len)
{
    return tlen > 0 && len >= tlen && memcmp(label, target, tlen) == 0 &&
           (len == tlen || label[tlen] == '.');
}

static cs_err page_line(imp *im, char *line, size_t len, int list_only)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = im->ic;
    size_t nf;
    CS_TRY(im->ctx, split(im, &im->pseps, line, len, &nf));
    if (nf == 0)
        return CS_OK;
    int64_t fi = list_only ? 0 : field_at(ic->page_id_field, nf);
    if (fi < 0)
        return missing(im, "page_id_field", ic->page_id_field, nf);
    int32_t page;
    CS_TRY(im->ctx, node_id(im, im->fields[fi].p, im->fields[fi].n,
                            list_only ? "page id" : "page_id_field", fi, &page));
    CS_TRY(im->ctx, ensure_pages(im, (size_t)page + 1));
    if (list_only)
        return CS_OK;

    if (ic->hosts == CS_HOSTS_URL && ic->page_url_field != CS_FIELD_NONE) {
        int64_t fu = field_at(ic->page_url_field, nf);
        if (fu < 0)
            return missing(im, "page_url_field", ic->page_url_field, nf);
        if (im->p_host[page] < 0)
            CS_TRY(im->ctx, url_host_id(im, im->fields[fu].p, im->fields[fu].n, &im->p_host[page]));
    }
    if (ic->hosts == CS_HOSTS_FIELD) {
        int64_t fh = field_at(ic->page_host_field, nf);
        if (fh < 0)
            return missing(im, "page_host_field", ic->page_host_field, nf);
        if (im->p_host[page] < 0)
            CS_TRY(im->ctx, intern_host(im, im->fields[fh].p, im->fields[fh].n, ic->lowercase_names,
                                        &im->p_host[page]));
    }
    if (ic->page_label_field != CS_FIELD_NONE) {
        int64_t fl = field_at(ic->page_label_field, nf);
        if (fl < 0)
            return missing(im, "page_label_field", ic->page_label_field, nf);
        const char *lab = im->fields[fl].p;
        size_t ll = im->fields[fl].n, cut = ll;
        if (ic->label_depth > 0) {
            int64_t comps = 0;
            for (size_t i = 0; i < ll; i++)
                if (lab[i] == '.' && ++comps == ic->label_depth) {
                    cut = i;
                    break;
                }
        }
        int32_t topic;
        CS_TRY(im->ctx,
               cs_imp_strtab_intern(im->ctx, &im->topics, lab, cut, &topic, NULL, "labels"));
        if (im->p_topic[page] < 0)
            im->p_topic[page] = topic;
        if (label_matches(ic->target_label, strlen(ic->target_label), lab, ll)) {
            im->p_rel[page] = 1;
            im->any_label_match = 1;
        }
    }
    if (ic->page_features != CS_FEAT_NONE)
        CS_TRY(im->ctx, page_features(im, page, nf));
    return CS_OK;
fail:
    return rc;
}

static cs_err read_page_file(imp *im, const char *path, int list_only, cs_progress *prog,
                             uint64_t *prog_base)
{
    cs_err rc = CS_OK;
    cs_imp_reader r;
    char *line;
    size_t len;
    im->file = path;
    im->line = 0;
    im->table_fields = -1;
    CS_TRY(im->ctx, cs_imp_reader_open(im->ctx, &r, path, prog, *prog_base));
    for (;;) {
        CS_TRY(im->ctx, cs_imp_reader_next(&r, &line, &len));
        if (line == NULL)
            break;
        im->line = r.line;
        if (r.line <= im->ic->page_skip_lines || is_comment(im, line, len))
            continue;
        CS_TRY(im->ctx, page_line(im, line, len, list_only));
    }
    *prog_base += (uint64_t)gzoffset(r.gz);
    return cs_imp_reader_close(&r);
fail:
    cs_imp_reader_close(&r);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Building the graph */

static cs_err check_config(cs_ctx *ctx, const cs_import_config *ic)
{
    if (ic->edges[0] == '\0')
        return cs_fail(ctx, CS_ERR_CONFIG, "[import] edges: no edge file given");
    if (ic->edge_format == CS_EDGES_ADJACENCY_INDEXED && ic->node_ids == CS_IDS_NAME)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] edge_format = adjacency-indexed needs node_ids = integer");
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
    if (ic->hosts == CS_HOSTS_URL && (!tables || ic->page_url_field == CS_FIELD_NONE) &&
        ic->node_ids != CS_IDS_NAME)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] hosts = url needs a page table with page_url_field, or node "
                       "names that are URLs (node_ids = name)");
    if (ic->target_label[0] != '\0' && (!tables || ic->page_label_field == CS_FIELD_NONE))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "[import] target_label needs a page table (pages) with page_label_field");
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

/* CSR of the collected links: counting sort on the source into keys (target << 32 | weight),
 * then per page sort and merge of duplicates. Frees the triples. */
static cs_err build_links(imp *im, int64_t n, cs_graph_slice *g)
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
                                 "%s: the weights of link %lld -> %llu sum beyond 2^32 - 1",
                                 im->ic->edges, (long long)i, (unsigned long long)(key[j] >> 32));
                    goto fail;
                }
                key[out - 1] = (key[out - 1] & ~(uint64_t)0xffffffffu) | sum;
                im->n_merged++;
            } else {
                key[out++] = key[j];
            }
        }
        off[i] = (int64_t)start;
    }
    off[n] = (int64_t)out;

    CS_TRY(ctx, cs_alloc(ctx, &g->targets, out, sizeof *g->targets, "link targets"));
    if (im->weighted)
        CS_TRY(ctx, cs_alloc(ctx, &g->weights, out, sizeof *g->weights, "link weights"));
    for (size_t k = 0; k < out; k++) {
        g->targets[k] = (int64_t)(key[k] >> 32);
        if (im->weighted)
            g->weights[k] = (uint32_t)(key[k] & 0xffffffffu);
    }
    free(key);
    g->offsets = off;
    g->n_links_total = (int64_t)out;
    return CS_OK;
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

/* Host of every page and the host names, per the `hosts` key. */
static cs_err build_hosts(imp *im, int64_t n, cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    cs_ctx *ctx = im->ctx;
    const cs_import_config *ic = im->ic;
    int32_t *remap = NULL;
    cs_imp_strtab numbers;
    cs_imp_strtab_init(&numbers);
    CS_TRY(ctx, cs_alloc(ctx, &g->host, (size_t)n, sizeof *g->host, "page hosts"));
    switch (ic->hosts) {
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
            if (im->p_host[i] >= 0)
                continue;
            if (ic->hosts == CS_HOSTS_URL && im->names) {
                const char *name = cs_imp_strtab_get(&im->nodes, (int32_t)i);
                const char *h;
                size_t hl;
                url_host(name, strlen(name), &h, &hl);
                if (hl == 0) {
                    rc = cs_fail(ctx, CS_ERR_FORMAT,
                                 "hosts = url: page '%.*s' has no page-table URL and its name is "
                                 "no URL with a host",
                                 quote_len(strlen(name)), name);
                    goto fail;
                }
                CS_TRY(ctx, intern_host(im, h, hl, 1, &im->p_host[i]));
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
            int32_t h = im->p_host[i];
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

static cs_err build_features(imp *im, int64_t n, cs_graph_slice *g)
{
    cs_err rc = CS_OK;
    cs_ctx *ctx = im->ctx;
    const cs_import_config *ic = im->ic;
    int64_t dim = ic->page_features == CS_FEAT_DENSE_BINARY || ic->page_features_count > 0
                      ? ic->page_features_count
                      : im->f_dim;
    if (dim <= 0)
        return CS_OK; /* sparse features configured but none present */
    size_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += (size_t)im->p_nfeat[i];
    CS_TRY(ctx, cs_alloc(ctx, &g->term_offsets, (size_t)n + 1, sizeof *g->term_offsets,
                         "feature offsets"));
    CS_TRY(ctx, cs_alloc(ctx, &g->term_index, total, sizeof *g->term_index, "feature indices"));
    CS_TRY(ctx, cs_alloc(ctx, &g->term_value, total, sizeof *g->term_value, "feature values"));
    size_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        g->term_offsets[i] = (int64_t)at;
        if (im->p_nfeat[i] > 0) {
            size_t k = (size_t)im->p_nfeat[i];
            memcpy(g->term_index + at, im->f_idx + im->p_feat[i], k * sizeof *g->term_index);
            memcpy(g->term_value + at, im->f_val + im->p_feat[i], k * sizeof *g->term_value);
            at += k;
        }
    }
    g->term_offsets[n] = (int64_t)at;
    g->term_dim = (int32_t)dim;
    return CS_OK;
fail:
    return rc;
}

static void imp_fini(imp *im)
{
    cs_imp_strtab_fini(&im->nodes);
    cs_imp_strtab_fini(&im->hosts);
    cs_imp_strtab_fini(&im->topics);
    free(im->src);
    free(im->dst);
    free(im->w);
    free(im->p_host);
    free(im->p_topic);
    free(im->p_rel);
    free(im->p_feat);
    free(im->p_nfeat);
    free(im->f_idx);
    free(im->f_val);
    free(im->fields);
    free(im->low);
    memset(im, 0, sizeof *im);
}

cs_err cs_import_read(cs_ctx *ctx, const cs_config *cfg, cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = &cfg->import;
    char item[PATH_MAX_], path[PATH_MAX_];
    cs_progress prog;
    uint64_t done = 0;
    double t0 = cs_now();
    imp im;
    memset(&im, 0, sizeof im);
    cs_graph_slice_init(g);
    cs_graph_meta_init(meta);
    im.ctx = ctx;
    im.ic = ic;
    im.names = ic->node_ids == CS_IDS_NAME;
    im.weighted = ic->edge_format == CS_EDGES_PAIRS && ic->weight_field != CS_FIELD_NONE;
    cs_imp_seps_init(&im.eseps, ic->separators);
    cs_imp_seps_init(&im.pseps, ic->page_separators);
    im.comment_len = strlen(ic->comment);
    cs_imp_strtab_init(&im.nodes);
    cs_imp_strtab_init(&im.hosts);
    cs_imp_strtab_init(&im.topics);
    CS_TRY(ctx, check_config(ctx, ic));

    cs_progress_begin(&prog, ctx, "import: reading",
                      list_bytes(cfg, ic->page_list) + list_bytes(cfg, ic->pages) +
                          list_bytes(cfg, ic->edges));
    for (const char *p = ic->page_list; next_item(&p, item, sizeof item);) {
        cs_import_resolve_path(cfg, item, path, sizeof path);
        CS_TRY(ctx, read_page_file(&im, path, 1, &prog, &done));
    }
    for (const char *p = ic->pages; next_item(&p, item, sizeof item);) {
        cs_import_resolve_path(cfg, item, path, sizeof path);
        CS_TRY(ctx, read_page_file(&im, path, 0, &prog, &done));
    }
    for (const char *p = ic->edges; next_item(&p, item, sizeof item);) {
        cs_import_resolve_path(cfg, item, path, sizeof path);
        CS_TRY(ctx, read_edge_file(&im, path, &prog, &done));
    }
    cs_progress_end(&prog);
    double t_read = cs_now();

    int64_t n = im.names ? (int64_t)im.nodes.n : im.n_pages;
    if (n == 0) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: empty graph: no pages in the edge files%s%s",
                     ic->edges, ic->pages[0] ? " or page tables " : "", ic->pages);
        goto fail;
    }
    if (ic->target_label[0] != '\0' && !im.any_label_match) {
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "[import] target_label = '%s' matches no label in the page tables %s%s%s%s",
                     ic->target_label, ic->pages, im.topics.n > 0 ? " (labels look like '" : "",
                     im.topics.n > 0 ? cs_imp_strtab_get(&im.topics, 0) : "",
                     im.topics.n > 0 ? "')" : "");
        goto fail;
    }
    CS_TRY(ctx, ensure_pages(&im, (size_t)n));

    g->n_pages_total = n;
    g->first = 0;
    g->n = n;
    g->link_first = 0;
    CS_TRY(ctx, build_links(&im, n, g));
    CS_TRY(ctx, build_hosts(&im, n, g, meta));

    CS_TRY(ctx, cs_alloc(ctx, &g->topic, (size_t)n, sizeof *g->topic, "page topics"));
    CS_TRY(ctx, cs_alloc(ctx, &g->relevance, (size_t)n, sizeof *g->relevance, "page relevance"));
    CS_TRY(ctx, cs_alloc(ctx, &g->delta, (size_t)n, sizeof *g->delta, "page change rates"));
    CS_TRY(ctx, cs_alloc(ctx, &g->mu, (size_t)n, sizeof *g->mu, "page importance"));
    CS_TRY(ctx,
           cs_alloc(ctx, &g->observable, (size_t)n, sizeof *g->observable, "page observability"));
    for (int64_t i = 0; i < n; i++) {
        g->topic[i] = im.p_topic[i];
        g->relevance[i] = im.p_rel[i] ? 1.0 : 0.0;
        cs_gen_page_dynamics(&cfg->gen, g->host[i], i, CS_RNG_IMPORT, &g->delta[i], &g->mu[i],
                             &g->observable[i]);
    }
    if (ic->page_features != CS_FEAT_NONE)
        CS_TRY(ctx, build_features(&im, n, g));

    meta->n_topics = im.topics.n;
    g->n_topics = im.topics.n;
    meta->target_topic =
        ic->target_label[0] != '\0'
            ? cs_imp_strtab_find(&im.topics, ic->target_label, strlen(ic->target_label))
            : -1;
    if (im.topics.n > 0)
        CS_TRY(ctx, copy_names(ctx, &im.topics, &meta->topic_blob, &meta->topic_name_off));
    snprintf(meta->source, sizeof meta->source, "import:%.248s",
             cfg->path[0] != '\0' ? cfg->path : "(no spec file)");
    meta->seed = (uint64_t)cfg->gen.seed;

    CS_LOG(ctx, CS_LOG_VERBOSE,
           "import: read %.2f s, built %.2f s; %llu self-loops dropped, %llu duplicate links "
           "merged",
           t_read - t0, cs_now() - t_read, (unsigned long long)im.n_self,
           (unsigned long long)im.n_merged);
    imp_fini(&im);
    return CS_OK;
fail:
    imp_fini(&im);
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
        if (MPI_Bcast(c + at, (int)k, MPI_BYTE, 0, ctx->comm) != MPI_SUCCESS)
            return cs_fail(ctx, CS_ERR_MPI, "MPI_Bcast of the import metadata failed");
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

cs_err cs_import_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path)
{
    cs_err rc = CS_OK;
    cs_graph_slice g;
    cs_graph_meta meta;
    char *spec = NULL;
    double t0 = cs_now();
    cs_graph_slice_init(&g);
    cs_graph_meta_init(&meta);
    if (ctx->rank == 0)
        rc = cs_import_read(ctx, cfg, &g, &meta);
    if (rc == CS_OK)
        rc = cs_config_to_ini(ctx, cfg, NULL, &spec);
    CS_TRY(ctx, cs_agree(ctx, rc));
    double t_read = cs_now();
    CS_TRY(ctx, share(ctx, &g, &meta));
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
