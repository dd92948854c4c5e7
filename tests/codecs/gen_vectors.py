#!/usr/bin/python3
"""Generate numcodecs test vectors for the Go codecs in zarr/codec.

Usage:
    /usr/bin/python3 tests/codecs/gen_vectors.py [out_dir]

out_dir defaults to zarr/codec/testdata/numcodecs (relative to the repository
root). Needs numcodecs and numpy (Debian: python3-numcodecs). The output is
deterministic except for compressors whose streams carry a time stamp (gzip).

For every codec x configuration x input it writes the input, numcodecs'
encoding and numcodecs' decoding of that encoding, plus index.json:

  {"numcodecs": "<version>", "numpy": "<version>",
   "vectors": [{
      "name":    unique name,
      "kind":    "bytes"  (bytes->bytes: compressors, checksums, shuffle)
                 "array"  (array->array filters: delta, astype, ...)
                 "object" (array->bytes object codecs: vlen-*, json2),
      "config":  numcodecs get_config() (the v2 JSON, with "id"),
      "decode_config": optional config for the Go decoder when it differs,
      "dtype", "shape": the chunk handed to the codec (NumPy typestr),
      "input":   file of the chunk's bytes (its own byte order), or
      "input_values": tagged values (object arrays, see below),
      "encoded": file of numcodecs' encoding (for "array": the encoded
                 array's bytes, described by encoded_dtype/encoded_shape),
      "decoded": file of numcodecs' decoding of "encoded" (bytes of the
                 chunk dtype), or "decoded_values": tagged values,
      "exact":   true when the Go encoding must equal numcodecs' bytes,
      "go_error": optional error code the Go codec must give instead
   }],
   "quantize_scales": {digits: scale},
   "promotions": [[dtype, scalar JSON text, result dtype]]}

Tagged values: {"t": "none"} | {"t": "bool", "v": b} | {"t": "int", "v": "123"}
| {"t": "float", "v": float.hex()} | {"t": "str", "v": s} | {"t": "bytes",
"v": base64} | {"t": "list", "v": [...]} | {"t": "dict", "v": [[k, value], ...]}.
"""

import base64
import hashlib
import json
import lzma
import math
import os
import sys
import warnings

import numpy as np
import numcodecs

from tagged import tag

warnings.simplefilter("ignore")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "zarr", "codec", "testdata", "numcodecs")

os.makedirs(OUT, exist_ok=True)
for old in os.listdir(OUT):
    if old.endswith(".bin") or old == "index.json":
        os.remove(os.path.join(OUT, old))

vectors = []
names = set()
rng = np.random.default_rng(12345)


def write(name, suffix, data):
    """Writes data to a file named by its content (inputs repeat a lot)."""
    data = bytes(data)
    fn = hashlib.sha1(data).hexdigest()[:16] + ".bin"
    path = os.path.join(OUT, fn)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
    return fn


def add(name, codec, kind, x, exact=True, decoder=None, go_error=None):
    """decoder: a codec to decode with when codec itself cannot (numcodecs'
    LZMA passes its filters to the xz decoder, which refuses them)."""
    assert name not in names, name
    names.add(name)
    cfg = codec.get_config()
    e = {"name": name, "kind": kind, "config": cfg, "exact": exact}
    if decoder is not None:
        e["decode_config"] = decoder.get_config()
    else:
        decoder = codec
    if go_error:
        e["go_error"] = go_error
    if kind == "bytes":
        x = bytes(x)
        e["dtype"], e["shape"] = "|u1", [len(x)]
        e["input"] = write(name, "in", x)
        enc = bytes(codec.encode(x))
        dec = bytes(decoder.decode(enc))
        assert dec == x, name
        e["encoded"] = write(name, "enc", enc)
        e["decoded"] = write(name, "dec", dec)
    elif kind == "array":
        x = np.asarray(x)
        e["dtype"], e["shape"] = x.dtype.str, list(x.shape)
        if x.dtype == object:
            e["input_values"] = [tag(v) for v in x.reshape(-1)]
        else:
            e["input"] = write(name, "in", x.tobytes())
        enc = np.asarray(codec.encode(x))
        e["encoded_dtype"], e["encoded_shape"] = enc.dtype.str, list(enc.shape)
        e["encoded"] = write(name, "enc", enc.tobytes())
        dec = np.asarray(codec.decode(enc))
        if x.dtype == object:
            e["decoded_values"] = [tag(v) for v in dec.reshape(-1)]
        else:
            dec = dec.view(x.dtype) if dec.dtype.itemsize == x.dtype.itemsize else dec
            assert dec.nbytes == x.nbytes, name
            e["decoded"] = write(name, "dec", dec.tobytes())
    elif kind == "object":
        x = np.asarray(x)
        e["dtype"], e["shape"] = x.dtype.str, list(x.shape)
        if x.dtype == object:
            e["input_values"] = [tag(v) for v in x.reshape(-1)]
        else:
            e["input"] = write(name, "in", x.tobytes())
        enc = bytes(codec.encode(x))
        e["encoded"] = write(name, "enc", enc)
        dec = np.asarray(codec.decode(enc))
        if x.dtype == object:
            e["decoded_values"] = [tag(v) for v in dec.reshape(-1)]
        else:
            e["decoded"] = write(name, "dec", dec.astype(x.dtype).tobytes())
    vectors.append(e)


