/*
 * gen_graph: the run-time graph of a generated world without a graph file (DESIGN.md "The
 * world": a run on a host-hash partition needs no graph file). The world is a pure function
 * of (seed, page id), so each rank generates exactly the pages its partition gives it and
 * gets the graph that loading a `crawlsim gen` file under the same partition would give.
 *
 * Block and host-hash partitions are computed here without the graph (hosts are contiguous
 * page ranges of the model); METIS partitions need the links, hence a graph file.
 */
#include "gen_impl.h"

#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/partition.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cs_err cs_gen_partition(cs_ctx *ctx, const cs_gen *g, int method, int32_t k, int64_t seed,
                        cs_partition *out)
{
    cs_err rc = CS_OK;
    const int64_t N = cs_gen_n_pages(g), H = cs_gen_n_hosts(g);
    if (method == CS_PART_METIS || method == CS_PART_METIS_HOST)
        return cs_fail(ctx, CS_ERR_ARG,
                       "partition method %s needs a graph file: METIS partitions the links, "
                       "which a generated world only has once written; run crawlsim gen, then "
                       "crawlsim partition (block and host-hash need no file)",
                       cs_partition_method_name(method));
    if (method != CS_PART_BLOCK && method != CS_PART_HOST_HASH)
        return cs_fail(ctx, CS_ERR_ARG, "unknown partition method %d", method);
    if (k < 1 || k > N)
        return cs_fail(ctx, CS_ERR_ARG,
                       "cannot partition the generated world (%lld pages) into k = %d parts: k "
                       "must lie in [1, %lld]",
                       (long long)N, (int)k, (long long)N);
    out->method = method;
    out->k = k;
    out->seed = seed;
    out->n_pages = N;
    out->n_links = 0;
    out->n_hosts = H;
    snprintf(out->graph_source, sizeof out->graph_source, "gen");
    if (method == CS_PART_BLOCK) {
        CS_TRY(ctx, cs_alloc(ctx, &out->part_first, (size_t)k + 1, sizeof *out->part_first,
                             "part ranges"));
        for (int32_t r = 0; r < k; r++) {
            int64_t f = 0, c = 0;
            cs_block_range(N, r, k, &f, &c);
            out->part_first[r] = f;
        }
        out->part_first[k] = N;
    } else {
        /* the host's part, then runs of consecutive hosts of one part (hosts are ranges) */
        CS_TRY(ctx,
               cs_alloc(ctx, &out->host_part, (size_t)H, sizeof *out->host_part, "host partition"));
        int32_t *hp = out->host_part;
#pragma omp parallel for default(none) shared(hp, H, k, seed) schedule(static)
        for (int64_t h = 0; h < H; h++)
            hp[h] = cs_partition_host_hash(h, seed, k);
        int64_t R = 0;
        for (int64_t h = 0; h < H; h++)
            R += h == 0 || hp[h] != hp[h - 1];
        CS_TRY(ctx, cs_alloc(ctx, &out->run_first, (size_t)R + 1, sizeof *out->run_first,
                             "partition runs"));
        CS_TRY(ctx, cs_alloc(ctx, &out->run_part, (size_t)R + 1, sizeof *out->run_part,
                             "partition runs"));
        int64_t i = 0;
        for (int64_t h = 0; h < H; h++) {
            if (h > 0 && hp[h] == hp[h - 1])
                continue;
            int64_t f = 0, c = 0;
            cs_gen_host_range(g, h, &f, &c);
            out->run_first[i] = f;
            out->run_part[i++] = hp[h];
        }
        out->run_first[R] = N;
        out->n_runs = R;
    }
    return CS_OK;
fail:
    cs_partition_fini(out);
    return rc;
}

/* Local. The pages ids[0 .. n) into `mine` (empty on entry), OpenMP over all of them. */
static cs_err gen_ids(cs_ctx *ctx, const cs_gen *g, const int64_t *ids, int64_t n,
                      cs_graph_slice *mine)
{
    cs_progress prog;
    cs_progress_begin(&prog, ctx, "generating pages", (uint64_t)n);
    const cs_err rc = gen_slice_ids(ctx, g, ids, n, mine, &prog);
    cs_progress_end(&prog);
    return rc;
}

/*
 * Local. Generates the pages part gives this rank into `mine` (empty on entry), page i being
 * the i-th owned id: a block's range in one cs_gen_slice, any other ownership (host-hash:
 * whole hosts, scattered runs of about two hosts per rank at k = 2) through the list of owned
 * ids in one gen_slice_ids, so that the OpenMP threads share all owned pages rather than each
 * short run (one cs_gen_slice per run leaves all but one thread idle on runs shorter than the
 * generator's 4096-page chunks).
 */
