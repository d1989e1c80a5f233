/*
 * MPI integration tests of the distributed re-crawl solvers (refresh.h): the same global page
 * set (a pure function of the page id) split over the ranks in contiguous blocks, round robin and
 * with empty ranks, solved on MPI_COMM_WORLD, must give bit for bit the lambda, costs, split and
 * per-page rates of one rank solving every page alone (on MPI_COMM_SELF), and the same on every
 * rank. Policies: LambdaCrawl incomplete-only, mixed (joint and golden-section Alg. 3), complete
 * only, LCA, BinaryLambdaCrawl with and without floor, change-rate. Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/core.h"
#include "crawlsim/refresh.h"
#include "crawlsim/rng.h"
#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

#define NPAGES 30011

static void page(int64_t id, double fc, double *mu, double *delta, uint8_t *c)
{
    cs_rng r;
    cs_rng_init(&r, 77, CS_RNG_TEST, (uint64_t)id, 0);
    *delta = cs_rng_lognormal(&r, -1.0, 1.5);
    *mu = cs_rng_pareto(&r, 1.0, 2.5);
    *c = (uint8_t)cs_rng_bernoulli(&r, fc);
}

typedef struct slice {
    int64_t n;
    int64_t *id;
    double *mu, *delta, *rate, *prob;
    uint8_t *c;
} slice;

/* split: 0 contiguous blocks, 1 round robin, 2 everything on the last rank */
static slice make_slice(int split, int rank, int size, double fc)
{
    slice s;
    memset(&s, 0, sizeof s);
    const size_t cap = NPAGES;
    s.id = malloc(cap * sizeof *s.id);
    s.mu = malloc(cap * sizeof *s.mu);
    s.delta = malloc(cap * sizeof *s.delta);
    s.rate = malloc(cap * sizeof *s.rate);
    s.prob = malloc(cap * sizeof *s.prob);
    s.c = malloc(cap);
    ck_assert(s.id && s.mu && s.delta && s.rate && s.prob && s.c);
    for (int64_t id = 0; id < NPAGES; id++) {
        const int owner = split == 0   ? (int)(id * size / NPAGES)
                          : split == 1 ? (int)(id % size)
                                       : size - 1;
        if (owner != rank)
            continue;
        s.id[s.n] = id;
        page(id, fc, &s.mu[s.n], &s.delta[s.n], &s.c[s.n]);
        s.n++;
    }
    return s;
}

