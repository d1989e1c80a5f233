/*
 * qnet/mlp: the TRES Q-network (Kontogiannis et al., Sec. 2.4.2: an MLP with two hidden layers),
 * its batched evaluation through cblas_sgemm, the MSE backward pass, gradient clipping and Adam.
 * Layout of the one parameter array and the threading rules: include/crawlsim/mlp.h.
 */
#include "crawlsim/mlp.h"

#include "core/blas.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cs_mlp {
    cs_mlp_config c;
    cs_mlp_layout L;
    float *buf;   /* one allocation: params | grad | adam m | adam v, L.n floats each */
    float *theta; /* = buf */
    float *grad;
    float *am, *av;
    int64_t t; /* Adam steps */
    /* evaluation scratch: per thread CS_MLP_CHUNK * (h1 + h2) floats */
    float *eval_scratch;
    int eval_threads;
    /* training scratch: n * (2 h1 + 2 h2) + 2 n floats */
    float *train_scratch;
    size_t train_cap;
};

void cs_mlp_config_default(cs_mlp_config *c)
{
    c->d_in = 7;
    c->h1 = 30;
    c->h2 = 15;
    c->leak = 0.1f;
}

void cs_mlp_opt_default(cs_mlp_opt *o)
{
    o->lr = 1e-3f;
    o->beta1 = 0.9f;
    o->beta2 = 0.999f;
    o->eps = 1e-8f;
    o->clip_mode = CS_MLP_CLIP_NORM;
    o->clip = 1.0f;
}

void cs_mlp_layout_of(const cs_mlp_config *c, cs_mlp_layout *L)
{
    const int64_t d = c->d_in, h1 = c->h1, h2 = c->h2;
    L->w1 = 0;
    L->b1 = L->w1 + d * h1;
    L->w2 = L->b1 + h1;
    L->b2 = L->w2 + h1 * h2;
    L->w3 = L->b2 + h2;
    L->b3 = L->w3 + h2;
    L->n = L->b3 + 1;
}

cs_err cs_mlp_create(cs_ctx *ctx, const cs_mlp_config *c, cs_mlp **out)
{
    cs_err rc = CS_OK;
    cs_mlp *m = NULL;
    if (c->d_in < 1 || c->h1 < 1 || c->h2 < 1 || c->d_in > 4096 || c->h1 > 65536 || c->h2 > 65536 ||
        !(c->leak >= 0.0f && c->leak < 1.0f))
        return cs_fail(ctx, CS_ERR_ARG, "mlp: bad shape %d -> %d -> %d -> 1, leak %g", c->d_in,
                       c->h1, c->h2, (double)c->leak);
    CS_TRY(ctx, cs_calloc(ctx, &m, 1, sizeof *m, "MLP"));
    m->c = *c;
    cs_mlp_layout_of(c, &m->L);
    CS_TRY(ctx, cs_calloc(ctx, &m->buf, (size_t)m->L.n * 4, sizeof *m->buf, "MLP parameters"));
    m->theta = m->buf;
    m->grad = m->buf + m->L.n;
    m->am = m->buf + 2 * m->L.n;
    m->av = m->buf + 3 * m->L.n;
    /* Our own OpenMP chunks call sgemm concurrently; OpenBLAS threads on top would
     * oversubscribe the cores (see mlp.h). */
    cs_blas_single_thread();
    *out = m;
    return CS_OK;
fail:
    cs_mlp_destroy(&m);
    return rc;
}

void cs_mlp_destroy(cs_mlp **p)
{
    if (p == NULL || *p == NULL)
        return;
    cs_mlp *m = *p;
    free(m->buf);
    free(m->eval_scratch);
    free(m->train_scratch);
    free(m);
    *p = NULL;
}

const cs_mlp_config *cs_mlp_config_of(const cs_mlp *m)
{
    return &m->c;
}
int64_t cs_mlp_nparams(const cs_mlp *m)
{
    return m->L.n;
}
float *cs_mlp_params(cs_mlp *m)
{
    return m->theta;
}
const float *cs_mlp_params_const(const cs_mlp *m)
{
    return m->theta;
}
const float *cs_mlp_grad(const cs_mlp *m)
{
    return m->grad;
}
int64_t cs_mlp_adam_steps(const cs_mlp *m)
{
    return m->t;
}

void cs_mlp_get_params(const cs_mlp *m, float *out)
{
    memcpy(out, m->theta, (size_t)m->L.n * sizeof *out);
}

void cs_mlp_set_params(cs_mlp *m, const float *in)
{
    memcpy(m->theta, in, (size_t)m->L.n * sizeof *in);
}

