/*
 * ckpt: checkpoint files (include/crawlsim/ckpt.h). One dataset per item, every rank's piece
 * at the offset of the lower ranks' pieces, written and read with the chunked collective 1-D
 * transfers of h5/h5.c.
 */
#include "ckpt_impl.h"
#include "crawlsim/comm.h"
#include "crawlsim/h5.h"
#include "crawlsim/rng.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cs_ckpt {
    char *path, *tmp; /* tmp: the temporary name while writing, NULL when reading */
    hid_t file;
    int64_t *counts; /* [ranks] scratch: the pieces' lengths */
    uint64_t *sums;  /* [ranks] scratch: their checksums */
};

static hid_t file_type(cs_ckpt_type t)
{
    static const hid_t *const ty[] = {&H5T_STD_U8LE_g,  &H5T_STD_I32LE_g,  &H5T_STD_I64LE_g,
                                      &H5T_STD_U64LE_g, &H5T_IEEE_F32LE_g, &H5T_IEEE_F64LE_g};
    return *ty[t];
}

static hid_t mem_type(cs_ckpt_type t)
{
    static const hid_t *const ty[] = {&H5T_NATIVE_UINT8_g, &H5T_NATIVE_INT32_g,
                                      &H5T_NATIVE_INT64_g, &H5T_NATIVE_UINT64_g,
                                      &H5T_NATIVE_FLOAT_g, &H5T_NATIVE_DOUBLE_g};
    return *ty[t];
}

static size_t elem_size(cs_ckpt_type t)
{
    static const size_t sz[] = {1, 4, 8, 8, 4, 8};
    return sz[t];
}

static int type_valid(cs_ckpt_type t)
{
    return (int)t >= (int)CS_CK_BYTES && (int)t <= (int)CS_CK_F64;
}

static void ckpt_free(cs_ckpt *ck)
{
    if (ck == NULL)
        return;
    if (ck->tmp != NULL)
        cs_h5_tmp_unguard(); /* written, renamed or removed: cs_ckpt_create's guard ends */
    free(ck->path);
    free(ck->tmp);
    free(ck->counts);
    free(ck->sums);
    free(ck);
}

static cs_err ckpt_new(cs_ctx *ctx, const char *path, cs_ckpt **out)
{
    cs_err rc = CS_OK;
    cs_ckpt *ck = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &ck, 1, sizeof *ck, "checkpoint"));
    ck->file = H5I_INVALID_HID;
    CS_TRY(ctx, cs_alloc(ctx, &ck->path, strlen(path) + 1, 1, "checkpoint"));
    strcpy(ck->path, path);
    CS_TRY(ctx,
           cs_alloc(ctx, &ck->counts, (size_t)ctx->size + 1, sizeof *ck->counts, "checkpoint"));
    CS_TRY(ctx, cs_alloc(ctx, &ck->sums, (size_t)ctx->size + 1, sizeof *ck->sums, "checkpoint"));
    *out = ck;
    return CS_OK;
fail:
    ckpt_free(ck);
    return rc;
}

/* ---- writing --------------------------------------------------------------------------------- */

