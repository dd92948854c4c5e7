#!/usr/bin/python3
"""Generate Blosc1 fixtures with c-blosc (python-blosc) for zarr/blosc's tests.

Run from anywhere:  /usr/bin/python3 tests/blosc/gen_fixtures.py
Needs python3-blosc and python3-numpy (Debian: apt-get install python3-blosc python3-numpy).

Writes into tests/blosc/fixtures/:
  data/<dataset>.bin   the original bytes of each dataset
  chunks.bin.gz        all compressed chunks, concatenated (gzip'd to keep the repo small)
  index.json           one entry per chunk: [dataset, cname, clevel, shuffle, typesize,
                       blocksize (as requested, 0 = automatic), offset, length in chunks.bin]

The matrix is cname x shuffle x typesize {1,2,3,4,8,24} x blocksize {0,256,4096,65536}
x dataset (random, smooth, constant, short < 128 bytes, empty, plus a 70000-byte smooth
set whose size leaves short last blocks), and a few extras (clevel sweep, odd typesizes).
Everything is deterministic (fixed seeds, single thread).
"""
import gzip
import json
import os
import sys

import blosc
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]
SHUFFLES = [0, 1, 2]
TYPESIZES = [1, 2, 3, 4, 8, 24]
BLOCKSIZES = [0, 256, 4096, 65536]


def datasets():
    rng = np.random.default_rng(20240611)
    d = {}
    d["empty"] = b""
    d["short"] = rng.integers(0, 256, 100, dtype=np.uint8).tobytes()
    d["random"] = rng.integers(0, 256, 600, dtype=np.uint8).tobytes()
    # smooth float32 signal with a little noise, quantised like real measurements
    i = np.arange(1000)
    x = 100 * np.sin(i * 0.01) + 10 * np.sin(i * 0.173) + rng.normal(0, 0.05, i.size)
    d["smooth"] = (np.round(x * 16) / 16).astype("<f4").tobytes()  # 4000 bytes
    d["constant"] = bytes([0x2A]) * 5000
    # 70000 bytes: not a multiple of 3, 8 or 24 -> trailing bytes and short last blocks
    i = np.arange(17500)
    y = 1000 + 300 * np.sin(i * 0.002) + rng.normal(0, 0.2, i.size)
    d["big"] = np.round(y).astype("<i4").tobytes()
    return d


def main():
    try:
        ver = blosc.blosclib_version
    except AttributeError:
        ver = "?"
    blosc.set_nthreads(1)
    data = datasets()
    os.makedirs(os.path.join(OUT, "data"), exist_ok=True)
    for name, b in data.items():
        with open(os.path.join(OUT, "data", name + ".bin"), "wb") as f:
            f.write(b)

    cases = []
    # the full matrix on the small datasets
    for ds in ["empty", "short", "random", "smooth", "constant"]:
        for cname in CNAMES:
            for shuffle in SHUFFLES:
                for ts in TYPESIZES:
                    for bs in BLOCKSIZES:
                        cases.append((ds, cname, 5, shuffle, ts, bs))
    # the 70000-byte set: more blocks, short last blocks, automatic blocksizes >= 32 KiB
    for cname in CNAMES:
        for shuffle in SHUFFLES:
            for ts in [1, 3, 4, 24]:
                for bs in [0, 4096]:
                    cases.append(("big", cname, 5, shuffle, ts, bs))
    # clevel sweep (blocksize choice depends on it)
    for cname in CNAMES:
        for clevel in range(10):
            cases.append(("big", cname, clevel, 1, 4, 0))
        cases.append(("big", cname, 9, 2, 8, 0))
    # odd / large typesizes
    for cname in CNAMES:
        for ts in [5, 7, 16, 17, 255]:
            cases.append(("big", cname, 5, 1, ts, 65536))
            for shuffle in SHUFFLES:
                cases.append(("smooth", cname, 5, shuffle, ts, 1000))

    blob = bytearray()
    index = []
    seen = set()
    for ds, cname, clevel, shuffle, ts, bs in cases:
        key = (ds, cname, clevel, shuffle, ts, bs)
        if key in seen:
            continue
        seen.add(key)
        blosc.set_blocksize(bs)
        c = blosc.compress(data[ds], typesize=ts, clevel=clevel, shuffle=shuffle, cname=cname)
        assert blosc.decompress(c) == data[ds]
        # [dataset, cname, clevel, shuffle, typesize, blocksize, offset, length]
        index.append([ds, cname, clevel, shuffle, ts, bs, len(blob), len(c)])
        blob += c
    blosc.set_blocksize(0)

    with gzip.GzipFile(os.path.join(OUT, "chunks.bin.gz"), "wb", compresslevel=9, mtime=0) as f:
        f.write(bytes(blob))
    with open(os.path.join(OUT, "index.json"), "w") as f:
        f.write('{"generator": "tests/blosc/gen_fixtures.py", "python_blosc": %s, "c_blosc": %s,\n'
                % (json.dumps(blosc.__version__), json.dumps(ver)))
        f.write('"fixtures": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in index))
        f.write("\n]}\n")
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fns in os.walk(OUT) for fn in fns)
    print("wrote %d fixtures (%d chunk bytes raw) into %s, %d bytes on disk; c-blosc %s"
          % (len(index), len(blob), OUT, total, ver), file=sys.stderr)


if __name__ == "__main__":
    main()
