/*
 * check_recrawl: unit tests of the re-crawl policies and the refresh-only experiment
 * (recrawl.h), serial (local context), forked. The fidelity claims of issue 6 against the
 * LambdaCrawl paper (Kolobov et al. 2019):
 *   - Poisson crawling with known rates: empirical J_h and J_b (time averages of the exact
 *     staleness integrals) agree with the closed forms (Prop. 1, Prop. 4, mu delta/(delta + rho),
 *     mu (1 - p)) within 3 standard errors over 8 seeds, for every Poisson policy;
 *   - LambdaCrawl's J_h below every baseline's on the same pages (adaptive at no less bandwidth);
 *   - binary-lambdacrawl starves pages: J_h closed form infinite and the empirical one growing;
 *   - mu / delta constant: LC, LCA and change-rate coincide (Prop. 9);
 *   - complete observations used (LC-ComplObs) vs ignored (LC-IncomplObs, BLC): Fig. 2;
 *   - LambdaLearnAndCrawl and its LCA and binary flavours over 21 daily epochs: Fig. 3;
 * and the Eq. 10 / Eq. 11 estimators, the registry and argument errors.
 */
#include "crawlsim/bandit.h"
#include "crawlsim/core.h"
#include "crawlsim/recrawl.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

typedef struct world {
    int64_t n;
    int64_t *id;
    double *mu, *delta;
    uint8_t *c;
    cs_cache_pages pg;
} world;

/* n pages: delta log-normal(lm, ls), mu Pareto(1, 2.5) (or mu = 2 delta when ratio), a fraction
 * fc with complete observations. */
static world make(int64_t n, double fc, double lm, double ls, uint64_t seed, int ratio)
{
    world w;
    w.n = n;
    w.id = malloc((size_t)n * sizeof *w.id);
    w.mu = malloc((size_t)n * sizeof *w.mu);
    w.delta = malloc((size_t)n * sizeof *w.delta);
    w.c = malloc((size_t)n);
    ck_assert(w.id && w.mu && w.delta && w.c);
    for (int64_t i = 0; i < n; i++) {
        cs_rng r;
        cs_rng_init(&r, seed, CS_RNG_TEST, (uint64_t)i, 1);
        w.id[i] = i;
        w.delta[i] = cs_rng_lognormal(&r, lm, ls);
        const double m = cs_rng_pareto(&r, 1.0, 2.5);
        w.mu[i] = ratio ? 2.0 * w.delta[i] : m;
        w.c[i] = (uint8_t)cs_rng_bernoulli(&r, fc);
    }
    w.pg = (cs_cache_pages){n, w.id, w.mu, w.delta, w.c};
    return w;
}

static void drop(world *w)
{
    free(w->id);
    free(w->mu);
    free(w->delta);
    free(w->c);
}

/* A cache holding every page of w, each joined at time 0. */
static cs_cache *cache_all(const world *w)
{
    cs_cache *cache = NULL;
    ck_assert(cs_cache_create(&ctx, &w->pg, NULL, &cache) == CS_OK);
    for (int64_t i = 0; i < w->n; i++)
        ck_assert(cs_cache_add(cache, i, 0.0) == CS_OK);
    return cache;
}

static cs_recrawl_config config(const char *policy, double R, uint64_t seed)
{
    cs_recrawl_config c;
    cs_recrawl_config_default(&c);
    c.policy = policy;
    c.bandwidth = R;
    c.seed = seed;
    return c;
}

static void run(const cs_recrawl_config *c, const world *w, uint64_t world_seed, double T, int ne,
                int warm, cs_recrawl_epoch *ep, cs_recrawl_epoch *tot)
{
    cs_err rc = cs_recrawl_experiment(&ctx, c, &w->pg, world_seed, T, ne, 4, warm, ep, tot);
    ck_assert_msg(rc == CS_OK, "%s: %s", c->policy, ctx.errmsg);
}

/* ---- estimators, registry, errors ------------------------------------------------------------ */

