// Sharded reads that need part of each shard, with a pool of decode
// workers (npm/lib/workers.js, run by the executor, lib/read.js): the
// calling thread reads the indexes and inner chunks and shares their
// decoding with a worker. The result
// must be zarrita.js's (reading the same store) and the engine's own, the
// worker and this thread must both have decoded chunks of the read, and a
// corrupt inner chunk (whichever thread meets it) must give the engine's
// CODEC error, as a read without the pool does.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { engineRead } from "./engine-read.mjs";
import { randomInts } from "./helpers.mjs";
import { tuning } from "../../npm/lib/workers.js";


const n = 2048;
// Steps and offsets that touch every inner chunk (so a read decodes 16 MiB,
// enough for the pool) but never whole shards.
const sels = [
  [[null, null, 2], [null, null, 2]],
  [[1, null, 3], [5, 2047, 2]],
  [[3, 2040, 1], [0, null, 3]],
];

describe("strided reads of a sharded array through the pool", () => {
  let pool, store, arr;
  before(async () => {
    pool = await zarr.useWorkers(2);
    store = new zarr.MemoryStore();
    const rnd = randomInts(15);
    const values = Float32Array.from({ length: n * n }, (_, i) => Math.round(Math.sin(i / 977) * 3000) / 8 + rnd(5));
    arr = await zarr.create(store, {
      path: "s",
      shape: [n, n],
      chunks: [128, 128],
      shardShape: [512, 512],
      dtype: "<f4",
      zarrFormat: 3,
      fillValue: 3,
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1 } }],
    });
    // (the last rows never written: inner chunks absent, the fill value stands)
    await arr.set([zarr.slice(0, 1900), null], { data: values.subarray(0, 1900 * n), shape: [1900, n] });
  });
  after(async () => {
    await zarr.useWorkers(0);
  });

  test("the result is zarrita.js's and the engine's; the worker and this thread both decoded", async () => {
    const theirs = await zarrita.open(zarrita.root(store).resolve("s"), { kind: "array" });
    for (const s of sels) {
      const sel = s.map(([a, b, c]) => zarr.slice(a, b, c));
      const before = pool.stats();
      // (each worker holds one chunk at a time, so this thread must decode
      // some: with the default depth the workers can keep up alone)
      Object.assign(tuning, { depth: 1 });
      const ours = await arr.get(sel).finally(() => Object.assign(tuning, { depth: 32 }));
      const after = pool.stats();
      const worker = after.decoded.reduce((a, b) => a + b, 0) - before.decoded.reduce((a, b) => a + b, 0);
      assert.ok(worker > 0, `${JSON.stringify(s)}: the worker decoded inner chunks`);
      assert.ok(after.here > before.here, `${JSON.stringify(s)}: this thread decoded inner chunks`);
      assert.equal(after.reads, before.reads + 1, "one pooled read");
      assert.ok(ours.data.buffer instanceof SharedArrayBuffer, "the result is the memory the worker wrote");
      const ref = await zarrita.get(theirs, s.map(([a, b, c]) => zarrita.slice(a, b, c)));
      assert.deepEqual(ours.shape, ref.shape);
      assert.deepEqual(ours.data, ref.data, `${JSON.stringify(s)}: zarrita.js's values`);
      const engine = await engineRead(arr, sel);
      assert.deepEqual(ours.data, engine.data, `${JSON.stringify(s)}: the engine's values`);
    }
  });

  test("a read under 16 MiB of inner chunks stays on this thread", async () => {
    const before = pool.stats();
    await arr.get([zarr.slice(100, 900, 2), zarr.slice(0, 700, 3)]);
    const after = pool.stats();
    assert.deepEqual(after.decoded, before.decoded);
    assert.equal(after.reads, before.reads);
  });

  test("a corrupt inner chunk, for the worker or for this thread: the engine's CODEC error", async () => {
    const key = "/s/c/0/0";
    const good = store.map.get(key);
    // The shard index (at the end): per inner chunk, offset and length (u64 little-endian).
    const indexAt = good.length - 16 * 16 - 4;
    const view = new DataView(good.buffer, good.byteOffset, good.byteLength);
    // The shard's first inner chunks in the read's order: the first goes to the
    // worker, the third is this thread's.
    for (const j of [0, 1, 2]) {
      const off = Number(view.getBigUint64(indexAt + 16 * j, true));
      const len = Number(view.getBigUint64(indexAt + 16 * j + 8, true));
      const bad = good.slice();
      for (let k = 4; k < len; k += 7) bad[off + k] ^= 0x5a;
      store.map.set(key, bad);
      try {
        const sel = [zarr.slice(null, null, 2), zarr.slice(null, null, 2)];
        const pooled = await arr.get(sel).then(() => null, (e) => e);
        const alone = await arr.get(sel, { workers: false }).then(() => null, (e) => e);
        const engine = await engineRead(arr, sel);
        assert.ok(pooled instanceof zarr.ZarrError, `inner chunk ${j}: an error with the pool (${pooled})`);
        assert.equal(pooled.code, "CODEC");
        assert.equal(alone?.code, "CODEC");
        assert.equal(engine?.code, "CODEC");
        assert.equal(pooled.message, engine.message);
      } finally {
        store.map.set(key, good);
      }
    }
    const ok = await arr.get([zarr.slice(null, null, 2), zarr.slice(null, null, 2)]);
    assert.equal(ok.data.length, (n / 2) * (n / 2));
  });
});
