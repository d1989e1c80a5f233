/*
 * config: parsing (inih), typed assignment with range checks, "did you mean" suggestions,
 * cross-key validation, broadcast from rank 0, and the generated option reference.
 */
#include "crawlsim/config.h"
#include "crawlsim/comm.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

size_t cs_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return la > lb ? la : lb;
    size_t prev[128], cur[128];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t m = sub < del ? sub : del;
            cur[j] = m < ins ? m : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

static const cs_conf_entry *find_entry(const char *section, const char *key)
{
    size_t n;
    const cs_conf_entry *s = cs_config_schema(&n);
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(s[i].section, section) == 0 && strcasecmp(s[i].key, key) == 0)
            return &s[i];
    return NULL;
}

/* The nearest "section.key" to what was written, or NULL if nothing is close. */
static const cs_conf_entry *nearest_entry(const char *section, const char *key)
{
    size_t n;
    const cs_conf_entry *s = cs_config_schema(&n);
    char want[300], have[300];
    snprintf(want, sizeof want, "%s.%s", section, key);
    const cs_conf_entry *best = NULL;
    size_t best_d = (size_t)-1, best_raw = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        snprintf(have, sizeof have, "%s.%s", s[i].section, s[i].key);
        size_t raw = cs_edit_distance(want, have), d = raw;
        /* A key that is right but in the wrong section is a near miss too (ties between such
         * keys, e.g. run.seed and gen.seed, go to the nearer section). */
        if (strcasecmp(s[i].key, key) == 0 && d > 1)
            d = 1;
        if (d < best_d || (d == best_d && raw < best_raw)) {
            best_d = d;
            best_raw = raw;
            best = &s[i];
        }
    }
    size_t len = strlen(want);
    return (best != NULL && best_d <= (len / 3 > 2 ? len / 3 : 2)) ? best : NULL;
}

