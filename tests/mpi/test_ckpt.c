/*
 * MPI integration tests of checkpoint files (cs_ckpt_*): every type round-trips with pieces of
 * different lengths per rank (some empty) under nested names; a piece of another length, a
 * missing item and another type are refused with the same code on every rank; an abandoned
 * checkpoint leaves neither file nor temporary, and a commit replaces an older checkpoint
 * atomically; a checkpoint written on another number of ranks or of another schema version, a
 * results file and a missing file are refused; damage HDF5 does not see (a flipped bit, a
 * dataset shorter than its counts) is found on every rank. Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/ckpt.h"
#include "mpitest.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;
static char tmpdir[256];

/* Rank r writes 3 r + 1 elements of item k, except rank 1, which writes none. */
static int64_t piece_len(int r)
{
    return r == 1 ? 0 : 3 * (int64_t)r + 1;
}

/* Temporaries in tmpdir: every ".NAME.tmp.PID" file, with its ballast (".NAME.tmp.PID.room",
 * the room kept for a failed write's close) when with_room, else only the files being written. */
static int count_tmp_files(int with_room)
{
    int n = 0;
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name);
        const int is_room = len > 5 && strcmp(e->d_name + len - 5, ".room") == 0;
        n += strstr(e->d_name, ".tmp.") != NULL && (with_room || !is_room);
    }
    if (d != NULL)
        closedir(d);
    return n;
}

static int count_tmp(void)
{
    return count_tmp_files(1);
}

static cs_err write_all(const char *path, double tag)
{
    cs_ckpt *ck = NULL;
    const int64_t n = piece_len(ctx.rank);
    int64_t i64[64];
    int32_t i32[64];
    uint64_t u64[64];
    float f32[64];
    double f64[64];
    unsigned char bytes[64];
    for (int64_t i = 0; i < n; i++) {
        i64[i] = -1000 * ctx.rank - i;
        i32[i] = (int32_t)(7 * ctx.rank + i);
        u64[i] = UINT64_MAX - (uint64_t)i - (uint64_t)ctx.rank;
        f32[i] = (float)i / 3.0f + (float)ctx.rank;
        f64[i] = tag + (double)i / 7.0 + ctx.rank;
        bytes[i] = (unsigned char)(200 + i + ctx.rank);
    }
    cs_err rc = cs_ckpt_create(&ctx, path, &ck);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "a/b/i64", CS_CK_I64, n, i64);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "a/i32", CS_CK_I32, n, i32);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "u64", CS_CK_U64, n, u64);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "a/b/c/f32", CS_CK_F32, n, f32);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "f64", CS_CK_F64, n, f64);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "bytes", CS_CK_BYTES, n, bytes);
    if (rc == CS_OK)
        rc = cs_ckpt_put(&ctx, ck, "empty", CS_CK_F64, 0, NULL);
    if (rc == CS_OK)
        rc = cs_ckpt_commit(&ctx, &ck);
    cs_ckpt_close(&ctx, &ck);
    return rc;
}

START_TEST(round_trip)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sub/dir/ck.h5", tmpdir);
    MPI_ASSERT(write_all(path, 0.5) == CS_OK);
    MPI_ASSERT(count_tmp() == 0);
    cs_ckpt *ck = NULL;
    MPI_ASSERT(cs_ckpt_open(&ctx, path, &ck) == CS_OK);
    const int64_t n = piece_len(ctx.rank);
    int64_t *i64 = NULL, got = -1;
    MPI_ASSERT(cs_ckpt_get(&ctx, ck, "a/b/i64", CS_CK_I64, &got, &i64) == CS_OK);
    int ok = got == n;
    for (int64_t i = 0; ok && i < n; i++)
        ok = i64[i] == -1000 * ctx.rank - i;
    free(i64);
    MPI_ASSERT(ok);
    int32_t i32[64];
    uint64_t u64[64];
    float f32[64];
    double f64[64];
    unsigned char bytes[64];
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "a/i32", CS_CK_I32, n, i32) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "u64", CS_CK_U64, n, u64) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "a/b/c/f32", CS_CK_F32, n, f32) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "f64", CS_CK_F64, n, f64) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "bytes", CS_CK_BYTES, n, bytes) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "empty", CS_CK_F64, 0, f64 + 63) == CS_OK);
    for (int64_t i = 0; ok && i < n; i++)
        ok = i32[i] == (int32_t)(7 * ctx.rank + i) &&
             u64[i] == UINT64_MAX - (uint64_t)i - (uint64_t)ctx.rank &&
             f32[i] == (float)i / 3.0f + (float)ctx.rank &&
             f64[i] == 0.5 + (double)i / 7.0 + ctx.rank &&
             bytes[i] == (unsigned char)(200 + i + ctx.rank);
    MPI_ASSERT(ok);
    /* refusals, agreed */
    cs_err rc = cs_ckpt_get_exact(&ctx, ck, "f64", CS_CK_F64, n + (ctx.rank == 0), f64);
    MPI_ASSERT(rc == CS_ERR_FORMAT && strstr(ctx.errmsg, "f64") != NULL);
    cs_ctx_clear_error(&ctx);
    rc = cs_ckpt_get_exact(&ctx, ck, "no/such", CS_CK_F64, 0, f64);
    MPI_ASSERT(rc == CS_ERR_FORMAT && strstr(ctx.errmsg, "no item no/such") != NULL);
    cs_ctx_clear_error(&ctx);
    rc = cs_ckpt_get_exact(&ctx, ck, "f64", CS_CK_F32, n, f32);
    MPI_ASSERT(rc == CS_ERR_FORMAT && strstr(ctx.errmsg, "another type") != NULL);
    cs_ckpt_close(&ctx, &ck);
    MPI_ASSERT(ck == NULL);
    cs_ctx_clear_error(&ctx);
}
END_TEST

