/*
 * features: Han et al.'s state and action features (Sec. 3.1), their discretisation and byte
 * packing, and the evidence table (see include/crawlsim/features.h for the model).
 */
#include "crawlsim/features.h"
#include "crawlsim/comm.h"
#include "crawlsim/gen.h"
#include "crawlsim/rng.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout ------------------------------------------------------------------------------- */

static void push(cs_feat_layout *L, int buckets)
{
    CS_ASSERT(L->n_index < CS_FEAT_MAX_INDEXES);
    L->buckets[L->n_index] = buckets;
    L->weight_off[L->n_index] = L->n_weights;
    L->n_weights += buckets;
    L->n_index++;
}

/* Greedy packing of indexes [from, to) into groups whose bucket products stay <= CS_FEAT_CODES. */
static void make_groups(cs_feat_layout *L, int from, int to)
{
    int prod = 1;
    for (int i = from; i < to; i++) {
        if (i == from || prod * L->buckets[i] > CS_FEAT_CODES) {
            CS_ASSERT(L->n_groups < CS_FEAT_MAX_GROUPS);
            L->group_first[L->n_groups++] = i;
            prod = 1;
        }
        prod *= L->buckets[i];
    }
    L->group_first[L->n_groups] = to;
    for (int g = L->n_groups - 1, mul = 1; g >= 0 && L->group_first[g] >= from; g--, mul = 1)
        for (int i = L->group_first[g]; i < L->group_first[g + 1]; i++) {
            L->index_group[i] = g;
            L->index_mul[i] = mul;
            mul *= L->buckets[i];
        }
}

/* What state and action features share, in this order: the a categories, parents, relevant
 * parents (two indexes each, of 5 and 6 buckets). */
static void push_shared(cs_feat_layout *L, int a)
{
    for (int j = 0; j < a + 2; j++) {
        push(L, 5);
        push(L, 6);
    }
}

void cs_feat_layout_init(cs_feat_layout *L, const cs_sarsa_config *sc)
{
    memset(L, 0, sizeof *L);
    L->categories = (int)sc->categories;
    L->delta1 = sc->delta1;
    L->delta2 = sc->delta2;
    L->beta = sc->beta;
    const int a = L->categories;
    /* state: relevance, change, categories, parents, relevant parents, distance */
    push(L, 5);
    push(L, 6);
    push(L, 5);
    push_shared(L, a);
    push(L, CS_FEAT_DIST_CAP + 1);
    L->n_state = L->n_index;
    /* action: anchor relevance, anchor categories, parents, relevant parents */
    push(L, 5);
    push(L, 6);
    push_shared(L, a);
    L->n_action = L->n_index - L->n_state;
    make_groups(L, 0, L->n_state);
    L->n_state_groups = L->n_groups;
    make_groups(L, L->n_state, L->n_index);
    L->action_pairs = 1;
    for (int g = L->n_state_groups; g < L->n_groups; g++) {
        const int i = L->group_first[g];
        L->action_pairs &=
            L->group_first[g + 1] - i == 2 && L->buckets[i] == 5 && L->buckets[i + 1] == 6;
    }
    CS_ASSERT(L->n_state_groups <= CS_FEAT_MAX_GROUPS - 6);
}

int cs_feat_change(const cs_feat_layout *L, double c)
{
    if (fabs(c) <= L->delta1)
        return 0;
    if (c > 0)
        return c <= L->delta2 ? 1 : 2;
    return c >= -L->delta2 ? 3 : 4;
}

void cs_feat_pack(const cs_feat_layout *L, int first_index, int n, const uint8_t *idx, uint8_t *out)
{
    /* with precomputed place values; each code is summed in a register (a hot path: every
     * link record) */
    const int end = first_index + n;
    for (int g = L->index_group[first_index], i = first_index; i < end; g++) {
        int code = 0;
        for (; i < L->group_first[g + 1]; i++)
            code += L->index_mul[i] * idx[i - first_index];
        *out++ = (uint8_t)code;
    }
}

int cs_feat_unpack(const cs_feat_layout *L, int g, uint8_t code, uint8_t *idx)
{
    int c = code, k = 0;
    for (int i = L->group_first[g]; i < L->group_first[g + 1]; i++) {
        idx[k++] = (uint8_t)(c % L->buckets[i]);
        c /= L->buckets[i];
    }
    return k;
}

