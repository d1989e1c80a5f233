/*
 * Unit tests of the BVGraph decoder (src/import/import_bvgraph.c).
 *
 * Round trips: random graphs with the locality of web graphs (copied neighbour lists,
 * consecutive runs, scattered successors before and after the node, empty lists) written by
 * the test-only writer (bvgraph_writer.h) under parameter sets that together use every code
 * for every component (gamma, delta, zeta_k for k = 1..5, nibble, unary), windows 0 to 16,
 * maximum reference counts 1, 3 and unbounded (long chains, decoded on demand without recursion),
 * minimum interval lengths 0 (none), 2, 4 and 6, with and without an .offsets file and without a
 * properties file; each must decode to the same lists, through the parallel decoder's node ranges
 * (which start mid-graph, so lists referenced from before a range are decoded on demand). Damaged
 * input (a truncated stream, a properties file with the wrong zeta k, an unknown flag, a foreign
 * offsets file) is an error naming the file, never a crash. `crawlsim import` with edge_format =
 * bvgraph gives the graph.
 *
 * With the argument "datasets": uk-2007-05@100000 of $CRAWLSIM_DATASETS/law-webgraph (LAW's
 * original .graph and .properties) decodes to exactly the lists of its decoded adjacency list
 * (.adj.gz, made independently): node and arc counts, a checksum, and every list. Exit 77
 * (skipped) when a file is missing.
 */
#include "bvgraph_writer.h"
#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/import.h"
#include "crawlsim/slice.h"
#include "import/import_bvgraph.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[64];

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t z = *s;
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdull;
    return z ^ (z >> 33);
}

/* A random graph of n nodes with web-like locality, as CSR (caller frees). */
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
        if (kind == 0) /* empty list */
            continue;
        if (kind < 6 && x > 0) { /* a neighbour's list, perturbed */
            int64_t y = x - 1 - (int64_t)(rnd(&s) % (uint64_t)(x < 12 ? x : 12));
            for (int64_t k = off[y]; k < off[y + 1]; k++)
                if (rnd(&s) % 5 != 0)
                    cand[nc++] = tgt[k];
        }
        if (rnd(&s) % 2) { /* a run of consecutive ids near x */
            int64_t len = (int64_t)(rnd(&s) % 12), at = x - 20 + (int64_t)(rnd(&s) % 40);
            for (int64_t j = 0; j < len; j++)
                if (at + j >= 0 && at + j < n)
                    cand[nc++] = (int32_t)(at + j);
        }
        int64_t scatter = (int64_t)(rnd(&s) % 6);
        for (int64_t j = 0; j < scatter; j++) /* far and near, below and above x */
            cand[nc++] = (int32_t)(j % 2 ? rnd(&s) % (uint64_t)n
                                         : (uint64_t)((x + n - 50 + (int64_t)(rnd(&s) % 100)) % n));
        if (x % 97 == 0)
            cand[nc++] = (int32_t)(n - 1);
        for (int64_t j = 0; j < nc; j++)
            if (!mark[cand[j]] && m < cap) {
                mark[cand[j]] = 1;
                tgt[m++] = cand[j];
            }
        for (int64_t k = off[x]; k < m; k++)
            mark[tgt[k]] = 0;
        /* sort this list (insertion: short lists) */
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

typedef struct pset {
    int window, maxref, minint, zetak;
    cs_bv_code od, ref, bc, bl, res, ofs;
    int props, flags, offsets;
} pset;

