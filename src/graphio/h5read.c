/*
 * graphio reader: opening and checking graph files of schema version 1 (graphio.h),
 * cs_graphio_read_header and cs_graphio_read_slice.
 *
 * Every rank opens the file collectively with the MPI-IO driver and runs the same checks on
 * the same metadata, so the checks give the same verdict everywhere; each locally fallible
 * step is still agreed with cs_agree before the next collective. Page ranges are read with
 * collective hyperslab reads (cs_h5_read_1d) and validated before they are handed out: a
 * truncated or corrupt file gives a message naming the file and the dataset, never garbage.
 */
#include "graphio_impl.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ---- header --------------------------------------------------------------------------------- */

/* Local. attr_read and attr_read_string name the graph file in their messages. */
static cs_err attr_read(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls, hid_t mtype,
                        void *out, const char *path)
{
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "graph file %s", path);
    return cs_h5_attr_read(ctx, obj, name, cls, mtype, out, what);
}

static cs_err attr_read_string(cs_ctx *ctx, hid_t obj, const char *name, char *out, size_t cap,
                               const char *path)
{
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "graph file %s", path);
    return cs_h5_attr_read_string(ctx, obj, name, out, cap, what);
}

/* Local. Whether "/<group>/<leaf>" exists (checked link by link, as HDF5 requires). */
static int dataset_exists(hid_t file, const char *name)
{
    char grp[64];
    const char *slash = strchr(name + 1, '/');
    size_t gl = slash != NULL ? (size_t)(slash - name) : 0;
    if (gl == 0 || gl >= sizeof grp)
        return H5Lexists(file, name, H5P_DEFAULT) > 0;
    memcpy(grp, name, gl);
    grp[gl] = '\0';
    return H5Lexists(file, grp, H5P_DEFAULT) > 0 && H5Lexists(file, name, H5P_DEFAULT) > 0;
}

/*
 * Local. Checks dataset `name` (the reader contract, cs_h5_dset_check): 1-D, of type class cls
 * (an integer class whose values fit the memory type mt the readers use, when mt >= 0), all
 * stored, and with `expect` elements unless expect < 0 (`what` explains the expectation). *len
 * receives its length; *present whether it exists (when present is NULL it is required).
 */
static cs_err check_dataset(cs_ctx *ctx, hid_t file, const char *path, const char *name,
                            H5T_class_t cls, hid_t mt, int64_t expect, const char *what,
                            int64_t *len, int *present)
{
    *len = 0;
    if (present != NULL)
        *present = 0;
    if (!dataset_exists(file, name)) {
        if (present != NULL)
            return CS_OK;
        return cs_fail(ctx, CS_ERR_FORMAT, "graph file %s: dataset %s is missing", path, name);
    }
    if (present != NULL)
        *present = 1;
    char file_what[CS_ERRMSG_MAX];
    snprintf(file_what, sizeof file_what, "graph file %s", path);
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    cs_err rc = cs_h5_dset_check(ctx, d, name, cls, mt, expect, what, len, file_what);
    if (d >= 0)
        H5Dclose(d);
    return rc;
}

/* Local. The optional tables' completeness and the /terms datasets and dim of the graph
 * header (gio_read_header). */
