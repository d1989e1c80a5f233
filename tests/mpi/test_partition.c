/*
 * MPI integration tests of partition on a generated graph (~20k pages): every method assigns
 * every page exactly once to a part in [0, k); metis-host splits no host; METIS balance within
 * the requested ufactor; the distributed quality equals the serial reference; the same seed
 * gives the same partition; file round trips (in the graph file and separate); bad input
 * (k < 1, k > pages, missing partition, wrong schema, foreign file) gives the same error on
 * every rank without a hang.
 */
#include "crawlsim/config.h"
#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "crawlsim/partition.h"
#include "mpitest.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cs_ctx ctx;
static char tmpdir[256];
static char graph[300];

static cs_partition_config pconf(int method)
{
    cs_partition_config pc;
    pc.method = method;
    pc.ufactor = 30;
    pc.seed = 1;
    pc.objective = CS_PART_OBJ_CUT;
    pc.vertex_weight = CS_PART_VW_PAGES;
    return pc;
}

/* The whole graph on every rank (for the serial reference). */
static void read_all(cs_graph_slice *g)
{
    cs_graph_header h;
    ck_assert_int_eq(cs_graphio_read_header(&ctx, graph, &h), CS_OK);
    cs_graph_slice_init(g);
    ck_assert_int_eq(cs_graphio_read_slice(&ctx, graph, 0, h.n_pages, g, NULL), CS_OK);
}

static const int32_t ks[] = {1, 2, 3, 4, 16};
#define NK (sizeof ks / sizeof ks[0])

START_TEST(methods_valid)
{
    cs_graph_slice g;
    read_all(&g);
    for (int m = 0; m <= CS_PART_BLOCK; m++) {
        for (size_t ki = 0; ki < NK; ki++) {
            int32_t k = ks[ki];
            cs_partition_config pc = pconf(m);
            cs_partition p;
            cs_partition_init(&p);
            cs_err rc = cs_partition_compute(&ctx, graph, &pc, k, &p);
            MPI_ASSERT(rc == CS_OK);
            /* Every page in exactly one part in [0, k) (one slot per page: once by design). */
            int ok = p.n_pages == g.n_pages_total && p.k == k;
            int64_t *sizes = calloc((size_t)k, sizeof(int64_t));
            for (int64_t i = 0; ok && i < p.n_pages; i++) {
                ok = p.part[i] >= 0 && p.part[i] < k;
                if (ok)
                    sizes[p.part[i]]++;
            }
            MPI_ASSERT(ok);
            /* Hosts kept whole by the host methods, and host_part agrees with part. */
            if (m == CS_PART_METIS_HOST || m == CS_PART_HOST_HASH) {
                for (int64_t i = 0; ok && i < p.n_pages; i++)
                    ok = p.part[i] == p.host_part[g.host[i]];
                MPI_ASSERT(ok && p.quality.hosts_split == 0);
            }
            if (m == CS_PART_BLOCK) {
                for (int32_t q = 0; ok && q < k; q++)
                    ok = sizes[q] == p.part_first[q + 1] - p.part_first[q];
                MPI_ASSERT(ok && p.quality.page_balance < 1.0 + (double)k / (double)p.n_pages);
            }
            /*
             * METIS balances vertex weights (pages here) to at most 1 + ufactor/1000 of the
             * mean, but only approximately (its refinement can end slightly above), and it
             * cannot split a vertex: metis-host is bounded by the largest host too. The test
             * graph has hosts of at most 200 pages (1% of a part at k = 16... 1/1250 of N), so
             * we allow 1.03 + 0.02 slack.
             */
            if (m == CS_PART_METIS_HOST || m == CS_PART_METIS)
                MPI_ASSERT(p.quality.page_balance <= 1.0 + 30.0 / 1000.0 + 0.02);
            /* Distributed quality == serial reference. */
            cs_part_quality q;
            ck_assert_int_eq(cs_partition_quality_serial(&ctx, &g, p.part, k, &q), CS_OK);
            ok = q.edge_cut == p.quality.edge_cut && q.volume == p.quality.volume &&
                 q.hosts_split == p.quality.hosts_split &&
                 q.page_balance == p.quality.page_balance &&
                 q.link_balance == p.quality.link_balance &&
                 q.cut_fraction == p.quality.cut_fraction;
            MPI_ASSERT(ok);
            if (k == 1)
                MPI_ASSERT(p.quality.edge_cut == 0);
            free(sizes);
            cs_partition_fini(&p);
        }
    }
    cs_graph_slice_fini(&g);
}
END_TEST

