/*
 * tres/tree: the Tree-Frontier of TRES (Kontogiannis et al., Sec. 2.6, Algorithms 2-3, Eq. 3-4).
 * Rules, randomness and memory layout: include/crawlsim/tree.h.
 */
#include "crawlsim/tree.h"
#include "crawlsim/rng.h"

#include <Random123/philox.h>

#include "tree_impl.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* ---------------------------------------------------------------- small helpers */

/* realloc *pp to n elements of size sz; *pp unchanged on failure. */
cs_err tree_resize(cs_ctx *ctx, void *pp, size_t n, size_t sz, const char *what)
{
    void **p = (void **)pp;
    void *q = realloc(*p, n * sz > 0 ? n * sz : 1);
    if (q == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "tree: out of memory for %s (%zu x %zu bytes)", what, n,
                       sz);
    *p = q;
    return CS_OK;
}

static int finite_row(const float *x, int d)
{
    for (int i = 0; i < d; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- id map (linear probing) */

static inline uint64_t home(const cs_tree *t, uint64_t id)
{
    return cs_mix64(id) & t->map_mask;
}

/* Moves the map to newcap entries (a power of two above the count); 0 if out of memory, the
 * map then unchanged. */
static int map_rehash(cs_tree *t, uint64_t newcap)
{
    CS_ASSERT(newcap > 0 && (newcap & (newcap - 1)) == 0);
    map_entry *m = malloc((size_t)newcap * sizeof *m);
    if (m == NULL)
        return 0;
    _Static_assert(EMPTY_ID == UINT64_MAX, "an empty map is all ones");
    memset(m, 0xff, (size_t)newcap * sizeof *m); /* every entry EMPTY_ID */
    map_entry *old = t->map;
    const uint64_t oldcap = old != NULL ? t->map_mask + 1 : 0;
    t->map = m;
    t->map_mask = newcap - 1;
    for (uint64_t i = 0; i < oldcap; i++)
        if (old[i].id != EMPTY_ID) {
            uint64_t s = home(t, old[i].id);
            while (m[s].id != EMPTY_ID)
                s = (s + 1) & t->map_mask;
            m[s] = old[i];
        }
    free(old);
    return 1;
}

static cs_err map_rehash_or_fail(cs_ctx *ctx, cs_tree *t, uint64_t newcap)
{
    if (map_rehash(t, newcap))
        return CS_OK;
    return cs_fail(ctx, CS_ERR_NOMEM, "tree: out of memory for the id map (%llu entries)",
                   (unsigned long long)newcap);
}

/* After removals: halves the map while its load is below 1/8 (so it stays >= 1/4 after), keeping
 * the memory per sample bounded when the frontier shrinks. Best effort. */
static void map_maybe_shrink(cs_tree *t)
{
    while (t->map_mask + 1 > MAP_MIN && (uint64_t)t->map_count * 8 < t->map_mask + 1)
        if (!map_rehash(t, (t->map_mask + 1) / 2))
            return;
}

static cs_err map_insert(cs_ctx *ctx, cs_tree *t, uint64_t id, int32_t lf, int64_t slot)
{
    /* load factor <= 3/4 */
    if ((uint64_t)(t->map_count + 1) * 4 > (t->map_mask + 1) * 3) {
        cs_err rc = map_rehash_or_fail(ctx, t, (t->map_mask + 1) * 2);
        if (rc != CS_OK)
            return rc;
    }
    uint64_t s = home(t, id);
    while (t->map[s].id != EMPTY_ID)
        s = (s + 1) & t->map_mask;
    t->map[s].id = id;
    t->map[s].leaf = (uint32_t)lf;
    t->map[s].slot = (uint32_t)slot;
    t->map_count++;
    return CS_OK;
}

/* Position of the entry (id, leaf, slot); it must exist. */
static uint64_t map_find(const cs_tree *t, uint64_t id, int32_t lf, int64_t slot)
{
    uint64_t s = home(t, id);
    for (;;) {
        const map_entry *e = &t->map[s];
        CS_ASSERT(e->id != EMPTY_ID);
        if (e->id == id && e->leaf == (uint32_t)lf && e->slot == (uint32_t)slot)
            return s;
        s = (s + 1) & t->map_mask;
    }
}

/* Deletes the entry at position i by backward shift (no tombstones). */
static void map_delete_at(cs_tree *t, uint64_t i)
{
    const uint64_t mask = t->map_mask;
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (t->map[j].id == EMPTY_ID)
            break;
        const uint64_t k = home(t, t->map[j].id);
        /* entry j may move to i unless its home lies cyclically in (i, j] */
        const int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        t->map[i] = t->map[j];
        i = j;
    }
    t->map[i].id = EMPTY_ID;
    t->map_count--;
}

/* ---------------------------------------------------------------- leaves */

static void nonempty_add(cs_tree *t, int32_t lf)
{
    CS_ASSERT(t->n_nonempty < t->cap_nonempty);
    t->leaves[lf].ne_pos = t->n_nonempty;
    t->nonempty[t->n_nonempty++] = lf;
}

static void nonempty_del(cs_tree *t, int32_t lf)
{
    const int64_t p = t->leaves[lf].ne_pos;
    const int32_t last = t->nonempty[--t->n_nonempty];
    t->nonempty[p] = last;
    t->leaves[last].ne_pos = p;
    t->leaves[lf].ne_pos = -1;
}

/* The next capacity of a full table of leaves or nodes (`what`): doubled, indexes stay int32. */
static cs_err doubled(cs_ctx *ctx, int64_t cap, const char *what, int64_t *nc)
{
    *nc = cap * 2;
    return *nc > INT32_MAX ? cs_fail(ctx, CS_ERR_LIMIT, "tree: more than 2^31 %s", what) : CS_OK;
}

/* A new live leaf index at depth (node set by the caller). */
static cs_err leaf_new(cs_ctx *ctx, cs_tree *t, int32_t depth, int32_t *out)
{
    cs_err rc = CS_OK;
    if (t->n_leaves == t->cap_leaves) {
        int64_t nc;
        CS_TRY(ctx, doubled(ctx, t->cap_leaves, "leaves", &nc));
        CS_TRY(ctx, tree_resize(ctx, &t->leaves, (size_t)nc, sizeof *t->leaves, "leaves"));
        CS_TRY(ctx, tree_resize(ctx, &t->nonempty, (size_t)nc, sizeof *t->nonempty, "leaf list"));
        t->cap_leaves = t->cap_nonempty = nc;
    }
    leaf *L = &t->leaves[t->n_leaves];
    memset(L, 0, sizeof *L);
    L->node = -1;
    L->depth = depth;
    L->ne_pos = -1;
    L->rmin = INFINITY;
    L->rmax = -INFINITY;
    *out = (int32_t)t->n_leaves++;
    return CS_OK;
fail:
    return rc;
}

static cs_err node_new(cs_ctx *ctx, cs_tree *t, int32_t lf, int32_t *out)
{
    cs_err rc = CS_OK;
    if (t->n_nodes == t->cap_nodes) {
        int64_t nc;
        CS_TRY(ctx, doubled(ctx, t->cap_nodes, "nodes", &nc));
        CS_TRY(ctx, tree_resize(ctx, &t->nodes, (size_t)nc, sizeof *t->nodes, "nodes"));
        t->cap_nodes = nc;
    }
    node *N = &t->nodes[t->n_nodes];
    N->feature = -1;
    N->thr = 0.0f;
    N->left = N->right = -1;
    N->leaf = lf;
    t->leaves[lf].node = (int32_t)t->n_nodes;
    *out = (int32_t)t->n_nodes++;
    return CS_OK;
fail:
    return rc;
}

static int64_t grown(int64_t cap, int64_t need)
{
    int64_t nc = cap < MIN_CAP ? MIN_CAP : cap;
    while (nc < need)
        nc += nc / 2;
    return nc;
}

/* A leaf's list of d-vectors (vec, float) with one value each (val, vsz bytes), capacity *cap:
 * room for need entries. */
static cs_err reserve(cs_ctx *ctx, int64_t d, int64_t *cap, int64_t need, float **vec, void *val,
                      size_t vsz, const char *what_vec, const char *what_val)
{
    cs_err rc = CS_OK;
    if (need <= *cap)
        return CS_OK;
    const int64_t nc = grown(*cap, need);
    CS_TRY(ctx, tree_resize(ctx, vec, (size_t)(nc * d), sizeof **vec, what_vec));
    CS_TRY(ctx, tree_resize(ctx, val, (size_t)nc, vsz, what_val));
    *cap = nc;
    return CS_OK;
fail:
    return rc;
}

cs_err tree_frontier_reserve(cs_ctx *ctx, cs_tree *t, leaf *L, int64_t need)
{
    return reserve(ctx, t->c.d, &L->capf, need, &L->fx, &L->fid, sizeof *L->fid, "frontier vectors",
                   "frontier ids");
}

cs_err tree_experience_reserve(cs_ctx *ctx, cs_tree *t, leaf *L, int64_t need)
{
    return reserve(ctx, t->c.d, &L->cape, need, &L->ex, &L->er, sizeof *L->er, "experience vectors",
                   "experience rewards");
}

void tree_leaf_free(leaf *L)
{
    free(L->fx);
    free(L->fid);
    free(L->ex);
    free(L->er);
    L->fx = L->ex = L->er = NULL;
    L->fid = NULL;
    L->capf = L->cape = 0;
}

/* Appends a frontier sample to leaf lf (arrays reserved) and maps it. */
static cs_err frontier_append(cs_ctx *ctx, cs_tree *t, int32_t lf, const float *x, uint64_t id)
{
    cs_err rc = CS_OK;
    leaf *L = &t->leaves[lf];
    CS_TRY(ctx, tree_frontier_reserve(ctx, t, L, L->nf + 1));
    CS_TRY(ctx, map_insert(ctx, t, id, lf, L->nf));
    memcpy(L->fx + L->nf * t->c.d, x, (size_t)t->c.d * sizeof *x);
    L->fid[L->nf] = id;
    if (L->nf++ == 0)
        nonempty_add(t, lf);
    return CS_OK;
fail:
    return rc;
}

/* Swap-removes frontier sample `slot` of leaf lf and fixes the moved sample's map entry. The
 * caller deletes the removed sample's own map entry. Shrinks the arrays when a quarter full. */
static void frontier_remove_slot(cs_tree *t, int32_t lf, int64_t slot)
{
    leaf *L = &t->leaves[lf];
    const int d = t->c.d;
    const int64_t last = L->nf - 1;
    if (slot != last) {
        memcpy(L->fx + slot * d, L->fx + last * d, (size_t)d * sizeof *L->fx);
        L->fid[slot] = L->fid[last];
        t->map[map_find(t, L->fid[slot], lf, last)].slot = (uint32_t)slot;
    }
    L->nf--;
    t->n_frontier--;
    if (L->nf == 0)
        nonempty_del(t, lf);
    if (L->capf > MIN_CAP && L->nf * 4 <= L->capf) {
        /* shrinking never fails in practice; if realloc refuses, keep the larger arrays */
        const int64_t nc = L->capf / 2 > MIN_CAP ? L->capf / 2 : MIN_CAP;
        float *fx = realloc(L->fx, (size_t)(nc * d) * sizeof *fx);
        if (fx != NULL) {
            L->fx = fx;
            uint64_t *fid = realloc(L->fid, (size_t)nc * sizeof *fid);
            if (fid != NULL) {
                L->fid = fid;
                L->capf = nc;
            }
        }
    }
}

/* ---------------------------------------------------------------- create / destroy */

void cs_tree_config_default(cs_tree_config *c, int d)
{
    c->d = d;
    c->min_samples = 5;
    c->min_child = 1;
    c->max_depth = 18;
    c->seed = 0;
    c->stream = 0;
}

cs_err cs_tree_create(cs_ctx *ctx, const cs_tree_config *c, cs_tree **out)
{
    cs_err rc = CS_OK;
    cs_tree *t = NULL;
    if (c->d < 1 || c->d > CS_TREE_MAX_D || c->min_samples < 2 || c->min_child < 1 ||
        c->max_depth < 0 || c->max_depth > 1000)
        return cs_fail(ctx, CS_ERR_ARG,
                       "tree: bad config d %d min_samples %d min_child %d max_depth %d", c->d,
                       c->min_samples, c->min_child, c->max_depth);
    CS_TRY(ctx, cs_calloc(ctx, &t, 1, sizeof *t, "tree"));
    t->c = *c;
    t->cap_nodes = 64;
    t->cap_leaves = t->cap_nonempty = 64;
    CS_TRY(ctx, cs_alloc(ctx, &t->nodes, (size_t)t->cap_nodes, sizeof *t->nodes, "tree nodes"));
    CS_TRY(ctx, cs_alloc(ctx, &t->leaves, (size_t)t->cap_leaves, sizeof *t->leaves, "leaves"));
    CS_TRY(ctx,
           cs_alloc(ctx, &t->nonempty, (size_t)t->cap_nonempty, sizeof *t->nonempty, "leaf list"));
    CS_TRY(ctx, map_rehash_or_fail(ctx, t, MAP_MIN));
    int32_t lf, nd;
    CS_TRY(ctx, leaf_new(ctx, t, 0, &lf));
    CS_TRY(ctx, node_new(ctx, t, lf, &nd));
    t->live_leaves = 1;
    *out = t;
    return CS_OK;
fail:
    cs_tree_destroy(&t);
    return rc;
}

void cs_tree_destroy(cs_tree **p)
{
    if (p == NULL || *p == NULL)
        return;
    cs_tree *t = *p;
    for (int64_t i = 0; i < t->n_leaves; i++)
        tree_leaf_free(&t->leaves[i]);
    free(t->leaves);
    free(t->nodes);
    free(t->nonempty);
    free(t->map);
    free(t->rep_x);
    free(t->rep_id);
    free(t->rep_leaf);
    free(t->rep_q);
    free(t->route);
    free(t);
    *p = NULL;
}

/* ---------------------------------------------------------------- routing */

int32_t cs_tree_leaf_of(const cs_tree *t, const float *x)
{
    int32_t n = 0;
    while (t->nodes[n].feature >= 0) {
        const node *N = &t->nodes[n];
        n = x[N->feature] <= N->thr ? N->left : N->right;
    }
    return t->nodes[n].leaf;
}

int32_t cs_tree_leaf_bound(const cs_tree *t)
{
    return (int32_t)t->n_leaves;
}

void cs_tree_leaf_info_get(const cs_tree *t, int32_t lf, cs_tree_leaf_info *info)
{
    CS_ASSERT(lf >= 0 && lf < t->n_leaves);
    const leaf *L = &t->leaves[lf];
    info->live = L->node >= 0;
    info->depth = L->depth;
    info->n_frontier = L->nf;
    info->n_experience = L->ne;
}

void cs_tree_leaf_frontier(const cs_tree *t, int32_t lf, const float **x, const uint64_t **ids,
                           int64_t *n)
{
    CS_ASSERT(lf >= 0 && lf < t->n_leaves);
    const leaf *L = &t->leaves[lf];
    *x = L->fx;
    *ids = L->fid;
    *n = L->nf;
}

int cs_tree_node_rule(const cs_tree *t, int32_t nd, int *feature, float *threshold, int32_t *left,
                      int32_t *right)
{
    CS_ASSERT(nd >= 0 && nd < t->n_nodes);
    const node *N = &t->nodes[nd];
    if (N->feature < 0)
        return 0;
    *feature = N->feature;
    *threshold = N->thr;
    if (left != NULL)
        *left = N->left;
    if (right != NULL)
        *right = N->right;
    return 1;
}

static cs_err split_leaf(cs_ctx *ctx, cs_tree *t, int32_t lf, int f, float v)
{
    cs_err rc = CS_OK;
    const int d = t->c.d;
    int32_t li, ri, ln, rn;
    const int32_t depth = t->leaves[lf].depth + 1;
    CS_TRY(ctx, leaf_new(ctx, t, depth, &li));
    CS_TRY(ctx, leaf_new(ctx, t, depth, &ri));
    CS_TRY(ctx, node_new(ctx, t, li, &ln));
    CS_TRY(ctx, node_new(ctx, t, ri, &rn));
    leaf *P = &t->leaves[lf], *LL = &t->leaves[li], *RL = &t->leaves[ri];
    /* reserve exact sizes first, so that nothing below fails half-way */
    int64_t nel = 0, nfl = 0;
    for (int64_t i = 0; i < P->ne; i++)
        nel += P->ex[i * d + f] <= v;
    for (int64_t i = 0; i < P->nf; i++)
        nfl += P->fx[i * d + f] <= v;
    CS_TRY(ctx, tree_experience_reserve(ctx, t, LL, nel));
    CS_TRY(ctx, tree_experience_reserve(ctx, t, RL, P->ne - nel));
    CS_TRY(ctx, tree_frontier_reserve(ctx, t, LL, nfl));
    CS_TRY(ctx, tree_frontier_reserve(ctx, t, RL, P->nf - nfl));
    for (int64_t i = 0; i < P->ne; i++) {
        leaf *C = P->ex[i * d + f] <= v ? LL : RL;
        memcpy(C->ex + C->ne * d, P->ex + i * d, (size_t)d * sizeof *C->ex);
        const float r = P->er[i];
        C->er[C->ne++] = r;
        C->rmin = r < C->rmin ? r : C->rmin;
        C->rmax = r > C->rmax ? r : C->rmax;
    }
    for (int64_t i = 0; i < P->nf; i++) {
        const int left = P->fx[i * d + f] <= v;
        leaf *C = left ? LL : RL;
        const int32_t ci = left ? li : ri;
        memcpy(C->fx + C->nf * d, P->fx + i * d, (size_t)d * sizeof *C->fx);
        C->fid[C->nf] = P->fid[i];
        map_entry *e = &t->map[map_find(t, P->fid[i], lf, i)];
        e->leaf = (uint32_t)ci;
        e->slot = (uint32_t)C->nf;
        C->nf++;
    }
    if (P->nf > 0)
        nonempty_del(t, lf);
    if (LL->nf > 0)
        nonempty_add(t, li);
    if (RL->nf > 0)
        nonempty_add(t, ri);
    node *N = &t->nodes[P->node];
    N->feature = f;
    N->thr = v;
    N->left = ln;
    N->right = rn;
    N->leaf = -1;
    P->node = -1;
    P->nf = P->ne = 0;
    tree_leaf_free(P);
    t->live_leaves++;
    t->splits++;
    return CS_OK;
fail:
    return rc;
}

/* ---------------------------------------------------------------- updates (Algorithm 3) */

cs_err cs_tree_add_experience(cs_ctx *ctx, cs_tree *t, const float *x, float r, int *split)
{
    cs_err rc = CS_OK;
    const int d = t->c.d;
    if (split != NULL)
        *split = 0;
    if (!finite_row(x, d) || !isfinite(r))
        return cs_fail(ctx, CS_ERR_ARG, "tree: non-finite experience sample");
    const int32_t lf = cs_tree_leaf_of(t, x);
    leaf *L = &t->leaves[lf];
    CS_TRY(ctx, tree_experience_reserve(ctx, t, L, L->ne + 1));
    memcpy(L->ex + L->ne * d, x, (size_t)d * sizeof *x);
    L->er[L->ne++] = r;
    L->rmin = r < L->rmin ? r : L->rmin;
    L->rmax = r > L->rmax ? r : L->rmax;
    t->n_experience++;
    /* one split attempt, on this leaf only; equal rewards (V(P) = 0) cannot gain */
    if (L->ne < t->c.min_samples || L->depth >= t->c.max_depth || !(L->rmin < L->rmax))
        return CS_OK;
    cs_tree_split s;
    CS_TRY(ctx, cs_tree_best_split(ctx, L->ex, d, d, L->er, L->ne, t->c.min_child, &s));
    if (s.feature < 0)
        return CS_OK;
    CS_TRY(ctx, split_leaf(ctx, t, lf, s.feature, s.threshold));
    if (split != NULL)
        *split = 1;
    return CS_OK;
fail:
    return rc;
}

cs_err cs_tree_add_frontier(cs_ctx *ctx, cs_tree *t, const float *x, uint64_t id)
{
    cs_err rc = CS_OK;
    if (id == EMPTY_ID || !finite_row(x, t->c.d))
        return cs_fail(ctx, CS_ERR_ARG, "tree: bad frontier sample (id %llu)",
                       (unsigned long long)id);
    const int32_t lf = cs_tree_leaf_of(t, x);
    if (t->leaves[lf].nf >= (int64_t)UINT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "tree: 2^32 frontier samples in one leaf");
    CS_TRY(ctx, frontier_append(ctx, t, lf, x, id));
    t->n_frontier++;
    return CS_OK;
fail:
    return rc;
}

/* The samples' leaves in parallel (routing only reads the tree: adding frontier samples never
 * splits), then the appends in order, which fixes every sample's slot, the id map and the
 * non-empty list as the serial calls would. */
cs_err cs_tree_add_frontier_batch(cs_ctx *ctx, cs_tree *t, const float *x, const uint64_t *ids,
                                  int64_t n)
{
    cs_err rc = CS_OK;
    if (n <= 0)
        return CS_OK;
    if (n > t->cap_route) {
        const int64_t nc = grown(t->cap_route, n);
        CS_TRY(ctx, tree_resize(ctx, &t->route, (size_t)nc, sizeof *t->route, "routing"));
        t->cap_route = nc;
    }
    const cs_tree *ct = t;
    int32_t *lf = t->route;
    const int d = t->c.d;
    int64_t bad = n; /* the first bad sample */
#pragma omp parallel for if (n >= PAR_ROUTE) default(none) shared(ct, x, ids, n, lf, d)            \
    reduction(min                                                                                  \
              : bad) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (ids[i] == EMPTY_ID || !finite_row(x + i * d, d)) {
            bad = i < bad ? i : bad;
            lf[i] = -1;
        } else {
            lf[i] = cs_tree_leaf_of(ct, x + i * d);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (i == bad)
            return cs_fail(ctx, CS_ERR_ARG, "tree: bad frontier sample (id %llu)",
                           (unsigned long long)ids[i]);
        if (i + 8 < n) /* the map's probes are at random places */
            __builtin_prefetch(&t->map[home(t, ids[i + 8])]);
        if (t->leaves[lf[i]].nf >= (int64_t)UINT32_MAX)
            return cs_fail(ctx, CS_ERR_LIMIT, "tree: 2^32 frontier samples in one leaf");
        CS_TRY(ctx, frontier_append(ctx, t, lf[i], x + i * d, ids[i]));
        t->n_frontier++;
    }
    return CS_OK;
fail:
    return rc;
}

int64_t cs_tree_remove(cs_tree *t, uint64_t id)
{
    if (id == EMPTY_ID)
        return 0;
    int64_t count = 0;
    uint64_t s = home(t, id);
    while (t->map[s].id != EMPTY_ID) {
        if (t->map[s].id != id) {
            s = (s + 1) & t->map_mask;
            continue;
        }
        const int32_t lf = (int32_t)t->map[s].leaf;
        const int64_t slot = t->map[s].slot;
        frontier_remove_slot(t, lf, slot);
        map_delete_at(t, s); /* s now holds the next entry of the cluster, or is empty */
        count++;
    }
    map_maybe_shrink(t);
    return count;
}

/* ---------------------------------------------------------------- sampling (Algorithm 2) */

static cs_err reps_reserve(cs_ctx *ctx, cs_tree *t, int64_t n)
{
    cs_err rc = CS_OK;
    if (n <= t->cap_reps)
        return CS_OK;
    const int64_t nc = grown(t->cap_reps, n);
    CS_TRY(ctx,
           tree_resize(ctx, &t->rep_x, (size_t)(nc * t->c.d), sizeof *t->rep_x, "representatives"));
    CS_TRY(ctx, tree_resize(ctx, &t->rep_id, (size_t)nc, sizeof *t->rep_id, "representatives"));
    CS_TRY(ctx, tree_resize(ctx, &t->rep_leaf, (size_t)nc, sizeof *t->rep_leaf, "representatives"));
    CS_TRY(ctx, tree_resize(ctx, &t->rep_q, (size_t)nc, sizeof *t->rep_q, "representatives"));
    t->cap_reps = nc;
    return CS_OK;
fail:
    return rc;
}

/* Draws the representatives of call `call` into the scratch (rep_leaf holds the slot in
 * rep_id's place until the caller needs the id: both are filled here). */
static void draw_reps(cs_tree *t, uint64_t call, int64_t *slots)
{
    const int d = t->c.d;
    const int64_t n = t->n_nonempty;
    const int32_t *ne = t->nonempty;
    const leaf *leaves = t->leaves;
    float *rx = t->rep_x;
    uint64_t *rid = t->rep_id;
    int32_t *rl = t->rep_leaf;
    const uint64_t seed = t->c.seed, stream = t->c.stream;
    const int par = n >= PAR_REPS;
#pragma omp parallel if (par) default(none)                                                        \
    shared(d, n, ne, leaves, rx, rid, rl, seed, stream, call, slots)
    {
        /* Two passes over this thread's block of leaves: draw the slots (writing them to rl
         * for now) and prefetch their rows, then copy the rows. The rows are at random places
         * in ~36 MB of vectors at 10^6 samples, a cache miss each: one at a time they cost
         * ~80 ns each, in flight together a fraction of that. */
        const int nt = omp_get_num_threads(), me = omp_get_thread_num();
        const int64_t i0 = n * me / nt, i1 = n * (me + 1) / nt;
        int64_t *sl = slots != NULL ? slots : (int64_t *)(void *)rid; /* rid: same size */
        /* the first word of each leaf's block (cs_rng_init + cs_rng_seek(1 + leaf)), the
         * Philox blocks back to back so that their multiplications overlap */
        const philox4x64_key_t key = {{seed, stream}};
        for (int64_t i = i0; i < i1; i++) {
            if (i + 8 < i1)
                __builtin_prefetch(&leaves[ne[i + 8]]);
            const philox4x64_ctr_t c = {{1 + (uint64_t)ne[i], CS_RNG_TRES, call, 0}};
            sl[i] = (int64_t)philox4x64(c, key).v[0];
        }
        for (int64_t i = i0; i < i1; i++) {
            const leaf *L = &leaves[ne[i]];
            const uint64_t nf = (uint64_t)L->nf;
            uint64_t lo;
            uint64_t s = cs_rng_mul64_((uint64_t)sl[i], nf, &lo);
            if (lo < nf) { /* maybe Lemire's rejection: draw it exactly as cs_rng_below does */
                cs_rng r;
                cs_rng_init(&r, seed, CS_RNG_TRES, stream, call);
                cs_rng_seek(&r, 1 + (uint64_t)ne[i]);
                s = cs_rng_below(&r, nf);
            }
            sl[i] = (int64_t)s;
            __builtin_prefetch(L->fx + (int64_t)s * d);
            __builtin_prefetch(&L->fid[s]);
        }
        for (int64_t i = i0; i < i1; i++) {
            const int32_t lf = ne[i];
            const leaf *L = &leaves[lf];
            const int64_t s = sl[i];
            memcpy(rx + i * d, L->fx + s * d, (size_t)d * sizeof *rx);
            rid[i] = L->fid[s]; /* after reading sl[i] when sl aliases rid */
            rl[i] = lf;
        }
    }
}

cs_err cs_tree_representatives(cs_ctx *ctx, cs_tree *t, const float **x, const uint64_t **ids,
                               const int32_t **leaves, int64_t *n)
{
    cs_err rc = CS_OK;
    CS_TRY(ctx, reps_reserve(ctx, t, t->n_nonempty));
    draw_reps(t, t->calls++, NULL);
    *x = t->rep_x;
    *ids = t->rep_id;
    *leaves = t->rep_leaf;
    *n = t->n_nonempty;
    return CS_OK;
fail:
    return rc;
}

/* Removes sample `slot` of leaf lf (and its map entry) and describes it in *out. */
static void take(cs_tree *t, int32_t lf, int64_t slot, cs_tree_pick *out)
{
    const leaf *L = &t->leaves[lf];
    const int d = t->c.d;
    out->found = 1;
    out->id = L->fid[slot];
    out->leaf = lf;
    memset(out->x, 0, sizeof out->x);
    memcpy(out->x, L->fx + slot * d, (size_t)d * sizeof *out->x);
    const uint64_t pos = map_find(t, out->id, lf, slot);
    frontier_remove_slot(t, lf, slot);
    map_delete_at(t, pos);
    map_maybe_shrink(t);
    t->picks++;
}

/* The exploration branch of call `call`: a uniform leaf, then a uniform sample in it. */
static void explore(cs_tree *t, cs_rng *r, cs_tree_pick *out)
{
    const int32_t lf = t->nonempty[cs_rng_below(r, (uint64_t)t->n_nonempty)];
    const int64_t slot = (int64_t)cs_rng_below(r, (uint64_t)t->leaves[lf].nf);
    out->explored = 1;
    out->q = 0.0f;
    out->q_evals = 0;
    take(t, lf, slot, out);
}

cs_err cs_tree_sample(cs_ctx *ctx, cs_tree *t, cs_mlp *q, double epsilon, cs_tree_pick *out)
{
    cs_err rc = CS_OK;
    int64_t *slots = NULL;
    memset(out, 0, sizeof *out);
    const uint64_t call = t->calls++;
    t->q_evals_last = 0;
    if (t->n_nonempty == 0)
        return CS_OK;
    cs_rng r;
    cs_rng_init(&r, t->c.seed, CS_RNG_TRES, t->c.stream, call);
    if (cs_rng_uniform(&r) < epsilon) {
        explore(t, &r, out);
        return CS_OK;
    }
    CS_ASSERT(cs_mlp_config_of(q)->d_in == t->c.d);
    const int64_t n = t->n_nonempty;
    CS_TRY(ctx, reps_reserve(ctx, t, n));
    CS_TRY(ctx, cs_alloc(ctx, &slots, (size_t)n, sizeof *slots, "representative slots"));
    draw_reps(t, call, slots);
    CS_TRY(ctx, cs_mlp_eval(ctx, q, t->rep_x, t->c.d, n, t->rep_q));
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++) {
        const float a = t->rep_q[i], b = t->rep_q[best];
        if (a > b || (a == b && t->rep_leaf[i] < t->rep_leaf[best]))
            best = i;
    }
    out->explored = 0;
    out->q = t->rep_q[best];
    out->q_evals = n;
    t->q_evals_last = n;
    t->q_evals_total += n;
    take(t, t->rep_leaf[best], slots[best], out);
    free(slots);
    return CS_OK;
fail:
    free(slots);
    return rc;
}

