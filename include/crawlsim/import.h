/*
 * import: `crawlsim import` - reads a real graph (an edge list, plain or gzip, plus optional
 * page tables) into the crawlsim graph schema and writes it with cs_graphio_write.
 *
 * What is read is described by the [import] section of a graph spec (graphs/<name>.ini; every
 * key is documented in src/config/schema.c and `crawlsim help config`). In short:
 *
 * Files. `edges`, `pages` and `page_list` are comma-separated lists of files, each plain text
 * or gzip; an item with a wildcard (*, ?, [...]) stands for the files it matches, sorted. A
 * path is relative to the spec file's directory, except that a leading "@datasets/" names the
 * datasets folder: the directory in the environment variable
 * CRAWLSIM_DATASETS (a configuration error when it is not set; where the datasets live is
 * the site's business, not the library's: the tests set it). Each file may start with
 * skip_lines (page_skip_lines) header lines; lines starting with `comment` are skipped.
 * Fields are separated by runs of `separators` (`page_separators`) characters (both default
 * to blanks and tabs); page-table fields are trimmed of blanks.
 *
 * Edges. pairs: one link per line (src_field, dst_field, optional weight_field);
 * adjacency: "src dst1 dst2 ...", one line per source (a source on a second line is an error
 * that points to successors: WebGraph's text export read as adjacency would be silently
 * wrong); adjacency-indexed: the i-th data line (counted across the edge files in order) is
 * page i and reads "outdeg dst1 ... dst_outdeg"; successors: the i-th data line lists page i's
 * successors (an empty line: none); asciigraph: WebGraph's ASCIIGraph, a first line with the
 * node count alone, then as successors; bvgraph: WebGraph's compressed format
 * (src/import/import_bvgraph.c); gml: GML, node ids as names, gml_label and gml_url naming the
 * node attributes that are the label and the URL (src/import/import_gml.c). reverse swaps
 * every link's direction.
 *
 * Node count. node_count declares it (integer ids); an ASCIIGraph header and a BVGraph's
 * properties declare it too, and adjacency-indexed and successors files imply it (their number
 * of lines). With new_ids = error (the default) an id at or beyond a declared or implied count
 * is a CS_ERR_FORMAT error naming the file, the line and the id (with an implied count, the
 * line of the largest id); new_ids = allow makes such ids new pages. Node ids are integers (page =
 * number - id_base, at most 2^31 - 2 so that METIS's 32-bit idx_t can hold every page) or names.
 * Names are numbered in this order: the page lists, the page tables, then first appearance in the
 * edge files; lowercase_names merges ASCII case variants. Self-loops are dropped or kept
 * (self_loops). Within a page's list, duplicate links are merged (weights summed when the file has
 * weights) and targets sorted.
 *
 * Pages. There are max id + 1 pages (integer ids; page lists and page tables count) or as
 * many as distinct names. A page table line gives a page's id and optionally its URL, host,
 * label and text features; a page may have several lines (e.g. several categories): its
 * URL, host, topic and features come from its first line, and every line's label counts for
 * relevance. A page list file names pages only (first field of each line), for pages absent
 * from the tables. Labels, cut to their first label_depth '.'-separated components, become
 * topics numbered by first appearance; a page without a label has topic -1. With
 * target_label, relevance is 1 for pages having a label equal to target_label or below it
 * ("subject.Science" covers "subject.Science.Biology") and 0 otherwise; the target topic is
 * the topic named target_label (-1 if target_label is finer than the topics). Without it all
 * relevance is 0 and the target topic -1, unless page_relevance_field gives each page's
 * relevance as a number in [0, 1] (from its first line; pages without a line get 0). Text features
 * are stored sparse: dense-binary reads page_features_count 0/1 fields from page_features_first
 * (every line of a table must have the same number of fields); sparse reads "index:value" fields
 * from page_features_first to the end of the line, skipping fields that hold the id, URL, host or
 * label.
 *
 * Hosts (the `hosts` key). url: the authority of the page's URL (page_url_field, or the node
 * name itself when there is no URL field), lower-cased, without userinfo and port; field: the
 * page table's host field; node: every node is a host named by its node name (host graphs);
 * single: one host for all pages (no name); per-page: host i = page i (named by the node
 * names when nodes have names, else unnamed); blocks: page i's host is its host in the world of
 * the spec host_spec (its [gen] keys with gen.pages = the graph's pages), that is contiguous
 * page-id blocks with that spec's host-size distribution (unnamed). Hosts are numbered by their
 * first page.
 *
 * Change rate, importance and observability come from the configured [gen] model through
 * cs_gen_page_dynamics(&cfg->gen, host, page, CS_RNG_IMPORT, ...).
 *
 * Errors (no output file is left behind): a missing or unreadable file (CS_ERR_IO); in a file,
 * naming the file and line and, where one is at fault, the field (CS_ERR_FORMAT): control bytes
 * (binary data: named by value, never quoted) or lines longer than 16 MiB (binary or garbage),
 * truncated or corrupt gzip data, an empty file, a missing field, a non-numeric or negative id with
 * node_ids = integer, a bad weight, an adjacency-indexed line whose count disagrees with its ids, a
 * page table line with the wrong number of dense features or a bad feature, a URL without a host,
 * and a graph without pages; an id beyond 2^31 - 2 or a weight sum beyond 2^32 - 1 (CS_ERR_LIMIT);
 * inconsistent [import] keys (CS_ERR_CONFIG); memory (CS_ERR_NOMEM) with the file and line being
 * read, or the page and link counts being built and where the largest node id was read. The
 * self-loops seen and the duplicate links merged are logged at the default level.
 */
