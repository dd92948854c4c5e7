#!/usr/bin/python3
"""Summarise tests/blosc/bench.sh results (DIR/native.txt, wasm.txt, cblosc.json).

MB/s are 10^6 bytes of decompressed data per second; Go numbers are the median
over the -count runs, c-blosc numbers the median of bench_cblosc.py's runs.
"""
import json
import os
import re
import statistics
import sys

LINE = re.compile(r"^Benchmark(\w+)/([\w.+-]+?)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) MB/s")


def parse(path):
    res = {}
    if not os.path.exists(path):
        return res
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                res.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
    return {k: statistics.median(v) for k, v in res.items()}


def main():
    d = sys.argv[1]
    nat = parse(os.path.join(d, "native.txt"))
    wasm = parse(os.path.join(d, "wasm.txt"))
    with open(os.path.join(d, "cblosc.json")) as f:
        cb = json.load(f)
    nc = cb["ncores"]
    fmt = "| %-15s | %5s | %9s | %9s | %9s | %10s | %10s | %8s | %8s | %8s |"
    print("Decode, MB/s of output (4 MiB float32, clevel 5, typesize 4, chunks written by c-blosc %s)"
          % cb["c_blosc"].split()[0])
    print(fmt % ("config", "ratio", "Go 1 gor.", "Go par.", "Go wasm", "c-blosc 1t", "c-blosc %dt" % nc,
                 "Go1/c1t", "par/c%dt" % nc, "wasm/c1t"))
    print(fmt % tuple(["---"] * 10))

    def r(a, b):
        return "%.2f" % (a / b) if a and b else "-"

    def v(x):
        return "%.0f" % x if x else "-"

    for name, c in cb["configs"].items():
        n = nat.get(("Decode", name))
        p = nat.get(("DecodeParallel", name))
        w = wasm.get(("Decode", name))
        c1, cn = c["decode_1t"], c["decode_%dt" % nc]
        print(fmt % (name, "%.2f" % c["ratio"], v(n), v(p), v(w), v(c1), v(cn), r(n, c1), r(p, cn), r(w, c1)))
    print()
    print("Encode, MB/s of input (Go: own chunks; c-blosc: 1 thread)")
    fmt2 = "| %-15s | %9s | %10s | %8s |"
    print(fmt2 % ("config", "Go native", "c-blosc 1t", "Go/c"))
    print(fmt2 % tuple(["---"] * 4))
    for name, c in cb["configs"].items():
        n = nat.get(("Encode", name))
        print(fmt2 % (name, v(n), v(c["encode_1t"]), r(n, c["encode_1t"])))


if __name__ == "__main__":
    main()
