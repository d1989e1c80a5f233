"""The second edition's sections of the synchronisation study's report (tools/sync-study report),
from the results table alone: whether the runs are long enough (the control's learning curve
flattened), quality as the learning curve (paired losses at fixed fractions of the run and of
its area), the diagnostics against quality (the weights' divergence and the step per window
against the loss, per seed) and how the design splits into Slurm arrays, with its estimated
time.
"""
import collections
import math

import numpy as np

import matplotlib.pyplot as plt

import sync_stats as st

# the fractions of the run the curve table gives (the table holds the cumulative harvest rate
# at every tenth: c10 ... c100)
CURVE_AT = [20, 50, 80, 100]


def _median(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return float(np.median(xs)) if xs else math.nan


def _label(s):
    return s.replace("__", ", ").replace("_", " ")


def plateau(cells, groups, decl, figdir, rel):
    """The control's learning curve per group and P: its windowed harvest rate over the last
    tenth of the run against the two tenths before (flattened when within the declared
    fraction), and a figure of the control's curves."""
    tol = decl.get("plateau", 0.1)
    L = ["## Run length: the control's learning curve", "",
         f"Declared: a run is long enough when the strict control's learning curve has "
         f"flattened, its harvest rate over the last tenth of the run within {100 * tol:g} % of "
         "the rate over the two tenths before (median over seeds; the design's runs are at "
         "least 10 % of the world where the world allows it). *change* is that relative "
         "difference; a group with a P not flattened needs longer runs before its losses "
         "speak for the end of the learning"]
    # the share of the world's relevant pages found, where the table knows the worlds
    known = any(not math.isnan(r.get("world_relevant", math.nan))
                for (g, P, s), runs in cells.items() if s == "control" for r in runs.values())
    if known:
        L[-1] += (", unless the curve falls because the relevant pages run out: *found* is the "
                  "share of the world's relevant pages the control has fetched by the end "
                  "(median over seeds), which a longer run can only raise while the harvest "
                  "rate falls towards the world's share of relevant pages")
    L[-1] += "."
    L += ["", "| group | P | seeds | change (median) | flattened | harvest rate at 20 / 50 / 100 % |"
          + (" found |" if known else ""), "|---" * (7 if known else 6) + "|"]
    figs = []
    for g in groups:
        ctrl = sorted((P, runs) for (gg, P, s), runs in cells.items()
                      if gg == g and s == "control")
        if not ctrl:
            continue
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for P, runs in ctrl:
            ch = _median([r.get("plateau", math.nan) for r in runs.values()])
            cur = [_median([r.get("c%d" % c, math.nan) for r in runs.values()])
                   for c in range(10, 101, 10)]
            flat = "-" if math.isnan(ch) else "yes" if ch <= tol else "**no**"
            found = _median([r.get("c100", math.nan) * r.get("fetched", math.nan) /
                             r.get("world_relevant", math.nan)
                             if r.get("world_relevant", 0) else math.nan for r in runs.values()])
            L.append(f"| {g} | {P} | {len(runs)} | {ch:.3f} | {flat} | "
                     f"{cur[1]:.4f} / {cur[4]:.4f} / {cur[9]:.4f} |"
                     + ((" - |" if math.isnan(found) else f" {100 * found:.1f} % |")
                        if known else ""))
            ax.plot(range(10, 101, 10), cur, marker="o", ms=3, label=f"P = {P}")
        ax.set_xlabel("% of the run's fetches")
        ax.set_ylabel("cumulative harvest rate (median)")
        ax.set_title(f"{g}: the strict control's learning curve", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = f"{figdir}/{g}-curve.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        figs.append(f"![{g}: learning curve]({rel}/{g}-curve.png)")
    return L + [""] + [x for f in figs for x in (f, "")]


def curve_quality(rows, cells, groups):
    """Per cell: the paired loss of the cumulative harvest rate at CURVE_AT % of the run and of
    the area under the curve (the group's quality), and the collapses."""
    L = ["## Quality along the learning curve", "",
         "The paired loss (control minus setting, same P and seed; positive is worse) of the "
         "cumulative harvest rate at " + ", ".join(f"{c} %" for c in CURVE_AT) +
         " of the run, and of the area under the curve (*AUC*, the quality the verdicts use), "
         "mean over seeds; *collapsed* as declared. A loss that shrinks along the run is a "
         "slower start; one that grows is a learner that falls behind.", "",
         "| group | P | setting | n | " + " | ".join(f"loss at {c} %" for c in CURVE_AT) +
         " | loss of AUC | collapsed |", "|---" * (5 + len(CURVE_AT)) + "|---|"]
    for r in rows:
        if "loss" not in r:
            continue
        g, P, s = r["group"], r["P"], r["setting"]
        ctrl, runs = cells.get((g, P, "control"), {}), cells[(g, P, s)]
        keys = [k for k in sorted(runs) if k in ctrl]
        at = []
        for c in CURVE_AT:
            d = [ctrl[k].get("c%d" % c, math.nan) - runs[k].get("c%d" % c, math.nan)
                 for k in keys]
            at.append(f"{np.mean(d):+.4f}" if d and not any(map(math.isnan, d)) else "-")
        L.append(f"| {g} | {P} | {_label(s)} | {r['n']} | " + " | ".join(at) +
                 f" | {r['loss']:+.4f} | {len(r['collapsed'])}/{r['n']} |")
    return L + [""]


Point = collections.namedtuple(
    "Point", "ratio step spread loss collapsed group P setting diverged active")


def _diag_points(rows, cells):
    """Per seed of every compared cell, a Point: its largest norm over the control's median
    (ratio), step per window, spread, paired loss, whether it collapsed or its weights diverged
    as declared, its cell (group, P, setting) and its active ranks."""
    out = []
    for r in rows:
        if "loss" not in r:
            continue
        g, P, s = r["group"], r["P"], r["setting"]
        ctrl, runs = cells.get((g, P, "control"), {}), cells[(g, P, s)]
        c0 = _median([ctrl[k].get("wnorm_max", math.nan) for k in ctrl])
        for k in sorted(runs):
            if k not in ctrl:
                continue
            x = runs[k]
            ratio = x.get("wnorm_max", math.nan) / c0 if c0 and c0 > 0 else math.nan
            out.append(Point(ratio, x.get("step_max", math.nan), x.get("spread_max", math.nan),
                             ctrl[k]["q"] - x["q"], k in r["collapsed"], g, P, s,
                             k in r.get("diverged", ()), x.get("active_ranks", math.nan)))
    return out


def diagnostics(rows, cells, decl, figdir, rel):
    """The diagnostics against quality: per seed, the largest weights' norm over the run against
    the control's, and the largest step per synchronisation window, against the paired loss;
    and, per P, whether a step per window separates the runs whose weights diverged from the
    others (the design's prediction)."""
    pts = _diag_points(rows, cells)
    L = ["## The diagnostics against quality", "",
         "Every seed of every compared cell: its largest weights' norm over the run relative to "
         "the control's median (the divergence criterion's measure), and its largest step per "
         "synchronisation window (`/series/step`: alpha x K x B, / P under `average`), against "
         "its paired loss; red: collapsed as declared. The prediction the design tests: runs "
         "diverge only when the step per window exceeds a bound, which the `window` step rule "
         "keeps at 0.01.", ""]
    if not pts:
        return L + ["No compared cells in this table.", ""]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, i, name in ((axes[0], "ratio", "largest weights' norm / control's"),
                        (axes[1], "step", "largest step per window")):
        xs = [getattr(p, i) for p in pts]
        ys = [p.loss for p in pts]
        cs = ["red" if p.collapsed else "C0" for p in pts]
        ok = [j for j, x in enumerate(xs) if math.isfinite(x) and x > 0]
        ax.scatter([xs[j] for j in ok], [ys[j] for j in ok], s=10, c=[cs[j] for j in ok])
        ax.set_xscale("log")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xlabel(name)
    axes[0].set_ylabel("paired loss of AUC")
    fig.tight_layout()
    fig.savefig(f"{figdir}/diagnostics.png", dpi=100)
    plt.close(fig)
    L += [f"![diagnostics against quality]({rel}/diagnostics.png)", ""]
    n_col = sum(1 for p in pts if p.collapsed)
    L.append(f"Collapsed seeds (either criterion): {n_col} of {len(pts)}. Seeds whose weights "
             f"diverged (largest norm above {decl['factor']:g} x the control's median, or not "
             "finite): "
             f"{sum(1 for p in pts if p.diverged)}. Per P, the step per window of the diverged "
             "seeds against the others' (seeds with a finite step):")
    L += ["", "| P | seeds | diverged | their cells | their step per window | the others' "
          "largest step | a bound? |", "|---" * 7 + "|"]
    bounds = []
    for P in sorted({p.P for p in pts}):
        at = [p for p in pts if p.P == P and math.isfinite(p.step)]
        dv = [p for p in at if p.diverged]
        ok = [p.step for p in at if not p.diverged]
        where = ", ".join(sorted({f"{p.group} {_label(p.setting)}" for p in dv})) or "-"
        if dv and ok:
            lo, hi = min(p.step for p in dv), max(ok)
            same = [p for p in at if not p.diverged and p.step >= lo]
            verdict = (f"yes: between {hi:.4g} and {lo:.4g}" if lo > hi else
                       f"no: {len(same)} seeds that did not diverge took a step of at least "
                       f"{lo:.4g} (" + ", ".join(sorted({f"{p.group} {_label(p.setting)}"
                                                        for p in same})) + ")")
            bounds.append((P, lo > hi, lo, hi))
            span = f"{lo:.4g} to {max(p.step for p in dv):.4g}"
        else:
            verdict, span = ("- (none diverged)" if not dv else "-"), "-"
        others = f"{max(ok):.4g}" if ok else "-"
        L.append(f"| {P} | {len(at)} | {len(dv)} | {where} | {span} | {others} | {verdict} |")
    L.append("")
    if not bounds:
        L.append("No seed's weights diverged: the table bounds the step per window from below "
                 "only (every step taken here was safe at its P).")
    elif all(b[1] for b in bounds):
        L.append("Where seeds diverged, a step per window separates them from the others at "
                 "each P; the bounds at the different P: " +
                 "; ".join(f"P = {P}: between {hi:.4g} and {lo:.4g}" for P, _, lo, hi in bounds)
                 + ".")
    else:
        L.append("The step per window alone does not bound divergence at every P: at the same "
                 "step, seeds diverge at one P and not at another, or within one P some do and "
                 "some do not (the table's *no* rows).")
    return L + [""] + _active(pts, figdir, rel)


def _span(xs):
    return f"{min(xs):.3g}" if min(xs) == max(xs) else f"{min(xs):.3g} to {max(xs):.3g}"


def _active(pts, figdir, rel):
    """Which ranks take the step: per cell at a step per window where some seed diverged, the
    active ranks of the diverged seeds against the others'; the figure of both diagnostics."""
    at = [p for p in pts if math.isfinite(p.step) and math.isfinite(p.active)]
    steps = sorted({p.step for p in at if p.diverged})
    if not steps:
        return []
    L = ["### Which ranks take the step", "",
         "A run's active ranks: 1 / sum of s_r^2, s_r the share of the run's fetches that rank r "
         "made (P when every rank fetches as much, 1 when one rank makes every fetch; column "
         "`active_ranks` of the table). Under `sum` each rank takes its own part of a window's "
         "step against weights that hold none of the other ranks' updates of that window, so "
         "the same step taken by few ranks is closer to a serial one. The seeds at each step per "
         "window where some diverged, by cell:", "",
         "| step per window | group | P | setting | seeds | diverged | their active ranks | "
         "the others' |", "|---" * 8 + "|"]
    mixed = []
    for step in steps:
        cells = sorted({(p.group, p.P, p.setting) for p in at if p.step == step},
                       key=lambda c: (c[1], c[0], c[2]))
        for g, P, s in cells:
            c = [p for p in at if (p.group, p.P, p.setting) == (g, P, s) and p.step == step]
            dv, ok = [p.active for p in c if p.diverged], [p.active for p in c if not p.diverged]
            if dv and ok:
                mixed.append((g, P, s, dv, ok))
            L.append(f"| {step:.4g} | {g} | {P} | {_label(s)} | {len(c)} | {len(dv)} | "
                     f"{_span(dv) if dv else '-'} | {_span(ok) if ok else '-'} |")
    L.append("")
    if mixed:
        more = sum(1 for m in mixed if _median(m[3]) > _median(m[4]))
        L.append(f"In {more} of the {len(mixed)} cells where some seeds diverged and others did "
                 "not, the diverged seeds' median active ranks exceed the others'.")
    below = [p.active for p in at if p.step < steps[0]]
    if below:
        L.append(f"Below a step per window of {steps[0]:.4g} no seed diverged, with up to "
                 f"{max(below):.3g} active ranks.")
    for step in steps:
        c = [p for p in at if p.step == step]
        lo = min(p.active for p in c if p.diverged)
        ok = [p for p in c if not p.diverged]
        safe = [p for p in ok if p.active >= lo]
        if not safe:
            L.append(f"At {step:.4g} the active ranks separate the diverged seeds (from {lo:.3g})"
                     + (f" from the others (up to {max(p.active for p in ok):.3g})." if ok else
                        "; every seed at this step diverged."))
        else:
            L.append(f"At {step:.4g} they do not: {len(safe)} seeds with at least {lo:.3g} "
                     "active ranks (the fewest of a diverged seed at this step) did not "
                     f"diverge, with up to {max(p.active for p in safe):.3g} (" +
                     ", ".join(sorted({p.group for p in safe})) +
                     "): the step and the active ranks alone do not decide.")
    L.append("")
    series = []
    for flag, colour, name in ((False, "C0", "did not diverge"), (True, "red", "diverged")):
        q = [p for p in at if p.diverged == flag and p.step > 0]
        series.append(([p.active for p in q], [p.step for p in q], 10, colour, name))
    _loglog(series, "active ranks", "largest step per window", f"{figdir}/active-ranks.png")
    return L + [f"![active ranks and the step]({rel}/active-ranks.png)", ""]


def _loglog(series, xlabel, ylabel, path):
    """A scatter figure on log-log axes: series of (xs, ys, marker size, colour, label)."""
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for xs, ys, size, colour, name in series:
        ax.scatter(xs, ys, s=size, c=colour, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def by_criterion(rows, cells, decl):
    """Per cell with a collapse: the seeds each criterion counts (quality below the threshold,
    weights diverged, diverged while above the threshold), with the median quality and the
    median largest norm against the control's: what a quality threshold alone would count."""
    L = ["## Collapses by criterion", "",
         f"Per cell with a collapsed seed: the seeds whose quality is below {decl['fraction']:g} "
         "x the control's median (the only criterion a study without the diagnostics has), the "
         f"seeds whose weights diverged (largest norm above {decl['factor']:g} x the control's "
         "median, or not finite), and those of them a quality threshold misses; the cell's "
         "median quality against the control's, and its median largest norm over the "
         "control's.", "",
         "| group | P | setting | n | below threshold | diverged | diverged, above threshold | "
         "quality (control) | norm / control's |", "|---" * 9 + "|"]
    n = 0
    for r in rows:
        if not r["collapsed"] or r["setting"] == "control":
            continue
        g, P, s = r["group"], r["P"], r["setting"]
        ctrl, runs = cells.get((g, P, "control"), {}), cells[(g, P, s)]
        c0 = _median([x.get("wnorm_max", math.nan) for x in ctrl.values()])
        nm = _median([x.get("wnorm_max", math.nan) for x in runs.values()])
        q0 = _median([x["q"] for x in ctrl.values()])
        missed = sorted(set(r["diverged"]) - set(r["low"]))
        ratio = nm / c0 if c0 and c0 > 0 and math.isfinite(nm) else math.inf
        L.append(f"| {g} | {P} | {_label(s)} | {r['n']} | {len(r['low'])} | "
                 f"{len(r['diverged'])} | {len(missed)} | {r['median']:.4f} ({q0:.4f}) | "
                 f"{ratio:.3g} |")
        n += 1
    if n == 0:
        L.append("| (no cell with a collapse) | | | | | | | | |")
        return L + [""]
    div = sum(len(r["diverged"]) for r in rows if r["setting"] != "control")
    miss = sum(len(set(r["diverged"]) - set(r["low"])) for r in rows if r["setting"] != "control")
    low_only = sum(len(set(r["low"]) - set(r["diverged"])) for r in rows
                   if r["setting"] != "control")
    return L + ["", f"Of {div} seeds whose weights diverged, {miss} kept their quality above the "
                f"threshold, which alone would have counted them healthy; {low_only} seeds fell "
                "below it without diverging.", ""]


def _quiet(r):
    """A cell's seeds below the quality threshold whose weights did not diverge."""
    return sorted(set(r["low"]) - set(r["diverged"]))


def _stale(setting):
    """Whether a setting leaves the ranks' weights apart between synchronisations (K > 1)."""
    return "K=" in setting


def quiet_collapses(rows, cells, decl, figdir, rel):
    """Collapses without divergence: how many, where (and how many of them the control collapses
    on too, at the same P and seed), the negative control (the control's step moved by 1 % at
    P = 1), when they are decided (the harvest rate over the first tenth of the run against the
    control's), and the design's test of a mechanism: K under the global budget against the
    same K with each rank's own share, paired by seed (an exact sign test, one-sided)."""
    quiet = [(r, k) for r in rows if r["setting"] != "control" and not r["setting"].startswith(
        "null") for k in _quiet(r)]
    L = ["## Collapses without divergence", "",
         f"A seed can fall below {decl['fraction']:g} x the control's median quality while its "
         "weights stay bounded: the crawl lost the relevant region rather than its model. "
         f"Seeds so collapsed in the loosened settings: {len(quiet)}, "
         f"{sum(1 for r, k in quiet if k in r['with_control'])} of them on a seed the control "
         "collapses on too (at the same P: the world and the seed's start, not the setting)."]
    null = [r for r in rows if r["setting"].startswith("null")]
    if null:
        n = sum(r["n"] for r in null)
        k = sum(len(r["collapsed"]) for r in null)
        own = sum(len(r["with_control"]) for r in null)
        ctl = {(r["group"], r["P"]): r for r in rows if r["setting"] == "control"}
        saved = sum(1 for r in null
                    for x in ctl.get((r["group"], r["P"]), {"collapsed": []})["collapsed"]
                    if x in r["seeds"] and x not in r["collapsed"])
        lo, hi = st.clopper_pearson(k - own, n)
        names = ", ".join(f"*{x}*" for x in sorted({_label(r["setting"]) for r in null}))
        L += ["", f"**The negative control.** At P = 1 the control's step moved a little (cells "
              f"{names}) changes the trajectory as a loosened setting does, with no "
              f"synchronisation at all: {k} of {n} seeds collapsed, {own} of them seeds the "
              f"control collapses on too; {k - own} collapsed where the control did not (95 % "
              f"interval of that probability {lo:.3f} to {hi:.3f}) and {saved} did not where "
              "the control did." + (" Which seeds collapse at P = 1 is then the world's and the "
                                    "start's, not the trajectory's." if k == own else "")]
    if not quiet:
        return L + [""]
    L += ["", "Where they happen (per group and P: the seeds compared, those collapsed without "
          "divergence, how many of them the control collapses on too, and how many are in "
          "settings that synchronise the weights less often than every tick, K > 1 or never):",
          "", "| group | P | seeds compared | collapsed, not diverged | the control's too | "
          "with K > 1 | settings |", "|---" * 7 + "|"]
    by = collections.defaultdict(list)
    for r, k in quiet:
        by[(r["group"], r["P"])].append((r, k))
    for (g, P), v in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        n = sum(r["n"] for r in rows if r["group"] == g and r["P"] == P
                and r["setting"] != "control")
        names = "; ".join(sorted({_label(r["setting"]) for r, _ in v}))
        L.append(f"| {g} | {P} | {n} | {len(v)} | "
                 f"{sum(1 for r, k in v if k in r['with_control'])} | "
                 f"{sum(1 for r, _ in v if _stale(r['setting']))} | {names} |")
    # decided early: the harvest rate over the first tenth of the run against the control's
    def early(r, k):
        c = cells.get((r["group"], r["P"], "control"), {}).get(k)
        x = cells[(r["group"], r["P"], r["setting"])][k]
        if c is None or not c.get("c10"):
            return math.nan, math.nan
        return x.get("c10", math.nan) / c["c10"], x["q"] / c["q"] if c["q"] else math.nan
    own = [early(r, k) for r, k in quiet if k not in r["with_control"]]
    rest = [early(r, k) for r in rows if r["setting"] != "control"
            and not r["setting"].startswith("null") for k in r["seeds"]
            if k not in r["collapsed"]]
    own = [x for x in own if math.isfinite(x[0])]
    rest = [x for x in rest if math.isfinite(x[0])]
    if own and rest:
        half = [sum(1 for a, _ in xs if a < 0.5) / len(xs) for xs in (own, rest)]
        L += ["", "**Decided early?** The harvest rate over the first tenth of the run (`c10`) "
              "over the control's at the same seed: for the seeds collapsed without divergence "
              f"where the control did not, median {_median([a for a, _ in own]):.3g} "
              f"({100 * half[0]:.0f} % of them below half the control's); for the seeds that "
              f"did not collapse, median {_median([a for a, _ in rest]):.3g} "
              f"({100 * half[1]:.0f} % below half)" +
              (": most of these collapses are decided in the first tenth of the run."
               if half[0] > 0.5 > half[1] else ".")]
        _loglog([([a for a, _ in rest], [b for _, b in rest], 8, "C0", "not collapsed"),
                 ([a for a, _ in own], [b for _, b in own], 10, "red", "collapsed, not diverged")],
                "harvest over the first tenth / the control's", "quality / the control's",
                f"{figdir}/quiet-collapses.png")
        L += ["", f"![collapses without divergence]({rel}/quiet-collapses.png)"]
    return L + [""] + _budget_test(rows)


def _budget_test(rows):
    """The mechanism's test: between synchronisations the global budget ranks every rank's
    entries by Q-values computed with different weights, so that a rank whose weights learned
    more from its first pages takes the budget whatever its pages are worth. Prediction: K with
    each rank's own share of the budget (proportional) collapses fewer seeds than the same K
    under the global budget, at the same P and seeds."""
    at = {(r["group"], r["P"], _label(r["setting"])): r for r in rows}  # by name: slugs differ
    tail = ", budget proportional"
    def same(x, y):  # the same runs: every common seed (at least 2) of the same quality
        qx, qy = dict(zip(x["seeds"], x["q"])), dict(zip(y["seeds"], y["q"]))
        common = set(qx) & set(qy)
        return len(common) >= 2 and all(qx[k] == qy[k] for k in common)

    pairs, seen, twice = [], [], 0
    for (g, P, s), r in sorted(at.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        if not (s.startswith("K=") and s.endswith(tail)):
            continue
        glob = at.get((g, P, s[:-len(tail)]))
        if glob is None:
            continue
        # where two designs coincide (weak scaling at P = the strong design's B) their cells
        # are the same runs: counted once
        if any(P == P2 and s == s2 and same(glob, g2) and same(r, r2)
               for P2, s2, g2, r2 in seen):
            twice += 1
            continue
        seen.append((P, s, glob, r))
        # the seeds the control collapses on at this P are the world's: not counted
        ctrl = at.get((g, P, "control"), {"collapsed": []})["collapsed"]
        seeds = sorted((set(r["seeds"]) & set(glob["seeds"])) - set(ctrl))
        b = [k for k in seeds if k in glob["collapsed"] and k not in r["collapsed"]]
        c = [k for k in seeds if k in r["collapsed"] and k not in glob["collapsed"]]
        pairs.append((g, P, s[:-len(tail)], len(seeds),
                      sum(1 for k in seeds if k in glob["collapsed"]),
                      sum(1 for k in seeds if k in r["collapsed"]), b, c))
    L = ["**A mechanism, tested.** The hypothesis: between synchronisations the global budget "
         "ranks every rank's entries by Q-values computed with different weights, so a rank "
         "whose weights learned most from its first pages can take the budget whatever its "
         "pages are worth. Each rank's own share of the budget (`crawl.budget = proportional`) "
         "cannot. The prediction, declared in the design (cells *K=4, budget proportional* "
         "and *K=16, budget proportional*): the same K with the proportional budget collapses "
         "fewer seeds than under the global one, at the same P and run seeds."]
    if not pairs:
        return L + ["", "No such pair of cells in this table yet.", ""]
    L += ["", "Seeds the control collapses on at the same P are left out (the world's, not the "
          "setting's)" + ("; a pair whose cells are another group's runs (weak scaling at P = "
                          f"the strong design's B: the same cells) is counted once ({twice} such)"
                          if twice else "") + ".", "",
          "| group | P | K | seeds | collapsed, global budget | collapsed, proportional | "
          "only under global | only under proportional |", "|---" * 8 + "|"]
    for g, P, K, n, kg, kp, b, c in sorted(pairs, key=lambda x: (x[0], x[1], int(x[2][2:]))):
        L.append(f"| {g} | {P} | {K[2:]} | {n} | {kg} | {kp} | "
                 f"{', '.join(map(str, b)) or '-'} | {', '.join(map(str, c)) or '-'} |")
    B, C = sum(len(p[6]) for p in pairs), sum(len(p[7]) for p in pairs)
    p = st.sign_test(B, C)
    verdict = ("confirmed" if p < 0.05 else "not shown (too few discordant seeds)" if B > C
               else "refuted" if C > B else "not shown")
    L += ["", f"Over the {len(pairs)} pairs of cells: {B} seeds collapsed only under the global "
          f"budget, {C} only under the proportional one; the exact one-sided sign test gives "
          f"p = {p:.3g}: the prediction is {verdict}.", ""]
    return L


def slurm_split(cells, decl):
    """How the design splits into Slurm arrays (one per rank count, a task one run) and its
    estimated time: the core-seconds per fetch measured in this table's runs (the time per tick
    x P over the fetches per tick; at the same P when the table has it, else the median over
    all), times the fetches of the design's runs."""
    runs = decl.get("design_runs") or []
    L = ["## The sweep as Slurm arrays", "",
         "`tools/sync-study slurm -o DIR` writes one sweep spec per rank count and prints the "
         "`slurm/submit sweep` commands: one job array per P, one task per run. The estimate "
         "below multiplies the core-seconds per fetch measured in this table's runs (on this "
         "machine, oversubscribed: indicative only) by the design's fetches; mixed cells add "
         f"up to {decl.get('mixed_seeds', 30)} seeds. The cells beyond 64 ranks run on "
         "simulated ranks (`tools/sync-study run --smpi`), each in one process; their "
         "estimate assumes the simulation costs what the ranks' crawl costs. Where the "
         "measured runs were simulated (*simulated*), their time is the simulated "
         "cluster's.", ""]
    per = {}  # (P, on simulated ranks): core-seconds per fetch
    for runs_ in cells.values():
        for r in runs_.values():
            fpt = r["fetched"] / max(r["ticks"], 1)
            if r["sec_per_tick"] > 0 and fpt > 0 and not st.is_shared(r):
                per.setdefault((r["P"], st.launch_kind(r) == "smpi"), []).append(
                    r["sec_per_tick"] * r["P"] / fpt)
    every = [x for v in per.values() for x in v]
    if not runs or not every:
        return L + ["(no design runs or no timed runs to estimate from)", ""]
    L += ["| array | tasks | ranks per task | core-s per fetch (measured at) | "
          "core-hours | hours per task |", "|---|---|---|---|---|---|"]
    tot = 0.0
    tasks = 0
    for P, sim in sorted({(p, sim) for p, _, sim in runs}):
        mine = [w for p, w, s in runs if p == P and s == sim]
        key = (P, sim) if (P, sim) in per else (P, not sim)  # the same kind of ranks first
        at = per.get(key)
        cs = float(np.median(at)) if at else float(np.median(every))
        src = f"P = {P}" + (", simulated" if key[1] else "") if at else "all P"
        ch = cs * sum(mine) / 3600
        tot += ch
        tasks += len(mine)
        # simulated ranks run in one process (SMPI): its hours are the core-hours
        L.append(f"| sync-P{P}{' (SMPI, one process)' if sim else ''} | {len(mine)} | "
                 f"{1 if sim else P} | {cs:.3g} ({src}) | {ch:.3g} | "
                 f"{ch / len(mine) / (1 if sim else P):.3g} |")
    L += ["", f"In all {tasks} tasks, about {tot:.3g} core-hours at this table's speed.", ""]
    # what the table's own runs took: their crawls' wall-clock time (start-up not counted); a
    # simulated run's time is the simulated cluster's, not this machine's
    took, nsim = {}, 0
    for runs_ in cells.values():
        for r in runs_.values():
            if st.is_shared(r):  # timed in the strong cell
                continue
            k = st.launch_kind(r)
            if k == "smpi":
                nsim += 1
            else:
                took[k] = took.get(k, 0.0) + r["sec_per_tick"] * r["ticks"]
    if took:
        how = {"slurm": "as Slurm tasks"}
        parts = ", ".join(f"{v / 3600:.3g} hours {how.get(k, 'under ' + k)}"
                          for k, v in sorted(took.items()))
        L += [f"The table's runs took {sum(took.values()) / 3600:.3g} hours of crawl, one after "
              f"another, on the machine that ran them ({parts}; start-up, world generation, "
              f"the {nsim} runs on simulated ranks and runs no longer in the table not "
              "counted).", ""]
    return L
