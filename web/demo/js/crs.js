// Coordinate reference systems of projected maps, for proj4 (npm proj4,
// MIT, served with the page and loaded only when a projected map is shown):
// GeoZarr / zarr-conventions attributes (proj:code, proj:wkt2,
// proj:projjson with spatial:dimensions and spatial:transform; on the
// array or on its group), or a CF grid_mapping variable (crs_wkt or
// spatial_ref, else its grid_mapping_name and parameters as a PROJ
// string). Coastlines are projected into the map's coordinates; the data
// is drawn as stored.

// EPSG codes proj4 has no table for: a few common polar and global ones
// (their PROJ strings as EPSG defines them); UTM zones are made below.
const EPSG = {
  4326: "+proj=longlat +datum=WGS84 +no_defs",
  3857: "+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs",
  3413: "+proj=stere +lat_0=90 +lat_ts=70 +lon_0=-45 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs",
  3031: "+proj=stere +lat_0=-90 +lat_ts=-71 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs",
  3976: "+proj=stere +lat_0=-90 +lat_ts=-70 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs",
  3995: "+proj=stere +lat_0=90 +lat_ts=71 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs",
  6933: "+proj=cea +lat_ts=30 +lon_0=0 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs",
  3035: "+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +units=m +no_defs",
};

/** A PROJ string for an EPSG code this knows (or a UTM zone), else null. */
export function epsgDefinition(code) {
  if (EPSG[code]) return EPSG[code];
  if (code >= 32601 && code <= 32660) return `+proj=utm +zone=${code - 32600} +datum=WGS84 +units=m +no_defs`;
  if (code >= 32701 && code <= 32760) return `+proj=utm +zone=${code - 32700} +south +datum=WGS84 +units=m +no_defs`;
  return null;
}

const num = (x) => (typeof x === "number" && Number.isFinite(x) ? x : Array.isArray(x) && typeof x[0] === "number" ? x[0] : undefined);

/** The ellipsoid of CF grid-mapping parameters, as PROJ parameters. */
function ellipsoid(g) {
  const a = num(g.semi_major_axis);
  const b = num(g.semi_minor_axis);
  const rf = num(g.inverse_flattening);
  const r = num(g.earth_radius);
  if (r) return `+R=${r}`;
  if (a && rf) return `+a=${a} +rf=${rf}`;
  if (a && b) return `+a=${a} +b=${b}`;
  if (a) return `+R=${a}`;
  return "+datum=WGS84";
}

/**
 * A PROJ string for a CF grid mapping's parameters (CF conventions,
 * appendix F), or null for a mapping this does not know.
 */
export function cfToProj(g) {
  const p = (name, key) => (num(g[key]) === undefined ? "" : ` +${name}=${num(g[key])}`);
  const common = `${p("x_0", "false_easting")}${p("y_0", "false_northing")} ${ellipsoid(g)} +units=m +no_defs`;
  switch (g.grid_mapping_name) {
    case "polar_stereographic": {
      const lat0 = num(g.latitude_of_projection_origin) ?? 90;
      const lon0 = num(g.straight_vertical_longitude_from_pole) ?? num(g.longitude_of_projection_origin) ?? 0;
      const ts = num(g.standard_parallel);
      const k = num(g.scale_factor_at_projection_origin);
      return `+proj=stere +lat_0=${lat0} +lon_0=${lon0}${ts !== undefined ? ` +lat_ts=${ts}` : ""}${k !== undefined ? ` +k=${k}` : ""}${common}`;
    }
    case "stereographic":
      return `+proj=stere${p("lat_0", "latitude_of_projection_origin")}${p("lon_0", "longitude_of_projection_origin")}${p("k", "scale_factor_at_projection_origin")}${common}`;
    case "lambert_conformal_conic": {
      const sp = [].concat(g.standard_parallel ?? []);
      return `+proj=lcc${sp[0] !== undefined ? ` +lat_1=${sp[0]}` : ""}${sp[1] !== undefined ? ` +lat_2=${sp[1]}` : sp[0] !== undefined ? ` +lat_2=${sp[0]}` : ""}${p("lat_0", "latitude_of_projection_origin")}${p("lon_0", "longitude_of_central_meridian")}${common}`;
    }
    case "albers_conical_equal_area": {
      const sp = [].concat(g.standard_parallel ?? []);
      return `+proj=aea${sp[0] !== undefined ? ` +lat_1=${sp[0]}` : ""}${sp[1] !== undefined ? ` +lat_2=${sp[1]}` : ""}${p("lat_0", "latitude_of_projection_origin")}${p("lon_0", "longitude_of_central_meridian")}${common}`;
    }
    case "transverse_mercator":
      return `+proj=tmerc${p("lat_0", "latitude_of_projection_origin")}${p("lon_0", "longitude_of_central_meridian")}${p("k", "scale_factor_at_central_meridian")}${common}`;
    case "mercator":
      return `+proj=merc${p("lon_0", "longitude_of_projection_origin")}${p("lat_ts", "standard_parallel")}${p("k", "scale_factor_at_projection_origin")}${common}`;
    case "lambert_azimuthal_equal_area":
      return `+proj=laea${p("lat_0", "latitude_of_projection_origin")}${p("lon_0", "longitude_of_projection_origin")}${common}`;
    case "orthographic":
      return `+proj=ortho${p("lat_0", "latitude_of_projection_origin")}${p("lon_0", "longitude_of_projection_origin")}${common}`;
    case "lambert_cylindrical_equal_area":
      return `+proj=cea${p("lon_0", "longitude_of_central_meridian")}${p("lat_ts", "standard_parallel")}${common}`;
    case "geostationary": {
      const sweep = g.sweep_angle_axis ?? (g.fixed_angle_axis === "y" ? "x" : "y");
      return `+proj=geos +h=${num(g.perspective_point_height)}${p("lon_0", "longitude_of_projection_origin")} +sweep=${sweep}${common}`;
    }
  }
  return null;
}

