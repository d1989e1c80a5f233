/*
 * bandit/fresh: the binary-freshness restless bandit of Avrachenkov, Borkar, Patil (ICC 2021,
 * Sec. II and V) and its policies: uniform, static optimisation (Sec. IV-B), Thompson sampling
 * (Sec. IV-A) and FG-DQN (Sec. III, Algorithm 1).
 *
 * The world: K groups of N_k identical pages; a page changes in a slot with probability
 * D = 1 - exp(-rate * slot) (Poisson changes of the given rate per time unit seen once per slot;
 * with this map static optimisation reproduces the paper's [0.942, 0.055, 0.003, 0]). Ticks are
 * numbered 1..horizon; every page counts as crawled at tick 0. One group is chosen per tick (Eq.
 * 7), its round-robin pointer names the page crawled (Sec. V), and the reward is mu_k if that
 * page changed since its last crawl (Eqs. 2-3): with e slots elapsed this has probability
 * 1 - (1 - D)^e, drawn from the page's own stream (seed, CS_RNG_BANDIT, page, run) at position
 * "its c-th crawl", so the world does not depend on the policy's random draws.
 *
 * The policies are the registered group policies (registry.c; simple.c, static_opt.c,
 * fgdqn.c), one crawl per slot over all groups, their draws from (seed, CS_RNG_BANDIT,
 * CS_BANDIT_ID_FRESH_POLICY, run). Choices the paper leaves open, made here:
 *  - static optimisation: the page-level optimum of Eq. 8 with bandwidth 1 crawl per slot
 *    (pages of a group share D and mu, so each gets the same p); group k is drawn with
 *    probability N_k p_k (the draw uniform on [0, 1): scale 1), then crawled round-robin;
 *  - FG-DQN: state Z = (X_k / x_scale, Y_k) with X_k the ticks since group k was chosen (0 after
 *    a choice, Eq. 4) and Y_k whether its last crawl found a change (Eq. 5), all zero at tick 1;
 *    one training step per tick once the replay memory holds a minibatch.
 */
#include "crawlsim/bandit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Local. The static-optimisation weights N_k p_k of the groups (p_k from Eq. 8 over the pages
 * with bandwidth 1 crawl per slot) into prob. */
static cs_err fresh_static_opt(cs_ctx *ctx, const cs_fresh_setup *s, const int64_t *first,
                               const double *D, int64_t P, double *prob)
{
    double *mu_p = NULL, *D_p = NULL, *p_p = NULL;
    cs_err rc = cs_alloc(ctx, &mu_p, 3 * (size_t)P, sizeof *mu_p, "pages");
    if (rc != CS_OK)
        return rc;
    D_p = mu_p + P;
    p_p = D_p + P;
    for (int64_t k = 0; k < s->K; k++)
        for (int64_t j = 0; j < s->size[k]; j++) {
            mu_p[first[k] + j] = s->mu[k];
            D_p[first[k] + j] = D[k];
        }
    cs_ctx local;
    cs_ctx_init_local(&local, ctx->level);
    rc = cs_static_opt_solve(&local, P, mu_p, D_p, 1.0, p_p, NULL);
    if (rc != CS_OK)
        cs_fail(ctx, rc, "%s", local.errmsg);
    for (int64_t k = 0; rc == CS_OK && k < s->K; k++)
        prob[k] = p_p[first[k]] * (double)s->size[k];
    free(mu_p);
    return rc;
}

