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
  if (arr.chunks) return arr.chunks.slice();
  const sizes = arr.chunkSizes;
  if (sizes) return sizes.map((s) => (Array.isArray(s) ? Math.max(1, ...s) : Number(s) || 1));
  return arr.shape.map((n) => Math.max(1, n));
}

/** The data type as text: its name, with the stored v2 typestr when that says more; a structured type as stored. */
export function dtypeText(a) {
  const stored = a.dataType?.stored;
  if (typeof a.dtype !== "string") return JSON.stringify(stored ?? a.dtype);
  return typeof stored === "string" && stored !== a.dtype ? `${a.dtype} (${stored})` : a.dtype;
}

/** Whether the array holds booleans. */
export function isBool(a) {
  return a?.dtype === "bool";
}

/** Dimension names: OME axes, or the array's (v3 dimension_names, v2 _ARRAY_DIMENSIONS). */
export function dimNames(a, axes) {
  const names = axes?.map((x) => (typeof x === "string" ? x : x?.name)) ?? a.dimensionNames ?? null;
  return a.shape.map((_, d) => (names && names[d] ? String(names[d]) : `dim ${d}`));
}

/** The array's units attribute, with a leading space ("" when none). */
export function unitsSuffix(a) {
  const u = a?.attrs?.units;
  return typeof u === "string" && u ? ` ${u}` : "";
}
