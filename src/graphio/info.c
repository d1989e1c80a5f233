/*
 * graphio info: whole-graph statistics of a graph file (`crawlsim info`), computed by all
 * ranks, each on a block of pages (cs_block_range), with integer reductions so that the
 * result does not depend on the thread count.
 *
 * - Degree and host-size summaries come from exact global histograms (int64 allreduce).
 *   In-degrees and host sizes are counted in int32 arrays over all pages (hosts) and
 *   reduce-scattered to their block owners in windows of at most 2^27 entries.
 * - Power laws: discrete MLE approximation of Clauset, Shalizi & Newman 2009, Eq. 3.7,
 *   alpha = 1 + n / sum_i ln(x_i / (xmin - 1/2)), with xmin minimising the KS distance
 *   (their Sec. 3.3) between the empirical tail and the fitted CDF
 *   P(X <= x) = 1 - ((x + 1/2) / (xmin - 1/2))^(1 - alpha), both evaluated on the histogram.
 * - Reciprocity is exact: of the two possible links u->v and v->u exactly one "asks" (the
 *   lower page's when u + v is odd, the higher page's when it is even, which spreads the work
 *   evenly over blocks); a link that asks looks for the other one, v's owner answering by
 *   binary search in v's sorted targets. Each pair found counts two reciprocal links. Remote
 *   questions travel with MPI_Alltoall + MPI_Alltoallv in rounds of bounded size (all ranks
 *   make the same number of rounds).
 * - Page-attribute quantiles use a deterministic sample (pages whose id is a multiple of a
 *   step, at most 10^6 pages); min, max and mean are exact, the mean summed in a fixed order.
 */
#include "crawlsim/comm.h"
#include "graphio_impl.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Local. The rank owning page v under cs_block_range(n, ., size). */
static int gio_block_owner(int64_t n, int size, int64_t v)
{
    /* Inverse of cs_block_range: the first n % size ranks hold q + 1 pages, the others q. */
    int64_t q = n / size, r = n % size;
    int64_t cut = r * (q + 1);
    if (v < cut)
        return (int)(v / (q + 1));
    return (int)(r + (v - cut) / q);
}

#define FIT_MIN_TAIL 50        /* candidate xmin needs this many samples at or above it */
#define FIT_MAX_CANDIDATES 400 /* candidates tried, evenly spaced among the eligible ones */
#define SAMPLE_MAX 1000000     /* pages in the quantile sample of page attributes */
#define WINDOW ((int64_t)1 << 27)

#if defined(__GNUC__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)(addr))
#endif
/* Prefetch distance, in links or questions: answering "does v link to u?" takes two dependent
 * random loads (offsets[v], then targets[offsets[v]]); they are issued 2 D and D ahead. */
#define PF_DIST 16

/* ---- histograms and power laws ------------------------------------------------------------- */

int64_t cs_graphio_hist_quantile(const int64_t *h, int64_t kmax, int64_t total, int64_t permille)
{
    int64_t want = (permille * total + 999) / 1000;
    if (want < 1)
        want = 1;
    int64_t cum = 0;
    for (int64_t k = 0; k <= kmax; k++) {
        cum += h[k];
        if (cum >= want)
            return k;
    }
    return kmax;
}

/* Local. KS distance between the tail x[j..] (counts c, n samples) and the fitted law. */
static double ks_distance(const int64_t *x, const int64_t *c, int64_t nd, int64_t j, int64_t n,
                          double alpha)
{
    const double base = (double)x[j] - 0.5, expo = 1.0 - alpha;
    double d = 0.0;
    int64_t cum = 0;
    for (int64_t i = j; i < nd; i++) {
        /* Between observed values the empirical CDF is flat and the model rises, so the
         * distance peaks at an observed value or just before the next one. */
        if (x[i] - 1 >= x[j]) {
            double f = 1.0 - pow(((double)(x[i] - 1) + 0.5) / base, expo);
            double e = fabs((double)cum / (double)n - f);
            d = e > d ? e : d;
        }
        cum += c[i];
        double f = 1.0 - pow(((double)x[i] + 0.5) / base, expo);
        double e = fabs((double)cum / (double)n - f);
        d = e > d ? e : d;
    }
    return d;
}

