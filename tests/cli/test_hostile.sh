#!/usr/bin/env bash
# Hostile files, second round: damage at the level of HDF5 objects that the first round's
# tests (test_corrupt_*.sh) do not make. Every case must end in one clean error on every rank
# within a time limit (lib.sh `fault`): no crash, no hang, no result.
#   attribute arrays  a string or integer attribute stored as an array of several elements, as
#                     a variable-length array, or with a type of another class (the reader
#                     contract of src/h5/h5.c): a graph's format and source, a checkpoint's
#                     format and crawlsim_version, a partition file's format and method, at 1,
#                     2 and 3 ranks (before the contract, H5Aread wrote N strings into a buffer
#                     for one: a heap overflow); a string of 300 bytes where 255 fit is
#                     refused (it was cut: a graph's source "gen..." read as an import's)
#   counts            counts read from a file and trusted: n_hosts 10^9 in a graph whose host
#                     ids stay below 350 (run, info, partition), n_topics 2^30, offsets that
#                     give one page 2^31 links in a sparse chunked /links/targets (a 1 MB file),
#                     a checkpoint item of 2^33 elements never written, an item whose
#                     per-rank counts are 2^62 each (their sum overflowed): an error at once, on
#                     every rank, before any allocation or loop sized by the count
#   text              line endings and values that were misread with exit 0: a job file, a
#                     seed file and a page table with CR-only line endings are read as with
#                     LF; an edge list with them is refused (it imported as 2 pages, 1 link);
#                     a key on a section line and an integer out of a double's range (1e-400)
#                     are refused
#   job files         an empty job file, or one of comments only, is refused (it ran the
#                     built-in 10^6-page world)
#   results           compare on two results files with a sparse series (2^33 elements, one
#                     chunk stored) and tools/plot on it or on a series one element long:
#                     clean errors (compare read 2^33 fill values; plot died in numpy)
#   graph changed     a checkpoint restarted on its graph file changed in place since (the
#                     relevance of every page raised, or the hosts permuted): refused by the
#                     world's fingerprint (it ended with 616 relevant pages instead of 123)
# Each case's outcome is recorded (CRAWLSIM_OUTCOMES, tools/robustness).
# CRAWLSIM_HOSTILE_RANKS: the rank counts of the cases made at several (default "1 2 3"; the
# sanitized run of .ci/run takes "1 2": a reader's code is the same at 3 ranks, where ASan's runs
# oversubscribed are the slowest).
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
ranks=" ${CRAWLSIM_HOSTILE_RANKS:-1 2 3} "
at_ranks() { [[ $ranks == *" $1 "* ]]; }
PY=/usr/bin/python3
"$PY" -c "import h5py, numpy" 2> /dev/null || skip "python3-h5py is not installed"

run 1 -q gen "$SRC/graphs/tiny.ini" -o web.h5 > gen.log 2>&1 || fail "gen: $(cat gen.log)"
run 2 -q partition web.h5 -k 2 -o part.h5 > part.log 2>&1 || fail "partition: $(cat part.log)"
crawl=(--set run.graph=web.h5 --set run.seeds=3 --set run.pages=300)
run 2 -q run "${crawl[@]}" --set run.checkpoint=ck.h5 --set run.checkpoint_every=1 \
    -o ref.h5 > ck.log 2>&1 || fail "the run that writes the checkpoint: $(tail -3 ck.log)"

