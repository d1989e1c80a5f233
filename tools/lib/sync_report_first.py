"""The FIRST EDITION of the synchronisation study's report, kept as it was so that its report
(docs/reports/sync-study-first-edition.md) regenerates byte for byte from its table
(tools/sync-study report --first-edition); the only change is that the link to the table follows
the figures' folder. The current report is sync_report.py; the functions the two editions share
unchanged (figures, formatting, the permutation test, Holm) are imported from it and from
sync_stats.py rather than kept twice.

The synchronisation study's report (tools/sync-study report): statistics, tables and figures
from the results files in DIR/runs/<group>/P<P>/<setting>/seed-NN.h5 and the results table
DIR/results.tsv (or a results table alone) only.

For every setting, each seed is paired with the strict control of the same group, P and seed:
loss = control - setting for a quality where larger is better (harvest rate), setting - control
where smaller is better (J_h), so a positive loss is always worse. Per cell: the mean loss with
its 95 % Student t interval, the median, every seed's quality (a collapsed seed is marked), the
sign-flip permutation p-value (exact up to 16 seeds), and Holm's adjustment over all the
comparisons of the report. Costs come from the counters of the results files, never from clocks,
but for the time per tick, which is reported at P <= 2 only (on this machine P > 2 oversubscribes
its 2 cores).
"""
import math
import os
import re

import numpy as np

try:
    import h5py
except ImportError as e:  # pragma: no cover
    raise SystemExit(f"tools/sync-study: error: {e}: install python3-h5py and "
                     "python3-matplotlib (tools/install-deps)")

import sys  # noqa: E402

# what the first edition shares, unchanged, with the current report and its statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sync_report import (bandwidth_cell, comm_per_fetch, coverage, figure_losses,  # noqa: E402
                         figure_pareto, figure_seeds, fmt, human, label, model_comm_us,
                         pareto, perm_p, t975)
from sync_stats import betainc, holm  # noqa: E402


def read_run(path, metric):
    with h5py.File(path, "r") as f:
        ticks = int(f["/final/ticks"][0])
        P = int(f["/ranks/pages"].shape[0])
        fetched = int(f["/final/fetched"][0])
        q = float(f["/final/harvest_rate"][0]) if metric == "harvest" else \
            float(f["/final/" + metric][0])

        def last(name):
            d = f.get("/series/" + name)
            return float(d[-1]) if d is not None and d.shape[0] > 0 else float("nan")

        return {
            "q": q, "P": P, "ticks": ticks, "fetched": fetched,
            # per rank and tick (series are summed over ranks)
            "coll": last("collectives") / P / ticks,
            "coll_bytes": last("collective_bytes") / P / ticks,
            "allreduce": last("allreduces") / P / ticks,
            "allreduce_bytes": last("allreduce_bytes") / P / ticks,
            # the frontier exchange, over all ranks
            "xbytes_per_fetch": last("bytes_exchanged") / max(fetched, 1),
            "msgs_per_tick": last("messages") / ticks,
            "sec_per_tick": float(f["/timing/seconds"][0]) / ticks,
        }


# the results table: one line per run, every number the report uses at full precision (repr),
# so a report from the table is the report from the results files it was made from
FIELDS = ["q", "P", "ticks", "fetched", "coll", "coll_bytes", "allreduce", "allreduce_bytes",
          "xbytes_per_fetch", "msgs_per_tick", "sec_per_tick"]
TABLE_HEAD = "group\tP\tsetting\tseed\t" + "\t".join(FIELDS[:1] + FIELDS[2:])


def read_table(path, groups, cells):
    """Adds the runs of a results table (tools/sync-study table) to cells."""
    with open(path) as f:
        head = f.readline().rstrip("\n")
        if head != TABLE_HEAD:
            raise SystemExit(f"tools/sync-study: error: {path}: not a results table "
                             f"(its first line is not the header {TABLE_HEAD!r})")
        for n, line in enumerate(f, 2):
            w = line.rstrip("\n").split("\t")
            if len(w) != 4 + len(FIELDS) - 1:
                raise SystemExit(f"tools/sync-study: error: {path}:{n}: {len(w)} fields")
            g, P, st, seed = w[0], int(w[1]), w[2], int(w[3])
            if g not in groups:
                continue
            run = {"q": float(w[4]), "P": P}
            for k, v in zip(FIELDS[2:], w[5:]):
                run[k] = int(v) if k in ("ticks", "fetched") else float(v)
            cells.setdefault((g, P, st), {})[seed] = run


