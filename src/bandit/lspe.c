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
 *
 * As a registered bandit policy ("learn", refresh.policy = bandit-whittle-learn): the learning
 * scheme on the groups (u_k from the sync, made at the first sync with some u_k > 0, u updated
 * at later syncs); a slot's crawls are dealt over the groups it draws active, by decreasing
 * activity probability; a slot with no active group crawls nothing.
 */
#include "bandit/bandit_impl.h"

#include <math.h>
#include <stdio.h>
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

struct cs_lspe {
    cs_lspe_config c;
    int64_t N, L;
    double s; /* state unit: max_i u_i / (1 - alpha_i) at creation */
    double *u, *alpha;
    double *buf; /* x, y, xs, ys, f, nu | q (3N) | phi, phi1, r, bvec, tmp, tmp2 | B, Binv, A, M */
    size_t need;
    double *x, *y, *xs, *ys, *f, *nu, *q, *phi, *phi1, *r, *bv, *t1, *t2, *B, *Binv, *A, *M;
    double eta, active;
    int64_t n;
    cs_rng rg;
};

void cs_lspe_destroy(cs_lspe **p)
{
    if (p == NULL || *p == NULL)
        return;
    free((*p)->buf);
    free((*p)->u);
    free(*p);
    *p = NULL;
}

cs_err cs_lspe_create(cs_ctx *ctx, const cs_lspe_config *c, int64_t N, const double *u,
                      const double *alpha, uint64_t seed, uint64_t run, cs_lspe **out)
{
    *out = NULL;
    if (N < 1 || !(c->kappa > 0.0) || !(c->delta > 0.0) || !(c->epsilon > 0.0) ||
        !(c->a_period >= 1.0) || !(c->b_period >= 1.0) || (c->features != 1 && c->features != 2))
        return cs_fail(ctx, CS_ERR_ARG, "learning scheme: bad parameters");
    double s = 0.0;
    for (int64_t i = 0; i < N; i++) {
        if (!(u[i] > 0.0) || !(alpha[i] > 0.0 && alpha[i] < 1.0))
            return cs_fail(ctx, CS_ERR_ARG, "learning scheme: arm %lld has u %g, alpha %g",
                           (long long)i, u[i], alpha[i]);
        s = fmax(s, u[i] / (1.0 - alpha[i]));
    }
    cs_err rc = CS_OK;
    cs_lspe *l = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &l, 1, sizeof *l, "learning scheme"));
    l->c = *c;
    l->N = N;
    l->s = s;
    const int64_t L = l->L = n_features(c->features, N);
    const size_t Lz = (size_t)L;
    l->need = 6 * (size_t)N + 3 * (size_t)N + 6 * Lz + 4 * Lz * Lz;
    CS_TRY(ctx, cs_calloc(ctx, &l->buf, l->need, sizeof *l->buf, "learning-scheme state"));
    CS_TRY(ctx, cs_alloc(ctx, &l->u, 2 * (size_t)N, sizeof *l->u, "learning-scheme arms"));
    l->alpha = l->u + N;
    memcpy(l->u, u, (size_t)N * sizeof *u);
    memcpy(l->alpha, alpha, (size_t)N * sizeof *alpha);
    double *b = l->buf;
    l->x = b;
    l->y = l->x + N;
    l->xs = l->y + N;
    l->ys = l->xs + N;
    l->f = l->ys + N;
    l->nu = l->f + N;
    l->q = l->nu + N;
    l->phi = l->q + 3 * N;
    l->phi1 = l->phi + L;
    l->r = l->phi1 + L;
    l->bv = l->r + L;
    l->t1 = l->bv + L;
    l->t2 = l->t1 + L;
    l->B = l->t2 + L;
    l->Binv = l->B + L * L;
    l->A = l->Binv + L * L;
    l->M = l->A + L * L;
    for (int64_t i = 0; i < N; i++) {
        l->x[i] = u[i];
        l->q[3 * i] = 0.5 * (u[i] + u[i] / (1.0 - alpha[i])) / s;
    }
    for (int64_t j = 0; j < L; j++) {
        l->B[j * L + j] = c->epsilon;
        l->Binv[j * L + j] = 1.0 / c->epsilon;
    }
    cs_rng_init(&l->rg, seed, CS_RNG_BANDIT, CS_BANDIT_ID_LSPE, run);
    *out = l;
    return CS_OK;
