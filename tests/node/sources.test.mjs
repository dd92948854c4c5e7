// storeFromUrl, FileListStore and BlobStore: what a page needs to open any
// address or picked file. Data written by other implementations (zarr-python
// 2's fixtures, zarr-python 3's zips via zarrita's fixtures, the reference
// sets of tests/refs) with the values those implementations recorded; the
// request counts against what the HTTP server saw.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { listNames } from "../../npm/lib/files.js";
import { repoRoot, testData, startServer, loadCases } from "./helpers.mjs";

const fixtures = path.join(repoRoot, "tests", "fixtures", "v2");
const refsData = path.join(repoRoot, "tests", "refs", "data");
const zips = path.join(testData, "zarrita", "v3");
const v2Cases = await loadCases(path.join(fixtures, "cases.json"));
const refCases = await loadCases(path.join(repoRoot, "tests", "refs", "cases.json"));

/** The bytes of a read, as the cases record them (little-endian, C order). */
function bytesOf(data) {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}

async function check(store, kase, what) {
  const arr = await zarr.open(store, { path: kase.path, kind: "array" });
  const got = await arr.get(null);
  assert.deepEqual(got.shape, kase.shape, what);
  assert.equal(bytesOf(got.data), kase.bytes, `${what}: values`);
}

test("storeFromUrl tells a hierarchy, a zip, JSON and Parquet reference sets apart, and counts requests", async (t) => {
  const { url, stats, close } = await startServer(fixtures, { mounts: { "/refs": refsData, "/zips": zips } });
  try {
    const seen = (prefix) => stats.paths.filter((p) => p.startsWith(prefix)).length;

    // A plain v2 hierarchy: a FetchStore, whose counts match the server's.
    const plain = await zarr.storeFromUrl(`${url}/data/v2.zarr`);
    assert.ok(plain instanceof zarr.FetchStore);
    for (const p of ["dtypes/u2_le", "dtypes/f8_le", "layout/F_i4"]) {
      await check(plain, v2Cases.find((c) => c.store === "v2.zarr" && c.path === p && c.selection === ""), `v2.zarr ${p}`);
    }
    assert.equal(plain.requests, seen("/data/v2.zarr"), "FetchStore.requests counts every request (the .zmetadata probe too)");
    const u2 = await fs.readFile(path.join(fixtures, "data", "v2.zarr", "dtypes", "u2_le", ".zarray"));
    const before = plain.bytes;
    await plain.get("/dtypes/u2_le/.zarray");
    assert.equal(plain.bytes - before, u2.length, "FetchStore.bytes counts bodies");
    assert.equal(plain.inFlight, 0);

    // JSON reference sets by name.
    const json = await zarr.storeFromUrl(`${url}/refs/json/v1.json`);
    assert.ok(json instanceof zarr.ReferenceStore);
    await check(json, refCases.find((c) => c.store === "json/v1.json" && c.path === "temp" && c.selection === ""), "json/v1.json temp");
    assert.ok(json.requests >= 2 && json.bytes > 0, `${json.requests} requests, ${json.bytes} bytes`);

    // Parquet reference directories: by .parq-less name (told by the
    // record_size in .zmetadata) and by their .zmetadata.
    const big = refCases.find((c) => c.store === "pq/refs.json" && c.path === "a/big" && c.selection === "");
    for (const u of [`${url}/refs/pq/hyp_zstd`, `${url}/refs/pq/pqgo_v1_zstd/.zmetadata`]) {
      const pq = await zarr.storeFromUrl(u);
      assert.ok(pq instanceof zarr.ReferenceStore, u);
      await check(pq, big, u);
    }

    // A zip of a hierarchy, read by ranges; its counts are the FetchStore's underneath.
    {
      const before = seen("/zips/");
      const zip = await zarr.storeFromUrl(`${url}/zips/data.zipped_from_parent.zarr.zip`);
      assert.ok(zip instanceof zarr.ZipStore && zip.source instanceof zarr.FetchStore);
      const g = await zarr.open(zip, { kind: "group" });
      const kids = await g.children();
      const arr = kids.find((k) => k.name === "1d.contiguous.i4").node;
      const want = await (await zarr.open(new FileSystemStore(path.join(zips, "data.zarr")), { path: "1d.contiguous.i4", kind: "array" })).get(null);
      assert.deepEqual(Array.from((await arr.get(null)).data), Array.from(want.data));
      assert.equal(zip.requests, seen("/zips/") - before, "ZipStore.requests: the requests for the zip file");
      assert.ok(stats.log.filter((l) => l.path.startsWith("/zips/")).every((l) => l.range), "the zip is read by ranges only");
    }

    // Nothing there: the engine's NOT_FOUND, not a guess.
    const none = await zarr.storeFromUrl(`${url}/data/no-such.zarr`);
    await assert.rejects(zarr.open(none), (e) => e.code === "NOT_FOUND");
  } finally {
    await close();
  }
});

/** Every file under dir, as [path relative to base, absolute path]. */
async function walk(dir, base = dir) {
  const out = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p, base)));
    else out.push([path.relative(base, p).split(path.sep).join("/"), p]);
  }
  return out;
}

