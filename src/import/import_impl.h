/*
 * Internals of `crawlsim import` shared between the files of src/import: the line reader over
 * plain or gzip files, the in-place tokenizer, strtoll-free integer parsing and the string
 * table that numbers node, host and topic names.
 */
#ifndef CRAWLSIM_IMPORT_IMPL_H
#define CRAWLSIM_IMPORT_IMPL_H

#include "crawlsim/core.h"
#include "crawlsim/import.h"

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* Longest accepted line: anything longer is taken for a binary or garbage file. */
#define CS_IMP_LINE_MAX ((size_t)16 << 20)

/* ---- line reader (import_reader.c) ---- */

/*
 * Reads a plain or gzip file line by line in big blocks (zlib reads plain files
 * transparently). Lines are returned in place, NUL-terminated, without "\n" or "\r\n"; they
 * stay valid until the next call. A line holding a control byte (binary data: the message
 * names the byte, never quotes it) or longer than CS_IMP_LINE_MAX,
 * truncated or corrupt gzip data and an empty file are CS_ERR_FORMAT errors naming the file
 * and line; failures of the system calls are CS_ERR_IO.
 */
typedef struct cs_imp_reader {
    cs_ctx *ctx;
    const char *path; /* borrowed, for messages */
    gzFile gz;
    char *buf;
    size_t cap, len, pos; /* unread data in buf[pos, len); buf[len] is writable */
    int64_t line;         /* number of the line last returned (1-based) */
    uint64_t bytes;       /* uncompressed bytes read so far */
    int eof;
    cs_progress *progress; /* may be NULL: updated with compressed bytes read */
    uint64_t progress_base;
} cs_imp_reader;

/* Local. Opens path (CS_ERR_IO naming it if it cannot be opened). progress may be NULL. */
cs_err cs_imp_reader_open(cs_ctx *ctx, cs_imp_reader *r, const char *path, cs_progress *progress,
                          uint64_t progress_base);
/* Local. The same from byte offset of a plain file (0: the whole file, plain or gzip). */
cs_err cs_imp_reader_open_at(cs_ctx *ctx, cs_imp_reader *r, const char *path, uint64_t offset,
                             cs_progress *progress, uint64_t progress_base);
/* Local. Next line into *line (length *len); *line = NULL at the end of the file. */
cs_err cs_imp_reader_next(cs_imp_reader *r, char **line, size_t *len);
/* Local. Closes the file; reports a gzip stream that ended early. Accepts a closed reader. */
cs_err cs_imp_reader_close(cs_imp_reader *r);

/* ---- tokenizer ---- */

/* A 256-entry membership table of separator characters. */
typedef struct cs_imp_seps {
    uint8_t is[256];
} cs_imp_seps;

/* Local. Builds the table from a string of separator characters (empty: space and tab). */
void cs_imp_seps_init(cs_imp_seps *s, const char *chars);

/* Local. Skips separators at *p, then returns the length of the token starting there (0 at the
 * end of the line) in *tok, and leaves *p after it. Runs of separators count as one. */
static inline size_t cs_imp_token(const cs_imp_seps *s, const char **p, const char *end,
                                  const char **tok)
{
    const char *q = *p;
    while (q < end && s->is[(unsigned char)*q])
        q++;
    const char *t = q;
    while (q < end && !s->is[(unsigned char)*q])
        q++;
    *tok = t;
    *p = q;
    return (size_t)(q - t);
}

/* Result of integer parsing. */
enum { CS_IMP_NUM_OK = 0, CS_IMP_NUM_BAD = 1, CS_IMP_NUM_RANGE = 2 };

/*
 * Local. Parses a non-negative decimal integer of exactly len characters (an optional '+',
 * then digits). CS_IMP_NUM_BAD if it is not one; CS_IMP_NUM_RANGE if it is negative ("-"
 * followed by digits) or greater than max.
 */
static inline int cs_imp_parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (len > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return CS_IMP_NUM_BAD;
    uint64_t v = 0;
    int big = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - (unsigned)'0';
        if (d > 9)
            return CS_IMP_NUM_BAD;
        if (v > (UINT64_MAX - d) / 10)
            big = 1;
        else
            v = v * 10 + d;
    }
    if (neg && (v != 0 || big))
        return CS_IMP_NUM_RANGE;
    if (big || v > max)
        return CS_IMP_NUM_RANGE;
    *out = v;
    return CS_IMP_NUM_OK;
}

/* ---- string table (import_strtab.c) ---- */

