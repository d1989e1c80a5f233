/*
 * check_features: unit tests of the features module (serial, forked, no MPI_Init).
 *
 * Discretisations of Han et al. Sec. 3.1 at every bucket boundary (the double nearest a
 * boundary goes to the upper bucket, its predecessor to the lower one), the relevance change
 * with delta1 = 0.1, delta2 = 0.3, the layout for a = 0..4 categories (sizes, weights, groups
 * of at most CS_FEAT_CODES codes, state groups that fit a link message), pack/unpack round trips, a
 * fetched page's state (seed, relevant, distance, w_rl), the parent aggregates and the action
 * bytes.
 */
#include "crawlsim/config.h"
#include "crawlsim/features.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BETA 0.4

static void layout(cs_feat_layout *L, int a)
{
    cs_sarsa_config sc;
    memset(&sc, 0, sizeof sc);
    sc.categories = a;
    sc.delta1 = 0.1;
    sc.delta2 = 0.3;
    sc.beta = BETA;
    cs_feat_layout_init(L, &sc);
    ck_assert_int_eq(L->categories, a);
}

/* The indexes of packed codes[0..n_codes) starting at group g0, concatenated. */
static int unpack_all(const cs_feat_layout *L, int g0, int n_codes, const uint8_t *codes,
                      uint8_t *idx)
{
    int k = 0;
    for (int g = g0; g < g0 + n_codes; g++)
        k += cs_feat_unpack(L, g, codes[g - g0], idx + k);
    return k;
}

/* ---- discretisation ------------------------------------------------------------------------ */

/* [0,.2) -> 0, [.2,.4) -> 1, [.4,.6) -> 2, [.6,.8) -> 3, [.8,1] -> 4 */
START_TEST(test_q5_boundaries)
{
    static const double lo[5] = {0.0, 0.2, 0.4, 0.6, 0.8};
    for (int b = 0; b < 5; b++) {
        ck_assert_int_eq(cs_feat_q5(lo[b]), b);
        ck_assert_int_eq(cs_feat_q5(lo[b] + 0.1), b);
        if (b > 0) {
            ck_assert_int_eq(cs_feat_q5(nextafter(lo[b], 0.0)), b - 1);
            ck_assert_int_eq(cs_feat_q5(nextafterf((float)lo[b], 0.0f)), b - 1);
            ck_assert_int_eq(cs_feat_q5((float)lo[b]), b); /* 0.2f > 0.2, etc. */
        }
    }
    ck_assert_int_eq(cs_feat_q5(1.0), 4);
    ck_assert_int_eq(cs_feat_q5(nextafter(1.0, 0.0)), 4);
    ck_assert_int_eq(cs_feat_q5(1.0f), 4);
}
END_TEST

/* The same as comparisons with the boundaries: the reference for sweeps. */
static int ref_q6(double v)
{
    return v < 0.1 ? 0 : v < 0.3 ? 1 : v < 0.5 ? 2 : v < 0.7 ? 3 : v < 0.9 ? 4 : 5;
}

/* [0,.1) -> 0, [.1,.3) -> 1, [.3,.5) -> 2, [.5,.7) -> 3, [.7,.9) -> 4, [.9,1] -> 5, as floats
 * (the page and anchor estimates are floats) and away from the boundaries. */
START_TEST(test_q6_buckets)
{
    static const float lo[6] = {0.0f, 0.1f, 0.3f, 0.5f, 0.7f, 0.9f};
    for (int b = 0; b < 6; b++) {
        const float mid = b == 0 ? 0.05f : b == 5 ? 0.95f : lo[b] + 0.1f;
        ck_assert_int_eq(cs_feat_q6(mid), b);
        ck_assert_int_eq(cs_feat_q6(lo[b]), ref_q6(lo[b]));
        if (b > 0)
            ck_assert_int_eq(cs_feat_q6(nextafterf(lo[b], 0.0f)), ref_q6(nextafterf(lo[b], 0.0f)));
    }
    ck_assert_int_eq(cs_feat_q6(1.0), 5);
    ck_assert_int_eq(cs_feat_q6(1.0f), 5);
    ck_assert_int_eq(cs_feat_q6(0.0), 0);
}
END_TEST

