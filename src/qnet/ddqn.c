/*
 * qnet/ddqn: the Double DQN update of TRES (Kontogiannis et al., Sec. 2.4.2, Eq. 5) on the MLP
 * and the replay buffer. See crawlsim/ddqn.h.
 */
#include "crawlsim/ddqn.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cs_ddqn {
    cs_ddqn_config c;
    cs_mlp *online, *target;
    int64_t steps;
    /* scratch, grown on demand */
    float *cand; /* candidate rows of a minibatch */
    size_t cand_cap;
    float *qcand; /* their online values */
    size_t qcand_cap;
    float *best; /* n argmax rows */
    size_t best_cap;
    float *qbest; /* their target values */
    size_t qbest_cap;
    float *xb; /* minibatch inputs */
    size_t xb_cap;
    float *yb;
    size_t yb_cap;
    int64_t *idx;
    size_t idx_cap;
    int64_t *ko; /* cs_ddqn_train: the minibatch's first candidate row of each transition */
    size_t ko_cap;
    float *escr; /* and its evaluation scratch, per thread */
    size_t escr_cap;
};

void cs_ddqn_config_default(cs_ddqn_config *c)
{
    cs_mlp_config_default(&c->net);
    cs_mlp_opt_default(&c->opt);
    c->init = CS_MLP_INIT_GLOROT;
    c->gamma = 0.99f;
    c->batch = 60;
    c->target_every = 500;
}

cs_err cs_ddqn_create(cs_ctx *ctx, const cs_ddqn_config *c, cs_rng *r, cs_ddqn **out)
{
    cs_err rc = CS_OK;
    cs_ddqn *q = NULL;
    if (!(c->gamma >= 0.0f && c->gamma <= 1.0f) || c->batch < 1 || c->target_every < 1)
        return cs_fail(ctx, CS_ERR_ARG, "ddqn: bad config gamma %g batch %d target_every %lld",
                       (double)c->gamma, c->batch, (long long)c->target_every);
    CS_TRY(ctx, cs_calloc(ctx, &q, 1, sizeof *q, "DDQN"));
    q->c = *c;
    CS_TRY(ctx, cs_mlp_create(ctx, &c->net, &q->online));
    CS_TRY(ctx, cs_mlp_create(ctx, &c->net, &q->target));
    cs_mlp_init_weights(q->online, c->init, r);
    CS_TRY(ctx, cs_mlp_copy(ctx, q->target, q->online));
    *out = q;
    return CS_OK;
fail:
    cs_ddqn_destroy(&q);
    return rc;
}

void cs_ddqn_destroy(cs_ddqn **p)
{
    if (p == NULL || *p == NULL)
        return;
    cs_ddqn *q = *p;
    cs_mlp_destroy(&q->online);
    cs_mlp_destroy(&q->target);
    free(q->cand);
    free(q->qcand);
    free(q->best);
    free(q->qbest);
    free(q->xb);
    free(q->yb);
    free(q->idx);
    free(q->ko);
    free(q->escr);
    free(q);
    *p = NULL;
}

cs_mlp *cs_ddqn_online(cs_ddqn *q)
{
    return q->online;
}
cs_mlp *cs_ddqn_target(cs_ddqn *q)
{
    return q->target;
}
int64_t cs_ddqn_steps(const cs_ddqn *q)
{
    return q->steps;
}

/* Local. The scratch of a targets computation: total candidate rows of d features over n
 * transitions, their values, and each transition's argmax row and target value. */
static cs_err grow_scratch(cs_ctx *ctx, cs_ddqn *q, int64_t total, int64_t n, int64_t d)
{
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &q->cand, &q->cand_cap, (size_t)(total * d), sizeof(float),
                        "DDQN candidates"));
    CS_TRY(ctx, cs_grow(ctx, &q->qcand, &q->qcand_cap, (size_t)total, sizeof(float),
                        "DDQN candidate values"));
    CS_TRY(ctx, cs_grow(ctx, &q->best, &q->best_cap, (size_t)(n * d), sizeof(float),
                        "DDQN argmax rows"));
    CS_TRY(ctx,
           cs_grow(ctx, &q->qbest, &q->qbest_cap, (size_t)n, sizeof(float), "DDQN target values"));
