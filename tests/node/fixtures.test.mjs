// The project's fixtures (tests/fixtures/v2: written by zarr-python 2.13;
// tests/fixtures/v3: written from the v3 spec text; tests/fixtures/zfpy:
// ZFP arrays from numcodecs' zfpy, numcodecs' and zarrs' vectors), the same cases.json
// the Go tests check, read through the .wasm: once from the file system
// (FileSystemStore) and once over HTTP (FetchStore against a local server
// that honours Range). The v3 error cases must give the same ZarrError codes.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { repoRoot, loadCases, compareCase, expectedJSType, startServer, exists } from "./helpers.mjs";

const sets = [];
for (const v of ["v2", "v3", "zfpy"]) {
  const dir = path.join(repoRoot, "tests", "fixtures", v);
  if (await exists(path.join(dir, "cases.json"))) {
    sets.push({ name: v, data: path.join(dir, "data"), cases: await loadCases(path.join(dir, "cases.json")) });
  }
}
// zarr-python builds a complex fill as re + 1j*im; with an infinite
// imaginary part the real NaN's sign is an accident (see zarr/fixtures_test.go).
const anyNaN = new Set(["fill/c8_nan_inf"]);

async function check(t, c, store) {
  let res;
  try {
    const arr = await zarr.open(store, { path: c.path, kind: "array" });
    assert.equal(arr.zarrFormat, c.zarr_format || arr.zarrFormat);
    res = await arr.get(c.selection);
  } catch (e) {
    // Cases the generator marks OPTIONAL may be refused with UNSUPPORTED,
    // never read wrongly (as in the Go test).
    if (c.note?.startsWith("OPTIONAL") && e.code === "UNSUPPORTED") {
      t.skip(`optional case not supported: ${e.message}`);
      return;
    }
    throw e;
  }
  const want = expectedJSType(c.dtype);
  const got = res.data?.constructor?.name;
  if (want === "object") assert.equal(typeof res.data, "object", "structured data is an object of fields");
  else assert.equal(got, want, `data type of the result for ${JSON.stringify(c.dtype)}`);
  const diff = compareCase(c, res, { anyNaN: anyNaN.has(c.name) });
  assert.equal(diff, null, diff ?? "");
}

for (const set of sets) {
  describe(`${set.name} fixtures through FileSystemStore`, () => {
    for (const c of set.cases) {
      test(c.name, async (t) => {
        await check(t, c, new FileSystemStore(path.join(set.data, c.store)));
      });
    }
  });

  describe(`${set.name} fixtures through FetchStore (local HTTP server)`, () => {
    let server;
    before(async () => {
      server = await startServer(set.data);
    });
    after(async () => {
      await server.close();
    });
    for (const c of set.cases) {
      test(c.name, async (t) => {
        const store = new zarr.FetchStore(`${server.url}/${c.store.split("/").map(encodeURIComponent).join("/")}`);
        await check(t, c, store);
      });
    }
    test("the server saw the requests, and nothing failed", () => {
      assert.ok(server.stats.requests >= set.cases.length, `${server.stats.requests} requests`);
      const bad = Object.keys(server.stats.byStatus).filter((s) => s !== "200" && s !== "206" && s !== "404");
      assert.deepEqual(bad, [], JSON.stringify(server.stats.byStatus));
    });
  });
}

const errorFile = path.join(repoRoot, "tests", "fixtures", "v3", "error_cases.json");
if (await exists(errorFile)) {
  const errorCases = JSON.parse(await fs.readFile(errorFile, "utf8"));
  describe("v3 error fixtures give the same ZarrError codes", () => {
    for (const c of errorCases) {
      test(c.name, async () => {
        const store = new FileSystemStore(path.join(repoRoot, "tests", "fixtures", "v3", "data", c.store));
        const attempt = async () => {
          const arr = await zarr.open(store, { path: c.path, kind: "array" });
          if (c.read) await arr.get();
        };
        await assert.rejects(attempt(), (e) => {
          assert.ok(e instanceof zarr.ZarrError, String(e));
          assert.equal(e.code, c.code, e.message);
          assert.ok(e.message.includes(c.contains), `${JSON.stringify(e.message)} does not contain ${JSON.stringify(c.contains)}`);
          return true;
        });
      });
    }
  });
}