/**
 * The coordinate reference system of an array: {def (what proj4 takes: a
 * PROJ string, WKT, or a PROJJSON object), source (where it was found),
 * dims ([y, x] names of spatial:dimensions), transform (spatial:transform)}
 * or null. attrs: the array's; groupAttrs: its group's (proj: and spatial:
 * apply to the group's direct children); gridMapping: the attributes of the
 * variable the array's CF grid_mapping names.
 */
export function crsOf(attrs = {}, groupAttrs = {}, gridMapping = null) {
  const from = [attrs, groupAttrs].find((a) => a && (a["proj:code"] || a["proj:wkt2"] || a["proj:projjson"]));
  if (from) {
    const spatial = [attrs, groupAttrs].find((a) => Array.isArray(a?.["spatial:dimensions"])) ?? {};
    const t = attrs["spatial:transform"] ?? groupAttrs["spatial:transform"];
    const base = { dims: spatial["spatial:dimensions"] ?? null, transform: Array.isArray(t) && t.length >= 6 ? t.slice(0, 6).map(Number) : null };
    if (from["proj:projjson"] && typeof from["proj:projjson"] === "object") return { ...base, def: from["proj:projjson"], source: "proj:projjson" };
    if (typeof from["proj:wkt2"] === "string") return { ...base, def: from["proj:wkt2"], source: "proj:wkt2" };
    const m = /^EPSG:(\d+)$/i.exec(String(from["proj:code"]));
    const def = m && epsgDefinition(Number(m[1]));
    return def ? { ...base, def, source: `proj:code ${from["proj:code"]}` } : { ...base, def: null, source: `proj:code ${from["proj:code"]}`, unknown: true };
  }
  if (gridMapping) {
    const wkt = gridMapping.crs_wkt ?? gridMapping.spatial_ref;
    if (typeof wkt === "string" && wkt) return { def: wkt, source: "grid_mapping crs_wkt", dims: null, transform: null };
    const def = cfToProj(gridMapping);
    if (def) return { def, source: `grid_mapping ${gridMapping.grid_mapping_name}`, dims: null, transform: null };
    return { def: null, source: `grid_mapping ${gridMapping.grid_mapping_name}`, unknown: true };
  }
  return null;
}

let proj4Loading = null;

/** proj4, loaded on first use (a classic script: the package's UMD build). */
export function loadProj4() {
  if (globalThis.proj4) return Promise.resolve(globalThis.proj4);
  proj4Loading ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = new URL("../node_modules/proj4/dist/proj4.js", import.meta.url).href;
    s.onload = () => resolve(globalThis.proj4);
    s.onerror = () => reject(new Error("node_modules/proj4/dist/proj4.js could not be loaded (run make demo-deps)"));
    document.head.append(s);
  });
  return proj4Loading;
}

/** A function (lon, lat) → [x, y] into crs (proj4 from WGS 84). */
export async function projector(crs) {
  const proj4 = await loadProj4();
  const p = proj4("EPSG:4326", crs.def);
  return (lon, lat) => {
    try {
      const [x, y] = p.forward([lon, lat]);
      return Number.isFinite(x) && Number.isFinite(y) ? [x, y] : null;
    } catch {
      return null;
    }
  };
}
