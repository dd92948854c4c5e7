// Type declarations for zarr-wasm (the "." entry: browsers and Node).

// Generated from zarr/errs/errs.go by internal/errcodes (make codes): do not edit.
/** Error codes of ZarrError: the Go engine's (zarr/errs), then those only this package gives. */
export type ZarrErrorCode =
  /** No node, key or field of that name (the nearest existing one is suggested). */
  | "NOT_FOUND"
  /** A metadata document, spec or option breaks the format's rules. */
  | "INVALID_METADATA"
  /** Valid, but not something zarr-wasm reads or writes yet. */
  | "UNSUPPORTED"
  /** A chunk's stored bytes could not be decoded (or encoded) by its codecs. */
  | "CODEC"
  /** The selection does not fit the array (out of bounds, a bad step, the wrong number of dimensions). */
  | "SELECTION"
  /** An argument or option of a call is wrong: an unknown option (the nearest accepted name is suggested), a value of the wrong type or out of range, two names of one option that disagree. */
  | "INVALID_ARGUMENT"
  /** The store failed to read, write or list. */
  | "STORE"
  /** The call was cancelled (its AbortSignal, or context). */
  | "ABORTED"
  /** The store, or the node, cannot be written. */
  | "READ_ONLY"
  /** A node is already there (creating without overwrite). */
  | "EXISTS"
  /** A request would need more memory than the engine's budget (zarr/budget); nothing was allocated, the engine stays usable. */
  | "TOO_LARGE"
  /** A value changed while it was read (a shard rewritten between its index and its chunks), or kept changing under a write, and retrying did not get past it. */
  | "CONFLICT"
  /** The server refused the request (HTTP 403 for every metadata key of a node, a signature or credentials it does not accept): a private bucket, wrong or expired credentials. */
  | "ACCESS_DENIED"
  /** The WebAssembly engine stopped (a panic, out of memory) while the call ran; the next call starts a fresh engine, and nodes must be opened again. */
  | "ENGINE_EXITED"
  /** The package itself is broken or incomplete (a file missing, builds that do not match, a decode worker that did not start). */
  | "INTERNAL";
// End of the generated error codes.

export declare const codes: readonly ZarrErrorCode[];

/** Every failure of the API. `code` says what went wrong; the message names the key or path. */
export declare class ZarrError extends Error {
  constructor(code: ZarrErrorCode, message: string, details?: { where?: string; suggest?: string; cause?: unknown });
  readonly name: "ZarrError";
  readonly code: ZarrErrorCode;
  /** The key, path or field that failed. */
  readonly where?: string;
  /** A near name that exists ("did you mean"), when the store can list or has consolidated metadata. */
  readonly suggest?: string;
  /** zarrita.js's name for the code (undefined for codes zarrita has no name for). */
  readonly _tag?: ZarritaErrorTag;
}

/** zarrita.js's error names, as isZarritaError takes them. */
export type ZarritaErrorTag = "NotFoundError" | "InvalidMetadataError" | "InvalidSelectionError" | "UnsupportedError" | "CodecPipelineError";

/**
 * As zarrita's isZarritaError: whether err is a ZarrError, and with tags,
 * one whose code zarrita names by one of them (NOT_FOUND "NotFoundError",
 * INVALID_METADATA "InvalidMetadataError", SELECTION "InvalidSelectionError",
 * UNSUPPORTED "UnsupportedError", CODEC "CodecPipelineError").
 */
export declare function isZarritaError(err: unknown, ...tags: ZarritaErrorTag[]): err is ZarrError;

// ---- stores ---------------------------------------------------------------

/** An absolute store key: "/a/b/.zarray", "/zarr.json", "/a/c/0/1". */
export type AbsolutePath = `/${string}`;

export type RangeQuery = { offset: number; length: number } | { suffixLength: number };

export interface GetOptions {
  signal?: AbortSignal;
  /**
   * Set by the engine: the store may answer with a VersionedValue (a store
   * that knows versions), or as usual (a plain store ignores it and the
   * conditions below).
   */
  versioned?: boolean;
  /** Answer only if the value is still this generation; else `{changed: true}`. */
  ifMatch?: string;
  /** The caller holds this generation: if unchanged, `{notModified: true}` without data. */
  ifNoneMatch?: string;
}

/**
 * A versioned answer: the value (undefined: no such key) and its
 * generation — an opaque version string (an ETag, a file's identity, a
 * counter); null or absent when unknown.
 */
export type VersionedValue =
  /** denied: absent, but the server refused to say so (an object store's 403 for a missing key). */
  | { data: Uint8Array | undefined; generation?: string | null; denied?: boolean }
  | { notModified: true; generation?: string | null }
  | { changed: true };

/** Options of a write: the engine makes read-modify-writes conditional on the version read. */
export interface WriteOptions {
  signal?: AbortSignal;
  versioned?: boolean;
  /** Write only if the key is still this generation; else answer `{changed: true}`. */
  ifMatch?: string;
  /** "*": write only if the key has no value (create); else `{changed: true}`. */
  ifNoneMatch?: "*";
}

/** A versioned write's answer: the new generation, or a refusal. */
export type VersionedWrite = { generation?: string | null } | { changed: true };

/**
 * The store contract (the same as zarrita.js): any object with get(); the
 * other methods are optional and enable ranged reads (sharding), writing
 * and listing (group children, "did you mean" suggestions). Methods may be
 * synchronous or return promises. A `Map<string, Uint8Array>` is a store.
 *
 * Versions are optional: asked with `{versioned: true}`, a store may answer
 * a VersionedValue and honour ifMatch / ifNoneMatch, and a write may honour
 * WriteOptions; the engine then ties the reads of a shard to one version,
 * confirms cached chunks cheaply and makes read-modify-writes conditional.
 * A store that answers plain bytes still works, without those guarantees
 * (docs/stores.md, "Versions, concurrent writes and the chunk cache").
 */
export interface Readable {
  get(key: AbsolutePath, options?: GetOptions): Uint8Array | undefined | VersionedValue | Promise<Uint8Array | undefined | VersionedValue>;
  getRange?(key: AbsolutePath, range: RangeQuery, options?: GetOptions): Uint8Array | undefined | VersionedValue | Promise<Uint8Array | undefined | VersionedValue>;
}

export interface Writable {
  set(key: AbsolutePath, value: Uint8Array, options?: WriteOptions): unknown;
  delete?(key: AbsolutePath, options?: WriteOptions): unknown;
}

export interface Listable {
  /** Names directly under prefix ("/" or "/a/"); sub-prefixes end in "/". */
  list(prefix: AbsolutePath): string[] | Promise<string[]>;
}

export type Store = Readable & Partial<Writable> & Partial<Listable>;

/** A store in memory; each stored Uint8Array has its own generation. */
export declare class MemoryStore implements Readable, Writable, Listable {
  constructor(entries?: Iterable<[string, Uint8Array]> | Record<string, Uint8Array>);
  readonly map: Map<string, Uint8Array>;
  /** The generation of a key's value (null: no value). */
  generation(key: AbsolutePath): string | null;
  get(key: AbsolutePath): Uint8Array | undefined;
  get(key: AbsolutePath, options: GetOptions & { versioned: true }): VersionedValue;
  getRange(key: AbsolutePath, range: RangeQuery): Uint8Array | undefined;
  getRange(key: AbsolutePath, range: RangeQuery, options: GetOptions & { versioned: true }): VersionedValue;
  has(key: AbsolutePath): boolean;
  set(key: AbsolutePath, value: Uint8Array, options?: WriteOptions): void | VersionedWrite;
  delete(key: AbsolutePath, options?: WriteOptions): boolean | { changed: true };
  list(prefix?: AbsolutePath): string[];
  keys(): IterableIterator<string>;
  readonly size: number;
}

