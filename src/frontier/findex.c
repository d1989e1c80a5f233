/*
 * findex: the ordered key index (a counted B+-tree), see findex.h.
 *
 * Nodes live in two pools (leaves, inner nodes) addressed by int32 indexes, so growing a pool
 * moves nothing that an index names; freed nodes go to a free list. An inner node's child i
 * holds the keys in [lo[i], lo[i + 1]) (lo[0] is its own lower end, unused in routing) and cnt[i]
 * of them. The operations descend from the root recording their path, and climb it back to fix
 * the counts, split full nodes or unlink empty ones.
 */
#include "crawlsim/findex.h"

#include <stdlib.h>
#include <string.h>

#define LEAF_MAX 64
#define FAN_MAX 64
#define LOAD_FILL 48 /* keys per leaf and children per node of a rebuilt tree */
#define DEPTH_MAX 32

typedef struct fx_leaf {
    uint64_t k[LEAF_MAX];
    int32_t n, prev, next, pad; /* prev, next: -1 at the ends; next links the free list */
} fx_leaf;

typedef struct fx_node {
    uint64_t lo[FAN_MAX];
    int64_t cnt[FAN_MAX];
    int32_t ch[FAN_MAX]; /* ch[0] links the free list */
    int32_t n, pad;
} fx_node;

struct cs_findex {
    fx_leaf *leaf;
    fx_node *node;
    int32_t leaf_cap, leaf_top, leaf_free, n_leaves;
    int32_t node_cap, node_top, node_free, n_nodes;
    int32_t root, height; /* height 0: the root is a leaf */
    int32_t first, last;  /* the leftmost and rightmost leaves */
    int64_t size;
};

/* The path of a descent: at depth d, inner node pn[d] and the child pi[d] taken. */
typedef struct fx_path {
    int32_t pn[DEPTH_MAX], pi[DEPTH_MAX];
} fx_path;

/* ---- pools ---------------------------------------------------------------------------------- */

/* Room in the pools for `leaves` and `nodes` more beyond their tops; 0 when out of memory (the
 * pools unchanged). */
static int reserve_raw(cs_findex *x, int64_t leaves, int64_t nodes)
{
    if (x->leaf_top + leaves > x->leaf_cap) {
        int64_t c = x->leaf_cap < 16 ? 16 : x->leaf_cap;
        while (c < x->leaf_top + leaves)
            c += c / 2; /* (x 1.5: the pool is most of the index's memory) */
        fx_leaf *p = c <= INT32_MAX ? realloc(x->leaf, (size_t)c * sizeof *p) : NULL;
        if (p == NULL)
            return 0;
        cs_mem_huge(p, (size_t)c * sizeof *p, (size_t)x->leaf_top * sizeof *p);
        x->leaf = p;
        x->leaf_cap = (int32_t)c;
    }
    if (x->node_top + nodes > x->node_cap) {
        int64_t c = x->node_cap < 16 ? 16 : x->node_cap;
        while (c < x->node_top + nodes)
            c += c / 2;
        fx_node *p = c <= INT32_MAX ? realloc(x->node, (size_t)c * sizeof *p) : NULL;
        if (p == NULL)
            return 0;
        cs_mem_huge(p, (size_t)c * sizeof *p, (size_t)x->node_top * sizeof *p);
        x->node = p;
        x->node_cap = (int32_t)c;
    }
    return 1;
}

static cs_err reserve(cs_ctx *ctx, cs_findex *x, int64_t leaves, int64_t nodes)
{
    if (reserve_raw(x, leaves, nodes))
        return CS_OK;
    return cs_fail(ctx, CS_ERR_NOMEM, "frontier index: out of memory for %lld more nodes",
                   (long long)(leaves + nodes));
}

/* A leaf from the free list or the pool's top (reserve made room). */
static int32_t leaf_new(cs_findex *x)
{
    int32_t l = x->leaf_free;
    if (l >= 0)
        x->leaf_free = x->leaf[l].next;
    else
        l = x->leaf_top++;
    CS_ASSERT(l < x->leaf_cap);
    x->leaf[l].n = 0;
    x->leaf[l].prev = x->leaf[l].next = -1;
    x->n_leaves++;
    return l;
}

static void leaf_free(cs_findex *x, int32_t l)
{
    x->leaf[l].next = x->leaf_free;
    x->leaf_free = l;
    x->n_leaves--;
}

