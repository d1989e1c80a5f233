/*
 * crawlsim compare: are two HDF5 files (results, graphs, checkpoints) the same, object by object
 * (compare.h)?
 */
#ifndef CRAWLSIM_MAIN_CMD_COMPARE_H
#define CRAWLSIM_MAIN_CMD_COMPARE_H

#include "crawlsim/core.h"

/* The path ignored unless no_default_ignore: wall-clock measurements of `crawlsim run`. */
#define CS_COMPARE_DEFAULT_IGNORE "/timing"

/* The command's arguments as given (borrowed). */
typedef struct cs_compare_args {
    const char *a, *b;         /* the two files */
    const char *const *ignore; /* --ignore PATH ... */
    int n_ignore;
    const char *const *only; /* --only PATH ... */
    int n_only;
    int no_default_ignore; /* --no-default-ignore: /timing is compared too */
    int verbosity;         /* -1 (-q): print nothing; 0: the first 10 differences; > 0: all */
} cs_compare_args;

/*
 * Collective(ctx->comm). Logically collective: a. Rank 0 compares the files a->a and a->b
 * (cs_compare_files, /timing and a->ignore left out, only a->only when given), prints the
 * differences and a summary line on stdout; every rank then sets *differ to 1 when the files
 * differ, 0 when they are the same. Errors, agreed (every rank returns rank 0's code and
 * message; *differ is then untouched): CS_ERR_IO, CS_ERR_FORMAT, CS_ERR_HDF5, CS_ERR_ARG,
 * CS_ERR_SCHEMA, CS_ERR_NOMEM, CS_ERR_MPI, as cs_compare_files.
 */
cs_err cs_cmd_compare(cs_ctx *ctx, const cs_compare_args *a, int *differ);

#endif
