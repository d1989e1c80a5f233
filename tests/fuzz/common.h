/*
 * What the libFuzzer harnesses of tests/fuzz share: a serial context (no MPI: the parsers are
 * Local) and a private temporary folder for the parsers that read only from a path.
 */
#ifndef CRAWLSIM_FUZZ_COMMON_H
#define CRAWLSIM_FUZZ_COMMON_H

#include "crawlsim/core.h"
#include "crawlsim/slice.h"

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry points (declared here: -Wmissing-prototypes) */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A context without MPI that records errors and prints nothing below errors. */
void fuzz_ctx(cs_ctx *ctx);

/* The path of file `name` in the harness's temporary folder (made on first use, removed at
 * exit), written with data[0, size). Aborts when the file cannot be written: the harness, not
 * the parser, failed. The path stays valid until the next call with the same name. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

/* data[0, size) as a malloc'd NUL-terminated string (aborts when out of memory). */
char *fuzz_strdup(const uint8_t *data, size_t size);

/* 1 when data[0, size) holds a run of decimal digits whose value exceeds max. */
int fuzz_any_number_above(const uint8_t *data, size_t size, uint64_t max);

/* Checks what every failing parser owes its caller: a message. Aborts with code and name when
 * rc is an error and ctx holds no message. With CRAWLSIM_FUZZ_VERBOSE=1 in the environment,
 * prints every outcome (what a corpus case reaches). */
void fuzz_check_error(const cs_ctx *ctx, cs_err rc, const char *what);

/*
 * Imports with the defaults and then the "section.key=value" settings of sets (NULL-ended), as
 * `crawlsim import` would (cs_import_read); "{0}" and "{1}" in a setting stand for files[0] and
 * files[1]. On success checks the graph against the invariants slice.h promises
 * (fuzz_check_graph). Returns the importer's code after fuzz_check_error.
 */
cs_err fuzz_import(const char *const *sets, const char *const files[2]);

/* Aborts, naming the broken promise, unless g and meta are a well-formed whole graph: CSR
 * offsets from 0 to the link count, targets in range and sorted without duplicates per page
 * (a weight of 0 passes: the importer reads weights in [0, 2^32 - 1]),
 * hosts and topics in range, relevance in [0, 1], change rates and importances positive and
 * finite, feature indices in range. */
void fuzz_check_graph(const cs_graph_slice *g, const cs_graph_meta *m);

#endif