static int parse_bool(const char *v, int *out)
{
    static const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = 1, 1;
        if (strcasecmp(v, no[i]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* Copies v into dst (capacity cap) turning the escapes \t, \n, \s (a space: blanks at either
 * end of a value are trimmed by the INI reader) and \\ into characters, and any other \X into X
 * (\; is a ';' that starts no inline comment). */
static int unescape(const char *v, char *dst, size_t cap)
{
    size_t j = 0;
    for (size_t i = 0; v[i] != '\0'; i++) {
        char c = v[i];
        if (c == '\\' && v[i + 1] != '\0') {
            char e = v[++i];
            c = e == 't' ? '\t' : e == 'n' ? '\n' : e == 's' ? ' ' : e;
        }
        if (j + 1 >= cap)
            return 0;
        dst[j++] = c;
    }
    dst[j] = '\0';
    return 1;
}

/* Assigns one value. `where` is "file:line" or "--set" for messages. */
static cs_err assign(cs_ctx *ctx, cs_config *cfg, const cs_conf_entry *e, const char *value,
                     const char *where)
{
    char *base = (char *)cfg + e->offset;
    switch (e->type) {
    case CS_CONF_INT: {
        char *end = NULL;
        errno = 0;
        /* Decimal only: 010 is ten (leading zeros are not octal), 0x10 is refused. */
        long long v = strtoll(value, &end, 10);
        if (end == value || *end != '\0' || errno != 0) {
            /* Accept integral floating forms such as 1e6 (but not hexadecimal ones, nor ones
             * out of a double's range: 1e-400 reads as 0 with ERANGE). */
            errno = 0;
            double d = strtod(value, &end);
            if (end == value || *end != '\0' || errno == ERANGE || strpbrk(value, "xX") != NULL ||
                d != floor(d) || fabs(d) > 9.2e18)
                return cs_fail(ctx, CS_ERR_CONFIG,
                               "%s: %s.%s = '%s' is not an integer (decimal digits, or a "
                               "form such as 1e6)",
                               where, e->section, e->key, value);
            v = (long long)d;
        }
        if ((double)v < e->min || (double)v > e->max)
            return cs_fail(ctx, CS_ERR_CONFIG, "%s: %s.%s = %lld is outside [%.17g, %.17g]", where,
                           e->section, e->key, v, e->min, e->max);
        memcpy(base, &(int64_t){(int64_t)v}, sizeof(int64_t));
        return CS_OK;
    }
    case CS_CONF_DOUBLE: {
        char *end = NULL;
        errno = 0;
        double v = strtod(value, &end);
        if (end == value || *end != '\0' || errno == ERANGE || !isfinite(v))
            return cs_fail(ctx, CS_ERR_CONFIG, "%s: %s.%s = '%s' is not a finite number", where,
                           e->section, e->key, value);
        if (v < e->min || v > e->max)
            return cs_fail(ctx, CS_ERR_CONFIG, "%s: %s.%s = %g is outside [%g, %g]", where,
                           e->section, e->key, v, e->min, e->max);
        memcpy(base, &v, sizeof v);
        return CS_OK;
    }
    case CS_CONF_BOOL: {
        int b;
        if (!parse_bool(value, &b))
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "%s: %s.%s = '%s' is not a boolean (true/false, yes/no, on/off, 1/0)",
                           where, e->section, e->key, value);
        memcpy(base, &b, sizeof b);
        return CS_OK;
    }
    case CS_CONF_STRING:
        if (!unescape(value, base, e->size))
            return cs_fail(ctx, CS_ERR_CONFIG, "%s: %s.%s is longer than %zu characters", where,
                           e->section, e->key, e->size - 1);
        /* control bytes but tab and newline (the escapes \t, \n) are no text: none could be
         * written back (cs_config_to_ini) and read again as it was */
        for (const char *c = base; *c != '\0'; c++)
            if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f)
                return cs_fail(ctx, CS_ERR_CONFIG,
                               "%s: %s.%s holds a control character (byte 0x%02x); write a tab "
                               "as \\t, a newline as \\n",
                               where, e->section, e->key, (unsigned)(unsigned char)*c);
        return CS_OK;
    case CS_CONF_ENUM: {
        const char *c = e->choices;
        int idx = 0;
        size_t vl = strlen(value);
        while (*c) {
            const char *bar = strchr(c, '|');
            size_t l = bar ? (size_t)(bar - c) : strlen(c);
            if (l == vl && strncasecmp(c, value, l) == 0) {
                memcpy(base, &idx, sizeof idx);
                return CS_OK;
            }
            idx++;
            c += l + (bar ? 1 : 0);
        }
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: %s.%s = '%s' is not one of %s", where, e->section,
                       e->key, value, e->choices);
    }
    }
    return cs_fail(ctx, CS_ERR_INTERNAL, "unknown config type");
}

static cs_err unknown_key(cs_ctx *ctx, const char *where, const char *section, const char *key)
{
    const cs_conf_entry *near = nearest_entry(section, key);
    if (near != NULL)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: unknown key '%s.%s'; did you mean '%s.%s'? (crawlsim help config "
                       "lists every key)",
                       where, section, key, near->section, near->key);
    return cs_fail(ctx, CS_ERR_CONFIG,
                   "%s: unknown key '%s.%s' (crawlsim help config lists every key)", where, section,
                   key);
}

void cs_config_defaults(cs_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    size_t n;
    const cs_conf_entry *s = cs_config_schema(&n);
    for (size_t i = 0; i < n; i++) {
        cs_err rc = assign(NULL, cfg, &s[i], s[i].def, "schema");
        CS_ASSERT(rc == CS_OK); /* a default outside its own range is a bug in schema.c */
    }
    snprintf(cfg->dir, sizeof cfg->dir, ".");
}

/* inih plumbing: a reader over a string that hands inih one whole line per call, so that line
 * numbers in messages count real lines and no line is ever cut in two (inih would read the
 * tail of a cut line as a line of its own: a long comment's tail became "pages = 7").
 * A comment line (first non-blank ';' or '#') reaches inih as an empty line, whatever its
 * length; a longer line loses its inline comment (' ;...', which inih would drop too) when
 * that makes it fit; a line that still does not fit inih's buffer is an error naming the file
 * and line. Where the library's line buffer is a run-time setting (Debian's libinih), it is
 * made as long as the longest line first (parse_inih), so that only other builds of inih,
 * whose buffer is fixed when they are compiled (200 bytes by default), can refuse a line. */
typedef struct parse_state {
    cs_ctx *ctx;
    cs_config *cfg;
    const char *name;
    const char *cursor;
    int line;
    cs_err rc;
} parse_state;

