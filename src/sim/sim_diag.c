/*
 * sim: the learning diagnostics of `crawlsim run` (docs/reference/formats.md, /series and
 * /ranks/series): at every record point the norm of the weights (their mean over ranks), the
 * ranks' spread around that mean, the update and the step of the last synchronisation, the
 * frontier's range of values, and per rank its fetches, relevant pages, frontier, tree leaves
 * and replay buffer. They show why a loosened synchronisation loses quality (weights that
 * drift apart or diverge) without changing the crawl: everything here reads the engine's state.
 *
 * Determinism: rank 0 gathers every rank's values (one gather per record point, outside the
 * ticks' collective counters) and reduces them in rank order; the mean of the weights is rank
 * 0's weights plus the mean of the others' differences from them, so ranks that hold the same
 * weights (the strict setting) give exactly those weights, a spread of exactly 0 and the same
 * bits on any number of ranks.
 */
#include "sim/sim_engine.h"

/* The values one rank sends at a record point, before its weights: its int64 counts (their
 * bits), then the frontier's smallest and largest value. */
enum { DX_QMIN = NDR, DX_QMAX, DX_N };

static int64_t dbits(double x)
{
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double bitsd(int64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

cs_err sim_diag_create(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_diag *d = &s->d;
    d->update = d->step = (double)NAN;
    d->spread = 0.0;
    d->nw = 0;
    const double *w = s->ops->weights != NULL ? s->ops->weights(s->pol, &d->nw) : NULL;
    if (w == NULL)
        d->nw = 0;
    const size_t row = (size_t)(DX_N + d->nw);
    if ((double)row * 8.0 * ctx->size > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "diagnostics: %lld weights x %d ranks is too many",
                     (long long)d->nw, ctx->size);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &d->w_sync, (size_t)d->nw + 1, sizeof *d->w_sync, "diagnostics");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &d->send, row, sizeof *d->send, "diagnostics");
    if (rc == CS_OK && ctx->rank == 0)
        rc = cs_alloc(ctx, &d->all, row * (size_t)ctx->size, sizeof *d->all, "diagnostics");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &d->mean, (size_t)d->nw + 1, sizeof *d->mean, "diagnostics");
    if (rc == CS_OK && w != NULL && d->nw > 0)
        memcpy(d->w_sync, w, (size_t)d->nw * sizeof *w);
    d->nb = 0;
    while (d->nw > 0 && s->ops->weight_blocks != NULL && d->nb < CS_WEIGHT_BLOCKS_MAX &&
           s->ops->weight_blocks[d->nb] != NULL)
        d->nb++;
    if (d->nb < 2 || d->nw % d->nb != 0)
        d->nb = 0; /* one block: the whole weights' series say it */
    for (int b = 0; b < d->nb; b++) {
        d->bupdate[b] = (double)NAN;
        d->bspread[b] = 0.0;
    }
    return rc;
}

void sim_diag_free(sim *s)
{
    sim_diag *d = &s->d;
    for (int i = 0; i < ND; i++)
        free(d->v[i]);
    for (int i = 0; i < NDR; i++)
        free(d->rk[i]);
    for (int i = 0; i < NDB; i++)
        for (int b = 0; b < CS_WEIGHT_BLOCKS_MAX; b++)
            free(d->bv[i][b]);
    free(d->w_sync);
    free(d->send);
    free(d->all);
    free(d->mean);
    memset(d, 0, sizeof *d);
}

cs_err sim_diag_reserve(sim *s, int64_t cap)
{
    sim_diag *d = &s->d;
    if (cap <= d->cap)
        return CS_OK;
    const size_t per = s->ctx->rank == 0 ? (size_t)s->ctx->size : 0;
    for (int i = 0; i < ND; i++) {
        double *p = realloc(d->v[i], (size_t)cap * sizeof *p);
        if (p == NULL)
            return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the diagnostics");
        d->v[i] = p;
    }
    for (int i = 0; i < NDB * d->nb; i++) {
        double *p = realloc(d->bv[i / d->nb][i % d->nb], (size_t)cap * sizeof *p);
        if (p == NULL)
            return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the diagnostics");
        d->bv[i / d->nb][i % d->nb] = p;
    }
    for (int i = 0; i < NDR && per > 0; i++) {
        int64_t *p = realloc(d->rk[i], (size_t)cap * per * sizeof *p);
        if (p == NULL)
            return cs_fail(s->ctx, CS_ERR_NOMEM, "out of memory for the diagnostics");
        d->rk[i] = p;
    }
    d->cap = cap;
    return CS_OK;
}

