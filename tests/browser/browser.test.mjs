// Browser suite: Debian's chromium (never a downloaded browser) driven by
// playwright-core loads (1) a page that imports the package as it ships
// (the files `npm pack` puts in the tarball, unpacked and served; an import
// map stands for "zarr-wasm") and (2) a web app bundled by Vite; each reads the v2 and v3 fixture cases over HTTP with
// FetchStore, and the values are checked in Node against cases.json.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { repoRoot, npmDir, startServer, loadCases, compareCase, exists, peersRequired } from "../node/helpers.mjs";
import { loadCompat, tally, caseKey, compatData } from "../compat/check.mjs";
import * as zarrNode from "../../npm/node.js";
import { twoShardVersions, alternatingRoutes, versionOf, window as versionWindow } from "../node/versions.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const haveChromium = await exists(chromiumPath);
if (!haveChromium && peersRequired) throw new Error(`${chromiumPath} is missing (apt-get install -y chromium)`);

const sets = [];
for (const v of ["v2", "v3"]) {
  const file = path.join(repoRoot, "tests", "fixtures", v, "cases.json");
  if (await exists(file)) sets.push({ v, cases: await loadCases(file) });
}
const anyNaN = new Set(["fill/c8_nan_inf"]);
// The compatibility corpus (tests/compat), checked as in Node and Go.
const compat = await loadCompat();

