#!/usr/bin/python3
"""Build the compatibility corpus's second part, tests/compat/cases-extra.json
and data/extra/ (the same case format as gen.py's cases.json; every harness
reads both):

  registry     the extension registry's sample data (zarr-developers/
               zarr-extensions: codecs/*/sample_data/*.zarr), with the
               values its READMEs state (bitround: the "Rounded (0b)" bits;
               the writer's inputs, the "Original (0b)" bits, for writing
               back).
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


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if os.path.exists(DATA):
        shutil.rmtree(DATA)
    os.makedirs(gen.EXPECTED)
    gen_registry(sys.argv[1])
    gen_n5()
    with open(os.path.join(HERE, "cases-extra.json"), "w") as f:
        json.dump(CASES, f, indent=0, sort_keys=True)
        f.write("\n")
    print("%d arrays" % len(CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
