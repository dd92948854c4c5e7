// A bounded cache of store reads, put in front of the stores that live in
// JavaScript (FetchStore, FileListStore): panning back or reading a shard
// index again does not refetch. Stores that live in the Go engine (zip
// files, reference sets) are handed to the engine as they are, so their
// reads never cross into JavaScript.
//
// This stands in until the engine's own decoded-chunk cache (cacheBytes on
// open) is there; then withByteCache becomes the identity.
import * as zarr from "zarr-wasm";

/** store, or a caching wrapper of it when its reads happen in JavaScript anyway. */
export function withByteCache(store, cacheBytes = 96 << 20) {
  if (store instanceof zarr.ZipStore || store instanceof zarr.ReferenceStore) return store;
  return new ByteCache(store, cacheBytes);
}

class ByteCache {
  constructor(inner, cacheBytes) {
    this.inner = inner;
    this.cacheBytes = cacheBytes;
    this.cached = 0;
    /** @type {Map<string, Uint8Array | null>} LRU: insertion order, refreshed on use */
    this.cache = new Map();
    // list() only if the inner store has it (the engine asks by its presence).
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
    const v = await fn();
    this.#remember(k, v ?? null);
    return v;
  }

  get(key, opts = {}) {
    return this.#through(key, () => this.inner.get(key, opts));
  }

  getRange(key, range, opts = {}) {
    const r = range.suffixLength !== undefined ? `-${range.suffixLength}` : `${range.offset ?? 0}+${range.length ?? ""}`;
    return this.#through(`${key}@${r}`, () => this.inner.getRange(key, range, opts));
  }
}
