/*
 * bandit/lspe: the learning scheme for the Whittle index policy (Avrachenkov & Borkar,
 * Allerton 2019, Sec. IV with the fixes of Sec. V).
 *
 * Each arm i is active with the logistic relaxation of its threshold policy (Sec. III)
 *     f_i = 1 / (1 + exp(-kappa (x_i - T_i - 0.5))),   T_i = q0 + q1 S_i + q2 S_i^2,
 * S_i = sum_{k != i} x_k (Sec. V writes q1 twice; the third parameter is q2 here), and T_i is
 * projected onto [u_i, u_i/(1 - alpha_i)] (Sec. V, fix 1). The average-reward value function
 * V(x) ~ r . phi(x) is learnt by LSPE(0) on the fast time scale b(n); the thresholds follow the
 * likelihood-ratio gradient (7)-(9) on the slow one a(n) = o(b(n)). B-bar is inverted by the
 * Tikhonov-regularised (B^T B + delta I)^-1 B^T (Sec. V, fix 2) or by the Sherman-Morrison
 * recursion of Sec. IV (written for a general step b: B_n = (1-b) B_{n-1} + b phi phi^T).
 *
 * Choices the paper leaves open, made here: the reward of a tick is sum_i x_i nu_i (the
 * objective of Sec. II; Eq. 6 writes sum_i x_i, which no crawl decision could change); the
 * activity decisions are drawn (a simulation, as Sec. III allows); states enter the features,
 * the thresholds' regressors and the reward of the value function in units of
 * s = max_i u_i/(1 - alpha_i); q0 is kept inside the projection interval and |q1|, |q2| <= 10
 * (in units of s), so that a diverging slow iterate cannot overflow the exponent; the state
 * starts at x_i = u_i (every arm crawled just before tick 0).
 */
#include "crawlsim/bandit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs_lspe_config_default(cs_lspe_config *c)
{
    c->kappa = 2.0;
    c->gamma = 0.05;
    c->delta = 1e-3;
    c->epsilon = 1.0;
    c->a_c = 0.5;
    c->a_period = 500.0;
    c->b_c = 0.5;
    c->b_period = 1000.0;
    c->inverse = CS_LSPE_TIKHONOV;
    c->features = 2;
}

static int64_t n_features(int features, int64_t N)
{
    return features == 1 ? 1 + N : N + N * (N + 1) / 2;
}

static void features(int kind, int64_t N, const double *xs, double *phi)
{
    int64_t m = 0;
    if (kind == 1) {
        phi[m++] = 1.0;
        for (int64_t i = 0; i < N; i++)
            phi[m++] = xs[i];
        return;
    }
    for (int64_t i = 0; i < N; i++)
        phi[m++] = xs[i];
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = i; j < N; j++)
            phi[m++] = xs[i] * xs[j];
}

