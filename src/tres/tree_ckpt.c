/*
 * tres, checkpoints: a Tree-Frontier saved to and restored from a checkpoint (tree.h
 * cs_tree_save, cs_tree_load), leaves without their arrays plus the arrays themselves.
 */
#include "tree_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A leaf without its arrays. */
typedef struct leaf_rec {
    int32_t node, depth;
    int64_t ne_pos, nf, ne;
    float rmin, rmax;
} leaf_rec;

enum {
    TS_D,
    TS_NODES,
    TS_LEAVES,
    TS_LIVE,
    TS_SPLITS,
    TS_NONEMPTY,
    TS_MAPCAP,
    TS_MAPCOUNT,
    TS_NFRONT,
    TS_NEXP,
    TS_CALLS,
    TS_PICKS,
    TS_QLAST,
    TS_QTOTAL,
    TS_N
};

cs_err cs_tree_save(cs_ctx *ctx, const cs_tree *t, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    const int d = t->c.d;
    leaf_rec *lr = NULL;
    float *fx = NULL, *ex = NULL, *er = NULL;
    uint64_t *fid = NULL;
    int64_t nf = 0, ne = 0;
    for (int64_t i = 0; i < t->n_leaves; i++) {
        nf += t->leaves[i].nf;
        ne += t->leaves[i].ne;
    }
    rc = cs_alloc(ctx, &lr, (size_t)t->n_leaves + 1, sizeof *lr, "tree checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &fx, (size_t)(nf * d) + 1, sizeof *fx, "tree checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &fid, (size_t)nf + 1, sizeof *fid, "tree checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &ex, (size_t)(ne * d) + 1, sizeof *ex, "tree checkpoint");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &er, (size_t)ne + 1, sizeof *er, "tree checkpoint");
    CS_TRY_AGREE(ctx, rc);
    nf = ne = 0;
    for (int64_t i = 0; i < t->n_leaves; i++) {
        const leaf *L = &t->leaves[i];
        memset(&lr[i], 0, sizeof lr[i]);
        lr[i].node = L->node;
        lr[i].depth = L->depth;
        lr[i].ne_pos = L->ne_pos;
        lr[i].nf = L->nf;
        lr[i].ne = L->ne;
        lr[i].rmin = L->rmin;
        lr[i].rmax = L->rmax;
        if (L->nf > 0) {
            memcpy(fx + nf * d, L->fx, (size_t)(L->nf * d) * sizeof *fx);
            memcpy(fid + nf, L->fid, (size_t)L->nf * sizeof *fid);
        }
        if (L->ne > 0) {
            memcpy(ex + ne * d, L->ex, (size_t)(L->ne * d) * sizeof *ex);
            memcpy(er + ne, L->er, (size_t)L->ne * sizeof *er);
        }
        nf += L->nf;
        ne += L->ne;
    }
    const int64_t sc[TS_N] = {d,
                              t->n_nodes,
                              t->n_leaves,
                              t->live_leaves,
                              t->splits,
                              t->n_nonempty,
                              (int64_t)t->map_mask + 1,
                              t->map_count,
                              t->n_frontier,
                              t->n_experience,
                              (int64_t)t->calls,
                              t->picks,
                              t->q_evals_last,
                              t->q_evals_total};
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "state"), CS_CK_I64, TS_N, sc));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "nodes"), CS_CK_BYTES,
                            t->n_nodes * (int64_t)sizeof(node), t->nodes));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "leaves"), CS_CK_BYTES,
                            t->n_leaves * (int64_t)sizeof *lr, lr));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "fx"), CS_CK_F32, nf * d, fx));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "fid"), CS_CK_U64, nf, fid));
    CS_TRY(ctx,
           cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "ex"), CS_CK_F32, ne * d, ex));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "er"), CS_CK_F32, ne, er));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "nonempty"), CS_CK_I32,
                            t->n_nonempty, t->nonempty));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "map"), CS_CK_BYTES,
                            (int64_t)(t->map_mask + 1) * (int64_t)sizeof(map_entry), t->map));
