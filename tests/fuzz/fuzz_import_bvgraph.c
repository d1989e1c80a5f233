/*
 * libFuzzer harness: the BVGraph decoder (src/import/import_bvgraph.c). An input is 7 bytes of
 * parameters (below: up to 63 nodes, every code, window, reference limit, interval length and
 * zeta k that a .properties file may give), then the .graph bit stream and, after the marker
 * "OFFS", the .offsets file (without the marker, the stream is read as the .offsets file too).
 * The stream is decoded from memory without offsets (the sequential pass finds them), then
 * with the offsets file when that is accepted. A decoded graph must be a CSR of strictly
 * increasing lists of nodes in range; a refused one comes with a message.
 */
#include "common.h"

#include "import/import_bvgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_csr(int64_t n, const int64_t *off, const int32_t *tgt, int64_t arcs)
{
    if (off[0] != 0 || (arcs >= 0 && off[n] != arcs))
        abort();
    for (int64_t x = 0; x < n; x++) {
        if (off[x + 1] < off[x])
            abort();
        for (int64_t k = off[x]; k < off[x + 1]; k++)
            if (tgt[k] < 0 || tgt[k] >= n || (k > off[x] && tgt[k] <= tgt[k - 1])) {
                fprintf(stderr, "fuzz: node %lld: successor %lld out of range or order\n",
                        (long long)x, (long long)k);
                abort();
            }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    static const int minint[4] = {0, 2, 3, 4};
    cs_bv_params p;
    cs_bv_params_default(&p);
    p.nodes = data[0] % 64;
    p.window = data[1] % 8;
    p.maxref = (data[1] >> 3) % 5 - 1;
    p.minint = minint[data[2] % 4];
    p.zetak = 1 + (data[2] >> 2) % 20;
    p.outdegrees = (cs_bv_code)(data[3] % 5);
    p.references = (cs_bv_code)(data[3] / 5 % 5);
    p.block_count = (cs_bv_code)(data[4] % 5);
    p.blocks = (cs_bv_code)(data[4] / 5 % 5);
    p.residuals = (cs_bv_code)(data[5] % 5);
    p.offsets = (cs_bv_code)(data[5] / 5 % 5);
    p.arcs = data[6] & 1 ? data[6] >> 1 : -1;
    const uint8_t *stream = data + 7, *ofs = data + 7;
    size_t nbytes = size - 7, nofs = size - 7;
    for (size_t i = 0; i + 4 <= size - 7; i++)
        if (memcmp(stream + i, "OFFS", 4) == 0) {
            nbytes = i;
            ofs = stream + i + 4;
            nofs = size - 7 - i - 4;
            break;
        }

    cs_ctx ctx;
    fuzz_ctx(&ctx);
    int64_t *off = NULL;
    int32_t *tgt = NULL;
    cs_err rc = cs_bv_decode(&ctx, "fuzz.graph", stream, nbytes, &p, NULL, &off, &tgt);
    fuzz_check_error(&ctx, rc, "cs_bv_decode");
    if (rc == CS_OK)
        check_csr(p.nodes, off, tgt, p.arcs);
    free(off);
    free(tgt);

    cs_ctx_clear_error(&ctx);
    uint64_t *offsets = NULL;
    const char *path = fuzz_file("fuzz.offsets", ofs, nofs);
    rc = cs_bv_read_offsets(&ctx, path, &p, (uint64_t)nbytes * 8, &offsets);
    fuzz_check_error(&ctx, rc, "cs_bv_read_offsets");
    if (rc == CS_OK && offsets != NULL) {
        off = NULL;
        tgt = NULL;
        rc = cs_bv_decode(&ctx, "fuzz.graph", stream, nbytes, &p, offsets, &off, &tgt);
        fuzz_check_error(&ctx, rc, "cs_bv_decode with offsets");
        if (rc == CS_OK)
            check_csr(p.nodes, off, tgt, p.arcs);
        free(off);
        free(tgt);
    }
    free(offsets);
    return 0;
}