/* The boundaries as doubles: the double nearest each boundary is the first of the upper bucket
 * (as for cs_feat_q5, where q5(0.6) = 3), its predecessor the last of the lower one. The
 * averages of parent relevance are doubles, so these values do reach cs_feat_q6. */
START_TEST(test_q6_double_boundaries)
{
    static const double lo[6] = {0.0, 0.1, 0.3, 0.5, 0.7, 0.9};
    char bad[512] = "";
    size_t len = 0;
    for (int b = 1; b < 6; b++)
        for (int side = 0; side < 2; side++) {
            const double v = side == 0 ? lo[b] : nextafter(lo[b], 0.0);
            const int want = side == 0 ? b : b - 1, got = cs_feat_q6(v);
            if (got != want && len < sizeof bad - 64)
                len += (size_t)snprintf(bad + len, sizeof bad - len, " q6(%.17g) = %d, want %d;", v,
                                        got, want);
        }
    ck_assert_msg(len == 0, "%s", bad);
}
END_TEST

/* A sweep of doubles on [0, 1] against the comparisons with the boundaries. */
START_TEST(test_q5_q6_sweep)
{
    int bad5 = 0, bad6 = 0;
    double first6 = -1.0;
    for (int i = 0; i <= 100000; i++) {
        const double v = i / 100000.0;
        const int r5 = v < 0.2 ? 0 : v < 0.4 ? 1 : v < 0.6 ? 2 : v < 0.8 ? 3 : 4;
        bad5 += cs_feat_q5(v) != r5;
        if (cs_feat_q6(v) != ref_q6(v) && bad6++ == 0)
            first6 = v;
    }
    ck_assert_int_eq(bad5, 0);
    ck_assert_msg(bad6 == 0, "%d values, the first q6(%.17g) = %d, want %d", bad6, first6,
                  cs_feat_q6(first6), ref_q6(first6));
}
END_TEST

/* 0: |c| <= delta1; 1: delta1 < c <= delta2; 2: c > delta2; 3: -delta2 <= c < -delta1;
 * 4: c < -delta2 (delta1 = 0.1, delta2 = 0.3 as in the paper's experiments). */
START_TEST(test_change_buckets)
{
    cs_feat_layout L;
    layout(&L, 0);
    ck_assert_int_eq(cs_feat_change(&L, 0.0), 0);
    ck_assert_int_eq(cs_feat_change(&L, 0.05), 0);
    ck_assert_int_eq(cs_feat_change(&L, -0.05), 0);
    ck_assert_int_eq(cs_feat_change(&L, 0.1), 0);
    ck_assert_int_eq(cs_feat_change(&L, -0.1), 0);
    ck_assert_int_eq(cs_feat_change(&L, nextafter(0.1, 1.0)), 1);
    ck_assert_int_eq(cs_feat_change(&L, 0.2), 1);
    ck_assert_int_eq(cs_feat_change(&L, 0.3), 1);
    ck_assert_int_eq(cs_feat_change(&L, nextafter(0.3, 1.0)), 2);
    ck_assert_int_eq(cs_feat_change(&L, 0.9), 2);
    ck_assert_int_eq(cs_feat_change(&L, 1.0), 2);
    ck_assert_int_eq(cs_feat_change(&L, nextafter(-0.1, -1.0)), 3);
    ck_assert_int_eq(cs_feat_change(&L, -0.2), 3);
    ck_assert_int_eq(cs_feat_change(&L, -0.3), 3);
    ck_assert_int_eq(cs_feat_change(&L, nextafter(-0.3, -1.0)), 4);
    ck_assert_int_eq(cs_feat_change(&L, -0.9), 4);
    ck_assert_int_eq(cs_feat_change(&L, -1.0), 4);
}
END_TEST

/* ---- layout -------------------------------------------------------------------------------- */

