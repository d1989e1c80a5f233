#!/usr/bin/env bash
# The named worlds (docs/guide/generating.md#the-worlds, docs/guide/job-files.md#naming-a-world):
# graphs/classic.ini is the built-in default world bit for bit (the graph file it gives equals
# the one no spec gives, spec attribute included) and writes every [gen] key; gen.world names a
# spec whose [gen] keys the file's own keys and --set override wherever they stand, the name is
# not written back (a job naming the world gives the results of the job listing its keys), and
# a missing or looping world is a clear error; graphs/default.ini's topical lift is within the
# band of its target (wikispeedia's 2.5) and its world scales to 10^9 pages procedurally.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader
classic=$SRC/graphs/classic.ini

# 1. classic.ini = the built-in defaults, at 1 and 3 ranks
for np in 1 3; do
    run $np -q gen --set gen.pages=30000 -o builtin$np.h5 > /dev/null 2>&1 || fail "gen without a spec"
    run $np -q gen "$classic" --set gen.pages=30000 -o classic$np.h5 > /dev/null 2>&1 ||
        fail "gen classic.ini"
    if compare builtin$np.h5 classic$np.h5; then
        pass "np $np: graphs/classic.ini gives the built-in world, spec attribute included"
    else
        fail "np $np: classic.ini differs from the built-in world: $(head -4 <<< "$compared")"
    fi
done
want=$("$BIN" help config gen | sed -n 's/^  \([a-z_][a-z_]*\)  *[a-z][a-z]* .*/\1/p' |
    grep -vx world | sort)
have=$(sed -n '/^\[gen\]/,/^\[/s/^\([a-z_][a-z_]*\) *=.*/\1/p' "$classic" | sort)
if [ -n "$want" ] && [ "$want" = "$have" ]; then
    pass "classic.ini writes every [gen] key ($(wc -l <<< "$have") keys)"
else
    fail "classic.ini's keys differ from crawlsim help config gen's: $(diff <(echo "$want") <(echo "$have") | head -5)"
fi

# 2. gen.world: the file's own keys win wherever they stand, --set wins over both
printf '[gen]\npages = 30000\nworld = %s\nseed = 7\n' "$classic" > before.ini
run 1 -q gen before.ini -o named.h5 > /dev/null 2>&1 || fail "gen of a spec naming a world"
run 1 -q gen --set gen.pages=30000 --set gen.seed=7 -o direct.h5 > /dev/null 2>&1 || fail "gen seed 7"
compare named.h5 direct.h5 && pass "a key before or after world overrides the world's" ||
    fail "world did not yield to the file's keys: $(head -4 <<< "$compared")"
run 1 -q gen before.ini --set gen.seed=1 -o named1.h5 > /dev/null 2>&1 || fail "gen --set"
compare named1.h5 builtin1.h5 && pass "--set overrides the world and the file" ||
    fail "--set did not override: $(head -4 <<< "$compared")"
run 1 -q gen --set gen.world="$SRC/graphs/tiny.ini" -o tinyw.h5 > /dev/null 2>&1 || fail "--set gen.world"
run 1 -q gen "$SRC/graphs/tiny.ini" -o tiny.h5 > /dev/null 2>&1 || fail "gen tiny.ini"
compare tinyw.h5 tiny.h5 && pass "--set gen.world names a world without a job file" ||
    fail "--set gen.world: $(head -4 <<< "$compared")"

# a job naming the world and the same job listing the world's keys: the same results, /config too
job=(--set run.pages=300 --set crawl.bandwidth=10 --set gen.pages=20000)
grep -v '^world = ' "$SRC/jobs/han-fidelity.ini" > listed.ini
sed -n '/^\[gen\]/,$p' "$classic" | grep -v '^\[gen\]' > keys.txt
awk -v keys=keys.txt '{ print } /^\[gen\]/ { while ((getline l < keys) > 0) print l }' listed.ini > listed2.ini
run 2 -q run "$SRC/jobs/han-fidelity.ini" "${job[@]}" -o job_named.h5 > /dev/null 2>&1 || fail "han-fidelity"
run 2 -q run listed2.ini "${job[@]}" -o job_listed.h5 > /dev/null 2>&1 || fail "han-fidelity, keys listed"
compare job_named.h5 job_listed.h5 && pass "a job naming classic.ini = the job listing its keys" ||
    fail "naming a world changed the job's results: $(head -4 <<< "$compared")"

# errors: a missing world, a world naming itself
printf '[gen]\nworld = nowhere.ini\n' > missing.ini
expect_exit 1 1 "cannot open 'nowhere.ini'|nowhere.ini" gen missing.ini -o x.h5
printf '[gen]\nworld = loop.ini\n' > loop.ini
expect_exit 1 1 "nested more than 8 deep" gen loop.ini -o x.h5

# 3. the web-like default world: topical lift within [2.0, 3.0] (target 2.5, wikispeedia's; 2.50
# measured exactly on its 10^6 pages), from 2 x 10^4 sampled pages (95 % interval about +-0.1)
st=$(run 2 stats "$SRC/graphs/default.ini" --sampled --sample 20000 --sources 0 --cluster-pages 0 \
    --bfs-seeds 0 2> /dev/null) || fail "stats of graphs/default.ini"
lift=$(sed -n 's/^topical lift  *\([0-9.]*\).*/\1/p' <<< "$st")
if [ -n "$lift" ] && awk -v l="$lift" 'BEGIN { exit !(l >= 2.0 && l <= 3.0) }'; then
    pass "graphs/default.ini: topical lift $lift within [2.0, 3.0]"
else
    fail "graphs/default.ini: topical lift ${lift:-?} outside [2.0, 3.0]"
fi
# its 10^9-page world, procedural: crawlsim info from a sample
out=$(run 2 info "$SRC/graphs/default.ini" --set gen.pages=1000000000 --sample 2000 2>&1) &&
    grep -q "^pages 1000000000" <<< "$out" && pass "graphs/default.ini at 10^9 pages: crawlsim info" ||
    fail "graphs/default.ini at 10^9 pages: $(tail -3 <<< "$out")"
finish
