/*
 * gen_web: the flags and moves of a generated page's web-like structure (docs/guide/web-like.md),
 * each a pure function of (gen.seed, salt, page or link word): pages without out- or in-links,
 * near links snapped onto directories, links sent to a neighbouring host. Included by gen.c
 * only (its hot path inlines them).
 */
#ifndef CRAWLSIM_GEN_WEB_H
#define CRAWLSIM_GEN_WEB_H

#include "gen_impl.h"

#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <math.h>

/* A uniform in [0, 1) from the page's hash under salt (rng.h's CS_HASH_*): each flag of a page's
 * structure is a pure function of (gen.seed, salt, page), one hash and no stream. */
static inline double page_flag(const cs_gen *g, int64_t page, uint64_t salt)
{
    const uint64_t key = cs_mix64((uint64_t)g->cfg.seed ^ salt);
    return (double)(cs_mix64((uint64_t)page + key) >> 11) * 0x1.0p-53;
}

/* gen.host_degree, gen.host_dangling: a page's uniform u leaning to its host's level,
 * Phi(sqrt(s) z + sqrt(1 - s) Phi^-1(u)), z the normal score of the host's hash under salt: the
 * pages of one host share a part s of their normal scores' variance, and u stays uniform over the
 * pages (z and u independent), so every law drawn from it stays the same. */
static double host_lean(const cs_gen *g, int64_t host, uint64_t salt, double s, double u)
{
    const double lo = 0x1.0p-60; /* finite scores, also at s = 1 */
    const double v = page_flag(g, host, salt);
    const double x = sqrt(s) * cs_normal_quantile(v < lo ? lo : v) +
                     sqrt(1.0 - s) * cs_normal_quantile(u < lo ? lo : u);
    const double p = 0.5 * erfc(-x * 0.70710678118654752440); /* Phi(x) */
    return p < 1.0 ? p : 1.0 - 0x1.0p-53;                     /* a uniform's range, [0, 1) */
}

/* A page without out-links (gen.dangling; gen.dangling_leaves: only a leaf of the tree;
 * gen.host_dangling: its flag leaning to its host's). */
static inline int is_dangling(const cs_gen *g, int64_t page)
{
    const cs_gen_config *c = &g->cfg;
    if (!(c->web.dangling > 0.0))
        return 0;
    double f = page_flag(g, page, CS_HASH_DANGLING);
    if (c->web.host_dangling > 0.0)
        f = host_lean(g, cs_gen_host_of(g, page), CS_HASH_HOST_DANG, c->web.host_dangling, f);
    if (!(f < c->web.dangling))
        return 0;
    if (!c->web.dangling_leaves || c->web.tree_branching < 2)
        return 1;
    /* gen.dangling_leaves: a directory (local index a multiple of the base, with a next page:
     * its first child) keeps its links */
    const host_rec *hr = &g->hosts[cs_gen_host_of(g, page)];
    const int64_t i = page - hr->first;
    return !(i % c->web.tree_branching == 0 && i + 1 < hr->count);
}

/* A page no link points to (gen.unlinked); a host's first page never is. */
static inline int is_unlinked(const cs_gen *g, int64_t page, int64_t host_first)
{
    return g->cfg.web.unlinked > 0.0 && page != host_first &&
           page_flag(g, page, CS_HASH_UNLINKED) < g->cfg.web.unlinked;
}

/* A page only the directory tree links to (gen.tree_only); a host's first page never is. */
static inline int is_tree_only(const cs_gen *g, int64_t page, int64_t host_first)
{
    return g->cfg.web.tree_only > 0.0 && page != host_first &&
           page_flag(g, page, CS_HASH_TREE_ONLY) < g->cfg.web.tree_only;
}

/* The ids a directory's subtree spans: b^k for host-local index a > 0 with k trailing zero
 * base-b digits (the place of its lowest nonzero digit). */
static inline int64_t dir_span(int64_t a, int64_t b)
{
    int64_t q = 1;
    while ((a / q) % b == 0)
        q *= b;
    return q;
}

/* The directory of host-local index j > 0 in the tree of base b: j with its lowest nonzero
 * base-b digit cleared. */
static inline int64_t tree_dir(int64_t j, int64_t b)
{
    const int64_t q = dir_span(j, b);
    return j - (j / q) % b * q;
}

/* gen.tree_lift: whether the tree_only page at host-local index j (> 0; host from first) hangs
 * from an ancestor above its directory, and the ancestor's index in *anc: its directory's
 * directory with probability tree_lift, the next one up with its square, ..., at most the root,
 * or with gen.tree_lift_span the highest one below it whose subtree spans at most that many ids
 * (a hash of the page against the powers of tree_lift: no libm). */
