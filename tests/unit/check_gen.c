/*
 * Unit tests of the synthetic web model: purity (the same pages whatever the slicing and the
 * thread count), structural invariants of the links, and the model's statistics against the
 * configured parameters with tolerances derived from their variance.
 */
#include "crawlsim/gen.h"
#include "crawlsim/partition.h"
#include "crawlsim/rng.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

/* The whole world of c: its model in *g, every page in *s (drop_world frees both). */
static void whole_world(const cs_gen_config *c, cs_gen **g, cs_graph_slice *s)
{
    *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, c, g), CS_OK);
    cs_graph_slice_init(s);
    ck_assert_int_eq(cs_gen_slice(&ctx, *g, 0, c->pages, s, NULL), CS_OK);
}

static void drop_world(cs_gen **g, cs_graph_slice *s)
{
    cs_graph_slice_fini(s);
    cs_gen_destroy(g);
}

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

static cs_gen_config small_config(int64_t pages)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = pages;
    cfg.gen.seed = 11;
    cfg.gen.topics = 16;
    cfg.gen.target_topic = 3;
    return cfg.gen;
}

static int slices_equal_at(const cs_graph_slice *whole, const cs_graph_slice *part)
{
    int64_t off = part->first - whole->first;
    for (int64_t i = 0; i < part->n; i++) {
        int64_t w = off + i;
        int64_t dw = whole->offsets[w + 1] - whole->offsets[w];
        int64_t dp = part->offsets[i + 1] - part->offsets[i];
        if (dw != dp)
            return 0;
        if (memcmp(whole->targets + whole->offsets[w], part->targets + part->offsets[i],
                   (size_t)dw * sizeof(int64_t)) != 0)
            return 0;
        if (whole->host[w] != part->host[i] || whole->topic[w] != part->topic[i] ||
            whole->relevance[w] != part->relevance[i] || whole->delta[w] != part->delta[i] ||
            whole->mu[w] != part->mu[i] || whole->observable[w] != part->observable[i])
            return 0;
    }
    return 1;
}

START_TEST(pure_function_of_page_id)
{
    cs_gen_config c = small_config(20000);
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
    cs_graph_slice whole, a, b;
    cs_graph_slice_init(&whole);
    cs_graph_slice_init(&a);
    cs_graph_slice_init(&b);
    omp_set_num_threads(1);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, 20000, &whole, NULL), CS_OK);
    /* other cuts, other thread counts */
    omp_set_num_threads(3);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, 7777, &a, NULL), CS_OK);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 7777, 20000 - 7777, &b, NULL), CS_OK);
    ck_assert(slices_equal_at(&whole, &a));
    ck_assert(slices_equal_at(&whole, &b));
    /* a page's rate from its host's base rate: the slice's delta, the same bits for every page */
    int64_t same = 0;
    for (int64_t i = 0; i < whole.n; i++) {
        const double d = cs_gen_page_rate(&c, cs_gen_host_rate(&c, whole.host[i]), i, CS_RNG_PAGE);
        same += memcmp(&d, &whole.delta[i], sizeof d) == 0;
    }
    ck_assert_int_eq(same, whole.n);
    /* a second model built from the same config is the same model */
    cs_gen *g2 = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g2), CS_OK);
    ck_assert_int_eq(cs_gen_n_hosts(g), cs_gen_n_hosts(g2));
    cs_graph_slice_fini(&a);
    ck_assert_int_eq(cs_gen_slice(&ctx, g2, 123, 4000, &a, NULL), CS_OK);
    ck_assert(slices_equal_at(&whole, &a));
    /* and another seed gives another world */
    c.seed = 12;
    cs_gen *g3 = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g3), CS_OK);
    cs_graph_slice_fini(&b);
    ck_assert_int_eq(cs_gen_slice(&ctx, g3, 123, 4000, &b, NULL), CS_OK);
    ck_assert(!slices_equal_at(&whole, &b));
    cs_graph_slice_fini(&whole);
    cs_graph_slice_fini(&a);
    cs_graph_slice_fini(&b);
    cs_gen_destroy(&g);
    cs_gen_destroy(&g2);
    cs_gen_destroy(&g3);
    ck_assert_ptr_null(g);
    omp_set_num_threads(1);
}
END_TEST

START_TEST(link_invariants)
{
    cs_gen_config c = small_config(30000);
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, 30000, &s, NULL), CS_OK);
    for (int64_t i = 0; i < s.n; i++) {
        ck_assert_int_le(s.offsets[i], s.offsets[i + 1]);
        for (int64_t e = s.offsets[i]; e < s.offsets[i + 1]; e++) {
            ck_assert_int_ge(s.targets[e], 0);
            ck_assert_int_lt(s.targets[e], c.pages);
            ck_assert_int_ne(s.targets[e], i); /* no self links */
            if (e > s.offsets[i])
                ck_assert_int_gt(s.targets[e], s.targets[e - 1]); /* sorted, unique */
        }
        ck_assert_int_eq(s.host[i], cs_gen_host_of(g, i));
        ck_assert(s.relevance[i] >= 0.0 && s.relevance[i] <= 1.0);
        ck_assert(s.delta[i] > 0.0 && s.mu[i] >= 1.0);
        ck_assert(s.topic[i] >= 0 && s.topic[i] < c.topics);
    }
    /* hosts tile the pages */
    int64_t covered = 0;
    for (int64_t h = 0; h < cs_gen_n_hosts(g); h++) {
        int64_t f, n;
        cs_gen_host_range(g, h, &f, &n);
        ck_assert_int_eq(f, covered);
        ck_assert_int_ge(n, 1);
        covered += n;
    }
    ck_assert_int_eq(covered, c.pages);
    drop_world(&g, &s);
}
END_TEST

START_TEST(statistics_follow_the_parameters)
{
    const int64_t N = 200000;
    cs_gen_config c = small_config(N);
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    omp_set_num_threads(2);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, N, &s, NULL), CS_OK);
    omp_set_num_threads(1);

    /* Mean out-degree: the drawn mean is degree_mean, hubs add (factor - 1) * hub_fraction of it
     * (capped), distinctness removes a little. The standard error of a power law with alpha
     * 2.7 is about sd/sqrt(N) ~ 25/450 = 0.06; allow 8 % for the hubs and the lost duplicates. */
    double links = (double)s.offsets[N];
    double mean = links / (double)N;
    double expect = c.degree_mean * (1.0 + (c.hub_degree_factor - 1.0) * c.hub_fraction);
    ck_assert_msg(fabs(mean - expect) < 0.08 * expect, "mean degree %g, expected ~%g", mean,
                  expect);

    /* Link kinds: within host >= p_host minus small hosts' share, plus topic links that land
     * in the own host. Measured fractions must lie in a band around p_host. */
    int64_t within = 0, same_topic = 0, rel = 0, obs = 0;
    double mean_host = (double)N / (double)cs_gen_n_hosts(g);
    for (int64_t i = 0; i < N; i++) {
        for (int64_t e = s.offsets[i]; e < s.offsets[i + 1]; e++) {
            int64_t t = s.targets[e];
            within += s.host[t] == s.host[i];
            same_topic += s.topic[t] == s.topic[i];
        }
        rel += s.relevance[i] >= c.relevance_threshold;
        obs += s.observable[i];
    }
    double fw = (double)within / links, ft = (double)same_topic / links;
    ck_assert_msg(fw > 0.35 && fw < 0.75, "within-host fraction %g", fw);
    /* topical locality: same-topic links far above the chance level sum_t share_t^2 (< 0.2) */
    ck_assert_msg(ft > 0.6, "same-topic fraction %g", ft);
    ck_assert_msg(fabs(mean_host - c.host_size_mean) < 0.25 * c.host_size_mean, "mean host size %g",
                  mean_host);
    /* observable: binomial(N, 0.04), sd = sqrt(N p (1-p)) = 88; 5 sd */
    ck_assert_msg(fabs((double)obs - 0.04 * (double)N) < 5.0 * sqrt((double)N * 0.04 * 0.96),
                  "observable %lld", (long long)obs);
    /* relevant pages: those of the target topic (share ~ 1/(4 H_16) = 7.4 %), noise aside */
    double fr = (double)rel / (double)N;
    ck_assert_msg(fr > 0.02 && fr < 0.15, "relevant fraction %g", fr);

    /* In-degree is heavy tailed: the most linked page has far more than the mean. */
    int32_t *indeg = calloc((size_t)N, sizeof *indeg);
    ck_assert_ptr_nonnull(indeg);
    for (int64_t e = 0; e < s.offsets[N]; e++)
        indeg[s.targets[e]]++;
    int32_t maxin = 0;
    for (int64_t i = 0; i < N; i++)
        maxin = indeg[i] > maxin ? indeg[i] : maxin;
    ck_assert_msg((double)maxin > 50.0 * mean, "max in-degree %d", maxin);
    free(indeg);

    /* Change rates: the median of log(delta) over pages is about log(delta_median) (host and
     * page log-normal noise are symmetric; news hosts shift it by < 0.1). */
    int64_t below = 0;
    for (int64_t i = 0; i < N; i++)
        below += s.delta[i] < c.delta_median;
    double fb = (double)below / (double)N;
    ck_assert_msg(fb > 0.4 && fb < 0.6, "fraction below the median rate %g", fb);

    drop_world(&g, &s);
}
END_TEST