fail:
    return rc;
}

/* The targets y[0..n) of transitions idx[0..n) whose candidates' online values are in q->qcand
 * (rows in transition order, q->cand): the argmax rows, their target values, Eq. 5. */
static cs_err finish_targets(cs_ctx *ctx, cs_ddqn *q, const cs_replay *b, const int64_t *idx,
                             int64_t n, float *y)
{
    cs_err rc = CS_OK;
    const int64_t d = q->c.net.d_in;
    /* argmax of the online values per transition; rows without candidates get a dummy row */
    int64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
        cs_replay_item it;
        cs_replay_get(b, idx[i], &it);
        int64_t a = 0;
        for (int64_t j = 1; j < it.k; j++)
            if (q->qcand[o + j] > q->qcand[o + a])
                a = j;
        if (it.k > 0)
            memcpy(q->best + i * d, q->cand + (o + a) * d, (size_t)d * sizeof(float));
        else
            memset(q->best + i * d, 0, (size_t)d * sizeof(float));
        o += it.k;
    }
    CS_TRY(ctx, cs_mlp_eval(ctx, q->target, q->best, d, n, q->qbest));
    for (int64_t i = 0; i < n; i++) {
        cs_replay_item it;
        cs_replay_get(b, idx[i], &it);
        y[i] = it.k > 0 ? it.r + q->c.gamma * q->qbest[i] : it.r;
    }
fail:
    return rc;
}

cs_err cs_ddqn_targets(cs_ctx *ctx, cs_ddqn *q, const cs_replay *b, const int64_t *idx, int64_t n,
                       float *y)
{
    cs_err rc = CS_OK;
    const int64_t d = q->c.net.d_in;
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        cs_replay_item it;
        cs_replay_get(b, idx[i], &it);
        total += it.k;
    }
    CS_TRY(ctx, grow_scratch(ctx, q, total, n, d));
    int64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
        cs_replay_item it;
        cs_replay_get(b, idx[i], &it);
        if (it.k > 0)
            memcpy(q->cand + o * d, it.next, (size_t)(it.k * d) * sizeof(float));
        o += it.k;
    }
    CS_TRY(ctx, cs_mlp_eval(ctx, q->online, q->cand, d, total, q->qcand));
    CS_TRY(ctx, finish_targets(ctx, q, b, idx, n, y));
    return CS_OK;
fail:
    return rc;
}

/* Local. The candidates' rows [r0, r1) of the minibatch (transitions idx[0..n), the first row
 * of each in ko[0..n]) copied from the buffer into cand. */
static void gather_rows(const cs_replay *b, const int64_t *idx, const int64_t *ko, int64_t n,
                        int64_t d, int64_t r0, int64_t r1, float *cand)
{
    for (int64_t i = 0; i < n; i++) {
        const int64_t a = ko[i] > r0 ? ko[i] : r0, e = ko[i + 1] < r1 ? ko[i + 1] : r1;
        if (a >= e)
            continue;
        cs_replay_item it;
        cs_replay_get(b, idx[i], &it);
        memcpy(cand + a * d, it.next + (a - ko[i]) * d, (size_t)((e - a) * d) * sizeof(float));
    }
}

/* One training step. The work that grows with the candidates runs on the OpenMP threads as
 * tasks of one region: each chunk of CS_MLP_CHUNK candidate rows (gathered from the buffer,
 * then valued by the online network: cs_mlp_eval's chunks) and, as one more task, the
 * minibatch's rows with the online network's forward pass of the loss (it reads the same
 * parameters). Every task writes its own outputs, so the result is that of cs_ddqn_targets
 * then cs_mlp_train_step, bit for bit, for any thread count; the argmax rows' target values
 * and the backward pass (n rows) stay on the calling thread. */