static cs_err read_terms_header(cs_ctx *ctx, hid_t file, const char *path, cs_graph_header *h)
{
    cs_err rc = CS_OK;
    int64_t len = 0, t_len = 0;
    const int64_t N = h->n_pages;
    /* An optional table is absent or complete: a part without its offsets is damage. */
    static const char *const parts[][2] = {{"/hosts/names", "/hosts/name_offsets"},
                                           {"/topics/names", "/topics/name_offsets"},
                                           {"/terms/index", "/terms/offsets"},
                                           {"/terms/value", "/terms/offsets"}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (dataset_exists(file, parts[i][0]) && !dataset_exists(file, parts[i][1]))
            return cs_fail(ctx, CS_ERR_FORMAT, "graph file %s: dataset %s is missing (%s is there)",
                           path, parts[i][1], parts[i][0]);
    CS_TRY(ctx, check_dataset(ctx, file, path, "/terms/offsets", H5T_INTEGER, H5T_NATIVE_INT64,
                              N + 1, "n_pages + 1", &len, &h->has_terms));
    if (h->has_terms) {
        CS_TRY(ctx, check_dataset(ctx, file, path, "/terms/index", H5T_INTEGER, H5T_NATIVE_INT32,
                                  -1, "", &t_len, NULL));
        CS_TRY(ctx, check_dataset(ctx, file, path, "/terms/value", H5T_FLOAT, -1, t_len,
                                  "the length of /terms/index", &len, NULL));
        hid_t gt = H5Gopen2(file, "/terms", H5P_DEFAULT);
        if (gt < 0)
            return cs_fail(ctx, CS_ERR_FORMAT, "graph file %s: group /terms cannot be opened",
                           path);
        rc = attr_read(ctx, gt, "dim", H5T_INTEGER, H5T_NATIVE_INT32, &h->term_dim, path);
        H5Gclose(gt);
        /* every index lies in [0, dim): a file holding indices has dim >= 1 (dim sizes no
         * allocation: a sparse vocabulary may be larger than the file) */
        if (rc == CS_OK && (h->term_dim < 0 || (t_len > 0 && h->term_dim == 0)))
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "graph file %s: /terms has dim %d for %lld term entries", path,
                         (int)h->term_dim, (long long)t_len);
    }
fail:
    return rc;
}

