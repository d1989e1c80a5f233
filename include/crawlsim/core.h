/*
 * crawlsim core: error codes, the per-process context, collective error agreement, logging,
 * progress lines and internal assertions (STYLE.md "Errors", "Logging and output").
 *
 * Every other module builds on this header. Nothing here keeps mutable global state: the
 * context carries the communicator, the log level and the last error message.
 */
#ifndef CRAWLSIM_CORE_H
#define CRAWLSIM_CORE_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define CS_NORETURN __attribute__((noreturn))
#define CS_API __attribute__((visibility("default")))
/* A cs_err that must be used: cs_agree and the comm functions that can fail (comm.h). */
#define CS_NODISCARD __attribute__((warn_unused_result))
#else
#define CS_PRINTF(fmt, args)
#define CS_NORETURN
#define CS_API
#define CS_NODISCARD
#endif

/* The one error table. CS_OK must stay first (value 0). */
#define CS_ERR_LIST(X)                                                                             \
    X(CS_OK, "success")                                                                            \
    X(CS_ERR_USAGE, "bad command line")                                                            \
    X(CS_ERR_CONFIG, "invalid configuration")                                                      \
    X(CS_ERR_ARG, "invalid argument")                                                              \
    X(CS_ERR_NOMEM, "out of memory")                                                               \
    X(CS_ERR_IO, "I/O error")                                                                      \
    X(CS_ERR_FORMAT, "malformed input")                                                            \
    X(CS_ERR_SCHEMA, "unsupported file schema")                                                    \
    X(CS_ERR_HDF5, "HDF5 error")                                                                   \
    X(CS_ERR_MPI, "MPI error")                                                                     \
    X(CS_ERR_LIMIT, "size beyond a supported limit")                                               \
    X(CS_ERR_INTERNAL, "internal error")

#define CS_ERR_ENUM_(name, msg) name,
typedef enum cs_err { CS_ERR_LIST(CS_ERR_ENUM_) CS_ERR_COUNT_ } cs_err;
#undef CS_ERR_ENUM_

/* Local. The fixed message of an error code ("unknown error" for values outside the table). */
CS_API const char *cs_strerror(cs_err code);
/* Local. The symbolic name of an error code ("CS_ERR_IO"). */
CS_API const char *cs_errname(cs_err code);

/* Log levels: -q gives QUIET (errors only), default INFO, -v VERBOSE, -vv DEBUG. */
typedef enum cs_log_level {
    CS_LOG_ERROR = 0,
    CS_LOG_WARN = 1,
    CS_LOG_INFO = 2,
    CS_LOG_VERBOSE = 3,
    CS_LOG_DEBUG = 4
} cs_log_level;

#define CS_ERRMSG_MAX 1024

/* Kinds of collective operation, counted per context (cs_ctx.coll) for the cost side of
 * synchronisation studies: calls, and the payload bytes this rank puts in (an allreduce's or
 * allgather's n elements, an all-to-all's bytes for other ranks, a root's broadcast or scatter,
 * a non-root's gather). What the network carries depends on MPI's algorithm; this does not. */
typedef enum cs_coll {
    CS_COLL_ALLREDUCE, /* allreduce, exscan, reduce-scatter, cs_agree's */
    CS_COLL_ALLGATHER, /* allgather(v) */
    CS_COLL_ALLTOALL,  /* alltoall(v) */
    CS_COLL_ROOTED,    /* bcast, gather(v), scatterv */
    CS_COLL_BARRIER,
    CS_COLL_N
} cs_coll;
typedef struct cs_coll_stats {
    int64_t calls[CS_COLL_N];
    int64_t bytes[CS_COLL_N];
} cs_coll_stats;

/*
 * The per-process context. Caller-owned storage (cs_ctx_init / cs_ctx_fini); plain data so
 * that later layers (cs_sim) can embed it. comm is borrowed, never freed here.
 */