/*
 * Numbers distinct strings 0, 1, 2, ... in order of first insertion: open addressing (linear
 * probing, load <= 1/2) over an arena that holds every string once, NUL-terminated. The arena
 * with the offsets is exactly the "blob + offsets" layout of cs_graph_meta's name tables.
 */
typedef struct cs_imp_strtab {
    char *arena;
    size_t arena_len, arena_cap;
    int64_t *off; /* off[id]: start of string id in arena */
    int32_t n;
    size_t off_cap;
    int32_t *slot;  /* id, or -1 for an empty slot */
    uint32_t *tag;  /* high hash bits of the slot's string, to skip most comparisons */
    size_t n_slots; /* a power of two, or 0 before the first insertion */
} cs_imp_strtab;

/* Local. An empty table (no allocation). */
void cs_imp_strtab_init(cs_imp_strtab *t);
/* Local. Frees the table and empties it. */
void cs_imp_strtab_fini(cs_imp_strtab *t);
/* Local. The id of s[0, len): found, or inserted as the next id (*added = 1). `what` names the
 * table in messages (CS_ERR_NOMEM, or CS_ERR_LIMIT beyond 2^31 - 2 strings). */
cs_err cs_imp_strtab_intern(cs_ctx *ctx, cs_imp_strtab *t, const char *s, size_t len, int32_t *id,
                            int *added, const char *what);
/* Local. The id of s[0, len), or -1. */
int32_t cs_imp_strtab_find(const cs_imp_strtab *t, const char *s, size_t len);
/* Local. String id (NUL-terminated, inside the arena). */
static inline const char *cs_imp_strtab_get(const cs_imp_strtab *t, int32_t id)
{
    return t->arena + t->off[id];
}

/* ---- the importer's state, shared by import_parse.c (which fills it) and import_build.c ---- */

/* Largest page id: pages are capped at 2^31 - 1 so that METIS's 32-bit idx_t holds them. */
#define CS_IMP_ID_MAX ((uint64_t)INT32_MAX - 1)
/* Characters of an offending token quoted in a message. */
#define CS_IMP_QUOTE_MAX 60
#define CS_IMP_PATH_MAX 4096

typedef struct cs_imp_field {
    const char *p;
    size_t n;
} cs_imp_field;

/* Where the largest node id was seen, for messages on ids beyond the node count and on memory:
 * a file number in `files` and a line. */
typedef struct cs_imp_seen {
    cs_imp_strtab files; /* paths of the files read, in order */
    int32_t file_no;     /* number of the file being read in `files` */
    int64_t max_id;      /* largest integer node id (page) seen, -1 */
    int32_t max_id_file;
    int64_t max_id_line;
    int max_id_table;  /* the largest id was read in a page table */
    int reading_pages; /* a page table is being read */
} cs_imp_seen;

/* Page attributes from page tables, indexed by page id. */
typedef struct cs_imp_pages {
    size_t cap;
    int32_t *host;  /* host string id, -1 */
    int32_t *topic; /* -1 */
    uint8_t *rel;
    double *score; /* page_relevance_field: the page's relevance, NaN = none given */
    int64_t *feat; /* first feature in cs_imp_features, -1 = none yet */
    int32_t *nfeat;
} cs_imp_pages;

/* Features of page-table lines, in line order. */
typedef struct cs_imp_features {
    int32_t *idx;
    float *val;
    size_t n, cap;
    int64_t dim; /* sparse: 1 + largest index */
} cs_imp_features;

typedef struct cs_imp {
    cs_ctx *ctx;
    const cs_import_config *ic;
    int names; /* node_ids == name */
    cs_imp_seps eseps, pseps;
    size_t comment_len;

    cs_imp_strtab nodes;  /* node names -> page id (node_ids = name) */
    cs_imp_strtab hosts;  /* host strings (hosts = url, field) */
    cs_imp_strtab topics; /* labels cut to label_depth */
    int64_t n_pages;      /* integer ids: max id + 1 so far */
    int64_t adj_next;     /* adjacency-indexed, successors: page of the next data line */
    int64_t limit;        /* declared node count (node_count, an ASCIIGraph header), or -1 */
    int header_seen;      /* asciigraph: the node-count line was read */
    int64_t table_next;   /* page_ids = line: page of the next page-table data line */
    char *rev;            /* host_names = reversed: scratch */
    size_t rev_cap;

    cs_imp_seen seen;  /* the files read, and where the largest node id was seen */
    uint8_t *src_seen; /* adjacency: pages that had their line */
    size_t src_seen_cap;

    /* links as triples */
    int32_t *src, *dst;
    uint32_t *w;
    size_t m, m_cap;
    int weighted;
    uint64_t n_self;   /* self-loops seen (dropped or kept per self_loops) */
    uint64_t n_merged; /* duplicate links merged */

    cs_imp_pages pg; /* page attributes from page tables, indexed by page id */
    int any_label_match;
    cs_imp_features feat; /* features of page-table lines, in line order */

    /* the file being read, for messages */
    const char *file;
    int64_t line;
    int64_t table_fields; /* dense features: fields of the first data line of the table */

    /* scratch */
    cs_imp_field *fields;
    size_t fields_cap;
    char *low;
    size_t low_cap;
} cs_imp;