fail:
    cs_lspe_destroy(&l);
    return rc;
}

void cs_lspe_set_u(cs_lspe *l, const double *u)
{
    for (int64_t i = 0; i < l->N; i++)
        if (u[i] > 0.0 && isfinite(u[i]))
            l->u[i] = u[i];
}

const double *cs_lspe_state(const cs_lspe *l)
{
    return l->x;
}

const double *cs_lspe_activity(const cs_lspe *l)
{
    return l->f;
}

/* The tick's activity decisions (Sec. III relaxation) from the thresholds, into l->nu (and
 * active[] unless NULL), the next state into l->y; *xsum: the sum of the scaled state. Returns
 * the tick's reward. */
static double lspe_decide(cs_lspe *l, uint8_t *active, double *xsum)
{
    const cs_lspe_config *c = &l->c;
    const int64_t N = l->N;
    const double s = l->s;
    const double *u = l->u, *alpha = l->alpha, *x = l->x, *q = l->q;
    double *y = l->y, *xs = l->xs, *ys = l->ys, *f = l->f, *nu = l->nu;
    *xsum = 0.0;
    for (int64_t i = 0; i < N; i++) {
        xs[i] = x[i] / s;
        *xsum += xs[i];
    }
    double R = 0.0;
    for (int64_t i = 0; i < N; i++) {
        const double S = *xsum - xs[i];
        const double lo = u[i] / s, hi = u[i] / (1.0 - alpha[i]) / s;
        const double T = clampd(q[3 * i] + q[3 * i + 1] * S + q[3 * i + 2] * S * S, lo, hi);
        const double z = c->kappa * (x[i] - T * s - 0.5);
        f[i] = 1.0 / (1.0 + exp(-z));
        nu[i] = cs_rng_uniform(&l->rg) < f[i] ? 1.0 : 0.0;
        if (active != NULL)
            active[i] = nu[i] > 0.0;
        R += x[i] * nu[i];
        l->active += nu[i];
        y[i] = nu[i] > 0.0 ? u[i] : alpha[i] * x[i] + u[i];
        ys[i] = y[i] / s;
    }
    return R;
}

/* The fast time scale's LSPE(0) statistics with step bn and the tick's reward R: the average
 * reward, B, A and b, and B's inverse by Sherman-Morrison when that is the method. */
