/*
 * import line reader: plain or gzip text read in 4 MiB blocks (smaller ones for files under 64 KiB)
 * through zlib (gzread passes plain
 * files through unchanged), split into lines in place. It is the only place that sees raw
 * bytes, so it also rejects what cannot be text: control bytes (NUL and the others below 0x20
 * but tab, vertical tab, form feed and carriage return; DEL), lines beyond 16 MiB, gzip streams
 * that end early or fail their checks, and empty files.
 */
#include "import_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)4 << 20)
#define SMALL ((size_t)64 << 10)

cs_err cs_imp_reader_open(cs_ctx *ctx, cs_imp_reader *r, const char *path, cs_progress *progress,
                          uint64_t progress_base)
{
    return cs_imp_reader_open_at(ctx, r, path, 0, progress, progress_base);
}

cs_err cs_imp_reader_open_at(cs_ctx *ctx, cs_imp_reader *r, const char *path, uint64_t offset,
                             cs_progress *progress, uint64_t progress_base)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->path = path;
    r->progress = progress;
    r->progress_base = progress_base;
    int fd = -1;
    {
        cs_err orc = cs_open_regular(ctx, path, "input", &fd, NULL);
        if (orc != CS_OK)
            return orc;
    }
    /* gzdopen reads from the descriptor's position: a plain file's byte range starts there */
    if (offset > 0 && lseek(fd, (off_t)offset, SEEK_SET) != (off_t)offset) {
        int err = errno;
        close(fd);
        return cs_fail(ctx, CS_ERR_IO, "%s: cannot seek to byte %llu: %s", path,
                       (unsigned long long)offset, strerror(err));
    }
    errno = 0;
    r->gz = gzdopen(fd, "rb");
    if (r->gz == NULL) {
        close(fd);
        return cs_fail(ctx, errno ? CS_ERR_IO : CS_ERR_NOMEM, "%s: cannot open: %s", path,
                       errno ? strerror(errno) : "out of memory");
    }
    /* small files (under SMALL bytes on disk) get small buffers: zlib's and the line buffer
     * grow with what they hold instead of taking 9 MiB for a few lines */
    struct stat st;
    const int small = fstat(fd, &st) == 0 && st.st_size < (off_t)SMALL;
    gzbuffer(r->gz, small ? 1u << 13 : 1u << 18);
    const size_t cap = small ? SMALL : 2 * CHUNK;
    cs_err rc = cs_alloc(ctx, &r->buf, cap + 1, 1, "line buffer");
    if (rc != CS_OK) {
        gzclose(r->gz);
        r->gz = NULL;
        return rc;
    }
    r->cap = cap;
    return CS_OK;
}

/* Message for a zlib-level failure after the last line returned. */
static cs_err gz_failure(cs_imp_reader *r, int errnum, const char *msg)
{
    if (errnum == Z_ERRNO)
        return cs_fail(r->ctx, CS_ERR_IO, "%s:%lld: read error: %s", r->path,
                       (long long)r->line + 1, strerror(errno));
    return cs_fail(r->ctx, CS_ERR_FORMAT, "%s:%lld: truncated or corrupt gzip data (%s)", r->path,
                   (long long)r->line + 1, msg != NULL ? msg : "unknown zlib error");
}

/* Reads the next block after the unread data, moving that data to the front first. */
static cs_err fill(cs_imp_reader *r)
{
    size_t avail = r->len - r->pos;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, avail);
        r->len = avail;
        r->pos = 0;
    }
    /* room for a block of CHUNK bytes, or half the buffer while it is smaller */
    if (r->cap - r->len < CHUNK && r->cap - r->len < r->cap / 2) {
        size_t nc = r->cap * 2;
        char *nb = realloc(r->buf, nc + 1);
        if (nb == NULL)
            return cs_fail(r->ctx, CS_ERR_NOMEM, "out of memory growing the line buffer of %s",
                           r->path);
        r->buf = nb;
        r->cap = nc;
    }
    const size_t want = r->cap - r->len < CHUNK ? r->cap - r->len : CHUNK;
    int got = gzread(r->gz, r->buf + r->len, (unsigned)want);
    int errnum = Z_OK;
    const char *msg = NULL;
    if (got < 0) {
        msg = gzerror(r->gz, &errnum);
        return gz_failure(r, errnum, msg);
    }
    if (got == 0) {
        /* A gzip stream cut short reads as end of file: only gzerror tells the difference. */
        msg = gzerror(r->gz, &errnum);
        if (errnum != Z_OK)
            return gz_failure(r, errnum, msg);
        r->eof = 1;
        if (r->bytes == 0)
            return cs_fail(r->ctx, CS_ERR_FORMAT, "%s:1: empty file", r->path);
    }
    r->len += (size_t)got;
    r->bytes += (uint64_t)got;
    if (r->progress != NULL)
        cs_progress_update(r->progress, r->progress_base + (uint64_t)gzoffset(r->gz));
    return CS_OK;
}

