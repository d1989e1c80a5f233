/*
 * h5: HDF5 error-stack silencing, the MPI-IO file access list and chunked collective 1-D
 * dataset I/O shared by the graph files, partitions, checkpoints, results and `crawlsim info`.
 *
 * Every rank makes every H5Dwrite/H5Dread call (they are collective with
 * H5FD_MPIO_COLLECTIVE); a rank with nothing to transfer selects none on both dataspaces.
 * Transfers are cut into calls of at most 2^27 elements because MPI-IO collective buffering
 * has had 2 GiB limits; all ranks make the allreduced maximum number of calls.
 *
 * Transfers are collective when the ranks' ranges are disjoint or all identical, and
 * independent otherwise: Open MPI 4.1's OMPIO returns wrong data (zeros) for collective reads
 * whose ranges partially overlap (reproduced with plain MPI_File_read_at_all on 4 ranks,
 * fcoll dynamic, dynamic_gen2 and vulcan; ROMIO is correct). The decision is taken on
 * allgathered ranges, so every rank takes the same one.
 */
#include "crawlsim/h5.h"
#include "crawlsim/comm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cs_h5_quiet_begin(cs_h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void cs_h5_quiet_end(const cs_h5_quiet *q)
{
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

int cs_h5_finish(int rank)
{
#ifdef CRAWLSIM_SMPI
    /* the simulated ranks share one process and its HDF5: the last one out ends it (atexit) */
    (void)rank;
    return 0;
#else
    const ssize_t n = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (n > 0) {
        char names[512] = "";
        hid_t ids[8];
        const ssize_t nf = H5Fget_obj_ids((hid_t)H5F_OBJ_ALL, H5F_OBJ_FILE, 8, ids);
        size_t at = 0;
        for (ssize_t i = 0; i < nf && at + 2 < sizeof names; i++) {
            char one[256];
            if (H5Fget_name(ids[i], one, sizeof one) < 0)
                snprintf(one, sizeof one, "?");
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i > 0 ? ", " : "", one);
        }
        fprintf(stderr,
                "crawlsim: warning: rank %d: %lld HDF5 object(s) left open at exit (a defect of "
                "crawlsim; files: %s)\n",
                rank, (long long)n, nf > 0 ? names : "none");
        fflush(stderr);
    }
    H5close();
    return n > 0 ? (int)n : 0;
#endif
}

/* The SMPI build (CRAWLSIM_SMPI, docs/guide/simulated-cluster.md) links serial HDF5: all its
 * simulated ranks live in one process, so each opens a file for reading on its own with the
 * default driver and reads its part independently; a file that all ranks write together (graph
 * files, partitions, checkpoints) has no access list there, and its writer reports that. The
 * results file is written by rank 0 alone with the default driver in both builds. */
#ifdef CRAWLSIM_SMPI
hid_t cs_h5_fapl(MPI_Comm comm)
{
    (void)comm;
    return H5I_INVALID_HID;
}

hid_t cs_h5_dxpl(int collective)
{
    (void)collective;
    return H5Pcreate(H5P_DATASET_XFER);
}
#else
hid_t cs_h5_fapl(MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return H5I_INVALID_HID;
    if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

hid_t cs_h5_dxpl(int collective)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl >= 0 &&
        H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT) < 0) {
        H5Pclose(dxpl);
        return H5I_INVALID_HID;
    }
    return dxpl;
}
#endif

hid_t cs_h5_fopen(MPI_Comm comm, const char *path, unsigned flags)
{
#ifdef CRAWLSIM_SMPI
    hid_t fapl = flags == H5F_ACC_RDONLY ? H5Pcreate(H5P_FILE_ACCESS) : cs_h5_fapl(comm);
#else
    hid_t fapl = cs_h5_fapl(comm);
#endif
    hid_t f = H5I_INVALID_HID;
    if (fapl >= 0) {
        f = H5Fopen(path, flags, fapl);
        H5Pclose(fapl);
    }
    return f;
}

