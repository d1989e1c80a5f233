/*
 * discover/tres: Kontogiannis et al.'s TRES (tres-tree-frontier.md Sec. 2.4-2.6, Algorithms 2-4)
 * and its baselines, as selecting policies (discover.h):
 *
 *   tres         a Tree-Frontier (tree.h) over the rank's frontier samples, split by the rewards
 *                of the experience samples (Alg. 3); a greedy pick is the argmax of the online
 *                Q-network over one uniform representative per leaf (Alg. 2); the double DQN
 *                (ddqn.h) learns from a replay buffer whose transitions carry the fetched page's
 *                out-links and one Tree-Frontier sample as the next candidates (Alg. 4, Eq. 5;
 *                the authors' code has the out-links alone)
 *   tres-async   the same features and learner without the tree: each frontier sample is
 *                valued by the online network once, at the first selection after it arrived
 *                (one batched evaluation), and kept in a max-heap; the best value first
 *   tree-random  the Tree-Frontier alone (no learner): a uniform leaf, a uniform sample of it
 *
 * Exploration: the first tres.warmup fetches of the run (over all ranks) are exploration picks
 * (a random leaf's random sample; a random heap entry), then greedy, as the authors' code; with
 * tres.epsilon > 0 a whole tick explores with that probability (coin from (run seed, tick), the
 * same on every rank, so the global top-B compares like keys).
 *
 * Several picks per tick (bandwidth B > 1): greedy tres takes the representatives by decreasing
 * Q; when a tick wants more picks than there are leaves, the representatives are drawn again
 * from what is left. A proposed page leaves the structure at once (every sample of it); the
 * picks the engine does not take go back with the proposed sample's vector (the page's other
 * samples are not restored: only the global budget across ranks rejects proposals).
 *
 * Rewards are binary (relevant or not, Sec. 2.2.2). The weights the engine averages are the
 * online then the target network's parameters, as doubles (the networks are float): after
 * averaging both are bit-identical on every rank.
 */
#include "crawlsim/ddqn.h"
#include "crawlsim/replay.h"
#include "crawlsim/rng.h"
#include "crawlsim/tree.h"
#include "discover_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_TRES, K_ASYNC, K_TREE_RANDOM };

/* A proposed pick, or a heap entry (tres-async). */
typedef struct sample {
    uint64_t key, id;
    uint64_t hkey; /* tres-async: its key in the heap (the value key) */
    float x[CS_TRES_MAX_D];
} sample;

typedef struct keyed {
    uint64_t key;
    int64_t i;
} keyed;

typedef struct tres {
    enum kind kind;
    cs_ctx *ctx; /* for the failures inside observe */
    cs_tres_config c;
    int d;
    uint64_t seed;
    cs_err err; /* a failure inside observe, returned by the next select */
    /* structures over the frontier */
    cs_tree *tree;
    sample *heap; /* tres-async: max-heap by key */
    int64_t hn;
    size_t hcap;
    float *pend; /* tres-async: samples not valued yet (d floats + id as 2 floats' room) */
    uint64_t *pend_id;
    int64_t np;
    size_t pend_cap, pend_id_cap;
    /* learner */
    cs_ddqn *q;
    cs_replay *rb;
    int64_t steps;
    /* the tick's proposals, the blocked samples to put back, the committed vectors */
    sample *picks;
    int64_t npicks;
    size_t picks_cap;
    sample *stash;
    int64_t nstash;
    size_t stash_cap;
    float *tx;
    size_t tx_cap;
    float *nx; /* a transition's next candidates: out-links and a Tree-Frontier sample */
    size_t nx_cap;
    /* scratch */
    float *rx, *qv;
    uint64_t *rid;
    keyed *ord;
    size_t rx_cap, qv_cap, rid_cap, ord_cap;
    int64_t q_evals;
    double *w;
    int64_t nw;
} tres;

/* ---- the max-heap of tres-async -------------------------------------------------------------- */