START_TEST(atomic_replacement)
{
    char path[512];
    snprintf(path, sizeof path, "%s/atomic.h5", tmpdir);
    MPI_ASSERT(write_all(path, 1.0) == CS_OK);
    /* abandoned: the old checkpoint stays, no temporary */
    cs_ckpt *ck = NULL;
    MPI_ASSERT(cs_ckpt_create(&ctx, path, &ck) == CS_OK);
    double x = 99.0;
    MPI_ASSERT(cs_ckpt_put(&ctx, ck, "f64", CS_CK_F64, 1, &x) == CS_OK);
    MPI_ASSERT(count_tmp_files(0) == 1);
    cs_ckpt_close(&ctx, &ck);
    MPI_ASSERT(count_tmp() == 0);
    double f64[64];
    const int64_t n = piece_len(ctx.rank);
    MPI_ASSERT(cs_ckpt_open(&ctx, path, &ck) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "f64", CS_CK_F64, n, f64) == CS_OK);
    MPI_ASSERT(n == 0 || f64[0] == 1.0 + ctx.rank);
    cs_ckpt_close(&ctx, &ck);
    /* committed: replaced */
    MPI_ASSERT(write_all(path, 2.0) == CS_OK);
    MPI_ASSERT(cs_ckpt_open(&ctx, path, &ck) == CS_OK);
    MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "f64", CS_CK_F64, n, f64) == CS_OK);
    MPI_ASSERT(n == 0 || f64[0] == 2.0 + ctx.rank);
    cs_ckpt_close(&ctx, &ck);
    /* items that differ between ranks are refused */
    MPI_ASSERT(cs_ckpt_create(&ctx, path, &ck) == CS_OK);
    cs_err rc = cs_ckpt_put(&ctx, ck, ctx.rank == ctx.size - 1 ? "x" : "y", CS_CK_F64, 0, NULL);
    MPI_ASSERT(ctx.size == 1 ? rc == CS_OK : rc == CS_ERR_ARG);
    cs_ctx_clear_error(&ctx);
    cs_ckpt_close(&ctx, &ck);
    MPI_ASSERT(count_tmp() == 0);
}
END_TEST