int64_t cs_h5_chunk_elems(void)
{
    const char *s = getenv("CRAWLSIM_GRAPHIO_CHUNK");
    if (s != NULL) {
        char *end = NULL;
        long long v = strtoll(s, &end, 10);
        if (end != s && *end == '\0' && v > 0 && v <= CS_H5_CHUNK_ELEMS)
            return (int64_t)v;
    }
    return CS_H5_CHUNK_ELEMS;
}

char *cs_h5_dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c != NULL)
        memcpy(c, s, n);
    return c;
}

typedef struct range {
    int64_t off, count, chunk;
} range;

static int cmp_range(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* Local. Whether the non-empty ranges of all[0..p) are pairwise disjoint or all identical
 * (sorts all). */
static int collective_safe(range *all, int p)
{
    int k = 0;
    for (int r = 0; r < p; r++)
        if (all[r].count > 0)
            all[k++] = all[r];
    int same = 1;
    for (int r = 1; r < k; r++)
        same = same && all[r].off == all[0].off && all[r].count == all[0].count &&
               all[r].chunk == all[0].chunk;
    if (same)
        return 1;
    qsort(all, (size_t)k, sizeof *all, cmp_range);
    for (int r = 1; r < k; r++)
        if (all[r].off < all[r - 1].off + all[r - 1].count)
            return 0;
    return 1;
}

/* The one loop behind cs_h5_write_1d and cs_h5_read_1d (exactly one of wbuf, rbuf is
 * used). */
static cs_err io_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                    const void *wbuf, void *rbuf, size_t elem, const char *path, const char *name)
{
    cs_err rc = CS_OK;
    const int writing = (rbuf == NULL);
    int64_t chunk = cs_h5_chunk_elems();
    range *all = NULL;
    cs_err arc = cs_alloc(ctx, &all, (size_t)ctx->size, sizeof *all, "I/O ranges");
    /* A write goes into blocks reserved first (rank 0, src/h5/h5_paths.c): a full disk is then
     * an error every rank knows of before any of them enters the collective writes. */
    cs_err res = CS_OK;
    if (writing && arc == CS_OK && ctx->rank == 0) {
        char what[CS_ERRMSG_MAX];
        snprintf(what, sizeof what, "file %s: dataset %s", path, name);
        res = cs_h5_reserve(ctx, dset, 0, what);
    }
    /* {calls, allocation failed, reservation failed}: one allreduce for all */
    int64_t mine[3] = {count > 0 ? (count + chunk - 1) / chunk : 0, arc != CS_OK, res != CS_OK};
    int64_t red[3] = {0, 0, 0};
    cs_allreduce(ctx, mine, red, 3, CS_T_I64, CS_OP_MAX);
    if (red[1] != 0)
        rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory on some rank while %s %s of %s",
                     writing ? "writing" : "reading", name, path);
    else if (red[2] != 0)
        rc = res != CS_OK
                 ? res
                 : cs_fail(ctx, CS_ERR_IO, "file %s: dataset %s: no room on the disk", path, name);
    const int64_t max_calls = red[0];
    if (rc != CS_OK || max_calls == 0) {
        free(all);
        return rc;
    }
    range me = {count > 0 ? off : 0, count > 0 ? count : 0, chunk};
    cs_allgather(ctx, &me, (int)sizeof me, all, CS_T_BYTE);
    const int collective = collective_safe(all, ctx->size);
    free(all);

    hid_t fspace = H5Dget_space(dset);
    hid_t dxpl = cs_h5_dxpl(collective);
    if (fspace < 0 || dxpl < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "file %s: cannot set up collective I/O on %s", path, name);
    static const unsigned char dummy[8] = {0};
    for (int64_t c = 0; c < max_calls; c++) {
        int64_t done = c * chunk;
        int64_t cnt = 0;
        if (rc == CS_OK && done < count)
            cnt = count - done < chunk ? count - done : chunk;
        if (fspace < 0 || dxpl < 0)
            continue; /* cannot take part; the caller's agreement reports it */
        hsize_t mdim = (hsize_t)(cnt > 0 ? cnt : 1);
        hid_t mspace = H5Screate_simple(1, &mdim, NULL);
        herr_t st = mspace < 0 ? -1 : 0;
        if (st >= 0 && cnt > 0) {
            hsize_t start = (hsize_t)(off + done), hcnt = (hsize_t)cnt;
            st = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &hcnt, NULL);
        } else if (st >= 0) {
            if (H5Sselect_none(fspace) < 0 || H5Sselect_none(mspace) < 0)
                st = -1;
        }
        if (st >= 0) {
            size_t at = (size_t)done * elem;
            if (writing)
                st = H5Dwrite(dset, mtype, mspace, fspace, dxpl,
                              cnt > 0 ? (const void *)((const unsigned char *)wbuf + at)
                                      : (const void *)dummy);
            else
                st = H5Dread(dset, mtype, mspace, fspace, dxpl,
                             cnt > 0 ? (void *)((unsigned char *)rbuf + at) : rbuf);
        }
        if (st < 0 && rc == CS_OK)
            rc = cs_fail(ctx, CS_ERR_HDF5,
                         "file %s: HDF5 failed %s dataset %s (elements %lld..%lld)%s", path,
                         writing ? "writing" : "reading", name, (long long)(off + done),
                         (long long)(off + done + cnt), writing ? ": is the disk full?" : "");
        if (mspace >= 0)
            H5Sclose(mspace);
    }
    if (dxpl >= 0)
        H5Pclose(dxpl);
    if (fspace >= 0)
        H5Sclose(fspace);
    return rc;
}

