/*
 * MPI integration tests of the run-time graph of a generated world without a graph file:
 * cs_gen_partition gives exactly the block and host-hash partitions cs_partition_compute
 * makes on the graph file of the same world, and cs_gen_graph gives, array for array and
 * accessor for accessor, the graph cs_graph_load (and cs_graph_load_with) gives on that file
 * under the same partition, also for scattered and lopsided partitions (ranks owning nothing),
 * and so does cs_gen_graph_host_hash under host-hash (no partition object);
 * METIS methods, partitions of another rank count or world are clear errors on every rank;
 * cs_graph_build refuses slices that do not match the partition and leaves them to the caller.
 * The world is graphs/tiny.ini (10^4 pages). Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/config.h"
#include "crawlsim/gen.h"
#include "crawlsim/graph.h"
#include "crawlsim/partition.h"
#include "crawlsim/rng.h"
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;
static char srcdir[512];
static char tmpdir[256];
static char gpath[320];
static cs_config cfg;
static cs_gen *gen;

/* Collective. The tiny world's config, model and graph file. */
static int setup_world(void)
{
    char ini[600];
    snprintf(ini, sizeof ini, "%s/graphs/tiny.ini", srcdir);
    snprintf(gpath, sizeof gpath, "%s/tiny.h5", tmpdir);
    if (cs_config_load(&ctx, ini, NULL, 0, &cfg) != CS_OK)
        return 0;
    if (cs_agree(&ctx, cs_gen_create(&ctx, &cfg.gen, &gen)) != CS_OK)
        return 0;
    return cs_gen_write(&ctx, &cfg, gpath) == CS_OK;
}

static cs_partition_config part_config(int method)
{
    cs_partition_config pc = cfg.partition;
    pc.method = method;
    pc.seed = 12345;
    return pc;
}

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

/* Local. Both arrays absent, or both present and equal over n elements. */
static int same_array(const void *a, const void *b, int64_t n, size_t elem)
{
    if (a == NULL || b == NULL)
        return a == b;
    return n == 0 || memcmp(a, b, (size_t)n * elem) == 0;
}

/* Local. The part of page q in p: from its part array, block ranges or runs. */
static int32_t part_of(const cs_partition *p, int64_t q)
{
    if (p->part != NULL)
        return p->part[q];
    const int64_t *first = p->part_first != NULL ? p->part_first : p->run_first;
    const int64_t n = p->part_first != NULL ? p->k : p->n_runs;
    int64_t i = 0;
    while (i + 1 < n && first[i + 1] <= q)
        i++;
    return p->part_first != NULL ? (int32_t)i : p->run_part[i];
}

/* Local. The same partition: what a run uses of it (the quality is only computed from files),
 * the parts compared page by page whatever the forms. */
static int same_partition(const cs_partition *a, const cs_partition *b)
{
    int ok = a->method == b->method && a->k == b->k && a->seed == b->seed &&
             a->n_pages == b->n_pages && a->n_hosts == b->n_hosts;
    for (int64_t q = 0; ok && q < a->n_pages; q++)
        ok = part_of(a, q) == part_of(b, q);
    return ok && same_array(a->host_part, b->host_part, a->n_hosts, sizeof *a->host_part) &&
           same_array(a->part_first, b->part_first, (int64_t)a->k + 1, sizeof *a->part_first);
}

/* Local. Every accessor of a and b gives the same values, over every page id for the owner
 * map and the local index. */