START_TEST(test_layout_sizes)
{
    for (int a = 0; a <= CS_FEAT_MAX_CATEGORIES; a++) {
        cs_feat_layout L;
        layout(&L, a);
        ck_assert_int_eq(L.categories, a);
        ck_assert_int_eq(L.n_state, 8 + 2 * a);
        ck_assert_int_eq(L.n_action, 6 + 2 * a);
        ck_assert_int_eq(L.n_index, L.n_state + L.n_action);
        ck_assert_double_eq(L.delta1, 0.1);
        ck_assert_double_eq(L.delta2, 0.3);
        ck_assert_double_eq(L.beta, BETA);
        /* bucket counts: state 5, 6, 5 (change), (5, 6) per category, (5, 6) twice, 10
         * (distance); action (5, 6), (5, 6) per category, (5, 6) twice */
        int want[CS_FEAT_MAX_INDEXES], k = 0;
        want[k++] = 5;
        want[k++] = 6;
        want[k++] = 5;
        for (int j = 0; j < a + 2; j++) {
            want[k++] = 5;
            want[k++] = 6;
        }
        want[k++] = CS_FEAT_DIST_CAP + 1;
        for (int j = 0; j < a + 3; j++) {
            want[k++] = 5;
            want[k++] = 6;
        }
        ck_assert_int_eq(k, L.n_index);
        int sum = 0;
        for (int i = 0; i < L.n_index; i++) {
            ck_assert_int_eq(L.buckets[i], want[i]);
            ck_assert_int_eq(L.weight_off[i], sum);
            sum += L.buckets[i];
        }
        ck_assert_int_eq(L.n_weights, sum);
        ck_assert_int_eq(L.n_weights, 5 + 6 + 5 + 11 * (2 + a) + 10 + 11 * (3 + a));
        /* groups: a partition of the indexes, state groups first, each at most CS_FEAT_CODES codes
         */
        ck_assert_int_le(L.n_state_groups, 10);
        ck_assert_int_le(L.n_state_groups, CS_FEAT_MAX_GROUPS - 6);
        ck_assert_int_le(L.n_groups, CS_FEAT_MAX_GROUPS);
        ck_assert_int_lt(L.n_state_groups, L.n_groups);
        ck_assert_int_eq(L.group_first[0], 0);
        ck_assert_int_eq(L.group_first[L.n_state_groups], L.n_state);
        ck_assert_int_eq(L.group_first[L.n_groups], L.n_index);
        for (int g = 0; g < L.n_groups; g++) {
            ck_assert_int_lt(L.group_first[g], L.group_first[g + 1]);
            int prod = 1;
            for (int i = L.group_first[g]; i < L.group_first[g + 1]; i++)
                prod *= L.buckets[i];
            ck_assert_int_le(prod, CS_FEAT_CODES);
        }
    }
}
END_TEST

/* ---- packing ------------------------------------------------------------------------------- */

START_TEST(test_pack_unpack_round_trip)
{
    cs_rng r;
    cs_rng_init(&r, 42, CS_RNG_TEST, 1, 0);
    for (int a = 0; a <= CS_FEAT_MAX_CATEGORIES; a++) {
        cs_feat_layout L;
        layout(&L, a);
        int bad = 0;
        for (int t = 0; t < 2000; t++) {
            uint8_t idx[CS_FEAT_MAX_INDEXES], back[CS_FEAT_MAX_INDEXES];
            uint8_t codes[CS_FEAT_MAX_GROUPS + 1];
            for (int i = 0; i < L.n_index; i++) /* extremes often, random otherwise */
                idx[i] = (uint8_t)(t == 0   ? 0
                                   : t == 1 ? L.buckets[i] - 1
                                            : cs_rng_u64(&r) % (uint64_t)L.buckets[i]);
            /* the whole vector, then state and action separately */
            memset(codes, 0xee, sizeof codes);
            cs_feat_pack(&L, 0, L.n_index, idx, codes);
            bad += codes[L.n_groups] != 0xee;
            bad += unpack_all(&L, 0, L.n_groups, codes, back) != L.n_index;
            bad += memcmp(idx, back, (size_t)L.n_index) != 0;
            memset(codes, 0xee, sizeof codes);
            cs_feat_pack(&L, 0, L.n_state, idx, codes);
            bad += codes[L.n_state_groups] != 0xee;
            const int na = L.n_groups - L.n_state_groups;
            cs_feat_pack(&L, L.n_state, L.n_action, idx + L.n_state, codes + L.n_state_groups);
            bad += codes[L.n_groups] != 0xee;
            bad += unpack_all(&L, 0, L.n_state_groups, codes, back) != L.n_state;
            bad += unpack_all(&L, L.n_state_groups, na, codes + L.n_state_groups,
                              back + L.n_state) != L.n_action;
            bad += memcmp(idx, back, (size_t)L.n_index) != 0;
        }
        ck_assert_msg(bad == 0, "a = %d: %d mismatches", a, bad);
    }
}
END_TEST

