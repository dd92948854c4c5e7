#!/usr/bin/python3
"""Read N5 arrays zarr-wasm wrote with Debian's zarr-python 2.13 (zarr.n5):
for each job on stdin, a JSON list of {"id", "root" (an N5 container),
"path", "dtype", "expected" (a file of the values in N5's dimension order,
little-endian)}, print "id OK" when zarr-python reads those values (its
view is the transpose), else "id FAIL why". zarr/compat_write_test.go runs it
on the n5_default arrays of the compatibility corpus it writes back."""

import json
import sys

import numpy as np
import zarr
import zarr.n5


def main():
    for job in json.load(sys.stdin):
        try:
            a = zarr.open_array(zarr.n5.N5FSStore(job["root"]), path=job["path"], mode="r")
            got = np.ascontiguousarray(a[...].T)
            want = np.fromfile(job["expected"], dtype=np.dtype(job["dtype"]).newbyteorder("<")).reshape(got.shape)
        except Exception as e:  # noqa: BLE001 -- any failure is the answer
            print("%s FAIL %s: %s" % (job["id"], type(e).__name__, str(e).replace("\n", " ")[:200]))
            continue
        if np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
            print("%s OK" % job["id"])
        else:
            print("%s FAIL other values" % job["id"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
