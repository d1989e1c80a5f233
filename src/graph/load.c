/*
 * graph loading: cs_graph, the run-time graph of one rank under a partition (distributed
 * loading), and its O(1) lookups.
 *
 * Each rank reads only the pages it owns. Its sorted page ids are merged into runs of
 * consecutive ids, and every dataset is read through collective HDF5 reads whose file
 * selection is the union of the runs (H5S_SELECT_OR hyperslabs), or, when the runs are short
 * on average (scattered ownership, e.g. a random per-page partition), a point selection of
 * their elements. Reads are cut into windows of at most cs_h5_chunk_elems() elements and
 * RUNS_PER_READ runs (POINTS_PER_READ points) so that neither the buffers of MPI-IO nor
 * HDF5's selection building grow without bound; all ranks make the allreduced
 * maximum number of calls per dataset, a rank with nothing left selecting none. Collective
 * transfers are safe because the ranks' selections are disjoint (Open MPI's OMPIO returns
 * zeros only for partly overlapping ranges, see h5/h5.c); for the CSR offsets this
 * means reading each owned page's end offsets[p + 1] and, per run, its start offsets[a]
 * separately, since offsets[p + 1] is also the start of page p + 1, which another rank may own.
 *
 * The owner lookup and the local index (owner.c) and the partition check are shared with
 * cs_graph_build (build.c) through graph_impl.h, so both constructors give the same graph.
 */
#include "graph_impl.h"

#include "crawlsim/comm.h"
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/partition.h"
#include "crawlsim/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many runs per H5Dread: HDF5 1.10 builds a union of hyperslabs in time
 * quadratic in its runs (each H5S_SELECT_OR walks the whole span list), while every H5Dread
 * costs ~20 us of collective set-up; 32 runs balance the two (measured, bench_load). */
#define RUNS_PER_READ ((int64_t)1 << 5)
/* Runs shorter than this on average (scattered ownership) are read as point selections,
 * built in linear time, at most POINTS_PER_READ points per H5Dread. */
#define POINT_RUN_LEN 8
#define POINTS_PER_READ ((int64_t)1 << 20)

/* ---- accessors ------------------------------------------------------------------------------ */

int64_t cs_graph_n_pages(const cs_graph *g)
{
    return g->n_pages;
}
int64_t cs_graph_n_links(const cs_graph *g)
{
    return g->n_links;
}
int64_t cs_graph_n_hosts(const cs_graph *g)
{
    return g->n_hosts;
}
int32_t cs_graph_n_topics(const cs_graph *g)
{
    return g->n_topics;
}
int cs_graph_n_parts(const cs_graph *g)
{
    return g->k;
}
int cs_graph_rank(const cs_graph *g)
{
    return g->rank;
}
int64_t cs_graph_n_local(const cs_graph *g)
{
    return g->n_local;
}
int64_t cs_graph_n_local_links(const cs_graph *g)
{
    return g->n_local_links;
}
const int64_t *cs_graph_local_ids(const cs_graph *g)
{
    return g->ids;
}
const int64_t *cs_graph_offsets(const cs_graph *g)
{
    return g->offsets;
}
const int64_t *cs_graph_targets(const cs_graph *g)
{
    return g->targets;
}
const int64_t *cs_graph_host(const cs_graph *g)
{
    return g->host;
}
const int32_t *cs_graph_topic(const cs_graph *g)
{
    return g->topic;
}
const double *cs_graph_relevance(const cs_graph *g)
{
    return g->relevance;
}
const double *cs_graph_delta(const cs_graph *g)
{
    return g->delta;
}
const double *cs_graph_mu(const cs_graph *g)
{
    return g->mu;
}
const uint8_t *cs_graph_observable(const cs_graph *g)
{
    return g->observable;
}

void cs_graph_destroy(cs_graph **pg)
{
    if (pg == NULL || *pg == NULL)
        return;
    cs_graph *g = *pg;
    free(g->ids);
    free(g->offsets);
    free(g->targets);
    free(g->host);
    free(g->topic);
    free(g->relevance);
    free(g->delta);
    free(g->mu);
    free(g->observable);
    graph_free_index(g);
    free(g);
    *pg = NULL;
}

