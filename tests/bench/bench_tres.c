/*
 * bench_tres: the TRES step at the paper's scale (docs/performance.md, issue 5 "Figures"): a
 * Tree-Frontier (tree.h) with a live frontier of 10^6 samples and about 4 000 leaves, TRES-like
 * vectors (d = 9: four binary and five continuous features, rewards Bernoulli in a function of
 * them). Per step:
 *   bookkeeping  insert 16 new out-links, add the experience sample (one split attempt), draw one
 *                representative per leaf, remove the chosen sample (Q evaluation excluded: the
 *                reference's 17 ms/step is its tree code alone)
 *   step         bookkeeping + one batched MLP evaluation of every representative + argmax
 *                (cs_tree_sample); and the same with the double-DQN training of the authors'
 *                schedule (replay push with 16 next candidates, batch 60 every 3 steps)
 * and the memory per frontier sample (the tree's per-leaf arrays and id map over the samples,
 * minus the d floats of the vector). Usage: bench_tres [frontier] [leaves] [steps]
 */
#include "crawlsim/core.h"
#include "crawlsim/ddqn.h"
#include "crawlsim/replay.h"
#include "crawlsim/rng.h"
#include "crawlsim/tree.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define D 9

static void draw_x(cs_rng *r, float *x)
{
    for (int f = 0; f < D; f++)
        x[f] = (f == 0 || f == 3 || f == 4 || f == 5) ? (float)(cs_rng_uniform(r) < 0.3)
                                                      : (float)cs_rng_uniform(r);
}

static float draw_r(cs_rng *r, const float *x)
{
    const double p = 0.05 + 0.25 * x[0] + 0.2 * x[4] + 0.3 * x[8] * x[2] + 0.1 * x[6];
    return (float)(cs_rng_uniform(r) < p);
}

