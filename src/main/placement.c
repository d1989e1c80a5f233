/*
 * main's start-up check of where the ranks' OpenMP threads run (main_check_placement): threads
 * sharing cores by accident, and a rank's threads on cores of several sockets.
 */
/* sched_getaffinity and the CPU_* macros are GNU extensions of glibc */
#define _GNU_SOURCE
#include "main/main_impl.h"

#include "crawlsim/comm.h"

#include <omp.h>
#include <sched.h>
#include <stdlib.h>

/*
 * Collective(ctx->comm). Warns (from rank 0) when OpenMP threads share cores by accident: a
 * rank with more threads than cores in its affinity mask (mpirun binds each rank to one core by
 * default), or a node whose ranks run more threads in all than the union of their affinity masks
 * holds cores (e.g. mpirun --bind-to none with ranks x threads above the node's cores). The
 * ranks of a node are those sharing memory (MPI_COMM_TYPE_SHARED).
 */
#ifndef CRAWLSIM_SMPI
/* The cores this process may run on: the union of the OpenMP places when there are places
 * (OMP_PLACES: the runtime has already pinned this thread to the first place, so the thread's
 * own mask would show one core), else this thread's affinity mask. 0 when unknown. */
static int own_cpus(cpu_set_t *m)
{
    CPU_ZERO(m);
    const int np = omp_get_num_places();
    if (np <= 0)
        return sched_getaffinity(0, sizeof *m, m) == 0;
    for (int p = 0; p < np; p++) {
        int ids[CPU_SETSIZE];
        const int n = omp_get_place_num_procs(p);
        if (n < 0 || n > CPU_SETSIZE)
            return 0;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
                CPU_SET((size_t)ids[i], m);
    }
    return 1;
}
#endif

void main_check_placement(cs_ctx *ctx)
{
#ifdef CRAWLSIM_SMPI
    (void)ctx; /* simulated ranks are threads of one process: no placement to check */
#else
    cpu_set_t mine, all;
    const int known = own_cpus(&mine);
    int nranks = 1, all_ok = 0;
    cs_comm_node_allreduce(ctx, &mine, &all, (int64_t)sizeof mine, CS_T_BYTE, CS_OP_BOR, &nranks);
    cs_allreduce(ctx, &known, &all_ok, 1, CS_T_INT, CS_OP_MIN);
    /* CRAWLSIM_SYS_CPU: another tree laid out as /sys/devices/system/cpu (the tests' sockets) */
    const char *sys_cpu = getenv("CRAWLSIM_SYS_CPU");
    if (sys_cpu == NULL || sys_cpu[0] == '\0')
        sys_cpu = "/sys/devices/system/cpu";
    /* the sockets matter to a rank with threads only: the others read no file */
    const int threads = omp_get_max_threads();
    int cpus[CPU_SETSIZE], ncpu = 0;
    for (int c = 0; c < CPU_SETSIZE && known && threads > 1; c++)
        if (CPU_ISSET((size_t)c, &mine))
            cpus[ncpu++] = c;
    /* the node's threads and the sum of its ranks' cores */
    const int tc[2] = {threads, CPU_COUNT(&mine)};
    int node_tc[2] = {0, 0};
    cs_comm_node_allreduce(ctx, tc, node_tc, 2, CS_T_INT, CS_OP_SUM, NULL);
    int v[8] = {threads,
                tc[1],
                node_tc[0],
                CPU_COUNT(&all),
                nranks,
                node_tc[1],
                omp_get_proc_bind() != omp_proc_bind_false,
                ncpu > 0 ? cs_cpu_packages(sys_cpu, cpus, ncpu) : 0};
    /* per rank: its threads, its cores, its node's threads, cores and ranks, the sum of the node's
     * ranks' cores (above the node's cores when their masks overlap), OMP_PROC_BIND in force,
     * the sockets of its cores (0: unknown) */
    int *g = malloc((size_t)ctx->size * sizeof v);
    const int have = g != NULL;
    int agreed = 0;
    cs_allreduce(ctx, &have, &agreed, 1, CS_T_INT, CS_OP_MIN);
    if (agreed && all_ok)
        cs_gather(ctx, v, 8, g, CS_T_INT, 0);
    if (agreed && all_ok && ctx->rank == 0 && g != NULL) { /* (agreed: every rank has g) */
        int r_rank = -1, r_node = -1, r_pin = -1, r_sock = -1;
        for (int r = 0; r < ctx->size; r++) {
            const int *x = g + 8 * r;
            /* threads of one rank on cores of several sockets: every line they share crosses
             * between sockets */
            if (r_sock < 0 && x[0] > 1 && x[7] > 1)
                r_sock = r;
            /* pinned threads of ranks whose masks overlap (unbound ranks) land on the same
             * cores: each rank places its thread i on the i-th core of its mask */
            if (r_pin < 0 && x[6] && x[4] > 1 && x[5] > x[3])
                r_pin = r;
            if (r_rank < 0 && x[0] > x[1])
                r_rank = r;
            /* ranks beyond the cores (mpirun --oversubscribe) are a choice; threads beyond
             * one per rank on a full node are not */
            if (r_node < 0 && x[2] > x[3] && x[2] > x[4])
                r_node = r;
        }
        if (r_rank >= 0)
            CS_LOG(ctx, CS_LOG_WARN,
                   "%d OpenMP threads per rank but only %d core(s) available to rank %d: its "
                   "threads share cores; run with mpirun --bind-to none (or --map-by slot:PE=%d), "
                   "or srun --cpus-per-task=%d",
                   g[8 * r_rank], g[8 * r_rank + 1], r_rank, g[8 * r_rank], g[8 * r_rank]);
        else if (r_node >= 0)
            CS_LOG(
                ctx, CS_LOG_WARN,
                "the %d ranks on the node of rank %d run %d OpenMP threads in all on %d core(s): "
                "threads share cores; use fewer ranks per node or fewer threads per rank "
                "(OMP_NUM_THREADS), so that ranks x threads per node <= cores",
                g[8 * r_node + 4], r_node, g[8 * r_node + 2], g[8 * r_node + 3]);
        else if (r_pin >= 0)
            CS_LOG(ctx, CS_LOG_WARN,
                   "OMP_PROC_BIND pins the threads of the %d ranks on the node of rank %d, whose "
                   "affinity masks overlap: threads of different ranks share cores; bind the "
                   "ranks (srun --cpu-bind=cores, mpirun --map-by slot:PE=%d --bind-to core) or "
                   "unset OMP_PROC_BIND and OMP_PLACES",
                   g[8 * r_pin + 4], r_pin, g[8 * r_pin]);
        if (r_sock >= 0)
            CS_LOG(ctx, CS_LOG_INFO,
                   "note: the %d OpenMP threads of rank %d run on cores of %d sockets; the lines "
                   "its threads share cross between the sockets, and one rank per socket is "
                   "faster (srun --ntasks-per-socket=1 -c CORES_PER_SOCKET --cpu-bind=cores, or "
                   "mpirun --map-by socket:PE=CORES_PER_SOCKET --bind-to core)",
                   g[8 * r_sock], r_sock, g[8 * r_sock + 7]);
    }
    free(g);
#endif
}
