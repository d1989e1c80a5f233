/*
 * stats_graph: the figures of the whole graph's structure, on the graph gathered on every rank
 * (st_graph): the bow-tie of Broder et al. 2000 around the largest strongly connected component
 * (Kosaraju's two depth-first passes, iterative), directed distances from sources drawn in the
 * largest SCC (the 90 % effective diameter as in Leskovec et al. 2005, interpolated; its interval
 * by a bootstrap over the sources), the average clustering coefficient of sampled pages (Watts &
 * Strogatz 1998, on the undirected simple graph) and the discovery crawls (stats_crawl.c) from
 * seeds in the largest SCC.
 *
 * Sampled items (sources, pages, seeds) are dealt to the ranks by index (item i to rank i mod
 * P) and to a rank's threads dynamically; each item's result lands in its own row of an array
 * that is zero elsewhere, so the sum over ranks (an allreduce) is exact and every figure is then
 * computed from the rows in item order: the same on any rank and thread count.
 */
#include "stats_impl.h"

#include "crawlsim/comm.h"
#include "crawlsim/rng.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- strongly connected components -------------------------------------------------------- */

/*
 * Local. comp[u] = the component of u (numbered in Kosaraju's second pass); *big = the largest
 * component (the first numbered among equals), *big_size its pages. Pass 1: depth-first over
 * the out-links, pages in finishing order; pass 2: over the in-links from the pages in reverse
 * finishing order, each tree a component.
 */
static cs_err scc(cs_ctx *ctx, const st_graph *g, int32_t *comp, int32_t *big, int64_t *big_size)
{
    cs_err rc = CS_OK;
    const int64_t N = g->N;
    int32_t *order = NULL, *stack = NULL;
    int64_t *edge = NULL;
    rc = cs_alloc(ctx, &order, (size_t)N + 1, sizeof *order, "finishing order");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &stack, (size_t)N + 1, sizeof *stack, "search stack");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &edge, (size_t)N + 1, sizeof *edge, "search stack");
    if (rc != CS_OK)
        goto fail;
    for (int64_t u = 0; u < N; u++)
        comp[u] = -1; /* -1 unvisited, -2 visited by pass 1 */
    int64_t nord = 0;
    for (int64_t r = 0; r < N; r++) {
        if (comp[r] != -1)
            continue;
        int64_t sp = 0;
        stack[sp] = (int32_t)r;
        edge[sp++] = g->off[r];
        comp[r] = -2;
        while (sp > 0) {
            const int32_t u = stack[sp - 1];
            if (edge[sp - 1] < g->off[u + 1]) {
                const int32_t v = g->tg[edge[sp - 1]++];
                if (comp[v] == -1) {
                    comp[v] = -2;
                    stack[sp] = v;
                    edge[sp++] = g->off[v];
                }
            } else {
                order[nord++] = u;
                sp--;
            }
        }
    }
    int32_t nc = 0;
    *big = -1;
    *big_size = 0;
    for (int64_t k = N - 1; k >= 0; k--) {
        const int32_t r = order[k];
        if (comp[r] >= 0)
            continue;
        int64_t sp = 0, size = 0;
        stack[sp++] = r;
        comp[r] = nc;
        while (sp > 0) {
            const int32_t u = stack[--sp];
            size++;
            for (int64_t e = g->ioff[u]; e < g->ioff[u + 1]; e++) {
                const int32_t v = g->isrc[e];
                if (comp[v] < 0) {
                    comp[v] = nc;
                    stack[sp++] = v;
                }
            }
        }
        if (size > *big_size) {
            *big_size = size;
            *big = nc;
        }
        nc++;
    }
fail:
    free(edge);
    free(stack);
    free(order);
    return rc;
}

/* Local. Marks with bit `bit` of mark every page reachable from the pages marked `from` in comp
 * (comp[u] == c) along off/tg (out-links, or in-links when given the transpose). */
