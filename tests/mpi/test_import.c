/*
 * MPI integration test of `crawlsim import` (cs_import_run): the four real datasets of
 * ../shared/datasets through their specs in graphs/, read back with cs_graphio_read_header and
 * cs_graphio_read_slice; small hand-made inputs whose every value is known; and bad inputs,
 * each of which must fail on every rank with the same code, a message naming the file and line,
 * and no output file.
 *
 * argv[1] is the project source directory. The dataset tests print a note and pass when the
 * datasets folder is missing.
 */
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/graph.h"
#include "crawlsim/graphio.h"
#include "crawlsim/import.h"
#include "mpitest.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *g_src = ".";
static char g_tmp[512];
static int g_rank;

/* A local check: records the failure with its line and carries on to the next collective. */
#define CHECK(ok, c)                                                                               \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            (ok) = 0;                                                                              \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", g_rank, __FILE__, __LINE__,     \
                    #c);                                                                           \
        }                                                                                          \
    } while (0)

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Local. The first edge file of the spec (its dataset's own folder, not only the datasets
 * folder) into ds; whether it exists. */
static int dataset_present(const cs_config *cfg, char *ds, size_t size)
{
    char first[1024];
    const char *e = cfg->import.edges;
    size_t n = strcspn(e, ",");
    while (n > 0 && (e[n - 1] == ' ' || e[n - 1] == '\t'))
        n--;
    snprintf(first, sizeof first, "%.*s", (int)n, e);
    cs_import_resolve_path(cfg, first, ds, size);
    return exists(ds);
}

/* Collective. Loads graphs/<name>.ini; asserts that the dataset file the spec points to exists
 * (main skips the whole test, exit 77, when one is missing: no part of it passes without). */
static int load_spec(cs_ctx *ctx, const char *name, cs_config *cfg)
{
    char path[1024], ds[1024];
    snprintf(path, sizeof path, "%s/graphs/%s.ini", g_src, name);
    cs_err rc = cs_config_load(ctx, path, NULL, 0, cfg);
    if (rc != CS_OK && g_rank == 0)
        fprintf(stderr, "loading %s: %s\n", path, ctx->errmsg);
    MPI_ASSERT(rc == CS_OK);
    int present = g_rank == 0 ? dataset_present(cfg, ds, sizeof ds) : 0;
    MPI_Bcast(&present, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!present && g_rank == 0)
        printf("dataset file %s missing (%s), yet the test runs\n", ds, name);
    MPI_ASSERT(present);
    return present;
}

/* Collective. Imports cfg into <tmp>/<name>.h5 and reads its header; asserts success. */
static void import_ok(cs_ctx *ctx, const cs_config *cfg, const char *name, char *out, size_t size,
                      cs_graph_header *hdr)
{
    snprintf(out, size, "%s/%s.h5", g_tmp, name);
    double t0 = MPI_Wtime();
    cs_err rc = cs_import_run(ctx, cfg, out);
    double t = MPI_Wtime() - t0;
    if (rc != CS_OK && g_rank == 0)
        fprintf(stderr, "import of %s failed: %s\n", name, ctx->errmsg);
    MPI_ASSERT(rc == CS_OK);
    if (g_rank == 0)
        printf("import %s: %.2f s\n", name, t);
    rc = cs_graphio_read_header(ctx, out, hdr);
    MPI_ASSERT(rc == CS_OK);
}

/* Whole-graph sums gathered from every rank's block of pages. */
typedef struct sums {
    long long links, weight, relevant, terms, self_loops, unsorted, bad_range, bad_attr;
} sums;

/* Collective. Reads this rank's block of pages and checks the CSR and attribute invariants. */
static sums block_sums(cs_ctx *ctx, const char *path, const cs_graph_header *hdr)
{
    sums s;
    memset(&s, 0, sizeof s);
    int64_t first, n;
    cs_block_range(hdr->n_pages, ctx->rank, ctx->size, &first, &n);
    cs_graph_slice g;
    cs_err rc = cs_graphio_read_slice(ctx, path, first, n, &g, NULL);
    MPI_ASSERT(rc == CS_OK);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = g.offsets[i]; k < g.offsets[i + 1]; k++) {
            int64_t t = g.targets[k];
            s.links++;
            s.self_loops += t == first + i;
            s.bad_range += t < 0 || t >= hdr->n_pages;
            s.unsorted += k > g.offsets[i] && g.targets[k - 1] >= t;
            if (g.weights != NULL)
                s.weight += g.weights[k];
        }
        s.relevant += g.relevance[i] == 1.0;
        s.bad_attr += g.host[i] < 0 || g.host[i] >= hdr->n_hosts || g.topic[i] < -1 ||
                      g.topic[i] >= hdr->n_topics || !(g.delta[i] > 0) || !(g.mu[i] > 0) ||
                      g.observable[i] > 1 || (g.relevance[i] != 0.0 && g.relevance[i] != 1.0);
        if (g.term_offsets != NULL)
            s.terms += g.term_offsets[i + 1] - g.term_offsets[i];
    }
    cs_graph_slice_fini(&g);
    sums all;
    MPI_Allreduce(&s, &all, (int)(sizeof s / sizeof(long long)), MPI_LONG_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    return all;
}