static int32_t node_new(cs_findex *x)
{
    int32_t v = x->node_free;
    if (v >= 0)
        x->node_free = x->node[v].ch[0];
    else
        v = x->node_top++;
    CS_ASSERT(v < x->node_cap);
    x->node[v].n = 0;
    x->n_nodes++;
    return v;
}

static void node_free(cs_findex *x, int32_t v)
{
    x->node[v].ch[0] = x->node_free;
    x->node_free = v;
    x->n_nodes--;
}

/* An empty tree: one empty leaf as the root. */
static void reset(cs_findex *x)
{
    x->leaf_top = x->node_top = 0;
    x->leaf_free = x->node_free = -1;
    x->n_leaves = x->n_nodes = 0;
    x->height = 0;
    x->size = 0;
    x->root = x->first = x->last = leaf_new(x);
}

cs_err cs_findex_create(cs_ctx *ctx, cs_findex **out)
{
    cs_err rc = CS_OK;
    cs_findex *x = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &x, 1, sizeof *x, "frontier index"));
    CS_TRY(ctx, reserve(ctx, x, 1, 0));
    reset(x);
    *out = x;
    return CS_OK;
fail:
    cs_findex_destroy(&x);
    return rc;
}

void cs_findex_destroy(cs_findex **px)
{
    if (px == NULL || *px == NULL)
        return;
    free((*px)->leaf);
    free((*px)->node);
    free(*px);
    *px = NULL;
}

void cs_findex_clear(cs_findex *x)
{
    reset(x);
}

int64_t cs_findex_size(const cs_findex *x)
{
    return x->size;
}

double cs_findex_bytes(const cs_findex *x)
{
    return (double)x->leaf_cap * sizeof(fx_leaf) + (double)x->node_cap * sizeof(fx_node) +
           (double)sizeof *x;
}

/* ---- search --------------------------------------------------------------------------------- */

/* How many of the n ascending keys a[0..n) are <= key (upper) or < key (!upper), counted over
 * all of them: no branch depends on the keys (a bisection's six mispredict half the time), and
 * the loads of a node's lines are independent of each other, so their misses overlap. */
static inline int count_le(const uint64_t *a, int n, uint64_t key, int upper)
{
    int c = 0;
    if (upper)
        for (int i = 0; i < n; i++)
            c += a[i] <= key;
    else
        for (int i = 0; i < n; i++)
            c += a[i] < key;
    return c;
}

/* The child of inner node v whose range holds key: the largest i with i == 0 or lo[i] <= key. */
static inline int route(const fx_node *v, uint64_t key)
{
    return count_le(v->lo + 1, v->n - 1, key, 1);
}

/* The first i in leaf l with k[i] >= key (n if none). */
static inline int lower(const fx_leaf *l, uint64_t key)
{
    return count_le(l->k, l->n, key, 0);
}

/* The leaf whose range holds key; the path in *p (may be NULL). */
static int32_t descend(const cs_findex *x, uint64_t key, fx_path *p)
{
    int32_t cur = x->root;
    for (int d = 0; d < x->height; d++) {
        const int i = route(&x->node[cur], key);
        if (p != NULL) {
            p->pn[d] = cur;
            p->pi[d] = i;
        }
        cur = x->node[cur].ch[i];
    }
    return cur;
}

/* Prefetches the n bytes at p, line by line. */
static inline void prefetch_span(const void *p, size_t n)
{
    for (size_t o = 0; o < n; o += 64)
        __builtin_prefetch((const char *)p + o);
}

#define FX_GROUP 32
/* Keys below which the index stays in the caches and the prefetching descent is only a second
 * descent (bench_findex, one core, a 4 MiB L2: grouped over one at a time 1.42 at 10^4 keys,
 * 1.15 at 3 x 10^5, 0.75 at 10^6, 0.53 at 10^7) */
#define FX_PREFETCH_MIN ((int64_t)1 << 19)

