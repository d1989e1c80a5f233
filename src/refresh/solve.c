/*
 * refresh solvers: LambdaCrawl's optimal re-crawl rates (Kolobov et al. 2019) distributed over
 * ranks, and the baselines of its Section 7.
 *
 * Every solver reduces to one root find sum_i rate_i(x) = R in a scalar x:
 *   LC-IncomplObs (Alg. 1), x = t = 1/lambda: rho(t) = (sqrt(d^2 + 4 mu d t) - d) / 2 (Eq. 5),
 *     concave and increasing in t, rho'(t) = mu d / sqrt(d^2 + 4 mu d t).
 *   LC-ComplObs (Alg. 2), the same t: p = min(1, mu t / d), rate p d (the KKT form of Prop. 5
 *     with the p <= 1 constraints; Newton from the left repeats Alg. 2's steps t = R_rem /
 *     sum_unsaturated(mu), adding the pages whose p reached 1, distributed).
 *   Mixed (Problem 3): the KKT conditions of Eq. 9 share one lambda between both classes, so the
 *     joint solve is the sum of the two above; Alg. 3's golden section on R_o is kept as the
 *     reference (CS_REFRESH_MIXED_GOLDEN).
 *   BinaryLambdaCrawl, x = u = 1/sqrt(lambda): rho = max(floor, sqrt(mu d) u - d), the KKT
 *     solution of min sum mu d / (d + rho) (Azar et al.), convex piecewise linear in u.
 * The root find is Newton's method safeguarded by the bracket of evaluated points (bisection
 * when a step leaves it). Its relative stopping rule is on the constraint itself: |f - R| <=
 * rtol R (the authors' absolute tolerance on lambda misses R by about 1 %). Each iteration is one
 * OpenMP pass over the rank's pages and one allreduce of six integers: f and f' summed
 * exactly in fixed point (refresh_impl.h), so every rank takes the same steps and ends with the
 * same bits, for any number of ranks or threads.
 */
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const policy_names[CS_REFRESH_POLICY_COUNT_] = {
    "lambdacrawl",        "lambdacrawl-incomplete",   "lca",
    "binary-lambdacrawl", "binary-lambdacrawl-floor", "uniform",
    "change-rate",
};

const char *cs_refresh_policy_name(cs_refresh_policy p)
{
    return (int)p >= 0 && p < CS_REFRESH_POLICY_COUNT_ ? policy_names[p] : "unknown";
}

cs_err cs_refresh_policy_parse(const char *name, cs_refresh_policy *out)
{
    for (int p = 0; p < CS_REFRESH_POLICY_COUNT_; p++)
        if (strcmp(name, policy_names[p]) == 0) {
            *out = (cs_refresh_policy)p;
            return CS_OK;
        }
    return CS_ERR_ARG;
}

void cs_refresh_opts_default(cs_refresh_opts *o)
{
    o->rtol = 1e-12;
    o->max_iter = 200;
    o->epsilon = 0.1;
    o->mixed = CS_REFRESH_MIXED_JOINT;
    o->golden_tol = 1e-9;
    o->costs = 1;
}

/* ---- the solver state ------------------------------------------------------------------------ */

/* What the passes read. "inc" is the class crawled as Poisson processes (every page unless
 * split), "comp" the class crawled on observations (split only). The global figures are equal
 * on every rank. */
typedef struct solver {
    cs_ctx *ctx;
    const cs_refresh_pages *pg;
    cs_refresh_opts o;
    double R;
    int split;         /* complete pages are crawled on observations */
    int64_t N, Ni, Nc; /* global pages, incomplete-class and complete-class pages */
    double mu_max_i, md_max_i, mu_max_c, d_max_c, d_max, a_max; /* maxima (a = sqrt(mu d)) */
    double mu_sum_i, mu_sum_c, d_sum_c, d_sum, a_sum;           /* exact sums */
    double floor_rate;                                          /* BLC floor */
    double w_max; /* the largest rate the last write_rates wrote on this rank */
    int iters;
} solver;

/* The kernels, shared by the root-find passes and the output pass so that the rates written are
 * exactly the ones summed. */
static inline double lc_rho(double m, double d, double t)
{
    const double x = 4.0 * m * d * t;
    return x / (2.0 * (sqrt(d * d + x) + d));
}

