#!/usr/bin/env bash
# Command-line smoke tests (label smoke): each command once on a tiny input, a few seconds
# without sanitizers, so that .ci/run can run them under ASan+UBSan too. The command-line tests
# (tests/cli) check the results; these check that the code paths run clean.
# Usage: bash smoke.sh BIN SRC WORK MPIEXEC "MPIFLAGS" CASE, CASE one of
#   crawl-<policy>  a 2-rank crawl of a 5000-page world generated in memory
#   restart         a 2-rank crawl with checkpoints, restarted from its last one: same results
#   schedule        crawlsim schedule on a 300-page table, 2 ranks: rates summing to the bandwidth
#   bandit          crawlsim bandit, a small freshness experiment on 2 ranks
source "$(dirname "$0")/../cli/lib.sh"
CASE=$6
export OMP_NUM_THREADS=1
world=(--set gen.pages=5000 --set run.seeds=5 --set run.pages=400 --set crawl.bandwidth=20)

case $CASE in
crawl-*)
    pol=${CASE#crawl-}
    if out=$(run 2 run "${world[@]}" --set run.policy="$pol" -o crawl.h5 2> err.txt) &&
        grep -q "fetched 400," <<< "$out"; then
        pass "crawl, policy $pol, 2 ranks: $(grep -o 'fetched [^;]*' <<< "$out" | head -1)"
    else
        fail "crawl, policy $pol: $out $(tail -5 err.txt)"
    fi
    ;;
restart)
    args=(--set run.policy=sarsa --set run.checkpoint="$PWD/ck.h5" --set run.checkpoint_every=7)
    run 2 run "${world[@]}" "${args[@]}" -o ref.h5 > ref.log 2>&1 || fail "checkpointed run: $(tail -3 ref.log)"
    at=$(grep -o 'written at tick [0-9]*' ref.log | tail -1)
    if [ -s ck.h5 ] && [ -n "$at" ]; then
        run 2 run "${world[@]}" "${args[@]}" -o rs.h5 --restart ck.h5 > rs.log 2>&1 ||
            fail "restart: $(tail -3 rs.log)"
        grep -q "restarting from checkpoint" rs.log || fail "no restart line in the log"
        [ "$(h5int rs.h5 /timing/resumed_at_tick 0)" = "${at##* }" ] ||
            fail "the restart did not continue from the checkpoint's tick ${at##* }"
        compare ref.h5 rs.h5 && pass "restart from the checkpoint $at: the same results" ||
            fail "restart from the checkpoint $at: results differ: $compared"
    else
        fail "no checkpoint written: $(tail -3 ref.log)"
    fi
    ;;
schedule)
    awk 'BEGIN { print "id,mu,delta,complete";
      for (i = 0; i < 300; i++)
        printf "page%d,%.6g,%.6g,%d\n", i, 0.1 + (i * 7919 % 1000) / 50.0,
               0.01 * exp((i * 104729 % 1000) / 140.0), (i % 25 == 0) }' > pages.csv
    # (2 ranks: the distributed solvers; each start-up costs seconds under the sanitizers)
    for pol in lambdacrawl static-opt; do
        bw=60
        [ "$pol" = static-opt ] && bw=1
        run 2 schedule --policy "$pol" --bandwidth $bw --input pages.csv -o "s-$pol.csv" > /dev/null ||
            fail "schedule --policy $pol"
        rows=$(tail -n +2 "s-$pol.csv" | wc -l)
        sum=$(tail -n +2 "s-$pol.csv" | awk -F, '{s += $2} END {printf "%.6f", s}')
        if [ "$rows" = 300 ] && awk -v s="$sum" -v b=$bw 'BEGIN {exit !(s > 0.999999 * b && s < 1.000001 * b)}'; then
            pass "schedule --policy $pol, 2 ranks: 300 rows, rates summing to $sum"
        else
            fail "schedule --policy $pol: $rows rows, rates summing to $sum (not $bw)"
        fi
    done
    ;;
bandit)
    printf '[bandit]\nexperiment = freshness\npolicies = static-opt, thompson, uniform, fgdqn\nruns = 2\nhorizon = 200\n' > fr.ini
    run 2 bandit fr.ini -o fr.h5 > fr.log 2>&1 || fail "bandit freshness: $(tail -3 fr.log)"
    for p in static-opt thompson uniform fgdqn; do
        h5ls "fr.h5/series/$p/running_mean" 2> /dev/null | grep -q "{200}" &&
            pass "bandit freshness: $p series" || fail "bandit freshness: no /series/$p/running_mean"
    done
    ;;
*)
    fail "unknown smoke case $CASE"
    ;;
esac
finish
