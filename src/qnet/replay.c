/*
 * qnet/replay: the TRES experience replay (Kontogiannis et al., Sec. 2.4.2): a ring of
 * transitions whose next-candidate vectors live in a FIFO ring arena. See crawlsim/replay.h.
 */
#include "crawlsim/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cs_replay {
    cs_replay_config c;
    float *x;     /* capacity * d */
    float *r;     /* capacity */
    int64_t *off; /* capacity: first arena row of the transition's candidates */
    int32_t *k;   /* capacity */
    int64_t head; /* slot of the oldest transition */
    int64_t size;
    int64_t pushed;
    float *arena;      /* next_rows * d */
    int64_t a_head;    /* first row of the oldest live block (valid when a_used > 0) */
    int64_t a_tail;    /* row after the newest block */
    int64_t a_used;    /* rows held by live blocks */
    int64_t a_nblocks; /* live transitions with k > 0 */
};

void cs_replay_config_default(cs_replay_config *c, int d)
{
    c->d = d;
    c->capacity = 20000;
    c->next_rows = c->capacity * 64;
}

cs_err cs_replay_create(cs_ctx *ctx, const cs_replay_config *c, cs_replay **out)
{
    cs_err rc = CS_OK;
    cs_replay *b = NULL;
    if (c->d < 1 || c->capacity < 1 || c->next_rows < 0 || c->capacity > INT64_MAX / 64 / c->d ||
        c->next_rows > INT64_MAX / 64 / c->d)
        return cs_fail(ctx, CS_ERR_ARG, "replay: bad config d %d capacity %lld next_rows %lld",
                       c->d, (long long)c->capacity, (long long)c->next_rows);
    CS_TRY(ctx, cs_calloc(ctx, &b, 1, sizeof *b, "replay"));
    b->c = *c;
    const size_t cap = (size_t)c->capacity, d = (size_t)c->d;
    CS_TRY(ctx, cs_alloc(ctx, &b->x, cap * d, sizeof *b->x, "replay vectors"));
    CS_TRY(ctx, cs_alloc(ctx, &b->r, cap, sizeof *b->r, "replay rewards"));
    CS_TRY(ctx, cs_alloc(ctx, &b->off, cap, sizeof *b->off, "replay offsets"));
    CS_TRY(ctx, cs_alloc(ctx, &b->k, cap, sizeof *b->k, "replay counts"));
    if (c->next_rows > 0)
        CS_TRY(ctx, cs_alloc(ctx, &b->arena, (size_t)c->next_rows * d, sizeof *b->arena,
                             "replay next-candidate arena"));
    *out = b;
    return CS_OK;
fail:
    cs_replay_destroy(&b);
    return rc;
}

void cs_replay_destroy(cs_replay **p)
{
    if (p == NULL || *p == NULL)
        return;
    cs_replay *b = *p;
    free(b->x);
    free(b->r);
    free(b->off);
    free(b->k);
    free(b->arena);
    free(b);
    *p = NULL;
}

int64_t cs_replay_size(const cs_replay *b)
{
    return b->size;
}
int64_t cs_replay_pushed(const cs_replay *b)
{
    return b->pushed;
}

size_t cs_replay_bytes(const cs_replay *b)
{
    const size_t cap = (size_t)b->c.capacity, d = (size_t)b->c.d;
    return sizeof *b +
           cap * (d * sizeof(float) + sizeof(float) + sizeof(int64_t) + sizeof(int32_t)) +
           (size_t)b->c.next_rows * d * sizeof(float);
}

/* Drops the oldest transition; the arena head moves to the next live block. */
static void evict_oldest(cs_replay *b)
{
    CS_ASSERT(b->size > 0);
    const int64_t s = b->head;
    if (b->k[s] > 0) {
        b->a_used -= b->k[s];
        b->a_nblocks--;
        if (b->a_nblocks == 0) {
            b->a_head = b->a_tail = 0;
        } else {
            /* the next transition holding rows: blocks are allocated in push order */
            int64_t j = s;
            do
                j = (j + 1) % b->c.capacity;
            while (b->k[j] == 0);
            b->a_head = b->off[j];
        }
    }
    b->head = (b->head + 1) % b->c.capacity;
    b->size--;
}

/* First row of k free contiguous arena rows, evicting as needed (k >= 1, k <= next_rows). */
static int64_t arena_alloc(cs_replay *b, int64_t k)
{
    const int64_t R = b->c.next_rows;
    for (;;) {
        if (b->a_nblocks == 0)
            return 0; /* empty: a_head = a_tail = 0 */
        if (b->a_tail > b->a_head) {
            /* live rows [a_head, a_tail): free at the end, else wrap to [0, a_head) */
            if (R - b->a_tail >= k)
                return b->a_tail;
            if (b->a_head >= k)
                return 0;
        } else if (b->a_head - b->a_tail >= k) {
            /* wrapped: live rows [a_head, end) and [0, a_tail); free [a_tail, a_head) */
            return b->a_tail;
        }
        evict_oldest(b);
    }
}

