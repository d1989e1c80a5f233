/*
 * features: the state and action features of Han, Wuillemin and Senellart's focused crawler
 * (focused-crawling-sarsa.txt, Sec. 3.1), their discretisation, and the evidence a crawler has
 * about pages and links in a crawlsim world.
 *
 * Features. A state (a fetched page) has 8 + 2a discretised indexes and an action (a link) 6 + 2a,
 * a = number of related categories (Sec. 4):
 *   state   relevance (5- and 6-bucket), relevance change (5 buckets, delta1/delta2),
 *           per category relevance (5, 6), average relevance of all parents (5, 6), of relevant
 *           parents (5, 6), distance from the last relevant page (0..9, 10 buckets)
 *   action  anchor relevance (5, 6), per category anchor relevance (5, 6), average relevance of
 *           all parents (5, 6), of relevant parents (5, 6)
 * The linear Q of Eq. 2 is a sum of one weight per index (one-hot coding of each index), so
 * Q(x) = sum_f w_f[x_f]. For the hot loop, consecutive indexes are packed into one byte code
 * (their bucket counts multiply to at most CS_FEAT_CODES = 32), and Q(x) = sum_g T_g[code_g] with
 * tables T rebuilt from w (qnet.h): a frontier entry carries G bytes of codes, state groups
 * first, then action groups. 32 codes, not 256: a group's table is then 32 floats, two AVX-512
 * registers, and the frontier's re-evaluation is a register permute per group instead of a load
 * (G = 12 bytes at a = 2 instead of 9, but 2x faster: qnet.h).
 *
 * Evidence. A crawler estimates relevance as a classifier would: a fetched page's relevance to
 * the target topic (and to each related category) is the cosine between its term vector and the
 * topic's prototype (gen.h); a link's anchor evidence is that of the anchor vector, the target's
 * term vector plus anchor noise (DESIGN.md). For speed, the anchor's cosine uses the exact
 * distribution of its projections (t.p_j + z_j sigma_a / sqrt(dim), z_j standard normal from the
 * stream (world seed, src, dst)) over the expected norm sqrt(|t|^2 + sigma_a^2). The projections of
 * every page's term vector are replicated on every rank ((2 + a) floats per page). Related
 * categories are the topics nearest the target on the topic ring (target+1, target-1, +2, -2).
 * Imported graphs have no term vectors: their page estimate is the stored relevance and a link's
 * anchor estimate the target's relevance plus the same noise; categories are then 0.
 */
#ifndef CRAWLSIM_FEATURES_H
#define CRAWLSIM_FEATURES_H

#include "crawlsim/config.h"
#include "crawlsim/core.h"
#include "crawlsim/graph.h"

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CS_FEAT_MAX_CATEGORIES 4
#define CS_FEAT_MAX_INDEXES 32
#define CS_FEAT_MAX_GROUPS 16
#define CS_FEAT_CODES 32 /* codes of a group are 0 .. CS_FEAT_CODES - 1 */
#define CS_FEAT_DIST_CAP 9

/* The feature layout of a run (plain data, filled by cs_feat_layout_init). */
typedef struct cs_feat_layout {
    int categories;                          /* a */
    int n_state, n_action;                   /* indexes: 8 + 2a, 6 + 2a */
    int n_index;                             /* n_state + n_action */
    int buckets[CS_FEAT_MAX_INDEXES];        /* bucket count of each index */
    int weight_off[CS_FEAT_MAX_INDEXES];     /* first weight of each index */
    int n_weights;                           /* sum of buckets */
    int n_groups, n_state_groups;            /* G, and how many of them are state groups */
    int group_first[CS_FEAT_MAX_GROUPS + 1]; /* indexes of group g: [first[g], first[g+1]) */
    int index_group[CS_FEAT_MAX_INDEXES];    /* the group of each index */
    int index_mul[CS_FEAT_MAX_INDEXES];      /* its place value in the group's code */
    int action_pairs; /* every action group is one (5-bucket, 6-bucket) pair: code = a + 5 b */
    double delta1, delta2, beta;
} cs_feat_layout;

