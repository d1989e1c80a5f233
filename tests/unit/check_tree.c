/*
 * check_tree: unit tests of the Tree-Frontier (serial, forked, no MPI_Init).
 *
 * Eq. 4 on a hand example; the split search against a brute force over every feature and
 * observed threshold; the split rules (no split without a positive reduction, below
 * min_samples, at max_depth, or with a child below min_child); frontier samples routed to the
 * leaf of their vector through many splits; removal by id with duplicate ids; Algorithm 2's
 * greedy choice is the argmax of Q over the representatives the same call draws; representatives
 * and Tree-Random choices are uniform (chi-square, fixed seeds); results independent of the
 * OpenMP thread count; memory per frontier sample bounded.
 */
#include "crawlsim/core.h"
#include "crawlsim/mlp.h"
#include "crawlsim/rng.h"
#include "crawlsim/tree.h"

#include "unit/stats.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static cs_tree *make_tree(int d, int min_samples, int min_child, int max_depth, uint64_t seed)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_tree_config c;
    cs_tree_config_default(&c, d);
    ck_assert_int_eq(c.min_samples, 5);
    ck_assert_int_eq(c.min_child, 1);
    ck_assert_int_eq(c.max_depth, 18);
    c.min_samples = min_samples;
    c.min_child = min_child;
    c.max_depth = max_depth;
    c.seed = seed;
    c.stream = 7;
    cs_tree *t = NULL;
    ck_assert_int_eq(cs_tree_create(&ctx, &c, &t), CS_OK);
    return t;
}

static int64_t n_leaves(const cs_tree *t)
{
    cs_tree_stats s;
    cs_tree_stats_get(t, &s);
    return s.leaves;
}

START_TEST(test_vr_hand_example)
{
    /* r = 1 1 0 0 1, left = first two: V(P) = 0.24, V(L) = 0, V(R) = 2/9 with |R|/|P| = 3/5:
     * VR = 0.24 - 0 - 3/5 * 2/9 = 0.24 - 2/15 */
    const float r[5] = {1, 1, 0, 0, 1};
    const unsigned char left[5] = {1, 1, 0, 0, 0};
    ck_assert_double_eq_tol(cs_tree_vr(r, left, 5), 0.24 - 2.0 / 15.0, 1e-12);
    /* equal child means: no reduction */
    const float r2[4] = {0, 1, 0, 1};
    const unsigned char l2[4] = {1, 1, 0, 0};
    ck_assert_double_eq_tol(cs_tree_vr(r2, l2, 4), 0.0, 1e-15);
    /* a perfect split removes all variance */
    const unsigned char l3[5] = {1, 1, 0, 0, 1};
    ck_assert_double_eq_tol(cs_tree_vr(r, l3, 5), 0.24, 1e-12);
}
END_TEST

/* Feature 1 separates the rewards perfectly at 0.4 (the largest left value); feature 0 is noise,
 * feature 2 separates them with one error. */
START_TEST(test_best_split_known)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    const float x[8][3] = {{0.9f, 0.1f, 0.1f}, {0.1f, 0.2f, 0.2f}, {0.5f, 0.3f, 0.3f},
                           {0.3f, 0.4f, 0.8f}, {0.2f, 0.6f, 0.5f}, {0.8f, 0.7f, 0.6f},
                           {0.4f, 0.8f, 0.7f}, {0.6f, 0.9f, 0.9f}};
    const float r[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    cs_tree_split s;
    ck_assert_int_eq(cs_tree_best_split(&ctx, &x[0][0], 3, 3, r, 8, 1, &s), CS_OK);
    ck_assert_int_eq(s.feature, 1);
    ck_assert_float_eq(s.threshold, 0.4f);
    ck_assert_int_eq(s.n_left, 4);
    ck_assert_int_eq(s.n_right, 4);
    ck_assert_double_eq_tol(s.vr, 0.25, 1e-12);
    /* with min_child 5 no split is admissible */
    ck_assert_int_eq(cs_tree_best_split(&ctx, &x[0][0], 3, 3, r, 8, 5, &s), CS_OK);
    ck_assert_int_eq(s.feature, -1);
}
END_TEST

/* On random data the search finds the maximum of Eq. 4 over all features and observed
 * thresholds, computed by brute force with cs_tree_vr; ties (binary rewards) keep the first. */
