/*
 * Unit tests of the serial importer (cs_import_read on a local context, no MPI): the findings of
 * issue 19 on small files made here. Ids beyond a declared (node_count, an ASCIIGraph header)
 * or inferred (adjacency-indexed, successors: the number of lines) node count are errors naming
 * the file, the line and the id, unless new_ids = allow; a memory failure names what was being
 * read or built; binary data read as text gives a message without raw bytes (and points a
 * .graph file to edge_format = bvgraph); WebGraph's text export (successors only) declared as
 * adjacency is refused, and read as successors or asciigraph; page-table fields are trimmed
 * (no trailing spaces in host names) and split like edge lines by default; the self-loops and
 * merged duplicates are reported at the default log level.
 */
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/import.h"
#include "crawlsim/slice.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char tmpdir[64];

static void write_file(const char *name, const void *data, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert(fwrite(data, 1, n, f) == n);
    fclose(f);
}

static void write_text(const char *name, const char *text)
{
    write_file(name, text, strlen(text));
}

/* A config with defaults, "read" from <tmpdir>/test.ini, plus the NULL-terminated assignments. */
static void make_cfg(cs_ctx *ctx, cs_config *cfg, const char *const *sets)
{
    cs_config_defaults(cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s/test.ini", tmpdir);
    snprintf(cfg->dir, sizeof cfg->dir, "%s", tmpdir);
    for (; *sets != NULL; sets++) {
        cs_err rc = cs_config_set(ctx, cfg, *sets, "test");
        ck_assert_msg(rc == CS_OK, "%s: %s", *sets, ctx->errmsg);
    }
}

/* Imports and expects success; the caller frees g and meta. */
static void read_ok(const char *const *sets, cs_graph_slice *g, cs_graph_meta *meta)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_config cfg;
    make_cfg(&ctx, &cfg, sets);
    cs_err rc = cs_import_read(&ctx, &cfg, g, meta);
    ck_assert_msg(rc == CS_OK, "import failed: %s", ctx.errmsg);
}

/* Imports and expects code with a message containing every NULL-terminated pattern. */
static void read_fails(const char *const *sets, cs_err code, const char *const *patterns)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_config cfg;
    make_cfg(&ctx, &cfg, sets);
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_err rc = cs_import_read(&ctx, &cfg, &g, &meta);
    ck_assert_msg(rc == code, "expected %s, got %s (%s)", cs_strerror(code), cs_strerror(rc),
                  ctx.errmsg);
    for (; *patterns != NULL; patterns++)
        ck_assert_msg(strstr(ctx.errmsg, *patterns) != NULL, "message '%s' lacks '%s'", ctx.errmsg,
                      *patterns);
    for (const char *c = ctx.errmsg; *c != '\0'; c++)
        ck_assert_msg((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f,
                      "non-printable byte 0x%02x in the message", (unsigned char)*c);
}

/* Links of page i as "a b c" into out. */
static void links_of(const cs_graph_slice *g, int64_t i, char *out, size_t size)
{
    out[0] = '\0';
    size_t at = 0;
    for (int64_t k = g->offsets[i]; k < g->offsets[i + 1]; k++)
        at += (size_t)snprintf(out + at, size - at, "%s%lld", k > g->offsets[i] ? " " : "",
                               (long long)g->targets[k]);
}

