/*
 * check_cache: unit tests of the page cache and its staleness accounting (cache.h), serial,
 * forked.
 *
 * The change stream is a pure function of (seed, page): the times the cache draws (with seeks,
 * whatever the crawl times) are those of the reference read of the stream; the staleness
 * integrals of Eq. 1 (harmonic and binary) against a brute-force sweep of the piecewise-constant
 * penalty over the same change and crawl times, for incomplete pages and for complete pages
 * crawled on notifications; the totals are the same bits whatever the poll window, the order of
 * the pages and the thread count; close; the exact accumulator; H(n); bytes per page.
 */
#include "crawlsim/cache.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"
#include "refresh/refresh_impl.h"

#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fmax(fabs(a), fabs(b)), 1e-300);
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Brute force: integral over [t0, t_end] of H(N(t)) and 1{N(t) > 0}, N the changes since the
 * last crawl, by sweeping the merged change and crawl times (the penalty is piecewise constant). */
static void sweep(const double *ch, int64_t nch, const double *cr, int64_t ncr, double t0,
                  double t_end, long double *h, long double *b)
{
    int64_t a = 0, c = 0, n = 0;
    double t = t0;
    long double H = 0.0L;
    *h = *b = 0.0L;
    while (a < nch && ch[a] <= t0)
        a++;
    for (;;) {
        const double tc = a < nch && ch[a] <= t_end ? ch[a] : INFINITY;
        const double tk = c < ncr ? cr[c] : INFINITY;
        const double tn = fmin(fmin(tc, tk), t_end);
        *h += H * (long double)(tn - t);
        *b += (n > 0 ? 1.0L : 0.0L) * (long double)(tn - t);
        t = tn;
        if (tn == t_end && !(tc <= t_end && tc <= tk) && !(tk < t_end))
            break;
        if (tc <= tk) { /* a change (a crawl at the same instant comes after it) */
            n++;
            H += 1.0L / (long double)n;
            a++;
        } else {
            n = 0;
            H = 0.0L;
            c++;
        }
    }
}

START_TEST(test_stream_pure)
{
    /* crawl one page at irregular times; the change counts between crawls must match the
     * reference read of the stream, for several pages and rates */
    const double deltas[3] = {0.37, 3.0, 41.0};
    for (int p = 0; p < 3; p++) {
        const int64_t id = 1000003 + p;
        double ref[4096];
        const int64_t nref = cs_cache_change_times(5, id, deltas[p], 50.0, ref, 4096);
        ck_assert(nref > 5 && nref < 4096);
        int64_t ids[1] = {id};
        double mu[1] = {1.0}, de[1] = {deltas[p]};
        cs_cache_pages pg = {1, ids, mu, de, NULL};
        cs_cache_opts o;
        cs_cache_opts_default(&o);
        o.seed = 5;
        for (int variant = 0; variant < 2; variant++) {
            cs_cache *c = NULL;
            ck_assert(cs_cache_create(&ctx, &pg, &o, &c) == CS_OK);
            const double t_add = variant ? 3.3 : 0.0;
            ck_assert(cs_cache_add(c, 0, t_add) == CS_OK);
            double t = t_add;
            int64_t a = 0;
            while (a < nref && ref[a] <= t_add)
                a++;
            cs_rng r;
            cs_rng_init(&r, 9 + (uint64_t)variant, CS_RNG_TEST, (uint64_t)p, 0);
            while (t < 50.0) {
                t = fmin(50.0, t + cs_rng_exponential(&r, variant ? 0.5 : 4.0));
                uint32_t got = 0;
                ck_assert(cs_cache_crawl(c, 0, t, NULL, NULL, &got) == CS_OK);
                uint32_t want = 0;
                while (a < nref && ref[a] <= t) {
                    a++;
                    want++;
                }
                ck_assert_msg(got == want, "page %d: %u changes, reference %u", p, got, want);
            }
            cs_cache_destroy(&c);
            ck_assert(c == NULL);
        }
    }
    /* a different seed or page gives different times */
    double a1[4], a2[4], a3[4];
    cs_cache_change_times(5, 7, 1.0, 100.0, a1, 4);
    cs_cache_change_times(6, 7, 1.0, 100.0, a2, 4);
    cs_cache_change_times(5, 8, 1.0, 100.0, a3, 4);
    ck_assert(!same(a1[0], a2[0]) && !same(a1[0], a3[0]));
}
END_TEST

