/*
 * stats_crawl: the discovery crawls of the whole-graph statistics, from one seed page in one
 * order: breadth-first, in-degree first (the known unfetched page with the most links from the
 * pages fetched so far, the smallest page id among equals: an indexed binary max-heap whose keys
 * only grow) and random (uniform among the known unfetched pages: a pool with swap removal, the
 * draws from a stream keyed by the sampling seed and the seed's index). A crawl fetches until no
 * known page is left unfetched. Of its first 1 % fetches it counts those at link-rich pages
 * (out.rich out-links or more) and the others, and those by the fetched page's in-degree class,
 * and the pages each kind made known: what the order fetched early and what that taught it. Each is
 * a pure function of the gathered graph, the seed page and (sampling seed, seed index), so it gives
 * the same row on any rank and thread.
 */
#include "stats_impl.h"

#include "crawlsim/rng.h"

#include <math.h>
#include <string.h>

int64_t st_curve_fetches(int64_t N, int k)
{
    const double x = pow(10.0, -4.0 + (double)k / 10.0) * (double)N;
    const int64_t f = (int64_t)llround(x);
    return f < 1 ? 1 : f;
}

/* The figures of a crawl as it goes: row as ST_SEED_ROW. */
typedef struct recorder {
    int64_t N, f1, f10, nknown, empty, fetched, rich;
    int k;
    double *row;
} recorder;

static void rec_init(recorder *r, int64_t N, int64_t rich, double *row)
{
    r->N = N;
    r->rich = rich;
    r->f1 = llround(0.01 * (double)N) > 0 ? llround(0.01 * (double)N) : 1;
    r->f10 = llround(0.1 * (double)N) > 0 ? llround(0.1 * (double)N) : 1;
    r->nknown = 1; /* the seed */
    r->empty = r->fetched = 0;
    r->k = 0;
    r->row = row;
}

/* Local. One fetch, of page u, that made `fresh` pages known. */
static void rec_fetch(recorder *r, const st_graph *g, int32_t u, int64_t fresh)
{
    const double N = (double)r->N;
    r->fetched++;
    r->nknown += fresh;
    if (r->fetched <= r->f1) {
        const int kind = g->off[u + 1] - g->off[u] >= r->rich ? 0 : 2;
        r->row[ST_ROW_RICH + kind] += 1.0;
        r->row[ST_ROW_RICH + kind + 1] += (double)fresh;
        const int64_t in = g->ioff[u + 1] - g->ioff[u];
        int c = CS_STATS_IN_CLASSES - 1;
        while (c > 0 && in < cs_stats_in_class_lo(c))
            c--;
        r->row[ST_ROW_IN + 2 * c] += 1.0;
        r->row[ST_ROW_IN + 2 * c + 1] += (double)fresh;
    }
    if (r->fetched <= r->f10)
        r->empty += fresh == 0;
    if (r->fetched == r->f1)
        r->row[0] = (double)r->nknown / N;
    if (r->fetched == r->f10)
        r->row[1] = (double)r->nknown / N;
    while (r->k < CS_STATS_CURVE && st_curve_fetches(r->N, r->k) == r->fetched)
        r->row[4 + r->k++] = (double)r->nknown / N;
}

/* Local. The crawl ran out of known pages: what is known stays for the points not reached. */
static void rec_end(recorder *r)
{
    const double known = (double)r->nknown / (double)r->N;
    if (r->fetched < r->f1)
        r->row[0] = known;
    if (r->fetched < r->f10)
        r->row[1] = known;
    for (; r->k < CS_STATS_CURVE; r->k++)
        r->row[4 + r->k] = known;
    r->row[2] = (double)r->empty / (double)(r->fetched < r->f10 ? r->fetched : r->f10);
    r->row[3] = (double)r->fetched;
}

/* Local. Breadth-first: the queue holds the known pages in the order they became known. */
static void crawl_bfs(const st_graph *g, int32_t seed, st_crawl_scratch *w, recorder *r)
{
    int64_t head = 0, tail = 0;
    w->known[seed] = 1;
    w->queue[tail++] = seed;
    while (head < tail) {
        const int32_t u = w->queue[head++];
        int64_t fresh = 0;
        for (int64_t e = g->off[u]; e < g->off[u + 1]; e++) {
            const int32_t v = g->tg[e];
            if (!w->known[v]) {
                w->known[v] = 1;
                w->queue[tail++] = v;
                fresh++;
            }
        }
        rec_fetch(r, g, u, fresh);
    }
    for (int64_t i = 0; i < tail; i++)
        w->known[w->queue[i]] = 0;
}