/* Local. Length of the line at c up to its inline comment: the first ';' after a blank, the
 * rule inih applies to values and section headers (INI_INLINE_COMMENT_PREFIXES). */
static size_t before_inline_comment(const char *c, size_t len)
{
    for (size_t i = 1; i < len; i++)
        if (c[i] == ';' && (c[i - 1] == ' ' || c[i - 1] == '\t'))
            return i;
    return len;
}

static char *string_reader(char *buf, int size, void *stream)
{
    parse_state *st = stream;
    const char *c = st->cursor;
    if (*c == '\0' || size < 2 || st->rc != CS_OK)
        return NULL;
    st->line++;
    /* A line ends at LF, CRLF or a lone CR (old Mac files): inih itself knows only LF, and
     * would read a CR-only file as one line, dropping every key after the first. */
    size_t len = strcspn(c, "\r\n");
    size_t skip = len + (c[len] == '\r' && c[len + 1] == '\n' ? 2 : c[len] != '\0');
    size_t lead = strspn(c, " \t\f\v");
    st->cursor = c + skip;
    if (lead < len && (c[lead] == ';' || c[lead] == '#')) {
        buf[0] = '\n';
        buf[1] = '\0';
        return buf;
    }
    if (lead < len && c[lead] == '[') {
        /* inih ignores what follows a section header's ']': a key written there would be lost */
        const char *close = memchr(c + lead, ']', len - lead);
        size_t after = close != NULL ? (size_t)(close - c) + 1 : len;
        after += strspn(c + after, " \t\f\v");
        if (close != NULL && after < len && c[after] != ';' && c[after] != '#') {
            st->rc =
                cs_fail(st->ctx, CS_ERR_CONFIG,
                        "%s:%d: text after the section header: '%.*s' (a key goes on a line "
                        "of its own)",
                        st->name, st->line, (int)(len - after < 60 ? len - after : 60), c + after);
            return NULL;
        }
    }
    size_t cap = (size_t)size - 2; /* room for the newline and the terminator */
    if (len > cap)
        len = before_inline_comment(c, len);
    if (len > cap) {
        st->rc = cs_fail(st->ctx, CS_ERR_CONFIG,
                         "%s:%d: line of %zu characters; this build's INI reader (inih) holds "
                         "at most %zu",
                         st->name, st->line, strcspn(c, "\r\n"), cap);
        return NULL;
    }
    memcpy(buf, c, len);
    buf[len] = '\n';
    buf[len + 1] = '\0';
    return buf;
}

static int on_ini_entry(void *user, const char *section, const char *key, const char *value)
{
    parse_state *st = user;
    if (st->rc != CS_OK)
        return 0;
    char where[CS_CONF_STR + 32];
    snprintf(where, sizeof where, "%s:%d", st->name, st->line);
    if (key == NULL) /* a section header on its own: checked with its first key */
        return 1;
    if (section[0] == '\0') {
        st->rc = cs_fail(st->ctx, CS_ERR_CONFIG, "%s: key '%s' outside any [section]", where, key);
        return 0;
    }
    const cs_conf_entry *e = find_entry(section, key);
    if (e == NULL) {
        st->rc = unknown_key(st->ctx, where, section, key);
        return 0;
    }
    st->rc = assign(st->ctx, st->cfg, e, value, where);
    return st->rc == CS_OK;
}

/* Local. ini_parse_stream over the text with a line buffer that holds its longest line where
 * the library lets us set the buffer at run time (CRAWLSIM_INIH_RUNTIME_OPTIONS: Debian's
 * libinih exports its build options as variables); the library's settings are put back after. */
static int parse_inih(const char *text, parse_state *st)
{
#ifdef CRAWLSIM_INIH_RUNTIME_OPTIONS
    size_t longest = 0;
    for (const char *c = text; *c != '\0';) {
        size_t len = strcspn(c, "\n");
        longest = len > longest ? len : longest;
        c += len + (c[len] == '\n');
    }
    const bool use_stack = ini_use_stack, allow_realloc = ini_allow_realloc;
    const int max_line = ini_max_line, initial = ini_initial_alloc;
    if (longest + 3 > (size_t)max_line && longest < (size_t)INT_MAX - 3) {
        ini_use_stack = false;
        ini_allow_realloc = false;
        ini_max_line = ini_initial_alloc = (int)longest + 3;
    }
    int r = ini_parse_stream(string_reader, st, on_ini_entry, st);
    ini_use_stack = use_stack;
    ini_allow_realloc = allow_realloc;
    ini_max_line = max_line;
    ini_initial_alloc = initial;
    return r;
#else
    (void)text; /* (the reader takes it from st) */
    return ini_parse_stream(string_reader, st, on_ini_entry, st);
#endif
}

