#!/usr/bin/env bash
# Outputs never overwrite inputs (issue 20): an output naming one of the command's inputs, by
# path or as the same file under another name (./x, a hard link), is refused before anything is
# written, with a message naming both files, on every rank; the input is left as it was. Every
# output and checkpoint path is checked at start-up: an unwritable run.checkpoint is an error
# before the crawl, not at the first checkpoint.
source "$(dirname "$0")/lib.sh"
FAULT_CLASS=output-onto-input

# refused PATTERN ARGS...: exit 1 and PATTERN on stderr from one process started without
# mpiexec (an MPI singleton: 0.3 s where mpiexec takes 1.5-2 s); a few cases below run on 2
# ranks through expect_exit, for the agreement of every rank
refused() {
    local pattern=$1 out rc
    shift
    out=$(timeout 60 "$BIN" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 1 ] && grep -qE -- "$pattern" <<< "$out"; then
        pass "crawlsim $* -> refused"
        outcome "$FAULT_CLASS" "$*" "$rc" "$out" 1
    else
        fail "crawlsim $*: exit $rc, expected 1 and /$pattern/: $out"
        outcome "$FAULT_CLASS" "$*" "$rc" "$out" 0
    fi
}

"$BIN" gen "$SRC/graphs/tiny.ini" -o g.h5 -q || fail "gen g.h5"
cp "$SRC/graphs/tiny.ini" spec.ini
cp g.h5 g0.h5
ln g.h5 hard.h5
printf '[run]\ngraph = g.h5\nticks = 20\n' > job.ini
printf 'id,mu,delta,complete\n1,1,1,1\n2,1,2,1\n' > pages.csv
cp pages.csv pages0.csv
printf '0 1\n1 2\n2 0\n' > edges.txt
printf '[import]\nedges = edges.txt\nhosts = per-page\n' > imp.ini
cp "$SRC/jobs/whittle-example.ini" bandit.ini
mkdir sub && cp spec.ini sub/spec.ini
printf '1\n2\n' > seeds.txt
cp seeds.txt seeds0.txt
ln -s seeds.txt seedlink.txt
printf 'fake' > bv.graph
printf 'nodes=3\n' > bv.properties
cp bv.properties bv0.properties
ln -s bv.properties bvlink.properties
printf '[import]\nedges = bv.graph\nedge_format = bvgraph\nnode_ids = integer\n' > bv.ini

onto="would overwrite"
expect_exit 1 2 "graph file spec.ini $onto spec spec.ini" gen spec.ini -o spec.ini
refused "graph file sub/../spec.ini $onto spec spec.ini" gen spec.ini -o sub/../spec.ini
refused "partition file g.h5 $onto graph file g.h5" partition g.h5 -k 2 -o g.h5
refused "partition file ./g.h5 $onto graph file g.h5" partition g.h5 -k 2 -o ./g.h5
refused "partition file hard.h5 $onto graph file g.h5" partition g.h5 -k 2 -o hard.h5
refused "partition file job.ini $onto job file job.ini" partition g.h5 -k 2 -o job.ini job.ini
refused "results file g.h5 $onto graph file g.h5" run job.ini -o g.h5
refused "results file job.ini $onto job file job.ini" run job.ini -o job.ini
expect_exit 1 2 "checkpoint hard.h5 $onto graph file g.h5" run job.ini -o r.h5 --set run.checkpoint=hard.h5
refused "checkpoint job.ini $onto job file job.ini" run job.ini -o r.h5 --set run.checkpoint=job.ini
refused "results file r.h5 and checkpoint r.h5 are the same file" run job.ini -o r.h5 --set run.checkpoint=r.h5
refused "output pages.csv $onto input pages.csv" schedule --policy uniform --bandwidth 1 --input pages.csv -o pages.csv
refused "results file bandit.ini $onto job file bandit.ini" bandit bandit.ini -o bandit.ini
expect_exit 1 2 "graph file edges.txt $onto edge file edges.txt" import imp.ini -o edges.txt
# every file a command reads, by identity (a symbolic link is another spelling): the seed file
# of a run, the .properties beside a BVGraph
seedrun=(run job.ini --set run.seed_pages=file --set run.seed_file=seeds.txt)
expect_exit 1 2 "results file seeds.txt $onto seed file seeds.txt" "${seedrun[@]}" -o seeds.txt
refused "checkpoint seeds.txt $onto seed file seeds.txt" "${seedrun[@]}" -o r.h5 \
    --set run.checkpoint=seeds.txt
refused "results file seedlink.txt $onto seed file seeds.txt" "${seedrun[@]}" -o seedlink.txt
expect_exit 1 2 "graph file bv.properties $onto BVGraph properties bv.properties" import bv.ini \
    -o bv.properties
refused "graph file bvlink.properties $onto BVGraph properties" import bv.ini -o bvlink.properties
refused "graph file bv.offsets $onto BVGraph offsets" import bv.ini -o bv.offsets
refused "graph file imp.ini $onto import spec imp.ini" import imp.ini -o imp.ini
if cmp -s g.h5 g0.h5 && cmp -s spec.ini "$SRC/graphs/tiny.ini" && cmp -s pages.csv pages0.csv &&
    cmp -s bandit.ini "$SRC/jobs/whittle-example.ini" && [ "$(cat edges.txt)" = $'0 1\n1 2\n2 0' ] &&
    cmp -s seeds.txt seeds0.txt && cmp -s bv.properties bv0.properties; then
    pass "every input left as it was"
else
    fail "an input was changed"
fi

# unwritable outputs found at start-up, whoever runs the test (a path under a regular file
# cannot be created, even by root); nothing written
touch plain
expect_exit 1 2 "cannot create checkpoint plain/ck.h5: plain is not a directory" run job.ini -o r.h5 --set run.checkpoint=plain/ck.h5 --set run.ticks=100000000
refused "cannot create results file plain/r.h5" run job.ini -o plain/r.h5
refused "cannot create graph file '': the name is empty" gen spec.ini -o ""
[ -e r.h5 ] && fail "r.h5 written" || pass "no results file written"
# the job's own graph, restarting and checkpointing in place: allowed
"$BIN" run job.ini -o r.h5 -q --set run.checkpoint=ck.h5 --set run.checkpoint_every=10 > /dev/null &&
    "$BIN" run job.ini -o r2.h5 -q --set run.checkpoint=ck.h5 --restart ck.h5 > /dev/null &&
    pass "a run restarts from its checkpoint and writes it again" || fail "restart in place"
refused "results file ck.h5 $onto checkpoint ck.h5" run job.ini -o ck.h5 --restart ck.h5
no_leftovers "*.tmp*"
finish