void cs_findex_prefetch(const cs_findex *x, const uint64_t *keys, int64_t n)
{
    if (x->size < FX_PREFETCH_MIN)
        return;
    int32_t cur[FX_GROUP];
    for (int64_t g = 0; g < n; g += FX_GROUP) {
        const int m = (int)(n - g < FX_GROUP ? n - g : FX_GROUP);
        for (int j = 0; j < m; j++)
            cur[j] = x->root;
        for (int d = 0; d < x->height; d++)
            for (int j = 0; j < m; j++) {
                /* the node's keys arrived during the group's previous level */
                const fx_node *v = &x->node[cur[j]];
                const int i = route(v, keys[g + j]);
                __builtin_prefetch(&v->cnt[i], 1); /* an insertion or removal counts here */
                cur[j] = v->ch[i];
                if (d + 1 < x->height) {
                    prefetch_span(x->node[cur[j]].lo, sizeof v->lo);
                    prefetch_span(x->node[cur[j]].ch, sizeof v->ch);
                } else
                    prefetch_span(&x->leaf[cur[j]], sizeof(fx_leaf));
            }
    }
}

int64_t cs_findex_count_below(const cs_findex *x, uint64_t bound)
{
    int64_t c = 0;
    int32_t cur = x->root;
    for (int d = 0; d < x->height; d++) {
        const fx_node *v = &x->node[cur];
        const int i = route(v, bound);
        for (int j = 0; j < i; j++)
            c += v->cnt[j];
        cur = v->ch[i];
    }
    return c + lower(&x->leaf[cur], bound);
}

int64_t cs_findex_down(const cs_findex *x, uint64_t bound, uint64_t *out, int64_t m)
{
    int64_t k = 0;
    int32_t l = descend(x, bound, NULL);
    int i = lower(&x->leaf[l], bound);
    if (i < x->leaf[l].n && x->leaf[l].k[i] == bound)
        i++;
    while (k < m) {
        const fx_leaf *f = &x->leaf[l];
        while (i > 0 && k < m)
            out[k++] = f->k[--i];
        if (f->prev < 0)
            break;
        l = f->prev;
        i = x->leaf[l].n;
    }
    return k;
}

int64_t cs_findex_up(const cs_findex *x, uint64_t bound, uint64_t *out, int64_t m)
{
    int64_t k = 0;
    int32_t l = descend(x, bound, NULL);
    int i = lower(&x->leaf[l], bound);
    while (k < m) {
        const fx_leaf *f = &x->leaf[l];
        while (i < f->n && k < m)
            out[k++] = f->k[i++];
        if (f->next < 0)
            break;
        l = f->next;
        i = 0;
    }
    return k;
}

void cs_findex_hist(const cs_findex *x, uint64_t prefix, int shift, int nb, int64_t *h)
{
    CS_ASSERT(nb >= 1 && nb <= 256 && shift >= 0 && shift < 64);
    /* at[b]: the keys below bucket b's lower end; the last bucket's upper end may be 2^64 */
    int64_t prev = cs_findex_count_below(x, prefix);
    for (int b = 0; b < nb; b++) {
        const uint64_t top = prefix | ((uint64_t)b << shift) | ((UINT64_C(1) << shift) - 1);
        const int64_t le = top == UINT64_MAX ? x->size : cs_findex_count_below(x, top + 1);
        h[b] = le - prev;
        prev = le;
    }
}

/* ---- insertion ------------------------------------------------------------------------------ */

/* Inserts child (lo, cnt, ch) at position at of inner node v (which has room). */
static void node_put(fx_node *v, int at, uint64_t lo, int64_t cnt, int32_t ch)
{
    const size_t m = (size_t)(v->n - at);
    memmove(&v->lo[at + 1], &v->lo[at], m * sizeof v->lo[0]);
    memmove(&v->cnt[at + 1], &v->cnt[at], m * sizeof v->cnt[0]);
    memmove(&v->ch[at + 1], &v->ch[at], m * sizeof v->ch[0]);
    v->lo[at] = lo;
    v->cnt[at] = cnt;
    v->ch[at] = ch;
    v->n++;
}

static int64_t node_count(const fx_node *v)
{
    int64_t c = 0;
    for (int i = 0; i < v->n; i++)
        c += v->cnt[i];
    return c;
}

/* A new root over the old one (range from lo0, count c0) and its new right sibling. */
static void grow_root(cs_findex *x, uint64_t lo0, int64_t c0, uint64_t lo1, int64_t c1, int32_t r)
{
    const int32_t v = node_new(x);
    fx_node *nd = &x->node[v];
    nd->n = 0;
    node_put(nd, 0, lo0, c0, x->root);
    node_put(nd, 1, lo1, c1, r);
    x->root = v;
    x->height++;
}

/* The split child (lo, cnt, ch) goes into the parent at depth d (position pi[d] + 1, the left
 * part's count fixed to cl), splitting full nodes up the path. */
