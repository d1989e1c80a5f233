/*
 * stats_sample: a spec's figures from a uniform sample of its pages, for worlds too large to
 * hold (a procedural world of 10^9 pages): S pages drawn with replacement from the sampling seed
 * (item k from stream (seed, CS_RNG_SAMPLE, ST_RNG_PAGE, k)), each generated with its out-links
 * (cs_gen_pages: the pages of the world, bit for bit), and the targets' attributes from the model
 * (cs_gen_page_attrs). The ranks take blocks of items and their rows are gathered in item order,
 * so the figures do not depend on the rank or thread count.
 *
 * A share of links is a ratio of sums over sampled pages, R = sum(a_i) / sum(d_i), with the
 * delta method's interval (st_ratio); reciprocity draws one out-link of each page and asks
 * whether its target links back (a_i = d_i times that indicator). The topic base rate sum_k p_k^2
 * is estimated without bias by sum_k c_k (c_k - 1) / (S' (S' - 1)) (S' pages of known topic);
 * its interval uses the first-order projection of that U-statistic (variance 4 Var(p_topic) / S'),
 * and the lift's combines the two relative half-widths as if independent. The median's interval
 * is the order statistics' (ranks S/2 -+ 1.96 sqrt(S) / 2); the maximum is the sample's (a lower
 * bound). Host sizes are exact (the host model). What needs in-links or the whole graph (in-degree
 * distribution, clustering, bow-tie, distances, discovery) is not available: NaN.
 */
#include "stats_impl.h"

#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    R_D,
    R_ZERO,
    R_G4,
    R_G8,
    R_G12,
    R_FWD,
    R_NEAR,
    R_HOST,
    R_TKNOWN,
    R_TSAME,
    R_REL,
    R_RLINK,
    R_RREL,
    R_RECIP,
    R_TOPIC,
    R_WIDTH
};

/* Local. Whether the sorted t[0..n) holds v. */
static int holds(const int64_t *t, int64_t n, int64_t v)
{
    const int64_t i = cs_lower_bound_i64(t, n, v);
    return i < n && t[i] == v;
}

/* Local. The page columns of sampled page i of slice s. */
static void page_row(const cs_graph_slice *s, int64_t i, double threshold, double *row)
{
    memset(row, 0, R_WIDTH * sizeof *row);
    const int64_t d = s->offsets[i + 1] - s->offsets[i];
    row[R_D] = (double)d;
    row[R_ZERO] = d == 0;
    row[R_REL] = s->relevance[i] >= threshold;
    row[R_TOPIC] = s->topic[i];
}

/* Local. The link columns of sampled page i (id u) of slice s. */
static void link_row(const cs_gen *g, const cs_graph_slice *s, int64_t i, int64_t u,
                     double threshold, double *row)
{
    for (int64_t e = s->offsets[i]; e < s->offsets[i + 1]; e++) {
        const int64_t v = s->targets[e], gap = v - u, ag = gap < 0 ? -gap : gap;
        cs_gen_page pa;
        cs_gen_page_attrs(g, v, &pa);
        row[R_G4] += ag < 16;
        row[R_G8] += ag < 256;
        row[R_G12] += ag < 4096;
        if (ag > 0 && ag < 256) {
            row[R_NEAR]++;
            row[R_FWD] += gap > 0;
        }
        row[R_HOST] += pa.host == s->host[i];
        if (s->topic[i] >= 0 && pa.topic >= 0) {
            row[R_TKNOWN]++;
            row[R_TSAME] += pa.topic == s->topic[i];
        }
        if (row[R_REL] > 0.0) {
            row[R_RLINK]++;
            row[R_RREL] += pa.relevance >= threshold;
        }
    }
}

