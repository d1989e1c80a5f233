/*
 * import, at scale: text edge lists of integer ids imported by every rank. The
 * files of the [import] edges list (globs expanded in sorted order, as the serial
 * reader reads them) are dealt out to the ranks by size, largest first to the least loaded rank
 * (a gzip file cannot be cut; one plain file alone is cut into byte ranges aligned to line
 * starts, numbered by a count of the newlines before them); each rank parses its files with the
 * serial reader's line parser
 * (cs_imp_read_edge_file: the same checks, messages, self-loop and reverse handling). The links
 * then go to the rank owning their source's page range (ranges of about equal link counts, cut
 * on 2^16 buckets of the page ids: every rank computes the same cut) in one all-to-all; each rank
 * sorts its pages' lists, merges duplicates as the serial reader does (cs_imp_merge_lists) and
 * writes its range with cs_graphio_write (collective writes of disjoint hyperslabs). The file is
 * the one the serial reader (cs_import_read) gives: a page's list is sorted by target there
 * too, so the order in which the links were read does not show.
 *
 * Only edge_format = pairs with node_ids = integer (page = id - id_base, known from the line
 * alone) is read this way. What needs the files in order stays on rank 0: names and URLs (one
 * numbering by first appearance), adjacency-indexed, successors and asciigraph (line i is page
 * i), adjacency (one line per source across the files), page tables and lists.
 *
 * Memory per rank (docs/guide/importing.md "Big graphs on several ranks"): while reading, 8
 * bytes per link read (source and target; 12 with weights) in arrays grown by doubling (up to
 * twice that), then 8 (12) per link in the send buffer; after the exchange 8 (12) per link
 * received, 8 more while sorting, then 8 per link and 45 per page of the slice.
 */
#include "crawlsim/comm.h"
#include "crawlsim/graphio.h"
#include "import_impl.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUCKETS ((int64_t)1 << 16)

int cs_imp_text_parallel(const cs_import_config *ic, const char **why)
{
    const char *w = NULL;
    if (ic->edge_format != CS_EDGES_PAIRS)
        w = "only edge_format = pairs is read on every rank";
    else if (ic->node_ids != CS_IDS_INTEGER)
        w = "node names are numbered in file order on one rank";
    else if (ic->pages[0] != '\0' || ic->page_list[0] != '\0')
        w = "page tables and page lists are read on one rank";
    else if (ic->hosts != CS_HOSTS_PER_PAGE && ic->hosts != CS_HOSTS_SINGLE &&
             ic->hosts != CS_HOSTS_NODE && ic->hosts != CS_HOSTS_BLOCKS)
        w = "hosts from URLs or a field are read on one rank";
    if (why != NULL)
        *why = w;
    return w == NULL;
}

cs_err cs_imp_expand_list(cs_ctx *ctx, const cs_config *cfg, const char *list, char **paths,
                          size_t *n)
{
    cs_err rc = CS_OK;
    char item[CS_IMP_PATH_MAX], path[CS_IMP_PATH_MAX];
    size_t cap = 0, k = 0;
    *paths = NULL;
    *n = 0;
    for (const char *p = list; rc == CS_OK && cs_imp_next_item(&p, item, sizeof item);) {
        CS_TRY(ctx, cs_imp_resolve(ctx, cfg, item, path, sizeof path));
        glob_t gl;
        int g = GLOB_NOMATCH;
        size_t count = 1;
        if (strpbrk(path, "*?[") != NULL) {
            g = glob(path, GLOB_ERR, NULL, &gl);
            if (g == GLOB_NOMATCH)
                rc = cs_fail(ctx, CS_ERR_IO, "%s: no file matches", path);
            else if (g != 0)
                rc = cs_fail(ctx, g == GLOB_NOSPACE ? CS_ERR_NOMEM : CS_ERR_IO,
                             "%s: cannot list the matching files", path);
            else
                count = (size_t)gl.gl_pathc;
        }
        if (rc == CS_OK)
            rc = cs_grow(ctx, paths, &cap, (k + count) * CS_IMP_PATH_MAX, 1, "edge file names");
        for (size_t i = 0; rc == CS_OK && i < count; i++, k++)
            snprintf(*paths + k * CS_IMP_PATH_MAX, CS_IMP_PATH_MAX, "%s",
                     g == 0 ? gl.gl_pathv[i] : path);
        if (g == 0)
            globfree(&gl);
    }
    *n = k;
    if (rc != CS_OK) {
        free(*paths);
        *paths = NULL;
        *n = 0;
    }
    return rc;
fail:
    free(*paths);
    *paths = NULL;
    return rc;
}

