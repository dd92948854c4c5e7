// The yardstick of the pooled suites: a read by the engine alone.
import { direct } from "../../npm/lib/direct.js";

/** The engine's own read of sel (no pool, no direct path): its result or its error. */
export async function engineRead(arr, sel) {
  direct.enabled = false;
  try {
    return await arr.get(sel, { workers: false });
  } catch (e) {
    return e;
  } finally {
    direct.enabled = true;
  }
}
