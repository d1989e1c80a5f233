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
    cs_cache_pages pg;
    uint64_t seed;
    double t0, t_poll, t_end;
    int closed;
    double qw;   /* bucket width */
    uint64_t nb; /* buckets, a power of two */
    uint32_t *head;
    double *tau;   /* next change not yet accounted; NaN: not cached */
    uint32_t *k;   /* its index in the stream */
    uint32_t *cnt; /* changes delivered since the last crawl */
    uint32_t *next;
    int64_t cached, crawls, changes, notified;
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

static inline uint64_t page_id(const cs_cache *c, int64_t i)
{
    return c->pg.id != NULL ? (uint64_t)c->pg.id[i] : (uint64_t)i;
}

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
    u->delta = c->pg.delta[i];
    u->open = 0;
    u->seed = c->seed;
    u->id = page_id(c, i);
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

cs_err cs_cache_create(cs_ctx *ctx, const cs_cache_pages *pg, const cs_cache_opts *opts,
                       cs_cache **out)
{
    cs_err rc = CS_OK;
    cs_cache_opts o;
    if (opts != NULL)
        o = *opts;
    else
        cs_cache_opts_default(&o);
    if (pg == NULL || pg->n < 0 || (pg->n > 0 && (pg->mu == NULL || pg->delta == NULL)))
        return cs_fail(ctx, CS_ERR_ARG, "cache: bad page slice");
    if (pg->n >= (int64_t)UINT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "cache: %lld local pages, at most 2^32 - 2",
                       (long long)pg->n);
    if (!(o.queue_width > 0.0) || !isfinite(o.queue_width) || o.queue_slots < 0 ||
        o.queue_slots > ((int64_t)1 << 40) || !isfinite(o.t0))
        return cs_fail(ctx, CS_ERR_ARG, "cache: queue_width must be finite > 0, t0 finite");
    const int64_t n = pg->n;
    int64_t nc = 0;
    for (int64_t i = 0; i < n && pg->complete != NULL; i++)
        nc += pg->complete[i] != 0;
    /* default: a power of two in [nc/2, nc), so the queue costs at most 4 bytes per page */
    uint64_t want =
        o.queue_slots > 0 ? (uint64_t)o.queue_slots : (uint64_t)(nc / 2 > 64 ? nc / 2 : 64);
    uint64_t nb = 1;
    while (nb < want)
        nb <<= 1;

    cs_cache *c = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &c, 1, sizeof *c, "cache"));
    c->pg = *pg;
    c->seed = o.seed;
    c->t0 = c->t_poll = o.t0;
    c->qw = o.queue_width;
    c->nb = nb;
    const size_t m = n > 0 ? (size_t)n : 1;
    CS_TRY(ctx, cs_alloc(ctx, &c->head, (size_t)nb, sizeof *c->head, "cache queue"));
    CS_TRY(ctx, cs_alloc(ctx, &c->tau, m, sizeof *c->tau, "cache"));
    CS_TRY(ctx, cs_calloc(ctx, &c->k, m, sizeof *c->k, "cache"));
    CS_TRY(ctx, cs_calloc(ctx, &c->cnt, m, sizeof *c->cnt, "cache"));
    CS_TRY(ctx, cs_alloc(ctx, &c->next, m, sizeof *c->next, "cache"));
    for (uint64_t b = 0; b < nb; b++)
        c->head[b] = NIL;
    for (int64_t i = 0; i < n; i++) {
        c->tau[i] = CS_NAN;
        c->next[i] = NIL;
    }
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
    free(c->tau);
    free(c->k);
    free(c->cnt);
    free(c->next);
    free(c);
    *pc = NULL;
}

int64_t cs_cache_bytes(const cs_cache *c)
{
    return c->pg.n * (int64_t)(sizeof *c->tau + sizeof *c->k + sizeof *c->cnt + sizeof *c->next) +
           (int64_t)c->nb * (int64_t)sizeof *c->head;
}

