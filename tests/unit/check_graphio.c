/*
 * Unit tests of the serial parts of graphio: cs_compare_files (`crawlsim compare`) on files made
 * here with the HDF5 API. Identical files compare equal (also when a fixed-length string carries
 * other bytes after its NUL); each kind of difference is found and printed with its path: a value,
 * a shape with the same leading values (5 vs 6 elements: what h5diff 1.10 lets through with exit
 * status 0), a dataset missing in either file, an attribute's value or its absence (the root's
 * too), a type of the same values (int32 vs int64), -0.0 vs 0.0, two NaN payloads, a
 * variable-length string, a dataset that is a group in the other file; values read in several
 * blocks report the right index and count; ignore and only select by whole path components;
 * missing files, non-HDF5 files and bad paths are errors.
 */
#include "crawlsim/compare.h"
#include "crawlsim/graphio.h"

#include <check.h>
#include <hdf5.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

/* What a file made by make_file differs in from the base file (flags). */
enum {
    F_VALUE = 1 << 0,        /* /series/fetched[3] = 61 instead of 60 */
    F_SHAPE = 1 << 1,        /* /trace/page has 6 elements, the first 5 the same */
    F_MISSING = 1 << 2,      /* no /final/mask */
    F_ATTR = 1 << 3,         /* /series/fetched unit = "links" instead of "pages" */
    F_ATTR_MISSING = 1 << 4, /* /series has no attribute x */
    F_TYPE = 1 << 5,         /* /trace/page is int64 (same values) */
    F_POSZERO = 1 << 6,      /* /series/precision[4] = 0.0 instead of -0.0 */
    F_NAN = 1 << 7,          /* /series/nan[1] has another NaN payload */
    F_VSTR = 1 << 8,         /* /names[1] = "betb" instead of "beta" */
    F_KIND = 1 << 9,         /* /final/mask is a group */
    F_ROOTATTR = 1 << 10,    /* root attribute schema_version = 2 */
    F_TIMING = 1 << 11,      /* /timing/wall = 2.0 instead of 1.0 */
    F_FSTR_TAIL = 1 << 12,   /* /config: other bytes after the NUL (the same string) */
    F_BIG = 1 << 13,         /* /big int64 [400000][3] = 0, 1, 2, ... (two read blocks) */
    F_BIGDIFF = 1 << 14,     /* /big[0][0] and /big[399999][2] = -1 */
    F_CONFIG40 = 1 << 15,    /* /config is a string of 40 bytes (the same contents) */
    F_CONFIGY = 1 << 16      /* /config says name = y */
};

#define BIG_ROWS 400000

static void put(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                const hsize_t *dims, const void *data)
{
    hid_t sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
    ck_assert(sp >= 0);
    hid_t d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg(d >= 0, "create %s", name);
    ck_assert(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(d);
    H5Sclose(sp);
}

static void put_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *val)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg(a >= 0, "attribute %s", name);
    ck_assert(H5Awrite(a, mtype, val) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
}

static void put_attr_str(hid_t loc, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    ck_assert(t >= 0 && H5Tset_size(t, strlen(val) + 1) >= 0);
    put_attr(loc, name, t, t, val);
    H5Tclose(t);
}

static double from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Writes tmpdir/name with the base contents changed as `flags` says; returns its path (valid for
 * the next 31 calls). */
