/*
 * MPI integration tests of the modules' checkpoint hooks: a Tree-Frontier, a replay buffer with
 * its double DQN, the Whittle learning scheme and FG-DQN are driven for a while, saved into a
 * checkpoint, loaded into freshly created objects, and then the original and the restored one
 * are driven identically: every later output (samples drawn, leaves, Q values, weights, losses,
 * rewards) must be bit-identical. Each rank uses its own data (a rank-dependent seed), so the
 * per-rank pieces of the checkpoint are exercised too. Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/bandit.h"
#include "crawlsim/ckpt.h"
#include "crawlsim/ddqn.h"
#include "crawlsim/replay.h"
#include "crawlsim/tree.h"
#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;
static char tmpdir[256];
#define D 4

static void vec(cs_rng *r, float *x)
{
    for (int j = 0; j < D; j++)
        x[j] = (float)cs_rng_uniform(r);
}

/* save: cb(obj, ck) into path, collectively */
static int ck_write(const char *path, cs_err (*cb)(void *, cs_ckpt *), void *obj)
{
    cs_ckpt *ck = NULL;
    cs_err rc = cs_ckpt_create(&ctx, path, &ck);
    if (rc == CS_OK)
        rc = cb(obj, ck);
    if (rc == CS_OK)
        rc = cs_ckpt_commit(&ctx, &ck);
    cs_ckpt_close(&ctx, &ck);
    return rc == CS_OK;
}

static int ck_read(const char *path, cs_err (*cb)(void *, cs_ckpt *), void *obj)
{
    cs_ckpt *ck = NULL;
    cs_err rc = cs_ckpt_open(&ctx, path, &ck);
    if (rc == CS_OK)
        rc = cb(obj, ck);
    cs_ckpt_close(&ctx, &ck);
    return rc == CS_OK;
}

/* ---- Tree-Frontier ---- */

static cs_tree *new_tree(void)
{
    cs_tree_config c;
    cs_tree_config_default(&c, D);
    c.seed = 7;
    c.stream = 3;
    cs_tree *t = NULL;
    ck_assert_int_eq(cs_tree_create(&ctx, &c, &t), CS_OK);
    return t;
}

/* one round of work: frontier samples (some ids repeated), experience, removals, draws; the
 * draws are appended to out */
static void tree_work(cs_tree *t, cs_rng *r, int n, uint64_t *out, int *nout)
{
    float x[D];
    for (int i = 0; i < n; i++) {
        vec(r, x);
        const uint64_t id = cs_rng_below(r, 400);
        ck_assert_int_eq(cs_tree_add_frontier(&ctx, t, x, id), CS_OK);
        if (i % 3 == 0) {
            vec(r, x);
            ck_assert_int_eq(cs_tree_add_experience(&ctx, t, x, x[0] > 0.5f ? 1.0f : 0.0f, NULL),
                             CS_OK);
        }
        if (i % 7 == 0)
            cs_tree_remove(t, cs_rng_below(r, 400));
        if (i % 5 == 0) {
            cs_tree_pick pk;
            ck_assert_int_eq(cs_tree_sample_random(&ctx, t, &pk), CS_OK);
            out[(*nout)++] = pk.found ? pk.id * 1000003u + (uint64_t)pk.leaf : UINT64_MAX;
        }
    }
}

static cs_err tree_save_cb(void *t, cs_ckpt *ck)
{
    return cs_tree_save(&ctx, t, ck, "t");
}
static cs_err tree_load_cb(void *t, cs_ckpt *ck)
{
    return cs_tree_load(&ctx, t, ck, "t");
}

START_TEST(tree_continues_identically)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tree.h5", tmpdir);
    cs_tree *a = new_tree(), *b = new_tree();
    cs_rng r;
    cs_rng_init(&r, 11, CS_RNG_TEST, (uint64_t)ctx.rank, 0);
    static uint64_t oa[4000], ob[4000];
    int na = 0, nb = 0;
    tree_work(a, &r, 3000, oa, &na);
    MPI_ASSERT(ck_write(path, tree_save_cb, a));
    MPI_ASSERT(ck_read(path, tree_load_cb, b));
    cs_rng r2 = r;
    tree_work(a, &r, 2000, oa, &na);
    tree_work(b, &r2, 2000, ob, &nb);
    cs_tree_stats sa, sb;
    cs_tree_stats_get(a, &sa);
    cs_tree_stats_get(b, &sb);
    const int first = 600; /* the draws of phase 1 */
    MPI_ASSERT(na == first + nb && memcmp(oa + first, ob, (size_t)nb * sizeof *ob) == 0);
    MPI_ASSERT(sa.leaves == sb.leaves && sa.frontier == sb.frontier &&
               sa.experience == sb.experience && sa.leaves > 1);
    cs_tree_destroy(&a);
    cs_tree_destroy(&b);
}
END_TEST

