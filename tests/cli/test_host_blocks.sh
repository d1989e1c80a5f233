#!/usr/bin/env bash
# crawlsim import with hosts = blocks (graphs numbered in URL order without URLs): page i's host is
# page i's host in host_spec's world at the graph's page count. The hosts of an imported graph
# equal those of the spec's generated world page for page, through the serial (adjacency-indexed)
# and the every-rank (pairs) import, at 1, 2 and 3 ranks; per-page hosts without the option; bad
# keys are clear errors.
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
"$PY" -c "import h5py, numpy" 2> /dev/null || fail "needs /usr/bin/python3 with h5py and numpy (tools/install-deps)"
spec="$SRC/graphs/tiny.ini"
# a 3000-page "real" graph (the tiny world at another seed than its spec's), written as pairs and as adjacency lists
run 1 gen "$spec" --set gen.pages=3000 --set gen.seed=11 -o real.h5 -q || fail "gen the graph"
# the reference: the host spec's own world at 3000 pages
run 1 gen "$spec" --set gen.pages=3000 -o ref.h5 -q || fail "gen the host spec's world"
"$PY" - << 'EOP' || fail "write the edge lists"
import h5py, numpy as np
f = h5py.File("real.h5", "r")
off = f["links/offsets"][:]
tg = f["links/targets"][:]
with open("pairs.txt", "w") as p, open("adj.txt", "w") as a:
    for u in range(len(off) - 1):
        t = tg[off[u]:off[u + 1]]
        a.write(" ".join(map(str, [len(t)] + t.tolist())) + "\n")
        for v in t:
            p.write(f"{u} {v}\n")
EOP
cat > pairs.ini << EOI
[import]
edges = pairs.txt
edge_format = pairs
node_ids = integer
node_count = 3000
hosts = blocks
host_spec = $spec
EOI
cat > adj.ini << EOI
[import]
edges = adj.txt
edge_format = adjacency-indexed
node_ids = integer
hosts = blocks
host_spec = $spec
EOI
same_hosts() { # FILE: its hosts equal the reference's, page for page, and so does the host count
    "$PY" - "$1" << 'EOP'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File("ref.h5", "r")
ha, hb = a["pages/host"][:], b["pages/host"][:]
ok = ha.shape == hb.shape and np.array_equal(ha, hb) and int(a.attrs["n_hosts"]) == int(b.attrs["n_hosts"])
ok = ok and int(a.attrs["n_hosts"]) < 3000 and a["links/targets"].shape == h5py.File("real.h5", "r")["links/targets"].shape
print(sys.argv[1], "hosts", int(a.attrs["n_hosts"]), "reference", int(b.attrs["n_hosts"]), "same" if ok else "DIFFERENT")
sys.exit(0 if ok else 1)
EOP
}
for np in 1 2 3; do
    for kind in pairs adj; do
        run $np import $kind.ini -o $kind$np.h5 -q || fail "import $kind at $np ranks"
        same_hosts $kind$np.h5 > same.out || fail "$kind at $np ranks: $(cat same.out)"
    done
done
pass "hosts = blocks: the host spec's hosts page for page (pairs and adjacency, 1, 2 and 3 ranks)"
# without the option each page is its own host (the test above fails when blocks are not laid out)
run 2 import pairs.ini --set import.hosts=per-page --set import.host_spec= -o per.h5 -q || fail "per-page import"
! same_hosts per.h5 > /dev/null && "$PY" -c "import h5py; assert int(h5py.File('per.h5','r').attrs['n_hosts']) == 3000" &&
    pass "hosts = per-page: one host a page" || fail "per-page hosts"
# errors
run 1 import pairs.ini --set import.host_spec= -o e1.h5 -q 2> err.txt
[ $? -ne 0 ] && grep -q "hosts = blocks needs host_spec" err.txt && [ ! -e e1.h5 ] && pass "blocks without host_spec refused" ||
    fail "blocks without host_spec: $(cat err.txt)"
run 1 import pairs.ini --set import.hosts=per-page -o e2.h5 -q 2> err.txt
[ $? -ne 0 ] && grep -q "host_spec applies to hosts = blocks only" err.txt && pass "host_spec without blocks refused" ||
    fail "host_spec without blocks: $(cat err.txt)"
for np in 1 2; do
    for kind in pairs adj; do
        run $np import $kind.ini --set import.host_spec=no-such.ini -o e3.h5 -q 2> err.txt
        [ $? -ne 0 ] && grep -q "no-such.ini" err.txt && [ ! -e e3.h5 ] ||
            fail "$kind at $np ranks, a missing host_spec: $(cat err.txt)"
    done
done
pass "a missing host_spec file refused, naming it"
finish
