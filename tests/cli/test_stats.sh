#!/usr/bin/env bash
# crawlsim stats: the table of a graph file (with the discovery crawls of all three orders) is the
# same on 1, 2 and 3 ranks and 1 or 2 threads; a
# spec measured in memory gives the table of its generated file; the sampled figures of a spec
# are rank-invariant; bad arguments and a graph too large are clear errors. The figures
# themselves are checked against an independent computation (stats_oracle.py).
source "$(dirname "$0")/lib.sh"

spec="$SRC/graphs/tiny.ini"
run 1 gen "$spec" --set gen.pages=2000 -o w.h5 -q || fail "gen"
OMP_NUM_THREADS=1 run 1 stats w.h5 -o one.tsv > one.out || fail "stats on 1 rank"
OMP_NUM_THREADS=2 run 2 stats w.h5 -o two.tsv > /dev/null || fail "stats on 2 ranks x 2 threads"
OMP_NUM_THREADS=1 run 3 stats w.h5 -o three.tsv > /dev/null || fail "stats on 3 ranks"
[ -s one.tsv ] && cmp -s one.tsv two.tsv && cmp -s one.tsv three.tsv &&
    pass "table identical on 1, 2 (2 threads) and 3 ranks" || fail "tables differ: $(diff one.tsv two.tsv | head)"
grep -q "^bowtie.scc	" one.tsv && grep -q "^curve.4.40	" one.tsv && pass "table rows" ||
    fail "table rows missing: $(head -3 one.tsv)"
