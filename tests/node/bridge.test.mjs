// The bridge's async calls (jsbridge/call.go): one wrapper reads each
// call's arguments in order (handles looked up, keys, selections), makes
// the call's context from its AbortSignal after them, and reports errors.
// These check what that order decides: the first bad argument's error,
// even when the signal has aborted; ABORTED for good arguments and an
// aborted signal; ABORTED (not the layer's own error) when the signal
// aborts a call under way; no listener left on a signal after a call.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { bridge, callBridge } from "../../npm/lib/runtime.js";

const enc = new TextEncoder();
const aborted = () => AbortSignal.abort(new Error("stop"));

/** The code, message and where of a call's rejection. */
async function failure(p) {
  try {
    await p;
  } catch (e) {
    return { code: e.code, message: e.message, where: e.where };
  }
  assert.fail("the call succeeded");
}

async function setup() {
  const api = await bridge();
  const store = new zarr.MemoryStore();
  await zarr.create(store, { path: "g/a", shape: [4], chunks: [2], dtype: "uint8" });
  const g = await zarr.open(store, { path: "g", kind: "group" });
  const a = await zarr.open(store, { path: "g/a", kind: "array" });
  return { api, store, g, a, aid: a._info.id, gid: g._info.id };
}

describe("bridge calls: arguments, then the context", () => {
  test("a released handle: its error, even with an aborted signal", async () => {
    const { api, store } = await setup();
    const info = await callBridge("open", store, "g/a", "array");
    api.release(info.id);
    for (const signal of [undefined, aborted()]) {
      const f = await failure(callBridge("get", info.id, null, signal));
      assert.equal(f.code, "STORE");
      assert.match(f.message, /the array or group was released/);
    }
    const f = await failure(callBridge("children", info.id, aborted()));
    assert.match(f.message, /the array or group was released/);
  });

  test("a bad selection, a group for an array, an array for a group: their errors before ABORTED", async () => {
    const { aid, gid } = await setup();
    assert.equal((await failure(callBridge("get", aid, [[0, 9, 0]], aborted()))).code, "SELECTION");
    assert.match((await failure(callBridge("get", gid, null, aborted()))).message, /is a group, not an array/);
    const f = await failure(callBridge("children", aid, aborted()));
    assert.equal(f.code, "NOT_FOUND");
    assert.match(f.message, /is an array, not a group/);
    assert.equal((await failure(callBridge("getChunk", aid, [0, 0], aborted()))).code, "SELECTION");
  });

  test("create's options decoded by the bridge: an unknown name is INVALID_ARGUMENT with the near name", async () => {
    const { store } = await setup();
    for (const [call, text, near] of [
      ["create", '{"path": "n", "shape": [2], "dtyp": "int8"}', "dtype"],
      ["create", '{"path": "n", "shape": [2], "dtype": "int8", "fillvalu": 1}', "fillValue"],
      ["createGroup", '{"path": "m", "overwrit": true}', "overwrite"],
    ]) {
      const e = await callBridge(call, store, text).then(
        () => assert.fail(`${call} accepted ${text}`),
        (x) => x,
      );
      assert.deepEqual([e.code, e.suggest], ["INVALID_ARGUMENT", near], e.message);
    }
  });

  test("good arguments and an aborted signal: ABORTED with the signal's reason", async () => {
    const { aid, gid, store } = await setup();
    for (const p of [
      callBridge("get", aid, null, aborted()),
      callBridge("children", gid, aborted()),
      callBridge("openChild", gid, "a", "", aborted()),
      callBridge("getChunk", aid, [0], aborted()),
      callBridge("open", store, "g/a", "array", aborted()),
    ]) {
      const f = await failure(p);
      assert.equal(f.code, "ABORTED");
      assert.match(f.message, /the operation was aborted: stop/);
    }
  });

  test("aborted while the store answers: ABORTED, and the signal keeps no listener", async () => {
    const meta = { zarr_format: 3, node_type: "array", shape: [4], data_type: "uint8", chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } }, chunk_key_encoding: { name: "default" }, fill_value: 0, codecs: [{ name: "bytes" }] };
    let pending = 0;
    const slow = {
      get(key) {
        if (key === "/a/zarr.json") return enc.encode(JSON.stringify(meta));
        if (key !== "/a/c/0") return undefined;
        pending++;
        return new Promise((_, reject) => setTimeout(() => reject(new Error("the store failed late")), 200));
      },
    };
    const info = await callBridge("open", slow, "a", "array");
    const ac = new AbortController();
    let listeners = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    const remove = ac.signal.removeEventListener.bind(ac.signal);
    ac.signal.addEventListener = (...args) => (listeners++, add(...args));
    ac.signal.removeEventListener = (...args) => (listeners--, remove(...args));
    const p = callBridge("getChunk", info.id, [0], ac.signal);
    while (pending === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort(new Error("enough"));
    const f = await failure(p);
    assert.equal(f.code, "ABORTED");
    assert.match(f.message, /enough/);
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(listeners, 0, "the call removed its listener");
  });
});

