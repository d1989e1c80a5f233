"""The synchronisation study's report (tools/sync-study report): statistics, tables and figures
from the results files in DIR/runs/<group>/P<P>/<setting>/seed-NN.h5 and the results table
DIR/results.tsv (or a results table alone) only.

For every setting, each seed is paired with the strict control of the same group, P and seed:
loss = control - setting for a quality where larger is better (harvest rate), setting - control
where smaller is better (J_h), so a positive loss is always worse. What the design declares
before any result (tools/sync-study: `declared`) decides the verdicts: a seed collapsed when its
quality is beyond a fraction of the control's median or its final weights diverged (norm above
a factor of the control's, or not finite); per cell the collapse probability with its exact
Clopper-Pearson interval, the paired loss over all seeds and, apart, over the seeds that did not
collapse; a cell with any collapse is never called unaffected; "no effect" only from an
equivalence test (TOST) with the declared margin; Holm's adjustment within each declared family
of comparisons. The statistics themselves live in sync_stats.py (tested against hand-computed
values). Costs come from the counters of the results files, never from clocks, but for the time
per tick, which is reported at P <= 2 only (on this machine P > 2 oversubscribes its 2 cores).
"""
import hashlib
import itertools
import math
import os
import re

import numpy as np

try:
    import h5py
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:  # pragma: no cover
    raise SystemExit(f"tools/sync-study: error: {e}: install python3-h5py and "
                     "python3-matplotlib (tools/install-deps)")

# the performance model's network terms (docs/developer/performance-model.md), for the predicted
# communication time per tick on the shipped platform
import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "bench"))
import perf_model  # noqa: E402
import sync_sections  # noqa: E402
import sync_stats as st  # noqa: E402
from sync_stats import holm_families, t_p  # noqa: E402,F401


def model_comm_us(c, P):
    """Predicted communication per rank and tick on supermuc-ng.xml, microseconds, from a cell's
    mean counters: its collectives (calls, payload) and its exchange (messages and bytes per
    rank and tick)."""
    fetches_per_tick = c["fetched"] / c["ticks"]
    return 1e6 * perf_model.network(P, c["coll"], c["coll_bytes"], c["msgs_per_tick"] / P,
                                    c["xbytes_per_fetch"] * fetches_per_tick / P)


# two-sided 95 % quantiles of Student's t, by degrees of freedom (beyond 30: 1.96 + 2.4 / df)
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96 + 2.4 / df


def world_hash(path):
    """The first 16 hex digits of the SHA-256 of a world file (cached beside it, PATH.sha256)."""
    cache = path + ".sha256"
    if os.path.isfile(cache) and os.path.getmtime(cache) >= os.path.getmtime(path):
        with open(cache) as f:
            return f.read().strip()
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    out = h.hexdigest()[:16]
    with open(cache, "w") as f:
        f.write(out + "\n")
    return out


