// OME-Zarr (NGFF 0.1–0.5) metadata, read into plain objects the viewer
// uses: multiscale images (levels, axes, units, scale and translation),
// omero rendering settings (channel names, colours, contrast windows,
// default z and t), label images (`labels/` and `image-label` colours),
// and high-content screening plates and wells. NGFF 0.5 keeps all of it
// under an "ome" attribute; earlier versions at the top level.
// Nothing here reads a store (except openPyramid): it only interprets
// attributes, so it runs (and is tested) anywhere.

/** The attributes OME metadata lives in: attrs.ome (0.5) or attrs itself. */
export function omeAttrs(attrs) {
  return attrs?.ome && typeof attrs.ome === "object" ? attrs.ome : attrs ?? {};
}

/** The first multiscale image a group describes, or null. */
export function multiscalesOf(g) {
  const list = omeAttrs(g.attrs).multiscales ?? g.attrs?.multiscales;
  const m = Array.isArray(list) ? list[0] : null;
  const ok = m && Array.isArray(m.datasets) && m.datasets.length > 0 && m.datasets.every((d) => typeof d?.path === "string");
  return ok ? m : null;
}

const isNums = (a, n) => Array.isArray(a) && a.length === n && a.every((x) => typeof x === "number" && Number.isFinite(x));

/** The scale and translation of a coordinateTransformations list (n axes). */
function transformsOf(list, n) {
  let scale = null;
  let translation = null;
  for (const t of Array.isArray(list) ? list : []) {
    if (t?.type === "scale" && isNums(t.scale, n)) scale = t.scale.slice();
    if (t?.type === "translation" && isNums(t.translation, n)) translation = t.translation.slice();
  }
  return { scale, translation };
}

/** The axes of a multiscale entry as {name, type, unit} (0.3's are names only). */
function axesOf(ms, n) {
  if (!Array.isArray(ms.axes) || ms.axes.length !== n) return null;
  return ms.axes.map((a) => {
    if (typeof a === "string") {
      const type = a === "c" ? "channel" : a === "t" ? "time" : /^[xyz]$/.test(a) ? "space" : undefined;
      return { name: a, type, unit: undefined };
    }
    // The specification's own examples spell it "units".
    const unit = typeof a?.unit === "string" ? a.unit : typeof a?.units === "string" ? a.units : undefined;
    return { name: String(a?.name ?? ""), type: typeof a?.type === "string" ? a.type : undefined, unit };
  });
}

