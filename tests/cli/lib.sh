# Shared helpers of the command-line tests. Sourced with: BIN SRC WORK MPIEXEC "MPIFLAGS".
set -u
BIN=$1
SRC=$2
WORK=$3
MPIEXEC=${4:-mpiexec}
read -r -a MPIFLAGS <<< "${5:---oversubscribe}"
rm -rf "$WORK"
mkdir -p "$WORK/.rank-exit"
cd "$WORK" || exit 1
WORK=$PWD
failures=0

# run NP ARGS...: crawlsim under mpiexec with a timeout (a hang is a failure: exit 124; RUN_TIMEOUT
# seconds, 300 unless set). Every rank's own
# exit status is recorded (a wrapper writes it to .rank-exit/ID.RANK) and compared: run returns
# the status the ranks agree on, and when they do not (a rank missing, or two statuses) it says
# so on stderr and in .rank-exit/mismatch, which `finish` counts as a failure (run is often
# called in a subshell, where `fail` would be lost). The wrapper passes a rank's death by a
# signal on to mpiexec, which then ends the job at once; other statuses reach mpiexec as 0, so
# it lets every rank finish and record its own. mpiexec's own failure (it could not start, a
# timeout, killed) is returned as it is. The check costs one `sh` start per rank and shell
# builtins after mpiexec (but one rm): milliseconds beside mpiexec's own start (1-2 s).
# Under ASan only rank 0 checks for leaks: the leak check with the full stacks that Open MPI's
# suppressions need costs 2-8 s of CPU per process, most of a sanitized test's time at 3 ranks;
# the other ranks still check every access (ASAN_OPTIONS is ignored by builds without ASan).
# policies SECTION: the policies of SECTION.policy (run: discovery, refresh: re-crawl) as the
# binary lists them (`crawlsim help config SECTION`: the choices its registry makes), so that a
# test covering every policy covers a new one without an edit.
policies() {
    "$BIN" help config "$1" | sed -n 's/^  policy  *choice default [a-z-]*  *//p' | tr '|' ' '
}

RUN_SEQ=0
run() {
    local np=$1
    shift
    RUN_SEQ=$((RUN_SEQ + 1))
    local id="$WORK/.rank-exit/$BASHPID.$RUN_SEQ" rc f code first="" n=0 same=1 codes=""
    timeout "${RUN_TIMEOUT:-300}" "$MPIEXEC" -n "$np" "${MPIFLAGS[@]}" sh -c '
        r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${SLURM_PROCID:-0}}}
        [ "$r" = 0 ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
            LSAN_OPTIONS="${LSAN_OPTIONS:-}:fast_unwind_on_malloc=1"
        "$0" "$@"; rc=$?
        echo "$rc" > "'"$id"'.$r"
        [ "$rc" -lt 128 ] || exit "$rc"' "$BIN" "$@"
    rc=$?
    for f in "$id".*; do
        [ -e "$f" ] || continue
        read -r code < "$f"
        codes+="rank ${f##*.}: $code, "
        n=$((n + 1))
        [ -n "$first" ] || first=$code
        [ "$code" = "$first" ] || same=0
    done
    [ "$n" -eq 0 ] || rm -f "$id".*
    if [ "$rc" -ne 0 ]; then
        return "$rc"
    fi
    if [ "$n" -ne "$np" ] || [ "$same" -ne 1 ]; then
        echo "lib.sh: crawlsim $* (np $np): the ranks' exit statuses differ or are missing: ${codes%, }" |
            tee -a "$WORK/.rank-exit/mismatch" >&2
        return 98
    fi
    return "$first"
}

# compare A B [OPTIONS...]: crawlsim compare on one process (no mpiexec needed), with a timeout.
# Returns its exit status (0 the same, 1 different, 2 error; a timeout 124) and leaves what it
# printed (the first differences and the summary line, or the error) in $compared.
compare() { compared=$(timeout 300 "$BIN" compare "$@" 2>&1); }

# h5int FILE DATASET INDEX: element INDEX of an integer dataset (h5dump), empty when missing
h5int() { h5dump -d "$2" -s "$3" -c 1 "$1" 2> /dev/null | sed -n "s/^ *($3): \([0-9-]*\).*/\1/p"; }

