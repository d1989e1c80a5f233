/*
 * libFuzzer harness: the importer's indexed adjacency lists (edge_format = adjacency-indexed: line
 * i is page i, "outdeg dst1 ...") (src/import/import_parse.c), each input read as an edge file
 * (cs_import_read) under the configurations below. Integer ids come with a node_count or a
 * count the file implies, so that an id like 2^31 - 2 is an error rather than a legitimately
 * huge graph.
 */
#include "common.h"

static const char *const variants[][12] = {
    {"import.edges={0}", "import.edge_format=adjacency-indexed", "import.hosts=per-page", NULL},
    {"import.edges={0}", "import.edge_format=adjacency-indexed", "import.node_count=64",
     "import.id_base=1", "import.separators=,", "import.skip_lines=2", "import.reverse=true",
     "import.self_loops=keep", "import.hosts=single", NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *const files[2] = {fuzz_file("edges", data, size), ""};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        (void)fuzz_import(variants[v], files);
    return 0;
}
