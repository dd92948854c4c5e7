#!/usr/bin/python3
"""Decode Go-written Blosc chunks with c-blosc (python-blosc) and compare.

Usage: /usr/bin/python3 tests/blosc/decode_check.py DIR

DIR holds (written by zarr/blosc's TestEncodeCBloscDecode):
  manifest.json  {"cases": [[name, dataset, offset, length], ...]}
  chunks.bin     the Go-encoded chunks, concatenated
  data/<dataset>.bin  the original bytes

Prints one line per failure and a summary line
  "checked N chunks: M ok, K failed (c-blosc X)"
and exits with status 1 if anything failed, 2 if python-blosc is missing.
"""
import json
import os
import sys

try:
    import blosc
except ImportError as e:  # pragma: no cover
    print("python-blosc missing: %s" % e)
    sys.exit(2)


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    with open(os.path.join(d, "chunks.bin"), "rb") as f:
        blob = f.read()
    data = {}
    blosc.set_nthreads(1)
    ok = failed = 0
    for name, ds, off, n in cases:
        if ds not in data:
            with open(os.path.join(d, "data", ds + ".bin"), "rb") as f:
                data[ds] = f.read()
        want = data[ds]
        chunk = blob[off:off + n]
        try:
            got = blosc.decompress(chunk)
        except Exception as e:  # c-blosc rejected the chunk
            print("FAIL %s: c-blosc error: %s" % (name, e))
            failed += 1
            continue
        if got != want:
            where = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
            print("FAIL %s: mismatch (got %d bytes, want %d, first difference at %d)" % (name, len(got), len(want), where))
            failed += 1
            continue
        ok += 1
    print("checked %d chunks: %d ok, %d failed (c-blosc %s)" % (len(cases), ok, failed, blosc.blosclib_version))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
