// GoStore: a store that lives in the Go engine (a reference set, a zip),
// seen from JS through a bridge handle. zarr.open hands the Go store to the
// engine directly; get/getRange/list make it a plain store for other code.
import { callBridge, bridgeIfRunning } from "./runtime.js";

const registry =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((id) => bridgeIfRunning()?.release(id))
    : null;

export function checkKey(key) {
  if (typeof key !== "string" || !key.startsWith("/")) {
    throw new TypeError(`store keys are absolute paths starting with "/", got ${JSON.stringify(key)}`);
  }
  return key;
}

export class GoStore {
  #id;
  /** @internal */
  constructor(id) {
    this.#id = id;
    // The engine recognises the store by this handle.
    Object.defineProperty(this, "_zarrWasmHandle", { value: id, enumerable: false });
    registry?.register(this, id);
  }

  /** @internal the bridge handle */
  get _id() {
    return this.#id;
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
}
