"""Writes CF-style maps with zarr-python 2 (Debian's 2.13) as xarray lays
them out (v2, _ARRAY_DIMENSIONS, consolidated metadata), and prints what
the viewer must draw over them, computed here with numpy, cftime (dates)
and pyproj (projections) — never with the viewer's code:

- era/t2m (time, lat, lon): latitudes rising from the south pole (row 0 is
  the south), longitudes 0–358°, CF units degrees_north/degrees_east, time
  in days since 1850-01-01 in the noleap calendar;
- plain/sst (lat, lon): only _ARRAY_DIMENSIONS names the axes (its
  coordinate arrays have no attributes), latitudes falling from the north,
  longitudes −180–179°;
- polar/ice (y, x): a polar stereographic grid (EPSG:3413's parameters, 25
  km cells) with CF x/y coordinates in metres and a grid_mapping variable;
- geozarr/ice (y, x): the same grid described by GeoZarr's proj:code and
  spatial:transform on the group (no coordinate arrays).

For each map it prints coastline points (Natural Earth 1:110m land from the
npm package world-atlas, decoded here) as fractional array indices (0 at a
cell's centre), open-ocean points likewise, the expected date text of each
time step, and the values' formula's parameters.

    /usr/bin/python3 tests/demo/maps_zarr_python.py OUT_DIR LAND_110M_JSON
"""
import json
import sys

import cftime
import numpy as np
import pyproj
import zarr

# EPSG:3413 as a CF grid mapping.
POLAR = {
    "grid_mapping_name": "polar_stereographic",
    "straight_vertical_longitude_from_pole": -45.0,
    "latitude_of_projection_origin": 90.0,
    "standard_parallel": 70.0,
    "false_easting": 0.0,
    "false_northing": 0.0,
    "semi_major_axis": 6378137.0,
    "inverse_flattening": 298.257223563,
}
CELL, NX, NY, X0, Y0 = 25000.0, 304, 448, -3850000.0, 5850000.0

# Places far (> 5° and off the graticule's lines) from any 1:110m coast.
OCEAN = [(-140, -45), (-25, -25), (75, -25), (-135, 10), (-40, 40), (160, -50), (-100, -10)]
# (the polar graticule is 10° apart and converges on the pole: these lie between its lines)
ARCTIC_OCEAN = [(-155, 78), (-3, 75), (135, 81.5), (-175, 75)]


def land_lines(path):
    """The land outlines of a world-atlas TopoJSON file: [[(lon, lat), ...], ...]."""
    topo = json.load(open(path))
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    lines = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x += dx
            y += dy
            pts.append((x * sx + tx, y * sy + ty))
        lines.append(pts)
    return lines


def coast_sample(lines, keep, every=7):
    """Every n-th vertex of the outlines where keep(lon, lat)."""
    out = []
    for line in lines:
        for k in range(0, len(line), every):
            lon, lat = line[k]
            if keep(lon, lat):
                out.append((lon, lat))
    return out


def frac_index(values, v):
    """Fractional index of v along monotonic 1-D values (NaN outside half a cell beyond the ends)."""
    values = np.asarray(values, dtype=float)
    idx = np.arange(len(values), dtype=float)
    if values[-1] < values[0]:
        values, idx = values[::-1], idx[::-1]
    step = values[1] - values[0]
    if v < values[0] - step / 2 or v > values[-1] + step / 2:
        return float("nan")
    ext_v = np.concatenate([[values[0] - step], values, [values[-1] + step]])
    ext_i = np.concatenate([[idx[0] - (idx[1] - idx[0])], idx, [idx[-1] + (idx[-1] - idx[-2])]])
    return float(np.interp(v, ext_v, ext_i))


def latlon_points(pts, lat, lon):
    """[lon, lat, row, col] with longitudes moved by whole turns into the grid's range."""
    start = min(lon[0], lon[-1]) - abs(lon[1] - lon[0]) / 2
    out = []
    for lo, la in pts:
        lo2 = start + ((lo - start) % 360)
        r, c = frac_index(lat, la), frac_index(lon, lo2)
        if np.isfinite(r) and np.isfinite(c) and 1 <= c <= len(lon) - 2:
            out.append([lo, la, r, c])
    return out