static double cosine(const float *a, const float *b, int64_t n)
{
    double ab = 0, aa = 0, bb = 0;
    for (int64_t i = 0; i < n; i++) {
        ab += (double)a[i] * (double)b[i];
        aa += (double)a[i] * (double)a[i];
        bb += (double)b[i] * (double)b[i];
    }
    return ab / sqrt(aa * bb);
}

START_TEST(terms_are_noisy_evidence)
{
    cs_gen_config c = small_config(5000);
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, 5000, &s, NULL), CS_OK);
    float page[64], anchor[64], again[64];
    double own = 0, other = 0, anc = 0;
    int64_t n = 0;
    for (int64_t i = 0; i < 5000; i++) {
        if (s.offsets[i + 1] == s.offsets[i])
            continue;
        int64_t dst = s.targets[s.offsets[i]];
        cs_gen_page_terms(g, dst, page);
        cs_gen_page_terms(g, dst, again);
        ck_assert_int_eq(memcmp(page, again, sizeof(float) * (size_t)c.term_dim), 0);
        cs_gen_anchor_terms(g, i, dst, anchor);
        int32_t t = s.topic[dst];
        own += cosine(page, cs_gen_topic_prototype(g, t), c.term_dim);
        other += cosine(page, cs_gen_topic_prototype(g, (t + 1) % (int32_t)c.topics), c.term_dim);
        anc += cosine(anchor, cs_gen_topic_prototype(g, t), c.term_dim);
        n++;
    }
    own /= (double)n;
    other /= (double)n;
    anc /= (double)n;
    /* Signal 1 vs noise norm term_noise = 0.5: cosine ~ 0.9; anchors add noise of norm
     * anchor_noise: ~ 1 / sqrt(1 + term_noise^2 + anchor_noise^2) (0.16 at the default 6);
     * random prototypes in 16 dimensions: ~ 0 +- 0.25. */
    const double anc_expect =
        1.0 / sqrt(1.0 + c.term_noise * c.term_noise + c.anchor_noise * c.anchor_noise);
    ck_assert_msg(own > 0.8, "page/own prototype %g", own);
    ck_assert_msg(anc < own - 0.1 && fabs(anc - anc_expect) < 0.06,
                  "anchor/own prototype %g, expected about %g", anc, anc_expect);
    ck_assert_msg(fabs(other) < 0.3, "page/other prototype %g", other);
    drop_world(&g, &s);
}
END_TEST

/* The thresholds of the first in-host ranks (gen_impl.h GEN_RANKS) give the world of the formula
 * alone bit for bit (CRAWLSIM_GEN_RANKS=0): the links, on the default world's keys and at page
 * popularity skews through both of the formula's paths (integral exponents: 1.25, 1.5; the
 * others) and the table's ends (4.9; 1.13: e = -7.7). */
START_TEST(rank_thresholds_keep_the_world)
{
    enum { N = 40000 };
    static const double skews[] = {1.977, 1.25, 1.5, 1.3, 2.5, 4.9, 1.13};
    int bad = 0;
    for (size_t k = 0; k < sizeof skews / sizeof *skews; k++) {
        cs_gen_config c = small_config(N);
        c.page_popularity_skew = skews[k];
        c.degree_mean = 30;
        c.web.near_share = 0.3;
        c.web.template_links = 10;
        c.web.template_share = 0.5;
        cs_graph_slice s[2];
        for (int off = 0; off < 2; off++) {
            ck_assert_int_eq(
                off ? setenv("CRAWLSIM_GEN_RANKS", "0", 1) : unsetenv("CRAWLSIM_GEN_RANKS"), 0);
            cs_gen *g = NULL;
            ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
            cs_graph_slice_init(&s[off]);
            ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, N, &s[off], NULL), CS_OK);
            cs_gen_destroy(&g);
        }
        unsetenv("CRAWLSIM_GEN_RANKS");
        const int64_t m = s[0].offsets[N];
        bad += m != s[1].offsets[N] ||
               memcmp(s[0].offsets, s[1].offsets, (N + 1) * sizeof *s[0].offsets) != 0 ||
               memcmp(s[0].targets, s[1].targets, (size_t)m * sizeof *s[0].targets) != 0;
        cs_graph_slice_fini(&s[0]);
        cs_graph_slice_fini(&s[1]);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The term vectors' two draws (gen.term_normals): Box-Muller by default, the written-out formula
 * bit for bit (prototype + term_noise / sqrt(term_dim) times cs_rng_normal of the page's TERMS
 * stream: the worlds of earlier versions), and the ziggurat, the same formula with
 * cs_rng_normal_zig: another vector for every page, with the same law of the noise (the mean
 * squared norm of term - prototype within 5 standard errors of term_noise^2 for both), the
 * pages' attributes unchanged. */
START_TEST(term_normals_choose_the_draw)
{
    enum { N = 3000 };
    cs_gen_config c = small_config(N);
    cs_gen *g[2] = {NULL, NULL};
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g[0]), CS_OK);
    c.term_normals = CS_TERMS_ZIGGURAT;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g[1]), CS_OK);
    const int dim = (int)c.term_dim;
    const double sigma = c.term_noise / sqrt((double)dim);
    int bad = 0, same = 0;
    double sq[2] = {0.0, 0.0}, sq2[2] = {0.0, 0.0};
    for (int64_t p = 0; p < N; p++) {
        cs_gen_page a;
        cs_gen_page_attrs(g[0], p, &a);
        for (int k = 0; k < 2; k++) {
            float t[64], want[64];
            cs_gen_page_terms(g[k], p, t);
            const float *pr = cs_gen_topic_prototype(g[k], a.topic);
            cs_rng r;
            cs_rng_init(&r, (uint64_t)c.seed, CS_RNG_TERMS, (uint64_t)p, 0);
            double s = 0.0;
            for (int d = 0; d < dim; d++) {
                const double z = k == 0 ? cs_rng_normal(&r) : cs_rng_normal_zig(&r);
                want[d] = (float)((double)pr[d] + sigma * z);
                s += ((double)t[d] - (double)pr[d]) * ((double)t[d] - (double)pr[d]);
            }
            bad += memcmp(t, want, sizeof(float) * (size_t)dim) != 0;
            sq[k] += s;
            sq2[k] += s * s;
            if (k == 1) {
                float t0[64];
                cs_gen_page_terms(g[0], p, t0);
                same += memcmp(t, t0, sizeof(float) * (size_t)dim) == 0;
            }
        }
        cs_gen_page b;
        cs_gen_page_attrs(g[1], p, &b);
        bad += a.host != b.host || a.topic != b.topic || a.relevance != b.relevance;
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(same, 0);
    for (int k = 0; k < 2; k++) {
        const double m = sq[k] / N, se = sqrt((sq2[k] / N - m * m) / N);
        ck_assert_msg(fabs(m - c.term_noise * c.term_noise) < 5.0 * se,
                      "draw %d: mean squared noise %g, expected %g +- %g", k, m,
                      c.term_noise * c.term_noise, 5.0 * se);
    }
    cs_gen_destroy(&g[0]);
    cs_gen_destroy(&g[1]);
}
END_TEST

START_TEST(impossible_parameters_are_errors)
{
    cs_gen_config c = small_config(1000);
    /* with alpha 1.5 and a maximum of 10^6 even xmin = 1 gives a mean of about 1000 */
    c.degree_mean = 2;
    c.degree_max = 1000000;
    c.degree_alpha = 1.5;
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_ERR_CONFIG);
    ck_assert_ptr_null(g);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "out-degree"));
}
END_TEST

START_TEST(tiny_worlds)
{
    /* 2 pages: at most one link each; no self links even when the degree asks for more. */
    cs_gen_config c = small_config(2);
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, 2, &s, NULL), CS_OK);
    ck_assert_int_le(s.offsets[2], 2);
    for (int64_t e = 0; e < s.offsets[1]; e++)
        ck_assert_int_eq(s.targets[e], 1);
    cs_graph_slice_fini(&s);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 1, 5, &s, NULL), CS_ERR_ARG);
    cs_gen_destroy(&g);
}
END_TEST

START_TEST(host_of_every_page)
{
    /* the host index (buckets of pages) answers as the host ranges, for worlds of many small
     * hosts (buckets of several hosts) and of few large ones (hosts over several buckets) */
    const double means[3] = {1.5, 20.0, 700.0}, alphas[3] = {4.0, 2.1, 1.6};
    for (int m = 0; m < 3; m++) {
        cs_gen_config c = small_config(30011);
        c.host_size_mean = means[m];
        c.host_size_alpha = alphas[m];
        cs_gen *g = NULL;
        ck_assert_msg(cs_gen_create(&ctx, &c, &g) == CS_OK, "%s", ctx.errmsg);
        int64_t h = 0, f = 0, n = 0;
        cs_gen_host_range(g, 0, &f, &n);
        for (int64_t p = 0; p < c.pages; p++) {
            while (p >= f + n)
                cs_gen_host_range(g, ++h, &f, &n);
            ck_assert_int_eq(cs_gen_host_of(g, p), h);
        }
        ck_assert_int_eq(h, cs_gen_n_hosts(g) - 1);
        cs_gen_owner o = {g, 7, 3, NULL};
        for (int64_t p = 0; p < c.pages; p += 97)
            ck_assert_int_eq(cs_gen_host_hash_owner(&o, p),
                             cs_partition_host_hash(cs_gen_host_of(g, p), 7, 3));
        cs_gen_destroy(&g);
    }
}
END_TEST

