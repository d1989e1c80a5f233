/*
 * bandit: re-crawling as a restless bandit.
 *
 *  - The Whittle index policy for ephemeral content (Avrachenkov & Borkar, "A learning algorithm
 *    for the Whittle index policy for scheduling web crawlers", Allerton 2019, Eqs. 1-5): per-arm
 *    state x (interest accumulated since the last crawl) with the mean dynamics (2)-(3), the
 *    closed-form index gamma(x), finite and infinite M, and the distributed top-N0 selection.
 *  - Its learning scheme (Sec. IV with the fixes of Sec. V): logistic relaxation of the
 *    threshold policy, LSPE(0) with a Tikhonov-regularised or Sherman-Morrison inverse, two
 *    time-scale step sizes, thresholds projected onto [u, u/(1-alpha)].
 *  - The binary-freshness bandit of Avrachenkov, Borkar & Patil ("Deep reinforcement learning
 *    for web crawling", ICC 2021): groups of pages crawled round-robin, with static optimisation
 *    (Azar et al., Eq. 8), Thompson sampling, uniform and FG-DQN (Algorithm 1 and appendix).
 *  - The registry of these policies, shared by `crawlsim bandit` and the re-crawl side.
 *
 * Randomness: every draw comes from a Philox stream keyed by (seed, CS_RNG_BANDIT, entity, sub)
 * (rng.h), never by rank or thread.
 */
#ifndef CRAWLSIM_BANDIT_H
#define CRAWLSIM_BANDIT_H

#include "crawlsim/ckpt.h"
#include "crawlsim/core.h"
#include "crawlsim/rng.h"

#include <stdint.h>

/* Entities (ids) of the CS_RNG_BANDIT streams, named once. A freshness experiment's pages use
 * their index as the id, so it refuses more pages than CS_BANDIT_ID_MIN (their streams would
 * be these). Never change a value: it changes the results of every bandit run. */
#define CS_BANDIT_ID_FGDQN 0xf6du                /* the FG-DQN's exploration and minibatches */
#define CS_BANDIT_ID_LSPE 0x15e0u                /* the learning scheme (LSPE(0)) */
#define CS_BANDIT_ID_FRESH_POLICY 0x9011c7u      /* a freshness experiment's policy draws */
#define CS_BANDIT_ID_RECRAWL 0x62616e6400000000u /* + the policy's stream: re-crawl slots */
#define CS_BANDIT_ID_MIN CS_BANDIT_ID_FGDQN      /* the smallest of them */

/* ==== Whittle index for ephemeral content ==================================================== */

/* Local. alpha = exp(-c) and u = E[xi] = (1 - alpha)(1 - alpha^M) lambda / c (Sec. II), for
 * arrival rate lambda > 0, decay rate c > 0 and lifetime M > 0 (INFINITY: alpha^M = 0). */
CS_API double cs_whittle_u(double lambda, double c, double M);

/*
 * Local. The Whittle index, Eqs. 4-5:
 *   zeta = ceil(log+_alpha((u - (1 - alpha) x) / u)),
 *   gamma = (1/C) [zeta ((1 - alpha) x - u) + (1 - alpha^zeta) / (1 - alpha) u].
 * x is clamped to [0, u/(1-alpha)); at the fixed point u/(1-alpha) (never reached in finite
 * time) the limit u/((1 - alpha) C) is returned. C > 0 is the paper's normalising constant C_i
 * (not defined in the paper's text; 1 makes the index the subsidy of the classic Whittle
 * relaxation). gamma is continuous and non-decreasing in x.
 */
CS_API double cs_whittle_index(double x, double u, double alpha, double C);

/* Local. The same index for the state reached k >= 0 ticks after a crawl under the mean
 * dynamics (x_k = u (1 - alpha^k) / (1 - alpha)), without a logarithm:
 *   gamma = (u / C) (sum_{j<k} alpha^j - k alpha^k). */
CS_API double cs_whittle_index_age(int64_t k, double u, double alpha, double C);

