/*
 * bench_refresh: wall time of the distributed LambdaCrawl solvers (refresh.h) at the issue's
 * sizes. Built, never run by ctest.
 *
 * Usage: mpirun -np P bench_refresh [pages for LC-IncomplObs, default 18532314]
 *                                   [pages for the mixed solve, default 1000000] [repetitions, 3]
 *
 * The pages are the paper's setting (Section 7): R = 20 % of the pages, heavy-tailed change rates
 * (log-normal, median 0.37 changes per day, sigma 1.5) and importance (Pareto, density
 * exponent 2.5: mean 3), 4 % of the pages with complete observations in the mixed set; a pure
 * function of the page id, so any rank count solves the same problem. Each rank holds a contiguous
 * block of ids. Timed: the whole cs_refresh_solve call without the costs (opts.costs = 0), the
 * slowest rank, best of the repetitions; the cost evaluation (cs_refresh_cost, a log per page) is
 * timed apart.
 */
#include "crawlsim/core.h"
#include "crawlsim/refresh.h"
#include "crawlsim/rng.h"

#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pageset {
    int64_t n;
    double *mu, *delta, *rate, *prob;
    uint8_t *complete;
} pageset;

/* Ends the job (MPI_Abort does not return; the abort tells the compiler so). */
static _Noreturn void abort_job(MPI_Comm comm)
{
    MPI_Abort(comm, 1);
    abort();
}

static void make_pages(pageset *p, int64_t total, double frac_complete, int rank, int size)
{
    const int64_t lo = total * rank / size, hi = total * (rank + 1) / size;
    p->n = hi - lo;
    const size_t n = (size_t)(p->n > 0 ? p->n : 1);
    p->mu = malloc(n * sizeof *p->mu);
    p->delta = malloc(n * sizeof *p->delta);
    p->rate = malloc(n * sizeof *p->rate);
    p->prob = malloc(n * sizeof *p->prob);
    p->complete = malloc(n);
    if (!p->mu || !p->delta || !p->rate || !p->prob || !p->complete) {
        fprintf(stderr, "bench_refresh: out of memory for %lld pages\n", (long long)p->n);
        abort_job(MPI_COMM_WORLD);
    }
    double *mu = p->mu, *delta = p->delta;
    uint8_t *cf = p->complete;
#pragma omp parallel for default(none) shared(mu, delta, cf, lo, hi, frac_complete) schedule(static)
    for (int64_t id = lo; id < hi; id++) {
        cs_rng r;
        cs_rng_init(&r, 2019, CS_RNG_TEST, (uint64_t)id, 0);
        delta[id - lo] = cs_rng_lognormal(&r, -1.0, 1.5);
        mu[id - lo] = cs_rng_pareto(&r, 1.0, 2.5);
        cf[id - lo] = (uint8_t)cs_rng_bernoulli(&r, frac_complete);
    }
}

static void free_pages(pageset *p)
{
    free(p->mu);
    free(p->delta);
    free(p->rate);
    free(p->prob);
    free(p->complete);
}

/* Collective. Best (over reps) of the slowest rank's time of one solve. */
static double time_solve(cs_ctx *ctx, cs_refresh_policy pol, const cs_refresh_pages *pg, double R,
                         const cs_refresh_opts *o, pageset *p, int reps, cs_refresh_result *res)
{
    double best = 1e300;
    for (int k = 0; k < reps; k++) {
        MPI_Barrier(ctx->comm);
        const double t0 = MPI_Wtime();
        cs_err rc = cs_refresh_solve(ctx, pol, pg, R, o, p->rate, p->prob, res);
        double dt = MPI_Wtime() - t0, gdt = 0.0;
        MPI_Allreduce(&dt, &gdt, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
        if (rc != CS_OK) {
            cs_report_error(ctx, rc);
            abort_job(ctx->comm);
        }
        best = gdt < best ? gdt : best;
    }
    return best;
}

static void report(const cs_ctx *ctx, const char *what, int64_t n, double dt,
                   const cs_refresh_result *r)
{
    if (ctx->rank == 0)
        printf("%-34s pages %10lld  time %8.3f s  passes %3d  golden %3d  lambda %.17g  R_o %.6g  "
               "residual %.2e\n",
               what, (long long)n, dt, r->iterations, r->golden_iterations, r->lambda,
               r->r_complete, r->residual);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_INFO);
    const int64_t n_io = argc > 1 ? (int64_t)atof(argv[1]) : 18532314;
    const int64_t n_mx = argc > 2 ? (int64_t)atof(argv[2]) : 1000000;
    const int reps = argc > 3 ? atoi(argv[3]) : 3;
    if (n_io < 1 || n_mx < 1 || reps < 1) {
        if (ctx.rank == 0)
            fprintf(stderr, "usage: bench_refresh [PAGES >= 1] [MIXED_PAGES >= 1] [REPS >= 1]\n");
        cs_ctx_fini(&ctx);
        MPI_Finalize();
        return 2;
    }
    if (ctx.rank == 0)
        printf("bench_refresh: %d rank(s) x %d thread(s); R = 0.2 N; best of %d\n", ctx.size,
               omp_get_max_threads(), reps);
    cs_refresh_opts o;
    cs_refresh_opts_default(&o);
    o.costs = 0;
    cs_refresh_result res;

    pageset p;
    make_pages(&p, n_io, 0.0, ctx.rank, ctx.size);
    cs_refresh_pages pg = {p.n, p.mu, p.delta, NULL};
    double dt =
        time_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &pg, 0.2 * (double)n_io, &o, &p, reps, &res);
    report(&ctx, "LC-IncomplObs (Alg. 1)", n_io, dt, &res);
    MPI_Barrier(ctx.comm);
    double t0 = MPI_Wtime(), jh = 0.0, jb = 0.0;
    cs_refresh_cost(&ctx, &pg, p.rate, p.prob, &jh, &jb);
    double dc = MPI_Wtime() - t0, gdc = 0.0;
    MPI_Allreduce(&dc, &gdc, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
    if (ctx.rank == 0)
        printf("%-34s pages %10lld  time %8.3f s  J_h %.10g  J_b %.10g\n", "cost (J_h, J_b)",
               (long long)n_io, gdc, jh, jb);
    free_pages(&p);

    make_pages(&p, n_mx, 0.04, ctx.rank, ctx.size);
    pg = (cs_refresh_pages){p.n, p.mu, p.delta, p.complete};
    dt = time_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &pg, 0.2 * (double)n_mx, &o, &p, reps, &res);
    report(&ctx, "mixed, joint lambda (default)", n_mx, dt, &res);
    o.mixed = CS_REFRESH_MIXED_GOLDEN;
    dt = time_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &pg, 0.2 * (double)n_mx, &o, &p, 1, &res);
    report(&ctx, "mixed, golden section (Alg. 3)", n_mx, dt, &res);
    o.mixed = CS_REFRESH_MIXED_JOINT;
    dt = time_solve(&ctx, CS_REFRESH_BLC, &pg, 0.2 * (double)n_mx, &o, &p, reps, &res);
    report(&ctx, "binary-lambdacrawl", n_mx, dt, &res);
    free_pages(&p);
    cs_ctx_fini(&ctx);
    MPI_Finalize();
    return 0;
}
