// zarr.open and zarr.create given a location string ("s3://bucket/x.zarr",
// "gs://…", "https://…", a .zip or a reference set's URL): the store
// storeFromUrl makes for it, with the FetchStore options among the call's
// options (credentials, region, endpoint, ...). zarr.open also takes a URL
// pipeline ("https://host/data.zip|zip:path/in/zip|zarr3:group/array", as
// TensorStore and neuroglancer do; see locate in sources.js).
import { open as openIn, create as createIn } from "./core.js";
import { locate, storeFromUrl } from "./sources.js";
import { checkOptions, optionTable } from "./options.js";

/** Splits options into FetchStore's (they go to the store, with the signal) and the rest (open's or create's). */
function split(options) {
  const store = {};
  const rest = {};
  for (const [k, v] of Object.entries(options)) (Object.hasOwn(optionTable.FetchStore, k) ? store : rest)[k] = v;
  if (options.signal !== undefined) store.signal = options.signal;
  return [store, rest];
}

function isLocation(where) {
  return typeof where === "string" || where instanceof URL;
}

/**
 * Opens an array or group: in a store (a Location or node), or at a
 * location string or URL pipeline (see storeFromUrl and locate; FetchStore
 * options among `options`). options.path continues the pipeline's node
 * path; its zarr2:/zarr3: is options.zarrFormat unless one is given.
 */
export async function open(where, options = {}) {
  if (typeof options === "string") options = { path: options };
  if (!isLocation(where)) return openIn(where, options);
  const [s, rest] = split(checkOptions("open(location)", options));
  const { store, path, zarrFormat } = await locate(where, s);
  const inner = [path, rest.path ?? ""].map((p) => p.replace(/^\/+|\/+$/g, "")).filter(Boolean).join("/");
  return openIn(store, { ...rest, path: inner, zarrFormat: rest.zarrFormat ?? zarrFormat });
}
/** open() of a Zarr v2 (or v1) node only, as zarrita's open.v2. */
open.v2 = async (where, options = {}) => open(where, { ...formatOptions("open.v2", where, options), zarrFormat: 2 });
/** open() of a Zarr v3 node only, as zarrita's open.v3. */
open.v3 = async (where, options = {}) => open(where, { ...formatOptions("open.v3", where, options), zarrFormat: 3 });

function formatOptions(call, where, options) {
  const o = typeof options === "string" ? { path: options } : options;
  return checkOptions(isLocation(where) ? "open(location)" : call, o);
}

/** Creates an array or group: in a store, or at a location string (writable: give credentials, or writable: true). */
export async function create(where, options = {}) {
  if (!isLocation(where)) return createIn(where, options);
  const [s, rest] = split(checkOptions("create(location)", options));
  return createIn(await storeFromUrl(where, s), rest);
}
