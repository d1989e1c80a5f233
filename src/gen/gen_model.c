/*
 * gen_model: the generator's model (DESIGN.md "The world"): the host layout (contiguous page
 * ranges with sizes from a bounded power law with a prescribed mean), the host topics, the
 * popularity tables (Zipf weights over a shuffled order of the hosts, per topic and over all
 * hosts, as alias tables) and the topic prototypes. Every table is a function of the [gen]
 * config alone, the same on every rank: cs_gen_create_shared builds it once per node, the
 * node's ranks each a share, in memory they share (comm's cs_node), docs/developer/memory.md.
 */
#include "gen_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounded power law with a prescribed mean --------------------------------------------- */

/*
 * E[floor X] for X with density ~ x^-alpha on [xmin, xmax): the sum over k >= 1 of
 * P(X >= k) = (k^a - xmax^a) / (xmin^a - xmax^a), a = 1 - alpha, for xmin < k < xmax (1 below).
 * Exact up to k = 2^16 through suffix sums of k^a, which do not depend on xmin (so a bisection
 * step costs O(1)), then continued by the integral of the tail.
 */
typedef struct pl_mean_table {
    double xmax, alpha, a, xa; /* xa = xmax^a */
    int64_t direct;            /* terms summed exactly */
    double *suf;               /* suf[k] = sum_{j=k}^{direct} j^a, k = 1..direct+1 */
} pl_mean_table;

static cs_err pl_table_init(cs_ctx *ctx, pl_mean_table *t, double xmax, double alpha)
{
    t->xmax = xmax;
    t->alpha = alpha;
    t->a = 1.0 - alpha;
    t->xa = pow(xmax, t->a);
    double kmax = floor(xmax);
    t->direct = (int64_t)(kmax < 65536.0 ? kmax : 65536.0);
    cs_err rc = cs_alloc(ctx, &t->suf, (size_t)t->direct + 2, sizeof *t->suf, "power-law sums");
    if (rc != CS_OK)
        return rc;
    t->suf[t->direct + 1] = 0.0;
    for (int64_t k = t->direct; k >= 1; k--)
        t->suf[k] = t->suf[k + 1] + pow((double)k, t->a);
    return CS_OK;
}

static double pl_floor_mean(const pl_mean_table *t, double xmin)
{
    double denom = pow(xmin, t->a) - t->xa;
    int64_t below = (int64_t)floor(xmin); /* k <= xmin: P = 1 */
    if (below > t->direct)
        below = t->direct;
    int64_t k0 = below + 1;
    double s = (double)below;
    if (k0 <= t->direct)
        s += (t->suf[k0] - (double)(t->direct - k0 + 1) * t->xa) / denom;
    double kmax = floor(t->xmax);
    if (kmax > (double)t->direct) {
        /* beyond the exact terms: P = 1 up to xmin, then the integral of the tail */
        double lo = (double)t->direct + 0.5, b = 2.0 - t->alpha;
        if (xmin > lo) {
            s += xmin - lo;
            lo = xmin;
        }
        double integ =
            fabs(b) < 1e-12 ? log(t->xmax) - log(lo) : (pow(t->xmax, b) - pow(lo, b)) / b;
        s += (integ - t->xa * (t->xmax - lo)) / denom;
    }
    return s;
}

/* The xmin in [1, xmax) whose floor-mean is `mean`, by bisection (mean is increasing in xmin). */
static cs_err pl_solve_xmin(cs_ctx *ctx, double mean, double xmax, double alpha, const char *what,
                            double *xmin)
{
    pl_mean_table t;
    cs_err rc = pl_table_init(ctx, &t, xmax, alpha);
    if (rc != CS_OK)
        return rc;
    double lo = 1.0, hi = xmax - 1.0 > 1.0 ? xmax - 1.0 : 1.0; /* floor X >= 1 */
    double at_lo = pl_floor_mean(&t, lo), at_hi = pl_floor_mean(&t, hi);
    if (mean < at_lo - 1e-9 || mean > at_hi + 1e-9) {
        free(t.suf);
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "gen: a mean %s of %g is impossible with this exponent and maximum "
                       "(possible: %.3g to %.3g)",
                       what, mean, at_lo, at_hi);
    }
    for (int it = 0; it < 100; it++) {
        double mid = 0.5 * (lo + hi);
        if (pl_floor_mean(&t, mid) < mean)
            lo = mid;
        else
            hi = mid;
    }
    free(t.suf);
    *xmin = 0.5 * (lo + hi);
    return CS_OK;
}

