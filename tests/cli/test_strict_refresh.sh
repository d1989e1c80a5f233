#!/usr/bin/env bash
# The strict setting (crawl.budget = global, exchange_every = 1, sync_every = 1, weight_sync =
# sum; docs/guide/synchronisation.md) with [refresh] on: for every re-crawl policy of refresh.policy (the page-level schedules, adaptive, the
# LambdaLearnAndCrawl learners and the restless-bandit policies over groups) a crawl with
# best-first discovery on 2, 3 and 4 ranks (CI: one of them per policy in turn) is bit-identical to the crawl on 1 rank -- the fetch
# trace, /final, /tasks, /series and everything under /refresh (crawlsim compare; the wall-clock
# times, the per-rank tables and the bytes and messages sent between ranks aside). The world has
# 4 % of pages with complete observations (lambdacrawl and lca take their mixed solves) and
# change rates around one per time unit, so every policy re-crawls and finds changes. Also, for
# a learner and a bandit policy: a block partition with binding host quotas on hosts split
# across ranks, one bandit arm per host, the adaptive split, two tasks and 2 threads per rank;
# and the comparison can fail.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
# oversubscribed ranks yield instead of spinning (3 and 4 ranks on a 2-core machine), and so do
# idle OpenMP threads (spinning threads of one rank starve the others in every collective); one
# node: shared memory only (probing the network transports costs 0.2 s of each of 80 start-ups)
export OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader

run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 --set gen.delta_median=1 -o web.h5 \
    > /dev/null 2>&1 || fail "gen"

# every refresh.policy the binary lists (crawlsim help config refresh: the registry's), but none
policies=()
for p in $(policies refresh); do [ "$p" = none ] || policies+=("$p"); done
[ "${#policies[@]}" -ge 10 ] || fail "crawlsim help config refresh lists too few policies: ${policies[*]}"
# and the refusal of a bad value lists the same (the schema's choices)
listed=$(run 1 run --set refresh.policy=? -o bad.h5 2>&1 | grep -oE 'none\|[a-z|-]+' | head -1 |
         tr '|' '\n' | grep -v '^none$' | sort)
[ "$listed" = "$(printf '%s\n' "${policies[@]}" | sort)" ] &&
    pass "every refresh.policy of the schema is covered (${#policies[@]})" ||
    fail "refresh.policy lists $(echo $listed), the test covers ${policies[*]}"

# ds FILE DATASET: the values of a dataset, one per line
ds() { h5dump -y -w 0 -d "$2" "$1" | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr -d ' ' | tr ',' '\n' | grep -v '^$'; }

# same A B WHAT: lib.sh's same_as_one_rank
same() { same_as_one_rank "$@"; }

# same_bg A B WHAT: same in the background (a comparison waits half a second for MPI's start-up,
# which the next runs hide); same_wait reports them all, in order
nbg=0
same_bg() {
    nbg=$((nbg + 1))
    (same "$@" > "same_$nbg.txt") &
}
same_wait() {
    wait
    for ((i = 1; i <= nbg; i++)); do
        cat "same_$i.txt"
        grep -q '^FAIL' "same_$i.txt" && failures=$((failures + 1))
    done
    nbg=0
}

# crawl NP POLICY OUT [ARGS...]: a small strict crawl with refresh (at most 200 ticks of B = 20,
# 30 % re-crawls, a sync every 20 ticks: 10 epochs; adaptive with intervals that re-crawl)
crawl() {
    local np=$1 pol=$2 out=$3
    shift 3
    local args=(--set run.graph=web.h5 --set run.policy=best-first --set run.pages=2000
                --set run.ticks=200 --set run.trace=true --set crawl.bandwidth=20
                --set crawl.budget=global --set crawl.exchange_every=1 --set crawl.sync_every=1
                --set crawl.weight_sync=sum --set refresh.policy="$pol" --set refresh.fraction=0.3 --set refresh.sync_every=20
                --set bandit.eps_steps=100 --set bandit.batch=8)
    [ "$pol" = adaptive ] && args+=(--set refresh.adapt_init=0.4 --set refresh.adapt_min=0.2)
    run "$np" -q run "${args[@]}" "$@" -o "$out" 2> err.txt ||
        fail "run $pol np $np $*: $(cat err.txt)"
}