cs_err cs_fresh_run(cs_ctx *ctx, const cs_fresh_setup *s, const cs_bandit_ops *policy,
                    int64_t horizon, uint64_t seed, uint64_t run, double *reward)
{
    const int64_t K = s->K;
    if (K < 1 || K > 4096 || horizon < 0 || !(s->slot > 0.0) || policy == NULL ||
        !policy->freshness || policy->choose == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "freshness bandit: bad setup (K = %lld, policy %s)",
                       (long long)K, policy != NULL ? cs_bandit_name(policy) : "(null)");
    int64_t P = 0;
    for (int64_t k = 0; k < K; k++) {
        if (s->size[k] < 1 || !(s->rate[k] > 0.0) || !(s->mu[k] > 0.0))
            return cs_fail(ctx, CS_ERR_ARG,
                           "freshness bandit: group %lld needs size >= 1, rate > 0, mu > 0",
                           (long long)k + 1);
        P += s->size[k];
    }
    if (P > (int64_t)CS_BANDIT_ID_MIN)
        return cs_fail(ctx, CS_ERR_ARG,
                       "freshness bandit: %lld pages; at most %lld (the pages' random streams "
                       "would meet the policies' own)",
                       (long long)P, (long long)CS_BANDIT_ID_MIN);
    cs_err rc = CS_OK;
    int64_t *first = NULL, *ptr = NULL, *last = NULL, *ncrawl = NULL, *all = NULL;
    double *D = NULL, *prob = NULL;
    cs_bandit *b = NULL;
    const size_t Kz = (size_t)K;
    if ((rc = cs_alloc(ctx, &first, Kz, sizeof *first, "groups")) != CS_OK ||
        (rc = cs_calloc(ctx, &ptr, Kz, sizeof *ptr, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &all, Kz, sizeof *all, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &D, Kz, sizeof *D, "groups")) != CS_OK ||
        (rc = cs_calloc(ctx, &prob, Kz, sizeof *prob, "groups")) != CS_OK ||
        (rc = cs_calloc(ctx, &last, (size_t)P, sizeof *last, "pages")) != CS_OK ||
        (rc = cs_calloc(ctx, &ncrawl, (size_t)P, sizeof *ncrawl, "pages")) != CS_OK)
        goto fail;
    int64_t off = 0;
    for (int64_t k = 0; k < K; k++) {
        first[k] = off;
        off += s->size[k];
        all[k] = k;
        D[k] = cs_static_opt_change_prob(s->rate[k], s->slot);
    }
    cs_bandit_setup bs;
    memset(&bs, 0, sizeof bs);
    bs.K = K;
    bs.seed = seed;
    bs.run = run;
    bs.fgdqn = s->fgdqn;
    cs_lspe_config_default(&bs.lspe);
    if ((rc = cs_bandit_create(ctx, policy, &bs, &b)) != CS_OK)
        goto fail;
    if (policy->input == CS_BANDIT_IN_STATIC_OPT &&
        ((rc = fresh_static_opt(ctx, s, first, D, P, prob)) != CS_OK ||
         (rc = cs_bandit_sync(ctx, b, prob, 0.0, 1.0)) != CS_OK))
        goto fail;

    cs_rng pol;
    cs_rng_init(&pol, seed, CS_RNG_BANDIT, CS_BANDIT_ID_FRESH_POLICY, run);
    for (int64_t t = 1; t <= horizon; t++) {
        int64_t nc = 0;
        if ((rc = cs_bandit_choose(ctx, b, &pol, all, K, 1)) != CS_OK)
            goto fail;
        const int64_t *ch = cs_bandit_chosen(b, &nc);
        if (nc != 1) {
            rc = cs_fail(ctx, CS_ERR_ARG, "freshness bandit: %s chose no group",
                         cs_bandit_name(policy));
            goto fail;
        }
        const int64_t a = ch[0];
        /* crawl the group's round-robin page */
        const int64_t pg = first[a] + ptr[a];
        ptr[a] = ptr[a] + 1 == s->size[a] ? 0 : ptr[a] + 1;
        const double e = (double)(t - last[pg]);
        cs_rng w;
        cs_rng_init(&w, seed, CS_RNG_BANDIT, (uint64_t)pg, run);
        cs_rng_seek(&w, (uint64_t)ncrawl[pg]);
        const int changed = cs_rng_uniform(&w) < -expm1(e * log1p(-D[a]));
        last[pg] = t;
        ncrawl[pg]++;
        const double r = changed ? s->mu[a] : 0.0;
        reward[t - 1] = r;
        cs_bandit_outcome(b, a, 1, changed, r);
        cs_bandit_end_slot(b);
    }
fail:
    cs_bandit_destroy(&b);
    free(ncrawl);
    free(last);
    free(prob);
    free(D);
    free(all);
    free(ptr);
    free(first);
    return rc;
}
