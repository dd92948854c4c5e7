// Requests, bytes and time over a slow link, zarr-wasm against zarrita.js
// (the benchmark of docs/performance.md's "Over HTTP, 6 connections"): a
// server in another process (tests/bench/http-server.mjs) adds 20 ms to
// every request and answers 6 at a time, as a browser's 6 connections per
// host over HTTP/1.1 would let through. Each library reads with its own
// FetchStore, a fresh store per run, one thread (zarr-wasm: workers off),
// the two alternately; the server counts the requests and body bytes of
// each run.
//   RUNS=7 node tests/bench/objstore.mjs
// The data (written to a temporary directory by zarr-wasm, read back by
// both): a 4096² uint16 array (zstd) in 256² chunks, the same in 1024²
// shards of 256² chunks (v3), the first zipped (Python's zipfile, entries
// stored, as zarr-python's ZipStore writes them; zarrita.js reads it with
// @zarrita/storage's ZipFileStore), and an OME-Zarr 0.4 plate (Zarr v2) of
// 96 wells with one field each (a 2-level pyramid of 512² uint16).
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { zarrita, ZarritaFetchStore, ZarritaZipFileStore } from "../../npm/dev/deps.mjs";
import { startServerProcess, median } from "./sections.mjs";

const N = 4096;
const runs = Number(process.env.RUNS ?? 7);
const rows = "ABCDEFGH".split("");
const cols = Array.from({ length: 12 }, (_, i) => String(i + 1));

async function writeData() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-objstore-bench-"));
  const store = new FileSystemStore(dir);
  // A smooth field with noise (an image-like uint16), as compressible as microscopy.
  const data = new Uint16Array(N * N);
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) data[i * N + j] = 2000 + 1500 * Math.sin(i / 200) * Math.cos(j / 300) + rnd() * 200;
  const codecs = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3 } }];
  for (const [name, extra] of [["u16", {}], ["u16-sharded", { shardShape: [1024, 1024] }]]) {
    const a = await zarr.create(store, { path: name, shape: [N, N], chunks: [256, 256], dtype: "uint16", zarrFormat: 3, codecs, ...extra });
    await a.set(null, { data, shape: [N, N] });
  }
  // u16.zip: the array's directory zipped from within, entries stored.
  const zipScript = "import os, sys, zipfile\nroot = os.path.join(sys.argv[1], 'u16')\nwith zipfile.ZipFile(os.path.join(sys.argv[1], 'u16.zip'), 'w', zipfile.ZIP_STORED) as z:\n    for d, _, files in os.walk(root):\n        for f in sorted(files):\n            z.write(os.path.join(d, f), os.path.relpath(os.path.join(d, f), root))\n";
  execFileSync("python3", ["-c", zipScript, dir]);
  const wells = [];
  for (const r of rows) for (const c of cols) wells.push({ path: `${r}/${c}`, rowIndex: rows.indexOf(r), columnIndex: cols.indexOf(c) });
  await zarr.createGroup(store, {
    path: "plate.zarr",
    zarrFormat: 2,
    attributes: { plate: { version: "0.4", name: "bench", rows: rows.map((name) => ({ name })), columns: cols.map((name) => ({ name })), wells, field_count: 1 } },
  });
  const field = new Uint16Array(512 * 512).map((_, i) => (i * 7) % 4096);
  const half = new Uint16Array(256 * 256).map((_, i) => (i * 5) % 4096);
  const compressor = { id: "zstd", level: 3 };
  for (const w of wells) {
    await zarr.createGroup(store, { path: `plate.zarr/${w.path}`, zarrFormat: 2, attributes: { well: { version: "0.4", images: [{ path: "0" }] } } });
    const multiscales = [{ version: "0.4", axes: [{ name: "y", type: "space" }, { name: "x", type: "space" }], datasets: [0, 1].map((l) => ({ path: String(l), coordinateTransformations: [{ type: "scale", scale: [2 ** l, 2 ** l] }] })) }];
    await zarr.createGroup(store, { path: `plate.zarr/${w.path}/0`, zarrFormat: 2, attributes: { multiscales } });
    const a0 = await zarr.create(store, { path: `plate.zarr/${w.path}/0/0`, shape: [512, 512], chunks: [256, 256], dtype: "<u2", zarrFormat: 2, compressor });
    await a0.set(null, { data: field, shape: [512, 512] });
    const a1 = await zarr.create(store, { path: `plate.zarr/${w.path}/0/1`, shape: [256, 256], chunks: [256, 256], dtype: "<u2", zarrFormat: 2, compressor });
    await a1.set(null, { data: half, shape: [256, 256] });
  }
  return dir;
}

const dir = await writeData();
const server = await startServerProcess(dir, 20, 6);
const win = [1000, 2000];

