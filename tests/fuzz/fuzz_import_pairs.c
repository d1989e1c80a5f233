/*
 * libFuzzer harness: the importer's edge list of pairs (edge_format = pairs)
 * (src/import/import_parse.c), each input read as an edge file (cs_import_read) under the
 * configurations below. Integer ids come with a node_count or a count the file implies, so that an
 * id like 2^31 - 2 is an error rather than a legitimately huge graph.
 */
#include "common.h"

static const char *const variants[][12] = {
    {"import.edges={0}", "import.node_count=1000", "import.hosts=single", NULL},
    {"import.edges={0}", "import.node_ids=name", "import.reverse=true", "import.self_loops=keep",
     "import.hosts=url", "import.lowercase_names=true", NULL},
    {"import.edges={0}", "import.weight_field=2", "import.separators=,\\s\\t", "import.comment=%",
     "import.skip_lines=1", "import.id_base=1", "import.node_count=1000", "import.hosts=per-page",
     "import.src_field=1", "import.dst_field=0", NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *const files[2] = {fuzz_file("edges", data, size), ""};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        (void)fuzz_import(variants[v], files);
    return 0;
}