cs_err gio_read_header(cs_ctx *ctx, hid_t file, const char *path, cs_graph_header *h)
{
    cs_err rc = CS_OK;
    char fmt[64];
    if (H5Aexists(file, "format") <= 0)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s is not a crawlsim graph (no format "
                       "attribute)",
                       path);
    CS_TRY(ctx, attr_read_string(ctx, file, "format", fmt, sizeof fmt, path));
    if (strcmp(fmt, CS_GRAPH_FORMAT) != 0)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s is not a crawlsim graph (format is "
                       "\"%s\", not \"%s\")",
                       path, fmt, CS_GRAPH_FORMAT);
    int version = 0;
    CS_TRY(ctx,
           attr_read(ctx, file, "schema_version", H5T_INTEGER, H5T_NATIVE_INT, &version, path));
    h->schema_version = version;
    if (version != CS_GRAPH_SCHEMA_VERSION)
        return cs_fail(ctx, CS_ERR_SCHEMA,
                       "graph file %s has schema version %d; this crawlsim "
                       "reads version %d: regenerate it with crawlsim gen or crawlsim import",
                       path, version, CS_GRAPH_SCHEMA_VERSION);
    CS_TRY(ctx, attr_read(ctx, file, "n_pages", H5T_INTEGER, H5T_NATIVE_INT64, &h->n_pages, path));
    CS_TRY(ctx, attr_read(ctx, file, "n_links", H5T_INTEGER, H5T_NATIVE_INT64, &h->n_links, path));
    CS_TRY(ctx, attr_read(ctx, file, "n_hosts", H5T_INTEGER, H5T_NATIVE_INT64, &h->n_hosts, path));
    CS_TRY(ctx,
           attr_read(ctx, file, "n_topics", H5T_INTEGER, H5T_NATIVE_INT32, &h->n_topics, path));
    CS_TRY(ctx, attr_read(ctx, file, "target_topic", H5T_INTEGER, H5T_NATIVE_INT32,
                          &h->target_topic, path));
    CS_TRY(ctx, attr_read(ctx, file, "seed", H5T_INTEGER, H5T_NATIVE_UINT64, &h->seed, path));
    CS_TRY(ctx, attr_read_string(ctx, file, "source", h->source, sizeof h->source, path));
    if (h->n_pages < 0 || h->n_links < 0 || h->n_hosts < 0 || h->n_topics < 0 ||
        h->target_topic < -1 || (h->target_topic >= 0 && h->target_topic >= h->n_topics) ||
        (h->n_pages > 0 && h->n_hosts == 0))
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s: inconsistent header (n_pages %lld, "
                       "n_links %lld, n_hosts %lld, n_topics %d, target_topic %d)",
                       path, (long long)h->n_pages, (long long)h->n_links, (long long)h->n_hosts,
                       (int)h->n_topics, (int)h->target_topic);
    /* Counts bounded by what the file holds, before anything is sized by them: every host
     * holds a page (hosts are numbered by their pages; an empty graph has at most one), and
     * there are no more topics than pages or the generator's limit. */
    if (h->n_hosts > (h->n_pages > 1 ? h->n_pages : 1))
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s: n_hosts %lld exceeds the number of pages (%lld): every host "
                       "holds at least one page",
                       path, (long long)h->n_hosts, (long long)h->n_pages);
    if (h->n_topics > (h->n_pages > CS_GRAPHIO_TOPICS_MAX ? h->n_pages : CS_GRAPHIO_TOPICS_MAX))
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s: n_topics %d exceeds both the number of pages (%lld) and "
                       "%d",
                       path, (int)h->n_topics, (long long)h->n_pages, CS_GRAPHIO_TOPICS_MAX);

    const int64_t N = h->n_pages, M = h->n_links;
    int64_t len = 0;
    const struct {
        const char *name;
        H5T_class_t cls;
        hid_t mt;
    } pages[] = {{"/pages/host", H5T_INTEGER, H5T_NATIVE_INT64},
                 {"/pages/topic", H5T_INTEGER, H5T_NATIVE_INT32},
                 {"/pages/relevance", H5T_FLOAT, -1},
                 {"/pages/delta", H5T_FLOAT, -1},
                 {"/pages/mu", H5T_FLOAT, -1},
                 {"/pages/observable", H5T_INTEGER, H5T_NATIVE_UINT8}};
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        CS_TRY(ctx, check_dataset(ctx, file, path, pages[i].name, pages[i].cls, pages[i].mt, N,
                                  "n_pages", &len, NULL));
    CS_TRY(ctx, check_dataset(ctx, file, path, "/links/offsets", H5T_INTEGER, H5T_NATIVE_INT64,
                              N + 1, "n_pages + 1", &len, NULL));
    CS_TRY(ctx, check_dataset(ctx, file, path, "/links/targets", H5T_INTEGER, H5T_NATIVE_INT64, M,
                              "n_links", &len, NULL));
    CS_TRY(ctx, check_dataset(ctx, file, path, "/links/weights", H5T_INTEGER, H5T_NATIVE_UINT32, M,
                              "n_links", &len, &h->has_weights));
    CS_TRY(ctx, check_dataset(ctx, file, path, "/hosts/name_offsets", H5T_INTEGER, H5T_NATIVE_INT64,
                              h->n_hosts, "n_hosts", &len, &h->has_host_names));
    if (h->has_host_names)
        CS_TRY(ctx, check_dataset(ctx, file, path, "/hosts/names", H5T_INTEGER, H5T_NATIVE_UINT8,
                                  -1, "", &len, NULL));
    CS_TRY(ctx,
           check_dataset(ctx, file, path, "/topics/name_offsets", H5T_INTEGER, H5T_NATIVE_INT64,
                         h->n_topics, "n_topics", &len, &h->has_topic_names));
    if (h->has_topic_names)
        CS_TRY(ctx, check_dataset(ctx, file, path, "/topics/names", H5T_INTEGER, H5T_NATIVE_UINT8,
                                  -1, "", &len, NULL));
    CS_TRY(ctx, read_terms_header(ctx, file, path, h));
fail:
    return rc;
}

cs_err cs_graphio_open(cs_ctx *ctx, const char *path, hid_t *file, cs_graph_header *hdr)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t f = -1;
    *file = H5I_INVALID_HID;
    memset(hdr, 0, sizeof *hdr);
    if (ctx->rank == 0)
        rc = cs_h5_probe(ctx, path, "graph file");
    CS_TRY_AGREE(ctx, rc);
    f = cs_h5_fopen(ctx->comm, path, H5F_ACC_RDONLY);
    if (f < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5,
                     "graph file %s: HDF5 cannot open it (truncated or "
                     "corrupt file?)",
                     path);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, gio_read_header(ctx, f, path, hdr));
    *file = f;
    cs_h5_quiet_end(&quiet);
    return CS_OK;
fail:
    if (f >= 0)
        H5Fclose(f);
    memset(hdr, 0, sizeof *hdr);
    cs_h5_quiet_end(&quiet);
    return rc;
}