/* Local. Deals nf files of sizes size[] to nranks ranks: largest first (ties: lower index) to
 * the least loaded rank (ties: lower rank); owner[i] receives file i's rank. */
static void deal(const uint64_t *size, size_t nf, int nranks, int *owner, uint64_t *load,
                 size_t *order)
{
    for (size_t i = 0; i < nf; i++)
        order[i] = i;
    for (size_t i = 1; i < nf; i++) { /* insertion sort: a few thousand files at most */
        size_t v = order[i], j = i;
        while (j > 0 && size[order[j - 1]] < size[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (int r = 0; r < nranks; r++)
        load[r] = 0;
    for (size_t i = 0; i < nf; i++) {
        int best = 0;
        for (int r = 1; r < nranks; r++)
            if (load[r] < load[best])
                best = r;
        owner[order[i]] = best;
        load[best] += size[order[i]] + 1;
    }
}

/* Local. Bucket of page s among N pages. */
static inline int64_t bucket_of(int64_t s, int64_t N, int64_t B)
{
    return (int64_t)((uint64_t)s * (uint64_t)B / (uint64_t)N);
}

/* Local. First page of bucket b: the least page p with p * B / N >= b. */
static inline int64_t bucket_first(int64_t b, int64_t N, int64_t B)
{
    return (int64_t)(((uint64_t)b * (uint64_t)N + (uint64_t)B - 1) / (uint64_t)B);
}

/* Local. Whether the file at path starts as gzip data (it cannot be cut then). */
static int is_gzip(const char *path)
{
    unsigned char m[2] = {0, 0};
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t got = fread(m, 1, 2, f);
    fclose(f);
    return got == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* Local. Scans bytes [from, to) of fd: the number of newlines (*count), and the position after
 * the first one (*first_after, or UINT64_MAX when there is none). */
static cs_err scan_newlines(cs_ctx *ctx, const char *path, int fd, uint64_t from, uint64_t to,
                            uint64_t *count, uint64_t *first_after)
{
    cs_err rc = CS_OK;
    char *buf = NULL;
    const size_t cap = (size_t)1 << 20;
    *count = 0;
    *first_after = UINT64_MAX;
    CS_TRY(ctx, cs_alloc(ctx, &buf, cap, 1, "newline scan buffer"));
    for (uint64_t at = from; at < to;) {
        size_t want = to - at < cap ? (size_t)(to - at) : cap;
        ssize_t got = pread(fd, buf, want, (off_t)at);
        if (got <= 0) {
            rc = cs_fail(ctx, CS_ERR_IO, "%s: read error at byte %llu", path,
                         (unsigned long long)at);
            goto fail;
        }
        for (const char *q = buf, *e = buf + got; (q = memchr(q, '\n', (size_t)(e - q))) != NULL;
             q++) {
            if (*count == 0)
                *first_after = at + (uint64_t)(q - buf) + 1;
            (*count)++;
        }
        at += (uint64_t)got;
    }
fail:
    free(buf);
    return rc;
}

/* Collective(ctx->comm). One plain file of `size` bytes cut into P byte ranges: this rank's
 * lines are those starting in [rank * size / P, (rank + 1) * size / P) (*start: the first of
 * them, or *start = *end when there is none) and *line0 the number of the first (the newlines
 * before it, counted by every rank over its range and summed over the ranks before). */
static cs_err plain_range(cs_ctx *ctx, const char *path, uint64_t size, uint64_t *start,
                          uint64_t *end, int64_t *line0)
{
    cs_err rc = CS_OK;
    const uint64_t P = (uint64_t)ctx->size, r = (uint64_t)ctx->rank;
    const uint64_t a = size / P * r + size % P * r / P,
                   b = size / P * (r + 1) + size % P * (r + 1) / P;
    uint64_t count = 0, after = 0, before = 0;
    int fd = -1;
    *start = *end = b;
    *line0 = 1;
    rc = cs_open_regular(ctx, path, "input", &fd, NULL);
    /* newlines in [a - 1, b - 1): a line starts at p > 0 when byte p - 1 is one */
    if (rc == CS_OK && b > 0)
        rc = scan_newlines(ctx, path, fd, a > 0 ? a - 1 : 0, b - 1, &count, &after);
    if (fd >= 0)
        close(fd);
    CS_TRY_AGREE(ctx, rc);
    cs_exscan_sum(ctx, &count, &before, 1, CS_T_U64);
    *end = b;
    /* the line starting at p is number 1 + the newlines in [0, p) */
    *start = a == 0 ? 0 : after != UINT64_MAX ? after : b;
    *line0 = a == 0 ? 1 : 2 + (int64_t)before;
    return CS_OK;
fail:
    return rc;
}

/* The state of a parallel text import between its phases (cs_imp_text_run). */
typedef struct tpar {
    char *paths; /* nf paths of CS_IMP_PATH_MAX bytes */
    size_t nf;
    uint64_t *fsize, *load; /* per file; per rank (bytes to read) */
    size_t *order;
    int *owner;      /* per file: the rank reading it */
    int *bowner;     /* per bucket of page ids: the rank owning it */
    int64_t *cut;    /* P + 1 bucket boundaries */
    uint64_t *recv;  /* m links received: source << 32 | target */
    uint32_t *wrecv; /* their weights, or NULL */
    int64_t m;
} tpar;

static void tpar_free(tpar *t)
{
    free(t->paths);
    free(t->fsize);
    free(t->load);
    free(t->order);
    free(t->owner);
    free(t->bowner);
    free(t->cut);
    free(t->recv);
    free(t->wrecv);
    memset(t, 0, sizeof *t);
}

/* Collective. The edge files, their sizes and the rank reading each (largest first to the least
 * loaded rank). Agreed. */
static cs_err plan_files(cs_ctx *ctx, const cs_config *cfg, tpar *t)
{
    const cs_import_config *ic = &cfg->import;
    const int P = ctx->size;
    cs_err rc = cs_imp_check_config(ctx, ic);
    if (rc == CS_OK)
        rc = cs_imp_expand_list(ctx, cfg, ic->edges, &t->paths, &t->nf);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->fsize, t->nf + 1, sizeof *t->fsize, "edge file sizes");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->order, t->nf + 1, sizeof *t->order, "edge file order");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->owner, t->nf + 1, sizeof *t->owner, "edge file owners");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->load, (size_t)P, sizeof *t->load, "rank loads");
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    for (size_t i = 0; i < t->nf; i++) {
        struct stat st;
        t->fsize[i] = stat(t->paths + i * CS_IMP_PATH_MAX, &st) == 0 && st.st_size > 0
                          ? (uint64_t)st.st_size
                          : 0;
    }
    deal(t->fsize, t->nf, P, t->owner, t->load, t->order);
    return CS_OK;
}