/* ---- page state and link aggregates ------------------------------------------------------- */

void cs_feat_page_state(const cs_feat_layout *L, float rl, const float *cats, int relevant,
                        const cs_feat_parents *par, cs_feat_page *out)
{
    const int has = par != NULL && par->n > 0;
    const double pw = has ? (double)par->best_wrl : 0.0;
    const double avg = has ? (double)par->sum_rl / par->n : 0.0;
    const double avg_rel = has && par->n_rel > 0 ? (double)par->sum_rel / par->n_rel : 0.0;
    uint8_t idx[CS_FEAT_MAX_INDEXES];
    int k = 0;
    idx[k++] = (uint8_t)cs_feat_q5((double)rl);
    idx[k++] = (uint8_t)cs_feat_q6((double)rl);
    idx[k++] = (uint8_t)cs_feat_change(L, has ? (double)rl - pw : 0.0);
    for (int j = 0; j < L->categories; j++) {
        idx[k++] = (uint8_t)cs_feat_q5((double)cats[j]);
        idx[k++] = (uint8_t)cs_feat_q6((double)cats[j]);
    }
    idx[k++] = (uint8_t)cs_feat_q5(avg);
    idx[k++] = (uint8_t)cs_feat_q6(avg);
    idx[k++] = (uint8_t)cs_feat_q5(avg_rel);
    idx[k++] = (uint8_t)cs_feat_q6(avg_rel);
    int dist = CS_FEAT_DIST_CAP;
    if (relevant)
        dist = 0;
    else if (has && par->min_dist < CS_FEAT_DIST_CAP)
        dist = par->min_dist + 1;
    idx[k++] = (uint8_t)dist;
    CS_ASSERT(k == L->n_state);
    out->rl = rl;
    /* w_rl(x) = beta rl(x) + (1 - beta) max_{x' -> x} w_rl(x') (Sec. 3.1); a seed has no parent */
    out->wrl = has ? (float)(L->beta * (double)rl + (1.0 - L->beta) * pw) : rl;
    out->dist = (uint8_t)dist;
    out->relevant = (uint8_t)(relevant != 0);
    memset(out->state, 0, sizeof out->state);
    cs_feat_pack(L, 0, L->n_state, idx, out->state);
}

void cs_feat_parents_add(cs_feat_parents *par, const cs_link_msg *m)
{
    if (par->n == 0) {
        par->best_wrl = m->parent_wrl;
        par->min_dist = m->parent_dist;
        par->path_len = m->parent_path_len;
        par->path_rel = m->parent_path_rel;
    } else {
        /* the path with the larger relevant fraction: rel_m / len_m > rel / len */
        if ((unsigned)m->parent_path_rel * par->path_len >
            (unsigned)par->path_rel * m->parent_path_len) {
            par->path_len = m->parent_path_len;
            par->path_rel = m->parent_path_rel;
        }
        if (m->parent_wrl > par->best_wrl)
            par->best_wrl = m->parent_wrl;
        if (m->parent_dist < par->min_dist)
            par->min_dist = m->parent_dist;
    }
    if (par->n < UINT16_MAX)
        par->n++;
    par->sum_rl += m->parent_rl;
    if (m->parent_relevant) {
        if (par->n_rel < UINT16_MAX)
            par->n_rel++;
        par->sum_rel += m->parent_rl;
    }
}

void cs_feat_parent_idx(const cs_feat_parents *par, uint8_t out[4])
{
    const double avg = par->n > 0 ? (double)par->sum_rl / par->n : 0.0;
    const double avg_rel = par->n_rel > 0 ? (double)par->sum_rel / par->n_rel : 0.0;
    out[0] = (uint8_t)cs_feat_q5(avg);
    out[1] = (uint8_t)cs_feat_q6(avg);
    out[2] = (uint8_t)cs_feat_q5(avg_rel);
    out[3] = (uint8_t)cs_feat_q6(avg_rel);
}