cs_err cs_config_parse_string(cs_ctx *ctx, const char *text, const char *name, cs_config *cfg)
{
    parse_state st = {ctx, cfg, name, text, 0, CS_OK};
    int r = parse_inih(text, &st);
    if (st.rc != CS_OK)
        return st.rc;
    if (r > 0)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s:%d: syntax error (expected [section] or key = value)", name, r);
    if (r < 0)
        return cs_fail(ctx, CS_ERR_NOMEM, "%s: out of memory while parsing", name);
    return CS_OK;
}

cs_err cs_config_set(cs_ctx *ctx, cs_config *cfg, const char *assignment, const char *origin)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = strchr(assignment, '.');
    if (eq == NULL || dot == NULL || dot > eq)
        return cs_fail(ctx, CS_ERR_USAGE, "%s '%s': expected section.key=value", origin,
                       assignment);
    char section[128], key[128];
    size_t ls = (size_t)(dot - assignment), lk = (size_t)(eq - dot - 1);
    if (ls == 0 || lk == 0 || ls >= sizeof section || lk >= sizeof key)
        return cs_fail(ctx, CS_ERR_USAGE, "%s '%s': expected section.key=value", origin,
                       assignment);
    memcpy(section, assignment, ls);
    section[ls] = '\0';
    memcpy(key, dot + 1, lk);
    key[lk] = '\0';
    const cs_conf_entry *e = find_entry(section, key);
    if (e == NULL)
        return unknown_key(ctx, origin, section, key);
    return assign(ctx, cfg, e, eq + 1, origin);
}

int cs_tres_max_parse(const char *s, int64_t *cap)
{
    if (strcmp(s, "inf") == 0) {
        *cap = CS_TRES_MAX_INF;
        return 1;
    }
    if (strcmp(s, "adaptive") == 0) {
        *cap = CS_TRES_MAX_ADAPTIVE;
        return 1;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < 1 || v > INT32_MAX)
        return 0;
    *cap = v;
    return 1;
}

/* Local. The whole of s as a number into *v: 1, or 0 when s is not one (or out of range). */
static int parse_real(const char *s, double *v)
{
    char *end = NULL;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0;
}

int cs_sarsa_alpha_parse(const char *s, double *alpha)
{
    double v = -1.0; /* auto */
    if (strcmp(s, "auto") != 0 && !(parse_real(s, &v) && v >= 0.0 && v <= 1.0))
        return 0;
    *alpha = v;
    return 1;
}

double cs_sarsa_alpha(const cs_config *cfg)
{
    double a = CS_SARSA_ALPHA_PAPER;
    if (cs_sarsa_alpha_parse(cfg->sarsa.alpha, &a) && a >= 0.0)
        return a;
    a = CS_SARSA_ALPHA_PAPER;
    const double tick = CS_SARSA_ALPHA_AUTO_STEP / (double)cfg->crawl.bandwidth;
    if (cfg->crawl.weight_sync == CS_WSYNC_SUM && tick < a)
        a = tick;
    return a;
}

double cs_sarsa_step(const cs_config *cfg, int ranks)
{
    const double a = cs_sarsa_alpha(cfg);
    const cs_crawl_config *cc = &cfg->crawl;
    const int avg = cc->weight_sync == CS_WSYNC_AVERAGE;
    const double P = ranks > 1 ? (double)ranks : 1.0;
    if (cfg->sarsa.step_rule == CS_STEP_RANKS) {
        if (!avg)
            return a;
        return a * P < 1.0 ? a * P : 1.0;
    }
    if (cfg->sarsa.step_rule != CS_STEP_WINDOW)
        return a;
    /* the updates of one window: K ticks of B fetches (the task's fetches when never synced) */
    double u = cc->sync_every > 0 ? (double)cc->sync_every * (double)cc->bandwidth
                                  : (double)cfg->run.pages;
    if (avg)
        u /= P;
    const double bound = u > 0.0 ? CS_SARSA_ALPHA_AUTO_STEP / u : a;
    return bound < a ? bound : a;
}

