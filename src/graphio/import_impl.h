/*
 * Internals of `crawlsim import` shared between src/graphio/import*.c: the line reader over
 * plain or gzip files, the in-place tokenizer, strtoll-free integer parsing and the string
 * table that numbers node, host and topic names.
 */
#ifndef CRAWLSIM_IMPORT_IMPL_H
#define CRAWLSIM_IMPORT_IMPL_H

#include "crawlsim/core.h"

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* Longest accepted line: anything longer is taken for a binary or garbage file. */
#define CS_IMP_LINE_MAX ((size_t)16 << 20)

/* ---- line reader (import_reader.c) ---- */

/*
 * Reads a plain or gzip file line by line in big blocks (zlib reads plain files
 * transparently). Lines are returned in place, NUL-terminated, without "\n" or "\r\n"; they
 * stay valid until the next call. A line holding a NUL byte or longer than CS_IMP_LINE_MAX,
 * truncated or corrupt gzip data and an empty file are CS_ERR_FORMAT errors naming the file
 * and line; failures of the system calls are CS_ERR_IO.
 */
typedef struct cs_imp_reader {
    cs_ctx *ctx;
    const char *path; /* borrowed, for messages */
    gzFile gz;
    char *buf;
    size_t cap, len, pos; /* unread data in buf[pos, len); buf[len] is writable */
    int64_t line;         /* number of the line last returned (1-based) */
    uint64_t bytes;       /* uncompressed bytes read so far */
    int eof;
    cs_progress *progress; /* may be NULL: updated with compressed bytes read */
    uint64_t progress_base;
} cs_imp_reader;

/* Local. Opens path (CS_ERR_IO naming it if it cannot be opened). progress may be NULL. */
cs_err cs_imp_reader_open(cs_ctx *ctx, cs_imp_reader *r, const char *path, cs_progress *progress,
                          uint64_t progress_base);
/* Local. Next line into *line (length *len); *line = NULL at the end of the file. */
cs_err cs_imp_reader_next(cs_imp_reader *r, char **line, size_t *len);
/* Local. Closes the file; reports a gzip stream that ended early. Accepts a closed reader. */
cs_err cs_imp_reader_close(cs_imp_reader *r);

/* ---- tokenizer ---- */

/* A 256-entry membership table of separator characters. */
typedef struct cs_imp_seps {
    uint8_t is[256];
} cs_imp_seps;

/* Local. Builds the table from a string of separator characters (empty: space and tab). */
void cs_imp_seps_init(cs_imp_seps *s, const char *chars);

/* Local. Skips separators at *p, then returns the length of the token starting there (0 at the
 * end of the line) in *tok, and leaves *p after it. Runs of separators count as one. */
static inline size_t cs_imp_token(const cs_imp_seps *s, const char **p, const char *end,
                                  const char **tok)
{
    const char *q = *p;
    while (q < end && s->is[(unsigned char)*q])
        q++;
    const char *t = q;
    while (q < end && !s->is[(unsigned char)*q])
        q++;
    *tok = t;
    *p = q;
    return (size_t)(q - t);
}

/* Result of integer parsing. */
enum { CS_IMP_NUM_OK = 0, CS_IMP_NUM_BAD = 1, CS_IMP_NUM_RANGE = 2 };

/*
 * Local. Parses a non-negative decimal integer of exactly len characters (an optional '+',
 * then digits). CS_IMP_NUM_BAD if it is not one; CS_IMP_NUM_RANGE if it is negative ("-"
 * followed by digits) or greater than max.
 */
static inline int cs_imp_parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (len > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return CS_IMP_NUM_BAD;
    uint64_t v = 0;
    int big = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - (unsigned)'0';
        if (d > 9)
            return CS_IMP_NUM_BAD;
        if (v > (UINT64_MAX - d) / 10)
            big = 1;
        else
            v = v * 10 + d;
    }
    if (neg && (v != 0 || big))
        return CS_IMP_NUM_RANGE;
    if (big || v > max)
        return CS_IMP_NUM_RANGE;
    *out = v;
    return CS_IMP_NUM_OK;
}

/* ---- string table (import_strtab.c) ---- */

/*
 * Numbers distinct strings 0, 1, 2, ... in order of first insertion: open addressing (linear
 * probing, load <= 1/2) over an arena that holds every string once, NUL-terminated. The arena
 * with the offsets is exactly the "blob + offsets" layout of cs_graph_meta's name tables.
 */
typedef struct cs_imp_strtab {
    char *arena;
    size_t arena_len, arena_cap;
    int64_t *off; /* off[id]: start of string id in arena */
    int32_t n;
    size_t off_cap;
    int32_t *slot;  /* id, or -1 for an empty slot */
    uint32_t *tag;  /* high hash bits of the slot's string, to skip most comparisons */
    size_t n_slots; /* a power of two, or 0 before the first insertion */
} cs_imp_strtab;

/* Local. An empty table (no allocation). */
void cs_imp_strtab_init(cs_imp_strtab *t);
/* Local. Frees the table and empties it. */
void cs_imp_strtab_fini(cs_imp_strtab *t);
/* Local. The id of s[0, len): found, or inserted as the next id (*added = 1). `what` names the
 * table in messages (CS_ERR_NOMEM, or CS_ERR_LIMIT beyond 2^31 - 2 strings). */
cs_err cs_imp_strtab_intern(cs_ctx *ctx, cs_imp_strtab *t, const char *s, size_t len, int32_t *id,
                            int *added, const char *what);
/* Local. The id of s[0, len), or -1. */
int32_t cs_imp_strtab_find(const cs_imp_strtab *t, const char *s, size_t len);
/* Local. String id (NUL-terminated, inside the arena). */
static inline const char *cs_imp_strtab_get(const cs_imp_strtab *t, int32_t id)
{
    return t->arena + t->off[id];
}

#endif
