/*
 * recrawl: re-crawl policies behind one interface, registered by name (STYLE.md), driving a
 * rank's page cache (cache.h), and a refresh-only experiment driver.
 *
 * Policies (Kolobov et al. NeurIPS 2019, Sections 4, 5 and 7; the production rule of Nutch and
 * StormCrawler):
 *   uniform, change-rate, lambdacrawl, lambdacrawl-incomplete, lca, binary-lambdacrawl,
 *   binary-lambdacrawl-floor   rates from cs_refresh_solve on the true change rates (refresh.h)
 *   adaptive                   per page interval I: after a crawl that saw a change I *= shrink,
 *                              otherwise I *= grow, clamped to [I_min, I_max]; the next crawl is
 *                              one interval after the last (not Poisson, no bandwidth control)
 *   lambda-learn               LambdaLearnAndCrawl (Alg. 4): at every sync (epoch boundary) the
 *                              change rates are re-estimated from the observations of the last
 *                              `suffix` epochs (Eq. 10 for incomplete pages, Eq. 11 for complete
 *                              ones, both with the 0.5 smoothing) and LambdaCrawl is re-solved
 *   lambda-learn-lca           the same with LambdaCrawlApprox (LLCA)
 *   lambda-learn-binary        the same with binary-lambdacrawl-floor (BLLC)
 * A Poisson-rate policy crawls page i at the times of a Poisson process of rate rate[i] (times
 * drawn from the stream (seed, CS_RNG_POLICY, page id, sub CS_RECRAWL_SUB_CRAWL), counter = the
 * page's draw count) and, for pages crawled on observations (prob[i] >= 0), crawls on each
 * notified change with probability prob[i] (one word of stream sub CS_RECRAWL_SUB_NOTE at the
 * change's index). Every draw is a function of (seed, page, count): the crawls do not depend on
 * the rank count or the tick length. At each sync the Poisson clocks restart from the sync time
 * (memoryless, the authors' practice).
 *
 * Rates are solved over the cached pages of all ranks (collective); pages that join between
 * syncs are crawled from the next sync on.
 *
 * Memory: O(pages cached). The policy's per-page arrays (schedule, clocks, heap, the solves'
 * scratch: 81 bytes a page; lambda-learn* 16 more and its observation log, 13 bytes an
 * observation; adaptive 8; bandit-* 4) are indexed by the cache's slots (cache.h: the cached
 * pages in the order they joined) and grow as pages join; the sums over pages run in the order
 * of their local indexes (cs_cache_sorted), as over arrays of every local page, so the results
 * do not depend on the numbering. Pages join the cache through cs_recrawl_fetch (or before the
 * policy is created).
 */
#ifndef CRAWLSIM_RECRAWL_H
#define CRAWLSIM_RECRAWL_H

#include "crawlsim/bandit.h"
#include "crawlsim/cache.h"
#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/refresh.h"

#include <stdint.h>

#define CS_RECRAWL_SUB_CRAWL 0x7265637200000000ULL /* "recr" */
#define CS_RECRAWL_SUB_NOTE 0x7265637200000001ULL

typedef struct cs_recrawl cs_recrawl;

typedef struct cs_recrawl_config {
    const char *policy; /* a registered name */
    double bandwidth;   /* R: crawls per time unit over all ranks, > 0 */
    uint64_t seed;      /* the policy's streams */
    double epsilon;     /* *-floor and lambda-learn-binary: rate floor epsilon R / N (0.1) */
    /* adaptive (Nutch's AdaptiveFetchSchedule defaults: dec_rate 0.2, inc_rate 0.4) */
    double adapt_shrink;         /* interval factor after a change was seen, in (0, 1] (0.8) */
    double adapt_grow;           /* interval factor otherwise, >= 1 (1.4) */
    double adapt_init;           /* initial interval; 0: N / R, the uniform interval (0) */
    double adapt_min, adapt_max; /* bounds; 0: init / 64 and init * 64 */
    /* lambda-learn* */
    double learn_guess; /* initial change-rate estimate of every page (1) */
    int learn_suffix;   /* epochs of history the estimators use; 0: all (Prop. 8) (0) */
    /* slot (bandit) policies, recrawl_bandit.c: the arms are groups of pages */
    const int32_t *group; /* per local page, in [0, n_groups); borrowed; or NULL and: */
    int32_t (*group_of)(const void *arg, int64_t li); /* the group of local page li (pure) */
    const void *group_arg;
    int64_t n_groups;
    double slot;           /* time units per slot (one step of cs_recrawl_step_all) */
    double whittle_decay;  /* bandit-whittle: interest decay c per time unit (1) */
    cs_fgdqn_config fgdqn; /* bandit-fgdqn (bandit.h defaults) */
    cs_lspe_config lspe;   /* bandit-whittle-learn (bandit.h defaults) */
} cs_recrawl_config;

