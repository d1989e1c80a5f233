/*
 * graph loading from files: cs_graph_load, the partition read from its file (or the graph
 * file's /partition group) followed by cs_graph_load_with (load.c). Kept in its own file so
 * that programs using only cs_graph_load_with do not need the partition module.
 */
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/partition.h"

cs_err cs_graph_load(cs_ctx *ctx, const char *graph_path, const char *partition_path,
                     cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_partition part;
    cs_partition_init(&part);
    const char *where = partition_path != NULL ? partition_path : graph_path;
    CS_TRY(ctx, cs_partition_read(ctx, graph_path, partition_path, &part));
    /* Checked here too, to name the partition file rather than the graph file. */
    if (part.k != ctx->size)
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "partition of %s has k = %d parts but the job runs on %d ranks: run "
                     "crawlsim partition %s -k %d",
                     where, (int)part.k, ctx->size, graph_path, ctx->size);
    CS_TRY_AGREE(ctx, rc);
    /* The counts too (cs_graph_load_with checks them again), to name the partition file: a
     * damaged count there is the partition's fault, not the graph's. */
    cs_graph_header hdr;
    CS_TRY(ctx, cs_graphio_read_header(ctx, graph_path, &hdr));
    if (part.n_pages != hdr.n_pages || (part.n_links != 0 && part.n_links != hdr.n_links))
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "partition of %s has %lld pages and %lld links but graph file %s has %lld "
                     "pages and %lld links: it was made for another graph, or is damaged; run "
                     "crawlsim partition %s -k %d",
                     where, (long long)part.n_pages, (long long)part.n_links, graph_path,
                     (long long)hdr.n_pages, (long long)hdr.n_links, graph_path, ctx->size);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_graph_load_with(ctx, graph_path, &part, out));
fail:
    cs_partition_fini(&part);
    return rc;
}
