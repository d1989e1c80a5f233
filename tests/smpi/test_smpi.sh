#!/usr/bin/env bash
# The simulated cluster (docs/guide/simulated-cluster.md): configures and builds crawlsim against
# SimGrid's SMPI (-DCRAWLSIM_SMPI=ON, -Werror) in the work folder, then crawls a world generated
# in memory as 1, 2 and 4 simulated ranks and as 16 simulated ranks on
# tools/smpi/supermuc-ng.xml. In the strict setting the P-rank results are identical to Open MPI's
# on P ranks (every dataset but the wall-clock /timing) and the 16-rank ones to Open MPI's on
# 1 rank (but what measures the ranks themselves); the comparison can fail (another seed
# differs). Skipped (77) without SimGrid's SMPI or serial HDF5 (libsimgrid-dev, libhdf5-dev).
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
# smpirun NP PLATFORM PER_NODE OUT: a simulated crawl; SimGrid's report in smpiNP.txt
simulate() {
    local np=$1 platform=$2 per_node=$3 out=$4
    timeout 600 "$SRC/tools/smpi-run" -n "$np" --ranks-per-node "$per_node" \
        --bin build-smpi/crawlsim --platform "$SRC/tools/smpi/$platform" -- \
        -q run "${job[@]}" -o "$out" > "smpi$np.txt" 2>&1
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
# the comparison is not vacuous: another seed gives other results
compare other.h5 smpi16.h5 "${RANK_DEPENDENT[@]}"
case $? in
    1) pass "seed 2 differs from seed 1 (the comparison can fail)" ;;
    0) fail "a crawl of seed 2 compares identical to seed 1's: the comparison cannot fail" ;;
    *) fail "comparing seed 2 with seed 1: $(head -4 <<< "$compared")" ;;
esac
echo "test_smpi: $(($(date +%s) - t0)) s"
finish
