/*
 * check_refresh: unit tests of the re-crawl solvers (refresh.h), serial (a local context: the
 * solvers' allreduces become copies), forked.
 *
 * The cost closed forms against numerical integration of their definitions (Prop. 1, the binary
 * cost) and the series of Prop. 4; LC-IncomplObs against Eq. 5 page by page (lambda = mu delta /
 * (rho (rho + delta)) to 1e-9) and the bandwidth (1e-9 relative, summed independently in long
 * double); LC-ComplObs and the mixed solve against their KKT conditions, the golden-section
 * Alg. 3 against the joint solve; Prop. 9 (mu / delta constant: LC, LCA and change-rate give the
 * same rates); BinaryLambdaCrawl's starvation (J_h infinite) and the floor that prevents it;
 * mixed observability beating the incomplete-only treatment; exact sums independent of order
 * and thread count; argument errors.
 */
#include "crawlsim/comm.h"
#include "crawlsim/core.h"
#include "crawlsim/refresh.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

typedef struct pages {
    int64_t n;
    double *mu, *delta, *rate, *prob;
    uint8_t *complete;
    cs_refresh_pages pg;
} pages;

/* n pages with heavy-tailed mu and delta (the bench's model), a fraction fc complete. */
static pages make(int64_t n, double fc, uint64_t seed)
{
    pages p;
    p.n = n;
    p.mu = malloc((size_t)n * sizeof *p.mu);
    p.delta = malloc((size_t)n * sizeof *p.delta);
    p.rate = malloc((size_t)n * sizeof *p.rate);
    p.prob = malloc((size_t)n * sizeof *p.prob);
    p.complete = malloc((size_t)n);
    ck_assert(p.mu && p.delta && p.rate && p.prob && p.complete);
    for (int64_t i = 0; i < n; i++) {
        cs_rng r;
        cs_rng_init(&r, seed, CS_RNG_TEST, (uint64_t)i, 0);
        p.delta[i] = cs_rng_lognormal(&r, -1.0, 1.5);
        p.mu[i] = cs_rng_pareto(&r, 1.0, 2.5);
        p.complete[i] = (uint8_t)cs_rng_bernoulli(&r, fc);
    }
    p.pg = (cs_refresh_pages){n, p.mu, p.delta, p.complete};
    return p;
}

static void drop(pages *p)
{
    free(p->mu);
    free(p->delta);
    free(p->rate);
    free(p->prob);
    free(p->complete);
}

static cs_refresh_result solve(pages *p, cs_refresh_policy pol, double R, const cs_refresh_opts *o)
{
    cs_refresh_result res;
    cs_err rc = cs_refresh_solve(&ctx, pol, &p->pg, R, o, p->rate, p->prob, &res);
    ck_assert_msg(rc == CS_OK, "solve %s: %s", cs_refresh_policy_name(pol), ctx.errmsg);
    return res;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(a), fabs(b));
}

/* The bandwidth used, summed independently of the library (long double, input order). */
static double used(const pages *p)
{
    long double s = 0.0L;
    for (int64_t i = 0; i < p->n; i++)
        s += (long double)p->rate[i];
    return (double)s;
}

/* ---- closed forms --------------------------------------------------------------------------- */

/* E[H(N)], N ~ Poisson(m): sum over n of pmf(n) H(n). */
static double harmonic_poisson(double m)
{
    const int nmax = (int)(m + 12.0 * sqrt(m) + 40.0);
    double pmf = exp(-m), H = 0.0, s = 0.0;
    for (int k = 1; k <= nmax; k++) {
        pmf *= m / k;
        H += 1.0 / k;
        s += pmf * H;
    }
    return s;
}

/* Simpson's rule of rho e^{-rho a} g(delta a) over a in [0, 60 / rho]: the stationary age of a
 * Poisson(rho) crawl is Exp(rho), the changes in it Poisson(delta a). */
static double integrate_age(double rho, double delta, int binary)
{
    const int K = 20000;
    const double A = 60.0 / rho, h = A / K;
    double s = 0.0;
    for (int k = 0; k <= K; k++) {
        const double a = k * h, w = (k == 0 || k == K) ? 1.0 : (k % 2 ? 4.0 : 2.0);
        const double g = binary ? 1.0 - exp(-delta * a) : harmonic_poisson(delta * a);
        s += w * rho * exp(-rho * a) * g;
    }
    return s * h / 3.0;
}

