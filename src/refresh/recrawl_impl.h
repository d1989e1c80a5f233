/*
 * recrawl internals: the engine shared by the policies (recrawl.c) and the ops table each policy
 * file implements (recrawl_policies.c: the solve-based policies and adaptive; recrawl_learn.c:
 * LambdaLearnAndCrawl and its flavours).
 */
#ifndef CRAWLSIM_RECRAWL_IMPL_H
#define CRAWLSIM_RECRAWL_IMPL_H

#include "crawlsim/ckpt.h"
#include "crawlsim/recrawl.h"
#include "refresh/refresh_impl.h"

#include <stdint.h>

typedef struct recrawl_ops {
    const char *name;
    cs_refresh_policy solver; /* the rate solver of solve-based and learning policies */
    /* Local. Policy state (may stay NULL). */
    cs_err (*create)(cs_ctx *ctx, cs_recrawl *r, void **st);
    void (*destroy)(void *st);
    /* Collective. Fills r->rate and r->prob for the cached pages at the epoch boundary t. */
    cs_err (*sync)(cs_ctx *ctx, cs_recrawl *r, void *st, double t);
    /* Local, may be NULL. A crawl of page i at t (previous crawl t_prev) that found `changes`. */
    void (*on_crawl)(cs_recrawl *r, void *st, int64_t i, double t, double t_prev, uint32_t changes);
    /* Local, may be NULL. A notified change of complete page i at tau. */
    void (*on_change)(cs_recrawl *r, void *st, int64_t i, double tau);
    /* Local. The next crawl time of page i last crawled at t; NULL: Poisson at rate[i]. */
    double (*next)(cs_recrawl *r, void *st, int64_t i, double t);
    /* Local, may be NULL. Change-rate estimates. */
    const double *(*estimates)(const void *st);
    /* Collective (ckpt.h), may be NULL (nothing beyond create): the policy state's items at a
     * tick boundary, and their restoration into state freshly created over the same pages.
     * Every rank writes the same items in the same order. */
    /* Collective, NULL for clock policies. A slot policy's decisions at the end of a slot
     * (cs_recrawl_step_all): it crawls the chosen pages at t with recrawl_crawl_now. */
    cs_err (*slot)(cs_ctx *ctx, cs_recrawl *r, void *st, double t);
    /* Local, may be NULL. Page i joined the cache at t (a discovery fetch). */
    void (*on_join)(cs_recrawl *r, void *st, int64_t i, double t);
    cs_err (*save)(cs_ctx *ctx, const cs_recrawl *r, const void *st, cs_ckpt *ck);
    cs_err (*load)(cs_ctx *ctx, cs_recrawl *r, void *st, cs_ckpt *ck);
    /* Local, may be NULL. Slots [n_old, n_new) joined the cache (r->pg holds their attributes):
     * the policy's per-slot arrays grow to cover them. CS_ERR_NOMEM (message recorded). */
    cs_err (*grow)(cs_recrawl *r, void *st, int64_t n_old, int64_t n_new);
} recrawl_ops;

struct cs_recrawl {
    cs_ctx *ctx; /* borrowed: errors of local steps are recorded here */
    cs_recrawl_config cfg;
    const recrawl_ops *ops;
    void *st;
    cs_cache *cache;
    cs_cache_slot_view pg; /* the cache's slots: what "page i" means below (recrawl_view) */
    int64_t n, cap;        /* slots covered by the arrays, allocated */
    int64_t npages;        /* the rank's pages (local indexes) */
    double *rate, *prob;   /* the schedule in force */
    double *t_last;        /* last crawl (or the sync that first saw the page cached); NaN */
    uint32_t *draws;       /* crawl-time draws per page */
    double *hkey;          /* heap of next crawl times */
    uint32_t *hpage;
    int64_t hn;
    cs_recrawl_crawl *out;
    size_t out_n, out_cap;
    int64_t crawls;
    double t_step; /* steps are done up to here */
    int synced;
    cs_err err; /* a failure inside a cache callback */
    /* the cached pages (slots) in page order (the cache's, recrawl_cached): the heap's order */
    const uint32_t *cidx;
    /* scratch of cs_recrawl_fetch_batch: the joining pages' attributes and first changes */
    cs_cache_join *fj;
    size_t fj_cap;
};

/* Local. Crawls cached page i at t now (a slot policy's decision): the cache's staleness, the
 * crawl's record, on_crawl, t_last. *changes: the changes it found. CS_ERR_ARG if not cached. */
cs_err recrawl_crawl_now(cs_recrawl *r, int64_t i, double t, uint32_t *changes);

/* Local. The cached pages (slots) in increasing local index, into r->cidx; returns their
 * number (every slot: a page is cached from its join on). */
int64_t recrawl_cached(cs_recrawl *r);

/* Collective. Solves the rates of the cached pages with `policy` and change rates delta[] (per
 * slot), writes r->rate / r->prob. */
cs_err cs_recrawl_solve_rates(cs_ctx *ctx, cs_recrawl *r, cs_refresh_policy policy,
                              const double *delta);

/* The ops tables of the registered clock policies (src/config/registry_recrawl.def), and the
 * one that runs every bandit policy (recrawl_bandit.c). */
#define CS_RECRAWL_POLICY(id, nm, sum) extern const recrawl_ops cs_recrawl_##id##_ops;
#include "config/registry_recrawl.def"
#undef CS_RECRAWL_POLICY
extern const recrawl_ops cs_recrawl_bandit_ops;

#endif