static void reach_from(int64_t N, const int64_t *off, const int32_t *tg, const int32_t *comp,
                       int32_t c, uint8_t *mark, uint8_t bit, int32_t *queue)
{
    int64_t head = 0, tail = 0;
    for (int64_t u = 0; u < N; u++)
        if (comp[u] == c) {
            mark[u] |= bit;
            queue[tail++] = (int32_t)u;
        }
    while (head < tail) {
        const int32_t u = queue[head++];
        for (int64_t e = off[u]; e < off[u + 1]; e++) {
            const int32_t v = tg[e];
            if (!(mark[v] & bit)) {
                mark[v] |= bit;
                queue[tail++] = v;
            }
        }
    }
}

/* Local. The bow-tie shares into s; comp and big from scc(). */
static cs_err bowtie(cs_ctx *ctx, const st_graph *g, const int32_t *comp, int32_t big, cs_stats *s)
{
    const int64_t N = g->N;
    uint8_t *mark = NULL;
    int32_t *queue = NULL;
    cs_err rc = cs_calloc(ctx, &mark, (size_t)N + 1, sizeof *mark, "bow-tie marks");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &queue, (size_t)N + 1, sizeof *queue, "bow-tie queue");
    if (rc == CS_OK) {
        reach_from(N, g->off, g->tg, comp, big, mark, 1, queue);
        reach_from(N, g->ioff, g->isrc, comp, big, mark, 2, queue);
        int64_t c[4] = {0, 0, 0, 0}; /* scc, in, out, rest */
        for (int64_t u = 0; u < N; u++)
            c[comp[u] == big ? 0 : mark[u] == 2 ? 1 : mark[u] == 1 ? 2 : 3]++;
        s->shape.scc = st_exact((double)c[0] / (double)N);
        s->shape.in = st_exact((double)c[1] / (double)N);
        s->shape.out = st_exact((double)c[2] / (double)N);
        s->shape.rest = st_exact((double)c[3] / (double)N);
    }
    free(queue);
    free(mark);
    return rc;
}

/* ---- distances ------------------------------------------------------------------------------ */

/* Direction-optimising search (Beamer, Asanovic & Patterson, SC 2012): a level is expanded
 * bottom-up (every unseen page looks for a parent in the frontier among its in-links) when the
 * frontier's out-links exceed the unexplored pages' out-links / BEAMER_ALPHA, and top-down again
 * when the frontier falls below N / BEAMER_BETA pages. Both give the same levels. */
#define BEAMER_ALPHA 14
#define BEAMER_BETA 24

#define BIT(b, v) ((b)[(v) >> 6] & ((uint64_t)1 << ((v)&63)))
#define SET(b, v) ((b)[(v) >> 6] |= (uint64_t)1 << ((v)&63))

/* Local. Pages queue[from, to) into the bitmap front (cleared first: N / 64 + 1 words). */
static void frontier_bits(int64_t N, const int32_t *queue, int64_t from, int64_t to,
                          uint64_t *front)
{
    memset(front, 0, (size_t)(N / 64 + 1) * sizeof *front);
    for (int64_t k = from; k < to; k++)
        SET(front, queue[k]);
}

/* Local. Breadth-first distances from src: hist[d] += pages at distance d (d >= 1, capped at
 * ST_DMAX). seen: a bit per page, all 0 on entry (cleared on return); front: a bit per page of
 * scratch; queue: N entries, one level after the other. */