def binary_commit(binary):
    """The commit a built crawlsim comes from: the crawlsim.commit the build writes beside it
    (cmake/CrawlsimCommit.cmake), or "unknown" when there is none (the checked-out tree may have
    moved on since the build)."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(binary)), "crawlsim.commit")) as f:
            return f.read().strip() or "unknown"
    except OSError:
        return "unknown"


def read_provenance(path):
    """(commit, world hash, world seed, launch) of a results file, from the PATH.prov that
    tools/sync-study run writes beside it (launch: mpirun, smpi for simulated ranks, slurm);
    "unknown" for what it lacks."""
    prov = path[:-3] + ".prov" if path.endswith(".h5") else path + ".prov"
    w = []
    if os.path.isfile(prov):
        with open(prov) as f:
            w = f.read().split()
    w = (w + ["unknown"] * 4)[:4] if len(w) >= 2 else ["unknown"] * 4
    return w[0], w[1], w[2], w[3]


# the learning curve: the cumulative harvest rate at these fractions of the run's fetches
FRACTIONS = [0.1 * i for i in range(1, 11)]


def learning_curve(fetched, relevant):
    """(the cumulative harvest rate at FRACTIONS of the run, the area under the curve over the
    whole run normalised to [0, 1]: the mean harvest rate a page of the run saw so far, the
    windowed harvest rate's change over the last tenth against the two tenths before)."""
    f = np.asarray(fetched, float)
    r = np.asarray(relevant, float)
    ok = f > 0
    f, r = f[ok], r[ok]
    if len(f) == 0:
        return [math.nan] * len(FRACTIONS), math.nan, math.nan
    total = f[-1]
    h = r / f
    curve = [float(np.interp(x * total, f, h)) for x in FRACTIONS]
    xs = np.concatenate([[0.0], f / total])
    ys = np.concatenate([[h[0]], h])
    auc = float(np.sum(0.5 * (ys[1:] + ys[:-1]) * np.diff(xs)))
    rel = [float(np.interp(x * total, f, r)) for x in (0.7, 0.9, 1.0)]
    late, before = rel[2] - rel[1], (rel[1] - rel[0]) / 2
    flat = abs(late - before) / max(before, 1e-300) if before > 0 else math.nan
    return curve, auc, flat


_WORLD_RELEVANT = {}


def world_relevant(config):
    """The relevant pages of the world a run crawled (relevance >= its gen.relevance_threshold),
    from the graph file its /config names; NaN when it names none or the file is gone."""
    sect, graph, th = "", None, 0.5
    for line in config.splitlines():
        line = line.split(";")[0].strip()
        if line.startswith("["):
            sect = line.strip("[]")
        elif "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            if sect == "run" and k == "graph" and v:
                graph = v
            elif sect == "gen" and k == "relevance_threshold":
                th = float(v)
    if graph is None or not os.path.isfile(graph):
        return float("nan")
    if (graph, th) not in _WORLD_RELEVANT:
        with h5py.File(graph, "r") as g:
            d = g.get("/pages/relevance")
            _WORLD_RELEVANT[(graph, th)] = float("nan") if d is None \
                else float(np.count_nonzero(d[()] >= th))
    return _WORLD_RELEVANT[(graph, th)]


def active_ranks(fetched):
    """The effective number of ranks that fetch: 1 / sum of s_r^2, s_r rank r's share of the
    fetches (NaN when nothing was fetched)."""
    fetched = np.asarray(fetched, dtype=float)
    total = fetched.sum()
    return float(1.0 / np.sum(np.square(fetched / total))) if total > 0 else float("nan")


def read_run(path, metric, world="?"):
    with h5py.File(path, "r") as f:
        ticks = int(f["/final/ticks"][0])
        P = int(f["/ranks/pages"].shape[0])
        fetched = int(f["/final/fetched"][0])

        def series(name):
            d = f.get("/series/" + name)
            return d[()] if d is not None and d.shape[0] > 0 else None

        def last(name):
            d = series(name)
            return float(d[-1]) if d is not None else float("nan")

        curve, auc, flat = learning_curve(*(series(n) if series(n) is not None else [0]
                                            for n in ("fetched", "relevant")))
        q = float(f["/final/harvest_rate"][0]) if metric == "harvest" else auc \
            if metric == "auc" else float(f["/final/" + metric][0])

        # NaN: no weights (or not known); inf: weights that are not finite (diverged)
        w = f.get("/final/weights")
        wnorm = float(np.sqrt(np.sum(np.square(w[()])))) if w is not None else float("nan")
        wnorm = wnorm if math.isfinite(wnorm) or w is None else math.inf
        wn = series("weights_norm")
        wmax = float("nan") if wn is None else math.inf if not np.all(np.isfinite(wn)) \
            else float(np.max(wn))
        sp = series("weights_spread")
        spread = float(np.max(sp)) if sp is not None else float("nan")
        stp = series("step")
        step = float(np.nanmax(stp)) if stp is not None and np.any(np.isfinite(stp)) \
            else float("nan")
        policy = f.attrs.get("policy", b"?")
        policy = policy.decode() if isinstance(policy, bytes) else str(policy)
        commit, wh, ws, launch = read_provenance(path)
        cfg = f.get("/config")
        cfg = cfg[()].decode() if cfg is not None else ""
        run = {
            "q": q, "P": P, "ticks": ticks, "fetched": fetched,
            "policy": policy, "world": world, "commit": commit, "world_hash": wh,
            "world_seed": ws, "launch": launch,
            # the final weights' norm (NaN for a policy without weights) and the largest spread
            # of the ranks' weights over the run (the results' diagnostics; NaN before them)
            "wnorm": wnorm, "spread_max": spread,
            # per rank and tick (series are summed over ranks)
            "coll": last("collectives") / P / ticks,
            "coll_bytes": last("collective_bytes") / P / ticks,
            "allreduce": last("allreduces") / P / ticks,
            "allreduce_bytes": last("allreduce_bytes") / P / ticks,
            # the frontier exchange, over all ranks
            "xbytes_per_fetch": last("bytes_exchanged") / max(fetched, 1),
            "msgs_per_tick": last("messages") / ticks,
            "sec_per_tick": float(f["/timing/seconds"][0]) / ticks,
            # the largest weights' norm over the run (inf when not finite), the largest step
            # of a synchronisation window, the learning curve, its area and its flatness
            "wnorm_max": wmax, "step_max": step, "auc": auc, "plateau": flat,
            # the world's relevant pages (the share of them a run finds: depletion)
            "world_relevant": world_relevant(cfg),
            # how many ranks take a window's step: 1 / sum of the squared shares of the
            # fetches each rank made (P when all fetch alike, 1 when one rank fetches all)
            "active_ranks": active_ranks(f["/ranks/fetched"][()]),
        }
        run.update(("c%d" % round(100 * x), c) for x, c in zip(FRACTIONS, curve))
        return run


# the results table: one line per run, every number the report uses at full precision (repr),
# so a report from the table is the report from the results files it was made from; and where
# each run comes from: its policy and world, the commit its binary was built from and the
# world file's hash
TEXT = ["policy", "world", "commit", "world_hash", "world_seed", "launch"]
FIELDS = ["q", "P", "ticks", "fetched", "coll", "coll_bytes", "allreduce", "allreduce_bytes",
          "xbytes_per_fetch", "msgs_per_tick", "sec_per_tick", "wnorm", "spread_max",
          "wnorm_max", "step_max", "auc", "plateau"] + ["c%d" % round(100 * x) for x in FRACTIONS] \
    + ["world_relevant", "active_ranks"]
INTS = ("ticks", "fetched")
TABLE_HEAD = "group\tP\tsetting\tseed\t" + "\t".join(TEXT + FIELDS[:1] + FIELDS[2:])
# the tables before launch and active_ranks, and before world_relevant: read with them unknown
TEXT_3 = TEXT[:-1]
FIELDS_3 = FIELDS[:-1]
TABLE_HEAD_3 = "group\tP\tsetting\tseed\t" + "\t".join(TEXT_3 + FIELDS_3[:1] + FIELDS_3[2:])
FIELDS_2 = FIELDS[:-2]
TABLE_HEAD_2 = "group\tP\tsetting\tseed\t" + "\t".join(TEXT_3 + FIELDS_2[:1] + FIELDS_2[2:])
# the first edition's table (docs/reports/sync-study-first-edition/results.tsv): no provenance,
# weights' norms or spreads; read with those unknown
FIELDS_1 = FIELDS[:11]
TABLE_HEAD_1 = "group\tP\tsetting\tseed\t" + "\t".join(FIELDS_1[:1] + FIELDS_1[2:])
# every header read, with its text columns and fields
FORMATS = {TABLE_HEAD: (TEXT, FIELDS), TABLE_HEAD_3: (TEXT_3, FIELDS_3),
           TABLE_HEAD_2: (TEXT_3, FIELDS_2), TABLE_HEAD_1: ([], FIELDS_1)}


def first_edition_policy(groups, g, setting):
    if setting.startswith("best-first"):
        return "best-first"
    return dict(w.split("=", 1) for w in groups[g][1]).get("run.policy", "?")


def read_table(path, groups, cells):
    """Adds the runs of a results table (tools/sync-study table, or the first edition's) to
    cells."""
    with open(path) as f:
        head = f.readline().rstrip("\n")
        if head not in FORMATS:
            raise SystemExit(f"tools/sync-study: error: {path}: not a results table "
                             f"(its first line is not the header {TABLE_HEAD!r})")
        first = head == TABLE_HEAD_1
        text, fields = FORMATS[head]
        for n, line in enumerate(f, 2):
            w = line.rstrip("\n").split("\t")
            if len(w) != 4 + len(text) + len(fields) - 1:
                raise SystemExit(f"tools/sync-study: error: {path}:{n}: {len(w)} fields")
            g, P, stg, seed = w[0], int(w[1]), w[2], int(w[3])
            if g not in groups:
                continue
            run = dict(zip(text, w[4:4 + len(text)]))
            if first:
                run.update(policy=first_edition_policy(groups, g, stg), world=groups[g][0],
                           commit="unknown", world_hash="unknown", world_seed="unknown")
                run.update((k, float("nan")) for k in FIELDS[11:])
            run.setdefault("world_relevant", float("nan"))
            run.setdefault("active_ranks", float("nan"))
            run.setdefault("launch", "unknown")
            v = w[4 + len(text):]
            run.update(q=float(v[0]), P=P)
            for k, x in zip(fields[2:], v[1:]):
                run[k] = int(x) if k in INTS else float(x)
            cells.setdefault((g, P, stg), {})[seed] = run


def write_table(cells, path):
    """Writes cells as a results table, sorted by group, P, setting and seed."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(TABLE_HEAD + "\n")
        for (g, P, stg), runs in sorted(cells.items()):
            for seed, r in sorted(runs.items()):
                f.write("\t".join([g, str(P), stg, str(seed)] + [r[k] for k in TEXT] +
                                  [repr(r[k]) for k in FIELDS[:1] + FIELDS[2:]]) + "\n")
    os.replace(tmp, path)


def load(d, groups):
    """{(group, P, setting): {seed: run}}: from a results table when d is one; else from
    d/results.tsv, if there is one, and the results files d/runs/<group>/P<P>/<setting>/seed-NN.h5
    (a results file wins over the table's line for the same run)."""
    cells = {}
    if os.path.isfile(d):
        read_table(d, groups, cells)
        return cells
    if os.path.isfile(os.path.join(d, "results.tsv")):
        read_table(os.path.join(d, "results.tsv"), groups, cells)
    root = os.path.join(d, "runs")
    for g in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        if g not in groups:
            continue
        metric = groups[g][2]
        for pdir in os.listdir(os.path.join(root, g)):
            P = int(pdir[1:])
            for sdir in os.listdir(os.path.join(root, g, pdir)):
                if not os.path.isdir(os.path.join(root, g, pdir, sdir)):
                    continue
                for fn in os.listdir(os.path.join(root, g, pdir, sdir)):
                    m = re.fullmatch(r"seed-(\d+)\.h5", fn)
                    if m:
                        run = read_run(os.path.join(root, g, pdir, sdir, fn), metric,
                                       groups[g][0])
                        cells.setdefault((g, P, sdir), {})[int(m.group(1))] = run
    return cells


def perm_p(d):
    """Two-sided sign-flip permutation p-value of the mean of the paired differences d."""
    d = np.asarray(d, float)
    n = len(d)
    obs = abs(d.mean())
    if n <= 16:
        signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
    else:
        signs = np.random.default_rng(12345).choice([1.0, -1.0], size=(65536, n))
    means = np.abs((signs * d).mean(axis=1))
    return float(np.mean(means >= obs - 1e-15))


def label(slug):
    return slug.replace("__", ", ").replace("_", " ")


def fmt(x, nd=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{nd}f}"


def human(b):
    for unit in ("B", "KB", "MB", "GB"):
        if abs(b) < 1000 or unit == "GB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000.0


def bandwidth_cell(setting):
    """The cells of the bandwidth table (SARSA and best-first at B), not paired with the control."""
    return setting.startswith(("sarsa_B", "best-first"))


# what the design declares before the results (tools/sync-study passes its own): the collapse
# criterion (a quality beyond `fraction` of the control's median, or weights whose largest norm is
# above `factor` x the control's median or not finite), the equivalence margin of "no effect"
# (a fraction of the control's mean quality) and the families of comparisons Holm adjusts within
DECLARED = {"fraction": 0.5, "factor": 10.0, "margin": 0.05,
            "family": lambda g, setting: g}


def reference(cells, g, P, s, runs):
    """The runs a cell's collapses are judged against: the control at the same P; in the
    bandwidth table, best-first against its own, SARSA at B against best-first at the same B."""
    if s.startswith("best-first"):
        return runs
    if s.startswith("sarsa_B"):
        return cells.get((g, P, "best-first_" + s[len("sarsa_"):])) or runs
    return cells.get((g, P, "control")) or runs


def divergence_norm(r):
    """The norm the divergence criterion judges: the largest over the run (the diagnostics), or
    the final one for results files before them."""
    m = r.get("wnorm_max", math.nan)
    return m if not math.isnan(m) else r.get("wnorm", math.nan)


def median_norm(runs):
    """The median of the runs' finite divergence norms (the criterion's reference), or None."""
    norms = [divergence_norm(r) for r in runs.values() if math.isfinite(divergence_norm(r))]
    return float(np.median(norms)) if norms else None


def mean_cost(runs):
    """A cell's mean counters: every number of its runs but the quality, P and the text. Where
    its runs were launched two ways (mpirun, simulated ranks: the same crawl, other messages and
    collectives), only the runs launched as its first seed was, so that a cell and its control
    compare counters of one kind."""
    seeds = sorted(runs)
    first = st.launch_kind(runs[seeds[0]])
    seeds = [x for x in seeds if st.launch_kind(runs[x]) == first]
    return {k: float(np.mean([runs[x][k] for x in seeds]))
            for k in runs[seeds[0]] if k not in ["q", "P"] + TEXT}


def collapses(runs, ref, higher, fraction, factor):
    """(seeds below the quality threshold, seeds whose weights diverged) of a cell's runs."""
    cq = float(np.median([r["q"] for r in ref.values()]))
    cw = median_norm(ref)
    low, div = [], []
    for k in sorted(runs):
        r = runs[k]
        if st.collapsed(r["q"], cq, higher, fraction):
            low.append(k)
        if st.diverged(divergence_norm(r), cw, factor):
            div.append(k)
    return low, div


def paired(ctrl, runs, keys, higher):
    return np.array([(ctrl[k]["q"] - runs[k]["q"]) if higher else (runs[k]["q"] - ctrl[k]["q"])
                     for k in keys])


def t_interval(d):
    half = t975(len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)


def analyse(cells, groups, decl=None):
    """Per (group, P, setting): the collapses, and for settings other than the control the paired
    statistics against it (all seeds; the seeds that did not collapse; TOST), Holm within the
    declared families."""
    decl = dict(DECLARED, **(decl or {}))
    rows = []
    for (g, P, s), runs in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                 kv[0][2] != "control", kv[0][2])):
        ctrl = cells.get((g, P, "control"))
        higher = groups[g][3]
        seeds = sorted(runs)
        q = np.array([runs[k]["q"] for k in seeds])
        row = {"group": g, "P": P, "setting": s, "n": len(seeds), "seeds": seeds, "q": q,
               "median": float(np.median(q)), "mean": float(q.mean()),
               "cost": mean_cost(runs),
               "family": decl["family"](g, s)}
        low, div = collapses(runs, reference(cells, g, P, s, runs), higher, decl["fraction"],
                             decl["factor"])
        row["low"], row["diverged"] = low, div
        row["collapsed"] = sorted(set(low) | set(div))
        row["cp"] = st.clopper_pearson(len(row["collapsed"]), len(seeds))
        if s != "control" and ctrl is not None and not bandwidth_cell(s):
            keys = [k for k in seeds if k in ctrl]
            if len(keys) >= 2:
                d = paired(ctrl, runs, keys, higher)
                cmean = float(np.mean([ctrl[k]["q"] for k in keys]))
                row["margin"] = decl["margin"] * abs(cmean)
                row["loss"], row["lo"], row["hi"] = t_interval(d)
                row.update(loss_median=float(np.median(d)), p=t_p(list(d)), p_perm=perm_p(d),
                           npair=len(d), rel=float(d.mean() / cmean),
                           p_tost=st.tost_p(list(d), row["margin"]))
                ok = [k for k in keys if k not in row["collapsed"]]
                row["n_ok"] = len(ok)
                if len(ok) >= 2:
                    row["ok_loss"], row["ok_lo"], row["ok_hi"] = t_interval(
                        paired(ctrl, runs, ok, higher))
        rows.append(row)
    # the collapsed seeds the strict control collapses on too, at the same P and run seed: the
    # world and the seed's start, not the setting (the verdicts keep the declared count)
    ctrl_coll = {(r["group"], r["P"]): set(r["collapsed"]) for r in rows
                 if r["setting"] == "control"}
    for r in rows:
        r["with_control"] = ([] if r["setting"] == "control" else
                             [k for k in r["collapsed"] if k in ctrl_coll.get((r["group"], r["P"]), ())])
    tested = [r for r in rows if "p" in r]
    fams = [r["family"] for r in tested]
    for r, a, b in zip(tested, holm_families([r["p"] for r in tested], fams),
                       holm_families([r["p_tost"] for r in tested], fams)):
        r["p_holm"], r["p_tost_holm"] = a, b
    return rows


