// Reads the calling thread runs itself (npm/lib/direct.js): the engine
// plans a read whose chunks are all placed straight from their stored
// bytes (raw, or one zstd/zlib/gzip compressor over little-endian elements)
// and JS fetches, decodes and places each chunk with no call into the
// engine. These reads must return what the engine's own read returns
// (direct.enabled = false sends every read to the engine), with the same
// errors, and must really be taken (the store's requests counted by
// directStats: zero without this path).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { direct, directStats } from "../../npm/lib/direct.js";
import { repoRoot, loadCases, exists } from "./helpers.mjs";

/** Runs fn with the direct path on (true) or off. */
async function withDirect(on, fn) {
  const was = direct.enabled;
  direct.enabled = on;
  try {
    return await fn();
  } finally {
    direct.enabled = was;
  }
}

/** A read's outcome, comparable: {data bytes or values, shape, stride} or {error code, message, where}. */
async function outcome(fn) {
  try {
    const r = await fn();
    const d = r.data;
    const data = ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString("hex") : JSON.stringify(d, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
    return { type: d?.constructor?.name, data, shape: r.shape, stride: r.stride };
  } catch (e) {
    return { error: e.code, message: e.message, where: e.where };
  }
}

const gets = (store) => directStats(store)?.get ?? 0;

/** A plain store over a Map (what a zarrita store looks like). */
function mapStore(map, { async = false, fail = null } = {}) {
  return {
    map,
    get(key) {
      if (fail?.(key)) {
        if (async) return Promise.reject(new Error(`no luck with ${key}`));
        throw new Error(`no luck with ${key}`);
      }
      const v = map.get(key);
      return async ? Promise.resolve(v) : v;
    },
    set(key, value) {
      map.set(key, value);
    },
  };
}

describe("direct reads equal the engine's for every fixture", () => {
  for (const v of ["v2", "v3"]) {
    const dir = path.join(repoRoot, "tests", "fixtures", v);
    test(`${v} fixtures`, async (t) => {
      if (!(await exists(path.join(dir, "cases.json")))) return t.skip("no fixtures");
      const cases = await loadCases(path.join(dir, "cases.json"));
      let taken = 0;
      const sels = (c) => [c.selection, null, "1:, ::2", "..., -1"];
      for (const c of cases) {
        const store = new FileSystemStore(path.join(dir, "data", c.store));
        let arr;
        try {
          arr = await zarr.open(store, { path: c.path, kind: "array" });
        } catch {
          continue; // (the error cases: fixtures.test.mjs)
        }
        for (const sel of sels(c)) {
          const before = gets(store);
          const mine = await withDirect(true, () => outcome(() => arr.get(sel)));
          if (gets(store) > before) taken++;
          const engine = await withDirect(false, () => outcome(() => arr.get(sel)));
          assert.deepEqual(mine, engine, `${c.name} [${sel}]`);
        }
      }
      t.diagnostic(`${taken} reads of ${cases.length} arrays went the direct way`);
      assert.ok(taken >= 20, `only ${taken} reads were direct`);
    });
  }
});

describe("direct reads", () => {
  const make = async (opts, map = new Map()) => {
    const store = mapStore(map);
    const w = await zarr.create(store, { path: "a", shape: [10, 12], chunks: [4, 5], dtype: "int32", fillValue: -7, ...opts });
    await w.set([zarr.slice(0, 8), null], Int32Array.from({ length: 96 }, (_, i) => i * 3 - 50));
    return { map, store };
  };
  const codecs = {
    raw: { zarrFormat: 2, compressor: null },
    zstd: { zarrFormat: 2, compressor: { id: "zstd", level: 1 } },
    zlib: { zarrFormat: 2, compressor: { id: "zlib", level: 1 } },
    gzip: { zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] },
  };

  for (const [name, opts] of Object.entries(codecs)) {
    test(`${name}: windows, strides, integer indices and missing chunks as the engine reads them, sync and async stores`, async () => {
      const { map } = await make(opts);
      for (const async of [false, true]) {
        const store = mapStore(map, { async });
        const arr = await zarr.open(store, { path: "a", kind: "array" });
        for (const sel of [null, "1:9, 2:11", "::3, 1::4", "9, :", "3, 4", "..., 7", "8:, :", "2:2, :"]) {
          const before = gets(store);
          const mine = await withDirect(true, () => outcome(() => arr.get(sel)));
          assert.ok(gets(store) > before || sel === "2:2, :", `${name} [${sel}] was not read directly`);
          const engine = await withDirect(false, () => outcome(() => arr.get(sel)));
          assert.deepEqual(mine, engine, `${name} [${sel}] async ${async}`);
        }
      }
    });
  }

  test("a corrupt chunk and a raw chunk of the wrong size: the engine's CODEC error, naming the key", async () => {
    for (const [name, bad] of [
      ["zstd", (b) => b.map((x, i) => (i > 8 ? x ^ 0x5a : x))],
      ["zlib", (b) => b.subarray(0, b.length - 3)],
      ["raw", (b) => b.subarray(0, 10)],
    ]) {
      const { map } = await make(codecs[name]);
      map.set("/a/1.1", bad(map.get("/a/1.1")));
      for (const async of [false, true]) {
        const store = mapStore(map, { async });
        const arr = await zarr.open(store, { path: "a", kind: "array" });
        const mine = await withDirect(true, () => outcome(() => arr.get(null)));
        const engine = await withDirect(false, () => outcome(() => arr.get(null)));
        assert.equal(mine.error, "CODEC", `${name}: ${JSON.stringify(mine)}`);
        assert.match(mine.message, /a\/1\.1/);
        assert.deepEqual(mine, engine, name);
        // The other chunks of a window without it read directly.
        const before = gets(store);
        assert.equal((await arr.get("0:4, 0:5")).data[0], -50);
        assert.ok(gets(store) > before);
      }
    }
  });

  test("a store that fails: the engine's STORE error naming the key", async () => {
    const { map } = await make(codecs.zstd);
    for (const async of [false, true]) {
      const store = mapStore(map, { async, fail: (k) => k === "/a/0.1" });
      const arr = await zarr.open(store, { path: "a", kind: "array" });
      const mine = await withDirect(true, () => outcome(() => arr.get(null)));
      const engine = await withDirect(false, () => outcome(() => arr.get(null)));
      assert.equal(mine.error, "STORE");
      assert.match(mine.message, /a\/0\.1/);
      assert.deepEqual(mine, engine);
    }
  });

  test("answers that are not bytes: the engine's error; ArrayBuffers, views and {data, generation} are read", async () => {
    const { map } = await make(codecs.raw);
    const want = await withDirect(false, async () => (await (await zarr.open(mapStore(map), { path: "a", kind: "array" })).get(null)).data);
    for (const wrap of [(b) => b.slice().buffer, (b) => new DataView(b.slice().buffer), (b) => ({ data: b, generation: "g1" })]) {
      const store = { get: (k) => (k.endsWith("/.zarray") || k.endsWith("/.zattrs") || !map.has(k) ? map.get(k) : wrap(map.get(k))) };
      const arr = await zarr.open(store, { path: "a", kind: "array" });
      const before = gets(store);
      assert.deepEqual((await arr.get(null)).data, want);
      assert.ok(gets(store) > before);
    }
    const odd = { get: (k) => (k === "/a/1.1" ? "not bytes" : map.get(k)) };
    const arr = await zarr.open(odd, { path: "a", kind: "array" });
    const mine = await withDirect(true, () => outcome(() => arr.get(null)));
    const engine = await withDirect(false, () => outcome(() => arr.get(null)));
    assert.equal(mine.error, "STORE");
    assert.deepEqual(mine, engine);
  });

  test("an abort while the store answers: ABORTED, at once", async () => {
    const { map } = await make(codecs.zstd);
    let asked = 0;
    const slow = {
      get(key) {
        if (!/^\/a\/\d/.test(key)) return map.get(key);
        asked++;
        return new Promise(() => {}); // never answers
      },
    };
    const arr = await zarr.open(slow, { path: "a", kind: "array" });
    const ac = new AbortController();
    const p = arr.get(null, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(asked > 0 && gets(slow) > 0, "the chunks were asked for on the direct path");
    ac.abort();
    const t0 = performance.now();
    await assert.rejects(p, (e) => e.code === "ABORTED");
    assert.ok(performance.now() - t0 < 2000);
    await assert.rejects(arr.get(null, { signal: AbortSignal.abort() }), (e) => e.code === "ABORTED");
  });

  test("concurrency bounds the requests in flight", async () => {
    const { map } = await make(codecs.raw);
    let inFlight = 0;
    let most = 0;
    const store = {
      async get(key) {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return map.get(key);
      },
    };
    const arr = await zarr.open(store, { path: "a", kind: "array" });
    most = 0;
    await arr.get(null, { concurrency: 2 });
    assert.equal(most, 2);
    most = 0;
    await arr.get(null);
    assert.equal(most, 9); // the 9 chunks at once (the engine's default is 16)
  });

  test("concurrent direct reads share a chunk's pending fetch; storeStats counts them", async () => {
    const { map } = await make(codecs.zlib);
    let requests = 0;
    const store = {
      async get(key) {
        requests++;
        await new Promise((r) => setTimeout(r, 5));
        return map.get(key);
      },
    };
    const arr = await zarr.open(store, { path: "a", kind: "array" });
    const s0 = await zarr.storeStats(store);
    requests = 0;
    const all = await Promise.all(Array.from({ length: 10 }, () => arr.get(null)));
    for (const r of all) assert.deepEqual(r.data, all[0].data);
    assert.equal(requests, 9);
    const s1 = await zarr.storeStats(store);
    assert.equal(s1.get - s0.get, 9);
    assert.ok(s1.bytes > s0.bytes);
  });

  test("declined: a chunk cache, Blosc, big-endian, F order, sharding, float16 go to the engine", async () => {
    const cases = [
      [{ ...codecs.zstd }, { cacheBytes: 1 << 20 }],
      [{ zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } }, {}],
      [{ zarrFormat: 2, compressor: null, dtype: ">i4" }, {}],
      [{ zarrFormat: 2, compressor: null, order: "F" }, {}],
      [{ zarrFormat: 3, shardShape: [8, 10] }, {}],
      [{ zarrFormat: 3, dtype: "float16", fillValue: 0 }, {}],
    ];
    for (const [opts, openOpts] of cases) {
      const map = new Map();
      const store = mapStore(map);
      const w = await zarr.create(store, { path: "a", shape: [10, 12], chunks: [4, 5], dtype: "int32", fillValue: 0, ...opts });
      await w.set(null, 3);
      const arr = await zarr.open(store, { path: "a", kind: "array", ...openOpts });
      const before = gets(store);
      const r = await arr.get(null);
      assert.equal(r.data[5], 3);
      assert.equal(gets(store), before, `${JSON.stringify(opts)} ${JSON.stringify(openOpts)} was read directly`);
    }
  });

  test("a write between two reads is seen (nothing kept)", async () => {
    const { store } = await make(codecs.zstd);
    const arr = await zarr.open(store, { path: "a", kind: "array" });
    assert.equal((await arr.get("0, 0")).data[0], -50);
    await arr.set("0, 0", 99);
    assert.equal((await arr.get("0, 0")).data[0], 99);
  });
});
