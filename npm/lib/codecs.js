// Decoders the package runs itself, faster than the engine's Go decoders
// compiled to WebAssembly: libzstd's decompressor and zlib's inflate, built
// to one small WebAssembly module by npm/codecs/build.sh. The runtime hands
// them to the engine as host decoders (called synchronously). Whenever one
// declines (returns null: not loaded, corrupt data, more than `max` bytes),
// the Go decoder decodes and reports, so errors stay the engine's.
import { codecsModuleBase64 } from "./codecs-module.js";

/** @type {any} the module's exports once instantiated */
let wasm = null;
let loading = null;

/** Instantiates the module once; resolves to whether it is available. */
export function loadCodecs() {
  loading ??= (async () => {
    const bin = atob(codecsModuleBase64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const { instance } = await WebAssembly.instantiate(bytes, {});
    instance.exports._initialize();
    wasm = instance.exports;
    return true;
  })().catch(() => false);
  return loading;
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
  // before allocating). (libzstd and zlib take nothing as an empty stream;
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

/** The decoders by the engine's names: decode(bytes, max) → Uint8Array | null. */
export const hostDecoders = {
  zstd: zstdDecode,
  zlib: (src, max) => inflate(false, src, max),
  gzip: (src, max) => inflate(true, src, max),
};
