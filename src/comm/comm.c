/*
 * comm: outbox exchange, fixed-order weight averaging, the exact distributed top-k and budget
 * splits (see comm.h).
 */
#include "crawlsim/comm.h"

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
    return CS_OK;
fail:
    cs_outbox_fini(o);
    return rc;
}

void cs_outbox_fini(cs_outbox *o)
{
    if (o->buf != NULL)
        for (int r = 0; r < o->nranks; r++)
            free(o->buf[r]);
    free(o->buf);
    free(o->len);
    free(o->cap);
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

cs_err cs_comm_exchange(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap, size_t *recv_len,
                        cs_exchange_stats *st)
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
    cs_outbox_clear(o);
fail:
    free(sendbuf);
    free(sc);
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
    int64_t total = 0;
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)sizeof n);
    MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, ctx->comm);
    if (total <= k) {
        *take = n;
        return;
    }
    if (k <= 0) {
        *take = 0;
        return;
    }
    /* The largest t with count(keys >= t) >= k is the k-th largest key: set it a byte at a time
     * from the top, each round one allreduce of the 255 counts of keys >= t | v << shift
     * (v = 1..255): 8 rounds instead of 64 one-bit rounds, since the rounds are bound by the
     * allreduce's latency, not by its 2 KiB. */
    uint64_t t = 0;
    for (int shift = 56; shift >= 0; shift -= 8) {
        int64_t c[255], cg[255];
        for (int v = 1; v < 256; v++)
            c[v - 1] = count_ge(keys, n, t | ((uint64_t)v << shift));
        cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)sizeof c);
        MPI_Allreduce(c, cg, 255, MPI_INT64_T, MPI_SUM, ctx->comm);
        int best = 0; /* counts fall as v grows: the largest v whose count is still >= k */
        for (int v = 1; v < 256; v++)
            if (cg[v - 1] >= k)
                best = v;
        t |= (uint64_t)best << shift;
    }
    *take = count_ge(keys, n, t);
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