void cs_cache_get_stats(const cs_cache *c, cs_cache_stats *s)
{
    s->cached = c->cached;
    s->crawls = c->crawls;
    s->changes = c->changes;
    s->notified = c->notified;
    s->bytes = cs_cache_bytes(c);
    s->t_poll = c->t_poll;
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

static inline int is_complete(const cs_cache *c, int64_t i)
{
    return c->pg.complete != NULL && c->pg.complete[i];
}

/* ---- accounting ------------------------------------------------------------------------------ */

int cs_cache_has(const cs_cache *c, int64_t i)
{
    return i >= 0 && i < c->pg.n && !isnan(c->tau[i]);
}

/* Whether page i may join the cache at t (cs_cache_add's checks). */
static int add_ok(const cs_cache *c, int64_t i, double t)
{
    if (c->closed || i < 0 || i >= c->pg.n || !isnan(c->tau[i]) || !(t >= c->t_poll) ||
        !isfinite(t))
        return 0;
    const double m = c->pg.mu[i], d = c->pg.delta[i];
    return m > 0.0 && isfinite(m) && d > 0.0 && isfinite(d);
}

/* The first change after t of page i's stream (a pure function of seed, page and t). */
static void first_change(const cs_cache *c, int64_t i, double t, cursor *u)
{
    u->delta = c->pg.delta[i];
    u->seed = c->seed;
    u->id = page_id(c, i);
    stream_at(u, 0);
    u->k = 0;
    u->tau = gap(u); /* tau_0 = gap_0 */
    while (u->tau <= t)
        cursor_next(u);
}

/* Page i joins with its first change u. */
static void add_store(cs_cache *c, int64_t i, const cursor *u)
{
    cursor_store(c, i, u);
    c->cnt[i] = 0;
    c->cached++;
    if (is_complete(c, i))
        queue_push(c, i);
}

cs_err cs_cache_add(cs_cache *c, int64_t i, double t)
{
    if (!add_ok(c, i, t))
        return CS_ERR_ARG;
    cursor u;
    first_change(c, i, t, &u);
    add_store(c, i, &u);
    return CS_OK;
}

/* Pages per thread below which cs_cache_first_changes does not wake the threads. */
#define FIRST_PARALLEL 32

void cs_cache_first_changes(const cs_cache *c, const int64_t *idx, int64_t n, double t, double *tau,
                            uint64_t *k)
{
#pragma omp parallel for if (n >= FIRST_PARALLEL) default(none) shared(c, idx, n, t, tau, k)       \
    schedule(dynamic, 16)
    for (int64_t j = 0; j < n; j++) {
        tau[j] = CS_NAN;
        k[j] = 0;
        if (add_ok(c, idx[j], t)) {
            cursor u;
            first_change(c, idx[j], t, &u);
            tau[j] = u.tau;
            k[j] = u.k;
        }
    }
}

cs_err cs_cache_add_first(cs_cache *c, int64_t i, double t, double tau, uint64_t k)
{
    if (isnan(tau) || !add_ok(c, i, t))
        return cs_cache_add(c, i, t);
    cursor u;
    u.tau = tau;
    u.k = k;
    add_store(c, i, &u);
    return CS_OK;
}

/* The open interval of page i at time t: mu H(n) t and mu t for the n delivered changes (their
 * -mu tau / i terms are already in the sums), plus the direct terms of the changes in
 * (cursor, t]. Advances u past t; returns the changes since the last crawl. */
static uint64_t open_part(const cs_cache *c, int64_t i, double t, cursor *u, double *h_big,
                          double *b_big, double *h, double *b)
{
    const uint64_t n = c->cnt[i];
    const double m = c->pg.mu[i];
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

/* Delivers the changes of complete page i at or before t to fn (each may crawl it). */
static void deliver(cs_cache *c, int64_t i, double t, cs_cache_change_fn fn, void *arg,
                    int64_t *notified, int64_t *crawled)
{
    const double m = c->pg.mu[i];
    while (c->tau[i] <= t) {
        cursor u;
        cursor_load(c, i, &u);
        const double tau = u.tau;
        const uint64_t k = u.k;
        const uint32_t n = ++c->cnt[i];
        CS_ASSERT(n < UINT32_MAX);
        cs_xsum_add(&c->ih, -m * tau / (double)n);
        if (n == 1)
            cs_xsum_add(&c->ib, -m * tau);
        c->changes++;
        c->notified++;
        (*notified)++;
        cursor_next(&u);
        cursor_store(c, i, &u);
        if (fn(arg, i, tau, k)) {
            (void)close_at(c, i, tau);
            (*crawled)++;
        }
    }
}

cs_err cs_cache_crawl(cs_cache *c, int64_t i, double t, cs_cache_change_fn fn, void *arg,
                      uint32_t *changes)
{
    if (c->closed || !cs_cache_has(c, i) || !isfinite(t))
        return CS_ERR_ARG;
    int64_t nn = 0, nc = 0;
    if (fn != NULL && is_complete(c, i))
        deliver(c, i, t, fn, arg, &nn, &nc);
    const uint64_t j = close_at(c, i, t);
    if (changes != NULL)
        *changes = j < UINT32_MAX ? (uint32_t)j : UINT32_MAX;
    return CS_OK;
}

cs_err cs_cache_poll(cs_cache *c, double t_hi, cs_cache_change_fn fn, void *arg, int64_t *notified,
                     int64_t *crawled)
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
                deliver(c, e, t_hi, fn, arg, &nn, &nc);
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

/* ---- integrals ------------------------------------------------------------------------------- */

/* This rank's integrals at t as exact sums (closed parts plus open intervals). */
static void integrals_sums(const cs_cache *c, double t, cs_xsum *ih, cs_xsum *ib)
{
    *ih = c->ih;
    *ib = c->ib;
    if (c->closed)
        return;
    const int64_t n = c->pg.n;
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
            if (isnan(c->tau[i]))
                continue;
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
    const int64_t n = c->pg.n;
    const int64_t si[CC_NI] = {n,         (int64_t)c->nb, c->closed,  c->cached,
                               c->crawls, c->changes,     c->notified};
    const double sd[CD_ND] = {c->t0, c->t_poll, c->t_end, c->qw};
    const cs_xsum sums[2] = {c->ih, c->ib};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/state", CS_CK_I64, CC_NI, si));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/times", CS_CK_F64, CD_ND, sd));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/integrals", CS_CK_BYTES, (int64_t)sizeof sums,
                            sums));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/head", CS_CK_I32, (int64_t)c->nb, c->head));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/tau", CS_CK_F64, n, c->tau));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/k", CS_CK_I32, n, c->k));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/cnt", CS_CK_I32, n, c->cnt));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/cache/next", CS_CK_I32, n, c->next));
fail:
    return rc;
}

cs_err cs_cache_load(cs_ctx *ctx, cs_cache *c, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    const int64_t n = c->pg.n;
    int64_t si[CC_NI];
    double sd[CD_ND];
    cs_xsum sums[2];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/state", CS_CK_I64, CC_NI, si));
    if (si[CC_N] != n || si[CC_NB] != (int64_t)c->nb)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: a cache of other pages", cs_ckpt_path(ck));
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/times", CS_CK_F64, CD_ND, sd));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/integrals", CS_CK_BYTES,
                                  (int64_t)sizeof sums, sums));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/cache/head", CS_CK_I32, (int64_t)c->nb, c->head));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/tau", CS_CK_F64, n, c->tau));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/k", CS_CK_I32, n, c->k));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/cnt", CS_CK_I32, n, c->cnt));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/cache/next", CS_CK_I32, n, c->next));
    c->closed = (int)si[CC_CLOSED];
    c->cached = si[CC_CACHED];
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