/**
 * Timeouts, body caps and retries of every HTTP read (FetchStore, reference
 * files and targets), the same policy as Go's zarr/store/http. Times in ms;
 * defaults in `httpDefaults`; 0 turns a timeout off.
 */
export interface HTTPPolicy {
  /** One attempt: the headers, then each next piece of the body, must come within this (default 30 000). */
  timeout?: number;
  /** One read, every attempt and back-off included (default 120 000). */
  totalTimeout?: number;
  /**
   * Retries of network errors, timed-out attempts, truncated bodies and
   * 408/425/429/500/502/503/504 (default 3).
   */
  retries?: number;
  /** First back-off in ms, doubled each retry, ×0.5–1.5 jitter (default 200). */
  retryDelay?: number;
  /** Longest back-off; a Retry-After longer than this ends the read (default 10 000). */
  maxRetryDelay?: number;
  /** Largest whole-object body in bytes (default 1 GiB); a range's body is capped at its length + 4096. */
  maxBodyBytes?: number;
}

/** The defaults of HTTPPolicy. */
export declare const httpDefaults: Readonly<Required<HTTPPolicy>>;

export interface FetchStoreOptions extends HTTPPolicy {
  /** Headers sent with every request (e.g. Authorization). */
  headers?: HeadersInit;
  /**
   * Replaces fetch (auth, presigning, remapping statuses); receives a Request.
   * Without it, in Node, requests go through node:http(s) (the same requests
   * and answers for less CPU; see docs/stores.md, "How requests are sent in Node"): pass
   * `fetch: (r) => fetch(r)` to send them with fetch.
   */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Requests in flight at once; an array's reads then fetch and decode as
   * many chunks at once. Default: 64 in Node; in a browser 16 until the
   * server's protocol is known from the resource timing entries (same
   * origin, or another that sends Timing-Allow-Origin), then 6 over
   * HTTP/1.x (a browser's connections per server) and 64 over HTTP/2 or 3.
   */
  concurrency?: number;
  /** Extra RequestInit fields (credentials, mode, cache, ...). */
  requestInit?: RequestInit;
  /**
   * Send ranged requests with cache "no-store" (default true): Chromium's
   * HTTP cache lets one request per URL through at a time.
   */
  noStoreRanges?: boolean;
  /**
   * Read ranges from servers that ignore Range (200 with the whole body),
   * slicing the body; as ReferenceStoreOptions.acceptFullResponse.
   */
  acceptFullResponse?: boolean;
  /**
   * When versioned reads send If-Match / If-None-Match: "same-origin"
   * (default: always in Node; in a browser only to the page's origin, since
   * elsewhere they make each request a CORS preflight), true or false.
   * Without them, the ETag of each answer is compared instead (another
   * origin must send Access-Control-Expose-Headers: ETag).
   */
  conditionalRequests?: boolean | "same-origin";
  /**
   * How the last n bytes of a key (a shard's index) are asked for: true, a
   * suffix Range (bytes=-n); false, a HEAD for the size, then a plain Range,
   * as a suffix Range is not CORS-safelisted (it would cost a preflight);
   * "same-origin" (default): suffixes in Node and to the page's own origin.
   */
  suffixRanges?: boolean | "same-origin";
  /** An S3 bucket's region: s3://bucket/x maps to bucket.s3.<region>.amazonaws.com, and requests are signed for it. */
  region?: string;
  /** An S3-compatible server's URL (MinIO, R2, Ceph, SeaweedFS): s3://bucket/x maps to <endpoint>/bucket/x. */
  endpoint?: string;
  /**
   * Keys that sign every request (AWS Signature Version 4), or a function
   * returning them (asked again near `expiration` and when the server says
   * they expired). They also make the store writable.
   */
  credentials?: S3Credentials | (() => S3Credentials | Promise<S3Credentials>);
  /**
   * HTTP statuses that mean "no such key" (default [403, 404, 410]: S3 and
   * GCS answer 403 for a missing key to readers who may not list the
   * bucket). [404, 410] makes every 403 an ACCESS_DENIED error.
   */
  missingStatus?: number[];
  /** Sign reads in the query (no extra headers: no CORS preflight; default in browsers) or in headers (default elsewhere). */
  signing?: "query" | "headers";
  /** PUT and DELETE without credentials (a server that takes anonymous writes). */
  writable?: boolean;
  /** Send writes' conditions (If-None-Match: *, If-Match): "probe" (default: try the server once), true, false. */
  conditionalWrites?: "probe" | boolean;
}

/** Keys of an S3 (or S3-compatible, or GCS HMAC) account. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working (a Date or its string). */
  expiration?: Date | string;
}

/**
 * A store over HTTP(S) and object stores: an http(s) URL, or s3://bucket/prefix
 * and gs://bucket/prefix (mapped to HTTPS by the engine). 404 and 410 are
 * absent keys; a 403 counts as absent where S3 means "no such key" (see
 * docs/object-stores.md); other failures are typed errors. Ranges are Range
 * requests, checked: a server that ignores Range (200 with the whole body)
 * is sliced correctly, a wrong 206 is an error. With credentials (or
 * writable) it writes with PUT and DELETE, conditionally where the server
 * honours it.
 */
export declare class FetchStore implements Readable, Listable, Partial<Writable> {
  constructor(url: string | URL, options?: FetchStoreOptions);
  /** The location given. */
  readonly location: string;
  /** The root's http(s) URL (for s3:// and gs://, null until the engine has mapped it). */
  readonly url: URL | null;
  /** Whether list() works (the location is a bucket's); undefined until the engine has read the location. */
  readonly listable: boolean | undefined;
  /** Whether the server honours conditional writes: undefined until probed (or as the option says). */
  readonly conditionalWrites: boolean | undefined;
  /** Names directly under prefix (S3 ListObjectsV2). */
  list(prefix?: AbsolutePath): Promise<string[]>;
  /** A presigned URL of key (needs credentials): anyone may GET it for `expires` seconds (default 900). */
  presign(key: AbsolutePath, options?: { expires?: number }): Promise<string>;
  /** PUT (present with credentials or writable). */
  set?(key: AbsolutePath, value: Uint8Array, options?: WriteOptions): Promise<unknown>;
  /** DELETE (present with credentials or writable). */
  delete?(key: AbsolutePath, options?: WriteOptions): Promise<unknown>;
  /** Requests in flight at most (the concurrency option resolved); arrays read as many chunks at once. */
  readonly concurrency: number;
  /** In a browser, the protocol of the server as the browser reports it ("h2", "http/1.1", ...), once known (it sets the default concurrency). */
  readonly protocol?: string;
  /** Requests sent so far (retries included). */
  requests: number;
  /** Bytes received so far (bodies of answers). */
  readonly bytes: number;
  /** Requests waiting for their answer. */
  readonly inFlight: number;
  /** Whether versioned reads send conditional headers (FetchStoreOptions.conditionalRequests, resolved). */
  readonly conditionalRequests: boolean;
  /** Whether a key's last bytes are asked for as a suffix Range (FetchStoreOptions.suffixRanges, resolved). */
  readonly suffixRanges: boolean;
  resolve(key: AbsolutePath): URL;
  get(key: AbsolutePath, options?: GetOptions & { versioned?: false }): Promise<Uint8Array | undefined>;
  get(key: AbsolutePath, options: GetOptions & { versioned: true }): Promise<VersionedValue>;
  getRange(key: AbsolutePath, range: RangeQuery, options?: GetOptions & { versioned?: false }): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery, options: GetOptions & { versioned: true }): Promise<VersionedValue>;
}

