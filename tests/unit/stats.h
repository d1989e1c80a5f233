/*
 * stats.h: goodness-of-fit helpers for the statistical unit tests (header-only, test code only).
 *
 * Chi-square test with p-value from the regularised upper incomplete gamma function Q(a, x)
 * (series for x < a + 1, Lentz's continued fraction otherwise), one-sample Kolmogorov-Smirnov
 * test with p-value from the asymptotic Kolmogorov distribution with Stephens' small-sample
 * correction, and running mean/variance (Welford). Statistical tests use fixed seeds, so every
 * result is reproducible; the thresholds only guard against a seed that is unlucky after a
 * legitimate change of the generator.
 */
#ifndef CRAWLSIM_TESTS_STATS_H
#define CRAWLSIM_TESTS_STATS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Regularised lower incomplete gamma P(a, x) by its power series; converges fast for x < a + 1. */
static inline double st_gamma_p_series(double a, double x)
{
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 10000; n++) {
        term *= x / (a + n);
        sum += term;
        if (fabs(term) < fabs(sum) * 1e-16)
            break;
    }
    return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Regularised upper incomplete gamma Q(a, x) by the continued fraction
 * Q = e^-x x^a / Gamma(a) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...))), evaluated with the
 * modified Lentz method; converges fast for x >= a + 1. */
static inline double st_gamma_q_cf(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1.0 - a;
    double c = 1.0 / tiny;
    double d = 1.0 / b;
    double h = d;
    for (int i = 1; i < 10000; i++) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < 1e-16)
            break;
    }
    return h * exp(-x + a * log(x) - lgamma(a));
}

/* Q(a, x) = Gamma(a, x) / Gamma(a) for a > 0, x >= 0. */
static inline double st_gamma_q(double a, double x)
{
    if (x <= 0.0)
        return 1.0;
    if (x < a + 1.0)
        return 1.0 - st_gamma_p_series(a, x);
    return st_gamma_q_cf(a, x);
}

/* P(chi2_df >= chi2). */
static inline double st_chi2_pvalue(double chi2, double df)
{
    return st_gamma_q(0.5 * df, 0.5 * chi2);
}

/* Result of a chi-square test. */
typedef struct st_chi2 {
    double chi2;
    int df;
    double p;
    double prob_sum; /* sum of the expected probabilities: should be 1 */
} st_chi2;

/*
 * Pearson's chi-square test of counts observed[0..nbins) (summing to n) against probabilities
 * prob[0..nbins), which the caller makes sum to 1 (a tail bin included). Adjacent bins are
 * merged from the left until each group expects at least 5 draws (the usual validity rule of the
 * chi-square approximation); a short last group joins the one before. df = groups - 1, since no
 * parameter is fitted.
 */
static inline st_chi2 st_chi2_test(const uint64_t *observed, const double *prob, size_t nbins,
                                   uint64_t n)
{
    st_chi2 res = {0.0, 0, 1.0, 0.0};
    double dn = (double)n;
    double grp_o = 0.0, grp_e = 0.0;   /* group being filled */
    double last_o = 0.0, last_e = 0.0; /* last closed group, not yet added */
    int groups = 0;
    for (size_t i = 0; i < nbins; i++) {
        res.prob_sum += prob[i];
        grp_o += (double)observed[i];
        grp_e += prob[i] * dn;
        if (grp_e >= 5.0) {
            if (groups > 0)
                res.chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
            last_o = grp_o;
            last_e = grp_e;
            groups++;
            grp_o = grp_e = 0.0;
        }
    }
    last_o += grp_o;
    last_e += grp_e;
    if (groups > 0 && last_e > 0.0)
        res.chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
    res.df = groups - 1;
    res.p = res.df > 0 ? st_chi2_pvalue(res.chi2, res.df) : 1.0;
    return res;
}

/*
 * P(K > t) for the Kolmogorov distribution K = lim sqrt(n) D_n. Two series, each used where it
 * converges in a few terms: 1 - sqrt(2 pi)/t sum_j exp(-(2j-1)^2 pi^2 / (8 t^2)) for small t,
 * 2 sum_j (-1)^(j-1) exp(-2 j^2 t^2) for large t.
 */
static inline double st_kolmogorov_q(double t)
{
    const double pi = 3.14159265358979323846;
    if (t <= 0.0)
        return 1.0;
    if (t < 1.18) {
        double s = 0.0;
        for (int j = 1; j <= 10; j++) {
            double m = 2.0 * j - 1.0;
            s += exp(-m * m * pi * pi / (8.0 * t * t));
        }
        return 1.0 - sqrt(2.0 * pi) / t * s;
    }
    double s = 0.0;
    for (int j = 1; j <= 20; j++)
        s += ((j & 1) ? 1.0 : -1.0) * exp(-2.0 * j * j * t * t);
    return 2.0 * s;
}

static inline int st_cmp_double_(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Result of a Kolmogorov-Smirnov test. */
typedef struct st_ks {
    double d; /* sup |F_n - F| */
    double p;
} st_ks;

/*
 * One-sample KS test of x[0..n) (sorted in place) against the continuous CDF cdf(x, par).
 * p = Q_K((sqrt(n) + 0.12 + 0.11/sqrt(n)) D) (Stephens 1970), accurate for n >= 35.
 */
static inline st_ks st_ks_test(double *x, size_t n, double (*cdf)(double, const void *),
                               const void *par)
{
    st_ks res = {0.0, 1.0};
    qsort(x, n, sizeof *x, st_cmp_double_);
    double dn = (double)n;
    for (size_t i = 0; i < n; i++) {
        double f = cdf(x[i], par);
        double lo = f - (double)i / dn, hi = (double)(i + 1) / dn - f;
        if (lo > res.d)
            res.d = lo;
        if (hi > res.d)
            res.d = hi;
    }
    double sn = sqrt(dn);
    res.p = st_kolmogorov_q((sn + 0.12 + 0.11 / sn) * res.d);
    return res;
}

/* Running mean and variance (Welford), stable for long runs. */
typedef struct st_moments {
    double n, mean, m2;
} st_moments;

static inline void st_moments_add(st_moments *m, double x)
{
    m->n += 1.0;
    double d = x - m->mean;
    m->mean += d / m->n;
    m->m2 += d * (x - m->mean);
}

/* Unbiased sample variance. */
static inline double st_moments_var(const st_moments *m)
{
    return m->m2 / (m->n - 1.0);
}

#endif
