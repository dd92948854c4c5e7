// The options of every public call, checked in one place: a name the call
// does not take, or a value of the wrong type, is a ZarrError
// INVALID_ARGUMENT naming the call, the option and the nearest accepted
// name. create's other spellings (zarr-python 3's, zarrita.js's) are mapped
// to the package's own names here too.
import { ZarrError } from "./errors.js";

// Types: "string", "number", "integer" (a whole number ≥ 0), "count" (a
// whole number ≥ 1), "boolean",
// "object", "array" (or a TypedArray), "function", "signal" (an
// AbortSignal), "any", a JSON literal ("\"open\"", "2"), or several joined
// by "|". undefined and null pass as "not given" (where null means
// something, as create's fillValue, the call says what).
const signal = { signal: "signal" };
const httpPolicy = {
  timeout: "number",
  totalTimeout: "number",
  retries: "integer",
  retryDelay: "number",
  maxRetryDelay: "number",
  maxBodyBytes: "number",
};
const fetchStore = {
  ...httpPolicy,
  headers: "object|array",
  fetch: "function",
  concurrency: "count",
  requestInit: "object",
  noStoreRanges: "boolean",
  acceptFullResponse: "boolean",
  conditionalRequests: 'boolean|"same-origin"',
  suffixRanges: 'boolean|"same-origin"',
  // object stores (s3://, gs://)
  region: "string",
  endpoint: "string",
  credentials: "object|function",
  missingStatus: "array",
  signing: '"query"|"headers"',
  writable: "boolean",
  conditionalWrites: 'boolean|"probe"',
};
const referenceStore = {
  ...httpPolicy,
  fetch: "function",
  urlMap: "function",
  target: "string",
  sameOrigin: "boolean",
  allowedTargets: "array",
  templates: "object",
  baseUrl: "string|object",
  headers: "object|array",
  requestInit: "object",
  concurrency: "count",
  acceptFullResponse: "boolean",
  maxGap: "number",
  maxBlock: "number",
  window: "number",
  cacheFiles: "integer",
  signal: "signal",
};
const openOptions = {
  path: "string",
  kind: '"array"|"group"',
  dtype: "string",
  cacheBytes: "number",
  recheck: 'boolean|number|"open"',
  signal: "signal",
};
const readOptions = { signal: "signal", concurrency: "count", workers: "boolean" };
const consolidated = { format: '"v2"|"v3"|array', metadataKey: "string", signal: "signal" };
const groupOptions = {
  path: "string",
  kind: '"group"',
  attributes: "object",
  zarrFormat: "2|3",
  zarr_format: "2|3",
  overwrite: "boolean",
  signal: "signal",
};
const arrayOptions = {
  path: "string",
  kind: '"array"|"group"',
  shape: "array",
  chunks: "array",
  dtype: "string|array|object",
  fillValue: "any",
  zarrFormat: "2|3",
  codecs: "array",
  compressor: "object",
  compressors: 'array|object|"auto"',
  filters: 'array|"auto"',
  serializer: 'object|"auto"',
  order: '"C"|"F"',
  dimensionSeparator: '"."|"/"',
  attributes: "object",
  shardShape: "array",
  chunkSizes: "array",
  dimensionNames: "array",
  overwrite: "boolean",
  writeEmptyChunks: "boolean",
  signal: "signal",
  // zarr-python 3's create_array names (see createAliases)
  shards: "array",
  fill_value: "any",
  zarr_format: "2|3",
  dimension_names: "array",
  chunk_key_encoding: "object",
  // zarrita.js's names
  chunkShape: "array",
  dataType: "string|array|object",
  chunkSeparator: '"."|"/"',
};

/**
 * Every public call's options: name → type (above). The one list the
 * checks read, and that tests/node/options.test.mjs walks (misspelling
 * each option, expecting it refused with the option suggested): every new
 * option goes here (and into index.d.ts), else the call refuses it.
 */
