/*
 * crawlsim schedule's input: the page table CSV (id, mu, delta, complete), read whole and checked
 * on rank 0 so that every error names its line (cmd_schedule_csv.h).
 */
#include "main/cmd_schedule_csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COLUMNS 64

void cs_schedule_table_fini(cs_schedule_table *t)
{
    free(t->buf);
    free(t->ids);
    free(t->line);
    free(t->mu);
    free(t->delta);
    free(t->complete);
    memset(t, 0, sizeof *t);
}

/* Local. The whole file into a NUL-terminated buffer. */
static cs_err read_all(cs_ctx *ctx, const char *path, char **out, size_t *out_len)
{
    int fd = -1;
    {
        cs_err orc = cs_open_regular(ctx, path, "page table", &fd, NULL);
        if (orc != CS_OK)
            return orc;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return cs_fail(ctx, CS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    char *buf = NULL;
    size_t cap = 0, len = 0;
    cs_err rc = CS_OK;
    for (;;) {
        if (len + 65536 + 1 > cap &&
            (rc = cs_grow(ctx, &buf, &cap, len + 65536 + 1, 1, "input file")) != CS_OK)
            break;
        const size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = cs_fail(ctx, CS_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return CS_OK;
}

/* Splits line s (NUL-terminated, modified) at commas into trimmed fields; returns the count or
 * -1 when there are more than MAX_COLUMNS. */
static int split_fields(char *s, char **field)
{
    int nf = 0;
    for (;;) {
        char *end = strchr(s, ',');
        if (end != NULL)
            *end = '\0';
        if (nf == MAX_COLUMNS)
            return -1;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t l = strlen(s);
        while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
            s[--l] = '\0';
        field[nf++] = s;
        if (end == NULL)
            return nf;
        s = end + 1;
    }
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r')
            return 0;
    return 1;
}

/* A positive finite number, or an error naming the file, line and column. */
static cs_err parse_positive(cs_ctx *ctx, const char *path, int64_t line, const char *col,
                             const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    if (*s == '\0' || end == s || *end != '\0' || !isfinite(v))
        return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %s = '%s' is not a number", path,
                       (long long)line, col, s);
    if (!(v > 0.0))
        return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %s = %s must be > 0", path, (long long)line,
                       col, s);
    *out = v;
    return CS_OK;
}

typedef struct id_row {
    const char *id;
    int64_t row;
} id_row;

static int cmp_id_row(const void *pa, const void *pb)
{
    const id_row *a = pa, *b = pb;
    const int c = strcmp(a->id, b->id);
    return c != 0 ? c : (a->row > b->row) - (a->row < b->row);
}

/* The columns' places in a row, from the header. */
typedef struct columns {
    int id, mu, delta, complete;
} columns;

/* The header's nf fields (line lineno) into c: exactly id, mu, delta and complete, in any
 * order. */
static cs_err parse_header(cs_ctx *ctx, const char *path, int64_t lineno, char *const *field,
                           int nf, columns *c)
{
    c->id = c->mu = c->delta = c->complete = -1;
    for (int k = 0; k < nf; k++) {
        int *slot = strcmp(field[k], "id") == 0         ? &c->id
                    : strcmp(field[k], "mu") == 0       ? &c->mu
                    : strcmp(field[k], "delta") == 0    ? &c->delta
                    : strcmp(field[k], "complete") == 0 ? &c->complete
                                                        : NULL;
        if (slot == NULL)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "%s:%lld: unknown column '%s' (the header names exactly id, mu, "
                           "delta, complete, in any order)",
                           path, (long long)lineno, field[k]);
        if (*slot >= 0)
            return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: column '%s' appears twice", path,
                           (long long)lineno, field[k]);
        *slot = k;
    }
    const char *missing = c->id < 0         ? "id"
                          : c->mu < 0       ? "mu"
                          : c->delta < 0    ? "delta"
                          : c->complete < 0 ? "complete"
                                            : NULL;
    if (missing != NULL)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "%s:%lld: missing column '%s' (the header must name id, mu, delta, "
                       "complete)",
                       path, (long long)lineno, missing);
    return CS_OK;
}

