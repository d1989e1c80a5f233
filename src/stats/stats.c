/*
 * stats: the entry points (a graph in memory, a graph file, a spec), gathering the graph on
 * every rank, and the figures counted over links and pages: degrees (Clauset, Shalizi & Newman
 * 2009 Eq. 3.7 for the tail, through cs_graphio_hist_stats), the gap and direction profile,
 * within-host links, reciprocity and the topical and relevance locality. Counts are integers
 * summed over ranks and threads, so they do not depend on either.
 */
#include "stats_impl.h"

#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "crawlsim/rng.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- figures ---------------------------------------------------------------------------- */

cs_stats_est st_exact(double v)
{
    cs_stats_est e = {v, v, v, 0};
    return e;
}

cs_stats_est st_none(void)
{
    cs_stats_est e = {(double)NAN, (double)NAN, (double)NAN, 0};
    return e;
}

cs_stats_est st_mean(const double *x, int64_t n)
{
    if (n < 1)
        return st_none();
    double s = 0.0, ss = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    const double m = s / (double)n;
    for (int64_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    const double h = n > 1 ? 1.96 * sqrt(ss / (double)(n - 1) / (double)n) : (double)NAN;
    cs_stats_est e = {m, m - h, m + h, n};
    return e;
}

cs_stats_est st_mean_defined(double *x, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            x[k++] = x[i];
    return st_mean(x, k);
}

cs_stats_est st_ratio(const double *a, const double *d, int64_t n)
{
    double sa = 0.0, sd = 0.0, ss = 0.0;
    for (int64_t i = 0; i < n; i++) {
        sa += a[i];
        sd += d[i];
    }
    if (n < 1 || sd <= 0.0)
        return st_none();
    const double r = sa / sd;
    for (int64_t i = 0; i < n; i++)
        ss += (a[i] - r * d[i]) * (a[i] - r * d[i]);
    const double h =
        n > 1 ? 1.96 * sqrt(ss / (double)(n - 1) / (double)n) / (sd / (double)n) : (double)NAN;
    cs_stats_est e = {r, r - h, r + h, n};
    return e;
}

int64_t st_draw(uint64_t seed, int id, int64_t k, int64_t N)
{
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_SAMPLE, (uint64_t)id, (uint64_t)k);
    return (int64_t)cs_rng_below(&r, (uint64_t)N);
}

cs_err st_dist_hist(cs_ctx *ctx, const int64_t *h, int64_t kmax, cs_stats_dist *out)
{
    cs_degree_stats d;
    cs_err rc = cs_graphio_hist_stats(ctx, h, kmax, &d);
    if (rc != CS_OK)
        return rc;
    int64_t total = 0, n20 = 0;
    double l20 = 0.0;
    for (int64_t k = 0; k <= kmax; k++) {
        total += h[k];
        if (k >= 20 && h[k] > 0) {
            n20 += h[k];
            l20 += (double)h[k] * log((double)k / 19.5);
        }
    }
    out->mean = st_exact(d.mean);
    out->median = st_exact((double)d.median);
    out->max = st_exact((double)d.max);
    out->zero = st_exact(total > 0 ? (double)d.zeros / (double)total : (double)NAN);
    out->one = st_exact(total > 0 ? (double)(kmax >= 1 ? h[1] : 0) / (double)total : (double)NAN);
    out->two = st_exact(total > 0 ? (double)(kmax >= 2 ? h[2] : 0) / (double)total : (double)NAN);
    int64_t few = 0, below10 = 0;
    for (int64_t k = 0; k <= kmax && k <= 9; k++) {
        below10 += h[k];
        few += k >= 3 ? h[k] : 0;
    }
    const int64_t ten = total - below10;
    out->few = st_exact(total > 0 ? (double)few / (double)total : (double)NAN);
    out->ten = st_exact(total > 0 ? (double)ten / (double)total : (double)NAN);
    out->alpha = d.tail > 0 ? st_exact(d.alpha) : st_none();
    out->xmin = d.xmin;
    out->tail = d.tail;
    out->alpha20 = n20 >= 2 && l20 > 0.0 ? st_exact(1.0 + (double)n20 / l20) : st_none();
    return CS_OK;
}

static void dist_clear(cs_stats_dist *d)
{
    d->mean = d->median = d->max = d->zero = d->one = d->two = d->few = d->ten = d->alpha =
        d->alpha20 = d->rich = d->between = d->zero_between = st_none();
    d->xmin = d->tail = 0;
}

