/*
 * rng: counter-based random streams (Random123 Philox4x64-10) keyed by (seed, domain, id, sub)
 * with the draw index as counter, and the distributions the models need.
 *
 * A stream is never keyed by rank or thread (STYLE.md "Randomness and determinism"): the same
 * (seed, domain, id, sub) gives the same numbers everywhere, so the world is a pure function of
 * the seed and the entity id. Streams are tiny plain structs: create them on the stack, one per
 * entity, and throw them away.
 *
 * Key   = {seed, id};  counter = {block index, domain, sub, 0}.
 * Each Philox call yields four 64-bit words, consumed in order.
 *
 * The cheap draws (u64, uniform, below, bernoulli, alias) are inline below, so that the hot loops
 * of the generator pay a function call only once per four words (cs_rng_refill).
 */
#ifndef CRAWLSIM_RNG_H
#define CRAWLSIM_RNG_H

#include "crawlsim/core.h"

#include <stdint.h>

/* Domains: one per kind of randomness, so that streams of different uses never overlap.
 * Append only: renumbering changes every generated world. */
typedef enum cs_rng_domain {
    CS_RNG_TEST = 0,
    CS_RNG_HOST_SIZE = 1, /* id = host */
    CS_RNG_HOST = 2,      /* id = host: topic, change-rate class */
    CS_RNG_PAGE = 3,      /* id = page: topic, relevance, delta, mu, observable, hub */
    CS_RNG_LINKS = 4,     /* id = page: out-degree and targets */
    CS_RNG_TERMS = 5,     /* id = page: term vector */
    CS_RNG_ANCHOR = 6,    /* id = source page, sub = target page */
    CS_RNG_TOPIC = 7,     /* id = topic: prototype vectors, host shuffles */
    CS_RNG_IMPORT = 8,    /* id = page: model attributes of imported pages */
    CS_RNG_CHANGES = 9,   /* id = page: Poisson change times (refresh issue) */
    CS_RNG_POLICY = 10,   /* id = entity of a policy (later issues) */
    CS_RNG_TRES = 11,     /* id = a TRES stream (tree sampling, MLP init, replay minibatches) */
    CS_RNG_BANDIT = 12,   /* id = a bandit entity (bandit.h), sub = run and stream kind */
    CS_RNG_SAMPLE = 13,   /* id = 0: sampled pages, 1: one link of each (crawlsim info SPEC) */
    CS_RNG_DOMAIN_COUNT_
} cs_rng_domain;

/* Hashed choices: the few random decisions made by hashing with cs_mix64 (core.h) rather than
 * drawing from a stream, keyed by run.seed and a salt named here, one per use, so that no two
 * uses share one. Never change a value: it changes the results of every run. */
#define CS_HASH_GOLDEN 0x9e3779b97f4a7c15u  /* key of (seed, tick): seed * golden + tick + salt */
#define CS_HASH_EXPLORE 0x0u                /* sim: the cursor of a tick's exploring picks */
#define CS_HASH_EXPLORE_TAG 0x746167000013u /* sim: the frontier's tags (exploration order) */
#define CS_HASH_TRES_EXPLORE 0x7e5u         /* tres: exploration picks of the Tree-Frontier */
#define CS_HASH_SEED_PAGES 0x5eedu /* sim: the order of seed-page candidates (seed + salt) */
#define CS_HASH_REFRESH 0x7265667265736801u /* sim: the re-crawl policy's seed (seed ^ salt) */
/* gen: the flags of a page's web-like structure, keyed by gen.seed (gen.c page_flag) */
#define CS_HASH_DANGLING 0x64616e676c650001u /* a page without out-links */
#define CS_HASH_UNLINKED 0x756e6c696e6b0002u /* a page no link points to */
#define CS_HASH_TREE_UP 0x747265657570003u   /* a page's link to its directory */
#define CS_HASH_TREE_DOWN 0x74726565646f004u /* its directory's link to it */
#define CS_HASH_SIBLING 0x7369626c696e005u   /* the pair of a page and its next sibling */
#define CS_HASH_TEMPLATE 0x74656d706c61006u  /* a page that carries its host's template */
#define CS_HASH_NEAR 0x6e656172000007u       /* a drawn in-host link placed near its source */
#define CS_HASH_ROLE 0x726f6c6500000008u     /* a host's bow-tie role (gen_impl.h host_role) */
#define CS_HASH_SNAP 0x736e617000000009u     /* a near link moved onto a directory page */
#define CS_HASH_FORWARD 0x667764000000000au  /* a near link's direction (gen.near_forward) */
#define CS_HASH_CROSS 0x63726f737300000bu    /* an in-host link sent to a neighbouring host */
#define CS_HASH_POPDEG 0x706f706465670cu     /* a page's out-degree at its popularity quantile */
#define CS_HASH_PAIR 0x7061697273000d00u     /* a reciprocal pair at gap 2^k (+ k: one per level) */
#define CS_HASH_HOME 0x686f6d6500000eu       /* a drawn link sent to a popular host's home page */
#define CS_HASH_TREE_ONLY 0x74726f6e6c790fu  /* a page only the directory tree links to */
#define CS_HASH_SITE 0x7369746500000010u     /* a host that starts a site (gen.site_hosts) */
#define CS_HASH_LIFT 0x6c69667400000011u     /* the ancestor a tree_only page hangs from */
#define CS_HASH_COPY 0x636f707900000012u     /* the rounding of a page's copied links */
#define CS_HASH_POOL 0x706f6f6c00000013u     /* a host's pool of link draws (gen.host_pool) */
#define CS_HASH_HOST_DEG 0x6864656700000014u /* a host's out-degree level (gen.host_degree) */
#define CS_HASH_HOST_DANG 0x6864616e67000015u /* a host's dangling level (gen.host_dangling) */

