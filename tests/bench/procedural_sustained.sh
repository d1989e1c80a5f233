#!/usr/bin/env bash
# Benchmark: issue 18's sustained fetch rate on the procedural world (gen.materialize = false;
# docs/guide/generating.md), not run by ctest. SARSA (asynchronous) on the default world of
# PAGES pages (10^9), FETCHES fetches (3 x 10^6) at B = 1000, on NP ranks (2) with one thread
# each: long enough that crawl.frontier_capacity is reached early (a few 10^5 fetches) and the
# second half of the run, whose rate crawlsim reports ("fetches/s (second half of the run)"), is
# spent on a full frontier, where a tick's eviction and selection cost most. Each binary
# (a crawlsim executable) is run in turn, REPS times (1), alternating, each run under
# /work/quiet.lock when it exists (LOCK= to run without); prints per run the binary, the load
# average before it, the set-up time, the second half's rate and the whole run's wall time.
# Usage: tests/bench/procedural_sustained.sh "BIN [BIN...]" [PAGES] [FETCHES] [NP] [--set ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bins=${1:?usage: procedural_sustained.sh \"BIN [BIN...]\" [PAGES] [FETCHES] [NP] [--set ...]}
pages=${2:-1000000000}
fetches=${3:-3000000}
np=${4:-2}
shift $(($# < 4 ? $# : 4))
reps=${REPS:-1}
lock=${LOCK-/work/quiet.lock}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== SARSA, $np ranks, $pages pages (procedural), $fetches fetches, B = 1000, $*"
printf "%-40s %6s %9s %14s %8s\n" binary load "set-up s" "fetches/s 2nd" "wall s"
for ((r = 0; r < reps; r++)); do
    for bin in $bins; do
        cmd=(mpirun -n "$np" --oversubscribe --bind-to none "$bin" run "$here/jobs/quickstart.ini"
            --set gen.world="$here/graphs/classic.ini" --set gen.pages="$pages" --set gen.materialize=false --set run.pages="$fetches"
            --set crawl.bandwidth=1000 --set run.record_every=1000 "$@" -o "$out/s.h5")
        if [ -n "$lock" ] && [ -e "$lock" ]; then
            exec 9< "$lock"
            flock 9
        fi
        load=$(cut -d' ' -f1 /proc/loadavg)
        t0=$(date +%s.%N)
        "${cmd[@]}" > "$out/stdout" 2> "$out/stderr"
        t1=$(date +%s.%N)
        if [ -n "$lock" ] && [ -e "$lock" ]; then
            exec 9<&-
        fi
        setup=$(sed -n 's/.*(set-up \([0-9.]*\) s).*/\1/p' "$out/stderr" | head -1)
        rate=$(sed -n 's/^ *\([0-9.e+]*\) fetches\/s (second half.*/\1/p' "$out/stdout")
        printf "%-40s %6s %9s %14.0f %8.1f\n" "$bin" "$load" "${setup:-?}" "${rate:-0}" \
            "$(echo "$t1 - $t0" | bc)"
    done
done
