#!/usr/bin/env bash
# Damaged graph and partition files (issue 20, items 1 and 5): on a 2000-page generated world,
# each dataset of the graph file is damaged in turn (values out of their valid range, NaN,
# random bytes, a shorter or longer dataset, a missing one, integers too wide for the readers)
# and the file is truncated; a partition file is damaged too. Each case runs `crawlsim run`,
# `info` or `partition` on 2 ranks under a time limit and must give a non-zero exit on every
# rank (lib.sh's run checks each rank's own status), one clear error naming the file, no HDF5
# error stack, no crash (signal or sanitizer report), no hang, no output or temporary left.
# A table of the cases is printed, and each outcome is written as a line
#   CASE <class> <name> <outcome>
# (outcome: clean, wrong-result (exit 0), crash, hang, rank-mismatch, noisy (HDF5 stack or
# not exactly one error line), left-behind) to $WORK/corrupt_cases.txt, and, in lib.sh's names,
# to $CRAWLSIM_OUTCOMES when set (tools/robustness draws the figure from them). The default is
# one damage per dataset, every kind on some dataset (about 20 runs); CRAWLSIM_CORRUPT_ALL=1
# tries every dataset with every damage kind (about 100 runs).
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
"$PY" -c "import h5py, numpy, matplotlib" 2> /dev/null ||
    skip "needs /usr/bin/python3 with h5py, numpy and matplotlib (tools/plot)"
ALL=${CRAWLSIM_CORRUPT_ALL:-0}
RUN_TIMEOUT=60 # a hang is a failure, found in a minute rather than lib.sh's five

printf '[gen]\npages = 2000\nseed = 7\nhost_size_mean = 20\ntopics = 8\ntarget_topic = 3\n' > world.ini
run 2 -q gen world.ini -o web.h5 > gen.log 2>&1 || { fail "gen: $(cat gen.log)"; finish; }

# The optional datasets that imported graphs carry (link weights, sparse page terms), added to
# the generated graph so that their readers are damaged too (`partition` reads them).
"$PY" - << 'EOF' || fail "adding weights and terms"
import h5py, numpy as np
with h5py.File("web.h5", "r+") as f:
    N, M = int(f.attrs["n_pages"]), int(f.attrs["n_links"])
    f["links"].create_dataset("weights", data=(np.arange(M) % 3 + 1).astype("<u4"))
    t = f.create_group("terms")
    t.attrs["dim"] = np.int32(16)
    t.create_dataset("offsets", data=(2 * np.arange(N + 1)).astype("<i8"))
    t.create_dataset("index", data=np.tile(np.array([1, 5], "<i4"), N))
    t.create_dataset("value", data=np.full(2 * N, 0.5, "<f4"))
EOF

job=(--set run.pages=200 --set crawl.bandwidth=50)
# the undamaged files work: every failure below comes from the damage
run 2 -q partition web.h5 -k 2 -o part.h5 > base.log 2>&1 || fail "partition of the good graph: $(cat base.log)"
run 2 -q run --set run.graph=web.h5 --set run.partition_method=file --set run.partition=part.h5 \
    "${job[@]}" -o base.h5 > base.log 2>&1 || fail "run on the good graph: $(cat base.log)"
[ -f base.h5 ] && pass "the undamaged graph and partition run" || fail "no results from the good graph"

# Every damaged file and the command that reads it: "class name command file" per line.
"$PY" - "$ALL" << 'EOF' > cases.txt || fail "making the damaged files"
import os, shutil, sys, h5py, numpy as np
ALL = sys.argv[1] == "1"
rng = np.random.default_rng(20)
with h5py.File("web.h5", "r") as f:
    N, M, H, K = (int(f.attrs[a]) for a in ("n_pages", "n_links", "n_hosts", "n_topics"))
