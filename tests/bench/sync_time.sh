#!/usr/bin/env bash
# Benchmark: wall-clock time per tick of the synchronisation study's settings (tools/sync-study,
# docs/reports/sync-study.md) on NP ranks (not run by ctest). jobs/sync-study.ini on WORLD, each
# setting once per round in alternating order, so that the machine's drift hits all alike; prints
# each run's crawl seconds per tick and collective calls and bytes per rank and tick, then the
# median time per tick of each setting and its ratio to the strict control's.
# Usage: tests/bench/sync_time.sh BUILD_DIR WORLD.h5 [NP] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:?usage: sync_time.sh BUILD_DIR WORLD.h5 [NP] [ROUNDS]}/crawlsim
world=$(realpath "${2:?usage: sync_time.sh BUILD_DIR WORLD.h5 [NP] [ROUNDS]}")
np=${3:-2}
rounds=${4:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
settings=("control" "K=never:crawl.sync_every=0" "K=16:crawl.sync_every=16"
    "average:crawl.weight_sync=average" "E=16:crawl.exchange_every=16"
    "fixed:crawl.budget=fixed" "proportional:crawl.budget=proportional")
val() { h5dump -d "$2" "$1" | grep -oE '[0-9.e+-]+' | tail -1; }
for r in $(seq 1 "$rounds"); do
    for s in "${settings[@]}"; do
        name=${s%%:*}
        sets=()
        [ "$name" = "$s" ] || sets=(--set "${s#*:}")
        mpirun -n "$np" --oversubscribe --bind-to none "$bin" -q run "$here/jobs/sync-study.ini" \
            --set run.graph="$world" "${sets[@]}" -o "$out/r.h5"
        ticks=$(val "$out/r.h5" /final/ticks)
        awk -v n="$name" -v r="$r" -v s="$(val "$out/r.h5" /timing/seconds)" -v t="$ticks" \
            -v c="$(val "$out/r.h5" /series/collectives)" -v b="$(val "$out/r.h5" /series/collective_bytes)" -v p="$np" \
            'BEGIN { printf "round %d %-13s %.3f ms/tick, %.1f collectives and %.0f bytes per rank and tick\n", r, n, 1000 * s / t, c / p / t, b / p / t }'
        echo "$name $(awk -v s="$(val "$out/r.h5" /timing/seconds)" -v t="$ticks" 'BEGIN { print 1000 * s / t }')" >> "$out/times"
    done
done
median() { grep "^$1 " "$out/times" | cut -d' ' -f2 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
c=$(median control)
for s in "${settings[@]}"; do
    name=${s%%:*}
    m=$(median "$name")
    awk -v n="$name" -v m="$m" -v c="$c" 'BEGIN { printf "median %-13s %.3f ms/tick  (%.2fx the control)\n", n, m, m / c }'
done
