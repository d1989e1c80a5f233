/*
 * bandit/fgdqn: full-gradient DQN (Avrachenkov, Borkar, Dolhare, Patil 2021) as the DRL paper
 * uses it (Avrachenkov, Borkar, Patil, ICC 2021, Algorithm 1 and appendix Eq. 9).
 *
 * The network maps the state Z = (X_1..X_K, Y_1..Y_K) to K values (one per arm, Sec. III):
 * 2K -> h1 -> h2 -> K with ReLU after each hidden layer. The parameters live in one float array
 * (W1[2K][h1] b1 W2[h1][h2] b2 W3[h2][K] b3, row-major). crawlsim's mlp.h is not used because its
 * network has one output (a value per state-action row), while the paper's has one per arm.
 *
 * Update (Eq. 9, averaged over a minibatch as Algorithm 1 does instead of the special replay):
 *   theta -= a(n) [ (1/B) sum_i delta_i (gamma grad Q(Z'_i, v_i) - grad Q(Z_i, U_i)) + xi ],
 *   delta_i = r_i + gamma max_v Q(Z'_i, v) - Q(Z_i, U_i),  v_i = argmax_v Q(Z'_i, v),
 * xi uniform on [-noise, noise] per parameter: the gradient of the squared Bellman error through
 * BOTH Q terms (the "full gradient"), not the semi-gradient of DQN. a(n) = lr / (1 + n/lr_decay).
 * The replay memory is a ring of the newest `replay` transitions; minibatches are drawn
 * uniformly with replacement. All draws come from (seed, CS_RNG_BANDIT, CS_BANDIT_ID_FGDQN, run).
 */
#include "bandit/bandit_impl.h"

#include "core/blas.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cs_fgdqn {
    cs_fgdqn_config c;
    int64_t K, d, h1, h2;
    int64_t np, o_b1, o_w2, o_b2, o_w3, o_b3;
    float *theta, *grad;
    /* replay ring */
    float *rz, *rz1, *rr;
    int64_t *ra;
    int64_t rsize, rnext;
    int64_t steps;
    cs_rng rng;
    /* batch scratch (2B rows) */
    float *X, *H1, *H2, *Q, *G, *D2, *D1;
};

void cs_fgdqn_config_default(cs_fgdqn_config *c)
{
    c->hidden1 = 64;
    c->hidden2 = 8;
    c->gamma = 0.95;
    c->eps_start = 0.7;
    c->eps_end = 0.1;
    c->eps_steps = 2000;
    c->lr = 1e-3;
    c->lr_decay = 1e4;
    c->noise = 1.0;
    c->batch = 32;
    c->replay = 10000;
    c->x_scale = 100.0;
}

void cs_fgdqn_destroy(cs_fgdqn **p)
{
    if (p == NULL || *p == NULL)
        return;
    cs_fgdqn *f = *p;
    free(f->theta);
    free(f->grad);
    free(f->rz);
    free(f->rz1);
    free(f->rr);
    free(f->ra);
    free(f->X);
    free(f->H1);
    free(f->H2);
    free(f->Q);
    free(f->G);
    free(f->D2);
    free(f->D1);
    free(f);
    *p = NULL;
}

