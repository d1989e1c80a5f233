/*
 * comm: typed collectives (comm.h), one MPI call each, for the modules that must not call MPI
 * themselves.
 */
#include "crawlsim/comm.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static MPI_Datatype mpi_type(cs_dtype t)
{
    switch (t) {
    case CS_T_INT:
        return MPI_INT;
    case CS_T_LONG:
        return MPI_LONG;
    case CS_T_F32:
        return MPI_FLOAT;
    case CS_T_CHAR:
        return MPI_CHAR;
    case CS_T_U8:
        return MPI_UINT8_T;
    case CS_T_I32:
        return MPI_INT32_T;
    case CS_T_I64:
        return MPI_INT64_T;
    case CS_T_U64:
        return MPI_UINT64_T;
    case CS_T_F64:
        return MPI_DOUBLE;
    case CS_T_BYTE:
        return MPI_BYTE;
    }
    CS_ASSERT(0 && "unknown cs_dtype");
    return MPI_DATATYPE_NULL;
}

static MPI_Op mpi_op(cs_op op)
{
    switch (op) {
    case CS_OP_SUM:
        return MPI_SUM;
    case CS_OP_MIN:
        return MPI_MIN;
    case CS_OP_MAX:
        return MPI_MAX;
    case CS_OP_BOR:
        return MPI_BOR;
    case CS_OP_LOR:
        return MPI_LOR;
    }
    CS_ASSERT(0 && "unknown cs_op");
    return MPI_OP_NULL;
}

static size_t type_size(cs_dtype t)
{
    switch (t) {
    case CS_T_INT:
        return sizeof(int);
    case CS_T_LONG:
        return sizeof(long);
    case CS_T_I32:
    case CS_T_F32:
        return 4;
    case CS_T_I64:
    case CS_T_U64:
    case CS_T_F64:
        return 8;
    case CS_T_CHAR:
    case CS_T_U8:
    case CS_T_BYTE:
        return 1;
    }
    return 0;
}

/* MPI counts are int: a larger one is a programming error here (callers check their limits). */
static int count(int64_t n)
{
    CS_ASSERT(n >= 0 && n <= INT32_MAX);
    return (int)n;
}

/* An MPI error of a collective aborts the job (comm.h: the typed collectives cannot fail). */
#define MPI_CHECK(call)                                                                            \
    ((call) == MPI_SUCCESS ? (void)0 : cs_assert_fail(__FILE__, __LINE__, #call))

/* A local context: the one rank's result is its own data. */
#define LOCAL(ctx) ((ctx)->comm == MPI_COMM_NULL)
static void local_copy(const void *in, void *out, int64_t n, cs_dtype t)
{
    if (in != NULL && in != out && n > 0)
        memmove(out, in, (size_t)n * type_size(t));
}

void cs_allreduce(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t, cs_op op)
{
    if (LOCAL(ctx)) {
        local_copy(in, out, n, t);
        return;
    }
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Allreduce(in == NULL || in == out ? MPI_IN_PLACE : in, out, count(n), mpi_type(t),
                            mpi_op(op), ctx->comm));
}

/* b[0..n) += a[0..n), elements of type t (integers wrap as two's complement; memcpy: the
 * buffers need not be aligned). */
static void add_into(const char *a, char *b, int64_t n, cs_dtype t)
{
    const size_t w = type_size(t);
    for (int64_t i = 0; i < n; i++) {
        const char *x = a + (size_t)i * w;
        char *y = b + (size_t)i * w;
        if (t == CS_T_F32) {
            float u, v;
            memcpy(&u, x, 4);
            memcpy(&v, y, 4);
            v += u;
            memcpy(y, &v, 4);
        } else if (t == CS_T_F64) {
            double u, v;
            memcpy(&u, x, 8);
            memcpy(&v, y, 8);
            v += u;
            memcpy(y, &v, 8);
        } else { /* integers of w bytes, little or big endian alike through uint64_t */
            uint64_t u = 0, v = 0;
            if (w == 8) {
                memcpy(&u, x, 8);
                memcpy(&v, y, 8);
                v += u;
                memcpy(y, &v, 8);
            } else if (w == 4) {
                uint32_t u4, v4;
                memcpy(&u4, x, 4);
                memcpy(&v4, y, 4);
                v4 += u4;
                memcpy(y, &v4, 4);
            } else {
                CS_ASSERT(w == 1);
                *(unsigned char *)y =
                    (unsigned char)(*(const unsigned char *)y + *(const unsigned char *)x);
            }
        }
    }
}

/* The point-to-point tag of cs_exscan_sum (the exchange's are 0x5c0 to 0x5c5, comm.c). */
enum { EXSCAN_TAG = 0x5d0 };

/*
 * Recursive doubling, log2 P rounds of one MPI_Sendrecv each: in round k a rank swaps its
 * partial sum (of its aligned block of 2^k ranks) with the rank whose number differs in bit k;
 * a partner below it adds to its result. Not MPI_Exscan: SimGrid's SMPI plays that as every
 * rank sending to every higher rank, P (P - 1) / 2 messages at once, the largest cost of a
 * simulated set-up at 128 ranks (docs/guide/simulated-cluster.md). Integer sums are exact in
 * any order, so the result is MPI_Exscan's.
 */
void cs_exscan_sum(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t)
{
    const size_t bytes = (size_t)n * type_size(t);
    memset(out, 0, bytes);
    if (LOCAL(ctx) || ctx->size == 1 || n == 0)
        return;
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, n * (int64_t)type_size(t));
    char *part = malloc(2 * bytes), *tmp = part + bytes;
    CS_ASSERT(part != NULL);
    memcpy(part, in, bytes);
    const int me = ctx->rank, P = ctx->size;
    for (int mask = 1; mask < P; mask <<= 1) {
        const int partner = me ^ mask;
        if (partner >= P)
            continue;
        MPI_CHECK(MPI_Sendrecv(part, count((int64_t)bytes), MPI_BYTE, partner, EXSCAN_TAG, tmp,
                               count((int64_t)bytes), MPI_BYTE, partner, EXSCAN_TAG, ctx->comm,
                               MPI_STATUS_IGNORE));
        if (partner < me)
            add_into(tmp, out, n, t);
        add_into(tmp, part, n, t);
    }
    free(part);
}

