// The JavaScript API's description of arrays and its zarrita.js-style forms,
// checked against zarrita.js (npm) reading the same stores: chunks of a
// sharded array, shards, dimension names written for v2 and v3, one dtype
// vocabulary; locations, get/set as functions (a scalar for an all-integer
// selection), select by dimension name, consolidate, open.v2/open.v3, the
// dtype option of open and arr.is().
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import * as path from "node:path";
import { FileSystemStore } from "../../npm/node.js";
import { testData, startServer } from "./helpers.mjs";

const peerRoot = path.join(testData, "zarrita");

/** A MemoryStore zarrita can read too (it passes keys as "/a/zarr.json"). */
function store() {
  return new zarr.MemoryStore();
}

describe("array description, checked with zarrita.js", () => {
  test("a sharded array: chunks are the inner chunks, shards the shard shape", async () => {
    const s = store();
    const arr = await zarr.create(s, { path: "sh", shape: [8, 8], chunks: [2, 4], shardShape: [4, 8], dtype: "int16" });
    assert.deepEqual(arr.chunks, [2, 4]);
    assert.deepEqual(arr.shards, [4, 8]);
    await zarr.set(arr, null, { data: Int16Array.from({ length: 64 }, (_, i) => i), shape: [8, 8] });
    const theirs = await zarrita.open(zarrita.root(s).resolve("sh"), { kind: "array" });
    assert.deepEqual(theirs.chunks, arr.chunks);
    const plain = await zarr.create(s, { path: "plain", shape: [8], chunks: [4], dtype: "int16" });
    assert.deepEqual([plain.chunks, plain.shards], [[4], null]);
  });

  for (const zarrFormat of [2, 3]) {
    test(`dimension names written for v${zarrFormat} are read back by zarrita.js`, async () => {
      const s = store();
      const arr = await zarr.create(s, { path: "t", shape: [2, 3], chunks: [2, 3], dtype: "float32", zarrFormat, dimensionNames: ["y", "x"], attributes: { units: "K" } });
      assert.deepEqual(arr.dimensionNames, ["y", "x"]);
      const again = await zarr.open(s, { path: "t", kind: "array" });
      assert.deepEqual(again.dimensionNames, ["y", "x"]);
      assert.equal(again.attrs.units, "K");
      const theirs = await zarrita.open(zarrita.root(s).resolve("t"), { kind: "array" });
      assert.deepEqual(theirs.dimensionNames, ["y", "x"]);
      if (zarrFormat === 2) assert.deepEqual(again.attrs._ARRAY_DIMENSIONS, ["y", "x"]);
    });
  }

  test("v2 dimension names must name every dimension", async () => {
    await assert.rejects(zarr.create(store(), { shape: [2, 2], dtype: "int8", zarrFormat: 2, dimensionNames: ["y"] }), { code: "INVALID_METADATA" });
  });

  test("one dtype vocabulary: the same names for v2 and v3, as zarrita.js gives them", async () => {
    for (const [v2, name] of [["<f4", "float32"], [">i8", "int64"], ["|b1", "bool"], ["<U6", "v2:U6"], ["|S3", "v2:S3"], ["<u2", "uint16"]]) {
      const s = store();
      const a2 = await zarr.create(s, { path: "a", shape: [2], dtype: v2, zarrFormat: 2 });
      const a3 = await zarr.create(s, { path: "b", shape: [2], dtype: name === "bool" || !name.startsWith("v2:") ? name : v2, zarrFormat: 3 });
      assert.equal(a2.dtype, name);
      assert.equal(a3.dtype, name);
      assert.equal(a2.dataType.stored, v2);
      const theirs = await zarrita.open(zarrita.root(s).resolve("a"), { kind: "array" });
      assert.equal(theirs.dtype, name, `zarrita.js names ${v2}`);
    }
  });

  test("names this package adds where zarrita.js has none, and create() takes them back", async () => {
    for (const name of ["datetime64[ns]", "timedelta64[10s]", "complex64", "r16", "v2:U4", "v2:S2", "string"]) {
      const a = await zarr.create(store(), { shape: [2], dtype: name });
      assert.equal(a.dtype, name);
    }
    const struct = { name: "struct", fields: [{ name: "a", dtype: "int32" }, { name: "b", dtype: "float64", shape: [2] }] };
    const a = await zarr.create(store(), { shape: [2], dtype: struct, zarrFormat: 2 });
    assert.deepEqual(a.dtype, struct);
    assert.deepEqual(a.dataType.stored, [["a", "<i4"], ["b", "<f8", [2]]]);
  });

  test("order: C, or F for v2 order F and a v3 transpose that reverses the dimensions", async () => {
    const s = store();
    assert.equal((await zarr.create(s, { path: "c", shape: [2, 2], dtype: "int8" })).order, "C");
    assert.equal((await zarr.create(s, { path: "f2", shape: [2, 2], dtype: "int8", zarrFormat: 2, order: "F" })).order, "F");
    assert.equal((await zarr.create(s, { path: "f3", shape: [2, 2], dtype: "int8", order: "F" })).order, "F");
  });

  test("a v3 bytes codec without endian is written with the default (little)", async () => {
    const s = store();
    const arr = await zarr.create(s, { path: "t", shape: [4], chunks: [2], dtype: "float32", codecs: [{ name: "bytes" }, { name: "zstd", configuration: { level: 3 } }] });
    assert.deepEqual(arr.metadata.codecs[0], { name: "bytes", configuration: { endian: "little" } });
    await zarr.set(arr, null, { data: Float32Array.of(1, 2, 3, 4), shape: [4] });
    const theirs = await zarrita.open(zarrita.root(s).resolve("t"), { kind: "array" });
    assert.deepEqual([...(await zarrita.get(theirs)).data], [1, 2, 3, 4]);
  });
});

