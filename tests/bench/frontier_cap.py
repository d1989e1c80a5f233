#!/usr/bin/python3
"""Benchmark: what the frontier's capacity changes in a crawl, not run by ctest. SARSA
(jobs/quickstart.ini: asynchronous, the strict setting, B = 1 000 fetches a tick) on the
procedural classic world (gen.materialize = false), NP ranks of one thread, at POINTS of
(world pages, fetches, capacity); capacity "none" is the largest crawl.frontier_capacity
(2 x 10^9: nothing is evicted). Each point appends one row to TABLE (date, commit of the build,
the point, fetched, relevant pages, harvest rate, relevant hosts, entries evicted over the ranks,
the frontier's largest size at the record points (every 10 ticks), the fetch rate of the second
half, the peak memory over the ranks (the node's shared model once), the wall time and the
command); then REPORT is regenerated from TABLE alone (the latest row of each point).

The scaled crawl: the 10^8-fetch crawl of the 10^9-page world at scale s is s x 10^9 pages and
s x 10^8 fetches (a tenth of the world fetched at every scale), a capacity of 10^6 scaled to
s x 10^6; the report gives each scale's crawl without a capacity, with the scaled one and with
10^6.

Usage: tests/bench/frontier_cap.py BUILD_DIR [--points LIST] [--np N] [--table TSV]
         [--report MD] [--report-only]
LIST: comma-separated PAGES:FETCHES:CAP (CAP a number or none), e.g. 1e6:1e5:none,1e6:1e5:1e3
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from points import NONE, measure, points, power, read_table  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(HERE, "docs", "reports", "frontier-capacity", "results.tsv")
REPORT = os.path.join(HERE, "docs", "reports", "frontier-capacity.md")
COLS = ["date", "commit", "pages", "fetches", "capacity", "fetched", "relevant", "harvest_rate",
        "relevant_hosts", "evictions", "frontier_peak", "fetches_per_s", "memory_mib", "wall_s",
        "command"]
DEFAULT = ("1e6:1e5:none,1e6:1e5:1e3,1e6:1e5:1e6,"
           "1e7:1e6:none,1e7:1e6:1e4,1e7:1e6:1e6")


def dataset(h5, path):
    """The integers or floats of dataset PATH of the results file (h5dump's text)."""
    p = subprocess.run(["h5dump", "-d", path, "-y", "-w", "0", h5], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise RuntimeError(f"h5dump {path}: {p.stderr.strip()[-300:]}")
    body = p.stdout.split("DATA {", 1)[1].split("}", 1)[0] if "DATA {" in p.stdout else ""
    return [float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?\d+)?", body)]


def run_point(a, pages, fetches, cap, tmp):
    out = os.path.join(tmp, "r.h5")
    crawlsim = os.path.join(a.build, "crawlsim")
    cmd = ["mpirun", "-n", str(a.np), "--oversubscribe", "--bind-to", "none", "-x",
           "OMP_NUM_THREADS=1", crawlsim, "run", os.path.join(HERE, "jobs", "quickstart.ini"),
           "--set", "gen.world=" + os.path.join(HERE, "graphs", "classic.ini"),
           "--set", f"gen.pages={pages}", "--set", "gen.materialize=false",
           "--set", f"run.pages={fetches}", "--set", "crawl.bandwidth=1000",
           "--set", f"crawl.frontier_capacity={cap}", "--set", "run.record_every=10",
           "-o", out]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_MCA_mpi_yield_when_idle="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.time() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{pages} pages, capacity {cap}: exit {p.returncode}: "
                           f"{p.stderr.strip()[-400:]}")
    rate = re.search(r"([0-9.e+]+) fetches/s \(second half", p.stdout)
    mem = re.search(r"([0-9.]+) MiB over \d+ ranks(?: \(([0-9.]+) MiB with)?", p.stdout)
    if not rate or not mem:
        raise RuntimeError(f"no rate or memory in crawlsim's output:\n{p.stdout[-500:]}")
    commit = ""
    cf = os.path.join(a.build, "crawlsim.commit")
    if os.path.exists(cf):
        commit = open(cf).read().strip()[:12]
    shown = " ".join(cmd[:-2]).replace(crawlsim, "build/crawlsim").replace(HERE + "/", "")
    row = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit, "pages": pages, "fetches": fetches, "capacity": cap,
        "fetched": int(dataset(out, "/final/fetched")[0]),
        "relevant": int(dataset(out, "/final/relevant")[0]),
        "harvest_rate": f"{dataset(out, '/final/harvest_rate')[0]:.4f}",
        "relevant_hosts": int(dataset(out, "/final/relevant_hosts")[0]),
        "evictions": int(sum(dataset(out, "/ranks/evictions"))),
        "frontier_peak": int(max(dataset(out, "/series/frontier") or [0])),
        "fetches_per_s": f"{float(rate.group(1)):.4g}",
        "memory_mib": f"{float(mem.group(2) or mem.group(1)):.1f}",
        "wall_s": f"{wall:.1f}", "command": shown}
    os.remove(out)
    return row


