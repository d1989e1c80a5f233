/*
 * sim: routing and exchange: link records to the ranks owning their pages and into the
 * frontier, the shared visited set, and the replicated state of the strict setting.
 */
#include "sim/sim_engine.h"

/* ---- the tick loop ------------------------------------------------------------------------ */

/* Links to this rank's own pages go into the frontier at once. */
cs_err sim_insert_own(sim *s)
{
    const int me = s->ctx->rank;
    double t0 = cs_now();
    CS_ASSERT(s->r.out.len[me] == 0);
    cs_err rc = sim_insert_links(s, NULL, s->r.msgs, s->r.own, s->r.n_own);
    cs_simcost_charge(CS_COST_INSERT, (double)s->r.n_own);
    s->r.n_own = 0;
    s->m.t[PH_INSERT] += cs_now() - t0;
    return rc;
}

/*
 * Local. Strict setting: inserts this tick's records, this rank's own (s->r.own, deferred) and
 * those received (s->r.recv, len bytes), in the order of their source pages, as one rank would.
 * The fetches were sorted by page id (sort_fetches), so the own records and each sender's
 * records are runs sorted by source (a page's out-links in graph order); the received buffer
 * is cut into runs where the source decreases, and the runs are merged with a binary heap of
 * their heads (sources are disjoint across runs: a page is fetched by its owner only).
 */
