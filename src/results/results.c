/*
 * results: the results file of `crawlsim run` (format in results.h;
 * DESIGN.md "Files" and "Determinism").
 *
 * Results are small, so they are assembled in memory and rank 0 writes the file alone with the
 * default (sec2) driver: no collective HDF5 metadata, and the other ranks only take part in the
 * gathers and in the final agreement on the code. Every rank records the paths and shapes (so
 * path errors are found alike on every rank); only rank 0 keeps the data.
 *
 * Determinism: object headers normally carry modification times; they are switched off on the
 * root group, every group and every dataset (H5Pset_obj_track_times), the format is pinned
 * (HDF5 1.8 objects), and objects are written sorted by path, attributes by (path, name), so
 * the same records give the same bytes whatever order the caller recorded them in. Wall-clock
 * values belong under /timing, by convention only.
 */
#include "crawlsim/results.h"
#include "crawlsim/comm.h"

#include "crawlsim/h5.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Datasets of at most this many bytes go into the object header (compact layout). */
#define COMPACT_MAX 4096

/* One recorded dataset. path is normalised: no leading '/', e.g. "series/fetched". */
typedef struct res_dset {
    char *path;
    int is_text;
    cs_results_type type;
    int64_t rows, cols; /* cols 0 = 1-D; text: rows = cols = 0 */
    size_t bytes;       /* of data (text: strlen) */
    void *data;         /* rank 0 only (NULL elsewhere, and when bytes is 0 and not text) */
} res_dset;

/* One string attribute; path "" is the root. */
typedef struct res_attr {
    char *path;
    char *name;
    char *value;
} res_attr;

struct cs_results {
    res_dset *d;
    size_t nd, capd;
    res_attr *a;
    size_t na, capa;
};

static const char *const reserved_root_attrs[] = {"format", "schema_version", "crawlsim_version"};

static size_t type_size(cs_results_type t)
{
    return t == CS_RES_U8 ? 1 : 8;
}

static int type_valid(cs_results_type t)
{
    return t == CS_RES_I64 || t == CS_RES_F64 || t == CS_RES_U8;
}

static hid_t file_type(cs_results_type t)
{
    return t == CS_RES_I64 ? H5T_STD_I64LE : t == CS_RES_F64 ? H5T_IEEE_F64LE : H5T_STD_U8LE;
}

static hid_t mem_type(cs_results_type t)
{
    return t == CS_RES_I64   ? H5T_NATIVE_INT64
           : t == CS_RES_F64 ? H5T_NATIVE_DOUBLE
                             : H5T_NATIVE_UINT8;
}

/* Local. Checks path and stores its normalised form (leading '/' dropped) in *out (caller frees).
 * allow_root: "" and "/" are accepted (as ""). `what` names the caller in messages. */
static cs_err norm_path(cs_ctx *ctx, const char *what, const char *path, int allow_root, char **out)
{
    if (path == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "results: %s: path is NULL", what);
    const char *p = path[0] == '/' ? path + 1 : path;
    if (p[0] == '\0' && !allow_root)
        return cs_fail(ctx, CS_ERR_ARG, "results: %s: path \"%s\" names the root group", what,
                       path);
    for (const char *c = p; *c != '\0';) {
        const char *e = strchr(c, '/');
        size_t len = e != NULL ? (size_t)(e - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.') ||
            (e != NULL && e[1] == '\0'))
            return cs_fail(ctx, CS_ERR_ARG,
                           "results: %s: bad path \"%s\" (empty, \".\" or \"..\" component)", what,
                           path);
        c += len + (e != NULL ? 1 : 0);
    }
    char *n = cs_h5_dup_str(p);
    if (n == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "results: %s: out of memory", what);
    *out = n;
    return CS_OK;
}

