/*
 * frontier: the bounded frontier (structure of arrays + id hash), see frontier.h.
 */
#include "crawlsim/rng.h"
#include "frontier/frontier_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Entry i becomes a zeroed entry of page id. */
static inline void zero_entry(const cs_frontier *f, int64_t i, int64_t id)
{
    CS_ASSERT(id >= 0 && id <= (int64_t)UINT32_MAX);
    f->id[i] = (uint32_t)id;
    f->q[i] = 0.0f;
    memset(f->codes + i * f->stride, 0, (size_t)f->stride);
    memset(&f->lk[i], 0, sizeof f->lk[i]);
}

/* Entry `from`'s data copied into entry `to` (the hash not touched). */
static inline void copy_entry(const cs_frontier *f, int64_t to, int64_t from)
{
    f->id[to] = f->id[from];
    f->q[to] = f->q[from];
    memcpy(f->codes + to * f->stride, f->codes + from * f->stride, (size_t)f->stride);
    f->lk[to] = f->lk[from];
}

/* The home slot of a tag: its high 32 bits times nslots, the high word (Lemire's multiply-shift
 * range map; nslots < 2^32), monotone in the tag. */
static inline uint64_t home_of_tag(const cs_frontier *f, uint64_t tag)
{
    return ((tag >> 32) * f->nslots) >> 32;
}

static inline uint64_t slot_of(const cs_frontier *f, int64_t id)
{
    return home_of_tag(f, cs_frontier_tag(f->tag_seed, id));
}

static inline uint64_t next_slot(const cs_frontier *f, uint64_t s)
{
    return s + 1 == f->nslots ? 0 : s + 1;
}

/* Cyclic distance from slot a forward to slot b. */
static inline uint64_t cyc(const cs_frontier *f, uint64_t a, uint64_t b)
{
    return b >= a ? b - a : b + f->nslots - a;
}

/* Entries from which the hash's rebuild runs on the rank's OpenMP threads. */
#define PAR_MIN 4096

/* Claims the first empty slot of id's probe sequence for value v (concurrent inserts of distinct
 * ids: an empty slot is taken by one compare-and-swap, never given back). Returns the slot. */