/* Local. The layout for `categories` related categories and the [sarsa] parameters. */
CS_API void cs_feat_layout_init(cs_feat_layout *L, const cs_sarsa_config *sc);

/* Local. Exactly (v > lo ? v : lo), then (. < hi ? . : hi); a NaN gives lo. Without a branch:
 * gcc compiles the conditionals to compares and jumps, which the data (estimates with noise)
 * mispredict about half of the time; maxsd and minsd have exactly these semantics. */
static inline double cs_feat_clamp(double v, double lo, double hi)
{
#if defined(__SSE2__)
    __m128d x = _mm_max_sd(_mm_set_sd(v), _mm_set_sd(lo));
    return _mm_cvtsd_f64(_mm_min_sd(x, _mm_set_sd(hi)));
#else
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
#endif
}

/* Local. Discretisations of Sec. 3.1: [0,.2),[.2,.4),..,[.8,1] -> 0..4; [0,.1),[.1,.3),..,
 * [.9,1] -> 0..5; relevance change c -> 0 (|c| <= delta1), 1 (c <= delta2), 2 (c > delta2),
 * 3 (c >= -delta2), 4 (c < -delta2). */
static inline int cs_feat_q5(double v)
{
    /* branch-free: the values are data, and every link record takes several */
    return (int)(cs_feat_clamp(v, 0.0, 4.0 / 5.0) * 5.0);
}

static inline int cs_feat_q6(double v)
{
    /* explicit comparisons: (v + 0.1) * 5 rounds across the boundaries (0.7 -> 3) */
    return (v >= 0.1) + (v >= 0.3) + (v >= 0.5) + (v >= 0.7) + (v >= 0.9);
}
CS_API int cs_feat_change(const cs_feat_layout *L, double c);

/* Local. Packs n indexes (idx[0..n) of the groups starting at index `first_index`, which must
 * be a group boundary) into group codes out[0..). */
CS_API void cs_feat_pack(const cs_feat_layout *L, int first_index, int n, const uint8_t *idx,
                         uint8_t *out);
/* Local. The inverse: the indexes of group code `code` of group g into idx (buckets order). */
CS_API int cs_feat_unpack(const cs_feat_layout *L, int g, uint8_t code, uint8_t *idx);

/* What a rank knows about a fetched page: its estimates and the features it hands its links. */
typedef struct cs_feat_page {
    float rl;     /* estimated relevance to the target */
    float wrl;    /* exponentially smoothed relevance over the ancestors */
    uint8_t dist; /* distance from the last relevant page, capped at 9 */
    uint8_t relevant;
    uint8_t state[CS_FEAT_MAX_GROUPS]; /* packed state codes (n_state_groups bytes) */
} cs_feat_page;

/* Parent aggregates of a link (unvisited URL), updated as parents are crawled. */
typedef struct cs_feat_parents {
    uint16_t n, n_rel;     /* parents, relevant parents (saturating) */
    float sum_rl, sum_rel; /* sums of the parents' (relevant parents') relevance */
    float best_wrl;        /* max over parents of w_rl (Sec. 3.1) */
    uint8_t min_dist;      /* min over parents of their distance */
    /* TRES (cs_tres_x): the web path of the parent with the largest relevant fraction (ties:
     * the first): its length and relevant pages, halved together when the length reaches 255
     * (so the fraction keeps its value; a window of the last ~128..255 pages) */
    uint8_t path_len, path_rel;
} cs_feat_parents;

