// The pool's quick bound (npm/lib/pooled.js decodedAtMost): a read whose
// bound is under the pool's floor is kept on this thread without asking the
// engine for a plan, so the bound must never be below what the engine's plan
// decodes (every chunk it touches, whole). Random selections of regular,
// edge-chunked and sharded arrays, against the engine's plans.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "../../npm/index.js";
import { bridgeIfRunning } from "../../npm/lib/runtime.js";
import { ReadPlan } from "../../npm/lib/plan.js";
import { decodedAtMost } from "../../npm/lib/pooled.js";
import { randomInts } from "./helpers.mjs";

const arrays = [
  { path: "f4", shape: [50, 33], chunks: [7, 5], dtype: "<f4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } },
  { path: "u2", shape: [9, 20, 13], chunks: [4, 6, 13], dtype: "uint16", zarrFormat: 3 },
  { path: "i1", shape: [101], chunks: [10], dtype: "int8", zarrFormat: 3 },
  { path: "sh", shape: [64, 40], chunks: [8, 8], shardShape: [32, 16], dtype: "float64", zarrFormat: 3 },
];

test("the pool's bound is never below the engine's decoded bytes", async () => {
  const store = new zarr.MemoryStore();
  const rnd = randomInts(20261123);
  let planned = 0;
  for (const opts of arrays) {
    const arr = await zarr.create(store, opts);
    const bridge = bridgeIfRunning();
    const end = (n) => [null, rnd(2 * n + 4) - n - 2][rnd(2)];
    for (let k = 0; k < 400; k++) {
      const sel = k === 0 ? null : arr.shape.map((n) => {
        switch (rnd(4)) {
          case 0: return null;
          case 1: return rnd(2 * n) - n; // -n .. n-1
          default: return zarr.slice(end(n), end(n), [null, 1 + rnd(9)][rnd(2)]);
        }
      });
      const bound = decodedAtMost(arr._info, sel);
      assert.ok(Number.isFinite(bound), `a bound for ${arr.path} ${JSON.stringify(sel)}`);
      const plan = bridge.planRead(arr._info.id, sel);
      if (!plan || plan.reason || plan.__zarrWasmError) continue; // declined (a part of a shard) or refused
      const rp = new ReadPlan(plan);
      let decoded = 0;
      for (let i = 0; i < rp.keys.length; i++) decoded += rp.chunkBytes(i);
      assert.ok(bound >= decoded, `${arr.path} ${JSON.stringify(sel)}: bound ${bound} < the engine's ${decoded}`);
      planned++;
    }
  }
  assert.ok(planned > 800, `only ${planned} selections were planned by the engine`);
});
