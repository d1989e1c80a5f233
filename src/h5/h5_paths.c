/*
 * h5 paths: the check every command makes before it writes anything: no output may
 * overwrite one of the command's inputs or another of its outputs (same path, or the same file
 * by device and inode), and every output must be creatable where it is going to be written, so
 * that a mistyped or read-only path is found at start-up, not after hours of crawling; the free
 * space an output needs, where it can be known; the space a file being written is about to
 * take, reserved before it is written; and the close of a temporary whose writing failed (a full
 * disk), which must neither crash nor hang.
 *
 * A full disk and collective writes: HDF5's collective flush and close fail on the rank whose
 * write failed while the other ranks wait for it in MPI_File_sync or a barrier (a hang), and a
 * close that failed leaves HDF5 a half-closed file on which it crashes in MPI_Finalize. So no
 * rank enters one of them that another rank knows will fail: before every collective dataset
 * write (cs_h5_write_1d) and before the final flush, rank 0 reserves the blocks of the whole
 * file as HDF5 has allocated it (its end of allocation, plus CS_H5_RESERVE_SLACK for the metadata
 * allocated before the next reservation) with fallocate(FALLOC_FL_KEEP_SIZE), and the ranks agree
 * on the outcome. Writes into reserved blocks cannot run out of space; a reservation that fails is
 * an error agreed before anything is written. The close after an agreed failure first truncates the
 * temporary, which gives back at least the slack the close's own metadata writes need.
 */
#define _GNU_SOURCE /* fallocate */
#include "crawlsim/comm.h"
#include "crawlsim/h5.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
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

/* Local. Where blocks cannot be reserved in a file without changing its size: whether the
 * bytes of [0, len) that path does not hold yet (its blocks on disk) are free on its file
 * system (statvfs): 0, or ENOSPC. Not a reservation: a disk already too full fails here, before
 * any rank writes, but another process that fills the disk afterwards is found by the write.
 * (Writing zeros into a ballast instead would cost, at every reservation, the whole unwritten
 * rest of a dataset HDF5 has allocated at once.) */
static int check_bytes(const char *path, uint64_t len)
{
    struct stat st;
    struct statvfs vfs;
    if (stat(path, &st) != 0)
        return errno;
    const uint64_t held = (uint64_t)st.st_blocks * 512;
    if (len <= held || statvfs(path, &vfs) != 0)
        return 0; /* nothing more to take, or not known: the write finds out */
    return (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize >= len - held ? 0 : ENOSPC;
}

/* Local. Reserves the blocks of bytes [0, len) of file path without changing its size
 * (fallocate with FALLOC_FL_KEEP_SIZE): 0, or the errno of the failure. A file system that
 * cannot (EOPNOTSUPP: NFS, some parallel file systems), or CRAWLSIM_H5_RESERVE=check (the
 * tests of that path), gets check_bytes instead. */
static int reserve_bytes(const char *path, uint64_t len)
{
    const char *mode = getenv("CRAWLSIM_H5_RESERVE");
    if (mode != NULL && strcmp(mode, "check") == 0)
        return check_bytes(path, len);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return errno;
    int err = EOPNOTSUPP;
#ifdef FALLOC_FL_KEEP_SIZE
    err = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)len) != 0 ? errno : 0;
#else
    (void)len;
#endif
    close(fd);
    return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL ? check_bytes(path, len) : err;
}

/* Local. The end of what HDF5 has allocated of the file of obj, as far as can be told: the end
 * of allocation (H5Fget_filesize; the MPI-IO driver cannot tell it after a write), the bytes
 * on disk, and, for a dataset, the end of its storage (allocated when it is created, in
 * parallel HDF5). 0 when none is known; the file's name into name[cap]. */
static uint64_t file_end(hid_t obj, char *name, size_t cap)
{
    uint64_t end = 0;
    name[0] = '\0';
    hid_t f = H5Iget_file_id(obj);
    if (f < 0)
        return 0;
    hsize_t size = 0;
    ssize_t nl = H5Fget_name(f, name, cap);
    if (nl <= 0 || (size_t)nl >= cap)
        name[0] = '\0';
    if (H5Fget_filesize(f, &size) >= 0)
        end = (uint64_t)size;
    H5Fclose(f);
    struct stat st;
    if (name[0] != '\0' && stat(name, &st) == 0 && (uint64_t)st.st_size > end)
        end = (uint64_t)st.st_size;
    if (H5Iget_type(obj) == H5I_DATASET) {
        const haddr_t off = H5Dget_offset(obj);
        const uint64_t dend = off != HADDR_UNDEF ? (uint64_t)off + H5Dget_storage_size(obj) : 0;
        end = dend > end ? dend : end;
    }
    return end;
}

cs_err cs_h5_reserve(cs_ctx *ctx, hid_t obj, int collective, const char *what)
{
    cs_err rc = CS_OK;
    if (!collective || ctx->rank == 0) {
        cs_h5_quiet quiet;
        cs_h5_quiet_begin(&quiet);
        char name[4096];
        const uint64_t need = file_end(obj, name, sizeof name) + CS_H5_RESERVE_SLACK;
        cs_h5_quiet_end(&quiet);
        if (name[0] == '\0')
            rc = cs_fail(ctx, CS_ERR_HDF5, "%s: HDF5 cannot tell the file's name", what);
        int err = rc == CS_OK ? reserve_bytes(name, need) : 0;
        if (err != 0)
            rc = cs_fail(ctx, CS_ERR_IO, "%s: no room for its %.3g MB: %s (is the disk full?)",
                         what, (double)need / 1e6, strerror(err));
    }
    return collective ? cs_agree(ctx, rc) : rc;
}

