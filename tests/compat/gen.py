#!/usr/bin/python3
"""Build the compatibility corpus: arrays other implementations wrote, with
the values their authors state, for the Go, Node and browser harnesses.

Usage (from the repository root; needs numpy, Debian: python3-numpy):
    /usr/bin/python3 tests/compat/gen.py NUMCODECS ZARRS ZARRS_SNAPSHOTS

NUMCODECS is a checkout of zarr-developers/numcodecs, ZARRS one of
zarrs/zarrs, ZARRS_SNAPSHOTS one of zarrs/zarrs_snapshot_data (zarrs'
tests/data/snapshots submodule). This rewrites tests/compat/data/ and
tests/compat/cases.json. Sources and licences: tests/compat/README.md.

Three sources:
  numcodecs  numcodecs' codec vectors (fixture/<codec>/[prefix/]codec.NN/
             config.json + encoded.II.dat, with array.II.npy the array it
             encodes). Each vector becomes a one-chunk v2 array: the codec as
             compressor (bytes codecs, pcodec, zfpy) or as the only filter
             (array filters, object codecs); order "F" where the array was
             F-contiguous. Expected: the .npy, to the precision numcodecs' own
             backwards-compatibility test uses (fixedscaleoffset: log10(scale)
             decimals, quantize: digits, astype to float: 3); exact otherwise.
  zarrs      arrays in zarrs/tests/data written by zarr-python (its scripts
             beside them) and by zarrs, with the values those scripts and
             tests state (see ZARRS_CASES below).
  snapshots  zarrs' codec x data type snapshots (supported/): 8x24 arrays
             holding zarrs' generate_test_data for the type (ported below);
             lossy codecs compared within a tolerance.

cases.json: [{"source", "store" (under data/), "path", "dtype" (as the
metadata says), "shape", "expect": {...}}] where expect is
  {"raw": file}                 the elements' little-endian bytes, C order
  {"raw": file, "decimal": d}   float64 values within 1.5 * 10**-d (numpy's
                                assert_array_almost_equal)
  {"raw": file, "rtol": r}      values within r times the largest magnitude
  {"raw": file, "atol": a}      values within a
  {"raw": file, "relerr": r}    each value within r times its own magnitude
                                (NaN as NaN, infinities equal)
  {"unchecked": why}            read, values not checked
  {"values": file}              JSON list of tagged values (tests/codecs/
                                tagged.py): strings, bytes, numbers, lists
  plus "mask": file for optional types (1 present, 0 missing; values are
  compared where present).
Expected files live in data/expected/, named by content hash.
"""

import glob
import hashlib
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "codecs"))
from tagged import tag  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
EXPECTED = os.path.join(DATA, "expected")
CASES = []


