# Shared helpers of the command-line tests. Sourced with: BIN SRC WORK MPIEXEC "MPIFLAGS".
set -u
BIN=$1
SRC=$2
WORK=$3
MPIEXEC=${4:-mpiexec}
read -r -a MPIFLAGS <<< "${5:---oversubscribe}"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
failures=0

# run NP ARGS...: crawlsim under mpiexec with a timeout (a hang is a failure)
run() {
    local np=$1
    shift
    timeout 300 "$MPIEXEC" -n "$np" "${MPIFLAGS[@]}" "$BIN" "$@"
}

# compare A B [OPTIONS...]: crawlsim compare on one process (no mpiexec needed), with a timeout.
# Returns its exit status (0 the same, 1 different, 2 error; a timeout 124) and leaves what it
# printed (the first differences and the summary line, or the error) in $compared.
compare() { compared=$(timeout 300 "$BIN" compare "$@" 2>&1); }

# What measures the ranks themselves: per-rank tables and the communication between ranks (0 on
# one rank), as crawlsim compare options.
RANK_DEPENDENT=(--ignore /ranks --ignore /series/bytes_exchanged --ignore /series/messages
    --ignore /series/collectives --ignore /series/collective_bytes --ignore /series/allreduces
    --ignore /series/allreduce_bytes --ignore /series/visited_notes)

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

# expect_exit CODE NP PATTERN ARGS...: exit code CODE and PATTERN (grep -E) in stderr
expect_exit() {
    local want=$1 np=$2 pattern=$3
    shift 3
    local out rc
    out=$(run "$np" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "crawlsim $* (np $np): exit $rc, expected $want; stderr: $out"
    elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<< "$out"; then
        fail "crawlsim $* (np $np): stderr lacks /$pattern/: $out"
    elif [ "$np" -gt 1 ] && [ "$(grep -c 'crawlsim: error' <<< "$out")" -gt 1 ]; then
        fail "crawlsim $* (np $np): the error was printed more than once: $out"
    else
        pass "crawlsim $* (np $np) -> $rc"
    fi
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

# skip REASON: the test cannot run here (a dataset or a privilege it needs is missing): exit 77,
# which ctest reports as skipped, never as passed
skip() {
    echo "SKIPPED: $*"
    exit 77
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures failure(s)"
        exit 1
    fi
    echo "all passed"
    exit 0
}