static void heap_up(sample *h, int64_t i)
{
    sample e = h[i];
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (h[p].key >= e.key)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void heap_down(sample *h, int64_t n, int64_t i)
{
    sample e = h[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].key > h[c].key)
            c++;
        if (h[c].key <= e.key)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

static cs_err heap_push(cs_ctx *ctx, tres *t, const sample *e)
{
    cs_err rc = cs_grow(ctx, &t->heap, &t->hcap, (size_t)t->hn + 1, sizeof *t->heap, "tres heap");
    if (rc != CS_OK)
        return rc;
    t->heap[t->hn] = *e;
    heap_up(t->heap, t->hn++);
    return CS_OK;
}

/* Removes entry i into *out. */
static void heap_take(tres *t, int64_t i, sample *out)
{
    *out = t->heap[i];
    t->hn--;
    if (i < t->hn) {
        t->heap[i] = t->heap[t->hn];
        heap_down(t->heap, t->hn, i);
        heap_up(t->heap, i);
    }
}

/* ---- create, destroy, tasks ---------------------------------------------------------------- */

static cs_err new_tree(cs_ctx *ctx, tres *t, int64_t task)
{
    cs_tree_config tc;
    cs_tree_config_default(&tc, t->d);
    tc.min_samples = (int)t->c.min_samples;
    tc.max_depth = (int)t->c.max_depth;
    tc.seed = t->seed;
    tc.stream = (uint64_t)task;
    cs_tree_destroy(&t->tree);
    return cs_tree_create(ctx, &tc, &t->tree);
}

static cs_err create_kind(cs_ctx *ctx, const cs_config *cfg, void **st, enum kind kind)
{
    cs_err rc = CS_OK;
    tres *t = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &t, 1, sizeof *t, "tres"));
    t->kind = kind;
    t->ctx = ctx;
    t->c = cfg->tres;
    t->d = cs_tres_dim(cfg->tres.host_features);
    t->seed = (uint64_t)cfg->run.seed;
    if (kind != K_ASYNC)
        CS_TRY(ctx, new_tree(ctx, t, 0));
    if (kind != K_TREE_RANDOM) {
        cs_ddqn_config dc;
        cs_ddqn_config_default(&dc);
        dc.net.d_in = t->d;
        dc.net.h1 = (int)t->c.hidden1;
        dc.net.h2 = (int)t->c.hidden2;
        dc.opt.lr = (float)t->c.lr;
        dc.gamma = (float)t->c.gamma;
        dc.batch = (int)t->c.batch;
        dc.target_every = t->c.target_every;
        cs_rng r;
        cs_rng_init(&r, t->seed, CS_RNG_TRES, (uint64_t)1 << 40, 0); /* the same on every rank */
        CS_TRY(ctx, cs_ddqn_create(ctx, &dc, &r, &t->q));
        cs_replay_config rcf;
        cs_replay_config_default(&rcf, t->d);
        rcf.capacity = t->c.replay;
        rcf.next_rows = t->c.replay * 32 > t->c.max_next ? t->c.replay * 32 : t->c.max_next;
        CS_TRY(ctx, cs_replay_create(ctx, &rcf, &t->rb));
        const int64_t P = cs_mlp_nparams(cs_ddqn_online(t->q));
        t->nw = 2 * P;
        CS_TRY(ctx, cs_alloc(ctx, &t->w, (size_t)t->nw, sizeof *t->w, "tres weights"));
    }
    *st = t;
    return CS_OK;
fail:
    if (t != NULL) {
        cs_tree_destroy(&t->tree);
        cs_ddqn_destroy(&t->q);
        cs_replay_destroy(&t->rb);
        free(t);
    }
    return rc;
}

static void tres_destroy(void *st)
{
    tres *t = st;
    if (t == NULL)
        return;
    cs_tree_destroy(&t->tree);
    cs_ddqn_destroy(&t->q);
    cs_replay_destroy(&t->rb);
    free(t->heap);
    free(t->pend);
    free(t->pend_id);
    free(t->picks);
    free(t->stash);
    free(t->tx);
    free(t->rx);
    free(t->nx);
    free(t->qv);
    free(t->rid);
    free(t->ord);
    free(t->w);
    free(t);
}

static cs_err tres_create(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st)
{
    (void)L;
    return create_kind(ctx, cfg, st, K_TRES);
}

static cs_err async_create(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st)
{
    (void)L;
    return create_kind(ctx, cfg, st, K_ASYNC);
}

static cs_err tree_random_create(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L,
                                 void **st)
{
    (void)L;
    return create_kind(ctx, cfg, st, K_TREE_RANDOM);
}

