/*
 * h5 paths: the check every command makes before it writes anything: no output may
 * overwrite one of the command's inputs or another of its outputs (same path, or the same file
 * by device and inode), and every output must be creatable where it is going to be written, so
 * that a mistyped or read-only path is found at start-up, not after hours of crawling; the free
 * space an output needs, where it can be known; and the close of a temporary whose writing
 * failed (a full disk), which must neither crash nor hang.
 */
#include "crawlsim/comm.h"
#include "crawlsim/h5.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Local. The directory part of path into dir[cap] ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* Local. 1 when a and b are the same file: both exist with one device and inode, or neither
 * exists and they name one entry of one directory. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb)
        return 0;
    if (strcmp(a, b) == 0)
        return 1;
    if (strcmp(base_of(a), base_of(b)) != 0)
        return 0;
    char da[4096], db[4096];
    dir_of(a, da, sizeof da);
    dir_of(b, db, sizeof db);
    return stat(da, &sa) == 0 && stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Local. Whether the output `path` can be written the way every writer of crawlsim writes (a
 * temporary beside it, renamed over it; missing directories made): path is not a directory,
 * its nearest existing ancestor directory is one, and a file can be created there (tried: as
 * root, permission bits say nothing, and a read-only mount only shows when writing). */
static cs_err check_writable(cs_ctx *ctx, const cs_h5_file *out)
{
    struct stat st;
    if (out->path[0] == '\0')
        return cs_fail(ctx, CS_ERR_ARG, "cannot create %s '': the name is empty", out->kind);
    if (stat(out->path, &st) == 0 && S_ISDIR(st.st_mode))
        return cs_fail(ctx, CS_ERR_ARG, "cannot create %s %s: it is a directory", out->kind,
                       out->path);
    char dir[4096];
    if (strlen(out->path) >= sizeof dir)
        return cs_fail(ctx, CS_ERR_ARG, "cannot create %s %s: the name is too long", out->kind,
                       out->path);
    dir_of(out->path, dir, sizeof dir);
    /* the nearest ancestor that exists (the writers make the missing ones) */
    while (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return cs_fail(ctx, CS_ERR_IO, "cannot create %s %s: %s: %s", out->kind, out->path, dir,
                           strerror(errno));
        char up[4096];
        dir_of(dir, up, sizeof up);
        if (strcmp(up, dir) == 0)
            break;
        snprintf(dir, sizeof dir, "%s", up);
    }
    if (!S_ISDIR(st.st_mode))
        return cs_fail(ctx, CS_ERR_IO, "cannot create %s %s: %s is not a directory", out->kind,
                       out->path, dir);
    char probe[4096 + 64];
    snprintf(probe, sizeof probe, "%s/.crawlsim-probe.%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno != EEXIST)
        return cs_fail(ctx, CS_ERR_IO, "cannot create %s %s: directory %s: %s", out->kind,
                       out->path, dir, strerror(errno));
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    return CS_OK;
}

/* Local. The check of cs_h5_check_outputs on one rank. */
static cs_err check_local(cs_ctx *ctx, const cs_h5_file *outs, int nout, const cs_h5_file *ins,
                          int nin)
{
    for (int i = 0; i < nout; i++) {
        if (outs[i].path == NULL)
            continue;
        for (int j = 0; j < nin; j++)
            if (ins[j].path != NULL && ins[j].path[0] != '\0' &&
                same_file(outs[i].path, ins[j].path))
                return cs_fail(ctx, CS_ERR_ARG,
                               "%s %s would overwrite %s %s (the same file): choose another "
                               "output",
                               outs[i].kind, outs[i].path, ins[j].kind, ins[j].path);
        for (int j = 0; j < i; j++)
            if (outs[j].path != NULL && outs[i].path[0] != '\0' &&
                same_file(outs[i].path, outs[j].path))
                return cs_fail(ctx, CS_ERR_ARG, "%s %s and %s %s are the same file", outs[j].kind,
                               outs[j].path, outs[i].kind, outs[i].path);
        cs_err rc = check_writable(ctx, &outs[i]);
        if (rc != CS_OK)
            return rc;
    }
    return CS_OK;
}

cs_err cs_h5_check_outputs(cs_ctx *ctx, const cs_h5_file *outs, int nout, const cs_h5_file *ins,
                           int nin)
{
    cs_err local = CS_OK;
    if (ctx->rank == 0)
        local = check_local(ctx, outs, nout, ins, nin);
    return cs_agree(ctx, local);
}

cs_err cs_h5_check_space(cs_ctx *ctx, const char *kind, const char *path, uint64_t need)
{
    char dir[4096];
    struct statvfs vfs;
    if (strlen(path) >= sizeof dir)
        return CS_OK; /* cs_h5_check_outputs says so */
    dir_of(path, dir, sizeof dir);
    if (need == 0 || statvfs(dir, &vfs) != 0)
        return CS_OK; /* not known: the write finds out */
    const uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    if (avail >= need)
        return CS_OK;
    return cs_fail(ctx, CS_ERR_IO,
                   "cannot write %s %s: it needs about %.3g MB and %s has %.3g MB free", kind, path,
                   (double)need / 1e6, dir, (double)avail / 1e6);
}

cs_err cs_h5_close_tmp(cs_ctx *ctx, hid_t file, const char *tmp, int collective, cs_err rc,
                       const char *what)
{
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    /* The metadata HDF5 still holds is written here, where a full disk can fail it cleanly;
     * a failing H5Fclose instead leaves HDF5 a half-closed file on which it crashes when the
     * library shuts down (in MPI_Finalize). */
    if (rc == CS_OK && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = cs_fail(ctx, CS_ERR_IO, "%s: HDF5 failed writing %s (is the disk full?)", what, tmp);
    if (collective)
        rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        /* the temporary is abandoned: give back its space, so that the close's own writes of
         * what is still dirty find room (the file is removed below) */
        if ((!collective || ctx->rank == 0) && truncate(tmp, 0) != 0)
            CS_LOG(ctx, CS_LOG_DEBUG, "truncating %s: %s", tmp, strerror(errno));
        if (collective)
            cs_barrier(ctx);
    }
    if (H5Fclose(file) < 0 && rc == CS_OK)
        rc = cs_fail(ctx, CS_ERR_IO, "%s: HDF5 failed closing %s (is the disk full?)", what, tmp);
    if (collective)
        rc = cs_agree(ctx, rc); /* every rank has closed the file before it is removed */
    if (rc != CS_OK && (!collective || ctx->rank == 0))
        unlink(tmp);
    cs_h5_quiet_end(&quiet);
    return rc;
}
