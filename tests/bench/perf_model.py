#!/usr/bin/python3
"""The performance model of a crawl tick (docs/developer/performance-model.md) against the
simulated cluster: for each results file of a simulated run (tests/bench/smpi_scaling.sh keeps
them with KEEP=DIR), the model's terms from the run's own counts and the platform's figures,
beside the simulated milliseconds per tick.

Usage: tests/bench/perf_model.py [--network-only] [--ranks-per-node K] RESULTS.h5...
       tests/bench/perf_model.py [--node] [--ranks-per-node K] --predict P f l F V n_ar [imbalance]
  --node: --predict for crawl.exchange = node
  --network-only: runs simulated with --cfg=smpi/simulate-computation:no (compute term 0)
  --ranks-per-node K: as the runs were simulated (default 2); the exchange's term follows each
             run's crawl.exchange (census, or node: the two-level exchange)
  --predict: the model's tick for a rank of f fetches, l links and frontier F per tick, V bytes
             of link records sent per tick, n_ar allreduces per tick, and the weak-scaling
             efficiency T(1) / T(P)

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
  node exchange (crawl.exchange = node, L ranks per node, N = P / L nodes), per tick:
              8 ceil(log2 L) a_l + 2 L v / b_l   the gathers and scatters of counts and records on
                                             the node (a_l, b_l: the node's loopback; v the mean
                                             rank's bytes of records per tick)
            + 2 a + L v (P - L) / (P - 1) / b   the leader's messages to the other nodes
            and the census's reduce-scatter among N leaders: t_c(N) instead of t_c(P)
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
if "--ranks-per-node" in sys.argv:
    _i = sys.argv.index("--ranks-per-node")
    RANKS_PER_NODE = int(sys.argv[_i + 1])
    del sys.argv[_i:_i + 2]
A_LOOP = LAT_FACTOR * 0.3e-6  # supermuc-ng.xml's loopback: 0.3 us, 10 GB/s
B_LOOP = 10e9  # the node's messages are tens of kB: SMPI's bandwidth factor near 1


def alpha(P, rpn=RANKS_PER_NODE):
    """One message: 2 links of 0.25 us under one edge switch (24 nodes), 4 between."""
    return LAT_FACTOR * (0.5e-6 if P <= 24 * rpn else 1.0e-6)


def t_coll(P, rpn=RANKS_PER_NODE):
    """One small collective: Open MPI's choice for small payloads is recursive doubling (or its
    kin for reduce-scatter and barrier), ceil(log2 P) rounds of one message's latency.
    tools/smpi/collbench.c's back-to-back loops of 50 such collectives cost as much up to 128
    ranks (2 ranks per node: allreduce 3.73, 7.82, 17.39 us at 16, 64, 128; this formula 4.0,
    12.1, 14.1) and 2 to 4 times more beyond (32.67, 52.03, 85.45 us at 256, 512, 1 024 against
    16.1, 18.1, 20.1): a crawl's collectives, spread over a tick, follow the formula
    (docs/developer/performance-model.md)."""
    return math.ceil(math.log2(P)) * alpha(P, rpn) if P > 1 else 0.0


NET_ONLY = "--network-only" in sys.argv
NODE = "--node" in sys.argv  # --predict: the two-level exchange
if NODE:
    sys.argv.remove("--node")


def node_exchange(P, V, rpn=RANKS_PER_NODE):
    """The two two-level exchanges of a tick (crawl.exchange = node; the visited notes' bytes
    neglected), V the mean rank's bytes of records per tick: on the node, four collectives of
    binomial depth each way over the loopback (a fat pipe: a flow does not share it) and the
    node's L V bytes through the leader twice; between nodes, the leader's messages: latency
    a(P) and the node's bytes for the other nodes, L V (P - L) / (P - 1)."""
    L = min(rpn, P)
    depth = math.ceil(math.log2(L)) if L > 1 else 0
    inter = 2 * alpha(P, rpn) + L * V * (P - L) / (P - 1) / B_EFF if P > L else 0.0
    return 2 * 4 * depth * A_LOOP + (2 * L * V / B_LOOP if L > 1 else 0.0) + inter


