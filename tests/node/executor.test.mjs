// Reads the executor runs (npm/lib/read.js): the engine plans, and JS
// fetches, decodes (raw, or one zstd/zlib/gzip compressor or a Blosc the
// decoders module walks, over little-endian elements; the engine decodes
// the rest) and places each chunk. These reads must return what the
// engine's own read returns (executor.enabled = false sends every read to
// the engine), with the same errors, and must really be taken (the store's
// requests counted by executorStats: zero without the executor).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { executor as direct, readStats, executorStats as directStats } from "../../npm/lib/read.js";
import { withDirect, outcome } from "./executor-helpers.mjs";
import { repoRoot, testData, loadCases, gate, until } from "./helpers.mjs";

const gets = (store) => directStats(store)?.get ?? 0;

/** Chunks the direct path decoded with the decoder of codec name ("blosc-lz4": the Blosc walker). */
const decodedBy = (name) => readStats.decoded[name.startsWith("blosc") ? "blosc" : name];

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

// Blosc on the direct path: the decoders module's Blosc walker decodes
// chunks of lz4/lz4hc/zstd/zlib streams with no shuffle or byte shuffle;
// arrays written otherwise (blosclz, snappy, bitshuffle, filters, F order,
// big-endian, sharded, converted data types) stay the engine's, and so does
// any chunk the walker declines.
const walkedCnames = new Set(["lz4", "lz4hc", "zstd", "zlib"]);

/** Whether the metadata document m says the walker reads the array's chunks (this test's own reading of the rule). */
function walkable(m) {
  if (m.zarr_format === 2) {
    const c = m.compressor;
    const size = Number(String(m.dtype).slice(2));
    return (
      c?.id === "blosc" &&
      !(m.filters?.length > 0) &&
      m.order === "C" &&
      /^(<[iu][248]|<f[48]|\|[iu]1)$/.test(m.dtype) &&
      walkedCnames.has(c.cname) &&
      (c.shuffle === 0 || c.shuffle === 1 || (c.shuffle === -1 && size > 1))
    );
  }
  const cs = m.codecs ?? [];
  const b = cs[1]?.configuration ?? {};
  return (
    cs.length === 2 &&
    cs[0].name === "bytes" &&
    (cs[0].configuration?.endian === "little" || ["int8", "uint8"].includes(m.data_type)) &&
    cs[1].name === "blosc" &&
    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"].includes(m.data_type) &&
    walkedCnames.has(b.cname) &&
    ["noshuffle", "shuffle"].includes(b.shuffle)
  );
}

/** Every array under root whose metadata names Blosc: {dir, path, meta}. */
async function bloscArrays(root) {
  const out = [];
  for (const f of await fs.readdir(root, { recursive: true })) {
    const base = path.basename(f);
    if (base !== ".zarray" && base !== "zarr.json") continue;
    const text = await fs.readFile(path.join(root, f), "utf8");
    if (!text.includes("blosc")) continue;
    const meta = JSON.parse(text);
    if (base === "zarr.json" && meta.node_type !== "array") continue;
    out.push({ path: path.dirname(f) === "." ? "" : path.dirname(f).split(path.sep).join("/"), meta });
  }
  return out;
}