/* Together: every code for every component, windows, chains, intervals, files. */
static const pset psets[] = {
    /* WebGraph's defaults, empty compressionflags, sequential pass for the offsets */
    {7, 3, 4, 3, CS_BV_GAMMA, CS_BV_UNARY, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_ZETA, CS_BV_GAMMA, 1, 0,
     0},
    /* the defaults again, with an offsets file */
    {7, 3, 4, 3, CS_BV_GAMMA, CS_BV_UNARY, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_ZETA, CS_BV_GAMMA, 1, 1,
     1},
    {1, 1, 2, 1, CS_BV_DELTA, CS_BV_GAMMA, CS_BV_DELTA, CS_BV_DELTA, CS_BV_ZETA, CS_BV_DELTA, 1, 1,
     1},
    {3, -1, 0, 2, CS_BV_ZETA, CS_BV_DELTA, CS_BV_UNARY, CS_BV_NIBBLE, CS_BV_NIBBLE, CS_BV_GAMMA, 1,
     1, 1},
    /* window 1, unbounded chains: ranges start deep inside long reference chains */
    {1, -1, 3, 2, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_DELTA, CS_BV_ZETA, CS_BV_GAMMA, 1, 1,
     0},
    {16, 1000, 6, 5, CS_BV_NIBBLE, CS_BV_ZETA, CS_BV_NIBBLE, CS_BV_ZETA, CS_BV_DELTA, CS_BV_DELTA,
     1, 1, 0},
    {0, 3, 4, 4, CS_BV_UNARY, CS_BV_UNARY, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_GAMMA, 1, 1,
     1},
    {5, 2, 2, 3, CS_BV_GAMMA, CS_BV_NIBBLE, CS_BV_ZETA, CS_BV_UNARY, CS_BV_UNARY, CS_BV_ZETA, 1, 1,
     1},
    {2, 1, 3, 1, CS_BV_ZETA, CS_BV_ZETA, CS_BV_DELTA, CS_BV_GAMMA, CS_BV_ZETA, CS_BV_NIBBLE, 1, 1,
     1},
    /* no properties file: WebGraph's defaults, the node count from the caller */
    {7, 3, 4, 3, CS_BV_GAMMA, CS_BV_UNARY, CS_BV_GAMMA, CS_BV_GAMMA, CS_BV_ZETA, CS_BV_GAMMA, 0, 0,
     0},
};

static void to_params(const pset *q, int64_t n, cs_bv_params *p)
{
    cs_bv_params_default(p);
    p->nodes = n;
    p->window = q->window;
    p->maxref = q->maxref;
    p->minint = q->minint;
    p->zetak = q->zetak;
    p->outdegrees = q->od;
    p->references = q->ref;
    p->block_count = q->bc;
    p->blocks = q->bl;
    p->residuals = q->res;
    p->offsets = q->ofs;
}

START_TEST(round_trips)
{
    const int64_t n = 3000;
    const int i = _i;
    const pset *q = &psets[i];
    int64_t *off, *doff = NULL;
    int32_t *tgt, *dtgt = NULL;
    make_graph(n, 1000 + (uint64_t)i, &off, &tgt);
    cs_bv_params p;
    to_params(q, n, &p);
    char base[256], gpath[300];
    snprintf(base, sizeof base, "%s/g%d", tmpdir, i);
    snprintf(gpath, sizeof gpath, "%s.graph", base);
    bw_stats st = bw_write(base, n, off, tgt, &p, q->props, q->flags, q->offsets, (uint64_t)i);
    /* the encoding used what this set is about */
    if (q->window > 0 && q->maxref != 0)
        ck_assert_msg(st.refs > n / 10, "set %d: only %lld references", i, (long long)st.refs);
    if (q->minint > 0)
        ck_assert_msg(st.intervals > 100, "set %d: only %lld intervals", i,
                      (long long)st.intervals);
    ck_assert_msg(st.residuals > 1000, "set %d: only %lld residuals", i, (long long)st.residuals);
    if (q->maxref < 0)
        printf("set %d: longest reference chain %lld\n", i, (long long)st.longest_chain);
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    int64_t dn = 0;
    cs_err rc = cs_bv_read_graph(&ctx, gpath, q->props ? 0 : n, &dn, &doff, &dtgt);
    ck_assert_msg(rc == CS_OK, "set %d: %s", i, ctx.errmsg);
    ck_assert_int_eq(dn, n);
    ck_assert_int_eq(doff[n], off[n]);
    int64_t bad_off = -1, bad_arc = -1;
    for (int64_t x = n; x >= 0; x--)
        if (doff[x] != off[x])
            bad_off = x;
    for (int64_t k = off[n] - 1; k >= 0; k--)
        if (dtgt[k] != tgt[k])
            bad_arc = k;
    ck_assert_msg(bad_off < 0, "set %d: node %lld: offset %lld, want %lld", i, (long long)bad_off,
                  (long long)doff[bad_off < 0 ? 0 : bad_off],
                  (long long)off[bad_off < 0 ? 0 : bad_off]);
    ck_assert_msg(bad_arc < 0, "set %d: first wrong arc %lld", i, (long long)bad_arc);
    free(off);
    free(tgt);
    free(doff);
    free(dtgt);
}
END_TEST

