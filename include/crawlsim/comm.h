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
#include <string.h>

/*
 * Typed collectives: the MPI operations other modules need, so that MPI is reached only through
 * comm and core (docs/developer/architecture.md "Modules"). Each is one MPI call on ctx->comm
 * with the same semantics: Collective, every rank calls it with the same n, type and op
 * (counts and displacements as MPI's, in elements). in == out, or in == NULL, is in place.
 * They cannot fail, so they return nothing: an error that MPI reports for a collective aborts
 * the job ([rank r/size] and the call on stderr, then MPI_Abort), as MPI's default error handler
 * does (crawlsim installs none that returns) and as cs_agree does: a communicator whose
 * collective failed cannot be used to agree on it. On a local context (no communicator: serial
 * tools and unit tests without MPI_Init, cs_comm_is_local) they act as on one rank.
 *
 * The functions of comm that can fail return a cs_err that is the same on every rank (agreed)
 * and must be used: CS_NODISCARD makes the compiler reject a discarded one.
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

CS_API void cs_allreduce(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t, cs_op op);
/* out: the sum of in over the ranks before this one (rank 0: zeros). */
CS_API void cs_exscan_sum(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t);
CS_API void cs_bcast(cs_ctx *ctx, void *buf, int64_t n, cs_dtype t, int root);
/* out: n elements of every rank, in rank order. */
CS_API void cs_allgather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t);
/* out: counts[r] elements of rank r at displs[r]; in == NULL: this rank's are already there. */
CS_API void cs_allgatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts,
                          const int *displs, cs_dtype t);
/* On root only, out: n elements of every rank (rank order), or counts/displs as above. */
CS_API void cs_gather(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t, int root);
CS_API void cs_gatherv(cs_ctx *ctx, const void *in, int n, void *out, const int *counts,
                       const int *displs, cs_dtype t, int root);
/* On every rank, out: the sum over ranks of in[displs[rank] .. + counts[rank]) (counts per rank,
 * their displacements implied: in holds the sum of the counts). */
CS_API void cs_reduce_scatter_sum(cs_ctx *ctx, const void *in, void *out, const int *counts,
                                  cs_dtype t);
/* Personalised exchanges: n elements to every rank, or counts/displacements per rank. */
CS_API void cs_alltoall(cs_ctx *ctx, const void *in, int n, void *out, cs_dtype t);
CS_API void cs_alltoallv(cs_ctx *ctx, const void *in, const int *scounts, const int *sdispls,
                         void *out, const int *rcounts, const int *rdispls, cs_dtype t);
/* From root: counts[r] elements at displs[r] of in to rank r's out (n = its count). */
CS_API void cs_scatterv(cs_ctx *ctx, const void *in, const int *counts, const int *displs,
                        void *out, int n, cs_dtype t, int root);
CS_API void cs_barrier(cs_ctx *ctx);
/* The reduction of in over the ranks of ctx->comm on this rank's shared-memory node
 * (MPI_COMM_TYPE_SHARED, whatever CRAWLSIM_SHARED says), into out; *node_ranks (may be NULL):
 * their number. Collective(ctx->comm); logically collective: n, t, op. */
CS_API void cs_comm_node_allreduce(cs_ctx *ctx, const void *in, void *out, int64_t n, cs_dtype t,
                                   cs_op op, int *node_ranks);

