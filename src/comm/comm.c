/*
 * comm: outbox exchange, fixed-order weight averaging, the exact distributed top-k and budget
 * splits (see comm.h).
 */
#include "comm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cs_err cs_outbox_init(cs_ctx *ctx, cs_outbox *o, int nranks)
{
    cs_err rc = CS_OK;
    memset(o, 0, sizeof *o);
    o->nranks = nranks;
    CS_TRY(ctx, cs_calloc(ctx, &o->buf, (size_t)nranks, sizeof *o->buf, "outboxes"));
    CS_TRY(ctx, cs_calloc(ctx, &o->len, (size_t)nranks, sizeof *o->len, "outboxes"));
    CS_TRY(ctx, cs_calloc(ctx, &o->cap, (size_t)nranks, sizeof *o->cap, "outboxes"));
    CS_TRY(ctx, cs_calloc(ctx, &o->census, 2 * (size_t)nranks, sizeof *o->census, "outboxes"));
    o->method = CS_EXCHANGE_SPARSE;
    o->chunk = (size_t)1 << 30;
    o->head_max = 4096;
    return CS_OK;
fail:
    cs_outbox_fini(o);
    return rc;
}

void cs_outbox_fini(cs_outbox *o)
{
    cs_hier_destroy(o);
    if (o->buf != NULL)
        for (int r = 0; r < o->nranks; r++)
            free(o->buf[r]);
    free(o->buf);
    free(o->len);
    free(o->cap);
    free(o->req);
    free(o->stage);
    free(o->piece);
    free(o->head);
    free(o->census);
    memset(o, 0, sizeof *o);
}

cs_err cs_outbox_reserve(cs_ctx *ctx, cs_outbox *o, int to, size_t bytes)
{
    if (o->len[to] + bytes <= o->cap[to])
        return CS_OK;
    return cs_grow(ctx, &o->buf[to], &o->cap[to], o->len[to] + bytes, 1, "outbox");
}

cs_err cs_outbox_put(cs_ctx *ctx, cs_outbox *o, int to, const void *data, size_t bytes)
{
    cs_err rc = cs_outbox_reserve(ctx, o, to, bytes);
    if (rc != CS_OK)
        return rc;
    memcpy(o->buf[to] + o->len[to], data, bytes);
    o->len[to] += bytes;
    return CS_OK;
}

void cs_outbox_clear(cs_outbox *o)
{
    for (int r = 0; r < o->nranks; r++)
        o->len[r] = 0;
}

size_t cs_outbox_bytes(const cs_outbox *o)
{
    size_t s = 0;
    for (int r = 0; r < o->nranks; r++)
        s += o->len[r];
    return s;
}

