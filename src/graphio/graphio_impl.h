/*
 * graphio internals shared by h5common.c, h5write.c, h5read.c and info.c: HDF5 error-stack
 * silencing, the MPI-IO file access list, chunked collective 1-D dataset I/O, opening and
 * validating a graph file, and reading a page range.
 *
 * Test hooks (read from the environment at each call, so no global state; they only shrink
 * buffers, never change results):
 *   CRAWLSIM_GRAPHIO_CHUNK  elements per H5Dwrite/H5Dread call (default 2^27)
 *   CRAWLSIM_INFO_ROUND     reciprocity queries a rank sends per exchange round (default
 *                           2^23 / ranks)
 */
#ifndef CRAWLSIM_GRAPHIO_IMPL_H
#define CRAWLSIM_GRAPHIO_IMPL_H

#include "crawlsim/graphio.h"

#include <hdf5.h>

/* At most this many elements per H5Dwrite/H5Dread: 2^27 x 8 bytes = 1 GiB, under the 2 GiB
 * limits that MPI-IO collective buffering has had. */
#define GIO_CHUNK_ELEMS ((int64_t)1 << 27)

/* Saved HDF5 automatic error printing, restored by gio_quiet_end. */
typedef struct gio_quiet {
    H5E_auto2_t func;
    void *data;
} gio_quiet;

/* Local. Turns off HDF5's automatic error-stack printing, saving the previous handler. */
void gio_quiet_begin(gio_quiet *q);
/* Local. Restores the handler saved by gio_quiet_begin. */
void gio_quiet_end(const gio_quiet *q);

/* Local. A file access list for MPI-IO on comm, or H5I_INVALID_HID. */
hid_t gio_fapl(MPI_Comm comm);

/* Local. Elements per HDF5 I/O call (GIO_CHUNK_ELEMS or the CRAWLSIM_GRAPHIO_CHUNK hook). */
int64_t gio_chunk_elems(void);

/*
 * Collective(ctx->comm). Writes count elements of buf (memory type mtype, element size elem)
 * to the 1-D dataset dset at element offset off, in calls of at most gio_chunk_elems()
 * elements; every rank makes the same number of calls (allreduced maximum), ranks with
 * nothing (left) to write select none. The calls are collective transfers when the ranks'
 * ranges are disjoint or identical, independent otherwise (see h5common.c). A local HDF5 failure is
 * recorded with a message naming path and name, the remaining calls are still made (with empty
 * selections), and the local code is returned: the caller agrees on it with cs_agree.
 */
cs_err gio_write_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                    const void *buf, size_t elem, const char *path, const char *name);
/* Collective(ctx->comm). Reading counterpart of gio_write_1d. */
cs_err gio_read_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count, void *buf,
                   size_t elem, const char *path, const char *name);

/*
 * Collective(ctx->comm). Logically collective: path. Opens a graph file with the MPI-IO
 * driver, checks it (exists, is HDF5, is a crawlsim graph of schema version 1, all required
 * datasets present with consistent sizes and types) and fills hdr. On success *file is the
 * open file (close with H5Fclose, collectively); on failure *file is H5I_INVALID_HID and every
 * rank returns the same code and message. HDF5 error printing must already be off.
 */
cs_err gio_open(cs_ctx *ctx, const char *path, hid_t *file, cs_graph_header *hdr);

/* What gio_read_pages reads besides offsets and targets. */
enum {
    GIO_READ_PAGES = 1,   /* host, topic, relevance, delta, mu, observable */
    GIO_READ_WEIGHTS = 2, /* when present */
    GIO_READ_TERMS = 4    /* when present */
};

/*
 * Collective(ctx->comm). Reads pages [first, first + n) of the open graph file into g (which
 * must be empty, as after cs_graph_slice_init) and validates what it read (offsets monotone
 * and within [0, n_links], targets in [0, N) and sorted, host and topic ids in range). On
 * failure g is left empty. Same code on every rank.
 */
cs_err gio_read_pages(cs_ctx *ctx, hid_t file, const char *path, const cs_graph_header *hdr,
                      int64_t first, int64_t n, unsigned what, cs_graph_slice *g);

/*
 * Collective(ctx->comm). Reads `count` elements at `off` of the 1-D dataset `name` (memory
 * type mtype, element size elem) into a new array *(T **)out of at least one element, freed
 * by the caller. Returns an agreed code; on failure *out is NULL.
 */
cs_err gio_read_range(cs_ctx *ctx, hid_t file, const char *path, const char *name, hid_t mtype,
                      size_t elem, int64_t off, int64_t count, void *out);

/* Local. Every v[i] of the n values read from dataset `name` at element `first` lies in
 * [lo, hi); a format error naming the first bad element otherwise. */
cs_err gio_check_ids64(cs_ctx *ctx, const char *path, const char *name, const int64_t *v,
                       int64_t first, int64_t n, int64_t lo, int64_t hi);
cs_err gio_check_ids32(cs_ctx *ctx, const char *path, const char *name, const int32_t *v,
                       int64_t first, int64_t n, int64_t lo, int64_t hi);

/* Local. The rank owning page v under cs_block_range(n, ., size). */
int gio_block_owner(int64_t n, int size, int64_t v);

#endif
