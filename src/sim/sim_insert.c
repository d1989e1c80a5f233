/*
 * sim: the insert phase: the link records that reached their owner go into its frontier (the
 * visited and MAX-capped ones dropped, new pages added, each entry's records merged and its
 * value computed), in an order that does not depend on the thread count.
 */
#include "rng/idset.h"
#include "sim/sim_engine.h"

#include <omp.h>

/* Local. One record's update of its frontier entry e (first: e was created for it): the anchor
 * evidence, the state part, the parents and the action codes (Sec. 3.1). The entry stores the
 * best anchor's relevance; its categories are in the action codes (cs_feat_action_keep_anchor). */
static inline void merge_record(const sim *s, cs_frontier_view *v, int64_t e, int first,
                                const cs_link_msg *m)
{
    const int GS = s->G - s->GA;
    cs_frontier_link *lk = &v->lk[e];
    uint8_t *codes = v->codes + e * v->stride;
    const int anchor = first || m->anchor_rl > lk->anchor_rl;
    /* the state part comes from the parent with the largest w_rl (Sec. 3.1's max) */
    if (first || m->parent_wrl > lk->par.best_wrl)
        memcpy(codes, m->state, (size_t)GS);
    cs_feat_parents_add(&lk->par, m);
    if (anchor) {
        lk->anchor_rl = m->anchor_rl;
        cs_feat_action(&s->L, m->anchor_rl, m->anchor_cat, &lk->par, codes + GS);
    } else {
        cs_feat_action_keep_anchor(&s->L, lk->anchor_rl, &lk->par, codes + GS);
    }
}

/* What the first pass of sim_insert_links found for a record (else its entry, | INS_FIRST when
 * the record created it). */
enum { INS_NEW = -1, INS_VISITED = -2, INS_CAPPED = -3 };
#define INS_FIRST CS_FRONTIER_ADDED
/* Entries are shared among the threads of the third pass in blocks of INS_BLOCK: each entry's
 * records are applied by one thread, in record order, so no bit depends on the thread count. */
#define INS_BLOCK 64
/* The lookups' hints: a record's visited bit and hash slot this many records ahead, the entry
 * its slot names half as many (two misses to memory one after the other). */
#define INS_AHEAD 16
/* Fewer records than this are inserted without waking the threads. */
#define INS_PARALLEL 128
/* Records per block of the lookups and of the list of new pages (fixed: the work of a block does
 * not depend on the threads; the list is in record order for any blocks). */
#define INS_LIST_BLOCK 256

/* The records of one insertion: *ptrs[i] for i in [0, n) when ptrs is not NULL, else
 * recs[idx[i]], or recs[i] when idx is NULL too. */
typedef struct ins_recs {
    const cs_link_msg *const *ptrs;
    const cs_link_msg *recs;
    const int64_t *idx;
    int64_t n;
} ins_recs;

static inline const cs_link_msg *rec_at(const ins_recs *r, int64_t i)
{
    return r->ptrs != NULL ? r->ptrs[i] : r->idx != NULL ? &r->recs[r->idx[i]] : &r->recs[i];
}

/* Local. A selecting policy's new frontier samples (sim_insert_links between its passes 2 and
 * 3: ent holds every record's entry, or why none): the kept records' pages and TRES vectors in
 * parallel (the host counts do not change during insertion), then ops->link in record order.
 * *kidx: per record its place among the kept ones; *kval: per kept record its value. */