START_TEST(test_best_split_brute_force)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_rng g;
    cs_rng_init(&g, 5, CS_RNG_TEST, 0, 0);
    for (int trial = 0; trial < 200; trial++) {
        const int d = 1 + (int)cs_rng_below(&g, 8), n = 2 + (int)cs_rng_below(&g, 40);
        const int64_t min_child = 1 + (int64_t)cs_rng_below(&g, 4);
        const int binary = trial % 2;
        float x[48 * 8], r[48];
        unsigned char left[48];
        for (int i = 0; i < n; i++) {
            for (int f = 0; f < d; f++) /* few distinct values: repeated thresholds */
                x[i * d + f] = (float)cs_rng_below(&g, 6) / 4.0f;
            r[i] = binary ? (float)cs_rng_below(&g, 2) : (float)cs_rng_uniform(&g);
        }
        double best = 0.0;
        int bf = -1;
        float bv = 0;
        for (int f = 0; f < d; f++)
            for (int k = 0; k < 6; k++) { /* thresholds in increasing order */
                const float v = (float)k / 4.0f;
                int seen = 0, nl = 0;
                for (int i = 0; i < n; i++) {
                    seen += x[i * d + f] == v;
                    left[i] = x[i * d + f] <= v;
                    nl += left[i];
                }
                if (!seen || nl < min_child || n - nl < min_child)
                    continue;
                const double vr = cs_tree_vr(r, left, n);
                if (vr > best + 1e-12) {
                    best = vr;
                    bf = f;
                    bv = v;
                }
            }
        cs_tree_split s;
        ck_assert_int_eq(cs_tree_best_split(&ctx, x, d, d, r, n, min_child, &s), CS_OK);
        if (bf < 0) {
            ck_assert_msg(s.feature < 0, "trial %d: split found where brute force has none", trial);
            continue;
        }
        ck_assert_msg(s.feature == bf && s.threshold == bv,
                      "trial %d: (%d, %g) vs brute force (%d, %g)", trial, s.feature,
                      (double)s.threshold, bf, (double)bv);
        ck_assert_double_eq_tol(s.vr, best, 1e-9);
    }
}
END_TEST

START_TEST(test_split_rules)
{
    /* rewards with equal means on both sides of every threshold: no split */
    cs_tree *t = make_tree(1, 4, 1, 18, 1);
    const float xs[4] = {1, 1, 2, 2}, rs[4] = {0, 1, 0, 1};
    int split = -1;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(cs_tree_add_experience(&ctx, t, &xs[i], rs[i], &split), CS_OK);
        ck_assert_int_eq(split, 0);
    }
    ck_assert_int_eq(n_leaves(t), 1);
    cs_tree_destroy(&t);
    ck_assert_ptr_null(t);

    /* a separable leaf below min_samples (5) does not split; the 5th sample splits it */
    t = make_tree(2, 5, 1, 18, 1);
    const float xa[5][2] = {{0.1f, 0}, {0.2f, 0}, {0.8f, 0}, {0.9f, 0}, {0.15f, 0}};
    const float ra[5] = {0, 0, 1, 1, 0};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(cs_tree_add_experience(&ctx, t, xa[i], ra[i], &split), CS_OK);
        ck_assert_int_eq(split, i == 4);
    }
    ck_assert_int_eq(n_leaves(t), 2);
    int f;
    float v;
    ck_assert_int_eq(cs_tree_node_rule(t, 0, &f, &v, NULL, NULL), 1);
    ck_assert_int_eq(f, 0);
    ck_assert_float_eq(v, 0.2f);
    cs_tree_destroy(&t);

    /* max_depth 0: never; max_depth 1: the root only */
    for (int md = 0; md <= 1; md++) {
        t = make_tree(1, 2, 1, md, 1);
        for (int i = 0; i < 64; i++) {
            const float x = (float)i / 64.0f, r = (float)(i % 3 == 0) + x;
            ck_assert_int_eq(cs_tree_add_experience(&ctx, t, &x, r, NULL), CS_OK);
        }
        cs_tree_stats s;
        cs_tree_stats_get(t, &s);
        ck_assert_int_eq(s.leaves, md == 0 ? 1 : 2);
        ck_assert_int_eq(s.depth, md);
        ck_assert_int_eq(s.experience, 64);
        cs_tree_destroy(&t);
    }

    /* min_child: the only separating threshold leaves 2 samples on one side */
    t = make_tree(1, 6, 3, 18, 1);
    const float xc[6] = {1, 2, 3, 4, 5, 6}, rc[6] = {1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(cs_tree_add_experience(&ctx, t, &xc[i], rc[i], NULL), CS_OK);
    ck_assert_int_eq(n_leaves(t), 2);
    ck_assert_int_eq(cs_tree_node_rule(t, 0, &f, &v, NULL, NULL), 1);
    ck_assert_float_eq(v, 3.0f); /* {1,2,3} | {4,5,6}: the best with >= 3 per side */
    cs_tree_destroy(&t);

    /* bad input */
    t = make_tree(1, 5, 1, 18, 1);
    const float nan = NAN;
    ck_assert_int_eq(cs_tree_add_experience(&ctx, t, &nan, 0, NULL), CS_ERR_ARG);
    ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, &nan, 1), CS_ERR_ARG);
    ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, &xc[0], UINT64_MAX), CS_ERR_ARG);
    cs_tree_destroy(&t);
}
END_TEST

