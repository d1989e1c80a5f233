/*
 * gen: the synthetic web model of DESIGN.md "The world".
 *
 * Layout. Hosts are contiguous ranges of page ids (as in a crawl sorted by URL) with sizes
 * drawn from a bounded power law; each host has a topic drawn by topic size (Zipf over
 * topics), and each page keeps its host's topic with probability host_topic_purity.
 *
 * Links. A page draws its out-degree d from a bounded power law (hubs: d times a factor), then
 * d distinct targets, each by one of three kinds:
 *   host   (p_host):  a page of its own host, popular pages first (in-host rank ~ power law);
 *   topic  (p_topic): a popular host of the page's topic elsewhere (alias table over the
 *                     topic's hosts with Zipf weights), then a popular page in it;
 *   any    (rest):    a popular host anywhere, then a popular page in it.
 * A hub sends hub_focus of its links into its own hub topic on other hosts, so that irrelevant
 * pages lead into relevant regions (the tunnelling of the focused-crawling papers).
 * Popularity by rank (Zipf) gives heavy-tailed in-degrees; topics on a ring with relevance
 * decaying with ring distance give topical locality that fades over a few hops.
 *
 * Purity. Everything is drawn from counter-based streams keyed by (seed, domain, id): host
 * tables are computed identically on every rank, page values from the page's own streams, so
 * the graph is the same for any number of ranks and threads.
 */
#include "gen_impl.h"
#include "gen_math.h"
#include "gen_sets.h"
#include "gen_web.h"

#include "crawlsim/gen.h"
#include "crawlsim/partition.h"

#include "crawlsim/rng.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Candidate draws allowed per link before a page settles for fewer distinct links. */
#define GEN_ATTEMPTS_PER_LINK 4
/* Redraws of a topic link's host while it is the page's own host. */
#define GEN_HOST_REDRAWS 3

/* ---- model tables -------------------------------------------------------------------------- */

static double ring_similarity(const cs_gen_config *c, int32_t topic)
{
    int64_t d = llabs((int64_t)topic - c->target_topic);
    if (c->topics - d < d)
        d = c->topics - d;
    return exp(-(double)d / c->topic_spread);
}

int64_t cs_gen_n_pages(const cs_gen *g)
{
    return g->n_pages;
}
int64_t cs_gen_n_hosts(const cs_gen *g)
{
    return g->n_hosts;
}
int32_t cs_gen_n_topics(const cs_gen *g)
{
    return g->n_topics;
}

int64_t cs_gen_host_of(const cs_gen *g, int64_t page)
{
    /* the page's bucket holds pages of the hosts from that of its first page to that of the
     * next bucket's first: a host or two at the mean host size */
    const int64_t b = page >> g->host_shift;
    int64_t lo = g->host_at[b], hi = (int64_t)g->host_at[b + 1] + 1; /* in [lo, hi) */
    while (hi - lo > 8) { /* a bucket of many small hosts */
        const int64_t mid = lo + (hi - lo) / 2;
        if (g->hosts[mid].first <= page)
            lo = mid;
        else
            hi = mid;
    }
    while (lo + 1 < hi && g->hosts[lo + 1].first <= page)
        lo++;
    return lo;
}

void cs_gen_prefetch_host(const cs_gen *g, int64_t page, int stage)
{
    const int64_t b = page >> g->host_shift;
    if (stage == 1) {
        __builtin_prefetch(&g->host_at[b]);
        return;
    }
    const int64_t h = g->host_at[b];
    __builtin_prefetch(&g->hosts[h]);
    __builtin_prefetch(&g->hosts[h + 1]); /* (a hint: never faults, even past the end) */
    __builtin_prefetch(&g->host_topic[h]);
}

int32_t cs_gen_host_owner(const cs_gen_owner *o, int64_t h)
{
    return o->host_part != NULL ? (int32_t)o->host_part[h]
                                : cs_partition_host_hash(h, o->seed, o->k);
}

int cs_gen_host_hash_owner(const void *arg, int64_t page)
{
    const cs_gen_owner *o = arg;
    return cs_gen_host_owner(o, cs_gen_host_of(o->g, page));
}

int cs_gen_host_role(const cs_gen *g, int64_t host)
{
    return host_role(g, host);
}

void cs_gen_host_range(const cs_gen *g, int64_t host, int64_t *first, int64_t *count)
{
    *first = g->hosts[host].first;
    *count = g->hosts[host].count;
}

/* ---- per-page values ----------------------------------------------------------------------- */

/* Page attributes drawn from (seed, PAGE, page, 0), in a fixed order. */
typedef struct page_draw {
    int32_t topic;
    int hub;
    int32_t hub_topic;
    double relevance;
} page_draw;

static page_draw draw_page(const cs_gen *g, int64_t page, int64_t host)
{
    const cs_gen_config *c = &g->cfg;
    cs_rng r;
    cs_rng_init(&r, (uint64_t)c->seed, CS_RNG_PAGE, (uint64_t)page, 0);
    page_draw d;
    double u_topic = cs_rng_uniform(&r);
    int32_t off_topic = (int32_t)cs_alias_draw(&g->topic_size, &r);
    d.topic = u_topic < c->host_topic_purity ? g->host_topic[host] : off_topic;
    d.hub = cs_rng_uniform(&r) < c->hub_fraction;
    d.hub_topic = (int32_t)cs_alias_draw(&g->topic_size, &r);
    double rel = ring_similarity(c, d.topic) + c->relevance_noise * cs_rng_normal(&r);
    d.relevance = rel < 0.0 ? 0.0 : rel > 1.0 ? 1.0 : rel;
    return d;
}

