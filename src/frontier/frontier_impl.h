/*
 * frontier: the frontier's representation, shared by its files (frontier.c: entries, hash,
 * removals, evictions, checkpoints; ftier.c: the key index's tiers). Not installed.
 */
#ifndef CRAWLSIM_FRONTIER_IMPL_H
#define CRAWLSIM_FRONTIER_IMPL_H

#include "crawlsim/frontier.h"

#include <math.h>

/* Entries from which a refill of the index's tiers runs its passes on the threads (a frontier's
 * tier_par_min at creation; the tests lower it). */
#define FR_TIER_PARALLEL ((int64_t)1 << 20)

struct cs_frontier {
    int64_t n, cap_alloc, capacity;
    int stride;
    uint32_t *id;
    float *q;
    uint8_t *codes;
    cs_frontier_link *lk;
    int32_t *slots; /* nslots slots, -1 empty */
    uint64_t nslots, tag_seed;
    uint64_t *scratch; /* eviction keys, removals' work arrays */
    int64_t scratch_cap;
    int64_t *drop; /* the entries an eviction drops, increasing */
    int64_t drop_cap;
    cs_findex *ix; /* the entries' keys in order (cs_frontier_index_keys), or NULL */
    /* The index's tiers (ftier.c): ix holds the keys >= tau, the entries alone the lower ones
     * ("cold"). tau = 0: every key in ix. hot_max: the keys ix keeps once it holds twice as many
     * (0: no tiers); whole: no tiers from now on (an eviction reads the lowest keys). cold_lo:
     * the lowest cold key of a number (fr_numeric), UINT64_MAX for none, known when cold_lo_ok. */
    uint64_t tau, cold_lo;
    int64_t hot_max;
    int64_t tier_par_min; /* entries from which a refill's passes share the threads */
    int whole, cold_lo_ok;
    uint64_t *low; /* an indexed eviction's keys and their sort's scratch */
    int64_t low_cap;
    uint64_t *tags; /* cs_frontier_tags_up's answer */
    size_t tags_cap;
};

/* The keys of values that are numbers run from fr_klo (-inf, the largest id) to fr_khi (+inf,
 * id 0); a NaN's key lies outside them. */
static inline uint64_t fr_klo(void)
{
    return cs_frontier_key(-INFINITY, UINT32_MAX);
}
static inline uint64_t fr_khi(void)
{
    return cs_frontier_key(INFINITY, 0);
}
static inline int fr_numeric(uint64_t key)
{
    return key >= fr_klo() && key <= fr_khi();
}

/* ftier.c. A key that leaves the cold tier (its entry's key changed or the entry left). */
static inline void fr_cold_gone(cs_frontier *f, uint64_t key)
{
    if (key == f->cold_lo)
        f->cold_lo_ok = 0;
}
/* A key that joins the cold tier. */
static inline void fr_cold_came(cs_frontier *f, uint64_t key)
{
    if (f->cold_lo_ok && fr_numeric(key) && key < f->cold_lo)
        f->cold_lo = key;
}
/* No tiers: every key in the index (tau = 0), the cold tier empty. */
void fr_tier_reset(cs_frontier *f);
/* When the index holds more than 2 hot_max keys: its lowest beyond hot_max go to the cold tier
 * (tau raised). CS_ERR_NOMEM. */
cs_err fr_tier_trim(cs_ctx *ctx, cs_frontier *f);
/* Every cold key into the index, and no tiers from now on (before an eviction reads the
 * lowest keys). CS_ERR_NOMEM. */
cs_err fr_tier_whole(cs_ctx *ctx, cs_frontier *f);
/* The cold tier's lowest key of a number into *lo (known, or found by a pass over the entries),
 * its highest into *hi (a pass); UINT64_MAX and 0 for none. Either may be NULL. */
void fr_tier_cold_range(cs_frontier *f, uint64_t *lo, uint64_t *hi);
/* The index rebuilt from every entry's key (frontier.c). CS_ERR_NOMEM. */
cs_err fr_load_index(cs_ctx *ctx, cs_frontier *f);

#endif