static uint64_t claim_slot(const cs_frontier *f, int64_t id, int32_t v)
{
    for (uint64_t s = slot_of(f, id);; s = next_slot(f, s)) {
        int32_t e = -1;
        if (__atomic_load_n(&f->slots[s], __ATOMIC_RELAXED) == -1 &&
            __atomic_compare_exchange_n(&f->slots[s], &e, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return s;
    }
}

#define REHASH_AHEAD 64 /* entries between a home slot's prefetch and its use (a power of 2) */

/* The hash rebuilt by one thread (every tick of a full frontier, after its eviction): plain
 * stores, and each entry's home slot (a miss at a random place once the table outgrows the
 * caches) computed and prefetched REHASH_AHEAD entries before the entry is placed, so that the
 * misses overlap. (Sorting the entries by home slot first, so that the table is filled range
 * by range, was slower: bench_evict.) */
static void rehash_serial(cs_frontier *f)
{
    const int64_t n = f->n;
    const uint64_t ns = f->nslots;
    int32_t *slots = f->slots;
    uint64_t home[REHASH_AHEAD];
    memset(slots, 0xff, (size_t)ns * sizeof *slots); /* -1 */
    for (int64_t i = 0; i < n + REHASH_AHEAD; i++) {
        const int r = (int)(i & (REHASH_AHEAD - 1));
        if (i >= REHASH_AHEAD) {
            uint64_t s = home[r];
            while (slots[s] >= 0)
                s = s + 1 == ns ? 0 : s + 1;
            slots[s] = (int32_t)(i - REHASH_AHEAD);
        }
        if (i < n) {
            home[r] = slot_of(f, f->id[i]);
            __builtin_prefetch(&slots[home[r]], 1);
        }
    }
}

/* The hash rebuilt from the entries. Which slot holds an entry depends on the order of the
 * inserts (in parallel: on the threads' timing), never which entry a page finds: no result
 * reads the slots' layout. */
static void rehash(cs_frontier *f)
{
    const int64_t n = f->n;
    const uint64_t ns = f->nslots;
    if (n < PAR_MIN || omp_get_max_threads() == 1) {
        rehash_serial(f);
        return;
    }
    int32_t *slots = f->slots;
    const cs_frontier *cf = f;
#pragma omp parallel default(none) shared(cf, slots, n, ns)
    {
#pragma omp for schedule(static)
        for (uint64_t s = 0; s < ns; s++)
            slots[s] = -1;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++)
            claim_slot(cf, cf->id[i], (int32_t)i);
    }
}

cs_err cs_frontier_create(cs_ctx *ctx, int64_t capacity, int stride, cs_frontier **out)
{
    cs_err rc = CS_OK;
    cs_frontier *f = NULL;
    if (capacity < 1 || stride < 1)
        return cs_fail(ctx, CS_ERR_ARG, "frontier: capacity %lld and stride %d must be >= 1",
                       (long long)capacity, stride);
    CS_TRY(ctx, cs_calloc(ctx, &f, 1, sizeof *f, "frontier"));
    f->capacity = capacity;
    f->stride = stride;
    f->nslots = 1024;
    f->tier_par_min = FR_TIER_PARALLEL;
    fr_tier_reset(f);
    CS_TRY(ctx, cs_alloc(ctx, &f->slots, (size_t)f->nslots, sizeof *f->slots, "frontier hash"));
    rehash(f);
    *out = f;
    return CS_OK;
fail:
    cs_frontier_destroy(&f);
    return rc;
}

void cs_frontier_destroy(cs_frontier **pf)
{
    if (pf == NULL || *pf == NULL)
        return;
    cs_frontier *f = *pf;
    free(f->id);
    free(f->q);
    free(f->codes);
    free(f->lk);
    free(f->slots);
    free(f->scratch);
    free(f->drop);
    free(f->low);
    free(f->tags);
    cs_findex_destroy(&f->ix);
    free(f);
    *pf = NULL;
}

int64_t cs_frontier_size(const cs_frontier *f)
{
    return f->n;
}

int64_t cs_frontier_capacity(const cs_frontier *f)
{
    return f->capacity;
}

void cs_frontier_view_get(cs_frontier *f, cs_frontier_view *v)
{
    v->n = f->n;
    v->stride = f->stride;
    v->id = f->id;
    v->q = f->q;
    v->codes = f->codes;
    v->lk = f->lk;
}

void cs_frontier_seed_tags(cs_frontier *f, uint64_t seed)
{
    CS_ASSERT(f->n == 0);
    f->tag_seed = seed;
}

cs_err cs_frontier_index_keys(cs_ctx *ctx, cs_frontier *f)
{
    CS_ASSERT(f->n == 0);
    return f->ix != NULL ? CS_OK : cs_findex_create(ctx, &f->ix);
}

const cs_findex *cs_frontier_index(const cs_frontier *f)
{
    return f->ix;
}

cs_err cs_frontier_rekey(cs_ctx *ctx, cs_frontier *f, int64_t e, uint64_t old)
{
    if (f->ix == NULL)
        return CS_OK;
    const uint64_t key = cs_frontier_key(f->q[e], f->id[e]);
    int added = 0;
    if (key != old) {
        if (old >= f->tau)
            cs_findex_remove(f->ix, old);
        else
            fr_cold_gone(f, old);
    }
    if (key < f->tau) { /* the cold tier: the entry alone holds it */
        fr_cold_came(f, key);
        return CS_OK;
    }
    return cs_findex_insert(ctx, f->ix, key, &added);
}

/* Keys per group of the index's prefetched descents (cs_findex_prefetch): enough misses in
 * flight to cover the memory's latency, few enough lines to stay cached until used. */
#define IX_GROUP 32

cs_err cs_frontier_rekey_many(cs_ctx *ctx, cs_frontier *f, const int64_t *e, const uint64_t *old,
                              int64_t n)
{
    if (f->ix == NULL)
        return CS_OK;
    uint64_t k[2 * IX_GROUP];
    for (int64_t g = 0; g < n; g += IX_GROUP) {
        const int64_t m = n - g < IX_GROUP ? n - g : IX_GROUP;
        int64_t h = 0; /* the keys the index holds or takes (the cold tier's: no descent) */
        for (int64_t j = 0; j < m; j++) { /* the group's entries, at random places */
            __builtin_prefetch(&f->q[e[g + j]]);
            __builtin_prefetch(&f->id[e[g + j]]);
        }
        for (int64_t j = 0; j < m; j++) {
            const uint64_t ko = old[g + j], kn = cs_frontier_key(f->q[e[g + j]], f->id[e[g + j]]);
            k[h] = ko;
            h += ko >= f->tau;
            k[h] = kn;
            h += kn >= f->tau && kn != ko;
        }
        cs_findex_prefetch(f->ix, k, h);
        for (int64_t j = 0; j < m; j++) {
            const cs_err rc = cs_frontier_rekey(ctx, f, e[g + j], old[g + j]);
            if (rc != CS_OK)
                return rc;
        }
    }
    return fr_tier_trim(ctx, f);
}

cs_err cs_frontier_set_value(cs_ctx *ctx, cs_frontier *f, int64_t e, float q)
{
    const uint64_t old = cs_frontier_key(f->q[e], f->id[e]);
    f->q[e] = q;
    return cs_frontier_rekey(ctx, f, e, old);
}

int64_t cs_frontier_find(const cs_frontier *f, int64_t id)
{
    uint64_t s = slot_of(f, id);
    for (;;) {
        int32_t e = f->slots[s];
        if (e < 0)
            return -1;
        if ((int64_t)f->id[e] == id)
            return e;
        s = next_slot(f, s);
    }
}

void cs_frontier_prefetch(const cs_frontier *f, int64_t id, int stage)
{
    const uint64_t s = slot_of(f, id);
    if (stage == 1) {
        __builtin_prefetch(&f->slots[s]);
        return;
    }
    const int32_t e = f->slots[s];
    if (e < 0)
        return;
    __builtin_prefetch(&f->id[e]);
    __builtin_prefetch(&f->q[e]);
    __builtin_prefetch(&f->lk[e]);
    __builtin_prefetch((const char *)&f->lk[e + 1] - 1); /* 2 of 16 records straddle a line */
    __builtin_prefetch(f->codes + e * f->stride);
}

/* realloc of a block whose first `used` bytes matter, for large blocks copied on the rank's
 * threads (a copy and the new pages' first touch: the serial part of a growing frontier). NULL
 * when out of memory (p is then untouched). */
#define REGROW_PAR (1 << 20) /* bytes */
static void *regrow(void *p, size_t bytes, size_t used)
{
    if (used < REGROW_PAR || omp_get_max_threads() == 1) {
        void *r = realloc(p, bytes);
        cs_mem_huge(r, bytes, used);
        return r;
    }
    char *q = malloc(bytes);
    if (q == NULL)
        return NULL;
    cs_mem_huge(q, bytes, 0); /* before the copy's first touch */
    const char *from = p;
    const int64_t nb = (int64_t)((used + REGROW_PAR - 1) / REGROW_PAR);
#pragma omp parallel for default(none) shared(q, from, used, nb) schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const size_t at = (size_t)b * REGROW_PAR;
        memcpy(q + at, from + at, used - at < REGROW_PAR ? used - at : REGROW_PAR);
    }
    free(p);
    return q;
}