/* Local. The defaults above (policy "lambdacrawl", bandwidth 0: must be set). */
CS_API void cs_recrawl_config_default(cs_recrawl_config *c);

/* Local. The i-th policy name (the re-crawl registry, then the bandit registry's re-crawl
 * names: refresh.policy = bandit-*), NULL for i past the end. */
CS_API const char *cs_recrawl_name(int i);
/* Local. The one-line summary of a registered policy (--help), or NULL. */
CS_API const char *cs_recrawl_summary(const char *policy);

/* One crawl a step performed. */
typedef struct cs_recrawl_crawl {
    int64_t page; /* local index */
    double t;
    uint32_t changes; /* changes the crawl found since the page's previous crawl (z = 1 iff > 0) */
} cs_recrawl_crawl;

/*
 * Local. A policy over the pages of cache (borrowed; pg is the cache's page slice, borrowed).
 * Nothing is scheduled until the first cs_recrawl_sync. Errors: CS_ERR_ARG (unknown policy, bad
 * config; message recorded), CS_ERR_NOMEM.
 */
CS_API cs_err cs_recrawl_create(cs_ctx *ctx, const cs_recrawl_config *cfg, const cs_cache_pages *pg,
                                cs_cache *cache, cs_recrawl **out);
/* Local. Accepts NULL; sets *r = NULL. */
CS_API void cs_recrawl_destroy(cs_recrawl **r);

/*
 * Collective(ctx->comm). Logically collective: t. The epoch boundary at time t (>= the last
 * step): learners re-estimate the change rates, the rates of the cached pages are solved under
 * the bandwidth (cs_refresh_solve), and the next crawl times are redrawn from t. Errors (agreed):
 * those of cs_refresh_solve, CS_ERR_NOMEM.
 */
CS_API cs_err cs_recrawl_sync(cs_ctx *ctx, cs_recrawl *r, double t);

/*
 * Local. Performs the crawls due in (last step, t_hi]: Poisson (or interval) crawls in time
 * order, each closing its page's staleness in the cache (a complete page's earlier changes are
 * delivered first), then the notifications of complete pages (crawls with probability prob).
 * *crawls (borrowed until the next step) receives the crawls performed, *n their number.
 */
CS_API cs_err cs_recrawl_step(cs_recrawl *r, double t_hi, const cs_recrawl_crawl **crawls,
                              int64_t *n);

/*
 * Collective(ctx->comm). Logically collective: t_hi. The step of a run with all its ranks: for
 * the clock policies above it is cs_recrawl_step; for the slot (bandit) policies it first takes
 * the slot's decisions over the groups of all ranks (recrawl_bandit.c), crawls the chosen pages
 * at t_hi, then polls the cache. Errors agreed.
 */
CS_API cs_err cs_recrawl_step_all(cs_ctx *ctx, cs_recrawl *r, double t_hi,
                                  const cs_recrawl_crawl **crawls, int64_t *n);
/* Local. Whether the policy is a slot (bandit) policy, which needs cs_recrawl_step_all and
 * cfg.group / n_groups / slot. */
CS_API int cs_recrawl_is_slot(const char *policy);

/*
 * Local. A fetch of page i at time t made outside the policy (by discovery, `crawlsim run`):
 * if the page is not cached it joins the cache fresh at t (cs_cache_add) and t counts as its
 * last crawl (so a learner's first interval starts at its first fetch); otherwise the fetch is
 * a crawl (cs_cache_crawl, delivering a complete page's pending changes to the policy first)
 * that the policy observes as its own (learners log it). A page that joins is scheduled from
 * the next cs_recrawl_sync on. t must be >= the last step. *joined (may be NULL) is set to 1
 * when the page joined the cache. CS_ERR_ARG: t before the last step, or the page's mu or delta
 * not finite and > 0 (message recorded).
 */
CS_API cs_err cs_recrawl_fetch(cs_recrawl *r, int64_t i, double t, int *joined);

/* Local; the threads of the calling one share it (OpenMP). cs_recrawl_fetch(r, idx[j], t, NULL)
 * for j = 0, 1, ..., n - 1 in this order, stopping at the first error (its code): the same
 * result, bit for bit, for any thread count; the joining pages' first changes are drawn in
 * parallel. CS_ERR_NOMEM besides cs_recrawl_fetch's errors. */
CS_API cs_err cs_recrawl_fetch_batch(cs_recrawl *r, const int64_t *idx, int64_t n, double t);

/* Logically collective(comm): R. The bandwidth R (> 0, finite) of the solves from the next
 * cs_recrawl_sync on. CS_ERR_ARG otherwise. */
CS_API cs_err cs_recrawl_set_bandwidth(cs_recrawl *r, double R);

