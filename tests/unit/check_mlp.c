/*
 * check_mlp: unit tests of the TRES MLP and the DDQN step (serial, forked, no MPI_Init).
 *
 * The forward pass is checked against a naive triple loop in double (any batch size, including
 * several OpenMP chunks and a row stride wider than d), the backward pass against central finite
 * differences of that double reference, the Adam step and both clipping modes against hand
 * computations from the same gradient, learning y = x0 - x1 to a low loss, the flatten /
 * unflatten / copy round trips, independence of the thread count, and the DDQN target (Eq. 5) on
 * hand-set networks where DQN's max over the target network would give a different answer.
 */
#include "crawlsim/core.h"
#include "crawlsim/ddqn.h"
#include "crawlsim/mlp.h"
#include "crawlsim/replay.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static cs_mlp *make(int d, int h1, int h2, uint64_t seed)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_mlp_config c = {d, h1, h2, 0.1f};
    cs_mlp *m = NULL;
    ck_assert_int_eq(cs_mlp_create(&ctx, &c, &m), CS_OK);
    ck_assert_ptr_nonnull(m);
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_TEST, 1, 0);
    cs_mlp_init_weights(m, CS_MLP_INIT_HE, &r);
    return m;
}

static void random_rows(float *x, int64_t n, int64_t ldx, int d, uint64_t seed)
{
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_TEST, 2, 0);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < ldx; j++)
            x[i * ldx + j] = j < d ? (float)(2.0 * cs_rng_uniform(&r) - 1.0) : NAN;
}

/* The reference network in double, straight from the documented layout. */
static double ref_q(const cs_mlp_config *c, const double *th, const float *x)
{
    cs_mlp_layout L;
    cs_mlp_layout_of(c, &L);
    double a1[512], a2[512];
    for (int j = 0; j < c->h1; j++) {
        double z = th[L.b1 + j];
        for (int i = 0; i < c->d_in; i++)
            z += (double)x[i] * th[L.w1 + i * c->h1 + j];
        a1[j] = z > 0 ? z : 0.1 * z;
    }
    for (int j = 0; j < c->h2; j++) {
        double z = th[L.b2 + j];
        for (int i = 0; i < c->h1; i++)
            z += a1[i] * th[L.w2 + i * c->h2 + j];
        a2[j] = z > 0 ? z : 0.1 * z;
    }
    double q = th[L.b3];
    for (int j = 0; j < c->h2; j++)
        q += a2[j] * th[L.w3 + j];
    return q;
}

static double ref_loss(const cs_mlp_config *c, const double *th, const float *x, int64_t ldx,
                       int64_t n, const float *y)
{
    double l = 0;
    for (int64_t i = 0; i < n; i++) {
        const double e = ref_q(c, th, x + i * ldx) - (double)y[i];
        l += e * e;
    }
    return l / (double)n;
}

static double *params_double(const cs_mlp *m)
{
    const int64_t np = cs_mlp_nparams(m);
    double *th = malloc((size_t)np * sizeof *th);
    for (int64_t i = 0; i < np; i++)
        th[i] = (double)cs_mlp_params_const(m)[i];
    return th;
}

START_TEST(test_layout_and_defaults)
{
    cs_mlp_config c;
    cs_mlp_config_default(&c);
    ck_assert_int_eq(c.d_in, 7);
    ck_assert_int_eq(c.h1, 30);
    ck_assert_int_eq(c.h2, 15);
    cs_mlp_layout L;
    cs_mlp_layout_of(&c, &L);
    ck_assert_int_eq(L.n, 7 * 30 + 30 + 30 * 15 + 15 + 15 + 1);
    ck_assert_int_eq(L.b3, L.n - 1);
    cs_mlp_opt o;
    cs_mlp_opt_default(&o);
    ck_assert(o.lr == 1e-3f && o.beta1 == 0.9f && o.beta2 == 0.999f && o.eps == 1e-8f);
    ck_assert(o.clip_mode == CS_MLP_CLIP_NORM && o.clip == 1.0f);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_mlp *m = NULL;
    cs_mlp_config bad = {0, 30, 15, 0.1f};
    ck_assert_int_eq(cs_mlp_create(&ctx, &bad, &m), CS_ERR_ARG);
    ck_assert_ptr_null(m);
    cs_mlp_destroy(&m);
}
END_TEST

