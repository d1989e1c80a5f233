/*
 * h5: parallel HDF5 helpers shared by the modules that keep files (graph files, partitions,
 * checkpoints, results, comparisons): HDF5 error-stack silencing, the MPI-IO file access list,
 * chunked collective 1-D dataset I/O, attributes, probing a file, and the temporary name and
 * directories of a file written atomically. Each names the file in its messages through `path`
 * (or `what`, a prefix such as "partition X"). HDF5 error printing should be off around them
 * (cs_h5_quiet_begin). Depends on core only.
 *
 * Test hook (read from the environment at each call, so no global state; it only shrinks
 * buffers, never changes results):
 *   CRAWLSIM_GRAPHIO_CHUNK  elements per H5Dwrite/H5Dread call (default 2^27)
 */
#ifndef CRAWLSIM_H5_H
#define CRAWLSIM_H5_H

#include "crawlsim/core.h"

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many elements per H5Dwrite/H5Dread: 2^27 x 8 bytes = 1 GiB, under the 2 GiB
 * limits that MPI-IO collective buffering has had. */
#define CS_H5_CHUNK_ELEMS ((int64_t)1 << 27)

/* Saved HDF5 automatic error printing, restored by cs_h5_quiet_end. */
typedef struct cs_h5_quiet {
    H5E_auto2_t func;
    void *data;
} cs_h5_quiet;

/* Local. Turns off HDF5's automatic error-stack printing, saving the previous handler. */
CS_API void cs_h5_quiet_begin(cs_h5_quiet *q);
/* Local. Restores the handler saved by cs_h5_quiet_begin. */
CS_API void cs_h5_quiet_end(const cs_h5_quiet *q);

/* The end of HDF5 in a process, called by every rank after its command and before
 * MPI_Finalize. Counts the HDF5 files, groups, datasets, attributes and named types still open
 * (none is left open by a command that ended, well or in error: one left open is a defect, and
 * HDF5 would close it during MPI_Finalize, a file opened with MPI-IO by a collective close that
 * the other ranks may never make) and reports them on stderr, one line naming the rank, the count
 * and the files ("left open at exit", which the tests look for). Then shuts HDF5 down with
 * H5close while MPI still works, so that no HDF5 clean-up runs inside or after MPI_Finalize.
 * Returns the number of objects that were open. The SMPI build, whose simulated ranks share one
 * process, does nothing here. */
CS_API int cs_h5_finish(int rank);

/* Local. A file access list for MPI-IO on comm, or H5I_INVALID_HID. */
CS_API hid_t cs_h5_fapl(MPI_Comm comm);
/* Local. A dataset transfer list for MPI-IO, collective (collective != 0) or independent, or
 * H5I_INVALID_HID; the caller closes it. */
CS_API hid_t cs_h5_dxpl(int collective);
/* Collective(comm). H5Fopen(path, flags) with that access list; negative on failure. In the SMPI
 * build (serial HDF5) cs_h5_fapl has no access list and cs_h5_fopen opens files for reading only,
 * each rank on its own (src/h5/h5.c). */
CS_API hid_t cs_h5_fopen(MPI_Comm comm, const char *path, unsigned flags);

/* Local. Elements per HDF5 I/O call (CS_H5_CHUNK_ELEMS or the CRAWLSIM_GRAPHIO_CHUNK hook). */
CS_API int64_t cs_h5_chunk_elems(void);

/*
 * Collective(ctx->comm). Writes count elements of buf (memory type mtype, element size elem)
 * to the 1-D dataset dset at element offset off, in calls of at most cs_h5_chunk_elems()
 * elements; every rank makes the same number of calls (allreduced maximum), ranks with
 * nothing (left) to write select none. The calls are collective transfers when the ranks'
 * ranges are disjoint or identical, independent otherwise (see src/h5/h5.c). A local HDF5 failure
 * is recorded with a message naming path and name, the remaining calls are still made (with empty
 * selections), and the local code is returned: the caller agrees on it with cs_agree.
 */
