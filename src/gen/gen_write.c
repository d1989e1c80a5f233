/*
 * gen_write: the `crawlsim gen` command body. Each rank generates its block of page ids with
 * the pure model of gen.c and the slices are written collectively through graphio.
 */
#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/graphio.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the gen command ----------------------------------------------------------------------- */

cs_err cs_gen_write(cs_ctx *ctx, const cs_config *cfg, const char *path)
{
    cs_err rc = CS_OK, local;
    cs_gen *g = NULL;
    cs_graph_slice slice;
    cs_graph_meta meta;
    char *spec = NULL;
    cs_graph_slice_init(&slice);
    cs_graph_meta_init(&meta);

    double t0 = cs_now();
    local = cs_gen_create(ctx, &cfg->gen, &g);
    CS_TRY(ctx, cs_agree(ctx, local));
    int64_t first, count;
    cs_block_range(cs_gen_n_pages(g), ctx->rank, ctx->size, &first, &count);
    CS_LOG(ctx, CS_LOG_INFO, "gen: %lld pages, %lld hosts, %d topics on %d rank(s) x %d thread(s)",
           (long long)cs_gen_n_pages(g), (long long)cs_gen_n_hosts(g), (int32_t)cfg->gen.topics,
           ctx->size, omp_get_max_threads());
    cs_progress prog;
    cs_progress_begin(&prog, ctx, "generating pages", (uint64_t)count);
    local = cs_gen_slice(ctx, g, first, count, &slice, &prog);
    cs_progress_end(&prog);
    CS_TRY(ctx, cs_agree(ctx, local));
    double t1 = cs_now();

    meta.n_hosts = cs_gen_n_hosts(g);
    meta.n_topics = (int32_t)cfg->gen.topics;
    meta.target_topic = (int32_t)cfg->gen.target_topic;
    meta.seed = (uint64_t)cfg->gen.seed;
    snprintf(meta.source, sizeof meta.source, "gen");
    {
        /* the world's spec: gen.materialize is how a run holds a generated world, not part of
         * it (the file is the same whatever its value) */
        cs_config *c = NULL;
        local = cs_alloc(ctx, &c, 1, sizeof *c, "graph spec");
        if (local == CS_OK) {
            *c = *cfg;
            c->gen.materialize = 1;
            local = cs_config_to_ini(ctx, c, "gen", &spec);
        }
        free(c);
    }
    CS_TRY(ctx, cs_agree(ctx, local));
    CS_TRY(ctx, cs_graphio_write(ctx, path, &slice, &meta, spec));
    double t2 = cs_now();

    int64_t links = slice.offsets[slice.n], total = 0;
    cs_allreduce(ctx, &links, &total, 1, CS_T_I64, CS_OP_SUM);
    CS_LOG(ctx, CS_LOG_INFO,
           "gen: wrote %s: %lld pages, %lld links (mean out-degree %.2f) in %.2fs "
           "(generate %.2fs, write %.2fs): %.1f M links/s",
           path, (long long)cs_gen_n_pages(g), (long long)total,
           (double)total / (double)cs_gen_n_pages(g), t2 - t0, t1 - t0, t2 - t1,
           (double)total / (t2 - t0) / 1e6);
fail:
    free(spec);
    cs_graph_meta_fini(&meta);
    cs_graph_slice_fini(&slice);
    cs_gen_destroy(&g);
    return rc;
}