START_TEST(foreign_files_are_refused)
{
    char path[512];
    cs_ctx_clear_error(&ctx);
    snprintf(path, sizeof path, "%s/missing.h5", tmpdir);
    cs_ckpt *ck = NULL;
    MPI_ASSERT(cs_ckpt_open(&ctx, path, &ck) == CS_ERR_IO && ck == NULL &&
               strstr(ctx.errmsg, "no such file") != NULL);
    cs_ctx_clear_error(&ctx);
    snprintf(path, sizeof path, "%s/text.h5", tmpdir);
    if (ctx.rank == 0) {
        FILE *f = fopen(path, "w");
        fputs("not hdf5\n", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_ASSERT(cs_ckpt_open(&ctx, path, &ck) == CS_ERR_FORMAT && ck == NULL);
    cs_ctx_clear_error(&ctx);
    /* written by rank 0 alone: refused on more ranks */
    snprintf(path, sizeof path, "%s/one.h5", tmpdir);
    MPI_Comm solo;
    MPI_Comm_split(MPI_COMM_WORLD, ctx.rank == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
    int ok = 1;
    if (ctx.rank == 0) {
        cs_ctx c1;
        cs_ctx_init(&c1, solo, CS_LOG_ERROR);
        cs_ckpt *w = NULL;
        ok = cs_ckpt_create(&c1, path, &w) == CS_OK && cs_ckpt_commit(&c1, &w) == CS_OK;
        MPI_Comm_free(&solo);
    }
    MPI_ASSERT(ok);
    cs_err rc = cs_ckpt_open(&ctx, path, &ck);
    if (ctx.size == 1) {
        MPI_ASSERT(rc == CS_OK);
        cs_ckpt_close(&ctx, &ck);
    } else {
        MPI_ASSERT(rc == CS_ERR_ARG && strstr(ctx.errmsg, "written on 1 ranks") != NULL);
    }
}
END_TEST

/* A checkpoint of another schema version (an older layout of the items) is refused, naming the
 * file and both versions. */
START_TEST(other_schema_versions_are_refused)
{
    char path[512], want[600];
    cs_ctx_clear_error(&ctx);
    snprintf(path, sizeof path, "%s/old.h5", tmpdir);
    MPI_ASSERT(write_all(path, 1.0) == CS_OK);
    int ok = 1;
    if (ctx.rank == 0) {
        const int32_t old = CS_CKPT_SCHEMA_VERSION - 1;
        hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t a = f >= 0 ? H5Aopen(f, "schema_version", H5P_DEFAULT) : -1;
        ok = a >= 0 && H5Awrite(a, H5T_NATIVE_INT32, &old) >= 0;
        if (a >= 0)
            H5Aclose(a);
        if (f >= 0)
            H5Fclose(f);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_ASSERT(ok);
    cs_ckpt *ck = NULL;
    const cs_err rc = cs_ckpt_open(&ctx, path, &ck);
    snprintf(want, sizeof want, "checkpoint %s has schema version %d; this crawlsim reads %d", path,
             CS_CKPT_SCHEMA_VERSION - 1, CS_CKPT_SCHEMA_VERSION);
    MPI_ASSERT(rc == CS_ERR_SCHEMA && ck == NULL && strstr(ctx.errmsg, want) != NULL);
    cs_ctx_clear_error(&ctx);
    cs_ckpt_close(&ctx, &ck);
}
END_TEST

/* Rank 0 alone changes an item behind the checkpoint's back with plain HDF5: `how` 0 flips one
 * bit of the last element, 1 makes the dataset one element shorter than its counts, 2 drops
 * the checksums attribute, 3 moves an element from rank 0's count to the last rank's (the
 * total unchanged). Returns 1 when the change was made. */
static int damage(const char *path, const char *item, int how)
{
    int ok = 1;
    if (ctx.rank == 0) {
        ok = 0;
        hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t d = f >= 0 ? H5Dopen2(f, item, H5P_DEFAULT) : -1;
        hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
        hsize_t dim = 0;
        if (sp >= 0 && H5Sget_simple_extent_dims(sp, &dim, NULL) == 1 && dim > 0) {
            if (how == 0) {
                hsize_t at = dim - 1, one = 1;
                unsigned char buf[8] = {0};
                hid_t ms = H5Screate_simple(1, &one, NULL);
                hid_t t = H5Dget_type(d);
                ok = H5Sselect_hyperslab(sp, H5S_SELECT_SET, &at, NULL, &one, NULL) >= 0 &&
                     H5Dread(d, t, ms, sp, H5P_DEFAULT, buf) >= 0;
                buf[0] ^= 0x10;
                ok = ok && H5Dwrite(d, t, ms, sp, H5P_DEFAULT, buf) >= 0;
                H5Tclose(t);
                H5Sclose(ms);
            } else if (how == 1) {
                /* a copy one element shorter, with the original's attributes, under the name */
                hsize_t shorter = dim - 1;
                hid_t t = H5Dget_type(d), ns = H5Screate_simple(1, &shorter, NULL);
                hid_t c = H5Dcreate2(f, "shorter", t, ns, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
                int64_t counts[64];
                uint64_t sums[64];
                hsize_t nr = (hsize_t)ctx.size;
                hid_t as = H5Screate_simple(1, &nr, NULL);
                hid_t a = H5Aopen(d, "counts", H5P_DEFAULT),
                      b = H5Aopen(d, "checksums", H5P_DEFAULT);
                ok = c >= 0 && H5Aread(a, H5T_NATIVE_INT64, counts) >= 0 &&
                     H5Aread(b, H5T_NATIVE_UINT64, sums) >= 0;
                H5Aclose(a);
                H5Aclose(b);
                a = H5Acreate2(c, "counts", H5T_STD_I64LE, as, H5P_DEFAULT, H5P_DEFAULT);
                b = H5Acreate2(c, "checksums", H5T_STD_U64LE, as, H5P_DEFAULT, H5P_DEFAULT);
                ok = ok && H5Awrite(a, H5T_NATIVE_INT64, counts) >= 0 &&
                     H5Awrite(b, H5T_NATIVE_UINT64, sums) >= 0;
                H5Aclose(a);
                H5Aclose(b);
                H5Sclose(as);
                H5Sclose(ns);
                H5Tclose(t);
                if (c >= 0)
                    H5Dclose(c);
                H5Dclose(d);
                d = -1;
                ok = ok && H5Ldelete(f, item, H5P_DEFAULT) >= 0 &&
                     H5Lmove(f, "shorter", f, item, H5P_DEFAULT, H5P_DEFAULT) >= 0;
            } else if (how == 2) {
                ok = H5Adelete(d, "checksums") >= 0;
            } else {
                int64_t counts[64] = {0};
                hid_t a = H5Aopen(d, "counts", H5P_DEFAULT);
                ok = a >= 0 && H5Aread(a, H5T_NATIVE_INT64, counts) >= 0;
                counts[0] -= 1;
                counts[ctx.size - 1] += 1;
                ok = ok && H5Awrite(a, H5T_NATIVE_INT64, counts) >= 0;
                if (a >= 0)
                    H5Aclose(a);
            }
        }
        if (sp >= 0)
            H5Sclose(sp);
        if (d >= 0)
            H5Dclose(d);
        if (f >= 0)
            H5Fclose(f);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* Damage HDF5 cannot see (it checks no raw data) is found on every rank, with one error on every
 * rank and no rank left in a collective read: a flipped bit (the checksum), a dataset shorter
 * than its counts (which deadlocked every rank before the shape was checked), counts moved
 * between ranks, a missing checksum. The undamaged items still read. */
START_TEST(damage_is_found)
{
    char path[512];
    cs_ctx_clear_error(&ctx);
    snprintf(path, sizeof path, "%s/damaged.h5", tmpdir);
    static const char *const item[] = {"a/b/i64", "u64", "a/b/c/f32", "bytes"};
    static const char *const want[] = {"is damaged (its checksum", "its counts say",
                                       "no valid counts or checksums", "is damaged (its checksum"};
    for (int how = 0; how < 4; how++) {
        MPI_ASSERT(write_all(path, 1.0) == CS_OK);
        /* the last rank holds the last element (rank 1 writes none, at 2 ranks rank 0 does) */
        MPI_ASSERT(damage(path, item[how], how));
        cs_ckpt *ck = NULL;
        MPI_ASSERT(cs_ckpt_open(&ctx, path, &ck) == CS_OK);
        int64_t n = 0;
        void *data = NULL;
        cs_err rc = cs_ckpt_get(&ctx, ck, item[how],
                                how == 2   ? CS_CK_F32
                                : how == 0 ? CS_CK_I64
                                : how == 1 ? CS_CK_U64
                                           : CS_CK_BYTES,
                                &n, &data);
        free(data);
        if (how == 3 && ctx.size == 1) {
            /* one rank: moving a count between ranks is no change */
            MPI_ASSERT(rc == CS_OK);
        } else {
            MPI_ASSERT(rc == CS_ERR_FORMAT && strstr(ctx.errmsg, want[how]) != NULL &&
                       strstr(ctx.errmsg, item[how]) != NULL);
        }
        cs_ctx_clear_error(&ctx);
        double f64[64];
        MPI_ASSERT(cs_ckpt_get_exact(&ctx, ck, "f64", CS_CK_F64, piece_len(ctx.rank), f64) ==
                   CS_OK);
        cs_ckpt_close(&ctx, &ck);
    }
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "ckpt");
    Suite *s = suite_create("checkpoint (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, atomic_replacement);
    tcase_add_test(tc, foreign_files_are_refused);
    tcase_add_test(tc, other_schema_versions_are_refused);
    tcase_add_test(tc, damage_is_found);
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    mpitest_rm_tmpdir(tmpdir);
    MPI_Finalize();
    return status;
}