START_TEST(ids_beyond_an_inferred_count)
{
    /* adjacency-indexed: 3 lines are 3 pages; a target of 5000000 on line 2 is a typo */
    write_text("idx.txt", "1 1\n2 0 5000000\n0\n");
    read_fails((const char *const[]){"import.edges=idx.txt", "import.edge_format=adjacency-indexed",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT, (const char *const[]){"idx.txt:2:", "5000000", "node count 3", NULL});
    /* the same with new_ids = allow makes the pages */
    cs_graph_slice g;
    cs_graph_meta meta;
    write_text("idx2.txt", "1 1\n2 0 7\n0\n");
    read_ok((const char *const[]){"import.edges=idx2.txt", "import.edge_format=adjacency-indexed",
                                  "import.hosts=per-page", "import.new_ids=allow", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 8);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
}
END_TEST

START_TEST(ids_beyond_a_declared_count)
{
    write_text("pairs.txt", "0 1\n1 2\n2 99\n");
    read_fails((const char *const[]){"import.edges=pairs.txt", "import.node_count=50",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"pairs.txt:3:", "node id 99", "node count 50", NULL});
    /* id_base 1: the id is named as written */
    write_text("pairs1.txt", "1 2\n3 51\n");
    read_fails((const char *const[]){"import.edges=pairs1.txt", "import.node_count=50",
                                     "import.id_base=1", "import.hosts=per-page", NULL},
               CS_ERR_FORMAT, (const char *const[]){"pairs1.txt:2:", "node id 51", NULL});
    /* a declared count makes pages without links */
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=pairs.txt", "import.node_count=100",
                                  "import.hosts=per-page", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 100);
    ck_assert_int_eq(g.n_links_total, 3);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
}
END_TEST

/* A node id of 2e9 in a pairs file (no count to check it against) asks for 2e9 pages: the
 * failure names the file and line of that id. Address space is capped at 1 GiB in this forked
 * test so that the allocation fails whatever the machine has. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHECK_IMPORT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHECK_IMPORT_SANITIZED 1
#endif
#endif

START_TEST(memory_failure_names_the_input)
{
#ifdef CHECK_IMPORT_SANITIZED
    /* AddressSanitizer and ThreadSanitizer reserve terabytes of shadow memory and abort when
     * their allocators meet the address-space limit: this case runs in the plain build only */
    printf("memory_failure_names_the_input: not run under a sanitizer\n");
    return;
#endif
    write_text("huge.txt", "0 1\n1 2000000000\n2 0\n");
    struct rlimit lim = {(rlim_t)1 << 30, (rlim_t)1 << 30};
    ck_assert(setrlimit(RLIMIT_AS, &lim) == 0);
    read_fails((const char *const[]){"import.edges=huge.txt", "import.hosts=per-page", NULL},
               CS_ERR_NOMEM,
               (const char *const[]){"out of memory", "2000000001 pages", "huge.txt:2",
                                     "2000000000", NULL});
}
END_TEST

START_TEST(binary_graph_file_read_as_text)
{
    static const char bv[] = {'\x5b', '\x9c', '\x01', '\xe7', '\x1b', '\x0a', '\x41', '\x42'};
    write_file("web.graph", bv, sizeof bv);
    read_fails((const char *const[]){"import.edges=web.graph", "import.edge_format=adjacency",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"web.graph:1:", "binary data (byte 0x01", "not a text file",
                                     "edge_format = bvgraph", NULL});
    /* bytes >= 0x80 alone (UTF-8 names) are text; DEL is not */
    static const char del[] = {'0', ' ', '1', '\n', '1', ' ', '\x7f', '\n'};
    write_file("del.txt", del, sizeof del);
    read_fails((const char *const[]){"import.edges=del.txt", "import.hosts=per-page", NULL},
               CS_ERR_FORMAT, (const char *const[]){"del.txt:2:", "byte 0x7f", NULL});
}
END_TEST

