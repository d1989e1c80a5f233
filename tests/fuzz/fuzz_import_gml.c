/*
 * libFuzzer harness: the importer's GML reader (edge_format = gml) (src/import/import_gml.c), each
 * input read as an edge file (cs_import_read) under the configurations below. Integer ids come with
 * a node_count or a count the file implies, so that an id like 2^31 - 2 is an error rather than a
 * legitimately huge graph.
 */
#include "common.h"

static const char *const variants[][12] = {
    {"import.edges={0}", "import.edge_format=gml", "import.hosts=node", "import.gml_label=label",
     "import.label_depth=1", "import.target_label=a", NULL},
    {"import.edges={0}", "import.edge_format=gml", "import.hosts=url", "import.gml_url=url",
     "import.gml_label=value", "import.lowercase_names=true", "import.host_names=reversed", NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *const files[2] = {fuzz_file("edges", data, size), ""};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        (void)fuzz_import(variants[v], files);
    return 0;
}
