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
 *   /pages/relevance    float64 [N]    relevance to the target topic, in [0, 1]
 *   /pages/delta        float64 [N]    Poisson change rate (changes per time unit), > 0
 *   /pages/mu           float64 [N]    importance, > 0
 *   /pages/observable   uint8   [N]    1 = changes observable without a crawl
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
 *   /terms/value        float32 [T]
 *   /terms              attribute dim (int32): the feature dimension
 *
 * (*) Page and host ids are written as int32 when N <= 2^31 - 1 (always today: the generator and
 * the importer cap N there for METIS), else int64; readers request native int64 and let HDF5
 * convert, so either width reads the same. Halving the largest dataset halves the write.
 *
 * All datasets are 1-D and contiguous, written little-endian. An optional dataset is either
 * absent or complete. Readers check format and schema_version first: a file of another
 * version is refused with a message asking to regenerate it (no silent conversion). Files are
 * written with the HDF5 1.8 object format (readable by HDF5 >= 1.8 and h5py), under a
 * temporary name ".<name>.tmp.<pid>" in the target directory, renamed when complete.
 */
#ifndef CRAWLSIM_GRAPHIO_H
#define CRAWLSIM_GRAPHIO_H

#include "crawlsim/core.h"
#include "crawlsim/graph.h"

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

/* Local. Prints the statistics as a readable report, one item per line. */
CS_API void cs_graph_info_print(FILE *out, const cs_graph_info *info);

/* ---- parallel HDF5 helpers for the files of other modules (partitions, checkpoints, results) --
 * Each names the file in its messages through `path` (or `what`, a prefix such as
 * "partition X"). HDF5 error printing should be off around them (cs_graphio_quiet_begin). */

/* At most this many elements per H5Dwrite/H5Dread: 2^27 x 8 bytes = 1 GiB, under the 2 GiB
 * limits that MPI-IO collective buffering has had. */
#define CS_GRAPHIO_CHUNK_ELEMS ((int64_t)1 << 27)

/* Saved HDF5 automatic error printing, restored by cs_graphio_quiet_end. */
typedef struct cs_graphio_quiet {
    H5E_auto2_t func;
    void *data;
} cs_graphio_quiet;

/* Local. Turns off HDF5's automatic error-stack printing, saving the previous handler. */
CS_API void cs_graphio_quiet_begin(cs_graphio_quiet *q);
/* Local. Restores the handler saved by cs_graphio_quiet_begin. */
CS_API void cs_graphio_quiet_end(const cs_graphio_quiet *q);

/* Local. A file access list for MPI-IO on comm, or H5I_INVALID_HID. */
CS_API hid_t cs_graphio_fapl(MPI_Comm comm);

/* Local. Elements per HDF5 I/O call (CS_GRAPHIO_CHUNK_ELEMS or the CRAWLSIM_GRAPHIO_CHUNK hook). */
CS_API int64_t cs_graphio_chunk_elems(void);

/*
 * Collective(ctx->comm). Writes count elements of buf (memory type mtype, element size elem)
 * to the 1-D dataset dset at element offset off, in calls of at most cs_graphio_chunk_elems()
 * elements; every rank makes the same number of calls (allreduced maximum), ranks with
 * nothing (left) to write select none. The calls are collective transfers when the ranks'
 * ranges are disjoint or identical, independent otherwise (see h5common.c). A local HDF5 failure is
 * recorded with a message naming path and name, the remaining calls are still made (with empty
 * selections), and the local code is returned: the caller agrees on it with cs_agree.
 */
CS_API cs_err cs_graphio_write_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                                  const void *buf, size_t elem, const char *path, const char *name);
/* Collective(ctx->comm). Reading counterpart of cs_graphio_write_1d. */
CS_API cs_err cs_graphio_read_1d(cs_ctx *ctx, hid_t dset, hid_t mtype, int64_t off, int64_t count,
                                 void *buf, size_t elem, const char *path, const char *name);

/*
 * Collective(ctx->comm). Logically collective: path. Opens a graph file with the MPI-IO
 * driver, checks it (exists, is HDF5, is a crawlsim graph of schema version 1, all required
 * datasets present with consistent sizes and types) and fills hdr. On success *file is the
 * open file (close with H5Fclose, collectively); on failure *file is H5I_INVALID_HID and every
 * rank returns the same code and message. HDF5 error printing must already be off.
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

/* Local (call it on one rank, before HDF5 opens the file, and agree): path exists, is a regular
 * file and is HDF5; else CS_ERR_IO / CS_ERR_FORMAT "<kind> <path>: ..." ("no such file", "is not
 * an HDF5 file"). kind names the file's role, e.g. "graph file". */