/* The record sent for a link to the owner of its target (exchange payload, 48 bytes). */
typedef struct cs_link_msg {
    int64_t dst, src;
    float anchor_rl;     /* anchor relevance estimate */
    float parent_rl;     /* the parent's estimated relevance */
    float parent_wrl;    /* the parent's w_rl */
    uint32_t anchor_cat; /* anchor category buckets: 4 bits each, (q5, q6) per category */
    uint8_t parent_dist, parent_relevant;
    uint8_t state[CS_FEAT_MAX_GROUPS - 6];    /* the parent's packed state codes */
    uint8_t parent_path_len, parent_path_rel; /* TRES: the parent's web path (cs_feat_parents) */
    uint16_t url_rl; /* TRES: the URL-words estimate of dst (cs_tres_url_rl) * 65535; 0 unless
                        the policy uses TRES features */
} cs_link_msg;

/* Evidence about pages (opaque): a table of one row per page it knows, the page's projections
 * on the target and the categories and its norm. */
typedef struct cs_evidence cs_evidence;
struct cs_gen;

/* Which rows an evidence table holds (cs_evidence_create). NULL: every page of the world,
 * row = page id (replicated). Otherwise this rank's local pages (row = local index), then its
 * ghosts: other ranks' pages, ghost[0..n_ghost) sorted (row = n_local + its index), each row
 * sent by the page's owner to the ranks listed for it: sub[sub_off[li] .. sub_off[li + 1]) for
 * local page li (every rank's lists together name exactly every rank's ghosts). */
typedef struct cs_evidence_rows {
    const int64_t *ghost;
    int64_t n_ghost;
    const int64_t *sub_off;
    const int32_t *sub;
} cs_evidence_rows;

/*
 * Collective(ctx->comm). Builds the evidence table of graph g: with gen (a generated world),
 * each rank computes its pages' term projections; with gen NULL (imported graph) the relevance
 * stands in. rows NULL: the table is allgathered (N rows on every rank); else each owner sends
 * its pages' rows to the ranks that hold them as ghosts (one exchange by crawl.exchange; n_local +
 * n_ghost rows per rank). Errors (the same on every rank): CS_ERR_NOMEM, CS_ERR_CONFIG when the
 * layout has more categories than the world's topics allow.
 */
CS_API cs_err cs_evidence_create(cs_ctx *ctx, const cs_graph *g, const struct cs_gen *gen,
                                 const cs_config *cfg, const cs_feat_layout *L,
                                 const cs_evidence_rows *rows, cs_evidence **out);
/*
 * Local. The evidence of the procedural world (gen.materialize = false): no table; a row is
 * computed from the page's term vector when it is read (row = page id), with the function that
 * fills the table of cs_evidence_create, so the values are the same bits; the rows made are
 * kept in a direct-mapped cache per OpenMP thread (32 bytes an entry, a 16th of the world's
 * pages, between 1 024 and 2^18 entries: at most 8 MiB a thread), whose hits give the same
 * bits. gen is borrowed for the evidence's lifetime. Errors: CS_ERR_NOMEM, CS_ERR_CONFIG as
 * cs_evidence_create.
 */
CS_API cs_err cs_evidence_create_on_demand(cs_ctx *ctx, const struct cs_gen *gen,
                                           const cs_config *cfg, const cs_feat_layout *L,
                                           cs_evidence **out);
/* Local. Frees; accepts NULL, sets *e = NULL. */
CS_API void cs_evidence_destroy(cs_evidence **e);
/* Local. Estimated relevance of the page in `row` to the target (cats[0..a) to the categories),
 * in [0,1]. */
CS_API float cs_evidence_page(const cs_evidence *e, int64_t row, float *cats);
/* Local. Anchor estimates of link src -> dst, dst's row drow (deterministic in (world seed,
 * src, dst)). */
CS_API float cs_evidence_anchor(const cs_evidence *e, int64_t src, int64_t dst, int64_t drow,
                                float *cats);
