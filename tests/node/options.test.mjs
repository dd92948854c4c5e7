// Every option of every public call is checked (issue 31): the table of
// npm/lib/options.js is walked — each accepted option misspelt by one
// letter is refused with INVALID_ARGUMENT suggesting it, each given a value
// of no accepted type is refused naming it — so an option added to the
// table is covered, and a call added to it needs a runner here. create's
// zarr-python 3 and zarrita.js spellings write the same bytes as the
// package's own names, and zarr-python 2.13 (v2) and zarrita.js (v3) read
// what they create.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zarr from "../../npm/node.js";
import { optionTable, createAliases } from "../../npm/lib/options.js";
import { zarrita, ZarritaFileSystemStore } from "../../npm/dev/deps.mjs";
import { peersRequired } from "./helpers.mjs";

const store = new zarr.MemoryStore();
const arr = await zarr.create(store, { path: "a", shape: [4], chunks: [2], dtype: "int32" });
const group = await zarr.open(store, { kind: "group" });
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-options-"));
const nowhere = "http://127.0.0.1:9/"; // (never reached: the options are refused first)

/** How to call each entry of optionTable with an options object. */
const runners = {
  open: (o) => zarr.open(store, o),
  "open.v2": (o) => zarr.open.v2(store, o),
  "open.v3": (o) => zarr.open.v3(store, o),
  "ZarrGroup.open": (o) => group.open("a", o),
  "ZarrGroup.children": (o) => group.children(o),
  "open(location)": (o) => zarr.open(`${nowhere}data.zarr`, o),
  create: (o) => zarr.create(store, o),
  "create(location)": (o) => zarr.create(`${nowhere}data.zarr`, o),
  createGroup: (o) => zarr.createGroup(store, o),
  "ZarrArray.get": (o) => arr.get(null, o),
  "ZarrArray.set": (o) => arr.set(null, 0, o),
  "ZarrArray.getChunk": (o) => arr.getChunk([0], o),
  "ZarrArray.resize": (o) => arr.resize([4], o),
  get: (o) => zarr.get(arr, null, o),
  set: (o) => zarr.set(arr, null, 0, o),
  openSpec: (o) => zarr.openSpec({ driver: "zarr3", kvstore: store, path: "a" }, o),
  withConsolidatedMetadata: (o) => zarr.withConsolidatedMetadata(store, o),
  withMaybeConsolidatedMetadata: (o) => zarr.withMaybeConsolidatedMetadata(store, o),
  FetchStore: (o) => new zarr.FetchStore(nowhere, o),
  storeFromUrl: (o) => zarr.storeFromUrl(nowhere, o),
  locate: (o) => zarr.locate(`${nowhere}data.zip|zip:|zarr3:a`, o),
  FileSystemStore: (o) => new zarr.FileSystemStore(tmp, o),
  FileListStore: (o) => new zarr.FileListStore([], o),
  "ZipStore.open": (o) => zarr.ZipStore.open(store, "/x.zip", o),
  "IcechunkStore.open": (o) => zarr.IcechunkStore.open(`${nowhere}repo`, o),
  "ReferenceStore.fromUrl": (o) => zarr.ReferenceStore.fromUrl(`${nowhere}r.json`, o),
  "ReferenceStore.fromParquet": (o) => zarr.ReferenceStore.fromParquet(`${nowhere}r.parq`, o),
  "ReferenceStore.fromJSON": (o) => zarr.ReferenceStore.fromJSON({ version: 1, refs: {} }, o),
  useWorkers: (o) => zarr.useWorkers(undefined, o),
  init: (o) => zarr.init(undefined, o),
};

/** The error call(o) fails with, thrown or rejected. */
async function failure(run, o) {
  try {
    await run(o);
  } catch (e) {
    return e;
  }
  assert.fail(`accepted ${JSON.stringify(o)}`);
}

test("every call of the options table has a runner here, and every runner a table entry", () => {
  assert.deepEqual(Object.keys(runners).sort(), Object.keys(optionTable).sort());
});

