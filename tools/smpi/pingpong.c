#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    char *buf = calloc(1 << 24, 1);
    for (int sz = 1; sz <= (1 << 24); sz *= 16) {
        int reps = sz >= (1 << 20) ? 50 : 2000;
        double best = 1e30;
        for (int k = 0; k < 5; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t = MPI_Wtime();
            for (int i = 0; i < reps; i++) {
                if (r == 0) {
                    MPI_Send(buf, sz, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, sz, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, sz, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, sz, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            t = (MPI_Wtime() - t) / (2.0 * reps);
            if (t < best)
                best = t;
        }
        if (r == 0)
            printf("%9d B  one-way %.3g s  %.3g B/s\n", sz, best, sz / best);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