START_TEST(test_estimators)
{
    /* Eq. 10 root: the equation holds at the estimate */
    const double a[6] = {0.5, 1.0, 2.0, 0.25, 3.0, 1.5};
    const uint8_t z[6] = {1, 0, 1, 0, 1, 1};
    const double d = cs_recrawl_mle_incomplete(a, z, 6);
    double lhs = 0.5 / expm1(0.5 * d), rhs = 0.5;
    for (int j = 0; j < 6; j++) {
        if (z[j])
            lhs += a[j] / expm1(a[j] * d);
        else
            rhs += a[j];
    }
    ck_assert_msg(fabs(lhs - rhs) < 1e-9 * rhs, "Eq. 10 residual %g", lhs - rhs);
    /* no data: the smoothing alone, 0.5/(e^{0.5 d} - 1) = 0.5, d = 2 ln 2 (the authors' value) */
    ck_assert(fabs(cs_recrawl_mle_incomplete(NULL, NULL, 0) - 2.0 * log(2.0)) < 1e-12);
    /* intervals of 10^4 days (the authors' exp(a d) overflows beyond ~100 days at d = 7) */
    const double big[3] = {1e4, 2e4, 5e3};
    const uint8_t zz[3] = {1, 1, 0};
    const double db = cs_recrawl_mle_incomplete(big, zz, 3);
    ck_assert(isfinite(db) && db > 0.0 && db < 1e-2);
    /* every crawl saw a change, short intervals: large but finite, above the authors' range */
    const double sh[4] = {0.01, 0.01, 0.01, 0.01};
    const uint8_t z1[4] = {1, 1, 1, 1};
    const double ds = cs_recrawl_mle_incomplete(sh, z1, 4);
    ck_assert(isfinite(ds) && ds > 7.0);
    /* consistency: Poisson(1.3) changes observed at Exp(0.5)-spaced crawls */
    enum { M = 20000 };
    static double aa[M];
    static uint8_t za[M];
    cs_rng r;
    cs_rng_init(&r, 4, CS_RNG_TEST, 0, 0);
    for (int j = 0; j < M; j++) {
        aa[j] = cs_rng_exponential(&r, 0.5);
        za[j] = (uint8_t)(cs_rng_uniform(&r) < -expm1(-1.3 * aa[j]));
    }
    const double dc = cs_recrawl_mle_incomplete(aa, za, M);
    ck_assert_msg(fabs(dc - 1.3) < 0.05, "Eq. 10 on 20000 observations: %g", dc);
    /* Eq. 11 */
    ck_assert(cs_recrawl_mle_complete(9, 4.5) == 9.5 / 5.0);
    ck_assert(cs_recrawl_mle_complete(0, 0.0) == 1.0);
}
END_TEST

START_TEST(test_registry_errors)
{
    world w = make(50, 0.2, 0.0, 0.5, 1, 0);
    int n = 0;
    while (cs_recrawl_name(n) != NULL)
        n++;
    ck_assert_int_eq(n, 17);
    int slot = 0;
    for (int j = 0; j < n; j++) {
        const char *name = cs_recrawl_name(j);
        cs_recrawl_config c = config(name, 10.0, 1);
        if (cs_recrawl_is_slot(name)) {
            /* the bandit policies run inside crawlsim run (cli.test_refresh_bandit) */
            slot++;
            cs_ctx_clear_error(&ctx);
            ck_assert(cs_recrawl_experiment(&ctx, &c, &w.pg, 1, 10.0, 2, 4, 0, NULL, NULL) ==
                      CS_ERR_ARG);
            ck_assert(strstr(ctx.errmsg, "slot (bandit) policy") != NULL);
            cs_ctx_clear_error(&ctx);
            continue;
        }
        cs_recrawl_epoch t;
        run(&c, &w, 1, 10.0, 2, 0, NULL, &t);
        ck_assert_msg(t.crawls > 0, "%s crawled nothing", name);
    }
    ck_assert_int_eq(slot, 6);
    /* every bandit-* name is a group policy of the bandit registry (registry_bandit.def gives
     * a re-crawl name only to policies with choose: recrawl_bandit.c runs no other) */
    for (int j = 0; j < n; j++)
        if (strncmp(cs_recrawl_name(j), "bandit-", 7) == 0) {
            const cs_bandit_ops *o = cs_bandit_find_recrawl(cs_recrawl_name(j));
            ck_assert_msg(o != NULL && o->choose != NULL, "%s is not a group policy",
                          cs_recrawl_name(j));
        }
    cs_cache *cache = NULL;
    ck_assert(cs_cache_create(&ctx, &w.pg, NULL, &cache) == CS_OK);
    cs_recrawl *r = NULL;
    cs_recrawl_config c = config("no-such-policy", 10.0, 1);
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_ERR_ARG && r == NULL);
    ck_assert(strstr(ctx.errmsg, "no-such-policy") != NULL);
    c = config("uniform", 0.0, 1);
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_ERR_ARG);
    c = config("adaptive", 10.0, 1);
    c.adapt_shrink = 1.5;
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_ERR_ARG);
    c = config("lambda-learn", 10.0, 1);
    c.learn_guess = 0.0;
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_ERR_ARG);
    /* a step before the first sync */
    c = config("uniform", 10.0, 1);
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_OK);
    const cs_recrawl_crawl *cr;
    int64_t ncr;
    ck_assert(cs_recrawl_step(r, 1.0, &cr, &ncr) == CS_ERR_ARG);
    cs_recrawl_destroy(&r);
    cs_recrawl_destroy(&r);
    cs_cache_destroy(&cache);
    ck_assert(cs_recrawl_experiment(&ctx, &c, &w.pg, 1, 1.0, 2, 4, 2, NULL, NULL) == CS_ERR_ARG);
    drop(&w);
}
END_TEST

