#!/usr/bin/python3
"""Decode chunks with numcodecs (Debian's python3-numcodecs): for each job
on stdin, a JSON list of {"id", "codec" (a numcodecs config), "ours",
"theirs" (base64)}, print "id OK" when numcodecs decodes both chunks and
gets the same bytes, else "id FAIL why". zarr/compat_write_test.go runs it
on the chunks zarr-wasm writes back whose compressed bytes differ from the
writer's (another compressor implementation, the same stream format)."""

import base64
import json
import sys

import numcodecs


def main():
    jobs = json.load(sys.stdin)
    for job in jobs:
        try:
            codec = numcodecs.get_codec(dict(job["codec"]))
            ours = bytes(codec.decode(base64.b64decode(job["ours"])))
            theirs = bytes(codec.decode(base64.b64decode(job["theirs"])))
        except Exception as e:  # noqa: BLE001 -- any failure is the answer
            print("%s FAIL %s: %s" % (job["id"], type(e).__name__, str(e).replace("\n", " ")[:200]))
            continue
        if ours == theirs:
            print("%s OK" % job["id"])
        else:
            print("%s FAIL decoded to %d bytes, the writer's to %d (other bytes)" % (job["id"], len(ours), len(theirs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
