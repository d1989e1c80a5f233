/*
 * import, parsing: reading the edge files and page tables of `crawlsim import` on rank 0 into
 * the importer's state (cs_imp, import_impl.h): tokens, node ids, links as triples, hosts, labels
 * and features (include/crawlsim/import.h has the full semantics; import_build.c turns the
 * state into a graph).
 *
 * Rank 0 does the reading, except for integer edge lists without page tables, whose files
 * every rank parses its share of with cs_imp_read_edge_file (import_textpar.c).
 * Links are collected as (source, target, weight) triples in geometrically grown arrays, then
 * turned into CSR by one counting sort on the source; each page's list is sorted (when it is
 * not already) and its duplicates merged. Page attributes from page tables live in arrays
 * indexed by page id. The other ranks take part only in the agreement on the outcome and in
 * the collective write, each with an empty slice.
 */
#include "crawlsim/import.h"

#include "crawlsim/rng.h"
#include "import_impl.h"

#include <float.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Records "<file>:<line>: <message>" as the error. */
static cs_err bad(cs_imp *im, cs_err code, const char *fmt, ...) CS_PRINTF(3, 4);
static cs_err bad(cs_imp *im, cs_err code, const char *fmt, ...)
{
    char msg[CS_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_fail(im->ctx, code, "%s:%lld: %s", im->file, (long long)im->line, msg);
}

/* ------------------------------------------------------------------------------------------ */
/* Paths */

void cs_import_resolve_path(const cs_config *cfg, const char *p, char *out, size_t size)
{
    static const char prefix[] = "@datasets/";
    if (strncmp(p, prefix, sizeof prefix - 1) == 0) {
        const char *rest = p + sizeof prefix - 1;
        const char *env = getenv("CRAWLSIM_DATASETS");
        if (env == NULL || env[0] == '\0') {
            out[0] = '\0'; /* no datasets folder: the caller says so */
            return;
        }
        int n = snprintf(out, size, "%s/%s", env, rest);
        if (n < 0 || (size_t)n >= size)
            out[0] = '\0'; /* too long: an empty path, which the caller's open rejects */
        return;
    }
    cs_config_resolve_path(cfg, p, out, size);
}

/* Next item of a comma-separated list at *p, trimmed, into out; 0 when the list is done. */
int cs_imp_next_item(const char **p, char *out, size_t size)
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
uint64_t cs_imp_list_bytes(const cs_config *cfg, const char *list)
{
    char item[CS_IMP_PATH_MAX], path[CS_IMP_PATH_MAX];
    uint64_t total = 0;
    for (const char *p = list; cs_imp_next_item(&p, item, sizeof item);) {
        struct stat st;
        cs_import_resolve_path(cfg, item, path, sizeof path);
        glob_t gl;
        if (strpbrk(path, "*?[") != NULL && glob(path, 0, NULL, &gl) == 0) {
            for (size_t i = 0; i < (size_t)gl.gl_pathc; i++)
                if (stat(gl.gl_pathv[i], &st) == 0 && st.st_size > 0)
                    total += (uint64_t)st.st_size;
            globfree(&gl);
        } else if (stat(path, &st) == 0 && st.st_size > 0) {
            total += (uint64_t)st.st_size;
        }
    }
    return total;
}

/* Makes path the file of messages (im->file, line 0) under its number in im->seen.files. */
cs_err cs_imp_file_begin(cs_imp *im, const char *path)
{
    cs_err rc = CS_OK;
    CS_TRY(im->ctx, cs_imp_strtab_intern(im->ctx, &im->seen.files, path, strlen(path),
                                         &im->seen.file_no, NULL, "file names"));
    im->file = cs_imp_strtab_get(&im->seen.files, im->seen.file_no);
    im->line = 0;
    return CS_OK;
fail:
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Tokens */

/* Splits line into im->fields; returns the count through *nf. Runs of separators count as one
 * and separators at either end are ignored; each field is trimmed of blanks (spaces and tabs),
 * so that a tab-separated table padded with spaces gives no trailing spaces in names. */
static cs_err split(cs_imp *im, const cs_imp_seps *seps, const char *line, size_t len, size_t *nf)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t n = 0, tl;
    while ((tl = cs_imp_token(seps, &p, end, &tok)) > 0) {
        if (n == im->fields_cap)
            CS_TRY(im->ctx, cs_grow(im->ctx, &im->fields, &im->fields_cap, n + 1,
                                    sizeof(cs_imp_field), "field table"));
        while (tl > 0 && (tok[0] == ' ' || tok[0] == '\t')) {
            tok++;
            tl--;
        }
        while (tl > 0 && (tok[tl - 1] == ' ' || tok[tl - 1] == '\t'))
            tl--;
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
static cs_err missing(cs_imp *im, const char *key, int64_t f, size_t nf)
{
    if (f == CS_FIELD_LAST)
        return bad(im, CS_ERR_FORMAT, "missing field for %s (last field): the line is empty", key);
    return bad(im, CS_ERR_FORMAT, "missing field %lld (%s): the line has only %zu field%s",
               (long long)f, key, nf, nf == 1 ? "" : "s");
}

/* s[0, len) lower-cased (ASCII) into im's scratch buffer when lowercase_names is on. */
static cs_err maybe_lower(cs_imp *im, int on, const char **s, size_t len)
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

/* s[0, len) with its '.'-separated components in reverse order ("com.example.www" becomes
 * "www.example.com") into im's scratch buffer when host_names = reversed. */
static cs_err maybe_reverse(cs_imp *im, const char **s, size_t len)
{
    cs_err rc = CS_OK;
    if (im->ic->host_names != CS_HOST_NAMES_REVERSED)
        return CS_OK;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->rev, &im->rev_cap, len + 1, 1, "host name buffer"));
    const char *in = *s;
    size_t at = 0, end = len;
    while (end > 0) {
        size_t b = end;
        while (b > 0 && in[b - 1] != '.')
            b--;
        if (at > 0)
            im->rev[at++] = '.';
        memcpy(im->rev + at, in + b, end - b);
        at += end - b;
        end = b > 0 ? b - 1 : 0;
        if (b == 0)
            break;
    }
    im->rev[at] = '\0';
    *s = im->rev;
    return CS_OK;
fail:
    return rc;
}

/* Page id of a node token, field number `pos` of its line; `what` names the field in
 * messages. Integer ids must be decimal, at least id_base and at most CS_IMP_ID_MAX + id_base. */
static cs_err node_id(cs_imp *im, const char *tok, size_t len, const char *what, int64_t pos,
                      int32_t *id)
{
    cs_err rc = CS_OK;
    if (im->names) {
        CS_TRY(im->ctx, maybe_lower(im, im->ic->lowercase_names, &tok, len));
        if (im->ic->hosts == CS_HOSTS_NODE) /* node names are host names */
            CS_TRY(im->ctx, maybe_reverse(im, &tok, len));
        CS_TRY(im->ctx,
               cs_imp_strtab_intern(im->ctx, &im->nodes, tok, len, id, NULL, "node names"));
        return CS_OK;
    }
    uint64_t base = (uint64_t)im->ic->id_base, v = 0;
    int r = cs_imp_parse_u64(tok, len, CS_IMP_ID_MAX + base, &v);
    if (r == CS_IMP_NUM_BAD)
        return bad(im, CS_ERR_FORMAT,
                   "%s (field %lld): non-numeric node id '%.*s' (node_ids = integer)", what,
                   (long long)pos, cs_imp_quote_len(len), tok);
    if (r == CS_IMP_NUM_RANGE && tok[0] == '-')
        return bad(im, CS_ERR_FORMAT, "%s (field %lld): node id '%.*s' is out of range (negative)",
                   what, (long long)pos, cs_imp_quote_len(len), tok);
    if (r == CS_IMP_NUM_RANGE)
        return bad(im, CS_ERR_LIMIT,
                   "%s (field %lld): node id '%.*s' is out of range (pages are limited to "
                   "2^31 - 1, ids to %llu)",
                   what, (long long)pos, cs_imp_quote_len(len), tok,
                   (unsigned long long)(CS_IMP_ID_MAX + base));
    if (v < base)
        return bad(im, CS_ERR_FORMAT,
                   "%s (field %lld): node id %llu is out of range (below id_base = %llu)", what,
                   (long long)pos, (unsigned long long)v, (unsigned long long)base);
    *id = (int32_t)(v - base);
    if (im->limit >= 0 && *id >= im->limit && im->ic->new_ids == CS_NEW_IDS_ERROR)
        return bad(im, CS_ERR_FORMAT,
                   "%s (field %lld): node id %llu is beyond the node count %lld (%s; new_ids = "
                   "allow makes it a new page)",
                   what, (long long)pos, (unsigned long long)v, (long long)im->limit,
                   im->ic->node_count > 0 ? "node_count" : "the file's first line");
    if (*id > im->seen.max_id) {
        im->seen.max_id = *id;
        im->seen.max_id_file = im->seen.file_no;
        im->seen.max_id_line = im->line;
        im->seen.max_id_table = im->seen.reading_pages;
    }
    if (*id >= im->n_pages)
        im->n_pages = (int64_t)*id + 1;
    return CS_OK;
fail:
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Edges */

static cs_err grow_links(cs_imp *im)
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
static inline cs_err add_link(cs_imp *im, int32_t s, int32_t d, uint32_t w)
{
    if (im->ic->reverse) {
        int32_t t = s;
        s = d;
        d = t;
    }
    if (s == d) {
        im->n_self++;
        if (im->ic->self_loops == 0)
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

static cs_err edge_line_pairs(cs_imp *im, const char *line, size_t len)
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
        const cs_imp_field *f = &im->fields[fw];
        uint64_t v = 0;
        int r = cs_imp_parse_u64(f->p, f->n, UINT32_MAX, &v);
        if (r != CS_IMP_NUM_OK)
            return bad(im, r == CS_IMP_NUM_BAD ? CS_ERR_FORMAT : CS_ERR_LIMIT,
                       "weight_field (field %lld): '%.*s' is not a link count in [0, 2^32-1]",
                       (long long)fw, cs_imp_quote_len(f->n), f->p);
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

static cs_err edge_line_adjacency(cs_imp *im, const char *line, size_t len)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t tl = cs_imp_token(&im->eseps, &p, end, &tok);
    if (tl == 0)
        return CS_OK;
    int32_t s, d;
    CS_TRY(im->ctx, node_id(im, tok, tl, "source", 0, &s));
    if ((size_t)s >= im->src_seen_cap) {
        size_t old = im->src_seen_cap;
        CS_TRY(im->ctx, cs_grow(im->ctx, &im->src_seen, &im->src_seen_cap, (size_t)s + 1, 1,
                                "adjacency sources"));
        memset(im->src_seen + old, 0, im->src_seen_cap - old);
    }
    if (im->src_seen[s])
        return bad(im, CS_ERR_FORMAT,
                   "source '%.*s' already had its line: edge_format = adjacency reads one line "
                   "'src dst1 dst2 ...' per source. A file whose line i lists page i's successors "
                   "only (WebGraph's text export) is edge_format = successors (asciigraph when "
                   "its first line is the node count); repeated sources are edge_format = pairs",
                   cs_imp_quote_len(tl), tok);
    im->src_seen[s] = 1;
    for (int64_t f = 1; (tl = cs_imp_token(&im->eseps, &p, end, &tok)) > 0; f++) {
        CS_TRY(im->ctx, node_id(im, tok, tl, "target", f, &d));
        CS_TRY(im->ctx, add_link(im, s, d, 1));
    }
    return CS_OK;
fail:
    return rc;
}

static cs_err edge_line_indexed(cs_imp *im, const char *line, size_t len)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t tl = cs_imp_token(&im->eseps, &p, end, &tok);
    if (tl == 0)
        return bad(im, CS_ERR_FORMAT,
                   "missing field 0 (out-degree): empty line in an adjacency-indexed file (line i "
                   "is page i)");
    if ((uint64_t)im->adj_next > CS_IMP_ID_MAX)
        return bad(im, CS_ERR_LIMIT, "more than 2^31 - 1 lines (pages)");
    if (im->limit >= 0 && im->adj_next >= im->limit && im->ic->new_ids == CS_NEW_IDS_ERROR)
        return bad(im, CS_ERR_FORMAT,
                   "more lines than node_count = %lld (line i is page i; new_ids = allow makes "
                   "new pages)",
                   (long long)im->limit);
    int32_t s = (int32_t)im->adj_next++;
    if (s >= im->n_pages)
        im->n_pages = (int64_t)s + 1;
    uint64_t deg = 0;
    int r = cs_imp_parse_u64(tok, tl, UINT64_MAX / 2, &deg);
    if (r != CS_IMP_NUM_OK)
        return bad(im, CS_ERR_FORMAT, "field 0 (out-degree): '%.*s' is not a count",
                   cs_imp_quote_len(tl), tok);
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

/* successors: line i (after the header lines and comments, across the edge files) lists page
 * i's successors, an empty line none; asciigraph: the same after a first line holding the node
 * count, which is then the declared count. */
static cs_err edge_line_successors(cs_imp *im, const char *line, size_t len)
{
    cs_err rc = CS_OK;
    const char *p = line, *end = line + len, *tok;
    size_t tl;
    if (im->ic->edge_format == CS_EDGES_ASCIIGRAPH && !im->header_seen) {
        uint64_t n = 0;
        tl = cs_imp_token(&im->eseps, &p, end, &tok);
        const char *rest;
        if (tl == 0 || cs_imp_parse_u64(tok, tl, CS_IMP_ID_MAX + 1, &n) != CS_IMP_NUM_OK ||
            cs_imp_token(&im->eseps, &p, end, &rest) != 0)
            return bad(im, CS_ERR_FORMAT,
                       "edge_format = asciigraph: the first line must hold the node count alone "
                       "(at most 2^31 - 1), it reads '%.*s'",
                       cs_imp_quote_len(len), line);
        im->header_seen = 1;
        if (im->ic->node_count > 0 && (int64_t)n != im->ic->node_count)
            return bad(im, CS_ERR_FORMAT, "the file declares %llu nodes but node_count = %lld",
                       (unsigned long long)n, (long long)im->ic->node_count);
        im->limit = (int64_t)n;
        if ((int64_t)n > im->n_pages)
            im->n_pages = (int64_t)n;
        return CS_OK;
    }
    if ((uint64_t)im->adj_next > CS_IMP_ID_MAX)
        return bad(im, CS_ERR_LIMIT, "more than 2^31 - 1 lines (pages)");
    if (im->limit >= 0 && im->adj_next >= im->limit && im->ic->new_ids == CS_NEW_IDS_ERROR)
        return bad(im, CS_ERR_FORMAT,
                   "more lines than the node count %lld (line i is page i; new_ids = allow "
                   "makes new pages)",
                   (long long)im->limit);
    int32_t s = (int32_t)im->adj_next++, d;
    if (s >= im->n_pages)
        im->n_pages = (int64_t)s + 1;
    for (int64_t f = 0; (tl = cs_imp_token(&im->eseps, &p, end, &tok)) > 0; f++) {
        CS_TRY(im->ctx, node_id(im, tok, tl, "target", f, &d));
        CS_TRY(im->ctx, add_link(im, s, d, 1));
    }
    return CS_OK;
fail:
    return rc;
}

cs_err cs_imp_add_csr(cs_imp *im, int64_t n, const int64_t *off, const int32_t *tgt)
{
    cs_err rc = CS_OK;
    if (im->n_pages > n && im->ic->new_ids == CS_NEW_IDS_ERROR)
        return cs_fail(im->ctx, CS_ERR_FORMAT,
                       "%s: the graph has %lld nodes but the page tables %s name %lld pages "
                       "(new_ids = allow keeps the extra pages, without links)",
                       im->file, (long long)n, im->ic->pages, (long long)im->n_pages);
    if (n > im->n_pages)
        im->n_pages = n;
    im->limit = n;
    if (n > 0 && off[n] > 0) {
        int32_t mx = 0;
        for (int64_t k = 0; k < off[n]; k++)
            mx = tgt[k] > mx ? tgt[k] : mx;
        if (mx > im->seen.max_id) {
            im->seen.max_id = mx;
            im->seen.max_id_file = im->seen.file_no;
            im->seen.max_id_line = 0;
            im->seen.max_id_table = 0;
        }
    }
    for (int64_t x = 0; x < n; x++)
        for (int64_t k = off[x]; k < off[x + 1]; k++)
            CS_TRY(im->ctx, add_link(im, (int32_t)x, tgt[k], 1));
    return CS_OK;
fail:
    return rc;
}

/* True for lines to skip: comments (by prefix). */
static int is_comment(const cs_imp *im, const char *line, size_t len)
{
    return im->comment_len > 0 && len >= im->comment_len &&
           memcmp(line, im->ic->comment, im->comment_len) == 0;
}

cs_err cs_imp_read_edge_file(cs_imp *im, const char *path, cs_progress *prog, uint64_t *prog_base)
{
    return cs_imp_read_edge_range(im, path, 0, UINT64_MAX, 1, prog, prog_base);
}

cs_err cs_imp_read_edge_range(cs_imp *im, const char *path, uint64_t start, uint64_t end,
                              int64_t line0, cs_progress *prog, uint64_t *prog_base)
{
    cs_err rc = CS_OK;
    cs_imp_reader r;
    memset(&r, 0, sizeof r); /* closed at fail: also when the reader was never opened */
    char *line;
    size_t len;
    CS_TRY(im->ctx, cs_imp_file_begin(im, path));
    CS_TRY(im->ctx, cs_imp_reader_open_at(im->ctx, &r, path, start, prog, *prog_base));
    r.line = line0 - 1;
    im->line = line0 - 1;
    for (;;) {
        /* the next line starts at this byte: past end, it is the next range's */
        if (end != UINT64_MAX && start + r.bytes - (r.len - r.pos) >= end)
            break;
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
        case CS_EDGES_SUCCESSORS:
        case CS_EDGES_ASCIIGRAPH:
            CS_TRY(im->ctx, edge_line_successors(im, line, len));
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
cs_err cs_imp_ensure_pages(cs_imp *im, size_t n)
{
    cs_err rc = CS_OK;
    if (n <= im->pg.cap)
        return CS_OK;
    size_t nc = im->pg.cap ? im->pg.cap : 4096;
    while (nc < n)
        nc *= 2;
    size_t c;
    c = im->pg.cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->pg.host, &c, nc, sizeof *im->pg.host, "page table"));
    c = im->pg.cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->pg.topic, &c, nc, sizeof *im->pg.topic, "page table"));
    c = im->pg.cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->pg.rel, &c, nc, sizeof *im->pg.rel, "page table"));
    c = im->pg.cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->pg.score, &c, nc, sizeof *im->pg.score, "page table"));
    c = im->pg.cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->pg.feat, &c, nc, sizeof *im->pg.feat, "page table"));
    c = im->pg.cap;
    CS_TRY(im->ctx, cs_grow(im->ctx, &im->pg.nfeat, &c, nc, sizeof *im->pg.nfeat, "page table"));
    for (size_t i = im->pg.cap; i < nc; i++) {
        im->pg.host[i] = -1;
        im->pg.topic[i] = -1;
        im->pg.rel[i] = 0;
        im->pg.score[i] = (double)NAN;
        im->pg.feat[i] = -1;
        im->pg.nfeat[i] = 0;
    }
    im->pg.cap = nc;
    return CS_OK;