export const optionTable = {
  open: { ...openOptions, zarrFormat: "1|2|3", attrs: "boolean" },
  "open.v2": { ...openOptions, attrs: "boolean" },
  "open.v3": openOptions,
  "ZarrGroup.open": { kind: '"array"|"group"', dtype: "string", signal: "signal" },
  "ZarrGroup.children": signal,
  create: arrayOptions,
  createGroup: groupOptions,
  "ZarrArray.get": readOptions,
  "ZarrArray.set": signal,
  "ZarrArray.getChunk": signal,
  "ZarrArray.resize": { expandOnly: "boolean", shrinkOnly: "boolean", resizeMetadataOnly: "boolean" },
  get: { ...readOptions, opts: "object" },
  set: { signal: "signal", opts: "object" },
  // (the FetchStore options go to an s3 or gcs kvstore's store)
  openSpec: { ...fetchStore, signal: "signal" },
  // open and create given a location string: the FetchStore options go to its store
  "open(location)": { ...openOptions, zarrFormat: "1|2|3", attrs: "boolean", ...fetchStore },
  "create(location)": { ...arrayOptions, ...fetchStore },
  withConsolidatedMetadata: consolidated,
  withMaybeConsolidatedMetadata: consolidated,
  FetchStore: fetchStore,
  storeFromUrl: { ...fetchStore, signal: "signal" },
  // (rootStore makes the store of a URL pipeline's root; the FetchStore options go to the default one)
  locate: { ...fetchStore, signal: "signal", rootStore: "function" },
  FileSystemStore: { allowOutsideSymlinks: "boolean" },
  FileListStore: { pathOf: "function" },
  "ZipStore.open": signal,
  // (a URL's FetchStore takes the FetchStore options)
  "IcechunkStore.open": { ...fetchStore, branch: "string", tag: "string", snapshot: "string", virtualChunks: "object", manifestCacheBytes: "number", signal: "signal" },
  "ReferenceStore.fromUrl": referenceStore,
  "ReferenceStore.fromParquet": referenceStore,
  "ReferenceStore.fromJSON": referenceStore,
  useWorkers: { shared: 'boolean|"auto"', minBytes: "number" },
  init: { full: "any", icechunk: "any", codecs: "any", engine: '"core"|"full"' },
};

/**
 * Checks call's options against optionTable and returns them ({} for
 * undefined or null). ZarrError INVALID_ARGUMENT for a non-object, an
 * unknown name (with the nearest accepted one) or a value of another type.
 */
export function checkOptions(call, options) {
  if (options === undefined || options === null) return {};
  const table = optionTable[call];
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new ZarrError("INVALID_ARGUMENT", `${call}: options are an object ({${Object.keys(table).join(", ")}}), got ${describe(options)}`);
  }
  const accepted = Object.keys(table);
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(table, key)) throw unknownOption(call, key, accepted);
    checkType(call, key, table[key], options[key]);
  }
  return options;
}

/** The error for a name call does not take: the nearest accepted name, else all of them. */
export function unknownOption(call, key, accepted) {
  const near = nearest(key, accepted);
  const msg = near ? ` (did you mean ${JSON.stringify(near)}?)` : `; the options are ${accepted.map((a) => JSON.stringify(a)).join(", ")}`;
  return new ZarrError("INVALID_ARGUMENT", `${call}: unknown option ${JSON.stringify(key)}${msg}`, { where: key, suggest: near || undefined });
}

function checkType(call, key, type, v) {
  if (v === undefined || v === null) return;
  const parts = type.split("|");
  if (parts.some((t) => fits(t, v))) return;
  const want = parts.map((t) => (t === "integer" ? "a whole number ≥ 0" : t === "count" ? "a whole number ≥ 1" : t === "signal" ? "an AbortSignal" : t.startsWith('"') || /^\d/.test(t) ? t : `${/^[aeiou]/.test(t) ? "an" : "a"} ${t}`));
  const list = want.length > 1 ? `${want.slice(0, -1).join(", ")} or ${want[want.length - 1]}` : want[0];
  // A misspelt word among words ("arry" for "array"): the nearest.
  const words = parts.filter((t) => t.startsWith('"')).map((t) => JSON.parse(t));
  const near = typeof v === "string" ? nearest(v, words) : "";
  const hint = near ? ` (did you mean ${JSON.stringify(near)}?)` : "";
  throw new ZarrError("INVALID_ARGUMENT", `${call}: option ${JSON.stringify(key)} is ${list}, got ${describe(v)}${hint}`, { where: key, suggest: near || undefined });
}

function fits(t, v) {
  switch (t) {
    case "any":
      return true;
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && !Number.isNaN(v);
    case "integer":
      return Number.isInteger(v) && v >= 0;
    case "count":
      return Number.isInteger(v) && v >= 1;
    case "boolean":
      return typeof v === "boolean";
    case "function":
      return typeof v === "function";
    case "array":
      return Array.isArray(v) || ArrayBuffer.isView(v);
    case "object":
      return typeof v === "object" && !Array.isArray(v);
    case "signal":
      return typeof v === "object" && typeof v.aborted === "boolean" && typeof v.addEventListener === "function";
  }
  return JSON.stringify(v) === t; // a literal
}

