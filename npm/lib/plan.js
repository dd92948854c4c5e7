// A read plan as the engine hands it over (planRead, jsbridge/pooled.go):
// the result's type, shape and fill value, and per chunk its store key,
// its coordinates and 6·ndim numbers of geometry (its decoded shape, then
// per dimension in.start, in.step, out.start, out.step, count). Pooled
// reads (lib/pooled.js) and reads on the calling thread (lib/direct.js)
// both run plans through this class.
import { scatter, fillWith } from "./scatter.js";

/** A store's answer that is a promise (or any thenable) rather than the value itself. */
export const thenable = (v) => v !== null && typeof v === "object" && typeof v.then === "function";

export class ReadPlan {
  constructor(plan) {
    this.plan = plan;
    this.keys = plan.keys;
    this.full = plan.fullShape;
    this.ndim = this.full.length;
    this.g = plan.geometry;
    this.per = 6 * this.ndim;
    this.itemSize = plan.itemSize;
    let nbytes = plan.itemSize;
    for (const d of this.full) nbytes *= d;
    /** Bytes of the result. */
    this.nbytes = nbytes;
  }

  /** Bytes chunk i decodes to. */
  chunkBytes(i) {
    const at = i * this.per;
    let n = this.itemSize;
    for (let d = 0; d < this.ndim; d++) n *= this.g[at + d];
    return n;
  }

  /** Chunk i's geometry alone (6·ndim numbers). */
  geometry(i) {
    return this.g.subarray(i * this.per, (i + 1) * this.per);
  }

  /** Chunk i's coordinates in the chunk grid. */
  coords(i) {
    return Array.from(this.plan.coords.subarray(i * this.ndim, (i + 1) * this.ndim));
  }

  /** Writes the fill value into a fresh result's bytes (a fresh buffer is zero, and a zero fill comes as none). */
  fill(out) {
    if (this.plan.fill && out.length > 0) fillWith(out, this.plan.fill);
  }

  /** Copies chunk i's region of the read from its decoded bytes into the result's bytes out. */
  place(out, i, bytes) {
    scatter(out, this.full, bytes, this.g, i * this.per, this.itemSize);
  }

  /** Has the engine decode chunk i's stored bytes (its result, or its error: a CODEC error naming the key) and places it. */
  async placeByEngine(arr, out, i, bytes) {
    const res = await arr._call("decodeChunk", this.coords(i), bytes);
    const d = res.data;
    this.place(out, i, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  }

  /** The read's result over buffer (an ArrayBuffer or SharedArrayBuffer of nbytes): {data, shape, stride}. */
  result(buffer) {
    const Typed = globalThis[this.plan.array];
    const shape = Array.from(this.plan.shape);
    const stride = new Array(shape.length);
    for (let d = shape.length - 1, s = 1; d >= 0; d--) {
      stride[d] = s;
      s *= shape[d];
    }
    return { data: new Typed(buffer), shape, stride };
  }
}