# What measures the ranks themselves: per-rank tables and the communication between ranks (0 on
# one rank), as crawlsim compare options.
RANK_DEPENDENT=(--ignore /ranks --ignore /series/bytes_exchanged --ignore /series/messages
    --ignore /series/collectives --ignore /series/collective_bytes --ignore /series/allreduces
    --ignore /series/allreduce_bytes --ignore /series/visited_notes)

# rank_counts I: the rank counts (besides 1) at which case number I of a rank-invariance matrix
# is compared with 1 rank. In CI one of 2, 3 and 4 in turn, so that across a policy's cases, and
# across the policies of one case, every count is covered; all three when STRICT_FULL=1 (the
# test_*_full.sh variants, label long).
rank_counts() {
    if [ "${STRICT_FULL:-0}" = 1 ]; then
        echo 2 3 4
    else
        echo $((2 + $1 % 3))
    fi
}

# same_as_one_rank A B WHAT: A and B bit-identical outside what measures the ranks themselves
# (/timing, ignored by compare; RANK_DEPENDENT): the strict setting's rank invariance
# (docs/guide/synchronisation.md)
same_as_one_rank() {
    if compare "$1" "$2" "${RANK_DEPENDENT[@]}"; then
        pass "$3"
    else
        fail "$3: $(head -4 <<< "$compared")"
    fi
}

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

pass() { echo "ok: $*"; }

# What no run may print: a sanitizer's report, and an HDF5 object left open at exit (main.c's
# cs_h5_finish reports one: HDF5 would close it inside MPI_Finalize, a file with a collective
# close that the other ranks may never make)
DEFECTS='Sanitizer|runtime error:|left open at exit'

# failure_kind RC OUT: how a run on a bad input went wrong, when it was not a clean error: hang,
# crash, disagree (the ranks' statuses differ), wrong (exit 0) or unclear
failure_kind() {
    local rc=$1 out=$2
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo hang
    elif [ "$rc" -ge 128 ] || [ "$rc" -eq 70 ] ||
        grep -qE "$DEFECTS|Segmentation fault|core dumped|MPI_ABORT" <<< "$out"; then
        echo crash
    elif [ "$rc" -eq 98 ]; then
        echo disagree
    elif [ "$rc" -eq 0 ]; then
        echo wrong
    else
        echo unclear
    fi
}