/* ---- in-degree first: an indexed max-heap of the known unfetched pages ---------------------- */

/* Local. Whether page a goes before page b: more links seen, then the smaller id. */
static inline int before(const int32_t *cnt, int32_t a, int32_t b)
{
    return cnt[a] > cnt[b] || (cnt[a] == cnt[b] && a < b);
}

static void heap_up(st_crawl_scratch *w, int64_t i)
{
    int32_t *h = w->heap, *pos = w->pos;
    const int32_t x = h[i];
    while (i > 0 && before(w->cnt, x, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        pos[h[i]] = (int32_t)i;
        i = (i - 1) / 2;
    }
    h[i] = x;
    pos[x] = (int32_t)i;
}

static void heap_down(st_crawl_scratch *w, int64_t n, int64_t i)
{
    int32_t *h = w->heap, *pos = w->pos;
    const int32_t x = h[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(w->cnt, h[c + 1], h[c]))
            c++;
        if (!before(w->cnt, h[c], x))
            break;
        h[i] = h[c];
        pos[h[i]] = (int32_t)i;
        i = c;
    }
    h[i] = x;
    pos[x] = (int32_t)i;
}

/* Local. known[v]: 1 known and unfetched (in the heap), 2 fetched. queue records every page made
 * known, to clear the scratch after. */
static void crawl_indeg(const st_graph *g, int32_t seed, st_crawl_scratch *w, recorder *r)
{
    int64_t n = 0, tail = 0;
    w->known[seed] = 1;
    w->cnt[seed] = 0;
    w->queue[tail++] = seed;
    w->heap[n++] = seed;
    w->pos[seed] = 0;
    while (n > 0) {
        const int32_t u = w->heap[0];
        w->heap[0] = w->heap[--n];
        if (n > 0)
            heap_down(w, n, 0);
        w->known[u] = 2;
        int64_t fresh = 0;
        for (int64_t e = g->off[u]; e < g->off[u + 1]; e++) {
            const int32_t v = g->tg[e];
            if (w->known[v] == 2)
                continue;
            if (w->known[v] == 0) {
                w->known[v] = 1;
                w->cnt[v] = 1;
                w->queue[tail++] = v;
                w->heap[n] = v;
                heap_up(w, n++);
                fresh++;
            } else {
                w->cnt[v]++;
                heap_up(w, w->pos[v]);
            }
        }
        rec_fetch(r, g, u, fresh);
    }
    for (int64_t i = 0; i < tail; i++)
        w->known[w->queue[i]] = 0;
}

/* Local. Random: pool[0, n) the known unfetched pages; the fetched page's slot takes the last
 * one. queue records every page made known, to clear known after. */
static void crawl_random(const st_graph *g, int32_t seed, cs_rng *rng, st_crawl_scratch *w,
                         recorder *r)
{
    int64_t n = 0, tail = 0;
    w->known[seed] = 1;
    w->queue[tail++] = seed;
    w->heap[n++] = seed;
    while (n > 0) {
        const int64_t i = (int64_t)cs_rng_below(rng, (uint64_t)n);
        const int32_t u = w->heap[i];
        w->heap[i] = w->heap[--n];
        int64_t fresh = 0;
        for (int64_t e = g->off[u]; e < g->off[u + 1]; e++) {
            const int32_t v = g->tg[e];
            if (!w->known[v]) {
                w->known[v] = 1;
                w->queue[tail++] = v;
                w->heap[n++] = v;
                fresh++;
            }
        }
        rec_fetch(r, g, u, fresh);
    }
    for (int64_t i = 0; i < tail; i++)
        w->known[w->queue[i]] = 0;
}

void st_crawl(const st_graph *g, int order, int32_t seed, uint64_t rseed, int64_t index,
              st_crawl_scratch *w, double *row)
{
    recorder r;
    rec_init(&r, g->N, g->rich, row);
    if (order == ST_ORDER_BFS) {
        crawl_bfs(g, seed, w, &r);
    } else if (order == ST_ORDER_INDEG) {
        crawl_indeg(g, seed, w, &r);
    } else {
        cs_rng rng;
        cs_rng_init(&rng, rseed, CS_RNG_SAMPLE, ST_RNG_ORDER, (uint64_t)index);
        crawl_random(g, seed, &rng, w, &r);
    }
    rec_end(&r);
}
