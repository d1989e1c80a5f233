#!/usr/bin/env bash
# A full disk on every write path at 1, 2 and 3 ranks (docs/developer/robustness.md): import of a
# text edge list and of a BVGraph (a small one made here, and LAW's uk-2007-05_100000 when the
# datasets are there), gen, partition, a checkpoint, a results file, schedule and
# bandit; and on a file system that cannot reserve blocks (CRAWLSIM_H5_RESERVE=check).
# Each case is lib.sh's `fault`: the same exit status 1 or 2 on every rank (each rank's own status,
# not only mpiexec's), one error message, no HDF5 error stack, no crash, no hang (FAULT_TIMEOUT),
# no temporary and no output left; and the inputs unchanged (checksums). A case where the disk is
# filled by another process while the file is written ("filler") is included. The disk is a
# small tmpfs: the test needs root and a kernel that lets it mount one, else it is skipped.
source "$(dirname "$0")/lib.sh"
FAULT_CLASS=full-disk
FAULT_TIMEOUT=${FAULT_TIMEOUT:-60}

[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
mkdir full
mount -t tmpfs -o size=64k tmpfs full 2> /dev/null || skip "this machine cannot mount a tmpfs"
umount full
filler=""
trap '[ -z "$filler" ] || kill "$filler" 2> /dev/null; umount full 2> /dev/null' EXIT

# disk SIZE: an empty tmpfs of SIZE bytes at full/
disk() {
    umount full 2> /dev/null
    mount -t tmpfs -o "size=$1" tmpfs full || fail "mount a tmpfs of $1"
}
# case NAME NP ARGS...: a `fault` case whose output is full/out*; afterwards full/ must hold
# nothing but $KEEP (no temporary, no partial output) and the inputs be unchanged
KEEP=""
case_() {
    local name=$1 np=$2
    shift 2
    fault full-disk "$name-np$np" "$np" "$@"
    after_case "$name" "$np"
}
# after_case NAME NP: full/ holds nothing but $KEEP, the inputs are unchanged
after_case() {
    local name=$1 np=$2 left
    left=$(ls -A full | grep -v "^zz-filler\$${KEEP:+\|^$KEEP\$}")
    [ -z "$left" ] || fail "$name (np $np): left in full/: $left"
    rm -rf full/* full/.[!.]* 2> /dev/null
    md5sum -c --quiet inputs.md5 > /dev/null 2>&1 || fail "$name (np $np): an input changed"
}
# filler: in the background, fills full/ as soon as a temporary appears in it (another process
# taking the disk while crawlsim writes); returns at once
fill_when_writing() {
    (
        local end=$((SECONDS + 30))
        while [ "$SECONDS" -lt "$end" ]; do
            if compgen -G 'full/.*.tmp.*' > /dev/null; then
                cat /dev/zero > full/zz-filler 2> /dev/null
                exit 0
            fi
        done
    ) &
    filler=$!
}

# ---- inputs (outside full/), their checksums checked after every case
"$BIN" gen "$SRC/graphs/tiny.ini" -o g.h5 -q || fail "gen g.h5"
printf '[run]\ngraph = g.h5\nticks = 30\n' > job.ini
# edges N: an edge list of N pages with 5 links each
edges() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) for (k = 1; k <= 5; k++) print i, (i * 7 + k * 131) % n }'; }
edges 6000 > edges.txt
edges 200000 > big.txt
printf '[import]\nedges = edges.txt\nhosts = per-page\n' > text.ini
printf '[import]\nedges = big.txt\nhosts = per-page\n' > big.ini
awk 'BEGIN { print "id,mu,delta,complete"; for (i = 0; i < 4000; i++)
    printf "p%d,%g,%g,0\n", i, 0.1 + i % 17, 0.05 + (i % 5) / 10 }' > pages.csv
printf '[bandit]\nexperiment = freshness\npolicies = static-opt, uniform\nruns = 2\nhorizon = 300\n' \
    > bandit.ini
# a BVGraph of 6000 pages with 5 links each (gamma codes, no references or intervals), made
# here so that the BVGraph import's full disk is tried without a dataset
/usr/bin/python3 - << 'EOF' || fail "could not write the BVGraph small.graph"
n = 6000
def gamma(v):
    b = bin(v + 1)[2:]
    return "0" * (len(b) - 1) + b
bits, arcs = [], 0
for x in range(n):
    succ = sorted({(x * 7 + k * 131) % n for k in range(1, 6)})
    arcs += len(succ)
    bits.append(gamma(len(succ)))
    for i, t in enumerate(succ):
        d = t - x if i == 0 else t - succ[i - 1] - 1
        bits.append(gamma(2 * d if d >= 0 else -2 * d - 1) if i == 0 else gamma(d))
s = "".join(bits)
s += "0" * (-len(s) % 8)
open("small.graph", "wb").write(bytes(int(s[i:i + 8], 2) for i in range(0, len(s), 8)))
open("small.properties", "w").write(
    "graphclass=it.unimi.dsi.webgraph.BVGraph\nnodes=%d\narcs=%d\nwindowsize=0\n"
    "maxrefcount=0\nminintervallength=0\nzetak=3\n"
    "compressionflags=OUTDEGREES_GAMMA|RESIDUALS_GAMMA\nversion=0\n" % (n, arcs))
EOF
printf '[import]\nedges = small.graph\nedge_format = bvgraph\nhosts = per-page\n' > small-bv.ini
bv=""
law=${CRAWLSIM_DATASETS:-$SRC/../shared/datasets}/law-webgraph
[ -d "$law" ] || law=/work/shared/datasets/law-webgraph
if [ -e "$law/uk-2007-05_100000.graph" ] && [ -e "$law/uk-2007-05_100000.properties" ]; then
    printf '[import]\nedges = %s\nedge_format = bvgraph\nself_loops = drop\nhosts = per-page\n' \
        "$law/uk-2007-05_100000.graph" > bv.ini
    bv=bv.ini
else
    echo "note: no LAW uk-2007-05_100000 BVGraph: the BVGraph import cases are left out"
fi
# import_filled NP: the import of big.ini while another process fills the disk. On a loaded
# machine the filler may run only after the graph is written and renamed: an exit 0 with the
# whole graph (the same as big-ref.h5, imported elsewhere) is then right, and the case is tried
# again, at most 5 times, so that the disk fills during the write.
import_filled() {
    local np=$1 try out rc
    for try in 1 2 3 4 5; do
        disk 16m
        fill_when_writing
        out=$(RUN_TIMEOUT=$FAULT_TIMEOUT run "$np" import big.ini -o full/out.h5 2>&1 > /dev/null)
        rc=$?
        wait "$filler" 2> /dev/null
        filler=""
        if [ "$rc" -eq 0 ] && [ "$try" -lt 5 ] && compare full/out.h5 big-ref.h5 --ignore /config; then
            echo "note: import-text-filled (np $np): the write ended before the disk filled: again"
            rm -rf full/* full/.[!.]* 2> /dev/null
            continue
        fi
        break
    done
    fault_judge full-disk "import-text-filled-np$np" "$rc" "$out"
    after_case import-text-filled "$np"
}

"$BIN" -q import big.ini -o big-ref.h5 > /dev/null || fail "import big.ini"
md5sum g.h5 job.ini edges.txt text.ini big.txt big.ini pages.csv bandit.ini small.graph \
    small.properties small-bv.ini ${bv:+"$law"/uk-2007-05_100000.*} > inputs.md5

for np in 1 2 3; do
    # sizes: the text graph takes 380 KB, the BVGraph 15 MB, gen's 1 MB, the partition 16 KB,
    # the checkpoint 125 KB, the results file 50 KB, the schedule 110 KB, bandit's 25 KB; a
    # writer first takes a 64 KB ballast (CS_H5_ROOM)
    for size in 64k 256k; do
        disk $size
        case_ "import-text-$size" "$np" import text.ini -o full/out.h5
        case_ "import-small-bvgraph-$size" "$np" import small-bv.ini -o full/out.h5
    done
    if [ -n "$bv" ]; then
        disk 4m
        case_ import-bvgraph "$np" import "$bv" -o full/out.h5
    fi
    disk 640k
    case_ gen "$np" gen "$SRC/graphs/tiny.ini" -o full/out.h5
    disk 8k
    case_ partition "$np" partition g.h5 -k 2 -o full/out.h5
    for size in 64k 160k; do
        disk $size
        case_ "checkpoint-$size" "$np" run job.ini -o r.h5 --set run.checkpoint=full/out.h5 \
            --set run.checkpoint_every=7
        rm -f r.h5
    done
    disk 16k
    case_ results "$np" run job.ini -o full/out.h5
    disk 64k
    case_ schedule "$np" schedule --policy lambdacrawl --bandwidth 400 --input pages.csv \
        -o full/out.csv
    disk 8k
    case_ bandit "$np" bandit bandit.ini -o full/out.h5
    # another process fills the disk while the checkpoint, the graph is written (a checkpoint
    # written before stays: KEEP)
    disk 4m
    fill_when_writing
    KEEP=out.h5 case_ checkpoint-filled "$np" run job.ini -o r.h5 --set run.checkpoint=full/out.h5 \
        --set run.checkpoint_every=1
    wait "$filler" 2> /dev/null
    filler=""
    rm -f r.h5
    import_filled "$np"
done
# a file system that cannot reserve blocks (CRAWLSIM_H5_RESERVE=check takes that path here):
# the free space is checked instead before every collective write and flush, so that a disk
# already full is still an error every rank knows before any of them writes ("no room for",
# not a failed write: without the check the checkpoint at 3 ranks hung)
check_case() { CRAWLSIM_H5_RESERVE=check FAULT_WANT="no room for its" case_ "$@"; }
for np in 2 3; do
    disk 256k
    check_case import-text-check "$np" import text.ini -o full/out.h5
    disk 640k
    check_case gen-check "$np" gen "$SRC/graphs/tiny.ini" -o full/out.h5
    disk 160k
    check_case checkpoint-check "$np" run job.ini -o r.h5 --set run.checkpoint=full/out.h5 \
        --set run.checkpoint_every=7
    rm -f r.h5
done
grep -c ' clean$' outcomes | sed 's/^/clean cases: /'
finish
