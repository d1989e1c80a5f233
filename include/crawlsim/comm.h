/*
 * comm: the few global operations of a run (DESIGN.md "One rank, one tick"): the outbox
 * exchange, weight averaging, the exact global top-B, budget splits. Policies never call MPI:
 * they ask comm.
 *
 * Every function here is Collective(ctx->comm) and runs the same collectives on every rank
 * every time, whatever the rank's data (an empty frontier, nothing to send): no rank may skip
 * one. Decisions depend only on integer reductions or on fixed-order floating-point sums
 * (STYLE.md), so every rank takes the same branch.
 */
#ifndef CRAWLSIM_COMM_H
#define CRAWLSIM_COMM_H

#include "crawlsim/core.h"

#include <stdint.h>

/*
 * Typed collectives: the MPI operations other modules need, so that MPI is reached only through
 * comm and core (docs/developer/architecture.md "Modules"). Each is one MPI call on ctx->comm
 * with the same semantics: Collective, every rank calls it with the same n, type and op
 * (counts and displacements as MPI's, in elements). in == out, or in == NULL, is in place.
 * They return CS_OK, or CS_ERR_MPI when MPI reports an error (only with an error handler that
 * returns; the default one aborts the job).
 */
typedef enum cs_dtype {
    CS_T_INT,  /* int */
    CS_T_LONG, /* long */
    CS_T_U8,
    CS_T_I32,
    CS_T_I64,
    CS_T_U64,
    CS_T_F32,
    CS_T_F64,
    CS_T_CHAR, /* char (text) */
    CS_T_BYTE
} cs_dtype;
typedef enum cs_op { CS_OP_SUM, CS_OP_MIN, CS_OP_MAX, CS_OP_BOR, CS_OP_LOR } cs_op;

CS_API cs_err cs_allreduce(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t, cs_op op);
/* out: the sum of in over the ranks before this one (rank 0: zeros). */
CS_API cs_err cs_exscan_sum(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t);
CS_API cs_err cs_bcast(cs_ctx *ctx, void *buf, int64_t n, cs_dtype t, int root);
/* out: n elements of every rank, in rank order. */
CS_API cs_err cs_allgather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t);
/* out: counts[r] elements of rank r at displs[r]; in == NULL: this rank's are already there. */
CS_API cs_err cs_allgatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts,
                            const int *displs, cs_dtype t);
/* On root only, out: n elements of every rank (rank order), or counts/displs as above. */
CS_API cs_err cs_gather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t, int root);
CS_API cs_err cs_gatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts,
                         const int *displs, cs_dtype t, int root);
/* On every rank, out: the sum over ranks of in[displs[rank] .. + counts[rank]) (counts per rank,
 * their displacements implied: in holds the sum of the counts). */
CS_API cs_err cs_reduce_scatter_sum(cs_ctx *ctx, const void *in, void *out, const int *counts,
                                    cs_dtype t);
/* Personalised exchanges: n elements to every rank, or counts/displacements per rank. */
CS_API cs_err cs_alltoall(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t);
CS_API cs_err cs_alltoallv(cs_ctx *ctx, const void *in, const int *scounts, const int *sdispls,
                           void *out, const int *rcounts, const int *rdispls, cs_dtype t);
/* From root: counts[r] elements at displs[r] of in to rank r's out (n = its count). */
CS_API cs_err cs_scatterv(cs_ctx *ctx, const void *in, const int *counts, const int *displs,
                          void *out, int n, cs_dtype t, int root);
CS_API cs_err cs_barrier(cs_ctx *ctx);

/* Growable byte buffers, one per destination rank. */
typedef struct cs_outbox {
    int nranks;
    char **buf;
    size_t *len, *cap;
} cs_outbox;

CS_API cs_err cs_outbox_init(cs_ctx *ctx, cs_outbox *o, int nranks);
CS_API void cs_outbox_fini(cs_outbox *o);
/* Local. Appends `bytes` bytes to the box of rank `to`. */
CS_API cs_err cs_outbox_put(cs_ctx *ctx, cs_outbox *o, int to, const void *data, size_t bytes);
/* Local. Room for `bytes` more bytes in the box of rank `to` (o->buf[to] + o->len[to] onwards),
 * so that a caller that counted its records first can copy them in without further checks. */
