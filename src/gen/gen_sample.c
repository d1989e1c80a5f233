/*
 * gen_sample: the statistics of a generated world without generating it (`crawlsim info
 * SPEC.ini`), for worlds too large to write (a procedural world of 10^9 pages).
 *
 * Exact from the host model: pages, hosts, topics and the host-size distribution. Estimated
 * from a uniform sample of S distinct pages (ids drawn from the spec's seed in their own stream,
 * CS_RNG_SAMPLE, so the estimate is reproducible): out-degrees, page attributes, and, from one
 * out-link of each sampled page drawn uniformly, the fractions of links within host, within
 * topic and reciprocated. A fraction of links is a ratio of two sample sums,
 * R = sum(a_i) / sum(d_i) (d_i out-degree, a_i its links with the property, or d_i times the
 * indicator of the one link drawn); its 95 % half-width is the delta method's
 * 1.96 sqrt(sum((a_i - R d_i)^2) / (S (S - 1))) / mean(d). Means get 1.96 s / sqrt(S).
 * In-degrees are not estimated: a page's in-links are known only from every page's out-links
 * (their mean is the out-degree mean).
 */
#include "gen_impl.h"

#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Local. Nearest-rank quantile (permille / 1000) of the sorted s[0..n). */
static double quantile(const double *s, int64_t n, int permille)
{
    int64_t k = (n * permille + 999) / 1000;
    return s[k < 1 ? 0 : k - 1];
}

/* Local. Mean and 95 % half-width of x[0..n). */
static void mean_half(const double *x, int64_t n, cs_gen_est *e)
{
    double s = 0.0, ss = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    e->value = s / (double)n;
    for (int64_t i = 0; i < n; i++)
        ss += (x[i] - e->value) * (x[i] - e->value);
    e->half = n > 1 ? 1.96 * sqrt(ss / (double)(n - 1) / (double)n) : (double)NAN;
}

/* Local. Ratio sum(a) / sum(d) over n pages and its 95 % half-width (delta method). */
static void ratio_half(const double *a, const double *d, int64_t n, cs_gen_est *e)
{
    double sa = 0.0, sd = 0.0, ss = 0.0;
    for (int64_t i = 0; i < n; i++) {
        sa += a[i];
        sd += d[i];
    }
    e->value = sd > 0.0 ? sa / sd : (double)NAN;
    for (int64_t i = 0; i < n; i++)
        ss += (a[i] - e->value * d[i]) * (a[i] - e->value * d[i]);
    e->half = n > 1 && sd > 0.0 ? 1.96 * sqrt(ss / (double)(n - 1) / (double)n) / (sd / (double)n)
                                : (double)NAN;
}

/* Local. Summary of x[0..n) (sorted in place): min, median, p90, p99, max. */
static void summary(double *x, int64_t n, double q[5])
{
    qsort(x, (size_t)n, sizeof *x, cmp_f64);
    q[0] = x[0];
    q[1] = quantile(x, n, 500);
    q[2] = quantile(x, n, 900);
    q[3] = quantile(x, n, 990);
    q[4] = x[n - 1];
}

/* Local. Whether the sorted list t[0..n) holds v. */
static int holds(const int64_t *t, int64_t n, int64_t v)
{
    const int64_t i = cs_lower_bound_i64(t, n, v);
    return i < n && t[i] == v;
}

/* Local. The exact host-size summary from the host model. */
static cs_err host_sizes(cs_ctx *ctx, const cs_gen *g, cs_gen_estimate *e)
{
    const int64_t H = cs_gen_n_hosts(g);
    double *sz = NULL;
    cs_err rc = cs_alloc(ctx, &sz, (size_t)H, sizeof *sz, "host sizes");
    if (rc != CS_OK)
        return rc;
    for (int64_t h = 0; h < H; h++) {
        int64_t first, count;
        cs_gen_host_range(g, h, &first, &count);
        sz[h] = (double)count;
    }
    summary(sz, H, e->host_size);
    free(sz);
    return CS_OK;
}

/* Local. S distinct pages of N into ids (sorted): a uniform draw of S ids, sorted, duplicates
 * redrawn until S are distinct (a few rounds when S << N; all pages when S == N). */
static void draw_pages(uint64_t seed, int64_t N, int64_t sample, int64_t *ids)
{
    if (sample == N) {
        for (int64_t i = 0; i < N; i++)
            ids[i] = i;
        return;
    }
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_SAMPLE, 0, 0);
    int64_t have = 0;
    while (have < sample) {
        for (int64_t i = have; i < sample; i++)
            ids[i] = (int64_t)cs_rng_below(&r, (uint64_t)N);
        qsort(ids, (size_t)sample, sizeof *ids, cmp_i64);
        have = 0;
        for (int64_t i = 0; i < sample; i++)
            if (have == 0 || ids[i] != ids[have - 1])
                ids[have++] = ids[i];
    }
}

