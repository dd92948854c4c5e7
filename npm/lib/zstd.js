// zstd decoding with libzstd compiled to WebAssembly (built by npm/zstd/build.sh):
// about three times as fast as the engine's Go decoder compiled to
// WebAssembly. The runtime hands zstdDecode to the engine as a host decoder;
// whenever it declines (returns null: not loaded, corrupt data, more than
// `max` bytes), the Go decoder decodes and reports.
import { zstdModuleBase64 } from "./zstd-module.js";

/** @type {any} the module's exports once instantiated */
let zstd = null;
let loading = null;

/** Instantiates the decoder once; resolves to whether it is available. */
export function loadZstd() {
  loading ??= (async () => {
    const bin = atob(zstdModuleBase64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const { instance } = await WebAssembly.instantiate(bytes, {});
    instance.exports._initialize();
    zstd = instance.exports;
    return true;
  })().catch(() => false);
  return loading;
}

/** Counts, for tests and curious users: chunks decoded here, and declined. */
export const zstdStats = { decoded: 0, declined: 0 };

// What one chunk may decode to when the engine does not know its size.
const maxUnknown = 1 << 30;

/**
 * Decodes the zstd frames in src; max is the decoded size the engine
 * expects (0: unknown). Returns the bytes, or null to let the engine decode.
 * @param {Uint8Array} src
 * @param {number} max
 */
export function zstdDecode(src, max) {
  const out = decode(src, max);
  if (out) zstdStats.decoded++;
  else zstdStats.declined++;
  return out;
}

function decode(src, max) {
  const z = zstd;
  if (!z || src.length === 0) return null; // (libzstd accepts nothing as no frames; the engine does not)
  const sp = z.zd_malloc(Math.max(1, src.length));
  if (!sp) return null;
  let dp = 0;
  try {
    new Uint8Array(z.memory.buffer, sp, src.length).set(src);
    const cap = max > 0 ? max : Number(z.zd_bound(sp, src.length));
    if (!(cap >= 0 && cap <= maxUnknown)) return null; // not zstd, or too big to guess
    dp = z.zd_malloc(Math.max(1, cap));
    if (!dp) return null;
    const n = z.zd_decompress(dp, cap, sp, src.length) >>> 0;
    if (z.zd_is_error(n)) return null;
    return new Uint8Array(z.memory.buffer, dp, n).slice();
  } finally {
    z.zd_free(sp);
    if (dp) z.zd_free(dp);
  }
}
