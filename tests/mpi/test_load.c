/*
 * MPI integration tests of distributed loading (issue 3, items 3 and 4): cs_graph_load_with
 * gives every rank exactly the pages a partition assigns it, with the CSR and attributes that
 * cs_graphio_read_slice reads for the same pages, an owner lookup that agrees with the
 * partition for every page and a local index that inverts the local ids, in each form of the
 * two (runs or per page); block, host-hash, random per-page and lopsided partitions; a
 * partition for another rank count or another graph is a clear error on every rank. Run at 1,
 * 2 and 4 ranks.
 */
#include "crawlsim/config.h"
#include "crawlsim/gen.h"
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/partition.h"
#include "crawlsim/rng.h"
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;
static char tmpdir[256];
static char gpath[320];
static cs_graph_slice whole; /* the whole graph, read by every rank: the reference */

/* Collective. Generates the test graph and reads all of it on every rank. */
static int setup_graph(void)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = 20011; /* not a multiple of any rank count */
    cfg.gen.topics = 8;
    cfg.gen.target_topic = 3;
    cfg.gen.seed = 11;
    snprintf(gpath, sizeof gpath, "%s/g.h5", tmpdir);
    if (cs_gen_write(&ctx, &cfg, gpath) != CS_OK)
        return 0;
    return cs_graphio_read_slice(&ctx, gpath, 0, cfg.gen.pages, &whole, NULL) == CS_OK;
}

/* The kinds of partition under test. */
enum { P_BLOCK, P_BLOCK_NARROW, P_HOST_HASH, P_RANDOM, P_LOPSIDED };

/* Local. A replicated in-memory partition of the test graph for k parts. */
static void make_part(int kind, int32_t k, cs_partition *p)
{
    const int64_t N = whole.n_pages_total;
    memset(p, 0, sizeof *p);
    p->k = k;
    p->n_pages = N;
    p->n_links = whole.n_links_total;
    p->n_hosts = whole.n_hosts;
    p->part = malloc((size_t)N * sizeof *p->part);
    ck_assert(p->part != NULL);
    if (kind == P_BLOCK) {
        p->method = CS_PART_BLOCK;
        p->part_first = malloc(((size_t)k + 1) * sizeof *p->part_first);
        ck_assert(p->part_first != NULL);
    }
    for (int32_t r = 0; r < k; r++) {
        int64_t f = 0, c = 0;
        cs_block_range(N, r, k, &f, &c);
        if (p->part_first != NULL)
            p->part_first[r] = f;
        for (int64_t q = f; q < f + c; q++)
            p->part[q] = r;
    }
    if (p->part_first != NULL)
        p->part_first[k] = N;
    for (int64_t q = 0; q < N; q++) {
        if (kind == P_HOST_HASH)
            p->part[q] = (int32_t)(cs_mix64((uint64_t)whole.host[q]) % (uint64_t)k);
        else if (kind == P_RANDOM)
            p->part[q] = (int32_t)(cs_mix64((uint64_t)q ^ 0x5eedULL) % (uint64_t)k);
        else if (kind == P_LOPSIDED) /* rank 0 owns nothing, the last rank almost everything */
            p->part[q] = k == 1 ? 0 : (q % 97 == 0 ? 1 + (int32_t)(q % (k - 1)) : k - 1);
    }
}

static void free_part(cs_partition *p)
{
    free(p->part);
    free(p->part_first);
    memset(p, 0, sizeof *p);
}