int main(int argc, char **argv)
{
    const int64_t nf = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
    const int64_t nl = argc > 2 ? strtoll(argv[2], NULL, 10) : 4000;
    const int64_t steps = argc > 3 ? strtoll(argv[3], NULL, 10) : 3000;
    if (nf < 1 || nl < 1 || steps < 3) {
        fprintf(stderr, "usage: bench_tres [frontier] [leaves] [steps]\n");
        return EXIT_FAILURE;
    }
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_rng r;
    cs_rng_init(&r, 1, CS_RNG_TEST, 0, 0);
    cs_tree_config tc;
    cs_tree_config_default(&tc, D);
    tc.seed = 1;
    cs_tree *t = NULL;
    if (cs_tree_create(&ctx, &tc, &t) != CS_OK)
        return EXIT_FAILURE;
    float x[D];
    uint64_t id = 0;
    /* grow the tree to nl leaves, then the frontier to nf samples */
    cs_tree_stats st;
    int64_t nexp = 0;
    double t0 = cs_now();
    do {
        draw_x(&r, x);
        if (cs_tree_add_experience(&ctx, t, x, draw_r(&r, x), NULL) != CS_OK)
            return EXIT_FAILURE;
        nexp++;
        cs_tree_stats_get(t, &st);
    } while (st.leaves < nl && nexp < 100 * nl);
    for (int64_t i = 0; i < nf; i++) {
        draw_x(&r, x);
        if (cs_tree_add_frontier(&ctx, t, x, id++) != CS_OK)
            return EXIT_FAILURE;
    }
    cs_tree_stats_get(t, &st);
    printf("bench_tres: %d OpenMP threads; set-up %.2f s: %lld experience samples, %lld leaves "
           "(%lld with frontier samples), depth %d, %lld frontier samples\n",
           omp_get_max_threads(), cs_now() - t0, (long long)st.experience, (long long)st.leaves,
           (long long)st.nonempty, st.depth, (long long)st.frontier);
    printf("memory: %.1f B per frontier sample (arrays + id map) = %.1f B + the %d-float vector "
           "(%d B); tree total %.1f MB\n",
           (double)st.bytes_frontier / (double)st.frontier,
           (double)st.bytes_frontier / (double)st.frontier - 4.0 * D, D, 4 * D,
           (double)st.bytes / 1e6);

    /* 1. bookkeeping alone: the argmax is replaced by the first representative */
    t0 = cs_now();
    int64_t reps_total = 0;
    for (int64_t s = 0; s < steps; s++) {
        for (int j = 0; j < 16; j++) {
            draw_x(&r, x);
            if (cs_tree_add_frontier(&ctx, t, x, id++) != CS_OK)
                return EXIT_FAILURE;
        }
        draw_x(&r, x);
        if (cs_tree_add_experience(&ctx, t, x, draw_r(&r, x), NULL) != CS_OK)
            return EXIT_FAILURE;
        const float *rx;
        const uint64_t *rid;
        const int32_t *lv;
        int64_t n = 0;
        if (cs_tree_representatives(&ctx, t, &rx, &rid, &lv, &n) != CS_OK || n == 0)
            return EXIT_FAILURE;
        reps_total += n;
        cs_tree_remove(t, rid[(uint64_t)s % (uint64_t)n]);
    }
    double tb = (cs_now() - t0) / (double)steps;
    cs_tree_stats_get(t, &st);
    printf("bookkeeping: %.1f us/step (%lld steps, %.0f representatives/step; frontier now %lld, "
           "%lld leaves); the reference's tree code: ~17 ms/step -> %.0fx\n",
           tb * 1e6, (long long)steps, (double)reps_total / (double)steps, (long long)st.frontier,
           (long long)st.leaves, 17e-3 / tb);

    /* 2. the whole step: bookkeeping + batched Q of every representative (+ DDQN training) */
    cs_ddqn_config dc;
    cs_ddqn_config_default(&dc);
    dc.net.d_in = D;
    cs_ddqn *q = NULL;
    cs_replay *rb = NULL;
    cs_replay_config rc;
    cs_replay_config_default(&rc, D);
    rc.next_rows = rc.capacity * 16;
    if (cs_ddqn_create(&ctx, &dc, &r, &q) != CS_OK || cs_replay_create(&ctx, &rc, &rb) != CS_OK)
        return EXIT_FAILURE;
    float next[16 * D];
    for (int train = 0; train < 2; train++) {
        t0 = cs_now();
        int64_t evals = 0;
        for (int64_t s = 0; s < steps; s++) {
            for (int j = 0; j < 16; j++) {
                draw_x(&r, next + j * D);
                if (cs_tree_add_frontier(&ctx, t, next + j * D, id++) != CS_OK)
                    return EXIT_FAILURE;
            }
            cs_tree_pick pk;
            if (cs_tree_sample(&ctx, t, cs_ddqn_online(q), 0.0, &pk) != CS_OK || !pk.found)
                return EXIT_FAILURE;
            evals += pk.q_evals;
            const float rew = draw_r(&r, pk.x);
            if (cs_tree_add_experience(&ctx, t, pk.x, rew, NULL) != CS_OK)
                return EXIT_FAILURE;
            if (train) {
                if (cs_replay_push(&ctx, rb, pk.x, rew, next, D, 16) != CS_OK)
                    return EXIT_FAILURE;
                double loss;
                if (s % 3 == 2 && cs_replay_size(rb) >= dc.batch &&
                    cs_ddqn_train(&ctx, q, rb, &r, &loss) != CS_OK)
                    return EXIT_FAILURE;
            }
        }
        const double ts = (cs_now() - t0) / (double)steps;
        printf("TRES step%s: %.1f us/step = %.0f steps/s (%.0f Q evaluations/step)\n",
               train ? " with DDQN training (batch 60 every 3 steps)" : " (select, no training)",
               ts * 1e6, 1.0 / ts, (double)evals / (double)steps);
    }
    cs_ddqn_destroy(&q);
    cs_replay_destroy(&rb);
    cs_tree_destroy(&t);
    cs_ctx_fini(&ctx);
    return EXIT_SUCCESS;
}