/* crawl.exchange = alltoallv: the counts, then the payloads, every rank to every rank. */
static cs_err exchange_dense(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap,
                             size_t *recv_len, cs_exchange_stats *st)
{
    cs_err rc = CS_OK;
    const int P = ctx->size;
    int *sc = NULL, *rc_ = NULL, *sd = NULL, *rd = NULL;
    char *sendbuf = NULL;
    rc = cs_alloc(ctx, &sc, (size_t)P * 4, sizeof *sc, "exchange counts");
    if (rc == CS_OK) {
        rc_ = sc + P;
        sd = sc + 2 * P;
        rd = sc + 3 * P;
    }
    size_t total = 0;
    int too_big = 0;
    for (int r = 0; rc == CS_OK && r < P; r++) {
        if (o->len[r] > (size_t)INT32_MAX || total > (size_t)INT32_MAX - o->len[r])
            too_big = 1;
        sc[r] = (int)o->len[r];
        total += o->len[r];
    }
    if (rc == CS_OK && too_big)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "exchange: more than 2 GiB of links from one rank; exchange more often "
                     "(crawl.exchange_every) or lower crawl.bandwidth");
    /* one contiguous send buffer in rank order */
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &sendbuf, total + 1, 1, "exchange send buffer");
    CS_TRY_AGREE(ctx, rc);
    size_t off = 0;
    for (int r = 0; r < P; r++) {
        sd[r] = (int)off;
        if (o->len[r] > 0)
            memcpy(sendbuf + off, o->buf[r], o->len[r]);
        off += o->len[r];
        if (r != ctx->rank) {
            st->bytes_sent += (int64_t)o->len[r];
            st->messages_sent += o->len[r] > 0;
        }
    }
    double t0 = cs_now();
    cs_ctx_count(ctx, CS_COLL_ALLTOALL, (int64_t)(P - 1) * (int64_t)sizeof(int));
    MPI_Alltoall(sc, 1, MPI_INT, rc_, 1, MPI_INT, ctx->comm);
    double t1 = cs_now();
    size_t in = 0;
    for (int r = 0; r < P; r++) {
        if (in > (size_t)INT32_MAX - (size_t)rc_[r])
            too_big = 1;
        rd[r] = (int)in;
        in += (size_t)rc_[r];
    }
    if (too_big)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "exchange: more than 2 GiB of links for one rank; exchange more often "
                     "(crawl.exchange_every) or lower crawl.bandwidth");
    if (rc == CS_OK && in + 1 > *recv_cap)
        rc = cs_grow(ctx, recv, recv_cap, in + 1, 1, "exchange receive buffer");
    CS_TRY_AGREE(ctx, rc);
    double t2 = cs_now();
    cs_ctx_count(ctx, CS_COLL_ALLTOALL, (int64_t)(off - o->len[ctx->rank]));
    MPI_Alltoallv(sendbuf, sc, sd, MPI_BYTE, *recv, rc_, rd, MPI_BYTE, ctx->comm);
    double t3 = cs_now();
    st->wait += t1 - t0;
    st->transfer += t3 - t2;
    *recv_len = in;
fail:
    free(sendbuf);
    free(sc);
    return rc;
}

/* The two tags of the sparse exchange, alternating: a rank that has left an exchange may send
 * the next one's messages to a rank still probing for the last ones (NBX's one hazard); it
 * cannot be two exchanges ahead, since the next barrier waits for every rank. Outboxes of
 * different channels (o->channel: exchanges that follow each other with no collective between,
 * the visited notes and the link records) use different tags, so that one's messages cannot be
 * taken by the other. The census's tags (head and rest, alternating) are CTAG's. The only other
 * point-to-point traffic on ctx->comm is cs_exscan_sum's (0x5d0). */
enum { XTAG = 0x5c0, CTAG = 0x5e0 };

/* Aborts the job: a buffer of the sparse exchange could not grow while messages are under way
 * (their senders wait for them, so the failure cannot be agreed). */
static void exchange_oom(cs_ctx *ctx, const char *what, size_t bytes)
{
    fprintf(stderr,
            "crawlsim: error: rank %d: out of memory growing the frontier exchange's %s to %zu "
            "bytes; lower crawl.bandwidth or crawl.exchange_every\n",
            ctx->rank, what, bytes);
    MPI_Abort(ctx->comm, 70);
}

/* A message received by the sparse exchange: its source, its place in the stage, its length.
 * Sorted by (source, seq): MPI keeps the order of one source's messages (a box in pieces). */
typedef struct xpiece {
    int64_t src, seq, at, len;
} xpiece;