/* Solves the SPD system M z = v (L x L, row-major, overwritten) by Cholesky; 0 on success. */
static int chol_solve(double *M, double *v, int64_t L)
{
    for (int64_t j = 0; j < L; j++) {
        double d = M[j * L + j];
        for (int64_t k = 0; k < j; k++)
            d -= M[j * L + k] * M[j * L + k];
        if (!(d > 0.0))
            return -1;
        d = sqrt(d);
        M[j * L + j] = d;
        for (int64_t i = j + 1; i < L; i++) {
            double s = M[i * L + j];
            for (int64_t k = 0; k < j; k++)
                s -= M[i * L + k] * M[j * L + k];
            M[i * L + j] = s / d;
        }
    }
    for (int64_t i = 0; i < L; i++) {
        double s = v[i];
        for (int64_t k = 0; k < i; k++)
            s -= M[i * L + k] * v[k];
        v[i] = s / M[i * L + i];
    }
    for (int64_t i = L - 1; i >= 0; i--) {
        double s = v[i];
        for (int64_t k = i + 1; k < L; k++)
            s -= M[k * L + i] * v[k];
        v[i] = s / M[i * L + i];
    }
    return 0;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

cs_err cs_lspe_run(cs_ctx *ctx, const cs_lspe_config *c, int64_t N, const double *u,
                   const double *alpha, int64_t steps, uint64_t seed, uint64_t run, double *reward,
                   double *active_mean)
{
    if (N < 1 || steps < 0 || !(c->kappa > 0.0) || !(c->delta > 0.0) || !(c->epsilon > 0.0) ||
        !(c->a_period >= 1.0) || !(c->b_period >= 1.0) || (c->features != 1 && c->features != 2))
        return cs_fail(ctx, CS_ERR_ARG, "learning scheme: bad parameters");
    double s = 0.0;
    for (int64_t i = 0; i < N; i++) {
        if (!(u[i] > 0.0) || !(alpha[i] > 0.0 && alpha[i] < 1.0))
            return cs_fail(ctx, CS_ERR_ARG, "learning scheme: arm %lld has u %g, alpha %g",
                           (long long)i, u[i], alpha[i]);
        s = fmax(s, u[i] / (1.0 - alpha[i]));
    }
    const int64_t L = n_features(c->features, N);
    const size_t Lz = (size_t)L;
    double *buf = NULL;
    /* x, y, xs, ys, f, nu | q (3N) | phi, phi1, r, bvec, tmp, tmp2 | B, Binv, A, M */
    const size_t need = 6 * (size_t)N + 3 * (size_t)N + 6 * Lz + 4 * Lz * Lz;
    cs_err rc = cs_alloc(ctx, &buf, need, sizeof *buf, "learning-scheme state");
    if (rc != CS_OK)
        return rc;
    memset(buf, 0, need * sizeof *buf);
    double *x = buf, *y = x + N, *xs = y + N, *ys = xs + N, *f = ys + N, *nu = f + N;
    double *q = nu + N;
    double *phi = q + 3 * N, *phi1 = phi + L, *r = phi1 + L, *bv = r + L, *t1 = bv + L,
           *t2 = t1 + L;
    double *B = t2 + L, *Binv = B + L * L, *A = Binv + L * L, *M = A + L * L;
    for (int64_t i = 0; i < N; i++) {
        x[i] = u[i];
        q[3 * i] = 0.5 * (u[i] + u[i] / (1.0 - alpha[i])) / s;
    }
    for (int64_t j = 0; j < L; j++) {
        B[j * L + j] = c->epsilon;
        Binv[j * L + j] = 1.0 / c->epsilon;
    }
    double eta = 0.0, active = 0.0;
    cs_rng rg;
    cs_rng_init(&rg, seed, CS_RNG_BANDIT, 0x15e0, run);
    for (int64_t n = 0; n < steps; n++) {
        double xsum = 0.0;
        for (int64_t i = 0; i < N; i++) {
            xs[i] = x[i] / s;
            xsum += xs[i];
        }
        /* activity decisions (Sec. III relaxation) and the tick's reward */
        double R = 0.0;
        for (int64_t i = 0; i < N; i++) {
            const double S = xsum - xs[i];
            const double lo = u[i] / s, hi = u[i] / (1.0 - alpha[i]) / s;
            const double T = clampd(q[3 * i] + q[3 * i + 1] * S + q[3 * i + 2] * S * S, lo, hi);
            const double z = c->kappa * (x[i] - T * s - 0.5);
            f[i] = 1.0 / (1.0 + exp(-z));
            nu[i] = cs_rng_uniform(&rg) < f[i] ? 1.0 : 0.0;
            R += x[i] * nu[i];
            active += nu[i];
            y[i] = nu[i] > 0.0 ? u[i] : alpha[i] * x[i] + u[i];
            ys[i] = y[i] / s;
        }
        if (reward)
            reward[n] = R;
        features(c->features, N, xs, phi);
        features(c->features, N, ys, phi1);
        const double bn = c->b_c / pow(ceil((double)(n + 1) / c->b_period), 2.0 / 3.0);
        const double an = c->a_c / ceil((double)(n + 1) / c->a_period);
        /* fast time scale: LSPE(0) statistics */
        eta += bn * (R / s - eta);
        for (int64_t i = 0; i < L; i++) {
            for (int64_t j = 0; j < L; j++) {
                B[i * L + j] += bn * (phi[i] * phi[j] - B[i * L + j]);
                A[i * L + j] += bn * (phi[i] * (phi1[j] - phi[j]) - A[i * L + j]);
            }
            bv[i] += bn * (phi[i] * (R / s - eta) - bv[i]);
        }
        if (c->inverse == CS_LSPE_SHERMAN_MORRISON) {
            /* B_n = (1-b) B_{n-1} + b phi phi^T: inverse by Sherman-Morrison */
            const double g = bn / (1.0 - bn);
            double den = 1.0;
            for (int64_t i = 0; i < L; i++) {
                double v = 0.0;
                for (int64_t j = 0; j < L; j++)
                    v += Binv[i * L + j] * phi[j];
                t1[i] = v; /* Binv phi (Binv symmetric) */
                den += g * phi[i] * v;
            }
            for (int64_t i = 0; i < L; i++)
                for (int64_t j = 0; j < L; j++)
                    Binv[i * L + j] = (Binv[i * L + j] - g * t1[i] * t1[j] / den) / (1.0 - bn);
        }
        /* r += gamma Binv (A r + b) */
        for (int64_t i = 0; i < L; i++) {
            double v = bv[i];
            for (int64_t j = 0; j < L; j++)
                v += A[i * L + j] * r[j];
            t1[i] = v;
        }
        int ok = 1;
        if (c->inverse == CS_LSPE_SHERMAN_MORRISON) {
            for (int64_t i = 0; i < L; i++) {
                double v = 0.0;
                for (int64_t j = 0; j < L; j++)
                    v += Binv[i * L + j] * t1[j];
                t2[i] = v;
            }
        } else {
            for (int64_t i = 0; i < L; i++) {
                double v = 0.0;
                for (int64_t k = 0; k < L; k++)
                    v += B[k * L + i] * t1[k];
                t2[i] = v;
                for (int64_t j = 0; j < L; j++) {
                    double m = i == j ? c->delta : 0.0;
                    for (int64_t k = 0; k < L; k++)
                        m += B[k * L + i] * B[k * L + j];
                    M[i * L + j] = m;
                }
            }
            ok = chol_solve(M, t2, L) == 0;
        }
        if (ok)
            for (int64_t i = 0; i < L; i++)
                if (isfinite(t2[i]))
                    r[i] += c->gamma * t2[i];
        /* slow time scale: thresholds by the likelihood-ratio gradient (7)-(9) */
        double V = 0.0;
        for (int64_t j = 0; j < L; j++)
            V += r[j] * phi1[j];
        for (int64_t i = 0; i < N; i++) {
            const double S = xsum - xs[i];
            /* d log p_i / dT_raw: active -kappa (1 - f), passive kappa f; T_raw = s T */
            const double g = (nu[i] > 0.0 ? -c->kappa * (1.0 - f[i]) : c->kappa * f[i]) * s;
            const double step = an * g * V;
            if (!isfinite(step))
                continue;
            const double lo = u[i] / s, hi = u[i] / (1.0 - alpha[i]) / s;
            q[3 * i] = clampd(q[3 * i] + step, lo, hi);
            q[3 * i + 1] = clampd(q[3 * i + 1] + step * S, -10.0, 10.0);
            q[3 * i + 2] = clampd(q[3 * i + 2] + step * S * S, -10.0, 10.0);
        }
        memcpy(x, y, (size_t)N * sizeof *x);
    }
    if (active_mean)
        *active_mean = steps > 0 ? active / (double)steps : 0.0;
    free(buf);
    return CS_OK;
}
