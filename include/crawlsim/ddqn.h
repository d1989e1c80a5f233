/*
 * ddqn: the Double DQN learner of TRES (Kontogiannis et al., Sec. 2.4.2, Eq. 5; van Hasselt et
 * al. 2016): an online and a target MLP (mlp.h), minibatches from a replay buffer (replay.h),
 *
 *     y = r + gamma * Q_target(x*),   x* = argmax_{x' in A~_{t+1}} Q_online(x')    (Eq. 5)
 *
 * over the candidates stored with each transition (y = r when there are none), one Adam step
 * on the minibatch MSE, and the target network copied from the online one every
 * `target_every` steps.
 *
 * Defaults (cs_ddqn_config_default) are the authors' code: 7 -> 30 -> 15 -> 1, LeakyReLU 0.1,
 * Adam lr 1e-3, MSE, gamma 0.99, batch 60, target copied every 500 steps; gradients clipped by
 * global norm 1.0 (the authors' Keras code clips each component to [-1, 1]:
 * opt.clip_mode = CS_MLP_CLIP_VALUE). The paper argues for a small gamma (0.3); set it here.
 */
#ifndef CRAWLSIM_DDQN_H
#define CRAWLSIM_DDQN_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/mlp.h"
#include "crawlsim/replay.h"
#include "crawlsim/rng.h"

#include <stdint.h>

typedef struct cs_ddqn cs_ddqn;

typedef struct cs_ddqn_config {
    cs_mlp_config net;
    cs_mlp_opt opt;
    cs_mlp_init init;
    float gamma;          /* discount, in [0, 1] */
    int batch;            /* minibatch size, >= 1 */
    int64_t target_every; /* training steps between target copies, >= 1 */
} cs_ddqn_config;

/* Local. The defaults above. */
CS_API void cs_ddqn_config_default(cs_ddqn_config *c);

/* Local. Online network initialised from r (cs_mlp_init_weights), target = copy of it.
 * CS_ERR_ARG for a bad config, CS_ERR_NOMEM. */
CS_API cs_err cs_ddqn_create(cs_ctx *ctx, const cs_ddqn_config *c, cs_rng *r, cs_ddqn **out);
/* Local. Frees; accepts NULL and *p == NULL; sets *p = NULL. */
CS_API void cs_ddqn_destroy(cs_ddqn **p);

/* Local. The networks, borrowed (owned by q). */
CS_API cs_mlp *cs_ddqn_online(cs_ddqn *q);
CS_API cs_mlp *cs_ddqn_target(cs_ddqn *q);
/* Local. Training steps taken. */
CS_API int64_t cs_ddqn_steps(const cs_ddqn *q);

/*
 * Local. The DDQN targets (Eq. 5) of the stored transitions idx[0..n): the online network is
 * evaluated on all their candidates in one batch, the target network on the n argmax rows in a
 * second (ties: the first candidate). Writes y[0..n). CS_ERR_NOMEM.
 */
CS_API cs_err cs_ddqn_targets(cs_ctx *ctx, cs_ddqn *q, const cs_replay *b, const int64_t *idx,
                              int64_t n, float *y);

/*
 * Local. One training step: a uniform minibatch of c->batch transitions from r
 * (cs_replay_sample), their targets, one clipped Adam step on the MSE of the online network;
 * then, when the step count reaches a multiple of target_every, target = online.
 * *loss receives the minibatch loss before the step. CS_ERR_ARG if the buffer holds fewer than
 * c->batch transitions; CS_ERR_NOMEM.
 */
CS_API cs_err cs_ddqn_train(cs_ctx *ctx, cs_ddqn *q, const cs_replay *b, cs_rng *r, double *loss);

/* Collective(ctx->comm) (ckpt.h). The online and target networks (cs_mlp_save under
 * "<prefix>/online" and "<prefix>/target") and the training step count, and their restoration
 * into a DDQN of the same configuration. */
CS_API cs_err cs_ddqn_save(cs_ctx *ctx, const cs_ddqn *q, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_ddqn_load(cs_ctx *ctx, cs_ddqn *q, cs_ckpt *ck, const char *prefix);

#endif
