/*
 * A small BVGraph writer for the tests only (tests/unit/check_bvgraph.c,
 * tests/mpi/test_import_bv.c, the benchmarks): encodes a CSR graph, or a stream of lists, with
 * given parameters and codes into BASENAME.graph, BASENAME.properties and optionally
 * BASENAME.offsets, following the format's published description (the decoder's header,
 * src/import/import_bvgraph.c, summarises it). References are chosen to exercise the decoder,
 * not to compress well: among the candidates allowed by the window and the maximum reference
 * count, the one sharing most successors, or (one node in four) none or a random one.
 */
#ifndef CRAWLSIM_TESTS_BVGRAPH_WRITER_H
#define CRAWLSIM_TESTS_BVGRAPH_WRITER_H

#include "import/import_bvgraph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bw {
    uint8_t *b;
    size_t cap;
    uint64_t nbits;
} bw;

/* Room for k more bits (new bytes are zero). */
static void bw_reserve(bw *w, uint64_t k)
{
    if (((w->nbits + k) >> 3) + 1 <= w->cap)
        return;
    size_t c = w->cap ? w->cap : 4096;
    while (((w->nbits + k) >> 3) + 1 > c)
        c *= 2;
    w->b = realloc(w->b, c);
    if (w->b == NULL)
        abort();
    memset(w->b + w->cap, 0, c - w->cap);
    w->cap = c;
}

static void bw_bit(bw *w, unsigned bit)
{
    bw_reserve(w, 1);
    if (bit)
        w->b[w->nbits >> 3] |= (uint8_t)(0x80u >> (w->nbits & 7));
    w->nbits++;
}

static void bw_bits(bw *w, uint64_t v, unsigned k)
{
    bw_reserve(w, k);
    for (unsigned i = k; i-- > 0; w->nbits++)
        if ((v >> i) & 1u)
            w->b[w->nbits >> 3] |= (uint8_t)(0x80u >> (w->nbits & 7));
}

static unsigned bw_msb(uint64_t y)
{
    return 63u - (unsigned)__builtin_clzll(y);
}

static void bw_unary(bw *w, uint64_t x)
{
    bw_reserve(w, x + 1);
    w->nbits += x; /* zeros */
    bw_bit(w, 1);
}

static void bw_gamma(bw *w, uint64_t x)
{
    unsigned m = bw_msb(x + 1);
    bw_unary(w, m);
    bw_bits(w, x + 1, m);
}

static void bw_delta(bw *w, uint64_t x)
{
    unsigned m = bw_msb(x + 1);
    bw_gamma(w, m);
    bw_bits(w, x + 1, m);
}

/* zeta_k: the unary h with 2^(hk) <= x + 1 < 2^((h+1)k), then x + 1 - 2^(hk) in minimal
 * binary over that interval's 2^(hk) (2^k - 1) values. */
static void bw_zeta(bw *w, uint64_t x, int k)
{
    uint64_t y = x + 1, h = 0;
    while (y >> ((h + 1) * (uint64_t)k) != 0)
        h++;
    unsigned hk = (unsigned)(h * (uint64_t)k);
    uint64_t left = UINT64_C(1) << hk;
    bw_unary(w, h);
    if (y - left < left)
        bw_bits(w, y - left, hk + (unsigned)k - 1);
    else
        bw_bits(w, y, hk + (unsigned)k);
}

/* nibble: 3-bit groups, most significant first, each after a bit that is 1 on the last */
static void bw_nibble(bw *w, uint64_t x)
{
    int groups = 1;
    while (groups < 22 && (x >> (3 * groups)) != 0)
        groups++;
    for (int g = groups - 1; g >= 0; g--) {
        bw_bit(w, g == 0);
        bw_bits(w, (x >> (3 * g)) & 7u, 3);
    }
}

static void bw_code(bw *w, cs_bv_code c, int k, uint64_t x)
{
    switch (c) {
    case CS_BV_GAMMA:
        bw_gamma(w, x);
        break;
    case CS_BV_DELTA:
        bw_delta(w, x);
        break;
    case CS_BV_ZETA:
        bw_zeta(w, x, k);
        break;
    case CS_BV_NIBBLE:
        bw_nibble(w, x);
        break;
    default:
        bw_unary(w, x);
        break;
    }
}

