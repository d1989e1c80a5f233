#!/usr/bin/env bash
# Benchmark: the simulated cluster against this machine (docs/guide/simulated-cluster.md,
# "Validation"; not run by ctest). The same job on NP Open MPI ranks (the normal build) and on
# NP simulated ranks of tools/smpi/localhost.xml (the SMPI build, smpi/host-speed equal to the
# platform's speed, so a measured second of computation is a simulated second), in alternating
# rounds so that the machine's drift hits both alike. Prints each run's time per tick (the crawl's
# seconds, /timing/seconds, over its ticks: wall time measured by Open MPI, simulated time
# predicted by SMPI), then per NP the minimum and the median of both and the error of the
# prediction, (predicted - measured) / measured.
# Usage: tests/bench/smpi_validate.sh BUILD_DIR SMPI_BUILD_DIR [ROUNDS] [NP...] [-- crawlsim run args]
# (default: 5 rounds at 1 and 2 ranks, jobs/quickstart.ini: 10^6 pages, B = 1000, 102 ticks)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: smpi_validate.sh BUILD_DIR SMPI_BUILD_DIR [ROUNDS] [NP...] [-- run args]}
sbuild=${2:?usage: smpi_validate.sh BUILD_DIR SMPI_BUILD_DIR [ROUNDS] [NP...] [-- run args]}
shift 2
rounds=5
[ $# -gt 0 ] && [ "$1" != -- ] && { rounds=$1; shift; }
nps=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do nps+=("$1"); shift; done
[ ${#nps[@]} -gt 0 ] || nps=(1 2)
[ $# -gt 0 ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=("$here/jobs/quickstart.ini")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
export OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
per_tick() {
    /usr/bin/python3 -c 'import sys, h5py
f = h5py.File(sys.argv[1], "r")
print("%.4f" % (1e3 * float(f["timing/seconds"][0]) / int(f["final/ticks"][()])))' "$1"
}
echo "== ${args[*]}: $rounds rounds at ${nps[*]} ranks; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    for np in "${nps[@]}"; do
        mpirun -n "$np" --oversubscribe --bind-to none "$build/crawlsim" -q run "${args[@]}" \
            -o "$out/m.h5" > /dev/null 2>&1
        "$here/tools/smpi-run" -n "$np" --ranks-per-node "$np" --bin "$sbuild/crawlsim" \
            --platform "$here/tools/smpi/localhost.xml" --host-speed 1Gf -- -q run "${args[@]}" \
            -o "$out/s.h5" > /dev/null 2>&1
        "$build/crawlsim" compare "$out/m.h5" "$out/s.h5" > /dev/null ||
            { echo "round $r, $np ranks: the SMPI results differ from Open MPI's" >&2; exit 1; }
        m=$(per_tick "$out/m.h5")
        s=$(per_tick "$out/s.h5")
        echo "$np $m $s" >> "$out/all.txt"
        printf "round %d  %d ranks  measured %8.3f ms/tick  predicted %8.3f ms/tick\n" "$r" "$np" "$m" "$s"
    done
done
echo "== load average $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$out/all.txt" << 'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
for np in sorted({int(r[0]) for r in rows}):
    m = [float(r[1]) for r in rows if int(r[0]) == np]
    s = [float(r[2]) for r in rows if int(r[0]) == np]
    for what, f in (("min", min), ("median", st.median)):
        print("%d ranks  %-6s measured %8.3f  predicted %8.3f ms/tick  error %+6.1f %%" %
              (np, what, f(m), f(s), 100 * (f(s) - f(m)) / f(m)))
PY