cs_err cs_fgdqn_create(cs_ctx *ctx, const cs_fgdqn_config *c, int64_t K, uint64_t seed,
                       uint64_t run, cs_fgdqn **out)
{
    if (K < 1 || c->hidden1 < 1 || c->hidden2 < 1 || c->batch < 1 || c->batch > 1024 ||
        c->replay < c->batch || !(c->lr > 0.0) || !(c->lr_decay > 0.0) || !(c->noise >= 0.0) ||
        !(c->x_scale > 0.0) || !(c->gamma >= 0.0 && c->gamma < 1.0))
        return cs_fail(ctx, CS_ERR_ARG, "FG-DQN: bad parameters");
    cs_fgdqn *f = calloc(1, sizeof *f);
    if (f == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "out of memory for FG-DQN");
    f->c = *c;
    f->K = K;
    f->d = 2 * K;
    f->h1 = c->hidden1;
    f->h2 = c->hidden2;
    f->o_b1 = f->d * f->h1;
    f->o_w2 = f->o_b1 + f->h1;
    f->o_b2 = f->o_w2 + f->h1 * f->h2;
    f->o_w3 = f->o_b2 + f->h2;
    f->o_b3 = f->o_w3 + f->h2 * K;
    f->np = f->o_b3 + K;
    const size_t R2 = 2 * (size_t)c->batch, cap = (size_t)c->replay;
    cs_err rc = cs_alloc(ctx, &f->theta, (size_t)f->np, sizeof(float), "FG-DQN parameters");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->grad, (size_t)f->np, sizeof(float), "FG-DQN gradient");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->rz, cap * (size_t)f->d, sizeof(float), "FG-DQN replay");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->rz1, cap * (size_t)f->d, sizeof(float), "FG-DQN replay");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->rr, cap, sizeof(float), "FG-DQN replay");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->ra, cap, sizeof(int64_t), "FG-DQN replay");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->X, R2 * (size_t)f->d, sizeof(float), "FG-DQN batch");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->H1, R2 * (size_t)f->h1, sizeof(float), "FG-DQN batch");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->D1, R2 * (size_t)f->h1, sizeof(float), "FG-DQN batch");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->H2, R2 * (size_t)f->h2, sizeof(float), "FG-DQN batch");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->D2, R2 * (size_t)f->h2, sizeof(float), "FG-DQN batch");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->Q, R2 * (size_t)K, sizeof(float), "FG-DQN batch");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &f->G, R2 * (size_t)K, sizeof(float), "FG-DQN batch");
    if (rc != CS_OK) {
        cs_fgdqn_destroy(&f);
        return rc;
    }
    cs_blas_single_thread();
    cs_rng_init(&f->rng, seed, CS_RNG_BANDIT, CS_BANDIT_ID_FGDQN, run);
    /* He-uniform weights for ReLU, biases zero */
    const int64_t fan[3] = {f->d, f->h1, f->h2};
    const int64_t off[3] = {0, f->o_w2, f->o_w3};
    const int64_t len[3] = {f->d * f->h1, f->h1 * f->h2, f->h2 * K};
    memset(f->theta, 0, (size_t)f->np * sizeof(float));
    for (int l = 0; l < 3; l++) {
        const double a = sqrt(6.0 / (double)fan[l]);
        for (int64_t j = 0; j < len[l]; j++)
            f->theta[off[l] + j] = (float)((2.0 * cs_rng_uniform(&f->rng) - 1.0) * a);
    }
    *out = f;
    return CS_OK;
}

/* Forward pass of n rows of X into H1, H2 (post-ReLU) and Q. */
static void forward(cs_fgdqn *f, const float *X, int64_t n)
{
    const float *th = f->theta;
    const int h1 = (int)f->h1, h2 = (int)f->h2, K = (int)f->K, d = (int)f->d, rows = (int)n;
    for (int64_t i = 0; i < n; i++)
        memcpy(f->H1 + i * h1, th + f->o_b1, (size_t)h1 * sizeof(float));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, h1, d, 1.0f, X, d, th, h1, 1.0f,
                f->H1, h1);
    for (int64_t j = 0; j < n * h1; j++)
        f->H1[j] = f->H1[j] > 0.0f ? f->H1[j] : 0.0f;
    for (int64_t i = 0; i < n; i++)
        memcpy(f->H2 + i * h2, th + f->o_b2, (size_t)h2 * sizeof(float));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, h2, h1, 1.0f, f->H1, h1,
                th + f->o_w2, h2, 1.0f, f->H2, h2);
    for (int64_t j = 0; j < n * h2; j++)
        f->H2[j] = f->H2[j] > 0.0f ? f->H2[j] : 0.0f;
    for (int64_t i = 0; i < n; i++)
        memcpy(f->Q + i * K, th + f->o_b3, (size_t)K * sizeof(float));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, K, h2, 1.0f, f->H2, h2,
                th + f->o_w3, K, 1.0f, f->Q, K);
}

