/* discover internals: the ops tables of the policies, one per file. */
#ifndef CRAWLSIM_DISCOVER_IMPL_H
#define CRAWLSIM_DISCOVER_IMPL_H
#include "crawlsim/discover.h"

extern const cs_discover_ops cs_discover_random_ops;
extern const cs_discover_ops cs_discover_best_first_ops;
extern const cs_discover_ops cs_discover_sarsa_ops;
extern const cs_discover_ops cs_discover_tres_ops;
extern const cs_discover_ops cs_discover_tres_async_ops;
extern const cs_discover_ops cs_discover_tree_random_ops;

#endif