/* ---- partition checks ------------------------------------------------------------------------ */

cs_err graph_check_partition(cs_ctx *ctx, const char *path, const cs_partition *part)
{
    char what[CS_ERRMSG_MAX / 2];
    if (path != NULL)
        snprintf(what, sizeof what, "partition of %s", path);
    else
        snprintf(what, sizeof what, "the partition");
    if (part == NULL || part->k < 1)
        return cs_fail(ctx, CS_ERR_ARG, "%s: no partition or k < 1", what);
    if (part->k != ctx->size && path != NULL)
        return cs_fail(ctx, CS_ERR_ARG,
                       "%s has k = %d parts but the job runs on %d ranks: run crawlsim "
                       "partition %s -k %d",
                       what, (int)part->k, ctx->size, path, ctx->size);
    if (part->k != ctx->size)
        return cs_fail(ctx, CS_ERR_ARG,
                       "%s has k = %d parts but the job runs on %d ranks: make it for %d parts",
                       what, (int)part->k, ctx->size, ctx->size);
    const int64_t n = part->n_pages;
    const int32_t *pa = part->part;
    const int32_t k = part->k;
    if (n < 0 || (n > 0 && pa == NULL && part->part_first == NULL && part->run_first == NULL))
        return cs_fail(ctx, CS_ERR_ARG, "%s has no part array for its %lld pages", what,
                       (long long)n);
    int64_t bad = INT64_MAX;
    if (pa != NULL) {
#pragma omp parallel for default(none) shared(pa, n, k) reduction(min : bad) schedule(static)
        for (int64_t p = 0; p < n; p++)
            if (pa[p] < 0 || pa[p] >= k)
                bad = p < bad ? p : bad;
        if (bad != INT64_MAX)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "%s is corrupt: page %lld has part %d, outside [0, %d)", what,
                           (long long)bad, (int)pa[bad], (int)k);
    }
    if (part->part_first != NULL) {
        const int64_t *pf = part->part_first;
        int ok = pf[0] == 0 && pf[k] == n;
        for (int32_t r = 0; ok && r < k; r++)
            ok = pf[r] <= pf[r + 1];
        if (ok && pa != NULL) {
#pragma omp parallel for default(none) shared(pa, pf, k) reduction(min : bad) schedule(static)
            for (int32_t r = 0; r < k; r++)
                for (int64_t p = pf[r]; p < pf[r + 1]; p++)
                    if (pa[p] != r)
                        bad = p < bad ? p : bad;
        }
        if (!ok || bad != INT64_MAX)
            return cs_fail(ctx, CS_ERR_FORMAT, "%s is corrupt: part_first does not match part",
                           what);
    }
    if (part->run_first != NULL) {
        const int64_t R = part->n_runs, *rf = part->run_first;
        const int32_t *rp = part->run_part;
        int ok = R >= 0 && (R > 0 || n == 0) && (R == 0 || rp != NULL) && rf[0] == 0 && rf[R] == n;
        for (int64_t i = 0; ok && i < R; i++)
            ok = rf[i] < rf[i + 1] && rp[i] >= 0 && rp[i] < k;
        for (int64_t i = 0; ok && pa != NULL && i < R; i++)
            for (int64_t p = rf[i]; ok && p < rf[i + 1]; p++)
                ok = pa[p] == rp[i];
        if (!ok)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "%s is corrupt: its runs do not cover the pages in order with parts "
                           "in [0, %d), or do not match part",
                           what, (int)k);
    }
    return CS_OK;
}

/* ---- reading runs -----------------------------------------------------------------------------
 */

/* A list of element runs [start[i], start[i] + len[i]) of a dataset, increasing, disjoint. */
typedef struct runs {
    int64_t n;
    int64_t *start, *len;
} runs;

static void runs_fini(runs *r)
{
    free(r->start);
    free(r->len);
    memset(r, 0, sizeof *r);
}

/*
 * Local. Advances the cursor (run *ri, element *ro inside it) over one read window of at most
 * `chunk` elements and RUNS_PER_READ runs (hyperslab union), or, with `points`, of at most
 * min(chunk, POINTS_PER_READ) elements (point selection; coords has room for them); selects
 * the window in fspace when fspace >= 0. Returns the window's element count (0 when the runs
 * are exhausted) or -1 on HDF5 failure.
 */
