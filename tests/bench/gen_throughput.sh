#!/usr/bin/env bash
# Benchmark of the foundation's hot paths (not run by ctest): generation of graphs/large.ini
# (10^7 pages, ~160 M links) on NP ranks with the HDF5 write, its peak memory per rank against
# the in-memory CSR of the result, `crawlsim info` on it, and the cnr-2000 import.
# Usage: tests/bench/gen_throughput.sh BUILD_DIR [NP] [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: gen_throughput.sh BUILD_DIR [NP] [OUTDIR]}
np=${2:-2}
out=${3:-${TMPDIR:-/tmp}}
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpi=(mpirun -n "$np" --oversubscribe)

echo "== gen graphs/large.ini on $np rank(s) x $OMP_NUM_THREADS thread(s)"
rm -f "$out"/large.h5 "$out"/rss.*
t0=$(date +%s.%N)
"${mpi[@]}" bash -c "/usr/bin/time -f %M -o $out/rss.\$OMPI_COMM_WORLD_RANK $bin -v gen $here/graphs/large.ini -o $out/large.h5" 2> "$out/gen.log"
grep -E "gen \(rank 0\)|gen: wrote" "$out/gen.log"
t1=$(date +%s.%N)
links=$(h5dump -H -d /links/targets "$out/large.h5" | grep -o 'DATASPACE  SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
pages=10000000
rss_kb=$(cat "$out"/rss.* | paste -sd+ | bc)
csr=$(( (pages + 1) * 8 + links * 8 ))
attrs=$(( pages * (8 + 4 + 8 + 8 + 8 + 1) ))
echo "links: $links"
echo "wall (mpirun, incl. start-up): $(echo "$t1 - $t0" | bc) s -> $(echo "scale=1; $links / ($t1 - $t0) / 1000000" | bc) M links/s"
echo "peak RSS summed over ranks: $((rss_kb / 1024)) MiB; CSR (offsets + targets): $((csr / 1048576)) MiB -> ratio $(echo "scale=2; $rss_kb * 1024 / $csr" | bc); CSR + page attributes: $(((csr + attrs) / 1048576)) MiB -> ratio $(echo "scale=2; $rss_kb * 1024 / ($csr + $attrs)" | bc)"

echo "== info on it, $np rank(s)"
t0=$(date +%s.%N)
"${mpi[@]}" "$bin" info "$out/large.h5" | tail -3
t1=$(date +%s.%N)
echo "info wall: $(echo "$t1 - $t0" | bc) s"

export CRAWLSIM_DATASETS=${CRAWLSIM_DATASETS:-$here/../shared/datasets} # crawlsim knows no default
if [ -f "$CRAWLSIM_DATASETS/law-webgraph/cnr-2000.adj.gz" ]; then
    echo "== import cnr-2000 (1 rank)"
    t0=$(date +%s.%N)
    mpirun -n 1 "$bin" import "$here/graphs/cnr-2000.ini" -o "$out/cnr-2000.h5" -q
    t1=$(date +%s.%N)
    echo "import wall: $(echo "$t1 - $t0" | bc) s"
fi
