#!/usr/bin/env bash
# Benchmark: memory per rank against the rank count (docs/developer/memory.md; not run by ctest).
# One world generated in memory (graphs/default.ini's parameters, PAGES pages), a short SARSA
# crawl (2 ticks of B = 1000) on each rank count in NPS (oversubscribed: a count, not a
# timing), and the same on a tiny world (1000 pages) for the baseline of a process (MPI, HDF5,
# OpenBLAS, the code). Prints per rank count: the peak resident memory of the largest rank and
# the mean over ranks (/timing/ranks/peak_rss), the mean less the baseline, and that times P
# over the world's pages: bytes per page of the world summed over ranks, which is flat in P
# when nothing of the world's size is held on every rank.
# Usage: tests/bench/memory.sh BUILD_DIR [PAGES] ["NPS"] [--set ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: memory.sh BUILD_DIR [PAGES] [\"NPS\"] [--set ...]}
pages=${2:-1000000}
nps=${3:-1 2 4 8 16 32 64}
shift $(($# < 3 ? $# : 3))
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rss() { # FILE -> "max mean" in MiB
    /usr/bin/python3 -c "import h5py,sys; v=h5py.File(sys.argv[1],'r')['/timing/ranks/peak_rss'][:]; \
print('%.1f %.1f' % (v.max()/2**20, v.mean()/2**20))" "$1"
}
run() { # NP PAGES OUT
    mpirun -n "$1" --oversubscribe --bind-to none "$bin" -q run "$here/jobs/quickstart.ini" \
        --set gen.pages="$2" --set run.pages=2000 --set crawl.bandwidth=1000 "${@:4}" -o "$3" \
        > /dev/null
}
echo "== peak resident memory per rank, SARSA on a $pages-page world (graphs/default.ini), $*"
printf "%5s %12s %12s %14s %16s %18s\n" P "max MiB" "mean MiB" "baseline MiB" "mean-base MiB" "B/page over ranks"
for np in $nps; do
    run "$np" 1000 "$out/base.h5" "$@"
    run "$np" "$pages" "$out/w.h5" "$@"
    read -r bmax bmean <<< "$(rss "$out/base.h5")"
    read -r wmax wmean <<< "$(rss "$out/w.h5")"
    awk -v p="$np" -v n="$pages" -v M="$wmax" -v m="$wmean" -v b="$bmean" 'BEGIN {
        printf "%5d %12.1f %12.1f %14.1f %16.1f %18.1f\n", p, M, m, b, m - b, (m - b) * 2^20 * p / n }'
done
