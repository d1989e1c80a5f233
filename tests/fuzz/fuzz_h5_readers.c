/*
 * libFuzzer harness: the HDF5 readers' header and attribute parsing, on files held in memory by
 * HDF5's core driver. The template is a small valid file holding a graph (root attributes,
 * /pages, /links and /terms with its dim), a partition group (/partition) and a checkpoint's
 * header attributes (/ckpt). An input is a list of edits of the template: each replaces one of
 * its attributes or datasets by one of another type class (integer, float, fixed or
 * variable-length string), size, sign, byte order, dataspace (scalar, null, 1-D or 2-D) and
 * extent, with values from the input, replaces a dataset by a chunked one of 2^40 elements
 * whose chunks are never written (a sparse dataset), or removes the object. The edited file's
 * image (H5Fget_file_image) is opened read-only from memory (H5Pset_file_image) and each reader
 * runs on it: the graph header (gio_read_header), the partition attributes
 * (cs_partition_read_attrs), the checkpoint header (cs_ckpt_check_header) and the reader
 * contract itself (cs_h5_attr_read_*, cs_h5_dset_check, cs_h5_object_check) on every object. A
 * reader refuses with a message or gives values within what it promises; ASan reports a read or
 * write beyond a buffer the contract sized. HDF5's own parser of the file's bytes is not the
 * target: the edits go through HDF5's API, so every image is well-formed HDF5.
 *
 * No MPI: the readers take the file as an open HDF5 id, and the core driver of the parallel
 * HDF5 library needs no MPI_Init.
 */
#include "common.h"

#include "ckpt/ckpt_impl.h"
#include "crawlsim/h5.h"
#include "graphio/graphio_impl.h"
#include "partition/partition_impl.h"

#include <hdf5.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4, M = 4, T = 2 };

/* the objects an edit may target: path of the object, attribute name (NULL: the dataset) */
typedef struct target {
    const char *obj, *attr;
} target;

static const target targets[] = {
    {"/", "format"},
    {"/", "schema_version"},
    {"/", "n_pages"},
    {"/", "n_links"},
    {"/", "n_hosts"},
    {"/", "n_topics"},
    {"/", "target_topic"},
    {"/", "seed"},
    {"/", "source"},
    {"/terms", "dim"},
    {"/pages/host", NULL},
    {"/pages/topic", NULL},
    {"/pages/relevance", NULL},
    {"/pages/observable", NULL},
    {"/links/offsets", NULL},
    {"/links/targets", NULL},
    {"/terms/offsets", NULL},
    {"/terms/index", NULL},
    {"/terms/value", NULL},
    {"/partition", "format"},
    {"/partition", "schema_version"},
    {"/partition", "method"},
    {"/partition", "k"},
    {"/partition", "n_pages"},
    {"/partition", "edge_cut"},
    {"/partition", "cut_fraction"},
    {"/partition", "graph_source"},
    {"/partition/part", NULL},
    {"/ckpt", "format"},
    {"/ckpt", "schema_version"},
    {"/ckpt", "crawlsim_version"},
    {"/ckpt", "ranks"},
};
enum { NTARGETS = (int)(sizeof targets / sizeof targets[0]) };

/* the fuzzer's bytes, consumed in order (zeros once used up) */
typedef struct input {
    const uint8_t *p;
    size_t n;
} input;

static uint8_t next(input *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

static void fill(input *in, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)buf)[i] = next(in);
}

static void put_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    if (cs_h5_attr_write(&ctx, loc, name, ftype, mtype, v, "template") != CS_OK)
        abort();
}

static void put_str(hid_t loc, const char *name, const char *v)
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    if (cs_h5_attr_write_string(&ctx, loc, name, v, "template") != CS_OK)
        abort();
}

static void put_dset(hid_t f, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f, name, ftype, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        abort();
    H5Dclose(d);
    H5Pclose(lcpl);
    H5Sclose(sp);
}

