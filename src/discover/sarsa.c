/*
 * discover/sarsa: Han, Wuillemin, Senellart 2018, Algorithm 1 with linear function
 * approximation (Eq. 2) and the gradient SARSA update (Eq. 3):
 *   relevant page:  w <- w + alpha [r - q(s,a)] x(s,a)                         (line 33)
 *   otherwise:      a' chosen epsilon-greedily among the new page's out-links, delta =
 *                   r + gamma q(s',a') - q(s,a);
 *                   asynchronous, synchronous: w <- w + alpha delta x(s,a)        (Eq. 3)
 *                   moderated:  w <- w + alpha [r + gamma (q(s',a') - delta) - q(s,a)] x(s,a)
 *                               = w + alpha (1 - gamma) delta x(s,a)             (Eq. 4)
 * A page without out-links ends its episode: q(s',a') = 0.
 *
 * Frontier values: asynchronous and moderated evaluate a link when it enters the frontier or
 * gains a parent (with the weights of that moment); synchronous re-evaluates the whole
 * frontier after the weights change (Alg. 1 lines 40-43): once per tick, after the tick's
 * updates (a tick is a batch of fetches; with one fetch per tick it is the paper's loop).
 * a' for the target is drawn from the stream (run seed, page, tick).
 *
 * crawl.weight_sync = sum (sum_begin): a tick's updates are computed from the weights at its
 * start, rounded to 128-bit fixed point (comm.h) and accumulated exactly; the weights become
 * those of the last sync plus the accumulated updates (sum_apply). So the learner is one over
 * all ranks, and which rank made a fetch, or in which order, changes no bit of it.
 */
#include "crawlsim/comm.h"
#include "crawlsim/qnet.h"
#include "crawlsim/rng.h"
#include "discover_impl.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sarsa {
    cs_sarsa_config c;
    const cs_feat_layout *L;
    cs_qlinear q;
    double alpha; /* the step per update: sarsa.alpha under sarsa.step_rule (cs_sarsa_step) */
    uint64_t seed;
    int dirty; /* weights changed since the last full evaluation (synchronous) */
    /* crawl.weight_sync = sum: the weights of the last sync and the updates since (exact) */
    int sum;
    double *w0;
    cs_fix *acc;
    /* per-thread accumulators of a tick's updates (nthr x n_weights): integer sums, so the
     * threads' shares add up to the same bits in any order and for any thread count */
    cs_fix *tacc;
    int nthr;
} sarsa;

static cs_err sarsa_create(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st)
{
    cs_err rc = CS_OK;
    sarsa *s = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &s, 1, sizeof *s, "sarsa"));
    s->c = cfg->sarsa;
    s->L = L;
    s->alpha = cs_sarsa_step(cfg, ctx->size);
    s->seed = (uint64_t)cfg->run.seed;
    CS_TRY(ctx, cs_qlinear_init(ctx, &s->q, L));
    CS_TRY(ctx, cs_calloc(ctx, &s->w0, (size_t)L->n_weights, sizeof *s->w0, "sarsa"));
    CS_TRY(ctx, cs_calloc(ctx, &s->acc, (size_t)L->n_weights, sizeof *s->acc, "sarsa"));
    s->nthr = omp_get_max_threads();
    CS_TRY(ctx, cs_calloc(ctx, &s->tacc, (size_t)s->nthr * (size_t)L->n_weights, sizeof *s->tacc,
                          "sarsa"));
    *st = s;
    return CS_OK;
fail:
    if (s != NULL) {
        cs_qlinear_fini(&s->q);
        free(s->w0);
        free(s->acc);
    }
    free(s);
    return rc;
}

static void sarsa_destroy(void *st)
{
    sarsa *s = st;
    if (s == NULL)
        return;
    cs_qlinear_fini(&s->q);
    free(s->w0);
    free(s->acc);
    free(s->tacc);
    free(s);
}

static void sarsa_value(void *st, cs_frontier_view *v, int64_t first, int64_t n)
{
    sarsa *s = st;
    const int G = s->L->n_groups;
    const float *t = s->q.table;
    for (int64_t i = first; i < first + n; i++) {
        const uint8_t *c = v->codes + i * v->stride;
        float q = 0.0f;
        for (int g = 0; g < G; g++)
            q += t[g * CS_FEAT_CODES + c[g]];
        v->q[i] = q;
    }
}

/* Asynchronous and moderated SARSA value an entry at its insert only (with the weights of that
 * moment); synchronous SARSA values every entry again after the weights change. */
static int sarsa_static_values(void *st)
{
    return ((const sarsa *)st)->c.mode != CS_SARSA_SYNCHRONOUS;
}