/* The general form (any grouping): the indexes, then cs_feat_pack. */
void cs_feat_action_with_packed(const cs_feat_layout *L, float anchor_rl, uint32_t anchor_cat,
                                const uint8_t parent_idx[4], uint8_t *out)
{
    uint8_t idx[CS_FEAT_MAX_INDEXES];
    int k = 0;
    idx[k++] = (uint8_t)cs_feat_q5((double)anchor_rl);
    idx[k++] = (uint8_t)cs_feat_q6((double)anchor_rl);
    for (int j = 0; j < L->categories; j++) {
        idx[k++] = (uint8_t)(anchor_cat >> (8 * j) & 0xf);
        idx[k++] = (uint8_t)(anchor_cat >> (8 * j + 4) & 0xf);
    }
    for (int j = 0; j < 4; j++)
        idx[k++] = parent_idx[j];
    CS_ASSERT(k == L->n_action);
    cs_feat_pack(L, L->n_state, L->n_action, idx, out);
}

void cs_feat_action(const cs_feat_layout *L, float anchor_rl, uint32_t anchor_cat,
                    const cs_feat_parents *par, uint8_t *out)
{
    uint8_t pidx[4];
    cs_feat_parent_idx(par, pidx);
    cs_feat_action_with(L, anchor_rl, anchor_cat, pidx, out);
}

uint32_t cs_feat_action_anchor_cat(const cs_feat_layout *L, const uint8_t *action)
{
    uint8_t idx[CS_FEAT_MAX_INDEXES] = {0};
    int k = 0;
    for (int g = L->n_state_groups; g < L->n_groups; g++)
        k += cs_feat_unpack(L, g, action[g - L->n_state_groups], idx + k);
    /* the action's indexes: anchor (q5, q6), then (q5, q6) per category, then the parents' */
    CS_ASSERT(k == L->n_action && 2 + 2 * L->categories <= k);
    uint32_t v = 0;
    for (int j = 0; j < L->categories; j++)
        v |= (uint32_t)(idx[2 + 2 * j] | idx[3 + 2 * j] << 4) << (8 * j);
    return v;
}

/* ---- evidence ------------------------------------------------------------------------------ */

/* The largest gen.term_dim (config schema), and the lanes of one dimension's prototype values:
 * 1 + CS_FEAT_MAX_CATEGORIES, rounded up to an even count (pairs of doubles). */
#define TERM_DIM_MAX 1024
#define PT_LANES ((2 + CS_FEAT_MAX_CATEGORIES) / 2 * 2)

struct cs_evidence {
    int cats;     /* a */
    int stride;   /* 2 + a floats per page: projections on target and categories, norm */
    float *table; /* n_pages * stride; NULL on demand (rows computed from the page id) */
    const struct cs_gen *gen;                       /* generated worlds: the term vectors */
    const float *proto[1 + CS_FEAT_MAX_CATEGORIES]; /* target and categories' prototypes */
    int dim;                                        /* term_dim */
    /* the prototypes as doubles, by dimension (pt[d][j] = proto[j][d], 0 past the last): the
     * projections of a row are one pass over the term vector, each sum in the order of d */
    double pt[TERM_DIM_MAX][PT_LANES];
    uint64_t seed; /* world seed: the anchor noise stream */
    double sigma;  /* anchor noise per projection: anchor_noise / sqrt(term_dim) */
    double noise2; /* anchor_noise^2: expected squared norm of the anchor noise */
    /* on demand: per OpenMP thread a direct-mapped cache of the rows made (rcache_n entries, a
     * power of two; popular pages are the targets of many links) */
    struct row_entry *rcache;
    int64_t rcache_n;
    int rcache_threads;
};

/* An entry of the on-demand rows' cache: the page + 1 (0: empty) and its row. */
typedef struct row_entry {
    int64_t key;
    float row[2 + CS_FEAT_MAX_CATEGORIES];
} row_entry;

/* Entries per thread: a 16th of the world's pages, at most ROW_CACHE_MAX (8 MiB). */
#define ROW_CACHE_MAX (1 << 18)

/* The topics whose prototypes are projected on: target, then the related categories. */
static int32_t related_topic(int32_t target, int32_t k, int j)
{
    static const int off[CS_FEAT_MAX_CATEGORIES] = {1, -1, 2, -2};
    int32_t t = (target + off[j]) % k;
    return t < 0 ? t + k : t;
}

