/*
 * crawlsim fit: a twin of a real graph (docs/guide/fitting.md).
 *
 * Method. The real graph is measured once (cs_stats_file, the default sampling of crawlsim
 * stats). The fitted [gen] keys start from what the real figures give directly (the dangling
 * share, the out-degree mean) and the defaults, then candidate k + 1 is candidate k moved by one
 * fixed rule per key, each driven by the statistic that key moves most (a diagonal fixed-point
 * iteration, every key at once, with backtracking):
 *
 *   degree_mean            += 0.8 (out mean real - twin) / (1 - dangling)
 *   degree_alpha           += 0.6 log((median real + 1/2) / (median twin + 1/2)); with
 *                            degree_sigma above 0 (--set), degree_sigma -= the same instead,
 *                            in [0.1, 3] (a wider log-normal, a lower median)
 *   dangling                = pages without out-links (real)
 *   unlinked               += pages without in-links, real - twin
 *   tree_up, tree_siblings : r += 3 (reciprocity real - twin), r in [0, 2], up = min(r, 1),
 *                            siblings = max(r - 1, 0)
 *   template_links         += round(40 (clustering real - twin)), at least 1 when off by > 10 %,
 *                            at most the real out-degree median (a template is in every page;
 *                            with degree_total, in the pages whose degree holds it: at most the
 *                            90th percentile)
 *   near_share             += 1.5 (gap < 2^8 real - twin)
 *   near_alpha             += 3 (gap4/gap8 real - twin), gapK the share of gaps below 2^K
 *   near_forward           += 2 (forward share among gaps below 2^8, real - twin)
 *   p_host                 += gap < 2^12 real - twin, at most 0.97 (p_topic = 0.8 of the rest)
 *   host_popularity_skew   += 2 (largest SCC twin - real): unpopular hosts nobody links to
 *   page_popularity_skew   += in-degree exponent at x_min = 20, twin - real
 *   in_hosts, out_hosts,   += the bow-tie's IN, OUT and rest, real - twin (each in [0, 0.95],
 *   isolated_hosts            scaled down together to a sum of 0.95: some hosts stay open)
 *   near_snap              += 0.5 log((in-degree median twin + 1/2) / (real + 1/2))
 *   tree_only              += 0.3 log((in-degree median twin + 1/2) / (real + 1/2)), in
 *                            [0, 0.8], with near_snap's group
 *   tree_branching         *= (distance mean twin / real)^1.5, rounded, in [2, 256]
 *   dangling               += 1.2 (pages without out-links real - twin), with unlinked's group
 *   host_cross             += 1.5 (links within host twin - real), where the real graph has
 *                            hosts (import.hosts; the row is n/a otherwise)
 *   popular_degree         += 0.6 log(r real / r twin), r the out-degree of a link's target
 *                            over the out-degree mean (the in/out-degree correlation); with
 *                            --orders indeg, += 0.5 log(k1 k10 real / k1 k10 twin) instead, kX
 *                            the pages an in-degree-first crawl knows after X % fetched
 *   link_pairs             += 1.5 (reciprocity real - twin), in [0, 0.6]
 *   site_hosts             *= exp(4 (links into the 1 % most-linked pages, real - twin)), in
 *                            [1, 64]
 *   host_degree            += 1.2 (log out-degree's variance share between hosts, real - twin)
 *   host_dangling          += 1.5 (having no out-links: the same, real - twin); both in
 *                            [0, 0.95], with unlinked's group, where the real graph has hosts
 *                            and --set starts either above 0 (two more rows; otherwise both
 *                            stay as given)
 *   tree_lift              += log(BFS known after 10 % real / twin), in [0, 0.95], where
 *                            tree_only > 0; in phase 2 only (below)
 *   community_hosts        2^k, k += round(3 log2(BFS known after 1 % real / twin)) (at least
 *                            1 when off by > 10 %), k in [6, log2 of the hosts], 0 above; off,
 *                            an eighth of the hosts when the twin discovers > 20 % too fast; in
 *                            phase 2 only, and a move that leaves it unchanged is no candidate;
 *                            with --orders random, BFS's and the random crawl's known after 1 %
 *                            (geometric means) instead of BFS's
 *
 * gen.closed_own (a closed host's kept links drawn as its own links, or uniformly) is no step:
 * where the start has closed hosts and --set does not give it, the search runs twice, from the
 * start with it off and with it on, N candidates each, and the better best is kept.
 *
 * every increment times a step s; except that while the out-degree mean stays below 90 % of the
 * real one with degree_mean at 1.5 times it or more (the hosts cannot supply that many distinct
 * popular pages), page_popularity_skew falls by 0.3 s and p_host by 0.1 s instead. The search keeps
 * the best candidate (the most targets met; ties: the smaller sum of errors over tolerances, then
 * the earlier): each candidate is the best one moved by its update with step s, s grows by half (at
 * most 1) after an improvement and halves otherwise. Once s falls below 1/64 the search moves one
 * group of keys at a time (the groups in the order above, each with its own step, grown and halved
 * alike, groups whose step fell below 1/8 skipped), and ends after N candidates or a round of the
 * groups without an improvement. So no candidate kept is worse than the start.
 *
 * The start: the real dangling share and out-degree mean, hosts of 3 times the out-degree mean
 * (at least 20; the largest at most a tenth of the pages or 10 mean hosts), a directory tree of
 * base 8 whose directories never dangle (dangling_leaves), half the in-host links near their
 * source, half of those onto directories where the real in-degree median is 3 or less (and a
 * fifth of the pages only the tree links to where it is 2 or less), host
 * roles of the real bow-tie's shares, half the in-host links to neighbouring hosts where the real
 * graph has hosts and under 70 % of its links stay inside them, the defaults otherwise (or the
 * --set values). Each key is
 * clamped to a safe range and rounded to 4 significant digits (so that the written spec
 * reproduces the twin bit for bit). A candidate is measured with a lighter sampling (16 distance
 * sources, 2000 clustering pages, 2 BFS seeds); the candidate meeting the most targets (ties: the
 * smaller sum of errors over tolerances, then the earlier) is measured again with the real
 * graph's sampling and written. Everything is deterministic: the same inputs give the same
 * candidates on any rank and thread count (the statistics are).
 */