static cs_err tres_begin_task(void *st, cs_ctx *ctx, int64_t task)
{
    tres *t = st;
    t->hn = 0;
    t->np = 0;
    t->npicks = 0;
    t->nstash = 0;
    if (t->tree != NULL)
        return new_tree(ctx, t, task);
    return CS_OK;
}

/* ---- frontier samples ---------------------------------------------------------------------- */

static cs_err tres_link(void *st, cs_ctx *ctx, const int64_t *pages, const float *x, int64_t n,
                        float *value)
{
    tres *t = st;
    cs_err rc = CS_OK;
    const int d = t->d;
    /* an entry's eviction value: the best classifier probability among its samples */
    for (int64_t i = 0; i < n; i++)
        value[i] = x[i * d + d - 1];
    /* (page ids are non-negative: the same values as uint64_t) */
    const uint64_t *ids = (const uint64_t *)(const void *)pages;
    if (t->kind != K_ASYNC)
        return cs_tree_add_frontier_batch(ctx, t->tree, x, ids, n);
    CS_TRY(ctx, cs_grow(ctx, &t->pend, &t->pend_cap, (size_t)(t->np + n) * (size_t)d,
                        sizeof *t->pend, "tres samples"));
    CS_TRY(ctx, cs_grow(ctx, &t->pend_id, &t->pend_id_cap, (size_t)(t->np + n), sizeof *t->pend_id,
                        "tres samples"));
    memcpy(t->pend + t->np * d, x, (size_t)(n * d) * sizeof *x);
    memcpy(t->pend_id + t->np, ids, (size_t)n * sizeof *ids);
    t->np += n;
fail:
    return rc;
}

/* tres-async: values the samples that arrived since the last selection (one batch) and pushes
 * them into the heap. */
static cs_err flush_pending(cs_ctx *ctx, tres *t)
{
    cs_err rc = CS_OK;
    if (t->np == 0)
        return CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &t->qv, &t->qv_cap, (size_t)t->np, sizeof *t->qv, "tres values"));
    CS_TRY(ctx, cs_mlp_eval(ctx, cs_ddqn_online(t->q), t->pend, t->d, t->np, t->qv));
    t->q_evals += t->np;
    for (int64_t i = 0; i < t->np; i++) {
        sample e;
        e.id = t->pend_id[i];
        e.key = e.hkey = cs_frontier_key(t->qv[i], (int64_t)e.id);
        memcpy(e.x, t->pend + i * t->d, (size_t)t->d * sizeof(float));
        CS_TRY(ctx, heap_push(ctx, t, &e));
    }
    t->np = 0;
fail:
    return rc;
}

/* ---- selection ----------------------------------------------------------------------------- */

static uint64_t explore_key(uint64_t seed, uint64_t tick, uint64_t id)
{
    uint64_t h = cs_mix64(id ^ cs_mix64(seed * CS_HASH_GOLDEN + tick + CS_HASH_TRES_EXPLORE));
    return (h & 0xffffffff00000000u) | (uint64_t)(0xffffffffu - (uint32_t)id);
}

static cs_err add_pick(cs_ctx *ctx, tres *t, uint64_t key, uint64_t hkey, uint64_t id,
                       const float *x)
{
    cs_err rc = cs_grow(ctx, &t->picks, &t->picks_cap, (size_t)t->npicks + 1, sizeof *t->picks,
                        "tres picks");
    if (rc != CS_OK)
        return rc;
    sample *p = &t->picks[t->npicks++];
    p->key = key;
    p->hkey = hkey;
    p->id = id;
    memcpy(p->x, x, (size_t)t->d * sizeof *x);
    return CS_OK;
}

static cs_err add_stash(cs_ctx *ctx, tres *t, uint64_t hkey, uint64_t id, const float *x)
{
    cs_err rc = cs_grow(ctx, &t->stash, &t->stash_cap, (size_t)t->nstash + 1, sizeof *t->stash,
                        "tres picks");
    if (rc != CS_OK)
        return rc;
    sample *p = &t->stash[t->nstash++];
    p->key = p->hkey = hkey;
    p->id = id;
    memcpy(p->x, x, (size_t)t->d * sizeof *x);
    return CS_OK;
}

