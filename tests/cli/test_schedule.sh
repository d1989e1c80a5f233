#!/usr/bin/env bash
# crawlsim schedule end to end: every policy on a generated page table (rates sum to R, input
# order, probabilities only for observation-triggered pages), columns in any order, the same
# output file and figures under mpirun -np 2 and 4 as with 1 rank, and every bad input: one clear
# message naming the file and line, exit 2 for the command line and 1 for data, no partial file.
source "$(dirname "$0")/lib.sh"

# 2000 pages, 4 % with complete observations; mu and delta spread over three decades
awk 'BEGIN { print "id,mu,delta,complete";
  for (i = 0; i < 2000; i++)
    printf "page%d,%.6g,%.6g,%d\n", i, 0.1 + (i * 7919 % 1000) / 50.0,
           0.01 * exp((i * 104729 % 1000) / 140.0), (i % 25 == 0) }' > pages.csv

# rows, ids in input order, sum of rates against R, probability column against complete
check_output() { # FILE R WHAT
    awk -F, -v R="$2" -v what="$3" '
      NR == FNR { if (FNR > 1) { id[FNR] = $1; c[FNR] = $4 }; next }
      FNR == 1 { if ($0 != "id,rate,probability") { print "bad header: " $0; bad = 1 }; next }
      { n++; s += $2;
        if ($1 != id[FNR]) { print "row " FNR ": id " $1 ", expected " id[FNR]; bad = 1 }
        if ($2 < 0) { print "negative rate at " FNR; bad = 1 }
        if ((what == "obs") != ($3 != "") && c[FNR] == 1) { print "probability column at " FNR; bad = 1 }
        if (c[FNR] == 0 && $3 != "") { print "probability for an incomplete page at " FNR; bad = 1 }
        if ($3 != "" && ($3 <= 0 || $3 > 1)) { print "probability " $3 " at " FNR; bad = 1 } }
      END { if (n != 2000) { print n " rows"; bad = 1 }
            d = s - R; if (d < 0) d = -d;
            if (d > 1e-9 * R) { printf "sum of rates %.17g, R %g\n", s, R; bad = 1 }
            exit bad }' pages.csv "$1"
}

# every policy the command knows (its refusal of a bad name lists them; static-opt, the DRL
# paper's discrete-time optimum, in cli.test_bandit)
pols=$("$BIN" schedule --policy '?' --bandwidth 1 --input pages.csv -o x.csv 2>&1 |
    sed -n 's/.* is not one of \(.*\) (see .*/\1/p' | tr -d ',')
[ "$(wc -w <<< "$pols")" -ge 5 ] || fail "crawlsim schedule lists too few policies: $pols"
for pol in $pols; do
    [ "$pol" != static-opt ] || continue
    what=poisson
    if [ "$pol" = lambdacrawl ] || [ "$pol" = lca ]; then what=obs; fi
    if run 1 schedule --policy "$pol" --bandwidth 400 --input pages.csv -o "out-$pol.csv" \
        > "out-$pol.txt" && msg=$(check_output "out-$pol.csv" 400 "$what"); then
        pass "schedule --policy $pol"
    else
        fail "schedule --policy $pol: $msg $(cat "out-$pol.txt")"
    fi
done
grep -q '^solver mixed observability' out-lambdacrawl.txt && grep -q '^lambda [0-9]' out-lambdacrawl.txt &&
    grep -q '^J_h [0-9]' out-lambdacrawl.txt && grep -q '^J_b [0-9]' out-lambdacrawl.txt &&
    grep -q '^split R_incomplete [0-9.e+-]* R_complete [0-9]' out-lambdacrawl.txt &&
    pass "summary: solver, lambda, split, J_h, J_b" || fail "summary: $(cat out-lambdacrawl.txt)"
