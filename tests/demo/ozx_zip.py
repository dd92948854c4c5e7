"""Zips an OME-Zarr hierarchy into a single .ozx file as NGFF RFC-9 asks, with
Python's zipfile (not zarr-wasm's code): the hierarchy's root is the zip's
root, every zarr.json first in breadth-first order (the root's first), then
the chunks; entries stored (no zip compression) with Zip64 records, and the
archive comment {"ome": {"version": "0.5"}}.

    /usr/bin/python3 tests/demo/ozx_zip.py HIERARCHY_DIR OUT.ozx
"""
import json
import os
import sys
import zipfile


def main(src, out):
    metadata, chunks = [], []
    for dirpath, _, files in os.walk(src):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), src).replace(os.sep, "/")
            (metadata if f == "zarr.json" else chunks).append(rel)
    # Breadth-first: by depth, then by name.
    metadata.sort(key=lambda p: (p.count("/"), p))
    chunks.sort()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        z.comment = json.dumps({"ome": {"version": "0.5"}}).encode()
        for rel in metadata + chunks:
            info = zipfile.ZipInfo(rel, date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            with open(os.path.join(src, rel), "rb") as f, z.open(info, "w", force_zip64=True) as w:
                w.write(f.read())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