/* The writer's output is not trivially the decoder's input: a stream cut short, the wrong zeta
 * k, an unknown flag and another graph's offsets are errors with the file named. */
START_TEST(damaged_input)
{
    const int64_t n = 2000;
    int64_t *off, *doff = NULL;
    int32_t *tgt, *dtgt = NULL;
    make_graph(n, 77, &off, &tgt);
    cs_bv_params p;
    to_params(&psets[1], n, &p);
    char base[256], gpath[300], cmd[700];
    snprintf(base, sizeof base, "%s/dmg", tmpdir);
    snprintf(gpath, sizeof gpath, "%s.graph", base);
    bw_write(base, n, off, tgt, &p, 1, 1, 0, 5);
    cs_ctx ctx;
    int64_t dn;
    /* cut short */
    struct stat st;
    ck_assert(stat(gpath, &st) == 0);
    ck_assert(truncate(gpath, st.st_size / 2) == 0);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_err rc = cs_bv_read_graph(&ctx, gpath, 0, &dn, &doff, &dtgt);
    ck_assert_int_eq(rc, CS_ERR_FORMAT);
    ck_assert_msg(strstr(ctx.errmsg, "dmg.graph") && strstr(ctx.errmsg, "corrupt BVGraph data"),
                  "%s", ctx.errmsg);
    /* the wrong zeta k: decodes to garbage, caught */
    bw_write(base, n, off, tgt, &p, 1, 1, 0, 5);
    snprintf(cmd, sizeof cmd, "sed -i 's/^zetak=3/zetak=2/' '%s.properties'", base);
    ck_assert(system(cmd) == 0);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    rc = cs_bv_read_graph(&ctx, gpath, 0, &dn, &doff, &dtgt);
    ck_assert_int_eq(rc, CS_ERR_FORMAT);
    ck_assert_msg(strstr(ctx.errmsg, "dmg.graph"), "%s", ctx.errmsg);
    /* an unknown code */
    snprintf(cmd, sizeof cmd,
             "sed -i 's/^compressionflags=.*/compressionflags=RESIDUALS_GOLOMB/' '%s.properties'",
             base);
    ck_assert(system(cmd) == 0);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    rc = cs_bv_read_graph(&ctx, gpath, 0, &dn, &doff, &dtgt);
    ck_assert_int_eq(rc, CS_ERR_FORMAT);
    ck_assert_msg(strstr(ctx.errmsg, "dmg.properties:") && strstr(ctx.errmsg, "compressionflags"),
                  "%s", ctx.errmsg);
    /* a comment line longer than a line buffer: its tail is no key (8191 bytes filled the old
     * 8192-byte buffer, and the rest was read as nodes=5) */
    bw_write(base, n, off, tgt, &p, 1, 1, 0, 5);
    char ppath[300];
    snprintf(ppath, sizeof ppath, "%s.properties", base);
    FILE *pf = fopen(ppath, "a");
    ck_assert(pf != NULL);
    fputc('#', pf);
    for (int i = 0; i < 8190; i++)
        fputc('x', pf);
    fputs("nodes=5\n", pf);
    ck_assert(fclose(pf) == 0);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_bv_params lp;
    ck_assert_int_eq(cs_bv_read_properties(&ctx, ppath, &lp), CS_OK);
    ck_assert_int_eq(lp.nodes, n);
    /* offsets of another graph (a different seed) */
    bw_write(base, n, off, tgt, &p, 1, 1, 0, 5);
    int64_t *off2;
    int32_t *tgt2;
    make_graph(n, 78, &off2, &tgt2);
    char base2[300];
    snprintf(base2, sizeof base2, "%s/other", tmpdir);
    bw_write(base2, n, off2, tgt2, &p, 1, 1, 1, 6);
    snprintf(cmd, sizeof cmd, "cp '%s.offsets' '%s.offsets'", base2, base);
    ck_assert(system(cmd) == 0);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    rc = cs_bv_read_graph(&ctx, gpath, 0, &dn, &doff, &dtgt);
    ck_assert_msg(rc != CS_OK, "another graph's offsets accepted");
    ck_assert_msg(strstr(ctx.errmsg, "dmg"), "%s", ctx.errmsg);
    /* no properties and no node count */
    snprintf(cmd, sizeof cmd, "rm '%s.properties' '%s.offsets'", base, base);
    ck_assert(system(cmd) == 0);
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    rc = cs_bv_read_graph(&ctx, gpath, 0, &dn, &doff, &dtgt);
    ck_assert_int_eq(rc, CS_ERR_CONFIG);
    ck_assert_msg(strstr(ctx.errmsg, "node_count"), "%s", ctx.errmsg);
    free(off);
    free(tgt);
    free(off2);
    free(tgt2);
}
END_TEST