# dataset -> (the command that reads it, the out-of-range value, its element)
D = {
    "pages/host": ("run", H, 1500),
    "pages/topic": ("run", K, 1500),
    "pages/relevance": ("run", 1.5, 700),
    "pages/delta": ("run", -0.25, 1999),
    "pages/mu": ("run", 0.0, 0),
    "pages/observable": ("run", 2, 1200),
    "links/offsets": ("run", M + 7, 1000),
    "links/targets": ("run", N, 5000),
    "links/weights": ("partition", None, 0),
    "terms/offsets": ("partition", 2 * N + 9, 900),
    "terms/index": ("partition", 16, 77),
    "terms/value": ("partition", float("inf"), 3000),
}
# the damage kinds tried on each dataset by default (all of them with ALL)
DEFAULT = {
    "pages/host": ["bytes"],
    "pages/topic": ["range"],
    "pages/relevance": ["nan"],
    "pages/delta": ["missing"],
    "pages/mu": ["range"],
    "pages/observable": ["wide"],
    "links/offsets": ["longer"],
    "links/targets": ["shorter"],
    "links/weights": ["wide"],
    "terms/offsets": ["range"],
    "terms/index": ["range"],
    "terms/value": ["nan"],
}
KINDS = ["range", "nan", "bytes", "shorter", "longer", "missing", "wide"]
n = 0

def case(cls, name, cmd, fn):
    print(cls, name, cmd, fn)

