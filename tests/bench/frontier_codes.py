#!/usr/bin/python3
"""Benchmark: how many distinct feature-code vectors a SARSA frontier holds, not run by ctest.
Synchronous SARSA (jobs/quickstart.ini with sarsa.mode = synchronous, B = 1 000 fetches a tick)
on the procedural classic world (gen.materialize = false), one rank of one thread, at POINTS of
(world pages, fetches, capacity); capacity "none" is the largest crawl.frontier_capacity
(2 x 10^9: nothing is evicted). Each crawl writes one checkpoint at its last tick but one; its
frontier (frontier/codes: G bytes per entry, the state groups first) gives the entries, the
distinct code vectors (entries of one vector have one value under a linear Q), the distinct state
parts and the distinct action parts. Each point appends one row to TABLE (date, commit of the
build, the point, the tick of the checkpoint, the counts, the command); then REPORT is regenerated
from TABLE alone (the latest row of each point).

Usage: tests/bench/frontier_codes.py BUILD_DIR [--points LIST] [--table TSV] [--report MD]
         [--report-only]
LIST: comma-separated PAGES:FETCHES:CAP (CAP a number or none), e.g. 1e6:1e5:none,1e7:1e6:1e5
"""
import argparse
import datetime
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from points import NONE, measure, points, power, read_table  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(HERE, "docs", "reports", "frontier-codes", "results.tsv")
REPORT = os.path.join(HERE, "docs", "reports", "frontier-codes.md")
BANDWIDTH = 1000
ACTION_GROUPS = 5  # sarsa.categories = 2: anchor, 2 categories, parents, relevant parents
COLS = ["date", "commit", "pages", "fetches", "capacity", "tick", "entries", "codes", "states",
        "actions", "top_k", "bottom_k"] + [f"{w}_{c}" for w in ("s_top", "s_bottom", "a_top",
                                                                "a_bottom")
                                           for c in ("parts", "codes", "entries")] + ["command"]
DEFAULT = "1e6:1e5:none,1e7:3e5:none,1e7:3e5:1e5"


def layout(a=2):
    """Per group of Q's layout (features.c, sarsa.categories = a): its indexes' buckets and
    first weights, the state groups first (greedy packing, bucket products <= 32)."""
    state = [5, 6, 5] + [5, 6] * (a + 2) + [10]
    action = [5, 6] + [5, 6] * (a + 2)
    off, w = [], 0
    for b in state + action:
        off.append(w)
        w += b
    groups = []
    for lo, hi in ((0, len(state)), (len(state), len(state) + len(action))):
        prod = 1
        for i in range(lo, hi):
            b = (state + action)[i]
            if i == lo or prod * b > 32:
                groups.append([])
                prod = 1
            prod *= b
            groups[-1].append((b, off[i]))
    return groups, w


def tables(weights, groups):
    """Q's float tables T_g[code] (qnet's cs_qlinear_tables) and each group's valid codes."""
    t = np.zeros((len(groups), 32), dtype=np.float32)
    valid = []
    for g, idx in enumerate(groups):
        valid.append(int(np.prod([b for b, _ in idx])))
        for c in range(32):
            x, s = c, 0.0
            for b, o in idx:
                s += float(weights[o + x % b])
                x //= b
            t[g, c] = np.float32(s)
    return t, valid