static int lifted(const cs_gen *g, int64_t first, int64_t j, int64_t *anc)
{
    const int64_t b = g->cfg.web.tree_branching, span = g->cfg.web.tree_lift_span;
    const double p = g->cfg.web.tree_lift;
    const double u = page_flag(g, first + j, CS_HASH_LIFT);
    int64_t a = tree_dir(j, b);
    int up = 0;
    for (double thr = p; a > 0 && u < thr; thr *= p, up = 1) {
        const int64_t next = tree_dir(a, b);
        if (span > 0 && (next == 0 || dir_span(next, b) > span)) /* a listing of at most span */
            break;
        a = next;
    }
    *anc = a;
    return up;
}

/* gen.copy_links: how many of the page's d drawn links it copies (copy_links d, rounded by a
 * hash of the page) and from which page, *src: its parent in the directory tree (gen_web.h
 * lifted: the ancestor that lists a lifted tree_only page); 0 for a host's first page. */
static inline int64_t copied_links(const cs_gen *g, int64_t page, int64_t host, int64_t d,
                                   int64_t *src)
{
    const cs_gen_config *c = &g->cfg;
    const int64_t first = g->hosts[host].first, i = page - first;
    if (c->web.copy_links <= 0.0 || c->web.tree_branching < 2 || d == 0 || i == 0)
        return 0;
    int64_t a = tree_dir(i, c->web.tree_branching);
    if (c->web.tree_lift > 0.0 && is_tree_only(g, page, first))
        (void)lifted(g, first, i, &a);
    *src = first + a;
    const int64_t k = (int64_t)(c->web.copy_links * (double)d + page_flag(g, page, CS_HASH_COPY));
    return k < d ? k : d;
}

/* Whether either page of a sibling pair (a, b, of the host starting at first) is only the
 * tree's: the pair then has no links, and such a page keeps only its directory's and children's. */
static inline int tree_only_pair(const cs_gen *g, int64_t a, int64_t b, int64_t first)
{
    return g->cfg.web.tree_only > 0.0 && (is_tree_only(g, a, first) || is_tree_only(g, b, first));
}

/* Where a drawn (or template) link to page t of host h lands: t, or when no such link may point
 * to t (gen.unlinked, gen.tree_only), the next page of the host that is not so (wrapping to the
 * host's first page, which never is). */
static int64_t redirect_unlinked(const cs_gen *g, int64_t t, int64_t h)
{
    const int64_t first = g->hosts[h].first, end = first + g->hosts[h].count;
    while (is_unlinked(g, t, first) || is_tree_only(g, t, first))
        t = t + 1 < end ? t + 1 : first;
    return t;
}

/* gen.near_snap: the directory page of a near link's target t at the level of its gap: the
 * host-local index rounded to a multiple of q, the smallest power of the base (the tree's, or
 * 2) above the gap: up for a forward link (the next directory), down for a backward one (its
 * own), and down when up leaves the host. Pages with more trailing
 * zero digits collect the links of wider windows: most pages receive none, the directories a
 * heavy tail (a gap density ~ x^-a gives in-degrees ~ x^-(1 + 1 / (2 - a)) for a < 2). */
static int64_t snap_to_directory(const cs_gen *g, int64_t t, int64_t gap, int64_t first,
                                 int64_t end, int forward)
{
    const int64_t b = g->cfg.web.tree_branching >= 2 ? g->cfg.web.tree_branching : 2;
    int64_t q = b;
    while (q <= gap && q <= (end - first) / b)
        q *= b;
    const int64_t j = t - first;
    int64_t s = (j + (forward ? q - 1 : 0)) / q * q;
    if (first + s >= end)
        s -= q;
    return first + s;
}

/* gen.host_cross: whether the link or template target of hash x leaves its host: drawn with
 * probability host_cross. */
static inline int crosses(const cs_gen *g, uint64_t x)
{
    const double hc = g->cfg.web.host_cross;
    return hc > 0.0 &&
           (double)(cs_mix64(x + cs_mix64((uint64_t)g->cfg.seed ^ CS_HASH_CROSS)) >> 11) *
                   0x1.0p-53 <
               hc;
}

/* gen.host_cross: whether a link of host h may go to host t under the bow-tie roles: h may link
 * to other hosts (not OUT, not isolated) and t may be linked to (not IN, not isolated), or t has
 * h's role and, unless both are open, comes after h: links among IN, among OUT or among isolated
 * hosts then only go forward, so they make no cycle, no strongly connected set of such hosts,
 * and each region stays what it is. */
