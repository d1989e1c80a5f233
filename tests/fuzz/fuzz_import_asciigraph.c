/*
 * libFuzzer harness: the importer's ASCIIGraph reader (edge_format = asciigraph: a node count, then
 * successor lists) (src/import/import_parse.c), each input read as an edge file (cs_import_read)
 * under the configurations below. Integer ids come with a node_count or a count the file implies,
 * so that an id like 2^31 - 2 is an error rather than a legitimately huge graph.
 */
#include "common.h"

static const char *const variants[][12] = {
    {"import.edges={0}", "import.edge_format=asciigraph", "import.hosts=per-page", NULL},
    {"import.edges={0}", "import.edge_format=asciigraph", "import.comment=%", "import.reverse=true",
     "import.self_loops=keep", "import.hosts=single", NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a header declaring many nodes makes a graph that big, legitimately (seconds of work per
     * input under the sanitizers at 3 * 10^5 nodes): skip */
    if (fuzz_any_number_above(data, size, (uint64_t)1 << 14))
        return 0;
    const char *const files[2] = {fuzz_file("edges", data, size), ""};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        (void)fuzz_import(variants[v], files);
    return 0;
}