static void lspe_statistics(cs_lspe *l, double R, double bn)
{
    const int64_t L = l->L;
    const double s = l->s;
    const double *phi = l->phi, *phi1 = l->phi1;
    double *B = l->B, *A = l->A, *bv = l->bv, *Binv = l->Binv, *t1 = l->t1;
    l->eta += bn * (R / s - l->eta);
    for (int64_t i = 0; i < L; i++) {
        for (int64_t j = 0; j < L; j++) {
            B[i * L + j] += bn * (phi[i] * phi[j] - B[i * L + j]);
            A[i * L + j] += bn * (phi[i] * (phi1[j] - phi[j]) - A[i * L + j]);
        }
        bv[i] += bn * (phi[i] * (R / s - l->eta) - bv[i]);
    }
    if (l->c.inverse != CS_LSPE_SHERMAN_MORRISON)
        return;
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

/* The LSPE(0) step of the weights: r += gamma Binv (A r + b), Binv by Sherman-Morrison or a
 * regularised least-squares solve (B^T B + delta I) by Cholesky; skipped when that fails. */
static void lspe_weights(cs_lspe *l)
{
    const cs_lspe_config *c = &l->c;
    const int64_t L = l->L;
    const double *B = l->B, *Binv = l->Binv, *A = l->A, *bv = l->bv;
    double *r = l->r, *t1 = l->t1, *t2 = l->t2, *M = l->M;
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
}

/* The slow time scale, step an: the thresholds by the likelihood-ratio gradient (7)-(9). */
static void lspe_thresholds(cs_lspe *l, double xsum, double an)
{
    const cs_lspe_config *c = &l->c;
    const int64_t N = l->N, L = l->L;
    const double s = l->s;
    const double *u = l->u, *alpha = l->alpha, *xs = l->xs, *f = l->f, *nu = l->nu;
    const double *r = l->r, *phi1 = l->phi1;
    double *q = l->q;
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
}

double cs_lspe_step(cs_lspe *l, uint8_t *active)
{
    const cs_lspe_config *c = &l->c;
    const int64_t n = l->n;
    double xsum;
    const double R = lspe_decide(l, active, &xsum);
    features(c->features, l->N, l->xs, l->phi);
    features(c->features, l->N, l->ys, l->phi1);
    const double bn = c->b_c / pow(ceil((double)(n + 1) / c->b_period), 2.0 / 3.0);
    const double an = c->a_c / ceil((double)(n + 1) / c->a_period);
    lspe_statistics(l, R, bn);
    lspe_weights(l);
    lspe_thresholds(l, xsum, an);
    memcpy(l->x, l->y, (size_t)l->N * sizeof *l->x);
    l->n++;
    return R;
}

cs_err cs_lspe_save(cs_ctx *ctx, const cs_lspe *l, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    const int64_t si[3] = {l->N, l->L, l->n};
    const double sd[3] = {l->s, l->eta, l->active};
    snprintf(nm, sizeof nm, "%s/state", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_I64, 3, si));
    snprintf(nm, sizeof nm, "%s/values", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F64, 3, sd));
    snprintf(nm, sizeof nm, "%s/arms", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F64, 2 * l->N, l->u));
    snprintf(nm, sizeof nm, "%s/buf", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F64, (int64_t)l->need, l->buf));
    snprintf(nm, sizeof nm, "%s/rng", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_BYTES, (int64_t)sizeof l->rg, &l->rg));
fail:
    return rc;
}

cs_err cs_lspe_load(cs_ctx *ctx, cs_lspe *l, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    int64_t si[3];
    double sd[3];
    snprintf(nm, sizeof nm, "%s/state", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_I64, 3, si));
    if (si[0] != l->N || si[1] != l->L)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: learning scheme %s of another size",
                     cs_ckpt_path(ck), prefix);
    CS_TRY_AGREE(ctx, rc);
    l->n = si[2];
    snprintf(nm, sizeof nm, "%s/values", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F64, 3, sd));
    l->s = sd[0];
    l->eta = sd[1];
    l->active = sd[2];
    snprintf(nm, sizeof nm, "%s/arms", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F64, 2 * l->N, l->u));
    snprintf(nm, sizeof nm, "%s/buf", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F64, (int64_t)l->need, l->buf));
    snprintf(nm, sizeof nm, "%s/rng", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_BYTES, (int64_t)sizeof l->rg, &l->rg));
fail:
    return rc;
}

cs_err cs_lspe_run(cs_ctx *ctx, const cs_lspe_config *c, int64_t N, const double *u,
                   const double *alpha, int64_t steps, uint64_t seed, uint64_t run, double *reward,
                   double *active_mean)
{
    if (steps < 0)
        return cs_fail(ctx, CS_ERR_ARG, "learning scheme: bad parameters");
    cs_lspe *l = NULL;
    cs_err rc = cs_lspe_create(ctx, c, N, u, alpha, seed, run, &l);
    if (rc != CS_OK)
        return rc;
    for (int64_t n = 0; n < steps; n++) {
        const double R = cs_lspe_step(l, NULL);
        if (reward)
            reward[n] = R;
    }
    if (active_mean)
        *active_mean = steps > 0 ? l->active / (double)steps : 0.0;
    cs_lspe_destroy(&l);
    return CS_OK;
}

/* ---- as a registered bandit policy ("learn") ------------------------------------------------- */

static cs_err learn_create(cs_ctx *ctx, cs_bandit *b)
{
    return cs_calloc(ctx, &b->act, (size_t)b->K, 1, "learning scheme");
}

static void learn_destroy(cs_bandit *b)
{
    cs_lspe_destroy(&b->lspe);
    free(b->act);
    b->act = NULL;
}

