/*
 * import, BVGraph: a decoder of WebGraph's compressed graphs (P. Boldi, S. Vigna, "The WebGraph
 * Framework I: Compression Techniques", WWW 2004; the format as the BVGraph documentation
 * describes it), written from that description.
 *
 * The .graph file is one bit stream (most significant bit of each byte first) holding, for
 * each node x in order: its outdegree d; if the window is not 0, a reference r <= window (0 =
 * none); if r > 0, a block count b and b blocks, the first as is and the others minus 1, which
 * alternately copy and skip runs of the list of node x - r (what follows the last block is
 * copied when b is even); then, while successors remain, an interval count and that many
 * intervals (left extreme: the first as int2nat(left - x), the others as the gap from the
 * previous right extreme minus 2; length minus the minimum interval length), all in gamma; and
 * the residuals (the first as int2nat(first - x), each next as the gap to the previous minus 1).
 * Each of outdegree, reference, block count, blocks and residuals has its own code (gamma,
 * delta, zeta_k, nibble, unary) named in the properties' compressionflags.
 *
 * A sequential pass finds the bit offset of every list when there is no .offsets file; then
 * node ranges of about equal arc counts are decoded in parallel (OpenMP), each from its first
 * node's offset, keeping the last `window` lists in a ring and decoding a list referenced from
 * before the range on demand (following its reference chain).
 */
#include "import_bvgraph.h"

#include "import_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

void cs_bv_params_default(cs_bv_params *p)
{
    p->nodes = -1;
    p->arcs = -1;
    p->window = 7;
    p->maxref = 3;
    p->minint = 4;
    p->zetak = 3;
    p->outdegrees = CS_BV_GAMMA;
    p->references = CS_BV_UNARY;
    p->block_count = CS_BV_GAMMA;
    p->blocks = CS_BV_GAMMA;
    p->residuals = CS_BV_ZETA;
    p->offsets = CS_BV_GAMMA;
}

/* ---- bit reading --------------------------------------------------------------------------- */

typedef struct bits {
    const uint8_t *b;
    uint64_t nbits;
    uint64_t pos;
    int bad; /* read beyond the end or an impossible code */
} bits;

/* The 64 bits from pos on, zeros beyond the end. */
static inline uint64_t peek64(const bits *r)
{
    uint64_t byte = r->pos >> 3, nbytes = (r->nbits + 7) >> 3;
    unsigned sh = (unsigned)(r->pos & 7);
    uint64_t w = 0, extra = 0;
    if (byte + 9 <= nbytes) {
        for (int i = 0; i < 8; i++)
            w = w << 8 | r->b[byte + (uint64_t)i];
        extra = r->b[byte + 8];
    } else {
        for (int i = 0; i < 8; i++)
            w = w << 8 | (byte + (uint64_t)i < nbytes ? r->b[byte + (uint64_t)i] : 0u);
        extra = byte + 8 < nbytes ? r->b[byte + 8] : 0u;
    }
    return sh ? (w << sh) | (extra >> (8 - sh)) : w;
}

/* k <= 63 bits as an unsigned number. */
static inline uint64_t read_bits(bits *r, unsigned k)
{
    if (k == 0)
        return 0;
    if (k > 63 || r->pos + k > r->nbits) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = peek64(r) >> (64 - k);
    r->pos += k;
    return v;
}

/* The number of 0 bits before the next 1 bit. */
static inline uint64_t read_unary(bits *r)
{
    uint64_t z = 0;
    for (;;) {
        if (r->pos >= r->nbits) {
            r->bad = 1;
            return 0;
        }
        uint64_t w = peek64(r);
        if (w != 0) {
            unsigned lz = (unsigned)__builtin_clzll(w);
            r->pos += lz + 1u;
            return z + lz;
        }
        r->pos += 64;
        z += 64;
    }
}

static inline uint64_t read_gamma(bits *r)
{
    uint64_t msb = read_unary(r);
    if (msb > 62) {
        r->bad = 1;
        return 0;
    }
    return ((UINT64_C(1) << msb) | read_bits(r, (unsigned)msb)) - 1;
}

static inline uint64_t read_delta(bits *r)
{
    uint64_t msb = read_gamma(r);
    if (msb > 62) {
        r->bad = 1;
        return 0;
    }
    return ((UINT64_C(1) << msb) | read_bits(r, (unsigned)msb)) - 1;
}

static inline uint64_t read_zeta(bits *r, int k)
{
    uint64_t h = read_unary(r);
    if (h * (uint64_t)k + (uint64_t)k - 1 > 61) {
        r->bad = 1;
        return 0;
    }
    unsigned hk = (unsigned)(h * (uint64_t)k);
    uint64_t left = UINT64_C(1) << hk;
    uint64_t m = read_bits(r, hk + (unsigned)k - 1);
    if (m < left)
        return m + left - 1;
    return (m << 1) + read_bits(r, 1) - 1;
}

