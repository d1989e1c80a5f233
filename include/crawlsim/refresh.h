/*
 * refresh: optimal re-crawl schedules under a bandwidth constraint R (crawls per time unit),
 * LambdaCrawl (Kolobov, Peres, Lu, Horvitz, NeurIPS 2019, Sections 3-4 and Prop. 9) and the
 * baselines of its Section 7: BinaryLambdaCrawl (Azar et al. 2018, the binary-staleness optimum,
 * plus a non-starving variant), change-rate and uniform crawling.
 *
 * Pages are distributed: each rank passes its slice (importance mu > 0, change rate delta > 0,
 * and whether the page's changes are observed completely, e.g. through sitemaps). A page with
 * incomplete observations is crawled as a Poisson process of rate rho; a page with complete
 * observations is crawled on each observed change with probability p, so at rate p * delta.
 *
 * Costs (Eq. 1, as SUMS over pages, not means), per page:
 *   harmonic J_h: incomplete -mu ln(rho / (delta + rho))  (Prop. 1; infinite when rho = 0)
 *                 complete   -mu ln(p)                     (Prop. 4; infinite when p = 0)
 *   binary   J_b: incomplete  mu delta / (delta + rho)     (stale with probability
 * delta/(delta+rho)) complete    mu (1 - p)                   (uncrawled changes ~ Geometric(p))
 *
 * Determinism: every global sum that drives a decision (the root finds, the golden-section
 * comparisons) and every reported sum is computed EXACTLY in fixed point (each page's value is
 * rounded to 2^-83 of a global bound, then integer sums are allreduced). Integer addition is
 * associative, so the iterates, the multiplier lambda and the costs are bit-identical on every
 * rank, for any rank or OpenMP thread count and any split of the pages over ranks. Limits: at most
 * 2^32 pages in total (CS_ERR_LIMIT beyond).
 *
 * Collective functions also accept a local context (cs_ctx_init_local, no MPI_Init): they then
 * solve this process's pages alone.
 */
#ifndef CRAWLSIM_REFRESH_H
#define CRAWLSIM_REFRESH_H

#include "crawlsim/core.h"

#include <stdint.h>

/* The largest relative violation of sum(rate) = R a solve may return (CS_ERR_INTERNAL beyond). */
#define CS_REFRESH_RTOL_MAX 1e-9

/* A rank's slice of pages; borrowed, never freed here. complete may be NULL (no page has
 * complete observations). */
typedef struct cs_refresh_pages {
    int64_t n;
    const double *mu;
    const double *delta;
    const uint8_t *complete; /* 0 / 1 */
} cs_refresh_pages;

typedef enum cs_refresh_policy {
    /* LambdaCrawl: Alg. 1 (LC-IncomplObs) when no page has complete observations, Alg. 2
     * (LC-ComplObs) when all have, the mixed optimum (Problem 3, Alg. 3) otherwise. */
    CS_REFRESH_LAMBDACRAWL = 0,
    /* Alg. 1 on every page, complete observations ignored (LC-IO in the paper's Fig. 2). */
    CS_REFRESH_LC_INCOMPLETE,
    /* LambdaCrawlApprox: Prop. 9's rates rho = mu R- / sum(mu) for incomplete pages, Alg. 2
     * for complete ones; the split of R chosen by golden-section search on Eq. 9. */
    CS_REFRESH_LCA,
    /* BinaryLambdaCrawl: minimises J_b over Poisson rates (observations ignored):
     * rho = max(0, sqrt(mu delta / lambda) - delta). Pages may starve (J_h = inf). */
    CS_REFRESH_BLC,
    /* The same with a rate floor: rho >= epsilon R / N (the KKT optimum of J_b under it). */
    CS_REFRESH_BLC_FLOOR,
    /* rho = R / N. */
    CS_REFRESH_UNIFORM,
    /* rho = R delta / sum(delta). */
    CS_REFRESH_CHANGE_RATE,
    CS_REFRESH_POLICY_COUNT_
} cs_refresh_policy;

/* Local. The policy's name ("lambdacrawl", "lambdacrawl-incomplete", "lca",
 * "binary-lambdacrawl", "binary-lambdacrawl-floor", "uniform", "change-rate"). */
CS_API const char *cs_refresh_policy_name(cs_refresh_policy p);
/* Local. The policy of a name; CS_ERR_ARG (nothing recorded) if there is none. */
CS_API cs_err cs_refresh_policy_parse(const char *name, cs_refresh_policy *out);

