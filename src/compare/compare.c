/*
 * compare: two HDF5 files object by object (compare.h), for `crawlsim compare` and the tests:
 * listing, selecting, attributes, links and objects (compare_values.c describes and compares
 * the values).
 *
 * h5diff (1.10.8) is not used for this: it exits 0 when two datasets differ in shape ("Some
 * objects are not comparable"), so `h5diff -q a.h5 b.h5 /trace /trace` passes a trace of 2000
 * fetches against one of 2100. Here a difference of kind, type or shape is a difference like any
 * other.
 *
 * Both files are listed first (H5Lvisit from the root: every link, so a path held by one file
 * only is found whichever file holds it), the two sorted listings are merged, and each common
 * path is compared: its attributes by name, then the object. Values are read without conversion
 * (the memory type is the file type, so the buffers hold the file's bytes), datasets in blocks
 * of rows of at most BLOCK_BYTES, so memory stays bounded for graph files of any size.
 */
#include "crawlsim/compare.h"

#include "compare_impl.h"
#include "crawlsim/h5.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of each file's values read per H5Dread (at least one row). */
#define BLOCK_BYTES ((size_t)8 << 20)

/* What a path names. */
typedef enum kind { K_GROUP, K_DATASET, K_DATATYPE, K_SOFT, K_EXTERNAL, K_UDLINK, K_UNKNOWN } kind;

static const char *const kind_name[] = {"group",         "dataset",       "committed datatype",
                                        "soft link",     "external link", "user-defined link",
                                        "unknown object"};

typedef struct entry {
    char *path; /* absolute, "/" for the root */
    kind k;
} entry;

typedef struct listing {
    entry *e;
    size_t n, cap;
} listing;

/* The comparison under way. */
typedef struct cmp {
    cs_ctx *ctx;
    const cs_compare_opts *o;
    const char *name[2]; /* the files' paths, A and B */
    hid_t f[2];
    char **ignore, **only; /* normalised copies of the options' paths */
    int n_ignore, n_only;
    cs_compare_stats *st;
    int differs; /* the object being compared has a difference */
} cmp;

/* Byte order of paths in which '/' sorts before every other character, so that a group's
 * contents follow it directly ("/a", "/a/b", "/a-c"): depth-first order. */
static int path_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned x = *a == '\0' ? 0u : *a == '/' ? 1u : (unsigned)(unsigned char)*a + 1u;
        unsigned y = *b == '\0' ? 0u : *b == '/' ? 1u : (unsigned)(unsigned char)*b + 1u;
        if (x != y)
            return x < y ? -1 : 1;
        if (x == 0)
            return 0;
    }
}