/* Local. An order-preserving 64-bit key of (index, id): the float32 index in the high word
 * (order-preserving bit map, -0 = +0), 2^32 - 1 - id in the low word, so equal float indices
 * are broken in favour of the LOWER id. id < 2^32; index not NaN. */
CS_API uint64_t cs_whittle_key(float index, uint64_t id);

/*
 * A rank's arms for the distributed index policy, structure of arrays, in float32 so that a
 * tick streams 16 bytes per arm. Caller-owned (cs_whittle_arms_init / _fini). The state of arm
 * i is its age k (ticks since its last crawl, Eq. 3 resets it to 1 at the next tick) and
 * pw = alpha^k, so x = u (1 - pw) / (1 - alpha) and the index needs no logarithm.
 */
typedef struct cs_whittle_arms {
    int64_t n;
    uint64_t *id;  /* global arm ids, unique over ranks, < 2^32 */
    float *w;      /* u / C */
    float *alpha;  /* exp(-c) */
    float *pw;     /* alpha^age */
    uint32_t *age; /* ticks since the last crawl */
    /* scratch of cs_whittle_tick: the local top-n0 heap */
    uint64_t *heap_key;
    int64_t *heap_pos;
    int64_t heap_cap;
} cs_whittle_arms;

/* Local. Allocates n arms (all arrays, zeroed: age 0 = just crawled, pw = 1). CS_ERR_NOMEM. */
CS_API cs_err cs_whittle_arms_init(cs_ctx *ctx, cs_whittle_arms *a, int64_t n);
CS_API void cs_whittle_arms_fini(cs_whittle_arms *a);
/* Local. Sets arm i: id, u, alpha, C (see cs_whittle_index), age (pw = alpha^age). */
CS_API void cs_whittle_arms_set(cs_whittle_arms *a, int64_t i, uint64_t id, double u, double alpha,
                                double C, uint32_t age);

/*
 * Collective(ctx->comm). Logically collective: n0. One tick of the Whittle index policy: the
 * index of every arm at its current state (one pass, keeping the local top-n0 keys in a heap),
 * the global top-n0 by cs_comm_topk on cs_whittle_key (exact, integer counts only), then the
 * mean dynamics: crawled arms restart (age 1), the others age by one tick.
 * chosen (caller-owned, >= min(n, n0) entries) receives the local positions of this rank's
 * crawled arms in decreasing key order, *n_chosen their number; *reward_local the sum of their
 * states at the crawl divided by C, x / C (float precision; the objective of Sec. II when every
 * C = 1), over this rank. The chosen sets are the same
 * for any number of ranks. Errors, agreed: CS_ERR_NOMEM.
 */
CS_API cs_err cs_whittle_tick(cs_ctx *ctx, cs_whittle_arms *a, int64_t n0, int64_t *chosen,
                              int64_t *n_chosen, double *reward_local);

/* ==== The learning scheme (Sec. IV, fixes of Sec. V) ======================================== */

typedef enum cs_lspe_inverse {
    CS_LSPE_TIKHONOV = 0,        /* (B^T B + delta I)^-1 B^T (Sec. V) */
    CS_LSPE_SHERMAN_MORRISON = 1 /* the recursive inverse of Sec. IV */
} cs_lspe_inverse;

typedef struct cs_lspe_config {
    double kappa;   /* logistic slope kappa_i (Sec. V: 2) */
    double gamma;   /* LSPE step gamma (Sec. V: 0.05) */
    double delta;   /* Tikhonov delta, > 0 */
    double epsilon; /* B(-1) = epsilon I */
    double a_c;     /* a(n) = a_c / ceil((n + 1) / a_period) */
    double a_period;
    double b_c; /* b(n) = b_c / ceil((n + 1) / b_period)^(2/3) */
    double b_period;
    int inverse;  /* cs_lspe_inverse */
    int features; /* 2: phi = [x_i, x_i x_j (i <= j)] (Sec. V); 1: [1, x_i] */
} cs_lspe_config;