/* Collective. Loads under partition kind and checks everything the contract promises. */
static void check_kind(int kind)
{
    cs_partition part;
    make_part(kind, ctx.size, &part);
    cs_graph *g = NULL;
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_graph_load_with(&ctx, gpath, &part, &g);
    MPI_ASSERT(rc == CS_OK && g != NULL);
    const int64_t N = whole.n_pages_total, n = cs_graph_n_local(g);
    const int64_t *ids = cs_graph_local_ids(g), *off = cs_graph_offsets(g);
    const int64_t *tg = cs_graph_targets(g), *host = cs_graph_host(g);
    const int32_t *topic = cs_graph_topic(g);
    const double *rel = cs_graph_relevance(g), *dl = cs_graph_delta(g), *mu = cs_graph_mu(g);
    const uint8_t *obs = cs_graph_observable(g);

    int ok = cs_graph_n_pages(g) == N && cs_graph_n_links(g) == whole.n_links_total &&
             cs_graph_n_hosts(g) == whole.n_hosts && cs_graph_n_topics(g) == whole.n_topics &&
             cs_graph_n_parts(g) == ctx.size && cs_graph_rank(g) == ctx.rank && off[0] == 0 &&
             off[n] == cs_graph_n_local_links(g);
    MPI_ASSERT(ok);

    /* Every page owned by exactly one rank, and by the rank the partition names. */
    int32_t *cnt = calloc((size_t)N, sizeof *cnt);
    ck_assert(cnt != NULL);
    for (int64_t i = 0; ok && i < n; i++) {
        ok = ids[i] >= 0 && ids[i] < N && (i == 0 || ids[i] > ids[i - 1]) &&
             part.part[ids[i]] == ctx.rank;
        if (ok)
            cnt[ids[i]] = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, cnt, (int)N, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
    for (int64_t q = 0; ok && q < N; q++)
        ok = cnt[q] == 1;
    free(cnt);
    MPI_ASSERT(ok);

    /* CSR and attributes equal what cs_graphio_read_slice reads for the same pages. */
    for (int64_t i = 0; ok && i < n; i++) {
        const int64_t q = ids[i];
        const int64_t *wo = whole.offsets;
        ok = off[i + 1] - off[i] == wo[q + 1] - wo[q] && host[i] == whole.host[q] &&
             topic[i] == whole.topic[q] && rel[i] == whole.relevance[q] &&
             dl[i] == whole.delta[q] && mu[i] == whole.mu[q] && obs[i] == whole.observable[q];
        for (int64_t e = 0; ok && e < off[i + 1] - off[i]; e++)
            ok = tg[off[i] + e] == whole.targets[wo[q] + e];
    }
    MPI_ASSERT(ok);

    /* owner() agrees with the partition; local_index() inverts the local ids and gives -1
     * for every foreign page and for ids outside the graph. */
    for (int64_t q = 0; ok && q < N; q++)
        ok = cs_graph_owner(g, q) == part.part[q] &&
             (part.part[q] == ctx.rank || cs_graph_local_index(g, q) == -1);
    for (int64_t i = 0; ok && i < n; i++)
        ok = cs_graph_local_index(g, ids[i]) == i;
    ok = ok && cs_graph_local_index(g, -1) == -1 && cs_graph_local_index(g, N) == -1;
    MPI_ASSERT(ok);
    cs_graph_destroy(&g);
    MPI_ASSERT(g == NULL);
    free_part(&part);
}

START_TEST(graph_is_generated)
{
    MPI_ASSERT(tmpdir[0] != '\0' && whole.n_pages_total == 20011);
}
END_TEST

START_TEST(block_partition)
{
    check_kind(P_BLOCK);
}
END_TEST

START_TEST(block_partition_without_range_table)
{
    check_kind(P_BLOCK_NARROW);
}
END_TEST

START_TEST(host_hash_partition)
{
    check_kind(P_HOST_HASH);
}
END_TEST

START_TEST(random_partition)
{
    check_kind(P_RANDOM);
}
END_TEST

START_TEST(lopsided_partition)
{
    check_kind(P_LOPSIDED);
}
END_TEST

/* Small read windows: runs are cut across windows, ranks make different numbers of reads. */
START_TEST(random_partition_small_windows)
{
    setenv("CRAWLSIM_GRAPHIO_CHUNK", "777", 1);
    check_kind(P_RANDOM);
    check_kind(P_HOST_HASH);
    unsetenv("CRAWLSIM_GRAPHIO_CHUNK");
}
END_TEST

/* The owner lookup and the local index in the form their bytes did not choose above (owner
 * runs and local runs, or the owner map and the rank directory: src/graph/owner.c): a random
 * partition through runs, a host partition through maps. */
START_TEST(every_index_form)
{
    setenv("CRAWLSIM_GRAPH_INDEX", "runs", 1);
    check_kind(P_RANDOM);
    setenv("CRAWLSIM_GRAPH_INDEX", "map", 1);
    check_kind(P_HOST_HASH);
    unsetenv("CRAWLSIM_GRAPH_INDEX");
}
END_TEST

/* 1 if ctx.errmsg is the same on every rank. */
static int same_message(void)
{
    uint64_t h = 1469598103934665603ULL, lo = 0, hi = 0;
    for (size_t i = 0; ctx.errmsg[i] != '\0'; i++)
        h = (h ^ (unsigned char)ctx.errmsg[i]) * 1099511628211ULL;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

START_TEST(wrong_rank_count_is_a_clear_error)
{
    cs_partition part;
    make_part(P_RANDOM, ctx.size + 1, &part);
    cs_graph *g = NULL;
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_graph_load_with(&ctx, gpath, &part, &g);
    char want[64];
    snprintf(want, sizeof want, "-k %d", ctx.size);
    MPI_ASSERT(rc == CS_ERR_ARG && g == NULL);
    MPI_ASSERT(strstr(ctx.errmsg, "k = ") != NULL && strstr(ctx.errmsg, want) != NULL &&
               strstr(ctx.errmsg, gpath) != NULL);
    MPI_ASSERT(same_message());
    free_part(&part);
}
END_TEST

START_TEST(partition_of_another_graph_is_a_clear_error)
{
    cs_partition part;
    make_part(P_RANDOM, ctx.size, &part);
    part.n_pages -= 1;
    part.n_links = 0;
    cs_graph *g = NULL;
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_graph_load_with(&ctx, gpath, &part, &g);
    MPI_ASSERT(rc == CS_ERR_ARG && g == NULL);
    MPI_ASSERT(strstr(ctx.errmsg, "another graph") != NULL && same_message());
    part.n_pages += 1;
    part.part[part.n_pages - 1] = ctx.size; /* a part id outside [0, k) */
    cs_ctx_clear_error(&ctx);
    rc = cs_graph_load_with(&ctx, gpath, &part, &g);
    MPI_ASSERT(rc == CS_ERR_FORMAT && g == NULL && same_message());
    free_part(&part);
}
END_TEST

/* Through partition files: cs_graph_load = cs_partition_read + cs_graph_load_with. */
START_TEST(load_from_partition_files)
{
    char ppath[340], bad[340];
    snprintf(ppath, sizeof ppath, "%s/hash.part.h5", tmpdir);
    snprintf(bad, sizeof bad, "%s/k-plus-one.part.h5", tmpdir);
    cs_partition part, other;
    make_part(P_HOST_HASH, ctx.size, &part);
    part.method = CS_PART_HOST_HASH;
    make_part(P_RANDOM, ctx.size + 1, &other);
    other.method = CS_PART_METIS;
    cs_graph *g = NULL;

    /* No /partition in the graph file yet. */
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_graph_load(&ctx, gpath, NULL, &g);
    MPI_ASSERT(rc != CS_OK && g == NULL && same_message());

    /* A separate partition file, then the same partition inside the graph file. */
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_partition_write(&ctx, ppath, 0, &part) == CS_OK);
    MPI_ASSERT(cs_partition_write(&ctx, gpath, 1, &part) == CS_OK);
    for (int in_graph = 0; in_graph < 2; in_graph++) {
        rc = cs_graph_load(&ctx, gpath, in_graph ? NULL : ppath, &g);
        MPI_ASSERT(rc == CS_OK && g != NULL);
        int ok = 1;
        int64_t n = 0;
        for (int64_t q = 0; q < whole.n_pages_total; q++) {
            ok = ok && cs_graph_owner(g, q) == part.part[q];
            if (part.part[q] == ctx.rank)
                ok = ok && cs_graph_local_ids(g)[n] == q && cs_graph_local_index(g, q) == n++;
        }
        MPI_ASSERT(ok && n == cs_graph_n_local(g));
        cs_graph_destroy(&g);
    }

    /* A partition file made for another rank count. */
    MPI_ASSERT(cs_partition_write(&ctx, bad, 0, &other) == CS_OK);
    cs_ctx_clear_error(&ctx);
    rc = cs_graph_load(&ctx, gpath, bad, &g);
    char want[64];
    snprintf(want, sizeof want, "-k %d", ctx.size);
    MPI_ASSERT(rc == CS_ERR_ARG && g == NULL);
    MPI_ASSERT(strstr(ctx.errmsg, bad) != NULL && strstr(ctx.errmsg, want) != NULL);
    MPI_ASSERT(same_message());
    free_part(&other);
    free_part(&part);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    cs_graph_slice_init(&whole);
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "load");
    char made[sizeof tmpdir];
    memcpy(made, tmpdir, sizeof made);
    if (tmpdir[0] != '\0' && !mpitest_all(setup_graph()))
        tmpdir[0] = '\0';
    Suite *s = suite_create("load (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, graph_is_generated);
    if (tmpdir[0] != '\0') {
        tcase_add_test(tc, block_partition);
        tcase_add_test(tc, block_partition_without_range_table);
        tcase_add_test(tc, host_hash_partition);
        tcase_add_test(tc, random_partition);
        tcase_add_test(tc, lopsided_partition);
        tcase_add_test(tc, random_partition_small_windows);
        tcase_add_test(tc, every_index_form);
        tcase_add_test(tc, wrong_rank_count_is_a_clear_error);
        tcase_add_test(tc, partition_of_another_graph_is_a_clear_error);
        tcase_add_test(tc, load_from_partition_files);
    }
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    cs_graph_slice_fini(&whole);
    mpitest_rm_tmpdir(made);
    MPI_Finalize();
    return status;
}