cs_err cs_replay_push(cs_ctx *ctx, cs_replay *b, const float *x, float r, const float *next,
                      int64_t ldn, int32_t k)
{
    const int64_t d = b->c.d;
    if (k < 0 || (k > 0 && (ldn < d || next == NULL)))
        return cs_fail(ctx, CS_ERR_ARG, "replay push: k %d, ldn %lld", k, (long long)ldn);
    if (k > b->c.next_rows)
        return cs_fail(ctx, CS_ERR_LIMIT,
                       "replay push: %d next candidates exceed the arena of %lld rows", k,
                       (long long)b->c.next_rows);
    if (b->size == b->c.capacity)
        evict_oldest(b);
    int64_t off = 0;
    if (k > 0) {
        off = arena_alloc(b, k);
        for (int64_t j = 0; j < k; j++)
            memcpy(b->arena + (off + j) * d, next + j * ldn, (size_t)d * sizeof *b->arena);
        if (b->a_nblocks == 0)
            b->a_head = off;
        b->a_tail = off + k;
        b->a_used += k;
        b->a_nblocks++;
    }
    const int64_t s = (b->head + b->size) % b->c.capacity;
    memcpy(b->x + s * d, x, (size_t)d * sizeof *b->x);
    b->r[s] = r;
    b->off[s] = off;
    b->k[s] = k;
    b->size++;
    b->pushed++;
    return CS_OK;
}

void cs_replay_get(const cs_replay *b, int64_t i, cs_replay_item *out)
{
    CS_ASSERT(i >= 0 && i < b->size);
    const int64_t s = (b->head + i) % b->c.capacity, d = b->c.d;
    out->x = b->x + s * d;
    out->r = b->r[s];
    out->k = b->k[s];
    out->next = b->k[s] > 0 ? b->arena + b->off[s] * d : NULL;
}

cs_err cs_replay_sample(cs_ctx *ctx, const cs_replay *b, cs_rng *r, int64_t batch, int64_t *idx)
{
    const int64_t n = b->size;
    if (batch < 1 || batch > n)
        return cs_fail(ctx, CS_ERR_ARG, "replay sample: batch %lld of %lld stored",
                       (long long)batch, (long long)n);
    /* Floyd: for j = n-batch .. n-1 draw t in [0, j]; take t unless taken, else j. Membership by
     * a linear scan: minibatches are small (tens). */
    int64_t m = 0;
    for (int64_t j = n - batch; j < n; j++) {
        const int64_t t = (int64_t)cs_rng_below(r, (uint64_t)(j + 1));
        int taken = 0;
        for (int64_t q = 0; q < m && !taken; q++)
            taken = idx[q] == t;
        idx[m++] = taken ? j : t;
    }
    return CS_OK;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

enum {
    RB_CAP,
    RB_D,
    RB_ROWS,
    RB_HEAD,
    RB_SIZE,
    RB_PUSHED,
    RB_AHEAD,
    RB_ATAIL,
    RB_AUSED,
    RB_ABLK,
    RB_N
};

/* The live arena rows as at most two ranges [lo0, hi0) and [lo1, hi1). */
static void live_rows(const cs_replay *b, int64_t r[4])
{
    r[0] = r[1] = r[2] = r[3] = 0;
    if (b->a_nblocks == 0)
        return;
    if (b->a_tail > b->a_head) {
        r[0] = b->a_head;
        r[1] = b->a_tail;
    } else {
        r[0] = b->a_head;
        r[1] = b->c.next_rows;
        r[3] = b->a_tail;
    }
}

/* Local. The flat arrays of a checkpoint of n transitions (d floats each) and nrows next-state
 * rows, for cs_replay_save and cs_replay_load alike (the caller frees them). */
static cs_err ckpt_buffers(cs_ctx *ctx, int64_t n, int64_t d, int64_t nrows, float **x, float **r,
                           int64_t **off, int32_t **k, float **rows)
{
    cs_err rc = cs_alloc(ctx, x, (size_t)(n * d + 1), sizeof **x, "replay checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, r, (size_t)n + 1, sizeof **r, "replay checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, off, (size_t)n + 1, sizeof **off, "replay checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, k, (size_t)n + 1, sizeof **k, "replay checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, rows, (size_t)(nrows * d + 1), sizeof **rows, "replay checkpoint");
    return rc;
}

cs_err cs_replay_save(cs_ctx *ctx, const cs_replay *b, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char name[256];
    const int64_t d = b->c.d, n = b->size, cap = b->c.capacity;
    float *x = NULL, *r = NULL, *rows = NULL;
    int64_t *off = NULL;
    int32_t *k = NULL;
    int64_t lr[4];
    live_rows(b, lr);
    const int64_t nrows = (lr[1] - lr[0]) + (lr[3] - lr[2]);
    CS_TRY_AGREE(ctx, ckpt_buffers(ctx, n, d, nrows, &x, &r, &off, &k, &rows));
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = (b->head + i) % cap;
        memcpy(x + i * d, b->x + s * d, (size_t)d * sizeof *x);
        r[i] = b->r[s];
        off[i] = b->off[s];
        k[i] = b->k[s];
    }
    memcpy(rows, b->arena + lr[0] * d, (size_t)((lr[1] - lr[0]) * d) * sizeof *rows);
    memcpy(rows + (lr[1] - lr[0]) * d, b->arena + lr[2] * d,
           (size_t)((lr[3] - lr[2]) * d) * sizeof *rows);
    const int64_t sc[RB_N] = {cap,       d,         b->c.next_rows, b->head,   b->size,
                              b->pushed, b->a_head, b->a_tail,      b->a_used, b->a_nblocks};
    snprintf(name, sizeof name, "%s/state", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, RB_N, sc));
    snprintf(name, sizeof name, "%s/x", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F32, n * d, x));
    snprintf(name, sizeof name, "%s/r", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F32, n, r));
    snprintf(name, sizeof name, "%s/off", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, n, off));
    snprintf(name, sizeof name, "%s/k", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I32, n, k));
    snprintf(name, sizeof name, "%s/arena", prefix);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F32, nrows * d, rows));