static int64_t next_window(const runs *r, int64_t *ri, int64_t *ro, int64_t chunk, int points,
                           hsize_t *coords, hid_t fspace)
{
    int64_t got = 0, nsel = 0;
    if (points && chunk > POINTS_PER_READ)
        chunk = POINTS_PER_READ;
    while (*ri < r->n && got < chunk && (points || nsel < RUNS_PER_READ)) {
        int64_t left = r->len[*ri] - *ro;
        int64_t take = left < chunk - got ? left : chunk - got;
        if (take > 0 && fspace >= 0) {
            hsize_t st = (hsize_t)(r->start[*ri] + *ro), ct = (hsize_t)take;
            if (points) {
                for (int64_t t = 0; t < take; t++)
                    coords[got + t] = st + (hsize_t)t;
            } else if (H5Sselect_hyperslab(fspace, nsel == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, &st,
                                           NULL, &ct, NULL) < 0) {
                return -1;
            }
        }
        if (take > 0)
            nsel++;
        got += take;
        *ro += take;
        if (*ro == r->len[*ri]) {
            (*ri)++;
            *ro = 0;
        }
    }
    if (points && got > 0 && fspace >= 0 &&
        H5Sselect_elements(fspace, H5S_SELECT_SET, (size_t)got, coords) < 0)
        return -1;
    return got;
}

/*
 * Collective(ctx->comm). Reads the elements of the runs r of dataset `name` (memory type
 * mtype, element size elem), in run order, into buf (room for the sum of r->len). Every rank
 * makes the allreduced maximum number of windows; the selections of all ranks must be
 * disjoint (they are collective transfers). Returns an agreed code.
 */
static cs_err read_runs(cs_ctx *ctx, hid_t file, const char *path, const char *name, hid_t mtype,
                        size_t elem, const runs *r, void *buf)
{
    cs_err rc = CS_OK;
    const int64_t chunk = cs_h5_chunk_elems();
    int64_t ri = 0, ro = 0, calls = 0, max_calls = 0, total = 0;
    for (int64_t i = 0; i < r->n; i++)
        total += r->len[i];
    const int points = r->n > RUNS_PER_READ && total < POINT_RUN_LEN * r->n;
    hsize_t *coords = NULL;
    if (points) {
        int64_t cap = total < POINTS_PER_READ ? total : POINTS_PER_READ;
        rc = cs_alloc(ctx, &coords, (size_t)(cap < chunk ? cap : chunk), sizeof *coords,
                      "point selection");
    }
    while (rc == CS_OK && next_window(r, &ri, &ro, chunk, points, NULL, -1) > 0)
        calls++;
    cs_allreduce(ctx, &calls, &max_calls, 1, CS_T_I64, CS_OP_MAX);
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        free(coords);
        return rc;
    }
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t fspace = d >= 0 ? H5Dget_space(d) : -1;
    hid_t dxpl = cs_h5_dxpl(1);
    if (d < 0 || fspace < 0 || dxpl < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 cannot set up reading dataset %s", path,
                     name);
    rc = cs_agree(ctx, rc);
    const int ready = rc == CS_OK;
    unsigned char dummy[8];
    unsigned char *at = buf;
    ri = 0;
    ro = 0;
    for (int64_t c = 0; ready && c < max_calls; c++) {
        /* A local failure leaves the remaining calls with empty selections: no rank leaves a
         * collective behind; the agreement after the loop reports it. */
        int64_t cnt = 0;
        herr_t st = 0;
        if (rc == CS_OK) {
            cnt = next_window(r, &ri, &ro, chunk, points, coords, fspace);
            st = cnt < 0 ? -1 : 0;
        }
        if (st < 0 || cnt == 0)
            st = H5Sselect_none(fspace) < 0 ? -1 : st;
        hsize_t mdim = (hsize_t)(cnt > 0 ? cnt : 1);
        hid_t mspace = H5Screate_simple(1, &mdim, NULL);
        if (mspace < 0 || (cnt <= 0 && H5Sselect_none(mspace) < 0))
            st = -1;
        if (mspace >= 0 &&
            H5Dread(d, mtype, mspace, fspace, dxpl, cnt > 0 ? (void *)at : (void *)dummy) < 0)
            st = -1;
        if (mspace >= 0)
            H5Sclose(mspace);
        if (st < 0 && rc == CS_OK)
            rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed reading dataset %s", path,
                         name);
        if (cnt > 0)
            at += (size_t)cnt * elem;
    }
    free(coords);
    if (dxpl >= 0)
        H5Pclose(dxpl);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (d >= 0)
        H5Dclose(d);
    return cs_agree(ctx, rc);
}