/* An import's reading state before any file is read: the configuration's separators, tables
 * and counts (import_build.c). */
void cs_imp_start(cs_imp *im, cs_ctx *ctx, const cs_import_config *ic);

static inline int cs_imp_quote_len(size_t n)
{
    return (int)(n < CS_IMP_QUOTE_MAX ? n : CS_IMP_QUOTE_MAX);
}

/* Local. Item of an [import] file list resolved into path (cs_import_resolve_path), or a
 * configuration error when it names the datasets folder and none is set. */
cs_err cs_imp_resolve(cs_ctx *ctx, const cs_config *cfg, const char *item, char *path, size_t size);
/* Local. The [import] keys are consistent (CS_ERR_CONFIG naming them otherwise). */
cs_err cs_imp_check_config(cs_ctx *ctx, const cs_import_config *ic);
/* Local. Whether cs_imp_bvgraph_run can import ic: a BVGraph whose pages need nothing read on
 * one rank (no page tables or lists, no reverse, hosts per page, single or node). Otherwise
 * *why (may be NULL) names the reason. */
int cs_imp_bvgraph_parallel(const cs_import_config *ic, const char **why);
/* Collective(ctx->comm). Logically collective: cfg, out_path, spec. The import of
 * import_bvpar.c: every rank decodes and writes its share; *pages, *links, *hosts (may be
 * NULL) receive the counts written. */
cs_err cs_imp_bvgraph_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path, const char *spec,
                          int64_t *pages, int64_t *links, int64_t *hosts);

/* Local. Per page of a CSR (n pages from page `first`; off[n + 1], keys target << 32 | weight
 * grouped by page): sorts each list, merges duplicate targets (weights summed, *merged counts
 * them; CS_ERR_LIMIT naming `edges` beyond 2^32 - 1) and fills g's offsets (off, taken),
 * targets and, when weighted, weights. Takes off and key in every case. */
cs_err cs_imp_merge_lists(cs_ctx *ctx, const char *edges, int64_t first, int64_t n, int64_t *off,
                          uint64_t *key, int weighted, uint64_t *merged, cs_graph_slice *g);
/* Local. Whether cs_imp_text_run can import ic: integer links (edge_format = pairs, node_ids =
 * integer) without page tables or lists, hosts per page, single or node. Otherwise *why (may be
 * NULL) names the reason. */
int cs_imp_text_parallel(const cs_import_config *ic, const char **why);
/* Collective(ctx->comm). Logically collective: cfg, out_path, spec. The import of
 * import_textpar.c: every rank parses its share of the edge files, the links go to the rank of
 * their source's page range, every rank writes its range; *pages, *links, *hosts (may be NULL)
 * receive the counts written. */
cs_err cs_imp_text_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path, const char *spec,
                       int64_t *pages, int64_t *links, int64_t *hosts);
/* Local. The page attributes of slice g's pages when there are no page tables (hosts per
 * `hosts`: page, single or node; no topic; relevance 0; the [gen] model's dynamics). */
cs_err cs_imp_page_attributes(cs_ctx *ctx, const cs_config *cfg, cs_graph_slice *g);
/* Local. Frees everything a cs_imp holds and zeroes it (a zeroed cs_imp is fine). */
void cs_imp_fini(cs_imp *im);
/* Collective. The page attributes of g (pages [g->first, g->first + g->n) of N) and the meta of
 * an import read on every rank: hosts per the spec, no topics, the source named by the spec. */
cs_err cs_imp_par_meta(cs_ctx *ctx, const cs_config *cfg, int64_t N, cs_graph_slice *g,
                       cs_graph_meta *meta);
