// Object stores through FetchStore: s3:// and gs:// locations, 403 for
// missing keys, ListObjectsV2 listings, S3's error answers, signed
// requests, writes with conditions. Against tests/s3's fake S3 server (its
// answers set per test) and, for signatures and conditional writes, a real
// S3 server, SeaweedFS (tests/s3/build-seaweedfs.sh builds it once per
// machine; `make test` builds it when missing).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs, existsSync } from "node:fs";
import { execFile, execFileSync } from "node:child_process";
import * as zarr from "../../npm/index.js";
import { zarrita, ZarritaFetchStore } from "../../npm/dev/deps.mjs";
import { repoRoot, loadCases, compareCase, peersRequired, startS3Server, s3ServeBinary } from "./helpers.mjs";

const fixtures = (v) => path.join(repoRoot, "tests", "fixtures", v);
const anyNaN = new Set(["fill/c8_nan_inf"]);

const startS3 = startS3Server;

describe("locations", () => {
  test("s3:// and gs:// map to HTTPS as the engine maps them", async () => {
    await zarr.init();
    for (const [loc, options, want] of [
      ["s3://bucket/data.zarr", {}, "https://bucket.s3.amazonaws.com/data.zarr/"],
      ["s3://bucket/data.zarr", { region: "eu-west-1" }, "https://bucket.s3.eu-west-1.amazonaws.com/data.zarr/"],
      ["s3://bucket/data.zarr", { endpoint: "http://127.0.0.1:9000" }, "http://127.0.0.1:9000/bucket/data.zarr/"],
      ["gs://bucket/a b.zarr", {}, "https://storage.googleapis.com/bucket/a%20b.zarr/"],
    ]) {
      const s = new zarr.FetchStore(loc, options);
      assert.equal(String(s.url), want, loc);
      assert.equal(s.listable, true, loc);
    }
    assert.equal(new zarr.FetchStore("https://example.org/data.zarr").listable, false);
    assert.equal(new zarr.FetchStore("https://bucket.s3.amazonaws.com/data.zarr").listable, true);
  });

  test("bad locations are typed errors naming them", async () => {
    await assert.rejects(zarr.open("s4://bucket/x"), (e) => e.code === "UNSUPPORTED" && e.suggest === "s3" && e.where === "s4://bucket/x");
    await assert.rejects(zarr.open("s3:///x"), (e) => e.code === "STORE" && /no bucket/.test(e.message));
    await assert.rejects(zarr.open("s3://bucket/x", { endpoint: "127.0.0.1:9000" }), (e) => e.code === "STORE" && /endpoint/.test(e.message));
  });
});

