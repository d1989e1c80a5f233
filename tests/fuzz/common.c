/*
 * Shared by the harnesses (common.h): the serial context, the temporary folder, the check that
 * an error comes with its message.
 */
#include "common.h"

#include "crawlsim/config.h"
#include "crawlsim/import.h"

#include <math.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the harness's folder, "" until made; files are removed with it at exit */
static char fuzz_dir[PATH_MAX];
static char fuzz_path[8][PATH_MAX];
static char fuzz_name[8][64];
static int fuzz_n;

static void fuzz_cleanup(void)
{
    for (int i = 0; i < fuzz_n; i++)
        unlink(fuzz_path[i]);
    if (fuzz_dir[0] != '\0')
        rmdir(fuzz_dir);
}

void fuzz_ctx(cs_ctx *ctx)
{
    cs_ctx_init_local(ctx, CS_LOG_ERROR);
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    if (fuzz_dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/crawlsim-fuzz-XXXXXX",
                 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
        if (mkdtemp(fuzz_dir) == NULL) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_cleanup);
    }
    int k = 0;
    while (k < fuzz_n && strcmp(fuzz_name[k], name) != 0)
        k++;
    if (k == fuzz_n) {
        if (fuzz_n == 8 || strlen(name) >= sizeof fuzz_name[0]) {
            fprintf(stderr, "fuzz: too many or too long file names\n");
            abort();
        }
        snprintf(fuzz_name[k], sizeof fuzz_name[k], "%s", name);
        snprintf(fuzz_path[k], sizeof fuzz_path[k], "%s/%s", fuzz_dir, name);
        fuzz_n++;
    }
    FILE *f = fopen(fuzz_path[k], "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("fuzz: writing the input file");
        abort();
    }
    return fuzz_path[k];
}

char *fuzz_strdup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    if (size > 0)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

int fuzz_any_number_above(const uint8_t *data, size_t size, uint64_t max)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] >= '0' && data[i] <= '9') {
            v = v * 10 + (uint64_t)(data[i] - '0');
            if (v > max)
                return 1;
        } else {
            v = 0;
        }
    }
    return 0;
}

void fuzz_check_error(const cs_ctx *ctx, cs_err rc, const char *what)
{
    /* CRAWLSIM_FUZZ_VERBOSE=1 prints every outcome: to see what a corpus case reaches */
    const char *verbose = getenv("CRAWLSIM_FUZZ_VERBOSE");
    if (verbose != NULL && verbose[0] == '1')
        fprintf(stderr, "fuzz: %s: %s%s%s\n", what, cs_errname(rc), rc != CS_OK ? ": " : "",
                rc != CS_OK ? ctx->errmsg : "");
    if (rc != CS_OK && ctx->errmsg[0] == '\0') {
        fprintf(stderr, "fuzz: %s failed with %s and no message\n", what, cs_errname(rc));
        abort();
    }
}

/* s with "{0}" and "{1}" replaced by files[0] and files[1], into out (aborts when too long) */
static void substitute(const char *s, const char *const files[2], char *out, size_t size)
{
    size_t j = 0;
    for (; *s != '\0'; s++) {
        const char *put = NULL;
        if (s[0] == '{' && (s[1] == '0' || s[1] == '1') && s[2] == '}') {
            put = files[s[1] - '0'];
            s += 2;
        }
        size_t l = put != NULL ? strlen(put) : 1;
        if (j + l >= size)
            abort();
        memcpy(out + j, put != NULL ? put : s, l);
        j += l;
    }
    out[j] = '\0';
}

cs_err fuzz_import(const char *const *sets, const char *const files[2])
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    cs_config *cfg = malloc(sizeof *cfg);
    if (cfg == NULL)
        abort();
    cs_config_defaults(cfg);
    for (int i = 0; sets[i] != NULL; i++) {
        char set[2 * PATH_MAX];
        substitute(sets[i], files, set, sizeof set);
        if (cs_config_set(&ctx, cfg, set, "fuzz") != CS_OK) {
            fprintf(stderr, "fuzz: setting %s: %s\n", set, ctx.errmsg);
            abort();
        }
    }
    cs_graph_slice g;
    cs_graph_meta meta;
    cs_err rc = cs_import_read(&ctx, cfg, &g, &meta);
    fuzz_check_error(&ctx, rc, "cs_import_read");
    if (rc == CS_OK)
        fuzz_check_graph(&g, &meta);
    cs_graph_slice_fini(&g);
    cs_graph_meta_fini(&meta);
    free(cfg);
    return rc;
}

static void broken(const char *what, int64_t i)
{
    fprintf(stderr, "fuzz: the imported graph breaks its invariants: %s (at %lld)\n", what,
            (long long)i);
    abort();
}

void fuzz_check_graph(const cs_graph_slice *g, const cs_graph_meta *m)
{
    const int64_t n = g->n;
    if (g->first != 0 || n != g->n_pages_total || n <= 0)
        broken("not the whole graph, or no page", n);
    if (g->offsets[0] != 0 || g->offsets[n] != g->n_links_total)
        broken("offsets do not run from 0 to the link count", n);
    if (m->n_hosts != g->n_hosts || m->n_topics != g->n_topics)
        broken("host or topic counts differ between slice and meta", 0);
    if (m->target_topic < -1 || m->target_topic >= m->n_topics)
        broken("target topic out of range", m->target_topic);
    for (int64_t p = 0; p < n; p++) {
        if (g->offsets[p + 1] < g->offsets[p])
            broken("offsets decrease", p);
        for (int64_t k = g->offsets[p]; k < g->offsets[p + 1]; k++) {
            if (g->targets[k] < 0 || g->targets[k] >= n)
                broken("link target out of range", p);
            if (k > g->offsets[p] && g->targets[k] <= g->targets[k - 1])
                broken("links not sorted or duplicated", p);
        }
        if (g->host[p] < 0 || g->host[p] >= g->n_hosts)
            broken("host out of range", p);
        if (g->topic[p] < -1 || g->topic[p] >= g->n_topics)
            broken("topic out of range", p);
        if (!(g->relevance[p] >= 0.0 && g->relevance[p] <= 1.0))
            broken("relevance outside [0, 1]", p);
        if (!(g->delta[p] > 0.0 && isfinite(g->delta[p])))
            broken("change rate not positive and finite", p);
        if (!(g->mu[p] > 0.0 && isfinite(g->mu[p])))
            broken("importance not positive and finite", p);
        if (g->observable[p] > 1)
            broken("observable neither 0 nor 1", p);
        if (g->term_offsets != NULL) {
            if (g->term_offsets[p + 1] < g->term_offsets[p])
                broken("feature offsets decrease", p);
            for (int64_t k = g->term_offsets[p]; k < g->term_offsets[p + 1]; k++)
                if (g->term_index[k] < 0 || g->term_index[k] >= g->term_dim ||
                    !isfinite(g->term_value[k]))
                    broken("feature index out of range or value not finite", p);
        }
    }
}