cs_err cs_imp_reader_next(cs_imp_reader *r, char **line, size_t *len)
{
    cs_err rc = CS_OK;
    *line = NULL;
    *len = 0;
    size_t scanned = 0; /* bytes of the pending line already known to hold no '\n' */
    char *s, *nl;
    size_t l;
    for (;;) {
        s = r->buf + r->pos;
        size_t avail = r->len - r->pos;
        nl = memchr(s + scanned, '\n', avail - scanned);
        if (nl != NULL) {
            l = (size_t)(nl - s);
            r->pos += l + 1;
            break;
        }
        if (r->eof) {
            if (avail == 0)
                return CS_OK;
            l = avail;
            r->pos = r->len;
            break;
        }
        if (avail > CS_IMP_LINE_MAX)
            return cs_fail(r->ctx, CS_ERR_FORMAT,
                           "%s:%lld: line longer than %zu MiB (binary or garbage file?)", r->path,
                           (long long)r->line + 1, CS_IMP_LINE_MAX >> 20);
        scanned = avail;
        CS_TRY(r->ctx, fill(r));
    }
    r->line++;
    if (l > CS_IMP_LINE_MAX)
        return cs_fail(r->ctx, CS_ERR_FORMAT,
                       "%s:%lld: line longer than %zu MiB (binary or garbage file?)", r->path,
                       (long long)r->line, CS_IMP_LINE_MAX >> 20);
    if (l > 0 && s[l - 1] == '\r')
        l--;
    const char *cr = memchr(s, '\r', l);
    if (cr != NULL)
        /* lines end at LF or CRLF; a CR inside a line is a file with CR-only line endings,
         * which read as one line would make "0 1\r1 2\r2 0" one link */
        return cs_fail(r->ctx, CS_ERR_FORMAT,
                       "%s:%lld: carriage return inside a line (column %zu): a file with CR-only "
                       "line endings (convert them: tr '\\r' '\\n')",
                       r->path, (long long)r->line, (size_t)(cr - s) + 1);
    for (size_t i = 0; i < l; i++) {
        /* Control bytes other than tab, vertical tab, form feed and carriage return are no text:
         * the message names the byte, never quotes it (a binary file would print garbage). */
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\v' && c != '\f' && c != '\r') || c == 0x7f) {
            size_t pl = strlen(r->path);
            int bv = pl >= 6 && strcmp(r->path + pl - 6, ".graph") == 0;
            return cs_fail(r->ctx, CS_ERR_FORMAT,
                           "%s:%lld: binary data (byte 0x%02x at column %zu): not a text file%s",
                           r->path, (long long)r->line, c, i + 1,
                           bv ? "; a WebGraph BVGraph .graph file is read with [import] "
                                "edge_format = bvgraph"
                              : "");
        }
    }
    s[l] = '\0'; /* overwrites the '\n', or buf[len] which is always writable */
    *line = s;
    *len = l;
    return CS_OK;
fail:
    return rc;
}

cs_err cs_imp_reader_close(cs_imp_reader *r)
{
    cs_err rc = CS_OK;
    if (r->gz != NULL) {
        int z = gzclose(r->gz);
        if (z == Z_BUF_ERROR)
            rc = cs_fail(r->ctx, CS_ERR_FORMAT, "%s:%lld: truncated gzip data", r->path,
                         (long long)r->line + 1);
        else if (z != Z_OK)
            rc = cs_fail(r->ctx, CS_ERR_IO, "%s: error closing the file", r->path);
        r->gz = NULL;
    }
    free(r->buf);
    r->buf = NULL;
    return rc;
}

void cs_imp_seps_init(cs_imp_seps *s, const char *chars)
{
    memset(s, 0, sizeof *s);
    if (chars == NULL || chars[0] == '\0')
        chars = " \t";
    for (const unsigned char *c = (const unsigned char *)chars; *c != '\0'; c++)
        s->is[*c] = 1;
    /* The line terminator never belongs to a field. */
    s->is['\r'] = 1;
}