static cs_err gen_owned(cs_ctx *ctx, const cs_gen *g, const cs_partition *part,
                        cs_graph_slice *mine)
{
    cs_err rc = CS_OK;
    const int64_t N = part->n_pages, *rf = part->run_first;
    const int32_t *pa = part->part, *rp = part->run_part, me = (int32_t)ctx->rank;
    int64_t *ids = NULL, n = 0;
    cs_progress prog;
    if (part->part_first != NULL) {
        int64_t f = part->part_first[me];
        n = part->part_first[me + 1] - f;
        cs_progress_begin(&prog, ctx, "generating pages", (uint64_t)n);
        rc = cs_gen_slice(ctx, g, f, n, mine, &prog);
        cs_progress_end(&prog);
        return rc;
    }
    if (rf != NULL) {
        for (int64_t j = 0; j < part->n_runs; j++)
            n += rp[j] == me ? rf[j + 1] - rf[j] : 0;
    } else {
#pragma omp parallel for default(none) shared(pa, N, me) reduction(+ : n) schedule(static)
        for (int64_t p = 0; p < N; p++)
            n += pa[p] == me;
    }
    CS_TRY(ctx, cs_alloc(ctx, &ids, (size_t)n + 1, sizeof *ids, "owned page ids"));
    int64_t i = 0;
    if (rf != NULL) {
        for (int64_t j = 0; j < part->n_runs; j++)
            for (int64_t p = rf[j]; rp[j] == me && p < rf[j + 1]; p++)
                ids[i++] = p;
    } else {
        for (int64_t p = 0; p < N; p++)
            if (pa[p] == me)
                ids[i++] = p;
    }
    rc = gen_ids(ctx, g, ids, n, mine);
fail:
    free(ids);
    return rc;
}

/* Local. The partition's runs are increasing and cover its pages (the owned ids come from them
 * before cs_graph_build checks the rest). */
static int runs_cover(const cs_partition *part)
{
    const int64_t R = part->n_runs, *rf = part->run_first;
    int ok = R >= 0 && (R == 0 || part->run_part != NULL) && rf[0] == 0 && rf[R] == part->n_pages;
    for (int64_t j = 0; ok && j < R; j++)
        ok = rf[j] < rf[j + 1];
    return ok;
}

/* Collective. *total = the links of every rank's slice (an allreduce). */
static cs_err links_total(cs_ctx *ctx, const cs_graph_slice *mine, int64_t *total)
{
    int64_t links = mine->offsets != NULL ? mine->offsets[mine->n] : 0;
    cs_allreduce(ctx, &links, total, 1, CS_T_I64, CS_OP_SUM);
    return CS_OK;
}

cs_err cs_gen_graph(cs_ctx *ctx, const cs_gen *g, const cs_partition *part, cs_graph **out)
{
    cs_err rc = CS_OK;
    cs_graph_slice mine;
    cs_graph_slice_init(&mine);
    cs_graph *graph = NULL;
    const int64_t N = cs_gen_n_pages(g), H = cs_gen_n_hosts(g);
    /* part is replicated: these verdicts are the same on every rank. */
    if (part == NULL || part->n_pages != N || (part->n_hosts != 0 && part->n_hosts != H))
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "the partition has %lld pages and %lld hosts but the generated world has "
                     "%lld pages and %lld hosts: it was made for another world",
                     part != NULL ? (long long)part->n_pages : 0LL,
                     part != NULL ? (long long)part->n_hosts : 0LL, (long long)N, (long long)H);
    else if (part->k != ctx->size)
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "the partition has k = %d parts but the job runs on %d ranks: make it for "
                     "%d parts",
                     (int)part->k, ctx->size, ctx->size);
    else if (N > 0 && part->part == NULL && part->part_first == NULL && part->run_first == NULL)
        rc = cs_fail(ctx, CS_ERR_ARG, "the partition has no part array for its %lld pages",
                     (long long)N);
    else if (part->run_first != NULL && !runs_cover(part))
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "the partition is corrupt: its runs do not cover the %lld pages in order",
                     (long long)N);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, gen_owned(ctx, g, part, &mine));
    int64_t total = 0;
    CS_TRY_AGREE(ctx, links_total(ctx, &mine, &total));
    rc = cs_graph_build(ctx, part, total, H, cs_gen_n_topics(g), &mine, &graph);
    CS_TRY_AGREE(ctx, rc);
    *out = graph;
    graph = NULL;
fail:
    cs_graph_destroy(&graph); /* built here but refused elsewhere */
    cs_graph_slice_fini(&mine);
    return rc;
}