void cs_fgdqn_q(cs_fgdqn *f, const float *z, float *q)
{
    forward(f, z, 1);
    memcpy(q, f->Q, (size_t)f->K * sizeof(float));
}

void cs_fgdqn_push(cs_fgdqn *f, const float *z, int64_t a, float r, const float *z1)
{
    const int64_t s = f->rnext, d = f->d;
    memcpy(f->rz + s * d, z, (size_t)d * sizeof(float));
    memcpy(f->rz1 + s * d, z1, (size_t)d * sizeof(float));
    f->ra[s] = a;
    f->rr[s] = r;
    f->rnext = (s + 1) % f->c.replay;
    if (f->rsize < f->c.replay)
        f->rsize++;
}

static int64_t argmax(const float *q, int64_t K)
{
    int64_t b = 0;
    for (int64_t k = 1; k < K; k++)
        if (q[k] > q[b])
            b = k;
    return b;
}

/* Backpropagation through one layer of n rows: the weight gradient gW = A^T Dout (A: the
 * layer's n x in input, Dout: the n x out delta at its output), the bias gradient gb = the
 * column sums of Dout, and, when Din is not NULL, the delta at its input Din = Dout W^T, zero
 * where the ReLU that produced A was inactive. */
static void layer_back(int n, int in, int out, const float *A, const float *Dout, const float *W,
                       float *gW, float *gb, float *Din)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, in, out, n, 1.0f, A, in, Dout, out, 0.0f,
                gW, out);
    for (int64_t k = 0; k < out; k++) {
        float s = 0.0f;
        for (int64_t i = 0; i < n; i++)
            s += Dout[i * out + k];
        gb[k] = s;
    }
    if (Din == NULL)
        return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, in, out, 1.0f, Dout, out, W, out, 0.0f,
                Din, in);
    for (int64_t j = 0; j < (int64_t)n * in; j++)
        if (!(A[j] > 0.0f))
            Din[j] = 0.0f;
}

double cs_fgdqn_train(cs_fgdqn *f)
{
    const int64_t B = f->c.batch, d = f->d, K = f->K, h1 = f->h1, h2 = f->h2;
    if (f->rsize < B)
        return 0.0;
    int64_t ix[1024]; /* batch <= 1024 (checked at creation) */
    for (int64_t i = 0; i < B; i++) {
        const int64_t s = (int64_t)cs_rng_below(&f->rng, (uint64_t)f->rsize);
        ix[i] = s;
        memcpy(f->X + i * d, f->rz + s * d, (size_t)d * sizeof(float));
        memcpy(f->X + (B + i) * d, f->rz1 + s * d, (size_t)d * sizeof(float));
    }
    forward(f, f->X, 2 * B);
    /* output gradient G: row i (Z_i) gets -delta/B at U_i, row B+i (Z'_i) gamma delta/B at v_i */
    memset(f->G, 0, (size_t)(2 * B * K) * sizeof(float));
    const float gam = (float)f->c.gamma;
    double mse = 0.0;
    for (int64_t i = 0; i < B; i++) {
        const int64_t s = ix[i];
        const int64_t a = f->ra[s];
        const float *q1 = f->Q + (B + i) * K;
        const int64_t v = argmax(q1, K);
        const float delta = f->rr[s] + gam * q1[v] - f->Q[i * K + a];
        mse += (double)delta * (double)delta;
        f->G[i * K + a] = -delta / (float)B;
        f->G[(B + i) * K + v] = gam * delta / (float)B;
    }
    const int n = (int)(2 * B);
    float *g = f->grad;
    const float *th = f->theta;
    layer_back(n, (int)h2, (int)K, f->H2, f->G, th + f->o_w3, g + f->o_w3, g + f->o_b3, f->D2);
    layer_back(n, (int)h1, (int)h2, f->H1, f->D2, th + f->o_w2, g + f->o_w2, g + f->o_b2, f->D1);
    layer_back(n, (int)d, (int)h1, f->X, f->D1, th, g, g + f->o_b1, NULL);
    /* Eq. 9 with its noise term */
    const float a = (float)(f->c.lr / (1.0 + (double)f->steps / f->c.lr_decay));
    const double nz = f->c.noise;
    float *tw = f->theta;
    if (nz > 0.0)
        for (int64_t j = 0; j < f->np; j++)
            tw[j] -= a * (g[j] + (float)((2.0 * cs_rng_uniform(&f->rng) - 1.0) * nz));
    else
        for (int64_t j = 0; j < f->np; j++)
            tw[j] -= a * g[j];
    f->steps++;
    return mse / (double)B;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

cs_err cs_fgdqn_save(cs_ctx *ctx, const cs_fgdqn *f, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    const int64_t n = f->rsize, d = f->d;
    const int64_t sc[5] = {f->K, f->np, f->rsize, f->rnext, f->steps};
    snprintf(nm, sizeof nm, "%s/state", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_I64, 5, sc));
    snprintf(nm, sizeof nm, "%s/rng", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_BYTES, (int64_t)sizeof f->rng, &f->rng));
    snprintf(nm, sizeof nm, "%s/theta", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F32, f->np, f->theta));
    snprintf(nm, sizeof nm, "%s/replay_z", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F32, n * d, f->rz));
    snprintf(nm, sizeof nm, "%s/replay_z1", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F32, n * d, f->rz1));
    snprintf(nm, sizeof nm, "%s/replay_r", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_F32, n, f->rr));
    snprintf(nm, sizeof nm, "%s/replay_a", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, nm, CS_CK_I64, n, f->ra));