static cs_err insert_merged(sim *s, size_t len)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_link_msg *rv = (const cs_link_msg *)s->r.recv;
    const int64_t nr = (int64_t)(len / sizeof(cs_link_msg)), n = s->r.n_own + nr;
    CS_TRY(ctx,
           cs_grow(ctx, &s->r.ord, &s->r.ord_cap, 2 * (size_t)n + 1, sizeof *s->r.ord, "links"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->r.runs, &s->r.runs_cap, 3 * (size_t)n + 8, sizeof *s->r.runs, "links"));
    const cs_link_msg **in = s->r.ord + n, **out = s->r.ord;
    for (int64_t j = 0; j < s->r.n_own; j++)
        in[j] = &s->r.msgs[s->r.own[j]];
    for (int64_t j = 0; j < nr; j++)
        in[s->r.n_own + j] = &rv[j];
    /* runs: [b, e) ranges of in[]; the own records are one run */
    int64_t *rb = s->r.runs, nrun = 0;
    if (s->r.n_own > 0) {
        rb[2 * nrun] = 0;
        rb[2 * nrun++ + 1] = s->r.n_own;
    }
    for (int64_t j = s->r.n_own; j < n; j++) {
        if (j == s->r.n_own || in[j]->src < in[j - 1]->src) {
            rb[2 * nrun] = j;
            rb[2 * nrun++ + 1] = j + 1;
        } else {
            rb[2 * nrun - 1] = j + 1;
        }
    }
    if (nrun <= 1) {
        memcpy(out, in, (size_t)n * sizeof *out);
    } else if (nrun == 2) {
        /* two runs (2 ranks, or every sender's sources above the other's): a plain merge */
        int64_t a = rb[0], ae = rb[1], b = rb[2], be = rb[3], o = 0;
        while (a < ae && b < be)
            out[o++] = in[b]->src < in[a]->src ? in[b++] : in[a++];
        while (a < ae)
            out[o++] = in[a++];
        while (b < be)
            out[o++] = in[b++];
    } else {
        /* a min-heap of run indexes by the source of their head record */
        int64_t *heap = rb + 2 * nrun, hn = 0;
#define HEAD(r) (in[rb[2 * (r)]]->src)
        for (int64_t r = 0; r < nrun; r++) {
            int64_t i = hn++;
            while (i > 0 && HEAD(heap[(i - 1) / 2]) > HEAD(r)) {
                heap[i] = heap[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            heap[i] = r;
        }
        for (int64_t o = 0; o < n; o++) {
            const int64_t r = heap[0];
            out[o] = in[rb[2 * r]++];
            int64_t e = r;
            if (rb[2 * r] == rb[2 * r + 1])
                e = heap[--hn]; /* the run is done: the last leaf sifts down from the top */
            int64_t i = 0;
            for (;;) {
                int64_t c = 2 * i + 1;
                if (c >= hn)
                    break;
                if (c + 1 < hn && HEAD(heap[c + 1]) < HEAD(heap[c]))
                    c++;
                if (HEAD(heap[c]) >= HEAD(e))
                    break;
                heap[i] = heap[c];
                i = c;
            }
            if (hn > 0)
                heap[i] = e;
        }
#undef HEAD
    }
    s->r.n_own = 0;
    rc = sim_insert_links(s, out, NULL, NULL, n);
fail:
    return rc;
}

/*
 * Collective. Strict setting: crawl.frontier_capacity over all ranks. When the ranks hold more,
 * the globally lowest keys are evicted (cs_comm_kth_largest), as one frontier would evict them.
 * local: this rank's code of the tick's steps since their last agreement, agreed together with
 * sums[0..ns) (the tick's counts, summed over ranks in place) in one fused allreduce. sums[1]
 * must be this rank's frontier size; on return it is the global one after the eviction.
 */
cs_err sim_evict_global(sim *s, cs_err local, int64_t *sums, int ns)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t C = s->cfg->crawl.frontier_capacity;
    const int64_t n = cs_frontier_size(s->fr);
    CS_ASSERT(ns >= 2 && sums[1] == n);
    CS_TRY(ctx, cs_allreduce_fused(ctx, local, sums, ns, NULL, 0, NULL, 0));
    if (sums[1] <= C)
        return CS_OK;
    sums[1] = C; /* the keys are unique: the keys >= the cut are exactly C */
    local = cs_grow(ctx, &s->r.ev_keys, &s->r.ev_keys_cap, (size_t)n + 1, sizeof *s->r.ev_keys,
                    "eviction");
    if (local == CS_OK) {
        cs_frontier_view v;
        cs_frontier_view_get(s->fr, &v);
        for (int64_t i = 0; i < n; i++)
            s->r.ev_keys[i] = cs_frontier_key(v.q[i], v.id[i]);
    }
    uint64_t cut = 0;
    CS_TRY(ctx, cs_comm_kth_largest(ctx, local, s->r.ev_keys, n, C, &cut));
    s->m.c[C_EVICTIONS] += cs_frontier_evict_below_keys(s->fr, s->r.ev_keys, cut);
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

/* Collective. The exchange of the outboxes and the insertion of what arrived. local: this rank's
 * code of the tick's steps since their last agreement; returned (not agreed) with the
 * insertion's, which is made only after steps that succeeded (the exchange's own errors are
 * agreed). */
cs_err sim_exchange(sim *s, cs_err local)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    cs_exchange_stats st = {0};
    size_t len = 0;
    double t0 = cs_now();
    CS_TRY(ctx, cs_comm_exchange(ctx, &s->r.out, &s->r.recv, &s->r.recv_cap, &len, &st));
    s->m.t[PH_WAIT] += st.wait;
    s->m.t[PH_EXCHANGE] += cs_now() - t0 - st.wait;
    s->m.c[C_BYTES] += st.bytes_sent;
    s->m.c[C_MESSAGES] += st.messages_sent;
    double t1 = cs_now();
    if (local != CS_OK)
        return local;
    /* the strict setting merges this rank's own records with the received ones */
    cs_simcost_charge(CS_COST_INSERT,
                      (double)(len / sizeof(cs_link_msg)) + (s->strict ? (double)s->r.n_own : 0.0));
    if (s->strict)
        rc = insert_merged(s, len);
    else
        rc = sim_insert_links(s, NULL, (const cs_link_msg *)s->r.recv, NULL,
                              (int64_t)(len / sizeof(cs_link_msg)));
    s->m.t[PH_INSERT] += cs_now() - t1;
fail:
    return rc;
}

/* Picks from which sim_take_selected reads the entries on the rank's threads. */
#define TAKE_PARALLEL 128

/* Moves the selected frontier entries into s->f.fx, then removes them from the frontier
 * (cs_frontier_remove_sorted: as if in decreasing order of slot, so that the swap-with-last
 * removal never moves an entry still to be removed). */
cs_err sim_take_selected(sim *s, int64_t nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx, &s->f.fx_cap, (size_t)nsel + 1, sizeof *s->f.fx, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx_codes, &s->f.fx_codes_cap, (size_t)(nsel + 1) * (size_t)s->G,
                        1, "fetches"));
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    const sim *cs = s;
    /* one fetch per pick; the visited bits of distinct pages may share a word: atomic or */