/* a is b or an ancestor of b, component-wise ("" is the ancestor of everything). */
static int is_prefix(const char *a, const char *b)
{
    size_t n = strlen(a);
    return n == 0 || (strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/'));
}

/* Local. A new dataset at p (normalised) clashes with nothing recorded. */
static cs_err check_new_dataset(cs_ctx *ctx, const cs_results *r, const char *p)
{
    for (size_t i = 0; i < r->nd; i++) {
        const char *q = r->d[i].path;
        if (strcmp(p, q) == 0)
            return cs_fail(ctx, CS_ERR_ARG, "results: dataset /%s is recorded twice", p);
        if (is_prefix(q, p) || is_prefix(p, q))
            return cs_fail(ctx, CS_ERR_ARG,
                           "results: dataset /%s clashes with dataset /%s (a dataset cannot "
                           "hold other objects)",
                           p, q);
    }
    for (size_t i = 0; i < r->na; i++) {
        const char *q = r->a[i].path;
        if (strcmp(p, q) != 0 && is_prefix(p, q))
            return cs_fail(ctx, CS_ERR_ARG,
                           "results: dataset /%s would hold the object /%s of attribute %s", p, q,
                           r->a[i].name);
    }
    return CS_OK;
}

/* Local. Appends a dataset record, taking ownership of path and data (freed on failure too). */
static cs_err push_dataset(cs_ctx *ctx, cs_results *r, char *path, int is_text,
                           cs_results_type type, int64_t rows, int64_t cols, size_t bytes,
                           void *data)
{
    cs_err rc = cs_grow(ctx, &r->d, &r->capd, r->nd + 1, sizeof *r->d, "results datasets");
    if (rc != CS_OK) {
        free(path);
        free(data);
        return rc;
    }
    res_dset *d = &r->d[r->nd++];
    d->path = path;
    d->is_text = is_text;
    d->type = type;
    d->rows = rows;
    d->cols = cols;
    d->bytes = bytes;
    d->data = data;
    return CS_OK;
}

cs_err cs_results_create(cs_ctx *ctx, cs_results **out)
{
    cs_results *r = NULL;
    cs_err rc = cs_calloc(ctx, &r, 1, sizeof *r, "results");
    if (rc == CS_OK)
        *out = r;
    return rc;
}

void cs_results_destroy(cs_results **rp)
{
    if (rp == NULL || *rp == NULL)
        return;
    cs_results *r = *rp;
    for (size_t i = 0; i < r->nd; i++) {
        free(r->d[i].path);
        free(r->d[i].data);
    }
    for (size_t i = 0; i < r->na; i++) {
        free(r->a[i].path);
        free(r->a[i].name);
        free(r->a[i].value);
    }
    free(r->d);
    free(r->a);
    free(r);
    *rp = NULL;
}

/* Local. Validates a numeric dataset and returns its size in bytes. */
static cs_err check_shape(cs_ctx *ctx, const char *path, cs_results_type type, int64_t rows,
                          int64_t cols, const void *data, size_t *bytes)
{
    if (!type_valid(type))
        return cs_fail(ctx, CS_ERR_ARG, "results: dataset %s: unknown element type %d", path,
                       (int)type);
    if (rows < 0 || cols < 0)
        return cs_fail(ctx, CS_ERR_ARG, "results: dataset %s: negative shape [%lld][%lld]", path,
                       (long long)rows, (long long)cols);
    const int64_t c = cols > 0 ? cols : 1, esz = (int64_t)type_size(type);
    if (rows > 0 && (c > INT64_MAX / rows || rows * c > (INT64_MAX / esz) ||
                     (uint64_t)(rows * c * esz) > (uint64_t)SIZE_MAX))
        return cs_fail(ctx, CS_ERR_LIMIT, "results: dataset %s: shape [%lld][%lld] is too large",
                       path, (long long)rows, (long long)cols);
    *bytes = (size_t)(rows * c * esz);
    if (*bytes > 0 && data == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "results: dataset %s: data is NULL", path);
    return CS_OK;
}

cs_err cs_results_add(cs_ctx *ctx, cs_results *r, const char *path, cs_results_type type,
                      int64_t rows, int64_t cols, const void *data)
{
    if (r == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "results: add %s: no results object",
                       path != NULL ? path : "(null)");
    char *p = NULL;
    size_t bytes = 0;
    cs_err rc = norm_path(ctx, "add", path, 0, &p);
    if (rc == CS_OK)
        rc = check_shape(ctx, path, type, rows, cols, data, &bytes);
    if (rc == CS_OK)
        rc = check_new_dataset(ctx, r, p);
    void *copy = NULL;
    if (rc == CS_OK && ctx->rank == 0 && bytes > 0) {
        rc = cs_alloc(ctx, &copy, bytes, 1, "results dataset");
        if (rc == CS_OK)
            memcpy(copy, data, bytes);
    }
    if (rc != CS_OK) {
        free(p);
        return rc;
    }
    return push_dataset(ctx, r, p, 0, type, rows, cols, bytes, copy);
}

cs_err cs_results_add_text(cs_ctx *ctx, cs_results *r, const char *path, const char *text)
{
    if (r == NULL || text == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "results: add text %s: no %s",
                       path != NULL ? path : "(null)", r == NULL ? "results object" : "text");
    char *p = NULL;
    cs_err rc = norm_path(ctx, "add text", path, 0, &p);
    if (rc == CS_OK)
        rc = check_new_dataset(ctx, r, p);
    char *copy = NULL;
    size_t len = strlen(text);
    if (rc == CS_OK && ctx->rank == 0) {
        copy = cs_h5_dup_str(text);
        if (copy == NULL)
            rc = cs_fail(ctx, CS_ERR_NOMEM, "results: out of memory copying text /%s (%zu bytes)",
                         p, len);
    }
    if (rc != CS_OK) {
        free(p);
        return rc;
    }
    return push_dataset(ctx, r, p, 1, CS_RES_U8, 0, 0, len, copy);
}

cs_err cs_results_attr(cs_ctx *ctx, cs_results *r, const char *path, const char *name,
                       const char *value)
{
    if (r == NULL || name == NULL || value == NULL || name[0] == '\0')
        return cs_fail(ctx, CS_ERR_ARG, "results: attribute %s on %s: no %s",
                       name != NULL ? name : "(null)", path != NULL ? path : "(null)",
                       r == NULL       ? "results object"
                       : value == NULL ? "value"
                                       : "name");
    char *p = NULL;
    cs_err rc = norm_path(ctx, "attribute", path, 1, &p);
    if (rc != CS_OK)
        return rc;
    if (strlen(value) > CS_RESULTS_ATTR_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "results: attribute %s on /%s: value of %zu bytes (at most %d; use a text "
                     "dataset)",
                     name, p, strlen(value), CS_RESULTS_ATTR_MAX);
    for (size_t i = 0; rc == CS_OK && p[0] == '\0' &&
                       i < sizeof reserved_root_attrs / sizeof reserved_root_attrs[0];
         i++)
        if (strcmp(name, reserved_root_attrs[i]) == 0)
            rc = cs_fail(ctx, CS_ERR_ARG, "results: root attribute %s is reserved", name);
    for (size_t i = 0; rc == CS_OK && i < r->na; i++)
        if (strcmp(r->a[i].path, p) == 0 && strcmp(r->a[i].name, name) == 0)
            rc = cs_fail(ctx, CS_ERR_ARG, "results: attribute %s on /%s is set twice", name, p);
    for (size_t i = 0; rc == CS_OK && i < r->nd; i++)
        if (strcmp(r->d[i].path, p) != 0 && is_prefix(r->d[i].path, p))
            rc = cs_fail(ctx, CS_ERR_ARG, "results: attribute %s: /%s lies below the dataset /%s",
                         name, p, r->d[i].path);
    if (rc == CS_OK)
        rc = cs_grow(ctx, &r->a, &r->capa, r->na + 1, sizeof *r->a, "results attributes");
    if (rc != CS_OK) {
        free(p);
        return rc;
    }
    char *n = cs_h5_dup_str(name), *v = cs_h5_dup_str(value);
    if (n == NULL || v == NULL) {
        free(n);
        free(v);
        free(p);
        return cs_fail(ctx, CS_ERR_NOMEM, "results: out of memory for attribute %s", name);
    }
    res_attr *a = &r->a[r->na++];
    a->path = p;
    a->name = n;
    a->value = v;
    return CS_OK;
}

cs_err cs_results_gather(cs_ctx *ctx, cs_results *r, const char *path, cs_results_type type,
                         int64_t cols, const void *local)
{
    cs_err rc = CS_OK;
    char *p = NULL;
    void *all = NULL;
    const size_t esz = type_valid(type) ? type_size(type) : 1;
    if (r == NULL)
        rc = cs_fail(ctx, CS_ERR_ARG, "results: gather %s: no results object",
                     path != NULL ? path : "(null)");
    if (rc == CS_OK)
        rc = norm_path(ctx, "gather", path, 0, &p);
    if (rc == CS_OK && (!type_valid(type) || cols < 1 || local == NULL))
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "results: gather /%s: type %d, %lld columns, data %s on rank %d", p, (int)type,
                     (long long)cols, local != NULL ? "given" : "NULL", ctx->rank);
    if (rc == CS_OK && cols > (int64_t)(INT_MAX / esz))
        rc = cs_fail(ctx, CS_ERR_LIMIT, "results: gather /%s: %lld columns per rank is too many", p,
                     (long long)cols);
    if (rc == CS_OK)
        rc = check_new_dataset(ctx, r, p);
    CS_TRY_AGREE(ctx, rc);

    /* Logically collective in type and cols. */
    int64_t mm[4] = {-(int64_t)type, (int64_t)type, -cols, cols}, red[4];
    cs_allreduce(ctx, mm, red, 4, CS_T_I64, CS_OP_MAX);
    if (-red[0] != red[1] || -red[2] != red[3])
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "results: gather /%s: ranks pass different element types or column counts", p);
    CS_TRY_AGREE(ctx, rc);

    const size_t row = (size_t)cols * esz, bytes = row * (size_t)ctx->size;
    if (ctx->rank == 0)
        rc = cs_alloc(ctx, &all, bytes, 1, "gathered results");
    CS_TRY_AGREE(ctx, rc);
    cs_gather(ctx, local, (int)row, all, CS_T_BYTE, 0);
    CS_TRY_AGREE(ctx, rc);

    rc = push_dataset(ctx, r, p, 0, type, ctx->size, cols == 1 ? 0 : cols, bytes, all);
    p = NULL; /* owned by the record now, or freed */
    all = NULL;
    CS_TRY_AGREE(ctx, rc);
    return CS_OK;
