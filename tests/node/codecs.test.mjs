// The package's own decoders (npm/codecs: libzstd's decompressor and zlib's
// inflate compiled to WebAssembly), handed to the engine as host decoders.
// Checked against what numcodecs 0.11 (Debian's libzstd and zlib) wrote
// (zarr/codec/testdata/numcodecs), frame and member layouts the Go decoders
// also accept, refusals that leave the chunk to the engine, and that the
// engine really decodes zarr-python's chunks with them.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as nodeZlib from "node:zlib";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { hostDecoders, hostEncoders, codecStats, loadCodecs, loadEncoders } from "../../npm/lib/codecs.js";
import { repoRoot, fixturesV2, loadCases, compareCase, randomInts } from "./helpers.mjs";

const vectorDir = path.join(repoRoot, "zarr", "codec", "testdata", "numcodecs");
const index = JSON.parse(await fs.readFile(path.join(vectorDir, "index.json"), "utf8"));
const read = async (f) => new Uint8Array(await fs.readFile(path.join(vectorDir, f)));
const vectorsOf = (id) => index.vectors.filter((v) => v.config.id === id);
const joined = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
};

for (const id of ["zstd", "zlib", "gzip"]) {
  test(`${id}: numcodecs' streams decode to numcodecs' bytes; without the expected size they are left to the engine`, async () => {
    assert.equal(await loadCodecs(), true);
    const vectors = vectorsOf(id);
    assert.ok(vectors.length >= 12, `${vectors.length} vectors`);
    for (const v of vectors) {
      const [enc, dec] = [await read(v.encoded), await read(v.decoded)];
      assert.deepEqual(hostDecoders[id](enc, Math.max(1, dec.length)), dec, `${v.name}`);
      assert.deepEqual(hostDecoders[id](enc, dec.length + 100), dec, `${v.name}, with room to spare`);
      assert.equal(hostDecoders[id](enc, 0), null, `${v.name}, size unknown`);
    }
  });
}

test("several zstd frames, skippable frames, several gzip members", async () => {
  const z = vectorsOf("zstd");
  const [a, b] = [z.find((v) => v.name.endsWith("/text")), z.find((v) => v.name.endsWith("/ramp"))];
  const [ea, da, eb, db] = [await read(a.encoded), await read(a.decoded), await read(b.encoded), await read(b.decoded)];
  const skippable = Uint8Array.of(0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3);
  assert.deepEqual(hostDecoders.zstd(joined(ea, eb), da.length + db.length), joined(da, db));
  assert.deepEqual(hostDecoders.zstd(joined(skippable, ea, skippable), da.length), da);
  const g = vectorsOf("gzip");
  const [ga, gb] = [g.find((v) => v.name === "gzip-1/text"), g.find((v) => v.name === "gzip-9/ramp")];
  const [ega, dga, egb, dgb] = [await read(ga.encoded), await read(ga.decoded), await read(gb.encoded), await read(gb.decoded)];
  assert.deepEqual(hostDecoders.gzip(joined(ega, egb), dga.length + dgb.length), joined(dga, dgb));
});

test("refusals leave the chunk to the engine: corrupt, truncated, trailing bytes, not the format, bigger than expected", async () => {
  // A 17-byte zstd frame that declares a gigabyte: with the size known it is
  // refused without a big allocation (the module's memory stays small).
  const bomb = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0x40, 0x01, 0, 0, 0x61);
  assert.equal(hostDecoders.zstd(bomb, 1024), null);
  assert.equal(hostDecoders.zstd(bomb, 0), null);
  for (const id of ["zstd", "zlib", "gzip"]) {
    const v = vectorsOf(id).find((x) => x.name.endsWith("/text"));
    const [enc, dec] = [await read(v.encoded), await read(v.decoded)];
    const size = dec.length;
    const cases = [
      ["truncated", enc.subarray(0, enc.length - 3), size],
      ["not the format", Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8), size],
      ["empty", new Uint8Array(0), size],
      ["more than expected", enc, size - 1],
    ];
    if (id === "zlib") cases.push(["trailing bytes", joined(enc, Uint8Array.of(0)), size]);
    for (const [what, bytes, max] of cases) assert.equal(hostDecoders[id](bytes, max), null, `${id}: ${what}`);
    const corrupt = enc.slice();
    corrupt[corrupt.length >> 1] ^= 0xff;
    const out = hostDecoders[id](corrupt, dec.length);
    assert.ok(out === null || out.length !== dec.length || !out.every((x, i) => x === dec[i]), `${id}: a corrupt stream never decodes to the original`);
  }
});

