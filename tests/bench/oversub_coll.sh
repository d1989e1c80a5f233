#!/usr/bin/env bash
# Benchmark: the collectives' algorithms when ranks outnumber cores (not run by ctest). The
# synchronisation study's strict control (jobs/sync-study.ini on WORLD) on NP oversubscribed ranks
# (32), run with Open MPI's default choice of collective algorithms and with the linear ones
# (tools/sync-study's choice for such runs: OMPI_MCA_coll_tuned_* below), one after the other in
# each of ROUNDS rounds (3), so that the machine's drift hits both alike. Prints each run's crawl
# seconds per tick, then each setting's median and the ratio linear / default, and fails unless
# every linear run's results equal the default run's of its round (crawlsim compare: the crawl's
# sums are exact, so the algorithm must not change a bit).
# Usage: tests/bench/oversub_coll.sh BUILD_DIR WORLD.h5 [NP] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: oversub_coll.sh BUILD_DIR WORLD.h5 [NP] [ROUNDS]"
bin=${1:?$usage}/crawlsim
world=$(realpath "${2:?$usage}")
np=${3:-32}
rounds=${4:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
linear=(OMPI_MCA_coll_tuned_use_dynamic_rules=1) # as tools/sync-study's OVERSUBSCRIBED_MCA
for c in allreduce bcast barrier allgather alltoall alltoallv; do
    linear+=("OMPI_MCA_coll_tuned_${c}_algorithm=1")
done
val() { h5dump -d "$2" "$1" | grep -oE '[0-9.e+-]+' | tail -1; }
run() { # run NAME ROUND [VAR=VALUE ...]: one crawl, its ms per tick appended to $out/times
    local name=$1 r=$2
    shift 2
    env "$@" mpirun -n "$np" --oversubscribe --bind-to none -x OMP_NUM_THREADS "$bin" -q run \
        "$here/jobs/sync-study.ini" --set run.graph="$world" -o "$out/$name-$r.h5" > /dev/null
    local ms
    ms=$(awk -v s="$(val "$out/$name-$r.h5" /timing/seconds)" \
        -v t="$(val "$out/$name-$r.h5" /final/ticks)" 'BEGIN { print 1000 * s / t }')
    printf "round %d %-8s %.3f ms/tick\n" "$r" "$name" "$ms"
    echo "$name $ms" >> "$out/times"
}
for r in $(seq 1 "$rounds"); do
    run default "$r"
    run linear "$r" "${linear[@]}"
    "$bin" compare "$out/default-$r.h5" "$out/linear-$r.h5" > /dev/null ||
        { echo "oversub_coll: round $r: the linear algorithms changed the results" >&2; exit 1; }
done
median() { grep "^$1 " "$out/times" | cut -d' ' -f2 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
d=$(median default)
l=$(median linear)
awk -v d="$d" -v l="$l" -v p="$np" -v r="$rounds" 'BEGIN {
    printf "median over %d rounds at %d ranks: default %.3f ms/tick, linear %.3f ms/tick: %.3f linear / default; results identical\n", r, p, d, l, l / d }'
