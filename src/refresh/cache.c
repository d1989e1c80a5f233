/*
 * refresh/cache: a rank's cache of fetched pages with exact staleness accounting (cache.h).
 *
 * LambdaCrawl (Kolobov et al. 2019) Eq. 1 with C = H of Eq. 2: between two crawls at t1 < t2 the
 * integral of H(N(t)) is sum_i (1/i) (t2 - tau_i) over the changes tau_1 < tau_2 < ... in
 * (t1, t2], because H(N) steps up by 1/i at tau_i; the binary penalty 1{N > 0} integrates to
 * t2 - tau_1. Change times come lazily from each page's counter-based stream (cache.h); the
 * sums are exact fixed-point accumulators (cs_xsum), so the totals do not depend on the order in
 * which pages are processed, on the tick length or on the rank count.
 *
 * Complete-observation pages are kept in a calendar queue (R. Brown, CACM 31(10), 1988): bucket
 * floor(tau / width) mod slots, intrusive singly linked lists through next[]. An entry's key is
 * read from tau[] when its bucket is visited, so a crawl that moves a page's cursor needs no
 * queue update: the entry is moved on when its old bucket comes round.
 */
#include "crawlsim/cache.h"
#include "crawlsim/rng.h"
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct cs_cache {
    cs_cache_pages pg; /* the source of a joining page's attributes */
    int has_complete;  /* pg has observability (arrays or attr) */
    uint64_t seed;
    double t0, t_poll, t_end;
    int closed;
    double qw;   /* bucket width */
    uint64_t nb; /* buckets, a power of two */
    uint32_t *head;
    /* per slot: the cached pages numbered in the order they joined */
    int64_t ns, cap; /* slots in use, allocated */
    int64_t *id;     /* global page id */
    double *mu, *dl; /* importance, change rate */
    uint8_t *cf;     /* complete */
    uint32_t *local; /* local index */
    double *tau;     /* next change not yet accounted */
    uint32_t *k;     /* its index in the stream */
    uint32_t *cnt;   /* changes delivered since the last crawl */
    uint32_t *next;  /* calendar-queue link */
    uint32_t *ord;   /* the slots by increasing local index: [0, nsorted) sorted, then joins */
    int64_t nsorted;
    uint32_t *pend; /* the merge's scratch: room for the joins since the last sort, pcap */
    int64_t pcap;
    uint32_t *map; /* local index -> slot: open addressing, NIL empty, mask + 1 entries */
    uint64_t mask;
    int64_t crawls, changes, notified;
    cs_xsum ih, ib; /* closed parts of the integrals */
};

void cs_cache_opts_default(cs_cache_opts *o)
{
    o->seed = 0;
    o->t0 = 0.0;
    o->queue_width = 1.0 / 16.0;
    o->queue_slots = 0;
}

double cs_cache_harmonic(uint64_t n)
{
    if (n <= 64) {
        double h = 0.0;
        for (uint64_t i = n; i >= 1; i--) /* small terms first */
            h += 1.0 / (double)i;
        return h;
    }
    /* Euler-Maclaurin: truncation below 1/(240 n^8) < 1e-17 for n > 64 */
    const double x = (double)n, x2 = 1.0 / (x * x);
    return log(x) + 0.57721566490153286061 + 0.5 / x -
           x2 * (1.0 / 12.0 - x2 * (1.0 / 120.0 - x2 * (1.0 / 252.0)));
}

/* ---- the change streams ---------------------------------------------------------------------- */

/* A cursor over one page's changes: (tau, k) and the stream positioned for gap k + 1. */
typedef struct cursor {
    cs_rng r;
    double tau, delta;
    uint64_t k;
    int open;
    uint64_t seed, id;
} cursor;

static inline double gap(cursor *u)
{
    return -log(cs_rng_uniform_pos(&u->r)) / u->delta;
}

/* Positions the stream at word w (block w / 4, then w % 4 words skipped). */
static void stream_at(cursor *u, uint64_t w)
{
    cs_rng_init(&u->r, u->seed, CS_RNG_CHANGES, u->id, 0);
    cs_rng_seek(&u->r, w >> 2);
    for (uint64_t j = 0; j < (w & 3); j++)
        (void)cs_rng_u64(&u->r);
    u->open = 1;
}

static inline void cursor_load(const cs_cache *c, int64_t i, cursor *u)
{
    u->tau = c->tau[i];
    u->k = c->k[i];
    u->delta = c->dl[i];
    u->open = 0;
    u->seed = c->seed;
    u->id = (uint64_t)c->id[i];
}