void st_clear(cs_stats *s)
{
    memset(s, 0, sizeof *s);
    dist_clear(&s->out);
    dist_clear(&s->in);
    dist_clear(&s->host);
    cs_stats_est *l[] = {&s->links.gap4,
                         &s->links.gap8,
                         &s->links.gap12,
                         &s->links.forward8,
                         &s->links.within_host,
                         &s->links.reciprocity,
                         &s->links.target_out,
                         &s->links.top1_in,
                         &s->links.top1_club,
                         &s->links.leaf_top1,
                         &s->links.lone_parents,
                         &s->links.lone_top1,
                         &s->links.lone_parent_in,
                         &s->links.same_topic,
                         &s->links.topic_base,
                         &s->links.topic_lift,
                         &s->links.rel_link,
                         &s->links.rel_base,
                         &s->shape.clustering,
                         &s->shape.overlap,
                         &s->shape.scc,
                         &s->shape.in,
                         &s->shape.out,
                         &s->shape.rest,
                         &s->shape.dist_mean,
                         &s->shape.dist_eff90,
                         &s->shape.reach,
                         &s->bfs.known1,
                         &s->bfs.known10,
                         &s->bfs.empty10,
                         &s->indeg.known1,
                         &s->indeg.known10,
                         &s->indeg.empty10,
                         &s->rnd.known1,
                         &s->rnd.known10,
                         &s->rnd.empty10,
                         &s->bfs.rich1,
                         &s->bfs.rich_new1,
                         &s->bfs.other_new1,
                         &s->indeg.rich1,
                         &s->indeg.rich_new1,
                         &s->indeg.other_new1,
                         &s->rnd.rich1,
                         &s->rnd.rich_new1,
                         &s->rnd.other_new1};
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
        *l[i] = st_none();
    cs_stats_bfs *orders[ST_ORDERS] = {&s->bfs, &s->indeg, &s->rnd};
    for (int j = 0; j < ST_ORDERS; j++)
        for (int c = 0; c < CS_STATS_IN_CLASSES; c++)
            orders[j]->by_in[c] = orders[j]->by_in_new[c] = st_none();
    for (int k = 0; k < CS_STATS_N_BLOCKS; k++)
        s->links.block_repeat[k] = st_none();
}

void cs_stats_opts_default(cs_stats_opts *o)
{
    o->seed = 1;
    o->sources = 64;
    o->cluster_pages = 10000;
    o->bfs_seeds = 5;
    o->orders = CS_STATS_ORDER_BFS;
    o->pages = 100000;
    o->relevance_threshold = 0.5;
}

static cs_err check_opts(cs_ctx *ctx, const cs_stats_opts *o)
{
    if (o->sources < 0 || o->cluster_pages < 0 || o->pages < 2 || o->bfs_seeds < 0 ||
        o->bfs_seeds > CS_STATS_MAX_SEEDS || (o->orders & ~CS_STATS_ORDER_ALL) != 0)
        return cs_fail(ctx, CS_ERR_ARG,
                       "stats: sources (%lld) and clustering pages (%lld) must be at least 0, "
                       "sampled pages (%lld) at least 2, BFS seeds (%d) in [0, %d], discovery "
                       "orders (%#x) CS_STATS_ORDER_* bits",
                       (long long)o->sources, (long long)o->cluster_pages, (long long)o->pages,
                       o->bfs_seeds, CS_STATS_MAX_SEEDS, o->orders);
    return CS_OK;
}

int64_t st_max_pages(void)
{
    const char *v = getenv("CRAWLSIM_STATS_MAX_PAGES");
    if (v != NULL) {
        char *end = NULL;
        const long long x = strtoll(v, &end, 10);
        if (end != v && *end == '\0' && x > 0 && x < CS_STATS_MAX_PAGES)
            return (int64_t)x;
    }
    return CS_STATS_MAX_PAGES;
}

/* ---- gathering ---------------------------------------------------------------------------- */

static void graph_free(st_graph *g)
{
    free(g->off);
    free(g->ioff);
    free(g->tg);
    free(g->isrc);
    free(g->host);
    free(g->topic);
    free(g->rel);
    memset(g, 0, sizeof *g);
}

/* Collective. Every rank's block, in rank order, into counts and displacements of int
 * elements (per page: mult elements); CS_ERR_ARG unless the blocks tile [0, N). */
static cs_err block_layout(cs_ctx *ctx, const cs_graph_slice *b, int64_t N, int *cnt, int *dsp)
{
    const int P = ctx->size;
    int64_t mine[2] = {b->first, b->n}, *all = NULL;
    cs_err rc = cs_alloc(ctx, &all, 2 * (size_t)P, sizeof *all, "block layout");
    if (cs_agree(ctx, rc) != CS_OK) {
        free(all);
        return cs_agree(ctx, rc);
    }
    cs_allgather(ctx, mine, 2, all, CS_T_I64);
    int64_t at = 0;
    for (int r = 0; r < P; r++) {
        if (all[2 * r + 1] > 0 && all[2 * r] != at)
            rc = CS_ERR_ARG;
        cnt[r] = (int)all[2 * r + 1];
        dsp[r] = (int)at;
        at += all[2 * r + 1];
    }
    free(all);
    if (rc == CS_OK && at != N)
        rc = CS_ERR_ARG;
    if (rc != CS_OK)
        return cs_fail(ctx, rc, "stats: the ranks' blocks of pages do not tile the %lld pages",
                       (long long)N);
    return CS_OK;
}

