#!/usr/bin/python3
"""Decode chunks encoded by the Go codecs with numcodecs and compare.

Usage:
    /usr/bin/python3 tests/codecs/check_go_encodings.py <go_index.json>

Run by TestNumcodecsEncode (zarr/codec/numcodecs_test.go), which encodes the
input of every vector of zarr/codec/testdata/numcodecs in Go, writes each
encoding to a file and lists them in go_index.json:

  [{"name", "kind": "bytes" | "array" | "object", "config": numcodecs config,
    "dtype", "shape": the chunk, "file": the Go encoding,
    "encoded_dtype": for "array", the dtype of the encoded array,
    "decoded": file with the expected decoded bytes (chunk dtype), or
    "decoded_values": expected values, tagged as in gen_vectors.py}]

Each encoding is decoded with numcodecs.get_codec(config) and compared with
the expectation (numcodecs' decoding of its own encoding of the same input).
Prints "ok <name>" or "FAIL <name>: <reason>" per entry, then a summary;
exits 1 if anything failed.
"""

import json
import sys
import warnings

import numpy as np
import numcodecs

from tagged import tag

warnings.simplefilter("ignore")


def normalize(t):
    """Dict entries compare in key order."""
    if t["t"] == "dict":
        return {"t": "dict", "v": sorted([[k, normalize(x)] for k, x in t["v"]], key=lambda kv: kv[0])}
    if t["t"] == "list":
        return {"t": "list", "v": [normalize(x) for x in t["v"]]}
    return t


def check(e):
    codec = numcodecs.get_codec(dict(e["config"]))
    with open(e["file"], "rb") as f:
        data = f.read()
    if e["kind"] == "bytes":
        dec = bytes(codec.decode(data))
    elif e["kind"] == "array":
        dec = codec.decode(np.frombuffer(data, dtype=e["encoded_dtype"]))
    else:
        dec = codec.decode(data)
    if "decoded_values" in e:
        got = [normalize(tag(v)) for v in np.asarray(dec, dtype=object).reshape(-1)]
        want = [normalize(t) for t in e["decoded_values"]]
        if len(got) != len(want):
            return f"{len(got)} values, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                return f"value {i}: {g} != {w}"
        return None
    with open(e["decoded"], "rb") as f:
        want = f.read()
    if e["kind"] == "bytes":
        got = dec
    else:
        arr = np.asarray(dec)
        if e["kind"] == "object":
            arr = arr.astype(np.dtype(e["dtype"]))
        got = arr.tobytes()
    if got != want:
        return f"decoded {len(got)} bytes {got[:32].hex()}..., want {len(want)} bytes {want[:32].hex()}..."
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    with open(sys.argv[1]) as f:
        entries = json.load(f)
    failed = 0
    for e in entries:
        try:
            err = check(e)
        except Exception as ex:  # numcodecs refused the Go encoding
            err = f"{type(ex).__name__}: {ex}"
        if err:
            failed += 1
            print(f"FAIL {e['name']}: {err}")
        else:
            print(f"ok {e['name']}")
    print(f"{len(entries) - failed} Go encodings decoded by numcodecs {numcodecs.__version__}, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