/* The next change: tau_{k+1} = tau_k + gap_{k+1}, always in this order. */
static inline void cursor_next(cursor *u)
{
    if (!u->open)
        stream_at(u, u->k + 1);
    u->tau += gap(u);
    u->k++;
}

static inline void cursor_store(cs_cache *c, int64_t i, const cursor *u)
{
    CS_ASSERT(u->k < (uint64_t)UINT32_MAX);
    c->tau[i] = u->tau;
    c->k[i] = (uint32_t)u->k;
}

int64_t cs_cache_change_times(uint64_t seed, int64_t id, double delta, double t_hi, double *out,
                              int64_t cap)
{
    /* the reference: one stream read from its first word, no seeking */
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_CHANGES, (uint64_t)id, 0);
    int64_t n = 0;
    double tau = 0.0;
    for (;;) {
        tau += -log(cs_rng_uniform_pos(&r)) / delta;
        if (!(tau <= t_hi))
            return n;
        if (n < cap)
            out[n] = tau;
        n++;
    }
}

/* ---- create / destroy ------------------------------------------------------------------------ */

static cs_err reserve_slots(cs_cache *c, int64_t need);

/* The queue's default bucket count is at most this (16 MiB a rank): a poll visits the buckets its
 * time span covers (in crawlsim run one a tick, a bucket being a tick wide), so buckets beyond
 * the span of the cached pages' next changes only cost memory. */
#define QUEUE_MAX_BUCKETS ((uint64_t)1 << 22)

/* The complete pages among pg's pages: counted in the arrays, or as given with attr (an
 * estimate will do: the bucket count changes no result, only the queue's memory and speed). */
static int64_t count_complete(const cs_cache_pages *pg)
{
    if (pg->mu == NULL)
        return pg->n_complete > 0 ? pg->n_complete : 0;
    int64_t nc = 0;
    for (int64_t i = 0; i < pg->n && pg->complete != NULL; i++)
        nc += pg->complete[i] != 0;
    return nc;
}

cs_err cs_cache_create(cs_ctx *ctx, const cs_cache_pages *pg, const cs_cache_opts *opts,
                       cs_cache **out)
{
    cs_err rc = CS_OK;
    cs_cache_opts o;
    if (opts != NULL)
        o = *opts;
    else
        cs_cache_opts_default(&o);
    if (pg == NULL || pg->n < 0 ||
        (pg->n > 0 && (pg->mu == NULL || pg->delta == NULL) && pg->attr == NULL))
        return cs_fail(ctx, CS_ERR_ARG, "cache: bad page slice");
    if (pg->n >= (int64_t)UINT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "cache: %lld local pages, at most 2^32 - 2",
                       (long long)pg->n);
    if (!(o.queue_width > 0.0) || !isfinite(o.queue_width) || o.queue_slots < 0 ||
        o.queue_slots > ((int64_t)1 << 40) || !isfinite(o.t0))
        return cs_fail(ctx, CS_ERR_ARG, "cache: queue_width must be finite > 0, t0 finite");
    const int64_t nc = count_complete(pg);
    /* default: a power of two in [nc/2, nc), at least 64 and at most QUEUE_MAX_BUCKETS, so the
     * queue costs at most 4 bytes per complete page and 16 MiB */
    uint64_t want = (uint64_t)(nc / 2 > 64 ? nc / 2 : 64);
    want = want < QUEUE_MAX_BUCKETS ? want : QUEUE_MAX_BUCKETS;
    if (o.queue_slots > 0)
        want = (uint64_t)o.queue_slots;
    uint64_t nb = 1;
    while (nb < want)
        nb <<= 1;

    cs_cache *c = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &c, 1, sizeof *c, "cache"));
    c->pg = *pg;
    c->has_complete = pg->mu != NULL ? pg->complete != NULL : 1;
    c->seed = o.seed;
    c->t0 = c->t_poll = o.t0;
    c->qw = o.queue_width;
    c->nb = nb;
    CS_TRY(ctx, cs_alloc(ctx, &c->head, (size_t)nb, sizeof *c->head, "cache queue"));
    for (uint64_t b = 0; b < nb; b++)
        c->head[b] = NIL;
    c->mask = 63;
    CS_TRY(ctx, cs_alloc(ctx, &c->map, (size_t)c->mask + 1, sizeof *c->map, "cache map"));
    memset(c->map, 0xff, ((size_t)c->mask + 1) * sizeof *c->map);
    if (reserve_slots(c, 1) != CS_OK) /* the arrays are never NULL */
        CS_TRY(ctx, cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the cache"));
    cs_xsum_zero(&c->ih);
    cs_xsum_zero(&c->ib);
    *out = c;
    return CS_OK;
fail:
    cs_cache_destroy(&c);
    return rc;
}

