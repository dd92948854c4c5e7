// Shared by the generator and the oracle: the official package loaded (its
// WASI build when NAPI_RS_FORCE_WASI=1), a repository over a directory,
// and a zarrita store over an Icechunk session's store.
import { Repository, Storage } from "@earthmover/icechunk";
import { fileBackend } from "./fsbackend.mjs";

export { Repository, Storage };

/** The official package's Storage over the directory dir. */
export function dirStorage(dir, opts) {
  return Storage.newCustom(fileBackend(dir, opts));
}

/**
 * A zarrita store over a session's store: keys without the leading "/",
 * absent keys undefined, values copied before set (the WASI build keeps a
 * buffer handed out by an earlier get otherwise).
 */
export function zarritaStore(st) {
  const strip = (k) => (k.startsWith("/") ? k.slice(1) : k);
  return {
    async get(key) {
      const v = await st.get(strip(key));
      return v === null || v === undefined ? undefined : new Uint8Array(v);
    },
    async getRange(key, range) {
      const v = await st.getRange(strip(key), range);
      return v === null || v === undefined ? undefined : new Uint8Array(v);
    },
    async set(key, value) {
      await st.set(strip(key), Buffer.from(Uint8Array.prototype.slice.call(value)));
    },
  };
}
