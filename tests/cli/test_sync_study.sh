#!/usr/bin/env bash
# tools/sync-study in its tiny version: two cells (the strict control and K = never on
# 2 ranks), two seeds, a small world. The runs land where the design says, a second `run` has
# nothing to do (the sweep resumes), the report's paired loss equals one computed here from the
# results files and from the results table alone, the table records every run's policy, world,
# commit and world hash and its final weights' norm, the report gives collapse intervals and no
# untested "no effect", the first edition's report regenerates byte for byte from its table, the
# figures are PNG images, the Slurm specs hold every run, and bad command lines and missing
# results fail with a message.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 MPIEXEC
SS=$SRC/tools/sync-study

out=$("$SS" run --tiny --seeds 2 -o st --bin "$BIN" 2>&1) || fail "run: $out"
n=$(ls st/runs/sarsa/P2/*/seed-0[12].h5 2> /dev/null | wc -l)
[ "$n" = 4 ] && pass "4 results files (2 cells x 2 seeds)" || fail "results files: $n: $out"
out=$("$SS" run --tiny --seeds 2 -o st --bin "$BIN" 2>&1)
grep -q "0 runs in 0 cells to do" <<< "$out" && pass "a second run resumes: nothing to do" ||
    fail "resume: $out"
# a cell's missing seed is run alone (crawlsim run --seeds 2), and gives the same file again
f=$(ls st/runs/sarsa/P2/*/seed-02.h5 | head -1)
mv "$f" again.h5
out=$("$SS" run --tiny --seeds 2 -o st --bin "$BIN" 2>&1)
grep -q "1 runs in 1 cells to do" <<< "$out" && [ -f "$f" ] && compare "$f" again.h5 &&
    pass "a missing seed is run again, identically" || fail "rerun of one seed: $out $compared"

out=$("$SS" report st --min-seeds 2 -o st/report.md 2>&1) || fail "report: $out"
row=$(grep '^| 2 | K=never |' st/report.md)
[ -n "$row" ] && pass "report has the K = never row" || fail "no K = never row: $(cat st/report.md)"
# the paired loss, computed independently: control minus setting, seed by seed
want=$(/usr/bin/python3 - << 'PY'
import h5py
q = lambda c, s: float(h5py.File("st/runs/sarsa/P2/%s/seed-%02d.h5" % (c, s))["/final/harvest_rate"][0])
print("%+.4f" % (sum(q("control", s) - q("K=never", s) for s in (1, 2)) / 2))
PY
)
grep -qF "| $want [" <<< "$row" && pass "paired loss $want as computed from the files" ||
    fail "paired loss: want $want in: $row"
for f in st/sync-study/sarsa-seeds.png st/sync-study/sarsa-losses.png st/sync-study/sarsa-pareto.png; do
    [ "$(head -c 4 "$f" 2> /dev/null | od -An -c | tr -d ' ')" = '211PNG' ] && pass "figure $f" ||
        fail "figure $f missing or not a PNG"
done

"$SS" report st -o st/strict.md > /dev/null 2>&1 || fail "report at 10 seeds"
grep -q "^Left out, fewer than 10 seeds so far: sarsa P = 2 K=never; sarsa P = 2 control" st/strict.md &&
    ! grep -q '^| 2 | K=never |' st/strict.md && pass "cells with fewer than 10 seeds are left out, and said" ||
    fail "report at 10 seeds: $(head -20 st/strict.md)"

# the results table: every run on a line, a report from it alone is the report from the files,
# and a study folder holding only the table resumes without running anything again
out=$("$SS" table st 2>&1) || fail "table: $out"
[ "$(wc -l < st/results.tsv)" = 5 ] &&
    head -1 st/results.tsv | grep -q "^group	P	setting	seed	policy	world	commit	world_hash	q" &&
    pass "table: a header and 4 runs" || fail "table: $out $(cat st/results.tsv)"