/* Forward pass against the double triple loop: batch sizes around the chunk size, stride > d. */
START_TEST(test_forward_matches_naive)
{
    const int shapes[3][3] = {{7, 30, 15}, {5, 64, 32}, {16, 3, 2}};
    const int64_t sizes[] = {1, 2, 255, 256, 257, 1000};
    for (int s = 0; s < 3; s++) {
        cs_mlp *m = make(shapes[s][0], shapes[s][1], shapes[s][2], 10 + (uint64_t)s);
        const cs_mlp_config *c = cs_mlp_config_of(m);
        double *th = params_double(m);
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            const int64_t n = sizes[k], ldx = c->d_in + 3;
            float *x = malloc((size_t)(n * ldx) * sizeof *x), *q = malloc((size_t)n * sizeof *q);
            random_rows(x, n, ldx, c->d_in, 100 + (uint64_t)k);
            ck_assert_int_eq(cs_mlp_eval(&ctx, m, x, ldx, n, q), CS_OK);
            int bad = 0;
            double worst = 0;
            for (int64_t i = 0; i < n; i++) {
                const double want = ref_q(c, th, x + i * ldx);
                /* float accumulation over <= 64 terms of magnitude <= ~3: ~1e-5 absolute */
                const double err = fabs((double)q[i] - want) / (1.0 + fabs(want));
                worst = err > worst ? err : worst;
                bad += !(err < 1e-4);
            }
            ck_assert_msg(bad == 0, "shape %d n %lld: %d of %lld off (worst %g)", s, (long long)n,
                          bad, (long long)n, worst);
            free(x);
            free(q);
        }
        free(th);
        cs_mlp_destroy(&m);
        ck_assert_ptr_null(m);
    }
}
END_TEST

/* Backward pass against central differences of the double reference loss. */
START_TEST(test_backward_matches_finite_differences)
{
    const int shapes[2][3] = {{7, 30, 15}, {4, 6, 5}};
    for (int s = 0; s < 2; s++) {
        cs_mlp *m = make(shapes[s][0], shapes[s][1], shapes[s][2], 20 + (uint64_t)s);
        const cs_mlp_config *c = cs_mlp_config_of(m);
        const int64_t n = 13, ldx = c->d_in + 1, np = cs_mlp_nparams(m);
        float x[13 * 17], y[13];
        random_rows(x, n, ldx, c->d_in, 30 + (uint64_t)s);
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i * ldx] * 2.0f - 0.5f;
        double loss;
        ck_assert_int_eq(cs_mlp_loss_grad(&ctx, m, x, ldx, n, y, &loss), CS_OK);
        double *th = params_double(m);
        ck_assert(fabs(loss - ref_loss(c, th, x, ldx, n, y)) < 1e-5 * (1 + loss));
        const float *g = cs_mlp_grad(m);
        const double h = 1e-4;
        double gmax = 0;
        double *fd = malloc((size_t)np * sizeof *fd);
        for (int64_t p = 0; p < np; p++) {
            const double keep = th[p];
            th[p] = keep + h;
            const double lp = ref_loss(c, th, x, ldx, n, y);
            th[p] = keep - h;
            const double lm = ref_loss(c, th, x, ldx, n, y);
            th[p] = keep;
            fd[p] = (lp - lm) / (2 * h);
            gmax = fabs(fd[p]) > gmax ? fabs(fd[p]) : gmax;
        }
        int bad = 0, checked = 0;
        double worst = 0;
        for (int64_t p = 0; p < np; p++) {
            const double a = (double)g[p], b = fd[p];
            const double scale = fmax(fabs(a), fabs(b));
            /* relative error 1e-2; gradients below 1e-4 of the largest are compared absolutely
             * (float rounding of the backward pass is ~1e-7 of gmax there) */
            const double tol = scale > 1e-4 * gmax ? 1e-2 * scale : 1e-6 * gmax;
            const double err = fabs(a - b);
            if (scale > 1e-4 * gmax) {
                checked++;
                worst = err / scale > worst ? err / scale : worst;
            }
            bad += !(err <= tol);
        }
        ck_assert_msg(bad == 0, "shape %d: %d of %lld gradients off (worst rel %g)", s, bad,
                      (long long)np, worst);
        ck_assert_msg(checked > np / 2, "only %d of %lld gradients were large enough to test",
                      checked, (long long)np);
        free(fd);
        free(th);
        cs_mlp_destroy(&m);
    }
}
END_TEST

