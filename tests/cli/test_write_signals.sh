#!/usr/bin/env bash
# SIGTERM, SIGINT or SIGHUP to rank 0 while it writes a file (docs/developer/robustness.md): the
# temporary (.NAME.tmp.PID beside the output, and its ballast .NAME.tmp.PID.room) is removed, no
# output appears, the process dies of the signal, and the inputs are unchanged; for every write
# path: gen, import, a checkpoint, the results file, a partition file, a schedule and bandit's
# results, at 1 rank and at 2 or 3 (the collective writes at 3). The signal goes to rank 0 (its
# pid ends the temporary's name) as soon as the temporary appears; when the output is there
# afterwards, the write ended first and the case is tried again (at most 6 times).
# CRAWLSIM_H5_HOLD=2 holds every complete temporary 2 s before its close, so that the signal
# always arrives during the write, however fast the machine (a CI machine wrote the results and
# a partition file before the signal in 6 tries of 6); CRAWLSIM_GRAPHIO_CHUNK (500 elements
# per HDF5 call for the checkpoints, 50 for the partitions, 1 elsewhere) also catches the
# collective writes in the middle. Each case fails when the guard (src/h5/h5_guard.c) is off:
# the temporary is left.
source "$(dirname "$0")/lib.sh"

"$BIN" gen "$SRC/graphs/tiny.ini" -o g.h5 -q || fail "gen g.h5"
printf '[run]\ngraph = g.h5\nticks = 30\n' > job.ini
awk 'BEGIN { for (i = 0; i < 20000; i++) for (k = 1; k <= 5; k++) print i, (i * 7 + k * 131) % 20000 }' \
    > edges.txt
printf '[import]\nedges = edges.txt\nhosts = per-page\n' > text.ini
# a page table of 2 * 10^5 rows (a schedule of 8 MB) and a bandit experiment of 8 series of
# 10^5 values (6 MB): writes long enough to be caught
awk 'BEGIN { print "id,mu,delta,complete"
    for (i = 0; i < 200000; i++) printf "p%d,%g,%g,%d\n", i, 0.1 + (i % 97) / 10, 0.01 + (i % 89) / 100, i % 2 }' \
    > pages.csv
printf '[bandit]\nexperiment = freshness\npolicies = static-opt, uniform\nruns = 1\nhorizon = 100000\n' \
    > bandit.ini
md5sum g.h5 job.ini edges.txt text.ini pages.csv bandit.ini > inputs.md5

