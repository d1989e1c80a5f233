/*
 * graphio: HDF5 graph files through parallel HDF5 (collective hyperslab I/O), their versioned
 * schema, and whole-graph statistics (`crawlsim info`).
 *
 * Graph file format, schema version 1 (the source for docs/reference/formats.md "Graph file"):
 *
 *   /                   root group attributes:
 *                         format         string  "crawlsim-graph"
 *                         schema_version int32   1
 *                         n_pages (N), n_links (M), n_hosts (H)      int64
 *                         n_topics (K), target_topic (-1 = none)     int32
 *                         seed           uint64
 *                         source         string  "gen" or "import:<spec file>"
 *                         spec           string  the resolved INI text of the generator or
 *                                                importer (may be empty)
 *   /pages/host         int32*  [N]    host id in [0, H)
 *   /pages/topic        int32   [N]    topic in [0, K), -1 = unknown
 *   /pages/relevance    float64 [N]    relevance to the target topic, finite, in [0, 1]
 *   /pages/delta        float64 [N]    Poisson change rate (changes per time unit), finite, > 0
 *   /pages/mu           float64 [N]    importance, finite, > 0
 *   /pages/observable   uint8   [N]    1 = changes observable without a crawl, else 0
 *   /links/offsets      int64   [N+1]  CSR offsets: the out-links of page p are
 *                                      targets[offsets[p] .. offsets[p+1]); offsets[0] = 0,
 *                                      offsets[N] = M, non-decreasing
 *   /links/targets      int32*  [M]    target page ids in [0, N), strictly increasing within
 *                                      each page (sorted, no duplicates); self links allowed
 *   /links/weights      uint32  [M]    optional: link multiplicities (imported graphs)
 *   /hosts/name_offsets int64   [H]    optional (imported graphs): host i's name is the
 *   /hosts/names        uint8   [B]    NUL-terminated string at names[name_offsets[i]]
 *   /topics/name_offsets int64  [K]    optional: topic names, likewise
 *   /topics/names       uint8   [B]
 *   /terms/offsets      int64   [N+1]  optional sparse page features (imported graphs), CSR
 *   /terms/index        int32   [T]    like /links: feature indices in [0, dim)
 *   /terms/value        float32 [T]    finite
 *   /terms              attribute dim (int32): the feature dimension
 *
 * (*) Page and host ids are written as int32 when N <= 2^31 - 1 (always today: the generator and
 * the importer cap N there for METIS), else int64; readers request native int64 and let HDF5
 * convert, so either width reads the same. Halving the largest dataset halves the write.
 *
 * Readers check every value against these ranges (cs_graphio_check_*), and that integer datasets
 * are of types whose values fit the readers' (HDF5 would clamp them silently otherwise).
 * All datasets are 1-D and contiguous, written little-endian. An optional dataset is either
 * absent or complete. Readers check format and schema_version first: a file of another
 * version is refused with a message asking to regenerate it (no silent conversion). Files are
 * written with the HDF5 1.8 object format (readable by HDF5 >= 1.8 and h5py), under a
 * temporary name ".<name>.tmp.<pid>" in the target directory, renamed when complete.
 */
#ifndef CRAWLSIM_GRAPHIO_H
#define CRAWLSIM_GRAPHIO_H

#include "crawlsim/core.h"
#include "crawlsim/h5.h"
#include "crawlsim/slice.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>

#define CS_GRAPH_FORMAT "crawlsim-graph"
#define CS_GRAPH_SCHEMA_VERSION 1

/* Header of a graph file (root attributes). */
typedef struct cs_graph_header {
    int schema_version;
    int64_t n_pages;
    int64_t n_links;
    int64_t n_hosts;
    int32_t n_topics;
    int32_t target_topic;
    uint64_t seed;
    int has_weights;
    int has_terms;
    int has_host_names;
    int has_topic_names;
    int32_t term_dim; /* /terms dim attribute, 0 when the file has no terms */
    char source[256];
} cs_graph_header;

/*
 * Collective(ctx->comm). Writes a graph file. Each rank passes its slice g (possibly empty,
 * n = 0, arrays may then be NULL); the slices, in rank order, must tile [0, g->n_pages_total)
 * exactly, and n_pages_total must be the same on every rank (checked: a clear error
 * otherwise). g->link_first, g->n_links_total, g->n_hosts and g->n_topics are ignored
 * (link offsets and n_links_total are computed from the allgathered slice sizes; hosts and
 * topics come from meta). An empty slice's `first` is not looked at. The slices are validated
 * before anything is written: offsets start at 0 and never decrease, targets lie in [0, N)
 * and increase strictly within each page, hosts lie in [0, meta->n_hosts), topics in
 * [-1, meta->n_topics), term indices in [0, term_dim); weights and terms must be present on
 * all ranks that have links/pages or on none.
 * meta and spec_text (NULL = empty) should be identical on all ranks: rank 0's are written.
 * Host and topic names are written when rank 0's meta has them.
 * The file is written under a temporary name in the same directory and renamed to `path`
 * only when every rank succeeded; on any failure no file (and no temporary) is left behind.
 * Errors: CS_ERR_ARG (slices), CS_ERR_IO (directory, rename), CS_ERR_HDF5, CS_ERR_NOMEM,
 * CS_ERR_LIMIT; the same code and message on every rank.
 */
