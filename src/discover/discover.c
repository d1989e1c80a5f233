/*
 * discover: the registry of focused-crawl policies, made from src/config/registry_discover.def,
 * the list the run.policy choices are made from too (so cfg->run.policy indexes it).
 */
#include "crawlsim/discover.h"
#include "discover_impl.h"

#include <string.h>

static const cs_discover_policy registry[] = {
#define CS_DISCOVER_POLICY(id, nm, sum)                                                            \
    {.name = nm, .summary = sum, .ops = &cs_discover_##id##_ops},
#include "config/registry_discover.def"
#undef CS_DISCOVER_POLICY
};

const cs_discover_policy *cs_discover_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

double cs_discover_reward_han(const cs_config *cfg, int relevant, double rl)
{
    const cs_sarsa_config *sc = &cfg->sarsa;
    if (sc->reward == CS_REWARD_BINARY)
        return relevant ? 1.0 : 0.0;
    if (relevant)
        return sc->reward_relevant;
    if (rl > sc->high_threshold)
        return sc->reward_high;
    if (rl > sc->mid_threshold)
        return sc->reward_mid;
    return sc->reward_other;
}

const cs_discover_policy *cs_discover_list(int *n)
{
    *n = (int)(sizeof registry / sizeof registry[0]);
    return registry;
}