START_TEST(test_closed_forms)
{
    const double cases[][2] = {{1.0, 1.0}, {5.0, 0.5}, {0.1, 2.0}, {3.0, 0.2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const double delta = cases[c][0], rho = cases[c][1], mu = 1.7;
        const double jh = cs_refresh_jh_incomplete(mu, delta, rho);
        const double jb = cs_refresh_jb_incomplete(mu, delta, rho);
        ck_assert_msg(rel(jh, mu * integrate_age(rho, delta, 0)) < 1e-6,
                      "Prop. 1 at delta %g rho %g: %.12g vs %.12g", delta, rho, jh,
                      mu * integrate_age(rho, delta, 0));
        ck_assert_msg(rel(jb, mu * integrate_age(rho, delta, 1)) < 1e-8,
                      "binary cost at delta %g rho %g", delta, rho);
    }
    /* Prop. 4: uncrawled changes ~ Geometric(p): sum_n p (1-p)^n H(n) = -ln p */
    const double ps[] = {0.9, 0.3, 0.05};
    for (size_t c = 0; c < 3; c++) {
        const double p = ps[c];
        double s = 0.0, H = 0.0, q = p;
        for (int k = 1; k < 200000; k++) {
            q *= 1.0 - p;
            H += 1.0 / k;
            s += q * H;
        }
        ck_assert_msg(rel(cs_refresh_jh_complete(1.0, p), s) < 1e-10, "Prop. 4 at p %g", p);
        ck_assert(fabs(cs_refresh_jb_complete(2.0, p) - 2.0 * (1.0 - p)) < 1e-15);
    }
    ck_assert(isinf(cs_refresh_jh_incomplete(1.0, 1.0, 0.0)));
    ck_assert(isinf(cs_refresh_jh_complete(1.0, 0.0)));
    /* Eq. 5 solves rho^2 + delta rho - mu delta / lambda = 0, also where x << delta^2 */
    const double q[][3] = {{1.0, 1.0, 1.0}, {2.0, 1e6, 1e3}, {1e-3, 50.0, 7.0}};
    for (size_t c = 0; c < 3; c++) {
        const double mu = q[c][0], d = q[c][1], lam = q[c][2];
        const double r = cs_refresh_rho(mu, d, lam);
        ck_assert_msg(rel(mu * d / (r * (r + d)), lam) < 1e-13, "Eq. 5 case %zu", c);
    }
}
END_TEST

/* ---- LambdaCrawl ---------------------------------------------------------------------------- */

START_TEST(test_lc_incomplete_eq5)
{
    pages p = make(5000, 0.0, 11);
    const double Rs[] = {1.0, 1000.0, 1e6};
    for (int k = 0; k < 3; k++) {
        const cs_refresh_result r = solve(&p, CS_REFRESH_LAMBDACRAWL, Rs[k], NULL);
        ck_assert_msg(rel(used(&p), Rs[k]) < 1e-9, "sum of rates %.17g, R %g", used(&p), Rs[k]);
        ck_assert(r.residual < 1e-9);
        ck_assert(r.lambda > 0.0);
        double worst = 0.0;
        for (int64_t i = 0; i < p.n; i++) {
            ck_assert(p.prob[i] == -1.0 && p.rate[i] > 0.0);
            const double li = p.mu[i] * p.delta[i] / (p.rate[i] * (p.rate[i] + p.delta[i]));
            worst = fmax(worst, rel(li, r.lambda));
        }
        ck_assert_msg(worst < 1e-9, "Eq. 5 violated by %g at R %g", worst, Rs[k]);
        ck_assert(r.n_starved == 0 && r.n_complete == 0 && isfinite(r.j_h));
    }
    drop(&p);
}
END_TEST

/* The KKT conditions of Problem 3 at multiplier lam: Eq. 5 on incomplete pages, mu / (p delta)
 * = lam where p < 1, mu / delta >= lam where p = 1. Returns the worst relative violation. */
static double kkt_mixed(const pages *p, double lam)
{
    double worst = 0.0;
    for (int64_t i = 0; i < p->n; i++) {
        if (p->complete[i]) {
            ck_assert(p->prob[i] > 0.0 && p->prob[i] <= 1.0);
            ck_assert(rel(p->rate[i], p->prob[i] * p->delta[i]) < 1e-15);
            if (p->prob[i] < 1.0)
                worst = fmax(worst, rel(p->mu[i] / (p->prob[i] * p->delta[i]), lam));
            else
                worst = fmax(worst, p->mu[i] / p->delta[i] >= lam * (1.0 - 1e-12) ? 0.0 : 1.0);
        } else {
            ck_assert(p->prob[i] == -1.0);
            worst =
                fmax(worst,
                     rel(p->mu[i] * p->delta[i] / (p->rate[i] * (p->rate[i] + p->delta[i])), lam));
        }
    }
    return worst;
}

START_TEST(test_lc_complete_only)
{
    pages p = make(3000, 1.0, 12);
    double dsum = 0.0;
    for (int64_t i = 0; i < p.n; i++)
        dsum += p.delta[i];
    /* a bandwidth that saturates some pages and one that saturates none */
    const double Rs[] = {0.6 * dsum, 0.01 * dsum};
    for (int k = 0; k < 2; k++) {
        const cs_refresh_result r = solve(&p, CS_REFRESH_LAMBDACRAWL, Rs[k], NULL);
        ck_assert(r.n_complete == p.n);
        ck_assert_msg(rel(used(&p), Rs[k]) < 1e-9, "sum %.17g R %g", used(&p), Rs[k]);
        ck_assert_msg(kkt_mixed(&p, r.lambda) < 1e-9, "KKT at R %g: %g", Rs[k],
                      kkt_mixed(&p, r.lambda));
        if (k == 0)
            ck_assert(r.n_saturated > 0);
    }
    /* every change crawled uses exactly sum(delta) (here summed naively: 1e-13 of slack, inside
     * rtol); more is impossible */
    const cs_refresh_result r = solve(&p, CS_REFRESH_LAMBDACRAWL, dsum * (1.0 + 1e-13), NULL);
    ck_assert(r.n_saturated == p.n);
    cs_err rc = cs_refresh_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &p.pg, 1.5 * dsum, NULL, p.rate,
                                 p.prob, NULL);
    ck_assert_int_eq(rc, CS_ERR_ARG);
    ck_assert(strstr(ctx.errmsg, "exceeds their total change rate") != NULL);
    drop(&p);
}
END_TEST