/* A world of n pages; half complete when with_complete. */
typedef struct world {
    int64_t n;
    int64_t *id;
    double *mu, *delta;
    uint8_t *complete;
    cs_cache_pages pg;
} world;

static world make_world(int64_t n, int with_complete)
{
    world w;
    w.n = n;
    w.id = malloc((size_t)n * sizeof *w.id);
    w.mu = malloc((size_t)n * sizeof *w.mu);
    w.delta = malloc((size_t)n * sizeof *w.delta);
    w.complete = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        cs_rng r;
        cs_rng_init(&r, 3, CS_RNG_TEST, (uint64_t)i, 7);
        w.id[i] = 5000 + 17 * i;
        w.mu[i] = cs_rng_pareto(&r, 1.0, 2.5);
        w.delta[i] = cs_rng_lognormal(&r, 0.0, 1.0);
        w.complete[i] = (uint8_t)(with_complete && (i % 2 == 1));
    }
    w.pg = (cs_cache_pages){n, w.id, w.mu, w.delta, w.complete};
    return w;
}

static void drop_world(world *w)
{
    free(w->id);
    free(w->mu);
    free(w->delta);
    free(w->complete);
}

/* The callback of the brute-force test: crawl on a notification with probability 1/2 (a pure
 * function of page and change index), and record the crawl. */
typedef struct rec {
    double *cr[64];
    int64_t ncr[64];
    const world *w;
} rec;

static int on_change(void *arg, int64_t page, double tau, uint64_t k)
{
    rec *r = arg;
    cs_rng g;
    cs_rng_init(&g, 11, CS_RNG_TEST, (uint64_t)page, k);
    if (cs_rng_uniform(&g) < 0.5) {
        r->cr[page][r->ncr[page]++] = tau;
        return 1;
    }
    return 0;
}