typedef struct cs_rng {
    uint64_t key[2];
    uint64_t ctr[4];
    uint64_t buf[4];
    unsigned used; /* words of buf consumed; 4 = refill needed */
} cs_rng;

/* Local. A stream positioned at its first draw. */
CS_API void cs_rng_init(cs_rng *r, uint64_t seed, cs_rng_domain domain, uint64_t id, uint64_t sub);
/* Local. Jumps to draw block `block` (each block is 4 words), discarding buffered words. */
CS_API void cs_rng_seek(cs_rng *r, uint64_t block);

/* Local. Internal to the inline fast path below: computes the next block of four words into
 * r->buf (one Philox4x64-10 call), advances the block counter, sets r->used = 1 and returns the
 * first word. The only out-of-line step of cs_rng_u64; other modules never call it. */
CS_API uint64_t cs_rng_refill(cs_rng *r);

#if defined(__GNUC__)
#define CS_RNG_UNLIKELY_(x) __builtin_expect(!!(x), 0)
#else
#define CS_RNG_UNLIKELY_(x) (x)
#endif

/* Local. The next raw 64-bit word. Inline: three of four calls are a load and an increment. */
static inline uint64_t cs_rng_u64(cs_rng *r)
{
    if (CS_RNG_UNLIKELY_(r->used >= 4))
        return cs_rng_refill(r);
    return r->buf[r->used++];
}