cs_err cs_mlp_copy(cs_ctx *ctx, cs_mlp *dst, const cs_mlp *src)
{
    if (dst->c.d_in != src->c.d_in || dst->c.h1 != src->c.h1 || dst->c.h2 != src->c.h2)
        return cs_fail(ctx, CS_ERR_ARG, "mlp copy: shapes %d-%d-%d and %d-%d-%d differ",
                       dst->c.d_in, dst->c.h1, dst->c.h2, src->c.d_in, src->c.h1, src->c.h2);
    dst->c.leak = src->c.leak;
    memcpy(dst->theta, src->theta, (size_t)src->L.n * sizeof *dst->theta);
    return CS_OK;
}

static void init_block(float *w, int64_t fan_in, int64_t fan_out, cs_mlp_init kind, float leak,
                       cs_rng *r)
{
    const double a = kind == CS_MLP_INIT_HE
                         ? sqrt(6.0 / ((1.0 + (double)leak * (double)leak) * (double)fan_in))
                         : sqrt(6.0 / (double)(fan_in + fan_out));
    for (int64_t i = 0; i < fan_in * fan_out; i++)
        w[i] = (float)((2.0 * cs_rng_uniform(r) - 1.0) * a);
}

void cs_mlp_init_weights(cs_mlp *m, cs_mlp_init kind, cs_rng *r)
{
    const cs_mlp_layout *L = &m->L;
    memset(m->buf, 0, (size_t)L->n * 4 * sizeof *m->buf);
    init_block(m->theta + L->w1, m->c.d_in, m->c.h1, kind, m->c.leak, r);
    init_block(m->theta + L->w2, m->c.h1, m->c.h2, kind, m->c.leak, r);
    init_block(m->theta + L->w3, m->c.h2, 1, kind, m->c.leak, r);
    m->t = 0;
}

/* Z[n][h] = X[n][k] W[k][h] + b (bias broadcast, then sgemm with beta = 1). */
static void affine(const float *X, int64_t ldx, int64_t n, int64_t k, const float *W,
                   const float *b, int64_t h, float *Z)
{
    for (int64_t i = 0; i < n; i++) /* a loop, not a memcpy call per (short) row */
        for (int64_t j = 0; j < h; j++)
            Z[i * h + j] = b[j];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (cs_blasint)n, (cs_blasint)h,
                (cs_blasint)k, 1.0f, X, (cs_blasint)ldx, W, (cs_blasint)h, 1.0f, Z, (cs_blasint)h);
}

static void leaky(const float *Z, float *A, int64_t count, float leak)
{
    /* a multiply by a selected factor, not a branch: the signs of pre-activations are data,
     * their branches unpredictable (the same values as z > 0 ? z : leak * z, zeros and
     * NaNs included) */
    const float factor[2] = {1.0f, leak}; /* by the sign bit: positive, negative (and -0) */
    for (int64_t i = 0; i < count; i++) {
        const float z = Z[i];
        uint32_t bits;
        memcpy(&bits, &z, sizeof bits);
        A[i] = z * factor[bits >> 31];
    }
}

/* q[i] = A2[i] . w3 + b3, summed in index order (no BLAS: deterministic and tiny). */
static void output(const float *A2, int64_t n, int64_t h2, const float *w3, float b3, float *q)
{
    for (int64_t i = 0; i < n; i++) {
        const float *a = A2 + i * h2;
        float s = b3;
        for (int64_t j = 0; j < h2; j++)
            s += a[j] * w3[j];
        q[i] = s;
    }
}

/* The forward pass of n rows into caller scratch Z1/A1 (n x h1) and Z2/A2 (n x h2); Z and A may
 * alias (evaluation keeps only A). */
static void forward(const cs_mlp *m, const float *x, int64_t ldx, int64_t n, float *Z1, float *A1,
                    float *Z2, float *A2, float *q)
{
    const cs_mlp_layout *L = &m->L;
    const int64_t d = m->c.d_in, h1 = m->c.h1, h2 = m->c.h2;
    affine(x, ldx, n, d, m->theta + L->w1, m->theta + L->b1, h1, Z1);
    leaky(Z1, A1, n * h1, m->c.leak);
    affine(A1, h1, n, h1, m->theta + L->w2, m->theta + L->b2, h2, Z2);
    leaky(Z2, A2, n * h2, m->c.leak);
    output(A2, n, h2, m->theta + L->w3, m->theta[L->b3], q);
}