/* Local. The runs of consecutive ids in ids[0..n) shifted by `shift`; with `single`, only the
 * first element of each run. */
static cs_err make_runs(cs_ctx *ctx, const int64_t *ids, int64_t n, int64_t shift, int single,
                        runs *r)
{
    cs_err rc = CS_OK;
    int64_t nr = 0;
    for (int64_t i = 0; i < n; i++)
        nr += i == 0 || ids[i] != ids[i - 1] + 1;
    CS_TRY(ctx, cs_alloc(ctx, &r->start, (size_t)nr + 1, sizeof *r->start, "page runs"));
    CS_TRY(ctx, cs_alloc(ctx, &r->len, (size_t)nr + 1, sizeof *r->len, "page runs"));
    nr = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || ids[i] != ids[i - 1] + 1) {
            r->start[nr] = ids[i] + shift;
            r->len[nr++] = 0;
        }
        if (!single || r->len[nr - 1] == 0)
            r->len[nr - 1]++;
    }
    r->n = nr;
fail:
    return rc;
}

/* ---- the CSR -------------------------------------------------------------------------------- */

/*
 * Collective. Offsets and targets of the local pages. pages: the runs of local ids. Each
 * page's end offset is read into offsets[1..n], each run's start separately; the global
 * offsets are checked (within [0, M], non-decreasing) and made local, and the link runs
 * (one per page run with links) are read into targets and checked like cs_graphio_read_slice.
 */
