// ZipStore: a .zarr.zip held in any store, read by the Go engine through
// range requests (the zip's end records, its directory, then only the
// entries a read needs).

import { callBridge, bridgeIfRunning } from "./runtime.js";
import { ZarrError } from "./errors.js";

const registry = typeof FinalizationRegistry === "function"
  ? new FinalizationRegistry((id) => bridgeIfRunning()?.release(id))
  : null;

function checkKey(key) {
  const k = String(key);
  if (!k.startsWith("/")) throw new ZarrError("STORE", `store keys are absolute paths starting with "/", got ${JSON.stringify(k)}`);
  return k;
}

/**
 * A read-only store over a zip file (zarr-python's ZipStore layout, zipped
 * from within the hierarchy or from its parent directory). Hand it to
 * `zarr.open`; its get/getRange/list make it a plain store as well.
 */
export class ZipStore {
  #id;
  /** @internal use ZipStore.open */
  constructor(id, key) {
    this.#id = id;
    /** The zip file's key in the underlying store. */
    this.key = key;
    Object.defineProperty(this, "_zarrWasmHandle", { value: id, enumerable: false });
    registry?.register(this, id);
  }

  /**
   * Opens the zip file stored at `key` ("/data.zarr.zip") in `store` (a
   * FetchStore, FileSystemStore, MemoryStore or any store object).
   * @param {object} store
   * @param {string} key
   * @param {{signal?: AbortSignal}} [options]
   */
  static async open(store, key, options = {}) {
    const k = checkKey(key);
    const info = await callBridge("zipOpen", store, k, options.signal);
    return new ZipStore(info.id, k);
  }

  get(key, opts = {}) {
    return callBridge("storeGet", this.#id, checkKey(key), opts?.signal);
  }

  /** @param {{offset: number, length?: number} | {suffixLength: number}} range */
  getRange(key, range, opts = {}) {
    const r = {};
    if (range?.suffixLength !== undefined) r.suffixLength = Number(range.suffixLength);
    else {
      r.offset = Number(range?.offset ?? 0);
      if (range?.length !== undefined) r.length = Number(range.length);
    }
    return callBridge("storeGetRange", this.#id, checkKey(key), r, opts?.signal);
  }

  /** Names directly under prefix (sub-prefixes end in "/"). */
  list(prefix = "/") {
    return callBridge("storeList", this.#id, checkKey(prefix));
  }

  toString() {
    return `<zarr-wasm ZipStore ${this.key}>`;
  }
}
