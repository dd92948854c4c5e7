// Stores the viewer adds around the zarr-wasm package's own (FetchStore):
// a store over files picked from a local folder, a read-only zip store that
// reads entries through byte ranges (over HTTP or a picked File), and a
// wrapper that counts requests and bytes and keeps recent results in a
// bounded cache. Every store follows the package's contract: absolute keys,
// get(key, {signal}) → Uint8Array | undefined, getRange(key, range, {signal}),
// list(prefix) → names directly under prefix (sub-prefixes end in "/").

const metaNames = ["zarr.json", ".zgroup", ".zarray", ".zattrs", "meta"];

/** Names directly under prefix from a set of absolute keys. */
function listKeys(keys, prefix) {
  if (!prefix.endsWith("/")) prefix += "/";
  const out = new Set();
  for (const k of keys) {
    if (!k.startsWith(prefix)) continue;
    const rest = k.slice(prefix.length);
    const i = rest.indexOf("/");
    if (i >= 0) out.add(rest.slice(0, i + 1));
    else if (rest) out.add(rest);
  }
  return [...out].sort();
}

/**
 * The directory (relative path, "" or ending in "/") the hierarchy starts
 * at: the root if it has Zarr metadata, else the shallowest directory that
 * has some (a folder or zip that wraps "data.zarr/").
 */
function findRoot(paths) {
  const dirs = new Map(); // dir → has metadata
  for (const p of paths) {
    const i = p.lastIndexOf("/");
    const dir = p.slice(0, i + 1);
    const name = p.slice(i + 1);
    if (metaNames.includes(name) && name !== ".zattrs") dirs.set(dir, true);
  }
  if (dirs.has("")) return "";
  let best = null;
  for (const d of dirs.keys()) {
    const depth = d.split("/").length;
    if (best === null || depth < best.split("/").length || (depth === best.split("/").length && d < best)) best = d;
  }
  return best ?? "";
}

function abortError() {
  return new DOMException("The operation was aborted", "AbortError");
}

// ---------------------------------------------------------------- files

/**
 * A read-only store over File objects picked with
 * <input type=file webkitdirectory> (or dropped): keys are the files' paths
 * below the picked folder.
 */
export class FileTreeStore {
  /** @param {Iterable<File>} files  @param {(f: File) => string} [pathOf] */
  constructor(files, pathOf = (f) => f.webkitRelativePath || f.name) {
    const rel = [];
    for (const f of files) rel.push([pathOf(f).replace(/^\/+/, ""), f]);
    // Drop the picked folder's own name ("data.zarr/x/.zarray" → "x/.zarray").
    const tops = new Set(rel.map(([p]) => p.split("/")[0]));
    const strip = tops.size === 1 && rel.every(([p]) => p.includes("/"));
    const entries = rel.map(([p, f]) => [strip ? p.slice(p.indexOf("/") + 1) : p, f]);
    this.folder = strip ? [...tops][0] : "";
    this.root = findRoot(entries.map(([p]) => p));
    /** @type {Map<string, File>} */
    this.files = new Map();
    for (const [p, f] of entries) {
      if (p.startsWith(this.root)) this.files.set("/" + p.slice(this.root.length), f);
    }
    this.label = [this.folder, this.root.replace(/\/$/, "")].filter(Boolean).join("/");
  }
  async get(key, opts = {}) {
    const f = this.files.get(key);
    if (!f) return undefined;
    if (opts.signal?.aborted) throw abortError();
    return new Uint8Array(await f.arrayBuffer());
  }
  async getRange(key, range, opts = {}) {
    const f = this.files.get(key);
    if (!f) return undefined;
    if (opts.signal?.aborted) throw abortError();
    return readBlobRange(f, range, key);
  }
  list(prefix = "/") {
    return listKeys(this.files.keys(), prefix);
  }
}

async function readBlobRange(blob, range, what) {
  const n = blob.size;
  let start;
  let end;
  if (range.suffixLength !== undefined) {
    start = Math.max(0, n - Number(range.suffixLength));
    end = n;
  } else {
    start = Number(range.offset ?? 0);
    end = range.length === undefined ? n : start + Number(range.length);
  }
  if (start < 0 || end > n || end < start) throw new RangeError(`${what}: bytes ${start}-${end - 1} of a ${n}-byte file`);
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

// ------------------------------------------------------------------ zip

/**
 * A store holding one picked file under "/<name>", for zarr.ZipStore.open:
 * the engine reads the zip's directory and entries from it by ranges.
 */
export class BlobStore {
  constructor(blob) {
    this.blob = blob;
    this.key = "/" + (blob.name || "archive.zip");
  }
  async get(key) {
    if (key !== this.key) return undefined;
    return new Uint8Array(await this.blob.arrayBuffer());
  }
  async getRange(key, range) {
    if (key !== this.key) return undefined;
    return readBlobRange(this.blob, range, this.key);
  }
}

/**
 * Wraps a store: counts requests and bytes, reports requests in flight, and
 * keeps recent results (up to cacheBytes) so that panning back or reading
 * a shard index again does not refetch. list() exists only if the inner
 * store has it (the engine asks for it by its presence).
 */
export class InstrumentedStore {
  constructor(inner, { cacheBytes = 96 << 20, onActivity } = {}) {
    this.inner = inner;
    this.cacheBytes = cacheBytes;
    this.cached = 0;
    /** @type {Map<string, Uint8Array | null>} */
    this.cache = new Map();
    this.requests = 0;
    this.bytes = 0;
    this.inFlight = 0;
    this.onActivity = onActivity ?? (() => {});
    if (typeof inner.list === "function") this.list = (prefix) => inner.list(prefix);
  }

  #remember(k, v) {
    const size = v ? v.length : 0;
    if (size > this.cacheBytes / 8) return;
    this.cache.set(k, v);
    this.cached += size;
    for (const [old, ov] of this.cache) {
      if (this.cached <= this.cacheBytes) break;
      this.cache.delete(old);
      this.cached -= ov ? ov.length : 0;
    }
  }

  async #through(k, fn) {
    if (this.cache.has(k)) {
      const v = this.cache.get(k);
      this.cache.delete(k);
      this.cache.set(k, v);
      return v ?? undefined;
    }
    this.requests++;
    this.inFlight++;
    this.onActivity(this);
    try {
      const v = await fn();
      if (v) this.bytes += v.length;
      this.#remember(k, v ?? null);
      return v;
    } finally {
      this.inFlight--;
      this.onActivity(this);
    }
  }

  get(key, opts = {}) {
    return this.#through(key, () => this.inner.get(key, opts));
  }

  getRange(key, range, opts = {}) {
    const r = range.suffixLength !== undefined ? `-${range.suffixLength}` : `${range.offset ?? 0}+${range.length ?? ""}`;
    if (typeof this.inner.getRange !== "function") {
      return this.get(key, opts).then((b) => {
        if (b === undefined) return undefined;
        if (range.suffixLength !== undefined) return b.subarray(Math.max(0, b.length - range.suffixLength));
        const o = Number(range.offset ?? 0);
        return b.subarray(o, range.length === undefined ? b.length : o + Number(range.length));
      });
    }
    return this.#through(`${key}@${r}`, () => this.inner.getRange(key, range, opts));
  }
}