/* Distinct index vectors of a group give distinct codes (the packing is a bijection onto
 * [0, product of the group's buckets)). */
START_TEST(test_pack_bijective)
{
    for (int a = 0; a <= CS_FEAT_MAX_CATEGORIES; a++) {
        cs_feat_layout L;
        layout(&L, a);
        for (int g = 0; g < L.n_groups; g++) {
            int prod = 1;
            for (int i = L.group_first[g]; i < L.group_first[g + 1]; i++)
                prod *= L.buckets[i];
            for (int c = 0; c < prod; c++) {
                uint8_t idx[8], code = 0;
                int k = cs_feat_unpack(&L, g, (uint8_t)c, idx);
                ck_assert_int_eq(k, L.group_first[g + 1] - L.group_first[g]);
                for (int j = 0; j < k; j++)
                    ck_assert_int_lt(idx[j], L.buckets[L.group_first[g] + j]);
                cs_feat_pack(&L, L.group_first[g], k, idx, &code);
                ck_assert_int_eq(code, c);
            }
        }
    }
}
END_TEST

/* ---- page state, parents, actions ---------------------------------------------------------- */

/* The state indexes of a page (unpacked from out->state). */
static void state_indexes(const cs_feat_layout *L, const cs_feat_page *p, uint8_t *idx)
{
    ck_assert_int_eq(unpack_all(L, 0, L->n_state_groups, p->state, idx), L->n_state);
    for (int g = L->n_state_groups; g < CS_FEAT_MAX_GROUPS; g++)
        ck_assert_int_eq(p->state[g], 0);
}

START_TEST(test_page_state_seed)
{
    const float cats[4] = {0.05f, 0.25f, 0.55f, 0.95f};
    for (int a = 0; a <= CS_FEAT_MAX_CATEGORIES; a++) {
        cs_feat_layout L;
        layout(&L, a);
        cs_feat_parents none;
        memset(&none, 0, sizeof none);
        for (int relevant = 0; relevant <= 1; relevant++)
            for (int with = 0; with <= 1; with++) { /* par NULL, or n = 0 */
                cs_feat_page p;
                memset(&p, 0xee, sizeof p); /* every byte of the state is written */
                uint8_t idx[CS_FEAT_MAX_INDEXES];
                cs_feat_page_state(&L, 0.65f, cats, relevant, with ? &none : NULL, &p);
                state_indexes(&L, &p, idx);
                ck_assert_float_eq(p.rl, 0.65f);
                ck_assert_float_eq(p.wrl, 0.65f); /* no parent: w_rl = rl */
                ck_assert_int_eq(p.relevant, relevant);
                ck_assert_int_eq(p.dist, relevant ? 0 : CS_FEAT_DIST_CAP);
                ck_assert_int_eq(idx[0], 3);
                ck_assert_int_eq(idx[1], 3);
                ck_assert_int_eq(idx[2], 0); /* no change without parents */
                for (int j = 0; j < a; j++) {
                    ck_assert_int_eq(idx[3 + 2 * j], cs_feat_q5(cats[j]));
                    ck_assert_int_eq(idx[4 + 2 * j], cs_feat_q6(cats[j]));
                }
                for (int i = 3 + 2 * a; i < 7 + 2 * a; i++) /* parent averages: 0 */
                    ck_assert_int_eq(idx[i], 0);
                ck_assert_int_eq(idx[7 + 2 * a], relevant ? 0 : CS_FEAT_DIST_CAP);
            }
    }
}
END_TEST