# outcome CLASS NAME RC OUT EXPECTED: records a bad input's outcome in $WORK/outcomes (and
# $CRAWLSIM_OUTCOMES, which tools/robustness collects), classified as fault does below. EXPECTED
# is 1 when the test's own checks of the error passed.
outcome() {
    local class=$1 name=$2 rc=$3 out=$4 ok=$5 o=clean
    [ "$ok" = 1 ] || o=$(failure_kind "$rc" "$out")
    name=${name// /_}
    echo "CASE $class ${name:0:120} $o" >> "$WORK/outcomes"
    [ -z "${CRAWLSIM_OUTCOMES:-}" ] || echo "CASE $class ${name:0:120} $o" >> "$CRAWLSIM_OUTCOMES"
}

# expect_exit CODE NP PATTERN ARGS...: exit code CODE and PATTERN (grep -E) in stderr; with
# FAULT_CLASS set, the outcome is recorded (outcome above)
expect_exit() {
    local want=$1 np=$2 pattern=$3
    shift 3
    local out rc ok=0
    out=$(run "$np" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "crawlsim $* (np $np): exit $rc, expected $want; stderr: $out"
    elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<< "$out"; then
        fail "crawlsim $* (np $np): stderr lacks /$pattern/: $out"
    elif [ "$np" -gt 1 ] && [ "$(grep -c 'crawlsim: error' <<< "$out")" -gt 1 ]; then
        fail "crawlsim $* (np $np): the error was printed more than once: $out"
    elif grep -qE "$DEFECTS" <<< "$out"; then
        fail "crawlsim $* (np $np): $(grep -m1 -E "$DEFECTS" <<< "$out")"
    else
        pass "crawlsim $* (np $np) -> $rc"
        ok=1
    fi
    [ -z "${FAULT_CLASS:-}" ] || [ "$want" -eq 0 ] || outcome "$FAULT_CLASS" "$*" "$rc" "$out" "$ok"
}

# no_leftovers: no output or temporary files in the work directory matching the pattern
no_leftovers() {
    local left
    left=$(find . -maxdepth 1 -name "$1" -o -maxdepth 1 -name ".*.tmp.*" | head -5)
    if [ -n "$left" ]; then
        fail "files left behind: $left"
    else
        pass "no partial output ($1)"
    fi
}

# fault CLASS NAME NP ARGS...: crawlsim on a bad input (a damaged file, a full disk, ...), whose
# only right outcome is a clean error. The outcome is one of
#   clean     the same exit status 1 or 2 on every rank, one "crawlsim: error" line, no HDF5
#             error stack, no sanitizer report, no temporary or output ($FAULT_OUT) left behind
#   crash     a signal, an abort (exit 70, an assertion) or a sanitizer report
#   hang      no end within $FAULT_TIMEOUT seconds (default 60)
#   wrong     exit 0: the bad input was run on, a result written
#   disagree  the ranks' exit statuses differ
#   leftover  a clean error that left a temporary or the output behind
#   unclear   any other failure: no message, several, or HDF5's own error stack, or (with
#             $FAULT_WANT, a grep -E pattern) an error that does not match it
# and is appended as "CASE CLASS NAME OUTCOME" to $WORK/outcomes (and $CRAWLSIM_OUTCOMES when
# set: tools/robustness collects them). Anything but clean is a test failure.
fault() {
    local class=$1 name=$2 np=$3 out rc
    shift 3
    out=$(RUN_TIMEOUT=${FAULT_TIMEOUT:-60} run "$np" "$@" 2>&1 >/dev/null)
    rc=$?
    fault_judge "$class" "$name" "$rc" "$out"
}

# fault_judge CLASS NAME RC OUT: fault's verdict on a run already made (exit status RC, stderr
# OUT), for a test that decides itself whether to try a case again
fault_judge() {
    local class=$1 name=$2 rc=$3 out=$4 outcome
    local left
    left=$(find . -maxdepth 2 -name ".*.tmp.*" | head -3)
    [ -z "${FAULT_OUT:-}" ] || [ ! -e "$FAULT_OUT" ] || left+=" $FAULT_OUT"
    if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && [ "$(grep -c 'crawlsim: error' <<< "$out")" -eq 1 ] &&
        ! grep -qE "HDF5-DIAG|$DEFECTS" <<< "$out" &&
        { [ -z "${FAULT_WANT:-}" ] || grep -qE -- "$FAULT_WANT" <<< "$out"; }; then
        outcome=clean
        [ -z "${left// /}" ] || outcome=leftover
    else
        outcome=$(failure_kind "$rc" "$out")
    fi
    rm -rf ./.*.tmp.* 2> /dev/null
    [ -z "${FAULT_OUT:-}" ] || rm -f "$FAULT_OUT"
    echo "CASE $class $name $outcome" >> "$WORK/outcomes"
    [ -z "${CRAWLSIM_OUTCOMES:-}" ] || echo "CASE $class $name $outcome" >> "$CRAWLSIM_OUTCOMES"
    if [ "$outcome" = clean ]; then
        pass "$class $name: clean error ($(grep -m1 'crawlsim: error' <<< "$out" | cut -c1-150))"
    else
        fail "$class $name: $outcome (exit $rc${left:+, left: $left}): $(head -c 600 <<< "$out")"
    fi
}

# skip REASON: the test cannot run here (a dataset or a privilege it needs is missing): exit 77,
# which ctest reports as skipped, never as passed
skip() {
    echo "SKIPPED: $*"
    exit 77
}

finish() {
    if [ -s "$WORK/.rank-exit/mismatch" ]; then
        fail "ranks exited with different statuses: $(cat "$WORK/.rank-exit/mismatch")"
    fi
    if [ "$failures" -ne 0 ]; then
        echo "$failures failure(s)"
        exit 1
    fi
    echo "all passed"
    exit 0
}
