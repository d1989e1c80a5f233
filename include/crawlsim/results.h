/*
 * results: the results file of `crawlsim run` (schema below). Depends on core and h5.
 */
#ifndef CRAWLSIM_RESULTS_H
#define CRAWLSIM_RESULTS_H

#include "crawlsim/core.h"

#include <stdint.h>

/*
 * The results file of `crawlsim run`, schema version 1 (the source for docs/reference/formats.md
 * "Results format"). Small (KB to MB): assembled in memory on every rank, written by rank 0 alone
 * with the default (sec2) HDF5 driver, under ".<name>.tmp.<pid>" in the target directory, renamed
 * when complete; on any failure nothing is left behind.
 *
 *   /          root attributes: format "crawlsim-results" (string), schema_version 1 (int32),
 *              crawlsim_version (string, CRAWLSIM_VERSION), plus any the caller adds
 *   /<path>    the caller's datasets: int64 / float64 / uint8, little-endian, 1-D [rows] or
 *              2-D [rows][cols], compact when at most 4 KiB, contiguous otherwise, no filters;
 *              text datasets are scalar fixed-length NUL-terminated strings (ASCII tag)
 *
 * Conventions of `crawlsim run` (DESIGN.md "Files"): /config (text, the resolved job INI),
 * /series/<metric> [sync points] or [sync points][k], /ranks/<metric> [ranks] (gathered),
 * /final/..., and wall-clock measurements only under /timing. Object modification times are
 * not stored and objects are written in path order, so two runs that record the same data
 * give byte-identical files; only /timing differs between identical runs.
 */
#define CS_RESULTS_FORMAT "crawlsim-results"
#define CS_RESULTS_SCHEMA_VERSION 1
/* Longest attribute value accepted (bytes, without the NUL): attributes live in object
 * headers; put long text in a dataset (cs_results_add_text). */
#define CS_RESULTS_ATTR_MAX 16384

/* A results file being assembled in memory (opaque). */
typedef struct cs_results cs_results;

/* Element types of results datasets: int64_t, double, uint8_t. */
typedef enum cs_results_type { CS_RES_I64, CS_RES_F64, CS_RES_U8 } cs_results_type;

/* Local. An empty results file in memory; *out set on success only. Errors: CS_ERR_NOMEM. */
CS_API cs_err cs_results_create(cs_ctx *ctx, cs_results **out);
/* Local. Frees *r (NULL and *r == NULL are fine) and sets *r = NULL. */
CS_API void cs_results_destroy(cs_results **r);

/*
 * Local. Records a 1-D [rows] (cols = 0) or 2-D [rows][cols] dataset of `type` at `path`
 * ("series/fetched", "/final/weights"; a leading '/' is optional; components are non-empty and
 * not "." or ".."); intermediate groups are created when the file is written. data (row-major,
 * rows * max(cols, 1) elements; may be NULL when that is 0) is copied on rank 0; other ranks
 * only record the path and shape, so they may call it with the same arguments (and detect the
 * same errors) or not at all. Errors (nothing recorded): CS_ERR_ARG for a bad path, type or
 * shape, a path recorded before, a path that lies below a recorded dataset or above one (a
 * dataset cannot also be a group) or above an attribute's path; CS_ERR_LIMIT for a size that
 * overflows; CS_ERR_NOMEM.
 */
CS_API cs_err cs_results_add(cs_ctx *ctx, cs_results *r, const char *path, cs_results_type type,
                             int64_t rows, int64_t cols, const void *data);

/*
 * Local. A string attribute `name` = value (copied) on the object at path: "" or "/" is the
 * root; a recorded dataset gets the attribute on the dataset; any other path is a group
 * (created, empty if nothing is recorded below it). Errors: CS_ERR_ARG for a bad path, an
 * empty name, a name given twice on one path, a reserved root attribute (format,
 * schema_version, crawlsim_version) or a path below a recorded dataset; CS_ERR_LIMIT for a
 * value longer than CS_RESULTS_ATTR_MAX; CS_ERR_NOMEM.
 */
CS_API cs_err cs_results_attr(cs_ctx *ctx, cs_results *r, const char *path, const char *name,
                              const char *value);

/* Local. A scalar string dataset at path holding text (copied on rank 0), e.g. "config" with
 * the resolved job INI text. Path rules and errors as cs_results_add. */
CS_API cs_err cs_results_add_text(cs_ctx *ctx, cs_results *r, const char *path, const char *text);

/*
 * Collective(ctx->comm). Logically collective: path, type, cols (checked: CS_ERR_ARG when the
 * ranks differ). Gathers `cols` (>= 1) values of `type` from local on every rank, in rank
 * order, into a [size] (cols == 1) or [size][cols] dataset at path, recorded as by
 * cs_results_add ("ranks/fetched"). Every rank returns the same code: CS_ERR_ARG,
 * CS_ERR_LIMIT (cols * element size above INT_MAX), CS_ERR_NOMEM, CS_ERR_MPI.
 */
CS_API cs_err cs_results_gather(cs_ctx *ctx, cs_results *r, const char *path, cs_results_type type,
                                int64_t cols, const void *local);

/*
 * Collective(ctx->comm). Logically collective: path (rank 0's is used). Rank 0 writes the
 * root attributes and everything recorded (datasets and attributes in path order) to path,
 * creating its missing parent directories (mkdir -p), under a temporary name renamed (after
 * fsync) when complete; an existing file at path is replaced. r stays usable (written again,
 * added to). Every rank returns the same code and message (cs_agree): CS_ERR_IO "cannot
 * create results file <path>: ..." (directory, temporary file, fsync, rename), CS_ERR_HDF5
 * naming the file and the dataset or attribute, CS_ERR_ARG (r or path NULL or empty). On
 * failure neither path nor the temporary exists afterwards (an older file at path is kept).
 */
CS_API cs_err cs_results_write(cs_ctx *ctx, cs_results *r, const char *path);

#endif
