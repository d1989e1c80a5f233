/*
 * libFuzzer harness: the importer's page tables and page lists (src/import/import_parse.c:
 * URLs and hosts, labels and topics, relevance, dense and sparse features), each input read as
 * the page table of a fixed three-page edge list under the configurations below.
 */
#include "common.h"

#include <string.h>

static const char *const variants[][16] = {
    {"import.edges={0}", "import.pages={1}", "import.node_count=3", "import.page_url_field=1",
     "import.page_label_field=2", "import.page_relevance_field=3", "import.hosts=url",
     "import.label_depth=2", NULL},
    {"import.edges={0}", "import.pages={1}", "import.page_list={1}", "import.node_ids=name",
     "import.page_separators=\\t", "import.page_host_field=1", "import.hosts=field",
     "import.host_names=reversed", "import.page_features=sparse", "import.page_features_first=2",
     "import.page_label_field=3", "import.target_label=a.b", "import.lowercase_names=true", NULL},
    {"import.edges={0}", "import.pages={1}", "import.node_count=100", "import.page_ids=line",
     "import.page_id_field=-1", "import.page_features=dense-binary", "import.page_features_count=3",
     "import.page_features_first=1", "import.page_label_field=0", "import.page_skip_lines=1",
     "import.hosts=single", NULL},
};
/* the edge files: integer ids for the first and third configurations, names for the second */
static const char edges_ids[] = "0 1\n1 2\n2 0\n";
static const char edges_names[] = "a b\nb c\nc a\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *pages = fuzz_file("pages", data, size);
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const char *e = v == 1 ? edges_names : edges_ids;
        const char *const files[2] = {
            fuzz_file(v == 1 ? "edges-names" : "edges-ids", (const uint8_t *)e, strlen(e)), pages};
        (void)fuzz_import(variants[v], files);
    }
    return 0;
}
