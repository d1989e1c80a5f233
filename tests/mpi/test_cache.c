/*
 * MPI integration tests of the cache and the re-crawl policies (cache.h, recrawl.h): the same
 * global pages (a pure function of the page id) split over the ranks in contiguous blocks, round
 * robin and all on the last rank; a refresh-only experiment on MPI_COMM_WORLD must give, on every
 * rank, bit for bit the per-epoch figures (empirical J_h and J_b, closed forms, crawls, estimation
 * error) of one rank running every page alone (MPI_COMM_SELF). Policies: lambdacrawl (mixed),
 * lambda-learn, adaptive, binary-lambdacrawl-floor. Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/cache.h"
#include "crawlsim/core.h"
#include "crawlsim/recrawl.h"
#include "crawlsim/rng.h"
#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NPAGES 3001
#define EPOCHS 5

typedef struct slice {
    int64_t n;
    int64_t *id;
    double *mu, *delta;
    uint8_t *c;
} slice;

/* split: 0 blocks, 1 round robin, 2 everything on the last rank; size 1 = all pages */
static slice make_slice(int split, int rank, int size)
{
    slice s;
    memset(&s, 0, sizeof s);
    s.id = malloc(NPAGES * sizeof *s.id);
    s.mu = malloc(NPAGES * sizeof *s.mu);
    s.delta = malloc(NPAGES * sizeof *s.delta);
    s.c = malloc(NPAGES);
    ck_assert(s.id && s.mu && s.delta && s.c);
    for (int64_t id = 0; id < NPAGES; id++) {
        const int owner = split == 0   ? (int)(id * size / NPAGES)
                          : split == 1 ? (int)(id % size)
                                       : size - 1;
        if (owner != rank)
            continue;
        cs_rng r;
        cs_rng_init(&r, 31, CS_RNG_TEST, (uint64_t)id, 0);
        s.id[s.n] = 1000 + 3 * id;
        s.delta[s.n] = cs_rng_lognormal(&r, -1.0, 1.2);
        s.mu[s.n] = cs_rng_pareto(&r, 1.0, 2.5);
        s.c[s.n] = (uint8_t)cs_rng_bernoulli(&r, 0.1);
        s.n++;
    }
    return s;
}

static void drop(slice *s)
{
    free(s->id);
    free(s->mu);
    free(s->delta);
    free(s->c);
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_epoch(const cs_recrawl_epoch *a, const cs_recrawl_epoch *b)
{
    return same(a->jh, b->jh) && same(a->jb, b->jb) && same(a->jh_closed, b->jh_closed) &&
           same(a->jb_closed, b->jb_closed) && a->crawls == b->crawls &&
           same(a->bandwidth, b->bandwidth) && same(a->delta_err, b->delta_err);
}

START_TEST(test_experiment_ranks)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cs_ctx world, self;
    cs_ctx_init(&world, MPI_COMM_WORLD, CS_LOG_ERROR);
    cs_ctx_init(&self, MPI_COMM_SELF, CS_LOG_ERROR);
    const char *pols[] = {"lambdacrawl", "lambda-learn", "adaptive", "binary-lambdacrawl-floor"};
    slice all = make_slice(0, 0, 1);
    cs_cache_pages pall = {all.n, all.id, all.mu, all.delta, all.c};
    for (int p = 0; p < 4; p++) {
        cs_recrawl_config cfg;
        cs_recrawl_config_default(&cfg);
        cfg.policy = pols[p];
        cfg.bandwidth = 0.2 * NPAGES;
        cfg.seed = 5;
        cs_recrawl_epoch ref[EPOCHS], rtot;
        int ok =
            cs_recrawl_experiment(&self, &cfg, &pall, 77, 1.0, EPOCHS, 3, 1, ref, &rtot) == CS_OK;
        MPI_ASSERT(ok);
        MPI_ASSERT(rtot.crawls > 1000 && rtot.jh > 0.0);
        for (int split = 0; split < 3; split++) {
            slice s = make_slice(split, rank, size);
            cs_cache_pages pg = {s.n, s.id, s.mu, s.delta, s.c};
            cs_recrawl_epoch ep[EPOCHS], tot;
            /* another step count: the results do not depend on it */
            ok = cs_recrawl_experiment(&world, &cfg, &pg, 77, 1.0, EPOCHS, 2 + split, 1, ep,
                                       &tot) == CS_OK;
            MPI_ASSERT(ok);
            int eq = same_epoch(&tot, &rtot);
            for (int e = 0; e < EPOCHS; e++)
                eq = eq && same_epoch(&ep[e], &ref[e]);
            if (!eq && rank == 0)
                fprintf(stderr, "%s split %d: J_h %.17g vs %.17g, crawls %lld vs %lld\n", pols[p],
                        split, tot.jh, rtot.jh, (long long)tot.crawls, (long long)rtot.crawls);
            MPI_ASSERT(eq);
            drop(&s);
        }
    }
    drop(&all);
}
END_TEST

START_TEST(test_cache_integrals_ranks)
{
    /* the cache alone: every page crawled at the same per-page times on any split; the
     * integrals (collective) equal one rank's over all pages, bit for bit */
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cs_ctx world;
    cs_ctx_init(&world, MPI_COMM_WORLD, CS_LOG_ERROR);
    double ref[2] = {0, 0}, got[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        slice s = pass == 0 ? make_slice(0, 0, 1) : make_slice(1, rank, size);
        cs_cache_pages pg = {s.n, s.id, s.mu, s.delta, s.c};
        cs_cache *c = NULL;
        cs_cache_opts o;
        cs_cache_opts_default(&o);
        o.seed = 3;
        ck_assert(cs_cache_create(&world, &pg, &o, &c) == CS_OK);
        for (int64_t i = 0; i < s.n; i++) {
            ck_assert(cs_cache_add(c, i, 0.0) == CS_OK);
            for (int k = 1; k <= 4; k++)
                ck_assert(cs_cache_crawl(c, i, 0.7 * k + 1e-4 * (double)(s.id[i] % 97), NULL, NULL,
                                         NULL) == CS_OK);
        }
        double *out = pass == 0 ? ref : got;
        if (pass == 0)
            cs_cache_integrals_local(c, 5.0, &out[0], &out[1]);
        else
            ck_assert(cs_cache_integrals(&world, c, 5.0, &out[0], &out[1]) == CS_OK);
        cs_cache_destroy(&c);
        drop(&s);
    }
    MPI_ASSERT(same(ref[0], got[0]) && same(ref[1], got[1]) && ref[0] > ref[1]);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    Suite *s = suite_create("cache-mpi");
    TCase *tc = tcase_create("ranks");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_cache_integrals_ranks);
    tcase_add_test(tc, test_experiment_ranks);
    suite_add_tcase(s, tc);
    const int rc = mpitest_run(s);
    MPI_Finalize();
    return rc;
}