/* The mean of min(max(floor X, 1), xmax), X log-normal (mu, sigma): 1 + sum over k = 2..xmax of
 * P(X >= k), exact but for erfc's rounding (the terms fall with k: the sum stops where they
 * no longer move it). */
static double ln_floor_mean(double mu, double sigma, int64_t xmax)
{
    double m = 1.0;
    for (int64_t k = 2; k <= xmax; k++) {
        const double p = 0.5 * erfc((log((double)k) - mu) / (sigma * 1.4142135623730950488));
        if (p < 1e-17 * m)
            break;
        m += p;
    }
    return m;
}

/* The location mu of the log-normal out-degree law whose floored, bounded draw has the given
 * mean (bisection; the mean grows with mu). */
static cs_err ln_solve_mu(cs_ctx *ctx, double mean, double sigma, int64_t xmax, double *mu)
{
    if (mean < 1.0 || mean > (double)xmax) /* the means of mu -> -inf and +inf */
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "gen: a mean out-degree of %g is impossible with degree_max %lld "
                       "(possible: 1 to %lld)",
                       mean, (long long)xmax, (long long)xmax);
    double lo = -10.0 * sigma - 1.0, hi = log((double)xmax) + 10.0 * sigma + 1.0;
    for (int it = 0; it < 80; it++) {
        const double mid = 0.5 * (lo + hi);
        if (ln_floor_mean(mid, sigma, xmax) < mean)
            lo = mid;
        else
            hi = mid;
    }
    *mu = 0.5 * (lo + hi);
    return CS_OK;
}

/* ---- the model's tables, built by the ranks of a node together ----------------------------- */

/* This rank's share [*lo, *hi) of n items among the node's ranks (contiguous, in rank order). */
static void node_share(const cs_node *nd, int64_t n, int64_t *lo, int64_t *hi)
{
    const int64_t r = cs_node_rank(nd), p = cs_node_size(nd);
    *lo = n / p * r + (r < n % p ? r : n % p);
    *hi = *lo + n / p + (r < n % p);
}

/* The thresh of a column kept with probability prob (zipf_picks). */
static uint32_t pick_thresh(double prob)
{
    double t = prob * 4294967296.0;
    return t >= 4294967295.0 ? UINT32_MAX : (uint32_t)t;
}

/*
 * Fills pick[0..n) with the alias table (Walker/Vose) of the Zipf weights w[0..n) = (rank+1)^-s
 * over the hosts order[0..n) (order[0] the most popular), bit for bit the table cs_alias_init
 * makes of w, converted to picks. cs_alias_init sorts the columns into a stack of small ones
 * (probability below 1) and one of large ones; the weights decrease, so the large columns are
 * the first L and both stacks are ranges popped from their ends: the same steps in the same
 * order need neither stack nor cs_alias_init's three arrays of n (24 bytes a host while the
 * model is built). Columns never paired keep probability 1, as in cs_alias_init. When rounding
 * made the probabilities not decrease, cs_alias_init itself (CS_ERR_NOMEM when it fails; no
 * message: the caller's threads run it). Local.
 */
static cs_err zipf_picks(host_pick *pick, const int32_t *order, int64_t n, const double *w)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++)
        sum += w[i];
    const double dk = (double)n;
#define ZIPF_PROB(i) (w[i] / sum * dk) /* cs_alias_init's, divided first */
    int64_t L = 0;
    while (L < n && ZIPF_PROB(L) >= 1.0)
        L++;
    int ranges = 1;
    for (int64_t i = L; i < n; i++)
        ranges &= ZIPF_PROB(i) < 1.0;
    for (int64_t i = 0; i < n; i++) {
        pick[i].thresh = UINT32_MAX;
        pick[i].host = order[i];
        pick[i].alias_host = order[i];
    }
    if (!ranges) {
        cs_alias a = {0, NULL, NULL};
        if (cs_alias_init(&a, w, n) != CS_OK)
            return CS_ERR_NOMEM; /* the caller reports it (outside its threads) */
        for (int64_t i = 0; i < n; i++) {
            pick[i].thresh = pick_thresh(a.prob[i]);
            pick[i].alias_host = order[a.alias[i]];
        }
        cs_alias_fini(&a);
        return CS_OK;
    }
    /* the large stack's top is L - 1 (pushed last), the small one's n - 1; a large column that
     * falls below 1 is pushed on the small stack and popped at once (`held`) */
    int64_t l = L - 1, s_next = n - 1, held = -1;
    double pl = l >= 0 ? ZIPF_PROB(l) : 0.0, p_held = 0.0;
    while ((held >= 0 || s_next >= L) && l >= 0) {
        int64_t s = held;
        double ps = p_held;
        if (held >= 0) {
            held = -1;
        } else {
            s = s_next--;
            ps = ZIPF_PROB(s);
        }
        pick[s].thresh = pick_thresh(ps);
        pick[s].alias_host = order[l];
        pl = (pl + ps) - 1.0; /* Vose's order of operations, as cs_alias_init */
        if (pl < 1.0) {
            held = l;
            p_held = pl;
            l--;
            if (l >= 0)
                pl = ZIPF_PROB(l);
        }
    }
