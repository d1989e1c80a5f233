/*
 * libFuzzer harness: the reader of a BVGraph's .properties file (cs_bv_read_properties,
 * src/import/import_bvgraph.c). Each input is the file's text. Accepted parameters must be
 * within what the decoder is written for (the ranges the reader promises); a refused file comes
 * with a message.
 */
#include "common.h"

#include "import/import_bvgraph.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    cs_bv_params p;
    cs_err rc = cs_bv_read_properties(&ctx, fuzz_file("fuzz.properties", data, size), &p);
    fuzz_check_error(&ctx, rc, "cs_bv_read_properties");
    if (rc == CS_OK &&
        (p.nodes < -1 || p.arcs < -1 || p.window < 0 || p.maxref < -1 || p.minint < 0 ||
         p.minint == 1 || p.zetak < 1 || p.zetak > 20 || (unsigned)p.outdegrees > CS_BV_UNARY ||
         (unsigned)p.references > CS_BV_UNARY || (unsigned)p.block_count > CS_BV_UNARY ||
         (unsigned)p.blocks > CS_BV_UNARY || (unsigned)p.residuals > CS_BV_UNARY ||
         (unsigned)p.offsets > CS_BV_UNARY)) {
        fprintf(stderr, "fuzz: parameters accepted out of range\n");
        abort();
    }
    return 0;
}