/* Local. The row of generated page `page` into o[0 .. a + 2): its term vector's projections on
 * the prototypes, then its norm. One function (not inlined) for the table and the rows made on
 * demand, so that both give the same bits. */
__attribute__((noinline)) static void gen_row(const cs_evidence *e, int64_t page, float *o)
{
    float t[TERM_DIM_MAX];
    const int dim = e->dim, a = e->cats;
    cs_gen_page_terms(e->gen, page, t);
    /* each sum accumulates its products in the order of d, as one loop per sum would: the
     * lanes side by side change no bit of any of them */
    double nn = 0.0, s[PT_LANES] = {0.0};
    for (int d = 0; d < dim; d++) {
        const double td = (double)t[d];
        nn += td * td;
        for (int j = 0; j < PT_LANES; j++)
            s[j] += td * e->pt[d][j];
    }
    for (int j = 0; j <= a; j++)
        o[j] = (float)s[j];
    o[a + 1] = (float)sqrt(nn);
}

/* Collective. Replicated rows: every rank's local rows (mine, in the order of its sorted local
 * ids) allgathered into e->table by page id. */
static cs_err gather_all(cs_ctx *ctx, const cs_graph *g, cs_evidence *e, const float *mine)
{
    cs_err rc = CS_OK;
    const int64_t n = cs_graph_n_pages(g), nl = cs_graph_n_local(g);
    const int stride = e->stride;
    int *counts = NULL, *displs = NULL;
    float *recv = NULL;
    int64_t *cursor = NULL;
    rc = cs_alloc(ctx, &counts, (size_t)ctx->size, sizeof *counts, "counts");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &displs, (size_t)ctx->size, sizeof *displs, "displs");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &cursor, (size_t)ctx->size, sizeof *cursor, "cursors");
    if (rc == CS_OK && (double)nl * stride > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "evidence: too many pages on one rank");
    CS_TRY_AGREE(ctx, rc);
    int mycount = (int)(nl * stride);
    cs_allgather(ctx, &mycount, 1, counts, CS_T_INT);
    int64_t tot = 0;
    for (int r = 0; r < ctx->size; r++) {
        displs[r] = (int)tot;
        tot += counts[r];
    }
    if (tot > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "evidence: %lld values exceed one MPI message",
                     (long long)tot);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &recv, (size_t)tot + 1, sizeof(float), "evidence exchange");
    CS_TRY_AGREE(ctx, rc);
    cs_allgatherv(ctx, mine, mycount, recv, counts, displs, CS_T_F32);
    /* Rank r's values come in the order of its sorted local ids: walk the pages in order. */
    for (int r = 0; r < ctx->size; r++)
        cursor[r] = displs[r];
    for (int64_t p = 0; p < n; p++) {
        int r = cs_graph_owner(g, p);
        memcpy(e->table + p * stride, recv + cursor[r], (size_t)stride * sizeof(float));
        cursor[r] += stride;
    }
fail:
    free(recv);
    free(counts);
    free(displs);
    free(cursor);
    return rc;
}

/* Collective. Owned rows: the local rows are e->table's first n_local; each owner sends the row
 * of each local page to the ranks holding it as a ghost (rows->sub), as (id, row) records in one
 * exchange; a received row goes to n_local + the ghost's index. */
static cs_err send_ghosts(cs_ctx *ctx, const cs_graph *g, cs_evidence *e,
                          const cs_evidence_rows *rows, int method)
{
    cs_err rc = CS_OK;
    const int64_t nl = cs_graph_n_local(g), *ids = cs_graph_local_ids(g);
    const size_t rb = (size_t)e->stride * sizeof(float), rec = sizeof(int64_t) + rb;
    cs_outbox o;
    char *recv = NULL;
    size_t cap = 0, len = 0;
    CS_TRY_AGREE(ctx, cs_outbox_init(ctx, &o, ctx->size));
    o.method = method; /* crawl.exchange */
    for (int64_t li = 0; li < nl && rc == CS_OK; li++)
        for (int64_t k = rows->sub_off[li]; k < rows->sub_off[li + 1] && rc == CS_OK; k++) {
            const int to = rows->sub[k];
            rc = cs_outbox_reserve(ctx, &o, to, rec);
            if (rc == CS_OK) {
                memcpy(o.buf[to] + o.len[to], &ids[li], sizeof(int64_t));
                memcpy(o.buf[to] + o.len[to] + sizeof(int64_t), e->table + li * e->stride, rb);
                o.len[to] += rec;
            }
        }
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, cs_comm_exchange(ctx, &o, &recv, &cap, &len, &(cs_exchange_stats){0}));
    int64_t got = 0;
    for (size_t at = 0; at + rec <= len; at += rec) {
        int64_t id;
        memcpy(&id, recv + at, sizeof id);
        const int64_t lo = cs_lower_bound_i64(rows->ghost, rows->n_ghost, id); /* its index */
        CS_ASSERT(lo < rows->n_ghost && rows->ghost[lo] == id);
        memcpy(e->table + (nl + lo) * e->stride, recv + at + sizeof(int64_t), rb);
        got++;
    }
    CS_ASSERT(got == rows->n_ghost); /* every ghost's owner lists this rank */
