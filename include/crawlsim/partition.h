/*
 * partition: assigning pages to ranks. METIS k-way on the host graph (hosts kept whole) or on
 * the symmetrised page graph, hash of the host (what Nutch, Frontera and StormCrawler do), or
 * contiguous page-id blocks; the quality of a partition; partition files.
 *
 * Partition schema (version 1): an HDF5 group `/partition` inside the graph file, or the root
 * group of a separate partition file:
 *   attributes  format = "crawlsim-partition" (string), schema_version = 1 (int32),
 *               method (string: metis-host | metis | host-hash | block), k (int32),
 *               seed (int64), ufactor (int32), objective (string: cut | volume),
 *               vertex_weight (string: pages | links), n_pages (int64), n_links (int64),
 *               graph_source (string, the graph file's `source`), and the quality below:
 *               edge_cut (int64: links whose two pages lie in different parts),
 *               cut_fraction (double), volume (int64: distinct (page, remote part) pairs over
 *               the out-links), page_balance, link_balance (double: max part / mean part),
 *               hosts_split (int64: hosts whose pages lie in more than one part), seconds
 *               (double: wall time of the partitioning)
 *   part        uint8 if k <= 255, uint16 if k <= 65535, else int32 [N]: the part of each page
 *   host_part   int32 [H]: the part of each host, for methods that keep hosts whole
 *               (metis-host, host-hash); absent otherwise
 *   part_first  int64 [k+1]: block only: part p owns pages [part_first[p], part_first[p+1])
 */
#ifndef CRAWLSIM_PARTITION_H
#define CRAWLSIM_PARTITION_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/slice.h"

#include <stdint.h>
#include <stdio.h>

#define CS_PARTITION_FORMAT "crawlsim-partition"
#define CS_PARTITION_SCHEMA_VERSION 1

typedef enum cs_part_method {
    CS_PART_METIS_HOST = 0,
    CS_PART_METIS = 1,
    CS_PART_HOST_HASH = 2,
    CS_PART_BLOCK = 3
} cs_part_method;

/* Quality of a partition (plain data). */
typedef struct cs_part_quality {
    int64_t edge_cut;
    double cut_fraction;
    int64_t volume;
    double page_balance;
    double link_balance;
    int64_t hosts_split;
} cs_part_quality;

/* A partition held in memory, replicated on every rank (plain data; cs_partition_fini frees). */
typedef struct cs_partition {
    int method; /* cs_part_method */
    int32_t k;
    int64_t seed;
    int32_t ufactor;
    int objective;     /* 0 cut, 1 volume */
    int vertex_weight; /* 0 pages, 1 links */
    int64_t n_pages;
    int64_t n_links;
    int64_t n_hosts;
    int32_t *part;       /* n_pages parts (int32 in memory; narrow in the file), or NULL below */
    int32_t *host_part;  /* n_hosts, or NULL */
    int64_t *part_first; /* k + 1 for block, or NULL */
    /* The same partition as runs, for a world whose hosts are ranges of page ids
     * (cs_gen_partition): pages [run_first[i], run_first[i + 1]) lie in part run_part[i]. A
     * partition may carry part_first or the runs without `part` (no 4 bytes per page); the
     * graph (cs_graph_build, cs_graph_load_with) takes any of the three, cs_partition_write
     * needs `part`. */
    int64_t n_runs;
    int64_t *run_first; /* n_runs + 1, or NULL */
    int32_t *run_part;  /* n_runs, or NULL */
    cs_part_quality quality;
    double seconds;
    char graph_source[256]; /* the graph file's `source` attribute */
} cs_partition;

/* Local. Zeroes p (all arrays NULL). */
CS_API void cs_partition_init(cs_partition *p);
/* Local. Frees the arrays of p and zeroes it; accepts a zeroed partition. */
CS_API void cs_partition_fini(cs_partition *p);

/* Local. "metis-host", "metis", "host-hash", "block" (or "?" for other values). */
CS_API const char *cs_partition_method_name(int method);