START_TEST(test_mixed_joint_and_golden)
{
    pages p = make(4000, 0.04, 13);
    const double R = 0.2 * (double)p.n;
    const cs_refresh_result joint = solve(&p, CS_REFRESH_LAMBDACRAWL, R, NULL);
    ck_assert(joint.n_complete > 0 && joint.n_complete < p.n);
    ck_assert(joint.r_complete > 0.0 && joint.r_incomplete > 0.0);
    ck_assert_msg(rel(used(&p), R) < 1e-9, "sum %.17g", used(&p));
    ck_assert_msg(kkt_mixed(&p, joint.lambda) < 1e-9, "KKT: %g", kkt_mixed(&p, joint.lambda));
    /* Alg. 3 as written finds the same optimum: a J_h no lower, a split and multipliers close */
    cs_refresh_opts o;
    cs_refresh_opts_default(&o);
    o.mixed = CS_REFRESH_MIXED_GOLDEN;
    const cs_refresh_result gold = solve(&p, CS_REFRESH_LAMBDACRAWL, R, &o);
    ck_assert(rel(used(&p), R) < 1e-9);
    ck_assert(gold.golden_iterations > 10);
    ck_assert_msg(gold.j_h >= joint.j_h * (1.0 - 1e-13), "golden %.17g < joint %.17g", gold.j_h,
                  joint.j_h);
    ck_assert_msg(rel(gold.j_h, joint.j_h) < 1e-10, "golden %.17g joint %.17g", gold.j_h,
                  joint.j_h);
    ck_assert_msg(rel(gold.r_complete, joint.r_complete) < 1e-5, "split %g vs %g", gold.r_complete,
                  joint.r_complete);
    ck_assert(rel(gold.lambda, joint.lambda) < 1e-5 &&
              rel(gold.lambda_complete, joint.lambda) < 1e-5);
    /* using the observations beats treating the complete pages as incomplete (paper Fig. 2) */
    const cs_refresh_result io = solve(&p, CS_REFRESH_LC_INCOMPLETE, R, NULL);
    ck_assert(io.n_complete == 0);
    ck_assert_msg(joint.j_h < io.j_h, "mixed %g, incomplete-only %g", joint.j_h, io.j_h);
    drop(&p);
}
END_TEST

