#!/usr/bin/env bash
# tools/sync-study in its tiny version: the second edition's design (strong and weak scaling,
# two worlds, the step rule as a factor, two world seeds) at P = 2 on small worlds, two seeds.
# The runs land where the design says and carry the step rule (the table's largest step per
# window: 0.01 under `window`); a second `run` has nothing to do (the sweep resumes); the
# report's paired loss of the area under the learning curve, and of the harvest rate at the
# end, equal ones computed here from the results files and from the results table alone; the
# table records every run's policy, world, commit, world hash and world seed; the report has the
# run-length, learning-curve, diagnostics and Slurm sections, collapse intervals and no untested
# "no effect"; a cell made mixed is run to 30 seeds with its control (--adaptive, listed by --dry-run); the
# first edition's report regenerates byte for byte from its table; the figures are PNG images;
# the Slurm specs hold every run; bad command lines and missing results fail with a message.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 MPIEXEC
SS=$SRC/tools/sync-study

out=$("$SS" run --tiny --seeds 2 -o st --bin "$BIN" 2>&1) || fail "run: $out"
n=$(ls st/runs/*/P2/*/seed-0[12].h5 2> /dev/null | wc -l)
[ "$n" = 14 ] && pass "14 results files (7 cells x 2 seeds)" || fail "results files: $n: $out"
[ -f st/worlds/default-s1.h5 ] && [ -f st/worlds/default-s2.h5 ] && [ -f st/worlds/twin-uk-s1.h5 ] &&
    pass "worlds: the default at world seeds 1 and 2, the twin" || fail "worlds: $(ls st/worlds)"
out=$("$SS" run --tiny --seeds 2 -o st --bin "$BIN" 2>&1)
grep -q "0 runs in 0 cells to do" <<< "$out" && pass "a second run resumes: nothing to do" ||
    fail "resume: $out"
# a cell's missing seed is run alone (crawlsim run --seeds 2), and gives the same file again
f=st/runs/strong-default-sarsa/P2/K=4/seed-02.h5
mv "$f" again.h5
out=$("$SS" run --tiny --seeds 2 -o st --bin "$BIN" 2>&1)
grep -q "1 runs in 1 cells to do" <<< "$out" && [ -f "$f" ] && compare "$f" again.h5 &&
    pass "a missing seed is run again, identically" || fail "rerun of one seed: $out $compared"

out=$("$SS" report st --tiny --seeds 2 --min-seeds 2 -o st/report.md 2>&1) || fail "report: $out"
row=$(sed -n '/^## strong-default-sarsa/,/^## /p' st/report.md | grep '^| 2 | K=4 |')
[ -n "$row" ] && pass "report has the K = 4 row" || fail "no K = 4 row: $(cat st/report.md)"
# the paired losses, computed independently from the files: the area under the cumulative
# harvest rate over the run (trapezoids from 0, the first point's rate held), and the end's rate
read -r want_auc want_end <<< "$(/usr/bin/python3 - << 'PY'
import h5py, numpy as np
def q(c, s):
    f = h5py.File("st/runs/strong-default-sarsa/P2/%s/seed-%02d.h5" % (c, s), "r")
    n, r = f["/series/fetched"][()].astype(float), f["/series/relevant"][()].astype(float)
    h = r / n
    x = np.concatenate([[0.0], n / n[-1]])
    y = np.concatenate([[h[0]], h])
    return np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)), f["/final/harvest_rate"][0]
d = np.array([np.subtract(q("control", s), q("K=4", s)) for s in (1, 2)]).mean(axis=0)
print("%+.4f %+.4f" % tuple(d))
PY
)"
grep -qF "| $want_auc [" <<< "$row" && pass "paired loss of the AUC $want_auc as computed from the files" ||
    fail "paired loss: want $want_auc in: $row"
