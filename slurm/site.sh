# Site settings for the Slurm scripts: the one file a cluster user adapts.
#
# slurm/submit sources it before calling sbatch (the SBATCH_* variables below are sbatch's own
# input variables: they act like #SBATCH lines, and an option on the sbatch command line still
# wins), and every job script sources it again inside the job (modules, binary, launcher).
# Plain `sbatch slurm/run.sbatch ...` works too after `source slurm/site.sh` in the shell.
# Every setting can also be given in the environment (the environment wins over this file).

# ---- where and how long: sbatch defaults (empty = the cluster's default) -----------------------
site_account=""          # -A/--account, e.g. "proj123"
site_partition=""        # -p/--partition, e.g. "compute"
site_time="01:00:00"     # -t/--time of every job (HH:MM:SS); a crawl longer than this is
                         # checkpointed 60 s before the limit and requeued (see run.sbatch)
site_qos=""              # --qos
site_constraint=""       # -C/--constraint, e.g. "avx512"

[ -n "$site_account" ] && export SBATCH_ACCOUNT=${SBATCH_ACCOUNT:-$site_account}
[ -n "$site_partition" ] && export SBATCH_PARTITION=${SBATCH_PARTITION:-$site_partition}
[ -n "$site_time" ] && export SBATCH_TIMELIMIT=${SBATCH_TIMELIMIT:-$site_time}
[ -n "$site_qos" ] && export SBATCH_QOS=${SBATCH_QOS:-$site_qos}
[ -n "$site_constraint" ] && export SBATCH_CONSTRAINT=${SBATCH_CONSTRAINT:-$site_constraint}

# ---- software inside the job ------------------------------------------------------------------
# Load what crawlsim was built with, if the cluster uses modules, e.g.:
#   module load gcc/12 openmpi/4.1 hdf5/1.10-mpi metis
# The repository (the folder above slurm/) and the crawlsim binary built by tools/build:
CRAWLSIM_ROOT=${CRAWLSIM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
CRAWLSIM=${CRAWLSIM:-$CRAWLSIM_ROOT/build/crawlsim}
# Results, logs and checkpoints go below this folder (on a cluster: a shared file system that the
# compute nodes see, e.g. /scratch/$USER/crawlsim):
CRAWLSIM_RESULTS=${CRAWLSIM_RESULTS:-$CRAWLSIM_ROOT/results}

# ---- launching ranks x threads ----------------------------------------------------------------
# srun (Slurm starts the ranks; Open MPI through PMIx) or mpirun (Open MPI reads the allocation).
CRAWLSIM_LAUNCHER=${CRAWLSIM_LAUNCHER:-srun}
# Binding. OMP_NUM_THREADS is set to --cpus-per-task. Each rank must own its T cores, or its
# threads share one core:
#   srun:   --cpu-bind=cores binds each rank to its --cpus-per-task cores (with task/affinity or
#           task/cgroup; where the cluster has no task plugin, srun does not bind at all).
#   mpirun: --map-by slot:PE=T --bind-to core gives each rank T cores (the default below);
#           "none" uses --bind-to none instead (the OS places threads; use it when PE=T fails,
#           e.g. when the allocation's cores are hyperthreads: then add --use-hwthread-cpus).
CRAWLSIM_SRUN_FLAGS=${CRAWLSIM_SRUN_FLAGS:---cpu-bind=cores}
CRAWLSIM_MPIRUN_BIND=${CRAWLSIM_MPIRUN_BIND:-pe}     # pe | none
CRAWLSIM_MPIRUN_FLAGS=${CRAWLSIM_MPIRUN_FLAGS:-}     # extra flags, e.g. "--mca btl ^openib"
# Thread placement inside a rank (hybrid runs: one rank per node or per socket, T threads each):
# "auto" exports OMP_PLACES=cores OMP_PROC_BIND=close when a rank has more than one thread and
# the launcher binds the ranks (srun with --cpu-bind=cores, mpirun with pe), unless OMP_PROC_BIND
# is set already; "no" leaves placement to the OpenMP runtime. Threads of unbound ranks must not
# be pinned (they would land on the same cores): crawlsim warns when that happens (srun without
# a task plugin does not bind), and when ranks x threads on a node exceed its cores.
CRAWLSIM_OMP_BIND=${CRAWLSIM_OMP_BIND:-auto}         # auto | no

# ---- checkpoint and restart (used by run.sbatch and sweep.sbatch) ---------------------------------
# auto: use checkpoints when `crawlsim run --help` offers --restart; yes / no: force.
CRAWLSIM_RESTART=${CRAWLSIM_RESTART:-auto}
# The job key that names the checkpoint file the engine writes (passed with --set).
CRAWLSIM_CKPT_KEY=${CRAWLSIM_CKPT_KEY:-run.checkpoint}
# After forwarding SIGUSR1, wait at most this many seconds for the new checkpoint, then requeue.
CRAWLSIM_CKPT_WAIT=${CRAWLSIM_CKPT_WAIT:-50}