def main():
    out, land = sys.argv[1], sys.argv[2]
    lines = land_lines(land)
    store = zarr.DirectoryStore(out + "/maps.zarr")
    root = zarr.group(store=store, overwrite=True)
    summary = {}

    # era: ascending latitudes, 0–358° longitudes, noleap days.
    era = root.create_group("era")
    lat = np.arange(-90, 90.1, 2.0)
    lon = np.arange(0, 360, 2.0)
    days = np.array([0, 31, 59, 90], dtype="i4")
    la = lat[None, :, None]
    t2m = (250 + 0.4 * la + 0 * lon[None, None, :] + 2 * np.arange(len(days))[:, None, None]).astype("f4")
    a = era.create_dataset("t2m", data=t2m, chunks=(1, 91, 180))
    a.attrs.update({"_ARRAY_DIMENSIONS": ["time", "lat", "lon"], "units": "K", "long_name": "2 metre temperature"})
    c = era.create_dataset("lat", data=lat)
    c.attrs.update({"_ARRAY_DIMENSIONS": ["lat"], "units": "degrees_north", "standard_name": "latitude"})
    c = era.create_dataset("lon", data=lon)
    c.attrs.update({"_ARRAY_DIMENSIONS": ["lon"], "units": "degrees_east", "standard_name": "longitude"})
    c = era.create_dataset("time", data=days)
    c.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": "days since 1850-01-01", "calendar": "noleap", "standard_name": "time"})
    dates = cftime.num2date(days, "days since 1850-01-01", calendar="noleap")
    summary["era/t2m"] = {
        "value": "250 + 0.4 lat + 2 t",
        "lat": lat.tolist(),
        "dates": [d.strftime("%Y-%m-%d") for d in dates],
        "coast": latlon_points(coast_sample(lines, lambda lo, la: abs(la) < 80), lat, lon),
        "ocean": latlon_points(OCEAN, lat, lon),
    }

    # plain: names only, descending latitudes, −180–179° longitudes.
    plain = root.create_group("plain")
    lat = np.arange(89.5, -90, -1.0)
    lon = np.arange(-180, 180, 1.0)
    sst = (10 + 0.2 * lat[:, None] + 0 * lon[None, :]).astype("f4")
    a = plain.create_dataset("sst", data=sst, chunks=(90, 180))
    a.attrs.update({"_ARRAY_DIMENSIONS": ["lat", "lon"]})
    plain.create_dataset("lat", data=lat).attrs["_ARRAY_DIMENSIONS"] = ["lat"]
    plain.create_dataset("lon", data=lon).attrs["_ARRAY_DIMENSIONS"] = ["lon"]
    summary["plain/sst"] = {
        "coast": latlon_points(coast_sample(lines, lambda lo, la: abs(la) < 80), lat, lon),
        "ocean": latlon_points(OCEAN, lat, lon),
    }

    # polar: CF grid_mapping; geozarr: proj:code and spatial:transform.
    xs = X0 + (np.arange(NX) + 0.5) * CELL
    ys = Y0 - (np.arange(NY) + 0.5) * CELL
    r = np.hypot(xs[None, :], ys[:, None])
    ice = np.clip((3.5e6 - r) / 2e6, 0, 1).astype("f4")
    polar = root.create_group("polar")
    a = polar.create_dataset("ice", data=ice, chunks=(224, 152))
    a.attrs.update({"_ARRAY_DIMENSIONS": ["y", "x"], "grid_mapping": "crs", "units": "1", "long_name": "sea ice area fraction"})
    polar.create_dataset("x", data=xs).attrs.update({"_ARRAY_DIMENSIONS": ["x"], "standard_name": "projection_x_coordinate", "units": "m"})
    polar.create_dataset("y", data=ys).attrs.update({"_ARRAY_DIMENSIONS": ["y"], "standard_name": "projection_y_coordinate", "units": "m"})
    polar.create_dataset("crs", data=np.int32(0), shape=()).attrs.update({"_ARRAY_DIMENSIONS": [], **POLAR})
    geo = root.create_group("geozarr")
    geo.attrs.update({
        "proj:code": "EPSG:3413",
        "spatial:dimensions": ["y", "x"],
        "spatial:transform": [CELL, 0.0, X0, 0.0, -CELL, Y0],
        "spatial:shape": [NY, NX],
    })
    a = geo.create_dataset("ice", data=ice, chunks=(224, 152))
    a.attrs.update({"_ARRAY_DIMENSIONS": ["y", "x"], "units": "1", "long_name": "sea ice area fraction"})

    to_polar = pyproj.Transformer.from_crs("EPSG:4326", pyproj.CRS.from_cf(POLAR), always_xy=True)
    to_3413 = pyproj.Transformer.from_crs("EPSG:4326", "EPSG:3413", always_xy=True)

    def polar_points(pts, tf):
        res = []
        for lo, la in pts:
            x, y = tf.transform(lo, la)
            col, row = (x - X0) / CELL - 0.5, (Y0 - y) / CELL - 0.5
            if 1 <= col <= NX - 2 and 1 <= row <= NY - 2:
                res.append([lo, la, row, col])
        return res

    arctic = coast_sample(lines, lambda lo, la: la > 45, every=5)
    summary["polar/ice"] = {"coast": polar_points(arctic, to_polar), "ocean": polar_points(ARCTIC_OCEAN, to_polar)}
    summary["geozarr/ice"] = {"coast": polar_points(arctic, to_3413), "ocean": polar_points(ARCTIC_OCEAN, to_3413)}
    zarr.consolidate_metadata(store)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
