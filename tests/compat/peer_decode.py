#!/usr/bin/python3
"""Decode chunks with numcodecs (Debian's python3-numcodecs): for each job
on stdin, a JSON list of {"id", "codec" (a numcodecs config), "ours",
"theirs" (base64)}, print "id OK" when numcodecs decodes both chunks and
gets the same bytes, else "id FAIL why". zarr/compat_write_test.go runs it
on the chunks zarr-wasm writes back whose compressed bytes differ from the
writer's (another compressor implementation, the same stream format).

A JPEG chunk ({"id": "jpeg"}, with "input", the samples both encoders were
given) is decoded by Pillow instead: OK when ours decodes as close to the
input as the writer's does, give or take a few levels (two lossy encoders
never write the same bytes)."""

import base64
import json
import sys

import numcodecs
import numpy as np

JPEG_MARGIN = 8


def pillow_error(data, samples):
    import io
    from PIL import Image
    img = np.asarray(Image.open(io.BytesIO(data))).astype(int).reshape(-1)
    return int(np.abs(img - samples).max())


def main():
    jobs = json.load(sys.stdin)
    for job in jobs:
        if job["codec"]["id"] == "jpeg":
            try:
                samples = np.frombuffer(base64.b64decode(job["input"]), dtype="u1").astype(int)
                ours = pillow_error(base64.b64decode(job["ours"]), samples)
                theirs = pillow_error(base64.b64decode(job["theirs"]), samples)
            except Exception as e:  # noqa: BLE001
                print("%s FAIL %s: %s" % (job["id"], type(e).__name__, str(e).replace("\n", " ")[:200]))
                continue
            if ours <= theirs + JPEG_MARGIN:
                print("%s OK" % job["id"])
            else:
                print("%s FAIL Pillow decodes ours %d levels from the input, the writer's %d" % (job["id"], ours, theirs))
            continue
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