static void climb_split(cs_findex *x, const fx_path *p, int d, int64_t cl, uint64_t lo, int64_t cnt,
                        int32_t ch)
{
    for (; d >= 0; d--) {
        fx_node *v = &x->node[p->pn[d]];
        v->cnt[p->pi[d]] = cl;
        if (v->n < FAN_MAX) {
            node_put(v, p->pi[d] + 1, lo, cnt, ch);
            return;
        }
        /* full: the upper half moves to a new node w, then the child goes to its side */
        const int32_t wi = node_new(x);
        v = &x->node[p->pn[d]];
        fx_node *w = &x->node[wi];
        const int h = FAN_MAX / 2;
        w->n = FAN_MAX - h;
        memcpy(w->lo, &v->lo[h], (size_t)w->n * sizeof v->lo[0]);
        memcpy(w->cnt, &v->cnt[h], (size_t)w->n * sizeof v->cnt[0]);
        memcpy(w->ch, &v->ch[h], (size_t)w->n * sizeof v->ch[0]);
        v->n = h;
        const int at = p->pi[d] + 1;
        if (at <= h)
            node_put(v, at, lo, cnt, ch);
        else
            node_put(w, at - h, lo, cnt, ch);
        cl = node_count(v);
        lo = w->lo[0];
        cnt = node_count(w);
        ch = wi;
        if (d == 0) {
            grow_root(x, v->lo[0], cl, lo, cnt, ch);
            return;
        }
    }
}

cs_err cs_findex_insert(cs_ctx *ctx, cs_findex *x, uint64_t key, int *added)
{
    *added = 0;
    fx_path p;
    int32_t l = descend(x, key, &p);
    int i = lower(&x->leaf[l], key);
    if (i < x->leaf[l].n && x->leaf[l].k[i] == key)
        return CS_OK;
    CS_ASSERT(x->height + 1 < DEPTH_MAX);
    /* room for the splits of the whole path first: then nothing below can fail */
    cs_err rc = reserve(ctx, x, 1, x->height + 1);
    if (rc != CS_OK)
        return rc;
    *added = 1;
    x->size++;
    for (int d = 0; d < x->height; d++)
        x->node[p.pn[d]].cnt[p.pi[d]]++;
    fx_leaf *f = &x->leaf[l];
    if (f->n < LEAF_MAX) {
        memmove(&f->k[i + 1], &f->k[i], (size_t)(f->n - i) * sizeof f->k[0]);
        f->k[i] = key;
        f->n++;
        return CS_OK;
    }
    /* a full leaf: its upper half moves to a new leaf r on its right, then the key goes in */
    const int32_t r = leaf_new(x);
    f = &x->leaf[l];
    fx_leaf *g = &x->leaf[r];
    const int h = LEAF_MAX / 2;
    g->n = LEAF_MAX - h;
    memcpy(g->k, &f->k[h], (size_t)g->n * sizeof f->k[0]);
    f->n = h;
    g->prev = l;
    g->next = f->next;
    if (f->next >= 0)
        x->leaf[f->next].prev = r;
    else
        x->last = r;
    f->next = r;
    fx_leaf *t = i <= h ? f : g;
    const int at = i <= h ? i : i - h;
    memmove(&t->k[at + 1], &t->k[at], (size_t)(t->n - at) * sizeof t->k[0]);
    t->k[at] = key;
    t->n++;
    if (x->height == 0)
        grow_root(x, 0, f->n, g->k[0], g->n, r);
    else
        climb_split(x, &p, x->height - 1, f->n, g->k[0], g->n, r);
    return CS_OK;
}

/* ---- removal and rebuilding ----------------------------------------------------------------- */

/* Leaf l (empty, not the root) leaves the tree, and inner nodes left empty with it. */
static void unlink_leaf(cs_findex *x, const fx_path *p, int32_t l)
{
    fx_leaf *f = &x->leaf[l];
    if (f->prev >= 0)
        x->leaf[f->prev].next = f->next;
    else
        x->first = f->next;
    if (f->next >= 0)
        x->leaf[f->next].prev = f->prev;
    else
        x->last = f->prev;
    leaf_free(x, l);
    for (int d = x->height - 1; d >= 0; d--) {
        fx_node *v = &x->node[p->pn[d]];
        const int at = p->pi[d];
        const size_t m = (size_t)(v->n - at - 1);
        memmove(&v->lo[at], &v->lo[at + 1], m * sizeof v->lo[0]);
        memmove(&v->cnt[at], &v->cnt[at + 1], m * sizeof v->cnt[0]);
        memmove(&v->ch[at], &v->ch[at + 1], m * sizeof v->ch[0]);
        v->n--;
        if (v->n > 0 || d == 0)
            break;
        node_free(x, p->pn[d]);
    }
    /* a root with one child gives way to it */
    while (x->height > 0 && x->node[x->root].n == 1) {
        const int32_t old = x->root;
        x->root = x->node[old].ch[0];
        node_free(x, old);
        x->height--;
    }
}