/*
 * Collective(ctx->comm). The closed-form costs J_h and J_b (sums over pages, refresh.h) of the
 * schedule in force under the TRUE change rates, over the cached pages of all ranks: call it
 * right after cs_recrawl_sync (a page that joined since is not scheduled yet). NaN for a policy
 * whose crawls are not Poisson (adaptive); INFINITY when a page starves. Exact sums.
 */
CS_API cs_err cs_recrawl_cost(cs_ctx *ctx, cs_recrawl *r, double *jh, double *jb);

/* Collective(ctx->comm). Learners: the mean over the cached pages of all ranks of
 * |ln(estimate / delta)| (exact sums); NaN for other policies or an empty cache. No memory
 * beyond r's own: the terms are computed twice (the sum's scale, then the sum). */
CS_API cs_err cs_recrawl_delta_error(cs_ctx *ctx, cs_recrawl *r, double *err);

/* Local. The schedule in force (per cached page, in the cache's slots: the order pages joined,
 * local page i's slot when the pages were cached in order 0, 1, ...): rate (expected crawls per
 * time unit) and prob (crawl probability per notified change, -1 for Poisson or interval
 * pages). Borrowed until the next page joins. */
CS_API const double *cs_recrawl_rates(const cs_recrawl *r);
CS_API const double *cs_recrawl_probs(const cs_recrawl *r);
/* Local. The change-rate estimates of a learning policy (per slot, as the rates), else NULL. */
CS_API const double *cs_recrawl_estimates(const cs_recrawl *r);
/* Collective(ctx->comm) (ckpt.h). The policy's state at a tick boundary (schedule, clocks,
 * heap, learners' observations) as items under "refresh/recrawl/", and its restoration into a
 * policy freshly created over the same pages and cache (the cache is saved separately,
 * cs_cache_save), after which it behaves exactly as the saved one would have. */
CS_API cs_err cs_recrawl_save(cs_ctx *ctx, const cs_recrawl *r, cs_ckpt *ck);
CS_API cs_err cs_recrawl_load(cs_ctx *ctx, cs_recrawl *r, cs_ckpt *ck);
/* Local. Crawls performed on this rank since creation. */
CS_API int64_t cs_recrawl_count(const cs_recrawl *r);
/* Local. Whether the policy's crawls are Poisson processes (closed forms apply). */
CS_API int cs_recrawl_is_poisson(const cs_recrawl *r);

/* Local. Eq. 10's MLE with the 0.5 smoothing: the rate d solving
 *   sum_{changed} a / (e^{a d} - 1) + 0.5 / (e^{0.5 d} - 1) = sum_{unchanged} a + 0.5
 * over intervals a[0..n) with z[j] = 1 when a change was seen. Cannot overflow (terms are written
 * with e^{-a d}); bracketed by [C / (U + S/2), C / U] (C = changed intervals, S their total
 * length, U the unchanged total, smoothing included), which holds for any data; relative
 * precision 1e-12. */
CS_API double cs_recrawl_mle_incomplete(const double *a, const uint8_t *z, int64_t n);
/* Local. Eq. 11 with the smoothing: (changes + 0.5) / (time + 0.5). */
CS_API double cs_recrawl_mle_complete(int64_t changes, double time);

/* One epoch of a refresh-only experiment (or the total over the measured epochs). */
typedef struct cs_recrawl_epoch {
    double t0, t1;
    double jh, jb;               /* empirical Eq. 1 costs: time averages over [t0, t1] of the SUMS
                                    over pages of mu H(N) and mu 1{N > 0} (not means) */
    double jh_closed, jb_closed; /* closed forms of the schedule in force under the true rates
                                    (Prop. 1, Prop. 4, mu delta / (delta + rho), mu (1 - p));
                                    NaN for adaptive */
    double bandwidth;            /* realised crawls per time unit, all ranks */
    int64_t crawls;              /* crawls, all ranks */
    double delta_err; /* learners: mean over pages of |ln(estimate / delta)| at the epoch's
                         start; else NaN */
} cs_recrawl_epoch;

/*
 * Collective(ctx->comm). Logically collective: cfg, world_seed, t_epoch, n_epochs, steps,
 * warm. A refresh-only experiment on this rank's pages pg (mu, delta, complete; all cached fresh
 * at time 0; no discovery) with change streams of world_seed: n_epochs epochs of t_epoch, a sync
 * at each epoch start, each epoch stepped in `steps` windows (the results do not depend on it).
 * ep[0..n_epochs) (may be NULL) receives each epoch; total the aggregate over epochs
 * [warm, n_epochs): empirical costs over that interval, the closed forms averaged over its
 * epochs, the realised bandwidth. Identical on every rank and for any rank count.
 */
CS_API cs_err cs_recrawl_experiment(cs_ctx *ctx, const cs_recrawl_config *cfg,
                                    const cs_cache_pages *pg, uint64_t world_seed, double t_epoch,
                                    int n_epochs, int steps, int warm, cs_recrawl_epoch *ep,
                                    cs_recrawl_epoch *total);

#endif
