// Object stores from a browser page (Debian's chromium via playwright-core):
// the package, served from one origin, reads and writes a bucket of
// tests/s3's fake S3 server on another origin (its CORS rules allow it).
// Reads with credentials are signed in the query, so they need no CORS
// preflight (counted at the server: 0 OPTIONS for reads); writes are PUTs
// with signed headers, preflighted. The bucket answers 403 for missing
// keys, and holds zarr-python's v2 fixture. And a zipped array read by
// ranges from the page's own server, its entries merged into few requests.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { execFileSync } from "node:child_process";
import { repoRoot, npmDir, startServer, startS3Server, exists, peersRequired, loadCases, compareCase } from "../node/helpers.mjs";

const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const haveChromium = await exists(chromiumPath);
if (!haveChromium && peersRequired) throw new Error(`${chromiumPath} is missing (apt-get install -y chromium)`);

const page = `<!doctype html><meta charset="utf-8"><title>object stores</title>
<script type="importmap">{ "imports": { "zarr-wasm": "/pkg/index.js" } }</script>
<script type="module">
  import * as zarr from "zarr-wasm";
  globalThis.zarr = zarr;
  globalThis.ready = true;
</script>`;

describe("object stores from a browser page", { skip: haveChromium ? false : `${chromiumPath} not installed` }, () => {
  let server;
  let s3;
  let context;
  let p;
  let dir;
  let zips; // tests/zip/window.py's output, when zarr-python is here
  const s3log = () => s3.log();

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-objstore-browser-"));
    s3 = await startS3Server([
      "-load", `v2.zarr/=${path.join(repoRoot, "tests", "fixtures", "v2", "data", "v2.zarr")}`,
      "-load", `v3.zarr/=${path.join(repoRoot, "tests", "fixtures", "v3", "data", "v3.zarr")}`,
    ]);
    // tests/zip/window.py: zarr-python's ZipStore writes the zips
    try {
      await fs.mkdir(path.join(dir, "zips"));
      execFileSync("/usr/bin/python3", [path.join(repoRoot, "tests", "zip", "window.py"), path.join(dir, "zips")], { stdio: "pipe" });
      zips = path.join(dir, "zips");
    } catch (e) {
      if (peersRequired) throw e;
    }
    server = await startServer(dir, { mounts: { "/pkg": npmDir, "/v3": path.join(repoRoot, "tests", "fixtures", "v3", "data", "v3.zarr") }, routes: { "/page.html": (req, res, finish) => finish(200, { "Content-Type": "text/html" }, page) } });
    const { chromium } = await import("../../npm/dev/browser-deps.mjs");
    context = await chromium.launchPersistentContext(path.join(dir, "profile"), {
      executablePath: chromiumPath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    p = await context.newPage();
    await p.goto(`${server.url}/page.html`);
    await p.waitForFunction(() => globalThis.ready === true);
  });

  after(async () => {
    await context?.close();
    await server?.close();
    await s3?.stop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  test("the default concurrency follows the protocol: 6 over HTTP/1.1 (the page's own server), 16 while unknown (another origin without Timing-Allow-Origin)", async () => {
    const got = await p.evaluate(async (endpoint) => {
      const out = {};
      for (const [name, store] of [
        ["same", new zarr.FetchStore(`${location.origin}/v3/`)],
        ["other", new zarr.FetchStore("s3://bucket/v3.zarr", { endpoint })],
        ["set", new zarr.FetchStore(`${location.origin}/v3/`, { concurrency: 3 })],
      ]) {
        const before = store.concurrency;
        const a = await zarr.open(store, { path: "sharding/end_crc", kind: "array" });
        await a.get(null);
        await a.get(null);
        out[name] = { before, after: store.concurrency, protocol: store.protocol ?? null };
      }
      return out;
    }, s3.endpoint);
    assert.deepEqual(got.same, { before: 16, after: 6, protocol: "http/1.1" });
    assert.deepEqual(got.other, { before: 16, after: 16, protocol: null });
    assert.deepEqual(got.set, { before: 3, after: 3, protocol: null });
  });

  test("a window of a zipped array (zarr-python's ZipStore) over a FetchStore: its 48 chunks' entries in merged requests, zarr-python's values", async (t) => {
    if (!zips) return t.skip("no zarr-python");
    const want = Array.from(new Int32Array((await fs.readFile(path.join(zips, "window.bin"))).buffer.slice(0)));
    for (const name of ["stored.zip", "deflated.zip"]) {
      const got = await p.evaluate(async ([base, name]) => {
        const zip = await zarr.ZipStore.open(new zarr.FetchStore(base), `/${name}`);
        const arr = await zarr.open(zip, { path: "arr", kind: "array" });
        const before = zip.requests;
        const r = await arr.get([zarr.slice(30, 170), zarr.slice(45, 155)]);
        return { shape: r.shape, data: Array.from(r.data), requests: zip.requests - before };
      }, [`${server.url}/zips`, name]);
      assert.deepEqual(got.shape, [140, 110]);
      assert.deepEqual(got.data, want, `${name}: zarr-python's values`);
      t.diagnostic(`${name}: 48 chunks in ${got.requests} requests`);
      assert.ok(got.requests <= 12, `${name}: 48 chunks in ${got.requests} requests: the entries were not merged`);
    }
  });

  test("over HTTP/2 the default concurrency is 64: more than 16 requests in flight at once", async () => {
    // The page and the data from one HTTPS server speaking HTTP/2 (tests/node/tls's certificate).
    const h2 = await startServer(path.join(repoRoot, "tests", "fixtures", "v2", "data"), {
      tls: true,
      delayMs: (p) => (/\/\d+(\.\d+)*$/.test(p) ? 150 : 0), // (chunks answer late, so that reads overlap)
      mounts: { "/pkg": npmDir },
      routes: { "/page.html": (req, res, finish) => finish(200, { "Content-Type": "text/html" }, page) },
    });
    const { chromium } = await import("../../npm/dev/browser-deps.mjs");
    const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
    try {
      const page2 = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
      await page2.goto(`${h2.url}/page.html`);
      await page2.waitForFunction(() => globalThis.ready === true);
      const paths = ["layout/chunk1", "layout/F_f8_3d", "layout/C_f8_3d"];
      const got = await page2.evaluate(async (paths) => {
        const store = new zarr.FetchStore(`${location.origin}/v2.zarr/`);
        const before = store.concurrency;
        const arrays = await Promise.all(paths.map((p) => zarr.open(store, { path: p, kind: "array" })));
        await arrays[0].get(null); // (the protocol is known after the first answers)
        const learnt = { protocol: store.protocol ?? null, concurrency: store.concurrency };
        const reads = await Promise.all(
          arrays.map(async (a) => {
            const r = await a.get(null);
            return { shape: r.shape, bytes: Array.from(new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength)), type: r.data.constructor.name };
          }),
        );
        return { before, learnt, reads };
      }, paths);
      assert.deepEqual(got.learnt, { protocol: "h2", concurrency: 64 });
      assert.equal(got.before, 16);
      assert.ok(h2.stats.maxInFlight > 16, `at most ${h2.stats.maxInFlight} requests in flight; 64 are allowed over HTTP/2`);
      const cases = await loadCases(path.join(repoRoot, "tests", "fixtures", "v2", "cases.json"));
      paths.forEach((p, i) => {
        const c = cases.find((x) => x.store === "v2.zarr" && x.path === p && x.selection === "");
        assert.ok(c, p);
        const r = got.reads[i];
        const ctor = { Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Uint8Array, Uint16Array, Uint32Array }[r.type];
        assert.ok(ctor, `${p}: ${r.type}`);
        const diff = compareCase(c, { shape: r.shape, data: new ctor(Uint8Array.from(r.bytes).buffer) });
        assert.equal(diff, null, `${p}: ${diff}`);
      });
    } finally {
      await browser.close();
      await h2.close();
    }
  });

  test("signed reads of another origin's bucket: values as zarr-python wrote them, no preflight", async () => {
    const cases = (await loadCases(path.join(repoRoot, "tests", "fixtures", "v2", "cases.json"))).filter((c) => c.store === "v2.zarr" && !c.error && !c.note).slice(0, 40);
    await fetch(`${s3.endpoint}/_control?requireAuth=true`);
    await s3log();
    const results = await p.evaluate(
      async ({ endpoint, cases }) => {
        const store = new zarr.FetchStore("s3://bucket/v2.zarr", { endpoint, credentials: { accessKeyId: "browser", secretAccessKey: "secret" } });
        const out = [];
        for (const c of cases) {
          const r = await (await zarr.open(store, { path: c.path, kind: "array" })).get(c.selection);
          // (the bytes, so NaN payloads survive the trip to Node)
          const bytes = ArrayBuffer.isView(r.data) ? Array.from(new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength)) : null;
          out.push({ shape: r.shape, bytes, type: r.data.constructor.name });
        }
        return out;
      },
      { endpoint: s3.endpoint, cases },
    );
    const log = await s3log();
    await fetch(`${s3.endpoint}/_control?requireAuth=false`);
    assert.equal(results.length, cases.length);
    let checked = 0;
    for (const [i, c] of cases.entries()) {
      const r = results[i];
      const ctor = { Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Uint8Array, Uint16Array, Uint32Array, BigInt64Array, BigUint64Array }[r.type];
      if (!ctor || !r.bytes) continue; // (strings, objects: the Node suites check those)
      const data = new ctor(Uint8Array.from(r.bytes).buffer);
      const diff = compareCase(c, { shape: r.shape, data }, { anyNaN: c.name === "fill/c8_nan_inf" });
      assert.equal(diff, null, `${c.name}: ${diff}`);
      checked++;
    }
    assert.ok(checked > 20, `${checked} cases checked`);
    const options = log.filter((l) => l.startsWith("OPTIONS"));
    const gets = log.filter((l) => l.startsWith("GET"));
    assert.ok(gets.length > 40 && gets.every((l) => l.includes("X-Amz-Signature=")), "reads are signed in the query");
    assert.equal(options.length, 0, `CORS preflights for reads: ${options.slice(0, 3).join("; ")}`);
  });

  test("sharded reads of another origin's bucket, public and signed: no preflight, no suffix Range", async () => {
    const cases = (await loadCases(path.join(repoRoot, "tests", "fixtures", "v3", "cases.json"))).filter((c) => c.store === "v3.zarr" && c.path.startsWith("sharding/") && !c.error && !c.note);
    for (const signed of [false, true]) {
      await s3.control({ requireAuth: signed });
      await s3log();
      const results = await p.evaluate(
        async ({ endpoint, cases, signed }) => {
          const store = new zarr.FetchStore("s3://bucket/v3.zarr", { endpoint, ...(signed ? { credentials: { accessKeyId: "browser", secretAccessKey: "secret" } } : {}) });
          const out = [];
          for (const c of cases) {
            const r = await (await zarr.open(store, { path: c.path, kind: "array" })).get(c.selection);
            out.push({ shape: r.shape, bytes: Array.from(new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength)), type: r.data.constructor.name });
          }
          return { out, suffixRanges: store.suffixRanges };
        },
        { endpoint: s3.endpoint, cases, signed },
      );
      const log = await s3log();
      await s3.control({ requireAuth: false });
      assert.equal(results.suffixRanges, false, "another origin: no suffix ranges by default");
      let checked = 0;
      for (const [i, c] of cases.entries()) {
        const r = results.out[i];
        const ctor = { Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Uint8Array, Uint16Array, Uint32Array, BigInt64Array, BigUint64Array }[r.type];
        if (!ctor) continue; // (bool, float16: the Node suites check those)
        const diff = compareCase(c, { shape: r.shape, data: new ctor(Uint8Array.from(r.bytes).buffer) });
        assert.equal(diff, null, `${c.name}: ${diff}`);
        checked++;
      }
      assert.ok(checked >= 10, `${checked} cases checked`);
      const what = signed ? "signed" : "public";
      assert.equal(log.filter((l) => l.startsWith("OPTIONS")).length, 0, `${what}: CORS preflights: ${log.filter((l) => l.startsWith("OPTIONS")).slice(0, 3).join("; ")}`);
      assert.equal(log.filter((l) => / bytes=-\d+$/.test(l)).length, 0, `${what}: suffix ranges sent`);
      assert.ok(log.some((l) => l.startsWith("HEAD")), `${what}: no HEAD (the shards' sizes)`);
      assert.ok(log.filter((l) => / bytes=\d+-\d+$/.test(l)).length > cases.length, `${what}: few ranged reads`);
    }
  });

  test("writes from the page (PUT, signed headers, conditional), read back", async () => {
    const got = await p.evaluate(async (endpoint) => {
      const opts = { endpoint, credentials: { accessKeyId: "browser", secretAccessKey: "secret" } };
      const arr = await zarr.create("s3://bucket/page.zarr", { ...opts, shape: [6], chunks: [3], dtype: "int16", zarrFormat: 3 });
      await arr.set(null, Int16Array.from([1, 2, 3, 4, 5, 6]));
      await arr.set([zarr.slice(1, 2)], -9);
      const store = new zarr.FetchStore("s3://bucket/page.zarr", opts);
      const back = await zarr.open(store, { kind: "array" });
      await back.set([zarr.slice(4, 5)], 50);
      return { data: Array.from((await back.get()).data), conditional: store.conditionalWrites };
    }, s3.endpoint);
    assert.deepEqual(got.data, [1, -9, 3, 4, 50, 6]);
    assert.equal(got.conditional, true);
  });
});
