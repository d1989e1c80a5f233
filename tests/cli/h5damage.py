#!/usr/bin/python3
"""Damage one item of an HDF5 file (a graph, a partition or a checkpoint), for the corruption
tests (tests/cli/test_corrupt_*.sh) and tools/robustness.

    h5damage.py FILE --list                 every dataset: path, type, length
    h5damage.py FILE ITEM KIND [SEED]       damage ITEM in place
    h5damage.py FILE --truncate FRACTION    cut the file to FRACTION of its size

KIND: bytes (random bytes over up to 8 elements), nan (one element NaN: float items),
range (one element far out of range: 2^50, or 1e300 for floats), negative (one element -1:
signed items), short and long (the dataset one element shorter or longer, attributes kept),
missing (the dataset removed), counts (a checkpoint item's counts attribute moved between ranks,
the total kept). Exit 3 when KIND does not apply to ITEM (an empty item, bytes of a string...).
"""
import os
import random
import sys

import h5py
import numpy as np


def items(f):
    out = []
    f.visititems(lambda name, obj: out.append(name) if isinstance(obj, h5py.Dataset) else None)
    return out


def recreate(f, item, n):
    d = f[item]
    data = d[()]
    attrs = {k: v for k, v in d.attrs.items()}
    if n < len(data):
        data = data[:n]
    else:
        data = np.concatenate([data, data[-1:] if len(data) else np.zeros(1, data.dtype)])
    del f[item]
    nd = f.create_dataset(item, data=data, dtype=d.dtype)
    for k, v in attrs.items():
        nd.attrs[k] = v


def damage(path, item, kind, seed):
    rng = random.Random(seed)
    with h5py.File(path, "r+") as f:
        if item not in f or not isinstance(f[item], h5py.Dataset):
            sys.exit("h5damage: %s has no dataset %s" % (path, item))
        d = f[item]
        n = d.shape[0] if d.shape else 1
        kindof = d.dtype.kind
        if kind == "missing":
            del f[item]
            return
        if kind == "counts":
            if "counts" not in d.attrs or len(d.attrs["counts"]) < 2 or d.attrs["counts"][0] < 1:
                sys.exit(3)
            c = d.attrs["counts"].copy()
            c[0] -= 1
            c[-1] += 1
            d.attrs["counts"] = c
            return
        if d.shape == () or n == 0 or kindof not in "iufb":
            sys.exit(3)
        if kind == "short":
            recreate(f, item, n - 1)
            return
        if kind == "long":
            recreate(f, item, n + 1)
            return
        i = rng.randrange(n)
        if kind == "bytes":
            raw = bytearray(d[()].tobytes())
            width = d.dtype.itemsize
            for _ in range(min(8, n)):
                j = rng.randrange(n) * width
                raw[j:j + width] = bytes(rng.randrange(256) for _ in range(width))
            if bytes(raw) == d[()].tobytes():
                raw[0] ^= 0xFF
            d[...] = np.frombuffer(bytes(raw), dtype=d.dtype).reshape(d.shape)
        elif kind == "nan":
            if kindof != "f":
                sys.exit(3)
            d[i] = np.nan
        elif kind == "range":
            d[i] = 1e300 if kindof == "f" else np.iinfo(d.dtype).max if d.dtype.itemsize < 8 else 2**50
        elif kind == "negative":
            if kindof not in "if":
                sys.exit(3)
            d[i] = -1
        else:
            sys.exit("h5damage: unknown kind %s" % kind)


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--list":
        with h5py.File(sys.argv[1], "r") as f:
            for name in items(f):
                d = f[name]
                print(name, d.dtype.str, d.shape[0] if d.shape else 1)
    elif len(sys.argv) == 4 and sys.argv[2] == "--truncate":
        size = os.path.getsize(sys.argv[1])
        os.truncate(sys.argv[1], int(size * float(sys.argv[3])))
    elif len(sys.argv) in (4, 5):
        damage(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 1)
    else:
        sys.exit(__doc__)


main()
