// Places a read's chunks into its result, a TypedArray allocated here (see
// jsbridge/place.go): the engine calls fromGo for a chunk it decoded (a
// view of its own memory, no copy before the one into the result) and
// stored for a chunk as the store answered (raw, or decoded by the
// package's libzstd or zlib in their memory, then copied into the result).
import { scatter, fillWith } from "./scatter.js";
import { decodeTo } from "./codecs.js";

/** The bytes of a store's answer to an unconditional read: a Uint8Array, or {data, generation}; else null (the engine reads the answer). */
function answerBytes(answer) {
  if (answer instanceof Uint8Array) return answer;
  if (answer === null || typeof answer !== "object" || ArrayBuffer.isView(answer) || answer instanceof ArrayBuffer) return null;
  if (answer.changed || answer.notModified) return null;
  return answer.data instanceof Uint8Array ? answer.data : null;
}

/**
 * The placer of one engine instance.
 * @param {WebAssembly.Memory} memory the engine's memory
 */
export function makePlacer(memory) {
  const geometry = (at, n) => new Float64Array(memory.buffer, at, n);
  return {
    /** A chunk decoded by the engine: len bytes at addr of its memory; its geometry n numbers at gAt. */
    fromGo(dst, oshape, addr, len, gAt, n, itemSize) {
      scatter(dst, oshape, new Uint8Array(memory.buffer, addr, len), geometry(gAt, n), 0, itemSize);
    },
    /**
     * A chunk as the store answered: decoded by decoder ("" for none) to
     * exactly size bytes and placed. Returns the stored size, or -1 to
     * leave the answer to the engine (absent, not bytes, undecodable).
     */
    stored(dst, oshape, answer, decoder, size, gAt, n, itemSize) {
      const bytes = answerBytes(answer);
      if (!bytes) return -1;
      if (decoder === "") {
        if (bytes.length !== size) return -1;
        scatter(dst, oshape, bytes, geometry(gAt, n), 0, itemSize);
        return bytes.length;
      }
      const done = decodeTo(decoder, bytes, size, true, (chunk) => scatter(dst, oshape, chunk, geometry(gAt, n), 0, itemSize));
      return done === size ? bytes.length : -1;
    },
    /**
     * Decodes srcLen bytes at src of the engine's memory with decoder into
     * its memory at dst (at most cap bytes): the decoded size, or -1.
     */
    decodeInto(decoder, src, srcLen, dst, cap) {
      return decodeTo(decoder, new Uint8Array(memory.buffer, src, srcLen), cap, false, (out) => new Uint8Array(memory.buffer, dst, out.length).set(out));
    },
    /** Fills the result with copies of one element (len bytes at addr). */
    fill(dst, addr, len) {
      fillWith(dst, new Uint8Array(memory.buffer, addr, len).slice());
    },
  };
}
