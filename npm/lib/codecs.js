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

// What one chunk may decode to when the engine does not know its size.
const maxUnknown = 1 << 30;

/**
 * Runs fn(srcPtr, srcLen) with src copied into the module; fn returns
 * [dstPtr, size] or null. Returns a copy of the output, or null.
 */
function withInput(src, fn) {
  const w = wasm;
  // (libzstd and zlib take nothing as an empty stream; the engine does not)
  if (!w || src.length === 0) return null;
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

function counted(out) {
  if (out) codecStats.decoded++;
  else codecStats.declined++;
  return out;
}

/**
 * Decodes zstd frames; max is the decoded size the engine expects (0:
 * unknown). The bytes, or null to let the engine decode.
 * @param {Uint8Array} src
 * @param {number} max
 */
export function zstdDecode(src, max) {
  return counted(
    withInput(src, (w, sp, n) => {
      const cap = max > 0 ? max : Number(w.zstd_bound(sp, n));
      if (!(cap >= 0 && cap <= maxUnknown)) return null; // not zstd, or too big to guess
      const dp = w.malloc_(Math.max(1, cap));
      if (!dp) return null;
      const size = w.zstd_decompress(dp, cap, sp, n);
      if (size < 0) return w.free_(dp), null;
      return [dp, size];
    }),
  );
}

/** Inflates a zlib stream (gzip false) or gzip members (gzip true). */
function inflate(gzip, src, max) {
  return counted(
    withInput(src, (w, sp, n) => {
      // Unknown size: grow the buffer until it fits.
      for (let cap = max > 0 ? max : Math.max(1 << 16, 4 * n); cap <= maxUnknown; cap *= 2) {
        const dp = w.malloc_(cap);
        if (!dp) return null;
        const size = w.inflate_(gzip ? 1 : 0, dp, cap, sp, n);
        if (size >= 0) return [dp, size];
        w.free_(dp);
        if (size !== -2 || max > 0) return null;
      }
      return null;
    }),
  );
}

/** The decoders by the engine's names: decode(bytes, max) → Uint8Array | null. */
export const hostDecoders = {
  zstd: zstdDecode,
  zlib: (src, max) => inflate(false, src, max),
  gzip: (src, max) => inflate(true, src, max),
};
