// zarr-wasm vs zarrita.js: the same 4096×4096 float32 array in 256×256
// chunks (raw, blosc-lz4, blosc-zstd, zstd, blosc-zlib, zlib, and v3 zstd in
// 1024×1024 shards), read from the same in-memory store
// in one run: the whole array, a 1000×1000 window, and a [::4, ::4] stride;
// then zarr-wasm on one thread against a pool of decode workers (WORKERS,
// default: the default pool) for blosc-zstd, zstd, blosc-lz4 and raw, and a strided read of the v3 sharded array.
// Prints MB/s of decoded output (10^6 bytes/s, median of RUNS interleaved
// runs after a warm-up) and the ratio (and their geometric mean over the 15
// cells of raw, blosc-lz4, blosc-zstd, zstd and zlib), then writes, the
// decode worker pool, startup in fresh Node processes and Chromium pages, the download, and reads
// over HTTP (tests/bench/sections.mjs), with the machine's load.
//
//   node tests/bench/bench.mjs            (make bench-js)
//   RUNS=9 node tests/bench/bench.mjs
//   ONLY=parallel node tests/bench/bench.mjs   (the parallel table alone)
//   ONLY=writes node tests/bench/bench.mjs     (the writes alone)
//   PARALLEL_QUIET=0.3 PARALLEL_SECONDS=300 ... (the parallel table's pairs kept
//                                                while others use under 30 % of
//                                                the cores; time allowed for them)
//   BENCH=reads node tests/bench/bench.mjs     (only the read tables, Node and Chromium)
//   READ_CODECS=raw,zstd ...                   (only these arrays in the read tables)
//   CHROMIUM=0 ...                             (no Chromium read table)
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { startup, browserStartup, download, overHTTP, writeToDisk, machineBusyMs } from "./sections.mjs";
import { N, C, codecs, readSpecs, setupReads, timeReads, readRows, readTable, readSummary, pairTargetMs, maxPairs } from "./reads.mjs";
import { chromiumReads } from "./chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(here, "..", "..", "npm");
const RUNS = Number(process.env.RUNS ?? 5);
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// The read part (tests/bench/reads.mjs, shared with the Chromium table).
const reads = readSpecs(zarr, zarrita);
const onlyReads = process.env.BENCH === "reads";
const readCodecs = process.env.READ_CODECS ? process.env.READ_CODECS.split(",") : null;

/**
 * Writing the whole array into a fresh store, both libraries, v3 with the
 * same codecs, alternately, medians of RUNS (the first round warms up):
 * one line a codec.
 */
async function timeWrites(data) {
  const writeCodecs = {
    zstd: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }],
    "blosc-lz4": [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }],
    gzip: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }],
  };
  const timed = async (fn, into) => {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  };
  const writes = Object.keys(writeCodecs).map((name) => ({ name, tw: [], tz: [] }));
  for (let r = 0; r < RUNS + 1; r++) {
    for (const w of writes) {
      const ours = await zarr.create(new zarr.MemoryStore(), { shape: [N, N], chunks: [C, C], dtype: "float32", zarrFormat: 3, codecs: writeCodecs[w.name] });
      const theirs = await zarrita.create(zarrita.root(new Map()).resolve("a"), { shape: [N, N], chunkShape: [C, C], dtype: "float32", codecs: writeCodecs[w.name] });
      const tw = [], tz = [];
      await timed(() => ours.set(null, { data, shape: [N, N] }), tw);
      try {
        await timed(() => zarrita.set(theirs, null, { data, shape: [N, N], stride: [N, 1] }), tz);
      } catch (e) {
        w.theirsFailed = String(e?.cause?.message ?? e?.message ?? e);
      }
      if (r > 0) w.tw.push(tw[0]), tz.length && w.tz.push(tz[0]);
    }
  }
  const f = (x, d = 0) => x.toFixed(d);
  const mbs = (ms) => (N * N * 4) / 1e6 / (ms / 1000);
  return writes.map((w) => {
    const [a, b] = [median(w.tw), median(w.tz)];
    const them = w.tz.length ? `zarrita.js ${f(mbs(b))} MB/s (${f(b, 1)} ms): ${f(b / a, 2)}` : `zarrita.js cannot (${w.theirsFailed})`;
    return `write, ${w.name} (v3), whole array: zarr-wasm ${f(mbs(a))} MB/s (${f(a, 1)} ms), ${them}`;
  });
}

