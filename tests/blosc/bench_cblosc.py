#!/usr/bin/python3
"""Time c-blosc (python-blosc) on the zarr/blosc benchmark data.

Usage: /usr/bin/python3 tests/blosc/bench_cblosc.py DIR [RUNS]

DIR/data.f32 is the 4 MiB float32 input, written by
  BLOSC_BENCH_DIR=DIR go test -run '^TestWriteBenchData$' ./zarr/blosc
(the same bytes the Go benchmarks use). For every configuration this script
compresses the data with c-blosc, writes DIR/cblosc-<config>.blosc (which
the Go benchmarks then decode, so both sides decode the very same chunk),
and times decompression into a preallocated buffer, single-threaded and
with c-blosc's default thread count (one per core). Each run repeats the
call for >= 0.2 s; the reported MB/s (10^6 bytes of decompressed output per
second, like Go's b.SetBytes) is the median over RUNS (default 7) runs.
Results are printed and written to DIR/cblosc.json.
"""
import json
import os
import statistics
import sys
import time

import blosc
import numpy as np

CONFIGS = [
    ("lz4-shuffle", "lz4", 1),
    ("blosclz-shuffle", "blosclz", 1),
    ("zstd-shuffle", "zstd", 1),
    ("zlib-shuffle", "zlib", 1),
    ("lz4-bitshuffle", "lz4", 2),
]


def mbps(fn, nbytes, min_time=0.2):
    fn()  # warm up
    n = 0
    t0 = time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return nbytes * n / dt / 1e6


def main():
    d = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with open(os.path.join(d, "data.f32"), "rb") as f:
        data = f.read()
    out = np.empty(len(data), dtype=np.uint8)
    addr = out.__array_interface__["data"][0]
    res = {"c_blosc": blosc.blosclib_version, "ncores": blosc.ncores, "nbytes": len(data), "configs": {}}
    print("c-blosc %s, %d cores, %d bytes of float32, clevel 5, typesize 4, automatic blocksize"
          % (blosc.blosclib_version, blosc.ncores, len(data)))
    print("%-16s %8s %12s %12s %12s" % ("config", "ratio", "dec 1 thr", "dec %d thr" % blosc.ncores, "enc 1 thr"))
    for name, cname, shuffle in CONFIGS:
        blosc.set_nthreads(1)
        blosc.set_blocksize(0)
        chunk = blosc.compress(data, typesize=4, clevel=5, shuffle=shuffle, cname=cname)
        with open(os.path.join(d, "cblosc-%s.blosc" % name), "wb") as f:
            f.write(chunk)
        blosc.decompress_ptr(chunk, addr)
        assert out.tobytes() == data
        r = {"ratio": len(data) / len(chunk), "cbytes": len(chunk)}
        for nt in (1, blosc.ncores):
            blosc.set_nthreads(nt)
            r["decode_%dt" % nt] = statistics.median(
                mbps(lambda: blosc.decompress_ptr(chunk, addr), len(data)) for _ in range(runs))
        blosc.set_nthreads(1)
        r["encode_1t"] = statistics.median(
            mbps(lambda: blosc.compress(data, typesize=4, clevel=5, shuffle=shuffle, cname=cname), len(data))
            for _ in range(max(3, runs // 2)))
        res["configs"][name] = r
        print("%-16s %8.2f %12.0f %12.0f %12.0f" % (name, r["ratio"], r["decode_1t"],
                                                   r["decode_%dt" % blosc.ncores], r["encode_1t"]))
    blosc.set_nthreads(blosc.ncores)
    with open(os.path.join(d, "cblosc.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