static uint64_t bw_int2nat(int64_t v)
{
    return v >= 0 ? (uint64_t)v * 2 : (uint64_t)(-v) * 2 - 1;
}

static const char *bw_code_name(cs_bv_code c)
{
    static const char *const names[] = {"GAMMA", "DELTA", "ZETA", "NIBBLE", "UNARY"};
    return names[c];
}

/* Is v in the sorted list a[0, n)? */
static int bw_has(const int32_t *a, int64_t n, int32_t v)
{
    int64_t l = 0, h = n;
    while (l < h) {
        int64_t m = l + (h - l) / 2;
        if (a[m] < v)
            l = m + 1;
        else
            h = m;
    }
    return l < n && a[l] == v;
}

/* What a graph's encoding used: nodes with a reference, the longest reference chain,
 * intervals and residuals. */
typedef struct bw_stats {
    int64_t refs, longest_chain, intervals, residuals;
} bw_stats;

/*
 * A streaming encoder: bw_enc_open, then bw_enc_node for nodes 0, 1, 2, ... in order, then
 * bw_enc_close. It keeps only the last `window` lists and flushes the bit streams to the files
 * as it goes, so that graphs of any size (10^9 arcs: tests/bench/import_scale.sh) can be
 * written in a few megabytes. bw_write is the whole-graph form.
 */
typedef struct bw_enc {
    cs_bv_params p;
    char base[512];
    FILE *fg, *fo;     /* .graph, .offsets (NULL: none) */
    bw w, wo;          /* bits not yet flushed */
    uint64_t gdone;    /* bits of the .graph stream already in the file */
    uint64_t odone;    /* bits of the .offsets stream already in the file */
    uint64_t prev_off; /* absolute start of the previous list */
    uint64_t s;        /* the random choices' state */
    int64_t x, arcs;   /* next node, arcs so far */
    int slots;         /* window + 1 */
    int32_t **ring;    /* the last lists: node y in slot y % slots */
    int64_t *ring_len, *ring_cap;
    int *ring_chain; /* reference chain length of each */
    int64_t *runs;
    int32_t *extra;
    uint8_t *in_iv;
    int64_t scratch_cap;
    bw_stats st;
} bw_enc;

/* Writes the whole bytes of w to f and keeps the partial last byte; *done counts the bits. */
static void bw_flush(bw *w, FILE *f, uint64_t *done)
{
    size_t whole = (size_t)(w->nbits >> 3);
    if (whole == 0)
        return;
    fwrite(w->b, 1, whole, f);
    uint8_t part = (w->nbits & 7) ? w->b[whole] : 0;
    memset(w->b, 0, whole + 1 < w->cap ? whole + 1 : w->cap);
    w->b[0] = part;
    *done += (uint64_t)whole * 8;
    w->nbits &= 7;
}

static void bw_enc_open(bw_enc *e, const char *base, const cs_bv_params *p, int offsets,
                        uint64_t seed)
{
    memset(e, 0, sizeof *e);
    e->p = *p;
    snprintf(e->base, sizeof e->base, "%s", base);
    char path[600];
    snprintf(path, sizeof path, "%s.graph", base);
    e->fg = fopen(path, "wb");
    if (offsets) {
        snprintf(path, sizeof path, "%s.offsets", base);
        e->fo = fopen(path, "wb");
    }
    if (e->fg == NULL || (offsets && e->fo == NULL))
        abort();
    e->s = seed * 0x9E3779B97F4A7C15ull + 1;
    e->slots = p->window + 1;
    e->ring = calloc((size_t)e->slots, sizeof *e->ring);
    e->ring_len = calloc((size_t)e->slots, sizeof *e->ring_len);
    e->ring_cap = calloc((size_t)e->slots, sizeof *e->ring_cap);
    e->ring_chain = calloc((size_t)e->slots, sizeof *e->ring_chain);
}

static void bw_enc_scratch(bw_enc *e, int64_t d)
{
    if (d + 2 <= e->scratch_cap)
        return;
    int64_t c = e->scratch_cap ? e->scratch_cap : 64;
    while (c < d + 2)
        c *= 2;
    e->runs = realloc(e->runs, (size_t)c * sizeof *e->runs);
    e->extra = realloc(e->extra, (size_t)c * sizeof *e->extra);
    e->in_iv = realloc(e->in_iv, (size_t)c);
    e->scratch_cap = c;
}