START_TEST(test_staleness_brute_force)
{
    const int64_t n = 24;
    world w = make_world(n, 1);
    cs_cache_opts o;
    cs_cache_opts_default(&o);
    o.seed = 42;
    o.queue_width = 0.3;
    o.queue_slots = 4; /* few buckets: many years wrap */
    cs_cache *c = NULL;
    ck_assert(cs_cache_create(&ctx, &w.pg, &o, &c) == CS_OK);
    rec r;
    memset(&r, 0, sizeof r);
    r.w = &w;
    for (int64_t i = 0; i < n; i++) {
        r.cr[i] = malloc(100000 * sizeof(double));
        ck_assert(cs_cache_add(c, i, i % 3 == 0 ? 0.0 : 0.5) == CS_OK);
    }
    /* incomplete pages: Poisson crawls at rate 0.7, processed tick by tick with the polls */
    double next[64];
    for (int64_t i = 0; i < n; i++) {
        cs_rng g;
        cs_rng_init(&g, 12, CS_RNG_TEST, (uint64_t)i, 0);
        next[i] = (i % 3 == 0 ? 0.0 : 0.5) + cs_rng_exponential(&g, 0.7);
    }
    const double T = 60.0, dt = 0.25;
    for (double t = 0.5; t < T; t += dt) {
        const double hi = fmin(T, t + dt);
        for (int64_t i = 0; i < n; i++) {
            if (w.complete[i])
                continue;
            while (next[i] <= hi) {
                ck_assert(cs_cache_crawl(c, i, next[i], on_change, &r, NULL) == CS_OK);
                r.cr[i][r.ncr[i]++] = next[i];
                cs_rng g;
                cs_rng_init(&g, 12, CS_RNG_TEST, (uint64_t)i, (uint64_t)r.ncr[i]);
                next[i] += cs_rng_exponential(&g, 0.7);
            }
        }
        ck_assert(cs_cache_poll(c, hi, on_change, &r, NULL, NULL) == CS_OK);
        /* every third step, the changes so far of the pages without notifications move into
         * the sums (as at a re-solve): the integrals below must not see the difference */
        if ((int64_t)(t / dt) % 3 == 0)
            cs_cache_settle(c, hi);
    }
    /* a crawl of a complete page outside the notifications, and the integrals before close */
    ck_assert(cs_cache_crawl(c, 1, T, on_change, &r, NULL) == CS_OK);
    r.cr[1][r.ncr[1]++] = T;
    double ih = 0, ib = 0;
    cs_cache_integrals_local(c, T, &ih, &ib);
    long double bh = 0.0L, bb = 0.0L;
    int64_t crawled_complete = 0;
    for (int64_t i = 0; i < n; i++) {
        static double ch[100000];
        const int64_t nch = cs_cache_change_times(42, w.id[i], w.delta[i], T, ch, 100000);
        ck_assert(nch < 100000);
        long double h, b;
        sweep(ch, nch, r.cr[i], r.ncr[i], i % 3 == 0 ? 0.0 : 0.5, T, &h, &b);
        bh += (long double)w.mu[i] * h;
        bb += (long double)w.mu[i] * b;
        if (w.complete[i])
            crawled_complete += r.ncr[i];
    }
    ck_assert(crawled_complete > 100); /* the notification path was exercised */
    ck_assert_msg(rel(ih, (double)bh) < 1e-11, "harmonic %.17g vs brute force %.17g", ih,
                  (double)bh);
    ck_assert_msg(rel(ib, (double)bb) < 1e-11, "binary %.17g vs brute force %.17g", ib, (double)bb);
    ck_assert(ih > ib); /* H(n) >= 1{n > 0}, strictly with multiple changes */
    /* close keeps the integrals and freezes the cache */
    ck_assert(cs_cache_close(c, T) == CS_OK);
    double ih2 = 0, ib2 = 0;
    cs_cache_integrals_local(c, T, &ih2, &ib2);
    ck_assert(same(ih, ih2) && same(ib, ib2));
    ck_assert(cs_cache_crawl(c, 0, T + 1, NULL, NULL, NULL) == CS_ERR_ARG);
    ck_assert(cs_cache_poll(c, T + 1, on_change, &r, NULL, NULL) == CS_ERR_ARG);
    ck_assert(cs_cache_close(c, T + 1) == CS_ERR_ARG);
    for (int64_t i = 0; i < n; i++)
        free(r.cr[i]);
    cs_cache_destroy(&c);
    drop_world(&w);
}
END_TEST

START_TEST(test_hand_case)
{
    /* one page; the integral between two crawls by the formula of the issue, by hand from the
     * reference change times: sum_i (1/i)(t2 - tau_i) and t2 - tau_1 */
    double ch[8];
    const int64_t nch = cs_cache_change_times(1, 99, 2.0, 10.0, ch, 8);
    ck_assert(nch >= 4);
    int64_t id[1] = {99};
    double mu[1] = {3.0}, de[1] = {2.0};
    cs_cache_pages pg = {1, id, mu, de, NULL};
    cs_cache_opts o;
    cs_cache_opts_default(&o);
    o.seed = 1;
    cs_cache *c = NULL;
    ck_assert(cs_cache_create(&ctx, &pg, &o, &c) == CS_OK);
    ck_assert(cs_cache_add(c, 0, 0.0) == CS_OK);
    const double t1 = 0.5 * (ch[0] + ch[1]), t2 = ch[3] + 1e-3; /* crawls */
    uint32_t z = 0;
    ck_assert(cs_cache_crawl(c, 0, t1, NULL, NULL, &z) == CS_OK);
    ck_assert_uint_eq(z, 1);
    /* the second interval's first change moved into the sums before its crawl: the crawl still
     * counts all three, and the integrals below are the formula's */
    cs_cache_settle(c, 0.5 * (ch[1] + ch[2]));
    ck_assert(cs_cache_crawl(c, 0, t2, NULL, NULL, &z) == CS_OK);
    ck_assert_uint_eq(z, 3);
    double ih, ib;
    cs_cache_integrals_local(c, t2, &ih, &ib);
    const double want_h =
        3.0 * ((t1 - ch[0]) + (t2 - ch[1]) + (t2 - ch[2]) / 2.0 + (t2 - ch[3]) / 3.0);
    const double want_b = 3.0 * ((t1 - ch[0]) + (t2 - ch[1]));
    ck_assert_msg(rel(ih, want_h) < 1e-14, "%.17g vs %.17g", ih, want_h);
    ck_assert_msg(rel(ib, want_b) < 1e-14, "%.17g vs %.17g", ib, want_b);
    /* the open interval at a later time, read only */
    const double t3 = ch[3] + 5.0;
    double ih3, ib3;
    cs_cache_integrals_local(c, t3, &ih3, &ib3);
    double more[64];
    const int64_t nm = cs_cache_change_times(1, 99, 2.0, t3, more, 64);
    double oh = 0.0, ob = 0.0;
    for (int64_t a = 4, j = 1; a < nm; a++, j++) {
        oh += (t3 - more[a]) / (double)j;
        if (j == 1)
            ob = t3 - more[a];
    }
    ck_assert(rel(ih3, want_h + 3.0 * oh) < 1e-13);
    ck_assert(rel(ib3, want_b + 3.0 * ob) < 1e-13);
    /* errors */
    ck_assert(cs_cache_add(c, 0, 1.0) == CS_ERR_ARG); /* already cached */
    ck_assert(cs_cache_add(c, 1, 1.0) == CS_ERR_ARG); /* out of range */
    ck_assert(!cs_cache_has(c, 1));
    cs_cache_destroy(&c);
    cs_cache_destroy(&c); /* NULL accepted */
}
END_TEST

