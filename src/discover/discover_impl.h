/* discover internals: the ops tables of the registered policies (one per file), declared from
 * the registry. */
#ifndef CRAWLSIM_DISCOVER_IMPL_H
#define CRAWLSIM_DISCOVER_IMPL_H
#include "crawlsim/discover.h"

#define CS_DISCOVER_POLICY(id, nm, sum) extern const cs_discover_ops cs_discover_##id##_ops;
#include "config/registry_discover.def"
#undef CS_DISCOVER_POLICY

#endif