test("every accepted option, misspelt by one letter, is INVALID_ARGUMENT suggesting it", async () => {
  let n = 0;
  for (const [call, options] of Object.entries(optionTable)) {
    for (const name of Object.keys(options)) {
      // one letter doubled, and one left out (the middle one)
      const mid = Math.floor(name.length / 2);
      for (const typo of [name + name.at(-1), name.slice(0, mid) + name.slice(mid + 1)]) {
        const e = await failure(runners[call], { [typo]: 1 });
        assert.ok(e instanceof zarr.ZarrError, `${call} ${typo}: ${e}`);
        assert.equal(e.code, "INVALID_ARGUMENT", `${call} ${typo}: ${e.message}`);
        // (a typo as near to another name of the same option may suggest that one: fill_alue)
        const same = e.suggest === name || createAliases[name] === e.suggest || createAliases[e.suggest] === name;
        assert.ok(same, `${call} ${typo}: suggests ${e.suggest}, not ${name}`);
        assert.equal(e.where, typo);
        assert.ok(e.message.startsWith(`${call}: unknown option ${JSON.stringify(typo)}`) && e.message.includes(`did you mean ${JSON.stringify(e.suggest)}`), e.message);
        n++;
      }
    }
  }
  assert.ok(n > 200, `${n} misspellings`);
});

test("every option given a value of no accepted type is INVALID_ARGUMENT naming it", async () => {
  for (const [call, options] of Object.entries(optionTable)) {
    for (const [name, type] of Object.entries(options)) {
      if (type === "any") continue;
      const e = await failure(runners[call], { [name]: Symbol("wrong") });
      assert.equal(e.code, "INVALID_ARGUMENT", `${call} ${name}: ${e.message}`);
      assert.equal(e.where, name);
      assert.ok(e.message.startsWith(`${call}: option ${JSON.stringify(name)} is `), e.message);
    }
  }
});

test("a name nowhere near an option lists the options; options that are not an object are refused", async () => {
  const e = await failure(runners["ZipStore.open"], { verbose: true });
  assert.equal(e.code, "INVALID_ARGUMENT");
  assert.equal(e.suggest, undefined);
  assert.match(e.message, /ZipStore.open: unknown option "verbose"; the options are "signal"/);
  assert.equal((await failure(runners["ZarrArray.get"], 4)).code, "INVALID_ARGUMENT");
  // out of range: what is expected is named
  for (const [run, o, want] of [
    [runners.FetchStore, { concurrency: 0 }, /FetchStore: option "concurrency" is a whole number ≥ 1, got 0/],
    [runners.FetchStore, { retries: -1 }, /FetchStore: option "retries" is a whole number ≥ 0, got -1/],
    [runners["ZarrArray.get"], { concurrency: 2.5 }, /ZarrArray.get: option "concurrency" is a whole number ≥ 1, got 2.5/],
    [runners.create, { shape: [2], dtype: "int8", zarrFormat: 4 }, /create: option "zarrFormat" is 2 or 3, got 4/],
  ]) {
    const r = await failure(run, o);
    assert.equal(r.code, "INVALID_ARGUMENT");
    assert.match(r.message, want);
  }
  // a word among words: the nearest word
  const k = await failure(runners.open, { kind: "arry" });
  assert.equal(k.suggest, "array");
  assert.match(k.message, /open: option "kind" is "array" or "group", got "arry" \(did you mean "array"\?\)/);
});