/* Local. One out-link of each sampled page with any (of the slice s), uniformly: its target in
 * pick[i] (-1: none); the distinct targets, sorted, in tid. Returns their count. */
static int64_t draw_links(uint64_t seed, const cs_graph_slice *s, int64_t sample, int64_t *pick,
                          int64_t *tid)
{
    int64_t nt = 0;
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_SAMPLE, 1, 0);
    for (int64_t i = 0; i < sample; i++) {
        int64_t di = s->offsets[i + 1] - s->offsets[i];
        pick[i] = di > 0 ? s->targets[s->offsets[i] + (int64_t)cs_rng_below(&r, (uint64_t)di)] : -1;
        if (pick[i] >= 0)
            tid[nt++] = pick[i];
    }
    qsort(tid, (size_t)nt, sizeof *tid, cmp_i64);
    int64_t nu = 0;
    for (int64_t i = 0; i < nt; i++)
        if (nu == 0 || tid[i] != tid[nu - 1])
            tid[nu++] = tid[i];
    return nu;
}

/* The sample's pages (ids, slice s), their drawn links (pick) and the pages those lead to
 * (tid, slice t: nu of them). */
typedef struct est_sample {
    const int64_t *ids, *pick, *tid;
    const cs_graph_slice *s, *t;
    int64_t n, nu;
} est_sample;

/* Local. The link estimates into e: out-degree, links, pages without links, within host (every
 * link of a sampled page), within topic and reciprocated (the one link drawn, weighted by the
 * page's degree). d: the degrees (filled); a, x: scratch (n values each). */
static void link_estimates(const cs_gen *g, const est_sample *m, double *d, double *a, double *x,
                           cs_gen_estimate *e)
{
    const cs_graph_slice *s = m->s, *t = m->t;
    const int64_t sample = m->n, N = e->n_pages;
    for (int64_t i = 0; i < sample; i++)
        d[i] = (double)(s->offsets[i + 1] - s->offsets[i]);
    mean_half(d, sample, &e->out_degree);
    e->links.value = e->out_degree.value * (double)N;
    e->links.half = e->out_degree.half * (double)N;
    for (int64_t i = 0; i < sample; i++)
        x[i] = d[i] == 0.0;
    mean_half(x, sample, &e->no_out_links);
    for (int64_t i = 0; i < sample; i++) {
        int64_t same = 0;
        for (int64_t k = s->offsets[i]; k < s->offsets[i + 1]; k++)
            same += cs_gen_host_of(g, s->targets[k]) == s->host[i];
        a[i] = (double)same;
    }
    ratio_half(a, d, sample, &e->within_host);
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0; i < sample; i++) {
            a[i] = 0.0;
            if (m->pick[i] < 0)
                continue;
            const int64_t lo = cs_lower_bound_i64(m->tid, m->nu, m->pick[i]); /* its row in t */
            int yes = pass == 0 ? t->topic[lo] == s->topic[i]
                                : holds(t->targets + t->offsets[lo],
                                        t->offsets[lo + 1] - t->offsets[lo], m->ids[i]);
            a[i] = yes ? d[i] : 0.0;
        }
        ratio_half(a, d, sample, pass == 0 ? &e->within_topic : &e->reciprocity);
    }
}

/* Local. The page attributes' estimates into e (relevant and observable shares, the means and
 * quantiles of relevance, change rate and importance) and the out-degrees' quantiles, from the
 * sampled pages s (sample of them, degrees d); x: scratch. */
static void attribute_estimates(const cs_graph_slice *s, int64_t sample, const double *d, double *x,
                                cs_gen_estimate *e)
{
    for (int64_t i = 0; i < sample; i++)
        x[i] = s->relevance[i] >= e->threshold;
    mean_half(x, sample, &e->relevant);
    for (int64_t i = 0; i < sample; i++)
        x[i] = s->observable[i];
    mean_half(x, sample, &e->observable);
    const double *attr[3] = {s->relevance, s->delta, s->mu};
    cs_gen_est *mean[3] = {&e->relevance, &e->change_rate, &e->importance};
    double(*q[3])[5] = {&e->relevance_q, &e->change_rate_q, &e->importance_q};
    for (int k = 0; k < 3; k++) {
        memcpy(x, attr[k], (size_t)sample * sizeof *x);
        mean_half(x, sample, mean[k]);
        summary(x, sample, *q[k]);
    }
    memcpy(x, d, (size_t)sample * sizeof *x);
    summary(x, sample, e->out_degree_q);
}

