/*
 * tres internals shared by tree.c (the tree and its updates and sampling), tree_split.c (the
 * split search) and tree_ckpt.c (checkpoints): the node, leaf and id-map layouts of cs_tree.
 */
#ifndef CRAWLSIM_TREE_IMPL_H
#define CRAWLSIM_TREE_IMPL_H

#include "crawlsim/tree.h"

#include <stddef.h>
#include <stdint.h>

#define EMPTY_ID UINT64_MAX
#define MIN_CAP 4
#define MAP_MIN 1024
/* Split search runs its features on OpenMP threads from this many (samples x features). */
#define PAR_SPLIT_WORK 16384
/* Representatives are drawn on OpenMP threads from this many non-empty leaves. */
#define PAR_REPS 4096
/* Frontier samples of a batch are routed to their leaves on OpenMP threads from this many. */
#define PAR_ROUTE 256
/* A split needs VR > VR_REL_TOL * V(P) (see tree.h). */
#define VR_REL_TOL 1e-9

typedef struct node {
    int32_t feature; /* -1: leaf */
    float thr;
    int32_t left, right; /* children (node indexes) */
    int32_t leaf;        /* leaf index when a leaf */
} node;

typedef struct leaf {
    int32_t node; /* -1: dead (split) */
    int32_t depth;
    int64_t ne_pos; /* position in the non-empty list, -1 if no frontier samples */
    /* frontier samples */
    int64_t nf, capf;
    float *fx; /* capf * d */
    uint64_t *fid;
    /* experience samples */
    int64_t ne, cape;
    float *ex; /* cape * d */
    float *er;
    float rmin, rmax;
} leaf;

typedef struct map_entry {
    uint64_t id;
    uint32_t leaf, slot;
} map_entry;

struct cs_tree {
    cs_tree_config c;
    node *nodes;
    int64_t n_nodes, cap_nodes;
    leaf *leaves;
    int64_t n_leaves, cap_leaves; /* indexes used, including dead ones */
    int64_t live_leaves, splits;
    int32_t *nonempty; /* indexes of leaves with frontier samples */
    int64_t n_nonempty, cap_nonempty;
    map_entry *map;
    uint64_t map_mask;
    int64_t map_count;
    int64_t n_frontier, n_experience;
    uint64_t calls; /* sampling calls: the sub of their streams */
    int64_t picks, q_evals_last, q_evals_total;
    /* representatives scratch: cap_reps rows */
    float *rep_x;
    uint64_t *rep_id;
    int32_t *rep_leaf;
    float *rep_q;
    int64_t cap_reps;
    /* cs_tree_add_frontier_batch scratch: each sample's leaf */
    int32_t *route;
    int64_t cap_route;
};

/* realloc *pp to n elements of size sz; *pp unchanged on failure. */
cs_err tree_resize(cs_ctx *ctx, void *pp, size_t n, size_t sz, const char *what);
/* Capacity of leaf L's frontier samples at least need (arrays grown geometrically). */
cs_err tree_frontier_reserve(cs_ctx *ctx, cs_tree *t, leaf *L, int64_t need);
/* Capacity of leaf L's experience samples at least need. */
cs_err tree_experience_reserve(cs_ctx *ctx, cs_tree *t, leaf *L, int64_t need);
/* Frees leaf L's arrays and zeroes its capacities. */
void tree_leaf_free(leaf *L);

#endif