test("the issue's examples: nothing is ignored any more", async () => {
  const s = new Map();
  const a = await zarr.create(s, { path: "a", shape: [128, 128], chunks: [32, 32], shards: [64, 64], dtype: "int32" });
  assert.deepEqual([a.shards, a.chunks], [[64, 64], [32, 32]]);
  const v2 = await zarr.create(s, { path: "v2", shape: [4], dtype: "int32", zarr_format: 2, fill_value: 7 });
  assert.deepEqual([v2.zarrFormat, v2.fillValue, (await v2.get()).data[0]], [2, 7, 7]);
  for (const [run, o, near] of [
    [runners.create, { shape: [2], dtyp: "int32" }, "dtype"],
    [runners.create, { shape: [2], dtype: "int32", compresor: null }, "compressor"],
    [runners.open, { kidn: "array" }, "kind"],
    [runners["ZarrArray.get"], { concurency: 4 }, "concurrency"],
    [runners.FetchStore, { headrs: {} }, "headers"],
  ]) {
    const e = await failure(run, o);
    assert.deepEqual([e.code, e.suggest], ["INVALID_ARGUMENT", near], e.message);
  }
});

test("create: two names of one option that disagree are refused; agreeing ones are one", async () => {
  const s = new Map();
  const e = await failure(() => zarr.create(s, { shape: [2], dtype: "int32", fill_value: 7, fillValue: 8 }));
  assert.equal(e.code, "INVALID_ARGUMENT");
  assert.match(e.message, /"fill_value" and "fillValue" name one option and disagree/);
  await assert.rejects(zarr.create(s, { shape: [2], chunkShape: [1], chunks: [2], dtype: "int8" }), { code: "INVALID_ARGUMENT" });
  await assert.rejects(zarr.create(s, { shape: [2], dtype: "int8", zarr_format: 2, zarrFormat: 3 }), { code: "INVALID_ARGUMENT" });
  const ok = await zarr.create(s, { path: "same", shape: [2], dtype: "int8", fill_value: 3, fillValue: 3 });
  assert.equal(ok.fillValue, 3);
  // options of arrays without shape and dtype (which make a group) are an error, not a group
  await assert.rejects(zarr.create(s, { path: "g", chunks: [2] }), { code: "INVALID_ARGUMENT" });
});

/** The documents create writes for options o, key by key (bytes as text). */
async function documents(o) {
  const s = new Map();
  await zarr.create(s, { path: "x", ...o });
  return Object.fromEntries([...s].map(([k, v]) => [k, new TextDecoder().decode(v)]).sort());
}

// [zarr-python 3 or zarrita.js spelling, the package's own]
const zstd = { name: "zstd", configuration: { level: 3, checksum: false } };
const spellings = [
  [{ shards: [4, 4] }, { shardShape: [4, 4] }],
  [{ fill_value: 7 }, { fillValue: 7 }],
  [{ zarr_format: 2 }, { zarrFormat: 2 }],
  [{ dimension_names: ["y", "x"] }, { dimensionNames: ["y", "x"] }],
  [{ zarr_format: 2, dimension_names: ["y", "x"] }, { zarrFormat: 2, dimensionNames: ["y", "x"] }],
  [{ chunk_key_encoding: { name: "default", separator: "." } }, { dimensionSeparator: "." }],
  [{ chunk_key_encoding: { name: "default" } }, {}],
  [{ zarr_format: 2, chunk_key_encoding: { name: "v2", separator: "/" } }, { zarrFormat: 2, dimensionSeparator: "/" }],
  [{ compressors: [zstd] }, { codecs: [{ name: "bytes", configuration: { endian: "little" } }, zstd] }],
  [{ compressors: zstd }, { codecs: [{ name: "bytes", configuration: { endian: "little" } }, zstd] }],
  [{ compressors: null }, { codecs: [{ name: "bytes", configuration: { endian: "little" } }] }],
  [{ compressors: "auto", serializer: "auto", filters: "auto" }, {}],
  [{ serializer: { name: "bytes", configuration: { endian: "big" } }, compressors: [] }, { codecs: [{ name: "bytes", configuration: { endian: "big" } }] }],
  [{ zarr_format: 2, compressors: [{ id: "zlib", level: 1 }] }, { zarrFormat: 2, compressor: { id: "zlib", level: 1 } }],
  [{ zarr_format: 2, compressors: null }, { zarrFormat: 2, compressor: null }],
  [{ chunkShape: [2, 2] }, { chunks: [2, 2] }],
  [{ chunkSeparator: "." }, { dimensionSeparator: "." }],
  [{ dataType: "int16" }, { dtype: "int16" }],
];

