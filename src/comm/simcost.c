/*
 * comm: modelled computation on a simulated cluster (the SMPI build; see comm.h, cs_simcost_*).
 */
#include "crawlsim/comm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Flops per unit of work, parsed once per rank (the SMPI build loads a copy of this file's
 * statics per simulated rank); all zero: no charge. */
static double cost_flops[CS_NCOST];

cs_err cs_simcost_init(cs_ctx *ctx)
{
    const char *env = getenv("CRAWLSIM_SMPI_COSTS");
    memset(cost_flops, 0, sizeof cost_flops);
    if (env == NULL || env[0] == '\0')
        return CS_OK;
#ifndef CRAWLSIM_SMPI
    return cs_fail(ctx, CS_ERR_CONFIG,
                   "CRAWLSIM_SMPI_COSTS is set, but this build runs real ranks: it is read by the "
                   "SMPI build only (docs/guide/simulated-cluster.md); unset it");
#else
    const char *p = env;
    for (int k = 0; k < CS_NCOST; k++) {
        char *end = NULL;
        errno = 0;
        const double v = strtod(p, &end);
        if (end == p || errno != 0 || !(v >= 0.0) || v > 1e15 ||
            (k + 1 < CS_NCOST ? *end != ',' : *end != '\0')) {
            memset(cost_flops, 0, sizeof cost_flops);
            return cs_fail(
                ctx, CS_ERR_CONFIG,
                "CRAWLSIM_SMPI_COSTS='%s': expected %d non-negative numbers separated by "
                "commas (flops per Q evaluation, frontier entry, fetch, link routed, "
                "record inserted)",
                env, CS_NCOST);
        }
        cost_flops[k] = v;
        p = end + 1;
    }
    return CS_OK;
#endif
}

void cs_simcost_charge(cs_cost_kind k, double units)
{
#ifdef CRAWLSIM_SMPI
    if (k >= 0 && k < CS_NCOST && cost_flops[k] > 0.0 && units > 0.0)
        smpi_execute_flops_benched(units * cost_flops[k]);
#else
    (void)k;
    (void)units;
#endif
}
