// zarr-wasm vs zarrita.js: the same 4096×4096 float32 array in 256×256
// chunks (raw, blosc-lz4, blosc-zstd, zstd, blosc-zlib, zlib, and v3 zstd in
// 1024×1024 shards), read from the same in-memory store
// in one run: the whole array, a 1000×1000 window, and a [::4, ::4] stride;
// then zarr-wasm on one thread against a pool of decode workers (WORKERS,
// default 2) for bz2 (which zarrita.js cannot read), blosc-zstd, zstd,
// blosc-lz4 and raw.
// Prints MB/s of decoded output (10^6 bytes/s, median of RUNS interleaved
// runs after a warm-up) and the ratio (and their geometric mean over the 15
// cells of raw, blosc-lz4, blosc-zstd, zstd and zlib), then writes, the
// decode worker pool, startup in fresh Node processes and Chromium pages, the download, and reads
// over HTTP (tests/bench/sections.mjs), with the machine's load.
//
//   node tests/bench/bench.mjs            (make bench-js)
//   RUNS=9 node tests/bench/bench.mjs
//   ONLY=parallel node tests/bench/bench.mjs   (the parallel table alone)
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { startup, browserStartup, download, overHTTP, writeToDisk } from "./sections.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(here, "..", "..", "npm");
const RUNS = Number(process.env.RUNS ?? 5);
const N = 4096;
const C = 256;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// A smooth field plus a little noise, quantised to 1/16 (compresses like real data).
function makeData() {
  const data = new Float32Array(N * N);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      const v = 100 * Math.sin(i / 300) * Math.cos(j / 200) + 20 * Math.sin((i + j) / 50) + (rnd() - 0.5) * 4;
      data[i * N + j] = Math.round(v * 16) / 16;
    }
  }
  return data;
}

const codecs = [
  ["raw", { compressor: null }],
  ["blosc-lz4", { compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 } }],
  ["blosc-zstd", { compressor: { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 } }],
  ["zstd", { compressor: { id: "zstd", level: 3 } }],
  ["blosc-zlib", { compressor: { id: "blosc", cname: "zlib", clevel: 5, shuffle: 1, blocksize: 0 } }],
  ["zlib", { compressor: { id: "zlib", level: 1 } }],
  // Zarr v3 as zarr-python 3 writes it by default, in 1024×1024 shards.
  ["v3 sharded zstd", { zarrFormat: 3, shardShape: [1024, 1024], codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3 } }] }],
  // A 16-bit image (microscopy-like: blobs on a dark background, noise), zstd.
  ["uint16 image zstd", { dtype: "<u2", compressor: { id: "zstd", level: 3 } }],
];

// The 15 cells the geometric mean is over.
const meanCodecs = ["raw", "blosc-lz4", "blosc-zstd", "zstd", "zlib"];

function makeImage() {
  const img = new Uint16Array(N * N);
  let seed = 777;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const blobs = Array.from({ length: 300 }, () => [rnd() * N, rnd() * N, 10 + rnd() * 40, 500 + rnd() * 3000]);
  for (const [y, x, r, v] of blobs) {
    for (let i = Math.max(0, Math.floor(y - 3 * r)); i < Math.min(N, y + 3 * r); i++) {
      for (let j = Math.max(0, Math.floor(x - 3 * r)); j < Math.min(N, x + 3 * r); j++) {
        img[i * N + j] += v * Math.exp(-((i - y) ** 2 + (j - x) ** 2) / (2 * r * r));
      }
    }
  }
  for (let k = 0; k < img.length; k++) img[k] = Math.min(65535, img[k] + 100 + Math.floor(rnd() * 20));
  return img;
}

// Codecs whose repeated window read is also timed with caches on.
const cachedCodecs = ["blosc-lz4", "zstd", "v3 sharded zstd"];