# attr FILE GROUP NAME KIND: attribute NAME of GROUP in FILE replaced by a hostile one
#   strings2  two fixed-length strings       vlen2   two variable-length strings
#   strings1e5  10^5 fixed-length strings    strings4000  4000 of them
#   ints2     two integers
#   float     a floating-point number        huge    2^63 as an unsigned integer
#   big       2^62 as a signed 64-bit integer
attr() {
    "$PY" - "$@" << 'EOF'
import sys, h5py, numpy as np
fn, grp, name, kind = sys.argv[1:5]
with h5py.File(fn, "r+") as f:
    g = f[grp]
    old = g.attrs[name] if name in g.attrs else b"x"
    if isinstance(old, bytes) or isinstance(old, str):
        s = old if isinstance(old, bytes) else old.encode()
    else:
        s = b"1"
    del g.attrs[name]
    if kind == "strings2":
        g.attrs.create(name, np.array([s, b"second"]))
    elif kind == "vlen2":
        g.attrs.create(name, [s.decode(), "second"], dtype=h5py.string_dtype())
    elif kind == "strings1e5":
        g.attrs.create(name, np.array([s] * 100000))
    elif kind == "strings4000":  # a checkpoint's object headers hold at most 64 KiB
        g.attrs.create(name, np.array([s] * 4000))
    elif kind == "ints2":
        g.attrs.create(name, np.array([int(old), int(old)], dtype=np.int64))
    elif kind == "float":
        g.attrs.create(name, float(old) + 0.5)
    elif kind == "huge":
        g.attrs.create(name, np.uint64(2**63))
    elif kind == "big":  # 2^62: an int64 that no count of a file reaches
        g.attrs.create(name, np.int64(2**62))
    elif kind == "long300":  # one fixed-length string of 300 bytes, its old value first
        g.attrs.create(name, np.bytes_(s + b"y" * (300 - len(s))))
    elif kind == "vlen300":  # the same as a variable-length string
        g.attrs.create(name, (s + b"y" * (300 - len(s))).decode(), dtype=h5py.string_dtype())
EOF
}

# hostile NP NAME FILE GROUP ATTR KIND ARGS...: the damaged copy of FILE is bad.h5; ARGS name it
hostile() {
    local np=$1 name=$2 file=$3 grp=$4 at=$5 kind=$6
    shift 6
    cp "$file" bad.h5
    attr bad.h5 "$grp" "$at" "$kind" || { fail "$name: could not damage $file"; return; }
    FAULT_OUT=out.h5 fault attribute "$name-np$np" "$np" "$@"
}

graph_run=(run --set run.graph=bad.h5 --set run.seeds=3 --set run.pages=300 -o out.h5)
for np in 1 2 3; do
    at_ranks "$np" || continue
    hostile "$np" graph-format-strings2-info web.h5 / format strings2 info bad.h5
    hostile "$np" graph-format-strings2-run web.h5 / format strings2 "${graph_run[@]}"
    hostile "$np" graph-format-vlen2-run web.h5 / format vlen2 "${graph_run[@]}"
    hostile "$np" graph-source-strings1e5-run web.h5 / source strings1e5 "${graph_run[@]}"
    hostile "$np" graph-n_hosts-ints2-info web.h5 / n_hosts ints2 info bad.h5
    hostile "$np" graph-n_pages-huge-run web.h5 / n_pages huge "${graph_run[@]}"
    hostile "$np" graph-schema_version-float-info web.h5 / schema_version float info bad.h5
    part_run=(run "${crawl[@]}" --set run.partition_method=file --set run.partition=bad.h5
        -o out.h5)
    hostile "$np" partition-format-strings2-run part.h5 / format strings2 "${part_run[@]}"
    hostile "$np" partition-method-vlen2-run part.h5 / method vlen2 "${part_run[@]}"
    hostile "$np" partition-method-strings2-run part.h5 / method strings2 "${part_run[@]}"
done
# a checkpoint written on 2 ranks: its format is read before its rank count (so at 1 and 3 ranks
# too)
for np in 1 2 3; do
    at_ranks "$np" || continue
    hostile "$np" checkpoint-format-strings2 ck.h5 / format strings2 run "${crawl[@]}" \
        --restart bad.h5 -o out.h5
    hostile "$np" checkpoint-crawlsim_version-vlen2 ck.h5 / crawlsim_version vlen2 run \
        "${crawl[@]}" --restart bad.h5 -o out.h5
done
hostile 2 checkpoint-crawlsim_version-strings4000 ck.h5 / crawlsim_version strings4000 run \
    "${crawl[@]}" --restart bad.h5 -o out.h5