test("create: each zarr-python 3 and zarrita.js spelling writes byte for byte the documents of the package's names", async () => {
  const base = { shape: [8, 8], chunks: [2, 2], dtype: "int32", attributes: { a: 1 } };
  const seen = new Set();
  for (const [theirs, ours] of spellings) {
    for (const k of Object.keys(theirs)) seen.add(k);
    const opts = (o) => (o.dataType ? { ...base, dtype: undefined, ...o } : { ...base, ...o });
    assert.deepEqual(await documents(opts(theirs)), await documents(opts(ours)), JSON.stringify(theirs));
  }
  for (const alias of Object.keys(createAliases)) assert.ok(seen.has(alias), `alias ${alias} tested`);
});

function python(script, dir) {
  try {
    execFileSync("/usr/bin/python3", ["-c", "import zarr"], { stdio: "ignore" });
  } catch {
    return null;
  }
  return JSON.parse(execFileSync("/usr/bin/python3", ["-c", script, dir], { encoding: "utf8" }));
}

test("arrays created with zarr-python 3's spellings: zarr-python 2.13 reads the v2 ones, zarrita.js the v3 ones", async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-spellings-"));
  const fs3 = new zarr.FileSystemStore(dir);
  const values = Int32Array.from({ length: 36 }, (_, i) => i * 7 - 50);
  const v2 = {
    zlib: { compressors: [{ id: "zlib", level: 1 }] },
    none: { compressors: null, fill_value: -1 },
    slash: { chunk_key_encoding: { name: "v2", separator: "/" }, order: "F" },
  };
  const v3 = {
    shards: { shards: [6, 6], compressors: [{ name: "gzip", configuration: { level: 1 } }] },
    keys: { chunk_key_encoding: { name: "default", separator: "." }, dimension_names: ["y", "x"], fill_value: 5 },
    parts: { serializer: { name: "bytes", configuration: { endian: "big" } }, compressors: [] },
  };
  for (const [name, o] of Object.entries(v2)) {
    const a = await zarr.create(fs3, { path: `v2/${name}`, shape: [6, 6], chunks: [4, 3], dtype: "int32", zarr_format: 2, ...o });
    await a.set(null, { data: values, shape: [6, 6] });
  }
  for (const [name, o] of Object.entries(v3)) {
    const a = await zarr.create(fs3, { path: `v3/${name}`, shape: [6, 6], chunks: [3, 3], dtype: "int32", zarr_format: 3, ...o });
    await a.set(null, { data: values, shape: [6, 6] });
  }
  for (const name of Object.keys(v3)) {
    const got = await zarrita.get(await zarrita.open(zarrita.root(new ZarritaFileSystemStore(dir)).resolve(`v3/${name}`), { kind: "array" }));
    assert.deepEqual(Array.from(got.data), Array.from(values), `zarrita.js reads v3/${name}`);
  }
  const got = python(
    `
import json, sys, zarr
d = sys.argv[1]
out = {}
for name in ["zlib", "none", "slash"]:
    a = zarr.open_array(d + "/v2/" + name, mode="r")
    out[name] = {"values": [int(x) for x in a[...].ravel()], "fill": int(a.fill_value) if a.fill_value is not None else None, "compressor": a.compressor.get_config() if a.compressor else None}
print(json.dumps(out))`,
    dir,
  );
  if (got === null) {
    if (peersRequired) assert.fail("python3 with zarr is missing");
    t.skip("no python3 zarr");
    return;
  }
  for (const name of Object.keys(v2)) assert.deepEqual(got[name].values, Array.from(values), `zarr-python reads v2/${name}`);
  assert.deepEqual(got.zlib.compressor, { id: "zlib", level: 1 });
  assert.equal(got.none.compressor, null);
  assert.equal(got.none.fill, -1);
  await fs.rm(dir, { recursive: true, force: true });
});