/* crawl.exchange: how cs_comm_exchange moves the outboxes. */
typedef enum cs_exchange_method {
    /* Hoefler, Siebert and Lumsdaine's non-blocking consensus (NBX, PPoPP 2010): a synchronous
     * send to each rank with records, receives as they come, a non-blocking barrier entered
     * once this rank's sends are matched. Messages only where there are records; no count
     * exchange. */
    CS_EXCHANGE_SPARSE = 0,
    /* MPI_Alltoall of the counts, then MPI_Alltoallv: P - 1 messages per rank per exchange. */
    CS_EXCHANGE_ALLTOALLV = 1,
    /* A census of the senders (Hoefler, Siebert and Lumsdaine's personalized census, PCX):
     * each rank sends a head message (the box's length and its first o->head_max bytes, the
     * rest after it) to each rank with records, one MPI_Reduce_scatter tells every rank how
     * many heads come to it, it receives them from any source, then the rests. Messages only
     * where there are records, as the sparse method, and no polling: every wait is a blocking
     * one (what a simulator plays cheaply; docs/guide/simulated-cluster.md). */
    CS_EXCHANGE_CENSUS = 2,
    /* Two levels (node-aware aggregation): the ranks of a node (MPI_Comm_split_type shared)
     * gather their boxes for other ranks at the node's first rank, its leader; the leaders
     * exchange one message per destination node (a census among the leaders), and each leader
     * scatters what came for its node to its ranks. Inter-node messages per exchange: at most
     * nodes x (nodes - 1), whatever the ranks per node (comm/hier.c). */
    CS_EXCHANGE_NODE = 3
} cs_exchange_method;

/* The node method's communicators and scratch (comm/hier.c), made at its first exchange. */
struct cs_hier;

/* Growable byte buffers, one per destination rank, and the exchange's own scratch. */
typedef struct cs_outbox {
    int nranks;
    char **buf;
    size_t *len, *cap;
    int method;   /* cs_exchange_method: CS_EXCHANGE_SPARSE after cs_outbox_init */
    size_t chunk; /* sparse: the largest message in bytes; a longer box goes as several */
    int epoch;    /* sparse: consecutive exchanges alternate between two tags */
    int channel;  /* 0 or 1: outboxes exchanged with no collective between use different ones */
    MPI_Request *req;
    size_t req_cap;
    char *stage; /* sparse: messages as they arrive */
    size_t stage_cap;
    char *piece; /* sparse: where each message is in the stage */
    size_t piece_cap;
    size_t head_max; /* census: the box bytes a head message carries (the rest follows it) */
    char *head;      /* census: the head messages sent */
    size_t head_cap;
    int *census;          /* census: 2 x nranks: a flag per destination, then ones (the counts) */
    struct cs_hier *hier; /* node: NULL until its first exchange */
} cs_outbox;

CS_API CS_NODISCARD cs_err cs_outbox_init(cs_ctx *ctx, cs_outbox *o, int nranks);
CS_API void cs_outbox_fini(cs_outbox *o);
/* Local. Appends `bytes` bytes to the box of rank `to`. */
CS_API CS_NODISCARD cs_err cs_outbox_put(cs_ctx *ctx, cs_outbox *o, int to, const void *data,
                                         size_t bytes);
/* Local. Room for `bytes` more bytes in the box of rank `to` (o->buf[to] + o->len[to] onwards),
 * so that a caller that counted its records first can copy them in without further checks. */
CS_API CS_NODISCARD cs_err cs_outbox_reserve(cs_ctx *ctx, cs_outbox *o, int to, size_t bytes);
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
 * Collective(ctx->comm). Moves every box to its rank by o->method (cs_exchange_method). On
 * return *recv (grown with cs_grow, caller-owned) holds *recv_len bytes: the boxes sent to
 * this rank in rank order (its own box included, copied locally), the same bytes by either
 * method. The outbox is cleared.
 * Errors, agreed: CS_ERR_NOMEM, and with alltoallv CS_ERR_LIMIT (more than 2 GiB for one
 * rank; the sparse and census methods send a box in pieces of o->chunk bytes and have no such
 * limit). The sparse and census methods cannot agree on a failure to allocate their buffers
 * once messages are under way (their senders wait for them): they abort the job with the
 * message.
 */
CS_API CS_NODISCARD cs_err cs_comm_exchange(cs_ctx *ctx, cs_outbox *o, char **recv,
                                            size_t *recv_cap, size_t *recv_len,
                                            cs_exchange_stats *st);