cs_err cs_ckpt_create(cs_ctx *ctx, const char *path, cs_ckpt **out)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    cs_ckpt *ck = NULL;
    char *dir = NULL;
    hid_t fapl = H5I_INVALID_HID;
    *out = NULL;
    CS_TRY_AGREE(ctx, ckpt_new(ctx, path, &ck));
    /* rank 0's pid names the temporary on every rank; rank 0 makes the directory */
    long pid = (long)getpid();
    cs_bcast(ctx, &pid, 1, CS_T_LONG, 0);
    rc = cs_h5_tmp_name(ctx, "checkpoint", path, pid, &ck->tmp, &dir);
    if (rc == CS_OK && ctx->rank == 0)
        rc = cs_h5_make_dirs(ctx, "checkpoint", path, dir);
    /* the previous checkpoint stays until the new one is complete, and the new one is about
     * its size (what a run keeps grows slowly): a disk without that much room fails here */
    struct stat prev;
    if (rc == CS_OK && ctx->rank == 0 && stat(path, &prev) == 0 && S_ISREG(prev.st_mode))
        rc = cs_h5_check_space(ctx, "checkpoint", path, (uint64_t)prev.st_size);
    CS_TRY_AGREE(ctx, rc);
    if (ctx->rank == 0)
        cs_h5_tmp_guard(ck->tmp); /* a signal that kills rank 0 removes it (until ckpt_free) */
    /* room for the metadata, so that a close after a failure can write it (cs_h5_close_tmp) */
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "checkpoint %s", path);
    CS_TRY(ctx, cs_h5_room_take(ctx, ck->tmp, 1, what));
    fapl = cs_h5_fapl(ctx->comm);
    if (fapl < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "cannot create checkpoint %s: no MPI-IO access list", path);
    CS_TRY_AGREE(ctx, rc);
    ck->file = H5Fcreate(ck->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (ck->file < 0)
        rc = cs_fail(ctx, CS_ERR_IO, "cannot create checkpoint %s: HDF5 cannot create %s", path,
                     ck->tmp);
    CS_TRY_AGREE(ctx, rc);
    const int32_t version = CS_CKPT_SCHEMA_VERSION, ranks = ctx->size;
    rc = cs_h5_attr_write_string(ctx, ck->file, "format", CS_CKPT_FORMAT, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, ck->file, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32,
                              &version, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write_string(ctx, ck->file, "crawlsim_version", CRAWLSIM_VERSION, what);
    if (rc == CS_OK)
        rc =
            cs_h5_attr_write(ctx, ck->file, "ranks", H5T_STD_I32LE, H5T_NATIVE_INT32, &ranks, what);
    CS_TRY_AGREE(ctx, rc);
    *out = ck;
    ck = NULL;
fail:
    if (fapl >= 0)
        H5Pclose(fapl);
    free(dir);
    if (ck != NULL)
        cs_ckpt_close(ctx, &ck);
    cs_h5_quiet_end(&quiet);
    return rc;
}

/* A checksum of (name, type) that differs between ranks when they call with different items. */
static uint64_t item_hash(const char *name, cs_ckpt_type type)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)type;
    for (const char *c = name; *c != '\0'; c++)
        h = cs_mix64(h ^ (uint64_t)(unsigned char)*c);
    return h;
}

/* The checksum of a rank's piece: 64-bit words mixed in four independent lanes (so the loop is
 * not one chain of multiplies), the tail and the length last. Any change of the bytes, their
 * order or their number changes it but with probability 2^-64; it is not a defence against
 * someone who forges a checkpoint, only against damage. About 4 GB/s: a 100 MB frontier adds
 * 25 ms to a checkpoint and to a restart. */
static uint64_t piece_checksum(const void *data, size_t bytes)
{
    const unsigned char *p = data;
    uint64_t lane[4] = {0x243f6a8885a308d3u, 0x13198a2e03707344u, 0xa4093822299f31d0u,
                        0x082efa98ec4e6c89u};
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * (size_t)k, 8);
            lane[k] = (lane[k] ^ w) * 0x9e3779b97f4a7c15u;
            lane[k] ^= lane[k] >> 29;
        }
    uint64_t h = (uint64_t)bytes;
    for (int k = 0; k < 4; k++)
        h = cs_mix64(h ^ lane[k]);
    for (; i < bytes; i++)
        h = cs_mix64(h ^ p[i]);
    return h;
}

cs_err cs_ckpt_put(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, int64_t n,
                   const void *data)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, lcpl = H5I_INVALID_HID;
    hid_t d = H5I_INVALID_HID, asp = H5I_INVALID_HID, a = H5I_INVALID_HID, c = H5I_INVALID_HID;
    CS_ASSERT(ck != NULL && ck->tmp != NULL && type_valid(type) && n >= 0);
    uint64_t h = item_hash(name, type), hmin = 0, hmax = 0;
    cs_allreduce(ctx, &h, &hmin, 1, CS_T_U64, CS_OP_MIN);
    cs_allreduce(ctx, &h, &hmax, 1, CS_T_U64, CS_OP_MAX);
    if (hmin != hmax)
        rc = cs_fail(ctx, CS_ERR_ARG, "checkpoint %s: the ranks write different items (%s here)",
                     ck->path, name);
    CS_TRY_AGREE(ctx, rc);
    cs_allgather(ctx, &n, 1, ck->counts, CS_T_I64);
    int64_t off = 0, total = 0;
    for (int r = 0; r < ctx->size; r++) {
        if (r < ctx->rank)
            off += ck->counts[r];
        total += ck->counts[r];
    }
    hsize_t dim = (hsize_t)total, adim = (hsize_t)ctx->size;
    sp = H5Screate_simple(1, &dim, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (sp >= 0 && dcpl >= 0 && lcpl >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
        H5Pset_create_intermediate_group(lcpl, 1) >= 0)
        d = H5Dcreate2(ck->file, name, file_type(type), sp, lcpl, dcpl, H5P_DEFAULT);
    if (d >= 0 && (asp = H5Screate_simple(1, &adim, NULL)) >= 0)
        a = H5Acreate2(d, "counts", H5T_STD_I64LE, asp, H5P_DEFAULT, H5P_DEFAULT);
    uint64_t sum = piece_checksum(data, (size_t)n * elem_size(type));
    cs_allgather(ctx, &sum, 1, ck->sums, CS_T_U64);
    if (a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, ck->counts) >= 0)
        c = H5Acreate2(d, "checksums", H5T_STD_U64LE, asp, H5P_DEFAULT, H5P_DEFAULT);
    if (c < 0 || H5Awrite(c, H5T_NATIVE_UINT64, ck->sums) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "checkpoint %s: HDF5 cannot create item %s (%lld elements)",
                     ck->path, name, (long long)total);
    CS_TRY_AGREE(ctx, rc);
    rc = cs_h5_write_1d(ctx, d, mem_type(type), off, n, data, elem_size(type), ck->path, name);
    CS_TRY_AGREE(ctx, rc);
