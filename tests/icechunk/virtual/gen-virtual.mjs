// Writes the virtual-chunk repositories under tests/icechunk/virtual/ with
// the official package's native build (its WASI build has no
// setVirtualRef): run
//
//   cc -shared -fPIC -O2 -o /tmp/icechunk-shim.so tests/icechunk/virtual/shim.c
//   LD_PRELOAD=/tmp/icechunk-shim.so node tests/icechunk/virtual/gen-virtual.mjs
//
// Chunks point into target.bin (written here too) at the location
// https://zarr-wasm-test.example/virtual/target.bin; tests serve the file over HTTP
// on 127.0.0.1 and map the prefix there. What the references record:
//   virt/etag   the ETag "target-v1" (tests serve it, or another to see a CONFLICT)
//   virt/mtime  a last-modified time of 2024-01-02T00:00:00Z
//   virt/plain  no checksum
//   virt/mixed  a virtual chunk (ETag "target-v1"), a native one, two missing
//   virt/small  inline chunks
//   virt/many   1,200 virtual chunks of one float32 each, their locations
//               varying by a query string: Icechunk compresses the
//               locations of a manifest with 1,000 or more with a zstd
//               dictionary it trains (spec 2 only)
// Repositories: spec 2 (repo-v2) and spec 1 (repo-v1).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "zarrita";
import { Repository, dirStorage, zarritaStore } from "../common.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const location = "https://zarr-wasm-test.example/virtual/target.bin";
const prefix = "https://zarr-wasm-test.example/virtual/";

// 4,096 bytes: float32 values i * 0.25 (1,024 of them)
const target = new Float32Array(1024).map((_, i) => i * 0.25);
fs.writeFileSync(path.join(here, "target.bin"), new Uint8Array(target.buffer));

const bytesCodec = { name: "bytes", configuration: { endian: "little" } };
const meta = (shape, chunks, fill = 0) =>
  new TextEncoder().encode(
    JSON.stringify({
      zarr_format: 3,
      node_type: "array",
      shape,
      data_type: "float32",
      chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      fill_value: fill,
      codecs: [bytesCodec],
      attributes: {},
    }),
  );

async function write(dir, spec) {
  fs.rmSync(dir, { recursive: true, force: true });
  const config = {
    inlineChunkThresholdBytes: 16,
    virtualChunkContainers: { [prefix]: { urlPrefix: prefix, store: { type: "Http", field0: { opts: {}, headers: {} } } } },
  };
  const repo = await Repository.create(dirStorage(dir), config, spec);
  const s = await repo.writableSession("main");
  const st = s.store;
  const zs = zarritaStore(st);
  await zs.set("/zarr.json", new TextEncoder().encode('{"zarr_format":3,"node_type":"group","attributes":{"about":"virtual chunks"}}'));
  await zs.set("/virt/zarr.json", new TextEncoder().encode('{"zarr_format":3,"node_type":"group","attributes":{}}'));
  // 4 chunks of 16 float32 (64 bytes) at offsets 0, 64, 128, 192 ...
  const lm = new Date("2024-01-02T00:00:00Z");
  for (const [name, etag, date] of [["etag", "target-v1", null], ["mtime", null, lm], ["plain", null, null]]) {
    await zs.set(`/virt/${name}/zarr.json`, meta([4, 16], [1, 16]));
    for (let i = 0; i < 4; i++) {
      const off = 64 * i + (name === "mtime" ? 1024 : name === "plain" ? 2048 : 0);
      await st.setVirtualRef(`virt/${name}/c/${i}/0`, location, off, 64, etag, date, false);
    }
  }
  await zs.set("/virt/mixed/zarr.json", meta([4, 16], [1, 16], -1));
  await st.setVirtualRef("virt/mixed/c/0/0", location, 3072, 64, "target-v1", null, false);
  await zs.set("/virt/mixed/c/1/0", new Uint8Array(new Float32Array(16).map((_, i) => 100 + i).buffer));
  await zs.set("/virt/small/zarr.json", meta([4], [2], 0));
  await zs.set("/virt/small/c/0", new Uint8Array(new Float32Array([7, 8]).buffer));
  if (spec === 2) {
    await zs.set("/virt/many/zarr.json", meta([1200], [1]));
    const specs = Array.from({ length: 1200 }, (_, i) => ({ index: [i], location: `${location}?part=${i % 97}`, offset: 4 * (i % 1024), length: 4 }));
    const failed = await st.setVirtualRefs("virt/many", specs, false);
    if (failed && failed.length) throw new Error(`setVirtualRefs failed for ${failed.length} chunks`);
  }
  await s.commit("virtual chunks");
  await repo.saveConfig();
}

await write(path.join(here, "repo-v2"), 2);
await write(path.join(here, "repo-v1"), 1);
process.exit(0);