fail:
    free(recv);
    cs_outbox_fini(&o);
    return rc;
}

/* Local. What the rows of a generated world are made from (gen_row). */
static void evidence_gen_init(cs_evidence *e, const struct cs_gen *gen, const cs_config *cfg)
{
    const int32_t k = (int32_t)cfg->gen.topics, target = (int32_t)cfg->gen.target_topic;
    e->gen = gen;
    e->dim = (int)cfg->gen.term_dim;
    e->proto[0] = cs_gen_topic_prototype(gen, target);
    for (int j = 0; j < e->cats; j++)
        e->proto[1 + j] = cs_gen_topic_prototype(gen, related_topic(target, k, j));
    CS_ASSERT(e->dim >= 1 && e->dim <= TERM_DIM_MAX);
    for (int d = 0; d < e->dim; d++)
        for (int j = 0; j < PT_LANES; j++)
            e->pt[d][j] = j <= e->cats ? (double)e->proto[j][d] : 0.0;
}

/* Local. The anchor-noise constants of cfg's world. */
static void evidence_noise_init(cs_evidence *e, const cs_config *cfg)
{
    e->seed = (uint64_t)cfg->gen.seed;
    e->sigma = cfg->gen.anchor_noise / sqrt((double)cfg->gen.term_dim);
    e->noise2 = cfg->gen.anchor_noise * cfg->gen.anchor_noise;
}

cs_err cs_evidence_create_on_demand(cs_ctx *ctx, const struct cs_gen *gen, const cs_config *cfg,
                                    const cs_feat_layout *L, cs_evidence **out)
{
    cs_err rc = CS_OK;
    cs_evidence *e = NULL;
    const int a = L->categories;
    if (cfg->gen.topics < 1 + 2 * ((a + 1) / 2) && a > 0)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "sarsa.categories = %d needs at least %d topics in the world", a,
                       1 + 2 * ((a + 1) / 2));
    CS_TRY(ctx, cs_calloc(ctx, &e, 1, sizeof *e, "evidence"));
    e->cats = a;
    e->stride = 2 + a;
    evidence_noise_init(e, cfg);
    evidence_gen_init(e, gen, cfg);
    e->rcache_threads = omp_get_max_threads();
    e->rcache_n = 1024;
    while (e->rcache_n < ROW_CACHE_MAX && e->rcache_n < cfg->gen.pages / 16)
        e->rcache_n *= 2;
    CS_TRY(ctx, cs_calloc(ctx, &e->rcache, (size_t)e->rcache_threads * (size_t)e->rcache_n,
                          sizeof *e->rcache, "evidence rows' cache"));
    *out = e;
    return CS_OK;
fail:
    cs_evidence_destroy(&e);
    return rc;
}