/* Only the hub flag: the first three draws of draw_page. */
static int page_is_hub(const cs_gen *g, int64_t page)
{
    cs_rng r;
    cs_rng_init(&r, (uint64_t)g->cfg.seed, CS_RNG_PAGE, (uint64_t)page, 0);
    (void)cs_rng_uniform(&r);
    (void)cs_alias_draw(&g->topic_size, &r);
    return cs_rng_uniform(&r) < g->cfg.hub_fraction;
}

/* Only the topic: the first two draws of draw_page, for link targets. */
static int32_t page_topic(const cs_gen *g, int64_t page, int64_t host)
{
    cs_rng r;
    cs_rng_init(&r, (uint64_t)g->cfg.seed, CS_RNG_PAGE, (uint64_t)page, 0);
    double u_topic = cs_rng_uniform(&r);
    int32_t off_topic = (int32_t)cs_alias_draw(&g->topic_size, &r);
    return u_topic < g->cfg.host_topic_purity ? g->host_topic[host] : off_topic;
}

/* The base change rate of a host: log-normal around delta_median, news-like hosts faster. */
static double host_rate(const cs_gen_config *c, int64_t host)
{
    cs_rng hr;
    cs_rng_init(&hr, (uint64_t)c->seed, CS_RNG_HOST, (uint64_t)host, 1);
    int news = cs_rng_uniform(&hr) < c->news_fraction;
    return c->delta_median * exp(c->delta_host_sigma * cs_rng_normal(&hr)) *
           (news ? c->news_factor : 1.0);
}

/* The page's change rate: its host's base rate jittered by the first draw of its stream r. */
static inline double page_rate(const cs_gen_config *c, double rate, cs_rng *r)
{
    return rate * exp(c->delta_page_sigma * cs_rng_normal(r));
}

/* The page's part of cs_gen_page_dynamics, given its host's base rate. */
static void page_dynamics(const cs_gen_config *c, double rate, int64_t page, int domain,
                          double *delta, double *mu, uint8_t *observable)
{
    cs_rng r;
    cs_rng_init(&r, (uint64_t)c->seed, (cs_rng_domain)domain, (uint64_t)page, 1);
    *delta = page_rate(c, rate, &r);
    *mu = cs_rng_pareto(&r, 1.0, c->mu_alpha);
    *observable = (uint8_t)(cs_rng_uniform(&r) < c->observable_fraction);
}

void cs_gen_page_dynamics(const cs_gen_config *c, int64_t host, int64_t page, int domain,
                          double *delta, double *mu, uint8_t *observable)
{
    page_dynamics(c, host_rate(c, host), page, domain, delta, mu, observable);
}

double cs_gen_host_rate(const cs_gen_config *c, int64_t host)
{
    return host_rate(c, host);
}

double cs_gen_page_rate(const cs_gen_config *c, double rate, int64_t page, int domain)
{
    cs_rng r;
    cs_rng_init(&r, (uint64_t)c->seed, (cs_rng_domain)domain, (uint64_t)page, 1);
    return page_rate(c, rate, &r);
}

/*
 * The page jitter's normal draw is Box-Muller's (cs_rng_normal): z = sqrt(-2 log u1) cos(2 pi u2)
 * with u1 the first uniform of the page's stream, so |log(delta / rate)| <= sigma sqrt(-2 log u1).
 * A page whose bound stays inside [lo, hi] cannot move the range, and the bound needs only u1:
 * the page is skipped when u1 >= theta = exp(-(s / sigma)^2 / 2), s = min(log(hi / rate),
 * log(rate / lo)) less a margin of 1e-9 (1 + s) that covers the rounding of every step by far
 * (the draws' values are good to about 1e-15 relative). The pages not skipped are drawn in full,
 * so the range is the exhaustive pass's, bit for bit. Returns theta (2: draw every page).
 */
static double range_theta(const cs_gen_config *c, double rate, double lo, double hi)
{
    const double sigma = c->delta_page_sigma;
    if (!(lo <= hi) || !(sigma > 0.0))
        return 2.0;
    const double a = log(hi / rate), b = log(rate / lo), s0 = a < b ? a : b;
    const double s = s0 - 1e-9 * (1.0 + fabs(s0));
    if (!(s > 0.0))
        return 2.0;
    const double t = s / sigma;
    return exp(-0.5 * t * t);
}

void cs_gen_rate_range(const cs_gen *g, const cs_gen_config *c, int64_t first, int64_t count,
                       int domain, double *lo, double *hi)
{
    const int64_t end = first + count;
    for (int64_t p = first; p < end;) {
        const int64_t h = cs_gen_host_of(g, p);
        const int64_t he = g->hosts[h].first + g->hosts[h].count, stop = he < end ? he : end;
        const double rate = host_rate(c, h);
        double theta = range_theta(c, rate, *lo, *hi);
        for (; p < stop; p++) {
            cs_rng r;
            cs_rng_init(&r, (uint64_t)c->seed, (cs_rng_domain)domain, (uint64_t)p, 1);
            if (cs_rng_uniform_pos(&r) >= theta)
                continue;
            cs_rng_init(&r, (uint64_t)c->seed, (cs_rng_domain)domain, (uint64_t)p, 1);
            const double d = page_rate(c, rate, &r);
            if (d < *lo || d > *hi) {
                *lo = d < *lo ? d : *lo;
                *hi = d > *hi ? d : *hi;
                theta = range_theta(c, rate, *lo, *hi);
            }
        }
    }
}

/* A popular page of host h: rank ~ discretised power law with page_popularity_skew s (the
 * inverse of the continuous CDF on [1, m+1): x = (c u + 1)^(1/(1-s)), c = (m+1)^(1-s) - 1);
 * rank 1 is the host's first page (its home page). */
