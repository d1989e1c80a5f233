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
    int method;          /* cs_part_method */
    int32_t k;
    int64_t seed;
    int32_t ufactor;
    int objective;       /* 0 cut, 1 volume */
    int vertex_weight;   /* 0 pages, 1 links */
    int64_t n_pages;
    int64_t n_links;
    int64_t n_hosts;
    int32_t *part;       /* n_pages parts (int32 in memory; narrow in the file) */
    int32_t *host_part;  /* n_hosts, or NULL */
    int64_t *part_first; /* k + 1 for block, or NULL */
    cs_part_quality quality;
    double seconds;
} cs_partition;

CS_API void cs_partition_init(cs_partition *p);
CS_API void cs_partition_fini(cs_partition *p);

#endif
