#!/usr/bin/env bash
# crawlsim import from the command line: malformed input rejected with file and line, on every
# rank, without partial output (a bundled dataset end to end: test_import_datasets.sh).
source "$(dirname "$0")/lib.sh"

# a small edge list of our own, then the same with a bad line
printf '0 1\n1 2\n2 0\n2 2\n' > edges.txt
printf '[import]\nedges = edges.txt\nhosts = per-page\n' > ok.ini
run 2 import ok.ini -o ok.h5 -q || fail "import a 3-page edge list"
out=$(run 1 info ok.h5)
grep -q "^pages 3$" <<< "$out" && grep -q "^links 3 " <<< "$out" && pass "3 pages, 3 links (self loop dropped)" || fail "small import: $out"
grep -q "^links within topic - (no topics)$" <<< "$out" && pass "info: no topics, no fraction within topic" ||
    fail "info on a graph without topics: $out"

# the graph's source names the spec: whole when it fits the attribute's 255 bytes, else
# "import:..." and the path's last 245 bytes (the cut marked, never silent)
grep -q "^source import:ok.ini, seed" <<< "$out" && pass "source: import:ok.ini" || fail "source of a short spec path: $out"
deep=$(printf 'd%059d/' 1 2 3 4 5)
mkdir -p "$deep" && cp edges.txt ok.ini "$deep"
run 1 import "${deep}ok.ini" -o deep.h5 -q || fail "import from a spec path of ${#deep} bytes"
src=$(run 1 info deep.h5 | sed -n 's/^source \(.*\), seed .*/\1/p')
want="import:...${deep: -239}ok.ini"
[ "$src" = "$want" ] && [ "${#src}" = 255 ] && pass "source of a ${#deep}-byte spec path: its last 245 bytes after import:..." ||
    fail "source of a long spec path: '$src' (${#src} bytes), want '$want'"

# a temporary left by a killed import (SIGKILL: no handler ran) is named at the next import
touch .ok2.h5.tmp.4242
out=$(run 1 import ok.ini -o ok2.h5 2>&1) || fail "import beside a stale temporary: $out"
grep -q "warning: .ok2.h5.tmp.4242 (0.0 MiB) is the temporary of an earlier write of ok2.h5 that was killed" <<< "$out" &&
    pass "a stale temporary is named" || fail "stale temporary not named: $out"
rm -f .ok2.h5.tmp.4242

printf '0 1\n1 x\n' > bad.txt
printf '[import]\nedges = bad.txt\nhosts = per-page\n' > bad.ini
expect_exit 1 2 "bad.txt:2: .*non-numeric node id 'x'" import bad.ini -o bad.h5
printf '0 1\n-4 2\n' > neg.txt
printf '[import]\nedges = neg.txt\nhosts = per-page\n' > neg.ini
expect_exit 1 2 "neg.txt:2" import neg.ini -o neg.h5
printf '[import]\nedges = nothere.txt\nhosts = per-page\n' > missing.ini
expect_exit 1 2 "nothere.txt" import missing.ini -o missing.h5
head -c 3000 /dev/urandom | gzip > garbage.txt.gz
printf '[import]\nedges = garbage.txt.gz\nhosts = per-page\n' > garbage.ini
expect_exit 1 2 "garbage.txt.gz" import garbage.ini -o garbage.h5
printf '[import]\nedgez = edges.txt\n' > typo.ini
expect_exit 1 2 "did you mean 'import.edges'" import typo.ini -o typo.h5
expect_exit 2 2 "needs an output file" import ok.ini
no_leftovers "bad.h5"
no_leftovers "neg.h5"
no_leftovers "garbage.h5"
finish