/* Crawls on a notification with probability 1/2 (a function of page and change index). */
static int on_change_noop_crawl(void *arg, int64_t page, double tau, uint64_t k)
{
    (void)arg;
    (void)tau;
    cs_rng g;
    cs_rng_init(&g, 11, CS_RNG_TEST, (uint64_t)page, k);
    return cs_rng_uniform(&g) < 0.5;
}

/* The totals of a run with poll window dt over pages visited in order `perm` (or reversed). */
static void run_world(const world *w, double dt, int reverse, double *ih, double *ib,
                      int64_t *crawls)
{
    cs_cache_opts o;
    cs_cache_opts_default(&o);
    o.seed = 7;
    o.queue_width = dt;
    cs_cache *c = NULL;
    ck_assert(cs_cache_create(&ctx, &w->pg, &o, &c) == CS_OK);
    rec r;
    memset(&r, 0, sizeof r);
    for (int64_t j = 0; j < w->n; j++)
        ck_assert(cs_cache_add(c, reverse ? w->n - 1 - j : j, 0.0) == CS_OK);
    ck_assert(w->n > 0);
    double *next = malloc((size_t)w->n * sizeof *next);
    uint32_t *cnt = calloc((size_t)w->n, sizeof *cnt);
    for (int64_t i = 0; i < w->n; i++) {
        cs_rng g;
        cs_rng_init(&g, 12, CS_RNG_TEST, (uint64_t)i, 0);
        next[i] = cs_rng_exponential(&g, 0.5);
    }
    const double T = 20.0;
    const int steps = (int)ceil(T / dt);
    for (int s = 0; s < steps; s++) {
        const double hi = fmin(T, (s + 1) * dt);
        for (int64_t j = 0; j < w->n; j++) {
            const int64_t i = reverse ? w->n - 1 - j : j;
            if (w->complete[i])
                continue;
            while (next[i] <= hi) {
                ck_assert(cs_cache_crawl(c, i, next[i], NULL, NULL, NULL) == CS_OK);
                cs_rng g;
                cs_rng_init(&g, 12, CS_RNG_TEST, (uint64_t)i, ++cnt[i]);
                next[i] += cs_rng_exponential(&g, 0.5);
            }
        }
        ck_assert(cs_cache_poll(c, hi, on_change_noop_crawl, NULL, NULL, NULL) == CS_OK);
    }
    cs_cache_integrals_local(c, T, ih, ib);
    cs_cache_stats st;
    cs_cache_get_stats(c, &st);
    *crawls = st.crawls;
    free(next);
    free(cnt);
    cs_cache_destroy(&c);
}