def put(content, ext):
    name = hashlib.sha256(content).hexdigest()[:16] + ext
    path = os.path.join(EXPECTED, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(content)
    return name


def raw_of(arr):
    a = np.ascontiguousarray(arr)
    if a.dtype.kind in "iufcbmMSV" and a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return put(a.tobytes(order="C"), ".bin")


def values_of(items):
    return put(json.dumps([tag(v) for v in items], ensure_ascii=True).encode(), ".json")


def expect_for(arr, decimal=None):
    if arr.dtype.kind in "OU" or arr.dtype.kind == "S":
        if arr.dtype.kind == "S":
            items = [bytes(x).rstrip(b"\0").decode("latin-1") for x in arr.reshape(-1)]
        elif arr.dtype.kind == "U":
            items = [str(x) for x in arr.reshape(-1)]
        else:
            items = list(arr.reshape(-1))
        return {"values": values_of(items)}
    e = {"raw": raw_of(arr)}
    if decimal is not None:
        e["raw"] = raw_of(arr.astype("<f8"))
        e["decimal"] = decimal
    return e


def add(source, store, path, dtype, shape, expect):
    CASES.append({"source": source, "store": store, "path": path, "dtype": dtype,
                  "shape": list(shape), "expect": expect})


# ---------------------------------------------------------------- numcodecs

NC_COMPRESSORS = {"adler32", "base64", "blosc", "bz2", "crc32", "crc32c", "gzip", "lz4",
                  "lzma", "shuffle", "zlib", "zstd", "pcodec", "zfpy", "fletcher32",
                  "jenkins_lookup3"}


def nc_precision(config, prefix):
    cid = config["id"]
    if cid == "fixedscaleoffset":
        return int(np.log10(config["scale"]))
    if cid == "quantize":
        return config["digits"]
    if cid == "astype" and prefix == "f":
        return 3
    return None


def gen_numcodecs(root):
    fixture = os.path.join(root, "fixture")
    for codec_dir in sorted(glob.glob(os.path.join(fixture, "*", "**", "codec.*"), recursive=True)):
        rel = os.path.relpath(codec_dir, fixture)
        parts = rel.split(os.sep)
        codec_id, prefix = parts[0], (parts[1] if len(parts) == 3 else None)
        arrays_dir = os.path.dirname(codec_dir)
        with open(os.path.join(codec_dir, "config.json")) as f:
            config = json.load(f)
        for enc in sorted(glob.glob(os.path.join(codec_dir, "encoded.*.dat"))):
            i = enc.split(".")[-2]
            arr = np.load(os.path.join(arrays_dir, "array.%s.npy" % i), allow_pickle=True)
            order = "F" if arr.flags.f_contiguous and not arr.flags.c_contiguous else "C"
            path = "%s/a%s" % (rel.replace(os.sep, "/"), i)
            out = os.path.join(DATA, "numcodecs.zarr", path)
            os.makedirs(out)
            meta = {"zarr_format": 2, "shape": list(arr.shape), "chunks": list(arr.shape),
                    "dtype": arr.dtype.str, "fill_value": None, "order": order,
                    "compressor": None, "filters": None}
            if codec_id in NC_COMPRESSORS:
                meta["compressor"] = config
            else:
                meta["filters"] = [config]
            with open(os.path.join(out, ".zarray"), "w") as f:
                json.dump(meta, f, indent=4, sort_keys=True)
            if codec_id != "pickle":  # refused from its metadata: the chunk is never read
                shutil.copyfile(enc, os.path.join(out, ".".join("0" * max(arr.ndim, 1))))
            expect = expect_for(arr, nc_precision(config, prefix))
            if codec_id == "delta" and arr.dtype == bool:
                # numcodecs decodes what it encoded (np.diff: exclusive or) as a
                # running or, which its test accepts: these are its values.
                enc_vals = np.frombuffer(open(enc, "rb").read(), dtype=bool)
                expect = expect_for(np.logical_or.accumulate(enc_vals).reshape(arr.shape))
            add("numcodecs", "numcodecs.zarr", path, arr.dtype.str, arr.shape, expect)


# -------------------------------------------------------------------- zarrs

ARANGE100 = np.arange(100, dtype="<f4").reshape(10, 10)


TIME_VALUES = [np.datetime64(0, "Y"), np.datetime64("nat"), np.datetime64("2005-02-03"),
               np.datetime64("2005-02-03T04:05"), np.datetime64("2005-02-03T04:05:06"),
               np.datetime64("nat")]
DELTA_VALUES = [np.timedelta64(8760, "h"), np.timedelta64(2, "W"), np.timedelta64(3, "D"),
                np.timedelta64(4, "h"), np.timedelta64(5, "m"), np.timedelta64(6, "s"),
                np.timedelta64(7000, "ms"), np.timedelta64(8000000, "us"),
                np.timedelta64(9000000000, "ns"), np.timedelta64(0), np.timedelta64("NaT")]


def zarrs_round_int(v, keepbits, width):
    """zarrs' integer bitround (zarrs_data_type codec_traits/bitround.rs):
    keep keepbits bits below the highest set bit, ties to even, saturating."""
    maxbits = v.bit_length()
    if keepbits >= maxbits:
        return v
    drop = maxbits - keepbits
    v = min(v + ((v >> drop) & 1) + (1 << (drop - 1)) - 1, (1 << width) - 1)
    return v & ~((1 << drop) - 1)


def zarrs_cases(root):
    """(path under zarrs/tests/data, dtype, expected ndarray or expect dict)."""
    out = []
    for c in ["none", "blosc", "gzip", "bz2", "zstd", "pcodec"]:
        out.append(("v2/array_%s_C.zarr" % c, ARANGE100))
    out.append(("v2/array_zfpy_C.zarr", (ARANGE100, "atol", 0.01)))
    for c in ["none", "blosc"]:
        out.append(("v2/array_%s_F.zarr" % c, ARANGE100))
    for c in ["none", "none_transpose", "blosc", "blosc_transpose", "gzip", "bz2", "zstd", "pcodec"]:
        out.append(("v3/array_%s.zarr" % c, ARANGE100))
    out.append(("v3/array_zfpy.zarr", (ARANGE100, "atol", 0.01)))
    for c in ["none", "adler32", "blosc", "gzip", "bz2", "zstd", "fletcher32", "zlib", "pcodec"]:
        out.append(("v3_zarr_python/array_%s.zarr" % c, ARANGE100))
    out.append(("v3_zarr_python/array_zfpy.zarr", (ARANGE100, "atol", 0.01)))
    u16 = np.arange(100 * 100).reshape(100, 100).astype("<u2")
    out += [("zarr_python_compat/adler32.zarr", u16), ("zarr_python_compat/fletcher32.zarr", u16)]
    for unit in ["Y", "W", "D", "h", "m", "s", "ms", "us", "ns", "10ms", "10us"]:
        out.append(("zarr_python_compat/datetime64[%s].zarr" % unit,
                    np.array(TIME_VALUES).astype("datetime64[%s]" % unit)))
    for unit in ["ms", "us", "ns", "ps", "10ms", "10us"]:
        out.append(("zarr_python_compat/timedelta64[%s].zarr" % unit,
                    np.array(DELTA_VALUES).astype("timedelta64[%s]" % unit)))
    utf = np.array(["abc", "\U0001F389", "hi", "te", ""], dtype="<U4")
    out += [("zarr_python_compat/fixed_length_utf32_v2_le.zarr", utf),
            ("zarr_python_compat/fixed_length_utf32_v2_be.zarr", utf),
            ("zarr_python_compat/fixed_length_utf32_v3_le.zarr", utf)]
    strs = np.array(["a", "bb", "", "", ""], dtype=object)
    out += [("zarr_python_compat/str_v2_fv_null.zarr", strs)]
    # (cities_v2, cities_v3 and v3/cities: 47,000 strings, 2 MB, left out)
    out.append(("zarr_python_compat/v3_bytes.zarr",
                np.array([b"New York", b"Los Angeles", b"Chicago"], dtype=object)))
    # zarrs' codec_bitround test: its uint8 values rounded by its rule
    out.append(("codec/bitround/bitround_uint8.zarr",
                np.array([zarrs_round_int(v, 3, 8) for v in [0, 1, 10, 11, 100, 123, 200, 208, 209, 255]],
                         dtype="u1")))
    f32 = np.array([0.0, 0.1, 1.2, 12.3, 123.4, 1234.5, np.nan, np.inf, -np.inf], dtype="<f4")
    out.append(("codec/bitround/bitround_float32.zarr", (f32, "relerr", 2.0 ** -3)))
    # the optional arrays' attributes state their values (N missing)
    opt = np.array([0, 0, 2, 3, 0, 5, 0, 7, 8, 9, 0, 0, 12, 0, 0, 0], dtype="u1").reshape(4, 4)
    mask = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0], dtype="u1").reshape(4, 4)
    out.append(("v3/array_optional.zarr/array", {"optional": (opt, mask)}))
    return out


