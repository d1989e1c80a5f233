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
 * Choices the paper leaves open, made here:
 *  - uniform: a group uniformly at random each tick;
 *  - static optimisation: the page-level optimum of Eq. 8 with bandwidth 1 crawl per slot
 *    (pages of a group share D and mu, so each gets the same p); group k is drawn with
 *    probability N_k p_k, then crawled round-robin;
 *  - Thompson sampling: Beta(1, 1) priors per group, success = the crawled page had changed;
 *    the group with the largest posterior sample is crawled (the paper ranks the samples
 *    themselves; mu is not used), Beta draws as ratios of Marsaglia-Tsang gamma variates;
 *  - FG-DQN: state Z = (X_k / x_scale, Y_k) with X_k the ticks since group k was chosen (0 after
 *    a choice, Eq. 4) and Y_k whether its last crawl found a change (Eq. 5), all zero at tick 1;
 *    epsilon decays linearly from eps_start to eps_end over eps_steps ticks; one training step
 *    per tick once the replay memory holds a minibatch.
 */
#include "crawlsim/bandit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fresh_names[CS_FRESH_POLICY_COUNT_] = {"uniform", "static-opt", "thompson",
                                                                "fgdqn"};

const char *cs_fresh_policy_name(cs_fresh_policy p)
{
    return (int)p >= 0 && p < CS_FRESH_POLICY_COUNT_ ? fresh_names[p] : "unknown";
}

cs_err cs_fresh_policy_parse(const char *name, cs_fresh_policy *out)
{
    for (int p = 0; p < CS_FRESH_POLICY_COUNT_; p++)
        if (strcmp(name, fresh_names[p]) == 0) {
            *out = (cs_fresh_policy)p;
            return CS_OK;
        }
    return CS_ERR_ARG;
}