fail:
    return rc;
}

/* The authority of a URL without userinfo and port: [*h, *h + *hl). Accepts "scheme://auth/..."
 * and, without a scheme, "auth/..." or "//auth/...". */
void cs_imp_url_host(const char *u, size_t n, const char **h, size_t *hl)
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
cs_err cs_imp_intern_host(cs_imp *im, const char *s, size_t len, int lower, int32_t *id)
{
    cs_err rc = CS_OK;
    CS_TRY(im->ctx, maybe_lower(im, lower, &s, len));
    if (im->ic->hosts == CS_HOSTS_FIELD)
        CS_TRY(im->ctx, maybe_reverse(im, &s, len));
    CS_TRY(im->ctx, cs_imp_strtab_intern(im->ctx, &im->hosts, s, len, id, NULL, "host names"));
    return CS_OK;
fail:
    return rc;
}

/* Host string id of the URL in u[0, n); an error naming the line when it has no host. */
static cs_err url_host_id(cs_imp *im, const char *u, size_t n, int32_t *id)
{
    const char *h;
    size_t hl;
    cs_imp_url_host(u, n, &h, &hl);
    if (hl == 0)
        return bad(im, CS_ERR_FORMAT, "no host in URL '%.*s'", cs_imp_quote_len(n), u);
    return cs_imp_intern_host(im, h, hl, 1, id);
}