def obj(values, shape=None):
    a = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        a[i] = v
    return a.reshape(shape) if shape else a


# ---------------------------------------------------------------- bytes data
text = (b"Zarr chunks are compressed independently. " * 40)[:1500]
ramp = np.arange(1000, dtype="<i4").tobytes()
noise = rng.integers(0, 256, 700, dtype=np.uint8).tobytes()
zeros = bytes(20000)
floats = np.sin(np.linspace(0, 20, 512)).astype("<f8").tobytes()
BYTES = {"empty": b"", "one": b"\x07", "text": text, "ramp": ramp, "noise": noise,
         "zeros": zeros, "floats": floats}

compressors = [
    ("zlib-1", numcodecs.Zlib(level=1)),
    ("zlib-9", numcodecs.Zlib(level=9)),
    ("zlib-0", numcodecs.Zlib(level=0)),
    ("gzip-1", numcodecs.GZip(level=1)),
    ("gzip-9", numcodecs.GZip(level=9)),
    ("bz2-1", numcodecs.BZ2(level=1)),
    ("bz2-9", numcodecs.BZ2(level=9)),
    ("lzma-default", numcodecs.LZMA()),
    ("lzma-preset1", numcodecs.LZMA(preset=1)),
    ("lzma-check-none", numcodecs.LZMA(check=lzma.CHECK_NONE)),
    ("lzma-check-crc32", numcodecs.LZMA(check=lzma.CHECK_CRC32)),
    ("lzma-check-sha256", numcodecs.LZMA(check=lzma.CHECK_SHA256)),
    ("lzma-alone", numcodecs.LZMA(format=lzma.FORMAT_ALONE)),
    ("lzma-alone-preset9", numcodecs.LZMA(format=lzma.FORMAT_ALONE, preset=9)),
    ("lzma-raw-lzma2", numcodecs.LZMA(format=lzma.FORMAT_RAW, filters=[dict(id=lzma.FILTER_LZMA2, dict_size=1 << 16)])),
    ("lzma-raw-lzma2-preset", numcodecs.LZMA(format=lzma.FORMAT_RAW, filters=[dict(id=lzma.FILTER_LZMA2, preset=2)])),
    ("lzma-raw-lzma1", numcodecs.LZMA(format=lzma.FORMAT_RAW, filters=[dict(id=lzma.FILTER_LZMA1)])),
    ("lzma-raw-lzma1-props", numcodecs.LZMA(format=lzma.FORMAT_RAW, filters=[dict(id=lzma.FILTER_LZMA1, dict_size=1 << 20, lc=1, lp=2, pb=1)])),
    ("zstd-1", numcodecs.Zstd(level=1)),
    ("zstd-5", numcodecs.Zstd(level=5)),
    ("zstd-22", numcodecs.Zstd(level=22)),
    ("zstd-neg", numcodecs.Zstd(level=-3)),
    ("lz4-1", numcodecs.LZ4(acceleration=1)),
    ("lz4-10", numcodecs.LZ4(acceleration=10)),
]
for cname, codec in compressors:
    for dname, data in BYTES.items():
        # numcodecs cannot decode an empty LZ4 or zstd chunk (size 0).
        if dname == "empty" and codec.codec_id in ("lz4", "zstd"):
            continue
        if dname in ("zeros", "floats") and not cname.endswith(("-1", "default", "alone")):
            continue
        add(f"{cname}/{dname}", codec, "bytes", data, exact=(codec.codec_id == "lz4"))