void cs_cache_destroy(cs_cache **pc)
{
    if (pc == NULL || *pc == NULL)
        return;
    cs_cache *c = *pc;
    free(c->head);
    free(c->id);
    free(c->mu);
    free(c->dl);
    free(c->cf);
    free(c->local);
    free(c->tau);
    free(c->k);
    free(c->cnt);
    free(c->next);
    free(c->ord);
    free(c->pend);
    free(c->map);
    free(c);
    *pc = NULL;
}

/* Bytes of one slot's arrays. */
#define SLOT_BYTES (sizeof(int64_t) + 3 * sizeof(double) + 1 + 5 * sizeof(uint32_t))

int64_t cs_cache_bytes(const cs_cache *c)
{
    return c->ns * (int64_t)SLOT_BYTES + (int64_t)(c->mask + 1) * (int64_t)sizeof *c->map +
           (int64_t)c->nb * (int64_t)sizeof *c->head + c->pcap * (int64_t)sizeof *c->pend;
}

void cs_cache_get_stats(const cs_cache *c, cs_cache_stats *s)
{
    s->cached = c->ns;
    s->crawls = c->crawls;
    s->changes = c->changes;
    s->notified = c->notified;
    s->bytes = cs_cache_bytes(c);
    s->t_poll = c->t_poll;
}

/* ---- slots ----------------------------------------------------------------------------------- */

static inline uint64_t map_hash(uint64_t li)
{
    li *= 0x9e3779b97f4a7c15ULL;
    return li ^ (li >> 29);
}

int64_t cs_cache_slot(const cs_cache *c, int64_t li)
{
    if (li < 0 || li >= c->pg.n)
        return -1;
    for (uint64_t h = map_hash((uint64_t)li) & c->mask;; h = (h + 1) & c->mask) {
        const uint32_t s = c->map[h];
        if (s == NIL)
            return -1;
        if (c->local[s] == (uint32_t)li)
            return s;
    }
}

static void map_put(uint32_t *map, uint64_t mask, uint32_t li, uint32_t s)
{
    uint64_t h = map_hash(li) & mask;
    while (map[h] != NIL)
        h = (h + 1) & mask;
    map[h] = s;
}

/* Room for `need` slots (arrays and a map at most half full). CS_ERR_NOMEM, nothing changed
 * that matters: each array keeps its old contents when a later one cannot grow. */
static cs_err reserve_slots(cs_cache *c, int64_t need)
{
    if (2 * (uint64_t)need > c->mask + 1) {
        uint64_t m = c->mask + 1;
        while (2 * (uint64_t)need > m)
            m *= 2;
        uint32_t *map = malloc((size_t)m * sizeof *map);
        if (map == NULL)
            return CS_ERR_NOMEM;
        memset(map, 0xff, (size_t)m * sizeof *map);
        for (int64_t s = 0; s < c->ns; s++)
            map_put(map, m - 1, c->local[s], (uint32_t)s);
        free(c->map);
        c->map = map;
        c->mask = m - 1;
    }
    void *const pp[] = {&c->id,  &c->mu, &c->dl,  &c->cf,   &c->local,
                        &c->tau, &c->k,  &c->cnt, &c->next, &c->ord};
    const size_t sz[] = {sizeof *c->id,    sizeof *c->mu,  sizeof *c->dl, sizeof *c->cf,
                         sizeof *c->local, sizeof *c->tau, sizeof *c->k,  sizeof *c->cnt,
                         sizeof *c->next,  sizeof *c->ord};
    return cs_slots_reserve(pp, sz, (int)(sizeof sz / sizeof sz[0]), &c->cap, need);
}

/* Room in the merge's scratch for `need` joins since the last sort (it grows with the joins
 * between two sorts, not with the slots). CS_ERR_NOMEM, nothing changed. */
static cs_err reserve_pending(cs_cache *c, int64_t need)
{
    void *const pp[] = {&c->pend};
    const size_t sz[] = {sizeof *c->pend};
    return cs_slots_reserve(pp, sz, 1, &c->pcap, need);
}