static int sarsa_stale(void *st)
{
    const sarsa *s = st;
    return s->c.mode == CS_SARSA_SYNCHRONOUS && s->dirty;
}

static void sarsa_evaluate_all(void *st, cs_frontier_view *v)
{
    sarsa *s = st;
    s->dirty = 0;
    cs_qlinear_eval(&s->q, v->codes, v->stride, v->n, v->q);
}

/* Called by several threads at once: dirty is written atomically (the same value by all). */
static void sarsa_evaluate_part(void *st, cs_frontier_view *v, int64_t first, int64_t n)
{
    sarsa *s = st;
    __atomic_store_n(&s->dirty, 0, __ATOMIC_RELAXED);
    cs_qlinear_eval_range(&s->q, v->codes + first * v->stride, v->stride, n, v->q + first);
}

/* The temporal-difference error of fetch e under the current weights (Eq. 3, or Eq. 4 when
 * moderated). Reads the weights only: the fetches of a tick may be evaluated in parallel when
 * their updates are applied afterwards (crawl.weight_sync = sum). */
static double sarsa_delta(const sarsa *s, const cs_discover_fetch *e, uint64_t tick)
{
    const int ga = s->L->n_groups - s->L->n_state_groups;
    const double q = cs_qlinear_value(&s->q, e->x);
    if (e->relevant || e->n_out == 0)
        return e->reward - q;
    /* a' = epsilon-greedy over q(s', .) of the new page's out-links (Alg. 1 line 35) */
    cs_rng r;
    cs_rng_init(&r, s->seed, CS_RNG_POLICY, (uint64_t)e->page, tick + 1);
    double qn;
    const double qs = cs_qlinear_value_state(&s->q, e->state); /* shared by every a' */
    if (cs_rng_uniform(&r) < s->c.epsilon) {
        int64_t j = (int64_t)cs_rng_below(&r, (uint64_t)e->n_out);
        qn = cs_qlinear_value_action(&s->q, qs, e->out_action + j * ga);
    } else {
        qn = cs_qlinear_value_action(&s->q, qs, e->out_action);
        for (int64_t j = 1; j < e->n_out; j++) {
            double v = cs_qlinear_value_action(&s->q, qs, e->out_action + j * ga);
            if (v > qn)
                qn = v;
        }
    }
    double delta = e->reward + s->c.gamma * qn - q;
    if (s->c.mode == CS_SARSA_MODERATED)
        delta = e->reward + s->c.gamma * (qn - delta) - q; /* Eq. 4 */
    return delta;
}

/*
 * Under crawl.weight_sync = sum the tick's updates all use the weights of the tick's start, and
 * each is one rounding to fixed point followed by integer additions: the fetches are shared
 * among the threads (a static schedule), each thread adds into its own accumulator, and the
 * accumulators are added into s->acc. Integer addition is exact and associative, so the bits do
 * not depend on the thread count or the schedule. Without sum, each update changes the weights
 * the next one reads: the loop stays serial, in fetch order.
 */
static void sarsa_observe(void *st, const cs_discover_fetch *f, int64_t n, uint64_t tick)
{
    sarsa *s = st;
    if (s->sum) {
        const int64_t nw = s->L->n_weights;
        cs_fix *tacc = s->tacc;
        const sarsa *cs = s;
        int used = 1;
#pragma omp parallel if (n >= 32) num_threads(s->nthr) default(none)                               \
    shared(cs, f, n, tick, nw, tacc, used)
        {
            cs_fix *a = tacc + (size_t)omp_get_thread_num() * (size_t)nw;
            if (omp_get_thread_num() == 0)
                used = omp_get_num_threads(); /* read after the region's closing barrier */
            memset(a, 0, (size_t)nw * sizeof *a);
#pragma omp for schedule(static) nowait
            for (int64_t i = 0; i < n; i++) {
                int32_t idx[CS_FEAT_MAX_GROUPS * 4];
                const int k = cs_qlinear_indexes(&cs->q, f[i].x, idx);
                const cs_fix u = cs_fix_from_double(cs->alpha * sarsa_delta(cs, &f[i], tick));
                for (int j = 0; j < k; j++)
                    a[idx[j]] += u;
            }
        }
        for (int t = 0; t < used; t++)
            for (int64_t w = 0; w < nw; w++)
                s->acc[w] += tacc[(size_t)t * (size_t)nw + (size_t)w];
        return;
    }
    for (int64_t i = 0; i < n; i++)
        cs_qlinear_step(&s->q, f[i].x, s->alpha * sarsa_delta(s, &f[i], tick));
    if (n > 0) {
        cs_qlinear_tables(&s->q);
        s->dirty = 1;
    }
}