/* Local. cs_evidence_anchor for the links src -> dst[0..n) (rows drow[0..n)),
 * n <= CS_EVIDENCE_BATCH: rl[i] and cats[i * a ..], bit-identical to n single calls, with the
 * noise streams' Philox blocks computed back to back (cs_rng_normals_zig_batch). */
#define CS_EVIDENCE_BATCH 64
CS_API void cs_evidence_anchors(const cs_evidence *e, int64_t src, const int64_t *dst,
                                const int64_t *drow, int64_t n, float *rl, float *cats);
/* Local. A hint that the row follows soon (rows of the targets of a page are scattered over the
 * whole table, a cache miss each; rows made on demand: the first stage of their page's host,
 * cs_gen_prefetch_host, and cs_evidence_anchors makes the second). */
CS_API void cs_evidence_prefetch(const cs_evidence *e, int64_t row);
/* Local. The categories' anchor buckets packed 4 bits each, (q5, q6) per category. */
static inline uint32_t cs_feat_pack_anchor_cats(const cs_feat_layout *L, const float *cats)
{
    uint32_t v = 0;
    for (int j = 0; j < L->categories; j++)
        v |= (uint32_t)(cs_feat_q5((double)cats[j]) | cs_feat_q6((double)cats[j]) << 4) << (8 * j);
    return v;
}

/*
 * Local. The state of a fetched page (Sec. 3.1) from its estimates (rl, cats), ground truth
 * `relevant`, and the aggregates of the parents it was reached from (NULL or n = 0 for a seed).
 */
CS_API void cs_feat_page_state(const cs_feat_layout *L, float rl, const float *cats, int relevant,
                               const cs_feat_parents *par, cs_feat_page *out);

/* Local. Folds one more parent (from a link message) into the aggregates. */
CS_API void cs_feat_parents_add(cs_feat_parents *par, const cs_link_msg *m);

/* Local. The action codes (n_groups - n_state_groups bytes) of a link from its anchor evidence
 * and parent aggregates. */
CS_API void cs_feat_action(const cs_feat_layout *L, float anchor_rl, uint32_t anchor_cat,
                           const cs_feat_parents *par, uint8_t *out);
/* Local. cs_feat_action in two steps, for many links with the same parents (a fetched page's
 * out-links): the parents' four indexes once, then each link's action with them. */
CS_API void cs_feat_parent_idx(const cs_feat_parents *par, uint8_t out[4]);
CS_API void cs_feat_action_with_packed(const cs_feat_layout *L, float anchor_rl,
                                       uint32_t anchor_cat, const uint8_t parent_idx[4],
                                       uint8_t *out);
static inline void cs_feat_action_with(const cs_feat_layout *L, float anchor_rl,
                                       uint32_t anchor_cat, const uint8_t parent_idx[4],
                                       uint8_t *out)
{
    if (!L->action_pairs) {
        cs_feat_action_with_packed(L, anchor_rl, anchor_cat, parent_idx, out);
        return;
    }
    /* the layout of every a (groups of at most 32 codes pair each 5-bucket index with the
     * 6-bucket one after it): the codes directly, inline (every link record) */
    int k = 0;
    out[k++] = (uint8_t)(cs_feat_q5((double)anchor_rl) + 5 * cs_feat_q6((double)anchor_rl));
    for (int j = 0; j < L->categories; j++)
        out[k++] = (uint8_t)((anchor_cat >> (8 * j) & 0xf) + 5 * (anchor_cat >> (8 * j + 4) & 0xf));
    out[k++] = (uint8_t)(parent_idx[0] + 5 * parent_idx[1]);
    out[k++] = (uint8_t)(parent_idx[2] + 5 * parent_idx[3]);
}

/* Local. The anchor category buckets (as cs_feat_pack_anchor_cats) that the action codes
 * `action` (n_groups - n_state_groups bytes, written by cs_feat_action) encode. */
CS_API uint32_t cs_feat_action_anchor_cat(const cs_feat_layout *L, const uint8_t *action);