/* Local. Sorts each vertex's (neighbour, weight) pairs of c by neighbour (in place). */
static void sort_adjacency(cs_part_csr *c)
{
    for (int32_t v = 0; v < c->n; v++)
        for (int32_t i = c->xadj[v] + 1; i < c->xadj[v + 1]; i++)
            for (int32_t j = i; j > c->xadj[v] && c->adjncy[j - 1] > c->adjncy[j]; j--) {
                int32_t t = c->adjncy[j];
                c->adjncy[j] = c->adjncy[j - 1];
                c->adjncy[j - 1] = t;
                t = c->adjwgt[j];
                c->adjwgt[j] = c->adjwgt[j - 1];
                c->adjwgt[j - 1] = t;
            }
}

/* The range of the change rates that skips pages by a bound is the exhaustive pass's, bit for
 * bit: whole and in pieces that cut hosts, with the page jitter at the default, off, wide and
 * nearly off (every page but the extreme hosts' skipped), and with wide host rates (hosts whose
 * base rate lies outside the range found so far). */
START_TEST(rate_range_is_the_exhaustive_ones)
{
    const double page_sigma[] = {0.5, 0.0, 3.0, 0.5, 1e-12};
    const double host_sigma[] = {-1, -1, -1, 4.0, -1};
    for (size_t k = 0; k < sizeof page_sigma / sizeof *page_sigma; k++) {
        cs_gen_config c = small_config(50000);
        c.delta_page_sigma = page_sigma[k];
        if (host_sigma[k] >= 0)
            c.delta_host_sigma = host_sigma[k];
        cs_gen *g = NULL;
        ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
        const int64_t n = cs_gen_n_pages(g);
        double elo = (double)INFINITY, ehi = -(double)INFINITY;
        for (int64_t p = 0; p < n; p++) {
            double d = 0.0, mu = 0.0;
            uint8_t o = 0;
            cs_gen_page_dynamics(&c, cs_gen_host_of(g, p), p, CS_RNG_PAGE, &d, &mu, &o);
            elo = d < elo ? d : elo;
            ehi = d > ehi ? d : ehi;
        }
        double lo = (double)INFINITY, hi = -(double)INFINITY;
        cs_gen_rate_range(g, &c, 0, n, CS_RNG_PAGE, &lo, &hi);
        ck_assert_msg(memcmp(&lo, &elo, sizeof lo) == 0 && memcmp(&hi, &ehi, sizeof hi) == 0,
                      "sigma %g: [%.17g, %.17g] against [%.17g, %.17g]", page_sigma[k], lo, hi, elo,
                      ehi);
        /* in pieces that cut hosts, in reverse order */
        double plo = (double)INFINITY, phi = -(double)INFINITY;
        for (int64_t e = n; e > 0; e -= 777)
            cs_gen_rate_range(g, &c, e > 777 ? e - 777 : 0, e > 777 ? 777 : e, CS_RNG_PAGE, &plo,
                              &phi);
        ck_assert(memcmp(&plo, &elo, sizeof lo) == 0 && memcmp(&phi, &ehi, sizeof hi) == 0);
        cs_gen_destroy(&g);
    }
}
END_TEST

/* metis-sampled's host graph: with every page sampled (sample 0) it is the host graph that
 * crawlsim partition contracts from the world's links (cs_partition_contract), vertex for
 * vertex and weight for weight; with 2 pages a host it is symmetric, every edge weighs at
 * least 1 and it reads min(2, pages) pages of each host. */
START_TEST(sampled_host_graph)
{
    cs_gen_config c = small_config(20000);
    cs_gen *g = NULL;
    ck_assert(cs_gen_create(&ctx, &c, &g) == CS_OK);
    const int64_t N = cs_gen_n_pages(g), H = cs_gen_n_hosts(g);
    cs_graph_slice all;
    cs_graph_slice_init(&all);
    ck_assert(cs_gen_slice(&ctx, g, 0, N, &all, NULL) == CS_OK);
    cs_part_csr ref, est;
    cs_gen_host_graph_info info;
    ck_assert(cs_partition_contract(&ctx, &all, all.host, H, CS_PART_VW_PAGES, "ref", &ref) ==
              CS_OK);
    ck_assert_msg(cs_gen_host_graph(&ctx, g, 0, 0, &est, &info) == CS_OK, "%s", ctx.errmsg);
    ck_assert_int_eq(info.sampled_pages, N);
    ck_assert_int_eq(info.sampled_links, all.offsets[N]);
    ck_assert_int_eq(info.weight_divisor, 1);
    sort_adjacency(&ref);
    ck_assert_int_eq(est.n, ref.n);
    for (int32_t v = 0; v <= H; v++)
        ck_assert_int_eq(est.xadj[v], ref.xadj[v]);
    for (int32_t v = 0; v < H; v++)
        ck_assert_int_eq(est.vwgt[v], ref.vwgt[v]);
    for (int32_t e = 0; e < est.xadj[H]; e++) {
        ck_assert_int_eq(est.adjncy[e], ref.adjncy[e]);
        ck_assert_int_eq(est.adjwgt[e], ref.adjwgt[e]);
    }
    cs_part_csr_fini(&est);
    ck_assert(cs_gen_host_graph(&ctx, g, 2, 1, &est, &info) == CS_OK);
    int64_t want = 0;
    for (int64_t h = 0; h < H; h++) {
        int64_t f = 0, n = 0;
        cs_gen_host_range(g, h, &f, &n);
        want += n < 2 ? n : 2;
    }
    ck_assert_int_eq(info.sampled_pages, want);
    ck_assert(est.ncon == 2 && info.relevant > 0);
    for (int32_t v = 0; v < H; v++) {
        int64_t f = 0, n = 0;
        cs_gen_host_range(g, v, &f, &n);
        ck_assert(est.vwgt[2 * v] == n && est.vwgt[2 * v + 1] >= 0 && est.vwgt[2 * v + 1] <= n);
    }
    for (int32_t v = 0; v < H; v++)
        for (int32_t e = est.xadj[v]; e < est.xadj[v + 1]; e++) {
            const int32_t u = est.adjncy[e];
            ck_assert(u != v && est.adjwgt[e] >= 1);
            int found = 0;
            for (int32_t f = est.xadj[u]; f < est.xadj[u + 1]; f++)
                found += est.adjncy[f] == v && est.adjwgt[f] == est.adjwgt[e];
            ck_assert_int_eq(found, 1);
        }
    ck_assert(cs_gen_host_graph(&ctx, g, -1, 0, &est, &info) == CS_ERR_ARG && est.xadj == NULL);
    cs_part_csr_fini(&est);
    cs_part_csr_fini(&ref);
    cs_graph_slice_fini(&all);
    cs_gen_destroy(&g);
}
END_TEST

/* metis-sampled's host parts: the same at 1, 2 and 3 threads, in [0, k), every part used and
 * within METIS's balance; k outside [1, 65535] refused. */
START_TEST(sampled_parts_are_thread_invariant)
{
    cs_gen_config c = small_config(30000);
    cs_gen *g = NULL;
    ck_assert(cs_gen_create(&ctx, &c, &g) == CS_OK);
    cs_config cfg;
    cs_config_defaults(&cfg);
    const int64_t H = cs_gen_n_hosts(g);
    uint16_t *a = malloc((size_t)H * sizeof *a), *b = malloc((size_t)H * sizeof *b);
    cs_gen_host_graph_info info;
    const int threads = omp_get_max_threads();
    for (int64_t sample = 0; sample <= 3; sample += 3) {
        cfg.partition.sample = sample;
        omp_set_num_threads(1);
        ck_assert_msg(cs_gen_host_parts(&ctx, g, &cfg.partition, 4, a, &info) == CS_OK, "%s",
                      ctx.errmsg);
        for (int t = 2; t <= 3; t++) {
            omp_set_num_threads(t);
            ck_assert(cs_gen_host_parts(&ctx, g, &cfg.partition, 4, b, &info) == CS_OK);
            ck_assert_msg(memcmp(a, b, (size_t)H * sizeof *a) == 0, "sample %d: %d threads",
                          (int)sample, t);
        }
        int64_t w[4] = {0, 0, 0, 0};
        for (int64_t h = 0; h < H; h++) {
            int64_t f = 0, n = 0;
            cs_gen_host_range(g, h, &f, &n);
            ck_assert_int_lt(a[h], 4);
            w[a[h]] += n;
        }
        for (int p = 0; p < 4; p++)
            ck_assert_msg(w[p] > 0 && (double)w[p] < 1.2 * 30000 / 4, "part %d: %lld pages", p,
                          (long long)w[p]);
    }
    omp_set_num_threads(threads);
    ck_assert(cs_gen_host_parts(&ctx, g, &cfg.partition, 0, a, &info) == CS_ERR_ARG);
    ck_assert(cs_gen_host_parts(&ctx, g, &cfg.partition, 70000, a, &info) == CS_ERR_ARG);
    cfg.partition.sample = -2;
    ck_assert(cs_gen_host_parts(&ctx, g, &cfg.partition, 2, a, &info) == CS_ERR_ARG);
    free(a);
    free(b);
    cs_gen_destroy(&g);
}
END_TEST

