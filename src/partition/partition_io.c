/*
 * partition files: writing a partition into its graph file (group /partition, replaced
 * atomically through /partition.tmp and H5Lmove) or into a separate file (temporary name,
 * then rename), and reading it back with checks against the graph. Schema: partition.h.
 * Parallel HDF5 through the graphio helpers (the public cs_graphio_* HDF5 API): attributes are
 * metadata written by every rank with the same values; `part` is written in blocks, one per rank.
 */
#include "crawlsim/comm.h"
#include "crawlsim/partition.h"
#include "partition_impl.h"

#include "crawlsim/graphio.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_GROUP "/partition.tmp"
#define GROUP "/partition"

static const char *objective_name(int o)
{
    return o == 1 ? "volume" : "cut";
}
static const char *vweight_name(int v)
{
    return v == 1 ? "links" : "pages";
}

/* ---- writing -------------------------------------------------------------------------------- */

/* Local (HDF5 metadata: every rank calls it with the same values); messages name the file. */
static cs_err write_attrs(cs_ctx *ctx, hid_t g, const cs_partition *p, const char *path)
{
    cs_err rc = CS_OK;
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "partition %s", path);
    int32_t version = CS_PARTITION_SCHEMA_VERSION;
    const cs_part_quality *q = &p->quality;
    CS_TRY(ctx, cs_h5_attr_write_string(ctx, g, "format", CS_PARTITION_FORMAT, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32,
                                 &version, what));
    CS_TRY(ctx,
           cs_h5_attr_write_string(ctx, g, "method", cs_partition_method_name(p->method), what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "k", H5T_STD_I32LE, H5T_NATIVE_INT32, &p->k, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "seed", H5T_STD_I64LE, H5T_NATIVE_INT64, &p->seed, what));
    CS_TRY(ctx,
           cs_h5_attr_write(ctx, g, "ufactor", H5T_STD_I32LE, H5T_NATIVE_INT32, &p->ufactor, what));
    CS_TRY(ctx, cs_h5_attr_write_string(ctx, g, "objective", objective_name(p->objective), what));
    CS_TRY(ctx,
           cs_h5_attr_write_string(ctx, g, "vertex_weight", vweight_name(p->vertex_weight), what));
    CS_TRY(ctx,
           cs_h5_attr_write(ctx, g, "n_pages", H5T_STD_I64LE, H5T_NATIVE_INT64, &p->n_pages, what));
    CS_TRY(ctx,
           cs_h5_attr_write(ctx, g, "n_links", H5T_STD_I64LE, H5T_NATIVE_INT64, &p->n_links, what));
    CS_TRY(ctx, cs_h5_attr_write_string(ctx, g, "graph_source", p->graph_source, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "edge_cut", H5T_STD_I64LE, H5T_NATIVE_INT64, &q->edge_cut,
                                 what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "cut_fraction", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                 &q->cut_fraction, what));
    CS_TRY(ctx,
           cs_h5_attr_write(ctx, g, "volume", H5T_STD_I64LE, H5T_NATIVE_INT64, &q->volume, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "page_balance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                 &q->page_balance, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "link_balance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                 &q->link_balance, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "hosts_split", H5T_STD_I64LE, H5T_NATIVE_INT64,
                                 &q->hosts_split, what));
    CS_TRY(ctx, cs_h5_attr_write(ctx, g, "seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &p->seconds,
                                 what));
fail:
    return rc;
}

/*
 * Collective. Creates dataset `leaf` of `total` elements in g and writes this rank's
 * [off, off + count) from buf (which holds the whole array). Returns an agreed code.
 */
static cs_err dataset_put(cs_ctx *ctx, hid_t g, const char *leaf, hid_t ftype, hid_t mtype,
                          size_t elem, int64_t total, int64_t off, int64_t count, const void *buf,
                          const char *path)
{
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "partition %s", path);
    return cs_h5_create_write_1d(ctx, g, leaf, ftype, mtype, elem, total, off, count,
                                 (const char *)buf + (size_t)off * elem, what, path, leaf);
}