/* Two Adam steps against the update written out in double from the recorded gradients. */
START_TEST(test_adam_step_by_hand)
{
    cs_mlp *m = make(7, 30, 15, 40);
    const int64_t np = cs_mlp_nparams(m), n = 20;
    float x[20 * 7], y[20];
    random_rows(x, n, 7, 7, 41);
    for (int i = 0; i < n; i++)
        y[i] = (float)i / 10.0f;
    cs_mlp_opt o;
    cs_mlp_opt_default(&o);
    o.lr = 0.01f;
    double *th = params_double(m), *mm = calloc((size_t)np, sizeof *mm),
           *vv = calloc((size_t)np, sizeof *vv);
    for (int step = 1; step <= 2; step++) {
        double loss;
        ck_assert_int_eq(cs_mlp_loss_grad(&ctx, m, x + (step - 1) * 7, 7, n - 1, y, &loss), CS_OK);
        const float *g = cs_mlp_grad(m);
        for (int64_t p = 0; p < np; p++) {
            mm[p] = 0.9 * mm[p] + 0.1 * (double)g[p];
            vv[p] = 0.999 * vv[p] + 0.001 * (double)g[p] * (double)g[p];
            const double mh = mm[p] / (1 - pow(0.9, step)), vh = vv[p] / (1 - pow(0.999, step));
            th[p] -= 0.01 * mh / (sqrt(vh) + 1e-8);
        }
        cs_mlp_adam(m, &o);
        ck_assert_int_eq(cs_mlp_adam_steps(m), step);
        int bad = 0;
        for (int64_t p = 0; p < np; p++)
            bad += !(fabs((double)cs_mlp_params_const(m)[p] - th[p]) <= 1e-6 + 1e-5 * fabs(th[p]));
        ck_assert_msg(bad == 0, "step %d: %d parameters differ from the hand-computed update", step,
                      bad);
    }
    /* the first step moves every parameter with a nonzero gradient by ~lr (sign of g) */
    free(th);
    free(mm);
    free(vv);
    cs_mlp_destroy(&m);
}
END_TEST