/* ---- the web-like mechanisms --------------------------------------------------------------- */

/* The statistics each mechanism moves, measured on the whole world's slice s. */
typedef struct web_stats {
    double zero_out, zero_in; /* shares of pages */
    double reciprocity;       /* share of links u -> v with v -> u */
    double gap16;             /* share of links with |u - v| < 16 */
    double same_topic;        /* share of links between pages of one topic */
    double clustering;        /* mean local clustering of the undirected graph (degree >= 2) */
} web_stats;

static int has_link(const cs_graph_slice *s, int64_t u, int64_t v)
{
    int64_t lo = s->offsets[u], hi = s->offsets[u + 1];
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (s->targets[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->offsets[u + 1] && s->targets[lo] == v;
}

static int cmp_id(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The undirected neighbours of every page (sorted, unique) as CSR: *off (N + 1), *adj. */
static void undirected(const cs_graph_slice *s, int64_t **off, int64_t **adj)
{
    const int64_t N = s->n, L = s->offsets[N];
    int64_t *o = calloc((size_t)N + 1, sizeof *o), *a = malloc((size_t)(2 * L + 1) * sizeof *a);
    int64_t *fill = malloc((size_t)N * sizeof *fill);
    ck_assert(o != NULL && a != NULL && fill != NULL);
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s->offsets[u]; e < s->offsets[u + 1]; e++) {
            o[u + 1]++;
            o[s->targets[e] + 1]++;
        }
    for (int64_t u = 0; u < N; u++)
        o[u + 1] += o[u];
    memcpy(fill, o, (size_t)N * sizeof *fill);
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s->offsets[u]; e < s->offsets[u + 1]; e++) {
            a[fill[u]++] = s->targets[e];
            a[fill[s->targets[e]]++] = u;
        }
    int64_t w = 0; /* sort and deduplicate each list, compacting */
    for (int64_t u = 0; u < N; u++) {
        const int64_t b = o[u], e = o[u + 1];
        qsort(a + b, (size_t)(e - b), sizeof *a, cmp_id);
        o[u] = w;
        for (int64_t i = b; i < e; i++)
            if (i == b || a[i] != a[i - 1])
                a[w++] = a[i];
    }
    o[N] = w;
    free(fill);
    *off = o;
    *adj = a;
}

static int in_sorted(const int64_t *a, int64_t n, int64_t v)
{
    return bsearch(&v, a, (size_t)n, sizeof *a, cmp_id) != NULL;
}

static web_stats measure(const cs_graph_slice *s)
{
    const int64_t N = s->n, L = s->offsets[N];
    web_stats w = {0};
    int32_t *indeg = calloc((size_t)N, sizeof *indeg);
    ck_assert_ptr_nonnull(indeg);
    int64_t recip = 0, gap = 0, topic = 0, zo = 0, zi = 0;
    for (int64_t u = 0; u < N; u++) {
        zo += s->offsets[u + 1] == s->offsets[u];
        for (int64_t e = s->offsets[u]; e < s->offsets[u + 1]; e++) {
            const int64_t v = s->targets[e];
            indeg[v]++;
            recip += has_link(s, v, u);
            gap += llabs(v - u) < 16;
            topic += s->topic[v] == s->topic[u];
        }
    }
    for (int64_t u = 0; u < N; u++)
        zi += indeg[u] == 0;
    free(indeg);
    w.zero_out = (double)zo / (double)N;
    w.zero_in = (double)zi / (double)N;
    w.reciprocity = (double)recip / (double)L;
    w.gap16 = (double)gap / (double)L;
    w.same_topic = (double)topic / (double)L;
    /* clustering of every 16th page with two neighbours or more */
    int64_t *off = NULL, *adj = NULL, counted = 0;
    undirected(s, &off, &adj);
    double sum = 0.0;
    for (int64_t v = 0; v < N; v += 16) {
        const int64_t *nb = adj + off[v], k = off[v + 1] - off[v];
        if (k < 2)
            continue;
        int64_t closed = 0;
        for (int64_t i = 0; i < k; i++)
            for (int64_t e = off[nb[i]]; e < off[nb[i] + 1]; e++)
                closed += adj[e] > nb[i] && in_sorted(nb, k, adj[e]);
        sum += (double)closed / ((double)k * (double)(k - 1) / 2.0);
        counted++;
    }
    w.clustering = sum / (double)counted;
    free(off);
    free(adj);
    return w;
}

static web_stats world_stats(const cs_gen_config *c)
{
    cs_gen *g;
    cs_graph_slice s;
    omp_set_num_threads(2);
    whole_world(c, &g, &s);
    omp_set_num_threads(1);
    const web_stats w = measure(&s);
    drop_world(&g, &s);
    return w;
}

/* A world with every mechanism on. */
static cs_gen_config web_like_config(int64_t pages)
{
    cs_gen_config c = small_config(pages);
    c.web.dangling = 0.1;
    c.web.unlinked = 0.2;
    c.web.tree_branching = 6;
    c.web.tree_up = 0.9;
    c.web.tree_down = 0.8;
    c.web.tree_siblings = 0.7;
    c.web.template_links = 6;
    c.web.template_share = 0.8;
    c.web.near_share = 0.5;
    c.web.near_alpha = 1.7;
    c.web.near_snap = 0.6;
    c.web.near_forward = 0.7;
    c.web.host_cross = 0.3;
    c.web.link_pairs = 0.2;
    c.web.popular_degree = 0.7;
    c.web.home_links = 0.3;
    c.web.tree_only = 0.3;
    c.web.site_hosts = 4.0;
    c.web.tree_lift = 0.5;
    c.web.copy_links = 0.5;
    c.web.host_pool = 0.5;
    c.web.community_hosts = 64;
    c.web.community_near = 4;
    c.web.closed_own = 1;
    c.web.dangling_leaves = 1;
    c.web.in_hosts = 0.2;
    c.web.out_hosts = 0.2;
    c.web.isolated_hosts = 0.1;
    return c;
}

START_TEST(mechanisms_move_their_statistics)
{
    const int64_t N = 40000;
    const cs_gen_config base = small_config(N);
    const web_stats w0 = world_stats(&base);
    /* dangling: a binomial share, sd sqrt(0.15 0.85 / N) = 0.0018; 5 sd */
    cs_gen_config c = base;
    c.web.dangling = 0.15;
    web_stats w = world_stats(&c);
    ck_assert_msg(w0.zero_out == 0.0, "no dangling pages by default: %g", w0.zero_out);
    ck_assert_msg(fabs(w.zero_out - 0.15) < 0.009, "dangling share %g", w.zero_out);
    /* unlinked: the flagged pages (a host's first page never) plus those the skew leaves out */
    c = base;
    c.web.unlinked = 0.25;
    w = world_stats(&c);
    ck_assert_msg(w.zero_in > w0.zero_in + 0.15 && w.zero_in > 0.22, "no in-links: %g, off %g",
                  w.zero_in, w0.zero_in);
    /* the directory tree: reciprocal parent/child pairs, short gaps */
    c = base;
    c.web.tree_branching = 8;
    web_stats wt = world_stats(&c);
    ck_assert_msg(wt.reciprocity > w0.reciprocity + 0.05, "reciprocity %g, off %g", wt.reciprocity,
                  w0.reciprocity);
    ck_assert_msg(wt.gap16 > w0.gap16 + 0.03, "gaps < 16: %g, off %g", wt.gap16, w0.gap16);
    /* siblings: reciprocal pairs that close triangles with their directory (seen where few
     * drawn links dilute them: a mean of 3) */
    c.degree_mean = 3.0;
    wt = world_stats(&c);
    c.web.tree_siblings = 1.0;
    w = world_stats(&c);
    ck_assert_msg(w.reciprocity > wt.reciprocity + 0.03, "siblings: reciprocity %g, tree %g",
                  w.reciprocity, wt.reciprocity);
    ck_assert_msg(w.clustering > wt.clustering + 0.03, "siblings: clustering %g, tree %g",
                  w.clustering, wt.clustering);
    /* the host's template: every page links to the same popular pages */
    c = base;
    c.web.template_links = 8;
    w = world_stats(&c);
    ck_assert_msg(w.clustering > w0.clustering + 0.1, "template: clustering %g, off %g",
                  w.clustering, w0.clustering);
    /* near links: drawn in-host links at short id gaps around their source */
    c = base;
    c.web.near_share = 0.8;
    w = world_stats(&c);
    ck_assert_msg(w.gap16 > w0.gap16 + 0.1, "near links: gaps < 16 %g, off %g", w.gap16, w0.gap16);
    /* weak topical locality from the existing keys: the real web's P(same topic | link) */
    c = base;
    c.host_topic_purity = 0.45;
    c.p_topic = 0.0;
    w = world_stats(&c);
    ck_assert_msg(w0.same_topic > 0.6 && w.same_topic < 0.4, "same topic %g, default %g",
                  w.same_topic, w0.same_topic);
}
END_TEST

/* The statistics the bow-tie roles and the snap move: the shares of the hosts of two pages or
 * more that no page of another host links to (in_closed) and whose pages link to no other host
 * (out_closed), the in-degree median, the pages without in-links. */
typedef struct role_stats {
    double in_closed, out_closed, zero_in, forward; /* forward: among 0 < |gap| < 256 */
    double within, gap4096;                         /* shares of links within host, |gap| < 4096 */
    int64_t crossed_closed; /* links from a closed host (OUT, isolated) to another host */
    int64_t role_breaks;    /* links to another host that its bow-tie role forbids */
    int64_t in_median;
} role_stats;

static role_stats role_world(const cs_gen_config *c)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    const int64_t N = s.n, H = cs_gen_n_hosts(g);
    uint8_t *in_x = calloc((size_t)H, 1), *out_x = calloc((size_t)H, 1);
    int64_t *indeg = calloc((size_t)N, sizeof *indeg), *hist = calloc((size_t)N + 1, 8);
    ck_assert(in_x != NULL && out_x != NULL && indeg != NULL && hist != NULL);
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t v = s.targets[e];
            indeg[v]++;
            if (s.host[v] != s.host[u]) {
                in_x[s.host[v]] = 1;
                out_x[s.host[u]] = 1;
            }
        }
    role_stats r = {0};
    int64_t big = 0, zi = 0, fw = 0, near = 0, inside = 0, g12 = 0;
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            near += llabs(s.targets[e] - u) < 256;
            fw += s.targets[e] > u && s.targets[e] - u < 256;
            inside += s.host[s.targets[e]] == s.host[u];
            g12 += llabs(s.targets[e] - u) < 4096;
            const int a = cs_gen_host_role(g, s.host[u]),
                      b = cs_gen_host_role(g, s.host[s.targets[e]]);
            if (s.host[s.targets[e]] != s.host[u]) {
                r.crossed_closed += (a & 2) != 0;
                /* out of closed, into hidden: only to the same role, and then forward */
                r.role_breaks +=
                    ((a & 2) || (b & 1)) && (a != b || s.host[s.targets[e]] < s.host[u]);
            }
        }
    r.forward = (double)fw / (double)near;
    r.within = (double)inside / (double)s.offsets[N];
    r.gap4096 = (double)g12 / (double)s.offsets[N];
    for (int64_t h = 0; h < H; h++) {
        int64_t first, count;
        cs_gen_host_range(g, h, &first, &count);
        if (count < 2)
            continue;
        big++;
        r.in_closed += !in_x[h];
        r.out_closed += !out_x[h];
    }
    for (int64_t u = 0; u < N; u++) {
        zi += indeg[u] == 0;
        hist[indeg[u] < N ? indeg[u] : N]++;
    }
    for (int64_t k = 0, below = 0; k <= N; k++)
        if ((below += hist[k]) * 2 >= N) {
            r.in_median = k;
            break;
        }
    r.in_closed /= (double)big;
    r.out_closed /= (double)big;
    r.zero_in = (double)zi / (double)N;
    free(in_x);
    free(out_x);
    free(indeg);
    free(hist);
    drop_world(&g, &s);
    return r;
}

