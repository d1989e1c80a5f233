/*
 * sim: the exchange phase: the outboxes of link records to the ranks owning their pages, and
 * in the replicated mode every rank's fetches and records to every rank (rep_share).
 */
#include "sim/sim_engine.h"

/* Collective. The exchange of the outboxes and the insertion of what arrived. local: this rank's
 * code of the tick's steps since their last agreement; returned (not agreed) with the
 * insertion's, which is made only after steps that succeeded (the exchange's own errors are
 * agreed). merged: the strict setting, which inserts this rank's own records (deferred) with
 * the received ones in one canonical order (sim_insert_merged). */
cs_err sim_exchange(sim *s, cs_err local, int merged)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_exchange_stats st = {0};
    size_t len = 0;
    double t0 = cs_now();
    CS_TRY(ctx, cs_comm_exchange(ctx, &s->x.out, &s->x.recv, &s->x.recv_cap, &len, &st));
    s->m.t[PH_WAIT] += st.wait;
    s->m.t[PH_EXCHANGE] += cs_now() - t0 - st.wait;
    s->m.c[C_BYTES] += st.bytes_sent;
    s->m.c[C_MESSAGES] += st.messages_sent;
    double t1 = cs_now();
    if (local != CS_OK)
        return local;
    cs_simcost_charge(CS_COST_INSERT,
                      (double)(len / sizeof(cs_link_msg)) + (merged ? (double)s->r.n_own : 0.0));
    if (merged)
        rc = sim_insert_merged(s, len);
    else
        rc = sim_insert_links(s, NULL, (const cs_link_msg *)s->x.recv, NULL,
                              (int64_t)(len / sizeof(cs_link_msg)));
    s->m.t[PH_INSERT] += cs_now() - t1;
fail:
    return rc;
}

/* A fetch as rep_share sends it: its page, pick, relevance and out-link count; its records
 * follow the rank's fetches: n_out link records, then their n_out TRES vectors (padded to 8
 * bytes, so the next records stay aligned). */
typedef struct rep_fetch {
    int64_t page, pick, relevant, n_out;
    int64_t order; /* its place in the tick: the pick's index, or a seed's index in s->sl.seeds */
} rep_fetch;

static size_t rep_block(int64_t n_out, int TD)
{
    const size_t v = ((size_t)n_out * (size_t)TD * sizeof(float) + 7) / 8 * 8;
    return (size_t)n_out * sizeof(cs_link_msg) + v;
}

/* Local. This rank's n fetches, their records and TRES vectors into s->x.rep_buf (*mine bytes).
 * local: the code so far (nothing is packed after a failure). */
static cs_err rep_pack(sim *s, cs_err local, int64_t n, size_t *mine)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = local;
    const int TD = s->tres_d;
    const sim_fetch_phase *f = &s->f;
    *mine = (size_t)n * sizeof(rep_fetch);
    for (int64_t i = 0; rc == CS_OK && i < n; i++)
        *mine += rep_block(f->nout[i], TD);
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->x.rep_buf, &s->x.rep_buf_cap, *mine + 8, 1, "replicated fetches");
    if (rc != CS_OK)
        return rc;
    rep_fetch *hf = (rep_fetch *)s->x.rep_buf;
    char *rr = s->x.rep_buf + (size_t)n * sizeof(rep_fetch);
    for (int64_t i = 0; i < n; i++) {
        hf[i].page = f->fx[i].page;
        hf[i].pick = f->fx[i].has_x ? f->fx[i].pick : -1;
        hf[i].relevant = f->pst[i].relevant;
        hf[i].n_out = f->nout[i];
        hf[i].order = hf[i].pick;
        for (int64_t k = 0; hf[i].pick < 0 && k < s->sl.n_seeds; k++)
            if (s->sl.seeds[k] == hf[i].page)
                hf[i].order = k;
        memcpy(rr, &f->msgs[f->base[i]], (size_t)f->nout[i] * sizeof(cs_link_msg));
        if (TD > 0)
            memcpy(rr + (size_t)f->nout[i] * sizeof(cs_link_msg), f->tx + f->base[i] * TD,
                   (size_t)(f->nout[i] * TD) * sizeof(float));
        rr += rep_block(f->nout[i], TD);
    }
    return CS_OK;
}