async function main() {
  const t0 = performance.now();
  await zarr.init();
  const initInProcess = performance.now() - t0;

  // Reads (tests/bench/reads.mjs): every array written, both libraries
  // checked against each other, then timed interleaved, medians of RUNS.
  const store = new zarr.MemoryStore();
  const { data, stored, jobs } = await setupReads(zarr, zarrita, store, readCodecs);
  if (process.env.ONLY === "writes") {
    for (const l of await timeWrites(data)) console.log(l);
    console.log(`load average (1, 5, 15 min) ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    return;
  }
  // The decode worker pool (npm/lib/workers.js): the arrays above read by
  // zarr-wasm on this thread and with useWorkers.
  // (unset: the default pool, the cores less one)
  const workers = process.env.WORKERS === undefined ? undefined : Number(process.env.WORKERS);
  // (ONLY=parallel: just the parallel table)
  const parallelOnly = process.env.ONLY === "parallel";
  if (!parallelOnly) await timeReads(jobs, RUNS, () => process.stderr.write("."));
  const rows = readRows(jobs);
  const readHeader = `zarr-wasm vs zarrita.js ${zarritaVersion()} — Node ${process.version}, ${N}×${N} float32 in ${C}×${C} chunks, in-memory store, median of ${RUNS} interleaved rounds after a warm-up (reads under ${pairTargetMs} ms timed in up to ${maxPairs} pairs a round)`;
  if (onlyReads) {
    console.log(readHeader);
    console.log("");
    for (const l of readTable(rows, stored)) console.log(l);
    console.log("");
    console.log(readSummary(rows));
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average (1, 5, 15 min) ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    if (process.env.CHROMIUM !== "0") {
      console.log("");
      for (const l of await chromiumReads(RUNS, readCodecs).catch((e) => [`section failed: ${e?.stack ?? e}`])) console.log(l);
      console.log(`load average (1, 5, 15 min) after the Chromium reads ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    }
    return;
  }
  // The pool's runs come after the others (starting workers would load the
  // machine during them). With the pool running (idle workers cost
  // nothing), each read is timed on this thread (get(sel, {workers: false}))
  // and through the pool alternately, so both see the same load; wall time
  // and the CPU time of the whole process (every thread), medians of
  // PRUNS; the speed-up is the median of each round's ratio (one thread /
  // pool), which moves less with the load than a ratio of two medians.
  // A pooled read needs every core, so a pair during which other processes
  // used more than PARALLEL_QUIET (default 0.15) of the machine's cores
  // (/proc/stat less this process's CPU time; Linux) times the machine,
  // not the pool: on a shared machine the medians come from the quiet pairs
  // (rounds go on until every row has PRUNS of them, or PARALLEL_SECONDS,
  // default 120, have passed), and every pair's speed-up is given beside.
  const PRUNS = Math.max(RUNS, 15);
  const quietShare = Number(process.env.PARALLEL_QUIET ?? 0.15);
  const parallelUntil = Date.now() + Number(process.env.PARALLEL_SECONDS ?? 120) * 1000;
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const filtered = machineBusyMs() !== null;
  const parallel = [];
  for (const name of ["blosc-zstd", "zstd", "blosc-lz4", "raw"]) {
    const arr = await zarr.open(store, { path: name, kind: "array" });
    for (const [label, selW, , outBytes] of reads.slice(0, 2)) parallel.push({ name, label, arr, sel: selW, outBytes, alone: [], pooled: [], cpuAlone: [], cpuPooled: [], quiet: [] });
  }
  // A strided read of the sharded array: part of each shard.
  {
    const [label, selW, , outBytes] = reads[2];
    const arr = await zarr.open(store, { path: "v3 sharded zstd", kind: "array" });
    parallel.push({ name: "v3 sharded zstd", label, arr, sel: selW, outBytes, alone: [], pooled: [], cpuAlone: [], cpuPooled: [], quiet: [] });
  }
  const pool = await zarr.useWorkers(workers);
  const cpuTimed = async (fn, wall, cpu) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  };
  for (const p of parallel) {
    await p.arr.get(p.sel, { workers: false });
    await p.arr.get(p.sel);
  }
  const pooledBefore = pool.stats().reads;
  const pairs = parallel;
  const quietPairs = (p) => p.quiet.filter(Boolean).length;
  for (let r = 0; r < PRUNS || (pairs.some((p) => quietPairs(p) < PRUNS) && Date.now() < parallelUntil); r++) {
    for (const p of pairs) {
      const one = () => cpuTimed(() => p.arr.get(p.sel, { workers: false }), p.alone, p.cpuAlone);
      const pooled = () => cpuTimed(() => p.arr.get(p.sel), p.pooled, p.cpuPooled);
      const b0 = machineBusyMs();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      if (r % 2 === 0) await one(), await pooled();
      else await pooled(), await one();
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      // (a pair under 100 ms is kept: /proc/stat counts in 10 ms ticks)
      const others = b0 === null || wall < 100 ? 0 : (machineBusyMs() - b0 - (c.user + c.system) / 1000) / (cores * wall);
      p.quiet.push(others < quietShare);
    }
  }
  const poolReads = pool.stats().reads;
  const poolSize = pool.size;
  const poolLoad = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  await zarr.useWorkers(0);
  const printParallel = () => {
    const f = (x, d = 0) => x.toFixed(d);
    const which = filtered ? `pairs (one thread, pool) during which other processes used under ${f(quietShare * 100)} % of the ${cores} cores (pairs under 100 ms all), at least ${PRUNS} rounds (until ${PRUNS} such pairs a row, or ${process.env.PARALLEL_SECONDS ?? 120} s)` : `${PRUNS} rounds (no /proc/stat: every pair)`;
    console.log(`Parallel decode: one thread against ${workers === undefined ? "the default pool" : `useWorkers(${workers})`} (${poolSize} workers and the calling thread) on ${os.cpus().length} cores, alternately; medians of the ${which} (speed-up: the median of the pairs' ratios); CPU: every thread of the process; load average after ${poolLoad}`);
    console.log("");
    console.log("| codec | read | one thread MB/s (ms) | with the pool MB/s (ms) | speed-up (pairs) | CPU ms, one thread / pool | speed-up, every pair (pairs) |");
    console.log("|---|---|---:|---:|---:|---:|---:|");
    for (const p of parallel) {
      const kept = (xs) => xs.filter((_, i) => p.quiet[i]);
      const [alone, pooled] = [kept(p.alone), kept(p.pooled)];
      const mb = (ms) => p.outBytes / 1e6 / (ms / 1000);
      const ratio = (a, b) => median(a.map((x, i) => x / b[i]));
      if (alone.length === 0) {
        console.log(`| ${p.name} | ${p.label} | — | — | — (0) | — | ${f(ratio(p.alone, p.pooled), 2)} (${p.alone.length}) |`);
        continue;
      }
      const [ba, bp] = [median(alone), median(pooled)];
      console.log(`| ${p.name} | ${p.label} | ${f(mb(ba))} (${f(ba, 1)}) | ${f(mb(bp))} (${f(bp, 1)}) | ${f(ratio(alone, pooled), 2)} (${alone.length}) | ${f(median(kept(p.cpuAlone)))} / ${f(median(kept(p.cpuPooled)))} | ${f(ratio(p.alone, p.pooled), 2)} (${p.alone.length}) |`);
    }
    console.log(`(reads shared with the workers: ${poolReads - pooledBefore}, results ${pool.shared ? "in a SharedArrayBuffer" : "transferred"}; raw chunks and windows under 16 MiB stay on the calling thread)`);
    console.log("");
  };
  if (parallelOnly) return printParallel();
  const writeLines = await timeWrites(data);
  process.stderr.write("\n");

  const loadBefore = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  const diskDir = await writeToDisk(data, N, C, codecs.filter(([n]) => ["zstd", "blosc-lz4", "v3 sharded zstd"].includes(n)));
  // (A section that fails prints its error; the tables before it stand.)
  const section = (run) => run().catch((e) => [`section failed: ${e?.stack ?? e}`]);
  const sections = [await section(() => startup(diskDir, Math.max(5, RUNS))), await section(() => browserStartup(diskDir, Math.max(5, RUNS))), await section(download), await section(() => overHTTP(diskDir, N, Math.max(3, RUNS)))];
  await fs.rm(diskDir, { recursive: true, force: true });
  // The read table again, measured in Chromium (tests/bench/chromium.mjs).
  const browserReads = process.env.CHROMIUM === "0" ? ["(Chromium reads skipped: CHROMIUM=0)"] : await section(() => chromiumReads(RUNS, readCodecs));

  const f = (x, d = 0) => x.toFixed(d);
  const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  console.log(readHeader);
  console.log("");
  for (const l of readTable(rows, stored)) console.log(l);
  console.log("");
  printParallel();
  for (const l of writeLines) console.log(l);
  for (const lines of sections) {
    console.log("");
    for (const l of lines) console.log(l);
  }
  console.log("");
  for (const l of browserReads) console.log(l);
  console.log("");
  console.log(`Node reads: ${readSummary(rows)}`);
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average (1, 5, 15 min) before the last sections ${loadBefore}, at the end ${load}`);
  console.log(`init() in this process ${f(initInProcess, 1)} ms`);
}

function zarritaVersion() {
  try {
    return JSON.parse(execFileSync("node", ["-p", "JSON.stringify(require('./node_modules/zarrita/package.json').version)"], { cwd: npmDir, encoding: "utf8" }));
  } catch {
    return "";
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
