// Sharded reads by the executor (npm/lib/read.js): the engine plans the
// read and lists each shard's inner chunks from its index (expandShards);
// JS fetches the index and the inner chunks' byte ranges (on condition
// that the shard is still the version whose index it read), decodes and
// places them. These reads must return what the engine's own read returns
// (executor.enabled = false), with the same errors, never values of two
// versions of a shard, and must really be taken (readStats.finished counts
// the reads the executor finished itself).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/node.js";
import { FileSystemStore } from "../../npm/node.js";
import { executorStats as directStats, readStats } from "../../npm/lib/read.js";
import { withDirect, outcome } from "./executor-helpers.mjs";
import { repoRoot, testData, startServer } from "./helpers.mjs";
import { twoShardVersions, alternatingRoutes, readMany, valueA, valueB } from "./versions.mjs";

/** Reads the versions' window n times (versions.mjs readMany); placed: the reads the sharded direct path finished itself. */
async function readVersions(arr, n) {
  const out = await readMany(zarr, arr, n, { counter: () => readStats.finished });
  return { ...out, placed: out.counted };
}

/** The read with the path on and off: both outcomes, and whether this path finished it. */
async function both(arr, sel) {
  const before = readStats.finished;
  const mine = await withDirect(true, () => outcome(() => arr.get(sel)));
  const placed = readStats.finished > before;
  const engine = await withDirect(false, () => outcome(() => arr.get(sel)));
  return { mine, engine, placed };
}

/** Arrays under root whose zarr.json has a sharding codec: their paths. */
async function shardedArrays(root) {
  const out = [];
  const walk = async (dir) => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name === "zarr.json") {
        const doc = await fs.readFile(p, "utf8");
        if (doc.includes('"sharding_indexed"') && doc.includes('"array"')) out.push(path.relative(root, dir).split(path.sep).join("/"));
      }
    }
  };
  await walk(root);
  return out;
}

/** Selections read from every fixture: whole, a window, strides, an integer index, the last element, empty. */
function selectionsFor(shape) {
  const sels = [null, "..., -1"];
  if (shape.length > 0) {
    sels.push("1:, ::2");
    sels.push(shape.map((n) => `${Math.floor(n / 4)}:${Math.max(Math.floor((3 * n) / 4), 1)}`).join(", "));
    sels.push(shape.map((_, d) => (d === 0 ? "::3" : "1::2")).join(", "));
    sels.push(shape.map((n, d) => (d === 0 ? String(Math.floor(n / 2)) : ":")).join(", "));
    sels.push(shape.map((_, d) => (d === 0 ? "0:0" : ":")).join(", "));
  }
  return sels;
}

describe("sharded direct reads equal the engine's for every sharded fixture", () => {
  const roots = [];
  for (const v of ["v2", "v3"]) roots.push([`project ${v}`, path.join(repoRoot, "tests", "fixtures", v, "data")]);
  for (const extra of ["zfpy", "pcodec"]) roots.push([`project ${extra}`, path.join(repoRoot, "tests", "fixtures", extra)]);
  roots.push(["zarrita (peer) v3", path.join(testData, "zarrita", "v3", "data.zarr")]);
  let taken = 0;
  let reads = 0;
  for (const [name, root] of roots) {
    test(name, async (t) => {
      const paths = await shardedArrays(root);
      let here = 0;
      for (const p of paths) {
        const store = new FileSystemStore(root);
        let arr;
        try {
          arr = await zarr.open(store, { path: p, kind: "array" });
        } catch {
          continue; // (error cases: fixtures.test.mjs)
        }
        for (const sel of selectionsFor(arr.shape)) {
          const { mine, engine, placed } = await both(arr, sel);
          assert.deepEqual(mine, engine, `${p} [${sel}]`);
          reads++;
          if (placed) {
            taken++;
            here++;
          }
        }
      }
      t.diagnostic(`${paths.length} sharded arrays, ${here} reads placed by the sharded direct path`);
    });
  }
  test("the path really read most of them", () => {
    assert.ok(taken >= 40, `only ${taken} of ${reads} reads went the sharded direct way`);
  });
});

