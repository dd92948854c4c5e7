// FetchStore and ReferenceStore against the fault server (tests/faults, the
// one Go's HTTP store is tested against in zarr/store/http/faults_test.go):
// 5xx, resets, truncation, ignored Range, endless bodies, stalls, 429 with
// Retry-After. Every read must give the writer's values or a STORE error:
// 0 wrong results, 0 hangs (each read has a deadline), 0 crashes. Small
// timeouts are configured so stalls cost a fraction of a second; where
// reads must recover (the faulty attempts are followed by clean ones: 5xx/2,
// mix/p30 with at most two faulty attempts in a row), the attempt timeout
// is derived from how long clean reads take now: on a loaded machine a
// clean answer can wait longer than 300 ms for the thread (or the server),
// and a fixed timeout failed it (mix/p30, reset/2 at load 11-16).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { spawn, execFileSync } from "node:child_process";
import * as zarr from "../../npm/index.js";
import { repoRoot, loadCases, compareCase } from "./helpers.mjs";

const options = { timeout: 300, totalTimeout: 20_000, retryDelay: 5, maxRetryDelay: 2000, maxBodyBytes: 1 << 20 };

// fault, when, FetchStore (a sharded v3 array: ranges), ReferenceStore.
// The same table as Go's (FetchStore slices a 200 to a ranged request;
// the reference reader, like Go's, refuses it).
const scenarios = [
  ["ok", "all", "values", "values"],
  ["5xx", "2", "values", "values"],
  ["5xx", "all", "STORE", "STORE"],
  ["reset", "2", "values", "values"],
  ["reset", "all", "STORE", "STORE"],
  ["truncate", "2", "values", "values"],
  ["truncate", "all", "STORE", "STORE"],
  ["ignore-range", "all", "values", "STORE"],
  ["endless", "all", "STORE", "STORE"],
  ["stall", "1", "values", "values"],
  ["stall", "all", "STORE", "STORE"],
  ["stall-body", "1", "values", "values"],
  ["429", "1", "values", "values"],
  ["429-date", "1", "values", "values"],
  ["429-long", "1", "STORE", "STORE"],
  ["mix", "p30", "values", "values"],
];

let server;
let url;
before(async () => {
  const bin = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-faults-")), "faultserver");
  execFileSync("go", ["build", "-o", bin, "./tests/faults/serve"], { cwd: repoRoot, stdio: "inherit" });
  server = spawn(bin, ["-root", repoRoot, "-max-stall", "10s"], { stdio: ["pipe", "pipe", "inherit"] });
  url = await new Promise((resolve, reject) => {
    server.stdout.once("data", (d) => resolve(String(d).trim()));
    server.once("error", reject);
  });
});
after(() => server?.stdin.end());

const v3Cases = (await loadCases(path.join(repoRoot, "tests", "fixtures", "v3", "cases.json"))).filter(
  (c) => c.store === "v3.zarr" && c.path.startsWith("sharding/") && !c.error,
);
const refCases = (await loadCases(path.join(repoRoot, "tests", "refs", "cases.json"))).filter((c) => c.store === "json/v0.json");

