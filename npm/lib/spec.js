// TensorStore specs: zarr.openSpec opens or creates an array from a
// TensorStore JSON spec or URL, in the Go engine (zarr.OpenSpec). Its file
// kvstores become this package's FileSystemStore, its http, s3 and gcs ones
// FetchStores.
import { callBridge, isNode } from "./runtime.js";
import { ZarrError } from "./errors.js";
import { toJSONText } from "./json.js";
import { ZarrArray, withSignal } from "./core.js";
import { FetchStore } from "./stores.js";
import { GoStore } from "./gostore.js";
import { checkOptions } from "./options.js";

/**
 * Opens (or creates) the array a TensorStore spec describes.
 * @param {object | string} spec a TensorStore spec ({driver: "zarr2", kvstore, metadata, ...})
 *   or URL ("file:///data/a.zarr|zarr2:", "memory://|zarr2:x"); in JS `kvstore` may also be
 *   any store object (MemoryStore, FetchStore, ...), with the spec's `path` inside it
 * @param {{signal?: AbortSignal} & import("../index.js").FetchStoreOptions} [options] signal, and
 *   the FetchStore options of an s3 or gcs kvstore (credentials, region, endpoint, ...)
 * @returns {Promise<ZarrArray>}
 */
export async function openSpec(spec, options = {}) {
  options = checkOptions("openSpec", options);
  const kvOptions = storeOptions(options);
  let text;
  let store;
  if (typeof spec === "string") {
    text = spec;
  } else if (spec !== null && typeof spec === "object" && !Array.isArray(spec)) {
    let s = spec;
    const kv = spec.kvstore;
    if (kv !== null && typeof kv === "object" && typeof kv.get === "function") {
      // A store object: the engine uses it; the spec keeps only the path.
      store = kv;
      s = { ...spec, kvstore: { driver: "memory" } };
    }
    text = toJSONText(s);
  } else {
    throw new ZarrError("INVALID_METADATA", "a spec is a TensorStore JSON spec object or a TensorStore URL string");
  }
  const info = await withSignal(options.signal, (signal) => callBridge("openSpec", text, store, (kv) => openKvStore(kv, kvOptions), signal));
  return new ZarrArray(info, store ?? null);
}

/** openSpec's options for an s3 or gcs kvstore's FetchStore (credentials, region, ...). */
function storeOptions(options) {
  const o = { ...options };
  delete o.signal;
  return o;
}

/**
 * The store of a file, http, s3 or gcs kvstore ({driver, path, url,
 * headers, location, endpoint, region}); an s3 or gcs kvstore's FetchStore
 * takes openSpec's options (credentials, region, endpoint, ...), the
 * spec's endpoint and aws_region first.
 */
async function openKvStore(kv, options = {}) {
  if (kv.location) {
    const o = { ...options };
    if (kv.endpoint) o.endpoint = kv.endpoint;
    if (kv.region) o.region = kv.region;
    return new FetchStore(kv.location, o);
  }
  if (kv.driver === "http") {
    const headers = {};
    for (const line of kv.headers ?? []) {
      const i = line.indexOf(":");
      headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    return new FetchStore(kv.url, { headers });
  }
  if (kv.driver === "file") {
    if (!isNode) {
      throw new ZarrError("UNSUPPORTED", `"file" kvstore ${JSON.stringify(kv.path)}: browsers have no file system; give a store object (or an http kvstore) instead`);
    }
    const nodeEntry = new URL("../node.js", import.meta.url).href;
    const { FileSystemStore } = await import(/* @vite-ignore */ nodeEntry);
    return new FileSystemStore(kv.path);
  }
  throw new ZarrError("UNSUPPORTED", `kvstore driver ${JSON.stringify(kv.driver)} is not supported`);
}

/**
 * The store behind the "memory" kvstore: one per engine (a spec's kvstore
 * path is a key prefix in it). Read-only from JS (get, getRange, list).
 * @returns {Promise<GoStore>}
 */
export async function memoryKvStore() {
  return new GoStore(await callBridge("memoryKvStore"));
}
