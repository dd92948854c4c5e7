#!/usr/bin/python3
"""Write TIFF files and the fsspec references tifffile makes for them
(what kerchunk's TIFF path does: tif.aszarr().write_fsspec), with the
values the files hold.

    /usr/bin/python3 tests/refs/gen_tiff.py [output directory, default tests/refs]

Needs Debian's python3-tifffile (2023.2.3), python3-pil (Pillow 9.4, which
writes LZW, PackBits and floating-point-predictor TIFFs through libtiff) and
python3-numpy. It writes:

  data/tiff/<name>.tif   the TIFF, written by tifffile or by Pillow
  data/tiff/<name>.json  tifffile's reference set for it (version 0, the
                         TIFF by a relative url)
  tiff_cases.json        per reference set, the whole array, in the format
                         of tests/python/README.md ("store" names the
                         reference set relative to data/)

The expected values are the arrays written, each checked against what
tifffile (or, for what tifffile cannot decode without imagecodecs, Pillow)
reads back from the file. The output is deterministic.
"""

import base64
import json
import os
import sys

import numpy as np
import tifffile
from PIL import Image

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
tiff_dir = os.path.join(out, "data", "tiff")
os.makedirs(tiff_dir, exist_ok=True)
for f in os.listdir(tiff_dir):
    os.remove(os.path.join(tiff_dir, f))

cases = []


def smooth(shape, dtype, scale):
    idx = np.indices(shape).astype(np.float64)
    v = np.sin(idx[0] / 9.0) * np.cos(idx[1] / 13.0) + (idx.sum(axis=0) % 7) / 7.0
    return (v * scale).astype(dtype)


def add(name, data, write, reader):
    path = os.path.join(tiff_dir, name + ".tif")
    write(path, data)
    back = reader(path)
    assert back.dtype.newbyteorder("=") == data.dtype.newbyteorder("=") and np.array_equal(back, data), name
    with tifffile.TiffFile(path) as tif:
        store = tif.aszarr()
        store.write_fsspec(os.path.join(tiff_dir, name + ".json"), url="")
        store.close()
    with open(os.path.join(tiff_dir, name + ".json")) as f:
        zarray = json.loads(json.load(f)[".zarray"])
    le = np.ascontiguousarray(data.astype(data.dtype.newbyteorder("<")))
    cases.append({
        "name": "tiff/" + name,
        "store": "tiff/" + name + ".json",
        "path": "",
        "zarr_format": 2,
        "selection": "",
        "shape": list(data.shape),
        "dtype": zarray["dtype"],
        "bytes": base64.b64encode(le.tobytes()).decode(),
        "note": "compressor %s, filters %s" % (
            (zarray["compressor"] or {}).get("id"), [f["id"] for f in zarray["filters"] or []]),
    })


def by_tifffile(path):
    return tifffile.imread(path)


def by_pillow(path):
    return np.array(Image.open(path))


def tifffile_writer(**kw):
    return lambda path, data: tifffile.imwrite(path, data, **kw)


def pillow_writer(**kw):
    return lambda path, data: Image.fromarray(data).save(path, **kw)


# tifffile: tiles with zlib and the horizontal predictor (imagecodecs_delta).
add("zlib_pred_u2", smooth((100, 128), "<u2", 3000), tifffile_writer(tile=(32, 48), compression="zlib", predictor=True), by_tifffile)
add("zlib_pred_rgb", smooth((64, 80, 3), "u1", 250), tifffile_writer(tile=(32, 32), compression="zlib", predictor=True, photometric="rgb"), by_tifffile)
add("zlib_pred_i2", smooth((48, 64), "<i2", -9000), tifffile_writer(tile=(16, 32), compression="zlib", predictor=True), by_tifffile)
# tifffile: lzma tiles, float32; raw big-endian strips.
add("lzma_f4", smooth((50, 64), "<f4", 1.5), tifffile_writer(tile=(16, 32), compression="lzma"), by_tifffile)
add("raw_be_u2", smooth((64, 40), ">u2", 60000), tifffile_writer(rowsperstrip=16, byteorder=">"), by_tifffile)
# Pillow (libtiff): LZW, PackBits, deflate with the floating-point predictor.
add("lzw_u1", smooth((60, 70), "u1", 250), pillow_writer(compression="tiff_lzw"), by_pillow)
add("lzw_rgb", smooth((40, 52, 3), "u1", 200), pillow_writer(compression="tiff_lzw"), by_pillow)
add("lzw_noise_u1", np.random.default_rng(7).integers(0, 256, (50, 61), dtype=np.uint8), pillow_writer(compression="tiff_lzw"), by_pillow)
add("packbits_u1", smooth((45, 67), "u1", 250), pillow_writer(compression="packbits"), by_pillow)
add("deflate_floatpred_f4", smooth((40, 50), "<f4", 123.25), pillow_writer(compression="tiff_adobe_deflate", tiffinfo={317: 3}), by_pillow)
add("lzw_pred_u1", smooth((30, 90), "u1", 250), pillow_writer(compression="tiff_lzw", tiffinfo={317: 2}), by_pillow)

with open(os.path.join(out, "tiff_cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(f"{len(cases)} TIFF reference sets in {tiff_dir}")
