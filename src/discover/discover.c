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

const cs_discover_policy *cs_discover_list(int *n)
{
    *n = (int)(sizeof registry / sizeof registry[0]);
    return registry;
}
