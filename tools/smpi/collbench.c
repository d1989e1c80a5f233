/*
 * The cost of one small collective on a simulated platform (docs/developer/performance-model.md):
 * 50 MPI_Allreduce of 16 int64, 50 MPI_Reduce_scatter of one int per rank and 50 MPI_Barrier,
 * timed by MPI_Wtime; rank 0 prints the mean of each in microseconds. Not built by CMake:
 *   smpicc -O2 tools/smpi/collbench.c -o collbench
 *   smpirun -np 64 -platform tools/smpi/supermuc-ng.xml -hostfile HOSTS --cfg=smpi/host-speed:24Gf
 * \
 *       --cfg=network/crosstraffic:0 --cfg=smpi/coll-selector:ompi \
 *       --cfg=smpi/simulate-computation:no ./collbench
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long long buf[16] = {0};
    int *fl = calloc((size_t)P, sizeof(int)), *ones = malloc((size_t)P * sizeof(int)), nin = 0;
    for (int i = 0; i < P; i++)
        ones[i] = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 50; i++)
        MPI_Allreduce(MPI_IN_PLACE, buf, 16, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    for (int i = 0; i < 50; i++)
        MPI_Reduce_scatter(fl, &nin, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    for (int i = 0; i < 50; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t4 = MPI_Wtime();
    if (me == 0)
        printf("P %d allreduce %.2f us reduce_scatter %.2f us barrier %.2f us\n", P,
               (t1 - t0) / 50 * 1e6, (t2 - t1) / 50 * 1e6, (t4 - t3) / 50 * 1e6);
    MPI_Finalize();
    return 0;
}