describe("a bucket answering 403 for missing keys (fake S3)", () => {
  let s3;
  before(async () => {
    s3 = await startS3(["-load", `v2.zarr/=${path.join(fixtures("v2"), "data", "v2.zarr")}`, "-load", `v3.zarr/=${path.join(fixtures("v3"), "data", "v3.zarr")}`]);
  });
  after(() => s3?.stop());

  for (const v of ["v2", "v3"]) {
    test(`every ${v} fixture array opens and reads as zarr-python wrote it (missing chunks: fill)`, async (t) => {
      const cases = (await loadCases(path.join(fixtures(v), "cases.json"))).filter((c) => c.store === `${v}.zarr` && !c.error);
      assert.ok(cases.length > 100);
      const root = await zarr.open(`s3://bucket/${v}.zarr`, { endpoint: s3.endpoint, kind: "group" });
      for (const c of cases) {
        let res;
        try {
          res = await (await zarr.open(root.store, { path: c.path, kind: "array" })).get(c.selection);
        } catch (e) {
          if (c.note?.startsWith("OPTIONAL") && e.code === "UNSUPPORTED") continue;
          throw new Error(`${c.name}: ${e.message}`);
        }
        const diff = compareCase(c, res, { anyNaN: anyNaN.has(c.name) });
        assert.equal(diff, null, `${c.name}: ${diff}`);
      }
      t.diagnostic(`${cases.length} cases`);
    });
  }

  test("every metadata key 403: ACCESS_DENIED, not NOT_FOUND", async () => {
    await assert.rejects(zarr.open("s3://bucket/v2.zarr/no/such/array", { endpoint: s3.endpoint }), (e) => e.code === "ACCESS_DENIED" && /HTTP 403/.test(e.message));
    await s3.control({ fault: "deny" });
    try {
      await assert.rejects(zarr.open("s3://bucket/v2.zarr", { endpoint: s3.endpoint, path: "dtypes/i1" }), (e) => e.code === "ACCESS_DENIED");
    } finally {
      await s3.control({ fault: "" });
    }
  });

  test("missingStatus [404, 410]: a 403 chunk is ACCESS_DENIED, never fill values", async () => {
    const chunk = "v2.zarr/dtypes/i1/0.0";
    await s3.control({ missing: 404, deny: chunk });
    try {
      const lenient = await zarr.open("s3://bucket/v2.zarr", { endpoint: s3.endpoint, path: "dtypes/i1", kind: "array" });
      await lenient.get(); // (the denied chunk reads as missing)
      const strict = await zarr.open("s3://bucket/v2.zarr", { endpoint: s3.endpoint, missingStatus: [404, 410], path: "dtypes/i1", kind: "array" });
      await assert.rejects(strict.get(), (e) => e.code === "ACCESS_DENIED" && e.message.includes(`key "${chunk}"`));
    } finally {
      await s3.control({ missing: 403, deny: "" });
    }
  });

  test("children() lists any prefix with ListObjectsV2 (pages of 2)", async () => {
    await s3.control({ page: 2 });
    try {
      const g = await zarr.open("s3://bucket/v3.zarr", { endpoint: s3.endpoint, kind: "group" });
      assert.equal(g.consolidated, false);
      const names = (await g.children()).map((c) => c.name);
      const want = [];
      for (const e of await fs.readdir(path.join(fixtures("v3"), "data", "v3.zarr"), { withFileTypes: true })) {
        if (e.isDirectory() && existsSync(path.join(fixtures("v3"), "data", "v3.zarr", e.name, "zarr.json"))) want.push(e.name);
      }
      assert.deepEqual(names, want.sort());
      assert.ok(want.length >= 3);
    } finally {
      await s3.control({ page: 1000 });
    }
  });

  test("bad listings and S3 error answers are typed errors naming bucket, key and cause", async () => {
    const store = new zarr.FetchStore("s3://bucket/v3.zarr", { endpoint: s3.endpoint });
    await zarr.init();
    for (const [fault, says] of [
      ["list-repeat", /came again/],
      ["list-truncated", /truncated/],
      ["list-malformed", /does not close/],
      ["list-no-token", /NextContinuationToken/],
    ]) {
      await s3.control({ fault, page: 2 });
      await assert.rejects(store.list("/"), (e) => e.code === "STORE" && says.test(e.message), fault);
    }
    const creds = { accessKeyId: "a", secretAccessKey: "b" };
    for (const [fault, code, says] of [
      ["skew", "STORE", /clock differs/],
      ["expired", "ACCESS_DENIED", /expired/],
      ["redirect", "STORE", /region "eu-west-1"/],
      ["signature", "ACCESS_DENIED", /secret access key/],
    ]) {
      await s3.control({ fault });
      const s = new zarr.FetchStore("s3://bucket/v2.zarr", { endpoint: s3.endpoint, credentials: creds });
      await assert.rejects(s.get("/dtypes/i1/.zarray"), (e) => e.code === code && says.test(e.message) && e.message.includes('bucket "bucket", key "v2.zarr/dtypes/i1/.zarray"'), fault);
      await assert.rejects(zarr.open(s, { path: "dtypes/i1" }), (e) => e.code === code, `${fault}: open`);
    }
    await s3.control({ fault: "", page: 1000 });
  });

  test("the zarr-wasm command reads s3:// locations with the AWS CLI's environment", async () => {
    const run = (args, env) =>
      new Promise((resolve) => {
        execFile(process.execPath, [path.join(repoRoot, "npm", "bin", "zarr-wasm.js"), ...args], { encoding: "utf8", env: { ...process.env, ...env } }, (err, stdout, stderr) =>
          resolve({ code: err ? err.code : 0, stdout, stderr }),
        );
      });
    const env = { AWS_ENDPOINT_URL: s3.endpoint, AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "secret" };
    await s3.control({ requireAuth: true });
    try {
      const info = await run(["info", "s3://bucket/v3.zarr"], env);
      assert.equal(info.code, 0, info.stderr);
      assert.ok(info.stdout.split("\n").length > 5, info.stdout);
      const anon = await run(["info", "s3://bucket/v3.zarr"], { ...env, AWS_ACCESS_KEY_ID: "" });
      assert.equal(anon.code, 1);
      assert.match(anon.stderr, /ACCESS_DENIED/);
      const typo = await run(["info", "s4://bucket/v3.zarr"], env);
      assert.match(typo.stderr, /did you mean "s3"/);
    } finally {
      await s3.control({ requireAuth: false });
    }
  });

  test("a credentials function is asked again when the server says they expired", async () => {
    let calls = 0;
    const credentials = async () => ({ accessKeyId: `k${++calls}`, secretAccessKey: "s", expiration: new Date(Date.now() + 3600_000) });
    await s3.control({ requireAuth: true });
    try {
      const s = new zarr.FetchStore("s3://bucket/v2.zarr", { endpoint: s3.endpoint, credentials });
      assert.ok(await s.get("/dtypes/i1/.zarray"));
      await s3.control({ expiredOnce: true });
      assert.ok(await s.get("/dtypes/i1/.zarray"));
      assert.equal(calls, 2);
      await assert.rejects(zarr.open("s3://bucket/v2.zarr", { endpoint: s3.endpoint, path: "dtypes/i1" }), (e) => e.code === "ACCESS_DENIED");
    } finally {
      await s3.control({ requireAuth: false, expiredOnce: false });
    }
  });
});