/* Euclidean norm, summed in index order. */
static double norm2(const double *x, int64_t n)
{
    double q = 0.0;
    for (int64_t i = 0; i < n; i++)
        q += x[i] * x[i];
    return sqrt(q);
}

void sim_diag_synced(sim *s)
{
    sim_diag *d = &s->d;
    int64_t nw = 0;
    const double *w = s->ops->weights(s->pol, &nw);
    if (w == NULL || nw != d->nw)
        return;
    double q = 0.0;
    for (int64_t i = 0; i < nw; i++) {
        const double u = w[i] - d->w_sync[i];
        q += u * u;
    }
    const int64_t bn = d->nb > 0 ? nw / d->nb : 0;
    for (int b = 0; b < d->nb; b++) {
        double qb = 0.0;
        for (int64_t i = b * bn; i < (b + 1) * bn; i++)
            qb += (w[i] - d->w_sync[i]) * (w[i] - d->w_sync[i]);
        d->bupdate[b] = sqrt(qb);
    }
    d->update = sqrt(q);
    memcpy(d->w_sync, w, (size_t)nw * sizeof *w);
    d->synced = 1;
}

void sim_diag_tick(sim *s, int64_t fetched)
{
    sim_diag *d = &s->d;
    d->window += fetched;
    if (!d->synced)
        return;
    d->synced = 0;
    if (s->ops->step_size != NULL) {
        /* averaging moves the model by the mean of the ranks' steps: 1/P of their sum */
        const double per = s->sum ? 1.0 : 1.0 / s->ctx->size;
        d->step = s->ops->step_size(s->pol) * (double)d->window * per;
    }
    d->window = 0;
}

/* The mean of P ranks' weights (rank r's at base + r * stride, nw each): rank 0's plus the mean
 * of the others' differences from them, in rank order, into mean; *norm its norm and the
 * return value the largest distance of a rank's weights from it relative to that norm (0 when
 * every rank holds the same weights, NaN when one is not finite). */
static double weight_stats(const double *base, size_t stride, int P, int64_t nw, double *mean,
                           double *norm)
{
    for (int64_t i = 0; i < nw; i++) {
        double u = 0.0;
        for (int r = 1; r < P; r++)
            u += base[(size_t)r * stride + (size_t)i] - base[i];
        mean[i] = base[i] + u / P;
    }
    *norm = norm2(mean, nw);
    double far = 0.0;
    for (int r = 0; r < P; r++) {
        double q = 0.0;
        for (int64_t i = 0; i < nw; i++) {
            const double u = base[(size_t)r * stride + (size_t)i] - mean[i];
            q += u * u;
        }
        const double dist = sqrt(q);
        if (isnan(dist) || dist > far)
            far = isnan(far) ? far : dist;
    }
    return far == 0.0 ? 0.0 : far / *norm;
}

void sim_diag_averaged(sim *s, const double *all)
{
    sim_diag *d = &s->d;
    double norm = 0.0;
    if (s->ctx->size == 1 || d->nw == 0)
        return;
    const double t0 = cs_now();
    const double sp = weight_stats(all, (size_t)d->nw, s->ctx->size, d->nw, d->mean, &norm);
    if (isnan(sp) || sp > d->spread)
        d->spread = isnan(d->spread) ? d->spread : sp;
    const int64_t bn = d->nb > 0 ? d->nw / d->nb : 0;
    for (int b = 0; b < d->nb; b++) {
        const double x =
            weight_stats(all + b * bn, (size_t)d->nw, s->ctx->size, bn, d->mean + b * bn, &norm);
        if (isnan(x) || x > d->bspread[b])
            d->bspread[b] = isnan(d->bspread[b]) ? d->bspread[b] : x;
    }
    d->seconds += cs_now() - t0;
}

/* The record point's per-block values (rank 0's are the global ones; the others NaN), from the
 * gathered rows of `row` values each, and the blocks' spreads since the last point reset. */