test("storeFromUrl's look at .zmetadata is the engine's: one request, and none below the opened group", async () => {
  const { url, stats, close } = await startServer(fixtures);
  try {
    const count = (p) => stats.paths.filter((x) => x === p).length;
    // zarr-python's consolidated hierarchy: its .zmetadata read once, and
    // the nodes below read from it.
    const cons = await zarr.storeFromUrl(`${url}/data/consolidated.zarr`);
    const root = await zarr.open(cons, { kind: "group" });
    const kids = await root.children();
    assert.ok(kids.length > 0, "children listed from the consolidated metadata");
    assert.equal(count("/data/consolidated.zarr/.zmetadata"), 1, "the .zmetadata asked for once (storeFromUrl's read, taken by the engine)");
    // A plain hierarchy: its root's .zmetadata (absent) asked for once, and
    // the groups opened through it look for none of their own.
    const plain = await zarr.storeFromUrl(`${url}/data/v2.zarr`);
    const top = await zarr.open(plain, { kind: "group" });
    const hier = await top.open("hier", { kind: "group" });
    const a = await hier.open("a", { kind: "group" });
    const arr = await a.open("arr", { kind: "array" });
    const want = v2Cases.find((c) => c.store === "v2.zarr" && c.path === "hier/a/arr" && c.selection === "");
    assert.equal(bytesOf((await arr.get(null)).data), want.bytes, "hier/a/arr: zarr-python's values");
    assert.equal(count("/data/v2.zarr/.zmetadata"), 1, "the root's .zmetadata asked for once");
    const below = stats.paths.filter((p) => /^\/data\/v2\.zarr\/.+\/\.zmetadata$/.test(p));
    assert.deepEqual(below, [], "no group below the opened one looked for .zmetadata");
    // A kind asked for is the only kind read.
    assert.equal(count("/data/v2.zarr/hier/a/arr/.zgroup"), 0, "an array opened as one: no .zgroup asked for");
    assert.equal(count("/data/v2.zarr/hier/a/.zarray"), 0, "a group opened as one: no .zarray asked for");
    await assert.rejects(a.open("arr", { kind: "group" }), (e) => e.code === "NOT_FOUND" && /not a group/.test(e.message));
  } finally {
    await close();
  }
});

test("FileListStore: a picked folder that wraps the hierarchy opens at the hierarchy's top", async () => {
  const src = path.join(fixtures, "data", "v2.zarr");
  const files = [];
  const where = new Map();
  for (const [rel, abs] of await walk(src)) {
    // As a browser gives a picked folder "picked/": picked/data/v2.zarr/…
    const f = new File([await fs.readFile(abs)], path.basename(abs));
    where.set(f, `picked/data/v2.zarr/${rel}`);
    files.push(f);
  }
  const store = new zarr.FileListStore(files, { pathOf: (f) => where.get(f) });
  assert.equal(store.folder, "picked");
  assert.equal(store.root, "data/v2.zarr/");
  assert.equal(store.label, "picked/data/v2.zarr");
  assert.deepEqual(store.list("/"), (await fs.readdir(src)).map((n) => (n.startsWith(".") ? n : `${n}/`)).sort());
  for (const p of ["dtypes/i4_le", "fill/f8_nan"]) await check(store, v2Cases.find((c) => c.store === "v2.zarr" && c.path === p && c.selection === ""), `folder ${p}`);
  assert.ok(store.requests > 0 && store.bytes > 0);
  assert.equal(await store.get("/no/such/key"), undefined);
  const zarray = await fs.readFile(path.join(src, "dtypes", "i4_le", ".zarray"));
  assert.deepEqual(await store.getRange("/dtypes/i4_le/.zarray", { offset: 2, length: 5 }), new Uint8Array(zarray.subarray(2, 7)));
  assert.deepEqual(await store.getRange("/dtypes/i4_le/.zarray", { suffixLength: 3 }), new Uint8Array(zarray.subarray(zarray.length - 3)));
});

test("BlobStore: a picked zip read by ZipStore through ranges of the Blob", async (t) => {
  const bytes = await fs.readFile(path.join(zips, "data.zipped_from_within.zarr.zip"));
  const blob = new File([bytes], "data.zipped_from_within.zarr.zip");
  const source = new zarr.BlobStore(blob);
  assert.equal(source.key, "/data.zipped_from_within.zarr.zip");
  const zip = await zarr.ZipStore.open(source, source.key);
  const arr = await zarr.open(zip, { path: "1d.contiguous.i4", kind: "array" });
  const want = await (await zarr.open(new FileSystemStore(path.join(zips, "data.zarr")), { path: "1d.contiguous.i4", kind: "array" })).get(null);
  assert.deepEqual(Array.from((await arr.get(null)).data), Array.from(want.data));
  assert.ok(zip.requests > 0 && zip.bytes < bytes.length, `${zip.requests} reads, ${zip.bytes} of ${bytes.length} bytes`);
});

test("listNames: the names directly under a prefix", () => {
  const keys = ["/a/b/c", "/a/b/d", "/a/e", "/f", "/a/.zgroup"];
  assert.deepEqual(listNames(keys, "/a/"), [".zgroup", "b/", "e"]);
  assert.deepEqual(listNames(keys, "/a"), [".zgroup", "b/", "e"]);
  assert.deepEqual(listNames(keys, "/"), ["a/", "f"]);
  assert.deepEqual(listNames(keys, "/x/"), []);
  // MemoryStore lists the same way.
  const m = new zarr.MemoryStore(keys.map((k) => [k, new Uint8Array(1)]));
  assert.deepEqual(m.list("/a/"), listNames(keys, "/a/"));
});
