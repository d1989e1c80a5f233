#!/usr/bin/env bash
# crawlsim partition: every method into the graph file and into a separate file, `crawlsim info`
# shows the stored partition (and nothing for a graph without one), the same partition for any
# rank count, and bad input (k < 1, k > pages, unknown method, missing -k, missing file) is one
# clear error with the same exit code on every rank and no partial output.
source "$(dirname "$0")/lib.sh"

run 2 gen "$SRC/graphs/tiny.ini" -o web.h5 > /dev/null 2>&1 || fail "gen tiny"
run 1 info web.h5 > info_before.txt 2>/dev/null || fail "info before partitioning"
grep -q "^partition" info_before.txt && fail "info shows a partition before partitioning"

for m in metis-host metis host-hash block; do
    out=$(run 2 partition web.h5 -k 4 --method "$m" 2>&1) || fail "partition --method $m: $out"
    grep -q "^partition $m, k 4" <<< "$out" && pass "partition --method $m" ||
        fail "partition --method $m prints no method line: $out"
    grep -q "^partition edge cut" <<< "$out" || fail "partition $m prints no edge cut: $out"
    run 1 info web.h5 > info.txt 2>/dev/null || fail "info after partition $m"
    grep -q "^partition $m, k 4" info.txt && pass "info shows the $m partition" ||
        fail "info lacks the $m partition: $(tail -5 info.txt)"
done
# info's graph lines are unchanged by the partition
diff <(grep -v "^partition\|^computed in" info_before.txt) <(grep -v "^partition\|^computed in" info.txt) > /dev/null &&
    pass "info output unchanged apart from the partition lines" || fail "info output changed"

# a separate file, from a job file; the same partition at 1 and 3 ranks
printf '[partition]\nmethod = metis\nseed = 5\nobjective = volume\n' > job.ini
run 1 partition web.h5 -k 3 -o p1.h5 job.ini > p1.txt 2>&1 || fail "partition -o p1.h5: $(cat p1.txt)"
run 3 partition web.h5 -k 3 -o p3.h5 job.ini > p3.txt 2>&1 || fail "partition -o p3.h5: $(cat p3.txt)"
grep -q "^partition metis, k 3, seed 5, ufactor 30, objective volume" p1.txt &&
    pass "job file read" || fail "job file not applied: $(cat p1.txt)"
# (two runs that print no quality lines would be equal too: they must be there)
[ "$(grep -cE "^partition (edge|volume|balance|hosts)" p1.txt)" -ge 4 ] &&
    diff <(grep -E "^partition (edge|volume|balance|hosts)" p1.txt) <(grep -E "^partition (edge|volume|balance|hosts)" p3.txt) > /dev/null &&
    pass "same partition quality at 1 and 3 ranks" || fail "partition differs with the rank count"
if command -v h5dump > /dev/null; then
    h5dump -d /part p1.h5 > part1.txt 2>&1 && h5dump -d /part p3.h5 > part3.txt 2>&1 &&
        grep -q "DATA {" part1.txt && diff <(tail -n +3 part1.txt) <(tail -n +3 part3.txt) > /dev/null &&
        pass "same part array at 1 and 3 ranks" || fail "part arrays differ between 1 and 3 ranks"
fi
run 2 partition web.h5 -k 2 --set partition.method=block --set partition.ufactor=100 > /dev/null 2>&1 ||
    fail "partition --set"

# bad input: same exit code on every rank, one message, nothing left behind
expect_exit 1 2 "k = 0 parts: k must lie in \[1," partition web.h5 -k 0
expect_exit 1 2 "k must lie in" partition web.h5 -k 100000000 -o big.h5
expect_exit 2 2 "needs the number of parts" partition web.h5
expect_exit 2 2 "is not a number of parts" partition web.h5 -k four
expect_exit 1 2 "partition.method = 'metiss' is not one of" partition web.h5 -k 2 --method metiss
expect_exit 1 2 "no such file" partition missing.h5 -k 2
expect_exit 1 2 "partition.ufactor" partition web.h5 -k 2 --set partition.ufactor=0
no_leftovers "big.h5"
expect_exit 0 1 "" partition --help
finish
