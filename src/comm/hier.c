/*
 * comm/hier: crawl.exchange = node, the two-level (node-aware) exchange of the outboxes. The
 * ranks of a node hand their boxes for other ranks to the node's first rank, its leader (one
 * MPI_Gatherv on the node's communicator); the leaders exchange one message per destination
 * node that has records (the census of comm.c among the leaders); each leader sorts what came
 * for its node by destination and source and scatters it (one MPI_Scatterv); each rank lays
 * its boxes out in source rank order, its own at its place: the bytes every other method gives.
 * Inter-node messages per exchange are at most nodes x (nodes - 1) whatever the ranks per node,
 * against up to P x (P - 1) for a direct exchange; the price is the node's records copied
 * twice through its leader and two collective steps on the node (docs/performance.md, "The
 * exchange").
 */
#include "comm_impl.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A box on its way: its source and destination ranks and its length; its bytes follow. */
typedef struct hpiece {
    int64_t src, dst, len;
} hpiece;

/* A piece that came for the leader's node: its destination's index on the node, its source,
 * where its header is in the leader's buffer. */
typedef struct hplace {
    int64_t idx, src, at, len;
} hplace;

typedef struct cs_hier {
    MPI_Comm node, lead; /* this rank's node; the leaders (MPI_COMM_NULL off the leaders) */
    int nrank, nsize;    /* this rank's index on its node, the node's ranks */
    int *where;          /* 2 x P: each rank's node (its leader's rank among the leaders), index */
    int *cnt;            /* leaders: 2 x nsize: counts and displacements of the gather, scatter */
    int64_t *sz;         /* leaders: nsize byte counts */
    cs_ctx lctx;         /* leaders: a context on lead, for the census among them */
    cs_outbox up;        /* leaders: one box per node */
    char *pack, *gath, *in, *down, *mine;
    size_t pack_cap, gath_cap, in_cap, down_cap, mine_cap;
    hplace *pl;
    size_t pl_cap;
} cs_hier;

/* Aborts the job: the exchange cannot go on once messages are under way (their receivers wait
 * for them), so the failure cannot be agreed. */
static void hier_abort(cs_ctx *ctx, const char *what, size_t bytes)
{
    fprintf(stderr,
            "crawlsim: error: rank %d: the node exchange's %s cannot hold %zu bytes (out of "
            "memory, or over 2 GiB for one node); lower crawl.bandwidth or crawl.exchange_every, "
            "or take crawl.exchange = census\n",
            ctx->rank, what, bytes);
    MPI_Abort(ctx->comm, 70);
}

static void hier_grow(cs_ctx *ctx, void *pp, size_t *cap, size_t n, const char *what)
{
    if (n > *cap && cs_grow(ctx, pp, cap, n, 1, what) != CS_OK)
        hier_abort(ctx, what, n);
}

