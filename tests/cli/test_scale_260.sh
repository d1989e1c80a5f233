#!/usr/bin/env bash
# A crawl on 260 ranks oversubscribed (docs/developer/memory.md; a check of correctness, never of
# speed): 260 ranks of a 20 000-page world (ranks with few pages, hosts split by none) end with
# exit 0 on every rank (lib.sh's run compares each rank's own status), the summary, and a
# results file of 260 ranks. About 100 s on 2 cores (the set-up's collectives among 260
# processes), so it carries the label `long`, which tools/test leaves out unless asked
# (tools/test build-test -L long).
# Known flaky: in 1 of 3 runs on 2026-11-26 mpiexec reported one rank "exiting improperly"
# (exit 1) after the results file was complete (260 rows); not understood yet.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
world=(--set gen.pages=20000 --set run.policy=sarsa --set crawl.bandwidth=50
    --set crawl.host_rate=2 --set crawl.frontier_capacity=500 --set run.trace=true)

# 260 ranks: every rank's exit status (lib.sh's run) and the summary, then the file
out=$(run 260 run "${world[@]}" --set run.pages=100 -o s_260.h5 2> err.txt)
rc=$?
[ "$rc" = 0 ] && grep -q "on 260 ranks" <<< "$out" && pass "260 ranks: exit 0, summary" ||
    fail "260 ranks: exit $rc: $(tail -5 err.txt)"
n=$(/usr/bin/python3 -c "import h5py; print(len(h5py.File('s_260.h5','r')['/ranks/pages']))" 2>&1)
[ "$n" = 260 ] && pass "260 ranks: /ranks has 260 rows" || fail "260 ranks: /ranks rows: $n"
finish
