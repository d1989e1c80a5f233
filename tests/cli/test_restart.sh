#!/usr/bin/env bash
# Checkpoint and restart of crawlsim run (issue 8): a run restarted with --restart from a
# checkpoint ends with the results of an uninterrupted run (crawlsim compare: everything outside
# /timing), for each policy and for loose synchronisation (E, K > 1: links waiting in outboxes),
# proportional budgets, synchronous SARSA, several tasks and the fetch trace; a run killed with
# kill -9 after a checkpoint restarts from it (a discovery policy, TRES, a bandit re-crawl
# policy); SIGTERM to one rank makes every rank checkpoint at the same tick boundary and stop
# (exit 3, no results), and the restart completes the run; SIGUSR1 to one rank writes a
# checkpoint and the run goes on; a checkpoint is refused for another job, another rank count,
# or a file that is not one.
# (The checkpoint holds the whole state: what a restart reads is the same whether the run that
# wrote it was killed or went on, so a kill -9 adds nothing policy-specific. Most cases therefore
# restart from the checkpoint their uninterrupted run left in the middle of the run, which needs
# no second run to kill and replays only the ticks after it; three cases kill.)
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
CK=$WORK/ck.h5

# the same job for every run of a case: only -o and --restart differ
# (40 000 pages: a crawl's set-up takes 0.6 s instead of 1.5 s for 10^5, and no case fetches
# more than 20 000)
world=(--set gen.pages=40000 --set run.seeds=10)

# start NAME ARGS...: crawlsim run on 2 ranks in the background, results NAME.h5, log NAME.log
start() {
    local name=$1
    shift
    run 2 run "${world[@]}" "$@" -o "$name.h5" > "$name.log" 2>&1 &
    bg=$!
}

# ranks NAME: the pids of the rank processes writing NAME.h5 (not mpiexec)
ranks() { pgrep -f "^$BIN run .*-o $1.h5" || true; }

# used TICK RESULTS WHAT: the restart that wrote RESULTS continued from the checkpoint of tick
# TICK (read from the checkpoint's /run/state before the restart): a restart that ignored its
# checkpoint and crawled from the start would give the same results, but -1 here
used() {
    local got
    got=$(h5int "$2" /timing/resumed_at_tick 0)
    if [ -n "$1" ] && [ "$1" -gt 0 ] && [ "$got" = "$1" ]; then
        pass "$3: the restart continued from the checkpoint's tick $1"
    else
        fail "$3: the restart continued from tick '${got}', the checkpoint holds tick '$1'"
    fi
}

# same A B WHAT: results identical outside /timing
same() {
    if compare "$1" "$2"; then
        pass "$3: results identical to the uninterrupted run"
    else
        fail "$3: results differ: $compared"
    fi
}

# kill_case NAME EVERY ARGS...: an uninterrupted run, then one killed with kill -9 once a
# checkpoint exists (one every EVERY ticks), restarted from it
kill_case() {
    local name=$1 every=$2
    shift 2
    local args=(--set run.checkpoint="$CK" --set run.checkpoint_every="$every" "$@")
    rm -f "$CK"
    run 2 run "${world[@]}" "${args[@]}" -o "$name-ref.h5" > "$name-ref.log" 2>&1 ||
        { fail "$name: uninterrupted run: $(tail -3 "$name-ref.log")"; return; }
    rm -f "$CK"
    start "$name-kill" "${args[@]}"
    for _ in $(seq 1 3000); do
        [ -s "$CK" ] && break
        kill -0 "$bg" 2> /dev/null || break
        sleep 0.01
    done
    pkill -9 -f -- "-o $name-kill.h5" 2> /dev/null
    wait "$bg" 2> /dev/null
    # a kill during a checkpoint write leaves its temporary, never a partial checkpoint at $CK
    rm -f .ck.h5.tmp.*
    if [ -e "$name-kill.h5" ]; then
        fail "$name: the run ended before it could be killed (make it longer)"
        return
    fi
    [ -s "$CK" ] || { fail "$name: no checkpoint before the kill: $(tail -3 "$name-kill.log")"; return; }
    local at ck_tick
    at=$(grep -o 'written at tick [0-9]*' "$name-kill.log" | tail -1)
    ck_tick=$(h5int "$CK" /run/state 2)
    run 2 run "${world[@]}" "${args[@]}" -o "$name-kill.h5" --restart "$CK" > "$name-rs.log" 2>&1 ||
        { fail "$name: restart: $(tail -3 "$name-rs.log")"; return; }
    grep -q "restarting from checkpoint" "$name-rs.log" || fail "$name: no restart line in the log"
    used "$ck_tick" "$name-kill.h5" "$name"
    same "$name-ref.h5" "$name-kill.h5" "$name (killed with -9, checkpoint ${at:-?})"
}