/* Collective. Attributes and datasets of p into the open group g. Agreed code. */
static cs_err write_group(cs_ctx *ctx, hid_t g, const cs_partition *p, const char *path)
{
    cs_err rc = cs_agree(ctx, write_attrs(ctx, g, p, path));
    if (rc != CS_OK)
        return rc;
    hid_t ftype = p->k <= 255 ? H5T_STD_U8LE : p->k <= 65535 ? H5T_STD_U16LE : H5T_STD_I32LE;
    int64_t first = 0, count = 0;
    cs_block_range(p->n_pages, ctx->rank, ctx->size, &first, &count);
    rc = dataset_put(ctx, g, "part", ftype, H5T_NATIVE_INT32, sizeof(int32_t), p->n_pages, first,
                     count, p->part, path);
    if (rc == CS_OK && p->host_part != NULL) {
        cs_block_range(p->n_hosts, ctx->rank, ctx->size, &first, &count);
        rc = dataset_put(ctx, g, "host_part", H5T_STD_I32LE, H5T_NATIVE_INT32, sizeof(int32_t),
                         p->n_hosts, first, count, p->host_part, path);
    }
    if (rc == CS_OK && p->part_first != NULL)
        rc = dataset_put(ctx, g, "part_first", H5T_STD_I64LE, H5T_NATIVE_INT64, sizeof(int64_t),
                         (int64_t)p->k + 1, 0, ctx->rank == 0 ? (int64_t)p->k + 1 : 0,
                         p->part_first, path);
    return rc;
}

