/*
 * bandit/simple: the policies without a model of their own, as registered bandit policies
 * (registry.c):
 *  - uniform: each crawl of a slot goes to an eligible group drawn uniformly (with repetition);
 *  - thompson: Thompson sampling (DRL paper Sec. IV-A): Beta(1, 1) priors per group, success = a
 *    crawl that found a change; each crawl goes to the group with the largest posterior sample
 *    (the paper ranks the samples themselves; mu is not used), Beta draws as ratios of
 *    Marsaglia-Tsang gamma variates;
 *  - fixed (ephemeral experiment): always crawling one arm, one series per arm.
 */
#include "bandit/bandit_impl.h"

static cs_err uniform_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E,
                             int64_t n)
{
    cs_err rc = CS_OK;
    for (int64_t j = 0; j < n; j++)
        CS_TRY(ctx, bandit_pick(ctx, b, elig[cs_rng_below(g, (uint64_t)E)]));
fail:
    return rc;
}

const cs_bandit_ops cs_bandit_uniform_ops = {.freshness = 1, .stream = 0, .choose = uniform_choose};

static cs_err thompson_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E,
                              int64_t n)
{
    cs_err rc = CS_OK;
    for (int64_t j = 0; j < n; j++) {
        double best = -1.0;
        int64_t pick = elig[0];
        for (int64_t e = 0; e < E; e++) {
            const int64_t k = elig[e];
            const double x = bandit_gamma_draw(g, b->ta[k]), y = bandit_gamma_draw(g, b->tb[k]);
            const double th = x / (x + y);
            if (th > best) {
                best = th;
                pick = k;
            }
        }
        CS_TRY(ctx, bandit_pick(ctx, b, pick));
    }
fail:
    return rc;
}

const cs_bandit_ops cs_bandit_thompson_ops = {.freshness = 1,
                                              .stream = 2,
                                              .max_groups = 4096,
                                              .max_why =
                                                  "keeps the state of every group on every rank",
                                              .choose = thompson_choose};

/* Always crawling one arm: x = u every tick after the first (every arm crawled just before). */
static cs_err fixed_ephemeral(cs_ctx *ctx, const cs_ephemeral_setup *s, int64_t arm,
                              int64_t horizon, uint64_t seed, uint64_t run, double *reward)
{
    (void)ctx;
    (void)seed;
    (void)run;
    for (int64_t t = 0; t < horizon; t++)
        reward[t] = s->u[arm];
    return CS_OK;
}

const cs_bandit_ops cs_bandit_fixed_ops = {.ephemeral = fixed_ephemeral, .per_arm = 1};
