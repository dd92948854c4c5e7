// ZipStore: zarr-python's zipped fixtures read over HTTP by range requests,
// with the values zarr-wasm reads from the unzipped directory; a window of
// chunks read in merged requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import os from "node:os";
import { promises as fs } from "node:fs";
import { execFileSync } from "node:child_process";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { testData, startServer, repoRoot, peersRequired } from "./helpers.mjs";

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

/** tests/zip/window.py's zips (zarr-python's ZipStore) in a new directory, or null (skipped) without zarr-python. */
async function pythonZips(t) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-zipwindow-"));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  try {
    execFileSync("/usr/bin/python3", [path.join(repoRoot, "tests", "zip", "window.py"), dir], { stdio: "pipe" });
  } catch (e) {
    if (peersRequired) throw e;
    t.skip(`no zarr-python: ${e.message}`);
    return null;
  }
  return dir;
}

// The window zarr/zip_test.go reads too: 8 × 6 = 48 chunks.
const window = [zarr.slice(30, 170), zarr.slice(45, 155)];

test("a window of a zipped array over HTTP: merged range requests, zarr-python's values", async (t) => {
  const dir = await pythonZips(t);
  if (!dir) return;
  const want = new Int32Array((await fs.readFile(path.join(dir, "window.bin"))).buffer.slice(0));
  const { url, stats, close } = await startServer(dir);
  t.after(close);
  for (const name of ["stored.zip", "deflated.zip"]) {
    const zip = await zarr.ZipStore.open(new zarr.FetchStore(url), `/${name}`);
    const arr = await zarr.open(zip, { path: "arr", kind: "array" });
    const before = stats.requests;
    const got = await arr.get(window);
    const requests = stats.requests - before;
    assert.deepEqual(got.shape, [140, 110]);
    assert.deepEqual(got.data, want, `${name}: zarr-python's values`);
    t.diagnostic(`${name}: 48 chunks in ${requests} requests`);
    assert.ok(requests <= 12, `${name}: 48 chunks in ${requests} requests: the entries were not merged`);
  }
});

test("a window of a zipped array over HTTP: a corrupt local header, a CRC mismatch, a truncated file are STORE errors naming the entry", async (t) => {
  const dir = await pythonZips(t);
  if (!dir) return;
  const good = await fs.readFile(path.join(dir, "stored.zip"));
  // arr/3.4 (in the window): its local header, the first place its name is
  const local = good.indexOf("arr/3.4") - 30;
  assert.equal(good.readUInt32LE(local), 0x04034b50, "arr/3.4's local header");
  const data = local + 30 + good.readUInt16LE(local + 26) + good.readUInt16LE(local + 28);
  const flipped = (at) => {
    const b = Buffer.from(good);
    b[at] ^= 0xff;
    return b;
  };
  const cases = [
    ["corrupt local header", flipped(local), flipped(local), "arr/3.4"],
    ["CRC mismatch", flipped(data + 100), flipped(data + 100), "arr/3.4"],
    ["truncated after opening", good, good.subarray(0, data + 100), "arr/"],
  ];
  for (const [what, opened, served, names] of cases) {
    const file = path.join(dir, "fault.zip");
    await fs.writeFile(file, opened);
    const { url, close } = await startServer(dir);
    try {
      const zip = await zarr.ZipStore.open(new zarr.FetchStore(url), "/fault.zip");
      const arr = await zarr.open(zip, { path: "arr", kind: "array" });
      await fs.writeFile(file, served);
      await assert.rejects(arr.get(window), (e) => {
        assert.ok(e instanceof zarr.ZarrError && e.code === "STORE", `${what}: ${e}`);
        assert.ok(e.message.includes(`"${names}`), `${what}: ${e.message}`);
        t.diagnostic(`${what}: ${e.message}`);
        return true;
      });
    } finally {
      await close();
    }
  }
});
