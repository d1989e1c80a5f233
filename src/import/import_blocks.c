/*
 * import_blocks: hosts = blocks, hosts for a graph numbered in URL order that comes without its
 * URLs (LAW's graphs): the pages of a host are then a run of consecutive ids, but where one host
 * ends is unknown. Page i's host is taken to be page i's host in the world of the spec host_spec
 * (the generator's host model, cs_gen_host_of, at the graph's page count): consecutive page-id
 * blocks whose sizes follow that spec's host-size distribution (host_size_mean, host_size_alpha,
 * host_size_max, drawn from its seed). With a twin's spec, the real graph and its twin have the
 * same hosts page for page, so what differs between them is where their links go.
 */
#include "import_impl.h"

#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <stdio.h>
#include <stdlib.h>

/* Local. The host model of host_spec at N pages into *gen (cs_config_load is collective). */
static cs_err block_model(cs_ctx *ctx, const cs_config *cfg, int64_t N, cs_gen **gen)
{
    char path[CS_CONF_STR], set[64];
    cs_config *hc = NULL;
    cs_err rc = cs_imp_resolve(ctx, cfg, cfg->import.host_spec, path, sizeof path);
    CS_TRY(ctx, cs_agree(ctx, rc));
    CS_TRY(ctx, cs_agree(ctx, cs_alloc(ctx, &hc, 1, sizeof *hc, "host spec")));
    snprintf(set, sizeof set, "gen.pages=%lld", (long long)N);
    const char *sets[1] = {set};
    rc = cs_config_load(ctx, path, sets, 1, hc);
    if (rc == CS_OK)
        rc = cs_agree(ctx, cs_gen_create(ctx, &hc->gen, gen));
    if (rc != CS_OK)
        cs_fail(ctx, rc, "[import] hosts = blocks: the host model of host_spec %s failed", path);
    free(hc);
fail:
    return rc;
}

cs_err cs_imp_block_hosts(cs_ctx *ctx, const cs_config *cfg, int64_t N, cs_graph_slice *g,
                          cs_graph_meta *meta)
{
    if (cfg->import.hosts != CS_HOSTS_BLOCKS)
        return CS_OK;
    cs_gen *gen = NULL;
    cs_err rc = block_model(ctx, cfg, N, &gen);
    if (rc != CS_OK)
        return rc;
    const cs_gen_config *gc = &cfg->gen;
    const int64_t first = g->first, n = g->n;
    int64_t *host = g->host;
    double *delta = g->delta, *mu = g->mu;
    uint8_t *obs = g->observable;
#pragma omp parallel for default(none) shared(gen, gc, first, n, host, delta, mu, obs)             \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
        host[i] = cs_gen_host_of(gen, first + i);
        /* the dynamics are keyed by (host, page), as for any imported page */
        cs_gen_page_dynamics(gc, host[i], first + i, CS_RNG_IMPORT, &delta[i], &mu[i], &obs[i]);
    }
    meta->n_hosts = cs_gen_n_hosts(gen);
    g->n_hosts = meta->n_hosts;
    free(meta->host_blob);
    free(meta->host_name_off);
    meta->host_blob = NULL;
    meta->host_name_off = NULL;
    cs_gen_destroy(&gen);
    return CS_OK;
}
