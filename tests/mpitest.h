/*
 * Helpers for MPI integration tests (STYLE.md "Tests"): Check with CK_NOFORK (forking after
 * MPI_Init crashes Open MPI), output from rank 0, and agreement before asserting: a test
 * computes a local `ok`, agrees on it with an MPI_LAND allreduce, then asserts, so no rank
 * leaves a collective behind.
 */
#ifndef CRAWLSIM_TESTS_MPITEST_H
#define CRAWLSIM_TESTS_MPITEST_H

#include <check.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static inline int mpitest_all(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* Asserts that `ok` holds on every rank; collective. */
#define MPI_ASSERT(ok) ck_assert_msg(mpitest_all((ok) ? 1 : 0), "failed on some rank: %s", #ok)

/* Runs a suite without forking and returns the exit status agreed by all ranks. */
static inline int mpitest_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