# using the observations lowers the harmonic cost
jh() { awk '/^J_h/ { print $2 }' "$1"; }
awk -v a="$(jh out-lambdacrawl.txt)" -v b="$(jh out-lambdacrawl-incomplete.txt)" \
    'BEGIN { exit !(a < b) }' && pass "mixed J_h below incomplete-only J_h" ||
    fail "mixed J_h $(jh out-lambdacrawl.txt) vs incomplete-only $(jh out-lambdacrawl-incomplete.txt)"

# BinaryLambdaCrawl starves the pages that change fast relative to their importance
awk 'BEGIN { print "id,mu,delta,complete"; for (i = 0; i < 100; i++)
  printf "p%d,%g,%g,0\n", i, (i < 50 ? 10 : 0.01), (i < 50 ? 0.5 : 20) }' > starve.csv
run 1 schedule --policy binary-lambdacrawl --bandwidth 10 --input starve.csv -o blc.csv > blc.txt
grep -q '^J_h inf' blc.txt && grep -q '^starved [1-9]' blc.txt && pass "BLC starves: J_h inf" ||
    fail "BLC did not starve: $(cat blc.txt)"
run 1 schedule --policy binary-lambdacrawl-floor --epsilon 0.05 --bandwidth 10 --input starve.csv \
    -o blcf.csv > blcf.txt
grep -q '^J_h [0-9]' blcf.txt && grep -q '^starved 0' blcf.txt &&
    awk -F, 'NR > 1 && $2 < 0.05 * 10 / 100 * (1 - 1e-12) { bad = 1 } END { exit bad }' blcf.csv &&
    pass "floor: no page starves, rates >= eps R / N" || fail "floor: $(cat blcf.txt)"

# the columns in another order, spaces, CRLF line ends and blank lines give the same schedule
awk -F, 'NR == 1 { print " complete , delta,id ,mu\r"; next }
  { printf "%s,%s,%s,%s\r\n", $4, $3, $1, $2; if (NR == 10) print "" }' pages.csv > shuffled.csv
run 1 schedule --policy lambdacrawl --bandwidth 400 --input shuffled.csv -o out-shuf.csv > /dev/null &&
    cmp -s out-shuf.csv out-lambdacrawl.csv && pass "column order, spaces, CRLF" ||
    fail "reordered columns give another schedule"

# under mpirun: the same file and the same figures as one rank
figures() { grep -v -e '^solve ' -e '^wrote ' "$1"; }
for np in 2 4; do
    for pol in lambdacrawl lca binary-lambdacrawl; do
        run "$np" schedule --policy "$pol" --bandwidth 400 --input pages.csv -o "np$np-$pol.csv" \
            > "np$np-$pol.txt" || fail "np $np $pol"
        if cmp -s "np$np-$pol.csv" "out-$pol.csv" &&
            diff <(figures "np$np-$pol.txt") <(figures "out-$pol.txt") > /dev/null; then
            pass "np $np $pol: output and figures identical to np 1"
        else
            fail "np $np $pol differs from np 1: $(diff <(figures "np$np-$pol.txt") <(figures "out-$pol.txt"))"
        fi
    done
done

# command line (exit 2)
S="schedule --input pages.csv -o bad.csv"
expect_exit 2 1 "needs --policy" $S --bandwidth 1
expect_exit 2 2 "--policy 'lambda' is not one of" $S --policy lambda --bandwidth 1
expect_exit 2 1 "needs --bandwidth" $S --policy lambdacrawl
expect_exit 2 2 "--bandwidth 'abc' is not a positive number" $S --policy lambdacrawl --bandwidth abc
expect_exit 2 1 "--bandwidth '-3' is not a positive number" $S --policy lambdacrawl --bandwidth -3
expect_exit 2 1 "--bandwidth '0' is not a positive number" $S --policy lambdacrawl --bandwidth 0
expect_exit 2 1 "--bandwidth 'inf' is not a positive number" $S --policy uniform --bandwidth inf
expect_exit 2 1 "--bandwidth '5x' is not a positive number" $S --policy uniform --bandwidth 5x
expect_exit 2 1 "--epsilon applies to" $S --policy lambdacrawl --bandwidth 1 --epsilon 0.1
expect_exit 2 1 "--epsilon '1.5' is not a number in" $S --policy binary-lambdacrawl-floor --bandwidth 1 --epsilon 1.5
expect_exit 2 1 "needs --input" schedule -o bad.csv --policy uniform --bandwidth 1
expect_exit 2 1 "needs an output file" schedule --input pages.csv --policy uniform --bandwidth 1
expect_exit 2 1 "no positional argument" $S --policy uniform --bandwidth 1 extra.csv
expect_exit 2 1 "--bandwidth needs a value" $S --policy uniform --bandwidth
expect_exit 0 1 "" schedule --help

