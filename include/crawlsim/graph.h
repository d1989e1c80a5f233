/*
 * graph: plain in-memory data of web pages, as produced by the generator and the importers and
 * as read from and written to graph files.
 *
 * cs_graph_slice holds a contiguous range of page ids [first, first + n) of a graph with
 * n_pages_total pages: their out-links in CSR form with global target ids and their page
 * attributes. The generator and the graph-file I/O work rank by rank on such slices.
 *
 * cs_graph (opaque) is the run-time graph of one rank under a partition: the rank's own pages
 * (any set of ids, sorted) as CSR with global target ids, their attributes, a local index
 * (page id -> local position) and an owner lookup for every page id (page id -> rank), both
 * O(1). It is loaded collectively from a graph file (cs_graph_load), each rank reading only
 * the pages it owns.
 *
 * Ownership: every array is owned by the slice and freed by cs_graph_slice_fini. Optional
 * arrays are NULL when absent. A cs_graph owns its arrays; the accessors below return
 * borrowed, read-only pointers valid until cs_graph_destroy.
 */
#ifndef CRAWLSIM_GRAPH_H
#define CRAWLSIM_GRAPH_H

#include "crawlsim/core.h"

#include <stdint.h>

typedef struct cs_graph_slice {
    /* global sizes */
    int64_t n_pages_total;
    int64_t n_links_total;
    int64_t n_hosts;
    int32_t n_topics;

    /* this slice */
    int64_t first;      /* first page id */
    int64_t n;          /* pages in the slice */
    int64_t link_first; /* global index of this slice's first link (offsets are local) */
    int64_t *offsets;   /* n + 1 local offsets, offsets[0] = 0 */
    int64_t *targets;   /* offsets[n] global target page ids, each page's list sorted, unique */
    uint32_t *weights;  /* optional link multiplicities (imported weighted graphs), or NULL */

    int64_t *host;       /* host id of each page, in [0, n_hosts) */
    int32_t *topic;      /* topic (label) of each page, in [0, n_topics), -1 = unknown */
    double *relevance;   /* relevance to the target topic, in [0,1] */
    double *delta;       /* change rate: Poisson changes per time unit, > 0 */
    double *mu;          /* importance, > 0 */
    uint8_t *observable; /* 1 = changes observable without a crawl (sitemaps) */

    /* Optional sparse term features of imported pages (CSR over the slice), or NULL. */
    int32_t term_dim;
    int64_t *term_offsets; /* n + 1 */
    int32_t *term_index;   /* term_offsets[n] feature indices in [0, term_dim) */
    float *term_value;
} cs_graph_slice;

/* Global tables of hosts and topics (replicated: every rank holds the whole table). */
typedef struct cs_graph_meta {
    int64_t n_hosts;
    int32_t n_topics;
    int32_t target_topic; /* the focused crawl's target topic, -1 if none */
    /* optional names (imported graphs): names[i] is a NUL-terminated string inside `blob` */
    char *host_blob;        /* all host names, NUL separated, or NULL */
    int64_t *host_name_off; /* n_hosts offsets into host_blob, or NULL */
    char *topic_blob;
    int64_t *topic_name_off; /* n_topics offsets into topic_blob, or NULL */
    char source[256];        /* "gen" or "import:<spec file>" */
    uint64_t seed;
} cs_graph_meta;

/* Local. Zeroes a slice (all arrays NULL). */
CS_API void cs_graph_slice_init(cs_graph_slice *g);
/* Local. Frees every array of the slice and zeroes it; accepts a zeroed slice. */
CS_API void cs_graph_slice_fini(cs_graph_slice *g);
/*
 * Local. Allocates the page arrays for n pages and offsets (n + 1, offsets[0] = 0) and the
 * targets for n_links links; optional arrays stay NULL. CS_ERR_NOMEM with a message.
 */
CS_API cs_err cs_graph_slice_alloc(cs_ctx *ctx, cs_graph_slice *g, int64_t n, int64_t n_links);

CS_API void cs_graph_meta_init(cs_graph_meta *m);
CS_API void cs_graph_meta_fini(cs_graph_meta *m);
/* Local. Host name i, or NULL when the graph has no host names. */
CS_API const char *cs_graph_meta_host_name(const cs_graph_meta *m, int64_t i);
/* Local. Topic name i, or NULL when the graph has no topic names. */
CS_API const char *cs_graph_meta_topic_name(const cs_graph_meta *m, int32_t i);

/* Local. The block decomposition used for slices: rank r of p gets pages
 * [r*n/p + min(r, n%p) ...) - i.e. the first n % p ranks get one page more. */
CS_API void cs_block_range(int64_t n, int rank, int size, int64_t *first, int64_t *count);

/* ---- cs_graph: the partitioned graph of a run ------------------------------------------- */