def walks(codes, weights, k_top, k_bottom):
    """The threshold walks over the state parts and over the action parts of the entries: the
    parts in order of their bound, the largest (smallest) value Q's float sum can give an entry
    of the part (a state part: its partial sum continued with every action group's largest
    (smallest) table value; an action part: the largest (smallest) state partial sum continued
    with the part's codes); a walk opens parts until k entries of the opened ones are above
    (below) the next part's bound, which no entry of an unopened part passes. Returns per walk
    (by states top, by states bottom, by actions top, by actions bottom) the parts, code vectors
    and entries opened (None without k)."""
    groups, nw = layout()
    if len(weights) != nw or codes.shape[1] != len(groups):
        return None
    t, valid = tables(weights, groups)
    s = len(groups) - ACTION_GROUPS

    def parts(x):
        return np.unique(np.ascontiguousarray(x).view(np.dtype((np.void, x.shape[1]))),
                         return_inverse=True)[1].reshape(-1)

    def first(ids):
        rep = np.zeros(ids.max() + 1, dtype=np.int64)
        rep[ids] = np.arange(len(ids))
        return rep
    sid, aid, full = parts(codes[:, :s]), parts(codes[:, s:]), parts(codes)
    srep, arep = first(sid), first(aid)
    p = np.zeros(len(srep), dtype=np.float32)
    for g in range(s):
        p = p + t[g, codes[srep, g]]
    v = p[sid].copy()
    for g in range(s, len(groups)):
        v = v + t[g, codes[:, g]]
    out = []
    for by_state in (True, False):
        for k, top in ((k_top, True), (k_bottom, False)):
            if k <= 0:
                out.append(None)
                continue
            if by_state:
                pid, bound = sid, p.copy()
                for g in range(s, len(groups)):
                    x = t[g, :valid[g]]
                    bound = bound + (x.max() if top else x.min())
            else:
                pid = aid
                bound = np.full(len(arep), p.max() if top else p.min(), dtype=np.float32)
                for g in range(s, len(groups)):
                    bound = bound + t[g, codes[arep, g]]
            order = np.argsort(-bound if top else bound, kind="stable")
            rank = np.empty(len(bound), dtype=np.int64)
            rank[order] = np.arange(len(bound))
            bsorted = bound[order]
            er = rank[pid]

            def sure(j):  # entries of the first j parts beyond the bound of part j
                if j >= len(bound):
                    return int(np.count_nonzero(er < j))
                m = er < j
                return int(np.count_nonzero(m & ((v > bsorted[j]) if top else (v < bsorted[j]))))
            lo, hi = 1, 1
            while hi < len(bound) and sure(hi) < k:
                lo, hi = hi, min(2 * hi, len(bound))
            while lo < hi:
                mid = (lo + hi) // 2
                if sure(mid) >= k:
                    hi = mid
                else:
                    lo = mid + 1
            m = er < hi
            out.append((hi, len(np.unique(full[m])), int(np.count_nonzero(m))))
    return out


def distinct(rows):
    """The distinct rows of a 2-D uint8 array."""
    if rows.shape[0] == 0:
        return 0
    return int(np.unique(np.ascontiguousarray(rows).view(
        np.dtype((np.void, rows.shape[1])))).shape[0])


def run_point(a, pages, fetches, cap, tmp):
    out, ck = os.path.join(tmp, "r.h5"), os.path.join(tmp, "ck.h5")
    ticks = fetches // BANDWIDTH
    if ticks < 3:
        raise RuntimeError(f"{fetches} fetches: fewer than 3 ticks of {BANDWIDTH}")
    crawlsim = os.path.join(a.build, "crawlsim")
    cmd = [crawlsim, "run", os.path.join(HERE, "jobs", "quickstart.ini"),
           "--set", "gen.world=" + os.path.join(HERE, "graphs", "classic.ini"),
           "--set", f"gen.pages={pages}", "--set", "gen.materialize=false",
           "--set", f"run.pages={fetches}", "--set", f"crawl.bandwidth={BANDWIDTH}",
           "--set", f"crawl.frontier_capacity={cap}", "--set", "sarsa.mode=synchronous",
           "--set", f"run.checkpoint_every={ticks - 1}", "--set", "run.checkpoint=" + ck,
           "-o", out]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{pages} pages, capacity {cap}: exit {p.returncode}: "
                           f"{p.stderr.strip()[-400:]}")
    with h5py.File(ck, "r") as f:
        stride = int(f["frontier/stride"][0])
        codes = f["frontier/codes"][:].reshape(-1, stride)
        weights = f["policy/weights"][:]
        tick = int(f["run/state"][1])  # the loop's tick
    with h5py.File(out, "r") as f:
        evicted = int(np.sum(f["ranks/evictions"][:]))
    # a full frontier's eviction a tick: the evictions over the ticks the frontier was full
    k_bottom = 0
    if cap < NONE and evicted > 0:
        with h5py.File(out, "r") as f:
            front = f["series/frontier"][:]
        full = max(int(np.count_nonzero(front >= cap)), 1) * int(
            round(ticks / max(len(front), 1)))
        k_bottom = evicted // max(full, 1)
    w = walks(codes, weights, BANDWIDTH, k_bottom)
    s = stride - ACTION_GROUPS
    commit = ""
    cf = os.path.join(a.build, "crawlsim.commit")
    if os.path.exists(cf):
        commit = open(cf).read().strip()[:12]
    shown = " ".join(cmd[:-2]).replace(crawlsim, "build/crawlsim").replace(HERE + "/", "")
    shown = shown.replace(ck, "ck.h5")
    row = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit, "pages": pages, "fetches": fetches, "capacity": cap, "tick": tick,
        "entries": codes.shape[0], "codes": distinct(codes), "states": distinct(codes[:, :s]),
        "actions": distinct(codes[:, s:]), "command": shown}
    row["top_k"], row["bottom_k"] = BANDWIDTH, k_bottom if k_bottom > 0 else ""
    for i, name in enumerate(("s_top", "s_bottom", "a_top", "a_bottom")):
        r = w[i] if w else None
        for j, col in enumerate(("parts", "codes", "entries")):
            row[f"{name}_{col}"] = r[j] if r else ""
    os.remove(out)
    os.remove(ck)
    return row


