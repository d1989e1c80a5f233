#!/usr/bin/env bash
# A full disk (issue 20): a checkpoint, a results file, a partition file or a graph that does not
# fit is one clear error with exit 1 on every rank (lib.sh's run compares them), within the
# timeout, no crash (HDF5 segfaulted in MPI_Finalize after a failed close) and no hang (in the
# collective close), the temporary removed, the previous checkpoint kept. The disk is a small
# tmpfs, so the test needs root and a kernel that lets it mount one: else it is skipped.
source "$(dirname "$0")/lib.sh"
FAULT_CLASS=full-disk

[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
mkdir full
mount -t tmpfs -o size=64k tmpfs full 2> /dev/null || skip "this machine cannot mount a tmpfs"
umount full
trap 'umount full 2> /dev/null' EXIT

# disk SIZE: an empty tmpfs of SIZE bytes at full/
disk() {
    umount full 2> /dev/null
    mount -t tmpfs -o "size=$1" tmpfs full || fail "mount a tmpfs of $1"
}
# empty WHAT: nothing left in full/ (no temporary, no partial file)
empty() {
    local left
    left=$(ls -A full)
    [ -z "$left" ] && pass "$1: nothing left behind" || fail "$1: left behind: $left"
}

"$BIN" gen "$SRC/graphs/tiny.ini" -o g.h5 -q || fail "gen g.h5"
printf '[run]\ngraph = g.h5\nticks = 30\n' > job.ini
ck=(--set run.checkpoint=full/ck.h5 --set run.checkpoint_every=7)

# a checkpoint that does not fit (it takes 128 KB)
disk 64k
expect_exit 1 2 "full/ck.h5.*: no room for its .* MB: No space left on device \(is the disk full\?\)" run job.ini -o r.h5 "${ck[@]}"
empty "checkpoint of 128 KB on a 64 KB disk"
[ ! -e r.h5 ] && pass "no results file" || fail "a results file after a failed checkpoint"

# the second checkpoint does not fit beside the first: refused before it is written, the first kept
# (the first takes 110-125 KB, by the frontier's layout, and a 64 KB ballast and 16 KB of slack while
# it is written)
disk 240k
expect_exit 1 2 "cannot write checkpoint full/ck.h5: it needs about 0.1.. MB and full has 0\.[01][0-9]* MB free" run job.ini -o r.h5 "${ck[@]}"
[ "$(h5int full/ck.h5 /run/state 2)" = 7 ] && [ "$(ls -A full)" = ck.h5 ] &&
    pass "the previous checkpoint (tick 7) kept, no temporary" || fail "checkpoint of tick 7 lost: $(ls -A full)"

# a results file that does not fit
disk 16k
expect_exit 1 2 "cannot write results file full/r.h5: it needs about .* MB and full has 0.0.* MB free" run job.ini -o full/r.h5
empty "results file on a 16 KB disk"

# a partition file (written by every rank) and a graph that do not fit
disk 8k
expect_exit 1 2 "partition file full/p.h5: no room for its .* MB.*is the disk full" partition g.h5 -k 2 -o full/p.h5
empty "partition file on an 8 KB disk"
disk 100k
expect_exit 1 2 "file full/g2.h5: dataset .*: no room for its .* MB: .*is the disk full" gen "$SRC/graphs/tiny.ini" -o full/g2.h5
empty "graph file on a 100 KB disk"
# a partition written into the graph itself, on a disk the graph fills: refused before the graph
# is opened for writing, the graph unchanged
disk $(( $(stat -c %s g.h5) / 1024 + 8 ))k
cp g.h5 full/g.h5
expect_exit 1 2 "cannot write the partition into graph file full/g.h5: it needs about" partition full/g.h5 -k 2
cmp -s g.h5 full/g.h5 && [ "$(ls -A full)" = g.h5 ] && pass "the graph unchanged, nothing else left" ||
    fail "the graph changed or files were left: $(ls -A full)"
finish