fail:
    free(all);
    free(p);
    return rc;
}

/* ---- writing (rank 0) ---- */

/* State of one write, for messages and cleanup. */
typedef struct wstate {
    const char *path; /* the target */
    hid_t file, gcpl;
} wstate;

static int cmp_dset(const void *x, const void *y)
{
    const res_dset *a = *(const res_dset *const *)x, *b = *(const res_dset *const *)y;
    return strcmp(a->path, b->path);
}

static int cmp_attr(const void *x, const void *y)
{
    const res_attr *a = *(const res_attr *const *)x, *b = *(const res_attr *const *)y;
    int c = strcmp(a->path, b->path);
    return c != 0 ? c : strcmp(a->name, b->name);
}

/* Rank 0. Creates the groups /c1, /c1/c2, ... that name the first `len` characters of p (a
 * normalised path; len at a component end) and are missing. */
static cs_err make_groups(cs_ctx *ctx, wstate *w, const char *p, size_t len)
{
    char buf[1024];
    if (len + 2 > sizeof buf)
        return cs_fail(ctx, CS_ERR_LIMIT, "results file %s: path /%.*s is too long", w->path,
                       (int)len, p);
    buf[0] = '/';
    for (size_t i = 0; i <= len; i++) {
        if (i < len && p[i] != '/')
            continue;
        memcpy(buf + 1, p, i);
        buf[i + 1] = '\0';
        htri_t ex = H5Lexists(w->file, buf, H5P_DEFAULT);
        if (ex > 0)
            continue;
        hid_t g = ex == 0 ? H5Gcreate2(w->file, buf, H5P_DEFAULT, w->gcpl, H5P_DEFAULT) : -1;
        if (g < 0)
            return cs_fail(ctx, CS_ERR_HDF5, "results file %s: HDF5 failed creating group %s",
                           w->path, buf);
        H5Gclose(g);
    }
    return CS_OK;
}

