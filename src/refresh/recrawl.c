/*
 * refresh/recrawl: the re-crawl engine (recrawl.h). It owns the registry of policies, the heap of
 * next crawl times of a rank's pages, the Poisson clocks and notification coin flips drawn from
 * per-page counter-based streams, and the refresh-only experiment driver that measures the
 * empirical J_h and J_b of Eq. 1 (Kolobov et al. 2019) against the closed forms of Props. 1, 4.
 */
#include "crawlsim/rng.h"
#include "refresh/recrawl_impl.h"
#include "refresh/refresh_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The registry, in the order of the refresh.policy choices: the clock policies with their ops
 * (src/config/registry_recrawl.def), then the bandit policies' re-crawl names
 * (src/config/registry_bandit.def, the bandit registry's own list), all run by
 * cs_recrawl_bandit_ops. */
static const struct {
    const char *name, *summary;
    const recrawl_ops *ops;
} registry[] = {
#define CS_RECRAWL_POLICY(id, nm, sum) {nm, sum, &cs_recrawl_##id##_ops},
#include "config/registry_recrawl.def"
#undef CS_RECRAWL_POLICY
};
#define NREG ((int)(sizeof registry / sizeof registry[0]))

static const struct {
    const char *name, *summary;
} bandits[] = {
#define CS_BANDIT_POLICY(id, nm, rn, sum) {rn, sum},
#define CS_BANDIT_ONLY(id, nm)
#include "config/registry_bandit.def"
#undef CS_BANDIT_POLICY
#undef CS_BANDIT_ONLY
};
#define NBANDIT ((int)(sizeof bandits / sizeof bandits[0]))

/* The policy named `policy`: a clock policy of the registry, or a bandit policy (refresh.policy
 * = bandit-*, all run by recrawl_bandit.c, which finds it with cs_bandit_find_recrawl). */
static const recrawl_ops *find_ops(const char *policy)
{
    for (int i = 0; policy != NULL && i < NREG; i++)
        if (strcmp(registry[i].name, policy) == 0)
            return registry[i].ops;
    for (int i = 0; policy != NULL && i < NBANDIT; i++)
        if (strcmp(bandits[i].name, policy) == 0)
            return &cs_recrawl_bandit_ops;
    return NULL;
}

const char *cs_recrawl_name(int i)
{
    if (i >= 0 && i < NREG)
        return registry[i].name;
    return i >= NREG && i < NREG + NBANDIT ? bandits[i - NREG].name : NULL;
}

const char *cs_recrawl_summary(const char *policy)
{
    for (int i = 0; i < NREG; i++)
        if (strcmp(registry[i].name, policy) == 0)
            return registry[i].summary;
    for (int i = 0; i < NBANDIT; i++)
        if (strcmp(bandits[i].name, policy) == 0)
            return bandits[i].summary;
    return NULL;
}

void cs_recrawl_config_default(cs_recrawl_config *c)
{
    memset(c, 0, sizeof *c);
    c->policy = "lambdacrawl";
    c->bandwidth = 0.0;
    c->epsilon = 0.1;
    c->adapt_shrink = 0.8;
    c->adapt_grow = 1.4;
    c->learn_guess = 1.0;
    c->learn_suffix = 0;
    c->slot = 1.0;
    c->whittle_decay = 1.0;
    cs_fgdqn_config_default(&c->fgdqn);
    cs_lspe_config_default(&c->lspe);
}

int cs_recrawl_is_slot(const char *policy)
{
    const recrawl_ops *ops = find_ops(policy);
    return ops != NULL && ops->slot != NULL;
}

/* ---- heap of next crawl times ---------------------------------------------------------------- */

static void sift_down(cs_recrawl *r, int64_t p)
{
    const int64_t n = r->hn;
    const double key = r->hkey[p];
    const uint32_t pg = r->hpage[p];
    for (;;) {
        int64_t c = 2 * p + 1;
        if (c >= n)
            break;
        if (c + 1 < n && r->hkey[c + 1] < r->hkey[c])
            c++;
        if (!(r->hkey[c] < key))
            break;
        r->hkey[p] = r->hkey[c];
        r->hpage[p] = r->hpage[c];
        p = c;
    }
    r->hkey[p] = key;
    r->hpage[p] = pg;
}

/* ---- the streams ----------------------------------------------------------------------------- */

static double word_uniform_pos(uint64_t seed, uint64_t id, uint64_t sub, uint64_t w)
{
    cs_rng g;
    cs_rng_init(&g, seed, CS_RNG_POLICY, id, sub);
    cs_rng_seek(&g, w >> 2);
    for (uint64_t j = 0; j < (w & 3); j++)
        (void)cs_rng_u64(&g);
    return cs_rng_uniform_pos(&g);
}

static inline uint64_t pid(const cs_recrawl *r, int64_t i)
{
    return (uint64_t)r->pg.id[i];
}

/* The next crawl of page i after t: Poisson at rate[i] or the policy's interval; INF: none. */
static double next_crawl(cs_recrawl *r, int64_t i, double t)
{
    if (r->ops->next != NULL)
        return r->ops->next(r, r->st, i, t);
    if (!(r->rate[i] > 0.0) || r->prob[i] >= 0.0)
        return CS_INF;
    const double u = word_uniform_pos(r->cfg.seed, pid(r, i), CS_RECRAWL_SUB_CRAWL, r->draws[i]++);
    return t + (-log(u) / r->rate[i]);
}

/* The restart of the clocks visits the slots in page order, each at a random place of the slots'
 * arrays: the lines of the slot CLOCK_AHEAD visits ahead are asked for first, so that their
 * misses overlap instead of following one another. */
#define CLOCK_AHEAD 16

static inline void clock_prefetch(const cs_recrawl *r, int64_t i)
{
    if (r->ops->next != NULL) { /* an interval policy: it reads the last crawl */
        __builtin_prefetch(&r->t_last[i]);
        return;
    }
    __builtin_prefetch(&r->rate[i]); /* a Poisson clock (next_crawl) */
    __builtin_prefetch(&r->prob[i]);
    __builtin_prefetch(&r->draws[i], 1);
    __builtin_prefetch(&r->pg.id[i]);
}

int64_t recrawl_cached(cs_recrawl *r)
{
    int64_t m = 0;
    r->cidx = cs_cache_sorted(r->cache, &m);
    CS_ASSERT(m == r->n);
    return m;
}

/* The view of the cache's slots, fresh (their arrays move when pages join). Pages join through
 * cs_recrawl_fetch, or before the policy is created (recrawl_fit covers them). */
static void recrawl_view(cs_recrawl *r)
{
    cs_cache_slots(r->cache, &r->pg);
    CS_ASSERT(r->pg.n == r->n);
}

/* Local. The per-slot arrays cover the cache's slots: new slots unscheduled (rate 0, prob -1,
 * no last crawl, no draws), then the policy's (ops->grow). CS_ERR_NOMEM (message recorded). */
static cs_err recrawl_fit(cs_recrawl *r)
{
    cs_err rc = CS_OK;
    cs_cache_slots(r->cache, &r->pg);
    const int64_t n0 = r->n, n1 = r->pg.n;
    if (n1 == n0 && r->cap > 0)
        return CS_OK;
    /* never NULL: the solvers see arrays */
    void *const pp[] = {&r->rate, &r->prob, &r->t_last, &r->draws, &r->hkey, &r->hpage};
    const size_t sz[] = {sizeof *r->rate,  sizeof *r->prob, sizeof *r->t_last,
                         sizeof *r->draws, sizeof *r->hkey, sizeof *r->hpage};
    if (cs_slots_reserve(pp, sz, (int)(sizeof sz / sizeof sz[0]), &r->cap, n1) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory for the re-crawl of %lld pages",
                       (long long)n1);
    for (int64_t i = n0; i < n1; i++) {
        r->rate[i] = 0.0;
        r->prob[i] = -1.0;
        r->t_last[i] = CS_NAN;
        r->draws[i] = 0;
    }
    if (r->ops->grow != NULL)
        CS_TRY(r->ctx, r->ops->grow(r, r->st, n0, n1));
    r->n = n1;
fail:
    return rc;
}

/* ---- create / destroy ------------------------------------------------------------------------ */

cs_err cs_recrawl_create(cs_ctx *ctx, const cs_recrawl_config *cfg, const cs_cache_pages *pg,
                         cs_cache *cache, cs_recrawl **out)
{
    cs_err rc = CS_OK;
    const recrawl_ops *ops = cfg != NULL ? find_ops(cfg->policy) : NULL;
    if (ops == NULL)
        return cs_fail(ctx, CS_ERR_ARG, "recrawl: unknown policy '%s'",
                       cfg != NULL && cfg->policy != NULL ? cfg->policy : "(null)");
    if (!(cfg->bandwidth > 0.0) || !isfinite(cfg->bandwidth))
        return cs_fail(ctx, CS_ERR_ARG, "recrawl: bandwidth %g must be finite and > 0",
                       cfg->bandwidth);
    if (!(cfg->epsilon > 0.0 && cfg->epsilon < 1.0))
        return cs_fail(ctx, CS_ERR_ARG, "recrawl: epsilon %g must lie in (0, 1)", cfg->epsilon);
    if (!(cfg->adapt_shrink > 0.0 && cfg->adapt_shrink <= 1.0) || !(cfg->adapt_grow >= 1.0) ||
        !isfinite(cfg->adapt_grow) || !(cfg->adapt_init >= 0.0) || !(cfg->adapt_min >= 0.0) ||
        !(cfg->adapt_max >= 0.0) ||
        (cfg->adapt_min > 0.0 && cfg->adapt_max > 0.0 && cfg->adapt_min > cfg->adapt_max))
        return cs_fail(ctx, CS_ERR_ARG,
                       "recrawl: adaptive needs 0 < shrink <= 1 <= grow and 0 <= min <= max");
    if (!(cfg->learn_guess > 0.0) || !isfinite(cfg->learn_guess) || cfg->learn_suffix < 0)
        return cs_fail(ctx, CS_ERR_ARG,
                       "recrawl: learn_guess must be finite > 0 and learn_suffix >= 0");
    cs_recrawl *r = NULL;
    CS_TRY(ctx, cs_calloc(ctx, &r, 1, sizeof *r, "recrawl"));
    r->ctx = ctx;
    r->cfg = *cfg;
    r->ops = ops;
    r->cache = cache;
    r->npages = pg->n;
    r->t_step = -CS_INF;
    if (ops->create != NULL)
        CS_TRY(ctx, ops->create(ctx, r, &r->st));
    CS_TRY(ctx, recrawl_fit(r)); /* the pages already cached */
    *out = r;
    return CS_OK;
fail:
    cs_recrawl_destroy(&r);
    return rc;
}

void cs_recrawl_destroy(cs_recrawl **pr)
{
    if (pr == NULL || *pr == NULL)
        return;
    cs_recrawl *r = *pr;
    if (r->ops != NULL && r->ops->destroy != NULL && r->st != NULL)
        r->ops->destroy(r->st);
    free(r->rate);
    free(r->prob);
    free(r->t_last);
    free(r->draws);
    free(r->hkey);
    free(r->hpage);
    free(r->out);
    free(r->fj);
    free(r);
    *pr = NULL;
}

const double *cs_recrawl_rates(const cs_recrawl *r)
{
    return r->rate;
}

const double *cs_recrawl_probs(const cs_recrawl *r)
{
    return r->prob;
}

const double *cs_recrawl_estimates(const cs_recrawl *r)
{
    return r->ops->estimates != NULL ? r->ops->estimates(r->st) : NULL;
}

int64_t cs_recrawl_count(const cs_recrawl *r)
{
    return r->crawls;
}

int cs_recrawl_is_poisson(const cs_recrawl *r)
{
    return r->ops->next == NULL && r->ops->slot == NULL;
}

/* ---- solves ---------------------------------------------------------------------------------- */

/* Pages below which the per-page loops of a sync do not wake the threads. */
#define PAGES_PARALLEL 4096

/* The solves run on the cache's slots as they are (every slot is a cached page): their sums are
 * exact and their maxima maxima, so the slots' order gives the bits of the local order, and the
 * rates are written in place. */
cs_err cs_recrawl_solve_rates(cs_ctx *ctx, cs_recrawl *r, cs_refresh_policy policy,
                              const double *delta)
{
    cs_err rc = CS_OK;
    recrawl_view(r);
    const int64_t m = r->n;
    int64_t gm = 0;
    cs_allreduce(ctx, &m, &gm, 1, CS_T_I64, CS_OP_SUM);
    if (gm == 0)
        return CS_OK; /* nothing cached anywhere: nothing to crawl */
    const uint8_t *cf = r->pg.complete;
    cs_refresh_pages cp = {m, r->pg.mu, delta, cf};
    cs_refresh_opts o;
    cs_refresh_opts_default(&o);
    o.epsilon = r->cfg.epsilon;
    o.costs = 0;
    /* LambdaCrawl and LCA crawl complete pages on their notifications: when every cached page
     * is complete the schedule cannot use more than their total change rate, and the solver
     * refuses more. The caller caps R with the true rates; a learner solves on its estimates,
     * whose total may be lower, so R is capped here at 0.999 of the total of the rates in use
     * (exact sums: the same R on every rank; a no-op when the caller's cap already holds). */
    double R = r->cfg.bandwidth;
    if ((policy == CS_REFRESH_LAMBDACRAWL || policy == CS_REFRESH_LCA) && r->pg.complete != NULL) {
        int64_t inc = 0, ginc = 0;
#pragma omp parallel for if (m >= PAGES_PARALLEL) default(none) shared(cf, m) reduction(+ : inc)   \
    schedule(static)
        for (int64_t i = 0; i < m; i++)
            inc += !cf[i];
        cs_allreduce(ctx, &inc, &ginc, 1, CS_T_I64, CS_OP_SUM);
        double sum = 0.0;
        if (ginc == 0)
            CS_TRY(ctx, cs_comm_sum_exact(ctx, delta, m, &sum));
        if (sum > 0.0 && R > 0.999 * sum)
            R = 0.999 * sum;
    }
    CS_TRY(ctx, cs_refresh_solve(ctx, policy, &cp, R, &o, r->rate, r->prob, NULL));
    return CS_OK;
fail:
    return rc;
}

cs_err cs_recrawl_sync(cs_ctx *ctx, cs_recrawl *r, double t)
{
    cs_err rc = CS_OK;
    if (!isfinite(t) || (r->synced && t < r->t_step))
        return cs_fail(ctx, CS_ERR_ARG, "recrawl: sync at %g before the last step %g", t,
                       r->t_step);
    recrawl_view(r);
    const int64_t n = r->n;
    double *tl = r->t_last;
#pragma omp parallel for if (n >= PAGES_PARALLEL) default(none) shared(tl, n, t) schedule(static)
    for (int64_t i = 0; i < n; i++) /* every slot is a cached page */
        if (isnan(tl[i]))
            tl[i] = t;
    CS_TRY(ctx, r->ops->sync(ctx, r, r->st, t));
    /* restart the clocks: Poisson ones from t (memoryless), interval ones from the last crawl;
     * each page's next crawl is its own (its draws counter), computed in parallel into the
     * heap's arrays in page order (the order of its ties), then the pages with a next crawl
     * moved to the front */
    const int64_t m = recrawl_cached(r); /* (the policy's sync does not change the cache) */
    const uint32_t *idx = r->cidx;
    double *hk = r->hkey;
    uint32_t *hp = r->hpage;
#pragma omp parallel for if (m >= PAGES_PARALLEL) default(none) shared(r, idx, hk, hp, tl, m, t)   \
    schedule(static)
    for (int64_t j = 0; j < m; j++) {
        const int64_t i = idx[j];
        if (j + CLOCK_AHEAD < m)
            clock_prefetch(r, idx[j + CLOCK_AHEAD]);
        const double x =
            r->ops->next != NULL ? r->ops->next(r, r->st, i, tl[i]) : next_crawl(r, i, t);
        hk[j] = x < t ? t : x;
        hp[j] = idx[j];
    }
    r->hn = 0;
    for (int64_t j = 0; j < m; j++) {
        if (!(hk[j] < CS_INF))
            continue;
        hk[r->hn] = hk[j];
        hp[r->hn] = hp[j];
        r->hn++;
    }
    for (int64_t p = r->hn / 2 - 1; p >= 0; p--)
        sift_down(r, p);
    r->t_step = t;
    r->synced = 1;
    return CS_OK;
fail:
    return rc;
}

/* ---- steps ----------------------------------------------------------------------------------- */

static void record(cs_recrawl *r, int64_t i, double t, uint32_t changes)
{
    if (r->out_n == r->out_cap && cs_grow(r->ctx, &r->out, &r->out_cap, r->out_n + 1,
                                          sizeof *r->out, "recrawl crawls") != CS_OK) {
        r->err = CS_ERR_NOMEM;
        return;
    }
    r->out[r->out_n].page = r->pg.local[i];
    r->out[r->out_n].t = t;
    r->out[r->out_n].changes = changes;
    r->out_n++;
    r->crawls++;
}

/* The cache's callback: a notified change of complete page i. */
static int on_note(void *arg, int64_t i, double tau, uint64_t k)
{
    cs_recrawl *r = arg;
    if (r->ops->on_change != NULL)
        r->ops->on_change(r, r->st, i, tau);
    if (!(r->prob[i] >= 0.0))
        return 0;
    const double u = word_uniform_pos(r->cfg.seed, pid(r, i), CS_RECRAWL_SUB_NOTE, k);
    if (!(u <= r->prob[i]))
        return 0;
    record(r, i, tau, 1);
    if (r->ops->on_crawl != NULL)
        r->ops->on_crawl(r, r->st, i, tau, r->t_last[i], 1);
    r->t_last[i] = tau;
    return 1;
}

cs_err cs_recrawl_step(cs_recrawl *r, double t_hi, const cs_recrawl_crawl **crawls, int64_t *n)
{
    r->out_n = 0;
    r->err = CS_OK;
    if (!r->synced || !(t_hi >= r->t_step) || !isfinite(t_hi))
        return cs_fail(r->ctx, CS_ERR_ARG, "recrawl: step to %g (last %g, synced %d)", t_hi,
                       r->t_step, r->synced);
    recrawl_view(r);
    while (r->hn > 0 && r->hkey[0] <= t_hi && r->err == CS_OK) {
        const int64_t i = r->hpage[0];
        const double t = r->hkey[0];
        uint32_t ch = 0;
        if (cs_cache_crawl_slot(r->cache, i, t, on_note, r, &ch) != CS_OK)
            return cs_fail(r->ctx, CS_ERR_ARG, "recrawl: page %lld is not in the cache",
                           (long long)r->pg.local[i]);
        record(r, i, t, ch);
        if (r->ops->on_crawl != NULL)
            r->ops->on_crawl(r, r->st, i, t, r->t_last[i], ch);
        r->t_last[i] = t;
        const double nx = next_crawl(r, i, t);
        if (nx < CS_INF) {
            r->hkey[0] = nx > t ? nx : t;
        } else {
            r->hn--;
            r->hkey[0] = r->hkey[r->hn];
            r->hpage[0] = r->hpage[r->hn];
        }
        if (r->hn > 0)
            sift_down(r, 0);
    }
    if (r->err == CS_OK && cs_cache_poll_slot(r->cache, t_hi, on_note, r, NULL, NULL) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_ARG, "recrawl: cache poll to %g refused", t_hi);
    r->t_step = t_hi;
    *crawls = r->out;
    *n = (int64_t)r->out_n;
    return r->err;
}

cs_err recrawl_crawl_now(cs_recrawl *r, int64_t i, double t, uint32_t *changes)
{
    uint32_t ch = 0;
    if (cs_cache_crawl_slot(r->cache, i, t, on_note, r, &ch) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_ARG, "recrawl: page %lld is not in the cache",
                       (long long)(i >= 0 && i < r->n ? r->pg.local[i] : i));
    record(r, i, t, ch);
    if (r->ops->on_crawl != NULL)
        r->ops->on_crawl(r, r->st, i, t, r->t_last[i], ch);
    r->t_last[i] = t;
    *changes = ch;
    return r->err;
}

cs_err cs_recrawl_step_all(cs_ctx *ctx, cs_recrawl *r, double t_hi, const cs_recrawl_crawl **crawls,
                           int64_t *n)
{
    cs_err rc = CS_OK;
    if (r->ops->slot == NULL)
        return cs_agree(ctx, cs_recrawl_step(r, t_hi, crawls, n));
    r->out_n = 0;
    r->err = CS_OK;
    if (!r->synced || !(t_hi >= r->t_step) || !isfinite(t_hi))
        rc = cs_fail(ctx, CS_ERR_ARG, "recrawl: step to %g (last %g, synced %d)", t_hi, r->t_step,
                     r->synced);
    CS_TRY_AGREE(ctx, rc);
    recrawl_view(r);
    CS_TRY(ctx, r->ops->slot(ctx, r, r->st, t_hi));
    if (r->err == CS_OK && cs_cache_poll_slot(r->cache, t_hi, on_note, r, NULL, NULL) != CS_OK)
        rc = cs_fail(ctx, CS_ERR_ARG, "recrawl: cache poll to %g refused", t_hi);
    if (rc == CS_OK)
        rc = r->err;
    CS_TRY_AGREE(ctx, rc);
    r->t_step = t_hi;
    *crawls = r->out;
    *n = (int64_t)r->out_n;
fail:
    return rc;
}

/* ---- the refresh-only experiment ------------------------------------------------------------- */

/* cs_recrawl_fetch of local page li; jn: what cs_cache_first_changes found for it, or NULL to
 * compute it here. */
static cs_err fetch_one(cs_recrawl *r, int64_t li, double t, int *joined, const cs_cache_join *jn)
{
    if (joined != NULL)
        *joined = 0;
    if (!(t >= r->t_step) || !isfinite(t) || li < 0 || li >= r->npages)
        return cs_fail(r->ctx, CS_ERR_ARG,
                       "recrawl: fetch of page %lld at %g before the last "
                       "step %g",
                       (long long)li, t, r->t_step);
    int64_t i = jn != NULL ? jn->slot : cs_cache_slot(r->cache, li);
    if (i < 0) {
        const cs_err a = jn != NULL ? cs_cache_add_first(r->cache, li, t, jn, &i)
                                    : cs_cache_add_slot(r->cache, li, t, &i);
        if (a == CS_ERR_NOMEM)
            return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory for the cache");
        if (a != CS_OK) {
            cs_cache_attr at = {li, CS_NAN, CS_NAN, 0};
            if (jn != NULL)
                at = jn->a;
            else
                cs_cache_attrs(r->cache, li, &at);
            return cs_fail(r->ctx, CS_ERR_ARG,
                           "page %lld cannot be cached: its importance mu = %g and change rate "
                           "delta = %g must be finite and > 0",
                           (long long)at.id, at.mu, at.delta);
        }
        const cs_err g = recrawl_fit(r);
        if (g != CS_OK)
            return g;
        r->t_last[i] = t;
        if (joined != NULL)
            *joined = 1;
        if (r->ops->on_join != NULL)
            r->ops->on_join(r, r->st, i, t);
        return r->err;
    }
    r->err = CS_OK;
    uint32_t ch = 0;
    if (cs_cache_crawl_slot(r->cache, i, t, on_note, r, &ch) != CS_OK)
        return cs_fail(r->ctx, CS_ERR_ARG, "recrawl: fetch of page %lld at %g refused",
                       (long long)li, t);
    if (r->ops->on_crawl != NULL && !isnan(r->t_last[i]))
        r->ops->on_crawl(r, r->st, i, t, r->t_last[i], ch);
    r->t_last[i] = t;
    return r->err;
}

cs_err cs_recrawl_fetch(cs_recrawl *r, int64_t i, double t, int *joined)
{
    recrawl_view(r);
    return fetch_one(r, i, t, joined, NULL);
}

cs_err cs_recrawl_fetch_batch(cs_recrawl *r, const int64_t *idx, int64_t n, double t)
{
    cs_err rc = CS_OK;
    recrawl_view(r);
    CS_TRY(r->ctx,
           cs_grow(r->ctx, &r->fj, &r->fj_cap, (size_t)n + 1, sizeof *r->fj, "recrawl scratch"));
    /* the joining pages' attributes and first changes (the costly part: their streams up to t)
     * in parallel; a page twice in the batch is looked up again at its second fetch */
    cs_cache_first_changes(r->cache, idx, n, t, r->fj);
    for (int64_t j = 0; j < n && rc == CS_OK; j++) {
        if (r->fj[j].slot < 0 && cs_cache_slot(r->cache, idx[j]) >= 0)
            r->fj[j].slot = cs_cache_slot(r->cache, idx[j]);
        rc = fetch_one(r, idx[j], t, NULL, &r->fj[j]);
    }
fail:
    return rc;
}

cs_err cs_recrawl_set_bandwidth(cs_recrawl *r, double R)
{
    if (!(R > 0.0) || !isfinite(R))
        return cs_fail(r->ctx, CS_ERR_ARG, "recrawl: bandwidth %g must be finite and > 0", R);
    r->cfg.bandwidth = R;
    return CS_OK;
}

cs_err cs_recrawl_cost(cs_ctx *ctx, cs_recrawl *r, double *jh, double *jb)
{
    *jh = *jb = CS_NAN;
    if (!cs_recrawl_is_poisson(r))
        return CS_OK;
    recrawl_view(r);
    const int64_t m = r->n; /* the slots, in place: the costs are exact sums */
    int64_t gm = 0;
    cs_allreduce(ctx, &m, &gm, 1, CS_T_I64, CS_OP_SUM);
    if (gm == 0)
        return CS_OK;
    cs_refresh_pages cp = {m, r->pg.mu, r->pg.delta, r->pg.complete};
    return cs_refresh_cost(ctx, &cp, r->rate, r->prob, jh, jb);
}

/* |ln(estimate / delta)| of slot i: a term of the estimates' error. */
static inline double delta_error_term(const double *est, const double *delta, int64_t i)
{
    return fabs(log(est[i] / delta[i]));
}

cs_err cs_recrawl_delta_error(cs_ctx *ctx, cs_recrawl *r, double *err)
{
    const double *est = cs_recrawl_estimates(r);
    int64_t has = est != NULL, all = 0;
    cs_allreduce(ctx, &has, &all, 1, CS_T_I64, CS_OP_MIN);
    *err = CS_NAN;
    if (!all || est == NULL) /* (all is 0 where est is NULL) */
        return CS_OK;
    recrawl_view(r);
    const int64_t n = r->n; /* the slots, in place */
    const double *delta = r->pg.delta;
    /* cs_comm_sum_exact's two passes (the largest term, which sets the scale, then the exact
     * sum: the same bits), each computing the terms rather than reading them from an array of
     * the slots (8 bytes a cached page, held at the peak of a long run) */
    double m0 = 0.0, m1 = 0.0, scale = 1.0, sum = 0.0; /* largest term, any not finite */
#pragma omp parallel for if (n >= PAGES_PARALLEL) default(none) shared(est, delta, n)              \
    reduction(max                                                                                  \
              : m0, m1) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const double x = delta_error_term(est, delta, i);
        if (!isfinite(x))
            m1 = 1.0;
        else if (x > m0)
            m0 = x;
    }
    cs_err rc = cs_comm_fx_begin(ctx, m0, m1 != 0.0, "lambda-learn's estimates' error", &scale);
    if (rc != CS_OK)
        return rc;
    int64_t a[3] = {0, 0, 0}, a0 = 0, a1 = 0, a2 = 0, gn = 0;
#pragma omp parallel for if (n >= PAGES_PARALLEL) default(none) shared(est, delta, n, scale)      \
    reduction(+ : a0, a1, a2) schedule(static)
    for (int64_t i = 0; i < n; i++)
        CS_FX_ADD(delta_error_term(est, delta, i), scale, a0, a1, a2);
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    rc = cs_comm_fx_end(ctx, a, n, scale, &sum, &gn);
    if (rc == CS_OK)
        *err = gn > 0 ? sum / (double)gn : CS_NAN;
    return rc;
}