static cs_err grow(cs_ctx *ctx, cs_frontier *f, int64_t need)
{
    cs_err rc = CS_OK;
    if (need > f->cap_alloc) {
        int64_t cap = f->cap_alloc < 1024 ? 1024 : f->cap_alloc;
        while (cap < need)
            cap += cap / 2;
        if (need <= f->capacity && cap > f->capacity)
            cap = f->capacity; /* no growth slack beyond the capacity while within it */
        if (cap >= INT32_MAX)
            return cs_fail(ctx, CS_ERR_LIMIT, "frontier: more than 2^31 - 2 entries");
        size_t c = (size_t)cap, g = (size_t)f->stride, n = (size_t)f->n;
        void *p;
#define REGROW(field, bytes, used)                                                                 \
    do {                                                                                           \
        p = regrow(f->field, (bytes), (used));                                                     \
        if (p == NULL)                                                                             \
            return cs_fail(ctx, CS_ERR_NOMEM, "frontier: out of memory for %lld entries",          \
                           (long long)cap);                                                        \
        f->field = p;                                                                              \
    } while (0)
        REGROW(id, c * sizeof *f->id, n * sizeof *f->id);
        REGROW(q, c * sizeof *f->q, n * sizeof *f->q);
        REGROW(codes, c * g, n * g);
        REGROW(lk, c * sizeof *f->lk, n * sizeof *f->lk);
#undef REGROW
        f->cap_alloc = cap;
    }
    /* the hash follows the arrays: 5/3 slots per allocated entry (load <= 0.6, 6.7 bytes per
     * entry at capacity; a power-of-two table would cost 8 to 16) */
    if ((uint64_t)f->cap_alloc * 5 / 3 > f->nslots) {
        uint64_t slots = (uint64_t)f->cap_alloc * 5 / 3 + 1;
        int32_t *s = malloc((size_t)slots * sizeof *s); /* (rehash writes every slot) */
        if (s == NULL)
            return cs_fail(ctx, CS_ERR_NOMEM, "frontier: out of memory for its hash table");
        cs_mem_huge(s, (size_t)slots * sizeof *s, 0);
        free(f->slots);
        f->slots = s;
        f->nslots = slots;
        rehash(f);
    }
    return rc;
}

cs_err cs_frontier_add(cs_ctx *ctx, cs_frontier *f, int64_t id, int64_t *slot)
{
    cs_err rc = grow(ctx, f, f->n + 1);
    if (rc != CS_OK)
        return rc;
    int64_t i = f->n++;
    zero_entry(f, i, id);
    uint64_t s = slot_of(f, id);
    while (f->slots[s] >= 0)
        s = next_slot(f, s);
    f->slots[s] = (int32_t)i;
    *slot = i;
    return CS_OK;
}

cs_err cs_frontier_find_or_add(cs_ctx *ctx, cs_frontier *f, int64_t id, int64_t *slot, int *added)
{
    *added = 0;
    uint64_t s = slot_of(f, id);
    for (;; s = next_slot(f, s)) {
        const int32_t e = f->slots[s];
        if (e < 0)
            break;
        if ((int64_t)f->id[e] == id) {
            *slot = e;
            return CS_OK;
        }
    }
    if (f->n + 1 > f->cap_alloc || (uint64_t)f->cap_alloc * 5 / 3 > f->nslots) {
        const cs_err rc = cs_frontier_add(ctx, f, id, slot); /* grows, then probes again */
        *added = rc == CS_OK;
        return rc;
    }
    /* room without growing: s is the empty slot ending id's probe sequence */
    const int64_t i = f->n++;
    zero_entry(f, i, id);
    f->slots[s] = (int32_t)i;
    *slot = i;
    *added = 1;
    return CS_OK;
}

