/*
 * ckpt: checkpoint files of `crawlsim run` (parallel HDF5, collective I/O, atomic).
 *
 * A checkpoint holds the state of every rank at a tick boundary as named items. Each item is a
 * 1-D array per rank; the file stores one dataset per item with every rank's piece in rank
 * order and their lengths in the dataset's attribute "counts" (int64 [ranks]), so a rank reads
 * back exactly the piece it wrote. Items are written and read collectively: every rank calls
 * cs_ckpt_put / cs_ckpt_get with the same names, types and order, whatever its local data
 * (n may be 0). Item names are paths ("frontier/id"); groups are created as needed.
 *
 *   /          root attributes: format "crawlsim-checkpoint" (string), schema_version
 *              (int32, CS_CKPT_SCHEMA_VERSION), crawlsim_version (string), ranks (int32)
 *   /<item>    1-D dataset of the item's type (little-endian), attributes counts int64 [ranks]
 *              and checksums uint64 [ranks] (a 64-bit hash of each rank's piece, as it is in
 *              memory)
 *
 * A checkpoint is read by the same schema version and crawlsim version on the same number of
 * ranks (all three are checked); structs stored as bytes (CS_CK_BYTES) assume the same build
 * and architecture. Raise CS_CKPT_SCHEMA_VERSION whenever an item of any module is added,
 * removed, renamed or moved, or changes type or meaning: the crawlsim version alone does not
 * change between commits, and an older checkpoint would be read as something it is not.
 *
 * Validated when read: an item's shape must match its counts (checked before the collective
 * read, the same way on every rank), and each rank's piece its checksum (HDF5 1.10 checks no raw
 * data); any failure is agreed, so damage gives one clear error on every rank, never a run on
 * damaged state. The modules check what would index out of bounds on top of that.
 *
 * Atomic: the file is written under ".<name>.tmp.<pid>" in the target's directory and renamed
 * by rank 0 after every rank closed it and it was fsync'ed; a crash at any point leaves the
 * previous checkpoint at path intact. Errors are agreed: every rank returns the same code.
 */
#ifndef CRAWLSIM_CKPT_H
#define CRAWLSIM_CKPT_H

#include "crawlsim/core.h"

#include <stddef.h>
#include <stdint.h>

#define CS_CKPT_FORMAT "crawlsim-checkpoint"
/* 1: the first; 2: the bandit re-crawl state's items moved (one bandit registry); 3: run/visited
 * holds the owned layout on more than one rank (local pages, then ghosts: sim_visited.c); 4: every
 * item carries its pieces' checksums; 5: run/world (the world's fingerprint); 6: the frontier's
 * compact entries (frontier/id int32, the 24-byte frontier/link records) */
#define CS_CKPT_SCHEMA_VERSION 6

typedef struct cs_ckpt cs_ckpt;

/* Element types of items. CS_CK_BYTES: raw bytes (structs of this build). */
typedef enum cs_ckpt_type {
    CS_CK_BYTES,
    CS_CK_I32,
    CS_CK_I64,
    CS_CK_U64,
    CS_CK_F32,
    CS_CK_F64
} cs_ckpt_type;

/* Collective(ctx->comm). Logically collective: path. Starts a checkpoint to be written at path
 * (under its temporary name until cs_ckpt_commit). Errors: CS_ERR_IO (directory, file),
 * CS_ERR_HDF5. */
CS_API cs_err cs_ckpt_create(cs_ctx *ctx, const char *path, cs_ckpt **out);

/* Collective(ctx->comm). Logically collective: name, type. Writes this rank's n elements of
 * data (may be NULL when n = 0) as item `name`. Errors: CS_ERR_ARG (an item written twice, a
 * mismatch of name or type between ranks), CS_ERR_HDF5, CS_ERR_MPI. */
CS_API cs_err cs_ckpt_put(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, int64_t n,
                          const void *data);

/* Collective. The file is complete: closed, fsync'ed and renamed to its path; *ck is freed
 * and set to NULL (also on failure, which leaves no temporary behind). */
CS_API cs_err cs_ckpt_commit(cs_ctx *ctx, cs_ckpt **ck);

/* Collective(ctx->comm). Logically collective: path. Opens a checkpoint and checks format,
 * schema version, crawlsim version and the number of ranks (CS_ERR_IO, CS_ERR_FORMAT,
 * CS_ERR_SCHEMA, CS_ERR_ARG "written on P ranks"). */
CS_API cs_err cs_ckpt_open(cs_ctx *ctx, const char *path, cs_ckpt **out);

/* Collective. Logically collective: name, type. This rank's piece of item `name`: *n elements
 * in a new array *(T **)data (at least one element allocated; free() it). Errors:
 * CS_ERR_FORMAT (missing item, other type, a shape that is not its counts', a piece that is not
 * its checksum's), CS_ERR_NOMEM, CS_ERR_HDF5. */
CS_API cs_err cs_ckpt_get(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type, int64_t *n,
                          void *data);

/* Collective. As cs_ckpt_get into the caller's buf of exactly n elements: CS_ERR_FORMAT when
 * the stored piece has another length. */
CS_API cs_err cs_ckpt_get_exact(cs_ctx *ctx, cs_ckpt *ck, const char *name, cs_ckpt_type type,
                                int64_t n, void *buf);

/* Local. The item name "prefix/name" in buf[len] (truncated to fit); returns buf. */
CS_API const char *cs_ckpt_item(char *buf, size_t len, const char *prefix, const char *name);

/* Collective. Closes a checkpoint opened for reading (or abandons one being written: its
 * temporary file is removed). Accepts NULL and *ck == NULL; sets *ck = NULL. */
CS_API void cs_ckpt_close(cs_ctx *ctx, cs_ckpt **ck);

/* Local. The path the checkpoint was created or opened with. */
CS_API const char *cs_ckpt_path(const cs_ckpt *ck);

#endif
