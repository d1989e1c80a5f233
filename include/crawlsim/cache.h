/*
 * cache: a rank's cache of fetched pages with exact staleness accounting in continuous time
 * (LambdaCrawl, Kolobov et al. NeurIPS 2019, Eq. 1 with the harmonic penalty of Eq. 2, and the
 * binary penalty 1{n > 0} of its Section 7).
 *
 * The world. Page w changes at the times of a Poisson process of rate delta_w. The k-th gap
 * (k = 0, 1, ...) is -ln(U_k) / delta_w where U_k in (0, 1] comes from word k of the page's own
 * stream (seed, CS_RNG_CHANGES, id = page id, sub = 0), and the change times are the running
 * sums tau_k = tau_{k-1} + gap_k, always accumulated in this order from tau_{-1} = 0: so every
 * change time is a pure function of (seed, page id), whatever the crawl order, the tick length or
 * the number of ranks. Changes are drawn lazily, when the page is crawled, notified or when the
 * run ends, never stored.
 *
 * Staleness. With N_w(t) the page's changes since its last crawl, Eq. 1 integrates
 * sum_w mu_w C(N_w(t)) over time. For the harmonic penalty C = H (Eq. 2), H(N) = sum_{i <= N} 1/i,
 * so a crawl at t2 closes its interval with  sum_i (1/i) (t2 - tau_i)  over the i-th change since
 * the previous crawl; for the binary penalty with t2 - tau_1. Both are integrated exactly (no
 * time step), weighted by mu, and accumulated per rank in an exact fixed-point sum (refresh
 * module): the totals are the same bits for any rank count, thread count or processing order.
 * A page joining the cache at t0 is fresh at t0 (its changes before t0 are skipped, not counted).
 *
 * Complete observations. Pages with complete[i] = 1 notify each change: cs_cache_poll delivers
 * them (a calendar queue over the pages' next change times), in time order per page, to a
 * callback that may crawl the page at the change time. For these pages the count of delivered
 * changes is kept and the integral is split exactly: -mu tau_i / i when the i-th change is
 * delivered, + mu H(n) t2 at the crawl (both exact in the fixed-point sum).
 *
 * Memory (measured by cs_cache_bytes, checked by check_cache). The cache numbers the pages it
 * holds densely, in the order they join (slots), and keeps per slot, structure of arrays:
 *   int64_t  id          the page's global id (the key of its change stream)
 *   double   mu, delta   its importance and change rate
 *   uint8_t  complete    whether it notifies its changes
 *   uint32_t local       its local index
 *   double   tau         its next change not yet accounted
 *   uint32_t k           its index in the change stream (at most 2^32 - 1 changes per page)
 *   uint32_t cnt         changes delivered since the last crawl (complete pages)
 *   uint32_t next        calendar-queue link (complete pages)
 *   uint32_t ord         the slots in local order
 * 53 bytes, plus the sort's scratch (4 bytes per page joined since the last cs_cache_sorted,
 * at most: it grows with the joins between two sorts, not with the slots), a map from local index
 * to slot (4 bytes an entry, at most half full: 8 to 16 bytes a slot) and 4 bytes per queue bucket
 * (by default between n_complete / 2 and n_complete buckets, at least 64 and at most 2^22,
 * 16 MiB: the only part of the rank's size). So the cache is O(pages cached), whatever the number
 * of local pages; the attributes are copied from the caller's arrays or computed
 * (cs_cache_pages.attr) when a page joins. The bucket count changes no result (the order in which
 * one poll delivers the changes of different pages is not observable), only the queue's memory
 * and speed.
 *
 * Times: crawls and polls of one page must come in non-decreasing time; poll times never go
 * back; all times >= the cache's start time.
 */
#ifndef CRAWLSIM_CACHE_H
#define CRAWLSIM_CACHE_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"

#include <stdint.h>

typedef struct cs_cache cs_cache;

/* The attributes of a page that joins the cache. */
typedef struct cs_cache_attr {
    int64_t id; /* global page id */
    double mu, delta;
    uint8_t complete;
} cs_cache_attr;