# attempt SIG NP OUT ARGS...: one try; returns 0 when the signal reached rank 0 during the write
# (the outcome checked), 1 when the write ended before it (the output is there)
attempt() {
    local sig=$1 np=$2 out=$3
    shift 3
    local dir base
    dir=$(dirname "$out")
    base=$(basename "$out")
    mkdir -p "$dir"
    rm -f "$out" "$dir"/."$base".tmp.*
    CRAWLSIM_H5_HOLD=2 CRAWLSIM_GRAPHIO_CHUNK=${CHUNK:-1} timeout 120 "$MPIEXEC" -n "$np" "${MPIFLAGS[@]}" "$BIN" "$@" \
        > /dev/null 2> err.txt &
    local job=$! tmp="" end=$((SECONDS + 100))
    while [ "$SECONDS" -lt "$end" ] && kill -0 "$job" 2> /dev/null; do
        tmp=$(compgen -G "$dir/.$base.tmp.*" | grep -v '\.room$' | head -1)
        [ -z "$tmp" ] || break
    done
    # the pid is taken from a file name: it is signalled only when it is a crawlsim process of
    # this test's (a stale name, or a pid reused since, must never signal anything else)
    # (argv[0] read by bash's builtins: a fork here would let short writes end first)
    local pid=${tmp##*.} arg0=""
    if [ -n "$tmp" ] && [[ $pid =~ ^[0-9]+$ ]] && [ "$pid" -gt 1 ]; then
        read -r -d '' arg0 < "/proc/$pid/cmdline" 2> /dev/null
        [ "$arg0" = "$BIN" ] && kill "-$sig" "$pid" 2> /dev/null
    fi
    wait "$job"
    local rc=$? left
    left=$(compgen -G "$dir/.$base.tmp.*")
    if [ -z "$tmp" ] || { [ -z "$left" ] && [ -e "$out" ] && [ -z "${STOPS:-}" ]; }; then
        return 1 # no temporary seen, or written and renamed before the signal came
    fi
    # a run takes SIGTERM at its next tick boundary: on a loaded machine the signal can come
    # after the last one, and the run ends as it would have (exit 0, results written)
    if [ -n "${STOPS:-}" ] && [ "$rc" -eq 0 ] && [ -z "$left" ] && ! grep -q "stopped by SIGTERM" err.txt; then
        return 1
    fi
    if [ -n "$left" ]; then
        fail "$sig to rank 0 of ${*:1:2} (np $np): the temporary is left: $left"
    elif [ -n "${STOPS:-}" ]; then # run's own SIGTERM: the checkpoint completes, the run stops
        if [ "$rc" -eq 3 ] && [ -e "$out" ]; then
            pass "$sig to rank 0 of ${*:1:2} (np $np): checkpoint written, exit 3, no temporary"
        else
            fail "$sig to rank 0 of ${*:1:2} (np $np): exit $rc (expected 3): $(tail -3 err.txt)"
        fi
    elif [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
        fail "$sig to rank 0 of ${*:1:2} (np $np): exit $rc: $(tail -3 err.txt)"
    else
        pass "$sig to rank 0 of ${*:1:2} (np $np): exit $rc, no temporary, no output"
    fi
    return 0
}

# sig_case SIG NP OUT ARGS...: attempt until the signal is caught during the write
sig_case() {
    for _ in 1 2 3 4 5 6; do
        attempt "$@" && break
        false
    done || fail "$1 (np $2): the write of $3 always ended before the signal"
    md5sum -c --quiet inputs.md5 > /dev/null 2>&1 || fail "$1 (np $2): an input changed"
}

sig_case TERM 1 out/g.h5 gen "$SRC/graphs/tiny.ini" -o out/g.h5
sig_case INT 2 out/g.h5 gen "$SRC/graphs/tiny.ini" -o out/g.h5
sig_case INT 1 out/i.h5 import text.ini -o out/i.h5
sig_case TERM 2 out/i.h5 import text.ini -o out/i.h5
# with a checkpoint file SIGTERM asks for a checkpoint and a stop (exit 3): the write ends
CHUNK=500 STOPS=1 sig_case TERM 1 out/ck.h5 run job.ini -o r.h5 --set run.checkpoint=out/ck.h5 \
    --set run.checkpoint_every=10
for np in 1 2; do
    CHUNK=500 sig_case INT "$np" out/ck.h5 run job.ini -o r.h5 --set run.checkpoint=out/ck.h5 \
        --set run.checkpoint_every=10
done
# the results file, written by rank 0 alone at the end of the run
# with the fetches traced (2 000 rows of /trace, one HDF5 call each) the write is long enough to
# be caught on a loaded machine
trace=(--set run.trace=true --set run.ticks=100 --set crawl.bandwidth=20)
sig_case TERM 1 out/r.h5 run job.ini -o out/r.h5 "${trace[@]}"
sig_case INT 1 out/r.h5 run job.ini -o out/r.h5 "${trace[@]}"
# (at 3 ranks the graph is read in calls of 10^5 elements: one element per collective call took
# 90 s of set-up under a load of 30, longer than attempt's wait for the temporary)
CHUNK=100000 sig_case TERM 3 out/r.h5 run job.ini -o out/r.h5 "${trace[@]}"
# a partition file (written collectively), a schedule (rank 0, after a solve on every rank) and
# bandit's results (rank 0)
CHUNK=50 sig_case TERM 1 out/p.h5 partition g.h5 -k 2 --method block -o out/p.h5
CHUNK=50 sig_case INT 3 out/p.h5 partition g.h5 -k 3 --method block -o out/p.h5
sched=(schedule --policy lambdacrawl --bandwidth 400 --input pages.csv -o out/s.csv)
sig_case TERM 1 out/s.csv "${sched[@]}"
sig_case INT 2 out/s.csv "${sched[@]}"
sig_case TERM 1 out/b.h5 bandit bandit.ini -o out/b.h5
sig_case INT 2 out/b.h5 bandit bandit.ini -o out/b.h5
# SIGHUP (a closed terminal or a batch system's hang-up) is taken as SIGTERM is: the temporary
# goes, the process dies of it; also in a run with a checkpoint file, whose own handler takes
# SIGTERM and SIGUSR1 only
CHUNK=50 sig_case HUP 3 out/p.h5 partition g.h5 -k 3 --method block -o out/p.h5
CHUNK=500 sig_case HUP 2 out/ck.h5 run job.ini -o r.h5 --set run.checkpoint=out/ck.h5 \
    --set run.checkpoint_every=10
rm -f r.h5
finish