# restart_case NAME TICKS EVERY ARGS...: an uninterrupted run of TICKS ticks with a checkpoint
# every EVERY ticks, restarted from the last one it left (which must lie before the end, so that
# the restart replays ticks)
restart_case() {
    local name=$1 ticks=$2 every=$3
    shift 3
    local args=(--set run.checkpoint="$CK" --set run.checkpoint_every="$every" "$@")
    rm -f "$CK"
    run 2 run "${world[@]}" "${args[@]}" -o "$name-ref.h5" > "$name-ref.log" 2>&1 ||
        { fail "$name: uninterrupted run: $(tail -3 "$name-ref.log")"; return; }
    local at
    at=$(grep -o 'written at tick [0-9]*' "$name-ref.log" | tail -1 | grep -o '[0-9]*$')
    [ -s "$CK" ] && [ -n "$at" ] || { fail "$name: no checkpoint: $(tail -3 "$name-ref.log")"; return; }
    [ "$at" -lt "$ticks" ] || { fail "$name: the last checkpoint (tick $at) is not before tick $ticks"; return; }
    [ "$(h5int "$CK" /run/state 2)" = "$at" ] || fail "$name: the checkpoint does not hold tick $at"
    run 2 run "${world[@]}" "${args[@]}" -o "$name-rs.h5" --restart "$CK" > "$name-rs.log" 2>&1 ||
        { fail "$name: restart: $(tail -3 "$name-rs.log")"; return; }
    grep -q "restarting from checkpoint" "$name-rs.log" || fail "$name: no restart line in the log"
    used "$at" "$name-rs.h5" "$name"
    same "$name-ref.h5" "$name-rs.h5" "$name (restarted from the checkpoint at tick $at of $ticks)"
}

# 1. kill -9 and restart (a discovery policy; TRES's replay and double DQN below; a bandit
# re-crawl policy with FG-DQN further down)
kill_case sarsa-async 7 --set run.policy=sarsa --set sarsa.mode=asynchronous --set run.pages=20000 \
    --set crawl.bandwidth=50

# 2. restart from a checkpoint in the middle of the run, per policy and synchronisation
# (the checkpoint at tick 300 lies in the second task: the first has 250 ticks)
restart_case sarsa-loose 500 300 --set run.policy=sarsa --set sarsa.mode=synchronous --set run.pages=15000 \
    --set crawl.bandwidth=60 --set crawl.exchange_every=3 --set crawl.sync_every=4 \
    --set crawl.budget=proportional --set run.tasks=2 --set run.trace=true --set run.record_every=5
restart_case moderated-fixed 200 120 --set run.policy=sarsa --set sarsa.mode=moderated --set run.pages=10000 \
    --set crawl.bandwidth=50 --set crawl.budget=fixed --set crawl.frontier_capacity=3000
kill_case tres 7 --set run.policy=tres --set run.pages=6000 --set crawl.bandwidth=20 \
    --set crawl.weight_sync=average
# every other run.policy the binary lists (crawlsim help config run; sarsa and tres have their
# cases around): the baselines on a larger world, the others in TRES's setting
for pol in $(policies run); do
    case $pol in
        sarsa | tres) ;;
        random | best-first)
            restart_case "$pol" 200 120 --set run.policy="$pol" --set run.pages=10000 \
                --set crawl.bandwidth=50 ;;
        *)
            restart_case "$pol" 300 170 --set run.policy="$pol" --set run.pages=6000 \
                --set crawl.bandwidth=20 --set crawl.weight_sync=average ;;
    esac
done
# (the strict setting's replicated TRES state, and SARSA's exact update sums with K > 1: the
# updates since the last sync are part of the checkpoint, which lies between two syncs)
restart_case tres-strict 300 170 --set run.policy=tres --set run.pages=6000 --set crawl.bandwidth=20
restart_case sarsa-sum-k10 200 125 --set run.policy=sarsa --set run.pages=10000 --set crawl.bandwidth=50 \
    --set crawl.sync_every=10
# (lambda-learn with the adaptive split of the budget between discovery and refresh; the
# checkpoints lie between two refresh syncs: tick 265, after the fifth of every 50 ticks)
for pol in lambdacrawl:0.3 lambda-learn:adaptive adaptive:0.3; do
    restart_case "refresh-${pol%%:*}" 450 265 --set run.policy=best-first --set run.pages=0 \
        --set run.ticks=450 --set crawl.bandwidth=60 --set refresh.policy="${pol%%:*}" \
        --set refresh.fraction="${pol#*:}" --set refresh.sync_every=50
done
# (lambda-learn over a suffix of 2 epochs, with complete pages: the incremental estimates' state,
# rebuilt from the checkpoint's log, must give what the uninterrupted run's gives)
restart_case refresh-lambda-learn-suffix 450 265 --set run.policy=best-first --set run.pages=0 \
    --set run.ticks=450 --set crawl.bandwidth=60 --set refresh.policy=lambda-learn \
    --set refresh.fraction=0.3 --set refresh.sync_every=50 --set refresh.learn_suffix=2 \
    --set gen.observable_fraction=0.2