static inline uint64_t read_nibble(bits *r)
{
    uint64_t x = 0, last;
    do {
        if (x >> 58) {
            r->bad = 1;
            return 0;
        }
        last = read_bits(r, 1);
        x = x << 3 | read_bits(r, 3);
    } while (last == 0 && !r->bad);
    return x;
}

static inline uint64_t read_code(bits *r, cs_bv_code c, int k)
{
    switch (c) {
    case CS_BV_GAMMA:
        return read_gamma(r);
    case CS_BV_DELTA:
        return read_delta(r);
    case CS_BV_ZETA:
        return read_zeta(r, k);
    case CS_BV_NIBBLE:
        return read_nibble(r);
    default:
        return read_unary(r);
    }
}

/* The node a gap v names: a list's first gap is signed (0, -1, 1, -2, ... coded 0, 1, 2, 3, ...)
 * from x, the others count from prev + 1. 0 outside [0, n) (v bounded before any sum wraps). */
static int gap_node(int64_t x, int64_t prev, int first, uint64_t v, int64_t n, int64_t *t)
{
    *t = -1;
    if (v > 2 * (uint64_t)n)
        return 0;
    const int64_t signed_gap = (v & 1) ? -(int64_t)((v + 1) >> 1) : (int64_t)(v >> 1);
    *t = first ? x + signed_gap : prev + 1 + (int64_t)v;
    return *t >= 0 && *t < n;
}

/* ---- decoding lists ------------------------------------------------------------------------ */

/* A growable int32 array. */
typedef struct vec {
    int32_t *v;
    size_t cap;
} vec;

static int vec_reserve(vec *a, size_t n)
{
    if (n <= a->cap)
        return 1;
    size_t c = a->cap ? a->cap : 64;
    while (c < n)
        c *= 2;
    int32_t *q = realloc(a->v, c * sizeof *q);
    if (q == NULL)
        return 0;
    a->v = q;
    a->cap = c;
    return 1;
}

/* One decoder (one per thread): a ring of the last window + 1 lists, two buffers for a
 * reference chain decoded on demand, and scratch. Errors are recorded, never printed: the
 * caller reports the one of the lowest node. */
typedef struct dec {
    const uint8_t *b;
    uint64_t nbits;
    const cs_bv_params *p;
    const uint64_t *offsets; /* NULL in the sequential pass */
    int slots;               /* window + 1 */
    vec *ring;
    int64_t *ring_node, *ring_len;
    vec chain[2];    /* the lists of a chain decoded on demand, alternately */
    int64_t *cnodes; /* the nodes of that chain */
    size_t cnodes_cap;
    int64_t given_node; /* the list the next reference resolves to, or -1 */
    const int32_t *given_list;
    int64_t given_len;
    vec cp, iv, res;  /* scratch of one list */
    const char *what; /* the first error: what, at node and bit */
    int64_t err_node;
    uint64_t err_bit;
    int nomem;
} dec;

static int fail_at(dec *D, const char *what, int64_t x, uint64_t bit)
{
    if (D->what == NULL) {
        D->what = what;
        D->err_node = x;
        D->err_bit = bit;
    }
    return 0;
}

static int decode_list(dec *D, int64_t x, uint64_t pos, vec *out, int64_t *len, uint64_t *end);

static int in_ring(const dec *D, int64_t y)
{
    return D->ring_node[y % D->slots] == y;
}

/*
 * The list of node y, referenced by a node being decoded: the given list, the ring's, or
 * decoded on demand. On demand, the reference chain from y is followed back (reading only the
 * outdegree and reference of each node) to a node without a reference or one whose reference
 * is in the ring, and the chain is decoded forward, each list from the one before: no
 * recursion, any chain length (a maxrefcount of the encoder is not needed to decode).
 */