static int same_graph(const cs_graph *a, const cs_graph *b)
{
    const int64_t N = cs_graph_n_pages(a), n = cs_graph_n_local(a);
    int ok = N == cs_graph_n_pages(b) && cs_graph_n_links(a) == cs_graph_n_links(b) &&
             cs_graph_n_hosts(a) == cs_graph_n_hosts(b) &&
             cs_graph_n_topics(a) == cs_graph_n_topics(b) &&
             cs_graph_n_parts(a) == cs_graph_n_parts(b) && cs_graph_rank(a) == cs_graph_rank(b) &&
             n == cs_graph_n_local(b) && cs_graph_n_local_links(a) == cs_graph_n_local_links(b);
    if (!ok)
        return 0;
    const int64_t m = cs_graph_n_local_links(a);
    ok = same_array(cs_graph_local_ids(a), cs_graph_local_ids(b), n, 8) &&
         same_array(cs_graph_offsets(a), cs_graph_offsets(b), n + 1, 8) &&
         same_array(cs_graph_targets(a), cs_graph_targets(b), m, 8) &&
         same_array(cs_graph_host(a), cs_graph_host(b), n, 8) &&
         same_array(cs_graph_topic(a), cs_graph_topic(b), n, 4) &&
         same_array(cs_graph_relevance(a), cs_graph_relevance(b), n, 8) &&
         same_array(cs_graph_delta(a), cs_graph_delta(b), n, 8) &&
         same_array(cs_graph_mu(a), cs_graph_mu(b), n, 8) &&
         same_array(cs_graph_observable(a), cs_graph_observable(b), n, 1);
    for (int64_t p = 0; ok && p < N; p++)
        ok = cs_graph_owner(a, p) == cs_graph_owner(b, p) &&
             cs_graph_local_index(a, p) == cs_graph_local_index(b, p);
    return ok && cs_graph_local_index(a, -1) == -1 && cs_graph_local_index(a, N) == -1;
}

/* Local. The graph of the procedural world under part (cs_graph_build_index) has a's owner
 * lookup and local index for every page id, no pages' arrays, and cs_graph_local_id gives a's
 * local ids. */
static int index_matches(const cs_graph *a, const cs_partition *part)
{
    cs_graph *c = NULL;
    if (cs_graph_build_index(&ctx, part, cs_graph_n_hosts(a), cs_graph_n_topics(a), &c) != CS_OK)
        return 0;
    const int64_t N = cs_graph_n_pages(a), n = cs_graph_n_local(a);
    const int64_t *ids = cs_graph_local_ids(a);
    int ok = cs_graph_n_pages(c) == N && cs_graph_n_local(c) == n &&
             cs_graph_local_ids(c) == NULL && cs_graph_offsets(c) == NULL &&
             cs_graph_host(c) == NULL && cs_graph_n_local_links(c) == 0;
    for (int64_t p = 0; ok && p < N; p++)
        ok = cs_graph_owner(a, p) == cs_graph_owner(c, p) &&
             cs_graph_local_index(a, p) == cs_graph_local_index(c, p);
    for (int64_t li = 0; ok && li < n; li++)
        ok = cs_graph_local_id(c, li) == ids[li] && cs_graph_local_id(a, li) == ids[li];
    cs_graph_destroy(&c);
    return ok && c == NULL;
}

/* Local. Under host-hash, the graph of the procedural world from this rank's runs and the
 * model's owner (cs_gen_host_hash_runs, cs_graph_build_index_runs, cs_gen_host_hash_owner),
 * with no partition object, has a's owner lookup and local index too. */
static int runs_index_matches(const cs_graph *a, int64_t seed)
{
    cs_graph *c = NULL;
    int64_t *st = NULL, *ct = NULL, R = 0;
    const cs_gen_owner o = {gen, seed, (int32_t)ctx.size, NULL};
    int ok = cs_gen_host_hash_runs(&ctx, &o, (int32_t)ctx.rank, &st, &ct, &R) == CS_OK &&
             cs_graph_build_index_runs(&ctx, cs_graph_n_pages(a), cs_graph_n_hosts(a),
                                       cs_graph_n_topics(a), st, ct, R, cs_gen_host_hash_owner, &o,
                                       &c) == CS_OK;
    free(st);
    free(ct);
    const int64_t N = cs_graph_n_pages(a), n = cs_graph_n_local(a);
    const int64_t *ids = cs_graph_local_ids(a);
    ok = ok && cs_graph_n_local(c) == n && cs_graph_n_local_runs(c) >= 0;
    for (int64_t p = 0; ok && p < N; p++)
        ok = cs_graph_owner(a, p) == cs_graph_owner(c, p) &&
             cs_graph_local_index(a, p) == cs_graph_local_index(c, p);
    for (int64_t li = 0; ok && li < n; li++)
        ok = cs_graph_local_id(c, li) == ids[li];
    cs_graph_destroy(&c);
    return ok;
}