cs_err cs_mlp_eval(cs_ctx *ctx, cs_mlp *m, const float *x, int64_t ldx, int64_t n, float *out)
{
    cs_err rc = CS_OK;
    if (n <= 0)
        return CS_OK;
    CS_ASSERT(ldx >= m->c.d_in);
    const int64_t nchunks = (n + CS_MLP_CHUNK - 1) / CS_MLP_CHUNK;
    const int nthreads = nchunks > 1 ? omp_get_max_threads() : 1;
    const int64_t per = (int64_t)CS_MLP_CHUNK * (m->c.h1 + m->c.h2);
    if (nthreads > m->eval_threads) {
        float *s = NULL;
        CS_TRY(ctx, cs_alloc(ctx, &s, (size_t)nthreads * (size_t)per, sizeof *s, "MLP scratch"));
        free(m->eval_scratch);
        m->eval_scratch = s;
        m->eval_threads = nthreads;
    }
    const cs_mlp *mc = m;
    float *scratch = m->eval_scratch;
#pragma omp parallel for schedule(static) num_threads(nthreads) default(none)                      \
    shared(mc, x, ldx, n, out, nchunks, scratch, per)
    for (int64_t ch = 0; ch < nchunks; ch++) {
        const int64_t r0 = ch * CS_MLP_CHUNK;
        const int64_t rows = n - r0 < CS_MLP_CHUNK ? n - r0 : CS_MLP_CHUNK;
        cs_mlp_eval_rows(mc, x + r0 * ldx, ldx, rows, scratch + (int64_t)omp_get_thread_num() * per,
                         out + r0);
    }
    return CS_OK;
fail:
    return rc;
}

void cs_mlp_eval_rows(const cs_mlp *m, const float *x, int64_t ldx, int64_t rows, float *scratch,
                      float *out)
{
    CS_ASSERT(rows <= CS_MLP_CHUNK && ldx >= m->c.d_in);
    if (rows <= 0)
        return;
    float *H1 = scratch, *H2 = scratch + (int64_t)CS_MLP_CHUNK * m->c.h1;
    forward(m, x, ldx, rows, H1, H1, H2, H2, out);
}

cs_err cs_mlp_train_reserve(cs_ctx *ctx, cs_mlp *m, int64_t n)
{
    const int64_t h1 = m->c.h1, h2 = m->c.h2;
    return cs_grow(ctx, &m->train_scratch, &m->train_cap, (size_t)(n * (2 * h1 + 2 * h2 + 2)),
                   sizeof(float), "MLP train scratch");
}

void cs_mlp_forward_kept(cs_mlp *m, const float *x, int64_t ldx, int64_t n)
{
    const int64_t h1 = m->c.h1, h2 = m->c.h2;
    CS_ASSERT(n >= 1 && ldx >= m->c.d_in && m->train_cap >= (size_t)(n * (2 * h1 + 2 * h2 + 2)));
    float *Z1 = m->train_scratch, *A1 = Z1 + n * h1, *Z2 = A1 + n * h1, *A2 = Z2 + n * h2;
    forward(m, x, ldx, n, Z1, A1, Z2, A2, A2 + n * h2);
}

cs_err cs_mlp_loss_grad(cs_ctx *ctx, cs_mlp *m, const float *x, int64_t ldx, int64_t n,
                        const float *y, double *loss)
{
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_mlp_train_reserve(ctx, m, n));
    cs_mlp_forward_kept(m, x, ldx, n);
    cs_mlp_backward(m, x, ldx, n, y, loss);
fail:
    return rc;
}

