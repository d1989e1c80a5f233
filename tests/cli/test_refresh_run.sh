#!/usr/bin/env bash
# crawlsim run with [refresh]: discovery and re-crawls sharing one budget. The /refresh series
# (exact integrals, crawls, closed forms) identical at 1, 2, 4 ranks; the realised refresh
# bandwidth matches the share (Poisson counts within 4 SD); one budget (discovery fetches plus
# re-crawls = B per tick); LambdaCrawl's J_h below uniform's and change-rate's on the same world;
# LambdaLearnAndCrawl's estimation error of Delta falling over the epochs; refresh off leaves the
# crawl as it was whatever the other [refresh] keys say; bad values as one clear error.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1

# ds FILE DATASET: the values of a dataset, one per line
ds() { h5dump -y -w 0 -d "$2" "$1" | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr -d ' ' | tr ',' '\n' | grep -v '^$'; }

run 1 gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o web.h5 > /dev/null 2>&1 || fail "gen"
# host_rate 0: with host quotas the discovery crawl itself differs between rank counts near the
# end of the frontier (already without refresh); quotas are checked in part 3
common=(--set run.graph=web.h5 --set run.policy=best-first --set crawl.bandwidth=100
        --set crawl.host_rate=0 --set run.ticks=2000 --set refresh.fraction=0.3)

# 1. the same /refresh (and fetches) at 1, 2 and 4 ranks: mixed observability, and a learner
for pol in lambdacrawl lambda-learn; do
    for np in 1 2 4; do
        run "$np" -q run "${common[@]}" --set run.trace=true --set refresh.policy=$pol \
            -o "r_${pol}_$np.h5" 2> err.txt || fail "run $pol np $np: $(cat err.txt)"
    done
    for np in 2 4; do
        if compare "r_${pol}_1.h5" "r_${pol}_$np.h5" --only /refresh --only /trace \
            --only /series/fetched --only /final/refresh_jh --only /final/refresh_jb \
            --only /final/refresh_crawls; then
            pass "$pol: /refresh, fetches and totals bit-identical on 1 and $np ranks"
        else
            fail "$pol: differences between 1 and $np ranks: $compared"
        fi
    done
done
n=$(ds r_lambdacrawl_1.h5 /refresh/t1 | wc -l)
[ "$n" = 20 ] && pass "20 epochs of refresh.sync_every ticks" || fail "/refresh has $n rows, expected 20"

# 2. realised bandwidth = the share: the re-crawls of a run are Poisson with mean sum(R dt)
for pol in lambdacrawl lambda-learn; do
    f=r_${pol}_1.h5
    paste <(ds $f /refresh/crawls) <(ds $f /refresh/share) <(ds $f /refresh/t0) <(ds $f /refresh/t1) |
        awk -v pol=$pol '{c += $1; m += $2 * ($4 - $3); d = $1 - $2 * ($4 - $3);
                          if (d * d > 25 * $2 * ($4 - $3)) bad++}
             END {z = (c - m) / sqrt(m); printf "%s: %d re-crawls for a share of %.1f (z = %.2f), %d epochs beyond 5 SD\n", pol, c, m, z, bad;
                  exit !(z * z < 16 && bad == 0 && c > 1000)}' > bw.txt &&
        pass "$(cat bw.txt)" || fail "$(cat bw.txt)"
done

# 3. one budget: discovery fetches + re-crawls = B in every tick after the seeds (no excess,
# frontier never empty in 100 ticks); re-crawls take host quotas first
run 2 -q run "${common[@]}" --set run.ticks=100 --set refresh.policy=uniform \
    --set refresh.sync_every=10 -o budget.h5 2> err.txt || fail "budget run: $(cat err.txt)"
fe=$(ds budget.h5 /final/fetched) rc=$(ds budget.h5 /final/refresh_crawls) ex=$(ds budget.h5 /refresh/budget_excess | tail -1)
if [ "$ex" = 0 ] && [ $((fe + rc)) = $((10 + 99 * 100)) ] && [ "$rc" -gt 500 ]; then
    pass "one budget: $fe discovery fetches + $rc re-crawls = 10 seeds + 99 ticks x B"
else
    fail "budget: fetched $fe + re-crawls $rc (excess $ex) != 10 + 99 x 100"
fi
run 1 -q run "${common[@]}" --set run.ticks=300 --set crawl.host_rate=1 --set refresh.policy=uniform \
    --set refresh.fraction=0.9 -o polite.h5 2> err.txt || fail "polite run: $(cat err.txt)"
pv=$(ds polite.h5 /final/politeness_violations)
[ "$pv" -gt 0 ] && pass "re-crawls beyond a host's quota are counted ($pv at host_rate 1)" ||
    fail "no politeness violation counted at host_rate 1 with 90 % re-crawls"

# 4. LambdaCrawl beats uniform and change-rate on the same world (mean empirical J_h of the
# last 10 epochs, after the cache stopped growing), and LambdaLearnAndCrawl learns
for pol in uniform change-rate; do
    run 1 -q run "${common[@]}" --set refresh.policy=$pol -o "r_${pol}_1.h5" 2> err.txt ||
        fail "run $pol: $(cat err.txt)"