/* How the mixed case (Problem 3) is solved. */
typedef enum cs_refresh_mixed {
    /* Default. The KKT conditions of Problem 3 give both page classes one multiplier lambda:
     * rho = Eq. 5 for incomplete pages, p = min(1, mu / (lambda delta)) for complete ones. One
     * safeguarded Newton root find on t = 1/lambda over all pages, exact to rtol. */
    CS_REFRESH_MIXED_JOINT = 0,
    /* Alg. 3 as written: golden-section search over R_o, calling Alg. 1 and Alg. 2 for each
     * split; the reference the tests compare the joint solve with. */
    CS_REFRESH_MIXED_GOLDEN = 1
} cs_refresh_mixed;

typedef struct cs_refresh_opts {
    double rtol;    /* stop when |sum(rate) - R| <= rtol R (default 1e-12) */
    int max_iter;   /* iterations of each root find (default 200) */
    double epsilon; /* BLC_FLOOR: floor epsilon R / N, 0 < epsilon < 1 (default 0.1) */
    cs_refresh_mixed mixed;
    double golden_tol; /* golden section stops when the R_o interval is below golden_tol R */
    int costs;         /* 1 (default): compute J_h and J_b into the result (two more passes) */
} cs_refresh_opts;

/* Local. The defaults above. */
CS_API void cs_refresh_opts_default(cs_refresh_opts *o);

/* What a solve found; identical on every rank. */
typedef struct cs_refresh_result {
    double lambda; /* Eq. 5's multiplier (LC, LC-IO, joint mixed; BLC: its own); else NaN */
    double
        lambda_complete; /* golden mixed and LCA: the multiplier of the complete pages; else NaN */
    double r_incomplete; /* sum of the Poisson rates */
    double r_complete;   /* sum of p delta of the observation-triggered pages */
    double residual;     /* |r_incomplete + r_complete - R| / R */
    double j_h, j_b;     /* sums over pages (INFINITY when a page starves); NaN if !opts.costs */
    int64_t n, n_complete; /* pages; pages crawled on observations (prob >= 0) */
    int64_t n_starved;     /* pages with rate 0 */
    int64_t n_saturated;   /* complete pages with p = 1 */
    int iterations;        /* root-find passes (one allreduce each) */
    int golden_iterations; /* golden-section steps (mixed golden, LCA) */
} cs_refresh_result;

/*
 * Collective(ctx->comm). Logically collective: policy, R, opts. Computes the schedule of this
 * rank's pages under the global bandwidth R > 0 into caller-owned arrays of pg->n entries:
 * rate[i] (expected crawls per time unit, for every page) and prob[i] (the crawl probability per
 * observed change for pages crawled on observations, -1 for pages crawled as Poisson processes).
 * sum(rate) over all ranks = R to opts.rtol (never worse than CS_REFRESH_RTOL_MAX) relative.
 * opts NULL: defaults. res (may be NULL) receives the global figures.
 * Errors, agreed on every rank: CS_ERR_ARG (mu or delta not finite and > 0, R not finite and > 0,
 * epsilon outside (0,1), all pages complete and R > sum(delta): crawling on every change cannot
 * use R), CS_ERR_LIMIT (> 2^32 pages), CS_ERR_NOMEM, CS_ERR_INTERNAL (no convergence).
 */
CS_API cs_err cs_refresh_solve(cs_ctx *ctx, cs_refresh_policy policy, const cs_refresh_pages *pg,
                               double R, const cs_refresh_opts *opts, double *rate, double *prob,
                               cs_refresh_result *res);

/* Local. LambdaCrawl Eq. 5: the optimal rate of one incomplete page for multiplier lambda > 0,
 * (sqrt(delta^2 + 4 mu delta / lambda) - delta) / 2, computed without cancellation. */
CS_API double cs_refresh_rho(double mu, double delta, double lambda);
/* Local. The per-page cost terms listed at the top of this file. */
CS_API double cs_refresh_jh_incomplete(double mu, double delta, double rho);
CS_API double cs_refresh_jh_complete(double mu, double p);
CS_API double cs_refresh_jb_incomplete(double mu, double delta, double rho);
CS_API double cs_refresh_jb_complete(double mu, double p);

/*
 * Collective(ctx->comm). J_h and J_b (sums over all ranks' pages) of a schedule in the form
 * cs_refresh_solve writes it (prob[i] >= 0: observation-triggered, else Poisson at rate[i]).
 * Exact fixed-point sums (see the top of this file); INFINITY when a page starves.
 */
CS_API cs_err cs_refresh_cost(cs_ctx *ctx, const cs_refresh_pages *pg, const double *rate,
                              const double *prob, double *jh, double *jb);

#endif
