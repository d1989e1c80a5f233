# Checks crawlsim's Spack recipe without concretizing (Spack's concretizer needs clingo, which
# an offline machine may lack): makes concrete specs of crawlsim by hand, with stand-in
# dependencies, for three variant and BLAS combinations, and prints the CMake arguments the
# recipe gives each. Usage, from a Spack checkout with this repository added
# (spack repo add tools/spack):  spack python tools/spack/check-recipe.py
# Stops with an error when the recipe fails or an argument is not the expected one.
import spack.deptypes as dt
import spack.spec
import spack.variant
from spack.spec import Spec

COMMON = " build_system=cmake build_type=Release generator=make ~ipo"


def node(text):
    s = Spec(text)
    s.architecture = spack.spec.ArchSpec(("linux", "debian12", "x86_64"))
    s.compiler = spack.spec.CompilerSpec("gcc@=12.2.0")
    return s


def cmake_args(variants, blas):
    root = node("crawlsim@=main " + variants + COMMON)
    deps = [
        ("openmpi@=4.1.4", ("mpi",)),
        ("hdf5@=1.10.8+mpi~fortran~cxx", ()),
        ("metis@=5.1.0", ()),
        (blas, ("blas",)),
        ("random123@=1.14.0", ()),
        ("zlib@=1.2.13", ("zlib-api",)),
        ("check@=0.15.2", ()),
        ("cmake@=3.25.1", ()),
        ("pkgconf@=1.8.1", ("pkgconfig",)),
    ]
    for text, virtuals in deps:
        root._add_dependency(node(text), depflag=dt.BUILD | dt.LINK, virtuals=virtuals)
    for n in root.traverse():
        spack.variant.substitute_abstract_variants(n)
    root._mark_concrete()
    pkg = root.package
    root["mpi"].mpicc = "/usr/bin/mpicc"  # (the MPI's setup_dependent_package sets it in a build)

    class Stage:
        source_path = "/stage/spack-src"

    type(pkg).stage = property(lambda self: Stage)
    return pkg.cmake_args()


CASES = [
    ("+tests~smpi prefetchw=off", "openblas@=0.3.21",
     ["-DCRAWLSIM_TESTS:BOOL=ON", "-DCRAWLSIM_SMPI:BOOL=OFF", "-DCRAWLSIM_PREFETCHW:STRING=OFF",
      "-DBLA_VENDOR:STRING=OpenBLAS", "-DCRAWLSIM_INIH:STRING=BUNDLED",
      "-DCRAWLSIM_INIH_SOURCE_DIR:STRING=/stage/spack-src/spack-deps/inih",
      "-DMPI_C_COMPILER:STRING=/usr/bin/mpicc"]),
    ("~tests~smpi prefetchw=auto", "intel-oneapi-mkl@=2024.0.0",
     ["-DCRAWLSIM_TESTS:BOOL=OFF", "-DCRAWLSIM_PREFETCHW:STRING=AUTO",
      "-DBLA_VENDOR:STRING=Intel10_64lp_seq"]),
    ("~tests+smpi prefetchw=on", "amdblis@=4.1",
     ["-DCRAWLSIM_SMPI:BOOL=ON", "-DCRAWLSIM_PREFETCHW:STRING=ON", "-DBLA_VENDOR:STRING=FLAME",
      "-DCRAWLSIM_SMPI_HDF5_PKGCONFIG:STRING=hdf5"]),
]
for variants, blas, expected in CASES:
    args = cmake_args(variants, blas)
    print(f"crawlsim {variants} ^{blas}:")
    for a in args:
        print("   ", a)
    missing = [e for e in expected if e not in args]
    if missing:
        raise SystemExit(f"check-recipe: missing {missing}")
    if "+smpi" not in variants and not any(a.startswith("-DHDF5_ROOT") for a in args):
        raise SystemExit("check-recipe: no HDF5_ROOT")
print("check-recipe: all passed")