/* Local. Sec. V's values: kappa 2, gamma 0.05, delta 1e-3, epsilon 1, a_c = b_c = 0.5,
 * periods 500 and 1000, Tikhonov, quadratic features. */
CS_API void cs_lspe_config_default(cs_lspe_config *c);

/*
 * Local. Runs the learning scheme for `steps` ticks on N arms (u, alpha per arm; M enters
 * through u) under the mean dynamics, with each arm active with the logistic probability
 * f_i = 1/(1 + exp(-kappa (x_i - T_i - 0.5))) (the simulation-based reading of Sec. III, the
 * only one under which "on average one arm sampled" is meaningful). States and thresholds are
 * expressed in units of s = max_i u_i/(1 - alpha_i) inside the features (a conditioning choice;
 * the paper's raw units make B-bar's entries span 10 orders of magnitude). reward[t] (may be
 * NULL) receives sum_i x_i nu_i at tick t, *active_mean the mean number of active arms.
 * CS_ERR_ARG, CS_ERR_NOMEM.
 */
CS_API cs_err cs_lspe_run(cs_ctx *ctx, const cs_lspe_config *c, int64_t N, const double *u,
                          const double *alpha, int64_t steps, uint64_t seed, uint64_t run,
                          double *reward, double *active_mean);

/* The learning scheme step by step (cs_lspe_run is create + steps + destroy). */
typedef struct cs_lspe cs_lspe;
/* Local. N arms (u, alpha as cs_lspe_run), states x_i = u_i, the stream (seed, run). */
CS_API cs_err cs_lspe_create(cs_ctx *ctx, const cs_lspe_config *c, int64_t N, const double *u,
                             const double *alpha, uint64_t seed, uint64_t run, cs_lspe **out);
CS_API void cs_lspe_destroy(cs_lspe **l);
/* Local. One tick: draws the arms' activity (active[i], may be NULL) from the logistic
 * relaxation, updates LSPE(0) and the thresholds, moves the states by the mean dynamics; returns
 * the tick's reward sum_i x_i nu_i. */
CS_API double cs_lspe_step(cs_lspe *l, uint8_t *active);
/* Local. New u_i (> 0, finite; others kept) from the next step on; the state unit s stays. */
CS_API void cs_lspe_set_u(cs_lspe *l, const double *u);
/* Local. The states x (N) and the last activity probabilities f (N). Borrowed. */
CS_API const double *cs_lspe_state(const cs_lspe *l);
CS_API const double *cs_lspe_activity(const cs_lspe *l);
/* Collective(ctx->comm) (ckpt.h). The whole state (statistics, inverse, thresholds, states,
 * counters, the stream's position) as items under prefix, and its restoration into an object
 * created with the same configuration and N. */
