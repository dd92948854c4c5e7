// zarr.open and zarr.create given a location string ("s3://bucket/x.zarr",
// "gs://…", "https://…", a .zip or a reference set's URL): the store
// storeFromUrl makes for it, with the FetchStore options among the call's
// options (credentials, region, endpoint, ...). zarr.open also takes a URL
// pipeline ("https://host/data.zip|zip:path/in/zip|zarr3:group/array", as
// TensorStore and neuroglancer do; see locate in sources.js).
import { open as openIn, create as createIn } from "./core.js";
import { locate, storeFromUrl } from "./sources.js";

/** FetchStore's options: they go to the store; the rest go to open or create. */
const storeOptions = new Set([
  "headers", "fetch", "concurrency", "retries", "retryDelay", "maxRetryDelay", "timeout", "totalTimeout",
  "maxBodyBytes", "requestInit", "conditionalRequests", "noStoreRanges", "acceptFullResponse",
  "region", "endpoint", "credentials", "missingStatus", "writable", "conditionalWrites", "signing", "suffixRanges",
]);

function split(options) {
  const store = {};
  const rest = {};
  for (const [k, v] of Object.entries(options)) (storeOptions.has(k) ? store : rest)[k] = v;
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
  const [s, rest] = split(options);
  const { store, path, zarrFormat } = await locate(where, s);
  const inner = [path, rest.path ?? ""].map((p) => p.replace(/^\/+|\/+$/g, "")).filter(Boolean).join("/");
  return openIn(store, { ...rest, path: inner, zarrFormat: rest.zarrFormat ?? zarrFormat });
}
open.v2 = (where, options = {}) => open(where, { ...(typeof options === "string" ? { path: options } : options), zarrFormat: 2 });
open.v3 = (where, options = {}) => open(where, { ...(typeof options === "string" ? { path: options } : options), zarrFormat: 3 });

/** Creates an array or group: in a store, or at a location string (writable: give credentials, or writable: true). */
export async function create(where, options = {}) {
  if (!isLocation(where)) return createIn(where, options);
  const [s, rest] = split(options);
  return createIn(await storeFromUrl(where, s), rest);
}