CS_API cs_err cs_graphio_write(cs_ctx *ctx, const char *path, const cs_graph_slice *g,
                               const cs_graph_meta *meta, const char *spec_text);

/*
 * Collective(ctx->comm). Logically collective: path. Opens path and reads its header. A
 * missing file (CS_ERR_IO), a file that is not HDF5 or not a crawlsim graph (CS_ERR_FORMAT),
 * a file of another schema version (CS_ERR_SCHEMA), a file HDF5 cannot open (CS_ERR_HDF5), or
 * one with missing datasets or inconsistent sizes (CS_ERR_FORMAT) gives a clear error naming
 * the file (and the dataset), with the same code and message on every rank.
 */
CS_API cs_err cs_graphio_read_header(cs_ctx *ctx, const char *path, cs_graph_header *hdr);

/*
 * Collective(ctx->comm). Logically collective: path. Reads pages [first, first + n) of path
 * (each rank its own range; ranges may overlap or be empty) into g: offsets (local: offsets[0]
 * = 0, g->link_first = the global index of the first link), targets, weights/terms when
 * present, and the page attributes, through collective hyperslab reads. g must be empty
 * (cs_graph_slice_init) and is left empty on failure; the caller frees it with
 * cs_graph_slice_fini. meta (may be NULL; initialised with cs_graph_meta_init) receives the
 * replicated host/topic tables (every rank reads the names). What is read is validated:
 * offsets monotone within [0, n_links], targets in [0, N) and sorted within each page, host
 * and topic ids in range. A truncated or inconsistent file is a clear error naming the file
 * and the dataset (CS_ERR_FORMAT), a range outside [0, N) is CS_ERR_ARG; same code on every
 * rank.
 */
CS_API cs_err cs_graphio_read_slice(cs_ctx *ctx, const char *path, int64_t first, int64_t n,
                                    cs_graph_slice *g, cs_graph_meta *meta);

/* Whole-graph statistics, as printed by `crawlsim info`. */
typedef struct cs_degree_stats {
    int64_t min, max;
    double mean;
    int64_t median, p90, p99;
    int64_t zeros; /* pages with degree 0 */
    double alpha;  /* fitted power-law density exponent (discrete MLE, Clauset et al.) */
    int64_t xmin;  /* lower cut-off chosen by the KS criterion */
    int64_t tail;  /* pages at or above xmin */
} cs_degree_stats;

typedef struct cs_summary {
    double min, max, mean, median, p90, p99;
} cs_summary;

typedef struct cs_graph_info {
    cs_graph_header hdr;
    cs_degree_stats out_deg, in_deg;
    cs_degree_stats host_size;
    double frac_within_host;  /* links whose two pages share a host */
    double frac_within_topic; /* links whose two pages share a (known) topic */
    double relevant_fraction; /* pages with relevance >= relevance_threshold */
    double relevance_threshold;
    double reciprocity; /* fraction of links u->v (u != v) with v->u present */
    int64_t self_loops;
    cs_summary delta, mu, relevance;
    double observable_fraction;
    int64_t reciprocal_links; /* links u->v (u != v) with v->u present */
    int64_t quantile_step;    /* median/p90/p99 of delta, mu, relevance come from pages whose */
    int64_t quantile_sample;  /* id is a multiple of quantile_step: quantile_sample pages */
    int n_ranks;              /* ranks that computed it */
    double seconds;           /* wall time of the computation (maximum over ranks) */
} cs_graph_info;

/*
 * Collective(ctx->comm). Logically collective: path, relevance_threshold. Computes the
 * statistics of a graph file, each rank reading a block of pages (cs_block_range), and fills
 * info identically on every rank.
 *
 * Degree and host-size summaries are exact (from allreduced histograms); quantiles are
 * nearest-rank (the q-quantile of n values is the ceil(q n)-th smallest). Power laws are
 * fitted with the discrete maximum-likelihood approximation of Clauset, Shalizi & Newman 2009
 * (Eq. 3.7: alpha = 1 + n / sum ln(x_i / (xmin - 1/2)) over x_i >= xmin), xmin minimising the
 * Kolmogorov-Smirnov distance (their Sec. 3.3) between the tail and the fitted law, over the
 * observed values x >= 1 with at least 50 pages at or above x (at most 400 candidates, evenly
 * spaced among them); tail = 0 when there are too few samples. Reciprocity is exact (queries
 * to the owners of remote targets, exchanged with MPI_Alltoallv in bounded rounds). Quantiles
 * of delta, mu and relevance come from a deterministic sample of at most 10^6 pages (every
 * quantile_step-th page id); their min, max and mean are exact. Needs N and H below 2^31
 * (CS_ERR_LIMIT otherwise). Memory per rank: the rank's block plus 12 N bytes (every page's
 * host and topic) plus 4 N + 4 H bytes of counts. relevance_threshold decides which pages
 * count as relevant.
 */