/* Collective. Reads page p (every rank) with the meta tables. */
static void read_page(cs_ctx *ctx, const char *path, int64_t p, cs_graph_slice *g,
                      cs_graph_meta *meta)
{
    cs_err rc = cs_graphio_read_slice(ctx, path, p, 1, g, meta);
    MPI_ASSERT(rc == CS_OK);
}

static int links_are(const cs_graph_slice *g, const int64_t *want, int64_t k)
{
    if (g->offsets[1] - g->offsets[0] != k)
        return 0;
    for (int64_t i = 0; i < k; i++)
        if (g->targets[g->offsets[0] + i] != want[i])
            return 0;
    return 1;
}

static void remove_file(const char *path)
{
    if (g_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------------------------------ */

START_TEST(test_cnr2000)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    cs_config cfg;
    if (load_spec(&ctx, "cnr-2000", &cfg)) {
        char out[1024];
        cs_graph_header hdr;
        import_ok(&ctx, &cfg, "cnr-2000", out, sizeof out, &hdr);
        int ok = 1;
        /* PROVENANCE.md: 325,557 pages, 3,216,152 links of which 87,442 self-loops (dropped) */
        CHECK(ok, hdr.n_pages == 325557);
        CHECK(ok, hdr.n_links == 3216152 - 87442);
        CHECK(ok, hdr.n_hosts == 325557); /* hosts = per-page */
        CHECK(ok, hdr.n_topics == 0 && hdr.target_topic == -1);
        CHECK(ok, !hdr.has_weights && !hdr.has_terms && !hdr.has_host_names);
        MPI_ASSERT(ok);
        sums s = block_sums(&ctx, out, &hdr);
        CHECK(ok, s.links == hdr.n_links && s.self_loops == 0 && s.unsorted == 0);
        CHECK(ok, s.bad_range == 0 && s.bad_attr == 0 && s.relevant == 0);
        MPI_ASSERT(ok);

        /* Lines of the file (zcat cnr-2000.adj.gz | sed -n '1p;347p;325557p'):
         * "5 1 4 8 219 220", "7 346 347 350 354 355 362 272816" (page 346 links to itself),
         * "6 289276 289277 289278 289279 289280 325555". */
        cs_graph_slice g;
        cs_graph_meta meta;
        read_page(&ctx, out, 0, &g, &meta);
        CHECK(ok, links_are(&g, (const int64_t[]){1, 4, 8, 219, 220}, 5));
        CHECK(ok, g.host[0] == 0 && g.topic[0] == -1 && g.relevance[0] == 0.0);
        CHECK(ok, cs_graph_meta_host_name(&meta, 0) == NULL);
        cs_graph_slice_fini(&g);
        cs_graph_meta_fini(&meta);
        read_page(&ctx, out, 346, &g, NULL);
        CHECK(ok, links_are(&g, (const int64_t[]){347, 350, 354, 355, 362, 272816}, 6));
        CHECK(ok, g.host[0] == 346);
        cs_graph_slice_fini(&g);
        read_page(&ctx, out, 325556, &g, NULL);
        CHECK(ok,
              links_are(&g, (const int64_t[]){289276, 289277, 289278, 289279, 289280, 325555}, 6));
        cs_graph_slice_fini(&g);
        MPI_ASSERT(ok);
        remove_file(out);
    }
    cs_ctx_fini(&ctx);
}
END_TEST

START_TEST(test_webkb)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    cs_config cfg;
    if (load_spec(&ctx, "webkb", &cfg)) {
        char out[1024];
        cs_graph_header hdr;
        import_ok(&ctx, &cfg, "webkb", out, sizeof out, &hdr);
        int ok = 1;
        /* PROVENANCE.md: 877 pages, 1608 links of which 3+18+51+20 = 92 self-links, 16 hosts
         * (metacrawler.cs.washington.edu:8080 counts once without its port), 5 classes;
         * classes in order of first appearance (cornell.content.gz): student, project,
         * course, staff, faculty, so "course" is topic 2 and has 218 pages. */
        CHECK(ok, hdr.n_pages == 877);
        CHECK(ok, hdr.n_links == 1608 - 92);
        CHECK(ok, hdr.n_hosts == 16);
        CHECK(ok, hdr.n_topics == 5 && hdr.target_topic == 2);
        CHECK(ok, !hdr.has_weights && hdr.has_terms && hdr.has_host_names && hdr.has_topic_names);
        MPI_ASSERT(ok);
        sums s = block_sums(&ctx, out, &hdr);
        CHECK(ok, s.links == hdr.n_links && s.self_loops == 0 && s.unsorted == 0);
        CHECK(ok, s.bad_range == 0 && s.bad_attr == 0 && s.relevant == 218);
        /* number of '1' words over the 877 .content lines (python3) */
        CHECK(ok, s.terms == 79365);
        MPI_ASSERT(ok);

        /* Page 0 is the first line of cornell.content.gz, http://cam.cornell.edu/ph/index.html,
         * class student, 71 words present, the first at positions 30, 48, 92, 115, 142; it
         * links to www.cs.cornell.edu/info/people/lnt/lnt.html (page 121) and
         * .../vavasis/vavasis.html (page 167): computed with python3 from the files in the
         * order of the spec. */
        cs_graph_slice g;
        cs_graph_meta meta;
        read_page(&ctx, out, 0, &g, &meta);
        CHECK(ok, links_are(&g, (const int64_t[]){121, 167}, 2));
        CHECK(ok, g.topic[0] == 0 && g.relevance[0] == 0.0 && g.host[0] == 0);
        const char *h0 = cs_graph_meta_host_name(&meta, 0);
        CHECK(ok, h0 != NULL && strcmp(h0, "cam.cornell.edu") == 0);
        const char *t2 = cs_graph_meta_topic_name(&meta, 2);
        CHECK(ok, t2 != NULL && strcmp(t2, "course") == 0);
        CHECK(ok, g.term_dim == 1703 && g.term_offsets[1] - g.term_offsets[0] == 71);
        CHECK(ok,
              g.term_index[g.term_offsets[0]] == 30 && g.term_index[g.term_offsets[0] + 4] == 142);
        CHECK(ok, g.term_value[g.term_offsets[0]] == 1.0f);
        int port = 0;
        for (int64_t h = 0; h < meta.n_hosts; h++) {
            const char *name = cs_graph_meta_host_name(&meta, h);
            port += name != NULL && strcmp(name, "metacrawler.cs.washington.edu") == 0;
            CHECK(ok, name != NULL && strchr(name, ':') == NULL);
        }
        CHECK(ok, port == 1);
        cs_graph_slice_fini(&g);
        cs_graph_meta_fini(&meta);
        MPI_ASSERT(ok);
        remove_file(out);
    }
    cs_ctx_fini(&ctx);
}
END_TEST

