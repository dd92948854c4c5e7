"""Writes an OME-Zarr 0.4 high-content screening plate with zarr-python 2
(Debian's 2.13), the NGFF attributes written by hand as ome-zarr-py lays them
out (ome-zarr-py is not packaged in Debian): rows and columns named in the
plate, wells listed with their row and column index (some left out: empty
wells), each well's fields of view per acquisition, and each field a
multiscale image of 2 channels (c, y, x) or (t, c, z, y, x) with omero colours
and windows. tests/demo/plate.test.mjs and tests/demo/plate-bench.mjs open it
in the viewer and compute the expected colours from value() below.

    /usr/bin/python3 tests/demo/plate_zarr_python.py OUT_DIR [--rows 8] [--columns 12]
        [--fields 2] [--size 512] [--levels 3] [--chunk 256] [--empty A3,B5]
        [--acquisitions 1] [--tczyx] [--half-chunks B/1]

The plate is OUT_DIR/plate.zarr; a summary (wells, fields, levels, omero) is
printed as JSON.
"""
import argparse
import json
import string

import numpy as np
import zarr


def value(channel, well, field, acquisition, y, x):
    """The image's value (uint16) in a well (its number in the plate's list),
    field and acquisition at level-0 pixel (y, x): a level per well, field and
    acquisition, a 32-pixel checkerboard on top, a ramp across x in channel 1."""
    base = 200 + 37 * well + 400 * field + 900 * acquisition + 1500 * channel
    return base + 120 * (((y // 32) + (x // 32)) % 2) + (channel * (x % 64))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=8)
    ap.add_argument("--columns", type=int, default=12)
    ap.add_argument("--fields", type=int, default=2)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--levels", type=int, default=3)
    ap.add_argument("--chunk", type=int, default=256)
    ap.add_argument("--empty", default="")
    ap.add_argument("--acquisitions", type=int, default=1)
    ap.add_argument("--tczyx", action="store_true")
    ap.add_argument("--half-chunks", default="", help="wells (A/1,B/2) whose arrays have chunks half as wide: metadata unlike the others'")
    a = ap.parse_args()

    rows = list(string.ascii_uppercase[: a.rows])
    columns = [str(c + 1) for c in range(a.columns)]
    empty = set(filter(None, a.empty.split(",")))
    half = set(filter(None, a.half_chunks.split(",")))
    store = zarr.DirectoryStore(a.out + "/plate.zarr", dimension_separator="/")
    root = zarr.group(store=store, overwrite=True)
    wells = []
    for r, rn in enumerate(rows):
        for c, cn in enumerate(columns):
            if rn + cn not in empty:
                wells.append({"path": f"{rn}/{cn}", "rowIndex": r, "columnIndex": c})
    acquisitions = [{"id": k, "name": f"run {k + 1}", "maximumfieldcount": a.fields} for k in range(a.acquisitions)]
    root.attrs["plate"] = {
        "version": "0.4", "name": "zarr-python plate",
        "rows": [{"name": n} for n in rows], "columns": [{"name": n} for n in columns],
        "wells": wells, "field_count": a.fields * a.acquisitions, "acquisitions": acquisitions,
    }
    omero = {"version": "0.4", "channels": [
        {"label": "DAPI", "color": "0000FF", "active": True, "window": {"start": 150, "end": 4000, "min": 0, "max": 65535}},
        {"label": "GFP", "color": "00FF00", "active": True, "window": {"start": 1500, "end": 6000, "min": 0, "max": 65535}},
    ], "rdefs": {"model": "color"}}
    if a.tczyx:
        axes = [{"name": "t", "type": "time"}, {"name": "c", "type": "channel"}, {"name": "z", "type": "space"},
                {"name": "y", "type": "space", "unit": "micrometer"}, {"name": "x", "type": "space", "unit": "micrometer"}]
    else:
        axes = [{"name": "c", "type": "channel"}, {"name": "y", "type": "space", "unit": "micrometer"},
                {"name": "x", "type": "space", "unit": "micrometer"}]
    y, x = np.mgrid[0 : a.size, 0 : a.size]
    for w, well in enumerate(wells):
        group = root.require_group(well["path"])
        images = []
        for acq in range(a.acquisitions):
            for f in range(a.fields):
                path = str(acq * a.fields + f)
                images.append({"path": path, "acquisition": acq})
                img = group.create_group(path)
                planes = np.stack([value(ch, w, f, acq, y, x) for ch in range(2)]).astype("<u2")
                datasets = []
                for k in range(a.levels):
                    s = 2**k
                    data = planes[:, ::s, ::s]
                    side = a.chunk // 2 if well["path"] in half else a.chunk
                    chunk = (1, min(side, data.shape[1]), min(side, data.shape[2]))
                    if a.tczyx:
                        # t = 1, z = 2 (the second plane a copy plus 1000, so z is visible).
                        data = np.stack([data, data + 1000], axis=1)[np.newaxis]
                        chunk = (1, 1, 1) + chunk[1:]
                    img.create_dataset(str(k), data=data, chunks=chunk, dimension_separator="/")
                    scale = [0.65 * s, 0.65 * s]
                    datasets.append({"path": str(k), "coordinateTransformations": [
                        {"type": "scale", "scale": ([1.0, 1.0, 1.0] if a.tczyx else [1.0]) + scale}]})
                img.attrs["multiscales"] = [{"version": "0.4", "name": f"{well['path']} field {path}", "axes": axes, "datasets": datasets}]
                img.attrs["omero"] = omero
        group.attrs["well"] = {"version": "0.4", "images": images}
    print(json.dumps({"wells": [w["path"] for w in wells], "fields": a.fields, "acquisitions": a.acquisitions,
                      "levels": a.levels, "size": a.size, "omero": omero, "tczyx": a.tczyx}))


if __name__ == "__main__":
    main()
