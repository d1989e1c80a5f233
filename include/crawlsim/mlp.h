/*
 * mlp: the small multilayer perceptron of TRES (Kontogiannis et al., Sec. 2.4.2): input d, two
 * hidden layers with LeakyReLU, one linear output, float32. Batched evaluation through
 * cblas_sgemm, backward pass of the mean squared error, gradient clipping, Adam.
 *
 * All parameters live in ONE contiguous float array, in this order (row-major, "in x out"):
 *
 *     W1[d][h1]  b1[h1]  W2[h1][h2]  b2[h2]  w3[h2]  b3[1]
 *
 * so flattening is free: cs_mlp_params borrows the array, and ranks can average weights with
 * one MPI_Allreduce on it, checkpoints can write it as one dataset. The gradient and the two Adam
 * moments have the same layout (each its own contiguous array of the same length).
 *
 * Threads: the BLAS runs single-threaded (process-wide: cs_mlp_create calls
 * openblas_set_num_threads(1) on OpenBLAS, src/core/blas.h); cs_mlp_eval splits the batch into
 * fixed chunks of CS_MLP_CHUNK rows and runs the chunks on OpenMP threads, each with its own
 * single-threaded sgemm. The chunk boundaries depend on the batch size only, so every output is
 * bit-identical for any OMP_NUM_THREADS. (The values may differ between CPUs and BLAS libraries:
 * OpenBLAS picks its kernels by CPU at run time.)
 *
 * An object is not safe to use from two threads at once (it owns its scratch).
 */
#ifndef CRAWLSIM_MLP_H
#define CRAWLSIM_MLP_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"

#include <stdint.h>

/* Rows per chunk of the batched evaluation (the unit of OpenMP work). */
#define CS_MLP_CHUNK 256

typedef struct cs_mlp cs_mlp;

/* Shape. Defaults (cs_mlp_config_default) are the authors' network: 7 -> 30 -> 15 -> 1, leak 0.1.
 */
typedef struct cs_mlp_config {
    int d_in;   /* input features, >= 1 */
    int h1, h2; /* hidden widths, >= 1 */
    float leak; /* LeakyReLU slope for negative inputs, in [0, 1) */
} cs_mlp_config;

typedef enum cs_mlp_init {
    CS_MLP_INIT_GLOROT = 0, /* U(-a, a), a = sqrt(6 / (fan_in + fan_out)): Keras' default */
    CS_MLP_INIT_HE = 1      /* U(-a, a), a = sqrt(6 / ((1 + leak^2) fan_in)): He for LeakyReLU */
} cs_mlp_init;

typedef enum cs_mlp_clip_mode {
    CS_MLP_CLIP_NONE = 0,
    CS_MLP_CLIP_NORM = 1, /* g *= c / (|g|_2 + 1e-6) when |g|_2 > c (PyTorch clip_grad_norm_) */
    CS_MLP_CLIP_VALUE = 2 /* g_i = clamp(g_i, -c, c) (Keras clipvalue, the authors' code) */
} cs_mlp_clip_mode;

/* Optimiser. Defaults (cs_mlp_opt_default): Adam lr 1e-3, beta1 0.9, beta2 0.999, eps 1e-8,
 * clipping by global norm 1.0. */
typedef struct cs_mlp_opt {
    float lr, beta1, beta2, eps;
    cs_mlp_clip_mode clip_mode;
    float clip; /* > 0 when clip_mode != CS_MLP_CLIP_NONE */
} cs_mlp_opt;

/* Offsets of each parameter block in the flat array (see the layout above). */
typedef struct cs_mlp_layout {
    int64_t w1, b1, w2, b2, w3, b3, n;
} cs_mlp_layout;

/* Local. The defaults named above. */
CS_API void cs_mlp_config_default(cs_mlp_config *c);
CS_API void cs_mlp_opt_default(cs_mlp_opt *o);
/* Local. Offsets of the parameter blocks of a shape (no object needed). */
CS_API void cs_mlp_layout_of(const cs_mlp_config *c, cs_mlp_layout *L);

/*
 * Local. Creates a network with all parameters, gradients and Adam moments zero (call
 * cs_mlp_init_weights next). Sets OpenBLAS to one thread for the whole process (see above).
 * CS_ERR_ARG for a bad shape, CS_ERR_NOMEM. *out is set only on success.
 */
CS_API cs_err cs_mlp_create(cs_ctx *ctx, const cs_mlp_config *c, cs_mlp **out);
/* Local. Frees; accepts NULL and *p == NULL; sets *p = NULL. */
CS_API void cs_mlp_destroy(cs_mlp **p);
/* Local. The shape the network was created with. */
CS_API const cs_mlp_config *cs_mlp_config_of(const cs_mlp *m);

/* Local. Draws the weights (biases zero) from r in layout order: W1, W2, w3. Resets Adam. */
CS_API void cs_mlp_init_weights(cs_mlp *m, cs_mlp_init kind, cs_rng *r);

