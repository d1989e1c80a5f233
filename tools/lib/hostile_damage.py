"""Damaged variants of crawlsim's input files, for tools/hostile.

HDF5 files (graph, partition, checkpoint, results) are damaged at the level of their objects with
h5py: an attribute or a dataset of another type class, size, sign or byte order, another shape or
dataspace (scalar, null, 2-D, empty, one element short or long), an attribute stored as an array,
a huge or negative count, a dataset of 2^33 elements of which one chunk is stored (a sparse
dataset: a small file claiming a huge count), an object replaced by a group, a dangling soft or
external link, a hard link to another object, a compound or string type, and the file cut short.
Text files (job files, edge lists, page tables, seed files, BVGraph properties) get other line
endings (CRLF, CR only, mixed), encodings (UTF-8 BOM, UTF-16, Latin-1 bytes), a NUL byte, no final
line end, an empty file, a 1 MB line and a last line cut after its first field.

Every variant is (name, function, preserves): function(path) damages the file in place; preserves
is True when the variant keeps what the file means (a readers must then give the same result as
on the original), False when it changes it (an error is expected, or a result that differs).
"""
import os

import h5py
import numpy as np

SPARSE = 2**33
# datasets damaged per file (an even stride of them when a file holds more)
MAX_DATASETS = 16
TRUNCATE = [0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99]