def write_table(cells, path):
    """Writes cells as a results table, sorted by group, P, setting and seed."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(TABLE_HEAD + "\n")
        for (g, P, st), runs in sorted(cells.items()):
            for seed, r in sorted(runs.items()):
                f.write("\t".join([g, str(P), st, str(seed)] +
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
                        run = read_run(os.path.join(root, g, pdir, sdir, fn), metric)
                        cells.setdefault((g, P, sdir), {})[int(m.group(1))] = run
    return cells


def t_p(d):
    """Two-sided p-value of the paired t test of mean(d) = 0."""
    d = np.asarray(d, float)
    n = len(d)
    sd = d.std(ddof=1)
    if sd == 0:
        return 0.0 if d.mean() != 0 else 1.0
    t = d.mean() / (sd / math.sqrt(n))
    df = n - 1
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def analyse(cells, groups):
    """Per (group, P, setting) other than control: the paired statistics against the control."""
    rows = []
    for (g, P, s), runs in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                 kv[0][2] != "control", kv[0][2])):
        ctrl = cells.get((g, P, "control"))
        higher = groups[g][3]
        seeds = sorted(runs)
        q = np.array([runs[k]["q"] for k in seeds])
        row = {"group": g, "P": P, "setting": s, "n": len(seeds), "seeds": seeds, "q": q,
               "median": float(np.median(q)), "mean": float(q.mean()),
               "cost": {k: float(np.mean([runs[x][k] for x in seeds]))
                        for k in runs[seeds[0]] if k not in ("q", "P")}}
        # collapsed: a seed at less than half the control's median (more than twice, for a
        # smaller-is-better quality)
        # the bandwidth table's cells: best-first against its own median, SARSA at B against
        # best-first at the same B (learning that ends below half of not learning)
        if s.startswith("best-first"):
            ref = runs
        elif s.startswith("sarsa_B"):
            ref = cells.get((g, P, "best-first_" + s[len("sarsa_"):])) or runs
        else:
            ref = cells.get((g, P, "control")) or runs
        cm = float(np.median([r["q"] for r in ref.values()]))
        row["collapsed"] = [k for k in seeds
                            if (runs[k]["q"] < 0.5 * cm if higher else runs[k]["q"] > 2 * cm)]
        if s != "control" and ctrl is not None and not bandwidth_cell(s):
            paired = [k for k in seeds if k in ctrl]
            if len(paired) >= 2:
                d = np.array([(ctrl[k]["q"] - runs[k]["q"]) if higher
                              else (runs[k]["q"] - ctrl[k]["q"]) for k in paired])
                half = t975(len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
                row.update(loss=float(d.mean()), lo=float(d.mean() - half),
                           hi=float(d.mean() + half), loss_median=float(np.median(d)),
                           p=t_p(d), p_perm=perm_p(d), npair=len(d),
                           rel=float(d.mean() / np.mean([ctrl[k]["q"] for k in paired])))
        rows.append(row)
    tested = [r for r in rows if "p" in r]
    for r, a in zip(tested, holm([r["p"] for r in tested])):
        r["p_holm"] = a
    return rows


def verdict(r):
    if "loss" not in r:
        return ""
    if r["lo"] <= 0 <= r["hi"]:
        return "no measurable effect"
    word = "worse" if r["loss"] > 0 else "better"
    return word + ("" if r["p_holm"] < 0.05 else " (not after Holm)")


def seeds_text(r, higher):
    out = []
    for k, v in zip(r["seeds"], r["q"]):
        out.append(f"**{v:.3f}!**" if k in r["collapsed"] else f"{v:.3f}")
    return " ".join(out)


def findings(rows, groups):
    """The findings, one line per group and setting across P, from the statistics alone."""
    L = ["## Findings", "",
         "Per group and setting, at each P: the verdict and the paired loss with its 95 % "
         "interval (a positive loss is worse than the strict control); collapsed seeds are "
         "counted. Communication: collective payload bytes per rank and tick against the "
         "control's at the same P, and the performance model's predicted communication time "
         "per rank and tick on the shipped platform (*model*, below) against the control's.", ""]
    for g in [x for x in groups if any(r["group"] == x for r in rows)]:
        L.append(f"**{g}**")
        L.append("")
        sub = [r for r in rows if r["group"] == g and "loss" in r]
        ctrl = {r["P"]: r for r in rows if r["group"] == g and r["setting"] == "control"}
        for st in sorted({r["setting"] for r in sub}):
            parts = []
            for r in sorted((r for r in sub if r["setting"] == st), key=lambda r: r["P"]):
                c0 = ctrl[r["P"]]["cost"]["coll_bytes"]
                save = (1 - r["cost"]["coll_bytes"] / c0) * 100 if c0 > 0 else 0.0
                coll = f", {len(r['collapsed'])} of {r['n']} seeds collapsed" \
                    if r["collapsed"] else ""
                m0 = model_comm_us(ctrl[r["P"]]["cost"], r["P"])
                m = model_comm_us(r["cost"], r["P"])
                parts.append(f"P = {r['P']}: {verdict(r)}, {r['loss']:+.4f} "
                             f"[{r['lo']:+.4f}, {r['hi']:+.4f}]{coll}, "
                             f"{-save:+.0f} % collective bytes, model "
                             f"{m:.0f} us/tick (control {m0:.0f})")
            L.append(f"* {label(st)}: " + "; ".join(parts))
        L.append("")
    return L


def main(d, output, figdir, title, groups, design=(), min_seeds=10):
    cells = load(d, groups)
    if not cells:
        print(f"tools/sync-study: error: no results files or table under {d}")
        return 1
    short = sorted(k for k, v in cells.items() if len(v) < min_seeds)
    for k in short:
        del cells[k]
    rows = analyse(cells, groups)
    os.makedirs(figdir, exist_ok=True)
    rel = os.path.relpath(figdir, os.path.dirname(os.path.abspath(output)))
    n_runs = sum(len(v) for v in cells.values())
    tested = [r for r in rows if "loss" in r]
    L = [f"# {title}", "",
         "Generated by `tools/sync-study report` from the results alone "
         f"({n_runs} runs in {len(cells)} cells; the results table: "
         f"[{rel}/results.tsv]({rel}/results.tsv)); do not edit by hand. How the study is built, "
         "and what each setting means: [the guide](../guide/synchronisation.md#synchronisation-study).",
         "",
         "**Reading the tables.** *loss* is the quality lost against the strict control (budget "
         "global, E = 1, K = 1, weight_sync sum) at the same P and run seeds, paired seed by "
         "seed: the control's harvest rate minus the setting's (for `lambda-learn`, the "
         "setting's harmonic staleness cost J_h minus the control's), so a positive loss is "
         "worse; the interval is the 95 % Student t interval of the paired mean. *seeds* lists "
         "each seed's quality; **x!** marks a collapsed seed (below half the control's median "
         "quality; above twice it for J_h), counted in *coll.* and never averaged away "
         "silently. *p (t)* is the paired t test's two-sided p-value and *p (sign-flip)* the "
         "exact sign-flip permutation test's, which assumes no normality but cannot go below "
         "2 / 2^n (0.002 for 10 seeds); "
         f"**multiple comparisons**: the report makes {len(tested)} comparisons, so about "
         f"{0.05 * len(tested):.1f} would fall outside their 95 % intervals by chance alone; "
         "*p (Holm)* is Holm's step-down adjustment of the t tests' p-values over all of them, "
         "and a verdict that holds only without it says so. Costs are per rank and tick from "
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
        L += coverage(cells, list(design))
    if short:
        L += [f"Left out, fewer than {min_seeds} seeds so far: "
              + "; ".join(f"{g} P = {P} {label(st)}" for g, P, st in short) + ".", ""]
    L += findings(rows, groups)
    for g in [x for x in groups if any(r["group"] == x for r in rows)]:
        world, pol, metric, higher = groups[g]
        qname = "harvest rate" if metric == "harvest" else "J_h"
        L += [f"## {g}", "",
              f"World `{world}`, {' '.join('`' + w + '`' for w in pol)}; quality: {qname} "
              f"({'higher' if higher else 'lower'} is better).", "",
              "| P | setting | n | median | loss [95 % interval] | rel. | p (t) | p (sign-flip) | p (Holm) | "
              "verdict | coll. | seeds | calls/tick | coll. B/tick | allreduce B/tick | "
              "exch. B/fetch | exch. msgs/tick | s/tick | model us/tick |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in [r for r in rows if r["group"] == g and not bandwidth_cell(r["setting"])]:
            c = r["cost"]
            loss = (f"{r['loss']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}]" if "loss" in r
                    else "(control)" if r["setting"] == "control" else "(fewer than 2 pairs)")
            L.append("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %d | %s | %.1f | %s | %s | %.1f | %.2f | %s | %.1f |"
                     % (r["P"], label(r["setting"]), r["n"], fmt(r["median"], 4), loss,
                        f"{100 * r['rel']:+.1f} %" if "rel" in r else "",
                        fmt(r.get("p"), 4), fmt(r.get("p_perm"), 4), fmt(r.get("p_holm"), 4),
                        verdict(r),
                        len(r["collapsed"]), seeds_text(r, higher), c["coll"],
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
    L += ["## Collapsed seeds", "",
          f"{tot_c} of {tot_s} runs collapsed (below half the median of the control at the "
          "same P; above twice it for J_h; in the bandwidth table, SARSA below half of "
          "best-first's median at the same B, best-first below half of its own); by cell:", ""]
    for r in rows:
        if r["collapsed"]:
            L.append(f"* {r['group']}, P = {r['P']}, {label(r['setting'])}: "
                     f"{len(r['collapsed'])} of {r['n']} (seeds "
                     f"{', '.join(str(k) for k in r['collapsed'])})")
    L.append("")
    with open(output, "w") as f:
        f.write("\n".join(L))
    print(f"tools/sync-study: wrote {output} ({len(rows)} cells, {len(tested)} comparisons) and "
          f"figures in {figdir}")
    return 0
