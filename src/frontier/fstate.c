/*
 * fstate: the frontier's entries grouped by state, and the walk in decreasing key (fstate.h).
 */
#include "crawlsim/fstate.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"

#include <stdlib.h>
#include <string.h>

/* One state: its members' (id << 32 | entry), a binary min-heap (the lowest id at the root). */
typedef struct fs_state {
    uint64_t *h;
    int32_t n, cap;
} fs_state;

/* A cursor of the walk's priority queue: node `node` of state `sid`'s heap, and its key. */
typedef struct fs_cursor {
    uint64_t key;
    int32_t sid, node;
} fs_cursor;

struct cs_fstate {
    int G;
    int64_t ns, ns_cap; /* state ids in use (live or on the free list) and room */
    uint8_t *codes;     /* ns_cap x G */
    float *val;
    fs_state *st;
    int32_t *free_ids;
    int64_t n_free, live, members;
    int32_t *slots; /* the interning hash: state ids, -1 empty (linear probing) */
    uint64_t nslots;
    int32_t *sid, *pos; /* per entry: its state and place in that state's heap (-1: none) */
    int64_t ent_cap;
    /* the walk */
    uint64_t *order, *order_tmp; /* live states as (value's key bits << 32 | sid), ascending */
    int64_t order_cap, next;     /* order[0..next) not yet queued */
    fs_cursor *pq;
    int64_t pq_n, pq_cap;
};

static uint64_t hash_codes(const uint8_t *c, int G)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (int g = 0; g < G; g++)
        h = (h ^ c[g]) * 0x100000001b3u;
    return cs_mix64(h);
}

static inline uint64_t home_of(const cs_fstate *f, const uint8_t *c)
{
    uint64_t lo;
    return cs_rng_mul64_(hash_codes(c, f->G), f->nslots, &lo);
}

static inline uint64_t next_slot(const cs_fstate *f, uint64_t s)
{
    return s + 1 == f->nslots ? 0 : s + 1;
}

cs_err cs_fstate_create(cs_ctx *ctx, int G, cs_fstate **out)
{
    cs_err rc = CS_OK;
    cs_fstate *f = NULL;
    if (G < 1 || G > 255)
        return cs_fail(ctx, CS_ERR_ARG, "frontier states: %d code bytes (1 to 255)", G);
    CS_TRY(ctx, cs_calloc(ctx, &f, 1, sizeof *f, "frontier states"));
    f->G = G;
    f->nslots = 64;
    CS_TRY(ctx, cs_alloc(ctx, &f->slots, f->nslots, sizeof *f->slots, "frontier states"));
    memset(f->slots, 0xff, f->nslots * sizeof *f->slots);
    *out = f;
    return CS_OK;
fail:
    cs_fstate_destroy(&f);
    return rc;
}

void cs_fstate_destroy(cs_fstate **pf)
{
    if (pf == NULL || *pf == NULL)
        return;
    cs_fstate *f = *pf;
    for (int64_t i = 0; i < f->ns; i++)
        free(f->st[i].h);
    free(f->codes);
    free(f->val);
    free(f->st);
    free(f->free_ids);
    free(f->slots);
    free(f->sid);
    free(f->pos);
    free(f->order);
    free(f->order_tmp);
    free(f->pq);
    free(f);
    *pf = NULL;
}

int64_t cs_fstate_states(const cs_fstate *f)
{
    return f->live;
}

int64_t cs_fstate_members(const cs_fstate *f)
{
    return f->members;
}

int32_t cs_fstate_of(const cs_fstate *f, int64_t e)
{
    return e < f->ent_cap ? f->sid[e] : -1;
}

const uint8_t *cs_fstate_codes(const cs_fstate *f, int32_t sid)
{
    return f->codes + (size_t)sid * (size_t)f->G;
}