/* ---- empirical costs against the closed forms ------------------------------------------------ */

START_TEST(test_closed_forms_3se)
{
    /* 2000 pages, 10 % complete, R = 400 (20 %). Each policy over 8 seeds (policy and world
     * streams): the mean empirical cost over the measured window against the closed form of the
     * known rates, |mean - closed| <= 3 SE (SE from the spread over seeds). The run starts fresh,
     * so the window starts after 8 / rho_min (the slowest page's age has then forgotten the start
     * to e^-8) and lasts at least 25 / rho_min (shorter windows leave the slowest pages' time
     * averages skewed, and the sample mean of few seeds then sits below the expectation more
     * often than the SE says). 16 seeds: with the SE estimated from 15 degrees of freedom,
     * |t| > 3 has probability 0.9 % per check. */
    world w = make(2000, 0.1, 0.0, 0.7, 3, 0);
    const char *pols[] = {"lambdacrawl", "lambdacrawl-incomplete",
                          "lca",         "binary-lambdacrawl-floor",
                          "uniform",     "change-rate"};
    const double R = 400.0, T = 50.0;
    for (int p = 0; p < 6; p++) {
        /* the slowest rate: one epoch to read it */
        cs_recrawl_config c = config(pols[p], R, 1);
        cs_cache *cache = cache_all(&w);
        cs_recrawl *r = NULL;
        ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_OK);
        ck_assert(cs_recrawl_sync(&ctx, r, 0.0) == CS_OK);
        double rmin = INFINITY;
        for (int64_t i = 0; i < w.n; i++)
            if (cs_recrawl_probs(r)[i] < 0.0)
                rmin = fmin(rmin, cs_recrawl_rates(r)[i]);
        cs_recrawl_destroy(&r);
        cs_cache_destroy(&cache);
        const int warm = (int)ceil(8.0 / rmin / T);
        const int meas = (int)fmax(6.0, ceil(25.0 / rmin / T));
        const int S = 16;
        double sh = 0, sh2 = 0, sb = 0, sb2 = 0, ch = 0, cb = 0, bw = 0;
        for (int s = 0; s < S; s++) {
            cs_recrawl_epoch t;
            c = config(pols[p], R, 100 + (uint64_t)s);
            run(&c, &w, 200 + (uint64_t)s, T, warm + meas, warm, NULL, &t);
            sh += t.jh;
            sh2 += t.jh * t.jh;
            sb += t.jb;
            sb2 += t.jb * t.jb;
            ch = t.jh_closed;
            cb = t.jb_closed;
            bw += t.bandwidth / S;
        }
        const double mh = sh / S, mb = sb / S;
        const double seh = sqrt((sh2 / S - mh * mh) / (S - 1)),
                     seb = sqrt((sb2 / S - mb * mb) / (S - 1));
        printf("closed forms: %-26s warm %2d meas %2d J_h %.1f (se %.1f) closed %.1f | J_b %.1f "
               "(se %.1f) "
               "closed %.1f | bandwidth %.1f\n",
               pols[p], warm, meas, mh, seh, ch, mb, seb, cb, bw);
        ck_assert_msg(fabs(mh - ch) <= 3.0 * seh, "%s: J_h %g vs closed %g (se %g)", pols[p], mh,
                      ch, seh);
        ck_assert_msg(fabs(mb - cb) <= 3.0 * seb, "%s: J_b %g vs closed %g (se %g)", pols[p], mb,
                      cb, seb);
        /* the standard error is small enough for the check to mean something: 1 % of J */
        ck_assert(seh < 0.01 * ch && seb < 0.01 * cb);
        /* realised bandwidth: R within 1 % (Poisson counts: sd of the mean ~0.2 %) */
        ck_assert_msg(fabs(bw - R) < 0.01 * R, "%s: bandwidth %g", pols[p], bw);
    }
    drop(&w);
}
END_TEST

