/*
 * h5 guard: a temporary being written is removed when a signal kills the process. While rank 0
 * writes a temporary (a graph, partition, checkpoint, results or schedule file), SIGTERM, SIGINT
 * and SIGHUP, when their action is the default one (the process dies), first remove it (unlink
 * of a name kept in a process-wide buffer: async-signal-safe) and then kill the process with the
 * same signal, as before. A signal that has a handler of its own keeps it: `crawlsim run` with a
 * checkpoint file takes SIGTERM as "checkpoint, then stop", and its writes complete. SIGKILL
 * cannot be caught: the temporary of a killed write is named by the next write (import) or
 * left, under its ".NAME.tmp.PID" name.
 */
#include "crawlsim/h5.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The temporary being written, empty when none: a signal handler can reach nothing else. */
static char g_tmp[4096];
static const int g_sigs[] = {SIGTERM, SIGINT, SIGHUP};
#define NSIGS ((int)(sizeof g_sigs / sizeof g_sigs[0]))
static struct sigaction g_old[NSIGS];
static int g_ours[NSIGS];

/* The temporary's ballast ("<tmp>.room", cs_h5_room_take), precomputed for the handler. */
static char g_room[4096 + 8];

static void on_kill(int sig)
{
    if (g_tmp[0] != '\0') {
        unlink(g_tmp);
        unlink(g_room);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void cs_h5_tmp_guard(const char *tmp)
{
    cs_h5_tmp_unguard();
    if (tmp == NULL || strlen(tmp) >= sizeof g_tmp)
        return; /* too long to keep: not guarded */
    /* the name first, then the handlers, so that no handler sees half a name */
    snprintf(g_room, sizeof g_room, "%s.room", tmp);
    snprintf(g_tmp, sizeof g_tmp, "%s", tmp);
    for (int i = 0; i < NSIGS; i++) {
        struct sigaction sa;
        g_ours[i] = 0;
        if (sigaction(g_sigs[i], NULL, &g_old[i]) != 0 || g_old[i].sa_handler != SIG_DFL ||
            (g_old[i].sa_flags & SA_SIGINFO) != 0)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_kill;
        sigemptyset(&sa.sa_mask);
        for (int j = 0; j < NSIGS; j++)
            sigaddset(&sa.sa_mask, g_sigs[j]); /* one removal at a time */
        g_ours[i] = sigaction(g_sigs[i], &sa, NULL) == 0;
    }
}

void cs_h5_tmp_unguard(void)
{
    for (int i = 0; i < NSIGS; i++)
        if (g_ours[i]) {
            sigaction(g_sigs[i], &g_old[i], NULL);
            g_ours[i] = 0;
        }
    g_tmp[0] = '\0';
}
