/*
 * gen internals shared by gen.c and gen_graph.c.
 */
#ifndef CRAWLSIM_GEN_IMPL_H
#define CRAWLSIM_GEN_IMPL_H

#include "crawlsim/gen.h"

#include <stdint.h>

/*
 * Local. cs_gen_slice for the pages ids[0..n) (strictly increasing, in [0, pages); CS_ERR_ARG
 * otherwise) instead of a contiguous range: page i of out is page ids[i], generated exactly
 * as cs_gen_slice generates it, with the same OpenMP parallelism over all n pages whatever
 * the gaps between them. out->first is ids[0] (0 when n = 0) but the slice's pages are the
 * ids, not [first, first + n). ids is borrowed.
 */
cs_err gen_slice_ids(cs_ctx *ctx, const cs_gen *g, const int64_t *ids, int64_t n,
                     cs_graph_slice *out, cs_progress *progress);

#endif