/* Collective. Under host-hash, cs_gen_graph_host_hash (no partition object, the owner of a page
 * from its host in the model) gives b's graph, array for array and accessor for accessor. */
static int host_hash_graph_matches(const cs_graph *b, int64_t seed)
{
    cs_graph *c = NULL;
    const cs_gen_owner o = {gen, seed, (int32_t)ctx.size, NULL};
    const int ok = cs_gen_graph_host_hash(&ctx, &o, &c) == CS_OK && same_graph(c, b);
    cs_graph_destroy(&c);
    return ok;
}

START_TEST(world_is_written)
{
    MPI_ASSERT(gen != NULL && cs_gen_n_pages(gen) == 10000);
}
END_TEST

/* The in-memory partitions are those of `crawlsim partition`, for several k. */
START_TEST(partitions_match_the_partition_command)
{
    static const int methods[2] = {CS_PART_BLOCK, CS_PART_HOST_HASH};
    const int32_t ks[3] = {(int32_t)ctx.size, 3, 7};
    for (int mi = 0; mi < 2; mi++) {
        for (int ki = 0; ki < 3; ki++) {
            cs_partition_config pc = part_config(methods[mi]);
            cs_partition mem, file;
            cs_partition_init(&mem);
            cs_partition_init(&file);
            cs_err rc = cs_gen_partition(&ctx, gen, pc.method, ks[ki], pc.seed, &mem);
            /* no part per page: block ranges or the runs of hosts */
            MPI_ASSERT(rc == CS_OK && mem.n_links == 0 && mem.quality.edge_cut == 0 &&
                       mem.part == NULL && (mem.part_first != NULL) != (mem.run_first != NULL));
            MPI_ASSERT(cs_partition_compute(&ctx, gpath, &pc, ks[ki], &file) == CS_OK);
            MPI_ASSERT(same_partition(&mem, &file));
            cs_partition_fini(&file);
            cs_partition_fini(&mem);
        }
    }
}
END_TEST

/* cs_gen_graph under cs_gen_partition equals cs_graph_load of the file with the partition the
 * partition command wrote. */
static void check_against_file(int method)
{
    char ppath[340];
    snprintf(ppath, sizeof ppath, "%s/%s.part.h5", tmpdir, cs_partition_method_name(method));
    cs_partition_config pc = part_config(method);
    cs_partition mem, file;
    cs_partition_init(&mem);
    cs_partition_init(&file);
    cs_graph *a = NULL, *b = NULL;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_gen_partition(&ctx, gen, method, ctx.size, pc.seed, &mem) == CS_OK);
    MPI_ASSERT(cs_partition_compute(&ctx, gpath, &pc, ctx.size, &file) == CS_OK);
    MPI_ASSERT(cs_partition_write(&ctx, ppath, 0, &file) == CS_OK);
    MPI_ASSERT(cs_gen_graph(&ctx, gen, &mem, &a) == CS_OK && a != NULL);
    MPI_ASSERT(cs_graph_load(&ctx, gpath, ppath, &b) == CS_OK && b != NULL);
    MPI_ASSERT(same_graph(a, b));
    MPI_ASSERT(index_matches(a, &mem));
    if (method == CS_PART_HOST_HASH) {
        MPI_ASSERT(runs_index_matches(a, pc.seed));
        MPI_ASSERT(host_hash_graph_matches(b, pc.seed));
    }
    /* every page owned once, every link counted once */
    int64_t mine[2] = {cs_graph_n_local(a), cs_graph_n_local_links(a)}, sum[2];
    MPI_Allreduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_ASSERT(sum[0] == cs_gen_n_pages(gen) && sum[1] == cs_graph_n_links(b));
    cs_graph_destroy(&b);
    cs_graph_destroy(&a);
    cs_partition_fini(&file);
    cs_partition_fini(&mem);
}