cs_err cs_graphio_read_header(cs_ctx *ctx, const char *path, cs_graph_header *hdr)
{
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t file = -1;
    cs_err rc = cs_graphio_open(ctx, path, &file, hdr);
    if (rc == CS_OK && H5Fclose(file) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing it", path);
    rc = cs_agree(ctx, rc);
    cs_h5_quiet_end(&quiet);
    return rc;
}

/* ---- page ranges ---------------------------------------------------------------------------- */

cs_err gio_read_range(cs_ctx *ctx, hid_t file, const char *path, const char *name, hid_t mtype,
                      size_t elem, int64_t off, int64_t count, void *out)
{
    cs_err rc = CS_OK;
    void **pout = (void **)out;
    hid_t d = -1;
    *pout = NULL;
    rc = cs_h5_check_memory(ctx, count, elem, path, name);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, pout, (size_t)count, elem, name);
    if (rc == CS_OK) {
        d = H5Dopen2(file, name, H5P_DEFAULT);
        if (d < 0)
            rc =
                cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot open dataset %s", path, name);
    }
    CS_TRY_AGREE(ctx, rc);
    rc = cs_h5_read_1d(ctx, d, mtype, off, count, *pout, elem, path, name);
    H5Dclose(d);
    d = -1;
    CS_TRY_AGREE(ctx, rc);
    return CS_OK;
fail:
    if (d >= 0)
        H5Dclose(d);
    free(*pout);
    *pout = NULL;
    return rc;
}

/*
 * Local. Checks CSR offsets read from dataset `name` at page `first` (n + 1 values, global; the
 * graph has N pages) against [0, total] and monotonicity, and the first and last of the whole
 * dataset against 0 and total when this range holds them, then makes them local. *base
 * receives the global index of the first element.
 */
static cs_err localize_offsets(cs_ctx *ctx, const char *path, const char *name, int64_t *off,
                               int64_t first, int64_t n, int64_t N, int64_t total, int64_t *base)
{
    *base = off[0];
    const int head = first == 0 && off[0] != 0, tail = first + n == N && off[n] != total;
    if (head || tail)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s: dataset %s is corrupt: element %lld is %lld, expected "
                       "%lld",
                       path, name, (long long)(head ? 0 : N), (long long)(head ? off[0] : off[n]),
                       (long long)(head ? 0 : total));
    if (off[0] < 0 || off[0] > total)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "graph file %s: dataset %s is corrupt: element %lld "
                       "is %lld, outside [0, %lld]",
                       path, name, (long long)first, (long long)off[0], (long long)total);
    for (int64_t i = 0; i < n; i++)
        if (off[i + 1] < off[i] || off[i + 1] > total)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "graph file %s: dataset %s is corrupt: element "
                           "%lld is %lld after %lld (offsets must not decrease nor exceed "
                           "%lld)",
                           path, name, (long long)(first + i + 1), (long long)off[i + 1],
                           (long long)off[i], (long long)total);
    const int64_t b = off[0];
    for (int64_t i = 0; i <= n; i++)
        off[i] -= b;
    return CS_OK;
}

/* Local. Targets of pages [first, first + n) lie in [0, N) and increase within each page. */
static cs_err check_targets(cs_ctx *ctx, const char *path, const int64_t *off, const int64_t *tg,
                            int64_t first, int64_t n, int64_t N)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(off, tg, n, N) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        for (int64_t e = off[i]; e < off[i + 1]; e++) {
            if (tg[e] < 0 || tg[e] >= N || (e > off[i] && tg[e] <= tg[e - 1])) {
                bad = i < bad ? i : bad;
                break;
            }
        }
    }
    if (bad == INT64_MAX)
        return CS_OK;
    for (int64_t e = off[bad]; e < off[bad + 1]; e++)
        if (tg[e] < 0 || tg[e] >= N)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "graph file %s: dataset /links/targets is "
                           "corrupt: page %lld links to %lld, outside [0, %lld)",
                           path, (long long)(first + bad), (long long)tg[e], (long long)N);
    return cs_fail(ctx, CS_ERR_FORMAT,
                   "graph file %s: dataset /links/targets is corrupt: the "
                   "targets of page %lld are not sorted and unique",
                   path, (long long)(first + bad));
}

