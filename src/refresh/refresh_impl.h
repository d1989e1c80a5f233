/*
 * refresh internals: exact fixed-point sums shared by the solvers and the cost functions, and the
 * collectives of the re-crawl policies (which never call MPI directly).
 *
 * Why fixed point: a floating-point sum over ranks depends on the order of the additions, hence
 * on the rank and thread count, and the root finds branch on such sums (STYLE.md). Here each
 * non-negative value x is scaled by a power of two chosen from a global bound B >= x (so that
 * x * scale <= 2^50) and split into an integer part q = round(x * scale) and a 32-bit fraction
 * f = round((x * scale - q) 2^32), both with the 1.5 * 2^52 trick (one add and a bit cast, no
 * conversion instruction, so the loops vectorise). q is split again into q >> 24 and q & 0xffffff
 * so that no int64 sum can overflow below 2^32 terms. The three integer sums are exact and
 * associative: allreducing them gives the same bits whatever the order. Resolution: 2^-33 units
 * of 2^50 / B per term, i.e. 2^-83 B.
 */
#ifndef CRAWLSIM_REFRESH_IMPL_H
#define CRAWLSIM_REFRESH_IMPL_H

#include "crawlsim/refresh.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* INFINITY and NAN are floats: -Wdouble-promotion wants the conversion spelled out. */
#define CS_INF ((double)INFINITY)
#define CS_NAN ((double)NAN)

#define FX_MAGIC 6755399441055744.0 /* 1.5 * 2^52: adding it rounds to an integer */
#define FX_TOP 1125899906842624.0   /* 2^50: scaled values lie in [0, FX_TOP] */
#define FX_FRAC 4294967296.0        /* 2^32 */
#define FX_MAX_TERMS 4294967296LL   /* 2^32 terms at most */

static inline int64_t fx_bits(double y)
{
    int64_t b;
    memcpy(&b, &y, sizeof b);
    return b;
}

/* Adds v * scale (clamped to [0, FX_TOP]; NaN counts as FX_TOP) to the accumulator (a[0],
 * a[1], a[2]) = (sum of q >> 24, sum of q & 0xffffff, sum of fractions). */
#define FX_ADD(v, scale, a0, a1, a2)                                                               \
    do {                                                                                           \
        double fx_v_ = (v) * (scale);                                                              \
        fx_v_ = fx_v_ <= FX_TOP ? fx_v_ : FX_TOP;                                                  \
        fx_v_ = fx_v_ >= 0.0 ? fx_v_ : 0.0;                                                        \
        const double fx_y_ = fx_v_ + FX_MAGIC;                                                     \
        const int64_t fx_q_ = fx_bits(fx_y_) - fx_bits(FX_MAGIC);                                  \
        const double fx_r_ = fx_v_ - (fx_y_ - FX_MAGIC);                                           \
        (a0) += fx_q_ >> 24;                                                                       \
        (a1) += fx_q_ & 0xffffff;                                                                  \
        (a2) += fx_bits(fx_r_ * FX_FRAC + FX_MAGIC) - fx_bits(FX_MAGIC);                           \
    } while (0)

/* Local. The power of two that maps bound (> 0, finite) to at most FX_TOP; 1 otherwise. */
double cs_refresh_fx_scale(double bound);

/* Collective(ctx->comm). MPI_Allreduce on ctx->comm; on a local context (MPI_COMM_NULL: serial
 * tools and unit tests, without MPI_Init) a copy. Types: MPI_DOUBLE or MPI_INT64_T. */
void cs_refresh_allreduce(cs_ctx *ctx, const void *in, void *out, int count, MPI_Datatype type,
                          MPI_Op op);

/* Collective(ctx->comm). Every rank's n items of `size` bytes at send, concatenated in rank
 * order, into *(void **)recv (grown with cs_grow, caller-owned; *cap in items); *total the number
 * of items. cnt and dsp: scratch of ctx->size ints each (unused on a local context, where it is a
 * copy). Errors, agreed: CS_ERR_NOMEM; CS_ERR_LIMIT beyond INT_MAX bytes in all. */
cs_err cs_refresh_allgather(cs_ctx *ctx, const void *send, int64_t n, size_t size, void *recv,
                            size_t *cap, int *cnt, int *dsp, int64_t *total);

/* Local. The value of an (allreduced) accumulator a[0..3) with the given scale. */
double cs_refresh_fx_value(const int64_t *a, double scale);

/*
 * An exact signed accumulator for sums whose bound is not known in advance (staleness integrals
 * accumulated over a run). The value is a fixed-point integer of CS_XSUM_LIMBS 32-bit limbs, bit 0
 * weighing 2^-CS_XSUM_LOW: every double term is added exactly (terms below 2^-CS_XSUM_LOW are
 * truncated towards zero, deterministically; |terms| must stay below 2^(32 CS_XSUM_LIMBS -
 * CS_XSUM_LOW - 40)). Integer addition is associative, so the same terms in any order, on any
 * number of ranks, give the same bits: the idea of the fixed-point sums above, without the
 * global bound. Limbs stay signed int64 with carries deferred (normalised every 2^29 additions).
 */
#define CS_XSUM_LIMBS 12
#define CS_XSUM_LOW 192

typedef struct cs_xsum {
    int64_t limb[CS_XSUM_LIMBS];
    int64_t adds;
} cs_xsum;

/* Local. Zero. */
void cs_xsum_zero(cs_xsum *s);
/* Local. s += x (finite). */
void cs_xsum_add(cs_xsum *s, double x);
/* Local. s += t. */
void cs_xsum_merge(cs_xsum *s, const cs_xsum *t);
/* Local. Propagates carries: every limb but the top one in [0, 2^32). */
void cs_xsum_norm(cs_xsum *s);
/* Local. The value, rounded to double (deterministic: a function of the integer only). */
double cs_xsum_value(const cs_xsum *s);
/* Collective(ctx->comm). The sum over ranks of the accumulators a[0..n) into out[0..n) (one
 * allreduce of n * 12 int64). */
void cs_xsum_allreduce(cs_ctx *ctx, const cs_xsum *a, cs_xsum *out, int n);

#endif