/* Local. Power-law fit of the histogram (Clauset et al. 2009, Eq. 3.7 and Sec. 3.3). */
static cs_err powerlaw_fit(cs_ctx *ctx, const int64_t *h, int64_t kmax, cs_degree_stats *st)
{
    cs_err rc = CS_OK;
    st->alpha = 0.0;
    st->xmin = 0;
    st->tail = 0;
    int64_t nd = 0;
    for (int64_t k = 1; k <= kmax; k++)
        nd += h[k] > 0;
    if (nd == 0)
        return CS_OK;
    int64_t *x = NULL, *c = NULL, *tail = NULL;
    double *slx = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &x, (size_t)nd, sizeof *x, "power-law fit"));
    CS_TRY(ctx, cs_alloc(ctx, &c, (size_t)nd, sizeof *c, "power-law fit"));
    CS_TRY(ctx, cs_alloc(ctx, &tail, (size_t)nd, sizeof *tail, "power-law fit"));
    CS_TRY(ctx, cs_alloc(ctx, &slx, (size_t)nd, sizeof *slx, "power-law fit"));
    int64_t j = 0;
    for (int64_t k = 1; k <= kmax; k++)
        if (h[k] > 0) {
            x[j] = k;
            c[j] = h[k];
            j++;
        }
    int64_t t = 0;
    double s = 0.0;
    for (j = nd - 1; j >= 0; j--) {
        t += c[j];
        s += (double)c[j] * log((double)x[j]);
        tail[j] = t;
        slx[j] = s;
    }
    /* A cut-off needs FIT_MIN_TAIL values above it spread over at least two distinct values:
     * a tail of one repeated value has no exponent. */
    int64_t eligible = 0;
    while (eligible < nd - 1 && tail[eligible] >= FIT_MIN_TAIL)
        eligible++;
    double best = HUGE_VAL;
    int64_t prev = -1;
    int64_t ncand = eligible < FIT_MAX_CANDIDATES ? eligible : FIT_MAX_CANDIDATES;
    for (int64_t i = 0; i < ncand; i++) {
        j = ncand > 1 ? i * (eligible - 1) / (ncand - 1) : 0;
        if (j == prev)
            continue;
        prev = j;
        const int64_t n = tail[j];
        double lsum = slx[j] - (double)n * log((double)x[j] - 0.5);
        double alpha = 1.0 + (double)n / lsum;
        double d = ks_distance(x, c, nd, j, n, alpha);
        if (d < best) {
            best = d;
            st->alpha = alpha;
            st->xmin = x[j];
            st->tail = n;
        }
    }
fail:
    free(slx);
    free(tail);
    free(c);
    free(x);
    return rc;
}

cs_err cs_graphio_hist_stats(cs_ctx *ctx, const int64_t *h, int64_t kmax, cs_degree_stats *st)
{
    memset(st, 0, sizeof *st);
    int64_t total = 0, sum = 0;
    for (int64_t k = 0; k <= kmax; k++) {
        total += h[k];
        sum += k * h[k];
    }
    if (total == 0)
        return CS_OK;
    st->min = -1;
    for (int64_t k = 0; k <= kmax; k++)
        if (h[k] > 0) {
            if (st->min < 0)
                st->min = k;
            st->max = k;
        }
    st->mean = (double)sum / (double)total;
    st->median = cs_graphio_hist_quantile(h, kmax, total, 500);
    st->p90 = cs_graphio_hist_quantile(h, kmax, total, 900);
    st->p99 = cs_graphio_hist_quantile(h, kmax, total, 990);
    st->zeros = h[0];
    return powerlaw_fit(ctx, h, kmax, st);
}

/* Collective. In-place int64 sum over ranks, in calls of at most WINDOW elements. */
static cs_err allreduce_sum_i64(cs_ctx *ctx, int64_t *a, int64_t count)
{
    for (int64_t o = 0; o < count; o += WINDOW) {
        int64_t c = count - o < WINDOW ? count - o : WINDOW;
        cs_allreduce(ctx, NULL, a + o, (int)c, CS_T_I64, CS_OP_SUM);
    }
    return CS_OK;
}

/*
 * Collective. Statistics of values distributed over ranks (each rank nloc of them, all >= 0):
 * global maximum, histogram, allreduce, summary. Same result on every rank.
 */
static cs_err degree_stats(cs_ctx *ctx, const int32_t *v, int64_t nloc, cs_degree_stats *st)
{
    cs_err rc = CS_OK;
    int64_t *h = NULL;
    int64_t lmax = -1, kmax = -1;
    for (int64_t i = 0; i < nloc; i++)
        lmax = v[i] > lmax ? v[i] : lmax;
    cs_allreduce(ctx, &lmax, &kmax, 1, CS_T_I64, CS_OP_MAX);
    memset(st, 0, sizeof *st);
    if (kmax < 0)
        return CS_OK;
    CS_TRY_AGREE(ctx, cs_calloc(ctx, &h, (size_t)kmax + 1, sizeof *h, "degree histogram"));
    for (int64_t i = 0; i < nloc; i++)
        h[v[i]]++;
    CS_TRY_AGREE(ctx, allreduce_sum_i64(ctx, h, kmax + 1));
    CS_TRY_AGREE(ctx, cs_graphio_hist_stats(ctx, h, kmax, st));
fail:
    free(h);
    return rc;
}

/*
 * Collective. counts[0..total) summed over ranks; this rank receives the sums of its block
 * (cs_block_range(total)) in mine. MPI_Reduce_scatter in windows of WINDOW entries so that
 * every count fits an int.
 */
static cs_err reduce_scatter_counts(cs_ctx *ctx, const int32_t *counts, int64_t total,
                                    int32_t *mine)
{
    cs_err rc = CS_OK;
    const int P = ctx->size;
    int *rcounts = NULL;
    int64_t my_first = 0, my_n = 0;
    cs_block_range(total, ctx->rank, P, &my_first, &my_n);
    CS_TRY_AGREE(ctx, cs_alloc(ctx, &rcounts, (size_t)P, sizeof *rcounts, "reduce-scatter counts"));
    for (int64_t w0 = 0; w0 < total; w0 += WINDOW) {
        int64_t w1 = total - w0 < WINDOW ? total : w0 + WINDOW;
        for (int r = 0; r < P; r++) {
            int64_t a = 0, c = 0;
            cs_block_range(total, r, P, &a, &c);
            int64_t lo = a > w0 ? a : w0, hi = a + c < w1 ? a + c : w1;
            rcounts[r] = hi > lo ? (int)(hi - lo) : 0;
        }
        int64_t at = w0 > my_first ? w0 - my_first : 0;
        if (at > my_n)
            at = my_n;
        cs_reduce_scatter_sum(ctx, counts + w0, mine + at, rcounts, CS_T_I32);
    }
fail:
    free(rcounts);
    return rc;
}