/* Exploration picks from the tree: Tree-Random draws (each removes its sample). */
static cs_err select_tree_random(cs_ctx *ctx, tres *t, cs_discover_select *a)
{
    cs_err rc = CS_OK;
    int64_t blocked = 0;
    while (t->npicks < a->want && blocked < 4 * a->want + 16) {
        cs_tree_pick pk;
        CS_TRY(ctx, cs_tree_sample_random(ctx, t->tree, &pk));
        if (!pk.found)
            break;
        const int ad = a->admit(a->eng, (int64_t)pk.id);
        if (ad == CS_ADMIT_OK) {
            CS_TRY(ctx, add_pick(ctx, t, explore_key(t->seed, a->tick, pk.id), 0, pk.id, pk.x));
        } else if (ad == CS_ADMIT_LATER) {
            CS_TRY(ctx, add_stash(ctx, t, 0, pk.id, pk.x));
            blocked++;
        }
    }
fail:
    return rc;
}

/* Greedy picks from the tree (Alg. 2): representatives by decreasing Q, rounds until enough. */
static int keyed_desc(const void *a, const void *b)
{
    const uint64_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
    if (x != y)
        return x < y ? 1 : -1;
    const int64_t i = ((const keyed *)a)->i, j = ((const keyed *)b)->i;
    return i < j ? -1 : i > j;
}

static cs_err select_tree_greedy(cs_ctx *ctx, tres *t, cs_discover_select *a)
{
    cs_err rc = CS_OK;
    const int d = t->d;
    while (t->npicks < a->want) {
        const float *rx;
        const uint64_t *rid;
        const int32_t *leaves;
        int64_t n = 0;
        CS_TRY(ctx, cs_tree_representatives(ctx, t->tree, &rx, &rid, &leaves, &n));
        if (n == 0)
            break;
        /* copies: removals below change the tree */
        CS_TRY(ctx, cs_grow(ctx, &t->rx, &t->rx_cap, (size_t)n * (size_t)d, sizeof *t->rx, "tres"));
        CS_TRY(ctx, cs_grow(ctx, &t->rid, &t->rid_cap, (size_t)n, sizeof *t->rid, "tres"));
        CS_TRY(ctx, cs_grow(ctx, &t->qv, &t->qv_cap, (size_t)n, sizeof *t->qv, "tres"));
        CS_TRY(ctx, cs_grow(ctx, &t->ord, &t->ord_cap, (size_t)n, sizeof *t->ord, "tres"));
        memcpy(t->rx, rx, (size_t)n * (size_t)d * sizeof *rx);
        memcpy(t->rid, rid, (size_t)n * sizeof *rid);
        CS_TRY(ctx, cs_mlp_eval(ctx, cs_ddqn_online(t->q), t->rx, d, n, t->qv));
        t->q_evals += n;
        /* decreasing (Q, lower id) order; two representatives of one page (in two leaves)
         * have the same key: the index breaks the tie */
        for (int64_t i = 0; i < n; i++) {
            t->ord[i].key = cs_frontier_key(t->qv[i], (int64_t)t->rid[i]);
            t->ord[i].i = i;
        }
        qsort(t->ord, (size_t)n, sizeof *t->ord, keyed_desc);
        int64_t progress = 0;
        for (int64_t i = 0; i < n && t->npicks < a->want; i++) {
            const int64_t k = t->ord[i].i;
            const int ad = a->admit(a->eng, (int64_t)t->rid[k]);
            if (ad == CS_ADMIT_LATER)
                continue;
            if (ad == CS_ADMIT_OK)
                CS_TRY(ctx, add_pick(ctx, t, t->ord[i].key, 0, t->rid[k], t->rx + k * d));
            cs_tree_remove(t->tree, t->rid[k]);
            progress++;
        }
        if (progress == 0)
            break;
    }
fail:
    return rc;
}