CS_API cs_err cs_lspe_save(cs_ctx *ctx, const cs_lspe *l, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_lspe_load(cs_ctx *ctx, cs_lspe *l, cs_ckpt *ck, const char *prefix);

/* ==== Static optimisation (Azar et al.; DRL paper Eq. 8) ==================================== */

/* Local. The per-slot change probability of a Poisson change rate: 1 - exp(-rate * slot). */
CS_API double cs_static_opt_change_prob(double rate, double slot);

/*
 * Collective(ctx->comm). Logically collective: R. Maximises F(p) = sum_k mu_k p_k /
 * (p_k + D_k - D_k p_k) over 0 <= p_k <= 1, sum p_k = R (R crawls per slot; R <= number of pages
 * over all ranks), D_k in (0, 1] the per-slot change probability. KKT: p_k = clamp((sqrt(mu_k
 * D_k / lambda) - D_k) / (1 - D_k), 0, 1) (p_k = 1 if D_k = 1 and lambda < mu_k), lambda found
 * by bisection on the exact fixed-point sum (cs_comm_sum_exact), so every rank gets bit-identical
 * results for any rank count. p: caller-owned, n entries. *lambda_out may be NULL.
 * Errors, agreed: CS_ERR_ARG (mu <= 0, D outside (0,1], R outside (0, N]), CS_ERR_NOMEM.
 */
CS_API cs_err cs_static_opt_solve(cs_ctx *ctx, int64_t n, const double *mu, const double *D,
                                  double R, double *p, double *lambda_out);

/* ==== The binary-freshness bandit of the DRL paper ========================================== */

typedef struct cs_fgdqn_config {
    int64_t hidden1, hidden2;  /* ReLU layers (paper: 4000 and 8) */
    double gamma;              /* discount (paper: 0.95) */
    double eps_start, eps_end; /* epsilon-greedy (paper: 0.7 -> 0.1) */
    int64_t eps_steps;         /* linear decay over this many ticks */
    double lr;                 /* a(n) = lr / (1 + n / lr_decay) */
    double lr_decay;
    double noise;   /* xi ~ U[-noise, noise] per parameter (paper: 1) */
    int64_t batch;  /* minibatch B, 1..1024 */
    int64_t replay; /* replay memory M (transitions) */
    double x_scale; /* network input X_k / x_scale */
} cs_fgdqn_config;

/* Local. Defaults: 64, 8, 0.95, 0.7, 0.1, eps_steps 2000, lr 1e-3, lr_decay 1e4, noise 1,
 * batch 32, replay 10000, x_scale 100. */
CS_API void cs_fgdqn_config_default(cs_fgdqn_config *c);

/* ==== The registry of bandit policies ======================================================= */

/*
 * One registry (src/config/registry_bandit.def, made into src/bandit/registry.c's table) of the
 * restless-bandit policies, looked up by name, and
 * one implementation of each, used by `crawlsim bandit` (bandit.policies, both experiments) and
 * by the re-crawl side (refresh.policy = bandit-*, src/refresh/recrawl_bandit.c). A policy is a
 * cs_bandit_ops (docs/developer/adding-a-policy.md), with up to two faces:
 *
 *  - a group policy (choose != NULL): K groups of pages, slot by slot; each slot allocates
 *    n >= 1 crawls to groups among the eligible ones, from state replicated on every rank, and
 *    learns from the slot's outcomes per chosen group. The freshness experiment runs it with one
 *    crawl per slot over all groups (cs_fresh_run), the re-crawl side with the slot's budget
 *    over the groups that hold cached pages;
 *  - a policy of the ephemeral experiment (ephemeral != NULL): one run of the Whittle paper's
 *    mean dynamics.
 */
typedef struct cs_bandit cs_bandit; /* a group policy's state: bandit_impl.h */

/* What a group policy's sync takes (cs_bandit_sync). */
typedef enum cs_bandit_input {
    CS_BANDIT_IN_NONE = 0,
    CS_BANDIT_IN_STATIC_OPT = 1, /* w_k: the group's share of the optimum of Eq. 8 */
    CS_BANDIT_IN_INDEX = 2       /* w_k = u_k (Whittle paper Sec. II), alpha = exp(-c) */
} cs_bandit_input;

/* A group policy's parameters. */
typedef struct cs_bandit_setup {
    int64_t K;
    uint64_t seed, run; /* the streams of FG-DQN's network and of the learning scheme */
    cs_fgdqn_config fgdqn;
    cs_lspe_config lspe;
} cs_bandit_setup;

/* The ephemeral experiment: K arms (u, alpha, cost C as cs_whittle_index), crawlers per tick. */
typedef struct cs_ephemeral_setup {
    int64_t K;
    const double *u, *alpha, *cost;
    int64_t crawlers;
    cs_lspe_config lspe;
} cs_ephemeral_setup;

typedef struct cs_bandit_ops {
    /* its names (bandit.policies, refresh.policy) are its line of src/config/registry_bandit.def:
     * cs_bandit_name, cs_bandit_recrawl_name */
    int freshness; /* a policy of crawlsim bandit's freshness experiment */
    /* the re-crawl slot's stream: (seed, CS_RNG_BANDIT, CS_BANDIT_ID_RECRAWL + stream, slot); fixed
     * per policy (changing it changes results) */
    uint64_t stream;
    cs_bandit_input input;
    int64_t max_groups;  /* 0: no limit beyond the re-crawl side's */
    const char *max_why; /* why, for the error message */
    /* Local, may be NULL. The policy's own state in b, after the common state is made. */
    cs_err (*create)(cs_ctx *ctx, cs_bandit *b);
    void (*destroy)(cs_bandit *b);
    /* Local, may be NULL. New inputs (b->w, b->alpha) were set. */
    cs_err (*sync)(cs_ctx *ctx, cs_bandit *b);
    /* Local. n >= 1 crawls among the E >= 1 eligible groups elig (scratch: may be reordered),
     * each added with bandit_pick (bandit_impl.h); draws from g only. */
    cs_err (*choose)(cs_ctx *ctx, cs_bandit *b, cs_rng *g, int64_t *elig, int64_t E, int64_t n);
    /* Local, may be NULL. Learning at the end of a slot, after its outcomes. */
    void (*learn)(cs_bandit *b);
    /* Collective (ckpt.h), may be NULL. The policy's own state under prefix. */
    cs_err (*save)(cs_ctx *ctx, const cs_bandit *b, cs_ckpt *ck, const char *prefix);
    cs_err (*load)(cs_ctx *ctx, cs_bandit *b, cs_ckpt *ck, const char *prefix);
    /* Local, may be NULL. One run of the ephemeral experiment into reward[horizon] (arm: the
     * series' arm when per_arm). */
    cs_err (*ephemeral)(cs_ctx *ctx, const cs_ephemeral_setup *s, int64_t arm, int64_t horizon,
                        uint64_t seed, uint64_t run, double *reward);
    int per_arm; /* ephemeral: one series per arm, named <name>-arm<i> (1-based) */
} cs_bandit_ops;

/* Local. FG-DQN's and the learning scheme's settings from the job file's [bandit] section
 * (config.h), the same for `crawlsim bandit` and the re-crawl side: the defaults above
 * overridden by the section's keys. */
struct cs_bandit_config;
CS_API void cs_bandit_settings(const struct cs_bandit_config *b, cs_fgdqn_config *fc,
                               cs_lspe_config *lc);

/* Local. The registered policy of that name (bandit.policies), NULL if none. */
CS_API const cs_bandit_ops *cs_bandit_find(const char *name);
/* Local. The registered policy whose re-crawl name is policy (refresh.policy), NULL if none. */
CS_API const cs_bandit_ops *cs_bandit_find_recrawl(const char *policy);
/* Local. The i-th registered policy (registry order), NULL for i past the end. */
CS_API const cs_bandit_ops *cs_bandit_at(int i);
/* Local. The registered policy's name in bandit.policies ("(unregistered)" for another table). */
CS_API const char *cs_bandit_name(const cs_bandit_ops *ops);
/* Local. Its name in refresh.policy, NULL if it is not a re-crawl policy (or not registered). */
CS_API const char *cs_bandit_recrawl_name(const cs_bandit_ops *ops);

/* Local. A group policy (ops->choose != NULL) over s->K >= 1 groups. CS_ERR_ARG, CS_ERR_NOMEM. */
CS_API cs_err cs_bandit_create(cs_ctx *ctx, const cs_bandit_ops *ops, const cs_bandit_setup *s,
                               cs_bandit **out);
CS_API void cs_bandit_destroy(cs_bandit **b);
/* Local. The sync inputs (ops->input): w[K] (copied) and alpha; scale is static optimisation's
 * draw scale (the draw is uniform on [0, scale) against the cumulated w; 0: the eligible
 * groups' total). */
CS_API cs_err cs_bandit_sync(cs_ctx *ctx, cs_bandit *b, const double *w, double alpha,
                             double scale);
/* Local. Starts a slot: n >= 0 crawls allocated among the E eligible groups elig (none when n
 * or E is 0). The result: cs_bandit_chosen, cs_bandit_alloc. CS_ERR_NOMEM. */
CS_API cs_err cs_bandit_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, const int64_t *elig, int64_t E,
                               int64_t n);