#include "main/cmd_fit.h"

#include "crawlsim/config.h"
#include "crawlsim/gen.h"
#include "crawlsim/stats.h"
#include "main/cmd_stats.h"
#include "main/main_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cs_cmd_fit_option(const char *a)
{
    return strcmp(a, "--candidates") == 0 || strcmp(a, "--table") == 0 || strcmp(a, "--twin") == 0
               ? 2
               : 0;
}

/* ---- the table's rows ----------------------------------------------------------------------- */

/* How a row's target is stated. */
enum tol_kind {
    TOL_REL,  /* |twin - real| <= tol |real| */
    TOL_ABS,  /* |twin - real| <= tol */
    TOL_ZERO, /* a share: <= tol |real| or, near 0, half a point */
    TOL_PTS   /* a share in points: |twin - real| <= tol (shown in %) */
};

typedef struct row {
    const char *name;
    int kind;
    double tol;
    int fitted; /* a key of the fit follows this statistic */
} row;

static const row rows[] = {
    {"out-degree mean", TOL_REL, 0.10, 1},
    {"out-degree median", TOL_REL, 0.10, 1},
    {"in-degree median", TOL_REL, 0.10, 1},
    {"pages without out-links", TOL_ZERO, 0.20, 1},
    {"pages without in-links", TOL_ZERO, 0.20, 1},
    {"out-degree tail exponent (x_min by KS)", TOL_ABS, 0.15, 0},
    {"in-degree tail exponent (x_min by KS)", TOL_ABS, 0.15, 0},
    {"in-degree tail exponent (x_min = 20)", TOL_ABS, 0.15, 1},
    {"reciprocity", TOL_REL, 0.20, 1},
    {"average clustering", TOL_REL, 0.20, 1},
    {"links with |id gap| < 2^4", TOL_PTS, 0.05, 1},
    {"links with |id gap| < 2^8", TOL_PTS, 0.05, 1},
    {"links with |id gap| < 2^12", TOL_PTS, 0.05, 1},
    {"forward links among |gap| < 2^8", TOL_PTS, 0.05, 1},
    {"bow-tie: largest SCC", TOL_PTS, 0.05, 1},
    {"bow-tie: IN", TOL_PTS, 0.05, 1},
    {"bow-tie: OUT", TOL_PTS, 0.05, 1},
    {"bow-tie: tendrils and the rest", TOL_PTS, 0.05, 1},
    {"directed distance mean", TOL_REL, 0.20, 1},
    {"BFS: pages known after 1 % fetched", TOL_REL, 0.20, 1},
    {"BFS: pages known after 10 % fetched", TOL_REL, 0.20, 1},
    {"links within host", TOL_PTS, 0.05, 1},
    {"out-degree of a link's target", TOL_REL, 0.20, 1},
    {"links into the 1 % most-linked pages", TOL_PTS, 0.05, 1},
    /* --orders indeg, random: shown only where measured */
    {"in-degree first: pages known after 1 % fetched", TOL_REL, 0.20, 1},
    {"in-degree first: pages known after 10 % fetched", TOL_REL, 0.20, 1},
    {"random: pages known after 1 % fetched", TOL_REL, 0.20, 1},
    {"random: pages known after 10 % fetched", TOL_REL, 0.20, 1},
    /* the hosts' levels (gen.host_degree, gen.host_dangling above 0 by --set): likewise */
    {"log out-degree's variance between hosts", TOL_PTS, 0.05, 1},
    {"having no out-links: variance between hosts", TOL_PTS, 0.05, 1},
};
enum { N_ROWS = (int)(sizeof rows / sizeof rows[0]) };

static double row_value(const cs_stats *s, int i)
{
    switch (i) {
    case 0:
        return s->out.mean.value;
    case 1:
        return s->out.median.value;
    case 2:
        return s->in.median.value;
    case 3:
        return s->out.zero.value;
    case 4:
        return s->in.zero.value;
    case 5:
        return s->out.alpha.value;
    case 6:
        return s->in.alpha.value;
    case 7:
        return s->in.alpha20.value;
    case 8:
        return s->links.reciprocity.value;
    case 9:
        return s->shape.clustering.value;
    case 10:
        return s->links.gap4.value;
    case 11:
        return s->links.gap8.value;
    case 12:
        return s->links.gap12.value;
    case 13:
        return s->links.forward8.value;
    case 14:
        return s->shape.scc.value;
    case 15:
        return s->shape.in.value;
    case 16:
        return s->shape.out.value;
    case 17:
        return s->shape.rest.value;
    case 18:
        return s->shape.dist_mean.value;
    case 19:
        return s->bfs.known1.value;
    case 20:
        return s->bfs.known10.value;
    case 21: /* NaN where the real graph has no hosts */
        return s->has_hosts ? s->links.within_host.value : (double)NAN;
    case 22:
        return s->links.target_out.value;
    case 23:
        return s->links.top1_in.value;
    case 24:
    case 25:
        return s->indeg.seeds == 0 ? (double)NAN
               : i == 24           ? s->indeg.known1.value
                                   : s->indeg.known10.value;
    case 26:
    case 27:
        return s->rnd.seeds == 0 ? (double)NAN
               : i == 26         ? s->rnd.known1.value
                                 : s->rnd.known10.value;
    case 28: /* NaN where the real graph has no hosts, or the levels are not fitted */
        return s->has_hosts ? s->out.between.value : (double)NAN;
    default:
        return s->has_hosts ? s->out.zero_between.value : (double)NAN;
    }
}

/* The rows of the discovery orders but breadth-first (--orders), and of the hosts' levels: left
 * out where not measured. */
#define ROW_ORDERS 24

/* The hosts' levels are fitted when --set starts either above 0: otherwise their figures are
 * taken out of the real graph's statistics, so that their rows leave the table and the score. */
static void hide_host_levels(const cs_gen_config *g, cs_stats *real)
{
    if (!(g->web.host_degree > 0.0 || g->web.host_dangling > 0.0))
        real->out.between.value = real->out.zero_between.value = (double)NAN;
}