typedef struct cs_graph cs_graph;
struct cs_partition; /* partition.h */

/*
 * Collective(ctx->comm). Logically collective: graph_path, partition_path. Loads this rank's
 * part of the graph file graph_path under the partition stored in partition_path (a separate
 * partition file), or in the /partition group of graph_path when partition_path is NULL. It is
 * cs_partition_read followed by cs_graph_load_with. On success *out is a new graph (free with
 * cs_graph_destroy); on failure *out is untouched and every rank returns the same code and
 * message: a partition made for another rank count (CS_ERR_ARG, asking to re-partition), a
 * partition of another graph (CS_ERR_ARG), or any graph-file or partition-file error.
 */
CS_API cs_err cs_graph_load(cs_ctx *ctx, const char *graph_path, const char *partition_path,
                            cs_graph **out);

/*
 * Collective(ctx->comm). Logically collective: graph_path, part (identical, replicated on
 * every rank). Loads the pages that `part` gives to this rank (part->part[p] == ctx->rank)
 * from graph_path: their out-links (CSR, global target ids) and attributes, read with
 * collective HDF5 reads of the owned page runs only, and validated as cs_graphio_read_slice
 * validates (offsets monotone, targets in [0, N) and sorted per page, hosts and topics in
 * range). part is borrowed; the graph keeps a narrow copy of the owner map (1, 2 or 4 bytes
 * per page, or the k + 1 range table of a block partition with part_first). Errors, the same
 * on every rank: part->k != ctx->size (CS_ERR_ARG: "run crawlsim partition ... -k <size>"),
 * part->n_pages (or a nonzero part->n_links) different from the file's (CS_ERR_ARG), a part
 * id outside [0, k) or a part_first inconsistent with part (CS_ERR_FORMAT), graph-file
 * errors as cs_graphio_read_slice, CS_ERR_NOMEM, CS_ERR_LIMIT (more than 2^31 - 2 local
 * pages). On success *out is a new graph (cs_graph_destroy); on failure *out is untouched.
 */
CS_API cs_err cs_graph_load_with(cs_ctx *ctx, const char *graph_path,
                                 const struct cs_partition *part, cs_graph **out);

/* Local. Frees the graph and sets *g = NULL; accepts NULL and *g == NULL. */
CS_API void cs_graph_destroy(cs_graph **g);

/* Local. Global sizes: pages, links, hosts, topics of the whole graph; the number of parts
 * (ranks) and the rank this graph belongs to. */
CS_API int64_t cs_graph_n_pages(const cs_graph *g);
CS_API int64_t cs_graph_n_links(const cs_graph *g);
CS_API int64_t cs_graph_n_hosts(const cs_graph *g);
CS_API int32_t cs_graph_n_topics(const cs_graph *g);
CS_API int cs_graph_n_parts(const cs_graph *g);
CS_API int cs_graph_rank(const cs_graph *g);

/* Local. Pages and out-links owned by this rank. */
CS_API int64_t cs_graph_n_local(const cs_graph *g);
CS_API int64_t cs_graph_n_local_links(const cs_graph *g);

/*
 * Local. Borrowed arrays (valid until cs_graph_destroy, never freed by the caller), indexed by
 * local index i in [0, n_local):
 *   local_ids  the global id of local page i, strictly increasing
 *   offsets    n_local + 1 local CSR offsets (offsets[0] = 0): local page i links to
 *   targets    targets[offsets[i] .. offsets[i+1]), global page ids, sorted per page
 *   host, topic, relevance, delta, mu, observable: the page attributes (graphio.h)
 * With n_local = 0 the pointers are valid but must not be dereferenced (offsets[0] = 0).
 */
CS_API const int64_t *cs_graph_local_ids(const cs_graph *g);
CS_API const int64_t *cs_graph_offsets(const cs_graph *g);
CS_API const int64_t *cs_graph_targets(const cs_graph *g);
CS_API const int64_t *cs_graph_host(const cs_graph *g);
CS_API const int32_t *cs_graph_topic(const cs_graph *g);
CS_API const double *cs_graph_relevance(const cs_graph *g);
CS_API const double *cs_graph_delta(const cs_graph *g);
CS_API const double *cs_graph_mu(const cs_graph *g);
CS_API const uint8_t *cs_graph_observable(const cs_graph *g);

/* Local, O(1). The local index of global page `page`, or -1 when this rank does not own it
 * (or page is outside [0, n_pages)). Contiguous ownership: a subtraction; otherwise an
 * open-addressing hash over the local ids. */
CS_API int64_t cs_graph_local_index(const cs_graph *g, int64_t page);

/* Local, O(1). The rank owning page `page`, which must lie in [0, n_pages) (asserted). */
CS_API int cs_graph_owner(const cs_graph *g, int64_t page);

#endif
