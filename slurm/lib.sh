# Helpers of the job scripts (run.sbatch, sweep.sbatch, step.sbatch), sourced inside the job after
# site.sh. Not meant to be edited per site: settings live in site.sh.

# SIGUSR1 (sbatch --signal=B:USR1@60) would kill the job script before cs_crawl sets its handler
trap 'cs_log "SIGUSR1 outside the crawl: ignored"' USR1

cs_log() { printf '[crawlsim-slurm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
cs_die() {
    cs_log "error: $*"
    exit 1
}

# cs_setup: checks the binary, sets OMP_NUM_THREADS to --cpus-per-task, prints what runs where.
cs_setup() {
    [ -n "${SLURM_JOB_ID:-}" ] || cs_die "not inside a Slurm job (submit with sbatch or slurm/submit)"
    [ -x "$CRAWLSIM" ] || cs_die "crawlsim binary '$CRAWLSIM' not found: build it (tools/build) or set CRAWLSIM in slurm/site.sh"
    export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
    # threads of a bound rank stay on its cores (site.sh, CRAWLSIM_OMP_BIND)
    if [ "${CRAWLSIM_OMP_BIND:-auto}" = auto ] && [ "$OMP_NUM_THREADS" -gt 1 ] &&
        [ -z "${OMP_PROC_BIND:-}" ] && cs_ranks_bound; then
        export OMP_PLACES=cores OMP_PROC_BIND=close
    fi
    mkdir -p "$CRAWLSIM_RESULTS" || cs_die "cannot create $CRAWLSIM_RESULTS"
    local task="" place=""
    [ -n "${OMP_PROC_BIND:-}" ] && place=" (OMP_PLACES=${OMP_PLACES:-} OMP_PROC_BIND=$OMP_PROC_BIND)"
    [ -n "${SLURM_ARRAY_TASK_ID:-}" ] && task=" task $SLURM_ARRAY_TASK_ID of array $SLURM_ARRAY_JOB_ID"
    cs_log "job $SLURM_JOB_ID$task on ${SLURM_JOB_NODELIST:-?}: ${SLURM_NTASKS:-1} ranks x $OMP_NUM_THREADS threads$place, launcher $CRAWLSIM_LAUNCHER, restart count ${SLURM_RESTART_COUNT:-0}"
}

# cs_ranks_bound: true when the launcher binds each rank to its own cores.
cs_ranks_bound() {
    case $CRAWLSIM_LAUNCHER in
    srun) [[ " $CRAWLSIM_SRUN_FLAGS " == *" --cpu-bind=cores "* ]] ;;
    mpirun) [ "$CRAWLSIM_MPIRUN_BIND" = pe ] ;;
    *) return 1 ;;
    esac
}

# cs_launch_cmd: prints (into the array CS_CMD) the launcher command for the job's tasks.
cs_launch_cmd() {
    local n=${SLURM_NTASKS:-1} t=${OMP_NUM_THREADS:-1} extra
    case $CRAWLSIM_LAUNCHER in
    srun)
        read -r -a extra <<< "$CRAWLSIM_SRUN_FLAGS"
        # since Slurm 22.05 srun no longer inherits --cpus-per-task from the batch allocation
        CS_CMD=(srun --ntasks="$n" --cpus-per-task="$t" "${extra[@]}")
        ;;
    mpirun)
        read -r -a extra <<< "$CRAWLSIM_MPIRUN_FLAGS"
        CS_CMD=(mpirun -np "$n" -x OMP_NUM_THREADS "${extra[@]}")
        [ -z "${OMP_PROC_BIND:-}" ] || CS_CMD+=(-x OMP_PLACES -x OMP_PROC_BIND)
        case $CRAWLSIM_MPIRUN_BIND in
        pe) CS_CMD+=(--map-by "slot:PE=$t" --bind-to core) ;;
        none) CS_CMD+=(--bind-to none) ;;
        *) cs_die "CRAWLSIM_MPIRUN_BIND='$CRAWLSIM_MPIRUN_BIND': expected pe or none" ;;
        esac
        ;;
    *) cs_die "CRAWLSIM_LAUNCHER='$CRAWLSIM_LAUNCHER': expected srun or mpirun" ;;
    esac
    CS_CMD+=("$CRAWLSIM")
}

# cs_step ARGS...: runs `crawlsim ARGS` on the job's tasks and returns its exit status.
cs_step() {
    cs_launch_cmd
    cs_log "${CS_CMD[*]} $*"
    "${CS_CMD[@]}" "$@"
}

