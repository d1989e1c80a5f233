/*
 * main internals shared by the command files: the usage error every command gives.
 */
#ifndef CRAWLSIM_MAIN_IMPL_H
#define CRAWLSIM_MAIN_IMPL_H

#include "crawlsim/core.h"

/* Local. CS_ERR_USAGE with the formatted message and "(see crawlsim<cmd> --help)"; cmd is ""
 * or " <command>". */
cs_err main_usage(cs_ctx *ctx, const char *cmd, const char *fmt, ...) CS_PRINTF(3, 4);

/*
 * Collective(MPI_COMM_WORLD). Warns (from rank 0) when OpenMP threads share cores by accident,
 * and notes a rank whose threads run on cores of several sockets (placement.c).
 */
void main_check_placement(cs_ctx *ctx);

#endif