START_TEST(webgraph_text_export)
{
    /* WebGraph's text export of 0 -> {1, 2}, 1 -> {}, 2 -> {0}, 3 -> {0, 1}: line i lists page
     * i's successors. Read as adjacency, "1 2" would be a link 1 -> 2 and page 0 would vanish:
     * the repeated source 0 (lines 3 and 4) is refused, pointing to successors. */
    write_text("succ.txt", "1 2\n\n0\n0 1\n");
    read_fails((const char *const[]){"import.edges=succ.txt", "import.edge_format=adjacency",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"succ.txt:4:", "source '0' already had its line",
                                     "edge_format = successors", NULL});
    static const char *const want[4] = {"1 2", "", "0", "0 1"};
    char got[64];
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=succ.txt", "import.edge_format=successors",
                                  "import.hosts=per-page", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 4);
    for (int i = 0; i < 4; i++) {
        links_of(&g, i, got, sizeof got);
        ck_assert_str_eq(got, want[i]);
    }
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);

    /* ASCIIGraph: the node count first; 5 nodes, the last without a line */
    write_text("ascii.txt", "5\n1 2\n\n0\n0 1\n");
    read_ok((const char *const[]){"import.edges=ascii.txt", "import.edge_format=asciigraph",
                                  "import.hosts=per-page", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 5);
    ck_assert_int_eq(g.n_links_total, 5);
    for (int i = 0; i < 4; i++) {
        links_of(&g, i, got, sizeof got);
        ck_assert_str_eq(got, want[i]);
    }
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    write_text("ascii_bad.txt", "4\n1 2\n\n0 4\n");
    read_fails((const char *const[]){"import.edges=ascii_bad.txt", "import.edge_format=asciigraph",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"ascii_bad.txt:4:", "node id 4", "node count 4", NULL});
    /* successors: ids beyond the number of lines */
    write_text("succ_bad.txt", "1\n7\n");
    read_fails((const char *const[]){"import.edges=succ_bad.txt", "import.edge_format=successors",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT, (const char *const[]){"succ_bad.txt:2:", "node id 7", NULL});
}
END_TEST

START_TEST(page_tables_trimmed_and_split_like_edges)
{
    /* tab-separated with padding: no trailing spaces in host names */
    write_text("e.txt", "0 1\n1 2\n");
    write_text("hosts.tsv", "0\ta.example.org  \n1\t  b.example.org\t\n2\ta.example.org\n");
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=e.txt", "import.pages=hosts.tsv",
                                  "import.page_separators=\\t", "import.page_host_field=1",
                                  "import.hosts=field", NULL},
            &g, &meta);
    ck_assert_int_eq(meta.n_hosts, 2);
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 0), "a.example.org");
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 1), "b.example.org");
    ck_assert_int_eq(g.host[2], 0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    /* by default a page table splits on blanks and tabs, as the edge file does */
    write_text("hosts.txt", "0 a.example.org\n1\tb.example.org\n2 c.example.org\n");
    read_ok((const char *const[]){"import.edges=e.txt", "import.pages=hosts.txt",
                                  "import.page_host_field=1", "import.hosts=field", NULL},
            &g, &meta);
    ck_assert_int_eq(meta.n_hosts, 3);
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 1), "b.example.org");
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
}
END_TEST

/* Relevance from a page-table column: numbers in [0, 1], a page's first line, 0 without one;
 * anything else is an error naming the file and line; not together with target_label. */
START_TEST(relevance_from_a_column)
{
    write_text("re.txt", "0 1\n1 2\n2 3\n");
    write_text("scores.txt", "0 x.org 0.25\n2 y.org 1\n0 x.org 0.9\n1 z.org 0\n");
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=re.txt", "import.pages=scores.txt",
                                  "import.page_relevance_field=2", "import.hosts=per-page", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 4);
    ck_assert(g.relevance[0] == 0.25 && g.relevance[1] == 0.0 && g.relevance[2] == 1.0 &&
              g.relevance[3] == 0.0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    write_text("scores_bad.txt", "0 x.org 0.5\n1 y.org 1.5\n");
    read_fails((const char *const[]){"import.edges=re.txt", "import.pages=scores_bad.txt",
                                     "import.page_relevance_field=-1", "import.hosts=per-page",
                                     NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"scores_bad.txt:2:", "'1.5' is not a relevance", NULL});
    read_fails((const char *const[]){"import.edges=re.txt", "import.pages=scores.txt",
                                     "import.page_relevance_field=2", "import.page_label_field=1",
                                     "import.target_label=x.org", "import.hosts=per-page", NULL},
               CS_ERR_CONFIG, (const char *const[]){"page_relevance_field", NULL});
}
END_TEST

/* Companion files: LAW's .urls (gzip; line i is page i's URL) give pages hosts; Common
 * Crawl's reversed host names ("com.example.www") are turned back; more URL lines than the
 * graph has nodes is an error naming the file and line. */