# the figures against an independent computation (tolerances: stats_oracle.py's header)
PY=/usr/bin/python3
if "$PY" -c "import h5py, numpy" 2> /dev/null; then
    "$PY" "$SRC/tests/cli/stats_oracle.py" w.h5 one.tsv > oracle.out 2>&1 && pass "oracle agrees ($(grep -c '^ok:' oracle.out) figures)" ||
        fail "oracle: $(grep -v '^ok:' oracle.out)"
    # the three discovery orders are in the table and replayed by the oracle
    for o in bfs indeg random; do
        grep -q "^ok: $o curve of seed 4 " oracle.out || fail "oracle did not replay the $o crawls: $(grep curve oracle.out | head -3)"
    done
    grep -q "^indeg.curve.4.40	" one.tsv && grep -q "^random.curve.4.40	" one.tsv && pass "in-degree-first and random curves" ||
        fail "curves of the other orders missing"
    # the oracle can fail, each of these figures on its own line, in one run (an oracle run takes
    # seconds): a random crawl's curve changed at one point, an in-degree-first row, an exact
    # figure moved in its 6th digit (reciprocity), the links into the top 1 % (in.top1) and among
    # them (in.club) and from the pages with one in-link (leaf.top1), the links repeating a target
    # of their block (block16.repeat, block4096.repeat), the pages with one, two, 3 to 9 and 10 or
    # more in-links (in.one, in.two, in.few, in.ten), the lone pages' parents (lone.parents, lone.top1,
    # lone.parent_in), the link-rich threshold (out.rich), the first 1 % fetches' figures
    # (random.rich1, bfs.rich_new1, indeg.other_new1) and by the fetched page's in-degree
    # (random.fetch_in10, bfs.new_in100), the log out-degree's share between hosts
    # (out.between_hosts), and the link overlap moved by 0.05 with its
    # interval
    sed -e 's/^\(random.curve.2.25\)\t[0-9.e-]*/\1\t0.5/' \
        -e 's/^indeg.known10\t\([0-9.]*\)/indeg.known10\t0.987654/' \
        -e 's/^reciprocity\t\([0-9.]*\)/reciprocity\t0.1234567/' \
        -e 's/^in.top1\t\([0-9.]*\)/in.top1\t0.1234567/' \
        -e 's/^in.club\t\([0-9.]*\)/in.club\t0.1234567/' \
        -e 's/^block16.repeat\t\([0-9.]*\)/block16.repeat\t0.1234567/' \
        -e 's/^block4096.repeat\t\([0-9.]*\)/block4096.repeat\t0.1234567/' \
        -e 's/^in.one\t\([0-9.]*\)/in.one\t0.1234567/' \
        -e 's/^in.two\t\([0-9.]*\)/in.two\t0.1234567/' \
        -e 's/^in.few\t\([0-9.]*\)/in.few\t0.1234567/' \
        -e 's/^in.ten\t\([0-9.]*\)/in.ten\t0.1234567/' \
        -e 's/^leaf.top1\t\([0-9.]*\)/leaf.top1\t0.1234567/' \
        -e 's/^lone.parents\t\([0-9.]*\)/lone.parents\t0.1234567/' \
        -e 's/^lone.top1\t\([0-9.]*\)/lone.top1\t0.1234567/' \
        -e 's/^lone.parent_in\t\([0-9.]*\)/lone.parent_in\t1234567/' \
        -e 's/^out.rich\t\([0-9.]*\)/out.rich\t1234567/' \
        -e 's/^random.rich1\t\([0-9.]*\)/random.rich1\t0.1234567/' \
        -e 's/^bfs.rich_new1\t\([0-9.]*\)/bfs.rich_new1\t1.234567/' \
        -e 's/^indeg.other_new1\t\([0-9.]*\)/indeg.other_new1\t1.234567/' \
        -e 's/^random.fetch_in10\t\([0-9.]*\)/random.fetch_in10\t0.1234567/' \
        -e 's/^bfs.new_in100\t\([0-9.]*\)/bfs.new_in100\t1.234567/' \
        -e 's/^out.between_hosts\t\([0-9.]*\)/out.between_hosts\t0.1234567/' one.tsv |
        awk -F'\t' 'BEGIN{OFS="\t"} $1=="overlap"{$2+=0.05; $3+=0.05; $4+=0.05} {print}' > bad.tsv
    if ! "$PY" "$SRC/tests/cli/stats_oracle.py" w.h5 bad.tsv > bad.out 2>&1; then
        for want in "random curve of seed 2" indeg.known10 reciprocity in.top1 in.club \
            block16.repeat block4096.repeat in.one in.two in.few in.ten leaf.top1 lone.parents lone.top1 \
            lone.parent_in out.rich random.rich1 bfs.rich_new1 indeg.other_new1 random.fetch_in10 \
            bfs.new_in100 overlap out.between_hosts; do
            grep -q "FAIL: $want" bad.out && pass "oracle rejects a wrong $want" ||
                fail "oracle accepted a wrong $want: $(tail -3 bad.out)"
        done
    else
        fail "oracle accepted a table with twenty-three wrong figures"
    fi
    # the share of pages without out-links between hosts, on a world that has such pages (the
    # one above has none: that row is NaN there), against the oracle, and a wrong one rejected
    run 1 gen "$spec" --set gen.pages=2000 --set gen.dangling=0.3 -o wd.h5 -q || fail "gen with dangling pages"
    OMP_NUM_THREADS=1 run 2 stats wd.h5 --sources 4 --cluster-pages 100 -o wd.tsv > /dev/null || fail "stats of wd.h5"
    "$PY" "$SRC/tests/cli/stats_oracle.py" wd.h5 wd.tsv > wd.out 2>&1 && grep -q "^ok: out.zero_between_hosts [0-9]" wd.out &&
        pass "oracle agrees on a world with dangling pages ($(grep '^ok: out.zero_between_hosts' wd.out))" ||
        fail "oracle on wd.h5: $(grep -v '^ok:' wd.out | head -3; grep zero_between wd.out)"
    sed 's/^out.zero_between_hosts\t\([0-9.]*\)/out.zero_between_hosts\t0.1234567/' wd.tsv > wdbad.tsv
    ! "$PY" "$SRC/tests/cli/stats_oracle.py" wd.h5 wdbad.tsv > wdbad.out 2>&1 && grep -q "FAIL: out.zero_between_hosts" wdbad.out &&
        pass "oracle rejects a wrong out.zero_between_hosts" || fail "oracle accepted a wrong out.zero_between_hosts"
    for k in in.top1 in.club leaf.top1 block16.repeat block256.repeat block4096.repeat in.one in.two in.few in.ten lone.parents \
        lone.top1 lone.parent_in overlap out.rich bfs.rich1 bfs.rich_new1 bfs.other_new1 indeg.rich1 \
        indeg.rich_new1 indeg.other_new1 random.rich1 random.rich_new1 random.other_new1 \
        bfs.fetch_in1 bfs.fetch_in2 bfs.fetch_in10 bfs.fetch_in100 bfs.new_in10 indeg.fetch_in100 \
        indeg.new_in10 random.fetch_in2 random.new_in1 random.new_in2 random.new_in100 \
        out.between_hosts out.zero_between_hosts; do
        grep -q "^ok: $k " oracle.out && pass "oracle checks $k" ||
            fail "$k not checked: $(grep -E "$k" oracle.out | head -3)"
    done