void cs_bcast(cs_ctx *ctx, void *buf, int64_t n, cs_dtype t, int root)
{
    if (LOCAL(ctx))
        return;
    cs_ctx_count(ctx, CS_COLL_ROOTED, ctx->rank == root ? n * (int64_t)type_size(t) : 0);
    MPI_CHECK(MPI_Bcast(buf, count(n), mpi_type(t), root, ctx->comm));
}

void cs_allgather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t)
{
    if (LOCAL(ctx)) {
        local_copy(in, out, n, t);
        return;
    }
    cs_ctx_count(ctx, CS_COLL_ALLGATHER, (int64_t)n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Allgather(in, n, mpi_type(t), out, n, mpi_type(t), ctx->comm));
}

void cs_allgatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts,
                   const int *displs, cs_dtype t)
{
    if (LOCAL(ctx)) {
        local_copy(in, (char *)out + (size_t)displs[0] * type_size(t), n, t);
        return;
    }
    cs_ctx_count(ctx, CS_COLL_ALLGATHER,
                 (int64_t)(in == NULL ? counts[ctx->rank] : n) * (int64_t)type_size(t));
    if (in == NULL)
        MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs,
                                 mpi_type(t), ctx->comm));
    else
        MPI_CHECK(MPI_Allgatherv(in, n, mpi_type(t), out, counts, displs, mpi_type(t), ctx->comm));
}

void cs_gather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t, int root)
{
    if (LOCAL(ctx)) {
        local_copy(in, out, n, t);
        return;
    }
    cs_ctx_count(ctx, CS_COLL_ROOTED, ctx->rank == root ? 0 : (int64_t)n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Gather(in, n, mpi_type(t), out, n, mpi_type(t), root, ctx->comm));
}

void cs_gatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts, const int *displs,
                cs_dtype t, int root)
{
    if (LOCAL(ctx)) {
        local_copy(in, (char *)out + (size_t)displs[0] * type_size(t), n, t);
        return;
    }
    cs_ctx_count(ctx, CS_COLL_ROOTED, ctx->rank == root ? 0 : (int64_t)n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Gatherv(in, n, mpi_type(t), out, counts, displs, mpi_type(t), root, ctx->comm));
}

void cs_reduce_scatter_sum(cs_ctx *ctx, const void *in, void *out, const int *counts, cs_dtype t)
{
    int64_t n = 0;
    for (int r = 0; r < ctx->size; r++)
        n += counts[r];
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Reduce_scatter(in, out, counts, mpi_type(t), MPI_SUM, ctx->comm));
}

void cs_alltoall(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t)
{
    if (LOCAL(ctx)) {
        local_copy(in, out, n, t);
        return;
    }
    cs_ctx_count(ctx, CS_COLL_ALLTOALL, (int64_t)n * (ctx->size - 1) * (int64_t)type_size(t));
    MPI_CHECK(MPI_Alltoall(in, n, mpi_type(t), out, n, mpi_type(t), ctx->comm));
}

void cs_alltoallv(cs_ctx *ctx, const void *in, const int *scounts, const int *sdispls, void *out,
                  const int *rcounts, const int *rdispls, cs_dtype t)
{
    int64_t n = 0;
    for (int r = 0; r < ctx->size; r++)
        n += r == ctx->rank ? 0 : scounts[r];
    cs_ctx_count(ctx, CS_COLL_ALLTOALL, n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Alltoallv(in, scounts, sdispls, mpi_type(t), out, rcounts, rdispls, mpi_type(t),
                            ctx->comm));
}

void cs_scatterv(cs_ctx *ctx, const void *in, const int *counts, const int *displs, void *out,
                 int n, cs_dtype t, int root)
{
    if (LOCAL(ctx)) {
        local_copy((const char *)in + (size_t)displs[0] * type_size(t), out, counts[0], t);
        return;
    }
    int64_t n_out = 0;
    for (int r = 0; ctx->rank == root && r < ctx->size; r++)
        n_out += r == root ? 0 : counts[r];
    cs_ctx_count(ctx, CS_COLL_ROOTED, n_out * (int64_t)type_size(t));
    MPI_CHECK(MPI_Scatterv(in, counts, displs, mpi_type(t), out, n, mpi_type(t), root, ctx->comm));
}

void cs_barrier(cs_ctx *ctx)
{
    if (LOCAL(ctx))
        return;
    cs_ctx_count(ctx, CS_COLL_BARRIER, 0);
    MPI_CHECK(MPI_Barrier(ctx->comm));
}

void cs_comm_node_allreduce(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t, cs_op op,
                            int *node_ranks)
{
    if (node_ranks != NULL)
        *node_ranks = 1;
    if (LOCAL(ctx)) {
        local_copy(in, out, n, t);
        return;
    }
    MPI_Comm node = MPI_COMM_NULL;
    MPI_CHECK(
        MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node));
    if (node_ranks != NULL)
        MPI_CHECK(MPI_Comm_size(node, node_ranks));
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, n * (int64_t)type_size(t));
    MPI_CHECK(MPI_Allreduce(in == NULL || in == out ? MPI_IN_PLACE : in, out, count(n), mpi_type(t),
                            mpi_op(op), node));
    MPI_CHECK(MPI_Comm_free(&node));
}