/* Collective. The in-links: in-lists sorted by source (a counting pass over the sources in
 * order). */
static cs_err transpose(cs_ctx *ctx, st_graph *g)
{
    cs_err rc = CS_OK;
    int64_t *pos = NULL;
    rc = cs_calloc(ctx, &g->ioff, (size_t)g->N + 1, sizeof *g->ioff, "in-link offsets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->isrc, (size_t)g->M + 1, sizeof *g->isrc, "in-links");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &pos, (size_t)g->N + 1, sizeof *pos, "in-link offsets");
    if (rc != CS_OK) {
        free(pos);
        return rc;
    }
    for (int64_t e = 0; e < g->M; e++)
        g->ioff[g->tg[e] + 1]++;
    for (int64_t v = 0; v < g->N; v++)
        g->ioff[v + 1] += g->ioff[v];
    memcpy(pos, g->ioff, (size_t)(g->N + 1) * sizeof *pos);
    for (int64_t u = 0; u < g->N; u++)
        for (int64_t e = g->off[u]; e < g->off[u + 1]; e++)
            g->isrc[pos[g->tg[e]]++] = (int32_t)u;
    free(pos);
    return CS_OK;
}

/* Collective. The whole graph of the blocks on every rank. */
static cs_err gather(cs_ctx *ctx, const cs_graph_slice *b, int has_hosts, double threshold,
                     st_graph *g)
{
    cs_err rc = CS_OK;
    const int P = ctx->size;
    const int64_t N = b->n_pages_total, n = b->n, m = n > 0 ? b->offsets[n] : 0;
    int *cnt = NULL, *dsp = NULL, *lcnt = NULL, *ldsp = NULL;
    int32_t *deg = NULL, *buf = NULL;
    uint8_t *rbuf = NULL;
    memset(g, 0, sizeof *g);
    g->N = N;
    int64_t M = 0;
    cs_allreduce(ctx, &m, &M, 1, CS_T_I64, CS_OP_SUM);
    g->M = M;
    if (N > st_max_pages() || M > INT32_MAX)
        return cs_fail(ctx, CS_ERR_LIMIT,
                       "stats: the whole-graph statistics gather the graph on every rank and "
                       "handle up to %d pages and 2^31 - 1 links (this graph has %lld and %lld); "
                       "a spec's world can be sampled instead (crawlsim stats SPEC.ini --sampled)",
                       (int)st_max_pages(), (long long)N, (long long)M);
    rc = cs_alloc(ctx, &cnt, 4 * (size_t)P, sizeof *cnt, "block layout");
    CS_TRY_AGREE(ctx, rc);
    dsp = cnt + P;
    lcnt = cnt + 2 * P;
    ldsp = cnt + 3 * P;
    CS_TRY_AGREE(ctx, block_layout(ctx, b, N, cnt, dsp));
    {
        int64_t mine = m, *all = NULL;
        rc = cs_alloc(ctx, &all, (size_t)P, sizeof *all, "link counts");
        CS_TRY_AGREE(ctx, rc);
        cs_allgather(ctx, &mine, 1, all, CS_T_I64);
        int64_t at = 0;
        for (int r = 0; r < P; r++) {
            lcnt[r] = (int)all[r];
            ldsp[r] = (int)at;
            at += all[r];
        }
        free(all);
    }
    rc = cs_alloc(ctx, &g->off, (size_t)N + 1, sizeof *g->off, "offsets");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->tg, (size_t)M + 1, sizeof *g->tg, "links");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->topic, (size_t)N + 1, sizeof *g->topic, "topics");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &g->rel, (size_t)N + 1, sizeof *g->rel, "relevance");
    if (rc == CS_OK && has_hosts)
        rc = cs_alloc(ctx, &g->host, (size_t)N + 1, sizeof *g->host, "hosts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &deg, (size_t)N + 1, sizeof *deg, "degrees");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &buf, (size_t)(m > n ? m : n) + 1, sizeof *buf, "gather buffer");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &rbuf, (size_t)n + 1, sizeof *rbuf, "gather buffer");
    CS_TRY_AGREE(ctx, rc);

    for (int64_t i = 0; i < n; i++)
        buf[i] = (int32_t)(b->offsets[i + 1] - b->offsets[i]);
    cs_allgatherv(ctx, buf, (int)n, deg, cnt, dsp, CS_T_I32);
    g->off[0] = 0;
    for (int64_t u = 0; u < N; u++)
        g->off[u + 1] = g->off[u] + deg[u];
    for (int64_t i = 0; i < n; i++)
        buf[i] = b->topic[i];
    cs_allgatherv(ctx, buf, (int)n, g->topic, cnt, dsp, CS_T_I32);
    if (has_hosts) {
        for (int64_t i = 0; i < n; i++)
            buf[i] = (int32_t)b->host[i];
        cs_allgatherv(ctx, buf, (int)n, g->host, cnt, dsp, CS_T_I32);
    }
    for (int64_t i = 0; i < n; i++)
        rbuf[i] = b->relevance != NULL && b->relevance[i] >= threshold;
    cs_allgatherv(ctx, rbuf, (int)n, g->rel, cnt, dsp, CS_T_U8);
    for (int64_t e = 0; e < m; e++)
        buf[e] = (int32_t)b->targets[e];
    cs_allgatherv(ctx, buf, (int)m, g->tg, lcnt, ldsp, CS_T_I32);
    CS_TRY_AGREE(ctx, transpose(ctx, g));
fail:
    free(rbuf);
    free(buf);
    free(deg);
    free(cnt);
    if (rc != CS_OK)
        graph_free(g);
    return rc;
}