describe("writes to a bucket (fake S3)", () => {
  let s3;
  before(async () => {
    s3 = await startS3([]);
  });
  after(() => s3?.stop());
  const creds = { accessKeyId: "writer", secretAccessKey: "secret" };

  test("create, set, resize, attributes (v2, v3, sharded): zarrita.js reads them back", async () => {
    await s3.control({ missing: 404, requireAuth: true });
    const opts = { endpoint: s3.endpoint, credentials: creds };
    const data = Int32Array.from({ length: 30 * 20 }, (_, i) => i * 7 - 100);
    for (const [name, extra] of [
      ["v2", { zarrFormat: 2 }],
      ["v3", { zarrFormat: 3 }],
      ["sharded", { zarrFormat: 3, shardShape: [10, 10] }],
    ]) {
      const arr = await zarr.create(`s3://bucket/w/${name}.zarr`, { ...opts, shape: [30, 20], chunks: [5, 5], dtype: "int32", fillValue: -1, attributes: { made: "by zarr-wasm" }, ...extra });
      await arr.set(null, { data, shape: [30, 20] });
      await arr.resize([40, 20]);
      await arr.setAttrs({ made: "by zarr-wasm", resized: true });
      // zarrita.js over plain HTTP reads what was written (the fake lets anyone read)
      await s3.control({ requireAuth: false });
      const z = await zarrita.open(new ZarritaFetchStore(`${s3.endpoint}/bucket/w/${name}.zarr`), { kind: "array" });
      assert.deepEqual(z.shape, [40, 20], name);
      assert.deepEqual(z.attrs, { made: "by zarr-wasm", resized: true }, name);
      const got = await zarrita.get(z);
      assert.deepEqual(Array.from(got.data.subarray(0, 600)), Array.from(data), name);
      assert.ok(got.data.subarray(600).every((v) => v === -1), `${name}: the resized part is the fill value`);
      await s3.control({ requireAuth: true });
    }
  });

  test("a server that ignores conditional headers is found out and written without them", async () => {
    await s3.control({ ignoreConditions: true, requireAuth: false });
    try {
      const store = new zarr.FetchStore("s3://bucket/ign.zarr", { endpoint: s3.endpoint, writable: true });
      const arr = await zarr.create(store, { shape: [4], chunks: [4], dtype: "uint8", zarrFormat: 3 });
      await arr.set([zarr.slice(0, 2)], 7);
      assert.equal(store.conditionalWrites, false);
      assert.deepEqual(Array.from((await arr.get()).data), [7, 7, 0, 0]);
      const honouring = new zarr.FetchStore("s3://bucket/ign.zarr", { endpoint: s3.endpoint, writable: true });
      await s3.control({ ignoreConditions: false });
      await (await zarr.open(honouring, { kind: "array" })).set([zarr.slice(2, 3)], 9);
      assert.equal(honouring.conditionalWrites, true);
    } finally {
      await s3.control({ ignoreConditions: false });
    }
  });

  test("50 writers with stores of their own into one chunk lose nothing", async () => {
    const arr = await zarr.create(new zarr.FetchStore("s3://bucket/many.zarr", { endpoint: s3.endpoint, writable: true }), { shape: [50], chunks: [50], dtype: "int32", fillValue: 0, zarrFormat: 3 });
    assert.ok(arr);
    const errors = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const a = await zarr.open(new zarr.FetchStore("s3://bucket/many.zarr", { endpoint: s3.endpoint, writable: true, conditionalWrites: true }), { kind: "array" });
        for (let attempt = 0; ; attempt++) {
          try {
            await a.set([zarr.slice(i, i + 1)], i + 1);
            return;
          } catch (e) {
            if (e.code !== "CONFLICT" || attempt > 20) throw e;
            errors.push(e.code);
          }
        }
      }),
    );
    const got = await (await zarr.open(new zarr.FetchStore("s3://bucket/many.zarr", { endpoint: s3.endpoint }), { kind: "array" })).get();
    assert.deepEqual(Array.from(got.data), Array.from({ length: 50 }, (_, i) => i + 1));
  });

  test("a write failing half-way leaves the array readable", async () => {
    const opts = { endpoint: s3.endpoint, writable: true };
    const arr = await zarr.create("s3://bucket/half.zarr", { ...opts, shape: [40], chunks: [10], dtype: "uint16", fillValue: 0, zarrFormat: 2 });
    await arr.set(null, 5);
    await s3.control({ failWritesAfter: 1 });
    try {
      await assert.rejects(arr.resize([10]));
      await assert.rejects(arr.set(null, 6));
    } finally {
      await s3.control({ failWritesAfter: 0 });
    }
    const back = await zarr.open("s3://bucket/half.zarr", { endpoint: s3.endpoint, kind: "array" });
    const got = Array.from((await back.get()).data);
    assert.equal(got.length, back.shape[0]);
    assert.ok(got.every((v) => v === 5 || v === 6 || v === 0), `values ${got}`);
  });
});