cs_err cs_slots_reserve(void *const *pp, const size_t *sz, int n, int64_t *cap, int64_t need)
{
    if (need <= *cap && *cap > 0)
        return CS_OK;
    int64_t c = *cap > 0 ? *cap : 1024;
    while (c < need)
        c *= 2;
    for (int j = 0; j < n; j++) {
        void **p = (void **)pp[j];
        void *q = realloc(*p, (size_t)c * sz[j]);
        if (q == NULL)
            return CS_ERR_NOMEM;
        cs_mem_huge(q, (size_t)c * sz[j], (size_t)*cap * sz[j]);
        *p = q;
    }
    *cap = c;
    return CS_OK;
}

/* Sorts ord[a, b) by local index (heapsort: no scratch). */
static void sift_ord(const cs_cache *c, uint32_t *o, int64_t n, int64_t p)
{
    const uint32_t x = o[p];
    for (;;) {
        int64_t q = 2 * p + 1;
        if (q >= n)
            break;
        if (q + 1 < n && c->local[o[q + 1]] > c->local[o[q]])
            q++;
        if (!(c->local[o[q]] > c->local[x]))
            break;
        o[p] = o[q];
        p = q;
    }
    o[p] = x;
}

const uint32_t *cs_cache_sorted(cs_cache *c, int64_t *m)
{
    const int64_t a = c->nsorted, n = c->ns, k = n - a;
    *m = n;
    if (k == 0)
        return c->ord;
    uint32_t *t = c->ord + a;
    for (int64_t p = k / 2 - 1; p >= 0; p--)
        sift_ord(c, t, k, p);
    for (int64_t e = k - 1; e > 0; e--) {
        const uint32_t x = t[0];
        t[0] = t[e];
        t[e] = x;
        sift_ord(c, t, e, 0);
    }
    /* merge the sorted joins into the sorted prefix (distinct local indexes) from the back:
     * each join's place in the prefix by binary search, the prefix's entries above it moved up
     * as one block, so the prefix is read in order and only the joins' places are searched */
    CS_ASSERT(k <= c->pcap);
    memcpy(c->pend, t, (size_t)k * sizeof *c->pend);
    int64_t hi = a; /* the prefix's entries [0, hi) are not yet placed */
    for (int64_t j = k - 1; j >= 0; j--) {
        const uint32_t x = c->pend[j], key = c->local[x];
        int64_t lo = 0, up = hi; /* the first prefix entry above key */
        while (lo < up) {
            const int64_t mid = lo + (up - lo) / 2;
            if (c->local[c->ord[mid]] < key)
                lo = mid + 1;
            else
                up = mid;
        }
        memmove(c->ord + lo + j + 1, c->ord + lo, (size_t)(hi - lo) * sizeof *c->ord);
        c->ord[lo + j] = x;
        hi = lo;
    }
    c->nsorted = n;
    return c->ord;
}

int64_t cs_cache_n_slots(const cs_cache *c)
{
    return c->ns;
}

void cs_cache_slots(const cs_cache *c, cs_cache_slot_view *v)
{
    v->n = c->ns;
    v->id = c->id;
    v->mu = c->mu;
    v->delta = c->dl;
    v->complete = c->has_complete ? c->cf : NULL;
    v->local = c->local;
}

/* ---- the queue ------------------------------------------------------------------------------- */

static inline uint64_t bucket_of(const cs_cache *c, double t)
{
    const double q = floor(t / c->qw);
    if (q < 9007199254740992.0)
        return (uint64_t)q & (c->nb - 1);
    return (uint64_t)fmod(q, (double)c->nb);
}

static inline void queue_push(cs_cache *c, int64_t i)
{
    const uint64_t b = bucket_of(c, c->tau[i]);
    c->next[i] = c->head[b];
    c->head[b] = (uint32_t)i;
}

/* ---- accounting ------------------------------------------------------------------------------ */

int cs_cache_has(const cs_cache *c, int64_t i)
{
    return cs_cache_slot(c, i) >= 0;
}

void cs_cache_attrs(const cs_cache *c, int64_t li, cs_cache_attr *a)
{
    if (c->pg.mu != NULL) {
        a->id = c->pg.id != NULL ? c->pg.id[li] : li;
        a->mu = c->pg.mu[li];
        a->delta = c->pg.delta[li];
        a->complete = (uint8_t)(c->pg.complete != NULL && c->pg.complete[li]);
    } else {
        c->pg.attr(c->pg.attr_arg, li, a);
    }
}