#pragma omp parallel for if (nsel >= TAKE_PARALLEL) default(none) shared(cs, v, nsel)              \
    schedule(static)
    for (int64_t i = 0; i < nsel; i++) {
        if (i + 8 < nsel) { /* the entries are at random places */
            const int64_t e8 = cs->sl.sel[i + 8];
            __builtin_prefetch(&v.id[e8]);
            __builtin_prefetch(&v.lk[e8]);
            __builtin_prefetch(v.codes + e8 * v.stride);
        }
        int64_t e = cs->sl.sel[i];
        fetch *f = &cs->f.fx[i];
        f->page = v.id[e];
        f->li = cs_graph_local_index(cs->g, f->page);
        f->pick = i;
        f->par = v.lk[e].par;
        f->has_x = 1;
        memcpy(cs->f.fx_codes + i * cs->G, v.codes + e * v.stride, (size_t)cs->G);
        const int64_t bit = visited_bit_local(cs, f->li, f->page);
        __atomic_fetch_or(&cs->vis.bits[bit >> 6], (uint64_t)1 << (bit & 63), __ATOMIC_RELAXED);
    }
    /* remove by decreasing slot */
    CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)nsel + 1,
                        sizeof *s->sl.sort_tmp, "fetches"));
    cs_sort_u64((uint64_t *)s->sl.sel, nsel, s->sl.sort_tmp); /* slots are >= 0 */
    CS_TRY(ctx, cs_frontier_remove_sorted(ctx, s->fr, s->sl.sel, nsel));
fail:
    return rc;
}

/* Local. rep: keeps in s->f.fx[0..*n) the fetches of this rank's own pages (every rank selected
 * every pick; each is fetched by its owner), in their order, with their codes. */
void sim_keep_own_fetches(sim *s, int64_t *n)
{
    const size_t G = (size_t)s->G;
    int64_t m = 0;
    for (int64_t i = 0; i < *n; i++) {
        if (s->f.fx[i].li < 0)
            continue;
        if (m != i) {
            s->f.fx[m] = s->f.fx[i];
            memcpy(s->f.fx_codes + (size_t)m * G, s->f.fx_codes + (size_t)i * G, G);
        }
        m++;
    }
    *n = m;
}

/* A fetch as rep_share sends it: its page, pick, relevance and out-link count; its records
 * follow the rank's fetches: n_out link records, then their n_out TRES vectors (padded to 8
 * bytes, so the next records stay aligned). */
typedef struct rep_fetch {
    int64_t page, pick, relevant, n_out;
    int64_t order; /* its place in the tick: the pick's index, or a seed's index in s->seeds */
} rep_fetch;

static size_t rep_block(int64_t n_out, int TD)
{
    const size_t v = ((size_t)n_out * (size_t)TD * sizeof(float) + 7) / 8 * 8;
    return (size_t)n_out * sizeof(cs_link_msg) + v;
}