/* Collective. Into the graph file: /partition.tmp, then delete /partition, then move. */
static cs_err write_into_graph(cs_ctx *ctx, const char *path, const cs_partition *p)
{
    cs_err rc = CS_OK;
    hid_t file = -1, g = -1;
    cs_graph_header hdr;
    CS_TRY(ctx, cs_graphio_read_header(ctx, path, &hdr));
    if (hdr.n_pages != p->n_pages)
        rc = cs_fail(ctx, CS_ERR_ARG, "graph file %s has %lld pages, the partition %lld", path,
                     (long long)hdr.n_pages, (long long)p->n_pages);
    CS_TRY_AGREE(ctx, rc);
    /* The graph is written in place: a full disk in the middle could leave it damaged, and a
     * failed close crashes HDF5 in MPI_Finalize. The partition's bytes (4 per page and host, 8
     * per part) and 64 KiB of metadata must be free first. */
    if (ctx->rank == 0)
        rc = cs_h5_check_space(ctx, "the partition into graph file", path,
                               (uint64_t)(4 * (p->n_pages + p->n_hosts) + 8 * (p->k + 1)) +
                                   ((uint64_t)1 << 16));
    CS_TRY_AGREE(ctx, rc);
    file = cs_h5_fopen(ctx->comm, path, H5F_ACC_RDWR);
    if (file < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot open it for writing", path);
    CS_TRY_AGREE(ctx, rc);
    /* A leftover of a failed run. */
    if (H5Lexists(file, TMP_GROUP, H5P_DEFAULT) > 0 && H5Ldelete(file, TMP_GROUP, H5P_DEFAULT) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot delete %s", path, TMP_GROUP);
    CS_TRY_AGREE(ctx, rc);
    g = H5Gcreate2(file, TMP_GROUP, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot create group %s", path,
                     TMP_GROUP);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, write_group(ctx, g, p, path));
    if (H5Gclose(g) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing %s", path, TMP_GROUP);
    g = -1;
    CS_TRY_AGREE(ctx, rc);
    if (H5Lexists(file, GROUP, H5P_DEFAULT) > 0 && H5Ldelete(file, GROUP, H5P_DEFAULT) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot delete the old %s", path, GROUP);
    CS_TRY_AGREE(ctx, rc);
    if (H5Lmove(file, TMP_GROUP, file, GROUP, H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot move %s to %s", path, TMP_GROUP,
                     GROUP);
    CS_TRY_AGREE(ctx, rc);
    if (H5Fclose(file) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing it", path);
    file = -1;
    CS_TRY_AGREE(ctx, rc);
    /* the blocks cs_h5_write_1d reserved past the graph's end go back (the same size) */
    struct stat st;
    if (ctx->rank == 0 && stat(path, &st) == 0 && truncate(path, st.st_size) != 0)
        CS_LOG(ctx, CS_LOG_DEBUG, "graph file %s: giving back reserved blocks: %s", path,
               strerror(errno));
    return CS_OK;
fail:
    if (g >= 0)
        H5Gclose(g);
    if (file >= 0)
        H5Fclose(file);
    return rc;
}

/* Collective. A separate partition file, under a temporary name then renamed. */
static cs_err write_separate(cs_ctx *ctx, const char *path, const cs_partition *p)
{
    cs_err rc = CS_OK;
    hid_t file = -1, fapl = -1;
    size_t plen = strlen(path);
    char *tmp = NULL;
    long pid = (long)getpid();
    cs_bcast(ctx, &pid, 1, CS_T_LONG, 0);
    CS_TRY_AGREE(ctx, cs_alloc(ctx, &tmp, plen + 64, 1, "temporary file name"));
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(tmp, plen + 64, ".%s.tmp.%ld", path, pid);
    else
        snprintf(tmp, plen + 64, "%.*s/.%s.tmp.%ld", (int)(slash - path), path, slash + 1, pid);
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "partition file %s", path);
    if (ctx->rank == 0)
        cs_h5_tmp_guard(tmp); /* a signal that kills rank 0 removes it */
    /* room for the metadata, so that a close after a failure can write it (cs_h5_close_tmp) */
    CS_TRY(ctx, cs_h5_room_take(ctx, tmp, 1, what));
    fapl = cs_h5_fapl(ctx->comm);
    if (fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0)
        file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (file < 0)
        rc = cs_fail(ctx, CS_ERR_IO, "cannot create partition file %s (as %s)", path, tmp);
    CS_TRY_AGREE(ctx, rc);
    hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
    if (root < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "partition file %s: HDF5 cannot open its root", path);
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK)
        rc = write_group(ctx, root, p, path);
    if (root >= 0)
        H5Gclose(root);
    /* agreed; on failure the temporary is removed, and neither the close nor MPI_Finalize crash
     * or hang on a full disk */
    rc = cs_h5_close_tmp(ctx, file, tmp, 1, rc, what);
    file = -1;
    if (rc != CS_OK) {
        if (ctx->rank == 0)
            cs_h5_tmp_unguard();
        free(tmp);
        return rc;
    }
    if (ctx->rank == 0 && rename(tmp, path) != 0)
        rc = cs_fail(ctx, CS_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (ctx->rank == 0)
        cs_h5_tmp_unguard();
    CS_TRY_AGREE(ctx, rc);
    free(tmp);
    return CS_OK;
fail:
    if (file >= 0)
        H5Fclose(file);
    if (tmp != NULL) {
        cs_barrier(ctx);
        cs_h5_room_give(ctx, tmp, 1);
        if (ctx->rank == 0) {
            unlink(tmp);
            cs_h5_tmp_unguard();
        }
    }
    free(tmp);
    return rc;
}

cs_err cs_partition_write(cs_ctx *ctx, const char *path, int in_graph_file, const cs_partition *p)
{
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    cs_err rc = in_graph_file ? write_into_graph(ctx, path, p) : write_separate(ctx, path, p);
    cs_h5_quiet_end(&quiet);
    return rc;
}

/* ---- reading -------------------------------------------------------------------------------- */

static int method_from_name(const char *s)
{
    for (int m = 0; m <= CS_PART_BLOCK; m++)
        if (strcmp(s, cs_partition_method_name(m)) == 0)
            return m;
    return -1;
}

/* Local. The attributes of group g into p (format and version checked first). */
static cs_err read_attrs(cs_ctx *ctx, hid_t g, cs_partition *p, const char *what)
{
    cs_err rc = CS_OK;
    char s[256];
    int32_t version = 0;
    cs_part_quality *q = &p->quality;
    if (H5Aexists(g, "format") <= 0 ||
        cs_h5_attr_read_string(ctx, g, "format", s, sizeof s, what) != CS_OK ||
        strcmp(s, CS_PARTITION_FORMAT) != 0) {
        cs_ctx_clear_error(ctx);
        return cs_fail(ctx, CS_ERR_FORMAT, "%s is not a crawlsim partition (format attribute)",
                       what);
    }
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "schema_version", H5T_INTEGER, H5T_NATIVE_INT32, &version,
                                what));
    if (version != CS_PARTITION_SCHEMA_VERSION)
        return cs_fail(ctx, CS_ERR_SCHEMA,
                       "%s has partition schema version %d, this crawlsim reads version %d: "
                       "partition the graph again",
                       what, (int)version, CS_PARTITION_SCHEMA_VERSION);
    CS_TRY(ctx, cs_h5_attr_read_string(ctx, g, "method", s, sizeof s, what));
    p->method = method_from_name(s);
    if (p->method < 0)
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: unknown method '%s'", what, s);
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "k", H5T_INTEGER, H5T_NATIVE_INT32, &p->k, what));
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "seed", H5T_INTEGER, H5T_NATIVE_INT64, &p->seed, what));
    CS_TRY(ctx,
           cs_h5_attr_read(ctx, g, "ufactor", H5T_INTEGER, H5T_NATIVE_INT32, &p->ufactor, what));
    CS_TRY(ctx, cs_h5_attr_read_string(ctx, g, "objective", s, sizeof s, what));
    p->objective = strcmp(s, "volume") == 0;
    CS_TRY(ctx, cs_h5_attr_read_string(ctx, g, "vertex_weight", s, sizeof s, what));
    p->vertex_weight = strcmp(s, "links") == 0;
    CS_TRY(ctx,
           cs_h5_attr_read(ctx, g, "n_pages", H5T_INTEGER, H5T_NATIVE_INT64, &p->n_pages, what));
    CS_TRY(ctx,
           cs_h5_attr_read(ctx, g, "n_links", H5T_INTEGER, H5T_NATIVE_INT64, &p->n_links, what));
    CS_TRY(ctx, cs_h5_attr_read_string(ctx, g, "graph_source", p->graph_source,
                                       sizeof p->graph_source, what));
    CS_TRY(ctx,
           cs_h5_attr_read(ctx, g, "edge_cut", H5T_INTEGER, H5T_NATIVE_INT64, &q->edge_cut, what));
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "cut_fraction", H5T_FLOAT, H5T_NATIVE_DOUBLE,
                                &q->cut_fraction, what));
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "volume", H5T_INTEGER, H5T_NATIVE_INT64, &q->volume, what));
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "page_balance", H5T_FLOAT, H5T_NATIVE_DOUBLE,
                                &q->page_balance, what));
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "link_balance", H5T_FLOAT, H5T_NATIVE_DOUBLE,
                                &q->link_balance, what));
    CS_TRY(ctx, cs_h5_attr_read(ctx, g, "hosts_split", H5T_INTEGER, H5T_NATIVE_INT64,
                                &q->hosts_split, what));
    CS_TRY(ctx,
           cs_h5_attr_read(ctx, g, "seconds", H5T_FLOAT, H5T_NATIVE_DOUBLE, &p->seconds, what));