describe("Blosc on the direct path: every Blosc fixture reads as the engine reads it", () => {
  const roots = [
    ["our v2 fixtures", path.join(repoRoot, "tests", "fixtures", "v2", "data")],
    ["our v3 fixtures", path.join(repoRoot, "tests", "fixtures", "v3", "data")],
    ["tests/compat (numcodecs' vectors, zarrs' arrays and snapshots)", path.join(repoRoot, "tests", "compat", "data")],
    ["zarrita's v2 fixtures (zarr-python)", path.join(testData, "zarrita", "v2", "data.zarr")],
    ["zarrita's v3 fixtures (zarr-python)", path.join(testData, "zarrita", "v3", "data.zarr")],
  ];
  for (const [name, root] of roots) {
    test(name, async (t) => {
      const arrays = await bloscArrays(root);
      assert.ok(arrays.length > 0, "Blosc arrays found");
      const store = new FileSystemStore(root);
      let taken = 0;
      let predicted = 0;
      for (const a of arrays) {
        let arr;
        try {
          arr = await zarr.open(store, { path: a.path, kind: "array" });
        } catch {
          continue; // (refused arrays: compat.test.mjs, fixtures.test.mjs)
        }
        let walked = false;
        for (const sel of [null, "::2", "..., 1:"]) {
          const decoded = readStats.decoded.blosc;
          const mine = await withDirect(true, () => outcome(() => arr.get(sel)));
          if (readStats.decoded.blosc > decoded) walked = true;
          const before = readStats.decoded.blosc;
          const engine = await withDirect(false, () => outcome(() => arr.get(sel)));
          assert.equal(readStats.decoded.blosc, before, "the switch sends reads to the engine");
          assert.deepEqual(mine, engine, `${a.path} [${sel}]`);
        }
        if (walked) taken++;
        if (walkable(a.meta)) {
          predicted++;
          assert.ok(walked, `${a.path} (${JSON.stringify(a.meta.compressor ?? a.meta.codecs)}, ${JSON.stringify(a.meta.dtype ?? a.meta.data_type)}) was not walked on the direct path`);
        }
      }
      t.diagnostic(`${arrays.length} Blosc arrays, ${taken} read on the direct path (${predicted} predicted from their metadata)`);
      if (predicted > 0) assert.ok(taken >= predicted);
    });
  }

  test("c-blosc's compatibility chunks (blosc 1.3.0 to 1.18.0, every compressor) as one-chunk v2 arrays", async (t) => {
    const dir = path.join(testData, "c-blosc-compat");
    const want = Int32Array.from({ length: 1000000 }, (_, i) => i);
    let taken = 0;
    let files = 0;
    for (const f of (await fs.readdir(dir)).filter((f) => f.endsWith(".cdata")).sort()) {
      const m = /^blosc-([\d.]+)-(\w+?)(-bitshuffle)?\.cdata$/.exec(f);
      assert.ok(m, f);
      files++;
      const [, , cname, bit] = m;
      const map = new Map([
        ["/a/.zarray", new TextEncoder().encode(JSON.stringify({ zarr_format: 2, shape: [1000000], chunks: [1000000], dtype: "<i4", compressor: { id: "blosc", cname, clevel: 5, shuffle: bit ? 2 : 1, blocksize: 0 }, fill_value: 0, order: "C", filters: null }))],
        ["/a/0", new Uint8Array(await fs.readFile(path.join(dir, f)))],
      ]);
      const arr = await zarr.open(mapStore(map), { path: "a", kind: "array" });
      const decoded = readStats.decoded.blosc;
      const mine = await withDirect(true, () => outcome(() => arr.get(null)));
      const walked = readStats.decoded.blosc > decoded;
      const engine = await withDirect(false, () => outcome(() => arr.get(null)));
      assert.deepEqual(mine, engine, f);
      assert.equal(mine.error, undefined, `${f}: ${mine.message}`);
      const r = await arr.get("::3");
      assert.deepEqual(r.data, want.filter((_, i) => i % 3 === 0), f);
      assert.equal(walked, walkedCnames.has(cname) && !bit, `${f}: walked ${walked}`);
      if (walked) taken++;
    }
    t.diagnostic(`${files} chunks, ${taken} walked on the direct path`);
    assert.ok(taken >= 10);
  });
});

