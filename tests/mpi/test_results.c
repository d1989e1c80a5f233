/*
 * MPI integration tests of the results file (cs_results_*): series (int64, float64, 2-D),
 * gathers from every rank, a text config and attributes, read back with the HDF5 API on rank 0
 * value by value; two writes of the same records (recorded in different orders, at least a
 * second apart) are identical object by object (cs_compare_files) and byte by byte, with
 * no modification times stored and no temporary left; an unwritable path and a target that is
 * a directory fail with the same code and message on every rank and leave nothing behind;
 * bad records are refused. Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/compare.h"
#include "crawlsim/h5.h"
#include "crawlsim/results.h"
#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cs_ctx ctx;
static char tmpdir[256];

#define NSYNC 5
static const int64_t fetched[NSYNC] = {10, 25, 41, 60, 77};
static const double precision[NSYNC] = {0.5, 0.25, 0.125, 1.0 / 3.0, -0.0};
static const double fresh2d[NSYNC][3] = {
    {0.1, 0.2, 0.3}, {1.1, 1.2, 1.3}, {2.1, 2.2, 2.3}, {3.1, 3.2, 3.3}, {4.1, 4.2, 4.3}};
static const uint8_t mask[6] = {0, 1, 255, 7, 0, 1};
static const char config_text[] = "[job]\nname = test\nseed = 42\n\n[crawl]\npolicy = bfs\n";

/* This rank's gathered values. */
static int64_t rank_fetched(int r)
{
    return 1000 + 7 * (int64_t)r;
}
static double rank_load(int r, int c)
{
    return (double)r + 0.25 * (double)c;
}

/* Collective. Records the test content into r; `reversed` records it in another order (the
 * file must not depend on it). Returns 1 if every call succeeded. */
static int build(cs_results *r, int reversed)
{
    int ok = 1;
    int64_t mine = rank_fetched(ctx.rank);
    double load[2] = {rank_load(ctx.rank, 0), rank_load(ctx.rank, 1)};
    for (int step = 0; step < 9; step++) {
        int s = reversed ? 8 - step : step;
        cs_err rc = CS_OK;
        switch (s) {
        case 0:
            rc = cs_results_add(&ctx, r, "series/fetched", CS_RES_I64, NSYNC, 0, fetched);
            break;
        case 1:
            rc = cs_results_add(&ctx, r, "/series/precision", CS_RES_F64, NSYNC, 0, precision);
            break;
        case 2:
            rc = cs_results_add(&ctx, r, "series/freshness", CS_RES_F64, NSYNC, 3, fresh2d);
            break;
        case 3:
            rc = cs_results_add(&ctx, r, "final/deep/mask", CS_RES_U8, 6, 0, mask);
            if (rc == CS_OK)
                rc = cs_results_add(&ctx, r, "final/empty", CS_RES_F64, 0, 4, NULL);
            break;
        case 4:
            rc = cs_results_add_text(&ctx, r, "config", config_text);
            break;
        case 5:
            rc = cs_results_attr(&ctx, r, "", "job", "jobs/test.ini");
            if (rc == CS_OK)
                rc = cs_results_attr(&ctx, r, "/series", "x", "sync point");
            if (rc == CS_OK)
                rc = cs_results_attr(&ctx, r, "series/fetched", "unit", "pages");
            if (rc == CS_OK)
                rc = cs_results_attr(&ctx, r, "notes", "empty", "");
            break;
        case 6:
            rc = cs_results_gather(&ctx, r, "ranks/fetched", CS_RES_I64, 1, &mine);
            break;
        case 7:
            rc = cs_results_gather(&ctx, r, "ranks/load", CS_RES_F64, 2, load);
            break;
        default:
            rc = cs_results_attr(&ctx, r, "/", "seed", "42");
            break;
        }
        ok = ok && rc == CS_OK;
    }
    return ok;
}

