/*
 * A small BVGraph writer for the tests only (tests/unit/check_bvgraph.c): encodes a CSR graph
 * with given parameters and codes into BASENAME.graph, BASENAME.properties and optionally
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

static void bw_bit(bw *w, unsigned bit)
{
    if ((w->nbits >> 3) + 1 > w->cap) {
        size_t c = w->cap ? 2 * w->cap : 4096;
        w->b = realloc(w->b, c);
        memset(w->b + w->cap, 0, c - w->cap);
        w->cap = c;
    }
    if (bit)
        w->b[w->nbits >> 3] |= (uint8_t)(0x80u >> (w->nbits & 7));
    w->nbits++;
}

static void bw_bits(bw *w, uint64_t v, unsigned k)
{
    for (unsigned i = k; i-- > 0;)
        bw_bit(w, (unsigned)(v >> i) & 1u);
}

static unsigned bw_msb(uint64_t y)
{
    return 63u - (unsigned)__builtin_clzll(y);
}

static void bw_unary(bw *w, uint64_t x)
{
    for (uint64_t i = 0; i < x; i++)
        bw_bit(w, 0);
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

/* Writes the graph (n nodes, CSR off/tgt with increasing lists) to base.graph, base.properties
 * (unless props = 0; flags = 1 writes every code in compressionflags, 0 leaves it empty: the
 * codes must then be the defaults) and base.offsets (when offsets = 1). seed drives the random
 * choices. */
static bw_stats bw_write(const char *base, int64_t n, const int64_t *off, const int32_t *tgt,
                         const cs_bv_params *p, int props, int flags, int offsets, uint64_t seed)
{
    bw w = {NULL, 0, 0}, wo = {NULL, 0, 0};
    int *chain = calloc((size_t)n + 1, sizeof *chain);
    int64_t *runs = malloc(((size_t)off[n] + 2) * sizeof *runs);
    int32_t *extra = malloc(((size_t)off[n] + 1) * sizeof *extra);
    uint8_t *in_iv = malloc((size_t)off[n] + 1);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1, prev_off = 0;
    bw_stats st = {0, 0, 0, 0};
    for (int64_t x = 0; x < n; x++) {
        if (offsets) {
            bw_code(&wo, p->offsets, p->zetak, w.nbits - prev_off);
            prev_off = w.nbits;
        }
        const int32_t *S = tgt + off[x];
        int64_t d = off[x + 1] - off[x];
        bw_code(&w, p->outdegrees, p->zetak, (uint64_t)d);
        if (d == 0)
            continue;
        int64_t r = 0;
        if (p->window > 0) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            unsigned pick = (unsigned)(s >> 60);
            int64_t best = -1;
            for (int64_t c = 1; c <= p->window && c <= x; c++) {
                if (p->maxref >= 0 && chain[x - c] + 1 > p->maxref)
                    continue;
                int64_t common = 0;
                for (int64_t k = off[x - c]; k < off[x - c + 1]; k++)
                    common += bw_has(S, d, tgt[k]);
                if (pick < 2)
                    common = (int64_t)((s >> (8 * (c % 7))) & 0xff); /* a random candidate */
                if (common > best) {
                    best = common;
                    r = c;
                }
            }
            if (pick == 15)
                r = 0;
        }
        if (p->window > 0) /* no reference field without a window */
            bw_code(&w, p->references, p->zetak, (uint64_t)r);
        int64_t ne = 0;
        if (r > 0) {
            st.refs++;
            chain[x] = chain[x - r] + 1;
            if (chain[x] > st.longest_chain)
                st.longest_chain = chain[x];
            const int32_t *L = tgt + off[x - r];
            int64_t Ln = off[x - r + 1] - off[x - r], nr = 0, cur = 0;
            int type = 1; /* copy first */
            for (int64_t i = 0; i < Ln; i++) {
                int in = bw_has(S, d, L[i]);
                if (in != type) {
                    runs[nr++] = cur;
                    cur = 0;
                    type = !type;
                }
                cur++;
            }
            runs[nr++] = cur;
            bw_code(&w, p->block_count, p->zetak, (uint64_t)(nr - 1));
            for (int64_t i = 0; i + 1 < nr; i++)
                bw_code(&w, p->blocks, p->zetak, (uint64_t)(i == 0 ? runs[0] : runs[i] - 1));
            for (int64_t k = 0; k < d; k++)
                if (!bw_has(L, Ln, S[k]))
                    extra[ne++] = S[k];
        } else {
            memcpy(extra, S, (size_t)d * sizeof *extra);
            ne = d;
        }
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
            bw_gamma(&w, (uint64_t)cnt);
            int64_t prev = 0, first = 1;
            for (int64_t i = 0; i < ne;) {
                int64_t j = i + 1;
                while (j < ne && extra[j] == extra[j - 1] + 1)
                    j++;
                if (j - i >= p->minint) {
                    if (first)
                        bw_gamma(&w, bw_int2nat((int64_t)extra[i] - x));
                    else
                        bw_gamma(&w, (uint64_t)((int64_t)extra[i] - prev - 1));
                    bw_gamma(&w, (uint64_t)(j - i - p->minint));
                    prev = (int64_t)extra[i] + (j - i);
                    first = 0;
                    st.intervals++;
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
                bw_code(&w, p->residuals, p->zetak, bw_int2nat((int64_t)extra[i] - x));
            else
                bw_code(&w, p->residuals, p->zetak, (uint64_t)((int64_t)extra[i] - prev - 1));
            prev = extra[i];
            first = 0;
            st.residuals++;
        }
    }
    if (offsets)
        bw_code(&wo, p->offsets, p->zetak, w.nbits - prev_off);
    char path[512];
    snprintf(path, sizeof path, "%s.graph", base);
    FILE *f = fopen(path, "wb");
    fwrite(w.b, 1, (size_t)((w.nbits + 7) / 8), f);
    fclose(f);
    if (offsets) {
        snprintf(path, sizeof path, "%s.offsets", base);
        f = fopen(path, "wb");
        fwrite(wo.b, 1, (size_t)((wo.nbits + 7) / 8), f);
        fclose(f);
    }
    if (props) {
        snprintf(path, sizeof path, "%s.properties", base);
        f = fopen(path, "w");
        fprintf(f, "#BVGraph properties\ngraphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\n");
        fprintf(f, "nodes=%lld\narcs=%lld\nwindowsize=%d\nmaxrefcount=%d\nminintervallength=%d\n",
                (long long)n, (long long)off[n], p->window, p->maxref, p->minint);
        fprintf(f, "zetak=%d\ncompressionflags=", p->zetak);
        if (flags)
            fprintf(
                f, "OUTDEGREES_%s|REFERENCES_%s|BLOCKS_%s|BLOCK_COUNT_%s|RESIDUALS_%s|OFFSETS_%s",
                bw_code_name(p->outdegrees), bw_code_name(p->references), bw_code_name(p->blocks),
                bw_code_name(p->block_count), bw_code_name(p->residuals), bw_code_name(p->offsets));
        fprintf(f, "\n");
        fclose(f);
    }
    free(w.b);
    free(wo.b);
    free(chain);
    free(runs);
    free(extra);
    free(in_iv);
    return st;
}

#endif
