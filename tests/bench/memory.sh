#!/usr/bin/env bash
# Benchmark: memory per rank against the rank count (docs/developer/memory.md; not run by ctest).
# One world generated in memory (graphs/classic.ini's parameters, PAGES pages), a short SARSA
# crawl (2 ticks of B = 1000) on each rank count in NPS (oversubscribed: a count, not a
# timing), and the same on a tiny world (1000 pages) for the baseline of a process (MPI, HDF5,
# OpenBLAS, the code). Prints per rank count: the peak resident memory of the largest rank and
# the mean over ranks (/timing/ranks/peak_rss), the mean less the baseline, and that times P
# over the world's pages: bytes per page of the world summed over ranks, which is flat in P
# when nothing of the world's size is held on every rank; the mean with the memory the ranks of a
# node share (the generator's model) counted once as the results give it (shared_rss,
# shared_held: 0 for a binary whose model is gone at the end); and the node's peak over P,
# sampled (the ranks' proportional set sizes summed every 50 ms, the largest sum), for the
# world and the baseline: the per-rank share of the node, comparable between binaries.
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
rss() { # FILE -> "max mean once" in MiB; once: the mean with the node's shared pages counted
    # once (peak_rss less the shared pages resident, plus the shared bytes held: the model)
    /usr/bin/python3 -c "import h5py,sys; t=h5py.File(sys.argv[1],'r')['/timing/ranks']; \
v=t['peak_rss'][:]; o=v-t['shared_rss'][:]+t['shared_held'][:]; \
print('%.1f %.1f %.1f' % (v.max()/2**20, v.mean()/2**20, o.mean()/2**20))" "$1"
}
run() { # NP PAGES OUT: the run, and in OUT.node the node's peak (MiB) sampled every 50 ms
    mpirun -n "$1" --oversubscribe --bind-to none "$bin" -q run "$here/jobs/quickstart.ini" \
        --set gen.world="$here/graphs/classic.ini" --set gen.pages="$2" --set run.pages=2000 --set crawl.bandwidth=1000 "${@:4}" -o "$3" \
        > /dev/null &
    local mp=$! peak=0 sum
    # the node's memory: the ranks' proportional set sizes summed (a page shared by n ranks,
    # such as the generator's model or MPI's shared segments, counts 1/n in each)
    while kill -0 "$mp" 2> /dev/null; do
        sum=$( (pgrep -P "$mp" || true) | sed 's#.*#/proc/&/smaps_rollup#' |
            xargs -r cat 2> /dev/null | awk '/^Pss:/ {s += $2} END {print s + 0}' || true)
        peak=$((sum > peak ? sum : peak))
        sleep 0.05
    done
    wait "$mp"
    awk -v k="$peak" 'BEGIN {printf "%.1f\n", k / 1024}' > "$3.node"
}
echo "== peak resident memory per rank, SARSA on a $pages-page world (graphs/classic.ini), $*"
printf "%5s %12s %12s %14s %16s %18s %14s %14s %14s\n" P "max MiB" "mean MiB" "baseline MiB" \
    "mean-base MiB" "B/page over ranks" "shared once" "node/P MiB" "base node/P"
for np in $nps; do
    run "$np" 1000 "$out/base.h5" "$@"
    run "$np" "$pages" "$out/w.h5" "$@"
    read -r bmax bmean bonce <<< "$(rss "$out/base.h5")"
    read -r wmax wmean wonce <<< "$(rss "$out/w.h5")"
    awk -v p="$np" -v n="$pages" -v M="$wmax" -v m="$wmean" -v b="$bmean" -v o="$wonce" \
        -v wn="$(cat "$out/w.h5.node")" -v bn="$(cat "$out/base.h5.node")" 'BEGIN {
        printf "%5d %12.1f %12.1f %14.1f %16.1f %18.1f %14.1f %14.1f %14.1f\n", p, M, m, b, m - b,
            (m - b) * 2^20 * p / n, o, wn / p, bn / p }'
done
