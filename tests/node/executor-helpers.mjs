// Helpers for the tests that compare the read executor's reads
// (npm/lib/read.js) with the engine's own.
import { executor } from "../../npm/lib/read.js";

/** Runs fn with the executor on (true) or off (every read the engine's). */
export async function withDirect(on, fn) {
  const was = executor.enabled;
  executor.enabled = on;
  try {
    return await fn();
  } finally {
    executor.enabled = was;
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
