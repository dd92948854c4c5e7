// ZipStore: a .zarr.zip held in any store, read by the Go engine through
// range requests (the zip's end records, its directory, then only the
// entries a read needs, neighbours merged into one request by the engine's
// coalescing policy).
import { callBridge } from "./runtime.js";
import { GoStore, checkKey } from "./gostore.js";
import { checkOptions } from "./options.js";

/**
 * A read-only store over a zip file (zarr-python's ZipStore layout, zipped
 * from within the hierarchy or from its parent directory). Hand it to
 * `zarr.open`; its get/getRange/list make it a plain store as well.
 */
export class ZipStore extends GoStore {
  /** @internal use ZipStore.open */
  constructor(id, key, source) {
    super(id);
    /** The zip file's key in the underlying store. */
    this.key = key;
    /** The store the zip file is read from. */
    this.source = source;
  }

  /** Requests the source store counts (a FetchStore's, a BlobStore's), if it counts them. */
  get requests() {
    return this.source?.requests;
  }

  /** Bytes the source store counts, if it counts them. */
  get bytes() {
    return this.source?.bytes;
  }

  /**
   * Opens the zip file stored at `key` ("/data.zarr.zip") in `store` (a
   * FetchStore, FileSystemStore, MemoryStore or any store object).
   * @param {object} store
   * @param {string} key
   * @param {{signal?: AbortSignal}} [options]
   */
  static async open(store, key, options = {}) {
    options = checkOptions("ZipStore.open", options);
    const k = checkKey(key);
    const info = await callBridge("zipOpen", store, k, options.signal);
    return new ZipStore(info.id, k, store);
  }

  toString() {
    return `<zarr-wasm ZipStore ${this.key}>`;
  }
}