/* Rank 0. Creates and writes one dataset. */
static cs_err write_dataset(cs_ctx *ctx, wstate *w, const res_dset *d)
{
    cs_err rc = CS_OK;
    const char *slash = strrchr(d->path, '/');
    if (slash != NULL)
        rc = make_groups(ctx, w, d->path, (size_t)(slash - d->path));
    if (rc != CS_OK)
        return rc;
    hid_t sp = -1, ft = -1, dcpl = -1, ds = -1;
    hid_t mt = H5I_INVALID_HID;
    size_t bytes = d->bytes;
    if (d->is_text) {
        bytes = d->bytes + 1;
        sp = H5Screate(H5S_SCALAR);
        ft = H5Tcopy(H5T_C_S1);
        if (ft >= 0 && (H5Tset_size(ft, bytes) < 0 || H5Tset_strpad(ft, H5T_STR_NULLTERM) < 0)) {
            H5Tclose(ft);
            ft = -1;
        }
        mt = ft;
    } else {
        hsize_t dims[2] = {(hsize_t)d->rows, (hsize_t)d->cols};
        sp = H5Screate_simple(d->cols > 0 ? 2 : 1, dims, NULL);
        ft = H5Tcopy(file_type(d->type));
        mt = mem_type(d->type);
    }
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    herr_t st = (sp < 0 || ft < 0 || dcpl < 0) ? -1 : 0;
    if (st >= 0)
        st = H5Pset_obj_track_times(dcpl, 0);
    /* Every element is written: no fill pass. */
    if (st >= 0)
        st = H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    if (st >= 0 && bytes > 0 && bytes <= COMPACT_MAX)
        st = H5Pset_layout(dcpl, H5D_COMPACT);
    if (st >= 0)
        ds = H5Dcreate2(w->file, d->path, ft, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "results file %s: HDF5 failed creating dataset /%s", w->path,
                     d->path);
    else if (bytes > 0 && H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->data) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "results file %s: HDF5 failed writing dataset /%s", w->path,
                     d->path);
    if (ds >= 0 && H5Dclose(ds) < 0 && rc == CS_OK)
        rc = cs_fail(ctx, CS_ERR_HDF5, "results file %s: HDF5 failed closing dataset /%s", w->path,
                     d->path);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ft >= 0)
        H5Tclose(ft);
    if (sp >= 0)
        H5Sclose(sp);
    return rc;
}