/*
 * Collective(ctx->comm). Logically collective: graph_path, pc, k. Partitions the pages of a
 * graph file into k parts with pc->method and fills out (which must be zeroed, as after
 * cs_partition_init) identically on every rank, quality included (cs_partition_quality);
 * out->seconds is the wall time of the partitioning proper (reading and METIS, not quality).
 *   block       contiguous page-id ranges (cs_block_range), part_first filled.
 *   host-hash   part of host h = cs_mix64(h + cs_mix64(seed)) mod k, host_part filled.
 *   metis-host  rank 0 reads the whole graph, contracts pages into hosts (vertex weight =
 *               pages, or out-links (at least 1), per host; edge weight w(a,b) = links a->b +
 *               links b->a, no self edges), runs METIS_PartGraphKway; pages inherit their
 *               host's part; host_part filled. When k-way leaves the parts more than 0.05
 *               above the feasible balance (big hosts), recursive bisection is tried too and
 *               the better balanced result kept.
 *   metis       METIS_PartGraphKway on the symmetrised page graph on rank 0 (edge weight 2
 *               for reciprocal pairs, 1 otherwise; self loops dropped).
 * k = 1 puts every page in part 0 (METIS refuses nparts = 1). Rank 0 needs the whole graph
 * in memory for the METIS methods (about 8 M + 50 N bytes plus the METIS graph).
 * Errors, the same code and message on every rank: CS_ERR_ARG (k < 1, k > pages), CS_ERR_LIMIT
 * (pages, hosts or symmetrised adjacency entries beyond METIS's 32-bit idx_t), CS_ERR_INTERNAL
 * (METIS failed), CS_ERR_NOMEM, and the graph-file errors of cs_graphio_read_slice.
 */
CS_API cs_err cs_partition_compute(cs_ctx *ctx, const char *graph_path,
                                   const cs_partition_config *pc, int32_t k, cs_partition *out);
/* Collective(ctx->comm). cs_partition_compute without the quality (out->quality stays zero): what
 * a run needs. host-hash then reads only the pages' hosts (each rank its block). */
CS_API cs_err cs_partition_assign(cs_ctx *ctx, const char *graph_path,
                                  const cs_partition_config *pc, int32_t k, cs_partition *out);

/*
 * Collective(ctx->comm). Logically collective: graph_path, part, k. The quality of the
 * partition part[N] (replicated, values in [0, k)) of a graph file: each rank reads its block
 * of pages (cs_block_range) and the integer counts are summed as int64 (so the result does
 * not depend on the rank count). edge_cut counts links u->v with part(u) != part(v) (self
 * loops never cut), cut_fraction = edge_cut / M, volume counts distinct (page, remote part)
 * pairs over each page's out-links, page_balance and link_balance are max part / mean part
 * (links counted at the source page's part), hosts_split counts hosts with pages in more than
 * one part. Errors: those of cs_graphio_read_slice, CS_ERR_NOMEM; same on every rank.
 */
CS_API cs_err cs_partition_quality(cs_ctx *ctx, const char *graph_path, const int32_t *part,
                                   int32_t k, cs_part_quality *q);

/*
 * Local. Serial reference of cs_partition_quality on a whole graph g (a slice holding pages
 * [0, N) with their hosts), written independently of the distributed code for the tests.
 */
CS_API cs_err cs_partition_quality_serial(cs_ctx *ctx, const cs_graph_slice *g, const int32_t *part,
                                          int32_t k, cs_part_quality *q);

/*
 * A symmetrised, aggregated graph in METIS's CSR form (32-bit idx_t): vertex v's neighbours
 * are adjncy[xadj[v] .. xadj[v+1]) with weights adjwgt, no self edges, each neighbour once.
 * vwgt may be NULL; with ncon > 1 it holds ncon weights per vertex (v's at vwgt[v * ncon]),
 * each balanced by METIS (multi-constraint). Freed by cs_part_csr_fini.
 */
typedef struct cs_part_csr {
    int32_t n;
    int32_t *xadj;   /* n + 1 */
    int32_t *adjncy; /* xadj[n] */
    int32_t *adjwgt; /* xadj[n] */
    int32_t *vwgt;   /* n x max(ncon, 1), or NULL */
    int32_t ncon;    /* weights per vertex; 0 reads as 1 */
} cs_part_csr;

CS_API void cs_part_csr_fini(cs_part_csr *c);

