// The zarrita.js-style forms of the API: locations (root, resolve), get
// and set as functions with zarrita's result conventions, named-dimension
// selections and consolidation. Code written against zarrita 0.7 runs with
// its import changed (docs/from-zarrita.md).
import { callBridge, bridgeIfRunning } from "./runtime.js";
import { ZarrError } from "./errors.js";
import { ZarrArray, ZarrGroup, Location } from "./core.js";
import { checkOptions } from "./options.js";

function checkArray(arr, fn) {
  if (!(arr instanceof ZarrArray)) {
    throw new ZarrError("INVALID_ARGUMENT", `${fn}() takes an array opened by zarr.open(..., { kind: "array" })`);
  }
}

/**
 * Reads a selection, as zarrita's get(): a scalar when every dimension is
 * indexed by an integer (or the array is 0-d), else {data, shape, stride}.
 */
export async function get(arr, selection = null, options = {}) {
  checkArray(arr, "get");
  const res = await arr.get(selection, withOldSignal(checkOptions("get", options)));
  return res.shape.length === 0 ? scalarOf(arr, res.data) : res;
}

/** The one element of a 0-d result as a JS value. */
function scalarOf(arr, data) {
  const info = arr.dataType;
  if (info.js === "struct") {
    const out = {};
    for (const f of info.fields) out[f.name] = f.shape.length ? data[f.name] : data[f.name][0];
    return out;
  }
  if ((info.items ?? 1) > 1) return Array.from(data.subarray(0, info.items));
  if (arr.dtype === "bool") return data[0] !== 0;
  return data[0];
}

/**
 * Writes a selection, as zarrita's set(): value is a scalar or a chunk
 * {data, shape, stride?} (any strides; C order when none are given).
 */
export async function set(arr, selection, value, options = {}) {
  checkArray(arr, "set");
  if (value && typeof value === "object" && "data" in value && Array.isArray(value.shape) && Array.isArray(value.stride)) {
    value = { data: cOrder(value.data, value.shape, value.stride), shape: value.shape };
  }
  return arr.set(selection ?? null, value, withOldSignal(checkOptions("set", options)));
}

/**
 * zarrita's older option form {opts: {signal}}, still accepted there:
 * its signal joins options.signal (either aborts the call).
 */
function withOldSignal(options) {
  const { opts, ...rest } = options;
  const old = opts?.signal;
  if (!old) return rest;
  const signal = rest.signal ? AbortSignal.any([rest.signal, old]) : old;
  return { ...rest, signal };
}

/** data laid out by stride, copied into C order (returned as is when it already is). */
function cOrder(data, shape, stride) {
  let expect = 1;
  let contiguous = true;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] > 1 && stride[d] !== expect) contiguous = false;
    expect *= shape[d];
  }
  if (contiguous) return data;
  const n = expect;
  const out = ArrayBuffer.isView(data) ? new data.constructor(n) : new Array(n);
  const idx = new Array(shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    let off = 0;
    for (let d = 0; d < shape.length; d++) off += idx[d] * stride[d];
    out[k] = data[off];
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/**
 * A selection by dimension name, as zarrita's select():
 * select(arr, {time: 0, lat: zarr.slice(0, 10)}) → [0, slice(0, 10), null, ...]
 * (dimensions not named are taken whole).
 */
export function select(arr, selection) {
  checkArray(arr, "select");
  const names = arr.dimensionNames;
  if (!names) {
    throw new ZarrError("SELECTION", `${JSON.stringify(`/${arr.path}`)}: the array has no dimension names (v3 dimension_names or v2 _ARRAY_DIMENSIONS)`, { where: `/${arr.path}` });
  }
  for (const key of Object.keys(selection ?? {})) {
    if (!names.includes(key)) {
      const near = bridgeIfRunning()?.nearest(key, names.filter((n) => n !== null)) || undefined;
      const known = names.map((n) => JSON.stringify(n)).join(", ");
      throw new ZarrError("SELECTION", `unknown dimension name ${JSON.stringify(key)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ""}; the dimensions are ${known}`, { where: key, suggest: near });
    }
  }
  return names.map((name) => (name !== null && selection[name] !== undefined ? selection[name] : null));
}

/**
 * Writes consolidated metadata for the hierarchy at path ("" or "/" for the
 * root): .zmetadata for v2, inline consolidated_metadata for v3. Needs a
 * store that can list and write. Resolves to the group, reopened through it.
 */
export async function consolidate(store, path = "") {
  if (store instanceof Location) {
    path = store.path;
    store = store.store;
  }
  const info = await callBridge("consolidate", store, String(path ?? "").replace(/^\/+|\/+$/g, ""));
  return new ZarrGroup(info, store);
}