/* crawlsim import, edge_format = bvgraph: the same graph, self-loops dropped as configured. */
START_TEST(import_bvgraph)
{
    const int64_t n = 1500;
    int64_t *off;
    int32_t *tgt;
    make_graph(n, 99, &off, &tgt);
    int64_t self = 0;
    for (int64_t x = 0; x < n; x++)
        for (int64_t k = off[x]; k < off[x + 1]; k++)
            self += tgt[k] == x;
    cs_bv_params p;
    to_params(&psets[3], n, &p);
    char base[256];
    snprintf(base, sizeof base, "%s/imp", tmpdir);
    bw_write(base, n, off, tgt, &p, 1, 1, 1, 9);
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    cs_config cfg;
    cs_config_defaults(&cfg);
    snprintf(cfg.path, sizeof cfg.path, "%s/test.ini", tmpdir);
    snprintf(cfg.dir, sizeof cfg.dir, "%s", tmpdir);
    const char *sets[] = {"import.edges=imp.graph", "import.edge_format=bvgraph",
                          "import.hosts=per-page", NULL};
    for (const char *const *a = sets; *a != NULL; a++)
        ck_assert(cs_config_set(&ctx, &cfg, *a, "test") == CS_OK);
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_err rc = cs_import_read(&ctx, &cfg, &g, &meta);
    ck_assert_msg(rc == CS_OK, "%s", ctx.errmsg);
    ck_assert(self > 0);
    ck_assert_int_eq(g.n_pages_total, n);
    ck_assert_int_eq(g.n_links_total, off[n] - self);
    int64_t k2 = 0, differ = 0;
    for (int64_t x = 0; x < n; x++)
        for (int64_t k = off[x]; k < off[x + 1]; k++)
            if (tgt[k] != x)
                differ += g.targets[k2++] != tgt[k];
    ck_assert_int_eq(differ, 0);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    free(off);
    free(tgt);
}
END_TEST

/* ---- the real graph ---- */

static char ds_graph[1024], ds_adj[1024];