# cs_restart_supported: true when this crawlsim can write checkpoints and restart from them.
cs_restart_supported() {
    case $CRAWLSIM_RESTART in
    yes) return 0 ;;
    no) return 1 ;;
    auto) # the help read whole first: a pipe into grep -q can end the writer with SIGPIPE
        local help
        help=$("$CRAWLSIM" run --help 2> /dev/null) || true
        grep -q -- '--restart' <<< "$help" ;;
    *) cs_die "CRAWLSIM_RESTART='$CRAWLSIM_RESTART': expected auto, yes or no" ;;
    esac
}

cs_file_id() { stat -c '%i %.9Y %s' "$1" 2> /dev/null || echo none; }

# cs_crawl OUT ARGS...: `crawlsim run ARGS -o OUT` on the job's tasks, with checkpoints when the
# engine has them. The checkpoint CRAWLSIM_RESULTS/ckpt/<job id>.h5 keeps its name across a
# requeue (the job id stays), so a requeued job finds it and continues with --restart.
#  * SIGUSR1 (sbatch --signal=B:USR1@60, or scancel --signal=USR1 --batch): forwarded to the ranks,
#    which checkpoint at the next tick boundary; once the new checkpoint is there (at most
#    CRAWLSIM_CKPT_WAIT s) the job requeues itself. Without checkpoints it is only logged.
#  * SIGTERM (preemption, scancel): Slurm signals the ranks itself; the script waits for them.
# On success the checkpoint is removed.
cs_crawl() {
    local out=$1
    shift
    local id=${SLURM_ARRAY_JOB_ID:+${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}}
    local ckpt=$CRAWLSIM_RESULTS/ckpt/${id:-$SLURM_JOB_ID}.h5
    local args=(run "$@" -o "$out") ckpt_on=0
    mkdir -p "$(dirname "$out")" || cs_die "cannot create the folder of $out"
    if cs_restart_supported; then
        ckpt_on=1
        mkdir -p "$(dirname "$ckpt")" || cs_die "cannot create $(dirname "$ckpt")"
        args+=(--set "$CRAWLSIM_CKPT_KEY=$ckpt")
        if [ -s "$ckpt" ]; then
            cs_log "continuing from checkpoint $ckpt"
            args+=(--restart "$ckpt")
        fi
    elif [ -s "$ckpt" ]; then
        cs_log "checkpoint $ckpt exists, but this crawlsim cannot restart (no 'run --restart'): starting from the beginning"
    fi

    CS_SIGNAL=""
    trap 'CS_SIGNAL=USR1' USR1
    trap 'CS_SIGNAL=TERM' TERM
    cs_launch_cmd
    cs_log "${CS_CMD[*]} ${args[*]}"
    "${CS_CMD[@]}" "${args[@]}" &
    local pid=$! rc before waited
    while :; do
        CS_SIGNAL=""
        wait "$pid"
        rc=$?
        case $CS_SIGNAL in
        "") break ;; # the step ended
        TERM) cs_log "SIGTERM: the ranks were signalled by Slurm; waiting for them" ;;
        USR1)
            if [ "$ckpt_on" = 0 ]; then
                cs_log "SIGUSR1: this crawlsim has no checkpoints, the run goes on (it may hit the time limit)"
                continue
            fi
            before=$(cs_file_id "$ckpt")
            cs_log "SIGUSR1: asking the ranks for a checkpoint"
            kill -USR1 "$pid" 2> /dev/null
            waited=0
            while [ "$(cs_file_id "$ckpt")" = "$before" ] && kill -0 "$pid" 2> /dev/null &&
                [ "$waited" -lt "$((CRAWLSIM_CKPT_WAIT * 5))" ]; do
                sleep 0.2
                waited=$((waited + 1))
            done
            if [ "$(cs_file_id "$ckpt")" != "$before" ] && [ -s "$ckpt" ]; then
                cs_log "checkpoint written: requeueing job ${id:-$SLURM_JOB_ID}"
                scontrol requeue "${id:-$SLURM_JOB_ID}" || cs_log "scontrol requeue failed (was the job submitted with --requeue?)"
            else
                cs_log "no new checkpoint after SIGUSR1; the run goes on"
            fi
            ;;
        esac
    done
    # a late SIGUSR1 (the crawl ended just before the time limit) must not kill the job script
    trap 'cs_log "SIGUSR1 outside the crawl: ignored"' USR1
    trap - TERM
    if [ "$rc" -eq 0 ]; then
        [ "$ckpt_on" = 1 ] && rm -f "$ckpt"
        cs_log "results: $out"
    else
        cs_log "crawlsim run ended with status $rc"
    fi
    return "$rc"
}

# cs_sweep_line SPEC N: prints the settings of task N (the N-th combination, from 0) of a sweep
# spec: one combination per line, `section.key=value` words, '#' comments and blank lines skipped.
cs_sweep_line() {
    grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$' | sed -n "$(($2 + 1))p"
}
