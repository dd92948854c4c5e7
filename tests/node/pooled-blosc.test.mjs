// The decode workers' Blosc (blosc_decode in npm/codecs/glue.c, part of the
// package's decoder module): it decodes Blosc1 chunks of zstd, zlib or lz4
// streams, byte-shuffled or not, and declines everything else, which the
// engine's Blosc (zarr/blosc, the reference) then decodes or reports. Here
// it is held to the engine: on every chunk of many arrays (data types of 1
// to 16 bytes, shuffles, block sizes that leave a short last block, stored
// chunks) it must give the engine's bytes, and on damaged chunks it may
// only decline or give what the engine gives; whatever the engine rejects
// it must decline. Then reads of such arrays shared with decode workers.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { loadCodecs, codecsExports } from "../../npm/lib/codecs.js";
import { randomInts } from "./helpers.mjs";

const bytesOf = (d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** The module's answer for src: the decoded bytes, or null when it declines. */
function moduleDecode(src, expected) {
  const w = codecsExports();
  const sp = w.malloc_(Math.max(1, src.length));
  const dp = w.malloc_(expected);
  try {
    new Uint8Array(w.memory.buffer, sp, src.length).set(src);
    const n = w.blosc_decode(dp, expected, sp, src.length);
    if (n === -1) return null;
    assert.equal(n, expected, "blosc_decode returns the size it was asked for, or -1");
    return new Uint8Array(w.memory.buffer, dp, expected).slice();
  } finally {
    w.free_(sp);
    w.free_(dp);
  }
}

/** The engine's answer for src: the decoded bytes, or its error. */
async function engineDecode(arr, coords, src) {
  try {
    const res = await arr._call("decodeChunk", coords, src);
    return { bytes: bytesOf(res.data).slice() };
  } catch (e) {
    return { error: e };
  }
}

// Smooth data with some noise, so that streams compress but not to nothing.
function values(Typed, n) {
  const a = new Typed(n);
  let seed = 7;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const v = 50 * Math.sin(i / 40) + (seed >>> 28);
    a[i] = Typed === BigInt64Array ? BigInt(Math.round(v)) : v;
  }
  return a;
}

const dtypes = [
  ["|u1", Uint8Array],
  ["<i2", Int16Array],
  ["<f4", Float32Array],
  ["<f8", Float64Array],
  ["<i8", BigInt64Array],
  ["<c16", Float64Array], // 16-byte elements: two float64 each
];

/** Arrays covering the module's cases and some it declines: [name, create options, covered]. */
function arrays() {
  const out = [];
  for (const [dtype, Typed] of dtypes) {
    for (const cname of ["zstd", "zlib", "lz4", "blosclz"]) {
      for (const shuffle of [0, 1, 2]) {
        for (const blocksize of [0, 1000]) {
          const covered = shuffle !== 2 && cname !== "blosclz";
          out.push([`${dtype} ${cname} shuffle ${shuffle} blocksize ${blocksize}`, { dtype, Typed, compressor: { id: "blosc", cname, clevel: 3, shuffle, blocksize } }, covered]);
        }
      }
    }
  }
  // clevel 0: every chunk stored as it is (memcpyed).
  out.push(["<f4 zstd clevel 0", { dtype: "<f4", Typed: Float32Array, compressor: { id: "blosc", cname: "zstd", clevel: 0, shuffle: 1, blocksize: 0 } }, true]);
  return out;
}

test("the module's Blosc decodes what the engine decodes, byte for byte, and declines the rest", async (t) => {
  assert.ok(await loadCodecs(), "the decoder module loads");
  assert.equal(typeof codecsExports().blosc_decode, "function");
  const store = new zarr.MemoryStore();
  let decoded = 0;
  let declined = 0;
  let k = 0;
  for (const [name, o, covered] of arrays()) {
    const path = `/${k++}`;
    const shape = [70, 50]; // chunks of 32×24: edge chunks, and (blocksize 1000) short last blocks
    const arr = await zarr.create(store, { path, shape, chunks: [32, 24], dtype: o.dtype, zarrFormat: 2, compressor: o.compressor });
    const n = shape[0] * shape[1] * (o.dtype === "<c16" ? 2 : 1);
    await arr.set(null, { data: values(o.Typed, n), shape });
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const src = await store.get(`${path}/${i}.${j}`);
        const want = await engineDecode(arr, [i, j], src);
        assert.ok(want.bytes, `${name}: the engine decodes chunk ${i}.${j}`);
        const got = moduleDecode(src, want.bytes.length);
        if (covered) {
          assert.ok(got, `${name}: chunk ${i}.${j} is the module's to decode`);
        }
        if (got) {
          assert.ok(Buffer.from(got).equals(Buffer.from(want.bytes)), `${name}: chunk ${i}.${j} differs from the engine's`);
          decoded++;
        } else {
          declined++;
        }
      }
    }
  }
  t.diagnostic(`${decoded} chunks decoded by the module, ${declined} declined`);
  assert.ok(decoded > 0 && declined > 0);
});

