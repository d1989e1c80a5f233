# crawlsim's Spack recipe (docs/guide/cluster-build.md). Spack 0.2x layout (repo.yaml +
# packages/<name>/package.py); Spack 1.x takes the build-system classes from its builtin
# repository instead of spack.package, which the import below allows for.
import os

from spack.package import *

try:  # Spack >= 1.0
    from spack_repo.builtin.build_systems.cmake import CMakePackage  # noqa: F811
except ImportError:
    pass


class Crawlsim(CMakePackage):
    """Distributed MPI+OpenMP simulator of learning web crawlers: focused crawling (SARSA, TRES),
    freshness scheduling (LambdaCrawl), Whittle-index and deep-RL re-crawl policies, on
    synthetic or imported web graphs partitioned with METIS."""

    license("BSD-3-Clause")

    # crawlsim has no published release to download: the source is the clone this recipe lies
    # in (tools/spack/packages/crawlsim/ of it), its branch main; `spack develop --path DIR
    # crawlsim@main` builds a working tree instead (docs/guide/cluster-build.md).
    git = "file://" + os.path.abspath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..")
    )

    version("main", branch="main")

    variant("tests", default=False, description="Build the test suite (Check) and run it with spack install --test=root")
    variant("smpi", default=False, description="Build against SimGrid's SMPI to run simulated ranks (serial HDF5, no tests)")
    variant(
        "prefetchw",
        default="auto",
        values=("auto", "on", "off"),
        multi=False,
        description="PREFETCHW for the frontier insertion: auto (if the build host runs it), on, off",
    )

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi", when="~smpi")
    depends_on("hdf5@1.10:+mpi~fortran~cxx", when="~smpi")
    depends_on("simgrid", when="+smpi")
    depends_on("hdf5@1.10:~mpi~fortran~cxx", when="+smpi")
    depends_on("metis@5:")
    depends_on("blas")
    depends_on("zlib-api")
    depends_on("random123@1.14:")
    depends_on("check", type=("build", "link"), when="+tests")
    conflicts("+tests", when="+smpi", msg="the SMPI build has no tests (they run from a normal build)")

    # inih: Spack's libinih recipe follows its git master only, so the pinned release is
    # compiled into crawlsim (CRAWLSIM_INIH=BUNDLED)
    resource(
        name="inih",
        url="https://github.com/benhoyt/inih/archive/refs/tags/r62.tar.gz",
        sha256="9c15fa751bb8093d042dae1b9f125eb45198c32c6704cd5481ccde460d4f8151",
        destination="spack-deps",
        placement="inih",
    )

    def cmake_args(self):
        spec = self.spec
        prefetchw = next(v for v in ("auto", "on", "off") if spec.satisfies(f"prefetchw={v}"))
        args = [
            self.define_from_variant("CRAWLSIM_TESTS", "tests"),
            self.define_from_variant("CRAWLSIM_SMPI", "smpi"),
            self.define("CRAWLSIM_PREFETCHW", prefetchw.upper()),
            self.define("CRAWLSIM_BENCH", False),
            self.define("CRAWLSIM_INIH", "BUNDLED"),
            self.define("CRAWLSIM_INIH_SOURCE_DIR", join_path(self.stage.source_path, "spack-deps", "inih")),
            self.define("CRAWLSIM_RANDOM123", "SYSTEM"),
            self.define("RANDOM123_ROOT", spec["random123"].prefix),
            self.define("METIS_ROOT", spec["metis"].prefix),
        ]
        if spec.satisfies("~smpi"):
            args.append(self.define("HDF5_ROOT", spec["hdf5"].prefix))
            args.append(self.define("MPI_C_COMPILER", spec["mpi"].mpicc))
        else:
            args.append(self.define("CRAWLSIM_SMPI_HDF5_PKGCONFIG", "hdf5"))
        if spec["blas"].name == "openblas":
            args.append(self.define("BLA_VENDOR", "OpenBLAS"))
        elif spec["blas"].name == "intel-oneapi-mkl":
            args.append(self.define("BLA_VENDOR", "Intel10_64lp_seq"))
        elif spec["blas"].name in ("amdblis", "blis"):
            args.append(self.define("BLA_VENDOR", "FLAME"))
        elif spec["blas"].name == "flexiblas":
            args.append(self.define("BLA_VENDOR", "FlexiBLAS"))
        return args

    def check(self):
        # unit tests, the MPI tests at 1 and 2 ranks, the command-line smoke tests
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-L", "unit|np1|np2|smoke", "-LE", "datasets|slow")
