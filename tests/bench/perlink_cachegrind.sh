#!/usr/bin/env bash
# Benchmark: the per-link work of the procedural world (bench_perlink) under cachegrind, not run
# by ctest: the instructions, first-level and last-level data read misses per link, counted by
# valgrind's cache simulation instead of estimated from the code. bench_perlink runs twice on
# the world of PAGES pages (1e8) of graphs/default.ini, with FETCHES (10 000) and 2 x FETCHES
# fetches: the same model is built both times and the first run's fetches are the second's
# first half, so the difference of the two runs' totals is the work of FETCHES fetches alone
# (the set-up cancels). LL is the simulated last-level cache (4 MiB, 16-way: far smaller than
# the 10^8-page model, as this machine's last-level cache is against the 10^9-page one).
# Prints, for the difference: the links, then per link the instructions, the D1 read misses
# and the LL read misses. About 10 minutes here (valgrind runs some 50 times slower).
# Usage: tests/bench/perlink_cachegrind.sh BUILD_DIR [PAGES] [FETCHES] [LL]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: perlink_cachegrind.sh BUILD_DIR [PAGES] [FETCHES] [LL]}
pages=${2:-100000000}
fetches=${3:-10000}
ll=${4:-4194304,16,64}
command -v valgrind > /dev/null || {
    echo "perlink_cachegrind: no valgrind" >&2
    exit 1
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1
for n in "$fetches" $((2 * fetches)); do
    valgrind --tool=cachegrind --cache-sim=yes --LL="$ll" --cachegrind-out-file=/dev/null \
        "$build/tests/bench_perlink" "$here/graphs/default.ini" "$pages" "$n" 1000 \
        > "$out/$n.out" 2> "$out/$n.err"
done
# the totals of a run: instructions, D1 read misses, LL data read misses, links
totals() {
    local ir d1 ll d
    ir=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$out/$1.err" | tr -d ,)
    d1=$(sed -n 's/.*D1 *misses: *[0-9,]* *( *\([0-9,]*\) rd.*/\1/p' "$out/$1.err" | tr -d ,)
    ll=$(sed -n 's/.*LLd misses: *[0-9,]* *( *\([0-9,]*\) rd.*/\1/p' "$out/$1.err" | tr -d ,)
    d=$(sed -n 's/^links per fetched page *\([0-9.]*\).*/\1/p' "$out/$1.out")
    echo "$ir $d1 $ll $(echo "$d * $1" | bc -l)"
}
read -r ir1 d11 ll1 l1 <<< "$(totals "$fetches")"
read -r ir2 d12 ll2 l2 <<< "$(totals $((2 * fetches)))"
links=$(echo "$l2 - $l1" | bc -l)
echo "== bench_perlink under cachegrind (LL $ll), $pages pages, $fetches and $((2 * fetches)) fetches"
printf "links in the difference          %12.0f\n" "$links"
printf "instructions per link            %12.1f\n" "$(echo "($ir2 - $ir1) / $links" | bc -l)"
printf "D1 read misses per link          %12.3f\n" "$(echo "($d12 - $d11) / $links" | bc -l)"
printf "LL read misses per link          %12.3f\n" "$(echo "($ll2 - $ll1) / $links" | bc -l)"