fail:
    return rc;
}

cs_err cs_fgdqn_load(cs_ctx *ctx, cs_fgdqn *f, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    int64_t sc[5];
    snprintf(nm, sizeof nm, "%s/state", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_I64, 5, sc));
    if (sc[0] != f->K || sc[1] != f->np || sc[2] < 0 || sc[2] > f->c.replay || sc[3] < 0 ||
        sc[3] >= f->c.replay)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: FG-DQN %s of another shape",
                     cs_ckpt_path(ck), prefix);
    CS_TRY_AGREE(ctx, rc);
    f->rsize = sc[2];
    f->rnext = sc[3];
    f->steps = sc[4];
    const int64_t n = f->rsize, d = f->d;
    snprintf(nm, sizeof nm, "%s/rng", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_BYTES, (int64_t)sizeof f->rng, &f->rng));
    snprintf(nm, sizeof nm, "%s/theta", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F32, f->np, f->theta));
    snprintf(nm, sizeof nm, "%s/replay_z", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F32, n * d, f->rz));
    snprintf(nm, sizeof nm, "%s/replay_z1", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F32, n * d, f->rz1));
    snprintf(nm, sizeof nm, "%s/replay_r", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_F32, n, f->rr));
    snprintf(nm, sizeof nm, "%s/replay_a", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, nm, CS_CK_I64, n, f->ra));
fail:
    return rc;
}

/* ---- as a registered bandit policy ("fgdqn") ------------------------------------------------- */

static cs_err fg_create(cs_ctx *ctx, cs_bandit *b)
{
    const size_t Kz = (size_t)b->K;
    cs_err rc = cs_alloc(ctx, &b->z, 2 * Kz, sizeof *b->z, "FG-DQN state");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &b->z1, 2 * Kz, sizeof *b->z1, "FG-DQN state");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &b->qv, Kz, sizeof *b->qv, "FG-DQN values");
    if (rc == CS_OK)
        rc = cs_fgdqn_create(ctx, &b->s.fgdqn, b->K, b->s.seed, b->s.run, &b->net);
    return rc;
}

