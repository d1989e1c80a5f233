#!/usr/bin/env bash
# Benchmark: a BVGraph of NODES x DEGREE links (10^9 by default) imported on RANKS ranks
# (docs/guide/importing.md "Big graphs"; not run by ctest). The graph is written first, when
# WORK does not hold it yet, by the tests' streaming writer (bench_bvgraph write: WebGraph's
# defaults, lists with web-like locality, with an .offsets file; about 1.4 bytes per link and a
# quarter of an hour for 10^9 links here). Then `crawlsim -v import` runs on RANKS ranks, each
# under /usr/bin/time -v: prints the wall time of the import, each rank's peak resident memory
# (both as /usr/bin/time measures it and as crawlsim reports it), the graph file's size, and
# each rank's peak over its share of the file. NOOFFSETS=1 hides the .offsets file (every rank
# then finds the offsets by a sequential pass). The graph file is deleted at the end; the
# BVGraph is kept for the next run (KEEP=0 deletes it too).
# Usage: tests/bench/import_scale.sh BUILD_DIR WORK [NODES] [DEGREE] [RANKS]
set -euo pipefail
build=${1:?usage: import_scale.sh BUILD_DIR WORK [NODES] [DEGREE] [RANKS]}
work=${2:?usage: import_scale.sh BUILD_DIR WORK [NODES] [DEGREE] [RANKS]}
nodes=${3:-50000000}
degree=${4:-20}
ranks=${5:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OMPI_MCA_mpi_yield_when_idle=1
mkdir -p "$work"
base=$work/g${nodes}x${degree}
links=$((nodes * degree))
# the BVGraph (about 1.4 bytes per link) and the graph file (4 bytes per link, 41 per page)
need_kb=$(((links * 14 / 10 + links * 4 + nodes * 45) / 1024))
free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
if [ "$free_kb" -lt "$need_kb" ]; then
    echo "import_scale: $work has $((free_kb / 1048576)) GiB free, needs about $((need_kb / 1048576)) GiB" >&2
    exit 1
fi
if [ ! -s "$base.graph" ]; then
    echo "== writing $base.graph ($nodes nodes x $degree links)"
    "$build/tests/bench_bvgraph" write "$base" "$nodes" "$degree" offsets
fi
if [ "${NOOFFSETS:-0}" = 1 ] && [ -e "$base.offsets" ]; then
    mv "$base.offsets" "$base.offsets.hidden"
fi
restore() {
    [ -e "$base.offsets.hidden" ] && mv "$base.offsets.hidden" "$base.offsets"
    rm -f "$work/out.h5" "$work"/rank.*.time
    if [ "${KEEP:-1}" = 0 ]; then rm -f "$base".graph "$base".offsets "$base".properties; fi
}
trap restore EXIT
printf '[import]\nedges = %s.graph\nedge_format = bvgraph\nself_loops = drop\nhosts = per-page\n' \
    "$(basename "$base")" > "$work/scale.ini"
echo "== crawlsim import on $ranks ranks, OMP_NUM_THREADS=$OMP_NUM_THREADS: $(stat -L -c %s "$base.graph") bytes of BVGraph$([ -e "$base.offsets" ] && echo ', with .offsets' || echo ', no .offsets')"
t0=$(date +%s.%N)
mpirun -n "$ranks" --oversubscribe --bind-to none \
    sh -c 'exec /usr/bin/time -v -o "$0/rank.$OMPI_COMM_WORLD_RANK.time" "$@"' "$work" \
    "$build/crawlsim" -v import "$work/scale.ini" -o "$work/out.h5" 2>&1 | grep --line-buffered "import\|warning"
t1=$(date +%s.%N)
size=$(stat -c %s "$work/out.h5")
awk -v a="$t0" -v b="$t1" -v s="$size" 'BEGIN { printf "wall time %.1f s; graph file %.2f GiB\n", b - a, s / 2^30 }'
for f in "$work"/rank.*.time; do
    r=${f#"$work"/rank.}
    r=${r%.time}
    kb=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$f")
    user=$(awk -F: '/User time/ { gsub(/ /, "", $2); print $2 }' "$f")
    sys=$(awk -F: '/System time/ { gsub(/ /, "", $2); print $2 }' "$f")
    awk -v r="$r" -v kb="$kb" -v s="$size" -v p="$ranks" -v u="$user" -v y="$sys" 'BEGIN {
        printf "rank %s: peak resident memory %.2f GiB (/usr/bin/time), %.2f x its share of the graph file; CPU %.0f s (user %.0f + system %.0f)\n",
            r, kb / 2^20, kb * 1024 / (s / p), u + y, u, y }'
done