void cs_fstate_table(cs_fstate *f, int64_t *n, const uint8_t **codes, float **val)
{
    *n = f->ns;
    *codes = f->codes;
    *val = f->val;
}

double cs_fstate_bytes(const cs_fstate *f)
{
    double b = (double)f->ent_cap * (double)(sizeof *f->sid + sizeof *f->pos) +
               (double)f->nslots * sizeof *f->slots +
               (double)f->ns_cap * (double)((size_t)f->G + sizeof *f->val + sizeof *f->st +
                                            sizeof *f->free_ids + sizeof *f->order * 2);
    for (int64_t i = 0; i < f->ns; i++)
        b += (double)f->st[i].cap * sizeof *f->st[i].h;
    return b;
}

/* ---- interning ------------------------------------------------------------------------------ */

/* The state of codes c, or -1; *at: its slot, or the empty slot that ends the probe. */
static int32_t find_state(const cs_fstate *f, const uint8_t *c, uint64_t *at)
{
    uint64_t s = home_of(f, c);
    for (; f->slots[s] >= 0; s = next_slot(f, s))
        if (memcmp(f->codes + (size_t)f->slots[s] * (size_t)f->G, c, (size_t)f->G) == 0)
            break;
    *at = s;
    return f->slots[s];
}

/* The hash at twice the slots (load <= 1/2 after it). */
static cs_err rehash(cs_ctx *ctx, cs_fstate *f)
{
    int32_t *old = f->slots, *fresh = NULL;
    const uint64_t on = f->nslots;
    cs_err rc = cs_alloc(ctx, &fresh, 2 * on, sizeof *fresh, "frontier states");
    if (rc != CS_OK)
        return rc;
    memset(fresh, 0xff, 2 * on * sizeof *fresh);
    f->slots = fresh;
    f->nslots = 2 * on;
    for (uint64_t i = 0; i < on; i++) {
        if (old[i] < 0)
            continue;
        uint64_t s = home_of(f, f->codes + (size_t)old[i] * (size_t)f->G);
        while (f->slots[s] >= 0)
            s = next_slot(f, s);
        f->slots[s] = old[i];
    }
    free(old);
    return CS_OK;
}

/* Room for one more state id. */
static cs_err grow_states(cs_ctx *ctx, cs_fstate *f)
{
    cs_err rc = CS_OK;
    if (f->n_free > 0 || f->ns < f->ns_cap)
        return CS_OK;
    if (f->ns >= INT32_MAX - 1)
        return cs_fail(ctx, CS_ERR_LIMIT, "frontier states: more than 2^31 - 2 states");
    size_t cap = (size_t)f->ns_cap, c2 = cap, c3 = cap, c4 = cap;
    CS_TRY(ctx,
           cs_grow(ctx, &f->codes, &c2, ((size_t)f->ns + 1) * (size_t)f->G, 1, "frontier states"));
    CS_TRY(ctx, cs_grow(ctx, &f->val, &cap, (size_t)f->ns + 1, sizeof *f->val, "frontier states"));
    CS_TRY(ctx, cs_grow(ctx, &f->st, &c3, (size_t)f->ns + 1, sizeof *f->st, "frontier states"));
    CS_TRY(ctx, cs_grow(ctx, &f->free_ids, &c4, (size_t)f->ns + 1, sizeof *f->free_ids,
                        "frontier states"));
    f->ns_cap = (int64_t)cap; /* cs_grow's geometric step; the others hold at least as many */
    if ((int64_t)(c2 / (size_t)f->G) < f->ns_cap)
        f->ns_cap = (int64_t)(c2 / (size_t)f->G);
    if ((int64_t)c3 < f->ns_cap)
        f->ns_cap = (int64_t)c3;
    if ((int64_t)c4 < f->ns_cap)
        f->ns_cap = (int64_t)c4;
fail:
    return rc;
}