static inline double co_p(double m, double d, double t)
{
    const double p = m * t / d;
    return p < 1.0 ? p : 1.0;
}

static inline double blc_rho(double m, double d, double u, double fl)
{
    const double r = sqrt(m * d) * u - d;
    return r > fl ? r : fl;
}

/* Collective. Validates the pages and computes the global maxima and exact sums. need_a: the
 * sqrt(mu delta) figures (BLC). Every figure is a maximum or an exact sum, so nothing here or in
 * the passes below depends on the order of the pages: the caller may pass them in any order
 * (the re-crawl policies pass the cache's slots) and gets the same bits, page for page. */
static cs_err solver_setup(solver *s, int need_a)
{
    cs_ctx *ctx = s->ctx;
    const cs_refresh_pages *pg = s->pg;
    const int64_t n = pg->n;
    const double *mu = pg->mu, *delta = pg->delta;
    const uint8_t *cf = s->split ? pg->complete : NULL;
    cs_err rc = CS_OK;
    /* the maxima, and the validation in the same pass: the first bad page (lowest index) of
     * the lowest failing rank is named */
    const int slice_ok = n >= 0 && (n == 0 || (mu != NULL && delta != NULL));
    const int64_t nv = slice_ok ? n : 0;
    double mxi = 0.0, mdi = 0.0, mxc = 0.0, dxc = 0.0, dx = 0.0, ax = 0.0;
    int64_t nc = 0, bad = nv;
#pragma omp parallel for default(none) shared(nv, mu, delta, cf, need_a)                           \
    reduction(max : mxi, mdi, mxc, dxc, dx, ax) reduction(+ : nc) reduction(min : bad)            \
    schedule(static)
    for (int64_t i = 0; i < nv; i++) {
        const double m = mu[i], d = delta[i];
        if (!(m > 0.0) || !isfinite(m) || !(d > 0.0) || !isfinite(d))
            bad = i < bad ? i : bad;
        if (cf != NULL && cf[i]) {
            nc++;
            mxc = m > mxc ? m : mxc;
            dxc = d > dxc ? d : dxc;
        } else {
            mxi = m > mxi ? m : mxi;
            mdi = m * d > mdi ? m * d : mdi;
        }
        dx = d > dx ? d : dx;
        if (need_a) {
            const double a = sqrt(m * d);
            ax = a > ax ? a : ax;
        }
    }
    cs_err local = CS_OK;
    if (!slice_ok)
        local = cs_fail(ctx, CS_ERR_ARG, "refresh: bad page slice (n = %lld)", (long long)n);
    else if (bad < n)
        local = cs_fail(ctx, CS_ERR_ARG,
                        "refresh: page %lld of rank %d has mu = %g, delta = %g (both must be "
                        "finite and > 0)",
                        (long long)bad, ctx->rank, mu[bad], delta[bad]);
    CS_TRY_AGREE(ctx, local);
    double mx[6] = {mxi, mdi, mxc, dxc, dx, ax}, g[6];
    cs_allreduce(ctx, mx, g, 6, CS_T_F64, CS_OP_MAX);
    s->mu_max_i = g[0];
    s->md_max_i = g[1];
    s->mu_max_c = g[2];
    s->d_max_c = g[3];
    s->d_max = g[4];
    s->a_max = g[5];

    /* exact sums: mu (each class), delta (complete class, all), sqrt(mu delta) */
    const double s_mi = cs_comm_fx_scale(s->mu_max_i), s_mc = cs_comm_fx_scale(s->mu_max_c),
                 s_dc = cs_comm_fx_scale(s->d_max_c), s_d = cs_comm_fx_scale(s->d_max),
                 s_a = cs_comm_fx_scale(s->a_max);
    int64_t a[17] = {0}, gs[17];
    int64_t m0 = 0, m1 = 0, m2 = 0, c0 = 0, c1 = 0, c2 = 0, e0 = 0, e1 = 0, e2 = 0;
    int64_t d0 = 0, d1 = 0, d2 = 0, r0 = 0, r1 = 0, r2 = 0;
#pragma omp parallel for default(none) shared(n, mu, delta, cf, need_a, s_mi, s_mc, s_dc, s_d, s_a) \
    reduction(+ : m0, m1, m2, c0, c1, c2, e0, e1, e2, d0, d1, d2, r0, r1, r2) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const double m = mu[i], d = delta[i];
        const int c = cf != NULL && cf[i];
        CS_FX_ADD(c ? 0.0 : m, s_mi, m0, m1, m2);
        CS_FX_ADD(c ? m : 0.0, s_mc, c0, c1, c2);
        CS_FX_ADD(c ? d : 0.0, s_dc, e0, e1, e2);
        CS_FX_ADD(d, s_d, d0, d1, d2);
        if (need_a)
            CS_FX_ADD(sqrt(m * d), s_a, r0, r1, r2);
    }
    const int64_t loc[17] = {m0, m1, m2, c0, c1, c2, e0, e1, e2, d0, d1, d2, r0, r1, r2, n, nc};
    memcpy(a, loc, sizeof a);
    cs_allreduce(ctx, a, gs, 17, CS_T_I64, CS_OP_SUM);
    s->mu_sum_i = cs_comm_fx_value(gs, s_mi);
    s->mu_sum_c = cs_comm_fx_value(gs + 3, s_mc);
    s->d_sum_c = cs_comm_fx_value(gs + 6, s_dc);
    s->d_sum = cs_comm_fx_value(gs + 9, s_d);
    s->a_sum = cs_comm_fx_value(gs + 12, s_a);
    s->N = gs[15];
    s->Nc = gs[16];
    s->Ni = s->N - s->Nc;
    if (s->N > CS_FX_MAX_TERMS)
        CS_TRY_AGREE(
            ctx, cs_fail(ctx, CS_ERR_LIMIT, "refresh: %lld pages, at most 2^32", (long long)s->N));
    if (s->N == 0)
        CS_TRY_AGREE(ctx, cs_fail(ctx, CS_ERR_ARG, "refresh: no pages to schedule"));
    return CS_OK;