static int64_t page_in_host_u(const cs_gen *g, int64_t h, double u)
{
    const host_rec *hr = &g->hosts[h];
    int64_t first = hr->first, m = hr->count;
    if (m == 1)
        return first;
    double c = (double)hr->c;
    const double q = c * u + 1.0; /* x = q^e: e = page_int_exp, or page_inv (skew != 1) */
    /* skew > 1: the first ranks by their thresholds on q (gen_impl.h rank_hi, rank_lo), where
     * q is far enough from a boundary that the rounding below cannot move x across it */
    for (int k = 0; k < g->rank_n; k++) {
        if (q > g->rank_hi[k]) /* x < k + 2, and (k > 0) x >= k + 1 */
            return first + (k + 1 < m ? k + 1 : m) - 1;
        if (!(q < g->rank_lo[k])) /* within the margin of k + 2: computed below */
            break;
    }
    double x;
    if (g->page_int_exp != 0)
        x = ipow(q, g->page_int_exp);
    else if (g->page_inv == 0.0) /* skew 1: c = log2(m+1), x = (m+1)^u */
        x = fast_exp2(u * c);
    else
        x = fast_exp2(g->page_inv * fast_log2(q));
    int64_t k = (int64_t)x;
    if (k < 1)
        k = 1;
    if (k > m)
        k = m;
    return first + k - 1;
}

/* Out-degree of a page, from its degree stream (LINKS, page, sub 1), or with
 * gen.popular_degree at its popularity quantile (gen_web.h popular_uniform); with
 * gen.host_degree leaning to its host's level (gen_web.h host_lean). */
static int64_t draw_degree(const cs_gen *g, int64_t page, cs_rng *r, int hub)
{
    const cs_gen_config *c = &g->cfg;
    double u = popular_uniform(g, page, cs_rng_uniform(r));
    if (c->web.host_degree > 0.0)
        u = host_lean(g, cs_gen_host_of(g, page), CS_HASH_HOST_DEG, c->web.host_degree, u);
    int64_t d; /* the floor of the law, at least 1, at most degree_max */
    if (c->degree_sigma > 0.0) {
        const double x = exp(g->deg_mu + c->degree_sigma * cs_normal_quantile(u));
        d = x < 1.0 ? 1 : x >= (double)c->degree_max ? c->degree_max : (int64_t)x;
    } else {
        const int64_t x = (int64_t)cs_powlaw_at(&g->deg_law, u);
        d = x < 1 ? 1 : x;
    }
    if (hub) {
        double hd = (double)d * c->hub_degree_factor;
        d = hd > (double)c->degree_max ? c->degree_max : (int64_t)hd;
    }
    if (d > g->n_pages - 1)
        d = g->n_pages - 1;
    return d;
}

/* ---- web-like structure: flags and links computed from ids alone ----------------------------- */

/* A popular page of the page's own host (u its in-host uniform), or with gen.host_cross (a hash
 * of the link's word w0) of a neighbouring host. */
static int64_t own_popular(const cs_gen *g, int64_t host, uint64_t w0, double u)
{
    return page_in_host_u(g, crosses(g, w0) ? neighbour_host(g, host, w0) : host, u);
}

/* A drawn link inside the host (word w0 of the page's link stream, u its in-host uniform): with
 * probability near_share (a hash of w0, so the stream is not consumed) a page at an id gap
 * floor(X) from the source, X a power law from 1 with density exponent near_alpha (by inversion,
 * with gen.c's fast log2/exp2 so that no libm decides it), forward or backward by one bit of the
 * hash, reflected to the other side when it leaves the host; otherwise (or when neither side
 * fits) a popular page of the host as for every in-host link. */
static int64_t near_or_popular(const cs_gen *g, int64_t page, int64_t host, uint64_t w0, double u,
                               uint64_t near_key)
{
    const cs_gen_config *c = &g->cfg;
    const uint64_t h1 = cs_mix64(w0 + near_key); /* near_key: cs_mix64(seed ^ CS_HASH_NEAR) */
    if ((double)(h1 >> 11) * 0x1.0p-53 >= c->web.near_share)
        return own_popular(g, host, w0, u);
    const uint64_t h2 = cs_mix64(h1);
    const double v = (double)(h2 >> 12) * 0x1.0p-52;                  /* [0, 1) */
    const double y = -fast_log2(1.0 - v) / (c->web.near_alpha - 1.0); /* log2 X, >= 0 */
    const int64_t first = g->hosts[host].first, end = first + g->hosts[host].count;
    const int64_t gap = y < 61.0 ? (int64_t)fast_exp2(y) : INT64_MAX / 4;
    const int64_t fwd = page + gap, back = page - gap;
    const double pf = c->web.near_forward; /* 0.5: one bit of h2, as before the key */
    const int forward = pf == 0.5 ? (int)(h2 & 1u)
                                  : (double)(cs_mix64(h2 ^ CS_HASH_FORWARD) >> 11) * 0x1.0p-53 < pf;
    int64_t t = -1;
    const int64_t far = forward ? fwd : back; /* gen.host_cross: past the host's edge */
    if ((forward ? fwd >= end : back < first) && far >= 0 && far < g->cfg.pages && crosses(g, w0)) {
        const int64_t fh = cs_gen_host_of(g, far);
        if (role_allows(g, host, fh) && same_region(g, host, fh))
            return far;
    }
    if (forward ? fwd < end : back >= first)
        t = forward ? fwd : back;
    else if (forward ? back >= first : fwd < end)
        t = forward ? back : fwd;
    else
        return own_popular(g, host, w0, u);
    if (c->web.near_snap > 0.0 &&
        (double)(cs_mix64(h2 ^ CS_HASH_SNAP) >> 11) * 0x1.0p-53 < c->web.near_snap)
        t = snap_to_directory(g, t, gap, first, end, t > page);
    return t;
}

/* gen.link_pairs: the links of `page` (of host h) to its partners p XOR 2^k, k < pair_levels,
 * where the pair is drawn (gen_web.h paired), written to out; their count returned (with out
 * NULL, the bound). Each partner links back: the pair is reciprocal. */