/* Whether host h begins one of the runs of the hosts whose bit is set (the one before it has
 * none). */
static int run_begins(const uint64_t *bits, int64_t h)
{
    const int in = (int)(bits[h >> 6] >> (h & 63)) & 1;
    return in && (h == 0 || !((bits[(h - 1) >> 6] >> ((h - 1) & 63)) & 1));
}

cs_err cs_gen_host_hash_runs(cs_ctx *ctx, const cs_gen_owner *o, int32_t me, int64_t **start,
                             int64_t **count, int64_t *n_runs)
{
    cs_err rc = CS_OK;
    const cs_gen *g = o->g;
    const int64_t H = cs_gen_n_hosts(g), W = (H + 63) / 64;
    const int T = omp_get_max_threads();
    int64_t *at = NULL, *st = NULL, *ct = NULL;
    uint64_t *bits = NULL;
    *start = *count = NULL;
    *n_runs = 0;
    CS_TRY(ctx, cs_calloc(ctx, &at, (size_t)T + 1, sizeof *at, "host runs"));
    CS_TRY(ctx, cs_alloc(ctx, &bits, (size_t)W + 1, sizeof *bits, "host runs"));
    /* this rank's hosts (one hash per host), then the runs beginning in each thread's hosts,
     * then each thread's from its offset */
#pragma omp parallel default(none) shared(o, bits, at, H, W, me, T)
    {
#pragma omp for schedule(static)
        for (int64_t w = 0; w < W; w++) {
            uint64_t b = 0;
            for (int64_t h = w * 64; h < H && h < w * 64 + 64; h++)
                b |= (uint64_t)(cs_gen_host_owner(o, h) == me) << (h & 63);
            bits[w] = b;
        }
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t r = 0;
        for (int64_t h = H / nt * t + (t < H % nt ? t : H % nt), e = h + H / nt + (t < H % nt);
             h < e; h++)
            r += run_begins(bits, h);
        at[t + 1] = r;
    }
    for (int t = 0; t < T; t++)
        at[t + 1] += at[t];
    const int64_t R = at[T];
    CS_TRY(ctx, cs_alloc(ctx, &st, (size_t)R + 1, sizeof *st, "host runs"));
    CS_TRY(ctx, cs_alloc(ctx, &ct, (size_t)R + 1, sizeof *ct, "host runs"));
#pragma omp parallel default(none) shared(g, bits, at, st, ct, H)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t r = at[t];
        for (int64_t h = H / nt * t + (t < H % nt ? t : H % nt), e = h + H / nt + (t < H % nt);
             h < e; h++) {
            if (!run_begins(bits, h))
                continue;
            int64_t f = 0, c = 0, x = h, fx = 0, cx = 0;
            cs_gen_host_range(g, h, &f, &c);
            while (x + 1 < H && ((bits[(x + 1) >> 6] >> ((x + 1) & 63)) & 1)) /* its hosts */
                x++;
            cs_gen_host_range(g, x, &fx, &cx);
            st[r] = f;
            ct[r++] = fx + cx - f;
        }
    }
    *start = st;
    *count = ct;
    *n_runs = R;
    st = ct = NULL;
fail:
    free(bits);
    free(ct);
    free(st);
    free(at);
    return rc;
}

cs_err cs_gen_graph_host_hash(cs_ctx *ctx, const cs_gen_owner *owner, cs_graph **out)
{
    cs_err rc = CS_OK;
    const cs_gen *g = owner->g;
    cs_graph_slice mine;
    cs_graph_slice_init(&mine);
    int64_t *st = NULL, *ct = NULL, *ids = NULL, R = 0, n = 0, total = 0;
    rc = cs_gen_host_hash_runs(ctx, owner, ctx->rank, &st, &ct, &R);
    for (int64_t i = 0; i < R; i++)
        n += ct[i];
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &ids, (size_t)n + 1, sizeof *ids, "owned page ids");
    for (int64_t i = 0, j = 0; rc == CS_OK && i < R; i++)
        for (int64_t p = st[i]; p < st[i] + ct[i]; p++)
            ids[j++] = p;
    if (rc == CS_OK)
        rc = gen_ids(ctx, g, ids, n, &mine);
    free(ids);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY_AGREE(ctx, links_total(ctx, &mine, &total));
    CS_TRY_AGREE(ctx, cs_graph_build_runs(ctx, cs_gen_n_pages(g), total, cs_gen_n_hosts(g),
                                          cs_gen_n_topics(g), st, ct, R, cs_gen_host_hash_owner,
                                          owner, &mine, out));
fail:
    cs_graph_slice_fini(&mine);
    free(ct);
    free(st);
    return rc;
}