def exchange_method(f):
    """crawl.exchange of a results file (its /config)."""
    for line in f["config"][()].decode().splitlines():
        k, _, v = line.partition("=")
        if k.strip() == "exchange":
            return v.strip()
    return "sparse"


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
    V = float(np.max(rk("bytes_exchanged"))) / T
    if exchange_method(f) == "node" and P > 1:
        N = math.ceil(P / RANKS_PER_NODE)  # the censuses' reduce-scatters among the leaders
        ar = (n_ar + 1) * t_coll(P) + 2 * t_coll(N, 1)  # one leader per node
        ex = node_exchange(P, float(np.mean(rk("bytes_exchanged"))) / T)
    else:
        ar = (n_ar + 3) * t_coll(P) if P > 1 else 0.0
        ex = 2 * (alpha(P) + V / B_EFF) if P > 1 else 0.0
    sim = float(f["timing/seconds"][0]) / T
    tot = comp + ar + ex
    print("%5d %8.3f %8.3f %8.3f %8.3f | %8.3f %+7.0f %%" %
          (P, 1e3 * comp, 1e3 * ar, 1e3 * ex, 1e3 * tot, 1e3 * sim, 100 * (tot - sim) / sim))


def predict(P, f, l, F, V, n_ar, sync=False, imbalance=1.0, node=False):
    """The model's tick on supermuc-ng.xml for a rank of f fetches, l links and a frontier of F
    per tick, V bytes of link records sent, n_ar allreduces per tick; the busiest rank's
    computation imbalance times the mean; node: the two-level exchange (RANKS_PER_NODE).
    Returns (compute, collectives, exchange) seconds."""
    comp = imbalance * S * (C_F * f + (C_R + C_I) * l + (C_S + (C_E if sync else 0.0)) * F)
    if P <= 1:
        return comp, 0.0, 0.0
    if node:
        N = math.ceil(P / RANKS_PER_NODE)
        return comp, (n_ar + 1) * t_coll(P) + 2 * t_coll(N, 1), node_exchange(P, V)
    return comp, (n_ar + 3) * t_coll(P), 2 * (alpha(P) + V / B_EFF)


def network(P, calls, coll_bytes, msgs, xbytes):
    """The model's network terms for one rank and tick on supermuc-ng.xml, in seconds, from a
    run's counters: calls collectives of coll_bytes payload in all (each a small collective,
    t_c(P), plus its payload twice over the link, as a reduce-scatter and allgather would send
    it), and msgs point-to-point messages of xbytes in all (a and b as for the exchange).
    tools/lib/sync_report.py prints it beside the synchronisation study's counters, for one
    rank per node."""
    if P <= 1:
        return 0.0
    return calls * t_coll(P, 1) + 2 * coll_bytes / B_EFF + msgs * alpha(P, 1) + xbytes / B_EFF


if __name__ == "__main__":
    if sys.argv[1:2] == ["--predict"]:
        # --predict P f l F V n_ar [imbalance]: one tick's terms, and T(P) / T(1)'s efficiency
        P, fe, li, Fr, V, n_ar = (float(v) for v in sys.argv[2:8])
        imb = float(sys.argv[8]) if len(sys.argv) > 8 else 1.0
        c, a, e = predict(int(P), fe, li, Fr, V, n_ar, imbalance=imb, node=NODE)
        c1 = predict(1, fe, li, Fr, V, n_ar)[0]
        print("P %d: compute %.3f ms, collectives %.3f ms, exchange %.3f ms, tick %.3f ms; "
              "T(1) %.3f ms, weak efficiency %.1f %%" %
              (P, 1e3 * c, 1e3 * a, 1e3 * e, 1e3 * (c + a + e), 1e3 * c1, 100 * c1 / (c + a + e)))
        sys.exit(0)
    print("%5s %8s %8s %8s %8s | %8s %8s" % ("P", "compute", "collect", "exch", "model", "simul", "error"))
    print("%5s %8s %8s %8s %8s | %8s" % ("", "ms/tick", "", "", "", "ms/tick"))
    for p in sys.argv[1:]:
        if p != "--network-only":
            model(p)