/* Encodes the next node's list S[0, d) (strictly increasing). */
static void bw_enc_node(bw_enc *e, const int32_t *S, int64_t d)
{
    const cs_bv_params *p = &e->p;
    const int64_t x = e->x;
    bw *w = &e->w;
    bw_enc_scratch(e, d);
    if (e->fo != NULL) {
        uint64_t here = e->gdone + w->nbits;
        bw_code(&e->wo, p->offsets, p->zetak, here - e->prev_off);
        e->prev_off = here;
    }
    bw_code(w, p->outdegrees, p->zetak, (uint64_t)d);
    int chain_x = 0;
    if (d > 0) {
        int64_t r = 0;
        if (p->window > 0) {
            e->s = e->s * 6364136223846793005ull + 1442695040888963407ull;
            unsigned pick = (unsigned)(e->s >> 60);
            int64_t best = -1;
            for (int64_t c = 1; c <= p->window && c <= x; c++) {
                int sl = (int)((x - c) % e->slots);
                if (p->maxref >= 0 && e->ring_chain[sl] + 1 > p->maxref)
                    continue;
                int64_t common = 0;
                for (int64_t k = 0; k < e->ring_len[sl]; k++)
                    common += bw_has(S, d, e->ring[sl][k]);
                if (pick < 2)
                    common = (int64_t)((e->s >> (8 * (c % 7))) & 0xff); /* a random candidate */
                if (common > best) {
                    best = common;
                    r = c;
                }
            }
            if (pick == 15)
                r = 0;
            bw_code(w, p->references, p->zetak, (uint64_t)r);
        }
        int64_t ne = 0;
        if (r > 0) {
            int sl = (int)((x - r) % e->slots);
            e->st.refs++;
            chain_x = e->ring_chain[sl] + 1;
            if (chain_x > e->st.longest_chain)
                e->st.longest_chain = chain_x;
            const int32_t *L = e->ring[sl];
            int64_t Ln = e->ring_len[sl], nr = 0, cur = 0;
            if (Ln + 2 > e->scratch_cap)
                bw_enc_scratch(e, Ln);
            int type = 1; /* copy first */
            for (int64_t i = 0; i < Ln; i++) {
                int in = bw_has(S, d, L[i]);
                if (in != type) {
                    e->runs[nr++] = cur;
                    cur = 0;
                    type = !type;
                }
                cur++;
            }
            e->runs[nr++] = cur;
            bw_code(w, p->block_count, p->zetak, (uint64_t)(nr - 1));
            for (int64_t i = 0; i + 1 < nr; i++)
                bw_code(w, p->blocks, p->zetak, (uint64_t)(i == 0 ? e->runs[0] : e->runs[i] - 1));
            for (int64_t k = 0; k < d; k++)
                if (!bw_has(L, Ln, S[k]))
                    e->extra[ne++] = S[k];
        } else {
            memcpy(e->extra, S, (size_t)d * sizeof *e->extra);
            ne = d;
        }
        const int32_t *extra = e->extra;
        uint8_t *in_iv = e->in_iv;
        memset(in_iv, 0, (size_t)ne + 1);
        if (ne > 0 && p->minint > 0) {
            int64_t cnt = 0;
            for (int64_t i = 0; i < ne;) {
                int64_t j = i + 1;
                while (j < ne && extra[j] == extra[j - 1] + 1)
                    j++;
                if (j - i >= p->minint)
                    cnt++;
                i = j;
            }
            bw_gamma(w, (uint64_t)cnt);
            int64_t prev = 0, first = 1;
            for (int64_t i = 0; i < ne;) {
                int64_t j = i + 1;
                while (j < ne && extra[j] == extra[j - 1] + 1)
                    j++;
                if (j - i >= p->minint) {
                    if (first)
                        bw_gamma(w, bw_int2nat((int64_t)extra[i] - x));
                    else
                        bw_gamma(w, (uint64_t)((int64_t)extra[i] - prev - 1));
                    bw_gamma(w, (uint64_t)(j - i - p->minint));
                    prev = (int64_t)extra[i] + (j - i);
                    first = 0;
                    e->st.intervals++;
                    memset(in_iv + i, 1, (size_t)(j - i));
                }
                i = j;
            }
        }
        int64_t prev = 0, first = 1;
        for (int64_t i = 0; i < ne; i++) {
            if (in_iv[i])
                continue;
            if (first)
                bw_code(w, p->residuals, p->zetak, bw_int2nat((int64_t)extra[i] - x));
            else
                bw_code(w, p->residuals, p->zetak, (uint64_t)((int64_t)extra[i] - prev - 1));
            prev = extra[i];
            first = 0;
            e->st.residuals++;
        }
    }
    /* x's list into the ring, for the references of the next window nodes */
    int sx = (int)(x % e->slots);
    if (d > e->ring_cap[sx]) {
        e->ring[sx] = realloc(e->ring[sx], (size_t)d * sizeof **e->ring);
        e->ring_cap[sx] = d;
    }
    if (d > 0)
        memcpy(e->ring[sx], S, (size_t)d * sizeof *S);
    e->ring_len[sx] = d;
    e->ring_chain[sx] = chain_x;
    e->x++;
    e->arcs += d;
    if (w->nbits >= ((uint64_t)8 << 20))
        bw_flush(w, e->fg, &e->gdone);
    if (e->fo != NULL && e->wo.nbits >= ((uint64_t)8 << 20))
        bw_flush(&e->wo, e->fo, &e->odone);
}

