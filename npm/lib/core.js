// The public API: open, create, arrays and groups. Every method is async and
// runs in the Go engine (one goroutine per call).
import { callBridge, callBuild, bridgeIfRunning, unlimitedListeners, OtherBuildError } from "./runtime.js";
import { ZarrError, toZarrError } from "./errors.js";
import { toJSONText } from "./json.js";
import { cacheOptions } from "./cache.js";
import { describeValue } from "./values.js";
import { readPlanned } from "./read.js";
import { checkOptions, canonicalCreateOptions, optionTable } from "./options.js";

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
export async function withSignal(signal, fn) {
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

/** A place in a store: the store and an absolute path ("/", "/a/b"). */
export class Location {
  constructor(store, path = "/") {
    this.store = store;
    this.path = resolvePath("/", String(path));
  }
  /** The location of path, relative to this one (or absolute when it starts with "/"); ".." goes up. */
  resolve(path) {
    return new Location(this.store, resolvePath(this.path, String(path)));
  }
}

/** The root of a store (a new Map when none is given), as zarrita's root(). */
export function root(store) {
  return new Location(store ?? new Map(), "/");
}

/** Resolves path against the absolute base as URL paths resolve (segments, ".", ".."). */
export function resolvePath(base, path) {
  const segs = path.startsWith("/") ? [] : base.split("/").filter(Boolean);
  for (const s of path.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") segs.pop();
    else segs.push(s);
  }
  return `/${segs.join("/")}`;
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
    registry?.register(this, info.id, this);
  }
  /**
   * @internal Calls a bridge function on this node's handle. A node of the
   * engine's core build that needs the full build (to be written to, or
   * for a chunk only the full build decodes) is opened there first.
   */
  async _call(name, ...args) {
    try {
      return await callBridge(name, this.#info.id, ...args);
    } catch (e) {
      if (!(e instanceof OtherBuildError)) throw e;
      await this.#moveToFullBuild();
      return callBridge(name, this.#info.id, ...args);
    }
  }
  async #moveToFullBuild() {
    const old = this.#info.id;
    const info = await callBuild("full", "open", this.store, this.#info.path, this.#info.kind);
    if (this.#info.id !== old) {
      bridgeIfRunning()?.release(info.id); // moved meanwhile by another call
      return;
    }
    this.#info = { ...this.#info, id: info.id };
    registry?.unregister(this);
    registry?.register(this, info.id, this);
    bridgeIfRunning()?.release(old);
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
  /** The location of path relative to this node (zarrita's node.resolve), for open() and create(). */
  resolve(path) {
    return new Location(this.store, `/${this.#info.path}`).resolve(path);
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
    const a = await this._call("setAttrs", toJSONText(attrs ?? {}), false);
    this.#info.attrs = a;
    return a;
  }
  /** Merges attributes into the existing ones (written to the store). */
  async updateAttrs(attrs) {
    const a = await this._call("setAttrs", toJSONText(attrs ?? {}), true);
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
  /**
   * Shape of the chunks a read decodes: the inner chunks of a sharded
   * array (as zarrita.js and zarr-python 3 say); null for a variable grid
   * (see chunkSizes).
   */
  get chunks() {
    return this._info.chunks ? this._info.chunks.slice() : null;
  }
  /** Shard shape of a sharded array (the chunk grid's cells), else null. */
  get shards() {
    return this._info.shards ? this._info.shards.slice() : null;
  }
  /** Per-dimension chunk sizes of a variable (rectilinear) grid. */
  get chunkSizes() {
    return this._info.chunkSizes ?? null;
  }
  /**
   * The data type in one vocabulary for every format: "float32", "int64",
   * "bool", "string", "datetime64[ns]", "v2:U13", ...; a structured type
   * is described as {name: "struct", fields: [{name, dtype, shape?}]}.
   * As stored: dataType.stored, or metadata.
   */
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
  /** Memory order of the stored chunks: "C" or "F" (a v3 transpose reversing the dimensions). */
  get order() {
    return this._info.order;
  }
  /** Dimension names (v3 dimension_names, v2 _ARRAY_DIMENSIONS), null where unnamed; null when none. */
  get dimensionNames() {
    return this._info.dimensionNames ? this._info.dimensionNames.slice() : null;
  }
  /** How values of this array look in JS (TypedArray name, fields, ...), and the data type as stored. */
  get dataType() {
    return this._info.type;
  }
  /** The metadata document as stored (.zarray, zarr.json or v1 meta), with the current shape. */
  get metadata() {
    return this._info.metadata;
  }
  /**
   * Whether the data type is `query`: a name ("float32") or a family
   * ("number", "bigint", "boolean", "string", "object"), as zarrita.js's
   * arr.is(); a type guard in TypeScript (see dtypeIs).
   */
  is(query) {
    return dtypeIs(this._info.dtype, this._info.type, query);
  }
  /**
   * Reads a selection.
   * @param {import("../index.d.ts").Selection} [selection]
   * @param {{signal?: AbortSignal, concurrency?: number, workers?: boolean}} [options]
   *   workers: false decodes on this thread even where the read is worth decode workers
   */
  async get(selection = null, options = {}) {
    options = checkOptions("ZarrArray.get", options);
    const sel = normSelection(selection);
    // The engine plans the read and lib/read.js runs the plan; what the
    // plan leaves to the engine (or the executor hands back) the engine
    // reads itself. A store that bounds its own requests (FetchStore's
    // `concurrency`) is read that many chunks at a time.
    const c = options.concurrency ?? (Number.isInteger(this.store?.concurrency) ? this.store.concurrency : undefined);
    return withSignal(options.signal, async (signal) => (await readPlanned(this, sel, signal, { concurrency: c, workers: options.workers })) ?? this._call("get", sel, signal, c));
  }
  /**
   * Writes a selection: value is a scalar (broadcast), a TypedArray or
   * array in C order with the selection's shape, or {data, shape}.
   */
  async set(selection, value, options = {}) {
    options = checkOptions("ZarrArray.set", options);
    let desc;
    try {
      desc = describeValue(this._info.type, value);
    } catch (e) {
      throw e instanceof ZarrError ? e : new ZarrError("INVALID_ARGUMENT", e.message, { cause: e });
    }
    const sel = normSelection(selection);
    return withSignal(options.signal, (signal) => this._call("set", sel, desc, signal));
  }
  /**
   * One chunk of those a read decodes (`chunks`: a sharded array's inner
   * chunks), decoded at its full shape (the fill value where the store has
   * none).
   * @param {number[]} coords the chunk's coordinates
   */
  async getChunk(coords, options = {}) {
    options = checkOptions("ZarrArray.getChunk", options);
    const c = Array.from(coords, Number);
    return withSignal(options.signal, (signal) => this._call("getChunk", c, signal));
  }
  /** Decodes the stored bytes of chunk `coords` (the pure step; no store access). */
  async decodeChunk(coords, bytes) {
    return this._call("decodeChunk", Array.from(coords, Number), bytes);
  }
  /** The store key of a chunk ("/path/c/0/1"). */
  async chunkKey(coords) {
    return this._call("chunkKey", Array.from(coords, Number));
  }
  /**
   * Changes the shape (null keeps a dimension); chunks outside the new shape
   * are deleted. Options are TensorStore's resize modes.
   * @param {Array<number | null>} shape
   * @param {{expandOnly?: boolean, shrinkOnly?: boolean, resizeMetadataOnly?: boolean}} [options]
   */
  async resize(shape, options = {}) {
    options = checkOptions("ZarrArray.resize", options);
    const s = Array.from(shape, (x) => (x === null || x === undefined ? null : Number(x)));
    const info = await this._call("resize", s, options);
    this._update({ shape: info.shape, metadata: info.metadata });
  }
  /** TensorStore's Schema of the array (domain, chunk_layout, codec, dtype, fill_value, rank). */
  get schema() {
    return arraySpec(this._info.id).schema;
  }
  /** The TensorStore spec that reopens the array (with its complete metadata). */
  spec() {
    return arraySpec(this._info.id).spec;
  }
  toString() {
    const dt = typeof this.dtype === "string" ? this.dtype : this.dtype.name;
    return `<zarr array /${this.path} shape=(${this.shape.join(", ")}) dtype=${dt}>`;
  }
}

export class ZarrGroup extends ZarrNode {
  /**
   * Whether the group reads its hierarchy from consolidated metadata (a v3
   * zarr.json's inline consolidated_metadata; a v2 .zmetadata, which the
   * group looks for when it first lists or opens what is below it:
   * children() and open() — false until then).
   */
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
    options = checkOptions("ZarrGroup.children", options);
    const { children: kids, consolidated } = await withSignal(options.signal, (signal) => this._call("children", signal));
    this._update({ consolidated });
    // A child only the engine's full build reads is opened there.
    const moved = await Promise.all(
      kids.map((info) =>
        info.kind === "unknown" && info.error?.otherBuild
          ? callBuild("full", "open", this.store, info.path, "").then(
              (i) => ({ ...i, name: info.name }),
              (e) => ({ ...info, error: e }),
            )
          : info,
      ),
    );
    return moved.map((info) =>
      info.kind === "unknown"
        ? { name: info.name, path: info.path, kind: "unknown", node: null, error: toZarrError(info.error) }
        : { name: info.name, path: info.path, kind: info.kind, node: node(info, this.store) },
    );
  }
  /** Opens a node below this group by relative path. */
  async open(path, options = {}) {
    options = checkOptions("ZarrGroup.open", options);
    const { node: info, consolidated } = await withSignal(options.signal, (signal) => this._call("openChild", normPath(path), options.kind ?? "", signal));
    this._update({ consolidated });
    return checkDtype(node(info, this.store), options.dtype);
  }
  toString() {
    return `<zarr group /${this.path}>`;
  }
}

const numberArrays = new Set(["Int8Array", "Int16Array", "Int32Array", "Uint8Array", "Uint16Array", "Uint32Array", "Float32Array", "Float64Array"]);

/**
 * zarrita.js's data type queries over this package's names: an exact name,
 * or the family of the values a read gives ("number": one number per
 * element; "bigint": int64, uint64, datetime64, timedelta64; "boolean";
 * "string"; "object": v2 objects; "struct").
 */
export function dtypeIs(dtype, info, query) {
  if (typeof query !== "string") return false;
  const name = typeof dtype === "string" ? dtype : dtype?.name;
  switch (query) {
    case "number":
      return name !== "bool" && numberArrays.has(info?.js) && info?.items === 1;
    case "bigint":
      return info?.js === "BigInt64Array" || info?.js === "BigUint64Array";
    case "boolean":
      return name === "bool";
    case "string":
      return name === "string" || name.startsWith("v2:U") || name.startsWith("v2:S");
    case "object":
      return name === "v2:object" || name === "json";
  }
  return name === query;
}

function arraySpec(id) {
  const b = bridgeIfRunning();
  if (!b) throw new ZarrError("INTERNAL", "the zarr-wasm engine is not running");
  const r = b.arraySpec(id);
  if (r.error) throw toZarrError(r.error); // (the core build's answer: UNSUPPORTED)
  if (r.__zarrWasmError) throw toZarrError(r);
  return r;
}

/** A slice for selections: slice(stop) or slice(start, stop, step). */
export function slice(start, stop, step) {
  if (arguments.length === 1) {
    stop = start;
    start = null;
  }
  return { start: num(start), stop: num(stop), step: num(step) };
}

function num(v) {
  if (v === undefined || v === null) return null;
  if (typeof v === "bigint") {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new ZarrError("SELECTION", `slice bound ${v} exceeds Number.MAX_SAFE_INTEGER in magnitude (not exact as a number)`);
    }
    return Number(v);
  }
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
 * Where a call is aimed: a store (with options.path), or a Location or node
 * (zarr.root(store).resolve("a/b"), group.resolve("c")), with options.path
 * relative to it.
 */
function target(where, path) {
  if (where instanceof Location || where instanceof ZarrNode) {
    const loc = where instanceof Location ? where : where.resolve(".");
    return { store: loc.store, path: normPath(loc.resolve(path ?? ".").path) };
  }
  checkStore(where);
  return { store: where, path: normPath(path) };
}

/**
 * The Zarr format each store's last opened node had: open asks for that
 * format's metadata first (zarr.WithFormatHint), as zarrita.js does, so
 * opening many nodes of one store costs one request each (v3) or two (v2).
 */
const storeFormats = new WeakMap();

/**
 * Opens an array or group.
 * @param {object} where a store, a Location (zarr.root(store).resolve(path)) or a node
 * @param {{path?: string, kind?: "array"|"group", dtype?: string, signal?: AbortSignal,
 *   cacheBytes?: number, recheck?: boolean | "open" | number}} [options]
 */
export async function open(where, options = {}) {
  if (typeof options === "string") options = { path: options };
  options = checkOptions("open", options);
  const { store, path } = target(where, options.path);
  const kind = options.kind ?? "";
  const cache = cacheOptions(options);
  const info = await withSignal(options.signal, (signal) => {
    const early = earlyReads(store, path, kind, signal, cache);
    const hint = storeFormats.get(store);
    return callBridge("open", store, path, kind, signal, hint ? { ...cache, formatHint: hint } : cache, early);
  });
  const n = node(info, store);
  if (typeof store === "object" && store !== null) storeFormats.set(store, n.zarrFormat === 3 ? 3 : 2);
  if (options.zarrFormat !== undefined && n.zarrFormat !== options.zarrFormat && !(options.zarrFormat === 2 && n.zarrFormat === 1)) {
    bridgeIfRunning()?.release(info.id);
    throw new ZarrError("NOT_FOUND", `${JSON.stringify(`/${path}`)}: is a Zarr v${n.zarrFormat} ${n.kind}, not v${options.zarrFormat}`, { where: `/${path}` });
  }
  // zarrita.js's attrs: false: a v1/v2 node without its .zattrs.
  if (options.attrs === false && n.zarrFormat !== 3) n._update({ attrs: {} });
  return checkDtype(n, options.dtype);
}

// Generated from zarr.OpenFirstReads (zarr/open.go) by internal/firstreads (make codes): do not edit.
/** The keys open() reads first under a node's path, by the kind asked for (the engine's list). */
const firstReads = Object.freeze({
  "": ["zarr.json", ".zarray", ".zgroup", ".zattrs"],
  "array": ["zarr.json", ".zarray", ".zattrs"],
  "group": ["zarr.json", ".zgroup", ".zattrs"],
});
// End of the generated first reads.

/**
 * The first open() of a program finds the engine not yet running: it
 * starts (download, compile, the Go runtime: 100+ ms in a browser) and only
 * then does Go's open ask the store for the node's metadata. earlyReads asks
 * now, so the answers come during the start: exactly the reads of the first
 * step of zarr/open.go (firstReads, under Go's normalised path), with
 * the options jsbridge/store.go would pass ({signal, versioned: true}). The
 * engine takes each answer once in place of calling get (store.go, early),
 * so the store sees the same requests and open the same results and errors.
 * None when the engine runs, for a store that lives in the engine (a zip, a
 * reference set), or where the engine fails before reading (a path with "."
 * or "..", a bad kind, an aborted signal; cache options, which it checks
 * first, are not checked twice here: no early reads with them).
 * Returns take(key), or undefined.
 */
function earlyReads(store, path, kind, signal, cache) {
  if (bridgeIfRunning() || store._zarrWasmHandle !== undefined || signal?.aborted || !Object.hasOwn(firstReads, kind) || Object.keys(cache).length) return undefined;
  const segs = path.replaceAll("\\", "/").split("/").filter(Boolean);
  if (segs.some((s) => s === "." || s === "..")) return undefined;
  const prefix = segs.map((s) => `/${s}`).join("");
  const answers = new Map();
  for (const name of firstReads[kind]) {
    const key = `${prefix}/${name}`;
    let p;
    try {
      p = Promise.resolve(store.get(key, signal ? { signal, versioned: true } : { versioned: true }));
    } catch (e) {
      p = Promise.reject(e); // (Go sees a thrown error as a rejected one)
    }
    p.catch(() => {}); // (a failure is Go's to report, or nobody's if open fails first)
    answers.set(key, p);
  }
  return (key) => {
    const p = answers.get(key);
    answers.delete(key);
    return p;
  };
}

/** n, after checking that an array's data type is `query` (open's dtype option). */
function checkDtype(n, query) {
  if (query === undefined || n.kind !== "array" || n.is(query)) return n;
  bridgeIfRunning()?.release(n._info.id);
  const got = typeof n.dtype === "string" ? n.dtype : n.dtype.name;
  throw new ZarrError("INVALID_METADATA", `${JSON.stringify(`/${n.path}`)}: data type is ${got}, not ${query}`, { where: `/${n.path}` });
}

/** open() of a Zarr v2 (or v1) node only, as zarrita's open.v2. */
open.v2 = async (where, options = {}) => open(where, { ...checkOptions("open.v2", typeof options === "string" ? { path: options } : options), zarrFormat: 2 });
/** open() of a Zarr v3 node only, as zarrita's open.v3. */
open.v3 = async (where, options = {}) => open(where, { ...checkOptions("open.v3", typeof options === "string" ? { path: options } : options), zarrFormat: 3 });

/**
 * Creates an array (and missing parent groups). Options: optionTable.create
 * (lib/options.js), with zarr-python 3's and zarrita.js's names beside the
 * package's own; the engine's zarr.ArrayOptions takes them.
 */
export async function create(where, options = {}) {
  const o = canonicalCreateOptions("create", options);
  // zarrita's create(location) and create(location, {attributes}) make a group.
  if (o.kind === "group" || (o.shape === undefined && o.dtype === undefined)) {
    for (const key of Object.keys(o)) {
      if (!Object.hasOwn(optionTable.createGroup, key)) {
        throw new ZarrError("INVALID_ARGUMENT", `create: ${JSON.stringify(key)} is an option of arrays; an array needs shape and dtype (without them create makes a group)`, { where: key });
      }
    }
    return createGroup(where, o);
  }
  const { store, path } = target(where, o.path);
  delete o.signal;
  o.path = path;
  if (o.shape === undefined) throw new ZarrError("INVALID_ARGUMENT", "create() needs a shape");
  if (o.dtype === undefined) throw new ZarrError("INVALID_ARGUMENT", "create() needs a dtype");
  o.shape = Array.from(o.shape, Number);
  if (o.chunks != null) o.chunks = Array.from(o.chunks, Number);
  if (o.shardShape != null) o.shardShape = Array.from(o.shardShape, Number);
  if ("fillValue" in o) {
    const f = o.fillValue;
    if (f === null) {
      o.noFill = true;
      delete o.fillValue;
    } else if (typeof f === "number" && !Number.isFinite(f)) {
      o.fillValue = Number.isNaN(f) ? "NaN" : f > 0 ? "Infinity" : "-Infinity";
    }
  }
  // zarrita's create writes codecs: [] for "no compression", which the v3
  // spec does not allow (one array→bytes codec is required): the bytes
  // codec alone is what it means.
  if (Array.isArray(o.codecs) && o.codecs.length === 0 && o.zarrFormat !== 2) {
    o.codecs = [{ name: "bytes", configuration: { endian: "little" } }];
  }
  if ("compressor" in o && o.compressor === null) {
    o.noCompressor = true;
    delete o.compressor;
  }
  const info = await callBridge("create", store, toJSONText(o));
  return node(info, store);
}

/** Creates a group (and missing parents). Options: path, attributes, zarrFormat, overwrite. */
export async function createGroup(where, options = {}) {
  const o = canonicalCreateOptions("createGroup", options);
  const { store, path } = target(where, o.path);
  o.path = path;
  delete o.kind;
  delete o.signal;
  const info = await callBridge("createGroup", store, toJSONText(o));
  return node(info, store);
}