/*
 * The new pages' entries in parallel. Phase 1: each page j claims a slot with the placeholder
 * -2 - j (compare-and-swap on an empty slot); a page already placed by an earlier occurrence
 * (same id) lowers that placeholder to its own index when smaller (compare-and-swap again), so
 * the placeholder ends as the first occurrence's, whatever the threads' timing. Phase 2: each
 * occurrence reads its page's first occurrence; the first occurrences are counted by blocks,
 * and their prefix sums in block order give each its entry: the order of first occurrences, the
 * serial loop's. Phase 3: the entries are written and the placeholders replaced by them.
 */
#define ADD_BLOCK 1024
#define ADD_PAR_MIN 128 /* fewer new pages are added serially */

/* cs_frontier_add_new for few pages or one thread: one page after another. */
static cs_err add_new_serial(cs_ctx *ctx, cs_frontier *f, const int64_t *ids, int64_t n,
                             int64_t *ent)
{
    const int64_t n0 = f->n;
    for (int64_t j = 0; j < n; j++) {
        int64_t e = -1;
        int added = 0;
        cs_err rc = cs_frontier_find_or_add(ctx, f, ids[j], &e, &added);
        if (rc != CS_OK)
            return rc;
        CS_ASSERT(added || e >= n0); /* (a repeat of this batch's page) */
        ent[j] = e | (added ? CS_FRONTIER_ADDED : 0);
    }
    return CS_OK;
}

/* Room for n new entries and the parallel insertion's scratch (n slots and nb + 1 blocks). */
static cs_err reserve_new(cs_ctx *ctx, cs_frontier *f, int64_t n, int64_t nb)
{
    if (n > INT32_MAX - 2)
        return cs_fail(ctx, CS_ERR_LIMIT, "frontier: more than 2^31 - 2 entries");
    cs_err rc = grow(ctx, f, f->n + n);
    if (rc != CS_OK)
        return rc;
    if (f->scratch_cap < n + nb + 1) {
        uint64_t *p = realloc(f->scratch, (size_t)(n + nb + 1) * sizeof *p);
        if (p == NULL)
            return cs_fail(ctx, CS_ERR_NOMEM, "frontier: out of memory for %lld new entries",
                           (long long)n);
        f->scratch = p;
        f->scratch_cap = n + nb + 1;
    }
    return CS_OK;
}

/* Phase 1 (a worksharing loop of the caller's parallel region): page j's slot into pos[j], the
 * slot holding the placeholder of the page's first occurrence. */
static void claim_slots(const cs_frontier *cf, int32_t *slots, const int64_t *ids, int64_t n,
                        uint64_t *pos)
{
#pragma omp for schedule(static)
    for (int64_t j = 0; j < n; j++) {
        const int32_t mine = (int32_t)(-2 - j);
        for (uint64_t s = slot_of(cf, ids[j]);; s = next_slot(cf, s)) {
            int32_t v = __atomic_load_n(&slots[s], __ATOMIC_RELAXED);
            if (v == -1 && __atomic_compare_exchange_n(&slots[s], &v, mine, 0, __ATOMIC_RELAXED,
                                                       __ATOMIC_RELAXED)) {
                pos[j] = s;
                break;
            }
            /* (a failed exchange left the slot's new value in v) */
            if (v <= -2 && ids[-2 - v] == ids[j]) {
                /* the page's slot: keep the smaller index (the larger placeholder) */
                while (mine > v && !__atomic_compare_exchange_n(&slots[s], &v, mine, 0,
                                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                    ;
                pos[j] = s;
                break;
            }
        }
    }
}

/* Phase 2 (worksharing): each occurrence's first occurrence c (ent[j] = -1 - c for a repeat, 0
 * for a first), and the first occurrences counted per block of ADD_BLOCK into blk[nb]. */
static void count_firsts(const int32_t *slots, const uint64_t *pos, int64_t n, int64_t nb,
                         int64_t *ent, uint64_t *blk)
{
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t e = (b + 1) * ADD_BLOCK < n ? (b + 1) * ADD_BLOCK : n;
        uint64_t k = 0;
        for (int64_t j = b * ADD_BLOCK; j < e; j++) {
            const int64_t c = -2 - (int64_t)slots[pos[j]];
            ent[j] = c == j ? 0 : -1 - c;
            k += c == j;
        }
        blk[b] = k;
    }
}

/* Phase 3 (worksharing): the first occurrences' entries, in order from their block's offset
 * blk[b]; then (after the loop's barrier) the repeats take their first occurrence's entry and
 * the slots get the entries. */
static void write_entries(const cs_frontier *cf, int32_t *slots, const int64_t *ids, int64_t n,
                          int64_t nb, const uint64_t *pos, const uint64_t *blk, int64_t *ent)
{
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t e = (b + 1) * ADD_BLOCK < n ? (b + 1) * ADD_BLOCK : n;
        int64_t at = (int64_t)blk[b];
        for (int64_t j = b * ADD_BLOCK; j < e; j++) {
            if (ent[j] < 0)
                continue;
            zero_entry(cf, at, ids[j]);
            ent[j] = at++ | CS_FRONTIER_ADDED;
        }
    }
#pragma omp for schedule(static)
    for (int64_t j = 0; j < n; j++) {
        if (ent[j] < 0) {
            ent[j] = ent[-1 - ent[j]] & (CS_FRONTIER_ADDED - 1);
        } else {
            slots[pos[j]] = (int32_t)(ent[j] & (CS_FRONTIER_ADDED - 1));
        }
    }
}