/* Is field index f one of the fields holding the id, URL, host or label? */
static int is_attr_field(const cs_imp *im, size_t f, size_t nf)
{
    const cs_import_config *ic = im->ic;
    int64_t k[5] = {ic->page_id_field, ic->page_url_field, ic->page_host_field,
                    ic->page_label_field, ic->page_relevance_field};
    for (int i = 0; i < 5; i++)
        if (k[i] != CS_FIELD_NONE && field_at(k[i], nf) == (int64_t)f)
            return 1;
    return 0;
}

static cs_err push_feature(cs_imp *im, int32_t idx, float val)
{
    cs_err rc = CS_OK;
    if (im->feat.n == im->feat.cap) {
        size_t c = im->feat.cap;
        CS_TRY(im->ctx, cs_grow(im->ctx, &im->feat.idx, &c, im->feat.n + 1, sizeof *im->feat.idx,
                                "features"));
        c = im->feat.cap;
        CS_TRY(im->ctx, cs_grow(im->ctx, &im->feat.val, &c, im->feat.n + 1, sizeof *im->feat.val,
                                "features"));
        im->feat.cap = c;
    }
    im->feat.idx[im->feat.n] = idx;
    im->feat.val[im->feat.n] = val;
    im->feat.n++;
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
    int64_t k[5] = {ic->page_id_field, ic->page_url_field, ic->page_host_field,
                    ic->page_label_field, ic->page_relevance_field};
    for (int i = 0; i < 5; i++) {
        if (k[i] == CS_FIELD_LAST)
            last = 1;
        else if (k[i] >= 0 && k[i] + 1 > need)
            need = k[i] + 1;
    }
    return need + last;
}

