/*
 * frontier: the key index's tiers (frontier.h, cs_frontier_set_hot).
 *
 * A frontier of 10^8 entries whose every key sits in the ordered index pays two descents of a
 * tree larger than the caches for most link records (the old key out, the new one in), although
 * a tick's selection reads only the best few thousand keys. With tiers the index holds the keys
 * >= a threshold tau, the best hot_max to 2 hot_max of them; an entry whose key is below tau
 * ("cold") is in no structure but its own arrays, so its records change nothing else. Every
 * index key is above every cold key, so the index's walk from the top sees the keys in the order
 * of all keys until it reaches tau; a walk that needs more lowers tau first (a refill: passes
 * over the entries' values for a histogram of the cold keys, then one that moves the best of
 * them into the index). The selection therefore reads exactly the keys it would read from a
 * whole index, and nothing a crawl computes depends on the tiers. What reads the lowest keys
 * (the evictions) makes the index whole once, for good: a frontier whose capacity binds keeps
 * every key indexed, as before the tiers.
 */
#include "frontier/frontier_impl.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Buckets of one refill level: 16 bits of the key. */
#define TIER_BITS 16
#define TIER_BUCKETS (1 << TIER_BITS)
/* At most this many parts share a refill's passes. */
#define TIER_MAX_PARTS 256

void fr_tier_reset(cs_frontier *f)
{
    f->tau = 0;
    f->cold_lo = UINT64_MAX;
    f->cold_lo_ok = 1;
}

void cs_frontier_set_hot(cs_frontier *f, int64_t hot_max)
{
    f->hot_max = hot_max > 0 ? hot_max : 0;
}

static inline uint64_t entry_key(const cs_frontier *f, int64_t i)
{
    return cs_frontier_key(f->q[i], f->id[i]);
}

void fr_tier_cold_range(cs_frontier *f, uint64_t *lo, uint64_t *hi)
{
    const uint64_t tau = f->tau;
    const int need_lo = lo != NULL && !f->cold_lo_ok;
    if (need_lo || hi != NULL) {
        uint64_t a = UINT64_MAX, b = 0;
        for (int64_t i = 0; i < f->n; i++) {
            const uint64_t k = entry_key(f, i);
            if (k < tau && fr_numeric(k)) {
                a = k < a ? k : a;
                b = k > b ? k : b;
            }
        }
        f->cold_lo = a;
        f->cold_lo_ok = 1;
        if (hi != NULL)
            *hi = b;
    }
    if (lo != NULL)
        *lo = f->cold_lo;
}

cs_err fr_tier_trim(cs_ctx *ctx, cs_frontier *f)
{
    cs_err rc = CS_OK;
    uint64_t *k = NULL;
    if (f->ix == NULL || f->whole || f->hot_max <= 0 || cs_findex_size(f->ix) <= 2 * f->hot_max)
        return CS_OK;
    const int64_t m = cs_findex_size(f->ix) - f->hot_max;
    CS_TRY(ctx, cs_alloc(ctx, &k, (size_t)m, sizeof *k, "frontier index tiers"));
    const int64_t got = cs_findex_up(f->ix, 0, k, m);
    CS_ASSERT(got == m);
    /* every cold key is below these: the lowest of a number among them is the tier's only when
     * it had none */
    for (int64_t i = 0; i < m; i++) {
        cs_findex_remove(f->ix, k[i]);
        if (f->cold_lo == UINT64_MAX)
            fr_cold_came(f, k[i]);
    }
    const int64_t one = cs_findex_up(f->ix, 0, &f->tau, 1); /* the lowest key it keeps */
    CS_ASSERT(one == 1);
fail:
    free(k);
    return rc;
}

cs_err fr_tier_whole(cs_ctx *ctx, cs_frontier *f)
{
    f->whole = 1;
    return f->tau > 0 ? fr_load_index(ctx, f) : CS_OK;
}

cs_err cs_frontier_index_whole(cs_ctx *ctx, cs_frontier *f)
{
    return f->ix != NULL ? fr_tier_whole(ctx, f) : CS_OK;
}

/* The parts of a refill's passes over the entries (1 below tier_par_min entries), one per
 * thread: part p covers entries [n p / P, n (p + 1) / P), whichever thread takes it. */
static int tier_parts(const cs_frontier *f)
{
    const int T = f->n >= f->tier_par_min ? omp_get_max_threads() : 1;
    return T < TIER_MAX_PARTS ? T : TIER_MAX_PARTS;
}

/* h[b] = how many cold keys k (< tau) lie in [prefix, prefix + span] with (k - prefix) >> shift
 * == b: a pass over the entries in P parts, each counting into its own row of hp (P rows of
 * TIER_BUCKETS), the rows summed in part order (integer counts: the same for any P). */