START_TEST(test_clipping)
{
    cs_mlp *m = make(7, 30, 15, 50);
    const int64_t np = cs_mlp_nparams(m), n = 30;
    float x[30 * 7], y[30];
    random_rows(x, n, 7, 7, 51);
    for (int i = 0; i < n; i++)
        y[i] = 50.0f; /* far from Q: a large gradient */
    double loss;
    float *g0 = malloc((size_t)np * sizeof *g0);
    ck_assert_int_eq(cs_mlp_loss_grad(&ctx, m, x, 7, n, y, &loss), CS_OK);
    memcpy(g0, cs_mlp_grad(m), (size_t)np * sizeof *g0);
    double ss = 0;
    for (int64_t p = 0; p < np; p++)
        ss += (double)g0[p] * g0[p];
    const double norm = sqrt(ss);
    ck_assert_msg(norm > 10, "test needs a large gradient, got %g", norm);

    cs_mlp_opt o;
    cs_mlp_opt_default(&o);
    /* norm mode, clip below the norm: direction kept, norm = clip */
    ck_assert(fabs(cs_mlp_clip(m, &o) - norm) < 1e-9 * norm);
    double ss2 = 0;
    int bad = 0;
    for (int64_t p = 0; p < np; p++) {
        const double gp = (double)cs_mlp_grad(m)[p];
        ss2 += gp * gp;
        bad += !(fabs(gp - (double)g0[p] / norm) <= 1e-6 * fabs((double)g0[p] / norm) + 1e-12);
    }
    ck_assert_int_eq(bad, 0);
    ck_assert(fabs(sqrt(ss2) - 1.0) < 1e-5);
    /* norm mode, clip above the norm: unchanged */
    ck_assert_int_eq(cs_mlp_loss_grad(&ctx, m, x, 7, n, y, &loss), CS_OK);
    o.clip = (float)(2 * norm);
    cs_mlp_clip(m, &o);
    ck_assert_int_eq(memcmp(cs_mlp_grad(m), g0, (size_t)np * sizeof *g0), 0);
    /* value mode: each component clamped to [-c, c], the others untouched */
    o.clip_mode = CS_MLP_CLIP_VALUE;
    o.clip = 1.0f;
    cs_mlp_clip(m, &o);
    int clamped = 0;
    for (int64_t p = 0; p < np; p++) {
        const float want = g0[p] > 1.0f ? 1.0f : g0[p] < -1.0f ? -1.0f : g0[p];
        clamped += want != g0[p];
        bad += cs_mlp_grad(m)[p] != want;
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(clamped > 0, "test needs components above the clip value");
    free(g0);
    cs_mlp_destroy(&m);
}
END_TEST

/* Adam with clipping learns y = x0 - x1 on [-1, 1]^7 to a small fraction of var(y) = 2/3. */
START_TEST(test_learns_difference)
{
    cs_mlp *m = make(7, 30, 15, 60);
    cs_mlp_opt o;
    cs_mlp_opt_default(&o);
    const int64_t B = 60, NT = 2000;
    float xb[60 * 7], yb[60], *xt = malloc(NT * 7 * sizeof *xt), *yt = malloc(NT * sizeof *yt),
                              *qt = malloc(NT * sizeof *qt);
    random_rows(xt, NT, 7, 7, 61);
    for (int64_t i = 0; i < NT; i++)
        yt[i] = xt[i * 7] - xt[i * 7 + 1];
    double first = 0, loss = 0;
    for (int step = 0; step < 4000; step++) {
        random_rows(xb, B, 7, 7, 1000 + (uint64_t)step);
        for (int64_t i = 0; i < B; i++)
            yb[i] = xb[i * 7] - xb[i * 7 + 1];
        ck_assert_int_eq(cs_mlp_train_step(&ctx, m, &o, xb, 7, B, yb, &loss), CS_OK);
        if (step == 0)
            first = loss;
    }
    ck_assert_int_eq(cs_mlp_eval(&ctx, m, xt, 7, NT, qt), CS_OK);
    double test = 0;
    for (int64_t i = 0; i < NT; i++)
        test += ((double)qt[i] - yt[i]) * ((double)qt[i] - yt[i]);
    test /= (double)NT;
    ck_assert_msg(first > 0.1, "initial loss %g: the start is already good", first);
    ck_assert_msg(test < 0.005, "test MSE %g after 4000 steps (initial %g, var(y) 0.667)", test,
                  first);
    free(xt);
    free(yt);
    free(qt);
    cs_mlp_destroy(&m);
}
END_TEST

START_TEST(test_flatten_roundtrip_and_copy)
{
    cs_mlp *a = make(7, 30, 15, 70), *b = make(7, 30, 15, 71), *c = make(7, 31, 15, 72);
    const int64_t np = cs_mlp_nparams(a), n = 500;
    ck_assert_ptr_eq(cs_mlp_params(a), cs_mlp_params_const(a));
    float *x = malloc((size_t)n * 7 * sizeof *x), *qa = malloc((size_t)n * sizeof *qa),
          *qb = malloc((size_t)n * sizeof *qb), *flat = malloc((size_t)np * sizeof *flat);
    random_rows(x, n, 7, 7, 73);
    ck_assert_int_eq(cs_mlp_eval(&ctx, a, x, 7, n, qa), CS_OK);
    ck_assert_int_eq(cs_mlp_eval(&ctx, b, x, 7, n, qb), CS_OK);
    ck_assert_int_ne(memcmp(qa, qb, (size_t)n * sizeof *qa), 0);
    /* flatten a, unflatten into b: the same function */
    cs_mlp_get_params(a, flat);
    ck_assert_int_eq(memcmp(flat, cs_mlp_params(a), (size_t)np * sizeof *flat), 0);
    cs_mlp_set_params(b, flat);
    ck_assert_int_eq(cs_mlp_eval(&ctx, b, x, 7, n, qb), CS_OK);
    ck_assert_int_eq(memcmp(qa, qb, (size_t)n * sizeof *qa), 0);
    /* writing the borrowed array changes the network (averaging across ranks does this) */
    cs_mlp_params(b)[cs_mlp_nparams(b) - 1] += 1.0f;
    ck_assert_int_eq(cs_mlp_eval(&ctx, b, x, 7, n, qb), CS_OK);
    ck_assert(fabsf(qb[0] - qa[0] - 1.0f) < 1e-5f);
    /* copy (online -> target) */
    ck_assert_int_eq(cs_mlp_copy(&ctx, b, a), CS_OK);
    ck_assert_int_eq(memcmp(cs_mlp_params(a), cs_mlp_params(b), (size_t)np * sizeof(float)), 0);
    ck_assert_int_eq(cs_mlp_copy(&ctx, c, a), CS_ERR_ARG);
    free(x);
    free(qa);
    free(qb);
    free(flat);
    cs_mlp_destroy(&a);
    cs_mlp_destroy(&b);
    cs_mlp_destroy(&c);
}
END_TEST

/* The batched evaluation is bit-identical with 1 and 2 OpenMP threads (several chunks). */
START_TEST(test_eval_independent_of_threads)
{
    cs_mlp *m = make(7, 64, 32, 80);
    const int64_t n = 5000;
    float *x = malloc((size_t)n * 7 * sizeof *x), *q1 = malloc((size_t)n * sizeof *q1),
          *q2 = malloc((size_t)n * sizeof *q2);
    random_rows(x, n, 7, 7, 81);
    omp_set_num_threads(1);
    ck_assert_int_eq(cs_mlp_eval(&ctx, m, x, 7, n, q1), CS_OK);
    omp_set_num_threads(2);
    ck_assert_int_eq(cs_mlp_eval(&ctx, m, x, 7, n, q2), CS_OK);
    ck_assert_int_eq(memcmp(q1, q2, (size_t)n * sizeof *q1), 0);
    /* and evaluating a row alone gives what it gets inside a chunk of the batch */
    for (int64_t i = 0; i < n; i += 997) {
        float one;
        ck_assert_int_eq(cs_mlp_eval(&ctx, m, x + i * 7, 7, 1, &one), CS_OK);
        ck_assert(fabsf(one - q1[i]) <= 1e-5f * (1.0f + fabsf(one)));
    }
    free(x);
    free(q1);
    free(q2);
    cs_mlp_destroy(&m);
}
END_TEST

/*
 * Hand-set networks d = 2, h1 = h2 = 1: online Q(x) = x0, target Q(x) = x1 (for positive
 * inputs, where LeakyReLU is the identity). For candidates (0.2, 5), (0.9, 1), (0.5, 3) the
 * online argmax is (0.9, 1), so the DDQN target is r + gamma * 1, where DQN's max over the target
 * network would give r + gamma * 5.
 */
static void set_pick(cs_mlp *m, int feature)
{
    cs_mlp_layout L;
    cs_mlp_layout_of(cs_mlp_config_of(m), &L);
    float *th = cs_mlp_params(m);
    memset(th, 0, (size_t)L.n * sizeof *th);
    th[L.w1 + feature] = 1.0f; /* W1[feature][0] */
    th[L.w2] = 1.0f;
    th[L.w3] = 1.0f;
}

START_TEST(test_ddqn_target_by_hand)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_ddqn_config c;
    cs_ddqn_config_default(&c);
    ck_assert(c.gamma == 0.99f && c.batch == 60 && c.target_every == 500);
    c.net.d_in = 2;
    c.net.h1 = 1;
    c.net.h2 = 1;
    c.gamma = 0.5f;
    cs_rng r;
    cs_rng_init(&r, 90, CS_RNG_TEST, 0, 0);
    cs_ddqn *q = NULL;
    ck_assert_int_eq(cs_ddqn_create(&ctx, &c, &r, &q), CS_OK);
    set_pick(cs_ddqn_online(q), 0);
    set_pick(cs_ddqn_target(q), 1);
    cs_replay_config rc;
    cs_replay_config_default(&rc, 2);
    rc.capacity = 8;
    rc.next_rows = 16;
    cs_replay *b = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &rc, &b), CS_OK);
    const float x[2] = {0.3f, 0.3f};
    const float n1[6] = {0.2f, 5.0f, 0.9f, 1.0f, 0.5f, 3.0f};
    const float n2[4] = {0.7f, 2.0f, 0.7f, 4.0f}; /* tie in online Q: the first wins */
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 1.0f, n1, 2, 3), CS_OK);
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 0.0f, n2, 2, 2), CS_OK);
    ck_assert_int_eq(cs_replay_push(&ctx, b, x, 0.25f, NULL, 0, 0), CS_OK); /* no candidates */
    const int64_t idx[3] = {2, 0, 1};
    float y[3];
    ck_assert_int_eq(cs_ddqn_targets(&ctx, q, b, idx, 3, y), CS_OK);
    ck_assert_float_eq_tol(y[0], 0.25f, 1e-6f);
    ck_assert_float_eq_tol(y[1], 1.0f + 0.5f * 1.0f, 1e-6f);
    ck_assert_float_eq_tol(y[2], 0.0f + 0.5f * 2.0f, 1e-6f);
    cs_replay_destroy(&b);
    cs_ddqn_destroy(&q);
    ck_assert_ptr_null(q);
}
END_TEST

