/*
 * Helpers for MPI integration tests (STYLE.md "Tests"): Check with CK_NOFORK (forking after
 * MPI_Init crashes Open MPI), output from rank 0, and agreement before asserting: a test
 * computes a local `ok`, agrees on it with an MPI_LAND allreduce, then asserts, so no rank
 * leaves a collective behind.
 */
#ifndef CRAWLSIM_TESTS_MPITEST_H
#define CRAWLSIM_TESTS_MPITEST_H

#include <check.h>
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Initialises MPI with MPI_THREAD_FUNNELED, as crawlsim does, and aborts if it is not given. */
static inline void mpitest_init(int *argc, char ***argv)
{
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) {
        fprintf(stderr, "MPI provides thread level %d, crawlsim needs FUNNELED\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Collective. A fresh directory /tmp/crawlsim-test-NAME-XXXXXX shared by all ranks (one node),
 * made by rank 0 and broadcast into dir[cap]; aborts the job if it cannot be made. */
static inline void mpitest_tmpdir(char *dir, size_t cap, const char *name)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        snprintf(dir, cap, "/tmp/crawlsim-test-%s-XXXXXX", name);
        if (mkdtemp(dir) == NULL) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(dir, (int)cap, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Local. Removes dir and everything below it. */
static inline int mpitest_rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            mpitest_rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    return rmdir(dir);
}

/* Collective. Waits for every rank, then rank 0 removes the test directory. */
static inline void mpitest_rm_tmpdir(const char *dir)
{
    int rank = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && dir[0] != '\0')
        mpitest_rm_tree(dir);
}

#endif
