/*
 * ckpt internals: the checker of a checkpoint's header, shared by ckpt.c and the fuzzing
 * harness of the HDF5 readers (tests/fuzz/fuzz_h5_readers.c).
 */
#ifndef CRAWLSIM_CKPT_IMPL_H
#define CRAWLSIM_CKPT_IMPL_H

#include "crawlsim/ckpt.h"

#include <hdf5.h>

/* Local. The header attributes of the open checkpoint file (path names it in messages) through
 * the reader contract (h5.h): format, schema version, crawlsim version, and the rank count it
 * was written on into *ranks (>= 1). cs_ckpt_open's checks before its rank-count test. */
cs_err cs_ckpt_check_header(cs_ctx *ctx, hid_t file, const char *path, int32_t *ranks);

#endif