#undef ZIPF_PROB
    return CS_OK;
}

/* Fisher-Yates shuffle of a[0..n) with the stream r: a popularity order independent of ids. The
 * draws of a batch of steps come first (the same draws in the same order) so that the rows
 * they swap are fetched together: the array is far larger than the caches. */
static void shuffle(int32_t *a, int64_t n, cs_rng *r)
{
    enum { AHEAD = 16 };
    int64_t j[AHEAD];
    for (int64_t i = n - 1; i > 0; i -= AHEAD) {
        const int64_t m = i < AHEAD ? i : AHEAD; /* steps i, i - 1, ..., i - m + 1 */
        for (int64_t q = 0; q < m; q++) {
            j[q] = (int64_t)cs_rng_below(r, (uint64_t)(i - q + 1));
            __builtin_prefetch(&a[j[q]]);
        }
        for (int64_t q = 0; q < m; q++) {
            const int32_t t = a[i - q];
            a[i - q] = a[j[q]];
            a[j[q]] = t;
        }
    }
}

/* The scratch of the model's construction, shared by the node's ranks. */
typedef struct model_scratch {
    double *w;       /* H Zipf weights (rank + 1)^-s, a prefix of them per table */
    int32_t *by_top; /* H hosts grouped by topic, each group then shuffled */
    int32_t *all;    /* H hosts, shuffled */
} model_scratch;

/* The host sizes, drawn by the node's ranks into *sizes (node memory, freed by the caller):
 * hosts until the pages are covered, so the layout is a function of (seed, pages). */
static cs_err draw_sizes(cs_ctx *ctx, cs_gen *g, int32_t **sizes, int64_t *n_hosts)
{
    const cs_gen_config *c = &g->cfg;
    const int64_t N = g->n_pages;
    double hxmin;
    cs_err rc = pl_solve_xmin(ctx, c->host_size_mean, (double)c->host_size_max + 1.0,
                              c->host_size_alpha, "host size", &hxmin);
    if (rc != CS_OK) /* the same verdict on every rank */
        return rc;
    cs_powlaw law;
    cs_powlaw_init(&law, hxmin, (double)c->host_size_max + 1.0, c->host_size_alpha);
    int64_t cap = (int64_t)((double)N / c->host_size_mean * 1.05) + 1024;
    for (;;) {
        if (cap > N)
            cap = N; /* a host has a page at least */
        int32_t *sz = NULL;
        if ((rc = cs_node_alloc(ctx, g->node, (size_t)cap * sizeof *sz, (void **)&sz)) != CS_OK)
            return rc;
        int64_t lo, hi;
        node_share(g->node, cap, &lo, &hi);
        const uint64_t seed = (uint64_t)c->seed;
#pragma omp parallel for default(none) shared(sz, lo, hi, law, seed) schedule(static)
        for (int64_t h = lo; h < hi; h++) {
            cs_rng r;
            cs_rng_init(&r, seed, CS_RNG_HOST_SIZE, (uint64_t)h, 0);
            const int64_t k = (int64_t)cs_powlaw_draw(&law, &r);
            sz[h] = (int32_t)(k < 1 ? 1 : k);
        }
        cs_node_sync(g->node);
        int64_t h = 0, covered = 0;
        while (covered < N && h < cap)
            covered += sz[h++];
        if (covered >= N) { /* the same verdict on every rank: the same sizes */
            *sizes = sz;
            *n_hosts = h;
            return CS_OK;
        }
        cs_node_free(g->node, sz);
        cap *= 2;
    }
}