START_TEST(test_prop9)
{
    /* mu / delta = c for every page: LC, LCA and change-rate coincide (rho = R mu / sum mu) */
    pages p = make(2000, 0.0, 14);
    const double c = 3.7, R = 150.0;
    for (int64_t i = 0; i < p.n; i++)
        p.mu[i] = c * p.delta[i];
    double *lc = malloc((size_t)p.n * sizeof *lc), *lca = malloc((size_t)p.n * sizeof *lca);
    ck_assert(lc && lca);
    solve(&p, CS_REFRESH_LAMBDACRAWL, R, NULL);
    memcpy(lc, p.rate, (size_t)p.n * sizeof *lc);
    solve(&p, CS_REFRESH_LCA, R, NULL);
    memcpy(lca, p.rate, (size_t)p.n * sizeof *lca);
    solve(&p, CS_REFRESH_CHANGE_RATE, R, NULL);
    double worst = 0.0;
    for (int64_t i = 0; i < p.n; i++)
        worst = fmax(worst, fmax(rel(lc[i], lca[i]), rel(lc[i], p.rate[i])));
    ck_assert_msg(worst < 1e-9, "LC, LCA, change-rate differ by %g", worst);
    /* and without the condition they do not */
    for (int64_t i = 0; i < p.n; i++)
        p.mu[i] = 1.0 + (double)(i % 7);
    solve(&p, CS_REFRESH_LAMBDACRAWL, R, NULL);
    memcpy(lc, p.rate, (size_t)p.n * sizeof *lc);
    solve(&p, CS_REFRESH_LCA, R, NULL);
    worst = 0.0;
    for (int64_t i = 0; i < p.n; i++)
        worst = fmax(worst, rel(lc[i], p.rate[i]));
    ck_assert(worst > 1e-3);
    free(lc);
    free(lca);
    drop(&p);
}
END_TEST

START_TEST(test_lca_mixed)
{
    pages p = make(3000, 0.05, 15);
    const double R = 0.2 * (double)p.n;
    const cs_refresh_result r = solve(&p, CS_REFRESH_LCA, R, NULL);
    ck_assert(rel(used(&p), R) < 1e-9);
    ck_assert(r.n_complete > 0 && r.golden_iterations > 10);
    /* incomplete rates proportional to mu (Prop. 9) */
    double k = -1.0;
    for (int64_t i = 0; i < p.n; i++)
        if (!p.complete[i]) {
            if (k < 0.0)
                k = p.rate[i] / p.mu[i];
            ck_assert(rel(p.rate[i] / p.mu[i], k) < 1e-13);
        }
    /* the approximation costs at least what the optimum costs */
    const cs_refresh_result lc = solve(&p, CS_REFRESH_LAMBDACRAWL, R, NULL);
    ck_assert(lc.j_h <= r.j_h);
    drop(&p);
}
END_TEST

/* ---- BinaryLambdaCrawl and baselines -------------------------------------------------------- */

START_TEST(test_blc_starves_and_floor)
{
    pages p = make(3000, 0.0, 16);
    const double R = 0.2 * (double)p.n;
    const cs_refresh_result b = solve(&p, CS_REFRESH_BLC, R, NULL);
    ck_assert(rel(used(&p), R) < 1e-9);
    ck_assert_msg(b.n_starved > 0, "BLC starved no page");
    ck_assert(isinf(b.j_h) && isfinite(b.j_b));
    /* KKT of min sum mu d / (d + rho): mu d / (d + rho)^2 = lambda where rho > 0, mu / d <=
     * lambda where rho = 0 */
    int64_t starved = 0;
    for (int64_t i = 0; i < p.n; i++) {
        const double m = p.mu[i], d = p.delta[i], r = p.rate[i];
        if (r > 0.0)
            ck_assert_msg(rel(m * d / ((d + r) * (d + r)), b.lambda) < 1e-9, "page %lld",
                          (long long)i);
        else
            ck_assert(m / d <= b.lambda * (1.0 + 1e-12));
        starved += r == 0.0;
    }
    ck_assert_int_eq(starved, b.n_starved);
    /* BLC is optimal for J_b: LambdaCrawl's J_b is not lower */
    const cs_refresh_result lc = solve(&p, CS_REFRESH_LAMBDACRAWL, R, NULL);
    ck_assert(lc.j_b >= b.j_b);
    ck_assert(lc.j_h < b.j_h);

    cs_refresh_opts o;
    cs_refresh_opts_default(&o);
    o.epsilon = 0.2;
    const cs_refresh_result f = solve(&p, CS_REFRESH_BLC_FLOOR, R, &o);
    const double fl = 0.2 * R / (double)p.n;
    ck_assert(rel(used(&p), R) < 1e-9);
    ck_assert(f.n_starved == 0 && isfinite(f.j_h));
    int64_t at_floor = 0;
    for (int64_t i = 0; i < p.n; i++) {
        const double m = p.mu[i], d = p.delta[i], r = p.rate[i];
        ck_assert(r >= fl);
        if (r > fl)
            ck_assert(rel(m * d / ((d + r) * (d + r)), f.lambda) < 1e-9);
        else
            at_floor++;
    }
    ck_assert(at_floor > 0);
    ck_assert(f.j_b >= b.j_b); /* the floor costs binary staleness */
    drop(&p);
}
END_TEST