describe("zarrita.js-style functions, compared with zarrita.js on the same store", () => {
  async function pair() {
    const s = store();
    const ours = await zarr.create(zarr.root(s).resolve("grid"), { shape: [3, 4], chunkShape: [2, 2], dtype: "int32", dimensionNames: ["lat", "lon"] });
    await zarr.set(ours, null, { data: Int32Array.from({ length: 12 }, (_, i) => i * 10), shape: [3, 4], stride: [4, 1] });
    const theirs = await zarrita.open(zarrita.root(s).resolve("grid"), { kind: "array" });
    return { s, ours, theirs };
  }

  test("get: a scalar for an all-integer selection, {data, shape, stride} otherwise", async () => {
    const { ours, theirs } = await pair();
    for (const sel of [[1, 2], [-1, 0], [1, null], [zarrita.slice(0, 2), 3], [null, zarrita.slice(1, 4, 2)], null]) {
      const a = await zarr.get(ours, sel);
      const b = await zarrita.get(theirs, sel);
      if (typeof b !== "object") {
        assert.equal(a, b, JSON.stringify(sel));
      } else {
        assert.deepEqual({ data: [...a.data], shape: a.shape, stride: a.stride }, { data: [...b.data], shape: b.shape, stride: b.stride }, JSON.stringify(sel));
      }
    }
  });

  test("set with a scalar and with a chunk in F order; zarrita.js reads the result", async () => {
    const { ours, theirs } = await pair();
    await zarr.set(ours, [0, null], 7);
    await zarr.set(ours, [zarr.slice(1, 3), zarr.slice(0, 2)], { data: Int32Array.of(1, 2, 3, 4), shape: [2, 2], stride: [1, 2] });
    const b = await zarrita.get(theirs, null);
    assert.deepEqual([...b.data], [7, 7, 7, 7, 1, 3, 60, 70, 2, 4, 100, 110]);
  });

  test("select by dimension name, with a suggestion for a typo", async () => {
    const { ours, theirs } = await pair();
    const sel = zarr.select(ours, { lon: zarr.slice(1, 3) });
    assert.deepEqual(sel, zarrita.select(theirs, { lon: zarrita.slice(1, 3) }).map((x) => (x === null ? null : zarr.slice(x.start, x.stop, x.step))));
    assert.equal(await zarr.get(ours, zarr.select(ours, { lat: 2, lon: 3 })), 110);
    assert.throws(() => zarr.select(ours, { lom: 0 }), (e) => e.code === "SELECTION" && e.suggest === "lon" && /did you mean "lon"/.test(e.message));
  });

  test("bool, int64 and string scalars are JS booleans, bigints and strings", async () => {
    const s = store();
    const b = await zarr.create(s, { path: "b", shape: [2], dtype: "bool" });
    await zarr.set(b, [1], 1);
    assert.equal(await zarr.get(b, [1]), true);
    assert.equal(await zarr.get(b, [0]), false);
    const i = await zarr.create(s, { path: "i", shape: [2], dtype: "int64", fillValue: 5 });
    assert.equal(await zarr.get(i, [0]), 5n);
    const t = await zarr.create(s, { path: "t", shape: [], dtype: "string", fillValue: "x" });
    assert.equal(await zarr.get(t), "x");
  });

  test("root, resolve and open(location); group.resolve; open.v2 and open.v3", async () => {
    const s = store();
    await zarr.create(zarr.root(s), { attributes: { title: "t" } }); // zarrita: create(location) is a group
    await zarr.create(zarr.root(s).resolve("g/a"), { shape: [2], dtype: "uint8", zarrFormat: 3 });
    await zarr.create(s, { path: "v2a", shape: [2], dtype: "uint8", zarrFormat: 2 });
    const loc = zarr.root(s).resolve("g").resolve("./x/../a");
    assert.equal(loc.path, "/g/a");
    assert.equal(zarr.root(s).resolve("/g/a/..").path, "/g");
    const g = await zarr.open(zarr.root(s), { kind: "group" });
    assert.equal(g.attrs.title, "t");
    const a = await zarr.open(g.resolve("g/a"), { kind: "array" });
    assert.equal(a.path, "g/a");
    await zarr.open.v3(loc, { kind: "array" });
    await assert.rejects(zarr.open.v2(loc, { kind: "array" }), { code: "NOT_FOUND" });
    await zarr.open.v2(zarr.root(s).resolve("v2a"), { kind: "array" });
    const t = await zarrita.open(zarrita.root(s), { kind: "group" });
    assert.equal(t.attrs.title, "t");
  });

  test("consolidate(store, path): .zmetadata for v2 that zarrita.js reads", async () => {
    const s = store();
    await zarr.createGroup(s, { zarrFormat: 2 });
    await zarr.create(s, { path: "x", shape: [3], dtype: "float64", zarrFormat: 2, attributes: { units: "m" } });
    const g = await zarr.consolidate(s);
    assert.equal(g.consolidated, true);
    assert.ok(s.has("/.zmetadata"));
    const c = await zarrita.withConsolidatedMetadata(s);
    const theirs = await zarrita.open(zarrita.root(c).resolve("x"), { kind: "array" });
    assert.equal(theirs.attrs.units, "m");
  });

  test("the dtype option of open checks the type at run time; arr.is narrows", async () => {
    const s = store();
    await zarr.create(s, { path: "f", shape: [2], dtype: "float32" });
    const f = await zarr.open(s, { path: "f", kind: "array", dtype: "float32" });
    assert.ok(f.is("float32") && f.is("number") && !f.is("bigint") && !f.is("int32"));
    await assert.rejects(zarr.open(s, { path: "f", kind: "array", dtype: "int16" }), (e) => e.code === "INVALID_METADATA" && /float32, not int16/.test(e.message));
    await zarr.open(s, { path: "f", kind: "array", dtype: "number" });
    const i = await zarr.create(s, { path: "i", shape: [2], dtype: "uint64" });
    assert.ok(i.is("bigint") && !i.is("number"));
  });
});