static cs_err read_links(cs_ctx *ctx, hid_t file, const char *path, cs_graph *g, const runs *pages)
{
    cs_err rc = CS_OK;
    const int64_t n = g->n_local, M = g->n_links, N = g->n_pages;
    runs ends = {0}, starts = {0}, links = {0};
    int64_t *run_off = NULL;
    rc = cs_alloc(ctx, &g->offsets, (size_t)n + 1, sizeof *g->offsets, "link offsets");
    if (rc == CS_OK)
        rc = make_runs(ctx, g->ids, n, 1, 0, &ends);
    if (rc == CS_OK)
        rc = make_runs(ctx, g->ids, n, 0, 1, &starts);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &run_off, (size_t)pages->n + 1, sizeof *run_off, "run offsets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &links.start, (size_t)pages->n + 1, sizeof *links.start, "link runs");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &links.len, (size_t)pages->n + 1, sizeof *links.len, "link runs");
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, read_runs(ctx, file, path, "/links/offsets", H5T_NATIVE_INT64, 8, &ends,
                          g->offsets + 1));
    CS_TRY(ctx,
           read_runs(ctx, file, path, "/links/offsets", H5T_NATIVE_INT64, 8, &starts, run_off));

    /* Global ends -> local offsets, run by run, checking as we go. */
    g->offsets[0] = 0;
    int64_t i = 0, nl = 0;
    for (int64_t r = 0; rc == CS_OK && r < pages->n; r++) {
        int64_t prev = run_off[r], first = run_off[r];
        if (prev < 0 || prev > M || (pages->start[r] == 0 && prev != 0))
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "graph file %s: dataset /links/offsets is corrupt: element %lld is "
                         "%lld, outside [0, %lld]%s",
                         path, (long long)pages->start[r], (long long)prev, (long long)M,
                         pages->start[r] == 0 ? " or not 0" : "");
        for (int64_t j = 0; rc == CS_OK && j < pages->len[r]; j++, i++) {
            int64_t end = g->offsets[i + 1];
            if (end < prev || end > M)
                rc = cs_fail(ctx, CS_ERR_FORMAT,
                             "graph file %s: dataset /links/offsets is corrupt: element %lld "
                             "is %lld (previous %lld, n_links %lld)",
                             path, (long long)(g->ids[i] + 1), (long long)end, (long long)prev,
                             (long long)M);
            else if (g->ids[i] == N - 1 && end != M)
                rc = cs_fail(ctx, CS_ERR_FORMAT,
                             "graph file %s: dataset /links/offsets is corrupt: element %lld "
                             "is %lld, expected n_links %lld",
                             path, (long long)N, (long long)end, (long long)M);
            g->offsets[i + 1] = g->offsets[i] + (end - prev);
            prev = end;
        }
        if (rc == CS_OK && prev > first) {
            if (links.n > 0 && links.start[links.n - 1] + links.len[links.n - 1] == first) {
                links.len[links.n - 1] += prev - first;
            } else {
                links.start[links.n] = first;
                links.len[links.n++] = prev - first;
            }
        }
    }
    nl = g->offsets[n];
    int64_t sum = 0;
    for (int64_t r = 0; r < links.n; r++)
        sum += links.len[r];
    CS_ASSERT(rc != CS_OK || sum == nl);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->targets, (size_t)nl + 1, sizeof *g->targets, "link targets");
    CS_TRY_AGREE(ctx, rc);
    g->n_local_links = nl;
    CS_TRY(ctx,
           read_runs(ctx, file, path, "/links/targets", H5T_NATIVE_INT64, 8, &links, g->targets));

    /* Targets in [0, N) and strictly increasing per page. */
    const int64_t *off = g->offsets, *tg = g->targets;
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(off, tg, n, N) reduction(min : bad) schedule(static)
    for (int64_t p = 0; p < n; p++)
        for (int64_t e = off[p]; e < off[p + 1]; e++)
            if (tg[e] < 0 || tg[e] >= N || (e > off[p] && tg[e] <= tg[e - 1]))
                bad = p < bad ? p : bad;
    if (bad != INT64_MAX)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "graph file %s: dataset /links/targets is corrupt: the out-links of page "
                     "%lld are outside [0, %lld) or not strictly increasing",
                     path, (long long)g->ids[bad], (long long)N);
    CS_TRY_AGREE(ctx, rc);
fail:
    free(run_off);
    runs_fini(&links);
    runs_fini(&starts);
    runs_fini(&ends);
    return rc;
}

/* Local. Every v[i] lies in [lo, hi); a format error naming the page otherwise. */
static cs_err check_attr(cs_ctx *ctx, const char *path, const char *name, const cs_graph *g,
                         const int64_t *v64, const int32_t *v32, int64_t lo, int64_t hi)
{
    const int64_t n = g->n_local;
    CS_ASSERT(n == 0 || v64 != NULL || v32 != NULL);
    int64_t bad = INT64_MAX;
#pragma omp parallel for default(none) shared(v64, v32, n, lo, hi) reduction(min                   \
                                                                             : bad)                \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t x = v64 != NULL ? v64[i] : v32[i];
        if (x < lo || x >= hi)
            bad = i < bad ? i : bad;
    }
    if (bad == INT64_MAX)
        return CS_OK;
    return cs_graphio_id_outside(ctx, path, name, g->ids[bad], v64 != NULL ? v64[bad] : v32[bad],
                                 lo, hi);
}