CS_API cs_err cs_graph_info_compute(cs_ctx *ctx, const char *path, double relevance_threshold,
                                    cs_graph_info *info);

/*
 * Local. The summary (min, median, p90, p99, max, mean, zeros) and power-law fit of a histogram
 * h[0..kmax] (h[k]: items of value k), as cs_graph_info_compute gives them for degrees: the
 * same estimator, cut-off candidates and KS criterion. CS_ERR_NOMEM.
 */
CS_API cs_err cs_graphio_hist_stats(cs_ctx *ctx, const int64_t *h, int64_t kmax,
                                    cs_degree_stats *st);

/* Local. The nearest-rank quantile (permille / 1000) of a histogram h[0..kmax] of total entries:
 * the smallest k whose count h[0..k] reaches ceil(permille x total / 1000), at least 1. */
CS_API int64_t cs_graphio_hist_quantile(const int64_t *h, int64_t kmax, int64_t total,
                                        int64_t permille);

/* Local. Prints the statistics as a readable report, one item per line. */
CS_API void cs_graph_info_print(FILE *out, const cs_graph_info *info);

/*
 * Collective(ctx->comm). Logically collective: path. Opens a graph file with the MPI-IO
 * driver, checks it (exists, is HDF5, is a crawlsim graph of schema version 1, all required
 * datasets present with consistent sizes and types) and fills hdr. On success *file is the
 * open file (close with H5Fclose, collectively); on failure *file is H5I_INVALID_HID and every
 * rank returns the same code and message. HDF5's error printing is off during the call (the
 * caller's handler is restored on return).
 */
CS_API cs_err cs_graphio_open(cs_ctx *ctx, const char *path, hid_t *file, cs_graph_header *hdr);

/* Local. Every v[i] of the n values read from dataset `name` at element `first` lies in
 * [lo, hi); a format error naming the first bad element otherwise. */
CS_API cs_err cs_graphio_check_ids64(cs_ctx *ctx, const char *path, const char *name,
                                     const int64_t *v, int64_t first, int64_t n, int64_t lo,
                                     int64_t hi);
CS_API cs_err cs_graphio_check_ids32(cs_ctx *ctx, const char *path, const char *name,
                                     const int32_t *v, int64_t first, int64_t n, int64_t lo,
                                     int64_t hi);
/* Local. The format error of those checks: element `at` of dataset `name` is v, outside
 * [lo, hi) (CS_ERR_FORMAT). */
CS_API cs_err cs_graphio_id_outside(cs_ctx *ctx, const char *path, const char *name, int64_t at,
                                    int64_t v, int64_t lo, int64_t hi);

/* The valid values of a floating-point dataset (docs/reference/formats.md "Valid values"). */
typedef enum cs_graphio_range {
    CS_GRAPHIO_UNIT,     /* finite, in [0, 1]: relevance */
    CS_GRAPHIO_POSITIVE, /* finite, > 0: change rates, importance */
    CS_GRAPHIO_FINITE    /* finite: term values */
} cs_graphio_range;

/* Local. Every v[i] of the n values read from dataset `name` lies in range r (NaN and the
 * infinities never do); a format error (CS_ERR_FORMAT) naming the first bad element and its
 * value otherwise. Element i is called ids[i] when ids is not NULL (the global page ids of a
 * rank's pages), else first + i. One pass, OpenMP-parallel. */
CS_API cs_err cs_graphio_check_f64(cs_ctx *ctx, const char *path, const char *name, const double *v,
                                   const int64_t *ids, int64_t first, int64_t n,
                                   cs_graphio_range r);
CS_API cs_err cs_graphio_check_f32(cs_ctx *ctx, const char *path, const char *name, const float *v,
                                   const int64_t *ids, int64_t first, int64_t n,
                                   cs_graphio_range r);
/* Local. Every v[i] is 0 or 1 (a flag dataset such as /pages/observable); element naming as in
 * cs_graphio_check_f64. */
CS_API cs_err cs_graphio_check_flags(cs_ctx *ctx, const char *path, const char *name,
                                     const uint8_t *v, const int64_t *ids, int64_t first,
                                     int64_t n);

#endif
