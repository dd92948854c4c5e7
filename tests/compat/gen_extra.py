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
  zarr-python  N5 arrays written by Debian's zarr-python 2.13 (zarr.n5:
               N5FSStore) with each compressor it writes, beside a zarr.json
               that reads the same blocks with the registry's n5_default
               codec (its shape in N5's dimension order, v2 chunk keys with
               "/", the codec chain the registry's table gives for the N5
               compressor). Values: the array zarr-python was given,
               transposed to N5's order.

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
    with open(os.path.join(HERE, "cases-extra.json"), "w") as f:
        json.dump(CASES, f, indent=0, sort_keys=True)
        f.write("\n")
    print("%d arrays" % len(CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
