#!/usr/bin/env bash
# crawlsim run: the exact global top-B (best-first and random fetch exactly the same pages, tick
# by tick, on 1, 2 and 4 ranks with E = 1, and route the same link records), bit-identical weights after averaging (and not without it), the
# results file's datasets, politeness, and bad input as one clear error on every rank.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1

run 2 gen "$SRC/graphs/tiny.ini" --set gen.pages=30000 -o web.h5 > /dev/null 2>&1 || fail "gen"
common=(--set run.graph=web.h5 --set run.pages=3000 --set crawl.bandwidth=40 --set run.trace=true
        --set partition.seed=3)

# 1. global budget = one serial frontier: identical fetches tick by tick at 1, 2, 4 ranks
for pol in best-first random; do
    for np in 1 2 4; do
        run "$np" -q run "${common[@]}" --set run.policy=$pol -o "t_${pol}_$np.h5" 2> err.txt ||
            fail "run $pol np $np: $(cat err.txt)"
    done
    for np in 2 4; do
        if compare "t_${pol}_1.h5" "t_${pol}_$np.h5" --only /trace; then
            pass "$pol: the same pages tick by tick on 1 and $np ranks"
        else
            fail "$pol: fetches differ between 1 and $np ranks: $compared"
        fi
        # links and dropped_visited too: every rank knows every rank's fetches, so out-links to
        # visited pages are skipped at the source as on 1 rank (none is routed to be dropped)
        series=()
        for d in fetched relevant relevant_hosts frontier links dropped_visited; do
            series+=(--only /series/$d)
        done
        compare "t_${pol}_1.h5" "t_${pol}_$np.h5" "${series[@]}" ||
            fail "$pol: series differ between 1 and $np ranks: $compared"
    done
done
# ... also when the host quotas bind and the frontier runs low (a 20 000-page world crawled to its
# end: a selection that stops walking too early shows there first)
run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o small.h5 > /dev/null 2>&1 || fail "gen small"
for np in 1 2 4; do
    run "$np" -q run --set run.graph=small.h5 --set run.policy=best-first --set run.pages=20000 \
        --set crawl.bandwidth=100 --set crawl.host_rate=2 --set run.trace=true -o "q_$np.h5" 2> err.txt ||
        fail "run quotas np $np: $(cat err.txt)"
done
for np in 2 4; do
    compare q_1.h5 "q_$np.h5" --only /trace &&
        pass "binding host quotas: the same pages tick by tick on 1 and $np ranks" ||
        fail "binding host quotas: fetches differ between 1 and $np ranks: $compared"
done
# ... and when the best pages crowd on few ranks (block partition, B = 1000: the ranks' first
# proposals of about B / P keys fall short and the search is repeated with B keys each)
for np in 1 4; do
    run "$np" -q run --set run.graph=small.h5 --set run.policy=best-first --set run.pages=20000 \
        --set crawl.bandwidth=1000 --set crawl.host_rate=0 --set run.partition_method=block \
        --set run.trace=true -o "c_$np.h5" 2> err.txt || fail "run crowded np $np: $(cat err.txt)"
done
compare c_1.h5 c_4.h5 --only /trace &&
    pass "best pages crowded on few ranks: the same pages tick by tick on 1 and 4 ranks" ||
    fail "best pages crowded on few ranks: fetches differ between 1 and 4 ranks: $compared"
# ... and the test can fail: a fixed split is not the global top-B
run 2 -q run "${common[@]}" --set run.policy=best-first --set crawl.budget=fixed -o t_fixed.h5 2> /dev/null ||
    fail "run budget fixed"
compare t_best-first_1.h5 t_fixed.h5 --only /trace
case $? in
1) pass "a fixed split fetches other pages (the comparison can fail)" ;;
0) fail "budget fixed fetched the same pages as one rank: the comparison cannot fail" ;;
*) fail "compare t_best-first_1.h5 t_fixed.h5: $compared" ;;
esac
# a fixed budget whose remainder falls to ranks with nothing to fetch still ends: one host, so
# one rank (not rank 0) holds every page; the 201st page's budget of 1, and at B = 1 every
# tick's, go first to rank 0 (the remainder's ranks rotate with the tick)
for c in "3 8 201 200" "4 8 201 200" "4 1 50 400"; do
    read -r np b pages most <<< "$c"
    run "$np" -q run "$SRC/jobs/quickstart.ini" --set gen.pages=2000 --set gen.host_size_mean=5000 \
        --set gen.host_size_max=5000 --set crawl.budget=fixed --set crawl.bandwidth=$b \
        --set run.pages=$pages --set run.ticks=5000 -o "one_$np.h5" 2> err.txt || fail "one host, np $np: $(cat err.txt)"
    got=$(h5dump -d /final/fetched -d /final/ticks one_$np.h5 2> /dev/null | grep -o '(0): [0-9]*' | cut -d' ' -f2 | paste -sd' ')
    held=$(h5dump -d /ranks/pages one_$np.h5 2> /dev/null | grep -o '(0): .*' | tr -d ' ')
    [[ $got =~ ^$pages\ [0-9]+$ ]] && [ "${got#* }" -le "$most" ] && [[ $held =~ ^\(0\):0,(.*,)?2000(,|$) ]] &&
        pass "budget fixed B = $b, every page on one rank of $np: $pages pages in ${got#* } ticks" ||
        fail "budget fixed B = $b, one host on $np ranks: fetched and ticks '$got', pages per rank $held"
