// Reference sets (fsspec / kerchunk): a Zarr hierarchy whose keys are
// inline bytes or byte ranges of other files (HDF5, NetCDF, TIFF, GRIB ...).
// The Go engine (zarr/refs) parses the set, resolves and maps the target
// urls and merges neighbouring ranges; this module gives it a fetch to read
// targets with and wraps its store in a JS object that open() accepts.
import { callBridge, bridgeIfRunning } from "./runtime.js";
import { GoStore, checkKey } from "./gostore.js";
import { ZarrError } from "./errors.js";
import { toJSONText } from "./json.js";
import { HTTPReader } from "./stores.js";
import { checkOptions } from "./options.js";

const textEncoder = new TextEncoder();

/** An absolute URL (against the page in browsers), or null. */
function absoluteURL(u) {
  try {
    return new URL(String(u), globalThis.location?.href).href;
  } catch {
    return null;
  }
}

/** The built-in mapping of s3:// and gs:// urls to public HTTPS endpoints. */
function defaultUrlMap(url) {
  const b = bridgeIfRunning();
  if (!b) throw new ZarrError("INTERNAL", "the zarr-wasm engine is not running");
  return b.defaultURLMap(String(url));
}

function options(call, o) {
  return checkOptions(`ReferenceStore.${call}`, o);
}

/**
 * The function the Go engine reads other files by URL with (reference
 * sets' targets and Parquet files, Icechunk's virtual chunks):
 * (url, range, signal) → Promise<Uint8Array | undefined>, range null (the
 * whole file), {offset, length?} or {suffix}; with `validators`, the
 * answer is {data, etag, lastModified} (the answer's headers, for Icechunk
 * to check a virtual chunk's file is the one it was written against).
 */
export function makeRead(reader, opt, validators = false) {
  const { urlMap } = opt;
  const custom = typeof opt.fetch === "function";
  return async (url, range, signal) => {
    if (typeof urlMap === "function") {
      const mapped = await urlMap(url, defaultUrlMap);
      if (typeof mapped !== "string" && !(mapped instanceof URL)) {
        throw new ZarrError("STORE", `urlMap returned ${typeof mapped} for ${url}, not a URL`);
      }
      url = String(mapped);
    }
    const abs = absoluteURL(url);
    if (abs === null) {
      throw new ZarrError("STORE", `cannot fetch ${JSON.stringify(url)}: not an absolute URL (give the reference set's location: baseUrl)`);
    }
    if (!custom && !/^(https?|blob|data):/i.test(abs)) {
      throw new ZarrError(
        "UNSUPPORTED",
        `cannot fetch ${abs}: only http(s) URLs are fetched; map the others to HTTPS with the urlMap option, or read them with a fetch hook`,
      );
    }
    if (!validators) return reader.read(abs, range, signal);
    const r = await reader.read(abs, range, signal, false, {});
    return r.data === undefined ? undefined : r;
  };
}

/** Options the Go side reads (refs.Options). */
function goOptions(opt, extra) {
  const o = { ...extra };
  if (opt.target !== undefined && opt.target !== null) o.target = String(opt.target);
  if (opt.templates !== undefined) o.templates = opt.templates;
  if (typeof opt.urlMap === "function") o.identityUrlMap = true;
  if (opt.sameOrigin) o.sameOrigin = true;
  if (opt.allowedTargets !== undefined && opt.allowedTargets !== null) o.allowedTargets = Array.from(opt.allowedTargets, String);
  for (const k of ["maxGap", "maxBlock", "window", "concurrency", "cacheFiles"]) {
    if (opt[k] !== undefined && opt[k] !== null) o[k] = Number(opt[k]);
  }
  return o;
}

/**
 * A reference set as a read-only store. Make one with
 * `ReferenceStore.fromUrl`, `fromJSON` or `fromParquet`; hand it to
 * `zarr.open` (the engine then reads the Go store behind it directly). Its
 * get/getRange/list make it a plain zarrita-style store as well.
 */
export class ReferenceStore extends GoStore {
  #reader;
  /** @internal use fromUrl, fromJSON or fromParquet */
  constructor(id, reader, url) {
    super(id);
    this.#reader = reader;
    /** The reference file's URL (or the Parquet directory's; fromJSON: its baseUrl). */
    this.url = url;
  }

  /**
   * Opens the reference set at url: a JSON file (version 0 or 1, gzip or
   * zstd compressed too) or a Parquet reference directory (fsspec's
   * LazyReferenceMapper layout), told apart by the URL ("…/", "…/.zmetadata",
   * ".parq", ".parquet" are Parquet) and else by what is there.
   * @param {string | URL} url
   * @param {import("../index.d.ts").ReferenceStoreOptions} [opts]
   */
  static async fromUrl(url, opts) {
    return open("url", url, opts);
  }

  /** Opens a Parquet reference directory (the URL of the directory holding .zmetadata). */
  static async fromParquet(url, opts) {
    return open("parquet", url, opts);
  }

  /**
   * Reads a JSON reference set given as an object, its text, or its bytes
   * (gzip or zstd compressed too). Relative target urls resolve against
   * `baseUrl` (the reference file's own location).
   */
  static async fromJSON(refs, opts) {
    const opt = options("fromJSON", opts);
    let bytes;
    if (typeof refs === "string") bytes = textEncoder.encode(refs);
    else if (refs instanceof Uint8Array) bytes = refs;
    else if (refs instanceof ArrayBuffer) bytes = new Uint8Array(refs);
    else if (ArrayBuffer.isView(refs)) bytes = new Uint8Array(refs.buffer, refs.byteOffset, refs.byteLength);
    else if (refs && typeof refs === "object") bytes = textEncoder.encode(toJSONText(refs));
    else throw new ZarrError("INVALID_METADATA", "fromJSON takes a reference set: an object, its JSON text or its bytes");
    let base;
    if (opt.baseUrl !== undefined && opt.baseUrl !== null) {
      base = absoluteURL(opt.baseUrl);
      if (base === null) throw new ZarrError("STORE", `baseUrl ${JSON.stringify(String(opt.baseUrl))} is not a URL`);
    }
    const reader = new HTTPReader({ ...opt, strict: true, noStoreRanges: true });
    const info = await callBridge("refOpen", "json", bytes, goOptions(opt, base ? { baseUrl: base } : {}), makeRead(reader, opt), opt.signal);
    return new ReferenceStore(info.id, reader, base ?? null);
  }

  /** HTTP requests sent so far for targets, record files and the reference file (retries count). */
  get requests() {
    return this.#reader.requests;
  }

  /** Bytes received for targets, record files and the reference file. */
  get bytes() {
    return this.#reader.bytes;
  }

  /**
   * Where a key's bytes come from, without reading them: {inline: true,
   * length} or {url, fetchUrl, offset, length} (length -1: the whole
   * file); undefined for a key without a reference.
   */
  lookup(key, opts = {}) {
    return callBridge("refLookup", this._id, checkKey(key), opts?.signal);
  }

  toString() {
    return `<zarr-wasm ReferenceStore ${this.url ?? "(JSON)"}>`;
  }
}

async function open(mode, url, opts) {
  const opt = options(mode === "parquet" ? "fromParquet" : "fromUrl", opts);
  const abs = absoluteURL(url);
  if (abs === null) throw new ZarrError("STORE", `${JSON.stringify(String(url))} is not a URL`);
  const reader = new HTTPReader({ ...opt, strict: true, noStoreRanges: true });
  const info = await callBridge("refOpen", mode, abs, goOptions(opt, {}), makeRead(reader, opt), opt.signal);
  return new ReferenceStore(info.id, reader, abs);
}