/** Reads every case concurrently, each under a deadline (ms); counts outcomes. */
async function readAll(store, cases, deadlineMs = 30_000) {
  const out = { values: 0, wrong: 0, codes: {}, first: null };
  await Promise.all(
    cases.map(async (c) => {
      let timer;
      const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${c.name}: HUNG (no answer in ${deadlineMs / 1000} s)`)), deadlineMs);
      });
      try {
        const res = await Promise.race([
          (async () => (await zarr.open(store, { path: c.path, kind: "array" })).get(c.selection))(),
          deadline,
        ]);
        const diff = compareCase(c, res);
        if (diff) {
          out.wrong++;
          out.first ??= new Error(`${c.name}: WRONG VALUES: ${diff}`);
        } else {
          out.values++;
        }
      } catch (e) {
        if (/HUNG/.test(e.message)) throw e;
        out.codes[e.code ?? e.name] = (out.codes[e.code ?? e.name] ?? 0) + 1;
        out.first ??= e;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return out;
}

function check(who, out, want) {
  const desc = `${who}: ${out.values} right, ${out.wrong} wrong, errors ${JSON.stringify(out.codes)} (first: ${out.first?.message})`;
  assert.equal(out.wrong, 0, desc);
  if (want === "values") assert.deepEqual(out.codes, {}, desc);
  else assert.ok(Object.keys(out.codes).length === 1 && out.codes.STORE > 0, desc);
  return desc;
}

/**
 * The options of a scenario whose reads must recover: the attempt
 * timeout 3x the longest clean read of the same cases now (every
 * request of such a read waited less than that for the thread and the
 * server), never below options.timeout; the total timeout and the hang
 * deadline scaled with it. What is checked stays: every read recovers.
 */
async function measuredOptions(t) {
  const clean = async (read) => {
    const t0 = performance.now();
    const out = await read();
    check("clean read", out, "values");
    return performance.now() - t0;
  };
  const fetchMs = await clean(() => readAll(new zarr.FetchStore(`${url}/ok/all/tests/fixtures/v3/data/v3.zarr`, { timeout: 0 }), v3Cases));
  const refsMs = await clean(async () => readAll(await zarr.ReferenceStore.fromUrl(`${url}/ok/all/tests/refs/data/json/v0.json`, { timeout: 0 }), refCases));
  const timeout = Math.max(options.timeout, Math.ceil(3 * Math.max(fetchMs, refsMs)));
  const totalTimeout = Math.max(options.totalTimeout, 20 * timeout);
  t.diagnostic(`clean reads: FetchStore ${fetchMs.toFixed(0)} ms, ReferenceStore ${refsMs.toFixed(0)} ms: attempt timeout ${timeout} ms`);
  return { opts: { ...options, timeout, totalTimeout }, deadlineMs: totalTimeout + 10_000 };
}

describe("fault server: FetchStore and ReferenceStore", () => {
  for (const [fault, when, fetchWant, refsWant] of scenarios) {
    test(`${fault}/${when}`, async (t) => {
      const base = `${url}/${fault}/${when}/`;
      const recovers = fetchWant === "values" || refsWant === "values";
      const { opts, deadlineMs } = recovers ? await measuredOptions(t) : { opts: options, deadlineMs: undefined };
      let t0 = performance.now();
      const fetchStore = new zarr.FetchStore(`${base}tests/fixtures/v3/data/v3.zarr`, opts);
      t.diagnostic(`${check("FetchStore", await readAll(fetchStore, v3Cases, deadlineMs), fetchWant)} in ${(performance.now() - t0).toFixed(0)} ms`);
      t0 = performance.now();
      let out;
      try {
        const refs = await zarr.ReferenceStore.fromUrl(`${base}tests/refs/data/json/v0.json`, opts);
        out = await readAll(refs, refCases, deadlineMs);
      } catch (e) {
        out = { values: 0, wrong: 0, codes: { [e.code ?? e.name]: 1 }, first: e };
      }
      t.diagnostic(`${check("ReferenceStore", out, refsWant)} in ${(performance.now() - t0).toFixed(0)} ms`);
    });
  }
});

describe("HTTP policy details", () => {
  test("an endless body stops at the cap at once, without retries", async () => {
    const s = new zarr.FetchStore(`${url}/endless/all/tests/fixtures/v3/data/v3.zarr`, { maxBodyBytes: 100_000 });
    // The body never ends: a read that ends at all stopped at the cap; one request each, no retries.
    await assert.rejects(s.get("/zarr.json"), (e) => e.code === "STORE" && /100000-byte cap/.test(e.message) && !/attempts/.test(e.message));
    assert.equal(s.requests, 1);
    await assert.rejects(s.getRange("/zarr.json", { offset: 0, length: 10 }), (e) => e.code === "STORE" && /4106-byte cap/.test(e.message));
    assert.equal(s.requests, 2);
  });
  test("a stalled server fails after the attempt timeouts; the total timeout bounds a read", async () => {
    const s = new zarr.FetchStore(`${url}/stall/all/tests/fixtures/v3/data/v3.zarr`, { timeout: 100, retries: 2, retryDelay: 1 });
    let t0 = performance.now();
    await assert.rejects(s.get("/zarr.json"), (e) => e.code === "STORE" && /attempt timeout/.test(e.message) && /after 3 attempts/.test(e.message));
    let ms = performance.now() - t0;
    assert.ok(ms >= 290, `${ms} ms`); // three attempt timeouts were waited for (a lower bound: load cannot break it)
    assert.equal(s.requests, 3);
    // The total timeout (250 ms) ends the read inside its first attempt (1000 ms): one request.
    const s2 = new zarr.FetchStore(`${url}/stall/all/tests/fixtures/v3/data/v3.zarr`, { timeout: 1000, totalTimeout: 250 });
    t0 = performance.now();
    await assert.rejects(s2.get("/zarr.json"), (e) => e.code === "STORE" && /total timeout/.test(e.message));
    ms = performance.now() - t0;
    assert.ok(ms >= 240, `${ms} ms`);
    assert.equal(s2.requests, 1);
    // the caller's abort is ABORTED through the API, not a timeout
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(zarr.open(s2, { path: "sharding/end_crc", signal: ac.signal }), (e) => e.code === "ABORTED");
  });
  test("Retry-After is waited for; one longer than maxRetryDelay ends the read at once", async () => {
    const s = new zarr.FetchStore(`${url}/429/1/tests/fixtures/v3/data/v3.zarr`, { retryDelay: 1 });
    let t0 = performance.now();
    assert.ok((await s.get("/zarr.json")).length > 0);
    assert.ok(performance.now() - t0 >= 900, "Retry-After: 1 was not waited for");
    const s2 = new zarr.FetchStore(`${url}/429-long/1/tests/fixtures/v3/data/v3.zarr`, { retryDelay: 1 });
    // Retry-After: 3600 (over maxRetryDelay): the read fails on the first answer, no retry.
    await assert.rejects(s2.get("/zarr.json"), (e) => e.code === "STORE" && /retry after 3600 s/.test(e.message));
    assert.equal(s2.requests, 1);
  });
  test("a truncated 206 is retried (10 % of attempts truncated: 200 reads, every one right)", async () => {
    const open = (fault) =>
      zarr.open(new zarr.FetchStore(`${url}/${fault}/tests/fixtures/v3/data/v3.zarr`, { retryDelay: 1 }), { path: "sharding/end_crc", kind: "array" });
    const [clean, faulty] = await Promise.all([open("ok/all"), open("truncate/p10")]);
    const rows = clean.shape[0];
    let ok = 0;
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const [want, got] = await Promise.all([clean.get(`${i % rows}`), faulty.get(`${i % rows}`)]);
        assert.deepEqual([...got.data], [...want.data]);
        ok++;
      }),
    );
    assert.equal(ok, 200);
  });
});
