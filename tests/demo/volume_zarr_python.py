"""Writes an OME-Zarr 0.4 volume with zarr-python 2 (Debian's 2.13): 2
channels of (z, y, x) uint16, 3 levels (each half the previous in z, y and
x, taken by keeping every other voxel), anisotropic voxels (z 2 µm, y and x
0.5 µm), omero colours and windows. tests/demo/volume.test.mjs shows it in
3D and computes the projections it expects from value() below.

    /usr/bin/python3 tests/demo/volume_zarr_python.py OUT_DIR

The image is OUT_DIR/volume.zarr; its shape and omero settings are printed
as JSON.
"""
import json
import sys

import numpy as np
import zarr

NC, NZ, NY, NX, LEVELS = 2, 40, 96, 128, 3
SCALE = [1.0, 2.0, 0.5, 0.5]


def value(c, z, y, x):
    """A ramp that wraps every 97 steps, and one bright voxel in each (y, x)
    column of each channel, at a depth that changes with x and y."""
    peak = (x + 2 * y + 13 * c) % NZ
    return 100 + ((3 * x + 5 * y + 11 * z + 7 * c) % 97) * 4 + np.where(z == peak, 2000, 0)


def main():
    out = sys.argv[1]
    c, z, y, x = np.meshgrid(np.arange(NC), np.arange(NZ), np.arange(NY), np.arange(NX), indexing="ij")
    data = value(c, z, y, x).astype("<u2")
    store = zarr.DirectoryStore(out + "/volume.zarr", dimension_separator="/")
    root = zarr.group(store=store, overwrite=True)
    datasets = []
    for k in range(LEVELS):
        f = 2**k
        root.create_dataset(str(k), data=data[:, ::f, ::f, ::f], chunks=(1, 20, 48, 64), dimension_separator="/")
        datasets.append({"path": str(k), "coordinateTransformations": [{"type": "scale", "scale": [1.0] + [s * f for s in SCALE[1:]]}]})
    axes = [{"name": "c", "type": "channel"}] + [{"name": n, "type": "space", "unit": "micrometer"} for n in "zyx"]
    root.attrs["multiscales"] = [{"version": "0.4", "name": "volume", "axes": axes, "datasets": datasets}]
    omero = {
        "channels": [
            {"label": "green", "color": "00FF00", "window": {"start": 0, "end": 2600, "min": 0, "max": 65535}, "active": True},
            {"label": "magenta", "color": "FF00FF", "window": {"start": 0, "end": 2600, "min": 0, "max": 65535}, "active": True},
        ],
    }
    root.attrs["omero"] = omero
    print(json.dumps({"shape": [NC, NZ, NY, NX], "levels": LEVELS, "scale": SCALE, "omero": omero}))


if __name__ == "__main__":
    main()
