#!/usr/bin/env bash
# Benchmark of checkpoint and restart (issue 8: each under 5 s for a 10^6-page run on 2 ranks;
# not run by ctest). The classic world (graphs/classic.ini, 10^6 pages, 16 M links) crawled by POLICY on NP ranks
# with a checkpoint every EVERY ticks, then restarted from the last one. Prints the time of each
# checkpoint write (from the log), its size, the restart's load time and the restart's whole
# wall time (world generation included), and checks that the restart ends like the
# uninterrupted run (crawlsim compare: everything outside /timing).
# Usage: tests/bench/checkpoint.sh BUILD_DIR [NP] [POLICY] [PAGES] [EVERY] [OUTDIR] [--set ...]
# (e.g. ... sarsa 300000 100 /tmp/ck --set refresh.policy=lambda-learn --set refresh.fraction=0.3)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: checkpoint.sh BUILD_DIR [NP] [POLICY] [PAGES] [EVERY] [OUTDIR]}
np=${2:-2}
policy=${3:-sarsa}
pages=${4:-500000}
every=${5:-100}
out=${6:-${TMPDIR:-/tmp}/crawlsim-bench-ckpt}
shift $(($# < 6 ? $# : 6))
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$out"
args=(run "$here/jobs/quickstart.ini" --set gen.world="$here/graphs/classic.ini" --set run.policy="$policy"
      --set run.pages="$pages" --set run.checkpoint="$out/ck.h5" --set run.checkpoint_every="$every" "$@")
mpi=(mpirun -n "$np" --oversubscribe --bind-to none)
rm -f "$out"/ck.h5 "$out"/full.h5 "$out"/rs.h5
echo "== $policy on the classic world, $pages fetches, a checkpoint every $every ticks, $np ranks"
"${mpi[@]}" "$bin" "${args[@]}" -o "$out/full.h5" 2> "$out/full.log" > /dev/null
grep -o 'written at tick [0-9]* ([0-9.]* s)' "$out/full.log" | sed 's/^/checkpoint /'
echo "checkpoint file: $(du -m "$out/ck.h5" | cut -f1) MB"
t0=$(date +%s.%N)
"${mpi[@]}" "$bin" "${args[@]}" -o "$out/rs.h5" --restart "$out/ck.h5" 2> "$out/rs.log" > /dev/null
t1=$(date +%s.%N)
grep -o 'set-up [0-9.]* s' "$out/rs.log" | sed 's/^/restart: world /'
grep -o 'restarting from checkpoint .*' "$out/rs.log" | sed 's/^/restart: /'
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "restart: whole run from the checkpoint to the results %.2f s\n", b - a }'
if diffs=$("$bin" compare "$out/full.h5" "$out/rs.h5" 2>&1); then
    echo "restart: results identical to the uninterrupted run"
else
    echo "restart: results DIFFER"
    echo "$diffs"
    exit 1
fi