/* ---- reciprocity ---------------------------------------------------------------------------- */

/* A page's host and topic, packed. */
typedef struct page_class {
    int32_t host, topic;
} page_class;

/*
 * Local. Whether link u->v (u != v) asks if v->u exists: exactly one of u->v and v->u asks,
 * the lower page when u + v is odd and the higher one when it is even, so that questions (and
 * answers) spread evenly over the ranks of a block distribution.
 */
static inline int asks(int64_t u, int64_t v)
{
    return ((u ^ v) & 1) ? u < v : u > v;
}

/* Local. Whether sorted list a[0..n) contains x. */
static int contains(const int64_t *a, int64_t n, int64_t x)
{
    const int64_t i = cs_lower_bound_i64(a, n, x);
    return i < n && a[i] == x;
}

/* Local. Queries per exchange round (the CRAWLSIM_INFO_ROUND test hook, or 2^23 / ranks, so
 * that a rank receives at most 2^23 pairs = 128 MiB per round). */
static int64_t round_queries(int size)
{
    const char *s = getenv("CRAWLSIM_INFO_ROUND");
    if (s != NULL) {
        char *end = NULL;
        long long v = strtoll(s, &end, 10);
        if (end != s && *end == '\0' && v > 0)
            return (int64_t)v;
    }
    int64_t r = ((int64_t)1 << 23) / size;
    return r > 0 ? r : 1;
}

/* Local. Pages [p, *end) form the next round: at most R queries, at least one page. */
static int64_t next_round(const int32_t *qcnt, int64_t n, int64_t p, int64_t R)
{
    int64_t sum = 0;
    while (p < n && sum + qcnt[p] <= R) {
        sum += qcnt[p];
        p++;
    }
    return p;
}

/* The buffers of reciprocity_remote's rounds. */
typedef struct recip_bufs {
    int64_t *bound;                         /* P + 1: the ranks' first pages */
    int64_t *tcnt;                          /* threads x P: query counts, then offsets */
    int64_t *sbuf, *rbuf;                   /* queries (u, v) sent and received */
    int64_t rcap;                           /* rbuf's room */
    int *scount, *sdispl, *rcount, *rdispl; /* P each: the alltoallv's counts and offsets */
} recip_bufs;

/* The rounds of at most *R queries a page's (raised to the largest page's, if it has more) that
 * reciprocity_remote needs on every rank: *all_rounds. Collective. */
static cs_err plan_rounds(cs_ctx *ctx, const cs_graph_slice *g, const int32_t *qcnt, int64_t *R,
                          int64_t *all_rounds)
{
    const int64_t n = g->n;
    int64_t maxq = 0;
    *R = round_queries(ctx->size);
    for (int64_t i = 0; i < n; i++)
        maxq = qcnt[i] > maxq ? qcnt[i] : maxq;
    cs_err rc = CS_OK;
    if (maxq > ((int64_t)1 << 28))
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "page %lld has %lld links to other ranks' pages: more "
                     "than crawlsim info handles",
                     (long long)g->first, (long long)maxq);
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    *R = maxq > *R ? maxq : *R;
    int64_t rounds = 0;
    for (int64_t at = 0; at < n; rounds++)
        at = next_round(qcnt, n, at, *R);
    cs_allreduce(ctx, &rounds, all_rounds, 1, CS_T_I64, CS_OP_MAX);
    return CS_OK;
}

/* The queries of pages [p0, p1) bucketed by owner into q->sbuf (counts and offsets in
 * q->scount, q->sdispl): per-thread counts over contiguous page ranges, an exclusive scan
 * (owner-major), then each thread fills its slots. */
static void bucket_queries(const cs_graph_slice *g, int P, int me, int64_t p0, int64_t p1,
                           recip_bufs *q)
{
    const int64_t first = g->first, N = g->n_pages_total;
    const int64_t *off = g->offsets, *tg = g->targets, *bound = q->bound;
    int64_t *tcnt = q->tcnt, *sbuf = q->sbuf;
    int *scount = q->scount, *sdispl = q->sdispl;
    int nthreads = 1;
#pragma omp parallel default(none) shared(nthreads, tcnt, sbuf, scount, sdispl, bound, off, tg)    \
    firstprivate(p0, p1, first, N, P, me)
    {
#pragma omp single
        nthreads = omp_get_num_threads();
        const int t = omp_get_thread_num();
        const int64_t a = p0 + (p1 - p0) * t / nthreads, b = p0 + (p1 - p0) * (t + 1) / nthreads;
        int64_t *cnt = tcnt + (size_t)t * (size_t)P;
        for (int r = 0; r < P; r++)
            cnt[r] = 0;
        for (int64_t i = a; i < b; i++) {
            const int64_t u = first + i;
            int o = off[i] < off[i + 1] ? gio_block_owner(N, P, tg[off[i]]) : 0;
            for (int64_t e = off[i]; e < off[i + 1]; e++) {
                const int64_t v = tg[e];
                while (v >= bound[o + 1])
                    o++;
                if (o != me && v != u && asks(u, v))
                    cnt[o]++;
            }
        }
#pragma omp barrier
#pragma omp single
        {
            int64_t pos = 0;
            for (int r = 0; r < P; r++) {
                int64_t start = pos;
                for (int tt = 0; tt < nthreads; tt++) {
                    int64_t c = tcnt[(size_t)tt * (size_t)P + (size_t)r];
                    tcnt[(size_t)tt * (size_t)P + (size_t)r] = pos;
                    pos += c;
                }
                scount[r] = (int)(2 * (pos - start));
                sdispl[r] = (int)(2 * start);
            }
        }
        for (int64_t i = a; i < b; i++) {
            const int64_t u = first + i;
            int o = off[i] < off[i + 1] ? gio_block_owner(N, P, tg[off[i]]) : 0;
            for (int64_t e = off[i]; e < off[i + 1]; e++) {
                const int64_t v = tg[e];
                while (v >= bound[o + 1])
                    o++;
                if (o != me && v != u && asks(u, v)) {
                    int64_t at = cnt[o]++;
                    sbuf[2 * at] = u;
                    sbuf[2 * at + 1] = v;
                }
            }
        }
    }
}

