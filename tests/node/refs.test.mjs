// Reference sets from JS: zarr.ReferenceStore over HTTP (a local server that
// honours Range and counts requests) reading tests/refs: every case of
// cases.json (what zarr-python 2.13 read through fsspec 2022.11), the
// Parquet directories written by hyparquet-writer and parquet-go (which must
// read like their JSON source), coalescing and concurrency measured in
// requests, url mapping and the fetch hook, the strict Range rules, abort,
// errors, and the store used as a plain zarrita-style store.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import { gzipSync } from "node:zlib";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { repoRoot, startServer, loadCases, compareCase, gate, until } from "./helpers.mjs";

const refsDir = path.join(repoRoot, "tests", "refs");
const dataDir = path.join(refsDir, "data");
const cases = await loadCases(path.join(refsDir, "cases.json"));
const pqVariants = (await fs.readdir(path.join(dataDir, "pq"), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const pqCases = cases.filter((c) => c.store === "pq/refs.json");

async function readCase(store, c) {
  const arr = await zarr.open(store, { path: c.path, kind: "array" });
  return arr.get(c.selection);
}

/** Requests the server saw, by path. */
function byPath(stats) {
  const out = {};
  for (const p of stats.paths) out[p] = (out[p] ?? 0) + 1;
  return out;
}

describe("ReferenceStore over HTTP (tests/refs)", () => {
  let server;
  before(async () => {
    server = await startServer(dataDir);
  });
  after(async () => {
    await server.close();
  });

  test("every JSON case of cases.json reads as zarr-python read it through fsspec", async (t) => {
    assert.ok(cases.length >= 60, `${cases.length} cases`);
    const stores = new Map();
    const failures = [];
    for (const c of cases) {
      const id = `${c.store}|${c.target ?? ""}`;
      if (!stores.has(id)) stores.set(id, await zarr.ReferenceStore.fromUrl(`${server.url}/${c.store}`, { target: c.target }));
      try {
        const diff = compareCase(c, await readCase(stores.get(id), c));
        if (diff) failures.push(`${c.name}: ${diff}`);
      } catch (e) {
        failures.push(`${c.name}: ${e.code} ${e.message}`);
      }
    }
    t.diagnostic(`${cases.length - failures.length}/${cases.length} cases match over ${stores.size} reference sets`);
    assert.deepEqual(failures, []);
    const bad = Object.keys(server.stats.byStatus).filter((s) => s !== "200" && s !== "206");
    assert.deepEqual(bad, [], JSON.stringify(server.stats.byStatus));
  });

  test("TIFF files through the references tifffile wrote for them (LZW, PackBits, zlib, lzma, predictors)", async (t) => {
    const tiffCases = await loadCases(path.join(refsDir, "tiff_cases.json"));
    assert.ok(tiffCases.length >= 10);
    const failures = [];
    for (const c of tiffCases) {
      try {
        const diff = compareCase(c, await readCase(await zarr.ReferenceStore.fromUrl(`${server.url}/${c.store}`), c));
        if (diff) failures.push(`${c.name} (${c.note}): ${diff}`);
      } catch (e) {
        failures.push(`${c.name} (${c.note}): ${e.code} ${e.message}`);
      }
    }
    t.diagnostic(`${tiffCases.length - failures.length}/${tiffCases.length} TIFF reference sets match`);
    assert.deepEqual(failures, []);
  });

  test("every Parquet directory (hyparquet-writer, parquet-go) reads like its JSON source", async (t) => {
    assert.ok(pqVariants.length >= 8, pqVariants.join(", "));
    assert.ok(pqCases.length >= 6);
    const failures = [];
    for (const v of pqVariants) {
      const store = await zarr.ReferenceStore.fromUrl(`${server.url}/pq/${v}/`);
      for (const c of pqCases) {
        try {
          const diff = compareCase(c, await readCase(store, c));
          if (diff) failures.push(`${v} ${c.name}: ${diff}`);
        } catch (e) {
          failures.push(`${v} ${c.name}: ${e.code} ${e.message}`);
        }
      }
    }
    t.diagnostic(`${pqVariants.length * pqCases.length - failures.length} Parquet cases match (${pqVariants.length} directories × ${pqCases.length})`);
    assert.deepEqual(failures, []);
  });

  test("a Parquet root is detected however the URL is spelled; fromParquet opens it directly", async () => {
    const c = pqCases.find((x) => x.path === "a/big" && x.selection === "") ?? pqCases[0];
    for (const url of [`${server.url}/pq/hyp_zstd`, `${server.url}/pq/hyp_zstd/.zmetadata`, `${server.url}/pq/hyp_zstd/`]) {
      const s = await zarr.ReferenceStore.fromUrl(url);
      assert.equal(compareCase(c, await readCase(s, c)), null, url);
    }
    const s = await zarr.ReferenceStore.fromParquet(`${server.url}/pq/pqgo_v1_zstd`);
    assert.equal(compareCase(c, await readCase(s, c)), null);
    const g = await zarr.open(s, { kind: "group" });
    assert.deepEqual(
      (await g.children()).map((k) => `${k.name}:${k.kind}`),
      ["a:group", "deep:group", "empty:array", "scalar:array"],
    );
  });

  test("fromJSON: an object, its text, its bytes, gzip-compressed; relative targets resolve against baseUrl", async () => {
    const text = await fs.readFile(path.join(dataDir, "json", "v1.json"), "utf8");
    const baseUrl = `${server.url}/json/v1.json`;
    const mine = cases.filter((c) => c.store === "json/v1.json");
    for (const src of [JSON.parse(text), text, new TextEncoder().encode(text), gzipSync(text)]) {
      const s = await zarr.ReferenceStore.fromJSON(src, { baseUrl });
      for (const c of mine) assert.equal(compareCase(c, await readCase(s, c)), null, `${c.name} from ${src.constructor.name}`);
    }
    // "sub/t3.bin" and "whole/0.gz" are relative to the reference file.
    server.reset();
    const s = await zarr.ReferenceStore.fromJSON(text, { baseUrl });
    await (await zarr.open(s, { path: "deep/nested/arr" })).get();
    await (await zarr.open(s, { path: "whole" })).get();
    const paths = Object.keys(byPath(server.stats)).sort();
    assert.deepEqual(paths, ["/json/sub/t3.bin", "/json/whole/0.gz", "/json/whole/1.gz", "/json/whole/2.gz", "/json/whole/3.gz"]);
  });

  test("null urls read the target option, resolved against the reference file", async () => {
    const c = cases.find((x) => x.store === "json/v1_target.json" && x.path === "counts" && x.selection === "");
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v1_target.json`, { target: "t1.bin" });
    assert.equal(compareCase(c, await readCase(s, c)), null);
    const none = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v1_target.json`);
    await assert.rejects(readCase(none, c), (e) => e.code === "INVALID_METADATA" && /target/i.test(e.message));
  });

  test("errors: no reference file is NOT_FOUND; a missing target is a STORE error naming the key", async () => {
    await assert.rejects(zarr.ReferenceStore.fromUrl(`${server.url}/json/nothing.json`), (e) => e instanceof zarr.ZarrError && e.code === "NOT_FOUND");
    const refs = {
      ".zgroup": '{"zarr_format": 2}',
      "x/.zarray": JSON.stringify({ shape: [4], chunks: [4], dtype: "|u1", compressor: null, fill_value: 0, filters: null, order: "C", zarr_format: 2 }),
      "x/0": ["gone.bin", 0, 4],
    };
    const s = await zarr.ReferenceStore.fromJSON(refs, { baseUrl: `${server.url}/json/r.json` });
    await assert.rejects((await zarr.open(s, { path: "x" })).get(), (e) => e.code === "STORE" && /x\/0/.test(e.message) && /gone\.bin/.test(e.message));
    // a relative url without a baseUrl cannot be fetched
    const rel = await zarr.ReferenceStore.fromJSON(refs);
    await assert.rejects(rel.get("/x/0"), (e) => e.code === "STORE" && /not an absolute URL/.test(e.message));
  });
});

describe("ReferenceStore: coalescing and concurrency, counted in requests", () => {
  let server;
  before(async () => {
    server = await startServer(dataDir, { delayMs: 30 });
  });
  after(async () => {
    await server.close();
  });

  test("the ten adjacent chunks of counts are one request (bytes=1000-1199)", async (t) => {
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`);
    const arr = await zarr.open(s, { path: "counts", kind: "array" });
    server.reset();
    const before = s.requests;
    const r = await arr.get();
    assert.equal(r.data.length, 100);
    const log = server.stats.log.filter((l) => l.path === "/json/t1.bin");
    t.diagnostic(`counts (10 chunks): ${log.length} request(s): ${log.map((l) => l.range).join(", ")}`);
    assert.deepEqual(log.map((l) => l.range), ["bytes=1000-1199"]);
    assert.equal(s.requests - before, 1);
    assert.equal(server.stats.byStatus[206], 1);
  });

  test("the chunks of temp, with gaps between them in t2.h5, are one request too", async (t) => {
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`);
    const arr = await zarr.open(s, { path: "temp", kind: "array" });
    server.reset();
    await arr.get();
    const log = server.stats.log.filter((l) => l.path === "/json/t2.h5");
    t.diagnostic(`temp (8 stored chunks in t2.h5): ${log.length} request(s): ${log.map((l) => l.range).join(", ")}`);
    assert.deepEqual(log.map((l) => l.range), ["bytes=38-1222"]);
  });

  test("without merging (maxGap: -1) the ten chunks are ten range requests, in flight together", async (t) => {
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`, { maxGap: -1 });
    const arr = await zarr.open(s, { path: "counts", kind: "array" });
    server.reset();
    const t0 = performance.now();
    const r = await arr.get();
    const ms = performance.now() - t0;
    const ranges = server.stats.log.filter((l) => l.path === "/json/t1.bin").map((l) => l.range);
    const maxInFlight = server.stats.maxInFlight;
    const merged = await (await zarr.open(await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`), { path: "counts" })).get();
    assert.deepEqual(r.data, merged.data);
    t.diagnostic(`maxGap -1: ${ranges.length} requests, at most ${maxInFlight} in flight, ${ms.toFixed(0)} ms with a 30 ms server`);
    assert.equal(ranges.length, 10);
    assert.deepEqual(new Set(ranges), new Set(Array.from({ length: 10 }, (_, i) => `bytes=${1000 + 20 * i}-${1019 + 20 * i}`)));
    // concurrency as the server counted it (requests it held at once); the
    // time is only reported: on a busy machine the client's own overhead
    // alone can exceed ten 30 ms round trips
    assert.ok(maxInFlight >= 5, `max in flight ${maxInFlight}`);
  });

  test("window: -1 fetches every read on its own; a longer window still merges", async () => {
    for (const [window, n] of [[-1, 10], [20, 1]]) {
      const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`, { window });
      const arr = await zarr.open(s, { path: "counts", kind: "array" });
      server.reset();
      await arr.get();
      assert.equal(server.stats.paths.filter((p) => p === "/json/t1.bin").length, n, `window ${window}`);
    }
  });

  test("concurrency bounds the requests in flight", async () => {
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`, { maxGap: -1, concurrency: 2 });
    const arr = await zarr.open(s, { path: "counts", kind: "array" });
    server.reset();
    await arr.get();
    assert.equal(server.stats.requests, 10);
    assert.ok(server.stats.maxInFlight <= 2, `max in flight ${server.stats.maxInFlight}`);
  });

  test("Parquet: opening reads .zmetadata only; each record file is fetched once, target ranges merged", async (t) => {
    server.reset();
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/pq/hyp_zstd/`);
    assert.deepEqual(server.stats.paths, ["/pq/hyp_zstd/.zmetadata"]);
    const arr = await zarr.open(s, { path: "a/big", kind: "array" });
    server.reset();
    await arr.get();
    const counts = byPath(server.stats);
    const parq = Object.entries(counts).filter(([p]) => p.endsWith(".parq"));
    const targets = Object.entries(counts).filter(([p]) => !p.endsWith(".parq"));
    t.diagnostic(`a/big (170 chunks): ${parq.length} record files, ${JSON.stringify(Object.fromEntries(targets))} target requests, ${server.stats.requests} in all`);
    assert.ok(parq.every(([, n]) => n === 1), JSON.stringify(counts));
    assert.ok(parq.length >= 10);
    // 170 chunks in two target files, reached through 11 record files: far
    // fewer requests than chunks (about 2-3 per record file, by timing)
    assert.ok(targets.reduce((a, [, n]) => a + n, 0) < 60, JSON.stringify(counts));
    server.reset();
    await arr.get("0:3, 0:4");
    assert.ok(!server.stats.paths.some((p) => p.endsWith(".parq")), "record files are cached");
  });
});

describe("ReferenceStore: url mapping, the fetch hook, Range rules, abort", () => {
  let server;
  let plain;
  let slow;
  before(async () => {
    server = await startServer(dataDir, {
      routes: {
        "/bad/wrong.bin": (req, res, finish) => finish(206, { "Content-Range": "bytes 0-19/2000" }, Buffer.alloc(20)),
        "/bad/short.bin": (req, res, finish) => finish(206, { "Content-Range": "bytes 1000-1009/2000" }, Buffer.alloc(10)),
        "/bad/200.bin": (req, res, finish) => finish(200, {}, Buffer.alloc(2000)),
      },
    });
    plain = await startServer(dataDir, { ignoreRange: true });
    slow = await startServer(dataDir, { delayMs: 1500 });
  });
  after(async () => {
    await server.close();
    await plain.close();
    await slow.close();
  });

  const meta = {
    ".zgroup": '{"zarr_format": 2}',
    "x/.zarray": JSON.stringify({ shape: [20], chunks: [10], dtype: ">i2", compressor: null, fill_value: -1, filters: null, order: "C", zarr_format: 2 }),
  };
  const cloud = { ...meta, "x/0": ["s3://bucket/json/t1.bin", 1000, 20], "x/1": ["gs://bucket/json/t1.bin", 1020, 20] };
  const want = Int16Array.from({ length: 20 }, (_, i) => -300 + 7 * i); // counts[0:20]

  test("urlMap gets every resolved url and the built-in mapping (s3:// and gs:// to public HTTPS)", async () => {
    const seen = [];
    const s = await zarr.ReferenceStore.fromJSON(cloud, {
      urlMap: (url, defaults) => {
        seen.push([url, defaults(url)]);
        return url.replace(/^(s3|gs):\/\/bucket\//, `${server.url}/`);
      },
    });
    const r = await (await zarr.open(s, { path: "x" })).get();
    assert.deepEqual(r.data, want);
    assert.deepEqual(Object.fromEntries(seen), {
      "s3://bucket/json/t1.bin": "https://bucket.s3.amazonaws.com/json/t1.bin",
      "gs://bucket/json/t1.bin": "https://storage.googleapis.com/bucket/json/t1.bin",
    });
  });

  test("a fetch hook sees the mapped HTTPS request and may sign and re-route it", async () => {
    const hooked = [];
    server.reset();
    const s = await zarr.ReferenceStore.fromJSON(cloud, {
      fetch: (req) => {
        hooked.push(`${req.url} ${req.headers.get("range")}`);
        const u = req.url.replace(/^https:\/\/(bucket\.s3\.amazonaws\.com|storage\.googleapis\.com\/bucket)\//, `${server.url}/`);
        const headers = new Headers(req.headers);
        headers.set("Authorization", "Bearer token");
        return fetch(new Request(u, { headers, signal: req.signal }));
      },
    });
    const r = await (await zarr.open(s, { path: "x" })).get();
    assert.deepEqual(r.data, want);
    assert.deepEqual(hooked.sort(), [
      "https://bucket.s3.amazonaws.com/json/t1.bin bytes=1000-1019",
      "https://storage.googleapis.com/bucket/json/t1.bin bytes=1020-1039",
    ]);
    assert.ok(server.stats.log.every((l) => l.headers.authorization === "Bearer token"));
  });

  test("headers are sent with every request; urls the hook does not handle are refused plainly", async () => {
    server.reset();
    const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`, { headers: { "X-Token": "t" } });
    await (await zarr.open(s, { path: "counts" })).get();
    assert.ok(server.stats.log.length >= 2 && server.stats.log.every((l) => l.headers["x-token"] === "t"));
    const ftp = await zarr.ReferenceStore.fromJSON(cloud, { urlMap: () => "ftp://host/t1.bin" });
    await assert.rejects(ftp.get("/x/0"), (e) => e.code === "UNSUPPORTED" && /ftp:\/\/host/.test(e.message));
  });

  test("a server that ignores Range is an error naming the fix; acceptFullResponse reads it", async () => {
    const s = await zarr.ReferenceStore.fromUrl(`${plain.url}/json/v0.json`);
    await assert.rejects((await zarr.open(s, { path: "counts" })).get(), (e) => e.code === "STORE" && /ignored the Range header/.test(e.message) && /acceptFullResponse/.test(e.message));
    const ok = await zarr.ReferenceStore.fromUrl(`${plain.url}/json/v0.json`, { acceptFullResponse: true });
    const c = cases.find((x) => x.store === "json/v0.json" && x.path === "counts" && x.selection === "");
    assert.equal(compareCase(c, await readCase(ok, c)), null);
  });

  test("a 206 for other bytes, a short 206 or a 200 to a range is an error, never wrong bytes", async () => {
    for (const [name, re] of [
      ["wrong.bin", /does not answer bytes 1000-1019/],
      ["short.bin", /does not answer bytes 1000-1019/],
      ["200.bin", /ignored the Range header/],
    ]) {
      const s = await zarr.ReferenceStore.fromJSON({ ...meta, "x/0": [name, 1000, 20] }, { baseUrl: `${server.url}/bad/refs.json`, retries: 0 });
      await assert.rejects(s.get("/x/0"), (e) => e.code === "STORE" && re.test(e.message), name);
    }
  });

  test("sameOrigin / allowedTargets keep a reference file from pointing at other hosts and ports", async () => {
    const other = await startServer(dataDir); // another port on 127.0.0.1: another origin
    try {
      const c = cases.find((x) => x.store === "json/v0.json" && x.path === "counts");
      const refs = JSON.parse(await fs.readFile(path.join(dataDir, "json", "v0.json"), "utf8"));
      for (const [k, v] of Object.entries(refs)) if (Array.isArray(v)) refs[k] = [`${other.url}/json/${v[0]}`, ...v.slice(1)];
      const baseUrl = `${server.url}/json/refs.json`;
      const open = await zarr.ReferenceStore.fromJSON(refs, { baseUrl });
      assert.equal(compareCase(c, await readCase(open, c)), null, "without the option any origin is read");
      const strict = await zarr.ReferenceStore.fromJSON(refs, { baseUrl, sameOrigin: true });
      other.reset();
      await assert.rejects(readCase(strict, c), (e) => e.code === "STORE" && /outside the reference file's origin/.test(e.message));
      assert.equal(other.stats.requests, 0, "nothing was fetched from the refused origin");
      const listed = await zarr.ReferenceStore.fromJSON(refs, { baseUrl, sameOrigin: true, allowedTargets: [`${other.url}/json/`] });
      assert.equal(compareCase(c, await readCase(listed, c)), null);
      const elsewhere = await zarr.ReferenceStore.fromJSON(refs, { baseUrl, allowedTargets: [`${other.url}/pq/`] });
      await assert.rejects(readCase(elsewhere, c), (e) => e.code === "STORE" && /outside the allowed targets/.test(e.message));
      // the reference file's own relative targets pass sameOrigin
      const same = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`, { sameOrigin: true });
      assert.equal(compareCase(c, await readCase(same, c)), null);
    } finally {
      await other.close();
    }
  });

  test("retries: a 503 is retried with backoff", async () => {
    const flaky = await startServer(dataDir, { failFirst: 1 });
    try {
      const s = await zarr.ReferenceStore.fromUrl(`${flaky.url}/json/v0.json`, { retryDelay: 1 });
      const c = cases.find((x) => x.store === "json/v0.json" && x.path === "small"); // inline
      assert.equal(compareCase(c, await readCase(s, c)), null);
      assert.equal(flaky.stats.byStatus[503], 1);
      assert.deepEqual(flaky.stats.paths, ["/json/v0.json", "/json/v0.json"]);
    } finally {
      await flaky.close();
    }
  });

  test("abort: the signal of a read cancels its requests; ABORTED at once", async () => {
    // The target's requests are held at the server until the gate opens: the read must reject
    // before any is answered, and the server must see the request dropped.
    const held = gate();
    const target = await startServer(dataDir, { hold: (p) => (p === "/json/t1.bin" ? held.wait() : null) });
    try {
      const signals = [];
      const s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`, {
        fetch: (req) => {
          signals.push(req.signal);
          return fetch(new Request(req.url.replace(server.url, target.url), req));
        },
      });
      const arr = await zarr.open(s, { path: "counts" });
      const answered = JSON.stringify(target.stats.byStatus);
      const ac = new AbortController();
      const p = arr.get(null, { signal: ac.signal });
      await until(() => target.stats.log.some((l) => l.path === "/json/t1.bin"), "the target request at the server");
      ac.abort(new Error("enough"));
      await assert.rejects(p, (e) => e.code === "ABORTED" && /enough/.test(e.message));
      assert.equal(held.opened, false, "the read waited for the server's answer");
      assert.ok(signals.length >= 1 && signals.at(-1).aborted, "the target request was aborted");
      await until(() => target.stats.inFlight === 0, "the server to see the request dropped");
      assert.equal(JSON.stringify(target.stats.byStatus), answered, "the server answered nothing more");
    } finally {
      held.open();
      await target.close();
    }
    // and opening can be aborted too
    const ac2 = new AbortController();
    ac2.abort();
    await assert.rejects(zarr.ReferenceStore.fromUrl(`${slow.url}/json/v0.json`, { signal: ac2.signal }), (e) => e.code === "ABORTED");
  });

  test("a merged request stays alive while another read still needs it", async (t) => {
    // Two gets merge only when the second reaches the store within the
    // merge window of the first; on a busy machine the 2 ms default can
    // pass between them (two requests, nothing merged to keep alive). So
    // the window starts at 100 ms and doubles while the two reads were
    // not merged; the checks below hold for the attempt that merged.
    const t1 = await fs.readFile(path.join(dataDir, "json", "t1.bin"));
    const tries = [];
    for (let window = 100; window <= 6400; window *= 2) {
      const s = await zarr.ReferenceStore.fromUrl(`${slow.url}/json/v0.json`, { window });
      slow.reset();
      const ac = new AbortController();
      const a = s.get("/counts/0", { signal: ac.signal });
      const b = s.get("/counts/1");
      a.catch(() => {});
      // abort a once the (merged) request is at the server: the fetch is
      // in flight and b still needs it (the server answers after 1.5 s)
      const seen = () => slow.stats.log.some((l) => l.path === "/json/t1.bin");
      while (!seen()) await new Promise((r) => setTimeout(r, 5));
      ac.abort();
      await assert.rejects(a, (e) => e.code === "ABORTED");
      assert.deepEqual(await b, new Uint8Array(t1.subarray(1020, 1040)));
      const ranges = slow.stats.log.filter((l) => l.path === "/json/t1.bin").map((l) => l.range);
      tries.push(`window ${window} ms: ${ranges.join(", ")}`);
      if (ranges.length === 1) break;
      assert.deepEqual(new Set(ranges), new Set(["bytes=1000-1019", "bytes=1020-1039"]), "two unmerged requests");
    }
    t.diagnostic(tries.join("; "));
    // b's bytes came from the one merged request: it was not aborted with a
    assert.deepEqual(tries.at(-1).split(": ")[1], "bytes=1000-1039", `one merged request (${tries.join("; ")})`);
  });
});

