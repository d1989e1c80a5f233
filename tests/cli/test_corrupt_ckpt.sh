#!/usr/bin/env bash
# Damaged checkpoints (issue 20): a restart from a checkpoint with one item damaged (random
# bytes, NaN, a value far out of range, -1, one element short or long, the item missing, its
# counts moved between ranks) or the file cut short ends with one clean error on every rank
# within a time limit: no crash, no hang, no results file, no temporary (lib.sh `fault`). Two
# checkpoints, SARSA with lambda-learn's refresh and TRES (together the items of every kind of
# state), at 2 ranks. The test runs a sample: every kind of damage once on the first checkpoint
# and three on the second, on items spread over the list, and one truncation each; CORRUPT_FULL=1 damages every item twice (random bytes,
# and another kind in turn) and cuts the file at six lengths (tools/robustness does).
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
/usr/bin/python3 -c "import h5py" 2> /dev/null || skip "python3-h5py is not installed"
DAMAGE=(/usr/bin/python3 "$SRC/tests/cli/h5damage.py")
world=(--set gen.pages=3000 --set run.seeds=3 --set crawl.bandwidth=20)
declare -A job
# (one line each: `read -a` below takes the first line only; the refresh settings, on a second
# line, were dropped and the checkpoint held no refresh items)
job[sarsa-refresh]="--set run.policy=sarsa --set run.pages=0 --set run.ticks=60 \
--set refresh.policy=lambda-learn --set refresh.fraction=adaptive --set refresh.sync_every=10"
job[tres]="--set run.policy=tres --set run.pages=0 --set run.ticks=40"
kinds=(bytes nan range negative short long missing counts)

ncases=0
jobno=-1
for name in sarsa-refresh tres; do
    jobno=$((jobno + 1))
    read -r -a args <<< "${job[$name]}"
    run 2 run "${world[@]}" "${args[@]}" --set run.checkpoint="$name.ck.h5" \
        --set run.checkpoint_every=25 -o "$name-ref.h5" > "$name-ref.log" 2>&1 ||
        { fail "$name: the run that writes the checkpoint: $(tail -3 "$name-ref.log")"; continue; }
    # the undamaged checkpoint restarts (what every case below changes one thing of)
    cp "$name.ck.h5" good.h5
    if run 2 run "${world[@]}" "${args[@]}" --restart good.h5 -o good-out.h5 > good.log 2>&1; then
        pass "$name: the undamaged checkpoint restarts"
    else
        fail "$name: the undamaged checkpoint does not restart: $(tail -3 good.log)"
    fi
    rm -f good.h5 good-out.h5
    mapfile -t items < <("${DAMAGE[@]}" "$name.ck.h5" --list | cut -d' ' -f1)
    [ "${#items[@]}" -gt 10 ] || fail "$name: only ${#items[@]} items in the checkpoint"
    cases=()
    if [ "${CORRUPT_FULL:-0}" = 1 ]; then
        # every item with random bytes and with one other kind, the kinds in turn
        for i in "${!items[@]}"; do
            cases+=("${items[$i]} bytes" "${items[$i]} ${kinds[$((1 + i % 7))]}")
        done
    else
        # every kind once on the first checkpoint, on items spread over the list (the second
        # takes other items for a kind)
        # (TRES's checkpoint: random bytes, a short and a missing item, to keep the test short)
        for ki in "${!kinds[@]}"; do
            [ "$jobno" -eq 0 ] || [[ " bytes short missing " == *" ${kinds[$ki]} "* ]] || continue
            cases+=("${items[$(((ki * 2 + jobno) * 7 % ${#items[@]}))]} ${kinds[$ki]}")
        done
    fi
    for c in "${cases[@]}"; do
        read -r it k <<< "$c"
        cp "$name.ck.h5" bad.h5
        "${DAMAGE[@]}" bad.h5 "$it" "$k" 7
        case $? in
            0) ;;
            3) continue ;; # the kind does not apply to this item
            *) fail "h5damage $it $k failed"; continue ;;
        esac
        FAULT_OUT=out.h5 fault checkpoint "$name:$it:$k" 2 run "${world[@]}" "${args[@]}" \
            --restart bad.h5 -o out.h5
        ncases=$((ncases + 1))
    done
    fracs=(0.5 0.97)
    [ "${CORRUPT_FULL:-0}" = 1 ] && fracs=(0.05 0.3 0.5 0.8 0.97 0.999)
    [ "${CORRUPT_FULL:-0}" = 1 ] || fracs=("${fracs[$jobno]}")
    for frac in "${fracs[@]}"; do
        cp "$name.ck.h5" bad.h5
        "${DAMAGE[@]}" bad.h5 --truncate "$frac"
        FAULT_OUT=out.h5 fault checkpoint "$name:truncated-to-$frac" 2 run "${world[@]}" \
            "${args[@]}" --restart bad.h5 -o out.h5
        ncases=$((ncases + 1))
    done
done
rm -f bad.h5
echo "$ncases damaged checkpoints tried"
[ "$ncases" -ge 10 ] || fail "only $ncases cases ran"
finish