static void diag_blocks(sim *s, int64_t at, int64_t row)
{
    sim_diag *d = &s->d;
    const int64_t bn = d->nb > 0 ? d->nw / d->nb : 0;
    for (int b = 0; b < d->nb; b++) {
        double norm = (double)NAN, spread = (double)NAN;
        if (s->ctx->rank == 0) {
            spread =
                weight_stats(d->all + DX_N + b * bn, (size_t)row, s->ctx->size, bn, d->mean, &norm);
            if (isnan(d->bspread[b]) || d->bspread[b] > spread)
                spread = isnan(spread) ? spread : d->bspread[b];
        }
        d->bspread[b] = 0.0;
        d->bv[DB_WNORM][b][at] = norm;
        d->bv[DB_SPREAD][b][at] = spread;
        d->bv[DB_UPDATE][b][at] = d->bupdate[b];
    }
}

void sim_diag_record(sim *s, int64_t at)
{
    cs_ctx *ctx = s->ctx;
    sim_diag *d = &s->d;
    const int P = ctx->size;
    CS_ASSERT(at < d->cap); /* sim_record grew the arrays with the series */
    const double t0 = cs_now();
    double *x = d->send;
    int64_t leaves = 0, qe = 0;
    if (s->ops->counters != NULL)
        s->ops->counters(s->pol, &leaves, &qe);
    x[DR_FETCHED] = bitsd(s->m.c[C_FETCHED]);
    x[DR_RELEVANT] = bitsd(s->m.c[C_RELEVANT]);
    x[DR_FRONTIER] = bitsd(cs_frontier_size(s->fr));
    x[DR_LEAVES] = bitsd(leaves);
    x[DR_REPLAY] = bitsd(s->ops->replay_size != NULL ? s->ops->replay_size(s->pol) : 0);
    /* (O(log n) from an indexed frontier's keys, else a pass: the diagnostics' largest cost) */
    cs_frontier_value_range(s->fr, &x[DX_QMIN], &x[DX_QMAX]);
    if (d->nw > 0) {
        int64_t nw = 0;
        const double *w = s->ops->weights(s->pol, &nw);
        CS_ASSERT(nw == d->nw);
        memcpy(x + DX_N, w, (size_t)nw * sizeof *w);
    }
    const int64_t row = DX_N + d->nw;
    /* the gather's time, mostly waiting for the slowest rank as any collective does, goes to
     * the record point's (the allreduce phase); the diagnostics' own is the local work */
    const double tg = cs_now();
    d->seconds += tg - t0;
    cs_gather(ctx, x, (int)(row * 8), d->all, CS_T_BYTE, 0);
    const double t1 = cs_now();
    double norm = (double)NAN, spread = (double)NAN, lo = (double)INFINITY, hi = -(double)INFINITY;
    if (ctx->rank == 0) {
        for (int r = 0; r < P; r++) {
            const double *y = d->all + (size_t)r * (size_t)row;
            for (int k = 0; k < NDR; k++)
                d->rk[k][(size_t)at * (size_t)P + (size_t)r] = dbits(y[k]);
            lo = fmin(lo, y[DX_QMIN]);
            hi = fmax(hi, y[DX_QMAX]);
        }
        if (d->nw > 0) {
            spread = weight_stats(d->all + DX_N, (size_t)row, P, d->nw, d->mean, &norm);
            if (isnan(d->spread) || d->spread > spread)
                spread = isnan(spread) ? spread : d->spread;
        }
    }
    d->spread = 0.0;
    diag_blocks(s, at, row);
    d->v[D_WNORM][at] = norm;
    d->v[D_SPREAD][at] = spread;
    d->v[D_UPDATE][at] = d->update;
    d->v[D_STEP][at] = d->step;
    d->v[D_QMIN][at] = lo <= hi ? lo : (double)NAN; /* every frontier empty: no range */
    d->v[D_QMAX][at] = lo <= hi ? hi : (double)NAN;
    d->seconds += cs_now() - t1;
}

static const char *const diag_name[ND] = {"weights_norm", "weights_spread", "update_norm",
                                          "step",         "q_min",          "q_max"};
static const char *const diag_rank_name[NDR] = {"fetched", "relevant", "frontier", "leaves",
                                                "replay"};

