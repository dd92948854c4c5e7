// IcechunkStore: one snapshot of an Icechunk repository (a branch's head, a
// tag, a snapshot id) as a read-only store, read by the Go engine
// (zarr/icechunk): the repository's files come through any store (a
// FetchStore for a URL), virtual chunks through fetch from the prefixes
// the caller allows. No threads, no shared memory: no cross-origin
// isolation needed.
import { checkOptions } from "./options.js";
import { callBridge, callIcechunk } from "./runtime.js";
import { GoStore } from "./gostore.js";
import { ZarrError } from "./errors.js";
import { FetchStore, HTTPReader } from "./stores.js";
import { makeRead } from "./refs.js";

function options(o) {
  return checkOptions("IcechunkStore.open", o);
}

/** The store the repository's files are read through. */
function sourceStore(location, opt) {
  if (typeof location === "string" || location instanceof URL) {
    const { branch, tag, snapshot, virtualChunks, manifestCacheBytes, signal, ...fetchOptions } = opt;
    return new FetchStore(location, fetchOptions);
  }
  if (location && typeof location === "object" && typeof location.get === "function") return location;
  throw new ZarrError("STORE", "IcechunkStore.open takes the repository's URL or a store holding its files");
}

/** The engine's options: the version and the allowed virtual chunk prefixes. */
function goOptions(opt) {
  const o = {};
  for (const k of ["branch", "tag", "snapshot"]) {
    if (opt[k] !== undefined && opt[k] !== null) o[k] = String(opt[k]);
  }
  const vc = opt.virtualChunks;
  if (vc !== undefined && vc !== null) {
    if (typeof vc !== "object") throw new ZarrError("INVALID_ARGUMENT", "IcechunkStore.open: option \"virtualChunks\" maps location prefixes to replacement prefixes or to true");
    o.virtualChunks = {};
    for (const [k, v] of vc instanceof Map ? vc : Object.entries(vc)) {
      if (v !== true && v !== false && typeof v !== "string" && !(v instanceof URL)) {
        throw new ZarrError("INVALID_ARGUMENT", `IcechunkStore.open: virtualChunks[${JSON.stringify(k)}] is ${typeof v}: a replacement prefix or true`);
      }
      o.virtualChunks[String(k)] = v instanceof URL ? v.href : v;
    }
  }
  if (opt.manifestCacheBytes !== undefined) o.manifestCacheBytes = Number(opt.manifestCacheBytes);
  return o;
}

/**
 * A snapshot of an Icechunk repository as a read-only store: hand it to
 * `zarr.open` (the engine reads the Go store behind it directly; an array
 * or group opened keeps reading the snapshot it was opened at, even after
 * `refresh`); its get/getRange/list make it a plain store as well.
 */
export class IcechunkStore extends GoStore {
  #info;
  #reader;
  /** @internal use IcechunkStore.open */
  constructor(info, source, reader) {
    super(info.id);
    this.#info = info;
    this.#reader = reader;
    /** The store the repository's files are read from. */
    this.source = source;
  }

  /**
   * Opens a repository at a version: `{branch}` (default "main"), `{tag}`
   * or `{snapshot}` (an id). `location` is the repository's URL (read
   * with a FetchStore, to which the other options go) or a store holding
   * its files (FileSystemStore, MemoryStore, any store object).
   * `virtualChunks` allows virtual chunks' locations: a prefix maps to a
   * replacement prefix (fetched instead) or to `true` (fetched as is);
   * nothing else outside the repository is ever fetched.
   * @param {string | URL | object} location
   * @param {import("../index.d.ts").IcechunkOptions} [opts]
   */
  static async open(location, opts) {
    const opt = options(opts);
    const source = sourceStore(location, opt);
    const reader = new HTTPReader({ ...opt, strict: true, noStoreRanges: true });
    const info = await callIcechunk("icOpen", source, goOptions(opt), makeRead(reader, opt, true), opt.signal);
    return new IcechunkStore(info, source, reader);
  }

  /** The id of the snapshot this store reads now. */
  get snapshotId() {
    return this.#info.snapshotId;
  }

  /** The repository's Icechunk spec version (1 or 2). */
  get specVersion() {
    return this.#info.specVersion;
  }

  /** Requests the source store counts (a FetchStore's), if it counts them, and those for virtual chunks. */
  get requests() {
    const r = this.source?.requests;
    return typeof r === "number" ? r + this.#reader.requests : r;
  }

  /** Bytes the source store counts, if it counts them, and those of virtual chunks. */
  get bytes() {
    const b = this.source?.bytes;
    return typeof b === "number" ? b + this.#reader.bytes : b;
  }

  /** The repository's branches now: [{name, snapshot}], sorted by name. */
  branches(opts = {}) {
    return callBridge("icRefs", this._id, "branches", opts?.signal);
  }

  /** The repository's tags now: [{name, snapshot}], sorted by name. */
  tags(opts = {}) {
    return callBridge("icRefs", this._id, "tags", opts?.signal);
  }

  /** This snapshot and its ancestors, newest first: [{id, parent, message, time}]. */
  async ancestry(opts = {}) {
    const list = await callBridge("icAncestry", this._id, opts?.signal);
    return list.map((a) => ({ id: a.id, parent: a.parent ?? null, message: a.message, time: new Date(a.time) }));
  }

  /**
   * Opens the store's version again: a branch's head as it is now (a tag
   * or a snapshot id stays where it is). Arrays and groups opened before
   * keep reading their snapshot; reads through this store and what is
   * opened from it later see the new one. Resolves to this store.
   */
  async refresh(opts = {}) {
    this.#info = { ...this.#info, ...(await callBridge("icRefresh", this._id, opts?.signal)) };
    return this;
  }

  toString() {
    return `<zarr-wasm IcechunkStore ${this.#info.snapshotId}>`;
  }
}