static int entry_cmp(const void *a, const void *b)
{
    return path_cmp(((const entry *)a)->path, ((const entry *)b)->path);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* p is q or lies below it ("/" holds everything). */
static int under(const char *p, const char *q)
{
    size_t n = strlen(q);
    if (n == 1 && q[0] == '/')
        return 1;
    return strncmp(p, q, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static int selected(const cmp *c, const char *p)
{
    for (int i = 0; i < c->n_ignore; i++)
        if (under(p, c->ignore[i]))
            return 0;
    if (c->n_only == 0)
        return 1;
    for (int i = 0; i < c->n_only; i++)
        if (under(p, c->only[i]))
            return 1;
    return 0;
}

/* Local. in ("timing", "/timing", "/timing/", "/") as an absolute path without a trailing '/'
 * in *out (caller frees); what ("ignored", "compared") names the list in messages. */
static cs_err norm_path(cs_ctx *ctx, const char *what, const char *in, char **out)
{
    if (in == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "compare: a path to be %s is NULL", what);
    const char *p = in[0] == '/' ? in + 1 : in;
    size_t n = strlen(p);
    if (n > 0 && p[n - 1] == '/')
        n--;
    for (size_t i = 0; i < n;) {
        size_t len = 0;
        while (i + len < n && p[i + len] != '/')
            len++;
        if (len == 0 || (len == 1 && p[i] == '.') || (len == 2 && p[i] == '.' && p[i + 1] == '.'))
            return cs_fail(ctx, CS_ERR_ARG,
                           "compare: bad path '%s' to be %s (an empty, '.' or '..' component)", in,
                           what);
        i += len + 1;
    }
    char *s = malloc(n + 2);
    if (s == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "compare: out of memory");
    s[0] = '/';
    memcpy(s + 1, p, n);
    s[n + 1] = '\0';
    *out = s;
    return CS_OK;
}

/* Records a difference of the current object: counts it and prints it while lines remain. */
static void diff(cmp *c, const char *path, const char *fmt, ...) CS_PRINTF(3, 4);

static void diff(cmp *c, const char *path, const char *fmt, ...)
{
    c->differs = 1;
    if (c->o->out != NULL && (c->o->max_lines < 0 || c->st->lines < c->o->max_lines)) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(c->o->out, "%s: ", path);
        vfprintf(c->o->out, fmt, ap);
        fputc('\n', c->o->out);
        va_end(ap);
    }
    c->st->lines++;
}

/* Local. An HDF5 failure on file `side` while reading path (`what` of it, "" for the object). */
static cs_err hfail(const cmp *c, int side, const char *path, const char *what)
{
    return cs_fail(c->ctx, CS_ERR_HDF5, "compare: HDF5 cannot read %s%s%s%s in %s", path,
                   what[0] != '\0' ? " (" : "", what, what[0] != '\0' ? ")" : "", c->name[side]);
}

/* ---- listing a file ---- */

typedef struct visit {
    cmp *c;
    int side;
    listing *l;
    cs_err rc;
} visit;

static cs_err listing_add(cs_ctx *ctx, listing *l, char *path, kind k)
{
    if (l->n == l->cap) {
        cs_err rc = cs_grow(ctx, &l->e, &l->cap, l->n + 1, sizeof *l->e, "list of HDF5 objects");
        if (rc != CS_OK)
            return rc;
    }
    l->e[l->n].path = path;
    l->e[l->n].k = k;
    l->n++;
    return CS_OK;
}

static void listing_fini(listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].path);
    free(l->e);
    memset(l, 0, sizeof *l);
}

static herr_t visit_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    visit *v = data;
    size_t n = strlen(name);
    char *path = malloc(n + 2);
    if (path == NULL) {
        v->rc = cs_fail(v->c->ctx, CS_ERR_NOMEM, "compare: out of memory listing %s",
                        v->c->name[v->side]);
        return -1;
    }
    path[0] = '/';
    memcpy(path + 1, name, n + 1);
    if (!selected(v->c, path)) {
        free(path);
        return 0;
    }
    kind k = K_UDLINK;
    if (info->type == H5L_TYPE_HARD) {
        hid_t o = H5Oopen(g, name, H5P_DEFAULT);
        if (o < 0) {
            v->rc = hfail(v->c, v->side, path, "");
            free(path);
            return -1;
        }
        H5I_type_t t = H5Iget_type(o);
        k = t == H5I_GROUP      ? K_GROUP
            : t == H5I_DATASET  ? K_DATASET
            : t == H5I_DATATYPE ? K_DATATYPE
                                : K_UNKNOWN;
        H5Oclose(o);
    } else if (info->type == H5L_TYPE_SOFT) {
        k = K_SOFT;
    } else if (info->type == H5L_TYPE_EXTERNAL) {
        k = K_EXTERNAL;
    }
    v->rc = listing_add(v->c->ctx, v->l, path, k);
    if (v->rc != CS_OK) {
        free(path);
        return -1;
    }
    return 0;
}