done

# 2. determinism for any thread count: cli.test_threads (1 and 3 threads, every policy family)
# and cli.test_threads_full (1, 2 and 3 threads on 1 and 2 ranks)

# 3. weight averaging: identical weights on every rank with K = 1, different with K = 0
for k in 1 0; do
    run 2 -q run "${common[@]}" --set crawl.sync_every=$k -o "w_$k.h5" 2> /dev/null || fail "sync_every $k"
done
h5dump -d /final/weights_identical w_1.h5 | grep -q "(0): 1" && pass "K = 1: weights bit-identical on all ranks" ||
    fail "K = 1: the ranks' weights differ"
h5dump -d /final/weights_identical w_0.h5 | grep -q "(0): 0" && pass "K = 0: independent learners differ" ||
    fail "K = 0: weights identical without averaging (the check cannot fail)"

# 4. the results file and the summary
out=$(run 2 run "${common[@]}" --set run.tasks=2 --set crawl.host_rate=1 -o res.h5 2> /dev/null) || fail "run tasks 2"
grep -q "fetched 6000, relevant" <<< "$out" && pass "summary on stdout" || fail "summary: $out"
grep -qE "peak memory [0-9.]+ MiB on the largest rank, [0-9.]+ MiB over 2 ranks" <<< "$out" &&
    pass "peak memory in the summary" || fail "no peak memory in the summary: $out"
for d in /config /series/fetched /series/relevant /series/harvest_rate /series/relevant_hosts \
    /series/frontier /series/evictions /series/q_evals /series/bytes_exchanged /series/messages \
    /series/collectives /series/collective_bytes /series/allreduces /series/allreduce_bytes \
    /series/visited_notes /timing/ranks/peak_rss /ranks/allreduces /tasks/relevant /ranks/fetched /ranks/pages /final/weights /final/politeness_violations \
    /timing/series/select /timing/series/evaluate /timing/series/learn /timing/series/exchange \
    /timing/series/allreduce /timing/series/wait /timing/ranks/fetch; do
    h5dump -H -d $d res.h5 > /dev/null 2>&1 || fail "results lack $d"
done
h5dump -d /final/politeness_violations res.h5 | grep -q "(0): 0" && pass "no politeness violation at host_rate 1" ||
    fail "politeness violated"
h5dump -d /tasks/fetched res.h5 | grep -q "3000, 3000" && pass "two tasks of 3000 fetches" ||
    fail "tasks: $(h5dump -d /tasks/fetched res.h5 | tail -3)"
run 1 -q run "${common[@]}" --set crawl.frontier_capacity=100 -o small.h5 2> /dev/null || fail "small frontier"
h5dump -d /final/fetched small.h5 > /dev/null 2>&1 && ! h5dump -d /ranks/evictions small.h5 | grep -q "(0): 0$" &&
    pass "a frontier of 100 entries evicts" || fail "no evictions with frontier_capacity 100"
# the default capacity: 10^6 on a small world, a fifth of the pages on a 10^7-page one
run 1 -v run "${common[@]}" -o cap1.h5 2>&1 | grep -q "frontier: capacity 1000000 entries (the default" &&
    pass "the default capacity of a small world is 10^6" || fail "the small world's default capacity"
run 1 -v run "$SRC/jobs/quickstart.ini" --set gen.pages=1e7 --set gen.materialize=false \
    --set run.pages=100 -o cap2.h5 2>&1 | grep -q "frontier: capacity 2000000 entries (the default" &&
    pass "the default capacity of a 10^7-page world is 2 x 10^6" || fail "the 10^7-page world's default capacity"