/* Collective. hosts = blocks (else nothing): the hosts of slice g's pages (pages [g->first,
 * g->first + g->n) of N) from the host model of host_spec at N pages (import_blocks.c), their
 * dynamics keyed by the new hosts, meta's host count; no host names. Errors, agreed: those of
 * loading the spec (CS_ERR_CONFIG, CS_ERR_IO) and of the model. */
cs_err cs_imp_block_hosts(cs_ctx *ctx, const cs_config *cfg, int64_t N, cs_graph_slice *g,
                          cs_graph_meta *meta);
/* Local (rank 0). hosts = node with integer ids: host i named i + base, into meta. */
cs_err cs_imp_number_names(cs_ctx *ctx, int64_t n, int64_t base, cs_graph_meta *meta);
/* Local. Peak resident memory of this process in bytes. */
int64_t cs_imp_peak_rss(void);
/* Local. The graph's parts from an [import] edges list: every item, a wildcard item replaced by
 * its matches in sorted order, as *n paths of CS_IMP_PATH_MAX bytes in *paths (caller frees);
 * errors as the serial reader's (no match, cannot list). */
cs_err cs_imp_expand_list(cs_ctx *ctx, const cs_config *cfg, const char *list, char **paths,
                          size_t *n);

/* Local. Next item of a comma-separated list at *p, trimmed, into out; 0 when the list is done. */
int cs_imp_next_item(const char **p, char *out, size_t size);
/* Local. Total bytes of the files of a comma-separated list (for progress lines). */
uint64_t cs_imp_list_bytes(const cs_config *cfg, const char *list);
/* Local. The [import] edge_format name of a cs_edge_format value. */
const char *cs_import_format_name(int edge_format);
/* Local. Makes path the file named in messages (im->file, im->line = 0). */
cs_err cs_imp_file_begin(cs_imp *im, const char *path);
/* Local. Page `page`'s label lab[0, ll): its topic (label_depth) and relevance (target_label). */
cs_err cs_imp_page_label(cs_imp *im, int32_t page, const char *lab, size_t ll);
/* Local. The page of node token tok[0, len) (ids or names as configured; `what` for messages). */
cs_err cs_imp_node_id(cs_imp *im, const char *tok, size_t len, const char *what, int32_t *id);
/* Local. Adds link s -> d (reverse and self_loops applied). */
cs_err cs_imp_add_link(cs_imp *im, int32_t s, int32_t d);
/* Local. The host string id of URL u[0, n) (an error naming the line when it has no host). */
cs_err cs_imp_url_host_id(cs_imp *im, const char *u, size_t n, int32_t *id);
/* Local (rank 0). Reads a GML graph file (import_gml.c). */
cs_err cs_imp_read_gml(cs_imp *im, const char *path, cs_progress *prog, uint64_t *prog_base);
/* Local. Adds the links of a decoded graph (CSR of n pages, ids below n: the node count). */
cs_err cs_imp_add_csr(cs_imp *im, int64_t n, const int64_t *off, const int32_t *tgt);
/* Local (rank 0). Reads one edge file into im's link triples. */
cs_err cs_imp_read_edge_file(cs_imp *im, const char *path, cs_progress *prog, uint64_t *prog_base);
/* Local. Reads the lines of a plain edge file that start in bytes [start, end), start being a
 * line start (0 or after a newline) and line0 that line's number, into im's link triples; the
 * whole file is (0, UINT64_MAX, 1). Lines are numbered (skip_lines, messages) as in the file. */
cs_err cs_imp_read_edge_range(cs_imp *im, const char *path, uint64_t start, uint64_t end,
                              int64_t line0, cs_progress *prog, uint64_t *prog_base);
/* Local (rank 0). Reads one page table (list_only: only its ids, from page_list). */
cs_err cs_imp_read_page_file(cs_imp *im, const char *path, int list_only, cs_progress *prog,
                             uint64_t *prog_base);
/* Local. Grows the page attribute arrays to at least n pages. */
cs_err cs_imp_ensure_pages(cs_imp *im, size_t n);
/* Local. The host part of URL u[0, n) as (*h, *hl). */
void cs_imp_url_host(const char *u, size_t n, const char **h, size_t *hl);
/* Local. Interns host string s[0, len) (lower-cased when lower) as *id. */
cs_err cs_imp_intern_host(cs_imp *im, const char *s, size_t len, int lower, int32_t *id);
/* Local. The graph's source attribute of an import from spec file path (empty: none) into
 * buf[cap]: "import:PATH", or, when that does not fit, "import:..." and the path's last bytes
 * (the end names the file; the cut is marked, never silent). */
void cs_imp_source(char *buf, size_t cap, const char *path);

#endif
