#!/usr/bin/env bash
# Rank counts far beyond the cores (oversubscribed: a check of correctness, never of speed;
# docs/developer/memory.md). The strict setting at 3 and 64 ranks is bit-identical to 1 rank
# (SARSA, host-hash, a world generated in memory, crawl.visited = owned: every rank holds ghosts,
# subscribers and evidence rows of its own, and the visited notes and the sparse exchange reach
# the other ranks; at 64 also through the two-level exchange, crawl.exchange = node). About
# 30 s; test_scale_260.sh is the 260-rank run (label long).
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
world=(--set gen.pages=20000 --set run.policy=sarsa --set crawl.bandwidth=50
    --set crawl.host_rate=2 --set crawl.frontier_capacity=500 --set run.trace=true)

for np in 1 3 64; do
    run "$np" -q run "${world[@]}" --set run.pages=400 --set crawl.visited=owned -o "s_$np.h5" \
        2> err.txt || fail "strict sarsa on $np ranks: $(cat err.txt)"
done
same_as_one_rank s_1.h5 s_3.h5 "sarsa, host-hash, in memory, visited set owned: 3 ranks == 1 rank"
same_as_one_rank s_1.h5 s_64.h5 "sarsa, host-hash, in memory, visited set owned: 64 ranks == 1 rank"
# the two-level exchange (crawl.exchange = node) at 64 ranks: 8 nodes of 8 ranks
run 1 -q run "${world[@]}" --set run.pages=400 --set crawl.visited=owned --set crawl.exchange=node \
    -o n_1.h5 2> err.txt || fail "node exchange on 1 rank: $(cat err.txt)"
CRAWLSIM_NODE_RANKS=8 run 64 -q run "${world[@]}" --set run.pages=400 --set crawl.visited=owned \
    --set crawl.exchange=node -o n_64.h5 2> err.txt || fail "node exchange on 64 ranks: $(cat err.txt)"
same_as_one_rank n_1.h5 n_64.h5 "sarsa, host-hash, visited set owned, node exchange (8 nodes of 8): 64 ranks == 1 rank"

finish
