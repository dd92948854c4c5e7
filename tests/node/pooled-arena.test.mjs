// The arena of pooled reads (npm/lib/pooled.js): shared memory the calling
// thread copies stored chunks into for the decode workers, taken round a
// ring and given back as the workers answer, in any order. No two blocks in
// use may overlap, a block keeps its bytes until it is given back, and a
// chunk that finds no room goes in a message of its own (put returns null).
// Then reads through the pool with chunks that fit, chunks that do not, and
// several reads at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { Arena } from "../../npm/lib/pooled.js";
import { randomInts } from "./helpers.mjs";

test("arena blocks never overlap, keep their bytes until freed, and room comes back", () => {
  const size = 4096;
  const a = new Arena(size);
  const rnd = randomInts(5);
  const live = [];
  let placed = 0;
  let refused = 0;
  let wrapped = 0;
  for (let step = 0; step < 20000; step++) {
    if (live.length > 0 && (rnd(2) === 0 || live.length > 12)) {
      // give back any block (answers come in any order)
      const [b] = live.splice(rnd(live.length), 1);
      assert.ok(Buffer.from(a.bytes.subarray(b.block.at, b.block.at + b.src.length)).equals(Buffer.from(b.src)), "a block kept its bytes until freed");
      a.free(b.block);
      continue;
    }
    const src = new Uint8Array(rnd(4) === 0 ? rnd(3000) : 1 + rnd(600)).map(() => rnd(256));
    const block = a.put(src);
    if (!block) {
      refused++;
      // refused only when no gap of that size is free at the ring's ends
      if (live.length === 0) assert.fail("an empty arena refused a block that fits");
      continue;
    }
    placed++;
    if (block.at === 0 && live.length > 0) wrapped++;
    assert.ok(block.at >= 0 && block.at + src.length <= size);
    for (const o of live) assert.ok(block.end <= o.block.at || o.block.end <= block.at, `blocks overlap: [${block.at}, ${block.end}) and [${o.block.at}, ${o.block.end})`);
    live.push({ block, src });
  }
  for (const b of live) a.free(b.block);
  assert.equal(a.live.length, 0);
  assert.ok(a.put(new Uint8Array(size)), "all room is back");
  assert.equal(a.put(new Uint8Array(size + 1)), null);
  assert.ok(placed > 5000 && refused > 50 && wrapped > 50, `${placed} placed, ${refused} refused, ${wrapped} wrapped`);
});

test("pooled reads with chunks in the arena, chunks too large for it, and reads at once agree with the engine", async () => {
  const store = new zarr.MemoryStore();
  const values = (n) => Float64Array.from({ length: n }, (_, i) => Math.sin(i / 50) * 100 + (i % 7));
  const small = await zarr.create(store, { path: "/small", shape: [300, 300], chunks: [40, 40], dtype: "<f8", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
  await small.set(null, { data: values(300 * 300), shape: [300, 300] });
  // one chunk of 24 MB stored (random bytes do not compress): more than the arena
  const big = await zarr.create(store, { path: "/big", shape: [2, 3000000], chunks: [1, 3000000], dtype: "<f8", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
  const noise = new Float64Array(6000000);
  const u = new Uint32Array(noise.buffer);
  for (let i = 0, x = 1; i < u.length; i++) u[i] = x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
  await big.set(null, { data: noise, shape: [2, 3000000] });
  const bytesOf = (d) => Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  const pool = await zarr.useWorkers(2, { minBytes: 0, shared: true });
  try {
    const sels = [null, [zarr.slice(13, 290), zarr.slice(7, 300, 3)]];
    const alone = await Promise.all([...sels.map((s) => small.get(s, { workers: false })), big.get(null, { workers: false })]);
    const before = pool.stats().reads.shared;
    // at once: their chunks share the arena
    const pooled = await Promise.all([...sels.map((s) => small.get(s)), big.get(null), ...sels.map((s) => small.get(s))]);
    assert.equal(pool.stats().reads.shared, before + 5);
    for (const [i, want] of [alone[0], alone[1], alone[2], alone[0], alone[1]].entries()) {
      assert.ok(bytesOf(pooled[i].data).equals(bytesOf(want.data)), `read ${i} differs`);
    }
  } finally {
    await zarr.useWorkers(0);
  }
});