grep -qE "^\| strong-default-sarsa \| 2 \| K=4 \| 2 \| .* \| ${want_end//+/\\+} \| ${want_auc//+/\\+} \|" st/report.md &&
    pass "the learning curve's table: loss at the end $want_end, of the AUC $want_auc" ||
    fail "curve table: want $want_end $want_auc: $(grep '^| strong-default-sarsa | 2 | K=4 |' st/report.md)"
for sec in "## Run length: the control's learning curve" "## Quality along the learning curve" \
    "## The diagnostics against quality" "## Collapses by criterion" "## The sweep as Slurm arrays"; do
    grep -qF "$sec" st/report.md && pass "report: $sec" || fail "report lacks $sec"
done
grep -qE "^\| sync-P2 \| 14 \| 2 \|" st/report.md && grep -qE "^\| sync-P256 \(SMPI, one process\) \| 8 \| 1 \|" st/report.md &&
    pass "report: the Slurm arrays, with the cells beyond 64 ranks" ||
    fail "Slurm split: $(grep '^| sync-' st/report.md)"
for f in strong-default-sarsa-seeds strong-default-sarsa-losses strong-default-sarsa-pareto \
    strong-default-sarsa-curve weak-default-sarsa-curve diagnostics; do
    [ "$(head -c 4 "st/sync-study/$f.png" 2> /dev/null | od -An -c | tr -d ' ')" = '211PNG' ] &&
        pass "figure $f" || fail "figure $f missing or not a PNG"
done

"$SS" report st --tiny -o st/strict.md > /dev/null 2>&1 || fail "report at 10 seeds"
grep -q "^Left out, fewer than 10 seeds so far: strong-default-sarsa P = 2 K=4" st/strict.md &&
    ! grep -q '^| 2 | K=4 |' st/strict.md &&
    grep -qE '^\| strong-default-sarsa \| 2 \| K=4 \| 2 \| 0\.[0-9]{4} \| 0\.[0-9]{4} \| ' st/strict.md &&
    pass "cells with fewer than 10 seeds are left out of the tests, said, and shown as measured" ||
    fail "report at 10 seeds: $(head -20 st/strict.md)"

# the results table: every run on a line, a report from it alone is the report from the files,
# and a study folder holding only the table resumes without running anything again
out=$("$SS" table st 2>&1) || fail "table: $out"
[ "$(wc -l < st/results.tsv)" = 15 ] &&
    head -1 st/results.tsv | grep -q "^group	P	setting	seed	policy	world	commit	world_hash	world_seed	launch	q" &&
    pass "table: a header and 14 runs" || fail "table: $out $(head -3 st/results.tsv)"