# (learn_suffix = 0: the complete pages' counts are kept, not logged, and checkpointed)
restart_case refresh-lambda-learn-counts 450 265 --set run.policy=best-first --set run.pages=0 \
    --set run.ticks=450 --set crawl.bandwidth=60 --set refresh.policy=lambda-learn \
    --set refresh.fraction=0.3 --set refresh.sync_every=50 --set gen.observable_fraction=0.2

# (the bandit re-crawl policies: replicated state, FIFOs of group members, FG-DQN with replay)
for pol in bandit-thompson bandit-fgdqn bandit-static-opt bandit-whittle-learn; do
    bandit=(--set run.policy=best-first --set run.pages=0 --set crawl.bandwidth=60
            --set refresh.policy=$pol --set refresh.fraction=0.3 --set refresh.sync_every=50)
    if [ "$pol" = bandit-fgdqn ]; then # (900 ticks: long enough to be killed after tick 120)
        kill_case "refresh-$pol" 120 --set run.ticks=900 "${bandit[@]}"
    else
        restart_case "refresh-$pol" 450 265 --set run.ticks=450 "${bandit[@]}"
    fi
done

# 3. SIGTERM to one rank: all checkpoint at one tick boundary and stop; the restart completes.
# The signal goes out as soon as the crawl has started (the handlers are installed before the
# "crawl:" line), and the crawl has 6000 ticks (about 1 s here), so it cannot end first; a fixed
# sleep against a 1200-tick crawl of 0.3 s lost that race on a fast machine.
args=(--set run.checkpoint="$CK" --set run.pages=12000 --set crawl.bandwidth=2)
rm -f "$CK"
run 2 run "${world[@]}" "${args[@]}" -o term-ref.h5 > term-ref.log 2>&1 || fail "SIGTERM: reference run"
rm -f "$CK"
start term "${args[@]}"
for _ in $(seq 1 3000); do
    grep -q "crawl:" term.log 2> /dev/null && break
    sleep 0.01
done
kill -TERM "$(ranks term | tail -1)" 2> /dev/null
wait "$bg"
rc=$?
if [ "$rc" = 3 ] && [ -s "$CK" ] && [ ! -e term.h5 ] && grep -q "stopped by SIGTERM" term.log; then
    pass "SIGTERM to one rank: checkpoint written, every rank stopped, exit 3, no results file"
    term_tick=$(h5int "$CK" /run/state 2)
    run 2 run "${world[@]}" "${args[@]}" -o term.h5 --restart "$CK" > term-rs.log 2>&1 ||
        fail "SIGTERM: restart: $(tail -3 term-rs.log)"
    used "$term_tick" term.h5 "SIGTERM then --restart"
    same term-ref.h5 term.h5 "SIGTERM then --restart"
else
    fail "SIGTERM: exit $rc, checkpoint $(ls -la "$CK" 2>&1); $(tail -5 term.log)"
fi

# 4. SIGUSR1 to one rank: a checkpoint, and the run goes on to the same results
rm -f "$CK"
start usr1 "${args[@]}"
for _ in $(seq 1 3000); do
    grep -q "crawl:" usr1.log 2> /dev/null && break
    sleep 0.01
done
kill -USR1 "$(ranks usr1 | head -1)" 2> /dev/null
wait "$bg" || fail "SIGUSR1: the run failed: $(tail -3 usr1.log)"
if [ -s "$CK" ] && grep -q "checkpoint .* written" usr1.log; then
    pass "SIGUSR1 to one rank: checkpoint written, the run went on"
else
    fail "SIGUSR1: no checkpoint: $(tail -5 usr1.log)"
fi
same term-ref.h5 usr1.h5 "SIGUSR1"

# 5. refusals
expect_exit 1 2 "written by another job" run "${world[@]}" "${args[@]}" --set crawl.bandwidth=3 \
    -o other.h5 --restart "$CK"
expect_exit 1 1 "written on 2 ranks: restart it on 2 ranks, not 1" run "${world[@]}" "${args[@]}" \
    -o other.h5 --restart "$CK"
expect_exit 1 2 "checkpoint nope.h5: no such file" run "${world[@]}" "${args[@]}" -o other.h5 \
    --restart nope.h5
expect_exit 1 2 "is not a crawlsim checkpoint" run "${world[@]}" "${args[@]}" -o other.h5 \
    --restart term-ref.h5
expect_exit 2 1 "--restart applies to crawlsim run only" info term-ref.h5 --restart "$CK"
expect_exit 2 1 "--restart needs a checkpoint file" run --restart
[ ! -e other.h5 ] && pass "no results file from a refused restart" || fail "other.h5 was written"
no_leftovers "nothing"

finish
