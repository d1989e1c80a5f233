#!/usr/bin/env bash
# tools/plot on small results files of crawlsim run: every figure the files allow is a non-empty
# PNG and shows the expected settings (seeds grouped into one band), the MAX front, staleness per
# epoch and rewards work on files with added datasets and on the engine's own files (TRES runs over
# MAX, crawlsim run with [refresh], crawlsim bandit), and bad input gives one clear error.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
PLOT=$SRC/tools/plot

run 2 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o web.h5 2> /dev/null || fail "gen"
common=(--set run.graph="$PWD/web.h5" --set run.pages=1500 --set crawl.bandwidth=15 --set run.tasks=2)
for pol in best-first sarsa; do
    for s in 1 2; do
        run 2 -q run "$SRC/jobs/han-fidelity.ini" "${common[@]}" --set run.policy=$pol --set run.seed=$s \
            -o "pol_${pol}_$s.h5" 2> err.txt || fail "run $pol seed $s: $(cat err.txt)"
    done
done
for k in 1 10 0; do
    run 2 -q run "$SRC/jobs/sync-study.ini" "${common[@]}" --set crawl.sync_every=$k -o "k_$k.h5" 2> /dev/null ||
        fail "run K $k"
done
run 1 -q run "$SRC/jobs/sync-study.ini" "${common[@]}" -o r_1.h5 2> /dev/null || fail "run 1 rank"
cp k_1.h5 r_2.h5