int cs_tree_peek_random(const cs_tree *t, cs_rng *r, float *x)
{
    if (t->n_nonempty == 0)
        return 0;
    const leaf *L = &t->leaves[t->nonempty[cs_rng_below(r, (uint64_t)t->n_nonempty)]];
    const int64_t s = (int64_t)cs_rng_below(r, (uint64_t)L->nf);
    memcpy(x, L->fx + s * t->c.d, (size_t)t->c.d * sizeof *x);
    return 1;
}

cs_err cs_tree_sample_random(cs_ctx *ctx, cs_tree *t, cs_tree_pick *out)
{
    (void)ctx;
    memset(out, 0, sizeof *out);
    const uint64_t call = t->calls++;
    t->q_evals_last = 0;
    if (t->n_nonempty == 0)
        return CS_OK;
    cs_rng r;
    cs_rng_init(&r, t->c.seed, CS_RNG_TRES, t->c.stream, call);
    (void)cs_rng_uniform(&r); /* the coin of cs_tree_sample: same draws as epsilon = 1 */
    explore(t, &r, out);
    return CS_OK;
}

/* ---------------------------------------------------------------- statistics */

void cs_tree_stats_get(const cs_tree *t, cs_tree_stats *s)
{
    memset(s, 0, sizeof *s);
    s->leaves = t->live_leaves;
    s->nonempty = t->n_nonempty;
    s->frontier = t->n_frontier;
    s->experience = t->n_experience;
    s->splits = t->splits;
    s->picks = t->picks;
    s->q_evals_last = t->q_evals_last;
    s->q_evals_total = t->q_evals_total;
    const size_t d = (size_t)t->c.d;
    size_t fb = (size_t)(t->map_mask + 1) * sizeof(map_entry), other = sizeof *t;
    for (int64_t i = 0; i < t->n_leaves; i++) {
        const leaf *L = &t->leaves[i];
        if (L->node >= 0 && L->depth > s->depth)
            s->depth = L->depth;
        fb += (size_t)L->capf * (d * sizeof(float) + sizeof(uint64_t));
        other += (size_t)L->cape * (d * sizeof(float) + sizeof(float));
    }
    other += (size_t)t->cap_nodes * sizeof(node) + (size_t)t->cap_leaves * sizeof(leaf) +
             (size_t)t->cap_nonempty * sizeof(int32_t) +
             (size_t)t->cap_reps *
                 (d * sizeof(float) + sizeof(uint64_t) + sizeof(int32_t) + sizeof(float)) +
             (size_t)t->cap_route * sizeof(int32_t);
    s->bytes_frontier = fb;
    s->bytes = fb + other;
}
