#!/usr/bin/env bash
# Benchmark: what the strict setting costs (docs/guide/synchronisation.md; not run by ctest).
# SARSA on the quickstart world (10^6 pages generated in memory), B fetches per tick on NP ranks,
# crawl.weight_sync = sum (the strict setting: exact, rank-invariant) against average (the
# ranks' weights averaged every tick), both with sarsa.alpha = 0.1 / B (the largest step at which
# a tick under sum does not degrade, docs/guide/synchronisation.md), in alternating runs of the same binary so that the
# machine's drift hits both alike. Prints each run's fetch rate (second half of the run) and
# bytes exchanged per tick, then the medians and their ratio.
# Usage: tests/bench/strict_cost.sh BUILD_DIR [NP] [B] [PAGES] [ROUNDS] [--set ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: strict_cost.sh BUILD_DIR [NP] [B] [PAGES] [ROUNDS] [--set ...]}
np=${2:-2}
bw=${3:-10000}
pages=${4:-500000}
rounds=${5:-5}
shift $(($# < 5 ? $# : 5))
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
alpha=$(awk -v b="$bw" 'BEGIN { print 0.1 / b }')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== sarsa, quickstart world, B = $bw, alpha = $alpha, $pages fetches, $np ranks, $rounds rounds"
for r in $(seq 1 "$rounds"); do
    for ws in sum average; do
        mpirun -n "$np" --oversubscribe --bind-to none "$bin" run "$here/jobs/quickstart.ini" \
            --set run.pages="$pages" --set crawl.bandwidth="$bw" --set crawl.weight_sync=$ws --set sarsa.alpha="$alpha" "$@" \
            -o "$out/$ws.h5" > "$out/$ws.txt" 2> /dev/null
        rate=$(grep -oE '[0-9.e+]+ fetches/s' "$out/$ws.txt" | cut -d' ' -f1)
        ticks=$(h5dump -d /final/ticks "$out/$ws.h5" | grep -oE '\(0\): [0-9]+' | cut -d' ' -f2)
        bytes=$(h5dump -d /series/bytes_exchanged "$out/$ws.h5" | grep -oE '[0-9]+' | tail -1)
        echo "round $r $ws: $rate fetches/s, $((bytes / ticks)) bytes exchanged per tick"
        echo "$ws $rate" >> "$out/rates"
    done
done
median() { grep "^$1 " "$out/rates" | cut -d' ' -f2 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
s=$(median sum)
a=$(median average)
awk -v s="$s" -v a="$a" 'BEGIN { printf "median fetch rate: sum %.3g, average %.3g; sum / average = %.3f\n", s, a, s / a }'
