// Decode speed of the decoders' module (npm/lib/codecs.wasm) alone, or of
// several builds of it side by side: each decodes the same 16 chunks per
// codec (256×256 float32, the top-left 1024×1024 of the read bench's data,
// written by the package: zstd level 3, zlib level 1, Blosc lz4/zstd/zlib
// level 5 with byte shuffle; and the read bench's uint16 image, zstd and
// zlib, 256×512 chunks) straight from its own memory, the builds
// interleaved (order rotated each round). The figure is MB of decoded
// output per CPU second of the process (process.cpuUsage: steadier than
// wall time on a shared machine), median of the rounds; every build must
// decode every chunk to the same bytes as the first.
//
// The last row is zarrita.js's own decoder for each codec, timed the same
// way through the codec's decode, the 16 chunks at once as a zarrita read
// decodes them (numcodecs.js's zstd and Blosc modules decode one after the
// other anyway; the host's DecompressionStream, for zlib, costs less CPU
// per chunk that way than one chunk at a time), so that the table shows
// how much of a read's ratio the decoders alone set: a strided read
// decodes every chunk and keeps a 16th, so its time is nearly all decoding
// on both sides.
//
//   node tests/bench/decoders.mjs [label=file.wasm ...] [--rounds 9]
import { readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { makeData, makeImage, N } from "./reads.mjs";
import { median } from "./sections.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const rounds = Number(args.includes("--rounds") ? args[args.indexOf("--rounds") + 1] : 9);
const builds = args.filter((a) => a.includes("=")).map((a) => a.split("="));
if (builds.length === 0) builds.push(["lib/codecs.wasm", path.join(here, "..", "..", "npm", "lib", "codecs.wasm")]);

const M = 1024, C = 256, chunkBytes = C * C * 4;
const full = makeData();
const data = new Float32Array(M * M);
for (let i = 0; i < M; i++) data.set(full.subarray(i * N, i * N + M), i * M);
// (and the read bench's uint16 image in chunks of 256×512: the same bytes per chunk)
const fullImage = makeImage();
const image = new Uint16Array(2 * M * M);
for (let i = 0; i < M; i++) image.set(fullImage.subarray(i * N, i * N + 2 * M), i * 2 * M);
const codecs = {
  zstd: { compressor: { id: "zstd", level: 3 } },
  zlib: { compressor: { id: "zlib", level: 1 } },
  "blosc-lz4": { compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 } },
  "blosc-zstd": { compressor: { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 } },
  "blosc-zlib": { compressor: { id: "blosc", cname: "zlib", clevel: 5, shuffle: 1, blocksize: 0 } },
  "uint16 image zstd": { compressor: { id: "zstd", level: 3 }, dtype: "<u2" },
  "uint16 image zlib": { compressor: { id: "zlib", level: 1 }, dtype: "<u2" },
};
const names = Object.keys(codecs);
const store = new zarr.MemoryStore();
const chunks = {};
for (const [name, o] of Object.entries(codecs)) {
  const u2 = o.dtype === "<u2";
  const a = await zarr.create(store, { path: name, shape: u2 ? [M, 2 * M] : [M, M], chunks: u2 ? [C, 2 * C] : [C, C], dtype: "<f4", zarrFormat: 2, ...o });
  await a.set(null, { data: u2 ? image : data, shape: u2 ? [M, 2 * M] : [M, M] });
  chunks[name] = [...store.map].filter(([k]) => k.startsWith(`/${name}/`) && /\/\d+\.\d+$/.test(k)).map(([, v]) => v);
}