/* Experience whose reward depends on two features; frontier samples added before and during the
 * growth; afterwards every sample sits in the leaf its vector routes to, and counts add up. */
static void grow_tree(cs_tree *t, int d, int n_exp, int n_front, uint64_t seed, int64_t *added)
{
    cs_rng g;
    cs_rng_init(&g, seed, CS_RNG_TEST, 0, 0);
    *added = 0;
    for (int i = 0; i < n_exp + n_front; i++) {
        float x[CS_TREE_MAX_D];
        for (int f = 0; f < d; f++)
            x[f] = (float)cs_rng_below(&g, 50) / 50.0f;
        if (i % 2 == 0 && i / 2 < n_exp) {
            const float r = (x[0] > 0.6f && x[1] < 0.3f) ? 1.0f : (float)cs_rng_bernoulli(&g, 0.1);
            ck_assert_int_eq(cs_tree_add_experience(&ctx, t, x, r, NULL), CS_OK);
        } else {
            ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, x, (uint64_t)*added), CS_OK);
            ++*added;
        }
    }
}

static void check_routing(const cs_tree *t, int d, int64_t expect)
{
    int64_t total = 0, nonempty = 0;
    for (int32_t lf = 0; lf < cs_tree_leaf_bound(t); lf++) {
        cs_tree_leaf_info info;
        cs_tree_leaf_info_get(t, lf, &info);
        if (!info.live) {
            ck_assert_int_eq(info.n_frontier, 0);
            continue;
        }
        const float *x;
        const uint64_t *ids;
        int64_t n;
        cs_tree_leaf_frontier(t, lf, &x, &ids, &n);
        for (int64_t i = 0; i < n; i++)
            ck_assert_int_eq(cs_tree_leaf_of(t, x + i * d), lf);
        total += n;
        nonempty += n > 0;
    }
    cs_tree_stats s;
    cs_tree_stats_get(t, &s);
    ck_assert_int_eq(total, expect);
    ck_assert_int_eq(s.frontier, expect);
    ck_assert_int_eq(s.nonempty, nonempty);
}

START_TEST(test_routing_after_splits)
{
    cs_tree *t = make_tree(4, 5, 1, 18, 2);
    int64_t added;
    grow_tree(t, 4, 3000, 5000, 20, &added);
    cs_tree_stats s;
    cs_tree_stats_get(t, &s);
    ck_assert_msg(s.leaves > 10, "only %lld leaves", (long long)s.leaves);
    ck_assert_int_eq(s.leaves, 1 + s.splits);
    check_routing(t, 4, added);
    cs_tree_destroy(&t);
}
END_TEST

