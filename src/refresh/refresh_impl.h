/*
 * refresh internals: the exact signed accumulator (cs_xsum) of the cache's staleness integrals.
 * The fixed-point sums with a global bound and the collectives the re-crawl policies use instead
 * of calling MPI are in comm.h.
 */
#ifndef CRAWLSIM_REFRESH_IMPL_H
#define CRAWLSIM_REFRESH_IMPL_H

#include "crawlsim/cache.h"
#include "crawlsim/comm.h"
#include "crawlsim/refresh.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* INFINITY and NAN are floats: -Wdouble-promotion wants the conversion spelled out. */
#define CS_INF ((double)INFINITY)
#define CS_NAN ((double)NAN)

/*
 * An exact signed accumulator for sums whose bound is not known in advance (staleness integrals
 * accumulated over a run). The value is a fixed-point integer of CS_XSUM_LIMBS 32-bit limbs, bit 0
 * weighing 2^-CS_XSUM_LOW: every double term is added exactly (terms below 2^-CS_XSUM_LOW are
 * truncated towards zero, deterministically; |terms| must stay below 2^(32 CS_XSUM_LIMBS -
 * CS_XSUM_LOW - 40)). Integer addition is associative, so the same terms in any order, on any
 * number of ranks, give the same bits: the idea of the fixed-point sums of comm.h, without the
 * global bound. Limbs stay signed int64 with carries deferred (normalised every 2^29 additions).
 */
#define CS_XSUM_LIMBS 12
#define CS_XSUM_LOW 192

typedef struct cs_xsum {
    int64_t limb[CS_XSUM_LIMBS];
    int64_t adds;
} cs_xsum;

/* Local. Zero. */
void cs_xsum_zero(cs_xsum *s);
/* Local. s += x (finite). */
void cs_xsum_add(cs_xsum *s, double x);
/* Local. s += t. */
void cs_xsum_merge(cs_xsum *s, const cs_xsum *t);
/* Local. Propagates carries: every limb but the top one in [0, 2^32). */
void cs_xsum_norm(cs_xsum *s);
/* Local. The value, rounded to double (deterministic: a function of the integer only). */
double cs_xsum_value(const cs_xsum *s);
/* Collective(ctx->comm). The sum over ranks of the accumulators a[0..n) into out[0..n) (one
 * allreduce of n * 12 int64). */
void cs_xsum_allreduce(cs_ctx *ctx, const cs_xsum *a, cs_xsum *out, int n);

/* ---- arrays over slots (the cache's and the re-crawl policy's) --------------------------------
 */

/* Local. Makes the n arrays *pp[j] (pointers to pointers, elements of sz[j] bytes), *cap
 * elements each, hold `need`: their capacity doubled (from 1024) until it does, and set on the
 * first call even for need 0 (the arrays are then never NULL); *cap the new capacity.
 * CS_ERR_NOMEM when one cannot grow (*cap unchanged; each keeps its old contents). */
cs_err cs_slots_reserve(void *const *pp, const size_t *sz, int n, int64_t *cap, int64_t need);

/* ---- the cache's slots (cache.h: the cached pages numbered in the order they joined) ------- */

/* Local. The slot of local page li, -1 when it is not cached. */
int64_t cs_cache_slot(const cs_cache *c, int64_t li);
/* Local. Slots in use (pages cached). */
int64_t cs_cache_n_slots(const cs_cache *c);

/* Local. The slots in increasing local index (the page order of the solves' sums), *m of them;
 * borrowed until the next page joins. Sorts the slots that joined since the last call and
 * merges them in: O(joins log joins + slots). */
const uint32_t *cs_cache_sorted(cs_cache *c, int64_t *m);

/* Local. The attributes of local page li in [0, n) (the caller's arrays or pg.attr). */
void cs_cache_attrs(const cs_cache *c, int64_t li, cs_cache_attr *a);

/* Local. cs_cache_add, giving the new slot in *slot (may be NULL). */
cs_err cs_cache_add_slot(cs_cache *c, int64_t i, double t, int64_t *slot);
/* Local. cs_cache_crawl and cs_cache_poll of slots: s and the callback's page are slots. */
cs_err cs_cache_crawl_slot(cs_cache *c, int64_t s, double t, cs_cache_change_fn fn, void *arg,
                           uint32_t *changes);
cs_err cs_cache_poll_slot(cs_cache *c, double t_hi, cs_cache_change_fn fn, void *arg,
                          int64_t *notified, int64_t *crawled);

/* What cs_cache_first_changes found for one page. */
typedef struct cs_cache_join {
    int64_t slot;    /* the page's slot when cached already, else -1 */
    cs_cache_attr a; /* otherwise its attributes */
    double tau;      /* and its first change after t (NaN: it cannot join) */
    uint64_t k;
} cs_cache_join;

/*
 * Local; the threads of the calling one share it (OpenMP). What cs_cache_add(c, idx[j], t)
 * would store for each of the pages idx[0..n) not cached, computed without changing the cache:
 * the page's attributes and the first change after t of its stream, jn[j].tau and its index
 * jn[j].k (tau = NaN where cs_cache_add would refuse the page: cached already, closed, bad t,
 * mu or delta). A pure function of the seed, the page and t, so the threads' results are the
 * serial loop's.
 */
void cs_cache_first_changes(const cs_cache *c, const int64_t *idx, int64_t n, double t,
                            cs_cache_join *jn);
/* Local. cs_cache_add_slot(c, i, t, slot) with what cs_cache_first_changes found for page i at
 * the same t (recomputed when tau is NaN, or the page cannot join: the same result and code). */
cs_err cs_cache_add_first(cs_cache *c, int64_t i, double t, const cs_cache_join *jn, int64_t *slot);

#endif
