/*
 * crawlsim schedule's input: the page table (CSV with the columns id, mu, delta, complete in any
 * order), read and checked whole on rank 0. Apart from cmd_schedule.c so that the fuzzing
 * harness tests/fuzz/fuzz_schedule_csv.c can parse text from memory.
 */
#ifndef CRAWLSIM_MAIN_CMD_SCHEDULE_CSV_H
#define CRAWLSIM_MAIN_CMD_SCHEDULE_CSV_H

#include "crawlsim/core.h"

#include <stddef.h>
#include <stdint.h>

/* The page table. ids point into buf, which the table owns. */
typedef struct cs_schedule_table {
    char *buf;
    int64_t n;
    size_t cap_ids, cap_line, cap_mu, cap_delta, cap_c;
    const char **ids;
    int64_t *line; /* the file line of each row, for messages */
    double *mu, *delta;
    uint8_t *complete;
} cs_schedule_table;

/* Local. Frees the table and empties it; accepts an empty (zeroed) table. */
void cs_schedule_table_fini(cs_schedule_table *t);

/*
 * Local. Parses text[0, len) (malloc'd, with text[len] == '\0'), named `name` in messages, into
 * t, which must be zeroed. The table takes text over, also on failure (cs_schedule_table_fini
 * frees it). Errors, naming the line: CS_ERR_FORMAT (NUL bytes, quotes, a bad header, a row
 * whose field count differs from the header's, an empty id, mu or delta not a positive finite
 * number, complete not 0, 1, true or false, a duplicate id, no header or no row), CS_ERR_NOMEM.
 */
cs_err cs_schedule_table_parse(cs_ctx *ctx, const char *name, char *text, size_t len,
                               cs_schedule_table *t);

/* Local. cs_schedule_table_parse on the whole file at path (CS_ERR_IO when it cannot be read). */
cs_err cs_schedule_table_read(cs_ctx *ctx, const char *path, cs_schedule_table *t);

#endif
