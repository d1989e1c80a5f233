#!/usr/bin/env bash
# crawlsim run --seeds LIST: several run seeds in one process on the world loaded once. Each
# seed's results file must be identical (crawlsim compare: every dataset and attribute outside
# /timing, /config included) to the run of --set run.seed=S on its own, at 1 and 3 ranks, for
# SARSA with [refresh] (lambda-learn) on a graph file and TRES (its strict setting) on a world
# generated in memory: a run that leaks state into the next (a visited bit, a weight, a cache
# entry, an RNG position) or a world that is not the one a single run builds fails here. The
# seeds must also give different crawls (else the comparison proves nothing); every run after
# the first reads the first run's evidence table (its rows the same: every page replicated, or a
# rank's pages and ghosts in the owned visited layout, checked at 2 ranks); and bad lists,
# a results name without {seed}, and --seeds with a checkpoint are refused on every rank.
source "$(dirname "$0")/lib.sh"

run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=10000 -o web.h5 > /dev/null 2>&1 || fail "gen"
sarsa=(--set run.graph=web.h5 --set run.pages=1500 --set crawl.bandwidth=60
       --set run.policy=sarsa --set refresh.policy=lambda-learn --set refresh.fraction=0.3
       --set refresh.sync_every=10 --set run.ticks=60)
tres=(--set gen.pages=8000 --set run.policy=tres --set run.pages=200 --set crawl.bandwidth=20)

check() { # NAME NP SEEDS ARGS...: --seeds against single runs
    local name=$1 np=$2 seeds=$3 s
    shift 3
    run "$np" -v run "$@" --seeds "$seeds" -o "$name-s{seed}.h5" > out.txt 2>&1 ||
        fail "$name --seeds $seeds (np $np): $(cat out.txt)"
    # every run after the first reads the evidence table the first built
    local reused want=$(($(tr ',' '\n' <<< "$seeds" | wc -l) - 1))
    reused=$(grep -c "the evidence table of the world's previous run" out.txt)
    [ "$reused" -eq "$want" ] && pass "$name, $np rank(s): $want run(s) reuse the first run's evidence" ||
        fail "$name, $np rank(s): $reused run(s) reuse the evidence table, expected $want"
    for s in ${seeds//,/ }; do
        run "$np" -q run "$@" --set run.seed="$s" -o "$name-one$s.h5" > /dev/null 2>&1 ||
            fail "$name seed $s alone"
        if compare "$name-s$s.h5" "$name-one$s.h5"; then
            pass "$name, $np rank(s), seed $s: in --seeds == alone"
        else
            fail "$name, $np rank(s), seed $s: in --seeds differs from alone: $(head -4 <<< "$compared")"
        fi
    done
}
check sarsa 3 2,7 "${sarsa[@]}"
check owned 2 3,5,8 "${sarsa[@]}" --set crawl.visited=owned
check tres 1 1,2 "${tres[@]}"
# not vacuous: the seeds crawl differently, and the re-crawls happened
compare sarsa-s2.h5 sarsa-s7.h5 && fail "seeds 2 and 7 gave the same crawl" ||
    pass "seeds 2 and 7 crawl differently"
[ "$(h5int sarsa-s7.h5 /final/refresh_crawls 0)" -gt 0 ] 2> /dev/null &&
    pass "the re-crawls happened" || fail "no re-crawls in sarsa-s7.h5"

expect_exit 2 2 "with \{seed\} once" run "${tres[@]}" --seeds 1-2 -o plain.h5
expect_exit 2 2 "bad list at '3-1'" run "${tres[@]}" --seeds 1,3-1 -o 'x{seed}.h5'
expect_exit 2 2 "seed 4 twice" run "${tres[@]}" --seeds 4,2-5 -o 'x{seed}.h5'
expect_exit 2 1 "do not go together" run "${tres[@]}" --seeds 1-2 --set run.checkpoint=c.h5 -o 'x{seed}.h5'
expect_exit 2 1 "applies to crawlsim run only" gen --seeds 1-2 -o 'x{seed}.h5'
no_leftovers 'x*.h5'
finish