/* Local. The selected paths of file `side`, sorted (path_cmp). */
static cs_err list_file(cmp *c, int side, listing *l)
{
    cs_err rc = CS_OK;
    if (selected(c, "/")) {
        char *root = cs_h5_dup_str("/");
        if (root == NULL)
            return cs_fail(c->ctx, CS_ERR_NOMEM, "compare: out of memory");
        rc = listing_add(c->ctx, l, root, K_GROUP);
        if (rc != CS_OK) {
            free(root);
            return rc;
        }
    }
    visit v = {c, side, l, CS_OK};
    herr_t st = H5Lvisit(c->f[side], H5_INDEX_NAME, H5_ITER_INC, visit_link, &v);
    if (v.rc != CS_OK)
        return v.rc;
    if (st < 0)
        return hfail(c, side, "/", "the links below it");
    if (l->n > 1) /* qsort's array may not be NULL, even when empty */
        qsort(l->e, l->n, sizeof *l->e, entry_cmp);
    return CS_OK;
}

/* ---- comparing datasets and attributes ---- */

/* Local. Reads rows [r0, r0 + k) of dataset d (all of it when scalar or an attribute) into buf;
 * ms receives the memory space used (for reclaiming variable-length strings). */
static herr_t read_rows(hid_t x, int is_attr, hid_t sp, H5S_class_t cls, int nd,
                        const hsize_t *dims, hid_t mt, hsize_t r0, hsize_t k, hsize_t n, hid_t *ms,
                        void *buf)
{
    *ms = -1;
    if (is_attr)
        return H5Aread(x, mt, buf);
    if (cls == H5S_SCALAR)
        return H5Dread(x, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    hsize_t start[H5S_MAX_RANK], count[H5S_MAX_RANK];
    for (int i = 0; i < nd; i++) {
        start[i] = 0;
        count[i] = dims[i];
    }
    start[0] = r0;
    count[0] = k;
    *ms = H5Screate_simple(1, &n, NULL);
    if (*ms < 0 || H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
        return -1;
    return H5Dread(x, mt, *ms, sp, H5P_DEFAULT, buf);
}

/* Local. The types t, dataspaces sp, their classes, ranks and extents of x[0] and x[1] (the
 * caller closes t and sp, also on failure), each object checked through the reader contract
 * (h5.h) before any value is read: a damaged object is an error naming the file and the
 * object, not a read of 2^40 fill values or of more than memory. */
static cs_err open_sides(cmp *c, const char *path, const char *what, const hid_t x[2], int is_attr,
                         hid_t t[2], hid_t sp[2], H5S_class_t cls[2], int nd[2],
                         hsize_t dims[2][H5S_MAX_RANK])
{
    cs_err rc = CS_OK;
    for (int s = 0; s < 2; s++) {
        t[s] = is_attr ? H5Aget_type(x[s]) : H5Dget_type(x[s]);
        sp[s] = is_attr ? H5Aget_space(x[s]) : H5Dget_space(x[s]);
        cls[s] = sp[s] >= 0 ? H5Sget_simple_extent_type(sp[s]) : H5S_NO_CLASS;
        nd[s] = sp[s] >= 0 ? H5Sget_simple_extent_ndims(sp[s]) : -1;
        if (t[s] < 0 || cls[s] == H5S_NO_CLASS || nd[s] < 0 ||
            H5Sget_simple_extent_dims(sp[s], dims[s], NULL) < 0)
            CS_TRY(c->ctx,
                   hfail(c, s, path, is_attr ? "an attribute's dataspace" : "the dataspace"));
    }
    for (int s = 0; s < 2; s++) {
        char file[CS_ERRMSG_MAX / 2], obj[CS_ERRMSG_MAX / 2];
        const size_t wl = strlen(what);
        snprintf(file, sizeof file, "compare: file %s", c->name[s]);
        snprintf(obj, sizeof obj, "%s%s%.*s", path, is_attr ? ", " : "",
                 (int)(wl >= 2 ? wl - 2 : wl), what);
        CS_TRY(c->ctx, cs_h5_object_check(c->ctx, x[s], is_attr, obj, file));
    }
fail:
    return rc;
}

/*
 * Local. Compares the datasets (is_attr 0) or attributes (1) x[0] of A and x[1] of B at path:
 * type, shape, then values. what: "" for a dataset, "attribute 'NAME': " for an attribute.
 * Differences are recorded with diff(); the return code is for errors only.
 */
/* The two sides' datatypes: a difference is a line. *go_on is set when the values are still
 * worth comparing (the same type, or fixed-length strings of other sizes or paddings: a longer
 * /config is one with another value somewhere). */
static cs_err same_type(cmp *c, const char *path, const char *what, const hid_t t[2],
                        const int fixstr[2], int *go_on)
{
    *go_on = 0;
    htri_t eq = H5Tequal(t[0], t[1]);
    if (eq < 0)
        return hfail(c, 0, path, "the datatype");
    if (eq == 0) {
        char da[128], db[128];
        cs_cmp_describe_type(t[0], da, sizeof da);
        cs_cmp_describe_type(t[1], db, sizeof db);
        diff(c, path, "%stype %s vs %s%s", what, da, db,
             strcmp(da, db) == 0 ? " (they differ in their details)" : "");
        if (!fixstr[0] || !fixstr[1])
            return CS_OK;
    }
    *go_on = 1;
    return CS_OK;
}

/* Whether the two sides have one shape; a difference is a line. */
static int same_shape(cmp *c, const char *path, const char *what, const H5S_class_t cls[2],
                      const int nd[2], hsize_t dims[2][H5S_MAX_RANK])
{
    int same = cls[0] == cls[1] && nd[0] == nd[1];
    for (int i = 0; same && i < nd[0]; i++)
        same = dims[0][i] == dims[1][i];
    if (!same) {
        char da[256], db[256];
        cs_cmp_describe_shape(cls[0], nd[0], dims[0], da, sizeof da);
        cs_cmp_describe_shape(cls[1], nd[1], dims[1], db, sizeof db);
        diff(c, path, "%sshape %s vs %s", what, da, db);
    }
    return same;
}

/* Memory types: the file types (no conversion), variable-length strings as char *; es[s] the
 * size of one element in memory. */
static cs_err memory_types(cmp *c, const char *path, vkind vk, const hid_t t[2], hid_t mt[2],
                           size_t es[2])
{
    for (int s = 0; s < 2; s++) {
        if (vk == VK_VARSTR) {
            mt[s] = H5Tcopy(H5T_C_S1);
            if (mt[s] < 0 || H5Tset_size(mt[s], H5T_VARIABLE) < 0 ||
                H5Tset_cset(mt[s], H5Tget_cset(t[s])) < 0)
                return hfail(c, s, path, "the string type");
        } else {
            mt[s] = H5Tcopy(t[s]);
            if (mt[s] < 0)
                return hfail(c, s, path, "the datatype");
        }
        es[s] = vk == VK_VARSTR ? sizeof(char *) : H5Tget_size(t[s]);
    }
    return CS_OK;
}

/* The line of values that differ: the value, or the first index that differs and how many. */
static void report_values(cmp *c, const char *path, const char *what, const valcmp *vc,
                          H5S_class_t cls, int nd, const hsize_t *dims, hssize_t np)
{
    if (cls == H5S_SCALAR || np == 1) {
        diff(c, path, "%svalue differs: %s vs %s%s", what, vc->va, vc->vb, vc->note);
    } else {
        char idx[256];
        cs_cmp_describe_index(nd, dims, vc->first, idx, sizeof idx);
        diff(c, path, "%svalues differ at %s: %s vs %s%s (%" PRId64 " of %lld elements differ)",
             what, idx, vc->va, vc->vb, vc->note, vc->ndiff, (long long)np);
    }
}

static cs_err compare_values(cmp *c, const char *path, const char *what, const hid_t x[2],
                             int is_attr)
{
    cs_err rc = CS_OK;
    hid_t t[2] = {-1, -1}, sp[2] = {-1, -1}, mt[2] = {-1, -1};
    unsigned char *buf[2] = {NULL, NULL};
    H5S_class_t cls[2];
    int nd[2];
    hsize_t dims[2][H5S_MAX_RANK];
    CS_TRY(c->ctx, open_sides(c, path, what, x, is_attr, t, sp, cls, nd, dims));
    int fixstr[2];
    for (int s = 0; s < 2; s++)
        fixstr[s] = H5Tget_class(t[s]) == H5T_STRING && H5Tis_variable_str(t[s]) == 0;
    int go_on = 0;
    CS_TRY(c->ctx, same_type(c, path, what, t, fixstr, &go_on));
    if (!go_on || !same_shape(c, path, what, cls, nd, dims))
        goto fail;
    const hssize_t np = H5Sget_simple_extent_npoints(sp[0]);
    if (cls[0] == H5S_NULL || np == 0)
        goto fail;
    if (np < 0)
        CS_TRY(c->ctx, hfail(c, 0, path, "the dataspace"));
    vkind vk = VK_BYTES;
    H5T_str_t pad[2] = {H5T_STR_NULLTERM, H5T_STR_NULLTERM};
    if (H5Tget_class(t[0]) == H5T_STRING) {
        vk = fixstr[0] ? VK_FIXSTR : VK_VARSTR;
        for (int s = 0; s < 2; s++)
            pad[s] = H5Tget_strpad(t[s]);
    } else if (!cs_cmp_plain_bytes(t[0])) {
        char d[128];
        cs_cmp_describe_type(t[0], d, sizeof d);
        CS_TRY(c->ctx, cs_fail(c->ctx, CS_ERR_SCHEMA,
                               "compare: %s%s of %s has a datatype that cannot be compared (%s: "
                               "variable-length data or references)",
                               what, path, c->name[0], d));
    }
    size_t es[2];
    CS_TRY(c->ctx, memory_types(c, path, vk, t, mt, es));
    const size_t es_max = es[0] > es[1] ? es[0] : es[1];
    /* Blocks of rows along the first dimension; attributes and scalars in one read. */
    const int whole = is_attr || cls[0] == H5S_SCALAR;
    const hsize_t rows = whole ? 1 : dims[0][0];
    const hsize_t row_elems = (hsize_t)np / rows;
    if (es[0] == 0 || es[1] == 0 || row_elems > (hsize_t)(SIZE_MAX / 2) / es_max)
        CS_TRY(c->ctx, cs_fail(c->ctx, CS_ERR_LIMIT, "compare: %s%s of %s: rows too large", what,
                               path, c->name[0]));
    hsize_t per = whole ? 1 : BLOCK_BYTES / ((size_t)row_elems * es_max);
    if (per < 1)
        per = 1;
    if (per > rows)
        per = rows;
    for (int s = 0; s < 2; s++)
        CS_TRY(c->ctx,
               cs_calloc(c->ctx, &buf[s], (size_t)(per * row_elems) * es[s], 1, "values compared"));
    valcmp vc;
    memset(&vc, 0, sizeof vc);
    for (hsize_t r0 = 0; r0 < rows; r0 += per) {
        const hsize_t k = rows - r0 < per ? rows - r0 : per, n = k * row_elems;
        herr_t st[2];
        hid_t ms[2];
        for (int s = 0; s < 2; s++)
            st[s] = read_rows(x[s], is_attr, sp[s], cls[s], nd[s], dims[s], mt[s], r0, k, n, &ms[s],
                              buf[s]);
        if (st[0] >= 0 && st[1] >= 0)
            cs_cmp_compare_elems(&vc, vk, t[0], es, pad, buf[0], buf[1], (int64_t)n,
                                 (int64_t)(r0 * row_elems));
        for (int s = 0; s < 2; s++) {
            if (vk == VK_VARSTR && st[s] >= 0)
                cs_cmp_reclaim(mt[s], ms[s] >= 0 ? ms[s] : sp[s], buf[s]);
            if (ms[s] >= 0)
                H5Sclose(ms[s]);
        }
        for (int s = 0; s < 2; s++)
            if (st[s] < 0)
                CS_TRY(c->ctx, hfail(c, s, path, is_attr ? "an attribute's values" : "the values"));
    }
    if (vc.ndiff > 0)
        report_values(c, path, what, &vc, cls[0], nd[0], dims[0], np);
fail:
    free(buf[1]);
    free(buf[0]);
    for (int s = 1; s >= 0; s--) {
        if (mt[s] >= 0)
            H5Tclose(mt[s]);
        if (sp[s] >= 0)
            H5Sclose(sp[s]);
        if (t[s] >= 0)
            H5Tclose(t[s]);
    }
    return rc;
}

/* ---- attributes, links, objects ---- */

typedef struct names {
    char **v;
    size_t n, cap;
    int failed;
} names;

static herr_t attr_name(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    names *nm = data;
    if (nm->n == nm->cap) {
        size_t cap = nm->cap ? 2 * nm->cap : 16;
        char **v = realloc(nm->v, cap * sizeof *v);
        if (v == NULL) {
            nm->failed = 1;
            return -1;
        }
        nm->v = v;
        nm->cap = cap;
    }
    nm->v[nm->n] = cs_h5_dup_str(name);
    if (nm->v[nm->n] == NULL) {
        nm->failed = 1;
        return -1;
    }
    nm->n++;
    return 0;
}

static void names_fini(names *nm)
{
    for (size_t i = 0; i < nm->n; i++)
        free(nm->v[i]);
    free(nm->v);
    memset(nm, 0, sizeof *nm);
}

/* Local. The attributes of the objects o[0] (A) and o[1] (B) at path: names, then each one. */
static cs_err compare_attrs(cmp *c, const char *path, const hid_t o[2])
{
    cs_err rc = CS_OK;
    names nm[2];
    memset(nm, 0, sizeof nm);
    for (int s = 0; s < 2; s++) {
        hsize_t idx = 0;
        herr_t st = H5Aiterate2(o[s], H5_INDEX_NAME, H5_ITER_INC, &idx, attr_name, &nm[s]);
        if (nm[s].failed)
            CS_TRY(c->ctx, cs_fail(c->ctx, CS_ERR_NOMEM, "compare: out of memory"));
        if (st < 0)
            CS_TRY(c->ctx, hfail(c, s, path, "the attributes"));
        if (nm[s].n > 1) /* no attribute: v is NULL, which qsort may not take */
            qsort(nm[s].v, nm[s].n, sizeof *nm[s].v, str_cmp);
    }
    size_t i = 0, j = 0;
    while (i < nm[0].n || j < nm[1].n) {
        int d = i == nm[0].n ? 1 : j == nm[1].n ? -1 : strcmp(nm[0].v[i], nm[1].v[j]);
        if (d < 0) {
            diff(c, path, "attribute '%s' missing in B", nm[0].v[i++]);
            continue;
        }
        if (d > 0) {
            diff(c, path, "attribute '%s' missing in A", nm[1].v[j++]);
            continue;
        }
        char what[300];
        snprintf(what, sizeof what, "attribute '%s': ", nm[0].v[i]);
        char attr[300];
        snprintf(attr, sizeof attr, "attribute '%s'", nm[0].v[i]);
        hid_t a[2];
        for (int s = 0; s < 2; s++)
            a[s] = H5Aopen(o[s], nm[s].v[s == 0 ? i : j], H5P_DEFAULT);
        if (a[0] >= 0 && a[1] >= 0)
            rc = compare_values(c, path, what, a, 1);
        else
            rc = hfail(c, a[0] < 0 ? 0 : 1, path, attr);
        for (int s = 0; s < 2; s++)
            if (a[s] >= 0)
                H5Aclose(a[s]);
        if (rc != CS_OK)
            goto fail;
        i++;
        j++;
    }
fail:
    names_fini(&nm[1]);
    names_fini(&nm[0]);
    return rc;
}

/* Local. The targets of the soft, external or user-defined links at path. */
static cs_err compare_links(cmp *c, const char *path, kind k)
{
    cs_err rc = CS_OK;
    char *val[2] = {NULL, NULL};
    size_t size[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        H5L_info_t li;
        if (H5Lget_info(c->f[s], path, &li, H5P_DEFAULT) < 0)
            CS_TRY(c->ctx, hfail(c, s, path, "the link"));
        size[s] = li.u.val_size;
        CS_TRY(c->ctx, cs_calloc(c->ctx, &val[s], size[s] + 1, 1, "link value"));
        if (H5Lget_val(c->f[s], path, val[s], size[s], H5P_DEFAULT) < 0)
            CS_TRY(c->ctx, hfail(c, s, path, "the link"));
    }
    if (k == K_SOFT) {
        if (strcmp(val[0], val[1]) != 0)
            diff(c, path, "soft link to %s vs %s", val[0], val[1]);
    } else if (k == K_EXTERNAL) {
        const char *file[2] = {"", ""}, *obj[2] = {"", ""};
        unsigned flags = 0;
        for (int s = 0; s < 2; s++)
            if (H5Lunpack_elink_val(val[s], size[s], &flags, &file[s], &obj[s]) < 0)
                CS_TRY(c->ctx, hfail(c, s, path, "the external link"));
        if (strcmp(file[0], file[1]) != 0 || strcmp(obj[0], obj[1]) != 0)
            diff(c, path, "external link to %s:%s vs %s:%s", file[0], obj[0], file[1], obj[1]);
    } else if (size[0] != size[1] || memcmp(val[0], val[1], size[0]) != 0) {
        diff(c, path, "user-defined link values differ");
    }
fail:
    free(val[1]);
    free(val[0]);
    return rc;
}

/* Local. One path present in both files, a of A and b of B. */
static cs_err compare_object(cmp *c, const entry *a, const entry *b)
{
    if (a->k != b->k) {
        diff(c, a->path, "%s in A, %s in B", kind_name[a->k], kind_name[b->k]);
        return CS_OK;
    }
    if (a->k == K_SOFT || a->k == K_EXTERNAL || a->k == K_UDLINK)
        return compare_links(c, a->path, a->k);
    if (a->k == K_UNKNOWN)
        return cs_fail(c->ctx, CS_ERR_SCHEMA, "compare: %s of %s is an object of unknown type",
                       a->path, c->name[0]);
    cs_err rc = CS_OK;
    hid_t o[2] = {-1, -1};
    for (int s = 0; s < 2; s++) {
        o[s] = H5Oopen(c->f[s], a->path, H5P_DEFAULT);
        if (o[s] < 0)
            CS_TRY(c->ctx, hfail(c, s, a->path, ""));
    }
    CS_TRY(c->ctx, compare_attrs(c, a->path, o));
    if (a->k == K_DATASET) {
        CS_TRY(c->ctx, compare_values(c, a->path, "", o, 0));
    } else if (a->k == K_DATATYPE) {
        htri_t eq = H5Tequal(o[0], o[1]);
        if (eq < 0)
            CS_TRY(c->ctx, hfail(c, 0, a->path, "the datatype"));
        if (eq == 0) {
            char da[128], db[128];
            cs_cmp_describe_type(o[0], da, sizeof da);
            cs_cmp_describe_type(o[1], db, sizeof db);
            diff(c, a->path, "committed datatype %s vs %s", da, db);
        }
    }
fail:
    for (int s = 1; s >= 0; s--)
        if (o[s] >= 0)
            H5Oclose(o[s]);
    return rc;
}

/* Local. Opens a file for reading, with a clear message when it is missing, unreadable or not
 * HDF5. */
static cs_err open_file(cmp *c, int side)
{
    const char *path = c->name[side];
    FILE *fp = fopen(path, "rb");
    if (fp == NULL && errno != ENOENT)
        return cs_fail(c->ctx, CS_ERR_IO, "compare: cannot read file %s: %s", path,
                       strerror(errno));
    if (fp != NULL)
        fclose(fp);
    cs_err rc = cs_h5_probe(c->ctx, path, "compare: file");
    if (rc != CS_OK)
        return rc;
    c->f[side] = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c->f[side] < 0)
        return cs_fail(c->ctx, CS_ERR_HDF5, "compare: HDF5 cannot open file %s (damaged?)", path);
    return CS_OK;
}

cs_err cs_compare_files(cs_ctx *ctx, const char *path_a, const char *path_b,
                        const cs_compare_opts *opts, cs_compare_stats *st)
{
    CS_ASSERT(ctx != NULL && opts != NULL && st != NULL);
    memset(st, 0, sizeof *st);
    if (path_a == NULL || path_b == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "compare: a file name is NULL");
    if (opts->n_ignore < 0 || opts->n_only < 0 || (opts->n_ignore > 0 && opts->ignore == NULL) ||
        (opts->n_only > 0 && opts->only == NULL))
        return cs_fail(ctx, CS_ERR_ARG, "compare: bad lists of paths");
    cs_err rc = CS_OK;
    cmp c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.o = opts;
    c.name[0] = path_a;
    c.name[1] = path_b;
    c.f[0] = c.f[1] = H5I_INVALID_HID;
    c.st = st;
    listing l[2];
    memset(l, 0, sizeof l);
    cs_h5_quiet q;
    cs_h5_quiet_begin(&q);

    if (opts->n_ignore > 0)
        CS_TRY(ctx, cs_calloc(ctx, &c.ignore, (size_t)opts->n_ignore, sizeof *c.ignore, "paths"));
    for (; c.n_ignore < opts->n_ignore; c.n_ignore++)
        CS_TRY(ctx, norm_path(ctx, "ignored", opts->ignore[c.n_ignore], &c.ignore[c.n_ignore]));
    if (opts->n_only > 0)
        CS_TRY(ctx, cs_calloc(ctx, &c.only, (size_t)opts->n_only, sizeof *c.only, "paths"));
    for (; c.n_only < opts->n_only; c.n_only++)
        CS_TRY(ctx, norm_path(ctx, "compared", opts->only[c.n_only], &c.only[c.n_only]));
    for (int i = 0; i < c.n_only; i++)
        for (int j = 0; j < c.n_ignore; j++)
            if (under(c.only[i], c.ignore[j]))
                CS_TRY(ctx, cs_fail(ctx, CS_ERR_ARG,
                                    "compare: %s to be compared lies within %s, "
                                    "which is ignored",
                                    c.only[i], c.ignore[j]));

    for (int s = 0; s < 2; s++)
        CS_TRY(ctx, open_file(&c, s));
    for (int s = 0; s < 2; s++)
        CS_TRY(ctx, list_file(&c, s, &l[s]));
    for (int i = 0; i < c.n_only; i++) {
        int found = 0;
        for (int s = 0; s < 2 && !found; s++)
            for (size_t k = 0; k < l[s].n && !found; k++)
                found = under(l[s].e[k].path, c.only[i]);
        if (!found)
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_ARG, "compare: %s is in neither %s nor %s", c.only[i],
                                path_a, path_b));
    }

    size_t i = 0, j = 0;
    while (i < l[0].n || j < l[1].n) {
        int d = i == l[0].n ? 1 : j == l[1].n ? -1 : path_cmp(l[0].e[i].path, l[1].e[j].path);
        c.differs = 0;
        if (d < 0) {
            diff(&c, l[0].e[i].path, "%s missing in B", kind_name[l[0].e[i].k]);
            i++;
        } else if (d > 0) {
            diff(&c, l[1].e[j].path, "%s missing in A", kind_name[l[1].e[j].k]);
            j++;
        } else {
            CS_TRY(ctx, compare_object(&c, &l[0].e[i], &l[1].e[j]));
            i++;
            j++;
        }
        st->objects++;
        st->differ += c.differs;
    }

fail:
    for (int s = 1; s >= 0; s--) {
        listing_fini(&l[s]);
        if (c.f[s] >= 0)
            H5Fclose(c.f[s]);
    }
    for (int k = 0; k < c.n_only; k++)
        free(c.only[k]);
    free(c.only);
    for (int k = 0; k < c.n_ignore; k++)
        free(c.ignore[k]);
    free(c.ignore);
    cs_h5_quiet_end(&q);
    if (c.o->out != NULL)
        fflush(c.o->out);
    return rc;
}
