/*
 * sim: the visited set (docs/developer/memory.md): which pages were fetched in the task.
 *
 * A fetch skips its out-links to visited pages at the source (sim_fetch_pages): SARSA's next
 * action is chosen among the links it keeps, so the source must know the visited state of
 * every page its pages link to, on any rank, exactly as one rank would. Two layouts
 * (crawl.visited), which give the same crawl; the evidence rows (features.h) follow the same:
 *
 *   replicated: one bit per page id of the world on every rank; every rank learns every fetch
 *     (share_all: an allgather of the tick's fetched ids; under rep, rep_share). Always with
 *     one rank and under rep (the strict setting of a selecting policy).
 *   owned: one bit per local page, then one per ghost: a page of another rank that a local
 *     page links to. The owner of a page keeps the ranks that hold it as a ghost (its
 *     subscribers, found once at set-up) and sends them a note when it is fetched (one sparse
 *     exchange per tick). Memory is O(local pages + local links): 4 bytes per local link (its
 *     target's bit), about 30 per ghost; nothing of the world's size. crawl.visited = auto takes
 *     it when it is the smaller on the largest rank (at large rank counts).
 */
#include "sim/sim_engine.h"

/* ---- an open-addressing set of page ids (set-up only) -------------------------------------- */

typedef struct idset {
    int64_t *key;   /* -1: empty */
    int64_t n, cap; /* cap: a power of two */
} idset;

static cs_err idset_grow(cs_ctx *ctx, idset *h, int64_t cap)
{
    int64_t *old = h->key, oc = h->cap;
    cs_err rc = cs_alloc(ctx, &h->key, (size_t)cap, sizeof *h->key, "ghost pages");
    if (rc != CS_OK) {
        h->key = old;
        return rc;
    }
    memset(h->key, 0xff, (size_t)cap * sizeof *h->key);
    h->cap = cap;
    for (int64_t i = 0; i < oc; i++) {
        if (old[i] < 0)
            continue;
        uint64_t j = cs_mix64((uint64_t)old[i]) & (uint64_t)(cap - 1);
        while (h->key[j] >= 0)
            j = (j + 1) & (uint64_t)(cap - 1);
        h->key[j] = old[i];
    }
    free(old);
    return CS_OK;
}

static cs_err idset_add(cs_ctx *ctx, idset *h, int64_t id)
{
    if (2 * (h->n + 1) > h->cap) {
        cs_err rc = idset_grow(ctx, h, h->cap ? 2 * h->cap : 1024);
        if (rc != CS_OK)
            return rc;
    }
    uint64_t j = cs_mix64((uint64_t)id) & (uint64_t)(h->cap - 1);
    while (h->key[j] >= 0) {
        if (h->key[j] == id)
            return CS_OK;
        j = (j + 1) & (uint64_t)(h->cap - 1);
    }
    h->key[j] = id;
    h->n++;
    return CS_OK;
}

/* ---- lookups -------------------------------------------------------------------------------- */

/* The ghost index of page id, or -1. */
static int64_t ghost_index(const sim_visited *v, int64_t id)
{
    const int64_t i = cs_lower_bound_i64(v->ghost, v->n_ghost, id);
    return i < v->n_ghost && v->ghost[i] == id ? i : -1;
}

/* The bit of page id: its local index, n_local + its ghost index, the id itself (replicated),
 * or -1 (a page of another rank that no local page links to: never asked). */
static int64_t bit_of(const sim *s, int64_t id)
{
    const sim_visited *v = &s->vis;
    if (v->slot == NULL)
        return id;
    const int64_t li = cs_graph_local_index(s->w.g, id);
    if (li >= 0)
        return li;
    const int64_t gi = ghost_index(v, id);
    return gi < 0 ? -1 : v->n_local + gi;
}

void sim_visited_prefetch(const sim *s, int64_t page)
{
    if (s->vis.slot == NULL) /* (by local index: the lookup itself is the miss, no hint) */
        __builtin_prefetch(&s->vis.bits[page >> 6]);
}

int sim_visited_get(const sim *s, int64_t page)
{
    const int64_t b = bit_of(s, page);
    return b >= 0 && BIT_GET(s->vis.bits, b);
}