static int64_t pair_links(const cs_gen *g, int64_t page, int64_t h, int64_t *out)
{
    const int64_t L = g->cfg.web.pair_levels;
    if (out == NULL)
        return L;
    int64_t n = 0;
    for (int k = 0; k < L; k++) {
        const int64_t q = page ^ ((int64_t)1 << k);
        if (q < g->n_pages && paired(g, page, q, k, h, cs_gen_host_of(g, q)))
            out[n++] = q;
    }
    return n;
}

/* gen.tree_lift: the down links of `page` (host-local index i, host from first of m pages) over
 * its subtree, the ids after it up to i + span: to each child that is not a lifted tree_only page
 * and to each tree_only page of the subtree lifted onto it (gen_web.h lifted), each with its
 * tree_down flag, appended to out[0, n) (with out NULL, n plus the bound span - 1). O(span). */
static int64_t listing_links(const cs_gen *g, int64_t page, int64_t first, int64_t m, int64_t span,
                             int64_t *out, int64_t n)
{
    if (out == NULL)
        return n + span - 1;
    const int64_t i = page - first;
    for (int64_t e = page + 1; e < page + span && e - first < m; e++) {
        if (page_flag(g, e, CS_HASH_TREE_DOWN) >= g->cfg.web.tree_down)
            continue;
        int64_t anc = -1;
        const int lift = is_tree_only(g, e, first) && lifted(g, first, e - first, &anc);
        if (lift ? anc == i : tree_dir(e - first, g->cfg.web.tree_branching) == i)
            out[n++] = e;
    }
    return n;
}

/*
 * The structural links of `page` (local index i in host `host` of m pages) written to out
 * unfiltered (the caller drops self links, pages no link points to and repeats), their count
 * returned; with out NULL only the count of candidates, a bound the flags do not change.
 *
 * Directory tree (gen.tree_branching = b): the directory of i > 0 is i with its lowest nonzero
 * base-b digit d_k cleared, i - d_k b^k, so a directory's subtree is the range of ids after it
 * (as URLs sorted by path) and a page's depth is its count of nonzero digits. A page links to
 * its directory (tree_up, flag of the page), a directory to each child (tree_down, flag of the
 * child: both flags make a reciprocal pair), and a page and its next sibling i + b^k link to each
 * other (tree_siblings, flag of the pair's first page; neither of them only the tree's, so that a
 * gen.tree_only page keeps the one link from its directory and those of its children). The root (i
 * = 0, the host's first page) has b - 1 children per digit: directory pages whose fetch reveals
 * many pages at once. Template (gen.template_links = T): T targets of the host drawn by in-host
 * popularity from the host's stream (HOST, host, sub 2), linked from every page that carries it
 * (template_share): pages that share a template and link among themselves close triangles. With
 * gen.site_hosts the host is its site's first host (gen_web.h site_lead): a site's template.
 * With gen.degree_total only the template's first links that the page's drawn degree deg leaves
 * room for beside the links before them. With gen.tree_lift_span a lifted tree_only page's link
 * up goes to the listing that links to it (an item links back to its list).
 */
static int64_t struct_links(const cs_gen *g, int64_t page, int64_t host, int64_t deg, int64_t *out)
{
    const cs_gen_config *c = &g->cfg;
    const int64_t first = g->hosts[host].first, m = g->hosts[host].count, i = page - first;
    int64_t n = c->web.link_pairs > 0.0 ? pair_links(g, page, host, out) : 0;
    if (m <= 1)
        return n;
    const int64_t b = c->web.tree_branching;
    if (b >= 2) {
        int64_t pk = 1; /* b^k of the lowest nonzero digit (i > 0) */
        if (i > 0) {
            pk = dir_span(i, b);
            const int64_t dk = (i / pk) % b;
            if (out == NULL)
                n += 3;
            else {
                /* with gen.tree_lift_span a lifted page links up to its listing */
                int64_t up = page - dk * pk, anc = -1;
                if (c->web.tree_lift_span > 0 && c->web.tree_lift > 0.0 &&
                    is_tree_only(g, page, first) && lifted(g, first, i, &anc))
                    up = first + anc;
                if (page_flag(g, page, CS_HASH_TREE_UP) < c->web.tree_up)
                    out[n++] = up;
                if (dk > 1 && page_flag(g, page - pk, CS_HASH_SIBLING) < c->web.tree_siblings &&
                    !tree_only_pair(g, page - pk, page, first))
                    out[n++] = page - pk;
                if (dk + 1 < b && i + pk < m &&
                    page_flag(g, page, CS_HASH_SIBLING) < c->web.tree_siblings &&
                    !tree_only_pair(g, page, page + pk, first))
                    out[n++] = page + pk;
            }
        }
        if (c->web.tree_lift > 0.0 && c->web.tree_only > 0.0)
            n = listing_links(g, page, first, m, i == 0 ? m : pk, out, n);
        else
            for (int64_t q = 1; q < (i == 0 ? m : pk); q *= b) /* children: digits below k */
                for (int64_t d = 1; d < b && i + d * q < m; d++) {
                    if (out == NULL)
                        n++;
                    else if (page_flag(g, page + d * q, CS_HASH_TREE_DOWN) < c->web.tree_down)
                        out[n++] = page + d * q;
                }
    }
    const int64_t T = c->web.template_links;
    if (T > 0) {
        if (out == NULL)
            return n + T;
        /* gen.degree_total: the template's first links, as many as the degree deg holds beside
         * the links above (a small page keeps the front of the menu) */
        const int64_t k = !c->degree_total ? T : deg - n >= T ? T : deg - n > 0 ? deg - n : 0;
        if (k > 0 && page_flag(g, page, CS_HASH_TEMPLATE) < c->web.template_share) {
            const int64_t lead = site_lead(g, host); /* gen.site_hosts; host without */
            if (c->web.template_menu)
                return menu_links(g, page, host, lead, k, out, n);
            cs_rng r;
            cs_rng_init(&r, (uint64_t)c->seed, CS_RNG_HOST, (uint64_t)lead, 2);
            for (int64_t j = 0; j < k; j++) {
                const double u = cs_rng_uniform(&r);
                const uint64_t x = (uint64_t)lead * 1024u + (uint64_t)j + CS_HASH_TEMPLATE;
                int64_t th = crosses(g, x) ? neighbour_host(g, lead, x) : lead;
                if (th != lead && lead != host && !role_allows(g, host, th))
                    th = lead;
                const int64_t t = page_in_host_u(g, th, u);
                out[n++] = c->web.tree_only > 0.0 ? redirect_unlinked(g, t, th) : t;
            }
        }
    }
    return n;
}

