// Reads shared with decode workers (npm/lib/workers.js): the workers
// decode chunks of a read the plan finds worth them and write them into the
// result themselves, either into a SharedArrayBuffer (shared: true, Node's
// default) or by transferring each decoded chunk back to be copied here
// (shared: false, what a page without cross-origin isolation gets). Both
// must run, and give what the engine gives on this thread: the fixtures
// zarr-python wrote, every selection kind over many codecs and data types,
// and the same ZarrError for corrupt chunks, failing stores and aborts.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { repoRoot, loadCases, compareCase, exists } from "./helpers.mjs";
import { readStats } from "../../npm/lib/read.js";

const bytesOf = (d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** Reads sel with and without the pool and checks they agree; returns the pooled result. */
async function same(arr, sel, what) {
  const alone = await arr.get(sel, { workers: false });
  const pooled = await arr.get(sel);
  assert.deepEqual(pooled.shape, alone.shape, `${what}: shape`);
  assert.deepEqual(pooled.stride, alone.stride, `${what}: stride`);
  assert.equal(pooled.data.constructor, alone.data.constructor, `${what}: array type`);
  assert.ok(Buffer.from(bytesOf(pooled.data)).equals(Buffer.from(bytesOf(alone.data))), `${what}: values differ`);
  return pooled;
}

for (const shared of [true, false]) {
  const mode = shared ? "shared" : "transfer";
  describe(`pooled reads, ${mode} (useWorkers(2, {shared: ${shared}}))`, () => {
    let pool;
    before(async () => {
      pool = await zarr.useWorkers(2, { minBytes: 0, shared });
      assert.equal(pool.shared, shared);
    });
    after(async () => {
      await zarr.useWorkers(0);
    });

    for (const v of ["v2", "v3"]) {
      const dir = path.join(repoRoot, "tests", "fixtures", v);
      test(`${v} fixtures: every case equals what zarr-python wrote`, async (t) => {
        assert.ok(await exists(path.join(dir, "cases.json")), `${dir}/cases.json`);
        const cases = await loadCases(path.join(dir, "cases.json"));
        const before = pool.stats().reads;
        let compared = 0;
        for (const c of cases) {
          let res;
          try {
            const arr = await zarr.open(new FileSystemStore(path.join(dir, "data", c.store)), { path: c.path, kind: "array" });
            res = await arr.get(c.selection);
          } catch (e) {
            if (c.note?.startsWith("OPTIONAL") && e.code === "UNSUPPORTED") continue;
            throw new Error(`${c.name}: ${e.message}`);
          }
          const diff = compareCase(c, res, { anyNaN: c.name === "fill/c8_nan_inf" });
          assert.equal(diff, null, `${c.name}: ${diff}`);
          compared++;
        }
        const st = pool.stats();
        const pooled = st.reads - before;
        t.diagnostic(`${compared} cases, ${pooled} read with the pool (${mode}); chunks per worker: ${st.decoded.join(", ")}, here: ${st.here}`);
        // (the v3 fixtures are mostly codecs the workers leave to the engine)
        assert.ok(pooled > (v === "v2" ? compared / 4 : 10), `only ${pooled} of ${compared} reads went through the pool`);
        assert.ok(st.decoded.every((n) => n > 0), "each worker decoded");
      });
    }

    test(`the result is ${shared ? "a SharedArrayBuffer the workers wrote" : "an ArrayBuffer of this thread"}; every codec, data type and selection agrees with the engine`, async () => {
      const store = new zarr.MemoryStore();
      const compressors = {
        raw: { compressor: null },
        zstd: { compressor: { id: "zstd", level: 1 } },
        zlib: { compressor: { id: "zlib", level: 1 } },
        gzip: { compressor: { id: "gzip", level: 1 } },
        "blosc-zstd": { compressor: { id: "blosc", cname: "zstd", clevel: 3, shuffle: 1, blocksize: 0 } },
        "blosc-lz4": { compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 2, blocksize: 0 } },
        "zstd, order F": { compressor: { id: "zstd", level: 1 }, order: "F" },
        "zstd, delta filter": { compressor: { id: "zstd", level: 1 }, filters: [{ id: "delta", dtype: "<f8" }] },
      };
      const n = 150;
      const values = Float64Array.from({ length: n * n }, (_, i) => Math.sin(i / 7) * 1000 + (i % 13));
      const sels = [null, [zarr.slice(17, 133), zarr.slice(5, 149)], [zarr.slice(null, null, 3), zarr.slice(1, null, 7)], [77, null], "10:140:2, -3", [zarr.slice(40, 40), null]];
      let pooledBefore = pool.stats().reads;
      for (const [name, opts] of Object.entries(compressors)) {
        // Chunks of 32 (edges partial), a fill value, and two chunks never written.
        const arr = await zarr.create(store, { path: name, shape: [n, n], chunks: [32, 32], dtype: "<f8", fillValue: -1.5, zarrFormat: 2, ...opts });
        await arr.set([zarr.slice(0, 64), null], { data: values.subarray(0, 64 * n), shape: [64, n] });
        await arr.set([zarr.slice(96, n), zarr.slice(0, 64)], { data: Float64Array.from({ length: (n - 96) * 64 }, (_, i) => i), shape: [n - 96, 64] });
        // (the workers take zstd, zlib, gzip and Blosc without bitshuffle
        // over little-endian C-order elements; selections of two chunks or more)
        const workers = ["zstd", "zlib", "gzip", "blosc-zstd"].includes(name);
        for (const sel of sels) {
          const res = await same(arr, sel, `${name} ${JSON.stringify(sel)}`);
          if (workers && res.data.length > 150) assert.equal(res.data.buffer instanceof SharedArrayBuffer, shared, `${name} ${JSON.stringify(sel)}: buffer kind`);
        }
      }
      // (zstd, zlib, gzip and Blosc(zstd) chunks: 5 selections of 6 touch
      // two chunks or more; raw chunks, bitshuffle, F order and filters
      // are not the workers')
      assert.ok(pool.stats().reads >= pooledBefore + 4 * 5, "the reads went through the pool");
      // Data types: big-endian, one byte, 64-bit integers, complex, bool; v3 with whole shards.
      const kinds = [
        [">f4", Float32Array],
        ["|u1", Uint8Array],
        ["<i8", BigInt64Array],
        ["<c8", Float32Array],
        ["|b1", Uint8Array],
        ["<u2", Uint16Array],
      ];
      for (const [dt, Typed] of kinds) {
        const arr = await zarr.create(store, { path: `t${dt}`, shape: [70, 50], chunks: [16, 16], dtype: dt, zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
        const items = dt === "<c8" ? 2 : 1;
        const d = new Typed(70 * 50 * items);
        for (let i = 0; i < d.length; i++) d[i] = Typed === BigInt64Array ? BigInt(i * 7919 - 100000) : dt === "|b1" ? i % 3 === 0 : (i * 37) % 250;
        await arr.set(null, dt === "|b1" ? Array.from(d, (x) => x === 1) : { data: d, shape: [70, 50] });
        for (const sel of [...sels.slice(0, 3), "5:60:2, -3"]) await same(arr, sel, `${dt} ${JSON.stringify(sel)}`);
      }
      pooledBefore = pool.stats().reads;
      const sharded = await zarr.create(store, { path: "sharded", shape: [64, 64], chunks: [8, 8], shardShape: [32, 32], dtype: "float32", zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1 } }] });
      await sharded.set(null, { data: Float32Array.from({ length: 64 * 64 }, (_, i) => i / 4), shape: [64, 64] });
      await same(sharded, null, "whole shards");
      assert.equal(pool.stats().reads, pooledBefore + 1, "whole shards are read with the pool");
      await same(sharded, [zarr.slice(3, 40), zarr.slice(9, 12)], "part of shards");
      assert.equal(pool.stats().reads, pooledBefore + 2, "parts of shards are read with the pool");
    });

    test("a corrupt chunk fails with the engine's ZarrError; so does a failing store; an abort is ABORTED", async () => {
      const store = new zarr.MemoryStore();
      for (const [name, compressor] of [["zstd", { id: "zstd", level: 1 }], ["blosc", { id: "blosc", cname: "zstd", clevel: 3, shuffle: 1, blocksize: 0 }]]) {
        const arr = await zarr.create(store, { path: name, shape: [64, 64], chunks: [16, 16], dtype: "<f4", zarrFormat: 2, compressor });
        await arr.set(null, { data: Float32Array.from({ length: 64 * 64 }, (_, i) => i), shape: [64, 64] });
        const good = store.map.get(`/${name}/2.1`);
        const bad = good.slice();
        bad.fill(0x55, 16);
        await store.set(`/${name}/2.1`, bad);
        const alone = await arr.get(null, { workers: false }).catch((e) => e);
        const failed = pool.stats().declined + readStats.declined;
        const pooled = await arr.get(null).catch((e) => e);
        assert.equal(alone.code, "CODEC", `${name}: ${alone.message}`);
        assert.ok(pooled instanceof zarr.ZarrError, `${name}: ${pooled}`);
        assert.deepEqual([pooled.code, pooled.message, pooled.where], [alone.code, alone.message, alone.where], name);
        // (given back by the worker that had it, or declined by the calling thread's decoder)
        assert.ok(pool.stats().declined + readStats.declined > failed, `${name}: the chunk was given back to the engine`);
        await store.set(`/${name}/2.1`, good);
      }
      // A store that fails on one chunk.
      const flaky = { map: store.map, get: (key, opts) => (key === "/zstd/1.3" ? Promise.reject(new Error("disk on fire")) : store.get(key, opts)) };
      const arr = await zarr.open(flaky, { path: "zstd", kind: "array" });
      const alone = await arr.get(null, { workers: false }).catch((e) => e);
      const pooled = await arr.get(null).catch((e) => e);
      assert.equal(alone.code, "STORE");
      assert.deepEqual([pooled.code, pooled.message], [alone.code, alone.message]);
      // An abort in the middle of a pooled read (at its third chunk request).
      const ac = new AbortController();
      let asked = 0;
      const slow = {
        get: (key, opts) => {
          if (key.endsWith("/zarr.json") || key.includes(".z")) return store.get(key, opts);
          if (++asked === 3) ac.abort();
          return new Promise((r) => setTimeout(() => r(store.get(key, opts)), 2));
        },
      };
      const sa = await zarr.open(slow, { path: "zstd", kind: "array" });
      await assert.rejects(sa.get(null, { signal: ac.signal }), (e) => e instanceof zarr.ZarrError && e.code === "ABORTED");
      assert.ok(asked >= 3);
      assert.equal((await sa.get(null)).data[64 * 64 - 1], 64 * 64 - 1, "reads go on");
    });

    test("a read never mixes versions of a chunk while it is rewritten", async () => {
      const store = new zarr.MemoryStore();
      const arr = await zarr.create(store, { shape: [128, 128], chunks: [32, 32], dtype: "<i4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
      await arr.set(null, 0);
      let writing = true;
      const writer = (async () => {
        for (let v = 1; writing; v++) {
          await arr.set([zarr.slice(32, 96), zarr.slice(32, 96)], v);
          await new Promise((r) => setImmediate(r)); // (a loop of promises alone would starve the workers' messages)
        }
      })();
      const before = pool.stats().reads;
      for (let r = 0; r < 20; r++) {
        const { data } = await arr.get(null);
        for (const [ci, cj] of [[1, 1], [1, 2], [2, 1], [2, 2]]) {
          const first = data[ci * 32 * 128 + cj * 32];
          for (let i = 0; i < 32; i++) for (let j = 0; j < 32; j++) assert.equal(data[(ci * 32 + i) * 128 + cj * 32 + j], first, `chunk ${ci},${cj} mixes versions`);
        }
      }
      writing = false;
      await writer;
      assert.equal(pool.stats().reads, before + 20);
    });
  });
}

test("reads the engine's plan leaves to the engine: a chunk cache, strings, float16", async () => {
  const pool = await zarr.useWorkers(2, { minBytes: 0 });
  try {
    const store = new zarr.MemoryStore();
    const arr = await zarr.create(store, { path: "a", shape: [64, 64], chunks: [16, 16], dtype: "<f2", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
    await arr.set(null, 1.5);
    const s = await zarr.create(store, { path: "s", shape: [40], chunks: [8], dtype: "<U4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
    await s.set(null, "ab");
    const f = await zarr.create(store, { path: "f", shape: [64, 64], chunks: [16, 16], dtype: "<f4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
    await f.set(null, 2);
    const cached = await zarr.open(store, { path: "f", kind: "array", cacheBytes: 1 << 20 });
    const engine = readStats.engineReads;
    const pooled = pool.stats().reads;
    assert.equal((await arr.get(null)).data[4095], 1.5);
    assert.equal((await s.get(null)).data[39], "ab");
    assert.equal((await cached.get(null)).data[4095], 2);
    assert.equal(readStats.engineReads, engine + 3);
    assert.equal(pool.stats().reads, pooled);
  } finally {
    await zarr.useWorkers(0);
  }
});
