/*
 * MPI test of the BVGraph import at scale (src/import/import_bvpar.c): a BVGraph written by the
 * tests' writer (tests/unit/bvgraph_writer.h: reference chains, copy blocks, intervals,
 * residuals) is imported on all the job's ranks and, from 3 ranks on, on one less (a
 * sub-communicator): 1, 2, 3 and 4 ranks over the jobs at 1, 2 and 4 ranks. Every file must hold
 * exactly the graph of the serial reader (cs_import_read on one rank, the import before every rank
 * read its share): the header's counts, every dataset (offsets, targets, host, topic,
 * relevance, change rate, importance, observability, host names) value for value, and no
 * dataset more or less. Three encodings: WebGraph's defaults with an .offsets file and
 * self-loops dropped; window 1 with unbounded reference chains, other codes, no .offsets file
 * (every rank finds the offsets), self-loops kept, hosts named by node number from id_base 1;
 * a wide window with hosts = single.
 *
 * argv[1] is the project source directory (unused).
 */
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/graphio.h"
#include "crawlsim/import.h"
#include "crawlsim/slice.h"
#include "mpitest.h"
#include "unit/bvgraph_writer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_tmp[512];
static int g_rank, g_size;

#define CHECK(ok, c)                                                                               \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            (ok) = 0;                                                                              \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", g_rank, __FILE__, __LINE__,     \
                    #c);                                                                           \
        }                                                                                          \
    } while (0)

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t z = *s;
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdull;
    return z ^ (z >> 33);
}

/* A random graph of n nodes with web-like locality (lists that resemble a neighbour's, runs of
 * consecutive ids, self-loops, empty lists), as CSR; the caller frees. */
static void make_graph(int64_t n, uint64_t seed, int64_t **off_out, int32_t **tgt_out)
{
    uint64_t s = seed;
    int64_t cap = n * 40, m = 0;
    int64_t *off = malloc(((size_t)n + 1) * sizeof *off);
    int32_t *tgt = malloc((size_t)cap * sizeof *tgt);
    uint8_t *mark = calloc((size_t)n, 1);
    int32_t *cand = malloc((size_t)n * sizeof *cand);
    for (int64_t x = 0; x < n; x++) {
        off[x] = m;
        int64_t nc = 0;
        uint64_t kind = rnd(&s) % 10;
        if (kind == 0)
            continue;
        if (kind < 6 && x > 0) {
            int64_t y = x - 1 - (int64_t)(rnd(&s) % (uint64_t)(x < 12 ? x : 12));
            for (int64_t k = off[y]; k < off[y + 1]; k++)
                if (rnd(&s) % 5 != 0)
                    cand[nc++] = tgt[k];
        }
        if (rnd(&s) % 2) {
            int64_t len = (int64_t)(rnd(&s) % 12), at = x - 6 + (int64_t)(rnd(&s) % 12);
            for (int64_t j = 0; j < len; j++)
                if (at + j >= 0 && at + j < n)
                    cand[nc++] = (int32_t)(at + j);
        }
        int64_t scatter = (int64_t)(rnd(&s) % 6);
        for (int64_t j = 0; j < scatter; j++)
            cand[nc++] = (int32_t)(j % 2 ? rnd(&s) % (uint64_t)n
                                         : (uint64_t)((x + n - 50 + (int64_t)(rnd(&s) % 100)) % n));
        for (int64_t j = 0; j < nc; j++)
            if (!mark[cand[j]] && m < cap) {
                mark[cand[j]] = 1;
                tgt[m++] = cand[j];
            }
        for (int64_t k = off[x]; k < m; k++)
            mark[tgt[k]] = 0;
        for (int64_t k = off[x] + 1; k < m; k++) {
            int32_t v = tgt[k];
            int64_t j = k;
            while (j > off[x] && tgt[j - 1] > v) {
                tgt[j] = tgt[j - 1];
                j--;
            }
            tgt[j] = v;
        }
    }
    off[n] = m;
    free(mark);
    free(cand);
    *off_out = off;
    *tgt_out = tgt;
}

/* One encoding and import spec. */
typedef struct variant {
    const char *name;
    int64_t n;
    int window, maxref, minint, zetak;
    cs_bv_code od, ref, bc, bl, res, ofs;
    int flags, offsets;
    const char *sets[6]; /* [import] assignments besides edges and edge_format */
} variant;