/*
 * Writes up to d distinct targets of `page` to out and returns how many.
 *
 * Each candidate link consumes one word w0 of the page's link stream (the top 24 bits choose
 * the kind of link, the low 40 bits the page inside the chosen host, a resolution far below any
 * rank's probability) and, unless it stays in the own host, a second word w1 that picks the
 * host. A topic link that picks its own host re-picks with words derived from w1. So the words
 * a candidate uses are fixed by the candidates before it, and candidates can be made in
 * batches: first all words and pick entries (prefetched), then the hosts (prefetched), then the
 * pages. The random pick tables and host records are the generator's cache misses; batching
 * lets the memory system fetch a batch's lines in parallel instead of one after another.
 */
#define GEN_BATCH 32

typedef struct cand {
    uint64_t w0, w1;
    double u_in;
    const host_pick *table; /* NULL: the own host */
    int64_t n;              /* entries in table */
    int64_t host;
} cand;

/* Where a page's drawn links may go: its topic's and its hub topic's host tables, whether its
 * own host can take a link (it has another page) and whether the host is closed. */
typedef struct link_tables {
    const host_pick *topic, *hub;
    int64_t topic_n, hub_n;
    double p_topic_end; /* p_host + p_topic */
    int own_ok, closed;
} link_tables;

static link_tables link_tables_of(const cs_gen *g, int64_t host, const page_draw *pd)
{
    const cs_gen_config *c = &g->cfg;
    link_tables lt;
    lt.topic = g->topic_picks + g->topic_off[pd->topic];
    lt.topic_n = g->topic_off[pd->topic + 1] - g->topic_off[pd->topic];
    lt.hub = g->topic_picks + g->topic_off[pd->hub_topic];
    lt.hub_n = g->topic_off[pd->hub_topic + 1] - g->topic_off[pd->hub_topic];
    lt.p_topic_end = c->p_host + c->p_topic;
    lt.own_ok = g->hosts[host].count > 1;
    lt.closed = (host_role(g, host) & HOST_CLOSED) != 0;
    return lt;
}

/* The structural links already in out[0, ns) kept in place (n <= j): not the page itself, not
 * an unlinked page, each once. Returns how many are kept. */
static int64_t keep_struct_links(const cs_gen *g, int64_t page, int64_t host, int64_t *out,
                                 int64_t ns, int use_set, idset *set)
{
    int64_t n = 0;
    const int64_t host_first = g->hosts[host].first, host_end = host_first + g->hosts[host].count;
    for (int64_t j = 0; j < ns; j++) {
        const int64_t t = out[j];
        const int64_t f =
            (g->cfg.web.host_cross > 0.0 || g->cfg.web.link_pairs > 0.0) &&
                    (t < host_first || t >= host_end)
                ? g->hosts[cs_gen_host_of(g, t)].first /* a template target, a pair's */
                : host_first;
        if (t == page || is_unlinked(g, t, f))
            continue;
        if (use_set ? !idset_insert(set, t) : contains(out, n, t))
            continue;
        out[n++] = t;
    }
    return n;
}

/* Step 1 of a batch: each candidate's words, its kind (own host, topic, hub topic, anywhere)
 * and its pick entry, prefetched. */
static void draw_kinds(const cs_gen *g, const page_draw *pd, const link_tables *lt, cs_rng *r,
                       link_pool *pl, cand *b, int64_t k)
{
    const cs_gen_config *c = &g->cfg;
    for (int64_t j = 0; j < k; j++) {
        uint64_t w0 = pl != NULL ? pool_word(pl) : cs_rng_u64(r);
        double u = (double)(w0 >> 40) * 0x1.0p-24;
        b[j].u_in = (double)(w0 & 0xffffffffffULL) * 0x1.0p-40;
        b[j].w0 = w0;
        b[j].table = NULL, b[j].n = 0;
        if (pd->hub && u < c->hub_focus) {
            b[j].table = lt->hub;
            b[j].n = lt->hub_n;
        } else {
            double v = pd->hub ? (u - c->hub_focus) / (1.0 - c->hub_focus) : u;
            if (v < c->p_host && lt->own_ok) {
                b[j].table = NULL;
            } else if (v < lt->p_topic_end) {
                b[j].table = lt->topic;
                b[j].n = lt->topic_n;
            } else {
                b[j].table = g->any_picks;
                b[j].n = g->n_any;
            }
        }
        if (lt->closed && b[j].table != NULL) /* a closed host keeps it, anywhere inside */
            b[j].table = NULL, b[j].n = -1;
        if (b[j].table != NULL) {
            b[j].w1 = pl != NULL ? pool_word2(w0) : cs_rng_u64(r);
            if (b[j].n > 0)
                __builtin_prefetch(&b[j].table[((b[j].w1 >> 32) * (uint64_t)b[j].n) >> 32]);
        }
    }
}

