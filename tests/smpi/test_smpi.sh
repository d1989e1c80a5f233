#!/usr/bin/env bash
# The simulated cluster (docs/guide/simulated-cluster.md): configures and builds crawlsim against
# SimGrid's SMPI (-DCRAWLSIM_SMPI=ON, -Werror) in the work folder, then crawls a world generated
# in memory as 1, 2 and 4 simulated ranks and as 16 simulated ranks on
# tools/smpi/supermuc-ng.xml. In the strict setting the P-rank results are identical to Open MPI's
# on P ranks (every dataset but the wall-clock /timing) and the 16-rank ones to Open MPI's on
# 1 rank (but what measures the ranks themselves); the comparison can fail (another seed
# differs). With modelled computation (tools/smpi-run --compute model) the results are the same,
# the simulated time of two runs is identical to the bit and grows with the costs, and a
# malformed cost list is refused. The two-level exchange (crawl.exchange = node) on 16 simulated
# ranks, 4 per host, gives the 1-rank results with fewer record messages than the census. Skipped (77) without SimGrid's SMPI or serial HDF5 (libsimgrid-dev, libhdf5-dev).
# Run as bash test_smpi.sh BIN SRC WORK MPIEXEC "MPIFLAGS" (ctest -L smpi).
source "$(dirname "$0")/../cli/lib.sh"
for t in smpicc smpirun cmake pkg-config; do
    command -v "$t" > /dev/null || skip "$t not found: the SMPI test needs SimGrid (apt-get install libsimgrid-dev)"
done
pkg-config --exists simgrid || skip "simgrid.pc not found (apt-get install libsimgrid-dev)"
pkg-config --exists hdf5-serial || skip "hdf5-serial.pc not found: the SMPI build links serial HDF5 (apt-get install libhdf5-dev)"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

t0=$(date +%s)
if cmake -S "$SRC" -B build-smpi -DCMAKE_BUILD_TYPE=Release -DCRAWLSIM_SMPI=ON -DCRAWLSIM_WERROR=ON \
    > build.txt 2>&1 && cmake --build build-smpi -j 2 --target crawlsim >> build.txt 2>&1; then
    pass "the SMPI build (-Werror) in $(($(date +%s) - t0)) s"
else
    fail "the SMPI build: $(grep -m5 -iE 'error|fatal' build.txt)"
    exit 1
fi

job=("$SRC/graphs/tiny.ini" --set gen.pages=20000 --set run.policy=sarsa --set run.pages=2000
     --set crawl.bandwidth=40 --set crawl.host_rate=2 --set run.trace=true --set run.tasks=2)
# simulate NP PLATFORM PER_NODE OUT [smpi-run options] [-- crawl options]: a simulated crawl;
# SimGrid's report in smpiNP.txt
simulate() {
    local np=$1 platform=$2 per_node=$3 out=$4 opts=() more=()
    shift 4
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    more=("$@")
    timeout 600 "$SRC/tools/smpi-run" -n "$np" --ranks-per-node "$per_node" "${opts[@]}" \
        --bin build-smpi/crawlsim --platform "$SRC/tools/smpi/$platform" -- \
        -q run "${job[@]}" "${more[@]}" -o "$out" > "smpi$np.txt" 2>&1
}
# the simulated seconds of a crawl (its /timing/seconds), at full precision
simulated() {
    /usr/bin/python3 -c "import h5py, sys; print(repr(float(h5py.File(sys.argv[1])['timing/seconds'][0])))" "$1"
}
run 1 -q run "${job[@]}" --set run.seed=2 -o other.h5 2> err.txt || fail "Open MPI, seed 2: $(cat err.txt)"
# P Open MPI ranks against P simulated ranks (P = 1, 2 on this machine's platform, 4 on
# supermuc-ng.xml): every dataset but the wall-clock /timing, the per-rank tables included
for np in 1 2 4; do
    run "$np" -q run "${job[@]}" -o "ompi$np.h5" 2> err.txt || fail "Open MPI, $np ranks: $(cat err.txt)"
    if [ "$np" -le 2 ]; then
        simulate "$np" localhost.xml "$np" "smpi$np.h5"
    else
        simulate "$np" supermuc-ng.xml 1 "smpi$np.h5"
    fi || { fail "$np simulated ranks: $(tail -5 "smpi$np.txt")"; continue; }
    if compare "ompi$np.h5" "smpi$np.h5"; then
        pass "$np simulated ranks == $np Open MPI ranks (every dataset but /timing)"
    else
        fail "$np simulated ranks differ from $np Open MPI ranks: $(head -4 <<< "$compared")"
    fi
done

t1=$(date +%s)
if simulate 16 supermuc-ng.xml 1 smpi16.h5; then
    pass "16 simulated ranks on supermuc-ng.xml in $(($(date +%s) - t1)) s"
    same_as_one_rank ompi1.h5 smpi16.h5 "16 simulated ranks == 1 Open MPI rank (strict setting)"
    sim=$(grep -oE 'Simulated time: [0-9.e+-]+' smpi16.txt | cut -d' ' -f3)
    if awk -v s="${sim:-0}" 'BEGIN { exit !(s > 0) }'; then
        pass "SimGrid reports a simulated time of $sim s"
    else
        fail "no simulated time in SimGrid's report: $(tail -5 smpi16.txt)"
    fi
