/*
 * core: the error table, collective error agreement, logging, progress and assertions.
 */
#ifndef _DEFAULT_SOURCE /* (smpicc defines it) */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (a Linux extension beyond POSIX) */
#endif
#include "crawlsim/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CS_ERR_MSG_(name, msg) msg,
#define CS_ERR_NAME_(name, msg) #name,
static const char *const err_msgs[] = {CS_ERR_LIST(CS_ERR_MSG_)};
static const char *const err_names[] = {CS_ERR_LIST(CS_ERR_NAME_)};
#undef CS_ERR_MSG_
#undef CS_ERR_NAME_

const char *cs_strerror(cs_err code)
{
    if ((int)code < 0 || code >= CS_ERR_COUNT_)
        return "unknown error";
    return err_msgs[code];
}

const char *cs_errname(cs_err code)
{
    if ((int)code < 0 || code >= CS_ERR_COUNT_)
        return "CS_ERR_UNKNOWN";
    return err_names[code];
}

int64_t cs_lower_bound_i64(const int64_t *a, int64_t n, int64_t x)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t cs_select_u64(uint64_t *a, int64_t n, int64_t k)
{
    CS_ASSERT(k >= 0 && k < n);
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        /* the median of a[lo], a[mid], a[hi] as the pivot, moved to a[hi] */
        const int64_t mid = lo + (hi - lo) / 2;
        uint64_t x = a[lo], y = a[mid], z = a[hi];
        const uint64_t med = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        const int64_t at = med == y ? mid : (med == x ? lo : hi);
        a[at] = z;
        a[hi] = med;
        const uint64_t p = med;
        /* Lomuto without branches: [lo, s) < p <= [s, i). A partition's comparisons are coin
         * flips to a branch predictor; these cost two stores per element instead. */
        int64_t s = lo;
        for (int64_t i = lo; i < hi; i++) {
            const uint64_t t = a[i];
            a[i] = a[s];
            a[s] = t;
            s += t < p;
        }
        a[hi] = a[s];
        a[s] = p;
        if (k == s)
            return p;
        if (k < s) {
            hi = s - 1;
            continue;
        }
        if (s == lo) {
            /* p is the range's smallest value: gather its copies next to it, so that many equal
             * values cost one pass, not one round each */
            int64_t e = s + 1;
            for (int64_t i = s + 1; i <= hi; i++) {
                const uint64_t t = a[i];
                a[i] = a[e];
                a[e] = t;
                e += t == p;
            }
            if (k < e)
                return p;
            lo = e;
            continue;
        }
        lo = s + 1;
    }
    return a[k];
}