CS_API cs_err cs_graphio_probe(cs_ctx *ctx, const char *path, const char *kind);

/* Local. Scalar attribute `name` of obj of class cls (H5T_INTEGER or H5T_FLOAT) read as mtype;
 * missing or not a single value of that class: CS_ERR_FORMAT "<what>: attribute ...". */
CS_API cs_err cs_graphio_attr_read(cs_ctx *ctx, hid_t obj, const char *name, H5T_class_t cls,
                                   hid_t mtype, void *out, const char *what);
/* Local. String attribute (fixed or variable length) into out[cap]. */
CS_API cs_err cs_graphio_attr_read_string(cs_ctx *ctx, hid_t obj, const char *name, char *out,
                                          size_t cap, const char *what);
/* Local, but HDF5 metadata: every rank calls it with the same values. Scalar attribute. */
CS_API cs_err cs_graphio_attr_write(cs_ctx *ctx, hid_t loc, const char *name, hid_t ftype,
                                    hid_t mtype, const void *val, const char *what);
/* Local, HDF5 metadata as above. Fixed-length NUL-terminated string attribute. */
CS_API cs_err cs_graphio_attr_write_string(cs_ctx *ctx, hid_t loc, const char *name,
                                           const char *val, const char *what);

/* ==== results files (src/graphio/results.c) =====================================================
 *
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

/* ==== comparing HDF5 files (src/graphio/compare.c) ==============================================
 *
 * `crawlsim compare` and the tests: two files are the same when every selected object is the same
 * in both. Objects are the root group, every group, dataset and committed datatype, and every
 * soft or external link, each named by its path (an object reached through two hard links is
 * compared under both names). Same means:
 *   - the path exists in both files, as the same kind of object (a path in one file only differs);
 *   - datasets and attributes: equal datatypes (H5Tequal: class, size, sign, byte order, string
 *     size, padding and character set, compound members), the same dataspace (scalar, null or
 *     simple; rank and dimensions; maximum dimensions are not compared) and the same values: the
 *     raw bytes of every element (bit-identical: -0.0 differs from 0.0, NaN payloads count);
 *     strings by their contents (fixed-length up to their NUL or padding, variable-length as C
 *     strings);
 *   - the same attributes (names, then each as a dataset above) on every object, the root
 *     included; committed datatypes equal; links the same target.
 * Storage (layout, chunks, filters, fill values), object times, comments and the file's free
 * space are not compared. Variable-length sequences and references cannot be compared (an error).
 *
 * Paths in opts are absolute or relative to the root ("timing" = "/timing"), without empty, "."
 * or ".." components; a path selects itself and everything below it.
 */

/* What cs_graphio_compare looks at and where it reports. */
typedef struct cs_graphio_cmp_opts {
    const char *const *ignore; /* n_ignore paths left out (with everything below them) */
    int n_ignore;
    const char *const *only; /* n_only > 0: only these paths are compared (minus the ignored) */
    int n_only;
    FILE *out;         /* one line per difference, "<path>: <what differs>" (NULL: none) */
    int64_t max_lines; /* at most this many lines are printed (< 0: all); all are counted */
} cs_graphio_cmp_opts;

/* The outcome of a comparison. */
typedef struct cs_graphio_cmp_stats {
    int64_t objects; /* selected paths of either file (the union), the root included if selected */
    int64_t differ;  /* of those, objects with at least one difference */
    int64_t lines;   /* differences found (one object can have several: attributes, values) */
} cs_graphio_cmp_stats;

/*
 * Local (one process; no MPI). Compares the HDF5 files path_a (called A in the lines) and path_b
 * (B), both opened read-only with the default driver, as described above, and fills *st; the
 * files are the same when st->differ == 0. Differences are printed in path order (depth first,
 * names in byte order), at most one line about the values of a dataset or attribute: its first
 * differing element (index and both values) and how many elements differ. HDF5's error printing
 * is off during the call. Errors (nothing is known about the files then; *st is partial):
 * CS_ERR_IO (a file is missing or unreadable), CS_ERR_FORMAT (not an HDF5 file), CS_ERR_HDF5
 * (HDF5 cannot open or read it), CS_ERR_ARG (a bad path in opts; an `only` path in neither file
 * or lying within an ignored one), CS_ERR_SCHEMA (a datatype that cannot be compared),
 * CS_ERR_NOMEM, each with a message naming the file and object.
 */
CS_API cs_err cs_graphio_compare(cs_ctx *ctx, const char *path_a, const char *path_b,
                                 const cs_graphio_cmp_opts *opts, cs_graphio_cmp_stats *st);

#endif