/* Local. The parser's state for the [import] settings ic. */
static void parser_init(cs_ctx *ctx, const cs_import_config *ic, cs_imp *im)
{
    cs_imp_start(im, ctx, ic);
    im->names = 0;
    im->weighted = ic->weight_field != CS_FIELD_NONE;
    im->n_pages = ic->node_count > 0 ? ic->node_count : 0;
}

/* Collective. Parses this rank's files (in list order), or its byte range of one plain file, with
 * the serial reader's parser into im. The error reported is that of the first file in list order
 * and its first line in it, the one the serial reader stops at. Agreed. */
static cs_err parse_share(cs_ctx *ctx, tpar *t, cs_imp *im)
{
    cs_err rc = CS_OK;
    int64_t err_file = INT64_MAX, err_line = INT64_MAX;
    uint64_t done = 0;
    const int ranges = t->nf == 1 && ctx->size > 1 && t->fsize[0] > 0 && !is_gzip(t->paths);
    /* progress: rank 0's share (its files, or its byte range), as the serial reader's line */
    cs_progress prog;
    cs_progress_begin(&prog, ctx, "import: reading (every rank its share)", t->load[ctx->rank]);
    if (ranges) { /* one plain file: byte ranges aligned to line starts */
        uint64_t a = 0, b = 0;
        int64_t line0 = 1;
        rc = plain_range(ctx, t->paths, t->fsize[0], &a, &b, &line0);
        if (rc != CS_OK) {
            cs_progress_end(&prog);
            return rc;
        }
        t->load[ctx->rank] = b - a;
        prog.total = b; /* the reader counts from the file's start; rank 0's a is 0 */
        if (a < b) {
            rc = cs_imp_read_edge_range(im, t->paths, a, b, line0, &prog, &done);
            if (rc != CS_OK) {
                err_file = 0;
                err_line = im->line;
            }
        }
    }
    for (size_t i = 0; !ranges && i < t->nf && rc == CS_OK; i++)
        if (t->owner[i] == ctx->rank) {
            rc = cs_imp_read_edge_file(im, t->paths + i * CS_IMP_PATH_MAX, &prog, &done);
            if (rc != CS_OK) {
                err_file = (int64_t)i;
                err_line = im->line;
            }
        }
    cs_progress_end(&prog);
    int64_t first_err = INT64_MAX, first_line = INT64_MAX,
            my_line = err_file != INT64_MAX ? err_line : INT64_MAX;
    cs_allreduce(ctx, &err_file, &first_err, 1, CS_T_I64, CS_OP_MIN);
    if (err_file != first_err)
        my_line = INT64_MAX;
    cs_allreduce(ctx, &my_line, &first_line, 1, CS_T_I64, CS_OP_MIN);
    if (err_file != first_err || my_line != first_line)
        rc = CS_OK;
    return cs_agree(ctx, rc);
}