void cs_sort_u64(uint64_t *a, int64_t n, uint64_t *tmp)
{
    if (n < 64) {
        for (int64_t i = 1; i < n; i++) {
            uint64_t x = a[i];
            int64_t j = i;
            for (; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    /* all eight histograms in one read pass */
    int64_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (int64_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            cnt[b][(a[i] >> (8 * b)) & 0xff]++;
    uint64_t *src = a, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        if (cnt[b][(a[0] >> (8 * b)) & 0xff] == n)
            continue; /* every key has this byte: the pass would not move anything */
        int64_t pos = 0;
        for (int d = 0; d < 256; d++) {
            int64_t c = cnt[b][d];
            cnt[b][d] = pos;
            pos += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[cnt[b][(src[i] >> (8 * b)) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
}

double cs_now(void)
{
    /* Not MPI_Wtime: unit tests and serial tools run without MPI_Init. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cs_ctx_init(cs_ctx *ctx, MPI_Comm comm, cs_log_level level)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->comm = comm;
    MPI_Comm_rank(comm, &ctx->rank);
    MPI_Comm_size(comm, &ctx->size);
    ctx->level = level;
    ctx->stderr_is_tty = isatty(STDERR_FILENO);
    ctx->t_start = cs_now();
    ctx->err = CS_OK;
}

void cs_ctx_init_local(cs_ctx *ctx, cs_log_level level)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->comm = MPI_COMM_NULL;
    ctx->rank = 0;
    ctx->size = 1;
    ctx->level = level;
    ctx->stderr_is_tty = isatty(STDERR_FILENO);
    ctx->t_start = cs_now();
}

void cs_ctx_fini(cs_ctx *ctx)
{
    (void)ctx;
}

void cs_ctx_clear_error(cs_ctx *ctx)
{
    ctx->err = CS_OK;
    ctx->errmsg[0] = '\0';
}

cs_err(cs_fail)(cs_ctx *ctx, cs_err code, const char *fmt, ...)
{
    if (ctx != NULL && ctx->err == CS_OK && code != CS_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
        va_end(ap);
        ctx->err = code;
    }
    return code;
}

cs_err(cs_agree)(cs_ctx *ctx, cs_err local)
{
    /* The lowest failing rank speaks for all: its code and message go to every rank. Two
     * collectives, both always executed by every rank. */
    if (ctx->comm == MPI_COMM_NULL) /* a local context agrees with itself */
        return local;
    int mine = (local != CS_OK) ? ctx->rank : ctx->size;
    int first = ctx->size;
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)sizeof mine);
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, ctx->comm) != MPI_SUCCESS)
        cs_assert_fail(__FILE__, __LINE__, "MPI_Allreduce in cs_agree");
    if (first == ctx->size)
        return CS_OK;
    struct {
        int code;
        char msg[CS_ERRMSG_MAX];
    } buf;
    memset(&buf, 0, sizeof buf);
    if (ctx->rank == first) {
        buf.code = (int)local;
        if (ctx->err != CS_OK)
            memcpy(buf.msg, ctx->errmsg, sizeof buf.msg);
        else
            snprintf(buf.msg, sizeof buf.msg, "%s", cs_strerror(local));
    }
    cs_ctx_count(ctx, CS_COLL_ROOTED, ctx->rank == first ? (int64_t)sizeof buf : 0);
    if (MPI_Bcast(&buf, (int)sizeof buf, MPI_BYTE, first, ctx->comm) != MPI_SUCCESS)
        cs_assert_fail(__FILE__, __LINE__, "MPI_Bcast in cs_agree");
    buf.msg[CS_ERRMSG_MAX - 1] = '\0';
    ctx->err = (cs_err)buf.code;
    memcpy(ctx->errmsg, buf.msg, sizeof buf.msg);
    if (first != 0 && ctx->rank == 0 && ctx->level >= CS_LOG_VERBOSE)
        fprintf(stderr, "crawlsim: (error raised on rank %d)\n", first);
    return (cs_err)buf.code;
}

void cs_report_error(const cs_ctx *ctx, cs_err code)
{
    if (ctx->rank != 0 || code == CS_OK)
        return;
    if (ctx->err != CS_OK && ctx->errmsg[0] != '\0')
        fprintf(stderr, "crawlsim: error: %s\n", ctx->errmsg);
    else
        fprintf(stderr, "crawlsim: error: %s\n", cs_strerror(code));
    fflush(stderr);
}

static const char *level_tag(cs_log_level level)
{
    switch (level) {
    case CS_LOG_ERROR:
        return "error: ";
    case CS_LOG_WARN:
        return "warning: ";
    case CS_LOG_DEBUG:
        return "debug: ";
    default:
        return "";
    }
}

void cs_log_print(const cs_ctx *ctx, cs_log_level level, int all_ranks, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    double t = cs_now() - ctx->t_start;
    if (all_ranks)
        fprintf(stderr, "[%d/%d] %8.3fs %s%s\n", ctx->rank, ctx->size, t, level_tag(level), line);
    else
        fprintf(stderr, "[crawlsim %8.3fs] %s%s\n", t, level_tag(level), line);
    fflush(stderr);
}

void cs_assert_fail(const char *file, int line, const char *expr)
{
    int initialized = 0, finalized = 0, rank = 0, size = 1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        /* Diagnostics only: the world rank identifies the process in the job's output. */
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    fprintf(stderr, "[rank %d/%d] %s:%d: assertion failed: %s\n", rank, size, file, line, expr);
    fflush(stderr);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, 70);
    abort();
}

#if defined(MADV_HUGEPAGE) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25 /* Linux 6.1; older kernels refuse it (EINVAL): advice only */
#endif

void cs_mem_huge(void *p, size_t bytes, size_t filled)
{
#if defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p == NULL || bytes < CS_HUGE_MIN)
        return;
    const char *e = getenv("CRAWLSIM_HUGE_PAGES"); /* each time: no state shared by threads */
    if (e != NULL && strcmp(e, "0") == 0)
        return;
    const uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi <= lo)
        return;
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: a refusal changes nothing */
    const uintptr_t fh = ((uintptr_t)p + (filled < bytes ? filled : bytes)) & ~(huge - 1);
    if (fh > lo)
        (void)madvise((void *)lo, fh - lo, MADV_COLLAPSE);
#else
    (void)p;
    (void)bytes;
    (void)filled;
#endif
}

static cs_err alloc_impl(cs_ctx *ctx, void *out_ptr, size_t count, size_t size, const char *what,
                         int zero)
{
    void **out = (void **)out_ptr;
    *out = NULL;
    if (count == 0)
        count = 1; /* a valid, freeable pointer even for empty arrays */
    if (size != 0 && count > SIZE_MAX / size)
        return cs_fail(ctx, CS_ERR_NOMEM, "allocation of %zu x %zu bytes for %s overflows", count,
                       size, what);
    void *p = zero ? calloc(count, size) : malloc(count * size);
    if (p == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "out of memory allocating %.1f MiB for %s",
                       (double)(count * size) / 1048576.0, what);
    cs_mem_huge(p, count * size, 0);
    *out = p;
    return CS_OK;
}

cs_err(cs_alloc)(cs_ctx *ctx, void *out_ptr, size_t count, size_t size, const char *what)
{
    return alloc_impl(ctx, out_ptr, count, size, what, 0);
}

cs_err(cs_calloc)(cs_ctx *ctx, void *out_ptr, size_t count, size_t size, const char *what)
{
    return alloc_impl(ctx, out_ptr, count, size, what, 1);
}

cs_err cs_grow(cs_ctx *ctx, void *pp, size_t *cap, size_t need, size_t sz, const char *what)
{
    if (need <= *cap)
        return CS_OK;
    size_t nc = *cap ? *cap : 1024;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / (sz ? sz : 1))
            return cs_fail(ctx, CS_ERR_NOMEM, "%s: %zu elements of %zu bytes overflow", what, need,
                           sz);
        nc *= 2;
    }
    void **p = (void **)pp;
    void *q = realloc(*p, nc * sz);
    if (q == NULL)
        return cs_fail(ctx, CS_ERR_NOMEM, "out of memory growing %s to %.1f MiB", what,
                       (double)nc * (double)sz / 1048576.0);
    cs_mem_huge(q, nc * sz, *cap * sz);
    *p = q;
    *cap = nc;
    return CS_OK;
}