const reads = [
  ["whole array", null, [null, null], N * N * 4],
  ["1000×1000 window", [zarr.slice(1500, 2500), zarr.slice(1200, 2200)], [zarrita.slice(1500, 2500), zarrita.slice(1200, 2200)], 1000 * 1000 * 4],
  ["[::4, ::4]", [zarr.slice(null, null, 4), zarr.slice(null, null, 4)], [zarrita.slice(null, null, 4), zarrita.slice(null, null, 4)], (N / 4) * (N / 4) * 4],
];

async function main() {
  const t0 = performance.now();
  await zarr.init();
  const initInProcess = performance.now() - t0;

  const store = new zarr.MemoryStore();
  const data = makeData();
  const image = makeImage();
  const stored = {};
  for (const [name, opts] of codecs) {
    const arr = await zarr.create(store, { path: name, shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, ...opts });
    await arr.set(null, { data: opts.dtype === "<u2" ? image : data, shape: [N, N] });
    let bytes = 0;
    for (const [k, v] of store.map) if (k.startsWith(`/${name}/`) && !k.endsWith(".zarray") && !k.endsWith("zarr.json")) bytes += v.length;
    stored[name] = bytes;
  }

  // Both libraries must agree before anything is timed.
  for (const [name] of codecs) {
    const ours = await (await zarr.open(store, { path: name, kind: "array" })).get([zarr.slice(0, 300), zarr.slice(0, 300)]);
    const theirs = await zarrita.get(await zarrita.open(zarrita.root(store).resolve(name), { kind: "array" }), [zarrita.slice(0, 300), zarrita.slice(0, 300)]);
    for (let i = 0; i < ours.data.length; i++) {
      if (!Object.is(ours.data[i], theirs.data[i])) throw new Error(`${name}: element ${i} differs`);
    }
  }

  // Open everything, warm up every read of both libraries (V8 tiers the
  // 8 MB module up while it runs), then time the reads interleaved —
  // zarr-wasm and zarrita.js alternately, in alternating order — so both
  // see the same machine load. Medians of RUNS.
  const jobs = [];
  for (const [name] of codecs) {
    const ours = await zarr.open(store, { path: name, kind: "array" });
    const theirs = await zarrita.open(zarrita.root(store).resolve(name), { kind: "array" });
    const itemSize = ours.dtype === "uint16" ? 2 : 4;
    for (const [label, selW, selZ, outBytes] of reads) {
      jobs.push({ codec: name, read: label, outBytes: (outBytes / 4) * itemSize, wasm: () => ours.get(selW), zarrita: () => zarrita.get(theirs, selZ), tw: [], tz: [] });
    }
    // The same window read again and again with a cache: zarr-wasm's
    // decoded-chunk cache (recheck false: no store request; recheck true:
    // each chunk confirmed with the store, which answers "not modified")
    // beside zarrita.js with withByteCaching (it keeps the stored bytes and
    // decodes them again).
    if (cachedCodecs.includes(name)) {
      const [, selW, selZ, outBytes] = reads[1];
      const cachedZ = await zarrita.open(zarrita.root(zarrita.withByteCaching(store)).resolve(name), { kind: "array" });
      for (const recheck of [false, true]) {
        const cachedW = await zarr.open(store, { path: name, kind: "array", cacheBytes: 256 << 20, recheck });
        jobs.push({ codec: name, read: `1000×1000 window again, cached (recheck ${recheck})`, outBytes, wasm: () => cachedW.get(selW), zarrita: () => zarrita.get(cachedZ, selZ), tw: [], tz: [] });
      }
    }
  }
  // The decode worker pool: bz2 (which zarrita.js cannot read) beside the
  // arrays above, read by zarr-wasm on this thread and with useWorkers
  // (pooled reads, npm/lib/pooled.js).
  const bz2 = await zarr.create(store, { path: "bz2", shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, compressor: { id: "bz2", level: 1 } });
  await bz2.set(null, { data, shape: [N, N] });
  const workers = Number(process.env.WORKERS ?? 2);
  // (ONLY=parallel: just the parallel table)
  const parallelOnly = process.env.ONLY === "parallel";
  for (let w = 0; w < 2 && !parallelOnly; w++) {
    for (const j of jobs) {
      await j.wasm();
      await j.zarrita();
    }
  }
  const timed = async (fn, into) => {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  };
  for (let r = 0; r < RUNS && !parallelOnly; r++) {
    for (const j of jobs) {
      if (r % 2 === 0) {
        await timed(j.wasm, j.tw);
        await timed(j.zarrita, j.tz);
      } else {
        await timed(j.zarrita, j.tz);
        await timed(j.wasm, j.tw);
      }
    }
    process.stderr.write(".");
  }
  // The pool's runs come after the others (starting workers would load the
  // machine during them). With the pool running (idle workers cost
  // nothing), each read is timed on this thread (get(sel, {workers: false}))
  // and through the pool alternately, so both see the same load; wall time
  // and the CPU time of the whole process (every thread), medians of
  // PRUNS.
  const PRUNS = Math.max(RUNS, 7);
  const parallel = [];
  for (const name of ["bz2", "blosc-zstd", "zstd", "blosc-lz4", "raw"]) {
    const arr = name === "bz2" ? bz2 : await zarr.open(store, { path: name, kind: "array" });
    for (const [label, selW, , outBytes] of name === "bz2" ? reads.slice(0, 1) : reads.slice(0, 2)) parallel.push({ name, label, arr, sel: selW, outBytes, alone: [], pooled: [], cpuAlone: [], cpuPooled: [] });
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
  const pooledBefore = { ...pool.stats().reads };
  for (let r = 0; r < PRUNS; r++) {
    for (const p of parallel.filter((p) => p.name !== "bz2")) {
      const one = () => cpuTimed(() => p.arr.get(p.sel, { workers: false }), p.alone, p.cpuAlone);
      const pooled = () => cpuTimed(() => p.arr.get(p.sel), p.pooled, p.cpuPooled);
      if (r % 2 === 0) await one(), await pooled();
      else await pooled(), await one();
    }
  }
  const poolReads = pool.stats().reads;
  // bz2 on this thread with no pool at all (with a pool, the engine hands
  // bz2 chunks of reads it keeps to the workers): the pool stopped and
  // started again between the two (3 rounds; a read takes seconds).
  for (let r = 0; r < 3; r++) {
    for (const p of parallel.filter((p) => p.name === "bz2")) {
      await zarr.useWorkers(0);
      await cpuTimed(() => p.arr.get(p.sel), p.alone, p.cpuAlone);
      await zarr.useWorkers(workers);
      await cpuTimed(() => p.arr.get(p.sel), p.pooled, p.cpuPooled);
    }
  }
  const poolLoad = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  await zarr.useWorkers(0);
  const printParallel = () => {
    const f = (x, d = 0) => x.toFixed(d);
    console.log(`Parallel decode: one thread against useWorkers(${workers}) on ${os.cpus().length} cores, alternately, median of ${PRUNS}; CPU: every thread of the process; load average after ${poolLoad}`);
    console.log("");
    console.log("| codec | read | one thread MB/s (ms) | with the pool MB/s (ms) | speed-up | CPU ms, one thread / pool |");
    console.log("|---|---|---:|---:|---:|---:|");
    for (const p of parallel) {
      const [ba, bp] = [median(p.alone), median(p.pooled)];
      const mb = (ms) => p.outBytes / 1e6 / (ms / 1000);
      console.log(`| ${p.name} | ${p.label} | ${f(mb(ba))} (${f(ba, 1)}) | ${f(mb(bp))} (${f(bp, 1)}) | ${f(ba / bp, 2)} | ${f(median(p.cpuAlone))} / ${f(median(p.cpuPooled))} |`);
    }
    console.log(`(bz2: 3 rounds, the pool stopped for the one-thread read; the other rows: reads through the pool ${poolReads.shared - pooledBefore.shared} into a SharedArrayBuffer, ${poolReads.transfer - pooledBefore.transfer} transferred, left to the engine ${poolReads.engine - pooledBefore.engine})`);
    console.log("");
  };
  if (parallelOnly) return printParallel();
  // Writing the whole array into a fresh store, both libraries, v3 with the
  // same codecs, alternately.
  const writeCodecs = {
    zstd: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }],
    "blosc-lz4": [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }],
    "gzip (zlib's deflate)": [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }],
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
      if (r > 0) w.tw.push(tw[0]), tz.length && w.tz.push(tz[0]); // the first round warms up
    }
  }
  process.stderr.write("\n");
  const rows = jobs.map((j) => {
    const tw = median(j.tw);
    const tz = median(j.tz);

    const mbs = (ms) => j.outBytes / 1e6 / (ms / 1000);
    return { codec: j.codec, read: j.read, wasmMs: tw, zarritaMs: tz, wasm: mbs(tw), zarrita: mbs(tz) };
  });

  const loadBefore = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  const diskDir = await writeToDisk(data, N, C, codecs.filter(([n]) => ["zstd", "blosc-lz4", "v3 sharded zstd"].includes(n)));
  // (A section that fails prints its error; the tables before it stand.)
  const section = (run) => run().catch((e) => [`section failed: ${e?.stack ?? e}`]);
  const sections = [await section(() => startup(diskDir, Math.max(5, RUNS))), await section(() => browserStartup(diskDir, Math.max(5, RUNS))), await section(download), await section(() => overHTTP(diskDir, N, Math.max(3, RUNS)))];
  await fs.rm(diskDir, { recursive: true, force: true });

  const f = (x, d = 0) => x.toFixed(d);
  const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  const cells = rows.filter((r) => meanCodecs.includes(r.codec) && !r.read.includes("cached"));
  const geomean = Math.exp(cells.reduce((a, r) => a + Math.log(r.wasm / r.zarrita), 0) / cells.length);
  const worst = cells.reduce((a, r) => (r.wasm / r.zarrita < a.wasm / a.zarrita ? r : a));
  console.log(`zarr-wasm vs zarrita.js ${zarritaVersion()} — Node ${process.version}, ${N}×${N} float32 in ${C}×${C} chunks, in-memory store, median of ${RUNS} interleaved runs after a warm-up`);
  console.log("");
  console.log("| codec (stored MB) | read | zarr-wasm MB/s | zarrita.js MB/s | ratio (zarr-wasm / zarrita.js) |");
  console.log("|---|---|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.codec} (${f(stored[r.codec] / 1e6, 1)}) | ${r.read} | ${f(r.wasm)} (${f(r.wasmMs, 1)} ms) | ${f(r.zarrita)} (${f(r.zarritaMs, 1)} ms) | ${f(r.wasm / r.zarrita, 2)} |`,
    );
  }
  const bmbs = (ms) => (N * N * 4) / 1e6 / (ms / 1000);
  console.log("");
  printParallel();
  for (const w of writes) {
    const [a, b] = [median(w.tw), median(w.tz)];
    const them = w.tz.length ? `zarrita.js ${f(bmbs(b))} MB/s (${f(b, 1)} ms): ${f(b / a, 2)}` : `zarrita.js cannot (${w.theirsFailed})`;
    console.log(`write, ${w.name} (v3), whole array: zarr-wasm ${f(bmbs(a))} MB/s (${f(a, 1)} ms), ${them}`);
  }
  for (const lines of sections) {
    console.log("");
    for (const l of lines) console.log(l);
  }
  console.log("");
  console.log(`geometric mean of the ratios over the ${cells.length} cells of ${meanCodecs.join(", ")}: ${f(geomean, 2)}; lowest ${f(worst.wasm / worst.zarrita, 2)} (${worst.codec}, ${worst.read})`);
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