static int hplace_cmp(const void *a, const void *b)
{
    const hplace *x = a, *y = b;
    if (x->idx != y->idx)
        return x->idx < y->idx ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

/*
 * The colour of this rank's node under CRAWLSIM_NODE_RANKS (for tests: several nodes on one
 * machine, the same value on every rank): "K", ranks [0, K) on the first node, [K, 2K) on the
 * second, ...; "cK", as many nodes and the ranks dealt to them in turn (a node's ranks are then
 * not consecutive). -1: unset or malformed, the shared-memory nodes.
 */
static int node_colour(const cs_ctx *ctx)
{
    const char *e = getenv("CRAWLSIM_NODE_RANKS");
    if (e == NULL || *e == '\0')
        return -1;
    const int cyclic = e[0] == 'c';
    char *end = NULL;
    const long k = strtol(e + cyclic, &end, 10);
    if (end == e + cyclic || *end != '\0' || k < 1 || k > ctx->size)
        return -1;
    const int nodes = (ctx->size + (int)k - 1) / (int)k;
    return cyclic ? ctx->rank % nodes : ctx->rank / (int)k;
}

/* Collective(ctx->comm). The node's and the leaders' communicators and where every rank is. */
static cs_err hier_create(cs_ctx *ctx, cs_outbox *o)
{
    const int P = ctx->size;
    cs_err rc = CS_OK;
    cs_hier *h = calloc(1, sizeof *h);
    if (h == NULL)
        rc = cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the node exchange");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &h->where, 2 * (size_t)P, sizeof *h->where, "node exchange");
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        if (h != NULL)
            free(h->where);
        free(h);
        return rc;
    }
    const int colour = node_colour(ctx);
    if (colour >= 0)
        MPI_Comm_split(ctx->comm, colour, ctx->rank, &h->node);
    else
        MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &h->node);
    MPI_Comm_rank(h->node, &h->nrank);
    MPI_Comm_size(h->node, &h->nsize);
    MPI_Comm_split(ctx->comm, h->nrank == 0 ? 0 : MPI_UNDEFINED, ctx->rank, &h->lead);
    int mine[2] = {0, h->nrank}, nodes = 0;
    if (h->lead != MPI_COMM_NULL) {
        MPI_Comm_rank(h->lead, &mine[0]);
        MPI_Comm_size(h->lead, &nodes);
    }
    cs_ctx_count(ctx, CS_COLL_ROOTED, (int64_t)sizeof mine[0]);
    MPI_Bcast(&mine[0], 1, MPI_INT, 0, h->node);
    cs_ctx_count(ctx, CS_COLL_ALLGATHER, (int64_t)sizeof mine);
    MPI_Allgather(mine, 2, MPI_INT, h->where, 2, MPI_INT, ctx->comm);
    if (h->lead != MPI_COMM_NULL) {
        rc = cs_alloc(ctx, &h->cnt, 2 * (size_t)h->nsize, sizeof *h->cnt, "node exchange");
        if (rc == CS_OK)
            rc = cs_alloc(ctx, &h->sz, (size_t)h->nsize, sizeof *h->sz, "node exchange");
        if (rc == CS_OK)
            rc = cs_outbox_init(ctx, &h->up, nodes);
        h->lctx = *ctx;
        h->lctx.comm = h->lead;
        h->lctx.rank = mine[0];
        h->lctx.size = nodes;
        h->up.method = CS_EXCHANGE_CENSUS;
        h->up.chunk = o->chunk;
        h->up.head_max = o->head_max;
    }
    o->hier = h;
    return cs_agree(ctx, rc);
}

void cs_hier_destroy(cs_outbox *o)
{
    cs_hier *h = o->hier;
    if (h == NULL)
        return;
    if (h->lead != MPI_COMM_NULL)
        MPI_Comm_free(&h->lead);
    if (h->node != MPI_COMM_NULL)
        MPI_Comm_free(&h->node);
    if (h->up.buf != NULL)
        cs_outbox_fini(&h->up);
    free(h->where);
    free(h->cnt);
    free(h->sz);
    free(h->pack);
    free(h->gath);
    free(h->in);
    free(h->down);
    free(h->mine);
    free(h->pl);
    free(h);
    o->hier = NULL;
}

/* Leaders. The node's pieces (gath[0..n)) into one box per destination node, the census among
 * the leaders, and what came for this node (in[0..*in_len)). */
static void hier_across(cs_ctx *ctx, cs_hier *h, const char *gath, size_t n, size_t *in_len,
                        cs_exchange_stats *st)
{
    for (size_t at = 0; at < n;) {
        hpiece pc;
        memcpy(&pc, gath + at, sizeof pc);
        const size_t m = sizeof pc + (size_t)pc.len;
        if (cs_outbox_put(ctx, &h->up, h->where[2 * pc.dst], gath + at, m) != CS_OK)
            hier_abort(ctx, "boxes for the other nodes", h->up.len[h->where[2 * pc.dst]] + m);
        at += m;
    }
    cs_exchange_stats ls = {0};
    memset(&h->lctx.coll, 0, sizeof h->lctx.coll);
    if (cs_comm_exchange(&h->lctx, &h->up, &h->in, &h->in_cap, in_len, &ls) != CS_OK)
        hier_abort(ctx, "receive buffer", cs_outbox_bytes(&h->up));
    for (int k = 0; k < CS_COLL_N; k++) {
        ctx->coll.calls[k] += h->lctx.coll.calls[k];
        ctx->coll.bytes[k] += h->lctx.coll.bytes[k];
    }
    st->messages_sent += ls.messages_sent;
}

/* Leaders. What came for this node (in[0..n)), sorted by destination then source, into
 * h->down; h->sz and h->cnt: each rank's bytes and their place. */