function describe(v) {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object" && v !== null) return "an object";
  return typeof v === "bigint" ? `${v}n` : typeof v === "number" || typeof v === "boolean" ? String(v) : `a ${typeof v}`;
}

/**
 * The candidate nearest to name by edit distance (case aside), or "" when
 * none is a plausible typo: the same rule as the engine's errs.Nearest (at
 * most one edit per three characters plus one, and three at most).
 */
export function nearest(name, candidates) {
  const a = String(name).toLowerCase();
  const limit = Math.min(Math.floor(a.length / 3) + 1, 3);
  let best = "";
  let bestD = Infinity;
  for (const c of candidates) {
    if (c === name) continue;
    const d = editDistance(a, c.toLowerCase());
    if (d <= limit && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * create's other spellings, each → the package's name for it: zarr-python
 * 3's create_array and zarrita.js's create. (Names they share with the
 * package — chunks, dtype, attributes, compressors, filters, serializer,
 * order, overwrite, codecs, fillValue, dimensionNames — need none.)
 */
export const createAliases = {
  // zarr-python 3
  shards: "shardShape",
  fill_value: "fillValue",
  zarr_format: "zarrFormat",
  dimension_names: "dimensionNames",
  chunk_key_encoding: "dimensionSeparator",
  // zarrita.js
  chunkShape: "chunks",
  dataType: "dtype",
  chunkSeparator: "dimensionSeparator",
};

/**
 * create's or createGroup's options (checked) with every alias replaced by
 * the package's name, and zarr-python's value forms by the engine's:
 * compressors null → none, "auto" → the default, one codec → a list of
 * one; chunk_key_encoding {name, separator} → dimensionSeparator. Two
 * names of one option with different values: INVALID_ARGUMENT.
 */
export function canonicalCreateOptions(call, options) {
  const o = { ...checkOptions(call, options) };
  const format = o.zarrFormat ?? o.zarr_format;
  for (const [alias, name] of Object.entries(createAliases)) {
    if (!(alias in o)) continue;
    let v = o[alias];
    delete o[alias];
    if (alias === "chunk_key_encoding") v = separatorOf(call, v, format);
    if (v === undefined) continue;
    if (name in o && o[name] !== undefined && !sameValue(o[name], v)) {
      throw new ZarrError("INVALID_ARGUMENT", `${call}: ${JSON.stringify(alias)} and ${JSON.stringify(name)} name one option and disagree (${JSON.stringify(v)} and ${JSON.stringify(o[name])})`, { where: alias });
    }
    o[name] = v;
  }
  if (o.compressors === "auto") delete o.compressors;
  else if (o.compressors === null) o.compressors = [];
  else if (o.compressors !== undefined && !Array.isArray(o.compressors)) o.compressors = [o.compressors];
  if (o.serializer === "auto" || o.serializer === null) delete o.serializer;
  if (o.filters === "auto") delete o.filters;
  else if (o.filters === null) o.filters = [];
  return o;
}

/** zarr-python's chunk_key_encoding ({name: "default" | "v2", separator?}) as a separator. */
function separatorOf(call, v, format) {
  if (v === undefined || v === null) return undefined;
  const name = v.name ?? "default";
  for (const k of Object.keys(v)) {
    if (k !== "name" && k !== "separator") throw unknownOption(`${call}: chunk_key_encoding`, k, ["name", "separator"]);
  }
  if (name !== "default" && name !== "v2") {
    throw new ZarrError("INVALID_ARGUMENT", `${call}: chunk_key_encoding name is "default" or "v2", got ${JSON.stringify(name)}`, { where: "chunk_key_encoding" });
  }
  if ((name === "v2") !== (format === 2)) {
    throw new ZarrError(
      name === "v2" ? "UNSUPPORTED" : "INVALID_ARGUMENT",
      name === "v2"
        ? `${call}: chunk_key_encoding "v2" in a v3 array is not written by zarr-wasm; use {name: "default", separator: "."} or zarr_format: 2`
        : `${call}: a v2 array's chunk_key_encoding is {name: "v2", separator}`,
      { where: "chunk_key_encoding" },
    );
  }
  const sep = v.separator ?? (name === "v2" ? "." : "/");
  if (sep !== "." && sep !== "/") {
    throw new ZarrError("INVALID_ARGUMENT", `${call}: chunk_key_encoding separator is "." or "/", got ${JSON.stringify(sep)}`, { where: "chunk_key_encoding" });
  }
  return sep;
}

function sameValue(a, b) {
  if (ArrayBuffer.isView(a)) a = Array.from(a);
  if (ArrayBuffer.isView(b)) b = Array.from(b);
  if (Object.is(a, b)) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