fail:
    return rc;
}

/*
 * Local. The counts and quality figures read from the attributes are what the writer can
 * produce (printed by `crawlsim info` and `partition`, so a damaged file must not show NaN or
 * negative counts): counts >= 0, edge_cut <= n_links, cut_fraction in [0, 1], balances and
 * seconds finite and >= 0, ufactor >= 0.
 */
static cs_err check_attrs(cs_ctx *ctx, const cs_partition *p, const char *what)
{
    const cs_part_quality *q = &p->quality;
    const struct {
        const char *name;
        double v, lo, hi;
    } f[] = {{"n_links", (double)p->n_links, 0, (double)INT64_MAX},
             {"edge_cut", (double)q->edge_cut, 0, (double)(p->n_links > 0 ? p->n_links : 0)},
             {"volume", (double)q->volume, 0, (double)INT64_MAX},
             {"hosts_split", (double)q->hosts_split, 0, (double)INT64_MAX},
             {"ufactor", (double)p->ufactor, 0, (double)INT32_MAX},
             {"cut_fraction", q->cut_fraction, 0, 1},
             {"page_balance", q->page_balance, 0, DBL_MAX},
             {"link_balance", q->link_balance, 0, DBL_MAX},
             {"seconds", p->seconds, 0, DBL_MAX}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!(f[i].v >= f[i].lo && f[i].v <= f[i].hi)) /* NaN fails too */
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "%s is corrupt: attribute %s is %g, outside [%g, %g]", what, f[i].name,
                           f[i].v, f[i].lo, f[i].hi);
    return CS_OK;
}