/*
 * Collective(ctx->comm). Logically collective: n. Replaces w[0..n) by the mean over ranks,
 * summed in rank order (MPI_Allgather, then the same fixed-order sum on every rank), so every
 * rank ends with bit-identical weights. scratch: caller-owned, grown here.
 */
CS_API CS_NODISCARD cs_err cs_comm_average(cs_ctx *ctx, double *w, int64_t n, double **scratch,
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
CS_API CS_NODISCARD cs_err cs_comm_sum_fix(cs_ctx *ctx, cs_fix *a, int64_t n);

/*
 * Collective(ctx->comm). One allreduce of up to three sections, in place: the sums of s[0..ns),
 * the maxima of m[0..nm) and the bitwise ors of b[0..nb) over all ranks (NULL for an empty
 * section; ns, nm and nb the same on every rank), together with the agreement on `local`, this
 * rank's code of its last locally fallible step: fused, the checks and counters of a tick that
 * would each be a collective (and log P latency rounds) are one. Returns CS_OK, or on every rank
 * the agreed error (cs_agree's: the lowest failing rank's code and message; a second collective,
 * on the error path only), the sections then undefined. Maxima of non-negative doubles may travel
 * as their bits (the order of such doubles is that of their bit patterns).
 */
CS_API CS_NODISCARD cs_err cs_allreduce_fused(cs_ctx *ctx, cs_err local, int64_t *s, int ns,
                                              uint64_t *m, int nm, uint64_t *b, int nb);

/*
 * Collective(ctx->comm). Logically collective: k >= 1. keys[0..n) are this rank's keys in any
 * order (unique across ranks). Returns in *cut a key such that the keys >= *cut over all ranks
 * are exactly the global top-k (0 when there are at most k keys in total: keep everything); it
 * lies in (the (k+1)-th largest key, the k-th largest]. The search: one fused allreduce of the
 * count, the largest and the smallest key (their common high bits are the prefix), then a round
 * of one allreduce of a 256-bucket histogram per 8 bits below it of the keys that match the
 * prefix so far, until the bucket of the k-th largest key ends with it (typically a few rounds;
 * at most 8). local: this rank's code of its last step, agreed in the first allreduce (as
 * cs_allreduce_fused; on an error *cut is 0). O(n) per round.
 */
CS_API CS_NODISCARD cs_err cs_comm_kth_largest(cs_ctx *ctx, cs_err local, const uint64_t *keys,
                                               int64_t n, int64_t k, uint64_t *cut);

/* Local. h[b] for b < nb: how many of the caller's keys have the bits above `shift` equal to
 * (prefix >> shift) + b (prefix has no bit set below shift + log2(nb)). */
typedef void (*cs_comm_hist_fn)(const void *arg, uint64_t prefix, int shift, int nb, int64_t *h);

/*
 * Collective(ctx->comm). Logically collective: k >= 1. cs_comm_kth_largest on keys this rank
 * holds in an ordered structure: n keys, the smallest kmin and the largest kmax (ignored when n
 * is 0), and hist(arg, ...) counting them per bucket of a round. The same collectives with the
 * same contents as cs_comm_kth_largest over the same keys, so the same *cut; no pass over the
 * keys (O(nb) hist queries a round).
 */
CS_API CS_NODISCARD cs_err cs_comm_kth_largest_hist(cs_ctx *ctx, cs_err local, int64_t n,
                                                    uint64_t kmin, uint64_t kmax,
                                                    cs_comm_hist_fn hist, const void *arg,
                                                    int64_t k, uint64_t *cut);

/*
 * Collective(ctx->comm). Logically collective: k. keys[0..n) are this rank's candidate keys in
 * strictly decreasing order (unique across ranks). Finds the k-th largest key over all ranks
 * and returns in *take how many of this rank's keys are >= it: the ranks' first *take keys are
 * exactly the global top-k. As cs_comm_topk_ex without its fused agreement and question.
 */
CS_API void cs_comm_topk(cs_ctx *ctx, const uint64_t *keys, int64_t n, int64_t k, int64_t *take);

/*
 * Collective(ctx->comm). Logically collective: k. cs_comm_topk, with the agreement on `local`
 * (this rank's code of its last locally fallible step) and a question fused into its
 * collectives: *full (when not NULL) is set on every rank to whether some rank with `ask` set
 * has all of its keys taken (*take == n), which the callers' "propose more?" check needs. The
 * search: one fused allreduce (cs_allreduce_fused) of the count, the largest and the smallest
 * key and the question (the only one when there are at most k keys in total), then radix rounds
 * from the first bit in which the largest and smallest keys differ, each one allreduce of the
 * 255 counts of keys >= the prefix with the next 8 bits set to v = 1..255, until the count at
 * the prefix is exactly k (typically a few rounds; at most 8). *cut (when not NULL): a key such
 * that the taken keys over all ranks are exactly the keys >= it (0 when all are taken;
 * UINT64_MAX when k <= 0). Returns CS_OK or the agreed error (then *take is 0 and *full 0).
 */
CS_API CS_NODISCARD cs_err cs_comm_topk_ex(cs_ctx *ctx, cs_err local, const uint64_t *keys,
                                           int64_t n, int64_t k, int ask, int64_t *take, int *full,
                                           uint64_t *cut);

/*
 * Collective(ctx->comm). Splits the integer budget B over ranks in proportion to the
 * non-negative integer demands (largest remainder, ties to the lower rank; an equal split when
 * all demands are 0) and returns this rank's share. Exact: the shares sum to B.
 */
CS_API int64_t cs_comm_split(cs_ctx *ctx, int64_t B, int64_t demand);

/* Local. The fixed split: B / P, the first B mod P ranks one more. */
CS_API int64_t cs_comm_split_fixed(int64_t B, int rank, int size);

/*
 * Collective(ctx->comm). Logically collective: k >= 1. pairs[0..2k) holds this rank's k smallest
 * (key, id) pairs (key at even places), in increasing order of (key, id), padded with
 * (UINT64_MAX, UINT64_MAX) pairs where the rank has fewer; replaced in place by the k smallest
 * pairs over all ranks, in that order, padded alike. One MPI_Allreduce whose operation merges
 * two such lists (log P rounds of 16k bytes; an allgather of the lists is P - 1 rounds and, in
 * a simulation, P^2 messages). Returns the number of real pairs (the same on every rank).
 */
CS_API int64_t cs_comm_smallest(cs_ctx *ctx, uint64_t *pairs, int64_t k);

/* ==== Collectives for the modules that do not call MPI themselves (refresh, bandit) ========= */

/* Local. Whether ctx has no communicator (a local context: one rank, no MPI). */
CS_API int cs_comm_is_local(const cs_ctx *ctx);

/* Collective(ctx->comm). Every rank's n items of `size` bytes at send, concatenated in rank
 * order, into *(void **)recv (grown with cs_grow, caller-owned; *cap in items); *total the number
 * of items. cnt and dsp: scratch of ctx->size ints each (unused on a local context, where it is a
 * copy). Errors, agreed: CS_ERR_NOMEM; CS_ERR_LIMIT beyond INT_MAX bytes in all. */
CS_API CS_NODISCARD cs_err cs_comm_allgather(cs_ctx *ctx, const void *send, int64_t n, size_t size,
                                             void *recv, size_t *cap, int *cnt, int *dsp,
                                             int64_t *total);

/*
 * Exact sums of non-negative values with a global bound (the LambdaCrawl solvers, their costs,
 * static optimisation). Why fixed point: a floating-point sum over ranks depends on the order of
 * the additions, hence on the rank and thread count, and the root finds branch on such sums
 * (STYLE.md). Here each non-negative value x is scaled by a power of two chosen from a global
 * bound B >= x (so that x * scale <= 2^50) and split into an integer part q = round(x * scale)
 * and a 32-bit fraction f = round((x * scale - q) 2^32), both with the 1.5 * 2^52 trick (one add
 * and a bit cast, no conversion instruction, so the loops vectorise). q is split again into
 * q >> 24 and q & 0xffffff so that no int64 sum can overflow below 2^32 terms. The three integer
 * sums are exact and associative: allreducing them gives the same bits whatever the order.
 * Resolution: 2^-33 units of 2^50 / B per term, i.e. 2^-83 B.
 */
#define CS_FX_MAGIC 6755399441055744.0 /* 1.5 * 2^52: adding it rounds to an integer */
#define CS_FX_TOP 1125899906842624.0   /* 2^50: scaled values lie in [0, CS_FX_TOP] */
#define CS_FX_FRAC 4294967296.0        /* 2^32 */
#define CS_FX_MAX_TERMS 4294967296LL   /* 2^32 terms at most */

static inline int64_t cs_fx_bits(double y)
{
    int64_t b;
    memcpy(&b, &y, sizeof b);
    return b;
}

/* Adds v * scale (clamped to [0, CS_FX_TOP]; NaN counts as CS_FX_TOP) to the accumulator (a[0],
 * a[1], a[2]) = (sum of q >> 24, sum of q & 0xffffff, sum of fractions). */
#define CS_FX_ADD(v, scale, a0, a1, a2)                                                            \
    do {                                                                                           \
        double fx_v_ = (v) * (scale);                                                              \
        fx_v_ = fx_v_ <= CS_FX_TOP ? fx_v_ : CS_FX_TOP;                                            \
        fx_v_ = fx_v_ >= 0.0 ? fx_v_ : 0.0;                                                        \
        const double fx_y_ = fx_v_ + CS_FX_MAGIC;                                                  \
        const int64_t fx_q_ = cs_fx_bits(fx_y_) - cs_fx_bits(CS_FX_MAGIC);                         \
        const double fx_r_ = fx_v_ - (fx_y_ - CS_FX_MAGIC);                                        \
        (a0) += fx_q_ >> 24;                                                                       \
        (a1) += fx_q_ & 0xffffff;                                                                  \
        (a2) += cs_fx_bits(fx_r_ * CS_FX_FRAC + CS_FX_MAGIC) - cs_fx_bits(CS_FX_MAGIC);            \
    } while (0)

/* Local. The power of two that maps bound (> 0, finite) to at most CS_FX_TOP; 1 otherwise. */
CS_API double cs_comm_fx_scale(double bound);

/* Local. The value of an (allreduced) accumulator a[0..3) with the given scale. */
CS_API double cs_comm_fx_value(const int64_t *a, double scale);

/*
 * Collective(ctx->comm). The sum over all ranks of x[0..n) (finite, >= 0), exact to 2^-83 of
 * max(x) per term and independent of the rank and thread count. CS_ERR_ARG (agreed) otherwise.
 */
CS_API CS_NODISCARD cs_err cs_comm_sum_exact(cs_ctx *ctx, const double *x, int64_t n, double *sum);

/* The two collective halves of cs_comm_sum_exact, for sums whose terms the caller computes in
 * its own loops rather than holding them in an array:
 *   cs_comm_fx_begin: Collective(ctx->comm). From each rank's largest term mx and whether it saw
 *     a term that is negative or not finite (bad), the scale every rank adds with (CS_FX_ADD).
 *     CS_ERR_ARG (agreed, naming `what`) when some rank saw a bad term.
 *   cs_comm_fx_end: Collective(ctx->comm). The ranks' accumulators a[0..3) and their term
 *     counts n summed: *sum the total, *count (may be NULL) the terms. CS_ERR_LIMIT (agreed)
 *     beyond CS_FX_MAX_TERMS terms. */
CS_API CS_NODISCARD cs_err cs_comm_fx_begin(cs_ctx *ctx, double mx, int bad, const char *what,
                                            double *scale);
CS_API CS_NODISCARD cs_err cs_comm_fx_end(cs_ctx *ctx, const int64_t *a, int64_t n, double scale,
                                          double *sum, int64_t *count);

/* ---- memory shared by the ranks of a node (node.c) ------------------------------------------ */

/* The ranks of ctx->comm on one shared-memory node, and memory they share (MPI-3 windows:
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), MPI_Win_allocate_shared), for tables that every
 * rank would otherwise build and hold itself. */
typedef struct cs_node cs_node;

/*
 * Collective(ctx->comm) when share is non-zero, else Local. Logically collective: share. The
 * node of this rank: its ranks of ctx->comm that share memory with it when share is non-zero,
 * else this rank alone (no MPI call); also this rank alone on a local context, and when the
 * environment sets CRAWLSIM_SHARED=0 (for tests: every rank then holds its own copy; it must
 * be the same on every rank). A node of one rank takes its memory from malloc. On success
 * *out is a new node (cs_node_destroy); CS_ERR_NOMEM, agreed when share is non-zero.
 */
CS_API CS_NODISCARD cs_err cs_node_create(cs_ctx *ctx, int share, cs_node **out);
/* Local. This rank's index among the node's ranks, and their number. */
CS_API int cs_node_rank(const cs_node *n);
CS_API int cs_node_size(const cs_node *n);
/*
 * Collective(the node's ranks). Logically collective: bytes. *ptr = `bytes` of memory (not
 * zeroed) that every rank of the node sees (at its own address), held by the node's first
 * rank, until cs_node_free or cs_node_destroy. Writes become visible to the other ranks at the
 * next cs_node_sync. CS_ERR_NOMEM (*ptr NULL) on every rank of the node when any failed.
 */
CS_API CS_NODISCARD cs_err cs_node_alloc(cs_ctx *ctx, cs_node *n, size_t bytes, void **ptr);
/* Collective(the node's ranks). Frees memory of cs_node_alloc (ptr as it returned it); NULL:
 * nothing (on every rank). */
CS_API void cs_node_free(cs_node *n, void *ptr);
/* Collective(the node's ranks). A barrier after which every write a rank of the node made to
 * the node's memory before it is visible to all of them. */
CS_API void cs_node_sync(cs_node *n);
/* Collective(the node's ranks). Frees the node's memory and the node; accepts NULL, sets *n =
 * NULL. */
CS_API void cs_node_destroy(cs_node **n);

/* ==== Modelled computation on a simulated cluster ============================================ */

/*
 * The SMPI build (docs/guide/simulated-cluster.md, "Modelled computation") can charge each
 * rank's computation from a cost model instead of measuring it: with SimGrid's
 * smpi/simulate-computation:no and CRAWLSIM_SMPI_COSTS set (tools/smpi-run --compute model), a
 * tick's phases charge (units of work) x (flops per unit) to the simulated rank, so the
 * simulated time depends on the crawl's counts and the platform only, not on the machine that
 * runs the simulation. The units, one per kind below.
 */
typedef enum cs_cost_kind {
    CS_COST_EVALUATE, /* a Q evaluation of the frontier's re-evaluation */
    CS_COST_SELECT,   /* a frontier entry at a selection */
    CS_COST_FETCH,    /* a fetch with its learning step */
    CS_COST_ROUTE,    /* a link record routed */
    CS_COST_INSERT,   /* a link record inserted into the frontier */
    CS_NCOST
} cs_cost_kind;

/*
 * Local. Reads CRAWLSIM_SMPI_COSTS: CS_NCOST non-negative numbers separated by commas, flops per
 * unit of each kind in the order above. Unset or empty: no charge. CS_ERR_CONFIG when malformed,
 * and when set in a build that is not the SMPI build (real ranks have real computation).
 */
CS_API CS_NODISCARD cs_err cs_simcost_init(cs_ctx *ctx);
/* Local. Charges units of kind k to this simulated rank (SMPI: smpi_execute_flops_benched);
 * nothing when its cost is 0 or in other builds. Call from the rank's own thread. */
CS_API void cs_simcost_charge(cs_cost_kind k, double units);

#endif