START_TEST(test_lc_beats_baselines)
{
    world w = make(2000, 0.1, 0.0, 0.7, 3, 0);
    const double R = 400.0, T = 50.0;
    cs_recrawl_epoch lc;
    cs_recrawl_config c = config("lambdacrawl", R, 1);
    run(&c, &w, 9, T, 12, 4, NULL, &lc);
    const char *pols[] = {"lambdacrawl-incomplete",   "lca",     "binary-lambdacrawl",
                          "binary-lambdacrawl-floor", "uniform", "change-rate"};
    for (int p = 0; p < 6; p++) {
        cs_recrawl_epoch t;
        c = config(pols[p], R, 1);
        run(&c, &w, 9, T, 12, 4, NULL, &t);
        printf("LC J_h %.1f (closed %.1f) vs %-26s %.1f (closed %.1f)\n", lc.jh, lc.jh_closed,
               pols[p], t.jh, t.jh_closed);
        ck_assert(lc.jh_closed < t.jh_closed);
        /* empirical: the gaps are >= 2 % while one run's noise is ~0.2 % (the 3-SE test) */
        ck_assert(lc.jh < t.jh);
    }
    /* adaptive has no bandwidth control: pages that change between crawls shrink their interval
     * to the lower bound, which sets the bandwidth. Bisect that bound (log scale) until it uses
     * between R and 1.1 R, so LC is compared at no more bandwidth. */
    double lo = log(1e-3), hi = log(1e3);
    cs_recrawl_epoch ad;
    memset(&ad, 0, sizeof ad);
    for (int it = 0; it < 30; it++) {
        const double m = 0.5 * (lo + hi);
        c = config("adaptive", R, 1);
        c.adapt_init = (double)w.n / R;
        c.adapt_min = c.adapt_init * exp(m);
        c.adapt_max = c.adapt_init * 64.0;
        if (c.adapt_min > c.adapt_max)
            c.adapt_max = c.adapt_min;
        run(&c, &w, 9, T, 12, 4, NULL, &ad);
        if (ad.bandwidth >= R && ad.bandwidth < 1.1 * R)
            break;
        if (ad.bandwidth > R)
            lo = m;
        else
            hi = m;
    }
    printf("LC J_h %.1f vs adaptive %.1f at bandwidth %.1f\n", lc.jh, ad.jh, ad.bandwidth);
    ck_assert(ad.bandwidth >= R && ad.bandwidth < 1.1 * R && isnan(ad.jh_closed));
    ck_assert(lc.jh < ad.jh);
    drop(&w);
}
END_TEST

START_TEST(test_blc_starves)
{
    world w = make(2000, 0.0, 0.0, 0.7, 3, 0);
    cs_recrawl_epoch ep[12], t;
    cs_recrawl_config c = config("binary-lambdacrawl", 400.0, 1);
    run(&c, &w, 9, 50.0, 12, 2, ep, &t);
    ck_assert(isinf(t.jh_closed) && isfinite(t.jb_closed));
    /* the starved pages' H(N) grows like ln(delta t): every epoch costs more than the one two
     * before (the increase ~ sum of starved mu x ln((e+1)/(e-1)) dwarfs the noise) */
    for (int e = 4; e < 12; e++)
        ck_assert_msg(ep[e].jh > ep[e - 2].jh, "epoch %d: %g after %g", e, ep[e].jh, ep[e - 2].jh);
    /* with the floor nothing starves */
    c = config("binary-lambdacrawl-floor", 400.0, 1);
    run(&c, &w, 9, 50.0, 2, 0, NULL, &t);
    ck_assert(isfinite(t.jh_closed));
    drop(&w);
}
END_TEST

