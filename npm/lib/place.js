// Reads into results allocated here (see jsbridge/place.go). The engine
// plans a read and asks, chunk by chunk: fromGo places a chunk it decoded
// (a view of its own memory, no copy before the one into the result);
// fetch asks the store for a chunk and places it here, raw or decoded by
// the package's libzstd or zlib in their memory, so the stored bytes never
// enter the engine. Results and store answers are kept here, under
// numbers: a JS value the engine held would stay alive until Go's garbage
// collector ran, however long ago the caller dropped it.
import { scatter, fillWith } from "./scatter.js";
import { decodeTo, encodeInto } from "./codecs.js";

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

/** Store answers the engine decides about (or reads itself), by token. */
const answers = new Map();
let nextAnswer = 0;

/** How much the placer keeps (tests: nothing once every read has ended and its store's promises settled): {results, answers}. */
export function placerStats() {
  return { results: results.size, answers: answers.size };
}

/** The bytes of a store's answer to an unconditional read: a Uint8Array, or {data}; else null (the engine reads the answer). */
function answerBytes(answer) {
  if (answer instanceof Uint8Array) return answer;
  if (answer === null || typeof answer !== "object" || ArrayBuffer.isView(answer) || answer instanceof ArrayBuffer) return null;
  if (answer.changed || answer.notModified) return null;
  return answer.data instanceof Uint8Array ? answer.data : null;
}

/** Keeps an answer for the engine (tried: placing it failed already): the number it is asked for by (-3 - token). */
function keep(answer, tried) {
  const token = nextAnswer++;
  answers.set(token, { answer, tried });
  return -3 - token;
}

/**
 * The placer of one engine instance.
 * @param {WebAssembly.Memory} memory the engine's memory
 */
export function makePlacer(memory) {
  const floats = (at, n) => new Float64Array(memory.buffer, at, n);
  /** Places answer into result r: the stored size, or -2 (absent), or a kept answer's number. */
  const placeAnswer = (answer, r, decoder, size, gAt, n, itemSize) => {
    if (answer === undefined || answer === null) return -2;
    const bytes = answerBytes(answer);
    if (bytes && r) {
      if (decoder === "") {
        if (bytes.length === size) {
          scatter(r.bytes, r.shape, bytes, floats(gAt, n), 0, itemSize);
          return bytes.length;
        }
      } else if (decodeTo(decoder, bytes, size, true, (chunk) => scatter(r.bytes, r.shape, chunk, floats(gAt, n), 0, itemSize)) === size) {
        return bytes.length;
      }
    }
    return keep(answer, true);
  };
  return {
    /** A result of nbytes as a ctorName TypedArray, filled with one element (fillLen bytes at fillAddr, none when 0), of the full shape at shapeAt (ndim numbers): its id. */
    begin(ctorName, nbytes, fillAddr, fillLen, shapeAt, ndim) {
      const Typed = globalThis[ctorName];
      const data = new Typed(nbytes / Typed.BYTES_PER_ELEMENT);
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (fillLen > 0 && nbytes > 0) fillWith(bytes, new Uint8Array(memory.buffer, fillAddr, fillLen).slice());
      const id = nextResult++;
      results.set(id, { data, bytes, shape: Array.from(floats(shapeAt, ndim)) });
      return id;
    },
    /** Forgets result id (the read failed). */
    drop(id) {
      results.delete(id);
    },
    /** A chunk decoded by the engine into result id: len bytes at addr of its memory; its geometry n numbers at gAt. */
    fromGo(id, addr, len, gAt, n, itemSize) {
      const r = results.get(id);
      scatter(r.bytes, r.shape, new Uint8Array(memory.buffer, addr, len), floats(gAt, n), 0, itemSize);
    },
    /**
     * Asks store for key and places the chunk into result id, decoded by
     * decoder ("" for none) to exactly size bytes: the stored size, -2
     * (absent) or a kept answer's number (not bytes, undecodable). An answer
     * that comes later (a promise) is kept: the engine decides (place, take;
     * forget when its read ended first).
     */
    fetch(id, store, key, options, decoder, size, gAt, n, itemSize) {
      const answer = store.get(key, options);
      if (answer && typeof answer.then === "function") return Promise.resolve(answer).then((a) => (a === undefined || a === null ? -2 : keep(a, false)));
      return placeAnswer(answer, results.get(id), decoder, size, gAt, n, itemSize);
    },
    /** Places kept answer token into result id (as fetch does). */
    place(token, id, decoder, size, gAt, n, itemSize) {
      const kept = answers.get(token);
      if (!kept || kept.tried) return -3 - token;
      answers.delete(token);
      return placeAnswer(kept.answer, results.get(id), decoder, size, gAt, n, itemSize);
    },
    /**
     * The engine stopped waiting for fetch's promise p (its read ended:
     * aborted, or failed on another chunk): the answer kept when it comes
     * is dropped, never asked for.
     */
    forget(p) {
      p.then(
        (n) => n <= -3 && answers.delete(-3 - n),
        () => {},
      );
    },
    /** Hands the engine kept answer token. */
    take(token) {
      const kept = answers.get(token);
      answers.delete(token);
      return kept?.answer;
    },
    /**
     * Decodes srcLen bytes at src of the engine's memory with decoder into
     * its memory at dst (at most cap bytes): the decoded size, or -1.
     */
    decodeInto(decoder, src, srcLen, dst, cap) {
      return decodeTo(decoder, new Uint8Array(memory.buffer, src, srcLen), cap, false, (out) => new Uint8Array(memory.buffer, dst, out.length).set(out));
    },
    /**
     * Compresses srcLen bytes at src of the engine's memory in format into
     * its memory at dst (at most cap bytes): the compressed size, or -1.
     */
    encodeInto(format, level, checksum, src, srcLen, dst, cap) {
      return encodeInto(format, new Uint8Array(memory.buffer, src, srcLen), level, checksum, new Uint8Array(memory.buffer, dst, cap));
    },
  };
}
