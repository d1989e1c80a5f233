#!/usr/bin/env bash
# The restless-bandit policies as re-crawl policies of crawlsim run (refresh.policy = bandit-*):
# every policy runs on groups by change-rate class and its /refresh series and fetches are
# bit-identical on 1 and 2 ranks (replicated decisions, global round-robin inside a group), also
# with one group per host; the slot budget is spent (re-crawls = f B per tick once scheduled);
# static optimisation (Eq. 8 over the cached pages) beats uniform group choice on both staleness
# costs over 3 seeds; bad settings are refused with one clear message.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1

# v FILE DATASET: a scalar dataset's value
v() { h5dump -d "$2" "$1" 2> /dev/null | sed -n 's/^ *(0): //p'; }

common=(--set gen.pages=20000 --set run.policy=best-first --set crawl.bandwidth=100
        --set crawl.host_rate=0 --set run.ticks=1500 --set refresh.fraction=0.3
        --set refresh.sync_every=100 --set bandit.eps_steps=500)

# 1. every policy, rate classes: identical on 1 and 2 ranks
bandits=$(policies refresh | tr ' ' '\n' | sed -n 's/^bandit-//p') # as crawlsim help lists them
[ "$(wc -w <<< "$bandits")" -ge 4 ] || fail "crawlsim help config refresh lists too few bandit-*: $bandits"
for pol in $bandits; do
    for np in 1 2; do
        run "$np" -q run "${common[@]}" --set run.trace=true --set refresh.policy=bandit-$pol \
            -o "b_${pol}_$np.h5" 2> err.txt || fail "bandit-$pol np $np: $(cat err.txt)"
    done
    if compare "b_${pol}_1.h5" "b_${pol}_2.h5" --only /refresh --only /trace --only /final/refresh_jh \
        --only /final/refresh_jb --only /final/refresh_crawls; then
        pass "bandit-$pol: /refresh, fetches and totals bit-identical on 1 and 2 ranks"
    else
        fail "bandit-$pol: differences between 1 and 2 ranks: $compared"
    fi
done

# 2. one group per host (524 hosts)
for pol in static-opt whittle; do
    for np in 1 2; do
        run "$np" -q run "${common[@]}" --set refresh.policy=bandit-$pol --set refresh.group_by=host \
            -o "h_${pol}_$np.h5" 2> err.txt || fail "bandit-$pol by host np $np: $(cat err.txt)"
    done
    compare "h_${pol}_1.h5" "h_${pol}_2.h5" --only /refresh &&
        pass "bandit-$pol by host: /refresh identical on 1 and 2 ranks" ||
        fail "bandit-$pol by host: /refresh differs between 1 and 2 ranks: $compared"
done

# 3. the slot budget: f B = 30 re-crawls per tick from the first sync (the end of tick 0) on, less
# the few slots of the first ticks whose chosen groups had fewer cached pages than crawls
c=$(v b_uniform_1.h5 /final/refresh_crawls)
awk -v c="$c" 'BEGIN { exit !(c >= 30 * 1480 && c <= 30 * 1499) }' &&
    pass "bandit-uniform: $c re-crawls = 30 per tick over the 1499 scheduled ticks (-0.1 %)" ||
    fail "bandit-uniform: $c re-crawls, expected 30 x 1499 less a few"

# 4. static optimisation against uniform group choice, 3 seeds (lower costs are better)
for pol in uniform static-opt; do # the three seeds in one process (crawlsim run --seeds)
    run 2 -q run "${common[@]}" --seeds 1-3 --set refresh.policy=bandit-$pol \
        -o "s_${pol}_{seed}.h5" 2> err.txt > /dev/null || fail "bandit-$pol seeds 1-3: $(cat err.txt)"
done
for cost in jh jb; do
    u=$(for s in 1 2 3; do v "s_uniform_$s.h5" /final/refresh_$cost; done | awk '{ t += $1 } END { print t / NR }')
    o=$(for s in 1 2 3; do v "s_static-opt_$s.h5" /final/refresh_$cost; done | awk '{ t += $1 } END { print t / NR }')
    awk -v u="$u" -v o="$o" 'BEGIN { exit !(o < 0.9 * u) }' &&
        pass "J_${cost#j}: static-opt $o < 0.9 x uniform $u (mean of 3 seeds)" ||
        fail "J_${cost#j}: static-opt $o not 10 % below uniform $u"
done

# 5. refusals
expect_exit 1 2 "supports at most 4096 groups" run --set gen.pages=100000 --set run.ticks=5 \
    --set refresh.policy=bandit-thompson --set refresh.group_by=host -o bad.h5
expect_exit 1 1 "supports at most 64 groups" run "${common[@]}" --set refresh.policy=bandit-whittle-learn \
    --set refresh.group_by=host -o bad.h5
expect_exit 1 1 "refresh.groups" run "${common[@]}" --set refresh.policy=bandit-uniform \
    --set refresh.groups=0 -o bad.h5
expect_exit 1 1 "refresh.group_by" run "${common[@]}" --set refresh.policy=bandit-uniform \
    --set refresh.group_by=page -o bad.h5
[ ! -e bad.h5 ] && pass "no results file from a refused run" || fail "bad.h5 was written"

finish