/* The arms need u > 0: a group without cached pages gets a tiny one (and is not eligible). */
static cs_err learn_sync(cs_ctx *ctx, cs_bandit *b)
{
    double umax = 0.0;
    for (int64_t k = 0; k < b->K; k++)
        umax = b->w[k] > umax ? b->w[k] : umax;
    if (!(umax > 0.0))
        return CS_OK;
    for (int64_t k = 0; k < b->K; k++)
        b->w[k] = b->w[k] > 1e-9 * umax ? b->w[k] : 1e-9 * umax;
    if (b->lspe != NULL) {
        cs_lspe_set_u(b->lspe, b->w);
        return CS_OK;
    }
    double *al = NULL;
    cs_err rc = cs_alloc(ctx, &al, (size_t)b->K, sizeof *al, "learning scheme");
    for (int64_t k = 0; rc == CS_OK && k < b->K; k++)
        al[k] = b->alpha;
    if (rc == CS_OK)
        rc = cs_lspe_create(ctx, &b->s.lspe, b->K, b->w, al, b->s.seed, b->s.run, &b->lspe);
    free(al);
    return rc;
}

static cs_err learn_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E,
                           int64_t n)
{
    (void)g;
    cs_err rc = CS_OK;
    if (b->lspe == NULL)
        return CS_OK;
    cs_lspe_step(b->lspe, b->act);
    const double *fa = cs_lspe_activity(b->lspe);
    int64_t A = 0;
    for (int64_t e = 0; e < E; e++)
        if (b->act[elig[e]])
            elig[A++] = elig[e];
    bandit_sort_desc(elig, A, fa, b->ord);
    for (int64_t j = 0; j < n && A > 0; j++)
        CS_TRY(ctx, bandit_pick(ctx, b, elig[j % A]));
fail:
    return rc;
}

static cs_err learn_save(cs_ctx *ctx, const cs_bandit *b, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    const int64_t has = b->lspe != NULL;
    snprintf(nm, sizeof nm, "%s/has_lspe", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_I64, 1, &has));
    snprintf(nm, sizeof nm, "%s/lspe", prefix);
    if (has)
        CS_TRY(ctx, cs_lspe_save(ctx, b->lspe, ck, nm));
fail:
    return rc;
}

static cs_err learn_load(cs_ctx *ctx, cs_bandit *b, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    int64_t has = 0;
    snprintf(nm, sizeof nm, "%s/has_lspe", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_I64, 1, &has));
    if (!has)
        return CS_OK;
    /* created with any valid arms, then overwritten by the saved state */
    double *al = NULL;
    rc = cs_alloc(ctx, &al, 2 * (size_t)b->K, sizeof *al, "learning scheme");
    if (rc == CS_OK) {
        double *uu = al + b->K;
        for (int64_t k = 0; k < b->K; k++) {
            al[k] = 0.5;
            uu[k] = 1.0;
        }
        rc = cs_lspe_create(ctx, &b->s.lspe, b->K, uu, al, b->s.seed, b->s.run, &b->lspe);
    }
    free(al);
    CS_TRY_AGREE(ctx, rc);
    snprintf(nm, sizeof nm, "%s/lspe", prefix);
    CS_TRY(ctx, cs_lspe_load(ctx, b->lspe, ck, nm));
fail:
    return rc;
}

/* The ephemeral experiment: the scheme itself (cs_lspe_run), its reward sum_i x_i nu_i. */
static cs_err learn_ephemeral(cs_ctx *ctx, const cs_ephemeral_setup *s, int64_t arm,
                              int64_t horizon, uint64_t seed, uint64_t run, double *reward)
{
    (void)arm;
    return cs_lspe_run(ctx, &s->lspe, s->K, s->u, s->alpha, horizon, seed, run, reward, NULL);
}

const cs_bandit_ops cs_bandit_learn_ops = {
    .stream = 5,
    .input = CS_BANDIT_IN_INDEX,
    .max_groups = 64,
    .max_why = "learns a value function with K + K (K + 1) / 2 quadratic features",
    .create = learn_create,
    .destroy = learn_destroy,
    .sync = learn_sync,
    .choose = learn_choose,
    .save = learn_save,
    .load = learn_load,
    .ephemeral = learn_ephemeral};
