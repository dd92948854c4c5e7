// The memory budget and the engine's restart, in WebAssembly: each trigger
// runs in its own Node process (tests/node/memory/trigger.mjs) under a time
// limit, and must give its typed error, after which a normal read in the
// same process works. The triggers: selections over what 32-bit memory can
// hold, one-element writes into a 2 GiB chunk and into a shard of 2^26
// inner chunks, gzip- and zstd-bombed reference files (TOO_LARGE, nothing
// allocated beyond the budget); and the engine itself stopping with a read
// in flight (a panic no call recovers, the Go heap outgrowing memory, an
// exit): that read rejects with ENGINE_EXITED, a handle of the stopped
// engine fails the same way, and the next call runs on a fresh engine.
// zarr/budget_test.go has the Go side.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { repoRoot } from "./helpers.mjs";

const script = path.join(repoRoot, "tests", "node", "memory", "trigger.mjs");

function run(name, limitMs) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, name], { timeout: limitMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err && err.killed) return reject(new Error(`${name}: no answer within ${limitMs} ms (a hang)`));
      const line = stdout.trim().split("\n").pop();
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`${name}: the process ended without a result (exit ${err?.code}): ${stderr.slice(-2000)}`));
      }
    });
  });
}

const tooLarge = [
  ["selection4GiB", "a selection of 4 GiB", /needs 4\.0 GiB/],
  ["selection3_9GiB", "a selection of 3.9 GiB", /needs 3\.9 GiB.*WebAssembly/],
  ["write2GiBChunk", "a one-element write into a 2 GiB chunk", /needs 10\.0 GiB/],
  ["writeHugeShard", "a one-element write into a shard of 2^26 inner chunks", /shard of \[67108864\] inner chunks/],
  ["gzipBomb", "a gzip-bombed reference file (1.5 GiB from 1.6 MB)", /gzip-compressed reference file decompresses to more than/],
  ["zstdBomb", "a zstd-bombed reference file (16 GiB claimed)", /zstd-compressed reference file decompresses to more than/],
];

for (const [name, what, re] of tooLarge) {
  test(`${what}: TOO_LARGE naming size and limit, then a normal read`, async (t) => {
    const r = await run(name, 120_000);
    t.diagnostic(`${r.ms} ms: ${r.message}`);
    assert.equal(r.code, "TOO_LARGE", r.message);
    assert.match(r.message, re);
    assert.match(r.message, /\d+ bytes.*\d+ bytes/, "the message names the size and the limit in bytes");
    assert.equal(r.after, "ok");
    assert.deepEqual(r.stops, [], "the engine did not stop");
  });
}

for (const [name, reason] of [
  ["panic", /panic: zarr-wasm/],
  ["oom", /out of memory/],
  ["exit", /exited with code 3/],
]) {
  test(`the engine stops (${name}) with a read in flight: ENGINE_EXITED, then a fresh engine reads`, async (t) => {
    const r = await run(name, 120_000);
    t.diagnostic(`${r.ms} ms: ${r.message}`);
    assert.equal(r.code, "ENGINE_EXITED", r.message);
    assert.match(r.message, reason);
    assert.equal(r.after, "ok");
    assert.ok(r.engines >= 2, "a second engine started"); // (the core build's, the full build's, the fresh one)
    assert.equal(r.stops.length, 1);
  });
}
