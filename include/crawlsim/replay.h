/*
 * replay: the experience replay buffer of the TRES DDQN (Kontogiannis et al., Sec. 2.4.2,
 * Algorithm 4 lines 8, 11, 17).
 *
 * A transition is (x(s_t, a_t), r_{t+1}, the next candidate set A~_{t+1}): for the paper's target
 * (Eq. 5) A~_{t+1} is the outlinks of the page fetched at t+1 plus the Tree-Frontier sample at
 * t+1, and the target needs their state-action vectors, so they are stored with the transition,
 * exactly as the caller passes them (a variable number k >= 0 of d-float rows; k = 0 means no
 * bootstrap, y = r).
 *
 * Storage: a ring of `capacity` transitions (x, r, offset, k) and a pooled arena of `next_rows`
 * rows of d floats for the candidates, used as a FIFO ring too: a transition's k rows are
 * contiguous in the arena, and pushing evicts the oldest transitions until both the ring slot and
 * k contiguous arena rows are free. So the buffer holds the newest min(capacity, what fits in the
 * arena) transitions; size the arena for the mean out-degree (default capacity * 64 rows).
 */
#ifndef CRAWLSIM_REPLAY_H
#define CRAWLSIM_REPLAY_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"

#include <stdint.h>

typedef struct cs_replay cs_replay;

typedef struct cs_replay_config {
    int d;             /* state-action vector length, >= 1 */
    int64_t capacity;  /* transitions, >= 1; default 20000 (the authors' code) */
    int64_t next_rows; /* arena rows for next candidates, >= 0; default capacity * 64 */
} cs_replay_config;

/* A stored transition, borrowed from the buffer (valid until the next push). */
typedef struct cs_replay_item {
    const float *x;    /* d floats */
    float r;           /* reward r_{t+1} */
    const float *next; /* k rows of d floats, contiguous */
    int32_t k;
} cs_replay_item;

/* Local. Defaults for vectors of length d. */
CS_API void cs_replay_config_default(cs_replay_config *c, int d);
/* Local. An empty buffer. CS_ERR_ARG for a bad config, CS_ERR_NOMEM. */
CS_API cs_err cs_replay_create(cs_ctx *ctx, const cs_replay_config *c, cs_replay **out);
/* Local. Frees; accepts NULL and *p == NULL; sets *p = NULL. */
CS_API void cs_replay_destroy(cs_replay **p);

/*
 * Local. Appends the transition (x, r, next rows next + j * ldn for j < k), copying everything,
 * evicting the oldest transitions as needed. CS_ERR_LIMIT if k exceeds the arena (the caller
 * should cap the candidate set), CS_ERR_ARG for k < 0 or ldn < d with k > 0.
 */
CS_API cs_err cs_replay_push(cs_ctx *ctx, cs_replay *b, const float *x, float r, const float *next,
                             int64_t ldn, int32_t k);
/* Local. Transitions stored now. */
CS_API int64_t cs_replay_size(const cs_replay *b);
/* Local. Transitions pushed since creation (stored or evicted). */
CS_API int64_t cs_replay_pushed(const cs_replay *b);
/* Local. The i-th stored transition, 0 = oldest, i < cs_replay_size. */
CS_API void cs_replay_get(const cs_replay *b, int64_t i, cs_replay_item *out);
/*
 * Local. A uniform minibatch: `batch` distinct indexes (0 = oldest) drawn without replacement
 * from r (Floyd's algorithm: every batch-subset equally likely), in draw order.
 * CS_ERR_ARG if batch < 1 or batch > cs_replay_size.
 */
CS_API cs_err cs_replay_sample(cs_ctx *ctx, const cs_replay *b, cs_rng *r, int64_t batch,
                               int64_t *idx);
/* Local. Bytes allocated by the buffer. */
CS_API size_t cs_replay_bytes(const cs_replay *b);

/* Collective(ctx->comm) (ckpt.h). The live transitions in ring order and the live arena rows
 * in order, with the ring's and the arena's positions, as items under prefix; restored into an
 * empty buffer of the same configuration at the same physical places, so that later pushes
 * evict exactly as they would have. */
CS_API cs_err cs_replay_save(cs_ctx *ctx, const cs_replay *b, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_replay_load(cs_ctx *ctx, cs_replay *b, cs_ckpt *ck, const char *prefix);

#endif