/* Training steps lower the loss on a fixed buffer; the target is copied exactly every N steps. */
START_TEST(test_ddqn_train_and_target_sync)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_ddqn_config c;
    cs_ddqn_config_default(&c);
    c.gamma = 0.3f;
    c.batch = 16;
    c.target_every = 5;
    cs_rng r;
    cs_rng_init(&r, 91, CS_RNG_TEST, 0, 0);
    cs_ddqn *q = NULL;
    ck_assert_int_eq(cs_ddqn_create(&ctx, &c, &r, &q), CS_OK);
    const int64_t np = cs_mlp_nparams(cs_ddqn_online(q));
    ck_assert_int_eq(memcmp(cs_mlp_params(cs_ddqn_online(q)), cs_mlp_params(cs_ddqn_target(q)),
                            (size_t)np * sizeof(float)),
                     0);
    cs_replay_config rc;
    cs_replay_config_default(&rc, 7);
    rc.capacity = 200;
    cs_replay *b = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &rc, &b), CS_OK);
    cs_rng_init(&r, 92, CS_RNG_TEST, 0, 0);
    ck_assert_int_eq(cs_ddqn_train(&ctx, q, b, &r, &(double){0}), CS_ERR_ARG); /* empty */
    for (int i = 0; i < 200; i++) {
        float x[7], nx[3 * 7];
        for (int j = 0; j < 7; j++)
            x[j] = (float)cs_rng_uniform(&r);
        for (int j = 0; j < 21; j++)
            nx[j] = (float)cs_rng_uniform(&r);
        ck_assert_int_eq(cs_replay_push(&ctx, b, x, x[0] > 0.5f ? 1.0f : 0.0f, nx, 7, 3), CS_OK);
    }
    double loss, first = 0, last = 0;
    for (int s = 1; s <= 400; s++) {
        ck_assert_int_eq(cs_ddqn_train(&ctx, q, b, &r, &loss), CS_OK);
        const int same = memcmp(cs_mlp_params(cs_ddqn_online(q)), cs_mlp_params(cs_ddqn_target(q)),
                                (size_t)np * sizeof(float)) == 0;
        ck_assert_msg(same == (s % 5 == 0), "step %d: target %s online", s,
                      same ? "equals" : "differs from");
        if (s <= 20)
            first += loss / 20;
        if (s > 380)
            last += loss / 20;
    }
    ck_assert_int_eq(cs_ddqn_steps(q), 400);
    ck_assert_msg(last < 0.5 * first, "loss %g -> %g", first, last);
    cs_replay_destroy(&b);
    cs_ddqn_destroy(&q);
}
END_TEST