/* Gamma(shape >= 1, 1) by Marsaglia & Tsang (ACM TOMS 26(3), 2000). */
static double gamma_draw(cs_rng *r, double shape)
{
    const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = cs_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = cs_rng_uniform_pos(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

static double beta_draw(cs_rng *r, double a, double b)
{
    const double x = gamma_draw(r, a), y = gamma_draw(r, b);
    return x / (x + y);
}

cs_err cs_fresh_run(cs_ctx *ctx, const cs_fresh_setup *s, cs_fresh_policy policy, int64_t horizon,
                    uint64_t seed, uint64_t run, double *reward)
{
    const int64_t K = s->K;
    if (K < 1 || K > 4096 || horizon < 0 || !(s->slot > 0.0) || (int)policy < 0 ||
        policy >= CS_FRESH_POLICY_COUNT_)
        return cs_fail(ctx, CS_ERR_ARG, "freshness bandit: bad setup (K = %lld)", (long long)K);
    int64_t P = 0;
    for (int64_t k = 0; k < K; k++) {
        if (s->size[k] < 1 || !(s->rate[k] > 0.0) || !(s->mu[k] > 0.0))
            return cs_fail(ctx, CS_ERR_ARG,
                           "freshness bandit: group %lld needs size >= 1, rate > 0, mu > 0",
                           (long long)k + 1);
        P += s->size[k];
    }
    cs_err rc = CS_OK;
    int64_t *first = NULL, *ptr = NULL, *last = NULL, *ncrawl = NULL, *X = NULL;
    double *D = NULL, *prob = NULL, *ta = NULL, *tb = NULL, *pp = NULL;
    float *z = NULL, *z1 = NULL, *q = NULL;
    uint8_t *Y = NULL;
    cs_fgdqn *net = NULL;
    const size_t Kz = (size_t)K;
    if ((rc = cs_alloc(ctx, &first, Kz, sizeof *first, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &ptr, Kz, sizeof *ptr, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &X, Kz, sizeof *X, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &Y, Kz, sizeof *Y, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &D, Kz, sizeof *D, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &prob, Kz, sizeof *prob, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &ta, Kz, sizeof *ta, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &tb, Kz, sizeof *tb, "groups")) != CS_OK ||
        (rc = cs_alloc(ctx, &z, 2 * Kz, sizeof *z, "state")) != CS_OK ||
        (rc = cs_alloc(ctx, &z1, 2 * Kz, sizeof *z1, "state")) != CS_OK ||
        (rc = cs_alloc(ctx, &q, Kz, sizeof *q, "values")) != CS_OK ||
        (rc = cs_alloc(ctx, &last, (size_t)P, sizeof *last, "pages")) != CS_OK ||
        (rc = cs_alloc(ctx, &ncrawl, (size_t)P, sizeof *ncrawl, "pages")) != CS_OK ||
        (rc = cs_alloc(ctx, &pp, (size_t)P, sizeof *pp, "pages")) != CS_OK)
        goto fail;
    memset(last, 0, (size_t)P * sizeof *last);
    memset(ncrawl, 0, (size_t)P * sizeof *ncrawl);
    int64_t off = 0;
    for (int64_t k = 0; k < K; k++) {
        first[k] = off;
        off += s->size[k];
        ptr[k] = 0;
        X[k] = 0;
        Y[k] = 0;
        D[k] = cs_static_opt_change_prob(s->rate[k], s->slot);
        ta[k] = tb[k] = 1.0;
    }
    if (policy == CS_FRESH_STATIC_OPT) {
        double *mu_p = pp, *D_p = NULL;
        if ((rc = cs_alloc(ctx, &D_p, (size_t)P, sizeof *D_p, "pages")) != CS_OK)
            goto fail;
        double *p_p = NULL;
        if ((rc = cs_alloc(ctx, &p_p, (size_t)P, sizeof *p_p, "pages")) != CS_OK) {
            free(D_p);
            goto fail;
        }
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < s->size[k]; j++) {
                mu_p[first[k] + j] = s->mu[k];
                D_p[first[k] + j] = D[k];
            }
        cs_ctx local;
        cs_ctx_init_local(&local, ctx->level);
        rc = cs_static_opt_solve(&local, P, mu_p, D_p, 1.0, p_p, NULL);
        if (rc != CS_OK)
            cs_fail(ctx, rc, "%s", local.errmsg);
        for (int64_t k = 0; rc == CS_OK && k < K; k++)
            prob[k] = p_p[first[k]] * (double)s->size[k];
        free(p_p);
        free(D_p);
        if (rc != CS_OK)
            goto fail;
    }
    if (policy == CS_FRESH_FGDQN &&
        (rc = cs_fgdqn_create(ctx, &s->fgdqn, K, seed, run, &net)) != CS_OK)
        goto fail;

    cs_rng pol;
    cs_rng_init(&pol, seed, CS_RNG_BANDIT, 0x9011c7, run);
    const cs_fgdqn_config *fc = &s->fgdqn;
    for (int64_t t = 1; t <= horizon; t++) {
        int64_t a = 0;
        switch (policy) {
        case CS_FRESH_UNIFORM:
            a = (int64_t)cs_rng_below(&pol, (uint64_t)K);
            break;
        case CS_FRESH_STATIC_OPT: {
            double v = cs_rng_uniform(&pol), acc = 0.0;
            a = -1;
            for (int64_t k = 0; k < K; k++) {
                acc += prob[k];
                if (prob[k] > 0.0) {
                    a = k;
                    if (v < acc)
                        break;
                }
            }
            break;
        }
        case CS_FRESH_THOMPSON: {
            double best = -1.0;
            for (int64_t k = 0; k < K; k++) {
                const double th = beta_draw(&pol, ta[k], tb[k]);
                if (th > best) {
                    best = th;
                    a = k;
                }
            }
            break;
        }
        case CS_FRESH_FGDQN: {
            const double frac = fc->eps_steps > 0 ? (double)(t - 1) / (double)fc->eps_steps : 1.0;
            const double eps =
                frac >= 1.0 ? fc->eps_end : fc->eps_start + (fc->eps_end - fc->eps_start) * frac;
            for (int64_t k = 0; k < K; k++) {
                z[k] = (float)((double)X[k] / fc->x_scale);
                z[K + k] = (float)Y[k];
            }
            if (cs_rng_uniform(&pol) < eps) {
                a = (int64_t)cs_rng_below(&pol, (uint64_t)K);
            } else {
                cs_fgdqn_q(net, z, q);
                a = 0;
                for (int64_t k = 1; k < K; k++)
                    if (q[k] > q[a])
                        a = k;
            }
            break;
        }
        default:
            break;
        }
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
        if (policy == CS_FRESH_THOMPSON) {
            if (changed)
                ta[a] += 1.0;
            else
                tb[a] += 1.0;
        }
        for (int64_t k = 0; k < K; k++)
            X[k] = k == a ? 0 : X[k] + 1;
        Y[a] = (uint8_t)changed;
        if (policy == CS_FRESH_FGDQN) {
            for (int64_t k = 0; k < K; k++) {
                z1[k] = (float)((double)X[k] / fc->x_scale);
                z1[K + k] = (float)Y[k];
            }
            cs_fgdqn_push(net, z, a, (float)r, z1);
            cs_fgdqn_train(net);
        }
    }
fail:
    cs_fgdqn_destroy(&net);
    free(pp);
    free(ncrawl);
    free(last);
    free(q);
    free(z1);
    free(z);
    free(tb);
    free(ta);
    free(prob);
    free(D);
    free(Y);
    free(X);
    free(ptr);
    free(first);
    return rc;
}
