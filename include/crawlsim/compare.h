/*
 * compare: comparing two HDF5 files object by object (`crawlsim compare` and the tests). Local,
 * no MPI. Depends on core and h5.
 */
#ifndef CRAWLSIM_COMPARE_H
#define CRAWLSIM_COMPARE_H

#include "crawlsim/core.h"

#include <stdint.h>
#include <stdio.h>

/*
 * `crawlsim compare` and the tests: two files are the same when every selected object is the same
 * in both. Objects are the root group, every group, dataset and committed datatype, and every
 * soft or external link, each named by its path (an object reached through two hard links is
 * compared under both names). Same means:
 *   - the path exists in both files, as the same kind of object (a path in one file only differs);
 *   - datasets and attributes: equal datatypes (H5Tequal: class, size, sign, byte order, string
 *     size, padding and character set, compound members), the same dataspace (scalar, null or
 *     simple; rank and dimensions; maximum dimensions are not compared) and the same values: the
 *     raw bytes of every element (bit-identical: -0.0 differs from 0.0, NaN payloads count);
 *     strings by their contents (fixed-length up to their NUL or padding, variable-length as C
 *     strings);
 *   - the same attributes (names, then each as a dataset above) on every object, the root
 *     included; committed datatypes equal; links the same target.
 * Storage (layout, chunks, filters, fill values), object times, comments and the file's free
 * space are not compared. Variable-length sequences and references cannot be compared (an error).
 *
 * Paths in opts are absolute or relative to the root ("timing" = "/timing"), without empty, "."
 * or ".." components; a path selects itself and everything below it.
 */

/* What cs_compare_files looks at and where it reports. */
typedef struct cs_compare_opts {
    const char *const *ignore; /* n_ignore paths left out (with everything below them) */
    int n_ignore;
    const char *const *only; /* n_only > 0: only these paths are compared (minus the ignored) */
    int n_only;
    FILE *out;         /* one line per difference, "<path>: <what differs>" (NULL: none) */
    int64_t max_lines; /* at most this many lines are printed (< 0: all); all are counted */
} cs_compare_opts;

/* The outcome of a comparison. */
typedef struct cs_compare_stats {
    int64_t objects; /* selected paths of either file (the union), the root included if selected */
    int64_t differ;  /* of those, objects with at least one difference */
    int64_t lines;   /* differences found (one object can have several: attributes, values) */
} cs_compare_stats;

/*
 * Local (one process; no MPI). Compares the HDF5 files path_a (called A in the lines) and path_b
 * (B), both opened read-only with the default driver, as described above, and fills *st; the
 * files are the same when st->differ == 0. Differences are printed in path order (depth first,
 * names in byte order), at most one line about the values of a dataset or attribute: its first
 * differing element (index and both values) and how many elements differ. HDF5's error printing
 * is off during the call. Errors (nothing is known about the files then; *st is partial):
 * CS_ERR_IO (a file is missing or unreadable), CS_ERR_FORMAT (not an HDF5 file), CS_ERR_HDF5
 * (HDF5 cannot open or read it), CS_ERR_ARG (a bad path in opts; an `only` path in neither file
 * or lying within an ignored one), CS_ERR_SCHEMA (a datatype that cannot be compared),
 * CS_ERR_NOMEM, each with a message naming the file and object.
 */
CS_API cs_err cs_compare_files(cs_ctx *ctx, const char *path_a, const char *path_b,
                               const cs_compare_opts *opts, cs_compare_stats *st);

#endif