cs_err cs_frontier_add_new(cs_ctx *ctx, cs_frontier *f, const int64_t *ids, int64_t n, int64_t *ent)
{
    if (n < ADD_PAR_MIN || omp_get_max_threads() == 1)
        return add_new_serial(ctx, f, ids, n, ent);
    const int64_t n0 = f->n;
    const int64_t nb = (n + ADD_BLOCK - 1) / ADD_BLOCK;
    cs_err rc = reserve_new(ctx, f, n, nb);
    if (rc != CS_OK)
        return rc;
    uint64_t *pos = f->scratch, *blk = f->scratch + n;
    const cs_frontier *cf = f;
    int32_t *slots = f->slots;
#pragma omp parallel default(none) shared(cf, slots, ids, n, ent, pos, blk, nb, n0)
    {
        claim_slots(cf, slots, ids, n, pos);
        count_firsts(slots, pos, n, nb, ent, blk);
#pragma omp single
        {
            uint64_t at = (uint64_t)n0;
            for (int64_t b = 0; b < nb; b++) {
                const uint64_t k = blk[b];
                blk[b] = at;
                at += k;
            }
            blk[nb] = at;
        }
        write_entries(cf, slots, ids, n, nb, pos, blk, ent);
    }
    f->n = (int64_t)blk[nb];
    return CS_OK;
}

/* Backward-shift deletion of hash slot s (linear probing keeps no tombstones). */
static void hash_delete(cs_frontier *f, uint64_t s)
{
    uint64_t hole = s;
    for (uint64_t j = next_slot(f, s); f->slots[j] >= 0; j = next_slot(f, j)) {
        uint64_t home = slot_of(f, f->id[f->slots[j]]);
        /* the entry at j may move to the hole if its home is not in (hole, j] cyclically */
        if (cyc(f, home, j) >= cyc(f, hole, j)) {
            f->slots[hole] = f->slots[j];
            hole = j;
        }
    }
    f->slots[hole] = -1;
}

static uint64_t hash_slot_of_entry(const cs_frontier *f, int64_t e)
{
    uint64_t s = slot_of(f, f->id[e]);
    while (f->slots[s] != (int32_t)e)
        s = next_slot(f, s);
    return s;
}

void cs_frontier_remove(cs_frontier *f, int64_t e)
{
    CS_ASSERT(e >= 0 && e < f->n);
    if (f->ix != NULL) {
        const uint64_t key = cs_frontier_key(f->q[e], f->id[e]);
        if (key >= f->tau)
            cs_findex_remove(f->ix, key);
        else
            fr_cold_gone(f, key);
    }
    hash_delete(f, hash_slot_of_entry(f, e));
    int64_t last = f->n - 1;
    if (e != last) {
        uint64_t s = hash_slot_of_entry(f, last);
        f->slots[s] = (int32_t)e;
        copy_entry(f, e, last);
    }
    f->n--;
}

/* Local. f->scratch with room for n words; 0 when out of memory. */
static int scratch_for(cs_frontier *f, int64_t n)
{
    if (f->scratch_cap >= n)
        return 1;
    uint64_t *p = realloc(f->scratch, (size_t)n * sizeof *p);
    if (p == NULL)
        return 0;
    f->scratch = p;
    f->scratch_cap = n;
    return 1;
}

/*
 * The tags in [lo, hi] are those of the entries whose homes lie in [home(lo), home(hi)] (the
 * map is monotone) and whose tags are in the range (the end homes are shared with tags outside
 * it). An entry sits at its home or after it in the same cluster of occupied slots (linear
 * probing), so the entries of the homes [a, b) are among the slots from a on, up to the first
 * empty slot at or after b - 1. The homes are read window after window, each window's tags
 * sorted, the windows in order.
 */