test("on damaged Blosc chunks the module declines or agrees with the engine, and declines whatever the engine rejects", async (t) => {
  assert.ok(await loadCodecs());
  const store = new zarr.MemoryStore();
  const cases = [
    ["zstd", { id: "blosc", cname: "zstd", clevel: 3, shuffle: 1, blocksize: 0 }, "<f4", Float32Array],
    ["zlib", { id: "blosc", cname: "zlib", clevel: 3, shuffle: 1, blocksize: 1024 }, "<f8", Float64Array],
    ["zstd stored", { id: "blosc", cname: "zstd", clevel: 0, shuffle: 0, blocksize: 0 }, "<i2", Int16Array],
    ["lz4", { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }, "<f4", Float32Array],
    ["lz4hc", { id: "blosc", cname: "lz4hc", clevel: 9, shuffle: 0, blocksize: 2048 }, "<i2", Int16Array],
  ];
  let agreed = 0;
  let declined = 0;
  let rejected = 0;
  for (const [name, compressor, dtype, Typed] of cases) {
    const arr = await zarr.create(store, { path: `/${name}`, shape: [64, 64], chunks: [64, 64], dtype, zarrFormat: 2, compressor });
    await arr.set(null, { data: values(Typed, 64 * 64), shape: [64, 64] });
    const good = await store.get(`/${name}/0.0`);
    const expected = (await engineDecode(arr, [0, 0], good)).bytes.length;
    // Damage: every truncation of the first 64 bytes and some later ones;
    // each header byte set to 0, 0xff and flipped; bytes flipped through
    // the chunk.
    const damaged = [];
    for (let n = 0; n < Math.min(good.length, 64); n++) damaged.push(good.slice(0, n));
    for (let n = 64; n < good.length; n += Math.max(1, good.length >> 4)) damaged.push(good.slice(0, n));
    for (let i = 0; i < 24 && i < good.length; i++) {
      for (const f of [() => 0, () => 0xff, (b) => b ^ 0x80, (b) => b ^ 1]) {
        const d = good.slice();
        d[i] = f(d[i]);
        damaged.push(d);
      }
    }
    for (let i = 24; i < good.length; i += Math.max(1, good.length >> 5)) {
      const d = good.slice();
      d[i] ^= 0x55;
      damaged.push(d);
    }
    const d = new Uint8Array(good.length + 100); // trailing bytes after cbytes
    d.set(good);
    damaged.push(d);
    for (const src of damaged) {
      const want = await engineDecode(arr, [0, 0], src);
      const got = moduleDecode(src, expected);
      if (want.error) {
        assert.equal(got, null, `${name}: the engine rejects a damaged chunk (${want.error.message}), the module must decline it`);
        rejected++;
      } else if (got) {
        assert.ok(Buffer.from(got).equals(Buffer.from(want.bytes)), `${name}: a damaged chunk the engine accepts decodes differently`);
        agreed++;
      } else {
        declined++;
      }
    }
  }
  t.diagnostic(`${rejected} rejected by the engine (declined by the module), ${agreed} decoded alike, ${declined} declined where the engine decoded`);
  assert.ok(rejected > 100 && agreed > 0);
});

