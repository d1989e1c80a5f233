#!/usr/bin/env bash
# crawlsim compare: two identical runs are the same (exit 0) though their /timing differs (which
# --no-default-ignore compares); runs of 2000 and 2100 fetches differ (exit 1) with the path and
# both shapes of the trace printed (h5diff 1.10 exits 0 there); --ignore and --only select paths;
# -q prints nothing, -v every difference; under mpirun every rank exits with rank 0's status and
# the output comes once; missing and non-HDF5 files, bad paths and bad options exit 2 with one
# clear message.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1

"$BIN" compare --help | grep -q "usage: crawlsim compare A.h5 B.h5" && pass "compare --help" ||
    fail "compare --help: $("$BIN" compare --help 2>&1)"
"$BIN" help compare | grep -q "Exit status 0" && pass "help compare" || fail "help compare"
"$BIN" --help | grep -q "crawlsim compare A.h5 B.h5" && pass "compare in crawlsim --help" ||
    fail "crawlsim --help lacks compare"

run 1 -q gen "$SRC/graphs/tiny.ini" -o web.h5 > /dev/null 2>&1 || fail "gen"
common=(--set run.graph=web.h5 --set run.trace=true)
for spec in a:2000 a2:2000 b:2100; do
    run 1 -q run "${common[@]}" --set run.pages="${spec#*:}" -o "${spec%%:*}.h5" 2> err.txt ||
        fail "run $spec: $(cat err.txt)"
done
# a key that changes nothing but the resolved job text in /config
run 1 -q run "${common[@]}" --set run.pages=2000 --set run.checkpoint_every=77 -o cfg.h5 2> err.txt ||
    fail "run cfg: $(cat err.txt)"

# 1. identical runs: the same outside /timing, different inside
compare a.h5 a2.h5
rc=$?
[ $rc = 0 ] && grep -q ": identical$" <<< "$compared" && pass "two identical runs: exit 0" ||
    fail "two identical runs: exit $rc: $compared"
compare a.h5 a2.h5 --no-default-ignore
rc=$?
[ $rc = 1 ] && grep -q "^/timing/" <<< "$compared" &&
    pass "--no-default-ignore: /timing (wall-clock times) differs, exit 1" ||
    fail "--no-default-ignore: exit $rc: $compared"

# 2. another number of fetches: exit 1, the path and both shapes (what h5diff lets through)
compare a.h5 b.h5 --only /trace
rc=$?
[ $rc = 1 ] && grep -q "^/trace/page: shape \[2000\] vs \[2100\]$" <<< "$compared" &&
    pass "2000 vs 2100 fetches: exit 1, $(head -1 <<< "$compared")" ||
    fail "2000 vs 2100 fetches: exit $rc: $compared"
compare a.h5 b.h5
rc=$?
n=$(grep -c '^/' <<< "$compared")
[ $rc = 1 ] && [ "$n" = 10 ] && grep -q "the first 10 shown" <<< "$compared" &&
    pass "the first 10 differences and a summary" || fail "a.h5 vs b.h5: exit $rc: $compared"
compare -v a.h5 b.h5
n=$(grep -c '^/' <<< "$compared")
[ "$n" -gt 10 ] && pass "-v: all $n differences" || fail "-v: $compared"
compare -q a.h5 b.h5
rc=$?
[ $rc = 1 ] && [ -z "$compared" ] && pass "-q: exit 1, nothing printed" || fail "-q: exit $rc: $compared"

# 3. --ignore and --only
compare a.h5 cfg.h5
rc=$?
[ $rc = 1 ] && grep -q "^/config: value differs" <<< "$compared" && pass "only /config differs: exit 1" ||
    fail "a.h5 vs cfg.h5: exit $rc: $compared"
compare a.h5 cfg.h5 --ignore /config && pass "--ignore /config: exit 0" ||
    fail "--ignore /config: $compared"
compare a.h5 cfg.h5 --only /trace --only series && pass "--only /trace --only series: exit 0" ||
    fail "--only /trace --only series: $compared"

# 4. under mpirun: rank 0 compares, every rank exits with its status, one output
out=$(run 3 compare a.h5 b.h5 --only /trace 2> /dev/null)
rc=$?
[ $rc = 1 ] && [ "$(grep -c '^compared' <<< "$out")" = 1 ] && pass "3 ranks: exit 1, one summary" ||
    fail "3 ranks: exit $rc: $out"
run 2 compare a.h5 a2.h5 > /dev/null 2>&1 && pass "2 ranks: identical, exit 0" || fail "2 ranks: exit $?"

# 5. errors: exit 2 and one message
expect_exit 2 1 "compare: file missing.h5: no such file" compare a.h5 missing.h5
printf 'this is not HDF5\n' > text.h5
expect_exit 2 2 "compare: file text.h5 is not an HDF5 file" compare text.h5 a.h5
expect_exit 2 1 "is not a regular file" compare a.h5 .
if [ "$(id -u)" -ne 0 ]; then
    cp a.h5 locked.h5 && chmod 000 locked.h5
    expect_exit 2 1 "cannot read file locked.h5" compare a.h5 locked.h5
fi
expect_exit 2 1 "compare takes exactly two files" compare a.h5
expect_exit 2 2 "unknown option '--frob'" compare a.h5 a2.h5 --frob
expect_exit 2 1 "--ignore needs a path" compare a.h5 a2.h5 --ignore
expect_exit 2 1 "bad path 'a//b'" compare a.h5 a2.h5 --ignore a//b
expect_exit 2 1 "/nothere is in neither a.h5 nor a2.h5" compare a.h5 a2.h5 --only /nothere
expect_exit 2 1 "--only /timing lies within /timing" compare a.h5 a2.h5 --only /timing
expect_exit 2 1 "--ignore applies to crawlsim compare only" info web.h5 --ignore /x
finish