cs_err cs_frontier_tags_up(cs_ctx *ctx, cs_frontier *f, uint64_t lo, uint64_t hi, int64_t max,
                           const uint64_t **tags, int64_t *n)
{
    cs_err rc = CS_OK;
    int64_t k = 0;
    if (lo > hi || max <= 0 || f->n == 0)
        goto fail;
    const uint64_t last = home_of_tag(f, hi);
    for (uint64_t a = home_of_tag(f, lo); k < max && a <= last;) {
        /* a window with about the tags still wanted at the table's load (n / nslots) */
        const double want = (double)(max - k) * 1.25 + 16.0;
        const uint64_t w = (uint64_t)(want * (double)f->nslots / (double)f->n) + 1;
        const uint64_t b = w > last + 1 - a ? last + 1 : a + w;
        const int64_t from = k;
        uint64_t s = a;
        for (uint64_t pos = a;; pos++, s = next_slot(f, s)) {
            const int32_t e = f->slots[s];
            if (e < 0 && pos + 1 >= b)
                break;
            if (e < 0)
                continue;
            const uint64_t t = cs_frontier_tag(f->tag_seed, f->id[e]), h = home_of_tag(f, t);
            /* (pos counts on past the table's end: an entry is met once, at h <= pos) */
            if (h < a || h >= b || pos < h || pos >= h + f->nslots || t < lo || t > hi)
                continue;
            if ((size_t)k + 1 > f->tags_cap)
                CS_TRY(ctx, cs_grow(ctx, &f->tags, &f->tags_cap, (size_t)k + 1, sizeof *f->tags,
                                    "frontier tags"));
            f->tags[k++] = t;
        }
        if (!scratch_for(f, k - from + 1)) {
            rc = cs_fail(ctx, CS_ERR_NOMEM, "frontier: out of memory for its tags");
            goto fail;
        }
        cs_sort_u64(f->tags + from, k - from, f->scratch);
        a = b;
    }
fail:
    *tags = f->tags;
    *n = rc == CS_OK ? k : 0;
    return rc;
}

/*
 * The removals in parallel. Where each remaining entry ends is worked out first, serially on
 * indexes only: removing e (decreasing) moves the entry at the last position, which is either
 * still in its place or a hole filled before (src of that removal). Then on the threads: (1) each
 * removed entry's hash slot and the start of its cluster (the run of occupied slots around it);
 * (2) the deletions, each cluster's by one thread (the owner of its start's range of slots) in
 * turn: a backward-shift deletion moves slots within its cluster only, and clusters only split,
 * so the threads never touch one slot; (3) the moving entries' slots found, (4) their data
 * copied into the holes below the new size and their slots pointed there.
 */
#define REMOVE_PAR_MIN 128 /* fewer removals run serially */

/* Local. Whether the removal of k entries runs on the threads (and needs 3k words of scratch). */
static int remove_parallel(int64_t k)
{
    return k >= REMOVE_PAR_MIN && omp_get_max_threads() > 1;
}

/* The removals of sl[0..k) (distinct, increasing); the parallel way needs f->scratch of 3k
 * words (scratch_for). */
static void remove_sorted(cs_frontier *f, const int64_t *sl, int64_t k)
{
    if (!remove_parallel(k)) {
        for (int64_t i = k - 1; i >= 0; i--)
            cs_frontier_remove(f, sl[i]);
        return;
    }
    int64_t *src = (int64_t *)f->scratch;
    uint64_t *cl = f->scratch + k, *at = f->scratch + 2 * k;
    const int64_t n = f->n, m = n - k;
    CS_ASSERT(k <= n && sl[0] >= 0 && sl[k - 1] < n);
    for (int64_t i = k - 1, q = k - 1, size = n; i >= 0; i--, size--) {
        const int64_t last = size - 1;
        CS_ASSERT(i == 0 || sl[i - 1] < sl[i]);
        while (q > i && sl[q] > last)
            q--;
        src[i] = sl[i] == last ? -1 : q > i && sl[q] == last ? src[q] : last;
    }
    /* (the index serially, O(k log n): in groups whose descents are prefetched together) */
    for (int64_t g = 0; f->ix != NULL && g < k; g += IX_GROUP) {
        uint64_t key[IX_GROUP];
        const int64_t mg = k - g < IX_GROUP ? k - g : IX_GROUP;
        int64_t h = 0; /* the index's keys (a cold key: its entry alone holds it) */
        for (int64_t j = 0; j < mg; j++) {
            key[h] = cs_frontier_key(f->q[sl[g + j]], f->id[sl[g + j]]);
            if (key[h] >= f->tau)
                h++;
            else
                fr_cold_gone(f, key[h]);
        }
        cs_findex_prefetch(f->ix, key, h);
        for (int64_t j = 0; j < h; j++)
            cs_findex_remove(f->ix, key[j]);
    }
    cs_frontier *cf = f;
#pragma omp parallel default(none) shared(cf, sl, k, src, cl, at, m)
    {
        const uint64_t T = (uint64_t)omp_get_num_threads(), me = (uint64_t)omp_get_thread_num();
#pragma omp for schedule(static)
        for (int64_t i = 0; i < k; i++) {
            uint64_t c = hash_slot_of_entry(cf, sl[i]);
            for (uint64_t p = c == 0 ? cf->nslots - 1 : c - 1; cf->slots[p] >= 0;
                 p = p == 0 ? cf->nslots - 1 : p - 1)
                c = p;
            cl[i] = c;
        }
        for (int64_t i = 0; i < k; i++)
            if (cl[i] * T / cf->nslots == me)
                hash_delete(cf, hash_slot_of_entry(cf, sl[i]));
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t i = 0; i < k; i++)
            if (sl[i] < m)
                at[i] = hash_slot_of_entry(cf, src[i]);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < k; i++) {
            if (sl[i] >= m)
                continue;
            const int64_t e = sl[i], v = src[i];
            cf->slots[at[i]] = (int32_t)e;
            copy_entry(cf, e, v);
        }
    }
    f->n = m;
}

