// Differential test: the same arrays read by zarr-wasm and by zarrita.js
// (npm), values compared element by element. Stores: zarrita.js's own
// fixtures (tests/testdata/zarrita: v2 and v3, written by
// zarr-python) and the project's fixtures (tests/fixtures/v2, v3). Arrays
// zarrita.js cannot read are skipped with its error; an array zarr-wasm
// cannot read is a failure unless the engine says UNSUPPORTED (skipped,
// with the reason). Where the two disagree on a project fixture, the
// writer's recorded values (cases.json: zarr-python 2, or the v3 spec
// generator) decide: zarr-wasm must match them, and the divergence of
// zarrita.js is reported. On zarrita's own fixtures any difference fails. zarr-wasm also reads the peer fixtures through
// zarrita's own stores (@zarrita/storage FileSystemStore and FetchStore).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { zarrita, ZarritaFileSystemStore, ZarritaFetchStore } from "../../npm/dev/deps.mjs";
import { repoRoot, testData, startServer, loadCases, compareCase } from "./helpers.mjs";

/** Every array below root: [{path, format}]. */
async function findArrays(root, rel = "") {
  const out = [];
  const dir = path.join(root, rel);
  const names = await fs.readdir(dir, { withFileTypes: true });
  const has = (n) => names.some((e) => e.name === n && e.isFile());
  if (has(".zarray")) return [{ path: rel, format: 2 }];
  if (has("zarr.json")) {
    const meta = JSON.parse(await fs.readFile(path.join(dir, "zarr.json"), "utf8"));
    if (meta.node_type === "array") return [{ path: rel, format: 3 }];
  }
  for (const e of names) {
    if (e.isDirectory()) out.push(...(await findArrays(root, rel ? `${rel}/${e.name}` : e.name)));
  }
  return out;
}

/** zarrita's result as C-order plain values (a 0-d read gives a scalar). */
function zarritaValues(chunk) {
  if (chunk === null || typeof chunk !== "object" || !("stride" in chunk)) return [chunk];
  const { data, shape, stride } = chunk;
  const n = shape.reduce((a, b) => a * b, 1);
  const at = typeof data.get === "function" && !ArrayBuffer.isView(data) ? (i) => data.get(i) : (i) => data[i];
  const out = new Array(n);
  const idx = new Array(shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    let off = 0;
    for (let d = 0; d < shape.length; d++) off += idx[d] * stride[d];
    out[k] = at(off);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

function same(a, b) {
  if (typeof a === "boolean" || typeof b === "boolean") return Number(a) === Number(b);
  if (typeof a === "number" && typeof b === "number") return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
  if (typeof a === "bigint" || typeof b === "bigint") return BigInt(a) === BigInt(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a && b && typeof a === "object") return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

/** The first difference between zarr-wasm's and zarrita's results, or null. */
function difference(ours, theirs) {
  const theirShape = theirs !== null && typeof theirs === "object" && "shape" in theirs ? theirs.shape : [];
  if (JSON.stringify(ours.shape) !== JSON.stringify(theirShape)) return `shape ${ours.shape} vs ${theirShape}`;
  const want = zarritaValues(theirs);
  const have = ours.data;
  if (have.length !== want.length) return `${have.length} elements vs ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (!same(have[i], want[i])) return `element ${i}: zarr-wasm ${show(have[i])}, zarrita ${show(want[i])}`;
  }
  return null;
}

function canonical(v) {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  }
  return v;
}

function show(v) {
  try {
    return JSON.stringify(v, (k, x) => (typeof x === "bigint" ? `${x}n` : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

async function readZarrita(root, p) {
  const store = new ZarritaFileSystemStore(root);
  const loc = p ? zarrita.root(store).resolve(p) : zarrita.root(store);
  const arr = await zarrita.open(loc, { kind: "array" });
  return { arr, chunk: await zarrita.get(arr, null) };
}

const sources = [];
const peerRoot = path.join(testData, "zarrita");
for (const v of ["v2", "v3"]) sources.push({ name: `zarrita ${v} fixtures`, root: path.join(peerRoot, v, "data.zarr"), peer: true });
// The writers' recorded values of the project's fixtures, by store and path.
const recorded = new Map();
for (const v of ["v2", "v3"]) {
  const dir = path.join(repoRoot, "tests", "fixtures", v);
  const data = path.join(dir, "data");
  for (const c of await loadCases(path.join(dir, "cases.json"))) {
    if (c.selection === "") recorded.set(path.join(data, c.store, c.path), c);
  }
  for (const e of await fs.readdir(data, { withFileTypes: true })) {
    // errors.zarr holds the malformed stores of error_cases.json (checked in fixtures.test.mjs).
    if (e.isDirectory() && e.name !== "errors.zarr") {
      sources.push({ name: `project ${v} fixtures: ${e.name}`, root: path.join(data, e.name) });
    }
  }
}

let compared = 0;
let zarritaCannot = 0;
const divergences = [];

for (const src of sources) {
  const arrays = await findArrays(src.root);
  describe(`${src.name} (${arrays.length} arrays)`, () => {
    for (const a of arrays) {
      test(a.path || "(root)", async (t) => {
        let theirs;
        try {
          theirs = await readZarrita(src.root, a.path);
        } catch (e) {
          zarritaCannot++;
          t.skip(`zarrita.js cannot read it: ${e.message.split("\n")[0]}`);
          return;
        }
        let arr;
        let ours;
        try {
          arr = await zarr.open(new FileSystemStore(src.root), { path: a.path, kind: "array" });
          ours = await arr.get();
        } catch (e) {
          if (e.code === "UNSUPPORTED") {
            t.skip(`zarr-wasm reports UNSUPPORTED: ${e.message}`);
            return;
          }
          throw e;
        }
        assert.equal(arr.zarrFormat, a.format);
        assert.deepEqual(arr.shape, theirs.arr.shape);
        // The same description: chunks (a sharded array's inner chunks),
        // dimension names (v3 dimension_names, v2 _ARRAY_DIMENSIONS) and the
        // data type's name; the one difference by design is a v2 object
        // array of vlen-utf8 strings, "string" here ("v2:object" there).
        assert.deepEqual(arr.chunks, theirs.arr.chunks, "chunks");
        assert.deepEqual(arr.dimensionNames ?? null, theirs.arr.dimensionNames ?? null, "dimensionNames");
        const theirDtype = theirs.arr.dtype === "v2:object" && arr.dtype === "string" && arr.codecs.some((c) => c.name.endsWith("vlen-utf8")) ? "string" : theirs.arr.dtype;
        assert.equal(arr.dtype, theirDtype, "dtype");
        compared++;
        const diff = difference(ours, theirs.chunk);
        if (diff === null) {
          // zarr-wasm keeps integers beyond 2^53 exact (BigInt); zarrita's
          // JSON.parse rounds them: compare as Numbers, keys in any order.
          assert.deepEqual(canonical(arr.attrs), canonical(theirs.arr.attrs ?? {}), "attributes");
          return;
        }
        const c = src.peer ? undefined : recorded.get(path.join(src.root, a.path));
        if (!c) assert.fail(diff);
        const truth = compareCase(c, ours);
        assert.equal(truth, null, `zarr-wasm differs from zarrita.js (${diff}) and from the writer's values (${truth})`);
        divergences.push(`${path.basename(src.root)}/${a.path}: ${diff}`);
        t.diagnostic(`zarrita.js diverges; zarr-wasm matches the writer's values: ${diff}`);
      });
    }
  });
}