static int ref_list(dec *D, int64_t y, const int32_t **L, int64_t *n)
{
    if (D->given_node == y) {
        *L = D->given_list;
        *n = D->given_len;
        return 1;
    }
    if (in_ring(D, y)) {
        int s = (int)(y % D->slots);
        *L = D->ring[s].v;
        *n = D->ring_len[s];
        return 1;
    }
    if (D->offsets == NULL)
        return fail_at(D, "a reference to a list not in the window", y, 0);
    const cs_bv_params *p = D->p;
    size_t k = 0;
    for (int64_t z = y;;) {
        if (k == D->cnodes_cap) {
            size_t nc = D->cnodes_cap ? 2 * D->cnodes_cap : 16;
            int64_t *q = realloc(D->cnodes, nc * sizeof *q);
            if (q == NULL)
                return D->nomem = 1, 0;
            D->cnodes = q;
            D->cnodes_cap = nc;
        }
        D->cnodes[k++] = z;
        bits r = {D->b, D->nbits, D->offsets[z], 0};
        uint64_t d = read_code(&r, p->outdegrees, p->zetak);
        if (r.bad)
            return fail_at(D, "the stream ends inside the outdegree", z, D->offsets[z]);
        if (d == 0 || p->window == 0)
            break;
        uint64_t ref = read_code(&r, p->references, p->zetak);
        if (r.bad || ref > (uint64_t)p->window || ref > (uint64_t)z)
            return fail_at(D, "a reference beyond the window or before node 0", z, D->offsets[z]);
        if (ref == 0)
            break;
        z -= (int64_t)ref;
        if (in_ring(D, z))
            break;
    }
    const int32_t *prev = NULL;
    int64_t prev_len = 0, prev_node = -1;
    for (size_t i = k; i-- > 0;) {
        vec *buf = &D->chain[i % 2];
        int64_t l;
        uint64_t e;
        D->given_node = prev_node;
        D->given_list = prev;
        D->given_len = prev_len;
        int ok = decode_list(D, D->cnodes[i], D->offsets[D->cnodes[i]], buf, &l, &e);
        D->given_node = -1;
        if (!ok)
            return 0;
        prev = buf->v;
        prev_len = l;
        prev_node = D->cnodes[i];
    }
    *L = prev;
    *n = prev_len;
    return 1;
}

/* The successors node x (list at bit pos, outdegree d) copies from node y's list into D->cp
 * (*ncp of them): the copy blocks read from r. 0 on an error (recorded in D). */
static int copy_blocks(dec *D, bits *r, int64_t x, uint64_t pos, int64_t y, uint64_t d,
                       int64_t *ncp)
{
    const cs_bv_params *p = D->p;
    const int32_t *L;
    int64_t Ln;
    if (!ref_list(D, y, &L, &Ln))
        return 0;
    uint64_t bc = read_code(r, p->block_count, p->zetak);
    if (r->bad || bc > (uint64_t)Ln + 1)
        return fail_at(D, "a bad block count", x, pos);
    if (!vec_reserve(&D->cp, (size_t)Ln + 1))
        return D->nomem = 1, 0;
    int64_t at = 0;
    for (uint64_t i = 0; i < bc; i++) {
        uint64_t bl = read_code(r, p->blocks, p->zetak), room = (uint64_t)(Ln - at);
        if (r->bad || bl > room || (bl += (i > 0 ? 1 : 0)) > room)
            return fail_at(D, "copy blocks beyond the referenced list", x, pos);
        if (i % 2 == 0) {
            memcpy(D->cp.v + *ncp, L + at, (size_t)bl * sizeof *L);
            *ncp += (int64_t)bl;
        }
        at += (int64_t)bl;
    }
    if (bc % 2 == 0) {
        memcpy(D->cp.v + *ncp, L + at, (size_t)(Ln - at) * sizeof *L);
        *ncp += Ln - at;
    }
    if (*ncp > (int64_t)d)
        return fail_at(D, "more copied successors than the outdegree", x, pos);
    return 1;
}