static void hier_sort_down(cs_ctx *ctx, cs_hier *h, size_t n)
{
    size_t np = 0;
    for (size_t at = 0; at < n; np++) {
        hpiece pc;
        memcpy(&pc, h->in + at, sizeof pc);
        at += sizeof pc + (size_t)pc.len;
    }
    hier_grow(ctx, &h->pl, &h->pl_cap, (np + 1) * sizeof *h->pl, "piece list");
    hier_grow(ctx, &h->down, &h->down_cap, n + 1, "scatter buffer");
    np = 0;
    for (size_t at = 0; at < n; np++) {
        hpiece pc;
        memcpy(&pc, h->in + at, sizeof pc);
        h->pl[np] = (hplace){h->where[2 * pc.dst + 1], pc.src, (int64_t)at, pc.len};
        at += sizeof pc + (size_t)pc.len;
    }
    if (np > 1)
        qsort(h->pl, np, sizeof *h->pl, hplace_cmp);
    memset(h->sz, 0, (size_t)h->nsize * sizeof *h->sz);
    size_t at = 0;
    for (size_t i = 0; i < np; i++) {
        const size_t m = sizeof(hpiece) + (size_t)h->pl[i].len;
        memcpy(h->down + at, h->in + h->pl[i].at, m);
        h->sz[h->pl[i].idx] += (int64_t)m;
        at += m;
    }
    size_t off = 0;
    for (int i = 0; i < h->nsize; i++) {
        if ((size_t)h->sz[i] > (size_t)INT32_MAX - off)
            hier_abort(ctx, "scatter to the node's ranks", off + (size_t)h->sz[i]);
        h->cnt[i] = (int)h->sz[i];
        h->cnt[h->nsize + i] = (int)off;
        off += (size_t)h->sz[i];
    }
}

/* This rank's boxes for the other ranks into h->pack, each behind its header, in rank order;
 * returns their bytes. */
static size_t hier_pack(cs_ctx *ctx, cs_hier *h, const cs_outbox *o, cs_exchange_stats *st)
{
    const int P = ctx->size, me = ctx->rank;
    size_t n = 0;
    for (int r = 0; r < P; r++)
        if (r != me && o->len[r] > 0)
            n += sizeof(hpiece) + o->len[r];
    if (n > (size_t)INT32_MAX)
        hier_abort(ctx, "send buffer", n);
    hier_grow(ctx, &h->pack, &h->pack_cap, n + 1, "send buffer");
    size_t at = 0;
    for (int r = 0; r < P; r++) {
        if (r == me || o->len[r] == 0)
            continue;
        const hpiece pc = {me, r, (int64_t)o->len[r]};
        memcpy(h->pack + at, &pc, sizeof pc);
        memcpy(h->pack + at + sizeof pc, o->buf[r], o->len[r]);
        at += sizeof pc + o->len[r];
        st->bytes_sent += (int64_t)o->len[r];
    }
    return n;
}

/* The node's packed pieces (n bytes on this rank) at its leader, in the order of the node's
 * ranks: *gath and *ngath on the leader (h->pack and n on a node of one rank). Collective over
 * the node. */
static void hier_gather_node(cs_ctx *ctx, cs_hier *h, size_t n, const char **gath, size_t *ngath,
                             cs_exchange_stats *st)
{
    const int L = h->nsize, lead = h->lead != MPI_COMM_NULL;
    *gath = h->pack;
    *ngath = n;
    if (L == 1)
        return;
    int64_t n64 = (int64_t)n;
    cs_ctx_count(ctx, CS_COLL_ROOTED, (int64_t)sizeof n64);
    MPI_Gather(&n64, 1, MPI_INT64_T, h->sz, 1, MPI_INT64_T, 0, h->node);
    if (lead) {
        *ngath = 0;
        for (int i = 0; i < L; i++) {
            if ((size_t)h->sz[i] > (size_t)INT32_MAX - *ngath)
                hier_abort(ctx, "gather from the node's ranks", *ngath + (size_t)h->sz[i]);
            h->cnt[i] = (int)h->sz[i];
            h->cnt[L + i] = (int)*ngath;
            *ngath += (size_t)h->sz[i];
        }
        hier_grow(ctx, &h->gath, &h->gath_cap, *ngath + 1, "gather buffer");
        *gath = h->gath;
    }
    cs_ctx_count(ctx, CS_COLL_ROOTED, lead ? 0 : (int64_t)n);
    MPI_Gatherv(h->pack, (int)n, MPI_BYTE, h->gath, h->cnt, h->cnt + L, MPI_BYTE, 0, h->node);
    st->messages_sent += !lead && n > 0;
}