cs_err cs_h5_write_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                      const void *buf, size_t elem, const char *path, const char *name)
{
    return io_1d(ctx, dset, mtype, off, count, buf, NULL, elem, path, name);
}

cs_err cs_h5_read_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count, void *buf,
                     size_t elem, const char *path, const char *name)
{
    unsigned char dummy[8]; /* a valid address for ranks that select nothing */
    return io_1d(ctx, dset, mtype, off, count, NULL, buf != NULL ? buf : dummy, elem, path, name);
}

cs_err cs_h5_create_write_1d(cs_ctx *ctx, hid_t loc, const char *leaf, hid_t ftype, hid_t mtype,
                             size_t elem, int64_t total, int64_t off, int64_t count,
                             const void *buf, const char *what, const char *path, const char *name)
{
    cs_err rc = CS_OK;
    hsize_t dim = (hsize_t)total;
    hid_t sp = H5Screate_simple(1, &dim, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = -1;
    /* Every element is written: skip HDF5's fill pass over the whole dataset. No object times:
     * the same contents make the same bytes. */
    if (sp >= 0 && dcpl >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
        H5Pset_obj_track_times(dcpl, 0) >= 0)
        d = H5Dcreate2(loc, leaf, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed creating dataset %s (%lld elements)", what,
                     name, (long long)total);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        if (d >= 0)
            H5Dclose(d);
        return rc;
    }
    rc = cs_h5_write_1d(ctx, d, mtype, off, count, buf, elem, path, name);
    if (H5Dclose(d) < 0 && rc == CS_OK)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed closing dataset %s", what, name);
    return cs_agree(ctx, rc);
}

/* ---- the reader contract: attributes and datasets checked before they are read ---- */

int cs_h5_int_fits(hid_t ft, hid_t mt)
{
    const size_t fs = H5Tget_size(ft), ms = H5Tget_size(mt);
    const int fsigned = H5Tget_sign(ft) == H5T_SGN_2, msigned = H5Tget_sign(mt) == H5T_SGN_2;
    if (fs == 0 || ms == 0)
        return 0;
    if (fsigned == msigned)
        return fs <= ms;
    return !fsigned && fs < ms;
}

/* Local. Whether every value of v[0..n) (read as 64-bit integers of the file's sign, fsigned)
 * lies in the range of the integer memory type mt. */