START_TEST(block_graph_equals_the_loaded_one)
{
    check_against_file(CS_PART_BLOCK);
}
END_TEST

START_TEST(host_hash_graph_equals_the_loaded_one)
{
    check_against_file(CS_PART_HOST_HASH);
}
END_TEST

/* Partitions no in-memory method makes (a scattered per-page one, as METIS on pages gives; a
 * lopsided one where rank 0 owns nothing) against cs_graph_load_with of the same partition. */
START_TEST(scattered_and_lopsided_partitions)
{
    for (int kind = 0; kind < 2; kind++) {
        cs_partition p;
        cs_partition_init(&p);
        MPI_ASSERT(cs_gen_partition(&ctx, gen, CS_PART_HOST_HASH, ctx.size, 1, &p) == CS_OK);
        const int32_t k = p.k;
        free(p.run_first);
        free(p.run_part);
        p.run_first = NULL;
        p.run_part = NULL;
        p.n_runs = 0;
        p.part = malloc((size_t)p.n_pages * sizeof *p.part);
        MPI_ASSERT(p.part != NULL);
        for (int64_t q = 0; q < p.n_pages; q++)
            p.part[q] = kind == 0
                            ? (int32_t)(cs_mix64((uint64_t)q ^ 0x5eedULL) % (uint64_t)k)
                            : (k == 1 ? 0 : (q % 97 == 0 ? 1 + (int32_t)(q % (k - 1)) : k - 1));
        p.method = CS_PART_METIS;
        free(p.host_part);
        p.host_part = NULL;
        cs_graph *a = NULL, *b = NULL;
        MPI_ASSERT(cs_gen_graph(&ctx, gen, &p, &a) == CS_OK);
        MPI_ASSERT(cs_graph_load_with(&ctx, gpath, &p, &b) == CS_OK);
        MPI_ASSERT(same_graph(a, b));
        MPI_ASSERT(index_matches(a, &p)); /* runs or the directory: scattered ids */
        cs_graph_destroy(&b);
        cs_graph_destroy(&a);
        cs_partition_fini(&p);
    }
}
END_TEST

START_TEST(metis_needs_a_graph_file)
{
    static const int methods[2] = {CS_PART_METIS, CS_PART_METIS_HOST};
    for (int mi = 0; mi < 2; mi++) {
        cs_partition p;
        cs_partition_init(&p);
        cs_ctx_clear_error(&ctx);
        cs_err rc = cs_gen_partition(&ctx, gen, methods[mi], ctx.size, 1, &p);
        MPI_ASSERT(rc == CS_ERR_ARG && p.part == NULL && p.k == 0);
        MPI_ASSERT(strstr(ctx.errmsg, "graph file") != NULL &&
                   strstr(ctx.errmsg, "crawlsim gen") != NULL &&
                   strstr(ctx.errmsg, "crawlsim partition") != NULL && same_message());
    }
    cs_partition p;
    cs_partition_init(&p);
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_gen_partition(&ctx, gen, CS_PART_BLOCK, 0, 1, &p) == CS_ERR_ARG);
    MPI_ASSERT(cs_gen_partition(&ctx, gen, CS_PART_HOST_HASH, 10001, 1, &p) == CS_ERR_ARG);
    MPI_ASSERT(cs_gen_partition(&ctx, gen, 99, 1, 1, &p) == CS_ERR_ARG && p.part == NULL);
}
END_TEST