def damaged(name, kind, fn):
    shutil.copy("web.h5", fn)
    with h5py.File(fn, "r+") as f:
        d = f[name]
        a, dt = d[...], d.dtype
        if kind == "range":
            a[D[name][2]] = D[name][1]
            d[...] = a
        elif kind == "nan":
            a[len(a) // 3] = np.nan
            d[...] = a
        elif kind == "bytes":  # random bytes over a tenth of the values
            b = a.view(np.uint8)
            lo = len(b) // 2
            b[lo:lo + len(b) // 10] = rng.integers(0, 256, len(b) // 10, dtype=np.uint8)
            d[...] = b.view(dt)
        elif kind in ("shorter", "longer", "missing", "wide"):
            del f[name]
            if kind == "shorter":
                f.create_dataset(name, data=a[:-1])
            elif kind == "longer":
                f.create_dataset(name, data=np.concatenate([a, a[-1:]]))
            elif kind == "wide":  # a wider integer type, one value beyond the readers' type
                w = a.astype("<i8")
                w[len(w) // 2] = -1 if dt.kind == "u" else 2**40
                f.create_dataset(name, data=w)

for name, (cmd, _, _) in D.items():
    kinds = KINDS if ALL else DEFAULT[name]
    for kind in kinds:
        with h5py.File("web.h5", "r") as f:
            fk = f[name].dtype.kind
        if (kind == "nan" and fk != "f") or (kind == "wide" and fk == "f"):
            continue
        if kind == "range" and D[name][1] is None:
            continue
        if name == "links/weights" and kind in ("bytes", "missing"):
            continue  # any uint32 is a weight, and the weights are optional: still a valid file
        if name == "terms/value" and kind == "bytes":
            continue  # any finite float is a term value: only a checksum could see this damage
        fn = "g%02d.h5" % n
        n += 1
        damaged(name, kind, fn)
        cls = {"missing": "graph-missing", "shorter": "graph-shape", "longer": "graph-shape",
               "wide": "graph-type", "bytes": "graph-bytes"}.get(kind, "graph-value")
        case(cls, "/%s:%s" % (name, kind), cmd, fn)
        # info and a run partitioned by host hash read the pages through another reader
        if cmd == "run" and kind in ("nan", "range") and (ALL or name == "pages/relevance"):
            case(cls, "/%s:%s" % (name, kind), "info", fn)
        if cmd == "run" and kind in ("nan", "range") and (ALL or name == "pages/mu"):
            case(cls, "/%s:%s" % (name, kind), "runhash", fn)

# truncation, and random bytes over the metadata at the start of the file
size = os.path.getsize("web.h5")
for cut in ([size // 2, 4096, size - 100] if ALL else [size // 2]):
    fn = "g%02d.h5" % n
    n += 1
    with open("web.h5", "rb") as s, open(fn, "wb") as o:
        o.write(s.read(cut))
    case("graph-truncated", "cut-at-%d" % cut, "runhash" if cut != 4096 else "info", fn)
fn = "g%02d.h5" % n
n += 1
shutil.copy("web.h5", fn)
with open(fn, "r+b") as o:
    o.seek(800)
    o.write(rng.integers(0, 256, 1200, dtype=np.uint8).tobytes())
case("graph-bytes", "metadata-bytes", "run", fn)

# partition files: out of range, shorter, random bytes, a NaN quality figure
for kind in (["range", "shorter", "bytes", "nan-attr", "missing"] if ALL else ["shorter", "nan-attr"]):
    fn = "p%02d.h5" % n
    n += 1
    shutil.copy("part.h5", fn)
    with h5py.File(fn, "r+") as f:
        a, dt = f["part"][...], f["part"].dtype
        if kind == "range":
            a[N // 2] = 2
            f["part"][...] = a
        elif kind == "bytes":
            a[N // 2:N // 2 + 50] = rng.integers(0, 256, 50)
            f["part"][...] = a
        elif kind == "nan-attr":
            f.attrs["cut_fraction"] = np.nan
        else:
            del f["part"]
            if kind == "shorter":
                f.create_dataset("part", data=a[:-1])
    case("partition", "/part:%s" % kind if kind != "nan-attr" else "cut_fraction:nan", "runpart", fn)
EOF

# record CLASS NAME OUTCOME: for tools/robustness ($CRAWLSIM_OUTCOMES), in lib.sh's names
record() {
    [ -n "${CRAWLSIM_OUTCOMES:-}" ] || return 0
    local cls=$1 o=$3
    case $cls in graph-*) cls=graph ;; esac
    case $o in wrong-result) o=wrong ;; rank-mismatch) o=disagree ;; noisy) o=unclear ;;
        left-behind) o=leftover ;; esac
    echo "CASE $cls $2 $o" >> "$CRAWLSIM_OUTCOMES"
}

# one_case CLASS NAME COMMAND FILE: runs it, classifies the outcome, records it
printf '%-16s %-28s %-9s %-13s %s\n' class case command outcome message > table.txt
one_case() {
    local cls=$1 name=$2 cmd=$3 file=$4 out rc outcome msg args
    rm -f out.h5 outp.h5
    case $cmd in
    # with the good partition file, the loader (src/graph/load.c) reads the damaged graph; with
    # the default host-hash partition, the partitioner reads it first (as `info` and `partition`)
    run) args=(run --set run.graph="$file" --set run.partition_method=file
        --set run.partition=part.h5 "${job[@]}" -o out.h5) ;;
    runhash) args=(run --set run.graph="$file" "${job[@]}" -o out.h5) ;;
    runpart) args=(run --set run.graph=web.h5 --set run.partition_method=file
        --set run.partition="$file" "${job[@]}" -o out.h5) ;;
    info) args=(info "$file") ;;
    partition) args=(partition "$file" -k 2 -o outp.h5) ;;
    esac
    out=$(RUN_TIMEOUT=$RUN_TIMEOUT run 2 -q "${args[@]}" 2>&1 > /dev/null)
    rc=$?
    msg=$(grep -m1 "crawlsim: error" <<< "$out" | cut -c 1-160)
    if [ "$rc" -eq 124 ]; then
        outcome=hang
    elif [ "$rc" -ge 128 ] || grep -qE "Sanitizer|runtime error:|Segmentation|signal [0-9]|core dumped" <<< "$out"; then
        outcome=crash
    elif [ "$rc" -eq 98 ]; then
        outcome=rank-mismatch
    elif [ "$rc" -eq 0 ]; then
        outcome=wrong-result
    elif grep -qE "HDF5-DIAG|^ *#[0-9]{3}:" <<< "$out" || [ "$(grep -c "crawlsim: error" <<< "$out")" -ne 1 ] ||
        ! grep -q "crawlsim: error: .*$file" <<< "$out"; then
        outcome=noisy
        msg=$(head -c 300 <<< "$out" | tr '\n' ' ')
    elif [ -e out.h5 ] || [ -e outp.h5 ] || [ -n "$(find . -maxdepth 1 -name '.*.tmp.*' | head -1)" ]; then
        outcome=left-behind
    else
        outcome=clean
    fi
    find . -maxdepth 1 -name '.*.tmp.*' -delete
    echo "CASE $cls $name $outcome" >> corrupt_cases.txt
    record "$cls" "$name:$cmd" "$outcome"
    printf '%-16s %-28s %-9s %-13s %s\n' "$cls" "$name" "$cmd" "$outcome" "${msg#crawlsim: error: }" >> table.txt
    if [ "$outcome" = clean ]; then
        pass "$name ($cmd): clean error"
    else
        fail "$name ($cmd): $outcome (exit $rc): ${msg:-$out}"
    fi
}

