#!/usr/bin/python3
"""Write the reference-set fixtures (tests/refs/data) and their expected values.

Run from anywhere with Debian's packages (python3-fsspec 2022.11,
python3-zarr 2.13, python3-numcodecs, python3-numpy; jinja2 comes with
fsspec's v1 support):

    /usr/bin/python3 tests/refs/gen.py [output directory, default tests/refs]

then `node tests/refs/write_parquet.mjs` (after `npm ci` in tests/refs) for
the Parquet forms of data/pq/refs.json.

What it writes, the way kerchunk does (zarr v2 metadata as JSON text,
chunk references [url, offset, length] into target files, small chunks
inlined as ASCII strings or "base64:", "." chunk keys):

  data/json/         target files (raw chunks at offsets between junk bytes,
                     zlib and shuffle+zlib chunks inside a larger file, a
                     target in a sub-directory, whole-file chunks) and the
                     reference sets over them:
      v0.json            version 0
      v1.json            version 1, "{{name}}" templates in urls
      v1_gen.json        version 1, gen entries (ranges and lists, jinja
                         arithmetic in offsets), templates
      v1_target.json     version 1, null urls: read with target="t1.bin"
      v0_objects.json    version 0 with metadata as JSON objects (fsspec
                         2022.11 cannot read those: its expected values come
                         from v0.json, the same data with strings)
  data/spec/example.json the version 1 example of the reference spec
                     (kerchunk docs/source/spec.rst), targets not present
  data/pq/           targets and refs.json (version 0), the source of the
                     Parquet reference directories write_parquet.mjs writes

Expected values, all from fsspec's ReferenceFileSystem (relative urls are
local paths, so the script runs fsspec from each directory):

  expanded.json  per reference set, every key as fsspec resolves it
                 (ReferenceFileSystem._cat_common): {"data": base64} for
                 inline bytes, {"url", "start", "end"} otherwise (start and
                 end null for a whole file)
  keys.json      per reference set (targets present), every key's bytes
                 (fs.cat_file) and some ranges of keys
                 (fs.cat_file(key, start, end)), base64
  cases.json     per array of every Zarr reference set: zarr-python 2.13
                 reading zarr.open(fs.get_mapper("")), in the format of
                 tests/python/README.md with "store" naming the reference
                 file (relative to data/) and optional "target"

The output is deterministic (seeded numpy generators, zlib).
"""

import base64
import json
import os
import shutil
import sys
import warnings
import zlib
from collections.abc import MutableMapping
from pathlib import Path

import fsspec
import numpy as np
import numcodecs
import zarr
from fsspec.implementations.reference import ReferenceFileSystem
from numcodecs import GZip, Shuffle, Zlib

HERE = Path(__file__).resolve().parent
# an optional argument writes everything under another directory (the Go
# tests regenerate into a temporary one and compare with the committed files)
OUT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE
DATA = OUT / "data"
sys.path.insert(0, str(HERE.parent / "python"))
import verify_cases as vc  # noqa: E402

GZIP_MTIME = 1700000000


def b64(b):
    return base64.standard_b64encode(bytes(b)).decode("ascii")


def zdumps(o):
    """Zarr metadata text as zarr-python 2 (and so kerchunk) writes it."""
    return json.dumps(o, indent=4, sort_keys=True, ensure_ascii=True,
                      separators=(",", ": "))


def inline(b):
    """kerchunk's encoding of inline bytes: ASCII text as is, else base64."""
    try:
        return b.decode("ascii")
    except UnicodeDecodeError:
        return "base64:" + b64(b)


class Target:
    """A target file: chunk bytes at offsets, with junk between them (as
    HDF5 and NetCDF files hold headers and other variables)."""

    def __init__(self, name, rng):
        self.name = name
        self.buf = bytearray()
        self.rng = rng

    def junk(self, n):
        self.buf += self.rng.integers(0, 256, n, dtype=np.uint8).tobytes()

    def add(self, data, gap=None):
        if gap is None:
            gap = int(self.rng.integers(0, 200))
        self.junk(gap)
        off = len(self.buf)
        self.buf += data
        return [self.name, off, len(data)]

    def write(self, root):
        p = root / self.name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(bytes(self.buf))