cs_err cs_evidence_create(cs_ctx *ctx, const cs_graph *g, const struct cs_gen *gen,
                          const cs_config *cfg, const cs_feat_layout *L,
                          const cs_evidence_rows *rows, cs_evidence **out)
{
    cs_err rc = CS_OK;
    cs_evidence *e = NULL;
    float *mine = NULL;
    const int64_t n = cs_graph_n_pages(g), nl = cs_graph_n_local(g);
    const int64_t nrows = rows != NULL ? nl + rows->n_ghost : n;
    const int a = L->categories;
    const int stride = 2 + a;
    if (gen != NULL && cfg->gen.topics < 1 + 2 * ((a + 1) / 2) && a > 0)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "sarsa.categories = %d needs at least %d topics in the world", a,
                     1 + 2 * ((a + 1) / 2));
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &e, 1, sizeof *e, "evidence");
    if (rc == CS_OK) {
        e->cats = a;
        e->stride = stride;
        evidence_noise_init(e, cfg);
        rc = cs_alloc(ctx, &e->table, (size_t)nrows * (size_t)stride + 1, sizeof(float),
                      "evidence table");
    }
    /* the local rows: the table's first rows when owned, else a buffer to gather */
    if (rc == CS_OK && rows == NULL)
        rc = cs_alloc(ctx, &mine, (size_t)nl * (size_t)stride + 1, sizeof(float), "local evidence");
    CS_TRY_AGREE(ctx, rc);
    float *loc = rows != NULL ? e->table : mine;

    const int64_t *ids = cs_graph_local_ids(g);
    const double *relv = cs_graph_relevance(g);
    if (gen != NULL) {
        evidence_gen_init(e, gen, cfg);
        const cs_evidence *ce = e;
#pragma omp parallel for default(none) shared(ce, ids, loc, nl, stride) schedule(static)
        for (int64_t i = 0; i < nl; i++)
            gen_row(ce, ids[i], loc + i * stride);
    } else {
        for (int64_t i = 0; i < nl; i++) {
            float *o = loc + i * stride;
            o[0] = (float)relv[i];
            for (int j = 0; j < a; j++)
                o[1 + j] = 0.0f;
            o[a + 1] = 1.0f;
        }
    }
    if (rows == NULL)
        CS_TRY(ctx, gather_all(ctx, g, e, mine));
    else
        CS_TRY(ctx, send_ghosts(ctx, g, e, rows, cfg->crawl.exchange));
    free(mine);
    *out = e;
    return CS_OK;
fail:
    free(mine);
    cs_evidence_destroy(&e);
    return rc;
}

void cs_evidence_destroy(cs_evidence **pe)
{
    if (pe == NULL || *pe == NULL)
        return;
    free((*pe)->table);
    free((*pe)->rcache);
    free(*pe);
    *pe = NULL;
}

/* Local. The calling thread's row cache (its rcache_n entries), NULL when it has none (e.g. in a
 * nested parallel region). */
static inline row_entry *thread_rows(const cs_evidence *e)
{
    const int t = omp_get_thread_num();
    if (e->rcache == NULL || t >= e->rcache_threads || omp_get_active_level() > 1)
        return NULL;
    return e->rcache + (size_t)t * (size_t)e->rcache_n;
}

/* Local. The entry of the thread's row cache `rows` (NULL: none) for page `page`. */
static inline row_entry *row_slot(const cs_evidence *e, row_entry *rows, int64_t page)
{
    const uint64_t mask = (uint64_t)e->rcache_n - 1;
    return rows == NULL ? NULL : &rows[cs_mix64((uint64_t)page) & mask];
}

/* Local. The row of page `page` made on demand: the thread's cached copy in rows (the same bits:
 * a row is a pure function of the page), else made into on (gen_row) and cached. */
static const float *demand_row(const cs_evidence *e, row_entry *rows, int64_t page, float *on)
{
    row_entry *c = row_slot(e, rows, page);
    if (c != NULL && c->key == page + 1)
        return c->row;
    gen_row(e, page, on);
    if (c != NULL) {
        c->key = page + 1;
        memcpy(c->row, on, (size_t)e->stride * sizeof *on);
    }
    return on;
}

static inline float clamp01(double v)
{
    return (float)cs_feat_clamp(v, 0.0, 1.0);
}

float cs_evidence_page(const cs_evidence *e, int64_t row, float *cats)
{
    float on[2 + CS_FEAT_MAX_CATEGORIES];
    const float *o =
        e->table != NULL ? e->table + row * e->stride : demand_row(e, thread_rows(e), row, on);
    const double norm = o[e->cats + 1] > 0.0f ? (double)o[e->cats + 1] : 1.0;
    for (int j = 0; j < e->cats; j++)
        cats[j] = clamp01((double)o[1 + j] / norm);
    return clamp01((double)o[0] / norm);
}