else
    fail "16 simulated ranks: $(tail -5 smpi16.txt)"
fi
# modelled computation: the same crawl, a simulated time that depends on the counts and the
# platform only (identical in two runs), larger with larger costs; a bad cost list is an error
awk '!/^#/ && NF { for (i = 1; i <= NF; i++) $i *= 4; print }' "$SRC/tools/smpi/costs.txt" > costs4.txt
if simulate 4 supermuc-ng.xml 1 model_a.h5 --compute model &&
    simulate 4 supermuc-ng.xml 1 model_b.h5 --compute model; then
    compare ompi4.h5 model_a.h5 && pass "modelled computation: 4 simulated ranks == 4 Open MPI ranks" ||
        fail "modelled computation changed the results: $(head -4 <<< "$compared")"
    a=$(simulated model_a.h5) b=$(simulated model_b.h5)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then
        pass "modelled computation: two runs simulate the same time to the bit ($a s)"
    else
        fail "modelled computation: two runs simulated $a s and $b s"
    fi
else
    fail "modelled computation: $(tail -5 smpi4.txt)"
fi
# (the census exchange: the sparse exchange's polling is played as injected sleeps, which would
# hide the computation; docs/guide/simulated-cluster.md)
job+=(--set crawl.exchange=census)
if simulate 4 supermuc-ng.xml 1 model_1x.h5 --compute model &&
    simulate 4 supermuc-ng.xml 1 model_4x.h5 --compute model --costs costs4.txt; then
    a=$(simulated model_1x.h5) c=$(simulated model_4x.h5)
    if awk -v a="${a:-0}" -v c="${c:-0}" 'BEGIN { exit !(a > 0 && c > 1.5 * a) }'; then
        pass "four times the costs: $c s of simulated time against $a s"
    else
        fail "four times the costs simulated $c s against $a s"
    fi
else
    fail "modelled computation, census exchange: $(tail -5 smpi4.txt)"
fi
# the two-level exchange (crawl.exchange = node): 16 simulated ranks, 4 per host (SMPI's shared
# communicator is the ranks of one host), the records and the visited notes through the hosts'
# first ranks: the 1-rank results; the records' messages fewer than the census's
if simulate 16 supermuc-ng.xml 4 node16.h5 --compute model -- --set crawl.exchange=node \
    --set crawl.visited=owned && simulate 16 supermuc-ng.xml 4 census16.h5 --compute model -- \
    --set crawl.visited=owned; then
    run 1 -q run "${job[@]}" --set crawl.exchange=node --set crawl.visited=owned -o ompi1_node.h5 \
        2> err.txt || fail "Open MPI, 1 rank, node exchange: $(cat err.txt)"
    same_as_one_rank ompi1_node.h5 node16.h5 "node exchange, 16 simulated ranks on 4 hosts == 1 Open MPI rank"
    msgs() { h5dump -d /series/messages "$1" | grep -oE '[0-9]+' | tail -1; }
    mn=$(msgs node16.h5) mc=$(msgs census16.h5)
    if [ -n "$mn" ] && [ -n "$mc" ] && [ "$mn" -lt "$mc" ]; then
        pass "node exchange: $mn record messages against the census's $mc"
    else
        fail "node exchange: $mn record messages against the census's $mc"
    fi
else
    fail "node exchange, 16 simulated ranks: $(tail -5 smpi16.txt)"
fi
echo localhost > hosts1.txt
if CRAWLSIM_SMPI_COSTS=1,2,x OMP_NUM_THREADS=1 timeout 120 smpirun -np 1 \
    -platform "$SRC/tools/smpi/localhost.xml" -hostfile hosts1.txt \
    build-smpi/crawlsim -q run "${job[@]}" -o bad.h5 > bad.txt 2>&1; then
    fail "a malformed CRAWLSIM_SMPI_COSTS was accepted"
elif grep -q 'CRAWLSIM_SMPI_COSTS=.*expected 5' bad.txt; then
    pass "a malformed CRAWLSIM_SMPI_COSTS is refused"
else
    fail "a malformed CRAWLSIM_SMPI_COSTS: $(tail -3 bad.txt)"
fi
# the comparison is not vacuous: another seed gives other results
compare other.h5 smpi16.h5 "${RANK_DEPENDENT[@]}"
case $? in
    1) pass "seed 2 differs from seed 1 (the comparison can fail)" ;;
    0) fail "a crawl of seed 2 compares identical to seed 1's: the comparison cannot fail" ;;
    *) fail "comparing seed 2 with seed 1: $(head -4 <<< "$compared")" ;;
esac
echo "test_smpi: $(($(date +%s) - t0)) s"
finish