/* Decodes node x's list starting at bit pos into out (length *len); *end: the bit after it. */
static int decode_list(dec *D, int64_t x, uint64_t pos, vec *out, int64_t *len, uint64_t *end)
{
    const cs_bv_params *p = D->p;
    const int64_t n = p->nodes;
    bits r = {D->b, D->nbits, pos, 0};
    uint64_t d = read_code(&r, p->outdegrees, p->zetak);
    if (r.bad)
        return fail_at(D, "the stream ends inside the outdegree", x, pos);
    if (d > (uint64_t)n)
        return fail_at(D, "an outdegree larger than the node count", x, pos);
    if (!vec_reserve(out, (size_t)d + 1))
        return D->nomem = 1, 0;
    *len = (int64_t)d;
    if (d == 0) {
        *end = r.pos;
        return 1;
    }
    int64_t ncp = 0, niv = 0, nres = 0;
    uint64_t ref = 0;
    if (p->window > 0) {
        ref = read_code(&r, p->references, p->zetak);
        if (r.bad || ref > (uint64_t)p->window || ref > (uint64_t)x)
            return fail_at(D, "a reference beyond the window or before node 0", x, pos);
    }
    if (ref > 0 && !copy_blocks(D, &r, x, pos, x - (int64_t)ref, d, &ncp))
        return 0;
    int64_t extra = (int64_t)d - ncp;
    if (extra > 0 && p->minint > 0) {
        uint64_t ic = read_gamma(&r);
        if (r.bad || ic > (uint64_t)extra)
            return fail_at(D, "a bad interval count", x, pos);
        if (!vec_reserve(&D->iv, (size_t)extra + 1))
            return D->nomem = 1, 0;
        int64_t prev = 0;
        for (uint64_t i = 0; i < ic; i++) {
            int64_t left;
            int inside = gap_node(x, prev, i == 0, read_gamma(&r), n, &left);
            uint64_t l = read_gamma(&r), room = (uint64_t)(extra - niv);
            if (r.bad || !inside || l > room || (l += (uint64_t)p->minint) > room ||
                left + (int64_t)l > n)
                return fail_at(D, "an interval outside the graph or the outdegree", x, pos);
            for (uint64_t j = 0; j < l; j++)
                D->iv.v[niv++] = (int32_t)(left + (int64_t)j);
            prev = left + (int64_t)l;
        }
        extra -= niv;
    }
    if (extra > 0) {
        if (!vec_reserve(&D->res, (size_t)extra + 1))
            return D->nomem = 1, 0;
        int64_t prev = 0;
        for (int64_t i = 0; i < extra; i++) {
            int64_t t;
            uint64_t v = read_code(&r, p->residuals, p->zetak);
            if (r.bad || !gap_node(x, prev, i == 0, v, n, &t))
                return fail_at(D, "a residual outside the graph", x, pos);
            D->res.v[nres++] = (int32_t)t;
            prev = t;
        }
    }
    /* merge the three increasing sequences */
    int64_t a = 0, b = 0, c = 0, k = 0;
    int32_t *o = out->v;
    while (k < (int64_t)d) {
        int64_t va = a < ncp ? D->cp.v[a] : INT64_MAX, vb = b < niv ? D->iv.v[b] : INT64_MAX,
                vc = c < nres ? D->res.v[c] : INT64_MAX;
        int64_t v;
        if (va <= vb && va <= vc)
            v = va, a++;
        else if (vb <= vc)
            v = vb, b++;
        else
            v = vc, c++;
        if (k > 0 && v <= o[k - 1])
            return fail_at(D, "a successor list that is not strictly increasing", x, pos);
        o[k++] = (int32_t)v;
    }
    *end = r.pos;
    return 1;
}

static int dec_init(dec *D, const uint8_t *b, uint64_t nbits, const cs_bv_params *p,
                    const uint64_t *offsets)
{
    memset(D, 0, sizeof *D);
    D->b = b;
    D->nbits = nbits;
    D->p = p;
    D->offsets = offsets;
    D->slots = p->window + 1;
    D->given_node = -1;
    D->ring = calloc((size_t)D->slots, sizeof *D->ring);
    D->ring_node = malloc((size_t)D->slots * sizeof *D->ring_node);
    D->ring_len = calloc((size_t)D->slots, sizeof *D->ring_len);
    if (D->ring == NULL || D->ring_node == NULL || D->ring_len == NULL)
        return 0;
    for (int s = 0; s < D->slots; s++)
        D->ring_node[s] = -1;
    return 1;
}

static void dec_fini(dec *D)
{
    if (D->ring != NULL)
        for (int s = 0; s < D->slots; s++)
            free(D->ring[s].v);
    free(D->chain[0].v);
    free(D->chain[1].v);
    free(D->cnodes);
    free(D->ring);
    free(D->ring_node);
    free(D->ring_len);
    free(D->cp.v);
    free(D->iv.v);
    free(D->res.v);
}

/* Decodes x into its ring slot; *end: the bit after its list. */
static int dec_next(dec *D, int64_t x, uint64_t pos, uint64_t *end)
{
    int s = (int)(x % D->slots);
    D->ring_node[s] = -1;
    if (!decode_list(D, x, pos, &D->ring[s], &D->ring_len[s], end))
        return 0;
    D->ring_node[s] = x;
    return 1;
}

static cs_err dec_error(cs_ctx *ctx, const char *name, const dec *D)
{
    if (D->nomem)
        return cs_fail(ctx, CS_ERR_NOMEM, "%s: out of memory decoding the successor lists", name);
    return cs_fail(ctx, CS_ERR_FORMAT,
                   "%s: corrupt BVGraph data at node %lld (bit %llu): %s (wrong parameters in the "
                   ".properties file, or a truncated file?)",
                   name, (long long)D->err_node, (unsigned long long)D->err_bit, D->what);
}

