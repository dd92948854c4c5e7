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

/** A byte source for ZipStore: a File/Blob. */
export function blobSource(blob) {
  return {
    name: blob.name ?? "zip",
    read: (range) => readBlobRange(blob, range, blob.name ?? "zip"),
  };
}

/** A byte source for ZipStore: one key of another store (e.g. a FetchStore). */
export function storeSource(store, key) {
  return {
    name: key,
    async read(range, signal) {
      const b = await store.getRange(key, range, { signal });
      if (b === undefined) {
        const e = new Error(`${key}: not found`);
        e.code = "NOT_FOUND";
        throw e;
      }
      return b;
    },
    async readAll(signal) {
      const b = await store.get(key, { signal });
      if (b === undefined) {
        const e = new Error(`${key}: not found`);
        e.code = "NOT_FOUND";
        throw e;
      }
      return b;
    },
  };
}

const u16 = (b, o) => b[o] | (b[o + 1] << 8);
const u32 = (b, o) => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
const u64 = (b, o) => u32(b, o) + u32(b, o + 4) * 2 ** 32;

class ZipFormatError extends Error {
  constructor(msg) {
    super(msg);
    this.name = "ZipFormatError";
  }
}

/**
 * A read-only store over a zip archive, reading only the central directory
 * and the entries asked for (stored entries through byte ranges; deflated
 * ones whole, inflated with the browser's DecompressionStream). Zip64 is
 * understood. A hierarchy inside a top folder ("data.zarr/...") is found.
 */
export class ZipStore {
  static async open(source, { signal } = {}) {
    const z = new ZipStore(source);
    await z.#readDirectory(signal);
    return z;
  }

  constructor(source) {
    this.source = source;
    /** @type {Map<string, {name: string, method: number, csize: number, usize: number, local: number, data?: number}>} */
    this.entries = new Map();
    this.root = "";
  }

  async #tail(signal) {
    const want = 65536 + 22;
    try {
      return await this.source.read({ suffixLength: want }, signal);
    } catch (e) {
      // Smaller than 64 KiB and a server that ignored the range: read it all.
      if (this.source.readAll && (e instanceof RangeError || e?.name === "RangeMismatchError")) {
        return this.source.readAll(signal);
      }
      throw e;
    }
  }

  async #readDirectory(signal) {
    const tail = await this.#tail(signal);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (u32(tail, i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new ZipFormatError(`${this.source.name} is not a zip file (no end-of-central-directory record)`);
    let count = u16(tail, eocd + 10);
    let cdSize = u32(tail, eocd + 12);
    let cdOffset = u32(tail, eocd + 16);
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      const loc = eocd - 20;
      if (loc < 0 || u32(tail, loc) !== 0x07064b50) throw new ZipFormatError(`${this.source.name}: Zip64 locator missing`);
      const rec = await this.source.read({ offset: u64(tail, loc + 8), length: 56 }, signal);
      if (u32(rec, 0) !== 0x06064b50) throw new ZipFormatError(`${this.source.name}: bad Zip64 end record`);
      count = u64(rec, 32);
      cdSize = u64(rec, 40);
      cdOffset = u64(rec, 48);
    }
    this.cdOffset = cdOffset;
    const cd = cdSize === 0 ? new Uint8Array(0) : await this.source.read({ offset: cdOffset, length: cdSize }, signal);
    const dec = new TextDecoder();
    const all = [];
    let p = 0;
    for (let k = 0; k < count; k++) {
      if (p + 46 > cd.length || u32(cd, p) !== 0x02014b50) throw new ZipFormatError(`${this.source.name}: central directory entry ${k} is damaged`);
      const method = u16(cd, p + 10);
      let csize = u32(cd, p + 20);
      let usize = u32(cd, p + 24);
      const nlen = u16(cd, p + 28);
      const xlen = u16(cd, p + 30);
      const clen = u16(cd, p + 32);
      let local = u32(cd, p + 42);
      const name = dec.decode(cd.subarray(p + 46, p + 46 + nlen));
      // Zip64 extra field: the 0xFFFFFFFF fields, in order.
      let x = p + 46 + nlen;
      const xend = x + xlen;
      while (x + 4 <= xend) {
        const id = u16(cd, x);
        const size = u16(cd, x + 2);
        if (id === 1) {
          let q = x + 4;
          if (usize === 0xffffffff) (usize = u64(cd, q)), (q += 8);
          if (csize === 0xffffffff) (csize = u64(cd, q)), (q += 8);
          if (local === 0xffffffff) local = u64(cd, q);
        }
        x += 4 + size;
      }
      p = xend + clen;
      if (!name.endsWith("/")) all.push({ name, method, csize, usize, local, xlen, nlen });
    }
    this.root = findRoot(all.map((e) => e.name));
    for (const e of all) {
      if (e.name.startsWith(this.root)) this.entries.set("/" + e.name.slice(this.root.length), e);
    }
  }

  async #dataOffset(e, signal, withData) {
    if (e.data !== undefined && !withData) return { offset: e.data };
    // The local header's name and extra lengths can differ from the central
    // directory's; read the header (and, for small entries, the data with it).
    const guess = 30 + e.nlen + e.xlen + 64;
    const small = withData && e.csize <= 1 << 20;
    const end = Math.min(e.local + guess + (small ? e.csize : 0), this.cdOffset);
    const buf = await this.source.read({ offset: e.local, length: end - e.local }, signal);
    if (u32(buf, 0) !== 0x04034b50) throw new ZipFormatError(`${this.source.name}: bad local header for ${e.name}`);
    const start = 30 + u16(buf, 26) + u16(buf, 28);
    e.data = e.local + start;
    if (small && start + e.csize <= buf.length) return { offset: e.data, bytes: buf.subarray(start, start + e.csize) };
    return { offset: e.data };
  }

  async #raw(e, signal) {
    const d = await this.#dataOffset(e, signal, true);
    if (d.bytes) return d.bytes;
    return e.csize === 0 ? new Uint8Array(0) : this.source.read({ offset: d.offset, length: e.csize }, signal);
  }

  async #whole(e, signal) {
    const raw = await this.#raw(e, signal);
    if (e.method === 0) return raw;
    if (e.method === 8) {
      if (typeof DecompressionStream !== "function") throw new ZipFormatError("this browser cannot inflate zip entries (no DecompressionStream)");
      const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    }
    throw new ZipFormatError(`${e.name} uses zip compression method ${e.method}; only stored (0) and deflate (8) entries can be read`);
  }

  async get(key, opts = {}) {
    const e = this.entries.get(key);
    if (!e) return undefined;
    return this.#whole(e, opts.signal);
  }

  async getRange(key, range, opts = {}) {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const n = e.usize;
    let start;
    let len;
    if (range.suffixLength !== undefined) {
      len = Math.min(n, Number(range.suffixLength));
      start = n - len;
    } else {
      start = Number(range.offset ?? 0);
      len = range.length === undefined ? n - start : Number(range.length);
    }
    if (start < 0 || len < 0 || start + len > n) throw new RangeError(`${key}: bytes ${start}-${start + len - 1} of a ${n}-byte entry`);
    if (e.method !== 0) return (await this.#whole(e, opts.signal)).slice(start, start + len);
    if (len === 0) return new Uint8Array(0);
    const { offset } = await this.#dataOffset(e, opts.signal, false);
    return this.source.read({ offset: offset + start, length: len }, opts.signal);
  }

  list(prefix = "/") {
    return listKeys(this.entries.keys(), prefix);
  }
}

// ------------------------------------------------------------- counting

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
