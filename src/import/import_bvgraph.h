/*
 * import, BVGraph: WebGraph's compressed graph format (P. Boldi, S. Vigna, "The WebGraph
 * Framework I: Compression Techniques", WWW 2004, and the format's published description in the
 * BVGraph documentation), read into CSR. Internal to src/import; the unit test
 * tests/unit/check_bvgraph.c drives it directly.
 */
#ifndef CRAWLSIM_IMPORT_BVGRAPH_H
#define CRAWLSIM_IMPORT_BVGRAPH_H

#include "crawlsim/core.h"

#include <stdint.h>

/* The instantaneous codes of the format. */
typedef enum cs_bv_code {
    CS_BV_GAMMA = 0,
    CS_BV_DELTA = 1,
    CS_BV_ZETA = 2,
    CS_BV_NIBBLE = 3,
    CS_BV_UNARY = 4
} cs_bv_code;

/* What to decode with: the .properties file's values, or WebGraph's defaults where it has none
 * (window 7, maximum reference count 3, minimum interval length 4, zeta k 3; outdegrees gamma,
 * references unary, block counts and blocks gamma, residuals zeta_k, offsets gamma). */
typedef struct cs_bv_params {
    int64_t nodes; /* -1: unknown */
    int64_t arcs;  /* -1: unknown */
    int window;    /* 0: no references */
    int maxref;    /* longest reference chain (-1: unbounded); the encoder's limit */
    int minint;    /* minimum interval length; 0: no intervals */
    int zetak;
    cs_bv_code outdegrees, references, block_count, blocks, residuals, offsets;
} cs_bv_params;

/* Local. WebGraph's defaults, nodes and arcs unknown. */
void cs_bv_params_default(cs_bv_params *p);

/*
 * Local. Reads a Java properties file of a BVGraph into p (starting from the defaults): nodes,
 * arcs, windowsize, maxrefcount, minintervallength, zetak, compressionflags (names such as
 * OUTDEGREES_DELTA|RESIDUALS_NIBBLE separated by '|'), and refuses a graphclass other than
 * BVGraph and a version other than 0. Lines may be of any length. CS_ERR_IO when it cannot be
 * read, CS_ERR_FORMAT naming the file and line for a bad value, and naming the file for NUL
 * bytes.
 */
cs_err cs_bv_read_properties(cs_ctx *ctx, const char *path, cs_bv_params *p);

/*
 * Local. Decodes the BVGraph bit stream graph[0, nbytes) with parameters p (p->nodes known)
 * into CSR: *off (nodes + 1 entries) and *tgt (off[nodes] entries, each list strictly
 * increasing), allocated here and owned by the caller (free). offsets (nodes + 1 bit offsets
 * of the lists, from the .offsets file) may be NULL: a sequential pass then finds them. The
 * lists are then decoded in parallel (OpenMP) over node ranges of about equal arc counts, each
 * range starting from its first node's offset (the lists it references before the range are
 * decoded on demand, following the reference chain). name is the file named in messages.
 * Errors: CS_ERR_FORMAT for a stream that ends early or decodes to impossible values (a
 * reference beyond the window or before node 0, a successor outside [0, nodes), lists not
 * increasing, an outdegree that the copy blocks exceed), naming the file, node and bit.
 */
cs_err cs_bv_decode(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                    const cs_bv_params *p, const uint64_t *offsets, int64_t **off, int32_t **tgt);

/*
 * Local. Reads basename.offsets (the bit offsets of the nodes' lists as p->offsets-coded
 * differences, nodes + 1 values) into *offsets (malloc'd, owned by the caller); *offsets =
 * NULL when the file does not exist. nbits bounds the offsets.
 */
cs_err cs_bv_read_offsets(cs_ctx *ctx, const char *path, const cs_bv_params *p, uint64_t nbits,
                          uint64_t **offsets);

/*
 * Local. The bit offsets of all p->nodes lists (nodes + 1 values, the last the end of the
 * stream) by one sequential decoding pass, for graphs without a .offsets file: *offsets is
 * malloc'd, owned by the caller. prog (may be NULL) counts nodes. Errors as cs_bv_decode.
 */
cs_err cs_bv_scan(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                  const cs_bv_params *p, uint64_t **offsets, cs_progress *prog);

/*
 * Local. Part `part` of `parts` of the nodes, [*a, *b), the parts cutting the arcs into shares
 * as equal as whole lists allow (part r starts at the first node with at least arcs * r / parts
 * arcs before it); *arcs: the arc count, checked against the properties'. Reads every node's
 * outdegree at its offset (offsets: all nodes + 1), so every caller computes the same parts.
 * CS_ERR_FORMAT when an outdegree cannot be read (an .offsets file of another graph) or the
 * arc count is not the properties'.
 */
cs_err cs_bv_split(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                   const cs_bv_params *p, const uint64_t *offsets, int parts, int part, int64_t *a,
                   int64_t *b, int64_t *arcs);

/*
 * Local. The lists of nodes [a, b) as a local CSR with 64-bit targets (the layout of a graph
 * slice): *off (b - a + 1 entries, off[0] = 0) and *tgt (off[b - a] entries), allocated here
 * and owned by the caller. offsets: all nodes + 1 bit offsets. Decoded in parallel (OpenMP) as
 * cs_bv_decode; lists before a that the range references are decoded on demand. prog (may be
 * NULL) gets the range's arc count as its total and counts arcs. Errors as cs_bv_decode.
 */
cs_err cs_bv_decode_range(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                          const cs_bv_params *p, const uint64_t *offsets, int64_t a, int64_t b,
                          int64_t **off, int64_t **tgt, cs_progress *prog);

/*
 * Local. Maps path read-only into *data (nbytes): the pages are read as the decoder touches
 * them and belong to the page cache (shared by the ranks of a node, never copied). An empty
 * file gives a static buffer. Release with cs_bv_unmap. CS_ERR_IO naming the file.
 */
cs_err cs_bv_map(cs_ctx *ctx, const char *path, const uint8_t **data, uint64_t *nbytes);
/* Local. Releases a mapping of cs_bv_map (accepts NULL). */
void cs_bv_unmap(const uint8_t *data, uint64_t nbytes);

/*
 * Local. Opens the BVGraph of graph_path (BASENAME.graph): its parameters from
 * BASENAME.properties into p (or WebGraph's defaults and nodes_hint > 0 as the node count when
 * there is none: an error without either; a nodes_hint that the properties contradict is an
 * error), the .graph file mapped (cs_bv_map) and, when BASENAME.offsets exists, the offsets
 * (*offsets, else NULL; owned by the caller). On failure nothing is left open.
 */
cs_err cs_bv_open(cs_ctx *ctx, const char *graph_path, int64_t nodes_hint, cs_bv_params *p,
                  const uint8_t **graph, uint64_t *nbytes, uint64_t **offsets);

/*
 * Local. The whole BVGraph of graph_path (BASENAME.graph, with BASENAME.properties and, when
 * present, BASENAME.offsets) into CSR as cs_bv_decode. nodes_hint (> 0) gives the node count
 * when there is no properties file (an error without either); *n receives the node count.
 */
cs_err cs_bv_read_graph(cs_ctx *ctx, const char *graph_path, int64_t nodes_hint, int64_t *n,
                        int64_t **off, int32_t **tgt);

#endif