int cs_refresh_fraction_parse(const char *s, double *f)
{
    double v = CS_REFRESH_SPLIT_ADAPTIVE;
    if (strcmp(s, "adaptive") != 0 && !(parse_real(s, &v) && v > 0.0 && v <= 1.0))
        return 0;
    *f = v;
    return 1;
}

cs_err cs_config_validate(cs_ctx *ctx, const cs_config *cfg)
{
    const cs_gen_config *g = &cfg->gen;
    const char *f = cfg->path[0] ? cfg->path : "configuration";
    if (g->p_host + g->p_topic > 1.0 + 1e-12)
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: gen.p_host + gen.p_topic = %g exceeds 1", f,
                       g->p_host + g->p_topic);
    if (g->target_topic >= g->topics)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: gen.target_topic = %lld must be below gen.topics = %lld", f,
                       (long long)g->target_topic, (long long)g->topics);
    if ((double)g->host_size_max < g->host_size_mean)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: gen.host_size_max = %lld is below host_size_mean = %g", f,
                       (long long)g->host_size_max, g->host_size_mean);
    if ((double)g->degree_max < g->degree_mean)
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: gen.degree_max = %lld is below degree_mean = %g", f,
                       (long long)g->degree_max, g->degree_mean);
    if (g->web.tree_branching == 1)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: gen.tree_branching = 1: a tree needs a base of at least 2 (0: none)",
                       f);
    if (g->web.in_hosts + g->web.out_hosts + g->web.isolated_hosts > 1.0 + 1e-12)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: gen.in_hosts + gen.out_hosts + gen.isolated_hosts = %g exceeds 1", f,
                       g->web.in_hosts + g->web.out_hosts + g->web.isolated_hosts);
    const cs_sarsa_config *sa = &cfg->sarsa;
    if (sa->delta1 > sa->delta2)
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: sarsa.delta1 = %g exceeds sarsa.delta2 = %g", f,
                       sa->delta1, sa->delta2);
    if (sa->mid_threshold > sa->high_threshold)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: sarsa.mid_threshold = %g exceeds sarsa.high_threshold = %g", f,
                       sa->mid_threshold, sa->high_threshold);
    double alpha = 0.0;
    if (!cs_sarsa_alpha_parse(sa->alpha, &alpha))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: sarsa.alpha = '%s': expected auto or a number in [0, 1]", f, sa->alpha);
    if (sa->step_rule == CS_STEP_WINDOW && cfg->crawl.sync_every == 0 && cfg->run.pages == 0)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: sarsa.step_rule = window with crawl.sync_every = 0 (never) bounds the "
                       "step of the whole task: set run.pages",
                       f);
    int64_t cap = 0;
    if (!cs_tres_max_parse(cfg->tres.max_per_host, &cap))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: tres.max_per_host = '%s': expected inf, adaptive or a positive integer",
                       f, cfg->tres.max_per_host);
    const cs_refresh_config *rf = &cfg->refresh;
    double frac = 0.0;
    if (!cs_refresh_fraction_parse(rf->fraction, &frac))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: refresh.fraction = '%s': expected a number in (0, 1] or adaptive", f,
                       rf->fraction);
    if (!(rf->split_min <= rf->split_start && rf->split_start <= rf->split_max))
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "%s: refresh.split_min = %g <= split_start = %g <= split_max = %g does not "
                       "hold",
                       f, rf->split_min, rf->split_start, rf->split_max);
    if (rf->adapt_min > 0.0 && rf->adapt_max > 0.0 && rf->adapt_min > rf->adapt_max)
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: refresh.adapt_min = %g exceeds adapt_max = %g", f,
                       rf->adapt_min, rf->adapt_max);
    const cs_import_config *im = &cfg->import;
    if (im->separators[0] == '\0' || im->page_separators[0] == '\0')
        return cs_fail(ctx, CS_ERR_CONFIG, "%s: import separators must not be empty", f);
    return CS_OK;
}