fail:
    if (c >= 0)
        H5Aclose(c);
    if (a >= 0)
        H5Aclose(a);
    if (asp >= 0)
        H5Sclose(asp);
    if (d >= 0 && H5Dclose(d) < 0 && rc == CS_OK)
        rc =
            cs_fail(ctx, CS_ERR_HDF5, "checkpoint %s: HDF5 failed closing item %s", ck->path, name);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    cs_h5_quiet_end(&quiet);
    return cs_agree(ctx, rc);
}

cs_err cs_ckpt_commit(cs_ctx *ctx, cs_ckpt **pck)
{
    cs_err rc = CS_OK;
    cs_ckpt *ck = *pck;
    CS_ASSERT(ck != NULL && ck->tmp != NULL);
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "checkpoint %s", ck->path);
    rc = cs_h5_close_tmp(ctx, ck->file, ck->tmp, 1, CS_OK, what); /* removes it on failure */
    ck->file = H5I_INVALID_HID;
    if (rc == CS_OK && ctx->rank == 0) {
        /* on disk before it gets its name: a crash leaves the old checkpoint or the new one */
        int fd = open(ck->tmp, O_RDONLY);
        if (fd < 0 || fsync(fd) != 0)
            rc = cs_fail(ctx, CS_ERR_IO, "checkpoint %s: fsync of %s: %s", ck->path, ck->tmp,
                         strerror(errno));
        if (fd >= 0)
            close(fd);
        if (rc == CS_OK && rename(ck->tmp, ck->path) != 0)
            rc = cs_fail(ctx, CS_ERR_IO, "checkpoint %s: renaming %s: %s", ck->path, ck->tmp,
                         strerror(errno));
        if (rc != CS_OK)
            unlink(ck->tmp);
    }
    ckpt_free(ck);
    *pck = NULL;
    return cs_agree(ctx, rc);
}

/* ---- reading --------------------------------------------------------------------------------- */

cs_err cs_ckpt_check_header(cs_ctx *ctx, hid_t file, const char *path, int32_t *ranks)
{
    char what[CS_ERRMSG_MAX], buf[256];
    snprintf(what, sizeof what, "checkpoint %s", path);
    int32_t version = 0;
    *ranks = 0;
    cs_err rc = cs_h5_attr_read_string(ctx, file, "format", buf, sizeof buf, what);
    if (rc == CS_OK && strcmp(buf, CS_CKPT_FORMAT) != 0)
        rc =
            cs_fail(ctx, CS_ERR_FORMAT, "%s is not a crawlsim checkpoint (format '%s')", path, buf);
    if (rc == CS_OK)
        rc = cs_h5_attr_read(ctx, file, "schema_version", H5T_INTEGER, H5T_NATIVE_INT32, &version,
                             what);
    if (rc == CS_OK && version != CS_CKPT_SCHEMA_VERSION)
        rc = cs_fail(ctx, CS_ERR_SCHEMA,
                     "checkpoint %s has schema version %d; this crawlsim reads %d", path,
                     (int)version, CS_CKPT_SCHEMA_VERSION);
    if (rc == CS_OK)
        rc = cs_h5_attr_read_string(ctx, file, "crawlsim_version", buf, sizeof buf, what);
    if (rc == CS_OK && strcmp(buf, CRAWLSIM_VERSION) != 0)
        rc = cs_fail(ctx, CS_ERR_SCHEMA,
                     "checkpoint %s was written by crawlsim %s; this is crawlsim %s", path, buf,
                     CRAWLSIM_VERSION);
    if (rc == CS_OK)
        rc = cs_h5_attr_read(ctx, file, "ranks", H5T_INTEGER, H5T_NATIVE_INT32, ranks, what);
    if (rc == CS_OK && *ranks < 1)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: attribute ranks is %d", path, (int)*ranks);
    return rc;
}