static void bfs_hist(const st_graph *g, int32_t src, uint64_t *seen, uint64_t *front,
                     int32_t *queue, int64_t *hist)
{
    const int64_t N = g->N;
    int64_t head = 0, tail = 0, d = 0, unexplored = g->M, mf = 0;
    int bottom_up = 0;
    SET(seen, src);
    queue[tail++] = src;
    while (head < tail) {
        const int64_t end = tail;
        d++;
        mf = 0;
        for (int64_t k = head; k < end; k++)
            mf += g->off[queue[k] + 1] - g->off[queue[k]];
        unexplored -= mf;
        if (!bottom_up && mf > unexplored / BEAMER_ALPHA)
            bottom_up = 1;
        else if (bottom_up && end - head < N / BEAMER_BETA)
            bottom_up = 0;
        if (bottom_up) {
            frontier_bits(N, queue, head, end, front);
            for (int64_t v = 0; v < N; v++) {
                if (seen[v >> 6] == ~(uint64_t)0) {
                    v |= 63; /* a word of seen pages */
                    continue;
                }
                if (BIT(seen, v))
                    continue;
                for (int64_t e = g->ioff[v]; e < g->ioff[v + 1]; e++)
                    if (BIT(front, g->isrc[e])) {
                        SET(seen, v);
                        queue[tail++] = (int32_t)v;
                        break;
                    }
            }
            head = end;
        } else {
            for (; head < end; head++) {
                const int32_t u = queue[head];
                for (int64_t e = g->off[u]; e < g->off[u + 1]; e++) {
                    const int32_t v = g->tg[e];
                    if (!BIT(seen, v)) {
                        SET(seen, v);
                        queue[tail++] = v;
                    }
                }
            }
        }
        hist[d < ST_DMAX ? d : ST_DMAX] += tail - end;
    }
    for (int64_t k = 0; k < tail; k++)
        seen[queue[k] >> 6] = 0;
}

/* Local. The distance within which share q of the pairs of the pooled histogram h[1..dmax]
 * lie, interpolated linearly between integer distances (NaN without pairs). */
static double effective(const int64_t *h, int64_t dmax, double q)
{
    int64_t total = 0;
    for (int64_t d = 1; d <= dmax; d++)
        total += h[d];
    if (total == 0)
        return (double)NAN;
    const double want = q * (double)total;
    int64_t cum = 0;
    for (int64_t d = 1; d <= dmax; d++) {
        if ((double)(cum + h[d]) >= want)
            return (double)(d - 1) + (want - (double)cum) / (double)h[d];
        cum += h[d];
    }
    return (double)dmax;
}

static int cmp_f64(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define BOOT 200 /* bootstrap resamples of the effective diameter */

/* Local. Mean distance (ratio over sources, delta method), reach and the effective diameter with
 * its bootstrap interval, from the per-source histograms hist[S][ST_DMAX + 1]. */
static cs_err distance_figures(cs_ctx *ctx, const st_graph *g, const cs_stats_opts *o,
                               const int64_t *hist, cs_stats *s)
{
    const int64_t S = o->sources, W = ST_DMAX + 1;
    double *D = NULL, *R = NULL, *boot = NULL;
    int64_t *pool = NULL, dmax = 0;
    cs_err rc = cs_alloc(ctx, &D, (size_t)S, sizeof *D, "distance sums");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &R, (size_t)S, sizeof *R, "reached pages");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &boot, BOOT, sizeof *boot, "bootstrap");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &pool, (size_t)W, sizeof *pool, "distance histogram");
    if (rc != CS_OK)
        goto fail;
    for (int64_t i = 0; i < S; i++) {
        const int64_t *h = hist + i * W;
        D[i] = R[i] = 0.0;
        for (int64_t d = 1; d < W; d++) {
            D[i] += (double)d * (double)h[d];
            R[i] += (double)h[d];
            pool[d] += h[d];
            dmax = h[d] > 0 && d > dmax ? d : dmax;
        }
    }
    s->shape.dist_mean = st_ratio(D, R, S);
    for (int64_t i = 0; i < S; i++)
        R[i] /= (double)(g->N > 1 ? g->N - 1 : 1);
    s->shape.reach = st_mean(R, S);
    const double eff = effective(pool, dmax, 0.9);
    if (!isnan(eff)) {
        for (int b = 0; b < BOOT; b++) {
            memset(pool, 0, (size_t)W * sizeof *pool);
            cs_rng r;
            cs_rng_init(&r, o->seed, CS_RNG_SAMPLE, ST_RNG_BOOT, (uint64_t)b);
            for (int64_t k = 0; k < S; k++) {
                const int64_t *h = hist + (int64_t)cs_rng_below(&r, (uint64_t)S) * W;
                for (int64_t d = 1; d <= dmax; d++)
                    pool[d] += h[d];
            }
            boot[b] = effective(pool, dmax, 0.9);
        }
        int nb = 0;
        for (int b = 0; b < BOOT; b++)
            if (!isnan(boot[b]))
                boot[nb++] = boot[b];
        qsort(boot, (size_t)nb, sizeof *boot, cmp_f64);
        cs_stats_est e = {eff, boot[nb * 25 / 1000], boot[(nb * 975 - 1) / 1000], S};
        s->shape.dist_eff90 = e;
    }
