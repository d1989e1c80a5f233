#!/usr/bin/env bash
# Benchmark: threads inside a rank against ranks (issue 21; not run by ctest). The default world
# (10^6 pages generated in memory, jobs/quickstart.ini), PAGES fetches at B per tick, run as
# 1 rank x 1 thread, 1 rank x 2 threads and 2 ranks x 1 thread, for each binary given, in
# alternating runs (round by round, configuration by configuration, binary by binary) so that
# the machine's drift hits all alike. Prints per run the fetch rate (second half of the run) and
# the per-phase seconds of /timing/ranks (the mean over ranks), then per binary and
# configuration the medians, the fetch rate of 1 x 2 over 2 x 1 (the issue's figure), and each
# phase's time at 2 threads over 1 thread. The load average
# printed with each run tells whether other jobs shared the machine (OpenMP barriers wait for
# descheduled threads: on a busy machine threads lose). OMP_WAIT_POLICY etc. pass through.
# The figure per round: each round's 1 x 2 over its own 2 x 1 (the configurations of one round
# share the machine's state), and over the rounds their median, quartiles, interquartile range
# and range, next to the ratio of the medians; with the load averages' range over the runs.
# CONFIGS (default "1x1 1x2 2x1") chooses the configurations (the figure needs 1x2 and 2x1).
# With PINGPONG=BUILD_DIR/tests/bench_pingpong, each run's line also gives the round trip of a
# cache line between CPUs 0 and 1 measured just before it: the cost the threads of one rank pay
# for what they share, which on a virtual machine can change for minutes at a time. It can
# change within seconds too: the figure before a run does not always tell the run's state
# (docs/performance.md).
# Usage: tests/bench/threads.sh "BIN [BIN...]" [ROUNDS] [PAGES] [B] [--set ...]
#   e.g. tests/bench/threads.sh "/work/base/crawlsim build/crawlsim" 2 200000 2000 \
#            --set sarsa.mode=synchronous
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
read -r -a bins <<< "${1:?usage: threads.sh \"BIN [BIN...]\" [ROUNDS] [PAGES] [B] [--set ...]}"
rounds=${2:-2}
pages=${3:-200000}
bw=${4:-2000}
shift $(($# < 4 ? $# : 4))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
phases="select insert learn route fetch evaluate exchange allreduce"
read -r -a cfgs <<< "${CONFIGS:-1x1 1x2 2x1}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== quickstart world, $pages fetches, B = $bw, $rounds rounds, $*"
# mean over ranks of /timing/ranks/NAME
phase() { h5dump -d "/timing/ranks/$2" "$1" | sed -n 's/^ *([0-9]*): //p' | tr ',' '\n' |
    awk 'NF { s += $1; n++ } END { printf "%.3f", s / n }'; }
for r in $(seq 1 "$rounds"); do
    for cfg in "${cfgs[@]}"; do
        np=${cfg%x*}
        th=${cfg#*x}
        for b in "${!bins[@]}"; do
            pp=""
            if [ -n "${PINGPONG:-}" ]; then
                pp=" pingpong $("$PINGPONG" 100000 | grep -oE '[0-9.]+ ns' | cut -d' ' -f1) ns"
            fi
            OMP_NUM_THREADS=$th mpirun -n "$np" --oversubscribe --bind-to none -x OMP_NUM_THREADS \
                "${bins[$b]}" run "$here/jobs/quickstart.ini" --set run.pages="$pages" \
                --set crawl.bandwidth="$bw" "$@" -o "$out/r.h5" > "$out/r.txt" 2> /dev/null
            rate=$(grep -oE '[0-9.e+]+ fetches/s' "$out/r.txt" | cut -d' ' -f1)
            line="bin$b $cfg $rate"
            for p in $phases; do line+=" $(phase "$out/r.h5" "$p")"; done
            echo "$line" >> "$out/runs"
            load=$(cut -d' ' -f1 /proc/loadavg)
            echo "$load" >> "$out/loads"
            echo "round $r: $line (load average $load)$pp"
        done
    done
    for b in "${!bins[@]}"; do
        a=$(grep "^bin$b 1x2 " "$out/runs" | tail -1 | cut -d' ' -f3)
        c=$(grep "^bin$b 2x1 " "$out/runs" | tail -1 | cut -d' ' -f3)
        [ -n "$a" ] && [ -n "$c" ] || continue
        x=$(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.3f", (c > 0 ? a / c : 0) }')
        echo "$x" >> "$out/ratio$b"
        echo "round $r: bin$b rate(1x2)/rate(2x1) $x"
    done
done
echo "== medians: binary configuration fetch/s $phases"
med() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for b in "${!bins[@]}"; do
    echo "bin$b = ${bins[$b]}"
    for cfg in "${cfgs[@]}"; do
        line="bin$b $cfg"
        for c in $(seq 3 $((3 + $(wc -w <<< "$phases")))); do
            line+=" $(grep "^bin$b $cfg " "$out/runs" | cut -d' ' -f"$c" | med)"
        done
        echo "$line"
    done
    # the issue's figure: 1 rank x 2 threads over 2 ranks x 1 thread (fetch rates' medians)
    if [ -s "$out/ratio$b" ]; then
        a=$(grep "^bin$b 1x2 " "$out/runs" | cut -d' ' -f3 | med)
        c=$(grep "^bin$b 2x1 " "$out/runs" | cut -d' ' -f3 | med)
        echo "bin$b rate(1x2)/rate(2x1), medians' ratio: $(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.3f", (c > 0 ? a / c : 0) }')"
        # per round: median, quartiles (medians of the lower and upper halves), IQR, range
        sort -g "$out/ratio$b" | awk -v b="$b" '{ v[NR] = $1 }
            function md(lo, hi,   n) { n = hi - lo + 1
                return n % 2 ? v[lo + (n - 1) / 2] : (v[lo + n / 2 - 1] + v[lo + n / 2]) / 2 }
            END { h = int(NR / 2); q1 = NR > 1 ? md(1, h) : v[1]; q3 = NR > 1 ? md(NR - h + 1, NR) : v[1]
                printf "bin%s rate(1x2)/rate(2x1) per round (%d rounds): median %.3f, quartiles %.3f-%.3f (IQR %.3f), range %.3f-%.3f\n",
                    b, NR, md(1, NR), q1, q3, q3 - q1, v[1], v[NR] }'
    fi
    # serial fraction per phase: time at 2 threads / time at 1 thread (1 = does not scale)
    grep -q "^bin$b 1x1 " "$out/runs" && grep -q "^bin$b 1x2 " "$out/runs" || continue
    line="bin$b t(1x2)/t(1x1):"
    i=4
    for p in $phases; do
        x=$(grep "^bin$b 1x1 " "$out/runs" | cut -d' ' -f$i | med)
        y=$(grep "^bin$b 1x2 " "$out/runs" | cut -d' ' -f$i | med)
        line+=" $p $(awk -v x="$x" -v y="$y" 'BEGIN { printf "%.2f", (x > 0 ? y / x : 0) }')"
        i=$((i + 1))
    done
    echo "$line"
done
sort -g "$out/loads" | awk '{ v[NR] = $1 } END { printf "load average over the runs: %s-%s\n", v[1], v[NR] }'