/* Removal by id with duplicates, interleaved with splits; the remaining multiset is exact. */
START_TEST(test_remove_by_id)
{
    cs_tree *t = make_tree(3, 5, 1, 18, 3);
    cs_rng g;
    cs_rng_init(&g, 30, CS_RNG_TEST, 0, 0);
    enum { NID = 3000 };
    int64_t *mult = calloc(NID, sizeof *mult), present = 0;
    for (int step = 0; step < 30000; step++) {
        float x[3];
        for (int f = 0; f < 3; f++)
            x[f] = (float)cs_rng_uniform(&g);
        const uint64_t id = cs_rng_below(&g, NID);
        const uint64_t op = cs_rng_below(&g, 10);
        if (op < 6) {
            ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, x, id), CS_OK);
            mult[id]++;
            present++;
        } else if (op < 9) {
            ck_assert_int_eq(cs_tree_remove(t, id), mult[id]);
            present -= mult[id];
            mult[id] = 0;
        } else {
            ck_assert_int_eq(cs_tree_add_experience(&ctx, t, x, x[1] > 0.5f ? 1.0f : 0.0f, NULL),
                             CS_OK);
        }
    }
    check_routing(t, 3, present);
    /* every id's samples are found by walking the leaves */
    int64_t *seen = calloc(NID, sizeof *seen);
    for (int32_t lf = 0; lf < cs_tree_leaf_bound(t); lf++) {
        const float *x;
        const uint64_t *ids;
        int64_t n;
        cs_tree_leaf_frontier(t, lf, &x, &ids, &n);
        for (int64_t i = 0; i < n; i++)
            seen[ids[i]]++;
    }
    for (int i = 0; i < NID; i++)
        ck_assert_int_eq(seen[i], mult[i]);
    for (int i = 0; i < NID; i++)
        ck_assert_int_eq(cs_tree_remove(t, (uint64_t)i), mult[i]);
    check_routing(t, 3, 0);
    ck_assert_int_eq(cs_tree_remove(t, 5), 0);
    free(mult);
    free(seen);
    cs_tree_destroy(&t);
}
END_TEST

/* An MLP with Q(x) = x0 on positive inputs (d = 3, one unit per hidden layer). */
static cs_mlp *q_x0(void)
{
    cs_mlp_config c = {3, 1, 1, 0.1f};
    cs_mlp *m = NULL;
    ck_assert_int_eq(cs_mlp_create(&ctx, &c, &m), CS_OK);
    cs_mlp_layout L;
    cs_mlp_layout_of(&c, &L);
    float *th = cs_mlp_params(m);
    memset(th, 0, (size_t)L.n * sizeof *th);
    th[L.w1] = th[L.w2] = th[L.w3] = 1.0f;
    return m;
}

/* The greedy pick is the argmax of Q over the representatives drawn by the same call: two
 * identical trees, one asked for its representatives, the other for a greedy pick. */
START_TEST(test_sample_argmax)
{
    cs_tree *a = make_tree(3, 5, 1, 18, 4), *b = make_tree(3, 5, 1, 18, 4);
    int64_t added_a, added_b;
    grow_tree(a, 3, 2000, 3000, 40, &added_a);
    grow_tree(b, 3, 2000, 3000, 40, &added_b);
    cs_mlp *q = q_x0();
    for (int call = 0; call < 50; call++) {
        const float *rx;
        const uint64_t *rid;
        const int32_t *rl;
        int64_t n;
        ck_assert_int_eq(cs_tree_representatives(&ctx, a, &rx, &rid, &rl, &n), CS_OK);
        ck_assert_int_gt(n, 1);
        int64_t best = 0;
        for (int64_t i = 1; i < n; i++)
            if (rx[i * 3] > rx[best * 3] || (rx[i * 3] == rx[best * 3] && rl[i] < rl[best]))
                best = i;
        const uint64_t want_id = rid[best];
        const int32_t want_leaf = rl[best];
        const float want_q = rx[best * 3];
        cs_tree_pick p;
        ck_assert_int_eq(cs_tree_sample(&ctx, b, q, 0.0, &p), CS_OK);
        ck_assert_int_eq(p.found, 1);
        ck_assert_int_eq(p.explored, 0);
        ck_assert_int_eq(p.q_evals, n);
        ck_assert_int_eq(p.leaf, want_leaf);
        ck_assert_int_eq(p.id, want_id);
        ck_assert_float_eq_tol(p.q, want_q, 1e-6f);
        /* the pick left b; keep a identical */
        ck_assert_int_eq(cs_tree_remove(b, p.id), 0);
        ck_assert_int_eq(cs_tree_remove(a, p.id), 1);
        cs_tree_stats s;
        cs_tree_stats_get(b, &s);
        ck_assert_int_eq(s.q_evals_last, n);
        ck_assert_int_eq(s.frontier, added_b - call - 1);
    }
    /* epsilon = 1: exploration, no Q evaluations */
    cs_tree_pick p;
    ck_assert_int_eq(cs_tree_sample(&ctx, b, q, 1.0, &p), CS_OK);
    ck_assert(p.found && p.explored && p.q_evals == 0);
    /* an empty tree yields nothing */
    cs_tree *e = make_tree(3, 5, 1, 18, 4);
    ck_assert_int_eq(cs_tree_sample(&ctx, e, q, 0.0, &p), CS_OK);
    ck_assert_int_eq(p.found, 0);
    cs_tree_destroy(&e);
    cs_mlp_destroy(&q);
    cs_tree_destroy(&a);
    cs_tree_destroy(&b);
}
END_TEST

