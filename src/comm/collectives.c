/*
 * comm: typed collectives (comm.h), one MPI call each, for the modules that must not call MPI
 * themselves.
 */
#include "crawlsim/comm.h"

#include <mpi.h>
#include <string.h>

static MPI_Datatype mpi_type(cs_dtype t)
{
    switch (t) {
    case CS_T_INT:
        return MPI_INT;
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
    CS_ASSERT(!"unknown cs_dtype");
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
    CS_ASSERT(!"unknown cs_op");
    return MPI_OP_NULL;
}

static size_t type_size(cs_dtype t)
{
    switch (t) {
    case CS_T_INT:
        return sizeof(int);
    case CS_T_I32:
        return 4;
    case CS_T_I64:
    case CS_T_U64:
    case CS_T_F64:
        return 8;
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

void cs_allreduce(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t, cs_op op)
{
    MPI_Allreduce(in == NULL || in == out ? MPI_IN_PLACE : in, out, count(n), mpi_type(t),
                  mpi_op(op), ctx->comm);
}

void cs_exscan_sum(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t)
{
    MPI_Exscan(in, out, count(n), mpi_type(t), MPI_SUM, ctx->comm);
    if (ctx->rank == 0) /* MPI leaves rank 0's result undefined */
        memset(out, 0, (size_t)n * type_size(t));
}

void cs_bcast(cs_ctx *ctx, void *buf, int64_t n, cs_dtype t, int root)
{
    MPI_Bcast(buf, count(n), mpi_type(t), root, ctx->comm);
}

void cs_allgather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t)
{
    MPI_Allgather(in, n, mpi_type(t), out, n, mpi_type(t), ctx->comm);
}

void cs_allgatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts,
                   const int *displs, cs_dtype t)
{
    if (in == NULL)
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, mpi_type(t),
                       ctx->comm);
    else
        MPI_Allgatherv(in, n, mpi_type(t), out, counts, displs, mpi_type(t), ctx->comm);
}

void cs_gather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t, int root)
{
    MPI_Gather(in, n, mpi_type(t), out, n, mpi_type(t), root, ctx->comm);
}

void cs_gatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts, const int *displs,
                cs_dtype t, int root)
{
    MPI_Gatherv(in, n, mpi_type(t), out, counts, displs, mpi_type(t), root, ctx->comm);
}

void cs_barrier(cs_ctx *ctx)
{
    MPI_Barrier(ctx->comm);
}
