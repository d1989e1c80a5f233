#!/usr/bin/env bash
# The helpers of lib.sh can fail: `run` compares every rank's own exit status (issue 20), so a
# stand-in engine whose ranks exit differently must be caught, and one whose ranks agree not.
source "$(dirname "$0")/lib.sh"

printf '#!/bin/sh\n# rank r exits with status r, or every rank with $FAKE_RC\nexit "${FAKE_RC:-${OMPI_COMM_WORLD_RANK:-0}}"\n' > fake.sh
chmod +x fake.sh
real=$BIN
BIN=$WORK/fake.sh
run 2 > /dev/null 2> err.txt
rc=$?
if [ "$rc" -eq 98 ] && grep -q "rank 0: 0, rank 1: 1" err.txt && grep -q "rank 1: 1" .rank-exit/mismatch; then
    pass "ranks exiting 0 and 1 are caught (run returns 98, finish would fail)"
else
    fail "ranks exiting 0 and 1 not caught: run returned $rc: $(cat err.txt)"
fi
rm -f .rank-exit/mismatch
FAKE_RC=1 run 2 2> /dev/null
rc=$?
[ "$rc" -eq 1 ] && [ ! -e .rank-exit/mismatch ] && pass "ranks agreeing on 1: run returns 1" ||
    fail "ranks agreeing on 1: run returned $rc"
BIN=$real
out=$(run 2 --version) && grep -q crawlsim <<< "$out" && pass "crawlsim --version through the wrapper" ||
    fail "crawlsim --version through the wrapper: $out"
finish