/* This rank's share of the host records, the host topics and the weights. */
static void fill_hosts(cs_gen *g, const int32_t *sz, double *w)
{
    const cs_gen_config *c = &g->cfg;
    const int64_t H = g->n_hosts, N = g->n_pages;
    const double s = c->page_popularity_skew;
    const int one = fabs(1.0 - s) < 1e-9;
    enum { MEMO = 4096 };
    float cm[MEMO + 1]; /* the constant of the sizes up to MEMO: most hosts */
    for (int64_t m = 1; m <= MEMO; m++)
        cm[m] = (float)(one ? log2((double)m + 1.0) : pow((double)m + 1.0, 1.0 - s) - 1.0);
    cm[0] = 0.0f;
    int64_t lo, hi, first = 0;
    node_share(g->node, H, &lo, &hi);
    for (int64_t h = 0; h < lo; h++)
        first += sz[h];
    host_rec *hr = g->hosts;
    for (int64_t h = lo; h < hi; h++) {
        hr[h].first = first;
        hr[h].count = (int32_t)(h + 1 < H ? sz[h] : N - first); /* the last host is truncated */
        first += sz[h];
    }
    uint16_t *ht = g->host_topic;
    const cs_alias *ts = &g->topic_size;
    const uint64_t seed = (uint64_t)c->seed;
    const double ws = c->host_popularity_skew;
#pragma omp parallel for default(none) shared(hr, ht, ts, w, cm, lo, hi, one, s, seed, ws)         \
    schedule(static)
    for (int64_t h = lo; h < hi; h++) {
        const int64_t m = hr[h].count;
        hr[h].c = m <= MEMO
                      ? cm[m]
                      : (float)(one ? log2((double)m + 1.0) : pow((double)m + 1.0, 1.0 - s) - 1.0);
        cs_rng r;
        cs_rng_init(&r, seed, CS_RNG_HOST, (uint64_t)h, 0);
        ht[h] = (uint16_t)cs_alias_draw(ts, &r);
        w[h] = pow((double)(h + 1), -ws);
    }
}

/* This rank's share of the host index: the buckets whose first page lies in its hosts. */
static void fill_host_index(cs_gen *g)
{
    int64_t lo, hi;
    node_share(g->node, g->n_hosts, &lo, &hi);
    const int sh = g->host_shift;
    const host_rec *hr = g->hosts;
    int32_t *at = g->host_at;
#pragma omp parallel for default(none) shared(hr, at, lo, hi, sh) schedule(static)
    for (int64_t h = lo; h < hi; h++) {
        const int64_t f = hr[h].first, e = f + hr[h].count; /* [f, e) */
        for (int64_t b = ((f - 1) >> sh) + 1; (b << sh) < e; b++)
            at[b] = (int32_t)h;
    }
    if (hi == g->n_hosts) /* the end: the last host */
        at[g->host_buckets] = (int32_t)(g->n_hosts - 1);
}

/* The hosts grouped by topic (in increasing id in each group) and the topic offsets. */
static void group_by_topic(cs_gen *g, int32_t *by_top)
{
    const int64_t H = g->n_hosts, K = g->n_topics;
    int64_t *off = g->topic_off;
    memset(off, 0, (size_t)(K + 1) * sizeof *off);
    for (int64_t h = 0; h < H; h++)
        if (!(host_role(g, h) & HOST_HIDDEN)) /* no other host links to a hidden one */
            off[g->host_topic[h] + 1]++;
    for (int64_t t = 0; t < K; t++)
        off[t + 1] += off[t];
    int64_t *fill = g->topic_fill;
    memcpy(fill, off, (size_t)K * sizeof *fill);
    for (int64_t h = 0; h < H; h++)
        if (!(host_role(g, h) & HOST_HIDDEN))
            by_top[fill[g->host_topic[h]]++] = (int32_t)h;
}