/* Local. The slot's chosen groups (in order of their first pick; *n of them) and the crawls
 * allocated per group (K entries). Borrowed. */
CS_API const int64_t *cs_bandit_chosen(const cs_bandit *b, int64_t *n);
CS_API const int64_t *cs_bandit_alloc(const cs_bandit *b);
/* Local. The slot's outcome of chosen group k: crawls made, crawls that found a change, reward
 * (the importance of the pages found changed). */
CS_API void cs_bandit_outcome(cs_bandit *b, int64_t k, int64_t crawled, int64_t changed,
                              double reward);
/* Local. Ends the slot: the policy learns, ages and slot count move on. */
CS_API void cs_bandit_end_slot(cs_bandit *b);
/* Local. Slots ended so far. */
CS_API int64_t cs_bandit_slots(const cs_bandit *b);
/* Collective(ctx->comm) (ckpt.h). The replicated state as items under prefix, and its
 * restoration into a policy created with the same ops and setup. */
CS_API cs_err cs_bandit_save(cs_ctx *ctx, const cs_bandit *b, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_bandit_load(cs_ctx *ctx, cs_bandit *b, cs_ckpt *ck, const char *prefix);

/* A freshness experiment: K groups of identical pages. */
typedef struct cs_fresh_setup {
    int64_t K;
    const int64_t *size; /* pages per group */
    const double *rate;  /* Poisson change rate per page, per time unit */
    const double *mu;    /* importance of the group's pages */
    double slot;         /* time units per tick */
    cs_fgdqn_config fgdqn;
} cs_fresh_setup;

/*
 * Local. One run of `horizon` ticks of a policy on the freshness bandit (DRL paper Sec. II):
 * one group chosen per tick, its round-robin page crawled, reward mu_k if that page changed
 * since its last crawl (each page changes in a slot with probability
 * cs_static_opt_change_prob(rate, slot), drawn from the page's own stream). The policy is a
 * registered one with policy->freshness set, run as a group policy (below) with one crawl per
 * slot over all groups. reward[t] (caller-owned, horizon entries) receives the tick's reward.
 * CS_ERR_ARG, CS_ERR_NOMEM.
 */
CS_API cs_err cs_fresh_run(cs_ctx *ctx, const cs_fresh_setup *s, const cs_bandit_ops *policy,
                           int64_t horizon, uint64_t seed, uint64_t run, double *reward);

/* ---- FG-DQN on its own (for the benchmark) ---- */
typedef struct cs_fgdqn cs_fgdqn;
/* Local. A network 2K -> h1 -> h2 -> K (ReLU), He-uniform weights from (seed, run). */
CS_API cs_err cs_fgdqn_create(cs_ctx *ctx, const cs_fgdqn_config *c, int64_t K, uint64_t seed,
                              uint64_t run, cs_fgdqn **out);
CS_API void cs_fgdqn_destroy(cs_fgdqn **p);
/* Local. Q(z, .) for the state z (2K floats) into q (K floats). */
CS_API void cs_fgdqn_q(cs_fgdqn *f, const float *z, float *q);
/* Local. Stores the transition (z, a, r, z'). */
CS_API void cs_fgdqn_push(cs_fgdqn *f, const float *z, int64_t a, float r, const float *z1);
/* Local. One full-gradient update (appendix Eq. 9) on a minibatch from the replay memory (no-op
 * until it holds `batch` transitions). Returns the mean squared Bellman error of the batch. */
CS_API double cs_fgdqn_train(cs_fgdqn *f);
/* Collective(ctx->comm) (ckpt.h). Parameters, the replay memory in place, the step count and
 * the RNG stream's position as items under prefix, and their restoration into a network created
 * with the same configuration and K. */
CS_API cs_err cs_fgdqn_save(cs_ctx *ctx, const cs_fgdqn *f, cs_ckpt *ck, const char *prefix);
CS_API cs_err cs_fgdqn_load(cs_ctx *ctx, cs_fgdqn *f, cs_ckpt *ck, const char *prefix);

#endif