cs_err sim_diag_write(sim *s, cs_results *r, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    char path[96];
    for (int i = 0; i < ND && rc == CS_OK; i++) {
        if (i <= D_STEP && s->d.nw == 0)
            continue; /* no weights: nothing learned to show */
        if (i == D_STEP && s->ops->step_size == NULL)
            continue;
        snprintf(path, sizeof path, "series/%s", diag_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_F64, n, 0, s->d.v[i]);
    }
    for (int i = 0; i < NDB * s->d.nb && rc == CS_OK; i++) {
        snprintf(path, sizeof path, "series/%s_%s", diag_name[i / s->d.nb],
                 s->ops->weight_blocks[i % s->d.nb]);
        rc = cs_results_add(ctx, r, path, CS_RES_F64, n, 0, s->d.bv[i / s->d.nb][i % s->d.nb]);
    }
    for (int i = 0; i < NDR && rc == CS_OK && ctx->rank == 0; i++) { /* rank 0 holds them */
        snprintf(path, sizeof path, "ranks/series/%s", diag_rank_name[i]);
        rc = cs_results_add(ctx, r, path, CS_RES_I64, n, ctx->size, s->d.rk[i]);
    }
    return rc;
}

cs_err sim_diag_save(sim *s, cs_ckpt *ck, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_diag *d = &s->d;
    char name[96];
    const double st[4] = {d->update, d->step, (double)d->window, d->spread};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/diag/state", CS_CK_F64, 4, st));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/diag/w_sync", CS_CK_F64, d->nw, d->w_sync));
    for (int i = 0; i < ND; i++) {
        snprintf(name, sizeof name, "run/diag/%s", diag_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F64, n, d->v[i]));
    }
    if (d->nb > 0) {
        double bst[2 * CS_WEIGHT_BLOCKS_MAX];
        for (int b = 0; b < d->nb; b++) {
            bst[b] = d->bupdate[b];
            bst[d->nb + b] = d->bspread[b];
        }
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, "run/diag/blocks/state", CS_CK_F64, 2 * d->nb, bst));
    }
    for (int i = 0; i < NDB * d->nb; i++) {
        snprintf(name, sizeof name, "run/diag/blocks/%s_%d", diag_name[i / d->nb], i % d->nb);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_F64, n, d->bv[i / d->nb][i % d->nb]));
    }
    const int64_t m = ctx->rank == 0 ? n * ctx->size : 0;
    for (int i = 0; i < NDR; i++) {
        snprintf(name, sizeof name, "run/diag/ranks/%s", diag_rank_name[i]);
        CS_TRY(ctx, cs_ckpt_put(ctx, ck, name, CS_CK_I64, m, d->rk[i]));
    }
fail:
    return rc;
}

cs_err sim_diag_load(sim *s, cs_ckpt *ck, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_diag *d = &s->d;
    char name[96];
    double st[4];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/diag/state", CS_CK_F64, 4, st));
    d->spread = st[3];
    d->update = st[0];
    d->step = st[1];
    d->window = (int64_t)st[2];
    d->synced = 0;
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/diag/w_sync", CS_CK_F64, d->nw, d->w_sync));
    for (int i = 0; i < ND; i++) {
        snprintf(name, sizeof name, "run/diag/%s", diag_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F64, n, d->v[i]));
    }
    if (d->nb > 0) {
        double bst[2 * CS_WEIGHT_BLOCKS_MAX];
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "run/diag/blocks/state", CS_CK_F64, 2 * d->nb, bst));
        for (int b = 0; b < d->nb; b++) {
            d->bupdate[b] = bst[b];
            d->bspread[b] = bst[d->nb + b];
        }
    }
    for (int i = 0; i < NDB * d->nb; i++) {
        snprintf(name, sizeof name, "run/diag/blocks/%s_%d", diag_name[i / d->nb], i % d->nb);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_F64, n, d->bv[i / d->nb][i % d->nb]));
    }
    const int64_t m = ctx->rank == 0 ? n * ctx->size : 0;
    for (int i = 0; i < NDR; i++) {
        snprintf(name, sizeof name, "run/diag/ranks/%s", diag_rank_name[i]);
        CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, name, CS_CK_I64, m, d->rk[i]));
    }
fail:
    return rc;
}