for dname in ("empty", "text", "noise"):
    add(f"lzma-xz-filters/{dname}", numcodecs.LZMA(format=lzma.FORMAT_XZ, filters=[dict(id=lzma.FILTER_LZMA2, preset=1)]),
        "bytes", BYTES[dname], exact=False, decoder=numcodecs.LZMA())

# xz with a delta filter: Go must say unsupported, naming the filter.
add("lzma-xz-delta/ramp", numcodecs.LZMA(format=lzma.FORMAT_XZ, filters=[dict(id=lzma.FILTER_DELTA, dist=4), dict(id=lzma.FILTER_LZMA2)]),
    "bytes", ramp, exact=False, decoder=numcodecs.LZMA(), go_error="UNSUPPORTED")

for cname, codec in [("crc32", numcodecs.CRC32()), ("adler32", numcodecs.Adler32()),
                     ("base64", numcodecs.Base64())]:
    for dname in ("empty", "one", "text", "noise"):
        add(f"{cname}/{dname}", codec, "bytes", BYTES[dname])
for es in (0, 1, 2, 3, 4, 8, 16):
    for dname in ("empty", "ramp", "noise"):
        data = BYTES[dname]
        if es > 1 and len(data) % es:
            data = data[: len(data) // es * es]
        add(f"shuffle-{es}/{dname}", numcodecs.Shuffle(elementsize=es), "bytes", data)

# ---------------------------------------------------------------- filters
def ints(dt, n, lo, hi):
    if hi > 2**63 - 1:
        return rng.integers(lo, hi, n, dtype=np.uint64).astype(dt)
    return rng.integers(lo, hi, n).astype(dt)


def smooth(dt, n, scale=1.0):
    return (np.cumsum(rng.normal(0, 1, n)) * scale).astype(dt)


Delta = numcodecs.Delta
delta_cases = [
    ("i2", None, np.arange(100, 120, 2, dtype="<i2")),
    ("i2-i1", "<i1", np.arange(100, 120, 2, dtype="<i2").reshape(2, 5)),
    ("i4-wrap", None, ints("<i4", 30, -2**31, 2**31 - 1)),
    ("u1-wrap", None, ints("|u1", 40, 0, 256)),
    ("u1-i2", "<i2", ints("|u1", 40, 0, 256)),
    ("be-i4", None, ints(">i4", 24, -1000, 1000).reshape(4, 6)),
    ("le-be", ">i4", ints("<i4", 24, -1000, 1000)),
    ("be-le-i8", "<i8", ints(">i8", 24, -2**62, 2**62)),
    ("u8-i8", "<i8", ints("<u8", 20, 0, 2**63)),
    ("i8-f4", "<f4", ints("<i8", 20, -2**40, 2**40)),
    ("i4-f4", "<f4", ints("<i4", 30, -2**30, 2**30)),
    ("f8", None, smooth("<f8", 50)),
    ("f8-f4", "<f4", smooth("<f8", 50)),
    ("f4-f8", "<f8", smooth("<f4", 50)),
    ("f4", None, smooth("<f4", 64).reshape(8, 8)),
    ("f2", None, smooth("<f2", 40, 10)),
    ("f2-i2", "<i2", smooth("<f2", 40, 10)),
    ("be-f8", None, smooth(">f8", 30)),
    ("c8", None, (smooth("<f4", 10) + 1j * smooth("<f4", 10)).astype("<c8")),
    ("long-i4-f4", "<f4", ints("<i4", 20000, 1 << 24, (1 << 24) + 7)),
]
for name, astype, x in delta_cases:
    add(f"delta/{name}", Delta(dtype=x.dtype.str, astype=astype), "array", x)
# the filter's dtype differs from the chunk's byte order: numcodecs views
add("delta/view-le-as-be", Delta(dtype=">i4"), "array", ints("<i4", 12, -1000, 1000))

FSO = numcodecs.FixedScaleOffset
fso_cases = [
    ("doc-u1", dict(offset=1000, scale=10, astype="u1"), np.linspace(1000, 1001, 10, dtype="<f8")),
    ("doc-u2", dict(offset=1000, scale=1000, astype="u2"), np.linspace(1000, 1001, 10, dtype="<f8")),
    ("float-offset", dict(offset=1000.0, scale=100, astype="<u2"), np.linspace(1000, 1001, 25, dtype="<f8")),
    ("half-even", dict(offset=0, scale=1, astype="<i2"), np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5, 2.4999, -2.5], "<f8")),
    ("f4-i2", dict(offset=0.5, scale=100, astype="<i2"), smooth("<f4", 40)),
    ("f4-int-scale", dict(offset=3, scale=7, astype="<i4"), smooth("<f4", 40, 100)),
    ("f2-i1", dict(offset=0, scale=10, astype="|i1"), smooth("<f2", 30, 0.5)),
    ("f2-bigoffset", dict(offset=1000, scale=1, astype="<i2"), smooth("<f2", 30, 50)),
    ("i4-int", dict(offset=100, scale=2, astype="<i2"), ints("<i4", 30, -5000, 5000)),
    ("i2-wrap", dict(offset=1000, scale=30, astype="<i2"), ints("<i2", 30, -5000, 5000)),
    ("u1-negoffset", dict(offset=-5, scale=1, astype="|u1"), ints("|u1", 30, 0, 256)),
    ("u1-bigscale", dict(offset=0, scale=1000, astype="<u2"), ints("|u1", 30, 0, 256)),
    ("i4-float-scale", dict(offset=0, scale=0.5, astype="<i4"), ints("<i4", 30, -5000, 5000)),
    ("overflow-u1", dict(offset=0, scale=1, astype="|u1"), np.array([0, 255, 256, 300, -1, -300, 1e5, 3e9], "<f8")),
    ("be", dict(offset=10, scale=100, astype=">i4"), smooth(">f8", 30)),
    ("f8-f4", dict(offset=3.3, scale=0.1, astype="<f4"), smooth("<f8", 30, 100)),
    ("i8-u8", dict(offset=2**40, scale=3, astype="<u8"), ints("<i8", 30, 2**40, 2**41)),
    ("f8-2d", dict(offset=-1.25, scale=8, astype="<i2"), smooth("<f8", 24).reshape(4, 6)),
]
for name, kw, x in fso_cases:
    add(f"fixedscaleoffset/{name}", FSO(dtype=x.dtype.str, **kw), "array", x)