test("the engine decodes zarr-python's zstd, zlib, gzip and Blosc(zstd, zlib) chunks with them, and reports what they decline", async () => {
  const all = await loadCases(path.join(fixturesV2, "cases.json"));
  for (const pattern of [/^codecs\/zstd_/, /^codecs\/blosc_zstd/, /^codecs\/zlib_/, /^codecs\/gzip_/, /^codecs\/blosc_zlib/]) {
    const cases = all.filter((c) => pattern.test(c.name));
    assert.ok(cases.length >= 2, String(pattern));
    const before = codecStats.decoded;
    for (const c of cases) {
      const arr = await zarr.open(new FileSystemStore(path.join(fixturesV2, "data", c.store)), { path: c.path, kind: "array" });
      const diff = compareCase(c, await arr.get(c.selection));
      assert.equal(diff, null, `${c.name}: ${diff}`);
    }
    assert.ok(codecStats.decoded > before, `${pattern}: decoded by the package's decoders`);
  }
  // A corrupt chunk: the package's decoder declines, the Go decoder reports it by key.
  const store = new zarr.MemoryStore();
  const a = await zarr.create(store, { path: "a", shape: [4], chunks: [4], dtype: "<i4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
  await store.set("/a/0", Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x10, 9, 9, 9));
  const declined = codecStats.declined;
  await assert.rejects(a.get(null), (e) => e.code === "CODEC" && e.message.includes("a/0"));
  assert.ok(codecStats.declined > declined);
});

// The module's libzstd is built with 64-bit bitstream registers (build.sh:
// refills as on 64-bit hosts). Frames of every kind it meets: levels -5 to
// 19 (short and long matches, raw, RLE and compressed literals, 1 and 4
// Huffman streams, repeat offsets), with and without checksums, several
// frames joined, sizes from empty to past 128 KB blocks: each decodes to the
// bytes that were encoded, with the exact size or room to spare, and the
// output one byte short is refused. Then damaged copies: refused, or decoded
// to no more than the size asked for (a frame without a checksum can decode
// to other bytes, as with libzstd everywhere), never a crash or a hang.
test("zstd: frames of every level, size and data kind round-trip; damaged ones are refused or stay in bounds", async () => {
  assert.equal(await loadCodecs(), true);
  assert.equal(await loadEncoders(), true);
  const rnd = randomInts(2024);
  const data = () => {
    const n = [rnd(40), rnd(5000), rnd(70000), 131072 + rnd(200000)][rnd(4)];
    const u = new Uint8Array(n);
    const kind = rnd(4);
    if (kind === 0) for (let i = 0; i < n; i++) u[i] = rnd(256);
    else if (kind === 1) {
      const f = new Float32Array(u.buffer, 0, n >> 2);
      let v = 0;
      for (let i = 0; i < f.length; i++) f[i] = Math.sin(i / 50) * 100 + (v += rnd(100) / 100 - 0.5);
    } else if (kind === 2) for (let i = 0; i < n; i++) u[i] = 97 + rnd(1 + rnd(8));
    else for (let i = 0; i < n; i++) u[i] = i < 16 || rnd(40) === 0 ? rnd(256) : u[i - 1 - rnd(Math.min(i, 1 + rnd(40000)))];
    return u;
  };
  const levels = [-5, -1, 1, 3, 6, 9, 15, 19];
  let decoded = 0;
  let refused = 0;
  for (let k = 0; k < 160; k++) {
    let plain = data();
    let frame = hostEncoders.zstd(plain, levels[k % levels.length], k % 3 === 0);
    assert.ok(frame, `frame ${k}: the encoder module wrote it`);
    if (k % 7 === 0) {
      const more = data();
      (frame = joined(frame, hostEncoders.zstd(more, 3, false))), (plain = joined(plain, more));
    }
    const size = plain.length;
    assert.ok(Buffer.from(hostDecoders.zstd(frame, Math.max(1, size)) ?? []).equals(Buffer.from(plain)), `frame ${k} (${size} bytes, level ${levels[k % levels.length]})`);
    assert.ok(Buffer.from(hostDecoders.zstd(frame, size + 64) ?? []).equals(Buffer.from(plain)), `frame ${k}, with room to spare`);
    if (size > 0) assert.equal(hostDecoders.zstd(frame, size - 1), null, `frame ${k}: one byte short`);
    for (let d = 0; d < 4; d++) {
      const bad = frame.slice();
      const at = d === 0 ? rnd(bad.length) : Math.min(bad.length - 1, 4 + rnd(Math.max(1, bad.length - 4)));
      for (let j = 0; j < 1 + rnd(8) && at + j < bad.length; j++) bad[at + j] ^= 1 + rnd(255);
      const out = hostDecoders.zstd(d === 3 ? bad.subarray(0, rnd(bad.length)) : bad, Math.max(1, size));
      if (out === null) refused++;
      else (decoded++, assert.ok(out.length <= Math.max(1, size), `damaged frame ${k}: ${out.length} bytes for ${size}`));
    }
  }
  assert.ok(refused > 300 && decoded > 10, `${refused} damaged frames refused, ${decoded} decoded: the damage does not reach both outcomes`);
});

// The module's libdeflate is built with a 64-bit bit buffer, a memset for
// runs of one byte near a stream's end, and glue.c's own Adler-32 (build.sh).
// Checked against Node's zlib, another implementation: its streams of every
// level and strategy, over data whose lengths cross the Adler-32 loop's
// 16-byte steps and 32 KiB blocks (0xff bytes: the largest sums) and whose
// last bytes expand the most (long runs at the end), decode to the bytes
// that were compressed, exactly or with room to spare, and one byte short
// is refused; a wrong checksum is refused; damaged copies are refused or
// decode to the original bytes (the checksum guards the rest).
test("zlib and gzip: Node's streams of every level and strategy round-trip; wrong checksums and damaged streams are refused", async () => {
  assert.equal(await loadCodecs(), true);
  const rnd = randomInts(1950);
  const sizes = [...Array.from({ length: 80 }, (_, i) => i), 4093, 65536 + 7, (1 << 20) - 1, (1 << 20) + 9];
  const data = (n, k, id) => {
    const u = new Uint8Array(n);
    const kind = id === "zlib" && n > 4000 ? 0 : k % 5;
    if (kind === 0) u.fill(0xff);
    else if (kind === 1) for (let i = 0; i < n; i++) u[i] = rnd(256);
    else if (kind === 2) {
      const f = new Float32Array(u.buffer, 0, n >> 2);
      for (let i = 0; i < f.length; i++) f[i] = Math.round((Math.sin(i / 70) * 100 + rnd(64) / 16) * 16) / 16;
    } else if (kind === 3) for (let i = 0; i < n; i++) u[i] = i < n / 8 ? rnd(256) : 0x42 + (rnd(4000) === 0); // a long run at the end
    else for (let i = 0; i < n; i++) u[i] = i < 8 || rnd(6) === 0 ? rnd(256) : u[i - 1 - rnd(Math.min(i, 1 + rnd(300)))];
    return u;
  };
  let refused = 0;
  let k = 0;
  for (const n of sizes) {
    for (const id of ["zlib", "gzip"]) {
      k++;
      const plain = data(n, k, id);
      const opts = { level: k % 10, strategy: k % 5, memLevel: 1 + (k % 9) };
      const stream = new Uint8Array(id === "zlib" ? nodeZlib.deflateSync(plain, opts) : nodeZlib.gzipSync(plain, opts));
      const what = `${id} stream ${k} (${n} bytes, level ${opts.level}, strategy ${opts.strategy})`;
      assert.ok(Buffer.from(hostDecoders[id](stream, Math.max(1, n)) ?? []).equals(Buffer.from(plain)), what);
      assert.ok(Buffer.from(hostDecoders[id](stream, n + 64) ?? []).equals(Buffer.from(plain)), `${what}, with room to spare`);
      if (n > 0) assert.equal(hostDecoders[id](stream, n - 1), null, `${what}: one byte short`);
      const sum = stream.slice();
      sum[id === "zlib" ? sum.length - 1 - rnd(4) : sum.length - 5 - rnd(4)] ^= 1 << rnd(8);
      assert.equal(hostDecoders[id](sum, Math.max(1, n)), null, `${what}: a wrong checksum`);
      for (let d = 0; d < 3; d++) {
        const bad = stream.slice();
        const at = d === 0 ? rnd(bad.length) : Math.max(0, bad.length - 1 - rnd(Math.min(bad.length, 40)));
        bad[at] ^= 1 + rnd(255);
        const out = hostDecoders[id](d === 2 ? bad.subarray(0, rnd(bad.length)) : bad, Math.max(1, n));
        if (out === null) refused++;
        else assert.ok(Buffer.from(out).equals(Buffer.from(plain)), `damaged ${what}: decoded to other bytes`);
      }
    }
  }
  assert.ok(refused > 400, `${refused} damaged streams refused`);
});