/* Collective. This rank's block of items: rows[c][R_WIDTH]. */
static cs_err sample_rows(cs_ctx *ctx, const cs_gen *g, const cs_stats_opts *o, int64_t a,
                          int64_t c, double *rows)
{
    cs_err rc = CS_OK;
    const int64_t N = cs_gen_n_pages(g);
    int64_t *ids = NULL, *pick = NULL, *pid = NULL, np = 0;
    cs_graph_slice s, t;
    cs_graph_slice_init(&s);
    cs_graph_slice_init(&t);
    CS_TRY(ctx, cs_alloc(ctx, &ids, (size_t)c + 1, sizeof *ids, "sampled pages"));
    CS_TRY(ctx, cs_alloc(ctx, &pick, (size_t)c + 1, sizeof *pick, "sampled links"));
    CS_TRY(ctx, cs_alloc(ctx, &pid, (size_t)c + 1, sizeof *pid, "sampled links"));
    for (int64_t k = 0; k < c; k++)
        ids[k] = st_draw(o->seed, ST_RNG_PAGE, a + k, N);
    CS_TRY(ctx, cs_gen_pages(ctx, g, ids, c, &s));
    for (int64_t k = 0; k < c; k++) {
        const int64_t d = s.offsets[k + 1] - s.offsets[k];
        pick[k] = -1;
        if (d > 0) {
            cs_rng r;
            cs_rng_init(&r, o->seed, CS_RNG_SAMPLE, ST_RNG_LINK, (uint64_t)(a + k));
            pick[k] = s.targets[s.offsets[k] + (int64_t)cs_rng_below(&r, (uint64_t)d)];
            pid[np++] = pick[k];
        }
    }
    CS_TRY(ctx, cs_gen_pages(ctx, g, pid, np, &t));
    const double th = o->relevance_threshold;
    const cs_graph_slice *sp = &s;
#pragma omp parallel for schedule(dynamic, 64) default(none) shared(g, sp, ids, rows)              \
    firstprivate(c, th)
    for (int64_t k = 0; k < c; k++) {
        double *row = rows + k * R_WIDTH;
        page_row(sp, k, th, row);
        link_row(g, sp, k, ids[k], th, row);
    }
    /* the drawn links' targets, in the order they were drawn */
    for (int64_t k = 0, j = 0; k < c; k++) {
        if (pick[k] < 0)
            continue;
        const int64_t *tl = t.targets + t.offsets[j];
        rows[k * R_WIDTH + R_RECIP] =
            holds(tl, t.offsets[j + 1] - t.offsets[j], ids[k]) ? rows[k * R_WIDTH + R_D] : 0.0;
        j++;
    }
fail:
    cs_graph_slice_fini(&t);
    cs_graph_slice_fini(&s);
    free(pid);
    free(pick);
    free(ids);
    return rc;
}

