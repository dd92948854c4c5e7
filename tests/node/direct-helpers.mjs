// Helpers for the tests that compare reads with the calling thread's direct
// path (npm/lib/direct.js, shards.js) on and off.
import { direct } from "../../npm/lib/direct.js";

/** Runs fn with the direct path on (true) or off. */
export async function withDirect(on, fn) {
  const was = direct.enabled;
  direct.enabled = on;
  try {
    return await fn();
  } finally {
    direct.enabled = was;
  }
}

/** A read's outcome, comparable: {data bytes or values, shape, stride} or {error code, message, where}. */
export async function outcome(fn) {
  try {
    const r = await fn();
    const d = r.data;
    const data = ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString("hex") : JSON.stringify(d, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
    return { type: d?.constructor?.name, data, shape: r.shape, stride: r.stride };
  } catch (e) {
    return { error: e.code, message: e.message, where: e.where };
  }
}
