// The engine's decoded-chunk cache (Go's zarr.CachePool) seen from JS: the
// default pool's size, counters, and the requests the engine made of a store.
import { bridge } from "./runtime.js";
import { ZarrError, toZarrError } from "./errors.js";
import { executorStats } from "./read.js";

function checked(v) {
  if (v && typeof v === "object" && v.__zarrWasmError) throw toZarrError(v);
  return v;
}

function arrayId(arr) {
  if (arr === undefined || arr === null) return undefined;
  const id = arr._info?.id;
  if (typeof id !== "number" || arr.kind !== "array") throw new ZarrError("INVALID_ARGUMENT", "expected a ZarrArray");
  return id;
}

/**
 * Sets the size of the default cache pool, which arrays opened without a
 * `cacheBytes` option keep their decoded chunks in (0, the default: no
 * cache). Entries beyond a smaller size are dropped.
 * @param {number} bytes
 */
export async function setCacheBytes(bytes) {
  if (typeof bytes !== "number" || !(bytes >= 0)) throw new ZarrError("INVALID_ARGUMENT", `setCacheBytes: a number of bytes ≥ 0, got ${bytes}`);
  checked((await bridge()).setCacheBytes(bytes));
}

/**
 * Counters of a cache pool: the one `arr` uses, or the default pool:
 * {hits, revalidated, misses, evictions, entries, bytes, limit}.
 */
export async function cacheStats(arr) {
  return checked((await bridge()).cacheStats(arrayId(arr)));
}

/** Empties a cache pool: the one `arr` uses, or the default pool. */
export async function clearCache(arr) {
  checked((await bridge()).clearCache(arrayId(arr)));
}

/**
 * The requests the engine made of a JS store object since it was first
 * opened: {get, getRange, set, delete, list, notModified, bytes} (bytes
 * received), or null for a store the engine has not seen (or one that
 * lives in the engine: ZipStore, ReferenceStore).
 */
export async function storeStats(store) {
  const s = (await bridge()).storeStats(store);
  // (with the requests of the reads the executor ran: lib/read.js)
  const d = executorStats(store);
  return s && d ? { ...s, get: s.get + d.get, getRange: s.getRange + d.getRange, bytes: s.bytes + d.bytes } : s;
}

/** The cache options of open() for the bridge. */
export function cacheOptions(options) {
  const o = {};
  if (options?.cacheBytes !== undefined) o.cacheBytes = options.cacheBytes;
  if (options?.recheck !== undefined) o.recheck = options.recheck;
  return o;
}