/*
 * Collective. rep: every rank learns every rank's fetches of this tick (s->f.fx[0..n) here, with
 * their link records s->r.msgs and TRES vectors s->f.tx from fetch_pages) and applies them to its
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
    cs_err rc = local;
    const int P = ctx->size, TD = s->tres_d;
    size_t mine = (size_t)n * sizeof(rep_fetch);
    for (int64_t i = 0; rc == CS_OK && i < n; i++)
        mine += rep_block(s->f.nout[i], TD);
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->r.rep_buf, &s->r.rep_buf_cap, mine + 8, 1, "replicated fetches");
    CS_TRY_AGREE(ctx, rc);
    rep_fetch *hf = (rep_fetch *)s->r.rep_buf;
    char *rr = s->r.rep_buf + (size_t)n * sizeof(rep_fetch);
    for (int64_t i = 0; i < n; i++) {
        hf[i].page = s->f.fx[i].page;
        hf[i].pick = s->f.fx[i].has_x ? s->f.fx[i].pick : -1;
        hf[i].relevant = s->f.pst[i].relevant;
        hf[i].n_out = s->f.nout[i];
        hf[i].order = hf[i].pick;
        for (int64_t k = 0; hf[i].pick < 0 && k < s->n_seeds; k++)
            if (s->seeds[k] == hf[i].page)
                hf[i].order = k;
        memcpy(rr, &s->r.msgs[s->f.base[i]], (size_t)s->f.nout[i] * sizeof(cs_link_msg));
        if (TD > 0)
            memcpy(rr + (size_t)s->f.nout[i] * sizeof(cs_link_msg), s->f.tx + s->f.base[i] * TD,
                   (size_t)(s->f.nout[i] * TD) * sizeof(float));
        rr += rep_block(s->f.nout[i], TD);
    }
    /* sizes: fetches and bytes of every rank */
    int *fcnt = s->r.rep_counts, *bcnt = s->r.rep_counts + P, *bdsp = s->r.rep_displs;
    int my[2] = {n <= INT32_MAX ? (int)n : -1, mine <= INT32_MAX ? (int)mine : -1};
    cs_allgather(ctx, my, 2, s->r.rep_displs + P, CS_T_INT);
    int64_t tot = 0, nf = 0;
    for (int r = 0; r < P; r++) {
        fcnt[r] = s->r.rep_displs[P + 2 * r];
        bcnt[r] = s->r.rep_displs[P + 2 * r + 1];
        if (fcnt[r] < 0 || bcnt[r] < 0 || tot + bcnt[r] > INT32_MAX) {
            rc = cs_fail(ctx, CS_ERR_LIMIT, "more than 2 GiB of fetches in one tick");
            break;
        }
        bdsp[r] = (int)tot;
        tot += bcnt[r];
        nf += fcnt[r];
    }
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->r.rep_all, &s->r.rep_all_cap, (size_t)tot + 8, 1,
                     "replicated fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->f.perm, &s->f.perm_cap, 3 * (size_t)nf + 1, sizeof *s->f.perm,
                     "fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)nf + 1,
                     sizeof *s->sl.sort_tmp, "fetches");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->f.obs, &s->f.obs_cap, (size_t)nf + 1, sizeof *s->f.obs, "fetches");
    CS_TRY_AGREE(ctx, rc);
    double t0 = cs_now();
    cs_allgatherv(ctx, s->r.rep_buf, my[1], s->r.rep_all, bcnt, bdsp, CS_T_BYTE);
    s->m.t[PH_EXCHANGE] += cs_now() - t0;
    double t1 = cs_now();
    /* every fetch: where its header and its records are (byte offsets), then the page order */
    uint64_t *key = (uint64_t *)s->f.perm;
    int64_t *fo = s->f.perm + nf, *ro = s->f.perm + 2 * nf, j = 0, nrec = 0;
    for (int r = 0; r < P; r++) {
        const int64_t b = bdsp[r];
        int64_t at = b + (int64_t)fcnt[r] * (int64_t)sizeof(rep_fetch);
        for (int64_t k = 0; k < fcnt[r]; k++, j++) {
            rep_fetch f;
            memcpy(&f, s->r.rep_all + b + k * (int64_t)sizeof(rep_fetch), sizeof f);
            fo[j] = b + k * (int64_t)sizeof(rep_fetch);
            ro[j] = at;
            at += (int64_t)rep_block(f.n_out, TD);
            nrec += f.n_out;
            CS_ASSERT(f.order >= 0 && f.order < ((int64_t)1 << 40) && nf < ((int64_t)1 << 24));
            key[j] = (uint64_t)f.order << 24 | (uint64_t)j;
        }
    }
    cs_sort_u64(key, nf, s->sl.sort_tmp);
    CS_TRY_AGREE(
        ctx, cs_grow(ctx, &s->r.ord, &s->r.ord_cap, (size_t)nrec + 1, sizeof *s->r.ord, "links"));
    int64_t m = 0, o = 0;
    for (int64_t i = 0; i < nf; i++) {
        const int64_t k = (int64_t)(key[i] & 0xffffff);
        const rep_fetch *f = (const rep_fetch *)(s->r.rep_all + fo[k]);
        const cs_link_msg *recs = (const cs_link_msg *)(s->r.rep_all + ro[k]);
        const int64_t h = host_any(s, f->page);
        s->h.host_fetched[hslot(s, h)]++;
        s->h.host_rel[hslot(s, h)] += f->relevant != 0;
        for (int64_t l = 0; l < f->n_out; l++)
            s->r.ord[o++] = &recs[l];
        if (f->pick < 0)
            continue; /* a seed was not chosen by an action */
        cs_discover_fetch *ob = &s->f.obs[m++];
        memset(ob, 0, sizeof *ob);
        ob->pick = f->pick;
        ob->page = f->page;
        ob->relevant = (int)f->relevant;
        ob->reward = f->relevant ? 1.0 : 0.0;
        ob->n_out = f->n_out;
        ob->out_x = TD > 0 ? (const float *)(recs + f->n_out) : NULL;
    }
    if (s->ops->observe != NULL)
        s->ops->observe(s->pol, s->f.obs, m, tick);
    double t2 = cs_now();
    s->m.t[PH_LEARN] += t2 - t1;
    rc = sim_insert_links(s, s->r.ord, NULL, NULL, o);
    cs_simcost_charge(CS_COST_INSERT, (double)o);
    s->m.t[PH_INSERT] += cs_now() - t2;
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

