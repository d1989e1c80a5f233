#!/usr/bin/env bash
# crawlsim stats on real graphs ($CRAWLSIM_DATASETS, default ../shared/datasets): a 3000-page piece
# of cnr-2000 (its first pages, the links among them) against the oracle on every page and source,
# and the whole of uk-2007-05@100000 (LAW's BVGraph), cnr-2000 and wikispeedia (its categories as
# topics) against the oracle (exact figures exactly, sampled ones within its tolerances: the header
# of stats_oracle.py). Without one of the files: skipped (exit 77).
source "$(dirname "$0")/lib.sh"

ds=${CRAWLSIM_DATASETS:-$SRC/../shared/datasets}
export CRAWLSIM_DATASETS=$ds
for f in law-webgraph/uk-2007-05_100000.graph law-webgraph/uk-2007-05_100000.properties \
    law-webgraph/cnr-2000.adj.gz wikispeedia/links.tsv.gz wikispeedia/articles.tsv wikispeedia/categories.tsv; do
    [ -f "$ds/$f" ] || skip "no dataset file $ds/$f"
done
PY=/usr/bin/python3
"$PY" -c "import h5py, numpy" 2> /dev/null || fail "needs /usr/bin/python3 with h5py and numpy (tools/install-deps)"
export OMP_NUM_THREADS=1
RUN_TIMEOUT=600

# a piece of cnr-2000: pages 0..2999 and the links among them
zcat "$ds/law-webgraph/cnr-2000.adj.gz" | head -n 3000 |
    awk '{ for (i = 2; i <= NF; i++) if ($i < 3000) print NR - 1, $i }' > piece.txt
cat > piece.ini << 'EOI'
[import]
edges = piece.txt
edge_format = pairs
node_ids = integer
node_count = 3000
self_loops = drop
hosts = per-page
EOI
run 1 import piece.ini -o piece.h5 -q || fail "import the cnr-2000 piece"
run 2 stats piece.h5 -o piece.tsv > /dev/null || fail "stats of the piece"
# each oracle (Python, one core) runs in the background while the next graph is imported and
# measured; the verdicts are read at the end
"$PY" "$SRC/tests/cli/stats_oracle.py" piece.h5 piece.tsv > piece.oracle 2>&1 &
oracles=("$!:piece")

for g in uk-2007-05 cnr-2000 wikispeedia; do
    run 2 import "$SRC/graphs/$g.ini" -o $g.h5 -q || fail "import $g"
    run 2 stats $g.h5 -o $g.tsv > $g.out || fail "stats $g"
    # the in-degree-first and random crawls replayed from the first seed (Python: a minute each)
    "$PY" "$SRC/tests/cli/stats_oracle.py" $g.h5 $g.tsv --order-seeds 1 > $g.oracle 2>&1 &
    oracles+=("$!:$g")
done
for o in "${oracles[@]}"; do
    g=${o#*:}
    if wait "${o%%:*}"; then
        pass "$g: oracle agrees ($(grep -c '^ok:' $g.oracle) figures)"
    else
        fail "$g: $(grep -v '^ok:' $g.oracle)"
    fi
done
finish