# every run's provenance: policy, world, the commit that ran it, the world file's hash
want_hash=$(sha256sum st/worlds/default.h5 | cut -c1-16)
want_commit=$(git -C "$SRC" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
[ "$(cut -f5-7 st/results.tsv | tail -n +2 | sort -u | wc -l)" = 1 ] &&
    [ "$(cut -f5,6 st/results.tsv | sed -n 2p)" = "sarsa	default" ] &&
    cut -f7 st/results.tsv | sed -n 2p | grep -q "^$want_commit" &&
    [ "$(cut -f8 st/results.tsv | tail -n +2 | sort -u)" = "$want_hash" ] &&
    pass "table: policy, world, commit $want_commit and world hash $want_hash of every run" ||
    fail "table provenance: $(cut -f1-8 st/results.tsv)"
# the final weights' norm from the results file's /final/weights
want=$(/usr/bin/python3 -c '
import h5py, numpy as np
print(repr(float(np.linalg.norm(h5py.File("st/runs/sarsa/P2/control/seed-01.h5")["/final/weights"][()]))))')
got=$(awk -F'\t' '$3 == "control" && $4 == 1 { print $19 }' st/results.tsv)
/usr/bin/python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-12 * a)" \
    "$want" "$got" && pass "table: the final weights' norm $got" || fail "table wnorm: $got, want $want"
mkdir tab && cp st/results.tsv tab/
"$SS" report tab/results.tsv --min-seeds 2 -o tab/report.md --figures st/sync-study > /dev/null 2>&1 ||
    fail "report from the table"
diff <(grep '^|' st/report.md) <(grep '^|' tab/report.md) > /dev/null &&
    [ "$(grep -c "^| 2 |" tab/report.md)" = 2 ] && pass "the report from the table alone has the same tables" ||
    fail "report from the table differs: $(diff <(grep '^|' st/report.md) <(grep '^|' tab/report.md) | head)"
out=$("$SS" run --tiny --seeds 2 -o tab --bin "$BIN" 2>&1)
grep -q "0 runs in 0 cells to do" <<< "$out" && [ ! -d tab/runs ] &&
    pass "a folder with only the table resumes: nothing to do" || fail "resume from the table: $out"
sed -i 1s/seed/SEED/ tab/results.tsv
"$SS" report tab/results.tsv -o tab/bad.md > err.txt 2>&1
[ $? = 1 ] && grep -q "not a results table" err.txt && pass "a bad table: exit 1" ||
    fail "bad table: $(cat err.txt)"

# the statistics: collapses with their Clopper-Pearson interval, verdicts only from tests
grep -q "^## Sensitivity of the collapse criterion" st/report.md &&
    grep -q "^| quality alone |" st/report.md && grep -q "^| or norm > 10 x |" st/report.md && grep -qE "^\| 2 \| K=never \|.*\| [0-9]+/2 \[0\.[0-9]{2}, [01]\.[0-9]{2}\] \|" st/report.md &&
    ! grep -q "no measurable effect" st/report.md &&
    pass "report: collapse intervals, the threshold's sensitivity, no untested 'no effect'" ||
    fail "report statistics: $(grep -E '^\| 2 \|' st/report.md)"

# the first edition's report regenerates byte for byte from its table
"$SS" report "$SRC/docs/reports/sync-study-first-edition/results.tsv" --first-edition \
    --title "The synchronisation study (first edition)" -o first.md --figures sync-study-first-edition \
    > /dev/null 2>&1 || fail "first edition report"
cmp -s first.md "$SRC/docs/reports/sync-study-first-edition.md" &&
    pass "the first edition's report regenerates byte for byte" ||
    fail "first edition: $(diff first.md "$SRC/docs/reports/sync-study-first-edition.md" | head -5)"

out=$("$SS" design 2>&1) || fail "design: $out"
grep -qE '^[0-9]+ cells x 10 seeds' <<< "$out" && pass "full design: $(tail -1 <<< "$out")" ||
    fail "design: $out"
"$SS" slurm --tiny --seeds 2 -o st > slurm.txt 2>&1 || fail "slurm: $(cat slurm.txt)"
[ "$(grep -vc '^#' st/slurm/P2.txt)" = 4 ] && grep -q "slurm/submit sweep -n 2" slurm.txt &&
    pass "slurm: one spec of 4 runs on 2 ranks" || fail "slurm: $(cat slurm.txt st/slurm/P2.txt)"

# bad input
"$SS" design --groups nonsense > err.txt 2>&1
[ $? = 2 ] && grep -q "unknown group" err.txt && pass "unknown group: exit 2" || fail "unknown group: $(cat err.txt)"
"$SS" report empty > err.txt 2>&1
[ $? = 1 ] && grep -q "no results files or table" err.txt && pass "no results: exit 1" || fail "no results: $(cat err.txt)"
"$SS" run --tiny > err.txt 2>&1
[ $? = 2 ] && grep -q "needs -o DIR" err.txt && pass "run without -o: exit 2" || fail "run without -o: $(cat err.txt)"
finish