describe("direct reads", () => {
  const make = async (opts, map = new Map()) => {
    const store = mapStore(map);
    const w = await zarr.create(store, { path: "a", shape: [10, 12], chunks: [4, 5], dtype: "int32", fillValue: -7, ...opts });
    await w.set([zarr.slice(0, 8), null], Int32Array.from({ length: 96 }, (_, i) => i * 3 - 50));
    return { map, store };
  };
  const blosc3 = (cname, shuffle) => ({ zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 } }] });
  const codecs = {
    raw: { zarrFormat: 2, compressor: null },
    zstd: { zarrFormat: 2, compressor: { id: "zstd", level: 1 } },
    zlib: { zarrFormat: 2, compressor: { id: "zlib", level: 1 } },
    gzip: { zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] },
    "blosc-lz4": { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } },
    "blosc-lz4hc": { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4hc", clevel: 5, shuffle: 0 } },
    "blosc-zstd": blosc3("zstd", "shuffle"),
    "blosc-zlib": blosc3("zlib", "noshuffle"),
  };

  for (const [name, opts] of Object.entries(codecs)) {
    test(`${name}: windows, strides, integer indices and missing chunks as the engine reads them, sync and async stores`, async () => {
      const { map } = await make(opts);
      for (const async of [false, true]) {
        const store = mapStore(map, { async });
        const arr = await zarr.open(store, { path: "a", kind: "array" });
        for (const sel of [null, "1:9, 2:11", "::3, 1::4", "9, :", "3, 4", "..., 7", "8:, :", "2:2, :"]) {
          const before = gets(store);
          const decoded = decodedBy(name);
          const mine = await withDirect(true, () => outcome(() => arr.get(sel)));
          assert.ok(gets(store) > before || sel === "2:2, :", `${name} [${sel}] was not read directly`);
          // (chunks past row 8 are missing: the fill value, nothing decoded)
          if (name !== "raw" && !["8:, :", "9, :", "2:2, :"].includes(sel)) assert.ok(decodedBy(name) > decoded, `${name} [${sel}]: no chunk decoded on the direct path`);
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

  // Blosc stores chunks under 128 bytes as they are (memcpyed): these
  // arrays' chunks (32×30 int32) hold real lz4/zstd/zlib streams.
  const makeBlosc = async (opts, map = new Map()) => {
    const store = mapStore(map);
    const w = await zarr.create(store, { path: "a", shape: [64, 60], chunks: [32, 30], dtype: "int32", fillValue: -7, ...opts });
    await w.set(null, Int32Array.from({ length: 64 * 60 }, (_, i) => (i % 97) * 5 - 200));
    return { map, store };
  };

  test("damaged Blosc chunks: the engine's error (or its values), naming the key", async () => {
    // [codec, damage, whether the engine must reject it] (an lz4 stream
    // with changed literals still decodes: then both return those values)
    let rejected = 0;
    for (const [name, bad, fails] of [
      ["blosc-lz4", (b) => b.map((x, i) => (i > 40 && i < 60 ? x ^ 0x5a : x)), false],
      ["blosc-lz4", (b) => b.map((x, i) => (i > 16 ? x ^ 0xff : x)), true],
      ["blosc-lz4hc", (b) => b.subarray(0, b.length - 3), true],
      ["blosc-zstd", (b) => b.map((x, i) => (i > 40 && i < 60 ? x ^ 0x5a : x)), false],
      ["blosc-zstd", (b) => b.map((x, i) => (i > 40 ? x ^ 0xff : x)), true],
      ["blosc-zlib", (b) => b.map((x, i) => (i > 40 && i < 60 ? x ^ 0x5a : x)), true],
      ["blosc-zlib", (b) => b.map((x, i) => (i === 4 ? x + 4 : x)), true], // (the header's decoded size)
      ["blosc-zstd", (b) => b.subarray(0, 15), true],
    ]) {
      const { map } = await makeBlosc(codecs[name]);
      const key = codecs[name].zarrFormat === 3 ? "/a/c/1/1" : "/a/1.1";
      assert.equal(map.get(key)[2] & 0x02, 0, `${name}: chunk 1.1 is compressed (not memcpyed)`);
      map.set(key, bad(map.get(key)));
      for (const async of [false, true]) {
        const store = mapStore(map, { async });
        const arr = await zarr.open(store, { path: "a", kind: "array" });
        const decoded = readStats.decoded.blosc;
        const mine = await withDirect(true, () => outcome(() => arr.get(null)));
        assert.ok(readStats.decoded.blosc - decoded >= 3, `${name}: the 3 intact chunks were walked`);
        const engine = await withDirect(false, () => outcome(() => arr.get(null)));
        assert.deepEqual(mine, engine, name);
        if (fails) {
          assert.equal(mine.error, "CODEC", `${name}: ${mine.message}`);
          assert.ok(mine.message.includes(key.slice(1)), mine.message);
          rejected++;
        }
      }
    }
    assert.equal(rejected, 12);
  });

  test("Blosc chunks the walker declines (blosclz, bitshuffle, snappy) are the engine's, in a read that stays direct", async () => {
    // An lz4 + byte shuffle array whose chunk 1.1 another writer wrote with
    // other settings: that chunk goes to the engine, the rest are walked.
    const { map } = await makeBlosc(codecs["blosc-lz4"]);
    const values = Int32Array.from({ length: 32 * 30 }, (_, i) => 1000 + (i % 13));
    for (const compressor of [
      { id: "blosc", cname: "blosclz", clevel: 5, shuffle: 1 },
      { id: "blosc", cname: "lz4", clevel: 5, shuffle: 2 },
      { id: "blosc", cname: "snappy", clevel: 5, shuffle: 0 },
      { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, typesize: 2, walked: true },
    ]) {
      const other = mapStore(new Map());
      const w = await zarr.create(other, { path: "a", shape: [32, 30], chunks: [32, 30], dtype: "int32", ...compressor.typesize ? { zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "zstd", clevel: 5, shuffle: "shuffle", typesize: 2, blocksize: 0 } }] } : { zarrFormat: 2, compressor } });
      await w.set(null, values);
      const chunk = other.map.get(compressor.typesize ? "/a/c/0/0" : "/a/0.0");
      assert.ok(chunk, "the other writer's chunk");
      map.set("/a/1.1", chunk);
      for (const async of [false, true]) {
        const store = mapStore(map, { async });
        const arr = await zarr.open(store, { path: "a", kind: "array" });
        const decoded = readStats.decoded.blosc;
        const mine = await withDirect(true, () => outcome(() => arr.get(null)));
        // (a byte shuffle of another type size is the walker's too)
        assert.equal(readStats.decoded.blosc - decoded, compressor.walked ? 4 : 3, `${JSON.stringify(compressor)}: the 3 other chunks walked`);
        const engine = await withDirect(false, () => outcome(() => arr.get(null)));
        assert.equal(mine.error, undefined, JSON.stringify(mine));
        assert.deepEqual(mine, engine, JSON.stringify(compressor));
        const r = await arr.get("32:, 30:");
        assert.deepEqual(Array.from(r.data), Array.from(values));
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
    const held = gate(); // the store answers (ignoring the signal) only once the gate opens
    const slow = {
      async get(key) {
        if (!/^\/a\/\d/.test(key)) return map.get(key);
        asked++;
        await held.wait();
        return map.get(key);
      },
    };
    const arr = await zarr.open(slow, { path: "a", kind: "array" });
    const ac = new AbortController();
    const p = arr.get(null, { signal: ac.signal });
    try {
      await until(() => asked > 0, "the chunks to be asked for");
      assert.ok(gets(slow) > 0, "the chunks were asked for on the direct path");
      ac.abort();
      await assert.rejects(p, (e) => e.code === "ABORTED");
      assert.equal(held.opened, false, "the read ended only when the store answered");
    } finally {
      held.open();
    }
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

  test("a chunk cache and float16 go to the engine; Blosc the walker does not cover (blosclz, snappy, bitshuffle), big-endian, F order, filters, shards of such chunks are decoded by the engine in the executor's read", async () => {
    const engineReads = [
      [{ ...codecs.zstd }, { cacheBytes: 1 << 20 }],
      [{ ...codecs["blosc-lz4"] }, { cacheBytes: 1 << 20 }],
      [{ zarrFormat: 3, dtype: "float16", fillValue: 0 }, {}],
    ];
    const engineDecodes = [
      { zarrFormat: 2, compressor: { id: "blosc", cname: "blosclz", clevel: 5, shuffle: 1 } },
      { zarrFormat: 2, compressor: { id: "blosc", cname: "snappy", clevel: 5, shuffle: 0 } },
      { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 2 } },
      blosc3("zstd", "bitshuffle"),
      { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }, dtype: ">i4" },
      { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }, order: "F" },
      { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }, filters: [{ id: "delta", dtype: "<i4" }] },
      { zarrFormat: 2, compressor: null, dtype: ">i4" },
      { zarrFormat: 2, compressor: null, order: "F" },
    ];
    for (const [opts, openOpts] of [...engineReads, ...engineDecodes.map((o) => [o, {}])]) {
      const map = new Map();
      const store = mapStore(map);
      const w = await zarr.create(store, { path: "a", shape: [10, 12], chunks: [4, 5], dtype: "int32", fillValue: 0, ...opts });
      await w.set(null, 3);
      const arr = await zarr.open(store, { path: "a", kind: "array", ...openOpts });
      const before = gets(store);
      const decoded = readStats.decoded.engine;
      const r = await arr.get(null);
      assert.equal(r.data[5], 3);
      if (engineDecodes.includes(opts)) {
        assert.equal(gets(store) - before, 9, `${JSON.stringify(opts)}: the executor fetched every chunk`);
        assert.equal(readStats.decoded.engine - decoded, 9, `${JSON.stringify(opts)}: the engine decoded every chunk`);
      } else {
        assert.equal(gets(store), before, `${JSON.stringify(opts)} ${JSON.stringify(openOpts)} was read by the executor`);
      }
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