/* The leaves and inner nodes of a tree loaded with n keys. */
static void load_sizes(int64_t n, int64_t *leaves, int64_t *nodes)
{
    *leaves = n > 0 ? (n + LOAD_FILL - 1) / LOAD_FILL : 1;
    *nodes = 0;
    for (int64_t c = *leaves; c > 1;) {
        c = (c + LOAD_FILL - 1) / LOAD_FILL;
        *nodes += c;
    }
}

/* One level of a loaded tree over the c nodes (or leaves) ids[0..c) with their lower ends lo[]
 * and counts cnt[]: nodes of up to LOAD_FILL children, written back into the arrays; returns
 * their number. */
static int64_t load_level(cs_findex *x, int32_t *ids, uint64_t *lo, int64_t *cnt, int64_t c)
{
    const int64_t g = (c + LOAD_FILL - 1) / LOAD_FILL;
    for (int64_t j = 0; j < g; j++) {
        const int64_t a = c * j / g, e = c * (j + 1) / g;
        const int32_t v = node_new(x);
        fx_node *nd = &x->node[v];
        nd->n = (int32_t)(e - a);
        int64_t s = 0;
        for (int64_t i = a; i < e; i++) {
            nd->lo[i - a] = lo[i];
            nd->cnt[i - a] = cnt[i];
            nd->ch[i - a] = ids[i];
            s += cnt[i];
        }
        ids[j] = v;
        lo[j] = lo[a];
        cnt[j] = s;
    }
    return g;
}

/* The tree of keys[0..n) (ascending, distinct) at LOAD_FILL per leaf and node, in pools emptied
 * and large enough (load_sizes); ids, lo, cnt: scratch of as many as its leaves. */
static void load(cs_findex *x, const uint64_t *keys, int64_t n, int32_t *ids, uint64_t *lo,
                 int64_t *cnt)
{
    int64_t L = 0, nodes = 0;
    load_sizes(n, &L, &nodes);
    x->leaf_top = x->node_top = x->n_leaves = x->n_nodes = 0;
    x->leaf_free = x->node_free = -1;
    x->height = 0;
    for (int64_t j = 0; j < L; j++) {
        const int64_t a = n * j / L, e = n * (j + 1) / L;
        const int32_t l = leaf_new(x);
        fx_leaf *f = &x->leaf[l];
        f->n = (int32_t)(e - a);
        memcpy(f->k, keys + a, (size_t)(e - a) * sizeof *keys);
        f->prev = j > 0 ? ids[j - 1] : -1;
        if (j > 0)
            x->leaf[ids[j - 1]].next = l;
        ids[j] = l;
        lo[j] = j > 0 ? keys[a] : 0;
        cnt[j] = e - a;
    }
    x->first = ids[0];
    x->last = ids[L - 1];
    x->size = n;
    for (int64_t c = L; c > 1; x->height++)
        c = load_level(x, ids, lo, cnt, c);
    x->root = ids[0];
}

/* Rebuilds the tree at LOAD_FILL when its leaves hold on average less than a quarter of their
 * room (best effort: nothing when the scratch finds no memory; the pools are large enough, the
 * tree having more leaves and nodes than the rebuilt one). */
static void maybe_rebuild(cs_findex *x)
{
    if (x->n_leaves < 64 || (int64_t)x->n_leaves * LEAF_MAX <= 4 * x->size)
        return;
    int64_t L = 0, nodes = 0;
    load_sizes(x->size, &L, &nodes);
    uint64_t *keys = malloc(((size_t)x->size + 1) * sizeof *keys);
    uint64_t *lo = malloc((size_t)L * sizeof *lo);
    int64_t *cnt = malloc((size_t)L * sizeof *cnt);
    int32_t *ids = malloc((size_t)L * sizeof *ids);
    if (keys != NULL && lo != NULL && cnt != NULL && ids != NULL && L <= x->leaf_cap &&
        nodes <= x->node_cap) {
        const int64_t n = cs_findex_up(x, 0, keys, x->size);
        CS_ASSERT(n == x->size);
        load(x, keys, n, ids, lo, cnt);
    }
    free(keys);
    free(lo);
    free(cnt);
    free(ids);
}