// Random LZ4 streams in Blosc chunks decoded by the engine and by the
// module: both accept the same ones, with the same bytes. long: more
// sequences, offsets of 1 to 20 half the time (overlapping matches of
// every short period, the module's 8- and 16-byte copies) and declared
// sizes that end the output within a few bytes of the last copies.
async function lz4Agreement(t, { count, long }) {
  assert.ok(await loadCodecs());
  const store = new zarr.MemoryStore();
  // (an array per decoded size: the engine checks the chunk's size)
  const arrays = new Map();
  const arrayOf = async (n) => {
    if (!arrays.has(n)) arrays.set(n, await zarr.create(store, { path: `/lz4-${n}`, shape: [n], chunks: [n], dtype: "|u1", zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 0, blocksize: 0 } }));
    return arrays.get(n);
  };
  const rnd = randomInts(long ? 7 : 99);
  // Sequences of tokens with short and extended lengths, offsets from 0 to
  // past the output, literals; cut anywhere; the declared size near what
  // they decode to.
  const stream = () => {
    const out = [];
    let produced = 0;
    const nseq = long ? 1 + rnd(40) : 1 + rnd(4);
    for (let q = 0; q < nseq; q++) {
      const lit = rnd(5) === 0 ? 15 + rnd(280) : rnd(15);
      const ml = rnd(5) === 0 ? 19 + rnd(280) : 4 + rnd(15);
      const at = out.length;
      out.push(((Math.min(lit, 15) << 4) | Math.min(ml - 4, 15)) & 0xff);
      if (lit >= 15) {
        let r = lit - 15;
        while (r >= 255) (out.push(255), (r -= 255));
        out.push(r);
      }
      for (let i = 0; i < lit; i++) out.push(rnd(256));
      produced += lit;
      if (q === nseq - 1 && rnd(2) === 0) {
        if (rnd(4) !== 0) out[at] &= 0xf0; // literals only at the end (else a match length with no match)
        break;
      }
      const off = long && rnd(2) === 0 ? 1 + rnd(20) : rnd(3) === 0 ? rnd(4) : 1 + rnd(Math.max(1, produced + 2));
      out.push(off & 0xff, off >> 8);
      if (ml >= 19) {
        let r = ml - 19;
        while (r >= 255) (out.push(255), (r -= 255));
        out.push(r);
      }
      produced += ml;
    }
    if (rnd(4) === 0) out.length = rnd(out.length + 1);
    return [out, Math.max(1, produced + (rnd(4) === 0 ? rnd(5) - 2 : 0))];
  };
  let same = 0;
  let rejected = 0;
  let skipped = 0;
  for (let k = 0; k < count; k++) {
    const [body, N] = stream();
    if (body.length === 0 || body.length === N) {
      skipped++;
      continue;
    }
    const arr = await arrayOf(N);
    const src = new Uint8Array(24 + body.length);
    const dv = new DataView(src.buffer);
    src.set([2, 1, (1 << 5) | 0x10, 1]); // version 2, lz4, don't split, typesize 1
    dv.setInt32(4, N, true);
    dv.setInt32(8, N, true);
    dv.setInt32(12, src.length, true);
    dv.setInt32(16, 20, true);
    dv.setInt32(20, body.length, true);
    src.set(body, 24);
    const want = await engineDecode(arr, [0], src);
    const got = moduleDecode(src, N);
    if (want.error) {
      assert.equal(got, null, `stream ${k} (${body.join(",")}): the engine rejects it, the module decodes it`);
      rejected++;
    } else {
      assert.ok(got, `stream ${k} (${body.join(",")}): the engine decodes it, the module declines`);
      assert.ok(Buffer.from(got).equals(Buffer.from(want.bytes)), `stream ${k}: bytes differ`);
      same++;
    }
  }
  t.diagnostic(`${same} streams decoded alike, ${rejected} rejected by both, ${skipped} skipped`);
  assert.ok(same > 20 && rejected > 100, `${same} decoded, ${rejected} rejected: the streams do not reach both sides`);
}

test("on random LZ4 streams the module and the engine accept the same ones, with the same bytes", (t) => lz4Agreement(t, { count: 3000 }));

test("on long random LZ4 streams with short offsets the module and the engine agree", (t) => lz4Agreement(t, { count: 1500, long: true }));