describe("differential coverage", () => {
  test("arrays compared", (t) => {
    t.diagnostic(`${compared} arrays compared with zarrita.js; ${zarritaCannot} arrays zarrita.js cannot read; ${divergences.length} where zarrita.js diverges from the writer's values (zarr-wasm agrees with the writer)`);
    for (const d of divergences) t.diagnostic(`  ${d}`);
    assert.ok(compared >= 60, `only ${compared} arrays compared`);
  });
});

// zarrita.js stores used as zarr-wasm stores.
for (const v of ["v2", "v3"]) {
  const root = path.join(peerRoot, v, "data.zarr");
  const arrays = await findArrays(root);
  describe(`zarr-wasm reads the zarrita ${v} fixtures through @zarrita/storage stores`, () => {
    let server;
    before(async () => {
      server = await startServer(root);
    });
    after(async () => {
      await server.close();
    });
    for (const a of arrays) {
      test(a.path, async (t) => {
        let want;
        try {
          want = await (await zarr.open(new FileSystemStore(root), { path: a.path })).get();
        } catch (e) {
          if (e.code === "UNSUPPORTED") return t.skip(`zarr-wasm reports UNSUPPORTED: ${e.message}`);
          throw e;
        }
        for (const store of [new ZarritaFileSystemStore(root), new ZarritaFetchStore(server.url)]) {
          const got = await (await zarr.open(store, { path: a.path, kind: "array" })).get();
          assert.deepEqual(got.shape, want.shape);
          assert.equal(got.data.length, want.data.length);
          for (let i = 0; i < want.data.length; i++) {
            if (!same(got.data[i], want.data[i])) assert.fail(`${store.constructor.name}: element ${i} differs`);
          }
        }
      });
    }
    test("ranged reads went through zarrita's getRange", () => {
      if (v === "v3") assert.ok(server.stats.rangeRequests > 0, "sharded arrays read byte ranges");
    });
  });
}
