#!/usr/bin/env bash
# tools/bench: the benchmark harness. docs/performance.md's figures and docs/reports/bench.md are
# what `tools/bench report` makes from docs/reports/bench/results.tsv (fails when a page was
# edited by hand or the table changed without the pages); `tools/bench run --quick` runs a
# benchmark at a toy size and appends rows with every column (date, commit, machine, load,
# benchmark, figure, value, unit, command); quick rows stay out of the pages.
source "$(dirname "$0")/lib.sh"
bench="$SRC/tools/bench"
build=$(dirname "$BIN")

# 1. the committed pages are the committed table's
if python3 "$bench" report --check > check.log 2>&1; then
    pass "docs/performance.md and docs/reports/bench.md match docs/reports/bench/results.tsv"
else
    fail "generated pages differ from the table (run tools/bench report): $(cat check.log)"
fi

# 2. a quick run appends complete rows; the report of a table of quick rows alone shows none
if [ -x "$build/tests/bench_rng" ]; then
    if python3 "$bench" run --quick --build "$build" --table t.tsv rng > run.log 2>&1; then
        pass "tools/bench run --quick rng"
    else
        fail "tools/bench run --quick rng: $(cat run.log)"
    fi
    python3 - t.tsv << 'PY' > rows.log 2>&1 && pass "$(cat rows.log)" || fail "$(cat rows.log)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
cols = ["date", "commit", "machine", "load", "bench", "figure", "value", "unit", "command"]
assert rows, "no rows"
for r in rows:
    assert list(r) == cols, f"columns {list(r)}"
    assert all(r[c] for c in cols), f"empty cell in {r}"
    float(r["value"]), float(r["load"])
    assert r["bench"] == "rng (quick)" and "bench_rng" in r["command"], r
print(f"{len(rows)} rows with every column")
PY
    if python3 "$bench" report --table t.tsv --out out > rep.log 2>&1 &&
        grep -q "No measurement yet" out/docs/reports/bench.md &&
        ! grep -q "u64 draws" out/docs/performance.md; then
        pass "quick rows stay out of the pages"
    else
        fail "quick rows in the pages: $(cat rep.log; head -30 out/docs/reports/bench.md)"
    fi
else
    pass "no bench_rng in $build (CRAWLSIM_BENCH=OFF): the run is not checked"
fi

# 3. a hand edit of a figure is found
mkdir -p copy/docs/reports copy/tools
cp -r "$SRC/docs/reports/bench" copy/docs/reports/
cp "$SRC/docs/reports/bench.md" copy/docs/reports/
cp "$bench" copy/tools/bench
cp "$SRC/docs/performance.md" copy/docs/performance.md
python3 copy/tools/bench report --check > same.log 2>&1 || fail "the copy's check fails unedited: $(cat same.log)"
sed 's/^\(| [^|]* | \*\*\)[0-9]/\19/' "$SRC/docs/performance.md" > copy/docs/performance.md
if cmp -s copy/docs/performance.md "$SRC/docs/performance.md"; then
    fail "could not edit a figure of docs/performance.md for the check"
elif python3 copy/tools/bench report --check > edit.log 2>&1; then
    fail "tools/bench report --check accepts a hand-edited figure"
else
    pass "a hand-edited figure is found"
fi
finish
