/*
 * graphio writer: cs_graphio_write, graph files of schema version 1 (see graphio.h) through
 * parallel HDF5.
 *
 * Every rank takes part in every HDF5 call (file creation, groups, attributes and dataset
 * creation are collective metadata operations; dataset writes are collective transfers).
 * Each locally fallible step is followed by cs_agree, so all ranks leave together with the
 * same code. The file is written under ".<name>.tmp.<pid of rank 0>" next to the target and
 * renamed by rank 0 once every rank has closed it; on failure rank 0 removes the temporary.
 */
#include "crawlsim/comm.h"
#include "graphio_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rank 0's scalars, broadcast so that every rank writes the same attributes and sizes. */
typedef struct wmeta {
    int64_t n_hosts;
    int64_t host_bytes; /* size of /hosts/names, -1 = no host names */
    int64_t topic_bytes;
    int64_t spec_len;
    uint64_t seed;
    int32_t n_topics;
    int32_t target_topic;
    char source[256];
} wmeta;

/* What each rank tells the others about its slice (allgathered). */
enum { SL_FIRST, SL_N, SL_NTOTAL, SL_NLINKS, SL_WEIGHTS, SL_TERMS, SL_TERMDIM, SL_NTERMS, SL_K };

/* Bytes of a names blob: the end of its furthest NUL-terminated name. */
static int64_t blob_bytes(const char *blob, const int64_t *off, int64_t count)
{
    int64_t end = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t e = off[i] + (int64_t)strlen(blob + off[i]) + 1;
        if (e > end)
            end = e;
    }
    return end;
}

/* Local. This rank's off[0..n] (`what`: links' or terms') start at 0 and never decrease. */
static cs_err check_offsets(cs_ctx *ctx, const char *path, const int64_t *off, int64_t n,
                            int64_t first, const char *what)
{
    if (off[0] != 0)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: slice of rank %d has %s[0] = %lld, not 0", path,
                       ctx->rank, what, (long long)off[0]);
    for (int64_t i = 0; i < n; i++)
        if (off[i + 1] < off[i])
            return cs_fail(ctx, CS_ERR_ARG, "cannot write graph file %s: %s decrease at page %lld",
                           path, what, (long long)(first + i));
    return CS_OK;
}

/* Local. The contract of one slice (graphio.h); the first violation gives the message. */
static cs_err check_slice(cs_ctx *ctx, const char *path, const cs_graph_slice *g, const wmeta *wm)
{
    const int64_t n = g->n, N = g->n_pages_total, H = wm->n_hosts;
    const int32_t K = wm->n_topics;
    if (n < 0 || g->first < 0)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: slice of rank %d has %lld "
                       "pages from page %lld",
                       path, ctx->rank, (long long)n, (long long)g->first);
    if (n == 0)
        return CS_OK;
    if (g->offsets == NULL || g->host == NULL || g->topic == NULL || g->relevance == NULL ||
        g->delta == NULL || g->mu == NULL || g->observable == NULL)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: slice of rank %d lacks "
                       "offsets or a page attribute",
                       path, ctx->rank);
    const int64_t *off = g->offsets;
    cs_err rc = check_offsets(ctx, path, off, n, g->first, "offsets");
    if (rc != CS_OK)
        return rc;
    if (off[n] > 0 && g->targets == NULL)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: slice of rank %d has "
                       "links but no targets",
                       path, ctx->rank);
    const int64_t *tg = g->targets;
    const int64_t *host = g->host;
    const int32_t *topic = g->topic;
    int64_t bad_link = INT64_MAX, bad_page = INT64_MAX;
