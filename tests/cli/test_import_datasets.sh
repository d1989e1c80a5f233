#!/usr/bin/env bash
# crawlsim import from the command line on a bundled dataset (WebKB, ../shared/datasets or
# $CRAWLSIM_DATASETS) end to end: import, then info. Without the dataset: skipped (exit 77).
source "$(dirname "$0")/lib.sh"

ds=${CRAWLSIM_DATASETS:-$SRC/../shared/datasets}
export CRAWLSIM_DATASETS=$ds # crawlsim knows no default folder
# (every file graphs/webkb.ini reads, not only the folder: with one missing the test is skipped,
# never run in part)
for u in cornell texas washington wisconsin; do
    for f in "$u.cites.gz" "$u.content.gz"; do
        [ -f "$ds/webkb/$f" ] || skip "no WebKB file $ds/webkb/$f"
    done
done
run 2 import "$SRC/graphs/webkb.ini" -o webkb.h5 -q || fail "import webkb"
out=$(run 2 info webkb.h5) || fail "info webkb"
grep -q "^pages 877$" <<< "$out" && pass "webkb pages" || fail "webkb pages: $out"
grep -q "^links 1516 " <<< "$out" && pass "webkb links" || fail "webkb links: $out"
grep -q "host names yes, topic names yes" <<< "$out" && pass "webkb names" || fail "webkb names: $out"
finish
