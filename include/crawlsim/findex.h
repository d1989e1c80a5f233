/*
 * findex: an ordered set of unsigned 64-bit keys (the frontier's selection keys, cs_frontier_key)
 * with counts: a B+-tree whose leaves hold up to 64 sorted keys, linked both ways, and whose inner
 * nodes hold per child the lower end of its range and how many keys it holds. Inserting or
 * removing a key, counting the keys below a bound and finding the first key of a walk cost
 * O(log n); a walk then costs O(1) per key, in either direction. So a selection reads the best B
 * keys, and an eviction the lowest, in O(B log n) whatever the frontier's size.
 *
 * Leaves left empty by removals leave the tree; when the leaves hold on average less than a
 * quarter of their room, the tree is rebuilt from its keys (O(n), amortised over at least as many
 * changes). Memory: 8 bytes per key at a leaf's fill (about 11 bytes a key at three quarters),
 * and about 1/40 of that for the inner nodes. Nothing here depends on the keys' meaning.
 */
#ifndef CRAWLSIM_FINDEX_H
#define CRAWLSIM_FINDEX_H

#include "crawlsim/core.h"

#include <stdint.h>

typedef struct cs_findex cs_findex;

/* Local. An empty index. CS_ERR_NOMEM. */
CS_API cs_err cs_findex_create(cs_ctx *ctx, cs_findex **out);
/* Local. Frees; accepts NULL and sets *x = NULL. */
CS_API void cs_findex_destroy(cs_findex **x);
/* Local. Removes every key. */
CS_API void cs_findex_clear(cs_findex *x);
/* Local. The number of keys. */
CS_API int64_t cs_findex_size(const cs_findex *x);
/* Local. Adds key when absent (*added = 1), else nothing (*added = 0). CS_ERR_NOMEM (the index
 * unchanged). */
CS_API cs_err cs_findex_insert(cs_ctx *ctx, cs_findex *x, uint64_t key, int *added);
/* Local. Removes key when present; returns whether it was. */
CS_API int cs_findex_remove(cs_findex *x, uint64_t key);
/* Local. A hint before operations on keys[0..n): brings the inner nodes and leaves their
 * descents read into the caches, FX_GROUP keys at a time level by level, so that the misses of
 * a group's descents overlap instead of following one another (a descent alone waits for a miss
 * per level below the cached ones). Changes nothing; n small enough that the lines stay cached
 * until the operations (a few dozen keys). Does nothing for an index of fewer than 2^19 keys,
 * which the caches hold: there the prefetching descent would only be a second one. */
CS_API void cs_findex_prefetch(const cs_findex *x, const uint64_t *keys, int64_t n);
/* Local. Replaces the keys with keys[0..n) (ascending, distinct): O(n). CS_ERR_NOMEM (then the
 * index is empty). */
CS_API cs_err cs_findex_load(cs_ctx *ctx, cs_findex *x, const uint64_t *keys, int64_t n);
/* Local. How many keys are < bound. */
CS_API int64_t cs_findex_count_below(const cs_findex *x, uint64_t bound);
/* Local. The largest min(m, count) keys <= bound into out[], in decreasing order; returns how
 * many. */
CS_API int64_t cs_findex_down(const cs_findex *x, uint64_t bound, uint64_t *out, int64_t m);
/* Local. The smallest min(m, count) keys >= bound into out[], in increasing order; returns how
 * many. */
CS_API int64_t cs_findex_up(const cs_findex *x, uint64_t bound, uint64_t *out, int64_t m);
/* Local. h[b] for b < nb (nb <= 256): how many keys k have k >> shift == (prefix >> shift) + b,
 * where prefix has no bit below shift + log2(nb) set (the histogram of cs_comm_kth_largest's
 * rounds, from 2 nb counts instead of a pass over the keys). */
CS_API void cs_findex_hist(const cs_findex *x, uint64_t prefix, int shift, int nb, int64_t *h);
/* Local. Bytes of memory in use (nodes, leaves and their free lists). */
CS_API double cs_findex_bytes(const cs_findex *x);
/* Local. 1 when the structure's invariants hold (order, counts, links, ranges), else 0 (for
 * tests). */
CS_API int cs_findex_check(const cs_findex *x);

#endif