#pragma omp parallel for default(none) shared(n, N, H, K, off, tg, host, topic)                    \
    reduction(min                                                                                  \
              : bad_link, bad_page) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (host[i] < 0 || host[i] >= H || topic[i] < -1 || topic[i] >= K)
            bad_page = i < bad_page ? i : bad_page;
        for (int64_t e = off[i]; e < off[i + 1]; e++) {
            if (tg[e] < 0 || tg[e] >= N || (e > off[i] && tg[e] <= tg[e - 1])) {
                bad_link = i < bad_link ? i : bad_link;
                break;
            }
        }
    }
    if (bad_link != INT64_MAX)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: the links of page %lld are "
                       "not sorted unique targets in [0, %lld)",
                       path, (long long)(g->first + bad_link), (long long)N);
    if (bad_page != INT64_MAX)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: page %lld has host %lld "
                       "(of %lld) and topic %d (of %d)",
                       path, (long long)(g->first + bad_page), (long long)host[bad_page],
                       (long long)H, (int)topic[bad_page], (int)K);
    if (g->term_offsets != NULL) {
        const int64_t *to = g->term_offsets;
        rc = check_offsets(ctx, path, to, n, g->first, "term_offsets");
        if (rc != CS_OK)
            return rc;
        if (to[n] > 0 && (g->term_index == NULL || g->term_value == NULL))
            return cs_fail(ctx, CS_ERR_ARG,
                           "cannot write graph file %s: slice of rank %d has "
                           "term offsets but no term index or values",
                           path, ctx->rank);
        for (int64_t t = 0; t < to[n]; t++)
            if (g->term_index[t] < 0 || g->term_index[t] >= g->term_dim)
                return cs_fail(ctx, CS_ERR_ARG,
                               "cannot write graph file %s: term index %d "
                               "outside [0, %d)",
                               path, (int)g->term_index[t], (int)g->term_dim);
    }
    return CS_OK;
}

/* Local. The slices tile [0, N) in rank order, agree on N and on optional arrays. */
static cs_err check_tiling(cs_ctx *ctx, const char *path, const int64_t *all, int *has_weights,
                           int *has_terms, int32_t *term_dim)
{
    const int P = ctx->size;
    const int64_t N = all[SL_NTOTAL];
    int64_t expect = 0;
    *has_weights = 0;
    *has_terms = 0;
    *term_dim = 0;
    for (int r = 0; r < P; r++) {
        const int64_t *s = all + (size_t)r * SL_K;
        if (s[SL_NTOTAL] != N)
            return cs_fail(ctx, CS_ERR_ARG,
                           "cannot write graph file %s: rank %d says the graph "
                           "has %lld pages, rank 0 says %lld",
                           path, r, (long long)s[SL_NTOTAL], (long long)N);
        if (s[SL_FIRST] != expect && s[SL_N] > 0)
            return cs_fail(ctx, CS_ERR_ARG,
                           "cannot write graph file %s: the ranks' slices do "
                           "not tile [0, %lld): rank %d starts at page %lld, expected %lld",
                           path, (long long)N, r, (long long)s[SL_FIRST], (long long)expect);
        expect += s[SL_N];
        if (s[SL_WEIGHTS])
            *has_weights = 1;
        if (s[SL_TERMS]) {
            if (*has_terms && s[SL_TERMDIM] != *term_dim)
                return cs_fail(ctx, CS_ERR_ARG,
                               "cannot write graph file %s: ranks disagree on "
                               "the term dimension (%d and %lld)",
                               path, (int)*term_dim, (long long)s[SL_TERMDIM]);
            *has_terms = 1;
            *term_dim = (int32_t)s[SL_TERMDIM];
        }
    }
    if (expect != N)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot write graph file %s: the ranks' slices cover "
                       "%lld pages, the graph has %lld",
                       path, (long long)expect, (long long)N);
    for (int r = 0; r < P; r++) {
        const int64_t *s = all + (size_t)r * SL_K;
        if (*has_weights && s[SL_NLINKS] > 0 && !s[SL_WEIGHTS])
            return cs_fail(ctx, CS_ERR_ARG,
                           "cannot write graph file %s: rank %d has no link "
                           "weights while other ranks have",
                           path, r);
        if (*has_terms && s[SL_N] > 0 && !s[SL_TERMS])
            return cs_fail(ctx, CS_ERR_ARG,
                           "cannot write graph file %s: rank %d has no term "
                           "features while other ranks have",
                           path, r);
    }
    return CS_OK;
}