/* The state of codes c, created without members when there is none. */
static cs_err intern(cs_ctx *ctx, cs_fstate *f, const uint8_t *c, int32_t *sid)
{
    cs_err rc = CS_OK;
    uint64_t at;
    *sid = find_state(f, c, &at);
    if (*sid >= 0)
        return CS_OK;
    if ((uint64_t)(f->live + 1) * 2 > f->nslots) {
        CS_TRY(ctx, rehash(ctx, f));
        find_state(f, c, &at);
    }
    CS_TRY(ctx, grow_states(ctx, f));
    const int32_t id = f->n_free > 0 ? f->free_ids[--f->n_free] : (int32_t)f->ns++;
    memcpy(f->codes + (size_t)id * (size_t)f->G, c, (size_t)f->G);
    f->val[id] = 0.0f;
    memset(&f->st[id], 0, sizeof f->st[id]);
    f->slots[at] = id;
    f->live++;
    *sid = id;
fail:
    return rc;
}

/* Backward-shift deletion of state sid from the hash, and its id on the free list. */
static void release(cs_fstate *f, int32_t sid)
{
    uint64_t hole;
    const int32_t found = find_state(f, f->codes + (size_t)sid * (size_t)f->G, &hole);
    CS_ASSERT(found == sid);
    for (uint64_t j = next_slot(f, hole); f->slots[j] >= 0; j = next_slot(f, j)) {
        const uint64_t home = home_of(f, f->codes + (size_t)f->slots[j] * (size_t)f->G);
        const uint64_t dh = j >= home ? j - home : j + f->nslots - home;
        const uint64_t dj = j >= hole ? j - hole : j + f->nslots - hole;
        if (dh >= dj) {
            f->slots[hole] = f->slots[j];
            hole = j;
        }
    }
    f->slots[hole] = -1;
    free(f->st[sid].h);
    memset(&f->st[sid], 0, sizeof f->st[sid]);
    f->free_ids[f->n_free++] = sid;
    f->live--;
}

/* ---- the states' heaps ---------------------------------------------------------------------- */

static inline void heap_set(cs_fstate *f, fs_state *s, int32_t i, uint64_t x)
{
    s->h[i] = x;
    f->pos[(uint32_t)x] = i;
}

static void sift_up(cs_fstate *f, fs_state *s, int32_t i)
{
    const uint64_t x = s->h[i];
    while (i > 0 && s->h[(i - 1) / 2] > x) {
        heap_set(f, s, i, s->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(f, s, i, x);
}

static void sift_down(cs_fstate *f, fs_state *s, int32_t i)
{
    const uint64_t x = s->h[i];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= s->n)
            break;
        if (c + 1 < s->n && s->h[c + 1] < s->h[c])
            c++;
        if (s->h[c] >= x)
            break;
        heap_set(f, s, i, s->h[c]);
        i = c;
    }
    heap_set(f, s, i, x);
}

/* Room for entries up to e. */
static cs_err grow_entries(cs_ctx *ctx, cs_fstate *f, int64_t e)
{
    cs_err rc = CS_OK;
    if (e < f->ent_cap)
        return CS_OK;
    if (e >= INT32_MAX - 1)
        return cs_fail(ctx, CS_ERR_LIMIT, "frontier states: entry %lld beyond 2^31 - 2",
                       (long long)e);
    size_t c1 = (size_t)f->ent_cap, c2 = c1;
    CS_TRY(ctx, cs_grow(ctx, &f->sid, &c1, (size_t)e + 1, sizeof *f->sid, "frontier states"));
    CS_TRY(ctx, cs_grow(ctx, &f->pos, &c2, (size_t)e + 1, sizeof *f->pos, "frontier states"));
    const size_t c = c1 < c2 ? c1 : c2;
    memset(f->sid + f->ent_cap, 0xff, (c - (size_t)f->ent_cap) * sizeof *f->sid);
    memset(f->pos + f->ent_cap, 0xff, (c - (size_t)f->ent_cap) * sizeof *f->pos);
    f->ent_cap = (int64_t)c;
fail:
    return rc;
}