static cs_err link_samples(sim *s, const ins_recs *rr, const int64_t **kidx, const float **kval)
{
    const int64_t n = rr->n;
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int TD = s->tres_d, HF = s->host_features;
    const int64_t *ent = s->in.ent;
    CS_TRY(ctx, cs_grow(ctx, &s->in.kidx, &s->in.kidx_cap, 2 * (size_t)n + 1, sizeof *s->in.kidx,
                        "links"));
    int64_t *ki = s->in.kidx, *pg = ki + n, nk = 0;
    for (int64_t i = 0; i < n; i++) {
        ki[i] = nk;
        nk += ent[i] >= 0;
    }
    CS_TRY(ctx, cs_grow(ctx, &s->in.kx, &s->in.kx_cap, (size_t)nk * (size_t)(TD + 1) + 1,
                        sizeof *s->in.kx, "links"));
    float *x = s->in.kx, *val = x + nk * TD;
    const sim *cs = s;
    const int32_t *hf = s->h.host_fetched, *hr = s->h.host_rel;
#pragma omp parallel for if (n >= INS_PARALLEL) default(none)                                      \
    shared(cs, rr, n, ent, ki, pg, x, hf, hr, TD, HF) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (ent[i] < 0)
            continue;
        const cs_link_msg *m = rec_at(rr, i);
        const int64_t h = host_of_page(cs, m->dst);
        pg[ki[i]] = m->dst;
        cs_tres_x(HF, m, hf[hslot(cs, h)], hr[hslot(cs, h)], x + ki[i] * TD);
    }
    CS_TRY(ctx, s->ops->link(s->pol, ctx, pg, x, nk, val));
    *kidx = ki;
    *kval = val;
fail:
    return rc;
}

/* Local. Pass 1: in parallel over fixed blocks of records, whether each is dropped (its page
 * visited, or its host at the MAX cap) or the frontier entry of its page, if any (read-only
 * lookups, the cache misses of the phase); each block counts its records of pages not in the
 * frontier into bcnt[b]. Returns the records dropped as visited. */
static int64_t insert_lookup(const sim *cs, const ins_recs *rr, int64_t *ent, int64_t *bcnt,
                             int64_t nbk, int nthr)
{
    const int check_cap = cs->h.cap_now > 0;
    const int64_t n = rr->n;
    int64_t dropped = 0;
#pragma omp parallel for if (n >= INS_PARALLEL) num_threads(nthr) default(none)                     \
    shared(cs, rr, n, ent, check_cap, bcnt, nbk) reduction(+ : dropped) schedule(static)
    for (int64_t b = 0; b < nbk; b++) {
        const int64_t e = (b + 1) * INS_LIST_BLOCK < n ? (b + 1) * INS_LIST_BLOCK : n;
        int64_t k = 0;
        for (int64_t i = b * INS_LIST_BLOCK; i < e; i++) {
            if (i + INS_AHEAD < n) {
                const int64_t d = rec_at(rr, i + INS_AHEAD)->dst;
                sim_visited_prefetch(cs, d);
                cs_frontier_prefetch(cs->fr, d, 1);
            }
            if (i + INS_AHEAD / 2 < n)
                cs_frontier_prefetch(cs->fr, rec_at(rr, i + INS_AHEAD / 2)->dst, 2);
            const cs_link_msg *m = rec_at(rr, i);
            if (sim_visited_get(cs, m->dst)) {
                dropped++;
                ent[i] = INS_VISITED;
            } else if (check_cap && capped(cs, host_of_page(cs, m->dst), 0)) {
                ent[i] = INS_CAPPED; /* MAX reached: the link can never be fetched in this task */
            } else {
                const int64_t f = cs_frontier_find(cs->fr, m->dst);
                ent[i] = f >= 0 ? f : INS_NEW;
                k += f < 0;
            }
        }
        bcnt[b] = k;
    }
    return dropped;
}

/* Local. Pass 2: the pages not in the frontier get their entries in record order (a page may
 * come twice: the second finds the first's; cs_frontier_add_new, in parallel: entry indexes are
 * those of one serial pass): their list from the blocks' counts (prefix sums in block order,
 * then each block writes its part). */
static cs_err insert_new(sim *s, const ins_recs *rr, int64_t *ent, int64_t *bcnt, int64_t nbk)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t n = rr->n;
    int64_t nn = 0;
    for (int64_t b = 0; b < nbk; b++) {
        const int64_t k = bcnt[b];
        bcnt[b] = nn;
        nn += k;
    }
    if (nn == 0)
        return CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->in.fresh, &s->in.fresh_cap, 3 * (size_t)nn + 1,
                        sizeof *s->in.fresh, "links"));
    int64_t *ni = s->in.fresh, *nid = ni + nn, *ne = ni + 2 * nn;