static void drop(slice *s)
{
    free(s->id);
    free(s->mu);
    free(s->delta);
    free(s->rate);
    free(s->prob);
    free(s->c);
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Collective. One case: the reference on every rank alone, then the distributed solve. */
static int check_case(cs_refresh_policy pol, double fc, double Rfrac, cs_refresh_mixed mixed)
{
    int ok = 1;
    cs_refresh_opts o;
    cs_refresh_opts_default(&o);
    o.mixed = mixed;
    cs_ctx self;
    cs_ctx_init(&self, MPI_COMM_SELF, CS_LOG_ERROR);
    slice all = make_slice(0, 0, 1, fc);
    double dsum = 0.0;
    for (int64_t i = 0; i < all.n; i++)
        dsum += all.c[i] ? all.delta[i] : 0.0;
    /* complete-only cases need R below the total change rate */
    const double R = fc >= 1.0 ? Rfrac * dsum : Rfrac * NPAGES;
    cs_refresh_pages apg = {all.n, all.mu, all.delta, all.c};
    cs_refresh_result ref;
    ok &= cs_refresh_solve(&self, pol, &apg, R, &o, all.rate, all.prob, &ref) == CS_OK;
    for (int split = 0; split < 3; split++) {
        slice s = make_slice(split, ctx.rank, ctx.size, fc);
        cs_refresh_pages pg = {s.n, s.mu, s.delta, s.c};
        cs_refresh_result res;
        ok &= cs_refresh_solve(&ctx, pol, &pg, R, &o, s.rate, s.prob, &res) == CS_OK;
        int local = same(res.lambda, ref.lambda) && same(res.j_h, ref.j_h) &&
                    same(res.j_b, ref.j_b) && same(res.r_complete, ref.r_complete) &&
                    same(res.r_incomplete, ref.r_incomplete) && res.n == ref.n &&
                    res.n_complete == ref.n_complete && res.n_starved == ref.n_starved &&
                    res.iterations == ref.iterations;
        for (int64_t i = 0; i < s.n; i++)
            local &= same(s.rate[i], all.rate[s.id[i]]) && same(s.prob[i], all.prob[s.id[i]]);
        /* and the same on every rank (a second, independent check through the bits of rank 0) */
        double l0 = res.lambda;
        MPI_Bcast(&l0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        local &= same(l0, res.lambda);
        if (!local)
            fprintf(stderr,
                    "rank %d: %s fc %g split %d: lambda %.17g vs %.17g, J_h %.17g vs %.17g, "
                    "passes %d vs %d\n",
                    ctx.rank, cs_refresh_policy_name(pol), fc, split, res.lambda, ref.lambda,
                    res.j_h, ref.j_h, res.iterations, ref.iterations);
        ok &= local;
        drop(&s);
    }
    drop(&all);
    cs_ctx_fini(&self);
    return ok;
}

START_TEST(test_lc_incomplete)
{
    MPI_ASSERT(check_case(CS_REFRESH_LAMBDACRAWL, 0.0, 0.2, CS_REFRESH_MIXED_JOINT));
    MPI_ASSERT(check_case(CS_REFRESH_LC_INCOMPLETE, 0.04, 0.05, CS_REFRESH_MIXED_JOINT));
}
END_TEST

START_TEST(test_lc_mixed)
{
    MPI_ASSERT(check_case(CS_REFRESH_LAMBDACRAWL, 0.04, 0.2, CS_REFRESH_MIXED_JOINT));
    MPI_ASSERT(check_case(CS_REFRESH_LAMBDACRAWL, 0.04, 0.2, CS_REFRESH_MIXED_GOLDEN));
    MPI_ASSERT(check_case(CS_REFRESH_LAMBDACRAWL, 1.0, 0.3, CS_REFRESH_MIXED_JOINT));
    MPI_ASSERT(check_case(CS_REFRESH_LCA, 0.04, 0.2, CS_REFRESH_MIXED_JOINT));
}
END_TEST

START_TEST(test_baselines)
{
    MPI_ASSERT(check_case(CS_REFRESH_BLC, 0.0, 0.2, CS_REFRESH_MIXED_JOINT));
    MPI_ASSERT(check_case(CS_REFRESH_BLC_FLOOR, 0.0, 0.2, CS_REFRESH_MIXED_JOINT));
    MPI_ASSERT(check_case(CS_REFRESH_CHANGE_RATE, 0.0, 0.2, CS_REFRESH_MIXED_JOINT));
}
END_TEST

START_TEST(test_bad_page_agreed)
{
    /* a bad page on the last rank only: every rank returns the same error */
    slice s = make_slice(0, ctx.rank, ctx.size, 0.0);
    if (ctx.rank == ctx.size - 1 && s.n > 0)
        s.mu[s.n - 1] = -1.0;
    cs_refresh_pages pg = {s.n, s.mu, s.delta, s.c};
    cs_ctx_clear_error(&ctx);
    const cs_err rc =
        cs_refresh_solve(&ctx, CS_REFRESH_LAMBDACRAWL, &pg, 10.0, NULL, s.rate, s.prob, NULL);
    MPI_ASSERT(rc == CS_ERR_ARG && strstr(ctx.errmsg, "mu = -1") != NULL);
    cs_ctx_clear_error(&ctx);
    drop(&s);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    Suite *s = suite_create("refresh_mpi");
    TCase *tc = tcase_create("refresh");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_lc_incomplete);
    tcase_add_test(tc, test_lc_mixed);
    tcase_add_test(tc, test_baselines);
    tcase_add_test(tc, test_bad_page_agreed);
    suite_add_tcase(s, tc);
    const int rc = mpitest_run(s);
    cs_ctx_fini(&ctx);
    MPI_Finalize();
    return rc;
}
