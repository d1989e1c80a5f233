#!/usr/bin/env bash
# Benchmark: the procedural world (gen.materialize = false, issue 18; docs/guide/generating.md),
# not run by ctest. SARSA (asynchronous) on the classic world (graphs/classic.ini's parameters)
# of each size in SIZES, on NP ranks (2) with one thread each, FETCHES fetches at B = 1000; and
# the same at 10 x FETCHES for the memory per touched page. Prints per size: the set-up time
# (rank 0's log), the fetch rate (/timing/fetch_rate), the peak resident memory of the largest
# rank and the sum over ranks (/timing/ranks/peak_rss), the bytes per world page over all ranks
# (the sum less the ranks' baseline, a 1 000-page world, over the pages) and per touched page
# (the sum's growth from FETCHES to 10 x FETCHES fetches, over the extra fetches). The sum counts
# the memory the ranks of a node share (the generator's model) once: the sum of peak_rss less
# the ranks' shared pages (/timing/ranks/shared_rss) plus the shared bytes they hold (shared_held:
# the model, on the node's first rank); older binaries' results lack both: nothing shared. With
# MATERIALIZE=true the materialized world instead (every owned page built before the crawl).
# With --set refresh.policy=... (e.g. lambda-learn) the crawl runs [refresh] too; the bytes per
# touched page then include the re-crawl side's per cached page (docs/guide/refresh.md).
# Usage: tests/bench/procedural.sh BUILD_DIR ["SIZES"] [FETCHES] [NP] [--set ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: procedural.sh BUILD_DIR [\"SIZES\"] [FETCHES] [NP] [--set ...]}
sizes=${2:-1000000 10000000 100000000}
fetches=${3:-20000}
np=${4:-2}
shift $(($# < 4 ? $# : 4))
mat=${MATERIALIZE:-false}
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fig() { # FILE -> "max_rss_MiB sum_rss_MiB fetch_rate"
    /usr/bin/python3 -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); v=f['/timing/ranks/peak_rss'][:]; \
r=f['/timing/ranks']; s=r['shared_rss'][:].sum()-r['shared_held'][:].sum() if 'shared_held' in r else 0; \
print('%.1f %.1f %.0f' % (v.max()/2**20, (v.sum()-s)/2**20, f['/timing/fetch_rate'][0]))" "$1"
}
run() { # PAGES FETCHES OUT -> set-up seconds
    mpirun -n "$np" --oversubscribe --bind-to none "$bin" run "$here/jobs/quickstart.ini" \
        --set gen.world="$here/graphs/classic.ini" --set gen.pages="$1" --set gen.materialize="$mat" --set run.pages="$2" \
        --set crawl.bandwidth=1000 --set run.record_every=1000 "${@:4}" -o "$3" 2>&1 > /dev/null |
        sed -n 's/.*(set-up \([0-9.]*\) s).*/\1/p'
}
echo "== SARSA, $np ranks, gen.materialize = $mat, $fetches and $((10 * fetches)) fetches, $*"
# the baseline without [refresh]: its 1 000 pages are fetched at once, after which the re-crawls
# alone would run to run.ticks
run 1000 "$fetches" "$out/base.h5" "$@" --set refresh.policy=none > /dev/null
read -r _ base _ <<< "$(fig "$out/base.h5")"
printf "baseline (1000 pages): %.1f MiB over %d ranks\n" "$base" "$np"
printf "%12s %9s %12s %10s %10s %12s %14s\n" pages "set-up s" "fetches/s" "max MiB" "sum MiB" \
    "B/world pg" "B/touched pg"
for n in $sizes; do
    s1=$(run "$n" "$fetches" "$out/a.h5" "$@")
    read -r m1 t1 r1 <<< "$(fig "$out/a.h5")"
    run "$n" "$((10 * fetches))" "$out/b.h5" "$@" > /dev/null
    read -r m2 t2 r2 <<< "$(fig "$out/b.h5")"
    awk -v n="$n" -v s="$s1" -v r="$r2" -v m="$m1" -v t="$t1" -v t2="$t2" -v b="$base" \
        -v f="$fetches" 'BEGIN {
        printf "%12d %9s %12.0f %10.1f %10.1f %12.2f %14.1f\n", n, s, r, m, t,
            (t - b) * 2^20 / n, (t2 - t) * 2^20 / (9 * f) }'
done