col() { head -1 st/results.tsv | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
# every run's provenance: policy, world, the commit the binary was built from (the build's
# crawlsim.commit, in a git checkout its hash), its world file's hash and seed
want_commit=$(cat "$(dirname "$BIN")/crawlsim.commit" 2> /dev/null || echo missing)
if git -C "$SRC" rev-parse HEAD > /dev/null 2>&1 && [[ ! $want_commit =~ ^[0-9a-f]{12} ]]; then
    fail "the build's crawlsim.commit: '$want_commit' (a git checkout's build names its commit)"
fi
bad=$(awk -F'\t' -v c="$want_commit" 'NR > 1 && ($5 != "sarsa" || $7 != c || $10 != "mpirun") { print }' st/results.tsv)
hashes_ok=yes
while IFS=$'\t' read -r w s h; do
    [ "$(sha256sum "st/worlds/$w-s$s.h5" | cut -c1-16)" = "$h" ] || hashes_ok="no: $w $s $h"
done < <(tail -n +2 st/results.tsv | cut -f6,8,9 | awk -F'\t' '{ print $1 "\t" $3 "\t" $2 }' | sort -u)
[ -z "$bad" ] && [ "$hashes_ok" = yes ] &&
    [ "$(tail -n +2 st/results.tsv | cut -f6,9 | sort -u | tr '\n\t' ' :')" = "default:1 default:2 twin-uk:1 " ] &&
    pass "table: policy, commit $want_commit, world, world seed, world hash and launch of every run" ||
    fail "table provenance: $bad $hashes_ok $(cut -f1-9 st/results.tsv | head -4)"
# how long the table's runs took here: their crawls' time per tick x ticks, summed from the table
want=$(awk -F'\t' -v s="$(col sec_per_tick)" -v t="$(col ticks)" -v l="$(col launch)" \
    'NR > 1 && $l != "smpi" { h += $s * $t / 3600 } END { printf "%.3g", h }' st/results.tsv)
grep -qF "The table's runs took $want hours of crawl" st/report.md &&
    pass "report: the runs took $want hours here, as the table's times add up" ||
    fail "report: the sweep's time, want $want: $(grep -F "runs took" st/report.md)"
# the share of the world's relevant pages the control found: an independent count from the world
# file and the results files, against the run-length table's column
want=$(/usr/bin/python3 -c '
import glob, h5py, numpy as np
found = []
for f in sorted(glob.glob("st/runs/strong-default-sarsa/P2/control/seed-*.h5")):
    with h5py.File(f) as r:
        cfg = r["/config"][()].decode()
        graph = [l.split("=", 1)[1].strip() for l in cfg.splitlines() if l.startswith("graph =")][0]
        rel = int(r["/final/relevant"][0])
    with h5py.File(graph) as w:
        found.append(rel / np.count_nonzero(w["/pages/relevance"][()] >= 0.5))
print("%.1f %%" % (100 * np.median(found)))')
grep -q "^| strong-default-sarsa | 2 | [0-9]* | .* | $want |$" st/report.md &&
    pass "run length: the control found $want of the world's relevant pages" ||
    fail "found: want $want, $(grep '^| strong-default-sarsa | 2 |' st/report.md | head -2)"
# a table from before the world_relevant column still reads, and its run-length table has no
# column of pages found (the worlds are not known)
mkdir old && cut -f"1-$(($(col launch) - 1)),$(($(col launch) + 1))-$(($(col world_relevant) - 1))" st/results.tsv > old/results.tsv
"$SS" report old/results.tsv --tiny --seeds 2 --min-seeds 2 -o old/report.md --figures old/fig > /dev/null 2>&1 &&
    grep -q "^| strong-default-sarsa | 2 | [0-9]* | [0-9.]* | [a-z*]* | [0-9.]* / [0-9.]* / [0-9.]* |$" old/report.md &&
    ! grep -q "| found |" old/report.md && pass "a table without world_relevant: read, no found column" ||
    fail "old table: $(grep '^| strong-default-sarsa | 2 |' old/report.md | head -2)"
# the step rule reaches the runs: the largest step per window, 0.01 under window (K = 4,
# B = 20: alpha = 0.01 / 80), alpha x K x B = 0.04 under fixed (alpha = auto, 0.01 / 20)
sc=$(col step_max)
steps=$(awk -F'\t' -v c="$sc" '$1 == "strong-default-sarsa" && $4 == 1 { printf "%s=%.6g ", $3, $c }' st/results.tsv)
[ "$steps" = "K=4=0.04 K=4__window=0.01 control=0.01 " ] && pass "table: the step per window follows the rule ($steps)" ||
    fail "table steps: $steps"
# the largest weights' norm over the run from the results file's /series/weights_norm
want=$(/usr/bin/python3 -c '
import h5py, numpy as np
print(repr(float(np.max(h5py.File("st/runs/strong-default-sarsa/P2/control/seed-01.h5")["/series/weights_norm"][()]))))')
got=$(awk -F'\t' -v c="$(col wnorm_max)" '$1 == "strong-default-sarsa" && $3 == "control" && $4 == 1 { print $c }' st/results.tsv)
[ "$got" = "$want" ] && pass "table: the largest weights' norm $got" || fail "table wnorm_max: $got, want $want"
mkdir tab && cp st/results.tsv tab/
"$SS" report tab/results.tsv --tiny --seeds 2 --min-seeds 2 -o tab/report.md --figures st/sync-study > /dev/null 2>&1 ||
    fail "report from the table"
diff <(grep '^|' st/report.md) <(grep '^|' tab/report.md) > /dev/null &&
    [ "$(grep -c "^| 2 |" tab/report.md)" = 8 ] && pass "the report from the table alone has the same tables" ||
    fail "report from the table differs: $(diff <(grep '^|' st/report.md) <(grep '^|' tab/report.md) | head)"
out=$("$SS" run --tiny --seeds 2 -o tab --bin "$BIN" 2>&1)
grep -q "0 runs in 0 cells to do" <<< "$out" && [ ! -d tab/runs ] &&
    pass "a folder with only the table resumes: nothing to do" || fail "resume from the table: $out"
# adaptive seeds: a cell with one diverged seed (its largest norm made infinite) becomes mixed,
# and run --adaptive runs it and its group's control at its P to 30 seeds (listed here with
# --dry-run) beside the cells that were mixed already (the tiny runs may have some), and no other
awk -F'\t' -v OFS='\t' -v c="$(col wnorm_max)" \
    '$1 == "strong-default-sarsa" && $3 == "K=4" && $4 == 1 { $c = "inf" } { print }' \
    tab/results.tsv > tab/mixed.tsv && mkdir mixed && cp tab/mixed.tsv mixed/results.tsv
base=$("$SS" run --tiny --seeds 2 --adaptive --dry-run -o tab --bin "$BIN" 2>&1 | grep ' P=2 .*: seeds ' | sort)
grep -q "strong-default-sarsa P=2 K=4," <<< "$base" && fail "adaptive: the K = 4 cell mixed already: $base"
out=$("$SS" run --tiny --seeds 2 --adaptive --dry-run -o mixed --bin "$BIN" 2>&1)
mine="^strong-default-sarsa P=2 \(K=4\|control\), world seed"
got=$(grep ' P=2 .*: seeds ' <<< "$out" | grep -v "$mine" | sort)
grep -q "^strong-default-sarsa P=2 K=4, world seed 1: seeds 3,5,7,.*,29$" <<< "$out" &&
    grep -q "^strong-default-sarsa P=2 K=4, world seed 2: seeds 4,6,8,.*,30$" <<< "$out" &&
    grep -q "^strong-default-sarsa P=2 control, world seed 1: seeds 3,5,7,.*,29$" <<< "$out" &&
    grep -q "^strong-default-sarsa P=2 control, world seed 2: seeds 4,6,8,.*,30$" <<< "$out" &&
    [ "$got" = "$(grep -v "$mine" <<< "$base")" ] &&
    pass "adaptive: the mixed cell and its control to 30 seeds, beside $(grep -c . <<< "$base") launches mixed before" ||
    fail "adaptive: $out (before: $base)"
# the diagnostics' test of the prediction: the one diverged seed is counted at its P, with its
# cell and step, and a bound read only when its step exceeds every other seed's
"$SS" report mixed/results.tsv --tiny --seeds 2 --min-seeds 2 -o mixed/report.md --figures mixed/fig \
    > /dev/null 2>&1 || fail "report of the mixed table"
row=$(grep "^| 2 | [0-9]* | 1 | strong-default-sarsa K=4 |" mixed/report.md)
step=$(awk -F'\t' -v c="$(col step_max)" '$1 == "strong-default-sarsa" && $3 == "K=4" && $4 == 1 { print $c }' tab/results.tsv)
[ -n "$row" ] && grep -q "| - (none diverged) |" tab/report.md && ! grep -q "| - (none diverged) |" <<< "$row" &&
    grep -qE "\| (yes: between .* and |no: [0-9]+ seeds that did not diverge took a step of at least )" <<< "$row" &&
    /usr/bin/python3 -c "import sys; s = float(sys.argv[1]); assert ('%.4g' % s) in sys.argv[2]" "$step" "$row" &&
    pass "diagnostics: the diverged seed at its P, its cell and step ($step)" ||
    fail "diagnostics row: '$row' (step $step)"
# the active ranks, from each results file's per-rank fetches (1 / sum of squared shares): the
# table's column, and the diverged seed's against the other seed's in the diagnostics
ar() { /usr/bin/python3 -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1])["/ranks/fetched"][()].astype(float)
s = f / f.sum()
print(repr(float(1 / np.sum(s * s))) if sys.argv[2] == "repr" else "%.3g" % (1 / np.sum(s * s)))' "$@"; }
k4=st/runs/strong-default-sarsa/P2/K=4
got=$(awk -F'\t' -v c="$(col active_ranks)" '$1 == "strong-default-sarsa" && $3 == "K=4" && $4 == 1 { print $c }' tab/results.tsv)
[ "$got" = "$(ar $k4/seed-01.h5 repr)" ] && pass "table: the active ranks $got" ||
    fail "table active_ranks: $got, want $(ar $k4/seed-01.h5 repr)"
row="| $(/usr/bin/python3 -c "print('%.4g' % float('$step'))") | strong-default-sarsa | 2 | K=4 | 2 | 1 | $(ar $k4/seed-01.h5 g) | $(ar $k4/seed-02.h5 g) |"
grep -qF "$row" mixed/report.md && ! grep -q "^### Which ranks take the step" tab/report.md &&
    pass "diagnostics: the diverged seed's active ranks against the other's" ||
    fail "active ranks: want '$row', $(grep -A4 '^| step per window' mixed/report.md)"
# a table from before the launch and active_ranks columns still reads
cut -f"1-$(($(col launch) - 1)),$(($(col launch) + 1))-$(($(col active_ranks) - 1))" mixed/results.tsv > old/mixed.tsv
"$SS" report old/mixed.tsv --tiny --seeds 2 --min-seeds 2 -o old/mixed.md --figures old/fig > /dev/null 2>&1 &&
    grep -q "^| 2 | [0-9]* | 1 | strong-default-sarsa K=4 |" old/mixed.md &&
    ! grep -q "^### Which ranks take the step" old/mixed.md &&
    pass "a table without launch and active_ranks: read, no section on them" ||
    fail "old table without launch and active_ranks"
# runs made on simulated ranks (launch smpi) give the Slurm estimate the simulated cluster's time,
# and say so
awk -F'\t' -v OFS='\t' -v c="$(col launch)" 'NR > 1 { $c = "smpi" } { print }' tab/results.tsv > tab/sim.tsv
"$SS" report tab/sim.tsv --tiny --seeds 2 --min-seeds 2 -o tab/sim.md --figures tab/fig > /dev/null 2>&1 &&
    grep -qE "^\| sync-P2 \| 14 \| 2 \| [0-9.e-]+ \(P = 2, simulated\) \|" tab/sim.md &&
    grep -qE "^\| sync-P2 \| 14 \| 2 \| [0-9.e-]+ \(P = 2\) \|" tab/report.md &&
    pass "Slurm estimate: measured on simulated ranks, said so" ||
    fail "Slurm estimate: $(grep '^| sync-P2 ' tab/sim.md tab/report.md)"
# a collapse the strict control shares seed for seed (both seeds 1 made diverged) is named as the
# control's too, in the findings and the list of collapsed seeds; the unchanged report names none
awk -F'\t' -v OFS='\t' -v c="$(col wnorm_max)" \
    '$1 == "strong-default-sarsa" && ($3 == "K=4" || $3 == "control") && $4 == 1 { $c = "inf" } { print }' \
    tab/results.tsv > tab/shared.tsv
"$SS" report tab/shared.tsv --tiny --seeds 2 --min-seeds 2 -o tab/shared.md --figures tab/fig > /dev/null 2>&1 ||
    fail "report of a collapse the control shares"
grep -q "^\* strong-default-sarsa, P = 2, K=4: 1/2 .*weights diverged: seeds 1; also the control's: seeds 1)" tab/shared.md &&
    grep -q "^\* K=4: P = 2: collapses (1 of 2), .*(1 of them the control's too)" tab/shared.md &&
    ! grep -q "control's too\|also the control's: seeds" tab/report.md &&
    pass "a collapse the control shares is named so" ||
    fail "shared collapse: $(grep -E "K=4" tab/shared.md | head -4)"
# collapses without divergence: a "K=4, budget proportional" cell (its slug, as the table names
# it) made from K=4's rows with
# seed 2 made low under K=4 only: one seed collapsed only under the global budget, paired by seed,
# and the exact sign test of 1 against 0 (p = 0.5: not shown)
awk -F'\t' -v OFS='\t' -v c="$(col q)" '
    NR == 1 { print; next }
    $1 == "strong-default-sarsa" && $3 == "K=4" { p = $0; $3 = "K=4__budget_proportional"; print; $0 = p
                                                  if ($4 == 2) $c = 0.0001 }
    { print }' tab/results.tsv > tab/budget.tsv
"$SS" report tab/budget.tsv --tiny --seeds 2 --min-seeds 2 -o tab/budget.md --figures tab/fig > /dev/null 2>&1 &&
    grep -q "^## Collapses without divergence" tab/budget.md &&
    grep -qF "| strong-default-sarsa | 2 | 4 | 2 | 1 | 0 | 2 | - |" tab/budget.md &&
    grep -q "1 seeds collapsed only under the global budget, 0 only under the proportional one; the exact one-sided sign test gives p = 0.5: the prediction is not shown" tab/budget.md &&
    pass "collapses without divergence: the budget's test, paired by seed" ||
    fail "budget test: $(sed -n '/^## Collapses without/,/^## Sens/p' tab/budget.md)"
/usr/bin/python3 -c "
import sys; sys.path.insert(0, '$SRC/tools/lib'); import sync_stats as st
assert st.sign_test(5, 0) == 1 / 32 and st.sign_test(3, 1) == 5 / 16 and st.sign_test(0, 0) == 1
assert st.sign_test(0, 4) == 1 and abs(st.sign_test(2, 2) - 11 / 16) < 1e-15" &&
    pass "sign test: exact one-sided binomial tails" || fail "sign test"
# a cell whose runs were launched two ways takes its counters from the runs launched as its first
# seed was: K=4's seed 2 relabelled smpi with a huge payload leaves seed 1's against the control's
awk -F'\t' -v OFS='\t' -v l="$(col launch)" -v b="$(col coll_bytes)" \
    '$1 == "strong-default-sarsa" && $3 == "K=4" && $4 == 2 { $l = "smpi"; $b = 1e12 } { print }' \
    tab/results.tsv > tab/launch.tsv
want=$(awk -F'\t' -v b="$(col coll_bytes)" '$1 == "strong-default-sarsa" && $2 == 2 && $3 == "control" { c += $b; n++ }
    $1 == "strong-default-sarsa" && $2 == 2 && $3 == "K=4" && $4 == 1 { k = $b }
    END { printf "%+.0f", -(1 - k / (c / n)) * 100 }' tab/results.tsv)
"$SS" report tab/launch.tsv --tiny --seeds 2 --min-seeds 2 -o tab/launch.md --figures tab/fig > /dev/null 2>&1 &&
    grep -q "^\* K=4: P = 2: .*, $want % collective bytes" tab/launch.md &&
    pass "counters of one launch per cell ($want % collective bytes)" ||
    fail "mixed launches: want $want: $(grep '^\* K=4: P = 2' tab/launch.md)"
sed -i 1s/seed/SEED/ tab/results.tsv
"$SS" report tab/results.tsv -o tab/bad.md > err.txt 2>&1
[ $? = 1 ] && grep -q "not a results table" err.txt && pass "a bad table: exit 1" ||
    fail "bad table: $(cat err.txt)"

# the statistics: collapses with their Clopper-Pearson interval, verdicts only from tests
grep -q "^## Sensitivity of the collapse criterion" st/report.md &&
    grep -q "^| quality alone |" st/report.md && grep -q "^| or norm > 10 x |" st/report.md && grep -qE "^\| 2 \| K=4 \|.*\| [0-9]+/2 \[0\.[0-9]{2}, [01]\.[0-9]{2}\] \|" st/report.md &&
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
grep -qE '^[0-9]+ cells x 10 seeds' <<< "$out" && grep -q "^strong-wikispeedia-sarsa .*P=16 " <<< "$out" &&
    grep -q "^weak-twin-uk-sarsa .*P=64 .*K=16, window .*sarsa.step_rule=window" <<< "$out" &&
    grep -q "^weak-default-sarsa .*P=1024 .*average, ranks" <<< "$out" &&
    grep -q "^strong-default-sarsa .*P=1 .*null, alpha x 1.01 .*sarsa.alpha=0.0001578125 " <<< "$out" &&
    grep -q "^strong-wikispeedia-sarsa .*P=1 .*null, alpha x 0.99 .*sarsa.alpha=0.00061875 " <<< "$out" &&
    grep -q "^weak-twin-uk-sarsa .*P=16 .*K=16, budget proportional .*crawl.budget=proportional .*crawl.sync_every=16 " <<< "$out" &&
    ! grep -q "tres .*P=1 .*null" <<< "$out" &&
    grep -q "^# world seeds: default 1,2,3; twin-uk 1,2,3; wikispeedia 0" <<< "$out" &&
    pass "full design: $(tail -1 <<< "$out")" || fail "design: $out"
# --simulate: the same cells at --ranks, with the simulated ranks' exchange and visited set
sim=$("$SS" design --tiny --simulate 2>&1 | grep -c "^strong-default-sarsa .*P=2 .* crawl.exchange=node crawl.visited=owned")
real=$("$SS" design --tiny 2>&1 | grep -c "^strong-default-sarsa .*P=2 .*crawl.exchange=node")
[ "$sim" = "$("$SS" design --tiny 2>&1 | grep -c "^strong-default-sarsa .*P=2 ")" ] && [ "$sim" -gt 0 ] &&
    [ "$real" = 0 ] && pass "design --simulate: $sim cells with the simulated ranks' words, none without" ||
    fail "design --simulate: $sim, without: $real"
"$SS" run --tiny --simulate -o st --bin "$BIN" --smpi-bin nowhere/crawlsim > err.txt 2>&1
[ $? = 2 ] && grep -q "no SMPI build's crawlsim at nowhere/crawlsim" err.txt &&
    pass "run --simulate without the SMPI build: exit 2" || fail "run --simulate: $(cat err.txt)"
"$SS" slurm --tiny --seeds 2 -o st > slurm.txt 2>&1 || fail "slurm: $(cat slurm.txt)"
[ "$(grep -vc '^#' st/slurm/P2.txt)" = 14 ] && grep -q "slurm/submit sweep -n 2" slurm.txt &&
    grep -q "run.graph=$WORK/st/worlds/default-s2.h5" st/slurm/P2.txt &&
    pass "slurm: one spec of 14 runs on 2 ranks, each on its world seed's world" ||
    fail "slurm: $(cat slurm.txt st/slurm/P2.txt)"

# bad input
"$SS" design --groups nonsense > err.txt 2>&1
[ $? = 2 ] && grep -q "unknown group" err.txt && pass "unknown group: exit 2" || fail "unknown group: $(cat err.txt)"
"$SS" report empty > err.txt 2>&1
[ $? = 1 ] && grep -q "no results files or table" err.txt && pass "no results: exit 1" || fail "no results: $(cat err.txt)"
"$SS" run --tiny --smpi -o st --bin "$BIN" --smpi-bin nowhere/crawlsim > err.txt 2>&1
[ $? = 2 ] && grep -q "no SMPI build's crawlsim at nowhere/crawlsim" err.txt &&
    pass "run --smpi without the SMPI build: exit 2" || fail "run --smpi: $(cat err.txt)"
"$SS" run --tiny > err.txt 2>&1
[ $? = 2 ] && grep -q "needs -o DIR" err.txt && pass "run without -o: exit 2" || fail "run without -o: $(cat err.txt)"

# the budget mechanism's sign test counts a configuration once: a weak-scaling pair whose cells
# are the strong design's runs (the same quality seed for seed) is left out, another is not
out=$(PYTHONPATH="$SRC/tools/lib" /usr/bin/python3 -c '
import sync_sections as ss
def row(g, s, q, coll):
    return {"group": g, "P": 64, "setting": s, "seeds": [1, 2, 3], "q": q, "collapsed": coll}
rows = []
for g, k in (("strong-x", 0.0), ("weak-x", 0.0), ("weak-y", 0.5)):
    rows += [row(g, "control", [0.3, 0.3, 0.3], []),
             row(g, "K=4", [0.1 + k, 0.3, 0.3], [1]),
             row(g, "K=4__budget_proportional", [0.3, 0.2 + k, 0.3], [])]
print(" ".join(ss._budget_test(rows)))' 2>&1)
grep -q "is counted once (1 such)" <<< "$out" &&
    grep -q "Over the 2 pairs of cells: 2 seeds collapsed only under the global budget, 0 only" <<< "$out" &&
    pass "budget sign test: the strong design's cells run again by weak scaling counted once" ||
    fail "budget sign test with a repeated configuration: $out"
# a weak cell that is a strong one (B / P x P = B on the same world: weak-default-sarsa at 64,
# weak-wikispeedia-sarsa at 16) takes the strong cell's runs it lacks, marked, after the runs
# both hold agree but for provenance and wall time (and the counters between launches); a
# difference in the crawl refuses the table; no other cell coincides
out=$(/usr/bin/python3 - "$SS" << 'PY' 2>&1
import copy, importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("ss", sys.argv[1])
spec = importlib.util.spec_from_loader("ss", loader)
ss = importlib.util.module_from_spec(spec)
loader.exec_module(ss)
assert ss.coincident("weak-default-sarsa", 64, False) == "strong-default-sarsa"
assert ss.coincident("weak-wikispeedia-sarsa", 16, False) == "strong-wikispeedia-sarsa"
assert ss.coincident("weak-default-sarsa", 32, False) is None
assert ss.coincident("strong-default-sarsa", 64, False) is None
run = {"q": 0.3, "wnorm": 2.0, "coll": 5.0, "commit": "a", "world_hash": "h", "launch": "mpirun",
       "sec_per_tick": 0.01}
c = {("strong-default-sarsa", 64, "K=4"): {1: dict(run), 2: dict(run, q=0.2)},
     ("weak-default-sarsa", 64, "K=4"): {1: dict(run, commit="b", sec_per_tick=0.02)},
     ("weak-default-sarsa", 32, "K=4"): {1: dict(run)},
     ("strong-default-sarsa", 32, "K=4"): {1: dict(run), 2: dict(run)}}
ok = copy.deepcopy(c)
print("shared", ss.share_coincident(ok, False))
w = ok[("weak-default-sarsa", 64, "K=4")]
print("weak seeds", sorted(w), w[2]["launch"], w[2]["q"], len(ok[("weak-default-sarsa", 32, "K=4")]))
sim = copy.deepcopy(c)
sim[("weak-default-sarsa", 64, "K=4")][1].update(launch="smpi", coll=7.0)
print("counters between launches", ss.share_coincident(sim, False))
bad = copy.deepcopy(c)
bad[("weak-default-sarsa", 64, "K=4")][1]["wnorm"] = 2.5
try:
    ss.share_coincident(bad, False)
except SystemExit as e:
    print("refused:", e)
PY
)
grep -q "shared (1, 1)" <<< "$out" && grep -q "weak seeds \[1, 2\] mpirun+strong 0.2 1" <<< "$out" &&
    grep -q "counters between launches (1, 1)" <<< "$out" &&
    grep -q "refused:.*weak-default-sarsa P=64 K=4 seed 1 differs .* in wnorm" <<< "$out" &&
    pass "coinciding cells: the strong runs shared, checked equal, a difference refused" ||
    fail "coinciding cells: $out"
finish
