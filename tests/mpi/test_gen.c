/*
 * MPI integration tests of the foundation's collective contracts: job files read on rank 0 and
 * broadcast, error agreement across ranks, and `crawlsim gen` writing the same world that every
 * rank computes locally, whatever the rank count. Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/config.h"
#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cs_ctx ctx;
static char tmpdir[256];

static void write_text(const char *path, const char *text)
{
    if (ctx.rank == 0) {
        FILE *f = fopen(path, "w");
        if (f != NULL) {
            fputs(text, f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* 1 if the bytes of buf are the same on every rank. */
static int same_everywhere(const void *buf, size_t len)
{
    uint64_t h = 1469598103934665603ULL, lo = 0, hi = 0;
    for (size_t i = 0; i < len; i++)
        h = (h ^ ((const unsigned char *)buf)[i]) * 1099511628211ULL;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

START_TEST(config_is_read_once_and_broadcast)
{
    char path[320];
    snprintf(path, sizeof path, "%s/job.ini", tmpdir);
    write_text(path, "[gen]\npages = 4321\ntopics = 7\ntarget_topic = 2\n");
    const char *sets[] = {"gen.seed=99"};
    cs_config cfg;
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_config_load(&ctx, path, sets, 1, &cfg);
    MPI_ASSERT(rc == CS_OK);
    MPI_ASSERT(cfg.gen.pages == 4321 && cfg.gen.topics == 7 && cfg.gen.seed == 99);
    MPI_ASSERT(same_everywhere(&cfg, sizeof cfg));
}
END_TEST

START_TEST(config_errors_agree)
{
    char path[320];
    cs_config cfg;
    snprintf(path, sizeof path, "%s/does-not-exist.ini", tmpdir);
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_config_load(&ctx, path, NULL, 0, &cfg);
    MPI_ASSERT(rc == CS_ERR_IO);
    MPI_ASSERT(strstr(ctx.errmsg, "does-not-exist.ini") != NULL);
    MPI_ASSERT(same_everywhere(ctx.errmsg, sizeof ctx.errmsg));

    snprintf(path, sizeof path, "%s/bad.ini", tmpdir);
    write_text(path, "[gen]\npages = 10\nhub_fractoin = 0.1\n");
    cs_ctx_clear_error(&ctx);
    rc = cs_config_load(&ctx, path, NULL, 0, &cfg);
    MPI_ASSERT(rc == CS_ERR_CONFIG);
    MPI_ASSERT(strstr(ctx.errmsg, "bad.ini:3") != NULL);
    MPI_ASSERT(strstr(ctx.errmsg, "gen.hub_fraction") != NULL);
    MPI_ASSERT(same_everywhere(ctx.errmsg, sizeof ctx.errmsg));
}
END_TEST

START_TEST(agree_takes_the_lowest_failing_rank)
{
    cs_ctx_clear_error(&ctx);
    cs_err local = CS_OK;
    if (ctx.rank == ctx.size - 1)
        local = cs_fail(&ctx, CS_ERR_FORMAT, "boom on rank %d", ctx.rank);
    cs_err rc = cs_agree(&ctx, local);
    char want[64];
    snprintf(want, sizeof want, "boom on rank %d", ctx.size - 1);
    MPI_ASSERT(rc == CS_ERR_FORMAT);
    MPI_ASSERT(strcmp(ctx.errmsg, want) == 0);

    /* two failing ranks: the lower one speaks */
    cs_ctx_clear_error(&ctx);
    local = CS_OK;
    if (ctx.rank >= ctx.size / 2)
        local =
            cs_fail(&ctx, ctx.rank == ctx.size / 2 ? CS_ERR_IO : CS_ERR_LIMIT, "rank %d", ctx.rank);
    rc = cs_agree(&ctx, local);
    snprintf(want, sizeof want, "rank %d", ctx.size / 2);
    MPI_ASSERT(rc == CS_ERR_IO);
    MPI_ASSERT(strcmp(ctx.errmsg, want) == 0);

    /* nobody failed */
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_agree(&ctx, CS_OK) == CS_OK);
}
END_TEST