# png FILE: a PNG image of some size
png() { [ -s "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ] && [ "$(stat -c %s "$1")" -gt 10000 ]; }

# 1. policies over two seeds each: curves, tasks, phases
out=$("$PLOT" pol_*.h5 -o fig1 2> err.txt) || fail "plot policies: $(cat err.txt)"
for f in curves tasks phases; do
    png "fig1/$f.png" && pass "policies: $f.png" || fail "policies: fig1/$f.png missing or not a PNG"
done
grep -q "^fig1/curves.png	best-first n=2; sarsa n=2$" <<< "$out" &&
    pass "policies: two settings, the two seeds of each in one band" || fail "policies: grouping: $out"
grep -q "params skipped" err.txt && pass "policies: params skipped (nothing varies) with a note" ||
    fail "policies: no note for params: $(cat err.txt)"

# 2. K sweep and rank counts: harvest rate against K and ranks, strong scaling
out=$("$PLOT" k_*.h5 r_*.h5 -o fig2 2> err.txt) || fail "plot K and ranks: $(cat err.txt)"
png fig2/params.png && png fig2/scaling.png && pass "K and ranks: params.png, scaling.png" ||
    fail "K and ranks: figures missing: $out $(cat err.txt)"
grep -q "crawl.sync_every = 1,10,0 (2 lines); ranks = 1,2 (3 lines)" <<< "$out" &&
    pass "params: K in numeric order with never last, and the rank count from /ranks/pages" ||
    fail "params: $out"
grep -q "strong scaling over ranks 1,2" <<< "$out" && pass "scaling: strong (same world)" || fail "scaling: $out"

# 3. figures for datasets the engine will write: copies with them added
/usr/bin/python3 - << 'EOF' || fail "making the files with added datasets"
import shutil, h5py, numpy as np
for i, (mx, hr, hosts) in enumerate([("inf", 0.9, 800), ("10", 0.7, 1300), ("5", 0.5, 1360), ("100", 0.6, 700)]):
    for s in (1, 2):
        name = f"tres_{mx}_{s}.h5"
        shutil.copy("k_1.h5", name)
        with h5py.File(name, "r+") as f:
            cfg = f["config"][()].decode() + f"\n[tres]\nmax_per_host = {mx}\n"
            cfg = cfg.replace("seed = 1\n", f"seed = {s}\n", 1)
            del f["config"]
            f["config"] = np.bytes_(cfg)
            f["final/harvest_rate"][0] = hr + 0.01 * s
            f["final/relevant_hosts"][0] = hosts + 10 * s
            f["epochs/staleness_harmonic"] = 100.0 / np.arange(1, 22) + s
            f["series/reward"] = np.sin(np.arange(len(f["series/tick"])) / 5.0) + s
EOF
out=$("$PLOT" --only pareto,staleness,rewards --window 5 tres_*.h5 -o fig3 2> err.txt) ||
    fail "plot pareto/staleness/rewards: $(cat err.txt)"
for f in pareto staleness rewards; do
    png "fig3/$f.png" && pass "added datasets: $f.png" || fail "added datasets: fig3/$f.png missing"
done
# MAX=100 (0.6, 700) is dominated by inf (0.9, 800): three of the four on the front
grep -q "4 MAX values, 3 on the front" <<< "$out" && pass "pareto: the dominated point is off the front" ||
    fail "pareto: $out"

# 3b. the engine's own files: staleness per epoch of crawlsim run with [refresh], rewards of
# crawlsim bandit, the MAX front of TRES runs
for pol in lambdacrawl lambda-learn; do
    for s in 1 2; do
        run 2 -q run "${common[@]}" --set run.tasks=1 --set run.pages=0 --set run.ticks=600 \
            --set run.seed=$s --set refresh.policy=$pol --set refresh.fraction=0.3 \
            --set refresh.sync_every=50 -o "rf_${pol}_$s.h5" 2> err.txt || fail "refresh run: $(cat err.txt)"
    done
done
out=$("$PLOT" --only staleness rf_*.h5 -o fig4 2> err.txt) || fail "plot staleness: $(cat err.txt)"
png fig4/staleness.png && grep -q "/refresh/jh, /refresh/jb" <<< "$out" &&
    pass "staleness from crawlsim run [refresh]: /refresh/jh and /refresh/jb per epoch" ||
    fail "staleness from crawlsim run: $out $(cat err.txt)"
run 1 -q bandit "$SRC/jobs/drl-single.ini" --set bandit.runs=3 --set bandit.horizon=300 \
    --set bandit.hidden1=16 -o drl.h5 > /dev/null 2> err.txt || fail "crawlsim bandit: $(cat err.txt)"
out=$("$PLOT" --only rewards drl.h5 -o fig5 2> err.txt) || fail "plot rewards: $(cat err.txt)"
png fig5/rewards.png && grep -q "drl: fgdqn, static-opt, thompson, uniform" <<< "$out" &&
    pass "rewards from crawlsim bandit: running and moving averages of the 4 policies" ||
    fail "rewards from crawlsim bandit: $out $(cat err.txt)"
for mx in inf 10; do
    run 1 -q run "${common[@]}" --set run.tasks=1 --set run.policy=tree-random \
        --set tres.max_per_host=$mx -o "tr_$mx.h5" 2> err.txt || fail "tree-random: $(cat err.txt)"
done
out=$("$PLOT" --only pareto tr_*.h5 -o fig6 2> err.txt) || fail "plot pareto: $(cat err.txt)"
png fig6/pareto.png && pass "pareto from crawlsim run over tres.max_per_host" ||
    fail "pareto from crawlsim run: $out $(cat err.txt)"

# 4. bad input: one message, exit 1 (data) or 2 (command line), no traceback
expect_plot() {
    local want=$1 pattern=$2
    shift 2
    local msg rc
    msg=$("$PLOT" "$@" -o bad 2>&1 > /dev/null)
    rc=$?
    if [ $rc -ne "$want" ] || ! grep -qE -- "$pattern" <<< "$msg" || grep -q Traceback <<< "$msg"; then
        fail "tools/plot $*: exit $rc (expected $want), message: $msg"
    else
        pass "tools/plot $* -> $rc: $(head -1 <<< "$msg")"
    fi
}
echo "not hdf5" > notes.txt
expect_plot 1 "nothere.h5: no such file" nothere.h5
expect_plot 1 "notes.txt: not an HDF5 file" k_1.h5 notes.txt
expect_plot 1 "web.h5: not a crawlsim results file" web.h5
expect_plot 1 "pareto: needs files at 2 or more values of tres.max_per_host" --only pareto k_1.h5
expect_plot 2 "unknown figure nosuch" --only nosuch k_1.h5
expect_plot 2 "usage: tools/plot" 
"$PLOT" --help | grep -q "pareto" && pass "tools/plot --help lists the figures" || fail "--help"
[ -z "$(ls bad 2> /dev/null)" ] && pass "no figure written for bad input" || fail "figures written for bad input: $(ls bad)"
finish
