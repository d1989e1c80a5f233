/*
 * sim: the crawl's modes as ops tables (sim_mode in sim_engine.h), chosen once at set-up from
 * the strict setting (sim_strict_setting): the owned crawl, where each rank crawls from its own
 * pages' frontier; the owned crawl of the strict setting, where the fetches are sorted by page
 * id, the link records are inserted in one canonical order after the exchange and the frontier's
 * capacity is global; and the replicated crawl (the strict setting with a selecting policy),
 * where every rank holds the whole frontier and the one logical policy, shares every fetch with
 * every rank (rep_share) and fetches the picks it owns. The procedural world is not a mode of
 * the tick: it changes where a page's links, attributes and host come from, which the world's
 * accessors (sim_world_ops, below) answer.
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

/* the strict setting with a MAX cap on split hosts (cap_global): every rank knows every seed,
 * and the other ranks' count towards their hosts' caps */
static cs_err capped_seeded(sim *s, int64_t n)
{
    for (int64_t i = 0; i < s->sl.n_seeds; i++)
        if (cs_graph_local_index(s->w.g, s->sl.seeds[i]) < 0)
            s->h.host_fetched[hslot(s, host_any(s, s->sl.seeds[i]))]++;
    return strict_seeded(s, n);
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

/* the tick's counts summed over the ranks, with local agreed */
static cs_err counts_agree(sim *s, int64_t t, cs_err local, int64_t nsel, int64_t *glob)
{
    (void)t;
    sim_tick_counts(s, nsel, glob);
    return cs_allreduce_fused(s->ctx, local, glob, 5, NULL, 0, NULL, 0);
}

/* crawl.weight_sync = average: the ranks' weights averaged every sync_every ticks first */
static cs_err owned_agree(sim *s, int64_t t, cs_err local, int64_t nsel, int64_t *glob)
{
    const int64_t K = s->cfg->crawl.sync_every;
    if (K > 0 && t % K == 0 && s->ops->weights != NULL && !s->sum) {
        const cs_err rc = sim_average_sync(s);
        if (rc != CS_OK)
            return rc;
    }
    return counts_agree(s, t, local, nsel, glob);
}

/* the eviction's allreduce agreed the counts and the code (strict_evict) */
static cs_err evicted_agree(sim *s, int64_t t, cs_err local, int64_t nsel, int64_t *glob)
{
    (void)s;
    (void)t;
    (void)local;
    (void)nsel;
    (void)glob;
    return CS_OK;
}

static int host_mine(const sim *s, int64_t h)
{
    (void)s;
    (void)h;
    return 0;
}

static int host_split_global(const sim *s, int64_t h)
{
    return host_split(s, h);
}

static int host_everywhere(const sim *s, int64_t h)
{
    (void)s;
    (void)h;
    return 1;
}

static int quotas_mine(const sim *s)
{
    (void)s;
    return 0;
}

static int quotas_split(const sim *s)
{
    return s->h.any_split;
}

static int quotas_everywhere(const sim *s)
{
    (void)s;
    return 1;
}

/* the counts of a host are kept by the ranks owning its pages */
static int knows_own(const sim *s, int64_t page)
{
    return cs_graph_owner(s->w.g, page) == s->ctx->rank;
}

/* replicated: every host's counts are global and everywhere */
static int knows_every(const sim *s, int64_t page)
{
    (void)s;
    (void)page;
    return 1;
}

static const sim_mode mode_owned = {
    .name = "owned",
    .replicated = 0,
    .select = sim_select_owned,
    .seeded = no_seeded,
    .picked = owned_picked,
    .visited = sim_share_visited,
    .learn = sim_learn_fetches,
    .knows_host = knows_own,
    .route = sim_route_links,
    .fetched = owned_fetched,
    .exchange = owned_exchange,
    .evict = local_evict,
    .agree = owned_agree,
    .host_global = host_mine,
    .quotas_global = quotas_mine,
    .demotes = 1,
};

static const sim_mode mode_strict = {
    .name = "strict",
    .replicated = 0,
    .select = sim_select_strict,
    .seeded = strict_seeded,
    .picked = strict_picked,
    .visited = sim_share_visited,
    .learn = sim_learn_fetches,
    .knows_host = knows_own,
    .route = sim_route_links,
    .fetched = strict_fetched,
    .exchange = strict_exchange,
    .evict = strict_evict,
    .agree = evicted_agree,
    .host_global = host_split_global,
    .quotas_global = quotas_split,
    .demotes = 0,
};

/* the strict setting with a MAX cap on split hosts (cap_global): every rank counts every
 * fetch towards its host's cap */
static const sim_mode mode_strict_capped = {
    .name = "strict, global MAX caps",
    .replicated = 0,
    .select = sim_select_strict,
    .seeded = capped_seeded,
    .picked = strict_picked,
    .visited = sim_share_visited_counted,
    .learn = sim_learn_fetches,
    .knows_host = knows_own,
    .route = sim_route_links,
    .fetched = strict_fetched,
    .exchange = strict_exchange,
    .evict = strict_evict,
    .agree = evicted_agree,
    .host_global = host_split_global,
    .quotas_global = quotas_split,
    .demotes = 0,
};

static const sim_mode mode_replicated = {
    .name = "replicated",
    .replicated = 1,
    .select = sim_select_replicated,
    .seeded = no_seeded,
    .picked = rep_picked,
    .visited = rep_visited,
    .learn = sim_learn_replicated,
    .knows_host = knows_every,
    .route = sim_route_counted,
    .fetched = rep_fetched,
    .exchange = rep_exchange,
    .evict = local_evict,
    .agree = counts_agree,
    .host_global = host_everywhere,
    .quotas_global = quotas_everywhere,
    .demotes = 1,
};

const sim_mode *sim_mode_choose(int strict, int rep, int cap_global)
{
    if (rep)
        return &mode_replicated;
    if (strict)
        return cap_global ? &mode_strict_capped : &mode_strict;
    return &mode_owned;
}

/* ---- the world's accessors ------------------------------------------------------------------ */

/* A materialized world: the graph's hosts by local index, every page's in the host map. */
static int64_t graph_host_local(const sim *s, int64_t li)
{
    return cs_graph_host(s->w.g)[li];
}

static int64_t graph_host_page(const sim *s, int64_t page)
{
    return cs_graph_host(s->w.g)[cs_graph_local_index(s->w.g, page)];
}

static void graph_prefetch_host(const sim *s, int64_t page)
{
    __builtin_prefetch(&cs_graph_host(s->w.g)[cs_graph_local_index(s->w.g, page)]);
}

static int64_t map_host(const sim *s, int64_t page)
{
    return s->h.host_all[page];
}

static void map_prefetch_host(const sim *s, int64_t page)
{
    __builtin_prefetch(&s->h.host_all[page]);
}

/* The procedural world: the generator's host ranges, nothing stored per page. */
static int64_t gen_host(const sim *s, int64_t page)
{
    return cs_gen_host_of(s->w.gen, page);
}

static int64_t gen_host_local(const sim *s, int64_t li)
{
    return cs_gen_host_of(s->w.gen, cs_graph_local_id(s->w.g, li));
}

static void gen_prefetch_host(const sim *s, int64_t page)
{
    (void)s;
    (void)page;
}

static const sim_world_ops world_graph = {
    .name = "materialized",
    .pages = sim_pages_graph,
    .host_any = map_host,
    .host_local = graph_host_local,
    .host_page = graph_host_page,
    .prefetch_host = graph_prefetch_host,
};

/* the replicated mode's frontier holds any page */
static const sim_world_ops world_graph_replicated = {
    .name = "materialized, replicated",
    .pages = sim_pages_graph,
    .host_any = map_host,
    .host_local = graph_host_local,
    .host_page = map_host,
    .prefetch_host = map_prefetch_host,
};

static const sim_world_ops world_procedural = {
    .name = "procedural",
    .pages = sim_pages_generated,
    .host_any = gen_host,
    .host_local = gen_host_local,
    .host_page = gen_host,
    .prefetch_host = gen_prefetch_host,
};

const sim_world_ops *sim_world_choose(int proc, int replicated)
{
    return proc ? &world_procedural : replicated ? &world_graph_replicated : &world_graph;
}