/* Collective. The same message on every rank (hash compared). */
static int same_message(void)
{
    uint64_t h = 1469598103934665603ULL, lo = 0, hi = 0;
    for (size_t i = 0; ctx.errmsg[i] != '\0'; i++)
        h = (h ^ (unsigned char)ctx.errmsg[i]) * 1099511628211ULL;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* Collective. rc and the error message are the same on every rank. Call it on its own, never
 * behind a short circuit: a rank that skipped it would leave the others in the collective. */
static int all_agree(cs_err rc)
{
    int v = (int)rc, lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int msg = same_message();
    return lo == hi && msg;
}

/* Local. How many entries of dir (. and .. aside) begin with prefix (-1: cannot read dir). */
static int count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strcmp(e->d_name, ".") != 0 &&
            strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* ---- reading back (rank 0) ---- */

static int attr_string_is(hid_t obj, const char *name, const char *want)
{
    char got[256];
    cs_ctx lc;
    cs_ctx_init_local(&lc, CS_LOG_ERROR);
    return cs_h5_attr_read_string(&lc, obj, name, got, sizeof got, "test") == CS_OK &&
           strcmp(got, want) == 0;
}

/* The dataset exists with this type (file type equal to ftype), rank and dims; its values
 * read as mtype equal want (bytes). */
static int dataset_is(hid_t f, const char *name, hid_t ftype, int rank, hsize_t d0, hsize_t d1,
                      hid_t mtype, const void *want, size_t bytes)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int ok = t >= 0 && sp >= 0 && H5Tequal(t, ftype) > 0 &&
             H5Sget_simple_extent_ndims(sp) == rank &&
             H5Sget_simple_extent_dims(sp, dims, NULL) == rank && dims[0] == d0 &&
             (rank < 2 || dims[1] == d1);
    /* No modification time stored (DESIGN.md "Determinism"). */
    H5O_info_t info;
    ok = ok && H5Oget_info2(d, &info, H5O_INFO_TIME) >= 0 && info.mtime == 0 && info.ctime == 0;
    if (ok && bytes > 0) {
        unsigned char *buf = malloc(bytes);
        ok = buf != NULL && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
             memcmp(buf, want, bytes) == 0;
        free(buf);
    }
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    H5Dclose(d);
    return ok;
}

static int text_is(hid_t f, const char *name, const char *want)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    int ok = t >= 0 && sp >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0 &&
             H5Sget_simple_extent_type(sp) == H5S_SCALAR;
    size_t sz = ok ? H5Tget_size(t) : 0;
    char *buf = ok ? calloc(sz + 1, 1) : NULL;
    ok = ok && buf != NULL && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
         strcmp(buf, want) == 0;
    free(buf);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    H5Dclose(d);
    return ok;
}

/* Rank 0. Every value of the file written by build(). */
static int check_file(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 0;
    int ok = 1, p = ctx.size;
    int32_t version = 0;
    cs_ctx lc;
    cs_ctx_init_local(&lc, CS_LOG_ERROR);
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    ok = ok && root >= 0 && attr_string_is(root, "format", "crawlsim-results") &&
         attr_string_is(root, "crawlsim_version", CRAWLSIM_VERSION) &&
         attr_string_is(root, "job", "jobs/test.ini") && attr_string_is(root, "seed", "42") &&
         cs_h5_attr_read(&lc, root, "schema_version", H5T_INTEGER, H5T_NATIVE_INT32, &version,
                         "test") == CS_OK &&
         version == 1;
    if (root >= 0) {
        H5O_info_t info;
        ok = ok && H5Oget_info2(root, &info, H5O_INFO_TIME | H5O_INFO_NUM_ATTRS) >= 0 &&
             info.mtime == 0 && info.num_attrs == 5;
        H5Gclose(root);
    }
    ok = ok && dataset_is(f, "/series/fetched", H5T_STD_I64LE, 1, NSYNC, 0, H5T_NATIVE_INT64,
                          fetched, sizeof fetched);
    ok = ok && dataset_is(f, "/series/precision", H5T_IEEE_F64LE, 1, NSYNC, 0, H5T_NATIVE_DOUBLE,
                          precision, sizeof precision);
    ok = ok && dataset_is(f, "/series/freshness", H5T_IEEE_F64LE, 2, NSYNC, 3, H5T_NATIVE_DOUBLE,
                          fresh2d, sizeof fresh2d);
    ok = ok && dataset_is(f, "/final/deep/mask", H5T_STD_U8LE, 1, 6, 0, H5T_NATIVE_UINT8, mask,
                          sizeof mask);
    ok = ok && dataset_is(f, "/final/empty", H5T_IEEE_F64LE, 2, 0, 4, H5T_NATIVE_DOUBLE, NULL, 0);
    ok = ok && text_is(f, "/config", config_text);

    int64_t *rf = malloc((size_t)p * sizeof *rf);
    double *rl = malloc((size_t)p * 2 * sizeof *rl);
    ok = ok && rf != NULL && rl != NULL;
    for (int r = 0; ok && r < p; r++) {
        rf[r] = rank_fetched(r);
        rl[2 * r] = rank_load(r, 0);
        rl[2 * r + 1] = rank_load(r, 1);
    }
    ok = ok && dataset_is(f, "/ranks/fetched", H5T_STD_I64LE, 1, (hsize_t)p, 0, H5T_NATIVE_INT64,
                          rf, (size_t)p * sizeof *rf);
    ok = ok && dataset_is(f, "/ranks/load", H5T_IEEE_F64LE, 2, (hsize_t)p, 2, H5T_NATIVE_DOUBLE, rl,
                          (size_t)p * 2 * sizeof *rl);
    free(rl);
    free(rf);

    hid_t o = ok ? H5Oopen(f, "/series", H5P_DEFAULT) : -1;
    ok = ok && o >= 0 && attr_string_is(o, "x", "sync point");
    if (o >= 0)
        H5Oclose(o);
    o = ok ? H5Oopen(f, "/series/fetched", H5P_DEFAULT) : -1;
    ok = ok && o >= 0 && attr_string_is(o, "unit", "pages");
    if (o >= 0)
        H5Oclose(o);
    o = ok ? H5Oopen(f, "/notes", H5P_DEFAULT) : -1; /* a group made for its attribute */
    H5O_info_t info;
    ok = ok && o >= 0 && H5Oget_info2(o, &info, H5O_INFO_BASIC | H5O_INFO_TIME) >= 0 &&
         info.type == H5O_TYPE_GROUP && info.mtime == 0 && attr_string_is(o, "empty", "");
    if (o >= 0)
        H5Oclose(o);
    H5Fclose(f);
    return ok;
}

