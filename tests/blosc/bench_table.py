#!/usr/bin/python3
"""Summarise tests/blosc/bench.sh results.

Reads DIR/native.txt and DIR/wasm.txt (go test -bench output, one run per
round, rounds in order) and DIR/cblosc-round<N>.json (bench_cblosc.py, one
per round). MB/s are 10^6 bytes of decompressed data per second (Go's
b.SetBytes convention). Each cell is the median over the rounds; ratio
columns are the median of the per-round ratios.
"""
import glob
import json
import os
import re
import statistics
import sys

LINE = re.compile(r"^Benchmark(\w+)/([\w.+-]+?)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) MB/s(?:\s+([\d.]+) ratio)?")


def parse(path):
    """-> {(bench, config): [MB/s per round]}, {(bench, config): ratio}"""
    res, ratio = {}, {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = LINE.match(line)
                if m:
                    key = (m.group(1), m.group(2))
                    res.setdefault(key, []).append(float(m.group(3)))
                    if m.group(4):
                        ratio[key] = float(m.group(4))
    return res, ratio


def med(xs):
    xs = [x for x in xs if x]
    return statistics.median(xs) if xs else None


def ratios(a, b):
    return med([x / y for x, y in zip(a or [], b or []) if x and y])


def main():
    d = sys.argv[1]
    nat, nat_ratio = parse(os.path.join(d, "native.txt"))
    wasm, _ = parse(os.path.join(d, "wasm.txt"))
    rounds = []
    for p in sorted(glob.glob(os.path.join(d, "cblosc-round*.json")),
                    key=lambda p: int(re.search(r"round(\d+)", p).group(1))):
        with open(p) as f:
            rounds.append(json.load(f))
    if not rounds:
        sys.exit("no cblosc-round*.json in " + d)
    nc = rounds[0]["ncores"]
    names = list(rounds[0]["configs"])

    def cb(name, key):
        return [r["configs"][name][key] for r in rounds]

    def v(x):
        return "%.0f" % x if x else "-"

    def q(x):
        return "%.2f" % x if x else "-"

    print("Decode, MB/s of output: 4 MiB float32 (sum of sines + noise), clevel 5, typesize 4, automatic")
    print("blocksize, chunks written by c-blosc %s; %d rounds; medians over rounds"
          % (rounds[0]["c_blosc"].split()[0], len(rounds)))
    print()
    fmt = "| %-15s | %5s | %9s | %9s | %10s | %10s | %9s | %8s | %8s | %9s |"
    print(fmt % ("config", "ratio", "Go native", "Go wasm", "c-blosc 1t", "Go par.", "c-blosc %dt" % nc,
                 "Go/c 1t", "wasm/c 1t", "par/c %dt" % nc))
    print(fmt % tuple(["---"] * 10))
    for name in names:
        n = nat.get(("Decode", name))
        p = nat.get(("DecodeParallel", name))
        w = wasm.get(("Decode", name))
        c1, cn = cb(name, "decode_1t"), cb(name, "decode_%dt" % nc)
        print(fmt % (name, "%.2f" % rounds[0]["configs"][name]["ratio"], v(med(n or [])), v(med(w or [])),
                     v(med(c1)), v(med(p or [])), v(med(cn)), q(ratios(n, c1)), q(ratios(w, c1)), q(ratios(p, cn))))
    print()
    print("Encode, MB/s of input, one thread each (Go writes its own chunks; their ratio is shown)")
    print()
    fmt2 = "| %-15s | %8s | %9s | %8s | %10s | %7s |"
    print(fmt2 % ("config", "Go ratio", "Go native", "c ratio", "c-blosc 1t", "Go/c"))
    print(fmt2 % tuple(["---"] * 6))
    for name in names:
        n = nat.get(("Encode", name))
        c = cb(name, "encode_1t")
        gr = nat_ratio.get(("Encode", name))
        print(fmt2 % (name, q(gr), v(med(n or [])), "%.2f" % rounds[0]["configs"][name]["ratio"],
                      v(med(c)), q(ratios(n, c))))


if __name__ == "__main__":
    main()
