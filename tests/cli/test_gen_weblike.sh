#!/usr/bin/env bash
# The web-like mechanisms of the generator (gen.dangling, dangling_leaves, unlinked, tree_*,
# template_*, near_*, in_hosts, out_hosts, isolated_hosts, host_cross, link_pairs, popular_degree,
# home_links, tree_only, tree_lift (with tree_lift_span), site_hosts, copy_links, host_pool, community_hosts (closed:
# community_near = 0), closed_own, template_menu, the log-normal out-degree counting the
# structure (degree_sigma, degree_total) and the hosts' levels (host_degree, host_dangling);
# docs/guide/web-like.md) keep the world a pure function of (seed, page id): with all of them on,
# the graph file `crawlsim gen` writes is the same on 1 rank (1 thread) and 3 ranks (2 threads),
# and a crawl of the procedural world (gen.materialize = false) is bit-identical to the crawl of
# that file at 1, 2 (2 threads) and 3 ranks (crawlsim compare; /config aside). Each mechanism
# shows in `crawlsim info` of the file: pages without out-links and more reciprocal links; each host
# role in `crawlsim stats`: the bow-tie part it makes (IN, OUT, the rest) grows.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader

page_keys=(--set gen.dangling=0.1 --set gen.unlinked=0.2 --set gen.tree_branching=6
    --set gen.tree_up=0.9 --set gen.tree_down=0.8 --set gen.tree_siblings=0.6
    --set gen.template_links=5 --set gen.template_share=0.8 --set gen.near_share=0.5
    --set gen.near_alpha=1.7)
spec=("$SRC/graphs/tiny.ini" --set gen.pages=20000 --set gen.delta_median=1 "${page_keys[@]}"
    --set gen.near_snap=0.6 --set gen.near_forward=0.7 --set gen.dangling_leaves=true
    --set gen.in_hosts=0.2 --set gen.out_hosts=0.2 --set gen.isolated_hosts=0.1
    --set gen.host_cross=0.3 --set gen.link_pairs=0.2 --set gen.popular_degree=0.7
    --set gen.home_links=0.3 --set gen.tree_only=0.3 --set gen.tree_lift=0.5
    --set gen.site_hosts=4 --set gen.copy_links=0.5 --set gen.host_pool=0.5
    --set gen.community_hosts=16 --set gen.community_near=0 --set gen.closed_own=true
    --set gen.degree_sigma=1.2 --set gen.degree_total=true --set gen.tree_lift_span=36
    --set gen.host_degree=0.6 --set gen.host_dangling=0.7)
run 1 -q gen "${spec[@]}" -o web1.h5 > /dev/null 2>&1 || fail "gen at 1 rank"
OMP_NUM_THREADS=2 run 3 -q gen "${spec[@]}" -o web3.h5 > /dev/null 2>&1 || fail "gen at 3 ranks"
if compare web1.h5 web3.h5; then
    pass "the world written by 1 rank = by 3 ranks of 2 threads"
else
    fail "gen 1 vs 3 ranks: $(head -4 <<< "$compared")"
fi
# the template as a menu (gen.template_menu): the same world on 1 and 3 ranks, and the
# procedural crawl at 3 ranks equal to the crawl of its file
menu=("${spec[@]}" --set gen.template_menu=true)
run 1 -q gen "${menu[@]}" -o menu1.h5 > /dev/null 2>&1 || fail "gen with the menu at 1 rank"
OMP_NUM_THREADS=2 run 3 -q gen "${menu[@]}" -o menu3.h5 > /dev/null 2>&1 ||
    fail "gen with the menu at 3 ranks"
if compare menu1.h5 menu3.h5 && ! compare menu1.h5 web1.h5; then
    pass "template_menu: the world written by 1 rank = by 3 ranks of 2 threads (not the popular one)"
else
    fail "template_menu: gen 1 vs 3 ranks, or the same world as without: $(head -4 <<< "$compared")"
fi
mcrawl=(-q "${menu[@]}" --set run.pages=1500 --set crawl.bandwidth=30 --set run.ticks=60)
run 3 run "${mcrawl[@]}" --set run.graph="$PWD/menu1.h5" -o mf3.h5 > /dev/null 2>&1 ||
    fail "template_menu: the crawl of the file"