static int xpiece_cmp(const void *a, const void *b)
{
    const xpiece *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sends this rank's boxes: one MPI_Issend per non-empty box to another rank, a box longer than
 * o->chunk as several in order; k: the requests. */
static void sparse_send(cs_ctx *ctx, cs_outbox *o, int tag, size_t *k, cs_exchange_stats *st)
{
    size_t nreq = 0;
    for (int r = 0; r < ctx->size; r++)
        if (r != ctx->rank)
            nreq += (o->len[r] + o->chunk - 1) / o->chunk;
    if (cs_grow(ctx, &o->req, &o->req_cap, nreq + 1, sizeof *o->req, "exchange requests") != CS_OK)
        exchange_oom(ctx, "requests", (nreq + 1) * sizeof *o->req);
    *k = 0;
    for (int r = 0; r < ctx->size; r++) {
        if (r == ctx->rank || o->len[r] == 0)
            continue;
        for (size_t at = 0; at < o->len[r]; at += o->chunk) {
            const size_t n = o->len[r] - at < o->chunk ? o->len[r] - at : o->chunk;
            MPI_Issend(o->buf[r] + at, (int)n, MPI_BYTE, r, tag, ctx->comm, &o->req[(*k)++]);
        }
        st->bytes_sent += (int64_t)o->len[r];
        st->messages_sent++;
    }
}

/* Receives one probed message into the stage. */
static void sparse_recv(cs_ctx *ctx, cs_outbox *o, const MPI_Status *stat, int tag, size_t *staged,
                        size_t *npiece)
{
    int count = 0;
    MPI_Get_count(stat, MPI_BYTE, &count);
    if (cs_grow(ctx, &o->stage, &o->stage_cap, *staged + (size_t)count + 1, 1,
                "exchange receive buffer") != CS_OK)
        exchange_oom(ctx, "receive buffer", *staged + (size_t)count + 1);
    if (cs_grow(ctx, &o->piece, &o->piece_cap, (*npiece + 1) * sizeof(xpiece), 1,
                "exchange receive buffer") != CS_OK)
        exchange_oom(ctx, "message list", (*npiece + 1) * sizeof(xpiece));
    MPI_Recv(o->stage + *staged, count, MPI_BYTE, stat->MPI_SOURCE, tag, ctx->comm,
             MPI_STATUS_IGNORE);
    const xpiece pc = {stat->MPI_SOURCE, (int64_t)*npiece, (int64_t)*staged, count};
    memcpy(o->piece + *npiece * sizeof pc, &pc, sizeof pc);
    ++*npiece;
    *staged += (size_t)count;
}

/*
 * crawl.exchange = sparse (NBX). Sends (sparse_send), then until the barrier completes: a
 * message of this exchange's tag that has arrived is received into the stage; once this
 * rank's sends are all matched (a synchronous send completes only when its receive has
 * started), this rank enters a non-blocking barrier. The barrier completes when every rank's
 * sends were matched, so every message for this rank has been received. The pieces are then
 * copied into *recv in rank order, this rank's own box at its place: what alltoallv gives.
 */
static void exchange_sparse(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap,
                            size_t *recv_len, cs_exchange_stats *st)
{
    const int me = ctx->rank, tag = XTAG + 2 * o->channel + o->epoch;
    o->epoch ^= 1;
    double t0 = cs_now(), t1 = t0;
    size_t nreq = 0, staged = 0, npiece = 0;
    sparse_send(ctx, o, tag, &nreq, st);
    int sent = 0, done = 0;
    MPI_Request barrier = MPI_REQUEST_NULL;
    while (!done) {
        int arrived = 0;
        MPI_Status stat;
        MPI_Iprobe(MPI_ANY_SOURCE, tag, ctx->comm, &arrived, &stat);
        if (arrived) {
            sparse_recv(ctx, o, &stat, tag, &staged, &npiece);
        } else if (!sent) {
            MPI_Testall((int)nreq, o->req, &sent, MPI_STATUSES_IGNORE);
            if (sent) {
                t1 = cs_now();
                cs_ctx_count(ctx, CS_COLL_BARRIER, 0);
                MPI_Ibarrier(ctx->comm, &barrier);
            }
        } else {
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        }
    }
    st->transfer += t1 - t0;
    st->wait += cs_now() - t1;
    xpiece *pc = (xpiece *)(void *)o->piece;
    if (npiece > 1) /* qsort of an empty (NULL) array is undefined */
        qsort(pc, npiece, sizeof *pc, xpiece_cmp);
    const size_t total = staged + o->len[me];
    if (total + 1 > *recv_cap &&
        cs_grow(ctx, recv, recv_cap, total + 1, 1, "exchange receive buffer") != CS_OK)
        exchange_oom(ctx, "receive buffer", total + 1);
    size_t at = 0;
    for (size_t i = 0; i <= npiece; i++) {
        if ((i == npiece || pc[i].src > me) && (i == 0 || pc[i - 1].src < me)) {
            if (o->len[me] > 0) /* the own box, between the lower and the higher ranks' */
                memcpy(*recv + at, o->buf[me], o->len[me]);
            at += o->len[me];
        }
        if (i < npiece) {
            memcpy(*recv + at, o->stage + pc[i].at, (size_t)pc[i].len);
            at += (size_t)pc[i].len;
        }
    }
    *recv_len = at;
}

/* A head message received by the census: its source, its box's length, where it is in the
 * stage and the box bytes it carries. */
typedef struct xhead {
    int64_t src, len, at, n;
} xhead;

static int xhead_cmp(const void *a, const void *b)
{
    const xhead *x = a, *y = b;
    return x->src < y->src ? -1 : x->src > y->src;
}

/* Grows a buffer of the census, or aborts (messages may be under way). */
static void census_grow(cs_ctx *ctx, void *pp, size_t *cap, size_t n, size_t size, const char *what)
{
    if (n > *cap && cs_grow(ctx, pp, cap, n, size, what) != CS_OK)
        exchange_oom(ctx, what, n * size);
}

/*
 * crawl.exchange = census (Hoefler, Siebert and Lumsdaine's personalized census). Sends a head
 * to each rank with records: the box's length (8 bytes) and its first o->head_max bytes; the
 * rest of a longer box follows in pieces of at most o->chunk bytes under a second tag (MPI
 * keeps one source's order within a tag). One MPI_Reduce_scatter of a flag per destination
 * gives every rank the number of heads coming to it; it receives them from any source, lays the
 * boxes out in rank order (its own at its place), copies the heads' bytes and receives the
 * rests into place. Every wait is blocking: no probing loop. Tags alternate between consecutive
 * exchanges as in the sparse method: a rank leaves the census only after every rank entered
 * it, so a fast rank is at most one exchange ahead.
 */
static void exchange_census(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap,
                            size_t *recv_len, cs_exchange_stats *st)
{
    const int P = ctx->size, me = ctx->rank;
    const int htag = CTAG + 4 * o->channel + o->epoch, dtag = htag + 2;
    o->epoch ^= 1;
    const size_t hsz = 8 + o->head_max;
    double t0 = cs_now();
    size_t nd = 0, nreq = 0;
    for (int r = 0; r < P; r++) {
        const size_t len = r == me ? 0 : o->len[r];
        o->census[r] = len > 0;
        o->census[P + r] = 1;
        nd += len > 0;
        if (len > o->head_max)
            nreq += (len - o->head_max + o->chunk - 1) / o->chunk;
    }
    nreq += nd;
    census_grow(ctx, &o->head, &o->head_cap, nd * hsz + 1, 1, "head messages");
    census_grow(ctx, &o->req, &o->req_cap, nreq + 1, sizeof *o->req, "exchange requests");
    size_t k = 0, h = 0;
    for (int r = 0; r < P; r++) {
        const size_t len = r == me ? 0 : o->len[r];
        if (len == 0)
            continue;
        const uint64_t l64 = len;
        const size_t n = len < o->head_max ? len : o->head_max;
        char *hb = o->head + h++ * hsz;
        memcpy(hb, &l64, 8);
        memcpy(hb + 8, o->buf[r], n);
        MPI_Isend(hb, (int)(8 + n), MPI_BYTE, r, htag, ctx->comm, &o->req[k++]);
        for (size_t at = n; at < len; at += o->chunk) {
            const size_t m = len - at < o->chunk ? len - at : o->chunk;
            MPI_Isend(o->buf[r] + at, (int)m, MPI_BYTE, r, dtag, ctx->comm, &o->req[k++]);
        }
        st->bytes_sent += (int64_t)len;
        st->messages_sent++;
    }
    const size_t nsend = k;
    int nin = 0;
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)P * (int64_t)sizeof(int));
    MPI_Reduce_scatter(o->census, &nin, o->census + P, MPI_INT, MPI_SUM, ctx->comm);
    double t1 = cs_now();
    /* the heads, from any source: the stage holds them, the piece list their statuses */
    census_grow(ctx, &o->stage, &o->stage_cap, (size_t)nin * hsz + 1, 1, "head messages");
    census_grow(ctx, &o->piece, &o->piece_cap,
                (size_t)nin * (sizeof(MPI_Status) + sizeof(xhead)) + 1, 1, "head messages");
    census_grow(ctx, &o->req, &o->req_cap, nsend + (size_t)nin + 1, sizeof *o->req,
                "exchange requests");
    xhead *hd = (xhead *)(void *)o->piece;
    MPI_Status *stat = (MPI_Status *)(void *)(o->piece + (size_t)nin * sizeof(xhead));
    for (int i = 0; i < nin; i++)
        MPI_Irecv(o->stage + (size_t)i * hsz, (int)hsz, MPI_BYTE, MPI_ANY_SOURCE, htag, ctx->comm,
                  &o->req[nsend + (size_t)i]);
    MPI_Waitall(nin, o->req + nsend, stat);
    size_t total = o->len[me];
    for (int i = 0; i < nin; i++) {
        int count = 0;
        uint64_t l64 = 0;
        MPI_Get_count(&stat[i], MPI_BYTE, &count);
        memcpy(&l64, o->stage + (size_t)i * hsz, 8);
        hd[i] =
            (xhead){stat[i].MPI_SOURCE, (int64_t)l64, (int64_t)((size_t)i * hsz + 8), count - 8};
        total += (size_t)l64;
    }
    if (nin > 1)
        qsort(hd, (size_t)nin, sizeof *hd, xhead_cmp);
    census_grow(ctx, recv, recv_cap, total + 1, 1, "exchange receive buffer");
    /* rank order, the own box at its place; the rests received into place */
    size_t nrest = 0;
    for (int i = 0; i < nin; i++)
        if (hd[i].len > hd[i].n)
            nrest += ((size_t)(hd[i].len - hd[i].n) + o->chunk - 1) / o->chunk;
    census_grow(ctx, &o->req, &o->req_cap, nsend + nrest + 1, sizeof *o->req, "exchange requests");
    size_t at = 0, kr = nsend;
    for (int i = 0; i <= nin; i++) {
        if ((i == nin || hd[i].src > me) && (i == 0 || hd[i - 1].src < me)) {
            if (o->len[me] > 0)
                memcpy(*recv + at, o->buf[me], o->len[me]);
            at += o->len[me];
        }
        if (i == nin)
            break;
        memcpy(*recv + at, o->stage + hd[i].at, (size_t)hd[i].n);
        for (size_t b = (size_t)hd[i].n; b < (size_t)hd[i].len; b += o->chunk) {
            const size_t m = (size_t)hd[i].len - b < o->chunk ? (size_t)hd[i].len - b : o->chunk;
            MPI_Irecv(*recv + at + b, (int)m, MPI_BYTE, (int)hd[i].src, dtag, ctx->comm,
                      &o->req[kr++]);
        }
        at += (size_t)hd[i].len;
    }
    MPI_Waitall((int)kr, o->req, MPI_STATUSES_IGNORE);
    st->wait += t1 - t0;
    st->transfer += cs_now() - t1;
    *recv_len = at;
}

