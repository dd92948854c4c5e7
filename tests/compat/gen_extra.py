#!/usr/bin/python3
"""Build the compatibility corpus's second part, tests/compat/cases-extra.json
and data/extra/ (the same case format as gen.py's cases.json; every harness
reads both):

  registry     the extension registry's sample data (zarr-developers/
               zarr-extensions: codecs/*/sample_data/*.zarr), with the
               values its READMEs state (bitround: the "Rounded (0b)" bits;
               the writer's inputs, the "Original (0b)" bits, for writing
               back).
  pillow       chunks Pillow 9.4 (with Debian's libtiff and libjpeg) writes:
               LZW strips of single-strip TIFFs read through the registry's
               "lzw" codec (pull request 16, imagecodecs' TIFF LZW), and
               JPEG images through its "jpeg" codec (pull request 66):
               grayscale and YCbCr at 4:4:4, 4:2:2 and 4:2:0. Values: the
               image Pillow was given (LZW), what Pillow's decoder gives
               (JPEG; other decoders may differ by a few levels, so within
               a tolerance), with the image given as the writer's input.
  numpy        arrays of the registry's cast_value and scale_offset codecs
               whose chunks NumPy computes as the READMEs define them
               (NumPy's rint is round-half-even, its integer arithmetic
               two's complement), with the values NumPy decodes them to;
               the writer's inputs given for writing back. Also a
               "conditional" array: numcodecs' shuffle and LZ4 applied as
               the README's first example decides, its header prepended;
               and an array of the "json" data type (pull request 9):
               numcodecs' VLenUTF8 over Python's json.dumps of each value
               (compact, keys sorted, non-ASCII kept: nlohmann::json's
               dump, which TensorStore writes).
  zarr-python  N5 arrays written by Debian's zarr-python 2.13 (zarr.n5:
               N5FSStore) with each compressor it writes, beside a zarr.json
               that reads the same blocks with the registry's n5_default
               codec (its shape in N5's dimension order, v2 chunk keys with
               "/", the codec chain the registry's table gives for the N5
               compressor). Values: the array zarr-python was given,
               transposed to N5's order. Also N5 arrays without edge
               blocks read the way the pad codec's README (pull request 36)
               reads N5: its header skipped by "pad", no n5_default codec.

Usage (from the repository root; needs python3-zarr, python3-numcodecs):
    /usr/bin/python3 tests/compat/gen_extra.py ZARR_EXTENSIONS_GITDIR

ZARR_EXTENSIONS_GITDIR is a git clone or mirror of zarr-extensions (its
main branch is read with git show).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import numcodecs
import zarr
import zarr.n5

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402  (put, raw_of, expect_for)

DATA = os.path.join(HERE, "data", "extra")
CASES = []
# expected values beside the arrays, named relative to data/expected/
gen.EXPECTED = os.path.join(DATA, "expected")


def put(content, ext):
    return "../extra/expected/" + gen.put(content, ext)


def git(gitdir, *args):
    return subprocess.run(["git", "-C", gitdir, *args], check=True, capture_output=True).stdout


def bits_column(readme, title, column):
    """The binary column of the table under the "### `title`" heading."""
    section = readme.split("### `%s`" % title)[1].split("###")[0]
    rows = [r for r in section.splitlines() if r.startswith("|") and "`" in r]
    out = []
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        out.append(int(cells[column].strip("`").replace("_", ""), 2))
    return out


def gen_registry(gitdir):
    files = git(gitdir, "ls-tree", "-r", "--name-only", "main", "codecs").decode().split("\n")
    samples = sorted({m.group(1) for f in files if (m := re.match(r"(codecs/[^/]+/sample_data/[^/]+\.zarr)/zarr\.json$", f))})
    for sample in samples:
        codec, name = sample.split("/")[1], os.path.basename(sample)
        for f in files:
            if f.startswith(sample + "/"):
                dst = os.path.join(DATA, "registry", codec, name, f[len(sample) + 1:])
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "wb") as out:
                    out.write(git(gitdir, "show", "main:" + f))
        readme = git(gitdir, "show", "main:codecs/%s/sample_data/README.md" % codec).decode()
        meta = json.load(open(os.path.join(DATA, "registry", codec, name, "zarr.json")))
        dt = meta["data_type"]
        np_dt = {"float32": "<u4", "uint8": "u1"}[dt]  # the stated bits
        rounded = np.array(bits_column(readme, name, 3), dtype=np_dt)
        original = np.array(bits_column(readme, name, 2), dtype=np_dt)
        expect = {"raw": put(rounded.tobytes(), ".bin"), "input": put(original.tobytes(), ".bin")}
        CASES.append({"source": "registry", "store": "extra/registry", "path": "%s/%s" % (codec, name),
                      "dtype": dt, "shape": list(rounded.shape), "expect": expect})


# N5 compressors zarr-python 2.13 writes, and the v3 codec reading the same stream
N5_COMPRESSORS = {
    "raw": (None, None),
    "gzip": (numcodecs.GZip(5), {"name": "gzip", "configuration": {"level": 5}}),
    "zlib": (numcodecs.Zlib(5), {"name": "numcodecs.zlib", "configuration": {"level": 5}}),
    "bzip2": (numcodecs.BZ2(5), {"name": "numcodecs.bz2", "configuration": {"level": 5}}),
    "xz": (numcodecs.LZMA(), {"name": "numcodecs.lzma", "configuration": {"format": 1, "check": -1, "preset": None, "filters": None}}),
    "zstd": (numcodecs.Zstd(3), {"name": "zstd", "configuration": {"level": 3, "checksum": False}}),
}
N5_DTYPES = ["uint8", "int16", "uint32", "int64", "float32", "float64"]


def gen_n5():
    tmp = tempfile.mkdtemp()
    store = zarr.n5.N5FSStore(os.path.join(tmp, "n5"))
    rng = np.random.default_rng(30)
    for cname, (compressor, v3) in N5_COMPRESSORS.items():
        for dt in N5_DTYPES:
            shape, chunks = (5, 7), (2, 3)  # edge blocks in both dimensions
            if np.dtype(dt).kind == "f":
                data = rng.normal(size=shape).astype(dt)
            else:
                info = np.iinfo(dt)
                data = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
            path = "%s/%s" % (cname, dt)
            a = zarr.create(store=store, path=path, shape=shape, chunks=chunks, dtype=dt, compressor=compressor, fill_value=0)
            a[:] = data
            src = os.path.join(tmp, "n5", path)
            dst = os.path.join(DATA, "n5", path)
            shutil.copytree(src, dst)
            attrs = json.load(open(os.path.join(dst, "attributes.json")))
            n = len(attrs["dimensions"])
            codecs = [{"name": "transpose", "configuration": {"order": list(range(n - 1, -1, -1))}},
                      {"name": "bytes", "configuration": {"endian": "big"}}]
            if v3 is not None:
                codecs.append(v3)
            doc = {"zarr_format": 3, "node_type": "array", "shape": attrs["dimensions"], "data_type": attrs["dataType"],
                   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": attrs["blockSize"]}},
                   "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
                   "fill_value": 0, "codecs": [{"name": "n5_default", "configuration": {"codecs": codecs}}]}
            with open(os.path.join(dst, "zarr.json"), "w") as f:
                json.dump(doc, f, indent=2)
            view = np.ascontiguousarray(data.T)  # N5's dimension order
            CASES.append({"source": "zarr-python", "store": "extra/n5", "path": path, "dtype": dt,
                          "shape": list(view.shape), "expect": {"raw": put(view.tobytes(), ".bin")}})
    shutil.rmtree(tmp)


def smooth(shape, seed):
    y, x = np.mgrid[0:shape[0], 0:shape[1]]
    img = 120 + 80 * np.sin(x / 7.0 + seed) * np.cos(y / 5.0) + np.random.default_rng(seed).normal(0, 6, shape)
    return np.clip(img, 0, 255).astype("u1")


def v3_doc(shape, dt, codecs):
    return {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dt,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shape)}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": codecs}


def gen_json():
    values = [None, True, False, 0, -7, 9007199254740991, 1.5, 1e300, -2.5e-8, "", "ü日本🙂",
              "q\" b\\ n\n t\t", [], [1, [2, [None]]], {}, {"b": 1, "a": [None, "x"], "ä": {"z": 2.25}}]
    texts = [json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
             for v in values]
    chunk = bytes(numcodecs.VLenUTF8().encode(np.array(texts, dtype=object)))
    shape = [len(values) // 2, 2]
    doc = v3_doc(shape, "json", [{"name": "vlen-utf8"}])
    doc["fill_value"] = {"some": "value"}  # the README's example
    write_case("numpy", "json/values", doc, chunk, {"values": "../extra/expected/" + gen.values_of(values)}, "json",
               shape, source="numpy")


def write_case(store, path, doc, chunk, expect, dt, shape, source="pillow"):
    dst = os.path.join(DATA, store, path)
    os.makedirs(os.path.join(dst, "c", "0"), exist_ok=True)
    with open(os.path.join(dst, "zarr.json"), "w") as f:
        json.dump(doc, f, indent=2)
    key = os.path.join(dst, "c", *["0"] * len(shape))
    os.makedirs(os.path.dirname(key), exist_ok=True)
    with open(key, "wb") as f:
        f.write(chunk)
    CASES.append({"source": source, "store": "extra/" + store, "path": path, "dtype": dt, "shape": list(shape), "expect": expect})


def gen_pillow():
    import io
    from PIL import Image
    # LZW: one strip per image, as libtiff writes it
    images = {"smooth_u1": smooth((48, 64), 1), "noise_u1": np.random.default_rng(2).integers(0, 256, (37, 53), dtype="u1")}
    for name, img in images.items():
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, format="TIFF", compression="tiff_lzw", tiffinfo={278: img.shape[0]})
        tif = Image.open(io.BytesIO(buf.getvalue()))
        (offset,), (count,) = tif.tag_v2[273], tif.tag_v2[279]
        strip = buf.getvalue()[offset:offset + count]
        doc = v3_doc(img.shape, "uint8", [{"name": "bytes"}, {"name": "lzw"}])
        write_case("pillow", "lzw/" + name, doc, strip, {"raw": put(img.tobytes(), ".bin")}, "uint8", img.shape)
    # JPEG: grayscale, and color at three subsamplings
    gray = smooth((32, 48), 3)
    rgb = np.stack([smooth((32, 48), 4), smooth((32, 48), 5), smooth((32, 48), 6)], axis=2)
    for name, img, sub, cfg in [
        ("gray", gray, None, [[1, 1]]),
        ("ycbcr444", rgb, 0, [[1, 1], [1, 1], [1, 1]]),
        ("ycbcr422", rgb, 1, [[2, 1], [1, 1], [1, 1]]),
        ("ycbcr420", rgb, 2, [[2, 2], [1, 1], [1, 1]]),
    ]:
        buf = io.BytesIO()
        kw = {"quality": 90}
        if sub is not None:
            kw["subsampling"] = sub
        Image.fromarray(img).save(buf, format="JPEG", **kw)
        decoded = np.asarray(Image.open(io.BytesIO(buf.getvalue())))
        jcfg = {"quality": 90, "subsampling": cfg}
        if img.ndim == 3:
            jcfg["encoded_color_space"] = "ycbcr"
        doc = v3_doc(img.shape, "uint8", [{"name": "jpeg", "configuration": jcfg}])
        atol = JPEG_ATOL if sub in (None, 0) else JPEG_ATOL_SUBSAMPLED
        expect = {"raw": put(decoded.tobytes(), ".bin"), "atol": atol, "input": put(img.tobytes(), ".bin")}
        write_case("pillow", "jpeg/" + name, doc, buf.getvalue(), expect, "uint8", img.shape)


# how far another JPEG decoder's samples may be from libjpeg's: the inverse
# DCT is not bit-exact across decoders (Go's image/jpeg: 1 level apart for
# gray, 3 for 4:4:4 color here), and for subsampled chroma libjpeg's
# "fancy" (triangular) upsampling differs from sample replication (Go's: 10
# and 11 levels apart for 4:2:2 and 4:2:0 here)
JPEG_ATOL = 4
JPEG_ATOL_SUBSAMPLED = 16


def gen_numpy():
    rng = np.random.default_rng(31)
    # cast_value: the README's NumPy-compatible float64 -> uint8 cast
    x = rng.uniform(-300, 600, (6, 8))
    x.flat[[0, 5, 9]] = [np.nan, np.inf, -np.inf]
    x.flat[[1, 2, 3]] = [2.9, 257.5, -1.5]
    stored = np.where(np.isfinite(x), np.mod(np.trunc(np.nan_to_num(x, posinf=0, neginf=0)), 256), 0).astype("u1")
    cfg = {"data_type": "uint8", "rounding": "towards-zero", "out_of_range": "wrap",
           "scalar_map": {"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]}}
    doc = v3_doc(x.shape, "float64", [{"name": "cast_value", "configuration": cfg}, {"name": "bytes"}])
    write_case("numpy", "cast_value/float64_uint8_wrap", doc, stored.tobytes(),
               {"raw": put(stored.astype("<f8").tobytes(), ".bin"), "input": put(x.astype("<f8").tobytes(), ".bin")},
               "float64", x.shape, source="numpy")
    # cast_value: float32 -> int16, nearest-even, clamped
    x = (rng.uniform(-50000, 50000, (5, 7)) * 2).round() / 2  # ties among them
    x = x.astype("f4")
    stored = np.clip(np.rint(x), -32768, 32767).astype("<i2")
    cfg = {"data_type": "int16", "rounding": "nearest-even", "out_of_range": "clamp"}
    doc = v3_doc(x.shape, "float32", [{"name": "cast_value", "configuration": cfg},
                                      {"name": "bytes", "configuration": {"endian": "little"}}])
    write_case("numpy", "cast_value/float32_int16_clamp", doc, stored.tobytes(),
               {"raw": put(stored.astype("<f4").tobytes(), ".bin"), "input": put(x.tobytes(), ".bin")},
               "float32", x.shape, source="numpy")
    # scale_offset then cast_value: the README's float64 -> uint8 with NaN kept
    x = rng.uniform(0, 2540, (4, 9))
    x.flat[[0, 7]] = np.nan
    stored = np.where(np.isnan(x), 0, np.rint((x - -10.0) * 0.1)).astype("u1")
    back = np.where(stored == 0, np.nan, stored.astype("f8") / 0.1 + -10.0)
    cfg = {"data_type": "uint8", "rounding": "nearest-even", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}
    doc = v3_doc(x.shape, "float64", [{"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
                                      {"name": "cast_value", "configuration": cfg}, {"name": "bytes"}])
    doc["fill_value"] = "NaN"
    write_case("numpy", "scale_offset/float64_uint8_nan", doc, stored.tobytes(),
               {"raw": put(back.astype("<f8").tobytes(), ".bin"), "input": put(x.astype("<f8").tobytes(), ".bin")},
               "float64", x.shape, source="numpy")
    # scale_offset alone, in float32 arithmetic
    x = rng.uniform(-100, 100, (3, 11)).astype("f4")
    o, sc = np.float32(5), np.float32(0.1)
    stored = ((x - o) * sc).astype("<f4")
    back = (stored / sc + o).astype("<f4")
    doc = v3_doc(x.shape, "float32", [{"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}},
                                      {"name": "bytes", "configuration": {"endian": "little"}}])
    doc["fill_value"] = 5
    write_case("numpy", "scale_offset/float32", doc, stored.tobytes(),
               {"raw": put(back.tobytes(), ".bin"), "input": put(x.tobytes(), ".bin")}, "float32", x.shape, source="numpy")
    # scale_offset on int16: (x - 1000) * 2, decoded by a division that is exact here
    x = rng.integers(1000 - 8000, 1000 + 8000, (6, 6)).astype("<i2")
    stored = ((x - np.int16(1000)) * np.int16(2)).astype("<i2")
    back = (stored // np.int16(2) + np.int16(1000)).astype("<i2")
    doc = v3_doc(x.shape, "int16", [{"name": "scale_offset", "configuration": {"offset": 1000, "scale": 2}},
                                    {"name": "bytes", "configuration": {"endian": "little"}}])
    doc["fill_value"] = 1000
    write_case("numpy", "scale_offset/int16", doc, stored.tobytes(), {"raw": put(back.tobytes(), ".bin")},
               "int16", x.shape, source="numpy")


def gen_conditional():
    # the conditional codec's README example 1: shuffle always, the
    # compressor only where it shrinks the chunk (numcodecs' LZ4 here)
    rng = np.random.default_rng(37)
    x = np.concatenate([np.sin(np.arange(64) / 5.0), rng.normal(size=64), np.full(64, 2.5)]).astype("<f4")
    shuffle, lz4 = numcodecs.Shuffle(elementsize=4), numcodecs.LZ4(acceleration=1)
    doc = v3_doc(x.shape, "float32", [{"name": "bytes", "configuration": {"endian": "little"}},
                                      {"name": "conditional", "configuration": {"codecs": [
                                          {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
                                          {"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}]}}])
    doc["chunk_grid"]["configuration"]["chunk_shape"] = [64]
    dst = os.path.join(DATA, "numpy", "conditional/float32_shuffle_lz4")
    os.makedirs(os.path.join(dst, "c"), exist_ok=True)
    with open(os.path.join(dst, "zarr.json"), "w") as f:
        json.dump(doc, f, indent=2)
    for i in range(3):
        b = shuffle.encode(x[64 * i:64 * (i + 1)].tobytes())
        mask = 1
        z = bytes(lz4.encode(b))
        if len(z) < len(b):
            b, mask = z, mask | 2
        with open(os.path.join(dst, "c", str(i)), "wb") as f:
            f.write(bytes([mask]) + bytes(b))
    CASES.append({"source": "numpy", "store": "extra/numpy", "path": "conditional/float32_shuffle_lz4", "dtype": "float32",
                  "shape": list(x.shape), "expect": {"raw": put(x.tobytes(), ".bin")}})


def gen_n5_pad():
    import base64
    import struct
    tmp = tempfile.mkdtemp()
    store = zarr.n5.N5FSStore(os.path.join(tmp, "n5"))
    rng = np.random.default_rng(36)
    for cname in ["raw", "zstd"]:
        compressor, v3 = N5_COMPRESSORS[cname]
        shape, chunks = (32, 48), (16, 16)  # no edge blocks: pad's header has one size
        data = rng.integers(0, 65536, size=shape, dtype="u2")
        path = "pad/%s/uint16" % cname
        a = zarr.create(store=store, path=path, shape=shape, chunks=chunks, dtype="u2", compressor=compressor, fill_value=0)
        a[:] = data
        src = os.path.join(tmp, "n5", path)
        dst = os.path.join(DATA, "n5", path)
        shutil.copytree(src, dst)
        attrs = json.load(open(os.path.join(dst, "attributes.json")))
        n = len(attrs["dimensions"])
        header = struct.pack(">HH", 0, n) + b"".join(struct.pack(">I", b) for b in attrs["blockSize"])
        codecs = [{"name": "transpose", "configuration": {"order": list(range(n - 1, -1, -1))}},
                  {"name": "bytes", "configuration": {"endian": "big"}}]
        if v3 is not None:
            codecs.append(v3)
        codecs.append({"name": "pad", "configuration": {"location": "start", "nbytes": len(header),
                                                        "padding": base64.b64encode(header).decode()}})
        doc = {"zarr_format": 3, "node_type": "array", "shape": attrs["dimensions"], "data_type": "uint16",
               "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": attrs["blockSize"]}},
               "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
               "fill_value": 0, "codecs": codecs}
        with open(os.path.join(dst, "zarr.json"), "w") as f:
            json.dump(doc, f, indent=2)
        view = np.ascontiguousarray(data.T)
        CASES.append({"source": "zarr-python", "store": "extra/n5", "path": path, "dtype": "uint16",
                      "shape": list(view.shape), "expect": {"raw": put(view.tobytes(), ".bin")}})
    shutil.rmtree(tmp)


def gen_singleton_jpeg():
    import io
    from PIL import Image
    # singleton_dim's use in its README: a 2D image codec under a 3D array
    img = smooth((32, 48), 7)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=90)
    decoded = np.asarray(Image.open(io.BytesIO(buf.getvalue())))
    doc = v3_doc((1,) + img.shape, "uint8", [{"name": "singleton_dim", "configuration": {"operations": [{"remove": 0}]}},
                                             {"name": "jpeg", "configuration": {"quality": 90, "subsampling": [[1, 1]]}}])
    expect = {"raw": put(decoded.tobytes(), ".bin"), "atol": JPEG_ATOL, "input": put(img.tobytes(), ".bin")}
    write_case("pillow", "singleton_dim/jpeg_gray", doc, buf.getvalue(), expect, "uint8", (1,) + img.shape)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if os.path.exists(DATA):
        shutil.rmtree(DATA)
    os.makedirs(gen.EXPECTED)
    gen_registry(sys.argv[1])
    gen_pillow()
    gen_n5()
    gen_numpy()
    gen_json()
    gen_conditional()
    gen_n5_pad()
    gen_singleton_jpeg()
    with open(os.path.join(HERE, "cases-extra.json"), "w") as f:
        json.dump(CASES, f, indent=0, sort_keys=True)
        f.write("\n")
    print("%d arrays" % len(CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