void sim_visited_set(sim *s, int64_t page)
{
    const int64_t b = bit_of(s, page);
    if (b >= 0)
        BIT_SET(s->vis.bits, b);
}

void sim_visited_clear(sim *s)
{
    memset(s->vis.bits, 0, (size_t)sim_visited_words(s) * 8);
}

int64_t sim_visited_words(const sim *s)
{
    return (s->vis.nbits + 63) / 64;
}

/* ---- set-up --------------------------------------------------------------------------------- */

/* Local. The ghosts: the distinct other ranks' pages among the local links' targets, sorted. */
static cs_err find_ghosts(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_visited *v = &s->vis;
    const cs_graph *g = s->w.g;
    const int64_t nl = cs_graph_n_local(g), *off = cs_graph_offsets(g), *tg = cs_graph_targets(g);
    idset h = {NULL, 0, 0};
    uint64_t *tmp = NULL;
    for (int64_t j = 0; j < off[nl] && rc == CS_OK; j++)
        if (cs_graph_local_index(g, tg[j]) < 0)
            rc = idset_add(ctx, &h, tg[j]);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &v->ghost, (size_t)h.n + 1, sizeof *v->ghost, "ghost pages");
    if (rc == CS_OK)
        for (int64_t i = 0; i < h.cap; i++)
            if (h.key[i] >= 0)
                v->ghost[v->n_ghost++] = h.key[i];
    free(h.key);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &tmp, (size_t)v->n_ghost + 1, sizeof *tmp, "ghost pages");
    if (rc == CS_OK)
        cs_sort_u64((uint64_t *)v->ghost, v->n_ghost, tmp); /* ids are >= 0 */
    free(tmp);
    return rc;
}

/* Local. Bytes of the owned layout on this rank (the visited bits, the links' slots, the ghosts'
 * ids, their evidence rows, the subscribers at one per ghost on average) and of the replicated
 * one (a bit and an evidence row per page of the world). */
static void layout_bytes(const sim *s, int64_t *owned, int64_t *replicated)
{
    const int64_t nl = cs_graph_n_local(s->w.g), N = cs_graph_n_pages(s->w.g);
    const int64_t row = 4 * (2 + (int64_t)s->L.categories), g = s->vis.n_ghost;
    *owned =
        (nl + g) / 8 + 4 * cs_graph_n_local_links(s->w.g) + (8 + row + 4) * g + 8 * nl + row * nl;
    *replicated = N / 8 + row * N;
}

/*
 * Collective. The owned layout: each local link's bit (slot), and the subscribers: every rank
 * sends the owner of each of its ghosts (id, its rank) in one exchange; the owner lists, per
 * local page, the ranks that hold it, in rank order.
 */
static cs_err build_owned(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_visited *v = &s->vis;
    const cs_graph *g = s->w.g;
    const int me = ctx->rank;
    const int64_t nl = cs_graph_n_local(g), *off = cs_graph_offsets(g), *tg = cs_graph_targets(g);
    const int64_t nlinks = off[nl];
    cs_outbox ask;
    char *recv = NULL;
    size_t recv_cap = 0, recv_len = 0;
    memset(&ask, 0, sizeof ask);
    v->n_local = nl;
    if (nl + v->n_ghost >= INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "the visited set: %lld local pages and %lld other ranks' pages they link "
                     "to on one rank (at most 2^31 - 1): run on more ranks or with "
                     "crawl.visited = replicated",
                     (long long)nl, (long long)v->n_ghost);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &v->slot, (size_t)nlinks + 1, sizeof *v->slot, "visited set");
    CS_TRY_AGREE(ctx, rc);
    v->nbits = nl + v->n_ghost;
    int32_t *slot = v->slot;
    const sim_visited *cv = v;
