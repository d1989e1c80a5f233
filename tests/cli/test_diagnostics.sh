#!/usr/bin/env bash
# The learning diagnostics of every results file (docs/reference/formats.md): in the strict
# setting the ranks' weights never differ (weights_spread exactly 0 at 2 and 3 ranks) and the
# diagnostics are bit-identical to one rank's; outside it (crawl.sync_every = 4, and
# weight_sync = average) the spread is above 0; weights_norm at the last point is the norm of
# /final/weights; the step of a window is alpha x the window's fetches (/ P when averaging), and
# follows sarsa.step_rule (window: 0.01 per window; ranks: alpha x P when averaging); the
# per-rank fetches add up to /final/fetched; TRES records its replay buffers and trees per rank
# and each network's norm, spread and update; a restart from a checkpoint gives the same
# diagnostics.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1
PY=/usr/bin/python3

run 2 -q gen "$SRC/graphs/tiny.ini" --set gen.pages=20000 -o web.h5 > /dev/null 2>&1 || fail "gen"
ARGS=(--set run.graph="$WORK/web.h5" --set run.pages=2000 --set crawl.bandwidth=20
      --set run.seeds=1 --set run.tasks=1)
crawl() { # NP OUT [ARGS...]
    local np=$1 out=$2
    shift 2
    run "$np" -q run "$SRC/jobs/sync-study.ini" "${ARGS[@]}" "$@" -o "$out" > /dev/null 2> err.txt ||
        fail "run $out on $np ranks: $(cat err.txt)"
}
for np in 1 2 3; do crawl "$np" "strict$np.h5"; done
crawl 3 k4.h5 --set crawl.sync_every=4
crawl 3 avg.h5 --set crawl.weight_sync=average
# the step rules (sarsa.step_rule): window bounds alpha x K x B (/ P averaging) by 0.01; ranks
# scales alpha by P under average; in the strict setting window stays rank-invariant
crawl 3 k4w.h5 --set crawl.sync_every=4 --set sarsa.step_rule=window
crawl 3 avgw.h5 --set crawl.sync_every=4 --set crawl.weight_sync=average --set sarsa.step_rule=window
crawl 3 avgr.h5 --set crawl.weight_sync=average --set sarsa.step_rule=ranks
for np in 1 3; do crawl "$np" "strictw$np.h5" --set sarsa.step_rule=window; done
crawl 2 tres.h5 --set run.policy=tres --set crawl.weight_sync=average --set run.pages=600

# the strict setting: the diagnostics are the one rank's (the per-rank ones under /ranks aside)
for np in 2 3; do
    same_as_one_rank strict1.h5 "strict$np.h5" "strict: $np ranks == 1 rank, diagnostics included"
done

# check FILE EXPR WHAT: a Python expression over the results file's datasets d(name)
check() {
    local out
    out=$("$PY" - "$1" "$2" << 'PY' 2>&1
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
d = lambda name: f[name][()]
ok = eval(sys.argv[2])
print("yes" if ok else "no")
PY
)
    [ "$out" = yes ] && pass "$3" || fail "$3 ($1: $2: $out)"
}
for np in 2 3; do
    check "strict$np.h5" "np.all(d('/series/weights_spread') == 0)" "strict, $np ranks: spread 0"
done
check strict3.h5 "d('/series/weights_norm')[-1] > 0" "strict: the weights are learned"
check k4.h5 "np.nanmax(d('/series/weights_spread')) > 0" "sync_every = 4: spread > 0"
check avg.h5 "np.nanmax(d('/series/weights_spread')) > 0" "average: spread > 0 (as it starts)"
for f in strict3.h5 avg.h5; do # (k4.h5 ends between synchronisations)
    # summed in another order than crawlsim's: equal to a few ulps
    check $f "abs(d('/series/weights_norm')[-1] - np.linalg.norm(d('/final/weights'))) <= \
1e-12 * np.linalg.norm(d('/final/weights')) and d('/final/weights_identical')[0] == 1" \
        "$f: weights_norm at the end is the norm of /final/weights"