START_TEST(test_uniform_change_rate)
{
    pages p = make(1000, 0.3, 17);
    const double R = 77.0;
    solve(&p, CS_REFRESH_UNIFORM, R, NULL);
    ck_assert(rel(used(&p), R) < 1e-12);
    for (int64_t i = 0; i < p.n; i++)
        ck_assert(p.rate[i] == R / (double)p.n && p.prob[i] == -1.0);
    solve(&p, CS_REFRESH_CHANGE_RATE, R, NULL);
    ck_assert(rel(used(&p), R) < 1e-12);
    for (int64_t i = 1; i < p.n; i++)
        ck_assert(rel(p.rate[i] / p.delta[i], p.rate[0] / p.delta[0]) < 1e-14);
    drop(&p);
}
END_TEST

/* ---- determinism and errors ----------------------------------------------------------------- */

START_TEST(test_exact_sum_order_and_threads)
{
    const int64_t n = 100000;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    ck_assert(x && y);
    long double ref = 0.0L;
    for (int64_t i = 0; i < n; i++) {
        cs_rng r;
        cs_rng_init(&r, 5, CS_RNG_TEST, (uint64_t)i, 1);
        x[i] = cs_rng_lognormal(&r, 0.0, 3.0);
        y[n - 1 - i] = x[i];
        ref += (long double)x[i];
    }
    double a = 0.0, b = 0.0, c = 0.0;
    ck_assert_int_eq(cs_comm_sum_exact(&ctx, x, n, &a), CS_OK);
    ck_assert_int_eq(cs_comm_sum_exact(&ctx, y, n, &b), CS_OK);
    omp_set_num_threads(3);
    ck_assert_int_eq(cs_comm_sum_exact(&ctx, x, n, &c), CS_OK);
    ck_assert(memcmp(&a, &b, sizeof a) == 0 && memcmp(&a, &c, sizeof a) == 0);
    ck_assert_msg(rel(a, (double)ref) < 1e-15, "%.17g vs %.17g", a, (double)ref);
    x[7] = -1.0;
    ck_assert_int_eq(cs_comm_sum_exact(&ctx, x, n, &a), CS_ERR_ARG);
    free(x);
    free(y);
}
END_TEST

START_TEST(test_threads_same_lambda)
{
    pages p = make(20000, 0.04, 18);
    omp_set_num_threads(1);
    const cs_refresh_result a = solve(&p, CS_REFRESH_LAMBDACRAWL, 3000.0, NULL);
    omp_set_num_threads(4);
    const cs_refresh_result b = solve(&p, CS_REFRESH_LAMBDACRAWL, 3000.0, NULL);
    ck_assert(memcmp(&a.lambda, &b.lambda, sizeof a.lambda) == 0);
    ck_assert(memcmp(&a.j_h, &b.j_h, sizeof a.j_h) == 0);
    ck_assert(a.iterations == b.iterations);
    drop(&p);
}
END_TEST

/* The solves' figures are maxima and exact sums: the pages in another order (the re-crawl
 * policies pass the cache's slots, in join order) give every page the same bits, for every
 * policy, the golden-section mixed solve, and any thread count. */