// Reference sets (tests/refs): the JSON cases, and the Parquet directories
// read against their JSON source's cases.
const refsData = path.join(repoRoot, "tests", "refs", "data");
const refCases = await loadCases(path.join(repoRoot, "tests", "refs", "cases.json"));
const pqDirs = (await fs.readdir(path.join(refsData, "pq"), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
for (const d of pqDirs) {
  for (const c of refCases.filter((x) => x.store === "pq/refs.json")) refCases.push({ ...c, name: `pq/${d}/:${c.name.split(":").slice(1).join(":")}`, store: `pq/${d}/` });
}

function fromB64(s) {
  return new Uint8Array(Buffer.from(s, "base64"));
}

/**
 * Compares the page's results with the cases: the failures, and how many
 * optional cases were refused with UNSUPPORTED (allowed, as in the Go test).
 */
function compareResults(cases, results) {
  const failures = [];
  let skipped = 0;
  cases.forEach((c, i) => {
    const r = results[i];
    if (r.error) {
      if (c.note?.startsWith("OPTIONAL") && r.error.code === "UNSUPPORTED") skipped++;
      else failures.push(`${c.name}: ${r.error.code} ${r.error.message}`);
      return;
    }
    const diff = compareCase(c, { shape: r.shape, data: decode(r.data) }, { anyNaN: anyNaN.has(c.name) });
    if (diff) failures.push(`${c.name}: ${diff}`);
  });
  return { failures, skipped };
}

/** The cases as the page gets them: only the fields it needs to read each one. */
const pageCases = (cases) => cases.map((c) => ({ name: c.name, store: c.store, path: c.path, selection: c.selection }));

function decode(d) {
  if (d.typed) {
    const bytes = fromB64(d.b64);
    const Ctor = globalThis[d.typed];
    return new Ctor(bytes.buffer, bytes.byteOffset, bytes.byteLength / Ctor.BYTES_PER_ELEMENT);
  }
  if (d.list) return d.list.map(element);
  return Object.fromEntries(Object.entries(d.fields).map(([k, v]) => [k, decode(v)]));
}

function element(e) {
  if ("u8" in e) return fromB64(e.u8);
  if ("big" in e) return BigInt(e.big);
  if ("num" in e) return Number(e.num);
  if ("arr" in e) return e.arr.map(element);
  if ("obj" in e) return Object.fromEntries(Object.entries(e.obj).map(([k, x]) => [k, element(x)]));
  return e.v;
}

describe("browser (Debian chromium via playwright-core)", { skip: haveChromium ? false : `${chromiumPath} not installed` }, () => {
  let server;
  let context;
  let userDataDir;
  let bundleDir;
  let packDir;
  let versionStats;

  before(async () => {
    const { chromium, vite } = await import("../../npm/dev/browser-deps.mjs");
    bundleDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-vite-"));
    await vite.build({
      root: path.join(here, "app"),
      base: "/bundle/",
      logLevel: "warn",
      configFile: false,
      build: { outDir: bundleDir, emptyOutDir: true, target: "es2022" },
      resolve: {
        alias: [
          { find: /^zarr-wasm$/, replacement: path.join(npmDir, "index.js") },
          { find: /^zarr-wasm\/(.*)$/, replacement: `${npmDir}/$1` },
        ],
      },
    });
    // The package as it ships: npm pack, then unpack the tarball.
    packDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-pack-"));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", packDir], { cwd: npmDir, encoding: "utf8" }),
    );
    execFileSync("tar", ["-xzf", path.join(packDir, packed[0].filename), "-C", packDir]);
    versionStats = {};
    server = await startServer(here, {
      routes: alternatingRoutes("/versioned", await twoShardVersions(zarrNode), versionStats),
      delayMs: (p) => (p.startsWith("/slowrefs/") ? 40 : 0),
      mounts: {
        "/pkg": path.join(packDir, "package"),
        "/fixtures": path.join(repoRoot, "tests", "fixtures"),
        "/compat": compatData,
        "/refs": refsData,
        "/slowrefs": refsData,
        "/bundle": bundleDir,
      },
    });
    userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-chromium-"));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: flags,
    });
  });

  after(async () => {
    await context?.close();
    await server?.close();
    for (const d of [userDataDir, bundleDir, packDir]) if (d) await fs.rm(d, { recursive: true, force: true });
  });

  for (const page of [
    { label: "shipped", url: "/pages/shipped.html" },
    { label: "vite", url: "/bundle/index.html" },
  ]) {
    describe(`${page.label} page`, () => {
      let p;
      const errors = [];
      before(async () => {
        p = await context.newPage();
        p.on("pageerror", (e) => errors.push(String(e)));
        p.on("console", (m) => {
          // Absent keys are 404s by design (missing chunks, optional metadata), and a
          // shard that changed under a conditional read is a 412; chromium logs each.
          if (m.type() === "error" && !/status of (404|412)/.test(m.text())) errors.push(m.text());
        });
        await p.goto(server.url + page.url);
        await p.waitForFunction(() => document.title.startsWith("ready"), null, { timeout: 60_000 });
      });
      after(async () => {
        await p?.close();
      });

      test("loads, initialises and reports errors as ZarrError", async () => {
        assert.equal(await p.evaluate(() => globalThis.zarrWasmLabel), page.label);
        const r = await p.evaluate((base) => globalThis.probe(base), `${server.url}/fixtures/v2/data/v2.zarr/`);
        // (No "did you mean" here: HTTP cannot list, and this store has no consolidated metadata.)
        assert.deepEqual(r.missing, { zarrError: true, code: "NOT_FOUND", suggest: undefined });
        assert.deepEqual(r.memory, [2, 3]);
        assert.equal(r.abort, "ABORTED");
      });

      test("the decoders' module (lib/codecs.wasm) is fetched beside the package, or as the bundle's asset", async () => {
        // (init() has run: it waits for the decoders.)
        const r = await p.evaluate(() => performance.getEntriesByType("resource").map((e) => ({ name: e.name, status: e.responseStatus })).filter((e) => /\.wasm$/.test(e.name)));
        const decoders = r.filter((e) => /\/codecs[-.][^/]*wasm$/.test(e.name) && !/codecs-encode/.test(e.name));
        assert.equal(decoders.length, 1, JSON.stringify(r));
        assert.equal(decoders[0].status, 200, JSON.stringify(r));
        if (page.label === "shipped") {
          assert.equal(new URL(decoders[0].name).pathname, "/pkg/lib/codecs.wasm");
          // The page's own instance of lib/codecs.js (the same URL) has loaded it.
          const loaded = await p.evaluate(() => import("/pkg/lib/codecs.js").then((m) => m.loadCodecs()));
          assert.equal(loaded, true);
        }
      });

      test("TensorStore specs: http kvstore by URL, memory kvstore, file kvstore refused", async () => {
        const r = await p.evaluate((base) => globalThis.specProbe(base), `${server.url}/fixtures/v2/data/v2.zarr/`);
        // dtypes/i2_le[1, 0:3] as zarr-python 2.13 reads it.
        assert.deepEqual(r.http, { values: [12917, 11483, -13599], kvstore: "http", rank: 2 });
        assert.deepEqual(r.memory, [7, 8, 9]);
        assert.equal(r.file, "UNSUPPORTED");
      });

      for (const set of sets) {
        test(`${set.v} fixture cases over HTTP match cases.json`, async (t) => {
          const before = await p.evaluate(() => globalThis.directDecoded());
          const results = await p.evaluate(([cases, base]) => globalThis.runCases(cases, base), [
            pageCases(set.cases),
            `${server.url}/fixtures/${set.v}/data/`,
          ]);
          const after = await p.evaluate(() => globalThis.directDecoded());
          const { failures, skipped } = compareResults(set.cases, results);
          const decoded = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
          t.diagnostic(`${set.cases.length - failures.length - skipped} cases match, ${skipped} optional cases unsupported; chunks decoded by the read executor (lib/read.js): ${JSON.stringify(decoded)}`);
          assert.deepEqual(failures, []);
          // The reads on the calling thread ran in the page, Blosc through
          // the decoders module's walker among them.
          assert.ok(decoded.zstd > 0 && decoded.blosc > 0, `direct reads in the page: ${JSON.stringify(decoded)}`);
        });
      }

      test("Blosc arrays read on the calling thread equal the engine's reads in the page", async (t) => {
        // The v2 and v3 fixtures' Blosc arrays (lz4, lz4hc, zstd, zlib;
        // byte, bit and no shuffle; blosclz, snappy) whole, with the path
        // on and then off.
        const blosc = sets.flatMap((s) => s.cases.filter((c) => /blosc/i.test(c.name + c.path)).map((c) => ({ ...c, v: s.v })));
        assert.ok(blosc.length >= 5, `${blosc.length} Blosc cases`);
        const runAll = async (on) => {
          await p.evaluate((x) => globalThis.setDirect(x), on);
          const out = [];
          for (const v of ["v2", "v3"]) {
            const cs = blosc.filter((c) => c.v === v).map((c) => ({ name: c.name, store: c.store, path: c.path, selection: null }));
            out.push(...(await p.evaluate(([cases, base]) => globalThis.runCases(cases, base), [cs, `${server.url}/fixtures/${v}/data/`])));
          }
          return out;
        };
        try {
          const before = await p.evaluate(() => globalThis.directDecoded());
          const on = await runAll(true);
          const walked = (await p.evaluate(() => globalThis.directDecoded())).blosc - before.blosc;
          const off = await runAll(false);
          t.diagnostic(`${blosc.length} Blosc arrays, ${walked} chunks walked on the calling thread`);
          assert.deepEqual(on, off);
          assert.ok(walked > 0);
        } finally {
          await p.evaluate(() => globalThis.setDirect(true));
        }
      });

      if (page.label === "shipped") {
        test("compatibility corpus over HTTP: every array reads with the stated values or is a listed refusal", async (t) => {
          const cases = compat.cases.map((c) => ({ name: caseKey(c), store: c.store, path: c.path, selection: "" }));
          const results = await p.evaluate(([cs, base]) => globalThis.runCases(cs, base), [cases, `${server.url}/compat/`]);
          const outcomes = results.map((r) => (r.error ? { error: r.error } : { res: { shape: r.shape, data: decode(r.data) } }));
          const r = await tally(compat, outcomes);
          for (const l of r.summary) t.diagnostic(l);
          assert.deepEqual(r.wrong, [], "arrays read with other values");
          assert.deepEqual(r.newRefusals, [], "refusals not in tests/compat/refused.txt (with that code)");
          assert.deepEqual(r.nowRead, [], "arrays that read now: remove them from tests/compat/refused.txt");
        });
      }

      for (const v of ["v2", "v3"]) {
        test(`with 2 decode workers, the ${v} fixture cases match cases.json and both workers decoded chunks`, async (t) => {
          const set = sets.find((s) => s.v === v);
          const { results, stats } = await p.evaluate(([cases, base]) => globalThis.runCasesWithWorkers(cases, base), [
            pageCases(set.cases),
            `${server.url}/fixtures/${v}/data/`,
          ]);
          const { failures } = compareResults(set.cases, results);
          t.diagnostic(`chunks decoded per worker: ${stats.decoded.join(", ")}; on the page's thread ${stats.here}; reads ${JSON.stringify(stats.reads)}`);
          assert.deepEqual(failures, []);
          assert.equal(stats.decoded.length, 2);
          assert.ok(stats.decoded.every((n) => n > 5), `each worker decoded chunks: ${stats.decoded}`);
          assert.equal(stats.declined, 0);
        });
      }

      test("stopping the worker pool while a read waits on a worker: the read completes, decoded in the page", async () => {
        const r = await p.evaluate(() => globalThis.stopPoolMidRead());
        assert.equal(r.ok, true, "the read completed with every value");
      });

      test("reference sets over HTTP (JSON v0/v1, Parquet) match cases.json", async (t) => {
        const results = await p.evaluate(([cases, base]) => globalThis.runRefCases(cases, base), [
          refCases.map((c) => ({ name: c.name, store: c.store, target: c.target, path: c.path, selection: c.selection })),
          `${server.url}/refs/`,
        ]);
        const { failures } = compareResults(refCases, results);
        t.diagnostic(`${refCases.length - failures.length}/${refCases.length} reference cases match (${pqDirs.length} Parquet directories)`);
        assert.deepEqual(failures, []);
      });

      test("reference sets: neighbouring ranges are merged, separate ones fetched concurrently", async (t) => {
        server.reset();
        const merged = await p.evaluate((u) => globalThis.refRequests(u, "counts"), `${server.url}/refs/json/v0.json`);
        const t1 = server.stats.log.filter((l) => l.path === "/refs/json/t1.bin").map((l) => l.range);
        server.reset();
        const apart = await p.evaluate((u) => globalThis.refRequests(u, "counts", { maxGap: -1 }), `${server.url}/slowrefs/json/v0.json`);
        const t1apart = server.stats.log.filter((l) => l.path === "/slowrefs/json/t1.bin").map((l) => l.range);
        t.diagnostic(`counts (10 chunks): ${merged.requests} request merged (${t1}), ${apart.requests} with maxGap -1, at most ${server.stats.maxInFlight} in flight (a 40 ms server)`);
        assert.deepEqual([merged.n, merged.requests, t1], [100, 1, ["bytes=1000-1199"]]);
        assert.deepEqual([apart.requests, t1apart.length], [10, 10]);
        assert.ok(server.stats.maxInFlight >= 3, `at most ${server.stats.maxInFlight} in flight`);
      });

      test("a shard swapped between two versions while it is read: 100 reads, each of one version or CONFLICT", async (t) => {
        versionStats.preconditionFailed = 0;
        const reads = await p.evaluate(([base, w]) => globalThis.versionedReads(base, 100, w), [`${server.url}/versioned/`, versionWindow]);
        const r = { good: 0, conflicts: 0, wrong: 0 };
        for (const x of reads) {
          if (x.code === "CONFLICT") r.conflicts++;
          else if (x.b64 && versionOf(new Int32Array(fromB64(x.b64).slice().buffer))) r.good++;
          else r.wrong++;
        }
        t.diagnostic(`${r.good} of one version, ${r.conflicts} CONFLICT, ${r.wrong} wrong; 412 answers: ${versionStats.preconditionFailed}`);
        assert.equal(r.wrong, 0);
        assert.ok(r.good >= 50 && versionStats.preconditionFailed > 0);
      });

      test("no errors in the page", () => {
        assert.deepEqual(errors, []);
      });
    });
  }
});