fail:
    return rc;
}

/* ---- one root-find pass ---------------------------------------------------------------------- */

typedef enum ev_kind {
    EV_LC,  /* in t: Eq. 5 over the inc class (if inc) + min(d, mu t) over the comp class (if comp)
             */
    EV_BLC, /* in u: max(floor, sqrt(mu d) u - d) over every page */
} ev_kind;

/* Collective. f(x) = sum of the rates and f'(x) (right derivative), exact; one allreduce. */
static void eval(solver *s, ev_kind kind, int inc, int comp, double x, double *f, double *df)
{
    const cs_refresh_pages *pg = s->pg;
    const int64_t n = pg->n;
    const double *mu = pg->mu, *delta = pg->delta;
    const uint8_t *cf = s->split ? pg->complete : NULL;
    /* bounds on one page's value and derivative (x2 margin): rho <= min(mu t, sqrt(mu d t)),
     * rho' <= min(mu, sqrt(mu d / 4t)); p d <= min(d, mu t), (p d)' <= mu; BLC <= max(floor,
     * a u), a. Loose bounds only cost resolution, of which there are 2^-83. */
    double bf = 0.0, bd = 0.0;
    if (kind == EV_BLC) {
        bf = fmax(s->floor_rate, s->a_max * x);
        bd = s->a_max;
    } else {
        if (inc) {
            bf = fmin(s->mu_max_i * x, sqrt(s->md_max_i * x));
            bd = fmin(s->mu_max_i, sqrt(s->md_max_i / (4.0 * x)));
        }
        if (comp) {
            bf = fmax(bf, fmin(s->d_max_c, s->mu_max_c * x));
            bd = fmax(bd, s->mu_max_c);
        }
    }
    const double sf = cs_comm_fx_scale(2.0 * bf), sd = cs_comm_fx_scale(2.0 * bd);
    int64_t f0 = 0, f1 = 0, f2 = 0, g0 = 0, g1 = 0, g2 = 0;
    if (kind == EV_BLC) {
        const double fl = s->floor_rate;
#pragma omp parallel for simd default(none) shared(n, mu, delta, x, fl, sf, sd)                    \
    reduction(+ : f0, f1, f2, g0, g1, g2) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            const double m = mu[i], d = delta[i];
            const double a = sqrt(m * d), r = a * x - d;
            const int act = r > fl;
            CS_FX_ADD(act ? r : fl, sf, f0, f1, f2);
            CS_FX_ADD(r >= fl ? a : 0.0, sd, g0, g1, g2);
        }
    } else if (inc && cf == NULL) {
#pragma omp parallel for simd default(none) shared(n, mu, delta, x, sf, sd)                        \
    reduction(+ : f0, f1, f2, g0, g1, g2) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            const double m = mu[i], d = delta[i];
            const double y = 4.0 * m * d * x, q = sqrt(d * d + y);
            CS_FX_ADD(y / (2.0 * (q + d)), sf, f0, f1, f2);
            CS_FX_ADD(m * d / q, sd, g0, g1, g2);
        }
    } else if (inc) {
#pragma omp parallel for simd default(none) shared(n, mu, delta, cf, x, sf, sd)                    \
    reduction(+ : f0, f1, f2, g0, g1, g2) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            const double m = mu[i], d = delta[i], w = cf[i] ? 0.0 : 1.0;
            const double y = 4.0 * m * d * x, q = sqrt(d * d + y);
            CS_FX_ADD(w * (y / (2.0 * (q + d))), sf, f0, f1, f2);
            CS_FX_ADD(w * (m * d / q), sd, g0, g1, g2);
        }
    }
    if (kind == EV_LC && comp) {
        /* the complete pages, a few of the slots: found by their flag (a byte a page), not
         * computed for every page; a class of its own only when the solver splits */
        CS_ASSERT(cf != NULL);
#pragma omp parallel for default(none) shared(n, mu, delta, cf, x, sf, sd)                         \
    reduction(+ : f0, f1, f2, g0, g1, g2) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            if (!cf[i])
                continue;
            const double m = mu[i], d = delta[i];
            const double p = co_p(m, d, x);
            CS_FX_ADD(p * d, sf, f0, f1, f2);
            CS_FX_ADD(p < 1.0 ? m : 0.0, sd, g0, g1, g2);
        }
    }
    int64_t a[6] = {f0, f1, f2, g0, g1, g2}, g[6];
    cs_allreduce(s->ctx, a, g, 6, CS_T_I64, CS_OP_SUM);
    *f = cs_comm_fx_value(g, sf);
    *df = cs_comm_fx_value(g + 3, sd);
    s->iters++;
}

