/*
 * partition internals: the reader of a partition group's attributes, shared by partition_io.c
 * and the fuzzing harness of the HDF5 readers (tests/fuzz/fuzz_h5_readers.c).
 */
#ifndef CRAWLSIM_PARTITION_IMPL_H
#define CRAWLSIM_PARTITION_IMPL_H

#include "crawlsim/partition.h"

#include <hdf5.h>

/*
 * Local. The attributes of partition group g (a partition file's root or a graph file's
 * /partition) into p, every one through the reader contract (h5.h): format and schema version
 * first, then method, k, seed and the quality figures, which are checked against what the
 * writer produces (counts >= 0, the edge cut within the links, fractions in [0, 1], balances
 * and seconds finite). `what` names the file in messages.
 */
cs_err cs_partition_read_attrs(cs_ctx *ctx, hid_t g, cs_partition *p, const char *what);

#endif