/** Opens the plate, then each well, its first field and the field's first level (the 96 wells at once, as a viewer does). */
async function plateOurs(url) {
  const store = new zarr.FetchStore(url);
  const plate = await zarr.open(store, { kind: "group" });
  await Promise.all(
    plate.attrs.plate.wells.map(async (w) => {
      const well = await zarr.open(store, { path: w.path, kind: "group" });
      const image = await zarr.open(store, { path: `${w.path}/${well.attrs.well.images[0].path}`, kind: "group" });
      const level = await zarr.open(store, { path: `${image.path}/${image.attrs.multiscales[0].datasets[0].path}`, kind: "array" });
      if (level.shape[0] !== 512) throw new Error(`${level.path}: shape ${level.shape}`);
    }),
  );
}
async function plateTheirs(url) {
  const root = zarrita.root(new ZarritaFetchStore(url));
  const plate = await zarrita.open(root, { kind: "group" });
  await Promise.all(
    plate.attrs.plate.wells.map(async (w) => {
      const well = await zarrita.open(root.resolve(w.path), { kind: "group" });
      const image = await zarrita.open(well.resolve(well.attrs.well.images[0].path), { kind: "group" });
      const level = await zarrita.open(image.resolve(image.attrs.multiscales[0].datasets[0].path), { kind: "array" });
      if (level.shape[0] !== 512) throw new Error(`${level.path}: shape ${level.shape}`);
    }),
  );
}

const jobs = [];
for (const [name, key] of [["unsharded (256² chunks)", "u16"], ["sharded (1024² shards of 256² chunks)", "u16-sharded"]]) {
  const url = `${server.url}/${key}`;
  jobs.push({
    name: `open + 1000×1000 window, ${name}`,
    ours: async () => {
      const a = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
      return (await a.get([zarr.slice(...win), zarr.slice(...win)], { workers: false })).data;
    },
    theirs: async () => {
      const a = await zarrita.open(zarrita.root(new ZarritaFetchStore(url)), { kind: "array" });
      return (await zarrita.get(a, [zarrita.slice(...win), zarrita.slice(...win)])).data;
    },
  });
}
jobs.push({
  name: "open + 1000×1000 window, a zip of the 256² chunks (stored)",
  ours: async () => {
    const z = await zarr.ZipStore.open(new zarr.FetchStore(`${server.url}/`), "/u16.zip");
    return (await (await zarr.open(z, { kind: "array" })).get([zarr.slice(...win), zarr.slice(...win)], { workers: false })).data;
  },
  theirs: async () => {
    const a = await zarrita.open(zarrita.root(ZarritaZipFileStore.fromUrl(`${server.url}/u16.zip`)), { kind: "array" });
    return (await zarrita.get(a, [zarrita.slice(...win), zarrita.slice(...win)])).data;
  },
});
jobs.push({ name: "OME-Zarr plate: open the 96 wells' first field", ours: () => plateOurs(`${server.url}/plate.zarr`), theirs: () => plateTheirs(`${server.url}/plate.zarr`) });

// Both read the same values.
for (const j of jobs.slice(0, 3)) {
  const [a, b] = [await j.ours(), await j.theirs()];
  if (a.length !== b.length || a.some((v, i) => v !== b[i])) throw new Error(`${j.name}: the libraries read different values`);
}
async function measure(fn) {
  const before = await server.counts();
  const t = performance.now();
  await fn();
  const ms = performance.now() - t;
  const after = await server.counts();
  return { ms, requests: after.requests - before.requests, bytes: after.bytes - before.bytes };
}
for (const j of jobs) {
  j.w = [];
  j.z = [];
  await j.ours(), await j.theirs(); // warm-up
}
for (let r = 0; r < runs; r++) {
  for (const j of jobs) {
    if (r % 2) j.z.push(await measure(j.theirs)), j.w.push(await measure(j.ours));
    else j.w.push(await measure(j.ours)), j.z.push(await measure(j.theirs));
  }
}
const kb = (b) => `${(b / 1024).toFixed(0)} KiB`;
console.log(`Over HTTP: 20 ms added per request, 6 answered at once; median of ${runs} runs, alternately (load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")})`);
console.log("");
console.log("| read | zarr-wasm ms | zarrita.js ms | time ratio | requests, zarr-wasm / zarrita.js | bytes, zarr-wasm / zarrita.js |");
console.log("|---|---:|---:|---:|---|---|");
for (const j of jobs) {
  const m = (xs, k) => median(xs.map((x) => x[k]));
  const ratio = median(j.w.map((x, i) => x.ms / j.z[i].ms));
  console.log(`| ${j.name} | ${m(j.w, "ms").toFixed(0)} | ${m(j.z, "ms").toFixed(0)} | ${ratio.toFixed(2)} | ${m(j.w, "requests")} / ${m(j.z, "requests")} | ${kb(m(j.w, "bytes"))} / ${kb(m(j.z, "bytes"))} |`);
}
await server.close();
await fs.rm(dir, { recursive: true, force: true });
process.exit(0);