cs_err cs_fstate_insert(cs_ctx *ctx, cs_fstate *f, int64_t e, int64_t id, const uint8_t *codes)
{
    cs_err rc = CS_OK;
    int32_t sid = -1;
    CS_ASSERT(e >= 0 && id >= 0 && id <= (int64_t)UINT32_MAX);
    CS_TRY(ctx, grow_entries(ctx, f, e));
    CS_ASSERT(f->sid[e] < 0);
    CS_TRY(ctx, intern(ctx, f, codes, &sid));
    fs_state *s = &f->st[sid];
    if (s->n == s->cap) {
        /* doubling from 4 (cs_grow starts at 1 024: 8 KiB for a state of one member) */
        const int32_t cap = s->cap == 0 ? 4 : s->cap <= INT32_MAX / 2 ? 2 * s->cap : INT32_MAX;
        uint64_t *h = s->cap < INT32_MAX ? realloc(s->h, (size_t)cap * sizeof *h) : NULL;
        if (h == NULL) {
            if (s->n == 0)
                release(f, sid);
            return cs_fail(ctx, CS_ERR_NOMEM, "frontier states: out of memory for a state of %d",
                           (int)cap);
        }
        s->h = h;
        s->cap = cap;
    }
    f->sid[e] = sid;
    s->h[s->n++] = (uint64_t)id << 32 | (uint64_t)e;
    sift_up(f, s, s->n - 1);
    f->members++;
fail:
    return rc;
}

void cs_fstate_remove(cs_fstate *f, int64_t e)
{
    CS_ASSERT(e >= 0 && e < f->ent_cap && f->sid[e] >= 0);
    const int32_t sid = f->sid[e], i = f->pos[e];
    fs_state *s = &f->st[sid];
    CS_ASSERT((uint32_t)s->h[i] == (uint32_t)e);
    f->sid[e] = -1;
    f->pos[e] = -1;
    f->members--;
    const uint64_t last = s->h[--s->n];
    if (i < s->n) {
        const uint64_t was = s->h[i];
        heap_set(f, s, i, last);
        if (last < was)
            sift_up(f, s, i);
        else
            sift_down(f, s, i);
    }
    if (s->n == 0)
        release(f, sid);
}

void cs_fstate_move(cs_fstate *f, int64_t from, int64_t to)
{
    CS_ASSERT(from >= 0 && from < f->ent_cap && f->sid[from] >= 0 && to >= 0);
    CS_ASSERT(to < f->ent_cap && f->sid[to] < 0); /* (to: a slot that was a member's) */
    const int32_t sid = f->sid[from], i = f->pos[from];
    fs_state *s = &f->st[sid];
    f->sid[to] = sid;
    f->sid[from] = -1;
    f->pos[from] = -1;
    heap_set(f, s, i, (s->h[i] & ~(uint64_t)UINT32_MAX) | (uint64_t)to);
}

cs_err cs_fstate_recode(cs_ctx *ctx, cs_fstate *f, int64_t e, const uint8_t *codes)
{
    CS_ASSERT(e >= 0 && e < f->ent_cap && f->sid[e] >= 0);
    const int32_t sid = f->sid[e];
    if (memcmp(f->codes + (size_t)sid * (size_t)f->G, codes, (size_t)f->G) == 0)
        return CS_OK;
    const int64_t id = (int64_t)(f->st[sid].h[f->pos[e]] >> 32);
    cs_fstate_remove(f, e);
    return cs_fstate_insert(ctx, f, e, id, codes);
}

/* ---- the walk ------------------------------------------------------------------------------- */

/* The high 32 bits of the keys of a state's members (its value's order bits). */
static inline uint64_t value_bits(const cs_fstate *f, int32_t sid)
{
    return cs_frontier_key(f->val[sid], 0) >> 32;
}