static inline int role_allows(const cs_gen *g, int64_t h, int64_t t)
{
    const int a = host_role(g, h), b = host_role(g, t);
    return (!(a & HOST_CLOSED) && !(b & HOST_HIDDEN)) || (a == b && (a == HOST_OPEN || t > h));
}

/* Whether the communities (aligned runs of community_hosts ids) are closed: community_near = 0,
 * no link between hosts leaves its source's run. */
static inline int closed_communities(const cs_gen *g)
{
    return g->cfg.web.community_hosts > 0 && g->cfg.web.community_near == 0;
}

/* Whether hosts h and t lie in the same closed community; always without closed communities. */
static inline int same_region(const cs_gen *g, int64_t h, int64_t t)
{
    const int64_t w = g->cfg.web.community_hosts;
    return !closed_communities(g) || h / w == t / w;
}

/* gen.host_cross: the host k away from h (k = 1 + the trailing zero bits of x's upper word, so
 * 1 in two, 2 in four, ..., at most 16; the direction x's lowest bit), or the next one further
 * out that h may link to (role_allows), the other side when one side ends (at the world's edge
 * or a closed community's); h itself when neither side has one within 8 more hosts. */
static int64_t neighbour_host(const cs_gen *g, int64_t h, uint64_t x)
{
    const uint64_t y = cs_mix64(x ^ CS_HASH_CROSS);
    const int64_t k = 1 + __builtin_ctzll((y >> 32) | (1ULL << 15));
    const int64_t dir = (y & 1u) ? 1 : -1;
    for (int side = 0; side < 2; side++) {
        const int64_t d = side == 0 ? dir : -dir;
        for (int64_t j = 0; j < 8; j++) {
            const int64_t t = h + d * (k + j);
            if (t < 0 || t >= g->n_hosts || !same_region(g, h, t))
                break;
            if (role_allows(g, h, t))
                return t;
        }
    }
    return h;
}

/* gen.home_links: where a drawn link of host h (word w0) to t goes: with probability home_links
 * (a hash of w0) the home page (first page) of a host drawn by popularity among the hosts others
 * may link to (gen.host_popularity_skew; a second hash of w0), when the roles let h link there
 * (role_allows); else t. A host's first page is never unlinked. */
static inline int64_t home_link(const cs_gen *g, int64_t h, uint64_t w0, int64_t t)
{
    const uint64_t x = cs_mix64(w0 ^ CS_HASH_HOME);
    if ((double)(x >> 11) * 0x1.0p-53 >= g->cfg.web.home_links || g->n_any <= 0)
        return t;
    const int64_t to = pick_host(g->any_picks, g->n_any, cs_mix64(x));
    return role_allows(g, h, to) ? g->hosts[to].first : t;
}

/* gen.site_hosts: the host whose template host h's pages carry: the first host of h's site (host
 * k starts a site when k = 0, or the first host of a closed community, or its hash falls below
 * 1 / site_hosts; the walk back ends after GEN_SITE_MAX hosts), or h itself when site_hosts is 1
 * or the roles do not let h link there. */
#define GEN_SITE_MAX 1024
static int64_t site_lead(const cs_gen *g, int64_t h)
{
    const double sh = g->cfg.web.site_hosts;
    if (!(sh > 1.0))
        return h;
    const uint64_t key = cs_mix64((uint64_t)g->cfg.seed ^ CS_HASH_SITE);
    const int64_t w = g->cfg.web.community_hosts;
    const int64_t start = closed_communities(g) ? h / w * w : 0;
    int64_t k = h;
    for (int j = 0; j < GEN_SITE_MAX && k > start; j++, k--)
        if ((double)(cs_mix64((uint64_t)k + key) >> 11) * 0x1.0p-53 * sh < 1.0)
            break;
    return k == h || role_allows(g, h, k) ? k : h;
}

/* gen.template_menu: the first k of the template_links pages from the first page of host `lead`
 * (whose template `page` of host h carries), appended to out[0, n): past the lead's end the pages
 * of the hosts after it, each only where the roles let h link there; the count returned. The
 * links are the same for every page of the site: its menu. */
static int64_t menu_links(const cs_gen *g, int64_t page, int64_t h, int64_t lead, int64_t k,
                          int64_t *out, int64_t n)
{
    const int64_t first = g->hosts[lead].first, end = first + g->hosts[lead].count;
    const int64_t stop = first + k;
    for (int64_t t = first; t < stop && t < g->n_pages; t++) {
        const int64_t th = t < end ? lead : cs_gen_host_of(g, t);
        if (t != page && (th == h || role_allows(g, h, th)))
            out[n++] = g->cfg.web.tree_only > 0.0 ? redirect_unlinked(g, t, th) : t;
    }
    return n;
}