/* Collective. Page ranges of about equal link counts, cut on B buckets of the N page ids:
 * t->cut and t->bowner, the same on every rank. Agreed. */
static cs_err cut_ranges(cs_ctx *ctx, tpar *t, const cs_imp *im, int64_t N, int64_t B,
                         uint64_t total)
{
    const int P = ctx->size;
    uint64_t *bcount = NULL, *bsum = NULL;
    cs_err rc = cs_calloc(ctx, &bcount, (size_t)B, sizeof *bcount, "link buckets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &bsum, (size_t)B, sizeof *bsum, "link buckets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->bowner, (size_t)B, sizeof *t->bowner, "link buckets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->cut, (size_t)P + 1, sizeof *t->cut, "page ranges");
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK) {
        for (size_t k = 0; k < im->m; k++)
            bcount[bucket_of(im->src[k], N, B)]++;
        cs_allreduce(ctx, bcount, bsum, B, CS_T_U64, CS_OP_SUM);
        uint64_t before = 0;
        int r = 1;
        t->cut[0] = 0;
        for (int64_t b = 0; b < B; b++) {
            /* bucket b starts rank r's range once the links before it reach r / P of all */
            while (r < P && before * (uint64_t)P >= total * (uint64_t)r)
                t->cut[r++] = b;
            t->bowner[b] = r - 1;
            before += bsum[b];
        }
        while (r <= P)
            t->cut[r++] = B;
    }
    free(bcount);
    free(bsum);
    return rc;
}

/* Local. The send buffers of the links im read, grouped by the rank owning their source:
 * counts sc and displacements sd, links send (and weights wsend when weighted). */
static cs_err pack_links(cs_ctx *ctx, const tpar *t, const cs_imp *im, int64_t N, int64_t B,
                         int *sc, int *sd, uint64_t *send, uint32_t *wsend)
{
    const int P = ctx->size;
    int64_t *per = NULL;
    cs_err rc = cs_calloc(ctx, &per, (size_t)P + 1, sizeof *per, "exchange counts");
    for (size_t k = 0; rc == CS_OK && k < im->m; k++)
        per[t->bowner[bucket_of(im->src[k], N, B)] + 1]++;
    for (int r = 0; rc == CS_OK && r < P; r++) {
        if (per[r + 1] > INT_MAX || per[r] > INT_MAX)
            rc = cs_fail(ctx, CS_ERR_LIMIT,
                         "import: more than 2^31 - 1 links go from rank %d to rank %d: use "
                         "more ranks",
                         ctx->rank, r);
        sc[r] = (int)per[r + 1];
        per[r + 1] += per[r];
        sd[r] = (int)per[r];
    }
    for (size_t k = 0; rc == CS_OK && k < im->m; k++) {
        int64_t at = per[t->bowner[bucket_of(im->src[k], N, B)]]++;
        send[at] = (uint64_t)(uint32_t)im->src[k] << 32 | (uint32_t)im->dst[k];
        if (wsend != NULL)
            wsend[at] = im->w[k];
    }
    free(per);
    return rc;
}

/* Collective. The links to the rank of their source (one all-to-all): t->recv, t->wrecv, t->m.
 * im's links are freed once packed. Agreed. */
