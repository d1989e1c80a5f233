#!/usr/bin/python3
"""An independent computation of `crawlsim stats` figures, checked against its table.

Usage: stats_oracle.py GRAPH.h5 TABLE.tsv [--threshold X] [--stats-seed S] [--order-seeds K]

Reads the graph file with h5py and computes every figure of docs/guide/statistics.md from the
definitions, with other algorithms than the C code where there is a choice: Tarjan's SCC (the C
code uses Kosaraju's), the KS distance over every integer of the tail (the C code evaluates it at
observed values only), reciprocity and gaps by vectorised set operations, the discovery crawls
replayed from the seeds the table names: breadth-first, in-degree first (a lazy heap, where the
C code keeps an indexed one) and random (the draws replayed with an implementation of the
Philox4x64-10 streams written here from Random123's definition, and Lemire's bounded integers).
--stats-seed is the table's sampling seed (default 1); --order-seeds K replays the in-degree-first
and random crawls of the first K seeds only (default: all). Prints one "ok:" or "FAIL:" line per
figure and exits 1 when any failed.

Tolerances:
* exact figures (degrees, shares of links, bow-tie, topics, the power-law fit, discovery): relative
  1e-9 (both sides compute the same ratio of integers in double precision; the table prints 17
  digits);
* sampled figures (clustering, link overlap, distance mean, reach, effective diameter): the oracle
  computes the population value when the graph has at most 5000 pages (every page, every link,
  every source in the largest SCC), else its
  own uniform sample (its own random generator); the difference must lie within 3 combined
  95 % half-widths (sqrt(h_c^2 + h_o^2)): about 5.9 standard deviations of the difference, so a
  correct pair fails with probability ~1e-8, while a systematic error (a distance off by one, a
  wrong denominator) exceeds it. Against a population value h_c is the larger of the table's
  half-width and the one the population's own spread gives (1.96 sd / sqrt(n)): a sample can
  miss a rare group (the few sources without out-links, which reach nothing) and then report a
  narrow interval around the common value. The effective diameter's population value must lie
  in the bootstrap interval widened by half its width on each side.
"""
import heapq
import math
import random
import sys
from collections import deque

import h5py
import numpy as np

FIT_MIN_TAIL = 50
FIT_MAX_CANDIDATES = 400
CURVE = 41


ORDERS = ("bfs", "indeg", "random")
CURVE_PREFIX = {"bfs": "curve.", "indeg": "indeg.curve.", "random": "random.curve."}


def read_table(path):
    """The figures, and the curves of every order: curves[order][seed index] = {seed, y}."""
    t = {}
    curves = {o: {} for o in ORDERS}
    with open(path) as f:
        next(f)
        for line in f:
            k, v, lo, hi, n = line.rstrip("\n").split("\t")
            order = next((o for o in ORDERS if k.startswith(CURVE_PREFIX[o])), None)
            if order is not None:
                s, j = k[len(CURVE_PREFIX[order]):].split(".")
                c = curves[order].setdefault(int(s), {"seed": int(n), "y": [0.0] * CURVE})
                c["y"][int(j)] = float(v)
            else:
                t[k] = (float(v), float(lo), float(hi), int(n))
    return t, curves


# ---- Philox4x64-10 (Random123: Salmon et al., SC 2011) and the streams of include/crawlsim/rng.h

MASK64 = (1 << 64) - 1
PHILOX_M = (0xD2E7470EE14C6C93, 0xCA5A826395121157)
PHILOX_W = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
RNG_SAMPLE = 13  # the sampling domain
RNG_ORDER = 22  # the random discovery order's stream id (stats_impl.h)


def philox4x64(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + PHILOX_W[0]) & MASK64, (k1 + PHILOX_W[1]) & MASK64
        p0, p1 = PHILOX_M[0] * c0, PHILOX_M[1] * c2
        c0, c1, c2, c3 = (p1 >> 64) ^ c1 ^ k0, p1 & MASK64, (p0 >> 64) ^ c3 ^ k1, p0 & MASK64
    return [c0, c1, c2, c3]