START_TEST(test_order_window_threads)
{
    world w = make_world(2000, 1);
    double h1, b1, h2, b2, h3, b3, h4, b4;
    int64_t c1, c2, c3, c4;
    run_world(&w, 0.25, 0, &h1, &b1, &c1);
    run_world(&w, 1.0 / 64.0, 1, &h2, &b2, &c2); /* other window, other page order */
    run_world(&w, 20.0, 0, &h3, &b3, &c3);       /* one window */
    omp_set_num_threads(2);
    run_world(&w, 0.25, 1, &h4, &b4, &c4);
    omp_set_num_threads(1);
    ck_assert(c1 > 10000 && c1 == c2 && c1 == c3 && c1 == c4);
    ck_assert_msg(same(h1, h2) && same(h1, h3) && same(h1, h4), "%.17g %.17g %.17g %.17g", h1, h2,
                  h3, h4);
    ck_assert(same(b1, b2) && same(b1, b3) && same(b1, b4));
    drop_world(&w);
}
END_TEST

START_TEST(test_xsum)
{
    /* the same terms in two orders: the same bits; against a long double sum */
    enum { N = 100000 };
    static double x[N];
    long double ref = 0.0L;
    for (int i = 0; i < N; i++) {
        cs_rng r;
        cs_rng_init(&r, 1, CS_RNG_TEST, (uint64_t)i, 3);
        x[i] = (cs_rng_uniform(&r) - 0.3) * ldexp(1.0, (int)cs_rng_below(&r, 80) - 40);
        ref += (long double)x[i];
    }
    cs_xsum a, b, c2;
    cs_xsum_zero(&a);
    cs_xsum_zero(&b);
    for (int i = 0; i < N; i++)
        cs_xsum_add(&a, x[i]);
    for (int i = N - 1; i >= 0; i--)
        cs_xsum_add(&b, x[i]);
    ck_assert(same(cs_xsum_value(&a), cs_xsum_value(&b)));
    ck_assert(rel(cs_xsum_value(&a), (double)ref) < 1e-15);
    /* split in two halves, merged */
    cs_xsum_zero(&c2);
    cs_xsum h2;
    cs_xsum_zero(&h2);
    for (int i = 0; i < N; i++)
        cs_xsum_add(i % 2 ? &c2 : &h2, x[i]);
    cs_xsum_merge(&c2, &h2);
    ck_assert(same(cs_xsum_value(&a), cs_xsum_value(&c2)));
    /* exact cancellation of big terms leaves the small ones */
    cs_xsum_zero(&a);
    cs_xsum_add(&a, 1e12);
    cs_xsum_add(&a, 1e-9);
    cs_xsum_add(&a, -1e12);
    ck_assert(cs_xsum_value(&a) == 1e-9);
    cs_xsum_add(&a, -2e-9);
    ck_assert(cs_xsum_value(&a) == -1e-9);
    /* one term alone: its value truncated towards zero to a multiple of 2^-CS_XSUM_LOW (what
     * lies below the lowest bit is dropped), for normal and subnormal terms, terms below the
     * lowest bit and across it, large ones, zeros of both signs; what is not finite is ignored */
    const double edge[] = {1.0,
                           -1.0,
                           0.0,
                           -0.0,
                           0x1p-192,
                           0x1.8p-200,
                           0x1.fffp-190,
                           -0x1p-255,
                           0x1p-256,
                           0x1p-1074,
                           -0x1p-1022,
                           0x1p+150,
                           -0x1.fffffffffffffp+150,
                           3e-60,
                           -7.25,
                           INFINITY,
                           -INFINITY,
                           NAN,
                           0x1.23456789abcdep-100};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        const double x = edge[i];
        const double want =
            isfinite(x) ? copysign(ldexp(floor(ldexp(fabs(x), CS_XSUM_LOW)), -CS_XSUM_LOW), x)
                        : 0.0;
        cs_xsum e;
        cs_xsum_zero(&e);
        cs_xsum_add(&e, x);
        ck_assert_msg(cs_xsum_value(&e) == want, "term %a: %a, want %a", x, cs_xsum_value(&e),
                      want);
    }
}
END_TEST