/* The received queries (nq pairs (u, v) in rbuf, v this rank's) whose link v->u exists. */
static int64_t answer_queries(const cs_graph_slice *g, const int64_t *rbuf, int64_t nq)
{
    const int64_t first = g->first, *off = g->offsets, *tg = g->targets;
    int64_t h = 0;
#pragma omp parallel for default(none) shared(rbuf, off, tg) firstprivate(nq, first)              \
    reduction(+ : h) schedule(static)
    for (int64_t k = 0; k < nq; k++) {
        if (k + 2 * PF_DIST < nq)
            PREFETCH(&off[rbuf[2 * (k + 2 * PF_DIST) + 1] - first]);
        if (k + PF_DIST < nq)
            PREFETCH(&tg[off[rbuf[2 * (k + PF_DIST) + 1] - first]]);
        int64_t u = rbuf[2 * k], vl = rbuf[2 * k + 1] - first;
        h += contains(tg + off[vl], off[vl + 1] - off[vl], u);
    }
    return h;
}

/* One round's queries to their owners (alltoallv into q->rbuf, grown as needed); *nq: the
 * pairs received. Collective. */
static cs_err send_queries(cs_ctx *ctx, recip_bufs *q, int64_t *nq)
{
    const int P = ctx->size;
    cs_err rc = CS_OK;
    cs_alltoall(ctx, q->scount, 1, q->rcount, CS_T_INT);
    int64_t rtotal = 0;
    for (int r = 0; r < P; r++)
        rtotal += q->rcount[r];
    if (rtotal > INT_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "reciprocity round of %lld queries is too large",
                     (long long)rtotal);
    else if (rtotal > q->rcap) {
        free(q->rbuf);
        q->rbuf = NULL;
        q->rcap = rtotal;
        rc = cs_alloc(ctx, &q->rbuf, (size_t)q->rcap, sizeof *q->rbuf, "reciprocity answers");
    }
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    for (int r = 0, at = 0; r < P; r++) {
        q->rdispl[r] = at;
        at += q->rcount[r];
    }
    cs_alltoallv(ctx, q->sbuf, q->scount, q->sdispl, q->rbuf, q->rcount, q->rdispl, CS_T_I64);
    *nq = rtotal / 2;
    return CS_OK;
}

/*
 * Collective. Counts the remote reciprocal links: for every local link u->v that asks (see
 * asks()) with v outside this rank's block, asks v's owner whether v->u exists (qcnt[i]: how
 * many page i asks). *found receives the number of reciprocal pairs answered by this rank.
 */
static cs_err reciprocity_remote(cs_ctx *ctx, const cs_graph_slice *g, const int32_t *qcnt,
                                 int64_t *found)
{
    cs_err rc = CS_OK;
    const int P = ctx->size;
    const int64_t n = g->n, N = g->n_pages_total;
    recip_bufs q;
    memset(&q, 0, sizeof q);
    *found = 0;
    int64_t R = 0, all_rounds = 0;
    CS_TRY(ctx, plan_rounds(ctx, g, qcnt, &R, &all_rounds));
    const int nt_max = omp_get_max_threads();
    rc = cs_alloc(ctx, &q.bound, (size_t)P + 1, sizeof *q.bound, "rank bounds");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &q.tcnt, (size_t)nt_max * (size_t)P, sizeof *q.tcnt, "query counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &q.sbuf, (size_t)(2 * R), sizeof *q.sbuf, "reciprocity queries");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &q.scount, (size_t)P * 4, sizeof *q.scount, "alltoall counts");
    CS_TRY_AGREE(ctx, rc);
    q.sdispl = q.scount + P;
    q.rcount = q.scount + 2 * P;
    q.rdispl = q.scount + 3 * P;
    for (int r = 0; r < P; r++) {
        int64_t c = 0;
        cs_block_range(N, r, P, &q.bound[r], &c);
    }
    q.bound[P] = N;
    int64_t p = 0, hits = 0;
    for (int64_t round = 0; round < all_rounds; round++) {
        const int64_t p0 = p, p1 = next_round(qcnt, n, p, R);
        p = p1;
        bucket_queries(g, P, ctx->rank, p0, p1, &q);
        int64_t nq = 0;
        CS_TRY(ctx, send_queries(ctx, &q, &nq));
        hits += answer_queries(g, q.rbuf, nq);
    }
    *found = hits;
fail:
    free(q.rbuf);
    free(q.scount);
    free(q.sbuf);
    free(q.tcnt);
    free(q.bound);
    return rc;
}