/* A tree of three leaves (x0 <= 0.2 | 0.2 < x0 <= 0.6 | x0 > 0.6) holding 3, 7 and 20 frontier
 * samples. */
static cs_tree *three_leaves(uint64_t seed)
{
    cs_tree *t = make_tree(1, 2, 1, 18, seed);
    const float xe[6] = {0.1f, 0.2f, 0.5f, 0.6f, 0.8f, 0.9f}, re[6] = {0, 0, 5, 5, 10, 10};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(cs_tree_add_experience(&ctx, t, &xe[i], re[i], NULL), CS_OK);
    ck_assert_int_eq(n_leaves(t), 3);
    const int sizes[3] = {3, 7, 20};
    const float base[3] = {0.0f, 0.3f, 0.7f};
    uint64_t id = 0;
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < sizes[l]; i++) {
            const float x = base[l] + 0.001f * (float)i;
            ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, &x, id++), CS_OK);
        }
    return t;
}

/* Each leaf's representative is uniform over its samples: 30000 draws, chi-square per leaf
 * (df = size - 1), fixed seed; p > 1e-4 (the three tests pass together with probability
 * > 0.9997 for a correct sampler, and a bias of a few percent in a leaf fails them). */
START_TEST(test_representatives_uniform)
{
    cs_tree *t = three_leaves(50);
    enum { DRAWS = 30000 };
    uint64_t count[30] = {0};
    for (int k = 0; k < DRAWS; k++) {
        const float *rx;
        const uint64_t *rid;
        const int32_t *rl;
        int64_t n;
        ck_assert_int_eq(cs_tree_representatives(&ctx, t, &rx, &rid, &rl, &n), CS_OK);
        ck_assert_int_eq(n, 3);
        for (int64_t i = 0; i < n; i++) {
            ck_assert_int_eq(cs_tree_leaf_of(t, rx + i), rl[i]);
            count[rid[i]]++;
        }
    }
    const int first[3] = {0, 3, 10}, sizes[3] = {3, 7, 20};
    for (int l = 0; l < 3; l++) {
        double prob[20];
        for (int i = 0; i < sizes[l]; i++)
            prob[i] = 1.0 / sizes[l];
        st_chi2 res = st_chi2_test(count + first[l], prob, (size_t)sizes[l], DRAWS);
        ck_assert_msg(res.p > 1e-4, "leaf %d: chi2 %g df %d p %g", l, res.chi2, res.df, res.p);
    }
    cs_tree_destroy(&t);
}
END_TEST

/* Tree-Random: a uniform leaf then a uniform sample, so P(id) = 1 / (3 * size of its leaf).
 * Each pick is put back (same vector and id) so the distribution stays fixed. */
START_TEST(test_tree_random_uniform)
{
    cs_tree *t = three_leaves(60);
    enum { DRAWS = 30000 };
    uint64_t count[30] = {0};
    double prob[30];
    const int sizes[3] = {3, 7, 20};
    for (int l = 0, id = 0; l < 3; l++)
        for (int i = 0; i < sizes[l]; i++)
            prob[id++] = 1.0 / (3.0 * sizes[l]);
    for (int k = 0; k < DRAWS; k++) {
        cs_tree_pick p;
        ck_assert_int_eq(cs_tree_sample_random(&ctx, t, &p), CS_OK);
        ck_assert(p.found && p.explored);
        count[p.id]++;
        ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, p.x, p.id), CS_OK);
    }
    st_chi2 res = st_chi2_test(count, prob, 30, DRAWS);
    ck_assert_msg(res.p > 1e-4, "chi2 %g df %d p %g", res.chi2, res.df, res.p);
    cs_tree_destroy(&t);
}
END_TEST

/* cs_tree_peek_random (the DDQN target's Tree-Frontier sample): the same distribution as
 * Tree-Random (uniform leaf, uniform sample; chi-square as above), and nothing leaves the tree. */