static const char *make_file(const char *name, unsigned flags)
{
    static char path[32][160];
    static int next = 0;
    char *p = path[next++ % 32];
    snprintf(p, sizeof path[0], "%s/%s", tmpdir, name);
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg(f >= 0, "create %s", p);
    put_attr_str(f, "format", "crawlsim-results");
    const int32_t version = flags & F_ROOTATTR ? 2 : 1;
    put_attr(f, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32, &version);

    /* /config: a scalar fixed-length string of 32 bytes */
    char config[40];
    memset(config, flags & F_FSTR_TAIL ? 'Z' : 0, sizeof config);
    strcpy(config, flags & F_CONFIGY ? "[job]\nname = y\n" : "[job]\nname = x\n");
    hid_t st = H5Tcopy(H5T_C_S1);
    ck_assert(st >= 0 && H5Tset_size(st, flags & F_CONFIG40 ? 40 : 32) >= 0 &&
              H5Tset_strpad(st, H5T_STR_NULLTERM) >= 0);
    put(f, "config", st, st, 0, NULL, config);
    H5Tclose(st);

    hid_t g = H5Gcreate2(f, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert(g >= 0);
    if (!(flags & F_ATTR_MISSING))
        put_attr_str(g, "x", "sync point");
    int64_t fetched[5] = {10, 25, 41, 60, 77};
    if (flags & F_VALUE)
        fetched[3] = 61;
    hsize_t n5 = 5, n3 = 3, d32[2] = {3, 2};
    put(g, "fetched", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &n5, fetched);
    hid_t d = H5Dopen2(g, "fetched", H5P_DEFAULT);
    put_attr_str(d, "unit", flags & F_ATTR ? "links" : "pages");
    H5Dclose(d);
    const double precision[5] = {0.5, 0.25, 0.125, 1.0 / 3.0, flags & F_POSZERO ? 0.0 : -0.0};
    put(g, "precision", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n5, precision);
    const double nan3[3] = {
        1.0, from_bits(flags & F_NAN ? 0x7ff8000000000002ULL : 0x7ff8000000000001ULL), 2.0};
    put(g, "nan", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n3, nan3);
    const double fresh[3][2] = {{0.1, 0.2}, {1.1, 1.2}, {2.1, 2.2}};
    put(g, "fresh", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, d32, fresh);
    H5Gclose(g);

    g = H5Gcreate2(f, "trace", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int32_t page[6] = {1, 2, 3, 4, 5, 6};
    hsize_t np = flags & F_SHAPE ? 6 : 5;
    if (flags & F_TYPE)
        put(g, "page", H5T_STD_I64LE, H5T_NATIVE_INT32, 1, &np, page);
    else
        put(g, "page", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &np, page);
    H5Gclose(g);

    g = H5Gcreate2(f, "final", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const uint8_t mask[4] = {0, 1, 255, 7};
    hsize_t n4 = 4;
    if (flags & F_KIND) {
        hid_t h = H5Gcreate2(g, "mask", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(h);
    } else if (!(flags & F_MISSING)) {
        put(g, "mask", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &n4, mask);
    }
    typedef struct pair {
        int32_t a;
        double b;
    } pair;
    pair pairs[2];
    memset(pairs, 0, sizeof pairs);
    pairs[0].a = 1;
    pairs[0].b = 0.5;
    pairs[1].a = 2;
    pairs[1].b = 1.5;
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(pair));
    ck_assert(ct >= 0 && H5Tinsert(ct, "a", offsetof(pair, a), H5T_NATIVE_INT32) >= 0 &&
              H5Tinsert(ct, "b", offsetof(pair, b), H5T_NATIVE_DOUBLE) >= 0);
    hsize_t n2 = 2;
    put(g, "pairs", ct, ct, 1, &n2, pairs);
    H5Tclose(ct);
    H5Gclose(g);

    const char *names[2] = {"alpha", flags & F_VSTR ? "betb" : "beta"};
    hid_t vt = H5Tcopy(H5T_C_S1);
    ck_assert(vt >= 0 && H5Tset_size(vt, H5T_VARIABLE) >= 0);
    put(f, "names", vt, vt, 1, &n2, names);
    H5Tclose(vt);

    hsize_t d04[2] = {0, 4};
    put(f, "empty", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, d04, NULL);
    ck_assert(H5Lcreate_soft("/series/fetched", f, "latest", H5P_DEFAULT, H5P_DEFAULT) >= 0);

    g = H5Gcreate2(f, "timing", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const double wall = flags & F_TIMING ? 2.0 : 1.0;
    hsize_t n1 = 1;
    put(g, "wall", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n1, &wall);
    H5Gclose(g);

    if (flags & F_BIG) {
        int64_t *big = malloc((size_t)BIG_ROWS * 3 * sizeof *big);
        ck_assert(big != NULL);
        for (int64_t i = 0; i < (int64_t)BIG_ROWS * 3; i++)
            big[i] = i;
        if (flags & F_BIGDIFF)
            big[0] = big[(int64_t)BIG_ROWS * 3 - 1] = -1;
        hsize_t db[2] = {BIG_ROWS, 3};
        put(f, "big", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, db, big);
        free(big);
    }
    H5Fclose(f);
    return p;
}

/* Objects of the base file: the root, /config, /empty, /final, /final/mask, /final/pairs,
 * /latest, /names, /series and its 4 datasets, /timing, /timing/wall, /trace, /trace/page. */
#define BASE_OBJECTS 17

/* Compares a and b; the difference lines (at most max_lines) are returned in *text (freed by the
 * caller), the error message in *msg (NULL when none; freed by the caller). */
static cs_err compare(const char *a, const char *b, const char *const *ignore, int n_ignore,
                      const char *const *only, int n_only, int64_t max_lines, cs_compare_stats *st,
                      char **text, char **msg)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    size_t len = 0;
    FILE *out = open_memstream(text, &len);
    ck_assert(out != NULL);
    const cs_compare_opts o = {ignore, n_ignore, only, n_only, out, max_lines};
    cs_err rc = cs_compare_files(&ctx, a, b, &o, st);
    fclose(out);
    *msg = rc != CS_OK ? strdup(ctx.errmsg) : NULL;
    cs_ctx_fini(&ctx);
    return rc;
}

/* Compares a and b with nothing ignored: the files differ in `objects` objects (differ) and the
 * output holds `line`. */
static void expect_diff(const char *a, const char *b, int64_t differ, const char *line)
{
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    cs_err rc = compare(a, b, NULL, 0, NULL, 0, -1, &st, &text, &msg);
    ck_assert_msg(rc == CS_OK, "compare failed: %s", msg ? msg : "");
    ck_assert_msg(st.differ == differ, "%lld objects differ, expected %lld (%s); output:\n%s",
                  (long long)st.differ, (long long)differ, line, text);
    ck_assert_msg(strstr(text, line) != NULL, "output lacks '%s':\n%s", line, text);
    free(text);
    free(msg);
}

START_TEST(identical_files_are_equal)
{
    const char *a = make_file("a.h5", 0);
    sleep(1); /* object times, if any were stored, would differ */
    const char *b = make_file("b.h5", 0);
    const char *c = make_file("c.h5", F_FSTR_TAIL);
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    ck_assert(compare(a, b, NULL, 0, NULL, 0, -1, &st, &text, &msg) == CS_OK);
    ck_assert_msg(st.objects == BASE_OBJECTS && st.differ == 0 && st.lines == 0 && text[0] == '\0',
                  "objects %lld differ %lld: %s", (long long)st.objects, (long long)st.differ,
                  text);
    free(text);
    /* a fixed-length string compares by its contents, not by the bytes after its NUL */
    ck_assert(compare(a, c, NULL, 0, NULL, 0, -1, &st, &text, &msg) == CS_OK);
    ck_assert_msg(st.differ == 0, "%s", text);
    free(text);
    /* a file equals itself */
    ck_assert(compare(a, a, NULL, 0, NULL, 0, -1, &st, &text, &msg) == CS_OK && st.differ == 0);
    free(text);
}
END_TEST

START_TEST(each_difference_is_found)
{
    const char *a = make_file("base.h5", 0);
    static const struct {
        unsigned flags;
        const char *line;
    } cases[] = {
        {F_VALUE, "/series/fetched: values differ at [3]: 60 vs 61 (1 of 5 elements differ)"},
        {F_SHAPE, "/trace/page: shape [5] vs [6]"},
        {F_MISSING, "/final/mask: dataset missing in B"},
        {F_ATTR, "/series/fetched: attribute 'unit': value differs: \"pages\" vs \"links\""},
        {F_ATTR_MISSING, "/series: attribute 'x' missing in B"},
        {F_TYPE, "/trace/page: type int32 LE vs int64 LE"},
        {F_POSZERO, "/series/precision: values differ at [4]: -0 vs 0 (1 of 5 elements differ)"},
        {F_NAN, "/series/nan: values differ at [1]: nan (bits 0x7ff8000000000001) vs nan (bits "
                "0x7ff8000000000002)"},
        {F_VSTR, "/names: values differ at [1]: \"beta\" vs \"betb\""},
        {F_KIND, "/final/mask: dataset in A, group in B"},
        {F_ROOTATTR, "/: attribute 'schema_version': value differs: 1 vs 2"},
        {F_TIMING, "/timing/wall: value differs: 1 vs 2"},
        {F_CONFIG40, "/config: type string of 32 bytes (ASCII, NUL-terminated) vs string of 40 "
                     "bytes (ASCII, NUL-terminated)"},
        {F_CONFIG40 | F_CONFIGY,
         "/config: value differs: \"[job]\\nname = x\\n\" vs \"[job]\\nname "
         "= y\\n\""},
        {F_CONFIGY, "/config: value differs: \"[job]\\nname = x\\n\" vs \"[job]\\nname = y\\n\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "case%zu.h5", i);
        expect_diff(a, make_file(name, cases[i].flags), 1, cases[i].line);
    }
    /* the same string in a longer type: the type differs, the contents do not */
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    ck_assert(compare(a, make_file("config40.h5", F_CONFIG40), NULL, 0, NULL, 0, -1, &st, &text,
                      &msg) == CS_OK);
    ck_assert_msg(st.lines == 1 && strstr(text, "value") == NULL, "%s", text);
    free(text);
    /* the other way round: a path in B only */
    expect_diff(make_file("missing.h5", F_MISSING), a, 1, "/final/mask: dataset missing in A");
    /* several differences at once, in path order */
    expect_diff(a, make_file("many.h5", F_VALUE | F_SHAPE | F_ROOTATTR), 3,
                "/: attribute 'schema_version': value differs: 1 vs 2\n"
                "/series/fetched: values differ at [3]: 60 vs 61 (1 of 5 elements differ)\n"
                "/trace/page: shape [5] vs [6]\n");
}
END_TEST

START_TEST(values_read_in_blocks)
{
    const char *a = make_file("big_a.h5", F_BIG);
    const char *b = make_file("big_b.h5", F_BIG | F_BIGDIFF);
    expect_diff(a, b, 1, "/big: values differ at [0,0]: 0 vs -1 (2 of 1200000 elements differ)");
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    const char *const only[] = {"/big"};
    ck_assert(compare(a, a, NULL, 0, only, 1, -1, &st, &text, &msg) == CS_OK);
    ck_assert(st.objects == 1 && st.differ == 0);
    free(text);
}
END_TEST

START_TEST(ignore_and_only)
{
    const char *a = make_file("base.h5", 0);
    const char *b = make_file("value.h5", F_VALUE | F_TIMING);
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    /* a path ignores itself and everything below it, with or without slashes */
    const char *const ign[] = {"/timing", "series/fetched/"};
    ck_assert(compare(a, b, ign, 2, NULL, 0, -1, &st, &text, &msg) == CS_OK);
    ck_assert_msg(st.differ == 0 && st.objects == BASE_OBJECTS - 3, "%lld %lld: %s",
                  (long long)st.objects, (long long)st.differ, text);
    free(text);
    /* whole components only: /series/fetch is not a prefix of /series/fetched */
    const char *const ign2[] = {"/timing", "/series/fetch"};
    ck_assert(compare(a, b, ign2, 2, NULL, 0, -1, &st, &text, &msg) == CS_OK);
    ck_assert_msg(st.differ == 1 && strstr(text, "/series/fetched: values differ") != NULL, "%s",
                  text);
    free(text);
    /* only: the named paths and what lies below them */
    const char *const only_trace[] = {"/trace"}, *const only_series[] = {"/series", "/trace"};
    ck_assert(compare(a, b, NULL, 0, only_trace, 1, -1, &st, &text, &msg) == CS_OK);
    ck_assert(st.differ == 0 && st.objects == 2);
    free(text);
    ck_assert(compare(a, b, NULL, 0, only_series, 2, -1, &st, &text, &msg) == CS_OK);
    ck_assert_msg(st.differ == 1 && st.objects == 7, "%lld %lld: %s", (long long)st.objects,
                  (long long)st.differ, text);
    free(text);
    /* an only path in neither file, or within an ignored path, is an error */
    const char *const only_none[] = {"/nothere"}, *const only_timing[] = {"/timing/wall"};
    ck_assert(compare(a, b, NULL, 0, only_none, 1, -1, &st, &text, &msg) == CS_ERR_ARG);
    ck_assert_msg(strstr(msg, "/nothere is in neither") != NULL, "%s", msg);
    free(text);
    free(msg);
    ck_assert(compare(a, b, ign, 1, only_timing, 1, -1, &st, &text, &msg) == CS_ERR_ARG);
    free(text);
    free(msg);
    const char *const bad[] = {"/series//fetched"};
    ck_assert(compare(a, b, bad, 1, NULL, 0, -1, &st, &text, &msg) == CS_ERR_ARG);
    ck_assert_msg(strstr(msg, "/series//fetched") != NULL, "%s", msg);
    free(text);
    free(msg);
    /* a path in one file only is a difference under only too */
    const char *const only_mask[] = {"/final/mask"};
    ck_assert(compare(a, make_file("nomask.h5", F_MISSING), NULL, 0, only_mask, 1, -1, &st, &text,
                      &msg) == CS_OK);
    ck_assert(st.differ == 1 && strstr(text, "/final/mask: dataset missing in B") != NULL);
    free(text);
}
END_TEST

START_TEST(lines_are_limited_but_counted)
{
    const char *a = make_file("base.h5", 0);
    const char *b = make_file("many.h5", F_VALUE | F_SHAPE | F_ROOTATTR | F_ATTR);
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    ck_assert(compare(a, b, NULL, 0, NULL, 0, 2, &st, &text, &msg) == CS_OK);
    int lines = 0;
    for (const char *p = text; *p != '\0'; p++)
        lines += *p == '\n';
    ck_assert_msg(lines == 2 && st.lines == 4 && st.differ == 3, "%d lines, %lld, %lld: %s", lines,
                  (long long)st.lines, (long long)st.differ, text);
    free(text);
}
END_TEST

START_TEST(bad_files_are_errors)
{
    const char *a = make_file("base.h5", 0);
    char missing[128], text_file[128], dir[128];
    snprintf(missing, sizeof missing, "%s/absent.h5", tmpdir);
    snprintf(text_file, sizeof text_file, "%s/text.h5", tmpdir);
    snprintf(dir, sizeof dir, "%s", tmpdir);
    FILE *f = fopen(text_file, "w");
    ck_assert(f != NULL);
    fputs("this is not HDF5\n", f);
    fclose(f);
    cs_compare_stats st;
    char *text = NULL, *msg = NULL;
    cs_err rc = compare(a, missing, NULL, 0, NULL, 0, -1, &st, &text, &msg);
    ck_assert_msg(rc == CS_ERR_IO, "%s: %s", cs_errname(rc), msg ? msg : "");
    ck_assert_msg(strstr(msg, missing) != NULL && strstr(msg, "no such file") != NULL, "%s", msg);
    free(text);
    free(msg);
    ck_assert(compare(text_file, a, NULL, 0, NULL, 0, -1, &st, &text, &msg) == CS_ERR_FORMAT);
    ck_assert_msg(strstr(msg, text_file) != NULL && strstr(msg, "not an HDF5 file") != NULL, "%s",
                  msg);
    free(text);
    free(msg);
    ck_assert(compare(a, dir, NULL, 0, NULL, 0, -1, &st, &text, &msg) == CS_ERR_IO);
    free(text);
    free(msg);
}
END_TEST

static int rm_dir(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/crawlsim-check-graphio-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("graphio");
    TCase *tc = tcase_create("compare");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, identical_files_are_equal);
    tcase_add_test(tc, each_difference_is_found);
    tcase_add_test(tc, values_read_in_blocks);
    tcase_add_test(tc, ignore_and_only);
    tcase_add_test(tc, lines_are_limited_but_counted);
    tcase_add_test(tc, bad_files_are_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    rm_dir(tmpdir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