/* Step 2 of a batch: each candidate's host, prefetched; -1 for a topic without hosts. */
static void pick_hosts(const cs_gen *g, int64_t host, cand *b, int64_t k)
{
    for (int64_t j = 0; j < k; j++) {
        b[j].host = b[j].table == NULL ? host : -1; /* -1: a topic without hosts */
        if (b[j].table == NULL || b[j].n == 0)
            continue;
        uint64_t w = b[j].w1;
        int64_t h = pick_host(b[j].table, b[j].n, w);
        /* a link "elsewhere" re-picks its own host a few times (the any-links may stay) */
        for (int i = 1; i <= GEN_HOST_REDRAWS && h == host && b[j].table != g->any_picks; i++)
            h = pick_host(b[j].table, b[j].n, cs_mix64(w + (uint64_t)i));
        b[j].host = community_host(g, host, h);
        __builtin_prefetch(&g->hosts[b[j].host]);
    }
}

/* Step 3 of a batch: candidate b's target, drawn as page src draws it (src: the page, or for a
 * copied link its parent, around which its near links fall). */
static int64_t cand_target(const cs_gen *g, int64_t src, int64_t host, const cand *b,
                           uint64_t near_key)
{
    const cs_gen_config *c = &g->cfg;
    const host_rec *hr = &g->hosts[host];
    /* b->n < 0: a closed host's link kept inside, uniformly unless gen.closed_own */
    int64_t t = b->n < 0 && !c->web.closed_own ? hr->first + (int64_t)(b->u_in * (double)hr->count)
                : b->table == NULL && c->web.near_share > 0.0
                    ? near_or_popular(g, src, host, b->w0, b->u_in, near_key)
                : b->table == NULL && c->web.host_cross > 0.0 ? own_popular(g, host, b->w0, b->u_in)
                                                              : page_in_host_u(g, b->host, b->u_in);
    if (c->web.unlinked > 0.0 || c->web.tree_only > 0.0) /* t may have left the host */
        t = redirect_unlinked(g, t, c->web.host_cross > 0.0 ? cs_gen_host_of(g, t) : b->host);
    if (c->web.home_links > 0.0) /* after: a host's first page is never unlinked */
        t = home_link(g, host, b->w0, t);
    return t;
}

/* A page's link list while it is drawn: out[0, n), and the set of its targets. */
typedef struct link_list {
    int64_t *out, n;
    int use_set;
    idset *set;
} link_list;

/* Draws candidates from stream r as page src (of draw pd, in host) draws them, in batches, and
 * adds those that are new and not `page` to the list until it holds `want` or `attempts`
 * candidates have been drawn. */
static void draw_links(const cs_gen *g, int64_t page, int64_t src, int64_t host,
                       const page_draw *pd, cs_rng *r, link_pool *pl, int64_t want,
                       int64_t attempts, link_list *l)
{
    const link_tables lt = link_tables_of(g, host, pd);
    const uint64_t near_key = cs_mix64((uint64_t)g->cfg.seed ^ CS_HASH_NEAR); /* once a page */
    cand b[GEN_BATCH];
    while (l->n < want && attempts > 0) {
        int64_t k = want - l->n;
        if (k > GEN_BATCH)
            k = GEN_BATCH;
        if (k > attempts)
            k = attempts;
        attempts -= k;
        draw_kinds(g, pd, &lt, r, pl, b, k);
        pick_hosts(g, host, b, k);
        for (int64_t j = 0; j < k; j++) { /* pages, distinct and not the page itself */
            if (b[j].host < 0)
                continue;
            const int64_t t = cand_target(g, src, host, &b[j], near_key);
            if (t == page)
                continue;
            if (l->use_set ? !idset_insert(l->set, t) : contains(l->out, l->n, t))
                continue;
            l->out[l->n++] = t;
        }
    }
}

static int64_t gen_links(const cs_gen *g, int64_t page, int64_t host, const page_draw *pd,
                         cs_rng *r, int64_t d, int with_struct, int64_t *out, idset *set)
{
    /* the structural links first (none in a world without them), then d drawn ones */
    const int64_t ns = with_struct && g->struct_max > 0 ? struct_links(g, page, host, d, out) : 0;
    link_list l = {out, 0, ns + d > 32, set};
    if (l.use_set)
        idset_reset(set, ns + d);
    l.n = keep_struct_links(g, page, host, out, ns, l.use_set, set);
    /* gen.degree_total: the drawn links fill what the structure leaves of d */
    const int64_t want = !g->cfg.degree_total ? l.n + d : l.n < d ? d : l.n;
    /* gen.copy_links: the first k candidates of the parent's own stream (its own first drawn
     * links, whatever this page keeps of them), then the page's own */
    int64_t src = page;
    const int64_t k = copied_links(g, page, host, d, &src);
    if (k > 0) {
        const page_draw sd = draw_page(g, src, host);
        cs_rng rr;
        cs_rng_init(&rr, (uint64_t)g->cfg.seed, CS_RNG_LINKS, (uint64_t)src, 0);
        draw_links(g, page, src, host, &sd, &rr, NULL, l.n + k < want ? l.n + k : want, k, &l);
    }
    link_pool pool, *pl = NULL; /* gen.host_pool: the page's own draws from its host's pool */
    if (g->cfg.web.host_pool > 0.0) {
        pool = link_pool_of(g, page, host);
        pl = &pool;
    }
    draw_links(g, page, page, host, pd, r, pl, want, d * GEN_ATTEMPTS_PER_LINK - k, &l);
    sort_i64(out, l.n);
    return l.n;
}

/* Pass 1 of gen_pages: each page's drawn degree (kept in cnt) and the upper bound of its link
 * range, the drawn degree and the structural links' bound, as prefix sums in ub[0, n]. */
