#!/usr/bin/env bash
# The strict setting at 8 and 16 ranks (oversubscribed: a check of correctness, never of speed):
# SARSA on a block partition (host quotas binding on hosts split across ranks, a binding frontier
# capacity) and best-first on host-hash are bit-identical to 1 rank, as test_strict.sh checks
# for every policy and partition method at 1 to 4 ranks; and the two-level exchange
# (crawl.exchange = node) with nodes of several ranks.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1

run 2 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o web.h5 > /dev/null 2>&1 || fail "gen"
for case in best-first:host-hash sarsa:block; do
    pol=${case%%:*} part=${case#*:}
    {
        for np in 1 8 16; do
            run "$np" -q run --set run.graph=web.h5 --set run.policy=$pol --set run.pages=1500 \
                --set crawl.bandwidth=50 --set crawl.host_rate=2 --set crawl.frontier_capacity=500 \
                --set run.partition_method=$part --set run.trace=true -o "m_${pol}_${part}_$np.h5" \
                2> err.txt || fail "run $pol $part np $np: $(cat err.txt)"
        done
        for np in 8 16; do
            same_as_one_rank "m_${pol}_${part}_1.h5" "m_${pol}_${part}_$np.h5" \
                "$pol, $part: $np ranks == 1 rank"
        done
    }
done
# the two-level exchange (crawl.exchange = node) at 8 and 16 ranks: nodes of 3 ranks (the last
# one shorter), and 4 nodes with the ranks dealt in turn; the records and the visited notes
# (owned) through the nodes' first ranks
node=(--set run.graph=web.h5 --set run.policy=sarsa --set run.pages=1500 --set crawl.bandwidth=50
    --set crawl.host_rate=2 --set crawl.frontier_capacity=500 --set run.partition_method=block
    --set run.trace=true --set crawl.exchange=node --set crawl.visited=owned)
run 1 -q run "${node[@]}" -o node_1.h5 2> err.txt || fail "node exchange, 1 rank: $(cat err.txt)"
for case in 8:3 16:c4; do
    np=${case%%:*} nodes=${case#*:}
    CRAWLSIM_NODE_RANKS=$nodes run "$np" -q run "${node[@]}" -o "node_$np.h5" 2> err.txt ||
        fail "node exchange, $np ranks: $(cat err.txt)"
    same_as_one_rank node_1.h5 "node_$np.h5" "sarsa, block, node exchange, nodes $nodes: $np ranks == 1 rank"
done
finish