START_TEST(big_hosts_balanced)
{
    /* Default host sizes (a few hosts of thousands of pages): no host-preserving partition can
     * beat heaviest host / mean part; k-way alone returned twice that on the 1 M graph, the
     * recursive-bisection fallback must bring it within 0.05 (+ 0.02 for METIS's looseness).
     * (On this 20k-page graph k-way alone already meets the bound: the test guards the bound,
     * it does not reproduce the 1 M case.) */
    char big[400];
    snprintf(big, sizeof big, "%s/big.h5", tmpdir);
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = 20000;
    cfg.gen.seed = 3;
    MPI_ASSERT(cs_gen_write(&ctx, &cfg, big) == CS_OK);
    cs_graph_header h;
    ck_assert_int_eq(cs_graphio_read_header(&ctx, big, &h), CS_OK);
    cs_graph_slice g;
    cs_graph_slice_init(&g);
    ck_assert_int_eq(cs_graphio_read_slice(&ctx, big, 0, h.n_pages, &g, NULL), CS_OK);
    int64_t *size = calloc((size_t)h.n_hosts, sizeof(int64_t)), heaviest = 0;
    for (int64_t i = 0; i < g.n; i++)
        if (++size[g.host[i]] > heaviest)
            heaviest = size[g.host[i]];
    free(size);
    cs_graph_slice_fini(&g);
    cs_partition_config pc = pconf(CS_PART_METIS_HOST);
    for (int32_t k = 8; k <= 32; k *= 2) {
        cs_partition p;
        cs_partition_init(&p);
        MPI_ASSERT(cs_partition_compute(&ctx, big, &pc, k, &p) == CS_OK);
        double feasible = (double)heaviest * (double)k / (double)h.n_pages;
        if (feasible < 1.03)
            feasible = 1.03;
        if (ctx.rank == 0 && p.quality.page_balance > feasible + 0.07)
            fprintf(stderr, "k %d: balance %.3f, feasible %.3f\n", (int)k, p.quality.page_balance,
                    feasible);
        MPI_ASSERT(p.quality.page_balance <= feasible + 0.07 && p.quality.hosts_split == 0);
        cs_partition_fini(&p);
    }
    if (ctx.rank == 0)
        unlink(big);
}
END_TEST

START_TEST(metis_host_beats_hash)
{
    /* Not the figure of docs/performance.md (that one is on the 1 M default graph), a sanity check
     * that contraction and METIS are wired together: the host graph cut is far below the hash's. */
    cs_partition a, b;
    cs_partition_init(&a);
    cs_partition_init(&b);
    cs_partition_config pa = pconf(CS_PART_METIS_HOST), pb = pconf(CS_PART_HOST_HASH);
    MPI_ASSERT(cs_partition_compute(&ctx, graph, &pa, 4, &a) == CS_OK);
    MPI_ASSERT(cs_partition_compute(&ctx, graph, &pb, 4, &b) == CS_OK);
    MPI_ASSERT(a.quality.edge_cut < b.quality.edge_cut);
    cs_partition_fini(&a);
    cs_partition_fini(&b);
}
END_TEST

static int same_parts(const cs_partition *a, const cs_partition *b)
{
    if (a->n_pages != b->n_pages || a->k != b->k)
        return 0;
    for (int64_t i = 0; i < a->n_pages; i++)
        if (a->part[i] != b->part[i])
            return 0;
    return 1;
}