/* Collective. The page attributes of the local pages. */
static cs_err read_attrs(cs_ctx *ctx, hid_t file, const char *path, cs_graph *g, const runs *pages)
{
    cs_err rc = CS_OK;
    const size_t n = (size_t)g->n_local + 1;
    rc = cs_alloc(ctx, &g->host, n, sizeof *g->host, "page hosts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->topic, n, sizeof *g->topic, "page topics");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->relevance, n, sizeof *g->relevance, "page relevance");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->delta, n, sizeof *g->delta, "page change rates");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->mu, n, sizeof *g->mu, "page importance");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->observable, n, sizeof *g->observable, "page observability");
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, read_runs(ctx, file, path, "/pages/host", H5T_NATIVE_INT64, 8, pages, g->host));
    CS_TRY_AGREE(ctx, check_attr(ctx, path, "/pages/host", g, g->host, NULL, 0, g->n_hosts));
    CS_TRY(ctx, read_runs(ctx, file, path, "/pages/topic", H5T_NATIVE_INT32, 4, pages, g->topic));
    CS_TRY_AGREE(ctx, check_attr(ctx, path, "/pages/topic", g, NULL, g->topic, -1, g->n_topics));
    CS_TRY(ctx, read_runs(ctx, file, path, "/pages/relevance", H5T_NATIVE_DOUBLE, 8, pages,
                          g->relevance));
    CS_TRY_AGREE(ctx, cs_graphio_check_f64(ctx, path, "/pages/relevance", g->relevance, g->ids, 0,
                                           g->n_local, CS_GRAPHIO_UNIT));
    CS_TRY(ctx, read_runs(ctx, file, path, "/pages/delta", H5T_NATIVE_DOUBLE, 8, pages, g->delta));
    CS_TRY_AGREE(ctx, cs_graphio_check_f64(ctx, path, "/pages/delta", g->delta, g->ids, 0,
                                           g->n_local, CS_GRAPHIO_POSITIVE));
    CS_TRY(ctx, read_runs(ctx, file, path, "/pages/mu", H5T_NATIVE_DOUBLE, 8, pages, g->mu));
    CS_TRY_AGREE(ctx, cs_graphio_check_f64(ctx, path, "/pages/mu", g->mu, g->ids, 0, g->n_local,
                                           CS_GRAPHIO_POSITIVE));
    CS_TRY(ctx, read_runs(ctx, file, path, "/pages/observable", H5T_NATIVE_UINT8, 1, pages,
                          g->observable));
    CS_TRY_AGREE(ctx, cs_graphio_check_flags(ctx, path, "/pages/observable", g->observable, g->ids,
                                             0, g->n_local));
fail:
    return rc;
}

/* ---- loading -------------------------------------------------------------------------------- */

cs_err cs_graph_load_with(cs_ctx *ctx, const char *graph_path, const cs_partition *part,
                          cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t file = -1;
    cs_graph_header hdr;
    cs_graph *g = NULL;
    runs pages = {0};
    CS_TRY_AGREE(ctx, graph_check_partition(ctx, graph_path, part));
    CS_TRY(ctx, cs_graphio_open(ctx, graph_path, &file, &hdr));
    if (part->n_pages != hdr.n_pages || (part->n_links != 0 && part->n_links != hdr.n_links))
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "the partition has %lld pages and %lld links but graph file %s has %lld "
                     "pages and %lld links: it was made for another graph; run crawlsim "
                     "partition %s -k %d",
                     (long long)part->n_pages, (long long)part->n_links, graph_path,
                     (long long)hdr.n_pages, (long long)hdr.n_links, graph_path, ctx->size);
    CS_TRY_AGREE(ctx, rc);

    rc = cs_calloc(ctx, &g, 1, sizeof *g, "graph");
    if (rc == CS_OK) {
        g->n_pages = hdr.n_pages;
        g->n_links = hdr.n_links;
        g->n_hosts = hdr.n_hosts;
        g->n_topics = hdr.n_topics;
        g->k = part->k;
        g->rank = ctx->rank;
        rc = graph_build_owner(ctx, g, part);
    }
    if (rc == CS_OK)
        rc = graph_build_local(ctx, g, part);
    if (rc == CS_OK)
        rc = make_runs(ctx, g->ids, g->n_local, 0, 0, &pages);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, read_links(ctx, file, graph_path, g, &pages));
    CS_TRY(ctx, read_attrs(ctx, file, graph_path, g, &pages));
    if (H5Fclose(file) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing it", graph_path);
    file = -1;
    CS_TRY_AGREE(ctx, rc);
    runs_fini(&pages);
    cs_h5_quiet_end(&quiet);
    *out = g;
    return CS_OK;
fail:
    runs_fini(&pages);
    cs_graph_destroy(&g);
    if (file >= 0)
        H5Fclose(file);
    cs_h5_quiet_end(&quiet);
    return rc;
}
