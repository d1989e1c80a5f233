#!/usr/bin/env bash
# Benchmark: does METIS on a sampled host graph (run.partition_method = metis-sampled,
# docs/guide/generating.md) pay in a crawl? Not run by ctest. SARSA (asynchronous,
# jobs/quickstart.ini) on the procedural world of PAGES pages (gen.materialize = false), NP
# ranks (2) with one thread each, FETCHES fetches at B = 1000, under host-hash and under
# metis-sampled with each partition.sample of SAMPLES and each partition.balance_relevant of
# BALANCE (environment, default "true false"), all of it REPEAT times (default 1), one run
# after the other (side by side in time). Prints per partition: the set-up time
# (rank 0's log), the partition's share of it (METIS included), the fetch rate
# (/timing/fetch_rate), the bytes the ranks sent each other per fetch (/ranks/bytes_exchanged
# summed over ranks, over /final/fetched: link records, most of it), the largest rank's
# fetches over the mean (/ranks/fetched), and the peak RSS of the largest rank.
# Usage: tests/bench/partition_crawl.sh BUILD_DIR PAGES FETCHES ["SAMPLES"] [NP] [--set ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: partition_crawl.sh BUILD_DIR PAGES FETCHES [\"SAMPLES\"] [NP] [--set ...]}
pages=${2:?PAGES}
fetches=${3:?FETCHES}
samples=${4:-1 4}
np=${5:-2}
shift $(($# < 5 ? $# : 5))
bin=$build/crawlsim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fig() { # FILE -> "fetch_rate bytes_per_fetch fetch_imbalance max_rss_MiB"
    /usr/bin/python3 -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); r=f['/ranks']; \
b=r['bytes_exchanged'][:].sum(); n=f['/final/fetched'][0]; q=r['fetched'][:]; \
print('%.0f %.1f %.2f %.1f' % (f['/timing/fetch_rate'][0], b/n, q.max()*len(q)/q.sum(), \
f['/timing/ranks/peak_rss'][:].max()/2**20))" "$1"
}
run() { # OUT ARGS... -> "set-up seconds, partition seconds"
    local o=$1
    shift
    mpirun -n "$np" --oversubscribe --bind-to none "$bin" run -v "$here/jobs/quickstart.ini" \
        --set gen.world="$here/graphs/classic.ini" --set gen.pages="$pages" --set gen.materialize=false --set run.pages="$fetches" \
        --set crawl.bandwidth=1000 --set run.record_every=1000 "$@" -o "$o" 2>&1 > /dev/null |
        awk '/\(set-up [0-9.]* s\)/ { sub(/.*\(set-up /, ""); sub(/ s\).*/, ""); s = $0 }
             /metis-sampled partition/ { p = $0; sub(/.*metis-sampled partition /, "", p);
                 sub(/ s .*/, "", p) } END { printf "%s %s\n", s, p == "" ? "-" : p }'
}
balance=${BALANCE:-true false}
echo "== SARSA, $np ranks, procedural world of $pages pages, $fetches fetches, B = 1000, $*"
printf "%-22s %9s %11s %11s %15s %13s %9s\n" partition "set-up s" "partition s" "fetches/s" \
    "sent bytes/fetch" "fetch max/mean" "max MiB"
variants=(host-hash)
for p in $samples; do
    for b in $balance; do
        variants+=("$p:$b")
    done
done
for _ in $(seq "${REPEAT:-1}"); do
    for v in "${variants[@]}"; do
        if [ "$v" = host-hash ]; then
            name=host-hash
            read -r su ps <<< "$(run "$out/r.h5" --set run.partition_method=host-hash "$@")"
        else
            name="metis s=${v%%:*} rel=${v##*:}"
            read -r su ps <<< "$(run "$out/r.h5" --set run.partition_method=metis-sampled \
                --set partition.sample="${v%%:*}" --set partition.balance_relevant="${v##*:}" "$@")"
        fi
        read -r fr rpf sh mx <<< "$(fig "$out/r.h5")"
        printf "%-22s %9s %11s %11s %15s %13s %9s\n" "$name" "$su" "$ps" "$fr" "$rpf" "$sh" "$mx"
    done
done