CS_API cs_err cs_outbox_reserve(cs_ctx *ctx, cs_outbox *o, int to, size_t bytes);
CS_API void cs_outbox_clear(cs_outbox *o);
/* Local. Bytes waiting in all boxes. */
CS_API size_t cs_outbox_bytes(const cs_outbox *o);

/* Phase times of one exchange (seconds): blocked in the count exchange (waiting for the
 * slowest rank) and moving payloads. */
typedef struct cs_exchange_stats {
    double wait, transfer;
    int64_t bytes_sent, messages_sent; /* to other ranks */
} cs_exchange_stats;

/*
 * Collective(ctx->comm). MPI_Alltoall of the byte counts, then MPI_Alltoallv of the payloads.
 * On return *recv (grown with cs_grow, caller-owned) holds *recv_len bytes: the boxes sent to
 * this rank in rank order (its own box included, copied locally). The outbox is cleared.
 * Errors, agreed: CS_ERR_NOMEM, CS_ERR_LIMIT (more than 2 GiB for one rank).
 */
CS_API cs_err cs_comm_exchange(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap,
                               size_t *recv_len, cs_exchange_stats *st);

/*
 * Collective(ctx->comm). Logically collective: n. Replaces w[0..n) by the mean over ranks,
 * summed in rank order (MPI_Allgather, then the same fixed-order sum on every rank), so every
 * rank ends with bit-identical weights. scratch: caller-owned, grown here.
 */
CS_API cs_err cs_comm_average(cs_ctx *ctx, double *w, int64_t n, double **scratch,
                              size_t *scratch_cap);

/*
 * Exact sums of real numbers across ranks (crawl.weight_sync = sum): a term is rounded once to
 * a multiple of 2^-64 (cs_fix_from_double; |x| >= 2^62 and infinities saturate to +-2^62, NaN
 * gives 0) and the terms are then added as 128-bit integers, whose addition is associative. So
 * the same terms give the same bits in any order, on any number of ranks: the sum over all
 * ranks of all their terms is a function of the multiset of terms only.
 */
__extension__ typedef __int128 cs_fix;

/* Local. x rounded to the nearest multiple of 2^-64 (ties to even), saturated as above. */
CS_API cs_fix cs_fix_from_double(double x);

/* Local. The value of v, rounded once to the nearest double. */
CS_API double cs_fix_to_double(cs_fix v);

/* Collective(ctx->comm). Logically collective: n. Replaces a[0..n) by its sum over all ranks
 * (exact: integer addition, wrapping only beyond 2^63 in value). Errors, agreed: CS_ERR_LIMIT
 * (n > 2^31 - 1). */
CS_API cs_err cs_comm_sum_fix(cs_ctx *ctx, cs_fix *a, int64_t n);

/*
 * Collective(ctx->comm). Logically collective: k >= 1. keys[0..n) are this rank's keys in any
 * order (unique across ranks). Returns in *cut the k-th largest key over all ranks (0 when there
 * are at most k keys in total: keep everything), found a byte at a time from the top by 8 rounds of
 * one allreduce of a 256-bucket histogram of the keys that match the prefix so far. The global
 * top-k are exactly the keys >= *cut. O(n) per round.
 */
CS_API void cs_comm_kth_largest(cs_ctx *ctx, const uint64_t *keys, int64_t n, int64_t k,
                                uint64_t *cut);

/*
 * Collective(ctx->comm). Logically collective: k. keys[0..n) are this rank's candidate keys in
 * strictly decreasing order (unique across ranks). Finds the k-th largest key over all ranks
 * by radix search on the key bytes (8 allreduces of 255 integer counts; none when there are at
 * most k keys in total) and returns in *take how many of this rank's keys are >= it: the ranks'
 * first *take keys are exactly the global top-k.
 */
CS_API void cs_comm_topk(cs_ctx *ctx, const uint64_t *keys, int64_t n, int64_t k, int64_t *take);

/*
 * Collective(ctx->comm). Splits the integer budget B over ranks in proportion to the
 * non-negative integer demands (largest remainder, ties to the lower rank; an equal split when
 * all demands are 0) and returns this rank's share. Exact: the shares sum to B.
 */
CS_API int64_t cs_comm_split(cs_ctx *ctx, int64_t B, int64_t demand);

/* Local. The fixed split: B / P, the first B mod P ranks one more. */
CS_API int64_t cs_comm_split_fixed(int64_t B, int rank, int size);

#endif