START_TEST(test_page_state_with_parents)
{
    cs_feat_layout L;
    layout(&L, 2);
    const float cats[2] = {0.15f, 0.85f};
    static const struct {
        int min_dist, relevant, want;
    } dists[] = {{0, 0, 1}, {3, 0, 4}, {7, 0, 8}, {8, 0, 9}, {9, 0, 9}, {5, 1, 0}, {9, 1, 0}};
    for (size_t c = 0; c < sizeof dists / sizeof dists[0]; c++) {
        cs_feat_parents par;
        memset(&par, 0, sizeof par);
        par.n = 4;
        par.n_rel = 2;
        par.sum_rl = 1.8f;   /* average 0.45 */
        par.sum_rel = 1.5f;  /* average 0.75 */
        par.best_wrl = 0.5f; /* change 0.95 - 0.5 = 0.45 > delta2 */
        par.min_dist = (uint8_t)dists[c].min_dist;
        cs_feat_page p;
        uint8_t idx[CS_FEAT_MAX_INDEXES];
        cs_feat_page_state(&L, 0.95f, cats, dists[c].relevant, &par, &p);
        state_indexes(&L, &p, idx);
        ck_assert_int_eq(p.dist, dists[c].want);
        ck_assert_int_eq(idx[L.n_state - 1], dists[c].want);
        ck_assert_float_eq(p.wrl, (float)(BETA * (double)0.95f + (1.0 - BETA) * (double)0.5f));
        ck_assert_float_eq_tol(p.wrl, 0.4f * 0.95f + 0.6f * 0.5f, 1e-6f);
        ck_assert_int_eq(idx[0], 4);
        ck_assert_int_eq(idx[1], 5);
        ck_assert_int_eq(idx[2], 2);
        ck_assert_int_eq(idx[3], 0); /* categories: 0.15 -> (0, 1), 0.85 -> (4, 4) */
        ck_assert_int_eq(idx[4], 1);
        ck_assert_int_eq(idx[5], 4);
        ck_assert_int_eq(idx[6], 4);
        ck_assert_int_eq(idx[7], cs_feat_q5(1.8f / 4.0));
        ck_assert_int_eq(idx[7], 2);
        ck_assert_int_eq(idx[8], 2);
        ck_assert_int_eq(idx[9], 3);
        ck_assert_int_eq(idx[10], 4);
    }
    /* the change against the best parent w_rl, every bucket; no relevant parents: average 0 */
    static const struct {
        float rl, best;
        int want;
    } ch[] = {{0.5f, 0.45f, 0}, {0.5f, 0.3f, 1}, {0.9f, 0.2f, 2}, {0.3f, 0.5f, 3}, {0.1f, 0.7f, 4}};
    for (size_t c = 0; c < sizeof ch / sizeof ch[0]; c++) {
        cs_feat_parents par;
        memset(&par, 0, sizeof par);
        par.n = 1;
        par.sum_rl = 0.95f;
        par.best_wrl = ch[c].best;
        par.min_dist = 2;
        cs_feat_page p;
        uint8_t idx[CS_FEAT_MAX_INDEXES];
        cs_feat_page_state(&L, ch[c].rl, cats, 0, &par, &p);
        state_indexes(&L, &p, idx);
        ck_assert_int_eq(idx[2], ch[c].want);
        ck_assert_int_eq(idx[7], 4);
        ck_assert_int_eq(idx[8], 5);
        ck_assert_int_eq(idx[9], 0);
        ck_assert_int_eq(idx[10], 0);
        ck_assert_int_eq(p.dist, 3);
        ck_assert_float_eq(p.wrl,
                           (float)(BETA * (double)ch[c].rl + (1.0 - BETA) * (double)ch[c].best));
    }
}
END_TEST

static cs_link_msg msg(float rl, float wrl, int dist, int relevant)
{
    cs_link_msg m;
    memset(&m, 0, sizeof m);
    m.parent_rl = rl;
    m.parent_wrl = wrl;
    m.parent_dist = (uint8_t)dist;
    m.parent_relevant = (uint8_t)relevant;
    return m;
}