START_TEST(test_prop9)
{
    /* mu / delta constant: LC, LCA and change-rate give the same rates (Prop. 9) */
    world w = make(2000, 0.0, 0.0, 0.7, 3, 1);
    cs_recrawl_epoch a, b, cc;
    cs_recrawl_config c = config("lambdacrawl", 400.0, 1);
    run(&c, &w, 9, 20.0, 5, 1, NULL, &a);
    c.policy = "lca";
    run(&c, &w, 9, 20.0, 5, 1, NULL, &b);
    c.policy = "change-rate";
    run(&c, &w, 9, 20.0, 5, 1, NULL, &cc);
    ck_assert(fabs(a.jh_closed - b.jh_closed) < 1e-9 * a.jh_closed);
    ck_assert(fabs(a.jh_closed - cc.jh_closed) < 1e-9 * a.jh_closed);
    /* the same rates to ~1e-15: the same crawls, so the empirical costs agree too */
    ck_assert(fabs(a.jh - b.jh) < 1e-6 * a.jh && fabs(a.jh - cc.jh) < 1e-6 * a.jh);
    ck_assert(a.crawls == b.crawls && a.crawls == cc.crawls);
    drop(&w);
}
END_TEST

START_TEST(test_fig2_complete_observations)
{
    /* Fig. 2: only complete-observation pages (delta log-normal(-1, 1.5), R = 20 % of pages).
     * LambdaCrawl crawls on notifications (LC-ComplObs); LC-IncomplObs and BLC ignore them. The
     * paper reports costs at least 50 % lower for LC-CO; measured here: J_h 0.55x of LC-IO's,
     * J_b 0.52x of BLC's. Asserted: below 0.65x (closed forms and empirical). */
    world w = make(5000, 1.0, -1.0, 1.5, 5, 0);
    const double R = 0.2 * (double)w.n;
    cs_recrawl_epoch co, io, blc;
    cs_recrawl_config c = config("lambdacrawl", R, 1);
    run(&c, &w, 3, 20.0, 6, 2, NULL, &co);
    c.policy = "lambdacrawl-incomplete";
    run(&c, &w, 3, 20.0, 6, 2, NULL, &io);
    c.policy = "binary-lambdacrawl";
    run(&c, &w, 3, 20.0, 6, 2, NULL, &blc);
    printf("Fig. 2: LC-CO J_h %.1f (closed %.1f) J_b %.1f (closed %.1f); LC-IO J_h %.1f (closed "
           "%.1f) J_b %.1f; BLC J_b %.1f (closed %.1f); ratios J_h %.3f, J_b vs BLC %.3f\n",
           co.jh, co.jh_closed, co.jb, co.jb_closed, io.jh, io.jh_closed, io.jb, blc.jb,
           blc.jb_closed, co.jh_closed / io.jh_closed, co.jb_closed / blc.jb_closed);
    ck_assert(co.jh_closed < 0.65 * io.jh_closed && co.jh < 0.65 * io.jh);
    ck_assert(co.jb_closed < 0.65 * blc.jb_closed && co.jb < 0.65 * blc.jb);
    ck_assert(co.jb_closed < 0.65 * io.jb_closed);
    drop(&w);
}
END_TEST

