#!/usr/bin/env bash
# Runs every libFuzzer harness of a fuzzing build for a bounded time over its corpus, and fails
# when one finds a crash, a leak, a hang or a memory blow-up (docs/developer/tests.md "Fuzzing").
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]
#
# BUILD_DIR is configured with CC=clang -DCRAWLSIM_FUZZ=ON and built with `--target fuzzers`
# (this script builds nothing). Each harness first runs every case of tests/fuzz/corpus/NAME/
# (the regression cases among them), then mutates for SECONDS (-max_total_time), two harnesses
# at a time. New inputs go to a temporary folder, never into the repository. On a failure the
# reproducing input is kept as $FUZZ_ARTIFACTS/NAME-crash-... (default: BUILD_DIR/fuzz-artifacts)
# and the harness's report is printed; `BUILD_DIR/tests/fuzz/NAME FILE` replays it.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [HARNESS...]" >&2
    exit 2
fi
src=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$1" && pwd)/tests/fuzz
seconds=$2
art=${FUZZ_ARTIFACTS:-$1/fuzz-artifacts}
shift 2
mkdir -p "$art"
art=$(cd "$art" && pwd)
if [ $# -gt 0 ]; then
    names=("$@")
else
    mapfile -t names < <(cd "$src" && ls fuzz_*.c | sed 's/\.c$//')
fi
for n in "${names[@]}"; do
    if [ ! -x "$bin/$n" ]; then
        echo "fuzz: $bin/$n is not built (cmake --build BUILD_DIR --target fuzzers)" >&2
        exit 2
    fi
    if [ ! -d "$src/corpus/$n" ]; then
        echo "fuzz: no corpus folder $src/corpus/$n" >&2
        exit 2
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one OpenMP thread (the BVGraph decoder still splits its work in ranges), two harnesses at once
export OMP_NUM_THREADS=1

# run NAME: one harness; its log in $work/NAME.log, its status in $work/NAME.rc
run() {
    local n=$1
    mkdir -p "$work/$n"
    local rc=0
    # (-timeout: one input taking 10 s is a hang; the outer timeout catches a stuck harness)
    timeout $((seconds + 120)) "$bin/$n" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/$n-" \
        "$work/$n" "$src/corpus/$n" > "$work/$n.log" 2>&1 || rc=$?
    echo "$rc" > "$work/$n.rc"
}

pids=()
for n in "${names[@]}"; do
    run "$n" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
done
wait

failed=0
for n in "${names[@]}"; do
    rc=$(cat "$work/$n.rc")
    # (a harness that fails while replaying its corpus prints no statistics)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$n.log" | tail -1 || true)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/$n.log" | tail -1 || true)
    if [ "$rc" = 0 ]; then
        printf 'fuzz: %-24s ok: %s inputs, %s\n' "$n" "${runs:-?}" "${cov:-?}"
    else
        failed=1
        printf 'fuzz: %-24s FAILED (exit %s)\n' "$n" "$rc"
        grep -v '^#\|^INFO\|^\s*NEW_FUNC' "$work/$n.log" | tail -n 60
    fi
done
if [ "$failed" != 0 ]; then
    echo "fuzz: failing inputs in $art (replay: $bin/NAME FILE)"
    exit 1
fi
