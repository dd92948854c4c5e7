// Stores: FetchStore's HTTP semantics (404, ranges, servers that ignore
// Range, wrong 206, retries, bounded concurrency), the concurrency of one
// get over HTTP, FileSystemStore (atomic writes, list, ranges), MemoryStore.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { startServer, fixturesV2 } from "./helpers.mjs";

let dir;
before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-stores-"));
  await fs.writeFile(path.join(dir, "blob"), Uint8Array.from({ length: 100 }, (_, i) => i));
  await fs.mkdir(path.join(dir, "sub dir"));
  await fs.writeFile(path.join(dir, "sub dir", "x y"), "hello");
});
after(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("FetchStore", () => {
  let server;
  let plain;
  before(async () => {
    server = await startServer(dir, {
      routes: {
        "/wrong-range": (req, res, finish) => finish(206, { "Content-Range": "bytes 0-9/100" }, Buffer.alloc(10)),
        "/short-range": (req, res, finish) => finish(206, {}, Buffer.alloc(3)),
        "/forbidden": (req, res, finish) => finish(403, {}, "no"),
        "/teapot": (req, res, finish) => finish(418, {}, "no"),
        "/headers": (req, res, finish) => finish(200, {}, req.headers.authorization ?? "none"),
      },
    });
    plain = await startServer(dir, { ignoreRange: true });
  });
  after(async () => {
    await server.close();
    await plain.close();
  });

  test("get: bytes, 404 → undefined, keys are URL-encoded", async () => {
    const s = new zarr.FetchStore(server.url);
    assert.equal((await s.get("/blob")).length, 100);
    assert.equal(await s.get("/missing"), undefined);
    assert.equal(new TextDecoder().decode(await s.get("/sub dir/x y")), "hello");
    assert.ok(server.stats.paths.includes("/sub dir/x y"));
  });
  test("the base URL may have a query string (kept) and no trailing slash", async () => {
    const s = new zarr.FetchStore(`${server.url}/sub%20dir?token=abc`);
    assert.equal(s.resolve("/x y").href, `${server.url}/sub%20dir/x%20y?token=abc`);
    assert.equal(new TextDecoder().decode(await s.get("/x y")), "hello");
  });
  test("getRange: offset/length and suffix are real Range requests (206)", async () => {
    const s = new zarr.FetchStore(server.url);
    server.reset();
    assert.deepEqual([...(await s.getRange("/blob", { offset: 10, length: 5 }))], [10, 11, 12, 13, 14]);
    assert.deepEqual([...(await s.getRange("/blob", { suffixLength: 3 }))], [97, 98, 99]);
    assert.equal(server.stats.rangeRequests, 2);
    assert.equal(server.stats.byStatus[206], 2);
    assert.equal(await s.getRange("/missing", { offset: 0, length: 1 }), undefined);
  });
  test("a server that ignores Range (200, whole body) still yields the right bytes", async () => {
    const s = new zarr.FetchStore(plain.url);
    assert.deepEqual([...(await s.getRange("/blob", { offset: 90, length: 4 }))], [90, 91, 92, 93]);
    assert.deepEqual([...(await s.getRange("/blob", { suffixLength: 2 }))], [98, 99]);
    await assert.rejects(s.getRange("/blob", { offset: 98, length: 5 }), /asked for/);
    assert.equal(plain.stats.byStatus[200] >= 3, true);
  });
  test("a 206 for the wrong range or with the wrong length is an error, never wrong bytes", async () => {
    const s = new zarr.FetchStore(server.url, { retries: 0 });
    await assert.rejects(s.getRange("/wrong-range", { offset: 50, length: 10 }), /starting at 50/);
    await assert.rejects(s.getRange("/short-range", { offset: 0, length: 10 }), /10 bytes asked for, 3 received/);
  });
  test("other statuses are errors (not absent keys), without retries for 4xx", async () => {
    const s = new zarr.FetchStore(server.url, { retryDelay: 1 });
    server.reset();
    await assert.rejects(s.get("/forbidden"), (e) => e.status === 403);
    await assert.rejects(s.get("/teapot"), (e) => e.status === 418);
    assert.equal(server.stats.requests, 2);
  });
  test("5xx and network errors are retried with backoff", async () => {
    const flaky = await startServer(dir, { failFirst: 2 });
    try {
      const s = new zarr.FetchStore(flaky.url, { retryDelay: 5 });
      assert.equal((await s.get("/blob")).length, 100);
      assert.equal(flaky.stats.byStatus[503], 2);
      const s0 = new zarr.FetchStore(flaky.url, { retries: 1, retryDelay: 1 });
      await assert.rejects(s0.get("/sub dir/x y"), (e) => e.status === 503 && /after 2 attempts/.test(e.message));
    } finally {
      await flaky.close();
    }
    const down = new zarr.FetchStore("http://127.0.0.1:9/", { retries: 2, retryDelay: 1 });
    await assert.rejects(down.get("/x"), /after 3 attempts/);
  });
  test("headers and a custom fetch are used", async () => {
    const s = new zarr.FetchStore(server.url, { headers: { Authorization: "Bearer t" } });
    assert.equal(new TextDecoder().decode(await s.get("/headers")), "Bearer t");
    let seen = 0;
    const s2 = new zarr.FetchStore(server.url, {
      fetch: (req) => {
        seen++;
        assert.ok(req instanceof Request);
        return fetch(req);
      },
    });
    await s2.get("/blob");
    assert.equal(seen, 1);
  });
  test("at most `concurrency` requests in flight", async () => {
    const slow = await startServer(dir, { delayMs: 30 });
    try {
      let inFlight = 0;
      let max = 0;
      const s = new zarr.FetchStore(slow.url, {
        concurrency: 3,
        fetch: async (req) => {
          max = Math.max(max, ++inFlight);
          try {
            return await fetch(req);
          } finally {
            inFlight--;
          }
        },
      });
      await Promise.all(Array.from({ length: 12 }, () => s.get("/blob")));
      assert.equal(slow.stats.requests, 12);
      assert.equal(max, 3);
    } finally {
      await slow.close();
    }
  });
  test("abort cancels requests (ZarrError ABORTED through the API)", async () => {
    const slow = await startServer(path.join(fixturesV2, "data"), { delayMs: 300 });
    try {
      const s = new zarr.FetchStore(`${slow.url}/v2.zarr`);
      const ac = new AbortController();
      const p = zarr.open(s, { path: "dtypes/f4_le", signal: ac.signal });
      setTimeout(() => ac.abort(), 20);
      await assert.rejects(p, (e) => e.code === "ABORTED");
    } finally {
      await slow.close();
    }
  });
});

describe("reading over HTTP overlaps the chunk requests", () => {
  test("100 chunks with 40 ms latency are not 100 round trips in a row", async (t) => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-http-"));
    try {
      const fsStore = new FileSystemStore(root);
      const a = await zarr.create(fsStore, { path: "a", shape: [100, 10], chunks: [1, 10], dtype: "<f8", zarrFormat: 2 });
      await a.set(null, { data: Float64Array.from({ length: 1000 }, (_, i) => i), shape: [100, 10] });
      const server = await startServer(root, { delayMs: 40 });
      try {
        // Client-side view: when each request started and when its response came.
        let t0 = 0;
        const spans = [];
        const store = new zarr.FetchStore(server.url, {
          fetch: async (req) => {
            const start = performance.now() - t0;
            const res = await fetch(req);
            spans.push([start, performance.now() - t0]);
            return res;
          },
        });
        const arr = await zarr.open(store, { path: "a" });
        await arr.get(); // warm up (JIT tier-up), then measure
        server.reset();
        spans.length = 0;
        t0 = performance.now();
        const r = await arr.get();
        const ms = performance.now() - t0;
        assert.equal(r.data[999], 999);
        assert.equal(server.stats.requests, 100);
        const firstDone = Math.min(...spans.map((s) => s[1]));
        const startedBefore = spans.filter((s) => s[0] < firstDone).length;
        t.diagnostic(`${ms.toFixed(0)} ms; ${startedBefore} requests started before the first answer; server saw ${server.stats.maxInFlight} at once`);
        assert.ok(startedBefore >= 8, `only ${startedBefore} requests were sent before the first answer`);
        assert.ok(server.stats.maxInFlight >= 8, `max in flight ${server.stats.maxInFlight}`);
      } finally {
        await server.close();
      }
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

describe("reading over HTTP takes as many chunks at once as the FetchStore allows", () => {
  test("a 5×5-chunk window in one round trip (64 in Node by default); concurrency: 4 bounds the read too", async (t) => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-http-"));
    try {
      const a = await zarr.create(new FileSystemStore(root), { path: "a", shape: [100, 100], chunks: [10, 10], dtype: "<f4", zarrFormat: 2 });
      await a.set(null, { data: Float32Array.from({ length: 10000 }, (_, i) => i), shape: [100, 100] });
      const server = await startServer(root, { delayMs: 40 });
      try {
        const read = async (options) => {
          // Client-side: how many requests were sent before the first answer came.
          let sent = 0;
          let firstAnswer = null;
          const store = new zarr.FetchStore(server.url, {
            ...options,
            fetch: async (req) => {
              sent++;
              const res = await fetch(req);
              firstAnswer ??= sent;
              return res;
            },
          });
          const arr = await zarr.open(store, { path: "a", kind: "array" });
          server.reset();
          sent = 0;
          firstAnswer = null;
          const r = await arr.get([zarr.slice(15, 65), zarr.slice(5, 55)]);
          assert.equal(r.data[0], 1505);
          assert.equal(r.data[r.data.length - 1], 6454);
          return { store, requests: server.stats.requests, before: firstAnswer, maxInFlight: server.stats.maxInFlight };
        };
        const wide = await read();
        assert.equal(wide.store.concurrency, 64);
        assert.equal(wide.requests, 36); // (rows 1-6, columns 0-5)
        t.diagnostic(`default: ${wide.before} of ${wide.requests} chunk requests sent before the first answer; the server saw ${wide.maxInFlight} at once`);
        assert.equal(wide.before, 36, "every chunk of the window asked for before the first answer");
        const narrow = await read({ concurrency: 4 });
        assert.equal(narrow.store.concurrency, 4);
        assert.ok(narrow.before <= 4, `concurrency 4: ${narrow.before} sent before the first answer`);
      } finally {
        await server.close();
      }
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

describe("FileSystemStore", () => {
  test("get, getRange, has, list, delete", async () => {
    const s = new FileSystemStore(dir);
    assert.equal((await s.get("/blob")).length, 100);
    assert.equal(await s.get("/nope"), undefined);
    assert.equal(await s.get("/sub dir"), undefined, "a directory is not a key");
    assert.equal(await s.get("/blob/inner"), undefined);
    assert.deepEqual([...(await s.getRange("/blob", { offset: 1, length: 2 }))], [1, 2]);
    assert.deepEqual([...(await s.getRange("/blob", { suffixLength: 1 }))], [99]);
    await assert.rejects(s.getRange("/blob", { offset: 99, length: 5 }), RangeError);
    assert.equal(await s.has("/blob"), true);
    assert.deepEqual(await s.list("/"), ["blob", "sub dir/"]);
    assert.deepEqual(await s.list("/sub dir/"), ["x y"]);
    assert.deepEqual(await s.list("/none/"), []);
    assert.throws(() => s.path("/../etc/passwd"), TypeError);
    assert.throws(() => s.path("relative"), TypeError);
  });
  test("writes are atomic: a temporary file renamed into place, nothing left behind", async () => {
    const s = new FileSystemStore(path.join(dir, "w"));
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.set("/deep/er/k", Uint8Array.of(i, i, i))));
    const v = await s.get("/deep/er/k");
    assert.equal(v.length, 3);
    assert.ok(v.every((x) => x === v[0]));
    assert.deepEqual(await fs.readdir(path.join(dir, "w", "deep", "er")), ["k"]);
    assert.equal(await s.delete("/deep/er/k"), true);
    assert.equal(await s.delete("/deep/er/k"), false);
  });
  test("symbolic links leading outside the root are refused on read and write (allowOutsideSymlinks lets them)", async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-links-"));
    try {
      const root = path.join(base, "root");
      const outside = path.join(base, "outside");
      await fs.mkdir(path.join(root, "a"), { recursive: true });
      await fs.mkdir(outside);
      await fs.writeFile(path.join(outside, "secret"), "secret");
      await fs.writeFile(path.join(root, "a", "inside"), "inside");
      await fs.symlink(path.join(outside, "secret"), path.join(root, "leak"));
      await fs.symlink(outside, path.join(root, "out"));
      await fs.symlink("../../outside", path.join(root, "a", "rel_out"));
      await fs.symlink("a", path.join(root, "alias"));
      const s = new FileSystemStore(root);
      const refused = (e) => e.code === "STORE" && /outside the store's root/.test(e.message);
      for (const key of ["/leak", "/out/secret", "/a/rel_out/secret"]) {
        await assert.rejects(s.get(key), refused, key);
        await assert.rejects(s.getRange(key, { offset: 0, length: 2 }), refused, key);
      }
      await assert.rejects(s.set("/out/new", Uint8Array.of(1)), refused);
      await assert.rejects(s.set("/out/sub/new", Uint8Array.of(1)), refused);
      await assert.rejects(s.delete("/out/secret"), refused);
      await assert.rejects(s.list("/out/"), refused);
      assert.equal(await s.has("/out/secret"), false);
      assert.deepEqual(await fs.readdir(outside), ["secret"], "nothing was written or deleted outside");
      // through the engine: a STORE error, then the engine is fine
      await assert.rejects(zarr.open(s, { path: "out" }), (e) => e.code === "STORE");
      // links that stay inside work
      assert.equal(new TextDecoder().decode(await s.get("/alias/inside")), "inside");
      assert.ok((await s.list("/")).includes("alias/"));
      const open = new FileSystemStore(root, { allowOutsideSymlinks: true });
      assert.equal(new TextDecoder().decode(await open.get("/out/secret")), "secret");
      await open.set("/out/new", Uint8Array.of(1));
      assert.deepEqual((await fs.readdir(outside)).sort(), ["new", "secret"]);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
  test("a hierarchy written through the API lists as children", async () => {
    const s = new FileSystemStore(path.join(dir, "h"));
    await zarr.create(s, { path: "g/a", shape: [2], dtype: "|u1" });
    await zarr.create(s, { path: "g/b", shape: [2], dtype: "|u1", zarrFormat: 2 });
    const g = await zarr.open(s, { path: "g", kind: "group" });
    const kids = await g.children();
    assert.deepEqual(kids.map((k) => k.name), ["a", "b"]);
  });
});

describe("MemoryStore", () => {
  test("contract: absolute keys, ranges, list", () => {
    const s = new zarr.MemoryStore({ "/a/b": Uint8Array.of(1, 2, 3), "/a/c/d": Uint8Array.of(4) });
    assert.deepEqual([...s.getRange("/a/b", { offset: 1, length: 2 })], [2, 3]);
    assert.deepEqual([...s.getRange("/a/b", { suffixLength: 1 })], [3]);
    assert.deepEqual(s.list("/"), ["a/"]);
    assert.deepEqual(s.list("/a/"), ["b", "c/"]);
    assert.throws(() => s.get("a/b"), TypeError);
    assert.equal(s.get("/zz"), undefined);
  });
});
