#!/usr/bin/env bash
# crawlsim gen: the graph file is the same on 1, 2 and 4 ranks and with 1 or 2 threads
# (crawlsim compare, and byte for byte), info reads it, and a world is a function of its seed.
source "$(dirname "$0")/lib.sh"

OMP_NUM_THREADS=1 run 1 gen "$SRC/graphs/tiny.ini" -o one.h5 -q || fail "gen on 1 rank"
OMP_NUM_THREADS=2 run 2 gen "$SRC/graphs/tiny.ini" -o two.h5 -q || fail "gen on 2 ranks"
OMP_NUM_THREADS=1 run 4 gen "$SRC/graphs/tiny.ini" -o four.h5 -q || fail "gen on 4 ranks"
for f in two four; do
    if compare one.h5 $f.h5; then pass "one.h5 == $f.h5 (compare)"; else fail "one.h5 != $f.h5: $compared"; fi
done
# byte for byte too (no object times in a graph file): a world's file hash names its contents
for f in two four; do
    cmp -s one.h5 $f.h5 && pass "one.h5 and $f.h5 byte for byte" || fail "one.h5 and $f.h5 differ in their bytes"
done
# the comparison can fail: another seed differs
run 2 gen "$SRC/graphs/tiny.ini" -o seed.h5 -q --set gen.seed=8 || fail "gen seed 8"
compare one.h5 seed.h5
case $? in
1) pass "seeds differ" ;;
0) fail "seed 8 equals seed 7" ;;
*) fail "compare one.h5 seed.h5: $compared" ;;
esac

out=$(run 2 info one.h5) || fail "info"
grep -q "^pages 10000$" <<< "$out" && pass "info pages" || fail "info pages: $out"
grep -qE "^links [0-9]+" <<< "$out" && pass "info links" || fail "info links: $out"
grep -qE "power law" <<< "$out" && pass "info power law" || fail "info power law: $out"
# info agrees with itself across rank counts
out1=$(run 1 info one.h5 | grep -v seconds)
out4=$(run 4 info one.h5 | grep -v seconds)
# (two failed runs that print nothing are equal too: the output must be there)
grep -q "^pages 10000$" <<< "$out1" && [ "$out1" = "$out4" ] && pass "info 1 rank == 4 ranks" ||
    fail "info differs or is missing: $(diff <(echo "$out1") <(echo "$out4"))"

# info on a spec estimates the world's statistics without generating it (src/gen/gen_sample.c):
# with every page in the sample (--sample = pages) its figures are the graph file's, but for the
# links within topic and the reciprocity, which it takes from one link drawn per page; from a sample of 2000 pages
# each estimate lies within two of its 95 % half-widths of the file's value (the sample is drawn
# from the spec's seed: the same every time)
# file_val KEY: a figure of `info one.h5`; est KEY OUT: "value half" of an estimate in OUT
file_val() { grep -m1 "^$1" <<< "$out1" | sed "s/^$1 *//" | awk '{print $1}'; }
est() { grep -m1 "^$1" <<< "$2" | sed "s/^$1 *//" | awk '{print $1, $3}'; }
all=$(run 1 info "$SRC/graphs/tiny.ini" --sample 10000) || fail "info spec --sample 10000"
for key in "links within host" "relevant pages" "observable pages"; do
    read -r v _ <<< "$(est "$key" "$all")"
    [ -n "$v" ] && [ "$v" = "$(file_val "$key")" ] && pass "info spec, whole sample: $key $v" ||
        fail "info spec, whole sample: $key '$v', the file's '$(file_val "$key")'"
done
nl=$(file_val links)
grep -q "(mean out-degree $(awk -v l="$nl" 'BEGIN { printf "%.3f", l / 10000 }') " <<< "$all" &&
    grep -q "^hosts $(file_val hosts) (exact" <<< "$all" &&
    pass "info spec: the mean out-degree and the hosts are the file's" ||
    fail "info spec: links or hosts differ from the file's ($nl links): $all"
part=$(run 1 info "$SRC/graphs/tiny.ini" --sample 2000) || fail "info spec --sample 2000"
for key in "links within host" "links within topic" reciprocity "relevant pages"; do
    read -r v h <<< "$(est "$key" "$part")"
    x=$(file_val "$key")
    awk -v v="$v" -v h="$h" -v x="$x" 'BEGIN { d = v - x; exit !(h > 0 && (d < 0 ? -d : d) <= 2 * h) }' &&
        pass "info spec, 2000 pages: $key $v +- $h, the file's $x" ||
        fail "info spec, 2000 pages: $key '$v +- $h' is not within two half-widths of $x"
done
expect_exit 2 1 "--sample .*at least 2" info "$SRC/graphs/tiny.ini" --sample 1
expect_exit 2 1 "apply to a spec" info one.h5 --sample 100

# the resolved spec is stored in the file
h5dump -a /spec one.h5 | grep -q "pages = 10000" && pass "spec attribute" || fail "spec attribute missing"
finish
