/*
 * discover: the registry of focused-crawl policies. Its order matches the run.policy choices
 * of the config schema ("random|best-first|sarsa|tres|tres-async|tree-random").
 */
#include "crawlsim/discover.h"
#include "discover_impl.h"

#include <string.h>

static const cs_discover_ops *const registry[] = {
    &cs_discover_random_ops, &cs_discover_best_first_ops, &cs_discover_sarsa_ops,
    &cs_discover_tres_ops,   &cs_discover_tres_async_ops, &cs_discover_tree_random_ops,
};

const cs_discover_ops *cs_discover_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const cs_discover_ops *const *cs_discover_list(int *n)
{
    *n = (int)(sizeof registry / sizeof registry[0]);
    return registry;
}
