"""The part the point benchmarks share (frontier_cap.py, frontier_codes.py): points given as
PAGES:FETCHES:CAP, a table of one row per measured point (TSV, a header line first) and the
loop that measures the points and appends their rows."""
import argparse
import os
import sys
import tempfile

NONE = 2000000000  # a capacity of "none": above any frontier these benchmarks reach


def num(s):
    return NONE if s == "none" else int(float(s))


def points(s):
    out = []
    for p in s.split(","):
        f = p.split(":")
        if len(f) != 3:
            raise argparse.ArgumentTypeError(f"'{p}' is not PAGES:FETCHES:CAP")
        out.append((int(float(f[0])), int(float(f[1])), num(f[2])))
    return out


def power(n):
    n = int(n)
    if n == NONE:
        return "none"
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10 ** e else f"{n:,}".replace(",", " ")


def read_table(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))
    return rows


def measure(a, name, cols, run_point, describe):
    """Runs run_point(a, pages, fetches, cap, tmp) for each of a.points, appends each row (a
    dict over cols) to a.table and prints describe(row); 1 when a point fails, else 0."""
    os.makedirs(os.path.dirname(os.path.abspath(a.table)), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for pages, fetches, cap in a.points:
            try:
                row = run_point(a, pages, fetches, cap, tmp)
            except RuntimeError as e:
                print(f"{name}: {e}", file=sys.stderr)
                return 1
            new = not os.path.exists(a.table)
            with open(a.table, "a") as f:
                if new:
                    f.write("\t".join(cols) + "\n")
                f.write("\t".join(str(row[c]) for c in cols) + "\n")
            print(f"point {pages} {fetches} {cap}: {describe(row)}", flush=True)
    return 0