done
last10() { ds "$1" /refresh/jh | tail -10 | awk '{s += $1} END {printf "%.1f", s / NR}'; }
lc=$(last10 r_lambdacrawl_1.h5)
for pol in uniform change-rate; do
    other=$(last10 r_${pol}_1.h5)
    awk -v a="$lc" -v b="$other" 'BEGIN {exit !(a < 0.9 * b)}' &&
        pass "J_h: lambdacrawl $lc < $pol $other" || fail "J_h: lambdacrawl $lc not below $pol $other"
done
cached=$(ds r_lambdacrawl_1.h5 /refresh/cache_size | sed -n '10p;20p' | uniq | wc -l)
[ "$cached" = 1 ] || fail "the cache still grew in the last 10 epochs"
ds r_lambda-learn_1.h5 /refresh/delta_err | sed -n '2p;$p' | tr '\n' ' ' |
    awk '{printf "lambda-learn: mean |ln(estimate / delta)| %.3f at epoch 2, %.3f at the last", $1, $2 > "/dev/stderr";
          exit !($2 < 0.7 * $1)}' 2> le.txt && pass "$(cat le.txt)" || fail "$(cat le.txt) (expected a fall of 30 %)"
ds r_lambdacrawl_1.h5 /refresh/delta_err | grep -qv nan && fail "delta_err of a non-learning policy is not NaN" ||
    pass "delta_err is NaN for a policy that does not learn"

# 5. refresh off: the crawl is the default one whatever the other [refresh] keys say, and no
# /refresh group; a refresh run does fetch differently (the comparison can fail)
run 2 -q run "${common[@]}" --set run.trace=true -o off.h5 2> /dev/null || fail "off run"
run 2 -q run "${common[@]}" --set run.trace=true --set refresh.policy=none --set refresh.tick_time=3 \
    --set refresh.sync_every=7 --set refresh.fraction=adaptive -o off2.h5 2> /dev/null || fail "off run 2"
if compare off.h5 off2.h5 --only /series --only /tasks --only /final --only /trace; then
    pass "refresh off: /series, /tasks, /final, /trace untouched by the [refresh] keys"
else
    fail "refresh off: the results depend on the [refresh] keys: $compared"
fi
h5dump -H -g /refresh off.h5 > /dev/null 2>&1 && fail "refresh off wrote /refresh" || pass "refresh off: no /refresh"
compare off.h5 r_lambdacrawl_2.h5 --only /trace
case $? in
1) pass "a refresh run's discovery takes what is left of B (fetches differ)" ;;
0) fail "a refresh run fetched the same pages as discovery alone" ;;
*) fail "compare off.h5 r_lambdacrawl_2.h5: $compared" ;;
esac

# 6. the adaptive split moves within its bounds
run 1 -q run "${common[@]}" --set refresh.policy=lambdacrawl --set refresh.fraction=adaptive \
    --set refresh.split_min=0.1 --set refresh.split_max=0.6 -o adapt.h5 2> err.txt || fail "adaptive: $(cat err.txt)"
ds adapt.h5 /refresh/fraction | sort -g | sed -n '1p;$p' | tr '\n' ' ' |
    awk '{exit !($1 >= 0.1 - 1e-12 && $2 <= 0.6 + 1e-12 && $1 < $2)}' &&
    pass "adaptive split: fractions $(ds adapt.h5 /refresh/fraction | sort -g | sed -n '1p;$p' | tr '\n' ' ')within [0.1, 0.6]" ||
    fail "adaptive split: $(ds adapt.h5 /refresh/fraction | tr '\n' ' ')"

# 7. bad values: one clear message, exit 1, on every rank
expect_exit 1 2 "refresh.policy" run "${common[@]}" --set refresh.policy=fresh -o bad.h5
expect_exit 1 2 "refresh.fraction = '1.5'" run "${common[@]}" --set refresh.fraction=1.5 -o bad.h5
expect_exit 1 2 "refresh.fraction = '0'" run "${common[@]}" --set refresh.fraction=0 -o bad.h5
expect_exit 1 2 "refresh.fraction = 'half'" run "${common[@]}" --set refresh.fraction=half -o bad.h5
expect_exit 1 2 "refresh.tick_time" run "${common[@]}" --set refresh.tick_time=0 -o bad.h5
expect_exit 1 2 "refresh.sync_every" run "${common[@]}" --set refresh.sync_every=0 -o bad.h5
expect_exit 1 2 "refresh.split_min" run "${common[@]}" --set refresh.split_min=0.5 -o bad.h5
expect_exit 1 2 "refresh.adapt_min" run "${common[@]}" --set refresh.adapt_min=5 --set refresh.adapt_max=1 -o bad.h5
expect_exit 1 2 "refresh.epsilon" run "${common[@]}" --set refresh.epsilon=1 -o bad.h5
no_leftovers "bad.h5*"
finish