cs_err cs_partition_read_attrs(cs_ctx *ctx, hid_t g, cs_partition *p, const char *what)
{
    cs_err rc = read_attrs(ctx, g, p, what);
    return rc == CS_OK ? check_attrs(ctx, p, what) : rc;
}

/* Local. Length of 1-D dataset `name` in g, or -1 when absent (-2 when not a 1-D array of
 * integers that fit the memory type mt, or not all stored: the reader contract of h5.h). */
static int64_t dataset_len(hid_t g, const char *name, hid_t mt)
{
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
        return -1;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return -2;
    hid_t sp = H5Dget_space(d);
    hid_t t = H5Dget_type(d);
    int64_t n = -2;
    hsize_t dim = 0;
    H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
    if (sp >= 0 && t >= 0 && H5Tget_class(t) == H5T_INTEGER && cs_h5_int_fits(t, mt) &&
        H5Sget_simple_extent_type(sp) == H5S_SIMPLE && H5Sget_simple_extent_ndims(sp) == 1 &&
        H5Sget_simple_extent_dims(sp, &dim, NULL) == 1 &&
        (dim == 0 ||
         (H5Dget_space_status(d, &status) >= 0 && status == H5D_SPACE_STATUS_ALLOCATED)))
        n = (int64_t)dim; /* else not 1-D, or not all stored (chunks never written) */
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    H5Dclose(d);
    return n;
}

/* Collective. Reads the whole dataset `name` (expected length n) on every rank into *out. */
static cs_err read_full(cs_ctx *ctx, hid_t g, const char *name, hid_t mtype, size_t elem, int64_t n,
                        void *out, const char *path)
{
    cs_err rc = CS_OK;
    void *buf = NULL;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot open dataset %s", path, name);
    else
        rc = cs_alloc(ctx, &buf, (size_t)(n > 0 ? n : 1), elem, name);
    rc = cs_agree(ctx, rc);
    if (rc == CS_OK)
        rc = cs_agree(ctx, cs_h5_read_1d(ctx, d, mtype, 0, n, buf, elem, path, name));
    if (d >= 0)
        H5Dclose(d);
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    *(void **)out = buf;
    return CS_OK;
}

/* Local. Every part number v[i] lies in [0, k); a format error naming the first bad one. */
static cs_err check_parts(cs_ctx *ctx, const char *what, const char *name, const int32_t *v,
                          int64_t n, int32_t k)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v, n, k) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (v[i] < 0 || v[i] >= k)
            bad = i < bad ? i : bad;
    if (bad == INT64_MAX)
        return CS_OK;
    return cs_fail(ctx, CS_ERR_FORMAT,
                   "%s is corrupt: dataset %s, element %lld is %d, outside [0, %d)", what, name,
                   (long long)bad, (int)v[bad], (int)k);
}