#pragma omp parallel for if (nbk > 1 && nn >= INS_PARALLEL) default(none)                          \
    shared(rr, ent, bcnt, ni, nid, n, nbk) schedule(static)
    for (int64_t b = 0; b < nbk; b++) {
        const int64_t e = (b + 1) * INS_LIST_BLOCK < n ? (b + 1) * INS_LIST_BLOCK : n;
        int64_t j = bcnt[b];
        for (int64_t i = b * INS_LIST_BLOCK; i < e; i++) {
            if (ent[i] == INS_NEW) {
                ni[j] = i;
                nid[j++] = rec_at(rr, i)->dst;
            }
        }
    }
    CS_TRY(ctx, cs_frontier_add_new(ctx, s->fr, nid, nn, ne));
    for (int64_t j = 0; j < nn; j++)
        ent[ni[j]] = ne[j]; /* (INS_FIRST is cs_frontier_add_new's flag) */
fail:
    return rc;
}

/* Local. Pass 3 on one thread of the team: it sorts its share of the records by the thread
 * owning their entry's block (lists (chunk, owner), record order kept), then, after the team's
 * barrier, works through its own lists in chunk order: an entry's records in record order, and
 * no thread reads all the records. Returns its Q evaluations. */
static int64_t insert_merge_thread(const sim *cs, const ins_recs *rr, const int64_t *ent,
                                   int64_t *list, cs_frontier_view w, const int64_t *kidx,
                                   const float *kval)
{
    const int64_t n = rr->n, T = omp_get_num_threads(), me = omp_get_thread_num();
    const int64_t cap = n / T + 1, *cnt = list + T * T * cap;
    const int link = kidx != NULL;
    int64_t *lens = list + T * T * cap + me * T, qevals = 0;
    for (int64_t o = 0; o < T; o++)
        lens[o] = 0;
    for (int64_t i = n * me / T; i < n * (me + 1) / T; i++) {
        if (ent[i] < 0)
            continue;
        const int64_t o = ((ent[i] & (INS_FIRST - 1)) / INS_BLOCK) % T;
        list[(me * T + o) * cap + lens[o]++] = i;
    }
#pragma omp barrier
    for (int64_t c = 0; c < T; c++) {
        const int64_t *my = list + (c * T + me) * cap, k = cnt[c * T + me];
        for (int64_t j = 0; j < k; j++) {
            /* 16 records and 8 entries ahead: the records were written by whichever thread
             * fetched their page, an entry's lines by whichever thread last wrote it; a line in
             * the other CPU's cache costs a round trip between caches, which on some machines
             * is 4 times a miss to memory. The entry's lines are fetched for writing (PREFETCHW
             * where the build has it: owned, not shared, so the stores need no second trip) */
            if (j + 16 < k)
                __builtin_prefetch(rec_at(rr, my[j + 16]));
            if (j + 8 < k) {
                const int64_t e8 = ent[my[j + 8]] & (INS_FIRST - 1);
                __builtin_prefetch(&w.lk[e8], 1);
                __builtin_prefetch((const char *)&w.lk[e8 + 1] - 1, 1);
                __builtin_prefetch(w.codes + e8 * w.stride, 1);
                __builtin_prefetch(&w.q[e8], 1);
            }
            const int64_t e = ent[my[j]] & (INS_FIRST - 1);
            merge_record(cs, &w, e, (ent[my[j]] & INS_FIRST) != 0, rec_at(rr, my[j]));
            if (link) {
                const float q = kval[kidx[my[j]]];
                if (q > w.q[e])
                    w.q[e] = q;
            } else {
                cs->ops->value(cs->pol, &w, e, 1);
                qevals++;
            }
        }
    }
    return qevals;
}

/* Local. An indexed frontier (cs_frontier_index): per record with an entry, the entry's key
 * before the merge, into s->in.oldk (new entries: their zeroed value's, absent from the index). */