START_TEST(law_uk_2007_05_100000)
{
    cs_ctx ctx;
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
    int64_t n = 0, *off = NULL;
    int32_t *tgt = NULL;
    cs_err rc = cs_bv_read_graph(&ctx, ds_graph, 0, &n, &off, &tgt);
    ck_assert_msg(rc == CS_OK, "%s", ctx.errmsg);
    /* the decoded adjacency list: line i is "outdeg s_1 ... s_outdeg" */
    gzFile f = gzopen(ds_adj, "rb");
    ck_assert(f != NULL);
    gzbuffer(f, 1 << 20);
    static char line[1 << 20];
    /* Check's assertions cost a pipe write each in fork mode: count here, assert once below */
    int64_t x = 0, arcs = 0, differ = 0, bad_lines = 0, bad_degrees = 0;
    uint64_t sum_want = 0, sum_got = 0;
    while (gzgets(f, line, sizeof line) != NULL) {
        if (strchr(line, '\n') == NULL || x >= n) {
            bad_lines++;
            break;
        }
        char *p = line, *e;
        long long d = strtoll(p, &e, 10);
        p = e;
        if (d != off[x + 1] - off[x]) {
            if (bad_degrees++ == 0)
                fprintf(stderr, "node %lld: outdegree %lld, decoded %lld\n", (long long)x, d,
                        (long long)(off[x + 1] - off[x]));
            x++;
            continue;
        }
        for (long long j = 0; j < d; j++) {
            long long t = strtoll(p, &e, 10);
            bad_lines += e == p;
            p = e;
            int32_t got = tgt[off[x] + j];
            differ += got != t;
            sum_want = sum_want * 1000003u + (uint64_t)t + 1u + (uint64_t)x;
            sum_got = sum_got * 1000003u + (uint64_t)got + 1u + (uint64_t)x;
        }
        arcs += d;
        x++;
    }
    gzclose(f);
    printf("uk-2007-05@100000: %lld nodes, %lld arcs decoded; checksum %016llx (adjacency list "
           "%016llx)\n",
           (long long)n, (long long)off[n], (unsigned long long)sum_got,
           (unsigned long long)sum_want);
    ck_assert_int_eq(bad_lines, 0);
    ck_assert_int_eq(bad_degrees, 0);
    ck_assert_int_eq(x, n);
    ck_assert_int_eq(n, 100000);
    ck_assert_int_eq(off[n], arcs);
    ck_assert_int_eq(arcs, 3050615);
    ck_assert_msg(sum_got == sum_want, "checksums differ");
    ck_assert_int_eq(differ, 0);
    free(off);
    free(tgt);
}
END_TEST

static void rm_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
    int datasets = argc > 1 && strcmp(argv[1], "datasets") == 0;
    Suite *s = suite_create("bvgraph");
    TCase *tc = tcase_create(datasets ? "datasets" : "bvgraph");
    tcase_set_timeout(tc, 120);
    if (datasets) {
        const char *dir = getenv("CRAWLSIM_DATASETS");
        if (dir == NULL || dir[0] == '\0') {
            printf("CRAWLSIM_DATASETS is not set: skipped\n");
            return 77;
        }
        snprintf(ds_graph, sizeof ds_graph, "%s/law-webgraph/uk-2007-05_100000.graph", dir);
        snprintf(ds_adj, sizeof ds_adj, "%s/law-webgraph/uk-2007-05_100000.adj.gz", dir);
        const char *need[] = {ds_graph, ds_adj, NULL};
        char props[1100];
        snprintf(props, sizeof props, "%s/law-webgraph/uk-2007-05_100000.properties", dir);
        struct stat st;
        for (const char *const *q = need; *q != NULL; q++)
            if (stat(*q, &st) != 0) {
                printf("%s is missing: skipped\n", *q);
                return 77;
            }
        if (stat(props, &st) != 0) {
            printf("%s is missing: skipped\n", props);
            return 77;
        }
        tcase_add_test(tc, law_uk_2007_05_100000);
    } else {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/crawlsim-check-bvgraph-XXXXXX");
        if (mkdtemp(tmpdir) == NULL) {
            perror("mkdtemp");
            return EXIT_FAILURE;
        }
        tcase_add_loop_test(tc, round_trips, 0, (int)(sizeof psets / sizeof psets[0]));
        tcase_add_test(tc, damaged_input);
        tcase_add_test(tc, import_bvgraph);
    }
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!datasets)
        rm_dir(tmpdir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