START_TEST(test_fig3_learning)
{
    /* Fig. 3: 20000 pages (4 % complete, delta log-normal(-1, 1.5) per day), R = 20 % of pages
     * per day, 21 daily epochs from estimates of 1 change/day. Each epoch's schedule is judged by
     * the closed forms under the true rates, as in the paper. Normalised gap g(n) = (J(n) - J*) /
     * (J(1) - J*), J* the flavour's known-rate cost in its own objective (J_h for LLC and LLCA,
     * J_b for BLLC). Measured (one run): LLC g(21) = 0.23, final J_h 1.7 % above LC; LLCA g(5)
     * = 0.14, g(21) = 0.03, final J_h 9 % above LLC's; BLLC g(21) = 0.75 (J_b), its estimates'
     * mean |ln error| 1.22 against LLC's 0.85. Bounds are set between these figures and what
     * would contradict the paper. */
    world w = make(20000, 0.04, -1.0, 1.5, 9, 0);
    const double R = 0.2 * (double)w.n;
    cs_recrawl_epoch llc[21], llca[21], bllc[21], t;
    cs_recrawl_config c = config("lambda-learn", R, 1);
    run(&c, &w, 4, 1.0, 21, 0, llc, &t);
    c.policy = "lambda-learn-lca";
    run(&c, &w, 4, 1.0, 21, 0, llca, &t);
    c.policy = "lambda-learn-binary";
    run(&c, &w, 4, 1.0, 21, 0, bllc, &t);
    cs_recrawl_epoch lc, lca, blcf;
    c.policy = "lambdacrawl";
    run(&c, &w, 4, 1.0, 1, 0, NULL, &lc);
    c.policy = "lca";
    run(&c, &w, 4, 1.0, 1, 0, NULL, &lca);
    c.policy = "binary-lambdacrawl-floor";
    run(&c, &w, 4, 1.0, 1, 0, NULL, &blcf);
    const double g_llc = (llc[20].jh_closed - lc.jh_closed) / (llc[0].jh_closed - lc.jh_closed);
    const double g_llc5 = (llc[4].jh_closed - lc.jh_closed) / (llc[0].jh_closed - lc.jh_closed);
    const double g_llca5 =
        (llca[4].jh_closed - lca.jh_closed) / (llca[0].jh_closed - lca.jh_closed);
    const double g_llca =
        (llca[20].jh_closed - lca.jh_closed) / (llca[0].jh_closed - lca.jh_closed);
    const double g_bllc =
        (bllc[20].jb_closed - blcf.jb_closed) / (bllc[0].jb_closed - blcf.jb_closed);
    printf("Fig. 3: J_h LC %.0f LCA %.0f BLC-floor %.0f (J_b %.0f)\n", lc.jh_closed, lca.jh_closed,
           blcf.jh_closed, blcf.jb_closed);
    for (int e = 0; e < 21; e += 4)
        printf("  epoch %2d: LLC J_h %.0f err %.2f | LLCA J_h %.0f err %.2f | BLLC J_h %.0f J_b "
               "%.0f err %.2f\n",
               e + 1, llc[e].jh_closed, llc[e].delta_err, llca[e].jh_closed, llca[e].delta_err,
               bllc[e].jh_closed, bllc[e].jb_closed, bllc[e].delta_err);
    printf("  gaps: LLC g5 %.3f g21 %.3f | LLCA g5 %.3f g21 %.3f | BLLC g21 (J_b) %.3f\n", g_llc5,
           g_llc, g_llca5, g_llca, g_bllc);
    /* LLC approaches LC: most of the gap closed, within 4 % of the optimum */
    ck_assert(g_llc < 0.4 && llc[20].jh_closed < 1.04 * lc.jh_closed);
    for (int e = 1; e < 21; e++) /* and it improves every epoch but for noise */
        ck_assert(llc[e].jh_closed < llc[e - 1].jh_closed * 1.002);
    /* LLCA converges faster, to a worse cost */
    ck_assert(g_llca5 < 0.5 * g_llc5 && g_llca < 0.1);
    ck_assert(llca[20].jh_closed > 1.04 * llc[20].jh_closed);
    /* BLLC is slower: less of its gap closed, worse estimates */
    ck_assert(g_bllc > g_llc + 0.2);
    ck_assert(bllc[20].delta_err > llc[20].delta_err + 0.1);
    /* learning happens: the estimates improve */
    ck_assert(llc[20].delta_err < 0.7 * llc[0].delta_err);
    drop(&w);
}
END_TEST