/* ---- links ---------------------------------------------------------------------------------- */

enum {
    C_GAP4,
    C_GAP8,
    C_GAP12,
    C_FWD8,
    C_NEAR8,
    C_HOST,
    C_SELF,
    C_RECIP,
    C_TKNOWN,
    C_TSAME,
    C_RLINKS,
    C_RREL,
    C_RPAGES,
    C_TOUT,
    C_COUNT
};

/* Local. The link counts of pages [a, b) of g. Threads over pages; integer sums. */
static void link_counts(const st_graph *g, int64_t a, int64_t b, int64_t *c)
{
    int64_t gap4 = 0, gap8 = 0, gap12 = 0, fwd8 = 0, near8 = 0, host = 0, self = 0, recip = 0;
    int64_t tout = 0;
    int64_t tknown = 0, tsame = 0, rlinks = 0, rrel = 0, rpages = 0;
    const int64_t *off = g->off;
    const int32_t *tg = g->tg, *hs = g->host, *tp = g->topic;
    const uint8_t *rel = g->rel;
#pragma omp parallel for schedule(dynamic, 1024) default(none) shared(off, tg, hs, tp, rel)      \
    firstprivate(a, b) reduction(+ : gap4, gap8, gap12, fwd8, near8, host, self, recip, tknown,    \
                                     tsame, rlinks, rrel, rpages, tout)
    for (int64_t u = a; u < b; u++) {
        rpages += rel[u];
        for (int64_t e = off[u]; e < off[u + 1]; e++) {
            const int32_t v = tg[e];
            const int64_t gap = (int64_t)v - u, ag = gap < 0 ? -gap : gap;
            tout += off[v + 1] - off[v];
            gap4 += ag < 16;
            gap8 += ag < 256;
            gap12 += ag < 4096;
            if (ag > 0 && ag < 256) {
                near8++;
                fwd8 += gap > 0;
            }
            if (hs != NULL)
                host += hs[u] == hs[v];
            if (tp[u] >= 0 && tp[v] >= 0) {
                tknown++;
                tsame += tp[u] == tp[v];
            }
            if (rel[u]) {
                rlinks++;
                rrel += rel[v];
            }
            if (v == u)
                self++;
            else
                recip += st_holds32(tg + off[v], off[v + 1] - off[v], (int32_t)u);
        }
    }
    int64_t v[C_COUNT] = {gap4,  gap8,   gap12, fwd8,   near8, host,   self,
                          recip, tknown, tsame, rlinks, rrel,  rpages, tout};
    memcpy(c, v, sizeof v);
}

/* Local. share = a / b as an exact figure, NaN when b = 0. */
static cs_stats_est share(int64_t a, int64_t b)
{
    return b > 0 ? st_exact((double)a / (double)b) : st_none();
}

/* Collective. The link figures of g (each rank its block of pages). */
static void links_whole(cs_ctx *ctx, const st_graph *g, cs_stats *s)
{
    int64_t first = 0, n = 0, c[C_COUNT];
    cs_block_range(g->N, ctx->rank, ctx->size, &first, &n);
    link_counts(g, first, first + n, c);
    cs_allreduce(ctx, NULL, c, C_COUNT, CS_T_I64, CS_OP_SUM);
    const int64_t M = g->M;
    s->links.gap4 = share(c[C_GAP4], M);
    s->links.gap8 = share(c[C_GAP8], M);
    s->links.gap12 = share(c[C_GAP12], M);
    s->links.forward8 = share(c[C_FWD8], c[C_NEAR8]);
    if (s->has_hosts)
        s->links.within_host = share(c[C_HOST], M);
    s->links.reciprocity = share(c[C_RECIP], M - c[C_SELF]);
    s->links.target_out = share(c[C_TOUT], M);
    if (s->has_topics)
        s->links.same_topic = share(c[C_TSAME], c[C_TKNOWN]);
    if (s->has_relevance) {
        s->links.rel_link = share(c[C_RREL], c[C_RLINKS]);
        s->links.rel_base = share(c[C_RPAGES], g->N);
    }
}

