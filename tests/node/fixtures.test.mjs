// The zarr-python fixtures (tests/fixtures/v2/cases.json, the same cases the
// Go tests check) read through the .wasm: once from the file system
// (FileSystemStore) and once over HTTP (FetchStore against a local server
// that honours Range).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { fixturesV2, loadCases, compareCase, expectedJSType, startServer } from "./helpers.mjs";

const cases = await loadCases(path.join(fixturesV2, "cases.json"));
const dataRoot = path.join(fixturesV2, "data");
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

describe("fixtures through FileSystemStore", () => {
  for (const c of cases) {
    test(c.name, async (t) => {
      await check(t, c, new FileSystemStore(path.join(dataRoot, c.store)));
    });
  }
});

describe("fixtures through FetchStore (local HTTP server)", () => {
  let server;
  before(async () => {
    server = await startServer(dataRoot);
  });
  after(async () => {
    await server.close();
  });
  for (const c of cases) {
    test(c.name, async (t) => {
      const store = new zarr.FetchStore(`${server.url}/${c.store.split("/").map(encodeURIComponent).join("/")}`);
      await check(t, c, store);
    });
  }
  test("the server saw every request, and nothing failed", () => {
    assert.ok(server.stats.requests >= cases.length, `${server.stats.requests} requests`);
    const bad = Object.keys(server.stats.byStatus).filter((s) => s !== "200" && s !== "206" && s !== "404");
    assert.deepEqual(bad, [], JSON.stringify(server.stats.byStatus));
  });
});
