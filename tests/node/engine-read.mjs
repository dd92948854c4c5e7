// The yardstick of the executor's suites: a read by the engine alone.
import { executor } from "../../npm/lib/read.js";

/** The engine's own read of sel (the executor off): its result or its error. */
export async function engineRead(arr, sel) {
  executor.enabled = false;
  try {
    return await arr.get(sel, { workers: false });
  } catch (e) {
    return e;
  } finally {
    executor.enabled = true;
  }
}