static cs_err page_features(cs_imp *im, int32_t page, size_t nf)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = im->ic;
    int store = im->pg.feat[page] < 0; /* a page's features come from its first line */
    int64_t first = ic->page_features_first;
    if (store)
        im->pg.feat[page] = (int64_t)im->feat.n;
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
            const cs_imp_field *f = &im->fields[first + j];
            if (f->n != 1 || (f->p[0] != '0' && f->p[0] != '1'))
                return bad(im, CS_ERR_FORMAT,
                           "field %lld (dense feature %lld) is '%.*s', expected 0 or 1",
                           (long long)(first + j), (long long)j, cs_imp_quote_len(f->n), f->p);
            if (store && f->p[0] == '1')
                CS_TRY(im->ctx, push_feature(im, (int32_t)j, 1.0f));
        }
    } else {
        for (size_t j = (size_t)first; j < nf; j++) {
            if (is_attr_field(im, j, nf))
                continue;
            const cs_imp_field *f = &im->fields[j];
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
                           cs_imp_quote_len(f->n), f->p);
            if (!(fabs(v) <= (double)FLT_MAX)) /* stored as a float: it would become infinite */
                return bad(im, CS_ERR_FORMAT,
                           "field %zu: feature value in '%.*s' is beyond a float's range (%g)", j,
                           cs_imp_quote_len(f->n), f->p, (double)FLT_MAX);
            if (ic->page_features_count > 0 && (int64_t)idx >= ic->page_features_count)
                return bad(im, CS_ERR_FORMAT,
                           "field %zu: feature index %llu beyond page_features_count = %lld", j,
                           (unsigned long long)idx, (long long)ic->page_features_count);
            if ((int64_t)idx + 1 > im->feat.dim)
                im->feat.dim = (int64_t)idx + 1;
            if (store)
                CS_TRY(im->ctx, push_feature(im, (int32_t)idx, (float)v));
        }
    }
    if (store)
        im->pg.nfeat[page] = (int32_t)((int64_t)im->feat.n - im->pg.feat[page]);
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