typedef struct cs_ctx {
    MPI_Comm comm;
    int rank;
    int size;
    cs_log_level level; /* messages above this level are dropped before formatting */
    int stderr_is_tty;  /* progress lines redraw in place only on a terminal */
    double t_start;     /* MPI_Wtime at init, for log time stamps */
    cs_err err;         /* last recorded error (cs_fail), CS_OK if none */
    char errmsg[CS_ERRMSG_MAX];
    cs_coll_stats coll; /* collectives made on comm since init (cs_ctx_count) */
} cs_ctx;

/* Bits set in x, inline: the x86-64 baseline has no popcnt instruction, so without it
 * (__POPCNT__, set by -mpopcnt or -march) __builtin_popcountll is a call into libgcc, which the
 * hot lookups (a host's slot, a page's local index) cannot afford. */
static inline int cs_popcount64(uint64_t x)
{
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int)((x * 0x0101010101010101u) >> 56);
#endif
}

/* Bits set in the words w[0..n). */
static inline int64_t cs_popcount_words(const uint64_t *w, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++)
        c += cs_popcount64(w[i]);
    return c;
}

/* Local. Counts one collective of `kind` with `bytes` of payload from this rank. */
static inline void cs_ctx_count(cs_ctx *ctx, cs_coll kind, int64_t bytes)
{
    ctx->coll.calls[kind]++;
    ctx->coll.bytes[kind] += bytes;
}

/* Local. Fills ctx for comm (borrowed). Never fails once MPI is initialised. */
CS_API void cs_ctx_init(cs_ctx *ctx, MPI_Comm comm, cs_log_level level);
/* Local. A context without MPI (comm = MPI_COMM_NULL, rank 0 of 1): for serial tools and unit
 * tests, which never call MPI_Init. cs_agree on it returns the local code. */
CS_API void cs_ctx_init_local(cs_ctx *ctx, cs_log_level level);
/* Local. Nothing to free today; kept for symmetry and future members. */
CS_API void cs_ctx_fini(cs_ctx *ctx);

/*
 * Local. Records a user-facing error message on this rank and returns code, so that
 * `return cs_fail(ctx, CS_ERR_CONFIG, "%s:%d: ...", file, line)` reads naturally. The first
 * message recorded wins until cs_ctx_clear_error; later calls only return their code. The
 * message should name the file, key or line at fault.
 */
CS_API cs_err cs_fail(cs_ctx *ctx, cs_err code, const char *fmt, ...) CS_PRINTF(3, 4);
/* Local. Forgets the recorded error. */
CS_API void cs_ctx_clear_error(cs_ctx *ctx);

/*
 * Collective(ctx->comm). Agreement of errors across ranks: every rank passes its local code;
 * every rank returns the same code, that of the lowest rank that failed (CS_OK if none), and
 * that rank's message is copied into every rank's ctx->errmsg. Call it after every locally
 * fallible step and before the next collective or branch (STYLE.md "Errors").
 */
CS_API CS_NODISCARD cs_err cs_agree(cs_ctx *ctx, cs_err local);

/*
 * Collective(ctx->comm). Prints the agreed error (message from cs_agree) once, from rank 0, to
 * stderr as "crawlsim: error: <message>" (or the code's fixed text when no message was given).
 */
CS_API void cs_report_error(const cs_ctx *ctx, cs_err code);

/* Local. Formats and prints a log line to stderr; use the macros below, which test the level
 * before evaluating any argument. */
CS_API void cs_log_print(const cs_ctx *ctx, cs_log_level level, int all_ranks, const char *fmt, ...)
    CS_PRINTF(4, 5);

/* Logically collective in spirit: prints from rank 0 only. */
#define CS_LOG(ctx, lvl, ...)                                                                      \
    do {                                                                                           \
        if ((ctx)->rank == 0 && (ctx)->level >= (lvl))                                             \
            cs_log_print((ctx), (lvl), 0, __VA_ARGS__);                                            \
    } while (0)