static void link_bounds(const cs_gen *g, int64_t first, const int64_t *ids, int64_t n, int64_t *ub,
                        uint32_t *cnt)
{
    const cs_gen_config *c = &g->cfg;
    ub[0] = 0;
#pragma omp parallel for default(none) shared(g, c, ub, cnt, first, ids, n) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t p = ids != NULL ? ids[i] : first + i;
        if (is_dangling(g, p)) {
            ub[i + 1] = cnt[i] = 0;
            continue;
        }
        cs_rng dr;
        cs_rng_init(&dr, (uint64_t)c->seed, CS_RNG_LINKS, (uint64_t)p, 1);
        const int64_t d = draw_degree(g, p, &dr, page_is_hub(g, p));
        cnt[i] = (uint32_t)d;
        ub[i + 1] = d + (g->struct_max > 0 ? struct_links(g, p, cs_gen_host_of(g, p), d, NULL) : 0);
    }
    for (int64_t i = 0; i < n; i++)
        ub[i + 1] += ub[i];
}

/* Pass 3 of gen_pages: the gaps left by pages that found fewer distinct links than drawn
 * closed (page i's cnt[i] links start at ub[i]), the offsets set; returns the links kept. */
static int64_t compact_links(cs_graph_slice *out, const int64_t *ub, const uint32_t *cnt, int64_t n)
{
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t from = ub[i];
        if (from != pos)
            memmove(out->targets + pos, out->targets + from, cnt[i] * sizeof *out->targets);
        out->offsets[i] = pos;
        pos += cnt[i];
    }
    out->offsets[n] = pos;
    if (pos < ub[n]) {
        int64_t *t = realloc(out->targets, (size_t)(pos > 0 ? pos : 1) * sizeof *t);
        if (t != NULL)
            out->targets = t;
    }
    return pos;
}

/* Pages first + i, or ids[i] when ids is not NULL (gen_impl.h): one body for both, so that a
 * page is generated the same way whichever way it is asked for. */
static cs_err gen_pages(cs_ctx *ctx, const cs_gen *g, int64_t first, const int64_t *ids, int64_t n,
                        cs_graph_slice *out, cs_progress *progress, int quiet)
{
    cs_err rc = CS_OK;
    int64_t *ub = NULL;
    uint32_t *cnt = NULL;
    const cs_gen_config *c = &g->cfg;

    double t0 = cs_now();
    CS_TRY(ctx, cs_alloc(ctx, &ub, (size_t)n + 1, sizeof *ub, "link bounds"));
    CS_TRY(ctx, cs_alloc(ctx, &cnt, (size_t)n + 1, sizeof *cnt, "link counts"));
    link_bounds(g, first, ids, n, ub, cnt);

    CS_TRY(ctx, cs_graph_slice_alloc(ctx, out, n, ub[n]));
    out->first = first;
    out->n_pages_total = g->n_pages;
    out->n_hosts = g->n_hosts;
    out->n_topics = g->n_topics;

    double t1 = cs_now();
    /* Pass 2: attributes and links, each page into its own range. */
    int64_t done = 0;
    int nomem = 0;
    size_t set_cap = idset_slots(c->degree_max + g->struct_max);
    /* chunks of 4 096 pages for a world, fewer for a tick's fetched pages, so that every
     * thread gets some of a few hundred (each page writes its own range: no bit depends on it) */
    const int chunk = n >= 32 * 4096 ? 4096 : n >= 32 * 16 ? (int)(n / 32) : 16;
#pragma omp parallel default(none)                                                                 \
    shared(g, c, out, ub, cnt, first, ids, n, done, nomem, progress) firstprivate(set_cap, chunk)
    {
        idset set = {malloc(set_cap * sizeof(int64_t)), set_cap - 1};
        /* consecutive pages mostly share a host: remember it and its base change rate */
        int64_t host = -1;
        double rate = 0.0;
        if (set.slot == NULL) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(dynamic, chunk)
        for (int64_t i = 0; i < n; i++) {
            if (set.slot == NULL)
                continue;
            int64_t p = ids != NULL ? ids[i] : first + i;
            const int64_t end = host < 0 ? -1 : g->hosts[host].first + g->hosts[host].count;
            if (host < 0 || p < g->hosts[host].first || p >= end) {
                host = (host >= 0 && p == end) ? host + 1 : cs_gen_host_of(g, p);
                rate = host_rate(c, host);
            }
            page_draw pd = draw_page(g, p, host);
            out->host[i] = host;
            out->topic[i] = pd.topic;
            out->relevance[i] = pd.relevance;
            page_dynamics(c, rate, p, CS_RNG_PAGE, &out->delta[i], &out->mu[i],
                          &out->observable[i]);
            /* the degree drawn in pass 1 (stream sub 1); targets from sub 0; a page without
             * out-links has an empty range */
            int64_t d = cnt[i];
            cs_rng lr;
            cs_rng_init(&lr, (uint64_t)c->seed, CS_RNG_LINKS, (uint64_t)p, 0);
            cnt[i] = (uint32_t)gen_links(g, p, host, &pd, &lr, d, ub[i + 1] > ub[i],
                                         out->targets + ub[i], &set);
            if ((i & 4095) == 4095) {
                int64_t now;
#pragma omp atomic capture
                now = done += 4096;
                if (progress != NULL && omp_get_thread_num() == 0)
                    cs_progress_update(progress, (uint64_t)now);
            }
        }
        free(set.slot);
    }
    if (nomem) {
        rc = cs_fail(ctx, CS_ERR_NOMEM, "gen: out of memory for per-thread scratch");
        goto fail;
    }

    double t2 = cs_now();
    const int64_t pos = compact_links(out, ub, cnt, n);
    if (!quiet)
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "gen (rank 0): degrees %.2fs, pages and links %.2fs, compaction %.2fs (%lld of %lld "
               "drawn links kept)",
               t1 - t0, t2 - t1, cs_now() - t2, (long long)pos, (long long)ub[n]);
    free(cnt);
    free(ub);
    return CS_OK;