static int page_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Local. Strict setting: s->f.fx[0..n) and their codes in page id order, so that the link records
 * come out in (source page, link) order on any rank count (insert_merged). */
cs_err sim_sort_fetches(sim *s, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const size_t G = (size_t)s->G;
    if (n < 2)
        return CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->f.perm, &s->f.perm_cap, 2 * (size_t)n + 1, sizeof *s->f.perm,
                        "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx_tmp, &s->f.fx_tmp_cap, (size_t)n + 1, sizeof *s->f.fx_tmp,
                        "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->f.codes_tmp, &s->f.codes_tmp_cap, (size_t)n * G + 1, 1, "fetches"));
    int64_t *idx = s->f.perm;
    if (n < ((int64_t)1 << 24) && cs_graph_n_pages(s->g) < ((int64_t)1 << 40)) {
        /* (page, index) packed into one key: the radix sort */
        uint64_t *k = (uint64_t *)s->f.perm;
        for (int64_t i = 0; i < n; i++)
            k[i] = (uint64_t)s->f.fx[i].page << 24 | (uint64_t)i;
        CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)n + 1,
                            sizeof *s->sl.sort_tmp, "fetches"));
        cs_sort_u64(k, n, s->sl.sort_tmp);
        for (int64_t i = 0; i < n; i++)
            idx[i] = (int64_t)(k[i] & 0xffffff);
    } else {
        for (int64_t i = 0; i < n; i++) {
            idx[2 * i] = s->f.fx[i].page;
            idx[2 * i + 1] = i;
        }
        qsort(idx, (size_t)n, 2 * sizeof *idx, page_cmp);
        for (int64_t i = 0; i < n; i++)
            idx[i] = idx[2 * i + 1];
    }
    memcpy(s->f.fx_tmp, s->f.fx, (size_t)n * sizeof *s->f.fx);
    memcpy(s->f.codes_tmp, s->f.fx_codes, (size_t)n * G);
    fetch *fx = s->f.fx;
    const fetch *ft = s->f.fx_tmp;
    uint8_t *codes = s->f.fx_codes;
    const uint8_t *ct = s->f.codes_tmp;
#pragma omp parallel for if (n >= TAKE_PARALLEL) default(none)                                     \
    shared(fx, ft, codes, ct, idx, n, G) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        fx[i] = ft[idx[i]];
        memcpy(codes + (size_t)i * G, ct + (size_t)idx[i] * G, G);
    }
fail:
    return rc;
}

/* Collective. Sets s->f.fx to this rank's seed pages (task start). */
cs_err sim_take_seeds(sim *s, int64_t *n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    *n = 0;
    CS_TRY(ctx,
           cs_grow(ctx, &s->f.fx, &s->f.fx_cap, (size_t)s->n_seeds + 1, sizeof *s->f.fx, "seeds"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx_codes, &s->f.fx_codes_cap,
                        (size_t)(s->n_seeds + 1) * (size_t)s->G, 1, "seeds"));
    for (int64_t i = 0; i < s->n_seeds; i++) {
        sim_visited_set(s, s->seeds[i]); /* every rank knows every seed, and marks its own bits */
        int64_t li = cs_graph_local_index(s->g, s->seeds[i]);
        if (li < 0 && s->cap_global)
            s->h.host_fetched[hslot(s, host_any(s, s->seeds[i]))]++;
        if (li < 0)
            continue;
        fetch *f = &s->f.fx[(*n)++];
        memset(f, 0, sizeof *f);
        f->pick = -1;
        f->page = s->seeds[i];
        f->li = li;
    }
fail:
    return cs_agree(ctx, rc);
}