/* Ends the streams (the padding of the last byte is zero), writes BASENAME.properties (unless
 * props = 0; flags = 1 writes every code in compressionflags, 0 leaves it empty: the codes must
 * then be the defaults) and frees e. */
static bw_stats bw_enc_close(bw_enc *e, int props, int flags)
{
    const cs_bv_params *p = &e->p;
    if (e->fo != NULL) {
        bw_code(&e->wo, p->offsets, p->zetak, e->gdone + e->w.nbits - e->prev_off);
        e->wo.nbits = (e->wo.nbits + 7) & ~(uint64_t)7;
        bw_flush(&e->wo, e->fo, &e->odone);
        fclose(e->fo);
    }
    e->w.nbits = (e->w.nbits + 7) & ~(uint64_t)7;
    bw_flush(&e->w, e->fg, &e->gdone);
    fclose(e->fg);
    if (props) {
        char path[600];
        snprintf(path, sizeof path, "%s.properties", e->base);
        FILE *f = fopen(path, "w");
        fprintf(f, "#BVGraph properties\ngraphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\n");
        fprintf(f, "nodes=%lld\narcs=%lld\nwindowsize=%d\nmaxrefcount=%d\nminintervallength=%d\n",
                (long long)e->x, (long long)e->arcs, p->window, p->maxref, p->minint);
        fprintf(f, "zetak=%d\ncompressionflags=", p->zetak);
        if (flags)
            fprintf(
                f, "OUTDEGREES_%s|REFERENCES_%s|BLOCKS_%s|BLOCK_COUNT_%s|RESIDUALS_%s|OFFSETS_%s",
                bw_code_name(p->outdegrees), bw_code_name(p->references), bw_code_name(p->blocks),
                bw_code_name(p->block_count), bw_code_name(p->residuals), bw_code_name(p->offsets));
        fprintf(f, "\n");
        fclose(f);
    }
    bw_stats st = e->st;
    for (int sl = 0; sl < e->slots; sl++)
        free(e->ring[sl]);
    free(e->ring);
    free(e->ring_len);
    free(e->ring_cap);
    free(e->ring_chain);
    free(e->runs);
    free(e->extra);
    free(e->in_iv);
    free(e->w.b);
    free(e->wo.b);
    memset(e, 0, sizeof *e);
    return st;
}

/* Writes the graph (n nodes, CSR off/tgt with increasing lists) to base.graph, base.properties
 * (unless props = 0; flags as bw_enc_close) and base.offsets (when offsets = 1). seed drives
 * the random choices. */
static bw_stats bw_write(const char *base, int64_t n, const int64_t *off, const int32_t *tgt,
                         const cs_bv_params *p, int props, int flags, int offsets, uint64_t seed)
{
    bw_enc e;
    bw_enc_open(&e, base, p, offsets, seed);
    for (int64_t x = 0; x < n; x++)
        bw_enc_node(&e, tgt + off[x], off[x + 1] - off[x]);
    return bw_enc_close(&e, props, flags);
}

#endif