cs_err cs_ddqn_train(cs_ctx *ctx, cs_ddqn *q, const cs_replay *b, cs_rng *r, double *loss)
{
    cs_err rc = CS_OK;
    const int64_t n = q->c.batch, d = q->c.net.d_in;
    CS_TRY(ctx, cs_grow(ctx, &q->idx, &q->idx_cap, (size_t)n, sizeof(int64_t), "DDQN batch"));
    CS_TRY(ctx, cs_grow(ctx, &q->xb, &q->xb_cap, (size_t)(n * d), sizeof(float), "DDQN batch"));
    CS_TRY(ctx, cs_grow(ctx, &q->yb, &q->yb_cap, (size_t)n, sizeof(float), "DDQN batch"));
    CS_TRY(ctx, cs_grow(ctx, &q->ko, &q->ko_cap, (size_t)n + 1, sizeof(int64_t), "DDQN batch"));
    CS_TRY(ctx, cs_replay_sample(ctx, b, r, n, q->idx));
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        cs_replay_item it;
        cs_replay_get(b, q->idx[i], &it);
        q->ko[i] = total;
        total += it.k;
    }
    q->ko[n] = total;
    CS_TRY(ctx, grow_scratch(ctx, q, total, n, d));
    const int64_t nchunks = (total + CS_MLP_CHUNK - 1) / CS_MLP_CHUNK;
    const int nthreads = nchunks > 1 ? omp_get_max_threads() : 1;
    const int64_t per = (int64_t)CS_MLP_CHUNK * (q->c.net.h1 + q->c.net.h2);
    CS_TRY(ctx, cs_grow(ctx, &q->escr, &q->escr_cap, (size_t)(nthreads * per), sizeof(float),
                        "DDQN scratch"));
    CS_TRY(ctx, cs_mlp_train_reserve(ctx, q->online, n));
    const cs_ddqn *cq = q;
    cs_mlp *on = q->online;
    const int64_t *idx = q->idx, *ko = q->ko;
    float *cand = q->cand, *qcand = q->qcand, *xb = q->xb, *escr = q->escr;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) default(none)                  \
    shared(cq, on, b, idx, ko, n, d, total, nchunks, per, cand, qcand, xb, escr)
    for (int64_t task = 0; task <= nchunks; task++) {
        if (task < nchunks) {
            const int64_t r0 = task * CS_MLP_CHUNK;
            const int64_t r1 = total - r0 < CS_MLP_CHUNK ? total : r0 + CS_MLP_CHUNK;
            gather_rows(b, idx, ko, n, d, r0, r1, cand);
            cs_mlp_eval_rows(cq->online, cand + r0 * d, d, r1 - r0,
                             escr + (int64_t)omp_get_thread_num() * per, qcand + r0);
        } else {
            for (int64_t i = 0; i < n; i++) {
                cs_replay_item it;
                cs_replay_get(b, idx[i], &it);
                memcpy(xb + i * d, it.x, (size_t)d * sizeof(float));
            }
            cs_mlp_forward_kept(on, xb, d, n);
        }
    }
    CS_TRY(ctx, finish_targets(ctx, q, b, q->idx, n, q->yb));
    cs_mlp_backward(q->online, q->xb, d, n, q->yb, loss);
    cs_mlp_clip(q->online, &q->c.opt);
    cs_mlp_adam(q->online, &q->c.opt);
    q->steps++;
    if (q->steps % q->c.target_every == 0)
        CS_TRY(ctx, cs_mlp_copy(ctx, q->target, q->online));
    return CS_OK;
fail:
    return rc;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

cs_err cs_ddqn_save(cs_ctx *ctx, const cs_ddqn *q, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char name[256];
    snprintf(name, sizeof name, "%s/online", prefix);
    CS_TRY(ctx, cs_mlp_save(ctx, q->online, ck, name));
    snprintf(name, sizeof name, "%s/target", prefix);
    CS_TRY(ctx, cs_mlp_save(ctx, q->target, ck, name));
    snprintf(name, sizeof name, "%s/steps", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, 1, &q->steps));
fail:
    return rc;
}

cs_err cs_ddqn_load(cs_ctx *ctx, cs_ddqn *q, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char name[256];
    snprintf(name, sizeof name, "%s/online", prefix);
    CS_TRY(ctx, cs_mlp_load(ctx, q->online, ck, name));
    snprintf(name, sizeof name, "%s/target", prefix);
    CS_TRY(ctx, cs_mlp_load(ctx, q->target, ck, name));
    snprintf(name, sizeof name, "%s/steps", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, 1, &q->steps));
fail:
    return rc;
}