/** "FF00FF", "#ff00ff" or "f0f" → [r, g, b] (0–255), else null. */
export function parseColor(s) {
  if (typeof s !== "string") return null;
  let h = s.trim().replace(/^#/, "");
  if (/^[0-9a-f]{3}$/i.test(h)) h = h.replace(/./g, (c) => c + c);
  if (!/^[0-9a-f]{6}([0-9a-f]{2})?$/i.test(h)) return null;
  const n = parseInt(h.slice(0, 6), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * Colours for channels omero does not colour: one channel is white (grey
 * levels); several take green, magenta, cyan, yellow, red, blue, white in
 * turn (pairs that stay distinct when added).
 */
export function defaultColor(i, count) {
  if (count === 1) return [255, 255, 255];
  const palette = [[0, 255, 0], [255, 0, 255], [0, 255, 255], [255, 255, 0], [255, 0, 0], [0, 0, 255], [255, 255, 255]];
  return palette[i % palette.length];
}

/** The omero rendering settings for n channels: {channels, defaultT, defaultZ}. */
function omeroOf(attrs, n) {
  const om = omeAttrs(attrs).omero ?? attrs?.omero;
  const list = Array.isArray(om?.channels) ? om.channels : [];
  const channels = [];
  for (let i = 0; i < n; i++) {
    const c = list[i] ?? {};
    const w = c.window ?? {};
    const num = (x) => (typeof x === "number" && Number.isFinite(x) ? x : undefined);
    const window = num(w.start) !== undefined && num(w.end) !== undefined ? { start: w.start, end: w.end, min: num(w.min), max: num(w.max) } : null;
    channels.push({
      label: typeof c.label === "string" && c.label ? c.label : `channel ${i}`,
      color: parseColor(c.color) ?? defaultColor(i, n),
      colored: parseColor(c.color) !== null,
      window,
      active: c.active !== false,
      inverted: c.inverted === true,
    });
  }
  const rd = om?.rdefs ?? {};
  const int = (x) => (Number.isInteger(x) && x >= 0 ? x : undefined);
  return { channels, defaultT: int(rd.defaultT), defaultZ: int(rd.defaultZ), present: !!om };
}

/**
 * The image a group describes, for an array of `shape` (its level 0):
 * {name, version, axes, scale, translation, channelAxis, channels, defaultT,
 * defaultZ, omero}. scale/translation map an index to physical coordinates
 * per axis (level 0's dataset transform, then the multiscale's own), or are
 * null without transforms.
 */
export function describeImage(attrs, ms, shape) {
  const n = shape.length;
  const axes = axesOf(ms, n);
  const t0 = transformsOf(ms.datasets[0]?.coordinateTransformations, n);
  const tg = transformsOf(ms.coordinateTransformations, n);
  let scale = t0.scale;
  let translation = t0.translation;
  if (tg.scale) {
    scale = (scale ?? shape.map(() => 1)).map((s, d) => s * tg.scale[d]);
    translation = translation ? translation.map((t, d) => t * tg.scale[d]) : null;
  }
  if (tg.translation) translation = (translation ?? shape.map(() => 0)).map((t, d) => t + tg.translation[d]);
  let channelAxis = axes ? axes.findIndex((a) => a.type === "channel") : -1;
  if (channelAxis < 0 && axes) channelAxis = axes.findIndex((a) => a.name === "c" && !a.type);
  const om = omeroOf(attrs, channelAxis >= 0 ? shape[channelAxis] : 1);
  const version = ms.version ?? omeAttrs(attrs).version;
  return {
    name: typeof ms.name === "string" ? ms.name : undefined,
    version: version === undefined ? undefined : String(version),
    axes,
    scale,
    translation,
    channelAxis,
    channels: om.channels,
    defaultT: om.defaultT,
    defaultZ: om.defaultZ,
    omero: om.present,
  };
}

/**
 * Opens the levels of a multiscale image: [{arr, path, factors}]. levels[0]
 * is the full resolution; each level's factors are how many level-0 pixels one of its pixels spans
 * per dimension (from the shapes, which the scale transforms must match).
 */
export async function openPyramid(g, ms) {
  const paths = ms.datasets.map((d) => d.path.replace(/^\/+/, ""));
  const arrays = await Promise.all(paths.map((p) => g.open(p, { kind: "array" })));
  const a0 = arrays[0];
  const levels = arrays
    .map((arr, i) => ({ arr, path: paths[i], factors: a0.shape.map((s, d) => Math.max(1, Math.round(s / Math.max(1, arr.shape[d])))) }))
    .filter((l) => l.arr.shape.length === a0.shape.length);
  const image = describeImage(g.attrs, ms, a0.shape);
  return { levels, axes: image.axes, name: ms.name, image };
}

// ---- labels ---------------------------------------------------------------

/** The label images a `labels` group lists (names, relative to it). */
export function labelNames(attrs) {
  const list = omeAttrs(attrs).labels ?? attrs?.labels;
  return Array.isArray(list) ? list.filter((x) => typeof x === "string" && x && !x.includes("..")) : [];
}

/**
 * A label image's colours: {colors: Map<value, [r, g, b, a]>} from
 * `image-label`, or null when the group is not a label image.
 */
export function imageLabelOf(attrs) {
  const il = omeAttrs(attrs)["image-label"] ?? attrs?.["image-label"];
  if (!il || typeof il !== "object") return null;
  const colors = new Map();
  for (const c of Array.isArray(il.colors) ? il.colors : []) {
    const v = c?.["label-value"];
    if (typeof v !== "number" || !Array.isArray(c.rgba) || c.rgba.length < 3) continue;
    const [r, g, b, a = 255] = c.rgba.map(Number);
    if ([r, g, b, a].every((x) => x >= 0 && x <= 255)) colors.set(v, [r, g, b, a]);
  }
  return { colors };
}

/**
 * The colour of a label value without a listed colour: a bright colour
 * from the value (golden-angle hues), the same on every visit.
 */
export function labelColor(v) {
  const h = (((((Number(v) * 137.508) % 360) + 360) % 360) / 60) % 6;
  const c = 230;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const rgb = h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  return [...rgb.map((k) => Math.round(k + 25)), 255];
}

// ---- plates and wells -------------------------------------------------------

/**
 * A plate's layout: {name, rows, columns (names), wells: [{path, row,
 * column (names), rowIndex, columnIndex}], acquisitions: [{id, name}]}, or
 * null. A well's indices come from rowIndex/columnIndex (0.4), else from
 * its path's names (0.3); -1 when neither places it.
 */
export function plateOf(attrs) {
  const p = omeAttrs(attrs).plate ?? attrs?.plate;
  if (!p || !Array.isArray(p.wells)) return null;
  const names = (l) => (Array.isArray(l) ? l.map((x) => String(x?.name ?? "")) : []);
  const rows = names(p.rows);
  const columns = names(p.columns);
  const wells = [];
  for (const w of p.wells) {
    if (typeof w?.path !== "string") continue;
    const parts = w.path.split("/").filter(Boolean);
    if (parts.length !== 2 || parts.some((s) => s === "." || s === "..")) continue;
    const rowIndex = Number.isInteger(w.rowIndex) && rows[w.rowIndex] !== undefined ? w.rowIndex : rows.indexOf(parts[0]);
    const columnIndex = Number.isInteger(w.columnIndex) && columns[w.columnIndex] !== undefined ? w.columnIndex : columns.indexOf(parts[1]);
    wells.push({ path: parts.join("/"), row: rows[rowIndex] ?? parts[0], column: columns[columnIndex] ?? parts[1], rowIndex, columnIndex });
  }
  const acquisitions = (Array.isArray(p.acquisitions) ? p.acquisitions : [])
    .filter((a) => Number.isInteger(a?.id))
    .map((a) => ({ id: a.id, name: typeof a.name === "string" && a.name ? a.name : `acquisition ${a.id}` }));
  return { name: typeof p.name === "string" ? p.name : undefined, rows, columns, wells, acquisitions };
}

/** A well's fields of view: {images: [{path, acquisition}]}, or null. */
export function wellOf(attrs) {
  const w = omeAttrs(attrs).well ?? attrs?.well;
  if (!w || !Array.isArray(w.images)) return null;
  const images = w.images.filter((i) => typeof i?.path === "string" && i.path && !i.path.includes("..")).map((i) => ({ path: i.path, acquisition: i.acquisition }));
  return { images };
}

// ---- units ---------------------------------------------------------------

const prefixes = { yotta: 1e24, zetta: 1e21, exa: 1e18, peta: 1e15, tera: 1e12, giga: 1e9, mega: 1e6, kilo: 1e3, hecto: 1e2, deca: 1e1, deci: 1e-1, centi: 1e-2, milli: 1e-3, micro: 1e-6, nano: 1e-9, pico: 1e-12, femto: 1e-15, atto: 1e-18, zepto: 1e-21, yocto: 1e-24 };
const symbols = { yotta: "Y", zetta: "Z", exa: "E", peta: "P", tera: "T", giga: "G", mega: "M", kilo: "k", hecto: "h", deca: "da", deci: "d", centi: "c", milli: "m", micro: "µ", nano: "n", pico: "p", femto: "f", atto: "a", zepto: "z", yocto: "y" };

/**
 * What an NGFF (UDUNITS-2) unit name means: {symbol, si (a metre or
 * second with an SI prefix: rescalable), base ("m" or "s"), factor (in base
 * units)}; other names (inch, minute, …) keep their unit; unknown names are
 * shown as given.
 */
export function unitInfo(unit) {
  if (typeof unit !== "string" || !unit) return null;
  const u = unit.trim().toLowerCase();
  if (u === "meter" || u === "metre") return { symbol: "m", si: true, base: "m", factor: 1 };
  if (u === "second") return { symbol: "s", si: true, base: "s", factor: 1 };
  for (const [p, f] of Object.entries(prefixes)) {
    for (const [name, base] of [["meter", "m"], ["metre", "m"], ["second", "s"]]) {
      if (u === p + name) return { symbol: symbols[p] + base, si: true, base, factor: f };
    }
  }
  if (others[u]) return { symbol: others[u], si: false };
  return { symbol: unit, si: false };
}

const others = { angstrom: "Å", inch: "in", foot: "ft", yard: "yd", mile: "mi", parsec: "pc", minute: "min", hour: "h", day: "d" };
const siSteps = [[1e-12, "p"], [1e-9, "n"], [1e-6, "µ"], [1e-3, "m"], [1, ""], [1e3, "k"]];

/** 1, 2 or 5 × 10^k: the largest at most x. */
function niceBelow(x) {
  const mag = 10 ** Math.floor(Math.log10(x));
  const m = x / mag;
  return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * mag;
}

/**
 * A length for a scale bar: 1, 2 or 5 × 10^k, at most `about` units of the
 * axis, in a convenient SI prefix for metres and seconds. Returns
 * {value (in the axis's unit), text}, or null.
 */
export function niceLength(about, unit) {
  if (!(about > 0) || !Number.isFinite(about)) return null;
  const info = unitInfo(unit);
  if (info?.si) {
    const inBase = about * info.factor;
    let [f, p] = siSteps[0];
    for (const step of siSteps) if (inBase >= step[0]) [f, p] = step;
    const v = niceBelow(inBase / f);
    return { value: (v * f) / info.factor, text: `${fmt(v)} ${p}${info.base}` };
  }
  const v = niceBelow(about);
  return { value: v, text: `${fmt(v)}${info?.symbol ? " " + info.symbol : ""}` };
}

function fmt(v) {
  return String(Number(v.toPrecision(3)));
}