def verdict(r):
    """A cell with a collapse is never unaffected; "no effect" only from TOST (after Holm)."""
    if "loss" not in r:
        return ""
    v = st.verdict(len(r["collapsed"]), r["p_holm"], r["p_tost_holm"], r["loss"])
    return f"{v} ({len(r['collapsed'])} of {r['n']})" if v == "collapses" else v


def seeds_text(r, higher):
    out = []
    for k, v in zip(r["seeds"], r["q"]):
        mark = ("!" if k in r["low"] else "") + ("~" if k in r["diverged"] else "")
        out.append(f"**{v:.3f}{mark}**" if mark else f"{v:.3f}")
    return " ".join(out)


def collapse_text(r):
    """k of n collapsed with the Clopper-Pearson 95 % interval of the probability."""
    lo, hi = r["cp"]
    return f"{len(r['collapsed'])}/{r['n']} [{lo:.2f}, {hi:.2f}]"


def figure_losses(rows, g, path):
    sub = [r for r in rows if r["group"] == g and "loss" in r and not bandwidth_cell(r["setting"])]
    if not sub:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    settings = sorted({r["setting"] for r in sub})
    for i, s in enumerate(settings):
        pts = sorted((r["P"], r["loss"], r["lo"], r["hi"]) for r in sub if r["setting"] == s)
        P = np.array([p[0] for p in pts], float) * (1 + 0.03 * (i - len(settings) / 2))
        y = np.array([p[1] for p in pts])
        err = np.array([[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]])
        ax.errorbar(P, y, yerr=err, marker="o", ms=4, capsize=3, label=label(s))
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ranks P")
    ax.set_ylabel("quality loss against the strict control\n(paired mean, 95 % interval)")
    ax.set_title(f"{g}: the cost of each loosening")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def figure_seeds(rows, g, path):
    sub = [r for r in rows if r["group"] == g and not bandwidth_cell(r["setting"])]
    if not sub:
        return None
    Ps = sorted({r["P"] for r in sub})
    fig, axes = plt.subplots(1, len(Ps), figsize=(2.2 + 1.9 * len(Ps), 4.2), sharey=True,
                             squeeze=False)
    for ax, P in zip(axes[0], Ps):
        cell = sorted((r for r in sub if r["P"] == P), key=lambda r: (r["setting"] != "control",
                                                                      r["setting"]))
        for i, r in enumerate(cell):
            x = i + np.linspace(-0.2, 0.2, len(r["q"]))
            c = ["red" if k in r["collapsed"] else "C0" for k in r["seeds"]]
            ax.scatter(x, r["q"], s=10, c=c)
            ax.plot([i - 0.3, i + 0.3], [r["median"]] * 2, color="k", lw=1)
        ax.set_xticks(range(len(cell)))
        ax.set_xticklabels([label(r["setting"]) for r in cell], rotation=70, fontsize=7)
        ax.set_title(f"P = {P}", fontsize=9)
    axes[0][0].set_ylabel("quality per seed (line: median; red: collapsed)")
    fig.suptitle(f"{g}: every seed", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def pareto(points):
    """Indices of the points (cost, loss) that no other point beats on both."""
    keep = []
    for i, (c, l) in enumerate(points):
        if not any((c2 <= c and l2 <= l) and (c2 < c or l2 < l) for j, (c2, l2) in
                   enumerate(points) if j != i):
            keep.append(i)
    return keep


def comm_per_fetch(r):
    c = r["cost"]
    fetches_per_tick = c["fetched"] / c["ticks"]
    return (c["coll_bytes"] * r["P"]) / fetches_per_tick + c["xbytes_per_fetch"]


def figure_pareto(rows, g, path):
    sub = [r for r in rows if r["group"] == g and r["P"] > 1 and ("loss" in r or
                                                                  r["setting"] == "control")
           and not bandwidth_cell(r["setting"])]
    if not sub:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for P in sorted({r["P"] for r in sub}):
        pts = [r for r in sub if r["P"] == P]
        xy = [(comm_per_fetch(r), r.get("loss", 0.0)) for r in pts]
        front = sorted(pareto(xy), key=lambda i: xy[i][0])
        ax.scatter([p[0] for p in xy], [p[1] for p in xy], s=14, label=f"P = {P}")
        ax.plot([xy[i][0] for i in front], [xy[i][1] for i in front], lw=1)
        for i in front:
            ax.annotate(label(pts[i]["setting"]), xy[i], fontsize=6)
    ax.set_xscale("log")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("bytes per fetch (collectives' payload over all ranks + frontier exchange)")
    ax.set_ylabel("quality loss (paired mean)")
    ax.set_title(f"{g}: quality loss against communication (lines: Pareto fronts)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def findings(rows, groups):
    """The findings, one line per group and setting across P, from the statistics alone."""
    L = ["## Findings", "",
         "Per group and setting, at each P: the verdict; the collapsed seeds with the 95 % "
         "Clopper-Pearson interval of the collapse probability; the paired loss with its 95 % "
         "interval over all seeds and, when some collapsed, over the others (a positive loss is "
         "worse than the strict control). Communication: collective payload bytes per rank and "
         "tick against the control's at the same P, and the performance model's predicted "
         "communication time per rank and tick on the shipped platform (*model*, below) against "
         "the control's.", ""]
    for g in [x for x in groups if any(r["group"] == x for r in rows)]:
        L.append(f"**{g}**")
        L.append("")
        sub = [r for r in rows if r["group"] == g and "loss" in r]
        ctrl = {r["P"]: r for r in rows if r["group"] == g and r["setting"] == "control"}
        for stg in sorted({r["setting"] for r in sub}):
            parts = []
            for r in sorted((r for r in sub if r["setting"] == stg), key=lambda r: r["P"]):
                c0 = ctrl[r["P"]]["cost"]["coll_bytes"]
                save = (1 - r["cost"]["coll_bytes"] / c0) * 100 if c0 > 0 else 0.0
                coll = ""
                if r["collapsed"]:
                    coll = f", collapsed {collapse_text(r)}"
                    if r["with_control"]:
                        coll += f" ({len(r['with_control'])} of them the control's too)"
                    if "ok_loss" in r:
                        coll += (f", the others {r['ok_loss']:+.4f} [{r['ok_lo']:+.4f}, "
                                 f"{r['ok_hi']:+.4f}]")
                m0 = model_comm_us(ctrl[r["P"]]["cost"], r["P"])
                m = model_comm_us(r["cost"], r["P"])
                parts.append(f"P = {r['P']}: {verdict(r)}, {r['loss']:+.4f} "
                             f"[{r['lo']:+.4f}, {r['hi']:+.4f}]{coll}, "
                             f"{-save:+.0f} % collective bytes, model "
                             f"{m:.0f} us/tick (control {m0:.0f})")
            L.append(f"* {label(stg)}: " + "; ".join(parts))
        L.append("")
    return L


def sensitivity(cells, groups, decl):
    """Collapsed runs (and cells with any) against the quality threshold and the divergence
    factor: how much the counts depend on the declared criterion."""
    fr = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    fa = [3.0, 10.0, 100.0]
    known = any(math.isfinite(r.get("wnorm", math.nan)) for runs in cells.values()
                for r in runs.values())
    L = ["## Sensitivity of the collapse criterion", "",
         f"The declared criterion: quality below {decl['fraction']:g} x the control's median "
         f"(above it divided by {decl['fraction']:g} for J_h)"
         + (f", or weights whose largest norm over the run is above {decl['factor']:g} x the "
            "control's median or "
            "not finite" if known else
            "; the divergence of the weights cannot be judged here: this table has no final "
            "weights' norms (results files before the learning diagnostics)") +
         ". Collapsed runs / cells with any collapse, over all cells, at other thresholds:", ""]
    head = "| quality threshold | " + " | ".join(f"{x:g}" for x in fr) + " |"
    L += [head, "|---" * (len(fr) + 1) + "|"]
    rows = [("quality alone", None)] + ([(f"or norm > {f:g} x", f) for f in fa] if known else [])
    for name, f in rows:
        cells_txt = []
        for x in fr:
            nr = nc = 0
            for (g, P, s), runs in cells.items():
                low, div = collapses(runs, reference(cells, g, P, s, runs), groups[g][3], x,
                                     f if f is not None else math.inf)
                k = len(set(low) | (set(div) if f is not None else set()))
                nr += k
                nc += k > 0
            cells_txt.append(f"{nr} / {nc}")
        L.append(f"| {name} | " + " | ".join(cells_txt) + " |")
    return L + [""]


def short_table(short_cells, cells):
    """The cells left out for too few seeds, as measured (no verdict): per cell its seeds, median
    quality against the control's at the same P (the control's own cell, short or not), the
    largest weights' norm over the control's median, collective bytes and the model's
    communication time per rank and tick."""
    L = ["Measured in those cells (no test: too few seeds; quality as in the findings):", "",
         "| group | P | setting | seeds | quality (median) | control's (median) | largest norm / "
         "control's (median) | collective bytes per rank and tick | model us/tick |",
         "|---" * 9 + "|"]
    for (g, P, s), runs in sorted(short_cells.items()):
        ctrl = short_cells.get((g, P, "control")) or cells.get((g, P, "control")) or {}
        q = float(np.median([r["q"] for r in runs.values()]))
        cq = float(np.median([r["q"] for r in ctrl.values()])) if ctrl else math.nan
        cw = median_norm(ctrl)
        nr = float(np.median([divergence_norm(r) for r in runs.values()])) / cw if cw \
            else math.nan
        cost = mean_cost(runs)
        L.append(f"| {g} | {P} | {label(s)} | {len(runs)} | {q:.4f} | "
                 + ("-" if math.isnan(cq) else f"{cq:.4f}") + " | "
                 + ("-" if math.isnan(nr) else f"{nr:.3g}") + f" | {human(cost['coll_bytes'])} | "
                 f"{model_comm_us(cost, P):.0f} |")
    return L + [""]


def coverage(cells, design, short_cells=None):
    """What of the full design ran (10 seeds or more), by group: the rank counts complete, in
    part (some cells, or some with fewer seeds) and the cells missing."""
    L = []
    done = set(cells)
    some = done | set(short_cells or {})
    for g in dict.fromkeys(x[0] for x in design):
        mine = [x for x in design if x[0] == g]
        full = sorted({p for _, p, _ in mine if all(x in done for x in mine if x[1] == p)})
        part = sorted({p for _, p, _ in mine if p not in full and any(x in some for x in mine
                                                                     if x[1] == p)})
        miss = sorted({p for _, p, _ in mine if p not in full and p not in part})
        L.append(f"* `{g}`: complete at P = {', '.join(map(str, full)) or 'none'}"
                 + (f"; in part at P = {', '.join(map(str, part))}" if part else "")
                 + (f"; not run at P = {', '.join(map(str, miss))}" if miss else ""))
    n = sum(1 for x in design if x in done)
    return [f"Of the design's {len(design)} cells (`tools/sync-study design`), {n} ran:", ""] \
        + L + [""]


def provenance(cells):
    """What the runs came from: their worlds and world hashes, counted, and how many commits
    built their binaries (the commits themselves are in the table: docs/ names none)."""
    by, commits = {}, set()
    for (g, P, s), runs in cells.items():
        for r in runs.values():
            if st.is_shared(r):  # counted in the strong cell
                continue
            key = (r.get("world", "?"), r.get("world_hash", "unknown"))
            by[key] = by.get(key, 0) + 1
            commits.add(r.get("commit", "unknown"))
    known = sorted(c for c in commits if c != "unknown")
    built = (f"binaries built from {len(known)} commit{'s' if len(known) != 1 else ''} (the "
             "table's *commit* column)" if known else "the commits that built them unknown")
    if known and "unknown" in commits:
        built += ", some runs' commit unknown"
    return ("Where the runs come from (world, world file's hash: runs): "
            + "; ".join(f"{w}, `{h}`: {n}" for (w, h), n in sorted(by.items()))
            + f"; {built}.")


def main(d, output, figdir, title, groups, design=(), min_seeds=10, decl=None):
    decl = dict(DECLARED, **(decl or {}))
    cells = load(d, groups)
    if not cells:
        print(f"tools/sync-study: error: no results files or table under {d}")
        return 1
    short = sorted(k for k, v in cells.items() if len(v) < min_seeds)
    short_cells = {k: cells.pop(k) for k in short}
    rows = analyse(cells, groups, decl)
    os.makedirs(figdir, exist_ok=True)
    rel = os.path.relpath(figdir, os.path.dirname(os.path.abspath(output)))
    n_shared = sum(st.is_shared(r) for v in cells.values() for r in v.values())
    n_runs = sum(len(v) for v in cells.values()) - n_shared
    tested = [r for r in rows if "loss" in r]
    fams = sorted({r["family"] for r in tested})
    L = [f"# {title}", "",
         "Generated by `tools/sync-study report` from the results alone "
         f"({n_runs} runs in {len(cells)} cells"
         + (f"; {n_shared} of the strong design's runs are also those of the weak cells that "
            "are the same cells, B / P x P = B on the same world" if n_shared else "")
         + "; the results table: "
         f"[{rel}/results.tsv]({rel}/results.tsv)); do not edit by hand. How the study is built, "
         "and what each setting means: [the guide](../guide/synchronisation.md#synchronisation-study).",
         "", provenance(cells), "",
         "**Reading the tables.** *loss* is the quality lost against the strict control (budget "
         "global, E = 1, K = 1, weight_sync sum) at the same P and run seeds, paired seed by "
         "seed: the control's quality minus the setting's (the quality each group names: the "
         "area under the learning curve, or the final harvest rate; for J_h, the "
         "setting's harmonic staleness cost minus the control's), so a positive loss is "
         "worse; the interval is the 95 % Student t interval of the paired mean. "
         "**Collapses, declared before the results** (`tools/sync-study`): a seed collapsed when "
         f"its quality is below {decl['fraction']:g} x the control's median at the same P (above "
         f"the median / {decl['fraction']:g} for J_h; in the bandwidth table, SARSA against "
         "best-first's median at the same B), marked **x!** in *seeds*, or when its "
         f"weights diverged: their largest norm over the run (the final one in tables before "
         f"the diagnostics) above {decl['factor']:g} x the control's median, or "
         "not finite, marked **x~**. *collapsed* gives k of n with the exact (Clopper-Pearson) "
         "95 % interval of the collapse probability; *loss, others* the paired loss over the "
         "seeds that did not collapse. A cell with a mixed outcome (some seeds collapsed, not "
         "all) needs 30 seeds to estimate its probability; the cells that have fewer are listed "
         "below. **Verdicts**: *collapses (k of n)* whenever a seed collapsed, whatever the mean "
         "says; *no effect (equivalent)* only when the two one-sided tests (TOST) show the paired "
         f"loss within +-{100 * decl['margin']:g} % of the control's mean quality (the declared "
         "margin), after Holm, and the t test shows no difference (*worse within the margin* "
         "when it does); *worse* or *better* when the paired t test rejects 0 after Holm; "
         "else *inconclusive* (neither a difference nor an equivalence is shown). *p (t)* is the "
         "paired t test's two-sided p-value, *p (sign-flip)* the exact sign-flip permutation "
         "test's (no normality assumed; never below 2 / 2^n, 0.002 for 10 seeds), *p (TOST)* the "
         "equivalence test's. **Multiple comparisons**: "
         f"{len(tested)} comparisons in {len(fams)} families declared in the design "
         f"({', '.join(fams)}); *Holm* adjusts the t and the TOST p-values within each family. "
         "Costs are per rank and tick from "
         "the counters: collective calls and their payload bytes (allreduces among them), and "
         "the frontier exchange's bytes per fetch and messages per tick over all ranks; *s/tick* is wall-clock time per tick, shown only at "
         "P <= 2 (larger P oversubscribes this machine's 2 cores) and only indicative: the "
         "sweep's runs shared the machine with other work. *model us/tick* is the communication "
         "time per rank and tick that the [performance model](../developer/performance-model.md) "
         "predicts on the shipped platform (`tools/smpi/supermuc-ng.xml`, one rank per node) from "
         "the cell's own counters: each collective call one small collective of the simulated "
         "cluster (t_c(P)) plus its payload twice over a link, each exchange message one latency "
         "plus its bytes over the link (a small collective: log2 P rounds of one latency). Against "
         "the simulated cluster its network terms agree within 10 % at 16 and 128-1 024 ranks "
         "and overestimate by 50-70 % at 64; it predicts no computation, which is the same in "
         "every setting of a cell's P.", ""]
    if design:
        L += coverage(cells, list(design), short_cells)
    if short:
        L += [f"Left out, fewer than {min_seeds} seeds so far: "
              + "; ".join(f"{g} P = {P} {label(st)}" for g, P, st in short) + ".", ""]
        L += short_table(short_cells, cells)
    L += findings(rows, groups)
    curves = any(not math.isnan(r.get("auc", math.nan)) for runs in cells.values()
                 for r in runs.values())
    if curves:
        # the second edition's sections: run length, the learning curve, the diagnostics
        L += sync_sections.plateau(cells, groups, decl, figdir, rel)
        L += sync_sections.curve_quality(rows, cells, groups)
        L += sync_sections.diagnostics(rows, cells, decl, figdir, rel)
        L += sync_sections.by_criterion(rows, cells, decl)
        L += sync_sections.quiet_collapses(rows, cells, decl, figdir, rel)
    L += sensitivity(cells, groups, decl)
    mixed = [r for r in rows if 0 < len(r["collapsed"]) < r["n"] and r["n"] < 30]
    if mixed:
        L += ["Mixed outcomes with fewer than 30 seeds (run them to 30: "
              "`tools/sync-study run --seeds 30` adds the missing seeds of every cell): "
              + "; ".join(f"{r['group']} P = {r['P']} {label(r['setting'])} "
                          f"({collapse_text(r)})" for r in mixed) + ".", ""]
    for g in [x for x in groups if any(r["group"] == x for r in rows)]:
        world, pol, metric, higher = groups[g]
        qname = {"harvest": "harvest rate", "auc": "the area under the learning curve (the "
                 "cumulative harvest rate over the run, normalised)"}.get(metric, "J_h")
        L += [f"## {g}", "",
              f"World `{world}`, {' '.join('`' + w + '`' for w in pol)}; quality: {qname} "
              f"({'higher' if higher else 'lower'} is better).", "",
              "| P | setting | n | median | loss [95 % interval] | rel. | p (t) | p (sign-flip) | p (t, Holm) | "
              "p (TOST, Holm) | verdict | collapsed [95 % CP] | loss, others | seeds | "
              "calls/tick | coll. B/tick | allreduce B/tick | "
              "exch. B/fetch | exch. msgs/tick | s/tick | model us/tick |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in [r for r in rows if r["group"] == g and not bandwidth_cell(r["setting"])]:
            c = r["cost"]
            loss = (f"{r['loss']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}]" if "loss" in r
                    else "(control)" if r["setting"] == "control" else "(fewer than 2 pairs)")
            others = (f"{r['ok_loss']:+.4f} [{r['ok_lo']:+.4f}, {r['ok_hi']:+.4f}]"
                      if "ok_loss" in r and r["collapsed"] else "")
            L.append("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s | %s | %.1f | %.2f | %s | %.1f |"
                     % (r["P"], label(r["setting"]), r["n"], fmt(r["median"], 4), loss,
                        f"{100 * r['rel']:+.1f} %" if "rel" in r else "",
                        fmt(r.get("p"), 4), fmt(r.get("p_perm"), 4), fmt(r.get("p_holm"), 4),
                        fmt(r.get("p_tost_holm"), 4), verdict(r),
                        collapse_text(r), others, seeds_text(r, higher), c["coll"],
                        human(c["coll_bytes"]), human(c["allreduce_bytes"]),
                        c["xbytes_per_fetch"], c["msgs_per_tick"],
                        f"{1000 * c['sec_per_tick']:.2f} ms" if r["P"] <= 2 else "-",
                        model_comm_us(c, r["P"])))
        L.append("")
        for kind, fn in (("losses", figure_losses), ("seeds", figure_seeds),
                         ("pareto", figure_pareto)):
            p = fn(rows, g, os.path.join(figdir, f"{g}-{kind}.png"))
            if p:
                L.append(f"![{g}: {kind}]({rel}/{os.path.basename(p)})")
                L.append("")
        bw = [r for r in rows if r["group"] == g and r["P"] == 1 and
              (bandwidth_cell(r["setting"]) or r["setting"] == "control")]
        if len(bw) > 1:
            L += ["### Bandwidth under `sum`: learning gain of SARSA over best-first at the "
                  "same B", "",
                  "The same fetches at bandwidths B (one rank: the strict setting is "
                  "rank-invariant), SARSA at the job's alpha = 0.001 (alpha x B from 0.016 to "
                  "1.024) against best-first, which does not learn; the gain is paired by seed.",
                  "", "| B | alpha x B | SARSA median | best-first median | gain [95 % interval] |"
                  " collapsed SARSA seeds |", "|---|---|---|---|---|---|"]
            by = {}
            for r in bw:
                m = re.search(r"B=(\d+)", r["setting"])
                B = int(m.group(1)) if m else 64
                by.setdefault(B, {})["bf" if r["setting"].startswith("best") else "s"] = r
            for B in sorted(by):
                s, b = by[B].get("s"), by[B].get("bf")
                if s is None or b is None:
                    continue
                common = [k for k in s["seeds"] if k in b["seeds"]]
                qs = dict(zip(s["seeds"], s["q"]))
                qb = dict(zip(b["seeds"], b["q"]))
                dd = np.array([qs[k] - qb[k] for k in common])
                half = t975(len(dd) - 1) * dd.std(ddof=1) / math.sqrt(len(dd))
                L.append(f"| {B} | {0.001 * B:.3f} | {s['median']:.4f} | {b['median']:.4f} | "
                         f"{dd.mean():+.4f} [{dd.mean() - half:+.4f}, {dd.mean() + half:+.4f}] | "
                         f"{len(s['collapsed'])} |")
            L.append("")
    tot_c = sum(len(r["collapsed"]) for r in rows)
    tot_s = sum(r["n"] for r in rows)
    tot_w = sum(len(r["with_control"]) for r in rows)
    L += ["## Collapsed seeds", "",
          f"{tot_c} of {tot_s} runs collapsed (the declared criterion above: quality, or "
          "diverged weights); by cell, with the 95 % Clopper-Pearson interval of the collapse "
          f"probability. {tot_w} of them are seeds on which the strict control at the same P "
          "collapses too (*also the control's*): a crawl whose start leaves it little to find, "
          "which the setting does not cause; the verdicts keep the declared count.", ""]
    for r in rows:
        if r["collapsed"]:
            why = []
            if r["low"]:
                why.append("quality: seeds " + ", ".join(str(k) for k in r["low"]))
            if r["diverged"]:
                why.append("weights diverged: seeds " + ", ".join(str(k) for k in r["diverged"]))
            if r["with_control"]:
                why.append("also the control's: seeds " + ", ".join(str(k) for k in r["with_control"]))
            L.append(f"* {r['group']}, P = {r['P']}, {label(r['setting'])}: "
                     f"{collapse_text(r)} ({'; '.join(why)})")
    L.append("")
    if decl.get("design_runs"):
        L += sync_sections.slurm_split(cells, decl)
    with open(output, "w") as f:
        f.write("\n".join(L))
    print(f"tools/sync-study: wrote {output} ({len(rows)} cells, {len(tested)} comparisons) and "
          f"figures in {figdir}")
    return 0