/* Table j of the model: a topic's (j < K: its hosts by popularity) or, j = K, all hosts. */
static cs_err build_table(cs_gen *g, const model_scratch *sc, int64_t j)
{
    const uint64_t seed = (uint64_t)g->cfg.seed;
    cs_rng r;
    if (j == g->n_topics) {
        const int64_t H = g->n_hosts;
        int64_t n = 0;
        for (int64_t h = 0; h < H; h++)
            if (!(host_role(g, h) & HOST_HIDDEN))
                sc->all[n++] = (int32_t)h;
        cs_rng_init(&r, seed, CS_RNG_TOPIC, UINT64_MAX, 1);
        shuffle(sc->all, n, &r);
        return zipf_picks(g->any_picks, sc->all, n, sc->w);
    }
    const int64_t f = g->topic_off[j], n = g->topic_off[j + 1] - f;
    if (n == 0)
        return CS_OK;
    /* popularity order inside the topic: a shuffle from (seed, topic) */
    cs_rng_init(&r, seed, CS_RNG_TOPIC, (uint64_t)j, 1);
    shuffle(sc->by_top + f, n, &r);
    return zipf_picks(g->topic_picks + f, sc->by_top + f, n, sc->w);
}

/* The popularity tables: this rank's tables by longest first onto the least loaded rank of
 * the node (the same assignment on every rank), its threads taking them one by one. */
static cs_err build_tables(cs_ctx *ctx, cs_gen *g, const model_scratch *sc)
{
    const int64_t K = g->n_topics, J = K + 1;
    const int P = cs_node_size(g->node), me = cs_node_rank(g->node);
    int64_t *job = NULL, *load = NULL, *mine = NULL, n_mine = 0;
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_alloc(ctx, &job, (size_t)J, sizeof *job, "model tables"));
    CS_TRY(ctx, cs_calloc(ctx, &load, (size_t)P, sizeof *load, "model tables"));
    CS_TRY(ctx, cs_alloc(ctx, &mine, (size_t)J, sizeof *mine, "model tables"));
    const int64_t *off = g->topic_off;
    for (int64_t j = 0; j < J; j++) { /* by size, largest first, ties by index */
        const int64_t nj = j == K ? g->n_hosts : off[j + 1] - off[j];
        int64_t i = j;
        while (i > 0) {
            const int64_t q = job[i - 1], nq = q == K ? g->n_hosts : off[q + 1] - off[q];
            if (nq >= nj)
                break;
            job[i] = q;
            i--;
        }
        job[i] = j;
    }
    for (int64_t i = 0; i < J; i++) {
        const int64_t j = job[i], nj = j == K ? g->n_hosts : off[j + 1] - off[j];
        int best = 0;
        for (int q = 1; q < P; q++)
            best = load[q] < load[best] ? q : best;
        load[best] += nj + 1;
        if (best == me)
            mine[n_mine++] = j;
    }
    int64_t bad = INT64_MAX; /* the first table that failed */
#pragma omp parallel for default(none) shared(g, sc, mine, n_mine) reduction(min                   \
                                                                             : bad)                \
    schedule(dynamic, 1)
    for (int64_t i = 0; i < n_mine; i++)
        if (build_table(g, sc, mine[i]) != CS_OK)
            bad = i < bad ? i : bad;
    if (bad != INT64_MAX)
        rc = cs_fail(ctx, CS_ERR_NOMEM, "gen: out of memory building popularity table %lld",
                     (long long)mine[bad]);
fail:
    free(mine);
    free(load);
    free(job);
    return rc;
}

/* Topic prototypes: unit vectors from (seed, topic). Each rank its own (K x term_dim). */
static cs_err build_prototypes(cs_ctx *ctx, cs_gen *g)
{
    const cs_gen_config *c = &g->cfg;
    const int32_t k = g->n_topics;
    size_t dim = (size_t)c->term_dim;
    cs_err rc = cs_alloc(ctx, &g->proto, (size_t)k * dim, sizeof *g->proto, "topic prototypes");
    if (rc != CS_OK)
        return rc;
    for (int32_t t = 0; t < k; t++) {
        cs_rng r;
        cs_rng_init(&r, (uint64_t)c->seed, CS_RNG_TOPIC, (uint64_t)t, 0);
        double norm = 0.0, v[1024];
        for (size_t i = 0; i < dim; i++) {
            v[i] = cs_rng_normal(&r);
            norm += v[i] * v[i];
        }
        norm = sqrt(norm);
        for (size_t i = 0; i < dim; i++)
            g->proto[(size_t)t * dim + i] = (float)(v[i] / norm);
    }
    return CS_OK;
}