# data (exit 1, naming file and line)
bad() { # NAME CONTENT PATTERN
    printf "$2" > "$1.csv"
    expect_exit 1 2 "$3" schedule --policy lambdacrawl --bandwidth 1 --input "$1.csv" -o "out-bad-$1.csv"
}
bad nonnum 'id,mu,delta,complete\na,1,1,0\nb,x1,1,0\n' "nonnum.csv:3: mu = 'x1' is not a number"
bad negative 'id,mu,delta,complete\na,1,-2,0\n' "negative.csv:2: delta = -2 must be > 0"
bad zerodelta 'id,mu,delta,complete\na,1,1,0\nb,1,0,1\n' "zerodelta.csv:3: delta = 0 must be > 0"
bad zeromu 'id,mu,delta,complete\na,0.0,1,0\n' "zeromu.csv:2: mu = 0.0 must be > 0"
bad nan 'id,mu,delta,complete\na,nan,1,0\n' "nan.csv:2: mu = 'nan' is not a number"
bad dup 'id,mu,delta,complete\na,1,1,0\nb,1,1,0\na,2,2,0\n' "dup.csv:4: duplicate id 'a' \(first on line 2\)"
bad missing 'id,mu,complete\na,1,0\n' "missing.csv:1: missing column 'delta'"
bad unknown 'id,mu,delta,complete,url\na,1,1,0,x\n' "unknown.csv:1: unknown column 'url'"
bad twice 'id,mu,delta,mu,complete\na,1,1,1,0\n' "twice.csv:1: column 'mu' appears twice"
bad fields 'id,mu,delta,complete\na,1,1,0\nb,1,1\n' "fields.csv:3: 3 fields, the header has 4"
bad flag 'id,mu,delta,complete\na,1,1,2\n' "flag.csv:2: complete = '2' is not 0, 1"
bad emptyid 'id,mu,delta,complete\n,1,1,0\n' "emptyid.csv:2: empty id"
bad quoted 'id,mu,delta,complete\n"a,b",1,1,0\n' "quoted.csv:2: quoted fields"
bad empty '' "empty.csv: empty file"
bad header 'id,mu,delta,complete\n' "header.csv: no pages"
expect_exit 1 2 "cannot open page table 'nosuch.csv'" schedule --policy uniform --bandwidth 1 --input nosuch.csv -o out-bad-x.csv
# every page complete and R beyond their total change rate
printf 'id,mu,delta,complete\na,1,1,1\nb,1,2,1\n' > allobs.csv
expect_exit 1 2 "exceeds their total change rate" schedule --policy lambdacrawl --bandwidth 5 --input allobs.csv -o out-bad-allobs.csv
expect_exit 1 2 "cannot create 'no-such-dir/x.csv'" schedule --policy uniform --bandwidth 1 --input pages.csv -o no-such-dir/x.csv
no_leftovers "out-bad*"
[ -e bad.csv ] && fail "bad.csv written by a failed run" || pass "no bad.csv"

grep -q "crawlsim schedule" "$SRC/docs/guide/schedule.md" && pass "docs/guide/schedule.md documents schedule" ||
    fail "docs/guide/schedule.md lacks crawlsim schedule"
finish