static void tier_hist(const cs_frontier *f, uint64_t tau, uint64_t prefix, uint64_t span, int shift,
                      int P, uint32_t *hp, int64_t *h)
{
    const int64_t n = f->n;
#pragma omp parallel num_threads(P) if (P > 1) default(none)                                       \
    shared(f, tau, prefix, span, shift, P, hp, h, n)
    {
#pragma omp for schedule(static, 1)
        for (int p = 0; p < P; p++) {
            uint32_t *row = hp + (size_t)p * TIER_BUCKETS;
            memset(row, 0, TIER_BUCKETS * sizeof *row);
            for (int64_t i = n * p / P; i < n * (p + 1) / P; i++) {
                const uint64_t k = entry_key(f, i);
                if (k < tau && k - prefix <= span && k >= prefix)
                    row[(k - prefix) >> shift]++;
            }
        }
#pragma omp for schedule(static)
        for (int64_t b = 0; b < TIER_BUCKETS; b++) {
            int64_t c = 0;
            for (int p = 0; p < P; p++)
                c += hp[(size_t)p * TIER_BUCKETS + (size_t)b];
            h[b] = c;
        }
    }
}

/*
 * The threshold below tau above which the cold tier holds at least `want` keys (0 when it holds
 * fewer), by histograms of 16 bits of the cold keys, level by level from the highest bits, each
 * a pass over the entries (on the rank's threads for a large frontier): a level's bucket that
 * brings the count to `want` becomes the next level's range, until the keys at or above it are
 * at most 2 want (or the bits run out).
 */
static cs_err refill_threshold(cs_ctx *ctx, const cs_frontier *f, int64_t want, uint64_t *t)
{
    cs_err rc = CS_OK;
    int64_t *h = NULL;
    uint32_t *hp = NULL;
    const int P = tier_parts(f);
    CS_TRY(ctx, cs_alloc(ctx, &h, TIER_BUCKETS, sizeof *h, "frontier index tiers"));
    /* (a part's count fits 32 bits: a frontier holds fewer than 2^31 entries) */
    CS_TRY(ctx, cs_alloc(ctx, &hp, (size_t)P * TIER_BUCKETS, sizeof *hp, "frontier index tiers"));
    const uint64_t tau = f->tau;
    uint64_t prefix = 0; /* the range's keys share the bits above shift + TIER_BITS with it */
    int64_t above = 0;   /* cold keys above the range */
    *t = 0;
    for (int shift = 64 - TIER_BITS; shift >= 0; shift -= TIER_BITS) {
        const uint64_t span =
            shift + TIER_BITS >= 64 ? UINT64_MAX : (1ULL << (shift + TIER_BITS)) - 1;
        tier_hist(f, tau, prefix, span, shift, P, hp, h);
        int64_t b = TIER_BUCKETS - 1, sum = above;
        while (b >= 0 && sum + h[b] < want)
            sum += h[b--];
        if (b < 0)
            break; /* fewer than want cold keys: all of them (t = 0 within the first level) */
        prefix += (uint64_t)b << shift;
        above = sum;
        *t = prefix;
        if (above + h[b] <= 2 * want)
            break;
    }
fail:
    free(hp);
    free(h);
    return rc;
}

/* The keys in [t, tau) into *keys (allocated; *m of them), in an order that the caller sorts:
 * two passes over the entries in P parts, a count per part, then each part's keys at its own
 * offset. CS_ERR_NOMEM. */
static cs_err cold_keys_from(cs_ctx *ctx, const cs_frontier *f, uint64_t t, uint64_t **keys,
                             int64_t *m)
{
    cs_err rc = CS_OK;
    const uint64_t tau = f->tau;
    const int64_t n = f->n;
    const int P = tier_parts(f);
    int64_t at[TIER_MAX_PARTS + 1] = {0};
#pragma omp parallel for num_threads(P) if (P > 1) default(none) shared(f, t, tau, n, at, P)       \
    schedule(static, 1)
    for (int p = 0; p < P; p++) {
        int64_t c = 0;
        for (int64_t i = n * p / P; i < n * (p + 1) / P; i++) {
            const uint64_t key = entry_key(f, i);
            c += key >= t && key < tau;
        }
        at[p + 1] = c;
    }
    for (int p = 0; p < P; p++)
        at[p + 1] += at[p];
    uint64_t *k = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &k, 2 * (size_t)at[P] + 1, sizeof *k, "frontier index tiers"));