/* ---- page attributes ------------------------------------------------------------------------ */

/* Local. Rearranges a[lo..hi] so that a[k] holds the value of rank k in sorted order, smaller
 * or equal values before it and greater or equal after it (quickselect, median-of-3 pivots;
 * deterministic). */
static void select_kth(double *a, int64_t lo, int64_t hi, int64_t k)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        double x = a[lo], y = a[mid], z = a[hi];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* Local. Nearest-rank quantile (permille / 1000) of s[from..n) when s[0..from) holds the
 * from smallest values; leaves s partitioned at that rank. */
static double sample_quantile(double *s, int64_t n, int64_t from, int64_t permille)
{
    int64_t want = (permille * n + 999) / 1000;
    int64_t k = (want < 1 ? 1 : want) - 1;
    select_kth(s, from, n - 1, k);
    return s[k];
}

/*
 * Collective. Summary of a page attribute x over pages [first, first + n) of each rank:
 * exact min, max and mean (local sums in page order, added in rank order), quantiles of the
 * pages whose id is a multiple of step (gathered to rank 0, broadcast).
 */
static cs_err page_summary(cs_ctx *ctx, const double *x, int64_t first, int64_t n, int64_t N,
                           int64_t step, cs_summary *s)
{
    cs_err rc = CS_OK;
    double *sums = NULL, *samp = NULL, *all = NULL;
    int *counts = NULL, *displs = NULL;
    memset(s, 0, sizeof *s);
    if (N == 0)
        return CS_OK;
    double mm[2] = {HUGE_VAL, HUGE_VAL}, gm[2] = {0, 0}, sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        mm[0] = x[i] < mm[0] ? x[i] : mm[0];
        mm[1] = -x[i] < mm[1] ? -x[i] : mm[1];
        sum += x[i];
    }
    cs_allreduce(ctx, mm, gm, 2, CS_T_F64, CS_OP_MIN);
    s->min = gm[0];
    s->max = -gm[1];

    const int64_t m0 = (first + step - 1) / step * step;
    const int64_t ns = m0 < first + n ? (first + n - 1 - m0) / step + 1 : 0;
    rc = cs_alloc(ctx, &sums, (size_t)ctx->size, sizeof *sums, "partial sums");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &samp, (size_t)ns, sizeof *samp, "quantile sample");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &counts, 2 * (size_t)ctx->size, sizeof *counts, "sample counts");
    CS_TRY_AGREE(ctx, rc);
    displs = counts + ctx->size;
    cs_allgather(ctx, &sum, 1, sums, CS_T_F64);
    double total = 0.0;
    for (int r = 0; r < ctx->size; r++)
        total += sums[r];
    s->mean = total / (double)N;

    for (int64_t k = 0; k < ns; k++)
        samp[k] = x[m0 + k * step - first];
    int mine = (int)ns;
    cs_gather(ctx, &mine, 1, counts, CS_T_INT, 0);
    int64_t nall = 0;
    if (ctx->rank == 0) {
        for (int r = 0; r < ctx->size; r++) {
            displs[r] = (int)nall;
            nall += counts[r];
        }
        rc = cs_alloc(ctx, &all, (size_t)nall, sizeof *all, "quantile sample");
    }
    CS_TRY_AGREE(ctx, rc);
    cs_gatherv(ctx, samp, mine, all, counts, displs, CS_T_F64, 0);
    double q[3] = {0, 0, 0};
    if (ctx->rank == 0 && nall > 0) {
        /* increasing ranks: each selection only looks right of the previous one */
        q[0] = sample_quantile(all, nall, 0, 500);
        q[1] = sample_quantile(all, nall, (500 * nall + 999) / 1000, 900);
        q[2] = sample_quantile(all, nall, (900 * nall + 999) / 1000, 990);
    }
    cs_bcast(ctx, q, 3, CS_T_F64, 0);
    s->median = q[0];
    s->p90 = q[1];
    s->p99 = q[2];
fail:
    free(all);
    free(counts);
    free(samp);
    free(sums);
    return rc;
}

/* ---- the pass over the links ---------------------------------------------------------------- */

/* Local. The first page whose links start at or after link e (offsets sorted). */
static int64_t page_of_link(const int64_t *off, int64_t n, int64_t e)
{
    return cs_lower_bound_i64(off, n, e);
}

/*
 * Local. One pass over the slice's links: in-link counts of all pages (incount, atomic),
 * out-degrees, self loops, links within host and topic, reciprocal links whose two pages are
 * both local (counted twice per pair), and per page the number of questions for other ranks
 * (qcnt). Threads take contiguous ranges of about equal numbers of links.
 */
