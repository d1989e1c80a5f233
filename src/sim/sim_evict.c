/*
 * sim: the evict phase: the frontier beyond crawl.frontier_capacity loses its lowest keys, on
 * each rank (cs_frontier_evict) or, in the strict setting, the globally lowest over all ranks.
 */
#include "sim/sim_engine.h"

/* Local. The rank's own frontier's eviction (the replicated mode: the replicated frontier,
 * counted once). */
void sim_evict_local(sim *s)
{
    const int64_t ev = cs_frontier_evict(s->fr);
    s->m.c[C_EVICTIONS] += s->tally ? ev : 0;
}

/* The histogram of a k-th largest round from the frontier's index (cs_comm_hist_fn). */
static void index_hist(const void *arg, uint64_t prefix, int shift, int nb, int64_t *h)
{
    cs_findex_hist(arg, prefix, shift, nb, h);
}

/*
 * Collective. Strict setting: the frontier's capacity (crawl.frontier_capacity) over all ranks.
 * When the ranks hold more, the globally lowest keys are evicted (cs_comm_kth_largest), as one
 * frontier would evict them.
 * local: this rank's code of the tick's steps since their last agreement, agreed together with
 * sums[0..ns) (the tick's counts, summed over ranks in place) in one fused allreduce. sums[1]
 * must be this rank's frontier size; on return it is the global one after the eviction.
 */
cs_err sim_evict_global(sim *s, cs_err local, int64_t *sums, int ns)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t C = cs_frontier_capacity(s->fr);
    const int64_t n = cs_frontier_size(s->fr);
    CS_ASSERT(ns >= 2 && sums[1] == n);
    CS_TRY(ctx, cs_allreduce_fused(ctx, local, sums, ns, NULL, 0, NULL, 0));
    if (sums[1] <= C)
        return CS_OK;
    sums[1] = C; /* the keys are unique: the keys >= the cut are exactly C */
    /* the lowest keys are read: the index whole first (a local failure is agreed by the search
     * below, which every rank enters, instead of leaving it on this rank alone) */
    const cs_err whole = cs_frontier_index_whole(ctx, s->fr);
    if (local == CS_OK)
        local = whole;
    const cs_findex *ix = cs_frontier_index(s->fr);
    uint64_t cut = 0;
    if (ix != NULL) {
        /* the same search on the index's counts (no pass over the entries) */
        uint64_t kmin = 0, kmax = 0;
        if (cs_findex_up(ix, 0, &kmin, 1) == 1)
            (void)cs_findex_down(ix, UINT64_MAX, &kmax, 1);
        CS_TRY(ctx, cs_comm_kth_largest_hist(ctx, local, cs_findex_size(ix), kmin, kmax, index_hist,
                                             ix, C, &cut));
        s->m.c[C_EVICTIONS] += cs_frontier_evict_below(s->fr, cut);
        return CS_OK;
    }
    local = cs_grow(ctx, &s->evict.keys, &s->evict.keys_cap, (size_t)n + 1, sizeof *s->evict.keys,
                    "eviction");
    if (local == CS_OK) {
        cs_frontier_view v;
        cs_frontier_view_get(s->fr, &v);
        for (int64_t i = 0; i < n; i++)
            s->evict.keys[i] = cs_frontier_key(v.q[i], v.id[i]);
    }
    CS_TRY(ctx, cs_comm_kth_largest(ctx, local, s->evict.keys, n, C, &cut));
    s->m.c[C_EVICTIONS] += cs_frontier_evict_below_keys(s->fr, s->evict.keys, cut);
fail:
    return rc;
}

void sim_evict_fini(sim_evict_phase *p)
{
    free(p->keys);
}