CS_API cs_err cs_h5_write_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                             const void *buf, size_t elem, const char *path, const char *name);
/* Collective(ctx->comm). Reading counterpart of cs_h5_write_1d. */
CS_API cs_err cs_h5_read_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                            void *buf, size_t elem, const char *path, const char *name);
/* Collective(ctx->comm). Creates the 1-D dataset `leaf` of `total` elements of file type ftype
 * in loc (no fill pass: every element is written) and writes this rank's count elements from
 * buf at element off with cs_h5_write_1d. Messages start with `what` (e.g. "graph file X") and
 * name the dataset `name` (cs_h5_write_1d's: path and name). Returns an agreed code. */
CS_API cs_err cs_h5_create_write_1d(cs_ctx *ctx, hid_t loc, const char *leaf, hid_t ftype,
                                    hid_t mtype, size_t elem, int64_t total, int64_t off,
                                    int64_t count, const void *buf, const char *what,
                                    const char *path, const char *name);

/* Local (call it on one rank, before HDF5 opens the file, and agree): path exists, is a regular
 * file and is HDF5; else CS_ERR_IO / CS_ERR_FORMAT "<kind> <path>: ..." ("no such file", "is not
 * an HDF5 file"). kind names the file's role, e.g. "graph file". */
CS_API cs_err cs_h5_probe(cs_ctx *ctx, const char *path, const char *kind);

/*
 * The reader contract (docs/reference/formats.md, "Reading"): every attribute and dataset a
 * reader uses is checked before it is read: its type class, for integers that the values fit
 * the memory type unchanged (HDF5 would clamp them), its dataspace's rank and extent, and for a
 * dataset that its storage is all there. A damaged object is CS_ERR_FORMAT naming `what` (the
 * file, e.g. "graph file X") and the object, never a read past a buffer.
 */

/* Longest fixed-length string attribute read (bytes). */
#define CS_H5_STRING_MAX (1 << 20)

/* Local. The reader contract for an object of any type and shape (crawlsim compare reads every
 * object of two files): attribute (is_attr) or dataset x, named name in messages that start
 * with `what`, has a readable type of a nonzero size and a dataspace (scalar, null or simple)
 * whose bytes are representable; an attribute, read whole, fits the node's memory; a
 * dataset's storage is all written (a chunked dataset with chunks never written reads as fill
 * values of any claimed size: a small file could make its reader loop over 2^40 elements). */
CS_API cs_err cs_h5_object_check(cs_ctx *ctx, hid_t x, int is_attr, const char *name,
                                 const char *what);
/* Local. Attribute `name` of obj holding exactly n values (a scalar when n is 1, or a 1-D
 * array of n) of class cls (H5T_INTEGER or H5T_FLOAT), read as mtype into out[n]; an integer
 * outside mtype's range is refused, not clamped. Missing or another class, shape or count:
 * CS_ERR_FORMAT "<what>: attribute ...". */
CS_API cs_err cs_h5_attr_read_n(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls,
                                hid_t mtype, int64_t n, void *out, const char *what);
/* Local. cs_h5_attr_read_n with n = 1. */
CS_API cs_err cs_h5_attr_read(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls,
                              hid_t mtype, void *out, const char *what);
/* Local. One string (fixed length up to CS_H5_STRING_MAX bytes, or variable length), a scalar
 * or a 1-D array of one, into out[cap] whole: a string of cap bytes or more is CS_ERR_FORMAT
 * "<what>: attribute <name> is a string of N bytes, longer than the cap - 1 it may hold" (never
 * cut: a cut string reads as another value). */
CS_API cs_err cs_h5_attr_read_string(cs_ctx *ctx, hid_t obj, const char *name, char *out,
                                     size_t cap, const char *what);
