/*
 * crawlsim schedule: optimal re-crawl rates of a page table (refresh.h) from the command line.
 */
#ifndef CRAWLSIM_MAIN_CMD_SCHEDULE_H
#define CRAWLSIM_MAIN_CMD_SCHEDULE_H

#include "crawlsim/core.h"

/* The command's options as given (strings, NULL when absent); checked by cs_cmd_schedule. */
typedef struct cs_schedule_args {
    const char *policy;
    const char *bandwidth;
    const char *epsilon;
    const char *input;
    const char *output;
} cs_schedule_args;

/*
 * Collective(ctx->comm). Logically collective: a. Reads the CSV a->input on rank 0 (columns id,
 * mu, delta, complete in any order), scatters the rows in contiguous blocks over the ranks,
 * solves with the policy, gathers the rates and writes a->output (id,rate,probability, input
 * order) atomically from rank 0; prints a summary on stdout. Errors, agreed: CS_ERR_USAGE (bad or
 * missing option), CS_ERR_IO, CS_ERR_FORMAT (bad input, naming file and line), CS_ERR_ARG,
 * CS_ERR_NOMEM, CS_ERR_LIMIT.
 */
cs_err cs_cmd_schedule(cs_ctx *ctx, const cs_schedule_args *a);

#endif