#pragma omp parallel for default(none) shared(g, tg, slot, cv, nl, nlinks) schedule(static)
    for (int64_t j = 0; j < nlinks; j++) {
        const int64_t li = cs_graph_local_index(g, tg[j]);
        slot[j] = (int32_t)(li >= 0 ? li : nl + ghost_index(cv, tg[j]));
    }
    /* subscribers */
    CS_TRY_AGREE(ctx, cs_outbox_init(ctx, &ask, ctx->size));
    ask.method = s->cfg->crawl.exchange;
    for (int64_t i = 0; i < v->n_ghost && rc == CS_OK; i++) {
        const int64_t rec[2] = {v->ghost[i], me};
        rc = cs_outbox_put(ctx, &ask, cs_graph_owner(g, v->ghost[i]), rec, sizeof rec);
    }
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_comm_exchange(ctx, &ask, &recv, &recv_cap, &recv_len, &(cs_exchange_stats){0}));
    const int64_t nrec = (int64_t)(recv_len / (2 * sizeof(int64_t)));
    rc = cs_calloc(ctx, &v->sub_off, (size_t)nl + 2, sizeof *v->sub_off, "subscribers");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &v->sub, (size_t)nrec + 1, sizeof *v->sub, "subscribers");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t k = 0; k < nrec; k++) {
        int64_t rec[2];
        memcpy(rec, recv + k * (int64_t)sizeof rec, sizeof rec);
        const int64_t li = cs_graph_local_index(g, rec[0]);
        CS_ASSERT(li >= 0);
        v->sub_off[li + 2]++;
    }
    for (int64_t i = 0; i < nl; i++)
        v->sub_off[i + 2] += v->sub_off[i + 1];
    for (int64_t k = 0; k < nrec; k++) { /* in rank order: the exchange's order */
        int64_t rec[2];
        memcpy(rec, recv + k * (int64_t)sizeof rec, sizeof rec);
        const int64_t li = cs_graph_local_index(g, rec[0]);
        v->sub[v->sub_off[li + 1]++] = (int32_t)rec[1];
    }
fail:
    free(recv);
    cs_outbox_fini(&ask);
    return rc;
}

/*
 * Collective. The layout: replicated with one rank and under rep (every rank runs the one logical
 * policy on replicated state); else crawl.visited, where auto takes the owned layout when its
 * bytes on the largest rank are fewer than the replicated layout's.
 */
cs_err sim_visited_create(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    sim_visited *v = &s->vis;
    const int want = s->cfg->crawl.visited;
    memset(v, 0, sizeof *v);
    int owned = 0;
    int64_t b[2] = {0, 0}, bmax[2] = {0, 0};
    if (s->w.proc && want == CS_VISITED_OWNED)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "crawl.visited = owned lists, before the crawl, the other ranks' pages "
                       "that each rank's pages link to, which gen.materialize = false does not "
                       "know before the pages are fetched: set crawl.visited = replicated or auto "
                       "(or gen.materialize = true)");
    if (!s->rep && ctx->size > 1 && want != CS_VISITED_REPLICATED && !s->w.proc) {
        CS_TRY_AGREE(ctx, find_ghosts(s));
        layout_bytes(s, &b[0], &b[1]);
        cs_allreduce(ctx, b, bmax, 2, CS_T_I64, CS_OP_MAX);
        owned = want == CS_VISITED_OWNED || bmax[0] < bmax[1];
    }
    if (owned) {
        CS_TRY(ctx, build_owned(s));
    } else {
        free(v->ghost);
        v->ghost = NULL;
        v->n_ghost = 0;
        v->nbits = cs_graph_n_pages(s->w.g);
    }
    if (bmax[1] > 0)
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "visited set and evidence: %s (owned %.1f MiB, replicated %.1f MiB on the largest "
               "rank)",
               owned ? "owned" : "replicated", (double)bmax[0] / 1048576.0,
               (double)bmax[1] / 1048576.0);
    rc = cs_calloc(ctx, &v->bits, (size_t)sim_visited_words(s) + 1, 8, "visited set");
    if (rc == CS_OK)
        rc = cs_outbox_init(ctx, &v->note, ctx->size);
    v->note.method = s->cfg->crawl.exchange;
    v->note.channel = 1; /* the link records' outbox (channel 0) may follow with no collective */
    CS_TRY_AGREE(ctx, rc);
fail:
    return rc;
}

void sim_visited_free(sim *s)
{
    sim_visited *v = &s->vis;
    free(v->bits);
    free(v->ghost);
    free(v->slot);
    free(v->sub_off);
    free(v->sub);
    free(v->recv);
    cs_outbox_fini(&v->note);
    memset(v, 0, sizeof *v);
}

