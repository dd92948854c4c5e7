// Reads over HTTP on a shared machine: the reads of the bench's "over HTTP"
// section (tests/bench/sections.mjs: a server in another process adding
// 20 ms per request, each library's own FetchStore, a fresh store and
// array per read), zarr-wasm on one thread and zarrita.js back to back in
// alternating order; a pair is kept only when the rest of the machine
// (/proc/stat minus this process and the server) used under 10 % of the 2
// cores during it, so the medians are those of a quiet machine. Linux only.
//   DURATION=120 ARRAYS=zstd,blosc-lz4 node tests/bench/http-quiet.mjs DIR
// DIR: the arrays as writeToDisk writes them (blosc-lz4, zstd, v3 sharded zstd);
// without it they are written to a temporary directory first.
import fs from "node:fs";
import * as os from "node:os";
import * as zarr from "../../npm/index.js";
import { zarrita, ZarritaFetchStore } from "../../npm/dev/deps.mjs";
import { writeToDisk, startServerProcess, median } from "./sections.mjs";
import { N, C, codecs } from "./reads.mjs";

let dir = process.argv[2];
let temporary = false;
if (!dir) {
  const data = new Float32Array(N * N);
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) data[i * N + j] = Math.round((100 * Math.sin(i / 300) * Math.cos(j / 200) + (rnd() - 0.5) * 4) * 16) / 16;
  dir = await writeToDisk(data, N, C, codecs.filter(([n]) => ["zstd", "blosc-lz4", "v3 sharded zstd"].includes(n)));
  temporary = true;
}
const names = (process.env.ARRAYS ?? "blosc-lz4,zstd,v3 sharded zstd").split(",");
const server = await startServerProcess(dir, 20);
const cpuOf = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // ms (USER_HZ 100)
};
const stat = () => {
  // (user nice system irq steal, not softirq: the loopback's packets of these reads are counted there)
  const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[7]) * 10;
};
const reads = [
  ["whole array", null, null],
  ["1000×1000 window", [zarr.slice(1500, 2500), zarr.slice(1200, 2200)], [zarrita.slice(1500, 2500), zarrita.slice(1200, 2200)]],
];
const jobs = [];
for (const name of names) {
  const url = `${server.url}/${encodeURIComponent(name)}`;
  for (const [label, selW, selZ] of reads) {
    const ours = async () => {
      const a = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
      await a.get(selW, { workers: false });
    };
    const theirs = async () => {
      const a = await zarrita.open(zarrita.root(new ZarritaFetchStore(url)), { kind: "array" });
      await zarrita.get(a, selZ);
    };
    jobs.push({ name, label, ours, theirs, w: [], z: [], skipped: 0, others: [] });
  }
}
for (const j of jobs) await j.ours(), await j.theirs(); // warm-up
const loadBefore = os.loadavg().map((x) => x.toFixed(1)).join(" ");
const limit = Number(process.env.LIMIT ?? 0.1);
const until = Date.now() + Number(process.env.DURATION ?? 120) * 1000;
for (let r = 0; Date.now() < until; r++) {
  for (const j of jobs) {
    const s0 = stat(), p0 = process.cpuUsage(), v0 = cpuOf(server.pid), t0 = performance.now();
    const timed = async (fn) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    let a, b;
    if (r % 2) (b = await timed(j.theirs)), (a = await timed(j.ours));
    else (a = await timed(j.ours)), (b = await timed(j.theirs));
    const wall = performance.now() - t0, p = process.cpuUsage(p0);
    const others = (stat() - s0 - (p.user + p.system) / 1000 - (cpuOf(server.pid) - v0)) / (2 * wall);
    j.others.push(others);
    if (others < limit) j.w.push(a), j.z.push(b);
    else j.skipped++;
  }
}
console.log(`Over HTTP on one thread, pairs kept when the rest of the machine used under ${limit * 100} % of the 2 cores (${process.env.DURATION ?? 120} s; load average before ${loadBefore}, after ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}):`);
console.log("");
console.log("| array | read | pairs kept (skipped) | the rest of the machine, median | zarr-wasm ms | zarrita.js ms | time ratio (median of pairs) |");
console.log("|---|---|---:|---:|---:|---:|---:|");
for (const j of jobs) {
  const ratio = j.w.length ? median(j.w.map((x, i) => x / j.z[i])).toFixed(2) : "—";
  console.log(`| ${j.name} | ${j.label} | ${j.w.length} (${j.skipped}) | ${(median(j.others) * 100).toFixed(0)} % | ${j.w.length ? median(j.w).toFixed(0) : "—"} | ${j.z.length ? median(j.z).toFixed(0) : "—"} | ${ratio} |`);
}
await server.close();
if (temporary) fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