/** A store over a Map with getRange, sync or async, with or without generations (honouring ifMatch). */
function rangeStore(map, { async = false, versions = false } = {}) {
  const gen = new Map();
  const answer = (k, v, o) => (versions && o?.versioned && v !== undefined ? { data: v, generation: gen.get(k) ?? "g0" } : v);
  const later = (v) => (async ? new Promise((r) => setTimeout(() => r(v), Math.random() * 2)) : v);
  const stats = { get: 0, getRange: 0 };
  return {
    map,
    stats,
    get(k, o) {
      stats.get++;
      return later(answer(k, map.get(k), o));
    },
    getRange(k, r, o) {
      stats.getRange++;
      const v = map.get(k);
      if (versions && o?.ifMatch !== undefined && v !== undefined && o.ifMatch !== (gen.get(k) ?? "g0")) return later({ changed: true });
      if (v === undefined) return later(undefined);
      const s = r.suffixLength !== undefined ? v.subarray(Math.max(0, v.length - r.suffixLength)) : v.subarray(r.offset, r.offset + r.length);
      return later(answer(k, s, o));
    },
    set(k, v) {
      map.set(k, new Uint8Array(v));
      gen.set(k, `g${(Number((gen.get(k) ?? "g0").slice(1)) + 1)}`);
      return later(undefined);
    },
  };
}