/* cs_ddqn_train on 3 threads (minibatches of 900-1 100 candidate rows: several chunks, the
 * minibatch's forward pass beside them) gives, bit for bit, what its steps give one by one on
 * one thread: cs_replay_sample, cs_ddqn_targets, cs_mlp_train_step, the target copy. */
START_TEST(test_ddqn_train_as_its_steps)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_ddqn_config c;
    cs_ddqn_config_default(&c);
    c.batch = 30;
    c.target_every = 4;
    cs_rng r;
    cs_rng_init(&r, 93, CS_RNG_TEST, 0, 0);
    cs_ddqn *q = NULL, *p = NULL;
    ck_assert_int_eq(cs_ddqn_create(&ctx, &c, &r, &q), CS_OK);
    cs_rng_init(&r, 93, CS_RNG_TEST, 0, 0);
    ck_assert_int_eq(cs_ddqn_create(&ctx, &c, &r, &p), CS_OK);
    cs_replay_config rc;
    cs_replay_config_default(&rc, 7);
    rc.capacity = 100;
    rc.next_rows = 100 * 40;
    cs_replay *b = NULL;
    ck_assert_int_eq(cs_replay_create(&ctx, &rc, &b), CS_OK);
    cs_rng_init(&r, 94, CS_RNG_TEST, 0, 0);
    static float nx[40 * 7];
    for (int i = 0; i < 100; i++) {
        float x[7];
        for (int j = 0; j < 7; j++)
            x[j] = (float)cs_rng_uniform(&r);
        for (int j = 0; j < 40 * 7; j++)
            nx[j] = (float)cs_rng_uniform(&r);
        const int k = i % 5 == 0 ? 0 : 30 + i % 11; /* some without candidates */
        ck_assert_int_eq(cs_replay_push(&ctx, b, x, x[0] > 0.5f ? 1.0f : 0.0f, nx, 7, k), CS_OK);
    }
    const int64_t np = cs_mlp_nparams(cs_ddqn_online(q));
    int64_t idx[30];
    float y[30];
    for (int s = 1; s <= 12; s++) {
        cs_rng ra, rb;
        cs_rng_init(&ra, 95, CS_RNG_TEST, (uint64_t)s, 0);
        rb = ra;
        double la = 0.0, lb = 0.0;
        omp_set_num_threads(3);
        ck_assert_int_eq(cs_ddqn_train(&ctx, q, b, &ra, &la), CS_OK);
        omp_set_num_threads(1);
        ck_assert_int_eq(cs_replay_sample(&ctx, b, &rb, 30, idx), CS_OK);
        ck_assert_int_eq(cs_ddqn_targets(&ctx, p, b, idx, 30, y), CS_OK);
        float xb[30 * 7];
        for (int i = 0; i < 30; i++) {
            cs_replay_item it;
            cs_replay_get(b, idx[i], &it);
            memcpy(xb + i * 7, it.x, sizeof(float) * 7);
        }
        ck_assert_int_eq(cs_mlp_train_step(&ctx, cs_ddqn_online(p), &c.opt, xb, 7, 30, y, &lb),
                         CS_OK);
        if (s % 4 == 0)
            ck_assert_int_eq(cs_mlp_copy(&ctx, cs_ddqn_target(p), cs_ddqn_online(p)), CS_OK);
        ck_assert_msg(la == lb, "step %d: loss %.9g against %.9g", s, la, lb);
        ck_assert_msg(memcmp(cs_mlp_params(cs_ddqn_online(q)), cs_mlp_params(cs_ddqn_online(p)),
                             (size_t)np * sizeof(float)) == 0,
                      "step %d: online networks differ", s);
        ck_assert(memcmp(cs_mlp_params(cs_ddqn_target(q)), cs_mlp_params(cs_ddqn_target(p)),
                         (size_t)np * sizeof(float)) == 0);
    }
    omp_set_num_threads(1);
    cs_replay_destroy(&b);
    cs_ddqn_destroy(&p);
    cs_ddqn_destroy(&q);
}
END_TEST

static Suite *mlp_suite(void)
{
    Suite *s = suite_create("mlp");
    TCase *tc = tcase_create("mlp");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_layout_and_defaults);
    tcase_add_test(tc, test_forward_matches_naive);
    tcase_add_test(tc, test_backward_matches_finite_differences);
    tcase_add_test(tc, test_adam_step_by_hand);
    tcase_add_test(tc, test_clipping);
    tcase_add_test(tc, test_learns_difference);
    tcase_add_test(tc, test_flatten_roundtrip_and_copy);
    tcase_add_test(tc, test_eval_independent_of_threads);
    suite_add_tcase(s, tc);
    TCase *td = tcase_create("ddqn");
    tcase_set_timeout(td, 120);
    tcase_add_test(td, test_ddqn_target_by_hand);
    tcase_add_test(td, test_ddqn_train_and_target_sync);
    tcase_add_test(td, test_ddqn_train_as_its_steps);
    suite_add_tcase(s, td);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mlp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
