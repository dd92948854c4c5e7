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

// The registry's cast_value and scale_offset codecs (its README examples)
// written by the package (they are in the full build) and read by
// zarrita.js 0.7.5, which implements both: the values a reader computes from
// the stored integers by the READMEs' formulas.
test("cast_value and scale_offset: what the package writes, zarrita.js reads", async () => {
  const { zarrita } = await import("../../npm/dev/deps.mjs");
  const store = new Map();
  const roundEven = (v) => (Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v));
  // float64 in [0, 2540] with NaN, stored as uint8 (NaN as 0)
  const xs = Float64Array.from({ length: 40 }, (_, i) => (i % 9 === 4 ? NaN : ((i * 613.7) % 2540)));
  const a = await zarr.create(store, {
    path: "nan_u8", shape: [40], chunks: [16], dtype: "float64", zarrFormat: 3, fillValue: NaN,
    codecs: [
      { name: "scale_offset", configuration: { offset: -10, scale: 0.1 } },
      { name: "cast_value", configuration: { data_type: "uint8", rounding: "nearest-even", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
      { name: "bytes" },
    ],
  });
  await a.set(null, { data: xs, shape: [40] });
  const want = Array.from(xs, (x) => (Number.isNaN(x) ? NaN : roundEven((x + 10) * 0.1) / 0.1 - 10));
  const theirs = await zarrita.get(await zarrita.open(zarrita.root(store).resolve("nan_u8"), { kind: "array" }));
  assert.deepEqual(Array.from(theirs.data), want, "zarrita.js: float64 through scale_offset and cast_value to uint8");
  assert.deepEqual(Array.from((await a.get()).data), want, "zarr-wasm reads its own the same");
  // float32 scaled and offset, stored as int16 (clamped). zarrita.js casts
  // the array's fill value at cast_value without scale_offset's step before
  // it, so the fill here is one both readers take.
  const fs32 = Float32Array.from({ length: 30 }, (_, i) => 100 + (i - 15) * 0.75);
  const b = await zarr.create(store, {
    path: "f32_i16", shape: [30], chunks: [8], dtype: "float32", zarrFormat: 3, fillValue: 100,
    codecs: [{ name: "scale_offset", configuration: { offset: 100, scale: 4 } }, { name: "cast_value", configuration: { data_type: "int16", out_of_range: "clamp" } }, { name: "bytes", configuration: { endian: "little" } }],
  });
  await b.set(null, { data: fs32, shape: [30] });
  const chunk = store.get("/f32_i16/c/0");
  assert.deepEqual(Array.from(new Int16Array(chunk.buffer, chunk.byteOffset, 8)), Array.from(fs32.slice(0, 8), (v) => (v - 100) * 4), "stored as int16 after scale and offset");
  const theirs2 = await zarrita.get(await zarrita.open(zarrita.root(store).resolve("f32_i16"), { kind: "array" }));
  assert.deepEqual(Array.from(theirs2.data), Array.from(fs32), "zarrita.js: float32 through scale_offset and cast_value");
  const c = await zarr.create(store, {
    path: "u16_u8", shape: [4], chunks: [4], dtype: "uint16", zarrFormat: 3, fillValue: 1000,
    codecs: [{ name: "scale_offset", configuration: { offset: 1000 } }, { name: "cast_value", configuration: { data_type: "uint8" } }, { name: "bytes" }],
  });
  // A value out of uint8's range with no out_of_range rule is refused, naming the codec.
  await assert.rejects(c.set([0], 2000), (e) => e.code === "CODEC" && /cast_value/.test(e.message));
});

// Optional arrays created from their data type alone get zarrs' layout:
// zarrs' snapshot values written through the package give zarrs' chunks.
test("optional arrays created in JavaScript store zarrs' bytes", async () => {
  const { FileSystemStore } = await import("../../npm/node.js");
  for (const name of ["zarrs.optional(uint8)", "zarrs.optional(string)"]) {
    const dir = path.join(here, "..", "compat", "data", "snapshots", "regular", name, "a2b", "zarrs.optional");
    const [hash] = await fs.readdir(dir);
    const src = path.join(dir, hash);
    const doc = JSON.parse(await fs.readFile(path.join(src, "zarr.json"), "utf8"));
    const theirs = await zarr.open(zarr.root(new FileSystemStore(src)), { kind: "array" });
    const values = await theirs.get();
    const store = new Map();
    const dtype = JSON.parse(JSON.stringify(doc.data_type).replaceAll("zarrs.optional", "optional"));
    const ours = await zarr.create(store, { path: "o", shape: doc.shape, chunks: doc.chunk_grid.configuration.chunk_shape, dtype, zarrFormat: 3, compressor: null });
    await ours.set(null, Array.isArray(values.data) ? { data: values.data, shape: values.shape } : values.data);
    let n = 0;
    for (const key of await fs.readdir(path.join(src, "c"), { recursive: true })) {
      const file = path.join(src, "c", key);
      if ((await fs.stat(file)).isDirectory()) continue;
      const mine = store.get(`/o/c/${key.split(path.sep).join("/")}`);
      assert.deepEqual(Buffer.from(mine ?? []), await fs.readFile(file), `${name}: chunk ${key}`);
      n++;
    }
    assert.ok(n > 0, `${name}: chunks compared`);
  }
});

// The registry's "json" data type (pull request 9) through the package:
// Debian's numcodecs (VLenUTF8) and Python's json make a chunk as the README
// defines it (compact, keys sorted, as nlohmann::json dumps); it reads as
// Python's values, and the same values written from JavaScript give the
// same bytes. (Values JavaScript holds alike: no 1.0 beside 1, no -0.)
test("json data type: numcodecs' chunk reads as Python's values, and writes back the same bytes", async (t) => {
  const { execFileSync } = await import("node:child_process");
  const script = `
import json, numpy as np, numcodecs
values = [None, True, 0, -1, 9007199254740991, 1.5, 1e300, "", "ü日本🙂", "q\\" b\\\\ n\\n", [], [1, [2, [3]]],
          {}, {"b": 1, "a": [None, "x"], "ä": {"z": 2.25}}]
dump = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
print(json.dumps(values))
print(bytes(numcodecs.VLenUTF8().encode(np.array([dump(v) for v in values], dtype=object))).hex())`;
  let out;
  try {
    out = execFileSync("/usr/bin/python3", ["-c", script], { encoding: "utf8" });
  } catch (e) {
    const { peersRequired } = await import("./helpers.mjs");
    if (peersRequired) throw e;
    t.skip("no python3 numcodecs");
    return;
  }
  const [valuesText, hex] = out.trim().split("\n");
  const values = JSON.parse(valuesText);
  const chunk = Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16));
  const n = values.length;
  const doc = {
    zarr_format: 3, node_type: "array", shape: [n], data_type: "json",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [n] } },
    chunk_key_encoding: { name: "default" }, fill_value: { some: "value" }, codecs: [{ name: "vlen-utf8" }],
  };
  const store = new Map([["/j/zarr.json", new TextEncoder().encode(JSON.stringify(doc))], ["/j/c/0", chunk]]);
  const arr = await zarr.open(zarr.root(store).resolve("j"), { kind: "array" });
  assert.equal(arr.dtype, "json");
  const got = await zarr.get(arr);
  assert.deepEqual(got.data, values, "read: Python's values");

  const w = await zarr.create(store, { path: "w", shape: [n], chunks: [n], dtype: "json", zarrFormat: 3, compressors: [] });
  await w.set(null, { data: values, shape: [n] });
  assert.deepEqual([...store.get("/w/c/0")], [...chunk], "written: numcodecs' bytes");
  assert.deepEqual((await w.get()).data, values);
  const missing = await zarr.create(store, { path: "m", shape: [2], dtype: "json", zarrFormat: 3, fillValue: { a: [1, null] } });
  assert.deepEqual((await missing.get()).data, [{ a: [1, null] }, { a: [1, null] }], "the fill value where no chunk is");
  await assert.rejects(w.set([0], NaN), (e) => e instanceof zarr.ZarrError, "NaN is no JSON value");
});