static void graph_template(hid_t f)
{
    const int32_t version = CS_GRAPH_SCHEMA_VERSION, topics = 2, target_topic = 1, dim = 3;
    const int64_t pages = N, links = M, hosts = 2;
    const uint64_t seed = 7;
    put_str(f, "format", CS_GRAPH_FORMAT);
    put_attr(f, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32, &version);
    put_attr(f, "n_pages", H5T_STD_I64LE, H5T_NATIVE_INT64, &pages);
    put_attr(f, "n_links", H5T_STD_I64LE, H5T_NATIVE_INT64, &links);
    put_attr(f, "n_hosts", H5T_STD_I64LE, H5T_NATIVE_INT64, &hosts);
    put_attr(f, "n_topics", H5T_STD_I32LE, H5T_NATIVE_INT32, &topics);
    put_attr(f, "target_topic", H5T_STD_I32LE, H5T_NATIVE_INT32, &target_topic);
    put_attr(f, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, &seed);
    put_str(f, "source", "fuzz");
    const int64_t host[N] = {0, 0, 1, 1}, off[N + 1] = {0, 1, 2, 3, 4}, tgt[M] = {1, 2, 3, 0};
    const int64_t toff[N + 1] = {0, 1, 1, 2, 2};
    const int32_t topic[N] = {0, 1, 1, 0}, tidx[T] = {0, 2};
    const double rel[N] = {0, 1, 0.5, 0.25}, delta[N] = {0.1, 0.2, 0.3, 0.4}, mu[N] = {1, 2, 3, 4};
    const uint8_t obs[N] = {0, 1, 0, 1};
    const float tval[T] = {0.5f, 1.0f};
    put_dset(f, "/pages/host", H5T_STD_I64LE, H5T_NATIVE_INT64, N, host);
    put_dset(f, "/pages/topic", H5T_STD_I32LE, H5T_NATIVE_INT32, N, topic);
    put_dset(f, "/pages/relevance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, rel);
    put_dset(f, "/pages/delta", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, delta);
    put_dset(f, "/pages/mu", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, mu);
    put_dset(f, "/pages/observable", H5T_STD_U8LE, H5T_NATIVE_UINT8, N, obs);
    put_dset(f, "/links/offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, N + 1, off);
    put_dset(f, "/links/targets", H5T_STD_I64LE, H5T_NATIVE_INT64, M, tgt);
    put_dset(f, "/terms/offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, N + 1, toff);
    put_dset(f, "/terms/index", H5T_STD_I32LE, H5T_NATIVE_INT32, T, tidx);
    put_dset(f, "/terms/value", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, T, tval);
    hid_t g = H5Gopen2(f, "/terms", H5P_DEFAULT);
    put_attr(g, "dim", H5T_STD_I32LE, H5T_NATIVE_INT32, &dim);
    H5Gclose(g);
}

static void other_templates(hid_t f)
{
    const int32_t pv = CS_PARTITION_SCHEMA_VERSION, k = 2, uf = 30, part[N] = {0, 0, 1, 1};
    const int32_t cv = CS_CKPT_SCHEMA_VERSION, ranks = 1;
    const int64_t pages = N, links = M, cut = 2, zero = 0;
    const double frac = 0.5, one = 1.0;
    hid_t g = H5Gcreate2(f, "/partition", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_str(g, "format", CS_PARTITION_FORMAT);
    put_attr(g, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32, &pv);
    put_str(g, "method", "block");
    put_attr(g, "k", H5T_STD_I32LE, H5T_NATIVE_INT32, &k);
    put_attr(g, "seed", H5T_STD_I64LE, H5T_NATIVE_INT64, &zero);
    put_attr(g, "ufactor", H5T_STD_I32LE, H5T_NATIVE_INT32, &uf);
    put_str(g, "objective", "cut");
    put_str(g, "vertex_weight", "pages");
    put_attr(g, "n_pages", H5T_STD_I64LE, H5T_NATIVE_INT64, &pages);
    put_attr(g, "n_links", H5T_STD_I64LE, H5T_NATIVE_INT64, &links);
    put_str(g, "graph_source", "fuzz");
    put_attr(g, "edge_cut", H5T_STD_I64LE, H5T_NATIVE_INT64, &cut);
    put_attr(g, "cut_fraction", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &frac);
    put_attr(g, "volume", H5T_STD_I64LE, H5T_NATIVE_INT64, &cut);
    put_attr(g, "page_balance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &one);
    put_attr(g, "link_balance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &one);
    put_attr(g, "hosts_split", H5T_STD_I64LE, H5T_NATIVE_INT64, &zero);
    put_attr(g, "seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &frac);
    H5Gclose(g);
    put_dset(f, "/partition/part", H5T_STD_I32LE, H5T_NATIVE_INT32, N, part);
    g = H5Gcreate2(f, "/ckpt", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_str(g, "format", CS_CKPT_FORMAT);
    put_attr(g, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32, &cv);
    put_str(g, "crawlsim_version", CRAWLSIM_VERSION);
    put_attr(g, "ranks", H5T_STD_I32LE, H5T_NATIVE_INT32, &ranks);
    H5Gclose(g);
}

/* The file type of an edit: class c (integer, float, fixed string, variable string), size
 * index s, sign and byte order from flags. */
static hid_t edit_type(uint8_t c, uint8_t s, uint8_t flags)
{
    static const size_t fsz[] = {4, 8};
    hid_t t;
    switch (c % 4) {
    case 0: {
        const hid_t ints[2][4] = {{H5T_STD_I8LE, H5T_STD_I16LE, H5T_STD_I32LE, H5T_STD_I64LE},
                                  {H5T_STD_U8LE, H5T_STD_U16LE, H5T_STD_U32LE, H5T_STD_U64LE}};
        t = H5Tcopy(ints[flags & 1][s % 4]);
        break;
    }
    case 1:
        t = H5Tcopy(fsz[s % 2] == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE);
        break;
    case 2:
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 1 + (size_t)(s % 64));
        H5Tset_strpad(t, flags & 4 ? H5T_STR_NULLPAD : H5T_STR_NULLTERM);
        return t;
    default:
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        return t;
    }
    H5Tset_order(t, flags & 2 ? H5T_ORDER_BE : H5T_ORDER_LE);
    return t;
}

/* The dataspace of an edit: scalar, null, 1-D or 2-D of up to 7 x 7 elements; *n its count */
static hid_t edit_space(uint8_t kind, uint8_t ext, hsize_t *n)
{
    hsize_t d[2] = {ext % 8u, (ext / 8u) % 8u};
    switch (kind % 4) {
    case 0:
        *n = 1;
        return H5Screate(H5S_SCALAR);
    case 1:
        *n = 0;
        return H5Screate(H5S_NULL);
    case 2:
        *n = d[0];
        return H5Screate_simple(1, d, NULL);
    default:
        *n = d[0] * d[1];
        return H5Screate_simple(2, d, NULL);
    }
}

/* Writes n values of file type t from the input into object x (attribute when is_attr). */
static void edit_values(input *in, hid_t x, int is_attr, hid_t t, hsize_t n)
{
    if (n == 0)
        return;
    const H5T_class_t c = H5Tget_class(t);
    hid_t mt = c == H5T_INTEGER ? H5Tcopy(H5T_NATIVE_INT64)
               : c == H5T_FLOAT ? H5Tcopy(H5T_NATIVE_DOUBLE)
                                : H5Tcopy(t);
    const int vlen = c == H5T_STRING && H5Tis_variable_str(t) > 0;
    const size_t es = vlen ? sizeof(char *) : H5Tget_size(mt);
    unsigned char *buf = calloc((size_t)n, es);
    char strs[8][16];
    if (buf == NULL)
        abort();
    for (hsize_t i = 0; i < n; i++) {
        if (vlen) {
            fill(in, strs[i % 8], sizeof strs[0] - 1);
            strs[i % 8][sizeof strs[0] - 1] = '\0';
            ((char **)buf)[i] = strs[i % 8];
        } else {
            fill(in, buf + i * es, es);
        }
    }
    /* (doubles from raw bytes may be NaN or infinite: the readers must refuse those) */
    if (is_attr)
        H5Awrite(x, mt, buf);
    else
        H5Dwrite(x, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    free(buf);
    H5Tclose(mt);
}

/* A dataset of 2^40 elements in chunks of 2^12, none written (the link of d replaced). */
static void make_sparse(hid_t f, const char *d, hid_t t)
{
    hsize_t n = (hsize_t)1 << 40, chunk = 1 << 12;
    hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t x = H5Dcreate2(f, d, t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (x >= 0)
        H5Dclose(x);
    H5Pclose(dcpl);
    H5Sclose(sp);
}

/* One edit of the open file f, from the input. */
static void edit(hid_t f, input *in)
{
    const target *tg = &targets[next(in) % NTARGETS];
    const uint8_t op = next(in) % 4, c = next(in), s = next(in), flags = next(in);
    const uint8_t space = next(in), ext = next(in);
    hid_t o = H5Oopen(f, tg->attr != NULL ? tg->obj : "/", H5P_DEFAULT);
    if (o < 0)
        return;
    if (tg->attr != NULL) {
        if (H5Aexists(o, tg->attr) > 0)
            H5Adelete(o, tg->attr);
    } else if (H5Lexists(f, tg->obj, H5P_DEFAULT) > 0) {
        H5Ldelete(f, tg->obj, H5P_DEFAULT);
    }
    hid_t t = op == 0 ? H5I_INVALID_HID : edit_type(c, s, flags);
    if (op == 2 && tg->attr == NULL) {
        make_sparse(f, tg->obj, t);
    } else if (op != 0) {
        hsize_t n = 0;
        hid_t sp = edit_space(space, ext, &n);
        hid_t x = tg->attr != NULL
                      ? H5Acreate2(o, tg->attr, t, sp, H5P_DEFAULT, H5P_DEFAULT)
                      : H5Dcreate2(f, tg->obj, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (x >= 0) {
            edit_values(in, x, tg->attr != NULL, t, n);
            if (tg->attr != NULL)
                H5Aclose(x);
            else
                H5Dclose(x);
        }
        H5Sclose(sp);
    }
    if (t >= 0)
        H5Tclose(t);
    H5Oclose(o);
}

/* The template with the input's edits (at most 8), as a file image: *size bytes, malloc'd. */
static void *image(input *in, size_t *size)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    hid_t f = H5Fcreate("fuzz-template.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        abort();
    graph_template(f);
    other_templates(f);
    for (int e = 0; e < 8 && in->n > 0; e++)
        edit(f, in);
    H5Fflush(f, H5F_SCOPE_GLOBAL);
    ssize_t n = H5Fget_file_image(f, NULL, 0);
    void *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf == NULL || H5Fget_file_image(f, buf, (size_t)n) != n)
        abort();
    H5Fclose(f);
    *size = (size_t)n;
    return buf;
}

/* The readers on the open file image: each refuses with a message or keeps its promises. */
static void readers(hid_t f, int edited)
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    cs_graph_header h;
    memset(&h, 0, sizeof h);
    cs_err rc = gio_read_header(&ctx, f, "fuzz.h5", &h);
    fuzz_check_error(&ctx, rc, "graph header");
    if (!edited && rc != CS_OK) {
        fprintf(stderr, "fuzz: the template is refused: %s\n", ctx.errmsg);
        abort();
    }
    if (rc == CS_OK &&
        (h.n_pages < 0 || h.n_links < 0 || h.n_hosts < 0 ||
         h.n_hosts > (h.n_pages > 1 ? h.n_pages : 1) || h.n_topics < 0 || h.target_topic < -1 ||
         h.target_topic >= h.n_topics || h.term_dim < 0 || strlen(h.source) >= 256)) {
        fprintf(stderr, "fuzz: a graph header accepted out of its bounds\n");
        abort();
    }
    cs_ctx_clear_error(&ctx);
    cs_partition p;
    cs_partition_init(&p);
    hid_t g = H5Gopen2(f, "/partition", H5P_DEFAULT);
    if (g >= 0) {
        rc = cs_partition_read_attrs(&ctx, g, &p, "partition fuzz.h5");
        fuzz_check_error(&ctx, rc, "partition attributes");
        if (rc == CS_OK && (p.n_links < 0 || p.quality.cut_fraction < 0 ||
                            p.quality.cut_fraction > 1 || p.quality.edge_cut > p.n_links))
            abort();
        H5Gclose(g);
    }
    cs_partition_fini(&p);
    cs_ctx_clear_error(&ctx);
    g = H5Gopen2(f, "/ckpt", H5P_DEFAULT);
    if (g >= 0) {
        int32_t ranks = 0;
        rc = cs_ckpt_check_header(&ctx, g, "fuzz.h5", &ranks);
        fuzz_check_error(&ctx, rc, "checkpoint header");
        if (rc == CS_OK && ranks < 1)
            abort();
        H5Gclose(g);
    }
}

/* The reader contract itself on every target: attributes as strings and as 1 to 3 integers or
 * numbers, datasets as 1-D arrays of integers and numbers and as objects of any shape. */
static void contract(hid_t f)
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    for (int i = 0; i < NTARGETS; i++) {
        const target *tg = &targets[i];
        hid_t o = H5Oopen(f, tg->attr != NULL ? tg->obj : "/", H5P_DEFAULT);
        if (o < 0)
            continue;
        cs_err rc;
        if (tg->attr != NULL) {
            char s[64];
            int64_t v[3];
            double d[3];
            rc = cs_h5_attr_read_string(&ctx, o, tg->attr, s, sizeof s, "fuzz.h5");
            fuzz_check_error(&ctx, rc, "string attribute");
            cs_ctx_clear_error(&ctx);
            for (int n = 1; n <= 3; n++) {
                rc = cs_h5_attr_read_n(&ctx, o, tg->attr, H5T_INTEGER, H5T_NATIVE_INT64, n, v,
                                       "fuzz.h5");
                fuzz_check_error(&ctx, rc, "integer attribute");
                cs_ctx_clear_error(&ctx);
                rc = cs_h5_attr_read_n(&ctx, o, tg->attr, H5T_FLOAT, H5T_NATIVE_DOUBLE, n, d,
                                       "fuzz.h5");
                fuzz_check_error(&ctx, rc, "float attribute");
                cs_ctx_clear_error(&ctx);
            }
        } else if (H5Lexists(f, tg->obj, H5P_DEFAULT) > 0) {
            hid_t d = H5Dopen2(f, tg->obj, H5P_DEFAULT);
            int64_t len = 0;
            rc = cs_h5_dset_check(&ctx, d, tg->obj, H5T_INTEGER, H5T_NATIVE_INT64, -1, "", &len,
                                  "fuzz.h5");
            fuzz_check_error(&ctx, rc, "integer dataset");
            cs_ctx_clear_error(&ctx);
            if (d >= 0) {
                rc = cs_h5_object_check(&ctx, d, 0, tg->obj, "fuzz.h5");
                fuzz_check_error(&ctx, rc, "dataset object");
                cs_ctx_clear_error(&ctx);
                H5Dclose(d);
            }
        }
        H5Oclose(o);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    size_t n = 0;
    void *img = image(&in, &n);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    if (H5Pset_file_image(fapl, img, n) < 0)
        abort();
    hid_t f = H5Fopen("fuzz-image.h5", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    free(img);
    if (f < 0) {
        fprintf(stderr, "fuzz: HDF5 cannot open the image it made\n");
        abort();
    }
    readers(f, size > 0);
    contract(f);
    H5Fclose(f);
    return 0;
}