/*
 * Collective. Creates dataset `leaf` of `total` elements in group loc and writes this rank's
 * count elements at offset off. Returns an agreed code.
 */
static cs_err dataset_write(cs_ctx *ctx, hid_t loc, const char *leaf, const char *name, hid_t ftype,
                            hid_t mtype, size_t elem, int64_t total, int64_t off, int64_t count,
                            const void *buf, const char *path)
{
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "graph file %s", path);
    return cs_h5_create_write_1d(ctx, loc, leaf, ftype, mtype, elem, total, off, count, buf, what,
                                 path, name);
}

/* Collective. The global offsets dataset `name` (leaf of loc, N + 1 elements): this rank's no
 * local offsets (NULL: zeros) plus base, at element f0. Every rank returns the same code. */
static cs_err offsets_write(cs_ctx *ctx, hid_t loc, const char *leaf, const char *name, int64_t N,
                            int64_t f0, int64_t no, const int64_t *local, int64_t base,
                            const char *what, const char *path)
{
    cs_err rc = CS_OK;
    int64_t *goff = NULL;
    CS_TRY_AGREE(ctx, cs_alloc(ctx, &goff, (size_t)no, sizeof *goff, what));
    for (int64_t i = 0; i < no; i++)
        goff[i] = (local != NULL ? local[i] : 0) + base;
    CS_TRY_AGREE(ctx, dataset_write(ctx, loc, leaf, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 8, N + 1,
                                    f0, no, goff, path));
fail:
    free(goff);
    return rc;
}

/* A group without object times (as the root and the datasets: a graph file's bytes are a
 * function of its contents, so the same world has the same hash). */
static hid_t group_create(hid_t file, const char *name)
{
    const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    hid_t g = -1;
    if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0)
        g = H5Gcreate2(file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gcpl >= 0)
        H5Pclose(gcpl);
    return g;
}

/* Rank 0: the directory of path must exist (a clearer message than HDF5's). */
static cs_err check_dir(cs_ctx *ctx, const char *path, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return cs_fail(ctx, CS_ERR_IO, "cannot write graph file %s: directory %s: %s", path, dir,
                       strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cs_fail(ctx, CS_ERR_IO, "cannot write graph file %s: %s is not a directory", path,
                       dir);
    return CS_OK;
}

/* Collective. Step 1: rank 0's meta and spec (*spec, malloc'd), for every rank. Agreed. */
static cs_err share_meta(cs_ctx *ctx, const char *path, const cs_graph_meta *meta,
                         const char *spec_text, wmeta *wm, char **spec)
{
    cs_err rc = CS_OK;
    memset(wm, 0, sizeof *wm);
    if (ctx->rank == 0) {
        wm->n_hosts = meta->n_hosts;
        wm->n_topics = meta->n_topics;
        wm->target_topic = meta->target_topic;
        wm->seed = meta->seed;
        memcpy(wm->source, meta->source, sizeof wm->source);
        wm->source[sizeof wm->source - 1] = '\0';
        wm->host_bytes = (meta->host_blob != NULL && meta->host_name_off != NULL)
                             ? blob_bytes(meta->host_blob, meta->host_name_off, meta->n_hosts)
                             : -1;
        wm->topic_bytes = (meta->topic_blob != NULL && meta->topic_name_off != NULL)
                              ? blob_bytes(meta->topic_blob, meta->topic_name_off, meta->n_topics)
                              : -1;
        wm->spec_len = spec_text != NULL ? (int64_t)strlen(spec_text) : 0;
    }
    cs_bcast(ctx, wm, (int)sizeof *wm, CS_T_BYTE, 0);
    if (wm->spec_len >= INT_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "cannot write graph file %s: spec text of %lld bytes", path,
                     (long long)wm->spec_len);
    if (rc == CS_OK && wm->n_hosts < 0)
        rc = cs_fail(ctx, CS_ERR_ARG, "cannot write graph file %s: n_hosts = %lld", path,
                     (long long)wm->n_hosts);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, spec, (size_t)wm->spec_len + 1, 1, "spec text");
    CS_TRY_AGREE(ctx, rc);
    if (ctx->rank == 0 && spec_text != NULL && wm->spec_len > 0)
        memcpy(*spec, spec_text, (size_t)wm->spec_len);
    (*spec)[wm->spec_len] = '\0';
    cs_bcast(ctx, *spec, (int)wm->spec_len + 1, CS_T_CHAR, 0);
fail:
    return rc;
}

