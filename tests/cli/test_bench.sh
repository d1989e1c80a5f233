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

# 2. a quick run appends complete rows; the report of a table of quick rows alone shows none.
# bench_ftier's quick run also compares the picks of its two index settings (exit 1 if differ)
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
    if python3 "$bench" run --quick --build "$build" --table f.tsv ftier > ftier.log 2>&1 &&
        [ "$(grep -c "frontier tick" f.tsv)" = 3 ]; then
        pass "tools/bench run --quick ftier: the same picks in tiers, three figures"
    else
        fail "tools/bench run --quick ftier: $(cat ftier.log)"
    fi
else
    pass "no bench_rng in $build (CRAWLSIM_BENCH=OFF): the run is not checked"
fi

# 3. a hand edit of a figure is found
mkdir -p copy/docs/reports copy/tools
cp -r "$SRC/docs/reports/bench" copy/docs/reports/
cp "$SRC/docs/reports/bench.md" "$SRC/docs/reports/per-link.md" "$SRC/docs/reports/cost-curve.md" \
    copy/docs/reports/
cp "$bench" copy/tools/bench
cp "$SRC/docs/performance.md" copy/docs/performance.md
mkdir -p copy/docs/guide
cp "$SRC"/docs/guide/*.md copy/docs/guide/
python3 copy/tools/bench report --check > same.log 2>&1 || fail "the copy's check fails unedited: $(cat same.log)"
sed 's/^\(| [^|]* | \*\*\)[0-9]/\19/' "$SRC/docs/performance.md" > copy/docs/performance.md
if cmp -s copy/docs/performance.md "$SRC/docs/performance.md"; then
    fail "could not edit a figure of docs/performance.md for the check"
elif python3 copy/tools/bench report --check > edit.log 2>&1; then
    fail "tools/bench report --check accepts a hand-edited figure"
else
    pass "a hand-edited figure is found"
fi
cp "$SRC/docs/performance.md" copy/docs/performance.md
echo "| an added line |" >> copy/docs/reports/per-link.md
if python3 copy/tools/bench report --check > edit2.log 2>&1; then
    fail "tools/bench report --check accepts a hand-edited per-link report"
else
    pass "a hand edit of the per-link report is found"
fi
cp "$SRC/docs/reports/per-link.md" copy/docs/reports/per-link.md

# 3b. the guides' "how fast" lines are the table's too: a hand-edited value, and a line whose
# markers were removed, are found
if ! grep -q '^<!-- bench:line crawl: ' "$SRC/docs/guide/running.md"; then
    fail "docs/guide/running.md has no generated how-fast line (bench:line crawl)"
fi
sed 's/^\(\*\*How fast\..*\*\*\)\([0-9]\)/\18\2/' "$SRC/docs/guide/running.md" > copy/docs/guide/running.md
if cmp -s copy/docs/guide/running.md "$SRC/docs/guide/running.md"; then
    fail "could not edit the how-fast line of docs/guide/running.md for the check"
elif python3 copy/tools/bench report --check > edit3.log 2>&1; then
    fail "tools/bench report --check accepts a hand-edited how-fast line"
else
    pass "a hand-edited how-fast line of a guide is found"
fi
grep -v '^<!-- bench:line' "$SRC/docs/guide/running.md" > copy/docs/guide/running.md
if python3 copy/tools/bench report --check > edit4.log 2>&1; then
    fail "tools/bench report --check accepts a guide without its how-fast line's markers"
elif grep -q 'no bench line marker of crawl' edit4.log; then
    pass "a guide without its how-fast line's markers is found"
else
    fail "a guide without its markers: $(cat edit4.log)"
fi
cp "$SRC/docs/guide/running.md" copy/docs/guide/running.md

# 4. the cost curve's table and the per-link report are made from the table's rows: a table
# of made-up rows (latency 100 ns, 2 accesses a link, 1 000 ns a link against 600 on the small
# world, 25 bytes at 10 GB/s, 5 000 instructions a link) gives the bounds 200 ns and 2.5 ns, the
# ratios 5 and 400, 5 instructions per ns, and a point with evictions is reached, one without
# is not, at half the rate of the smallest capacity
python3 - table.tsv << 'PY'
import csv, sys
cols = ["date", "commit", "machine", "load", "bench", "figure", "value", "unit", "command"]
rows = []
def row(bench, fig, value, unit):
    rows.append(dict(zip(cols, ["2026-01-01 00:00", "abc", "test machine", "0.1", bench, fig,
                                str(value), unit, "cmd " + bench])))
for f, v, u in [("memory latency", 100, "ns"), ("memory latency, 2 MiB pages", 80, "ns"),
                ("independent random read", 10, "ns"), ("stream read", 10, "GB/s")]:
    row("memory", f, v, u)
for bench, pages, ns in [("perlink", 1e9, 1000), ("perlink-small", 1e6, 600)]:
    for f, v, u in [("world pages", pages, "pages"), ("links per fetched page", 20, "links"),
                    ("cross-host share of links", 0.2, ""), ("generation", ns / 2, "ns/link"),
                    ("target host", 0, "ns/link"), ("evidence", ns / 2, "ns/link"),
                    ("per-link work", ns, "ns/link"), ("random accesses per link", 2, "accesses"),
                    ("random accesses per link beyond the row cache", 1, "accesses"),
                    ("sequential bytes per link", 25, "bytes")]:
        row(bench, f, v, u)
for f, v in [("instructions per link", 5000), ("D1 read misses per link", 1.5),
             ("LL read misses per link", 0.9)]:
    row("perlink-cachegrind", f, v, "instructions" if f.startswith("instr") else "misses")
for cap, ev in [(100000, 5), (1000000, 0)]:
    lab = "10^5" if cap == 100000 else "10^6"
    for f, v, u in [("fetches/s (second half)", 12345 if ev else 6172.5, "fetches/s"),
                    ("frontier peak", min(cap, 300000), "entries"), ("evictions", ev, "entries"),
                    ("peak memory over the ranks", 700, "MiB"), ("wall", 10, "s")] + (
                    [] if ev else [("records per fetch", 17.5, "records"),
                                   ("frontier phases per fetch", 2.5, "us"),
                                   ("crawl per record", 0.7, "us")]):
        row("cost-curve", f"10^8 pages, capacity {lab}: {f}", v, u)
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), cols, delimiter="\t", lineterminator="\n")
w.writeheader()
w.writerows(rows)
PY
if python3 "$bench" report --table table.tsv --out gen > gen.log 2>&1; then
    pl=gen/docs/reports/per-link.md
    perf=gen/docs/reports/cost-curve.md
    if grep -q '| latency: 2 random accesses one after another at 100 ns | 200 | \*\*5\*\* |' $pl &&
        grep -q '| bandwidth: 25 bytes streamed at 10 GB/s | 2.5 | \*\*400\*\* |' $pl &&
        grep -q 'adds \*\*400 ns\*\* a link (40 % of the per-link work)' $pl &&
        grep -q "| random accesses (the row cache's included: it exceeds that cache too) | 2 | last-level read misses 0.9 |" $pl &&
        grep -q 'retires \*\*5 instructions per ns\*\*' $pl &&
        grep -q '| 10^8 | 10^5 | 1.000e6 | \*\*12 300\*\* | 1.000e5 | yes | 700 MiB | 2026-01-01 |  |' $perf &&
        grep -q '| 10^8 | 10^6 | 1.000e6 | \*\*6 170\*\* | 3.000e5 | no | 700 MiB | 2026-01-01 | 0.5 | 17.5 | 2.5 us | 0.7 us |' $perf; then
        pass "the per-link ratios and the cost curve's table come from the rows"
    else
        fail "per-link report or cost curve not as the rows give: $(cat $pl; grep -A6 'cost curve' $perf)"
    fi
else
    fail "tools/bench report of made-up rows: $(cat gen.log)"
fi

# 5. compare: the same build twice, alternating, records one NEW/OLD ratio per figure
if [ -x "$build/tests/bench_rng" ]; then
    if python3 "$bench" compare rng --quick --build "$build" --build "$build" --reps 2 \
        --table c.tsv --record > cmp.log 2>&1 &&
        [ "$(grep -c 'run . of 2 with' cmp.log)" = 4 ] &&
        [ "$(grep -c $'rng (compare) (quick)\t.*\tNEW/OLD\t' c.tsv)" = 4 ]; then
        pass "tools/bench compare alternates the builds and records the ratios"
    else
        fail "tools/bench compare: $(cat cmp.log; cat c.tsv)"
    fi
    # --args: the words reach the benchmark's command and its rows
    if python3 "$bench" run --quick --build "$build" --table a.tsv rng --args '7' > args.log 2>&1 &&
        [ "$(cut -f9 a.tsv | tail -1)" = "build/tests/bench_rng 1e5 7" ]; then
        pass "tools/bench run --args appends to the command"
    else
        fail "tools/bench run --args: $(cat args.log; cut -f9 a.tsv)"
    fi
fi
finish
