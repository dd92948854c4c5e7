// Decoders the package runs itself, faster than the engine's Go decoders
// compiled to WebAssembly: libzstd's decompressor, libdeflate's zlib and
// gzip decompressor and a Blosc decoder (glue.c), built to one small WebAssembly module,
// lib/codecs.wasm, by npm/codecs/build.sh. The runtime hands them to the
// engine as host decoders (called synchronously). Whenever one declines
// (returns null: not loaded, corrupt data, more than `max` bytes), the Go
// decoder decodes and reports, so errors stay the engine's. The encoders
// (libzstd's compressor, zlib's deflate) are a second module,
// lib/codecs-encode.wasm, loaded only when the engine's full build (the
// one that writes) starts.

const isNode = typeof process === "object" && process !== null && !!process.versions?.node;

// (Literal new URL(..., import.meta.url) forms, so bundlers emit the files.)
const decodersURL = () => new URL("./codecs.wasm", import.meta.url);
const encodersURL = () => new URL("./codecs-encode.wasm", import.meta.url);

/**
 * Compiles a module from a URL (read from disk in Node for file: URLs, else
 * fetched, and streamed when served as application/wasm), a Response (or a
 * promise of one), bytes, or takes a compiled WebAssembly.Module as it is.
 */
async function compileSource(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  if (typeof source === "string" || source instanceof URL) {
    const url = source instanceof URL ? source : new URL(source, globalThis.location?.href ?? import.meta.url);
    if (url.protocol === "file:") {
      const fsName = "node:fs/promises";
      const urlName = "node:url";
      const [{ readFile }, { fileURLToPath }] = await Promise.all([import(/* @vite-ignore */ fsName), import(/* @vite-ignore */ urlName)]);
      return WebAssembly.compile(await readFile(fileURLToPath(url)));
    }
    source = fetch(url);
  }
  const res = await source;
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${res.url}`);
  const type = res.headers.get("Content-Type") || "";
  if (typeof WebAssembly.compileStreaming === "function" && type.startsWith("application/wasm")) return WebAssembly.compileStreaming(res);
  return WebAssembly.compile(await res.arrayBuffer());
}

async function instantiate(module) {
  const instance = await WebAssembly.instantiate(module, {});
  instance.exports._initialize();
  return instance.exports;
}

/** @type {any} the module's exports once instantiated */
let wasm = null;
let loading = null;
/** @type {Promise<WebAssembly.Module | null> | null} the decoders' compiled module (null: compile it when asked) */
let compiled = null;

// In Node's main thread the decoders' file is read and compiled as the
// package loads, beside the core build (runtime.js); decode workers are
// handed the compiled module instead (useCodecsModule).
if (isNode) {
  const name = "node:worker_threads";
  compiled = import(/* @vite-ignore */ name).then(({ isMainThread }) => (isMainThread ? compileSource(decodersURL()) : null)).catch(() => null);
}
/** Settles when the early compilation of the decoders' module is over: true when it gave a module (for tests). */
const earlyDone = compiled ? compiled.then((m) => !!m) : Promise.resolve(false);
export function earlyCodecsCompilation() {
  return earlyDone;
}

/**
 * Where the decoders come from, before they load (init's options.codecs: a
 * URL, a Response, bytes or a compiled module; decode workers are handed
 * the main thread's module).
 */
export function useCodecsModule(source) {
  if (loading || source === undefined || source === null) return;
  const module = compileSource(source);
  module.catch(() => {});
  compiled = module;
}

/** The decoders' compiled module, compiling it if need be (rejects when it cannot be loaded). */
export function codecsModule() {
  const module = (compiled ?? Promise.resolve(null)).then((m) => m ?? compileSource(decodersURL()));
  compiled = module.catch(() => null); // (a failure is tried again next time)
  return module;
}

/** Instantiates the module once (fetched or read beside this file); resolves to whether it is available. */
export function loadCodecs() {
  loading ??= codecsModule()
    .then(instantiate)
    .then(
      (exports) => ((wasm = exports), true),
      () => false,
    );
  return loading;
}

/** @type {any} the encoders' exports once instantiated */
let enc = null;
let loadingEncoders = null;

/** Loads the encoders' module once (a separate file, fetched on first use); resolves to whether it is available. */
export function loadEncoders() {
  loadingEncoders ??= compileSource(encodersURL())
    .then(instantiate)
    .then(
      (exports) => ((enc = exports), true),
      () => false,
    );
  return loadingEncoders;
}

/** Counts, for tests and the curious: chunks decoded here, and declined. */
export const codecStats = { decoded: 0, declined: 0 };

/**
 * Runs fn(srcPtr, srcLen) with src copied into the module; fn returns
 * [dstPtr, size] or null. Returns a copy of the output, or null.
 */
function withInput(src, max, fn) {
  const w = wasm;
  // Only chunks of a known size: a few hostile bytes can declare a gigabyte,
  // and WebAssembly memory never shrinks (the Go decoders check such input
  // before allocating). (libzstd and libdeflate take nothing as an empty stream;
  // the engine does not.)
  if (!w || src.length === 0 || !(max > 0)) return null;
  const sp = w.malloc_(src.length);
  if (!sp) return null;
  let out = null;
  try {
    new Uint8Array(w.memory.buffer, sp, src.length).set(src);
    out = fn(w, sp, src.length);
  } finally {
    w.free_(sp);
  }
  if (!out) return null;
  const [dp, n] = out;
  const bytes = new Uint8Array(w.memory.buffer, dp, n).slice();
  w.free_(dp);
  return bytes;
}

/** The decoders decodeTo knows. */
const decoderNames = new Set(["zstd", "zlib", "gzip", "blosc"]);

/**
 * Decodes src with the decoder called name ("zstd", "zlib", "gzip", or
 * "blosc": the module's Blosc walker, which decodes only chunks of exactly
 * cap bytes and declines blosclz, snappy, bitshuffle and any damage) to at
 * most cap bytes (exactly cap when exact) and hands use(bytes) a view of
 * them in the module's memory (valid during the call: use copies what it
 * needs). Returns the decoded size, or -1 (not loaded, corrupt, too large,
 * not exactly cap) to leave the chunk to the engine.
 * @param {string} name
 * @param {Uint8Array} src
 * @param {number} cap
 * @param {boolean} exact
 * @param {(bytes: Uint8Array) => void} use
 */
export function decodeTo(name, src, cap, exact, use) {
  const w = wasm;
  const gzip = name === "gzip";
  if (!w || src.length === 0 || !(cap > 0) || !decoderNames.has(name)) return -1;
  let size = -1;
  try {
    const sp = w.malloc_(src.length);
    if (!sp) return -1;
    try {
      new Uint8Array(w.memory.buffer, sp, src.length).set(src);
      const dp = w.malloc_(cap);
      if (!dp) return -1;
      try {
        const n =
          name === "zstd"
            ? w.zstd_decompress(dp, cap, sp, src.length)
            : name === "blosc"
              ? w.blosc_decode(dp, cap, sp, src.length)
              : w.inflate_(gzip ? 1 : 0, dp, cap, sp, src.length);
        if (n >= 0 && n <= cap && (!exact || n === cap)) {
          use(new Uint8Array(w.memory.buffer, dp, n));
          size = n;
        }
      } finally {
        w.free_(dp);
      }
    } finally {
      w.free_(sp);
    }
  } catch {
    size = -1;
  }
  if (size >= 0) codecStats.decoded++;
  else codecStats.declined++;
  return size;
}

/** Runs a decoder; a throw (a trap in the module) becomes a refusal. */
function counted(decode) {
  let out = null;
  try {
    out = decode();
  } catch {
    out = null;
  }
  if (out) codecStats.decoded++;
  else codecStats.declined++;
  return out;
}

/**
 * Decodes zstd frames to at most max bytes, the decoded size the engine
 * expects. The bytes, or null to let the engine decode (also when max is 0,
 * unknown).
 * @param {Uint8Array} src
 * @param {number} max
 */
export function zstdDecode(src, max) {
  return counted(() => withInput(src, max, (w, sp, n) => decodeInto(w, max, (dp) => w.zstd_decompress(dp, max, sp, n))));
}

/** Inflates a zlib stream (gzip false) or gzip members (gzip true) to at most max bytes. */
function inflate(gzip, src, max) {
  return counted(() => withInput(src, max, (w, sp, n) => decodeInto(w, max, (dp) => w.inflate_(gzip ? 1 : 0, dp, max, sp, n))));
}

/** Runs run(dstPtr) on a buffer of cap bytes: [dstPtr, size], or null on an error. */
function decodeInto(w, cap, run) {
  const dp = w.malloc_(cap);
  if (!dp) return null;
  const size = run(dp);
  if (size >= 0) return [dp, size];
  w.free_(dp);
  return null;
}

/**
 * Decodes a chunk whose decoded size is not known, growing the output up
 * to limit bytes (the bound the engine computed from the frames or the
 * format's largest ratio): run(srcPtr, srcLen, outPtrPtr) → size, or < 0.
 */
function grow(src, limit, run) {
  return counted(() => {
    const w = wasm;
    if (!w || src.length === 0 || !(limit > 0)) return null;
    const sp = w.malloc_(src.length);
    const pp = w.malloc_(4);
    if (!sp || !pp) {
      if (sp) w.free_(sp);
      if (pp) w.free_(pp);
      return null;
    }
    try {
      new Uint8Array(w.memory.buffer, sp, src.length).set(src);
      const n = run(w, sp, src.length, pp);
      if (n < 0) return null;
      const dp = new Uint32Array(w.memory.buffer, pp, 1)[0];
      const out = new Uint8Array(w.memory.buffer, dp, n).slice();
      w.free_(dp);
      return out;
    } finally {
      w.free_(sp);
      w.free_(pp);
    }
  });
}

/**
 * Decodes src in format ("zstd", "zlib", "gzip") whose decoded size is not
 * known, growing the output up to limit bytes: a Uint8Array, or null to
 * leave it to the engine.
 */
export function decodeAny(format, src, limit) {
  switch (format) {
    case "zstd":
      return grow(src, limit, (w, sp, n, pp) => w.zstd_decompress_grow(sp, n, limit, pp));
    case "zlib":
    case "gzip":
      return grow(src, limit, (w, sp, n, pp) => w.inflate_grow(format === "gzip" ? 1 : 0, sp, n, limit, pp));
  }
  return null;
}

/** A decoder by its known-size and unknown-size forms: decode(bytes, max) or decode(bytes, 0, limit). */
function either(format, known) {
  return (src, max, limit) => (max > 0 ? known(src, max) : decodeAny(format, src, limit));
}

/**
 * Decodes zstd frames compressed with a dictionary (Icechunk's compressed
 * virtual chunk locations) to at most max bytes: the bytes, or null to
 * leave them to the engine.
 * @param {Uint8Array} src
 * @param {number} max
 * @param {Uint8Array} dict
 */
export function zstdDictDecode(src, max, dict) {
  if (!(dict?.length > 0)) return null;
  return counted(() =>
    withInput(src, max, (w, sp, n) => {
      const kp = w.malloc_(dict.length);
      if (!kp) return null;
      try {
        new Uint8Array(w.memory.buffer, kp, dict.length).set(dict);
        return decodeInto(w, max, (dp) => w.zstd_decompress_dict(dp, max, sp, n, kp, dict.length));
      } finally {
        w.free_(kp);
      }
    }),
  );
}

/** The decoders by format: decode(bytes, max) → Uint8Array | null (or decode(bytes, 0, limit) when the size is not known). */
export const hostDecoders = {
  zstd: either("zstd", zstdDecode),
  zlib: either("zlib", (src, max) => inflate(false, src, max)),
  gzip: either("gzip", (src, max) => inflate(true, src, max)),
  // Whole Blosc chunks of a known size (the module's Blosc walker).
  blosc: (src, max) => (max > 0 ? counted(() => withInput(src, max, (w, sp, n) => decodeInto(w, max, (dp) => w.blosc_decode(dp, max, sp, n)))) : null),
};

/** Counts chunks the encoders compressed, and of those the ones encodeInto placed in the engine's memory. */
export const encodeStats = { encoded: 0, placed: 0 };

/**
 * Compresses src with compress(dstPtr, cap, srcPtr, n) → size or -1 and
 * hands take a view of the output in the encoders' memory: what take
 * returns, or null.
 */
function encodeWith(src, bound, compress, take) {
  const w = enc;
  if (!w) return null;
  const cap = bound(w, src.length);
  const sp = w.malloc_(Math.max(1, src.length));
  const dp = w.malloc_(cap);
  try {
    if (!sp || !dp) return null;
    new Uint8Array(w.memory.buffer, sp, src.length).set(src);
    const n = compress(w, dp, cap, sp, src.length);
    if (n < 0) return null;
    encodeStats.encoded++;
    return take(new Uint8Array(w.memory.buffer, dp, n));
  } catch {
    return null;
  } finally {
    if (sp) w.free_(sp);
    if (dp) w.free_(dp);
  }
}

/** The encoders by format: encode(src, level, checksum, take) → take(output view) | null. */
const encoders = {
  zstd: (src, level, checksum, take) => encodeWith(src, (w, n) => w.zstd_bound(n), (w, dp, cap, sp, n) => w.zstd_compress(dp, cap, sp, n, level, checksum ? 1 : 0), take),
  zlib: (src, level, _, take) => encodeWith(src, (w, n) => w.deflate_bound(n), (w, dp, cap, sp, n) => w.deflate_(0, level, dp, cap, sp, n), take),
  gzip: (src, level, _, take) => encodeWith(src, (w, n) => w.deflate_bound(n), (w, dp, cap, sp, n) => w.deflate_(1, level, dp, cap, sp, n), take),
};

/** The encoders by format: encode(bytes, level, checksum) → Uint8Array | null (null: the engine's Go encoder writes it). */
export const hostEncoders = {
  zstd: (src, level, checksum) => encoders.zstd(src, level, checksum, (out) => out.slice()),
  zlib: (src, level) => encoders.zlib(src, level, false, (out) => out.slice()),
  gzip: (src, level) => encoders.gzip(src, level, false, (out) => out.slice()),
};

/**
 * Compresses src in format into dst (both views of the engine's memory, so
 * a chunk goes from the engine to the encoders and back with one copy each
 * way and no JS allocation): the compressed size, or -1 when there is no
 * such encoder, it fails, or dst is too small.
 */
export function encodeInto(format, src, level, checksum, dst) {
  const encode = Object.hasOwn(encoders, format) ? encoders[format] : null;
  const n = encode?.(src, level, checksum, (out) => (out.length <= dst.length ? (dst.set(out), encodeStats.placed++, out.length) : -1));
  return n ?? -1;
}

/** The decoders' module exports once loaded, else null (tests call its exports). */
export function codecsExports() {
  return wasm;
}
