/*
 * qnet: Q-functions. Here the linear Q of Han et al. (Eq. 2) over one-hot coded discretised
 * features (features.h): Q(x) = sum_f w_f[x_f], its gradient step (Eq. 3) and the batched
 * evaluation of a whole frontier, the hot loop of the synchronous method.
 *
 * The weights w are doubles (the updates are alpha ~ 1e-3 times rewards ~ 30). Evaluation uses
 * float tables T_g[code] = sum_{f in g} w_f[digit_f(code)], one per packed group of indexes,
 * rebuilt from w by cs_qlinear_tables (O(G * 256)); an entry's Q is then G table lookups, so the
 * frontier scan reads G bytes per entry and is bound by memory bandwidth or by L1 loads.
 */
#ifndef CRAWLSIM_QNET_H
#define CRAWLSIM_QNET_H

#include "crawlsim/core.h"
#include "crawlsim/features.h"

#include <stdint.h>

typedef struct cs_qlinear {
    const cs_feat_layout *L; /* borrowed */
    double *w;               /* L->n_weights */
    float *table;            /* L->n_groups * 256 */
    /* decode[g * 256 + code]: offsets into w of the indexes of code (up to 4, -1 padded) */
    int16_t *decode;
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
/* Local. The gradient step w_f[x_f] += step for every index of x (the gradient of a one-hot
 * linear Q is x itself). */
CS_API void cs_qlinear_step(cs_qlinear *q, const uint8_t *codes, double step);
/*
 * Local. The hot loop: out[i] = sum_g T_g[codes[i * stride + g]] for i in [0, n), from the
 * tables (call cs_qlinear_tables after changing w). OpenMP-parallel over entries; the result
 * does not depend on the thread count (each entry is summed in group order).
 */
CS_API void cs_qlinear_eval(const cs_qlinear *q, const uint8_t *codes, int64_t stride, int64_t n,
                            float *out);

#endif