/* The loops of check_ids64/32 (and graph/load.c's) stay one per type: they are the hot part. */
cs_err cs_graphio_id_outside(cs_ctx *ctx, const char *path, const char *name, int64_t at, int64_t v,
                             int64_t lo, int64_t hi)
{
    return cs_fail(ctx, CS_ERR_FORMAT,
                   "graph file %s: dataset %s is corrupt: element %lld is "
                   "%lld, outside [%lld, %lld)",
                   path, name, (long long)at, (long long)v, (long long)lo, (long long)hi);
}

cs_err cs_graphio_check_ids64(cs_ctx *ctx, const char *path, const char *name, const int64_t *v,
                              int64_t first, int64_t n, int64_t lo, int64_t hi)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v, n, lo, hi) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] >= hi)
            bad = i < bad ? i : bad;
    return bad == INT64_MAX ? CS_OK
                            : cs_graphio_id_outside(ctx, path, name, first + bad, v[bad], lo, hi);
}

cs_err cs_graphio_check_ids32(cs_ctx *ctx, const char *path, const char *name, const int32_t *v,
                              int64_t first, int64_t n, int64_t lo, int64_t hi)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v, n, lo, hi) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] >= hi)
            bad = i < bad ? i : bad;
    return bad == INT64_MAX ? CS_OK
                            : cs_graphio_id_outside(ctx, path, name, first + bad, v[bad], lo, hi);
}

/* Local. The format error of the value checks: element `at` of dataset `name` is v. */
static cs_err value_outside(cs_ctx *ctx, const char *path, const char *name, int64_t at, double v,
                            cs_graphio_range r)
{
    static const char *const want[] = {"outside [0, 1]", "not a finite number > 0",
                                       "not a finite number"};
    return cs_fail(ctx, CS_ERR_FORMAT,
                   "graph file %s: dataset %s is corrupt: element %lld is %g, %s", path, name,
                   (long long)at, v, want[r]);
}

/* Whether x lies in range r; written so that NaN fails every comparison. */
#define IN_RANGE(x, r)                                                                             \
    ((r) == CS_GRAPHIO_UNIT       ? ((x) >= 0 && (x) <= 1)                                         \
     : (r) == CS_GRAPHIO_POSITIVE ? ((x) > 0 && (x) <= DBL_MAX)                                    \
                                  : ((x) >= -DBL_MAX && (x) <= DBL_MAX))

cs_err cs_graphio_check_f64(cs_ctx *ctx, const char *path, const char *name, const double *v,
                            const int64_t *ids, int64_t first, int64_t n, cs_graphio_range r)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v, n, r) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (!IN_RANGE(v[i], r))
            bad = i < bad ? i : bad;
    if (bad == INT64_MAX)
        return CS_OK;
    return value_outside(ctx, path, name, ids != NULL ? ids[bad] : first + bad, v[bad], r);
}

cs_err cs_graphio_check_f32(cs_ctx *ctx, const char *path, const char *name, const float *v,
                            const int64_t *ids, int64_t first, int64_t n, cs_graphio_range r)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v, n, r) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (!IN_RANGE((double)v[i], r))
            bad = i < bad ? i : bad;
    if (bad == INT64_MAX)
        return CS_OK;
    return value_outside(ctx, path, name, ids != NULL ? ids[bad] : first + bad, (double)v[bad], r);
}

cs_err cs_graphio_check_flags(cs_ctx *ctx, const char *path, const char *name, const uint8_t *v,
                              const int64_t *ids, int64_t first, int64_t n)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v, n) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (v[i] > 1)
            bad = i < bad ? i : bad;
    if (bad == INT64_MAX)
        return CS_OK;
    return cs_fail(ctx, CS_ERR_FORMAT,
                   "graph file %s: dataset %s is corrupt: element %lld is %d, not 0 or 1", path,
                   name, (long long)(ids != NULL ? ids[bad] : first + bad), (int)v[bad]);
}