const mods = [];
for (const [label, file] of builds) {
  const { instance } = await WebAssembly.instantiate(readFileSync(file), {});
  const w = instance.exports;
  w._initialize?.();
  const dst = w.malloc_(chunkBytes);
  const src = {};
  for (const c of names) {
    src[c] = chunks[c].map((b) => {
      const p = w.malloc_(b.length);
      new Uint8Array(w.memory.buffer, p, b.length).set(b);
      return [p, b.length];
    });
  }
  const blosc = (p, n) => w.blosc_decode(dst, chunkBytes, p, n);
  const zstd = (p, n) => w.zstd_decompress(dst, chunkBytes, p, n);
  const zlib = (p, n) => w.inflate_(0, dst, chunkBytes, p, n);
  const dec = { zstd, zlib, "blosc-lz4": blosc, "blosc-zstd": blosc, "blosc-zlib": blosc, "uint16 image zstd": zstd, "uint16 image zlib": zlib };
  const out = {};
  for (const c of names) {
    out[c] = src[c].map(([p, n]) => {
      if (dec[c](p, n) !== chunkBytes) throw new Error(`${label}: a ${c} chunk was declined`);
      return Buffer.from(new Uint8Array(w.memory.buffer, dst, chunkBytes));
    });
    if (mods.length && out[c].some((b, i) => !b.equals(mods[0].out[c][i]))) throw new Error(`${label}: ${c} decodes differently from ${mods[0].label}`);
  }
  const raw = readFileSync(file);
  mods.push({ label, raw: raw.length, src, dec, out, t: Object.fromEntries(names.map((c) => [c, []])) });
}
// zarrita.js's decoders, as its codec registry gives them for these arrays' metadata.
const peerConfig = (o) => (o.compressor.id === "blosc" ? ["blosc", o.compressor] : [o.compressor.id, o.compressor.id === "zstd" ? { level: o.compressor.level } : {}]);
const peer = { label: "zarrita.js's decoders", dec: {}, t: Object.fromEntries(names.map((c) => [c, []])) };
for (const c of names) {
  const [id, config] = peerConfig(codecs[c]);
  const codec = (await zarrita.registry.get(id)()).fromConfig(config, { dataType: codecs[c].dtype === "<u2" ? "uint16" : "float32", shape: [C, C], codecs: [] });
  peer.dec[c] = (b) => codec.decode(b);
  for (const [i, b] of chunks[c].entries()) {
    if (!Buffer.from(await peer.dec[c](b)).equals(mods[0].out[c][i])) throw new Error(`zarrita.js decodes a ${c} chunk differently from ${mods[0].label}`);
  }
}
for (const m of mods) for (const c of names) for (let k = 0; k < 20; k++) for (const [p, n] of m.src[c]) m.dec[c](p, n); // (V8 tiers up)
for (const c of names) for (let k = 0; k < 5; k++) await Promise.all(chunks[c].map((b) => peer.dec[c](b)));
/** MB of output per CPU second of the process since t0 (a process.cpuUsage()). */
const mbPerCpuSecond = (bytes, t0) => {
  const u = process.cpuUsage(t0);
  return bytes / 1e6 / ((u.user + u.system) / 1e6);
};
for (let r = 0; r < rounds; r++) {
  const order = mods.map((_, i) => mods[(i + r) % mods.length]);
  for (const c of names) {
    for (const m of order) {
      const reps = 6;
      const t0 = process.cpuUsage();
      for (let k = 0; k < reps; k++) for (const [p, n] of m.src[c]) m.dec[c](p, n);
      m.t[c].push(mbPerCpuSecond(reps * m.src[c].length * chunkBytes, t0));
    }
    const reps = 2;
    const t0 = process.cpuUsage();
    for (let k = 0; k < reps; k++) await Promise.all(chunks[c].map((b) => peer.dec[c](b)));
    peer.t[c].push(mbPerCpuSecond(reps * chunks[c].length * chunkBytes, t0));
  }
}
console.log(`| build | bytes | ${names.join(" | ")} |`);
console.log(`|---|---:|${names.map(() => "---:").join("|")}|`);
for (const m of mods) {
  const cell = (c) => `${median(m.t[c]).toFixed(0)}${m === mods[0] ? "" : ` (${(median(m.t[c]) / median(mods[0].t[c])).toFixed(2)}×)`}`;
  console.log(`| ${m.label} | ${m.raw.toLocaleString("en")} | ${names.map(cell).join(" | ")} |`);
}
const peerCell = (c) => `${median(peer.t[c]).toFixed(0)} (${(median(peer.t[c]) / median(mods[0].t[c])).toFixed(2)}×)`;
console.log(`| ${peer.label} | | ${names.map(peerCell).join(" | ")} |`);
console.log(`\nMB of decoded output per CPU second, median of ${rounds} rounds; Node ${process.version}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