/* This rank's pieces, sorted by source, from the leader's h->down: *mine and *nmine bytes.
 * Collective over the node. */
static void hier_scatter_node(cs_ctx *ctx, cs_hier *h, const char **mine, int64_t *nmine,
                              cs_exchange_stats *st)
{
    const int L = h->nsize, lead = h->lead != MPI_COMM_NULL;
    *mine = h->down;
    *nmine = lead ? h->sz[0] : 0;
    if (L == 1)
        return;
    cs_ctx_count(ctx, CS_COLL_ROOTED, lead ? (int64_t)L * (int64_t)sizeof *nmine : 0);
    MPI_Scatter(h->sz, 1, MPI_INT64_T, nmine, 1, MPI_INT64_T, 0, h->node);
    hier_grow(ctx, &h->mine, &h->mine_cap, (size_t)*nmine + 1, "receive buffer");
    const int64_t down = lead ? (int64_t)h->cnt[L - 1] + h->cnt[2 * L - 1] : 0;
    cs_ctx_count(ctx, CS_COLL_ROOTED, down);
    MPI_Scatterv(h->down, h->cnt, h->cnt + L, MPI_BYTE, h->mine, (int)*nmine, MPI_BYTE, 0, h->node);
    *mine = h->mine;
    for (int i = 1; lead && i < L; i++)
        st->messages_sent += h->sz[i] > 0;
}

/* The received boxes (nmine bytes of pieces at mine, sorted by source) in rank order into *recv,
 * this rank's own box at its place; returns their bytes. */
static size_t hier_unpack(cs_ctx *ctx, const cs_outbox *o, const char *mine, int64_t nmine,
                          char **recv, size_t *recv_cap)
{
    const int P = ctx->size, me = ctx->rank;
    size_t total = o->len[me];
    for (size_t a = 0; a < (size_t)nmine;) {
        hpiece pc;
        memcpy(&pc, mine + a, sizeof pc);
        total += (size_t)pc.len;
        a += sizeof pc + (size_t)pc.len;
    }
    hier_grow(ctx, recv, recv_cap, total + 1, "receive buffer");
    int own = o->len[me] == 0;
    size_t at = 0;
    for (size_t a = 0; a <= (size_t)nmine;) {
        hpiece pc = {P, 0, 0};
        if (a < (size_t)nmine)
            memcpy(&pc, mine + a, sizeof pc);
        if (!own && pc.src > me) {
            memcpy(*recv + at, o->buf[me], o->len[me]);
            at += o->len[me];
            own = 1;
        }
        if (a == (size_t)nmine)
            break;
        memcpy(*recv + at, mine + a + sizeof pc, (size_t)pc.len);
        at += (size_t)pc.len;
        a += sizeof pc + (size_t)pc.len;
    }
    return at;
}

cs_err cs_hier_exchange(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap, size_t *recv_len,
                        cs_exchange_stats *st)
{
    if (o->hier == NULL) {
        const cs_err rc = hier_create(ctx, o);
        if (rc != CS_OK)
            return rc;
    }
    cs_hier *h = o->hier;
    double t0 = cs_now();
    const size_t n = hier_pack(ctx, h, o, st);
    const char *gath;
    size_t ngath;
    hier_gather_node(ctx, h, n, &gath, &ngath, st);
    double t1 = cs_now();
    if (h->lead != MPI_COMM_NULL) {
        size_t nin = 0;
        hier_across(ctx, h, gath, ngath, &nin, st);
        hier_sort_down(ctx, h, nin);
    }
    double t2 = cs_now();
    const char *mine;
    int64_t nmine;
    hier_scatter_node(ctx, h, &mine, &nmine, st);
    *recv_len = hier_unpack(ctx, o, mine, nmine, recv, recv_cap);
    st->wait += t2 - t1;
    st->transfer += (t1 - t0) + (cs_now() - t2);
    return CS_OK;
}
