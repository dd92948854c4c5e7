// storeFromUrl: the store for a URL, told by its form, so that a page or a
// script can open whatever address a user pastes (a Zarr hierarchy, a zip
// of one, a kerchunk reference set in JSON or Parquet).
import { FetchStore, primeRead } from "./stores.js";
import { ZipStore } from "./zip.js";
import { ReferenceStore } from "./refs.js";
import { bridge } from "./runtime.js";
import { checkOptions, optionTable } from "./options.js";
import { ZarrError, toZarrError } from "./errors.js";

/**
 * Whether the directory at url is a Parquet reference set (fsspec's
 * LazyReferenceMapper layout): its .zmetadata has a record_size. Read
 * through the FetchStore that would otherwise serve the hierarchy, so the
 * request is counted there, and kept for the engine's look for
 * consolidated metadata when it opens the root next.
 */
async function isParquetRoot(store, signal) {
  let bytes;
  try {
    bytes = await store[primeRead]("/.zmetadata", signal);
  } catch (e) {
    if (signal?.aborted || e?.name === "AbortError") throw e;
    return false;
  }
  if (!bytes || bytes.length > 64 << 20) return false;
  try {
    const doc = JSON.parse(new TextDecoder().decode(bytes));
    return typeof doc?.record_size === "number" && typeof doc.metadata === "object";
  } catch {
    return false; // not JSON: not a reference set (the engine reports what it is)
  }
}

/**
 * The store for a URL (relative URLs resolve against the page):
 * - a name ending in .zip: a ZipStore over range requests to that file;
 * - .json (also .json.gz, .json.zst): a kerchunk / fsspec JSON reference set;
 * - .parq or .parquet (a directory), or …/.zmetadata, or a directory whose
 *   .zmetadata has a record_size: a Parquet reference set;
 * - anything else: a FetchStore at that URL.
 * An s3:// or gs:// location is an object store's (see FetchStore; its
 * options: credentials, region, endpoint, ...). A URL's query is kept (a
 * presigned .zip works as given).
 * Every store it makes counts its requests and bytes (`requests`, `bytes`;
 * a ZipStore counts those of the file it reads).
 * @param {string | URL} url
 * @param {import("./sources.js").StoreFromUrlOptions} [options] FetchStore options, and signal
 */
export async function storeFromUrl(url, options = {}) {
  const { signal, ...fetchOptions } = checkOptions("storeFromUrl", options);
  const u = new URL(String(url), globalThis.location?.href);
  const path = u.pathname;
  if (/\.zip$/i.test(path)) {
    const cut = path.lastIndexOf("/") + 1;
    const dir = new URL(u.href);
    dir.pathname = path.slice(0, cut);
    // (the query stays: a presigned URL's signature, a token, is the file's)
    return ZipStore.open(new FetchStore(dir, fetchOptions), "/" + decodeURIComponent(path.slice(cut)), { signal });
  }
  if (/\.json(\.gz|\.zst)?$/i.test(path)) return ReferenceStore.fromUrl(u, refsOptions(u, fetchOptions, signal));
  if (/\.(parq|parquet)\/?$|\/\.zmetadata$/i.test(path)) return ReferenceStore.fromParquet(u, refsOptions(u, fetchOptions, signal));
  const store = new FetchStore(u, fetchOptions);
  if (await isParquetRoot(store, signal)) return ReferenceStore.fromParquet(u, refsOptions(u, fetchOptions, signal));
  return store;
}

/**
 * The options of a reference set's store: a FetchStore option
 * ReferenceStore does not take (an object store's credentials, say) is an
 * error rather than dropped.
 */
function refsOptions(u, fetchOptions, signal) {
  for (const k of Object.keys(fetchOptions)) {
    if (!Object.hasOwn(optionTable["ReferenceStore.fromUrl"], k)) {
      throw new ZarrError("INVALID_ARGUMENT", `storeFromUrl: option ${JSON.stringify(k)} is not one of ReferenceStore's, and ${u.href} is a reference set`, { where: k });
    }
  }
  return { ...fetchOptions, signal };
}

/**
 * Where a URL or URL pipeline points: {store, path, zarrFormat}. A URL
 * pipeline (github.com/jbms/url-pipeline, the successor of ZEP 8) is
 * sub-URLs joined by "|": `https://host/data.zip|zip:path/in/zip|zarr3:group/array`
 * — the root location, ZIP files opened in turn ("zip:" with the path
 * inside; a further "|zip:" opens the file it names), and the format with
 * the node's path ("zarr3:", "zarr2:", or "zarr:" for either). The engine
 * parses it (zarr/urlx.ParsePipeline); a plain URL is storeFromUrl's.
 * zarrFormat is 2 or 3 when the pipeline names one, else undefined.
 * @param {string | URL} url
 * @param {{signal?: AbortSignal, rootStore?: (dir: string) => object}} [options]
 *   rootStore makes the store of the root's directory (or of the root
 *   itself without "zip:"); FetchStore by default
 */
export async function locate(url, options = {}) {
  const text = String(url);
  const { signal, rootStore, ...fetchOptions } = checkOptions("locate", options);
  if (!text.includes("|")) return { store: await storeFromUrl(text, { ...fetchOptions, signal }), path: "", zarrFormat: undefined };
  const p = await parsePipeline(text);
  const storeAt = rootStore ?? ((dir) => storeFromUrl(dir, { ...fetchOptions, signal }));
  let store;
  if (p.zips.length === 0) {
    store = await storeAt(p.root);
  } else {
    const root = p.root.replace(/\/+$/, "");
    const cut = root.lastIndexOf("/") + 1;
    store = await ZipStore.open(await storeAt(root.slice(0, cut) || "./"), "/" + decodeURIComponent(root.slice(cut)), { signal });
    for (const inner of p.zipFiles) store = await ZipStore.open(store, "/" + inner, { signal });
  }
  return { store, path: p.nodePath, zarrFormat: p.format || undefined };
}

/** The engine's parse of a URL pipeline: {root, zips, zipFiles, format, path, nodePath}. */
export async function parsePipeline(url) {
  const r = (await bridge()).parsePipeline(String(url));
  if (r?.__zarrWasmError) throw toZarrError(r);
  return r;
}
