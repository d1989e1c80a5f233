/*
 * sim: the tick loop of `crawlsim run` (DESIGN.md "One rank, one tick"), tying together the
 * world (graph, gen, evidence), the frontier, the focused-crawl policy, comm and the results
 * file. Nothing depends on sim.
 *
 * One tick on one rank:
 *   evaluate   synchronous SARSA only: re-evaluate the whole frontier after the weights changed
 *   select     the tick's budget (crawl.budget: global top-B by radix search on 64-bit keys,
 *              proportional, fixed), greedy picks then epsilon exploration picks, under the
 *              per-host politeness quota and MAX cap; value policies are ranked by their
 *              entries' keys, selecting policies (TRES, Tree-Random: discover.h `select`)
 *              propose their own ordered picks with keys, and the same budget modes apply
 *   fetch      per fetched page (OpenMP): estimates, state features, reward; per out-link
 *              (not known visited): anchor evidence, action features, a link record
 *   learn      the policy observes the fetches in order (SARSA updates)
 *   exchange   links to own pages are inserted at once; links to other ranks' pages wait in
 *              outboxes, exchanged every crawl.exchange_every ticks (Alltoall + Alltoallv); the
 *              owner drops visited pages, merges known ones (one more parent), adds new ones,
 *              then evicts down to crawl.frontier_capacity
 *   allreduce  weight averaging every crawl.sync_every ticks; one small integer allreduce per
 *              tick (fetches, frontier, pending links: the stop decision); metrics at record
 *              points
 * Every collective runs on every rank every time.
 *
 * A task starts from the seed pages (run.seeds relevant pages chosen by hash, fetched in the
 * task's first tick, as Alg. 1 lines 5-13) with an empty frontier and visited set, and keeps
 * the policy's weights from the previous task (Han et al. Fig. 3).
 */
#ifndef CRAWLSIM_SIM_H
#define CRAWLSIM_SIM_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"

#include <stdint.h>

/* What a run reports back (identical on every rank). */
typedef struct cs_sim_summary {
    int64_t fetched, relevant, relevant_hosts, ticks;
    double harvest_rate;
    double seconds;    /* wall time of the tick loop */
    double fetch_rate; /* fetches per second over all ranks, after the first task's warm-up */
    int64_t politeness_violations;
    int64_t peak_rss_max, peak_rss_sum; /* peak resident memory (bytes): largest rank, all ranks */
    int stopped; /* SIGTERM: the run stopped at a tick boundary after writing its checkpoint */
} cs_sim_summary;

/*
 * Collective(ctx->comm). Logically collective: cfg, output, restart. Builds the world (run.graph
 * or the [gen] world in memory), runs run.tasks tasks and writes the results file `output`
 * (atomically). A summary goes to stdout (rank 0) and to *sum (may be NULL). Errors, the same
 * on every rank: configuration (CS_ERR_CONFIG, naming the key), graph and partition files, I/O.
 *
 * Checkpoints (run.checkpoint, ckpt.h): at a tick boundary every run.checkpoint_every ticks,
 * and at the first tick boundary after SIGUSR1 or SIGTERM reached any rank (the handlers only
 * note the signal; the flags travel in the tick's allreduce, so all ranks act together), the
 * whole state is written: the loop's position, metrics and series, visited sets, host counts,
 * outboxes, frontiers, the policy's state (discover.h save) and the refresh's (cache, re-crawl
 * policy). After SIGTERM the run stops there (sum->stopped = 1, no results file, CS_OK). With
 * restart = a checkpoint file, the world and policy are built from cfg as usual, the state is
 * loaded and the run continues at the saved tick; the results are those of an uninterrupted run
 * (every dataset outside /timing). The job must be the same (CS_ERR_CONFIG otherwise; only
 * run.checkpoint, run.checkpoint_every, run.output and run.progress may differ), and so must the
 * rank count.
 */
CS_API cs_err cs_sim_run(cs_ctx *ctx, const cs_config *cfg, const char *output, const char *restart,
                         cs_sim_summary *sum);

/*
 * A world loaded once for several runs (crawlsim run --seeds): the graph of this rank (and the
 * generator's model), read and partitioned as cs_sim_run would. Runs share it read-only; each
 * run is exactly the run cs_sim_run would make.
 */
typedef struct cs_sim_world cs_sim_world;

/* Collective(ctx->comm). Logically collective: cfg. Builds the world of cfg (run.graph or [gen],
 * the partition); the errors of cs_sim_run's set-up, the same on every rank. */
CS_API cs_err cs_sim_world_load(cs_ctx *ctx, const cs_config *cfg, cs_sim_world **w);
/* Local. Frees a world (NULL allowed) and sets *w = NULL. */
CS_API void cs_sim_world_destroy(cs_sim_world **w);
/* Collective(ctx->comm). cs_sim_run on a loaded world (NULL: load it as cs_sim_run does). cfg
 * may differ from the world's only outside [gen], [partition] and run.graph, run.partition,
 * run.partition_method, run.relevance (CS_ERR_ARG otherwise). The world keeps the evidence table
 * the run builds (a materialized world) for the next run on it that needs the same table (the
 * same sarsa.categories: a run of another seed), which then reads it instead of building it;
 * runs on one world are one after the other, never at once. */
CS_API cs_err cs_sim_run_in(cs_ctx *ctx, const cs_config *cfg, cs_sim_world *w, const char *output,
                            const char *restart, cs_sim_summary *sum);

#endif
