#!/usr/bin/python3
"""The performance model of a crawl tick (docs/developer/performance-model.md) against the
simulated cluster: for each results file of a simulated run (tests/bench/smpi_scaling.sh keeps
them with KEEP=DIR), the model's terms from the run's own counts and the platform's figures,
beside the simulated milliseconds per tick.

Usage: tests/bench/perf_model.py [--network-only] RESULTS.h5...
  --network-only: runs simulated with --cfg=smpi/simulate-computation:no (compute term 0)

Model, per tick, the busiest rank (docs/developer/performance-model.md):
  compute   = s (c_f f + (c_r + c_i) l + (c_s + c_e) F)
                                             f, l: the busiest rank's fetches and links per tick,
                                             F: its frontier (c_e: the synchronous mode only);
                                             the constants from tools/smpi/costs.txt;
                                             s = host speed / platform speed
  collectives = (n_ar + 3) t_c(P)            n_ar: allreduces per tick (counted), + the two
                                             censuses' reduce-scatters and the record point's
                                             allreduce; t_c(P): one small collective on the
                                             platform, measured by tools/smpi/collbench.c
  exchange  = 2 (a + V / b)                  the heads of two censuses (visited notes, records):
                                             V the busiest rank's bytes per tick, a one message's
                                             latency, b the effective bandwidth
"""
import math
import os
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
COSTS = os.path.join(HERE, "..", "..", "tools", "smpi", "costs.txt")


def costs(path=COSTS):
    """The cost model (tools/smpi/costs.txt, from tests/bench/smpi_costs.py): seconds of this
    machine's CPU per Q evaluation of a re-evaluation, frontier entry at a selection, fetch
    (with its learning step), link record routed and link record inserted."""
    line = [l for l in open(path) if l.strip() and not l.lstrip().startswith("#")][-1]
    return [float(v) for v in line.split()]


C_E, C_S, C_F, C_R, C_I = costs()
S = 24.0 / 62.9  # tools/smpi-run's host speed over supermuc-ng.xml's
LAT_FACTOR = 2.01467  # SMPI's default latency factor below 257 bytes
B_EFF = 0.61 * 12.5e9  # SMPI's bandwidth factor of 1-3 KiB messages x the link
RANKS_PER_NODE = 2  # as tests/bench/smpi_scaling.sh is run for the tables (one rank per socket)


def alpha(P):
    """One message: 2 links of 0.25 us under one edge switch (24 nodes), 4 between."""
    return LAT_FACTOR * (0.5e-6 if P <= 24 * RANKS_PER_NODE else 1.0e-6)


# One 128-byte MPI_Allreduce on supermuc-ng.xml as tools/smpi-run simulates it (Open MPI's
# choices), 2 ranks per node, microseconds, network only (smpi/simulate-computation:no):
# tools/smpi/collbench.c. An MPI_Reduce_scatter of P ints costs the same or less. Between the
# measured P: linear in log2 P; beyond them, the last slope.
T_COLL = {16: 3.73, 64: 7.82, 128: 17.39, 256: 32.67, 512: 52.03}


def t_coll(P):
    ks = sorted(T_COLL)
    if P <= ks[0]:
        return 1e-6 * T_COLL[ks[0]] * math.log2(max(P, 2)) / math.log2(ks[0])
    for lo, hi in zip(ks, ks[1:]):
        if P <= hi:
            w = (math.log2(P) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
            return 1e-6 * (T_COLL[lo] + w * (T_COLL[hi] - T_COLL[lo]))
    lo, hi = ks[-2], ks[-1]
    slope = (T_COLL[hi] - T_COLL[lo]) / (math.log2(hi) - math.log2(lo))
    return 1e-6 * (T_COLL[hi] + slope * (math.log2(P) - math.log2(hi)))


NET_ONLY = "--network-only" in sys.argv


def model(path):
    f = h5py.File(path, "r")
    P = len(f["ranks/pages"][:])
    T = int(f["final/ticks"][()])
    rk = lambda k: np.asarray(f["ranks/" + k][:], dtype=float)
    fet, lnk, fr = rk("fetched") / T, rk("links") / T, rk("frontier")
    sync = float(np.sum(f["timing/ranks/evaluate"][:])) > 0  # the frontier re-evaluated each tick
    per_rank = C_F * fet + (C_R + C_I) * lnk + (C_S + (C_E if sync else 0.0)) * fr
    comp = 0.0 if NET_ONLY else S * float(np.max(per_rank))
    n_ar = float(np.mean(rk("allreduces"))) / T
    ar = (n_ar + 3) * t_coll(P) if P > 1 else 0.0
    V = float(np.max(rk("bytes_exchanged"))) / T
    ex = 2 * (alpha(P) + V / B_EFF) if P > 1 else 0.0
    sim = float(f["timing/seconds"][0]) / T
    tot = comp + ar + ex
    print("%5d %8.3f %8.3f %8.3f %8.3f | %8.3f %+7.0f %%" %
          (P, 1e3 * comp, 1e3 * ar, 1e3 * ex, 1e3 * tot, 1e3 * sim, 100 * (tot - sim) / sim))


def network(P, calls, coll_bytes, msgs, xbytes):
    """The model's network terms for one rank and tick on supermuc-ng.xml, in seconds, from a
    run's counters: calls collectives of coll_bytes payload in all (each a small collective,
    t_c(P), plus its payload twice over the link, as a reduce-scatter and allgather would send
    it), and msgs point-to-point messages of xbytes in all (a and b as for the exchange).
    tools/lib/sync_report.py prints it beside the synchronisation study's counters."""
    if P <= 1:
        return 0.0
    return calls * t_coll(P) + 2 * coll_bytes / B_EFF + msgs * alpha(P) + xbytes / B_EFF


if __name__ == "__main__":
    print("%5s %8s %8s %8s %8s | %8s %8s" % ("P", "compute", "collect", "exch", "model", "simul", "error"))
    print("%5s %8s %8s %8s %8s | %8s" % ("", "ms/tick", "", "", "", "ms/tick"))
    for p in sys.argv[1:]:
        if p != "--network-only":
            model(p)
