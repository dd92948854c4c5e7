// zlib and gzip chunks are inflated by the package's zlib (compiled to
// WebAssembly); a chunk it cannot inflate falls back to the Go decoder,
// whose error names the chunk.
import { test } from "node:test";
import assert from "node:assert/strict";
import { deflateSync, gzipSync } from "node:zlib";
import * as zarr from "../../npm/index.js";

for (const [id, compress] of [["zlib", deflateSync], ["gzip", gzipSync]]) {
  test(`${id} chunks written by Node's zlib read back, corrupt ones fail naming the key`, async () => {
    const store = new zarr.MemoryStore();
    const arr = await zarr.create(store, { path: "a", shape: [8], chunks: [4], dtype: "<i4", zarrFormat: 2, compressor: { id, level: 1 } });
    const values = Int32Array.from([1, -2, 3, -4, 5, -6, 7, -8]);
    // Chunks compressed by Node's own zlib (not by the engine).
    await store.set("/a/0", new Uint8Array(compress(Buffer.from(values.buffer, 0, 16))));
    await store.set("/a/1", new Uint8Array(compress(Buffer.from(values.buffer, 16, 16))));
    const { data } = await arr.get(null);
    assert.deepEqual(Array.from(data), Array.from(values));
    await store.set("/a/1", new Uint8Array([0x78, 0x9c, 1, 2, 3, 4]));
    await assert.rejects(arr.get(null), (e) => e.code === "CODEC" && e.message.includes("a/1"));
  });
}