static inline uint64_t node_key(const cs_fstate *f, int32_t sid, int32_t node)
{
    return value_bits(f, sid) << 32 |
           (uint64_t)(0xffffffffu - (uint32_t)(f->st[sid].h[node] >> 32));
}

/* The queue is a binary max-heap of cursors by key (keys are unique: page ids are). */
static void pq_push(cs_fstate *f, int32_t sid, int32_t node)
{
    fs_cursor c = {node_key(f, sid, node), sid, node};
    int64_t i = f->pq_n++;
    while (i > 0 && f->pq[(i - 1) / 2].key < c.key) {
        f->pq[i] = f->pq[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    f->pq[i] = c;
}

static fs_cursor pq_pop(cs_fstate *f)
{
    const fs_cursor top = f->pq[0], x = f->pq[--f->pq_n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= f->pq_n)
            break;
        if (c + 1 < f->pq_n && f->pq[c + 1].key > f->pq[c].key)
            c++;
        if (f->pq[c].key <= x.key)
            break;
        f->pq[i] = f->pq[c];
        i = c;
    }
    if (f->pq_n > 0)
        f->pq[i] = x;
    return top;
}

cs_err cs_fstate_walk_begin(cs_ctx *ctx, cs_fstate *f)
{
    cs_err rc = CS_OK;
    size_t c1 = (size_t)f->order_cap, c2 = c1;
    CS_TRY(ctx,
           cs_grow(ctx, &f->order, &c1, (size_t)f->live + 1, sizeof *f->order, "frontier states"));
    CS_TRY(ctx, cs_grow(ctx, &f->order_tmp, &c2, (size_t)f->live + 1, sizeof *f->order_tmp,
                        "frontier states"));
    f->order_cap = (int64_t)(c1 < c2 ? c1 : c2);
    int64_t k = 0;
    for (int64_t i = 0; i < f->ns; i++)
        if (f->st[i].n > 0)
            f->order[k++] = value_bits(f, (int32_t)i) << 32 | (uint64_t)i;
    CS_ASSERT(k == f->live);
    cs_sort_u64(f->order, k, f->order_tmp);
    f->next = k;
    f->pq_n = 0;
fail:
    return rc;
}

int64_t cs_fstate_walk_next(cs_ctx *ctx, cs_fstate *f, int64_t k, uint64_t *keys, int64_t *ents,
                            cs_err *rc)
{
    int64_t got = 0;
    *rc = CS_OK;
    while (got < k) {
        /* every state whose members may beat the queue's best is queued: those of higher or
         * equal value (equal: the ids decide, in the queue) */
        while (f->next > 0 && (f->pq_n == 0 || f->order[f->next - 1] >> 32 >= f->pq[0].key >> 32)) {
            size_t cap = (size_t)f->pq_cap;
            *rc = cs_grow(ctx, &f->pq, &cap, (size_t)f->pq_n + 2, sizeof *f->pq, "frontier states");
            if (*rc != CS_OK)
                return 0;
            f->pq_cap = (int64_t)cap;
            pq_push(f, (int32_t)(f->order[--f->next] & 0xffffffffu), 0);
        }
        if (f->pq_n == 0)
            break;
        const fs_cursor c = pq_pop(f);
        const fs_state *s = &f->st[c.sid];
        keys[got] = c.key;
        ents[got++] = (int64_t)(uint32_t)s->h[c.node];
        size_t cap = (size_t)f->pq_cap;
        *rc = cs_grow(ctx, &f->pq, &cap, (size_t)f->pq_n + 2, sizeof *f->pq, "frontier states");
        if (*rc != CS_OK)
            return 0;
        f->pq_cap = (int64_t)cap;
        for (int32_t ch = 2 * c.node + 1; ch <= 2 * c.node + 2 && ch < s->n; ch++)
            pq_push(f, c.sid, ch);
    }
    return got;
}