cs_err cs_bv_scan(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                  const cs_bv_params *p, uint64_t **offsets_out, cs_progress *prog)
{
    cs_err rc = CS_OK;
    const int64_t n = p->nodes;
    uint64_t *offsets = NULL;
    dec D;
    int have_dec = 0;
    *offsets_out = NULL;
    if (n < 0 || n > (int64_t)CS_IMP_ID_MAX + 1)
        return cs_fail(ctx, CS_ERR_LIMIT, "%s: %lld nodes: at most 2^31 - 1", name, (long long)n);
    CS_TRY(ctx, cs_alloc(ctx, &offsets, (size_t)n + 1, sizeof *offsets, "BVGraph offsets"));
    if (!dec_init(&D, graph, nbytes * 8, p, NULL)) {
        rc = cs_fail(ctx, CS_ERR_NOMEM, "%s: out of memory for the decoder", name);
        goto fail;
    }
    have_dec = 1;
    uint64_t pos = 0;
    for (int64_t x = 0; x < n; x++) {
        offsets[x] = pos;
        if (!dec_next(&D, x, pos, &pos)) {
            rc = dec_error(ctx, name, &D);
            goto fail;
        }
        if (prog != NULL && (x & 0xffff) == 0)
            cs_progress_update(prog, (uint64_t)x);
    }
    offsets[n] = pos;
    dec_fini(&D);
    *offsets_out = offsets;
    return CS_OK;
fail:
    if (have_dec)
        dec_fini(&D);
    free(offsets);
    return rc;
}

/* Local. The outdegree of each node of [a, b), read at its offset, into deg[0, b - a). */
static cs_err read_degrees(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbits,
                           const cs_bv_params *p, const uint64_t *ofs, int64_t a, int64_t b,
                           int64_t *deg)
{
    for (int64_t x = a; x < b; x++) {
        bits r = {graph, nbits, ofs[x], 0};
        uint64_t d = read_code(&r, p->outdegrees, p->zetak);
        if (r.bad || d > (uint64_t)p->nodes)
            return cs_fail(ctx, CS_ERR_FORMAT,
                           "%s: node %lld: no outdegree at bit %llu (does the .offsets file "
                           "belong to this graph?)",
                           name, (long long)x, (unsigned long long)ofs[x]);
        if (deg != NULL)
            deg[x - a] = (int64_t)d;
    }
    return CS_OK;
}

/* Local. deg[0, k) into CSR offsets in place (k + 1 entries); the arc count. */
static int64_t degrees_to_offsets(int64_t *off, int64_t k)
{
    int64_t total = 0;
    for (int64_t i = 0; i < k; i++) {
        int64_t d = off[i];
        off[i] = total;
        total += d;
    }
    off[k] = total;
    return total;
}

/* Local. The first of the k local nodes whose first arc (off, sorted) is at or after arc. */
static int64_t first_node_at(const int64_t *off, int64_t k, int64_t arc)
{
    int64_t l = 0, h = k;
    while (l < h) {
        int64_t mid = l + (h - l) / 2;
        if (off[mid] < arc)
            l = mid + 1;
        else
            h = mid;
    }
    return l;
}

/* Local. Decodes the lists of local nodes [i0, i1) (node a + i) with T into t32 or t64 at their
 * offsets off; 0 on an error (recorded in T). */
static int decode_chunk(dec *T, const uint64_t *ofs, int64_t a, int64_t i0, int64_t i1,
                        const int64_t *off, int32_t *t32, int64_t *t64)
{
    for (int64_t i = i0; i < i1; i++) {
        const int64_t x = a + i;
        uint64_t end = 0;
        if (!dec_next(T, x, ofs[x], &end))
            return 0;
        if (end != ofs[x + 1])
            return fail_at(T, "a list that ends elsewhere than the next one starts", x, end);
        int s = (int)(x % T->slots);
        const int32_t *v = T->ring[s].v;
        const int64_t len = T->ring_len[s];
        if (t32 != NULL) {
            memcpy(t32 + off[i], v, (size_t)len * sizeof *t32);
        } else {
            int64_t *o = t64 + off[i];
            for (int64_t j = 0; j < len; j++)
                o[j] = v[j];
        }
    }
    return 1;
}

/*
 * Local. Decodes the lists of nodes [a, b), whose local CSR offsets off (b - a + 1 entries)
 * are known, into t32 or t64 (exactly one is not NULL): ranges of about equal arc counts (at
 * most 4 M arcs, at least 8 per thread) decoded in parallel, each from its first node's offset.
 * prog (may be NULL) counts the arcs done.
 */