static int int_values_fit(const void *v, hssize_t n, int fsigned, hid_t mt)
{
    const size_t ms = H5Tget_size(mt);
    const int msigned = H5Tget_sign(mt) == H5T_SGN_2;
    if (ms == 0 || ms > 8)
        return 0;
    const unsigned bits = (unsigned)(8 * ms);
    for (hssize_t i = 0; i < n; i++) {
        if (fsigned) {
            const int64_t x = ((const int64_t *)v)[i];
            if (msigned ? bits < 64 && (x < -((int64_t)1 << (bits - 1)) ||
                                        x > ((int64_t)1 << (bits - 1)) - 1)
                        : x < 0 || (bits < 64 && (uint64_t)x > ((uint64_t)1 << bits) - 1))
                return 0;
        } else {
            const uint64_t x = ((const uint64_t *)v)[i];
            if (msigned ? x > ((uint64_t)1 << (bits - 1)) - 1
                        : bits < 64 && x > ((uint64_t)1 << bits) - 1)
                return 0;
        }
    }
    return 1;
}

/* Local. Opens attribute name of obj and checks that it holds n elements (a scalar, or a 1-D
 * array of n; n == 1 takes either) of type class cls: *a and *t open on success. */
static cs_err attr_open(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls, hssize_t n,
                        hid_t *a, hid_t *t, const char *what)
{
    static const char *const kinds[] = {
        [H5T_INTEGER] = "integer", [H5T_FLOAT] = "number", [H5T_STRING] = "string"};
    const char *kind =
        cls == H5T_INTEGER || cls == H5T_FLOAT || cls == H5T_STRING ? kinds[cls] : "value";
    *a = *t = H5I_INVALID_HID;
    if (H5Aexists(obj, name) <= 0)
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: attribute %s is missing", what, name);
    cs_err rc = CS_OK;
    *a = H5Aopen(obj, name, H5P_DEFAULT);
    *t = *a >= 0 ? H5Aget_type(*a) : H5I_INVALID_HID;
    hid_t sp = *a >= 0 ? H5Aget_space(*a) : H5I_INVALID_HID;
    const H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
    const int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    const hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (*t < 0 || sp < 0 || sc == H5S_NO_CLASS)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot open attribute %s", what, name);
    else if (H5Tget_class(*t) != cls)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: attribute %s is not a%s %s", what, name,
                     cls == H5T_INTEGER ? "n" : "", kind);
    else if (!((sc == H5S_SCALAR && n == 1) || (sc == H5S_SIMPLE && nd == 1 && np == n)))
        rc = n == 1 ? cs_fail(ctx, CS_ERR_FORMAT, "%s: attribute %s is not a single %s", what, name,
                              kind)
                    : cs_fail(ctx, CS_ERR_FORMAT, "%s: attribute %s is not an array of %lld %ss",
                              what, name, (long long)n, kind);
    if (sp >= 0)
        H5Sclose(sp);
    if (rc != CS_OK) {
        if (*t >= 0)
            H5Tclose(*t);
        if (*a >= 0)
            H5Aclose(*a);
        *a = *t = H5I_INVALID_HID;
    }
    return rc;
}