START_TEST(test_parents_add)
{
    cs_feat_parents par;
    memset(&par, 0, sizeof par);
    cs_link_msg m = msg(0.25f, 0.125f, 7, 0);
    cs_feat_parents_add(&par, &m);
    ck_assert_int_eq(par.n, 1);
    ck_assert_int_eq(par.n_rel, 0);
    ck_assert_float_eq(par.sum_rl, 0.25f);
    ck_assert_float_eq(par.sum_rel, 0.0f);
    ck_assert_float_eq(par.best_wrl, 0.125f);
    ck_assert_int_eq(par.min_dist, 7);
    m = msg(0.5f, 0.0625f, 9, 1); /* lower w_rl, larger distance: neither changes */
    cs_feat_parents_add(&par, &m);
    ck_assert_int_eq(par.n, 2);
    ck_assert_int_eq(par.n_rel, 1);
    ck_assert_float_eq(par.sum_rl, 0.75f);
    ck_assert_float_eq(par.sum_rel, 0.5f);
    ck_assert_float_eq(par.best_wrl, 0.125f);
    ck_assert_int_eq(par.min_dist, 7);
    m = msg(1.0f, 0.75f, 0, 1);
    cs_feat_parents_add(&par, &m);
    ck_assert_int_eq(par.n, 3);
    ck_assert_int_eq(par.n_rel, 2);
    ck_assert_float_eq(par.sum_rl, 1.75f);
    ck_assert_float_eq(par.sum_rel, 1.5f);
    ck_assert_float_eq(par.best_wrl, 0.75f);
    ck_assert_int_eq(par.min_dist, 0);
    m = msg(0.0f, 0.0f, 3, 0);
    cs_feat_parents_add(&par, &m);
    ck_assert_int_eq(par.n, 4);
    ck_assert_int_eq(par.n_rel, 2);
    ck_assert_float_eq(par.best_wrl, 0.75f);
    ck_assert_int_eq(par.min_dist, 0);

    /* the first parent sets max and min, whatever the zeroed fields held */
    memset(&par, 0, sizeof par);
    m = msg(0.0f, 0.0f, 9, 0);
    cs_feat_parents_add(&par, &m);
    ck_assert_int_eq(par.min_dist, 9);
    /* random parents against a reference; the counts saturate at UINT16_MAX */
    memset(&par, 0, sizeof par);
    cs_rng r;
    cs_rng_init(&r, 7, CS_RNG_TEST, 2, 0);
    float best = -1.0f;
    int dmin = 100;
    long nrel = 0;
    const long n = 70000;
    for (long i = 0; i < n; i++) {
        int rel = cs_rng_u64(&r) % 3 == 0;
        m = msg(0.0f, (float)cs_rng_uniform(&r), (int)(cs_rng_u64(&r) % 10), rel);
        best = m.parent_wrl > best ? m.parent_wrl : best;
        dmin = m.parent_dist < dmin ? m.parent_dist : dmin;
        nrel += rel;
        cs_feat_parents_add(&par, &m);
    }
    ck_assert_int_eq(par.n, UINT16_MAX);
    ck_assert_int_eq(par.n_rel, nrel < UINT16_MAX ? nrel : UINT16_MAX);
    ck_assert_float_eq(par.best_wrl, best);
    ck_assert_int_eq(par.min_dist, dmin);
}
END_TEST