/*
 * Local. Contracts a whole graph g (pages [0, N)) into the graph of its vertices: vertex of
 * page p = vmap[p] (its host) or p itself when vmap is NULL (n_vertices = N). The edge weight
 * of {a, b} is the number of links a->b plus b->a between their pages (weights of imported
 * graphs are ignored: one link counts once), self edges are dropped; the vertex weight is the
 * number of pages of the vertex (vertex_weight = CS_PART_VW_PAGES) or its out-links, at least
 * 1 (CS_PART_VW_LINKS). A counting sort by source vertex, then aggregation of each vertex's
 * neighbours with a marker array: O(N + M) time, 8 M + 12 H bytes of scratch.
 * `what` names the graph in CS_ERR_LIMIT messages (adjacency beyond INT32_MAX entries).
 */
CS_API cs_err cs_partition_contract(cs_ctx *ctx, const cs_graph_slice *g, const int64_t *vmap,
                                    int64_t n_vertices, int vertex_weight, const char *what,
                                    cs_part_csr *out);

/*
 * Local. METIS k-way on c into vpart[c->n] (c->vwgt required), as cs_partition_compute runs it
 * (pc's ufactor, seed and objective; recursive bisection too when k-way misses the feasible
 * balance; each vertex its own part when c->n <= k); k = 1 puts every vertex in part 0. With
 * c->ncon > 1 weights per vertex, k-way only, each constraint held to the ufactor.
 * Deterministic for a given pc->seed. `what` names the graph in messages. Errors: CS_ERR_ARG
 * (k < 1), CS_ERR_NOMEM, CS_ERR_INTERNAL (METIS failed).
 */
CS_API cs_err cs_partition_metis(cs_ctx *ctx, cs_part_csr *c, const cs_partition_config *pc,
                                 int32_t k, int32_t *vpart, const char *what);

/* Local. The host-hash part of host h (what Nutch, Frontera and StormCrawler do). */
CS_API int32_t cs_partition_host_hash(int64_t host, int64_t seed, int32_t k);

/*
 * Collective(ctx->comm). Logically collective: path, in_graph_file, p. Writes p: into the graph
 * file `path` as group /partition (in_graph_file != 0; the file is opened read-write, the
 * group written as /partition.tmp, then any old /partition deleted and the new one moved into
 * place, so a failed run never leaves a half-written /partition; the space of an old
 * partition is not reclaimed, h5repack does), or as a separate partition file `path`
 * (written under a temporary name and renamed, like cs_graphio_write). p must be identical on
 * every rank. Errors: CS_ERR_IO, CS_ERR_HDF5, CS_ERR_FORMAT (not a graph file); same on every
 * rank.
 */
CS_API cs_err cs_partition_write(cs_ctx *ctx, const char *path, int in_graph_file,
                                 const cs_partition *p);

/*
 * Collective(ctx->comm). Logically collective: graph_path, partition_path. Reads the partition
 * of a graph file: group /partition of graph_path when partition_path is NULL, else the
 * separate file partition_path (checked against the graph: same n_pages). out must be zeroed
 * (cs_partition_init); it is filled identically on every rank (part, and host_part or
 * part_first when the file has them; n_hosts from the graph). Errors, the same code and
 * message on every rank: the graph-file errors of cs_graphio_read_header; CS_ERR_FORMAT for a
 * graph without /partition ("graph file X has no partition; run crawlsim partition X -k K"),
 * a file that is not a partition, sizes that do not match the graph or parts outside [0, k);
 * CS_ERR_SCHEMA for another schema version; CS_ERR_IO for a missing partition file.
 */
CS_API cs_err cs_partition_read(cs_ctx *ctx, const char *graph_path, const char *partition_path,
                                cs_partition *out);

/*
 * Collective(ctx->comm). Logically collective: graph_path. *exists = 1 when graph_path is an
 * HDF5 file with a /partition group, 0 otherwise (also when it cannot be opened: the caller
 * reads the graph and reports that). Rank 0 looks, every rank gets the answer.
 */
CS_API cs_err cs_partition_exists(cs_ctx *ctx, const char *graph_path, int *exists);

/* Local. Prints the method, k and quality of p, one item per line ("partition ..."). */
CS_API void cs_partition_print(FILE *out, const cs_partition *p);

#endif
