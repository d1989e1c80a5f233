#!/usr/bin/env bash
# Thread invariance (issue 21): the same crawl at OMP_NUM_THREADS = 1 and 3 (an odd count: no
# even split of anything) on 2 ranks gives results files that crawlsim compare finds identical
# (every dataset and attribute outside /timing and /config, which records the thread count);
# test_threads_full.sh (label long: 30 crawls, each mostly MPI's and HDF5's start-up, 73-83 s
# on the shared 2-core machine) runs 1, 2 and 3 threads at 1 and 2 ranks. For SARSA in each mode
# (synchronous and moderated in the strict setting, asynchronous with weight averaging: the
# serial learner and the unsorted insertion), TRES (the strict setting's replicated policy), and
# SARSA with [refresh] (lambda-learn); synchronous SARSA and the refresh crawl run in wide
# ticks on a larger world (the joins to the cache in parallel: 32 fetches a rank; a sync's
# per-page loops: 4 096 cached pages).
# Every phase of a tick that runs in parallel (evaluation, selection's histogram, key pass,
# lookups and removal of the picks, fetching, learning, routing, insertion with the new
# entries' creation) is exercised. And the comparison can fail: two different crawls are told
# apart. Also crawlsim's warning when threads share cores by accident, and its note when a
# rank's threads span sockets.
source "$(dirname "$0")/lib.sh"
# idle OpenMP threads yield (3 threads x 2 ranks on 2 cores); shared memory only
export OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader

run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=10000 --set gen.delta_median=1 -o web.h5 \
    > /dev/null 2>&1 || fail "gen"
# synchronous SARSA in wide ticks (200 picks per rank, frontiers of thousands): the selection's
# histogram, the parallel lookups of the picks, their removal and the new entries' creation
run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=50000 --set gen.delta_median=1 -o web50.h5 \
    > /dev/null 2>&1 || fail "gen 50000"
common=(--set run.graph=web.h5 --set run.pages=1500 --set crawl.bandwidth=80 --set run.trace=true
        --set crawl.frontier_capacity=1500)
declare -A cfg=(
    [sync]="--set run.policy=sarsa --set sarsa.mode=synchronous --set run.graph=web50.h5 --set run.pages=2400 --set crawl.bandwidth=400 --set crawl.frontier_capacity=40000"
    [async]="--set run.policy=sarsa --set sarsa.mode=asynchronous --set crawl.weight_sync=average"
    [moderated]="--set run.policy=sarsa --set sarsa.mode=moderated"
    [tres]="--set run.policy=tres --set run.pages=300 --set crawl.bandwidth=20"
    [refresh]="--set run.policy=sarsa --set refresh.policy=lambda-learn --set refresh.fraction=0.3 --set refresh.sync_every=10 --set run.ticks=60 --set run.graph=web50.h5 --set run.pages=0 --set crawl.bandwidth=400 --set crawl.frontier_capacity=40000"
)
names=(sync async moderated tres refresh)

if [ "${THREADS_FULL:-0}" = 1 ]; then
    ranks=(1 2) threads=(2 3)
else
    ranks=(2) threads=(3)
fi
for name in "${names[@]}"; do
    for np in "${ranks[@]}"; do
        for th in 1 "${threads[@]}"; do
            read -r -a extra <<< "${cfg[$name]}"
            OMP_NUM_THREADS=$th run "$np" -q run "${common[@]}" "${extra[@]}" \
                -o "${name}_${np}_$th.h5" 2> err.txt || fail "run $name np $np threads $th: $(cat err.txt)"
        done
    done
done

for name in "${names[@]}"; do
    for np in "${ranks[@]}"; do
        for th in "${threads[@]}"; do
            if compare "${name}_${np}_1.h5" "${name}_${np}_$th.h5" --ignore /config; then
                pass "$name, $np rank(s): $th threads == 1 thread"
            else
                fail "$name, $np rank(s): $th threads differ from 1 thread: $(head -4 <<< "$compared")"
            fi
        done
    done
done
# not vacuous: the crawls fetched what they were asked, and the re-crawls happened
[ "$(h5int sync_2_3.h5 /final/fetched 0)" = 2400 ] && [ "$(h5int tres_2_3.h5 /final/fetched 0)" = 300 ] &&
    pass "the crawls fetched their pages" || fail "fetched: $(h5int sync_2_3.h5 /final/fetched 0), $(h5int tres_2_3.h5 /final/fetched 0)"
[ "$(h5int refresh_2_3.h5 /final/refresh_crawls 0)" -gt 0 ] 2> /dev/null &&
    pass "the refresh crawls re-crawled" || fail "no re-crawls in refresh_2_3.h5"
# the comparison can fail: moderated and asynchronous SARSA differ
compare moderated_2_1.h5 async_2_1.h5 --ignore /config
case $? in
1) pass "moderated and asynchronous SARSA differ (the comparison can fail)" ;;
*) fail "moderated and asynchronous SARSA compared equal or could not be compared: $compared" ;;
esac
# threads that share a core by accident: warned (more threads than the machine's cores on one
# rank: its affinity mask, or the node, is short of cores); one thread per rank: no warning
many=$(($(nproc) + 1))
out=$(OMP_NUM_THREADS=$many run 1 info web.h5 2>&1 > /dev/null)
grep -q "threads share cores" <<< "$out" && pass "$many threads on $((many - 1)) cores: warned" ||
    fail "$many threads on $((many - 1)) cores: no warning: $out"
out=$(OMP_NUM_THREADS=1 run 1 info web.h5 2>&1 > /dev/null)
grep -q "share cores" <<< "$out" && fail "1 thread: warned: $out" || pass "1 rank x 1 thread: no warning"
# a rank's threads on cores of two sockets: noted (a fake sysfs, CRAWLSIM_SYS_CPU, puts every
# even CPU on socket 0 and every odd one on socket 1; the rank unbound, so that its mask holds
# every CPU); one thread, or one socket: no note
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # (nproc obeys OMP_NUM_THREADS)
for c in $(seq 0 $(($(nproc --all) - 1))); do
    mkdir -p "sys2/cpu$c/topology" "sys1/cpu$c/topology"
    echo $((c % 2)) > "sys2/cpu$c/topology/physical_package_id"
    echo 0 > "sys1/cpu$c/topology/physical_package_id"
done
saved=("${MPIFLAGS[@]}")
MPIFLAGS+=(--bind-to none)
if [ "$cpus" -ge 2 ]; then
    out=$(CRAWLSIM_SYS_CPU=$PWD/sys2 OMP_NUM_THREADS=2 run 1 info web.h5 2>&1 > /dev/null)
    grep -q "threads of rank 0 run on cores of 2 sockets" <<< "$out" &&
        pass "2 threads on 2 sockets: noted" || fail "2 threads on 2 sockets: no note: $out"
else
    echo "skipped: 2 threads on 2 sockets (only $cpus CPU here)"
fi
out=$(CRAWLSIM_SYS_CPU=$PWD/sys2 OMP_NUM_THREADS=1 run 1 info web.h5 2>&1 > /dev/null)
grep -q "sockets" <<< "$out" && fail "1 thread on 2 sockets: noted: $out" || pass "1 thread: no note"
out=$(CRAWLSIM_SYS_CPU=$PWD/sys1 OMP_NUM_THREADS=2 run 1 info web.h5 2>&1 > /dev/null)
grep -q "sockets" <<< "$out" && fail "2 threads on 1 socket: noted: $out" || pass "1 socket: no note"
MPIFLAGS=("${saved[@]}")
finish
