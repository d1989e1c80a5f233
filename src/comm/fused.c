/*
 * comm/fused: one allreduce for several small reductions of different kinds (sums, maxima,
 * bitwise ors) and an error agreement. A tick's checks and counters were each a collective of
 * their own, each log P latency rounds on a cluster (docs/developer/architecture.md "One rank,
 * one tick"); fused they cost one.
 */
#include "crawlsim/comm.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* The packed buffer: a header of the section lengths (the same on every rank, so the reduction
 * keeps it), the number of failing ranks, then the sums, the maxima and the ors. */
enum { H_NS, H_NM, H_NB, H_ERR, H_N };

/* MPI_Op over one element of the whole buffer (a contiguous type of count 1: MPI never splits an
 * element, so the header is always there). memcpy: MPI buffers need not be 8-byte aligned. */
static void fused_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    CS_ASSERT(*len == 1);
    uint64_t h[H_N];
    memcpy(h, inout, sizeof h);
    const int64_t ns = (int64_t)h[H_NS], nm = (int64_t)h[H_NM], nb = (int64_t)h[H_NB];
    const unsigned char *a = in;
    unsigned char *b = inout;
    for (int64_t i = H_ERR; i < H_N + ns + nm + nb; i++) {
        uint64_t x, y;
        memcpy(&x, a + (size_t)i * 8, 8);
        memcpy(&y, b + (size_t)i * 8, 8);
        if (i < H_N + ns)
            y += x; /* sums (and the failure count): two's complement, wrapping as int64 would */
        else if (i < H_N + ns + nm)
            y = x > y ? x : y;
        else
            y |= x;
        memcpy(b + (size_t)i * 8, &y, 8);
    }
}

cs_err cs_allreduce_fused(cs_ctx *ctx, cs_err local, int64_t *s, int ns, uint64_t *m, int nm,
                          uint64_t *b, int nb)
{
    if (cs_comm_is_local(ctx) || ctx->size == 1) /* one rank agrees with itself */
        return local;
    CS_ASSERT(ns >= 0 && nm >= 0 && nb >= 0);
    const size_t n = (size_t)H_N + (size_t)ns + (size_t)nm + (size_t)nb;
    CS_ASSERT(n * 8 <= INT32_MAX);
    uint64_t small[64], *buf = n <= 64 ? small : malloc(n * sizeof *buf);
    CS_ASSERT(buf != NULL);
    buf[H_NS] = (uint64_t)ns;
    buf[H_NM] = (uint64_t)nm;
    buf[H_NB] = (uint64_t)nb;
    buf[H_ERR] = local != CS_OK;
    if (ns > 0)
        memcpy(buf + H_N, s, (size_t)ns * 8);
    if (nm > 0)
        memcpy(buf + H_N + ns, m, (size_t)nm * 8);
    if (nb > 0)
        memcpy(buf + H_N + ns + nm, b, (size_t)nb * 8);
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous((int)(n * 8), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(fused_op, 1, &op);
    cs_ctx_count(ctx, CS_COLL_ALLREDUCE, (int64_t)(n * 8));
    const int mrc = MPI_Allreduce(MPI_IN_PLACE, buf, 1, t, op, ctx->comm);
    MPI_Op_free(&op);
    MPI_Type_free(&t);
    if (mrc != MPI_SUCCESS)
        cs_assert_fail(__FILE__, __LINE__, "MPI_Allreduce in cs_allreduce_fused");
    const uint64_t failed = buf[H_ERR];
    if (failed == 0) {
        if (ns > 0)
            memcpy(s, buf + H_N, (size_t)ns * 8);
        if (nm > 0)
            memcpy(m, buf + H_N + ns, (size_t)nm * 8);
        if (nb > 0)
            memcpy(b, buf + H_N + ns + nm, (size_t)nb * 8);
    }
    if (buf != small)
        free(buf);
    /* every rank saw the same count: the error path (cs_agree's code and message) is taken by
     * all ranks or by none */
    return failed == 0 ? CS_OK : cs_agree(ctx, local);
}

/* Whether pair (a[0], a[1]) comes before pair (b[0], b[1]). */
static int pair_less(const uint64_t *a, const uint64_t *b)
{
    return a[0] != b[0] ? a[0] < b[0] : a[1] < b[1];
}

/* MPI_Op over one element of 16k bytes (k in the element's size): the k smallest of the two
 * sorted lists of pairs, sorted. The merge of two sorted lists does not depend on which is
 * which, so the operation commutes. */
static void smallest_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    CS_ASSERT(*len == 1);
    int size = 0;
    MPI_Type_size(*type, &size);
    const size_t k = (size_t)size / 16;
    uint64_t *a = malloc((size_t)size), *b = malloc((size_t)size), *c = malloc((size_t)size);
    CS_ASSERT(a != NULL && b != NULL && c != NULL);
    memcpy(a, in, (size_t)size);
    memcpy(b, inout, (size_t)size);
    size_t i = 0, j = 0;
    for (size_t n = 0; n < k; n++) {
        const uint64_t *take = pair_less(a + 2 * i, b + 2 * j) ? a + 2 * i++ : b + 2 * j++;
        c[2 * n] = take[0];
        c[2 * n + 1] = take[1];
    }
    memcpy(inout, c, (size_t)size);
    free(a);
    free(b);
    free(c);
}

int64_t cs_comm_smallest(cs_ctx *ctx, uint64_t *pairs, int64_t k)
{
    CS_ASSERT(k >= 1 && k <= INT32_MAX / 16);
    if (!cs_comm_is_local(ctx) && ctx->size > 1) {
        MPI_Datatype t;
        MPI_Op op;
        MPI_Type_contiguous((int)(16 * k), MPI_BYTE, &t);
        MPI_Type_commit(&t);
        MPI_Op_create(smallest_op, 1, &op);
        cs_ctx_count(ctx, CS_COLL_ALLREDUCE, 16 * k);
        const int mrc = MPI_Allreduce(MPI_IN_PLACE, pairs, 1, t, op, ctx->comm);
        MPI_Op_free(&op);
        MPI_Type_free(&t);
        if (mrc != MPI_SUCCESS)
            cs_assert_fail(__FILE__, __LINE__, "MPI_Allreduce in cs_comm_smallest");
    }
    int64_t n = 0;
    while (n < k && !(pairs[2 * n] == UINT64_MAX && pairs[2 * n + 1] == UINT64_MAX))
        n++;
    return n;
}