cs_err cs_imp_page_label(cs_imp *im, int32_t page, const char *lab, size_t ll)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = im->ic;
    size_t cut = ll;
    if (ic->label_depth > 0) {
        int64_t comps = 0;
        for (size_t i = 0; i < ll; i++)
            if (lab[i] == '.' && ++comps == ic->label_depth) {
                cut = i;
                break;
            }
    }
    int32_t topic;
    CS_TRY(im->ctx, cs_imp_strtab_intern(im->ctx, &im->topics, lab, cut, &topic, NULL, "labels"));
    if (im->pg.topic[page] < 0)
        im->pg.topic[page] = topic;
    if (label_matches(ic->target_label, strlen(ic->target_label), lab, ll)) {
        im->pg.rel[page] = 1;
        im->any_label_match = 1;
    }
    return CS_OK;
fail:
    return rc;
}

cs_err cs_imp_node_id(cs_imp *im, const char *tok, size_t len, const char *what, int32_t *id)
{
    return node_id(im, tok, len, what, 0, id);
}

cs_err cs_imp_add_link(cs_imp *im, int32_t s, int32_t d)
{
    return add_link(im, s, d, 1);
}

cs_err cs_imp_url_host_id(cs_imp *im, const char *u, size_t n, int32_t *id)
{
    return url_host_id(im, u, n, id);
}