/* Rank 0. a and b hold the same objects with the same types, shapes, values and attributes
 * (cs_compare_files, nothing ignored): the root, 5 groups and 8 datasets. */
static int same_contents(const char *pa, const char *pb)
{
    cs_ctx lc;
    cs_ctx_init_local(&lc, CS_LOG_ERROR);
    const cs_compare_opts o = {.out = stderr, .max_lines = 10};
    cs_compare_stats st;
    return cs_compare_files(&lc, pa, pb, &o, &st) == CS_OK && st.differ == 0 && st.objects == 14;
}

/* Rank 0. The two files have the same bytes. */
static int same_bytes(const char *pa, const char *pb)
{
    FILE *a = fopen(pa, "rb"), *b = fopen(pb, "rb");
    int ok = a != NULL && b != NULL;
    long n = 0;
    while (ok) {
        int x = fgetc(a), y = fgetc(b);
        ok = x == y;
        if (x == EOF || y == EOF)
            break;
        n++;
    }
    if (a != NULL)
        fclose(a);
    if (b != NULL)
        fclose(b);
    return ok && n > 0;
}

/* ---- tests ---- */

START_TEST(write_and_read_back)
{
    char dir[320], path[400];
    snprintf(dir, sizeof dir, "%s/results", tmpdir); /* missing: created by the write */
    snprintf(path, sizeof path, "%s/run.h5", dir);
    cs_results *r = NULL;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_results_create(&ctx, &r) == CS_OK && r != NULL);
    MPI_ASSERT(build(r, 0));
    cs_err rc = cs_results_write(&ctx, r, path);
    MPI_ASSERT(rc == CS_OK);
    int ok = 1;
    if (ctx.rank == 0)
        ok = check_file(path) && count_entries(dir, "") == 1;
    MPI_ASSERT(ok);
    cs_results_destroy(&r);
    cs_results_destroy(&r); /* NULL is fine */
    MPI_ASSERT(r == NULL);
}
END_TEST

START_TEST(identical_writes_are_identical)
{
    char dir[320], pa[400], pb[400];
    snprintf(dir, sizeof dir, "%s/twice", tmpdir);
    snprintf(pa, sizeof pa, "%s/a.h5", dir);
    snprintf(pb, sizeof pb, "%s/b.h5", dir);
    cs_results *ra = NULL, *rb = NULL;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_results_create(&ctx, &ra) == CS_OK && cs_results_create(&ctx, &rb) == CS_OK);
    MPI_ASSERT(build(ra, 0) && build(rb, 1));
    MPI_ASSERT(cs_results_write(&ctx, ra, pa) == CS_OK);
    /* Let the clock move on by a second, so that stored times would differ. */
    time_t t0 = time(NULL);
    while (time(NULL) == t0) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_ASSERT(cs_results_write(&ctx, rb, pb) == CS_OK);
    int ok = 1;
    if (ctx.rank == 0)
        ok = check_file(pb) && same_contents(pa, pb) && count_entries(dir, ".") == 0 &&
             count_entries(dir, "") == 2;
    MPI_ASSERT(ok);
    if (ctx.rank == 0)
        ok = same_bytes(pa, pb);
    MPI_ASSERT(ok);
    /* Writing over an existing file replaces it atomically, leaving no temporary. */
    MPI_ASSERT(cs_results_write(&ctx, rb, pa) == CS_OK);
    if (ctx.rank == 0)
        ok = same_bytes(pa, pb) && count_entries(dir, "") == 2;
    MPI_ASSERT(ok);
    cs_results_destroy(&rb);
    cs_results_destroy(&ra);
}
END_TEST

