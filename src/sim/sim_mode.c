/*
 * sim: the crawl's modes as ops tables (sim_mode in sim_engine.h), chosen once at set-up from
 * the strict setting (sim_strict_setting): the owned crawl, where each rank crawls from its own
 * pages' frontier; the owned crawl of the strict setting, where the fetches are sorted by page
 * id, the link records are inserted in one canonical order after the exchange and the frontier's
 * capacity is global; and the replicated crawl (the strict setting with a selecting policy),
 * where every rank holds the whole frontier and the one logical policy, shares every fetch with
 * every rank (rep_share) and fetches the picks it owns. The procedural world is not a mode of
 * the tick: it changes where a page's links and attributes come from (sim_fetch.c, host_any).
 */
#include "sim/sim_engine.h"

static cs_err no_seeded(sim *s, int64_t n)
{
    (void)s;
    (void)n;
    return CS_OK;
}

static cs_err strict_seeded(sim *s, int64_t n)
{
    return cs_agree(s->ctx, sim_sort_fetches(s, n));
}

static cs_err owned_picked(sim *s, int64_t *n)
{
    (void)s;
    (void)n;
    return CS_OK;
}

/* the strict setting: the fetches in page id order, so that the link records come out in
 * (source page, link) order on any rank count */
static cs_err strict_picked(sim *s, int64_t *n)
{
    return sim_sort_fetches(s, *n);
}

/* every rank selected every pick, and knows every pick visited already: it fetches its own */
static cs_err rep_picked(sim *s, int64_t *n)
{
    sim_keep_own_fetches(s, n);
    return CS_OK;
}

static cs_err rep_visited(sim *s, cs_err local, int64_t n)
{
    (void)s;
    (void)n;
    return local; /* every rank marked every pick itself */
}

/* the links of this rank's own pages go into the frontier at once */
static cs_err owned_fetched(sim *s, cs_err *local, int64_t n, uint64_t tick)
{
    (void)n;
    (void)tick;
    if (*local == CS_OK)
        *local = sim_insert_own(s);
    return CS_OK;
}

/* the strict setting inserts them with the received ones (strict_exchange) */
static cs_err strict_fetched(sim *s, cs_err *local, int64_t n, uint64_t tick)
{
    (void)s;
    (void)local;
    (void)n;
    (void)tick;
    return CS_OK;
}

static cs_err rep_fetched(sim *s, cs_err *local, int64_t n, uint64_t tick)
{
    return sim_rep_share(s, *local, n, tick);
}

static cs_err owned_exchange(sim *s, cs_err local)
{
    return sim_exchange(s, local, 0);
}

static cs_err strict_exchange(sim *s, cs_err local)
{
    return sim_exchange(s, local, 1);
}

static cs_err rep_exchange(sim *s, cs_err local)
{
    (void)s;
    return local; /* every record went to every rank (rep_share), none is routed */
}

static cs_err local_evict(sim *s, cs_err *local, int64_t nsel, int64_t *glob)
{
    (void)nsel;
    (void)glob;
    if (*local == CS_OK)
        sim_evict_local(s);
    return CS_OK;
}

/* the tick's counts travel with the eviction's allreduce (no weights are averaged in the strict
 * setting: learners sum) */
static cs_err strict_evict(sim *s, cs_err *local, int64_t nsel, int64_t *glob)
{
    sim_tick_counts(s, nsel, glob);
    return sim_evict_global(s, *local, glob, 5);
}

static const sim_mode mode_owned = {
    .name = "owned",
    .replicated = 0,
    .averages = 1,
    .select = sim_select_owned,
    .seeded = no_seeded,
    .picked = owned_picked,
    .visited = sim_share_visited,
    .route = sim_route_links,
    .fetched = owned_fetched,
    .exchange = owned_exchange,
    .evict = local_evict,
    .fused = 0,
};

static const sim_mode mode_strict = {
    .name = "strict",
    .replicated = 0,
    .averages = 1,
    .select = sim_select_strict,
    .seeded = strict_seeded,
    .picked = strict_picked,
    .visited = sim_share_visited,
    .route = sim_route_links,
    .fetched = strict_fetched,
    .exchange = strict_exchange,
    .evict = strict_evict,
    .fused = 1,
};

static const sim_mode mode_replicated = {
    .name = "replicated",
    .replicated = 1,
    .averages = 0,
    .select = sim_select_replicated,
    .seeded = no_seeded,
    .picked = rep_picked,
    .visited = rep_visited,
    .route = sim_route_counted,
    .fetched = rep_fetched,
    .exchange = rep_exchange,
    .evict = local_evict,
    .fused = 0,
};

const sim_mode *sim_mode_choose(int strict, int rep)
{
    return rep ? &mode_replicated : strict ? &mode_strict : &mode_owned;
}