describe("sharded direct reads", () => {
  const layouts = {
    "zstd, index at the end with crc32c": { codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1 } }] },
    "gzip": { codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] },
    "raw inner chunks": { codecs: [{ name: "bytes", configuration: { endian: "little" } }] },
    "blosc lz4 + shuffle": { codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }] },
    "blosc zstd": { codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "noshuffle", typesize: 4, blocksize: 0 } }] },
  };
  const sels = [null, "1:9, 2:11", "::3, 1::4", "9, :", "3, 4", "..., 7", "8:, :", "2:2, :", ":, 10:", "0:10:2, 0:12:5"];
  for (const [name, opts] of Object.entries(layouts)) {
    test(`${name}: windows, strides, indices, a missing shard and empty inner chunks as the engine reads them (sync/async, with/without generations)`, async () => {
      for (const async of [false, true]) {
        for (const versions of [false, true]) {
          const store = rangeStore(new Map(), { async, versions });
          const w = await zarr.create(store, { path: "a", shape: [10, 12], chunks: [2, 3], shardShape: [4, 6], dtype: "int32", fillValue: -7, zarrFormat: 3, ...opts });
          // Rows 8-9 are never written (a missing shard row); a few inner chunks stay empty.
          await w.set([zarr.slice(0, 8), null], Int32Array.from({ length: 96 }, (_, i) => i * 3 - 50));
          await w.set([zarr.slice(0, 2), zarr.slice(0, 3)], -7);
          const arr = await zarr.open(store, { path: "a", kind: "array" });
          let placed = 0;
          for (const sel of sels) {
            const r = await both(arr, sel);
            assert.deepEqual(r.mine, r.engine, `${name} [${sel}] async ${async} versions ${versions}`);
            if (r.placed) placed++;
          }
          assert.equal(placed, sels.length, `${name}: ${placed} of ${sels.length} reads placed directly`);
        }
      }
    });
  }

  test("0-d and 1-d sharded arrays, and many shards planned in one call (sync and async)", async () => {
    for (const async of [false, true]) {
      const store = rangeStore(new Map(), { async, versions: true });
      const z = await zarr.create(store, { path: "z", shape: [], chunks: [], shardShape: [], dtype: "int32", zarrFormat: 3 });
      await z.set(null, 42);
      const o = await zarr.create(store, { path: "o", shape: [103], chunks: [2], shardShape: [6], dtype: "int16", fillValue: -1, zarrFormat: 3 });
      await o.set([zarr.slice(0, 90)], Int16Array.from({ length: 90 }, (_, i) => i * 7 - 300));
      for (const [p, sels] of [["z", [null, "..."]], ["o", [null, "1:100", "::5", "95:", "7"]]]) {
        const arr = await zarr.open(store, { path: p, kind: "array" });
        for (const sel of sels) {
          const r = await both(arr, sel);
          assert.deepEqual(r.mine, r.engine, `${p} [${sel}] async ${async}`);
          assert.ok(r.placed, `${p} [${sel}] async ${async}: placed directly`);
        }
      }
    }
  });

  test("requests: the same ranges as the engine's (coalesced inner chunks), counted in storeStats; indexes kept for the next read; a shard whose inner chunks are all needed: whole, in one request", async () => {
    const map = new Map();
    const w = await zarr.create(rangeStore(map), { path: "a", shape: [64, 64], chunks: [8, 8], shardShape: [32, 32], dtype: "float32", zarrFormat: 3 });
    await w.set(null, Float32Array.from({ length: 64 * 64 }, (_, i) => Math.sin(i)));
    for (const sel of ["3:45, 10:50", "::4, ::4", null, "0, :"]) {
      // (fresh stores over the same data: each side keeps the indexes it reads, by store)
      const ours = rangeStore(map, { versions: true });
      const theirs = rangeStore(map, { versions: true });
      const arr = await zarr.open(ours, { path: "a", kind: "array" });
      const eng = await zarr.open(theirs, { path: "a", kind: "array" });
      ours.stats.get = ours.stats.getRange = 0;
      const s0 = await zarr.storeStats(ours);
      const mine = await withDirect(true, () => outcome(() => arr.get(sel)));
      const asked = { ...ours.stats };
      const s1 = await zarr.storeStats(ours);
      theirs.stats.get = theirs.stats.getRange = 0;
      const engine = await withDirect(false, () => outcome(() => eng.get(sel)));
      assert.deepEqual(mine, engine);
      // ::4 touches every inner chunk of the 4 shards: the executor reads
      // each shard whole (the engine: its index, then the inner chunks).
      const whole = sel === "::4, ::4";
      if (whole) {
        assert.deepEqual(asked, { get: 4, getRange: 0 }, `[${sel}]: whole shards`);
        assert.ok(theirs.stats.get + theirs.stats.getRange > 4, `[${sel}]: the engine's ${JSON.stringify(theirs.stats)}`);
      } else assert.deepEqual(asked, theirs.stats, `[${sel}]: requests of the executor vs the engine's`);
      assert.equal(s1.get - s0.get + s1.getRange - s0.getRange, asked.get + asked.getRange, "storeStats counts them");
      // The same read again: the shards' indexes are kept (a whole shard
      // is read whole, and its inner chunks come from it: nothing kept).
      ours.stats.get = ours.stats.getRange = 0;
      theirs.stats.get = theirs.stats.getRange = 0;
      assert.deepEqual(await withDirect(true, () => outcome(() => arr.get(sel))), mine);
      assert.deepEqual(await withDirect(false, () => outcome(() => eng.get(sel))), mine);
      if (whole) {
        assert.deepEqual(ours.stats, { get: 4, getRange: 0 }, `[${sel}]: a second read, whole shards again`);
        continue;
      }
      assert.deepEqual(ours.stats, theirs.stats, `[${sel}]: requests of a second read, the executor's vs the engine's`);
      if (sel !== null) assert.ok(ours.stats.getRange < asked.getRange, `[${sel}]: a second read asks for no index`);
    }
  });

  test("concurrent reads of one window (or of whole shards) share the index, inner chunk and shard requests", async () => {
    const map = new Map();
    const w = await zarr.create(rangeStore(map), { path: "a", shape: [64, 64], chunks: [8, 8], shardShape: [32, 32], dtype: "float32", zarrFormat: 3 });
    await w.set(null, Float32Array.from({ length: 64 * 64 }, (_, i) => i));
    for (const sel of ["3:45, 10:50", null]) {
      // (fresh stores: the second must not find the indexes the first kept)
      const first = rangeStore(map, { async: true, versions: true });
      const second = rangeStore(map, { async: true, versions: true });
      const one = await withDirect(true, () => outcome(async () => (await zarr.open(first, { path: "a", kind: "array" })).get(sel)));
      const arr = await zarr.open(second, { path: "a", kind: "array" });
      const before = readStats.finished;
      const all = await withDirect(true, () => Promise.all(Array.from({ length: 10 }, () => outcome(() => arr.get(sel)))));
      assert.equal(readStats.finished - before, 10);
      for (const r of all) assert.deepEqual(r, one);
      assert.deepEqual(second.stats, first.stats, `[${sel}]: 10 concurrent reads made ${JSON.stringify(second.stats)} requests, one read ${JSON.stringify(first.stats)}`);
    }
  });

  test("corrupt index or inner chunk: the engine's error", async () => {
    const map = new Map();
    const store = rangeStore(map);
    const w = await zarr.create(store, { path: "a", shape: [8, 8], chunks: [2, 2], shardShape: [4, 4], dtype: "int32", zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1 } }] });
    await w.set(null, 5);
    const arr = await zarr.open(store, { path: "a", kind: "array" });
    const shard = map.get("/a/c/0/0");
    const good = new Uint8Array(shard);
    for (const [what, at] of [["index (crc32c)", shard.length - 10], ["inner chunk", 4]]) {
      const bad = new Uint8Array(good);
      bad[at] ^= 0xff;
      map.set("/a/c/0/0", bad);
      for (const sel of ["1:3, 1:3", null]) {
        const { mine, engine } = await both(arr, sel);
        assert.ok(engine.error, `${what} [${sel}]: the engine reports an error`);
        assert.deepEqual(mine, engine, `${what} [${sel}]`);
      }
    }
  });

  test("a store without getRange: whole shards, each asked for once; a chunk cache: the engine reads", async () => {
    const map = new Map();
    const plain = { get: (k) => map.get(k), set: (k, v) => void map.set(k, new Uint8Array(v)) };
    const w = await zarr.create(plain, { path: "a", shape: [8, 8], chunks: [2, 2], shardShape: [4, 4], dtype: "int32", zarrFormat: 3 });
    await w.set(null, 3);
    const arr = await zarr.open(plain, { path: "a", kind: "array" });
    const gets = directStats(plain)?.get ?? 0;
    const finished = readStats.finished;
    assert.equal((await arr.get("1:7, 1:7")).data[0], 3);
    assert.equal(readStats.finished - finished, 1, "the executor read it");
    assert.equal(directStats(plain).get - gets, 4, "the 4 shards, whole");
    const cached = await zarr.open(rangeStore(map), { path: "a", kind: "array", cacheBytes: 1 << 20 });
    const before = readStats.reads;
    assert.equal((await cached.get("1:7, 1:7")).data[0], 3);
    assert.equal(readStats.reads, before, "the engine read it");
  });
});

