#!/usr/bin/env bash
# tools/twin-crawl on a small pair: a 3000-page "real" graph (the tiny world at another seed,
# imported from an edge list) and a "twin" (the tiny spec at 3000 pages), at 3 ranks. It
# must write its table, fragment and figure; every verdict in the fragment must follow from the
# measured figures and the stated tolerances; the real graph's hosts must be the twin's blocks; the
# controls (the real graph rewired) must keep what they claim to keep and change the links, the
# twin controls must be the twin with their key changed; a bad --pair is refused. (The figures
# of the real datasets are in docs/reports/realism.md.)
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
"$PY" -c "import h5py, numpy, matplotlib" 2> /dev/null ||
    fail "needs /usr/bin/python3 with h5py, numpy and matplotlib (tools/install-deps)"
command -v "$MPIEXEC" > /dev/null || fail "no $MPIEXEC"
run 1 gen "$SRC/graphs/tiny.ini" --set gen.pages=3000 --set gen.seed=11 -o real.h5 -q || fail "gen"
"$PY" - << 'EOP' || fail "edge list"
import h5py
f = h5py.File("real.h5", "r")
off, tg = f["links/offsets"][:], f["links/targets"][:]
with open("pairs.txt", "w") as p:
    for u in range(len(off) - 1):
        for v in tg[off[u]:off[u + 1]]:
            p.write(f"{u} {v}\n")
EOP
printf '[import]\nedges = pairs.txt\nedge_format = pairs\nnode_ids = integer\nnode_count = 3000\nhosts = per-page\n' > real.ini
# (with the out-degree following popularity, which the twin control popular-degree-0 turns off,
# and closed hosts, whose kept links the control closed-own-switched draws as their own)
sed 's/^pages = .*/pages = 3000\npopular_degree = 0.8\nout_hosts = 0.3/' "$SRC/graphs/tiny.ini" > twin.ini
grep -q "^popular_degree = 0.8" twin.ini && grep -q "^out_hosts = 0.3" twin.ini || fail "twin spec"
# the tool runs mpirun itself: its flags as the tests' (oversubscription)
export OMP_NUM_THREADS=1
timeout 600 "$PY" "$SRC/tools/twin-crawl" --bin "$BIN" --mpirun "$MPIEXEC" --work tw --out out --ranks 3 --fetch-share 0.05 --seeds 64 --worlds 3 \
    --pair "tiny,tiny 3000,$WORK/real.ini,$WORK/twin.ini" > tool.out 2>&1 || fail "twin-crawl: $(tail -5 tool.out; tail -20 tw/twin-crawl.log)"
[ -s tw/twin-crawl.tsv ] && [ -s out/realism/twin-crawl.md ] && [ -s out/realism/twin-crawl.png ] &&
    pass "table, fragment and figure written" || fail "outputs missing: $(ls -R tw out | head)"
"$PY" - << 'EOP' > check.out 2>&1 && pass "verdicts follow from the figures ($(grep -c . tw/twin-crawl.tsv) rows)" || fail "$(cat check.out)"
import math, h5py, numpy as np
rows = [l.rstrip("\n").split("\t") for l in open("tw/twin-crawl.tsv")][1:]
kinds = {r[1].split(".")[0] for r in rows}
assert kinds == {"known", "cut", "bpf", "lpf", "within_host", "first1", "between_hosts"}, kinds
# the first 1 % fetches' figures: each order's three rows and its eight by in-degree class, as
# crawlsim stats gave them
def stats(path):
    return {l.split("\t")[0]: float(l.split("\t")[1]) for l in list(open(path))[1:]}
sr, st = stats("tw/tiny-real.tsv"), stats("tw/tiny-twin.tsv")
same = lambda a, b: a == b or (math.isnan(a) and math.isnan(b))
first = [r for r in rows if r[1].startswith("first1.")]
assert len(first) == 3 * (3 + 8), first
assert sum(".fetch_in" in r[1] or ".new_in" in r[1] for r in first) == 24, first
for g, fig, P, real, twin, d, within in first:
    key = fig.split(".", 1)[1]
    assert within == "-" and same(float(real), sr[key]) and same(float(twin), st[key]), (fig, real, twin)
rows = [r for r in rows if not r[1].startswith("first1.")]
# the shares of variance between hosts: context, as crawlsim stats gave them for both graphs
between = [r for r in rows if r[1].startswith("between_hosts.")]
assert len(between) == 2, between
for g, fig, P, real, twin, d, within in between:
    key = {"between_hosts.out": "out.between_hosts", "between_hosts.zero": "out.zero_between_hosts"}[fig]
    assert within == "-" and same(float(real), sr[key]) and same(float(twin), st[key]), (fig, real, twin)