START_TEST(test_wikispeedia)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    cs_config cfg;
    if (load_spec(&ctx, "wikispeedia", &cfg)) {
        char out[1024];
        cs_graph_header hdr;
        import_ok(&ctx, &cfg, "wikispeedia", out, sizeof out, &hdr);
        int ok = 1;
        /* PROVENANCE.md: 4,604 articles, 119,882 links of which 110 self-links, 15 top-level
         * topics, one host; subject.Science holds 1105 articles. Topics in order of first
         * appearance in categories.tsv: History, People, Countries, Geography,
         * Business_Studies, Science (topic 5), ... */
        CHECK(ok, hdr.n_pages == 4604);
        CHECK(ok, hdr.n_links == 119882 - 110);
        CHECK(ok, hdr.n_hosts == 1);
        CHECK(ok, hdr.n_topics == 15 && hdr.target_topic == 5);
        CHECK(ok, !hdr.has_weights && !hdr.has_terms && !hdr.has_host_names);
        MPI_ASSERT(ok);
        sums s = block_sums(&ctx, out, &hdr);
        CHECK(ok, s.links == hdr.n_links && s.self_loops == 0 && s.unsorted == 0);
        CHECK(ok, s.bad_range == 0 && s.bad_attr == 0 && s.relevant == 1105);
        MPI_ASSERT(ok);

        /* Ids follow articles.tsv (computed with python3): 0 = %C3%81ed%C3%A1n_mac_Gabr%C3%A1in
         * whose first links go to 530 (Bede), 974, 1115; 4297 = United_States, 294 out-links,
         * first category subject.Countries (topic 2); 3253 = Pikachu, uncategorised. */
        cs_graph_slice g;
        cs_graph_meta meta;
        read_page(&ctx, out, 0, &g, &meta);
        CHECK(ok, g.offsets[1] >= 3 && g.targets[0] == 530 && g.targets[1] == 974 &&
                      g.targets[2] == 1115);
        const char *t5 = cs_graph_meta_topic_name(&meta, 5);
        CHECK(ok, t5 != NULL && strcmp(t5, "subject.Science") == 0);
        const char *t0 = cs_graph_meta_topic_name(&meta, 0);
        CHECK(ok, t0 != NULL && strcmp(t0, "subject.History") == 0);
        cs_graph_slice_fini(&g);
        cs_graph_meta_fini(&meta);
        read_page(&ctx, out, 4297, &g, NULL);
        CHECK(ok, g.offsets[1] - g.offsets[0] == 294 && g.topic[0] == 2 && g.host[0] == 0);
        cs_graph_slice_fini(&g);
        read_page(&ctx, out, 3253, &g, NULL);
        CHECK(ok, g.topic[0] == -1 && g.relevance[0] == 0.0);
        cs_graph_slice_fini(&g);
        MPI_ASSERT(ok);
        remove_file(out);
    }
    cs_ctx_fini(&ctx);
}
END_TEST