static void link_pass(const cs_graph_slice *g, const page_class *cls, int32_t *incount,
                      int32_t *outdeg, int32_t *qcnt, int64_t *self_out, int64_t *host_out,
                      int64_t *topic_out, int64_t *recip_out)
{
    const int64_t n = g->n, first = g->first, last = g->first + g->n;
    const int64_t *off = g->offsets, *tg = g->targets;
    const int64_t nl = off[n];
    int64_t self = 0, same_host = 0, same_topic = 0, recip = 0;
#pragma omp parallel default(none) shared(off, tg, cls, incount, outdeg, qcnt)                 \
    firstprivate(n, nl, first, last) reduction(+ : self, same_host, same_topic, recip)
    {
        const int t = omp_get_thread_num(), nth = omp_get_num_threads();
        const int64_t a = t == 0 ? 0 : page_of_link(off, n, nl / nth * t + nl % nth * t / nth);
        const int64_t b =
            t == nth - 1 ? n : page_of_link(off, n, nl / nth * (t + 1) + nl % nth * (t + 1) / nth);
        const int64_t e_end = off[b];
        for (int64_t i = a; i < b; i++) {
            const int64_t u = first + i;
            const int32_t hu = cls[u].host, tu = cls[u].topic;
            int32_t q = 0;
            for (int64_t e = off[i]; e < off[i + 1]; e++) {
                if (e + 2 * PF_DIST < e_end) {
                    const int64_t w = tg[e + 2 * PF_DIST];
                    PREFETCH(&cls[w]);
                    PREFETCH(&incount[w]);
                    if (w >= first && w < last)
                        PREFETCH(&off[w - first]);
                }
                if (e + PF_DIST < e_end) {
                    const int64_t w = tg[e + PF_DIST];
                    if (w >= first && w < last)
                        PREFETCH(&tg[off[w - first]]);
                }
                const int64_t v = tg[e];
#pragma omp atomic update
                incount[v]++;
                same_host += cls[v].host == hu;
                same_topic += tu >= 0 && cls[v].topic == tu;
                if (v == u) {
                    self++;
                } else if (asks(u, v)) {
                    if (v >= first && v < last) {
                        const int64_t vl = v - first;
                        recip += 2 * contains(tg + off[vl], off[vl + 1] - off[vl], u);
                    } else {
                        q++;
                    }
                }
            }
            outdeg[i] = (int32_t)(off[i + 1] - off[i]);
            qcnt[i] = q;
        }
    }
    *self_out = self;
    *host_out = same_host;
    *topic_out = same_topic;
    *recip_out = recip;
}

/* ---- the whole computation ------------------------------------------------------------------ */

/* Every page's host and topic side by side (*cls, N entries: one cache miss per link target
 * instead of two), read on every rank from the open graph file. Collective. */
static cs_err read_classes(cs_ctx *ctx, hid_t file, const char *path, const cs_graph_header *hdr,
                           page_class **cls)
{
    const int64_t N = hdr->n_pages, H = hdr->n_hosts;
    int64_t *host_all = NULL;
    int32_t *topic_all = NULL;
    cs_err rc;
    CS_TRY_AGREE(
        ctx, gio_read_range(ctx, file, path, "/pages/host", H5T_NATIVE_INT64, 8, 0, N, &host_all));
    CS_TRY_AGREE(ctx, cs_graphio_check_ids64(ctx, path, "/pages/host", host_all, 0, N, 0, H));
    CS_TRY_AGREE(ctx, gio_read_range(ctx, file, path, "/pages/topic", H5T_NATIVE_INT32, 4, 0, N,
                                     &topic_all));
    CS_TRY_AGREE(
        ctx, cs_graphio_check_ids32(ctx, path, "/pages/topic", topic_all, 0, N, -1, hdr->n_topics));
    CS_TRY_AGREE(ctx, cs_alloc(ctx, cls, (size_t)N, sizeof **cls, "page hosts and topics"));
    for (int64_t u = 0; u < N; u++) {
        (*cls)[u].host = (int32_t)host_all[u];
        (*cls)[u].topic = topic_all[u];
    }
fail:
    free(topic_all);
    free(host_all);
    return rc;
}

/* The link counts (self loops, within host, within topic, reciprocal) and the shares of
 * relevant and observable pages into info, from one pass over the local links (in-link counts
 * of all pages into incount, out-degrees into outdeg) and the remote reciprocity queries;
 * tp[0], tp[1]: when each ended. Collective. */
static cs_err count_links(cs_ctx *ctx, const cs_graph_slice *g, const page_class *cls,
                          int32_t *incount, int32_t *outdeg, int32_t *qcnt,
                          double relevance_threshold, cs_graph_info *info, double *tp)
{
    const int64_t N = info->hdr.n_pages, M = info->hdr.n_links;
    /* self loops, within host, within topic, reciprocal, relevant, observable */
    int64_t cnt[6] = {0, 0, 0, 0, 0, 0};
    int64_t self = 0, same_host = 0, same_topic = 0, recip = 0;
    link_pass(g, cls, incount, outdeg, qcnt, &self, &same_host, &same_topic, &recip);
    tp[0] = cs_now();
    int64_t remote = 0;
    cs_err rc = cs_agree(ctx, reciprocity_remote(ctx, g, qcnt, &remote));
    if (rc != CS_OK)
        return rc;
    tp[1] = cs_now();
    cnt[0] = self;
    cnt[1] = same_host;
    cnt[2] = same_topic;
    cnt[3] = recip + 2 * remote;
    for (int64_t i = 0; i < g->n; i++) {
        cnt[4] += g->relevance[i] >= relevance_threshold;
        cnt[5] += g->observable[i] != 0;
    }
    cs_allreduce(ctx, NULL, cnt, 6, CS_T_I64, CS_OP_SUM);
    info->self_loops = cnt[0];
    info->reciprocal_links = cnt[3];
    info->frac_within_host = M > 0 ? (double)cnt[1] / (double)M : 0.0;
    info->frac_within_topic = M > 0 ? (double)cnt[2] / (double)M : 0.0;
    info->reciprocity = M - cnt[0] > 0 ? (double)cnt[3] / (double)(M - cnt[0]) : 0.0;
    info->relevance_threshold = relevance_threshold;
    info->relevant_fraction = N > 0 ? (double)cnt[4] / (double)N : 0.0;
    info->observable_fraction = N > 0 ? (double)cnt[5] / (double)N : 0.0;
    return CS_OK;
}

