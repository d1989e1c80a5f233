#!/usr/bin/env bash
# Benchmark of the partitioning issue's figures (not run by ctest): the edge cut, volume,
# balance and time of all four methods at k = 2, 4, 16 on a generated graph, the peak memory of
# the busiest rank, and the time to load the graph on NP ranks with a block and a host-hash
# partition. Usage: tests/bench/partition_table.sh BUILD_DIR SPEC.ini [NP] [OUTDIR] [METHODS]
#   e.g. tests/bench/partition_table.sh build graphs/classic.ini 2 /tmp
#        tests/bench/partition_table.sh build graphs/large.ini 2 /tmp "metis-host host-hash block"
set -euo pipefail
build=${1:?usage: partition_table.sh BUILD_DIR SPEC.ini [NP] [OUTDIR] [METHODS]}
spec=${2:?usage: partition_table.sh BUILD_DIR SPEC.ini [NP] [OUTDIR] [METHODS]}
np=${3:-2}
out=${4:-${TMPDIR:-/tmp}}
methods=${5:-metis-host metis host-hash block}
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpi=(mpirun -n "$np" --oversubscribe)
g=$out/partbench.h5
"${mpi[@]}" "$bin" gen "$spec" -o "$g" -q
echo "graph: $spec ($(h5dump -a /n_pages "$g" | grep -o '([0-9]*): [0-9]*' | cut -d' ' -f2) pages)"
printf '%-10s %3s %9s %10s %13s %12s %8s %10s\n' method k cut volume "bal pages" "bal links" "time s" "rss MiB"
for m in $methods; do
    for k in 2 4 16; do
        rm -f "$out"/prss.*
        log=$("${mpi[@]}" bash -c "/usr/bin/time -f %M -o $out/prss.\$OMPI_COMM_WORLD_RANK $bin partition $g -k $k --method $m -o $out/part.h5" 2>&1)
        rss=$(sort -n "$out"/prss.* | tail -1)
        cut=$(sed -n 's/.*edge cut [0-9]* (\([0-9.]*\) of links).*/\1/p' <<< "$log")
        vol=$(sed -n 's/^partition volume \([0-9]*\).*/\1/p' <<< "$log")
        bp=$(sed -n 's/.*balance pages \([0-9.]*\), links.*/\1/p' <<< "$log")
        bl=$(sed -n 's/.*balance pages [0-9.]*, links \([0-9.]*\).*/\1/p' <<< "$log")
        t=$(sed -n 's/^partition [a-z-]*, k [0-9]*.* (\([0-9.]*\) s)$/\1/p' <<< "$log")
        printf '%-10s %3s %9s %10s %13s %12s %8s %10s\n' "$m" "$k" "$cut" "$vol" "$bp" "$bl" "$t" "$((rss / 1024))"
    done
done
if [ -x "$build/tests/bench_load" ]; then
    echo "== loading on $np ranks (best of 3)"
    "${mpi[@]}" "$build/tests/bench_load" "$g" 3 2>&1 | grep -E "best"
fi
rm -f "$g" "$out/part.h5" "$out"/prss.*