#pragma omp parallel for num_threads(P) if (P > 1) default(none) shared(f, t, tau, n, at, P, k)    \
    schedule(static, 1)
    for (int p = 0; p < P; p++) {
        int64_t j = at[p];
        for (int64_t i = n * p / P; i < n * (p + 1) / P; i++) {
            const uint64_t key = entry_key(f, i);
            if (key >= t && key < tau)
                k[j++] = key;
        }
    }
    *keys = k;
    *m = at[P];
fail:
    return rc;
}

/* The cold keys >= a threshold into the index (tau lowered to it); at least `want` of them when
 * the cold tier holds that many, else all (tau = 0). */
static cs_err refill(cs_ctx *ctx, cs_frontier *f, int64_t want)
{
    cs_err rc = CS_OK;
    uint64_t t = 0, *k = NULL;
    int64_t m = 0;
    CS_TRY(ctx, refill_threshold(ctx, f, want, &t));
    CS_TRY(ctx, cold_keys_from(ctx, f, t, &k, &m));
    cs_sort_u64(k, m, k + m); /* ascending: neighbouring descents share their paths */
    for (int64_t i = 0; i < m; i++) {
        int added = 0;
        CS_TRY(ctx, cs_findex_insert(ctx, f->ix, k[i], &added));
    }
    f->tau = t;
    if (f->cold_lo_ok && f->cold_lo >= t) /* every cold key of a number moved up */
        f->cold_lo = UINT64_MAX;
    if (t == 0)
        fr_tier_reset(f);
fail:
    free(k);
    return rc;
}

cs_err cs_frontier_index_down(cs_ctx *ctx, cs_frontier *f, uint64_t bound, uint64_t *out, int64_t m,
                              int64_t *got)
{
    cs_err rc = CS_OK;
    CS_ASSERT(f->ix != NULL);
    int64_t n = cs_findex_down(f->ix, bound, out, m);
    while (n < m && f->tau > 0) {
        /* the index has no more keys <= bound: the cold tier's best join it first (they are
         * below every index key, so the walk goes on where it stopped) */
        CS_TRY(ctx, refill(ctx, f, f->hot_max > m - n ? f->hot_max : m - n));
        n = cs_findex_down(f->ix, bound, out, m);
    }
    *got = n;
fail:
    return rc;
}

/* ---- the value range (frontier.h) ----------------------------------------------------------- */

/* The value whose key (cs_frontier_key) has `key`'s high word. */
static float key_value(uint64_t key)
{
    uint32_t b = (uint32_t)(key >> 32);
    b = (b & 0x80000000u) ? (b & 0x7fffffffu) : ~b;
    float q;
    memcpy(&q, &b, sizeof q);
    return q;
}

void cs_frontier_value_range(cs_frontier *f, double *lo, double *hi)
{
    float a = INFINITY, b = -INFINITY;
    if (f->ix != NULL && (f->tau > 0 || cs_findex_size(f->ix) == f->n)) {
        /* the keys of the numbers run from -inf's lowest key to +inf's highest; a NaN's key lies
         * outside them, below for a negative NaN, above for a positive one. With tiers the
         * lowest is the cold tier's when it has one, the highest the index's when it has one
         * (every index key is above every cold key) */
        uint64_t k, clo = UINT64_MAX, chi = 0;
        if (f->tau > 0)
            fr_tier_cold_range(f, &clo, NULL);
        if (clo != UINT64_MAX)
            a = key_value(clo);
        else if (cs_findex_up(f->ix, fr_klo(), &k, 1) == 1 && k <= fr_khi())
            a = key_value(k);
        if (cs_findex_down(f->ix, fr_khi(), &k, 1) == 1 && k >= fr_klo()) {
            b = key_value(k);
        } else if (f->tau > 0) {
            fr_tier_cold_range(f, NULL, &chi);
            if (chi > 0)
                b = key_value(chi);
        }
    } else {
        const float *q = f->q;
#pragma omp simd reduction(min : a) reduction(max : b)
        for (int64_t i = 0; i < f->n; i++) {
            a = q[i] < a ? q[i] : a;
            b = q[i] > b ? q[i] : b;
        }
        /* a min (max) reduction's copies start at +inf (-inf) with gcc but at the largest
         * (smallest) finite float with clang: a result there may be that start, where no value
         * lies below (above) it, so a pass without the clause decides (a frontier of +inf, -inf
         * or NaN values alone, or empty; never in a crawl's usual course) */
        if (a == FLT_MAX || b == -FLT_MAX) {
            a = INFINITY;
            b = -INFINITY;
            for (int64_t i = 0; i < f->n; i++) {
                a = q[i] < a ? q[i] : a;
                b = q[i] > b ? q[i] : b;
            }
        }
    }
    *lo = (double)a;
    *hi = (double)b;
}