cs_err cs_gen_estimate_stats(cs_ctx *ctx, const cs_gen *g, uint64_t seed, int64_t sample,
                             double threshold, cs_gen_estimate *e)
{
    const int64_t N = cs_gen_n_pages(g);
    memset(e, 0, sizeof *e);
    if (sample < 2)
        return cs_fail(ctx, CS_ERR_ARG, "info: a sample of %lld pages is too small (at least 2)",
                       (long long)sample);
    if (sample > N)
        sample = N;
    cs_err rc = host_sizes(ctx, g, e);
    if (rc != CS_OK)
        return rc;

    int64_t *ids = NULL, *tid = NULL, *pick = NULL;
    double *d = NULL, *a = NULL, *x = NULL;
    cs_graph_slice s, t;
    cs_graph_slice_init(&s);
    cs_graph_slice_init(&t);
    CS_TRY(ctx, cs_alloc(ctx, &ids, (size_t)sample, sizeof *ids, "sample"));
    draw_pages(seed, N, sample, ids);
    CS_TRY(ctx, gen_slice_ids(ctx, g, ids, sample, &s, NULL));
    CS_TRY(ctx, cs_alloc(ctx, &pick, (size_t)sample, sizeof *pick, "sampled links"));
    CS_TRY(ctx, cs_alloc(ctx, &tid, (size_t)sample, sizeof *tid, "sampled targets"));
    const int64_t nu = draw_links(seed, &s, sample, pick, tid);
    CS_TRY(ctx, gen_slice_ids(ctx, g, tid, nu, &t, NULL));

    CS_TRY(ctx, cs_alloc(ctx, &d, (size_t)sample, sizeof *d, "degrees"));
    CS_TRY(ctx, cs_alloc(ctx, &a, (size_t)sample, sizeof *a, "link counts"));
    CS_TRY(ctx, cs_alloc(ctx, &x, (size_t)sample, sizeof *x, "values"));
    e->n_pages = N;
    e->n_hosts = cs_gen_n_hosts(g);
    e->n_topics = cs_gen_n_topics(g);
    e->sample = sample;
    e->threshold = threshold;
    const est_sample m = {ids, pick, tid, &s, &t, sample, nu};
    link_estimates(g, &m, d, a, x, e);
    attribute_estimates(&s, sample, d, x, e);
fail:
    cs_graph_slice_fini(&s);
    cs_graph_slice_fini(&t);
    free(ids);
    free(tid);
    free(pick);
    free(d);
    free(a);
    free(x);
    return rc;
}

static void print_est(FILE *f, const char *name, const cs_gen_est *e, int pct)
{
    if (pct)
        fprintf(f, "%-17s %.4f +- %.4f\n", name, e->value, e->half);
    else
        fprintf(f, "%-17s %.4g +- %.2g\n", name, e->value, e->half);
}

void cs_gen_estimate_print(FILE *f, const cs_gen_estimate *e)
{
    const double *h = e->host_size, *o = e->out_degree_q;
    fprintf(f, "pages %lld (exact)\n", (long long)e->n_pages);
    fprintf(f, "hosts %lld (exact; mean %.2f pages per host)\n", (long long)e->n_hosts,
            (double)e->n_pages / (double)e->n_hosts);
    fprintf(f, "topics %d (exact)\n", (int)e->n_topics);
    fprintf(f, "host size   min %.0f median %.0f mean %.2f p90 %.0f p99 %.0f max %.0f (exact)\n",
            h[0], h[1], (double)e->n_pages / (double)e->n_hosts, h[2], h[3], h[4]);
    fprintf(f,
            "estimated from a uniform sample of %lld pages (95 %% intervals as +-; quantiles "
            "of the sample):\n",
            (long long)e->sample);
    fprintf(f, "links             %.4g +- %.2g (mean out-degree %.3f +- %.3f)\n", e->links.value,
            e->links.half, e->out_degree.value, e->out_degree.half);
    fprintf(f, "out-degree  min %.0f median %.0f p90 %.0f p99 %.0f max %.0f (sample)\n", o[0], o[1],
            o[2], o[3], o[4]);
    print_est(f, "no out-links", &e->no_out_links, 1);
    fprintf(f, "in-degree   mean = mean out-degree; its distribution needs the whole graph "
               "(crawlsim gen, then crawlsim info WEB.h5)\n");
    print_est(f, "links within host", &e->within_host, 1);
    print_est(f, "links within topic", &e->within_topic, 1);
    print_est(f, "reciprocity", &e->reciprocity, 1);
    fprintf(f, "relevant pages    %.4f +- %.4f (relevance >= %g)\n", e->relevant.value,
            e->relevant.half, e->threshold);
    const char *names[3] = {"relevance", "change rate", "importance"};
    const cs_gen_est *m[3] = {&e->relevance, &e->change_rate, &e->importance};
    const double *q[3] = {e->relevance_q, e->change_rate_q, e->importance_q};
    for (int k = 0; k < 3; k++)
        fprintf(f, "%-11s min %.4g median %.4g mean %.4g +- %.2g p90 %.4g p99 %.4g max %.4g\n",
                names[k], q[k][0], q[k][1], m[k]->value, m[k]->half, q[k][2], q[k][3], q[k][4]);
    print_est(f, "observable pages", &e->observable, 1);
    fprintf(f, "(change rates and importance are heavy-tailed: the intervals of their means, "
               "normal approximations, are optimistic)\n");
}
