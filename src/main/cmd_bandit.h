/*
 * crawlsim bandit: the restless-bandit experiments of the Whittle and DRL papers (bandit.h) from
 * the [bandit] section of a job file.
 */
#ifndef CRAWLSIM_MAIN_CMD_BANDIT_H
#define CRAWLSIM_MAIN_CMD_BANDIT_H

#include "crawlsim/core.h"

/*
 * Collective(ctx->comm). Logically collective: all arguments. Loads the job (job may be NULL:
 * defaults), runs every configured policy for bandit.runs runs (run r on rank r mod P; the
 * result does not depend on P), writes the running- and moving-average reward series with 95 %
 * intervals over runs to the results file (output, else bandit.output, else
 * results/<job name>.h5) and prints a summary. Errors, agreed: CS_ERR_CONFIG (bad job file or
 * list, naming the key), CS_ERR_ARG, CS_ERR_NOMEM, CS_ERR_IO, CS_ERR_HDF5.
 */
cs_err cs_cmd_bandit(cs_ctx *ctx, const char *job, const char *const *sets, int nsets,
                     const char *output);

#endif