/* ---- replay buffer and double DQN ---- */

typedef struct learner {
    cs_replay *rb;
    cs_ddqn *q;
} learner;

static void new_learner(learner *l)
{
    cs_replay_config rc;
    cs_replay_config_default(&rc, D);
    rc.capacity = 50;
    rc.next_rows = 120; /* small: the arena wraps and evicts */
    ck_assert_int_eq(cs_replay_create(&ctx, &rc, &l->rb), CS_OK);
    cs_ddqn_config dc;
    cs_ddqn_config_default(&dc);
    dc.net.d_in = D;
    dc.net.h1 = 8;
    dc.net.h2 = 4;
    dc.batch = 16;
    dc.target_every = 7;
    cs_rng r;
    cs_rng_init(&r, 5, CS_RNG_TEST, 99, 0);
    ck_assert_int_eq(cs_ddqn_create(&ctx, &dc, &r, &l->q), CS_OK);
}

static void learner_work(learner *l, cs_rng *r, int n, double *loss, int *nl)
{
    float x[D], next[6 * D];
    for (int i = 0; i < n; i++) {
        vec(r, x);
        const int k = (int)cs_rng_below(r, 6);
        for (int j = 0; j < k; j++)
            vec(r, next + j * D);
        ck_assert_int_eq(cs_replay_push(&ctx, l->rb, x, x[1] > 0.5f ? 1.0f : 0.0f, next, D, k),
                         CS_OK);
        if (cs_replay_size(l->rb) >= 16) {
            cs_rng tr;
            cs_rng_init(&tr, 3, CS_RNG_TEST, 1, (uint64_t)cs_replay_pushed(l->rb));
            ck_assert_int_eq(cs_ddqn_train(&ctx, l->q, l->rb, &tr, &loss[(*nl)++]), CS_OK);
        }
    }
}

static cs_err learner_save_cb(void *p, cs_ckpt *ck)
{
    learner *l = p;
    cs_err rc = cs_replay_save(&ctx, l->rb, ck, "rb");
    return rc == CS_OK ? cs_ddqn_save(&ctx, l->q, ck, "q") : rc;
}
static cs_err learner_load_cb(void *p, cs_ckpt *ck)
{
    learner *l = p;
    cs_err rc = cs_replay_load(&ctx, l->rb, ck, "rb");
    return rc == CS_OK ? cs_ddqn_load(&ctx, l->q, ck, "q") : rc;
}

START_TEST(replay_and_ddqn_continue_identically)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ddqn.h5", tmpdir);
    learner a, b;
    new_learner(&a);
    new_learner(&b);
    cs_rng r;
    cs_rng_init(&r, 12, CS_RNG_TEST, (uint64_t)ctx.rank, 0);
    static double la[400], lb[400];
    int na = 0, nb = 0;
    learner_work(&a, &r, 130 + 17 * ctx.rank, la, &na);
    MPI_ASSERT(ck_write(path, learner_save_cb, &a));
    MPI_ASSERT(ck_read(path, learner_load_cb, &b));
    cs_rng r2 = r;
    const int first = na;
    learner_work(&a, &r, 150, la, &na);
    learner_work(&b, &r2, 150, lb, &nb);
    const cs_mlp *ma = cs_ddqn_online(a.q), *mb = cs_ddqn_online(b.q);
    MPI_ASSERT(na - first == nb && nb > 0 && memcmp(la + first, lb, (size_t)nb * sizeof *lb) == 0);
    MPI_ASSERT(memcmp(cs_mlp_params_const(ma), cs_mlp_params_const(mb),
                      (size_t)cs_mlp_nparams(ma) * sizeof(float)) == 0);
    MPI_ASSERT(cs_replay_size(a.rb) == cs_replay_size(b.rb) &&
               cs_ddqn_steps(a.q) == cs_ddqn_steps(b.q));
    cs_replay_destroy(&a.rb);
    cs_replay_destroy(&b.rb);
    cs_ddqn_destroy(&a.q);
    cs_ddqn_destroy(&b.q);
}
END_TEST

/* ---- the learning scheme and FG-DQN ---- */