/* Local, pure (called by several threads at once). The attributes of local page li. */
typedef void (*cs_cache_attr_fn)(const void *arg, int64_t li, cs_cache_attr *a);

/* A rank's pages, borrowed for the cache's lifetime: arrays over the n local pages (the graph's;
 * complete may be NULL), or, with mu = NULL, attr computing a page's attributes when it joins
 * (then every page has an observability, and n_complete, the complete pages among the n or an
 * estimate of them, sizes the queue as the array's count would: it costs no pass over the n). */
typedef struct cs_cache_pages {
    int64_t n;
    const int64_t *id; /* global page ids (keys of the change streams); NULL: id = local index */
    const double *mu;
    const double *delta;
    const uint8_t *complete;
    cs_cache_attr_fn attr;
    const void *attr_arg;
    int64_t n_complete;
} cs_cache_pages;

typedef struct cs_cache_opts {
    uint64_t seed;      /* the world's seed (change streams) */
    double t0;          /* start time: polls begin here */
    double queue_width; /* calendar-queue bucket width in time units (default 1/16) */
    int64_t
        queue_slots; /* buckets, rounded up to a power of two (0: about one per complete page) */
} cs_cache_opts;

/* Local. Defaults: seed 0, t0 0, queue_width 1/16, queue_slots 0. */
CS_API void cs_cache_opts_default(cs_cache_opts *o);

/*
 * Called once per change of a complete-observation page, in time order per page: page is the
 * local index, tau the change time, k its index in the page's change stream. Returning nonzero
 * crawls the page at tau (the change is then picked up at once and costs nothing).
 */
typedef int (*cs_cache_change_fn)(void *arg, int64_t page, double tau, uint64_t k);

/* Local. A cache over pg (borrowed; mu, delta finite > 0 for pages that will be cached). Empty:
 * no page cached. O(1) memory but the queue's buckets. Errors: CS_ERR_ARG (bad opts), CS_ERR_LIMIT
 * (n >= 2^32 - 1), CS_ERR_NOMEM. */
CS_API cs_err cs_cache_create(cs_ctx *ctx, const cs_cache_pages *pg, const cs_cache_opts *opts,
                              cs_cache **out);
/* Local. Frees the cache; accepts NULL and sets *c = NULL. */
CS_API void cs_cache_destroy(cs_cache **c);

/* Local. Page i (local index) joins the cache, fresh at time t (its first fetch): its changes at
 * or before t are skipped. CS_ERR_ARG if already cached, closed, t before the last poll, or the
 * page's mu or delta is not finite and > 0; CS_ERR_NOMEM. */
CS_API cs_err cs_cache_add(cs_cache *c, int64_t i, double t);

/* Local. Whether page i is cached. */
CS_API int cs_cache_has(const cs_cache *c, int64_t i);

/*
 * Local. A crawl of cached page i at time t: closes its staleness interval (Eq. 1) and returns
 * in *changes (may be NULL) how many times the page changed since its previous crawl (z = 1 iff
 * > 0). For a complete page, its changes at or before t not yet polled are first delivered to fn
 * (if fn is not NULL; otherwise they are counted silently), each of which may crawl it earlier.
 * CS_ERR_ARG if i is not cached or the cache is closed.
 */
CS_API cs_err cs_cache_crawl(cs_cache *c, int64_t i, double t, cs_cache_change_fn fn, void *arg,
                             uint32_t *changes);

/*
 * Local. Delivers to fn every change of the cached complete pages in (last poll, t_hi], in time
 * order per page (not across pages). *notified and *crawled (may be NULL) receive the counts of
 * this call. Cost: the buckets spanned plus the pages due.
 */
CS_API cs_err cs_cache_poll(cs_cache *c, double t_hi, cs_cache_change_fn fn, void *arg,
                            int64_t *notified, int64_t *crawled);

/* The cached pages (slots, numbered in the order they joined) and their attributes, borrowed
 * until the next page joins. */