# a string longer than its reader holds is refused, naming file and attribute (it was cut at 255
# bytes: a graph's source "gen" + 297 bytes read as an imported graph's, exit 0)
long_string() {
    local np=$1 file=$2 grp=$3 at=$4 kind=$5 pattern=$6
    shift 6
    cp "$file" bad.h5
    attr bad.h5 "$grp" "$at" "$kind" || { fail "$at $kind: could not damage $file"; return; }
    rm -f out.h5
    RUN_TIMEOUT=${FAULT_TIMEOUT:-60} FAULT_CLASS=attribute expect_exit 1 "$np" "$pattern" "$@"
    [ ! -e out.h5 ] || fail "$at $kind: a result was written"
}
long="attribute %s is a string of [0-9]+ bytes, longer than the 255 it may hold"
# shellcheck disable=SC2059
long_string 1 web.h5 / source long300 "graph file bad.h5: $(printf "$long" source)" info bad.h5
# shellcheck disable=SC2059
long_string 3 web.h5 / source vlen300 "graph file bad.h5: $(printf "$long" source)" \
    "${graph_run[@]}"
# shellcheck disable=SC2059
long_string 2 part.h5 / graph_source long300 "partition file bad.h5: $(printf "$long" \
    graph_source)" run "${crawl[@]}" --set run.partition_method=file --set run.partition=bad.h5 \
    -o out.h5
# shellcheck disable=SC2059
long_string 2 ck.h5 / crawlsim_version vlen300 "checkpoint bad.h5: $(printf "$long" \
    crawlsim_version)" run "${crawl[@]}" --restart bad.h5 -o out.h5

# a partition file whose link count is damaged (2^62): the error names the partition file, not
# only the graph file (tools/hostile found it naming the graph alone: the message was unclear)
cp part.h5 bad.h5
attr bad.h5 / n_links big || fail "could not damage part.h5"
rm -f out.h5
RUN_TIMEOUT=${FAULT_TIMEOUT:-60} FAULT_CLASS=attribute expect_exit 1 2 \
    "partition of bad.h5 has [0-9]+ pages and 4611686018427387904 links but graph file web.h5" \
    run "${crawl[@]}" --set run.partition_method=file --set run.partition=bad.h5 -o out.h5
[ ! -e out.h5 ] || fail "partition n_links big: a result was written"

