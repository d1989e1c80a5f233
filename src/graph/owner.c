/*
 * graph owner lookup and local index: which rank owns a page (cs_graph_owner) and where a page
 * of this rank lies among its local pages (cs_graph_local_index), for any partition, in bytes
 * that follow the partition's structure rather than the world's size where it can
 * (docs/developer/memory.md).
 *
 * Owner. A block partition with part_first keeps its k + 1 range table (the page's part
 * estimated as page * k / N, then corrected by steps). Any other partition is cut into runs of
 * consecutive pages of one part: a partition that keeps hosts whole (host-hash, metis-host) on
 * a world whose hosts are ranges of page ids (generated worlds, DESIGN.md "The world") has at
 * most one run per host, so the owner runs cost about 13 bytes per host instead of a part per
 * page. When the runs would hold more bytes than a part per page (METIS on pages, an imported
 * graph whose hosts are not contiguous ids), the owner map keeps the part of every page narrow
 * (uint8 for k <= 255, uint16 for k <= 65535, else int32).
 *
 * Local index. A subtraction when the local ids are contiguous. Otherwise the smaller of the
 * local runs (this rank's maximal runs of consecutive ids with the local index of each run's
 * first page: 16 bytes per run, about H / P runs under a host partition) and a rank directory
 * over all pages (a bit per page, whether this rank owns it, and an int32 count of owned pages
 * per 64-page word: 0.19 B per page; the index is the count before the word plus a popcount,
 * for scattered ownership).
 *
 * Both run tables find a page's run through a bucket index (graph_runs in graph_impl.h): the
 * crawl looks up the owner of every link record it routes and the local index of every record
 * it receives, so a lookup is one bucket read and a search over the one or two runs of the
 * bucket, never a binary search over all runs.
 *
 * The tests set CRAWLSIM_GRAPH_INDEX=runs or =map to take one form whatever its bytes.
 */
#include "graph_impl.h"

#include "crawlsim/graph.h"
#include "crawlsim/partition.h"

#include <stdlib.h>
#include <string.h>

/* ---- runs with a bucket index ------------------------------------------------------------- */