START_TEST(roles_and_snap_move_their_statistics)
{
    cs_gen_config base = small_config(40000);
    base.web.tree_branching = 8;
    base.web.near_share = 0.8;
    base.web.near_alpha = 1.3;
    base.page_popularity_skew = 2.0; /* drawn links to few pages: the near ones decide */
    base.p_host = 0.95;
    base.p_topic = 0.04;
    base.host_size_mean = 200.0; /* hosts whose pages do not all link to each other */
    const role_stats r0 = role_world(&base);
    /* in_hosts: no other host links to a share of the hosts (their hash; sd about 0.02 here) */
    cs_gen_config c = base;
    c.web.in_hosts = 0.4;
    role_stats r = role_world(&c);
    ck_assert_msg(r.in_closed > r0.in_closed + 0.3,
                  "in_hosts: hosts without in-links from "
                  "other hosts %g, off %g",
                  r.in_closed, r0.in_closed);
    ck_assert_msg(fabs(r.out_closed - r0.out_closed) < 0.05, "in_hosts moved out_closed: %g, %g",
                  r.out_closed, r0.out_closed);
    /* out_hosts: a share of the hosts links only inside */
    c = base;
    c.web.out_hosts = 0.4;
    r = role_world(&c);
    ck_assert_msg(r.out_closed > r0.out_closed + 0.3,
                  "out_hosts: hosts without links to other "
                  "hosts %g, off %g",
                  r.out_closed, r0.out_closed);
    /* isolated_hosts: both */
    c = base;
    c.web.isolated_hosts = 0.4;
    r = role_world(&c);
    ck_assert_msg(r.in_closed > r0.in_closed + 0.3 && r.out_closed > r0.out_closed + 0.3,
                  "isolated_hosts: %g and %g, off %g and %g", r.in_closed, r.out_closed,
                  r0.in_closed, r0.out_closed);
    /* near_snap: the near links land on directories, most pages keep the tree's one in-link */
    c = base;
    c.web.near_snap = 1.0;
    r = role_world(&c);
    ck_assert_msg(r.in_median <= 2 && r0.in_median >= 4,
                  "near_snap: in-degree median %lld, off "
                  "%lld",
                  (long long)r.in_median, (long long)r0.in_median);
    /* host_cross: in-host links (drawn, near, template) go to neighbouring hosts: fewer links
     * within host, the id gaps still short */
    c = base;
    c.web.template_links = 4;
    const role_stats rt = role_world(&c);
    c.web.host_cross = 0.6;
    r = role_world(&c);
    ck_assert_msg(r.within < rt.within - 0.3 && r.gap4096 > rt.gap4096 - 0.1,
                  "host_cross: within host %g, |gap| < 4096 %g; off %g, %g", r.within, r.gap4096,
                  rt.within, rt.gap4096);
    /* ... but never into a host no other host links to, nor out of one whose links stay, unless
     * both have the same role and the link goes forward (the bow-tie's regions stay what they
     * are: no cycle joins such hosts) */
    c.web.in_hosts = 0.2;
    c.web.out_hosts = 0.2;
    c.web.isolated_hosts = 0.2;
    r = role_world(&c);
    ck_assert_msg(r.role_breaks == 0 && r.crossed_closed > 1000,
                  "host_cross with roles: %lld links against the roles, %lld out of closed hosts",
                  (long long)r.role_breaks, (long long)r.crossed_closed);
    /* near_forward: the near links' direction */
    c = base;
    c.web.near_forward = 0.9;
    r = role_world(&c);
    ck_assert_msg(r.forward > r0.forward + 0.15, "near_forward: forward share %g, off %g",
                  r.forward, r0.forward);
    /* dangling_leaves: a dangling directory's children lose their in-link, unless only leaves
     * dangle */
    c = base;
    c.web.near_snap = 1.0;
    c.web.dangling = 0.2;
    r = role_world(&c);
    c.web.dangling_leaves = 1;
    const role_stats rl = role_world(&c);
    ck_assert_msg(r.zero_in > 0.05 && rl.zero_in < 0.01,
                  "dangling_leaves: without in-links %g, "
                  "off %g",
                  rl.zero_in, r.zero_in);
}
END_TEST

/* A small world with directory trees, templates, links across hosts and IN and OUT hosts: the
 * base of the tests of the mechanisms that act on them. */
static cs_gen_config roles_config(int64_t pages)
{
    cs_gen_config c = small_config(pages);
    c.web.tree_branching = 8;
    c.web.template_links = 4;
    c.web.host_cross = 0.5;
    c.web.in_hosts = 0.2;
    c.web.out_hosts = 0.2;
    return c;
}

/* popular_degree: the mean out-degree of a link's target over the mean out-degree (1 when they
 * are independent); link_pairs: the reciprocity, the reciprocal links between two hosts, and
 * none against the roles (into an IN host or out of an OUT host from another host). */
static void degree_pair_stats(const cs_gen_config *c, double *f)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    const int64_t N = s.n, L = s.offsets[N];
    f[0] = f[1] = f[2] = 0.0;
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t v = s.targets[e], r = has_link(&s, v, u);
            const int ru = cs_gen_host_role(g, s.host[u]), rv = cs_gen_host_role(g, s.host[v]);
            f[0] += (double)(s.offsets[v + 1] - s.offsets[v]);
            f[1] += (double)r;
            if (s.host[u] != s.host[v] && r)
                f[2] += (ru & 2) == 0 && (rv & 1) == 0 ? 1.0 : -1e9;
        }
    f[0] /= (double)L * (double)L / (double)N;
    f[1] /= (double)L;
    drop_world(&g, &s);
}

START_TEST(popular_degree_and_pairs_move_their_statistics)
{
    cs_gen_config base = roles_config(40000), c;
    double f0[3], f[3];
    degree_pair_stats(&base, f0);
    c = base;
    c.web.popular_degree = 1.0;
    degree_pair_stats(&c, f);
    ck_assert_msg(f[0] > f0[0] + 0.5,
                  "popular_degree: a link's target's out-degree %g x the mean, "
                  "off %g",
                  f[0], f0[0]);
    c = base;
    c.web.link_pairs = 0.3;
    degree_pair_stats(&c, f);
    ck_assert_msg(f[2] > 2.0 * f0[2] + 10000 && f0[2] >= 0.0 && f[1] > f0[1] + 0.05,
                  "link_pairs: reciprocal links between hosts %g (off %g), reciprocity %g (off %g)",
                  f[2], f0[2], f[1], f0[1]);
}
END_TEST