cs_err cs_comm_exchange(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap, size_t *recv_len,
                        cs_exchange_stats *st)
{
    cs_err rc = CS_OK;
    if (ctx->size == 1) { /* one rank (or a local context): its own box, copied */
        if (o->len[0] + 1 > *recv_cap)
            rc = cs_grow(ctx, recv, recv_cap, o->len[0] + 1, 1, "exchange receive buffer");
        if (rc == CS_OK && o->len[0] > 0)
            memcpy(*recv, o->buf[0], o->len[0]);
        *recv_len = rc == CS_OK ? o->len[0] : 0;
    } else if (o->method == CS_EXCHANGE_ALLTOALLV) {
        rc = exchange_dense(ctx, o, recv, recv_cap, recv_len, st);
    } else if (o->method == CS_EXCHANGE_CENSUS) {
        exchange_census(ctx, o, recv, recv_cap, recv_len, st);
    } else if (o->method == CS_EXCHANGE_NODE) {
        rc = cs_hier_exchange(ctx, o, recv, recv_cap, recv_len, st);
    } else {
        exchange_sparse(ctx, o, recv, recv_cap, recv_len, st);
    }
    if (rc == CS_OK)
        cs_outbox_clear(o);
    return rc;
}

cs_err cs_comm_average(cs_ctx *ctx, double *w, int64_t n, double **scratch, size_t *scratch_cap)
{
    cs_err rc = CS_OK;
    const int P = ctx->size;
    if ((double)n * P > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "weight averaging: %lld weights x %d ranks is too many",
                     (long long)n, P);
    if (rc == CS_OK && (size_t)n * (size_t)P > *scratch_cap)
        rc = cs_grow(ctx, scratch, scratch_cap, (size_t)n * (size_t)P, sizeof **scratch,
                     "weight averaging buffer");
    CS_TRY_AGREE(ctx, rc);
    if (P == 1)
        return CS_OK;
    double *all = *scratch;
    cs_ctx_count(ctx, CS_COLL_ALLGATHER, n * (int64_t)sizeof(double));
    MPI_Allgather(w, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, ctx->comm);
    const double inv = 1.0 / P;
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int r = 0; r < P; r++)
            s += all[(size_t)r * (size_t)n + (size_t)i];
        w[i] = s * inv;
    }