cs_err gio_read_pages(cs_ctx *ctx, hid_t file, const char *path, const cs_graph_header *hdr,
                      int64_t first, int64_t n, unsigned what, cs_graph_slice *g)
{
    cs_err rc = CS_OK;
    const int64_t N = hdr->n_pages, M = hdr->n_links;
    cs_graph_slice_init(g);
    if (first < 0 || n < 0 || first > N || n > N - first)
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "graph file %s has %lld pages: cannot read pages [%lld, "
                     "%lld)",
                     path, (long long)N, (long long)first, (long long)(first + n));
    CS_TRY_AGREE(ctx, rc);
    g->n_pages_total = N;
    g->n_links_total = M;
    g->n_hosts = hdr->n_hosts;
    g->n_topics = hdr->n_topics;
    g->first = first;
    g->n = n;

    /* Links. */
    CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/links/offsets", H5T_NATIVE_INT64, 8, first,
                                     n + 1, &g->offsets));
    CS_TRY_AGREE(ctx, localize_offsets(ctx, path, "/links/offsets", g->offsets, first, n, N, M,
                                       &g->link_first));
    const int64_t nl = g->offsets[n];
    CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/links/targets", H5T_NATIVE_INT64, 8,
                                     g->link_first, nl, &g->targets));
    CS_TRY_AGREE(ctx, check_targets(ctx, path, g->offsets, g->targets, first, n, N));
    if ((what & GIO_READ_WEIGHTS) && hdr->has_weights)
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/links/weights", H5T_NATIVE_UINT32, 4,
                                         g->link_first, nl, &g->weights));

    /* Page attributes. */
    if (what & GIO_READ_PAGES) {
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/host", H5T_NATIVE_INT64, 8, first,
                                         n, &g->host));
        CS_TRY_AGREE(ctx, cs_graphio_check_ids64(ctx, path, "/pages/host", g->host, first, n, 0,
                                                 hdr->n_hosts));
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/topic", H5T_NATIVE_INT32, 4,
                                         first, n, &g->topic));
        CS_TRY_AGREE(ctx, cs_graphio_check_ids32(ctx, path, "/pages/topic", g->topic, first, n, -1,
                                                 hdr->n_topics));
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/relevance", H5T_NATIVE_DOUBLE, 8,
                                         first, n, &g->relevance));
        CS_TRY_AGREE(ctx, cs_graphio_check_f64(ctx, path, "/pages/relevance", g->relevance, NULL,
                                               first, n, CS_GRAPHIO_UNIT));
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/delta", H5T_NATIVE_DOUBLE, 8,
                                         first, n, &g->delta));
        CS_TRY_AGREE(ctx, cs_graphio_check_f64(ctx, path, "/pages/delta", g->delta, NULL, first, n,
                                               CS_GRAPHIO_POSITIVE));
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/mu", H5T_NATIVE_DOUBLE, 8, first,
                                         n, &g->mu));
        CS_TRY_AGREE(ctx, cs_graphio_check_f64(ctx, path, "/pages/mu", g->mu, NULL, first, n,
                                               CS_GRAPHIO_POSITIVE));
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/observable", H5T_NATIVE_UINT8, 1,
                                         first, n, &g->observable));
        CS_TRY_AGREE(ctx, cs_graphio_check_flags(ctx, path, "/pages/observable", g->observable,
                                                 NULL, first, n));
    }

    /* Terms. */
    if ((what & GIO_READ_TERMS) && hdr->has_terms) {
        int64_t tlen = 0, tbase = 0;
        hid_t d = H5Dopen2(file, "/terms/index", H5P_DEFAULT);
        hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
        hsize_t dim = 0;
        if (sp >= 0 && H5Sget_simple_extent_dims(sp, &dim, NULL) == 1)
            tlen = (int64_t)dim;
        else
            rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot open /terms/index", path);
        if (sp >= 0)
            H5Sclose(sp);
        if (d >= 0)
            H5Dclose(d);
        CS_TRY_AGREE(ctx, rc);
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/terms/offsets", H5T_NATIVE_INT64, 8,
                                         first, n + 1, &g->term_offsets));
        CS_TRY_AGREE(ctx, localize_offsets(ctx, path, "/terms/offsets", g->term_offsets, first, n,
                                           N, tlen, &tbase));
        const int64_t nt = g->term_offsets[n];
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/terms/index", H5T_NATIVE_INT32, 4,
                                         tbase, nt, &g->term_index));
        CS_TRY_AGREE(ctx, cs_graphio_check_ids32(ctx, path, "/terms/index", g->term_index, tbase,
                                                 nt, 0, hdr->term_dim));
        CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/terms/value", H5T_NATIVE_FLOAT, 4,
                                         tbase, nt, &g->term_value));
        CS_TRY_AGREE(ctx, cs_graphio_check_f32(ctx, path, "/terms/value", g->term_value, NULL,
                                               tbase, nt, CS_GRAPHIO_FINITE));
        g->term_dim = hdr->term_dim;
    }
    return CS_OK;