START_TEST(test_peek_random_uniform)
{
    cs_tree *t = three_leaves(61);
    enum { DRAWS = 30000 };
    uint64_t count[30] = {0};
    double prob[30];
    const int sizes[3] = {3, 7, 20};
    const float base[3] = {0.0f, 0.3f, 0.7f};
    for (int l = 0, id = 0; l < 3; l++)
        for (int i = 0; i < sizes[l]; i++)
            prob[id++] = 1.0 / (3.0 * sizes[l]);
    cs_rng r;
    cs_rng_init(&r, 61, CS_RNG_TEST, 0, 0);
    cs_tree_stats before, after;
    cs_tree_stats_get(t, &before);
    int unknown = 0;
    for (int k = 0; k < DRAWS; k++) {
        float x = -1.0f;
        ck_assert_int_eq(cs_tree_peek_random(t, &r, &x), 1);
        int id = -1;
        for (int l = 0, j = 0; l < 3; l++)
            for (int i = 0; i < sizes[l]; i++, j++)
                if (x == base[l] + 0.001f * (float)i)
                    id = j;
        if (id < 0)
            unknown++;
        else
            count[id]++;
    }
    cs_tree_stats_get(t, &after);
    ck_assert_int_eq(unknown, 0);
    ck_assert_int_eq(after.frontier, before.frontier);
    st_chi2 res = st_chi2_test(count, prob, 30, DRAWS);
    ck_assert_msg(res.p > 1e-4, "chi2 %g df %d p %g", res.chi2, res.df, res.p);
    cs_tree_destroy(&t);
    cs_tree *e = make_tree(1, 5, 1, 18, 1); /* no frontier sample: 0, x untouched */
    float x = 7.0f;
    ck_assert_int_eq(cs_tree_peek_random(e, &r, &x), 0);
    ck_assert(x == 7.0f);
    cs_tree_destroy(&e);
}
END_TEST

/* The same sequence of operations gives the same tree and picks with 1 and 2 threads, with
 * leaves large enough for the parallel split search and enough leaves for parallel
 * representatives. */
static void run_big(int threads, uint64_t *digest, int64_t *leaves)
{
    omp_set_num_threads(threads);
    cs_tree *t = make_tree(16, 1500, 1, 18, 8);
    cs_rng g;
    cs_rng_init(&g, 80, CS_RNG_TEST, 0, 0);
    cs_mlp_config mc = {16, 8, 4, 0.1f};
    cs_mlp *q = NULL;
    ck_assert_int_eq(cs_mlp_create(&ctx, &mc, &q), CS_OK);
    cs_mlp_init_weights(q, CS_MLP_INIT_GLOROT, &g);
    uint64_t h = 0;
    for (int i = 0; i < 20000; i++) {
        float x[16];
        for (int f = 0; f < 16; f++)
            x[f] = (float)cs_rng_uniform(&g);
        if (i % 4 == 0) {
            const float r = (float)cs_rng_bernoulli(&g, x[3] > 0.5f ? 0.8 : 0.2);
            ck_assert_int_eq(cs_tree_add_experience(&ctx, t, x, r, NULL), CS_OK);
        } else {
            ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, x, (uint64_t)i), CS_OK);
        }
        if (i % 100 == 99) {
            cs_tree_pick p;
            ck_assert_int_eq(cs_tree_sample(&ctx, t, q, 0.0, &p), CS_OK);
            h = cs_mix64(h ^ p.id);
        }
    }
    for (int k = 0; k < 3; k++) {
        const float *rx;
        const uint64_t *rid;
        const int32_t *rl;
        int64_t n;
        ck_assert_int_eq(cs_tree_representatives(&ctx, t, &rx, &rid, &rl, &n), CS_OK);
        for (int64_t i = 0; i < n; i++)
            h = cs_mix64(h ^ rid[i]);
    }
    cs_tree_stats s;
    cs_tree_stats_get(t, &s);
    ck_assert_int_gt(s.leaves, 1);
    cs_tree_destroy(&t);
    /* phase 2: many small leaves (parallel representatives, several MLP chunks) */
    t = make_tree(2, 2, 1, 18, 9);
    cs_mlp_config mc2 = {2, 8, 4, 0.1f};
    cs_mlp *q2 = NULL;
    ck_assert_int_eq(cs_mlp_create(&ctx, &mc2, &q2), CS_OK);
    cs_mlp_init_weights(q2, CS_MLP_INIT_GLOROT, &g);
    for (int i = 0; i < 40000; i++) {
        float x[2] = {(float)cs_rng_uniform(&g), (float)cs_rng_uniform(&g)};
        if (i < 12000)
            ck_assert_int_eq(
                cs_tree_add_experience(&ctx, t, x, (float)cs_rng_bernoulli(&g, 0.5), NULL), CS_OK);
        else
            ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, x, (uint64_t)i), CS_OK);
    }
    cs_tree_stats_get(t, &s);
    ck_assert_msg(s.nonempty >= 4096, "only %lld non-empty leaves", (long long)s.nonempty);
    for (int k = 0; k < 20; k++) {
        cs_tree_pick p;
        ck_assert_int_eq(cs_tree_sample(&ctx, t, q2, 0.0, &p), CS_OK);
        h = cs_mix64(h ^ p.id);
    }
    *digest = h;
    *leaves = s.leaves;
    cs_mlp_destroy(&q2);
    cs_mlp_destroy(&q);
    cs_tree_destroy(&t);
}