fail:
    free(pool);
    free(boot);
    free(R);
    free(D);
    return rc;
}

/* ---- clustering ----------------------------------------------------------------------------- */

/* The undirected neighbours of a page: the union of its out- and in-lists (both sorted),
 * without the page, each once; visited through a merge. */
typedef struct nb_iter {
    const st_graph *g;
    int64_t a, ae, b, be;
    int32_t self;
} nb_iter;

static void nb_begin(nb_iter *it, const st_graph *g, int32_t u)
{
    it->g = g;
    it->a = g->off[u];
    it->ae = g->off[u + 1];
    it->b = g->ioff[u];
    it->be = g->ioff[u + 1];
    it->self = u;
}

/* Local. The next neighbour into *w; 0 when there is none left. */
static int nb_next(nb_iter *it, int32_t *w)
{
    const int32_t *tg = it->g->tg, *is = it->g->isrc;
    while (it->a < it->ae || it->b < it->be) {
        int32_t x;
        if (it->b >= it->be || (it->a < it->ae && tg[it->a] < is[it->b]))
            x = tg[it->a++];
        else if (it->a >= it->ae || is[it->b] < tg[it->a])
            x = is[it->b++];
        else {
            x = tg[it->a++];
            it->b++;
        }
        if (x != it->self) {
            *w = x;
            return 1;
        }
    }
    return 0;
}

/* A neighbour whose lists are this many times longer than u's neighbourhood is searched by
 * bisection for each of u's neighbours instead of being scanned (hubs of 10^4-10^5 links). */
#define SCAN_RATIO 8

/* Local. The local clustering coefficient of u: links among its neighbours over d (d - 1) / 2
 * (0 below two neighbours). mark: N entries of scratch, stamp: a value no entry holds yet;
 * nb: N entries of scratch (u's neighbours). */
static double clustering_of(const st_graph *g, int32_t u, int64_t *mark, int64_t stamp, int32_t *nb)
{
    int64_t d = 0, links = 0;
    nb_iter iu, iv;
    int32_t v, w;
    nb_begin(&iu, g, u);
    while (nb_next(&iu, &v)) {
        mark[v] = stamp;
        nb[d++] = v;
    }
    if (d < 2)
        return 0.0;
    for (int64_t i = 0; i < d; i++) {
        v = nb[i];
        const int64_t no = g->off[v + 1] - g->off[v], ni = g->ioff[v + 1] - g->ioff[v];
        if (no + ni <= SCAN_RATIO * d) {
            nb_begin(&iv, g, v);
            while (nb_next(&iv, &w))
                links += mark[w] == stamp;
        } else {
            for (int64_t j = 0; j < d; j++)
                links += nb[j] != v && (st_holds32(g->tg + g->off[v], no, nb[j]) ||
                                        st_holds32(g->isrc + g->ioff[v], ni, nb[j]));
        }
    }
    /* each link among the neighbours is seen from both of its ends */
    return (double)links / ((double)d * (double)(d - 1));
}

/* Local. The share of v's out-links that u links to as well, for link e = u->v (NaN when v has
 * none: no share). mark: N entries of scratch, stamp: a value no entry holds yet. */
