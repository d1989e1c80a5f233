/*
 * sim internals: the refresh part of `crawlsim run` (sim_refresh.c), kept apart from the tick
 * loop (sim.c) that calls it. docs/guide/refresh.md describes the model.
 */
#ifndef CRAWLSIM_SIM_IMPL_H
#define CRAWLSIM_SIM_IMPL_H

#include "crawlsim/ckpt.h"
#include "crawlsim/config.h"
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/recrawl.h"
#include "crawlsim/results.h"

#include <stdint.h>

typedef struct sim_refresh sim_refresh;
struct cs_gen; /* gen.h */

/* Collective(ctx->comm). The refresh of cfg->refresh over the rank's pages of g (borrowed), or
 * *out = NULL when refresh.policy = none. gen NULL: the pages' attributes are g's; else (the
 * procedural world, whose g has none) they are computed from gen (borrowed) into arrays of the
 * rank's pages, 25 bytes a page (id, mu, delta, observable) and 4 more for the bandit policies'
 * groups. Errors, agreed: CS_ERR_NOMEM, CS_ERR_ARG and CS_ERR_CONFIG (from the re-crawl
 * policy). */
cs_err cs_simrf_create(cs_ctx *ctx, const cs_config *cfg, const cs_graph *g,
                       const struct cs_gen *gen, sim_refresh **out);
/* Local. Accepts NULL. */
void cs_simrf_destroy(sim_refresh **rf);

/* The time of tick T: T * refresh.tick_time. */
double cs_simrf_time(const sim_refresh *rf, int64_t tick);

/*
 * Collective(ctx->comm). The re-crawls due in (previous tick, time of tick] (none before the
 * first sync): *crawls (borrowed until the next call) receives this rank's, *n their number,
 * *n_all the number over all ranks (one integer allreduce), from which the tick's discovery
 * budget is cut. Errors agreed.
 */
cs_err cs_simrf_step(cs_ctx *ctx, sim_refresh *rf, int64_t tick, const cs_recrawl_crawl **crawls,
                     int64_t *n, int64_t *n_all);

/* Local; the calling thread's team shares it. Discovery fetched the local pages li[0..n), in this
 * order, in tick `tick`: each joins the cache (or, fetched again in a later task, counts as a
 * crawl); cs_recrawl_fetch_batch. */
cs_err cs_simrf_fetched(sim_refresh *rf, const int64_t *li, int64_t n, int64_t tick);

/* Local. The tick's re-crawls beyond the bandwidth B (global count, identical on all ranks). */
void cs_simrf_excess(sim_refresh *rf, int64_t excess);

/*
 * Collective(ctx->comm). At a tick with tick % refresh.sync_every == 0, after the tick's
 * fetches: a point of /refresh for the epoch that ends here, the adaptive split's update (from
 * the global discovery counts fetched and relevant, cumulative), then the re-solve of the
 * schedule over the cached pages. Otherwise nothing.
 */
cs_err cs_simrf_sync(cs_ctx *ctx, sim_refresh *rf, int64_t tick, int64_t fetched, int64_t relevant);

/* Collective(ctx->comm). End of the run at tick `tick` (the last one): the last epoch's point,
 * then the cache's open intervals are closed. */
cs_err cs_simrf_finish(cs_ctx *ctx, sim_refresh *rf, int64_t tick);

/* Collective(ctx->comm) (ckpt.h). The refresh's state at a tick boundary (cache, re-crawl
 * policy, split, counters, /refresh rows so far) as items under "refresh/", and its restoration
 * into a refresh freshly created by cs_simrf_create with the same configuration. */
cs_err cs_simrf_save(cs_ctx *ctx, const sim_refresh *rf, cs_ckpt *ck);
cs_err cs_simrf_load(cs_ctx *ctx, sim_refresh *rf, cs_ckpt *ck);

/* Local. Records /refresh/... and /final/refresh_* into r (rank 0's data are written). */
cs_err cs_simrf_results(cs_ctx *ctx, const sim_refresh *rf, cs_results *r);

/* Local. A line of the run's summary on stdout (rank 0). */
void cs_simrf_summary(const sim_refresh *rf);

#endif
