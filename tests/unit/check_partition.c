/*
 * Unit tests of the serial parts of partition: host contraction on a hand-made graph (edge
 * weights symmetrised, self edges dropped, vertex weights), the page-graph symmetrisation,
 * the host hash, and the serial quality reference on a tiny partition with known answers.
 */
#include "crawlsim/partition.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/*
 * The hand-made graph: 7 pages on 3 hosts.
 *   host 0: pages 0, 1, 2    host 1: pages 3, 4    host 2: pages 5, 6
 *   links: 0->1 0->3 0->0 1->0 1->4 2->5 3->0 3->4 4->3 5->6 6->2 6->3
 * Host graph: {0,1}: 0->3, 1->4, 3->0 = 3; {0,2}: 2->5, 6->2 = 2; {1,2}: 6->3 = 1.
 */
static const int64_t t_off[8] = {0, 3, 5, 6, 8, 9, 10, 12};
static const int64_t t_tg[12] = {0, 1, 3, 0, 4, 5, 0, 4, 3, 6, 2, 3};
static const int64_t t_host[7] = {0, 0, 0, 1, 1, 2, 2};

static void make_graph(cs_graph_slice *g)
{
    cs_graph_slice_init(g);
    g->n_pages_total = 7;
    g->n_links_total = 12;
    g->n_hosts = 3;
    g->n = 7;
    g->offsets = malloc(sizeof t_off);
    g->targets = malloc(sizeof t_tg);
    g->host = malloc(sizeof t_host);
    memcpy(g->offsets, t_off, sizeof t_off);
    memcpy(g->targets, t_tg, sizeof t_tg);
    memcpy(g->host, t_host, sizeof t_host);
}

/* Weight of edge {a, b} in c, 0 if absent; checks that b appears at most once. */
static int32_t weight_of(const cs_part_csr *c, int32_t a, int32_t b)
{
    int32_t w = 0, seen = 0;
    for (int32_t j = c->xadj[a]; j < c->xadj[a + 1]; j++)
        if (c->adjncy[j] == b) {
            w = c->adjwgt[j];
            seen++;
        }
    ck_assert_int_le(seen, 1);
    return w;
}

START_TEST(test_host_contraction)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_graph_slice g;
    make_graph(&g);
    cs_part_csr c;
    ck_assert_int_eq(cs_partition_contract(&ctx, &g, g.host, 3, CS_PART_VW_PAGES, "test", &c),
                     CS_OK);
    ck_assert_int_eq(c.n, 3);
    ck_assert_int_eq(c.xadj[3], 6); /* three edges, both directions */
    ck_assert_int_eq(weight_of(&c, 0, 1), 3);
    ck_assert_int_eq(weight_of(&c, 1, 0), 3);
    ck_assert_int_eq(weight_of(&c, 0, 2), 2);
    ck_assert_int_eq(weight_of(&c, 2, 0), 2);
    ck_assert_int_eq(weight_of(&c, 1, 2), 1);
    ck_assert_int_eq(weight_of(&c, 2, 1), 1);
    for (int32_t v = 0; v < 3; v++)
        ck_assert_int_eq(weight_of(&c, v, v), 0);
    ck_assert_int_eq(c.vwgt[0], 3);
    ck_assert_int_eq(c.vwgt[1], 2);
    ck_assert_int_eq(c.vwgt[2], 2);
    cs_part_csr_fini(&c);

    /* Vertex weight = out-links: host 0 has 6, host 1 has 3, host 2 has 3. */
    ck_assert_int_eq(cs_partition_contract(&ctx, &g, g.host, 3, CS_PART_VW_LINKS, "test", &c),
                     CS_OK);
    ck_assert_int_eq(c.vwgt[0], 6);
    ck_assert_int_eq(c.vwgt[1], 3);
    ck_assert_int_eq(c.vwgt[2], 3);
    cs_part_csr_fini(&c);
    cs_graph_slice_fini(&g);
}
END_TEST