START_TEST(deterministic_and_round_trip)
{
    for (int m = 0; m <= CS_PART_BLOCK; m++) {
        cs_partition_config pc = pconf(m);
        pc.vertex_weight = m == CS_PART_METIS_HOST ? CS_PART_VW_LINKS : CS_PART_VW_PAGES;
        pc.objective = m == CS_PART_METIS ? CS_PART_OBJ_VOLUME : CS_PART_OBJ_CUT;
        cs_partition a, b, r;
        cs_partition_init(&a);
        cs_partition_init(&b);
        cs_partition_init(&r);
        MPI_ASSERT(cs_partition_compute(&ctx, graph, &pc, 3, &a) == CS_OK);
        MPI_ASSERT(cs_partition_compute(&ctx, graph, &pc, 3, &b) == CS_OK);
        MPI_ASSERT(same_parts(&a, &b));
        /* Into the graph file, twice (the second replaces the first), then read back. */
        MPI_ASSERT(cs_partition_write(&ctx, graph, 1, &b) == CS_OK);
        MPI_ASSERT(cs_partition_write(&ctx, graph, 1, &a) == CS_OK);
        MPI_ASSERT(cs_partition_read(&ctx, graph, NULL, &r) == CS_OK);
        int ok = same_parts(&a, &r) && r.method == m && r.seed == a.seed &&
                 r.ufactor == a.ufactor && r.objective == a.objective &&
                 r.vertex_weight == a.vertex_weight && r.n_links == a.n_links &&
                 r.quality.edge_cut == a.quality.edge_cut && r.quality.volume == a.quality.volume &&
                 r.quality.page_balance == a.quality.page_balance &&
                 r.quality.hosts_split == a.quality.hosts_split && r.seconds == a.seconds &&
                 (a.host_part != NULL) == (r.host_part != NULL) &&
                 (a.part_first != NULL) == (r.part_first != NULL) &&
                 strcmp(r.graph_source, "gen") == 0;
        for (int64_t h = 0; ok && a.host_part != NULL && h < a.n_hosts; h++)
            ok = a.host_part[h] == r.host_part[h];
        for (int32_t p = 0; ok && a.part_first != NULL && p <= a.k; p++)
            ok = a.part_first[p] == r.part_first[p];
        MPI_ASSERT(ok);
        cs_partition_fini(&r);
        /* A separate file. */
        char sep[400];
        snprintf(sep, sizeof sep, "%s/part.h5", tmpdir);
        MPI_ASSERT(cs_partition_write(&ctx, sep, 0, &a) == CS_OK);
        MPI_ASSERT(cs_partition_read(&ctx, graph, sep, &r) == CS_OK);
        MPI_ASSERT(same_parts(&a, &r));
        cs_partition_fini(&r);
        cs_partition_fini(&a);
        cs_partition_fini(&b);
    }
    /* No temporary group or file left behind. */
    int ok = 1;
    if (ctx.rank == 0) {
        hid_t f = H5Fopen(graph, H5F_ACC_RDONLY, H5P_DEFAULT);
        ok = f >= 0 && H5Lexists(f, "/partition.tmp", H5P_DEFAULT) == 0;
        if (f >= 0)
            H5Fclose(f);
    }
    MPI_ASSERT(ok);
}
END_TEST