START_TEST(test_ukwa)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    cs_config cfg;
    if (load_spec(&ctx, "ukwa-1996", &cfg)) {
        char out[1024];
        cs_graph_header hdr;
        import_ok(&ctx, &cfg, "ukwa-1996", out, sizeof out, &hdr);
        int ok = 1;
        /* PROVENANCE.md: 58,842 distinct host names, 184,433 lines. Lower-casing merges case
         * variants; computed independently with python3 (names lower-cased, numbered by first
         * appearance source-then-target per line, counts summed per pair):
         *   58,135 nodes; 184,054 distinct pairs, 10,312 of them self-pairs -> 173,742 links
         *   whose counts sum to 551,531. */
        CHECK(ok, hdr.n_pages == 58135);
        CHECK(ok, hdr.n_hosts == 58135);
        CHECK(ok, hdr.n_links == 173742);
        CHECK(ok, hdr.n_topics == 0 && hdr.target_topic == -1);
        CHECK(ok, hdr.has_weights && !hdr.has_terms && hdr.has_host_names);
        MPI_ASSERT(ok);
        sums s = block_sums(&ctx, out, &hdr);
        CHECK(ok, s.links == hdr.n_links && s.self_loops == 0 && s.unsorted == 0);
        CHECK(ok, s.bad_range == 0 && s.bad_attr == 0 && s.weight == 551531);
        MPI_ASSERT(ok);

        /* Same python3 run: node 0 = acorn.educ.nottingham.ac.uk, first links (target, count)
         * (1, 2), (16, 1); 340 = ion.le.ac.uk -> 342 = rsl-pc3.ion.le.ac.uk with count 5 after
         * merging case variants; 56356 = www.iol.it (written WWW.IOL.IT in places). */
        cs_graph_slice g;
        cs_graph_meta meta;
        read_page(&ctx, out, 0, &g, &meta);
        CHECK(ok,
              g.targets[0] == 1 && g.weights[0] == 2 && g.targets[1] == 16 && g.weights[1] == 1);
        CHECK(ok, g.host[0] == 0);
        const char *h = cs_graph_meta_host_name(&meta, 0);
        CHECK(ok, h != NULL && strcmp(h, "acorn.educ.nottingham.ac.uk") == 0);
        h = cs_graph_meta_host_name(&meta, 56356);
        CHECK(ok, h != NULL && strcmp(h, "www.iol.it") == 0);
        cs_graph_slice_fini(&g);
        cs_graph_meta_fini(&meta);
        read_page(&ctx, out, 340, &g, NULL);
        int found = 0;
        for (int64_t k = 0; k < g.offsets[1]; k++)
            if (g.targets[k] == 342)
                found = g.weights[k] == 5;
        CHECK(ok, found);
        cs_graph_slice_fini(&g);
        MPI_ASSERT(ok);
        remove_file(out);
    }
    cs_ctx_fini(&ctx);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Small inputs with known results */

