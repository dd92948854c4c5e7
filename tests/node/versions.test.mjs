// Versions, concurrent writes and the chunk cache, in Node: reads of a
// shard that changes underneath return one version or a CONFLICT error
// (FetchStore against a server swapping versions; FileSystemStore while the
// file is replaced in a loop); 50 concurrent writes into one chunk lose
// nothing (MemoryStore, FileSystemStore, an async store of our own; v2, v3,
// v3 sharded); the cache answers repeated reads without requests, confirms
// with 304s, and sees changes.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/node.js";
import { startServer } from "./helpers.mjs";
import { twoShardVersions, alternatingRoutes, readMany, serveValue } from "./versions.mjs";

async function tmpdir() {
  return fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-versions-"));
}

/** Hides a store's versions (the engine then cannot tell versions apart): the control. */
function plain(store) {
  return {
    get: (k, o) => store.get(k, { signal: o?.signal }),
    getRange: (k, r, o) => store.getRange(k, r, { signal: o?.signal }),
  };
}

describe("a shard that changes while it is read", () => {
  let versions;
  let server;
  const stats = {};
  before(async () => {
    versions = await twoShardVersions(zarr);
    server = await startServer(os.tmpdir(), { routes: alternatingRoutes("/v", versions, stats) });
  });
  after(() => server?.close());

  test("FetchStore: 100 reads, each of one version or CONFLICT; without versions, mixed reads happen", async (t) => {
    const store = new zarr.FetchStore(`${server.url}/v/`);
    const arr = await zarr.open(store, { path: "a", kind: "array" });
    const r = await readMany(zarr, arr, 100);
    t.diagnostic(`versioned: ${r.good} of one version, ${r.conflicts} CONFLICT, ${r.typed} other errors, ${r.wrong} wrong; 412 answers: ${stats.preconditionFailed ?? 0}`);
    assert.equal(r.wrong, 0);
    assert.equal(r.typed, 0);
    assert.ok(r.good >= 50, `${r.good} good reads`);
    assert.ok(stats.preconditionFailed > 0, "the server refused some conditional reads (412)");
    const control = await zarr.open(plain(store), { path: "a", kind: "array" });
    const c = await readMany(zarr, control, 100);
    t.diagnostic(`without versions: ${c.wrong + c.typed} wrong or undecodable of 100`);
    assert.ok(c.wrong + c.typed > 0, "the control read no mixed shard: the test cannot tell");
  });

  test("FileSystemStore: 100 reads while the shard file is replaced (rename) in a loop", async (t) => {
    const dir = await tmpdir();
    try {
      const writer = new zarr.FileSystemStore(dir);
      await writer.set("/a/zarr.json", versions.meta);
      await writer.set("/a/c/0/0", versions.a);
      let stop = false;
      let rewrites = 0;
      const loop = (async () => {
        for (let i = 0; !stop; i++) {
          await writer.set("/a/c/0/0", i % 2 ? versions.b : versions.a); // temporary file + rename
          rewrites++;
        }
      })();
      const arr = await zarr.open(new zarr.FileSystemStore(dir), { path: "a", kind: "array" });
      const r = await readMany(zarr, arr, 100, { between: () => new Promise((res) => setImmediate(res)) });
      stop = true;
      await loop;
      t.diagnostic(`${r.good} of one version, ${r.conflicts} CONFLICT, ${r.wrong} wrong, during ${rewrites} rewrites`);
      assert.equal(r.wrong + r.typed, 0);
      assert.ok(r.good > 0 && rewrites > 10, `${r.good} good, ${rewrites} rewrites`);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

/** A store of our own: a Map behind promises that settle after a random delay (plain zarrita contract). */
function asyncStore() {
  const m = new Map();
  const later = (v) => new Promise((r) => setTimeout(() => r(v), Math.random() * 3));
  return {
    map: m,
    get: (k) => later(m.get(k)),
    set: (k, v) => later(void m.set(k, new Uint8Array(v))),
    delete: (k) => later(m.delete(k)),
  };
}

describe("50 concurrent writes into one chunk lose nothing", () => {
  const layouts = {
    v2: { zarrFormat: 2, shape: [50, 4], chunks: [50, 4], dtype: "<i4" },
    v3: { zarrFormat: 3, shape: [50, 4], chunks: [50, 4], dtype: "int32" },
    "v3 sharded": { zarrFormat: 3, shape: [50, 4], chunks: [10, 4], shardShape: [50, 4], dtype: "int32" },
  };
  const stores = {
    MemoryStore: async () => {
      const s = new zarr.MemoryStore();
      return { stores: [s, s] };
    },
    FileSystemStore: async () => {
      const dir = await tmpdir();
      const s = new zarr.FileSystemStore(dir);
      return { stores: [s, s], dir };
    },
    // Two FileSystemStore objects on one directory: the engine shares no
    // lock between them (as between processes); the lock file and the
    // conditional rename keep the writes.
    "two FileSystemStores": async () => {
      const dir = await tmpdir();
      return { stores: [new zarr.FileSystemStore(dir), new zarr.FileSystemStore(dir)], dir };
    },
    "an async store": async () => {
      const s = asyncStore();
      return { stores: [s, s] };
    },
  };
  const trials = 20;
  for (const [layout, options] of Object.entries(layouts)) {
    for (const [name, make] of Object.entries(stores)) {
      test(`${layout}, ${name}: ${trials} trials`, async () => {
        let lost = 0;
        for (let trial = 0; trial < trials; trial++) {
          const { stores: [s1, s2], dir } = await make();
          try {
            const a1 = await zarr.create(s1, { path: "a", ...options });
            const a2 = await zarr.open(s2, { path: "a", kind: "array" });
            await Promise.all(
              Array.from({ length: 50 }, (_, row) => (row % 2 ? a2 : a1).set([row, null], trial * 1000 + row + 1)),
            );
            const { data } = await (await zarr.open(s1, { path: "a", kind: "array", cacheBytes: 0 })).get();
            for (let row = 0; row < 50; row++) if (data[row * 4] !== trial * 1000 + row + 1) lost++;
          } finally {
            if (dir) await fs.rm(dir, { recursive: true, force: true });
          }
        }
        assert.equal(lost, 0, `${lost} of ${50 * trials} writes lost`);
      });
    }
  }
});

describe("the chunk cache", () => {
  let server;
  let dir;
  const stats = {};
  before(async () => {
    dir = await tmpdir();
    const fss = new zarr.FileSystemStore(dir);
    // Serves the directory with each file's generation as its ETag.
    server = await startServer(dir, {
      routes: new Proxy(
        {},
        {
          get: (_, p) =>
            typeof p === "string" && p.startsWith("/d/")
              ? async (req, res) => {
                  const v = await fss.get(p.slice(2), { versioned: true });
                  if (v.data === undefined) {
                    stats.requests = (stats.requests ?? 0) + 1;
                    res.writeHead(404);
                    return res.end();
                  }
                  serveValue(req, res, v.data, `"${v.generation}"`, stats);
                }
              : undefined,
        },
      ),
    });
  });
  after(async () => {
    await server?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  for (const sharded of [false, true]) {
    test(`${sharded ? "sharded" : "plain"}: recheck false makes no request, true gets 304s, a change is seen`, async (t) => {
      const fss = new zarr.FileSystemStore(dir);
      const p = sharded ? "s" : "p";
      const w = await zarr.create(fss, { path: p, shape: [40, 40], chunks: [10, 10], dtype: "float32", ...(sharded ? { shardShape: [20, 20] } : {}) });
      await w.set(null, Float32Array.from({ length: 1600 }, (_, i) => i));
      const store = new zarr.FetchStore(`${server.url}/d/`);
      const sel = "5:25, 3:33";
      const read = async (recheck) => {
        const arr = await zarr.open(store, { path: p, kind: "array", cacheBytes: 1 << 20, recheck });
        Object.assign(stats, { requests: 0, notModified: 0 });
        const first = await arr.get(sel);
        const n1 = [stats.requests, stats.notModified];
        Object.assign(stats, { requests: 0, notModified: 0 });
        const again = await arr.get(sel);
        return { first, again, first304: n1, requests: stats.requests, notModified: stats.notModified, arr };
      };
      const never = await read(false);
      assert.deepEqual(Array.from(never.again.data), Array.from(never.first.data));
      assert.equal(never.requests, 0, "recheck false: the second read made requests");
      const always = await read(true);
      t.diagnostic(`recheck true: ${always.requests} requests, ${always.notModified} answered 304`);
      assert.ok(always.requests > 0);
      assert.equal(always.notModified, always.requests, "every confirmation is a 304");
      assert.deepEqual(Array.from(always.again.data), Array.from(never.first.data));
      const cs = await zarr.cacheStats(always.arr);
      assert.ok(cs.revalidated > 0 && cs.bytes > 0, JSON.stringify(cs));
      // The data changes on the server.
      await new Promise((r) => setTimeout(r, 5));
      await w.set(null, Float32Array.from({ length: 1600 }, (_, i) => i + 0.5));
      Object.assign(stats, { requests: 0, notModified: 0 });
      const { data } = await always.arr.get(sel);
      assert.equal(data[0], 5 * 40 + 3 + 0.5, "recheck true did not return the new values");
    });
  }

  test("concurrent reads of the same chunks share one fetch each", async () => {
    const fss = new zarr.FileSystemStore(dir);
    const w = await zarr.create(fss, { path: "c", shape: [64, 64], chunks: [32, 32], dtype: "int32" });
    await w.set(null, Int32Array.from({ length: 4096 }, (_, i) => i));
    const arr = await zarr.open(new zarr.FetchStore(`${server.url}/d/`), { path: "c", kind: "array", cacheBytes: 0 });
    stats.requests = 0;
    const all = await Promise.all(Array.from({ length: 20 }, () => arr.get()));
    for (const r of all) assert.equal(r.data[4095], 4095);
    assert.equal(stats.requests, 4, `20 concurrent reads of 4 chunks made ${stats.requests} requests`);
  });

  test("setCacheBytes and storeStats", async () => {
    const s = new zarr.MemoryStore();
    const w = await zarr.create(s, { path: "m", shape: [10], chunks: [5], dtype: "uint8" });
    await w.set(null, 7);
    await zarr.setCacheBytes(1 << 16);
    try {
      const arr = await zarr.open(s, { path: "m", kind: "array", recheck: false });
      await arr.get();
      const before = await zarr.storeStats(s);
      await arr.get();
      assert.deepEqual(await zarr.storeStats(s), before, "the second read asked the store");
      assert.ok((await zarr.cacheStats()).hits >= 2);
      await assert.rejects(zarr.setCacheBytes(-1), (e) => e.code === "INVALID_ARGUMENT");
      await assert.rejects(zarr.open(s, { path: "m", recheck: "sometimes" }), (e) => e.code === "INVALID_ARGUMENT");
    } finally {
      await zarr.setCacheBytes(0);
    }
  });
});
