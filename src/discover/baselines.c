/*
 * discover/baselines: the policies that do not learn. `random` gives each page a fixed uniform
 * priority from (run seed, page id), so the crawl order is a random permutation that does not
 * depend on the rank count; `best-first` is Han et al.'s no-learning baseline (Sec. 4): a link's
 * priority is its relevance estimate from the anchor evidence (the best anchor seen for it).
 */
#include "crawlsim/rng.h"
#include "discover_impl.h"

#include <stdlib.h>

typedef struct baseline {
    uint64_t seed;
} baseline;

static cs_err baseline_create(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st)
{
    (void)L;
    baseline *b = NULL;
    cs_err rc = cs_calloc(ctx, &b, 1, sizeof *b, "policy");
    if (rc != CS_OK)
        return rc;
    b->seed = (uint64_t)cfg->run.seed;
    *st = b;
    return CS_OK;
}

static void baseline_destroy(void *st)
{
    free(st);
}

static void random_value(void *st, cs_frontier_view *v, int64_t first, int64_t n)
{
    const baseline *b = st;
    for (int64_t i = first; i < first + n; i++) {
        cs_rng r;
        cs_rng_init(&r, b->seed, CS_RNG_POLICY, (uint64_t)v->id[i], 0);
        v->q[i] = (float)cs_rng_uniform(&r);
    }
}

static void best_first_value(void *st, cs_frontier_view *v, int64_t first, int64_t n)
{
    (void)st;
    for (int64_t i = first; i < first + n; i++)
        v->q[i] = v->lk[i].anchor_rl;
}

static int never(void *st)
{
    (void)st;
    return 0;
}

static int always(void *st)
{
    (void)st;
    return 1;
}

static double no_epsilon(void *st)
{
    (void)st;
    return 0.0;
}

const cs_discover_ops cs_discover_random_ops = {
    .needs_relevance = 0, /* a coverage crawl's baseline */
    .reward = cs_discover_reward_han,
    .create = baseline_create,
    .destroy = baseline_destroy,
    .value = random_value,
    .stale = never,
    .static_values = always,
    .epsilon = no_epsilon,
};

const cs_discover_ops cs_discover_best_first_ops = {
    .needs_relevance = 1,
    .reward = cs_discover_reward_han,
    .create = baseline_create,
    .destroy = baseline_destroy,
    .value = best_first_value,
    .stale = never,
    .static_values = always,
    .epsilon = no_epsilon,
};