/* The out-degrees of a world: f[0] the mean, f[1] the median, f[2] the share of pages with one
 * to three links, f[3] the share with 64 or more, over the pages with links. */
static void out_degree_stats(const cs_gen_config *c, double *f)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    int64_t *d = malloc((size_t)s.n * sizeof *d), n = 0, few = 0, many = 0, sum = 0;
    ck_assert_ptr_nonnull(d);
    for (int64_t u = 0; u < s.n; u++) {
        const int64_t k = s.offsets[u + 1] - s.offsets[u];
        if (k == 0)
            continue;
        d[n++] = k, sum += k, few += k <= 3, many += k >= 64;
    }
    ck_assert_int_gt(n, s.n / 2);
    qsort(d, (size_t)n, sizeof *d, cmp_id);
    f[0] = (double)sum / (double)n;
    f[1] = (double)d[n / 2];
    f[2] = (double)few / (double)n;
    f[3] = (double)many / (double)n;
    free(d);
    drop_world(&g, &s);
}

/* degree_sigma: at the same drawn mean, a log-normal degree has a lower median and more
 * link-rich pages than the power law; degree_total: the structure (a tree, a template of 4)
 * counted in the degree leaves pages with one to three links, which without it have none. */
START_TEST(degree_law_moves_its_statistics)
{
    cs_gen_config base = roles_config(20000), c;
    double f0[4], f1[4], f2[4];
    out_degree_stats(&base, f0);
    c = base;
    c.degree_sigma = 1.6;
    out_degree_stats(&c, f1);
    c.degree_total = 1;
    out_degree_stats(&c, f2);
    ck_assert_msg(f1[1] < 0.8 * f0[1] && f1[3] > 1.5 * f0[3] && fabs(f1[0] / f0[0] - 1.0) < 0.15,
                  "degree_sigma: median %g against %g, 64 links or more %g against %g, mean %g "
                  "against %g",
                  f1[1], f0[1], f1[3], f0[3], f1[0], f0[0]);
    ck_assert_msg(f0[2] < 0.01 && f2[2] > 0.15 && f2[0] < f1[0] - 3.0,
                  "degree_total: pages with 1-3 links %g against %g, mean %g against %g", f2[2],
                  f0[2], f2[0], f1[0]);
}
END_TEST

/* The share of a page figure's variance that lies between hosts: sum over hosts of n_h (mean_h -
 * mean)^2 over the sum of squares (x: the figure of each of the n pages, by host h). */
static double between_hosts(const double *x, const int64_t *h, int64_t n, int64_t H)
{
    double *sum = calloc((size_t)H, sizeof *sum), *cnt = calloc((size_t)H, sizeof *cnt), m = 0;
    ck_assert(sum != NULL && cnt != NULL);
    for (int64_t i = 0; i < n; i++)
        sum[h[i]] += x[i], cnt[h[i]] += 1.0, m += x[i] / (double)n;
    double b = 0.0, ss = 0.0;
    for (int64_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    for (int64_t k = 0; k < H; k++)
        if (cnt[k] > 0.0)
            b += cnt[k] * (sum[k] / cnt[k] - m) * (sum[k] / cnt[k] - m);
    free(sum);
    free(cnt);
    return b / ss;
}

/* host_degree, host_dangling: f[0] the log out-degree's share of variance between hosts (pages
 * with links), f[1] the dangling indicator's, f[2] the mean out-degree, f[3] the dangling share. */
static void host_level_stats(const cs_gen_config *c, double *f)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    double *x = malloc(2 * (size_t)s.n * sizeof *x), *z = x + s.n;
    int64_t *h = malloc(2 * (size_t)s.n * sizeof *h), *hz = h + s.n, n = 0, L = 0;
    ck_assert(x != NULL && h != NULL);
    for (int64_t u = 0; u < s.n; u++) {
        const int64_t k = s.offsets[u + 1] - s.offsets[u];
        z[u] = k == 0, hz[u] = s.host[u], L += k;
        if (k > 0)
            x[n] = log((double)k), h[n++] = s.host[u];
    }
    f[0] = between_hosts(x, h, n, cs_gen_n_hosts(g));
    f[1] = between_hosts(z, hz, s.n, cs_gen_n_hosts(g));
    f[2] = (double)L / (double)n;
    f[3] = 1.0 - (double)n / (double)s.n;
    free(x);
    free(h);
    drop_world(&g, &s);
}

/* host_degree and host_dangling move the share of their figure's variance between hosts and
 * leave its law: the mean out-degree and the dangling share (the hosts' levels are few draws, so
 * a few points of noise). */
START_TEST(host_levels_move_their_statistics)
{
    cs_gen_config base = small_config(60000), c;
    base.web.dangling = 0.1;
    double f0[4], f1[4], f2[4];
    host_level_stats(&base, f0);
    c = base;
    c.web.host_degree = 0.8;
    host_level_stats(&c, f1);
    c = base;
    c.web.host_dangling = 0.8;
    host_level_stats(&c, f2);
    ck_assert_msg(f1[0] > f0[0] + 0.3 && fabs(f1[2] / f0[2] - 1.0) < 0.1 &&
                      fabs(f1[1] - f0[1]) < 0.02,
                  "host_degree: between hosts %g (off %g), mean out-degree %g (off %g), dangling "
                  "between hosts %g (off %g)",
                  f1[0], f0[0], f1[2], f0[2], f1[1], f0[1]);
    ck_assert_msg(f2[1] > f0[1] + 0.2 && fabs(f2[3] - f0[3]) < 0.03 && fabs(f2[0] - f0[0]) < 0.03,
                  "host_dangling: between hosts %g (off %g), dangling %g (off %g), log out-degree "
                  "between hosts %g (off %g)",
                  f2[1], f0[1], f2[3], f0[3], f2[0], f0[0]);
}
END_TEST

/* home_links: the share of links into the 1 % of pages with the most in-links (crawlsim stats
 * row in.top1), and no link against the roles (into an IN host or out of an OUT host). */
static double top1_share(const cs_gen_config *c)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    const int64_t N = s.n, L = s.offsets[N];
    int64_t *in = calloc((size_t)N, sizeof *in), against = 0;
    ck_assert_ptr_nonnull(in);
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t v = s.targets[e];
            const int ru = cs_gen_host_role(g, s.host[u]), rv = cs_gen_host_role(g, s.host[v]);
            in[v]++;
            against += s.host[u] != s.host[v] && ((ru & 2) != 0 || (rv & 1) != 0) && ru != rv;
        }
    ck_assert_msg(against == 0, "%lld links against the roles", (long long)against);
    int64_t top = 0, k = (N + 99) / 100;
    for (int64_t i = 0; i < k; i++) { /* the k largest in-degrees, by selection */
        int64_t best = 0;
        for (int64_t v = 1; v < N; v++)
            best = in[v] > in[best] ? v : best;
        top += in[best];
        in[best] = -1;
    }
    free(in);
    drop_world(&g, &s);
    return (double)top / (double)L;
}

START_TEST(home_links_move_their_statistic)
{
    cs_gen_config base = roles_config(20000), c;
    const double t0 = top1_share(&base);
    c = base;
    c.web.home_links = 0.5;
    const double t1 = top1_share(&c);
    ck_assert_msg(t1 > t0 + 0.1, "home_links: links into the top 1 %% %g, off %g", t1, t0);
}
END_TEST

/* site_hosts: a site's hosts share its first host's template, whose targets then collect the
 * links of the whole site (and none against the roles: top1_share checks it) */
START_TEST(site_hosts_move_their_statistic)
{
    cs_gen_config base = roles_config(20000), c;
    base.web.template_links = 8;
    const double t0 = top1_share(&base);
    c = base;
    c.web.site_hosts = 16.0;
    const double t1 = top1_share(&c);
    ck_assert_msg(t1 > 1.2 * t0, "site_hosts: links into the top 1 %% %g, off %g", t1, t0);
}
END_TEST

/* community_hosts: the share of links to a host more than `near` hosts away in another aligned
 * run of w hosts (with near = 16, none with communities and no roles; their share of the links
 * without), and the links stay as many; with near = 0, every link between runs. */
static double far_cross_share(const cs_gen_config *c, int64_t w, int64_t near, int64_t *links)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    int64_t far = 0;
    for (int64_t u = 0; u < s.n; u++)
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t hu = s.host[u], ht = cs_gen_host_of(g, s.targets[e]);
            far += (ht > hu + near || ht < hu - near) && ht / w != hu / w;
        }
    *links = s.offsets[s.n];
    drop_world(&g, &s);
    return (double)far / (double)*links;
}