// The sync calls go through one wrapper too (call.go: runSync): it reads
// and checks their arguments in order and answers an error as an error
// object, as each call did by hand before.
describe("sync bridge calls: their arguments' errors", () => {
  const err = (r) => {
    assert.equal(r?.__zarrWasmError, true, `an error object: ${JSON.stringify(r)}`);
    return { code: r.code, message: r.message, where: r.where };
  };
  test("a released handle, a group for an array", async () => {
    const { api, store, gid } = await setup();
    const info = await callBridge("open", store, "g/a", "array");
    api.release(info.id);
    for (const name of ["cacheStats", "clearCache"]) {
      const f = err(api[name](info.id));
      assert.equal(f.code, "STORE");
      assert.match(f.message, /the array or group was released/);
      assert.match(err(api[name](gid)).message, /is a group, not an array/);
    }
    assert.match(err(api.planRead(info.id, null)).message, /the array or group was released/);
    assert.match(err(api.planRead(gid, null)).message, /is a group, not an array/);
    assert.match(err(api.decodeInPlace(info.id, [0], new Uint8Array(2))).message, /the array or group was released/);
    // no handle: the default pool's
    assert.equal(typeof api.cacheStats().hits, "number");
    assert.ok(!api.clearCache()?.__zarrWasmError);
  });

  test("a bad selection, bad chunk coordinates, no bytes, a bad cache size", async () => {
    const { api, aid, a, store } = await setup();
    await a.set(null, Uint8Array.of(7, 9, 11, 13));
    assert.equal(err(api.planRead(aid, [[0, 9, 0]])).code, "SELECTION");
    const [text, planStore] = api.planRead(aid, null, { decoders: [] });
    assert.equal(JSON.parse(text).version, 1);
    assert.equal(planStore, store);
    assert.equal(err(api.expandShards(aid, "[", new Uint8Array(0))).code, "INVALID_ARGUMENT");
    assert.equal(err(api.expandShards(aid, "[]", undefined)).code, "INVALID_ARGUMENT");
    assert.equal(err(api.decodeInPlace(aid, [0, 0], new Uint8Array(2))).code, "SELECTION");
    assert.equal(err(api.decodeInPlace(aid, [5], new Uint8Array(2))).code, "SELECTION");
    const f = err(api.decodeInPlace(aid, [0], undefined));
    assert.equal(f.code, "CODEC");
    assert.match(f.message, /no bytes to decode/);
    assert.match(err(api.decodeInPlace(aid, [0], new Uint8Array([7, 9]))).message, /cannot decode chunk/);
    const [addr, len] = api.decodeInPlace(aid, [1], await store.get("/g/a/c/1"));
    assert.equal(len, 2);
    assert.ok(addr > 0);
    assert.equal(err(api.setCacheBytes(-1)).code, "INVALID_ARGUMENT");
  });
});
