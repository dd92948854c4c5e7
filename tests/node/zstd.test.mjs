// zstd in the package is libzstd compiled to WebAssembly (npm/zstd), handed
// to the engine as a host decoder. Checked against frames numcodecs 0.11
// (Debian's libzstd) wrote (zarr/codec/testdata/numcodecs), frame layouts
// the Go decoder also accepts, refusals that leave the chunk to the engine,
// and that the engine really decodes zarr-python's zstd chunks with it.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { zstdDecode, zstdStats, loadZstd } from "../../npm/lib/zstd.js";
import { repoRoot, fixturesV2, loadCases, compareCase } from "./helpers.mjs";

const vectorDir = path.join(repoRoot, "zarr", "codec", "testdata", "numcodecs");
const index = JSON.parse(await fs.readFile(path.join(vectorDir, "index.json"), "utf8"));
const vectors = index.vectors.filter((v) => v.config.id === "zstd");
const read = async (f) => new Uint8Array(await fs.readFile(path.join(vectorDir, f)));

test("numcodecs' zstd frames decode to numcodecs' bytes, with and without the expected size", async () => {
  assert.equal(await loadZstd(), true);
  assert.ok(vectors.length >= 12, `${vectors.length} vectors`);
  for (const v of vectors) {
    const [enc, dec] = [await read(v.encoded), await read(v.decoded)];
    assert.deepEqual(zstdDecode(enc, 0), dec, `${v.name}, size unknown`);
    assert.deepEqual(zstdDecode(enc, dec.length), dec, `${v.name}, size known`);
  }
});

test("several frames and skippable frames, as the Go decoder accepts them", async () => {
  const [a, b] = [vectors.find((v) => v.name.endsWith("/text")), vectors.find((v) => v.name.endsWith("/ramp"))];
  const [ea, da, eb, db] = [await read(a.encoded), await read(a.decoded), await read(b.encoded), await read(b.decoded)];
  const skippable = Uint8Array.of(0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3);
  const joined = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) out.set(p, (o += p.length) - p.length);
    return out;
  };
  assert.deepEqual(zstdDecode(joined(ea, eb), 0), joined(da, db));
  assert.deepEqual(zstdDecode(joined(skippable, ea, skippable), 0), da);
});

test("refusals leave the chunk to the engine: corrupt, truncated, not zstd, bigger than expected", async () => {
  const v = vectors.find((x) => x.name.endsWith("/text"));
  const [enc, dec] = [await read(v.encoded), await read(v.decoded)];
  const corrupt = enc.slice();
  corrupt[corrupt.length >> 1] ^= 0xff;
  for (const [what, bytes, max] of [
    ["truncated", enc.subarray(0, enc.length - 3), 0],
    ["not zstd", Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8), 0],
    ["empty", new Uint8Array(0), 0],
    ["more than expected", enc, dec.length - 1],
  ]) {
    assert.equal(zstdDecode(bytes, max), null, what);
  }
  const out = zstdDecode(corrupt, 0);
  assert.ok(out === null || out.length !== dec.length || !out.every((x, i) => x === dec[i]), "a corrupt frame never decodes to the original");
});

test("the engine decodes zarr-python's zstd and Blosc(zstd) chunks with it, and reports what it declines", async () => {
  const all = await loadCases(path.join(fixturesV2, "cases.json"));
  // zstd chunks, and Blosc chunks whose blocks are zstd streams.
  for (const pattern of [/^codecs\/zstd_/, /^codecs\/blosc_zstd/]) {
    const cases = all.filter((c) => pattern.test(c.name));
    assert.ok(cases.length >= 3, String(pattern));
    const before = zstdStats.decoded;
    for (const c of cases) {
      const arr = await zarr.open(new FileSystemStore(path.join(fixturesV2, "data", c.store)), { path: c.path, kind: "array" });
      const diff = compareCase(c, await arr.get(c.selection));
      assert.equal(diff, null, `${c.name}: ${diff}`);
    }
    assert.ok(zstdStats.decoded > before, `${pattern}: streams went through libzstd`);
  }
  // A corrupt chunk: libzstd declines, the Go decoder reports it by key.
  const store = new zarr.MemoryStore();
  const a = await zarr.create(store, { path: "a", shape: [4], chunks: [4], dtype: "<i4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
  await store.set("/a/0", Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x10, 9, 9, 9));
  const declined = zstdStats.declined;
  await assert.rejects(a.get(null), (e) => e.code === "CODEC" && e.message.includes("a/0"));
  assert.ok(zstdStats.declined > declined);
});
