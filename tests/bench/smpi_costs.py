#!/usr/bin/python3
"""The cost model's constants (docs/guide/simulated-cluster.md, "Modelled computation"): seconds
of this machine's CPU per unit of each kind of a tick's work, from the results of one crawl on
ONE rank run with run.record_every = 1 (every tick's frontier recorded) in SARSA's synchronous
mode (which re-evaluates the frontier every tick), best measured in CPU time, i.e. on the SMPI
build with localhost.xml at 1 Gf:

  tools/smpi-run -n 1 --platform tools/smpi/localhost.xml --host-speed 1Gf -- -q run \\
      jobs/quickstart.ini --set gen.world=$PWD/graphs/classic.ini --set sarsa.mode=synchronous \\
      --set run.record_every=1 -o cal.h5
  tests/bench/smpi_costs.py cal.h5 > tools/smpi/costs.txt

Kinds and units, in the order of CRAWLSIM_SMPI_COSTS (include/crawlsim/comm.h, cs_cost_kind):
  evaluate  /timing evaluate over the frontier entries at each tick's re-evaluation (the
            synchronous mode's: the same entries as the selection's)
  select    /timing select over the frontier entries at each selection (the frontier recorded
            at the end of each tick but the last)
  fetch     /timing fetch + learn over the fetches
  route     /timing route over the link records (links)
  insert    /timing insert over the link records (at one rank every record is inserted here)
"""
import sys

import h5py
import numpy as np

if len(sys.argv) != 2:
    sys.exit("usage: smpi_costs.py RESULTS.h5 (one rank, run.record_every = 1)")
f = h5py.File(sys.argv[1], "r")
if len(f["ranks/fetched"][:]) != 1:
    sys.exit("smpi_costs.py: %s was run on %d ranks; the constants need one" %
             (sys.argv[1], len(f["ranks/fetched"][:])))
ticks = f["series/tick"][:]
T = int(f["final/ticks"][()])
if len(ticks) != T or np.any(ticks != np.arange(T)):
    sys.exit("smpi_costs.py: %s does not record every tick (run.record_every = 1)" % sys.argv[1])
tm = lambda k: float(f["timing/ranks/" + k][0])
cnt = lambda k: float(f["ranks/" + k][0])
frontier = np.asarray(f["series/frontier"][:], dtype=float)
units = {
    "evaluate": float(frontier[:-1].sum()),
    "select": float(frontier[:-1].sum()),
    "fetch": cnt("fetched"),
    "route": cnt("links"),
    "insert": cnt("links"),
}
secs = {
    "evaluate": tm("evaluate"),
    "select": tm("select"),
    "fetch": tm("fetch") + tm("learn"),
    "route": tm("route"),
    "insert": tm("insert"),
}
order = ["evaluate", "select", "fetch", "route", "insert"]
print("# crawlsim's cost model on a simulated cluster: seconds of CPU per unit of work, measured")
print("# by tests/bench/smpi_costs.py from %s (%d ticks, %d fetches, %d links)" %
      (sys.argv[1].split("/")[-1], T, units["fetch"], units["route"]))
for k in order:
    print("#   %-8s %12.6g s over %14.0f units" % (k, secs[k], units[k]))
print("# evaluate select fetch route insert")
print(" ".join("%.6g" % (secs[k] / units[k] if units[k] > 0 else 0.0) for k in order))