export declare class HTTPError extends Error {
  readonly name: "HTTPError";
  readonly status: number;
  readonly url: string;
}

export declare class RangeMismatchError extends Error {
  readonly name: "RangeMismatchError";
}

// ---- reference sets (fsspec / kerchunk) ------------------------------------

export interface ReferenceStoreOptions extends HTTPPolicy {
  /**
   * Replaces fetch for every request (the reference file, Parquet record
   * files, targets): sign, re-route, add credentials. Receives a Request
   * (with its Range header and AbortSignal), after urlMap.
   */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Maps each resolved target url (s3://…, gs://…, https://…) to the URL
   * fetched; the default maps s3:// and gs:// (gcs://) to their public
   * HTTPS endpoints, and is passed as the second argument so a mapping can
   * fall back to it. May return a promise.
   */
  urlMap?: (url: string, defaultUrlMap: (url: string) => string) => string | URL | Promise<string | URL>;
  /** The file a reference with a null url reads (fsspec's target=); relative to the reference file. */
  target?: string;
  /**
   * Only read targets on the reference file's own origin (scheme, host,
   * port) or in allowedTargets. For services that open reference files
   * they did not write: otherwise a file can point the service at any host
   * or local port. Checked on each target as resolved, before urlMap; a
   * refused target is a STORE error when its key is read.
   */
  sameOrigin?: boolean;
  /** Origins ("https://host:port") or URL prefixes ("https://host/data/", "s3://bucket/") targets may be in. */
  allowedTargets?: string[];
  /** Template overrides (fsspec's template_overrides). */
  templates?: Record<string, string>;
  /** fromJSON: where the reference file lives (relative target urls resolve against it). */
  baseUrl?: string | URL;
  /** Headers sent with every request. */
  headers?: HeadersInit;
  /** Extra RequestInit fields (credentials, mode, cache, ...). */
  requestInit?: RequestInit;
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /**
   * Read ranges from servers that ignore Range (200 with the whole file).
   * Off by default: a target may be gigabytes, and such an answer is an error.
   */
  acceptFullResponse?: boolean;
  /** Largest gap (bytes) between two ranges of one file still read as one request (default 65 536, the engine's one coalescing policy; negative: never merge). */
  maxGap?: number;
  /** Largest merged request in bytes (default 16 MiB). */
  maxBlock?: number;
  /** How long (ms) a read waits for other reads of the same file to merge with (default 2; negative: none). */
  window?: number;
  /** Parquet record files kept decoded (default 32). */
  cacheFiles?: number;
  /** Aborts opening. */
  signal?: AbortSignal;
}

/** Where a key's bytes come from (ReferenceStore.lookup). */
export type ReferenceLocation =
  | { inline: true; length: number }
  | { inline?: undefined; url: string; fetchUrl: string; offset: number; length: number };

/**
 * A zip of a hierarchy (zarr-python's ZipStore; zipped from within or from
 * its parent directory) held in any store, read through range requests:
 * the zip's end records and directory, then only the entries a read needs.
 * Read-only. Hand it to open(); it is also a plain store.
 */
export declare class ZipStore implements Readable, Listable {
  private constructor();
  /** Opens the zip file at key ("/data.zarr.zip") in store. */
  static open(store: Store, key: string, options?: { signal?: AbortSignal }): Promise<ZipStore>;
  readonly key: string;
  /** The store the zip file is read from. */
  readonly source: Store;
  /** The source's request and byte counts, when it keeps them (FetchStore, BlobStore). */
  readonly requests: number | undefined;
  readonly bytes: number | undefined;
  get(key: string, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
  getRange(key: string, range: { offset: number; length?: number } | { suffixLength: number }, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
  list(prefix?: string): Promise<string[]>;
}

/**
 * A reference set (kerchunk / fsspec JSON v0 and v1, or a Parquet reference
 * directory) as a read-only store: hand it to open(). Reads of one target
 * file that arrive together are merged into few Range requests and fetched
 * concurrently. Also a plain store (get, getRange, list).
 */
export declare class ReferenceStore implements Readable, Listable {
  private constructor();
  /** A JSON reference file (gzip/zstd too) or a Parquet reference directory, detected. */
  static fromUrl(url: string | URL, options?: ReferenceStoreOptions): Promise<ReferenceStore>;
  /** A JSON reference set given as an object, its text or its bytes. */
  static fromJSON(refs: object | string | Uint8Array | ArrayBuffer, options?: ReferenceStoreOptions): Promise<ReferenceStore>;
  /** A Parquet reference directory (its URL, or that of its .zmetadata). */
  static fromParquet(url: string | URL, options?: ReferenceStoreOptions): Promise<ReferenceStore>;
  /** The reference file's URL (fromJSON: baseUrl, or null). */
  readonly url: string | null;
  /** HTTP requests sent so far (retries count). */
  readonly requests: number;
  /** Bytes received so far (reference file, record files, targets). */
  readonly bytes: number;
  get(key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery | { offset: number }, options?: GetOptions): Promise<Uint8Array | undefined>;
  /** Names under prefix; a Parquet set lists metadata and array directories, not chunk keys. */
  list(prefix?: AbsolutePath): Promise<string[]>;
  /** Where a key's bytes are, without reading them; undefined without a reference. */
  lookup(key: AbsolutePath, options?: GetOptions): Promise<ReferenceLocation | undefined>;
}

// ---- Icechunk repositories -------------------------------------------------

export interface IcechunkOptions extends FetchStoreOptions {
  /** The branch whose head to open (default "main"). Give at most one of branch, tag and snapshot. */
  branch?: string;
  /** A tag to open. */
  tag?: string;
  /** A snapshot id (20 characters of Crockford base32) to open. */
  snapshot?: string;
  /**
   * Where virtual chunks may be read from: a location prefix
   * ("s3://bucket/data/", "https://host/files/") maps to a replacement
   * prefix fetched instead, or to `true` (fetched as it is). A virtual chunk
   * outside every prefix is a STORE error; nothing outside the repository is
   * fetched otherwise. The longest matching prefix applies.
   */
  virtualChunks?: Record<string, string | URL | boolean> | Map<string, string | URL | boolean>;
  /** Decompressed manifests kept, in bytes (default 256 MiB). */
  manifestCacheBytes?: number;
  /** Aborts opening. */
  signal?: AbortSignal;
}

/** A branch or a tag and the snapshot it points at. */
export interface IcechunkRef {
  name: string;
  snapshot: string;
}

/** A commit of an Icechunk repository. */
export interface IcechunkSnapshot {
  id: string;
  /** The parent snapshot's id; null for the repository's first snapshot. */
  parent: string | null;
  message: string;
  /** When it was committed. */
  time: Date;
}

/**
 * One snapshot of an Icechunk repository (spec version 1 or 2: a branch's
 * head, a tag or a snapshot id) as a read-only store: hand it to open(); it
 * is also a plain store (get, getRange, list). Arrays and groups opened from
 * it keep reading the snapshot they were opened at.
 */
export declare class IcechunkStore implements Readable, Listable {
  private constructor();
  /**
   * Opens a repository: `location` is its URL (read with a FetchStore,
   * which the HTTP options configure) or a store holding its files.
   */
  static open(location: string | URL | Store, options?: IcechunkOptions): Promise<IcechunkStore>;
  /** The id of the snapshot read now. */
  readonly snapshotId: string;
  /** The repository's Icechunk spec version (1 or 2). */
  readonly specVersion: number;
  /** The store the repository's files are read from. */
  readonly source: Store;
  /** Requests and bytes the source counts (a FetchStore's), with those of virtual chunks. */
  readonly requests: number | undefined;
  readonly bytes: number | undefined;
  /** The repository's branches now, sorted by name. */
  branches(options?: GetOptions): Promise<IcechunkRef[]>;
  /** The repository's tags now, sorted by name. */
  tags(options?: GetOptions): Promise<IcechunkRef[]>;
  /** This snapshot and its ancestors, newest first. */
  ancestry(options?: GetOptions): Promise<IcechunkSnapshot[]>;
  /**
   * Opens the version again: a branch's head as it is now (a tag or a
   * snapshot stays). What was opened before keeps its snapshot. Resolves to
   * this store.
   */
  refresh(options?: GetOptions): Promise<IcechunkStore>;
  get(key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery | { offset: number }, options?: GetOptions): Promise<Uint8Array | undefined>;
  list(prefix?: AbsolutePath): Promise<string[]>;
}

// ---- data -----------------------------------------------------------------

/** JSON values as attributes hold them (integers beyond 2^53 as bigint, NaN/Infinity as numbers). */
export type JSONValue = null | boolean | number | bigint | string | JSONValue[] | { [key: string]: JSONValue };
export type Attributes = { [key: string]: JSONValue };

/**
 * The elements of a result, by data type: bool → Uint8Array (0/1); ints and
 * floats → their TypedArray; int64/uint64/datetime/timedelta →
 * BigInt64Array/BigUint64Array; float16, bfloat16, float8 → Float32Array;
 * complex → Float32Array/Float64Array interleaved (re, im); S, U, vlen-utf8,
 * string → string[]; vlen-bytes/bytes, V and raw bits → Uint8Array[];
 * object (json2 etc.) → JSON values; structured → an object of such arrays
 * by field name (nested structs nest; a subarray field adds its dimensions);
 * optional(T) (zarrs' optional type) → {data, mask} for a fixed-size T (mask
 * 1 where a value is present), an array with null where a value is missing
 * for string or bytes.
 */
export type Data =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array
  | string[]
  | Uint8Array[]
  | JSONValue[]
  | (string | null)[]
  | (Uint8Array | null)[]
  | StructData;

export interface StructData {
  [field: string]: Data;
}

/** Data types whose elements read as one JS number each. */
export type NumberDataType =
  | "int8" | "int16" | "int32" | "uint8" | "uint16" | "uint32"
  | "float16" | "float32" | "float64" | "bfloat16"
  | `float8_${string}` | `float6_${string}` | `float4_${string}`
  | "int2" | "int4" | "uint2" | "uint4";
/** Data types whose elements read as bigint: 64-bit integers, datetimes and timedeltas (int64 ticks). */
export type BigintDataType = "int64" | "uint64" | `datetime64[${string}]` | `timedelta64[${string}]`;
/**
 * Complex numbers, read as interleaved (re, im) parts: complex128 in a
 * Float64Array, the others in a Float32Array (the narrower parts of the
 * extension registry's complex_bfloat16, complex_float16 and
 * complex_float8/6/4 types widened exactly, rounded to nearest on write).
 */
export type ComplexDataType =
  | "complex64" | "complex128" | "complex_float32" | "complex_float64"
  | "complex_bfloat16" | "complex_float16"
  | `complex_float8_${string}` | `complex_float6_${string}` | `complex_float4_${string}`;
/** Strings: v3 string and v2 vlen-utf8 objects, fixed-size Unicode (v2:U) and bytes (v2:S). */
export type StringDataType = "string" | `v2:U${number}` | `v2:S${number}`;
/** Variable-length bytes, and raw fixed-size bytes (r<bits>, NumPy V). */
export type BytesDataType = "bytes" | `r${number}`;
/** Arrays of JSON values: v2 object arrays (json2, msgpack2) and the registry's v3 "json" type. */
export type ObjectDataType = "v2:object" | "json";
/** zarrs' optional type over another ("optional(float32)", "optional(string)"). */
export type OptionalDataType = `optional(${string})`;

/**
 * A data type's name, the same for every Zarr format (arr.dtype): the v3
 * name where there is one, NumPy's for datetimes, zarrita.js's for
 * fixed-size strings and objects; "struct" for structured types (which
 * arr.dtype describes as a StructDataType).
 */
export type DataTypeName = "bool" | NumberDataType | BigintDataType | ComplexDataType | StringDataType | BytesDataType | ObjectDataType | OptionalDataType | "struct";

/** A structured data type as arr.dtype describes it (create() takes it too). */
export interface StructDataType {
  name: "struct";
  fields: Array<{ name: string; dtype: DataTypeName | StructDataType; shape?: number[] }>;
}

/** arr.dtype for an array of data type D. */
export type DTypeOf<D extends DataTypeName> = D extends "struct" ? StructDataType : D;

/** The `data` of a read of an array of data type D. */
// prettier-ignore
export type TypedArrayFor<D extends DataTypeName> =
  D extends "bool" | "uint8" | "uint2" | "uint4" ? Uint8Array
  : D extends "int8" | "int2" | "int4" ? Int8Array
  : D extends "int16" ? Int16Array
  : D extends "uint16" ? Uint16Array
  : D extends "int32" ? Int32Array
  : D extends "uint32" ? Uint32Array
  : D extends "float64" | "complex128" | "complex_float64" ? Float64Array
  : D extends NumberDataType | ComplexDataType ? Float32Array
  : D extends "uint64" ? BigUint64Array
  : D extends BigintDataType ? BigInt64Array
  : D extends StringDataType ? string[]
  : D extends BytesDataType ? Uint8Array[]
  : D extends ObjectDataType ? JSONValue[]
  : D extends "struct" ? StructData
  : D extends "optional(string)" ? (string | null)[]
  : D extends "optional(bytes)" ? (Uint8Array | null)[]
  : D extends OptionalDataType ? StructData
  : Data;

/** One element of an array of data type D, as zarr.get() gives it for an all-integer selection. */
// prettier-ignore
export type Scalar<D extends DataTypeName> =
  D extends "bool" ? boolean
  : D extends ComplexDataType ? [number, number]
  : D extends NumberDataType ? number
  : D extends BigintDataType ? bigint
  : D extends StringDataType ? string
  : D extends BytesDataType ? Uint8Array
  : D extends ObjectDataType ? JSONValue
  : D extends "struct" ? { [field: string]: unknown }
  : unknown;

/** The queries of arr.is(): a name, or a family of names. */
export type DataTypeQuery = DataTypeName | "number" | "bigint" | "boolean" | "string" | "object";

/** The data types a query matches. */
// prettier-ignore
export type NarrowDataType<D extends DataTypeName, Q extends DataTypeQuery> =
  Q extends "number" ? Extract<D, NumberDataType>
  : Q extends "bigint" ? Extract<D, BigintDataType>
  : Q extends "boolean" ? Extract<D, "bool">
  : Q extends "string" ? Extract<D, StringDataType>
  : Q extends "object" ? Extract<D, ObjectDataType>
  : Extract<D, Q> extends never ? (Q extends D ? Q : never) : Extract<D, Q>;

/** A result: the elements in C order, its shape, and C-order strides (in elements). */
export interface Chunk<D = Data> {
  data: D;
  shape: number[];
  stride: number[];
}

export interface Slice {
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number | null;
}

/** slice(stop) or slice(start, stop, step); null for an open end. */
export declare function slice(stop: number | null): Slice;
export declare function slice(start: number | null, stop: number | null, step?: number | null): Slice;

/**
 * A selection: null/undefined (everything), a NumPy-style string
 * ("0:10, :, 3", "...", "::4, ::4"), or one entry per dimension (trailing
 * ones may be left out): a number (negative counts from the end; the
 * dimension is dropped), null (the whole dimension), "..." or a slice.
 */
export type Selection = null | undefined | string | number | Slice | Array<number | null | Slice | "...">;

/** A value for set(): a scalar (broadcast), elements in C order with the selection's shape, or {data, shape}. */
export type Value =
  | number
  | bigint
  | boolean
  | string
  | Uint8Array
  | ArrayLike<unknown>
  | Data
  | { [field: string]: unknown }
  | { data: unknown; shape: number[] };

/** How values of an array's data type look in JS. */
export interface DataTypeInfo {
  /** TypedArray name, or "string" | "bytes" | "object" | "struct". */
  js: string;
  /** TypedArray items per element (2 for complex). */
  items?: number;
  /** The data type as stored: the v2 typestr or descr list, the v3 data_type (absent for fields). */
  stored?: JSONValue;
  /** Element size in bytes (fixed-size types). */
  size?: number;
  fields?: Array<{ name: string; shape: number[]; type: DataTypeInfo }>;
}

export interface CodecConfig {
  name: string;
  configuration?: { [key: string]: JSONValue };
}

/** A place in a store: the store and an absolute path ("/", "/a/b"), as zarrita.js's Location. */
export declare class Location<S = Store> {
  constructor(store: S, path?: string);
  readonly store: S;
  /** Absolute: "/" for the root. */
  readonly path: AbsolutePath;
  /** path relative to this location (absolute when it starts with "/"; "." and ".." work as in URLs). */
  resolve(path: string): Location<S>;
}

/** The root of a store (a new Map when none is given). */
export declare function root<S extends Store>(store: S): Location<S>;
export declare function root(): Location<Map<string, Uint8Array>>;

/** One entry of a node's "zarr_conventions" attribute; id is its uuid, else schema_url, else spec_url. */
export interface Convention {
  id: string;
  uuid?: string;
  schema_url?: string;
  spec_url?: string;
  name?: string;
  description?: string;
}

/** The conventions an attributes object declares (node.conventions). */
export declare function conventionsOf(attrs: Attributes): Convention[];

declare abstract class ZarrNode {
  readonly kind: "array" | "group";
  /** Path inside the store, without a leading "/" ("" for the root). */
  readonly path: string;
  readonly name: string;
  readonly zarrFormat: 1 | 2 | 3;
  readonly attrs: Attributes;
  /**
   * The Zarr conventions the attributes declare ("zarr_conventions"),
   * entries that break the conventions specification left out.
   */
  readonly conventions: Convention[];
  readonly store: Store;
  /** The location of path relative to this node, for open() and create(). */
  resolve(path: string): Location;
  /** Replaces the attributes. */
  setAttrs(attrs: Attributes): Promise<Attributes>;
  /** Merges into the attributes. */
  updateAttrs(attrs: Attributes): Promise<Attributes>;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Chunks fetched and decoded at once (default 16, or the store's `concurrency` such as FetchStore's). */
  concurrency?: number;
  /**
   * false: not a pooled read even with useWorkers (the engine reads on this
   * thread; it may still hand bz2 and lzma chunks to the pool). A pooled
   * read's `data` may be backed by a SharedArrayBuffer.
   */
  workers?: boolean;
}

/** An array whose data type is D (DataTypeName until narrowed by is(), open's dtype option, or create). */
export declare class ZarrArray<D extends DataTypeName = DataTypeName> extends ZarrNode {
  readonly kind: "array";
  readonly shape: number[];
  readonly ndim: number;
  /** The chunks a read decodes: the inner chunks of a sharded array; null for a variable grid. */
  readonly chunks: number[] | null;
  /** Shard shape of a sharded array, else null. */
  readonly shards: number[] | null;
  /** Per-dimension chunk sizes of a variable (rectilinear) grid. */
  readonly chunkSizes: Array<number[] | null> | null;
  /** The data type's name, the same for every format (structured types described); as stored: dataType.stored. */
  readonly dtype: DTypeOf<D>;
  /** Fill value: number, bigint (64-bit ints), boolean, string, [re, im], an object for structs, or null. */
  readonly fillValue: unknown;
  /** The codec chain in v3 form. */
  readonly codecs: CodecConfig[];
  /** Memory order of stored chunks. */
  readonly order: "C" | "F";
  /** v3 dimension_names or v2 _ARRAY_DIMENSIONS (null for an unnamed dimension); null when there are none. */
  readonly dimensionNames: Array<string | null> | null;
  readonly dataType: DataTypeInfo;
  /** The metadata document as stored (.zarray, zarr.json or v1 meta), with the current shape. */
  readonly metadata: { [key: string]: JSONValue };
  /** Whether the data type is Q (a name, or "number", "bigint", "boolean", "string", "object"); narrows the array's type. */
  is<Q extends DataTypeQuery>(query: Q): this is ZarrArray<NarrowDataType<D, Q>>;
  get(selection?: Selection, options?: ReadOptions): Promise<Chunk<TypedArrayFor<D>>>;
  set(selection: Selection, value: Value, options?: { signal?: AbortSignal }): Promise<void>;
  /** Changes the shape (null keeps a dimension), with TensorStore's resize modes. */
  resize(shape: Array<number | null>, options?: ResizeOptions): Promise<void>;
  /** TensorStore's Schema of the array (for an array from openSpec, of its field and transform). */
  readonly schema: TensorStoreSchema;
  /** The TensorStore spec that reopens the array, with its complete metadata. */
  spec(): TensorStoreSpec;
  /**
   * One chunk of those a read decodes (`chunks`: a sharded array's inner
   * chunks), by its coordinates, decoded at its full shape (the fill value
   * where the store has none).
   */
  getChunk(coords: number[], options?: { signal?: AbortSignal }): Promise<Chunk<TypedArrayFor<D>>>;
  /** Decodes the stored bytes of a chunk: the pure step, no store access (for worker pools). */
  decodeChunk(coords: number[], bytes: Uint8Array): Promise<Chunk<TypedArrayFor<D>>>;
  /** The store key of a chunk ("/path/c/0/1"). */
  chunkKey(coords: number[]): Promise<string>;
}

export interface ResizeOptions {
  /** Fail if a dimension would shrink. */
  expandOnly?: boolean;
  /** Fail if a dimension would grow. */
  shrinkOnly?: boolean;
  /** Write the new shape only; chunks outside it are not deleted. */
  resizeMetadataOnly?: boolean;
}

/** A bound of an index domain: n, or [n] when implicit (resizable). */
export type IndexBound = number | [number];

/** An index domain (TensorStore's IndexDomain JSON; output uses inclusive_min and exclusive_max). */
export interface IndexDomain {
  inclusive_min?: IndexBound[];
  exclusive_max?: IndexBound[];
  inclusive_max?: IndexBound[];
  shape?: IndexBound[];
  labels?: string[];
  rank?: number;
}

/** Constraints on a chunk grid (TensorStore's ChunkLayout/Grid). */
export interface ChunkGrid {
  shape?: Array<number | null>;
  shape_soft_constraint?: Array<number | null>;
  aspect_ratio?: Array<number | null>;
  aspect_ratio_soft_constraint?: Array<number | null>;
  elements?: number | null;
  elements_soft_constraint?: number | null;
}

/** TensorStore's ChunkLayout JSON (output has grid_origin, inner_order, read_chunk and write_chunk shapes). */
export interface ChunkLayout {
  rank?: number;
  grid_origin?: Array<number | null>;
  grid_origin_soft_constraint?: Array<number | null>;
  inner_order?: number[];
  inner_order_soft_constraint?: number[];
  chunk?: ChunkGrid;
  read_chunk?: ChunkGrid;
  write_chunk?: ChunkGrid;
  codec_chunk?: ChunkGrid;
}

/** TensorStore's Schema JSON. */
export interface TensorStoreSchema {
  rank: number;
  dtype: string;
  domain: IndexDomain;
  chunk_layout: ChunkLayout;
  codec: { driver: string; [member: string]: JSONValue };
  /** Absent when the array has no fill value (v2 "fill_value": null). */
  fill_value?: JSONValue;
  dimension_units?: Array<string | null>;
}

/** A kvstore in a TensorStore spec. */
export type KvStoreSpec =
  | { driver: "memory"; path?: string }
  | { driver: "file"; path: string }
  | { driver: "http"; base_url: string; path?: string; headers?: string[] }
  | { driver: "s3"; bucket: string; path?: string; endpoint?: string; aws_region?: string }
  | { driver: "gcs"; bucket: string; path?: string };

/**
 * A TensorStore spec of the zarr2 ("zarr") or zarr3 driver. In JS, kvstore
 * may also be a store object (MemoryStore, FetchStore, ...), with `path`
 * the array's path inside it.
 */
export interface TensorStoreSpec {
  driver: "zarr2" | "zarr" | "zarr3";
  kvstore?: KvStoreSpec | string | Store;
  path?: string;
  open?: boolean;
  create?: boolean;
  delete_existing?: boolean;
  assume_metadata?: boolean;
  assume_cached_metadata?: boolean;
  /** The .zarray (zarr2) or zarr.json (zarr3) members to require, or to create with. */
  metadata?: { [member: string]: JSONValue };
  metadata_key?: string;
  key_encoding?: "." | "/";
  field?: string | null;
  dtype?: string;
  rank?: number;
  schema?: Partial<TensorStoreSchema> & { [member: string]: JSONValue };
  transform?: { [member: string]: JSONValue };
  fill_missing_data_reads?: boolean;
  store_data_equal_to_fill_value?: boolean;
  cache_pool?: string | { total_bytes_limit?: number };
  recheck_cached_data?: boolean | "open" | number;
  recheck_cached_metadata?: boolean | "open" | number;
  context?: { [resource: string]: JSONValue };
  open_as_void?: boolean;
  metadata_cache_pool?: JSONValue;
  allow_metadata_mismatch?: false;
}

/**
 * Opens or creates the array a TensorStore spec describes: a spec object or
 * a TensorStore URL ("file:///data/a.zarr|zarr2:", "memory://|zarr2:x",
 * "http://host/data.zarr/|zarr2:", "s3://bucket/a.zarr/|zarr3:"). The
 * "memory" kvstore is one store per engine; "file" needs Node; "http", "s3"
 * and "gcs" go through FetchStore (options: its FetchStoreOptions, such as
 * credentials).
 */
export declare function openSpec(spec: TensorStoreSpec | string, options?: { signal?: AbortSignal } & FetchStoreOptions): Promise<ZarrArray>;

/** The store behind the "memory" kvstore (read-only from JS). */
export declare function memoryKvStore(): Promise<Readable & Listable>;

export interface Child {
  name: string;
  path: string;
  /** "unknown" for a child that exists but cannot be opened; see error. */
  kind: "array" | "group" | "unknown";
  node: ZarrArray<DataTypeName> | ZarrGroup | null;
  /** Why the child cannot be opened (kind "unknown" only). */
  error?: ZarrError;
}

export declare class ZarrGroup extends ZarrNode {
  readonly kind: "group";
  /** Whether the hierarchy is read from consolidated metadata (a v2 group looks for its .zmetadata at its first children() or open(): false until then). */
  readonly consolidated: boolean;
  /** Arrays and groups directly inside (needs list() on the store, or consolidated metadata). */
  children(options?: { signal?: AbortSignal }): Promise<Child[]>;
  open<Q extends DataTypeQuery>(path: string, options: { kind: "array"; dtype: Q; signal?: AbortSignal }): Promise<ZarrArray<NarrowDataType<DataTypeName, Q>>>;
  open(path: string, options: { kind: "array"; signal?: AbortSignal }): Promise<ZarrArray<DataTypeName>>;
  open(path: string, options: { kind: "group"; signal?: AbortSignal }): Promise<ZarrGroup>;
  open(path: string, options?: { kind?: "array" | "group"; signal?: AbortSignal }): Promise<ZarrArray<DataTypeName> | ZarrGroup>;
}

export interface OpenOptions extends FetchStoreOptions {
  /** Path below the store or location. */
  path?: string;
  /**
   * Keep this node's (and its children's) decoded chunks in a cache pool of
   * its own of this many bytes (0: no cache). Without it, the default pool
   * (setCacheBytes; off until given a size).
   */
  cacheBytes?: number;
  /**
   * When a cached chunk is confirmed with the store before use, as
   * TensorStore's recheck_cached_data: true (default; a conditional request,
   * an HTTP 304 carries no body), false (never), "open" (chunks cached
   * before this open, once), or a number of seconds.
   */
  recheck?: boolean | "open" | number;
  kind?: "array" | "group";
  /** Checks the array's data type at run time (a name or a family, as arr.is()) and narrows its type. */
  dtype?: DataTypeQuery;
  /** Opens only this format (v1 counts as 2): what open.v2 and open.v3 do. */
  zarrFormat?: 1 | 2 | 3;
  /** zarrita.js's option: false gives a v1/v2 node empty attributes (its .zattrs left out). */
  attrs?: boolean;
  signal?: AbortSignal;
}

/**
 * Where open() and create() are aimed: a store (with options.path), a
 * location or node (options.path relative to it), or a location string or
 * URL ("s3://bucket/x.zarr", "gs://…", "https://…", a .zip, a reference
 * set: the store storeFromUrl makes, given the FetchStoreOptions among the
 * call's options).
 */
export type Target = Store | Location<any> | ZarrGroup | string | URL;

/**
 * What open() also takes: a URL, or a URL pipeline such as
 * "https://host/data.zip|zip:path/in/zip|zarr3:group/array" (see locate).
 */
export type OpenTarget = Target | string | URL;

export interface OpenFunction {
  <Q extends DataTypeQuery>(where: OpenTarget, options: OpenOptions & { kind: "array"; dtype: Q }): Promise<ZarrArray<NarrowDataType<DataTypeName, Q>>>;
  (where: OpenTarget, options: OpenOptions & { kind: "array" }): Promise<ZarrArray<DataTypeName>>;
  (where: OpenTarget, options: OpenOptions & { kind: "group" }): Promise<ZarrGroup>;
  (where: OpenTarget, options?: OpenOptions | string): Promise<ZarrArray<DataTypeName> | ZarrGroup>;
}

/**
 * Opens an array or group (Zarr v1, v2, v3; consolidated metadata is used
 * when present). open.v2 and open.v3 open only that format (v1 counts as v2).
 */
export declare const open: OpenFunction & { v2: OpenFunction; v3: OpenFunction };

/**
 * Options of create(): the package's names, with zarr-python 3's
 * create_array names and zarrita.js's beside them (each alias says which
 * option it is; giving two names of one option that disagree is an
 * error). Any other name is refused (INVALID_ARGUMENT).
 */
export interface CreateOptions extends FetchStoreOptions {
  path?: string;
  /** "group": create a group (as without shape and dtype). */
  kind?: "array" | "group";
  shape: number[];
  /** Chunk shape; default: chosen as zarr-python does. Also zarrita.js's `chunkShape`. */
  chunks?: number[];
  /** zarrita.js's name for `chunks`. */
  chunkShape?: number[];
  /** A name ("float32", "datetime64[ns]", "v2:U5"), a v2 typestr ("<f4", "|S5", "<M8[ns]"), a structured descr list or StructDataType. */
  dtype: DataTypeName | (string & {}) | StructDataType | Array<[string, unknown] | [string, unknown, number[]]>;
  /** null: no fill value. Also zarr-python 3's `fill_value`. */
  fill_value?: unknown;
  /** null: no fill value (v2 "fill_value": null). NaN/±Infinity and bigint are kept exactly. */
  fillValue?: unknown;
  /** 3 (default) or 2. */
  zarrFormat?: 2 | 3;
  /** zarr-python 3's name for `zarrFormat`. */
  zarr_format?: 2 | 3;
  /** v3: the whole codec chain ([{name, configuration}]); zarrita.js's name too. */
  codecs?: CodecConfig[];
  /** v2 compressor (numcodecs config); null stores chunks uncompressed. */
  compressor?: { id: string; [key: string]: unknown } | null;
  /**
   * zarr-python 3: v3, the bytes→bytes codecs ending the chain (default
   * zstd); v2, one numcodecs compressor. null or []: none; "auto": the default.
   */
  compressors?: CodecConfig | CodecConfig[] | { id: string; [key: string]: unknown } | Array<{ id: string; [key: string]: unknown }> | null | "auto";
  /** zarr-python 3, v3 only: the array→bytes codec (default bytes, or vlen-utf8 / vlen-bytes). */
  serializer?: CodecConfig | "auto";
  /** v2: filters (numcodecs configs); v3 (as zarr-python 3): the array→array codecs starting the chain. */
  filters?: Array<{ id: string; [key: string]: unknown }> | CodecConfig[] | null | "auto";
  order?: "C" | "F";
  /** Chunk key separator: "." or "/". */
  dimensionSeparator?: "." | "/";
  /** zarrita.js's name for `dimensionSeparator`. */
  chunkSeparator?: "." | "/";
  /**
   * zarr-python 3's chunk key encoding: v3 {name: "default", separator?}
   * (default "/"), v2 {name: "v2", separator?} (default "."): the same as
   * dimensionSeparator.
   */
  chunk_key_encoding?: { name: "default" | "v2"; separator?: "." | "/" };
  attributes?: Attributes;
  /** v3: store chunks inside shards of this shape. */
  shardShape?: number[];
  /** zarr-python 3's name for `shardShape` (and the name arr.shards reads it back by). */
  shards?: number[];
  /** v3: every dimension's chunk sizes (a rectilinear grid). */
  chunkSizes?: Array<number[] | null>;
  dimensionNames?: Array<string | null>;
  /** zarr-python 3's name for `dimensionNames`. */
  dimension_names?: Array<string | null>;
  overwrite?: boolean;
  writeEmptyChunks?: boolean;
  signal?: AbortSignal;
}

/** The data type a create() dtype option gives: its name, for names and v2 typestrs this package maps. */
// prettier-ignore
export type CreatedDataType<T> =
  T extends DataTypeName ? T
  : T extends StructDataType | Array<unknown> ? "struct"
  : T extends `${"<" | ">" | "|" | "="}${infer C}` ? TypestrName<C>
  : DataTypeName;
// prettier-ignore
type TypestrName<C extends string> =
  C extends "b1" ? "bool" : C extends "i1" ? "int8" : C extends "u1" ? "uint8"
  : C extends "i2" ? "int16" : C extends "u2" ? "uint16" : C extends "i4" ? "int32" : C extends "u4" ? "uint32"
  : C extends "i8" ? "int64" : C extends "u8" ? "uint64" : C extends "f2" ? "float16" : C extends "f4" ? "float32"
  : C extends "f8" ? "float64" : C extends "c8" ? "complex64" : C extends "c16" ? "complex128"
  : C extends `U${infer N extends number}` ? `v2:U${N}` : C extends `S${infer N extends number}` ? `v2:S${N}`
  : C extends "O" ? "v2:object" : DataTypeName;

/**
 * Creates an array (and missing parent groups); returns it opened, typed
 * by its dtype. Without shape and dtype (zarrita's create(location, {attributes})) it creates a group.
 */
export declare function create<const T extends CreateOptions["dtype"]>(where: Target, options: CreateOptions & { dtype: T }): Promise<ZarrArray<CreatedDataType<T>>>;
export declare function create(where: Target, options?: GroupOptions): Promise<ZarrGroup>;

/** Options of createGroup() (and of create() making a group). */
export interface GroupOptions extends FetchStoreOptions {
  path?: string;
  kind?: "group";
  attributes?: Attributes;
  zarrFormat?: 2 | 3;
  /** zarr-python 3's name for `zarrFormat`. */
  zarr_format?: 2 | 3;
  overwrite?: boolean;
  signal?: AbortSignal;
}

/** Creates a group (and missing parents). */
export declare function createGroup(where: Target, options?: GroupOptions): Promise<ZarrGroup>;

// ---- zarrita.js-style functions --------------------------------------------

/** True when every item of a selection is an integer: get() then gives one element. */
type AllIntegers<S> = S extends readonly number[] ? (number[] extends S ? false : true) : false;

/**
 * Reads a selection as zarrita.js's get(): one element (Scalar) when every
 * dimension is indexed by an integer, else {data, shape, stride}.
 */
export declare function get<D extends DataTypeName, const S extends Array<number | null | Slice> | null | undefined = null>(
  arr: ZarrArray<D>,
  selection?: S,
  options?: ReadOptions,
): Promise<AllIntegers<S> extends true ? Scalar<D> : Chunk<TypedArrayFor<D>>>;

/** Writes a selection as zarrita.js's set(): a scalar, or {data, shape, stride?} (any strides). */
export declare function set<D extends DataTypeName>(
  arr: ZarrArray<D>,
  selection: Array<number | null | Slice> | null,
  value: Value | { data: unknown; shape: number[]; stride?: number[] },
  options?: { signal?: AbortSignal },
): Promise<void>;

/** A selection by dimension name (zarrita.js's select): names left out are taken whole. */
export declare function select(arr: ZarrArray<DataTypeName>, selection: { [dimension: string]: number | Slice | null }): Array<number | Slice | null>;

/** A store whose metadata reads come from consolidated metadata (withConsolidatedMetadata). */
export interface ConsolidatedStore extends Readable {
  /** Every node the consolidated metadata lists, sorted by path. */
  contents(): Array<{ path: AbsolutePath; kind: "array" | "group" }>;
}

export interface ConsolidatedMetadataOptions {
  /** "v2" (.zmetadata, the default), "v3" (inline in the root zarr.json), or several tried in order. */
  format?: "v2" | "v3" | Array<"v2" | "v3">;
  /** The v2 document's key (".zmetadata"). */
  metadataKey?: string;
  signal?: AbortSignal;
}

/**
 * As zarrita's withConsolidatedMetadata: a store in front of `store` that
 * answers metadata reads from the hierarchy's consolidated metadata (no
 * request per node) and lists it with contents(). NOT_FOUND when there is none.
 */
export declare function withConsolidatedMetadata(store: Readable, options?: ConsolidatedMetadataOptions): Promise<ConsolidatedStore>;
/** withConsolidatedMetadata, or `store` itself when it has no consolidated metadata. */
export declare function withMaybeConsolidatedMetadata<S extends Readable>(store: S, options?: ConsolidatedMetadataOptions): Promise<ConsolidatedStore | S>;

/**
 * Writes consolidated metadata for the hierarchy at path (the root by
 * default; .zmetadata for v2, inline consolidated_metadata for v3) and
 * opens the group through it. The store must list and write.
 */
export declare function consolidate(where: Store | Location<any>, path?: string): Promise<ZarrGroup>;

export { ZarrArray as Array, ZarrGroup as Group };

/** Where a build of the engine comes from: a URL, a Response, the bytes or a compiled module. */
export type WasmSource = string | URL | Response | Promise<Response> | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

/**
 * Starts the engine (otherwise the first call does). The engine has two
 * builds: zarr-core.wasm (reading, the common codecs) starts first, and
 * zarr.wasm (everything: writing, bz2, lzma, pcodec, ZFP, TIFF codecs,
 * reference sets, TensorStore specs) when something needs it. Pass where
 * they come from when a bundler or CDN moves them: `source` for the first,
 * `options.full` for the full build, `options.codecs` for the decoders'
 * module (lib/codecs.wasm: libzstd, libdeflate, Blosc); `options.engine: "full"`
 * starts the full build at once (and `source` is then the full build).
 */
export declare function init(source?: WasmSource, options?: { full?: WasmSource; icechunk?: WasmSource; codecs?: WasmSource; engine?: "core" | "full" }): Promise<void>;

/** The compiled module once started (to instantiate it again in a worker). */
export declare function wasmModule(): WebAssembly.Module | null;

/** The pool of decode workers (see useWorkers). */
export interface DecodePool {
  /** Number of workers. */
  readonly size: number;
  /** Whether reads shared with the workers write into a SharedArrayBuffer (else decoded chunks are transferred back and copied). */
  readonly shared: boolean;
  /**
   * decoded: chunks each worker decoded; declined: chunks a worker's
   * decoder declined (the engine decoded them on this thread, or reported
   * them); here: chunks of reads shared with the workers that this thread
   * decoded itself; reads: reads shared with the workers.
   */
  stats(): { decoded: number[]; declined: number; here: number; reads: number };
}

/**
 * Sets the pool of decode workers (Web Workers in browsers, worker threads
 * in Node). The pool is on by default where the machine has more than one
 * core: `count` workers (default: the cores less one, at most 7), each
 * running only the package's decoders module (libzstd, libdeflate, Blosc:
 * nothing more to download), start on the first read that is worth them —
 * one the engine's plan finds decodes at least 16 MiB with those decoders
 * (zstd, zlib, gzip, Blosc without bitshuffle), in two chunks or more of
 * 64 KiB or more on average; `minBytes` replaces that threshold (0: every
 * read of two chunks or more). In such a read this thread fetches the
 * chunks and decodes some itself while the workers decode the others and
 * write them into the result: a SharedArrayBuffer where there is one
 * (Node; a cross-origin isolated page; `shared: false` turns it off), else
 * each decoded chunk is transferred back and copied here. Chunks of other
 * codecs are decoded on this thread. Values and errors are the same with
 * or without workers (a chunk a worker cannot decode is decoded here and
 * reported as without them). Resolves when the workers are ready;
 * `useWorkers(0)` turns decoding in workers off. Idle workers do not keep
 * Node running.
 */
export declare function useWorkers(count?: number, options?: { minBytes?: number; shared?: boolean | "auto" }): Promise<DecodePool>;

/**
 * The pool of decode workers as it stands (size 0 until a read worth it
 * started one, or after useWorkers(0)); `unavailable` says why no worker
 * could start here (no Worker, a script the page's policy blocks), if so.
 */
export declare function workerPool(): DecodePool & { unavailable?: string };

// Opening what a user names: a URL of any kind, picked or dropped files.
export { storeFromUrl, locate, type StoreFromUrlOptions, type LocateOptions } from "./lib/sources.js";
export { FileListStore, BlobStore } from "./lib/files.js";

// ---- the chunk cache -------------------------------------------------------

/** Counters of a cache pool. */
export interface CacheStats {
  /** Reads answered from the pool without asking the store. */
  hits: number;
  /** Cached chunks the store confirmed unchanged (a 304). */
  revalidated: number;
  /** Chunks (or shard indexes, inner chunks) fetched and decoded. */
  misses: number;
  evictions: number;
  entries: number;
  bytes: number;
  limit: number;
}

/** The requests the engine made of a JS store object. */
export interface StoreStats {
  get: number;
  getRange: number;
  set: number;
  delete: number;
  list: number;
  /** Versioned reads answered notModified. */
  notModified: number;
  /** Bytes received. */
  bytes: number;
}

/** Sets the size of the default cache pool (0, the default: no cache). */
export declare function setCacheBytes(bytes: number): Promise<void>;
/** Counters of the pool `array` uses, or of the default pool. */
export declare function cacheStats(array?: ZarrArray<any>): Promise<CacheStats>;
/** Empties the pool `array` uses, or the default pool. */
export declare function clearCache(array?: ZarrArray<any>): Promise<void>;
/** The requests zarr-wasm made of a JS store since it was first opened, by the engine and by reads run on the calling thread (null: not seen, or a store inside the engine). */
export declare function storeStats(store: object): Promise<StoreStats | null>;