/* Local. The last run i with r->start[i] <= page; page lies in [start[0], start[n]). */
static inline int64_t runs_find(const graph_runs *r, int64_t page)
{
    const int64_t b = (page - r->start[0]) >> r->shift;
    int64_t lo = r->at[b], hi = r->at[b + 1];
    const int64_t *st = r->start;
    if (hi - lo <= 4) { /* the usual bucket: a run or two, scanned */
        while (lo < hi && st[lo + 1] <= page)
            lo++;
        return lo;
    }
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (st[mid] <= page)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Local. r->at and r->shift for r->n runs whose starts r->start[0 .. n] are set (n >= 1):
 * buckets of the smallest power-of-two width that makes them no more than the runs. */
static cs_err runs_index(cs_ctx *ctx, graph_runs *r)
{
    cs_err rc = CS_OK;
    const int64_t lo = r->start[0], span = r->start[r->n] - lo;
    int shift = 0;
    while (((span - 1) >> shift) + 1 > r->n)
        shift++;
    const int64_t nb = ((span - 1) >> shift) + 1;
    CS_TRY(ctx, cs_alloc(ctx, &r->at, (size_t)nb + 1, sizeof *r->at, "run index"));
    int64_t i = 0;
    for (int64_t b = 0; b <= nb; b++) {
        const int64_t first = lo + (b << shift);
        while (i + 1 < r->n && r->start[i + 1] <= first)
            i++;
        r->at[b] = (int32_t)i;
    }
    r->shift = shift;
fail:
    return rc;
}

/* Local. Bytes of n runs with their index and `extra` bytes per run. */
static int64_t runs_bytes(int64_t n, int64_t extra)
{
    return (8 + 4 + extra) * (n + 1);
}

/* Local. The form of the owner lookup and the local index: by bytes (0), or, for the tests
 * through CRAWLSIM_GRAPH_INDEX, always runs ("runs": 1) or always a per-page form ("map": 2). */
static int forced_form(void)
{
    const char *e = getenv("CRAWLSIM_GRAPH_INDEX");
    if (e == NULL)
        return 0;
    return strcmp(e, "runs") == 0 ? 1 : strcmp(e, "map") == 0 ? 2 : 0;
}

static void runs_fini(graph_runs *r)
{
    free(r->start);
    free(r->at);
    memset(r, 0, sizeof *r);
}

/* ---- lookups -------------------------------------------------------------------------------- */

int64_t cs_graph_local_index(const cs_graph *g, int64_t page)
{
    if (g->n_local == 0 || page < g->id_lo || page > g->id_hi)
        return -1;
    if (g->contiguous)
        return page - g->id_lo;
    if (g->lbase != NULL) {
        const int64_t i = runs_find(&g->lrun, page), off = page - g->lrun.start[i];
        return off < g->lbase[i + 1] - g->lbase[i] ? g->lbase[i] + off : -1;
    }
    const uint64_t w = g->mine[page >> 6], bit = (uint64_t)1 << (page & 63);
    if (!(w & bit))
        return -1;
    return g->below[page >> 6] + cs_popcount64(w & (bit - 1));
}

int64_t cs_graph_n_local_runs(const cs_graph *g)
{
    if (g->ids != NULL)
        return -1;
    if (g->contiguous)
        return g->n_local > 0;
    return g->lbase != NULL ? g->lrun.n : -1;
}

void cs_graph_local_run(const cs_graph *g, int64_t i, int64_t *first, int64_t *count, int64_t *base)
{
    CS_ASSERT(i >= 0 && i < cs_graph_n_local_runs(g));
    if (g->contiguous) {
        *first = g->id_lo;
        *count = g->n_local;
        *base = 0;
        return;
    }
    *first = g->lrun.start[i];
    *base = g->lbase[i];
    *count = g->lbase[i + 1] - g->lbase[i];
}

int cs_graph_owner(const cs_graph *g, int64_t page)
{
    CS_ASSERT(page >= 0 && page < g->n_pages);
    if (g->owner_fn != NULL)
        return g->owner_fn(g->owner_arg, page);
    if (g->orun.start != NULL) {
        const int64_t r = runs_find(&g->orun, page);
        return g->orun8 != NULL ? g->orun8[r] : g->orun16 != NULL ? g->orun16[r] : g->orun32[r];
    }
    if (g->owner8 != NULL)
        return g->owner8[page];
    if (g->owner16 != NULL)
        return g->owner16[page];
    if (g->owner32 != NULL)
        return g->owner32[page];
    /* Block: estimate from the mean block size, then step; balanced blocks need no step. */
    const int64_t *pf = g->part_first;
    int r = (int)((double)page / (double)g->n_pages * (double)g->k);
    r = r < 0 ? 0 : (r >= g->k ? g->k - 1 : r);
    while (r > 0 && pf[r] > page)
        r--;
    while (r < g->k - 1 && pf[r + 1] <= page)
        r++;
    return r;
}

const uint8_t *cs_graph_owner_map8(const cs_graph *g)
{
    return g->owner8;
}

void graph_free_index(cs_graph *g)
{
    runs_fini(&g->lrun);
    free(g->lbase);
    free(g->mine);
    free(g->below);
    free(g->part_first);
    runs_fini(&g->orun);
    free(g->orun8);
    free(g->orun16);
    free(g->orun32);
    free(g->owner8);
    free(g->owner16);
    free(g->owner32);
    g->lbase = NULL;
    g->mine = NULL;
    g->below = NULL;
    g->part_first = NULL;
    g->orun8 = NULL;
    g->orun16 = NULL;
    g->orun32 = NULL;
    g->owner8 = NULL;
    g->owner16 = NULL;
    g->owner32 = NULL;
}

/* ---- construction --------------------------------------------------------------------------- */

/* Local. The part of run i of the owner runs. */
static void set_run_part(cs_graph *g, int64_t i, int32_t r)
{
    if (g->orun8 != NULL)
        g->orun8[i] = (uint8_t)r;
    else if (g->orun16 != NULL)
        g->orun16[i] = (uint16_t)r;
    else
        g->orun32[i] = r;
}

/* Local. The owner runs (R of them, N >= 1 pages, counted by the caller) of the partition's
 * runs, adjacent runs of one part merged, or of its part array: their starts, the part of each
 * in the narrowest type for k parts, and the index. */
static cs_err build_owner_runs(cs_ctx *ctx, cs_graph *g, const cs_partition *part, int64_t R)
{
    cs_err rc = CS_OK;
    const int64_t N = part->n_pages;
    const int32_t *pa = part->part, *rp = part->run_part;
    graph_runs *r = &g->orun;
    CS_TRY(ctx, cs_alloc(ctx, &r->start, (size_t)R + 1, sizeof *r->start, "owner runs"));
    if (part->k <= 256)
        CS_TRY(ctx, cs_alloc(ctx, &g->orun8, (size_t)R, 1, "owner runs"));
    else if (part->k <= 65536)
        CS_TRY(ctx, cs_alloc(ctx, &g->orun16, (size_t)R, 2, "owner runs"));
    else
        CS_TRY(ctx, cs_alloc(ctx, &g->orun32, (size_t)R, 4, "owner runs"));
    int64_t i = 0;
    if (part->run_first != NULL) {
        for (int64_t j = 0; j < part->n_runs; j++) {
            if (j > 0 && rp[j] == rp[j - 1])
                continue;
            r->start[i] = part->run_first[j];
            set_run_part(g, i++, rp[j]);
        }
    } else {
        for (int64_t p = 0; p < N; p++) {
            if (p > 0 && pa[p] == pa[p - 1])
                continue;
            r->start[i] = p;
            set_run_part(g, i++, pa[p]);
        }
    }
    CS_ASSERT(i == R);
    r->start[R] = N;
    r->n = R;
    CS_TRY(ctx, runs_index(ctx, r));
fail:
    return rc;
}

/* Local. The owner map (one part per page, narrow) of the partition's part array or runs. */
static cs_err build_owner_map(cs_ctx *ctx, cs_graph *g, const cs_partition *part)
{
    cs_err rc = CS_OK;
    const int64_t n = part->n_pages;
    const int32_t *pa = part->part;
    void *map = NULL;
    const size_t width = part->k <= 255 ? 1 : part->k <= 65535 ? 2 : 4;
    CS_TRY(ctx, cs_alloc(ctx, &map, (size_t)n + 1, width, "owner map"));
    if (width == 1)
        g->owner8 = map;
    else if (width == 2)
        g->owner16 = map;
    else
        g->owner32 = map;
    uint8_t *o8 = g->owner8;
    uint16_t *o16 = g->owner16;
    int32_t *o32 = g->owner32;
    if (pa == NULL) { /* from the runs */
        for (int64_t j = 0; j < part->n_runs; j++)
            for (int64_t p = part->run_first[j]; p < part->run_first[j + 1]; p++) {
                if (o8 != NULL)
                    o8[p] = (uint8_t)part->run_part[j];
                else if (o16 != NULL)
                    o16[p] = (uint16_t)part->run_part[j];
                else
                    o32[p] = part->run_part[j];
            }
    } else if (o8 != NULL) {
#pragma omp parallel for default(none) shared(o8, pa, n) schedule(static)
        for (int64_t p = 0; p < n; p++)
            o8[p] = (uint8_t)pa[p];
    } else if (o16 != NULL) {
#pragma omp parallel for default(none) shared(o16, pa, n) schedule(static)
        for (int64_t p = 0; p < n; p++)
            o16[p] = (uint16_t)pa[p];
    } else {
        memcpy(o32, pa, (size_t)n * 4);
    }
fail:
    return rc;
}

cs_err graph_build_owner(cs_ctx *ctx, cs_graph *g, const cs_partition *part)
{
    cs_err rc = CS_OK;
    const int64_t n = part->n_pages;
    const int32_t *pa = part->part, *rp = part->run_part;
    if (part->part_first != NULL) {
        CS_TRY(ctx, cs_alloc(ctx, &g->part_first, (size_t)part->k + 1, sizeof *g->part_first,
                             "block range table"));
        memcpy(g->part_first, part->part_first, ((size_t)part->k + 1) * sizeof *g->part_first);
        return CS_OK;
    }
    /* runs or a part per page, whichever is smaller */
    const int64_t width = part->k <= 256 ? 1 : part->k <= 65536 ? 2 : 4;
    int64_t R = 0;
    if (part->run_first != NULL) {
        for (int64_t j = 0; j < part->n_runs; j++)
            R += j == 0 || rp[j] != rp[j - 1];
    } else {
#pragma omp parallel for default(none) shared(pa, n) reduction(+ : R) schedule(static)
        for (int64_t p = 0; p < n; p++)
            R += p == 0 || pa[p] != pa[p - 1];
    }
    const int form = forced_form();
    if (n > 0 && R <= INT32_MAX && form != 2 && (form == 1 || runs_bytes(R, width) < width * n))
        return build_owner_runs(ctx, g, part, R);
    CS_TRY(ctx, build_owner_map(ctx, g, part));
fail:
    return rc;
}

/* Local. The local runs of g->ids (LR maximal runs of consecutive ids, counted by the
 * caller): their starts, the local index of each run's first page, the index. */
static cs_err build_local_runs(cs_ctx *ctx, cs_graph *g, int64_t LR)
{
    cs_err rc = CS_OK;
    graph_runs *r = &g->lrun;
    const int64_t *ids = g->ids, n = g->n_local;
    CS_TRY(ctx, cs_alloc(ctx, &r->start, (size_t)LR + 1, sizeof *r->start, "local runs"));
    CS_TRY(ctx, cs_alloc(ctx, &g->lbase, (size_t)LR + 1, sizeof *g->lbase, "local runs"));
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0 && ids[i] == ids[i - 1] + 1)
            continue;
        r->start[j] = ids[i];
        g->lbase[j++] = (int32_t)i;
    }
    CS_ASSERT(j == LR);
    r->start[LR] = ids[n - 1] + 1;
    g->lbase[LR] = (int32_t)n;
    r->n = LR;
    CS_TRY(ctx, runs_index(ctx, r));