/* ---- the tick ------------------------------------------------------------------------------- */

/*
 * Collective. Every rank learns every rank's fetches of this tick (one allgather of the counts,
 * one allgatherv of the ids): the replicated layout marks them all visited (mark), and the
 * strict setting's MAX cap on split hosts (cap_global) counts the other ranks' per host (count).
 */
static cs_err share_all(sim *s, cs_err local, int64_t n, int mark, int count)
{
    cs_ctx *ctx = s->ctx;
    double t0 = cs_now();
    int64_t tot = 0;
    cs_err rc = sim_gather_layout(ctx, n, s->x.vis_counts, s->x.vis_displs, &tot, "fetches");
    if (rc == CS_OK)
        rc = local;
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->x.vis_all, &s->x.vis_all_cap, (size_t)tot + 1, sizeof *s->x.vis_all,
                     "visited");
    CS_TRY_AGREE(ctx, rc);
    const int64_t mine = s->x.vis_displs[ctx->rank];
    for (int64_t i = 0; i < n; i++)
        s->x.vis_all[mine + i] = s->f.fx[i].page;
    cs_allgatherv(ctx, NULL, 0, s->x.vis_all, s->x.vis_counts, s->x.vis_displs, CS_T_I64);
    for (int64_t i = 0; mark && i < tot; i++)
        BIT_SET(s->vis.bits, s->x.vis_all[i]);
    for (int64_t i = 0; count && i < tot; i++)
        if (i < mine || i >= mine + n)
            s->h.host_fetched[hslot(s, host_any(s, s->x.vis_all[i]))]++;
    s->m.t[PH_EXCHANGE] += cs_now() - t0;
fail:
    return rc;
}

/*
 * Collective. Owned layout: the owner of each page fetched in this tick (s->f.fx[0..n), this
 * rank's own, marked by sim_take_selected) sends its id to the page's subscribers; each marks
 * its ghost. The strict setting with a MAX cap on split hosts (cap_global) also counts the
 * other ranks' fetches per host: every rank learns every fetch (one allgatherv of the ids).
 * Nothing with one rank or the replicated layout (every rank marks every pick itself). local:
 * this rank's code of the tick's steps since their last agreement; returned with this step's
 * (a rank that failed sends no notes), agreed only by the allgather of the replicated layout or
 * of cap_global: the caller agrees on it with the tick's next agreement (run_task).
 */
static cs_err share_visited(sim *s, cs_err local, int64_t n, int count)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = local;
    sim_visited *v = &s->vis;
    if (ctx->size == 1) /* (the replicated mode marks every pick on every rank: not called) */
        return local;
    if (v->slot == NULL)
        return share_all(s, local, n, 1, count);
    double t0 = cs_now();
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        const int64_t li = s->f.fx[i].li, page = s->f.fx[i].page;
        for (int64_t k = v->sub_off[li]; k < v->sub_off[li + 1] && rc == CS_OK; k++)
            rc = cs_outbox_put(ctx, &v->note, v->sub[k], &page, sizeof page);
    }
    size_t len = 0;
    cs_exchange_stats st = {0};
    CS_TRY(ctx, cs_comm_exchange(ctx, &v->note, &v->recv, &v->recv_cap, &len, &st));
    s->m.c[C_NOTES] += st.bytes_sent / (int64_t)sizeof(int64_t);
    for (size_t k = 0; k < len / sizeof(int64_t); k++) {
        int64_t page;
        memcpy(&page, v->recv + k * sizeof page, sizeof page);
        const int64_t gi = ghost_index(v, page);
        CS_ASSERT(gi >= 0);
        BIT_SET(v->bits, v->n_local + gi);
    }
    s->m.t[PH_EXCHANGE] += cs_now() - t0;
    if (count) /* the other ranks' fetches count towards their hosts' MAX caps */
        rc = share_all(s, rc, n, 0, 1);
fail:
    return rc;
}

cs_err sim_share_visited(sim *s, cs_err local, int64_t n)
{
    return share_visited(s, local, n, 0);
}

cs_err sim_share_visited_counted(sim *s, cs_err local, int64_t n)
{
    return share_visited(s, local, n, 1);
}