/* Whether local page i with attributes a may join the cache at t (cs_cache_add's checks). */
static int add_ok(const cs_cache *c, int64_t i, const cs_cache_attr *a, double t)
{
    if (c->closed || !(t >= c->t_poll) || !isfinite(t))
        return 0;
    const double m = a->mu, d = a->delta;
    return m > 0.0 && isfinite(m) && d > 0.0 && isfinite(d) && cs_cache_slot(c, i) < 0;
}

/* The first change after t of the stream of a page of rate delta (a pure function of seed,
 * page and t). */
static void first_change(const cs_cache *c, const cs_cache_attr *a, double t, cursor *u)
{
    u->delta = a->delta;
    u->seed = c->seed;
    u->id = (uint64_t)a->id;
    stream_at(u, 0);
    u->k = 0;
    u->tau = gap(u); /* tau_0 = gap_0 */
    while (u->tau <= t)
        cursor_next(u);
}

/* Local page i joins in the next slot with its attributes and first change u. */
static cs_err add_store(cs_cache *c, int64_t i, const cs_cache_attr *a, const cursor *u,
                        int64_t *slot)
{
    if (reserve_slots(c, c->ns + 1) != CS_OK || reserve_pending(c, c->ns + 1 - c->nsorted) != CS_OK)
        return CS_ERR_NOMEM;
    const int64_t s = c->ns++;
    c->id[s] = a->id;
    c->mu[s] = a->mu;
    c->dl[s] = a->delta;
    c->cf[s] = a->complete;
    c->local[s] = (uint32_t)i;
    c->ord[s] = (uint32_t)s;
    map_put(c->map, c->mask, (uint32_t)i, (uint32_t)s);
    cursor_store(c, s, u);
    c->cnt[s] = 0;
    c->next[s] = NIL;
    if (c->has_complete && a->complete)
        queue_push(c, s);
    if (slot != NULL)
        *slot = s;
    return CS_OK;
}

cs_err cs_cache_add_slot(cs_cache *c, int64_t i, double t, int64_t *slot)
{
    if (i < 0 || i >= c->pg.n)
        return CS_ERR_ARG;
    cs_cache_attr a;
    cs_cache_attrs(c, i, &a);
    if (!add_ok(c, i, &a, t))
        return CS_ERR_ARG;
    cursor u;
    first_change(c, &a, t, &u);
    return add_store(c, i, &a, &u, slot);
}

cs_err cs_cache_add(cs_cache *c, int64_t i, double t)
{
    return cs_cache_add_slot(c, i, t, NULL);
}

/* Pages per thread below which cs_cache_first_changes does not wake the threads. */
#define FIRST_PARALLEL 32

void cs_cache_first_changes(const cs_cache *c, const int64_t *idx, int64_t n, double t,
                            cs_cache_join *jn)
{
#pragma omp parallel for if (n >= FIRST_PARALLEL) default(none) shared(c, idx, n, t, jn)           \
    schedule(dynamic, 16)
    for (int64_t j = 0; j < n; j++) {
        cs_cache_join *x = &jn[j];
        x->tau = CS_NAN;
        x->k = 0;
        x->slot = idx[j] >= 0 && idx[j] < c->pg.n ? cs_cache_slot(c, idx[j]) : -1;
        if (x->slot >= 0 || idx[j] < 0 || idx[j] >= c->pg.n)
            continue;
        cs_cache_attrs(c, idx[j], &x->a);
        if (add_ok(c, idx[j], &x->a, t)) {
            cursor u;
            first_change(c, &x->a, t, &u);
            x->tau = u.tau;
            x->k = u.k;
        }
    }
}

cs_err cs_cache_add_first(cs_cache *c, int64_t i, double t, const cs_cache_join *jn, int64_t *slot)
{
    if (isnan(jn->tau) || i < 0 || i >= c->pg.n || !add_ok(c, i, &jn->a, t))
        return cs_cache_add_slot(c, i, t, slot);
    cursor u;
    u.tau = jn->tau;
    u.k = jn->k;
    return add_store(c, i, &jn->a, &u, slot);
}

/* The open interval of slot i at time t: mu H(n) t and mu t for the n delivered changes (their
 * -mu tau / i terms are already in the sums), plus the direct terms of the changes in
 * (cursor, t]. Advances u past t; returns the changes since the last crawl. */
