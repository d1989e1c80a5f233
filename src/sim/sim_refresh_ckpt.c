/*
 * Checkpoints of the refresh part: not written yet. A run with [refresh] and run.checkpoint
 * stops at its first checkpoint with a clear error instead of writing an incomplete one.
 */
#include "sim/sim_impl.h"

cs_err cs_simrf_save(cs_ctx *ctx, const sim_refresh *rf, cs_ckpt *ck)
{
    (void)rf;
    (void)ck;
    return cs_fail(ctx, CS_ERR_CONFIG,
                   "run.checkpoint: checkpoints of runs with [refresh] are not supported yet");
}

cs_err cs_simrf_load(cs_ctx *ctx, sim_refresh *rf, cs_ckpt *ck)
{
    (void)rf;
    (void)ck;
    return cs_fail(ctx, CS_ERR_CONFIG,
                   "run.checkpoint: checkpoints of runs with [refresh] are not supported yet");
}
