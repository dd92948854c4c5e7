// Pooled reads, how the work is split: whole reads of a 4096² float32 array
// (bench.mjs's data) on the calling thread ("one") and through
// useWorkers(2) with the tunings of lib/pooled.js given in VARIANTS (the
// old split: {"here": false}, both workers decode and this thread only
// hands out; the default: this thread decodes too), alternately in one
// process; a read is kept only while the rest of the machine used under
// QUIET of the 2 cores (/proc/stat). Medians of wall time, CPU time (all
// threads) and the last read's split (chunks decoded here / by each worker).
// Linux only.   ROUNDS=100000 DURATION=150 QUIET=0.15 CODECS=zstd,blosc-zstd,blosc-lz4 node tests/bench/parallel-split.mjs
import * as zarr from "../../npm/index.js";
import { machineBusyMs } from "./sections.mjs";
import { tuning } from "../../npm/lib/pooled.js";
const N = 4096, C = 256;
const data = new Float32Array(N * N);
let seed = 12345; const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) { const v = 100 * Math.sin(i / 300) * Math.cos(j / 200) + 20 * Math.sin((i + j) / 50) + (rnd() - 0.5) * 4; data[i * N + j] = Math.round(v * 16) / 16; }
const all = { "blosc-lz4": { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }, "blosc-zstd": { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 }, zstd: { id: "zstd", level: 3 }, zlib: { id: "zlib", level: 1 } };
const names = (process.env.CODECS ?? "blosc-zstd,zstd,blosc-lz4").split(",");
const store = new zarr.MemoryStore(); const arrs = {};
for (const n of names) { arrs[n] = await zarr.create(store, { path: n, shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, compressor: all[n] }); await arrs[n].set(null, { data, shape: [N, N] }); }
const pool = await zarr.useWorkers(2);
const variants = JSON.parse(process.env.VARIANTS ?? '{"one":null,"old":{"here":false},"new":{"here":true}}');
const sel = process.env.SEL === "strided" ? [{start:0,stop:N,step:4},{start:0,stop:N,step:4}] : null;
const QUIET = Number(process.env.QUIET ?? 0.15); let skipped = 0;
const CPU = {}; const SPLIT = {}; const run = async (n, v) => { const cfg = variants[v]; if (cfg) Object.assign(tuning, cfg); const s0 = pool.stats(); const b0 = machineBusyMs(); const c = process.cpuUsage(); const t = performance.now(); await arrs[n].get(sel, cfg ? {} : { workers: false }); const w = performance.now() - t; const u = process.cpuUsage(c); const others = (machineBusyMs() - b0 - (u.user + u.system) / 1000) / (2 * w); if (others > QUIET) { skipped++; return null; } ((CPU[n] ??= {})[v] ??= []).push((u.user + u.system) / 1000); const s1 = pool.stats(); ((SPLIT[n] ??= {})[v] ??= []).push([s1.here - s0.here, ...s1.decoded.map((d, k) => d - s0.decoded[k])].join('/')); return w; };
for (const n of names) for (const v in variants) { await run(n, v); await run(n, v); }
const R = {}; const rounds = Number(process.env.ROUNDS ?? 9);
const vs = Object.keys(variants);
const until = Date.now() + Number(process.env.DURATION ?? 1e9) * 1000;
for (let r = 0; r < rounds && Date.now() < until; r++) for (const n of names) { const order = r % 2 ? vs : [...vs].reverse(); for (const v of order) { const x = await run(n, v); if (x !== null) ((R[n] ??= {})[v] ??= []).push(x); } }
const med = (xs) => { if (!xs) return NaN; const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
for (const n of names) console.log(n.padEnd(11), vs.map((v) => `${v} ${med(R[n][v]).toFixed(0)}`).join("  "), " | speed-up:", vs.slice(1).map((v) => `${v} ${(med(R[n].one) / med(R[n][v])).toFixed(2)}`).join(" "));
for (const n of names) console.log(n.padEnd(11), "cpu", vs.map((v) => `${v} ${med(CPU[n]?.[v]).toFixed(0)}`).join("  "));
for (const n of names) console.log(n.padEnd(11), "split here/w0/w1", vs.map((v) => `${v} ${SPLIT[n]?.[v]?.at(-1)}`).join("  "));
console.log("skipped", skipped, "kept", JSON.stringify(Object.fromEntries(names.map((n) => [n, vs.map((v) => R[n][v]?.length ?? 0).join(",")]))));
console.log("stats", JSON.stringify(pool.stats()));
await zarr.useWorkers(0);