fail:
    free(lr);
    free(fx);
    free(fid);
    free(ex);
    free(er);
    return rc;
}

/* Checks a saved tree's state (sc, TS_N values) against this tree's configuration (d features).
 * Local. */
static cs_err check_state(cs_ctx *ctx, const cs_ckpt *ck, const char *prefix, int d,
                          const int64_t *sc)
{
    const uint64_t mapcap = (uint64_t)sc[TS_MAPCAP];
    if (sc[TS_D] != d || sc[TS_NODES] < 1 || sc[TS_LEAVES] < 1 || sc[TS_NONEMPTY] < 0 ||
        sc[TS_NONEMPTY] > sc[TS_LEAVES] || sc[TS_NODES] > INT32_MAX || sc[TS_LEAVES] > INT32_MAX ||
        mapcap < MAP_MIN || (mapcap & (mapcap - 1)) != 0)
        return cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: tree %s of another configuration",
                       cs_ckpt_path(ck), prefix);
    return CS_OK;
}

/* Frees the fresh tree's leaves and sizes its arrays for the saved one (state sc). Collective
 * (the allocations are agreed). */
static cs_err resize_for(cs_ctx *ctx, cs_tree *t, const int64_t *sc)
{
    const uint64_t mapcap = (uint64_t)sc[TS_MAPCAP];
    for (int64_t i = 0; i < t->n_leaves; i++)
        tree_leaf_free(&t->leaves[i]);
    const int64_t cn = sc[TS_NODES] > 64 ? sc[TS_NODES] : 64;
    const int64_t cl = sc[TS_LEAVES] > 64 ? sc[TS_LEAVES] : 64;
    t->n_leaves = 0;
    cs_err rc = tree_resize(ctx, &t->nodes, (size_t)cn, sizeof *t->nodes, "tree nodes");
    if (rc == CS_OK)
        rc = tree_resize(ctx, &t->leaves, (size_t)cl, sizeof *t->leaves, "leaves");
    if (rc == CS_OK)
        rc = tree_resize(ctx, &t->nonempty, (size_t)cl, sizeof *t->nonempty, "leaf list");
    if (rc == CS_OK) {
        map_entry *m = malloc((size_t)mapcap * sizeof *m);
        if (m == NULL)
            rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the tree's map");
        else {
            free(t->map);
            t->map = m;
            t->map_mask = mapcap - 1;
        }
    }
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    t->cap_nodes = cn;
    t->cap_leaves = t->cap_nonempty = cl;
    memset(t->leaves, 0, (size_t)cl * sizeof *t->leaves);
    return CS_OK;
}

/* The saved leaves' contents: the leaf table lr (t->n_leaves entries) and their frontier (fx,
 * fid: nf entries in all) and experience (ex, er: ne) in leaf order. */
typedef struct saved_leaves {
    const leaf_rec *lr;
    const float *fx, *ex, *er;
    const uint64_t *fid;
    int64_t nf, ne;
} saved_leaves;