else
    fail "needs /usr/bin/python3 with h5py and numpy (tools/install-deps)"
fi
# the spec measured in memory: the same table as its generated file
OMP_NUM_THREADS=1 run 2 stats "$spec" --set gen.pages=2000 -o spec.tsv > /dev/null || fail "stats of the spec"
cmp -s one.tsv spec.tsv && pass "spec in memory == its graph file" || fail "spec differs: $(diff one.tsv spec.tsv | head)"
# another sampling seed changes the sampled figures, not the exact ones
run 1 stats w.h5 --stats-seed 2 -o seed2.tsv > /dev/null || fail "stats --stats-seed 2"
a=$(grep "^clustering	" one.tsv) b=$(grep "^clustering	" seed2.tsv)
[ -n "$a" ] && [ "$a" != "$b" ] && [ "$(grep '^reciprocity	' one.tsv)" = "$(grep '^reciprocity	' seed2.tsv)" ] &&
    pass "sampling seed moves sampled figures only" || fail "sampling seed: $a / $b"
# 0 sources, clustering pages and seeds: those rows left out, the others unchanged
run 2 stats w.h5 --sources 0 --cluster-pages 0 --bfs-seeds 0 -o none.tsv > /dev/null || fail "stats without sampled items"
grep -q "^dist.mean	nan	" none.tsv && grep -q "^clustering	nan	" none.tsv && grep -q "^bfs.known1	nan	" none.tsv &&
    ! grep -q "^curve" none.tsv && [ "$(grep '^bowtie.in	' none.tsv)" = "$(grep '^bowtie.in	' one.tsv)" ] &&
    pass "--sources/--cluster-pages/--bfs-seeds 0 leave their rows out" || fail "zero items: $(grep -E '^(dist|clust|bfs)' none.tsv)"
# more seeds only add crawls: the first 5 seeds' curves of every order as with 5, the 256th there
run 2 stats w.h5 --sources 0 --cluster-pages 0 --bfs-seeds 256 -o many.tsv > /dev/null || fail "stats --bfs-seeds 256"
first5() { grep -E '^(|indeg\.|random\.)curve\.[0-4]\.' "$1"; }
[ -n "$(first5 one.tsv)" ] && [ "$(first5 one.tsv)" = "$(first5 many.tsv)" ] &&
    grep -q "^random.curve.255.40	" many.tsv && ! grep -q "^curve.256\." many.tsv &&
    pass "--bfs-seeds 256: the first 5 seeds' curves unchanged, 256 seeds crawled" ||
    fail "--bfs-seeds 256: $(diff <(first5 one.tsv) <(first5 many.tsv) | head -3)"
# --orders: the orders left out have no rows nor curves, the others are unchanged
run 2 stats w.h5 --orders indeg --sources 0 --cluster-pages 0 -o indeg.tsv > /dev/null || fail "stats --orders indeg"
grep -q "^bfs.known1	nan	" indeg.tsv && grep -q "^random.known1	nan	" indeg.tsv && ! grep -q "^curve\.\|^random.curve" indeg.tsv &&
    [ "$(grep '^indeg\.' indeg.tsv)" = "$(grep '^indeg\.' one.tsv)" ] &&
    pass "--orders indeg: its rows as with every order, the others left out" || fail "--orders indeg: $(grep -E '^(bfs|indeg|random)\.known1' indeg.tsv)"
for bad in "" "bfs,bfs" "dfs" "bfs,"; do
    run 1 stats w.h5 --orders "$bad" > /dev/null 2> err.txt
    [ $? -eq 2 ] && grep -q -- "--orders" err.txt || fail "--orders '$bad' accepted: $(cat err.txt)"
