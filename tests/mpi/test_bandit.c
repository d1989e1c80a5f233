/*
 * MPI integration test of the distributed Whittle index policy (bandit.h cs_whittle_tick): the
 * arms are dealt round-robin over the ranks (so the split differs with the rank count), and for
 * 60 ticks the global set of crawled arms (gathered) must equal the serial reference computed on
 * every rank from all arms with a local context, including ties (groups of identical arms,
 * broken by the lower id), a rank with fewer arms than N0, and an N0 above some ranks' counts.
 * Run at 1, 2 and 4 ranks: identical choices at every rank count.
 */
#include "crawlsim/bandit.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"
#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static int cmp_u64(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Parameters of arm id, a function of the id only; groups of 4 consecutive ids share one
 * parameter set and age, so that their indices tie. */
static void arm_params(uint64_t id, double *u, double *alpha, uint32_t *age)
{
    cs_rng r;
    cs_rng_init(&r, 42, CS_RNG_TEST, id / 4, 0);
    const double c = 0.05 + 1.5 * cs_rng_uniform(&r);
    *alpha = exp(-c);
    *u = cs_whittle_u(1.0 + 100.0 * cs_rng_uniform(&r), c, INFINITY);
    *age = (uint32_t)(1 + cs_rng_below(&r, 30));
}

static void run_case(int64_t G, int64_t n0, int ticks)
{
    cs_ctx local;
    cs_ctx_init_local(&local, CS_LOG_ERROR);
    cs_whittle_arms all, mine;
    int64_t nm = 0;
    for (int64_t id = 0; id < G; id++)
        nm += id % ctx.size == ctx.rank;
    int ok = cs_whittle_arms_init(&local, &all, G) == CS_OK;
    ok &= cs_whittle_arms_init(&local, &mine, nm) == CS_OK;
    MPI_ASSERT(ok);
    int64_t m = 0;
    for (int64_t id = 0; id < G; id++) {
        double u, a;
        uint32_t age;
        arm_params((uint64_t)id, &u, &a, &age);
        cs_whittle_arms_set(&all, id, (uint64_t)id, u, a, 1.0, age);
        if (id % ctx.size == ctx.rank)
            cs_whittle_arms_set(&mine, m++, (uint64_t)id, u, a, 1.0, age);
    }
    int64_t *ch_all = malloc((size_t)(n0 + 1) * sizeof *ch_all);
    int64_t *ch = malloc((size_t)(n0 + 1) * sizeof *ch);
    uint64_t *ref = malloc((size_t)(n0 + 1) * sizeof *ref);
    uint64_t *loc = malloc((size_t)(n0 + 1) * sizeof *loc);
    uint64_t *got = malloc((size_t)(n0 + 1) * sizeof *got);
    int *cnt = malloc((size_t)ctx.size * sizeof *cnt),
        *dsp = malloc((size_t)ctx.size * sizeof *dsp);
    for (int t = 0; t < ticks; t++) {
        int64_t na = 0, nl = 0;
        double ra = 0, rl = 0;
        ok = cs_whittle_tick(&local, &all, n0, ch_all, &na, &ra) == CS_OK;
        ok &= cs_whittle_tick(&ctx, &mine, n0, ch, &nl, &rl) == CS_OK;
        for (int64_t j = 0; j < na; j++)
            ref[j] = all.id[ch_all[j]];
        for (int64_t j = 0; j < nl; j++)
            loc[j] = mine.id[ch[j]];
        int c = (int)nl;
        MPI_Allgather(&c, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
        int tot = 0;
        for (int q = 0; q < ctx.size; q++) {
            dsp[q] = tot;
            tot += cnt[q];
        }
        ok &= tot == (int)na && na == (n0 < G ? n0 : G);
        if (tot == (int)na)
            MPI_Allgatherv(loc, c, MPI_UINT64_T, got, cnt, dsp, MPI_UINT64_T, MPI_COMM_WORLD);
        else
            MPI_Allgatherv(loc, 0, MPI_UINT64_T, got, cnt, dsp, MPI_UINT64_T, MPI_COMM_WORLD);
        if (tot == (int)na) {
            qsort(ref, (size_t)na, sizeof *ref, cmp_u64);
            qsort(got, (size_t)na, sizeof *got, cmp_u64);
            ok &= memcmp(ref, got, (size_t)na * sizeof *ref) == 0;
        }
        if (!ok && ctx.rank == 0)
            fprintf(stderr, "G %lld n0 %lld tick %d: chosen sets differ\n", (long long)G,
                    (long long)n0, t);
        MPI_ASSERT(ok);
    }
    free(cnt);
    free(dsp);
    free(got);
    free(loc);
    free(ref);
    free(ch);
    free(ch_all);
    cs_whittle_arms_fini(&mine);
    cs_whittle_arms_fini(&all);
}

START_TEST(whittle_topk_same_at_any_rank_count)
{
    run_case(5000, 37, 60);
    run_case(9, 3, 40);   /* fewer arms per rank than N0 on some ranks */
    run_case(3, 5, 5);    /* N0 above the total: everyone crawled */
    run_case(400, 1, 60); /* N0 = 1, the papers' case */
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    Suite *s = suite_create("bandit (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, whittle_topk_same_at_any_rank_count);
    suite_add_tcase(s, tc);
    const int status = mpitest_run(s);
    MPI_Finalize();
    return status;
}