static cs_err decode_nodes(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbits,
                           const cs_bv_params *p, const uint64_t *ofs, int64_t a, int64_t b,
                           const int64_t *off, int32_t *t32, int64_t *t64, cs_progress *prog)
{
    const int64_t k = b - a, total = off[k];
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#endif
    int64_t chunks = k == 0 ? 0 : (int64_t)nthreads * 8;
    if (chunks > 0 && total / chunks > ((int64_t)1 << 22))
        chunks = total / ((int64_t)1 << 22) + 1;
    int64_t err_node = INT64_MAX;
    dec first_err;
    memset(&first_err, 0, sizeof first_err);
    int bad = 0;
    uint64_t done = 0;
#pragma omp parallel default(none) shared(graph, nbits, p, ofs, off, t32, t64, a, k, total,        \
                                          chunks, err_node, first_err, done, prog)                 \
    reduction(max                                                                                  \
              : bad)
    {
        dec T;
        int ok = dec_init(&T, graph, nbits, p, ofs);
        if (!ok)
            T.nomem = 1;
        int reporter = 1;
#ifdef _OPENMP
        reporter = omp_get_thread_num() == 0;
#endif
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < chunks; c++) {
            if (!ok)
                continue;
            /* the local range [i0, i1): nodes whose first arc falls in this chunk's share */
            const int64_t i0 = c == 0 ? 0 : first_node_at(off, k, total * c / chunks);
            const int64_t i1 =
                c == chunks - 1 ? k : first_node_at(off, k, total * (c + 1) / chunks);
            ok = decode_chunk(&T, ofs, a, i0, i1, off, t32, t64);
            uint64_t now = 0;
            const uint64_t arcs = (uint64_t)(off[i1] - off[i0]);
#pragma omp atomic capture
            now = done += arcs;
            if (reporter && prog != NULL)
                cs_progress_update(prog, now);
        }
        if (!ok || T.what != NULL || T.nomem) {
            bad = 1;
#pragma omp critical(cs_bv_error)
            {
                int64_t at = T.nomem ? -1 : T.err_node;
                if (at < err_node) {
                    err_node = at;
                    first_err.what = T.what;
                    first_err.err_node = T.err_node;
                    first_err.err_bit = T.err_bit;
                    first_err.nomem = T.nomem;
                }
            }
        }
        dec_fini(&T);
    }
    CS_ASSERT(!bad || err_node < INT64_MAX); /* a failing thread recorded where */
    return bad ? dec_error(ctx, name, &first_err) : CS_OK;
}

cs_err cs_bv_decode(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                    const cs_bv_params *p, const uint64_t *offsets_in, int64_t **off_out,
                    int32_t **tgt_out)
{
    cs_err rc = CS_OK;
    const int64_t n = p->nodes;
    const uint64_t nbits = nbytes * 8;
    uint64_t *offsets = NULL;
    int64_t *off = NULL;
    int32_t *tgt = NULL;
    *off_out = NULL;
    *tgt_out = NULL;
    if (n < 0 || n > (int64_t)CS_IMP_ID_MAX + 1)
        return cs_fail(ctx, CS_ERR_LIMIT, "%s: %lld nodes: at most 2^31 - 1", name, (long long)n);
    /* Pass 1: without an offsets file, the bit offsets of the lists */
    if (offsets_in == NULL)
        CS_TRY(ctx, cs_bv_scan(ctx, name, graph, nbytes, p, &offsets, NULL));
    const uint64_t *ofs = offsets_in != NULL ? offsets_in : offsets;
    CS_TRY(ctx, cs_alloc(ctx, &off, (size_t)n + 1, sizeof *off, "BVGraph list offsets"));
    CS_TRY(ctx, read_degrees(ctx, name, graph, nbits, p, ofs, 0, n, off));
    int64_t total = degrees_to_offsets(off, n);
    if (p->arcs >= 0 && total != p->arcs) {
        rc = cs_fail(ctx, CS_ERR_FORMAT, "%s: the lists hold %lld arcs, the properties say %lld",
                     name, (long long)total, (long long)p->arcs);
        goto fail;
    }
    CS_TRY(ctx, cs_alloc(ctx, &tgt, (size_t)total, sizeof *tgt, "BVGraph successors"));
    /* Pass 2: node ranges of about equal arc counts, in parallel */
    CS_TRY(ctx, decode_nodes(ctx, name, graph, nbits, p, ofs, 0, n, off, tgt, NULL, NULL));
    free(offsets);
    *off_out = off;
    *tgt_out = tgt;
    return CS_OK;
fail:
    free(offsets);
    free(off);
    free(tgt);
    return rc;
}

cs_err cs_bv_split(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                   const cs_bv_params *p, const uint64_t *offsets, int parts, int part, int64_t *a,
                   int64_t *b, int64_t *arcs)
{
    const int64_t n = p->nodes;
    const uint64_t nbits = nbytes * 8;
    int64_t total = 0;
    for (int64_t x = 0; x < n; x++) {
        bits r = {graph, nbits, offsets[x], 0};
        uint64_t d = read_code(&r, p->outdegrees, p->zetak);
        if (r.bad || d > (uint64_t)n)
            return read_degrees(ctx, name, graph, nbits, p, offsets, x, x + 1, NULL);
        total += (int64_t)d;
    }
    if (p->arcs >= 0 && total != p->arcs)
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: the lists hold %lld arcs, the properties say %lld",
                       name, (long long)total, (long long)p->arcs);
    /* part r starts at the first node whose arcs before it reach total * r / parts */
    const int64_t lo = total * part / parts, hi = total * (part + 1) / parts;
    int64_t cum = 0, first = part == 0 ? 0 : -1, end = part == parts - 1 ? n : -1;
    for (int64_t x = 0; x < n && (first < 0 || end < 0); x++) {
        if (first < 0 && cum >= lo)
            first = x;
        if (end < 0 && cum >= hi)
            end = x;
        bits r = {graph, nbits, offsets[x], 0};
        cum += (int64_t)read_code(&r, p->outdegrees, p->zetak);
    }
    *a = first < 0 ? n : first;
    *b = end < 0 ? n : end;
    *arcs = total;
    return CS_OK;
}