START_TEST(foreign_partitions_are_clear_errors)
{
    cs_partition p, q;
    cs_partition_init(&p);
    cs_partition_init(&q);
    cs_graph *a = NULL;
    /* another rank count */
    MPI_ASSERT(cs_gen_partition(&ctx, gen, CS_PART_HOST_HASH, ctx.size + 1, 1, &p) == CS_OK);
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_gen_graph(&ctx, gen, &p, &a);
    MPI_ASSERT(rc == CS_ERR_ARG && a == NULL && strstr(ctx.errmsg, "k = ") != NULL &&
               same_message());
    /* corrupt runs: a gap, then a part outside [0, k) */
    MPI_ASSERT(cs_gen_partition(&ctx, gen, CS_PART_HOST_HASH, ctx.size, 1, &q) == CS_OK);
    q.run_first[q.n_runs] += 1;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_gen_graph(&ctx, gen, &q, &a) == CS_ERR_FORMAT && a == NULL && same_message());
    q.run_first[q.n_runs] -= 1;
    q.run_part[q.n_runs - 1] = q.k;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_gen_graph(&ctx, gen, &q, &a) == CS_ERR_FORMAT && a == NULL && same_message());
    cs_partition_fini(&q);
    cs_partition_fini(&p);
    /* another world */
    cs_config other = cfg;
    other.gen.pages = 5000;
    cs_gen *og = NULL;
    MPI_ASSERT(cs_gen_create(&ctx, &other.gen, &og) == CS_OK);
    MPI_ASSERT(cs_gen_partition(&ctx, og, CS_PART_BLOCK, ctx.size, 1, &p) == CS_OK);
    cs_ctx_clear_error(&ctx);
    rc = cs_gen_graph(&ctx, gen, &p, &a);
    MPI_ASSERT(rc == CS_ERR_ARG && a == NULL && strstr(ctx.errmsg, "another world") != NULL &&
               same_message());
    cs_partition_fini(&p);
    cs_gen_destroy(&og);
}
END_TEST

/* run.partition_method = metis-sampled: cs_gen_partition_sampled gives every rank the table
 * rank 0 computed, which is the one each rank computes alone (cs_gen_host_parts); the graph
 * whose owners come from it (cs_gen_graph_host_hash with the table) gives each rank the pages
 * of its hosts, every page once; a bad sample is the same error on every rank. */
START_TEST(sampled_partition_is_the_same_on_every_rank)
{
    cs_partition_config pc = part_config(CS_PART_METIS_HOST);
    pc.sample = 2;
    const int64_t H = cs_gen_n_hosts(gen), N = cs_gen_n_pages(gen);
    uint16_t *hp = NULL, *loc = malloc((size_t)H * sizeof *loc);
    cs_gen_host_graph_info info;
    MPI_ASSERT(cs_gen_partition_sampled(&ctx, gen, &pc, &hp, &info) == CS_OK);
    MPI_ASSERT(cs_gen_host_parts(&ctx, gen, &pc, (int32_t)ctx.size, loc, &info) == CS_OK);
    MPI_ASSERT(memcmp(hp, loc, (size_t)H * sizeof *hp) == 0);
    uint64_t h = 1469598103934665603ULL, lo = 0, hi = 0;
    for (int64_t i = 0; i < H; i++)
        h = (h ^ hp[i]) * 1099511628211ULL;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_ASSERT(lo == hi);
    const cs_gen_owner o = {gen, 0, (int32_t)ctx.size, hp};
    cs_graph *g = NULL;
    MPI_ASSERT(cs_gen_graph_host_hash(&ctx, &o, &g) == CS_OK);
    int ok = 1;
    const int64_t n = cs_graph_n_local(g), *host = cs_graph_host(g);
    for (int64_t i = 0; i < n; i++)
        ok &= hp[host[i]] == ctx.rank && cs_graph_owner(g, cs_graph_local_id(g, i)) == ctx.rank;
    for (int64_t p = 0; p < N; p += 7)
        ok &= cs_graph_owner(g, p) == hp[cs_gen_host_of(gen, p)];
    int64_t total = 0;
    MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_ASSERT(ok && total == N);
    cs_graph_destroy(&g);
    free(hp);
    hp = NULL;
    pc.sample = -1;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_gen_partition_sampled(&ctx, gen, &pc, &hp, &info) == CS_ERR_ARG && hp == NULL &&
               strstr(ctx.errmsg, "partition.sample") != NULL && same_message());
    free(loc);
}
END_TEST

