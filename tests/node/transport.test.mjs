// FetchStore's two ways of sending requests in Node: node:http (the default
// when nothing asks for fetch: npm/lib/nodehttp.js) and fetch (a `fetch`
// option, a replaced globalThis.fetch). Each behaviour is checked against a
// real local server on both, so the node:http path does what fetch does:
// redirects (Authorization dropped on the way to another origin, Range
// kept), compressed answers, bodies cut short, caps, aborts in the middle of
// a body, kept-alive connections, conditional requests.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import * as zlib from "node:zlib";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { startServer, gate, until } from "./helpers.mjs";

const blob = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) & 255);
const json = Buffer.from(JSON.stringify({ zarr_format: 2, note: "x".repeat(5000) }));

let dir;
let server;
let other;
const held = { requests: 0, firstSent: false, ended: false, closed: false, gate: null };
before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-transport-"));
  await fs.writeFile(path.join(dir, "blob"), blob);
  await fs.writeFile(path.join(dir, "small"), "hello");
  // A second origin (another port): where cross-origin redirects go; it echoes what it was sent.
  other = await startServer(dir, {
    routes: {
      "/echo": (req, res, finish) => finish(200, { "Content-Type": "application/json" }, JSON.stringify(req.headers)),
    },
  });
  server = await startServer(dir, {
    routes: {
      "/echo": (req, res, finish) => finish(200, { "Content-Type": "application/json" }, JSON.stringify(req.headers)),
      "/to-blob": (req, res, finish) => finish(302, { Location: "/blob" }, "moved"),
      "/to-blob-307": (req, res, finish) => finish(307, { Location: "blob" }, ""),
      "/to-echo-here": (req, res, finish) => finish(301, { Location: "/echo" }, ""),
      "/to-other": (req, res, finish) => finish(307, { Location: `${other.url}/echo` }, ""),
      "/loop": (req, res, finish) => finish(302, { Location: "/loop" }, ""),
      "/gzip": (req, res, finish) => finish(200, { "Content-Encoding": "gzip" }, zlib.gzipSync(json)),
      "/br": (req, res, finish) => finish(200, { "Content-Encoding": "br" }, zlib.brotliCompressSync(json)),
      "/deflate": (req, res, finish) => finish(200, { "Content-Encoding": "deflate" }, zlib.deflateSync(json)),
      "/gzip-bomb": (req, res, finish) => finish(200, { "Content-Encoding": "gzip" }, zlib.gzipSync(Buffer.alloc(5_000_000))),
      "/cut": (req, res) => {
        // Announces 1000 bytes, sends 100, closes.
        res.writeHead(200, { "Content-Length": 1000 });
        res.write(Buffer.alloc(100, 1));
        setTimeout(() => res.socket.destroy(), 20);
      },
      "/trickle": (req, res) => {
        // 20 pieces 30 ms apart: 600 ms in all, each piece well inside a 200 ms attempt timeout.
        res.writeHead(200, { "Content-Length": 20 * 1000 });
        let i = 0;
        const t = setInterval(() => {
          res.write(Buffer.alloc(1000, i));
          if (++i === 20) {
            clearInterval(t);
            res.end();
          }
        }, 30);
        res.on("close", () => clearInterval(t));
      },
      "/held": (req, res) => {
        // Half of the body now, the rest when the test opens held.gate.
        held.requests++;
        res.writeHead(200, { "Content-Length": 2000 });
        res.write(Buffer.alloc(1000, 1), () => (held.firstSent = true));
        res.on("close", () => (held.closed = true));
        held.gate.wait().then(() => {
          if (!res.destroyed) res.end(Buffer.alloc(1000, 2), () => (held.ended = true));
        });
      },
      "/etag": (req, res, finish) => {
        if (req.headers["if-none-match"] === '"v1"') return finish(304, { ETag: '"v1"' }, "");
        return finish(200, { ETag: '"v1"' }, "versioned");
      },
    },
  });
});
after(async () => {
  await server.close();
  await other.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const transports = [
  ["node:http", {}],
  ["fetch", { fetch: (req) => globalThis.fetch(req) }],
];

test("by default FetchStore sends with node:http; with a fetch option, or globalThis.fetch replaced, with fetch", async () => {
  // Node's fetch (undici) sends Sec-Fetch-Mode and Accept-Language; node:http neither.
  const sent = async (options) => JSON.parse(new TextDecoder().decode(await new zarr.FetchStore(server.url, options).get("/echo")));
  const byNode = await sent({});
  assert.equal(byNode["sec-fetch-mode"], undefined);
  assert.equal(byNode.accept, "*/*");
  assert.equal(byNode["accept-encoding"], "gzip, deflate, br");
  assert.equal((await sent({ fetch: (r) => fetch(r) }))["sec-fetch-mode"], "cors");
  const original = globalThis.fetch;
  let calls = 0;
  globalThis.fetch = (...args) => (calls++, original(...args));
  try {
    assert.equal((await sent({}))["sec-fetch-mode"], "cors");
    assert.equal(calls, 1);
  } finally {
    globalThis.fetch = original;
  }
  // requestInit options node:http cannot honour send with fetch too.
  assert.equal((await sent({ requestInit: { redirect: "follow", integrity: "" } }))["sec-fetch-mode"], "cors");
});

for (const [name, options] of transports) {
  describe(`FetchStore over ${name}`, () => {
    const store = (extra = {}) => new zarr.FetchStore(server.url, { ...options, ...extra });

    test("whole values, ranges, 404", async () => {
      const s = store();
      assert.deepEqual(await s.get("/blob"), blob);
      assert.deepEqual(await s.getRange("/blob", { offset: 1000, length: 70_000 }), blob.subarray(1000, 71_000));
      assert.deepEqual(await s.getRange("/blob", { suffixLength: 5 }), blob.subarray(blob.length - 5));
      assert.equal(await s.get("/nothing"), undefined);
    });

    test("redirects are followed; Range and headers kept; Authorization dropped for another origin", async () => {
      const s = store({ headers: { Authorization: "Bearer secret", "X-Custom": "kept" } });
      assert.deepEqual(await s.get("/to-blob"), blob);
      assert.deepEqual(await s.getRange("/to-blob-307", { offset: 10, length: 20 }), blob.subarray(10, 30));
      const here = JSON.parse(new TextDecoder().decode(await s.get("/to-echo-here")));
      assert.equal(here.authorization, "Bearer secret");
      const there = JSON.parse(new TextDecoder().decode(await s.get("/to-other")));
      assert.equal(there.authorization, undefined);
      assert.equal(there["x-custom"], "kept");
      await assert.rejects(store({ retries: 0 }).get("/loop"), (e) => e.code === "STORE");
    });

    test("gzip, br and deflate answers are decoded; the cap applies to the decoded bytes", async () => {
      const s = store();
      for (const k of ["/gzip", "/br", "/deflate"]) assert.deepEqual(Buffer.from(await s.get(k)), json, k);
      await assert.rejects(store({ maxBodyBytes: 1_000_000 }).get("/gzip-bomb"), (e) => e.code === "STORE" && /cap/.test(e.message));
    });

    test("a body cut short is retried, then a STORE error; a slow body within the attempt timeout is read", async () => {
      const before = server.stats.requests;
      await assert.rejects(store({ retries: 2, retryDelay: 1 }).get("/cut"), (e) => e.code === "STORE" && /after 3 attempts/.test(e.message));
      assert.equal(server.stats.requests - before, 3);
      const got = await store({ timeout: 200 }).get("/trickle");
      assert.equal(got.length, 20_000);
      assert.equal(got[19_999], 19);
      await assert.rejects(store({ timeout: 10, retries: 0 }).get("/trickle"), (e) => e.code === "STORE" && /attempt timeout/.test(e.message));
    });

    test("an abort in the middle of a body ends the read at once", async () => {
      // The server sends half of the body and holds the rest until the gate opens: the read
      // must reject before that, and the connection must be dropped.
      Object.assign(held, { requests: 0, firstSent: false, ended: false, closed: false, gate: gate() });
      try {
        const ac = new AbortController();
        const p = store().get("/held", { signal: ac.signal });
        await until(() => held.firstSent, "the first half of the body to be sent");
        ac.abort();
        await assert.rejects(p, (e) => e.name === "AbortError");
        assert.equal(held.gate.opened, false, "the read waited for the rest of the body");
        await until(() => held.closed, "the server to see the connection closed");
        assert.equal(held.ended, false);
        assert.equal(held.requests, 1, "an abort is not retried");
      } finally {
        held.gate.open();
      }
    });

    test("versions: the ETag, a 304 to If-None-Match", async () => {
      const s = store();
      const first = await s.get("/etag", { versioned: true });
      assert.equal(first.generation, '"v1"');
      assert.equal(new TextDecoder().decode(first.data), "versioned");
      const again = await s.get("/etag", { versioned: true, ifNoneMatch: '"v1"' });
      assert.deepEqual(again, { notModified: true, generation: '"v1"' });
    });

    test("connections are kept alive across reads and after a 404", async () => {
      const s = store();
      await s.get("/small");
      const before = server.stats.connections;
      for (let i = 0; i < 10; i++) {
        assert.equal(new TextDecoder().decode(await s.get("/small")), "hello");
        assert.equal(await s.get("/nothing"), undefined);
      }
      assert.equal(server.stats.connections - before, 0);
    });
  });
}