fail:
    cs_graph_slice_fini(g);
    return rc;
}

/* ---- meta ----------------------------------------------------------------------------------- */

/* Collective. Reads one names table (every rank reads all of it) and checks it. */
static cs_err read_names(cs_ctx *ctx, hid_t file, const char *path, const char *grp, int64_t count,
                         char **blob, int64_t **offs)
{
    cs_err rc = CS_OK;
    char oname[64], bname[64];
    snprintf(oname, sizeof oname, "/%s/name_offsets", grp);
    snprintf(bname, sizeof bname, "/%s/names", grp);
    int64_t bytes = 0;
    hid_t d = H5Dopen2(file, bname, H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dim = 0;
    if (sp >= 0 && H5Sget_simple_extent_dims(sp, &dim, NULL) == 1)
        bytes = (int64_t)dim;
    else
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot open %s", path, bname);
    if (sp >= 0)
        H5Sclose(sp);
    if (d >= 0)
        H5Dclose(d);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, oname, H5T_NATIVE_INT64, 8, 0, count, offs));
    CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, bname, H5T_NATIVE_UINT8, 1, 0, bytes, blob));
    if (count > 0 && (bytes == 0 || (*blob)[bytes - 1] != '\0'))
        rc = cs_fail(ctx, CS_ERR_FORMAT, "graph file %s: dataset %s does not end with a NUL", path,
                     bname);
    for (int64_t i = 0; rc == CS_OK && i < count; i++)
        if ((*offs)[i] < 0 || (*offs)[i] >= bytes)
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "graph file %s: dataset %s is corrupt: element %lld "
                         "is %lld, outside [0, %lld)",
                         path, oname, (long long)i, (long long)(*offs)[i], (long long)bytes);
    CS_TRY_AGREE(ctx, rc);
    return CS_OK;
fail:
    free(*blob);
    free(*offs);
    *blob = NULL;
    *offs = NULL;
    return rc;
}

cs_err cs_graphio_read_slice(cs_ctx *ctx, const char *path, int64_t first, int64_t n,
                             cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t file = -1;
    cs_graph_header hdr;
    cs_graph_slice_init(g);
    if (meta != NULL)
        cs_graph_meta_init(meta);
    CS_TRY(ctx, cs_graphio_open(ctx, path, &file, &hdr));
    CS_TRY(ctx, gio_read_pages(ctx, file, path, &hdr, first, n,
                               GIO_READ_PAGES | GIO_READ_WEIGHTS | GIO_READ_TERMS, g));
    if (meta != NULL) {
        meta->n_hosts = hdr.n_hosts;
        meta->n_topics = hdr.n_topics;
        meta->target_topic = hdr.target_topic;
        meta->seed = hdr.seed;
        memcpy(meta->source, hdr.source, sizeof meta->source);
        if (hdr.has_host_names)
            CS_TRY(ctx, read_names(ctx, file, path, "hosts", hdr.n_hosts, &meta->host_blob,
                                   &meta->host_name_off));
        if (hdr.has_topic_names)
            CS_TRY(ctx, read_names(ctx, file, path, "topics", hdr.n_topics, &meta->topic_blob,
                                   &meta->topic_name_off));
    }
    if (H5Fclose(file) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing it", path);
    file = -1;
    CS_TRY(ctx, cs_agree(ctx, rc));
    cs_h5_quiet_end(&quiet);
    return CS_OK;
fail:
    if (file >= 0)
        H5Fclose(file);
    cs_graph_slice_fini(g);
    if (meta != NULL)
        cs_graph_meta_fini(meta);
    cs_h5_quiet_end(&quiet);
    return rc;
}
