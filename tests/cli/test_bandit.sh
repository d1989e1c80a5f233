#!/usr/bin/env bash
# crawlsim bandit and crawlsim schedule --policy static-opt end to end: the DRL paper's static
# optimum from a page table (1 and 3 ranks, identical files), the results file of a small
# freshness experiment identical at 1 and 2 ranks with the paper's order SO > TS > uniform in
# it, the ephemeral experiment's Whittle policy above every fixed arm, and clear errors.
source "$(dirname "$0")/lib.sh"

"$BIN" bandit --help | grep -q "crawlsim bandit" || fail "bandit --help"

# ---- static-opt schedule: DRL paper Sec. V, [0.942, 0.055, 0.003, 0] up to order
printf 'id,mu,delta,complete\np1,5,0.6,0\np2,0.2,0.08,0\np3,1,0.01,0\np4,0.5,0.3,0\n' > pages.csv
run 1 schedule --policy static-opt --bandwidth 1 --input pages.csv -o so1.csv > so.log ||
    fail "schedule static-opt"
run 3 schedule --policy static-opt --bandwidth 1 --input pages.csv -o so3.csv > /dev/null ||
    fail "schedule static-opt at 3 ranks"
cmp -s so1.csv so3.csv && pass "static-opt identical at 1 and 3 ranks" || fail "static-opt differs by rank count"
got=$(tail -n +2 so1.csv | cut -d, -f3 | sort -gr | awk '{printf "%.3f ", $1}')
[ "$got" = "0.942 0.055 0.003 0.000 " ] && pass "static-opt = paper's distribution ($got)" ||
    fail "static-opt distribution $got"
grep -q '^p4,0,0$' so1.csv && pass "page 4 never crawled" || fail "page 4 crawled: $(grep p4 so1.csv)"
sum=$(tail -n +2 so1.csv | cut -d, -f2 | awk '{s += $1} END {printf "%.12f", s}')
[ "$sum" = "1.000000000000" ] && pass "probabilities sum to the bandwidth" || fail "sum $sum"
expect_exit 1 1 "bandwidth 5 is not in" schedule --policy static-opt --bandwidth 5 --input pages.csv -o x.csv

# ---- freshness experiment, every policy crawlsim bandit --help lists (the registry's):
# identical at 1 and 2 ranks, paper's order
fresh=$("$BIN" bandit --help | sed -n 's/^  freshness: //p')
[ "$(wc -w <<< "$fresh")" -ge 4 ] || fail "crawlsim bandit --help lists too few freshness policies: $fresh"
printf '[bandit]\nexperiment = freshness\npolicies = %s\nruns = 4\nhorizon = 1500\n' \
    "$(tr ' ' ',' <<< "$fresh")" > fr.ini
run 1 bandit fr.ini -o fr1.h5 > fr.log || fail "bandit freshness"
run 2 bandit fr.ini -o fr2.h5 > /dev/null || fail "bandit freshness at 2 ranks"
compare fr1.h5 fr2.h5 && pass "results identical at 1 and 2 ranks" ||
    fail "results differ by rank count: $compared"
for p in $fresh; do
    for d in running_mean running_ci95 moving_mean moving_ci95; do
        h5ls "fr1.h5/series/$p/$d" | grep -q "{1500}" || fail "missing /series/$p/$d"
    done
done
last() { awk -v p="$1" '$1 == p {print $8}' fr.log; }
so=$(last static-opt); ts=$(last thompson); un=$(last uniform)
[ -n "$so" ] && [ -n "$ts" ] && [ -n "$un" ] && awk -v a="$so" -v b="$ts" -v c="$un" 'BEGIN {exit !(a > b && b > c)}' &&
    pass "SO $so > TS $ts > uniform $un" || fail "order SO $so TS $ts uniform $un"

# ---- ephemeral experiment: the index policy beats always crawling any one arm
printf '[bandit]\nexperiment = ephemeral\npolicies = whittle, fixed\nruns = 2\nhorizon = 2000\n' > eph.ini
run 1 bandit eph.ini -o eph.h5 > eph.log || fail "bandit ephemeral"
wh=$(awk '$1 == "whittle" {print $8}' eph.log)
best=$(awk '$1 ~ /^fixed-arm/ {if (n++ == 0 || $8 > m) m = $8} END {print m}' eph.log)
arms=$(grep -c '^fixed-arm' eph.log)
# (a comparison with a missing line would pass: both values must be there, one per arm)
if [ -n "$wh" ] && [ "$arms" -ge 2 ] && awk -v a="$wh" -v b="$best" 'BEGIN {exit !(a > b)}'; then
    pass "Whittle $wh > best fixed arm $best ($arms arms)"
else
    fail "Whittle '$wh' vs best fixed arm '$best' ($arms fixed-arm lines)"
fi

# ---- errors name the key
expect_exit 1 1 "bandit.rates = '0.1,x'" bandit fr.ini --set bandit.rates=0.1,x -o x.h5
expect_exit 1 2 "bandit.rates has 2 entries" bandit fr.ini --set bandit.rates=0.1,0.2 -o x.h5
expect_exit 1 1 "'dqn' is not a policy" bandit fr.ini --set bandit.policies=dqn -o x.h5
expect_exit 1 1 "whittle" bandit fr.ini --set bandit.policies=whittle -o x.h5
expect_exit 2 1 "at most one job file" bandit fr.ini eph.ini
expect_exit 1 1 "bandit.policies: 'whittle' is listed twice" bandit eph.ini --set bandit.policies=whittle,whittle -o x.h5
[ ! -e x.h5 ] && pass "no results file after an error" || fail "x.h5 written after an error"
finish