/* Local. CS_ERR_NOMEM "<path>: dataset <name>: N elements of E bytes need X GiB, more than
 * this node's memory (Y GiB)" when count elements of elem bytes exceed the node's physical
 * memory (a count read from a file, checked before the allocation it would size; overcommitted
 * memory would accept it and fail only when touched). */
CS_API cs_err cs_h5_check_memory(cs_ctx *ctx, int64_t count, size_t elem, const char *path,
                                 const char *name);
/* Local. Whether HDF5 converts every value of the integer file type ft to the integer memory
 * type mt unchanged (by size and sign). */
CS_API int cs_h5_int_fits(hid_t ft, hid_t mt);
/*
 * Local. Checks the open dataset d (called `name` in messages) before it is read: a 1-D
 * array of class cls (H5T_INTEGER or H5T_FLOAT), whose integer type fits the memory type mt
 * (when mt >= 0), of `expect` elements unless expect < 0 (expect_what explains the
 * expectation), with all its storage allocated (a chunked dataset with chunks never written is
 * refused: it would read as fill values of any claimed size). *len receives its length.
 */
CS_API cs_err cs_h5_dset_check(cs_ctx *ctx, hid_t d, const char *name, H5T_class_t cls, hid_t mt,
                               int64_t expect, const char *expect_what, int64_t *len,
                               const char *what);
/* Local, but HDF5 metadata: every rank calls it with the same values. Scalar attribute. */
CS_API cs_err cs_h5_attr_write(cs_ctx *ctx, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                               const void *val, const char *what);
/* Local, HDF5 metadata as above. Fixed-length NUL-terminated string attribute. */
CS_API cs_err cs_h5_attr_write_string(cs_ctx *ctx, hid_t loc, const char *name, const char *val,
                                      const char *what);

/* Local. The temporary name ".<name>.tmp.<pid>" beside path (*tmp) and path's directory (*dir),
 * both new strings (free()). CS_ERR_ARG when path names a directory; kind names the file's role
 * in messages ("results file"). */
CS_API cs_err cs_h5_tmp_name(cs_ctx *ctx, const char *kind, const char *path, long pid, char **tmp,
                             char **dir);

/* Local. Makes dir (path's directory, modified and restored) and its missing parents (mkdir -p):
 * CS_ERR_IO "cannot create <kind> <path>: directory ...". */
CS_API cs_err cs_h5_make_dirs(cs_ctx *ctx, const char *kind, const char *path, char *dir);

/* A file a command reads or writes, named in messages by its role (kind: "graph file"). */
typedef struct cs_h5_file {
    const char *kind;
    const char *path; /* NULL: not used this time (skipped) */
} cs_h5_file;
/*
 * Collective(ctx->comm), with the same arguments on every rank. The check a command makes
 * before it writes anything (src/h5/h5_paths.c): no output of outs[0..nout) is one of the
 * inputs ins[0..nin) or another output (the same path, or the same file by device and inode),
 * and each output can be created where it goes (its name is not empty and not a directory; its
 * nearest existing ancestor is a directory where a file can be created, which is tried, so a
 * read-only mount is found as root too). Rank 0 checks, the code is agreed. Errors name both
 * files: CS_ERR_ARG (an output onto an input, an empty name), CS_ERR_IO (cannot be created).
 */
CS_API cs_err cs_h5_check_outputs(cs_ctx *ctx, const cs_h5_file *outs, int nout,
                                  const cs_h5_file *ins, int nin);
/* Local. CS_ERR_IO "cannot write <kind> <path>: it needs about N MB and DIR has M MB free" when
 * the file system of path's directory has less than need bytes free (0: not known, CS_OK). */
CS_API cs_err cs_h5_check_space(cs_ctx *ctx, const char *kind, const char *path, uint64_t need);
/* Bytes reserved beyond a file's end of allocation by cs_h5_reserve: room for the metadata HDF5
 * allocates before the next reservation (an object header, its attributes, a group). */
