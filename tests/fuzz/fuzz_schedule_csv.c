/*
 * libFuzzer harness: the page table of `crawlsim schedule` (src/main/cmd_schedule_csv.c). Each
 * input is the CSV text. An accepted table has positive finite mu and delta, complete flags 0
 * or 1, non-empty distinct ids; a refused one comes with a message.
 */
#include "common.h"

#include "main/cmd_schedule_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    cs_schedule_table t;
    memset(&t, 0, sizeof t);
    cs_err rc = cs_schedule_table_parse(&ctx, "fuzz.csv", fuzz_strdup(data, size), size, &t);
    fuzz_check_error(&ctx, rc, "cs_schedule_table_parse");
    if (rc == CS_OK) {
        if (t.n <= 0)
            abort();
        for (int64_t i = 0; i < t.n; i++) {
            if (!(t.mu[i] > 0.0 && isfinite(t.mu[i]) && t.delta[i] > 0.0 && isfinite(t.delta[i])) ||
                t.complete[i] > 1 || t.ids[i][0] == '\0') {
                fprintf(stderr, "fuzz: row %lld accepted with a bad value\n", (long long)i);
                abort();
            }
            for (int64_t j = 0; j < i; j++)
                if (strcmp(t.ids[i], t.ids[j]) == 0) {
                    fprintf(stderr, "fuzz: duplicate id '%s' accepted\n", t.ids[i]);
                    abort();
                }
        }
    }
    cs_schedule_table_fini(&t);
    return 0;
}