/* The sum of the n largest values of a histogram h[0..kmax] (h[k]: items of value k), walked
 * from the top; the last value taken in *cut and how many items of it in *at_cut. */
static int64_t top_sum(const int64_t *h, int64_t kmax, int64_t n, int64_t *cut, int64_t *at_cut)
{
    int64_t sum = 0;
    *cut = *at_cut = 0;
    for (int64_t k = kmax; k >= 0 && n > 0; k--) {
        const int64_t take = h[k] < n ? h[k] : n;
        sum += take * k;
        n -= take;
        *cut = k;
        *at_cut = take;
    }
    return sum;
}

/* Local. The club of the ceil(N / 100) most-linked pages (in-degree, ties: the lower page id
 * first): the share of their own links that go to one of them. On crawls of the web the pages
 * every page links to (navigation, home pages) send a large share of their links to each
 * other, so fetching them first finds fewer new pages than their out-degree promises. And the
 * share of the links of the pages with one in-link (the leaves a crawl's frontier fills with)
 * that go to the club: where it is high, fetching a leaf finds little that is new. The
 * pages are those of in-degree above `cut` and the first `at_cut` of in-degree `cut` (the
 * in-degree histogram's walk from the top, degrees()). */
static cs_err top_club(cs_ctx *ctx, const st_graph *g, int64_t cut, int64_t at_cut, cs_stats *s)
{
    cs_err rc = CS_OK;
    uint8_t *top = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &top, (size_t)g->N + 1, 1, "the most-linked pages"));
    for (int64_t u = 0; u < g->N; u++) {
        const int64_t in = g->ioff[u + 1] - g->ioff[u];
        const int tie = in == cut && at_cut > 0; /* (ids ascending: the lower ones first) */
        top[u] = in > cut || tie;
        at_cut -= tie;
    }
    int64_t from = 0, into = 0, leaf = 0, leaf_into = 0;
    for (int64_t u = 0; u < g->N; u++) {
        const int is_leaf = g->ioff[u + 1] - g->ioff[u] == 1;
        if (!top[u] && !is_leaf)
            continue;
        for (int64_t e = g->off[u]; e < g->off[u + 1]; e++) {
            const int to_top = top[g->tg[e]];
            from += top[u];
            into += top[u] & to_top;
            leaf += is_leaf;
            leaf_into += is_leaf & to_top;
        }
    }
    s->links.top1_club = share(into, from);
    s->links.leaf_top1 = share(leaf_into, leaf);
fail:
    free(top);
    return rc;
}

/* Local. Where a crawl finds the pages only one link leads to (lone pages: one in-link, not
 * their own): the share of pages that list at least one, the share of the lone pages that the
 * ceil(N / 100) pages listing the most of them list, and the in-degree of a lone page's parent
 * (the nearest-rank median over the lone pages). On a crawl of the web few pages list most of
 * them, and those pages are not the most-linked ones, so a crawl finds them in bursts when it
 * happens on such a page; where every page lists one or two, every fetch finds something new. */
static cs_err lone_pages(cs_ctx *ctx, const st_graph *g, cs_stats *s)
{
    cs_err rc = CS_OK;
    int64_t *kids = NULL, *h = NULL, *hin = NULL;
    int64_t lone = 0, parents = 0, kmax = 0, imax = 0;
    CS_TRY(ctx, cs_calloc(ctx, &kids, (size_t)g->N + 1, sizeof *kids, "lone pages per parent"));
    for (int64_t u = 0; u < g->N; u++) {
        for (int64_t e = g->off[u]; e < g->off[u + 1]; e++) {
            const int64_t t = g->tg[e];
            kids[u] += t != u && g->ioff[t + 1] - g->ioff[t] == 1;
        }
        lone += kids[u];
        parents += kids[u] > 0;
        kmax = kids[u] > kmax ? kids[u] : kmax;
        const int64_t in = g->ioff[u + 1] - g->ioff[u];
        imax = in > imax ? in : imax;
    }
    s->links.lone_parents = share(parents, g->N);
    if (lone == 0)
        goto fail; /* no lone page: the other two are not defined */
    CS_TRY(ctx, cs_calloc(ctx, &h, (size_t)kmax + 1, sizeof *h, "lone pages histogram"));
    CS_TRY(ctx, cs_calloc(ctx, &hin, (size_t)imax + 1, sizeof *hin, "parents' in-degrees"));
    for (int64_t u = 0; u < g->N; u++) {
        h[kids[u]]++;
        hin[g->ioff[u + 1] - g->ioff[u]] += kids[u]; /* each lone page: its parent's in-degree */
    }
    int64_t cut, at_cut;
    s->links.lone_top1 = share(top_sum(h, kmax, (g->N + 99) / 100, &cut, &at_cut), lone);
    s->links.lone_parent_in = st_exact((double)cs_graphio_hist_quantile(hin, imax, lone, 500));
fail:
    free(hin);
    free(h);
    free(kids);
    return rc;
}