/* Collective. Rank 0 writes text into <tmp>/name. */
static void write_file(const char *name, const char *text, size_t len)
{
    if (g_rank == 0) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", g_tmp, name);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(text, 1, len, f), len);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void write_text(const char *name, const char *text)
{
    write_file(name, text, strlen(text));
}

/* A config with defaults, "read" from <tmp>/test.ini, plus assignments. */
static void make_cfg(cs_ctx *ctx, cs_config *cfg, const char *const *sets)
{
    cs_config_defaults(cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s/test.ini", g_tmp);
    snprintf(cfg->dir, sizeof cfg->dir, "%s", g_tmp);
    for (; *sets != NULL; sets++) {
        cs_err rc = cs_config_set(ctx, cfg, *sets, "test");
        ck_assert_msg(rc == CS_OK, "%s: %s", *sets, ctx->errmsg);
    }
}

START_TEST(test_small_pairs)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    /* Header, comment, CRLF, a blank line; names merged by case (weights summed), a self-loop
     * dropped, a zero count kept. */
    write_text("hosts.tsv", "year|src|dst\tcount\r\n"
                            "# a comment\r\n"
                            "1996|A.com|b.com\t2\r\n"
                            "1996|a.com|B.com\t3\r\n"
                            "1996|b.com|a.com\t1\r\n"
                            "1996|b.com|B.COM\t7\r\n"
                            "\r\n"
                            "1996|c.com|a.com\t0\r\n");
    cs_config cfg;
    make_cfg(&ctx, &cfg,
             (const char *const[]){
                 "import.edges=hosts.tsv", "import.separators=|\\t", "import.skip_lines=1",
                 "import.src_field=1", "import.dst_field=2", "import.weight_field=-1",
                 "import.node_ids=name", "import.hosts=node", "import.lowercase_names=true", NULL});
    char out[1024];
    cs_graph_header hdr;
    import_ok(&ctx, &cfg, "small_pairs", out, sizeof out, &hdr);
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_err rc = cs_graphio_read_slice(&ctx, out, 0, 3, &g, &meta);
    MPI_ASSERT(rc == CS_OK);
    int ok = 1;
    CHECK(ok, hdr.n_pages == 3 && hdr.n_links == 3 && hdr.n_hosts == 3 && hdr.has_weights);
    CHECK(ok, g.offsets[1] == 1 && g.offsets[2] == 2 && g.offsets[3] == 3);
    CHECK(ok, g.targets[0] == 1 && g.weights[0] == 5); /* a.com -> b.com: 2 + 3 */
    CHECK(ok, g.targets[1] == 0 && g.weights[1] == 1);
    CHECK(ok, g.targets[2] == 0 && g.weights[2] == 0);
    CHECK(ok, g.host[0] == 0 && g.host[1] == 1 && g.host[2] == 2);
    const char *h = cs_graph_meta_host_name(&meta, 1);
    CHECK(ok, h != NULL && strcmp(h, "b.com") == 0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    MPI_ASSERT(ok);
    remove_file(out);
    cs_ctx_fini(&ctx);
}
END_TEST

START_TEST(test_small_tables)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    /* Page list first (p9 = 0), then the table (p1 = 1, p0 = 2, p4 = 3), then the edges
     * (p2new = 4). p1 has a second row: its URL is ignored, its label counts for relevance. */
    write_text("list.txt", "# pages\np9\n");
    write_text("pages.tsv", "id\turl\tlabel\tfeatures\n"
                            "p1\thttp://User@Example.COM:8080/x\tsci.bio\t3:0.5\t1:2\n"
                            "p0\thttps://www.other.org/\tart\t0:1\n"
                            "p1\thttp://ignored.net/\tsci.phys\n"
                            "p4\t//www.other.org:81/a?b\tsci\n");
    write_text("adj.txt", "p0 p1 p1 p4 p0\np4  p2new\np1\n");
    cs_config cfg;
    make_cfg(&ctx, &cfg,
             (const char *const[]){
                 "import.edges=adj.txt", "import.edge_format=adjacency", "import.node_ids=name",
                 "import.page_list=list.txt", "import.pages=pages.tsv", "import.page_skip_lines=1",
                 "import.page_url_field=1", "import.page_label_field=2", "import.label_depth=1",
                 "import.page_features=sparse", "import.page_features_first=3", "import.hosts=url",
                 "import.target_label=sci.bio", NULL});
    char out[1024];
    cs_graph_header hdr;
    import_ok(&ctx, &cfg, "small_tables", out, sizeof out, &hdr);
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_err rc = cs_graphio_read_slice(&ctx, out, 0, 5, &g, &meta);
    MPI_ASSERT(rc == CS_OK);
    int ok = 1;
    CHECK(ok, hdr.n_pages == 5 && hdr.n_links == 3 && hdr.n_hosts == 4 && hdr.n_topics == 2);
    CHECK(ok, hdr.target_topic == -1); /* sci.bio is finer than the topics (label_depth 1) */
    CHECK(ok, g.offsets[2] == 0 && g.offsets[3] == 2 && g.offsets[4] == 3 && g.offsets[5] == 3);
    CHECK(ok, g.targets[0] == 1 && g.targets[1] == 3 && g.targets[2] == 4);
    static const int64_t host[5] = {0, 1, 2, 2, 3};
    static const int32_t topic[5] = {-1, 0, 1, 0, -1};
    for (int i = 0; i < 5; i++) {
        CHECK(ok, g.host[i] == host[i] && g.topic[i] == topic[i]);
        CHECK(ok, g.relevance[i] == (i == 1 ? 1.0 : 0.0));
    }
    static const char *hosts[4] = {"p9", "example.com", "www.other.org", "p2new"};
    for (int i = 0; i < 4; i++) {
        const char *h = cs_graph_meta_host_name(&meta, i);
        CHECK(ok, h != NULL && strcmp(h, hosts[i]) == 0);
    }
    const char *t0 = cs_graph_meta_topic_name(&meta, 0);
    CHECK(ok, t0 != NULL && strcmp(t0, "sci") == 0);
    CHECK(ok, g.term_dim == 4 && g.term_offsets[1] == 0 && g.term_offsets[2] == 2 &&
                  g.term_offsets[3] == 3 && g.term_offsets[5] == 3);
    CHECK(ok, g.term_index[0] == 3 && g.term_value[0] == 0.5f && g.term_index[1] == 1 &&
                  g.term_value[1] == 2.0f && g.term_index[2] == 0 && g.term_value[2] == 1.0f);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    MPI_ASSERT(ok);
    remove_file(out);
    cs_ctx_fini(&ctx);
}
END_TEST

START_TEST(test_small_integer)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    /* 1-based ids, links written target first (reverse), self-loops kept; and an
     * adjacency-indexed file with comments across two files (the index continues), whose
     * target 3 beyond its 3 lines is a new page (new_ids = allow; an error by default). */
    write_text("rev.txt", "1 2\n2 2\n3 1\n3 1\n");
    cs_config cfg;
    make_cfg(&ctx, &cfg,
             (const char *const[]){"import.edges=rev.txt", "import.id_base=1",
                                   "import.reverse=true", "import.self_loops=keep",
                                   "import.hosts=per-page", NULL});
    char out[1024];
    cs_graph_header hdr;
    import_ok(&ctx, &cfg, "small_integer", out, sizeof out, &hdr);
    cs_graph_slice g;
    cs_err rc = cs_graphio_read_slice(&ctx, out, 0, 3, &g, NULL);
    MPI_ASSERT(rc == CS_OK);
    int ok = 1;
    CHECK(ok, hdr.n_pages == 3 && hdr.n_links == 3 && hdr.n_hosts == 3 && !hdr.has_host_names);
    CHECK(ok, g.offsets[1] == 1 && g.offsets[2] == 3 && g.offsets[3] == 3);
    CHECK(ok, g.targets[0] == 2 && g.targets[1] == 0 && g.targets[2] == 1);
    cs_graph_slice_fini(&g);
    MPI_ASSERT(ok);
    remove_file(out);

    write_text("idx1.txt", "# part 1\n2 3 1\n0\n");
    write_text("idx2.txt", "1 0\n");
    make_cfg(&ctx, &cfg,
             (const char *const[]){"import.edges=idx1.txt, idx2.txt",
                                   "import.edge_format=adjacency-indexed", "import.hosts=single",
                                   "import.new_ids=allow", NULL});
    import_ok(&ctx, &cfg, "small_indexed", out, sizeof out, &hdr);
    rc = cs_graphio_read_slice(&ctx, out, 0, 4, &g, NULL);
    MPI_ASSERT(rc == CS_OK);
    CHECK(ok, hdr.n_pages == 4 && hdr.n_links == 3 && hdr.n_hosts == 1);
    CHECK(ok, g.offsets[1] == 2 && g.offsets[2] == 2 && g.offsets[3] == 3 && g.offsets[4] == 3);
    CHECK(ok, g.targets[0] == 1 && g.targets[1] == 3 && g.targets[2] == 0);
    cs_graph_slice_fini(&g);
    MPI_ASSERT(ok);
    remove_file(out);
    cs_ctx_fini(&ctx);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Bad inputs */

/* Collective. Runs the import of cfg and checks that it fails with `code` on every rank, with
 * a message holding `where` (file and line) and `what`, and leaves no file in <tmp> but the
 * inputs. */
static void expect_failure(cs_ctx *ctx, const cs_config *cfg, cs_err code, const char *where,
                           const char *what)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/bad.h5", g_tmp);
    cs_ctx_clear_error(ctx);
    cs_err rc = cs_import_run(ctx, cfg, out);
    int ok = 1;
    CHECK(ok, rc == code);
    CHECK(ok, strstr(ctx->errmsg, where) != NULL);
    CHECK(ok, what == NULL || strstr(ctx->errmsg, what) != NULL);
    CHECK(ok, !exists(out));
    if (!ok)
        fprintf(stderr, "[rank %d] got %s: %s (wanted %s with '%s')\n", g_rank, cs_errname(rc),
                ctx->errmsg, cs_errname(code), where);
    if (g_rank == 0) {
        DIR *d = opendir(g_tmp);
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL)
            CHECK(ok, strncmp(e->d_name, "bad.h5", 6) != 0); /* nor a temporary bad.h5.tmp.* */
        if (d != NULL)
            closedir(d);
    }
    MPI_ASSERT(ok);
    /* every rank holds rank 0's message */
    char msg0[CS_ERRMSG_MAX];
    memcpy(msg0, ctx->errmsg, sizeof msg0);
    MPI_Bcast(msg0, (int)sizeof msg0, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_ASSERT(strcmp(msg0, ctx->errmsg) == 0);
}

