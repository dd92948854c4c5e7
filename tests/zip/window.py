#!/usr/bin/python3
"""Write, with zarr-python's ZipStore, the zips the window-read tests read.

    /usr/bin/python3 tests/zip/window.py DIR

DIR gets stored.zip and deflated.zip (zip entries stored / deflated), each
holding a 200x200 int32 array of 20x20 chunks (no compressor) at "arr", and
window.bin: what zarr-python reads of arr[30:170, 45:155] (little-endian
int32, C order). Used by zarr/zip_test.go and tests/node/zip.test.mjs.
"""
import sys
import zipfile

import numpy as np
import zarr

d = sys.argv[1]
a = (np.arange(40000, dtype="<i8").reshape(200, 200) * 7919 % 100003 - 50000).astype("<i4")
for name, comp in (("stored.zip", zipfile.ZIP_STORED), ("deflated.zip", zipfile.ZIP_DEFLATED)):
    s = zarr.ZipStore(d + "/" + name, mode="w", compression=comp)
    z = zarr.create(shape=a.shape, chunks=(20, 20), dtype="<i4", compressor=None, store=s, path="arr")
    z[:] = a
    s.close()
s = zarr.ZipStore(d + "/deflated.zip", mode="r")
w = zarr.open_array(s, mode="r", path="arr")[30:170, 45:155]
with open(d + "/window.bin", "wb") as f:
    f.write(np.ascontiguousarray(w, dtype="<i4").tobytes())