static cs_err read_file_text(cs_ctx *ctx, const char *path, char **out, long *len)
{
    *out = NULL;
    /* Opened without blocking and checked before reading: a FIFO (or a terminal, a directory)
     * would block or fail in ways that name neither the file nor the cause. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return cs_fail(ctx, CS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "'%s' is not a regular file (a job file or spec must "
                       "be one: not a directory, FIFO or device)",
                       path);
    }
    FILE *fp = fdopen(fd, "rb");
    if (fp == NULL) {
        close(fd);
        return cs_fail(ctx, CS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    cs_err rc = CS_OK;
    char *buf = NULL;
    size_t cap = 4096, n = 0;
    CS_TRY(ctx, cs_alloc(ctx, &buf, cap, 1, "config text"));
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > (64u << 20)) {
                rc = cs_fail(ctx, CS_ERR_CONFIG, "'%s' is larger than 64 MiB: not a config file",
                             path);
                goto fail;
            }
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory reading '%s'", path);
                goto fail;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        rc = cs_fail(ctx, CS_ERR_IO, "error reading '%s'", path);
        goto fail;
    }
    if (memchr(buf, '\0', n) != NULL) {
        rc = cs_fail(ctx, CS_ERR_CONFIG, "'%s' contains NUL bytes: not an INI text file", path);
        goto fail;
    }
    buf[n] = '\0';
    fclose(fp);
    *out = buf;
    *len = (long)n;
    return CS_OK;
fail:
    free(buf);
    fclose(fp);
    return rc;
}

/* Local. Whether text holds a line that is neither blank nor a comment (a section or a key):
 * an empty job file, or one cut to nothing, would otherwise run the built-in world. */
static int has_settings(const char *text)
{
    for (const char *c = text; *c != '\0';) {
        c += strspn(c, " \t\f\v\r\n");
        if (*c != '\0' && *c != ';' && *c != '#')
            return 1;
        c += strcspn(c, "\r\n");
    }
    return 0;
}

/* Local. Reads the file at path on rank 0 and gives every rank its text (errors agree). */
static cs_err read_shared_text(cs_ctx *ctx, const char *path, char **text)
{
    cs_err rc = CS_OK;
    long len = 0;
    cs_err local = CS_OK;
    const int root = ctx->rank == 0;
    if (root)
        local = read_file_text(ctx, path, text, &len);
    CS_TRY(ctx, cs_agree(ctx, local));
    cs_bcast(ctx, &len, 1, CS_T_LONG, 0);
    if (!root)
        local = cs_alloc(ctx, text, (size_t)len + 1, 1, "config text");
    CS_TRY(ctx, cs_agree(ctx, local));
    cs_bcast(ctx, *text, (int)len + 1, CS_T_CHAR, 0);
fail: /* (the caller frees *text) */
    return rc;
}

/* Local. The keys of text (NULL: none) and of the overrides, over cfg as it stands. */
static cs_err apply(cs_ctx *ctx, const char *text, const char *path, const char *const *overrides,
                    int n_overrides, cs_config *cfg)
{
    cs_err rc = CS_OK;
    if (text != NULL)
        rc = cs_config_parse_string(ctx, text, path, cfg);
    for (int i = 0; i < n_overrides && rc == CS_OK; i++)
        rc = cs_config_set(ctx, cfg, overrides[i], "--set");
    return rc;
}

/* Worlds named by gen.world within worlds: more is taken for a loop. */
#define WORLD_DEPTH 8

static cs_err load_depth(cs_ctx *ctx, const char *path, const char *const *overrides,
                         int n_overrides, cs_config *cfg, int depth)
{
    cs_err rc = CS_OK;
    char *text = NULL;
    cs_config *base = NULL;
    cs_config_defaults(cfg);
    char dir[CS_CONF_STR];
    snprintf(dir, sizeof dir, ".");
    if (path != NULL) {
        CS_TRY(ctx, read_shared_text(ctx, path, &text));
        if (!has_settings(text))
            CS_TRY(ctx, cs_fail(ctx, CS_ERR_CONFIG,
                                "%s holds no settings (it is empty or only comments): a job or "
                                "spec file has at least one [section]",
                                path));
        const char *slash = strrchr(path, '/');
        if (slash != NULL)
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + (slash == path)), path);
    }
    snprintf(cfg->path, sizeof cfg->path, "%s", path != NULL ? path : "");
    snprintf(cfg->dir, sizeof cfg->dir, "%s", dir);
    if ((rc = apply(ctx, text, path, overrides, n_overrides, cfg)) != CS_OK)
        goto fail;
    if (cfg->world[0] != '\0') {
        /* gen.world: that spec's [gen] keys first, then this file's keys and the overrides again
         * over them, so that what is given here wins wherever it stands in the file */
        char wpath[2 * CS_CONF_STR + 2];
        cs_config_resolve_path(cfg, cfg->world, wpath, sizeof wpath);
        if (depth >= WORLD_DEPTH) {
            rc = cs_fail(ctx, CS_ERR_CONFIG,
                         "%s: gen.world = '%s': worlds nested more than %d deep (a loop?)",
                         path != NULL ? path : "--set", cfg->world, WORLD_DEPTH);
            goto fail;
        }
        if ((rc = cs_alloc(ctx, &base, 1, sizeof *base, "world spec")) != CS_OK ||
            (rc = load_depth(ctx, wpath, NULL, 0, base, depth + 1)) != CS_OK)
            goto fail;
        cs_config_defaults(cfg);
        cfg->gen = base->gen;
        snprintf(cfg->path, sizeof cfg->path, "%s", path != NULL ? path : "");
        snprintf(cfg->dir, sizeof cfg->dir, "%s", dir);
        if ((rc = apply(ctx, text, path, overrides, n_overrides, cfg)) != CS_OK)
            goto fail;
    }
    rc = cs_config_validate(ctx, cfg);
