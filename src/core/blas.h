/*
 * core/blas: the CBLAS interface of whichever BLAS the build found (cmake/CrawlsimDeps.cmake:
 * OpenBLAS, MKL, BLIS, FlexiBLAS, ...): its header, its integer type, and switching the BLAS's
 * own threads off. The MLPs call sgemm from their own OpenMP threads over fixed row chunks, so
 * a threaded BLAS on top would oversubscribe the cores; OpenBLAS is told at run time, MKL runs
 * sequentially inside an OpenMP region (and the sequential MKL, Intel10_64lp_seq, never
 * threads), BLIS and FlexiBLAS's default backends start single-threaded.
 */
#ifndef CS_CORE_BLAS_H
#define CS_CORE_BLAS_H

#if defined(CRAWLSIM_BLAS_MKL)
#include <mkl_cblas.h>
typedef MKL_INT cs_blasint;
#else
#include <cblas.h>
#if defined(CRAWLSIM_BLAS_OPENBLAS)
typedef blasint cs_blasint;
#else
typedef int cs_blasint;
#endif
#endif

/* Local. Keeps the BLAS to the calling thread (OpenBLAS: openblas_set_num_threads(1)). */
static inline void cs_blas_single_thread(void)
{
#if defined(CRAWLSIM_BLAS_OPENBLAS)
    openblas_set_num_threads(1);
#endif
}

#endif