fail:
    return rc;
}

cs_err graph_build_local(cs_ctx *ctx, cs_graph *g, const cs_partition *part)
{
    cs_err rc = CS_OK;
    const int64_t n = part->n_pages, *rf = part->run_first;
    const int32_t *pa = part->part, *rp = part->run_part;
    const int32_t me = (int32_t)ctx->rank;
    int64_t cnt = 0;
    if (part->part_first != NULL) {
        cnt = part->part_first[me + 1] - part->part_first[me];
    } else if (rf != NULL) {
        for (int64_t j = 0; j < part->n_runs; j++)
            cnt += rp[j] == me ? rf[j + 1] - rf[j] : 0;
    } else {
#pragma omp parallel for default(none) shared(pa, n, me) reduction(+ : cnt) schedule(static)
        for (int64_t p = 0; p < n; p++)
            cnt += pa[p] == me;
    }
    if (cnt >= INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "rank %d owns %lld pages: at most %d are supported",
                       ctx->rank, (long long)cnt, INT32_MAX - 1);
    CS_TRY(ctx, cs_alloc(ctx, &g->ids, (size_t)cnt + 1, sizeof *g->ids, "local page ids"));
    if (part->part_first != NULL) {
        for (int64_t i = 0; i < cnt; i++)
            g->ids[i] = part->part_first[me] + i;
    } else if (rf != NULL) {
        int64_t i = 0;
        for (int64_t j = 0; j < part->n_runs; j++)
            for (int64_t p = rf[j]; rp[j] == me && p < rf[j + 1]; p++)
                g->ids[i++] = p;
    } else {
        int64_t i = 0;
        for (int64_t p = 0; p < n; p++)
            if (pa[p] == me)
                g->ids[i++] = p;
    }
    g->n_local = cnt;
    g->id_lo = cnt > 0 ? g->ids[0] : 0;
    g->id_hi = cnt > 0 ? g->ids[cnt - 1] : -1;
    g->contiguous = cnt == 0 || g->ids[cnt - 1] - g->ids[0] == cnt - 1;
    if (g->contiguous)
        return CS_OK;
    int64_t LR = 0;
    for (int64_t i = 0; i < cnt; i++)
        LR += i == 0 || g->ids[i] != g->ids[i - 1] + 1;
    const int64_t words = (n >> 6) + 1;
    const int form = forced_form();
    if (form != 2 && (form == 1 || runs_bytes(LR, 4) < 12 * words))
        return build_local_runs(ctx, g, LR);
    CS_TRY(ctx, cs_calloc(ctx, &g->mine, (size_t)words, sizeof *g->mine, "local index"));
    CS_TRY(ctx, cs_alloc(ctx, &g->below, (size_t)words, sizeof *g->below, "local index"));
    for (int64_t i = 0; i < cnt; i++)
        g->mine[g->ids[i] >> 6] |= (uint64_t)1 << (g->ids[i] & 63);
    int32_t c = 0;
    for (int64_t w = 0; w < words; w++) {
        g->below[w] = c;
        c += (int32_t)cs_popcount64(g->mine[w]);
    }
fail:
    return rc;
}

cs_err graph_runs_index(cs_ctx *ctx, graph_runs *r)
{
    return runs_index(ctx, r);
}