/* The file written by P ranks holds exactly the pages each rank computes locally. */
START_TEST(gen_file_equals_local_model)
{
    char path[320];
    snprintf(path, sizeof path, "%s/web.h5", tmpdir);
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = 30011; /* not a multiple of any rank count */
    cfg.gen.topics = 12;
    cfg.gen.target_topic = 4;
    cfg.gen.seed = 5;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(cs_gen_write(&ctx, &cfg, path) == CS_OK);

    /* every rank reads a range other than its own block and compares with its own model */
    int64_t first, count;
    cs_block_range(cfg.gen.pages, (ctx.rank + 1) % ctx.size, ctx.size, &first, &count);
    cs_graph_slice fromfile, local;
    cs_graph_slice_init(&fromfile);
    cs_graph_slice_init(&local);
    cs_graph_meta meta;
    cs_graph_meta_init(&meta);
    MPI_ASSERT(cs_graphio_read_slice(&ctx, path, first, count, &fromfile, &meta) == CS_OK);
    cs_gen *g = NULL;
    cs_err rc = cs_gen_create(&ctx, &cfg.gen, &g);
    if (rc == CS_OK)
        rc = cs_gen_slice(&ctx, g, first, count, &local, NULL);
    MPI_ASSERT(rc == CS_OK);
    int ok = fromfile.n == local.n && meta.n_hosts == cs_gen_n_hosts(g) && meta.target_topic == 4 &&
             fromfile.n_pages_total == cfg.gen.pages;
    for (int64_t i = 0; ok && i <= local.n; i++)
        ok = fromfile.offsets[i] == local.offsets[i];
    for (int64_t e = 0; ok && e < local.offsets[local.n]; e++)
        ok = fromfile.targets[e] == local.targets[e];
    for (int64_t i = 0; ok && i < local.n; i++)
        ok = fromfile.host[i] == local.host[i] && fromfile.topic[i] == local.topic[i] &&
             fromfile.relevance[i] == local.relevance[i] && fromfile.delta[i] == local.delta[i] &&
             fromfile.mu[i] == local.mu[i] && fromfile.observable[i] == local.observable[i];
    MPI_ASSERT(ok);
    cs_graph_slice_fini(&fromfile);
    cs_graph_slice_fini(&local);
    cs_graph_meta_fini(&meta);
    cs_gen_destroy(&g);

    /* the header records what made it */
    cs_graph_header hdr;
    MPI_ASSERT(cs_graphio_read_header(&ctx, path, &hdr) == CS_OK);
    MPI_ASSERT(hdr.n_pages == 30011 && strcmp(hdr.source, "gen") == 0 && hdr.seed == 5);
}
END_TEST

START_TEST(gen_failure_leaves_no_file)
{
    char path[320];
    snprintf(path, sizeof path, "%s/never.h5", tmpdir);
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.gen.pages = 1000;
    cfg.gen.degree_alpha = 1.5; /* mean 2 impossible below a maximum of 10^6 */
    cfg.gen.degree_mean = 2;
    cfg.gen.degree_max = 1000000;
    cs_ctx_clear_error(&ctx);
    cs_err rc = cs_gen_write(&ctx, &cfg, path);
    MPI_ASSERT(rc == CS_ERR_CONFIG);
    MPI_ASSERT(same_everywhere(ctx.errmsg, sizeof ctx.errmsg));
    MPI_ASSERT(access(path, F_OK) != 0);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    mpitest_tmpdir(tmpdir, sizeof tmpdir, "gen");
    Suite *s = suite_create("gen (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, config_is_read_once_and_broadcast);
    tcase_add_test(tc, config_errors_agree);
    tcase_add_test(tc, agree_takes_the_lowest_failing_rank);
    tcase_add_test(tc, gen_file_equals_local_model);
    tcase_add_test(tc, gen_failure_leaves_no_file);
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    mpitest_rm_tmpdir(tmpdir);
    MPI_Finalize();
    return status;
}