/* Every rank got `expect`, and the same message. */
static int agreed_error(cs_err rc, cs_err expect, const char *needle)
{
    char msg[CS_ERRMSG_MAX];
    memcpy(msg, ctx.errmsg, sizeof msg);
    MPI_Bcast(msg, CS_ERRMSG_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
    int ok = rc == expect && strcmp(msg, ctx.errmsg) == 0 &&
             (needle == NULL || strstr(ctx.errmsg, needle) != NULL);
    if (!ok && ctx.rank == 0)
        fprintf(stderr, "expected %s, got %s: %s\n", cs_errname(expect), cs_errname(rc),
                ctx.errmsg);
    cs_ctx_clear_error(&ctx);
    return ok;
}

START_TEST(bad_input)
{
    cs_partition p;
    cs_graph_header h;
    ck_assert_int_eq(cs_graphio_read_header(&ctx, graph, &h), CS_OK);
    cs_partition_config pc = pconf(CS_PART_METIS_HOST);
    cs_partition_init(&p);
    MPI_ASSERT(agreed_error(cs_partition_compute(&ctx, graph, &pc, 0, &p), CS_ERR_ARG, "k = 0"));
    MPI_ASSERT(p.part == NULL);
    pc.method = CS_PART_BLOCK;
    MPI_ASSERT(agreed_error(cs_partition_compute(&ctx, graph, &pc, (int32_t)h.n_pages + 1, &p),
                            CS_ERR_ARG, "must lie in"));
    char missing[400];
    snprintf(missing, sizeof missing, "%s/none.h5", tmpdir);
    MPI_ASSERT(agreed_error(cs_partition_compute(&ctx, missing, &pc, 2, &p), CS_ERR_IO, NULL));

    /* A graph without a partition: copy the graph's generation into a fresh file. */
    char bare[400];
    snprintf(bare, sizeof bare, "%s/bare.h5", tmpdir);
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = 500;
    cfg.gen.host_size_max = 50;
    MPI_ASSERT(cs_gen_write(&ctx, &cfg, bare) == CS_OK);
    MPI_ASSERT(agreed_error(cs_partition_read(&ctx, bare, NULL, &p), CS_ERR_FORMAT,
                            "has no partition; run crawlsim partition"));
    MPI_ASSERT(agreed_error(cs_partition_read(&ctx, bare, missing, &p), CS_ERR_IO, "none.h5"));
    /* A partition file for another graph (20k pages against 500). */
    char sep[400];
    snprintf(sep, sizeof sep, "%s/part_other.h5", tmpdir);
    cs_partition a;
    cs_partition_init(&a);
    MPI_ASSERT(cs_partition_compute(&ctx, graph, &pc, 2, &a) == CS_OK);
    MPI_ASSERT(cs_partition_write(&ctx, sep, 0, &a) == CS_OK);
    MPI_ASSERT(agreed_error(cs_partition_read(&ctx, bare, sep, &p), CS_ERR_FORMAT, "pages"));
    /* A graph file is not a partition file. */
    MPI_ASSERT(agreed_error(cs_partition_read(&ctx, graph, bare, &p), CS_ERR_FORMAT,
                            "not a crawlsim partition"));
    /* Another schema version. */
    if (ctx.rank == 0) {
        hid_t f = H5Fopen(sep, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t at = H5Aopen(f, "schema_version", H5P_DEFAULT);
        int32_t v = 99;
        H5Awrite(at, H5T_NATIVE_INT32, &v);
        H5Aclose(at);
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_ASSERT(agreed_error(cs_partition_read(&ctx, graph, sep, &p), CS_ERR_SCHEMA, "version 99"));
    MPI_ASSERT(p.part == NULL);
    cs_partition_fini(&a);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "partition");
    snprintf(graph, sizeof graph, "%s/web.h5", tmpdir);
    /* A small generated web: 20k pages, hosts of at most 200 pages. */
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = 20000;
    cfg.gen.host_size_max = 200;
    cfg.gen.seed = 7;
    if (cs_gen_write(&ctx, &cfg, graph) != CS_OK) {
        cs_report_error(&ctx, CS_ERR_INTERNAL);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("partition");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, methods_valid);
    tcase_add_test(tc, big_hosts_balanced);
    tcase_add_test(tc, metis_host_beats_hash);
    tcase_add_test(tc, deterministic_and_round_trip);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);

    mpitest_rm_tmpdir(tmpdir);
    cs_ctx_fini(&ctx);
    MPI_Finalize();
    return status;
}
