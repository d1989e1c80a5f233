/*
 * MPI test of the text edge-list import at scale (src/import/import_textpar.c): integer edge
 * lists (edge_format = pairs) in several parts, gzip and plain, are dealt out to the ranks,
 * parsed there, the links sent to the rank of their source and written by every rank. Each
 * variant is imported on all the job's ranks and, from 3 ranks on, on one less (1, 2, 3 and 4
 * ranks over the np1, np2 and np4 jobs), and the file must hold exactly the graph of the serial
 * reader (cs_import_read on one rank): the header's counts, every dataset value for value
 * (weights too), and no dataset more or less. The parts hold duplicate links, self-loops,
 * comments, header lines, pages without links; variants: 4 parts by a glob with self-loops
 * dropped; weighted links (summed when merged) reversed with self-loops kept, hosts named from
 * id_base 1; one plain file with a declared node count beyond the largest id (pages without
 * links), hosts = single, cut into byte ranges aligned to lines on 2 ranks or more. Errors are
 * the serial reader's, message for message: an id beyond node_count in one part and a
 * non-numeric id in a later one (or later in the one file, read in ranges) give the first one's
 * message, with its line number in the file.
 *
 * argv[1] is the project source directory (unused).
 */
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/graphio.h"
#include "crawlsim/import.h"
#include "crawlsim/slice.h"
#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

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
    CHECK(ok, hdr.has_weights == (ref->weights != NULL) && !hdr.has_terms && !hdr.has_topic_names);
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
    CHECK(ok, (g.weights == NULL) == (ref->weights == NULL) && g.term_offsets == NULL);
    if (ref->weights != NULL && g.weights != NULL)
        CHECK(ok,
              memcmp(g.weights, ref->weights, (size_t)ref->offsets[N] * sizeof *g.weights) == 0);
    if (rmeta->host_blob != NULL && meta.host_blob != NULL)
        for (int64_t h = 0; h < rmeta->n_hosts && ok; h++)
            CHECK(ok, strcmp(cs_graph_meta_host_name(&meta, h),
                             cs_graph_meta_host_name(rmeta, h)) == 0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    return ok;
}

/* One set of parts and an import spec. */
typedef struct variant {
    const char *name;
    int parts, gz_mask;            /* part i is gzip when bit i of gz_mask is set */
    int64_t n;                     /* ids 0 .. n - 1 in the files (before id_base) */
    int weighted, id_base, header; /* header: a first line "from to" (skip_lines = 1) */
    int64_t bad_part, bad_id;      /* a part (-1: none) holding bad_id, then a non-numeric id */
    const char *edges;
    const char *sets[8]; /* [import] assignments besides edges */
} variant;

/* clang-format off */
static const variant variants[] = {
    {"parts", 4, 0x5, 900, 0, 0, 1, -1, 0, "parts/edges-*.txt*",
     {"import.self_loops=drop", "import.hosts=per-page", "import.skip_lines=1", NULL}},
    {"weighted", 3, 0x2, 700, 1, 1, 0, -1, 0, "weighted/e-*",
     {"import.weight_field=2", "import.reverse=1", "import.self_loops=keep", "import.hosts=node",
      "import.id_base=1", NULL}},
    {"one", 1, 0x0, 800, 0, 0, 1, -1, 0, "one/e-0.txt",
     {"import.node_count=1000", "import.hosts=single", "import.skip_lines=1", NULL}},
    {"onebad", 1, 0x0, 600, 0, 0, 0, 0, 610, "onebad/e-0",
     {"import.node_count=600", "import.hosts=per-page", NULL}},
    {"beyond", 4, 0x3, 600, 0, 0, 0, 2, 650, "beyond/e-*",
     {"import.node_count=600", "import.hosts=per-page", NULL}},
};
/* clang-format on */

/* Writes one line to a plain or gzip file. */
static void put(FILE *f, gzFile z, const char *line)
{
    if (z != NULL)
        gzputs(z, line);
    else
        fputs(line, f);
}