describe("a shard that changes while the direct path reads it", () => {
  test("in memory: a store swapping two versions between requests; each read of one version or CONFLICT; without versions, mixed reads", async () => {
    const v = await twoShardVersions(zarr);
    let seed = 99;
    const coin = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 1;
    const swapping = (versions) => {
      const value = (k) => (k === "/a/zarr.json" ? [v.meta, "m"] : k === "/a/c/0/0" ? (coin() ? [v.b, "B"] : [v.a, "A"]) : [undefined, undefined]);
      const answer = (data, gen, o) => (versions && o?.versioned && data ? { data, generation: gen } : data);
      return {
        get: async (k, o) => answer(...value(k), o),
        getRange: async (k, r, o) => {
          const [data, gen] = value(k);
          if (versions && o?.ifMatch !== undefined && data && o.ifMatch !== gen) return { changed: true };
          if (!data) return undefined;
          return answer(r.suffixLength !== undefined ? data.subarray(data.length - r.suffixLength) : data.subarray(r.offset, r.offset + r.length), gen, o);
        },
      };
    };
    const run = async (store) => {
      const arr = await zarr.open(store, { path: "a", kind: "array" });
      return readVersions(arr, 100);
    };
    const r = await run(swapping(true));
    assert.equal(r.wrong + r.typed, 0, JSON.stringify(r));
    assert.ok(r.placed >= 10 && r.good >= 50, JSON.stringify(r));
    const c = await run(swapping(false));
    assert.ok(c.wrong + c.typed > 0 && c.placed > 0, `the control (no versions) read no mixed shard directly: the test cannot tell ${JSON.stringify(c)}`);
    // (the values are those of the two versions)
    assert.notEqual(valueA(1000), valueB(1000));
  });

  test("raw inner chunks in two spans of one shard, versions alike but for their values: without versions a read mixes them silently; with them, never", async () => {
    // Versions A (value i) and B (value i + 1) have the same layout: a
    // mixed read decodes without error. The selection needs inner chunks
    // 0, 7, 56, 63 (4 KiB each): two ranges (more than 64 KiB apart).
    const mem = new zarr.MemoryStore();
    const w = await zarr.create(mem, { path: "a", shape: [256, 256], chunks: [32, 32], shardShape: [256, 256], dtype: "int32", zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
    const shard = async (add) => {
      await w.set(null, Int32Array.from({ length: 256 * 256 }, (_, i) => i + add));
      return new Uint8Array(mem.get("/a/c/0/0"));
    };
    const meta = mem.get("/a/zarr.json");
    const a = await shard(0);
    const b = await shard(1);
    let seed = 7;
    const coin = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 1;
    const swapping = (versions) => {
      const value = (k) => (k === "/a/zarr.json" ? [meta, "m"] : k === "/a/c/0/0" ? (coin() ? [b, "B"] : [a, "A"]) : [undefined, undefined]);
      const answer = (data, gen, o) => (versions && o?.versioned && data ? { data, generation: gen } : data);
      return {
        get: async (k, o) => answer(...value(k), o),
        getRange: async (k, r, o) => {
          const [data, gen] = value(k);
          if (versions && o?.ifMatch !== undefined && data && o.ifMatch !== gen) return { changed: true };
          if (!data) return undefined;
          return answer(r.suffixLength !== undefined ? data.subarray(data.length - r.suffixLength) : data.subarray(r.offset, r.offset + r.length), gen, o);
        },
      };
    };
    const sel = "::224, ::224";
    const flat = [0, 224, 224 * 256, 224 * 256 + 224];
    const run = async (store) => {
      const arr = await zarr.open(store, { path: "a", kind: "array" });
      const out = { good: 0, conflicts: 0, mixed: 0, placed: 0 };
      for (let i = 0; i < 100; i++) {
        const before = readStats.finished;
        try {
          const { data } = await arr.get(sel);
          const adds = new Set(Array.from(data, (v, j) => v - flat[j]));
          if (adds.size === 1) out.good++;
          else out.mixed++;
        } catch (e) {
          if (e.code === "CONFLICT") out.conflicts++;
          else throw e;
        }
        if (readStats.finished > before) out.placed++;
      }
      return out;
    };
    const r = await run(swapping(true));
    assert.equal(r.mixed, 0, JSON.stringify(r));
    assert.ok(r.placed >= 5 && r.good >= 20, JSON.stringify(r));
    const c = await run(swapping(false));
    assert.ok(c.mixed > 0 && c.placed > 0, `the control (no versions) read no mixed shard: the test cannot tell ${JSON.stringify(c)}`);
  });

  test("FetchStore against a server swapping two versions (ETags, If-Match): one version or CONFLICT, the path taken", async (t) => {
    const v = await twoShardVersions(zarr);
    const stats = {};
    const server = await startServer(os.tmpdir(), { routes: alternatingRoutes("/v", v, stats) });
    try {
      const arr = await zarr.open(new zarr.FetchStore(`${server.url}/v/`), { path: "a", kind: "array" });
      const out = await readVersions(arr, 60);
      t.diagnostic(`${JSON.stringify(out)}; 412 answers: ${stats.preconditionFailed ?? 0}`);
      assert.equal(out.wrong + out.typed, 0);
      assert.ok(out.placed >= 5, `${out.placed} reads placed directly`);
      assert.ok(stats.preconditionFailed > 0);
    } finally {
      server.close();
    }
  });
});
