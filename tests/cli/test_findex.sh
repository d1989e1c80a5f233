#!/usr/bin/env bash
# The frontier's key index (cs_findex) selects and evicts exactly as the passes over the whole
# frontier do: every policy whose values are static (random, best-first, asynchronous and
# moderated SARSA, tres-async's eviction values) crawls with the index and without it
# (CRAWLSIM_FRONTIER_INDEX=0), and crawlsim compare finds every dataset of the results the same;
# the capacity binds (thousands of evictions), MAX caps demote entries in the owned crawl, and
# the strict setting's global eviction runs on 3 ranks (an odd count), the owned one on 2 ranks x
# 2 threads. A run whose eviction is off (a capacity that never binds) differs: the comparison can
# fail. Synchronous SARSA, whose values all change with its weights, says at -v that it passes
# over the frontier (docs/developer/frontier.md). The index's tiers (a few keys in the index, the rest
# in their entries) crawl as the whole index, with and without evictions.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive

run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o web.h5 > /dev/null 2>&1 || fail "gen"
base=(--set run.graph=web.h5 --set run.pages=1500 --set crawl.bandwidth=40 --set crawl.host_rate=2
    --set run.trace=true --set run.tasks=2 --set crawl.frontier_capacity=500)
n=0
both() { # NP THREADS WHAT ARGS...: the crawl with and without the index, compared
    local np=$1 th=$2 what=$3
    shift 3
    n=$((n + 1))
    OMP_NUM_THREADS=$th run "$np" -q run "${base[@]}" "$@" -o "i$n.h5" 2> "i$n.err" ||
        { fail "$what: with the index: $(tail -2 "i$n.err")"; return; }
    CRAWLSIM_FRONTIER_INDEX=0 OMP_NUM_THREADS=$th run "$np" -q run "${base[@]}" "$@" -o "p$n.h5" \
        2> "p$n.err" || { fail "$what: without: $(tail -2 "p$n.err")"; return; }
    [ "$(h5int "i$n.h5" /ranks/evictions 0)" -gt 0 ] 2> /dev/null || fail "$what: no eviction"
    if compare "i$n.h5" "p$n.h5"; then pass "$what: index == passes"; else
        fail "$what: $(head -4 <<< "$compared")"; fi
}
# the switch takes effect (else the comparisons below would compare a crawl with itself)
small=(--set run.graph=web.h5 --set run.pages=100 --set run.policy=best-first)
run 1 -v run "${small[@]}" -o v1.h5 2>&1 | grep -q "by its ordered key index" ||
    fail "best-first does not say it selects by the index"
CRAWLSIM_FRONTIER_INDEX=0 run 1 -v run "${small[@]}" -o v2.h5 2>&1 | grep -q "by passes over it" ||
    fail "CRAWLSIM_FRONTIER_INDEX=0 does not switch the index off"
# synchronous SARSA values every entry again after its weights change: its frontier has no index
run 1 -v run "${small[@]}" --set run.policy=sarsa --set sarsa.mode=synchronous -o v3.h5 2>&1 |
    grep -q "by passes over it" || fail "synchronous SARSA does not say it passes over the frontier"
for pol in random best-first sarsa-asynchronous sarsa-moderated; do
    case $pol in sarsa-*) pa=(--set run.policy=sarsa --set sarsa.mode="${pol#sarsa-}") ;;
        *) pa=(--set run.policy="$pol") ;; esac
    both 3 1 "$pol, strict, 3 ranks" "${pa[@]}"
    both 2 2 "$pol, owned with MAX caps, 2 ranks x 2 threads" "${pa[@]}" --set crawl.exchange_every=2 \
        --set crawl.weight_sync=average --set tres.max_per_host=4
done
both 2 1 "tres-async, strict, 2 ranks" --set run.policy=tres-async --set run.tasks=1 --set run.pages=800
# the index's tiers (CRAWLSIM_FRONTIER_HOT: the best 16 keys in the index, the rest in their
# entries alone) against every key in it: a capacity that never binds keeps the tiers for the
# whole crawl, one that binds makes the index whole at its first eviction
tiers() { # NP THREADS WHAT ARGS...
    local np=$1 th=$2 what=$3
    shift 3
    n=$((n + 1))
    CRAWLSIM_FRONTIER_HOT=16 OMP_NUM_THREADS=$th run "$np" -v run "${base[@]}" "$@" -o "t$n.h5" \
        2> "t$n.err" || { fail "$what: in tiers: $(tail -2 "t$n.err")"; return; }
    grep -q "in tiers: it keeps the best 16 keys" "t$n.err" || fail "$what: the tiers are not on"
    CRAWLSIM_FRONTIER_HOT=0 OMP_NUM_THREADS=$th run "$np" -q run "${base[@]}" "$@" -o "w$n.h5" \
        2> "w$n.err" || { fail "$what: whole: $(tail -2 "w$n.err")"; return; }
    if compare "t$n.h5" "w$n.h5"; then pass "$what: tiers == whole index"; else
        fail "$what: $(head -4 <<< "$compared")"; fi
}
for pol in best-first sarsa-asynchronous; do
    case $pol in sarsa-*) pa=(--set run.policy=sarsa --set sarsa.mode="${pol#sarsa-}") ;;
        *) pa=(--set run.policy="$pol") ;; esac
    tiers 3 1 "$pol, strict, 3 ranks, no eviction" "${pa[@]}" --set crawl.frontier_capacity=100000
    tiers 3 1 "$pol, strict, 3 ranks, evictions" "${pa[@]}"
    tiers 2 2 "$pol, owned with MAX caps, 2 ranks x 2 threads, no eviction" "${pa[@]}" \
        --set crawl.frontier_capacity=100000 --set crawl.exchange_every=2 \
        --set crawl.weight_sync=average --set tres.max_per_host=4
done
# the comparison can fail: another capacity changes the crawl
run 1 -q run "${base[@]}" --set run.policy=best-first --set crawl.frontier_capacity=400 -o other.h5 \
    2> /dev/null || fail "the other capacity's crawl"
if compare i3.h5 other.h5 > /dev/null; then fail "a crawl with another capacity compares the same"; else
    pass "the comparison fails on another crawl"; fi
finish
