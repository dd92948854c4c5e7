// The decode worker pool (useWorkers): every fixture zarr-python wrote
// (tests/fixtures/v2, and the v3 set) reads the same with chunks decoded in
// worker threads as without, the workers really decode them, a corrupt
// chunk still fails with the engine's error naming the key, and an idle
// pool does not keep Node running (the test process exits).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { readStats } from "../../npm/lib/read.js";
import { repoRoot, loadCases, compareCase, exists } from "./helpers.mjs";

// The codecs the workers take (the decoders module's): the rest is the
// engine's, on this thread.
const workersTake = /zstd|zlib|gzip|blosc/;

describe("fixtures with chunks decoded by 2 worker threads", () => {
  let pool;
  before(async () => {
    pool = await zarr.useWorkers(2, { minBytes: 0 });
  });
  after(async () => {
    await zarr.useWorkers(0);
  });

  for (const v of ["v2", "v3"]) {
    const dir = path.join(repoRoot, "tests", "fixtures", v);
    test(`${v}: every case equals what zarr-python wrote; compressed chunks went to the workers`, async (t) => {
      assert.ok(await exists(path.join(dir, "cases.json")), `${dir}/cases.json`);
      const cases = await loadCases(path.join(dir, "cases.json"));
      let compared = 0;
      let taken = 0;
      for (const c of cases) {
        const before = pool.stats().decoded.reduce((a, b) => a + b, 0);
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
        if (workersTake.test(c.name) && pool.stats().decoded.reduce((a, b) => a + b, 0) > before) taken++;
      }
      const st = pool.stats();
      t.diagnostic(`${compared} cases (${taken} of the workers' codecs decoded in part by them); chunks decoded per worker: ${st.decoded.join(", ")}; on this thread ${st.here}; reads ${st.reads}`);
      assert.ok(taken > 5, "the workers decoded chunks of the cases of their codecs");
      if (v === "v2") assert.ok(st.decoded.every((n) => n > 0), "both workers took chunks");
      assert.equal(st.declined, 0);
    });
  }

  test("a corrupt chunk fails with the engine's CODEC error naming the key", async () => {
    const store = new zarr.MemoryStore();
    const arr = await zarr.create(store, { path: "a", shape: [8], chunks: [4], dtype: "<i4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
    await arr.set(null, Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    await store.set("/a/1", new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 9, 9, 9, 9]));
    const declined = pool.stats().declined + readStats.declined;
    await assert.rejects(arr.get(null), (e) => e.code === "CODEC" && e.message.includes("a/1"));
    // (a worker, or this thread's decoders, gave the chunk back; the engine reported)
    assert.ok(pool.stats().declined + readStats.declined > declined, "the chunk was given back");
    // and reads go on
    await arr.set([zarr.slice(4, 8)], Int32Array.from([5, 6, 7, -8]));
    assert.deepEqual(Array.from((await arr.get(null)).data), [1, 2, 3, 4, 5, 6, 7, -8]);
  });
});

test("useWorkers: bad counts are refused; 0 stops the pool and reads go on in this thread", async () => {
  await assert.rejects(zarr.useWorkers(-1), (e) => e.code === "INVALID_ARGUMENT" && /count/.test(e.message));
  await assert.rejects(zarr.useWorkers(1.5), (e) => e.code === "INVALID_ARGUMENT");
  await assert.rejects(zarr.useWorkers(1, { minBytes: -4 }), (e) => e.code === "INVALID_ARGUMENT" && /minBytes/.test(e.message));
  const p = await zarr.useWorkers(1, { minBytes: 0 });
  assert.equal(p.size, 1);
  const stopped = await zarr.useWorkers(0);
  assert.equal(stopped.size, 0);
  const store = new zarr.MemoryStore();
  const arr = await zarr.create(store, { shape: [1000], chunks: [100], dtype: "<f8" });
  await arr.set(null, Float64Array.from({ length: 1000 }, (_, i) => i / 3));
  const { data } = await arr.get(null);
  assert.equal(data[999], 999 / 3);
  assert.deepEqual(p.stats().decoded, [0], "the stopped pool decoded nothing");
});

test("useWorkers calls take effect in order; stopping the pool mid-read leaves the read to this thread", async () => {
  const store = new zarr.MemoryStore();
  const n = 1 << 21;
  const arr = await zarr.create(store, { shape: [n], chunks: [n / 64], dtype: "<f4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
  const values = Float32Array.from({ length: n }, (_, i) => Math.sin(i / 1000));
  await arr.set(null, values);
  // A start and a stop issued together: the stop wins, and nothing decodes in a worker.
  const [started, stopped] = await Promise.all([zarr.useWorkers(2, { minBytes: 0 }), zarr.useWorkers(0)]);
  assert.deepEqual([started.size, stopped.size], [2, 0]);
  assert.equal((await arr.get(null)).data[12345], values[12345]);
  assert.deepEqual(started.stats().decoded, [0, 0], "the stopped pool took no chunk");
  // A read in flight when the pool stops still completes (what the worker
  // had, this thread's engine decodes).
  await zarr.useWorkers(1, { minBytes: 0 });
  const reading = arr.get(null);
  await zarr.useWorkers(0);
  const { data } = await reading;
  assert.deepEqual(data, values);
});

test("by default, a read worth the workers starts them, and they join it even when the program never yields to the event loop", async () => {
  // (a fresh process: the default pool, no useWorkers call)
  const { execFileSync } = await import("node:child_process");
  const script = `
    import * as zarr from ${JSON.stringify(new URL("../../npm/index.js", import.meta.url).href)};
    const store = new zarr.MemoryStore();
    const a = await zarr.create(store, { shape: [2048, 2048], chunks: [256, 256], dtype: "<f4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
    const values = Float32Array.from({ length: 2048 * 2048 }, (_, i) => Math.sin(i / 5000));
    await a.set(null, { data: values, shape: [2048, 2048] });
    const small = await a.get([zarr.slice(0, 300), zarr.slice(0, 300)]);
    const afterSmall = zarr.workerPool().stats().reads;
    let same = true;
    for (let r = 0; r < 3; r++) {
      const { data } = await a.get(null); // (16 MiB: worth the workers)
      same &&= data.every((x, i) => x === values[i]);
    }
    const s = zarr.workerPool().stats();
    console.log(JSON.stringify({ size: zarr.workerPool().size, afterSmall, reads: s.reads, decoded: s.decoded, same, small: small.data[301] === values[2048 + 1] }));
    process.exit(0);
  `;
  const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
  assert.equal(out.same, true, "the values");
  assert.equal(out.small, true);
  assert.equal(out.afterSmall, 0, "a small read starts no workers");
  assert.ok(out.size >= 1, "a default pool on 2 cores or more");
  assert.equal(out.reads, 3, "each large read shared with the workers");
  assert.ok(out.decoded.reduce((x, y) => x + y, 0) > 0, `the workers decoded chunks: ${out.decoded}`);
});