START_TEST(test_action_bytes)
{
    cs_rng r;
    cs_rng_init(&r, 9, CS_RNG_TEST, 3, 0);
    for (int a = 0; a <= CS_FEAT_MAX_CATEGORIES; a++) {
        cs_feat_layout L;
        layout(&L, a);
        const int na = L.n_groups - L.n_state_groups;
        for (int t = 0; t < 500; t++) {
            float anchor = (float)cs_rng_uniform(&r), cats[CS_FEAT_MAX_CATEGORIES];
            for (int j = 0; j < a; j++)
                cats[j] = (float)cs_rng_uniform(&r);
            cs_feat_parents par;
            memset(&par, 0, sizeof par);
            const int np = (int)(cs_rng_u64(&r) % 4); /* 0 parents: averages 0 */
            for (int i = 0; i < np; i++) {
                cs_link_msg m = msg((float)cs_rng_uniform(&r), 0.5f, 1, cs_rng_u64(&r) % 2 == 0);
                cs_feat_parents_add(&par, &m);
            }
            const uint32_t ac = cs_feat_pack_anchor_cats(&L, cats);
            for (int j = 0; j < a; j++) {
                ck_assert_int_eq(ac >> (8 * j) & 0xf, cs_feat_q5(cats[j]));
                ck_assert_int_eq(ac >> (8 * j + 4) & 0xf, cs_feat_q6(cats[j]));
            }
            if (a < 4)
                ck_assert_int_eq(ac >> (8 * a), 0);
            uint8_t out[CS_FEAT_MAX_GROUPS + 1], want[CS_FEAT_MAX_GROUPS];
            memset(out, 0xee, sizeof out);
            cs_feat_action(&L, anchor, ac, &par, out);
            for (int g = na; g <= CS_FEAT_MAX_GROUPS; g++) /* exactly na bytes written */
                ck_assert_int_eq(out[g], 0xee);
            uint8_t idx[CS_FEAT_MAX_INDEXES];
            int k = 0;
            const double avg = par.n ? (double)par.sum_rl / par.n : 0.0;
            const double avg_rel = par.n_rel ? (double)par.sum_rel / par.n_rel : 0.0;
            idx[k++] = (uint8_t)cs_feat_q5(anchor);
            idx[k++] = (uint8_t)cs_feat_q6(anchor);
            for (int j = 0; j < a; j++) {
                idx[k++] = (uint8_t)cs_feat_q5(cats[j]);
                idx[k++] = (uint8_t)cs_feat_q6(cats[j]);
            }
            idx[k++] = (uint8_t)cs_feat_q5(avg);
            idx[k++] = (uint8_t)cs_feat_q6(avg);
            idx[k++] = (uint8_t)cs_feat_q5(avg_rel);
            idx[k++] = (uint8_t)cs_feat_q6(avg_rel);
            ck_assert_int_eq(k, L.n_action);
            cs_feat_pack(&L, L.n_state, L.n_action, idx, want);
            ck_assert_mem_eq(out, want, (size_t)na);
            uint8_t back[CS_FEAT_MAX_INDEXES];
            ck_assert_int_eq(unpack_all(&L, L.n_state_groups, na, out, back), L.n_action);
            ck_assert_mem_eq(back, idx, (size_t)L.n_action);
        }
    }
}
END_TEST

/* A known action: anchor 0.95, categories 0.05 and 0.45, parents 0.2 (irrelevant) and 0.6
 * (relevant): indexes (4,5), (0,0), (2,2), avg 0.4 -> (2,2), relevant avg 0.6 -> (3,3). */
START_TEST(test_action_known)
{
    cs_feat_layout L;
    layout(&L, 2);
    const float cats[2] = {0.05f, 0.45f};
    cs_feat_parents par;
    memset(&par, 0, sizeof par);
    cs_link_msg m = msg(0.2f, 0.1f, 4, 0);
    cs_feat_parents_add(&par, &m);
    m = msg(0.6f, 0.3f, 0, 1);
    cs_feat_parents_add(&par, &m);
    uint8_t out[CS_FEAT_MAX_GROUPS], idx[CS_FEAT_MAX_INDEXES];
    cs_feat_action(&L, 0.95f, cs_feat_pack_anchor_cats(&L, cats), &par, out);
    ck_assert_int_eq(unpack_all(&L, L.n_state_groups, L.n_groups - L.n_state_groups, out, idx), 10);
    static const uint8_t want[10] = {4, 5, 0, 0, 2, 2, 2, 2, 3, 3};
    ck_assert_mem_eq(idx, want, 10);
}
END_TEST

/* The inline pair form of cs_feat_action_with (every layout of a = 0..4 is made of (5, 6) pairs)
 * equals the general index-and-pack form, code for code, over random anchors and parents. */
START_TEST(test_action_pairs_equal_packed)
{
    for (int a = 0; a <= CS_FEAT_MAX_CATEGORIES; a++) {
        cs_feat_layout L;
        layout(&L, a);
        ck_assert_int_eq(L.action_pairs, 1);
        const int GA = L.n_groups - L.n_state_groups;
        cs_rng r;
        cs_rng_init(&r, 700 + (uint64_t)a, CS_RNG_TEST, 0, 0);
        int bad = 0;
        for (int t = 0; t < 20000; t++) {
            float cats[CS_FEAT_MAX_CATEGORIES];
            for (int j = 0; j < a; j++)
                cats[j] = (float)(1.2 * cs_rng_uniform(&r) - 0.1);
            const float anchor = (float)(1.2 * cs_rng_uniform(&r) - 0.1);
            const uint8_t pidx[4] = {(uint8_t)cs_rng_below(&r, 5), (uint8_t)cs_rng_below(&r, 6),
                                     (uint8_t)cs_rng_below(&r, 5), (uint8_t)cs_rng_below(&r, 6)};
            uint8_t x[CS_FEAT_MAX_GROUPS], y[CS_FEAT_MAX_GROUPS];
            const uint32_t ac = cs_feat_pack_anchor_cats(&L, cats);
            cs_feat_action_with(&L, anchor, ac, pidx, x);
            cs_feat_action_with_packed(&L, anchor, ac, pidx, y);
            bad += memcmp(x, y, (size_t)GA) != 0;
        }
        ck_assert_msg(bad == 0, "a = %d: %d actions differ", a, bad);
    }
}
END_TEST

