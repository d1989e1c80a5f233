/*
 * bandit/whittle: the Whittle index for ephemeral content (Avrachenkov & Borkar, Allerton 2019,
 * Eqs. 1-5) and the distributed index policy that crawls the global top-N0 arms each tick.
 *
 * Why the age form: under the mean dynamics (2)-(3) the state k ticks after a crawl is
 * x_k = u (1 - alpha^k) / (1 - alpha), so Eq. 5 gives zeta = k and Eq. 4 becomes
 * (u / C)(sum_{j<k} alpha^j - k alpha^k), which is also the subsidy that makes crawling at age k
 * and at age k + 1 equally good in the single-arm problem (the definition of the index). A tick
 * over 10^7 arms then streams 16 bytes per arm and calls no logarithm.
 */
#include "bandit/bandit_impl.h"
#include "crawlsim/comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double cs_whittle_u(double lambda, double c, double M)
{
    const double alpha = exp(-c);
    const double aM = isinf(M) ? 0.0 : pow(alpha, M);
    return (1.0 - alpha) * (1.0 - aM) * lambda / c;
}

double cs_whittle_index(double x, double u, double alpha, double C)
{
    const double xmax = u / (1.0 - alpha);
    if (x <= 0.0)
        return 0.0;
    if (x >= xmax)
        return xmax / C;
    /* Eq. 5: log base alpha of a number in (0, 1) is positive; log+ = max(0, .) */
    const double ratio = (u - (1.0 - alpha) * x) / u;
    double l = log(ratio) / log(alpha);
    if (l < 0.0)
        l = 0.0;
    const double zeta = ceil(l);
    return (zeta * ((1.0 - alpha) * x - u) + (1.0 - pow(alpha, zeta)) / (1.0 - alpha) * u) / C;
}

double cs_whittle_index_age(int64_t k, double u, double alpha, double C)
{
    const double ak = pow(alpha, (double)k);
    return u / C * ((1.0 - ak) / (1.0 - alpha) - (double)k * ak);
}

uint64_t cs_whittle_key(float index, uint64_t id)
{
    if (index == 0.0f)
        index = 0.0f; /* -0 -> +0 */
    uint32_t b;
    memcpy(&b, &index, sizeof b);
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return ((uint64_t)b << 32) | (uint64_t)(0xffffffffu - (uint32_t)id);
}

cs_err cs_whittle_arms_init(cs_ctx *ctx, cs_whittle_arms *a, int64_t n)
{
    memset(a, 0, sizeof *a);
    const size_t nz = (size_t)(n > 0 ? n : 1);
    cs_err rc = cs_alloc(ctx, &a->id, nz, sizeof *a->id, "arm ids");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &a->w, nz, sizeof *a->w, "arm weights");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &a->alpha, nz, sizeof *a->alpha, "arm decays");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &a->pw, nz, sizeof *a->pw, "arm states");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &a->age, nz, sizeof *a->age, "arm ages");
    if (rc != CS_OK) {
        cs_whittle_arms_fini(a);
        return rc;
    }
    a->n = n;
    for (int64_t i = 0; i < n; i++)
        a->pw[i] = 1.0f;
    return CS_OK;
}

void cs_whittle_arms_fini(cs_whittle_arms *a)
{
    free(a->id);
    free(a->w);
    free(a->alpha);
    free(a->pw);
    free(a->age);
    free(a->heap_key);
    free(a->heap_pos);
    memset(a, 0, sizeof *a);
}

void cs_whittle_arms_set(cs_whittle_arms *a, int64_t i, uint64_t id, double u, double alpha,
                         double C, uint32_t age)
{
    a->id[i] = id;
    a->w[i] = (float)(u / C);
    a->alpha[i] = (float)alpha;
    a->pw[i] = (float)pow(alpha, (double)age);
    a->age[i] = age;
}

/* Min-heap of (key, pos) on the key: the root is the smallest of the kept top keys. */
/* Swaps heap entries i and j (key and position). */
static inline void heap_swap(uint64_t *key, int64_t *pos, int64_t i, int64_t j)
{
    const uint64_t tk = key[i];
    key[i] = key[j];
    key[j] = tk;
    const int64_t tp = pos[i];
    pos[i] = pos[j];
    pos[j] = tp;
}

static void heap_sift_down(uint64_t *key, int64_t *pos, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, m = i;
        if (l < n && key[l] < key[m])
            m = l;
        if (l + 1 < n && key[l + 1] < key[m])
            m = l + 1;
        if (m == i)
            return;
        heap_swap(key, pos, i, m);
        i = m;
    }
}

static void heap_sift_up(uint64_t *key, int64_t *pos, int64_t i)
{
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (key[p] <= key[i])
            return;
        heap_swap(key, pos, i, p);
        i = p;
    }
}

/* Index of one arm from its float state: w ((1 - pw)/(1 - alpha) - age pw). */
static inline float arm_index(float w, float alpha, float pw, uint32_t age)
{
    return w * ((1.0f - pw) / (1.0f - alpha) - (float)age * pw);
}