cs_err cs_ckpt_open(cs_ctx *ctx, const char *path, cs_ckpt **out)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    cs_ckpt *ck = NULL;
    hid_t fapl = H5I_INVALID_HID;
    *out = NULL;
    if (ctx->rank == 0)
        rc = cs_h5_probe(ctx, path, "checkpoint");
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, ckpt_new(ctx, path, &ck));
    fapl = cs_h5_fapl(ctx->comm);
    if (fapl >= 0)
        ck->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (ck->file < 0)
        rc = cs_fail(ctx, CS_ERR_IO, "checkpoint %s: HDF5 cannot open it", path);
    CS_TRY_AGREE(ctx, rc);
    int32_t ranks = 0;
    rc = cs_ckpt_check_header(ctx, ck->file, path, &ranks);
    if (rc == CS_OK && ranks != ctx->size)
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "checkpoint %s was written on %d ranks: restart it on %d ranks, not %d", path,
                     (int)ranks, (int)ranks, ctx->size);
    CS_TRY_AGREE(ctx, rc);
    *out = ck;
    ck = NULL;
fail:
    if (fapl >= 0)
        H5Pclose(fapl);
    if (ck != NULL)
        cs_ckpt_close(ctx, &ck);
    cs_h5_quiet_end(&quiet);
    return rc;
}

/* Local. Reads integer attribute name of obj, of exactly n elements, into buf through the
 * reader contract (cs_h5_attr_read_n): 1 on success, 0 (the message cleared: the caller names
 * the item) on any damage. */
static int attr_read(cs_ctx *ctx, hid_t obj, const char *name, hid_t mtype, int n, void *buf)
{
    if (cs_h5_attr_read_n(ctx, obj, name, H5T_INTEGER, mtype, n, buf, name) == CS_OK)
        return 1;
    cs_ctx_clear_error(ctx);
    return 0;
}

/* Collective. Opens item name and checks what can be checked before its data is read, the same
 * way on every rank (the metadata every rank reads is the same): its type, its shape (1-D), its
 * counts (one per rank, none negative, summing to its length) and its checksums (one per rank).
 * *d open, *off and *n this rank's piece, *sum its checksum. A damaged item fails here on every
 * rank, before the collective read that a rank with an impossible selection would not enter. */
static cs_err item_open(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, hid_t *d,
                        int64_t *off, int64_t *n, uint64_t *sum)
{
    cs_err rc = CS_OK;
    hid_t t = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    *d = H5I_INVALID_HID;
    CS_ASSERT(ck != NULL && ck->tmp == NULL && type_valid(type));
    htri_t ex = H5Lexists(ck->file, name, H5P_DEFAULT);
    if (ex > 0)
        *d = H5Dopen2(ck->file, name, H5P_DEFAULT);
    if (*d < 0) {
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "checkpoint %s has no item %s (written by another policy or configuration?)",
                     ck->path, name);
        goto fail;
    }
    t = H5Dget_type(*d);
    if (t < 0 || H5Tequal(t, file_type(type)) <= 0) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: item %s has another type", ck->path, name);
        goto fail;
    }
    hsize_t dim = 0;
    sp = H5Dget_space(*d);
    if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1 ||
        H5Sget_simple_extent_dims(sp, &dim, NULL) != 1) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: item %s is not a 1-D array", ck->path,
                     name);
        goto fail;
    }
    if (!attr_read(ctx, *d, "counts", H5T_NATIVE_INT64, ctx->size, ck->counts) ||
        !attr_read(ctx, *d, "checksums", H5T_NATIVE_UINT64, ctx->size, ck->sums)) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: item %s has no valid counts or checksums",
                     ck->path, name);
        goto fail;
    }
    int64_t total = 0;
    *off = 0;
    for (int r = 0; r < ctx->size && rc == CS_OK; r++) {
        if (ck->counts[r] < 0 || ck->counts[r] > INT64_MAX - total) {
            rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: item %s has a bad count for rank %d",
                         ck->path, name, r);
        } else {
            /* (summed only when it fits: counts of 2^62 each overflowed the sum) */
            if (r < ctx->rank)
                *off += ck->counts[r];
            total += ck->counts[r];
        }
    }
    if (rc == CS_OK && (uint64_t)total != (uint64_t)dim)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "checkpoint %s: item %s holds %llu elements, its counts say %lld (damaged)",
                     ck->path, name, (unsigned long long)dim, (long long)total);
    if (rc != CS_OK)
        goto fail;
    H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
    if (dim > 0 && (H5Dget_space_status(*d, &status) < 0 || status != H5D_SPACE_STATUS_ALLOCATED)) {
        /* chunks never written read as fill values of any claimed length */
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "checkpoint %s: item %s has %llu elements but not all of them are stored "
                     "(a sparse or damaged item)",
                     ck->path, name, (unsigned long long)dim);
        goto fail;
    }
    *n = ck->counts[ctx->rank];
    *sum = ck->sums[ctx->rank];
