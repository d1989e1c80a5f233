/*
 * qnet/linear: the linear Q-function of Han et al. (Eq. 2, 3) over packed one-hot features.
 */
#include "crawlsim/qnet.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define DECODE_MAX 4

cs_err cs_qlinear_init(cs_ctx *ctx, cs_qlinear *q, const cs_feat_layout *L)
{
    cs_err rc = CS_OK;
    memset(q, 0, sizeof *q);
    q->L = L;
    CS_TRY(ctx, cs_calloc(ctx, &q->w, (size_t)L->n_weights, sizeof *q->w, "Q weights"));
    CS_TRY(ctx, cs_calloc(ctx, &q->table, (size_t)L->n_groups * CS_FEAT_CODES, sizeof *q->table,
                          "Q tables"));
    CS_TRY(ctx, cs_alloc(ctx, &q->decode, (size_t)L->n_groups * CS_FEAT_CODES * DECODE_MAX,
                         sizeof *q->decode, "Q decode tables"));
    for (int g = 0; g < L->n_groups; g++)
        for (int c = 0; c < CS_FEAT_CODES; c++) {
            int16_t *d = q->decode + ((size_t)g * CS_FEAT_CODES + (size_t)c) * DECODE_MAX;
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
        for (int c = 0; c < CS_FEAT_CODES; c++) {
            const int16_t *d = q->decode + ((size_t)g * CS_FEAT_CODES + (size_t)c) * DECODE_MAX;
            double s = 0.0;
            for (int j = 0; j < DECODE_MAX && d[j] >= 0; j++)
                s += q->w[d[j]];
            q->table[g * CS_FEAT_CODES + c] = (float)s;
        }
}

static inline double group_value(const cs_qlinear *q, int g, uint8_t code)
{
    const int16_t *d = q->decode + ((size_t)g * CS_FEAT_CODES + code) * DECODE_MAX;
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

double cs_qlinear_value_state(const cs_qlinear *q, const uint8_t *state)
{
    double s = 0.0;
    for (int g = 0; g < q->L->n_state_groups; g++)
        s += group_value(q, g, state[g]);
    return s;
}

double cs_qlinear_value_action(const cs_qlinear *q, double partial, const uint8_t *action)
{
    const int gs = q->L->n_state_groups;
    double s = partial;
    for (int g = gs; g < q->L->n_groups; g++)
        s += group_value(q, g, action[g - gs]);
    return s;
}

void cs_qlinear_step(cs_qlinear *q, const uint8_t *codes, double step)
{
    for (int g = 0; g < q->L->n_groups; g++) {
        const int16_t *d = q->decode + ((size_t)g * CS_FEAT_CODES + codes[g]) * DECODE_MAX;
        for (int j = 0; j < DECODE_MAX && d[j] >= 0; j++)
            q->w[d[j]] += step;
    }
}

int cs_qlinear_indexes(const cs_qlinear *q, const uint8_t *codes, int32_t *idx)
{
    int k = 0;
    for (int g = 0; g < q->L->n_groups; g++) {
        const int16_t *d = q->decode + ((size_t)g * CS_FEAT_CODES + codes[g]) * DECODE_MAX;
        for (int j = 0; j < DECODE_MAX && d[j] >= 0; j++)
            idx[k++] = d[j];
    }
    return k;
}

/*
 * The scalar evaluation of entries [i0, i1): each entry summed from 0.0f in group order. The
 * group count is a compile-time constant in the cases below (the G of 0..4 related categories:
 * 7, 10, 12, 14, 16), so the group loop unrolls; a run-time G costs ~2x (loop control). Eight
 * entries go together so that their chains of dependent additions overlap.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* gcc's vectoriser packs the eight sums into SSE registers and keeps the group loop rolled:
 * 3x slower than plain scalar code */
__attribute__((optimize("no-tree-vectorize")))
#endif
static void
eval_scalar(const float *t, const uint8_t *codes, int64_t stride, int64_t i0, int64_t i1, int G,
            float *out)
{
#define CS_QLINEAR_EVAL_LOOP(GG)                                                                   \
    for (; i + 8 <= i1; i += 8) { /* eight entries' chains of additions in flight */               \
        const uint8_t *c = codes + i * stride;                                                     \
        float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};                             \
        for (int g = 0; g < (GG); g++)                                                             \
            for (int k = 0; k < 8; k++)                                                            \
                s[k] += t[g * CS_FEAT_CODES + c[k * stride + g]];                                  \
        for (int k = 0; k < 8; k++)                                                                \
            out[i + k] = s[k];                                                                     \
    }                                                                                              \
    for (; i < i1; i++) {                                                                          \
        const uint8_t *c = codes + i * stride;                                                     \
        float s = 0.0f;                                                                            \
        for (int g = 0; g < (GG); g++)                                                             \
            s += t[g * CS_FEAT_CODES + c[g]];                                                      \
        out[i] = s;                                                                                \
    }
    int64_t i = i0;
    switch (G) {
    case 7:
        CS_QLINEAR_EVAL_LOOP(7)
        break;
    case 10:
        CS_QLINEAR_EVAL_LOOP(10)
        break;
    case 12:
        CS_QLINEAR_EVAL_LOOP(12)
        break;
    case 14:
        CS_QLINEAR_EVAL_LOOP(14)
        break;
    case 16:
        CS_QLINEAR_EVAL_LOOP(16)
        break;
    default:
        CS_QLINEAR_EVAL_LOOP(G)
        break;
    }
#undef CS_QLINEAR_EVAL_LOOP
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CS_HAVE_AVX512_EVAL 1
/*
 * AVX-512 (F, BW, VBMI): 16 entries per step. Their 16 * stride <= 256 bytes of codes are loaded
 * as four registers (masked, so nothing past the block is touched); for group g one two-source
 * byte permute per register pair picks byte g of each entry into the low byte of a 32-bit lane
 * (the others zeroed), and one two-source float permute looks the 16 codes up in T_g, whose 32
 * floats live in two registers for the whole loop. Lanes are added in group order from 0.0f, so
 * every entry is bit-identical to eval_scalar's. Bound: ~3 permutes per group per 16 entries.
 */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void
eval_avx512(const float *t, const uint8_t *codes, int64_t stride, int64_t i0, int64_t i1, int G,
            float *out)
{
    __m512 tlo[CS_FEAT_MAX_GROUPS], thi[CS_FEAT_MAX_GROUPS];
    __m512i idx[CS_FEAT_MAX_GROUPS];
    __mmask64 from_ab[CS_FEAT_MAX_GROUPS], from_cd[CS_FEAT_MAX_GROUPS];
    for (int g = 0; g < G; g++) {
        tlo[g] = _mm512_loadu_ps(t + g * CS_FEAT_CODES);
        thi[g] = _mm512_loadu_ps(t + g * CS_FEAT_CODES + 16);
        uint8_t b[64] = {0};
        uint64_t ab = 0, cd = 0;
        for (int j = 0; j < 16; j++) {
            const int64_t pos = (int64_t)j * stride + g; /* < 256 */
            b[4 * j] = (uint8_t)(pos & 127);
            if (pos < 128)
                ab |= (uint64_t)1 << (4 * j);
            else
                cd |= (uint64_t)1 << (4 * j);
        }
        idx[g] = _mm512_loadu_si512(b);
        from_ab[g] = ab;
        from_cd[g] = cd;
    }
    const int64_t block = 16 * stride;
    const __mmask64 last = block >= 256  ? ~(__mmask64)0
                           : block > 192 ? ((__mmask64)1 << (block - 192)) - 1
                                         : 0;
    int64_t i = i0;
    for (; i + 16 <= i1; i += 16) {
        const uint8_t *c = codes + i * stride;
        const __m512i A = _mm512_loadu_si512(c);
        const __m512i B = _mm512_loadu_si512(c + 64);
        __m512i C = _mm512_setzero_si512(), D = _mm512_setzero_si512();
        if (block > 128)
            C = block >= 192
                    ? _mm512_loadu_si512(c + 128)
                    : _mm512_maskz_loadu_epi8(((__mmask64)1 << (block - 128)) - 1, c + 128);
        if (block > 192)
            D = _mm512_maskz_loadu_epi8(last, c + 192);
        __m512 s = _mm512_setzero_ps();
        for (int g = 0; g < G; g++) {
            __m512i x = _mm512_maskz_permutex2var_epi8(from_ab[g], A, idx[g], B);
            if (from_cd[g])
                x = _mm512_or_si512(x, _mm512_maskz_permutex2var_epi8(from_cd[g], C, idx[g], D));
            s = _mm512_add_ps(s, _mm512_permutex2var_ps(tlo[g], x, thi[g]));
        }
        _mm512_storeu_ps(out + i, s);
    }
    eval_scalar(t, codes, stride, i, i1, G, out);
}

/* Asked at every evaluation (a few loads from libgcc's CPU model; no cache to keep). */
static int have_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
}
#endif

void cs_qlinear_eval_force_scalar(cs_qlinear *q, int on)
{
    q->scalar = on;
}

const char *cs_qlinear_eval_kernel(const cs_qlinear *q, int64_t stride)
{
#ifdef CS_HAVE_AVX512_EVAL
    if (!q->scalar && stride <= 16 && have_avx512())
        return "avx512";
#else
    (void)q;
    (void)stride;
#endif
    return "scalar";
}

void cs_qlinear_eval_range(const cs_qlinear *q, const uint8_t *codes, int64_t stride, int64_t n,
                           float *out)
{
    CS_ASSERT(q->L->n_groups <= stride);
#ifdef CS_HAVE_AVX512_EVAL
    if (cs_qlinear_eval_kernel(q, stride)[0] == 'a') {
        eval_avx512(q->table, codes, stride, 0, n, q->L->n_groups, out);
        return;
    }
#endif
    eval_scalar(q->table, codes, stride, 0, n, q->L->n_groups, out);
}

void cs_qlinear_eval(const cs_qlinear *q, const uint8_t *codes, int64_t stride, int64_t n,
                     float *out)
{
    const float *t = q->table;
    const int G = q->L->n_groups;
    CS_ASSERT(G <= stride);
    const int vec = cs_qlinear_eval_kernel(q, stride)[0] == 'a';
    (void)vec;
    /* one contiguous block per thread, cut at multiples of 16 entries */
#pragma omp parallel default(none) shared(t, codes, stride, n, out, G, vec)
    {
        const int nt = omp_get_num_threads(), me = omp_get_thread_num();
        const int64_t blocks = (n + 15) / 16;
        const int64_t b0 = blocks * me / nt, b1 = blocks * (me + 1) / nt;
        const int64_t i0 = 16 * b0, i1 = 16 * b1 < n ? 16 * b1 : n;
        if (i0 < i1) {
#ifdef CS_HAVE_AVX512_EVAL
            if (vec)
                eval_avx512(t, codes, stride, i0, i1, G, out);
            else
#endif
                eval_scalar(t, codes, stride, i0, i1, G, out);
        }
    }
}