/* Rank 0. Writes one attribute, creating its group when nothing is recorded there. */
static cs_err write_attr(cs_ctx *ctx, wstate *w, const res_attr *a)
{
    cs_err rc = CS_OK;
    if (a->path[0] != '\0')
        rc = make_groups(ctx, w, a->path, strlen(a->path));
    if (rc != CS_OK)
        return rc;
    char what[1200];
    snprintf(what, sizeof what, "results file %s: object /%s", w->path, a->path);
    hid_t obj = a->path[0] == '\0' ? H5Oopen(w->file, "/", H5P_DEFAULT) : -1;
    if (a->path[0] != '\0') {
        char abs[1100];
        snprintf(abs, sizeof abs, "/%s", a->path);
        obj = H5Oopen(w->file, abs, H5P_DEFAULT);
    }
    if (obj < 0)
        return cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot open it for attribute %s", what, a->name);
    rc = cs_h5_attr_write_string(ctx, obj, a->name, a->value, what);
    H5Oclose(obj);
    return rc;
}

/* Rank 0. Everything inside the open file: root attributes, datasets, attributes. */
static cs_err write_contents(cs_ctx *ctx, wstate *w, const cs_results *r)
{
    cs_err rc = CS_OK;
    char what[1100];
    snprintf(what, sizeof what, "results file %s: root group", w->path);
    int32_t version = CS_RESULTS_SCHEMA_VERSION;
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    if (root < 0)
        return cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot open it", what);
    rc = cs_h5_attr_write_string(ctx, root, "format", CS_RESULTS_FORMAT, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, root, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32,
                              &version, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write_string(ctx, root, "crawlsim_version", CRAWLSIM_VERSION, what);
    H5Gclose(root);
    if (rc != CS_OK)
        return rc;

    /* Path order, so that the bytes do not depend on the order of the calls. */
    size_t n = r->nd > r->na ? r->nd : r->na;
    void **order = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &order, n > 0 ? n : 1, sizeof *order, "results order"));
    for (size_t i = 0; i < r->nd; i++)
        order[i] = &r->d[i];
    qsort(order, r->nd, sizeof *order, cmp_dset);
    for (size_t i = 0; i < r->nd; i++)
        CS_TRY(ctx, write_dataset(ctx, w, order[i]));
    for (size_t i = 0; i < r->na; i++)
        order[i] = &r->a[i];
    qsort(order, r->na, sizeof *order, cmp_attr);
    for (size_t i = 0; i < r->na; i++)
        CS_TRY(ctx, write_attr(ctx, w, order[i]));
fail:
    free(order);
    return rc;
}