def gen_zarrs(root):
    src = os.path.join(root, "zarrs", "tests", "data")
    for path, exp in zarrs_cases(root):
        store = path.split("/")[0] + "/" + path.split("/")[1]
        inner = "/".join(path.split("/")[2:])
        dst = os.path.join(DATA, "zarrs", store)
        if not os.path.exists(dst):
            shutil.copytree(os.path.join(src, store), dst)
        meta_dir = os.path.join(src, path)
        if os.path.exists(os.path.join(meta_dir, "zarr.json")):
            with open(os.path.join(meta_dir, "zarr.json")) as f:
                dt = json.load(f)["data_type"]
        else:
            with open(os.path.join(meta_dir, ".zarray")) as f:
                dt = json.load(f)["dtype"]
        dtname = dt if isinstance(dt, str) else json.dumps(dt, sort_keys=True)
        if isinstance(exp, dict) and "optional" in exp:
            vals, mask = exp["optional"]
            expect = {"raw": raw_of(vals), "mask": raw_of(mask)}
            shape = vals.shape
        elif isinstance(exp, tuple):
            arr, kind, tol = exp
            expect = {"raw": raw_of(arr), kind: tol}
            shape = arr.shape
        else:
            expect = expect_for(exp)
            shape = exp.shape
        add("zarrs", "zarrs/" + store, inner, dtname, shape, expect)


# ---------------------------------------------------------------- snapshots

