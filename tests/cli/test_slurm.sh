#!/usr/bin/env bash
# slurm/: every script against a real single-node Slurm (../shared/tools/slurm-local, or
# $CRAWLSIM_SLURM_LOCAL): a run with srun (2 ranks) and with mpirun (1 rank x 2 threads, bound to
# 2 cores), the gen -> partition -> run pipeline (in order; a failing gen cancels the rest), a sweep
# as a job array (one results file per task with its settings in /config), strong and weak scaling
# (rank counts, grown world), SIGUSR1 with checkpoints switched off (ignored, the run completes),
# and the checkpoint-requeue-restart path with crawlsim itself (srun; results equal to an
# uninterrupted run) and with a stand-in engine (mpirun).
source "$(dirname "$0")/lib.sh"

slurm_local=${CRAWLSIM_SLURM_LOCAL:-$SRC/../shared/tools/slurm-local}
[ -x "$slurm_local" ] || skip "slurm-local not found at $slurm_local: the Slurm tests need it (set" \
    "CRAWLSIM_SLURM_LOCAL to the slurm-local script, or put the shared tools beside the repository)"
[ "$(id -u)" -eq 0 ] || skip "slurm-local runs as root only (the Slurm tests need root)"
S=$SRC/slurm

# The cluster lives in a short folder (slurmstepd's socket path limit); free ports, so that a
# cluster of someone else on this machine does not clash with ours.
dir=$(mktemp -d /tmp/csl.XXXXXX)
port_free() { ! (echo > "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
if [ -z "${SLURM_LOCAL_CTLD_PORT:-}" ]; then
    p=$((20000 + ($$ % 5000) * 2))
    while ! port_free "$p" || ! port_free "$((p + 1))"; do p=$((p + 2)); done
    export SLURM_LOCAL_CTLD_PORT=$p SLURM_LOCAL_SLURMD_PORT=$((p + 1))
fi
cleanup() {
    "$slurm_local" stop "$dir" > /dev/null 2>&1
    mkdir -p "$WORK/slurm-logs" && cp -r "$dir/log/." "$WORK/slurm-logs/" 2> /dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
t0=$(date +%s.%N)
env_lines=$("$slurm_local" start "$dir") || {
    echo "FAIL: slurm-local start $dir failed"
    exit 1
}
eval "$env_lines"
pass "slurm-local cluster up in $dir (ports $SLURM_LOCAL_CTLD_PORT/$SLURM_LOCAL_SLURMD_PORT)"

export CRAWLSIM=$BIN CRAWLSIM_RESULTS=$WORK/results CRAWLSIM_LAUNCHER=srun CRAWLSIM_CKPT_WAIT=10
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_QOS SBATCH_CONSTRAINT
R=$CRAWLSIM_RESULTS
small=(--set gen.pages=20000 --set run.pages=2000 --set crawl.bandwidth=20)

# jobid KIND < submit output: the job id of the line "KIND JOBID"
jobid() { awk -v k="$1" '$1 == k { print $2 }'; }
# swait ID: slurm-local wait with a limit; prints the states
swait() { "$slurm_local" wait "$1" 120; }
# cfg FILE SECTION.KEY: a key of the results file's resolved job (/config)
cfg() {
    h5dump -w 0 -d /config "$1" 2> /dev/null | sed -e 's/^ *//' -e 's/^(0): "//' -e 's/"$//' |
        awk -v s="${2%%.*}" -v k="${2#*.}" '/^\[.*\]$/ { sec = substr($0, 2, length($0) - 2); next }
            sec == s && $1 == k && $2 == "=" { sub(/^[^=]*= ?/, ""); print; exit }'
}
# ds FILE PATH: the values of a small dataset, comma-separated
ds() { h5dump -w 0 -d "$2" "$1" 2> /dev/null | sed -n 's/^ *(0): //p'; }
# valid FILE: a complete results file with the datasets the plots need
valid() {
    local f=$1 d
    [ -s "$f" ] || return 1
    for d in /config /series/tick /series/harvest_rate /series/relevant /tasks/relevant /ranks/pages \
        /final/fetched /timing/ranks/fetch; do
        h5ls "$f$d" > /dev/null 2>&1 || return 1
    done
}
# log_of ID: the log file of a job (slurm/submit names them NAME-ID.out)
log_of() { ls "$R"/logs/*-"$1".out 2> /dev/null | head -1; }

# 1. one run, srun, 2 ranks x 1 thread
out=$("$S/submit" run -n 2 --name single "$SRC/jobs/quickstart.ini" "${small[@]}") || fail "submit run: $out"
j=$(jobid run <<< "$out")
if swait "$j" > /dev/null && valid "$R/single.h5"; then
    pass "run (srun, 2 ranks): job $j COMPLETED, results/single.h5 valid"
else
    fail "run (srun): job $j: $(swait "$j"); log: $(cat "$(log_of "$j")")"
fi
[ "$(ds "$R/single.h5" /ranks/pages | awk -F', ' '{ print NF }')" = 2 ] && pass "run: 2 ranks in /ranks/pages" ||
    fail "run: /ranks/pages is not 2 ranks: $(ds "$R/single.h5" /ranks/pages)"
[ "$(ds "$R/single.h5" /final/fetched)" = 2000 ] && pass "run: the --set arguments reached crawlsim (2000 fetches)" ||
    fail "run: fetched $(ds "$R/single.h5" /final/fetched), expected 2000"

# 2. one run, mpirun, 1 rank x 2 threads: OMP_NUM_THREADS = --cpus-per-task, 2 cores per rank
out=$(CRAWLSIM_LAUNCHER=mpirun "$S/submit" run -n 1 -c 2 --name hybrid "$SRC/jobs/quickstart.ini" -v "${small[@]}")
j=$(jobid run <<< "$out")
swait "$j" > /dev/null && valid "$R/hybrid.h5" && pass "run (mpirun, 1 rank x 2 threads): job $j COMPLETED" ||
    fail "run (mpirun): job $j: $(swait "$j"); log: $(cat "$(log_of "$j")")"
log=$(cat "$(log_of "$j")")
grep -q "2 OpenMP thread(s) per rank" <<< "$log" && pass "mpirun: crawlsim saw 2 OpenMP threads" ||
    fail "mpirun: crawlsim did not see 2 threads: $log"
grep -q "only 1 core" <<< "$log" && fail "mpirun: the rank was bound to one core: $log" ||
    pass "mpirun: --map-by slot:PE=2 gave the rank 2 cores (no crawlsim warning)"

# 3. pipeline gen -> partition -> run, in order
out=$("$S/submit" pipeline -n 2 --name pipe "$SRC/graphs/tiny.ini" "$SRC/jobs/sync-study.ini" \
    --set run.pages=2000) || fail "submit pipeline: $out"
jg=$(jobid gen <<< "$out") jp=$(jobid partition <<< "$out") jr=$(jobid run <<< "$out")
if [ -n "$jg" ] && [ -n "$jp" ] && [ -n "$jr" ]; then
    pass "pipeline: job ids printed (gen $jg, partition $jp, run $jr)"
else
    fail "pipeline: submit printed no job ids: $out"
fi
dep=$(scontrol show job "$jr" | grep -o 'Dependency=[^ ]*')
swait "$jr" > /dev/null && valid "$R/pipe/pipe.h5" && pass "pipeline: run COMPLETED, results valid" ||
    fail "pipeline: $(swait "$jg") $(swait "$jp") $(swait "$jr"); $(cat "$R"/logs/pipe-*)"
[ "$(cfg "$R/pipe/pipe.h5" run.graph)" = "$R/pipe/web.h5" ] &&
    [ "$(cfg "$R/pipe/pipe.h5" run.partition_method)" = file ] &&
    h5ls "$R/pipe/web.h5/partition" > /dev/null 2>&1 &&
    pass "pipeline: the run crawled the generated graph under its stored partition" ||
    fail "pipeline: run.graph '$(cfg "$R/pipe/pipe.h5" run.graph)', method '$(cfg "$R/pipe/pipe.h5" run.partition_method)'"
t() { date -d "$(scontrol show job "$1" | grep -o "$2=[^ ]*" | cut -d= -f2)" +%s; }
if [ "$(t "$jp" StartTime)" -ge "$(t "$jg" EndTime)" ] && [ "$(t "$jr" StartTime)" -ge "$(t "$jp" EndTime)" ]; then
    pass "pipeline: partition started after gen ended, run after partition ($dep while waiting)"
else
    fail "pipeline: out of order: gen $(t "$jg" StartTime)-$(t "$jg" EndTime), partition $(t "$jp" StartTime)-$(t "$jp" EndTime), run $(t "$jr" StartTime)"
fi
# a failing gen: partition and run never start (afterok + --kill-on-invalid-dep)
printf '[gen]\npages = -5\n' > bad.ini
out=$("$S/submit" pipeline -n 2 --name badpipe bad.ini "$SRC/jobs/sync-study.ini")
jr=$(jobid run <<< "$out")
st=$(swait "$jr")
if [ $? -ne 0 ] && grep -q CANCELLED <<< "$st" && [ ! -e "$R/badpipe/badpipe.h5" ] &&
    [ -z "$(log_of "$(jobid partition <<< "$out")")" ]; then
    pass "pipeline: a failing gen cancels partition and run ($st)"
else
    fail "pipeline with a failing gen: run job $jr: $st"
fi

# 4. sweep: a job array, one results file per combination with its settings
cat > sweep.txt << 'EOF'
# a comment, then a blank line

crawl.sync_every=10 run.seed=3
run.policy=best-first crawl.exchange_every=5
   # an indented comment
crawl.sync_every=0 run.seed=7
EOF
out=$("$S/submit" sweep -n 2 sweep.txt "$SRC/jobs/sync-study.ini" "${small[@]}") || fail "submit sweep: $out"
j=$(jobid sweep <<< "$out")
st=$(swait "$j")
n_done=$(grep -c COMPLETED <<< "$st")
[ "$n_done" = 3 ] && pass "sweep: array job $j, 3 tasks COMPLETED" || fail "sweep: $st"
ok=1
check() { [ "$(cfg "$R/sweep/task-$1.h5" "$2")" = "$3" ] || {
    ok=0
    fail "sweep task $1: $2 = '$(cfg "$R/sweep/task-$1.h5" "$2")', expected '$3'"
}; }
for i in 000 001 002; do valid "$R/sweep/task-$i.h5" || fail "sweep: task-$i.h5 missing or incomplete"; done
check 000 crawl.sync_every 10 && check 000 run.seed 3 && check 000 run.policy sarsa
check 001 run.policy best-first && check 001 crawl.exchange_every 5 && check 001 crawl.sync_every 1
check 002 crawl.sync_every 0 && check 002 run.seed 7
check 002 gen.pages 20000
[ $ok = 1 ] && pass "sweep: each task's /config holds its combination (and the common --set)"
[ -e "$R/sweep/task-003.h5" ] && fail "sweep: a fourth results file"
grep -q "^001	run.policy=best-first crawl.exchange_every=5$" "$R/sweep/tasks.txt" &&
    pass "sweep: tasks.txt indexes the combinations" || fail "sweep: tasks.txt: $(cat "$R/sweep/tasks.txt")"
# the synchronisation study's Slurm path (tools/sync-study slurm, docs/guide/synchronisation.md):
# its tiny design as a job array, collected into the study's folder and reported
SS=$SRC/tools/sync-study
"$SS" slurm --tiny --seeds 2 -o ss > ss.txt 2>&1 && "$SS" worlds --tiny -o ss --bin "$BIN" >> ss.txt 2>&1 ||
    fail "sync-study slurm/worlds: $(cat ss.txt)"
out=$("$S/submit" sweep -n 2 --name sync-P2 ss/slurm/P2.txt "$SRC/jobs/sync-study.ini") || fail "submit sync-study: $out"
st=$(swait "$(jobid sweep <<< "$out")")
"$SS" collect ss --from "$R" >> ss.txt 2>&1 &&
    "$SS" report ss --tiny --seeds 2 --min-seeds 2 -o ss/report.md >> ss.txt 2>&1 ||
    fail "sync-study collect/report: $(cat ss.txt)"
[ "$(grep -c COMPLETED <<< "$st")" = 14 ] && [ "$(ls ss/runs/*/P2/*/seed-0[12].h5 | wc -l)" = 14 ] &&
    grep -q '^| 2 | K=4 | 2 |' ss/report.md &&
    pass "sync-study: 14 array tasks COMPLETED, collected and reported" ||
    fail "sync-study on Slurm: $st; $(cat ss.txt)"
printf 'crawl.sync_every 3\n' > badsweep.txt
out=$("$S/submit" sweep -n 1 badsweep.txt "$SRC/jobs/sync-study.ini")
j=$(jobid sweep <<< "$out")
swait "$j" > /dev/null && fail "sweep: a malformed spec line was accepted" ||
    { grep -q "is not section.key=value" "$(log_of "${j}_0")" && pass "sweep: a malformed line fails the task with a message" ||
        fail "sweep: no message for a malformed line: $(cat "$(log_of "${j}_0")")"; }

# 5. strong and weak scaling over 1 and 2 ranks
out=$("$S/submit" strong --ranks "1 2" "$SRC/jobs/sync-study.ini" "${small[@]}") || fail "submit strong: $out"
out2=$("$S/submit" weak --ranks "1 2" --chain --per-rank gen.pages=10000 --per-rank run.pages=1000 \
    --per-rank crawl.bandwidth=10 "$SRC/jobs/sync-study.ini") || fail "submit weak: $out2"
for kind in strong weak; do
    for p in 1 2; do
        o=$out
        [ $kind = weak ] && o=$out2
        j=$(jobid "$kind-p$p" <<< "$o")
        f=$R/$kind-sync-study/p$p.h5
        swait "$j" > /dev/null && valid "$f" || fail "$kind p$p: job $j: $(swait "$j")"
        pages=$(ds "$f" /ranks/pages)
        [ "$(awk -F', ' '{ print NF }' <<< "$pages")" = "$p" ] || fail "$kind p$p: /ranks/pages = $pages"
        want=20000
        [ $kind = weak ] && want=$((10000 * p))
        [ "$(cfg "$f" gen.pages)" = $want ] && [ "$(awk -F', ' '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }' <<< "$pages")" = $want ] ||
            fail "$kind p$p: gen.pages $(cfg "$f" gen.pages), pages $pages, expected $want"
    done
done
[ "$(cfg "$R/weak-sync-study/p2.h5" crawl.bandwidth)" = 20 ] && [ "$(ds "$R/weak-sync-study/p2.h5" /final/fetched)" = 2000 ] &&
    pass "strong and weak scaling: P ranks each; weak: world, pages and bandwidth x P" ||
    fail "weak p2: bandwidth $(cfg "$R/weak-sync-study/p2.h5" crawl.bandwidth), fetched $(ds "$R/weak-sync-study/p2.h5" /final/fetched)"

# 6. SIGUSR1 with checkpoints switched off (CRAWLSIM_RESTART=no): logged, not forwarded, the run
# completes (one rank, so that the crawl of 20 000 one-fetch ticks lasts about a second)
out=$(CRAWLSIM_RESTART=no "$S/submit" run -n 1 --name usr1-off "$SRC/jobs/quickstart.ini" \
    --set gen.pages=20000 --set run.pages=5000 --set run.tasks=4 --set crawl.bandwidth=1)
j=$(jobid run <<< "$out")
for _ in $(seq 1 300); do
    grep -q "srun --ntasks" "$(log_of "$j")" 2> /dev/null && break
    sleep 0.1
done
scancel --signal=USR1 --batch "$j"
if swait "$j" > /dev/null && valid "$R/usr1-off.h5" && [ "$(ds "$R/usr1-off.h5" /final/fetched)" = 20000 ]; then
    pass "SIGUSR1 without checkpoints: the run completed (4 tasks)"
else
    fail "SIGUSR1 without checkpoints: $(swait "$j"); $(cat "$(log_of "$j")")"
fi
log=$(cat "$(log_of "$j")")
if grep -q "SIGUSR1: this crawlsim has no checkpoints" <<< "$log" &&
    [ "$(grep -n 'no checkpoints' <<< "$log" | cut -d: -f1)" -lt "$(grep -n 'results:' <<< "$log" | tail -1 | cut -d: -f1)" ]; then
    pass "SIGUSR1 without checkpoints: noticed during the crawl, not forwarded"
else
    fail "SIGUSR1 was not noticed during the crawl: $log"
fi

# 6b. SIGUSR1 with this engine: forwarded to the ranks, which checkpoint at the next tick
# boundary; the job requeues itself and continues with --restart; its results equal those of an
# uninterrupted run (outside /timing, and /config, which names the checkpoint file)
usr1=(--set gen.pages=20000 --set run.pages=5000 --set run.tasks=8 --set crawl.bandwidth=1)
run 2 run "$SRC/jobs/quickstart.ini" "${usr1[@]}" -o usr1-ref.h5 > /dev/null 2>&1 || fail "usr1: reference run"
out=$("$S/submit" run -n 2 --name usr1 "$SRC/jobs/quickstart.ini" "${usr1[@]}")
j=$(jobid run <<< "$out")
for _ in $(seq 1 300); do # the crawl has begun (a signal during the set-up would also be kept)
    grep -q "crawl: " "$(log_of "$j")" 2> /dev/null && break
    sleep 0.1
done
scancel --signal=USR1 --batch "$j"
requeued=0
for _ in $(seq 1 300); do
    info=$(scontrol show job "$j")
    if grep -q "Restarts=1" <<< "$info" && grep -q "JobState=PENDING" <<< "$info"; then
        requeued=1
        break
    fi
    sleep 0.1
done
if [ $requeued = 1 ]; then
    pass "crawlsim checkpoint: SIGUSR1 forwarded, the ranks wrote $R/ckpt/$j.h5, job $j requeued itself"
    sleep 1.1 # see 7: release the requeued job in the next second
    scontrol update jobid="$j" StartTime=now
else
    fail "crawlsim checkpoint: job $j not requeued: $(scontrol show job "$j" | grep -E 'JobState|Restarts'); $(cat "$(log_of "$j")")"
fi
if swait "$j" > /dev/null && valid "$R/usr1.h5" && compare usr1-ref.h5 "$R/usr1.h5" --ignore /config; then
    pass "crawlsim checkpoint: the requeued job restarted; results identical to an uninterrupted run"
else
    compare usr1-ref.h5 "$R/usr1.h5" --ignore /config
    fail "crawlsim checkpoint: $(swait "$j"); $compared; $(cat "$(log_of "$j")")"
fi
log=$(cat "$(log_of "$j")")
grep -q "checkpoint .* written at tick" <<< "$log" && grep -q "continuing from checkpoint" <<< "$log" &&
    grep -q "restarting from checkpoint" <<< "$log" && [ ! -e "$R/ckpt/$j.h5" ] &&
    pass "crawlsim checkpoint: both attempts in one log, checkpoint removed after success" ||
    fail "crawlsim checkpoint log: $log"

# 7. checkpoint, requeue and --restart under mpirun (6b covered srun with crawlsim itself), with a
# stand-in engine that has them: on SIGUSR1 it writes the checkpoint named by --set
# run.checkpoint=FILE and runs on; started with --restart FILE it writes its results at once.
cat > fake-crawlsim << 'EOF'
#!/bin/bash
if [ "$1 $2" = "run --help" ]; then echo "usage: crawlsim run [JOB.ini] [-o RESULTS.h5] [--restart CKPT]"; exit 0; fi
out="" ckpt="" restart=""
while [ $# -gt 0 ]; do
    case $1 in
    -o) out=$2; shift ;;
    --restart) restart=$2; shift ;;
    --set) case $2 in run.checkpoint=*) ckpt=${2#run.checkpoint=} ;; esac; shift ;;
    esac
    shift
done
if [ -n "$restart" ]; then
    [ "$restart" = "$ckpt" ] && [ -s "$restart" ] || { echo "fake: bad restart '$restart' (ckpt '$ckpt')" >&2; exit 1; }
    echo "restarted from $restart: $(cat "$restart")" > "$out"
    exit 0
fi
trap 'echo "state at signal" > "$ckpt.tmp" && mv "$ckpt.tmp" "$ckpt"' USR1
touch "$out.ready"
for _ in $(seq 1 600); do sleep 0.1; done
echo "fake: never signalled" >&2
exit 1
EOF
chmod +x fake-crawlsim
for launcher in mpirun; do
    out=$(CRAWLSIM=$WORK/fake-crawlsim CRAWLSIM_LAUNCHER=$launcher "$S/submit" run -n 1 --name "ckpt-$launcher" \
        "$SRC/jobs/quickstart.ini")
    j=$(jobid run <<< "$out")
    for _ in $(seq 1 300); do # until the stand-in runs with its handler (a signal before is lost)
        [ -e "$R/ckpt-$launcher.h5.ready" ] && break
        sleep 0.1
    done
    scancel --signal=USR1 --batch "$j"
    requeued=0
    for _ in $(seq 1 300); do
        info=$(scontrol show job "$j")
        if grep -q "Restarts=1" <<< "$info" && grep -q "JobState=PENDING" <<< "$info"; then
            requeued=1
            break
        fi
        sleep 0.1
    done
    if [ $requeued = 1 ]; then
        pass "checkpoint ($launcher): SIGUSR1 forwarded, checkpoint written, job $j requeued itself"
        # Slurm holds a requeued job for 2 minutes: release it, but only in the next second, as
        # slurmd refuses a credential made in the second the killed run's was revoked ("Job
        # credential revoked"; a later StartTime would wait for the scheduler's 30 s backfill pass)
        sleep 1.1
        scontrol update jobid="$j" StartTime=now
    else
        fail "checkpoint ($launcher): job $j not requeued: $(scontrol show job "$j" | grep -E 'JobState|Restarts'); $(cat "$(log_of "$j")")"
    fi
    res=$R/ckpt-$launcher.h5
    if swait "$j" > /dev/null && grep -q "^restarted from $R/ckpt/$j.h5: state at signal$" "$res" 2> /dev/null; then
        pass "checkpoint ($launcher): the requeued job continued with --restart $R/ckpt/$j.h5"
    else
        fail "checkpoint ($launcher): no restart: $(swait "$j"); results: $(cat "$res" 2> /dev/null); $(cat "$(log_of "$j")")"
    fi
    [ ! -e "$R/ckpt/$j.h5" ] && pass "checkpoint ($launcher): removed after success" ||
        fail "checkpoint ($launcher): $R/ckpt/$j.h5 left behind"
    grep -q "continuing from checkpoint" "$(log_of "$j")" && grep -q "restart count 1" "$(log_of "$j")" &&
        pass "checkpoint ($launcher): both attempts in one log" || fail "checkpoint log: $(cat "$(log_of "$j")")"
done

echo "Slurm tests took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
finish