fail:
    return rc;
}

/* Keys >= t among keys[0..n), sorted decreasingly: binary search. */
static int64_t count_ge(const uint64_t *keys, int64_t n, uint64_t t)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] >= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void cs_comm_topk(cs_ctx *ctx, const uint64_t *keys, int64_t n, int64_t k, int64_t *take)
{
    CS_ASSERT(cs_comm_topk_ex(ctx, CS_OK, keys, n, k, 0, take, NULL, NULL) == CS_OK);
}

cs_err cs_comm_topk_ex(cs_ctx *ctx, cs_err local, const uint64_t *keys, int64_t n, int64_t k,
                       int ask, int64_t *take, int *full, uint64_t *cut)
{
    *take = 0;
    if (full != NULL)
        *full = 0;
    if (cut != NULL)
        *cut = UINT64_MAX;
    if (local != CS_OK)
        n = 0;
    /* the first round: the count, how many ranks ask and how many of them have no keys (all
     * taken whatever the cut), the largest key, the smallest one (as the largest complement)
     * and the largest smallest key of the asking ranks (all taken iff it is >= the cut) */
    int64_t sums[3] = {n, ask != 0, ask && n == 0};
    uint64_t mx[3] = {n > 0 ? keys[0] : 0, n > 0 ? ~keys[n - 1] : 0,
                      ask && n > 0 ? keys[n - 1] : 0};
    const cs_err rc = cs_allreduce_fused(ctx, local, sums, 3, mx, 3, NULL, 0);
    if (rc != CS_OK)
        return rc;
    const int64_t total = sums[0];
    if (total <= k || k <= 0) {
        *take = k <= 0 ? 0 : n;
        if (full != NULL)
            *full = k <= 0 ? sums[2] > 0 : sums[1] > 0;
        if (cut != NULL && k > 0)
            *cut = 0;
        return CS_OK;
    }
    /* The largest t with count(keys >= t) >= k is the k-th largest key. Every key lies in
     * [lo, hi] (two keys at least, unique: hi > lo), so t shares their common high bits: the
     * search sets the bits below them 8 at a time from the top, each round one allreduce of the
     * 255 counts of keys >= t | v << shift (v = 1..255; the rounds are bound by the allreduce's
     * latency, not by its 2 KiB). It stops as soon as count(keys >= t) is exactly k: no key lies
     * between t and the k-th largest then, so the same keys are taken. */
    const uint64_t hi = mx[0], lo = ~mx[1];
    CS_ASSERT(hi > lo);
    int bit = 63 - __builtin_clzll(hi ^ lo); /* the highest bit still to set */
    uint64_t t = bit == 63 ? 0 : lo & ~((UINT64_C(2) << bit) - 1);
    int64_t at_t = total; /* count(keys >= t) */
    while (at_t != k && bit >= 0) {
        const int w = bit + 1 < 8 ? bit + 1 : 8, shift = bit + 1 - w;
        const int nv = (1 << w) - 1;
        int64_t c[255];
        for (int v = 1; v <= nv; v++)
            c[v - 1] = count_ge(keys, n, t | ((uint64_t)v << shift));
        cs_allreduce(ctx, NULL, c, nv, CS_T_I64, CS_OP_SUM); /* a local context: as one rank */
        int best = 0; /* counts fall as v grows: the largest v whose count is still >= k */
        for (int v = 1; v <= nv; v++)
            if (c[v - 1] >= k)
                best = v;
        t |= (uint64_t)best << shift;
        if (best > 0)
            at_t = c[best - 1];
        bit = shift - 1;
    }
    *take = count_ge(keys, n, t);
    if (full != NULL)
        *full = sums[2] > 0 || (sums[1] > sums[2] && mx[2] >= t);
    if (cut != NULL)
        *cut = t;
    return CS_OK;
}

