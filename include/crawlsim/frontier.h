/*
 * frontier: a rank's bounded frontier of unvisited URLs (DESIGN.md "One rank, one tick").
 *
 * Entries live in structure-of-arrays form so that the hot loops touch only what they need:
 * the synchronous re-evaluation reads the packed feature codes (G bytes per entry) and writes
 * the values; selection reads values and ids. A hash table (open addressing, linear probing,
 * int32 slots at load factor <= 0.6) maps a page id to its entry, so a URL found again updates
 * its entry (one more parent) instead of adding a duplicate. Memory: 4 (id: page ids are below
 * 2^32) + 4 (value) + G (codes) + 24 (cs_frontier_link: parent aggregates, best anchor relevance)
 * + 6.7 (hash, 5/3 int32 slots per entry of any table size) bytes per entry at capacity:
 * 38.7 + G, 50.7 at G = 12 (the default a = 2), at most 54.7 with G <= 16. What is not stored is
 * derived: the best anchor's category buckets are the codes of the action's category groups
 * (cs_feat_action_keep_anchor).
 *
 * Ordering: entries compare by value, ties broken by the lower page id; cs_frontier_key maps
 * (value, id) to one unsigned 64-bit key with the same order, which the global top-B selection
 * searches on (comm.h). The frontier is bounded: cs_frontier_evict drops the lowest keys. A
 * frontier may keep its keys in order (cs_frontier_index_keys, findex.h), so that the best and
 * the lowest are found in O(log n) each instead of a pass over the entries. The
 * entries' order is not part of the contract: removals and evictions fill the holes they leave
 * from the tail (what stays the same is the set of entries, and a checkpoint restores the order).
 */
#ifndef CRAWLSIM_FRONTIER_H
#define CRAWLSIM_FRONTIER_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/features.h"
#include "crawlsim/findex.h"
#include "crawlsim/rng.h"

#include <stdint.h>
#include <string.h>

typedef struct cs_frontier cs_frontier;

/* What a URL found again updates (the insert of a link record): the parent aggregates and the
 * best anchor relevance, together in one aligned 24-byte record per entry (one cache line,
 * sometimes two) instead of several arrays (a line at a random place each per record). (Packed
 * without the TRES path, 21 bytes, it made the eviction's moves 7 % slower: bench_evict.) */
typedef struct cs_frontier_link {
    cs_feat_parents par;
    float anchor_rl; /* the best anchor relevance estimate seen */
} cs_frontier_link;
_Static_assert(sizeof(cs_frontier_link) == 24, "the frontier's memory figure counts 24 bytes");

/* Borrowed arrays of the n entries, valid until the next add, remove, evict or clear. */
typedef struct cs_frontier_view {
    int64_t n;
    int stride;   /* G: bytes of codes per entry */
    uint32_t *id; /* page ids */
    float *q;
    uint8_t *codes; /* n * stride */
    cs_frontier_link *lk;
} cs_frontier_view;

/* Local. An empty frontier holding at most `capacity` entries after eviction, with `stride`
 * bytes of codes per entry. Storage grows on demand. CS_ERR_ARG for capacity or stride < 1. */
CS_API cs_err cs_frontier_create(cs_ctx *ctx, int64_t capacity, int stride, cs_frontier **out);
/* Local. Frees; accepts NULL and sets *f = NULL. */
CS_API void cs_frontier_destroy(cs_frontier **f);
/*
 * The exploration order. Every entry has a tag, cs_frontier_tag(seed, page id): the high 32 bits
 * of a hash of (the frontier's tag seed, page id) above the page id, so tags are distinct and
 * uniform in their high bits. The hash table places an entry by its tag's high 32 bits (a
 * monotone map onto the slots), so the slots hold the tags in nearly increasing order and
 * cs_frontier_tags_up reads any range of them in order, in time proportional to what it reads.
 * cs_frontier_seed_tags sets the seed (before the first entry; 0 at creation).
 */
