// ZipStore: zarr-python's zipped fixtures read over HTTP by range requests,
// with the values zarr-wasm reads from the unzipped directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { testData, startServer } from "./helpers.mjs";

const v3 = path.join(testData, "zarrita", "v3");

test("ZipStore reads zarr-python's zips over HTTP by ranges", async (t) => {
  const { url, stats, close } = await startServer(v3);
  try {
    const dir = new FileSystemStore(path.join(v3, "data.zarr"));
    for (const name of ["data.zipped_from_within.zarr.zip", "data.zipped_from_parent.zarr.zip", "data.uncompressed.zarr.zip"]) {
      const before = stats.requests;
      const zip = await zarr.ZipStore.open(new zarr.FetchStore(url), `/${name}`);
      const names = await zip.list("/");
      assert.ok(names.includes("zarr.json") && names.includes("3d.chunked.i2/"), `${name} lists ${names.slice(0, 5)}`);
      const root = await zarr.open(zip, { kind: "group" });
      const kids = await root.children();
      assert.ok(kids.length > 40, `${name}: ${kids.length} children`);
      let checked = 0;
      for (const k of kids) {
        if (k.kind !== "array" || k.node.dtype === "float16") continue;
        const got = await k.node.get(null);
        const want = await (await zarr.open(dir, { path: k.path, kind: "array" })).get(null);
        assert.deepEqual(got.shape, want.shape, `${name} ${k.path}`);
        assert.deepEqual(Array.from(got.data, String), Array.from(want.data, String), `${name} ${k.path}`);
        checked++;
      }
      assert.ok(checked > 40, `${name}: only ${checked} arrays compared`);
      const requests = stats.requests - before;
      assert.ok(requests < 200, `${name}: ${requests} requests`);
      assert.ok(stats.log.slice(before).every((r) => r.range !== null), `${name}: every request is a range request`);
    }
  } finally {
    await close();
  }
});