static cs_err keys_before(sim *s, const int64_t *ent, int64_t n)
{
    const cs_err rc =
        cs_grow(s->ctx, &s->in.oldk, &s->in.oldk_cap, (size_t)n + 1, sizeof *s->in.oldk, "links");
    if (rc != CS_OK)
        return rc;
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    uint64_t *oldk = s->in.oldk;
#pragma omp parallel for if (n >= INS_PARALLEL) default(none) shared(v, ent, oldk, n)              \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t e = ent[i] & (INS_FIRST - 1);
        oldk[i] = ent[i] >= 0 ? cs_frontier_key(v.q[e], v.id[e]) : 0;
    }
    return CS_OK;
}

/* Local. The index follows the merge: a new entry's key joins it, an entry whose key changed
 * moves, once: an entry's later records (a popular page has several a tick) find it moved
 * already (each would cost the index two descents for nothing, a removal of a key it no longer
 * holds and an insertion of one it holds). The merged entries' keys are read in parallel (misses
 * at random places, prefetched); the moves go to the index serially (O(log n) each), in record
 * order, in groups whose descents are prefetched together. */
static cs_err keys_after(sim *s, const int64_t *ent, int64_t n)
{
    const size_t slots = idset_slots(n);
    cs_err rc = cs_grow(s->ctx, &s->in.moved, &s->in.moved_cap, slots + (size_t)n,
                        sizeof *s->in.moved, "links");
    if (rc == CS_OK)
        rc = cs_grow(s->ctx, &s->in.newk, &s->in.newk_cap, (size_t)n + 1, sizeof *s->in.newk,
                     "links");
    if (rc != CS_OK)
        return rc;
    idset moved = {s->in.moved, 0}; /* the set, then the moved entries */
    int64_t *me = s->in.moved + slots;
    idset_reset(&moved, n);
    uint64_t *oldk = s->in.oldk, *newk = s->in.newk; /* (oldk compacted in place: to m <= i) */
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
#pragma omp parallel for if (n >= INS_PARALLEL) default(none) shared(v, ent, newk, n)              \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
        if (i + 8 < n && ent[i + 8] >= 0) {
            const int64_t e8 = ent[i + 8] & (INS_FIRST - 1);
            __builtin_prefetch(&v.q[e8]);
            __builtin_prefetch(&v.id[e8]);
        }
        const int64_t e = ent[i] & (INS_FIRST - 1);
        newk[i] = ent[i] >= 0 ? cs_frontier_key(v.q[e], v.id[e]) : 0;
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (ent[i] < 0)
            continue;
        const int64_t e = ent[i] & (INS_FIRST - 1);
        if (((ent[i] & INS_FIRST) || newk[i] != oldk[i]) && idset_insert(&moved, e)) {
            me[m] = e;
            oldk[m++] = oldk[i];
        }
    }
    return cs_frontier_rekey_many(s->ctx, s->fr, me, oldk, m);
}

/* Inserts link records into the frontier (the owner's side of the exchange): *ptrs[i] for i in
 * [0, n) when ptrs is not NULL, else recs[idx[i]], or recs[0..n) when idx is NULL too.
 *
 * In three passes: (1) the records' lookups (insert_lookup); (2) the new pages' entries in
 * record order (insert_new); (3) in parallel over the entries (by blocks), each entry's records
 * merged in record order and its value computed (value policies: ops->value, a pure function of
 * the entry; insert_merge_thread). Selecting policies (ops->link) get the kept records' samples
 * between (2) and (3), their TRES vectors computed in parallel, in record order (the policy's
 * state changes with every sample); (3) keeps the largest of each entry's samples' values. The
 * result is the serial loop's, bit for bit, for any thread count. */
