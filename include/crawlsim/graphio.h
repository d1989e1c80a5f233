/*
 * graphio: HDF5 graph files through parallel HDF5 (collective hyperslab I/O), their versioned
 * schema, and whole-graph statistics (`crawlsim info`).
 *
 * Schema version 1 (documented in full in README.md "Graph file format"):
 *   /                 attributes: format = "crawlsim-graph", schema_version = 1 (int),
 *                     n_pages, n_links, n_hosts (int64), n_topics, target_topic (int32),
 *                     seed (uint64), source (string), spec (string: the resolved INI text)
 *   /pages/host       int64  [N]   host id
 *   /pages/topic      int32  [N]   topic, -1 unknown
 *   /pages/relevance  double [N]   in [0,1]
 *   /pages/delta      double [N]   Poisson change rate
 *   /pages/mu         double [N]   importance
 *   /pages/observable uint8  [N]
 *   /links/offsets    int64  [N+1] CSR offsets
 *   /links/targets    int64  [M]   target page ids, sorted within each page
 *   /links/weights    uint32 [M]   optional multiplicities
 *   /hosts/name_offsets int64 [H], /hosts/names uint8 [bytes]   optional (imported graphs)
 *   /topics/name_offsets int32.. likewise int64 [K], /topics/names uint8 [bytes] optional
 *   /terms/offsets int64 [N+1], /terms/index int32 [T], /terms/value float [T], attribute dim
 *                     optional sparse page features (imported graphs)
 */
#ifndef CRAWLSIM_GRAPHIO_H
#define CRAWLSIM_GRAPHIO_H

#include "crawlsim/core.h"
#include "crawlsim/graph.h"

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
    char source[256];
} cs_graph_header;

/*
 * Collective(ctx->comm). Writes a graph file. Each rank passes its slice g (possibly empty,
 * n = 0); the slices, in rank order, must tile [0, meta->n_pages_total) exactly (checked: a
 * clear error otherwise). g->link_first is ignored (computed with MPI_Exscan). n_links_total
 * is computed. meta and spec_text must be identical on all ranks (rank 0's are written).
 * The file is written under a temporary name in the same directory and renamed to `path`
 * only when every rank succeeded; on any failure no file is left behind.
 */
CS_API cs_err cs_graphio_write(cs_ctx *ctx, const char *path, const cs_graph_slice *g,
                               const cs_graph_meta *meta, const char *spec_text);

/*
 * Collective(ctx->comm). Logically collective: path. Opens path and reads its header. A
 * missing file, a file that is not HDF5, not a crawlsim graph, or of another schema version
 * gives a clear error on every rank naming the file.
 */
CS_API cs_err cs_graphio_read_header(cs_ctx *ctx, const char *path, cs_graph_header *hdr);

/*
 * Collective(ctx->comm). Reads pages [first, first + n) of path (each rank its own range; ranges
 * may overlap or be empty) into g: offsets (local), targets, weights/terms when present, and the
 * page attributes, through collective hyperslab reads. meta (may be NULL) receives the
 * replicated host/topic tables. A truncated or inconsistent file is a clear error.
 */
CS_API cs_err cs_graphio_read_slice(cs_ctx *ctx, const char *path, int64_t first, int64_t n,
                                    cs_graph_slice *g, cs_graph_meta *meta);

/* Whole-graph statistics, as printed by `crawlsim info`. */
typedef struct cs_degree_stats {
    int64_t min, max;
    double mean;
    int64_t median, p90, p99;
    int64_t zeros;          /* pages with degree 0 */
    double alpha;           /* fitted power-law density exponent (discrete MLE, Clauset et al.) */
    int64_t xmin;           /* lower cut-off chosen by the KS criterion */
    int64_t tail;           /* pages at or above xmin */
} cs_degree_stats;

typedef struct cs_summary {
    double min, max, mean, median, p90, p99;
} cs_summary;

typedef struct cs_graph_info {
    cs_graph_header hdr;
    cs_degree_stats out_deg, in_deg;
    cs_degree_stats host_size;
    double frac_within_host;   /* links whose two pages share a host */
    double frac_within_topic;  /* links whose two pages share a (known) topic */
    double relevant_fraction;  /* pages with relevance >= relevance_threshold */
    double relevance_threshold;
    double reciprocity;        /* fraction of links u->v (u != v) with v->u present */
    int64_t self_loops;
    cs_summary delta, mu, relevance;
    double observable_fraction;
    double seconds;            /* wall time of the computation */
} cs_graph_info;

/*
 * Collective(ctx->comm). Computes the statistics of a graph file, each rank reading a block of
 * pages. relevance_threshold decides which pages count as relevant.
 */
CS_API cs_err cs_graph_info_compute(cs_ctx *ctx, const char *path, double relevance_threshold,
                                    cs_graph_info *info);

/* Local. Prints the statistics as a readable report. */
CS_API void cs_graph_info_print(FILE *out, const cs_graph_info *info);

#endif