cs_err cs_recrawl_experiment(cs_ctx *ctx, const cs_recrawl_config *cfg, const cs_cache_pages *pg,
                             uint64_t world_seed, double t_epoch, int n_epochs, int steps, int warm,
                             cs_recrawl_epoch *ep, cs_recrawl_epoch *total)
{
    cs_err rc = CS_OK;
    cs_cache *cache = NULL;
    cs_recrawl *r = NULL;
    if (!(t_epoch > 0.0) || !isfinite(t_epoch) || n_epochs < 1 || steps < 1 || warm < 0 ||
        warm >= n_epochs)
        return cs_fail(ctx, CS_ERR_ARG,
                       "recrawl experiment: need t_epoch > 0, n_epochs >= 1, steps >= 1, "
                       "0 <= warm < n_epochs");
    if (cs_recrawl_is_slot(cfg->policy))
        return cs_fail(ctx, CS_ERR_ARG,
                       "recrawl experiment: %s is a slot (bandit) policy: run it inside crawlsim "
                       "run ([refresh]) or with crawlsim bandit",
                       cfg->policy);
    cs_cache_opts co;
    cs_cache_opts_default(&co);
    co.seed = world_seed;
    co.queue_width = t_epoch / steps;
    CS_TRY_AGREE(ctx, cs_cache_create(ctx, pg, &co, &cache));
    cs_err local = CS_OK;
    for (int64_t i = 0; i < pg->n && local == CS_OK; i++)
        if (cs_cache_add(cache, i, 0.0) != CS_OK)
            local = cs_fail(ctx, CS_ERR_ARG, "recrawl experiment: page %lld has mu %g, delta %g",
                            (long long)i, pg->mu[i], pg->delta[i]);
    CS_TRY_AGREE(ctx, local);
    CS_TRY_AGREE(ctx, cs_recrawl_create(ctx, cfg, pg, cache, &r));
    double ih0 = 0.0, ib0 = 0.0, ihw = 0.0, ibw = 0.0, sum_ch = 0.0, sum_cb = 0.0;
    int64_t crawls_w = 0;
    CS_TRY(ctx, cs_cache_integrals(ctx, cache, 0.0, &ih0, &ib0));
    for (int e = 0; e < n_epochs; e++) {
        const double t0 = e * t_epoch, t1 = (e + 1) * t_epoch;
        cs_recrawl_epoch x;
        memset(&x, 0, sizeof x);
        x.t0 = t0;
        x.t1 = t1;
        CS_TRY(ctx, cs_recrawl_sync(ctx, r, t0));
        CS_TRY(ctx, cs_recrawl_delta_error(ctx, r, &x.delta_err));
        if (cs_recrawl_is_poisson(r)) {
            CS_TRY(ctx,
                   cs_refresh_cost(ctx, &(cs_refresh_pages){pg->n, pg->mu, pg->delta, pg->complete},
                                   r->rate, r->prob, &x.jh_closed, &x.jb_closed));
        } else {
            x.jh_closed = x.jb_closed = CS_NAN;
        }
        const int64_t c0 = r->crawls;
        local = CS_OK;
        for (int s = 0; s < steps && local == CS_OK; s++) {
            const double hi = s + 1 == steps ? t1 : t0 + (s + 1) * (t_epoch / steps);
            const cs_recrawl_crawl *cr = NULL;
            int64_t ncr = 0;
            local = cs_recrawl_step(r, hi, &cr, &ncr);
        }
        CS_TRY_AGREE(ctx, local);
        int64_t dc = r->crawls - c0;
        cs_allreduce(ctx, &dc, &x.crawls, 1, CS_T_I64, CS_OP_SUM);
        x.bandwidth = (double)x.crawls / t_epoch;
        double ih1 = 0.0, ib1 = 0.0;
        CS_TRY(ctx, cs_cache_integrals(ctx, cache, t1, &ih1, &ib1));
        x.jh = (ih1 - ih0) / t_epoch;
        x.jb = (ib1 - ib0) / t_epoch;
        if (e == warm) {
            ihw = ih0;
            ibw = ib0;
        }
        if (e >= warm) {
            sum_ch += x.jh_closed;
            sum_cb += x.jb_closed;
            crawls_w += x.crawls;
        }
        ih0 = ih1;
        ib0 = ib1;
        if (ep != NULL)
            ep[e] = x;
        if (total != NULL && e == n_epochs - 1) {
            const int m = n_epochs - warm;
            const double span = m * t_epoch;
            total->t0 = warm * t_epoch;
            total->t1 = t1;
            total->jh = (ih1 - ihw) / span;
            total->jb = (ib1 - ibw) / span;
            total->jh_closed = sum_ch / m;
            total->jb_closed = sum_cb / m;
            total->crawls = crawls_w;
            total->bandwidth = (double)crawls_w / span;
            total->delta_err = x.delta_err;
        }
    }
    CS_TRY(ctx, cs_cache_close(cache, n_epochs * t_epoch) == CS_OK ? CS_OK : CS_ERR_INTERNAL);
    cs_recrawl_destroy(&r);
    cs_cache_destroy(&cache);
    return CS_OK;
fail:
    cs_recrawl_destroy(&r);
    cs_cache_destroy(&cache);
    return rc;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

enum { RS_N, RS_HN, RS_CRAWLS, RS_SYNCED, RS_NI };

cs_err cs_recrawl_save(cs_ctx *ctx, const cs_recrawl *r, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    const int64_t si[RS_NI] = {r->n, r->hn, r->crawls, r->synced};
    CS_ASSERT(r->err == CS_OK);
    CS_ASSERT(cs_cache_n_slots(r->cache) == r->n);
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/state", CS_CK_I64, RS_NI, si));
    const double tb[2] = {r->t_step, r->cfg.bandwidth};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/times", CS_CK_F64, 2, tb));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/rate", CS_CK_F64, r->n, r->rate));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/prob", CS_CK_F64, r->n, r->prob));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/t_last", CS_CK_F64, r->n, r->t_last));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/draws", CS_CK_I32, r->n, r->draws));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/heap_key", CS_CK_F64, r->hn, r->hkey));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, "refresh/recrawl/heap_page", CS_CK_I32, r->hn, r->hpage));
    if (r->ops->save != NULL)
        CS_TRY(ctx, r->ops->save(ctx, r, r->st, ck));
