// zarrita.js's consolidated-metadata stores: a store whose metadata reads
// are answered from the hierarchy's consolidated document (v2 .zmetadata,
// v3 inline consolidated_metadata in the root zarr.json), so opening any
// node costs no request, and which lists the hierarchy (contents()).
import { callBridge } from "./runtime.js";
import { ZarrError } from "./errors.js";
import { checkOptions } from "./options.js";

const metadataNames = new Set([".zarray", ".zgroup", ".zattrs", "zarr.json"]);

function split(key) {
  const i = key.lastIndexOf("/");
  return { node: key.slice(0, i) || "/", name: key.slice(i + 1) };
}

/** The documents of one format, by absolute key; NOT_FOUND when the store has none. */
async function load(store, format, metadataKey, signal) {
  if (format !== "v2" && format !== "v3") {
    throw new ZarrError("INVALID_METADATA", `consolidated metadata format ${JSON.stringify(format)}: "v2" or "v3"`);
  }
  const key = format === "v3" ? "zarr.json" : String(metadataKey ?? ".zmetadata").replace(/^\/+/, "");
  const bytes = await store.get(`/${key}`, signal ? { signal } : undefined);
  if (bytes === undefined || bytes === null) {
    throw new ZarrError("NOT_FOUND", `"/${key}": no ${format} consolidated metadata`, { where: `/${key}` });
  }
  return callBridge("consolidatedDocs", key, bytes, format === "v3");
}

/**
 * A store in front of `store` that answers metadata reads from the
 * consolidated documents (a metadata key of a node they list that is not
 * among them is absent, with no request) and passes everything else on.
 */
class ConsolidatedStore {
  #store;
  #docs;
  #nodes;
  constructor(store, docs) {
    this.#store = store;
    this.#docs = new Map(Object.entries(docs));
    this.#nodes = new Map();
    for (const key of this.#docs.keys()) {
      const { node, name } = split(key);
      if (name === ".zarray") this.#nodes.set(node, "array");
      else if (name === ".zgroup" && !this.#nodes.has(node)) this.#nodes.set(node, "group");
      else if (name === "zarr.json") this.#nodes.set(node, nodeType(this.#docs.get(key)));
    }
    // Ranged reads only where the store has them (sharding checks for it).
    if (typeof store.getRange === "function") {
      this.getRange = (key, range, options) => store.getRange(key, range, options);
    }
  }
  get(key, options) {
    const doc = this.#docs.get(key);
    if (doc !== undefined) return doc.slice();
    const { node, name } = split(key);
    if (metadataNames.has(name) && this.#nodes.has(node)) return undefined;
    return this.#store.get(key, options);
  }
  /** Every node the consolidated metadata lists: [{path: "/a/b", kind: "array" | "group"}], sorted by path. */
  contents() {
    return [...this.#nodes].map(([path, kind]) => ({ path, kind })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

function nodeType(bytes) {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)).node_type === "array" ? "array" : "group";
  } catch {
    return "group";
  }
}

/**
 * As zarrita's withConsolidatedMetadata(store, {format, metadataKey}):
 * reads the consolidated metadata (format "v2", the default, "v3", or a
 * list tried in order) and returns a store that serves metadata from it and
 * lists the hierarchy with contents(). NOT_FOUND when there is none.
 */
export async function withConsolidatedMetadata(store, options = {}) {
  options = checkOptions("withConsolidatedMetadata", options);
  const formats = Array.isArray(options.format) ? options.format : [options.format ?? "v2"];
  let missing;
  for (const format of formats) {
    try {
      return new ConsolidatedStore(store, await load(store, format, options.metadataKey, options.signal));
    } catch (e) {
      if (!(e instanceof ZarrError && e.code === "NOT_FOUND")) throw e;
      missing = e;
    }
  }
  throw missing ?? new ZarrError("NOT_FOUND", "no consolidated metadata format asked for");
}

/** withConsolidatedMetadata, or `store` itself when it has no consolidated metadata. */
export async function withMaybeConsolidatedMetadata(store, options = {}) {
  options = checkOptions("withMaybeConsolidatedMetadata", options);
  try {
    return await withConsolidatedMetadata(store, options);
  } catch (e) {
    if (e instanceof ZarrError && e.code === "NOT_FOUND") return store;
    throw e;
  }
}