/* Collective. Solves f(x) = target from x0 > 0 by safeguarded Newton; *x the best iterate.
 * Every quantity a branch reads is identical on every rank, so every rank returns alike. */
static cs_err root(solver *s, ev_kind kind, int inc, int comp, double target, double x0,
                   double *x_out)
{
    double lo = 0.0, hi = CS_INF, x = x0, best_x = x0, best_r = CS_INF;
    int it = 0;
    for (; it < s->o.max_iter; it++) {
        double f = 0.0, df = 0.0;
        eval(s, kind, inc, comp, x, &f, &df);
        const double r = fabs(f - target) / target;
        if (r < best_r) {
            best_r = r;
            best_x = x;
        }
        if (r <= s->o.rtol)
            break;
        if (f < target)
            lo = x;
        else
            hi = x;
        double xn = x + (target - f) / df;
        if (!(df > 0.0) || !(xn > lo && xn < hi))
            xn = hi < CS_INF ? 0.5 * (lo + hi) : 2.0 * x;
        if (xn <= lo || xn >= hi) /* the bracket is down to adjacent doubles */
            break;
        x = xn;
    }
    *x_out = best_x;
    if (!(best_r <= CS_REFRESH_RTOL_MAX))
        return cs_agree(s->ctx,
                        cs_fail(s->ctx, CS_ERR_INTERNAL,
                                "refresh: %s root find stopped %g (relative) from the "
                                "bandwidth after %d iterations",
                                kind == EV_BLC ? "BinaryLambdaCrawl" : "LambdaCrawl", best_r, it));
    return CS_OK;
}

/* ---- outputs --------------------------------------------------------------------------------- */

typedef enum inc_rule {
    INC_LC,    /* Eq. 5 at t = x */
    INC_MU,    /* Prop. 9: mu x */
    INC_BLC,   /* max(floor, sqrt(mu d) x - d) */
    INC_CONST, /* x */
    INC_DELTA, /* delta x */
} inc_rule;

/* Local. Writes the rates of the inc class by `rule` with parameter x and, when split, the
 * complete pages' p at t_comp; s->w_max the largest rate written (tally's bound). */