START_TEST(companion_files)
{
    write_text("law.txt", "1 2\n\n0\n");
    char cmd[512];
    snprintf(
        cmd, sizeof cmd,
        "printf 'http://a.org/x\\nhttp://B.org/\\nhttp://a.org/y\\n' | gzip > '%s/law.urls.gz'",
        tmpdir);
    ck_assert(system(cmd) == 0);
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=law.txt", "import.edge_format=successors",
                                  "import.pages=law.urls.gz", "import.page_ids=line",
                                  "import.page_url_field=0", "import.hosts=url", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 3);
    ck_assert_int_eq(meta.n_hosts, 2);
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 0), "a.org");
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 1), "b.org");
    ck_assert(g.host[0] == 0 && g.host[1] == 1 && g.host[2] == 0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    write_text("law4.urls", "http://a.org/x\nhttp://b.org/\nhttp://a.org/y\nhttp://c.org/\n");
    read_fails((const char *const[]){"import.edges=law.txt", "import.edge_format=successors",
                                     "import.pages=law4.urls", "import.page_ids=line",
                                     "import.page_url_field=0", "import.hosts=url", NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"law4.urls:4:", "page 3 is beyond the node count 3", NULL});

    /* Common Crawl: a vertex list "id<TAB>reversed host" */
    write_text("cc.txt", "0 1\n1 2\n2 0\n");
    write_text("cc.vertices", "0\tcom.example.www\n1\torg.example\n2\tuk.co.bbc.news\n");
    read_ok((const char *const[]){"import.edges=cc.txt", "import.pages=cc.vertices",
                                  "import.page_host_field=1", "import.hosts=field",
                                  "import.host_names=reversed", NULL},
            &g, &meta);
    ck_assert_int_eq(meta.n_hosts, 3);
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 0), "www.example.com");
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 1), "example.org");
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 2), "news.bbc.co.uk");
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    /* a host graph named by reversed hosts */
    write_text("ccn.txt", "com.example.www org.example\norg.example com.example.www\n");
    read_ok((const char *const[]){"import.edges=ccn.txt", "import.node_ids=name",
                                  "import.hosts=node", "import.host_names=reversed", NULL},
            &g, &meta);
    ck_assert_int_eq(meta.n_hosts, 2);
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 0), "www.example.com");
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
}
END_TEST

/* A wildcard stands for the files it matches, in sorted order (adjacency-indexed pages number
 * across them); plain and gzip parts mix; a wildcard matching nothing is an error. */
START_TEST(globs)
{
    write_text("part-1.txt", "2 1 2\n0\n");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "printf '1 0\\n1 4\\n0\\n' | gzip > '%s/part-2.txt.gz'", tmpdir);
    ck_assert(system(cmd) == 0);
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=part-*", "import.edge_format=adjacency-indexed",
                                  "import.hosts=per-page", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 5);
    char got[64];
    links_of(&g, 0, got, sizeof got);
    ck_assert_str_eq(got, "1 2");
    links_of(&g, 2, got, sizeof got);
    ck_assert_str_eq(got, "0");
    links_of(&g, 3, got, sizeof got);
    ck_assert_str_eq(got, "4");
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    read_fails((const char *const[]){"import.edges=nothing-*.txt", "import.hosts=per-page", NULL},
               CS_ERR_IO, (const char *const[]){"nothing-*.txt: no file matches", NULL});
}
END_TEST

/* GML as classic datasets ship it (the political blogs: a URL-like label and a 0/1 value per
 * node; ids from 1): pages in node order, hosts from the URL attribute, topics and relevance
 * from the value attribute; an undirected graph links both ways; an edge to an undeclared node
 * is an error naming the file and line. */