/* A batch of frontier samples (cs_tree_add_frontier_batch, its leaves found on 3 threads) gives
 * the tree of the same samples added one by one: every leaf's samples in the same slots, the
 * same representatives; a bad sample fails the batch after the samples before it. */
START_TEST(test_frontier_batch)
{
    omp_set_num_threads(3);
    cs_tree *a = make_tree(2, 5, 1, 18, 4), *b = make_tree(2, 5, 1, 18, 4);
    cs_rng g;
    cs_rng_init(&g, 81, CS_RNG_TEST, 0, 0);
    enum { N = 3000 };
    static float x[N * 2];
    static uint64_t id[N];
    for (int i = 0; i < 400; i++) {
        const float e[2] = {(float)cs_rng_uniform(&g), (float)cs_rng_uniform(&g)};
        const float r = (float)cs_rng_bernoulli(&g, e[0] > 0.5f ? 0.9 : 0.1);
        ck_assert_int_eq(cs_tree_add_experience(&ctx, a, e, r, NULL), CS_OK);
        ck_assert_int_eq(cs_tree_add_experience(&ctx, b, e, r, NULL), CS_OK);
    }
    for (int i = 0; i < N; i++) {
        x[2 * i] = (float)cs_rng_uniform(&g);
        x[2 * i + 1] = (float)cs_rng_uniform(&g);
        id[i] = cs_rng_below(&g, N / 2); /* repeated pages: several samples per id */
    }
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(cs_tree_add_frontier(&ctx, a, x + 2 * i, id[i]), CS_OK);
    ck_assert_int_eq(cs_tree_add_frontier_batch(&ctx, b, x, id, N / 3), CS_OK);
    ck_assert_int_eq(cs_tree_add_frontier_batch(&ctx, b, x + 2 * (N / 3), id + N / 3, N - N / 3),
                     CS_OK);
    ck_assert_int_eq(cs_tree_leaf_bound(a), cs_tree_leaf_bound(b));
    ck_assert_int_gt(cs_tree_leaf_bound(a), 8);
    for (int32_t lf = 0; lf < cs_tree_leaf_bound(a); lf++) {
        const float *xa, *xb;
        const uint64_t *ia, *ib;
        int64_t na, nb;
        cs_tree_leaf_frontier(a, lf, &xa, &ia, &na);
        cs_tree_leaf_frontier(b, lf, &xb, &ib, &nb);
        ck_assert_int_eq(na, nb);
        if (na > 0) {
            ck_assert(memcmp(ia, ib, (size_t)na * sizeof *ia) == 0);
            ck_assert(memcmp(xa, xb, (size_t)na * 2 * sizeof *xa) == 0);
        }
    }
    for (int k = 0; k < 5; k++) {
        const float *ra, *rb;
        const uint64_t *ia, *ib;
        const int32_t *la, *lb;
        int64_t na, nb;
        ck_assert_int_eq(cs_tree_representatives(&ctx, a, &ra, &ia, &la, &na), CS_OK);
        ck_assert_int_eq(cs_tree_representatives(&ctx, b, &rb, &ib, &lb, &nb), CS_OK);
        ck_assert_int_eq(na, nb);
        ck_assert(memcmp(ia, ib, (size_t)na * sizeof *ia) == 0);
        ck_assert(memcmp(la, lb, (size_t)na * sizeof *la) == 0);
        ck_assert_int_eq(cs_tree_remove(a, ia[0]), cs_tree_remove(b, ib[0]));
    }
    /* sample 300 of a batch is bad: the 300 before it are added, none after */
    cs_tree_stats s0, s1;
    cs_tree_stats_get(b, &s0);
    x[2 * 300 + 1] = NAN;
    ck_assert_int_eq(cs_tree_add_frontier_batch(&ctx, b, x, id, 600), CS_ERR_ARG);
    cs_tree_stats_get(b, &s1);
    ck_assert_int_eq(s1.frontier - s0.frontier, 300);
    cs_tree_destroy(&a);
    cs_tree_destroy(&b);
}
END_TEST

