#!/usr/bin/env bash
# The procedural world (gen.materialize = false, issue 18; docs/guide/generating.md): a crawl
# whose pages are computed when it fetches them is bit-identical (crawlsim compare, shapes
# included; /config aside, which holds the key) to the crawl of the graph file `crawlsim gen`
# writes for the same spec, at the same rank count:
#   SARSA (asynchronous) in the strict setting with [refresh] (lambda-learn) on 2 ranks, block
#   partition (hosts split across ranks) with a MAX cap: the fetched pages' links, relevance and
#   evidence, the anchors of their out-links, the change clocks and attributes of the cached
#   pages, the host of any page (the MAX cap of split hosts counts every rank's fetches) and
#   the split hosts' quotas;
# the generator's model shared by the ranks of the node (cs_gen_create_shared, built by the 3
# ranks together) gives the crawl of a model per rank (CRAWLSIM_SHARED=0), and the ranks that
# map it report its pages (/timing/ranks/shared_rss); the relevant hosts' count summed over
# the ranks under host-hash (each rank's hosts its own) equals the count of the OR-ed bitmaps
# (block: split hosts) and one rank's;
# run.partition_method = metis-sampled gives the same crawl on the procedural and the
# materialized world at 1, 2 and 3 ranks, owners other than host-hash's and fewer bytes
# exchanged; and the options that need the graph before the crawl are refused with an error
# naming gen.materialize: run.seed_pages = in-degree, crawl.visited = owned, a graph file; and
# metis-sampled's bad sample sizes (negative, not a number) and a graph file.
# With PROCEDURAL_FULL=1 (cli.test_procedural_full, label long) every policy crawlsim help lists
# (SARSA in each mode, the others as they are and in the strict setting), [refresh] off and on,
# at 1, 2 and 4 ranks.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader
FULL=${PROCEDURAL_FULL:-0}

spec=(--set gen.pages=20000 --set gen.delta_median=1)
run 1 -q gen "$SRC/graphs/tiny.ini" "${spec[@]}" -o web.h5 > /dev/null 2>&1 || fail "gen"
crawl=(-q "$SRC/graphs/tiny.ini" "${spec[@]}" --set run.pages=1500 --set crawl.bandwidth=30
    --set run.ticks=80)
strict=(--set crawl.budget=global --set crawl.exchange_every=1 --set crawl.sync_every=1)
refresh=(--set refresh.policy=lambda-learn --set refresh.fraction=0.3 --set refresh.sync_every=5)

# same NP NAME ARGS...: the crawl on the file and on the procedural world, compared
n=0
same() {
    local np=$1 name=$2
    shift 2
    n=$((n + 1))
    # both at once (mostly MPI's start-up, which overlaps)
    run "$np" run "${crawl[@]}" "$@" --set run.graph="$PWD/web.h5" -o "f$n.h5" > /dev/null 2>&1 &
    local f=$!
    run "$np" run "${crawl[@]}" "$@" --set gen.materialize=false -o "p$n.h5" > /dev/null 2>&1 ||
        { fail "$name: the procedural crawl"; wait "$f"; return; }
    wait "$f" || { fail "$name: the crawl of the file"; return; }
    if compare "f$n.h5" "p$n.h5" --ignore /config; then
        pass "$name (np $np): procedural = file"
    else
        fail "$name (np $np): $(head -4 <<< "$compared")"
    fi
}

if [ "$FULL" = 1 ]; then
    for np in 1 2 4; do
        for rf in off on; do
            r=()
            [ "$rf" = off ] || r=("${refresh[@]}")
            # every run.policy the binary lists (crawlsim help config run); SARSA in each mode,
            # the others as they are and in the strict setting (the selecting policies'
            # replicated state)
            for pol in $(policies run); do
                if [ "$pol" = sarsa ]; then
                    for mode in asynchronous synchronous moderated; do
                        same "$np" "sarsa $mode, refresh $rf" --set run.policy=sarsa \
                            --set sarsa.mode="$mode" "${r[@]}"
                    done
                    continue
                fi
                same "$np" "$pol, refresh $rf" --set run.policy="$pol" "${r[@]}"
                same "$np" "$pol (strict), refresh $rf" --set run.policy="$pol" "${strict[@]}" \
                    "${r[@]}"
            done
        done
    done
else
    same 2 "sarsa, strict, block partition, MAX 3, refresh lambda-learn" "${strict[@]}" \
        --set run.partition_method=block --set tres.max_per_host=3 "${refresh[@]}"
fi

# the model shared by the node's 3 ranks (each built a share) = a model per rank
shared=("${crawl[@]}" --set gen.materialize=false --set run.partition_method=block)
run 3 run "${shared[@]}" -o shared.h5 > /dev/null 2>&1 || fail "the crawl on the shared model"
CRAWLSIM_SHARED=0 run 3 run "${shared[@]}" -o private.h5 > /dev/null 2>&1 ||
    fail "the crawl on a model per rank"
if compare shared.h5 private.h5; then
    pass "the model shared by 3 ranks = a model per rank"
else
    fail "shared model: $(head -4 <<< "$compared")"