static double *sarsa_weights(void *st, int64_t *n)
{
    sarsa *s = st;
    *n = s->L->n_weights;
    return s->q.w;
}

static void sarsa_synced(void *st)
{
    sarsa *s = st;
    cs_qlinear_tables(&s->q);
    s->dirty = 1;
}

static void sarsa_sum_begin(void *st)
{
    sarsa *s = st;
    s->sum = 1;
    for (int64_t i = 0; i < s->L->n_weights; i++)
        s->w0[i] = s->q.w[i];
}

static void *sarsa_updates(void *st, int64_t *n)
{
    sarsa *s = st;
    *n = s->L->n_weights;
    return s->acc;
}

static void sarsa_sum_apply(void *st, int global)
{
    sarsa *s = st;
    for (int64_t i = 0; i < s->L->n_weights; i++)
        s->q.w[i] = s->w0[i] + cs_fix_to_double(s->acc[i]);
    if (global) {
        memcpy(s->w0, s->q.w, (size_t)s->L->n_weights * sizeof *s->w0);
        memset(s->acc, 0, (size_t)s->L->n_weights * sizeof *s->acc);
    }
    cs_qlinear_tables(&s->q);
    s->dirty = 1;
}

static double sarsa_step_size(void *st)
{
    return ((const sarsa *)st)->alpha;
}

static double sarsa_epsilon(void *st)
{
    return ((const sarsa *)st)->c.epsilon;
}

/* The weights (the float tables are rebuilt from them, bit for bit) and whether the frontier's
 * values are stale. */
static cs_err sarsa_save(void *st, cs_ctx *ctx, cs_ckpt *ck)
{
    const sarsa *s = st;
    cs_err rc = CS_OK;
    const int64_t dirty = s->dirty;
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/weights", CS_CK_F64, s->L->n_weights, s->q.w));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/dirty", CS_CK_I64, 1, &dirty));
    if (s->sum) {
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/w0", CS_CK_F64, s->L->n_weights, s->w0));
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "policy/updates", CS_CK_BYTES,
                                s->L->n_weights * (int64_t)sizeof *s->acc, s->acc));
    }
fail:
    return rc;
}

static cs_err sarsa_load(void *st, cs_ctx *ctx, cs_ckpt *ck)
{
    sarsa *s = st;
    cs_err rc = CS_OK;
    int64_t dirty = 0;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/weights", CS_CK_F64, s->L->n_weights, s->q.w));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/dirty", CS_CK_I64, 1, &dirty));
    if (s->sum) {
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/w0", CS_CK_F64, s->L->n_weights, s->w0));
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "policy/updates", CS_CK_BYTES,
                                      s->L->n_weights * (int64_t)sizeof *s->acc, s->acc));
    }
    cs_qlinear_tables(&s->q);
    s->dirty = (int)dirty;
fail:
    return rc;
}

static double sarsa_step(const cs_config *cfg, int ranks)
{
    return cs_sarsa_step(cfg, ranks);
}

static void sarsa_step_report(const cs_config *cfg, int ranks, char *buf, size_t n)
{
    static const char *rule[] = {"", ", step rule window", ", step rule ranks"};
    const int r = cfg->sarsa.step_rule;
    snprintf(buf, n, ", alpha = %g%s%s", cs_sarsa_step(cfg, ranks),
             strcmp(cfg->sarsa.alpha, "auto") == 0 ? " (auto)" : "",
             r >= 0 && r <= CS_STEP_RANKS ? rule[r] : "");
}

const cs_discover_ops cs_discover_sarsa_ops = {
    .needs_relevance = 1,
    .reward = cs_discover_reward_han,
    .step = sarsa_step,
    .step_key = "sarsa.alpha",
    .step_report = sarsa_step_report,
    .create = sarsa_create,
    .destroy = sarsa_destroy,
    .value = sarsa_value,
    .stale = sarsa_stale,
    .evaluate_all = sarsa_evaluate_all,
    .evaluate_part = sarsa_evaluate_part,
    .static_values = sarsa_static_values,
    .observe = sarsa_observe,
    .weights = sarsa_weights,
    .synced = sarsa_synced,
    .sum_begin = sarsa_sum_begin,
    .updates = sarsa_updates,
    .sum_apply = sarsa_sum_apply,
    .step_size = sarsa_step_size,
    .epsilon = sarsa_epsilon,
    .save = sarsa_save,
    .load = sarsa_load,
};