/* Collective. For blocks of B = 16, 256 and 4096 consecutive page ids (u / B): the links whose
 * target an earlier link from the same block points to already, the block's links less its
 * distinct targets, over all links. Neighbouring pages of a crawl order (a directory's pages)
 * repeat each other's links, so a crawl learns little new at most of them; at 256 and 4096 ids
 * the share says how many distinct pages a region of the crawl order links to, which sets the
 * pace of a crawl that fetches at random from its frontier. Each rank counts a range of the
 * blocks of each size. */
static cs_err block_repeat(cs_ctx *ctx, const st_graph *g, cs_stats *s)
{
    cs_err rc = CS_OK;
    int64_t rep[CS_STATS_N_BLOCKS] = {0};
    uint64_t *t = NULL, *tmp = NULL;
    size_t cap = 0, tcap = 0;
    for (int k = 0, size = 16; k < CS_STATS_N_BLOCKS && rc == CS_OK; k++, size *= 16) {
        int64_t first = 0, n = 0;
        cs_block_range((g->N + size - 1) / size, ctx->rank, ctx->size, &first, &n);
        for (int64_t b = first; b < first + n && rc == CS_OK; b++) {
            const int64_t lo = b * size, hi = lo + size < g->N ? lo + size : g->N;
            const int64_t m = g->off[hi] - g->off[lo];
            if (m < 2)
                continue;
            rc = cs_grow(ctx, &t, &cap, (size_t)m, sizeof *t, "a block's links");
            if (rc == CS_OK)
                rc = cs_grow(ctx, &tmp, &tcap, (size_t)m, sizeof *tmp, "a block's links");
            if (rc != CS_OK)
                break;
            for (int64_t e = 0; e < m; e++)
                t[e] = (uint64_t)g->tg[g->off[lo] + e];
            cs_sort_u64(t, m, tmp);
            for (int64_t e = 1; e < m; e++)
                rep[k] += t[e] == t[e - 1];
        }
    }
    free(t);
    free(tmp);
    CS_TRY_AGREE(ctx, rc);
    cs_allreduce(ctx, NULL, rep, CS_STATS_N_BLOCKS, CS_T_I64, CS_OP_SUM);
    for (int k = 0; k < CS_STATS_N_BLOCKS; k++)
        s->links.block_repeat[k] = share(rep[k], g->M);
fail:
    return rc;
}

/* Local. The topic base rate sum_k p_k^2 over pages of known topic, and the topics used. */
static cs_err topic_base(cs_ctx *ctx, const st_graph *g, int32_t K, cs_stats *s)
{
    if (!s->has_topics)
        return CS_OK;
    int64_t *cnt = NULL, known = 0;
    cs_err rc = cs_calloc(ctx, &cnt, (size_t)K + 1, sizeof *cnt, "topic counts");
    if (rc != CS_OK)
        return rc;
    for (int64_t u = 0; u < g->N; u++)
        if (g->topic[u] >= 0 && g->topic[u] < K) {
            cnt[g->topic[u]]++;
            known++;
        }
    double base = 0.0;
    for (int32_t k = 0; k < K; k++) {
        const double p = known > 0 ? (double)cnt[k] / (double)known : 0.0;
        base += p * p;
        s->topics_used += cnt[k] > 0;
    }
    free(cnt);
    if (known > 0 && base > 0.0) {
        s->links.topic_base = st_exact(base);
        if (!isnan(s->links.same_topic.value))
            s->links.topic_lift = st_exact(s->links.same_topic.value / base);
    }
    return CS_OK;
}