static int cmp_f64(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Local. Column j of the S rows into x. */
static void column(const double *rows, int64_t S, int j, double *x)
{
    for (int64_t k = 0; k < S; k++)
        x[k] = rows[k * R_WIDTH + j];
}

/* Local. The figures from all rows (every rank alike). x, y: S doubles of scratch. */
static void figures(const double *rows, int64_t S, int32_t K, double *x, double *y, cs_stats *s)
{
    column(rows, S, R_D, x);
    s->out.mean = st_mean(x, S);
    s->in.mean = s->out.mean; /* every link is some page's in-link */
    qsort(x, (size_t)S, sizeof *x, cmp_f64);
    const double half = 1.96 * sqrt((double)S) / 2.0;
    int64_t jm = (S + 1) / 2, jl = (int64_t)floor((double)S / 2.0 - half),
            jh = (int64_t)ceil((double)S / 2.0 + half);
    jl = jl < 1 ? 1 : jl;
    jh = jh > S ? S : jh;
    cs_stats_est med = {x[jm - 1], x[jl - 1], x[jh - 1], S};
    s->out.median = med;
    cs_stats_est mx = {x[S - 1], x[S - 1], (double)NAN, S};
    s->out.max = mx;
    column(rows, S, R_ZERO, x);
    s->out.zero = st_mean(x, S);
    column(rows, S, R_D, y);
    const int gcol[4] = {R_G4, R_G8, R_G12, R_HOST};
    cs_stats_est *gest[4] = {&s->links.gap4, &s->links.gap8, &s->links.gap12,
                             &s->links.within_host};
    for (int j = 0; j < (s->has_hosts ? 4 : 3); j++) {
        column(rows, S, gcol[j], x);
        *gest[j] = st_ratio(x, y, S);
    }
    column(rows, S, R_RECIP, x);
    s->links.reciprocity = st_ratio(x, y, S);
    column(rows, S, R_FWD, x);
    column(rows, S, R_NEAR, y);
    s->links.forward8 = st_ratio(x, y, S);
    if (s->has_relevance) {
        column(rows, S, R_REL, x);
        s->links.rel_base = st_mean(x, S);
        column(rows, S, R_RREL, x);
        column(rows, S, R_RLINK, y);
        s->links.rel_link = st_ratio(x, y, S);
    }
    if (!s->has_topics)
        return;
    column(rows, S, R_TSAME, x);
    column(rows, S, R_TKNOWN, y);
    s->links.same_topic = st_ratio(x, y, S);
    /* base rate: counts per topic of the sampled pages of known topic */
    double *cnt = calloc((size_t)K + 1, sizeof *cnt);
    if (cnt == NULL)
        return;
    int64_t known = 0;
    for (int64_t k = 0; k < S; k++) {
        const int32_t t = (int32_t)rows[k * R_WIDTH + R_TOPIC];
        if (t >= 0 && t < K) {
            cnt[t]++;
            known++;
        }
    }
    double base = 0.0;
    for (int32_t t = 0; t < K; t++) {
        base += known > 1 ? cnt[t] * (cnt[t] - 1.0) / ((double)known * (double)(known - 1)) : 0.0;
        s->topics_used += cnt[t] > 0;
    }
    int64_t m = 0;
    for (int64_t k = 0; k < S; k++) {
        const int32_t t = (int32_t)rows[k * R_WIDTH + R_TOPIC];
        if (t >= 0 && t < K)
            x[m++] = cnt[t] / (double)known;
    }
    free(cnt);
    const cs_stats_est p = st_mean(x, m);
    const double hb = 2.0 * (p.hi - p.value);
    cs_stats_est b = {base, base - hb, base + hb, known};
    s->links.topic_base = b;
    if (base > 0.0 && !isnan(s->links.same_topic.value)) {
        const double l = s->links.same_topic.value / base;
        const double rs = (s->links.same_topic.hi - s->links.same_topic.value) /
                          s->links.same_topic.value,
                     rb = hb / base;
        const double hl = l * sqrt(rs * rs + rb * rb);
        cs_stats_est e = {l, l - hl, l + hl, S};
        s->links.topic_lift = e;
    }
}

/* Local. Host sizes, exact from the host model. */
static cs_err host_sizes(cs_ctx *ctx, const cs_gen *g, cs_stats *s)
{
    const int64_t H = cs_gen_n_hosts(g);
    int64_t smax = 0, *h = NULL;
    for (int64_t x = 0; x < H; x++) {
        int64_t f, n;
        cs_gen_host_range(g, x, &f, &n);
        smax = n > smax ? n : smax;
    }
    cs_err rc = cs_calloc(ctx, &h, (size_t)smax + 1, sizeof *h, "host-size histogram");
    if (rc != CS_OK)
        return rc;
    for (int64_t x = 0; x < H; x++) {
        int64_t f, n;
        cs_gen_host_range(g, x, &f, &n);
        h[n]++;
    }
    rc = st_dist_hist(ctx, h, smax, &s->host);
    free(h);
    return rc;
}

cs_err st_sample_spec(cs_ctx *ctx, const cs_gen_config *cfg, const cs_stats_opts *o, cs_stats *s)
{
    const double t0 = cs_now();
    cs_err rc = CS_OK;
    cs_gen *g = NULL;
    double *mine = NULL, *rows = NULL, *x = NULL, *y = NULL;
    int *cnt = NULL, *dsp = NULL;
    const int P = ctx->size;
    const int64_t S = o->pages;
    /* the host tables once per node (about 46 bytes a host: 2.3 GB at 10^9 pages) */
    CS_TRY_AGREE(ctx, cs_gen_create_shared(ctx, cfg, &g));
    const int64_t N = cs_gen_n_pages(g);
    s->sampled = 1;
    s->n_links = -1; /* unknown: out.mean estimates M / N */
    s->n_pages = N;
    s->n_hosts = cs_gen_n_hosts(g);
    s->n_topics = cs_gen_n_topics(g);
    s->has_hosts = s->n_hosts > 1 && s->n_hosts < N;
    s->has_topics = s->n_topics > 1;
    s->has_relevance = cfg->target_topic >= 0;
    if (S * R_WIDTH > 2000000000)
        rc = cs_fail(ctx, CS_ERR_ARG, "stats: a sample of %lld pages is too large (at most %d)",
                     (long long)S, 2000000000 / R_WIDTH);
    CS_TRY_AGREE(ctx, rc);
    int64_t a = 0, c = 0;
    cs_block_range(S, ctx->rank, P, &a, &c);
    rc = cs_alloc(ctx, &mine, (size_t)(c * R_WIDTH) + 1, sizeof *mine, "sample rows");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &rows, (size_t)(S * R_WIDTH), sizeof *rows, "sample rows");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &x, (size_t)S, sizeof *x, "sample column");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &y, (size_t)S, sizeof *y, "sample column");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &cnt, 2 * (size_t)P, sizeof *cnt, "sample layout");
    CS_TRY_AGREE(ctx, rc);
    dsp = cnt + P;
    for (int r = 0; r < P; r++) {
        int64_t ra = 0, rcnt = 0;
        cs_block_range(S, r, P, &ra, &rcnt);
        cnt[r] = (int)(rcnt * R_WIDTH);
        dsp[r] = (int)(ra * R_WIDTH);
    }
    CS_TRY_AGREE(ctx, sample_rows(ctx, g, o, a, c, mine));
    cs_allgatherv(ctx, mine, (int)(c * R_WIDTH), rows, cnt, dsp, CS_T_F64);
    figures(rows, S, s->n_topics, x, y, s);
    CS_TRY_AGREE(ctx, host_sizes(ctx, g, s));
fail:
    free(cnt);
    free(y);
    free(x);
    free(rows);
    free(mine);
    cs_gen_destroy(&g);
    s->n_ranks = ctx->size;
    double dt = cs_now() - t0;
    cs_allreduce(ctx, &dt, &s->seconds, 1, CS_T_F64, CS_OP_MAX);
    return rc;
}