START_TEST(unwritable_path_fails_everywhere)
{
    char dir[320], plain[400], under[480], isdir[400];
    snprintf(dir, sizeof dir, "%s/bad", tmpdir);
    snprintf(plain, sizeof plain, "%s/plain", dir);
    snprintf(under, sizeof under, "%s/sub/run.h5", plain);
    snprintf(isdir, sizeof isdir, "%s/adir", dir);
    if (ctx.rank == 0) {
        mkdir(dir, 0777);
        mkdir(isdir, 0777);
        FILE *f = fopen(plain, "w");
        if (f != NULL) {
            fputs("not a directory\n", f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    cs_results *r = NULL;
    MPI_ASSERT(cs_results_create(&ctx, &r) == CS_OK);
    MPI_ASSERT(build(r, 0));

    /* Below a regular file. */
    int agreed = 0;
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_results_write(&ctx, r, under);
    agreed = all_agree(rc);
    MPI_ASSERT(rc == CS_ERR_IO && agreed);
    MPI_ASSERT(strstr(ctx.errmsg, "cannot create results file") != NULL &&
               strstr(ctx.errmsg, under) != NULL && strstr(ctx.errmsg, "Not a directory") != NULL);
    int ok = 1;
    if (ctx.rank == 0)
        ok = count_entries(dir, "") == 2 && count_entries(isdir, "") == 0;
    MPI_ASSERT(ok);

    /* The target is a directory: the rename fails, the temporary goes. */
    cs_ctx_clear_error(&ctx);
    rc = cs_results_write(&ctx, r, isdir);
    agreed = all_agree(rc);
    MPI_ASSERT(rc == CS_ERR_IO && agreed);
    MPI_ASSERT(strstr(ctx.errmsg, isdir) != NULL);
    if (ctx.rank == 0)
        ok = count_entries(dir, "") == 2 && count_entries(isdir, "") == 0;
    MPI_ASSERT(ok);
    cs_results_destroy(&r);
}
END_TEST

START_TEST(bad_records_are_refused)
{
    cs_results *r = NULL;
    const int64_t v[2] = {1, 2};
    MPI_ASSERT(cs_results_create(&ctx, &r) == CS_OK);
    cs_ctx_clear_error(&ctx);
    int ok = cs_results_add(&ctx, r, "series/a", CS_RES_I64, 2, 0, v) == CS_OK &&
             cs_results_add(&ctx, r, "/series/a", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "series/a/b", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "series", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add_text(&ctx, r, "series/a", "x") == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "a//b", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "a/../b", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "a/", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "neg", CS_RES_I64, -1, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "null", CS_RES_I64, 2, 0, NULL) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "huge", CS_RES_F64, INT64_MAX / 2, 4, v) == CS_ERR_LIMIT &&
             cs_results_add(&ctx, r, "badtype", (cs_results_type)7, 2, 0, v) == CS_ERR_ARG &&
             cs_results_attr(&ctx, r, "/", "format", "x") == CS_ERR_ARG &&
             cs_results_attr(&ctx, r, "series/a/c", "k", "x") == CS_ERR_ARG &&
             cs_results_attr(&ctx, r, "g/h", "k", "x") == CS_OK &&
             cs_results_attr(&ctx, r, "g/h", "k", "y") == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "g", CS_RES_I64, 2, 0, v) == CS_ERR_ARG &&
             cs_results_add(&ctx, r, "g/h", CS_RES_I64, 2, 0, v) == CS_OK;
    MPI_ASSERT(ok);
    /* A gather whose ranks disagree on the shape: the same error everywhere. */
    int64_t three[3] = {ctx.rank, 0, 0};
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_results_gather(&ctx, r, "ranks/x", CS_RES_I64, ctx.rank == 0 ? 1 : 3, three);
    int agreed = all_agree(rc);
    MPI_ASSERT(agreed);
    MPI_ASSERT(rc == (ctx.size > 1 ? CS_ERR_ARG : CS_OK));
    /* A gather onto a recorded path. */
    cs_ctx_clear_error(&ctx);
    rc = cs_results_gather(&ctx, r, "series/a", CS_RES_I64, 1, three);
    agreed = all_agree(rc);
    MPI_ASSERT(rc == CS_ERR_ARG && agreed);
    cs_results_destroy(&r);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "results");
    Suite *s = suite_create("results (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, write_and_read_back);
    tcase_add_test(tc, identical_writes_are_identical);
    tcase_add_test(tc, unwritable_path_fails_everywhere);
    tcase_add_test(tc, bad_records_are_refused);
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    mpitest_rm_tmpdir(tmpdir);
    MPI_Finalize();
    return status;
}