/* tres-async picks: the heap's best (greedy) or random entries (exploration). */
static cs_err select_heap(cs_ctx *ctx, tres *t, cs_discover_select *a, int explore)
{
    cs_err rc = CS_OK;
    int64_t blocked = 0;
    cs_rng r;
    cs_rng_init(&r, t->seed, CS_RNG_TRES, ((uint64_t)1 << 40) + 2, a->tick);
    while (t->npicks < a->want && t->hn > 0 && blocked < 4 * a->want + 16) {
        sample e;
        heap_take(t, explore ? (int64_t)cs_rng_below(&r, (uint64_t)t->hn) : 0, &e);
        const int ad = a->admit(a->eng, (int64_t)e.id);
        if (ad == CS_ADMIT_OK) {
            const uint64_t key = explore ? explore_key(t->seed, a->tick, e.id) : e.hkey;
            CS_TRY(ctx, add_pick(ctx, t, key, e.hkey, e.id, e.x));
        } else if (ad == CS_ADMIT_LATER) {
            CS_TRY(ctx, add_stash(ctx, t, e.hkey, e.id, e.x));
            blocked++;
        }
    }
fail:
    return rc;
}

static int key_desc(const void *a, const void *b)
{
    const uint64_t x = ((const sample *)a)->key, y = ((const sample *)b)->key;
    return x < y ? 1 : x > y ? -1 : 0;
}

static cs_err tres_select(void *st, cs_ctx *ctx, cs_discover_select *a)
{
    tres *t = st;
    cs_err rc = t->err;
    t->err = CS_OK;
    t->npicks = 0;
    t->nstash = 0;
    a->n = 0;
    CS_TRY(ctx, rc);
    int explore = a->step < t->c.warmup || t->kind == K_TREE_RANDOM;
    if (!explore && t->c.epsilon > 0.0) {
        cs_rng r;
        cs_rng_init(&r, t->seed, CS_RNG_TRES, ((uint64_t)1 << 40) + 3, a->tick);
        explore = cs_rng_uniform(&r) < t->c.epsilon;
    }
    if (t->kind == K_ASYNC) {
        CS_TRY(ctx, flush_pending(ctx, t));
        CS_TRY(ctx, select_heap(ctx, t, a, explore));
    } else if (explore) {
        CS_TRY(ctx, select_tree_random(ctx, t, a));
    } else {
        CS_TRY(ctx, select_tree_greedy(ctx, t, a));
    }
    qsort(t->picks, (size_t)t->npicks, sizeof *t->picks, key_desc);
    for (int64_t i = 0; i < t->npicks; i++)
        a->keys[i] = t->picks[i].key;
    a->n = t->npicks;
fail:
    return rc;
}

/* Puts a sample back into the structure. */
static cs_err put_back(cs_ctx *ctx, tres *t, const sample *e)
{
    if (t->kind == K_ASYNC) {
        sample h = *e;
        h.key = h.hkey; /* back under its value key */
        return heap_push(ctx, t, &h);
    }
    return cs_tree_add_frontier(ctx, t->tree, e->x, e->id);
}

static cs_err tres_commit(void *st, cs_ctx *ctx, int64_t take)
{
    tres *t = st;
    cs_err rc = CS_OK;
    const int d = t->d;
    CS_TRY(ctx, cs_grow(ctx, &t->tx, &t->tx_cap, (size_t)(take + 1) * (size_t)d, sizeof *t->tx,
                        "tres picks"));
    for (int64_t i = 0; i < take; i++)
        memcpy(t->tx + i * d, t->picks[i].x, (size_t)d * sizeof(float));
    for (int64_t i = take; i < t->npicks; i++)
        CS_TRY(ctx, put_back(ctx, t, &t->picks[i]));
    for (int64_t i = 0; i < t->nstash; i++)
        CS_TRY(ctx, put_back(ctx, t, &t->stash[i]));
    t->npicks = t->nstash = 0;
fail:
    return rc;
}

/* ---- learning ------------------------------------------------------------------------------ */