#define CS_H5_RESERVE_SLACK ((uint64_t)16 << 10)
/* Bytes of the ballast cs_h5_room_take takes before a temporary is created: room for what the
 * close after a failed write still writes (the metadata HDF5 holds). */
#define CS_H5_ROOM ((uint64_t)64 << 10)
/*
 * Collective(ctx->comm) when collective, else Local. Before the temporary tmp is created: rank 0
 * (or the caller) takes CS_H5_ROOM bytes of disk in a ballast file "<tmp>.room", given
 * back by cs_h5_close_tmp (before the close after a failure, so that the metadata HDF5 still
 * writes then finds room even on a disk another process filled; after it on success) or by
 * cs_h5_room_give. Returns the agreed code: CS_ERR_IO "<what>: no room for its N MB of metadata:
 * <reason>" when the disk cannot give it.
 */
CS_API cs_err cs_h5_room_take(cs_ctx *ctx, const char *tmp, int collective, const char *what);
/* Local (rank 0 when collective). Removes tmp's ballast, if any (cs_h5_room_take). */
CS_API void cs_h5_room_give(cs_ctx *ctx, const char *tmp, int collective);
/*
 * Collective(ctx->comm) when collective (a file opened with cs_h5_fapl), else Local. Reserves
 * on disk the blocks of the file that obj belongs to, as far as HDF5 has allocated it (its end
 * of allocation, H5Fget_filesize) plus CS_H5_RESERVE_SLACK, without changing its size
 * (fallocate with FALLOC_FL_KEEP_SIZE, on rank 0), so that the writes that follow cannot run out
 * of space on one rank while the others wait in a collective call (src/h5/h5_paths.c). A file
 * system that cannot reserve counts as success. Returns the agreed code: CS_ERR_IO "<what>: no
 * room for its N MB: <reason> (is the disk full?)" on a full disk or quota.
 */
CS_API cs_err cs_h5_reserve(cs_ctx *ctx, hid_t obj, int collective, const char *what);
/*
 * Closes `file`, being written under the temporary name tmp, so that a failed write (a full
 * disk) neither crashes nor hangs: rc is agreed first (collective); when it is CS_OK the file's
 * blocks are reserved (cs_h5_reserve, agreed) and it is flushed (a failure there is reported as
 * CS_ERR_IO), so that no rank enters the collective flush or close knowing it fails; after any
 * failure the ballast of cs_h5_room_take is given back and the file's blocks reserved again
 * (or, when that fails, the temporary truncated to nothing) before the close, so that HDF5's
 * remaining writes find room, and the temporary is removed after it. A close that fails
 * would leave HDF5 a half-closed file on which it crashes in MPI_Finalize. Collective(ctx->comm)
 * with every rank's rc agreed when collective (a file opened with cs_h5_fapl), else Local.
 * Returns the agreed code: rc, or the flush's or the close's failure; on success the temporary
 * is complete and closed, to be renamed by the caller.
 */
CS_API cs_err cs_h5_close_tmp(cs_ctx *ctx, hid_t file, const char *tmp, int collective, cs_err rc,
                              const char *what);
/*
 * Local (the rank that removes the temporary: rank 0). While tmp is written: SIGTERM, SIGINT
 * and SIGHUP, where their action is the default one, remove tmp first and then kill the process
 * with the same signal (src/h5/h5_guard.c); a signal with a handler of its own keeps it. One
 * temporary per process at a time (a new guard replaces the previous one); cs_h5_tmp_unguard
 * restores the actions, after the temporary is renamed or removed. Not thread-safe: call from
 * the main thread.
 */
CS_API void cs_h5_tmp_guard(const char *tmp);
CS_API void cs_h5_tmp_unguard(void);
/* Local. A malloc'd copy of s, or NULL when out of memory. */
CS_API char *cs_h5_dup_str(const char *s);

#endif