static cs_err exchange_links(cs_ctx *ctx, tpar *t, cs_imp *im, int64_t N, int64_t B)
{
    const int P = ctx->size;
    int *sc = NULL, *sd = NULL, *rcn = NULL, *rd = NULL;
    uint64_t *send = NULL;
    uint32_t *wsend = NULL;
    cs_err rc = cs_calloc(ctx, &sc, (size_t)P, sizeof *sc, "exchange counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &sd, (size_t)P, sizeof *sd, "exchange counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &rcn, (size_t)P, sizeof *rcn, "exchange counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &rd, (size_t)P, sizeof *rd, "exchange counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &send, im->m, sizeof *send, "links to send");
    if (rc == CS_OK && im->weighted)
        rc = cs_alloc(ctx, &wsend, im->m, sizeof *wsend, "link weights to send");
    if (rc == CS_OK)
        rc = pack_links(ctx, t, im, N, B, sc, sd, send, wsend);
    CS_TRY_AGREE(ctx, rc);
    cs_imp_fini(im); /* the links are in the send buffer now */
    cs_alltoall(ctx, sc, 1, rcn, CS_T_INT);
    int64_t m = 0;
    for (int r = 0; r < P; r++) {
        if (m > INT_MAX)
            rc = cs_fail(ctx, CS_ERR_LIMIT,
                         "import: rank %d receives more than 2^31 - 1 links: use more ranks",
                         ctx->rank);
        rd[r] = (int)m;
        m += rcn[r];
    }
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &t->recv, (size_t)m, sizeof *t->recv, "links received");
    if (rc == CS_OK && wsend != NULL)
        rc = cs_alloc(ctx, &t->wrecv, (size_t)m, sizeof *t->wrecv, "link weights received");
    CS_TRY_AGREE(ctx, rc);
    t->m = m;
    cs_alltoallv(ctx, send, sc, sd, t->recv, rcn, rd, CS_T_U64);
    if (wsend != NULL)
        cs_alltoallv(ctx, wsend, sc, sd, t->wrecv, rcn, rd, CS_T_I32);
fail:
    free(send);
    free(wsend);
    free(sc);
    free(sd);
    free(rcn);
    free(rd);
    return rc;
}

/* Collective. This rank's lists of pages [first, first + n) from the links received: a counting
 * sort on the source, then sorted and merged per page (cs_imp_merge_lists) into g; *merged the
 * duplicates merged. t->recv and t->wrecv are freed. Agreed. */
static cs_err build_lists(cs_ctx *ctx, const cs_import_config *ic, tpar *t, int64_t first,
                          int64_t n, int weighted, uint64_t *merged, cs_graph_slice *g)
{
    int64_t *off = NULL, *pos = NULL;
    uint64_t *key = NULL;
    const int64_t m = t->m;
    cs_err rc = cs_calloc(ctx, &off, (size_t)n + 1, sizeof *off, "link offsets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &key, (size_t)m, sizeof *key, "link sort keys");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &pos, (size_t)n + 1, sizeof *pos, "link offsets");
    if (rc == CS_OK) {
        for (int64_t k = 0; k < m; k++) {
            int64_t s = (int64_t)(t->recv[k] >> 32);
            CS_ASSERT(s >= first && s < first + n);
            off[s - first + 1]++;
        }
        for (int64_t i = 0; i < n; i++)
            off[i + 1] += off[i];
        memcpy(pos, off, (size_t)(n + 1) * sizeof *pos);
        for (int64_t k = 0; k < m; k++)
            key[pos[(int64_t)(t->recv[k] >> 32) - first]++] =
                (t->recv[k] & 0xffffffffu) << 32 | (t->wrecv != NULL ? t->wrecv[k] : 0u);
    }
    free(t->recv);
    t->recv = NULL;
    free(t->wrecv);
    t->wrecv = NULL;
    free(pos);
    if (rc == CS_OK) {
        rc = cs_imp_merge_lists(ctx, ic->edges, first, n, off, key, weighted, merged, g);
        off = NULL;
        key = NULL;
    }
    free(off);
    free(key);
    return cs_agree(ctx, rc);
}

/* Collective. At -v: every rank's pages, links, bytes read and peak memory, and the phases'
 * times t[0..4] (start, read, exchange, build, write). Agreed. */
static cs_err log_ranks(cs_ctx *ctx, const tpar *t, const cs_graph_slice *g, const double *tm)
{
    const int P = ctx->size;
    int64_t row[4] = {g->n, g->n_links_total, (int64_t)t->load[ctx->rank], cs_imp_peak_rss()};
    int64_t *tab = NULL;
    cs_err rc = cs_agree(ctx, cs_alloc(ctx, &tab, (size_t)P * 4, sizeof *tab, "rank table"));
    if (rc != CS_OK)
        return rc;
    cs_allgather(ctx, row, 4, tab, CS_T_I64);
    CS_LOG(ctx, CS_LOG_VERBOSE, "import: %zu edge file%s read on %d rank%s", t->nf,
           t->nf == 1 ? "" : "s", P, P == 1 ? "" : "s");
    for (int r = 0; r < P; r++)
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "import: rank %d: %lld pages, %lld links, read %.1f MiB of files, peak "
               "memory %.1f MiB",
               r, (long long)tab[4 * r], (long long)tab[4 * r + 1],
               (double)tab[4 * r + 2] / 1048576.0, (double)tab[4 * r + 3] / 1048576.0);
    CS_LOG(ctx, CS_LOG_VERBOSE, "import: read %.2f s, exchange %.2f s, sort %.2f s, write %.2f s",
           tm[1] - tm[0], tm[2] - tm[1], tm[3] - tm[2], tm[4] - tm[3]);
    free(tab);
    return CS_OK;
}