/* Local. Number of parameters (= length of the flat array). 721 for 7 -> 30 -> 15 -> 1. */
CS_API int64_t cs_mlp_nparams(const cs_mlp *m);
/* Local. The flat parameter array, borrowed (owned by m, valid until cs_mlp_destroy); writing
 * to it changes the network (e.g. after averaging it across ranks). */
CS_API float *cs_mlp_params(cs_mlp *m);
CS_API const float *cs_mlp_params_const(const cs_mlp *m);
/* Local. The gradient of the last cs_mlp_loss_grad (after clipping if cs_mlp_clip ran),
 * borrowed, same layout. */
CS_API const float *cs_mlp_grad(const cs_mlp *m);
/* Local. Copies of the flat parameter array out of / into m (nparams floats). */
CS_API void cs_mlp_get_params(const cs_mlp *m, float *out);
CS_API void cs_mlp_set_params(cs_mlp *m, const float *in);
/* Local. dst's parameters = src's (the online -> target copy of DDQN). Adam state of dst is
 * untouched. CS_ERR_ARG if the shapes differ. */
CS_API cs_err cs_mlp_copy(cs_ctx *ctx, cs_mlp *dst, const cs_mlp *src);

/*
 * Local. out[i] = Q(x_i) for the n rows x_i = x + i * ldx (ldx >= d_in floats), n >= 0.
 * OpenMP-parallel over chunks of CS_MLP_CHUNK rows; bit-identical for any thread count.
 * CS_ERR_NOMEM (per-thread scratch grows on first use).
 */
CS_API cs_err cs_mlp_eval(cs_ctx *ctx, cs_mlp *m, const float *x, int64_t ldx, int64_t n,
                          float *out);

/*
 * Local. Forward and backward pass of the mean squared error on a minibatch, n >= 1:
 *     L = (1/n) sum_i (Q(x_i) - y_i)^2
 * Stores dL/dtheta in the gradient array (overwritten, not accumulated) and L in *loss. Serial
 * (minibatches are small); deterministic. CS_ERR_NOMEM.
 */
CS_API cs_err cs_mlp_loss_grad(cs_ctx *ctx, cs_mlp *m, const float *x, int64_t ldx, int64_t n,
                               const float *y, double *loss);
/*
 * Local. The parts of cs_mlp_eval and cs_mlp_loss_grad, for a caller that runs them on its own
 * OpenMP threads (cs_ddqn_train), with the same results bit for bit:
 *   cs_mlp_eval_rows      one chunk of cs_mlp_eval: rows <= CS_MLP_CHUNK rows into out, with
 *                         the caller's scratch of CS_MLP_CHUNK * (h1 + h2) floats; reads m only,
 *                         so several threads may call it at once (each its own scratch)
 *   cs_mlp_train_reserve  the training scratch for n rows (CS_ERR_NOMEM)
 *   cs_mlp_forward_kept   the forward pass of cs_mlp_loss_grad, its activations kept in the
 *                         training scratch (reserved); may run beside cs_mlp_eval_rows calls
 *   cs_mlp_backward       the rest of cs_mlp_loss_grad, after cs_mlp_forward_kept of the same
 *                         x and n with m's parameters unchanged
 */
CS_API void cs_mlp_eval_rows(const cs_mlp *m, const float *x, int64_t ldx, int64_t rows,
                             float *scratch, float *out);
CS_API cs_err cs_mlp_train_reserve(cs_ctx *ctx, cs_mlp *m, int64_t n);
CS_API void cs_mlp_forward_kept(cs_mlp *m, const float *x, int64_t ldx, int64_t n);
CS_API void cs_mlp_backward(cs_mlp *m, const float *x, int64_t ldx, int64_t n, const float *y,
                            double *loss);
/* Local. Clips the gradient as o->clip_mode says; returns its L2 norm before clipping. */
CS_API double cs_mlp_clip(cs_mlp *m, const cs_mlp_opt *o);
/*
 * Local. One Adam step (Kingma & Ba 2015, Algorithm 1) with the current gradient:
 *     t += 1;  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
 *     theta -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
 */
CS_API void cs_mlp_adam(cs_mlp *m, const cs_mlp_opt *o);
/* Local. Adam steps taken so far. */
CS_API int64_t cs_mlp_adam_steps(const cs_mlp *m);
/* Local. cs_mlp_loss_grad, cs_mlp_clip, cs_mlp_adam; *loss is the loss before the step. */
CS_API cs_err cs_mlp_train_step(cs_ctx *ctx, cs_mlp *m, const cs_mlp_opt *o, const float *x,
                                int64_t ldx, int64_t n, const float *y, double *loss);

/* Collective(ctx->comm) (ckpt.h). The parameters, Adam moments and step count as items
 * "<prefix>/theta", "<prefix>/adam_m", "<prefix>/adam_v", "<prefix>/t", and their restoration
 * into a network of the same shape (CS_ERR_FORMAT otherwise). Gradients are scratch. */
CS_API cs_err cs_mlp_save(cs_ctx *ctx, const cs_mlp *m, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_mlp_load(cs_ctx *ctx, cs_mlp *m, cs_ckpt *ck, const char *prefix);

#endif