void cs_mlp_backward(cs_mlp *m, const float *x, int64_t ldx, int64_t n, const float *y,
                     double *loss)
{
    const int64_t d = m->c.d_in, h1 = m->c.h1, h2 = m->c.h2;
    const float leak = m->c.leak;
    const cs_mlp_layout *L = &m->L;
    CS_ASSERT(n >= 1 && ldx >= d && m->train_cap >= (size_t)(n * (2 * h1 + 2 * h2 + 2)));
    float *Z1 = m->train_scratch, *A1 = Z1 + n * h1, *Z2 = A1 + n * h1, *A2 = Z2 + n * h2;
    float *q = A2 + n * h2, *dq = q + n;

    double l = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double e = (double)q[i] - (double)y[i];
        l += e * e;
        dq[i] = (float)(2.0 * e / (double)n);
    }
    *loss = l / (double)n;

    float *g = m->grad;
    const float *W2 = m->theta + L->w2, *w3 = m->theta + L->w3;
    /* output layer: dw3 = A2^T dq, db3 = sum dq */
    float db3 = 0.0f;
    for (int64_t i = 0; i < n; i++)
        db3 += dq[i];
    g[L->b3] = db3;
    cblas_sgemv(CblasRowMajor, CblasTrans, (cs_blasint)n, (cs_blasint)h2, 1.0f, A2, (cs_blasint)h2,
                dq, 1, 0.0f, g + L->w3, 1);
    /* dZ2 = (dq w3^T) .* f'(Z2), in place of A2 (A2 no longer needed) */
    float *dZ2 = A2;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < h2; j++) {
            const float z = Z2[i * h2 + j];
            dZ2[i * h2 + j] = dq[i] * w3[j] * (z > 0.0f ? 1.0f : leak);
        }
    /* dW2 = A1^T dZ2, db2 = column sums of dZ2 */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (cs_blasint)h1, (cs_blasint)h2,
                (cs_blasint)n, 1.0f, A1, (cs_blasint)h1, dZ2, (cs_blasint)h2, 0.0f, g + L->w2,
                (cs_blasint)h2);
    for (int64_t j = 0; j < h2; j++)
        g[L->b2 + j] = 0.0f;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < h2; j++)
            g[L->b2 + j] += dZ2[i * h2 + j];
    /* dA1 = dZ2 W2^T into A1's storage (A1 was used above), then dZ1 = dA1 .* f'(Z1) */
    float *dZ1 = A1;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (cs_blasint)n, (cs_blasint)h1,
                (cs_blasint)h2, 1.0f, dZ2, (cs_blasint)h2, W2, (cs_blasint)h2, 0.0f, dZ1,
                (cs_blasint)h1);
    for (int64_t i = 0; i < n * h1; i++)
        dZ1[i] *= Z1[i] > 0.0f ? 1.0f : leak;
    /* dW1 = X^T dZ1, db1 = column sums of dZ1 */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (cs_blasint)d, (cs_blasint)h1,
                (cs_blasint)n, 1.0f, x, (cs_blasint)ldx, dZ1, (cs_blasint)h1, 0.0f, g + L->w1,
                (cs_blasint)h1);
    for (int64_t j = 0; j < h1; j++)
        g[L->b1 + j] = 0.0f;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < h1; j++)
            g[L->b1 + j] += dZ1[i * h1 + j];
}

double cs_mlp_clip(cs_mlp *m, const cs_mlp_opt *o)
{
    float *g = m->grad;
    const int64_t n = m->L.n;
    double ss = 0.0;
    for (int64_t i = 0; i < n; i++)
        ss += (double)g[i] * (double)g[i];
    const double norm = sqrt(ss);
    if (o->clip_mode == CS_MLP_CLIP_NORM && norm > (double)o->clip) {
        const float s = (float)((double)o->clip / (norm + 1e-6));
        for (int64_t i = 0; i < n; i++)
            g[i] *= s;
    } else if (o->clip_mode == CS_MLP_CLIP_VALUE) {
        const float c = o->clip;
        for (int64_t i = 0; i < n; i++)
            g[i] = g[i] > c ? c : g[i] < -c ? -c : g[i];
    }
    return norm;
}

void cs_mlp_adam(cs_mlp *m, const cs_mlp_opt *o)
{
    m->t++;
    const float b1 = o->beta1, b2 = o->beta2, lr = o->lr, eps = o->eps;
    const float bc1 = (float)(1.0 - pow((double)b1, (double)m->t));
    const float bc2 = (float)(1.0 - pow((double)b2, (double)m->t));
    float *th = m->theta, *am = m->am, *av = m->av;
    const float *g = m->grad;
    for (int64_t i = 0; i < m->L.n; i++) {
        am[i] = b1 * am[i] + (1.0f - b1) * g[i];
        av[i] = b2 * av[i] + (1.0f - b2) * g[i] * g[i];
        const float mh = am[i] / bc1, vh = av[i] / bc2;
        th[i] -= lr * mh / (sqrtf(vh) + eps);
    }
}

cs_err cs_mlp_train_step(cs_ctx *ctx, cs_mlp *m, const cs_mlp_opt *o, const float *x, int64_t ldx,
                         int64_t n, const float *y, double *loss)
{
    cs_err rc = cs_mlp_loss_grad(ctx, m, x, ldx, n, y, loss);
    if (rc != CS_OK)
        return rc;
    cs_mlp_clip(m, o);
    cs_mlp_adam(m, o);
    return CS_OK;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

cs_err cs_mlp_save(cs_ctx *ctx, const cs_mlp *m, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char name[256];
    const float *part[3] = {m->theta, m->am, m->av};
    static const char *const part_name[3] = {"theta", "adam_m", "adam_v"};
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s/%s", prefix, part_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F32, m->L.n, part[i]));
    }
    snprintf(name, sizeof name, "%s/t", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, 1, &m->t));
fail:
    return rc;
}

cs_err cs_mlp_load(cs_ctx *ctx, cs_mlp *m, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char name[256];
    float *part[3] = {m->theta, m->am, m->av};
    static const char *const part_name[3] = {"theta", "adam_m", "adam_v"};
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s/%s", prefix, part_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F32, m->L.n, part[i]));
    }
    snprintf(name, sizeof name, "%s/t", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, 1, &m->t));
fail:
    return rc;
}