static cs_err lspe_save_cb(void *l, cs_ckpt *ck)
{
    return cs_lspe_save(&ctx, l, ck, "l");
}
static cs_err lspe_load_cb(void *l, cs_ckpt *ck)
{
    return cs_lspe_load(&ctx, l, ck, "l");
}

START_TEST(learning_scheme_continues_identically)
{
    char path[512];
    snprintf(path, sizeof path, "%s/lspe.h5", tmpdir);
    cs_lspe_config c;
    cs_lspe_config_default(&c);
    const double u[3] = {1.0, 2.0, 0.5 + ctx.rank}, al[3] = {0.5, 0.7, 0.3};
    const double u2[3] = {9.0, 9.0, 9.0}, al2[3] = {0.1, 0.1, 0.1};
    cs_lspe *a = NULL, *b = NULL;
    ck_assert_int_eq(cs_lspe_create(&ctx, &c, 3, u, al, 4, (uint64_t)ctx.rank, &a), CS_OK);
    ck_assert_int_eq(cs_lspe_create(&ctx, &c, 3, u2, al2, 8, 1, &b), CS_OK);
    for (int n = 0; n < 700; n++)
        cs_lspe_step(a, NULL);
    MPI_ASSERT(ck_write(path, lspe_save_cb, a));
    MPI_ASSERT(ck_read(path, lspe_load_cb, b));
    int same = 1;
    for (int n = 0; n < 700; n++) {
        uint8_t xa[3], xb[3];
        const double ra = cs_lspe_step(a, xa), rb = cs_lspe_step(b, xb);
        same &= ra == rb && memcmp(xa, xb, 3) == 0;
    }
    same &= memcmp(cs_lspe_state(a), cs_lspe_state(b), 3 * sizeof(double)) == 0;
    MPI_ASSERT(same);
    cs_lspe_destroy(&a);
    cs_lspe_destroy(&b);
}
END_TEST

static cs_err fg_save_cb(void *f, cs_ckpt *ck)
{
    return cs_fgdqn_save(&ctx, f, ck, "f");
}
static cs_err fg_load_cb(void *f, cs_ckpt *ck)
{
    return cs_fgdqn_load(&ctx, f, ck, "f");
}

static void fg_work(cs_fgdqn *f, cs_rng *r, int n)
{
    float z[8], z1[8];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < 8; j++) {
            z[j] = (float)cs_rng_uniform(r);
            z1[j] = (float)cs_rng_uniform(r);
        }
        cs_fgdqn_push(f, z, (int64_t)cs_rng_below(r, 4), (float)cs_rng_uniform(r), z1);
        cs_fgdqn_train(f);
    }
}

START_TEST(fgdqn_continues_identically)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fgdqn.h5", tmpdir);
    cs_fgdqn_config c;
    cs_fgdqn_config_default(&c);
    c.hidden1 = 16;
    c.replay = 64;
    c.batch = 8;
    cs_fgdqn *a = NULL, *b = NULL;
    ck_assert_int_eq(cs_fgdqn_create(&ctx, &c, 4, 2, (uint64_t)ctx.rank, &a), CS_OK);
    ck_assert_int_eq(cs_fgdqn_create(&ctx, &c, 4, 9, 9, &b), CS_OK);
    cs_rng r;
    cs_rng_init(&r, 13, CS_RNG_TEST, (uint64_t)ctx.rank, 0);
    fg_work(a, &r, 90);
    MPI_ASSERT(ck_write(path, fg_save_cb, a));
    MPI_ASSERT(ck_read(path, fg_load_cb, b));
    cs_rng r2 = r;
    fg_work(a, &r, 60);
    fg_work(b, &r2, 60);
    float z[8] = {0.1f, 0.2f, 0.3f, 0.4f, 1, 0, 1, 0}, qa[4], qb[4];
    cs_fgdqn_q(a, z, qa);
    cs_fgdqn_q(b, z, qb);
    MPI_ASSERT(memcmp(qa, qb, sizeof qa) == 0);
    cs_fgdqn_destroy(&a);
    cs_fgdqn_destroy(&b);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "ckpt-state");
    Suite *s = suite_create("module checkpoints (MPI)");
    TCase *tc = tcase_create("continue");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tree_continues_identically);
    tcase_add_test(tc, replay_and_ddqn_continue_identically);
    tcase_add_test(tc, learning_scheme_continues_identically);
    tcase_add_test(tc, fgdqn_continues_identically);
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    mpitest_rm_tmpdir(tmpdir);
    MPI_Finalize();
    return status;
}