/* gen.popular_degree: the uniform of a page's out-degree when its hash falls below
 * popular_degree (else u, the stream's): 1 - (r + v) / m, r its 0-based popularity rank among the
 * m pages of its host and v a uniform of its hash, so the pages' uniforms stay uniform over a
 * host and the out-degree law is the same. The rank: the home page (index 0) first; with a tree
 * of base b, then the pages by level (trailing zero base-b digits of the index, more first), each
 * level by index; without, by index (page_in_host_u's ranks). O(log_b m). */
static double popular_uniform(const cs_gen *g, int64_t page, double u)
{
    const double pd = g->cfg.web.popular_degree;
    if (!(pd > 0.0) || page_flag(g, page, CS_HASH_POPDEG) >= pd)
        return u;
    const host_rec *hr = &g->hosts[cs_gen_host_of(g, page)];
    const int64_t m = hr->count, i = page - hr->first, b = g->cfg.web.tree_branching;
    int64_t r = i;
    if (b >= 2 && i > 0) {
        int64_t q = 1; /* b^L, L the level of i */
        while ((i / q) % b == 0)
            q *= b;
        r = 1 + (m - 1) / (q * b) + (i - 1) / q - (i - 1) / (q * b);
    }
    const double v = page_flag(g, page, CS_HASH_POPDEG ^ CS_HASH_GOLDEN);
    const double x = 1.0 - ((double)r + v) / (double)m;
    return x < 0.0 ? 0.0 : x;
}

/* gen.link_pairs: whether page p and page p XOR 2^k (q, in [0, pages)) link to each other: a flag
 * of the pair and its level (the hash of the smaller page under a salt of k), neither of them
 * only the tree's (gen.tree_only), and, when they are in different hosts (hp, hq), links both
 * ways allowed by the roles. */
static inline int paired(const cs_gen *g, int64_t p, int64_t q, int k, int64_t hp, int64_t hq)
{
    const int64_t lo = p < q ? p : q;
    if (page_flag(g, lo, CS_HASH_PAIR + (uint64_t)k) >= g->cfg.web.link_pairs)
        return 0;
    if (g->cfg.web.tree_only > 0.0 &&
        (is_tree_only(g, p, g->hosts[hp].first) || is_tree_only(g, q, g->hosts[hq].first)))
        return 0;
    return hp == hq || (role_allows(g, hp, hq) && role_allows(g, hq, hp));
}

/* gen.community_hosts: the host a link of a page of `host` to host h goes to: h when it lies
 * within gen.community_near hosts of `host` (or without communities), else the host at h's
 * place modulo the community's size in `host`'s community (an aligned run of community_hosts
 * ids; `host` itself past the last host), when the roles allow the link, else h (with closed
 * communities, community_near = 0: `host`). */
static inline int64_t community_host(const cs_gen *g, int64_t host, int64_t h)
{
    const int64_t w = g->cfg.web.community_hosts, near = g->cfg.web.community_near;
    if (w <= 0 || h < 0 || (h > host ? h - host : host - h) <= near)
        return h;
    int64_t c = host / w * w + h % w;
    if (c >= g->n_hosts)
        c = host;
    return c == host || role_allows(g, host, c) ? c : near > 0 ? h : host;
}

/* gen.host_pool: the host's pool of link draws, m slots, and the page's next slot (NULL in
 * draw_kinds: the page's own stream). Slot s of host h is two words, a pure function of (seed, h,
 * s); page p reads slots start, start + 1, ... (mod m) from a start its hash picks. */
typedef struct link_pool {
    uint64_t key; /* the world's and the host's */
    int64_t m, next;
} link_pool;

static inline link_pool link_pool_of(const cs_gen *g, int64_t page, int64_t host)
{
    const double m = ceil(g->cfg.web.host_pool * g->cfg.degree_mean);
    link_pool pl;
    pl.key = cs_mix64(cs_mix64((uint64_t)g->cfg.seed ^ CS_HASH_POOL) + (uint64_t)host);
    pl.m = m < 1.0 ? 1 : (int64_t)m;
    pl.next = (int64_t)(page_flag(g, page, CS_HASH_POOL) * (double)pl.m);
    return pl;
}

/* The first word of the pool's next slot (the second: pool_word2), and the cursor moved on. */
static inline uint64_t pool_word(link_pool *pl)
{
    const uint64_t s = (uint64_t)pl->next;
    pl->next = pl->next + 1 == pl->m ? 0 : pl->next + 1;
    return cs_mix64(pl->key + s * CS_HASH_GOLDEN);
}

static inline uint64_t pool_word2(uint64_t w0)
{
    return cs_mix64(w0 ^ CS_HASH_POOL);
}

#endif