START_TEST(gml)
{
    write_text("blogs.gml",
               "Creator \"test\"\ngraph\n[\n  directed 1\n"
               "  node [ id 1 label \"http://a.blogspot.com\" value 0 source \"x y\" ]\n"
               "  node\n  [\n    id 3\n    label \"www.b.org/blog\"\n    value 1\n  ]\n"
               "  node [ id 2 label \"http://a.blogspot.com/2\" value 1 ]\n"
               "  edge [ source 1 target 3 ]\n  edge [ source 3 target 2 value 1 ]\n"
               "  edge [ source 2 target 2 ]\n]\n");
    cs_graph_slice g;
    cs_graph_meta meta;
    read_ok((const char *const[]){"import.edges=blogs.gml", "import.edge_format=gml",
                                  "import.gml_label=value", "import.gml_url=label",
                                  "import.target_label=1", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_pages_total, 3);
    ck_assert_int_eq(g.n_links_total, 2);
    char got[64];
    links_of(&g, 0, got, sizeof got);
    ck_assert_str_eq(got, "1");
    links_of(&g, 1, got, sizeof got);
    ck_assert_str_eq(got, "2");
    ck_assert_int_eq(meta.n_hosts, 2);
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 0), "a.blogspot.com");
    ck_assert_str_eq(cs_graph_meta_host_name(&meta, 1), "www.b.org");
    ck_assert(g.host[2] == 0 && g.relevance[0] == 0.0 && g.relevance[1] == 1.0 &&
              g.relevance[2] == 1.0);
    ck_assert(g.topic[0] == 0 && g.topic[1] == 1 && meta.target_topic == 1);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    write_text("undirected.gml",
               "graph [ node [ id 0 ] node [ id 1 ] edge [ source 0 target 1 ] ]\n");
    read_ok((const char *const[]){"import.edges=undirected.gml", "import.edge_format=gml",
                                  "import.hosts=per-page", NULL},
            &g, &meta);
    ck_assert_int_eq(g.n_links_total, 2);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    write_text("bad.gml", "graph [\n node [ id 0 ]\n edge [ source 0 target 7 ]\n]\n");
    read_fails((const char *const[]){"import.edges=bad.gml", "import.edge_format=gml",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT,
               (const char *const[]){"bad.gml:3:", "target is no node of the file", "'7'", NULL});
    write_text("open.gml", "graph [\n node [ id 0 label \"x\n ]\n]\n");
    read_fails((const char *const[]){"import.edges=open.gml", "import.edge_format=gml",
                                     "import.hosts=per-page", NULL},
               CS_ERR_FORMAT, (const char *const[]){"open.gml:2:", "not closed", NULL});
}
END_TEST

/* The dropped self-loops and merged duplicates are on stderr at the default level (INFO). */
START_TEST(changes_reported_by_default)
{
    write_text("dup.txt", "0 1\n0 1\n1 1\n2 2\n2 0\n");
    char log[256];
    snprintf(log, sizeof log, "%s/log.txt", tmpdir);
    ck_assert(freopen(log, "w", stderr) != NULL);
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_INFO);
    cs_config cfg;
    make_cfg(&ctx, &cfg,
             (const char *const[]){"import.edges=dup.txt", "import.hosts=per-page", NULL});
    cs_graph_slice g;
    cs_graph_meta meta;
    ck_assert(cs_import_read(&ctx, &cfg, &g, &meta) == CS_OK);
    fflush(stderr);
    FILE *f = fopen(log, "r");
    ck_assert(f != NULL);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert_msg(strstr(buf, "2 self-loops dropped, 1 duplicate link merged") != NULL, "log: %s",
                  buf);
    ck_assert_int_eq(g.n_links_total, 2);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
}
END_TEST

static void rm_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/crawlsim-check-import-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("issue19");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ids_beyond_an_inferred_count);
    tcase_add_test(tc, ids_beyond_a_declared_count);
    tcase_add_test(tc, memory_failure_names_the_input);
    tcase_add_test(tc, binary_graph_file_read_as_text);
    tcase_add_test(tc, webgraph_text_export);
    tcase_add_test(tc, page_tables_trimmed_and_split_like_edges);
    tcase_add_test(tc, changes_reported_by_default);
    tcase_add_test(tc, relevance_from_a_column);
    tcase_add_test(tc, companion_files);
    tcase_add_test(tc, globs);
    tcase_add_test(tc, gml);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    rm_dir(tmpdir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