describe("zarrita.js conventions over zarr-python's data (peer fixtures)", () => {
  test("withConsolidatedMetadata over HTTP: opening arrays asks for no metadata; values equal zarrita.js's", async () => {
    const server = await startServer(path.join(peerRoot, "v2", "data.zarr"));
    try {
      const store = await zarr.withConsolidatedMetadata(new zarr.FetchStore(server.url));
      assert.equal(store.contents().find((x) => x.path === "/1d.chunked.i2")?.kind, "array");
      assert.equal(store.contents().find((x) => x.path === "/my group with spaces")?.kind, "group");
      const before = server.stats.paths.length;
      const grp = await zarr.open(store, { kind: "group" });
      const arr = await zarr.open(grp.resolve("2d.chunked.i2"), { kind: "array" });
      const asked = server.stats.paths.slice(before);
      assert.deepEqual(asked.filter((p) => /(\.zarray|\.zgroup|\.zattrs|zarr\.json)$/.test(p)), []);
      const ours = await zarr.get(arr);
      const theirs = await zarrita.get(await zarrita.open(zarrita.root(new zarrita.FetchStore(server.url)).resolve("2d.chunked.i2"), { kind: "array" }));
      assert.deepEqual([...ours.data], [...theirs.data]);
      assert.deepEqual(ours.shape, theirs.shape);
      // No consolidated metadata: NOT_FOUND, or the store itself from withMaybe…
      const plain = new zarr.FetchStore(`${server.url}/3d.contiguous.i2`);
      await assert.rejects(zarr.withConsolidatedMetadata(plain), (e) => zarr.isZarritaError(e, "NotFoundError") && e.code === "NOT_FOUND");
      assert.equal(await zarr.withMaybeConsolidatedMetadata(plain), plain);
    } finally {
      await server.close();
    }
  });

  test("withConsolidatedMetadata v3 (inline consolidated_metadata) keeps each document as written", async () => {
    const fs = new FileSystemStore(path.join(peerRoot, "v3", "data.zarr", "consolidated"));
    const store = await zarr.withConsolidatedMetadata(fs, { format: ["v3", "v2"] });
    assert.deepEqual(store.contents().map((x) => x.path), ["/", "/1d.chunked.i2", "/2d.contiguous.i2", "/nested", "/nested/1d.i2"]);
    const arr = await zarr.open(zarr.root(store).resolve("nested/1d.i2"), { kind: "array" });
    const theirs = await zarrita.get(await zarrita.open(zarrita.root(fs).resolve("nested/1d.i2"), { kind: "array" }));
    assert.deepEqual([...(await zarr.get(arr)).data], [...theirs.data]);
  });

  test("getChunk numbers a sharded array's inner chunks, as zarrita.js does", async () => {
    const fs = new FileSystemStore(path.join(peerRoot, "v3", "data.zarr"));
    for (const name of ["2d.chunked.compressed.sharded.i2", "3d.chunked.mixed.compressed.sharded.i2"]) {
      const ours = await zarr.open(zarr.root(fs).resolve(name), { kind: "array" });
      const theirs = await zarrita.open(zarrita.root(fs).resolve(name), { kind: "array" });
      assert.deepEqual(ours.chunks, theirs.chunks);
      const grid = ours.shape.map((n, d) => Math.ceil(n / ours.chunks[d]));
      for (let k = 0; k < grid.reduce((a, b) => a * b, 1); k++) {
        const idx = grid.map((_, d) => Math.floor(k / grid.slice(d + 1).reduce((a, b) => a * b, 1)) % grid[d]);
        const a = await ours.getChunk(idx);
        const b = await theirs.getChunk(idx);
        assert.deepEqual(a.shape, b.shape, `${name} ${idx}`);
        assert.deepEqual([...a.data], [...b.data], `${name} ${idx}`);
      }
      await assert.rejects(ours.getChunk(grid), (e) => e.code === "SELECTION");
    }
  });

  test("isZarritaError and the older {opts: {signal}} option of get", async () => {
    const s = store();
    const arr = await zarr.create(s, { path: "a", shape: [4], dtype: "int16", codecs: [] });
    assert.equal(JSON.parse(new TextDecoder().decode(s.get("/a/zarr.json"))).codecs[0].name, "bytes");
    await assert.rejects(zarr.open(s, { path: "nope" }), (e) => zarr.isZarritaError(e, "NotFoundError") && !zarr.isZarritaError(e, "InvalidSelectionError"));
    await assert.rejects(zarr.get(arr, [9]), (e) => zarr.isZarritaError(e) && e._tag === "InvalidSelectionError");
    assert.equal(zarr.isZarritaError(new Error("x")), false);
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await assert.rejects(zarr.get(arr, null, { opts: { signal: ac.signal } }));
  });
});
