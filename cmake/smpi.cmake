# CRAWLSIM_SMPI=ON: crawlsim against SimGrid's SMPI instead of Open MPI, to run P simulated ranks
# of one `crawlsim run` on a platform file (docs/guide/simulated-cluster.md). Included by the
# top-level CMakeLists.txt in place of find_package(MPI); it sets
#   CRAWLSIM_MPI_TARGET   crawlsim::smpi: SMPI's mpi.h, smpi_helpers.h forced into every file, libsimgrid
#   CRAWLSIM_HDF5_MODULE  the serial HDF5's pkg-config module, CRAWLSIM_SMPI_HDF5_PKGCONFIG
#                         (Debian's hdf5-serial by default; hdf5 for Spack's hdf5~mpi): Debian's
#                         parallel HDF5 is built for Open MPI and cannot be loaded beside SMPI;
#                         results are written by rank 0 alone (sec2) anyway
#
# What smpicc does, done here with the normal compiler so that the warning flags and -Werror
# stay ours: every file is compiled position-independent with smpi_helpers.h included first
# (clock_gettime, gettimeofday, sleep, getpid and exit become SMPI's: the simulated clock, the
# simulated rank), and the crawlsim binary is linked as a shared object that smpirun's
# smpimain loads once per simulated rank (dlopen privatisation: every rank has its own copy of
# the binary's static data). malloc is not intercepted (SMPI_NO_OVERRIDE_MALLOC): SMPI's
# shared-malloc folding is not used.
find_path(CRAWLSIM_SMPI_INCLUDE_DIR smpi/mpi.h)
find_program(CRAWLSIM_SMPIRUN smpirun)
pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid)
if(NOT CRAWLSIM_SMPI_INCLUDE_DIR OR NOT CRAWLSIM_SMPIRUN OR NOT SIMGRID_FOUND)
  message(FATAL_ERROR "CRAWLSIM_SMPI=ON needs SimGrid's SMPI (smpi/mpi.h, smpirun, simgrid.pc): "
    "on Debian 12 apt-get install libsimgrid-dev libhdf5-dev")
endif()
message(STATUS "crawlsim: SMPI build against SimGrid ${SIMGRID_VERSION} (${CRAWLSIM_SMPIRUN})")
add_library(crawlsim::smpi INTERFACE IMPORTED)
set_target_properties(crawlsim::smpi PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${CRAWLSIM_SMPI_INCLUDE_DIR}/smpi"
  INTERFACE_COMPILE_DEFINITIONS "CRAWLSIM_SMPI=1;SMPI_NO_OVERRIDE_MALLOC=1"
  INTERFACE_COMPILE_OPTIONS "-include;${CRAWLSIM_SMPI_INCLUDE_DIR}/smpi/smpi_helpers.h"
  INTERFACE_LINK_LIBRARIES PkgConfig::SIMGRID)
set(CRAWLSIM_MPI_TARGET crawlsim::smpi)
set(CRAWLSIM_SMPI_HDF5_PKGCONFIG hdf5-serial CACHE STRING "pkg-config module of the serial HDF5 of the SMPI build")
set(CRAWLSIM_HDF5_MODULE ${CRAWLSIM_SMPI_HDF5_PKGCONFIG})
# the Check tests start Open MPI ranks with mpiexec; the SMPI build's test is tests/smpi, run
# from a normal build
if(CRAWLSIM_TESTS)
  message(STATUS "crawlsim: CRAWLSIM_SMPI=ON builds no tests (the SMPI test runs from a normal build: ctest -L smpi)")
  set(CRAWLSIM_TESTS OFF)
endif()
