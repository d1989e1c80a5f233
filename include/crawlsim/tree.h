/*
 * tree: the Tree-Frontier of TRES (Kontogiannis et al., Sec. 2.6, Algorithms 2 and 3), an online
 * binary tree over state-action vectors x (d <= CS_TREE_MAX_D floats).
 *
 * Each leaf holds its experience samples (x, observed reward r) and its frontier samples (x, a
 * caller's 64-bit id such as a page id). A new experience sample may split only its own leaf
 * (Algorithm 3 line 4), at most once per sample, on the feature f and threshold v with the
 * largest weighted reward-variance reduction (Eq. 4)
 *
 *     VR(P, f, v) = V(P) - |L|/|P| V(L) - |R|/|P| V(R),   L = {x in P : x[f] <= v}
 *
 * where V is the population variance of the rewards (numpy's var, as the authors' code) and the
 * candidate thresholds v are the observed values of x[f] among the leaf's experience samples
 * (the authors' code; Eq. 3's "x < c" with c the next observed value is the same partition).
 * The split is made only when VR > 1e-9 V(P) (a rounding guard: with population variance
 * VR = |L||R|/|P|^2 (mean_L - mean_R)^2 >= 0 exactly, and is 0 when the means agree), the leaf
 * has >= min_samples experience samples, its depth is < max_depth and each child gets >=
 * min_child of them. Ties go to the lowest feature, then the lowest threshold (the authors'
 * scan order). On a split the experience and frontier samples go to the children by the rule,
 * and new frontier samples are routed by the rules (line 5).
 *
 * Sampling (Algorithm 2): one representative per non-empty leaf, uniform among its frontier
 * samples; Q on all representatives in one batched MLP call; the argmax is selected (ties: the
 * lowest leaf index). In exploration mode a uniform representative is selected instead:
 * cs_tree_sample draws it with probability epsilon (the caller's schedule; the authors' code
 * explores only during the first REPLAY_START_SIZE = 300..500 steps, i.e. epsilon = 1 then 0).
 * The selected sample leaves the tree; the other representatives stay. Tree-Random (Sec. 3.2)
 * is the exploration branch alone (cs_tree_sample_random).
 *
 * Randomness: call c of the sampling functions uses the Philox stream (seed, CS_RNG_TRES,
 * stream, sub = c): block 0 for the exploration coin and choice, block 1 + leaf for the leaf's
 * representative. So results do not depend on the thread count.
 *
 * Memory: frontier vectors are contiguous d-float rows in per-leaf arrays (with the ids in a
 * parallel array), grown by 1.5x and shrunk when a quarter full; an open-addressing map
 * id -> (leaf, slot) makes removal by id O(1) on average. No per-sample allocation.
 *
 * Ids need not be unique: cs_tree_remove removes every sample with the id (the paper's frontier
 * holds (path, url) pairs, so one URL can be in it several times). UINT64_MAX is reserved.
 *
 * An object is not safe to use from two threads at once; it uses OpenMP inside where it pays
 * (split search over features on large leaves, representatives of many leaves, the MLP).
 */
#ifndef CRAWLSIM_TREE_H
#define CRAWLSIM_TREE_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/mlp.h"

#include <stddef.h>
#include <stdint.h>

#define CS_TREE_MAX_D 16

typedef struct cs_tree cs_tree;

typedef struct cs_tree_config {
    int d;           /* vector length, 1..CS_TREE_MAX_D */
    int min_samples; /* experience samples a leaf needs before a split is tried; default 5 */
    int min_child;   /* experience samples each child must get, >= 1; default 1 */
    int max_depth;   /* leaves at this depth never split (root depth 0); default 18 */
    uint64_t seed;   /* with stream: the random streams of sampling (see above) */
    uint64_t stream;
} cs_tree_config;

/* A split found by cs_tree_best_split: left = {x : x[feature] <= threshold}. */
typedef struct cs_tree_split {
    int feature; /* -1: no admissible split with VR > 0 */
    float threshold;
    double vr; /* Eq. 4 */
    int64_t n_left, n_right;
} cs_tree_split;

/* The result of a sampling call. */
typedef struct cs_tree_pick {
    int found;    /* 0: the frontier was empty, nothing else is set */
    int explored; /* 1: uniform representative (exploration), 0: argmax of Q */
    uint64_t id;
    int32_t leaf;
    float q;         /* Q of the selected sample (greedy only; 0 when explored) */
    int64_t q_evals; /* Q evaluations this call (= representatives when greedy) */
    float x[CS_TREE_MAX_D];
} cs_tree_pick;

typedef struct cs_tree_leaf_info {
    int live;  /* 0: the index belonged to a leaf that has split */
    int depth; /* root = 0 */
    int64_t n_frontier, n_experience;
} cs_tree_leaf_info;

typedef struct cs_tree_stats {
    int64_t leaves;     /* live leaves = 1 + splits */
    int64_t nonempty;   /* leaves with frontier samples (= Q evaluations of a greedy step) */
    int64_t frontier;   /* frontier samples */
    int64_t experience; /* experience samples */
    int64_t splits;
    int depth;             /* deepest leaf */
    int64_t picks;         /* samples selected */
    int64_t q_evals_last;  /* Q evaluations of the last sampling call */
    int64_t q_evals_total; /* over all calls */
    size_t bytes;          /* everything the tree allocated */
    size_t bytes_frontier; /* per-leaf frontier arrays + id map (the part that scales) */
} cs_tree_stats;

/* Local. Defaults for vectors of length d: min_samples 5, min_child 1, max_depth 18 (the
 * authors' code), seed 0, stream 0. */
