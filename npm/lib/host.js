// What the package lends each engine instance (jsbridge/host.go): its
// decoders and encoders, working on the engine's memory directly (one copy
// each way, no JS value per chunk), and results allocated here for the
// engine's own reads (the engine places each chunk with scatter; a result
// is kept under a number, since a JS value the engine held would stay
// alive until Go's garbage collector ran).
import { scatter, fillWith } from "./scatter.js";
import { decodeTo, decodeAny, encodeInto, zstdDictDecode } from "./codecs.js";

/** Results being read (and read, until the wrapper takes them), by id. */
const results = new Map();
let nextResult = 1;

/** The engine's get answers {result (an id here), shape, stride} for data placed here: {data, shape, stride}. */
export function engineResult(r) {
  if (r === null || typeof r !== "object" || typeof r.result !== "number") return r;
  const data = results.get(r.result)?.data;
  results.delete(r.result);
  return { data, shape: r.shape, stride: r.stride };
}

/** How many results the engine's reads keep here (tests: none once every read has ended). */
export function hostStats() {
  return { results: results.size };
}

/**
 * The host object of one engine instance.
 * @param {WebAssembly.Memory} memory the engine's memory
 */
export function makeHost(memory) {
  const floats = (at, n) => new Float64Array(memory.buffer, at, n);
  const bytes = (at, n) => new Uint8Array(memory.buffer, at, n);
  return {
    /** A result of nbytes as a ctorName TypedArray, filled with one element (fillLen bytes at fillAddr, none when 0), of the full shape at shapeAt (ndim numbers): its id. */
    begin(ctorName, nbytes, fillAddr, fillLen, shapeAt, ndim) {
      const Typed = globalThis[ctorName];
      const data = new Typed(nbytes / Typed.BYTES_PER_ELEMENT);
      const out = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (fillLen > 0 && nbytes > 0) fillWith(out, bytes(fillAddr, fillLen).slice());
      const id = nextResult++;
      results.set(id, { data, bytes: out, shape: Array.from(floats(shapeAt, ndim)) });
      return id;
    },
    /** Forgets result id (the read failed). */
    drop(id) {
      results.delete(id);
    },
    /**
     * Places a chunk the engine decoded (len bytes at addr of its memory)
     * into result id: its region at regionAt, 6·ndim float64s (the chunk's
     * shape, in's start/step/count, out's start/step per dimension).
     */
    place(id, addr, len, regionAt, ndim, itemSize) {
      const r = results.get(id);
      const g = floats(regionAt, 6 * ndim);
      scatter(r.bytes, r.shape, bytes(addr, len), g.subarray(0, ndim), g.subarray(ndim, 4 * ndim), g.subarray(4 * ndim), itemSize);
    },
    /** Decodes srcLen bytes at src of the engine's memory in format into its memory at dst (cap bytes): the decoded size, or -1. */
    decodeInto(format, src, srcLen, dst, cap) {
      return decodeTo(format, bytes(src, srcLen), cap, false, (out) => bytes(dst, out.length).set(out));
    },
    /** Decodes srcLen bytes at src in format, whose size is not known, to at most limit bytes: a Uint8Array, or null. */
    decode(format, src, srcLen, limit) {
      return decodeAny(format, bytes(src, srcLen), limit);
    },
    /** Decodes zstd frames (srcLen bytes at src) made with a dictionary (dictLen bytes at dict) into the engine's memory at dst (cap bytes): the decoded size, or -1. */
    decodeDict(src, srcLen, dict, dictLen, dst, cap) {
      const out = zstdDictDecode(bytes(src, srcLen), cap, bytes(dict, dictLen));
      if (!out || out.length > cap) return -1;
      bytes(dst, out.length).set(out);
      return out.length;
    },
    /** Compresses srcLen bytes at src of the engine's memory in format into its memory at dst (cap bytes): the compressed size, or -1. */
    encodeInto(format, level, checksum, src, srcLen, dst, cap) {
      return encodeInto(format, bytes(src, srcLen), level, checksum, bytes(dst, cap));
    },
  };
}