/* Local. The action codes `out` (cs_feat_action's for anchor_rl and some anchor categories and
 * parents) rewritten for the parents par with the same anchor evidence: exactly cs_feat_action
 * with the anchor categories that out encodes (a frontier entry stores its codes, not its
 * categories: cs_feat_action_anchor_cat). */
static inline void cs_feat_action_keep_anchor(const cs_feat_layout *L, float anchor_rl,
                                              const cs_feat_parents *par, uint8_t *out)
{
    if (!L->action_pairs) {
        cs_feat_action(L, anchor_rl, cs_feat_action_anchor_cat(L, out), par, out);
        return;
    }
    /* the anchor's groups (relevance, then a categories) are unchanged: the parents' two */
    uint8_t pidx[4];
    cs_feat_parent_idx(par, pidx);
    out[1 + L->categories] = (uint8_t)(pidx[0] + 5 * pidx[1]);
    out[2 + L->categories] = (uint8_t)(pidx[2] + 5 * pidx[3]);
}

/*
 * TRES features (Kontogiannis et al. Sec. 2.4.1; the authors' code's order): the shared
 * state-action vector of a link, raw values in [0, 1]:
 *   x[0] parent reward (the parent page is relevant)
 *   x[1] 1 / hops from the link's target to the last relevant page on the parent's path
 *        (1 / (parent distance + 1); the distance is capped at CS_FEAT_DIST_CAP)
 *   x[2] relevant fraction of the parent's web path (seed .. parent)
 *   x[3] keyword in the URL:      url_rl    >= CS_TRES_KW_URL
 *   x[4] keyword in the anchor:   anchor_rl >= CS_TRES_KW_ANCHOR
 *   x[5] keyphrase in the anchor: anchor_rl >= CS_TRES_KP_ANCHOR
 *   [x[6] host relevant ratio so far (0.5 for a host not fetched yet),
 *    x[7] host known: 1, or 0.5 for a host not fetched yet]      (host features on)
 *   x[d-1] classifier P(relevant | anchor and URL words) = logistic(CS_TRES_CLS_SLOPE *
 *        ((anchor_rl + url_rl) / 2 - CS_TRES_CLS_MID))
 * Stand-ins (no words in a crawlsim world): the anchor's words are the link's anchor evidence
 * (cs_evidence_anchor, a noisy view of the target's term vector); the URL's words are a second,
 * independent view of the same noise level, the anchor evidence of the pseudo-link
 * (-1 - dst) -> dst, which depends on the target only (one URL, whatever links to it); keyword
 * and keyphrase presence are thresholds on those estimates (a keyphrase is a stricter match);
 * the BiLSTM is a logistic curve on the mean of both views (two views: less noise than either).
 */
#define CS_TRES_MAX_D 9
#define CS_TRES_KW_URL 0.3f
#define CS_TRES_KW_ANCHOR 0.3f
#define CS_TRES_KP_ANCHOR 0.5f
#define CS_TRES_CLS_MID 0.15f
#define CS_TRES_CLS_SLOPE 10.0f

/* Local. The TRES vector length: 9 with host features, 7 without. */
CS_API int cs_tres_dim(int host_features);
/* Local. The URL-words estimate of page dst (row drow), in [0, 1] (deterministic in (world
 * seed, dst)). */
CS_API float cs_tres_url_rl(const cs_evidence *e, int64_t dst, int64_t drow);
/* Local. The TRES vector of link record m into x[0 .. cs_tres_dim(host_features)), with the
 * host's fetched and relevant pages as this rank knows them. */
CS_API void cs_tres_x(int host_features, const cs_link_msg *m, int64_t host_fetched,
                      int64_t host_relevant, float *x);
/* Local. Extends a web path (len, rel) by one page; halves both when len would pass 255. */
CS_API void cs_tres_path_step(uint8_t *len, uint8_t *rel, int relevant);

#endif