class Stream:
    """A stream keyed by {seed, id}, counter {block, domain, sub, 0}: four words a block."""

    def __init__(self, seed, domain, sid, sub):
        self.key = (seed, sid)
        self.ctr = [0, domain, sub, 0]
        self.buf = []

    def u64(self):
        if not self.buf:
            self.buf = philox4x64(self.ctr, self.key)
            self.ctr[0] += 1
        return self.buf.pop(0)

    def below(self, n):
        """Uniform on [0, n) by Lemire's method (rejection on the low word)."""
        m = self.u64() * n
        if (m & MASK64) < n:
            threshold = ((1 << 64) - n) % n
            while (m & MASK64) < threshold:
                m = self.u64() * n
        return m >> 64


def nearest_rank(sorted_x, q):
    n = len(sorted_x)
    k = max(1, math.ceil(q * n - 1e-12))
    return float(sorted_x[k - 1])


def powerlaw(x):
    """CSN 2009 discrete MLE (Eq. 3.7) with x_min by the KS distance, over the candidate grid
    the C code documents: distinct observed values >= 1 with at least 50 items at or above, not
    the largest one, at most 400 evenly spaced. KS over every integer of the tail."""
    x = x[x >= 1]
    vals, counts = np.unique(x, return_counts=True)
    tail = np.cumsum(counts[::-1])[::-1]
    eligible = 0
    while eligible < len(vals) - 1 and tail[eligible] >= FIT_MIN_TAIL:
        eligible += 1
    ncand = min(eligible, FIT_MAX_CANDIDATES)
    best = (math.inf, None, None, None)
    seen = set()
    for i in range(ncand):
        j = i * (eligible - 1) // (ncand - 1) if ncand > 1 else 0
        if j in seen:
            continue
        seen.add(j)
        xmin = int(vals[j])
        t = x[x >= xmin].astype(float)
        n = len(t)
        alpha = 1.0 + n / np.sum(np.log(t / (xmin - 0.5)))
        grid = np.arange(xmin, int(vals[-1]) + 1)
        emp = np.searchsorted(np.sort(t), grid, side="right") / n
        model = 1.0 - ((grid + 0.5) / (xmin - 0.5)) ** (1.0 - alpha)
        # the empirical CDF just below each integer equals its value at the integer before
        emp_below = np.concatenate(([0.0], emp[:-1]))
        model_below = np.concatenate(([0.0], model[:-1]))
        d = max(np.max(np.abs(emp - model)), np.max(np.abs(emp_below - model_below)))
        if d < best[0]:
            best = (d, alpha, xmin, n)
    return best[1], best[2], best[3]


def tarjan_largest(N, off, tg):
    """Largest SCC by Tarjan's algorithm (iterative): a boolean mask."""
    index = [-1] * N
    low = [0] * N
    onstack = [False] * N
    stack = []
    best, best_members = 0, []
    counter = 0
    for r in range(N):
        if index[r] >= 0:
            continue
        work = [(r, int(off[r]))]
        index[r] = low[r] = counter
        counter += 1
        stack.append(r)
        onstack[r] = True
        while work:
            u, e = work[-1]
            if e < off[u + 1]:
                work[-1] = (u, e + 1)
                v = int(tg[e])
                if index[v] < 0:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    onstack[v] = True
                    work.append((v, int(off[v])))
                elif onstack[v]:
                    low[u] = min(low[u], index[v])
            else:
                work.pop()
                if work:
                    p = work[-1][0]
                    low[p] = min(low[p], low[u])
                if low[u] == index[u]:
                    members = []
                    while True:
                        w = stack.pop()
                        onstack[w] = False
                        members.append(w)
                        if w == u:
                            break
                    if len(members) > best:
                        best, best_members = len(members), members
    mask = np.zeros(N, dtype=bool)
    mask[best_members] = True
    return mask


def reach(N, off, tg, start_mask):
    seen = start_mask.copy()
    frontier = np.nonzero(start_mask)[0]
    while len(frontier):
        nb = neighbours(off, tg, frontier)
        nb = np.unique(nb[~seen[nb]])
        seen[nb] = True
        frontier = nb
    return seen


