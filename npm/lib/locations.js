// zarr.open and zarr.create given a location string ("s3://bucket/x.zarr",
// "gs://…", "https://…", a .zip or a reference set's URL): the store
// storeFromUrl makes for it, with the FetchStore options among the call's
// options (credentials, region, endpoint, ...).
import { open as openIn, create as createIn } from "./core.js";
import { storeFromUrl } from "./sources.js";

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
 * location string (see storeFromUrl; FetchStore options among `options`).
 */
export async function open(where, options = {}) {
  if (typeof options === "string") options = { path: options };
  if (!isLocation(where)) return openIn(where, options);
  const [s, rest] = split(options);
  return openIn(await storeFromUrl(where, s), rest);
}
open.v2 = (where, options = {}) => open(where, { ...(typeof options === "string" ? { path: options } : options), zarrFormat: 2 });
open.v3 = (where, options = {}) => open(where, { ...(typeof options === "string" ? { path: options } : options), zarrFormat: 3 });

/** Creates an array or group: in a store, or at a location string (writable: give credentials, or writable: true). */
export async function create(where, options = {}) {
  if (!isLocation(where)) return createIn(where, options);
  const [s, rest] = split(options);
  return createIn(await storeFromUrl(where, s), rest);
}