cs_err cs_bv_decode_range(cs_ctx *ctx, const char *name, const uint8_t *graph, uint64_t nbytes,
                          const cs_bv_params *p, const uint64_t *offsets, int64_t a, int64_t b,
                          int64_t **off_out, int64_t **tgt_out, cs_progress *prog)
{
    cs_err rc = CS_OK;
    const uint64_t nbits = nbytes * 8;
    int64_t *off = NULL, *tgt = NULL;
    *off_out = NULL;
    *tgt_out = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &off, (size_t)(b - a) + 1, sizeof *off, "BVGraph list offsets"));
    CS_TRY(ctx, read_degrees(ctx, name, graph, nbits, p, offsets, a, b, off));
    int64_t total = degrees_to_offsets(off, b - a);
    CS_TRY(ctx, cs_alloc(ctx, &tgt, (size_t)total, sizeof *tgt, "BVGraph successors"));
    if (prog != NULL)
        prog->total = (uint64_t)total;
    CS_TRY(ctx, decode_nodes(ctx, name, graph, nbits, p, offsets, a, b, off, NULL, tgt, prog));
    *off_out = off;
    *tgt_out = tgt;
    return CS_OK;
fail:
    free(off);
    free(tgt);
    return rc;
}

/* ---- files --------------------------------------------------------------------------------- */

static int parse_code(const char *s, size_t n, cs_bv_code *c)
{
    static const struct {
        const char *name;
        cs_bv_code code;
    } codes[] = {{"GAMMA", CS_BV_GAMMA},
                 {"DELTA", CS_BV_DELTA},
                 {"ZETA", CS_BV_ZETA},
                 {"NIBBLE", CS_BV_NIBBLE},
                 {"UNARY", CS_BV_UNARY}};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strlen(codes[i].name) == n && memcmp(codes[i].name, s, n) == 0) {
            *c = codes[i].code;
            return 1;
        }
    return 0;
}

/* One flag such as OUTDEGREES_DELTA into p. */
static int parse_flag(const char *s, size_t n, cs_bv_params *p)
{
    static const char *const parts[] = {"OUTDEGREES_", "REFERENCES_", "BLOCK_COUNT_",
                                        "BLOCKS_",     "RESIDUALS_",  "OFFSETS_"};
    cs_bv_code *dst[] = {&p->outdegrees, &p->references, &p->block_count,
                         &p->blocks,     &p->residuals,  &p->offsets};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t l = strlen(parts[i]);
        if (n > l && memcmp(s, parts[i], l) == 0)
            return parse_code(s + l, n - l, dst[i]);
    }
    return 0;
}

static int parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *e = NULL;
    errno = 0;
    long long x = strtoll(v, &e, 10);
    if (errno != 0 || e == v || *e != '\0' || x < lo || x > hi)
        return 0;
    *out = x;
    return 1;
}

static cs_err slurp(cs_ctx *ctx, const char *path, uint8_t **buf, uint64_t *n, int *missing);