cs_err cs_frontier_remove_sorted(cs_ctx *ctx, cs_frontier *f, const int64_t *sl, int64_t k)
{
    if (remove_parallel(k) && !scratch_for(f, 3 * k))
        return cs_fail(ctx, CS_ERR_NOMEM, "frontier: out of memory for %lld removals",
                       (long long)k);
    remove_sorted(f, sl, k);
    return CS_OK;
}

/* Removes the entries of the index's k lowest keys: O(k log n), no pass over the entries. */
static int64_t evict_lowest(cs_frontier *f, int64_t k)
{
    CS_ASSERT(cs_findex_size(f->ix) == f->n && k <= f->n);
    if (k <= 0)
        return 0;
    if (f->low_cap < k || f->drop_cap < k) {
        free(f->low);
        free(f->drop);
        f->low = malloc((size_t)k * sizeof *f->low);
        f->drop = malloc((size_t)k * sizeof *f->drop);
        CS_ASSERT(f->low != NULL && f->drop != NULL);
        f->low_cap = f->drop_cap = k;
    }
    const int64_t got = cs_findex_up(f->ix, 0, f->low, k);
    CS_ASSERT(got == k);
    for (int64_t i = 0; i < k; i++) {
        if (i + 8 < k)
            cs_frontier_prefetch(f, cs_frontier_key_id(f->low[i + 8]), 1);
        f->drop[i] = cs_frontier_find(f, cs_frontier_key_id(f->low[i]));
        CS_ASSERT(f->drop[i] >= 0);
    }
    cs_sort_u64((uint64_t *)f->drop, k, f->low); /* entries are >= 0 */
    const int room = !remove_parallel(k) || scratch_for(f, 3 * k);
    CS_ASSERT(room);
    remove_sorted(f, f->drop, k);
    return k;
}

int64_t cs_frontier_evict(cs_frontier *f)
{
    if (f->n <= f->capacity)
        return 0;
    const int64_t drop = f->n - f->capacity;
    if (f->ix != NULL) {
        const cs_err rc = fr_tier_whole(NULL, f); /* the lowest keys are read */
        CS_ASSERT(rc == CS_OK);
        return evict_lowest(f, drop);
    }
    if (f->scratch_cap < f->n) {
        free(f->scratch);
        f->scratch = malloc((size_t)f->n * sizeof *f->scratch);
        CS_ASSERT(f->scratch != NULL);
        f->scratch_cap = f->n;
    }
    for (int64_t i = 0; i < f->n; i++)
        f->scratch[i] = cs_frontier_key(f->q[i], f->id[i]);
    /* keys are unique (ids are): keep exactly the entries with key >= the drop-th smallest */
    const uint64_t cut = cs_select_u64(f->scratch, f->n, drop);
    const int64_t dropped = cs_frontier_evict_below(f, cut);
    CS_ASSERT(dropped == drop && f->n == f->capacity);
    return drop;
}

/*
 * The dropped entries are deleted from the hash (backward shift) and their places filled from
 * the tail, as the selection's removals do: O(dropped) random accesses besides one sequential
 * pass over the values and ids for the keys, instead of a compaction and a rebuild of the whole
 * hash (O(capacity) random accesses, every tick of a full frontier). The entries kept are the
 * same, in another order; no result depends on the entries' order (the selection and the
 * eviction take sets of unique keys) and a checkpoint saves that order, so a restart goes on as
 * the crawl would have.
 */
/* The dropped entries' key: keys[i] when given, else computed. */
static inline int below(const cs_frontier *f, const uint64_t *keys, int64_t i, uint64_t cut)
{
    return (keys != NULL ? keys[i] : cs_frontier_key(f->q[i], f->id[i])) < cut;
}

static int64_t evict_below(cs_frontier *f, const uint64_t *keys, uint64_t cut)
{
    if (f->ix != NULL) {
        const cs_err rc = fr_tier_whole(NULL, f); /* the lowest keys are read */
        CS_ASSERT(rc == CS_OK);
        return evict_lowest(f, cs_findex_count_below(f->ix, cut));
    }
    const int64_t n0 = f->n;
    int64_t k = 0;
    for (int64_t i = 0; i < n0; i++)
        k += below(f, keys, i, cut);
    if (k == 0)
        return 0;
    if (f->drop_cap < k) {
        free(f->drop);
        f->drop = malloc((size_t)k * sizeof *f->drop);
        CS_ASSERT(f->drop != NULL);
        f->drop_cap = k;
    }
    const int room = !remove_parallel(k) || scratch_for(f, 3 * k);
    CS_ASSERT(room);
    int64_t *drop = f->drop;
    for (int64_t i = 0, j = 0; j < k; i++) {
        drop[j] = i; /* branch-free: written, kept by advancing j */
        j += below(f, keys, i, cut);
    }
    remove_sorted(f, drop, k);
    return k;
}