done
# the window's step: alpha (0.001) x its fetches over all ranks (20 a tick), / P when averaging
check k4.h5 "np.isclose(d('/series/step')[3], 0.001 * 4 * 20)" "sync_every = 4: step 0.08"
check strict3.h5 "np.isclose(d('/series/step')[3], 0.001 * 20)" "strict: step alpha x B"
check avg.h5 "np.isclose(d('/series/step')[3], 0.001 * 20 / 3)" "average on 3 ranks: step / 3"
check k4w.h5 "np.isclose(d('/series/step')[3], 0.01)" "step rule window, K = 4: step 0.01"
check avgw.h5 "np.isclose(d('/series/step')[3], 0.01)" "step rule window, average K = 4: step 0.01"
check avgr.h5 "np.isclose(d('/series/step')[3], 0.001 * 20)" "step rule ranks, average: step alpha x B"
check strictw3.h5 "np.isclose(d('/series/step')[3], 0.01)" "step rule window, strict: step 0.01"
same_as_one_rank strictw1.h5 strictw3.h5 "strict, step rule window: 3 ranks == 1 rank"
grep -q "alpha = 0.000125, step rule window" <(run 1 run "$SRC/jobs/sync-study.ini" "${ARGS[@]}" \
    --set run.pages=40 --set crawl.sync_every=4 \
    --set sarsa.step_rule=window -o line.h5 2>&1) &&
    pass "the start-up line gives the rule's step" || fail "the start-up line: no rule's step"
check strict3.h5 "np.all(np.diff(d('/series/update_norm')[1:8]) != 0) and \
np.all(d('/series/q_min')[1:] <= d('/series/q_max')[1:])" "update norms and Q ranges recorded"
for f in strict3.h5 k4.h5; do
    check $f "d('/ranks/series/fetched').shape == (len(d('/series/tick')), 3) and \
d('/ranks/series/fetched')[-1].sum() == d('/final/fetched')[0] and \
d('/ranks/series/relevant')[-1].sum() == d('/final/relevant')[0]" "$f: per-rank fetches add up"
done
check tres.h5 "d('/ranks/series/replay')[-1].min() > 0 and 'step' not in f['/series'] and \
np.isfinite(d('/series/weights_norm')[-1])" "tres: replay sizes per rank, networks' norm"
# TRES's networks apart: the online and target networks' norms (the halves of /final/weights,
# which together make weights_norm), spreads (the ranks learn apart under average) and updates
check tres.h5 "d('/ranks/series/leaves').shape == d('/ranks/series/replay').shape and \
d('/ranks/series/leaves')[-1].min() > 0" "tres: tree sizes (leaves) per rank"
check tres.h5 "np.allclose(np.hypot(d('/series/weights_norm_online'), d('/series/weights_norm_target')), \
d('/series/weights_norm'), rtol=1e-12) and np.isclose(d('/series/weights_norm_online')[-1], \
np.linalg.norm(d('/final/weights')[:len(d('/final/weights')) // 2]), rtol=1e-12) and \
np.nanmax(d('/series/weights_spread_online')) > 0 and \
np.nanmax(d('/series/update_norm_online')) > 0" "tres: each network's norm, spread and update"
check k4.h5 "'weights_norm_online' not in f['/series']" "sarsa: no per-network series"

# a restart from the checkpoint the run left behind (tick 74 of 100) ends with its results
CKA=(--set crawl.sync_every=4 --set run.checkpoint="$WORK/ck.h5" --set run.checkpoint_every=37)
crawl 3 full.h5 "${CKA[@]}"
run 3 -q run "$SRC/jobs/sync-study.ini" "${ARGS[@]}" "${CKA[@]}" --restart "$WORK/ck.h5" \
    -o restarted.h5 > /dev/null 2> err.txt || fail "restart: $(cat err.txt)"
if compare full.h5 restarted.h5; then
    pass "restart: the same diagnostics"
else
    fail "restart: $(head -4 <<< "$compared")"
fi
# TRES's per-network diagnostics through a checkpoint (tick 13 of 30)
CKT=(--set run.policy=tres --set crawl.weight_sync=average --set run.pages=600
     --set run.checkpoint="$WORK/ckt.h5" --set run.checkpoint_every=13)
crawl 2 tresfull.h5 "${CKT[@]}"
run 2 -q run "$SRC/jobs/sync-study.ini" "${ARGS[@]}" "${CKT[@]}" --restart "$WORK/ckt.h5" \
    -o tresrestarted.h5 > /dev/null 2> err.txt || fail "tres restart: $(cat err.txt)"
if compare tresfull.h5 tresrestarted.h5; then
    pass "tres restart: the same diagnostics, the networks' included"
else
    fail "tres restart: $(head -4 <<< "$compared")"
fi
finish