cs_err cs_h5_attr_read_n(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls, hid_t mtype,
                         int64_t n, void *out, const char *what)
{
    CS_ASSERT((cls == H5T_INTEGER || cls == H5T_FLOAT) && n >= 1);
    hid_t a, t;
    cs_err rc = attr_open(ctx, obj, name, cls, (hssize_t)n, &a, &t, what);
    if (rc != CS_OK)
        return rc;
    int64_t *wide = NULL;
    if (cls == H5T_INTEGER) {
        /* HDF5 clamps an integer out of the memory type's range: read every value at 64 bits
         * of the file's sign first and refuse one that does not fit. */
        const int fsigned = H5Tget_sign(t) == H5T_SGN_2;
        if (H5Tget_size(t) > 8)
            rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: attribute %s is a %zu-byte integer", what, name,
                         H5Tget_size(t));
        else
            rc = cs_alloc(ctx, &wide, (size_t)n, sizeof *wide, "attribute values");
        if (rc == CS_OK && H5Aread(a, fsigned ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, wide) < 0)
            rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed reading attribute %s", what, name);
        if (rc == CS_OK && !int_values_fit(wide, (hssize_t)n, fsigned, mtype))
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "%s: attribute %s holds a value outside the range of a %zu-byte %s "
                         "integer",
                         what, name, H5Tget_size(mtype),
                         H5Tget_sign(mtype) == H5T_SGN_2 ? "signed" : "unsigned");
    }
    if (rc == CS_OK && H5Aread(a, mtype, out) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed reading attribute %s", what, name);
    free(wide);
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

cs_err cs_h5_attr_read(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls, hid_t mtype,
                       void *out, const char *what)
{
    return cs_h5_attr_read_n(ctx, obj, name, cls, mtype, 1, out, what);
}

/* Local. The string s of attribute `name` into out[cap] whole, or CS_ERR_FORMAT when it does
 * not fit (a cut string would be read as another value: a format, a version, a path). */
static cs_err string_out(cs_ctx *ctx, const char *s, char *out, size_t cap, const char *name,
                         const char *what)
{
    const size_t len = strlen(s);
    if (len >= cap)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "%s: attribute %s is a string of %zu bytes, longer than the %zu it may "
                       "hold",
                       what, name, len, cap - 1);
    memcpy(out, s, len + 1);
    return CS_OK;
}

cs_err cs_h5_attr_read_string(cs_ctx *ctx, hid_t obj, const char *name, char *out, size_t cap,
                              const char *what)
{
    out[0] = '\0';
    hid_t a, t, mt = H5I_INVALID_HID;
    cs_err rc = attr_open(ctx, obj, name, H5T_STRING, 1, &a, &t, what);
    if (rc != CS_OK)
        return rc;
    if (H5Tis_variable_str(t) > 0) {
        char *s = NULL;
        mt = H5Tcopy(H5T_C_S1);
        /* in the file's character set (ASCII or UTF-8): HDF5 converts neither into the other */
        if (mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5Tget_cset(t)) < 0 ||
            H5Aread(a, mt, &s) < 0)
            rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed reading attribute %s", what, name);
        else if (s != NULL)
            rc = string_out(ctx, s, out, cap, name, what);
        if (s != NULL)
            H5free_memory(s);
    } else {
        const size_t sz = H5Tget_size(t);
        char *buf = NULL;
        if (sz == 0 || sz > CS_H5_STRING_MAX)
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "%s: attribute %s is a string of %zu bytes (at most %d)", what, name, sz,
                         CS_H5_STRING_MAX);
        else
            rc = cs_calloc(ctx, &buf, sz + 1, 1, "string attribute");
        if (rc == CS_OK) {
            mt = H5Tcopy(H5T_C_S1);
            if (mt < 0 || H5Tset_size(mt, sz) < 0 || H5Tset_cset(mt, H5Tget_cset(t)) < 0 ||
                H5Aread(a, mt, buf) < 0)
                rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed reading attribute %s", what, name);
            else
                rc = string_out(ctx, buf, out, cap, name, what);
        }
        free(buf);
    }
    if (mt >= 0)
        H5Tclose(mt);
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

cs_err cs_h5_check_memory(cs_ctx *ctx, int64_t count, size_t elem, const char *path,
                          const char *name)
{
    const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (count <= 0 || elem == 0 || pages <= 0 || psize <= 0)
        return CS_OK;
    const double need = (double)count * (double)elem, have = (double)pages * (double)psize;
    if (need <= have)
        return CS_OK;
    return cs_fail(ctx, CS_ERR_NOMEM,
                   "%s: dataset %s: %lld elements of %zu bytes need %.1f GiB, more than this "
                   "node's memory (%.1f GiB)",
                   path, name, (long long)count, elem, need / 1073741824.0, have / 1073741824.0);
}