/* Rank 0. The whole write: directory, temporary, contents, fsync, rename; on failure the
 * temporary is removed. HDF5 (sec2) writes most of the file when it closes it, and a close that
 * fails on a full disk leaves it a half-closed file on which it crashes in MPI_Finalize: so the
 * free space is checked first against more than the file can take (the data's bytes and a
 * bound of the metadata's), and the close goes through cs_h5_close_tmp. */
static cs_err write_rank0(cs_ctx *ctx, const cs_results *r, const char *path)
{
    cs_err rc = CS_OK;
    wstate w = {path, -1, -1};
    hid_t fapl = -1, fcpl = -1;
    char *tmp = NULL, *dir = NULL;
    int created = 0;
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "results file %s", path);
    CS_TRY(ctx, cs_h5_tmp_name(ctx, "results file", path, (long)getpid(), &tmp, &dir));
    CS_TRY(ctx, cs_h5_make_dirs(ctx, "results file", path, dir));
    cs_h5_tmp_guard(tmp); /* a signal that kills the process removes it */
    /* the data's bytes, and per object (dataset or attribute) its header, name and the groups'
     * indices: 2 KiB, six times the 340 bytes of a small run's results file */
    uint64_t need = (uint64_t)1 << 16;
    for (size_t i = 0; i < r->nd; i++)
        need += (uint64_t)r->d[i].bytes + 2048u;
    for (size_t i = 0; i < r->na; i++)
        need += strlen(r->a[i].value) + 2048u;
    CS_TRY(ctx, cs_h5_check_space(ctx, "results file", path, need));
    /* room for the metadata, so that a close after a failure can write it (cs_h5_close_tmp) */
    CS_TRY(ctx, cs_h5_room_take(ctx, tmp, 0, what));

    /* Create the temporary ourselves first: errno says why a directory is not writable. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_IO, "cannot create results file %s: %s: %s", path, tmp,
                            strerror(errno)));
    created = 1;
    close(fd);

    fapl = H5Pcreate(H5P_FILE_ACCESS);
    fcpl = H5Pcreate(H5P_FILE_CREATE);
    w.gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (fapl < 0 || fcpl < 0 || w.gcpl < 0 || H5Pset_fapl_sec2(fapl) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 || H5Pset_obj_track_times(fcpl, 0) < 0 ||
        H5Pset_obj_track_times(w.gcpl, 0) < 0 ||
        (w.file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl)) < 0)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_HDF5,
                            "cannot create results file %s: HDF5 cannot create %s", path, tmp));
    CS_TRY(ctx, write_contents(ctx, &w, r));
    rc = cs_h5_close_tmp(ctx, w.file, tmp, 0, CS_OK, what); /* removes it on failure */
    w.file = -1;
    if (rc != CS_OK) {
        created = 0;
        goto fail;
    }

    /* On disk before it gets its name: a crash leaves the old file or the new one. */
    fd = open(tmp, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_IO, "cannot create results file %s: fsync of %s: %s", path,
                            tmp, strerror(err)));
    }
    close(fd);
    if (rename(tmp, path) != 0)
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_IO, "cannot create results file %s: renaming %s: %s", path,
                            tmp, strerror(errno)));
    created = 0;
fail:
    if (w.file >= 0) { /* a failed write: neither the close nor MPI_Finalize may crash */
        cs_h5_close_tmp(ctx, w.file, tmp, 0, rc, what);
        created = 0;
    }
    if (w.gcpl >= 0)
        H5Pclose(w.gcpl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (created)
        unlink(tmp);
    if (tmp != NULL)
        cs_h5_room_give(ctx, tmp, 0);
    cs_h5_tmp_unguard();
    free(dir);
    free(tmp);
    return rc;
}

cs_err cs_results_write(cs_ctx *ctx, cs_results *r, const char *path)
{
    cs_err rc = CS_OK;
    if (r == NULL || path == NULL || path[0] == '\0')
        rc = cs_fail(ctx, CS_ERR_ARG, "cannot create results file %s: %s",
                     path != NULL ? path : "(null)",
                     r == NULL ? "no results object" : "empty file name");
    if (rc == CS_OK && ctx->rank == 0) {
        cs_h5_quiet quiet;
        cs_h5_quiet_begin(&quiet);
        rc = write_rank0(ctx, r, path);
        cs_h5_quiet_end(&quiet);
    }
    return cs_agree(ctx, rc);
}
