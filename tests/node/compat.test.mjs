// The compatibility corpus (tests/compat: numcodecs' codec vectors as v2
// arrays, zarrs' test data and codec snapshots, with the values their
// authors state) read through the .wasm from the file system, checked by
// the same rules as the Go test (tests/compat/check.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { loadCompat, tally, compatData } from "../compat/check.mjs";

test("compatibility corpus: every array reads with the stated values or is a listed refusal", async (t) => {
  const compat = await loadCompat();
  const stores = new Map();
  const outcomes = [];
  for (const c of compat.cases) {
    if (!stores.has(c.store)) stores.set(c.store, new FileSystemStore(path.join(compatData, c.store)));
    try {
      const arr = await zarr.open(stores.get(c.store), { path: c.path, kind: "array" });
      outcomes.push({ res: await arr.get() });
    } catch (e) {
      outcomes.push({ error: { code: e.code, message: e.message } });
    }
  }
  const r = await tally(compat, outcomes);
  for (const l of r.summary) t.diagnostic(l);
  assert.deepEqual(r.wrong, [], "arrays read with other values");
  assert.deepEqual(r.newRefusals, [], "refusals not in tests/compat/refused.txt (with that code)");
  assert.deepEqual(r.nowRead, [], "arrays that read now: remove them from tests/compat/refused.txt");
});