fail:
    free(base);
    free(text);
    return rc;
}

cs_err cs_config_load(cs_ctx *ctx, const char *path, const char *const *overrides, int n_overrides,
                      cs_config *cfg)
{
    return load_depth(ctx, path, overrides, n_overrides, cfg, 0);
}

void cs_config_resolve_path(const cs_config *cfg, const char *p, char *out, size_t size)
{
    if (p[0] == '/' || cfg->dir[0] == '\0' || strcmp(cfg->dir, ".") == 0)
        snprintf(out, size, "%s", p);
    else
        snprintf(out, size, "%s/%s", cfg->dir, p);
}

void cs_config_default_output(const char *job, char *out, size_t size)
{
    const char *b = strrchr(job, '/');
    b = b ? b + 1 : job;
    size_t len = strlen(b);
    if (len > 4 && strcmp(b + len - 4, ".ini") == 0)
        len -= 4;
    snprintf(out, size, "results/%.*s.h5", (int)len, b);
}

/* Writes the value of e as it would appear in a file. */
static void format_value(const cs_config *cfg, const cs_conf_entry *e, char *out, size_t size)
{
    const char *base = (const char *)cfg + e->offset;
    switch (e->type) {
    case CS_CONF_INT: {
        int64_t v;
        memcpy(&v, base, sizeof v);
        snprintf(out, size, "%lld", (long long)v);
        return;
    }
    case CS_CONF_DOUBLE: {
        double v;
        memcpy(&v, base, sizeof v);
        snprintf(out, size, "%.17g", v);
        return;
    }
    case CS_CONF_BOOL: {
        int v;
        memcpy(&v, base, sizeof v);
        snprintf(out, size, "%s", v ? "true" : "false");
        return;
    }
    case CS_CONF_STRING: {
        size_t j = 0;
        for (const char *c = base; *c != '\0' && j + 3 < size; c++) {
            if (*c == '\t') {
                out[j++] = '\\';
                out[j++] = 't';
            } else if (*c == '\\' || *c == ';') {
                /* (';' after a blank would start an inline comment: "\;" reads as ';') */
                out[j++] = '\\';
                out[j++] = *c;
            } else if (*c == '\n') {
                out[j++] = '\\';
                out[j++] = 'n';
            } else if (*c == ' ' && (c == base || c[1] == '\0')) {
                /* the INI reader trims blanks around a value: keep these as \s */
                out[j++] = '\\';
                out[j++] = 's';
            } else {
                out[j++] = *c;
            }
        }
        out[j] = '\0';
        return;
    }
    case CS_CONF_ENUM: {
        int v;
        memcpy(&v, base, sizeof v);
        const char *c = e->choices;
        for (int i = 0; i < v && c != NULL; i++) {
            c = strchr(c, '|');
            if (c != NULL)
                c++;
        }
        if (c == NULL) {
            snprintf(out, size, "?");
            return;
        }
        const char *bar = strchr(c, '|');
        snprintf(out, size, "%.*s", (int)(bar ? (size_t)(bar - c) : strlen(c)), c);
        return;
    }
    }
}