# 5. the quickstart learns (jobs/quickstart.ini as shipped, 2 ranks, 10^5 fetches, B = 1000): the
# one learner (weight_sync = sum) beats best-first on the same world. On the web-like default
# world (graphs/default.ini, topical lift 2.5) it was measured at 0.1462 against 0.1210 (random
# 0.0631; SARSA with alpha = 0, no learning, 0.0584: the check fails without learning); on the
# classic world (lift 19-29) it was 0.174 against 0.113, where the test asked for 1.25 x.
# With the paper's alpha = 0.001 a tick's 1000 updates from the same weights collapsed the crawl
# on the classic world to 0.018, below random (0.037); that setting now draws a warning.
harvest() { grep -oE "harvest rate [0-9.]+" <<< "$1" | grep -oE "[0-9.]+$"; }
qs=$(run 2 run "$SRC/jobs/quickstart.ini" -o qs.h5 2>&1) || fail "quickstart: $qs"
qb=$(run 2 run "$SRC/jobs/quickstart.ini" --set run.policy=best-first -o qb.h5 2>&1) || fail "best-first: $qb"
hs=$(harvest "$qs")
hb=$(harvest "$qb")
if awk -v s="${hs:-0}" -v b="${hb:-1}" 'BEGIN { exit !(s >= 1.1 * b) }'; then
    pass "the quickstart learns: SARSA $hs >= 1.1 x best-first $hb"
else
    fail "the quickstart does not learn: SARSA ${hs:-?} against best-first ${hb:-?}"
fi
grep -q "warning" <<< "$qs" && fail "the quickstart warns: $qs"
out=$(run 2 run "$SRC/jobs/quickstart.ini" --set sarsa.alpha=0.001 --set run.pages=2000 --set gen.pages=2e4 \
    -o qw.h5 2>&1) # (the warning reads the job alone: a small world)
[ "$(grep -c "warning: sarsa.alpha x crawl.bandwidth = 1 under crawl.weight_sync = sum" <<< "$out")" = 1 ] &&
    pass "alpha x B = 1 under sum: one warning" || fail "no (or repeated) warning for alpha x B = 1: $out"

# 5b. the exchange's two methods (crawl.exchange) move the same records in the same order, and
# the owned visited set (its notes reach every rank whose pages link to a fetched page; its
# evidence rows are the replicated table's) gives the replicated one's crawl: identical crawls at
# 3 ranks outside the communication counters
for v in sparse:owned alltoallv:owned sparse:replicated; do
    run 3 -q run "${common[@]}" --set crawl.exchange=${v%:*} --set crawl.visited=${v#*:} \
        -o "x_${v%:*}_${v#*:}.h5" 2> err.txt || fail "crawl.exchange, visited = $v: $(cat err.txt)"
done
colls=()
for d in collectives collective_bytes allreduces allreduce_bytes visited_notes; do
    colls+=(--ignore /series/$d --ignore /ranks/$d)
done
for v in alltoallv_owned sparse_replicated; do
    if compare x_sparse_owned.h5 x_$v.h5 --ignore /config "${colls[@]}"; then
        pass "crawl.exchange, crawl.visited: sparse, owned == ${v/_/, } at 3 ranks"
    else
        fail "crawl.exchange, crawl.visited: sparse, owned != ${v/_/, }: $compared"
    fi
done
h5dump -d /series/visited_notes x_sparse_owned.h5 | grep -qE "[1-9]" &&
    pass "visited notes sent at 3 ranks (owned)" || fail "no visited note at 3 ranks (owned)"

# 5c. -q hides the logs, not the run's summary on stdout; more seeds than relevant pages warn
# (issue 19). A 5000-page world has a few hundred relevant pages.
out=$(run 1 -q run --set gen.pages=5000 --set run.pages=300 --set crawl.bandwidth=20 -o q.h5 2> q.err)
grep -q "fetched 300," <<< "$out" && [ ! -s q.err ] && pass "-q: the summary on stdout, no log" ||
    fail "-q: summary '$out', log '$(cat q.err)'"
out=$(run 1 run --set gen.pages=5000 --set run.pages=300 --set crawl.bandwidth=20 --set run.seeds=100000 \
    -o s.h5 2>&1)
grep -qE "warning: run.seeds = 100000, but the world has only [0-9]+ relevant pages" <<< "$out" &&
    pass "more seeds than relevant pages: a warning" || fail "no warning for 100000 seeds: $out"

# 6. bad input: one message, exit 1 (data/config) or 2 (command line), no partial results
expect_exit 1 2 "run.policy" run --set run.policy=greedy -o bad.h5
expect_exit 1 2 "partition_method = file needs a graph" run --set run.partition_method=file -o bad.h5
expect_exit 1 2 "nothere.h5" run --set run.graph=nothere.h5 -o bad.h5
expect_exit 1 2 "sarsa.delta1" run "${common[@]}" --set sarsa.delta1=0.5 -o bad.h5
expect_exit 1 2 "results file" run "${common[@]}" -o web.h5/sub/bad.h5
expect_exit 2 1 "at most one job file" run a.ini b.ini
no_leftovers "bad.h5"
finish
