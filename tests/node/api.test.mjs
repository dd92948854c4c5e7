// The JS API over the .wasm: data type mapping both ways, selections,
// writes, hierarchy, attributes, errors, abort, and the one-copy result.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { gate, until } from "./helpers.mjs";

async function roundTrip(dtype, value, options = {}) {
  const store = new zarr.MemoryStore();
  const n = Array.isArray(value) ? value.length : value.length / (options.items ?? 1);
  const arr = await zarr.create(store, { path: "a", shape: [n], chunks: [3], dtype, zarrFormat: options.zarrFormat ?? 2, ...options.create });
  await arr.set(null, value);
  const again = await zarr.open(store, { path: "a", kind: "array" });
  return { arr: again, res: await again.get() };
}

describe("data type mapping", () => {
  const numeric = [
    ["|b1", "bool", Uint8Array, [1, 0, 1, 1, 0]],
    ["|i1", "int8", Int8Array, [-128, 0, 127, 5, -3]],
    ["|u1", "uint8", Uint8Array, [0, 255, 7, 8, 9]],
    ["<i2", "int16", Int16Array, [-32768, 32767, 0, 1, -1]],
    [">i2", "int16", Int16Array, [-32768, 32767, 0, 1, -1]],
    ["<u2", "uint16", Uint16Array, [0, 65535, 1, 2, 3]],
    ["<i4", "int32", Int32Array, [-(2 ** 31), 2 ** 31 - 1, 0, 1, -1]],
    [">u4", "uint32", Uint32Array, [0, 2 ** 32 - 1, 1, 2, 3]],
    ["<f4", "float32", Float32Array, [1.5, -0, NaN, Infinity, -3.25]],
    [">f8", "float64", Float64Array, [1e300, -0, NaN, -Infinity, Math.PI]],
    ["<i8", "int64", BigInt64Array, [-(2n ** 63n), 2n ** 63n - 1n, 0n, 1n, -1n]],
    [">u8", "uint64", BigUint64Array, [0n, 2n ** 64n - 1n, 1n, 2n, 3n]],
    ["<M8[ns]", "datetime64[ns]", BigInt64Array, [-(2n ** 63n), 0n, 1_700_000_000_000_000_000n, 5n, -5n]],
    ["<m8[s]", "timedelta64[s]", BigInt64Array, [1n, 2n, 3n, -4n, 0n]],
  ];
  for (const [dtype, name, Ctor, values] of numeric) {
    test(`${dtype} ↔ ${Ctor.name}`, async () => {
      const { arr, res } = await roundTrip(dtype, Ctor.from(values));
      assert.equal(arr.dtype, name); // one vocabulary for every format
      assert.equal(arr.dataType.stored, dtype); // the typestr as stored
      assert.equal(arr.metadata.dtype, dtype);
      assert.ok(res.data instanceof Ctor, `got ${res.data.constructor.name}`);
      assert.deepEqual([...res.data], values);
      assert.deepEqual(res.shape, [5]);
      assert.deepEqual(res.stride, [1]);
    });
  }
  test("float16 ↔ Float32Array (converted in Go, exact)", async () => {
    const values = [0, -0, 1, 65504, -65504, 6.103515625e-5, 5.960464477539063e-8, Infinity, NaN, 0.333251953125];
    const { res } = await roundTrip("<f2", Float32Array.from(values));
    assert.ok(res.data instanceof Float32Array);
    values.forEach((v, i) => assert.ok(Object.is(res.data[i], v) || (Number.isNaN(v) && Number.isNaN(res.data[i])), `${i}: ${res.data[i]} vs ${v}`));
  });
  test("float16 rounds to nearest even", async () => {
    const { res } = await roundTrip("<f2", Float32Array.from([1 + 2 ** -11, 1 + 3 * 2 ** -11, 70000, 1e-9]));
    assert.deepEqual([...res.data], [1, 1 + 2 ** -9, Infinity, 0]);
  });
  test("complex64 ↔ interleaved Float32Array", async () => {
    const { res } = await roundTrip("<c8", Float32Array.from([1, 2, -3, 4.5, NaN, Infinity]), { items: 2 });
    assert.ok(res.data instanceof Float32Array);
    assert.deepEqual(res.shape, [3]);
    assert.deepEqual([...res.data], [1, 2, -3, 4.5, NaN, Infinity]);
  });
  test("complex128 from [re, im] pairs", async () => {
    const store = new zarr.MemoryStore();
    const arr = await zarr.create(store, { shape: [2], chunks: [2], dtype: ">c16" });
    await arr.set(null, [[1, -1], { re: 2, im: 3 }]);
    const res = await arr.get();
    assert.ok(res.data instanceof Float64Array);
    assert.deepEqual([...res.data], [1, -1, 2, 3]);
  });
  test("S ↔ string[] (Latin-1)", async () => {
    const { res } = await roundTrip("|S5", ["abc", "", "hello", "é\u00ff", "a\u0000b"]);
    assert.deepEqual(res.data, ["abc", "", "hello", "é\u00ff", "a\u0000b"]);
  });
  test("U ↔ string[]", async () => {
    const { res } = await roundTrip("<U4", ["abcd", "", "🙂x", "日本"]);
    assert.deepEqual(res.data, ["abcd", "", "🙂x", "日本"]);
  });
  test("V ↔ Uint8Array[]", async () => {
    const { res } = await roundTrip("|V3", [Uint8Array.of(1, 2, 3), Uint8Array.of(0, 0, 0), Uint8Array.of(255, 254, 253)]);
    assert.deepEqual(res.data.map((b) => [...b]), [[1, 2, 3], [0, 0, 0], [255, 254, 253]]);
  });
  test("object vlen-utf8 ↔ string[]", async () => {
    const { res } = await roundTrip("|O", ["a", "", "ünïcødé", "x".repeat(1000)], { create: { filters: [{ id: "vlen-utf8" }] } });
    assert.deepEqual(res.data, ["a", "", "ünïcødé", "x".repeat(1000)]);
  });
  test("object vlen-bytes ↔ Uint8Array[]", async () => {
    const { res } = await roundTrip("|O", [Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(9, 8, 7)], { create: { filters: [{ id: "vlen-bytes" }] } });
    assert.deepEqual(res.data.map((b) => [...b]), [[1], [], [9, 8, 7]]);
  });
  test("object json2 ↔ JSON values (big integers as BigInt)", async () => {
    const values = [1, "two", [3, 4], { five: 6 }, null, 2n ** 60n];
    const { res } = await roundTrip("|O", values, { create: { filters: [{ id: "json2" }] } });
    assert.deepEqual(res.data, [1, "two", [3, 4], { five: 6 }, null, 2n ** 60n]);
  });
  test("structured → object of arrays by field, nested structs nest", async () => {
    const dtype = [["a", "<i4"], ["b", [["c", "<f8"], ["d", "|u1", [2]]]], ["e", "<f4", [2, 3]], ["s", "|S2"]];
    const store = new zarr.MemoryStore();
    const arr = await zarr.create(store, { shape: [2], chunks: [2], dtype, zarrFormat: 2 });
    assert.deepEqual(arr.dtype, {
      name: "struct",
      fields: [
        { name: "a", dtype: "int32" },
        { name: "b", dtype: { name: "struct", fields: [{ name: "c", dtype: "float64" }, { name: "d", dtype: "uint8", shape: [2] }] } },
        { name: "e", dtype: "float32", shape: [2, 3] },
        { name: "s", dtype: "v2:S2" },
      ],
    });
    assert.deepEqual(arr.dataType.stored, dtype);
    const value = {
      a: Int32Array.of(1, -2),
      b: { c: Float64Array.of(0.5, 1.5), d: Uint8Array.of(1, 2, 3, 4) },
      e: Float32Array.from({ length: 12 }, (_, i) => i),
      s: ["ab", "c"],
    };
    await arr.set(null, value);
    const res = await arr.get();
    assert.deepEqual([...res.data.a], [1, -2]);
    assert.deepEqual([...res.data.b.c], [0.5, 1.5]);
    assert.deepEqual([...res.data.b.d], [1, 2, 3, 4]);
    assert.deepEqual([...res.data.e], [...value.e]);
    assert.deepEqual(res.data.s, ["ab", "c"]);
    assert.ok(res.data.a instanceof Int32Array && res.data.e instanceof Float32Array);
    // a record broadcast as a scalar
    await arr.set([1], { a: 7, b: { c: 2, d: [5, 6] }, e: [0, 0, 0, 0, 0, 1], s: "z" });
    const r1 = await arr.get([1]);
    assert.deepEqual(r1.shape, []);
    assert.deepEqual([...r1.data.b.d], [5, 6]);
    assert.deepEqual(r1.data.s, ["z"]);
  });
  test("v3 types: bfloat16, float8, int4, string, bytes, fixed_length_utf32, datetime64", async () => {
    const rt = async (dtype, value, extra = {}) => {
      const store = new zarr.MemoryStore();
      const n = Array.isArray(value) ? value.length : value.length / (extra.items ?? 1);
      const a = await zarr.create(store, { shape: [n], chunks: [2], dtype, zarrFormat: 3, ...extra.create });
      await a.set(null, value);
      return (await zarr.open(store, { kind: "array" })).get();
    };
    let r = await rt("bfloat16", Float32Array.of(1, -2.5, 3.140625, Infinity, NaN));
    assert.ok(r.data instanceof Float32Array);
    assert.deepEqual([...r.data], [1, -2.5, 3.140625, Infinity, NaN]);
    r = await rt("float8_e4m3fn", Float32Array.of(0.5, -448, 1.125, 3.3));
    assert.deepEqual([...r.data], [0.5, -448, 1.125, 3.25]);
    r = await rt("int4", Int8Array.of(-8, 7, 0, -1));
    assert.ok(r.data instanceof Int8Array);
    assert.deepEqual([...r.data], [-8, 7, 0, -1]);
    r = await rt("string", ["a", "", "日本語"]);
    assert.deepEqual(r.data, ["a", "", "日本語"]);
    r = await rt("bytes", [Uint8Array.of(1, 2), new Uint8Array(0)]);
    assert.deepEqual(r.data.map((b) => [...b]), [[1, 2], []]);
    r = await rt({ name: "fixed_length_utf32", configuration: { length_bytes: 12 } }, ["abc", "ü"]);
    assert.deepEqual(r.data, ["abc", "ü"]);
    r = await rt({ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, BigInt64Array.of(0n, 1700000000n));
    assert.ok(r.data instanceof BigInt64Array);
    assert.deepEqual([...r.data], [0n, 1700000000n]);
    r = await rt("complex128", Float64Array.of(1, 2, 3, 4), { items: 2 });
    assert.deepEqual([...r.data], [1, 2, 3, 4]);
  });
  test("long lists of strings and bytes cross in bulk, exactly", async () => {
    const tricky = ["\ufeffbom first", "", "🙂 pair", "日本語", "a\u0000b", "\u00e9", "x".repeat(300), "\ud83d lone high", "lone low \udc00"];
    const strings = Array.from({ length: 200 }, (_, i) => tricky[i % tricky.length] + (i % 3 ? String(i) : ""));
    // Lone surrogates cannot be stored as UTF-8; they come back as U+FFFD.
    const expected = strings.map((s) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"));
    for (const [dtype, fmt] of [["string", 3], ["|O", 2]]) {
      const store = new zarr.MemoryStore();
      const a = await zarr.create(store, { shape: [200], chunks: [64], dtype, zarrFormat: fmt, ...(fmt === 2 ? { filters: [{ id: "vlen-utf8" }] } : {}) });
      await a.set(null, strings);
      assert.deepEqual((await a.get()).data, expected, dtype);
      assert.deepEqual((await a.get("150:")).data, expected.slice(150), dtype);
    }
    const u = await zarr.create(new zarr.MemoryStore(), { shape: [200], chunks: [64], dtype: "<U40", zarrFormat: 2 });
    const short = strings.map((s) => s.slice(0, 20));
    await u.set(null, short);
    assert.deepEqual((await u.get()).data, short.map((s) => s.replace(/[\ud800-\udfff](?![\udc00-\udfff])/g, (c, i, w) => (/[\udc00-\udfff]/.test(c) && /[\ud800-\udbff]/.test(w[i - 1] ?? "") ? c : "\ufffd")).replace(/\u0000+$/, "")));
    const blobs = Array.from({ length: 100 }, (_, i) => Uint8Array.from({ length: i % 7 }, (_, k) => (i * 31 + k) & 255));
    const b = await zarr.create(new zarr.MemoryStore(), { shape: [100], chunks: [30], dtype: "bytes" });
    await b.set(null, blobs);
    assert.deepEqual((await b.get()).data.map((x) => [...x]), blobs.map((x) => [...x]));
    const v = await zarr.create(new zarr.MemoryStore(), { shape: [100], chunks: [30], dtype: "|V2", zarrFormat: 2 });
    const pairs = Array.from({ length: 100 }, (_, i) => Uint8Array.of(i, 255 - i));
    await v.set(null, pairs);
    assert.deepEqual((await v.get()).data.map((x) => [...x]), pairs.map((x) => [...x]));
    await assert.rejects(b.set(null, strings.slice(0, 100)), (e) => e.code === "INVALID_ARGUMENT");
  });
  test("fill values come back typed", async () => {
    const s = new zarr.MemoryStore();
    assert.equal((await zarr.create(s, { zarrFormat: 2, path: "f", shape: [2], dtype: "<f8", fillValue: NaN })).fillValue, NaN);
    assert.equal((await zarr.create(s, { zarrFormat: 2, path: "g", shape: [2], dtype: "<i8", fillValue: 2n ** 62n })).fillValue, 2n ** 62n);
    assert.equal((await zarr.create(s, { zarrFormat: 2, path: "h", shape: [2], dtype: "<f4", fillValue: -Infinity })).fillValue, -Infinity);
    assert.equal((await zarr.create(s, { zarrFormat: 2, path: "i", shape: [2], dtype: "<f4", fillValue: null })).fillValue, null);
    assert.equal((await zarr.create(s, { zarrFormat: 2, path: "j", shape: [2], dtype: "|b1", fillValue: true })).fillValue, true);
    assert.equal((await zarr.create(s, { zarrFormat: 2, path: "k", shape: [2], dtype: "<U3", fillValue: "n/a" })).fillValue, "n/a");
    const nan = await (await zarr.open(s, { path: "f" })).get();
    assert.ok(nan.data.every(Number.isNaN));
    assert.deepEqual([...(await (await zarr.open(s, { path: "g" })).get()).data], [2n ** 62n, 2n ** 62n]);
  });
  test("results are fresh TypedArrays (one copy out of wasm memory)", async () => {
    const { res } = await roundTrip("<f8", Float64Array.of(1, 2, 3, 4, 5));
    assert.equal(res.data.buffer.byteLength, res.data.byteLength);
    assert.equal(res.data.byteOffset, 0);
  });
});

describe("selections", () => {
  let arr;
  const N = 12;
  const M = 10;
  test("setup", async () => {
    const store = new zarr.MemoryStore();
    arr = await zarr.create(store, { path: "m", shape: [N, M], chunks: [5, 3], dtype: "<i4" });
    await arr.set(null, { data: Int32Array.from({ length: N * M }, (_, i) => i), shape: [N, M] });
  });
  const at = (i, j) => i * M + j;
  test("everything: null, undefined, \"\", \"...\"", async () => {
    for (const sel of [null, undefined, "", "...", [null, null], [zarr.slice(null), null]]) {
      const r = await arr.get(sel);
      assert.deepEqual(r.shape, [N, M]);
      assert.deepEqual(r.stride, [M, 1]);
      assert.equal(r.data[at(11, 9)], at(11, 9));
    }
  });
  test("slices and integers", async () => {
    const r = await arr.get([zarr.slice(2, 9, 3), 4]);
    assert.deepEqual(r.shape, [3]);
    assert.deepEqual([...r.data], [at(2, 4), at(5, 4), at(8, 4)]);
    const s = await arr.get("2:9:3, 4");
    assert.deepEqual([...s.data], [...r.data]);
    const t = await arr.get([-1, zarr.slice(-3)]);
    assert.deepEqual([...t.data], [110, 111, 112, 113, 114, 115, 116]);
    const u = await arr.get([-1, zarr.slice(-3, null)]);
    assert.deepEqual([...u.data], [at(11, 7), at(11, 8), at(11, 9)]);
  });
  test("zarr.slice(stop) and zarr.slice(start, stop, step)", () => {
    // zarrita's shape: {start, stop, step}, bigints as numbers when exact
    assert.deepEqual({ ...zarr.slice(4) }, { start: null, stop: 4, step: null });
    assert.deepEqual({ ...zarr.slice(1, 4, 2) }, { start: 1, stop: 4, step: 2 });
    assert.deepEqual({ ...zarr.slice(10n, 15n) }, { start: 10, stop: 15, step: null });
    assert.throws(() => zarr.slice(2n ** 53n), (e) => e.code === "SELECTION");
  });
  test("strided [::4, ::3]", async () => {
    const r = await arr.get([zarr.slice(null, null, 4), zarr.slice(null, null, 3)]);
    assert.deepEqual(r.shape, [3, 4]);
    const want = [];
    for (let i = 0; i < N; i += 4) for (let j = 0; j < M; j += 3) want.push(at(i, j));
    assert.deepEqual([...r.data], want);
  });
  test("scalar point: shape []", async () => {
    const r = await arr.get([3, 7]);
    assert.deepEqual(r.shape, []);
    assert.deepEqual(r.stride, []);
    assert.deepEqual([...r.data], [at(3, 7)]);
  });
  test("trailing dimensions may be left out", async () => {
    const r = await arr.get([3]);
    assert.deepEqual(r.shape, [M]);
    const e = await arr.get(["...", 2]);
    assert.deepEqual(e.shape, [N]);
  });
  test("errors are SELECTION", async () => {
    for (const sel of [[N, 0], [0, 0, 0], "1:2:0", "a", [zarr.slice(null, null, -1)], [1.5], [{}]]) {
      await assert.rejects(arr.get(sel), (e) => e instanceof zarr.ZarrError && e.code === "SELECTION", JSON.stringify(sel));
    }
  });
  test("set: scalar broadcast, TypedArray in C order, {data, shape}", async () => {
    await arr.set([zarr.slice(0, 2), zarr.slice(0, 2)], 42);
    assert.deepEqual([...(await arr.get("0:2, 0:2")).data], [42, 42, 42, 42]);
    await arr.set("10:12, 8:10", Int32Array.of(1, 2, 3, 4));
    assert.deepEqual([...(await arr.get("10:12, 8:10")).data], [1, 2, 3, 4]);
    await arr.set([5, zarr.slice(null)], { data: new Int32Array(M).fill(-1), shape: [M] });
    assert.deepEqual([...(await arr.get([5])).data], new Array(M).fill(-1));
    await arr.set([6], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]); // plain array, converted
    assert.deepEqual([...(await arr.get([6])).data], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await assert.rejects(arr.set([7], Int32Array.of(1, 2)), (e) => e.code === "SELECTION");
    await assert.rejects(arr.set([7], "text"), (e) => e.code === "INVALID_ARGUMENT");
  });
});

describe("hierarchy, attributes, resize", () => {
  test("groups, children, nested paths, attributes", async () => {
    const store = new zarr.MemoryStore();
    const root = await zarr.createGroup(store, { attributes: { title: "t" } });
    assert.equal(root.kind, "group");
    await zarr.create(store, { path: "g/a", shape: [4], chunks: [2], dtype: "<u2", attributes: { units: "K", nan: NaN, big: 2n ** 60n } });
    await zarr.create(store, { path: "/g/b/", shape: [1], dtype: "|b1" });
    await zarr.createGroup(store, { path: "h" });
    const kids = await root.children();
    assert.deepEqual(kids.map((k) => [k.name, k.path, k.kind]), [["g", "g", "group"], ["h", "h", "group"]]);
    const g = kids[0].node;
    const gk = await g.children();
    assert.deepEqual(gk.map((k) => [k.name, k.path, k.kind]), [["a", "g/a", "array"], ["b", "g/b", "array"]]);
    const a = gk[0].node;
    assert.equal(a.attrs.units, "K");
    assert.ok(Number.isNaN(a.attrs.nan));
    assert.equal(a.attrs.big, 2n ** 60n);
    await a.updateAttrs({ more: [1, 2] });
    const a2 = await g.open("a", { kind: "array" });
    assert.deepEqual(a2.attrs.more, [1, 2]);
    assert.equal(a2.attrs.units, "K");
    await a2.setAttrs({ only: true });
    assert.deepEqual((await zarr.open(store, { path: "g/a" })).attrs, { only: true });
    assert.equal(new TextDecoder().decode(store.get("/zarr.json")).includes("title"), true);
  });
  test("resize keeps data and deletes chunks outside", async () => {
    const store = new zarr.MemoryStore();
    const a = await zarr.create(store, { shape: [10], chunks: [3], dtype: "<i2" });
    await a.set(null, Int16Array.from({ length: 10 }, (_, i) => i + 1));
    await a.resize([4]);
    assert.deepEqual(a.shape, [4]);
    assert.deepEqual([...(await a.get()).data], [1, 2, 3, 4]);
    assert.equal(store.has("/3"), false);
    await a.resize([7]);
    assert.deepEqual([...(await a.get()).data], [1, 2, 3, 4, 5, 6, 0]);
  });
  test("any object with get/set/delete/list is a store; a Map works too", async () => {
    const map = new Map();
    const a = await zarr.create(map, { path: "x", shape: [3], dtype: "<f4" });
    await a.set(null, 2.5);
    assert.ok(map.has("/x/zarr.json") && map.has("/x/c/0"), [...map.keys()].join());
    const b = await zarr.open(map, { path: "x" });
    assert.deepEqual([...(await b.get()).data], [2.5, 2.5, 2.5]);
    const g = await zarr.open(map, { kind: "group" });
    await assert.rejects(g.children(), (e) => e.code === "UNSUPPORTED");
  });
});

describe("chunks", () => {
  test("getChunk, chunkKey and decodeChunk (the pure step)", async () => {
    const store = new zarr.MemoryStore();
    const a = await zarr.create(store, { shape: [5, 4], chunks: [2, 3], dtype: "int16", fillValue: -1 });
    await a.set("0:2, 0:3", Int16Array.of(1, 2, 3, 4, 5, 6));
    assert.equal(await a.chunkKey([0, 0]), "/c/0/0");
    const c = await a.getChunk([0, 0]);
    assert.deepEqual(c.shape, [2, 3]);
    assert.deepEqual([...c.data], [1, 2, 3, 4, 5, 6]);
    const empty = await a.getChunk([2, 1]);
    assert.deepEqual([...empty.data], [-1, -1, -1, -1, -1, -1]);
    const d = await a.decodeChunk([0, 0], store.get("/c/0/0"));
    assert.deepEqual([...d.data], [1, 2, 3, 4, 5, 6]);
    await assert.rejects(a.getChunk([3, 0]), (e) => e.code === "SELECTION");
    await assert.rejects(a.decodeChunk([0, 0], Uint8Array.of(1, 2)), (e) => e.code === "CODEC");
  });
});

describe("errors", () => {
  test("NOT_FOUND names the path and suggests a near name", async () => {
    const store = new zarr.MemoryStore();
    await zarr.create(store, { path: "temperature", shape: [1], dtype: "<f4" });
    await assert.rejects(zarr.open(store, { path: "temperatur" }), (e) => {
      assert.ok(e instanceof zarr.ZarrError);
      assert.ok(e instanceof Error);
      assert.equal(e.name, "ZarrError");
      assert.equal(e.code, "NOT_FOUND");
      assert.equal(e.suggest, "temperature");
      assert.match(e.message, /temperatur/);
      return true;
    });
    await assert.rejects(zarr.open(store, { path: "temperature", kind: "group" }), (e) => e.code === "NOT_FOUND");
  });
  test("EXISTS, READ_ONLY, INVALID_METADATA, STORE", async () => {
    const store = new zarr.MemoryStore();
    await zarr.create(store, { path: "a", shape: [1], dtype: "<f4" });
    await assert.rejects(zarr.create(store, { path: "a", shape: [1], dtype: "<f4" }), (e) => e.code === "EXISTS");
    await zarr.create(store, { path: "a", shape: [2], dtype: "<f4", overwrite: true });
    const readOnly = { get: (k) => store.get(k) };
    const ro = await zarr.open(readOnly, { path: "a" });
    await assert.rejects(ro.set(null, 1), (e) => e.code === "READ_ONLY");
    await assert.rejects(zarr.create(store, { path: "b", shape: [1], dtype: "<q9" }), (e) => e.code === "INVALID_METADATA");
    store.set("/bad/.zarray", new TextEncoder().encode("{not json"));
    await assert.rejects(zarr.open(store, { path: "bad" }), (e) => e.code === "INVALID_METADATA");
    const failing = { get: async () => { throw new Error("disk on fire"); } };
    await assert.rejects(zarr.open(failing, { path: "x" }), (e) => e.code === "STORE" && /disk on fire/.test(e.message));
    await assert.rejects(zarr.open({}, {}), (e) => e.code === "STORE");
  });
  test("CODEC for a corrupt chunk", async () => {
    const store = new zarr.MemoryStore();
    const a = await zarr.create(store, { path: "z", shape: [4], chunks: [4], dtype: "<i4", zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
    await a.set(null, 1);
    store.set("/z/0", Uint8Array.of(1, 2, 3));
    await assert.rejects(a.get(), (e) => e.code === "CODEC" && /z\/0/.test(e.message));
  });
  test("the engine survives errors: later calls still work", async () => {
    const store = new zarr.MemoryStore();
    for (let i = 0; i < 3; i++) await assert.rejects(zarr.open(store, { path: "nope" }));
    const a = await zarr.create(store, { path: "ok", shape: [1], dtype: "|u1", fillValue: 3 });
    assert.deepEqual([...(await a.get()).data], [3]);
  });
});

describe("abort and concurrency", () => {
  function slowStore(inner, ms, counter) {
    return {
      async get(key, opts) {
        counter.calls++;
        counter.inFlight++;
        counter.max = Math.max(counter.max, counter.inFlight);
        try {
          await new Promise((resolve, reject) => {
            const t = setTimeout(resolve, key.endsWith("array") ? 0 : ms);
            opts?.signal?.addEventListener(
              "abort",
              () => {
                clearTimeout(t);
                reject(opts.signal.reason);
              },
              { once: true },
            );
          });
          counter.signals += opts?.signal ? 1 : 0;
          return inner.get(key);
        } finally {
          counter.inFlight--;
        }
      },
    };
  }
  test("the chunks of one get are fetched concurrently", async () => {
    const mem = new zarr.MemoryStore();
    const a = await zarr.create(mem, { shape: [100], chunks: [1], dtype: "|u1" });
    await a.set(null, Uint8Array.from({ length: 100 }, (_, i) => i));
    const c = { calls: 0, inFlight: 0, max: 0, signals: 0 };
    const slow = await zarr.open(slowStore(mem, 20, c));
    const r = await slow.get();
    assert.equal(r.data[99], 99);
    assert.ok(c.max >= 8, `max in flight ${c.max}`);
    c.max = 0;
    const r2 = await slow.get(null, { concurrency: 2 });
    assert.equal(r2.data[50], 50);
    assert.ok(c.max >= 1 && c.max <= 2, `max in flight ${c.max} with concurrency 2`);
  });
  test("an aborted signal rejects with ABORTED; a mid-read abort stops the read", async () => {
    const mem = new zarr.MemoryStore();
    const a = await zarr.create(mem, { shape: [50], chunks: [1], dtype: "|u1" });
    await a.set(null, 1);
    const c = { calls: 0, inFlight: 0, max: 0, signals: 0 };
    const slow = await zarr.open(slowStore(mem, 200, c));
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(slow.get(null, { signal: ac.signal }), (e) => e.code === "ABORTED");
    // A mid-read abort: the store's chunk answers are held (the store ignores the signal), so the
    // read can only reject before they come if the abort itself ends it.
    const held = gate();
    let asked = 0;
    const heldStore = {
      async get(key) {
        if (/zarr\.json$|\.z(array|attrs|group)$/.test(key)) return mem.get(key); // metadata
        asked++;
        await held.wait();
        return mem.get(key);
      },
    };
    const ac2 = new AbortController();
    const p = (await zarr.open(heldStore)).get(null, { signal: ac2.signal });
    try {
      await until(() => asked > 0, "the read to ask the store for chunks");
      ac2.abort(new Error("user went away"));
      await assert.rejects(p, (e) => e.code === "ABORTED" && /user went away/.test(e.message));
      assert.equal(held.opened, false, "the read ended only when the store answered");
    } finally {
      held.open();
    }
    // the store saw the signal
    const ac3 = new AbortController();
    await slow.get([0], { signal: ac3.signal });
    assert.ok(c.signals >= 1);
  });
});

describe("resources", () => {
  test("Go-side handles are released when arrays are garbage collected", async () => {
    const v8 = await import("node:v8");
    const vm = await import("node:vm");
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc");
    const { bridge } = await import("../../npm/lib/runtime.js");
    const api = await bridge();
    const store = new zarr.MemoryStore();
    await zarr.create(store, { path: "a", shape: [2], dtype: "uint8" });
    const before = api.handleCount();
    for (let i = 0; i < 200; i++) await zarr.open(store, { path: "a" });
    assert.ok(api.handleCount() >= before + 100, "opened arrays hold handles");
    for (let i = 0; i < 20 && api.handleCount() > before + 20; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(api.handleCount() <= before + 20, `${api.handleCount() - before} handles still held`);
  });
});

// zarr-python 2 writes NaN and Infinity as bare tokens: arr.metadata (the
// stored document as JS) keeps them as numbers (it was null when the
// document held one).
test("metadata with bare NaN / Infinity tokens", async () => {
  const text = (s) => new TextEncoder().encode(s);
  const store = new zarr.MemoryStore([
    ["/a/.zarray", text('{"chunks":[2],"compressor":null,"dtype":"<f8","fill_value":NaN,"filters":null,"order":"C","shape":[4],"zarr_format":2}')],
    ["/a/.zattrs", text('{"lo":-Infinity,"v":[Infinity,12345678901234567890]}')],
  ]);
  const arr = await zarr.open(store, { path: "a", kind: "array" });
  assert.ok(Number.isNaN(arr.metadata.fill_value));
  assert.deepEqual(arr.metadata.shape, [4]);
  assert.equal(arr.attrs.lo, -Infinity);
  assert.deepEqual(arr.attrs.v, [Infinity, 12345678901234567890n]);
  assert.ok(Number.isNaN(arr.fillValue));
});
