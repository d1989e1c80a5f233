/*
 * graphio internals shared by h5write.c, h5read.c and info.c: reading a page range of an open
 * graph file and validating it (the generic HDF5 helpers are the module h5).
 *
 * Test hook (read from the environment at each call, so no global state; it only shrinks
 * buffers, never changes results):
 *   CRAWLSIM_INFO_ROUND     reciprocity queries a rank sends per exchange round (default
 *                           2^23 / ranks)
 */
#ifndef CRAWLSIM_GRAPHIO_IMPL_H
#define CRAWLSIM_GRAPHIO_IMPL_H

#include "crawlsim/graphio.h"

#include <hdf5.h>

/* The most topics a graph file may declare beyond its page count (the generator's gen.topics
 * limit): n_topics sizes per-topic tables before any page is read. */
#define CS_GRAPHIO_TOPICS_MAX 65536

/*
 * Local. The root attributes and the dataset inventory of the open graph file (path names it in
 * messages) into h: every attribute and dataset through the reader contract (h5.h), the counts
 * against each other and against what the file holds. Every rank reads the same metadata and
 * gives the same verdict; cs_graphio_open agrees it. The fuzzing harness of the HDF5 readers
 * calls it on a file image in memory.
 */
cs_err gio_read_header(cs_ctx *ctx, hid_t file, const char *path, cs_graph_header *h);

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

#endif