START_TEST(test_page_order)
{
    const int64_t n = 30011; /* prime: i -> 7919 i mod n is a permutation */
    pages p = make(n, 0.04, 21), q = make(n, 0.0, 21);
    for (int64_t i = 0; i < n; i++) {
        const int64_t j = (i * 7919) % n;
        q.mu[j] = p.mu[i];
        q.delta[j] = p.delta[i];
        q.complete[j] = p.complete[i];
    }
    cs_refresh_opts golden;
    cs_refresh_opts_default(&golden);
    golden.mixed = CS_REFRESH_MIXED_GOLDEN;
    for (int k = 0; k <= CS_REFRESH_POLICY_COUNT_; k++) {
        const int g = k == CS_REFRESH_POLICY_COUNT_; /* the last round: golden mixed */
        const cs_refresh_policy pol = g ? CS_REFRESH_LAMBDACRAWL : (cs_refresh_policy)k;
        omp_set_num_threads(1);
        const cs_refresh_result a = solve(&p, pol, 2000.0, g ? &golden : NULL);
        omp_set_num_threads(3);
        const cs_refresh_result b = solve(&q, pol, 2000.0, g ? &golden : NULL);
        for (int64_t i = 0; i < n; i++) {
            const int64_t j = (i * 7919) % n;
            ck_assert_msg(memcmp(&p.rate[i], &q.rate[j], sizeof p.rate[i]) == 0 &&
                              memcmp(&p.prob[i], &q.prob[j], sizeof p.prob[i]) == 0,
                          "%s: page %lld", cs_refresh_policy_name(pol), (long long)i);
        }
        ck_assert(memcmp(&a.lambda, &b.lambda, sizeof a.lambda) == 0);
        ck_assert(memcmp(&a.r_incomplete, &b.r_incomplete, sizeof a.r_incomplete) == 0);
        ck_assert(memcmp(&a.r_complete, &b.r_complete, sizeof a.r_complete) == 0);
        ck_assert(memcmp(&a.j_h, &b.j_h, sizeof a.j_h) == 0);
        ck_assert(memcmp(&a.j_b, &b.j_b, sizeof a.j_b) == 0);
        ck_assert(a.iterations == b.iterations && a.n_saturated == b.n_saturated);
    }
    omp_set_num_threads(1);
    drop(&p);
    drop(&q);
}
END_TEST

START_TEST(test_errors)
{
    pages p = make(10, 0.0, 19);
    ck_assert_int_eq(
        cs_refresh_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &p.pg, 0.0, NULL, p.rate, p.prob, NULL),
        CS_ERR_ARG);
    ck_assert_int_eq(
        cs_refresh_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &p.pg, NAN, NULL, p.rate, p.prob, NULL),
        CS_ERR_ARG);
    cs_refresh_opts o;
    cs_refresh_opts_default(&o);
    o.epsilon = 1.0;
    ck_assert_int_eq(
        cs_refresh_solve(&ctx, CS_REFRESH_BLC_FLOOR, &p.pg, 1.0, &o, p.rate, p.prob, NULL),
        CS_ERR_ARG);
    p.delta[3] = 0.0;
    p.mu[8] = NAN;
    cs_ctx_clear_error(&ctx);
    omp_set_num_threads(3); /* the first bad page is named, whichever thread finds it */
    ck_assert_int_eq(
        cs_refresh_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &p.pg, 1.0, NULL, p.rate, p.prob, NULL),
        CS_ERR_ARG);
    omp_set_num_threads(1);
    ck_assert(strstr(ctx.errmsg, "page 3") != NULL);
    cs_refresh_policy pol;
    ck_assert_int_eq(cs_refresh_policy_parse("binary-lambdacrawl-floor", &pol), CS_OK);
    ck_assert_int_eq(pol, CS_REFRESH_BLC_FLOOR);
    ck_assert_int_eq(cs_refresh_policy_parse("nosuch", &pol), CS_ERR_ARG);
    for (int k = 0; k < CS_REFRESH_POLICY_COUNT_; k++) {
        ck_assert_int_eq(
            cs_refresh_policy_parse(cs_refresh_policy_name((cs_refresh_policy)k), &pol), CS_OK);
        ck_assert_int_eq(pol, k);
    }
    drop(&p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("refresh");
    TCase *tc = tcase_create("costs");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_closed_forms);
    suite_add_tcase(s, tc);
    tc = tcase_create("solvers");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lc_incomplete_eq5);
    tcase_add_test(tc, test_lc_complete_only);
    tcase_add_test(tc, test_mixed_joint_and_golden);
    tcase_add_test(tc, test_prop9);
    tcase_add_test(tc, test_lca_mixed);
    tcase_add_test(tc, test_blc_starves_and_floor);
    tcase_add_test(tc, test_uniform_change_rate);
    suite_add_tcase(s, tc);
    tc = tcase_create("determinism");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_exact_sum_order_and_threads);
    tcase_add_test(tc, test_threads_same_lambda);
    tcase_add_test(tc, test_page_order);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
