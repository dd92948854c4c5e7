// Stores over files the user picked or dropped in a browser (nothing is
// uploaded): a folder as File objects, and one Blob (a zip to hand to
// ZipStore.open). Both count their reads like FetchStore counts requests.
import { checkOptions } from "./options.js";

/** Zarr metadata documents: a directory holding one is a node of a hierarchy. */
const metaNames = ["zarr.json", ".zgroup", ".zarray", "meta"];

/**
 * The names directly under prefix among absolute keys ("/a/b/c" under "/a/"
 * is "b/"; sub-prefixes end in "/"), sorted: what list(prefix) answers.
 * @param {Iterable<string>} keys
 * @param {string} prefix
 */
export function listNames(keys, prefix) {
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
 * The directory (relative path, "" or ending in "/") a hierarchy starts at
 * among relative file paths: the top if it has Zarr metadata, else the
 * shallowest directory that has some (a folder that wraps "data.zarr/").
 */
function findRoot(paths) {
  const dirs = new Set();
  for (const p of paths) {
    const i = p.lastIndexOf("/");
    if (metaNames.includes(p.slice(i + 1))) dirs.add(p.slice(0, i + 1));
  }
  if (dirs.has("")) return "";
  let best = null;
  const depth = (d) => d.split("/").length;
  for (const d of dirs) {
    if (best === null || depth(d) < depth(best) || (depth(d) === depth(best) && d < best)) best = d;
  }
  return best ?? "";
}

function abortError() {
  return new DOMException("The operation was aborted", "AbortError");
}

async function readBlob(blob, range, what) {
  const n = blob.size;
  let start = 0;
  let end = n;
  if (range) {
    if (range.suffixLength !== undefined) {
      start = Math.max(0, n - Number(range.suffixLength));
    } else {
      start = Number(range.offset ?? 0);
      if (range.length !== undefined) end = start + Number(range.length);
    }
  }
  if (!(start >= 0) || end > n || end < start) throw new RangeError(`${what}: bytes ${start}-${end - 1} of a ${n}-byte file`);
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

/** Read counting shared by the file stores. */
class Counted {
  /** Reads answered with bytes (absent keys do not count), and their bytes. */
  requests = 0;
  bytes = 0;

  async _read(blob, range, what, signal) {
    if (signal?.aborted) throw signal.reason ?? abortError();
    this.requests++;
    const out = await readBlob(blob, range, what);
    this.bytes += out.length;
    return out;
  }
}

/**
 * A read-only store over File objects: a folder picked with
 * `<input type=file webkitdirectory>` or dropped on a page. Keys are the
 * files' paths below the folder; when the folder only wraps the hierarchy
 * ("photos/data.zarr/…"), keys start at the hierarchy's top.
 */
export class FileListStore extends Counted {
  /**
   * @param {Iterable<File>} files
   * @param {{pathOf?: (f: File) => string}} [options] a file's path below the
   *   folder (default: webkitRelativePath, else its name)
   */
  constructor(files, options = {}) {
    options = checkOptions("FileListStore", options);
    super();
    const pathOf = options.pathOf ?? ((f) => f.webkitRelativePath || f.name);
    const rel = [];
    for (const f of files) rel.push([String(pathOf(f)).replace(/^\/+/, ""), f]);
    // Drop the picked folder's own name ("data.zarr/x/.zarray" → "x/.zarray").
    const tops = new Set(rel.map(([p]) => p.split("/")[0]));
    const strip = tops.size === 1 && rel.every(([p]) => p.includes("/"));
    const entries = rel.map(([p, f]) => [strip ? p.slice(p.indexOf("/") + 1) : p, f]);
    /** The picked folder's name ("" when the files had no common folder). */
    this.folder = strip ? [...tops][0] : "";
    /** Where the hierarchy starts below the folder ("" or "dir/"). */
    this.root = findRoot(entries.map(([p]) => p));
    /** @type {Map<string, File>} */
    this.files = new Map();
    for (const [p, f] of entries) {
      if (p.startsWith(this.root)) this.files.set("/" + p.slice(this.root.length), f);
    }
    /** "folder/root" for people. */
    this.label = [this.folder, this.root.replace(/\/$/, "")].filter(Boolean).join("/");
  }
  async get(key, opts = {}) {
    const f = this.files.get(key);
    return f ? this._read(f, null, key, opts.signal) : undefined;
  }
  async getRange(key, range, opts = {}) {
    const f = this.files.get(key);
    return f ? this._read(f, range, key, opts.signal) : undefined;
  }
  list(prefix = "/") {
    return listNames(this.files.keys(), prefix);
  }
}

/**
 * A store holding one Blob (a picked or dropped File) under one key,
 * "/<file name>" by default: `ZipStore.open(s, s.key)` reads a zip from it
 * by ranges, without reading the whole file.
 */
export class BlobStore extends Counted {
  /** @param {Blob} blob @param {string} [key] */
  constructor(blob, key) {
    super();
    this.blob = blob;
    this.key = key ?? "/" + (blob.name || "blob");
  }
  async get(key, opts = {}) {
    return key === this.key ? this._read(this.blob, null, key, opts.signal) : undefined;
  }
  async getRange(key, range, opts = {}) {
    return key === this.key ? this._read(this.blob, range, key, opts.signal) : undefined;
  }
}