cs_err cs_h5_dset_check(cs_ctx *ctx, hid_t d, const char *name, H5T_class_t cls, hid_t mt,
                        int64_t expect, const char *expect_what, int64_t *len, const char *what)
{
    *len = 0;
    cs_err rc = CS_OK;
    hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t dim = 0;
    H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
    if (t < 0 || sp < 0) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: %s is not a readable dataset", what, name);
    } else if (H5Sget_simple_extent_type(sp) != H5S_SIMPLE || H5Sget_simple_extent_ndims(sp) != 1 ||
               H5Tget_class(t) != cls || (cls == H5T_FLOAT && H5Tget_size(t) > 16)) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: dataset %s is not a 1-D array of %s", what, name,
                     cls == H5T_INTEGER ? "integers" : "floating-point numbers");
    } else if (cls == H5T_INTEGER && mt >= 0 && !cs_h5_int_fits(t, mt)) {
        rc =
            cs_fail(ctx, CS_ERR_FORMAT,
                    "%s: dataset %s holds %zu-byte %s integers, which do not fit "
                    "the %zu-byte %s integers it must hold",
                    what, name, H5Tget_size(t), H5Tget_sign(t) == H5T_SGN_2 ? "signed" : "unsigned",
                    H5Tget_size(mt), H5Tget_sign(mt) == H5T_SGN_2 ? "signed" : "unsigned");
    } else if (H5Sget_simple_extent_dims(sp, &dim, NULL) != 1 || dim > (hsize_t)INT64_MAX) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: dataset %s has an unreadable extent", what, name);
    } else {
        *len = (int64_t)dim;
        if (expect >= 0 && *len != expect)
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "%s: dataset %s has %lld elements, "
                         "expected %lld (%s): truncated or corrupt file",
                         what, name, (long long)*len, (long long)expect, expect_what);
        /* A dataset whose storage is not all allocated (a chunked dataset with chunks never
         * written) reads as fill values: a file of a megabyte could claim billions of elements
         * and make its reader allocate them. */
        else if (*len > 0 &&
                 (H5Dget_space_status(d, &status) < 0 || status != H5D_SPACE_STATUS_ALLOCATED))
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "%s: dataset %s has %lld elements but not all of them are stored "
                         "(a sparse or damaged dataset)",
                         what, name, (long long)*len);
    }
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return rc;
}

cs_err cs_h5_object_check(cs_ctx *ctx, hid_t x, int is_attr, const char *name, const char *what)
{
    const char *kind = is_attr ? "attribute" : "dataset";
    hid_t t = is_attr ? H5Aget_type(x) : H5Dget_type(x);
    hid_t sp = is_attr ? H5Aget_space(x) : H5Dget_space(x);
    const size_t es = t >= 0 ? H5Tget_size(t) : 0;
    const H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
    const hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
    cs_err rc = CS_OK;
    if (t < 0 || es == 0 || sc == H5S_NO_CLASS || np < 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: %s %s has an unreadable type or dataspace", what,
                     kind, name);
    else if ((double)np * (double)es > (double)INT64_MAX / 2)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: %s %s claims %lld elements of %zu bytes", what, kind,
                     name, (long long)np, es);
    else if (is_attr)
        rc = cs_h5_check_memory(ctx, (int64_t)np, es, what, name);
    else if (np > 0 &&
             (H5Dget_space_status(x, &status) < 0 || status != H5D_SPACE_STATUS_ALLOCATED))
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "%s: dataset %s has %lld elements but not all of them are stored (a sparse "
                     "or damaged dataset)",
                     what, name, (long long)np);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return rc;
}

cs_err cs_h5_attr_write(cs_ctx *ctx, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                        const void *val, const char *what)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = sp >= 0 ? H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
    herr_t st = a >= 0 ? H5Awrite(a, mtype, val) : -1;
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (st < 0)
        return cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 failed writing attribute %s", what, name);
    return CS_OK;
}