/* Collective. Every rank's packed fetches into s->x.rep_all (rank after rank): one allgather of
 * the sizes (counts: fetches per rank, then bytes; displs: byte offsets) and one allgatherv of
 * the bytes; *nf: the fetches of all ranks. Errors agreed. */
static cs_err rep_gather(sim *s, int64_t n, size_t mine, int64_t *nf)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int P = ctx->size;
    int *fcnt = s->x.rep_counts, *bcnt = s->x.rep_counts + P, *bdsp = s->x.rep_displs;
    int my[2] = {n <= INT32_MAX ? (int)n : -1, mine <= INT32_MAX ? (int)mine : -1};
    cs_allgather(ctx, my, 2, s->x.rep_displs + P, CS_T_INT);
    int64_t tot = 0;
    *nf = 0;
    for (int r = 0; r < P; r++) {
        fcnt[r] = s->x.rep_displs[P + 2 * r];
        bcnt[r] = s->x.rep_displs[P + 2 * r + 1];
        if (fcnt[r] < 0 || bcnt[r] < 0 || tot + bcnt[r] > INT32_MAX) {
            rc = cs_fail(ctx, CS_ERR_LIMIT, "more than 2 GiB of fetches in one tick");
            break;
        }
        bdsp[r] = (int)tot;
        tot += bcnt[r];
        *nf += fcnt[r];
    }
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->x.rep_all, &s->x.rep_all_cap, (size_t)tot + 8, 1,
                     "replicated fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->f.perm, &s->f.perm_cap, 3 * (size_t)*nf + 1, sizeof *s->f.perm,
                     "fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)*nf + 1,
                     sizeof *s->sl.sort_tmp, "fetches");
    if (rc == CS_OK)
        rc =
            cs_grow(ctx, &s->ln.obs, &s->ln.obs_cap, (size_t)*nf + 1, sizeof *s->ln.obs, "fetches");
    CS_TRY_AGREE(ctx, rc);
    double t0 = cs_now();
    cs_allgatherv(ctx, s->x.rep_buf, my[1], s->x.rep_all, bcnt, bdsp, CS_T_BYTE);
    s->m.t[PH_EXCHANGE] += cs_now() - t0;
fail:
    return rc;
}

/* Local. The nf gathered fetches in the tick's order (their picks' order, the seeds' at a
 * task's start): s->f.perm holds their sorted keys (the low 24 bits: the fetch), then each
 * fetch's header offset, then its records' offset; *nrec: their records. */
static void rep_order(sim *s, int64_t nf, int64_t *nrec)
{
    const int P = s->ctx->size, TD = s->tres_d;
    const int *fcnt = s->x.rep_counts, *bdsp = s->x.rep_displs;
    uint64_t *key = (uint64_t *)s->f.perm;
    int64_t *fo = s->f.perm + nf, *ro = s->f.perm + 2 * nf, j = 0;
    *nrec = 0;
    for (int r = 0; r < P; r++) {
        const int64_t b = bdsp[r];
        int64_t at = b + (int64_t)fcnt[r] * (int64_t)sizeof(rep_fetch);
        for (int64_t k = 0; k < fcnt[r]; k++, j++) {
            rep_fetch f;
            memcpy(&f, s->x.rep_all + b + k * (int64_t)sizeof(rep_fetch), sizeof f);
            fo[j] = b + k * (int64_t)sizeof(rep_fetch);
            ro[j] = at;
            at += (int64_t)rep_block(f.n_out, TD);
            *nrec += f.n_out;
            CS_ASSERT(f.order >= 0 && f.order < ((int64_t)1 << 40) && nf < ((int64_t)1 << 24));
            key[j] = (uint64_t)f.order << 24 | (uint64_t)j;
        }
    }
    cs_sort_u64(key, nf, s->sl.sort_tmp);
}

