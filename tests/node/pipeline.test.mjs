// URL pipelines (github.com/jbms/url-pipeline): zarr.open with
// "https://host/data.zip|zip:path/in/zip|zarr3:" and its relatives, over
// HTTP with range requests. The ZIP files are Python's zipfile's, holding
// arrays zarrs and zarr-python wrote (tests/compat); the values are those
// the same arrays read from the directory. The parser's cases
// (zarr/urlx/testdata/pipelines.json, checked in Go by TestParsePipeline)
// are checked through the engine here too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { execFile } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { startServer, peersRequired } from "./helpers.mjs";

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const compat = path.join(repoRoot, "tests", "compat", "data", "zarrs");

test("the URL pipeline parser's cases, through the engine", async () => {
  const { cases } = JSON.parse(await fs.readFile(path.join(repoRoot, "zarr", "urlx", "testdata", "pipelines.json"), "utf8"));
  const { parsePipeline } = await import("../../npm/lib/sources.js");
  for (const c of cases) {
    if (c.error) {
      await assert.rejects(parsePipeline(c.url), (e) => e.code === c.error && (e.suggest ?? "") === (c.suggest ?? ""), c.url);
      continue;
    }
    const p = await parsePipeline(c.url);
    assert.deepEqual({ root: p.root, zips: Array.from(p.zips), format: p.format, path: p.path, node_path: p.nodePath },
      { root: c.root, zips: c.zips, format: c.format, path: c.path, node_path: c.node_path }, c.url);
  }
});

/** Python's zipfile packs dirs (name → directory) into zip. */
function zipWith(zip, entries) {
  const code = "import sys, os, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED)\n" +
    "for name, d in zip(sys.argv[2::2], sys.argv[3::2]):\n" +
    "    for root, _, files in os.walk(d):\n" +
    "        for f in files:\n" +
    "            p = os.path.join(root, f)\n" +
    "            z.write(p, name + '/' + os.path.relpath(p, d) if os.path.isdir(d) else name)\n" +
    "    if os.path.isfile(d): z.write(d, name)\n";
  return new Promise((resolve, reject) =>
    execFile("/usr/bin/python3", ["-c", code, zip, ...Object.entries(entries).flat()], (err, _o, stderr) => (err ? reject(new Error(stderr)) : resolve())),
  );
}

test("zarr.open reads through URL pipelines: zip:, nested zip:, zarr2:, zarr3:, zarr:", async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pipeline-"));
  try {
    try {
      await zipWith(path.join(dir, "data.zip"), {
        "v3/array_blosc.zarr": path.join(compat, "v3", "array_blosc.zarr"),
        "v2/array_zstd_C.zarr": path.join(compat, "v2", "array_zstd_C.zarr"),
      });
      await zipWith(path.join(dir, "outer.zip"), { "inner/data.zip": path.join(dir, "data.zip") });
    } catch (e) {
      if (peersRequired) throw e;
      t.skip(`no Python zipfile: ${e.message}`);
      return;
    }
    const { url, stats, close } = await startServer(dir);
    try {
      const direct = async (p) => (await zarr.open(new FileSystemStore(path.join(compat, p)), { kind: "array" })).get(null);
      const same = async (where, p, what) => {
        const a = await zarr.open(where, { kind: "array" });
        const got = await a.get(null);
        const want = await direct(p);
        assert.deepEqual(got.shape, want.shape, what);
        assert.deepEqual(Array.from(got.data), Array.from(want.data), what);
        return a;
      };
      const v3 = await same(`${url}/data.zip|zip:v3/array_blosc.zarr|zarr3:`, "v3/array_blosc.zarr", "zip: then zarr3:");
      assert.equal(v3.zarrFormat, 3);
      await same(`${url}/data.zip|zip:v3|zarr3:array_blosc.zarr`, "v3/array_blosc.zarr", "the node's path after zarr3:");
      await same(`${url}/data.zip|zip:v2/array_zstd_C.zarr/|zarr2:`, "v2/array_zstd_C.zarr", "zip: then zarr2:");
      await same(`${url}/data.zip|zip:v2/array_zstd_C.zarr|zarr:`, "v2/array_zstd_C.zarr", "zarr: takes either format");
      await same(`${url}/outer.zip|zip:inner/data.zip|zip:v3/array_blosc.zarr|zarr3:`, "v3/array_blosc.zarr", "a zip inside a zip");
      await same(new URL(`${url}/data.zip|zip:v3/array_blosc.zarr|zarr3:`), "v3/array_blosc.zarr", "a URL object");
      await assert.rejects(zarr.open(`${url}/data.zip|zip:v3/array_blosc.zarr|zarr2:`), (e) => e.code === "NOT_FOUND" && /not v2/.test(e.message));
      await assert.rejects(zarr.open(`${url}/data.zip|zip:v3/array_blosc.zarr|ocdbt:`), (e) => e.code === "UNSUPPORTED");
      assert.ok(stats.rangeRequests > 0, "the zips are read by range requests");
    } finally {
      await close();
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