static void tres_observe(void *st, const cs_discover_fetch *f, int64_t n, uint64_t tick)
{
    tres *t = st;
    (void)tick;
    cs_ctx *ctx = t->ctx;
    cs_err rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (f[i].pick < 0)
            continue;
        const float *x = t->tx + f[i].pick * t->d;
        const float r = f[i].relevant ? 1.0f : 0.0f;
        if (t->tree != NULL)
            rc = cs_tree_add_experience(ctx, t->tree, x, r, NULL);
        if (rc != CS_OK || t->q == NULL)
            continue;
        int64_t k = f[i].n_out < t->c.max_next ? f[i].n_out : t->c.max_next;
        const float *next = f[i].out_x;
        if (t->tree != NULL) {
            /* the paper's target (Alg. 4): the argmax over the out-links and a sample of the
             * Tree-Frontier, here a uniform sample of a uniform leaf, left in the tree */
            rc = cs_grow(ctx, &t->nx, &t->nx_cap, (size_t)(k + 1) * (size_t)t->d, sizeof *t->nx,
                         "tres");
            if (rc != CS_OK)
                continue;
            if (k > 0)
                memcpy(t->nx, f[i].out_x, (size_t)(k * t->d) * sizeof *t->nx);
            cs_rng pr;
            cs_rng_init(&pr, t->seed, CS_RNG_TRES, ((uint64_t)1 << 40) + 2, (uint64_t)t->steps);
            k += cs_tree_peek_random(t->tree, &pr, t->nx + k * t->d);
            next = t->nx;
        }
        rc = cs_replay_push(ctx, t->rb, x, r, next, t->d, (int32_t)k);
        t->steps++;
        if (rc == CS_OK && t->steps % t->c.train_every == 0 &&
            cs_replay_size(t->rb) >= t->c.batch) {
            cs_rng rr;
            cs_rng_init(&rr, t->seed, CS_RNG_TRES, ((uint64_t)1 << 40) + 1, (uint64_t)t->steps);
            double loss = 0.0;
            rc = cs_ddqn_train(ctx, t->q, t->rb, &rr, &loss);
        }
    }
    if (rc != CS_OK && t->err == CS_OK)
        t->err = rc;
}

static double *tres_weights(void *st, int64_t *n)
{
    tres *t = st;
    if (t->q == NULL) {
        *n = 0;
        return NULL;
    }
    const int64_t P = t->nw / 2;
    const float *on = cs_mlp_params_const(cs_ddqn_online(t->q));
    const float *tg = cs_mlp_params_const(cs_ddqn_target(t->q));
    for (int64_t i = 0; i < P; i++) {
        t->w[i] = (double)on[i];
        t->w[P + i] = (double)tg[i];
    }
    *n = t->nw;
    return t->w;
}

/* The weights' blocks (tres_weights): the online network's parameters, then the target's. */
static const char *const tres_networks[] = {"online", "target", NULL};

static void tres_synced(void *st)
{
    tres *t = st;
    if (t->q == NULL)
        return;
    const int64_t P = t->nw / 2;
    float *on = cs_mlp_params(cs_ddqn_online(t->q));
    float *tg = cs_mlp_params(cs_ddqn_target(t->q));
    for (int64_t i = 0; i < P; i++) {
        on[i] = (float)t->w[i];
        tg[i] = (float)t->w[P + i];
    }
}

static void tres_counters(void *st, int64_t *leaves, int64_t *q_evals)
{
    const tres *t = st;
    *leaves = 0;
    if (t->tree != NULL) {
        cs_tree_stats s;
        cs_tree_stats_get(t->tree, &s);
        *leaves = s.leaves;
    }
    *q_evals = t->q_evals;
}

static int64_t tres_replay_size(void *st)
{
    const tres *t = st;
    return t->rb != NULL ? cs_replay_size(t->rb) : 0;
}

static void no_value(void *st, cs_frontier_view *v, int64_t first, int64_t n)
{
    (void)st;
    (void)v;
    (void)first;
    (void)n;
}

static int never_stale(void *st)
{
    (void)st;
    return 0;
}

/* The frontier's values (eviction only) change only at the insert of their samples. */
static int static_values(void *st)
{
    (void)st;
    return 1;
}

static double no_epsilon(void *st)
{
    (void)st;
    return 0.0;
}

/* ---- checkpoints --------------------------------------------------------------------------- */

enum { TR_KIND, TR_STEPS, TR_QEVALS, TR_HN, TR_NP, TR_N };

/* Everything that evolves: the Tree-Frontier (tres, tree-random), the heap and the samples not
 * valued yet (tres-async), the double DQN with its Adam state and the replay buffer, the step
 * and evaluation counters. A tick boundary has no proposals or stash left (commit cleared them).
 * The RNG streams are functions of (seed, steps, tick, tree calls), all saved or given. */