/* clang-format off */
static const variant variants[] = {
    {"defaults", 1500, 7, 3, 4, 3, CS_BV_GAMMA, CS_BV_UNARY, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_ZETA,
     CS_BV_GAMMA, 0, 1, {"import.self_loops=drop", "import.hosts=per-page", NULL}},
    {"chains", 1200, 1, -1, 3, 2, CS_BV_DELTA, CS_BV_GAMMA, CS_BV_DELTA, CS_BV_NIBBLE, CS_BV_ZETA,
     CS_BV_DELTA, 1, 0, {"import.self_loops=keep", "import.hosts=node", "import.id_base=1", NULL}},
    {"wide", 800, 16, 1000, 2, 5, CS_BV_NIBBLE, CS_BV_ZETA, CS_BV_NIBBLE, CS_BV_ZETA, CS_BV_DELTA,
     CS_BV_NIBBLE, 1, 1, {"import.self_loops=drop", "import.hosts=single", NULL}},
};
/* clang-format on */

/* Local (rank 0). Writes the variant's BVGraph as <tmp>/<name>.graph (.properties, .offsets);
 * returns its self-loops, and the encoding's use of references and intervals in st. */
static int64_t write_variant(const variant *v, bw_stats *st)
{
    int64_t *off = NULL;
    int32_t *tgt = NULL;
    make_graph(v->n, 77 + (uint64_t)v->n, &off, &tgt);
    cs_bv_params p;
    cs_bv_params_default(&p);
    p.nodes = v->n;
    p.window = v->window;
    p.maxref = v->maxref;
    p.minint = v->minint;
    p.zetak = v->zetak;
    p.outdegrees = v->od;
    p.references = v->ref;
    p.block_count = v->bc;
    p.blocks = v->bl;
    p.residuals = v->res;
    p.offsets = v->ofs;
    char base[600];
    snprintf(base, sizeof base, "%s/%s", g_tmp, v->name);
    *st = bw_write(base, v->n, off, tgt, &p, 1, v->flags, v->offsets, 3);
    int64_t self = 0;
    for (int64_t x = 0; x < v->n; x++)
        for (int64_t k = off[x]; k < off[x + 1]; k++)
            self += tgt[k] == x;
    free(off);
    free(tgt);
    return self;
}