/* The row's error over its tolerance (<= 1: met); NaN when either value is missing. */
static double row_error(int i, double real, double twin)
{
    const row *r = &rows[i];
    const double d = fabs(twin - real);
    switch (r->kind) {
    case TOL_REL:
        return d / (r->tol * fabs(real) > 1e-12 ? r->tol * fabs(real) : 1e-12);
    case TOL_ZERO: {
        const double t = r->tol * fabs(real);
        return d / (t > 0.005 ? t : 0.005);
    }
    default:
        return d / r->tol;
    }
}

/* Targets met and the sum of the errors (each capped at 10) of twin against real. */
static void score(const cs_stats *real, const cs_stats *twin, int *met, double *sum)
{
    *met = 0;
    *sum = 0.0;
    for (int i = 0; i < N_ROWS; i++) {
        const double e = row_error(i, row_value(real, i), row_value(twin, i));
        if (isnan(e))
            continue;
        *met += e <= 1.0;
        *sum += e < 10.0 ? e : 10.0;
    }
}

/* ---- the fitted keys --------------------------------------------------------------------------
 */

/* x rounded to 4 significant digits, through its decimal text (what the spec file holds). */
static double sig4(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.4g", x);
    return strtod(buf, NULL);
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* log(a / b), NaN unless both are positive and finite. */
static double log_ratio(double a, double b)
{
    return a > 0.0 && b > 0.0 && isfinite(a) && isfinite(b) ? log(a / b) : (double)NAN;
}

/* The reciprocity knob r in [0, 2] onto tree_up and tree_siblings. */
static void set_recip(cs_gen_config *g, double r)
{
    g->web.tree_up = sig4(r < 1.0 ? r : 1.0);
    g->web.tree_siblings = sig4(r > 1.0 ? r - 1.0 : 0.0);
}

/* The start: the real graph's size, its dangling share, the out-degree mean less what the
 * structure adds, hosts of three times the out-degree mean (at least 20: room for distinct
 * targets inside the host), a directory tree (of base 8 unless --set gave one) with every down
 * link, half the drawn in-host links near their source. */
static void start(const cs_stats *real, cs_gen_config *g, double *recip)
{
    g->pages = real->n_pages;
    g->web.dangling = sig4(clamp(real->out.zero.value, 0.0, 0.95));
    if (g->web.tree_branching == 0)
        g->web.tree_branching = 8;
    g->web.tree_down = 1.0;
    *recip = 0.5;
    set_recip(g, *recip);
    g->web.near_share = 0.5;
    const double live = 1.0 - g->web.dangling;
    /* the structural links come on top of the drawn degree, or (degree_total) within it */
    g->degree_mean =
        sig4(clamp(real->out.mean.value / live - (g->degree_total ? 0.0 : 1.5), 1.2, 1000.0));
    g->host_size_mean = sig4(clamp(3.0 * real->out.mean.value, 20.0, 5000.0));
    /* the largest host at most a tenth of the pages (or 10 mean hosts): the roles move the
     * bow-tie by host, so no host may hold a large part of it */
    const double hmax = fmax(10.0 * g->host_size_mean, 0.1 * (double)g->pages);
    if ((double)g->host_size_max > hmax || (double)g->host_size_max < 10.0 * g->host_size_mean)
        g->host_size_max = (int64_t)hmax;
    /* every page keeps the link from its directory; the near links onto directories where the
     * real in-degree median is low; the bow-tie's regions from the real shares */
    g->web.dangling_leaves = 1;
    g->web.near_snap = real->in.median.value <= 3.0 ? 0.5 : 0.0;
    g->web.tree_only = real->in.median.value <= 2.0 ? 0.2 : 0.0;
    /* a real graph with hosts: half the in-host links to neighbouring hosts where fewer than
     * 70 % of its links stay inside, and reciprocal pairs (which cross hosts too) where it has
     * reciprocal links */
    if (real->has_hosts && isfinite(real->links.within_host.value)) {
        const int cross = real->links.within_host.value < 0.7;
        g->web.host_cross = cross ? 0.5 : 0.0;
        g->web.link_pairs = cross && real->links.reciprocity.value > 0.1 ? 0.1 : 0.0;
    }
    const cs_stats_shape *b = &real->shape;
    if (isfinite(b->in.value) && isfinite(b->out.value) && isfinite(b->rest.value)) {
        g->web.in_hosts = sig4(clamp(b->in.value, 0.0, 0.9));
        g->web.isolated_hosts = sig4(clamp(b->rest.value, 0.0, 0.9 - g->web.in_hosts));
        g->web.out_hosts = sig4(clamp(b->out.value - g->web.dangling, 0.0,
                                      0.95 - g->web.in_hosts - g->web.isolated_hosts));
    }
}

/* Candidate k + 1 from candidate k (g) and its statistics t (cmd_fit.c's header). */
/* The groups of fitted keys, one statistic each: bits of update()'s mask. */
enum {
    K_DEGREE_MEAN,
    K_DEGREE_ALPHA,
    K_UNLINKED,
    K_RECIP,
    K_TEMPLATE,
    K_NEAR,
    K_P_HOST,
    K_HOST_SKEW,
    K_PAGE_SKEW,
    K_ROLES,
    K_SNAP,
    K_TREE,
    K_CROSS,
    K_POPDEG,
    K_PAIRS,
    K_SITE,
    K_LIFT, /* phase 2 only: the best twin so far, its listings lifted */
    K_COMM, /* phase 2 only: the best twin so far, its far links kept in communities */
    N_KEYS,
    K_ALL = (1 << N_KEYS) - 1 - (1 << K_LIFT) - (1 << K_COMM)
};

static void update(const cs_stats *real, const cs_stats *t, double s, int mask, cs_gen_config *g,
                   double *recip)
{
#define ON(k) ((mask >> (k)) & 1)
    const double live = 1.0 - g->web.dangling;
    const double dm = g->degree_mean + s * 0.8 * (real->out.mean.value - t->out.mean.value) / live;
    if (ON(K_DEGREE_MEAN))
        g->degree_mean = sig4(clamp(dm, 1.2, 3.0 * real->out.mean.value / live));
    const double med = log((real->out.median.value + 0.5) / (t->out.median.value + 0.5));
    if (ON(K_DEGREE_ALPHA) && g->degree_sigma > 0.0) /* log-normal: a wider law, a lower median */
        g->degree_sigma = sig4(clamp(g->degree_sigma - s * 0.6 * med, 0.1, 3.0));
    else if (ON(K_DEGREE_ALPHA))
        g->degree_alpha = sig4(clamp(g->degree_alpha + s * 0.6 * med, 1.4, 6.0));
    if (ON(K_UNLINKED))
        g->web.unlinked =
            sig4(clamp(g->web.unlinked + s * (real->in.zero.value - t->in.zero.value), 0.0, 0.9));
    if (ON(K_RECIP)) {
        *recip =
            clamp(*recip + s * 3.0 * (real->links.reciprocity.value - t->links.reciprocity.value),
                  0.0, 2.0);
        set_recip(g, *recip);
    }
    const double dc = real->shape.clustering.value - t->shape.clustering.value;
    int64_t dT = (int64_t)lround(s * 40.0 * dc);
    if (dT == 0 && fabs(dc) > 0.1 * real->shape.clustering.value)
        dT = dc > 0.0 ? 1 : -1;
    if (ON(K_TEMPLATE))
        g->web.template_links = (int64_t)clamp(
            (double)(g->web.template_links + dT), 0.0,
            fmin(64.0, g->degree_total ? real->out.rich.value : real->out.median.value));
    const cs_stats_links *rl = &real->links, *tl = &t->links;
    if (isfinite(rl->gap8.value) && isfinite(tl->gap8.value)) {
        const double rr = rl->gap4.value / (rl->gap8.value + 1e-9),
                     tr = tl->gap4.value / (tl->gap8.value + 1e-9);
        if (ON(K_NEAR)) {
            g->web.near_share = sig4(
                clamp(g->web.near_share + s * 1.5 * (rl->gap8.value - tl->gap8.value), 0.0, 1.0));
            g->web.near_alpha = sig4(clamp(g->web.near_alpha + s * 3.0 * (rr - tr), 1.1, 4.0));
            g->web.near_forward = sig4(
                clamp(g->web.near_forward + s * 2.0 * (rl->forward8.value - tl->forward8.value),
                      0.0, 1.0));
        }
        if (ON(K_P_HOST)) {
            g->p_host =
                sig4(clamp(g->p_host + s * (rl->gap12.value - tl->gap12.value), 0.05, 0.97));
            g->p_topic = sig4(0.8 * (1.0 - g->p_host));
        }
    }
    if (ON(K_HOST_SKEW) && isfinite(real->shape.scc.value) && isfinite(t->shape.scc.value))
        g->host_popularity_skew = sig4(
            clamp(g->host_popularity_skew + s * 2.0 * (t->shape.scc.value - real->shape.scc.value),
                  0.2, 3.0));
    if (ON(K_PAGE_SKEW) && isfinite(real->in.alpha20.value) && isfinite(t->in.alpha20.value))
        g->page_popularity_skew =
            sig4(clamp(g->page_popularity_skew + s * (t->in.alpha20.value - real->in.alpha20.value),
                       0.5, 2.5));
    if (ON(K_PAGE_SKEW) && ON(K_P_HOST) && t->out.mean.value < 0.9 * real->out.mean.value &&
        g->degree_mean >= 1.5 * real->out.mean.value / live) {
        /* the drawn links do not arrive: a page's host cannot supply that many distinct popular
         * pages. The degree comes first: flatter in-host popularity, fewer in-host links. */
        g->page_popularity_skew = sig4(clamp(g->page_popularity_skew - s * 0.3, 0.5, 2.5));
        g->p_host = sig4(clamp(g->p_host - s * 0.1, 0.05, 0.98));
        g->p_topic = sig4(0.8 * (1.0 - g->p_host));
    }
#undef ON
}

/* gen.community_hosts moved by step s, a power of two from 64 hosts to about all of them, 0 (no
 * communities) above: the twin discovers r1 / t1 times too slowly after 1 % of the fetches. Off,
 * it starts at an eighth of the hosts where the twin discovers over 20 % too fast. */
static int64_t community_move(const cs_gen_config *g, double s, double r1, double t1)
{
    const double hosts = (double)g->pages / g->host_size_mean;
    const int top = (int)floor(log2(fmax(hosts, 64.0)));
    if (g->web.community_hosts <= 0)
        return t1 > 1.2 * r1 && top - 3 >= 6 ? (int64_t)1 << (top - 3) : 0;
    const long k0 = lround(log2((double)g->web.community_hosts));
    long k = lround((double)k0 + s * 3.0 * log2(r1 / t1));
    if (k == k0 && fabs(t1 / r1 - 1.0) > 0.1)
        k += t1 > r1 ? -1 : 1; /* at least one halving or doubling off the target */
    return k < 6 ? 64 : k > top ? 0 : (int64_t)1 << k;
}

/* The groups the web-like keys of cs_gen_web follow (update's K_UNLINKED, K_ROLES, K_SNAP,
 * K_TREE, K_CROSS; cmd_fit.c's header). */
static void update_web(const cs_stats *real, const cs_stats *t, double s, int mask,
                       cs_gen_config *g)
{
#define ON(k) ((mask >> (k)) & 1)
    cs_gen_web *w = &g->web;
    if (ON(K_UNLINKED)) /* only leaves dangle: the flagged share is above the dangling one */
        w->dangling = sig4(
            clamp(w->dangling + s * 1.2 * (real->out.zero.value - t->out.zero.value), 0.0, 0.95));
    const cs_stats_shape *rb = &real->shape, *tb = &t->shape;
    if (ON(K_ROLES) && isfinite(rb->in.value) && isfinite(tb->in.value)) {
        double in = clamp(w->in_hosts + s * (rb->in.value - tb->in.value), 0.0, 0.95);
        double out = clamp(w->out_hosts + s * (rb->out.value - tb->out.value), 0.0, 0.95);
        double iso = clamp(w->isolated_hosts + s * (rb->rest.value - tb->rest.value), 0.0, 0.95);
        const double sum = in + out + iso;
        if (sum > 0.95) { /* some hosts stay open: the core */
            in *= 0.95 / sum;
            out *= 0.95 / sum;
            iso *= 0.95 / sum;
        }
        w->in_hosts = sig4(in);
        w->out_hosts = sig4(out);
        w->isolated_hosts = sig4(iso);
        if (w->in_hosts + w->out_hosts + w->isolated_hosts > 1.0) /* rounding */
            w->isolated_hosts = sig4(w->isolated_hosts - 0.001);
    }
    const double lm = log((t->in.median.value + 0.5) / (real->in.median.value + 0.5));
    if (ON(K_SNAP)) {
        w->near_snap = sig4(clamp(w->near_snap + s * 0.5 * lm, 0.0, 1.0));
        w->tree_only = sig4(clamp(w->tree_only + s * 0.3 * lm, 0.0, 0.8));
    }
    const double rd = rb->dist_mean.value, td = tb->dist_mean.value;
    if (ON(K_TREE) && isfinite(rd) && isfinite(td) && rd > 0.0 && td > 0.0)
        w->tree_branching = (int64_t)lround(
            clamp((double)w->tree_branching * exp(s * 1.5 * log(td / rd)), 2.0, 256.0));
    const double rw = real->links.within_host.value, tw = t->links.within_host.value;
    if (ON(K_CROSS) && real->has_hosts && isfinite(rw) && isfinite(tw))
        w->host_cross = sig4(clamp(w->host_cross + s * 1.5 * (tw - rw), 0.0, 1.0));
    const double ro = real->links.target_out.value / real->out.mean.value,
                 to = t->links.target_out.value / t->out.mean.value;
    const double pd = real->indeg.seeds > 0 && t->indeg.seeds > 0 /* --orders indeg */
                          ? 0.5 * log_ratio(real->indeg.known1.value * real->indeg.known10.value,
                                            t->indeg.known1.value * t->indeg.known10.value)
                          : 0.6 * log_ratio(ro, to);
    if (ON(K_POPDEG) && isfinite(pd))
        w->popular_degree = sig4(clamp(w->popular_degree + s * pd, 0.0, 1.0));
    if (ON(K_PAIRS))
        w->link_pairs = sig4(clamp(
            w->link_pairs + s * 1.5 * (real->links.reciprocity.value - t->links.reciprocity.value),
            0.0, 0.6));
    const double rt = real->links.top1_in.value, tt = t->links.top1_in.value;
    if (ON(K_SITE) && isfinite(rt) && isfinite(tt))
        w->site_hosts = sig4(clamp(w->site_hosts * exp(s * 4.0 * (rt - tt)), 1.0, 64.0));
    /* each level where both shares are defined (NaN without hosts, unfitted, or without
     * variance: no page, or every page, without out-links) */
    const double rv = real->out.between.value, tv = t->out.between.value;
    if (ON(K_UNLINKED) && isfinite(rv) && isfinite(tv))
        w->host_degree = sig4(clamp(w->host_degree + s * 1.2 * (rv - tv), 0.0, 0.95));
    const double rz = real->out.zero_between.value, tz = t->out.zero_between.value;
    if (ON(K_UNLINKED) && isfinite(rz) && isfinite(tz))
        w->host_dangling = sig4(clamp(w->host_dangling + s * 1.5 * (rz - tz), 0.0, 0.95));
    const double rk = real->bfs.known10.value, tk = t->bfs.known10.value;
    if (ON(K_LIFT) && w->tree_only > 0.0 && isfinite(rk) && isfinite(tk) && rk > 0.0 && tk > 0.0)
        w->tree_lift = sig4(clamp(w->tree_lift + s * log(rk / tk), 0.0, 0.95));
    double r1 = real->bfs.known1.value, t1 = t->bfs.known1.value;
    if (real->rnd.seeds > 0 && t->rnd.seeds > 0) { /* --orders random: with the random crawl's */
        r1 = sqrt(r1 * real->rnd.known1.value);
        t1 = sqrt(t1 * t->rnd.known1.value);
    }
    if (ON(K_COMM) && isfinite(r1) && isfinite(t1) && r1 > 0.0 && t1 > 0.0)
        w->community_hosts = community_move(g, s, r1, t1);
#undef ON
}

/* Candidate k + 1's keys: the groups of mask moved by step s from the best candidate's. */
static void move(const cs_stats *real, const cs_stats *t, double s, int mask, cs_gen_config *g,
                 double *recip)
{
    update(real, t, s, mask, g, recip);
    update_web(real, t, s, mask, g);
}

/* Local. A degree mean the exponent cannot give (gen_model's bound) is met by a steeper
 * exponent: raised by 0.1 until the model builds (the same verdict on every rank). The
 * log-normal law (degree_sigma) has no exponent: its verdict stands. */
static cs_err feasible(cs_ctx *ctx, cs_gen_config *g)
{
    for (int i = 0; i < 60; i++) {
        cs_gen *m = NULL;
        cs_err rc = cs_gen_create(ctx, g, &m);
        cs_gen_destroy(&m);
        if (rc != CS_ERR_CONFIG || strstr(ctx->errmsg, "out-degree") == NULL ||
            g->degree_sigma > 0.0)
            return rc;
        cs_ctx_clear_error(ctx);
        g->degree_alpha = sig4(g->degree_alpha + 0.1);
    }
    return cs_fail(ctx, CS_ERR_CONFIG, "fit: no out-degree exponent gives a mean of %g",
                   g->degree_mean);
}

/* ---- the table and the twin -------------------------------------------------------------------
 */

static void fmt_value(char *buf, size_t n, int i, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (rows[i].kind == TOL_PTS || rows[i].kind == TOL_ZERO || i == 19 || i == 20 ||
             i >= ROW_ORDERS)
        snprintf(buf, n, "%.2f %%", 100.0 * v);
    else
        snprintf(buf, n, "%.4g", v);
}

static void fmt_target(char *buf, size_t n, int i)
{
    const row *r = &rows[i];
    if (r->kind == TOL_REL || r->kind == TOL_ZERO)
        snprintf(buf, n, "%.0f %%%s", 100.0 * r->tol, r->kind == TOL_ZERO ? " (or 0.5 pt)" : "");
    else if (r->kind == TOL_PTS)
        snprintf(buf, n, "%.0f pt", 100.0 * r->tol);
    else
        snprintf(buf, n, "%.2f", r->tol);
}

/* The side-by-side table in Markdown, with its closing note. */
static void print_table(FILE *f, const char *real_path, const cs_stats *real, const cs_stats *twin,
                        const char *which)
{
    fprintf(f,
            "Fit of %s: %lld pages, %lld links; twin: %lld links (%s); discovery crawls from %d "
            "seeds\n\n",
            real_path, (long long)real->n_pages, (long long)real->n_links, (long long)twin->n_links,
            which, real->bfs.seeds);
    fprintf(f, "| statistic | real | twin | difference | target | met |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    int met = 0, known = 0, unmet_fitted = 0, unmet_free = 0;
    for (int i = 0; i < N_ROWS; i++) {
        const double a = row_value(real, i), b = row_value(twin, i), e = row_error(i, a, b);
        if (i >= ROW_ORDERS && isnan(a))
            continue;
        char ra[32], tb[32], df[32], tg[32];
        fmt_value(ra, sizeof ra, i, a);
        fmt_value(tb, sizeof tb, i, b);
        fmt_target(tg, sizeof tg, i);
        if (isnan(e))
            snprintf(df, sizeof df, "-");
        else if (rows[i].kind == TOL_PTS || rows[i].kind == TOL_ZERO)
            snprintf(df, sizeof df, "%+.2f pt", 100.0 * (b - a));
        else if (rows[i].kind == TOL_REL)
            snprintf(df, sizeof df, "%+.1f %%", fabs(a) > 0 ? 100.0 * (b - a) / fabs(a) : 0.0);
        else
            snprintf(df, sizeof df, "%+.3f", b - a);
        const char *ok = isnan(e) ? "n/a" : e <= 1.0 ? "met" : "not met";
        known += !isnan(e);
        met += !isnan(e) && e <= 1.0;
        unmet_fitted += !isnan(e) && e > 1.0 && rows[i].fitted;
        unmet_free += !isnan(e) && e > 1.0 && !rows[i].fitted;
        fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", rows[i].name, ra, tb, df, tg, ok);
    }
    fprintf(f, "\n%d of %d targets met.", met, known);
    if (unmet_fitted > 0)
        fprintf(f,
                " %d fitted statistic%s missed: the search's candidates did not reach %s "
                "(more --candidates, or the mechanism's range, docs/guide/fitting.md).",
                unmet_fitted, unmet_fitted > 1 ? "s" : "", unmet_fitted > 1 ? "them" : "it");
    if (unmet_free > 0)
        fprintf(f,
                " %d statistic%s no key of the fit is searched for (the tails' exponents "
                "but the in-degree's at x_min = 20) missed: %s from the fitted keys, and the "
                "generator has no mechanism aimed at %s.",
                unmet_free, unmet_free > 1 ? "s" : "",
                unmet_free > 1 ? "they follow" : "it follows", unmet_free > 1 ? "them" : "it");
    fprintf(f, "\n");
}

/* Local (rank 0). text into path, under a temporary name renamed when complete. */
static cs_err write_file(cs_ctx *ctx, const char *path, const char *head, const char *body,
                         const char *tail)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cs_fail(ctx, CS_ERR_IO, "fit: output name too long: %s", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return cs_fail(ctx, CS_ERR_IO, "fit: cannot write %s: %s", path, strerror(errno));
    int bad = fputs(head, f) < 0 || fputs(body, f) < 0 || (tail != NULL && fputs(tail, f) < 0);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return cs_fail(ctx, CS_ERR_IO, "fit: writing %s failed", path);
    }
    return CS_OK;
}

/* Local (rank 0). The table as text (malloc'd) through a memory stream. */
static char *table_text(const char *real_path, const cs_stats *real, const cs_stats *twin,
                        const char *which)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    print_table(f, real_path, real, twin, which);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Local (rank 0). The twin spec (every [gen] key, the table as comments) and the table. */
static cs_err write_twin(cs_ctx *ctx, const cs_fit_args *a, const cs_config *cfg,
                         const char *table_path, const char *table)
{
    char *ini = NULL, head[4600];
    cs_err rc = cs_config_to_ini(ctx, cfg, "gen", &ini);
    if (rc != CS_OK)
        return rc;
    snprintf(head, sizeof head,
             "; A twin of %s, written by crawlsim fit (docs/guide/fitting.md): its [gen] world\n"
             "; at this size matches the real graph's statistics as the table in %s says.\n"
             "; --set gen.pages=N scales it.\n",
             a->path, table_path);
    rc = write_file(ctx, a->output, head, ini, NULL);
    free(ini);
    if (rc == CS_OK)
        rc = write_file(ctx, table_path, "", table, NULL);
    return rc;
}

/* Local. The verbose line of candidate k: its key figures and its keys. */
static void log_candidate(cs_ctx *ctx, int k, double step, int group, int met, double sum,
                          double secs, const cs_stats *t, const cs_gen_config *g)
{
    const cs_gen_web *w = &g->web;
    CS_LOG(ctx, CS_LOG_VERBOSE,
           "fit: candidate %d (step %.3g, keys %d): %d targets met, error %.2f (%.1f s): out "
           "%.3g/%g in %g a20 %.3g rec %.3g clu %.3g gap8 %.3g scc/in/out %.3g/%.3g/%.3g dist "
           "%.3g bfs %.3g/%.3g indeg %.3g random %.3g | degree_mean %g alpha %g sigma %g total %d "
           "dangling %g "
           "unlinked %g tree %lld "
           "up %g siblings %g template %lld host_size_mean %g host_skew %g page_skew %g near "
           "%g/%g/%g p_host %g roles in %g out %g isolated %g within %.3g host_cross %g "
           "target out %.3g popular_degree %g link_pairs %g tree_only %g top1 %.3g site_hosts %g "
           "tree_lift %g community_hosts %lld closed_own %d",
           k + 1, step, group, met, sum, secs, t->out.mean.value, t->out.median.value,
           t->in.median.value, t->in.alpha20.value, t->links.reciprocity.value,
           t->shape.clustering.value, t->links.gap8.value, t->shape.scc.value, t->shape.in.value,
           t->shape.out.value, t->shape.dist_mean.value, t->bfs.known1.value, t->bfs.known10.value,
           t->indeg.seeds > 0 ? t->indeg.known1.value : (double)NAN,
           t->rnd.seeds > 0 ? t->rnd.known1.value : (double)NAN, g->degree_mean, g->degree_alpha,
           g->degree_sigma, g->degree_total, w->dangling, w->unlinked, (long long)w->tree_branching,
           w->tree_up, w->tree_siblings, (long long)w->template_links, g->host_size_mean,
           g->host_popularity_skew, g->page_popularity_skew, w->near_share, w->near_alpha,
           w->near_snap, g->p_host, w->in_hosts, w->out_hosts, w->isolated_hosts,
           t->links.within_host.value, w->host_cross, t->links.target_out.value, w->popular_degree,
           w->link_pairs, w->tree_only, t->links.top1_in.value, w->site_hosts, w->tree_lift,
           (long long)w->community_hosts, w->closed_own);
}

/* ---- the command ---------------------------------------------------------------------------- */

/* Local. Option `name`'s whole number s in [1, hi] into *n (*n = dflt when s is NULL);
 * CS_ERR_USAGE otherwise. */
static cs_err parse_count(cs_ctx *ctx, const char *name, const char *s, int dflt, int hi, int *n)
{
    *n = dflt;
    if (s == NULL)
        return CS_OK;
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < 1 || v > hi)
        return main_usage(ctx, " fit", "%s '%s' is not a whole number in [1, %d]", name, s, hi);
    *n = (int)v;
    return CS_OK;
}