/* Local (rank 0). Writes the variant's parts <tmp>/<name>/e-<i>...: random links among n ids
 * (sources in any order, a quarter of the ids without links), duplicates, self-loops, blank and
 * comment lines, a header line per part (a comment, or a line that skip_lines skips); the bad part,
 * if any, holds bad_id and then a non-numeric id. Returns the number of link lines. */
static int64_t write_variant(const variant *v)
{
    char dir[700], path[800], line[128];
    snprintf(dir, sizeof dir, "%s/%s", g_tmp, v->name);
    mkdir(dir, 0700);
    uint64_t s = 1234 + (uint64_t)v->n;
    int64_t lines = 0;
    const int base = v->id_base;
    for (int p = 0; p < v->parts; p++) {
        int gz = (v->gz_mask >> p) & 1;
        if (strcmp(v->name, "parts") == 0)
            snprintf(path, sizeof path, "%s/edges-%d.txt%s", dir, p, gz ? ".gz" : "");
        else
            snprintf(path, sizeof path, "%s/e-%d%s%s", dir, p, gz ? ".gz" : "",
                     strcmp(v->name, "one") == 0 ? ".txt" : "");
        FILE *f = gz ? NULL : fopen(path, "w");
        gzFile z = gz ? gzopen(path, "wb") : NULL;
        put(f, z, v->header ? "from\tto\n" : "# from\tto\tcount\n");
        int64_t m = 1500 + (int64_t)(rnd(&s) % 1000);
        if (v->bad_part >= 0 && p == v->bad_part + 1)
            m *= 3; /* the largest part: rank 0's, whose error cs_agree alone would report */
        for (int64_t k = 0; k < m; k++) {
            int64_t a = (int64_t)(rnd(&s) % (uint64_t)v->n), b;
            if (a % 4 == 3) /* ids 3, 7, ...: no links of their own */
                a--;
            uint64_t kind = rnd(&s) % 20;
            if (kind == 0)
                b = a; /* self-loop */
            else if (kind < 4)
                b = (a + 1) % v->n; /* frequent: duplicates */
            else
                b = (int64_t)(rnd(&s) % (uint64_t)v->n);
            if (v->weighted)
                snprintf(line, sizeof line, "%lld\t%lld\t%u\n", (long long)(a + base),
                         (long long)(b + base), (unsigned)(rnd(&s) % 5));
            else
                snprintf(line, sizeof line, "%lld %lld\n", (long long)(a + base),
                         (long long)(b + base));
            put(f, z, line);
            lines++;
            if (k % 97 == 0)
                put(f, z, k % 2 ? "# a comment\n" : "\n");
            if (p == v->bad_part && k == m / 2) {
                snprintf(line, sizeof line, "%lld 1\n", (long long)v->bad_id);
                put(f, z, line);
            }
            if (v->bad_part >= 0 &&
                (p == v->bad_part + 1 ? k == 10 : v->parts == 1 && k == 3 * m / 4))
                put(f, z, "7 x8\n");
        }
        if (f != NULL)
            fclose(f);
        if (z != NULL)
            gzclose(z);
    }
    return lines;
}