START_TEST(test_page_symmetrisation)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_graph_slice g;
    make_graph(&g);
    cs_part_csr c;
    ck_assert_int_eq(cs_partition_contract(&ctx, &g, NULL, 7, CS_PART_VW_PAGES, "test", &c), CS_OK);
    ck_assert_int_eq(c.n, 7);
    /* Reciprocal pairs weigh 2: 0<->1, 0<->3, 3<->4; one-way links 1: 1->4 2->5 5->6 6->2
     * 6->3; the self loop 0->0 is dropped. 8 undirected edges = 16 entries. */
    ck_assert_int_eq(c.xadj[7], 16);
    ck_assert_int_eq(weight_of(&c, 0, 1), 2);
    ck_assert_int_eq(weight_of(&c, 1, 0), 2);
    ck_assert_int_eq(weight_of(&c, 3, 0), 2);
    ck_assert_int_eq(weight_of(&c, 4, 3), 2);
    ck_assert_int_eq(weight_of(&c, 4, 1), 1);
    ck_assert_int_eq(weight_of(&c, 2, 6), 1);
    ck_assert_int_eq(weight_of(&c, 3, 6), 1);
    ck_assert_int_eq(weight_of(&c, 0, 0), 0);
    for (int32_t v = 0; v < 7; v++)
        ck_assert_int_eq(c.vwgt[v], 1);
    cs_part_csr_fini(&c);
    cs_graph_slice_fini(&g);
}
END_TEST

START_TEST(test_host_hash)
{
    /* In range, deterministic, seed-dependent and roughly uniform. */
    int64_t count[8] = {0};
    int differ = 0;
    for (int64_t h = 0; h < 80000; h++) {
        int32_t p = cs_partition_host_hash(h, 1, 8);
        ck_assert(p >= 0 && p < 8);
        ck_assert_int_eq(p, cs_partition_host_hash(h, 1, 8));
        differ += p != cs_partition_host_hash(h, 2, 8);
        count[p]++;
    }
    /* Binomial(80000, 1/8): sd = sqrt(80000 * 1/8 * 7/8) = 93.5; 6 sd = 561. */
    for (int p = 0; p < 8; p++)
        ck_assert_int_lt(llabs(count[p] - 10000), 561);
    ck_assert_int_gt(differ, 60000); /* 7/8 of 80000 expected */
    ck_assert_int_eq(cs_partition_host_hash(12345, 7, 1), 0);
}
END_TEST

START_TEST(test_quality_known)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_graph_slice g;
    make_graph(&g);
    /* Parts: pages 0 1 2 3 -> 0, pages 4 5 6 -> 1 (host 1 split: pages 3 and 4). */
    const int32_t part[7] = {0, 0, 0, 0, 1, 1, 1};
    cs_part_quality q;
    ck_assert_int_eq(cs_partition_quality_serial(&ctx, &g, part, 2, &q), CS_OK);
    /* Cut links: 1->4, 2->5, 3->4, 4->3, 6->2, 6->3 = 6 (0->0 never). */
    ck_assert_int_eq(q.edge_cut, 6);
    ck_assert_double_eq_tol(q.cut_fraction, 6.0 / 12.0, 1e-12);
    /* Volume: pages 1, 2, 3, 4 reach one remote part each, page 6 one (2 and 3 both in 0). */
    ck_assert_int_eq(q.volume, 5);
    /* Pages 4 and 3: max 4 of mean 3.5; links 8 (pages 0-3: 3+2+1+2) of mean 6. */
    ck_assert_double_eq_tol(q.page_balance, 4.0 / 3.5, 1e-12);
    ck_assert_double_eq_tol(q.link_balance, 8.0 / 6.0, 1e-12);
    ck_assert_int_eq(q.hosts_split, 1);

    /* One part: nothing cut, balance 1. */
    const int32_t zero[7] = {0};
    ck_assert_int_eq(cs_partition_quality_serial(&ctx, &g, zero, 1, &q), CS_OK);
    ck_assert_int_eq(q.edge_cut, 0);
    ck_assert_int_eq(q.volume, 0);
    ck_assert_int_eq(q.hosts_split, 0);
    ck_assert_double_eq_tol(q.page_balance, 1.0, 1e-12);
    cs_graph_slice_fini(&g);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(cs_partition_method_name(CS_PART_METIS_HOST), "metis-host");
    ck_assert_str_eq(cs_partition_method_name(CS_PART_METIS), "metis");
    ck_assert_str_eq(cs_partition_method_name(CS_PART_HOST_HASH), "host-hash");
    ck_assert_str_eq(cs_partition_method_name(CS_PART_BLOCK), "block");
    cs_partition p;
    cs_partition_init(&p);
    cs_partition_fini(&p);
    cs_partition_fini(&p);
    ck_assert_ptr_null(p.part);
}
END_TEST

static Suite *partition_suite(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("serial");
    tcase_add_test(tc, test_host_contraction);
    tcase_add_test(tc, test_page_symmetrisation);
    tcase_add_test(tc, test_host_hash);
    tcase_add_test(tc, test_quality_known);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(partition_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