def _objects(path):
    """(attributes, datasets, groups) of an HDF5 file: [(object path, attribute name, kind)],
    [(dataset path, kind)], [group path]; kind is the numpy dtype kind ('S', 'O', 'i', ...)."""
    attrs, dsets, groups = [], [], []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                dsets.append(("/" + name, obj.dtype.kind))
            elif isinstance(obj, h5py.Group):
                groups.append("/" + name)
            for k in obj.attrs:
                attrs.append(("/" + name, k, _attr_kind(obj, k)))
        for k in f.attrs:
            attrs.append(("/", k, _attr_kind(f, k)))
        f.visititems(visit)
    if len(dsets) > MAX_DATASETS:
        # (checkpoints and results hold a hundred datasets alike: an even stride of them, with
        # their attributes)
        step = -(-len(dsets) // MAX_DATASETS)
        dsets = dsets[::step]
        keep = {"/"} | set(groups) | {x for x, _ in dsets}
        attrs = [a for a in attrs if a[0] in keep]
    return attrs, dsets, groups


def _attr_kind(obj, name):
    t = obj.attrs.get_id(name).dtype
    return "S" if t.kind in "SOU" else t.kind


def _attr_set(path, obj, name, value, dtype=None):
    with h5py.File(path, "r+") as f:
        o = f[obj]
        if name in o.attrs:
            del o.attrs[name]
        if value is not None:
            o.attrs.create(name, value, dtype=dtype)


def attr_value(path, obj, name):
    """The value of attribute name of object obj in the file at path, as a numpy array."""
    with h5py.File(path, "r") as f:
        return np.asarray(f[obj].attrs[name])


def attr_variants(path):
    """The attribute damages of every attribute of the file at path."""
    out = []
    for obj, name, kind in _objects(path)[0]:
        tag = "attr %s%s%s" % (obj, "" if obj == "/" else "/", name)

        def mk(fn, o=obj, n=name):
            return lambda p: fn(p, o, n)
        out.append((tag + " missing", mk(lambda p, o, n: _attr_set(p, o, n, None)), False))
        out.append((tag + " null-dataspace",
                    mk(lambda p, o, n: _attr_set(p, o, n, h5py.Empty("i8"))), False))
        out.append((tag + " array2", mk(_attr_array2), False))
        out.append((tag + " 2-d", mk(_attr_2d), False))
        if kind == "S":
            out.append((tag + " integer", mk(lambda p, o, n: _attr_set(p, o, n, np.int64(1))),
                        False))
            out.append((tag + " vlen2", mk(lambda p, o, n: _attr_set(
                p, o, n, ["a", "b"], h5py.string_dtype())), False))
            out.append((tag + " strings4000", mk(lambda p, o, n: _attr_set(
                p, o, n, np.array([b"x" * 8] * 4000))), False))
            out.append((tag + " long-string", mk(lambda p, o, n: _attr_set(
                p, o, n, np.bytes_(b"y" * 60000))), False))
        else:
            out.append((tag + " string", mk(lambda p, o, n: _attr_set(p, o, n, np.bytes_(b"1"))),
                        False))
            out.append((tag + " huge", mk(_attr_huge), False))
            if name != "target_topic":  # (-1 is its value for "no target topic")
                out.append((tag + " negative", mk(_attr_negative), False))
            out.append((tag + " float-class", mk(_attr_float), False))
            out.append((tag + " big-endian", mk(_attr_bigendian), True))
    return out


def _attr_array2(p, o, n):
    v = np.asarray(attr_value(p, o, n))
    _attr_set(p, o, n, np.concatenate([v.reshape(-1), v.reshape(-1)]))


def _attr_2d(p, o, n):
    v = np.asarray(attr_value(p, o, n))
    _attr_set(p, o, n, v.reshape(1, -1))


def _attr_huge(p, o, n):
    v = np.asarray(attr_value(p, o, n))
    _attr_set(p, o, n, np.full(v.shape, 2**62, dtype=np.int64))


def _attr_negative(p, o, n):
    v = np.asarray(attr_value(p, o, n))
    _attr_set(p, o, n, np.full(v.shape, -1, dtype=np.int64))


def _attr_float(p, o, n):
    v = np.asarray(attr_value(p, o, n))
    _attr_set(p, o, n, v.astype(np.float64) + 0.5)


def _attr_bigendian(p, o, n):
    v = np.asarray(attr_value(p, o, n))
    _attr_set(p, o, n, v.astype(v.dtype.newbyteorder(">")))


def _recreate(p, d, data=None, shape=None, dtype=None, **kw):
    """Dataset d replaced by one of the given data (or shape and dtype), its attributes kept."""
    with h5py.File(p, "r+") as f:
        old = f[d]
        attrs = {k: old.attrs[k] for k in old.attrs}
        del f[d]
        if data is not None:
            nd = f.create_dataset(d, data=data, dtype=dtype, **kw)
        else:
            nd = f.create_dataset(d, shape=shape, dtype=dtype, **kw)
        for k, v in attrs.items():
            nd.attrs[k] = v
        return nd.name


def _data(p, d):
    with h5py.File(p, "r") as f:
        return f[d][()]


def dataset_variants(path):
    """The dataset damages of every dataset of the file at path."""
    out = []
    attrs, dsets, groups = _objects(path)
    for d, kind in dsets:
        tag = "dataset " + d

        def mk(fn, dd=d):
            return lambda p: fn(p, dd)
        out.append((tag + " missing", mk(_d_missing), False))
        out.append((tag + " group", mk(_d_group), False))
        out.append((tag + " dangling-soft-link", mk(_d_softlink), False))
        out.append((tag + " external-link", mk(_d_extlink), False))
        out.append((tag + " scalar", mk(lambda p, dd: _recreate(p, dd, data=_first(p, dd))),
                    False))
        out.append((tag + " null-dataspace", mk(
            lambda p, dd: _recreate(p, dd, data=h5py.Empty(_data_dtype(p, dd)))), False))
        out.append((tag + " 2-d", mk(lambda p, dd: _recreate(p, dd, data=_data(p, dd).reshape(
            -1, 1) if _data(p, dd).ndim == 1 else _data(p, dd).reshape(1, -1))), False))
        out.append((tag + " empty", mk(lambda p, dd: _recreate(
            p, dd, data=_data(p, dd)[:0])), False))
        out.append((tag + " short", mk(lambda p, dd: _recreate(
            p, dd, data=_data(p, dd).reshape(-1)[:-1])), False))
        out.append((tag + " long", mk(_d_long), False))
        out.append((tag + " sparse-2^33", mk(_d_sparse), False))
        out.append((tag + " chunked-gzip", mk(lambda p, dd: _recreate(
            p, dd, data=_data(p, dd), chunks=True, compression="gzip")), True))
        out.append((tag + " compound", mk(_d_compound), False))
        if kind in "iu":
            out.append((tag + " float-class", mk(lambda p, dd: _recreate(
                p, dd, data=_data(p, dd).astype(np.float64))), False))
            out.append((tag + " other-sign", mk(_d_other_sign), False))
            if _data_dtype(path, d).itemsize < 8:  # (an 8-byte integer has no wider type)
                out.append((tag + " wider", mk(_d_wider), True))
            if _data_dtype(path, d).itemsize > 1:  # (one byte has no order: no damage at all)
                out.append((tag + " big-endian", mk(_d_bigendian), True))
        elif kind == "f":
            out.append((tag + " integer-class", mk(lambda p, dd: _recreate(
                p, dd, data=_data(p, dd).astype(np.int64))), False))
            out.append((tag + " big-endian", mk(_d_bigendian), True))
            out.append((tag + " strings", mk(lambda p, dd: _recreate(
                p, dd, data=_data(p, dd).astype("S8"))), False))
        if dsets and len(dsets) > 1:
            other = next(x for x, _ in dsets if x != d)
            out.append((tag + " hard-link-to-" + other, mk(
                lambda p, dd, o=other: _d_hardlink(p, dd, o)), False))
    for g in groups:
        out.append(("group %s missing" % g, lambda p, gg=g: _g_missing(p, gg), False))
        out.append(("group %s dataset" % g, lambda p, gg=g: _g_dataset(p, gg), False))
    return out


def _first(p, d):
    v = _data(p, d)
    return v.reshape(-1)[0] if v.size else np.zeros((), v.dtype)


def _data_dtype(p, d):
    with h5py.File(p, "r") as f:
        return f[d].dtype


def _d_missing(p, d):
    with h5py.File(p, "r+") as f:
        del f[d]


def _d_group(p, d):
    with h5py.File(p, "r+") as f:
        del f[d]
        f.create_group(d)


def _d_softlink(p, d):
    with h5py.File(p, "r+") as f:
        del f[d]
        f[d] = h5py.SoftLink("/nowhere/at/all")


def _d_extlink(p, d):
    with h5py.File(p, "r+") as f:
        del f[d]
        f[d] = h5py.ExternalLink("no-such-file.h5", "/x")


def _d_hardlink(p, d, other):
    with h5py.File(p, "r+") as f:
        del f[d]
        f[d] = f[other]


def _d_long(p, d):
    v = _data(p, d)
    flat = v.reshape(-1)
    extra = flat[-1:] if flat.size else np.zeros(1, v.dtype)
    _recreate(p, d, data=np.concatenate([flat, extra]))


def _d_sparse(p, d):
    v = _data(p, d).reshape(-1)
    chunk = 1 << 12
    with h5py.File(p, "r+") as f:
        attrs = {k: f[d].attrs[k] for k in f[d].attrs}
        del f[d]
        nd = f.create_dataset(d, shape=(SPARSE,), dtype=v.dtype, chunks=(chunk,))
        nd[:min(chunk, v.size)] = v[:chunk]
        for k, a in attrs.items():
            nd.attrs[k] = a


def _d_compound(p, d):
    v = _data(p, d).reshape(-1)
    if v.dtype.kind in "SOU":
        v = np.zeros(v.size, np.int64)
    c = np.zeros(v.size, dtype=[("a", v.dtype), ("b", np.int8)])
    c["a"] = v
    _recreate(p, d, data=c)


def _d_other_sign(p, d):
    v = _data(p, d)
    k = "u" if v.dtype.kind == "i" else "i"
    _recreate(p, d, data=v.astype(np.dtype("%s%d" % (k, v.dtype.itemsize))))


def _d_wider(p, d):
    v = _data(p, d)
    _recreate(p, d, data=v.astype(np.int64 if v.dtype.kind == "i" or v.dtype.itemsize < 8
                                  else np.uint64))


def _d_bigendian(p, d):
    v = _data(p, d)
    _recreate(p, d, data=v.astype(v.dtype.newbyteorder(">")))


def _g_missing(p, g):
    with h5py.File(p, "r+") as f:
        del f[g]


def _g_dataset(p, g):
    with h5py.File(p, "r+") as f:
        del f[g]
        f.create_dataset(g, data=np.arange(4))


def file_variants(path):
    """The whole-file damages: cut short at fractions of its size, emptied."""
    out = []
    for frac in TRUNCATE:
        out.append(("truncated to %g" % frac,
                    lambda p, fr=frac: os.truncate(p, int(os.path.getsize(p) * fr)), False))
    out.append(("empty file", lambda p: os.truncate(p, 0), False))
    return out


def h5_variants(path):
    return attr_variants(path) + dataset_variants(path) + file_variants(path)


# ---- text ----

def _rewrite(fn):
    def damage(p):
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(fn(data))
    return damage


def _mixed(data):
    lines = data.split(b"\n")
    return b"".join(x + (b"\r" if i % 2 else b"\n") for i, x in enumerate(lines[:-1])) + lines[-1]


def _cut_last(data):
    lines = data.rstrip(b"\n").split(b"\n")
    last = lines[-1]
    for sep in (b" = ", b"=", b",", b"\t", b" "):
        if sep in last:
            last = last.split(sep)[0] + sep
            break
    return b"\n".join(lines[:-1] + [last])


def _latin1(data):
    return b"# caf\xe9 (a comment line in Latin-1)\n" + data


def _nul(data):
    i = len(data) // 2
    return data[:i] + b"\0" + data[i:]


def text_variants(path):
    """The line-ending and encoding damages of a text file. Which of them keep the meaning is
    the reader's to decide (a CR-only file read as LF, or refused): preserves is None."""
    return [
        ("line endings CRLF", _rewrite(lambda d: d.replace(b"\n", b"\r\n")), None),
        ("line endings CR only", _rewrite(lambda d: d.replace(b"\n", b"\r")), None),
        ("line endings mixed LF and CR", _rewrite(_mixed), None),
        ("no final line end", _rewrite(lambda d: d.rstrip(b"\n")), None),
        ("UTF-8 byte-order mark", _rewrite(lambda d: b"\xef\xbb\xbf" + d), None),
        ("UTF-16", _rewrite(lambda d: d.decode("latin-1").encode("utf-16")), False),
        ("a comment line in Latin-1", _rewrite(_latin1), None),
        ("a NUL byte", _rewrite(_nul), False),
        ("empty", _rewrite(lambda d: b""), False),
        ("a line of 1 MB", _rewrite(lambda d: d + b"9" * (1 << 20) + b"\n"), False),
        ("last line cut after its first field", _rewrite(_cut_last), False),
    ]
