/*
 * slice: plain in-memory data of web pages, as produced by the generator and the importer and as
 * read from and written to graph files; the lowest graph layer (it depends on core only).
 *
 * cs_graph_slice holds a contiguous range of page ids [first, first + n) of a graph with
 * n_pages_total pages: their out-links in CSR form with global target ids and their page
 * attributes. The generator and the graph-file I/O work rank by rank on such slices.
 * cs_graph_meta holds the replicated host and topic tables. The names keep the cs_graph_ prefix
 * they had when this was part of graph.h.
 *
 * Ownership: every array is owned by the slice and freed by cs_graph_slice_fini. Optional
 * arrays are NULL when absent.
 */
#ifndef CRAWLSIM_SLICE_H
#define CRAWLSIM_SLICE_H

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

#endif
