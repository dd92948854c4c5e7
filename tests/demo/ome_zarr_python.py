"""Writes an OME-Zarr 0.4 image with zarr-python 2 (Debian's 2.13), the NGFF
attributes written by hand as ome-zarr-py lays them out: two channels
(c, y, x) in two levels, omero channel colours and windows, a physical scale
and translation, and a label image (labels/squares) with image-label colours.
tests/demo/demo.test.mjs opens it in the viewer and computes the expected
colours from the same formulas (channel0, channel1, label below).

    /usr/bin/python3 tests/demo/ome_zarr_python.py OUT_DIR
"""
import sys

import numpy as np
import zarr

N = 256  # level-0 size


def channel0(y, x):
    return (y * 7 + x * 3) % 1000 + 100


def channel1(y, x):
    return ((y // 32 + x // 32) % 4) * 900 + (x % 50) * 4


def label(y, x):
    # 1 + the 32×32 square's number where the square's inner part is, else 0.
    inside = ((y % 32) >= 4) & ((y % 32) < 28) & ((x % 32) >= 4) & ((x % 32) < 28)
    return np.where(inside, (y // 32) * (N // 32) + (x // 32) + 1, 0)


def main(out):
    store = zarr.DirectoryStore(out + "/img.zarr", dimension_separator="/")
    root = zarr.group(store=store, overwrite=True)
    y, x = np.mgrid[0:N, 0:N]
    image = np.stack([channel0(y, x), channel1(y, x)]).astype("<u2")
    labels = label(y, x).astype("<u4")
    datasets = []
    for k in range(2):
        s = 2 ** k
        root.create_dataset(str(k), data=image[:, ::s, ::s], chunks=(1, 64, 64), dimension_separator="/")
        datasets.append({"path": str(k), "coordinateTransformations": [
            {"type": "scale", "scale": [1.0, 0.25 * s, 0.25 * s]},
            {"type": "translation", "translation": [0.0, 10.0, 20.0]},
        ]})
    axes = [{"name": "c", "type": "channel"}, {"name": "y", "type": "space", "unit": "micrometer"},
            {"name": "x", "type": "space", "unit": "micrometer"}]
    root.attrs["multiscales"] = [{"version": "0.4", "name": "zarr-python", "axes": axes, "datasets": datasets}]
    root.attrs["omero"] = {"version": "0.4", "channels": [
        {"label": "ramp", "color": "FF8000", "active": True, "window": {"start": 200, "end": 1000, "min": 0, "max": 65535}},
        {"label": "squares", "color": "0080FF", "active": True, "window": {"start": 0, "end": 3000, "min": 0, "max": 65535}},
    ], "rdefs": {"model": "color"}}
    lab = root.create_group("labels")
    lab.attrs["labels"] = ["squares"]
    sq = lab.create_group("squares")
    ldatasets = []
    for k in range(2):
        s = 2 ** k
        sq.create_dataset(str(k), data=labels[::s, ::s], chunks=(64, 64), dimension_separator="/")
        ldatasets.append({"path": str(k), "coordinateTransformations": [
            {"type": "scale", "scale": [0.25 * s, 0.25 * s]}, {"type": "translation", "translation": [10.0, 20.0]}]})
    sq.attrs["multiscales"] = [{"version": "0.4", "name": "squares", "axes": axes[1:], "datasets": ldatasets}]
    sq.attrs["image-label"] = {"version": "0.4", "source": {"image": "../../"}, "colors": [
        {"label-value": v, "rgba": [(v * 37) % 256, (v * 91) % 256, (v * 53) % 256, 255]} for v in range(1, 65)]}


if __name__ == "__main__":
    main(sys.argv[1])