/* Where this rank's slice goes and the file's totals (step 2). */
typedef struct wlayout {
    int64_t n, nl, nt, no;                  /* this rank's pages, links, terms, offsets */
    int64_t N, M, T;                        /* the file's pages, links, terms */
    int64_t f0, link_first, term_first;     /* this rank's first page, link, term */
    int has_weights, has_terms, term_dim32; /* term_dim32: /terms dim */
    hid_t id_ftype;                         /* 32-bit page and host ids when they fit */
} wlayout;

/* Collective. Step 2: every slice valid, together they tile [0, N); the layout. Agreed. */
static cs_err plan_layout(cs_ctx *ctx, const char *path, const cs_graph_slice *g, const wmeta *wm,
                          wlayout *L)
{
    cs_err rc = CS_OK;
    int64_t *all = NULL;
    memset(L, 0, sizeof *L);
    L->n = g->n;
    L->nl = (L->n > 0 && g->offsets != NULL) ? g->offsets[L->n] : 0;
    L->nt = (L->n > 0 && g->term_offsets != NULL) ? g->term_offsets[L->n] : 0;
    CS_TRY_AGREE(ctx, check_slice(ctx, path, g, wm));
    CS_TRY_AGREE(ctx, cs_alloc(ctx, &all, (size_t)ctx->size * SL_K, sizeof *all, "slice table"));
    int64_t mine[SL_K] = {
        g->first,    L->n, g->n_pages_total, L->nl, g->weights != NULL, g->term_offsets != NULL,
        g->term_dim, L->nt};
    cs_allgather(ctx, mine, SL_K, all, CS_T_I64);
    int32_t term_dim = 0;
    CS_TRY_AGREE(ctx, check_tiling(ctx, path, all, &L->has_weights, &L->has_terms, &term_dim));
    L->term_dim32 = term_dim;
    L->N = all[SL_NTOTAL];
    /* Page and host ids are stored as 32-bit integers whenever they fit (always below METIS's
     * 2^31 - 1 limit): half the bytes of the largest dataset. Readers ask for native int64 and
     * HDF5 converts. */
    L->id_ftype = L->N <= INT32_MAX ? H5T_STD_I32LE : H5T_STD_I64LE;
    /* Offsets of this rank's pages, links and terms: sums over the lower ranks (an empty slice's
     * `first` is not looked at). */
    for (int r = 0; r < ctx->size; r++) {
        if (r < ctx->rank) {
            L->f0 += all[(size_t)r * SL_K + SL_N];
            L->link_first += all[(size_t)r * SL_K + SL_NLINKS];
            L->term_first += all[(size_t)r * SL_K + SL_NTERMS];
        }
        L->M += all[(size_t)r * SL_K + SL_NLINKS];
        L->T += all[(size_t)r * SL_K + SL_NTERMS];
    }
    L->no = L->n + (ctx->rank == ctx->size - 1 ? 1 : 0); /* the last rank writes element N */
fail:
    free(all);
    return rc;
}

/* Collective. Step 5: the root attributes (schema version 1), the same values on every rank.
 * Agreed. */