/* A frontier entry stores its action codes, not its anchor categories: the categories read back
 * from the codes are the ones written (cs_feat_action_anchor_cat), and the codes rewritten for
 * new parents with the anchor kept (cs_feat_action_keep_anchor) are cs_feat_action's with the
 * categories, in the paired layout and in the general one (action_pairs off: every group packed
 * and unpacked). */
START_TEST(test_action_keep_anchor)
{
    for (int k = 0; k <= 2 * CS_FEAT_MAX_CATEGORIES + 1; k++) {
        const int a = k / 2, pairs = k % 2;
        cs_feat_layout L;
        layout(&L, a);
        L.action_pairs = pairs;
        const int GA = L.n_groups - L.n_state_groups;
        cs_rng r;
        cs_rng_init(&r, 900 + (uint64_t)k, CS_RNG_TEST, 0, 0);
        int bad = 0;
        for (int t = 0; t < 20000; t++) {
            float cats[CS_FEAT_MAX_CATEGORIES];
            for (int j = 0; j < a; j++)
                cats[j] = (float)(1.2 * cs_rng_uniform(&r) - 0.1);
            const float anchor = (float)(1.2 * cs_rng_uniform(&r) - 0.1);
            const uint32_t ac = cs_feat_pack_anchor_cats(&L, cats);
            cs_feat_parents p[2];
            for (int i = 0; i < 2; i++) {
                memset(&p[i], 0, sizeof p[i]);
                p[i].n = (uint16_t)cs_rng_below(&r, 4);
                p[i].n_rel = (uint16_t)cs_rng_below(&r, (uint64_t)p[i].n + 1);
                p[i].sum_rl = (float)(p[i].n * cs_rng_uniform(&r));
                p[i].sum_rel = (float)(p[i].n_rel * cs_rng_uniform(&r));
            }
            uint8_t x[CS_FEAT_MAX_GROUPS], y[CS_FEAT_MAX_GROUPS];
            cs_feat_action(&L, anchor, ac, &p[0], x);
            bad += cs_feat_action_anchor_cat(&L, x) != ac;
            cs_feat_action_keep_anchor(&L, anchor, &p[1], x);
            cs_feat_action(&L, anchor, ac, &p[1], y);
            bad += memcmp(x, y, (size_t)GA) != 0;
        }
        ck_assert_msg(bad == 0, "a = %d, pairs %d: %d differ", a, pairs, bad);
    }
}
END_TEST

static Suite *features_suite(void)
{
    Suite *s = suite_create("features");
    TCase *tc = tcase_create("discretise");
    tcase_add_test(tc, test_q5_boundaries);
    tcase_add_test(tc, test_q6_buckets);
    tcase_add_test(tc, test_q6_double_boundaries);
    tcase_add_test(tc, test_q5_q6_sweep);
    tcase_add_test(tc, test_change_buckets);
    suite_add_tcase(s, tc);
    tc = tcase_create("layout");
    tcase_add_test(tc, test_layout_sizes);
    tcase_add_test(tc, test_pack_unpack_round_trip);
    tcase_add_test(tc, test_pack_bijective);
    suite_add_tcase(s, tc);
    tc = tcase_create("state");
    tcase_add_test(tc, test_page_state_seed);
    tcase_add_test(tc, test_page_state_with_parents);
    tcase_add_test(tc, test_parents_add);
    tcase_add_test(tc, test_action_bytes);
    tcase_add_test(tc, test_action_known);
    tcase_add_test(tc, test_action_pairs_equal_packed);
    tcase_add_test(tc, test_action_keep_anchor);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(features_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