assert not math.isnan(float(between[0][3])), between  # the log out-degree's: defined here
rows = [r for r in rows if not r[1].startswith("between_hosts.")]
# the twin's worlds one by one: every order's six points in each of the 3 worlds, no verdict
wrows = [r for r in rows if ".world" in r[1]]
rows = [r for r in rows if ".world" not in r[1]]
assert len(wrows) == 3 * 6 * 3 and all(r[6] == "-" for r in wrows), len(wrows)
assert {r[2] for r in rows if r[1].startswith(("cut", "bpf", "lpf"))} == {"3"}
ctl = (".shuffled", ".block256", ".in-host", ".cross-host")  # known.ORDER.SHARE.CONTROL
tctl = (".popular-degree-0", ".menu", ".closed-own-switched", ".host-levels")  # a key changed
controls = [r for r in rows if r[1].endswith(ctl + tctl)]
rows = [r for r in rows if not r[1].endswith(ctl + tctl)]
assert {r[1].rsplit(".", 1)[1] for r in controls} == {c[1:] for c in ctl + tctl}, controls[:2]
assert len(controls) == 6 * 3 * 8, len(controls)
for g, fig, P, real, ctl, d, within in controls:
    real, ctl, d = float(real), float(ctl), float(d)
    assert within == "-" and 0 < ctl <= 1 and abs(d - (ctl - real) / real) < 1e-4 * max(1, abs(d))
for g, fig, P, real, twin, d, within in rows:
    real, twin, d = float(real), float(twin), float(d)
    if fig.startswith("lpf"):  # context, no target
        assert within == "-" and real > 0 and twin > 0, (fig, real, twin)
        continue
    if fig == "within_host":  # context, no target
        assert within == "-" and 0 < real <= 1 and 0 < twin <= 1, (real, twin)
        continue
    assert real > 0 or fig.startswith("bpf"), (fig, real)
    if real > 0:
        assert abs(d - (twin - real) / real) < 1e-4 * max(1, abs(d)), (fig, d)
        tol = 0.15 if fig.startswith("known") else 0.20
        assert within == ("yes" if abs(d) <= tol else "no"), (fig, d, within)
# the fragment's largest discovery difference per order is the largest of the table's points
md = open("out/realism/twin-crawl.md").read()
for o, label in (("bfs", "breadth-first"), ("indeg", "in-degree first"), ("random", "random")):
    ds = [float(r[5]) for r in rows if r[1].startswith(f"known.{o}.")]
    assert len(ds) == 6, (o, ds)
    worst = max(ds, key=abs)
    line = next(l for l in md.splitlines() if l.startswith(f"| tiny 3000 | {label} |"))
    assert f"{100 * worst:+.1f} %" in line, (line, worst)
    # the twin's point: the mean of its 3 worlds' means over 64 seeds each (world 0 the twin, 1
    # and 2 its spec at gen.seed + 1, + 2), its standard error that of those means; the real's
    # over its 64 seeds; the 95 % interval with Student's t at 2 degrees of freedom (4.303)
    k = [20, 23, 27, 30, 33, 37][[float(r[5]) for r in rows if r[1].startswith(f"known.{o}.")].index(worst)]
    pre = "curve." if o == "bfs" else f"{o}.curve."
    def seeds(path):
        v = [float(l.split("\t")[1]) for l in open(path) if l.startswith(pre) and l.split("\t")[0].endswith(f".{k}")]
        assert len(v) == 64, (path, len(v))
        return v
    def mse(v):
        m = sum(v) / len(v)
        return m, math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
    mr, er = mse(seeds("tw/tiny-real.tsv"))
    worlds = [sum(seeds(f"tw/tiny-{w}.tsv")) / 64 for w in ("twin", "world1", "world2")]
    mt, et = mse(worlds)
    assert abs((mt - mr) / mr - worst) < 1e-4 * max(1, abs(worst)), (mt, mr, worst)
    half = 4.303 * math.hypot(et, mt / mr * er) / mr
    assert f"[{100 * (worst - half):+.1f} %, {100 * (worst + half):+.1f} %]" in line, (line, half)
    side = "yes" if abs(worst) <= 0.15 else "no"
    want = (f"| undecided ({side}) |" if abs(worst) - half < 0.15 < abs(worst) + half
            else "| yes |" if side == "yes" else "| **no** |")
    assert line.endswith(want), (line, want)
    # each world's own largest difference in the worlds' table
    wl = next(l for l in md.splitlines() if l.startswith(f"| tiny 3000 | {label} |") and l != line)
    cells = wl.split("|")[3:-1]
    assert len(cells) == 3 + 1, wl
    per = [max((float(r[5]) for r in wrows if r[1].startswith(f"known.{o}.") and r[1].endswith(f".world{j}")), key=abs)
           for j in range(3)]
    assert [c.strip() for c in cells[:3]] == [f"{100 * d:+.1f} %" for d in per], (wl, per)
    assert cells[3].strip() == f"{sum(abs(d) <= 0.15 for d in per)} of 3", wl