static cs_err write_root_attrs(cs_ctx *ctx, hid_t file, const wmeta *wm, const wlayout *L,
                               const char *spec, const char *what)
{
    int32_t version = CS_GRAPH_SCHEMA_VERSION;
    cs_err rc = cs_h5_attr_write_string(ctx, file, "format", CS_GRAPH_FORMAT, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32,
                              &version, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "n_pages", H5T_STD_I64LE, H5T_NATIVE_INT64, &L->N, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "n_links", H5T_STD_I64LE, H5T_NATIVE_INT64, &L->M, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "n_hosts", H5T_STD_I64LE, H5T_NATIVE_INT64, &wm->n_hosts,
                              what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "n_topics", H5T_STD_I32LE, H5T_NATIVE_INT32, &wm->n_topics,
                              what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "target_topic", H5T_STD_I32LE, H5T_NATIVE_INT32,
                              &wm->target_topic, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write(ctx, file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, &wm->seed, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write_string(ctx, file, "source", wm->source, what);
    if (rc == CS_OK)
        rc = cs_h5_attr_write_string(ctx, file, "spec", spec, what);
    return cs_agree(ctx, rc);
}

/* The file's groups (-1: not created). */
typedef struct wgroups {
    hid_t pages, links, hosts, topics, terms;
} wgroups;

/* Collective. Step 6: the groups. Agreed. */
static cs_err create_groups(cs_ctx *ctx, hid_t file, const wmeta *wm, const wlayout *L, wgroups *G,
                            const char *path, const char *what)
{
    cs_err rc = CS_OK;
    G->pages = group_create(file, "pages");
    G->links = group_create(file, "links");
    if (wm->host_bytes >= 0)
        G->hosts = group_create(file, "hosts");
    if (wm->topic_bytes >= 0)
        G->topics = group_create(file, "topics");
    if (L->has_terms)
        G->terms = group_create(file, "terms");
    if (G->pages < 0 || G->links < 0 || (wm->host_bytes >= 0 && G->hosts < 0) ||
        (wm->topic_bytes >= 0 && G->topics < 0) || (L->has_terms && G->terms < 0))
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed creating the groups", path);
    if (rc == CS_OK && L->has_terms) {
        int32_t dim = L->term_dim32;
        rc = cs_h5_attr_write(ctx, G->terms, "dim", H5T_STD_I32LE, H5T_NATIVE_INT32, &dim, what);
    }
    return cs_agree(ctx, rc);
}

/* Local. Closes the groups still open; CS_OK or the first failure (reported when report). */
static cs_err close_groups(cs_ctx *ctx, wgroups *G, const char *path, int report)
{
    cs_err rc = CS_OK;
    hid_t *grp[] = {&G->terms, &G->topics, &G->hosts, &G->links, &G->pages};
    for (size_t i = 0; i < sizeof grp / sizeof grp[0]; i++) {
        if (*grp[i] >= 0 && H5Gclose(*grp[i]) < 0 && rc == CS_OK && report)
            rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing a group", path);
        *grp[i] = -1;
    }
    return rc;
}

/* Collective. Steps 7-9: the pages' attributes, the links, the terms. Agreed. */
static cs_err write_slices(cs_ctx *ctx, const wgroups *G, const cs_graph_slice *g, const wlayout *L,
                           const char *path)
{
    cs_err rc = CS_OK;
    const int64_t N = L->N, f0 = L->f0, n = L->n;
    CS_TRY_AGREE(ctx, dataset_write(ctx, G->pages, "host", "/pages/host", L->id_ftype,
                                    H5T_NATIVE_INT64, 8, N, f0, n, g->host, path));
    CS_TRY_AGREE(ctx, dataset_write(ctx, G->pages, "topic", "/pages/topic", H5T_STD_I32LE,
                                    H5T_NATIVE_INT32, 4, N, f0, n, g->topic, path));
    CS_TRY_AGREE(ctx, dataset_write(ctx, G->pages, "relevance", "/pages/relevance", H5T_IEEE_F64LE,
                                    H5T_NATIVE_DOUBLE, 8, N, f0, n, g->relevance, path));
    CS_TRY_AGREE(ctx, dataset_write(ctx, G->pages, "delta", "/pages/delta", H5T_IEEE_F64LE,
                                    H5T_NATIVE_DOUBLE, 8, N, f0, n, g->delta, path));
    CS_TRY_AGREE(ctx, dataset_write(ctx, G->pages, "mu", "/pages/mu", H5T_IEEE_F64LE,
                                    H5T_NATIVE_DOUBLE, 8, N, f0, n, g->mu, path));
    CS_TRY_AGREE(ctx, dataset_write(ctx, G->pages, "observable", "/pages/observable", H5T_STD_U8LE,
                                    H5T_NATIVE_UINT8, 1, N, f0, n, g->observable, path));
    /* links: global offsets (the last rank also writes element N), targets, weights */
    CS_TRY(ctx, offsets_write(ctx, G->links, "offsets", "/links/offsets", N, f0, L->no, g->offsets,
                              L->link_first, "global link offsets", path));
    CS_TRY_AGREE(ctx,
                 dataset_write(ctx, G->links, "targets", "/links/targets", L->id_ftype,
                               H5T_NATIVE_INT64, 8, L->M, L->link_first, L->nl, g->targets, path));
    if (L->has_weights)
        CS_TRY_AGREE(ctx, dataset_write(ctx, G->links, "weights", "/links/weights", H5T_STD_U32LE,
                                        H5T_NATIVE_UINT32, 4, L->M, L->link_first, L->nl,
                                        g->weights, path));
    if (L->has_terms) {
        CS_TRY(ctx, offsets_write(ctx, G->terms, "offsets", "/terms/offsets", N, f0, L->no,
                                  g->term_offsets, L->term_first, "global term offsets", path));
        CS_TRY_AGREE(ctx, dataset_write(ctx, G->terms, "index", "/terms/index", H5T_STD_I32LE,
                                        H5T_NATIVE_INT32, 4, L->T, L->term_first, L->nt,
                                        g->term_index, path));
        CS_TRY_AGREE(ctx, dataset_write(ctx, G->terms, "value", "/terms/value", H5T_IEEE_F32LE,
                                        H5T_NATIVE_FLOAT, 4, L->T, L->term_first, L->nt,
                                        g->term_value, path));
    }
fail:
    return rc;
}

/* Collective. Step 10: the host and topic names, from rank 0 only. Agreed. */
static cs_err write_names(cs_ctx *ctx, const wgroups *G, const cs_graph_meta *meta, const wmeta *wm,
                          const char *path)
{
    cs_err rc = CS_OK;
    const int r0 = ctx->rank == 0;
    if (wm->host_bytes >= 0) {
        CS_TRY_AGREE(ctx,
                     dataset_write(ctx, G->hosts, "name_offsets", "/hosts/name_offsets",
                                   H5T_STD_I64LE, H5T_NATIVE_INT64, 8, wm->n_hosts, 0,
                                   r0 ? wm->n_hosts : 0, r0 ? meta->host_name_off : NULL, path));
        CS_TRY_AGREE(ctx,
                     dataset_write(ctx, G->hosts, "names", "/hosts/names", H5T_STD_U8LE,
                                   H5T_NATIVE_UINT8, 1, wm->host_bytes, 0, r0 ? wm->host_bytes : 0,
                                   r0 ? meta->host_blob : NULL, path));
    }
    if (wm->topic_bytes >= 0) {
        CS_TRY_AGREE(ctx,
                     dataset_write(ctx, G->topics, "name_offsets", "/topics/name_offsets",
                                   H5T_STD_I64LE, H5T_NATIVE_INT64, 8, wm->n_topics, 0,
                                   r0 ? wm->n_topics : 0, r0 ? meta->topic_name_off : NULL, path));
        CS_TRY_AGREE(ctx,
                     dataset_write(ctx, G->topics, "names", "/topics/names", H5T_STD_U8LE,
                                   H5T_NATIVE_UINT8, 1, wm->topic_bytes, 0,
                                   r0 ? wm->topic_bytes : 0, r0 ? meta->topic_blob : NULL, path));
    }
fail:
    return rc;
}

/* Collective. Step 3: the temporary's name, ".<base>.tmp.<pid of rank 0>" in the target's
 * directory, which must exist (rank 0 looks). Agreed. */
static cs_err temp_name(cs_ctx *ctx, const char *path, char **tmp)
{
    cs_err rc = CS_OK;
    char *dir = NULL;
    long pid = (long)getpid();
    cs_bcast(ctx, &pid, 1, CS_T_LONG, 0);
    CS_TRY_AGREE(ctx, cs_h5_tmp_name(ctx, "graph file", path, pid, tmp, &dir));
    if (ctx->rank == 0)
        rc = check_dir(ctx, path, dir);
    CS_TRY_AGREE(ctx, rc);
fail:
    free(dir);
    return rc;
}

cs_err cs_graphio_write(cs_ctx *ctx, const char *path, const cs_graph_slice *g,
                        const cs_graph_meta *meta, const char *spec_text)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    wmeta wm;
    wlayout L;
    wgroups G = {-1, -1, -1, -1, -1};
    char *spec = NULL, *tmp = NULL;
    hid_t file = -1, fapl = -1, fcpl = -1;
    int created = 0;
    char what[CS_ERRMSG_MAX];
    snprintf(what, sizeof what, "graph file %s", path);

    CS_TRY(ctx, share_meta(ctx, path, meta, spec_text, &wm, &spec));
    CS_TRY(ctx, plan_layout(ctx, path, g, &wm, &L));
    CS_TRY(ctx, temp_name(ctx, path, &tmp));

    /* 4. Create it collectively; a signal that kills rank 0 removes it (cs_h5_tmp_guard), and
     * a ballast keeps room for the metadata a close after a failure writes (cs_h5_close_tmp). */
    if (ctx->rank == 0)
        cs_h5_tmp_guard(tmp);
    created = 1; /* from here on rank 0 removes the temporary (and its ballast) on failure */
    CS_TRY(ctx, cs_h5_room_take(ctx, tmp, 1, what));
    fapl = cs_h5_fapl(ctx->comm);
    fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fapl >= 0 && fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0 &&
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0)
        file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    if (file < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "cannot write graph file %s: HDF5 cannot create %s", path,
                     tmp);
    CS_TRY_AGREE(ctx, rc);

    CS_TRY(ctx, write_root_attrs(ctx, file, &wm, &L, spec, what));
    CS_TRY(ctx, create_groups(ctx, file, &wm, &L, &G, path, what));
    CS_TRY(ctx, write_slices(ctx, &G, g, &L, path));
    CS_TRY(ctx, write_names(ctx, &G, meta, &wm, path));

    /* 11. Close everything, then rename. */
    rc = close_groups(ctx, &G, path, 1);
    rc = cs_h5_close_tmp(ctx, file, tmp, 1, rc, what); /* agreed; removes it on failure */
    file = -1;
    CS_TRY(ctx, rc);
    if (ctx->rank == 0 && rename(tmp, path) != 0)
        rc = cs_fail(ctx, CS_ERR_IO, "cannot write graph file %s: renaming %s to it failed: %s",
                     path, tmp, strerror(errno));
    CS_TRY_AGREE(ctx, rc);
    created = 0;

fail:
    close_groups(ctx, &G, path, 0); /* the error stays the first one */
    if (file >= 0) /* a failed write: agreed, neither the close nor MPI_Finalize may crash */
        cs_h5_close_tmp(ctx, file, tmp, 1, rc, what);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (created && ctx->rank == 0)
        unlink(tmp);
    if (created)
        cs_h5_room_give(ctx, tmp, 1);
    if (ctx->rank == 0)
        cs_h5_tmp_unguard();
    if (created) /* nobody looks at the file before it is gone */
        cs_barrier(ctx);
    free(tmp);
    free(spec);
    cs_h5_quiet_end(&quiet);
    return rc;
}
