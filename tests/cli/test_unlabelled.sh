#!/usr/bin/env bash
# Crawling a graph without labels (issue 19; LAW's crawls have none): the default seeds (relevant
# pages) fail with a message that says what to do; seed pages by in-degree (checked against an
# independent count, the same on 1 and 2 ranks), at random and from a file; run.relevance =
# none is a coverage crawl (every fetched page counts), which the policies that learn from
# relevance refuse. A 300-page graph imported here; 8 short MPI runs (about 13 s on 2 busy cores,
# most of it MPI start-up).
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
PY=/usr/bin/python3

# page i links to i+1, to 7i mod 300, to 5 and 9 (hubs), and the even pages to 200
$PY - > edges.txt <<'PYEOF'
for i in range(300):
    for t in {(i + 1) % 300, (7 * i) % 300, 5, 9} | ({200} if i % 2 == 0 else set()):
        print(i, t)
PYEOF
printf '[import]\nedges = edges.txt\nhosts = per-page\n' > g.ini
run 1 -q import g.ini -o g.h5 || fail "import"
common=(--set run.graph=g.h5 --set run.pages=60 --set crawl.bandwidth=10 --set run.trace=true)

expect_exit 1 1 "run.seed_pages = random, in-degree or file" run "${common[@]}" -o bad.h5
expect_exit 1 1 "run.policy = best-first learns from relevance" run "${common[@]}" --set run.relevance=none \
    --set run.policy=best-first -o bad.h5

cover=(--set run.relevance=none --set run.policy=random)
for np in 1 2; do
    out=$(run $np run "${common[@]}" "${cover[@]}" --set run.seed_pages=in-degree --set run.seeds=3 -o deg$np.h5 2>&1) ||
        fail "in-degree seeds, $np ranks: $out"
done
# (random seeds go through the same merge across ranks as in-degree's: checked on 1 rank)
run 1 -q run "${common[@]}" "${cover[@]}" --set run.seed_pages=random --set run.seeds=4 -o rnd1.h5 > /dev/null ||
    fail "random seeds"
grep -q "fetched 60, relevant 60 (harvest rate 1.0000)" <<< "$out" && pass "relevance = none: every page counts" ||
    fail "coverage crawl summary: $out"
compare deg1.h5 deg2.h5 --only /trace && pass "in-degree seeds: the same crawl on 1 and 2 ranks" ||
    fail "in-degree seeds: 1 and 2 ranks differ: $compared"
printf '# two seeds\n17\n  250\n17\n' > seeds.txt
run 1 -q run "${common[@]}" "${cover[@]}" --set run.policy=tree-random --set run.seed_pages=file \
    --set run.seed_file=seeds.txt -o file.h5 > /dev/null || fail "seeds from a file"

# the pages fetched at tick 0 (the seeds) of each run, sorted; and the 3 pages of largest
# in-degree of the imported graph (self-loops dropped, ties by id) by a count of our own
declare -A seeds
while read -r name list; do seeds[$name]=$list; done < <($PY - <<'PYEOF'
import h5py, numpy as np
for f in ["deg1", "deg2", "rnd1", "file"]:
    t = h5py.File(f + ".h5")["trace"]
    print(f, " ".join(str(p) for p in sorted(t["page"][t["tick"][:] == 0])))
c = np.bincount(h5py.File("g.h5")["links/targets"][:], minlength=300)
print("want", " ".join(str(p) for p in sorted(np.lexsort((np.arange(300), -c))[:3])))
PYEOF
)
for np in 1 2; do
    [ "${seeds[deg$np]}" = "${seeds[want]}" ] && pass "in-degree seeds on $np rank(s): ${seeds[want]}" ||
        fail "in-degree seeds on $np: '${seeds[deg$np]}', want '${seeds[want]}'"
done
[ "$(wc -w <<< "${seeds[rnd1]}")" = 4 ] && [ "${seeds[rnd1]}" != "${seeds[deg1]}" ] &&
    pass "random seeds: 4 (${seeds[rnd1]})" || fail "random seeds: '${seeds[rnd1]}'"
[ "${seeds[file]}" = "17 250" ] && pass "seeds from a file (tree-random)" || fail "file seeds: ${seeds[file]}"

printf '17\n300\n' > seeds_bad.txt
expect_exit 1 1 "seeds_bad.txt:2: '300' is not a page id of the graph" run "${common[@]}" "${cover[@]}" \
    --set run.seed_pages=file --set run.seed_file=seeds_bad.txt -o bad.h5
no_leftovers "bad.h5"
finish