cs_err cs_h5_attr_write_string(cs_ctx *ctx, hid_t loc, const char *name, const char *val,
                               const char *what)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, strlen(val) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
        if (t >= 0)
            H5Tclose(t);
        return cs_fail(ctx, CS_ERR_HDF5,
                       "%s: HDF5 failed making the type of "
                       "attribute %s",
                       what, name);
    }
    cs_err rc = cs_h5_attr_write(ctx, loc, name, t, t, val, what);
    H5Tclose(t);
    return rc;
}

cs_err cs_h5_probe(cs_ctx *ctx, const char *path, const char *kind)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return cs_fail(ctx, CS_ERR_IO, "%s %s: no such file", kind, path);
        return cs_fail(ctx, CS_ERR_IO, "%s %s: %s", kind, path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return cs_fail(ctx, CS_ERR_IO, "%s %s is not a regular file", kind, path);
    /* HDF5 calls a file it may not read "not an HDF5 file": say why first */
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return cs_fail(ctx, CS_ERR_IO, "%s %s: %s", kind, path, strerror(errno));
    close(fd);
#if H5_VERSION_GE(1, 12, 0)
    htri_t is = H5Fis_accessible(path, H5P_DEFAULT);
#else
    htri_t is = H5Fis_hdf5(path);
#endif
    if (is <= 0)
        return cs_fail(ctx, CS_ERR_FORMAT, "%s %s is not an HDF5 file", kind, path);
    return CS_OK;
}

/* ---- temporary names and directories (results and checkpoint files) ---- */

cs_err cs_h5_tmp_name(cs_ctx *ctx, const char *kind, const char *path, long pid, char **tmp,
                      char **dir)
{
    cs_err rc = CS_OK;
    const size_t plen = strlen(path);
    *tmp = *dir = NULL;
    CS_TRY(ctx, cs_alloc(ctx, tmp, plen + 64, 1, "temporary file name"));
    CS_TRY(ctx, cs_alloc(ctx, dir, plen + 2, 1, "directory name"));
    const char *slash = strrchr(path, '/');
    if (plen == 0 || (slash != NULL && slash[1] == '\0'))
        CS_TRY(ctx,
               cs_fail(ctx, CS_ERR_ARG, "cannot create %s '%s': it names a directory", kind, path));
    if (slash == NULL) {
        strcpy(*dir, ".");
        snprintf(*tmp, plen + 64, ".%s.tmp.%ld", path, pid);
    } else {
        size_t dl = (size_t)(slash - path);
        memcpy(*dir, path, dl == 0 ? 1 : dl);
        (*dir)[dl == 0 ? 1 : dl] = '\0';
        snprintf(*tmp, plen + 64, "%.*s/.%s.tmp.%ld", (int)dl, path, slash + 1, pid);
    }
    return CS_OK;
fail:
    free(*tmp);
    free(*dir);
    *tmp = *dir = NULL;
    return rc;
}

cs_err cs_h5_make_dirs(cs_ctx *ctx, const char *kind, const char *path, char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 && errno == ENOENT) {
        for (char *c = dir + 1;; c++) {
            if (*c != '/' && *c != '\0')
                continue;
            char keep = *c;
            *c = '\0';
            int bad = mkdir(dir, 0777) != 0 && errno != EEXIST;
            int err = errno;
            *c = keep;
            if (bad)
                return cs_fail(ctx, CS_ERR_IO, "cannot create %s %s: directory %s: %s", kind, path,
                               dir, strerror(err));
            if (keep == '\0')
                break;
        }
    }
    if (stat(dir, &st) != 0)
        return cs_fail(ctx, CS_ERR_IO, "cannot create %s %s: directory %s: %s", kind, path, dir,
                       strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cs_fail(ctx, CS_ERR_IO, "cannot create %s %s: %s: %s", kind, path, dir,
                       strerror(ENOTDIR));
    return CS_OK;
}
