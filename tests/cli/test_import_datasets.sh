#!/usr/bin/env bash
# crawlsim import from the command line on bundled datasets (WebKB; LAW's uk-2007-05@100000 as
# its publisher ships it, a BVGraph; ../shared/datasets or $CRAWLSIM_DATASETS) end to end: import,
# then info. Without the datasets: skipped (exit 77).
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
for f in law-webgraph/uk-2007-05_100000.graph law-webgraph/uk-2007-05_100000.properties; do
    [ -f "$ds/$f" ] || skip "no LAW file $ds/$f"
done
run 2 import "$SRC/graphs/webkb.ini" -o webkb.h5 -q || fail "import webkb"
out=$(run 2 info webkb.h5) || fail "info webkb"
grep -q "^pages 877$" <<< "$out" && pass "webkb pages" || fail "webkb pages: $out"
grep -q "^links 1516 " <<< "$out" && pass "webkb links" || fail "webkb links: $out"
grep -q "host names yes, topic names yes" <<< "$out" && pass "webkb names" || fail "webkb names: $out"
# LAW's BVGraph: the counts of PROVENANCE.md (3,050,615 arcs, 15,670 self-loops dropped)
out=$(run 2 import "$SRC/graphs/uk-2007-05.ini" -o uk.h5 2>&1) || fail "import uk-2007-05: $out"
grep -q "15670 self-loops dropped, 0 duplicate links merged" <<< "$out" && pass "uk-2007-05: self-loops reported" ||
    fail "uk-2007-05 import log: $out"
out=$(run 2 info uk.h5) || fail "info uk-2007-05"
grep -q "^pages 100000$" <<< "$out" && grep -q "^links 3034945 " <<< "$out" &&
    grep -q "^in-degree .* max 55252 " <<< "$out" && pass "uk-2007-05: pages, links, largest in-degree" ||
    fail "uk-2007-05 info: $out"
finish