fail:
    free(x);
    free(r);
    free(off);
    free(k);
    free(rows);
    return rc;
}

cs_err cs_replay_load(cs_ctx *ctx, cs_replay *b, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char name[256];
    const int64_t d = b->c.d, cap = b->c.capacity;
    float *x = NULL, *r = NULL, *rows = NULL;
    int64_t *off = NULL, n = 0, nrows = 0;
    int32_t *k = NULL;
    int64_t sc[RB_N];
    snprintf(name, sizeof name, "%s/state", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, RB_N, sc));
    if (sc[RB_CAP] != cap || sc[RB_D] != d || sc[RB_ROWS] != b->c.next_rows || sc[RB_SIZE] < 0 ||
        sc[RB_SIZE] > cap || sc[RB_HEAD] < 0 || sc[RB_HEAD] >= cap || sc[RB_AHEAD] < 0 ||
        sc[RB_AHEAD] > sc[RB_ROWS] || sc[RB_ATAIL] < 0 || sc[RB_ATAIL] > sc[RB_ROWS])
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: replay buffer %s of another configuration",
                     cs_ckpt_path(ck), prefix);
    CS_TRY_AGREE(ctx, rc);
    b->head = sc[RB_HEAD];
    b->size = n = sc[RB_SIZE];
    b->pushed = sc[RB_PUSHED];
    b->a_head = sc[RB_AHEAD];
    b->a_tail = sc[RB_ATAIL];
    b->a_used = sc[RB_AUSED];
    b->a_nblocks = sc[RB_ABLK];
    int64_t lr[4];
    live_rows(b, lr);
    nrows = (lr[1] - lr[0]) + (lr[3] - lr[2]);
    CS_TRY_AGREE(ctx, ckpt_buffers(ctx, n, d, nrows, &x, &r, &off, &k, &rows));
    snprintf(name, sizeof name, "%s/x", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F32, n * d, x));
    snprintf(name, sizeof name, "%s/r", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F32, n, r));
    snprintf(name, sizeof name, "%s/off", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, n, off));
    snprintf(name, sizeof name, "%s/k", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I32, n, k));
    snprintf(name, sizeof name, "%s/arena", prefix);
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F32, nrows * d, rows));
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = (b->head + i) % cap;
        memcpy(b->x + s * d, x + i * d, (size_t)d * sizeof *x);
        b->r[s] = r[i];
        b->off[s] = off[i];
        b->k[s] = k[i];
    }
    memcpy(b->arena + lr[0] * d, rows, (size_t)((lr[1] - lr[0]) * d) * sizeof *rows);
    memcpy(b->arena + lr[2] * d, rows + (lr[1] - lr[0]) * d,
           (size_t)((lr[3] - lr[2]) * d) * sizeof *rows);
fail:
    free(x);
    free(r);
    free(off);
    free(k);
    free(rows);
    return rc;
}
