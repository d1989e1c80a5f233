#!/usr/bin/env bash
# Benchmark: an integer edge list of LINKS random links among NODES pages, written as PARTS gzip
# parts ("src<TAB>dst" lines, as Common Crawl's host graphs), imported on RANKS ranks
# (docs/guide/importing.md "Big graphs on several ranks"; not run by ctest). The parts are written
# first, when WORK does not hold them yet (awk and gzip -1, one part per process). Then
# `crawlsim -v import` runs on RANKS ranks, each under /usr/bin/time -v: prints the wall time,
# each rank's peak resident memory (as /usr/bin/time measures it), the graph file's size and each
# rank's peak over its share of the file and per link it holds. The graph file is deleted at the
# end; the parts are kept for the next run (KEEP=0 deletes them too).
# Usage: tests/bench/import_text_scale.sh BUILD_DIR WORK [NODES] [LINKS] [PARTS] [RANKS]
set -euo pipefail
usage="usage: import_text_scale.sh BUILD_DIR WORK [NODES] [LINKS] [PARTS] [RANKS]"
build=${1:?$usage}
work=${2:?$usage}
nodes=${3:-5000000}
links=${4:-100000000}
parts=${5:-4}
ranks=${6:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OMPI_MCA_mpi_yield_when_idle=1
mkdir -p "$work"
base=$work/t${nodes}x${links}
if [ ! -s "$base.part$((parts - 1)).txt.gz" ]; then
    echo "== writing $parts gzip parts of $links links among $nodes pages"
    for p in $(seq 0 $((parts - 1))); do
        awk -v n="$nodes" -v m="$((links / parts))" -v seed="$((p + 1))" 'BEGIN {
            srand(seed); for (k = 0; k < m; k++) printf "%d\t%d\n", int(rand() * n), int(rand() * n) }' |
            gzip -1 > "$base.part$p.txt.gz" &
    done
    wait
fi
restore() {
    rm -f "$work/out.h5" "$work"/rank.*.time
    if [ "${KEEP:-1}" = 0 ]; then rm -f "$base".part*.txt.gz; fi
}
trap restore EXIT
printf '[import]\nedges = %s.part*.txt.gz\nedge_format = pairs\nself_loops = drop\nhosts = per-page\n' \
    "$(basename "$base")" > "$work/text.ini"
echo "== crawlsim import on $ranks ranks: $(cat "$base".part*.txt.gz | wc -c) bytes of gzip in $parts parts"
t0=$(date +%s.%N)
mpirun -n "$ranks" --oversubscribe --bind-to none \
    sh -c 'exec /usr/bin/time -v -o "$0/rank.$OMPI_COMM_WORLD_RANK.time" "$@"' "$work" \
    "$build/crawlsim" -v import "$work/text.ini" -o "$work/out.h5" 2>&1 | grep --line-buffered "import\|warning"
t1=$(date +%s.%N)
size=$(stat -c %s "$work/out.h5")
awk -v a="$t0" -v b="$t1" -v s="$size" 'BEGIN { printf "wall time %.1f s; graph file %.2f GiB\n", b - a, s / 2^30 }'
for f in "$work"/rank.*.time; do
    r=${f#"$work"/rank.}
    r=${r%.time}
    kb=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$f")
    awk -v r="$r" -v kb="$kb" -v s="$size" -v p="$ranks" -v m="$links" 'BEGIN {
        printf "rank %s: peak resident memory %.2f GiB (/usr/bin/time), %.2f x its share of the graph file, %.1f bytes per link of its share\n",
            r, kb / 2^20, kb * 1024 / (s / p), kb * 1024 / (m / p) }'
done