/* Appends the row of line lineno (its fields, in the header's columns c) to t. */
static cs_err parse_row(cs_ctx *ctx, const char *path, int64_t lineno, char *const *field,
                        const columns *c, cs_schedule_table *t)
{
    cs_err rc;
    const int64_t i = t->n;
    const size_t need = (size_t)i + 1;
    CS_TRY(ctx, cs_grow(ctx, &t->ids, &t->cap_ids, need, sizeof *t->ids, "page ids"));
    CS_TRY(ctx, cs_grow(ctx, &t->line, &t->cap_line, need, sizeof *t->line, "line numbers"));
    CS_TRY(ctx, cs_grow(ctx, &t->mu, &t->cap_mu, need, sizeof *t->mu, "mu"));
    CS_TRY(ctx, cs_grow(ctx, &t->delta, &t->cap_delta, need, sizeof *t->delta, "delta"));
    CS_TRY(ctx, cs_grow(ctx, &t->complete, &t->cap_c, need, 1, "complete flags"));
    if (field[c->id][0] == '\0')
        return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: empty id", path, (long long)lineno);
    t->ids[i] = field[c->id];
    t->line[i] = lineno;
    CS_TRY(ctx, parse_positive(ctx, path, lineno, "mu", field[c->mu], &t->mu[i]));
    CS_TRY(ctx, parse_positive(ctx, path, lineno, "delta", field[c->delta], &t->delta[i]));
    const char *f = field[c->complete];
    if (strcmp(f, "1") == 0 || strcmp(f, "true") == 0)
        t->complete[i] = 1;
    else if (strcmp(f, "0") == 0 || strcmp(f, "false") == 0)
        t->complete[i] = 0;
    else
        return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: complete = '%s' is not 0, 1, true or false",
                       path, (long long)lineno, f);
    t->n++;
    return CS_OK;
fail:
    return rc;
}

/* Fails on an id that appears twice, naming both lines: sorts (id, row) and compares
 * neighbours. */
static cs_err check_duplicates(cs_ctx *ctx, const char *path, const cs_schedule_table *t)
{
    id_row *order = NULL;
    cs_err rc;
    CS_TRY(ctx, cs_alloc(ctx, &order, (size_t)t->n, sizeof *order, "id check"));
    for (int64_t i = 0; i < t->n; i++)
        order[i] = (id_row){t->ids[i], i};
    qsort(order, (size_t)t->n, sizeof *order, cmp_id_row);
    for (int64_t k = 1; k < t->n; k++)
        if (strcmp(order[k - 1].id, order[k].id) == 0)
            CS_TRY(ctx,
                   cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: duplicate id '%s' (first on line %lld)",
                           path, (long long)t->line[order[k].row], order[k].id,
                           (long long)t->line[order[k - 1].row]));
    rc = CS_OK;
fail:
    free(order);
    return rc;
}

cs_err cs_schedule_table_parse(cs_ctx *ctx, const char *path, char *text, size_t len,
                               cs_schedule_table *t)
{
    t->buf = text;
    if (memchr(text, '\0', len) != NULL)
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: not a text file (contains NUL bytes)", path);
    char *field[MAX_COLUMNS];
    columns cols;
    int ncol = 0;
    int64_t lineno = 0;
    char *p = t->buf;
    int have_header = 0;
    cs_err rc;
    while (*p != '\0') {
        /* lines end at LF, CRLF or a lone CR */
        char *nl = strpbrk(p, "\r\n");
        const size_t skip = nl == NULL ? 0 : nl[0] == '\r' && nl[1] == '\n' ? 2 : 1;
        if (nl != NULL)
            *nl = '\0';
        lineno++;
        char *line = p;
        p = nl != NULL ? nl + skip : p + strlen(p);
        if (is_blank(line))
            continue;
        if (strchr(line, '"') != NULL)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "%s:%lld: quoted fields are not supported (ids must not contain "
                           "commas or quotes)",
                           path, (long long)lineno);
        const int nf = split_fields(line, field);
        if (nf < 0)
            return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: more than %d fields", path,
                           (long long)lineno, MAX_COLUMNS);
        if (!have_header) {
            have_header = 1;
            ncol = nf;
            CS_TRY(ctx, parse_header(ctx, path, lineno, field, nf, &cols));
            continue;
        }
        if (nf != ncol)
            return cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %d fields, the header has %d", path,
                           (long long)lineno, nf, ncol);
        CS_TRY(ctx, parse_row(ctx, path, lineno, field, &cols, t));
    }
    if (!have_header)
        return cs_fail(ctx, CS_ERR_FORMAT,
                       "%s: empty file (expected a header id,mu,delta,complete and one row per "
                       "page)",
                       path);
    if (t->n == 0)
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: no pages after the header", path);
    return check_duplicates(ctx, path, t);
fail:
    return rc;
}

cs_err cs_schedule_table_read(cs_ctx *ctx, const char *path, cs_schedule_table *t)
{
    char *text = NULL;
    size_t len = 0;
    cs_err rc = read_all(ctx, path, &text, &len);
    if (rc != CS_OK)
        return rc;
    return cs_schedule_table_parse(ctx, path, text, len, t);
}