def neighbours(off, tg, nodes):
    """All out-neighbours of the nodes (with repeats), vectorised."""
    starts = off[nodes]
    lens = off[nodes + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    rep = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return tg[rep + np.arange(total)]


def distances_from(N, off, tg, s):
    """Histogram of directed distances from s (level-synchronous BFS)."""
    seen = np.zeros(N, dtype=bool)
    seen[s] = True
    frontier = np.array([s])
    hist = []
    while len(frontier):
        nb = neighbours(off, tg, frontier)
        nb = np.unique(nb[~seen[nb]])
        seen[nb] = True
        if len(nb):
            hist.append(len(nb))
        frontier = nb
    return hist


def effective(hist, q=0.9):
    total = sum(hist)
    if total == 0:
        return float("nan")
    want, cum = q * total, 0
    for d, h in enumerate(hist, start=1):
        if cum + h >= want:
            return (d - 1) + (want - cum) / h
        cum += h
    return float(len(hist))


def rich_of(off):
    """The out-degree of the page at 0-based rank floor(0.9 N) in ascending order, at least 1."""
    deg = np.sort(np.diff(off))
    return max(1, int(deg[int(0.9 * len(deg))]))


IN_CLASSES = ("1", "2", "10", "100")  # in-degree <= 1, 2-9, 10-99, 100 or more


def in_class(d):
    return 0 if d <= 1 else 1 if d < 10 else 2 if d < 100 else 3


def discovery(N, off, tg, seed, order="bfs", stats_seed=1, index=0, rich=None, indeg=None):
    """A crawl from seed until no known page is left unfetched: pages known after 1 % and 10 %
    fetched, the share of the first 10 % fetches that found nothing new, the curve, and of the
    first 1 % fetches [at link-rich pages (rich out-links or more), the pages they made known,
    the other fetches, theirs, then per in-degree class of the fetched page (IN_CLASSES) its
    fetches and theirs]."""
    if rich is None:
        rich = rich_of(off)
    if indeg is None:
        indeg = np.bincount(np.asarray(tg, dtype=np.int64), minlength=N).tolist()
    first = [0] * (4 + 2 * len(IN_CLASSES))
    f1 = max(1, round(0.01 * N))
    f10 = max(1, round(0.1 * N))
    known = bytearray(N)  # 1 known, 2 fetched
    known[seed] = 1
    nknown, fetched, empty = 1, 0, 0
    at = {}
    curve_f = [max(1, round(10 ** (-4 + k / 10) * N)) for k in range(CURVE)]
    want = set(curve_f) | {f1, f10}
    tgl = tg.tolist()
    offl = off.tolist()
    if order == "bfs":
        q = deque([seed])
        take = q.popleft
        put = q.append
        left = lambda: len(q)
    elif order == "indeg":
        # a lazy heap: an entry (-links seen, page) per increase; stale ones are skipped
        cnt = {seed: 0}
        heap = [(0, seed)]

        def take():
            while True:
                c, u = heapq.heappop(heap)
                if known[u] == 1 and -c == cnt[u]:
                    return u

        def put(v):
            heapq.heappush(heap, (-cnt[v], v))

        left = lambda: sum(1 for v in cnt if known[v] == 1)
    else:
        rng = Stream(stats_seed, RNG_SAMPLE, RNG_ORDER, index)
        pool = [seed]

        def take():
            i = rng.below(len(pool))
            u = pool[i]
            pool[i] = pool[-1]
            pool.pop()
            return u

        put = pool.append
        left = lambda: len(pool)
    unfetched = 1
    while unfetched:
        u = take()
        known[u] = 2
        unfetched -= 1
        fetched += 1
        fresh = 0
        for e in range(offl[u], offl[u + 1]):
            v = tgl[e]
            if known[v] == 2:
                continue
            if order == "indeg":
                cnt[v] = cnt.get(v, 0) + 1
            if not known[v]:
                known[v] = 1
                fresh += 1
                unfetched += 1
                put(v)
            elif order == "indeg":
                put(v)
        nknown += fresh
        if fetched <= f1:
            kind = 0 if offl[u + 1] - offl[u] >= rich else 2
            first[kind] += 1
            first[kind + 1] += fresh
            c = in_class(indeg[u])
            first[4 + 2 * c] += 1
            first[5 + 2 * c] += fresh
        if fetched <= f10 and fresh == 0:
            empty += 1
        if fetched in want:
            at[fetched] = nknown / N
    assert left() == 0
    final = nknown / N
    k1 = at.get(f1, final)
    k10 = at.get(f10, final)
    curve = [at.get(f, final) for f in curve_f]
    return k1, k10, empty / min(fetched, f10), curve, first


def undirected(N, off, tg, src):
    """Per page, the sorted array of undirected neighbours without itself."""
    a = np.concatenate((src, tg))
    b = np.concatenate((tg, src))
    keep = a != b
    a, b = a[keep], b[keep]
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    pair = a * N + b
    first = np.concatenate(([True], pair[1:] != pair[:-1]))
    a, b = a[first], b[first]
    uoff = np.zeros(N + 1, dtype=np.int64)
    np.add.at(uoff, a + 1, 1)
    return np.cumsum(uoff), b


def clustering(uoff, uadj, u):
    nu = uadj[uoff[u]:uoff[u + 1]]
    d = len(nu)
    if d < 2:
        return 0.0
    links = 0
    for v in nu:
        links += len(np.intersect1d(nu, uadj[uoff[v]:uoff[v + 1]], assume_unique=True))
    return links / (d * (d - 1))


def overlap(off, tg, u, v):
    """The share of v's out-links (v has some) that u links to as well (np.isin)."""
    ov = tg[off[v]:off[v + 1]]
    return int(np.isin(ov, tg[off[u]:off[u + 1]]).sum()) / len(ov)


def check_overlap(c, t, N, off, tg, src, population, rng):
    """The link overlap: every link whose target has out-links (small graphs), else 1000 drawn."""
    if "overlap" not in t or len(tg) == 0:
        return
    deg = np.diff(off)
    links = range(len(tg)) if population else [rng.randrange(len(tg)) for _ in range(1000)]
    ov = [overlap(off, tg, src[e], tg[e]) for e in links if deg[tg[e]] > 0]
    if population:
        c.sampled("overlap", float(np.mean(ov)), pop_sd=float(np.std(ov)))
    else:
        c.sampled("overlap", *mean_half(ov))


class Checker:
    def __init__(self, table):
        self.t = table
        self.failed = 0

    def exact(self, key, want):
        got = self.t[key][0]
        if (math.isnan(want) and math.isnan(got)) or (
                not math.isnan(want) and abs(got - want) <= 1e-9 * max(1.0, abs(want))):
            print(f"ok: {key} {got:.10g}")
        else:
            print(f"FAIL: {key}: crawlsim {got!r}, oracle {want!r}")
            self.failed += 1

    def sampled(self, key, want, want_half=0.0, pop_sd=None):
        """want: the oracle's value, want_half: its own sample's 95 % half-width, or pop_sd: the
        population's standard deviation of one item when want is a population value."""
        v, lo, hi, n = self.t[key]
        h = max(v - lo, hi - v)
        if pop_sd is not None:
            h = max(h, 1.96 * pop_sd / math.sqrt(n))
        # (and never below the exact figures' rounding: every source of the SCC reaches the same
        # pages, so their mean reach has no spread)
        tol = max(3.0 * math.sqrt(h * h + want_half * want_half), 1e-9 * max(1.0, abs(want)))
        if abs(v - want) <= tol:
            print(f"ok: {key} {v:.6g} vs oracle {want:.6g} (tolerance {tol:.3g})")
        else:
            print(f"FAIL: {key}: crawlsim {v:.6g} [{lo:.6g}, {hi:.6g}], oracle {want:.6g} +- "
                  f"{want_half:.3g} (tolerance {tol:.3g})")
            self.failed += 1


def check_order(c, t, curve, order, N, off, tg, scc, stats_seed, order_seeds):
    """The crawls of one order replayed from the table's seeds against its curves and rows."""
    key = {"bfs": "bfs", "indeg": "indeg", "random": "random"}[order]
    if not curve:
        if f"{key}.known1" in t and not math.isnan(t[f"{key}.known1"][0]):
            print(f"FAIL: {key}.known1 given without its curves")
            c.failed += 1
        return
    seeds = sorted(curve)
    if order != "bfs" and order_seeds is not None:
        seeds = seeds[:order_seeds]
    k1, k10, e10, firsts = [], [], [], []
    rich = rich_of(off)
    indeg = np.bincount(np.asarray(tg, dtype=np.int64), minlength=N).tolist()
    for s in seeds:
        a, b, e, cv, first = discovery(N, off, tg, curve[s]["seed"], order, stats_seed, s, rich,
                                       indeg)
        k1.append(a)
        k10.append(b)
        e10.append(e)
        firsts.append(first)
        bad = [k for k in range(CURVE) if abs(cv[k] - curve[s]["y"][k]) > 1e-12]
        if bad:
            print(f"FAIL: {order} curve of seed {s} differs at points {bad[:5]}")
            c.failed += 1
        else:
            print(f"ok: {order} curve of seed {s} (page {curve[s]['seed']})")
    if len(seeds) == len(curve):
        for name, x in (("known1", k1), ("known10", k10), ("empty10", e10)):
            c.exact(f"{key}.{name}", sum(x) / len(x))
            v, lo, hi, n = t[f"{key}.{name}"]
            if abs(lo - min(x)) > 1e-12 or abs(hi - max(x)) > 1e-12:
                print(f"FAIL: {key}.{name} range [{lo}, {hi}] against [{min(x)}, {max(x)}]")
                c.failed += 1
        # the first 1 % fetches: means over the seeds where the ratio is defined
        by_in = [(f"fetch_in{lo}", (4 + 2 * c,), (0, 2)) for c, lo in enumerate(IN_CLASSES)]
        by_in += [(f"new_in{lo}", (5 + 2 * c,), (4 + 2 * c,)) for c, lo in enumerate(IN_CLASSES)]
        for name, num, den in [("rich1", (0,), (0, 2)), ("rich_new1", (1,), (0,)),
                               ("other_new1", (3,), (2,))] + by_in:
            x = [sum(f[i] for i in num) / sum(f[i] for i in den) for f in firsts
                 if sum(f[i] for i in den) > 0]
            v, lo, hi, n = t[f"{key}.{name}"]
            if not x:
                ok = math.isnan(v)
            else:
                ok = (abs(v - sum(x) / len(x)) <= 1e-12 * max(1.0, abs(v)) and n == len(x)
                      and abs(lo - min(x)) <= 1e-12 * max(1.0, abs(lo))
                      and abs(hi - max(x)) <= 1e-12 * max(1.0, abs(hi)))
            if ok:
                print(f"ok: {key}.{name} {v:.6g} over {n} seeds")
            else:
                print(f"FAIL: {key}.{name} {v} [{lo}, {hi}] n {n} against {x}")
                c.failed += 1
    if not all(scc[curve[s]["seed"]] for s in curve):
        print(f"FAIL: a {order} seed outside the largest SCC")
        c.failed += 1


def mean_half(x):
    x = np.asarray(x, dtype=float)
    return float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))


