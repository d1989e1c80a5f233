/*
 * Writes the BVGraph seeds of tests/fuzz/corpus/fuzz_import_bvgraph/ (their 7 parameter bytes,
 * the .graph stream and, for odd seeds, "OFFS" and the .offsets file: the input layout of
 * fuzz_import_bvgraph.c) into the folder given, from small random graphs encoded with
 * tests/unit/bvgraph_writer.h. Built by `cmake --build DIR --target fuzz_bvgraph_seeds` in a
 * CRAWLSIM_FUZZ build; not part of the fuzzers target.
 */
#include "bvgraph_writer.h"

#include <limits.h>

int main(int argc, char **argv);

/* One seed: n nodes, each linking to most of its neighbours and to others with probability
 * density %; window, maxref, minint (index into {0, 2, 3, 4}), zetak and the six codes. */
static void emit(const char *dir, const char *name, int64_t n, int window, int maxref, int mi_idx,
                 int zetak, const int codes[6], uint64_t seed, unsigned density)
{
    static const int minint[4] = {0, 2, 3, 4};
    cs_bv_params p;
    cs_bv_params_default(&p);
    p.nodes = n;
    p.window = window;
    p.maxref = maxref;
    p.minint = minint[mi_idx];
    p.zetak = zetak;
    cs_bv_code *c[6] = {&p.outdegrees, &p.references, &p.block_count,
                        &p.blocks,     &p.residuals,  &p.offsets};
    for (int i = 0; i < 6; i++)
        *c[i] = (cs_bv_code)codes[i];
    int64_t *off = calloc((size_t)n + 1, sizeof *off);
    int32_t *tgt = malloc((size_t)(n * n) * sizeof *tgt);
    if (off == NULL || tgt == NULL)
        abort();
    uint64_t s = seed;
    for (int64_t x = 0; x < n; x++) {
        off[x + 1] = off[x];
        for (int32_t y = 0; y < n; y++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const unsigned near = y > x - 5 && y < x + 9 ? 60u : density;
            if ((s >> 33) % 100 < near)
                tgt[off[x + 1]++] = y;
        }
    }
    char base[PATH_MAX], path[PATH_MAX + 16];
    snprintf(base, sizeof base, "%s/.tmp-%s", dir, name);
    bw_write(base, n, off, tgt, &p, 0, 0, 1, seed);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *o = fopen(path, "wb");
    if (o == NULL)
        abort();
    const uint8_t h[7] = {(uint8_t)n,
                          (uint8_t)(window + 8 * (maxref + 1)),
                          (uint8_t)(mi_idx + 4 * (zetak - 1)),
                          (uint8_t)(codes[0] + 5 * codes[1]),
                          (uint8_t)(codes[2] + 5 * codes[3]),
                          (uint8_t)(codes[4] + 5 * codes[5]),
                          (uint8_t)(off[n] < 128 ? 1 + 2 * off[n] : 0)};
    fwrite(h, 1, sizeof h, o);
    static const char *const ext[2] = {".graph", ".offsets"};
    for (int k = 0; k < (seed % 2 ? 2 : 1); k++) {
        snprintf(path, sizeof path, "%s%s", base, ext[k]);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            abort();
        if (k == 1)
            fwrite("OFFS", 1, 4, o);
        uint8_t buf[4096];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, got, o);
        fclose(f);
        remove(path);
    }
    snprintf(path, sizeof path, "%s.offsets", base); /* (even seeds did not use it) */
    remove(path);
    if (fclose(o) != 0)
        abort();
    free(off);
    free(tgt);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
        return 2;
    }
    /* outdegrees, references, block count, blocks, residuals, offsets (cs_bv_code) */
    static const int def[6] = {0, 4, 0, 0, 2, 0}, alt[6] = {1, 0, 3, 1, 3, 2},
                     alt2[6] = {3, 1, 1, 4, 0, 4};
    emit(argv[1], "default-40", 40, 7, 3, 3, 3, def, 1, 3);
    emit(argv[1], "alt-codes-25", 25, 3, -1, 1, 5, alt, 2, 10);
    emit(argv[1], "alt2-noref-30", 30, 0, 0, 0, 2, alt2, 3, 5);
    emit(argv[1], "dense-12", 12, 7, 1, 2, 1, def, 4, 70);
    emit(argv[1], "tiny-3", 3, 2, 3, 1, 3, def, 5, 30);
    return 0;
}