cs_err cs_imp_text_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path, const char *spec,
                       int64_t *pages, int64_t *links, int64_t *hosts)
{
    cs_err rc = CS_OK;
    const cs_import_config *ic = &cfg->import;
    tpar t;
    cs_imp im;
    cs_graph_slice g;
    cs_graph_meta meta;
    memset(&t, 0, sizeof t);
    parser_init(ctx, ic, &im);
    cs_graph_slice_init(&g);
    cs_graph_meta_init(&meta);
    double tm[5] = {cs_now(), 0, 0, 0, 0};

    CS_TRY(ctx, plan_files(ctx, cfg, &t));
    CS_TRY(ctx, parse_share(ctx, &t, &im));
    tm[1] = cs_now();
    int64_t N = 0;
    uint64_t cnt[3] = {im.n_self, im.m, 0}, cnt_all[3] = {0, 0, 0};
    cs_allreduce(ctx, &im.n_pages, &N, 1, CS_T_I64, CS_OP_MAX);
    cs_allreduce(ctx, cnt, cnt_all, 3, CS_T_U64, CS_OP_SUM);
    if (N == 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: empty graph: no pages in the edge files", ic->edges);
    CS_TRY_AGREE(ctx, rc);

    const int64_t B = N < BUCKETS ? N : BUCKETS;
    CS_TRY(ctx, cut_ranges(ctx, &t, &im, N, B, cnt_all[1]));
    const int64_t first = bucket_first(t.cut[ctx->rank], N, B);
    const int64_t n = bucket_first(t.cut[ctx->rank + 1], N, B) - first;
    const int weighted = im.weighted;
    CS_TRY(ctx, exchange_links(ctx, &t, &im, N, B));
    tm[2] = cs_now();
    CS_TRY(ctx, build_lists(ctx, ic, &t, first, n, weighted, &cnt[2], &g));
    g.n_pages_total = N;
    g.first = first;
    g.n = n;
    CS_TRY(ctx, cs_imp_par_meta(ctx, cfg, N, &g, &meta));
    int64_t mine[2] = {g.n_links_total, (int64_t)cnt[2]}, all[2] = {0, 0};
    cs_allreduce(ctx, mine, all, 2, CS_T_I64, CS_OP_SUM);
    tm[3] = cs_now();
    CS_LOG(ctx, CS_LOG_INFO, "import: %llu self-loop%s %s, %llu duplicate link%s merged",
           (unsigned long long)cnt_all[0], cnt_all[0] == 1 ? "" : "s",
           ic->self_loops == 0 ? "dropped" : "kept", (unsigned long long)all[1],
           all[1] == 1 ? "" : "s");

    CS_TRY(ctx, cs_graphio_write(ctx, out_path, &g, &meta, spec));
    tm[4] = cs_now();
    if (ctx->level >= CS_LOG_VERBOSE)
        CS_TRY(ctx, log_ranks(ctx, &t, &g, tm));
    if (pages != NULL)
        *pages = N;
    if (links != NULL)
        *links = all[0];
    if (hosts != NULL)
        *hosts = meta.n_hosts;
fail:
    cs_imp_fini(&im);
    tpar_free(&t);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    return rc;
}
