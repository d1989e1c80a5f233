/*
 * tres, split search: the variance reduction of a candidate split and the best split of a leaf's
 * experience samples (TRES Eq. 3-4), on OpenMP threads over the features for large leaves.
 */
#include "tree_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

double cs_tree_vr(const float *r, const unsigned char *left, int64_t n)
{
    if (n == 0)
        return 0.0;
    double s[3] = {0, 0, 0};
    int64_t c[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        s[0] += (double)r[i];
        c[0]++;
        const int k = left[i] ? 1 : 2;
        s[k] += (double)r[i];
        c[k]++;
    }
    double v[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (c[k] == 0)
            continue;
        const double mean = s[k] / (double)c[k];
        double q = 0.0;
        for (int64_t i = 0; i < n; i++) {
            const int in = k == 0 || (k == 1) == (left[i] != 0);
            if (in)
                q += ((double)r[i] - mean) * ((double)r[i] - mean);
        }
        v[k] = q / (double)c[k];
    }
    return v[0] - (double)c[1] / (double)n * v[1] - (double)c[2] / (double)n * v[2];
}

typedef struct vi {
    float v;
    int32_t i;
} vi;

static int cmp_vi(const void *a, const void *b)
{
    const vi *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The best threshold of one feature: scan the sorted values with prefix sums of the rewards.
 * VR = nl nr / n^2 (mean_L - mean_R)^2 equals Eq. 4 with population variances. */
static void best_of_feature(const float *x, int64_t ldx, int f, const float *r, int64_t n,
                            int64_t min_child, vi *s, double *bvr, float *bthr, int64_t *bnl)
{
    for (int64_t i = 0; i < n; i++) {
        s[i].v = x[i * ldx + f];
        s[i].i = (int32_t)i;
    }
    qsort(s, (size_t)n, sizeof *s, cmp_vi);
    double total = 0.0;
    for (int64_t i = 0; i < n; i++)
        total += (double)r[i];
    double sl = 0.0;
    *bvr = 0.0;
    *bnl = 0;
    *bthr = 0.0f;
    for (int64_t i = 0; i + 1 < n; i++) {
        sl += (double)r[s[i].i];
        if (s[i + 1].v == s[i].v)
            continue; /* a threshold sends all equal values the same way */
        const int64_t nl = i + 1, nr = n - nl;
        if (nl < min_child || nr < min_child)
            continue;
        const double ml = sl / (double)nl, mr = (total - sl) / (double)nr;
        const double vr = (double)nl * (double)nr / ((double)n * (double)n) * (ml - mr) * (ml - mr);
        if (vr > *bvr) {
            *bvr = vr;
            *bthr = s[i].v;
            *bnl = nl;
        }
    }
}

cs_err cs_tree_best_split(cs_ctx *ctx, const float *x, int64_t ldx, int d, const float *r,
                          int64_t n, int64_t min_child, cs_tree_split *out)
{
    cs_err rc = CS_OK;
    vi *scratch = NULL;
    out->feature = -1;
    out->threshold = 0.0f;
    out->vr = 0.0;
    out->n_left = out->n_right = 0;
    if (n < 2 || d < 1 || d > CS_TREE_MAX_D)
        return CS_OK;
    if (n > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT, "tree: %lld experience samples in one leaf",
                       (long long)n);
    /* parent variance (two-pass) for the rounding guard; nothing to gain when it is 0 */
    double mean = 0.0, vp = 0.0;
    for (int64_t i = 0; i < n; i++)
        mean += (double)r[i];
    mean /= (double)n;
    for (int64_t i = 0; i < n; i++)
        vp += ((double)r[i] - mean) * ((double)r[i] - mean);
    vp /= (double)n;
    if (!(vp > 0.0))
        return CS_OK;
    CS_TRY(ctx, cs_alloc(ctx, &scratch, (size_t)n * (size_t)d, sizeof *scratch, "split scratch"));
    double bvr[CS_TREE_MAX_D];
    float bthr[CS_TREE_MAX_D];
    int64_t bnl[CS_TREE_MAX_D];
    const int par = (int64_t)d * n >= PAR_SPLIT_WORK;
#pragma omp parallel for schedule(static) if (par) default(none)                                   \
    shared(x, ldx, d, r, n, min_child, scratch, bvr, bthr, bnl)
    for (int f = 0; f < d; f++)
        best_of_feature(x, ldx, f, r, n, min_child, scratch + (int64_t)f * n, &bvr[f], &bthr[f],
                        &bnl[f]);
    /* fixed-order reduction: strictly better wins, so ties keep the lowest feature */
    for (int f = 0; f < d; f++)
        if (bvr[f] > VR_REL_TOL * vp && bvr[f] > out->vr) {
            out->feature = f;
            out->threshold = bthr[f];
            out->vr = bvr[f];
            out->n_left = bnl[f];
            out->n_right = n - bnl[f];
        }
    free(scratch);
    return CS_OK;
fail:
    free(scratch);
    return rc;
}

/* Splits leaf lf by (f, v): two new leaves, the node becomes internal, samples distributed. */