/* Local. The fetches in order: the host counts, the records' order in s->in.ord (*o of them)
 * and the policy's observations (*m of them). */
static void rep_apply(sim *s, int64_t nf, int64_t *o, int64_t *m)
{
    const int TD = s->tres_d;
    const uint64_t *key = (const uint64_t *)s->f.perm;
    const int64_t *fo = s->f.perm + nf, *ro = s->f.perm + 2 * nf;
    *o = *m = 0;
    for (int64_t i = 0; i < nf; i++) {
        const int64_t k = (int64_t)(key[i] & 0xffffff);
        const rep_fetch *f = (const rep_fetch *)(s->x.rep_all + fo[k]);
        const cs_link_msg *recs = (const cs_link_msg *)(s->x.rep_all + ro[k]);
        const int64_t h = host_any(s, f->page);
        s->h.host_fetched[hslot(s, h)]++;
        s->h.host_rel[hslot(s, h)] += f->relevant != 0;
        for (int64_t l = 0; l < f->n_out; l++)
            s->in.ord[(*o)++] = &recs[l];
        if (f->pick < 0)
            continue; /* a seed was not chosen by an action */
        cs_discover_fetch *ob = &s->ln.obs[(*m)++];
        memset(ob, 0, sizeof *ob);
        ob->pick = f->pick;
        ob->page = f->page;
        ob->relevant = (int)f->relevant;
        ob->reward = f->relevant ? 1.0 : 0.0;
        ob->n_out = f->n_out;
        ob->out_x = TD > 0 ? (const float *)(recs + f->n_out) : NULL;
    }
}

/*
 * Collective. rep: every rank learns every rank's fetches of this tick (s->f.fx[0..n) here, with
 * their link records s->f.msgs and TRES vectors s->f.tx from fetch_pages) and applies them to its
 * replicated state in one order whatever P, the order of the picks (every rank knows them; the
 * seeds' order at a task's start), then the links: the host counts, the policy's observation
 * (its replay and Tree-Frontier experience), then the records into the frontier and the
 * policy's samples. On 1 rank that is the order of the engine outside the strict setting, so
 * the strict setting on 1 rank crawls as 1 rank always did. One allgather of the sizes and one
 * allgatherv of the bytes. local: this rank's code of the tick's steps since their last
 * agreement (a rank that failed has no fetches to read), agreed with this step's first.
 */
cs_err sim_rep_share(sim *s, cs_err local, int64_t n, uint64_t tick)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    size_t mine = 0;
    int64_t nf = 0, nrec = 0, o = 0, m = 0;
    CS_TRY_AGREE(ctx, rep_pack(s, local, n, &mine));
    CS_TRY(ctx, rep_gather(s, n, mine, &nf));
    double t1 = cs_now();
    rep_order(s, nf, &nrec);
    CS_TRY_AGREE(ctx, cs_grow(ctx, &s->in.ord, &s->in.ord_cap, (size_t)nrec + 1, sizeof *s->in.ord,
                              "links"));
    rep_apply(s, nf, &o, &m);
    if (s->ops->observe != NULL)
        s->ops->observe(s->pol, s->ln.obs, m, tick);
    double t2 = cs_now();
    s->m.t[PH_LEARN] += t2 - t1;
    rc = sim_insert_links(s, s->in.ord, NULL, NULL, o);
    cs_simcost_charge(CS_COST_INSERT, (double)o);
    s->m.t[PH_INSERT] += cs_now() - t2;
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

void sim_exchange_fini(sim_exchange_phase *p)
{
    cs_outbox_fini(&p->out);
    free(p->recv);
    free(p->vis_all);
    free(p->vis_counts);
    free(p->vis_displs);
    free(p->rep_buf);
    free(p->rep_all);
    free(p->rep_counts);
    free(p->rep_displs);
}