void cs_progress_begin(cs_progress *p, const cs_ctx *ctx, const char *what, uint64_t total)
{
    p->ctx = ctx;
    p->what = what;
    p->unit = NULL;
    p->total = total;
    p->t_begin = cs_now();
    p->t_last = p->t_begin;
    p->interval = ctx->stderr_is_tty ? 0.2 : 10.0;
    p->printed = 0;
}

void cs_progress_update(cs_progress *p, uint64_t done)
{
    const cs_ctx *ctx = p->ctx;
    if (ctx->rank != 0 || ctx->level < CS_LOG_INFO)
        return;
    double now = cs_now();
    if (now - p->t_last < p->interval)
        return;
    p->t_last = now;
    double frac = p->total ? (double)done / (double)p->total : 0.0;
    double el = now - p->t_begin;
    double eta = frac > 0.0 ? el * (1.0 - frac) / frac : 0.0;
    char units[96] = "";
    if (p->unit != NULL)
        snprintf(units, sizeof units, " (%llu of %llu %s, %.3g M/s)", (unsigned long long)done,
                 (unsigned long long)p->total, p->unit, el > 0.0 ? (double)done / el / 1e6 : 0.0);
    fprintf(stderr, "%s[crawlsim] %s: %5.1f%%%s  %.1fs elapsed, ~%.0fs left%s",
            ctx->stderr_is_tty ? "\r" : "", p->what, 100.0 * frac, units, el, eta,
            ctx->stderr_is_tty ? "   " : "\n");
    fflush(stderr);
    p->printed = 1;
}

void cs_progress_end(cs_progress *p)
{
    const cs_ctx *ctx = p->ctx;
    if (ctx->rank != 0 || ctx->level < CS_LOG_INFO || !p->printed)
        return;
    if (ctx->stderr_is_tty)
        fprintf(stderr, "\r[crawlsim] %s: done in %.1fs%30s\n", p->what, cs_now() - p->t_begin, "");
    fflush(stderr);
}

int cs_cpu_packages(const char *sys_cpu, const int *cpus, int n)
{
    enum { MAX_SEEN = 64 };
    long seen[MAX_SEEN];
    int k = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        long id = -1;
        snprintf(path, sizeof path, "%s/cpu%d/topology/physical_package_id", sys_cpu, cpus[i]);
        FILE *f = fopen(path, "r");
        const int got = f != NULL && fscanf(f, "%ld", &id) == 1 && id >= 0;
        if (f != NULL)
            fclose(f);
        if (!got)
            return 0;
        int j = 0;
        while (j < k && seen[j] != id)
            j++;
        if (j == k && k < MAX_SEEN)
            seen[k++] = id;
    }
    return k;
}

cs_err cs_open_regular(cs_ctx *ctx, const char *path, const char *kind, int *fd, int *missing)
{
    *fd = -1;
    if (missing != NULL)
        *missing = 0;
    int f = open(path, O_RDONLY | O_NONBLOCK);
    if (f < 0) {
        if (missing != NULL && errno == ENOENT) {
            *missing = 1;
            return CS_OK;
        }
        return cs_fail(ctx, CS_ERR_IO, "cannot open %s '%s': %s", kind, path, strerror(errno));
    }
    struct stat sb;
    if (fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(f);
        return cs_fail(ctx, CS_ERR_IO,
                       "%s '%s' is not a regular file (not a directory, FIFO or device)", kind,
                       path);
    }
    int flags = fcntl(f, F_GETFL);
    if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0) {
        close(f);
        return cs_fail(ctx, CS_ERR_IO, "cannot open %s '%s': %s", kind, path, strerror(errno));
    }
    *fd = f;
    return CS_OK;
}
