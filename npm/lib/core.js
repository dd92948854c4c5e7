// The public API: open, create, arrays and groups. Every method is async and
// runs in the Go engine (one goroutine per call).
import { callBridge, bridgeIfRunning, unlimitedListeners } from "./runtime.js";
import { ZarrError, toZarrError } from "./errors.js";
import { toJSONText } from "./json.js";
import { describeValue } from "./values.js";

// Go-side handles are released when their JS object is garbage collected.
const registry =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((id) => bridgeIfRunning()?.release(id))
    : null;

/**
 * Runs fn with a signal of its own that follows the caller's: every store
 * request of the call listens to it, which would trip Node's
 * MaxListenersExceededWarning on the caller's signal.
 */
async function withSignal(signal, fn) {
  if (!signal) return fn(undefined);
  if (signal.aborted) return fn(signal);
  const inner = new AbortController();
  unlimitedListeners(inner.signal);
  const onAbort = () => inner.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await fn(inner.signal);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function checkStore(store) {
  if (store === null || (typeof store !== "object" && typeof store !== "function") || typeof store.get !== "function") {
    throw new ZarrError("STORE", "a store is an object with a get(key) method (see MemoryStore, FetchStore)");
  }
}

function normPath(path) {
  if (path === undefined || path === null) return "";
  return String(path).replace(/^\/+|\/+$/g, "");
}

function node(info, store) {
  return info.kind === "array" ? new ZarrArray(info, store) : new ZarrGroup(info, store);
}

class ZarrNode {
  #info;
  constructor(info, store) {
    this.#info = info;
    /** The store the node was opened from. */
    this.store = store;
    registry?.register(this, info.id);
  }
  /** @internal */
  get _info() {
    return this.#info;
  }
  /** @internal */
  _update(info) {
    this.#info = { ...this.#info, ...info };
  }
  get kind() {
    return this.#info.kind;
  }
  /** Path inside the store, without leading "/" ("" for the root). */
  get path() {
    return this.#info.path;
  }
  /** The last path segment. */
  get name() {
    const p = this.#info.path;
    return p.slice(p.lastIndexOf("/") + 1);
  }
  get zarrFormat() {
    return this.#info.zarrFormat;
  }
  get attrs() {
    return this.#info.attrs;
  }
  /** Replaces the attributes (written to the store). */
  async setAttrs(attrs) {
    const a = await callBridge("setAttrs", this.#info.id, toJSONText(attrs ?? {}), false);
    this.#info.attrs = a;
    return a;
  }
  /** Merges attributes into the existing ones (written to the store). */
  async updateAttrs(attrs) {
    const a = await callBridge("setAttrs", this.#info.id, toJSONText(attrs ?? {}), true);
    this.#info.attrs = a;
    return a;
  }
}

export class ZarrArray extends ZarrNode {
  get shape() {
    return this._info.shape.slice();
  }
  get ndim() {
    return this._info.shape.length;
  }
  /** Chunk shape of a regular grid (null for a variable grid: see chunkSizes). */
  get chunks() {
    return this._info.chunks ? this._info.chunks.slice() : null;
  }
  /** Per-dimension chunk sizes of a variable (rectilinear) grid. */
  get chunkSizes() {
    return this._info.chunkSizes ?? null;
  }
  /** The data type as stored: v3 name ("float32") or v2 typestr ("<f4"). */
  get dtype() {
    return this._info.dtype;
  }
  get fillValue() {
    return this._info.fillValue;
  }
  /** The codec chain in v3 form ({name, configuration}). */
  get codecs() {
    return this._info.codecs;
  }
  get order() {
    return this._info.order;
  }
  get dimensionNames() {
    return this._info.dimensionNames ?? null;
  }
  /** How values of this array look in JS (TypedArray name, fields, ...). */
  get dataType() {
    return this._info.type;
  }
  /**
   * Reads a selection.
   * @param {import("../index.d.ts").Selection} [selection]
   * @param {{signal?: AbortSignal, concurrency?: number}} [options]
   */
  async get(selection = null, options = {}) {
    const sel = normSelection(selection);
    return withSignal(options.signal, (signal) => callBridge("get", this._info.id, sel, signal, options.concurrency));
  }
  /**
   * Writes a selection: value is a scalar (broadcast), a TypedArray or
   * array in C order with the selection's shape, or {data, shape}.
   */
  async set(selection, value, options = {}) {
    let desc;
    try {
      desc = describeValue(this._info.type, value);
    } catch (e) {
      throw e instanceof ZarrError ? e : new ZarrError("SELECTION", e.message, { cause: e });
    }
    const sel = normSelection(selection);
    return withSignal(options.signal, (signal) => callBridge("set", this._info.id, sel, desc, signal));
  }
  /**
   * One chunk, decoded (the fill value where the store has none).
   * @param {number[]} coords chunk coordinates in the grid
   */
  async getChunk(coords, options = {}) {
    const c = Array.from(coords, Number);
    return withSignal(options.signal, (signal) => callBridge("getChunk", this._info.id, c, signal));
  }
  /** Decodes the stored bytes of chunk `coords` (the pure step; no store access). */
  async decodeChunk(coords, bytes) {
    return callBridge("decodeChunk", this._info.id, Array.from(coords, Number), bytes);
  }
  /** The store key of a chunk ("/path/c/0/1"). */
  async chunkKey(coords) {
    return callBridge("chunkKey", this._info.id, Array.from(coords, Number));
  }
  /** Changes the shape; chunks outside the new shape are deleted. */
  async resize(shape) {
    const info = await callBridge("resize", this._info.id, Array.from(shape, Number));
    this._update({ shape: info.shape, chunks: info.chunks });
  }
  toString() {
    return `<zarr array /${this.path} shape=(${this.shape.join(", ")}) dtype=${this.dtype}>`;
  }
}

export class ZarrGroup extends ZarrNode {
  /** Whether the group reads its hierarchy from consolidated metadata. */
  get consolidated() {
    return !!this._info.consolidated;
  }
  /**
   * The arrays and groups directly inside, sorted by name. Needs a store
   * with list() or consolidated metadata. A child that exists but cannot be
   * opened (unsupported codec, broken metadata) has kind "unknown", node
   * null and its ZarrError in `error`.
   * @returns {Promise<Array<{name: string, path: string, kind: "array"|"group"|"unknown", node: ZarrArray|ZarrGroup|null, error?: ZarrError}>>}
   */
  async children(options = {}) {
    const kids = await withSignal(options.signal, (signal) => callBridge("children", this._info.id, signal));
    return kids.map((info) =>
      info.kind === "unknown"
        ? { name: info.name, path: info.path, kind: "unknown", node: null, error: toZarrError(info.error) }
        : { name: info.name, path: info.path, kind: info.kind, node: node(info, this.store) },
    );
  }
  /** Opens a node below this group by relative path. */
  async open(path, options = {}) {
    const info = await withSignal(options.signal, (signal) => callBridge("openChild", this._info.id, normPath(path), signal));
    if (options.kind && info.kind !== options.kind) {
      bridgeIfRunning()?.release(info.id);
      throw new ZarrError("NOT_FOUND", `${JSON.stringify(info.path)}: is a ${info.kind}, not a ${options.kind}`, { where: info.path });
    }
    return node(info, this.store);
  }
  toString() {
    return `<zarr group /${this.path}>`;
  }
}

/** A slice for selections: slice(stop) or slice(start, stop, step). */
export function slice(start, stop, step) {
  if (arguments.length === 1) {
    stop = start;
    start = null;
  }
  return Object.freeze({ kind: "slice", start: num(start), stop: num(stop), step: num(step) });
}

function num(v) {
  if (v === undefined || v === null) return null;
  if (typeof v === "bigint") return Number(v);
  return v;
}

function normSelection(sel) {
  if (sel === undefined || sel === null || typeof sel === "string") return sel ?? null;
  if (typeof sel === "number" || typeof sel === "bigint") return [Number(sel)];
  if (!Array.isArray(sel)) {
    if (sel && typeof sel === "object" && ("start" in sel || "stop" in sel)) return [normItem(sel)];
    throw new ZarrError("SELECTION", "a selection is null, a string like \"0:10, :\", or an array of numbers, nulls and zarr.slice()");
  }
  return sel.map(normItem);
}

function normItem(x) {
  if (typeof x === "bigint") return Number(x);
  if (x && typeof x === "object") {
    if (!("start" in x || "stop" in x || "step" in x)) {
      throw new ZarrError("SELECTION", `a selection item is a number, null, "..." or zarr.slice(), got ${JSON.stringify(x)}`);
    }
    return { start: num(x.start), stop: num(x.stop), step: num(x.step) };
  }
  return x;
}

/**
 * Opens an array or group.
 * @param {object} store
 * @param {{path?: string, kind?: "array"|"group", signal?: AbortSignal}} [options]
 */
export async function open(store, options = {}) {
  checkStore(store);
  if (typeof options === "string") options = { path: options };
  const info = await withSignal(options.signal, (signal) => callBridge("open", store, normPath(options.path), options.kind ?? "", signal));
  return node(info, store);
}

/**
 * Creates an array (and missing parent groups). Options follow the Go
 * engine's zarr.ArrayOptions (field names matched without regard to case):
 * shape, chunks, dtype, fillValue, zarrFormat, codecs, compressor, filters,
 * order, dimensionSeparator, attributes, overwrite, writeEmptyChunks, ...
 */
export async function create(store, options = {}) {
  checkStore(store);
  if (options.kind === "group") return createGroup(store, options);
  const o = { ...options };
  delete o.signal;
  o.path = normPath(o.path);
  if ("chunkShape" in o && !("chunks" in o)) o.chunks = o.chunkShape;
  if ("dataType" in o && !("dtype" in o)) o.dtype = o.dataType;
  if ("chunkSeparator" in o && !("dimensionSeparator" in o)) o.dimensionSeparator = o.chunkSeparator;
  delete o.chunkShape;
  delete o.dataType;
  delete o.chunkSeparator;
  if (o.shape === undefined) throw new ZarrError("INVALID_METADATA", "create() needs a shape");
  o.shape = Array.from(o.shape, Number);
  if (o.chunks != null) o.chunks = Array.from(o.chunks, Number);
  if ("fillValue" in o) {
    const f = o.fillValue;
    if (f === null) {
      o.noFill = true;
      delete o.fillValue;
    } else if (typeof f === "number" && !Number.isFinite(f)) {
      o.fillValue = Number.isNaN(f) ? "NaN" : f > 0 ? "Infinity" : "-Infinity";
    }
  }
  if ("compressor" in o && o.compressor === null) {
    o.noCompressor = true;
    delete o.compressor;
  }
  const info = await callBridge("create", store, toJSONText(o));
  return node(info, store);
}

/** Creates a group (and missing parents). Options: path, attributes, zarrFormat, overwrite. */
export async function createGroup(store, options = {}) {
  checkStore(store);
  const o = { ...options, path: normPath(options.path) };
  delete o.kind;
  const info = await callBridge("createGroup", store, toJSONText(o));
  return node(info, store);
}