START_TEST(community_hosts_move_their_statistic)
{
    cs_gen_config c = small_config(40000);
    int64_t l0 = 0, l1 = 0;
    const double f0 = far_cross_share(&c, 64, 16, &l0);
    c.web.community_hosts = 64;
    const double f1 = far_cross_share(&c, 64, 16, &l1);
    ck_assert_msg(f0 > 0.05 && f1 == 0.0,
                  "community_hosts: far links between communities %g, off %g", f1, f0);
    ck_assert_msg(fabs((double)(l1 - l0)) < 0.02 * (double)l0, "links %lld, off %lld",
                  (long long)l1, (long long)l0);
}
END_TEST

/* community_near = 0 (closed communities): no link leaves its source's run of w hosts, with
 * host_cross's neighbours, near links past a host's edge and sites in play (link_pairs and
 * home_links, which may cross, off); with the default 16, links to hosts a few ids away do. */
START_TEST(closed_communities_keep_their_links)
{
    cs_gen_config c = small_config(40000);
    c.web.community_hosts = 32;
    c.web.host_cross = 0.5;
    c.web.near_share = 0.5;
    c.web.tree_branching = 4;
    c.web.template_links = 4;
    c.web.site_hosts = 8.0;
    c.web.out_hosts = 0.3;
    int64_t links = 0;
    const double open = far_cross_share(&c, 32, 0, &links);
    c.web.community_near = 0;
    const double closed = far_cross_share(&c, 32, 0, &links);
    ck_assert_msg(open > 0.01 && closed == 0.0,
                  "links between communities: closed %g, with community_near 16 %g", closed, open);
}
END_TEST

/* closed_own: a closed host's links that would leave it are drawn as its own links, near their
 * source (near_share), instead of uniformly over the host: among the links of closed hosts of
 * 200 pages or more that stay inside, the share at an id gap below 16 rises; the roles hold
 * (no link from a closed host to an open one, nor backwards). */
static double closed_near_share(const cs_gen_config *c, int64_t *breaks)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    int64_t near = 0, inside = 0;
    *breaks = 0;
    for (int64_t u = 0; u < s.n; u++) {
        const int64_t h = s.host[u];
        int64_t first, count;
        cs_gen_host_range(g, h, &first, &count);
        if (!(cs_gen_host_role(g, h) & 2))
            continue;
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t v = s.targets[e], hv = cs_gen_host_of(g, v);
            *breaks += hv != h && (cs_gen_host_role(g, hv) != cs_gen_host_role(g, h) || hv < h);
            if (hv == h && count >= 200) {
                inside++;
                near += llabs(v - u) < 16;
            }
        }
    }
    drop_world(&g, &s);
    return (double)near / (double)inside;
}

START_TEST(closed_own_draws_closed_links_near)
{
    cs_gen_config c = small_config(40000);
    c.host_size_mean = 200.0;
    c.p_host = 0.3; /* most links drawn for elsewhere: kept inside the closed hosts */
    c.web.near_share = 0.8;
    c.web.host_cross = 0.2;
    c.web.out_hosts = 0.5;
    int64_t b0 = 0, b1 = 0;
    const double uniform = closed_near_share(&c, &b0);
    c.web.closed_own = 1;
    const double own = closed_near_share(&c, &b1);
    ck_assert_msg(own > uniform + 0.2, "closed hosts' links at a gap < 16: own %g, uniform %g", own,
                  uniform);
    ck_assert_msg(b0 == 0 && b1 == 0, "links against the roles: %lld, off %lld", (long long)b1,
                  (long long)b0);
}
END_TEST

/* template_menu: the template is the first template_links pages of the host (without sites):
 * every page of a host larger than that links to each of them but itself; off, the popularity
 * draws repeat and miss some. With sites under the bow-tie roles, no menu link goes against a
 * role. */
static int64_t pages_missing_menu(const cs_gen_config *c, int64_t T)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    int64_t missing = 0, first = 0;
    for (int64_t u = 0; u < s.n; u++) {
        if (u == 0 || s.host[u] != s.host[u - 1])
            first = u;
        int64_t end = u;
        while (end < s.n && s.host[end] == s.host[u])
            end++;
        if (end - first <= T)
            continue;
        for (int64_t t = first; t < first + T; t++)
            if (t != u && !has_link(&s, u, t)) {
                missing++;
                break;
            }
    }
    drop_world(&g, &s);
    return missing;
}

START_TEST(template_menu_moves_its_statistic)
{
    cs_gen_config c = small_config(20000);
    c.web.template_links = 6;
    const int64_t off = pages_missing_menu(&c, 6);
    c.web.template_menu = 1;
    const int64_t on = pages_missing_menu(&c, 6);
    ck_assert_msg(on == 0 && off > 1000, "pages without their host's menu: %lld, off %lld",
                  (long long)on, (long long)off);
    /* sites under the bow-tie roles: top1_share fails on a link against them */
    c = roles_config(20000);
    c.web.template_links = 8;
    c.web.site_hosts = 16.0;
    c.web.template_menu = 1;
    ck_assert_double_gt(top1_share(&c), 0.0);
}
END_TEST

/* tree_only: the flagged pages (gen_web.h's hash, recomputed here) receive links only from
 * their directory and their children (the tree of base b, host-local indices), none from a
 * sibling;
 * returns the share of pages with at most 2 in-links. */
static int64_t tree_parent(int64_t i, int64_t b)
{
    int64_t q = 1;
    while ((i / q) % b == 0)
        q *= b;
    return i - (i / q) % b * q;
}

/* Whether host-local index a is an ancestor of j (a directory on the way from j to the root). */
static int tree_ancestor(int64_t a, int64_t j, int64_t b)
{
    while (j > 0 && j != a)
        j = tree_parent(j, b);
    return j == a;
}

/* The ids the subtree of host-local index j spans: b^k, k its trailing zero base-b digits; the
 * whole host (n) for the root. */
static int64_t subtree_span(int64_t j, int64_t b, int64_t n)
{
    if (j == 0)
        return n;
    int64_t q = 1;
    while (j % (q * b) == 0)
        q *= b;
    return q;
}

/* Whether page v carries gen.tree_only's flag (gen_web.h is_tree_only, but a host's first page). */
static int tree_only_flag(const cs_gen_config *c, int64_t v)
{
    const uint64_t key = cs_mix64((uint64_t)c->seed ^ CS_HASH_TREE_ONLY);
    return (double)(cs_mix64((uint64_t)v + key) >> 11) * 0x1.0p-53 < c->web.tree_only;
}

/* lifted: the share of the links into flagged pages that come from an ancestor above the page's
 * directory (gen.tree_lift); *widest, when not NULL: the largest subtree span of such an
 * ancestor (gen.tree_lift_span) */
static double tree_only_stats(const cs_gen_config *c, double *lifted, int64_t *widest)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    const int64_t N = s.n, b = c->web.tree_branching;
    int64_t *in = calloc((size_t)N, sizeof *in), *first = malloc((size_t)N * sizeof *first);
    ck_assert(in != NULL && first != NULL);
    for (int64_t v = 0; v < N; v++) /* a host's first page: hosts are ranges of ids */
        first[v] = v > 0 && s.host[v] == s.host[v - 1] ? first[v - 1] : v;
    int64_t flagged = 0, against = 0, above = 0;
    if (widest != NULL)
        *widest = 0;
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t v = s.targets[e];
            in[v]++;
            if (v == first[v] || !tree_only_flag(c, v))
                continue;
            flagged++;
            const int64_t i = v - first[v], j = u - first[v];
            const int same = s.host[u] == s.host[v] && j >= 0;
            const int from_dir = same && i > 0 && tree_parent(i, b) == j;
            const int from_above = same && i > 0 && !from_dir && tree_ancestor(j, i, b);
            /* with tree_lift_span a lifted page links up to its listing, an ancestor */
            const int from_child =
                same && j > 0 &&
                (tree_parent(j, b) == i || (c->web.tree_lift_span > 0 && tree_ancestor(i, j, b)));
            against += !(from_dir || from_above || from_child);
            above += from_above;
            if (from_above && widest != NULL && subtree_span(j, b, N) > *widest)
                *widest = subtree_span(j, b, N);
        }
    ck_assert_msg(against == 0, "%lld of %lld links into tree_only pages not from the tree",
                  (long long)against, (long long)flagged);
    *lifted = flagged > 0 ? (double)above / (double)flagged : 0.0;
    int64_t low = 0;
    for (int64_t v = 0; v < N; v++)
        low += in[v] <= 2;
    free(in);
    free(first);
    drop_world(&g, &s);
    return (double)low / (double)N;
}

START_TEST(tree_only_moves_its_statistic)
{
    cs_gen_config base = roles_config(20000), c;
    base.web.link_pairs = 0.2;
    base.web.tree_siblings = 0.5;
    double up0, up1;
    const double l0 = tree_only_stats(&base, &up0, NULL);
    c = base;
    c.web.tree_only = 0.4;
    const double l1 = tree_only_stats(&c, &up1, NULL);
    ck_assert_msg(l1 > l0 + 0.2, "tree_only: pages with at most 2 in-links %g, off %g", l1, l0);
    ck_assert_msg(up1 == 0.0, "tree_only without tree_lift: %g of the links from above", up1);
}
END_TEST

/* The share of the links from a listing (an ancestor above the page's directory, not the home
 * page, which the template links to) into tree_only pages that the page links back (with
 * tree_lift_span, its link up goes to its listing). */