static double overlap_of(const st_graph *g, int64_t e, int64_t *mark, int64_t stamp)
{
    int64_t lo = 0, hi = g->N; /* u: the page whose range holds e, off[u] <= e < off[u + 1] */
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (g->off[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    const int32_t v = g->tg[e];
    const int64_t nv = g->off[v + 1] - g->off[v];
    if (nv == 0)
        return (double)NAN;
    for (int64_t j = g->off[lo]; j < g->off[lo + 1]; j++)
        mark[g->tg[j]] = stamp;
    int64_t both = 0;
    for (int64_t j = g->off[v]; j < g->off[v + 1]; j++)
        both += mark[g->tg[j]] == stamp;
    return (double)both / (double)nv;
}

/* ---- discovery seeds ------------------------------------------------------------------------ */

/* Local. Item k of kind id (a distance source or a discovery seed): the first page drawn in its
 * stream (seed, CS_RNG_SAMPLE, id, k) that lies in the largest component (any page drawn when
 * none does within 10^6 draws, or the component is one page). */
static int32_t core_page(const st_graph *g, uint64_t seed, int id, int64_t k, const int32_t *comp,
                         int32_t big, int64_t big_size)
{
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_SAMPLE, (uint64_t)id, (uint64_t)k);
    int64_t u = (int64_t)cs_rng_below(&r, (uint64_t)g->N);
    for (int t = 0; t < 1000000 && big_size > 1 && comp[u] != big; t++)
        u = (int64_t)cs_rng_below(&r, (uint64_t)g->N);
    return (int32_t)u;
}

/* ---- the sampled items, in parallel --------------------------------------------------------- */

/* Item kinds of one pass: distance sources, clustering pages, discovery crawls (ST_ORDERS
 * orders of nb seeds each: crawl j is order j / nb from seed j % nb; an order not in `orders`
 * is skipped). */
typedef struct items {
    int64_t ns, nc, nb;
    unsigned orders;
    int32_t *src, *cpage, *seed;
    int64_t *hist;  /* ns rows of ST_DMAX + 1 */
    double *cval;   /* nc */
    int64_t *olink; /* nc links of the link overlap (none in a graph without links) */
    double *oval;   /* nc: their shares (NaN: a target without out-links) */
    double *brow;   /* ST_ORDERS * nb rows of ST_SEED_ROW */
    uint64_t rseed;
} items;

/* Local. Whether order j (ST_ORDER_*) is one of the bits of `orders`. */
static int order_on(unsigned orders, int j)
{
    return (orders >> j) & 1u;
}

/* Local. Item i >= ns + nc of it: the discovery crawl it names. */
static void crawl_item(const st_graph *g, const items *it, int64_t i, st_crawl_scratch *w)
{
    const int64_t j = i - it->ns - it->nc, b = j % it->nb;
    const int order = (int)(j / it->nb);
    if (order_on(it->orders, order))
        st_crawl(g, order, it->seed[b], it->rseed, b, w, it->brow + j * ST_SEED_ROW);
}

/* Local. This rank's items (item i of the concatenated kinds for i mod P == rank), its threads
 * taking them dynamically; per-thread scratch of N entries. */
static cs_err run_items(cs_ctx *ctx, const st_graph *g, items *it)
{
    const int64_t N = g->N, total = it->ns + it->nc + ST_ORDERS * it->nb;
    const int P = ctx->size, me = ctx->rank;
    const int pool = (it->orders & ~CS_STATS_ORDER_BFS) != 0 && it->nb > 0;
    const int indeg = (it->orders & CS_STATS_ORDER_INDEG) != 0 && it->nb > 0;
    int rc = CS_OK;
#pragma omp parallel default(none) shared(g, it, rc) firstprivate(N, total, P, me, pool, indeg)
    {
        uint64_t *seen = calloc((size_t)(N / 64 + 1), sizeof *seen);
        uint64_t *front = calloc((size_t)(N / 64 + 1), sizeof *front);
        int32_t *queue = malloc((size_t)(N + 1) * sizeof *queue);
        int64_t *mark = malloc((size_t)(N + 1) * sizeof *mark);
        st_crawl_scratch w = {calloc((size_t)N + 1, 1), queue, NULL, NULL, NULL};
        if (pool)
            w.heap = malloc((size_t)(N + 1) * sizeof *w.heap);
        if (indeg) {
            w.pos = malloc((size_t)(N + 1) * sizeof *w.pos);
            w.cnt = malloc((size_t)(N + 1) * sizeof *w.cnt);
        }
        if (seen == NULL || front == NULL || queue == NULL || mark == NULL || w.known == NULL ||
            (pool && w.heap == NULL) || (indeg && (w.pos == NULL || w.cnt == NULL))) {
#pragma omp atomic write
            rc = CS_ERR_NOMEM;
        } else {
            for (int64_t u = 0; u < N; u++)
                mark[u] = -1;
        }
        /* every thread reaches the loop; none works when one lacks its scratch */
#pragma omp barrier
        int go;
#pragma omp atomic read
        go = rc;
        go = go == CS_OK;
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = me; i < total; i += P) {
            if (!go)
                continue;
            if (i < it->ns)
                bfs_hist(g, it->src[i], seen, front, queue, it->hist + i * (ST_DMAX + 1));
            else if (i < it->ns + it->nc) {
                const int64_t k = i - it->ns;
                it->cval[k] = clustering_of(g, it->cpage[k], mark, k, queue);
                /* the stamps after the clustering's: nc + k */
                it->oval[k] = g->M > 0 ? overlap_of(g, it->olink[k], mark, it->nc + k) : 0.0;
            } else
                crawl_item(g, it, i, &w);
        }
        free(w.cnt);
        free(w.pos);
        free(w.heap);
        free(w.known);
        free(mark);
        free(queue);
        free(front);
        free(seen);
    }
    if (rc != CS_OK)
        return cs_fail(ctx, CS_ERR_NOMEM,
                       "stats: out of memory for the threads' scratch (%lld "
                       "pages, 13 bytes a page a thread, 25 with the in-degree-first order)",
                       (long long)N);
    return CS_OK;
}

