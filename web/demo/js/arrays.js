// Facts about an array the viewer's panels share: how its data type reads,
// the names of its dimensions, its units, and whether it can be drawn.

const typedNames = new Set([
  "Int8Array", "Uint8Array", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
]);

/** How an array's elements become numbers: "real", "complex", or null (not drawable). */
export function numericKind(arr) {
  const t = arr.dataType;
  if (!t || !typedNames.has(t.js)) return null;
  return t.items === 2 ? "complex" : "real";
}

/** The chunk shape reads happen in: the inner chunks of a sharded array. */
export function readChunkShape(arr) {
  const c = arr.codecs?.[0];
  if (c?.name === "sharding_indexed" && Array.isArray(c.configuration?.chunk_shape)) {
    return c.configuration.chunk_shape.slice();
  }
  if (arr.chunks) return arr.chunks.slice();
  const sizes = arr.chunkSizes;
  if (sizes) return sizes.map((s) => (Array.isArray(s) ? Math.max(1, ...s) : Number(s) || 1));
  return arr.shape.map((n) => Math.max(1, n));
}

/** The data type as text (v3 name, v2 typestr, or a structured type's JSON). */
export function dtypeText(a) {
  return typeof a.dtype === "string" ? a.dtype : JSON.stringify(a.dtype);
}

/** Whether the array holds booleans. */
export function isBool(a) {
  return a?.dtype === "bool" || a?.dtype === "|b1";
}

/** Dimension names: OME axes, v3 dimension_names, or xarray's _ARRAY_DIMENSIONS. */
export function dimNames(a, axes) {
  const names = axes?.map((x) => (typeof x === "string" ? x : x?.name)) ?? a.dimensionNames ?? a.attrs?._ARRAY_DIMENSIONS ?? null;
  return a.shape.map((_, d) => (names && names[d] ? String(names[d]) : `dim ${d}`));
}

/** The array's units attribute, with a leading space ("" when none). */
export function unitsSuffix(a) {
  const u = a?.attrs?.units;
  return typeof u === "string" && u ? ` ${u}` : "";
}
