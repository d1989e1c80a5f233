/*
 * qnet: Q-functions. Here the linear Q of Han et al. (Eq. 2) over one-hot coded discretised
 * features (features.h): Q(x) = sum_f w_f[x_f], its gradient step (Eq. 3) and the batched
 * evaluation of a whole frontier, the hot loop of the synchronous method.
 *
 * The weights w are doubles (the updates are alpha ~ 1e-3 times rewards ~ 30). Evaluation uses
 * float tables T_g[code] = sum_{f in g} w_f[digit_f(code)], one per packed group of indexes,
 * rebuilt from w by cs_qlinear_tables (O(G * 32)); an entry's Q is then G table lookups, so the
 * frontier scan reads G bytes per entry. As scalar loads that is ~0.6 cycles per lookup (Zen 5),
 * far from memory bandwidth; with AVX-512 VBMI (chosen at run time) each 32-float table stays in
 * two registers and 16 entries take ~3 permutes per group: memory-bound on 2 cores
 * (tests/bench/bench_frontier.c).
 */
#ifndef CRAWLSIM_QNET_H
#define CRAWLSIM_QNET_H

#include "crawlsim/core.h"
#include "crawlsim/features.h"

#include <stdint.h>

typedef struct cs_qlinear {
    const cs_feat_layout *L; /* borrowed */
    double *w;               /* L->n_weights */
    float *table;            /* L->n_groups * CS_FEAT_CODES */
    /* decode[g * CS_FEAT_CODES + code]: offsets into w of the indexes of code (up to 4, -1
     * padded) */
    int16_t *decode;
    int scalar; /* nonzero: evaluate with the portable kernel only (tests and benchmarks) */
} cs_qlinear;

/* Local. Zero weights; caller-owned storage (cs_qlinear_fini frees). CS_ERR_NOMEM. */
CS_API cs_err cs_qlinear_init(cs_ctx *ctx, cs_qlinear *q, const cs_feat_layout *L);
CS_API void cs_qlinear_fini(cs_qlinear *q);
/* Local. Rebuilds the float tables from w. */
CS_API void cs_qlinear_tables(cs_qlinear *q);
/* Local. Q of packed codes (n_groups bytes: state then action) from w (exact, double). */
CS_API double cs_qlinear_value(const cs_qlinear *q, const uint8_t *codes);
/* Local. Q of state codes plus action codes given separately. */
CS_API double cs_qlinear_value2(const cs_qlinear *q, const uint8_t *state, const uint8_t *action);
/* Local. cs_qlinear_value2 in two steps, for one state and many actions (a page's out-links):
 * value_action(q, value_state(q, s), a) == value2(q, s, a) bit for bit (same additions, same
 * order). */
CS_API double cs_qlinear_value_state(const cs_qlinear *q, const uint8_t *state);
CS_API double cs_qlinear_value_action(const cs_qlinear *q, double partial, const uint8_t *action);
/* Local. The gradient step w_f[x_f] += step for every index of x (the gradient of a one-hot
 * linear Q is x itself). */
CS_API void cs_qlinear_step(cs_qlinear *q, const uint8_t *codes, double step);
/* Local. The indexes into w of the features of x (the weights cs_qlinear_step moves), into
 * idx (room for n_groups * 4); returns how many. */
CS_API int cs_qlinear_indexes(const cs_qlinear *q, const uint8_t *codes, int32_t *idx);
/*
 * Local. The hot loop: out[i] = sum_g T_g[codes[i * stride + g]] for i in [0, n), from the
 * tables (call cs_qlinear_tables after changing w). OpenMP-parallel over entries; the result
 * depends neither on the thread count nor on the kernel (each entry is summed in group order
 * from 0.0f by both).
 */
CS_API void cs_qlinear_eval(const cs_qlinear *q, const uint8_t *codes, int64_t stride, int64_t n,
                            float *out);
/* Local. cs_qlinear_eval of out[0..n) on the calling thread alone (the same values): for a
 * caller that shares the entries among its threads itself. */
CS_API void cs_qlinear_eval_range(const cs_qlinear *q, const uint8_t *codes, int64_t stride,
                                  int64_t n, float *out);
/* Local. The kernel cs_qlinear_eval uses for rows of `stride` bytes: "avx512" (x86-64 with
 * AVX-512 F/BW/VBMI, stride <= 16) or "scalar". */
CS_API const char *cs_qlinear_eval_kernel(const cs_qlinear *q, int64_t stride);
/* Local, for tests and benchmarks: on = 1 makes cs_qlinear_eval use the scalar kernel. */
CS_API void cs_qlinear_eval_force_scalar(cs_qlinear *q, int on);

#endif
