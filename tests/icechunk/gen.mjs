// Writes Icechunk test repositories with the official package,
// @earthmover/icechunk 2.2.2 (its WASI build: run with NAPI_RS_FORCE_WASI=1),
// through Storage.newCustom over a directory (fsbackend.mjs). Arrays are
// written by zarrita through the session's store, or, for what zarrita
// 0.7.5 cannot encode (gzip, crc32c, sharding, float16, complex), chunk by
// chunk with Node's zlib and the helpers below. Values depend on the
// commit, so every version reads differently.
//
//   NAPI_RS_FORCE_WASI=1 node tests/icechunk/gen.mjs OUTDIR [name ...]
//
// Repositories (OUTDIR/<name>):
//   features-v2, features-v1  spec 2 and 1: groups and attributes, every
//       numeric dtype, inline and native chunks, zstd, gzip, crc32c,
//       sharding, missing chunks, a 0-d array; commits on main, a branch
//       "dev", tags "v1" and "v2", a deleted tag.
//   weather   what docs/icechunk.md reads: weather/temperature, two commits
//       on main, a tag v1, a branch forecast.
//   split-v2  a 2,500-chunk array and a split one, their manifests split
//       by the repository's config (one manifest per 10x10 chunks, one
//       per row of chunks).
// Written only when named:
//   history.icechunk  the demo viewer's sample (committed in
//       web/demo/gen/icechunk): temperature changing over three commits on
//       main, a tag v1, a branch experiment with a commit of its own
//       (history.mjs holds the values); beside it, <name>.json records what
//       the package answered (snapshot ids, branches, tags, ancestries),
//       after reading every version back through the package.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import * as zarr from "zarrita";
import { Repository, dirStorage, zarritaStore } from "./common.mjs";
import { historyArray, historyChunks, historyCommits, historyShape } from "./history.mjs";

const ctors = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array, bool: Uint8Array,
  float16: Uint16Array, complex64: Float32Array, complex128: Float64Array,
};
const perElement = { complex64: 2, complex128: 2 };

/** Deterministic values for an array of n elements at commit c. */
function values(dtype, n, c, salt) {
  const Ctor = ctors[dtype];
  const k = perElement[dtype] ?? 1;
  const out = new Ctor(n * k);
  for (let i = 0; i < n * k; i++) {
    const v = (i * 7 + c * 13 + salt * 3) % 101;
    const h = Math.imul(i + 1, 2654435761) ^ Math.imul(c * 31 + salt, 40503);
    if (dtype === "bool") out[i] = v % 3 === 0 ? 1 : 0;
    else if (dtype === "float16") out[i] = f16bits(v - 50);
    else if (Ctor === BigInt64Array) out[i] = BigInt(v - 50) * 1000000007n;
    else if (Ctor === BigUint64Array) out[i] = BigInt(v) * 1000000007n;
    else if (dtype.startsWith("int")) out[i] = v - 50;
    else if (dtype.startsWith("float") || dtype.startsWith("complex")) out[i] = (v - 50) / 4 + (h % 1000) / 1024;
    else out[i] = v;
  }
  return out;
}

/** The IEEE half-precision bits of a small integer (exact below 2048). */
function f16bits(x) {
  if (x === 0) return 0;
  const sign = x < 0 ? 0x8000 : 0;
  let m = Math.abs(x);
  let e = 0;
  while (m >= 2) {
    m /= 2;
    e++;
  }
  return sign | ((e + 15) << 10) | Math.round((m - 1) * 1024);
}