# count FILE KIND: a count of FILE made impossible (see the header)
count() {
    "$PY" - "$@" << 'EOF'
import sys, h5py, numpy as np
fn, kind = sys.argv[1:3]
with h5py.File(fn, "r+") as f:
    if kind == "n_hosts":
        f.attrs["n_hosts"] = np.int64(10**9)
    elif kind == "n_topics":
        f.attrs["n_topics"] = np.int32(2**30)
    elif kind == "sparse-targets":
        n = int(f.attrs["n_pages"])
        M = 2**31
        del f["links/targets"]
        if "links/weights" in f:
            del f["links/weights"]
        t = f.create_dataset("links/targets", shape=(M,), dtype="int32", chunks=(1 << 16,))
        t[:1 << 16] = np.arange(1 << 16, dtype="int32") % n
        off = np.full(n + 1, M, dtype="int64")
        off[0] = 0
        f["links/offsets"][...] = off
        f.attrs["n_links"] = np.int64(M)
    elif kind == "huge-counts":  # every rank's count of an item 2^62: their sum overflows
        names = []
        f.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
        d = f[sorted(names)[0]]
        d.attrs["counts"] = np.full(len(d.attrs["counts"]), 2**62, dtype="int64")
    elif kind == "sparse-item":
        names = []
        f.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
        item = sorted(names)[0]
        d = f[item]
        attrs = dict(d.attrs)
        ranks = len(attrs["counts"])
        del f[item]
        nd = f.create_dataset(item, shape=(2**33,), dtype=d.dtype, chunks=(1 << 16,))
        nd.attrs["counts"] = np.full(ranks, 2**33 // ranks, dtype="int64")
        nd.attrs["checksums"] = attrs["checksums"]
EOF
}

# impossible NP NAME FILE KIND PATTERN ARGS...: the damaged copy of FILE is bad.h5; the error
# must match PATTERN (the count named, not a failed allocation)
impossible() {
    local np=$1 name=$2 file=$3 kind=$4 pattern=$5
    shift 5
    cp "$file" bad.h5
    count bad.h5 "$kind" || { fail "$name: could not damage $file"; return; }
    rm -f out.h5
    RUN_TIMEOUT=${FAULT_TIMEOUT:-60} FAULT_CLASS=counts expect_exit 1 "$np" "$pattern" "$@"
    [ ! -e out.h5 ] || fail "$name: a result was written"
}

hosts=(n_hosts "n_hosts 1000000000 exceeds the number of pages")
sparse=(sparse-targets "targets has 2147483648 elements but not all of them are stored")
for np in 1 2 3; do
    at_ranks "$np" || continue
    impossible "$np" n_hosts-run web.h5 "${hosts[@]}" "${graph_run[@]}"
    impossible "$np" sparse-targets-run web.h5 "${sparse[@]}" "${graph_run[@]}"
done
impossible 1 n_hosts-info web.h5 "${hosts[@]}" info bad.h5
impossible 2 n_hosts-partition web.h5 "${hosts[@]}" partition bad.h5 -k 2 -o out.h5
impossible 1 n_topics-info web.h5 n_topics "n_topics 1073741824 exceeds" info bad.h5
impossible 2 sparse-targets-info web.h5 "${sparse[@]}" info bad.h5
impossible 2 sparse-item-restart ck.h5 sparse-item "not all of them are stored" run \
    "${crawl[@]}" --restart bad.h5 -o out.h5
# (the sum of the counts overflowed: UBSan's report under ASan, tools/hostile found it)
impossible 2 huge-counts-restart ck.h5 huge-counts "has a bad count for rank 1" run \
    "${crawl[@]}" --restart bad.h5 -o out.h5

# text: CR-only line endings read as LF ones (the same run), or refused
printf '[run]\rgraph = web.h5\rseeds = 3\rpages = 50\r' > cr.ini
out=$(run 1 run cr.ini -o cr.h5 2>&1)
if grep -q "crawl: 10000 pages" <<< "$out" && grep -q "fetched 50," <<< "$out"; then
    pass "a job file with CR-only line endings is read"
    outcome text job-file-cr-only 0 "" 1
else
    fail "a job file with CR-only line endings: $(grep -E 'crawl:|fetched|error' <<< "$out")"
    outcome text job-file-cr-only 0 "" 0
fi
printf '5\r6\r7\r' > seeds-cr.txt
seeds=(--set run.seed_pages=file --set run.pages=50)
compared=""
if run 2 run "${crawl[@]}" "${seeds[@]}" --set run.seed_file=seeds-cr.txt -o cr-seeds.h5 \
    > cr-seeds.log 2>&1 && printf '5\n6\n7\n' > seeds-lf.txt &&
    run 2 run "${crawl[@]}" "${seeds[@]}" --set run.seed_file=seeds-lf.txt -o lf-seeds.h5 \
        > lf-seeds.log 2>&1 && compare cr-seeds.h5 lf-seeds.h5 --ignore /config; then
    pass "a seed file with CR-only line endings is read as with LF"
    outcome text seed-file-cr-only 0 "" 1
else
    fail "a seed file with CR-only line endings: $(grep error cr-seeds.log lf-seeds.log) $compared"
    outcome text seed-file-cr-only 1 "" 0
fi
printf 'id,mu,delta,complete\ra,1,0.5,1\rb,2,0.3,0\r' > pages-cr.csv
printf 'id,mu,delta,complete\na,1,0.5,1\nb,2,0.3,0\n' > pages-lf.csv
if run 1 schedule --policy uniform --bandwidth 10 --input pages-cr.csv -o cr.csv > /dev/null 2>&1 &&
    run 1 schedule --policy uniform --bandwidth 10 --input pages-lf.csv -o lf.csv > /dev/null 2>&1 &&
    cmp -s cr.csv lf.csv; then
    pass "a page table with CR-only line endings is read as with LF"
    outcome text page-table-cr-only 0 "" 1
else
    fail "a page table with CR-only line endings is not read as with LF"
    outcome text page-table-cr-only 1 "" 0
fi
printf '0 1\r1 2\r2 0\r' > edges-cr.txt
printf '[import]\nedges = edges-cr.txt\nhosts = per-page\n' > edges-cr.ini
for np in 1 2; do
    at_ranks "$np" || continue
    FAULT_OUT=imp.h5 fault text edges-cr-only-np$np "$np" import edges-cr.ini -o imp.h5
done
printf '[run] pages = 7\ngraph = web.h5\n' > section-key.ini
for np in 1 3; do
    at_ranks "$np" || continue
    FAULT_OUT=out.h5 fault text key-on-section-line-np$np "$np" run section-key.ini -o out.h5
done
FAULT_OUT=out.h5 fault text integer-1e-400 1 run "${crawl[@]}" --set run.pages=1e-400 -o out.h5
printf '[run]\ngraph = web.h5\nseeds = 3\npages = 1e-400\n' > tiny-int.ini
FAULT_OUT=out.h5 fault text integer-1e-400-job-file 2 run tiny-int.ini -o out.h5

# a job file with no settings (empty, or comments only) is refused: it ran the built-in world
: > empty.ini
printf '; nothing but a comment\n\n' > comments.ini
for np in 1 3; do
    at_ranks "$np" || continue
    FAULT_OUT=out.h5 fault text empty-job-file-np$np "$np" run empty.ini -o out.h5
done
FAULT_OUT=out.h5 fault text comment-only-job-file 2 run comments.ini -o out.h5

# results files read by compare and tools/plot through their reader contracts: a series stored
# as a chunked dataset of 2^33 elements of which one chunk is written (compare read 2^33 fill
# values of both files; plot asked numpy for 64 GiB), a series one element long
"$PY" - << 'EOF2'
import h5py, numpy as np, shutil
for name, kind in (("sparse1.h5", "sparse"), ("sparse2.h5", "sparse"), ("long.h5", "long")):
    shutil.copy("ref.h5", name)
    with h5py.File(name, "r+") as f:
        v = f["series/relevant"][()]
        del f["series/relevant"]
        if kind == "sparse":
            d = f.create_dataset("series/relevant", shape=(2**33,), dtype=v.dtype, chunks=(4096,))
            d[:len(v)] = v
        else:
            f["series/relevant"] = np.concatenate([v, v[-1:]])
EOF2
out=$(timeout "${FAULT_TIMEOUT:-60}" "$BIN" compare sparse1.h5 sparse2.h5 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "not all of them are stored" <<< "$out"; then
    pass "compare refuses a sparse dataset"
    outcome results compare-sparse-series 1 "$out" 1
else
    fail "compare on a sparse dataset: exit $rc: $(head -c 300 <<< "$out")"
    outcome results compare-sparse-series "$rc" "$out" 0
fi
for bad in sparse1.h5 long.h5; do
    out=$(timeout "${FAULT_TIMEOUT:-60}" "$SRC/tools/plot" "$bad" -o figs 2>&1)
    rc=$?
    if [ "$rc" -eq 1 ] && [ "$(grep -c 'tools/plot: error' <<< "$out")" -eq 1 ] &&
        grep -q "$bad" <<< "$out" && ! grep -q Traceback <<< "$out"; then
        pass "tools/plot refuses $bad"
        outcome results "plot-$bad" 1 "$out" 1
    else
        fail "tools/plot on $bad: exit $rc: $(tail -c 300 <<< "$out")"
        outcome results "plot-$bad" "$rc" "$out" 0
    fi
done

# a checkpoint restarted on its graph changed in place: the job's text is the same
cp web.h5 web0.h5
for change in relevance hosts; do
    cp web0.h5 web.h5
    "$PY" - "$change" << 'EOF'
import sys, h5py, numpy as np
with h5py.File("web.h5", "r+") as f:
    if sys.argv[1] == "relevance":
        r = f["pages/relevance"][...]
        f["pages/relevance"][...] = np.minimum(1.0, r + 0.4)
    else:
        h = f["pages/host"][...]
        f["pages/host"][...] = (int(f.attrs["n_hosts"]) - 1) - h
EOF
    rm -f out.h5
    RUN_TIMEOUT=${FAULT_TIMEOUT:-60} FAULT_CLASS=graph-changed expect_exit 1 2 \
        "checkpoint ck.h5 was written on another world" run "${crawl[@]}" --restart ck.h5 -o out.h5
    [ ! -e out.h5 ] || fail "restart on a graph with its $change changed: a result was written"
done
cp web0.h5 web.h5
if run 2 run "${crawl[@]}" --restart ck.h5 -o out.h5 > restart.log 2>&1; then
    pass "the checkpoint restarts on its own graph"
else
    fail "the checkpoint does not restart on its own graph: $(tail -3 restart.log)"
fi

finish