static void write_rates(solver *s, inc_rule rule, double x, double t_comp, double *rate,
                        double *prob)
{
    const cs_refresh_pages *pg = s->pg;
    const int64_t n = pg->n;
    const double *mu = pg->mu, *delta = pg->delta;
    const uint8_t *cf = s->split ? pg->complete : NULL;
    const double fl = s->floor_rate;
    double mx = 0.0;
#pragma omp parallel for default(none) shared(n, mu, delta, cf, rule, x, t_comp, fl, rate, prob)   \
    reduction(max                                                                                  \
              : mx) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const double m = mu[i], d = delta[i];
        double r, p = -1.0;
        if (cf != NULL && cf[i]) {
            p = co_p(m, d, t_comp);
            r = p * d;
        } else {
            r = rule == INC_LC      ? lc_rho(m, d, x)
                : rule == INC_MU    ? m * x
                : rule == INC_BLC   ? blc_rho(m, d, x, fl)
                : rule == INC_CONST ? x
                                    : d * x;
        }
        rate[i] = r;
        prob[i] = p;
        mx = r > mx ? r : mx;
    }
    s->w_max = mx;
}

/* Collective. The result's exact rate sums and counts; the costs if asked. rate and prob are
 * what the last write_rates wrote (s->w_max their largest rate). */
static cs_err tally(solver *s, const double *rate, const double *prob, cs_refresh_result *res)
{
    cs_ctx *ctx = s->ctx;
    const int64_t n = s->pg->n;
    double mx = s->w_max, gmx = 0.0;
    cs_allreduce(ctx, &mx, &gmx, 1, CS_T_F64, CS_OP_MAX);
    const double sc = cs_comm_fx_scale(gmx);
    int64_t i0 = 0, i1 = 0, i2 = 0, c0 = 0, c1 = 0, c2 = 0, ntrig = 0, nstarved = 0, nsat = 0;
#pragma omp parallel for default(none) shared(n, rate, prob, sc)                                  \
    reduction(+ : i0, i1, i2, c0, c1, c2, ntrig, nstarved, nsat) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int trig = prob[i] >= 0.0;
        CS_FX_ADD(trig ? 0.0 : rate[i], sc, i0, i1, i2);
        CS_FX_ADD(trig ? rate[i] : 0.0, sc, c0, c1, c2);
        ntrig += trig;
        nstarved += rate[i] == 0.0;
        nsat += prob[i] == 1.0;
    }
    int64_t a[9] = {i0, i1, i2, c0, c1, c2, ntrig, nstarved, nsat}, g[9];
    cs_allreduce(ctx, a, g, 9, CS_T_I64, CS_OP_SUM);
    res->r_incomplete = cs_comm_fx_value(g, sc);
    res->r_complete = cs_comm_fx_value(g + 3, sc);
    res->residual = fabs(res->r_incomplete + res->r_complete - s->R) / s->R;
    res->n = s->N;
    res->n_complete = g[6];
    res->n_starved = g[7];
    res->n_saturated = g[8];
    res->j_h = res->j_b = CS_NAN;
    if (s->o.costs)
        return cs_refresh_cost(ctx, s->pg, rate, prob, &res->j_h, &res->j_b);
    return CS_OK;
}

/* ---- policies -------------------------------------------------------------------------------- */

/* Collective. LC-IncomplObs over the inc class and/or LC-ComplObs over the comp class with one
 * multiplier (the joint mixed solve when both). Returns t = 1/lambda. */
static cs_err solve_lc(solver *s, int inc, int comp, double R, double *t)
{
    const double musum = (inc ? s->mu_sum_i : 0.0) + (comp ? s->mu_sum_c : 0.0);
    /* f(t) <= t sum(mu) for both kernels: t0 is at or below the root, where Newton on a concave
     * increasing f climbs monotonically */
    return root(s, EV_LC, inc, comp, R, R / musum, t);
}