const crcTable = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32C (Castagnoli), as Zarr's crc32c codec appends it. */
function crc32c(b) {
  let c = 0xffffffff;
  for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function withCRC(b) {
  const out = new Uint8Array(b.length + 4);
  out.set(b);
  new DataView(out.buffer).setUint32(b.length, crc32c(b), true);
  return out;
}

const bytesCodec = { name: "bytes", configuration: { endian: "little" } };

function arrayMeta({ shape, chunks, dtype, fill = 0, codecs = [bytesCodec], attributes = {}, dimensionNames }) {
  const m = {
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: dtype,
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: fill,
    codecs,
    attributes,
  };
  if (dimensionNames) m.dimension_names = dimensionNames;
  return m;
}

const enc = new TextEncoder();
const json = (o) => enc.encode(JSON.stringify(o));

/** The C-order bytes of the chunk at idx of a full array (edge chunks padded with fill). */
function chunkBytes(meta, full, idx, fillElem) {
  const { shape } = meta;
  const chunks = meta.chunk_grid.configuration.chunk_shape;
  const k = perElement[meta.data_type] ?? 1;
  const Ctor = full.constructor;
  const n = chunks.reduce((a, b) => a * b, 1);
  const out = new Ctor(n * k);
  out.fill(fillElem);
  const pos = new Array(shape.length).fill(0);
  for (let j = 0; j < n; j++) {
    let rem = j;
    let inside = true;
    let src = 0;
    for (let d = shape.length - 1; d >= 0; d--) {
      pos[d] = rem % chunks[d];
      rem = Math.floor(rem / chunks[d]);
    }
    for (let d = 0; d < shape.length; d++) {
      const g = idx[d] * chunks[d] + pos[d];
      if (g >= shape[d]) inside = false;
      src = src * shape[d] + g;
    }
    if (inside) for (let q = 0; q < k; q++) out[j * k + q] = full[src * k + q];
  }
  return new Uint8Array(out.buffer);
}

function* chunkIndices(meta) {
  const chunks = meta.chunk_grid.configuration.chunk_shape;
  const grid = meta.shape.map((s, d) => Math.ceil(s / chunks[d]));
  const total = grid.reduce((a, b) => a * b, 1);
  for (let j = 0; j < total; j++) {
    const idx = [];
    let rem = j;
    for (let d = grid.length - 1; d >= 0; d--) {
      idx[d] = rem % grid[d];
      rem = Math.floor(rem / grid[d]);
    }
    yield idx;
  }
}

const chunkKey = (p, idx) => (idx.length ? `${p}/c/${idx.join("/")}` : `${p}/c`);

/**
 * Writes an array's metadata and every chunk (except those skip(idx) names)
 * with encode(bytes) → stored bytes.
 */
async function writeManual(st, p, meta, full, encode, { skip = () => false, fillElem = 0 } = {}) {
  await st.set(`${p}/zarr.json`, json(meta));
  for (const idx of chunkIndices(meta)) {
    if (skip(idx)) continue;
    await st.set(chunkKey(p, idx), encode(chunkBytes(meta, full, idx, fillElem)));
  }
}

/**
 * A sharded uint16 array: shards of 4x4, inner chunks of 2x2 (bytes), the
 * index (bytes + crc32c) at the end; one inner chunk of each shard and one
 * whole shard left out.
 */
async function writeSharded(st, p, c) {
  const shape = [8, 12];
  const meta = arrayMeta({
    shape,
    chunks: [4, 4],
    dtype: "uint16",
    fill: 7,
    codecs: [
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [2, 2],
          codecs: [bytesCodec],
          index_codecs: [bytesCodec, { name: "crc32c" }],
          index_location: "end",
        },
      },
    ],
  });
  const full = values("uint16", shape[0] * shape[1], c, 5);
  await st.set(`${p}/zarr.json`, json(meta));
  const inner = { ...meta, chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 2] } } };
  for (const sidx of chunkIndices(meta)) {
    if (sidx[0] === 1 && sidx[1] === 2) continue; // a missing shard
    const parts = [];
    const index = new DataView(new ArrayBuffer(4 * 16));
    let off = 0;
    for (let q = 0; q < 4; q++) {
      const iidx = [sidx[0] * 2 + (q >> 1), sidx[1] * 2 + (q & 1)];
      if (q === 3 - (c % 4)) {
        index.setBigUint64(q * 16, 0xffffffffffffffffn, true);
        index.setBigUint64(q * 16 + 8, 0xffffffffffffffffn, true);
        continue;
      }
      const b = chunkBytes(inner, full, iidx, 7);
      parts.push(b);
      index.setBigUint64(q * 16, BigInt(off), true);
      index.setBigUint64(q * 16 + 8, BigInt(b.length), true);
      off += b.length;
    }
    const idxBytes = withCRC(new Uint8Array(index.buffer));
    const shard = new Uint8Array(off + idxBytes.length);
    let at = 0;
    for (const b of parts) {
      shard.set(b, at);
      at += b.length;
    }
    shard.set(idxBytes, at);
    await st.set(chunkKey(p, sidx), shard);
  }
}

