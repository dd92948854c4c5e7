// Maps: which arrays are maps, and where a place on Earth falls in them.
// An array is a latitude–longitude map when the two dimensions shown are
// latitude and longitude: 1-D coordinate arrays beside it whose CF
// standard_name is latitude/longitude or whose units are degrees_north /
// degrees_east, or dimensions named lat/lon (_ARRAY_DIMENSIONS, v3
// dimension_names) with such coordinates. It is a projected map when its
// coordinates are x/y in a coordinate reference system (crs.js): GeoZarr's
// proj: and spatial: attributes, or CF grid_mapping with projection_x/y
// coordinates. Places are found by their coordinates (between two
// coordinate values, linearly), so the data is never resampled.

const LAT_UNITS = /^degrees?_?(north|n)$/i;
const LON_UNITS = /^degrees?_?(east|e)$/i;

/** "lat", "lon", "x", "y" or null: what a coordinate (its dimension's name and attributes) measures. */
export function axisKind(name, attrs = {}) {
  const sn = String(attrs.standard_name ?? "").toLowerCase();
  const units = String(attrs.units ?? "").trim();
  if (sn === "latitude" || LAT_UNITS.test(units)) return "lat";
  if (sn === "longitude" || LON_UNITS.test(units)) return "lon";
  if (sn === "projection_x_coordinate" || sn === "projection_x_angular_coordinate") return "x";
  if (sn === "projection_y_coordinate" || sn === "projection_y_angular_coordinate") return "y";
  if (/^(lat|latitude|nav_lat)$/i.test(name) && (!units || /degree/i.test(units))) return "lat";
  if (/^(lon|long|longitude|nav_lon)$/i.test(name) && (!units || /degree/i.test(units))) return "lon";
  if (/^(x|xc|easting)$/i.test(name) || String(attrs.axis).toUpperCase() === "X") return "x";
  if (/^(y|yc|northing)$/i.test(name) || String(attrs.axis).toUpperCase() === "Y") return "y";
  return null;
}

/**
 * The fractional index (0 at the first value's cell centre) of coordinate
 * v along monotonic values: linear between neighbours, half a cell beyond
 * either end; NaN outside. A single value spans [-0.5, 0.5].
 */
export function indexOf(values, v) {
  const n = values.length;
  if (!(n > 0) || !Number.isFinite(v)) return NaN;
  if (n === 1) return v === values[0] ? 0 : NaN;
  const up = values[n - 1] > values[0];
  const first = values[0];
  const last = values[n - 1];
  const step0 = values[1] - first;
  const step1 = last - values[n - 2];
  const f = (v - first) / step0;
  if (f < 0) return f >= -0.5 ? f : NaN;
  const g = (v - last) / step1;
  if (g > 0) return g <= 0.5 ? n - 1 + g : NaN;
  // Binary search for values[i] <= v < values[i+1] (in the values' order).
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (up ? values[mid] <= v : values[mid] >= v) lo = mid;
    else hi = mid;
  }
  return lo + (v - values[lo]) / (values[hi] - values[lo]);
}

/** Whether values are monotonic (strictly, in one direction) and finite. */
function monotonic(values) {
  if (!values || values.length < 2) return false;
  const up = values[1] > values[0];
  for (let i = 1; i < values.length; i++) {
    if (!Number.isFinite(values[i]) || (up ? !(values[i] > values[i - 1]) : !(values[i] < values[i - 1]))) return false;
  }
  return true;
}

/**
 * The map an array's slice shows, or null. dims: per dimension {name,
 * values (1-D coordinate or null), attrs}; slice: {ydim, xdim}; crs: a
 * coordinate reference system (crs.js crsOf) for projected x/y, with the
 * affine transform (spatial:transform) when the dimensions have no
 * coordinate arrays.
 *
 * A lat–lon map is {kind: "latlon", toIndex(lon, lat) → [row, col] (fractional
 * indices of the shown y and x dimensions; NaN outside), lon: [min, max],
 * lat: [min, max], wraps (longitudes span the globe)}; a projected one is
 * {kind: "projected", crs, toIndex(x, y) → [row, col]}.
 */
export function mapOf(dims, slice, crs = null) {
  const y = dims[slice.ydim];
  const x = dims[slice.xdim];
  const ky = axisKind(y.name, y.attrs);
  const kx = axisKind(x.name, x.attrs);
  if (((ky === "lat" && kx === "lon") || (ky === "lon" && kx === "lat")) && monotonic(y.values) && monotonic(x.values)) {
    const lat = ky === "lat" ? y.values : x.values;
    const lon = ky === "lat" ? x.values : y.values;
    const n = lon.length;
    const half = Math.abs(lon[1] - lon[0]) / 2;
    const lonMin = Math.min(lon[0], lon[n - 1]);
    const lonMax = Math.max(lon[0], lon[n - 1]);
    const wraps = lonMax - lonMin + 2 * half >= 359.999;
    // A longitude is moved by whole turns into the data's range.
    const start = lonMin - half;
    const norm = (v) => start + ((((v - start) % 360) + 360) % 360);
    const toIndex = (lo, la) => {
      const i = indexOf(lat, la);
      const j = indexOf(lon, norm(lo));
      return ky === "lat" ? [i, j] : [j, i];
    };
    return { kind: "latlon", toIndex, lon: [lonMin - half, lonMax + half], lat: [Math.min(lat[0], lat.at(-1)), Math.max(lat[0], lat.at(-1))], wraps, width: n };
  }
  if (!crs) return null;
  if (((ky === "y" && kx === "x") || (ky === "x" && kx === "y")) && monotonic(y.values) && monotonic(x.values)) {
    const ys = ky === "y" ? y.values : x.values;
    const xs = ky === "y" ? x.values : y.values;
    const toIndex = (px, py) => {
      const i = indexOf(ys, py);
      const j = indexOf(xs, px);
      return ky === "y" ? [i, j] : [j, i];
    };
    return { kind: "projected", crs, toIndex };
  }
  // spatial:transform: x = a·col + b·row + c, y = d·col + e·row + f, with
  // (0, 0) the top-left corner of the top-left pixel (its centre at 0.5).
  const t = crs.transform;
  if (t && crs.dims?.[0] === y.name && crs.dims?.[1] === x.name) {
    const [a, b, c, d, e, f] = t;
    const det = a * e - b * d;
    if (!det) return null;
    const toIndex = (px, py) => {
      const dx = px - c;
      const dy = py - f;
      const col = (e * dx - b * dy) / det;
      const row = (a * dy - d * dx) / det;
      return [row - 0.5, col - 0.5];
    };
    return { kind: "projected", crs, toIndex };
  }
  return null;
}

/** A graticule step (degrees) for a span of degrees on screen: at most 12 lines. */
export function graticuleStep(span) {
  for (const s of [1, 2, 5, 10, 15, 30, 45, 60, 90]) if (span / s <= 12) return s;
  return 90;
}

/** Degrees as a label: 30°E, 45°S, 0°, 180°. */
export function degreeLabel(v, axis) {
  const r = Math.round(v * 1e6) / 1e6;
  if (axis === "lon") {
    const w = ((((r + 180) % 360) + 360) % 360) - 180;
    if (w === 0 || Math.abs(w) === 180) return `${Math.abs(w)}°`;
    return `${Math.abs(w)}°${w < 0 ? "W" : "E"}`;
  }
  return r === 0 ? "0°" : `${Math.abs(r)}°${r < 0 ? "S" : "N"}`;
}