void cs_evidence_anchors(const cs_evidence *e, int64_t src, const int64_t *dst, const int64_t *drow,
                         int64_t n, float *rl, float *cats)
{
    CS_ASSERT(n >= 0 && n <= CS_EVIDENCE_BATCH);
    const int m = 1 + e->cats;
    double z[CS_EVIDENCE_BATCH * (1 + CS_FEAT_MAX_CATEGORIES)];
    row_entry *rows = e->table == NULL ? thread_rows(e) : NULL;
    if (e->table ==
        NULL) /* the hosts' records of the rows to make arrive while the noise is drawn */
        for (int64_t i = 0; i < n; i++) {
            const row_entry *c = row_slot(e, rows, drow[i]);
            if (c == NULL || c->key != drow[i] + 1)
                cs_gen_prefetch_host(e->gen, drow[i], 2);
        }
    cs_rng_normals_zig_batch(e->seed, CS_RNG_ANCHOR, (uint64_t)src, dst, n, m, z);
    for (int64_t i = 0; i < n; i++) {
        float on[2 + CS_FEAT_MAX_CATEGORIES];
        const float *o =
            e->table != NULL ? e->table + drow[i] * e->stride : demand_row(e, rows, drow[i], on);
        const double nt = (double)o[e->cats + 1];
        const double inv = 1.0 / sqrt(nt * nt + e->noise2);
        const double *zi = z + i * m;
        for (int j = 0; j < e->cats; j++)
            cats[i * e->cats + j] = clamp01(((double)o[1 + j] + e->sigma * zi[1 + j]) * inv);
        rl[i] = clamp01(((double)o[0] + e->sigma * zi[0]) * inv);
    }
}

void cs_evidence_prefetch(const cs_evidence *e, int64_t row)
{
    if (e->table != NULL) {
        __builtin_prefetch(e->table + row * e->stride);
    } else {
        __builtin_prefetch(row_slot(e, thread_rows(e), row));
        cs_gen_prefetch_host(e->gen, row, 1);
    }
}

float cs_evidence_anchor(const cs_evidence *e, int64_t src, int64_t dst, int64_t drow, float *cats)
{
    float rl;
    cs_evidence_anchors(e, src, &dst, &drow, 1, &rl, cats);
    return rl;
}

/* ---- TRES features (features.h) ----------------------------------------------------------- */

int cs_tres_dim(int host_features)
{
    return host_features ? 9 : 7;
}

float cs_tres_url_rl(const cs_evidence *e, int64_t dst, int64_t drow)
{
    float cats[CS_FEAT_MAX_CATEGORIES];
    return cs_evidence_anchor(e, -1 - dst, dst, drow, cats);
}

void cs_tres_x(int host_features, const cs_link_msg *m, int64_t host_fetched, int64_t host_relevant,
               float *x)
{
    const float url = (float)m->url_rl * (1.0f / 65535.0f);
    const float a = m->anchor_rl;
    x[0] = m->parent_relevant ? 1.0f : 0.0f;
    x[1] = 1.0f / (float)(m->parent_dist + 1);
    x[2] = m->parent_path_len > 0 ? (float)m->parent_path_rel / (float)m->parent_path_len : 0.0f;
    x[3] = url >= CS_TRES_KW_URL ? 1.0f : 0.0f;
    x[4] = a >= CS_TRES_KW_ANCHOR ? 1.0f : 0.0f;
    x[5] = a >= CS_TRES_KP_ANCHOR ? 1.0f : 0.0f;
    int k = 6;
    if (host_features) {
        x[k++] = host_fetched > 0 ? (float)host_relevant / (float)host_fetched : 0.5f;
        x[k++] = host_fetched > 0 ? 1.0f : 0.5f;
    }
    const float z = CS_TRES_CLS_SLOPE * (0.5f * (a + url) - CS_TRES_CLS_MID);
    x[k] = 1.0f / (1.0f + expf(-z));
}

void cs_tres_path_step(uint8_t *len, uint8_t *rel, int relevant)
{
    unsigned l = *len, r = *rel;
    if (l == 255) {
        l = (l + 1) / 2;
        r = (r + 1) / 2;
    }
    l += 1;
    r += relevant ? 1u : 0u;
    *len = (uint8_t)l;
    *rel = (uint8_t)(r > l ? l : r);
}
