// node.conventions: the Zarr conventions specification's examples, and
// entries breaking its rules (tests/registry/examples/conventions.json, the
// cases zarr's TestConventions checks in Go), on arrays and groups.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "registry", "examples", "conventions.json");

test("node.conventions lists the declared conventions and skips malformed entries", async () => {
  const { cases } = JSON.parse(await fs.readFile(file, "utf8"));
  for (const [i, c] of cases.entries()) {
    const store = new Map();
    await zarr.createGroup(zarr.root(store).resolve("g"), { attributes: c.attributes });
    await zarr.create(zarr.root(store).resolve("a"), { shape: [1], dtype: "uint8", attributes: c.attributes });
    for (const node of [await zarr.open(zarr.root(store).resolve("g"), { kind: "group" }), await zarr.open(zarr.root(store).resolve("a"), { kind: "array" })]) {
      assert.deepEqual(node.conventions.map((x) => x.id), c.ids, `case ${i}`);
      assert.deepEqual(node.conventions.map((x) => x.name ?? ""), c.names, `case ${i}`);
    }
  }
});