static void edges_cfg(cs_ctx *ctx, cs_config *cfg, const char *edges, const char *format)
{
    char e[256], f[256];
    snprintf(e, sizeof e, "import.edges=%s", edges);
    snprintf(f, sizeof f, "import.edge_format=%s", format);
    make_cfg(ctx, cfg, (const char *const[]){e, f, "import.hosts=per-page", NULL});
}

START_TEST(test_bad_inputs)
{
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_WARN);
    cs_config cfg;

    write_text("garbage.txt", "The quick brown fox\njumps over the lazy dog\n");
    edges_cfg(&ctx, &cfg, "garbage.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "garbage.txt:1:", "non-numeric node id 'The'");

    static const char binary[] = {'\x12', '\x00', '\x7f', '\xff', '\x00', '\x03', '\n', 'x'};
    write_file("binary.bin", binary, sizeof binary);
    edges_cfg(&ctx, &cfg, "binary.bin", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "binary.bin:1:", "binary data (byte 0x12");

    write_text("nonnum.txt", "0 1\n1 2\n2 x7\n");
    edges_cfg(&ctx, &cfg, "nonnum.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "nonnum.txt:3:", "dst_field (field 1)");

    write_text("negative.txt", "0 1\n0 -3\n");
    edges_cfg(&ctx, &cfg, "negative.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "negative.txt:2:", "out of range");

    write_text("range.txt", "0 1\n2147483647 0\n");
    edges_cfg(&ctx, &cfg, "range.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_LIMIT, "range.txt:2:", "out of range");

    write_text("count.txt", "2 1 2\n3 0 1\n0\n");
    edges_cfg(&ctx, &cfg, "count.txt", "adjacency-indexed");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "count.txt:2:", "out-degree");

    write_text("field.txt", "0 1\n7\n");
    edges_cfg(&ctx, &cfg, "field.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "field.txt:2:", "missing field 1 (dst_field)");

    write_text("empty.txt", "");
    edges_cfg(&ctx, &cfg, "empty.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "empty.txt:1:", "empty file");

    write_text("comments.txt", "# nothing but a comment\n");
    edges_cfg(&ctx, &cfg, "comments.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "comments.txt", "empty graph");

    edges_cfg(&ctx, &cfg, "no_such_file.txt", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_IO, "no_such_file.txt", "cannot open");

    /* A gzip file cut in half. */
    if (g_rank == 0) {
        char path[1024];
        snprintf(path, sizeof path, "%s/trunc.gz", g_tmp);
        gzFile gz = gzopen(path, "wb");
        ck_assert_ptr_nonnull(gz);
        for (unsigned i = 0; i < 200000; i++)
            gzprintf(gz, "%u %u\n", (i * 2654435761u) % 100000u, i % 77777u);
        gzclose(gz);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    edges_cfg(&ctx, &cfg, "trunc.gz", "pairs");
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "trunc.gz:", "truncated");

    /* A line beyond 16 MiB. */
    if (g_rank == 0) {
        size_t n = ((size_t)16 << 20) + 100;
        char *big = malloc(n + 1);
        ck_assert_ptr_nonnull(big);
        memset(big, 'a', n);
        big[n] = '\n';
        char path[1024];
        snprintf(path, sizeof path, "%s/long.txt", g_tmp);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        fputs("a b\n", f);
        ck_assert_uint_eq(fwrite(big, 1, n + 1, f), n + 1);
        fclose(f);
        free(big);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    make_cfg(&ctx, &cfg,
             (const char *const[]){"import.edges=long.txt", "import.node_ids=name",
                                   "import.hosts=single", NULL});
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "long.txt:2:", "longer than 16 MiB");

    /* A page table line with one dense feature too few. */
    write_text("dense_edges.txt", "a b\n");
    write_text("dense.tsv", "a\t0\t1\t0\tx\nb\t1\t1\tx\n");
    make_cfg(&ctx, &cfg,
             (const char *const[]){
                 "import.edges=dense_edges.txt", "import.node_ids=name", "import.hosts=single",
                 "import.pages=dense.tsv", "import.page_label_field=-1",
                 "import.page_features=dense-binary", "import.page_features_count=3", NULL});
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "dense.tsv:2:", "dense features");
    /* A sparse feature value beyond a float's range (it was stored as infinity). */
    write_text("sparse.tsv", "a\t1:0.5\nb\t2:1e39\n");
    make_cfg(&ctx, &cfg,
             (const char *const[]){"import.edges=dense_edges.txt", "import.node_ids=name",
                                   "import.hosts=single", "import.pages=sparse.tsv",
                                   "import.page_features=sparse", NULL});
    expect_failure(&ctx, &cfg, CS_ERR_FORMAT, "sparse.tsv:2:", "beyond a float's range");
    cs_ctx_fini(&ctx);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    if (argc > 1)
        g_src = argv[1];
    mpitest_tmpdir(g_tmp, sizeof g_tmp, "import");

    /* "datasets": only the bundled real graphs, all of them or none: when one is missing the
     * test exits with 77 on every rank, which ctest reports as skipped (never as passed) */
    const int datasets = argc > 2 && strcmp(argv[2], "datasets") == 0;
    if (datasets) {
        static const char *const names[] = {"webkb", "wikispeedia", "ukwa-1996", "cnr-2000"};
        int missing = 0;
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            /* (not load_spec: its assertions need a running test) */
            cs_ctx ctx;
            cs_config cfg;
            char path[1024], ds[1024];
            cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
            snprintf(path, sizeof path, "%s/graphs/%s.ini", g_src, names[i]);
            if (cs_config_load(&ctx, path, NULL, 0, &cfg) != CS_OK) {
                if (g_rank == 0)
                    fprintf(stderr, "loading %s: %s\n", path, ctx.errmsg);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            int present = g_rank == 0 ? dataset_present(&cfg, ds, sizeof ds) : 0;
            MPI_Bcast(&present, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (!present && g_rank == 0)
                printf("missing: %s (graphs/%s.ini)\n", ds, names[i]);
            missing += !present;
        }
        if (missing > 0) {
            if (g_rank == 0)
                printf("SKIPPED: %d of 4 datasets missing\n", missing);
            mpitest_rm_tmpdir(g_tmp);
            MPI_Finalize();
            return 77;
        }
    }
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("import");
    tcase_set_timeout(tc, 600);
    if (datasets) {
        tcase_add_test(tc, test_webkb);
        tcase_add_test(tc, test_wikispeedia);
        tcase_add_test(tc, test_ukwa);
        tcase_add_test(tc, test_cnr2000);
    } else {
        tcase_add_test(tc, test_small_pairs);
        tcase_add_test(tc, test_small_tables);
        tcase_add_test(tc, test_small_integer);
        tcase_add_test(tc, test_bad_inputs);
    }
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    mpitest_rm_tmpdir(g_tmp);
    MPI_Finalize();
    return status;
}