cs_err cs_bv_read_properties(cs_ctx *ctx, const char *path, cs_bv_params *p)
{
    cs_err rc = CS_OK;
    cs_bv_params_default(p);
    /* the whole file, so that no line is ever cut in two (a long comment's tail read as a key) */
    uint8_t *buf = NULL;
    uint64_t size = 0;
    rc = slurp(ctx, path, &buf, &size, NULL);
    if (rc != CS_OK)
        return rc;
    char *cur = (char *)buf, *const text_end = (char *)buf + size;
    if (memchr(buf, '\0', (size_t)size) != NULL) {
        free(buf);
        return cs_fail(ctx, CS_ERR_FORMAT, "%s: binary data (a NUL byte): not a properties file",
                       path);
    }
    int64_t ln = 0;
    while (cur < text_end) {
        char *line = cur, *nl = memchr(cur, '\n', (size_t)(text_end - cur));
        if (nl != NULL) {
            *nl = '\0';
            cur = nl + 1;
        } else {
            cur = text_end; /* the last line ends at the padding's first zero byte */
        }
        ln++;
        size_t l = strlen(line);
        while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' ' ||
                         line[l - 1] == '\t'))
            line[--l] = '\0';
        char *k = line;
        while (*k == ' ' || *k == '\t')
            k++;
        if (*k == '\0' || *k == '#' || *k == '!')
            continue;
        size_t kl = strcspn(k, "=: \t");
        char *v = k + kl;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v == '=' || *v == ':')
            v++;
        while (*v == ' ' || *v == '\t')
            v++;
        k[kl] = '\0';
        int64_t x = 0;
        int ok = 1;
        if (strcmp(k, "nodes") == 0) {
            ok = parse_int(v, 0, INT64_MAX, &x);
            p->nodes = x;
        } else if (strcmp(k, "arcs") == 0) {
            ok = parse_int(v, 0, INT64_MAX, &x);
            p->arcs = x;
        } else if (strcmp(k, "windowsize") == 0) {
            ok = parse_int(v, 0, 1 << 20, &x);
            p->window = (int)x;
        } else if (strcmp(k, "maxrefcount") == 0 || strcmp(k, "maxref") == 0) {
            ok = parse_int(v, -1, INT32_MAX, &x);
            p->maxref = (int)x;
        } else if (strcmp(k, "minintervallength") == 0) {
            ok = parse_int(v, 0, 1 << 30, &x);
            p->minint = (int)x;
        } else if (strcmp(k, "zetak") == 0) {
            ok = parse_int(v, 1, 20, &x);
            p->zetak = (int)x;
        } else if (strcmp(k, "version") == 0) {
            ok = parse_int(v, 0, 0, &x);
        } else if (strcmp(k, "graphclass") == 0) {
            size_t vl = strlen(v);
            ok = vl >= 7 && strcmp(v + vl - 7, "BVGraph") == 0;
        } else if (strcmp(k, "compressionflags") == 0) {
            for (char *s = v; ok && *s != '\0';) {
                size_t fl = strcspn(s, "| \t");
                if (fl > 0)
                    ok = parse_flag(s, fl, p);
                s += fl;
                while (*s == '|' || *s == ' ' || *s == '\t')
                    s++;
            }
        }
        if (!ok) {
            rc = cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: %s = '%.60s' is not supported or not valid",
                         path, (long long)ln, k, v);
            break;
        }
    }
    free(buf);
    if (rc == CS_OK && p->minint == 1)
        rc =
            cs_fail(ctx, CS_ERR_FORMAT, "%s: minintervallength = 1 is not valid (0 or >= 2)", path);
    return rc;
}

/* The whole file into a buffer (8 zero bytes of padding). */
static cs_err slurp(cs_ctx *ctx, const char *path, uint8_t **buf, uint64_t *n, int *missing)
{
    cs_err rc = CS_OK;
    *buf = NULL;
    *n = 0;
    int fd = -1, absent = 0;
    {
        cs_err orc =
            cs_open_regular(ctx, path, "BVGraph file", &fd, missing != NULL ? &absent : NULL);
        if (orc != CS_OK)
            return orc;
    }
    if (absent) {
        *missing = 1;
        return CS_OK;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return cs_fail(ctx, CS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        fclose(f);
        return cs_fail(ctx, CS_ERR_IO, "%s: cannot stat", path);
    }
    size_t size = (size_t)st.st_size;
    rc = cs_calloc(ctx, buf, size + 8, 1, path);
    if (rc == CS_OK && size > 0 && fread(*buf, 1, size, f) != size)
        rc = cs_fail(ctx, CS_ERR_IO, "%s: read error", path);
    fclose(f);
    if (rc != CS_OK) {
        free(*buf);
        *buf = NULL;
        return rc;
    }
    *n = size;
    return CS_OK;
}

cs_err cs_bv_read_offsets(cs_ctx *ctx, const char *path, const cs_bv_params *p, uint64_t nbits,
                          uint64_t **offsets)
{
    cs_err rc = CS_OK;
    uint8_t *buf = NULL;
    uint64_t nb = 0;
    int missing = 0;
    *offsets = NULL;
    CS_TRY(ctx, slurp(ctx, path, &buf, &nb, &missing));
    if (missing)
        return CS_OK;
    uint64_t *o = NULL;
    rc = cs_alloc(ctx, &o, (size_t)p->nodes + 1, sizeof *o, "BVGraph offsets");
    if (rc != CS_OK) {
        free(buf);
        return rc;
    }
    bits r = {buf, nb * 8, 0, 0};
    uint64_t at = 0;
    for (int64_t x = 0; x <= p->nodes; x++) {
        uint64_t gap = read_code(&r, p->offsets, p->zetak);
        if (r.bad || gap > nbits - at || (at += gap, x == 0 && at != 0)) {
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "%s: offset %lld is bad or beyond the graph's %llu bits (truncated "
                         "file, or another graph's?)",
                         path, (long long)x, (unsigned long long)nbits);
            free(o);
            free(buf);
            return rc;
        }
        o[x] = at;
    }
    free(buf);
    *offsets = o;
    return CS_OK;
fail:
    return rc;
}