START_TEST(test_delta_error)
{
    /* cs_recrawl_delta_error against the plain mean of |ln(estimate / delta)| over the slots
     * (joined in page order here), after a few epochs of lambda-learn; NaN without learners */
    world w = make(3000, 0.04, -1.0, 1.5, 11, 0);
    cs_recrawl_config c = config("lambda-learn", 0.2 * (double)w.n, 2);
    cs_cache *cache = cache_all(&w);
    cs_recrawl *r = NULL;
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_OK);
    for (int e = 0; e < 4; e++) {
        ck_assert(cs_recrawl_sync(&ctx, r, (double)e) == CS_OK);
        const cs_recrawl_crawl *cr = NULL;
        int64_t ncr = 0;
        ck_assert(cs_recrawl_step(r, e + 1.0, &cr, &ncr) == CS_OK);
    }
    ck_assert(cs_recrawl_sync(&ctx, r, 4.0) == CS_OK);
    const double *est = cs_recrawl_estimates(r);
    ck_assert(est != NULL);
    double sum = 0.0, err = 0.0;
    int moved = 0;
    for (int64_t i = 0; i < w.n; i++) {
        sum += fabs(log(est[i] / w.delta[i]));
        moved += est[i] != 1.0; /* the estimates left their start */
    }
    ck_assert(moved > w.n / 2);
    ck_assert(cs_recrawl_delta_error(&ctx, r, &err) == CS_OK);
    ck_assert_msg(fabs(err - sum / (double)w.n) <= 1e-12 * err, "error %.17g, mean %.17g", err,
                  sum / (double)w.n);
    cs_recrawl_destroy(&r);
    c.policy = "lambdacrawl";
    ck_assert(cs_recrawl_create(&ctx, &c, &w.pg, cache, &r) == CS_OK);
    ck_assert(cs_recrawl_delta_error(&ctx, r, &err) == CS_OK && isnan(err));
    cs_recrawl_destroy(&r);
    cs_cache_destroy(&cache);
    drop(&w);
}
END_TEST

/* The results of a refresh-only experiment do not depend on the thread count: 60000 cached
 * pages, so the re-solves' passes and the clocks' restart run on the threads (over 4096 pages);
 * every epoch's costs, bandwidth and crawls the same bits at 1, 2 and 3 threads, for a policy
 * of known rates and a learner. */
START_TEST(test_threads_identical)
{
    world w = make(60000, 0.1, 0.0, 0.7, 9, 0);
    const char *pols[] = {"lambdacrawl", "lambda-learn"};
    for (int p = 0; p < 2; p++) {
        cs_recrawl_epoch ep[3][4];
        for (int k = 0; k < 3; k++) {
            omp_set_num_threads(k + 1);
            cs_recrawl_config c = config(pols[p], 12000.0, 5);
            cs_recrawl_epoch tot;
            run(&c, &w, 6, 0.5, 4, 1, ep[k], &tot);
        }
        omp_set_num_threads(1);
        for (int k = 1; k < 3; k++)
            for (int e = 0; e < 4; e++) {
                const cs_recrawl_epoch *a = &ep[0][e], *b = &ep[k][e];
                ck_assert_msg(a->crawls > 1000 && a->crawls == b->crawls &&
                                  memcmp(&a->jh, &b->jh, sizeof a->jh) == 0 &&
                                  memcmp(&a->jb, &b->jb, sizeof a->jb) == 0 &&
                                  memcmp(&a->bandwidth, &b->bandwidth, sizeof a->bandwidth) == 0,
                              "%s, epoch %d: %d threads: %lld crawls, J_h %.17g (1 thread: %lld, "
                              "%.17g)",
                              pols[p], e, k + 1, (long long)b->crawls, b->jh, (long long)a->crawls,
                              a->jh);
            }
    }
    drop(&w);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("recrawl");
    TCase *tc = tcase_create("basics");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_estimators);
    tcase_add_test(tc, test_registry_errors);
    tcase_add_test(tc, test_delta_error);
    tcase_add_test(tc, test_threads_identical);
    suite_add_tcase(s, tc);
    tc = tcase_create("fidelity");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_closed_forms_3se);
    tcase_add_test(tc, test_lc_beats_baselines);
    tcase_add_test(tc, test_blc_starves);
    tcase_add_test(tc, test_prop9);
    tcase_add_test(tc, test_fig2_complete_observations);
    tcase_add_test(tc, test_fig3_learning);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* the figures survive a failing (forked) test */
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