/* Local. Histograms of out-degrees, in-degrees and host sizes into s. */
static cs_err degrees(cs_ctx *ctx, const st_graph *g, int64_t H, cs_stats *s)
{
    cs_err rc = CS_OK;
    int64_t *h = NULL, *hsz = NULL;
    int64_t kmax = 0;
    for (int64_t u = 0; u < g->N; u++) {
        const int64_t o = g->off[u + 1] - g->off[u], i = g->ioff[u + 1] - g->ioff[u];
        kmax = o > kmax ? o : kmax;
        kmax = i > kmax ? i : kmax;
    }
    CS_TRY(ctx, cs_calloc(ctx, &h, (size_t)kmax + 1, sizeof *h, "degree histogram"));
    for (int64_t u = 0; u < g->N; u++)
        h[g->off[u + 1] - g->off[u]]++;
    CS_TRY(ctx, st_dist_hist(ctx, h, kmax, &s->out));
    if (g->N > 0) { /* the out-degree at 0-based rank floor(0.9 N), ascending; at least 1 */
        const int64_t rank = (int64_t)(0.9 * (double)g->N);
        int64_t k = 0, below = h[0];
        while (below <= rank)
            below += h[++k];
        s->out.rich = st_exact((double)(k > 1 ? k : 1));
    }
    memset(h, 0, ((size_t)kmax + 1) * sizeof *h);
    for (int64_t u = 0; u < g->N; u++)
        h[g->ioff[u + 1] - g->ioff[u]]++;
    CS_TRY(ctx, st_dist_hist(ctx, h, kmax, &s->in));
    {
        /* The links into the ceil(N / 100) pages of largest in-degree: the largest in-degrees
         * summed from the top of the histogram (ties do not matter here; the club takes the
         * lower page ids among the pages of the last in-degree, `cut`, of which it took at_cut) */
        int64_t cut, at_cut;
        s->links.top1_in = share(top_sum(h, kmax, (g->N + 99) / 100, &cut, &at_cut), g->M);
        CS_TRY(ctx, top_club(ctx, g, cut, at_cut, s));
    }
    if (s->has_hosts) {
        CS_TRY(ctx, cs_calloc(ctx, &hsz, (size_t)H + 1, sizeof *hsz, "host sizes"));
        for (int64_t u = 0; u < g->N; u++)
            hsz[g->host[u]]++;
        int64_t smax = 0;
        for (int64_t x = 0; x < H; x++)
            smax = hsz[x] > smax ? hsz[x] : smax;
        free(h);
        h = NULL;
        CS_TRY(ctx, cs_calloc(ctx, &h, (size_t)smax + 1, sizeof *h, "host-size histogram"));
        for (int64_t x = 0; x < H; x++)
            h[hsz[x]]++;
        CS_TRY(ctx, st_dist_hist(ctx, h, smax, &s->host));
    }
fail:
    free(hsz);
    free(h);
    return rc;
}

/* The share of the variance of x between the hosts' means (the correlation ratio), from each
 * host's count and sum of x and the sum of squares about the mean; NaN when x does not vary. */
static cs_stats_est between_share(const int64_t *cnt, const double *sum, int64_t H, int64_t n,
                                  double total, double ss)
{
    if (n < 2 || !(ss > 0.0))
        return st_none();
    const double m = total / (double)n;
    double b = 0.0;
    for (int64_t x = 0; x < H; x++)
        if (cnt[x] > 0) {
            const double d = sum[x] / (double)cnt[x] - m;
            b += (double)cnt[x] * d * d;
        }
    return st_exact(b / ss);
}

/* Local. How much of the out-degree's variation lies between hosts (cs_stats_dist.between,
 * zero_between): the log out-degree of the pages with out-links, and having none, by host; sums
 * in page order, the same on every rank (each holds the gathered graph). */
static cs_err host_spread(cs_ctx *ctx, const st_graph *g, int64_t H, cs_stats *s)
{
    cs_err rc = CS_OK;
    int64_t *cnt = NULL, *all = NULL;
    double *sum = NULL, *zero = NULL;
    if (!s->has_hosts || g->N < 2)
        return CS_OK;
    CS_TRY(ctx, cs_calloc(ctx, &cnt, 2 * (size_t)H, sizeof *cnt, "host spread"));
    CS_TRY(ctx, cs_calloc(ctx, &sum, 2 * (size_t)H, sizeof *sum, "host spread"));
    all = cnt + H;
    zero = sum + H;
    double total = 0.0, zeros = 0.0;
    int64_t n = 0;
    for (int64_t u = 0; u < g->N; u++) {
        const int64_t d = g->off[u + 1] - g->off[u], h = g->host[u];
        all[h]++;
        zero[h] += d == 0;
        zeros += d == 0;
        if (d > 0) {
            const double x = log((double)d);
            cnt[h]++;
            sum[h] += x;
            total += x;
            n++;
        }
    }
    double ss = 0.0;
    for (int64_t u = 0; n > 0 && u < g->N; u++) {
        const int64_t d = g->off[u + 1] - g->off[u];
        if (d > 0) {
            const double e = log((double)d) - total / (double)n;
            ss += e * e;
        }
    }
    const double p = zeros / (double)g->N;
    s->out.between = between_share(cnt, sum, H, n, total, ss);
    s->out.zero_between = between_share(all, zero, H, g->N, zeros, (double)g->N * p * (1.0 - p));
fail:
    free(cnt);
    free(sum);
    return rc;
}

/* ---- entry points --------------------------------------------------------------------------- */

