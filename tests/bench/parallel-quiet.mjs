// Parallel decode on a shared machine: whole reads of a 4096² float32 array
// (the data of bench.mjs) on the calling thread and through useWorkers(2),
// back to back in alternating order; a pair is kept only when the rest of
// the machine used under 10 % of the 2 cores during it (/proc/stat minus
// this process's CPU time), so the medians are those of a quiet machine.
// Also the CPU time of each read (all the process's threads).
// Linux only.   DURATION=120 CODECS=raw,blosc-zstd,zstd node tests/bench/parallel-quiet.mjs
import * as zarr from "../../npm/index.js";
import fs from "node:fs";
const N = 4096, C = 256;
const data = new Float32Array(N * N);
let seed = 12345; const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) { const v = 100 * Math.sin(i / 300) * Math.cos(j / 200) + 20 * Math.sin((i + j) / 50) + (rnd() - 0.5) * 4; data[i * N + j] = Math.round(v * 16) / 16; }
const all = { raw: null, "blosc-lz4": { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }, "blosc-zstd": { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 }, zstd: { id: "zstd", level: 3 }, zlib: { id: "zlib", level: 1 } };
const names = (process.env.CODECS ?? "raw,blosc-zstd,zstd,blosc-lz4").split(",");
const store = new zarr.MemoryStore();
const arrs = {};
for (const n of names) { arrs[n] = await zarr.create(store, { path: n, shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, compressor: all[n] }); await arrs[n].set(null, { data, shape: [N, N] }); }
const stat = () => { const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number); const idle = f[3] + f[4]; const tot = f.reduce((a, b) => a + b, 0); return { busy: (tot - idle) * 10, tot: tot * 10 }; }; // ms (USER_HZ 100)
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };
await zarr.useWorkers(2);
for (const n of names) { await arrs[n].get(null, { workers: false }); await arrs[n].get(null); }
const R = Object.fromEntries(names.map((n) => [n, { one: [], pool: [], cpuOne: [], cpuPool: [], skipped: 0 }]));
// (QUIET=0.3: keep pairs while the others used under 30 % instead)
const quiet = Number(process.env.QUIET ?? 0.1);
const until = Date.now() + Number(process.env.DURATION ?? 150) * 1000;
let r = 0;
while (Date.now() < until) {
  for (const n of names) {
    const s0 = stat(); const c0 = process.cpuUsage(); const t0 = performance.now();
    let a, b, ca, cb;
    const cpu = (c) => { const u = process.cpuUsage(c); return (u.user + u.system) / 1000; };
    const one = async () => { const c = process.cpuUsage(); const t = performance.now(); await arrs[n].get(null, { workers: false }); a = performance.now() - t; ca = cpu(c); };
    const pooled = async () => { const c = process.cpuUsage(); const t = performance.now(); await arrs[n].get(null); b = performance.now() - t; cb = cpu(c); };
    if (r % 2) { await one(); await pooled(); } else { await pooled(); await one(); }
    const wall = performance.now() - t0; const c = process.cpuUsage(c0); const s1 = stat();
    const others = (s1.busy - s0.busy - (c.user + c.system) / 1000) / (2 * wall);
    if (others < quiet) { R[n].one.push(a); R[n].pool.push(b); R[n].cpuOne.push(ca); R[n].cpuPool.push(cb); } else R[n].skipped++;
  }
  r++;
}
for (const n of names) { const x = R[n]; console.log(n.padEnd(11), `pairs kept ${x.one.length} (skipped ${x.skipped}): one ${med(x.one).toFixed(0)} ms, pool ${med(x.pool).toFixed(0)} ms, speed-up ${(med(x.one) / med(x.pool)).toFixed(2)}; CPU (all threads) one ${med(x.cpuOne).toFixed(0)} ms, pool ${med(x.cpuPool).toFixed(0)} ms`); }
await zarr.useWorkers(0);