static double listing_back_share(const cs_gen_config *c)
{
    cs_gen *g;
    cs_graph_slice s;
    whole_world(c, &g, &s);
    const int64_t b = c->web.tree_branching;
    int64_t n = 0, back = 0;
    for (int64_t u = 0, first = 0; u < s.n; u++) {
        first = u > 0 && s.host[u] == s.host[u - 1] ? first : u;
        for (int64_t e = s.offsets[u]; e < s.offsets[u + 1]; e++) {
            const int64_t v = s.targets[e], i = v - first, j = u - first;
            if (s.host[v] != s.host[u] || i <= 0 || j <= 0 || /* not from the home page */
                !tree_only_flag(c, v) || j == tree_parent(i, b) || !tree_ancestor(j, i, b))
                continue;
            n++;
            back += has_link(&s, v, u);
        }
    }
    drop_world(&g, &s);
    return n > 0 ? (double)back / (double)n : 0.0;
}

/* tree_lift: the links into tree_only pages come from ancestors above their directory, each page
 * keeping one (the share of pages with at most 2 in-links does not fall), up to the host's first
 * page; with tree_lift_span from none whose subtree spans more ids */
START_TEST(tree_lift_moves_its_statistic)
{
    cs_gen_config c = roles_config(20000);
    c.web.tree_only = 0.5;
    c.web.tree_branching = 4; /* deep trees: most pages have ancestors above their directory */
    double up0, up1, up2;
    int64_t w1, w2;
    const double l0 = tree_only_stats(&c, &up0, NULL);
    c.web.tree_lift = 0.6;
    const double l1 = tree_only_stats(&c, &up1, &w1);
    ck_assert_msg(up0 == 0.0 && up1 > 0.15, "tree_lift: links from above %g, off %g", up1, up0);
    ck_assert_msg(l1 > l0 - 0.02, "tree_lift: pages with at most 2 in-links %g, off %g", l1, l0);
    c.web.tree_lift = 0.9;
    c.web.tree_lift_span = 16;
    const double l2 = tree_only_stats(&c, &up2, &w2);
    ck_assert_msg(w1 > 16 && w2 == 16 && up2 > 0.08 && l2 > l0 - 0.02,
                  "tree_lift_span 16: widest listing %lld (without: %lld), links from above %g, "
                  "pages with at most 2 in-links %g",
                  (long long)w2, (long long)w1, up2, l2);
    const double back = listing_back_share(&c); /* items link back to their listing */
    c.web.tree_lift_span = 0;
    const double back0 = listing_back_share(&c);
    ck_assert_msg(back > 0.8 && back0 < 0.5,
                  "tree_lift_span: listed pages linking back %g, without the span %g", back, back0);
}
END_TEST

/* The mean over the pages with a directory of the share of their out-links that the directory
 * page links to as well (the pages of a host in a tree of base 8, no tree_only pages); with
 * `previous`, over the pages after their host's first, of those the page before it links to. */
static double parent_share(const cs_gen_config *c, int previous)
{
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, c, &g), CS_OK);
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, c->pages, &s, NULL), CS_OK);
    const int64_t b = c->web.tree_branching;
    double sum = 0.0;
    int64_t n = 0;
    for (int64_t p = 0; p < c->pages; p++) {
        int64_t first, count;
        cs_gen_host_range(g, s.host[p], &first, &count);
        const int64_t i = p - first;
        if (i == 0 || s.offsets[p + 1] == s.offsets[p])
            continue;
        int64_t q = 1;
        while (!previous && (i / q) % b == 0)
            q *= b;
        const int64_t par = previous ? p - 1 : first + i - (i / q) % b * q;
        int64_t both = 0; /* both lists are sorted: a merge */
        for (int64_t x = s.offsets[p], y = s.offsets[par];
             x < s.offsets[p + 1] && y < s.offsets[par + 1];) {
            const int64_t tx = s.targets[x], ty = s.targets[y];
            both += tx == ty;
            x += tx <= ty;
            y += ty <= tx;
        }
        sum += (double)both / (double)(s.offsets[p + 1] - s.offsets[p]);
        n++;
    }
    cs_graph_slice_fini(&s);
    cs_gen_destroy(&g);
    return sum / (double)n;
}

/* copy_links: a page repeats most of its directory page's drawn links (the out-degree stays);
 * host_pool: most of those of the page before it in its host, where the pages' own draws share
 * few (the degree falls by the repeats dropped) */
START_TEST(copied_links_move_their_statistic)
{
    static const char *const what[2] = {"copy_links: its directory", "host_pool: the page before"};
    for (int previous = 0; previous < 2; previous++) {
        cs_gen_config c = roles_config(20000);
        c.web.near_share = 0.5;
        const double s0 = parent_share(&c, previous);
        if (previous)
            c.web.host_pool = 1.0;
        else
            c.web.copy_links = 0.8;
        const double s1 = parent_share(&c, previous);
        ck_assert_msg(s1 > s0 + (previous ? 0.2 : 0.1),
                      "%s: share of a page's links it has %g, off %g", what[previous], s1, s0);
    }
}
END_TEST

START_TEST(mechanisms_are_pure)
{
    const int64_t N = 30011;
    cs_gen_config c = web_like_config(N);
    c.degree_sigma = 1.1; /* the log-normal degrees, the structure counted in them */
    c.degree_total = 1;
    c.web.tree_lift_span = 36; /* listings of at most 36 ids (base 6) */
    cs_gen *g = NULL;
    ck_assert_int_eq(cs_gen_create(&ctx, &c, &g), CS_OK);
    cs_graph_slice whole, a, b;
    cs_graph_slice_init(&whole);
    cs_graph_slice_init(&a);
    cs_graph_slice_init(&b);
    omp_set_num_threads(1);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, N, &whole, NULL), CS_OK);
    omp_set_num_threads(3);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 0, 9999, &a, NULL), CS_OK);
    ck_assert_int_eq(cs_gen_slice(&ctx, g, 9999, N - 9999, &b, NULL), CS_OK);
    ck_assert(slices_equal_at(&whole, &a));
    ck_assert(slices_equal_at(&whole, &b));
    /* pages asked one by one in a scattered order, as the procedural world asks */
    const int64_t n = 5000;
    int64_t *ids = malloc((size_t)n * sizeof *ids);
    ck_assert_ptr_nonnull(ids);
    for (int64_t i = 0; i < n; i++)
        ids[i] = (int64_t)(cs_mix64((uint64_t)i) % (uint64_t)N);
    cs_graph_slice_fini(&a);
    ck_assert_int_eq(cs_gen_pages(&ctx, g, ids, n, &a), CS_OK);
    int64_t same = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = ids[i], d = whole.offsets[p + 1] - whole.offsets[p];
        same += a.offsets[i + 1] - a.offsets[i] == d &&
                memcmp(a.targets + a.offsets[i], whole.targets + whole.offsets[p],
                       (size_t)d * sizeof(int64_t)) == 0;
    }
    ck_assert_int_eq(same, n);
    /* the invariants of every world: sorted, unique, no self links */
    for (int64_t i = 0; i < N; i++)
        for (int64_t e = whole.offsets[i]; e < whole.offsets[i + 1]; e++) {
            ck_assert_int_ne(whole.targets[e], i);
            if (e > whole.offsets[i])
                ck_assert_int_gt(whole.targets[e], whole.targets[e - 1]);
        }
    free(ids);
    omp_set_num_threads(1);
    cs_graph_slice_fini(&whole);
    cs_graph_slice_fini(&a);
    cs_graph_slice_fini(&b);
    cs_gen_destroy(&g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, pure_function_of_page_id);
    tcase_add_test(tc, link_invariants);
    tcase_add_test(tc, statistics_follow_the_parameters);
    tcase_add_test(tc, terms_are_noisy_evidence);
    tcase_add_test(tc, rank_thresholds_keep_the_world);
    tcase_add_test(tc, term_normals_choose_the_draw);
    tcase_add_test(tc, impossible_parameters_are_errors);
    tcase_add_test(tc, tiny_worlds);
    tcase_add_test(tc, host_of_every_page);
    tcase_add_test(tc, rate_range_is_the_exhaustive_ones);
    tcase_add_test(tc, sampled_host_graph);
    tcase_add_test(tc, sampled_parts_are_thread_invariant);
    tcase_add_test(tc, mechanisms_move_their_statistics);
    tcase_add_test(tc, roles_and_snap_move_their_statistics);
    tcase_add_test(tc, popular_degree_and_pairs_move_their_statistics);
    tcase_add_test(tc, host_levels_move_their_statistics);
    tcase_add_test(tc, degree_law_moves_its_statistics);
    tcase_add_test(tc, home_links_move_their_statistic);
    tcase_add_test(tc, tree_only_moves_its_statistic);
    tcase_add_test(tc, site_hosts_move_their_statistic);
    tcase_add_test(tc, template_menu_moves_its_statistic);
    tcase_add_test(tc, tree_lift_moves_its_statistic);
    tcase_add_test(tc, copied_links_move_their_statistic);
    tcase_add_test(tc, community_hosts_move_their_statistic);
    tcase_add_test(tc, closed_communities_keep_their_links);
    tcase_add_test(tc, closed_own_draws_closed_links_near);
    tcase_add_test(tc, mechanisms_are_pure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