/* cs_graph_build: a slice that does not match the partition stays the caller's; a matching
 * one is taken over and the slice zeroed. */
START_TEST(build_checks_and_takes_the_slice)
{
    cs_partition p;
    cs_partition_init(&p);
    MPI_ASSERT(cs_gen_partition(&ctx, gen, CS_PART_BLOCK, ctx.size, 1, &p) == CS_OK);
    const int64_t f = p.part_first[ctx.rank], n = p.part_first[ctx.rank + 1] - f;
    cs_graph_slice s;
    cs_graph_slice_init(&s);
    MPI_ASSERT(cs_gen_slice(&ctx, gen, f, n, &s, NULL) == CS_OK);
    const int64_t H = cs_gen_n_hosts(gen), links = s.offsets[s.n];
    const int32_t K = cs_gen_n_topics(gen);
    int64_t *targets = s.targets;
    cs_graph *g = NULL;
    cs_ctx_clear_error(&ctx);
    /* one page too few */
    s.n = n - 1;
    MPI_ASSERT(cs_graph_build(&ctx, &p, links, H, K, &s, &g) == CS_ERR_ARG && g == NULL &&
               s.targets == targets);
    s.n = n;
    /* a target outside the world, then a host outside the table */
    int64_t t0 = targets[0], h0 = s.host[0];
    targets[0] = cs_gen_n_pages(gen);
    MPI_ASSERT(cs_graph_build(&ctx, &p, links, H, K, &s, &g) == CS_ERR_ARG && g == NULL);
    targets[0] = t0;
    s.host[0] = H;
    MPI_ASSERT(cs_graph_build(&ctx, &p, links, H, K, &s, &g) == CS_ERR_ARG && g == NULL);
    s.host[0] = h0;
    /* a partition for another rank count */
    p.k += 1;
    MPI_ASSERT(cs_graph_build(&ctx, &p, links, H, K, &s, &g) == CS_ERR_ARG && g == NULL);
    p.k -= 1;
    /* success: the arrays change hands */
    MPI_ASSERT(cs_graph_build(&ctx, &p, links, H, K, &s, &g) == CS_OK && g != NULL);
    MPI_ASSERT(cs_graph_targets(g) == targets && s.targets == NULL && s.offsets == NULL &&
               s.n == 0 && cs_graph_n_local(g) == n && cs_graph_n_local_links(g) == links);
    cs_graph_destroy(&g);
    cs_graph_slice_fini(&s);
    cs_partition_fini(&p);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    snprintf(srcdir, sizeof srcdir, "%s", argc > 1 ? argv[1] : ".");
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "gen-graph");
    char made[sizeof tmpdir];
    memcpy(made, tmpdir, sizeof made);
    if (tmpdir[0] != '\0' && !mpitest_all(setup_world()))
        tmpdir[0] = '\0';
    Suite *s = suite_create("gen graph (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, world_is_written);
    if (tmpdir[0] != '\0') {
        tcase_add_test(tc, partitions_match_the_partition_command);
        tcase_add_test(tc, block_graph_equals_the_loaded_one);
        tcase_add_test(tc, host_hash_graph_equals_the_loaded_one);
        tcase_add_test(tc, scattered_and_lopsided_partitions);
        tcase_add_test(tc, metis_needs_a_graph_file);
        tcase_add_test(tc, foreign_partitions_are_clear_errors);
        tcase_add_test(tc, build_checks_and_takes_the_slice);
        tcase_add_test(tc, sampled_partition_is_the_same_on_every_rank);
    }
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    cs_gen_destroy(&gen);
    mpitest_rm_tmpdir(made);
    MPI_Finalize();
    return status;
}