CS_API void cs_tree_config_default(cs_tree_config *c, int d);
/* Local. A tree of one empty leaf. CS_ERR_ARG for a bad config, CS_ERR_NOMEM. */
CS_API cs_err cs_tree_create(cs_ctx *ctx, const cs_tree_config *c, cs_tree **out);
/* Local. Frees; accepts NULL and *p == NULL; sets *p = NULL. */
CS_API void cs_tree_destroy(cs_tree **p);

/*
 * Local. Algorithm 3 lines 3-4: adds the experience sample (x, r) to its leaf and tries one
 * split of that leaf. *split (may be NULL) is 1 if it split. CS_ERR_ARG for non-finite input,
 * CS_ERR_NOMEM.
 */
CS_API cs_err cs_tree_add_experience(cs_ctx *ctx, cs_tree *t, const float *x, float r, int *split);
/* Local. Algorithm 3 line 5: adds the frontier sample (x, id) to its leaf. CS_ERR_ARG for
 * non-finite x or id == UINT64_MAX, CS_ERR_NOMEM. */
CS_API cs_err cs_tree_add_frontier(cs_ctx *ctx, cs_tree *t, const float *x, uint64_t id);
/* Local. The frontier samples (x + i * d, ids[i]) for i in [0, n), exactly as n calls of
 * cs_tree_add_frontier in that order (on failure the samples before the bad one are added);
 * their leaves are found on the OpenMP threads (from a few hundred samples), the result does not
 * depend on the thread count. CS_ERR_ARG, CS_ERR_LIMIT, CS_ERR_NOMEM as cs_tree_add_frontier. */
CS_API cs_err cs_tree_add_frontier_batch(cs_ctx *ctx, cs_tree *t, const float *x,
                                         const uint64_t *ids, int64_t n);
/* Local. Removes every frontier sample with this id; returns how many. */
CS_API int64_t cs_tree_remove(cs_tree *t, uint64_t id);

/*
 * Local. Draws one representative per non-empty leaf (Algorithm 2 line 3) without removing any:
 * *n rows of d floats in *x, their ids and leaves, in the order of the internal non-empty list.
 * The arrays are borrowed and valid until the next call on t. Advances the call counter.
 * CS_ERR_NOMEM.
 */
CS_API cs_err cs_tree_representatives(cs_ctx *ctx, cs_tree *t, const float **x,
                                      const uint64_t **ids, const int32_t **leaves, int64_t *n);
/*
 * Local. Algorithm 2: with probability epsilon a uniform representative, else the
 * representative with the largest Q (q->d_in must be d); the selected sample is removed.
 * out->found = 0 if the frontier is empty. CS_ERR_NOMEM.
 */
CS_API cs_err cs_tree_sample(cs_ctx *ctx, cs_tree *t, cs_mlp *q, double epsilon, cs_tree_pick *out);
/* Local. Tree-Random: a uniform leaf, then a uniform sample of it; removed. */
CS_API cs_err cs_tree_sample_random(cs_ctx *ctx, cs_tree *t, cs_tree_pick *out);
/* Local. A uniform sample of a uniform non-empty leaf, left in the tree: its vector into x (d
 * floats). Returns 0 (x untouched) when the tree holds no frontier sample. */
CS_API int cs_tree_peek_random(const cs_tree *t, cs_rng *r, float *x);

/* Local. Counters and memory. */
CS_API void cs_tree_stats_get(const cs_tree *t, cs_tree_stats *s);
/* Local. The leaf index x is routed to. */
CS_API int32_t cs_tree_leaf_of(const cs_tree *t, const float *x);
/* Local. Leaf indexes are < this bound (split leaves leave holes). */
CS_API int32_t cs_tree_leaf_bound(const cs_tree *t);
/* Local. What a leaf index holds. */
CS_API void cs_tree_leaf_info_get(const cs_tree *t, int32_t leaf, cs_tree_leaf_info *info);
/* Local. A leaf's frontier samples, borrowed until the next change of t. */
CS_API void cs_tree_leaf_frontier(const cs_tree *t, int32_t leaf, const float **x,
                                  const uint64_t **ids, int64_t *n);
/* Local. The rule of a node (0 = root): returns 1 and sets *feature, *threshold if it is
 * internal, 0 if it is a leaf; *left / *right (may be NULL) get the children's node indexes. */
CS_API int cs_tree_node_rule(const cs_tree *t, int32_t node, int *feature, float *threshold,
                             int32_t *left, int32_t *right);

/*
 * Local. The split search of one leaf, as a pure function: the best admissible split of the
 * samples x[i * ldx ..] (n rows, d features), rewards r, each side >= min_child samples (see the
 * rules above; no min_samples / depth test here). OpenMP over features on large leaves.
 * CS_ERR_NOMEM.
 */
CS_API cs_err cs_tree_best_split(cs_ctx *ctx, const float *x, int64_t ldx, int d, const float *r,
                                 int64_t n, int64_t min_child, cs_tree_split *out);
/* Local. Eq. 4 by its definition (two-pass population variances): the variance reduction of
 * the rewards r[0..n) when left[i] != 0 sends sample i left. 0 when n == 0. */
CS_API double cs_tree_vr(const float *r, const unsigned char *left, int64_t n);

/* Collective(ctx->comm) (ckpt.h). The whole tree as items under prefix: nodes, leaves with
 * their frontier and experience samples in slot order, the non-empty leaf list in its order, the
 * id map as laid out (removals walk it), and the counters (sampling calls, picks, splits, Q
 * evaluations); restored into a freshly created tree of the same configuration (d checked), after
 * which it samples, splits and removes exactly as the saved one would have. */
CS_API cs_err cs_tree_save(cs_ctx *ctx, const cs_tree *t, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_tree_load(cs_ctx *ctx, cs_tree *t, cs_ckpt *ck, const char *prefix);

#endif
