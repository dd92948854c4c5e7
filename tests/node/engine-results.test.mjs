// The engine's own reads (jsbridge/read.go readToJS) go into results
// allocated in JS and kept by the host (npm/lib/host.js) under a number
// until the wrapper takes them: a read that ends (placed, aborted, or
// failed on one chunk while others are pending) must not leave its result
// kept.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { withDirect } from "./executor-helpers.mjs";
import { hostStats } from "../../npm/lib/host.js";

const enc = new TextEncoder();

/** A 1-d uint8 array of n chunks of 4 (chunk i holds i*4 .. i*4+3) whose chunks answer when released. */
function heldStore(n, { reject = () => false } = {}) {
  const meta = {
    zarr_format: 3,
    node_type: "array",
    shape: [4 * n],
    data_type: "uint8",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0,
    codecs: [{ name: "bytes" }],
  };
  const held = [];
  let asked = 0;
  const store = {
    get(key) {
      if (key === "/a/zarr.json") return enc.encode(JSON.stringify(meta));
      const m = /^\/a\/c\/(\d+)$/.exec(key);
      if (!m) return undefined;
      asked++;
      const i = Number(m[1]);
      const bytes = Uint8Array.from({ length: 4 }, (_, k) => i * 4 + k);
      if (reject(i)) return Promise.reject(new Error(`chunk ${i} failed`));
      return new Promise((resolve) => held.push(() => resolve(bytes)));
    },
  };
  return {
    store,
    asked: () => asked,
    held: () => held.length,
    /** Answers every chunk asked for so far. */
    release() {
      for (const f of held.splice(0)) f();
    },
  };
}

/** Runs fn with the executor off: the engine reads. */
const engineReads = (fn) => withDirect(false, fn);

const settle = () => new Promise((r) => setTimeout(r, 30));

async function until(cond, what) {
  for (let t0 = Date.now(); !cond(); await settle()) {
    if (Date.now() - t0 > 10000) throw new Error(`timed out waiting for ${what}`);
  }
}

describe("the host keeps nothing of an engine's read that ended", () => {
  test("a read whose answers come later: placed, nothing kept", async () => {
    await engineReads(async () => {
      const s = heldStore(3);
      const arr = await zarr.open(s.store, { path: "a", kind: "array" });
      const p = arr.get(null);
      await until(() => s.held() === 3, "the three chunks to be asked for");
      s.release();
      const r = await p;
      assert.deepEqual(Array.from(r.data), Array.from({ length: 12 }, (_, k) => k));
      assert.deepEqual(hostStats(), { results: 0 });
    });
  });

  test("aborted while the store's answers are pending: ABORTED, and the answers that come later are dropped", async () => {
    await engineReads(async () => {
      const s = heldStore(3);
      const arr = await zarr.open(s.store, { path: "a", kind: "array" });
      const ac = new AbortController();
      const p = arr.get(null, { signal: ac.signal });
      await until(() => s.held() === 3, "the three chunks to be asked for");
      ac.abort();
      await assert.rejects(p, (e) => e.code === "ABORTED");
      s.release(); // the store ignores the signal and answers after all
      await settle();
      assert.deepEqual(hostStats(), { results: 0 });
      // The engine reads the array again, whole.
      const again = arr.get(null);
      await until(() => s.held() === 3, "the chunks to be asked for again");
      s.release();
      assert.deepEqual(Array.from((await again).data), Array.from({ length: 12 }, (_, k) => k));
      assert.deepEqual(hostStats(), { results: 0 });
    });
  });

  test("failed on one chunk while others are pending: STORE, and the others' answers are dropped", async () => {
    await engineReads(async () => {
      const s = heldStore(4, { reject: (i) => i === 2 });
      const arr = await zarr.open(s.store, { path: "a", kind: "array" });
      const p = arr.get(null);
      await assert.rejects(p, (e) => e.code === "STORE" && /chunk 2 failed/.test(e.message));
      assert.ok(s.held() > 0, "some chunks were pending when the read failed");
      s.release();
      await settle();
      assert.deepEqual(hostStats(), { results: 0 });
    });
  });
});