fail:
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return rc;
}

/* Collective. The one reader behind cs_ckpt_get and cs_ckpt_get_exact: exact >= 0 reads into
 * buf, else allocates *(void **)buf. */
static cs_err get(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, int64_t *n,
                  int64_t exact, void *buf)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t d = H5I_INVALID_HID;
    int64_t off = 0, cnt = 0;
    uint64_t sum = 0;
    void *dst = NULL;
    rc = item_open(ctx, ck, name, type, &d, &off, &cnt, &sum);
    if (rc == CS_OK && exact >= 0 && cnt != exact)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "checkpoint %s: item %s holds %lld elements on rank %d, expected %lld "
                     "(another configuration?)",
                     ck->path, name, (long long)cnt, ctx->rank, (long long)exact);
    if (rc == CS_OK) {
        if (exact >= 0)
            dst = buf;
        else if ((rc = cs_h5_check_memory(ctx, cnt, elem_size(type), ck->path, name)) == CS_OK)
            rc = cs_alloc(ctx, &dst, (size_t)cnt + 1, elem_size(type), name);
    }
    CS_TRY_AGREE(ctx, rc);
    rc = cs_h5_read_1d(ctx, d, mem_type(type), off, cnt, dst, elem_size(type), ck->path, name);
    if (rc == CS_OK && piece_checksum(dst, (size_t)cnt * elem_size(type)) != sum)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "checkpoint %s: item %s is damaged (its checksum does not match on rank %d)",
                     ck->path, name, ctx->rank);
    CS_TRY_AGREE(ctx, rc);
    if (exact < 0) {
        *(void **)buf = dst;
        *n = cnt;
        dst = NULL;
    }
fail:
    if (exact < 0)
        free(dst);
    if (d >= 0)
        H5Dclose(d);
    cs_h5_quiet_end(&quiet);
    return rc;
}

cs_err cs_ckpt_get(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, int64_t *n,
                   void *data)
{
    *(void **)data = NULL;
    *n = 0;
    return get(ctx, ck, name, type, n, -1, data);
}

cs_err cs_ckpt_get_exact(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, int64_t n,
                         void *buf)
{
    CS_ASSERT(n >= 0);
    int64_t got = 0;
    return get(ctx, ck, name, type, &got, n, buf);
}

void cs_ckpt_close(cs_ctx *ctx, cs_ckpt **pck)
{
    if (pck == NULL || *pck == NULL)
        return;
    cs_ckpt *ck = *pck;
    if (ck->tmp != NULL && ck->file >= 0) {
        /* a write that failed (or was given up): the temporary goes, the previous checkpoint
         * stays, and neither the close nor MPI_Finalize may crash or hang on a full disk */
        char what[CS_ERRMSG_MAX];
        snprintf(what, sizeof what, "checkpoint %s", ck->path);
        cs_h5_close_tmp(ctx, ck->file, ck->tmp, 1, CS_ERR_IO, what); /* keeps the first error */
        ck->file = H5I_INVALID_HID;
    }
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    if (ck->file >= 0)
        H5Fclose(ck->file);
    cs_h5_quiet_end(&quiet);
    if (ck->tmp != NULL) {
        /* every rank closed before rank 0 removes it, and it is gone on return everywhere */
        cs_barrier(ctx);
        if (ctx->rank == 0)
            unlink(ck->tmp);
        cs_h5_room_give(ctx, ck->tmp, 1);
        cs_barrier(ctx);
    }
    ckpt_free(ck);
    *pck = NULL;
}

const char *cs_ckpt_path(const cs_ckpt *ck)
{
    return ck->path;
}

const char *cs_ckpt_item(char *buf, size_t len, const char *prefix, const char *name)
{
    snprintf(buf, len, "%s/%s", prefix, name);
    return buf;
}