cs_err cs_config_to_ini(cs_ctx *ctx, const cs_config *cfg, const char *section, char **text)
{
    size_t n;
    const cs_conf_entry *s = cs_config_schema(&n);
    size_t cap = 256;
    for (size_t i = 0; i < n; i++)
        cap += strlen(s[i].key) + (s[i].type == CS_CONF_STRING ? 2 * s[i].size : 64) + 32;
    char *buf = NULL;
    cs_err rc = cs_alloc(ctx, &buf, cap, 1, "config text");
    if (rc != CS_OK)
        return rc;
    size_t len = 0;
    const char *cur = NULL;
    char val[2 * CS_CONF_STR + 8];
    for (size_t i = 0; i < n; i++) {
        if (section != NULL && strcmp(section, s[i].section) != 0)
            continue;
        if (s[i].offset == offsetof(cs_config, world))
            continue; /* a name for keys already applied: they are written, not it */
        if (cur == NULL || strcmp(cur, s[i].section) != 0) {
            cur = s[i].section;
            len += (size_t)snprintf(buf + len, cap - len, "%s[%s]\n", len ? "\n" : "", cur);
        }
        format_value(cfg, &s[i], val, sizeof val);
        len += (size_t)snprintf(buf + len, cap - len, "%s = %s\n", s[i].key, val);
    }
    *text = buf;
    return CS_OK;
}

static const char *type_name(const cs_conf_entry *e)
{
    switch (e->type) {
    case CS_CONF_INT:
        return "int";
    case CS_CONF_DOUBLE:
        return "real";
    case CS_CONF_BOOL:
        return "bool";
    case CS_CONF_STRING:
        return "string";
    case CS_CONF_ENUM:
        return "choice";
    }
    return "?";
}

static void format_range(const cs_conf_entry *e, char *out, size_t size)
{
    switch (e->type) {
    case CS_CONF_INT:
    case CS_CONF_DOUBLE:
        snprintf(out, size, "[%.10g, %.10g]", e->min, e->max);
        return;
    case CS_CONF_BOOL:
        snprintf(out, size, "true/false");
        return;
    case CS_CONF_ENUM:
        snprintf(out, size, "%s", e->choices);
        return;
    case CS_CONF_STRING:
        snprintf(out, size, "text");
        return;
    }
}

void cs_config_print_help(FILE *out, const char *section, int markdown)
{
    size_t n;
    const cs_conf_entry *s = cs_config_schema(&n);
    const char *cur = NULL;
    char range[1024];
    for (size_t i = 0; i < n; i++) {
        const cs_conf_entry *e = &s[i];
        if (section != NULL && strcmp(section, e->section) != 0)
            continue;
        format_range(e, range, sizeof range);
        if (cur == NULL || strcmp(cur, e->section) != 0) {
            cur = e->section;
            if (markdown)
                fprintf(out,
                        "%s#### `[%s]`\n\n| key | type | default | allowed | meaning |\n"
                        "|---|---|---|---|---|\n",
                        i ? "\n" : "", cur);
            else
                fprintf(out, "%s[%s]\n", i ? "\n" : "", cur);
        }
        if (markdown) {
            /* Escape the table's own delimiter inside cells. */
            fprintf(out, "| `%s` | %s | `%s` | ", e->key, type_name(e), e->def);
            for (const char *c = range; *c; c++)
                fputs(*c == '|' ? "\\|" : (char[2]){*c, 0}, out);
            fprintf(out, " | %s |\n", e->doc);
        } else {
            fprintf(out, "  %-22s %-6s default %-10s %s\n  %24s %s\n", e->key, type_name(e),
                    e->def[0] ? e->def : "\"\"", range, "", e->doc);
        }
    }
}
