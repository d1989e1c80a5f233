#!/usr/bin/env bash
# Benchmark: the frontier exchange, crawl.exchange = sparse (NBX) against alltoallv
# (docs/developer/memory.md "The exchange"; not run by ctest). SARSA on the classic world (graphs/classic.ini)
# (10^6 pages generated in memory), B fetches per tick on NP ranks, in alternating runs of the
# same binary so that the machine's drift hits both alike. Prints per run the fetch rate
# (second half of the run), the seconds in the exchange and wait phases (the largest rank's),
# and the messages and collectives per rank and tick from the counters; then the medians.
# Usage: tests/bench/exchange.sh BUILD_DIR [NP] [B] [PAGES] [ROUNDS] [--set ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: exchange.sh BUILD_DIR [NP] [B] [PAGES] [ROUNDS] [--set ...]}
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
echo "== sarsa, classic world, B = $bw, $pages fetches, $np ranks, $rounds rounds"
for r in $(seq 1 "$rounds"); do
    for ex in sparse alltoallv; do
        mpirun -n "$np" --oversubscribe --bind-to none "$bin" run "$here/jobs/quickstart.ini" \
            --set gen.world="$here/graphs/classic.ini" --set run.pages="$pages" --set crawl.bandwidth="$bw" --set sarsa.alpha="$alpha" \
            --set crawl.exchange=$ex "$@" -o "$out/$ex.h5" > "$out/$ex.txt" 2> /dev/null
        rate=$(grep -oE '[0-9.e+]+ fetches/s' "$out/$ex.txt" | cut -d' ' -f1)
        /usr/bin/python3 - "$out/$ex.h5" "$r" "$ex" "$rate" << 'EOF' | tee -a "$out/rows"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
P = len(f["/ranks/pages"]); t = int(f["/final/ticks"][()])
ex = max(f["/timing/ranks/exchange"][:]); wait = max(f["/timing/ranks/wait"][:])
s = f["/series"]
print("round %s %-9s %10s fetches/s  exchange %.3f s  wait %.3f s  messages/rank/tick %.2f  "
      "collectives/rank/tick %.1f" % (sys.argv[2], sys.argv[3], sys.argv[4], ex, wait,
      s["messages"][-1] / P / t, s["collectives"][-1] / P / t))
EOF
    done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for ex in sparse alltoallv; do
    r=$(grep " $ex " "$out/rows" | awk '{ print $4 }' | median)
    e=$(grep " $ex " "$out/rows" | awk '{ print $7 + $10 }' | median)
    echo "median $ex: $r fetches/s, exchange + wait $e s"
done