static uint64_t open_part(const cs_cache *c, int64_t i, double t, cursor *u, double *h_big,
                          double *b_big, double *h, double *b)
{
    const uint64_t n = c->cnt[i];
    const double m = c->mu[i];
    *h_big = n > 0 ? m * cs_cache_harmonic(n) * t : 0.0;
    *b_big = n > 0 ? m * t : 0.0;
    double hs = 0.0, bs = 0.0;
    uint64_t j = n;
    while (u->tau <= t) {
        j++;
        hs += (t - u->tau) / (double)j;
        if (j == 1)
            bs = t - u->tau;
        cursor_next(u);
    }
    *h = m * hs;
    *b = m * bs;
    return j;
}

/* Crawl of page i at t (its complete-page notifications up to t already delivered or to be
 * absorbed): closes the interval. */
static uint64_t close_at(cs_cache *c, int64_t i, double t)
{
    cursor u;
    cursor_load(c, i, &u);
    double hb, bb, h, b;
    const uint64_t j = open_part(c, i, t, &u, &hb, &bb, &h, &b);
    cs_xsum_add(&c->ih, hb);
    cs_xsum_add(&c->ib, bb);
    cs_xsum_add(&c->ih, h);
    cs_xsum_add(&c->ib, b);
    c->changes += (int64_t)(j - c->cnt[i]);
    c->crawls++;
    cursor_store(c, i, &u);
    c->cnt[i] = 0;
    return j;
}

/* The closed sums' terms of the n-th change (at tau) of an open interval of a page of
 * importance m: -m tau / n, and -m tau for the first; the interval's open part adds m H(n) t
 * and m t (open_part). */
static inline void close_change(cs_xsum *h, cs_xsum *b, double m, double tau, uint64_t n)
{
    cs_xsum_add(h, -m * tau / (double)n);
    if (n == 1)
        cs_xsum_add(b, -m * tau);
}

/* Delivers the changes of complete slot i at or before t to fn (each may crawl it), which
 * sees the slot (by_slot) or the local index. */
static void deliver(cs_cache *c, int64_t i, double t, cs_cache_change_fn fn, void *arg, int by_slot,
                    int64_t *notified, int64_t *crawled)
{
    const double m = c->mu[i];
    const int64_t page = by_slot ? i : (int64_t)c->local[i];
    while (c->tau[i] <= t) {
        cursor u;
        cursor_load(c, i, &u);
        const double tau = u.tau;
        const uint64_t k = u.k;
        const uint32_t n = ++c->cnt[i];
        CS_ASSERT(n < UINT32_MAX);
        close_change(&c->ih, &c->ib, m, tau, n);
        c->changes++;
        c->notified++;
        (*notified)++;
        cursor_next(&u);
        cursor_store(c, i, &u);
        if (fn(arg, page, tau, k)) {
            (void)close_at(c, i, tau);
            (*crawled)++;
        }
    }
}

static cs_err crawl_slot(cs_cache *c, int64_t s, double t, cs_cache_change_fn fn, void *arg,
                         int by_slot, uint32_t *changes)
{
    if (c->closed || s < 0 || s >= c->ns || !isfinite(t))
        return CS_ERR_ARG;
    int64_t nn = 0, nc = 0;
    if (fn != NULL && c->has_complete && c->cf[s])
        deliver(c, s, t, fn, arg, by_slot, &nn, &nc);
    const uint64_t j = close_at(c, s, t);
    if (changes != NULL)
        *changes = j < UINT32_MAX ? (uint32_t)j : UINT32_MAX;
    return CS_OK;
}

cs_err cs_cache_crawl(cs_cache *c, int64_t i, double t, cs_cache_change_fn fn, void *arg,
                      uint32_t *changes)
{
    return crawl_slot(c, cs_cache_slot(c, i), t, fn, arg, 0, changes);
}

cs_err cs_cache_crawl_slot(cs_cache *c, int64_t s, double t, cs_cache_change_fn fn, void *arg,
                           uint32_t *changes)
{
    return crawl_slot(c, s, t, fn, arg, 1, changes);
}

static cs_err poll(cs_cache *c, double t_hi, cs_cache_change_fn fn, void *arg, int by_slot,
                   int64_t *notified, int64_t *crawled)
{
    int64_t nn = 0, nc = 0;
    if (c->closed || !(t_hi >= c->t_poll) || !isfinite(t_hi) || fn == NULL)
        return CS_ERR_ARG;
    const double b0 = floor(c->t_poll / c->qw), b1 = floor(t_hi / c->qw);
    const double span = b1 - b0 + 1.0;
    const uint64_t visits = span >= (double)c->nb ? c->nb : (uint64_t)span;
    const uint64_t first = bucket_of(c, c->t_poll);
    for (uint64_t v = 0; v < visits; v++) {
        const uint64_t b = (first + v) & (c->nb - 1);
        uint32_t e = c->head[b];
        c->head[b] = NIL;
        while (e != NIL) {
            const uint32_t nx = c->next[e];
            if (c->tau[e] <= t_hi)
                deliver(c, e, t_hi, fn, arg, by_slot, &nn, &nc);
            queue_push(c, e);
            e = nx;
        }
    }
    c->t_poll = t_hi;
    if (notified != NULL)
        *notified = nn;
    if (crawled != NULL)
        *crawled = nc;
    return CS_OK;
}

