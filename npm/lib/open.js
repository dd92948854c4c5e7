// zarr.open: core.js's open, taking also a URL or a URL pipeline (a string
// or URL object; see locate in sources.js), as zarrita.js's users pass a
// store and TensorStore's and neuroglancer's pass a URL.
import { open as openNode } from "./core.js";
import { locate } from "./sources.js";

/**
 * Opens an array or group: of a store, Location or node as core.js's open
 * does, or at a URL or URL pipeline ("https://host/data.zip|zip:path/in/zip|zarr3:").
 * options.path continues the URL's node path; the pipeline's zarr2:/zarr3:
 * is options.zarrFormat unless one is given.
 */
export async function open(where, options = {}) {
  if (typeof where !== "string" && !(where instanceof URL)) return openNode(where, options);
  if (typeof options === "string") options = { path: options };
  const { store, path, zarrFormat } = await locate(where, { signal: options.signal });
  const inner = [path, options.path ?? ""].map((p) => p.replace(/^\/+|\/+$/g, "")).filter(Boolean).join("/");
  return openNode(store, { ...options, path: inner, zarrFormat: options.zarrFormat ?? zarrFormat });
}

/** open() of a Zarr v2 (or v1) node only, as zarrita's open.v2. */
open.v2 = (where, options = {}) => open(where, { ...(typeof options === "string" ? { path: options } : options), zarrFormat: 2 });
/** open() of a Zarr v3 node only, as zarrita's open.v3. */
open.v3 = (where, options = {}) => open(where, { ...(typeof options === "string" ? { path: options } : options), zarrFormat: 3 });