/* The host sizes' statistics into info->host_size: this block's pages counted per host,
 * reduce-scattered to the hosts' owners. Collective. */
static cs_err host_sizes(cs_ctx *ctx, const cs_graph_slice *g, cs_graph_info *info)
{
    const int64_t H = info->hdr.n_hosts;
    int32_t *hostcount = NULL, *hostsize = NULL;
    int64_t hfirst = 0, hn = 0;
    cs_block_range(H, ctx->rank, ctx->size, &hfirst, &hn);
    cs_err rc = cs_calloc(ctx, &hostcount, (size_t)H, sizeof *hostcount, "host sizes");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &hostsize, (size_t)hn, sizeof *hostsize, "host sizes");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t i = 0; i < g->n; i++)
        hostcount[g->host[i]]++;
    CS_TRY_AGREE(ctx, reduce_scatter_counts(ctx, hostcount, H, hostsize));
    CS_TRY_AGREE(ctx, degree_stats(ctx, hostsize, hn, &info->host_size));
fail:
    free(hostsize);
    free(hostcount);
    return rc;
}

/* The page attributes' summaries (relevance, change rate, importance) into info, quantiles over
 * a sample of every step-th page. Collective. */
static cs_err attribute_summaries(cs_ctx *ctx, const cs_graph_slice *g, cs_graph_info *info)
{
    const int64_t N = info->hdr.n_pages, first = g->first, n = g->n;
    const int64_t step = N > SAMPLE_MAX ? (N + SAMPLE_MAX - 1) / SAMPLE_MAX : 1;
    cs_err rc;
    info->quantile_step = step;
    info->quantile_sample = N > 0 ? (N - 1) / step + 1 : 0;
    CS_TRY_AGREE(ctx, page_summary(ctx, g->relevance, first, n, N, step, &info->relevance));
    CS_TRY_AGREE(ctx, page_summary(ctx, g->delta, first, n, N, step, &info->delta));
    CS_TRY_AGREE(ctx, page_summary(ctx, g->mu, first, n, N, step, &info->mu));
fail:
    return rc;
}

cs_err cs_graph_info_compute(cs_ctx *ctx, const char *path, double relevance_threshold,
                             cs_graph_info *info)
{
    const double t0 = cs_now();
    cs_err rc = CS_OK;
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    hid_t file = -1;
    cs_graph_slice g;
    cs_graph_slice_init(&g);
    int32_t *incount = NULL, *indeg = NULL, *outdeg = NULL, *qcnt = NULL;
    page_class *cls = NULL;
    memset(info, 0, sizeof *info);

    rc = cs_graphio_open(ctx, path, &file, &info->hdr);
    if (rc != CS_OK)
        goto fail;
    const int64_t N = info->hdr.n_pages, H = info->hdr.n_hosts;
    if (N > INT32_MAX || H > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "graph file %s: crawlsim info handles up to 2^31 - 1 "
                     "pages and hosts (this graph has %lld and %lld)",
                     path, (long long)N, (long long)H);
    CS_TRY_AGREE(ctx, rc);
    int64_t first = 0, n = 0;
    cs_block_range(N, ctx->rank, ctx->size, &first, &n);
    double tp[6];
    tp[0] = cs_now();
    rc = gio_read_pages(ctx, file, path, &info->hdr, first, n, GIO_READ_PAGES, &g);
    if (rc != CS_OK)
        goto fail;
    /* hosts and topics of link targets: every rank holds those of all pages */
    CS_TRY(ctx, read_classes(ctx, file, path, &info->hdr, &cls));
    if (H5Fclose(file) < 0)
        rc = cs_fail(ctx, CS_ERR_HDF5, "graph file %s: HDF5 failed closing it", path);
    file = -1;
    CS_TRY_AGREE(ctx, rc);
    tp[1] = cs_now();

    rc = cs_calloc(ctx, &incount, (size_t)N, sizeof *incount, "in-degree counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &outdeg, (size_t)n, sizeof *outdeg, "out-degrees");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &qcnt, (size_t)n, sizeof *qcnt, "reciprocity query counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &indeg, (size_t)n, sizeof *indeg, "in-degrees");
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx,
           count_links(ctx, &g, cls, incount, outdeg, qcnt, relevance_threshold, info, tp + 2));
    /* degrees */
    CS_TRY_AGREE(ctx, reduce_scatter_counts(ctx, incount, N, indeg));
    free(incount);
    incount = NULL;
    CS_TRY_AGREE(ctx, degree_stats(ctx, outdeg, n, &info->out_deg));
    CS_TRY_AGREE(ctx, degree_stats(ctx, indeg, n, &info->in_deg));
    CS_TRY(ctx, host_sizes(ctx, &g, info));
    tp[4] = cs_now();
    CS_TRY(ctx, attribute_summaries(ctx, &g, info));
    tp[5] = cs_now();
    CS_LOG(ctx, CS_LOG_VERBOSE,
           "info %s (rank 0): read %.2fs, link pass %.2fs, reciprocity exchange %.2fs, degrees "
           "and hosts %.2fs, page attributes %.2fs",
           path, tp[1] - tp[0], tp[2] - tp[1], tp[3] - tp[2], tp[4] - tp[3], tp[5] - tp[4]);
    info->n_ranks = ctx->size;
    double dt = cs_now() - t0;
    cs_allreduce(ctx, &dt, &info->seconds, 1, CS_T_F64, CS_OP_MAX);