def main():
    path, tsv = sys.argv[1], sys.argv[2]
    threshold = float(sys.argv[sys.argv.index("--threshold") + 1]) if "--threshold" in sys.argv else 0.5
    t, curves = read_table(tsv)
    c = Checker(t)
    with h5py.File(path, "r") as f:
        N = int(f.attrs["n_pages"])
        H = int(f.attrs["n_hosts"])
        K = int(f.attrs["n_topics"])
        target = int(f.attrs["target_topic"])
        off = f["links/offsets"][:].astype(np.int64)
        tg = f["links/targets"][:].astype(np.int64)
        host = f["pages/host"][:].astype(np.int64)
        topic = f["pages/topic"][:].astype(np.int64)
        rel = f["pages/relevance"][:] >= threshold
    M = len(tg)
    outdeg = np.diff(off)
    src = np.repeat(np.arange(N), outdeg)
    indeg = np.bincount(tg, minlength=N)
    c.exact("pages", N)
    c.exact("links", M)
    c.exact("out.rich", rich_of(off))
    for name, d in (("out", outdeg), ("in", indeg)):
        s = np.sort(d)
        c.exact(f"{name}.mean", M / N)
        c.exact(f"{name}.median", nearest_rank(s, 0.5))
        c.exact(f"{name}.max", float(s[-1]))
        c.exact(f"{name}.zero", float(np.mean(d == 0)))
    c.exact("in.one", float(np.mean(indeg == 1)))
    c.exact("in.two", float(np.mean(indeg == 2)))
    c.exact("in.few", float(np.mean((indeg >= 3) & (indeg <= 9))))
    c.exact("in.ten", float(np.mean(indeg >= 10)))
    alpha, xmin, _ = powerlaw(indeg)
    c.exact("in.alpha", alpha)
    c.exact("in.xmin", float(xmin))
    t20 = indeg[indeg >= 20].astype(float)
    c.exact("in.alpha20", 1.0 + len(t20) / np.sum(np.log(t20 / 19.5)))
    gap = tg - src
    ag = np.abs(gap)
    for b, key in ((16, "gap4"), (256, "gap8"), (4096, "gap12")):
        c.exact(key, float(np.mean(ag < b)))
    near = (ag > 0) & (ag < 256)
    c.exact("forward8", float(np.sum(gap[near] > 0) / np.sum(near)))
    if 1 < H < N:
        c.exact("within_host", float(np.mean(host[src] == host[tg])))
        # the share of the variance between hosts, as 1 - the within-host sum of squares over the
        # total (crawlsim sums the hosts' means' spread): log out-degree, and having none
        def eta2(x, h):
            cnt = np.bincount(h, minlength=H)
            mean_h = np.bincount(h, weights=x, minlength=H) / np.maximum(cnt, 1)
            tot = np.sum((x - x.mean()) ** 2)
            return 1.0 - np.sum((x - mean_h[h]) ** 2) / tot if tot > 0 else float("nan")
        linked = outdeg > 0
        c.exact("out.between_hosts", float(eta2(np.log(outdeg[linked].astype(float)), host[linked])))
        c.exact("out.zero_between_hosts", float(eta2((outdeg == 0).astype(float), host)))
        sizes = np.sort(np.bincount(host, minlength=H))
        c.exact("host.mean", N / H)
        c.exact("host.median", nearest_rank(sizes, 0.5))
        c.exact("host.max", float(sizes[-1]))
    else:
        c.exact("within_host", float("nan"))
        c.exact("out.between_hosts", float("nan"))
    c.exact("out.target", float(np.mean(outdeg[tg])))
    c.exact("in.top1", float(np.sum(np.sort(indeg)[::-1][: (N + 99) // 100]) / M))
    # the club: the ceil(N / 100) pages of largest in-degree, ties by the lower id
    top = np.zeros(N, dtype=bool)
    top[np.lexsort((np.arange(N), -indeg))[: (N + 99) // 100]] = True
    from_top = top[src]
    c.exact("in.club", float(np.mean(top[tg[from_top]])) if from_top.any() else float("nan"))
    from_leaf = indeg[src] == 1
    c.exact("leaf.top1", float(np.mean(top[tg[from_leaf]])) if from_leaf.any() else float("nan"))
    # lone pages (one in-link, not their own): the pages listing one, the share the 1 % of
    # pages listing most of them list, and the nearest-rank median in-degree of their parents
    lone = (indeg[tg] == 1) & (src != tg)
    kids = np.bincount(src[lone], minlength=N)
    c.exact("lone.parents", float(np.mean(kids > 0)))
    if lone.any():
        c.exact("lone.top1", float(np.sum(np.sort(kids)[::-1][: (N + 99) // 100]) / lone.sum()))
        c.exact("lone.parent_in", nearest_rank(np.sort(indeg[src[lone]]), 0.5))
    # links repeating a target of their block of 16, 256, 4096 consecutive ids: links less
    # distinct (block, target) pairs
    for size in (16, 256, 4096):
        pairs = np.unique((src.astype(np.int64) // size) * N + tg.astype(np.int64))
        c.exact(f"block{size}.repeat", float((M - len(pairs)) / M))
    notself = src != tg
    fwd = src[notself] * N + tg[notself]
    c.exact("reciprocity", float(np.mean(np.isin(tg[notself] * N + src[notself], fwd))))
    if K > 1:
        known = (topic[src] >= 0) & (topic[tg] >= 0)
        same = float(np.mean(topic[src][known] == topic[tg][known]))
        p = np.bincount(topic[topic >= 0], minlength=K) / np.sum(topic >= 0)
        c.exact("topic.same", same)
        c.exact("topic.base", float(np.sum(p * p)))
        c.exact("topic.lift", same / float(np.sum(p * p)))
    else:
        c.exact("topic.same", float("nan"))
    if target >= 0:
        rs = rel[src]
        c.exact("rel.link", float(np.mean(rel[tg][rs])) if rs.any() else float("nan"))
        c.exact("rel.base", float(np.mean(rel)))
    # bow-tie
    scc = tarjan_largest(N, off, tg)
    fw = reach(N, off, tg, scc)
    order = np.argsort(tg, kind="stable")
    ioff = np.concatenate(([0], np.cumsum(indeg)))
    bw = reach(N, ioff, src[order], scc)
    c.exact("bowtie.scc", float(np.mean(scc)))
    c.exact("bowtie.in", float(np.mean(bw & ~scc)))
    c.exact("bowtie.out", float(np.mean(fw & ~scc)))
    c.exact("bowtie.rest", float(np.mean(~fw & ~bw)))
    # discovery, from the table's seeds, in every order the table has
    stats_seed = int(sys.argv[sys.argv.index("--stats-seed") + 1]) if "--stats-seed" in sys.argv else 1
    order_seeds = int(sys.argv[sys.argv.index("--order-seeds") + 1]) if "--order-seeds" in sys.argv else None
    for order in ORDERS:
        check_order(c, t, curves[order], order, N, off, tg, scc, stats_seed, order_seeds)
    # sampled figures
    rng = random.Random(12345)
    population = N <= 5000
    core = np.nonzero(scc)[0]
    sources = core if population else [int(core[rng.randrange(len(core))]) for _ in range(32)]
    D, R, pooled = [], [], {}
    for s in sources:
        h = distances_from(N, off, tg, s)
        D.append(sum((d + 1) * x for d, x in enumerate(h)))
        R.append(sum(h))
        for d, x in enumerate(h):
            pooled[d] = pooled.get(d, 0) + x
    D, R = np.array(D, float), np.array(R, float)
    mean = D.sum() / R.sum()
    z = (D - mean * R) / R.mean()
    if population:
        c.sampled("dist.mean", mean, pop_sd=float(z.std()))
        c.sampled("dist.reach", float(np.mean(R / (N - 1))), pop_sd=float(np.std(R / (N - 1))))
    else:
        c.sampled("dist.mean", mean, 1.96 * float(z.std(ddof=1)) / math.sqrt(len(R)))
        c.sampled("dist.reach", *mean_half(R / (N - 1)))
    eff = effective([pooled[d] for d in range(len(pooled))])
    v, lo, hi, n = t["dist.eff90"]
    w = (hi - lo) / 2
    if population and lo - w <= eff <= hi + w:
        print(f"ok: dist.eff90 {v:.6g} [{lo:.6g}, {hi:.6g}] vs oracle {eff:.6g}")
    elif population:
        print(f"FAIL: dist.eff90 {v} [{lo}, {hi}], oracle {eff}")
        c.failed += 1
    else:
        # the oracle's 32 sources against the table's n: its half-width scaled by sqrt(n / 32)
        c.sampled("dist.eff90", eff, w * math.sqrt(n / 32))
    uoff, uadj = undirected(N, off, tg, src)
    pages = range(N) if population else [rng.randrange(N) for _ in range(1000)]
    cl = [clustering(uoff, uadj, u) for u in pages]
    if population:
        c.sampled("clustering", float(np.mean(cl)), pop_sd=float(np.std(cl)))
    else:
        c.sampled("clustering", *mean_half(cl))
    check_overlap(c, t, N, off, tg, src, population, rng)
    print(f"{c.failed} failed")
    sys.exit(1 if c.failed else 0)


if __name__ == "__main__":
    main()