: > corrupt_cases.txt
ncases=0
while read -r -u 3 cls name cmd file; do
    one_case "$cls" "$name" "$cmd" "$file"
    ncases=$((ncases + 1))
done 3< cases.txt
# Results files, read by `crawlsim compare` and tools/plot (one process each, no mpiexec):
# truncated, and random bytes over the metadata (tools/plot; compare then exits 2 with one clear
# error, but HDF5 1.10.8 prints "infinite loop closing library" at exit: not tried here).
size=$(stat -c %s base.h5)
head -c $((size / 2)) base.h5 > r_cut.h5
cp base.h5 r_meta.h5
"$PY" -c "
import numpy as np
b = bytearray(open('r_meta.h5', 'rb').read())
b[600:1400] = np.random.default_rng(6).integers(0, 256, 800, dtype=np.uint8).tobytes()
open('r_meta.h5', 'wb').write(b)"
results_case() { # results_case NAME FILE TOOL COMMAND...
    local name=$1 file=$2 tool=$3 out rc outcome
    shift 3
    rm -rf plots
    out=$(timeout "$RUN_TIMEOUT" "$@" 2>&1 > /dev/null)
    rc=$?
    if [ "$rc" -eq 124 ]; then
        outcome=hang
    elif [ "$rc" -ge 128 ] || grep -qE "Traceback|Sanitizer|runtime error:" <<< "$out"; then
        outcome=crash
    elif [ "$rc" -eq 0 ]; then
        outcome=wrong-result
    elif grep -qE "HDF5-DIAG|HDF5:|^ *#[0-9]{3}:" <<< "$out" || [ "$(grep -c "error" <<< "$out")" -ne 1 ] ||
        ! grep -q "$file" <<< "$out"; then
        outcome=noisy
    elif [ -n "$(find plots -type f 2> /dev/null | head -1)" ]; then
        outcome=left-behind
    else
        outcome=clean
    fi
    echo "CASE results $name $outcome" >> corrupt_cases.txt
    record results "$name:$tool" "$outcome"
    printf '%-16s %-28s %-9s %-13s %s\n' results "$name" "$tool" "$outcome" "$(head -1 <<< "$out" | cut -c 1-120)" >> table.txt
    [ "$outcome" = clean ] && pass "$name ($tool): clean error" || fail "$name ($tool): $outcome (exit $rc): $out"
    ncases=$((ncases + 1))
}
results_case cut-in-half r_cut.h5 compare "$BIN" compare base.h5 r_cut.h5
results_case cut-in-half r_cut.h5 plot "$PY" "$SRC/tools/plot" r_cut.h5 -o plots
results_case metadata-bytes r_meta.h5 plot "$PY" "$SRC/tools/plot" r_meta.h5 -o plots

[ "$ncases" -ge 15 ] && pass "$ncases damaged inputs tried" || fail "only $ncases cases were made"
cat table.txt
echo "outcomes: $(awk '{print $4}' corrupt_cases.txt | sort | uniq -c | tr '\n' ' ')"
finish
