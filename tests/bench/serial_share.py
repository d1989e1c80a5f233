#!/usr/bin/python3
"""Serial share of a crawl's ticks from CPU samples of one rank (issue 21; not run by ctest).

    OMP_NUM_THREADS=2 perf record -F 1000 --call-graph dwarf,16384 -o p.data -- \\
        mpirun -n 1 crawlsim run JOB --set ... -o r.h5
    perf script -i p.data -F comm,tid,ip,sym,dso > p.txt
    tests/bench/serial_share.py p.txt [N]

Each sample of the crawlsim process is set-up (world generation, loading, results, tear-down:
left out),
libgomp's own (barrier waits, fork and join: left out, counted apart) or the ticks' work: serial
(the main thread outside OpenMP regions) or parallel (inside a region, any thread). A region that
runs on one thread (below its size threshold) still shows an OpenMP function in the stack, so the
raw count takes it as parallel; the conservative count takes a main-thread sample inside a region
as parallel only up to the other threads' samples in the same region function. Prints both, the
share per phase and the N largest serial functions (default 25).
"""
import collections
import sys

TICK = ('sim_', 'cs_sim_run_in', 'tres_', 'sarsa_', 'cs_mlp', 'cs_ddqn', 'cs_tree', 'cs_frontier',
        'cs_simrf', 'cs_qlinear')
SETUP = ('build_world', 'cs_sim_world_load', 'cs_evidence_create', 'gen_pages', 'sim_host_map',
         'cs_gen_', 'check_pages', 'ompi_mpi_init', 'PMPI_Init', 'sim_build', 'sim_world',
         'cs_sim_results', 'sim_write', 'cs_results', 'cs_sim_world_destroy', 'cs_evidence_destroy',
         'cs_simrf_create', 'cs_simrf_destroy')
PHASES = [('learn', ('tres_observe', 'sarsa_observe')), ('select', ('sim_select_tick',)),
          ('insert', ('sim_insert_links', 'insert_own', 'insert_merged')),
          ('fetch', ('sim_fetch_pages',)), ('refresh', ('cs_simrf', 'sim_refresh')),
          ('evaluate', ('cs_qlinear',))]


def read(path):
    out, cur = [], None
    for line in open(path, errors='replace'):
        if not line.strip():
            if cur:
                out.append(cur)
            cur = None
        elif not line[0].isspace():
            f = line.split()
            cur = (f[0], int(f[1]), [])
        elif cur is not None:
            s = line.strip().split(None, 1)
            if len(s) == 2:
                sym, _, dso = s[1].rpartition(' (')
                cur[2].append((sym, dso.rstrip(')')))
    if cur:
        out.append(cur)
    return [x for x in out if x[0] == 'crawlsim' and x[2]]


def has(fr, prefixes):
    return any(f[0].startswith(prefixes) for f in fr)


def main():
    samples = read(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    main_tid = min(x[1] for x in samples)
    share, serial_fn = collections.Counter(), collections.Counter()
    in_main, in_other = collections.Counter(), collections.Counter()
    gomp = setup = 0
    for _, tid, fr in samples:
        region = next((f[0] for f in fr if '_omp_fn' in f[0]), None)
        if ('libgomp' in fr[0][1] or fr[0][0] == '[unknown]') and '_omp_fn' not in fr[0][0]:
            gomp += 1
            continue
        if has(fr, SETUP) or not (has(fr, TICK) or (tid != main_tid and region)):
            setup += 1
            continue
        kind = 'parallel' if (tid != main_tid or region) else 'serial'
        if tid == main_tid:
            ph = next((p for p, keys in PHASES if has(fr, keys)), 'other')
        else:
            ph = 'other threads'
        share[(ph, kind)] += 1
        if region:
            (in_main if tid == main_tid else in_other)[region] += 1
        if kind == 'serial':
            own = [f[0] for f in fr if 'crawlsim' in f[1] and not f[0].startswith('[')]
            serial_fn[(ph, ' < '.join(own[:3]))] += 1
    tot = sum(share.values())
    ser = sum(v for (_, k), v in share.items() if k == 'serial')
    extra = sum(max(0, in_main[r] - in_other[r]) for r in in_main)
    print(f"tick work {tot} samples (libgomp {gomp}, set-up {setup} left out)")
    print(f"serial fraction f: {ser / tot:.3f} raw, {(ser + extra) / tot:.3f} conservative")
    for n in (2, 32, 128):
        b = [1 / (f + (1 - f) / n) for f in (ser / tot, (ser + extra) / tot)]
        print(f"  Amdahl bound at {n} threads: {b[0]:.2f} raw, {b[1]:.2f} conservative")
    print("share per phase (serial, parallel):")
    for ph in sorted({p for p, _ in share}):
        print(f"  {ph:14s} {share[(ph, 'serial')] / tot:.3f} {share[(ph, 'parallel')] / tot:.3f}")
    print("largest serial functions:")
    for (ph, f), v in serial_fn.most_common(top):
        print(f"  {v / tot:.3f} {ph}: {f}")


if __name__ == '__main__':
    main()