cs_err cs_stats_compute(cs_ctx *ctx, const cs_graph_slice *block, const cs_graph_meta *meta,
                        const cs_stats_opts *o, cs_stats *out)
{
    const double t0 = cs_now();
    cs_err rc = CS_OK;
    st_graph g;
    memset(&g, 0, sizeof g);
    st_clear(out);
    CS_TRY_AGREE(ctx, check_opts(ctx, o));
    const int64_t N = block->n_pages_total, H = meta->n_hosts;
    out->n_pages = N;
    out->n_hosts = H;
    out->n_topics = meta->n_topics;
    out->has_hosts = H > 1 && H < N;
    out->has_topics = meta->n_topics > 1;
    out->has_relevance = meta->target_topic >= 0;
    CS_TRY_AGREE(ctx, gather(ctx, block, out->has_hosts, o->relevance_threshold, &g));
    const double t1 = cs_now();
    out->n_links = g.M;
    links_whole(ctx, &g, out);
    CS_TRY_AGREE(ctx, degrees(ctx, &g, H, out));
    CS_TRY_AGREE(ctx, host_spread(ctx, &g, H, out));
    g.rich = isnan(out->out.rich.value) ? 1 : (int64_t)out->out.rich.value;
    CS_TRY(ctx, block_repeat(ctx, &g, out));
    CS_TRY_AGREE(ctx, lone_pages(ctx, &g, out));
    CS_TRY_AGREE(ctx, topic_base(ctx, &g, meta->n_topics, out));
    const double t2 = cs_now();
    CS_TRY_AGREE(ctx, st_shape(ctx, &g, o, out));
    CS_LOG(ctx, CS_LOG_VERBOSE,
           "stats (rank 0): gather %.2f s, links and degrees %.2f s, bow-tie, distances, "
           "clustering and discovery %.2f s",
           t1 - t0, t2 - t1, cs_now() - t2);
fail:
    graph_free(&g);
    out->n_ranks = ctx->size;
    double dt = cs_now() - t0;
    cs_allreduce(ctx, &dt, &out->seconds, 1, CS_T_F64, CS_OP_MAX);
    return rc;
}

cs_err cs_stats_file(cs_ctx *ctx, const char *path, const cs_stats_opts *o, cs_stats *out)
{
    cs_err rc = CS_OK;
    cs_graph_header hdr;
    cs_graph_slice b;
    cs_graph_meta meta;
    cs_graph_slice_init(&b);
    cs_graph_meta_init(&meta);
    st_clear(out);
    CS_TRY_AGREE(ctx, cs_graphio_read_header(ctx, path, &hdr));
    if (hdr.n_pages > st_max_pages())
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "stats: graph file %s has %lld pages; the whole-graph statistics gather "
                     "the graph on every rank and handle up to %d",
                     path, (long long)hdr.n_pages, (int)st_max_pages());
    CS_TRY_AGREE(ctx, rc);
    int64_t first = 0, n = 0;
    cs_block_range(hdr.n_pages, ctx->rank, ctx->size, &first, &n);
    CS_TRY_AGREE(ctx, cs_graphio_read_slice(ctx, path, first, n, &b, &meta));
    rc = cs_stats_compute(ctx, &b, &meta, o, out);
fail:
    cs_graph_meta_fini(&meta);
    cs_graph_slice_fini(&b);
    return rc;
}

cs_err cs_stats_spec(cs_ctx *ctx, const cs_gen_config *cfg, const cs_stats_opts *o, int sampled,
                     cs_stats *out)
{
    cs_err rc = CS_OK;
    cs_gen *gen = NULL;
    cs_graph_slice b;
    cs_graph_meta meta;
    cs_graph_slice_init(&b);
    cs_graph_meta_init(&meta);
    st_clear(out);
    CS_TRY_AGREE(ctx, check_opts(ctx, o));
    if (sampled || cfg->pages > st_max_pages()) {
        rc = st_sample_spec(ctx, cfg, o, out);
        goto fail;
    }
    CS_TRY_AGREE(ctx, cs_gen_create(ctx, cfg, &gen));
    int64_t first = 0, n = 0;
    cs_block_range(cs_gen_n_pages(gen), ctx->rank, ctx->size, &first, &n);
    CS_TRY_AGREE(ctx, cs_gen_slice(ctx, gen, first, n, &b, NULL));
    meta.n_hosts = cs_gen_n_hosts(gen);
    meta.n_topics = cs_gen_n_topics(gen);
    meta.target_topic = (int32_t)cfg->target_topic;
    cs_gen_destroy(&gen);
    rc = cs_stats_compute(ctx, &b, &meta, o, out);
fail:
    cs_gen_destroy(&gen);
    cs_graph_meta_fini(&meta);
    cs_graph_slice_fini(&b);
    return rc;
}
