#!/usr/bin/env bash
# [refresh] on the procedural world at 10^5 pages (issue 18; docs/guide/generating.md): the cache
# and the re-crawl policy number the pages in the order they are first fetched (slots), and on
# the procedural world compute a page's attributes and bandit group when it joins, while the
# materialized world copies them from its arrays; their sums over pages run in the order of the
# local indexes. So the crawl with [refresh] on the procedural world is bit-identical (crawlsim
# compare, shapes included; /config aside) to the crawl on the world generated in memory, at
# 1, 2 and 3 ranks: lambda-learn (the solves' sums in page order, the learners' log, the heap
# built in page order) at each, and at 3 ranks bandit-static-opt grouped by host (its groups
# computed per page; the static optimum's sums in page order) and adaptive (ties in the heap);
# at 2 ranks bandit-whittle grouped by rate class (the change rates' range from one pass over
# the procedural world's pages against the materialized world's arrays), and at 3 ranks with
# a block partition and 2 threads.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader

crawl=(-q "$SRC/graphs/tiny.ini" --set gen.pages=100000 --set gen.delta_median=1
    --set run.pages=4000 --set crawl.bandwidth=40 --set run.ticks=150
    --set refresh.fraction=0.3 --set refresh.sync_every=5)

n=0
# same NP NAME ARGS...: the crawl on the world generated in memory and on the procedural world
same() {
    local np=$1 name=$2
    shift 2
    n=$((n + 1))
    run "$np" run "${crawl[@]}" "$@" -o "m$n.h5" > /dev/null 2>&1 &
    local m=$!
    run "$np" run "${crawl[@]}" "$@" --set gen.materialize=false -o "p$n.h5" > /dev/null 2>&1 ||
        { fail "$name: the procedural crawl"; wait "$m"; return; }
    wait "$m" || { fail "$name: the materialized crawl"; return; }
    local rc
    rc=$(h5int "p$n.h5" /final/refresh_crawls 0)
    if [ "${rc:-0}" -le 0 ]; then
        fail "$name (np $np): no re-crawl"
    elif compare "m$n.h5" "p$n.h5" --ignore /config; then
        pass "$name (np $np): procedural = materialized ($rc re-crawls)"
    else
        fail "$name (np $np): $(head -4 <<< "$compared")"
    fi
}

for np in 1 2 3; do
    same "$np" "lambda-learn" --set refresh.policy=lambda-learn
done
same 3 "bandit-static-opt by host" --set refresh.policy=bandit-static-opt \
    --set refresh.group_by=host
same 3 "adaptive" --set refresh.policy=adaptive
same 2 "bandit-whittle by rate class" --set refresh.policy=bandit-whittle \
    --set refresh.group_by=rate-class
# the range's pass over a rank's runs of pages: above, host hashing's runs (a host's pages
# each) taken whole by one thread; here a block partition's one run split among 2 threads
OMP_NUM_THREADS=2 same 3 "bandit-whittle by rate class, block partition, 2 threads" \
    --set refresh.policy=bandit-whittle --set refresh.group_by=rate-class \
    --set run.partition_method=block
finish