cs_err cs_whittle_tick(cs_ctx *ctx, cs_whittle_arms *a, int64_t n0, int64_t *chosen,
                       int64_t *n_chosen, double *reward_local)
{
    const int64_t keep = n0 < a->n ? n0 : a->n;
    cs_err rc = CS_OK;
    if (keep > a->heap_cap) {
        uint64_t *k = realloc(a->heap_key, (size_t)keep * sizeof *k);
        if (k != NULL)
            a->heap_key = k;
        int64_t *p = k ? realloc(a->heap_pos, (size_t)keep * sizeof *p) : NULL;
        if (p != NULL) {
            a->heap_pos = p;
            a->heap_cap = keep;
        } else {
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the Whittle top-%lld heap",
                         (long long)keep);
        }
    }
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;

    /* one pass: index at the current state, local top-keep in the heap */
    uint64_t *hk = a->heap_key;
    int64_t *hp = a->heap_pos;
    int64_t h = 0;
    for (int64_t i = 0; i < a->n; i++) {
        const float pw = a->pw[i];
        const uint64_t key =
            cs_whittle_key(arm_index(a->w[i], a->alpha[i], pw, a->age[i]), a->id[i]);
        a->pw[i] = pw * a->alpha[i];
        a->age[i] += 1;
        if (h < keep) {
            hk[h] = key;
            hp[h] = i;
            heap_sift_up(hk, hp, h);
            h++;
        } else if (keep > 0 && key > hk[0]) {
            hk[0] = key;
            hp[0] = i;
            heap_sift_down(hk, hp, h, 0);
        }
    }
    /* heap -> decreasing order (heapsort of a min-heap leaves it decreasing) */
    for (int64_t e = h - 1; e > 0; e--) {
        heap_swap(hk, hp, 0, e);
        heap_sift_down(hk, hp, e, 0);
    }
    int64_t take = h; /* a local context (no MPI): the local top-n0 is the answer */
    if (!cs_comm_is_local(ctx))
        cs_comm_topk(ctx, hk, h, n0, &take);

    /* the pass above already aged every arm (mean dynamics (2)); the crawled restart at
     * age 1 (Eq. 3). Their state at the crawl was the one before aging: pw / alpha. */
    double reward = 0.0;
    for (int64_t j = 0; j < take; j++) {
        const int64_t i = hp[j];
        chosen[j] = i;
        const double pw0 = (double)a->pw[i] / (double)a->alpha[i];
        /* w (1 - pw) / (1 - alpha) = x / C */
        reward += (double)a->w[i] * (1.0 - pw0) / (1.0 - (double)a->alpha[i]);
        a->pw[i] = a->alpha[i];
        a->age[i] = 1;
    }
    *n_chosen = take;
    *reward_local = reward;
    return CS_OK;
}

/* ---- as a registered bandit policy ("whittle") ------------------------------------------------
 */

/* A slot of the re-crawl side: the groups by decreasing index at their age (slots since their
 * last crawl, + 1 for this slot; cs_whittle_index_age with u_k = w_k, C = 1), each once, the
 * remainder of n dealt again in index order. */
static cs_err whittle_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E,
                             int64_t n)
{
    (void)g;
    cs_err rc = CS_OK;
    for (int64_t e = 0; e < E; e++) {
        const int64_t k = elig[e];
        b->val[k] = cs_whittle_index_age(b->X[k] + 1, b->w[k], b->alpha, 1.0);
    }
    bandit_sort_desc(elig, E, b->val, b->ord);
    for (int64_t j = 0; j < n; j++)
        CS_TRY(ctx, bandit_pick(ctx, b, elig[j % E]));
fail:
    return rc;
}

/* The ephemeral experiment: the distributed index policy (cs_whittle_tick) on a local context,
 * every arm crawled just before tick 1 (age 1, x = u), as for the learning scheme. The reward is
 * the sum of the crawled arms' states x, computed here in double precision from their ages
 * before the tick (the tick's own sum is x / C, in index units). */
static cs_err whittle_ephemeral(cs_ctx *ctx, const cs_ephemeral_setup *s, int64_t arm,
                                int64_t horizon, uint64_t seed, uint64_t run, double *rw)
{
    (void)arm;
    (void)seed;
    (void)run;
    const int64_t K = s->K;
    cs_whittle_arms A;
    cs_err rc = cs_whittle_arms_init(ctx, &A, K);
    if (rc != CS_OK)
        return rc;
    for (int64_t i = 0; i < K; i++)
        cs_whittle_arms_set(&A, i, (uint64_t)i, s->u[i], s->alpha[i], s->cost[i], 1);
    const int64_t nmax = s->crawlers < K ? s->crawlers : K;
    int64_t *ch = malloc((size_t)(nmax + K) * sizeof *ch);
    if (ch == NULL) {
        cs_whittle_arms_fini(&A);
        return cs_fail(ctx, CS_ERR_NOMEM, "out of memory");
    }
    int64_t *age = ch + nmax;
    for (int64_t t = 0; t < horizon && rc == CS_OK; t++) {
        int64_t nc;
        double r_index;
        for (int64_t i = 0; i < K; i++)
            age[i] = (int64_t)A.age[i];
        rc = cs_whittle_tick(ctx, &A, s->crawlers, ch, &nc, &r_index);
        if (rc != CS_OK) /* nc is not set */
            break;
        rw[t] = 0.0;
        for (int64_t j = 0; j < nc; j++) {
            const int64_t i = ch[j];
            rw[t] += s->u[i] * (1.0 - pow(s->alpha[i], (double)age[i])) / (1.0 - s->alpha[i]);
        }
    }
    free(ch);
    cs_whittle_arms_fini(&A);
    return rc;
}

const cs_bandit_ops cs_bandit_whittle_ops = {.stream = 3,
                                             .input = CS_BANDIT_IN_INDEX,
                                             .choose = whittle_choose,
                                             .ephemeral = whittle_ephemeral};