def share(r, walk):
    """A walk's opened entries as a share of the frontier's, with its parts opened."""
    if not r.get(walk + "_entries"):
        return "-"
    return (f"{int(r[walk + '_entries']) / int(r['entries']):.2f} "
            f"({r[walk + '_parts']} parts)")


def report(rows):
    """The report's text from the table's rows (the latest row of each point)."""
    latest = {}
    for r in rows:
        latest[(int(r["pages"]), int(r["fetches"]), int(r["capacity"]))] = r
    keys = sorted(latest, key=lambda k: (k[0], k[1], -k[2]))
    out = ["# The distinct feature codes of a SARSA frontier", "",
           "Generated by `tests/bench/frontier_codes.py` from its table "
           "([frontier-codes/results.tsv](frontier-codes/results.tsv)); do not edit. "
           "Synchronous SARSA (B = 1 000) on the procedural classic world, 1 rank x 1 thread, "
           "the latest run of each point: the frontier of the checkpoint at the crawl's last "
           "tick but one and the weights of that checkpoint (the values the next tick's "
           "evaluation gives).", "",
           "## Code vectors", "",
           "An entry's value is Q's float sum over its G = 12 code bytes, the 7 state groups "
           "first, then the 5 action groups: the entries of one code vector have one value. "
           "Entries per vector is how many entries a selection by code vectors would treat "
           "as one.", "",
           "| world pages | fetches | capacity | tick | entries | code vectors | entries per "
           "vector | state parts | action parts | date |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k in keys:
        r = latest[k]
        per = int(r["entries"]) / max(int(r["codes"]), 1)
        out.append(f"| {power(k[0])} | {power(k[1])} | {power(k[2])} | {r['tick']} | "
                   f"{r['entries']} | {r['codes']} | {per:.2f} | {r['states']} | "
                   f"{r['actions']} | {r['date'][:10]} |")
    out += ["", "## Threshold walks", "",
            "A walk over the state parts takes them in decreasing (increasing) order of the "
            "largest (smallest) value an entry of the part can have, its partial sum continued "
            "with each action group's largest (smallest) table value (rounding is monotone, so "
            "this bounds Q's float sum); it opens parts until k entries of the opened ones lie "
            "above (below) the next part's bound, which no unopened entry passes. A walk over "
            "the action parts bounds them with the largest (smallest) state partial sum. The "
            "table gives the share of the frontier's entries each walk opens, for the tick's "
            "k = 1 000 best (selection, without host quotas) and, when the capacity binds, the "
            "tick's evictions from the bottom (k: the run's evictions over its ticks at "
            "capacity).", "",
            "| world pages | fetches | capacity | entries | top: by states | top: by actions "
            "| bottom k | bottom: by states | bottom: by actions |",
            "|---|---|---|---|---|---|---|---|---|"]
    cmd = ""
    for k in keys:
        r = latest[k]
        out.append(f"| {power(k[0])} | {power(k[1])} | {power(k[2])} | {r['entries']} | "
                   f"{share(r, 's_top')} | {share(r, 'a_top')} | {r['bottom_k'] or '-'} | "
                   f"{share(r, 's_bottom')} | {share(r, 'a_bottom')} |")
        cmd = r["command"]
        for key, name in (("gen.pages", "PAGES"), ("run.pages", "FETCHES"),
                          ("crawl.frontier_capacity", "CAP"),
                          ("run.checkpoint_every", "TICKS-1")):
            cmd = " ".join(w.split("=")[0] + "=" + name if w.startswith(key + "=") else w
                           for w in cmd.split(" "))
    out += ["", "Each point ran as", "", f"`OMP_NUM_THREADS=1 {cmd}`", "",
            "(TICKS = FETCHES / 1 000) and the table was made by "
            "`tests/bench/frontier_codes.py build --points PAGES:FETCHES:CAP,...` (`none` for "
            "2 x 10^9)."]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--points", type=points, default=points(DEFAULT))
    ap.add_argument("--table", default=TABLE)
    ap.add_argument("--report", default=REPORT)
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    if any(p < 2 or f < 1 or c < 1 for p, f, c in a.points):
        ap.error("sizes must be positive (pages at least 2)")
    if not a.report_only and not os.access(os.path.join(a.build, "crawlsim"), os.X_OK):
        ap.error(f"no crawlsim in {a.build}")
    if not a.report_only and measure(a, "frontier_codes", COLS, run_point,
                                     lambda row: (f"tick {row['tick']}, {row['entries']} entries, {row['codes']} code vectors, "
                         f"{row['states']} state parts, {row['actions']} action parts")):
        return 1
    with open(a.report, "w") as f:
        f.write(report(read_table(a.table)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