/* Collective. LC-ComplObs alone, for R_o in (0, sum delta]: R_o = sum delta is p = 1 for all. */
static cs_err solve_complete(solver *s, double Ro, double *t)
{
    if (Ro >= s->d_sum_c) {
        /* any t >= max(d / mu) saturates every page */
        const int64_t n = s->pg->n;
        const double *mu = s->pg->mu, *delta = s->pg->delta;
        const uint8_t *cf = s->pg->complete;
        double tt = 0.0;
#pragma omp parallel for default(none) shared(n, mu, delta, cf) reduction(max : tt) schedule(static)
        for (int64_t i = 0; i < n; i++)
            if (cf[i])
                tt = fmax(tt, delta[i] / mu[i]);
        double gt = 0.0;
        cs_allreduce(s->ctx, &tt, &gt, 1, CS_T_F64, CS_OP_MAX);
        *t = gt;
        return CS_OK;
    }
    return solve_lc(s, 0, 1, Ro, t);
}

/* Collective. Alg. 3: golden-section search over R_o in (0, min(R, sum delta_comp)) for the
 * lowest harmonic cost (Eq. 9), with Alg. 1 (or Prop. 9's rates when lca) for the incomplete
 * pages and Alg. 2 for the complete ones at each split. Leaves the best split's schedule in
 * rate/prob. */
static cs_err solve_golden(solver *s, int lca, double *rate, double *prob, cs_refresh_result *res)
{
    cs_err rc = CS_OK;
    const double R = s->R, invphi = 0.5 * (sqrt(5.0) - 1.0);
    double lo = 0.0, hi = fmin(R, s->d_sum_c);
    double ti = 0.0, tc = 0.0, jh = 0.0, jb = 0.0;
    double xs[2], js[2];
    xs[0] = hi - invphi * (hi - lo);
    xs[1] = lo + invphi * (hi - lo);
    /* J at R_o = xs[k] */
#define GOLDEN_EVAL(k)                                                                             \
    do {                                                                                           \
        const double Ri_ = R - xs[k];                                                              \
        if (lca)                                                                                   \
            ti = Ri_ / s->mu_sum_i;                                                                \
        else                                                                                       \
            CS_TRY(s->ctx, solve_lc(s, 1, 0, Ri_, &ti));                                           \
        CS_TRY(s->ctx, solve_complete(s, xs[k], &tc));                                             \
        write_rates(s, lca ? INC_MU : INC_LC, ti, tc, rate, prob);                                 \
        CS_TRY(s->ctx, cs_refresh_cost(s->ctx, s->pg, rate, prob, &jh, &jb));                      \
        js[k] = jh;                                                                                \
        res->golden_iterations++;                                                                  \
    } while (0)
    GOLDEN_EVAL(0);
    GOLDEN_EVAL(1);
    while (hi - lo > s->o.golden_tol * R && res->golden_iterations < 200) {
        if (js[0] < js[1]) {
            hi = xs[1];
            xs[1] = xs[0];
            js[1] = js[0];
            xs[0] = hi - invphi * (hi - lo);
            GOLDEN_EVAL(0);
        } else {
            lo = xs[0];
            xs[0] = xs[1];
            js[0] = js[1];
            xs[1] = lo + invphi * (hi - lo);
            GOLDEN_EVAL(1);
        }
    }
    xs[0] = js[0] < js[1] ? xs[0] : xs[1];
    GOLDEN_EVAL(0);
#undef GOLDEN_EVAL
    res->lambda = lca ? CS_NAN : 1.0 / ti;
    res->lambda_complete = 1.0 / tc;
    return CS_OK;
fail:
    return rc;
}