/* The best candidate of a search and what it was measured at. */
typedef struct fit_best {
    cs_gen_config *gen; /* its spec */
    cs_stats *stats;    /* its statistics (the light sampling while searching) */
    double recip;       /* its reciprocity keys' target */
    int index, met, tried;
    double sum;
} fit_best;

/* Whether a twin meeting `met` targets with the sum of errors `sum` is better than b's best: more
 * targets met, or as many with a smaller sum. */
static int beats(int met, double sum, const fit_best *b)
{
    return met > b->met || (met == b->met && sum < b->sum);
}

/*
 * The search: candidates made from cfg->gen (the start) and measured with `light`, the best
 * kept in *best. Phase 1 moves every key at once with the step `step`; once it falls below 1/64,
 * phase 2 moves one group of keys at a time (in K_ order, each with its own step).
 */
static cs_err search(cs_ctx *ctx, const cs_stats *real, const cs_stats_opts *light, int candidates,
                     cs_config *cfg, double recip, cs_stats *twin, fit_best *best)
{
    cs_err rc = CS_OK;
    int group = -1, idle = 0;
    double step = 1.0, gstep[N_KEYS];
    for (int j = 0; j < N_KEYS; j++)
        gstep[j] = 1.0;
    best->index = best->met = -1;
    best->sum = 0.0;
    best->recip = recip;
    for (int k = 0; k < candidates; k++) {
        best->tried = k + 1;
        if (k > 0) { /* a step from the best candidate along its update */
            cfg->gen = *best->gen;
            recip = best->recip;
            if (group < 0) {
                move(real, best->stats, step, K_ALL, &cfg->gen, &recip);
            } else {
                do { /* communities that stay as they are make no candidate */
                    do
                        group = (group + 1) % N_KEYS;
                    while (gstep[group] < 1.0 / 8.0 && idle++ < N_KEYS);
                    cfg->gen = *best->gen;
                    recip = best->recip;
                    move(real, best->stats, gstep[group], 1 << group, &cfg->gen, &recip);
                } while (group == K_COMM &&
                         cfg->gen.web.community_hosts == best->gen->web.community_hosts &&
                         idle++ < N_KEYS);
            }
        }
        CS_TRY(ctx, feasible(ctx, &cfg->gen));
        const double t1 = cs_now();
        CS_TRY(ctx, cs_stats_spec(ctx, &cfg->gen, light, 0, twin));
        int met = 0;
        double sum = 0.0;
        score(real, twin, &met, &sum);
        log_candidate(ctx, k, group < 0 ? step : gstep[group], group, met, sum, cs_now() - t1, twin,
                      &cfg->gen);
        const int better = beats(met, sum, best);
        if (better) {
            best->index = k;
            best->met = met;
            best->sum = sum;
            *best->gen = cfg->gen;
            best->recip = recip;
            *best->stats = *twin;
        }
        if (k > 0 && group < 0) {
            step = better ? fmin(1.0, 1.5 * step) : 0.5 * step;
            if (step < 1.0 / 64.0)
                group = N_KEYS - 1; /* phase 2 starts with the first group */
        } else if (k > 0) {
            gstep[group] = better ? fmin(1.0, 1.5 * gstep[group]) : 0.5 * gstep[group];
            idle = better ? 0 : idle + 1;
        }
        CS_LOG(ctx, CS_LOG_INFO, "fit: candidate %d of %d: %d targets met (best %d: %d)", k + 1,
               candidates, met, best->index + 1, best->met);
        if (idle >= N_KEYS)
            break; /* no group's step improves the best */
    }
fail:
    return rc;
}

