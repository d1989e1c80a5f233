#!/usr/bin/env bash
# Bad input everywhere: a clear message once from rank 0, the same non-zero exit on every
# rank, no hang, no partial output file.
source "$(dirname "$0")/lib.sh"
FAULT_CLASS=bad-input

# command line (exit 2)
expect_exit 2 1 "no command"
expect_exit 2 2 "unknown command 'frobnicate'" frobnicate
expect_exit 2 2 "unknown option '--frob'" gen --frob
expect_exit 2 2 "needs an output file" gen "$SRC/graphs/tiny.ini"
expect_exit 2 1 "no config section" help config nosuch
expect_exit 0 1 "" --help
expect_exit 0 2 "" gen --help
expect_exit 0 1 "" help config

# job files (exit 1, naming file and line or key)
printf '[gen]\npages = 100\ndegre_mean = 3\n' > typo.ini
expect_exit 1 2 "typo.ini:3: unknown key 'gen.degre_mean'; did you mean 'gen.degree_mean'" gen typo.ini -o typo.h5
printf '[gen]\npages = lots\n' > type.ini
expect_exit 1 2 "type.ini:2: gen.pages = 'lots' is not an integer" gen type.ini -o type.h5
printf '[gen]\npages = -10\n' > neg.ini
expect_exit 1 4 "neg.ini:2: gen.pages = -10 is outside" gen neg.ini -o neg.h5
printf '[gen]\npages = 1e12\n' > absurd.ini
expect_exit 1 2 "absurd.ini:2: gen.pages = 1000000000000 is outside" gen absurd.ini -o absurd.h5
printf '[gen]\np_host = 0.8\np_topic = 0.5\n' > sum.ini
expect_exit 1 2 "p_host \+ gen.p_topic" gen sum.ini -o sum.h5
printf '\x00\x01garbage' > binary.ini
expect_exit 1 2 "not an INI text file" gen binary.ini -o bin.h5
expect_exit 1 2 "cannot open 'missing.ini'" gen missing.ini -o missing.h5
# issue 20: a comment longer than inih's 200-byte line buffer is one line, never a comment and
# then a key "pages = 7"; a FIFO is refused (reading it blocked for ever)
printf '[gen]\npages = 300\n# %s pages = 7\n' "$(printf 'z%.0s' {1..250})" > longc.ini
if run 2 gen longc.ini -o longc.h5 -q && grep -qx "pages 300" <(run 1 info longc.h5); then
    pass "a long comment is ignored whole"
else
    fail "a long comment: $(run 1 info longc.h5 2>&1 | grep '^pages')"
fi
rm -f longc.h5
mkfifo job.fifo
expect_exit 1 2 "'job.fifo' is not a regular file" gen job.fifo -o fifo.h5
# the same for the importer's edge files and schedule's page table (opened without blocking)
printf '[import]\nedges = job.fifo\nhosts = per-page\n' > fifo-import.ini
expect_exit 1 2 "input 'job.fifo' is not a regular file" import fifo-import.ini -o fifo-imp.h5
expect_exit 1 1 "page table 'job.fifo' is not a regular file" schedule --policy uniform \
    --bandwidth 1 --input job.fifo -o fifo.csv
expect_exit 1 2 "--set: unknown key 'gen.pagez'; did you mean 'gen.pages'" gen -o s.h5 --set gen.pagez=5
expect_exit 2 2 "expected section.key=value" gen -o s.h5 --set pages=5
expect_exit 1 2 "impossible" gen -o imp.h5 --set gen.pages=1000 --set gen.degree_alpha=1.5 --set gen.degree_mean=2 --set gen.degree_max=1000000
no_leftovers "*.h5"

# output that cannot be written: nothing left behind, error on every rank
expect_exit 1 2 "" gen "$SRC/graphs/tiny.ini" -o /nonexistent-dir/x.h5
# (as root, which is how CI runs, permission bits stop nothing: a read-only mount where this
# machine lets the test make one, and always a path under a regular file, which nobody can create)
mkdir ro
if [ "$(id -u)" -ne 0 ]; then
    chmod 555 ro
    expect_exit 1 2 "cannot create graph file ro/x.h5: directory ro: Permission denied" gen "$SRC/graphs/tiny.ini" -o ro/x.h5
elif mount -t tmpfs -o size=64k,ro tmpfs ro 2> /dev/null; then
    expect_exit 1 2 "cannot create graph file ro/x.h5: directory ro: Read-only file system" gen "$SRC/graphs/tiny.ini" -o ro/x.h5
    umount ro
else
    echo "note: running as root without mount: the read-only directory case is left to the next"
fi
touch plain
expect_exit 1 2 "cannot create graph file plain/x.h5: plain is not a directory" gen "$SRC/graphs/tiny.ini" -o plain/x.h5

# the SMPI build's cost model is refused by a build of real ranks (exit 1)
CRAWLSIM_SMPI_COSTS=1,1,1,1,1 expect_exit 1 2 "read by the SMPI build only" run "$SRC/graphs/tiny.ini" \
    --set run.pages=100 -o smpicost.h5

# graph files (exit 1)
expect_exit 1 2 "missing.h5" info missing.h5
printf 'this is not HDF5\n' > text.h5
expect_exit 1 2 "text.h5" info text.h5
run 1 gen "$SRC/graphs/tiny.ini" -o good.h5 -q || fail "gen good.h5"
head -c 100000 good.h5 > truncated.h5
expect_exit 1 2 "truncated.h5" info truncated.h5
if [ "$(id -u)" -ne 0 ]; then # (root reads any file)
    cp good.h5 locked.h5 && chmod 000 locked.h5
    expect_exit 1 2 "graph file locked.h5: Permission denied" info locked.h5
fi
cp good.h5 old.h5
if h5modify_ok=$(command -v python3) && python3 -c "import h5py" 2>/dev/null; then
    python3 -c "import h5py; f=h5py.File('old.h5','r+'); f.attrs['schema_version']=0; f.close()"
    expect_exit 1 2 "schema version 0" info old.h5
fi
finish
