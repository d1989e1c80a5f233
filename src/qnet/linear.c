/*
 * qnet/linear: the linear Q-function of Han et al. (Eq. 2, 3) over packed one-hot features.
 */
#include "crawlsim/qnet.h"

#include <stdlib.h>
#include <string.h>

#define DECODE_MAX 4

cs_err cs_qlinear_init(cs_ctx *ctx, cs_qlinear *q, const cs_feat_layout *L)
{
    cs_err rc = CS_OK;
    memset(q, 0, sizeof *q);
    q->L = L;
    CS_TRY(ctx, cs_calloc(ctx, &q->w, (size_t)L->n_weights, sizeof *q->w, "Q weights"));
    CS_TRY(ctx, cs_calloc(ctx, &q->table, (size_t)L->n_groups * 256, sizeof *q->table, "Q tables"));
    CS_TRY(ctx, cs_alloc(ctx, &q->decode, (size_t)L->n_groups * 256 * DECODE_MAX, sizeof *q->decode,
                         "Q decode tables"));
    for (int g = 0; g < L->n_groups; g++)
        for (int c = 0; c < 256; c++) {
            int16_t *d = q->decode + ((size_t)g * 256 + (size_t)c) * DECODE_MAX;
            uint8_t idx[DECODE_MAX + 4];
            int k = cs_feat_unpack(L, g, (uint8_t)c, idx);
            CS_ASSERT(k <= DECODE_MAX);
            for (int j = 0; j < DECODE_MAX; j++)
                d[j] = j < k ? (int16_t)(L->weight_off[L->group_first[g] + j] + idx[j]) : -1;
        }
    cs_qlinear_tables(q);
    return CS_OK;
fail:
    cs_qlinear_fini(q);
    return rc;
}

void cs_qlinear_fini(cs_qlinear *q)
{
    free(q->w);
    free(q->table);
    free(q->decode);
    memset(q, 0, sizeof *q);
}

void cs_qlinear_tables(cs_qlinear *q)
{
    const int G = q->L->n_groups;
    for (int g = 0; g < G; g++)
        for (int c = 0; c < 256; c++) {
            const int16_t *d = q->decode + ((size_t)g * 256 + (size_t)c) * DECODE_MAX;
            double s = 0.0;
            for (int j = 0; j < DECODE_MAX && d[j] >= 0; j++)
                s += q->w[d[j]];
            q->table[g * 256 + c] = (float)s;
        }
}

static inline double group_value(const cs_qlinear *q, int g, uint8_t code)
{
    const int16_t *d = q->decode + ((size_t)g * 256 + code) * DECODE_MAX;
    double s = 0.0;
    for (int j = 0; j < DECODE_MAX && d[j] >= 0; j++)
        s += q->w[d[j]];
    return s;
}

double cs_qlinear_value(const cs_qlinear *q, const uint8_t *codes)
{
    double s = 0.0;
    for (int g = 0; g < q->L->n_groups; g++)
        s += group_value(q, g, codes[g]);
    return s;
}

double cs_qlinear_value2(const cs_qlinear *q, const uint8_t *state, const uint8_t *action)
{
    const int gs = q->L->n_state_groups;
    double s = 0.0;
    for (int g = 0; g < gs; g++)
        s += group_value(q, g, state[g]);
    for (int g = gs; g < q->L->n_groups; g++)
        s += group_value(q, g, action[g - gs]);
    return s;
}

void cs_qlinear_step(cs_qlinear *q, const uint8_t *codes, double step)
{
    for (int g = 0; g < q->L->n_groups; g++) {
        const int16_t *d = q->decode + ((size_t)g * 256 + codes[g]) * DECODE_MAX;
        for (int j = 0; j < DECODE_MAX && d[j] >= 0; j++)
            q->w[d[j]] += step;
    }
}

void cs_qlinear_eval(const cs_qlinear *q, const uint8_t *codes, int64_t stride, int64_t n,
                     float *out)
{
    const float *t = q->table;
    const int G = q->L->n_groups;
    /* The group count is a compile-time constant in each case below (the G of 0..4 related
     * categories: 5, 7, 9, 11), so the group loop unrolls into G independent byte loads and
     * table loads; the loop over g with a run-time G cost ~2x (loop control per group). Each
     * entry is still summed from 0.0f in group order, so results are bit-identical to the
     * generic loop and independent of the thread count (static schedule: one contiguous block
     * per thread). Limit measured on Zen 5 (tests/bench/bench_frontier.c): ~0.6 cycles per table
     * lookup whether by scalar loads or AVX2/AVX-512 gathers, i.e. ~5 cycles per entry at G = 9. */
#define CS_QLINEAR_EVAL_LOOP(GG)                                                                   \
    for (int64_t i = 0; i < n; i++) {                                                              \
        const uint8_t *c = codes + i * stride;                                                     \
        float s = 0.0f;                                                                            \
        for (int g = 0; g < (GG); g++)                                                             \
            s += t[g * 256 + c[g]];                                                                \
        out[i] = s;                                                                                \
    }
#pragma omp parallel default(none) shared(t, codes, stride, n, out, G)
    switch (G) {
    case 5:
#pragma omp for schedule(static)
        CS_QLINEAR_EVAL_LOOP(5)
        break;
    case 7:
#pragma omp for schedule(static)
        CS_QLINEAR_EVAL_LOOP(7)
        break;
    case 9:
#pragma omp for schedule(static)
        CS_QLINEAR_EVAL_LOOP(9)
        break;
    case 11:
#pragma omp for schedule(static)
        CS_QLINEAR_EVAL_LOOP(11)
        break;
    default:
#pragma omp for schedule(static)
        CS_QLINEAR_EVAL_LOOP(G)
        break;
    }
#undef CS_QLINEAR_EVAL_LOOP
}