describe("ReferenceStore as a plain store", () => {
  let server;
  let s;
  before(async () => {
    server = await startServer(dataDir);
    s = await zarr.ReferenceStore.fromUrl(`${server.url}/json/v0.json`);
  });
  after(async () => {
    await server.close();
  });

  test("get, getRange (offset/length, suffix), list, lookup", async () => {
    const t1 = await fs.readFile(path.join(dataDir, "json", "t1.bin"));
    assert.deepEqual(await s.get("/counts/3"), new Uint8Array(t1.subarray(1060, 1080)));
    assert.deepEqual(await s.getRange("/counts/3", { offset: 4, length: 6 }), new Uint8Array(t1.subarray(1064, 1070)));
    assert.deepEqual(await s.getRange("/counts/3", { suffixLength: 5 }), new Uint8Array(t1.subarray(1075, 1080)));
    assert.deepEqual(await s.getRange("/counts/3", { offset: 15 }), new Uint8Array(t1.subarray(1075, 1080)));
    assert.equal(await s.get("/counts/77"), undefined);
    assert.equal(JSON.parse(new TextDecoder().decode(await s.get("/.zgroup"))).zarr_format, 2);
    assert.deepEqual(await s.list("/deep/nested/"), [".zgroup", "arr/"]);
    assert.deepEqual(await s.lookup("/counts/3"), { url: "t1.bin", fetchUrl: `${server.url}/json/t1.bin`, offset: 1060, length: 20 });
    assert.deepEqual(await s.lookup("/misc/whole_file"), { url: "sub/t3.bin", fetchUrl: `${server.url}/json/sub/t3.bin`, offset: 0, length: -1 });
    assert.equal((await s.lookup("/.zgroup")).inline, true);
    assert.equal(await s.lookup("/nothing"), undefined);
    assert.throws(() => s.get("counts/3"), TypeError);
  });

  test("wrapped in another JS store object, it reads the same (through its get/getRange)", async () => {
    const wrapper = { get: (k, o) => s.get(k, o), getRange: (k, r, o) => s.getRange(k, r, o), list: (p) => s.list(p) };
    for (const c of cases.filter((x) => x.store === "json/v0.json")) {
      assert.equal(compareCase(c, await readCase(wrapper, c)), null, c.name);
    }
    const g = await zarr.open(wrapper, { kind: "group" });
    assert.deepEqual((await g.children()).map((k) => k.name), ["counts", "deep", "labels", "scalar", "small", "temp", "whole"]);
  });

  test("zarrita.js reads arrays through it", async () => {
    for (const name of ["small", "counts"]) {
      const c = cases.find((x) => x.store === "json/v0.json" && x.path === name && x.selection === "");
      const arr = await zarrita.open(zarrita.root(s).resolve(name), { kind: "array" });
      const chunk = await zarrita.get(arr, null);
      assert.equal(compareCase(c, { shape: chunk.shape, data: chunk.data }), null, name);
    }
  });

  test("create() on it fails: reference sets are read-only", async () => {
    await assert.rejects(zarr.create(s, { path: "new", shape: [2], dtype: "int8" }), (e) => e instanceof zarr.ZarrError);
  });
});