done
pass "--orders refuses empty, repeated, unknown and trailing-comma lists"
# sampled spec: rank invariant, whole-graph rows not available
OMP_NUM_THREADS=1 run 1 stats "$spec" --sampled --sample 3000 -o s1.tsv > s1.out || fail "sampled on 1 rank"
OMP_NUM_THREADS=2 run 2 stats "$spec" --sampled --sample 3000 -o s2.tsv > /dev/null || fail "sampled on 2 ranks"
cmp -s s1.tsv s2.tsv && pass "sampled table identical on 1 and 2 ranks" || fail "sampled differs: $(diff s1.tsv s2.tsv | head)"
grep -q "^bowtie.scc	nan	" s1.tsv && grep -q "^in.top1	nan	" s1.tsv && grep -q "^sampled	1	" s1.tsv && grep -qE "^gap8	0\.[0-9]+	" s1.tsv &&
    pass "sampled: whole-graph rows nan, link rows present" || fail "sampled rows: $(cat s1.tsv | head -40)"
# the sampled estimates of the 2000-page world against its exact figures: within 3 of their
# 95 % half-widths (5.9 standard deviations; a sample of 20000 draws with replacement)
OMP_NUM_THREADS=1 run 2 stats "$spec" --set gen.pages=2000 --sampled --sample 20000 -o s2000.tsv > /dev/null ||
    fail "sampled 2000-page world"
/usr/bin/python3 - one.tsv s2000.tsv > sampled.out << 'EOP' && pass "sampled estimates cover the exact figures" || fail "sampled: $(cat sampled.out)"
import sys
def read(p):
    return {l.split("\t")[0]: [float(x) for x in l.split("\t")[1:4]] for l in list(open(p))[1:]}
e, s = read(sys.argv[1]), read(sys.argv[2])
bad = 0
for k in ("out.mean", "in.mean", "out.zero", "gap4", "gap8", "gap12", "forward8", "within_host",
          "reciprocity", "topic.same", "topic.base", "topic.lift", "rel.link", "rel.base"):
    v, lo, hi = s[k]
    tol = 3 * max(v - lo, hi - v, 1e-12)
    ok = abs(v - e[k][0]) <= tol
    bad += not ok
    print(("ok" if ok else "FAIL"), k, v, e[k][0], tol)
for k in ("host.mean", "host.median", "host.max"):
    ok = s[k][0] == e[k][0]
    bad += not ok
    print(("ok" if ok else "FAIL"), k, s[k][0], e[k][0])
sys.exit(1 if bad else 0)
EOP
# errors
run 1 stats w.h5 --set gen.pages=5 > /dev/null 2> err.txt
[ $? -eq 2 ] && grep -q "apply to a spec" err.txt && pass "--set on a graph file refused" || fail "--set on a graph: $(cat err.txt)"
run 1 stats w.h5 --bfs-seeds 257 > /dev/null 2> err.txt
[ $? -eq 2 ] && grep -q "bfs-seeds" err.txt && pass "--bfs-seeds 257 refused" || fail "--bfs-seeds 257: $(cat err.txt)"
run 1 info w.h5 --sources 3 > /dev/null 2> err.txt
[ $? -eq 2 ] && grep -q "applies to crawlsim stats only" err.txt && pass "stats option on info refused" ||
    fail "--sources on info: $(cat err.txt)"
# a graph file beyond the whole-graph limit is refused (the limit lowered by the test hook)
CRAWLSIM_STATS_MAX_PAGES=1000 run 2 stats w.h5 > /dev/null 2> err.txt
[ $? -eq 1 ] && grep -q "handle up to 1000" err.txt && pass "a graph beyond the limit refused" || fail "limit: $(cat err.txt)"
CRAWLSIM_STATS_MAX_PAGES=1000 run 2 stats "$spec" --set gen.pages=2000 --sample 500 -o hook.tsv > /dev/null &&
    grep -q "^sampled	1	" hook.tsv && pass "a spec beyond the limit is sampled (hook)" || fail "spec beyond the hook's limit"
# beyond the whole-graph limit a spec is sampled
run 1 stats "$spec" --set gen.pages=30000000 --sample 1000 -o big.tsv > big.out 2> err.txt || fail "30M pages: $(cat err.txt)"
grep -q "^sampled	1	" big.tsv && grep -q "not available by sampling" big.out && pass "a world beyond the limit is sampled" ||
    fail "30M pages: $(cat big.out)"
finish