static inline uint64_t cs_frontier_tag(uint64_t seed, int64_t id)
{
    return (cs_mix64((uint64_t)id ^ seed) & 0xffffffff00000000u) | (uint32_t)id;
}
CS_API void cs_frontier_seed_tags(cs_frontier *f, uint64_t seed);
/* Local. The tags of the entries in [lo, hi], ascending: at least the `max` smallest (all of
 * them when there are fewer), in *tags[0..*n) (borrowed, valid until the frontier changes or this
 * is called again; *n may exceed max). O(*n + max) expected, whatever the frontier's size.
 * CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_tags_up(cs_ctx *ctx, cs_frontier *f, uint64_t lo, uint64_t hi,
                                  int64_t max, const uint64_t **tags, int64_t *n);
CS_API int64_t cs_frontier_size(const cs_frontier *f);
CS_API int64_t cs_frontier_capacity(const cs_frontier *f);
/*
 * Local. From now on (the frontier must be empty) the frontier keeps its entries' keys in an
 * ordered index (findex.h), so that the best keys (cs_frontier_index) and the evictions'
 * lowest are found without a pass over the entries. A key joins the index at the entry's first
 * cs_frontier_rekey (added entries are not in it) and leaves it with the entry (removals,
 * evictions, clear); a value written through the view is followed by cs_frontier_rekey. For
 * policies whose values change only when the engine writes them (not re-evaluated every tick).
 * CS_ERR_NOMEM.
 */
CS_API cs_err cs_frontier_index_keys(cs_ctx *ctx, cs_frontier *f);
/* Local. The index of the entries' keys, or NULL when the frontier keeps none. Borrowed. With
 * tiers (cs_frontier_set_hot) it holds the best keys only: read the best through
 * cs_frontier_index_down, the lowest after cs_frontier_index_whole. */
CS_API const cs_findex *cs_frontier_index(const cs_frontier *f);
/*
 * Local. The index's tiers: once the index holds more than 2 hot_max keys, it keeps the best
 * hot_max to 2 hot_max of them (those >= a threshold) and the others stay in their entries
 * alone, so that a record that changes a key below the threshold costs no descent of the index;
 * the best keys join the index again when a walk from the top needs them
 * (cs_frontier_index_down). 0 (at creation): every key in the index. Changes the time and the
 * memory, never what the frontier answers. Every entry must be indexed (rekeyed since it was
 * added) when the index is walked, made whole or asked for the value range.
 */
CS_API void cs_frontier_set_hot(cs_frontier *f, int64_t hot_max);
/* Local. cs_findex_down on the whole frontier's keys: the largest min(m, count) keys <= bound into
 * out[] in decreasing order, *got of them; with tiers, the cold keys' best join the index first
 * when it runs out. CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_index_down(cs_ctx *ctx, cs_frontier *f, uint64_t bound, uint64_t *out,
                                     int64_t m, int64_t *got);
/* Local. Every key into the index and no tiers from now on (before reading the lowest keys,
 * cs_findex_up, _count_below, _hist; the frontier's evictions do it themselves). Nothing when
 * the frontier keeps no index. CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_index_whole(cs_ctx *ctx, cs_frontier *f);
/* Local. Entry e's key was `old` (cs_frontier_key of its value before; for an entry not yet in
 * the index, any key absent from it, such as that of its zeroed value): the index drops old and
 * takes the entry's key now (nothing when the frontier keeps no index). Idempotent: an entry
 * rekeyed twice from the same old key is indexed once. CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_rekey(cs_ctx *ctx, cs_frontier *f, int64_t e, uint64_t old);
/* Local. cs_frontier_rekey of entries e[i] from keys old[i], i in [0, n), in that order, the
 * index's descents of a few dozen at a time prefetched together (cs_findex_prefetch): a
 * tick's rekeys at random places of a large index overlap their misses. CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_rekey_many(cs_ctx *ctx, cs_frontier *f, const int64_t *e,
                                     const uint64_t *old, int64_t n);
/* Local. Sets entry e's value to q and rekeys it. CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_set_value(cs_ctx *ctx, cs_frontier *f, int64_t e, float q);
/* Local. The borrowed arrays. */
CS_API void cs_frontier_view_get(cs_frontier *f, cs_frontier_view *v);
/* Local. The entry of page id, or -1. */
CS_API int64_t cs_frontier_find(const cs_frontier *f, int64_t id);
/* Local. Hints for a find of `id` that follows soon (a batch of lookups at random places):
 * stage 1 prefetches its hash slot; stage 2, issued later, reads the slot and prefetches the
 * entry it points to. Neither changes anything. */
CS_API void cs_frontier_prefetch(const cs_frontier *f, int64_t id, int stage);
/* Entries hold page ids in [0, 2^32) (the key's low word, cs_frontier_key). */
/* Local. Appends a zeroed entry for id (which must not be present) and returns its index in
 * *slot. CS_ERR_NOMEM, CS_ERR_LIMIT (2^31 - 2 entries). */
