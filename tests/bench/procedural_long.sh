#!/usr/bin/env bash
# Benchmark: issue 18's long runs on the procedural world (gen.materialize = false;
# docs/guide/generating.md), not run by ctest: SARSA (asynchronous) on the default world of PAGES
# pages (10^9), FETCHES fetches (10^8) at B = 1000, on NP ranks (2) with THREADS OpenMP threads
# each (1); with REFRESH=1 also [refresh] with lambda-learn (refresh.policy). Take /work/quiet.lock (or the
# machine) for it: the run is meant to hold both cores for up to 30 minutes.
#
# Prints the load average before and after, every MONITOR seconds (30) the elapsed time, the
# fetches so far (rank 0's progress line) and the resident memory of the ranks (the sum of
# VmRSS, which counts the pages of the node's shared model once per rank that touched them),
# and at the end crawlsim's summary (fetch rate, peak memory of the largest rank and over the
# ranks with the shared memory counted once) and the wall time. With LIMIT minutes (0: none),
# SIGTERM goes to mpirun after that time (the run stops at a tick boundary with exit status 3
# and no results file) and the last progress line is what was done. With KEEP=FILE the results
# file (its /timing/ranks holds each phase's seconds) is copied to FILE. The ranks inherit the
# environment: CRAWLSIM_SHARED=0 (a model per rank, in huge pages) and CRAWLSIM_HUGE_PAGES=0 (no
# huge-page advice) compare the ways memory is held (docs/reports/procedural-world.md).
# Usage: tests/bench/procedural_long.sh BUILD_DIR [PAGES] [FETCHES] [NP] [--set ...]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: procedural_long.sh BUILD_DIR [PAGES] [FETCHES] [NP] [--set ...]}
pages=${2:-1000000000}
fetches=${3:-100000000}
np=${4:-2}
shift $(($# < 4 ? $# : 4))
limit=${LIMIT:-0}
every=${MONITOR:-30}
extra=()
if [ "${REFRESH:-0}" = 1 ]; then
    extra=(--set refresh.policy=lambda-learn)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${THREADS:-1}
export OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== SARSA, $np ranks x $OMP_NUM_THREADS threads, $pages pages (procedural), $fetches fetches, ${extra[*]} $*"
echo "load before: $(uptime)"
t0=$(date +%s)
mpirun -n "$np" --oversubscribe --bind-to none "$build/crawlsim" run "$here/jobs/quickstart.ini" \
    --set gen.world="$here/graphs/classic.ini" --set gen.pages="$pages" --set gen.materialize=false --set run.pages="$fetches" \
    --set crawl.bandwidth=1000 --set run.record_every=1000 "${extra[@]}" "$@" \
    -o "$out/long.h5" > "$out/stdout" 2> "$out/stderr" &
mp=$!
peak=0
while kill -0 "$mp" 2> /dev/null; do
    # a second at a time, so that the wall time below ends when the run does, not up to
    # MONITOR seconds later
    for ((i = 0; i < every; i++)); do
        kill -0 "$mp" 2> /dev/null || break
        sleep 1
    done
    kill -0 "$mp" 2> /dev/null || break
    now=$(($(date +%s) - t0))
    rss=0
    for p in $(pgrep -P "$mp"); do
        r=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2> /dev/null || echo 0)
        rss=$((rss + ${r:-0}))
    done
    [ "$rss" -gt "$peak" ] && peak=$rss
    last=$(grep -a 'crawl (fetches)' "$out/stderr" | tail -1 | sed 's/.*crawl (fetches): *//')
    printf "%6d s  RSS %8.1f MiB over the ranks  %s  load %s\n" "$now" "$((rss / 1024)).0" \
        "${last:-set-up}" "$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$limit" != 0 ] && [ "$now" -ge $((limit * 60)) ]; then
        echo "limit of $limit minutes reached: SIGTERM to mpirun"
        kill -TERM "$mp"
        limit=0
    fi
done
wait "$mp"
rc=$?
t1=$(date +%s)
echo "exit status $rc, wall $((t1 - t0)) s; largest RSS sum seen $((peak / 1024)) MiB"
grep -a 'set-up' "$out/stderr" | head -1
grep -a 'crawl (fetches)' "$out/stderr" | tail -1
cat "$out/stdout"
if [ -n "${KEEP:-}" ] && [ -f "$out/long.h5" ]; then
    cp "$out/long.h5" "$KEEP" && echo "results kept: $KEEP"
fi
echo "load after: $(uptime)"