/* Local. Uniform on [0,1) with 53 random bits: the top 53 bits of one word times 2^-53. */
static inline double cs_rng_uniform(cs_rng *r)
{
    return (double)(cs_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Local. Uniform on (0,1], safe under log(): (top 53 bits + 1) times 2^-53. */
static inline double cs_rng_uniform_pos(cs_rng *r)
{
    return (double)((cs_rng_u64(r) >> 11) + 1) * 0x1.0p-53;
}

/* Local. The full 128-bit product a*b as (returned high word, *lo), in 64-bit arithmetic only:
 * the fallback of cs_rng_mul64_ where the compiler has no 128-bit integer. */
static inline uint64_t cs_rng_mul64_portable_(uint64_t a, uint64_t b, uint64_t *lo)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 cs_rng_u128_;
/* Local. The full 128-bit product a*b as (returned high word, *lo). */
static inline uint64_t cs_rng_mul64_(uint64_t a, uint64_t b, uint64_t *lo)
{
    cs_rng_u128_ m = (cs_rng_u128_)a * b;
    *lo = (uint64_t)m;
    return (uint64_t)(m >> 64);
}
#else
static inline uint64_t cs_rng_mul64_(uint64_t a, uint64_t b, uint64_t *lo)
{
    return cs_rng_mul64_portable_(a, b, lo);
}
#endif

/*
 * Local. Uniform integer in [0, n), unbiased, for n > 0 (n == 0 returns 0): Lemire's
 * nearly-divisionless method (D. Lemire, "Fast random integer generation in an interval",
 * ACM TOMACS 29(1), 2019). The high word of x*n is the result unless the low word falls in the
 * 2^64 mod n values that would bias it; the division computing that threshold runs only when
 * the low word is below n, i.e. with probability n/2^64.
 */
static inline uint64_t cs_rng_below(cs_rng *r, uint64_t n)
{
    uint64_t lo;
    uint64_t hi = cs_rng_mul64_(cs_rng_u64(r), n, &lo);
    if (CS_RNG_UNLIKELY_(lo < n)) {
        uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
        while (lo < threshold)
            hi = cs_rng_mul64_(cs_rng_u64(r), n, &lo);
    }
    return hi;
}

/* Local. Bernoulli(p): 1 with probability p (p <= 0 never, p >= 1 always). One word per call. */
static inline int cs_rng_bernoulli(cs_rng *r, double p)
{
    return cs_rng_uniform(r) < p;
}

/* Local. The stream's next n words into w[0, n), the same as n cs_rng_u64 calls, with its whole
 * Philox blocks computed back to back. */
CS_API void cs_rng_words(cs_rng *r, int64_t n, uint64_t *w);
/* Local. Standard normal N(0,1) (Box-Muller on two uniforms, no cached second value so the
 * stream position is a function of the number of calls only). */
CS_API double cs_rng_normal(cs_rng *r);
/* Local. n cs_rng_normal draws into z[0, n), bit-identical to n calls one by one (the same words
 * and the same libm calls), without the per-word bookkeeping of the one-by-one path (the
 * generator's term vectors take cs_rng_normals_f32's floats instead). */
CS_API void cs_rng_normals(cs_rng *r, int64_t n, double *z);
/* Local. out[i] = (float)((double)base[i] + scale z_i) for i in [0, n), z the stream's next n
 * cs_rng_normal draws: the same words and the same floats as cs_rng_normals and that sum, with
 * libm's log and cos called only for the draws whose float an approximation of them could
 * change (src/rng/normals_f32.c: about one in a thousand). Returns how many those were. */
CS_API int64_t cs_rng_normals_f32(cs_rng *r, int64_t n, const float *base, double scale,
                                  float *out);
/* Process-wide. The vector kernel of cs_rng_normals_f32, for tests and benchmarks (the floats are
 * the same with each): force "base" (the build's baseline vectors), "avx2" or "avx512" if this
 * CPU runs it, or NULL for the best it runs (the default). Returns the kernel's name, or NULL
 * (nothing changed) when it is unknown or this CPU cannot run it. */
CS_API const char *cs_rng_normals_f32_kernel(const char *force);
/* Local. The approximation behind cs_rng_normals_f32 of Box-Muller's draw from the words w1
 * (under the log) and w2 (under the cosine): within about 1e-15 of cs_rng_normal's (tests). */
CS_API double cs_rng_normal_approx(uint64_t w1, uint64_t w2);
/* Local. Standard normal N(0,1) by the ziggurat: about 1.01 words and no libm call per draw on
 * average, ~5x faster than cs_rng_normal, for draws on the crawl's hot paths (the world generator
 * keeps Box-Muller so that generated worlds do not change). */
CS_API double cs_rng_normal_zig(cs_rng *r);
/* Local. n cs_rng_normal_zig draws into z[0, n), bit-identical to n calls one by one, with the
 * ziggurat's fast path on the buffered words inline (gen.term_normals = ziggurat). */
CS_API void cs_rng_normals_zig(cs_rng *r, int64_t n, double *z);
/* Local. For each i in [0, n), the first m >= 0 cs_rng_normal_zig draws of the stream (seed,
 * domain, id, subs[i]) into z[i * m .. i * m + m), bit-identical to drawing them one by one, but
 * with the streams' first Philox blocks computed back to back (one block covers m <= 4 draws
 * ~99 % of the time; draws beyond the first block take the one-by-one path). */
CS_API void cs_rng_normals_zig_batch(uint64_t seed, cs_rng_domain domain, uint64_t id,
                                     const int64_t *subs, int64_t n, int m, double *z);
/* Local. exp(mu + sigma N(0,1)). */
CS_API double cs_rng_lognormal(cs_rng *r, double mu, double sigma);
/* Local. Exponential with the given rate (> 0): mean 1/rate. */
CS_API double cs_rng_exponential(cs_rng *r, double rate);
/* Local. Poisson with the given mean (>= 0): inversion below 30, PTRS (Hormann 1993) above. */
CS_API uint64_t cs_rng_poisson(cs_rng *r, double mean);
/* Local. Continuous Pareto: P(X > x) = (xmin/x)^(alpha-1) for x >= xmin, i.e. density
 * exponent alpha (> 1). */
CS_API double cs_rng_pareto(cs_rng *r, double xmin, double alpha);
/* Local. Continuous power law on [xmin, xmax) (0 < xmin < xmax) with density proportional to
 * x^-alpha, any real alpha (alpha = 1 is log-uniform). */
CS_API double cs_rng_power_bounded(cs_rng *r, double xmin, double xmax, double alpha);
/* The same law with its constants computed once (log(xmax / xmin) and its expm1), for loops
 * that draw it many times: cs_powlaw_draw gives the bits cs_rng_power_bounded gives. */
typedef struct cs_powlaw {
    double xmin, xmax, a, span, e;
} cs_powlaw;
/* Local. Prepares the law of cs_rng_power_bounded(., xmin, xmax, alpha). */
CS_API void cs_powlaw_init(cs_powlaw *p, double xmin, double xmax, double alpha);
/* Local. One draw (one word of r). */
CS_API double cs_powlaw_draw(const cs_powlaw *p, cs_rng *r);
/* Local, pure. The law's value at the uniform u in [0, 1): cs_powlaw_draw is this at the word's
 * uniform, bit for bit. */
CS_API double cs_powlaw_at(const cs_powlaw *p, double u);
/* Local, pure. The standard normal quantile: z with P(N(0,1) < z) = u, u in (0, 1) (-inf at 0,
 * +inf at 1; u below 1e-300 taken as 1e-300): Abramowitz and Stegun 26.2.23 (error below
 * 4.5e-4) refined by two Halley steps on erfc in the nearer tail, to about erfc's precision. */
CS_API double cs_normal_quantile(double u);

/* Zipf on {1..n}: P(k) proportional to k^-s, s >= 0, exact (rejection-inversion,
 * Hormann & Derflinger 1996). The constants are precomputed once per (n, s). */
typedef struct cs_zipf {
    uint64_t n;
    double s;
    double h_x1;   /* H(1.5) - 1 */
    double h_n;    /* H(n + 0.5) */
    double sconst; /* 2 - H^{-1}(H(2.5) - h(2)) */
} cs_zipf;

/* Local. Prepares a Zipf sampler; CS_ERR_ARG if n == 0 or s < 0 or not finite. */
CS_API cs_err cs_zipf_init(cs_zipf *z, uint64_t n, double s);
/* Local. One draw in {1..n}. */
CS_API uint64_t cs_zipf_draw(const cs_zipf *z, cs_rng *r);

/* Categorical over k outcomes by Walker's alias method with Vose's numerically stable setup
 * (M. D. Vose, IEEE TSE 17(9), 1991): O(k) setup, O(1) draws.
 * Caller-owned storage; cs_alias_fini frees what cs_alias_init allocated. */
typedef struct cs_alias {
    int64_t k;
    double *prob;
    int64_t *alias;
} cs_alias;

/* Local. weights[k] >= 0 with a positive finite sum; CS_ERR_ARG otherwise, CS_ERR_NOMEM (also
 * for a k whose tables cannot be addressed). Zeroes *a first, so it is zeroed on failure; it
 * never frees a table *a held before. */
CS_API cs_err cs_alias_init(cs_alias *a, const double *weights, int64_t k);
/* Local. One draw in [0, k): a uniform column, then its coin against prob (two words). */
static inline int64_t cs_alias_draw(const cs_alias *a, cs_rng *r)
{
    int64_t i = (int64_t)cs_rng_below(r, (uint64_t)a->k);
    return cs_rng_uniform(r) < a->prob[i] ? i : a->alias[i];
}
/* Local. Frees the tables; accepts a zeroed struct. */
CS_API void cs_alias_fini(cs_alias *a);

/* Local. A stateless 64-bit mixer (splitmix64 finaliser), for hashing ids. */
static inline uint64_t cs_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

#endif