# 1. every policy on 1 rank and on 2, 3 or 4 in turn (lib.sh's rank_counts: each count for a
# third of the policies, learners and bandits among each; test_strict_refresh_full.sh runs all
# three for every policy), host-hash partition
cell=0
for pol in "${policies[@]}"; do
    nps=$(rank_counts "$cell")
    cell=$((cell + 1))
    for np in 1 $nps; do
        crawl "$np" "$pol" "r_${pol}_$np.h5"
    done
    for np in $nps; do
        same_bg "r_${pol}_1.h5" "r_${pol}_$np.h5" "$pol: $np ranks == 1 rank"
    done
done
same_wait
# not vacuous: every policy re-crawled, and found changes
ok=1
for pol in "${policies[@]}"; do
    c=$(ds "r_${pol}_1.h5" /final/refresh_crawls)
    z=$(ds "r_${pol}_1.h5" /refresh/crawls_changed | awk '{s += $1} END {print s + 0}')
    [ "${c:-0}" -gt 100 ] && [ "$z" -gt 0 ] || { ok=0; fail "$pol: $c re-crawls, $z found a change"; }
done
[ $ok = 1 ] && pass "every policy re-crawled more than 100 times and found changes"
f=$(ls r_lca_[234].h5 | tail -1)
h5dump -a /strict "$f" | grep -q '"yes"' && pass "the runs were in the strict setting (/strict)" ||
    fail "$f: attribute /strict is not yes"

# 2. harder settings, 3 ranks x 2 threads against 1 rank: a block partition (hosts split across
# ranks) with host quotas that bind (re-crawls take them first, discovery the rest), one bandit
# arm per host, the adaptive split, and two tasks (discovery re-fetches cached pages)
hard=(--set run.partition_method=block --set crawl.host_rate=1 --set refresh.group_by=host
      --set refresh.fraction=adaptive --set run.tasks=2 --set run.pages=1000)
for pol in lambda-learn bandit-static-opt; do
    crawl 1 "$pol" "h_${pol}_1.h5" "${hard[@]}"
    OMP_NUM_THREADS=2 crawl 3 "$pol" "h_${pol}_3.h5" "${hard[@]}"
    same "h_${pol}_1.h5" "h_${pol}_3.h5" "$pol, block, host quotas, by host, adaptive split, 2 tasks: 3 ranks x 2 threads == 1 rank"
done
pv=$(ds h_bandit-static-opt_1.h5 /final/politeness_violations)
[ "${pv:-0}" -gt 0 ] && pass "the host quotas bound ($pv re-crawls beyond them)" ||
    fail "the host quotas never bound"

# 3. a learner on a world where every page notifies its changes (the solve caps R at the total of
# the estimated rates; it used to refuse the first sync), generated in memory
for np in 1 2; do
    crawl "$np" lambda-learn "c_$np.h5" --set run.graph= --set gen.pages=20000 \
        --set gen.delta_median=1 --set gen.observable_fraction=1
done
same c_1.h5 c_2.h5 "lambda-learn, every page complete: 2 ranks == 1 rank"

# 4. the comparison can fail: two policies' /refresh differ
"$BIN" compare -q r_lambdacrawl_1.h5 r_lambdacrawl-incomplete_1.h5 --only /refresh
case $? in
    1) pass "lambdacrawl and lambdacrawl-incomplete differ under /refresh (the test can fail)" ;;
    0) fail "lambdacrawl and lambdacrawl-incomplete have the same /refresh: the comparison cannot fail" ;;
    *) fail "crawlsim compare could not compare r_lambdacrawl_1.h5 and r_lambdacrawl-incomplete_1.h5" ;;
esac
finish