# the real graph's hosts are the twin's blocks, page for page
a, b = h5py.File("tw/tiny-real.h5", "r"), h5py.File("tw/tiny-twin.h5", "r")
assert np.array_equal(a["pages/host"][:], b["pages/host"][:])
# the twin controls: the twin's pages and hosts, the key changed in the spec, other links
for name, key in (("popular-degree-0", "popular_degree = 0"), ("menu", "template_menu = true"),
                  ("closed-own-switched", "closed_own = true"), ("host-levels", "host_degree = 0.6999")):
    c = h5py.File(f"tw/tiny-{name}.h5", "r")
    assert np.array_equal(c["pages/host"][:], b["pages/host"][:]), name
    spec = c.attrs["spec"]
    spec = spec.decode() if isinstance(spec, bytes) else str(spec)
    assert key in spec, (name, key)
    assert not np.array_equal(c["links/targets"][:], b["links/targets"][:]), name
assert int(a.attrs["n_hosts"]) < 3000
# the controls: the real graph's pages, its links' targets moved (among all links, or among a
# block of 256 sources), each page's out-degree and each target's in-degree at most the real
# ones, and the links dropped (repeats, self links) the only difference in the counts
def links(f):
    off, tg = f["links/offsets"][:], f["links/targets"][:]
    return off, tg, np.repeat(np.arange(len(off) - 1), np.diff(off))
ro, rt, rs = links(a)
n = len(ro) - 1
for name, block in (("shuffled", n), ("block256", 256)):
    c = h5py.File(f"tw/tiny-{name}.h5", "r")
    co, ct, cs = links(c)
    assert int(c.attrs["n_links"]) == len(ct) < len(rt)
    assert np.array_equal(c["pages/host"][:], a["pages/host"][:])
    assert np.all(np.diff(co) <= np.diff(ro)) and not np.any(cs == ct)
    for b in range(0, n, block):  # each block's targets: a sub-multiset of the real block's
        rb = np.bincount(rt[(rs >= b) & (rs < b + block)], minlength=n)
        cb = np.bincount(ct[(cs >= b) & (cs < b + block)], minlength=n)
        assert np.all(cb <= rb), (name, b)
    same = np.mean([np.array_equal(rt[ro[u]:ro[u + 1]], ct[co[u]:co[u + 1]]) for u in range(n)
                    if ro[u + 1] - ro[u] > 1])
    assert same < 0.2, (name, same)
    assert (len(rt) - len(ct)) / len(rt) < 0.5, name
# in-host and cross-host: one kind of link moved, the other kept link for link; each host's links
# inside it keep their targets (as a multiset), and the links between hosts theirs
hp = a["pages/host"][:]
rin = hp[rs] == hp[rt]
for name in ("in-host", "cross-host"):
    c = h5py.File(f"tw/tiny-{name}.h5", "r")
    co, ct, cs = links(c)
    assert int(c.attrs["n_links"]) == len(ct) <= len(rt) and not np.any(cs == ct)
    assert np.all(np.diff(co) <= np.diff(ro))
    cin = hp[cs] == hp[ct]
    moved, kept = (rin, ~rin) if name == "in-host" else (~rin, rin)
    ckept = ~cin if name == "in-host" else cin
    key = lambda s_, t_: set((s_ * n + t_).tolist())
    assert key(rs[kept], rt[kept]) <= key(cs, ct), name  # the other kind kept, link for link
    if name == "in-host":  # a move inside a host stays inside: the links between are the real ones
        assert key(cs[ckept], ct[ckept]) == key(rs[kept], rt[kept]), name
        assert not np.any(ckept & ~np.isin(cs * n + ct, rs * n + rt)), name
        for h in np.unique(hp):  # each host's inside links: targets a sub-multiset of the real
            rb = np.bincount(rt[rin & (hp[rs] == h)], minlength=n)
            cb = np.bincount(ct[cin & (hp[cs] == h)], minlength=n)
            assert np.all(cb <= rb), (name, h)
    else:  # the links between hosts: targets a sub-multiset of the real ones (a move may land
        # inside a host)
        new = ~np.isin(cs * n + ct, (rs * n + rt)[rin])
        assert np.all(np.bincount(ct[new], minlength=n) <= np.bincount(rt[~rin], minlength=n)), name
    changed = np.sum(~np.isin(cs * n + ct, rs * n + rt))
    assert changed > 0.3 * moved.sum(), (name, changed, moved.sum())
print("ok")
EOP
"$PY" "$SRC/tools/twin-crawl" --bin "$BIN" --work tw --out out --pair "a,b,c" > bad.out 2>&1
[ $? -ne 0 ] && grep -q "pair takes" bad.out && pass "a bad --pair refused" || fail "bad --pair: $(cat bad.out)"
finish