cs_err cs_cache_poll(cs_cache *c, double t_hi, cs_cache_change_fn fn, void *arg, int64_t *notified,
                     int64_t *crawled)
{
    return poll(c, t_hi, fn, arg, 0, notified, crawled);
}

cs_err cs_cache_poll_slot(cs_cache *c, double t_hi, cs_cache_change_fn fn, void *arg,
                          int64_t *notified, int64_t *crawled)
{
    return poll(c, t_hi, fn, arg, 1, notified, crawled);
}

/* ---- integrals ------------------------------------------------------------------------------- */

void cs_cache_settle(cs_cache *c, double t)
{
    if (c->closed || !isfinite(t))
        return;
    const int64_t n = c->ns;
    int64_t changes = 0;
    cs_xsum th, tb;
    cs_xsum_zero(&th);
    cs_xsum_zero(&tb);
#pragma omp parallel default(none) shared(c, n, t, th, tb) reduction(+ : changes)
    {
        cs_xsum lh, lb;
        cs_xsum_zero(&lh);
        cs_xsum_zero(&lb);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            if ((c->has_complete && c->cf[i]) || !(c->tau[i] <= t))
                continue; /* complete pages' changes are delivered (notified) by the polls */
            const double m = c->mu[i];
            cursor u;
            cursor_load(c, i, &u);
            uint64_t j = c->cnt[i];
            while (u.tau <= t) {
                close_change(&lh, &lb, m, u.tau, ++j);
                changes++;
                cursor_next(&u);
            }
            CS_ASSERT(j < UINT32_MAX);
            c->cnt[i] = (uint32_t)j;
            cursor_store(c, i, &u);
        }
#pragma omp critical(cs_cache_settle)
        {
            cs_xsum_merge(&th, &lh);
            cs_xsum_merge(&tb, &lb);
        }
    }
    cs_xsum_merge(&c->ih, &th);
    cs_xsum_merge(&c->ib, &tb);
    c->changes += changes;
}

/* This rank's integrals at t as exact sums (closed parts plus open intervals). */
static void integrals_sums(const cs_cache *c, double t, cs_xsum *ih, cs_xsum *ib)
{
    *ih = c->ih;
    *ib = c->ib;
    if (c->closed)
        return;
    const int64_t n = c->ns;
    cs_xsum th, tb;
    cs_xsum_zero(&th);
    cs_xsum_zero(&tb);
#pragma omp parallel default(none) shared(c, n, t, th, tb)
    {
        cs_xsum lh, lb;
        cs_xsum_zero(&lh);
        cs_xsum_zero(&lb);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            cursor u;
            cursor_load(c, i, &u);
            double hb, bb, h, b;
            (void)open_part(c, i, t, &u, &hb, &bb, &h, &b);
            cs_xsum_add(&lh, hb);
            cs_xsum_add(&lb, bb);
            cs_xsum_add(&lh, h);
            cs_xsum_add(&lb, b);
        }
#pragma omp critical(cs_cache_integrals)
        {
            cs_xsum_merge(&th, &lh);
            cs_xsum_merge(&tb, &lb);
        }
    }
    cs_xsum_merge(ih, &th);
    cs_xsum_merge(ib, &tb);
}

void cs_cache_integrals_local(const cs_cache *c, double t, double *ih, double *ib)
{
    cs_xsum h, b;
    integrals_sums(c, t, &h, &b);
    *ih = cs_xsum_value(&h);
    *ib = cs_xsum_value(&b);
}

cs_err cs_cache_integrals(cs_ctx *ctx, const cs_cache *c, double t, double *ih, double *ib)
{
    cs_xsum s[2], g[2];
    integrals_sums(c, t, &s[0], &s[1]);
    cs_xsum_allreduce(ctx, s, g, 2);
    *ih = cs_xsum_value(&g[0]);
    *ib = cs_xsum_value(&g[1]);
    return CS_OK;
}

