#!/usr/bin/python3
"""Benchmark: the cost curve of a crawl on the procedural world (gen.materialize = false), not
run by ctest: the sustained fetch rate (the second half of the run, as crawlsim reports it) at
frontier capacities CAPS on a world of PAGES pages, and at world sizes WORLDS with the capacity
WORLD_CAP; SARSA (jobs/quickstart.ini: asynchronous, the strict setting, B = 1 000 fetches a
tick) on NP ranks of one thread, FETCHES fetches each. Per point it prints the rate, the
frontier's largest size over the ranks at the record points (/series/frontier of the results
file, every 10 ticks), whether the capacity was reached (entries evicted), the peak memory
over the ranks (the node's shared model counted once) and the wall time:

  point PAGES CAP: RATE fetches/s, frontier peak N, evictions E, memory M MiB, wall W s,
    records R a fetch, frontier phases F us a fetch, crawl C us a record

and, over the whole crawl (from the results file): R the link records routed per fetch (out-links
to pages not visited when the page was fetched, /ranks/links over /ranks/fetched), F the
frontier's phases (select and insert, the larger rank's seconds) per fetch, and C the crawl's
wall time (/timing/seconds) per routed record. A capacity changes the crawl, not only the
frontier: a crawl that keeps only its best entries fetches pages whose links were seen before,
so fewer records reach a frontier per fetch; R and C tell that apart from the frontier's cost.

The capacity of the strict setting is global (over all ranks). A point whose frontier never
reaches its capacity measures a smaller frontier than its label: its peak says which.

Usage: tests/bench/cost_curve.py BUILD_DIR [--fetches N] [--caps LIST] [--pages N]
         [--worlds LIST] [--world-cap N] [--np N] [--world INI] [--set KEY=VALUE ...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ints(s):
    return [int(float(x)) for x in s.split(",") if x]


def values(h5, path):
    """The numbers of dataset PATH in the results file (h5dump's text)."""
    p = subprocess.run(["h5dump", "-d", path, "-y", "-w", "0", h5], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise RuntimeError(f"h5dump {path}: {p.stderr.strip()[-300:]}")
    body = p.stdout.split("DATA {", 1)[1] if "DATA {" in p.stdout else ""
    return [float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?\d+)?", body.split("}", 1)[0])]


def series_max(h5, name):
    """The largest value of /series/NAME in the results file."""
    vals = values(h5, "/series/" + name)
    return int(max(vals)) if vals else 0


def per_record(h5):
    """(records routed per fetch, the frontier phases' microseconds per fetch, the crawl's
    microseconds per record) over the whole crawl."""
    fetched, links = sum(values(h5, "/ranks/fetched")), sum(values(h5, "/ranks/links"))
    front = max(s + i for s, i in zip(values(h5, "/timing/ranks/select"),
                                      values(h5, "/timing/ranks/insert")))
    secs = values(h5, "/timing/seconds")[0]
    if fetched <= 0 or links <= 0:
        raise RuntimeError("a crawl without fetches or routed records")
    return links / fetched, 1e6 * front / fetched, 1e6 * secs / links


def run_point(a, pages, cap, tmp):
    out = os.path.join(tmp, f"p{pages}-{cap}.h5")
    cmd = ["mpirun", "-n", str(a.np), "--oversubscribe", "--bind-to", "none", "-x",
           "OMP_NUM_THREADS=1", os.path.join(a.build, "crawlsim"), "run",
           os.path.join(HERE, "jobs", "quickstart.ini"), "--set", f"gen.world={a.world}",
           "--set", f"gen.pages={pages}", "--set", "gen.materialize=false",
           "--set", f"run.pages={a.fetches}", "--set", "crawl.bandwidth=1000",
           "--set", f"crawl.frontier_capacity={cap}", "--set", "run.record_every=10"]
    for kv in a.set:
        cmd += ["--set", kv]
    cmd += ["-q", "-o", out]
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
    peak = series_max(out, "frontier")
    ev = series_max(out, "evictions")
    rec, front, per = per_record(out)
    os.remove(out)
    m = float(mem.group(2) or mem.group(1))
    print(f"point {pages} {cap}: {float(rate.group(1)):.4g} fetches/s, frontier peak {peak}, "
          f"evictions {ev}, memory {m:.1f} MiB, wall {wall:.1f} s, records {rec:.3f} a fetch, "
          f"frontier phases {front:.4g} us a fetch, crawl {per:.4g} us a record", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--fetches", type=lambda s: int(float(s)), default=1000000)
    ap.add_argument("--caps", type=ints, default=ints("1e5,1e6,1e7,1e8"))
    ap.add_argument("--pages", type=lambda s: int(float(s)), default=100000000)
    ap.add_argument("--worlds", type=ints, default=ints("1e6,1e7,1e8,1e9"))
    ap.add_argument("--world-cap", type=lambda s: int(float(s)), default=1000000)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--world", default=os.path.join(HERE, "graphs", "default.ini"))
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    if a.fetches < 1 or a.np < 1 or a.pages < 2 or a.world_cap < 1 or any(
            c < 1 for c in a.caps) or any(w < 2 for w in a.worlds):
        ap.error("sizes must be positive (pages at least 2)")
    if not os.access(os.path.join(a.build, "crawlsim"), os.X_OK):
        ap.error(f"no crawlsim in {a.build}")
    points = [(a.pages, c) for c in a.caps]
    points += [(w, a.world_cap) for w in a.worlds if (w, a.world_cap) not in points]
    print(f"== cost curve: SARSA, {a.np} ranks x 1 thread, {a.fetches} fetches, B = 1000, "
          f"world {os.path.relpath(a.world, HERE)} (procedural), {' '.join(a.set)}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for pages, cap in points:
            try:
                run_point(a, pages, cap, tmp)
            except RuntimeError as e:
                print(f"cost_curve: {e}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