static cs_err tres_save(void *st, cs_ctx *ctx, cs_ckpt *ck)
{
    const tres *t = st;
    cs_err rc = CS_OK;
    CS_ASSERT(t->npicks == 0 && t->nstash == 0);
    const int64_t sc[TR_N] = {t->kind, t->steps, t->q_evals, t->hn, t->np};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/state", CS_CK_I64, TR_N, sc));
    if (t->tree != NULL)
        CS_TRY(ctx, cs_tree_save(ctx, t->tree, ck, "policy/tree"));
    if (t->kind == K_ASYNC) {
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/heap", CS_CK_BYTES,
                                t->hn * (int64_t)sizeof(sample), t->heap));
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/pending_x", CS_CK_F32, t->np * t->d, t->pend));
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/pending_id", CS_CK_U64, t->np, t->pend_id));
    }
    if (t->q != NULL) {
        CS_TRY(ctx, cs_ddqn_save(ctx, t->q, ck, "policy/ddqn"));
        CS_TRY(ctx, cs_replay_save(ctx, t->rb, ck, "policy/replay"));
    }
fail:
    return rc;
}

static cs_err tres_load(void *st, cs_ctx *ctx, cs_ckpt *ck)
{
    tres *t = st;
    cs_err rc = CS_OK;
    int64_t sc[TR_N];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/state", CS_CK_I64, TR_N, sc));
    if (sc[TR_KIND] != (int64_t)t->kind || sc[TR_HN] < 0 || sc[TR_NP] < 0)
        rc =
            cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: state of another policy", cs_ckpt_path(ck));
    CS_TRY_AGREE(ctx, rc);
    t->steps = sc[TR_STEPS];
    t->q_evals = sc[TR_QEVALS];
    if (t->tree != NULL)
        CS_TRY(ctx, cs_tree_load(ctx, t->tree, ck, "policy/tree"));
    if (t->kind == K_ASYNC) {
        rc = cs_grow(ctx, &t->heap, &t->hcap, (size_t)sc[TR_HN] + 1, sizeof *t->heap, "tres heap");
        if (rc == CS_OK)
            rc = cs_grow(ctx, &t->pend, &t->pend_cap, (size_t)(sc[TR_NP] * t->d) + 1,
                         sizeof *t->pend, "tres samples");
        if (rc == CS_OK)
            rc = cs_grow(ctx, &t->pend_id, &t->pend_id_cap, (size_t)sc[TR_NP] + 1,
                         sizeof *t->pend_id, "tres samples");
        CS_TRY_AGREE(ctx, rc);
        t->hn = sc[TR_HN];
        t->np = sc[TR_NP];
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/heap", CS_CK_BYTES,
                                      t->hn * (int64_t)sizeof(sample), t->heap));
        CS_TRY(ctx,
               cs_ckpt_get_exact(ctx, ck, "policy/pending_x", CS_CK_F32, t->np * t->d, t->pend));
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/pending_id", CS_CK_U64, t->np, t->pend_id));
    }
    if (t->q != NULL) {
        CS_TRY(ctx, cs_ddqn_load(ctx, t->q, ck, "policy/ddqn"));
        CS_TRY(ctx, cs_replay_load(ctx, t->rb, ck, "policy/replay"));
    }
fail:
    return rc;
}

/* rel: whether the policy needs relevance (tree-random, TRES's baseline, does not) */
#define TRES_OPS(cr, rel)                                                                          \
    {                                                                                              \
        .needs_relevance = rel, .reward = cs_discover_reward_han, .tres_features = 1,              \
        .link = tres_link, .select = tres_select, .commit = tres_commit,                           \
        .begin_task = tres_begin_task, .counters = tres_counters, .replay_size = tres_replay_size, \
        .create = cr, .destroy = tres_destroy, .value = no_value, .stale = never_stale,            \
        .static_values = static_values, .observe = tres_observe, .weights = tres_weights,          \
        .weight_blocks = tres_networks, .synced = tres_synced, .epsilon = no_epsilon,              \
        .save = tres_save, .load = tres_load                                                       \
    }

const cs_discover_ops cs_discover_tres_ops = TRES_OPS(tres_create, 1);
const cs_discover_ops cs_discover_tres_async_ops = TRES_OPS(async_create, 1);
const cs_discover_ops cs_discover_tree_random_ops = TRES_OPS(tree_random_create, 0);