fail:
    free(cnt);
    free(ub);
    cs_graph_slice_fini(out);
    return rc;
}

cs_err cs_gen_slice(cs_ctx *ctx, const cs_gen *g, int64_t first, int64_t n, cs_graph_slice *out,
                    cs_progress *progress)
{
    if (first < 0 || n < 0 || first + n > g->n_pages)
        return cs_fail(ctx, CS_ERR_ARG, "gen: slice [%lld, %lld) outside [0, %lld)",
                       (long long)first, (long long)(first + n), (long long)g->n_pages);
    return gen_pages(ctx, g, first, NULL, n, out, progress, 0);
}

cs_err gen_slice_ids(cs_ctx *ctx, const cs_gen *g, const int64_t *ids, int64_t n,
                     cs_graph_slice *out, cs_progress *progress)
{
    int64_t bad = n < 0 ? 0 : INT64_MAX;
    const int64_t N = g->n_pages;
#pragma omp parallel for default(none) shared(ids, n, N) reduction(min : bad) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= N || (i > 0 && ids[i] <= ids[i - 1]))
            bad = i < bad ? i : bad;
    if (bad != INT64_MAX)
        return cs_fail(ctx, CS_ERR_ARG,
                       "gen: page list entry %lld is outside [0, %lld) or not increasing",
                       (long long)bad, (long long)N);
    cs_err rc = gen_pages(ctx, g, 0, ids, n, out, progress, 0);
    if (rc == CS_OK)
        out->first = n > 0 ? ids[0] : 0;
    return rc;
}

cs_err cs_gen_pages(cs_ctx *ctx, const cs_gen *g, const int64_t *ids, int64_t n,
                    cs_graph_slice *out)
{
    int64_t bad = n < 0 ? 0 : INT64_MAX;
    const int64_t N = g->n_pages;
    for (int64_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= N)
            bad = i < bad ? i : bad;
    if (bad != INT64_MAX)
        return cs_fail(ctx, CS_ERR_ARG, "gen: page list entry %lld is outside [0, %lld)",
                       (long long)bad, (long long)N);
    cs_err rc = gen_pages(ctx, g, 0, ids, n, out, NULL, 1);
    if (rc == CS_OK)
        out->first = n > 0 ? ids[0] : 0;
    return rc;
}

void cs_gen_page_attrs(const cs_gen *g, int64_t page, cs_gen_page *out)
{
    const int64_t host = cs_gen_host_of(g, page);
    const page_draw pd = draw_page(g, page, host);
    out->host = host;
    out->topic = pd.topic;
    out->relevance = pd.relevance;
    page_dynamics(&g->cfg, host_rate(&g->cfg, host), page, CS_RNG_PAGE, &out->delta, &out->mu,
                  &out->observable);
}

int64_t cs_gen_shared_held(const cs_gen *g, int *shared)
{
    *shared = cs_node_size(g->node) > 1;
    return *shared && cs_node_rank(g->node) == 0 ? g->block_bytes : 0;
}

int64_t cs_gen_model_bytes(const cs_gen *g)
{
    const int64_t H = g->n_hosts, K = g->n_topics;
    return (int64_t)sizeof *g + H * (int64_t)(sizeof *g->hosts + sizeof *g->host_topic) +
           (g->host_buckets + 1) * (int64_t)sizeof *g->host_at +
           (g->topic_off[K] + H) * (int64_t)sizeof(host_pick) + (K + 1) * 8 +
           K * (int64_t)(sizeof(float) * (size_t)g->cfg.term_dim + 12);
}

/* ---- derived evidence ---------------------------------------------------------------------- */

const float *cs_gen_topic_prototype(const cs_gen *g, int32_t topic)
{
    return g->proto + (size_t)topic * (size_t)g->cfg.term_dim;
}

void cs_gen_page_terms(const cs_gen *g, int64_t page, float *out)
{
    int64_t host = cs_gen_host_of(g, page);
    int32_t t = page_topic(g, page, host);
    const float *pr = cs_gen_topic_prototype(g, t);
    int64_t dim = g->cfg.term_dim;
    double sigma = g->cfg.term_noise / sqrt((double)dim);
    cs_rng r;
    cs_rng_init(&r, (uint64_t)g->cfg.seed, CS_RNG_TERMS, (uint64_t)page, 0);
    /* Box-Muller's normals (cs_rng_normal's bits) straight into the floats, libm called for the
     * few whose float depends on its last bits; with gen.term_normals = ziggurat the ziggurat's
     * (about one word a draw, no libm call) */
    if (g->cfg.term_normals != CS_TERMS_ZIGGURAT) {
        (void)cs_rng_normals_f32(&r, dim, pr, sigma, out);
        return;
    }
    double z[64];
    for (int64_t i0 = 0; i0 < dim; i0 += 64) {
        const int64_t n = dim - i0 < 64 ? dim - i0 : 64;
        cs_rng_normals_zig(&r, n, z);
        for (int64_t i = 0; i < n; i++)
            out[i0 + i] = (float)((double)pr[i0 + i] + sigma * z[i]);
    }
}

void cs_gen_anchor_terms(const cs_gen *g, int64_t src, int64_t dst, float *out)
{
    cs_gen_page_terms(g, dst, out);
    int64_t dim = g->cfg.term_dim;
    double sigma = g->cfg.anchor_noise / sqrt((double)dim);
    cs_rng r;
    cs_rng_init(&r, (uint64_t)g->cfg.seed, CS_RNG_ANCHOR, (uint64_t)src, (uint64_t)dst);
    for (int64_t i = 0; i < dim; i++)
        out[i] = (float)((double)out[i] + sigma * cs_rng_normal(&r));
}
