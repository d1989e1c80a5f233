/*
 * libFuzzer harness: the job-file reader (src/config/config.c: the INI reader over inih, typed
 * assignment with range checks, cross-key validation). Each input is a job file's text. A file
 * that is accepted must survive the round trip through its resolved form (cs_config_to_ini, the
 * spec text stored in every graph and results file): that text is accepted again and resolves
 * to the same text. A refused file must come with a message.
 */
#include "common.h"

#include "crawlsim/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses text on top of the defaults; CS_OK when it is accepted and valid. */
static cs_err load(cs_ctx *ctx, const char *text, cs_config *cfg)
{
    cs_config_defaults(cfg);
    cs_err rc = cs_config_parse_string(ctx, text, "fuzz.ini", cfg);
    if (rc == CS_OK)
        rc = cs_config_validate(ctx, cfg);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strdup(data, size);
    cs_config *cfg = malloc(sizeof *cfg), *again = malloc(sizeof *again);
    char *ini = NULL, *ini2 = NULL;
    if (cfg == NULL || again == NULL)
        abort();
    cs_ctx ctx;
    fuzz_ctx(&ctx);
    cs_err rc = load(&ctx, text, cfg);
    fuzz_check_error(&ctx, rc, "reading the job file");
    if (rc == CS_OK) {
        if (cs_config_to_ini(&ctx, cfg, NULL, &ini) != CS_OK)
            abort();
        rc = load(&ctx, ini, again);
        if (rc != CS_OK) {
            fprintf(stderr, "fuzz: the resolved job file is refused: %s\n--\n%s--\n", ctx.errmsg,
                    ini);
            abort();
        }
        if (cs_config_to_ini(&ctx, again, NULL, &ini2) != CS_OK)
            abort();
        if (strcmp(ini, ini2) != 0) {
            fprintf(stderr, "fuzz: the resolved job file reads back differently\n--\n%s--\n%s--\n",
                    ini, ini2);
            abort();
        }
    }
    free(ini2);
    free(ini);
    free(again);
    free(cfg);
    free(text);
    return 0;
}
