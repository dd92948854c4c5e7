// Where a pooled read's time goes, in a process set up as bench.mjs's
// parallel section is (SETUP=full: every array of the read table, zarrita.js
// checked against them, and bz2; LOOP=bench: whole reads and windows, each
// on this thread and through useWorkers(2) alternately) or as
// parallel-split.mjs's (SETUP=small: only the pooled arrays; LOOP=whole).
// Per read: wall and process CPU time, this thread's GC (count/ms), the
// split of the chunks (here/worker 0/worker 1), and the CPU time of each
// thread (/proc/self/task/*/schedstat): this thread, the decode workers, and
// the rest (V8's helper threads: GC, compilers); then wall times binned by
// the share of the cores other processes used meanwhile (/proc/stat).
// INIT=1: zarr.init() first, as bench.mjs; BZ2=1: a pooled bz2 read in the
// warm-up, as bench.mjs; QUIET=0.15: keep only reads while others used less.
// Linux only.   SETUP=small LOOP=whole DURATION=60 ROUNDS=1000 node tests/bench/parallel-process.mjs
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { PerformanceObserver } from "node:perf_hooks";
import fs from "node:fs";
import { machineBusyMs } from "./sections.mjs";
import { N, C, codecs, setupReads, readSpecs, makeData } from "./reads.mjs";
if (process.env.INIT === "1") await zarr.init();
const SETUP = process.env.SETUP ?? "full", LOOP = process.env.LOOP ?? "bench";
const store = new zarr.MemoryStore();
let data;
if (SETUP === "full") {
  ({ data } = await setupReads(zarr, zarrita, store, null));
  const bz2 = await zarr.create(store, { path: "bz2", shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, compressor: { id: "bz2", level: 1 } });
  await bz2.set(null, { data, shape: [N, N] });
} else {
  data = makeData();
  for (const [name, opts] of codecs.filter(([n]) => ["blosc-zstd", "zstd", "blosc-lz4", "raw"].includes(n))) {
    const arr = await zarr.create(store, { path: name, shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, ...opts });
    await arr.set(null, { data, shape: [N, N] });
  }
}
const reads = readSpecs(zarr, zarrita);
const names = (process.env.CODECS ?? "blosc-zstd,zstd,blosc-lz4,raw").split(",");
const par = [];
for (const name of names) {
  const arr = await zarr.open(store, { path: name, kind: "array" });
  for (const [label, sel] of LOOP === "bench" ? reads.slice(0, 2) : reads.slice(0, 1)) par.push({ name, label, arr, sel, alone: [], pooled: [], ca: [], cp: [], ga: [], gp: [], sp: [], ta: [], tp: [] });
}
const tids = () => fs.readdirSync("/proc/self/task");
const before = new Set(tids());
const pool = await zarr.useWorkers(2);
const wtids = new Set(tids().filter((t) => !before.has(t)));
const main = String(process.pid);
const sched = () => { const m = {}; for (const t of tids()) { try { m[t] = Number(fs.readFileSync(`/proc/self/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6; } catch {} } return m; };
const split3 = (a, b) => { let mn = 0, w = 0, h = 0; for (const t in b) { const d = b[t] - (a[t] ?? 0); if (t === main) mn += d; else if (wtids.has(t)) w += d; else h += d; } return [mn, w, h]; };
let gcMs = 0, gcN = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) { gcMs += e.duration; gcN++; } }).observe({ entryTypes: ["gc"] });
const QUIET = Number(process.env.QUIET ?? 9);
let skipped = 0;
const timed = async (fn, w, c, g, s, th) => {
  const sc0 = sched(); const g0 = gcMs, n0 = gcN, s0 = pool.stats(), b0 = machineBusyMs(), c0 = process.cpuUsage(), t0 = performance.now();
  await fn();
  const wall = performance.now() - t0, cu = process.cpuUsage(c0), cpu = (cu.user + cu.system) / 1000;
  await new Promise((r) => setImmediate(r)); // gc entries are delivered later
  const others = (machineBusyMs() - b0 - cpu) / (2 * wall);
  (w.oth ??= []).push([others, wall]);
  if (others > QUIET) { skipped++; return; }
  th.push(split3(sc0, sched()));
  w.push(wall); c.push(cpu); g.push([gcN - n0, gcMs - g0]);
  if (s) { const s1 = pool.stats(); s.push([s1.here - s0.here, ...s1.decoded.map((d, k) => d - s0.decoded[k])].join("/")); }
};
for (const p of par) { await p.arr.get(p.sel, { workers: false }); await p.arr.get(p.sel); }
if (process.env.BZ2 === "1") { const b = await zarr.open(store, { path: "bz2", kind: "array" }); await b.get(null, { workers: false }); await b.get(null); console.log("bz2 warmed", JSON.stringify(pool.stats())); }
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const until = Date.now() + Number(process.env.DURATION ?? 1e9) * 1000;
for (let r = 0; r < ROUNDS && Date.now() < until; r++) for (const p of par) {
  const one = () => timed(() => p.arr.get(p.sel, { workers: false }), p.alone, p.ca, p.ga, null, p.ta);
  const pooled = () => timed(() => p.arr.get(p.sel), p.pooled, p.cp, p.gp, p.sp, p.tp);
  if (r % 2 === 0) await one(), await pooled(); else await pooled(), await one();
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };
const f = (x) => x.toFixed(1);
console.log(`SETUP=${SETUP} LOOP=${LOOP} skipped ${skipped} load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
for (const p of par) if (p.label === "whole array") console.log(p.name.padEnd(10), `one ${f(med(p.alone))} ms cpu ${f(med(p.ca))} gc ${med(p.ga.map((x) => x[0]))}/${f(med(p.ga.map((x) => x[1])))}ms | pool ${f(med(p.pooled))} ms cpu ${f(med(p.cp))} gc ${med(p.gp.map((x) => x[0]))}/${f(med(p.gp.map((x) => x[1])))}ms | n ${p.alone.length}/${p.pooled.length} ratio-med ${med(p.alone.map((a, i) => a / p.pooled[i])).toFixed(2)} split ${p.sp.at(-1)}`);
for (const p of par) if (p.label === "whole array") console.log("   threads ms main/workers/helpers: one", [0,1,2].map((k) => f(med(p.ta.map((x) => x[k])))).join("/"), " pool", [0,1,2].map((k) => f(med(p.tp.map((x) => x[k])))).join("/"));
const bins = [0, 0.1, 0.25, 0.5, 0.75, 9];
for (const p of par) if (p.label === "whole array") {
  const row = (xs) => bins.slice(0, -1).map((lo, k) => { const v = xs.filter(([o]) => o >= lo && o < bins[k + 1]).map((x) => x[1]); return `${v.length ? med(v).toFixed(0) : "-"}(${v.length})`; }).join(" ");
  console.log("   ", p.name.padEnd(10), "by others' share <.1 <.25 <.5 <.75 more: one", row(p.alone.oth), "| pool", row(p.pooled.oth));
}
await zarr.useWorkers(0);