START_TEST(test_independent_of_threads)
{
    uint64_t h1, h2;
    int64_t l1, l2;
    run_big(1, &h1, &l1);
    run_big(2, &h2, &l2);
    ck_assert_int_gt(l1, 1);
    ck_assert_int_eq(l1, l2);
    ck_assert_msg(h1 == h2, "picks differ between 1 and 2 threads");
}
END_TEST

/* Frontier memory per sample at d = 7 over a million samples: vectors and ids 36 bytes, arrays
 * grown by 1.5x (<= 54 bytes), the id map at load >= 3/8 (<= 16 * 8/3 = 42.7 bytes), plus
 * MIN_CAP-row arrays of small leaves: bound 100 bytes. Also after removing 90% of them (the
 * arrays shrink when a quarter full, the map when an eighth full). */
START_TEST(test_memory_per_sample)
{
    cs_tree *t = make_tree(7, 5, 1, 18, 9);
    cs_rng g;
    cs_rng_init(&g, 90, CS_RNG_TEST, 0, 0);
    const int64_t N = 1000000;
    for (int64_t i = 0; i < N; i++) {
        float x[7];
        for (int f = 0; f < 7; f++)
            x[f] = (float)cs_rng_uniform(&g);
        if (i % 500 == 0) /* some structure: ~2000 experience samples */
            ck_assert_int_eq(
                cs_tree_add_experience(&ctx, t, x, x[0] + x[1] > 1.0f ? 1.0f : 0.0f, NULL), CS_OK);
        ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, x, (uint64_t)i), CS_OK);
    }
    cs_tree_stats s;
    cs_tree_stats_get(t, &s);
    const double per = (double)s.bytes_frontier / (double)s.frontier;
    printf("tree memory: %lld frontier samples in %lld leaves: %.1f bytes/sample (frontier "
           "arrays + id map), %.1f bytes/sample in all\n",
           (long long)s.frontier, (long long)s.leaves, per, (double)s.bytes / (double)s.frontier);
    ck_assert_int_gt(s.leaves, 50);
    ck_assert_msg(per <= 100.0, "%.1f bytes per frontier sample", per);
    for (int64_t i = 0; i < N; i++)
        if (i % 10 != 0)
            ck_assert_int_eq(cs_tree_remove(t, (uint64_t)i), 1);
    cs_tree_stats_get(t, &s);
    const double per2 = (double)s.bytes_frontier / (double)s.frontier;
    printf("tree memory after removing 90%%: %.1f bytes/sample\n", per2);
    /* arrays <= 4x occupancy (they shrink at 1/4) = 144, map load >= 1/8 (it shrinks below) =
     * 128 */
    ck_assert_msg(per2 <= 144.0 + 128.0, "%.1f bytes per frontier sample", per2);
    cs_tree_destroy(&t);
}
END_TEST

static Suite *tree_suite(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("tree");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_vr_hand_example);
    tcase_add_test(tc, test_best_split_known);
    tcase_add_test(tc, test_best_split_brute_force);
    tcase_add_test(tc, test_split_rules);
    tcase_add_test(tc, test_routing_after_splits);
    tcase_add_test(tc, test_remove_by_id);
    tcase_add_test(tc, test_sample_argmax);
    tcase_add_test(tc, test_representatives_uniform);
    tcase_add_test(tc, test_tree_random_uniform);
    tcase_add_test(tc, test_peek_random_uniform);
    tcase_add_test(tc, test_independent_of_threads);
    tcase_add_test(tc, test_frontier_batch);
    tcase_add_test(tc, test_memory_per_sample);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tree_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