/* Byte offsets of the model's tables in its one block of node memory, 64-byte aligned. */
static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/*
 * The model's host tables, built by the node's ranks together: the host sizes (a share of
 * the hosts each), the host records, topics and weights (a share each), the hosts grouped by
 * topic (the node's first rank), the popularity tables (a share of the tables each). Between
 * the steps a cs_node_sync. What fails locally (an allocation of private memory, a
 * popularity table) is agreed over the node's ranks before the next step... by cs_node_alloc
 * and the final agreement of the caller: the steps after a failure still make every
 * synchronisation.
 */
static cs_err build_model(cs_ctx *ctx, cs_gen *g)
{
    cs_err rc = CS_OK, local = CS_OK;
    const cs_gen_config *c = &g->cfg;
    const int32_t K = g->n_topics;
    int32_t *sz = NULL;
    char *tmp = NULL;
    double *w = NULL;
    CS_TRY(ctx, draw_sizes(ctx, g, &sz, &g->n_hosts));
    const int64_t H = g->n_hosts;
    if (H > INT32_MAX) {
        cs_node_free(g->node, sz);
        return cs_fail(ctx, CS_ERR_LIMIT, "gen: more than 2^31 - 1 hosts");
    }
    /* the tables, in one block of the node's memory */
    const size_t o_top = align64((size_t)H * sizeof *g->hosts);
    const size_t o_tp = o_top + align64((size_t)H * sizeof *g->host_topic);
    const size_t o_ap = o_tp + align64((size_t)H * sizeof *g->topic_picks);
    const size_t o_off = o_ap + align64((size_t)H * sizeof *g->any_picks);
    /* the host index: buckets of 2^shift pages, as many as hosts or fewer */
    const int64_t N = g->n_pages;
    int shift = 0;
    while (((N - 1) >> shift) + 1 > H)
        shift++;
    g->host_shift = shift;
    g->host_buckets = ((N - 1) >> shift) + 1;
    const size_t o_at = o_off + align64((size_t)(K + 1) * sizeof *g->topic_off);
    const size_t bytes = o_at + (size_t)(g->host_buckets + 1) * sizeof *g->host_at;
    rc = cs_node_alloc(ctx, g->node, bytes, (void **)&g->block);
    g->block_bytes = (int64_t)bytes;
    if (rc == CS_OK) {
        g->hosts = (host_rec *)(void *)g->block;
        g->host_topic = (uint16_t *)(void *)(g->block + o_top);
        g->host_at = (int32_t *)(void *)(g->block + o_at);
        g->topic_picks = (host_pick *)(void *)(g->block + o_tp);
        g->any_picks = (host_pick *)(void *)(g->block + o_ap);
        g->topic_off = (int64_t *)(void *)(g->block + o_off);
        const size_t ob = align64((size_t)H * sizeof *w), oa = ob + align64((size_t)H * 4);
        rc = cs_node_alloc(ctx, g->node, oa + (size_t)H * 4, (void **)&tmp);
        w = (double *)(void *)tmp;
        if (rc == CS_OK) {
            const model_scratch sc = {w, (int32_t *)(void *)(tmp + ob),
                                      (int32_t *)(void *)(tmp + oa)};
            fill_hosts(g, sz, w);
            cs_node_sync(g->node);
            fill_host_index(g);
            if (cs_node_rank(g->node) == 0)
                group_by_topic(g, sc.by_top);
            cs_node_sync(g->node);
            g->n_any = g->topic_off[K]; /* the hosts in the tables: all but hidden ones */
            local = build_tables(ctx, g, &sc);
            cs_node_sync(g->node);
            cs_node_free(g->node, tmp);
        }
    }
    cs_node_free(g->node, sz);
    CS_TRY(ctx, rc);
    CS_TRY(ctx, local);
    {
        double s = c->page_popularity_skew;
        int one = fabs(1.0 - s) < 1e-9;
        g->page_inv = one ? 0.0 : 1.0 / (1.0 - s);
        double ri = round(g->page_inv);
        if (!one && fabs(g->page_inv - ri) < 1e-9 && fabs(ri) <= 64.0)
            g->page_int_exp = (int)ri;
        /* the thresholds of the first ranks (gen_impl.h), for the exponent page_in_host_u uses */
        const double e = g->page_int_exp != 0 ? (double)g->page_int_exp : g->page_inv;
        const char *env = getenv("CRAWLSIM_GEN_RANKS"); /* "0": none (tests: the same world) */
        g->rank_n = e < 0.0 && e >= -8.0 && !(env != NULL && strcmp(env, "0") == 0) ? GEN_RANKS : 0;
        for (int k = 0; k < g->rank_n; k++) {
            const double b = (double)(k + 2);
            g->rank_hi[k] = pow(b * (1.0 - GEN_RANK_MARGIN), 1.0 / e);
            g->rank_lo[k] = pow(b * (1.0 + GEN_RANK_MARGIN), 1.0 / e);
        }
    }
fail:
    return rc;
}