/* GCC and Clang's 128-bit integers, for exact proportional shares of B * demand. */
__extension__ typedef __int128 i128;

int64_t cs_comm_split_fixed(int64_t B, int rank, int size)
{
    return B / size + (rank < B % size);
}

int64_t cs_comm_split(cs_ctx *ctx, int64_t B, int64_t demand)
{
    const int P = ctx->size;
    int64_t *d = malloc((size_t)P * 2 * sizeof *d);
    CS_ASSERT(d != NULL);
    cs_ctx_count(ctx, CS_COLL_ALLGATHER, (int64_t)sizeof demand);
    MPI_Allgather(&demand, 1, MPI_INT64_T, d, 1, MPI_INT64_T, ctx->comm);
    int64_t sum = 0;
    for (int r = 0; r < P; r++)
        sum += d[r];
    int64_t mine;
    if (sum == 0) {
        mine = cs_comm_split_fixed(B, ctx->rank, P);
    } else {
        /* floor shares, then the remainder to the largest fractional parts (ties: lower rank);
         * exact integer arithmetic in 128 bits */
        int64_t *rem = d + P, given = 0;
        for (int r = 0; r < P; r++) {
            i128 num = (i128)B * d[r];
            int64_t fl = (int64_t)(num / sum);
            rem[r] = (int64_t)(num % sum);
            given += fl;
            d[r] = fl;
        }
        int64_t left = B - given;
        while (left > 0) {
            int best = -1;
            for (int r = 0; r < P; r++)
                if (rem[r] >= 0 && (best < 0 || rem[r] > rem[best]))
                    best = r;
            d[best]++;
            rem[best] = -1;
            left--;
        }
        mine = d[ctx->rank];
    }
    free(d);
    return mine;
}