int64_t cs_frontier_evict_below(cs_frontier *f, uint64_t cut)
{
    return evict_below(f, NULL, cut);
}

int64_t cs_frontier_evict_below_keys(cs_frontier *f, const uint64_t *keys, uint64_t cut)
{
    return evict_below(f, keys, cut);
}

void cs_frontier_clear(cs_frontier *f)
{
    if (f->ix != NULL)
        cs_findex_clear(f->ix);
    fr_tier_reset(f);
    f->n = 0;
    rehash(f);
}

double cs_frontier_bytes_per_entry(const cs_frontier *f)
{
    double per = (double)(sizeof *f->id + sizeof *f->q + (size_t)f->stride + sizeof *f->lk);
    double n = f->n > 0 ? (double)f->n : 1.0;
    const double ix = f->ix != NULL ? cs_findex_bytes(f->ix) : 0.0;
    return per * (double)f->cap_alloc / n + ((double)f->nslots * sizeof *f->slots + ix) / n;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

cs_err cs_frontier_save(cs_ctx *ctx, const cs_frontier *f, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    const int64_t n = f->n, stride = f->stride;
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "frontier/stride", CS_CK_I64, 1, &stride));
    /* ids below 2^31 (pages are, gen.pages): as int32 */
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "frontier/id", CS_CK_I32, n, f->id));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "frontier/q", CS_CK_F32, n, f->q));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "frontier/codes", CS_CK_BYTES, n * stride, f->codes));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "frontier/link", CS_CK_BYTES,
                            n * (int64_t)sizeof(cs_frontier_link), f->lk));
fail:
    return rc;
}

/* The loaded entries' values and codes checked (what would break the order or index out of
 * bounds if a checkpoint were wrong some other way than its checksums find). */
static cs_err check_loaded(cs_ctx *ctx, const cs_frontier *f, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    const int64_t n = f->n;
    for (int64_t i = 0; i < n && rc == CS_OK; i++)
        if (isnan(f->q[i]))
            rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: frontier/q[%lld] is NaN",
                         cs_ckpt_path(ck), (long long)i);
    for (int64_t i = 0; i < n * f->stride && rc == CS_OK; i++)
        if (f->codes[i] >= CS_FEAT_CODES)
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "checkpoint %s: frontier/codes[%lld] = %d is not a feature code (0-%d)",
                         cs_ckpt_path(ck), (long long)i, (int)f->codes[i], CS_FEAT_CODES - 1);
    return rc;
}

/* The index of a restored frontier, or of one whose tiers end: its entries' keys, sorted,
 * loaded (no tiers). */
cs_err fr_load_index(cs_ctx *ctx, cs_frontier *f)
{
    cs_err rc = CS_OK;
    uint64_t *k = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &k, 2 * (size_t)f->n + 1, sizeof *k, "frontier index"));
    for (int64_t i = 0; i < f->n; i++)
        k[i] = cs_frontier_key(f->q[i], f->id[i]);
    cs_sort_u64(k, f->n, k + f->n);
    CS_TRY(ctx, cs_findex_load(ctx, f->ix, k, f->n));
    fr_tier_reset(f);
fail:
    free(k);
    return rc;
}

cs_err cs_frontier_load(cs_ctx *ctx, cs_frontier *f, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    int64_t stride = 0, n = 0, slot = 0;
    int32_t *id = NULL;
    CS_ASSERT(f->n == 0);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "frontier/stride", CS_CK_I64, 1, &stride));
    if (stride != f->stride)
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "checkpoint %s: frontier entries of %lld code bytes, this run has %d",
                     cs_ckpt_path(ck), (long long)stride, f->stride);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, "frontier/id", CS_CK_I32, &n, &id));
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (id[i] < 0 || cs_frontier_find(f, id[i]) >= 0)
            rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: frontier/id[%lld] = %lld is %s",
                         cs_ckpt_path(ck), (long long)i, (long long)id[i],
                         id[i] < 0 ? "negative" : "there twice");
        else
            rc = cs_frontier_add(ctx, f, id[i], &slot);
    }
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "frontier/q", CS_CK_F32, n, f->q));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "frontier/codes", CS_CK_BYTES, n * stride, f->codes));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "frontier/link", CS_CK_BYTES,
                                  n * (int64_t)sizeof(cs_frontier_link), f->lk));
    rc = check_loaded(ctx, f, ck);
    if (rc == CS_OK && f->ix != NULL)
        rc = fr_load_index(ctx, f);
    CS_TRY_AGREE(ctx, rc);
fail:
    free(id);
    return rc;
}