fail:
    return rc;
}

cs_err cs_recrawl_load(cs_ctx *ctx, cs_recrawl *r, cs_ckpt *ck)
{
    cs_err rc = CS_OK;
    int64_t si[RS_NI];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/state", CS_CK_I64, RS_NI, si));
    rc = recrawl_fit(r); /* the pages of the cache restored before */
    if (rc == CS_OK && (si[RS_N] != r->n || si[RS_HN] < 0 || si[RS_HN] > r->n))
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: a re-crawl policy over other pages",
                     cs_ckpt_path(ck));
    CS_TRY_AGREE(ctx, rc);
    r->hn = si[RS_HN];
    r->crawls = si[RS_CRAWLS];
    r->synced = (int)si[RS_SYNCED];
    double tb[2];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/times", CS_CK_F64, 2, tb));
    r->t_step = tb[0];
    r->cfg.bandwidth = tb[1];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/rate", CS_CK_F64, r->n, r->rate));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/prob", CS_CK_F64, r->n, r->prob));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/t_last", CS_CK_F64, r->n, r->t_last));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/draws", CS_CK_I32, r->n, r->draws));
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/heap_key", CS_CK_F64, r->hn, r->hkey));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, "refresh/recrawl/heap_page", CS_CK_I32, r->hn, r->hpage));
    if (r->ops->load != NULL)
        CS_TRY(ctx, r->ops->load(ctx, r, r->st, ck));
fail:
    return rc;
}