run 3 run "${mcrawl[@]}" --set gen.materialize=false -o mp3.h5 > /dev/null 2>&1 ||
    fail "template_menu: the procedural crawl"
if compare mf3.h5 mp3.h5 --ignore /config; then
    pass "template_menu, np 3: procedural = file"
else
    fail "template_menu, np 3: $(head -4 <<< "$compared")"
fi
run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o plain.h5 > /dev/null 2>&1 ||
    fail "gen of the plain world"
# the page mechanisms alone (dangling_leaves and closed hosts of one page change the dangling count)
run 1 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 "${page_keys[@]}" -o pages.h5 \
    > /dev/null 2>&1 || fail "gen of the page mechanisms' world"
info=$(run 1 info pages.h5 2> /dev/null)
plain=$(run 1 info plain.h5 2> /dev/null)
dang=$(sed -n 's/^out-degree.*(\([0-9]*\) pages without out-links).*/\1/p' <<< "$info")
rec=$(sed -n 's/^reciprocity \([0-9.]*\).*/\1/p' <<< "$info")
rec0=$(sed -n 's/^reciprocity \([0-9.]*\).*/\1/p' <<< "$plain")
# 10 % of 20000 pages without out-links: binomial sd 42; 5 sd
if [ -n "$dang" ] && [ "$dang" -gt 1790 ] && [ "$dang" -lt 2210 ] &&
    awk -v a="$rec" -v b="$rec0" 'BEGIN { exit !(a > b + 0.03) }'; then
    pass "info: $dang pages without out-links, reciprocity $rec (plain world $rec0)"
else
    fail "info: ${dang:-?} pages without out-links, reciprocity ${rec:-?} (plain ${rec0:-?})"
fi

# the host roles: 40 % of the hosts IN, OUT or isolated (the plain world has IN 11 %, OUT 0 %,
# the rest 0 %; with each role about 40 % of the pages move to its part)
bowtie() { # spec args -> "SCC IN OUT REST" in %
    run 1 stats "$SRC/graphs/tiny.ini" --set gen.pages=20000 "$@" 2> /dev/null |
        sed -n 's/^bow-tie: [^0-9]* \([0-9.e+-]*\) %.*/\1/p' | tr '\n' ' '
}
read -r _ in0 out0 rest0 <<< "$(bowtie)"
read -r _ in1 _ _ <<< "$(bowtie --set gen.in_hosts=0.4)"
read -r _ _ out2 _ <<< "$(bowtie --set gen.out_hosts=0.4)"
read -r _ _ _ rest3 <<< "$(bowtie --set gen.isolated_hosts=0.4)"
if awk -v a="$in0" -v b="$in1" -v c="$out0" -v d="$out2" -v e="$rest0" -v f="$rest3" \
    'BEGIN { exit !(b > a + 20 && d > c + 20 && f > e + 20) }'; then
    pass "stats: bow-tie IN $in0 -> $in1 %, OUT $out0 -> $out2 %, rest $rest0 -> $rest3 %"
else
    fail "stats: bow-tie IN ${in0:-?} -> ${in1:-?}, OUT ${out0:-?} -> ${out2:-?}, rest ${rest0:-?} -> ${rest3:-?}"
fi

crawl=(-q "${spec[@]}" --set run.pages=1500 --set crawl.bandwidth=30 --set run.ticks=60
    --set refresh.policy=lambda-learn --set refresh.fraction=0.3)
for np in 1 2 3; do
    t=1
    [ "$np" != 2 ] || t=2
    OMP_NUM_THREADS=$t run "$np" run "${crawl[@]}" --set run.graph="$PWD/web1.h5" \
        -o "f$np.h5" > /dev/null 2>&1 || fail "np $np: the crawl of the file"
    OMP_NUM_THREADS=$t run "$np" run "${crawl[@]}" --set gen.materialize=false \
        -o "p$np.h5" > /dev/null 2>&1 || fail "np $np: the procedural crawl"
    if compare "f$np.h5" "p$np.h5" --ignore /config; then
        pass "np $np, $t thread(s): procedural = file"
    else
        fail "np $np: $(head -4 <<< "$compared")"
    fi
done
finish