/* The model on this rank alone (share = 0, Local) or shared by the ranks of each node
 * (Collective(ctx->comm)): every step of the node's ranks is made by all of them, and the
 * verdict agreed before a model is kept or freed. */
static cs_err gen_create(cs_ctx *ctx, const cs_gen_config *cfg, int share, cs_gen **out)
{
    cs_err rc = CS_OK;
    cs_gen *g = NULL;
    double *tw = NULL;
    if (cfg->target_topic >= cfg->topics)
        rc = cs_fail(ctx, CS_ERR_CONFIG, "gen.target_topic must be below gen.topics");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &g, 1, sizeof *g, "generator");
    if (share)
        rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        free(g);
        return rc;
    }
    g->cfg = *cfg;
    g->n_pages = cfg->pages;
    g->n_topics = (int32_t)cfg->topics;
    rc = cs_node_create(ctx, share, &g->node);
    if (rc != CS_OK) {
        free(g);
        return rc;
    }
    const int32_t k = g->n_topics;
    rc = cs_alloc(ctx, &tw, (size_t)k, sizeof *tw, "topic sizes");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->topic_fill, (size_t)k, sizeof *g->topic_fill, "topic fill");
    if (rc == CS_OK) {
        for (int32_t t = 0; t < k; t++)
            tw[t] = pow((double)(t + 1), -cfg->topic_skew);
        if (cs_alias_init(&g->topic_size, tw, k) != CS_OK)
            rc = cs_fail(ctx, CS_ERR_NOMEM, "gen: cannot build the topic table");
    }
    free(tw);
    if (share)
        rc = cs_agree(ctx, rc); /* the node's steps below are made by all or none */
    if (rc == CS_OK)
        rc = build_model(ctx, g);
    free(g->topic_fill);
    g->topic_fill = NULL;
    if (rc == CS_OK)
        rc = build_prototypes(ctx, g);
    if (rc == CS_OK && cfg->degree_sigma > 0.0) /* log-normal out-degrees */
        rc = ln_solve_mu(ctx, cfg->degree_mean, cfg->degree_sigma, cfg->degree_max, &g->deg_mu);
    else if (rc == CS_OK)
        rc = pl_solve_xmin(ctx, cfg->degree_mean, (double)cfg->degree_max + 1.0, cfg->degree_alpha,
                           "out-degree", &g->deg_xmin);
    if (rc == CS_OK && !(cfg->degree_sigma > 0.0))
        cs_powlaw_init(&g->deg_law, g->deg_xmin, (double)cfg->degree_max + 1.0, cfg->degree_alpha);
    if (rc == CS_OK) { /* the root of the largest host: b - 1 children per base-b digit */
        const int64_t b = cfg->web.tree_branching;
        int64_t kids = 0;
        for (int64_t q = 1; b >= 2 && q < cfg->host_size_max; q *= b)
            kids += b - 1;
        if (cfg->web.tree_lift > 0.0 && cfg->web.tree_only > 0.0) /* a listing: its subtree */
            kids = cfg->host_size_max;
        g->struct_max = (b >= 2 ? 3 + kids : 0) + cfg->web.template_links +
                        (cfg->web.link_pairs > 0.0 ? cfg->web.pair_levels : 0);
    }
    if (share)
        rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        cs_gen_destroy(&g);
        return rc;
    }
    *out = g;
    return CS_OK;
}

cs_err cs_gen_create(cs_ctx *ctx, const cs_gen_config *cfg, cs_gen **out)
{
    return gen_create(ctx, cfg, 0, out);
}

cs_err cs_gen_create_shared(cs_ctx *ctx, const cs_gen_config *cfg, cs_gen **out)
{
    return gen_create(ctx, cfg, 1, out);
}

void cs_gen_destroy(cs_gen **pg)
{
    if (pg == NULL || *pg == NULL)
        return;
    cs_gen *g = *pg;
    cs_node_destroy(&g->node); /* the tables */
    free(g->topic_fill);
    cs_alias_fini(&g->topic_size);
    free(g->proto);
    free(g);
    *pg = NULL;
}