START_TEST(test_harmonic)
{
    long double h = 0.0L;
    for (uint64_t n = 1; n <= 200000; n++) {
        h += 1.0L / (long double)n;
        if (n <= 100 || n % 997 == 0)
            ck_assert_msg(rel(cs_cache_harmonic(n), (double)h) < 2e-15, "H(%llu)",
                          (unsigned long long)n);
    }
    ck_assert(cs_cache_harmonic(0) == 0.0);
}
END_TEST

START_TEST(test_bytes_per_page)
{
    /* 10^5 pages, 4 % and 100 % complete, all cached: 53 bytes a slot, the sort's scratch (4
     * bytes a join: none sorted yet), the map (8 to 16) and the queue (at most 4 bytes a complete
     * page) */
    const int64_t n = 100000;
    world w = make_world(n, 0);
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0; i < n; i++)
            w.complete[i] = (uint8_t)(pass == 1 || i % 25 == 0);
        cs_cache *c = NULL;
        ck_assert(cs_cache_create(&ctx, &w.pg, NULL, &c) == CS_OK);
        for (int64_t i = 0; i < n; i++)
            ck_assert(cs_cache_add(c, i, 0.0) == CS_OK);
        cs_cache_stats st;
        cs_cache_get_stats(c, &st);
        ck_assert(st.cached == n);
        const double per = (double)cs_cache_bytes(c) / (double)st.cached;
        ck_assert_msg(per <= 77.0 && per >= 65.0, "%.2f bytes per cached page", per);
        cs_cache_destroy(&c);
    }
    drop_world(&w);
}
END_TEST

/* The cache is O(pages cached): 1 % of 10^6 pages cached in a scrambled order costs their slots,
 * the map and the queue (sized by the complete pages of all 10^6: 4 % of them, half a bucket
 * each), nothing per page not cached; the slots in local order are increasing whatever the
 * order of the joins (the order of the sums over pages). */
START_TEST(test_sparse_slots)
{
    const int64_t n = 1000000, m = 10000;
    world w = make_world(n, 0);
    for (int64_t i = 0; i < n; i++)
        w.complete[i] = (uint8_t)(i % 25 == 0);
    cs_cache *c = NULL;
    ck_assert(cs_cache_create(&ctx, &w.pg, NULL, &c) == CS_OK);
    const uint32_t *ord = NULL;
    int64_t got = 0;
    for (int64_t j = 0; j < m; j++) {
        const int64_t li = (j * 7919 + 13) % n; /* distinct: 7919 is prime to 10^6 */
        int64_t s = -1;
        ck_assert(cs_cache_add_slot(c, li, 0.0, &s) == CS_OK && s == j);
        ck_assert(cs_cache_slot(c, li) == j);
        if (j == m / 2) { /* a sort half way: the later joins are merged in */
            ord = cs_cache_sorted(c, &got);
            ck_assert(got == j + 1);
            cs_cache_slot_view h;
            cs_cache_slots(c, &h);
            for (int64_t k = 1; k < got; k++)
                ck_assert(h.local[ord[k - 1]] < h.local[ord[k]]);
        }
    }
    ck_assert(!cs_cache_has(c, 1) && cs_cache_slot(c, 2) < 0);
    ord = cs_cache_sorted(c, &got);
    cs_cache_slot_view v;
    cs_cache_slots(c, &v);
    ck_assert(got == m && v.n == m);
    for (int64_t j = 1; j < m; j++)
        ck_assert(v.local[ord[j - 1]] < v.local[ord[j]]);
    const double queue = 4.0 * 32768; /* n / 25 / 2 = 20 000 buckets, rounded up */
    const double per = ((double)cs_cache_bytes(c) - queue) / (double)m;
    ck_assert_msg(per <= 73.0 && per >= 57.0, "%.2f bytes per cached page", per);
    cs_cache_destroy(&c);
    drop_world(&w);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("cache");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_stream_pure);
    tcase_add_test(tc, test_hand_case);
    tcase_add_test(tc, test_staleness_brute_force);
    tcase_add_test(tc, test_order_window_threads);
    tcase_add_test(tc, test_xsum);
    tcase_add_test(tc, test_harmonic);
    tcase_add_test(tc, test_bytes_per_page);
    tcase_add_test(tc, test_sparse_slots);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