cs_err cs_cache_close(cs_cache *c, double t_end)
{
    if (c->closed || !(t_end >= c->t_poll) || !isfinite(t_end))
        return CS_ERR_ARG;
    cs_xsum h, b;
    integrals_sums(c, t_end, &h, &b);
    c->ih = h;
    c->ib = b;
    c->closed = 1;
    c->t_end = t_end;
    return CS_OK;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

enum { CC_N, CC_NB, CC_CLOSED, CC_CACHED, CC_CRAWLS, CC_CHANGES, CC_NOTIFIED, CC_NI };
enum { CD_T0, CD_POLL, CD_END, CD_QW, CD_ND };

cs_err cs_cache_save(cs_ctx *ctx, const cs_cache *c, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    const int64_t ns = c->ns;
    const int64_t si[CC_NI] = {c->pg.n,   (int64_t)c->nb, c->closed,  ns,
                               c->crawls, c->changes,     c->notified};
    const double sd[CD_ND] = {c->t0, c->t_poll, c->t_end, c->qw};
    const cs_xsum sums[2] = {c->ih, c->ib};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/state", CS_CK_I64, CC_NI, si));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/times", CS_CK_F64, CD_ND, sd));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/integrals", CS_CK_BYTES, (int64_t)sizeof sums,
                            sums));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/head", CS_CK_I32, (int64_t)c->nb, c->head));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/local", CS_CK_I32, ns, c->local));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/id", CS_CK_I64, ns, c->id));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/mu", CS_CK_F64, ns, c->mu));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/delta", CS_CK_F64, ns, c->dl));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/complete", CS_CK_BYTES, ns, c->cf));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/tau", CS_CK_F64, ns, c->tau));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/k", CS_CK_I32, ns, c->k));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/cnt", CS_CK_I32, ns, c->cnt));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/next", CS_CK_I32, ns, c->next));
fail:
    return rc;
}

cs_err cs_cache_load(cs_ctx *ctx, cs_cache *c, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    int64_t si[CC_NI];
    double sd[CD_ND];
    cs_xsum sums[2];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/state", CS_CK_I64, CC_NI, si));
    if (si[CC_N] != c->pg.n || si[CC_NB] != (int64_t)c->nb || c->ns != 0 || si[CC_CACHED] < 0 ||
        si[CC_CACHED] > c->pg.n)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: a cache of other pages", cs_ckpt_path(ck));
    else if (reserve_slots(c, si[CC_CACHED]) != CS_OK || reserve_pending(c, si[CC_CACHED]) != CS_OK)
        rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the cache of %lld pages",
                     (long long)si[CC_CACHED]);
    CS_TRY_AGREE(ctx, rc);
    const int64_t ns = si[CC_CACHED];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/times", CS_CK_F64, CD_ND, sd));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/integrals", CS_CK_BYTES,
                                  (int64_t)sizeof sums, sums));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/cache/head", CS_CK_I32, (int64_t)c->nb, c->head));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/local", CS_CK_I32, ns, c->local));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/id", CS_CK_I64, ns, c->id));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/mu", CS_CK_F64, ns, c->mu));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/delta", CS_CK_F64, ns, c->dl));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/complete", CS_CK_BYTES, ns, c->cf));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/tau", CS_CK_F64, ns, c->tau));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/k", CS_CK_I32, ns, c->k));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/cnt", CS_CK_I32, ns, c->cnt));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/next", CS_CK_I32, ns, c->next));
    /* the slots' map and order are functions of their local indexes */
    for (int64_t s = 0; s < ns && rc == CS_OK; s++) {
        if (c->local[s] >= (uint64_t)c->pg.n || cs_cache_slot(c, c->local[s]) >= 0) {
            rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: a malformed cache", cs_ckpt_path(ck));
            break;
        }
        map_put(c->map, c->mask, c->local[s], (uint32_t)s);
        c->ord[s] = (uint32_t)s;
    }
    CS_TRY_AGREE(ctx, rc);
    c->ns = ns;
    c->nsorted = 0;
    c->closed = (int)si[CC_CLOSED];
    c->crawls = si[CC_CRAWLS];
    c->changes = si[CC_CHANGES];
    c->notified = si[CC_NOTIFIED];
    c->t0 = sd[CD_T0];
    c->t_poll = sd[CD_POLL];
    c->t_end = sd[CD_END];
    c->qw = sd[CD_QW];
    c->ih = sums[0];
    c->ib = sums[1];
fail:
    return rc;
}
