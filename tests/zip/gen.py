#!/usr/bin/python3
"""Write the zip files the Zip store tests read (zarr/store/testdata/zip).

Every file is written by Python's zipfile. Run from anywhere:
    /usr/bin/python3 tests/zip/gen.py
The output is deterministic (fixed timestamps), so re-running it leaves the
committed files unchanged. manifest.json lists, for each zip, its comment,
the root a reader should detect, and the size, method and SHA-256 of every
entry.
"""
import hashlib
import io
import json
import os
import struct
import zipfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "..", "..", "zarr", "store", "testdata", "zip")
DATE = (2024, 1, 2, 3, 4, 6)


def tree():
    """A small Zarr v2 hierarchy: (name, bytes) pairs, directories last."""
    arr = {
        "zarr_format": 2, "shape": [100], "chunks": [30], "dtype": "<i4",
        "compressor": None, "fill_value": 0, "order": "C", "filters": None,
    }
    files = [
        (".zgroup", b'{"zarr_format": 2}'),
        (".zattrs", b'{"title": "zip test"}'),
        ("arr/.zarray", json.dumps(arr, indent=4).encode()),
        ("arr/.zattrs", b'{"units": "m"}'),
    ]
    for c in range(4):  # chunk 3 is partial: v2 stores it whole
        files.append(("arr/%d" % c, b"".join(
            struct.pack("<i", (c * 30 + i) * 3 - 7) for i in range(30))))
    blob = "".join("line %d: %s\n" % (i, "abc" * (i % 7)) for i in range(200))
    files += [
        ("text/blob", blob.encode()),
        ("misc/empty", b""),
        ("my group with spaces/.zgroup", b'{"zarr_format": 2}'),
        ("\u00fcn\u00efc\u00f6de/.zgroup", b'{"zarr_format": 2}'),
    ]
    return files


def info(name, method):
    zi = zipfile.ZipInfo(name, DATE)
    zi.compress_type = method
    zi.external_attr = 0o644 << 16
    return zi


def write(zf, name, data, method, force_zip64=False):
    with zf.open(info(name, method), "w", force_zip64=force_zip64) as f:
        f.write(data)


class Unseekable(io.RawIOBase):
    """A write-only stream without tell/seek: zipfile then writes data
    descriptors (flag bit 3) after each entry."""

    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


def stored(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, data in tree():
            write(zf, name, data, zipfile.ZIP_STORED)


def deflated(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in tree():
            write(zf, name, data, zipfile.ZIP_DEFLATED)
        zf.comment = b"written by tests/zip/gen.py"


def parent(path):
    """Zipped from the parent directory (zip -r data.zarr.zip data.zarr):
    every name under data.zarr/, with directory entries; mixed methods, and
    Zip64 extra fields in some local headers only (force_zip64), so the
    local header is longer than the central directory suggests."""
    files = tree()
    dirs = sorted({n.rsplit("/", 1)[0] + "/" for n, _ in files if "/" in n})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(info("data.zarr/", zipfile.ZIP_STORED), b"")
        for d in dirs:
            zf.writestr(info("data.zarr/" + d, zipfile.ZIP_STORED), b"")
        for i, (name, data) in enumerate(files):
            method = zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED
            write(zf, "data.zarr/" + name, data, method, force_zip64=(i % 3 == 0))


def zip64(path):
    """Zip64 end records and Zip64 central directory fields, forced on a
    small archive by lowering zipfile's limits while the central directory
    is written; and a comment of the maximum length (the tests plant fake
    end records in it: Python's reader would take them for real ones)."""
    zf = zipfile.ZipFile(path, "w")
    for i, (name, data) in enumerate(tree()):
        method = zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED
        write(zf, name, data, method, force_zip64=True)
    zf.comment = b"".join(b"%05d " % i for i in range(0xFFFF // 6 + 1))[:0xFFFF]
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 0, 0
    try:
        zf.close()
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


def tiny64(path):
    """Two small entries with every Zip64 structure and data descriptors
    (a small seed for the fuzz target)."""
    out = Unseekable()
    zf = zipfile.ZipFile(out, "w")
    write(zf, ".zgroup", b'{"zarr_format": 2}', zipfile.ZIP_STORED, force_zip64=True)
    write(zf, "a/b", b"abcabcabcabc", zipfile.ZIP_DEFLATED, force_zip64=True)
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 0, 0
    try:
        zf.close()
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved
    with open(path, "wb") as f:
        f.write(out.buf)


def streamed(path):
    out = Unseekable()
    with zipfile.ZipFile(out, "w") as zf:
        for i, (name, data) in enumerate(tree()):
            method = zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED
            write(zf, name, data, method)
    with open(path, "wb") as f:
        f.write(out.buf)


def methods(path):
    """Entries the store must refuse with UNSUPPORTED, beside a stored one."""
    with zipfile.ZipFile(path, "w") as zf:
        write(zf, ".zgroup", b'{"zarr_format": 2}', zipfile.ZIP_STORED)
        write(zf, "bz2", b"bzip2 " * 20, zipfile.ZIP_BZIP2)
        write(zf, "lzma", b"lzma " * 20, zipfile.ZIP_LZMA)


def empty(path):
    with zipfile.ZipFile(path, "w"):
        pass


def manifest(path, root):
    with zipfile.ZipFile(path) as zf:
        zf.testzip()
        entries = [{
            "name": zi.filename,
            "method": zi.compress_type,
            "size": zi.file_size,
            "sha256": hashlib.sha256(zf.read(zi)).hexdigest()
            if zi.compress_type in (0, 8) else None,
            "flags": zi.flag_bits,
        } for zi in zf.infolist()]
        return {"comment_len": len(zf.comment),
                "comment_sha256": hashlib.sha256(zf.comment).hexdigest(),
                "root": root, "entries": entries}


def main():
    os.makedirs(OUT, exist_ok=True)
    out = {}
    for fn, name, root in [
        (stored, "stored.zip", ""),
        (deflated, "deflated.zip", ""),
        (parent, "parent.zip", "data.zarr/"),
        (zip64, "zip64.zip", ""),
        (streamed, "streamed.zip", ""),
        (tiny64, "tiny64.zip", ""),
        (methods, "methods.zip", ""),
        (empty, "empty.zip", ""),
    ]:
        path = os.path.join(OUT, name)
        fn(path)
        out[name] = manifest(path, root)
        print("%-14s %6d bytes" % (name, os.path.getsize(path)))
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