static void make_cfg(cs_ctx *ctx, cs_config *cfg, const variant *v)
{
    cs_config_defaults(cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s/%s.ini", g_tmp, v->name);
    snprintf(cfg->dir, sizeof cfg->dir, "%s", g_tmp);
    char edges[700];
    snprintf(edges, sizeof edges, "import.edges=%s.graph", v->name);
    const char *base[] = {edges, "import.edge_format=bvgraph"};
    for (int i = 0; i < 2; i++)
        ck_assert_msg(cs_config_set(ctx, cfg, base[i], "test") == CS_OK, "%s", ctx->errmsg);
    for (const char *const *s = v->sets; *s != NULL; s++)
        ck_assert_msg(cs_config_set(ctx, cfg, *s, "test") == CS_OK, "%s: %s", *s, ctx->errmsg);
}

static int same_i64(const int64_t *a, const int64_t *b, int64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static int same_f64(const double *a, const double *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (a[i] != b[i] || isnan(a[i]) != isnan(b[i]))
            return 0;
    return 1;
}

/* Local (rank 0). The file at path holds exactly the graph ref/rmeta. */
static int file_is(cs_ctx *self, const char *path, const cs_graph_slice *ref,
                   const cs_graph_meta *rmeta)
{
    int ok = 1;
    cs_graph_header hdr;
    cs_err rc = cs_graphio_read_header(self, path, &hdr);
    CHECK(ok, rc == CS_OK);
    if (rc != CS_OK) {
        fprintf(stderr, "%s: %s\n", path, self->errmsg);
        return 0;
    }
    const int64_t N = ref->n_pages_total;
    CHECK(ok, hdr.n_pages == N && hdr.n_links == ref->n_links_total);
    CHECK(ok, hdr.n_hosts == rmeta->n_hosts && hdr.n_topics == rmeta->n_topics);
    CHECK(ok, hdr.target_topic == rmeta->target_topic && hdr.seed == rmeta->seed);
    CHECK(ok, strcmp(hdr.source, rmeta->source) == 0);
    CHECK(ok, !hdr.has_weights && !hdr.has_terms && !hdr.has_topic_names);
    CHECK(ok, hdr.has_host_names == (rmeta->host_blob != NULL));
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_graph_meta_init(&meta);
    rc = cs_graphio_read_slice(self, path, 0, N, &g, &meta);
    CHECK(ok, rc == CS_OK);
    if (rc != CS_OK) {
        cs_graph_meta_fini(&meta);
        return 0;
    }
    CHECK(ok, g.link_first == 0 && g.offsets[N] == ref->offsets[N]);
    CHECK(ok, same_i64(g.offsets, ref->offsets, N + 1));
    CHECK(ok, same_i64(g.targets, ref->targets, ref->offsets[N]));
    CHECK(ok, same_i64(g.host, ref->host, N));
    CHECK(ok, memcmp(g.topic, ref->topic, (size_t)N * sizeof *g.topic) == 0);
    CHECK(ok, same_f64(g.relevance, ref->relevance, N));
    CHECK(ok, same_f64(g.delta, ref->delta, N));
    CHECK(ok, same_f64(g.mu, ref->mu, N));
    CHECK(ok, memcmp(g.observable, ref->observable, (size_t)N) == 0);
    CHECK(ok, g.weights == NULL && g.term_offsets == NULL);
    if (rmeta->host_blob != NULL && meta.host_blob != NULL)
        for (int64_t h = 0; h < rmeta->n_hosts && ok; h++)
            CHECK(ok, strcmp(cs_graph_meta_host_name(&meta, h),
                             cs_graph_meta_host_name(rmeta, h)) == 0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    return ok;
}

START_TEST(test_ranks_agree)
{
    const variant *v = &variants[_i];
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    int64_t self_loops = 0;
    bw_stats st = {0, 0, 0, 0};
    if (g_rank == 0)
        self_loops = write_variant(v, &st);
    MPI_Bcast(&self_loops, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    cs_config cfg;
    make_cfg(&ctx, &cfg, v);

    /* the reference: the serial reader on rank 0 */
    cs_graph_slice ref;
    cs_graph_meta rmeta;
    cs_graph_slice_init(&ref); /* (set on rank 0 only) */
    cs_graph_meta_init(&rmeta);
    int ok = 1;
    if (g_rank == 0) {
        cs_ctx self;
        cs_ctx_init(&self, MPI_COMM_SELF, CS_LOG_WARN);
        cs_err rc = cs_import_read(&self, &cfg, &ref, &rmeta);
        if (rc != CS_OK)
            fprintf(stderr, "serial read of %s: %s\n", v->name, self.errmsg);
        CHECK(ok, rc == CS_OK);
        /* the encoding used what the test is about, and the graph has self-loops */
        CHECK(ok, st.refs > v->n / 10 && st.intervals > 20 && st.residuals > 500);
        CHECK(ok, self_loops > 10);
        if (v->maxref < 0)
            CHECK(ok, st.longest_chain > 20);
        cs_ctx_fini(&self);
    }
    MPI_ASSERT(ok);

    /* the job's size, and one less from 3 on: 1, 2, 3 and 4 ranks over the np1, np2 and np4
     * jobs, with one or two imports per job */
    for (int s = g_size > 2 ? g_size - 1 : g_size; s <= g_size; s++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, g_rank < s ? 0 : MPI_UNDEFINED, g_rank, &sub);
        char out[700];
        snprintf(out, sizeof out, "%s/%s.np%d.h5", g_tmp, v->name, s);
        if (sub != MPI_COMM_NULL) {
            cs_ctx sctx;
            cs_ctx_init(&sctx, sub, CS_LOG_WARN);
            cs_err rc = cs_import_run(&sctx, &cfg, out);
            if (rc != CS_OK && g_rank == 0)
                fprintf(stderr, "import of %s on %d ranks: %s\n", v->name, s, sctx.errmsg);
            CHECK(ok, rc == CS_OK);
            cs_ctx_fini(&sctx);
            MPI_Comm_free(&sub);
        }
        MPI_ASSERT(ok);
        if (g_rank == 0) {
            cs_ctx self;
            cs_ctx_init(&self, MPI_COMM_SELF, CS_LOG_WARN);
            int same = file_is(&self, out, &ref, &rmeta);
            if (!same)
                fprintf(stderr, "%s: the import on %d rank%s differs from the serial reader's\n",
                        v->name, s, s == 1 ? "" : "s");
            CHECK(ok, same);
            remove(out);
            cs_ctx_fini(&self);
        }
        MPI_ASSERT(ok);
    }
    if (g_rank == 0) {
        printf("%s: %lld pages, %lld links (%lld self-loops encoded), %lld references, "
               "%lld intervals: the same graph on %d%s ranks\n",
               v->name, (long long)ref.n_pages_total, (long long)ref.n_links_total,
               (long long)self_loops, (long long)st.refs, (long long)st.intervals, g_size,
               g_size > 2 ? " and one less" : "");
        cs_graph_slice_fini(&ref);
        cs_graph_meta_fini(&rmeta);
    }
    cs_ctx_fini(&ctx);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    mpitest_tmpdir(g_tmp, sizeof g_tmp, "import-bv");
    Suite *s = suite_create("import_bv");
    TCase *tc = tcase_create("ranks");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_ranks_agree, 0, (int)(sizeof variants / sizeof variants[0]));
    suite_add_tcase(s, tc);
    int rc = mpitest_run(s);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0)
        mpitest_rm_tree(g_tmp);
    MPI_Finalize();
    return rc;
}
