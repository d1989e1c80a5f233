/*
 * sim: the learn phase: the statistics of the tick's fetches (host counts, relevant pages),
 * the policy's observation of them in selection order, and the synchronisation of the ranks'
 * weights (crawl.weight_sync: exact sums, or averages).
 */
#include "sim/sim_engine.h"

#define LEARN_PARALLEL 128 /* fewer fetches are counted serially */

/* Local. The host counters of the tick's fetches (reads at random places): integer increments
 * and bit sets, the same whatever their order. The replicated mode counts every rank's fetches
 * in rep_share instead, and only the relevant hosts here (rp: a constant of each caller). */
static inline void learn_counts(sim *s, int64_t n, const int rp)
{
    int64_t nrel = 0, nhost = 0;
    const int64_t *host = s->f.host, *pat = s->f.at;
    const cs_feat_page *pst = s->f.pst;
    int32_t *hfc = s->h.host_fetched, *hrc = s->h.host_rel;
    uint64_t *relh = s->h.rel_host;
    const sim *cs = s; /* the host slots (hslot) */
#pragma omp parallel for if (n >= LEARN_PARALLEL) default(none)                                    \
    shared(cs, host, pat, pst, hfc, hrc, relh, rp, n) reduction(+ : nrel, nhost) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t h = host[pat[i]];
        if (!rp)
            __atomic_fetch_add(&hfc[hslot(cs, h)], 1, __ATOMIC_RELAXED);
        if (pst[i].relevant) {
            nrel++;
            if (!rp)
                __atomic_fetch_add(&hrc[hslot(cs, h)], 1, __ATOMIC_RELAXED);
            const uint64_t bit = (uint64_t)1 << (h & 63);
            nhost += (__atomic_fetch_or(&relh[h >> 6], bit, __ATOMIC_RELAXED) & bit) == 0;
        }
    }
    s->h.rel_count += nhost; /* the bits this loop set: one fetch_or saw each of them clear */
    s->m.c[C_FETCHED] += n;
    s->m.c[C_RELEVANT] += nrel;
}

/* Local. The policy observes this rank's fetches s->f.fx[0..n), in selection order (the seeds,
 * not chosen by an action, are left out). */
static cs_err learn_observe(sim *s, int64_t n, uint64_t tick)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const sim_fetch_phase *f = &s->f;
    const int TD = s->tres_d, G = s->G, GA = s->GA;
    CS_TRY(ctx,
           cs_grow(ctx, &s->ln.obs, &s->ln.obs_cap, (size_t)n + 1, sizeof *s->ln.obs, "fetches"));
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!f->fx[i].has_x)
            continue;
        cs_discover_fetch *o = &s->ln.obs[m++];
        o->pick = f->fx[i].pick;
        o->out_x = TD > 0 ? f->tx + f->base[i] * TD : NULL;
        o->page = f->fx[i].page;
        o->x = f->fx_codes + i * G;
        o->reward = f->reward[i];
        o->relevant = f->pst[i].relevant;
        o->state = f->pst[i].state;
        o->n_out = f->nout[i];
        o->out_action = f->acts + f->base[i] * GA;
    }
    s->ops->observe(s->pol, s->ln.obs, m, tick);
fail:
    return rc;
}

cs_err sim_learn_fetches(sim *s, int64_t n, uint64_t tick)
{
    cs_err rc = CS_OK;
    const double t0 = cs_now();
    CS_TRY(s->ctx, sim_record_trace(s, n, tick));
    learn_counts(s, n, 0);
    if (s->ops->observe != NULL)
        CS_TRY(s->ctx, learn_observe(s, n, tick));
    s->m.t[PH_LEARN] += cs_now() - t0;
fail:
    return rc;
}

cs_err sim_learn_replicated(sim *s, int64_t n, uint64_t tick)
{
    cs_err rc = CS_OK;
    const double t0 = cs_now();
    CS_TRY(s->ctx, sim_record_trace(s, n, tick));
    learn_counts(s, n, 1); /* the one policy observes every rank's fetches in rep_share */
    s->m.t[PH_LEARN] += cs_now() - t0;
fail:
    return rc;
}

/*
 * Collective. crawl.weight_sync = sum, after the tick's learning (before its links are valued):
 * every K ticks the ranks' exact update sums are added up and applied on every rank (the new
 * sync point); on the other ticks each rank applies its own.
 */
cs_err sim_sum_sync(sim *s, int64_t t)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t K = s->cfg->crawl.sync_every;
    double t0 = cs_now();
    if (K > 0 && t % K == 0) {
        int64_t n = 0;
        void *u = s->ops->updates(s->pol, &n);
        CS_TRY(ctx, cs_comm_sum_fix(ctx, u, n));
        s->ops->sum_apply(s->pol, 1);
        sim_diag_synced(s);
    } else {
        s->ops->sum_apply(s->pol, 0);
    }
    s->m.t[PH_ALLREDUCE] += cs_now() - t0;
fail:
    return rc;
}

/* Collective. crawl.weight_sync = average: the ranks' weights averaged (every K ticks). */
cs_err sim_average_sync(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    int64_t nw = 0;
    double *w = s->ops->weights(s->pol, &nw);
    CS_TRY(ctx, cs_comm_average(ctx, w, nw, &s->ln.avg, &s->ln.avg_cap));
    sim_diag_averaged(s, s->ln.avg);
    s->ops->synced(s->pol);
    sim_diag_synced(s);
fail:
    return rc;
}

/* Local. The policy's counters of the tick (Tree-Frontier leaves, its own Q evaluations). */
void sim_learn_counters(sim *s)
{
    if (s->ops->counters == NULL)
        return;
    int64_t lv = 0, qe = 0;
    s->ops->counters(s->pol, &lv, &qe);
    s->m.c[C_QEVALS] += s->tally ? qe - s->ln.pol_qevals : 0;
    s->ln.pol_qevals = qe;
    s->m.c[C_LEAVES] = s->tally ? lv : 0;
}

void sim_learn_fini(sim_learn_phase *p)
{
    free(p->obs);
    free(p->avg);
}