cs_err sim_insert_links(sim *s, const cs_link_msg *const *ptrs, const cs_link_msg *recs,
                        const int64_t *idx, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const ins_recs rr = {ptrs, recs, idx, n};
    const int nthr = omp_get_max_threads();
    CS_TRY(ctx,
           cs_grow(ctx, &s->in.ent, &s->in.ent_cap, (size_t)n + 1, sizeof *s->in.ent, "links"));
    /* the third pass's lists: T x T of n / T + 1 records for a team of T <= nthr threads, and
     * their lengths: at most nthr (n + 2 nthr); the first pass's block counts live there */
    CS_TRY(ctx,
           cs_grow(ctx, &s->in.list, &s->in.list_cap,
                   (size_t)nthr * ((size_t)n + 2 * (size_t)nthr) + 1, sizeof *s->in.list, "links"));
    int64_t *ent = s->in.ent, *list = s->in.list;
    const int64_t nbk = (n + INS_LIST_BLOCK - 1) / INS_LIST_BLOCK;
    const int64_t dropped = insert_lookup(s, &rr, ent, list, nbk, nthr);
    s->m.c[C_DROPPED] += s->tally ? dropped : 0;
    CS_TRY(ctx, insert_new(s, &rr, ent, list, nbk));
    /* selecting policies: the kept records' samples, in record order (kidx: a record's place
     * among them) */
    const int64_t *kidx = NULL;
    const float *kval = NULL;
    if (s->ops->link != NULL)
        CS_TRY(ctx, link_samples(s, &rr, &kidx, &kval));
    const int indexed = cs_frontier_index(s->fr) != NULL;
    if (indexed)
        CS_TRY(ctx, keys_before(s, ent, n));
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    int64_t qevals = 0;
    const sim *cs = s;
    const ins_recs *prr = &rr;
#pragma omp parallel if (n >= INS_PARALLEL) num_threads(nthr) default(none)                         \
    shared(cs, prr, ent, list, v, kidx, kval) reduction(+ : qevals)
    qevals += insert_merge_thread(cs, prr, ent, list, v, kidx, kval);
    s->m.c[C_QEVALS] += s->tally ? qevals : 0;
    if (indexed)
        CS_TRY(ctx, keys_after(s, ent, n));
fail:
    return rc;
}

/* Links to this rank's own pages go into the frontier at once. */
cs_err sim_insert_own(sim *s)
{
    const int me = s->ctx->rank;
    double t0 = cs_now();
    CS_ASSERT(s->x.out.len[me] == 0);
    cs_err rc = sim_insert_links(s, NULL, s->f.msgs, s->r.own, s->r.n_own);
    cs_simcost_charge(CS_COST_INSERT, (double)s->r.n_own);
    s->r.n_own = 0;
    s->m.t[PH_INSERT] += cs_now() - t0;
    return rc;
}

/*
 * Local. Strict setting: inserts this tick's records, this rank's own (s->r.own, deferred) and
 * those received (s->x.recv, len bytes), in the order of their source pages, as one rank would.
 * The fetches were sorted by page id (sort_fetches), so the own records and each sender's
 * records are runs sorted by source (a page's out-links in graph order); the received buffer
 * is cut into runs where the source decreases, and the runs are merged with a binary heap of
 * their heads (sources are disjoint across runs: a page is fetched by its owner only).
 */
cs_err sim_insert_merged(sim *s, size_t len)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_link_msg *rv = (const cs_link_msg *)s->x.recv;
    const int64_t nr = (int64_t)(len / sizeof(cs_link_msg)), n = s->r.n_own + nr;
    CS_TRY(ctx,
           cs_grow(ctx, &s->in.ord, &s->in.ord_cap, 2 * (size_t)n + 1, sizeof *s->in.ord, "links"));
    CS_TRY(ctx, cs_grow(ctx, &s->in.runs, &s->in.runs_cap, 3 * (size_t)n + 8, sizeof *s->in.runs,
                        "links"));
    const cs_link_msg **in = s->in.ord + n, **out = s->in.ord;
    for (int64_t j = 0; j < s->r.n_own; j++)
        in[j] = &s->f.msgs[s->r.own[j]];
    for (int64_t j = 0; j < nr; j++)
        in[s->r.n_own + j] = &rv[j];
    /* runs: [b, e) ranges of in[]; the own records are one run */
    int64_t *rb = s->in.runs, nrun = 0;
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

void sim_insert_fini(sim_insert_phase *p)
{
    free(p->ord);
    free(p->runs);
    free(p->ent);
    free(p->list);
    free(p->fresh);
    free(p->kidx);
    free(p->kx);
    free(p->oldk);
    free(p->newk);
    free(p->moved);
}