CS_API cs_err cs_frontier_add(cs_ctx *ctx, cs_frontier *f, int64_t id, int64_t *slot);
/* Local. The entry of id in *slot; when id is not present, appends a zeroed entry for it first
 * (one probe sequence for both) and sets *added. Errors as cs_frontier_add. */
CS_API cs_err cs_frontier_find_or_add(cs_ctx *ctx, cs_frontier *f, int64_t id, int64_t *slot,
                                      int *added);
/* The flag of cs_frontier_add_new's out values for a page's first occurrence. */
#define CS_FRONTIER_ADDED ((int64_t)1 << 40)
/* Local; parallel over the calling rank's OpenMP threads (call it outside parallel regions).
 * Adds the pages ids[0..n), none of them in the frontier, some possibly repeated: one zeroed
 * entry per distinct page, appended in the order of first occurrences, exactly as n calls of
 * cs_frontier_find_or_add would (the result does not depend on the thread count). ent[j] is the
 * entry of ids[j], | CS_FRONTIER_ADDED at the page's first occurrence. Errors as
 * cs_frontier_add. */
CS_API cs_err cs_frontier_add_new(cs_ctx *ctx, cs_frontier *f, const int64_t *ids, int64_t n,
                                  int64_t *ent);
/* Local. Removes entry `slot` (the last entry moves into its place). */
CS_API void cs_frontier_remove(cs_frontier *f, int64_t slot);
/* Local; parallel over the calling rank's OpenMP threads (call it outside parallel regions).
 * Removes the entries sl[0..k) (distinct, increasing), leaving the entries exactly as
 * cs_frontier_remove of each in decreasing order would. CS_ERR_NOMEM (nothing removed). */
CS_API cs_err cs_frontier_remove_sorted(cs_ctx *ctx, cs_frontier *f, const int64_t *sl, int64_t k);
/* Local. Evicts the lowest-keyed entries until at most capacity remain; returns how many. */
CS_API int64_t cs_frontier_evict(cs_frontier *f);
/* Local. Drops every entry whose key (cs_frontier_key) is below cut, whatever the capacity
 * (the strict setting's global capacity: the cut comes from cs_comm_kth_largest); returns how
 * many. */
CS_API int64_t cs_frontier_evict_below(cs_frontier *f, uint64_t cut);
/* Local. cs_frontier_evict_below with the entries' keys given: keys[i] = cs_frontier_key of entry
 * i, for i < cs_frontier_size (one pass over the values and ids fewer). */
CS_API int64_t cs_frontier_evict_below_keys(cs_frontier *f, const uint64_t *keys, uint64_t cut);
/* Local. Removes every entry. */
CS_API void cs_frontier_clear(cs_frontier *f);
/* Collective(ctx->comm) (ckpt.h). The entries in slot order as items "frontier/..." (id, value,
 * codes, the link records: parent aggregates and anchor relevance), and their restoration into
 * an empty frontier of the same stride: entries keep their slots, so a restored frontier selects,
 * evicts and removes exactly as the saved one would have. Load errors: CS_ERR_FORMAT (another
 * stride), those of cs_ckpt_get, CS_ERR_NOMEM. */
CS_API cs_err cs_frontier_save(cs_ctx *ctx, const cs_frontier *f, cs_ckpt *ck);
CS_API cs_err cs_frontier_load(cs_ctx *ctx, cs_frontier *f, cs_ckpt *ck);
/* Local. The smallest and largest values of the entries, NaN values left out (+inf and -inf when
 * no value is a number): from the ends of the key index in O(log n) when the frontier keeps one,
 * else by a pass over the values. A zero's sign may differ between the two (the index orders
 * -0 below +0; the pass keeps the first it meets). */
CS_API void cs_frontier_value_range(cs_frontier *f, double *lo, double *hi);
/* Local. Bytes of memory per entry at the current size (arrays, hash table and the index). */
CS_API double cs_frontier_bytes_per_entry(const cs_frontier *f);

/* Local. The selection key: higher value first, then lower id. ids must be < 2^32. */
static inline uint64_t cs_frontier_key(float q, int64_t id)
{
    uint32_t b;
    memcpy(&b, &q, sizeof b);
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return ((uint64_t)b << 32) | (uint64_t)(0xffffffffu - (uint32_t)id);
}

/* Local. The page id a key (cs_frontier_key, or any key with the same low 32 bits) encodes. */
static inline int64_t cs_frontier_key_id(uint64_t key)
{
    return (int64_t)(0xffffffffu - (uint32_t)key);
}

#endif