static void fg_destroy(cs_bandit *b)
{
    cs_fgdqn_destroy(&b->net);
    free(b->z);
    free(b->z1);
    free(b->qv);
    b->z = b->z1 = b->qv = NULL;
}

/* The network's input for ages X and last outcomes Y: (X_k / x_scale, Y_k). */
static void fg_state(const cs_bandit *b, const int64_t *X, float *z)
{
    for (int64_t k = 0; k < b->K; k++) {
        z[k] = (float)((double)X[k] / b->s.fgdqn.x_scale);
        z[b->K + k] = (float)b->Y[k];
    }
}

/* Each crawl epsilon-greedy (epsilon linear from eps_start to eps_end over eps_steps slots): a
 * random eligible group, or the best eligible group not picked yet in this slot (all picked:
 * the best). Q is evaluated once per slot, at the first greedy crawl (it is a pure function of
 * the network and the state). */
static cs_err fg_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E, int64_t n)
{
    cs_err rc = CS_OK;
    const cs_fgdqn_config *fc = &b->s.fgdqn;
    const double frac = fc->eps_steps > 0 ? (double)b->slots / (double)fc->eps_steps : 1.0;
    const double eps =
        frac >= 1.0 ? fc->eps_end : fc->eps_start + (fc->eps_end - fc->eps_start) * frac;
    fg_state(b, b->X, b->z);
    for (int64_t j = 0; j < n; j++) {
        int64_t pick = -1;
        if (cs_rng_uniform(g) < eps) {
            pick = elig[cs_rng_below(g, (uint64_t)E)];
        } else {
            if (!b->qv_ok) {
                cs_fgdqn_q(b->net, b->z, b->qv);
                b->qv_ok = 1;
            }
            for (int pass = 0; pass < 2 && pick < 0; pass++)
                for (int64_t e = 0; e < E; e++) {
                    const int64_t k = elig[e];
                    if (pass == 0 && b->alloc[k] > 0)
                        continue;
                    if (pick < 0 || b->qv[k] > b->qv[pick])
                        pick = k;
                }
        }
        CS_TRY(ctx, bandit_pick(ctx, b, pick));
    }
fail:
    return rc;
}

/* One transition per crawl of the slot with its group's reward shared among its crawls, then
 * one full-gradient step. z1 is the state after the slot (ages moved on, outcomes in Y). */
static void fg_learn(cs_bandit *b)
{
    for (int64_t k = 0; k < b->K; k++) {
        const int64_t x = b->alloc[k] > 0 ? 0 : b->X[k] + 1;
        b->z1[k] = (float)((double)x / b->s.fgdqn.x_scale);
        b->z1[b->K + k] = (float)b->Y[k];
    }
    for (int64_t j = 0; j < b->npicks; j++) {
        const int64_t k = b->picks[j];
        cs_fgdqn_push(b->net, b->z, k, (float)(b->rew[k] / (double)b->alloc[k]), b->z1);
    }
    if (b->npicks > 0)
        cs_fgdqn_train(b->net);
}

static cs_err fg_save(cs_ctx *ctx, const cs_bandit *b, cs_ckpt *ck, const char *prefix)
{
    char nm[256];
    snprintf(nm, sizeof nm, "%s/fgdqn", prefix);
    return cs_fgdqn_save(ctx, b->net, ck, nm);
}

static cs_err fg_load(cs_ctx *ctx, cs_bandit *b, cs_ckpt *ck, const char *prefix)
{
    char nm[256];
    snprintf(nm, sizeof nm, "%s/fgdqn", prefix);
    return cs_fgdqn_load(ctx, b->net, ck, nm);
}

const cs_bandit_ops cs_bandit_fgdqn_ops = {.freshness = 1,
                                           .stream = 4,
                                           .max_groups = 4096,
                                           .max_why =
                                               "keeps the state of every group on every rank",
                                           .create = fg_create,
                                           .destroy = fg_destroy,
                                           .choose = fg_choose,
                                           .learn = fg_learn,
                                           .save = fg_save,
                                           .load = fg_load};