int cs_findex_remove(cs_findex *x, uint64_t key)
{
    fx_path p;
    const int32_t l = descend(x, key, &p);
    fx_leaf *f = &x->leaf[l];
    const int i = lower(f, key);
    if (i >= f->n || f->k[i] != key)
        return 0;
    memmove(&f->k[i], &f->k[i + 1], (size_t)(f->n - i - 1) * sizeof f->k[0]);
    f->n--;
    x->size--;
    for (int d = 0; d < x->height; d++)
        x->node[p.pn[d]].cnt[p.pi[d]]--;
    if (f->n == 0 && x->height > 0)
        unlink_leaf(x, &p, l);
    maybe_rebuild(x);
    return 1;
}

cs_err cs_findex_load(cs_ctx *ctx, cs_findex *x, const uint64_t *keys, int64_t n)
{
    cs_err rc = CS_OK;
    int64_t L = 0, nodes = 0;
    int32_t *ids = NULL;
    uint64_t *lo = NULL;
    int64_t *cnt = NULL;
    load_sizes(n, &L, &nodes);
    reset(x);
    if (L > INT32_MAX / 2)
        return cs_fail(ctx, CS_ERR_LIMIT, "frontier index: %lld keys", (long long)n);
    CS_TRY(ctx, cs_alloc(ctx, &ids, (size_t)L, sizeof *ids, "frontier index"));
    CS_TRY(ctx, cs_alloc(ctx, &lo, (size_t)L, sizeof *lo, "frontier index"));
    CS_TRY(ctx, cs_alloc(ctx, &cnt, (size_t)L, sizeof *cnt, "frontier index"));
    x->leaf_top = x->node_top = 0;
    CS_TRY(ctx, reserve(ctx, x, L, nodes));
    load(x, keys, n, ids, lo, cnt);
fail:
    if (rc != CS_OK)
        reset(x);
    free(ids);
    free(lo);
    free(cnt);
    return rc;
}

/* ---- checking ------------------------------------------------------------------------------- */

/* The subtree of cur at depth d: its keys in [a, b] (b inclusive), its count; 0 when broken. */
static int check_sub(const cs_findex *x, int32_t cur, int d, uint64_t a, uint64_t b, int64_t *cnt)
{
    if (d == x->height) {
        const fx_leaf *f = &x->leaf[cur];
        for (int i = 0; i < f->n; i++)
            if (f->k[i] < a || f->k[i] > b || (i > 0 && f->k[i - 1] >= f->k[i]))
                return 0;
        *cnt = f->n;
        return f->n > 0 || x->height == 0;
    }
    const fx_node *v = &x->node[cur];
    int64_t s = 0;
    if (v->n < 1 || (d == 0 && v->n < 2))
        return 0;
    for (int i = 0; i < v->n; i++) {
        const uint64_t lo = i == 0 ? a : v->lo[i];
        const uint64_t hi = i + 1 < v->n ? v->lo[i + 1] - 1 : b;
        int64_t c = 0;
        if ((i > 0 && (v->lo[i] <= (i == 1 ? a : v->lo[i - 1]) || v->lo[i] > b)) ||
            !check_sub(x, v->ch[i], d + 1, lo, hi, &c) || c != v->cnt[i])
            return 0;
        s += c;
    }
    *cnt = s;
    return 1;
}

int cs_findex_check(const cs_findex *x)
{
    int64_t c = 0, n = 0;
    if (!check_sub(x, x->root, 0, 0, UINT64_MAX, &c) || c != x->size)
        return 0;
    /* the leaves' chain: every key once, increasing, links both ways */
    int32_t prev = -1;
    uint64_t last = 0;
    for (int32_t l = x->first; l >= 0; prev = l, l = x->leaf[l].next) {
        const fx_leaf *f = &x->leaf[l];
        if (f->prev != prev || (f->n > 0 && n > 0 && f->k[0] <= last))
            return 0;
        n += f->n;
        last = f->n > 0 ? f->k[f->n - 1] : last;
    }
    return n == x->size && prev == x->last;
}
