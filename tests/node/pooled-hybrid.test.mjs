// Reads shared with decode workers, where the calling thread decodes too
// (npm/lib/workers.js):
// in one read, chunks go to the workers and the rest are decoded on the
// calling thread with the decoders module. Both must have decoded chunks of
// the same read, and the result must be the engine's (the engine reading on
// this thread, with the executor switched off), in
// shared and transfer modes, for stores that answer at once and with
// promises. A chunk the calling thread's decoder declines is the engine's
// to decode, or to report.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { engineRead } from "./engine-read.mjs";
import { tuning } from "../../npm/lib/workers.js";
import { readStats } from "../../npm/lib/read.js";

const bytesOf = (d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength);


const compressors = {
  zstd: { id: "zstd", level: 1 },
  zlib: { id: "zlib", level: 1 },
  "blosc-zstd": { id: "blosc", cname: "zstd", clevel: 3, shuffle: 1, blocksize: 0 },
  "blosc-lz4": { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
};

for (const shared of [true, false]) {
  const mode = shared ? "shared" : "transfer";
  describe(`one pooled read decoded by the calling thread and the workers (${mode})`, () => {
    let pool;
    before(async () => {
      pool = await zarr.useWorkers(2, { minBytes: 0, shared });
    });
    after(async () => {
      Object.assign(tuning, { depth: 32 });
      await zarr.useWorkers(0);
    });

    test("both decoded chunks of the same read, and the result is the engine's", async (t) => {
      const store = new zarr.MemoryStore();
      // A store that answers with promises, over the same map.
      const later = { get: (key, opts) => new Promise((r) => setImmediate(() => r(store.get(key, opts)))) };
      const n = 600;
      const values = Float32Array.from({ length: n * n }, (_, i) => Math.sin(i / 91) * 300 + (i % 17));
      const sels = [null, [zarr.slice(5, 590), zarr.slice(33, 571)], [zarr.slice(null, null, 4), zarr.slice(2, null, 3)]];
      for (const [name, compressor] of Object.entries(compressors)) {
        // 24×24 chunks of 25², a fill value, and a region never written.
        const arr = await zarr.create(store, { path: name, shape: [n, n], chunks: [25, 25], dtype: "<f4", fillValue: 7, zarrFormat: 2, compressor });
        await arr.set([zarr.slice(0, 500), null], { data: values.subarray(0, 500 * n), shape: [500, n] });
        for (const [how, s] of [["at once", store], ["promises", later]]) {
          const a = s === store ? arr : await zarr.open(s, { path: name, kind: "array" });
          for (const sel of sels) {
            const what = `${name}, ${how}, ${JSON.stringify(sel)}`;
            const engine = await engineRead(a, sel);
            // Which thread decodes which chunk is a race: with chunks this
            // small the workers can keep up with a read alone. Every attempt
            // must give the engine's values; the first three run with the
            // default tuning, the last two hold each worker to one chunk at
            // a time, so the calling thread has to decode the others.
            const splits = [];
            for (let attempt = 0; attempt < 5 && !splits.some(([h, w]) => h > 0 && w > 0); attempt++) {
              if (attempt >= 3) Object.assign(tuning, { depth: 1 });
              const before = pool.stats();
              const pooled = await a.get(sel).finally(() => Object.assign(tuning, { depth: 32 }));
              const after = pool.stats();
              splits.push([after.here - before.here, after.decoded.reduce((x, d, i) => x + d - before.decoded[i], 0)]);
              assert.equal(after.reads, before.reads + 1, `${what}: read through the pool`);
              assert.equal(after.declined, before.declined, `${what}: chunks given back`);
              assert.deepEqual(pooled.shape, engine.shape, `${what}: shape`);
              assert.equal(pooled.data.buffer instanceof SharedArrayBuffer, shared, `${what}: buffer kind`);
              assert.ok(Buffer.from(bytesOf(pooled.data)).equals(Buffer.from(bytesOf(engine.data))), `${what}: values differ from the engine's`);
            }
            t.diagnostic(`${what}: chunks decoded by the calling thread / the workers, each attempt: ${splits.map((x) => x.join("/")).join(", ")}`);
            assert.ok(splits.some(([h, w]) => h > 0 && w > 0), `${what}: no read was decoded by both the calling thread and the workers (${JSON.stringify(splits)})`);
          }
        }
      }
    });

    test("a chunk the calling thread's decoder declines is the engine's: its values, or its CODEC error", async () => {
      const store = new zarr.MemoryStore();
      const arr = await zarr.create(store, { path: "z", shape: [200, 200], chunks: [20, 20], dtype: "<f8", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
      await arr.set(null, { data: Float64Array.from({ length: 200 * 200 }, (_, i) => i / 3), shape: [200, 200] });
      // (no worker gets a chunk: the calling thread decodes them all)
      Object.assign(tuning, { depth: 0 });
      try {
        const good = store.map.get("/z/3.4");
        const bad = good.slice();
        bad.fill(0x55, 12);
        await store.set("/z/3.4", bad);
        const engine = await engineRead(arr, null);
        const before = pool.stats();
        const declined = readStats.declined;
        const pooled = await arr.get(null).catch((e) => e);
        const after = pool.stats();
        assert.equal(engine.code, "CODEC", engine.message);
        assert.ok(pooled instanceof zarr.ZarrError, String(pooled));
        assert.deepEqual([pooled.code, pooled.message, pooled.where], [engine.code, engine.message, engine.where]);
        assert.equal(readStats.declined, declined + 1, "the calling thread's decoder gave the chunk back");
        assert.ok(after.here > before.here, "the calling thread decoded the chunks before it");
        await store.set("/z/3.4", good);
        const whole = await arr.get(null);
        assert.ok(pool.stats().here > after.here, "the calling thread decodes again in the next read");
        assert.ok(Buffer.from(bytesOf(whole.data)).equals(Buffer.from(bytesOf((await engineRead(arr, null)).data))));
      } finally {
        Object.assign(tuning, { depth: 32 });
      }
    });
  });
}