Q = numcodecs.Quantize
for dt in ("<f2", "<f4", "<f8", ">f8"):
    x = np.concatenate([np.linspace(0, 1, 10), smooth("<f8", 20, 10), [np.nan, np.inf, -np.inf, -0.0, 1e-8]]).astype(dt)
    for digits in (0, 1, 2, 3, 6):
        add(f"quantize/{dt[1:]}{'-be' if dt[0] == '>' else ''}-{digits}", Q(digits=digits, dtype=dt), "array", x)
add("quantize/f8-f4-3", Q(digits=3, dtype="<f8", astype="<f4"), "array", smooth("<f8", 30, 10))
add("quantize/f4-f8-2", Q(digits=2, dtype="<f4", astype="<f8"), "array", smooth("<f4", 30, 10))
add("quantize/f2-10", Q(digits=10, dtype="<f2"), "array", smooth("<f2", 30, 10))
add("quantize/f4-neg1", Q(digits=-1, dtype="<f4"), "array", smooth("<f4", 30, 100))
add("quantize/f8-15", Q(digits=15, dtype="<f8"), "array", smooth("<f8", 30, 1e5))

BR = numcodecs.BitRound
special = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e-40, 1e-310, 3.4e38, 65504, 6e-8, 1 / 3, -2 / 3, 123.456]
for dt, bits in (("<f2", 10), ("<f4", 23), ("<f8", 52)):  # numcodecs 0.11 rejects ">f4"
    x = np.concatenate([special, smooth("<f8", 30, 100)]).astype(dt)
    for keep in sorted({0, 1, 3, bits // 2, bits - 1, bits}):
        add(f"bitround/{dt[1:]}{'-be' if dt[0] == '>' else ''}-{keep}", BR(keepbits=keep), "array", x)

PB = numcodecs.PackBits
for n in (0, 1, 7, 8, 9, 20, 64):
    add(f"packbits/{n}", PB(), "array", rng.integers(0, 2, n).astype(bool))
add("packbits/2d", PB(), "array", rng.integers(0, 2, 15).astype(bool).reshape(3, 5))

Cat = numcodecs.Categorize
sexes = ["male", "female", "female", "male", "unexpected", "", "male"]
add("categorize/object", Cat(labels=["female", "male"], dtype=object), "array", obj(sexes))
add("categorize/object-none", Cat(labels=["a", "b"], dtype=object), "array", obj(["a", None, "b", 3, "c", "b"]))
add("categorize/object-i2", Cat(labels=["x", "y", "z"], dtype=object, astype="<i2"), "array", obj(["z", "y", "x", "w"]))
add("categorize/object-be-u2", Cat(labels=["x", "y", "z"], dtype=object, astype=">u2"), "array", obj(["z", "y", "x", "w"]))
add("categorize/object-f4", Cat(labels=["x", "y"], dtype=object, astype="<f4"), "array", obj(["y", "x", "q"]))
add("categorize/object-dup", Cat(labels=["a", "b", "a"], dtype=object), "array", obj(["a", "b", "c"]))
add("categorize/object-2d", Cat(labels=["αβγ", "日本"], dtype=object), "array", obj(["日本", "αβγ", "x", "日本"], (2, 2)))
add("categorize/unicode", Cat(labels=["female", "male"], dtype="<U10"), "array", np.array(sexes, dtype="<U10"))
add("categorize/unicode-short", Cat(labels=["female", "male"], dtype="<U2"), "array", np.array(["fe", "ma", "female"], dtype="<U2"))
add("categorize/unicode-be", Cat(labels=["ab", "cd"], dtype=">U3", astype="<i4"), "array", np.array(["cd", "ab", "zz"], dtype=">U3"))

AsType = numcodecs.AsType
wild = np.array([0.0, -0.0, 1.5, -1.5, 2.5, 127.9, 128.0, -129.0, 255.5, 256.0, 65535.0, 70000.7, -70000.7, 2.0 ** 31, -2.0 ** 31 - 1,
                 3e9, -3e9, 5e9, 2.0 ** 63, 1.8e19, 2.0 ** 64, 1e20, -1e20, np.inf, -np.inf, np.nan, 1e-300], "<f8")
astype_cases = [
    ("f8-f4", "<f4", smooth("<f8", 40)),
    ("f8-f2", "<f2", np.concatenate([smooth("<f8", 30, 1000), [65519.99, 65520.0, 1e-8, 6e-8, -1e6]]).astype("<f8")),
    ("f4-f2", "<f2", smooth("<f4", 30, 1000)),
    ("f2-f8", "<f8", smooth("<f2", 30, 10)),
    ("i4-be-i2", ">i2", ints("<i4", 30, -100000, 100000)),
    ("be-f8-le-f4", "<f4", smooth(">f8", 30)),
    ("i8-f4", "<f4", ints("<i8", 30, -2**62, 2**62)),
    ("u8-f4", "<f4", ints("<u8", 30, 0, 2**64 - 1)),
    ("u8-f8", "<f8", ints("<u8", 30, 0, 2**64 - 1)),
    ("i8-f2", "<f2", ints("<i8", 30, -70000, 70000)),
    ("b1-f4", "<f4", ints("|b1", 10, 0, 2)),
    ("f8-b1", "|b1", np.array([0.0, -0.0, 1.0, np.nan, 1e-300, -2.0], "<f8")),
    ("c16-c8", "<c8", (smooth("<f8", 10) + 1j * smooth("<f8", 10)).astype("<c16")),
    ("c16-f8", "<f8", (smooth("<f8", 10) + 1j * smooth("<f8", 10)).astype("<c16")),
    ("i2-c8", "<c8", ints("<i2", 10, -1000, 1000)),
    ("u4-i1", "|i1", ints("<u4", 30, 0, 2**32 - 1)),
    ("i1-u8", "<u8", ints("|i1", 30, -128, 128)),
    ("m8-i8", "<i8", np.array([0, 1, -5, 2**40], dtype="<m8[s]")),
]
for t in ("|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"):
    astype_cases.append((f"wild-f8-{t[1:]}", t, wild))
for t in ("|i1", "|u1", "<u4", "<i8", "<u8"):
    astype_cases.append((f"wild-f4-{t[1:]}", t, wild.astype("<f4")))
for t in ("|i1", "<u2", "<u8"):
    astype_cases.append((f"wild-f2-{t[1:]}", t, wild.astype("<f2")))


def stable_cast(x, t):
    """Out-of-range float to integer casts are undefined in NumPy: its SIMD
    and scalar loops disagree for some (uint32). Keep the values whose cast
    is the same in a 1-element and a 64-element array."""
    keep = [v for v in x if np.array([v], x.dtype).astype(t)[0] == np.full(64, v, x.dtype).astype(t)[0]]
    return np.array(keep, x.dtype)


astype_cases = [(n, t, stable_cast(x, t) if n.startswith("wild") else x) for n, t, x in astype_cases]
for name, enc_dt, x in astype_cases:
    add(f"astype/{name}", AsType(encode_dtype=enc_dt, decode_dtype=x.dtype.str), "array", x)

# ---------------------------------------------------------------- object codecs
strs = ["a", "bb", "", "ünïcödé", "日本語", "emoji \U0001F600", "tab\tnew\nline", "quote\"back\\slash", "\x00nul"]
add("vlen-utf8/1d", numcodecs.VLenUTF8(), "object", obj(strs))
add("vlen-utf8/none", numcodecs.VLenUTF8(), "object", obj(["x", None, 0, "y"]))
add("vlen-utf8/2d", numcodecs.VLenUTF8(), "object", obj(strs[:6], (2, 3)))
add("vlen-utf8/empty", numcodecs.VLenUTF8(), "object", obj([]))
add("vlen-bytes/1d", numcodecs.VLenBytes(), "object", obj([b"a", b"", b"\x00\xff\x80", bytes(range(256)), None]))
add("vlen-bytes/2d", numcodecs.VLenBytes(), "object", obj([b"ab", b"c", b"", b"def"], (2, 2)))
for dt in ("<i2", ">f8", "<u8", "|b1", "|u1"):
    items = [np.arange(3), None, [7], np.arange(10) * 3]
    if dt == "<u8":
        items.append([2**64 - 1, 2**63])
    add(f"vlen-array/{dt[1:]}{'-be' if dt[0] == '>' else ''}", numcodecs.VLenArray(dt), "object",
        obj([np.asarray(v, dtype=dt) if v is not None else None for v in items]))

J = numcodecs.JSON
json_values = ["text", "ünï", "日本語\U0001F600", "esc\"\\/\b\f\n\r\t\x01\x1f\x7f", "\u2028", 0, 1, -1, 2**63 - 1, -2**63, 12345678901234,
               0.1, -0.0, 1.0, 1e16, 1e15, 123456789012345678.0, 1e-4, 1e-5, 1.5e300, 5e-324, 2.5e-7, float("nan"),
               float("inf"), float("-inf"), True, False, None, [1, "two", [3.5, None]], {"b": 1, "a": [True], "ä": "x", "Z": {}}, [], {}]
add("json2/mixed", J(), "object", obj(json_values))
add("json2/2d", J(), "object", obj(["a", "b", "c", "d", 1, 2.5], (2, 3)))
add("json2/3d", J(), "object", obj(list(range(8)), (2, 2, 2)))
add("json2/nonascii", J(ensure_ascii=False), "object", obj(["ünï", "日本語\U0001F600", {"ß": "\u2028"}]))
add("json2/indent", J(indent=2), "object", obj([{"a": [1, 2], "b": {}}, [], "x"]))
add("json2/indent-str", J(indent="\t", sort_keys=True), "object", obj([{"z": 1, "a": [1, {"k": None}]}]))
add("json2/separators", J(separators=(" ,  ", " :\t")), "object", obj([{"a": 1, "b": [1, 2]}]))
add("json2/f8", J(), "object", smooth("<f8", 12).reshape(3, 4))
add("json2/i4", J(), "object", ints("<i4", 10, -2**31, 2**31 - 1))
add("json2/u8", J(), "object", np.array([0, 2**64 - 1, 2**63], "<u8"))
add("json2/b1", J(), "object", np.array([True, False, True]))
add("json2/U", J(), "object", np.array(["ab", "ü", ""], dtype="<U3"))
add("json2/f4", J(), "object", smooth("<f4", 10))

M = numcodecs.MsgPack
msgpack_values = ["text", "ünï", "日本語\U0001F600", "", "x" * 31, "y" * 32, "z" * 255, "w" * 256, "v" * 70000,
                  b"", b"\x00\xff", b"b" * 256, b"c" * 70000, 0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32,
                  2**63 - 1, 2**64 - 1, -1, -32, -33, -128, -129, -32768, -32769, -2**31, -2**31 - 1, -2**63,
                  0.1, -0.0, 1.5e300, float("nan"), float("inf"), True, False, None,
                  [1, "two", [3.5, None, b"\x01"]], [], {}, list(range(16)), {"a": {"b": [1]}}]
add("msgpack2/mixed", M(), "object", obj(msgpack_values))
# Maps: the engine keeps no key order and writes keys sorted, where msgpack
# keeps the dict's; numcodecs still reads the same values back.
add("msgpack2/maps", M(), "object", obj([{"b": 1, "a": [True], "ä": "x", "Z": {}}, {str(i): i for i in range(16)}]),
    exact=False)
add("msgpack2/2d", M(), "object", obj(["a", "b", "c", "d", 1, 2.5], (2, 3)))
add("msgpack2/3d", M(), "object", obj(list(range(8)), (2, 2, 2)))
add("msgpack2/single-float", M(use_single_float=True), "object", obj([0.1, 2.5, -1e10, "s", 3]))
add("msgpack2/no-bin-type", M(use_bin_type=False), "object", obj(["a" * 40, "b" * 300, "c", 7]))
add("msgpack2/raw", M(raw=True), "object", obj(["ab", b"cd", "\u00e9"]))
add("msgpack2/f8", M(), "object", smooth("<f8", 12).reshape(3, 4))
add("msgpack2/i8", M(), "object", ints("<i8", 10, -2**63, 2**63 - 1))
add("msgpack2/u8", M(), "object", np.array([0, 2**64 - 1, 2**63], "<u8"))
add("msgpack2/b1", M(), "object", np.array([True, False, True]))
add("msgpack2/U", M(), "object", np.array(["ab", "ü", ""], dtype="<U3"))

# ---------------------------------------------------------------- tables
quantize_scales = {}
for digits in range(-20, 31):
    precision = 10.0 ** -digits
    exp = math.log(precision, 10)
    exp = int(math.floor(exp)) if exp < 0 else int(math.ceil(exp))
    bits = math.ceil(math.log(10.0 ** -exp, 2))
    quantize_scales[str(digits)] = (2.0 ** bits).hex()

promotions = []
scalars = ["0", "1", "127", "128", "255", "256", "-1", "-128", "-129", "32767", "32768", "65535", "65536", "-32769",
           "2147483648", "4294967296", "-2147483649", "9223372036854775807", "-9223372036854775808",
           "0.5", "1.0", "-1.5", "64999.0", "65000.0", "70000.0", "3.3e38", "3.5e38", "1e300", "NaN", "Infinity"]
for dt in ("|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8"):
    a = np.zeros(1, dt)
    for s in scalars:
        v = json.loads(s)
        promotions.append([dt, s, (a - v).dtype.str if dt != "|b1" else (a + v).dtype.str])

with open(os.path.join(OUT, "index.json"), "w") as f:
    json.dump({"numcodecs": numcodecs.__version__, "numpy": np.__version__, "vectors": vectors,
               "quantize_scales": quantize_scales, "promotions": promotions}, f, indent=1, ensure_ascii=False)
total = sum(os.path.getsize(os.path.join(OUT, fn)) for fn in os.listdir(OUT))
print(f"{len(vectors)} vectors, {total} bytes in {OUT}")