/* Local. The name of tmp's ballast, "<tmp>.room", into buf[cap]; 0 when it does not fit. */
static int room_name(const char *tmp, char *buf, size_t cap)
{
    return snprintf(buf, cap, "%s.room", tmp) < (int)cap;
}

cs_err cs_h5_room_take(cs_ctx *ctx, const char *tmp, int collective, const char *what)
{
    cs_err rc = CS_OK;
    char room[4096 + 8];
    if ((!collective || ctx->rank == 0) && room_name(tmp, room, sizeof room)) {
        int err = 0, fd = open(room, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            err = errno;
        else if ((err = posix_fallocate(fd, 0, (off_t)CS_H5_ROOM)) != 0)
            err = err == EOPNOTSUPP || err == ENOSYS || err == EINVAL ? -1 : err;
        if (fd >= 0)
            close(fd);
        if (err != 0) /* no room, or nothing to gain where blocks cannot be reserved */
            unlink(room);
        if (err > 0)
            rc = cs_fail(ctx, CS_ERR_IO, "%s: no room for its %.3g MB of metadata: %s%s", what,
                         (double)CS_H5_ROOM / 1e6, strerror(err),
                         err == ENOSPC || err == EDQUOT ? " (is the disk full?)" : "");
    }
    return collective ? cs_agree(ctx, rc) : rc;
}

void cs_h5_room_give(cs_ctx *ctx, const char *tmp, int collective)
{
    char room[4096 + 8];
    if ((!collective || ctx->rank == 0) && room_name(tmp, room, sizeof room))
        unlink(room);
}

/* Local. CRAWLSIM_H5_HOLD=SECONDS (tests): the writer holds a complete temporary that long
 * before its flush and close, so that a signal sent once the temporary appears always arrives
 * during the write, however fast the machine writes. Nothing else changes. */
static void hold_tmp(void)
{
    const char *v = getenv("CRAWLSIM_H5_HOLD");
    char *end = NULL;
    const double sec = v != NULL ? strtod(v, &end) : 0.0;
    if (v == NULL || end == v || *end != '\0' || !(sec > 0.0) || sec > 600.0)
        return;
    struct timespec ts = {(time_t)sec, (long)((sec - (double)(time_t)sec) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

cs_err cs_h5_close_tmp(cs_ctx *ctx, hid_t file, const char *tmp, int collective, cs_err rc,
                       const char *what)
{
    cs_h5_quiet quiet;
    cs_h5_quiet_begin(&quiet);
    const int writer = !collective || ctx->rank == 0;
    if (writer && rc == CS_OK)
        hold_tmp();
    /* Agreed before any collective flush or close: a rank that enters one that another rank
     * knows will fail waits there forever. */
    if (collective)
        rc = cs_agree(ctx, rc);
    /* The flush writes the metadata HDF5 still holds: into reserved blocks, so that it cannot
     * run out of space on one rank only (a hang) and the close after it has nothing to write
     * (a close that fails leaves HDF5 a half-closed file on which it crashes in MPI_Finalize). */
    if (rc == CS_OK)
        rc = cs_h5_reserve(ctx, file, collective, what);
    if (rc == CS_OK && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = cs_fail(ctx, CS_ERR_IO, "%s: HDF5 failed writing %s (is the disk full?)", what, tmp);
    if (collective)
        rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        /* The temporary is abandoned, but the close still writes the metadata HDF5 holds: into
         * the blocks reserved so far (those of the data written, the slack for the metadata
         * allocated since, and the ballast given back here, taken before the file was created:
         * cs_h5_room_take). When not even those can be had, the temporary gives back all its
         * space first (it is removed below), which another process filling the disk could take
         * again: the one case that can still fail. */
        cs_h5_room_give(ctx, tmp, collective);
        struct stat st;
        if (writer &&
            (stat(tmp, &st) != 0 ||
             reserve_bytes(tmp, (uint64_t)st.st_size + CS_H5_RESERVE_SLACK) != 0) &&
            truncate(tmp, 0) != 0)
            CS_LOG(ctx, CS_LOG_DEBUG, "truncating %s: %s", tmp, strerror(errno));
        if (collective)
            cs_barrier(ctx);
    }
    if (H5Fclose(file) < 0 && rc == CS_OK)
        rc = cs_fail(ctx, CS_ERR_IO, "%s: HDF5 failed closing %s (is the disk full?)", what, tmp);
    if (collective)
        rc = cs_agree(ctx, rc); /* every rank has closed the file before it is removed */
    cs_h5_room_give(ctx, tmp, collective);
    struct stat st;
    if (rc == CS_OK && writer && stat(tmp, &st) == 0 && truncate(tmp, st.st_size) != 0)
        CS_LOG(ctx, CS_LOG_DEBUG, "giving back the blocks reserved past the end of %s: %s", tmp,
               strerror(errno)); /* the same size: only the reservation beyond it goes */
    if (rc != CS_OK && writer)
        unlink(tmp);
    cs_h5_quiet_end(&quiet);
    return rc;
}