const numeric = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "bool"];

/** Writes (c = 1) or rewrites (c > 1) the features hierarchy at commit c. */
async function writeFeatures(session, c) {
  const raw = session.store;
  const st = zarritaStore(raw);
  const root = new zarr.Location(st);
  if (c === 1) {
    await zarr.create(root, { attributes: { title: "icechunk features", commit: 1 } });
    await zarr.create(root.resolve("dtypes"), { attributes: { about: "every numeric data type" } });
    await zarr.create(root.resolve("nested"), { attributes: { level: 1 } });
    await zarr.create(root.resolve("nested/deeper"), { attributes: { level: 2, list: [1, 2, 3], nested: { a: "b" } } });
  } else {
    await st.set("/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: { title: "icechunk features", commit: c } }));
  }
  // every numeric dtype, small chunks (inline), edge chunks partial
  for (const [i, dt] of numeric.entries()) {
    const shape = [7, 9];
    const fill = dt === "bool" ? false : dt.startsWith("float") ? 0.5 : 3;
    const a =
      c === 1
        ? await zarr.create(root.resolve(`dtypes/${dt}`), { shape, chunkShape: [3, 4], dtype: dt, fillValue: fill, codecs: [bytesCodec], attributes: { dtype: dt } })
        : await zarr.open(root.resolve(`dtypes/${dt}`), { kind: "array" });
    if (c === 3 && i % 2 === 0) continue; // unchanged at the third commit
    let data = values(dt, shape[0] * shape[1], c, i);
    if (dt === "bool") data = new zarr.BoolArray(data.buffer);
    await zarr.set(a, null, { data, shape, stride: [9, 1] });
  }
  // native chunks (2,400 bytes, above the inline threshold), zstd
  {
    const shape = [40, 30];
    const a =
      c === 1
        ? await zarr.create(root.resolve("nested/deeper/zstd_f64"), {
            shape,
            chunkShape: [20, 15],
            dtype: "float64",
            fillValue: -1,
            codecs: [bytesCodec, { name: "zstd", configuration: { level: 3, checksum: false } }],
            dimensionNames: ["y", "x"],
          })
        : await zarr.open(root.resolve("nested/deeper/zstd_f64"), { kind: "array" });
    if (c === 1) {
      await zarr.set(a, null, { data: values("float64", 1200, c, 20), shape, stride: [30, 1] });
    } else {
      // a partial write: one chunk changes, the others stay
      await zarr.set(a, [zarr.slice(0, 20), zarr.slice(15, 30)], { data: values("float64", 300, c, 21), shape: [20, 15], stride: [15, 1] });
    }
  }
  // gzip and crc32c (encoded here), native and inline
  {
    const meta = arrayMeta({ shape: [30, 25], chunks: [16, 16], dtype: "int32", fill: -5, codecs: [bytesCodec, { name: "gzip", configuration: { level: 5 } }] });
    await writeManual(st, "/gzip_i32", meta, values("int32", 750, c, 30), (b) => zlib.gzipSync(b), { fillElem: -5 });
    const meta2 = arrayMeta({ shape: [5, 6], chunks: [5, 3], dtype: "float32", fill: 0, codecs: [bytesCodec, { name: "crc32c" }] });
    await writeManual(st, "/crc_f32", meta2, values("float32", 30, c, 31), withCRC);
  }
  // missing chunks: only the diagonal is written; a chunk written at commit 1 is deleted at commit 2
  {
    const meta = arrayMeta({ shape: [10, 10], chunks: [5, 5], dtype: "int16", fill: 42, attributes: { missing: "off-diagonal" } });
    const full = values("int16", 100, c, 40);
    await writeManual(st, "/missing_i16", meta, full, (b) => b, { skip: (idx) => idx[0] !== idx[1] && !(c === 1 && idx[0] === 0), fillElem: 42 });
    if (c === 2) await raw.delete("missing_i16/c/0/1");
  }
  await writeSharded(st, "/sharded_u16", c);
  // float16 and complex (one chunk each, written as raw little-endian bytes)
  for (const dt of ["float16", "complex64", "complex128"]) {
    const meta = arrayMeta({ shape: [4, 5], chunks: [4, 5], dtype: dt, fill: dt === "float16" ? 0 : [0, 0] });
    await writeManual(st, `/other/${dt}`, meta, values(dt, 20, c, 50), (b) => b);
  }
  if (c === 1) await st.set("/other/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: {} }));
  // a 0-dimensional array (its chunk key is "scalar/c")
  {
    const meta = arrayMeta({ shape: [], chunks: [], dtype: "float64", fill: 0 });
    await writeManual(st, "/scalar", meta, new Float64Array([c * 1.5]), (b) => b);
  }
  // an array added at commit 2, removed on the branch dev
  if (c === 2) {
    const meta = arrayMeta({ shape: [3], chunks: [3], dtype: "uint8", fill: 0 });
    await writeManual(st, "/added_later", meta, new Uint8Array([1, 2, 3]), (b) => b);
  }
}

async function features(dir, spec) {
  // chunks up to 40 bytes inline, larger ones native (objects under chunks/)
  const repo = await Repository.create(dirStorage(dir), { inlineChunkThresholdBytes: 40 }, spec);
  const commits = [];
  for (let c = 1; c <= 2; c++) {
    const s = await repo.writableSession("main");
    await writeFeatures(s, c);
    commits.push(await s.commit(`commit ${c} on main`));
  }
  await repo.createTag("v1", commits[0]);
  await repo.createTag("v2", commits[1]);
  await repo.createTag("doomed", commits[0]);
  await repo.deleteTag("doomed");
  await repo.createBranch("dev", commits[1]);
  {
    const s = await repo.writableSession("dev");
    await writeFeatures(s, 4);
    await s.store.delete("added_later/zarr.json").catch(() => {});
    const st = zarritaStore(s.store);
    await st.set("/dev_only/zarr.json", json(arrayMeta({ shape: [2, 2], chunks: [1, 2], dtype: "int32", fill: 9 })));
    await st.set("/dev_only/c/1/0", new Uint8Array(new Int32Array([5, 6]).buffer));
    await s.commit("work on dev");
  }
  {
    const s = await repo.writableSession("main");
    await writeFeatures(s, 3);
    await s.commit("commit 3 on main");
  }
}

/** Manifests split by the repository's config; a 2,500-chunk array. */
async function split(dir) {
  const config = {
    manifest: {
      splitting: {
        split_sizes: [
          [{ path_matches: { regex: "many.*" } }, [{ condition: "Any", num_chunks: 10 }]],
          [{ path_matches: { regex: "rows.*" } }, [{ condition: { Axis: 0 }, num_chunks: 1 }]],
        ],
      },
    },
  };
  const repo = await Repository.create(dirStorage(dir), config, 2);
  for (let c = 1; c <= 2; c++) {
    const s = await repo.writableSession("main");
    const st = zarritaStore(s.store);
    if (c === 1) await st.set("/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: { about: "split manifests" } }));
    // 50x50 chunks of one element: 2,500 inline chunks
    const many = arrayMeta({ shape: [50, 50], chunks: [1, 1], dtype: "int16", fill: -1 });
    await writeManual(st, "/many", many, values("int16", 2500, c, 60), (b) => b, {
      skip: (idx) => c === 2 && (idx[0] + idx[1]) % 5 !== 0, // commit 2 rewrites a fifth
    });
    const rows = arrayMeta({ shape: [6, 40], chunks: [1, 20], dtype: "float32", fill: 0, codecs: [bytesCodec, { name: "gzip", configuration: { level: 1 } }] });
    await writeManual(st, "/rows_f32", rows, values("float32", 240, c, 61), (b) => zlib.gzipSync(b), { skip: (idx) => c === 2 && idx[0] !== 2 });
    await s.commit(`split commit ${c}`);
  }
}

/** The repository docs/icechunk.md reads: a weather group, two commits, a tag, a branch. */
async function weather(dir) {
  const repo = await Repository.create(dirStorage(dir), null, 2);
  const commits = [];
  for (let c = 1; c <= 2; c++) {
    const s = await repo.writableSession("main");
    const st = zarritaStore(s.store);
    if (c === 1) {
      await st.set("/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: { title: "A small weather repository" } }));
      await st.set("/weather/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: {} }));
    }
    const meta = arrayMeta({ shape: [4, 6], chunks: [2, 3], dtype: "float32", fill: 0, attributes: { units: "degC" } });
    await writeManual(st, "/weather/temperature", meta, new Float32Array(24).map((_, i) => 10 + i / 2 + (c - 1) * 100), (b) => b);
    commits.push(await s.commit(c === 1 ? "first measurements" : "corrected measurements"));
  }
  await repo.createTag("v1", commits[0]);
  await repo.createBranch("forecast", commits[1]);
}

/**
 * The demo viewer's sample: historyCommits (history.mjs) in order, the tag
 * v1 and the branch experiment at the second; every version read back
 * through the package and compared with history.mjs before the record
 * (dir + ".json") is written.
 */
async function history(dir) {
  // (chunks as objects under chunks/, as larger repositories hold them, not inline)
  const repo = await Repository.create(dirStorage(dir), { inlineChunkThresholdBytes: 64 }, 2);
  const ids = [];
  for (const [c, commit] of historyCommits.entries()) {
    if (c === 2) {
      await repo.createTag("v1", ids[1]);
      await repo.createBranch("experiment", ids[1]);
    }
    const s = await repo.writableSession(commit.branch);
    const st = zarritaStore(s.store);
    if (c === 0) await st.set("/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: { title: "zarr-wasm viewer sample: an Icechunk repository with history" } }));
    const meta = arrayMeta({
      shape: historyShape,
      chunks: historyChunks,
      dtype: "float32",
      fill: 0,
      codecs: [bytesCodec, { name: "gzip", configuration: { level: 6 } }],
      attributes: { units: "degC", long_name: "temperature", values: commit.values },
      dimensionNames: ["y", "x"],
    });
    await writeManual(st, "/temperature", meta, historyArray(commit.values), (b) => zlib.gzipSync(b, { level: 6 }));
    ids.push(await s.commit(commit.message));
  }
  const rec = { spec: repo.specVersion, commits: historyCommits.map((c, k) => ({ ...c, id: ids[k] })), branches: {}, tags: {}, ancestry: {} };
  for (const b of (await repo.listBranches()).sort()) rec.branches[b] = await repo.lookupBranch(b);
  for (const t of (await repo.listTags()).sort()) rec.tags[t] = await repo.lookupTag(t);
  const versions = [
    ...Object.keys(rec.branches).map((b) => ["branch", b, { branch: b }]),
    ...Object.keys(rec.tags).map((t) => ["tag", t, { tag: t }]),
  ];
  for (const [kind, name, opts] of versions) {
    rec.ancestry[`${kind} ${name}`] = (await repo.ancestry(opts)).map((a) => ({ id: a.id, parent: a.parentId ?? null, message: a.message, time: a.writtenAt }));
    const session = await repo.readonlySession(opts);
    const arr = await zarr.open(new zarr.Location(zarritaStore(session.store), "/temperature"), { kind: "array" });
    const got = (await zarr.get(arr)).data;
    const commit = rec.commits.find((c) => c.id === session.snapshotId);
    const want = historyArray(commit.values);
    if (got.length !== want.length || got.some((v, k) => v !== want[k])) throw new Error(`${kind} ${name}: the package reads other values than history.mjs's ${commit.values}`);
  }
  fs.writeFileSync(`${dir}.json`, JSON.stringify(rec, null, 1) + "\n");
}

const all = {
  weather,
  "features-v2": (d) => features(d, 2),
  "features-v1": (d) => features(d, 1),
  "split-v2": split,
};
const onlyNamed = { "history.icechunk": history };

const [out, ...names] = process.argv.slice(2);
if (!out) {
  console.error("usage: node gen.mjs OUTDIR [name ...]");
  process.exit(2);
}
for (const name of names.length ? names : Object.keys(all)) {
  const write = all[name] ?? onlyNamed[name];
  if (!write) throw new Error(`no repository named ${name} (${[...Object.keys(all), ...Object.keys(onlyNamed)].join(", ")})`);
  const dir = path.join(out, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  await write(dir);
}
// (the WASI build's worker threads would keep the process alive)
process.exit(0);