/* Local. The mean over the seeds b < nb of num_b / den_b (the seeds with den_b > 0), with the
 * range over them; num a column of rows[nb][ST_SEED_ROW], den_b the sum of its columns den and,
 * when plus > 0, den + plus; den < 0: den_b = 1 (the mean of column num over every seed). */
static cs_stats_est seed_ratio(const double *rows, int64_t nb, int num, int den, int plus)
{
    double sum = 0.0, lo = HUGE_VAL, hi = -HUGE_VAL;
    int64_t n = 0;
    for (int64_t b = 0; b < nb; b++) {
        const double *x = rows + b * ST_SEED_ROW;
        const double d = den < 0 ? 1.0 : x[den] + (plus > 0 ? x[den + plus] : 0.0);
        if (!(d > 0.0))
            continue;
        const double v = x[num] / d;
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        n++;
    }
    if (n == 0)
        return st_none();
    cs_stats_est e = {sum / (double)n, lo, hi, n};
    return e;
}

/* Local. The figures of one order's crawls from rows[nb][ST_SEED_ROW] into d. */
static void discovery_figures(const items *it, const double *rows, cs_stats_bfs *d)
{
    d->known1 = seed_ratio(rows, it->nb, 0, -1, 0);
    d->known10 = seed_ratio(rows, it->nb, 1, -1, 0);
    d->empty10 = seed_ratio(rows, it->nb, 2, -1, 0);
    /* the first 1 % fetches: [rich, their new pages, other, theirs] */
    d->rich1 = seed_ratio(rows, it->nb, ST_ROW_RICH, ST_ROW_RICH, 2);
    d->rich_new1 = seed_ratio(rows, it->nb, ST_ROW_RICH + 1, ST_ROW_RICH, 0);
    d->other_new1 = seed_ratio(rows, it->nb, ST_ROW_RICH + 3, ST_ROW_RICH + 2, 0);
    /* by in-degree class: a share of all the first 1 % fetches (rich and other together) */
    for (int c = 0; c < CS_STATS_IN_CLASSES; c++) {
        d->by_in[c] = seed_ratio(rows, it->nb, ST_ROW_IN + 2 * c, ST_ROW_RICH, 2);
        d->by_in_new[c] = seed_ratio(rows, it->nb, ST_ROW_IN + 2 * c + 1, ST_ROW_IN + 2 * c, 0);
    }
    d->seeds = (int)it->nb;
    for (int64_t b = 0; b < it->nb; b++) {
        d->seed_page[b] = it->seed[b];
        d->fetched[b] = (int64_t)rows[b * ST_SEED_ROW + 3];
        for (int k = 0; k < CS_STATS_CURVE; k++)
            d->curve[b][k] = rows[b * ST_SEED_ROW + 4 + k];
    }
}