fi
shm=$(h5int shared.h5 /timing/ranks/shared_rss 1)
[ "${shm:-0}" -gt 0 ] && [ "$(h5int private.h5 /timing/ranks/shared_rss 1)" = 0 ] &&
    pass "rank 1 maps the shared model ($shm bytes resident), not without it" ||
    fail "shared_rss: ${shm:-none} shared, $(h5int private.h5 /timing/ranks/shared_rss 1) private"

# the relevant hosts' count: under host-hash a rank's relevant hosts are its own, so their count
# is the sum of the ranks' counts (no bitmap travels); with split hosts (block) the ranks' bitmaps
# are OR-ed and counted; on one rank its own count. The same crawl (the strict setting) gives the
# same series both ways.
rh=("${crawl[@]}" "${strict[@]}" --set gen.materialize=false)
for p in 1:host-hash 3:host-hash 3:block; do
    run "${p%%:*}" run "${rh[@]}" --set run.partition_method="${p#*:}" -o "rh-${p/:/-}.h5" \
        > /dev/null 2>&1 || fail "relevant hosts: the crawl at $p"
done
series() { h5dump -d "$2" "$1" 2> /dev/null | sed -n '/DATA {/,/}/p'; }
for d in /series/relevant_hosts /final/relevant_hosts; do
    one=$(series rh-1-host-hash.h5 "$d")
    for f in rh-3-host-hash.h5 rh-3-block.h5; do
        if [ -n "$one" ] && [ "$(series "$f" "$d")" = "$one" ]; then
            pass "relevant hosts: $d of $f = one rank's"
        else
            fail "relevant hosts: $d of $f differs from one rank's"
        fi
    done
done
last=$(h5int rh-3-host-hash.h5 /final/relevant_hosts 0)
[ "${last:-0}" -gt 0 ] && pass "relevant hosts found: $last" || fail "no relevant host found"

# run.partition_method = metis-sampled (METIS on the host graph estimated from 2 pages a host,
# on rank 0, broadcast; owners from the host's entry): the procedural crawl = the materialized
# one at 1, 2 and 3 ranks (the strict setting, [refresh], a MAX cap); its owners are not
# host-hash's and it sends fewer bytes between the 2 ranks
ms=("${crawl[@]}" "${strict[@]}" "${refresh[@]}" --set tres.max_per_host=3
    --set run.partition_method=metis-sampled --set partition.sample=2)
for np in 1 2 3; do
    run "$np" run "${ms[@]}" --set gen.materialize=true -o "msm$np.h5" > /dev/null 2>&1 &
    f=$!
    run "$np" run "${ms[@]}" --set gen.materialize=false -o "msp$np.h5" > /dev/null 2>&1 ||
        fail "metis-sampled (np $np): the procedural crawl"
    wait "$f" || fail "metis-sampled (np $np): the materialized crawl"
    if compare "msm$np.h5" "msp$np.h5" --ignore /config; then
        pass "metis-sampled (np $np): procedural = materialized"
    else
        fail "metis-sampled (np $np): $(head -4 <<< "$compared")"
    fi
done
run 2 run "${ms[@]}" --set run.partition_method=host-hash -o hh2.h5 > /dev/null 2>&1 ||
    fail "the host-hash crawl"
pm=$(h5int msm2.h5 /ranks/pages 0)
ph=$(h5int hh2.h5 /ranks/pages 0)
bm=$(($(h5int msm2.h5 /ranks/bytes_exchanged 0) + $(h5int msm2.h5 /ranks/bytes_exchanged 1)))
bh=$(($(h5int hh2.h5 /ranks/bytes_exchanged 0) + $(h5int hh2.h5 /ranks/bytes_exchanged 1)))
[ "$pm" != "$ph" ] && [ "$bm" -lt "$bh" ] &&
    pass "metis-sampled: rank 0 owns $pm pages (host-hash $ph), $bm bytes exchanged (host-hash $bh)" ||
    fail "metis-sampled: rank 0 owns $pm pages (host-hash $ph), $bm bytes exchanged (host-hash $bh)"

# the refusals, at once
expect_exit 1 1 'seed_pages = in-degree.*gen.materialize' run "${crawl[@]}" \
    --set gen.materialize=false --set run.seed_pages=in-degree -o bad1.h5 > e1.txt &
expect_exit 1 1 'crawl.visited = owned.*gen.materialize' run "${crawl[@]}" \
    --set gen.materialize=false --set crawl.visited=owned -o bad2.h5 > e2.txt &
expect_exit 1 1 'gen.materialize = false.*run.graph' run "${crawl[@]}" \
    --set gen.materialize=false --set run.graph="$PWD/web.h5" -o bad3.h5 > e3.txt
wait
expect_exit 1 2 'partition.sample' run "${ms[@]}" --set partition.sample=-1 -o bad4.h5 > e4.txt &
expect_exit 1 2 'partition.sample' run "${ms[@]}" --set partition.sample=two -o bad5.h5 > e5.txt &
expect_exit 1 2 'metis-sampled.*graph file' run "${ms[@]}" --set run.graph="$PWD/web.h5" \
    -o bad6.h5 > e6.txt
wait
for i in 1 2 3 4 5 6; do
    cat "e$i.txt"
    grep -q '^FAIL' "e$i.txt" && failures=$((failures + 1))
done
finish