cs_err cs_refresh_solve(cs_ctx *ctx, cs_refresh_policy policy, const cs_refresh_pages *pg, double R,
                        const cs_refresh_opts *opts, double *rate, double *prob,
                        cs_refresh_result *res_out)
{
    cs_err rc = CS_OK;
    solver s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.pg = pg;
    s.R = R;
    if (opts != NULL)
        s.o = *opts;
    else
        cs_refresh_opts_default(&s.o);
    cs_refresh_result res;
    memset(&res, 0, sizeof res);
    res.lambda = res.lambda_complete = CS_NAN;
    /* arguments equal on every rank: failing here is agreed without communication */
    if (!(R > 0.0) || !isfinite(R))
        return cs_fail(ctx, CS_ERR_ARG, "refresh: bandwidth R = %g must be finite and > 0", R);
    if ((int)policy < 0 || policy >= CS_REFRESH_POLICY_COUNT_)
        return cs_fail(ctx, CS_ERR_ARG, "refresh: unknown policy %d", (int)policy);
    if (policy == CS_REFRESH_BLC_FLOOR && !(s.o.epsilon > 0.0 && s.o.epsilon < 1.0))
        return cs_fail(ctx, CS_ERR_ARG, "refresh: epsilon = %g must lie in (0, 1)", s.o.epsilon);
    if (!(s.o.rtol > 0.0) || s.o.max_iter < 1)
        return cs_fail(ctx, CS_ERR_ARG, "refresh: rtol must be > 0 and max_iter >= 1");
    s.split =
        (policy == CS_REFRESH_LAMBDACRAWL || policy == CS_REFRESH_LCA) && pg->complete != NULL;
    const int blc = policy == CS_REFRESH_BLC || policy == CS_REFRESH_BLC_FLOOR;
    CS_TRY(ctx, solver_setup(&s, blc));

    const int mixed = s.split && s.Nc > 0 && s.Ni > 0, only_c = s.split && s.Ni == 0;
    if (only_c && R > s.d_sum_c * (1.0 + s.o.rtol))
        CS_TRY_AGREE(ctx, cs_fail(ctx, CS_ERR_ARG,
                                  "refresh: every page has complete observations and R = %g "
                                  "exceeds their total change rate %g (crawling on every change "
                                  "cannot use it)",
                                  R, s.d_sum_c));
    double x = 0.0;
    switch (policy) {
    case CS_REFRESH_LAMBDACRAWL:
    case CS_REFRESH_LC_INCOMPLETE:
        if (mixed && s.o.mixed == CS_REFRESH_MIXED_GOLDEN) {
            CS_TRY(ctx, solve_golden(&s, 0, rate, prob, &res));
        } else if (only_c) {
            CS_TRY(ctx, solve_complete(&s, R, &x));
            write_rates(&s, INC_LC, 1.0, x, rate, prob);
            res.lambda = 1.0 / x;
        } else {
            CS_TRY(ctx, solve_lc(&s, 1, mixed, R, &x));
            write_rates(&s, INC_LC, x, x, rate, prob);
            res.lambda = 1.0 / x;
        }
        break;
    case CS_REFRESH_LCA:
        if (mixed) {
            CS_TRY(ctx, solve_golden(&s, 1, rate, prob, &res));
        } else if (only_c) {
            CS_TRY(ctx, solve_complete(&s, R, &x));
            write_rates(&s, INC_LC, 1.0, x, rate, prob);
            res.lambda_complete = 1.0 / x;
        } else {
            write_rates(&s, INC_MU, R / s.mu_sum_i, 0.0, rate, prob);
        }
        break;
    case CS_REFRESH_BLC:
    case CS_REFRESH_BLC_FLOOR:
        s.floor_rate = policy == CS_REFRESH_BLC_FLOOR ? s.o.epsilon * R / (double)s.N : 0.0;
        /* a start where a fair share of pages is active; Newton on the convex f settles from
         * above after one step */
        CS_TRY(ctx, root(&s, EV_BLC, 1, 0, R, (R + s.d_sum) / s.a_sum, &x));
        write_rates(&s, INC_BLC, x, 0.0, rate, prob);
        res.lambda = 1.0 / (x * x);
        break;
    case CS_REFRESH_UNIFORM:
        write_rates(&s, INC_CONST, R / (double)s.N, 0.0, rate, prob);
        break;
    case CS_REFRESH_CHANGE_RATE:
        write_rates(&s, INC_DELTA, R / s.d_sum, 0.0, rate, prob);
        break;
    default:
        break;
    }
    const int golden_its = res.golden_iterations;
    const double lam = res.lambda, lamc = res.lambda_complete;
    CS_TRY(ctx, tally(&s, rate, prob, &res));
    res.golden_iterations = golden_its;
    res.lambda = lam;
    res.lambda_complete = lamc;
    res.iterations = s.iters;
    if (!(res.residual <= CS_REFRESH_RTOL_MAX))
        CS_TRY_AGREE(ctx, cs_fail(ctx, CS_ERR_INTERNAL,
                                  "refresh: the %s schedule misses the bandwidth by %g (relative)",
                                  cs_refresh_policy_name(policy), res.residual));
    if (res_out != NULL)
        *res_out = res;
    return CS_OK;
fail:
    return rc;
}