/* The table's path: --table, or the twin's path with .ini replaced by (or else followed by)
 * .fit.md. */
static void table_path_of(const cs_fit_args *a, char *path, size_t size)
{
    const size_t on = strlen(a->output);
    if (a->table != NULL)
        snprintf(path, size, "%s", a->table);
    else if (on >= 4 && strcmp(a->output + on - 4, ".ini") == 0)
        snprintf(path, size, "%.*s.fit.md", (int)(on - 4), a->output);
    else
        snprintf(path, size, "%s.fit.md", a->output);
}

/* Local. --twin: the spec's world measured as the fit measures its best, against the real
 * graph's statistics in real[0] (real[1] takes the twin's), and the table printed (and written to
 * --table when given); no search. */
static cs_err check_twin(cs_ctx *ctx, const cs_fit_args *a, const cs_stats_opts *full,
                         cs_stats *real)
{
    cs_config cfg;
    cs_err rc = cs_config_load(ctx, a->twin, a->sets, a->nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    if (cfg.gen.pages != real->n_pages)
        return main_usage(ctx, " fit",
                          "the twin %s has %lld pages, the real graph %lld: a twin is measured at "
                          "the real size (--set gen.pages=%lld)",
                          a->twin, (long long)cfg.gen.pages, (long long)real->n_pages,
                          (long long)real->n_pages);
    rc = cs_stats_spec(ctx, &cfg.gen, full, 0, real + 1);
    if (rc != CS_OK)
        return rc;
    hide_host_levels(&cfg.gen, real);
    if (ctx->rank == 0) {
        char which[4200];
        snprintf(which, sizeof which, "%s, measured without a search", a->twin);
        char *table = table_text(a->path, real, real + 1, which);
        rc = table == NULL ? cs_fail(ctx, CS_ERR_NOMEM, "fit: the table") : CS_OK;
        if (rc == CS_OK) {
            fputs(table, stdout);
            if (a->table != NULL)
                rc = write_file(ctx, a->table, "", table, NULL);
            fflush(stdout);
        }
        free(table);
    }
    return cs_agree(ctx, rc);
}

cs_err cs_cmd_fit(cs_ctx *ctx, const cs_fit_args *a)
{
    if (a->npos != 1)
        return main_usage(ctx, " fit", "fit takes exactly one graph file (the real graph)");
    if (a->output == NULL && a->twin == NULL)
        return main_usage(ctx, " fit", "fit needs the twin's spec file: -o TWIN.ini");
    if (a->twin != NULL && (a->output != NULL || a->candidates != NULL))
        return main_usage(ctx, " fit",
                          "--twin measures a twin without a search: no -o, no --candidates");
    int candidates = 0;
    int seeds = 0;
    cs_err rc = parse_count(ctx, "--candidates", a->candidates, 24, 1000, &candidates);
    if (rc == CS_OK)
        rc = parse_count(ctx, "--bfs-seeds", a->bfs_seeds, 5, CS_STATS_MAX_SEEDS, &seeds);
    if (rc != CS_OK)
        return rc;
    char table_path[4096] = "";
    if (a->output != NULL)
        table_path_of(a, table_path, sizeof table_path);
    cs_config cfg;
    rc = cs_config_load(ctx, NULL, a->sets, a->nsets, &cfg);
    if (rc != CS_OK)
        return rc;
    cs_stats_opts full, light;
    cs_stats_opts_default(&full);
    if (a->orders != NULL && cs_cmd_stats_orders(a->orders, &full.orders) != 0)
        return main_usage(ctx, " fit",
                          "--orders '%s' is not a comma-separated list of distinct orders bfs, "
                          "indeg and random",
                          a->orders);
    full.orders |= CS_STATS_ORDER_BFS; /* breadth-first discovery is always a target */
    light = full;
    light.sources = 16;
    light.cluster_pages = 2000;
    full.bfs_seeds = seeds;
    light.bfs_seeds = seeds / 4 > 2 ? seeds / 4 : 2;
    cs_stats *real = NULL;
    fit_best best = {0}, other = {0};
    char *table = NULL;
    CS_TRY(ctx, cs_agree(ctx, cs_calloc(ctx, &real, 4, sizeof *real, "fit statistics")));
    best.stats = real + 2;
    CS_TRY(ctx, cs_agree(ctx, cs_calloc(ctx, &best.gen, 1, sizeof *best.gen, "fit")));
    const double t0 = cs_now();
    CS_TRY(ctx, cs_stats_file(ctx, a->path, &full, real));
    CS_LOG(ctx, CS_LOG_INFO, "fit: %s measured (%lld pages, %lld links) in %.1f s", a->path,
           (long long)real->n_pages, (long long)real->n_links, cs_now() - t0);
    if (a->twin != NULL) {
        rc = check_twin(ctx, a, &full, real);
        goto fail;
    }
    double recip = 0.0;
    hide_host_levels(&cfg.gen, real);
    start(real, &cfg.gen, &recip);
    const cs_gen_config start_gen = cfg.gen;
    int both = start_gen.web.out_hosts + start_gen.web.isolated_hosts > 0.0; /* closed hosts */
    for (int i = 0; i < a->nsets; i++) /* --set gen.closed_own: the user's */
        both &= strncmp(a->sets[i], "gen.closed_own=", 15) != 0;
    CS_TRY(ctx, search(ctx, real, &light, candidates, &cfg, recip, real + 1, &best));
    if (both) { /* again from the start with gen.closed_own switched: the better best kept */
        other.stats = real + 3;
        CS_TRY(ctx, cs_agree(ctx, cs_calloc(ctx, &other.gen, 1, sizeof *other.gen, "fit")));
        cfg.gen = start_gen;
        cfg.gen.web.closed_own = !start_gen.web.closed_own;
        CS_TRY(ctx, search(ctx, real, &light, candidates, &cfg, recip, real + 1, &other));
        CS_LOG(ctx, CS_LOG_INFO,
               "fit: closed_own %d: %d targets met (error %.2f); closed_own %d: %d (error %.2f)",
               best.gen->web.closed_own, best.met, best.sum, other.gen->web.closed_own, other.met,
               other.sum);
        if (beats(other.met, other.sum, &best)) {
            const fit_best t = best;
            best = other;
            other = t;
        }
    }
    cfg.gen = *best.gen;
    CS_TRY(ctx, cs_stats_spec(ctx, &cfg.gen, &full, 0, best.stats));
    if (ctx->rank == 0) {
        char which[64];
        snprintf(which, sizeof which, "candidate %d of %d", best.index + 1, best.tried);
        table = table_text(a->path, real, best.stats, which);
        rc = table == NULL ? cs_fail(ctx, CS_ERR_NOMEM, "fit: the table") : CS_OK;
        if (rc == CS_OK) {
            fputs(table, stdout);
            rc = write_twin(ctx, a, &cfg, table_path, table);
            if (rc == CS_OK)
                printf("wrote %s and %s (%.1f s)\n", a->output, table_path, cs_now() - t0);
            fflush(stdout);
        }
    }
    rc = cs_agree(ctx, rc);
fail:
    free(table);
    free(best.gen);
    free(other.gen);
    free(real);
    return rc;
}