static cs_err page_line(cs_imp *im, char *line, size_t len, int list_only)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = im->ic;
    size_t nf;
    CS_TRY(im->ctx, split(im, &im->pseps, line, len, &nf));
    if (nf == 0)
        return CS_OK;
    int32_t page = 0;
    if (!list_only && ic->page_ids == CS_PAGE_IDS_LINE) {
        if ((uint64_t)im->table_next > CS_IMP_ID_MAX)
            return bad(im, CS_ERR_LIMIT, "more than 2^31 - 1 page-table lines (pages)");
        if (im->limit >= 0 && im->table_next >= im->limit && ic->new_ids == CS_NEW_IDS_ERROR)
            return bad(im, CS_ERR_FORMAT,
                       "more page-table lines than the node count %lld (page_ids = line: line "
                       "i is page i)",
                       (long long)im->limit);
        page = (int32_t)im->table_next++;
        if (page >= im->n_pages)
            im->n_pages = (int64_t)page + 1;
        if (page > im->seen.max_id) {
            im->seen.max_id = page;
            im->seen.max_id_file = im->seen.file_no;
            im->seen.max_id_line = im->line;
            im->seen.max_id_table = 1;
        }
    } else {
        int64_t fi = list_only ? 0 : field_at(ic->page_id_field, nf);
        if (fi < 0)
            return missing(im, "page_id_field", ic->page_id_field, nf);
        CS_TRY(im->ctx, node_id(im, im->fields[fi].p, im->fields[fi].n,
                                list_only ? "page id" : "page_id_field", fi, &page));
    }
    CS_TRY(im->ctx, cs_imp_ensure_pages(im, (size_t)page + 1));
    if (list_only)
        return CS_OK;

    if (ic->hosts == CS_HOSTS_URL && ic->page_url_field != CS_FIELD_NONE) {
        int64_t fu = field_at(ic->page_url_field, nf);
        if (fu < 0)
            return missing(im, "page_url_field", ic->page_url_field, nf);
        if (im->pg.host[page] < 0)
            CS_TRY(im->ctx,
                   url_host_id(im, im->fields[fu].p, im->fields[fu].n, &im->pg.host[page]));
    }
    if (ic->hosts == CS_HOSTS_FIELD) {
        int64_t fh = field_at(ic->page_host_field, nf);
        if (fh < 0)
            return missing(im, "page_host_field", ic->page_host_field, nf);
        if (im->pg.host[page] < 0)
            CS_TRY(im->ctx, cs_imp_intern_host(im, im->fields[fh].p, im->fields[fh].n,
                                               ic->lowercase_names, &im->pg.host[page]));
    }
    if (ic->page_label_field != CS_FIELD_NONE) {
        int64_t fl = field_at(ic->page_label_field, nf);
        if (fl < 0)
            return missing(im, "page_label_field", ic->page_label_field, nf);
        CS_TRY(im->ctx, cs_imp_page_label(im, page, im->fields[fl].p, im->fields[fl].n));
    }
    if (ic->page_relevance_field != CS_FIELD_NONE) {
        int64_t fr = field_at(ic->page_relevance_field, nf);
        if (fr < 0)
            return missing(im, "page_relevance_field", ic->page_relevance_field, nf);
        const cs_imp_field *f = &im->fields[fr];
        char num[64], *endp = NULL;
        double v = (double)NAN;
        int ok = 0; /* (a field too long for num is no number: num + f->n would point outside) */
        if (f->n > 0 && f->n < sizeof num) {
            memcpy(num, f->p, f->n);
            num[f->n] = '\0';
            v = strtod(num, &endp);
            ok = endp == num + f->n && v >= 0.0 && v <= 1.0;
        }
        if (!ok)
            return bad(im, CS_ERR_FORMAT,
                       "page_relevance_field (field %lld): '%.*s' is not a relevance in [0, 1]",
                       (long long)fr, cs_imp_quote_len(f->n), f->p);
        if (isnan(im->pg.score[page])) /* a page's first line gives its relevance */
            im->pg.score[page] = v;
    }
    if (ic->page_features != CS_FEAT_NONE)
        CS_TRY(im->ctx, page_features(im, page, nf));
    return CS_OK;
fail:
    return rc;
}

cs_err cs_imp_read_page_file(cs_imp *im, const char *path, int list_only, cs_progress *prog,
                             uint64_t *prog_base)
{
    cs_err rc = CS_OK;
    cs_imp_reader r;
    memset(&r, 0, sizeof r); /* closed at fail: also when the reader was never opened */
    char *line;
    size_t len;
    CS_TRY(im->ctx, cs_imp_file_begin(im, path));
    im->table_fields = -1;
    im->seen.reading_pages = 1;
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
    im->seen.reading_pages = 0;
    *prog_base += (uint64_t)gzoffset(r.gz);
    return cs_imp_reader_close(&r);
fail:
    cs_imp_reader_close(&r);
    return rc;
}