typedef struct cs_cache_slot_view {
    int64_t n;
    const int64_t *id;
    const double *mu, *delta;
    const uint8_t *complete; /* NULL when the pages have no observability */
    const uint32_t *local;   /* local indexes */
} cs_cache_slot_view;
/* Local. */
CS_API void cs_cache_slots(const cs_cache *c, cs_cache_slot_view *v);

/* Per-rank figures. */
typedef struct cs_cache_stats {
    int64_t cached;   /* pages in the cache */
    int64_t crawls;   /* crawls accounted (cs_cache_crawl and crawls from callbacks) */
    int64_t changes;  /* changes accounted (closed by a crawl or delivered) */
    int64_t notified; /* notifications delivered */
    int64_t bytes;    /* bookkeeping bytes (cs_cache_bytes) */
    double t_poll;    /* notifications are delivered up to this time */
} cs_cache_stats;

/* Local. */
CS_API void cs_cache_get_stats(const cs_cache *c, cs_cache_stats *s);
/* Local. Bookkeeping bytes: the slots' arrays (attributes included), the map and the queue. */
CS_API int64_t cs_cache_bytes(const cs_cache *c);

/*
 * Collective(ctx->comm). Logically collective: t. The integrals over [start, t] summed over all
 * ranks' cached pages: ih = int sum_w mu_w H(N_w) dt and ib = int sum_w mu_w 1{N_w > 0} dt, the
 * open intervals included up to t (read only: nothing is consumed). t must be >= every crawl and
 * poll time so far. Exact sums: the same bits for any rank or thread count and any order of
 * crawls. The time-averaged costs of Eq. 1 over [a, b] are (I(b) - I(a)) / (b - a).
 */
CS_API cs_err cs_cache_integrals(cs_ctx *ctx, const cs_cache *c, double t, double *ih, double *ib);
/* Local. The same for this rank's pages alone. */
CS_API void cs_cache_integrals_local(const cs_cache *c, double t, double *ih, double *ib);

/* Local. Moves the changes at or before t of the pages that are not complete into the closed
 * sums, as a poll does for complete pages' changes but notifying nobody: their terms -mu tau / n
 * (and -mu tau for the first) join the exact sums and the count n of the open interval, and the
 * page's change cursor moves past t. The integrals at any time >= t are the same numbers (their
 * last bits may differ: the terms are grouped differently), but cost O(changes since t) instead
 * of O(changes since the page's last crawl) a page. t must be >= every crawl and poll time so
 * far, and no crawl may come before t after it. Used at each re-solve (the simulator's sync). */
CS_API void cs_cache_settle(cs_cache *c, double t);

/* Local. Ends the run at t_end: closes every open interval into the sums (integrals at t_end
 * are unchanged) and refuses further crawls, polls and additions. CS_ERR_ARG if closed or t_end
 * before the last poll. */
CS_API cs_err cs_cache_close(cs_cache *c, double t_end);

/* Collective(ctx->comm) (ckpt.h). The cache's state (per cached page: staleness, change clocks,
 * open intervals; the running integrals) as items under "refresh/cache/", and its restoration
 * into a cache freshly created over the same pages, after which it behaves exactly as the
 * saved one would have. */
CS_API cs_err cs_cache_save(cs_ctx *ctx, const cs_cache *c, cs_ckpt *ck);
CS_API cs_err cs_cache_load(cs_ctx *ctx, cs_cache *c, cs_ckpt *ck);

/*
 * Local. The change times of page id (delta > 0) in (0, t_hi], from its stream alone (the
 * reference the cache draws from): writes at most cap of them into out and returns how many
 * there are. For tests and tools.
 */
CS_API int64_t cs_cache_change_times(uint64_t seed, int64_t id, double delta, double t_hi,
                                     double *out, int64_t cap);

/* Local. The harmonic number H(n) = sum_{i=1..n} 1/i (0 for n = 0), to 1e-15 relative. */
CS_API double cs_cache_harmonic(uint64_t n);

#endif