/* Restores t's leaves from s, each checked against the saved entries. Local. */
static cs_err load_leaves(cs_ctx *ctx, cs_tree *t, const cs_ckpt *ck, const char *prefix,
                          const saved_leaves *s)
{
    const int d = t->c.d;
    const leaf_rec *lr = s->lr;
    int64_t af = 0, ae = 0;
    cs_err rc = CS_OK;
    for (int64_t i = 0; i < t->n_leaves; i++) {
        leaf *L = &t->leaves[i];
        L->node = lr[i].node;
        L->depth = lr[i].depth;
        L->ne_pos = lr[i].ne_pos;
        L->rmin = lr[i].rmin;
        L->rmax = lr[i].rmax;
        if (lr[i].nf < 0 || lr[i].ne < 0 || af + lr[i].nf > s->nf || ae + lr[i].ne > s->ne)
            return cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: tree %s: bad leaf %lld",
                           cs_ckpt_path(ck), prefix, (long long)i);
        if (lr[i].nf > 0)
            rc = tree_frontier_reserve(ctx, t, L, lr[i].nf);
        if (rc == CS_OK && lr[i].ne > 0)
            rc = tree_experience_reserve(ctx, t, L, lr[i].ne);
        if (rc != CS_OK)
            return rc;
        L->nf = lr[i].nf;
        L->ne = lr[i].ne;
        if (L->nf > 0) {
            memcpy(L->fx, s->fx + af * d, (size_t)(L->nf * d) * sizeof *s->fx);
            memcpy(L->fid, s->fid + af, (size_t)L->nf * sizeof *s->fid);
        }
        if (L->ne > 0) {
            memcpy(L->ex, s->ex + ae * d, (size_t)(L->ne * d) * sizeof *s->ex);
            memcpy(L->er, s->er + ae, (size_t)L->ne * sizeof *s->er);
        }
        af += L->nf;
        ae += L->ne;
    }
    return CS_OK;
}

/* The saved counters of the state sc. */
static void restore_counters(cs_tree *t, const int64_t *sc)
{
    t->live_leaves = sc[TS_LIVE];
    t->splits = sc[TS_SPLITS];
    t->map_count = sc[TS_MAPCOUNT];
    t->n_frontier = sc[TS_NFRONT];
    t->n_experience = sc[TS_NEXP];
    t->calls = (uint64_t)sc[TS_CALLS];
    t->picks = sc[TS_PICKS];
    t->q_evals_last = sc[TS_QLAST];
    t->q_evals_total = sc[TS_QTOTAL];
}

cs_err cs_tree_load(cs_ctx *ctx, cs_tree *t, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    leaf_rec *lr = NULL;
    float *fx = NULL, *ex = NULL, *er = NULL;
    uint64_t *fid = NULL;
    int64_t sc[TS_N], n = 0, nf = 0, ne = 0;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "state"), CS_CK_I64,
                                  TS_N, sc));
    CS_TRY_AGREE(ctx, check_state(ctx, ck, prefix, t->c.d, sc));
    CS_TRY(ctx, resize_for(ctx, t, sc));
    const uint64_t mapcap = (uint64_t)sc[TS_MAPCAP];
    t->n_nodes = sc[TS_NODES];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "nodes"),
                                  CS_CK_BYTES, t->n_nodes * (int64_t)sizeof(node), t->nodes));
    CS_TRY(ctx, cs_ckpt_get(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "leaves"), CS_CK_BYTES, &n,
                            &lr));
    if (n != sc[TS_LEAVES] * (int64_t)sizeof *lr)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: tree %s: bad leaf table", cs_ckpt_path(ck),
                     prefix);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "fx"), CS_CK_F32, &n, &fx));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "fid"), CS_CK_U64, &nf, &fid));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "ex"), CS_CK_F32, &n, &ex));
    CS_TRY(ctx,
           cs_ckpt_get(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "er"), CS_CK_F32, &ne, &er));
    t->n_leaves = sc[TS_LEAVES];
    const saved_leaves saved = {lr, fx, ex, er, fid, nf, ne};
    CS_TRY_AGREE(ctx, load_leaves(ctx, t, ck, prefix, &saved));
    t->n_nonempty = sc[TS_NONEMPTY];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "nonempty"),
                                  CS_CK_I32, t->n_nonempty, t->nonempty));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, sizeof nm, prefix, "map"), CS_CK_BYTES,
                                  (int64_t)mapcap * (int64_t)sizeof(map_entry), t->map));
    restore_counters(t, sc);
fail:
    free(lr);
    free(fx);
    free(fid);
    free(ex);
    free(er);
    return rc;
}