#ifndef CRAWLSIM_IMPORT_H
#define CRAWLSIM_IMPORT_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/slice.h"

#include <stddef.h>

/*
 * Collective(ctx->comm). Logically collective: cfg, out_path. Reads and converts the graph
 * described by cfg->import. A BVGraph whose pages need nothing read on one rank (no page tables
 * or lists, no reverse, hosts = per-page, single or node) is decoded and written by every rank,
 * each a node range of about equal arc count (src/import/import_bvpar.c; per rank about 2x its
 * share of the output file, plus 8 bytes per node while decoding). So is an integer edge list
 * (edge_format = pairs, node_ids = integer) under the same conditions but reverse: its files
 * are dealt out to the ranks, the links sent to the rank of their source's range
 * (src/import/import_textpar.c; per rank at most about 32 bytes per link of its share); anything
 * else is read and converted by rank 0 (names, line-numbered formats) while the other ranks
 * wait. Either way the file is the same. The outcome is agreed before every collective, so every
 * rank returns the same code with the failing rank's message in ctx->errmsg. On success the graph
 * file is written at out_path through cs_graphio_write (atomically: on failure no file is left),
 * with the whole resolved config as its spec text and "import:<spec file>" as its source. While it
 * runs, SIGTERM, SIGINT and SIGHUP on rank 0 remove the temporary file before the process dies
 * of the signal (the previous handlers are restored at the end), and rank 0 warns about
 * temporaries beside out_path that killed imports left.
 */
CS_API cs_err cs_import_run(cs_ctx *ctx, const cs_config *cfg, const char *out_path);

/*
 * Local. Reads the graph described by cfg->import into g (whole graph: pages [0, n), owned by
 * the caller, free with cs_graph_slice_fini) and meta (cs_graph_meta_fini). g and meta are
 * initialised here and left empty on failure. cs_import_run is this on rank 0 plus the write.
 */
CS_API cs_err cs_import_read(cs_ctx *ctx, const cs_config *cfg, cs_graph_slice *g,
                             cs_graph_meta *meta);

/*
 * Local. Resolves one path p of an [import] file list into out (capacity size): "@datasets/x"
 * becomes "$CRAWLSIM_DATASETS/x" (out is empty when CRAWLSIM_DATASETS is not set or the path
 * does not fit); any other relative path is taken relative to the spec file's directory
 * (cs_config_resolve_path).
 */
CS_API void cs_import_resolve_path(const cs_config *cfg, const char *p, char *out, size_t size);

#endif