/* Local: every rank prints, prefixed "[r/size]". */
#define CS_LOG_ALL(ctx, lvl, ...)                                                                  \
    do {                                                                                           \
        if ((ctx)->level >= (lvl))                                                                 \
            cs_log_print((ctx), (lvl), 1, __VA_ARGS__);                                            \
    } while (0)

/*
 * Propagation with one goto ladder: the enclosing function declares `cs_err rc` and a label
 * `fail:` that releases what was acquired, in reverse order, and returns rc.
 */
#define CS_TRY(ctx, expr)                                                                          \
    do {                                                                                           \
        rc = (expr);                                                                               \
        if (rc != CS_OK) {                                                                         \
            if ((ctx) != NULL && (ctx)->level >= CS_LOG_DEBUG)                                     \
                cs_log_print((ctx), CS_LOG_DEBUG, 1, "%s:%d: %s -> %s", __FILE__, __LINE__, #expr, \
                             cs_errname(rc));                                                      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/*
 * Collective form of CS_TRY: agrees on the code of a locally fallible step (cs_agree) and
 * jumps to `fail:` on every rank alike when any rank failed. Same `rc` / `fail:` convention.
 */
#define CS_TRY_AGREE(ctx, expr)                                                                    \
    do {                                                                                           \
        rc = cs_agree((ctx), (expr));                                                              \
        if (rc != CS_OK)                                                                           \
            goto fail;                                                                             \
    } while (0)

/* Internal invariant failures: print "[rank r/size] file:line: expr" and MPI_Abort. */
CS_API CS_NORETURN void cs_assert_fail(const char *file, int line, const char *expr);
#define CS_ASSERT(expr) ((expr) ? (void)0 : cs_assert_fail(__FILE__, __LINE__, #expr))

/* Local. Opens path for reading as a regular file: opened without blocking and checked before
 * anything is read, so a FIFO, directory or device is one clear error ("KIND 'PATH' is not a
 * regular file") instead of a read that blocks forever or fails naming nothing. *fd is the open
 * descriptor (blocking again), for fdopen or gzdopen. CS_ERR_IO; when missing is not NULL, a
 * file that does not exist sets *missing = 1 and returns CS_OK with *fd = -1. */
CS_API cs_err cs_open_regular(cs_ctx *ctx, const char *path, const char *kind, int *fd,
                              int *missing);

/* Local. How many sockets (distinct physical_package_id under SYS_CPU/cpuN/topology; SYS_CPU
 * is /sys/devices/system/cpu on Linux) the CPUs cpus[0..n) belong to: 0 when any is unknown. */
CS_API int cs_cpu_packages(const char *sys_cpu, const int *cpus, int n);

/*
 * Local. Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent
 * huge pages (madvise MADV_HUGEPAGE), for arrays of at least CS_HUGE_MIN bytes read at random
 * places (the generator's model held by one rank, the frontier and its index, the visited bits,
 * the re-crawl cache): one TLB entry then covers 512 times the memory, and a random access takes
 * fewer page walks. The first `filled` bytes already hold data (an array realloc has moved:
 * its pages stay small until the kernel's background scan, which takes hours for gigabytes):
 * their whole 2 MiB pages are collapsed into huge pages now (MADV_COLLAPSE, Linux 6.1 or
 * later). Advice only: nothing happens when the kernel refuses it, below CS_HUGE_MIN, or with
 * CRAWLSIM_HUGE_PAGES=0 in the environment. Changes no result, only the time and the memory's
 * granularity. cs_alloc, cs_calloc and cs_grow call it on what they allocate.
 */
#define CS_HUGE_MIN ((size_t)4 << 20)
CS_API void cs_mem_huge(void *p, size_t bytes, size_t filled);

/* Local. malloc/calloc that record CS_ERR_NOMEM with the size and what it was for. */
CS_API cs_err cs_alloc(cs_ctx *ctx, void *out_ptr, size_t count, size_t size, const char *what);
CS_API cs_err cs_calloc(cs_ctx *ctx, void *out_ptr, size_t count, size_t size, const char *what);

/*
 * Local. Grows the array *pp (elements of size sz, capacity *cap elements) geometrically so
 * that it holds at least `need` elements; contents are kept (realloc). On failure *pp and *cap
 * are unchanged and CS_ERR_NOMEM is recorded naming `what`.
 */
CS_API cs_err cs_grow(cs_ctx *ctx, void *pp, size_t *cap, size_t need, size_t sz, const char *what);

#ifdef __clang_analyzer__
/* For the static analyser (tools/analyze), which does not see core.c from the other files: the
 * contracts the error paths rely on. cs_fail returns its code; cs_agree never agrees a local
 * failure away (it returns the lowest failing rank's code, and this rank is failing); cs_alloc
 * and cs_calloc succeed with a pointer. Without them every error path looks as if it could go
 * on with CS_OK. core.c defines the functions as (cs_fail), (cs_agree), (cs_alloc), (cs_calloc). */
static inline cs_err cs_agree_analysed(cs_ctx *ctx, cs_err local)
{
    const cs_err r = (cs_agree)(ctx, local);
    return local != CS_OK && r == CS_OK ? local : r;
}
static inline cs_err cs_alloc_analysed(cs_err r, void *out_ptr)
{
    return r == CS_OK && *(void **)out_ptr == NULL ? CS_ERR_NOMEM : r;
}
#define cs_fail(ctx, code, ...) ((cs_fail)(ctx, code, __VA_ARGS__), (cs_err)(code))
#define cs_agree(ctx, local) cs_agree_analysed(ctx, local)
#define cs_alloc(ctx, out, n, size, what)                                                          \
    cs_alloc_analysed((cs_alloc)(ctx, out, n, size, what), out)
#define cs_calloc(ctx, out, n, size, what)                                                         \
    cs_alloc_analysed((cs_calloc)(ctx, out, n, size, what), out)
#endif

/*
 * Progress of a long piece of work, printed by rank 0: on a terminal a line redrawn in place
 * at most 5 times a second; in a batch log (stderr not a terminal) one line every
 * `batch_interval` seconds. Silent below CS_LOG_INFO. done/total count rank 0's own share
 * (every rank does a similar share), so no communication is needed. With a unit (set after
 * cs_progress_begin, e.g. "links") the line also gives done and total in that unit and the rate.
 */
typedef struct cs_progress {
    const cs_ctx *ctx;
    const char *what;
    const char *unit; /* NULL: the percentage only */
    uint64_t total;
    double t_begin;
    double t_last;
    double interval;
    int printed;
} cs_progress;

CS_API void cs_progress_begin(cs_progress *p, const cs_ctx *ctx, const char *what, uint64_t total);
CS_API void cs_progress_update(cs_progress *p, uint64_t done);
CS_API void cs_progress_end(cs_progress *p);

/* Local. Monotonic wall-clock seconds (usable before MPI_Init). */
CS_API double cs_now(void);

/* Local. Quickselect (median-of-three pivot, branch-free Lomuto partition): reorders a[0..n) so
 * that a[k] is its k-th smallest value (0-based, 0 <= k < n), every element before it <= a[k]
 * and every element after it >= a[k]; returns a[k]. O(n) expected, also with many equal
 * values. */
CS_API uint64_t cs_select_u64(uint64_t *a, int64_t n, int64_t k);

/* Local. Sorts a[0..n) ascending: LSD radix sort on bytes (passes whose byte is the same in every
 * key are skipped), insertion sort below 64 keys. tmp: scratch of n keys. O(n) per pass. */
CS_API void cs_sort_u64(uint64_t *a, int64_t n, uint64_t *tmp);
/* Local. The first i in [0, n] with a[i] >= x in ascending a[0..n) (n if none). */
CS_API int64_t cs_lower_bound_i64(const int64_t *a, int64_t n, int64_t x);

#endif