def snapshot_data(dt, n):
    """zarrs' generate_test_data (tests/codec_snapshot_tests.rs) for a type."""
    i = np.arange(n)
    name = dt if isinstance(dt, str) else dt["name"]
    simple = {"bool": (i % 2).astype("u1").view("?"),
              "int2": ((i % 4) - 2).astype("i1"), "uint2": (i % 4).astype("u1"),
              "int4": ((i % 16) - 8).astype("i1"), "uint4": (i % 16).astype("u1"),
              "int8": (i % 256).astype("u1").view("i1"), "uint8": (i % 256).astype("u1"),
              "int16": (i % 65536).astype("<u2").view("<i2"), "uint16": (i % 65536).astype("<u2"),
              "int32": i.astype("<i4"), "uint32": i.astype("<u4"),
              "int64": i.astype("<i8"), "uint64": i.astype("<u8"),
              "float16": (i * 0.5).astype("<f2"), "float32": (i * 0.5).astype("<f4"),
              "float64": (i * 0.5).astype("<f8"),
              "numpy.datetime64": i.astype("<i8"), "numpy.timedelta64": i.astype("<i8")}
    if name in simple:
        return simple[name]
    if name == "bfloat16":
        return ((i * 0.5).astype("<f4").view("<u4") >> 16).astype("<u2")  # exact: i*0.5 fits bf16
    if name in ("complex64", "complex_float32"):
        return np.stack([(i * 0.5), (i * 0.25)], axis=1).astype("<f4")
    if name in ("complex128", "complex_float64"):
        return np.stack([(i * 0.5), (i * 0.25)], axis=1).astype("<f8")
    if name == "complex_float16":
        return np.stack([(i * 0.5), (i * 0.25)], axis=1).astype("<f2")
    if name == "complex_bfloat16":
        re = ((i * 0.5).astype("<f4").view("<u4") >> 16).astype("<u2")
        im = ((i * 0.25).astype("<f4").view("<u4") >> 16).astype("<u2")
        return np.stack([re, im], axis=1)
    if name in ("complex_float8_e4m3", "complex_float8_e5m2"):
        return np.stack([i % 128, (i + 1) % 128], axis=1).astype("u1")
    if name in ("float8_e4m3", "float8_e5m2"):
        return (i % 128).astype("u1")  # what zarrs stored (its generator's float8 arm)
    if name.startswith("r") and name[1:].isdigit():
        size = int(name[1:]) // 8
        return np.repeat((i % 256).astype("u1"), size)
    if name == "string":
        return np.array(["str_%04d" % (k % 10000) for k in i], dtype=object)
    if name == "bytes":
        return np.array([bytes([k % 256]) * (k % 8 + 1) for k in i], dtype=object)
    return None


LOSSY = ("bitround", "numcodecs.fixedscaleoffset", "zfp(", "numcodecs.quantize")


def gen_snapshots(root):
    base = os.path.join(root, "supported")
    for meta in sorted(glob.glob(os.path.join(base, "**", "zarr.json"), recursive=True)):
        rel = os.path.relpath(os.path.dirname(meta), base).replace(os.sep, "/")
        with open(meta) as f:
            doc = json.load(f)
        n = int(np.prod(doc["shape"]))
        dt = doc["data_type"]
        dtname = dt if isinstance(dt, str) else json.dumps(dt, sort_keys=True)
        dst = os.path.join(DATA, "snapshots", rel)
        shutil.copytree(os.path.dirname(meta), dst)
        if isinstance(dt, dict) and dt["name"] == "zarrs.optional":
            inner = dt["configuration"]
            depth = 1
            while isinstance(inner, dict) and inner.get("name") == "zarrs.optional":
                inner, depth = inner["configuration"], depth + 1
            vals = snapshot_data(inner, n)
            mask = (np.arange(n) % 4 != 3).astype("u1")
            if vals is None or depth > 1:
                expect = {"unchecked": "nested optional"}
            elif vals.dtype == object:
                items = [v if m else None for v, m in zip(vals, mask)]
                expect = {"values": values_of(items), "mask": raw_of(mask.reshape(doc["shape"]))}
            else:
                expect = {"raw": raw_of(vals), "mask": raw_of(mask.reshape(doc["shape"]))}
        else:
            vals = snapshot_data(dt, n)
            if vals is None:
                expect = {"unchecked": "no generator for %s" % dtname}
            elif vals.dtype == object:
                expect = {"values": values_of(list(vals))}
            else:
                expect = {"raw": raw_of(vals)}
                if any(k in rel for k in LOSSY) and "reversible" not in rel:
                    expect["rtol"] = 0.05
        add("snapshots", "snapshots", rel, dtname, doc["shape"], expect)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    for entry in os.listdir(DATA) if os.path.exists(DATA) else []:
        if entry != "extra":  # gen_extra.py's
            shutil.rmtree(os.path.join(DATA, entry))
    os.makedirs(EXPECTED)
    gen_numcodecs(sys.argv[1])
    gen_zarrs(sys.argv[2])
    gen_snapshots(sys.argv[3])
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=0, sort_keys=True)
        f.write("\n")
    by = {}
    for c in CASES:
        by[c["source"]] = by.get(c["source"], 0) + 1
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(DATA) for f in fs)
    print("%d arrays (%s); %d bytes" % (len(CASES), ", ".join("%s %d" % kv for kv in sorted(by.items())), size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