def zarray(shape, chunks, dtype, fill, compressor=None, filters=None, sep=None):
    if isinstance(fill, float) and fill != fill:
        fill = "NaN"  # as zarr-python (and so kerchunk) writes it
    m = {"zarr_format": 2, "shape": list(shape), "chunks": list(chunks),
         "dtype": dtype, "fill_value": fill, "order": "C",
         "compressor": compressor, "filters": filters}
    if sep is not None:
        m["dimension_separator"] = sep
    return m


def chunk_grid(shape, chunks):
    return [(-(-s // c)) for s, c in zip(shape, chunks)] or [1]


def chunk_indices(shape, chunks):
    grid = chunk_grid(shape, chunks)
    return list(np.ndindex(*grid))


def chunk_of(arr, idx, chunks):
    """The full-size chunk at idx (edge chunks padded with zeros, as HDF5
    stores them)."""
    if arr.ndim == 0:
        return arr.copy()
    sl = tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, chunks))
    part = arr[sl]
    out = np.zeros(chunks, dtype=arr.dtype)
    out[tuple(slice(0, n) for n in part.shape)] = part
    return out


def key_of(path, idx, sep="."):
    return path + "/" + (sep.join(str(i) for i in idx) if idx else "0")


# --------------------------------------------------------------------------
# the JSON reference sets


def build_json():
    root = DATA / "json"
    rng = np.random.default_rng(7)
    t1 = Target("t1.bin", rng)             # raw chunks
    t2 = Target("t2.h5", rng)              # compressed chunks inside a larger file
    t3 = Target("sub/t3.bin", rng)         # a target in a sub-directory
    refs = {}
    meta = {}

    meta[".zgroup"] = {"zarr_format": 2}
    meta[".zattrs"] = {"title": "kerchunk-style fixture", "Conventions": "CF-1.6"}

    # counts: big-endian int16 chunks laid out back to back (NetCDF3 style);
    # the coalescing test reads them in one request
    counts = (np.arange(100, dtype=">i2") * 7 - 300).astype(">i2")
    meta["counts/.zarray"] = zarray([100], [10], ">i2", -1)
    meta["counts/.zattrs"] = {"_ARRAY_DIMENSIONS": ["x"], "units": "1"}
    t1.junk(1000)
    for idx in chunk_indices([100], [10]):
        refs[key_of("counts", idx)] = t1.add(chunk_of(counts, idx, [10]).tobytes(), gap=0)

    # temp: HDF5 style, shuffle + zlib filters, no compressor, NaN fill,
    # one chunk missing, edge chunks full size
    temp = rng.standard_normal((10, 12)).astype("<f4") * 10 + 280
    meta["temp/.zarray"] = zarray([10, 12], [4, 5], "<f4", float("nan"),
                                  filters=[{"id": "shuffle", "elementsize": 4},
                                           {"id": "zlib", "level": 5}])
    meta["temp/.zattrs"] = {"_ARRAY_DIMENSIONS": ["y", "x"], "units": "K"}
    sh, zl = Shuffle(elementsize=4), Zlib(level=5)
    for idx in chunk_indices([10, 12], [4, 5]):
        if idx == (1, 1):
            continue  # missing: fill value
        enc = zl.encode(sh.encode(chunk_of(temp, idx, [4, 5]).tobytes()))
        refs[key_of("temp", idx)] = t2.add(bytes(enc))

    # small: int32, every chunk inline (base64, as kerchunk inlines)
    small = np.arange(6, dtype="<i4").reshape(2, 3) ** 3 - 5
    meta["small/.zarray"] = zarray([2, 3], [2, 3], "<i4", 0)
    refs["small/0.0"] = inline(small.tobytes())

    # labels: S6 whose raw bytes are ASCII, so inlined as a plain string
    labels = np.array([b"alpha", b"beta", b"gamma", b"delta", b"eps\x00", b"z"], dtype="S6")
    meta["labels/.zarray"] = zarray([6], [4], "|S6", "")
    for idx in chunk_indices([6], [4]):
        refs[key_of("labels", idx)] = inline(chunk_of(labels, idx, [4]).tobytes())

    # whole: uint8 chunks each stored as a whole file ([url]); gzip compressor
    whole = (np.arange(30, dtype="u1") * 3) % 251
    meta["whole/.zarray"] = zarray([30], [8], "|u1", 255, compressor={"id": "gzip", "level": 1})
    gz = GZip(level=1)
    for idx in chunk_indices([30], [8]):
        enc = bytes(gz.encode(chunk_of(whole, idx, [8]).tobytes()))
        enc = enc[:4] + GZIP_MTIME.to_bytes(4, "little") + enc[8:]
        name = "whole/%d.gz" % idx[0]
        (root / "whole").mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(enc)
        refs[key_of("whole", idx)] = [name]

    # deep/nested/arr: nested groups, "/" chunk keys, a target in sub/
    deep = rng.integers(-1000, 1000, (6, 6), dtype="<i8")
    meta["deep/.zgroup"] = {"zarr_format": 2}
    meta["deep/nested/.zgroup"] = {"zarr_format": 2}
    meta["deep/nested/arr/.zarray"] = zarray([6, 6], [4, 4], "<i8", 42, sep="/")
    for idx in chunk_indices([6, 6], [4, 4]):
        if idx == (1, 0):
            continue
        refs[key_of("deep/nested/arr", idx, "/")] = t3.add(chunk_of(deep, idx, [4, 4]).tobytes())

    # scalar: a 0-d array
    meta["scalar/.zarray"] = zarray([], [], "<f8", 0.0)
    refs["scalar/0"] = t1.add(np.array(2.5, dtype="<f8").tobytes())

    # keys that are not Zarr: the store's byte-level behaviour
    refs["misc/text"] = "h\u00e9llo \u2713 text"
    refs["misc/empty_range"] = ["t1.bin", 10, 0]
    refs["misc/whole_file"] = ["sub/t3.bin"]
    refs["misc/b64"] = "base64:" + b64(b"\x00\x01\x02binary\xff")
    refs["misc/range"] = ["t1.bin", 3, 17]

    for t in (t1, t2, t3):
        t.write(root)

    def with_meta(fmt):
        out = {k: (zdumps(v) if fmt == "str" else v) for k, v in meta.items()}
        out.update(refs)
        return out

    v0 = with_meta("str")
    write_json(root / "v0.json", v0)
    write_json(root / "v0_objects.json", with_meta("obj"))

    # v1 with templates: the urls of t1/t2 through templates
    templates = {"a": "t1.bin", "h5": "t2", "dir": "sub"}
    v1refs = {}
    for k, v in v0.items():
        if isinstance(v, list) and v[0] == "t1.bin":
            v = ["{{a}}"] + v[1:]
        elif isinstance(v, list) and v[0] == "t2.h5":
            v = ["{{h5}}.h5"] + v[1:]
        elif isinstance(v, list) and v[0] == "sub/t3.bin":
            v = ["{{dir}}/t3.bin"] + v[1:]
        v1refs[k] = v
    write_json(root / "v1.json", {"version": 1, "templates": templates, "refs": v1refs})

    # v1 with gen: counts' chunks are regular in t1.bin, so gen describes
    # them; plus a 2-d product and list dimensions for non-Zarr keys
    first = refs["counts/0"][1]
    genrefs = {k: v for k, v in v1refs.items() if not (k.startswith("counts/") and k[7:].isdigit())}
    gen = [
        {"key": "counts/{{i}}", "url": "{{a}}",
         "offset": "{{ %d + i * 20 }}" % first, "length": "20",
         "dimensions": {"i": {"stop": 10}}},
        {"key": "grid/{{row}}_{{col}}", "url": "{{a}}",
         "offset": "{{(row * 3 + col) * 4 + 2}}", "length": "{{ 4 }}",
         "dimensions": {"row": {"start": 1, "stop": 7, "step": 2}, "col": [0, 2, 5]}},
        {"key": "whole_gen/{{n}}", "url": "whole/{{n}}.gz",
         "dimensions": {"n": [3, 0]}},
        {"key": "down/{{k}}", "url": "{{a}}", "offset": "{{k}}", "length": "{{ 10 - k }}",
         "dimensions": {"k": {"start": 9, "stop": 0, "step": -3}}},
    ]
    write_json(root / "v1_gen.json", {"version": 1, "templates": templates,
                                      "gen": gen, "refs": genrefs})

    # null urls: the caller's target (t1.bin)
    trefs = {}
    for k, v in v0.items():
        if isinstance(v, list) and v[0] == "t1.bin":
            v = [None] + v[1:]
        trefs[k] = v
    write_json(root / "v1_target.json", {"version": 1, "refs": trefs})

    return {
        "json/v0.json": {},
        "json/v1.json": {},
        "json/v1_gen.json": {"simple_templates": False},
        "json/v1_target.json": {"target": "t1.bin"},
    }


def write_json(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")


# --------------------------------------------------------------------------
# the spec's own example

SPEC_EXAMPLE = {
    "version": 1,
    "templates": {"u": "server.domain/path", "f": "{{c}}"},
    "gen": [{"key": "gen_key{{i}}", "url": "http://{{u}}_{{i}}",
             "offset": "{{(i + 1) * 1000}}", "length": "1000",
             "dimensions": {"i": {"stop": 5}}}],
    "refs": {"key0": "data", "key1": ["http://target_url", 10000, 100],
             "key2": ["http://{{u}}", 10000, 100],
             "key3": ["http://{{f(c='text')}}", 10000, 100]},
}

# the version 0 equivalent the spec gives
SPEC_EXPANDED = {
    "key0": "data",
    "key1": ["http://target_url", 10000, 100],
    "key2": ["http://server.domain/path", 10000, 100],
    "key3": ["http://text", 10000, 100],
    "gen_key0": ["http://server.domain/path_0", 1000, 1000],
    "gen_key1": ["http://server.domain/path_1", 2000, 1000],
    "gen_key2": ["http://server.domain/path_2", 3000, 1000],
    "gen_key3": ["http://server.domain/path_3", 4000, 1000],
    "gen_key4": ["http://server.domain/path_4", 5000, 1000],
}


def build_spec():
    write_json(DATA / "spec" / "example.json", SPEC_EXAMPLE)
    # its targets are http URLs that are never read: a memory file system
    # stands in for http (Debian's fsspec lacks aiohttp)
    return {"spec/example.json": {"simple_templates": False,
                                  "fs": {"http": fsspec.filesystem("memory")}}}


# --------------------------------------------------------------------------
# the Parquet source set


def build_pq():
    root = DATA / "pq"
    rng = np.random.default_rng(11)
    t1 = Target("p1.bin", rng)
    t2 = Target("p2.bin", rng)
    refs = {}
    meta = {".zgroup": {"zarr_format": 2}, ".zattrs": {"about": "parquet references"},
            "a/.zgroup": {"zarr_format": 2}}

    # a/big: 17 x 10 = 170 chunks over record files of 16 (record_size in
    # write_parquet.mjs); zlib chunks in two targets; records 32-47 (one
    # whole file) and a few others missing; some chunks inline
    shape, chunks = [50, 37], [3, 4]
    big = rng.integers(-2**31, 2**31 - 1, shape, dtype="<i4")
    meta["a/big/.zarray"] = zarray(shape, chunks, "<i4", -7, compressor={"id": "zlib", "level": 1})
    meta["a/big/.zattrs"] = {"_ARRAY_DIMENSIONS": ["y", "x"]}
    zl = Zlib(level=1)
    grid = chunk_grid(shape, chunks)
    for idx in chunk_indices(shape, chunks):
        n = int(np.ravel_multi_index(idx, grid))
        if 32 <= n < 48 or n in (5, 99, 169):
            continue
        enc = bytes(zl.encode(chunk_of(big, idx, chunks).tobytes()))
        if n % 13 == 0:
            refs[key_of("a/big", idx)] = inline(enc)
        else:
            refs[key_of("a/big", idx)] = (t1 if n % 3 else t2).add(enc)

    # deep/nested/x: float64, one chunk a whole file
    x = rng.standard_normal(20)
    meta["deep/.zgroup"] = {"zarr_format": 2}
    meta["deep/nested/.zgroup"] = {"zarr_format": 2}
    meta["deep/nested/x/.zarray"] = zarray([20], [7], "<f8", float("nan"))
    for idx in chunk_indices([20], [7]):
        data = chunk_of(x, idx, [7]).tobytes()
        if idx == (1,):
            (root / "whole.bin").parent.mkdir(parents=True, exist_ok=True)
            (root / "whole.bin").write_bytes(data)
            refs[key_of("deep/nested/x", idx)] = ["whole.bin"]
        else:
            refs[key_of("deep/nested/x", idx)] = t2.add(data)

    # scalar: 0-d, inline
    meta["scalar/.zarray"] = zarray([], [], "<i8", 0)
    refs["scalar/0"] = inline(np.array(-123456789012, dtype="<i8").tobytes())

    # empty: an array without any chunk (every record file all null)
    meta["empty/.zarray"] = zarray([5, 5], [2, 2], "<u2", 9)

    for t in (t1, t2):
        t.write(root)
    src = {k: zdumps(v) for k, v in meta.items()}
    src.update(refs)
    write_json(root / "refs.json", src)
    return {"pq/refs.json": {}}


# --------------------------------------------------------------------------
# expected values through fsspec + zarr-python


def open_fs(rel, opts):
    path = DATA / rel
    kw = dict(opts)
    os.chdir(path.parent)  # relative urls are local paths to fsspec
    return ReferenceFileSystem(str(path), **kw)


def expanded(fs):
    out = {}
    for k in sorted(fs.references):
        u, s, e = fs._cat_common(k)
        if isinstance(u, bytes):
            out[k] = {"data": b64(u)}
        else:
            out[k] = {"url": u, "start": s, "end": e}
    return out


RANGES = [(0, 5), (2, None), (-6, None), (1, -1), (0, 0)]


def key_bytes(fs):
    keys = {}
    ranges = []
    for k in sorted(fs.references):
        value = fs.cat_file(k)
        keys[k] = b64(value)
        if k.startswith("misc/") or k in ("counts/3", "scalar/0", "whole/1"):
            for s, e in RANGES:
                # "sliced" is the range of the key's value (Python slicing);
                # fsspec's own answer may differ when the range leaves an
                # [url, offset, length] block: it then reads the target's
                # bytes outside the block
                r = {"key": k, "start": s, "end": e, "sliced": b64(value[s:e])}
                try:
                    r["data"] = b64(fs.cat_file(k, start=s, end=e))
                except Exception as ex:  # noqa: BLE001  # fsspec refuses it: so must we
                    r["error"] = str(ex)
                ranges.append(r)
    return {"keys": keys, "ranges": ranges}


SELECTIONS = {
    "temp": ["", "1:9, 3:11", "5, ::3"],
    "counts": ["", "15:73:4", "-1"],
    "deep/nested/arr": ["", "3:, :5"],
    "a/big": ["", "10:40, 5:30", "::7, ::3"],
}


class PerKey(MutableMapping):
    """fs.get_mapper("") read one key at a time. fsspec 2022.11's batched
    ReferenceFileSystem.cat raises KeyError for a key without a reference
    instead of omitting it, so zarr's getitems over the mapper fails on any
    missing chunk; per-key reads give zarr the KeyError it turns into the
    fill value."""

    def __init__(self, m):
        self.m = m

    def __getitem__(self, k):
        return self.m[k]

    def __contains__(self, k):
        return k in self.m

    def __iter__(self):
        return iter(self.m)

    def __len__(self):
        return len(self.m)

    def __setitem__(self, k, v):
        raise PermissionError("read only")

    def __delitem__(self, k):
        raise PermissionError("read only")


def array_cases(rel, fs, extra):
    m = PerKey(fs.get_mapper(""))
    g = zarr.open(m, mode="r")
    out = []
    arrays = []

    def walk(grp, prefix):
        for name, a in grp.arrays():
            arrays.append(prefix + name)
        for name, sub in grp.groups():
            walk(sub, prefix + name + "/")
    walk(g, "")
    for path in sorted(arrays):
        a = g[path]
        for sel in SELECTIONS.get(path, [""]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                v = a[vc.parse_selection(sel)]
            if not isinstance(v, np.ndarray):
                tmp = np.empty(1, dtype=a.dtype)
                tmp[0] = v
                v = tmp.reshape(())
            case = {"name": "%s:%s%s" % (rel, path, ("@" + sel) if sel else ""),
                    "store": rel, "path": path, "selection": sel,
                    "dtype": a.dtype.str if a.dtype.fields is None else a.dtype.descr}
            if "target" in extra:  # noqa
                case["target"] = extra["target"]
            case.update(vc.encode_result(v))
            out.append(case)
    return out


def main():
    # remove what this script writes; data/pq's sub-directories are the
    # Parquet forms the other writers make (write_parquet.mjs, pqgo/)
    for d in (DATA / "json", DATA / "spec"):
        if d.exists():
            shutil.rmtree(d)
    if (DATA / "pq").exists():
        for f in (DATA / "pq").iterdir():
            if f.is_file():
                f.unlink()
    DATA.mkdir(parents=True, exist_ok=True)
    sets = {}
    sets.update(build_json())
    sets.update(build_spec())
    sets.update(build_pq())
    cwd = os.getcwd()
    expanded_all, keys_all, cases = {}, {}, []
    try:
        for rel, opts in sets.items():
            fs = open_fs(rel, opts)
            expanded_all[rel] = expanded(fs)
            if rel.startswith("spec/"):
                continue
            keys_all[rel] = key_bytes(fs)
            cases += array_cases(rel, fs, opts)
        # v0_objects.json: the values of v0.json (fsspec 2022.11 has no
        # JSON-object values); the expectation is checked to hold there
        for c in [c for c in cases if c["store"] == "json/v0.json"]:
            c2 = dict(c, store="json/v0_objects.json",
                      name=c["name"].replace("json/v0.json", "json/v0_objects.json"))
            cases.append(c2)
    finally:
        os.chdir(cwd)

    # the spec's own expansion must be what fsspec gives
    spec = expanded_all["spec/example.json"]
    for k, v in SPEC_EXPANDED.items():
        got = spec[k]
        if isinstance(v, str):
            ok = got == {"data": b64(v.encode())}
        else:
            ok = got == {"url": v[0], "start": v[1], "end": v[1] + v[2]}
        if not ok:
            raise SystemExit("spec example %s: fsspec gives %r, the spec %r" % (k, got, v))
    if set(spec) != set(SPEC_EXPANDED):
        raise SystemExit("spec example keys differ: %s" % sorted(set(spec) ^ set(SPEC_EXPANDED)))

    write_json(OUT / "expanded.json", expanded_all)
    write_json(OUT / "keys.json", keys_all)
    (OUT / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")
    print("%d reference sets, %d cases, fsspec %s, zarr %s, numcodecs %s" % (
        len(sets), len(cases), fsspec.__version__, zarr.__version__, numcodecs.__version__))


if __name__ == "__main__":
    main()