describe("a real S3 server that verifies signatures (SeaweedFS)", () => {
  let s3 = null;
  before(async () => {
    const weedBin = execFileSync(s3ServeBinary(), ["-weed-binary"]).toString().trim();
    if (!existsSync(weedBin)) return;
    s3 = await startS3(["-weed"]);
  });
  after(() => s3?.stop());
  const skipWithout = (t) => {
    if (s3) return false;
    if (peersRequired) assert.fail("SeaweedFS is not built (make seaweedfs)");
    t.skip("SeaweedFS is not built (make seaweedfs)");
    return true;
  };

  test("signed in the engine (WebAssembly): writes, reads, lists; a wrong secret is refused", async (t) => {
    if (skipWithout(t)) return;
    const at = (o) => ({ endpoint: s3.endpoint, ...o });
    const arr = await zarr.create("s3://bucket/js/a.zarr", at({ credentials: s3.admin, shape: [6, 4], chunks: [3, 2], dtype: "float32", zarrFormat: 3, shardShape: [6, 4] }));
    await arr.set(null, Float32Array.from({ length: 24 }, (_, i) => i / 4));
    await arr.setAttrs({ signed: true });
    // (suffixRanges false: the shard's index after a signed HEAD, as in a browser for another origin)
    for (const signing of ["headers", "query"]) {
      for (const suffixRanges of [true, false]) {
        const r = await zarr.open("s3://bucket/js/a.zarr", at({ credentials: s3.reader, signing, suffixRanges, kind: "array" }));
        assert.deepEqual(Array.from((await r.get()).data), Array.from({ length: 24 }, (_, i) => i / 4), `${signing}, suffixRanges ${suffixRanges}`);
        assert.deepEqual(r.attrs, { signed: true });
      }
    }
    assert.deepEqual(await new zarr.FetchStore("s3://bucket/js", at({ credentials: s3.reader })).list("/"), ["a.zarr/"]);
    const wrong = { ...s3.reader, secretAccessKey: "not-the-secret" };
    await assert.rejects(new zarr.FetchStore("s3://bucket/js/a.zarr", at({ credentials: wrong })).get("/zarr.json"), (e) => e.code === "ACCESS_DENIED" && /SignatureDoesNotMatch/.test(e.message));
    await assert.rejects(zarr.open("s3://bucket/js/a.zarr", at({ credentials: wrong })), (e) => e.code === "ACCESS_DENIED");
    const store = new zarr.FetchStore("s3://bucket/js/a.zarr", at({ credentials: s3.reader }));
    await assert.rejects(store.set("/x", new Uint8Array(1)), (e) => e.code === "ACCESS_DENIED");
  });

  test("the probe finds SeaweedFS honours conditional writes; 50 writers into one chunk lose nothing", async (t) => {
    if (skipWithout(t)) return;
    const opts = { endpoint: s3.endpoint, credentials: s3.admin };
    const probe = new zarr.FetchStore("s3://bucket/js/many.zarr", opts);
    await zarr.create(probe, { shape: [50], chunks: [50], dtype: "int32", fillValue: 0, zarrFormat: 3 });
    await (await zarr.open(probe, { kind: "array" })).set([zarr.slice(0, 1)], 1);
    assert.equal(probe.conditionalWrites, true);
    let gaveUp = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const a = await zarr.open(new zarr.FetchStore("s3://bucket/js/many.zarr", { ...opts, conditionalWrites: true }), { kind: "array" });
        for (let attempt = 0; ; attempt++) {
          try {
            return await a.set([zarr.slice(i, i + 1)], i + 1);
          } catch (e) {
            if (e.code !== "CONFLICT" || attempt > 50) throw e;
            gaveUp++;
          }
        }
      }),
    );
    const got = await (await zarr.open("s3://bucket/js/many.zarr", { ...opts, kind: "array" })).get();
    assert.deepEqual(Array.from(got.data), Array.from({ length: 50 }, (_, i) => i + 1));
    t.diagnostic(`${gaveUp} writes gave up with CONFLICT and were tried again`);
  });

  test("a presigned URL of a zip reads as a plain URL", async (t) => {
    if (skipWithout(t)) return;
    // (tests/zip/gen.py's zip, written by Python's zipfile: arr[i] = 3i - 7)
    const zip = await fs.readFile(path.join(repoRoot, "zarr", "store", "testdata", "zip", "deflated.zip"));
    const w = new zarr.FetchStore("s3://bucket/js", { endpoint: s3.endpoint, credentials: s3.admin });
    await w.set("/data.zip", new Uint8Array(zip));
    const url = await new zarr.FetchStore("s3://bucket/js", { endpoint: s3.endpoint, credentials: s3.reader }).presign("/data.zip", { expires: 600 });
    assert.match(url, /X-Amz-Signature=/);
    assert.equal((await fetch(url)).status, 200);
    const arr = await zarr.open(url, { path: "arr", kind: "array" });
    assert.deepEqual(Array.from((await arr.get()).data), Array.from({ length: 100 }, (_, i) => 3 * i - 7));
    const stale = await new zarr.FetchStore("s3://bucket/js", { endpoint: s3.endpoint, credentials: { ...s3.reader, secretAccessKey: "wrong" } }).presign("/data.zip");
    await assert.rejects(zarr.open(stale, { path: "arr" }), (e) => e.code === "ACCESS_DENIED" || e.code === "STORE");
  });

  test("TensorStore's create into an s3 kvstore", async (t) => {
    if (skipWithout(t)) return;
    const spec = {
      driver: "zarr3",
      kvstore: { driver: "s3", bucket: "bucket", path: "js/ts.zarr/", endpoint: s3.endpoint },
      create: true,
      metadata: { shape: [4, 4], chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 2] } }, data_type: "uint16" },
    };
    const arr = await zarr.openSpec(spec, { credentials: s3.admin });
    await arr.set(null, Uint16Array.from({ length: 16 }, (_, i) => i * 3));
    const back = await zarr.open("s3://bucket/js/ts.zarr", { endpoint: s3.endpoint, credentials: s3.reader, kind: "array" });
    assert.deepEqual(Array.from((await back.get()).data), Array.from({ length: 16 }, (_, i) => i * 3));
  });
});