fail:
    if (file >= 0)
        H5Fclose(file);
    free(indeg);
    free(qcnt);
    free(outdeg);
    free(incount);
    free(cls);
    cs_graph_slice_fini(&g);
    cs_h5_quiet_end(&quiet);
    if (rc != CS_OK) {
        memset(info, 0, sizeof *info);
    }
    return rc;
}

/* ---- the report ----------------------------------------------------------------------------- */

static void print_stats(FILE *out, const char *label, const cs_degree_stats *d, const char *k,
                        const char *items, const char *zeros)
{
    fprintf(out, "%-11s min %lld median %lld mean %.2f p90 %lld p99 %lld max %lld (%lld %s)", label,
            (long long)d->min, (long long)d->median, d->mean, (long long)d->p90, (long long)d->p99,
            (long long)d->max, (long long)d->zeros, zeros);
    if (d->tail > 0)
        fprintf(out, "; power law alpha %.2f for %s >= %lld (%lld %s)\n", d->alpha, k,
                (long long)d->xmin, (long long)d->tail, items);
    else
        fprintf(out, "; no power-law fit (fewer than %d %s with %s >= 1, or a single value)\n",
                FIT_MIN_TAIL, items, k);
}

static void print_summary(FILE *out, const char *label, const cs_summary *s)
{
    fprintf(out, "%-11s min %.4g median %.4g mean %.4g p90 %.4g p99 %.4g max %.4g\n", label, s->min,
            s->median, s->mean, s->p90, s->p99, s->max);
}

void cs_graph_info_print(FILE *out, const cs_graph_info *info)
{
    const cs_graph_header *h = &info->hdr;
    const double N = (double)h->n_pages;
    fprintf(out, "source %s, seed %llu, schema version %d\n", h->source[0] ? h->source : "?",
            (unsigned long long)h->seed, h->schema_version);
    fprintf(out, "pages %lld\n", (long long)h->n_pages);
    fprintf(out, "links %lld (mean out-degree %.2f)\n", (long long)h->n_links,
            N > 0 ? (double)h->n_links / N : 0.0);
    fprintf(out, "hosts %lld (mean %.2f pages per host)\n", (long long)h->n_hosts,
            h->n_hosts > 0 ? N / (double)h->n_hosts : 0.0);
    if (h->target_topic >= 0)
        fprintf(out, "topics %d, target topic %d\n", (int)h->n_topics, (int)h->target_topic);
    else
        fprintf(out, "topics %d, no target topic\n", (int)h->n_topics);
    print_stats(out, "out-degree", &info->out_deg, "k", "pages", "pages without out-links");
    print_stats(out, "in-degree", &info->in_deg, "k", "pages", "pages without in-links");
    print_stats(out, "host size", &info->host_size, "size", "hosts", "empty hosts");
    fprintf(out, "links within host %.4f\n", info->frac_within_host);
    if (h->n_topics > 0)
        fprintf(out, "links within topic %.4f\n", info->frac_within_topic);
    else
        fprintf(out, "links within topic - (no topics)\n");
    fprintf(out, "reciprocity %.4f (%lld of %lld links between distinct pages)\n",
            info->reciprocity, (long long)info->reciprocal_links,
            (long long)(h->n_links - info->self_loops));
    fprintf(out, "self loops %lld\n", (long long)info->self_loops);
    fprintf(out, "relevant pages %.4f (relevance >= %g)\n", info->relevant_fraction,
            info->relevance_threshold);
    print_summary(out, "relevance", &info->relevance);
    print_summary(out, "change rate", &info->delta);
    print_summary(out, "importance", &info->mu);
    if (info->quantile_step > 1)
        fprintf(out,
                "(median, p90, p99 of relevance, change rate and importance from a sample "
                "of %lld pages: the page ids divisible by %lld)\n",
                (long long)info->quantile_sample, (long long)info->quantile_step);
    fprintf(out, "observable pages %.4f\n", info->observable_fraction);
    fprintf(out, "link weights %s, term features ", h->has_weights ? "yes" : "no");
    if (h->has_terms)
        fprintf(out, "yes (dim %d)", (int)h->term_dim);
    else
        fprintf(out, "no");
    fprintf(out, ", host names %s, topic names %s\n", h->has_host_names ? "yes" : "no",
            h->has_topic_names ? "yes" : "no");
    fprintf(out, "computed in %.2f seconds on %d rank%s\n", info->seconds, info->n_ranks,
            info->n_ranks == 1 ? "" : "s");
}
