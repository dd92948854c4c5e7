// pcodec through the npm package: numcodecs' pcodec streams as one-chunk v2
// and v3 arrays, and zarrs' pcodec arrays (tests/fixtures/pcodec, see
// gen.py there), read with FileSystemStore and compared with the arrays
// numcodecs encoded (.npy) and the values zarrs' tests state.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { promises as fs } from "node:fs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { repoRoot } from "./helpers.mjs";

const fixtureDir = path.join(repoRoot, "tests", "fixtures", "pcodec");
const vectorDir = path.join(repoRoot, "zarr", "codec", "pcodec", "testdata", "numcodecs");
const cases = JSON.parse(await fs.readFile(path.join(fixtureDir, "cases.json"), "utf8"));

/** The little-endian bytes of a .npy array in C order. */
async function npyBytes(file) {
  const b = new Uint8Array(await fs.readFile(path.join(vectorDir, file)));
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const [hlen, off] = b[6] === 1 ? [dv.getUint16(8, true), 10] : [dv.getUint32(8, true), 12];
  const header = new TextDecoder().decode(b.subarray(off, off + hlen));
  const data = b.subarray(off + hlen);
  if (!header.includes("'fortran_order': True")) return data;
  const [rows, cols] = header.match(/'shape': \((\d+), (\d+)\)/).slice(1).map(Number);
  const size = data.length / (rows * cols);
  const out = new Uint8Array(data.length);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) out.set(data.subarray((j * rows + i) * size, (j * rows + i + 1) * size), (i * cols + j) * size);
  return out;
}

test("pcodec: numcodecs' and zarrs' arrays read in Node", async () => {
  assert.equal(cases.length, 25);
  for (const c of cases) {
    const arr = await zarr.open(new FileSystemStore(path.join(fixtureDir, c.path)), { kind: "array" });
    const { data } = await arr.get();
    const got = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const want = c.npy ? await npyBytes(c.npy) : new Uint8Array(Float32Array.from({ length: c.arange }, (_, i) => i).buffer);
    assert.deepEqual(got, want, c.path);
  }
});

test("pcodec: a corrupt chunk is a CODEC error naming the codec", async () => {
  const store = new zarr.MemoryStore();
  const src = path.join(fixtureDir, "zarrs", "v2", "array_pcodec_C.zarr");
  for (const key of [".zarray", "0.0"]) {
    const b = new Uint8Array(await fs.readFile(path.join(src, key)));
    await store.set(`/${key}`, key === "0.0" ? b.subarray(0, b.length - 9) : b);
  }
  const arr = await zarr.open(store, { kind: "array" });
  await assert.rejects(arr.get("0:5, 0:5"), (e) => e.code === "CODEC" && /pcodec/.test(e.message));
});