test("pooled reads of Blosc arrays (shared and transfer) equal the engine's; a corrupt chunk is the engine's CODEC error", async () => {
  const store = new zarr.MemoryStore();
  const arrs = [];
  for (const [name, compressor, dtype, Typed] of [
    ["zstd f4", { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 }, "<f4", Float32Array],
    ["zlib f8", { id: "blosc", cname: "zlib", clevel: 1, shuffle: 1, blocksize: 4096 }, "<f8", Float64Array],
    ["zstd i2 noshuffle", { id: "blosc", cname: "zstd", clevel: 3, shuffle: 0, blocksize: 0 }, "<i2", Int16Array],
    ["zstd u1 bitshuffle (the engine's)", { id: "blosc", cname: "zstd", clevel: 3, shuffle: 2, blocksize: 0 }, "|u1", Uint8Array],
    ["lz4 f4", { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }, "<f4", Float32Array],
    ["blosclz f4 (the engine's)", { id: "blosc", cname: "blosclz", clevel: 5, shuffle: 1, blocksize: 0 }, "<f4", Float32Array],
  ]) {
    const arr = await zarr.create(store, { path: `/${name}`, shape: [200, 130], chunks: [64, 48], dtype, zarrFormat: 2, compressor });
    await arr.set(null, { data: values(Typed, 200 * 130), shape: [200, 130] });
    arrs.push([name, arr]);
  }
  try {
    for (const shared of [true, false]) {
      const pool = await zarr.useWorkers(2, { minBytes: 0, shared });
      for (const [name, arr] of arrs) {
        for (const sel of [null, [zarr.slice(10, 150), zarr.slice(5, 120, 3)]]) {
          const before = pool.stats().reads;
          const alone = await arr.get(sel, { workers: false });
          const pooled = await arr.get(sel);
          // (Blosc the module's walker does not cover is the engine's, decoded on this thread)
          assert.equal(pool.stats().reads, before + (name.includes("the engine's") ? 0 : 1), `${name}: read by the pool`);
          assert.deepEqual(pooled.shape, alone.shape);
          assert.ok(Buffer.from(bytesOf(pooled.data)).equals(Buffer.from(bytesOf(alone.data))), `${name} (${shared ? "shared" : "transfer"}): values differ`);
        }
      }
    }
    // A chunk whose zstd stream is damaged: the module declines it, this
    // thread's engine reports.
    const [, arr] = arrs[0];
    const key = "/zstd f4/1.1";
    const good = await store.get(key);
    const bad = good.slice();
    bad[bad.length - 20] ^= 0xff;
    bad[bad.length - 40] ^= 0xff;
    await store.set(key, bad);
    const alone = await arr.get(null, { workers: false }).then(() => null, (e) => e);
    assert.ok(alone, "the damaged chunk fails on this thread");
    const pooled = await arr.get(null).then(() => null, (e) => e);
    assert.ok(pooled instanceof zarr.ZarrError);
    assert.equal(pooled.code, alone.code);
    assert.equal(pooled.message, alone.message);
  } finally {
    await zarr.useWorkers(0);
  }
});

// Chunks c-blosc wrote (numcodecs' Blosc vectors in tests/compat, one chunk
// each): what the module decodes must be the values numcodecs states for
// them, byte for byte (C-order arrays, whose chunk bytes are the array's).
test("blosc_decode on c-blosc's chunks (numcodecs vectors) gives numcodecs' values", async () => {
  await loadCodecs();
  const fs = await import("node:fs/promises");
  const compat = new URL("../compat/", import.meta.url);
  const cases = JSON.parse(await fs.readFile(new URL("cases.json", compat), "utf8"));
  let decoded = 0, declined = 0;
  for (const c of cases) {
    if (c.source !== "numcodecs" || !c.path.startsWith("blosc/") || !c.expect?.raw) continue;
    const dir = new URL(`data/${c.store}/${c.path}/`, compat);
    const meta = JSON.parse(await fs.readFile(new URL(".zarray", dir), "utf8"));
    if (meta.order !== "C" || meta.dtype.startsWith(">")) continue;
    const key = meta.chunks.map(() => "0").join(".");
    const src = new Uint8Array(await fs.readFile(new URL(key, dir)));
    const want = new Uint8Array(await fs.readFile(new URL(`data/expected/${c.expect.raw}`, compat)));
    const got = moduleDecode(src, want.length);
    if (got === null) {
      declined++;
      continue;
    }
    assert.deepEqual(got, want, `${c.path}: blosc_decode differs from numcodecs' values`);
    decoded++;
  }
  assert.ok(decoded >= 20, `only ${decoded} c-blosc chunks decoded by the module (${declined} declined)`);
  console.log(`# c-blosc chunks: ${decoded} decoded as numcodecs states, ${declined} declined (blosclz, bitshuffle, other sizes)`);
});
