// The registry's chunk-key encodings through the package (the core build
// hands them to the full build): every key the registry's pull requests
// state (tests/registry/examples/keys.tsv, the keys zarr's
// TestRegistryKeyExamples checks in Go) reads the chunk stored under it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));

test("chunk-key encodings: a chunk stored under each key the registry states reads back", async () => {
  const lines = (await fs.readFile(path.join(here, "..", "registry", "examples", "keys.tsv"), "utf8")).split("\n");
  let n = 0;
  for (const line of lines) {
    if (!line || line.startsWith("#")) continue;
    const [name, encoding, coords, key] = line.split("\t");
    const idx = coords ? coords.split(",").map(Number) : [];
    const doc = {
      zarr_format: 3, node_type: "array", shape: idx.map((c) => c + 1), data_type: "uint8",
      chunk_grid: { name: "regular", configuration: { chunk_shape: idx.map(() => 1) } },
      chunk_key_encoding: JSON.parse(encoding), fill_value: 0, codecs: [{ name: "bytes" }],
    };
    const store = new Map([["/a/zarr.json", new TextEncoder().encode(JSON.stringify(doc))], [`/a/${key}`, new Uint8Array([42])]]);
    const arr = await zarr.open(zarr.root(store).resolve("a"), { kind: "array" });
    const v = await zarr.get(arr, idx);
    assert.equal(v, 42, `${name} ${coords}: the chunk under ${key}`);
    n++;
  }
  assert.equal(n, 14);
});