/* Local. The figures of every order crawled. */
static void discovery_orders(const items *it, cs_stats *s)
{
    cs_stats_bfs *d[ST_ORDERS] = {&s->bfs, &s->indeg, &s->rnd};
    for (int j = 0; j < ST_ORDERS; j++)
        if (it->nb > 0 && order_on(it->orders, j))
            discovery_figures(it, it->brow + j * it->nb * ST_SEED_ROW, d[j]);
}

cs_err st_shape(cs_ctx *ctx, const st_graph *g, const cs_stats_opts *o, cs_stats *s)
{
    cs_err rc = CS_OK;
    int32_t *comp = NULL, big = -1;
    int64_t big_size = 0;
    items it;
    memset(&it, 0, sizeof it);
    if (g->N == 0)
        return CS_OK;
    it.ns = o->sources;
    it.nc = o->cluster_pages;
    it.nb = o->bfs_seeds;
    it.orders = o->orders;
    it.rseed = o->seed;
    rc = cs_alloc(ctx, &comp, (size_t)g->N, sizeof *comp, "components");
    if (rc == CS_OK)
        rc = scc(ctx, g, comp, &big, &big_size);
    if (rc == CS_OK)
        rc = bowtie(ctx, g, comp, big, s);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &it.src, (size_t)it.ns + 1, sizeof *it.src, "sources");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &it.cpage, (size_t)it.nc + 1, sizeof *it.cpage, "clustering pages");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &it.seed, (size_t)it.nb + 1, sizeof *it.seed, "seeds");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &it.hist, (size_t)(it.ns * (ST_DMAX + 1)) + 1, sizeof *it.hist,
                       "distance histograms");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &it.cval, (size_t)it.nc + 1, sizeof *it.cval, "clustering");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &it.olink, (size_t)it.nc + 1, sizeof *it.olink, "overlap links");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &it.oval, (size_t)it.nc + 1, sizeof *it.oval, "overlap");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &it.brow, (size_t)(ST_ORDERS * it.nb * ST_SEED_ROW) + 1,
                       sizeof *it.brow, "discovery");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t i = 0; i < it.ns; i++)
        it.src[i] = core_page(g, o->seed, ST_RNG_SOURCE, i, comp, big, big_size);
    for (int64_t i = 0; i < it.nc; i++)
        it.cpage[i] = (int32_t)st_draw(o->seed, ST_RNG_CLUSTER, i, g->N);
    for (int64_t i = 0; g->M > 0 && i < it.nc; i++)
        it.olink[i] = st_draw(o->seed, ST_RNG_OVERLAP, i, g->M);
    for (int b = 0; b < it.nb; b++)
        it.seed[b] = core_page(g, o->seed, ST_RNG_SEED, b, comp, big, big_size);
    free(comp);
    comp = NULL;
    CS_TRY_AGREE(ctx, run_items(ctx, g, &it));
    /* every row was filled by one rank and is zero on the others: exact sums */
    cs_allreduce(ctx, NULL, it.hist, it.ns * (ST_DMAX + 1), CS_T_I64, CS_OP_SUM);
    cs_allreduce(ctx, NULL, it.cval, it.nc, CS_T_F64, CS_OP_SUM);
    cs_allreduce(ctx, NULL, it.oval, it.nc, CS_T_F64, CS_OP_SUM);
    cs_allreduce(ctx, NULL, it.brow, ST_ORDERS * it.nb * ST_SEED_ROW, CS_T_F64, CS_OP_SUM);
    s->shape.clustering = st_mean(it.cval, it.nc);
    s->shape.overlap = g->M > 0 ? st_mean_defined(it.oval, it.nc) : st_none();
    CS_TRY_AGREE(ctx, distance_figures(ctx, g, o, it.hist, s));
    discovery_orders(&it, s);
fail:
    free(it.brow);
    free(it.oval);
    free(it.olink);
    free(it.cval);
    free(it.hist);
    free(it.seed);
    free(it.cpage);
    free(it.src);
    free(comp);
    return rc;
}
