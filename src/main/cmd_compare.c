/*
 * crawlsim compare: rank 0 compares two HDF5 files with cs_compare_files and prints the first
 * differences and a summary; the other ranks (under mpirun) only learn the outcome, so that every
 * rank exits with the same status: 0 the same, 1 different, 2 an error (main.c).
 *
 * /timing (wall-clock measurements of `crawlsim run`) is left out unless --no-default-ignore.
 */
#include "main/cmd_compare.h"

#include "crawlsim/comm.h"
#include "crawlsim/compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Difference lines printed without -v. */
#define MAX_LINES 10

/* Local (rank 0). Prints "PATH, PATH" of n paths after a label, for the summary line. */
static void print_paths(const char *label, const char *const *p, int n)
{
    if (n == 0)
        return;
    printf("; %s", label);
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? ", " : " ", p[i]);
}

cs_err cs_cmd_compare(cs_ctx *ctx, const cs_compare_args *a, int *differ)
{
    cs_err rc = CS_OK;
    int d = 0;
    const char **ignore = NULL;
    /* The same arguments on every rank: the same answer without communication. */
    const char *dflt = &CS_COMPARE_DEFAULT_IGNORE[1];
    const size_t ndflt = strlen(dflt);
    for (int i = 0; i < a->n_only && !a->no_default_ignore; i++) {
        const char *p = a->only[i] + (a->only[i][0] == '/');
        if (strncmp(p, dflt, ndflt) == 0 && (p[ndflt] == '\0' || p[ndflt] == '/'))
            return cs_fail(ctx, CS_ERR_USAGE,
                           "--only %s lies within %s, which compare ignores unless "
                           "--no-default-ignore is given",
                           a->only[i], CS_COMPARE_DEFAULT_IGNORE);
    }
    if (ctx->rank == 0) {
        const int n_ignore = a->n_ignore + (a->no_default_ignore ? 0 : 1);
        rc = cs_calloc(ctx, &ignore, (size_t)n_ignore + 1, sizeof *ignore, "ignored paths");
        if (rc == CS_OK) {
            int k = 0;
            if (!a->no_default_ignore)
                ignore[k++] = CS_COMPARE_DEFAULT_IGNORE;
            for (int i = 0; i < a->n_ignore; i++)
                ignore[k++] = a->ignore[i];
            cs_compare_opts o = {ignore,
                                 n_ignore,
                                 a->only,
                                 a->n_only,
                                 a->verbosity < 0 ? NULL : stdout,
                                 a->verbosity > 0 ? -1 : MAX_LINES};
            cs_compare_stats st;
            rc = cs_compare_files(ctx, a->a, a->b, &o, &st);
            if (rc == CS_OK && a->verbosity >= 0) {
                printf("compared %" PRId64 " object%s of %s and %s", st.objects,
                       st.objects == 1 ? "" : "s", a->a, a->b);
                print_paths("only", a->only, a->n_only);
                print_paths("ignoring", ignore, n_ignore);
                if (st.differ == 0)
                    printf(": identical\n");
                else if (st.lines > MAX_LINES && a->verbosity == 0)
                    printf(": %" PRId64 " differ (%" PRId64 " differences, the first %d shown; "
                           "-v shows all)\n",
                           st.differ, st.lines, MAX_LINES);
                else
                    printf(": %" PRId64 " differ (%" PRId64 " difference%s)\n", st.differ, st.lines,
                           st.lines == 1 ? "" : "s");
                fflush(stdout);
            }
            d = rc == CS_OK && st.differ > 0;
        }
        free(ignore);
    }
    rc = cs_agree(ctx, rc);
    if (rc != CS_OK)
        return rc;
    if (ctx->size > 1)
        cs_bcast(ctx, &d, 1, CS_T_INT, 0);
    *differ = d;
    return CS_OK;
}
