#!/usr/bin/env bash
# The hostile-file generator's quick sample (tools/hostile --quick): damaged variants of every
# input file kind (graph, partition, checkpoint and results files at the level of HDF5 objects;
# job files, edge lists, page tables, seed files and BVGraph properties in their line endings
# and encodings) run through every reader of the kind at 1 and 3 ranks, the cases that found
# defects always among them. Every case must end in a clean error naming the file or in the
# result the undamaged input gives (tools/hostile's classes); anything else fails the test and
# is listed with its folder under WORK/cases. CI runs it on the ASan build.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import h5py, numpy" 2> /dev/null || skip "python3-h5py is not installed"
if "$SRC/tools/hostile" --build "$(dirname "$BIN")" --out "$WORK/hostile" --quick \
    --timeout "${FAULT_TIMEOUT:-90}"; then
    pass "every case of the quick sample is a clean error or a valid result"
else
    fail "tools/hostile --quick: cases neither clean nor valid (above; folders in $WORK/hostile/cases)"
fi
finish