def report(rows):
    """The report's text from the table's rows (the latest row of each point)."""
    latest = {}
    for r in rows:
        latest[(int(r["pages"]), int(r["fetches"]), int(r["capacity"]))] = r
    out = ["# The frontier's capacity: what it changes in a crawl", "",
           "Generated by `tests/bench/frontier_cap.py` from its table "
           "([frontier-capacity/results.tsv](frontier-capacity/results.tsv)); do not edit. "
           "SARSA (asynchronous, the strict setting, B = 1 000) on the procedural classic world, "
           "2 ranks x 1 thread, the latest run of each point. A scale s stands for the 10^8-fetch "
           "crawl of the 10^9-page world: s x 10^9 pages and s x 10^8 fetches (a tenth of the "
           "world fetched), crawled without a capacity (none: nothing is evicted), with a "
           "capacity of 10^6 and with 10^6 scaled down to the world (s x 10^6). The default "
           "capacity (crawl.frontier_capacity = 0: the larger of 10^6 and a fifth of the "
           "world's pages) crawls as none wherever the peak stays below it. The frontier "
           "peak is the largest frontier over the record points (every 10 ticks); memory is the "
           "peak over the ranks with the node's shared model once; the rate and the wall time "
           "were measured on a shared machine.", "",
           "| world pages | fetches | capacity | harvest rate | relevant pages | relevant hosts "
           "| evicted | frontier peak | peak memory | fetches/s | date |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    cmd = ""
    for (pages, fetches, cap), r in sorted(latest.items(), key=lambda kv: (
            kv[0][0], kv[0][1], -kv[0][2])):
        base = latest.get((pages, fetches, NONE))
        hr = r["harvest_rate"]
        if base is not None and base is not r and float(base["harvest_rate"]) > 0:
            hr += f" ({float(r['harvest_rate']) / float(base['harvest_rate']):.3f} of none)"
        out.append(f"| {power(pages)} | {power(fetches)} | {power(cap)} | {hr} | "
                   f"{r['relevant']} | {r['relevant_hosts']} | {r['evictions']} | "
                   f"{r['frontier_peak']} | {r['memory_mib']} MiB | {r['fetches_per_s']} | "
                   f"{r['date'][:10]} |")
        cmd = re.sub(r"gen\.pages=\d+", "gen.pages=PAGES", r["command"])
        cmd = re.sub(r"run\.pages=\d+", "run.pages=FETCHES", cmd)
        cmd = re.sub(r"frontier_capacity=\d+", "frontier_capacity=CAP", cmd)
    out += ["", "Each point ran as", "", f"`{cmd}`", "",
            "and the table was made by `tests/bench/frontier_cap.py build --points "
            "PAGES:FETCHES:CAP,...` (`none` for 2 x 10^9)."]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--points", type=points, default=points(DEFAULT))
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--table", default=TABLE)
    ap.add_argument("--report", default=REPORT)
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    if a.np < 1 or any(p < 2 or f < 1 or c < 1 for p, f, c in a.points):
        ap.error("sizes must be positive (pages at least 2)")
    if not a.report_only and not os.access(os.path.join(a.build, "crawlsim"), os.X_OK):
        ap.error(f"no crawlsim in {a.build}")
    if not a.report_only and measure(a, "frontier_cap", COLS, run_point,
                                     lambda row: (f"harvest {row['harvest_rate']}, evicted {row['evictions']}, frontier "
                         f"peak {row['frontier_peak']}, {row['fetches_per_s']} fetches/s, "
                         f"{row['memory_mib']} MiB, wall {row['wall_s']} s")):
        return 1
    with open(a.report, "w") as f:
        f.write(report(read_table(a.table)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