static void make_cfg(cs_ctx *ctx, cs_config *cfg, const variant *v)
{
    cs_config_defaults(cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s/%s.ini", g_tmp, v->name);
    snprintf(cfg->dir, sizeof cfg->dir, "%s", g_tmp);
    char edges[700];
    snprintf(edges, sizeof edges, "import.edges=%s", v->edges);
    ck_assert_msg(cs_config_set(ctx, cfg, edges, "test") == CS_OK, "%s", ctx->errmsg);
    for (const char *const *p = v->sets; *p != NULL; p++)
        ck_assert_msg(cs_config_set(ctx, cfg, *p, "test") == CS_OK, "%s: %s", *p, ctx->errmsg);
}

START_TEST(test_ranks_agree)
{
    const variant *v = &variants[_i];
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    if (g_rank == 0)
        write_variant(v);
    MPI_Barrier(MPI_COMM_WORLD);
    cs_config cfg;
    make_cfg(&ctx, &cfg, v);

    /* the reference: the serial reader on rank 0 (or its error) */
    cs_graph_slice ref;
    cs_graph_meta rmeta;
    cs_graph_slice_init(&ref); /* (set on rank 0 only) */
    cs_graph_meta_init(&rmeta);
    char ref_err[CS_ERRMSG_MAX] = "";
    int ok = 1;
    if (g_rank == 0) {
        cs_ctx self;
        cs_ctx_init(&self, MPI_COMM_SELF, CS_LOG_WARN);
        cs_err rc = cs_import_read(&self, &cfg, &ref, &rmeta);
        if (v->bad_part >= 0) {
            CHECK(ok, rc != CS_OK && strstr(self.errmsg, "beyond the node count") != NULL);
            snprintf(ref_err, sizeof ref_err, "%s", self.errmsg);
        } else {
            if (rc != CS_OK)
                fprintf(stderr, "serial read of %s: %s\n", v->name, self.errmsg);
            CHECK(ok, rc == CS_OK);
            /* the files hold what the test is about */
            int64_t N = ref.n_pages_total, empty = 0;
            for (int64_t i = 0; rc == CS_OK && i < N; i++)
                empty += ref.offsets[i + 1] == ref.offsets[i];
            /* (reversed, "weighted" has its targets' lists: none is empty) */
            CHECK(ok, rc != CS_OK || v->weighted || empty > N / 5);
        }
        cs_ctx_fini(&self);
    }
    MPI_ASSERT(ok);
    MPI_Bcast(ref_err, sizeof ref_err, MPI_CHAR, 0, MPI_COMM_WORLD);

    for (int s = g_size > 2 ? g_size - 1 : g_size; s <= g_size; s++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, g_rank < s ? 0 : MPI_UNDEFINED, g_rank, &sub);
        char out[700];
        snprintf(out, sizeof out, "%s/%s.np%d.h5", g_tmp, v->name, s);
        if (sub != MPI_COMM_NULL) {
            cs_ctx sctx;
            cs_ctx_init(&sctx, sub, CS_LOG_WARN);
            cs_err rc = cs_import_run(&sctx, &cfg, out);
            if (v->bad_part >= 0) {
                if (strcmp(sctx.errmsg, ref_err) != 0)
                    fprintf(stderr, "[rank %d] %s on %d ranks: '%s', serial: '%s'\n", g_rank,
                            v->name, s, sctx.errmsg, ref_err);
                CHECK(ok, rc != CS_OK && strcmp(sctx.errmsg, ref_err) == 0);
            } else {
                if (rc != CS_OK && g_rank == 0)
                    fprintf(stderr, "import of %s on %d ranks: %s\n", v->name, s, sctx.errmsg);
                CHECK(ok, rc == CS_OK);
            }
            cs_ctx_fini(&sctx);
            MPI_Comm_free(&sub);
        }
        MPI_ASSERT(ok);
        if (g_rank == 0 && v->bad_part < 0) {
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
    if (g_rank == 0 && v->bad_part < 0) {
        printf("%s: %lld pages, %lld links: the same graph on %d%s ranks\n", v->name,
               (long long)ref.n_pages_total, (long long)ref.n_links_total, g_size,
               g_size > 2 ? " and one less" : "");
        cs_graph_slice_fini(&ref);
        cs_graph_meta_fini(&rmeta);
    } else if (g_rank == 0) {
        printf("%s: the serial reader's error on %d%s ranks: %s\n", v->name, g_size,
               g_size > 2 ? " and one less" : "", ref_err);
    }
    cs_ctx_fini(&ctx);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    mpitest_tmpdir(g_tmp, sizeof g_tmp, "import-text");
    Suite *s = suite_create("import_text");
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