static cs_err read_impl(cs_ctx *ctx, const char *graph_path, const char *partition_path,
                        cs_partition *out)
{
    cs_err rc = CS_OK;
    cs_graph_header hdr;
    hid_t file = -1, g = -1;
    char what[CS_CONF_STR + 64];
    const char *fpath = partition_path != NULL ? partition_path : graph_path;
    CS_TRY(ctx, cs_graphio_read_header(ctx, graph_path, &hdr));
    if (partition_path != NULL) {
        snprintf(what, sizeof what, "partition file %s", partition_path);
        if (ctx->rank == 0)
            rc = cs_h5_probe(ctx, partition_path, "partition file");
        CS_TRY_AGREE(ctx, rc);
    } else {
        snprintf(what, sizeof what, "graph file %s, group /partition", graph_path);
    }
    file = cs_h5_fopen(ctx->comm, fpath, H5F_ACC_RDONLY);
    if (file < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot open it", fpath);
    CS_TRY_AGREE(ctx, rc);
    if (partition_path == NULL && H5Lexists(file, GROUP, H5P_DEFAULT) <= 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "graph file %s has no partition; run crawlsim partition %s -k K", graph_path,
                     graph_path);
    CS_TRY_AGREE(ctx, rc);
    g = H5Gopen2(file, partition_path == NULL ? GROUP : "/", H5P_DEFAULT);
    if (g < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot open the group", what);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, cs_partition_read_attrs(ctx, g, out, what));
    out->n_hosts = hdr.n_hosts;
    if (out->n_pages != hdr.n_pages)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "%s is for a graph of %lld pages, graph file %s has %lld: partition it again",
                     what, (long long)out->n_pages, graph_path, (long long)hdr.n_pages);
    else if (out->k < 1 || out->k > hdr.n_pages)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: k = %d is outside [1, %lld]", what, (int)out->k,
                     (long long)hdr.n_pages);
    else if (dataset_len(g, "part", H5T_NATIVE_INT32) != hdr.n_pages)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: dataset part is missing or not of %lld elements",
                     what, (long long)hdr.n_pages);
    else if (dataset_len(g, "host_part", H5T_NATIVE_INT32) != -1 &&
             dataset_len(g, "host_part", H5T_NATIVE_INT32) != hdr.n_hosts)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: dataset host_part does not have %lld elements", what,
                     (long long)hdr.n_hosts);
    else if (dataset_len(g, "part_first", H5T_NATIVE_INT64) != -1 &&
             dataset_len(g, "part_first", H5T_NATIVE_INT64) != out->k + 1)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: dataset part_first does not have k + 1 elements",
                     what);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, read_full(ctx, g, "part", H5T_NATIVE_INT32, sizeof(int32_t), hdr.n_pages,
                          &out->part, fpath));
    if (dataset_len(g, "host_part", H5T_NATIVE_INT32) >= 0)
        CS_TRY(ctx, read_full(ctx, g, "host_part", H5T_NATIVE_INT32, sizeof(int32_t), hdr.n_hosts,
                              &out->host_part, fpath));
    if (dataset_len(g, "part_first", H5T_NATIVE_INT64) >= 0)
        CS_TRY(ctx, read_full(ctx, g, "part_first", H5T_NATIVE_INT64, sizeof(int64_t),
                              (int64_t)out->k + 1, &out->part_first, fpath));
    /* Every rank read the same values: checking them locally gives the same answer. */
    rc = check_parts(ctx, what, "part", out->part, out->n_pages, out->k);
    if (rc == CS_OK && out->host_part != NULL)
        rc = check_parts(ctx, what, "host_part", out->host_part, out->n_hosts, out->k);
    if (rc == CS_OK && out->part_first != NULL) {
        int ok = out->part_first[0] == 0 && out->part_first[out->k] == out->n_pages;
        for (int32_t p = 0; ok && p < out->k; p++)
            ok = out->part_first[p] <= out->part_first[p + 1];
        if (!ok)
            rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: part_first is not a range table of [0, %lld)",
                         what, (long long)out->n_pages);
    }
    CS_TRY_AGREE(ctx, rc);
    H5Gclose(g);
    H5Fclose(file);
    return CS_OK;
fail:
    if (g >= 0)
        H5Gclose(g);
    if (file >= 0)
        H5Fclose(file);
    cs_partition_fini(out);
    return rc;
}

cs_err cs_partition_read(cs_ctx *ctx, const char *graph_path, const char *partition_path,
                         cs_partition *out)
{
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    cs_err rc = read_impl(ctx, graph_path, partition_path, out);
    cs_h5_quiet_end(&quiet);
    return rc;
}

cs_err cs_partition_exists(cs_ctx *ctx, const char *graph_path, int *exists)
{
    int e = 0;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    if (ctx->rank == 0) {
        hid_t f = H5Fopen(graph_path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f >= 0) {
            e = H5Lexists(f, GROUP, H5P_DEFAULT) > 0;
            H5Fclose(f);
        }
    }
    cs_h5_quiet_end(&quiet);
    cs_bcast(ctx, &e, 1, CS_T_INT, 0);
    *exists = e;
    return CS_OK;
}
