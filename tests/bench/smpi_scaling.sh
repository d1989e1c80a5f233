#!/usr/bin/env bash
# Benchmark (not run by ctest): strong and weak scaling of a crawl on the simulated cluster
# (tools/smpi-run, tools/smpi/supermuc-ng.xml; docs/performance.md "Performance model").
# For each rank count P: the wall time of the simulation, and from the results the simulated
# milliseconds per tick and the busiest rank's per-phase milliseconds per tick (compute =
# evaluate + select + fetch + learn + insert + route; exchange; wait; allreduce), the kB and
# messages of the record exchange per tick over all ranks, and the allreduces per rank and tick.
# Usage: tests/bench/smpi_scaling.sh SMPI_BUILD_DIR strong|weak TIMEOUT P... [-- extra run args]
#   strong: gen.pages = 20000, B = 1000 per tick over all ranks
#   weak:   gen.pages = 2000 x P, B = 20 x P (about 300 links per page's host neighbourhood);
#           WEAK_PAGES and WEAK_B set the pages and B per rank
# Every run: SARSA, the strict setting (jobs/quickstart.ini), crawl.exchange = census,
# crawl.visited = owned, 6 ticks (run.ticks); results in $TMPDIR, removed at the end.
# KEEP=DIR keeps each run's results as DIR/MODE-P.h5 (for tests/bench/perf_model.py).
# SMPI_RUN_OPTS passes options to tools/smpi-run, e.g. SMPI_RUN_OPTS="--ranks-per-node 2" for
# 1 024 ranks on supermuc-ng.xml's 768 nodes, or "--cfg=smpi/simulate-computation:no". The run
# args after -- come last and win: "-- --set crawl.exchange=node" for the two-level exchange
# (its msgs/t: the messages it sends, to and from the nodes' first ranks included).
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
sbuild=${1:?usage: smpi_scaling.sh SMPI_BUILD_DIR strong|weak TIMEOUT P... [-- run args]}
mode=${2:?strong or weak}
to=${3:?timeout in seconds per run}
shift 3
nps=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do nps+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP"
echo "== $mode scaling, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%5s %9s %6s %9s %8s | %9s %9s %9s %9s %9s | %8s %7s %6s\n" P pages B wall_s rc \
    tick_ms compute exchange wait allreduce kB/t msgs/t ar/t
for np in "${nps[@]}"; do
    if [ "$mode" = strong ]; then pages=20000; B=1000; else pages=$((${WEAK_PAGES:-2000} * np)); B=$((${WEAK_B:-20} * np)); fi
    t0=$(date +%s.%N)
    timeout "$to" nice -n 5 "$here/tools/smpi-run" -n "$np" ${SMPI_RUN_OPTS:-} --bin "$sbuild/crawlsim" -- -q run \
        "$here/jobs/quickstart.ini" --set gen.pages=$pages --set crawl.bandwidth=$B \
        --set run.pages=$((B * 6)) --set run.ticks=6 --set crawl.exchange=census \
        --set crawl.visited=owned "${extra[@]}" -o "$out/r$np.h5" > "$out/log$np" 2>&1
    rc=$?
    [ -n "${KEEP:-}" ] && [ -f "$out/r$np.h5" ] && cp "$out/r$np.h5" "$KEEP/$mode-$np.h5"
    wall=$(echo "$(date +%s.%N) - $t0" | bc)
    if [ $rc -ne 0 ]; then
        printf "%5d %9d %6d %9.1f %8s |\n" "$np" "$pages" "$B" "$wall" "rc=$rc"
        continue
    fi
    /usr/bin/python3 - "$out/r$np.h5" "$np" "$pages" "$B" "$wall" << 'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
P, pages, B, wall = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
T = int(f["final/ticks"][()])
tr = lambda k: np.asarray(f["timing/ranks/" + k][:], dtype=float)
comp = sum(tr(k) for k in ("evaluate", "select", "fetch", "learn", "insert", "route") if "timing/ranks/" + k in f)
busy = int(np.argmax(comp))
ms = lambda x: 1e3 * x / T
rk = lambda k: np.asarray(f["ranks/" + k][:], dtype=float) if "ranks/" + k in f else np.zeros(P)
print("%5d %9d %6d %9.1f %8s | %9.3f %9.3f %9.3f %9.3f %9.3f | %8.0f %7.0f %6.1f" % (
    P, pages, B, wall, "ok", ms(float(f["timing/seconds"][0])), ms(comp[busy]),
    ms(tr("exchange")[busy]), ms(tr("wait")[busy]), ms(tr("allreduce")[busy]),
    rk("bytes_exchanged").sum() / T / 1e3, rk("messages").sum() / T, rk("allreduces").mean() / T))
PY
done
