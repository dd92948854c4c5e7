// Icechunk benchmark (not a test): zarr-wasm's IcechunkStore beside the
// official package, @earthmover/icechunk 2.2.2 (its WASI build, reading
// through its fetch storage with zarrita 0.7.5), on the same repository.
//
//   node tests/bench/icechunk.mjs            (RUNS=5 by default)
//
// 1. Open + first read of a 1000x1000 window of a 2048x2048 float32 array
//    in 4,096 chunks (32x32, zstd), over HTTP from a server in another
//    process on 127.0.0.1 adding 20 ms to every request: wall time in a
//    fresh Node process each (engine start included), requests counted by
//    the server; the two run alternately, medians of RUNS.
// 2. Decoding a 10,000-reference manifest in Node: the repository's files
//    in a MemoryStore, the first read of a chunk (the manifest fetched,
//    decompressed, checked) less the second (another chunk of the same
//    manifest), median of RUNS fresh stores.
// The repositories are written once by the official package (its WASI
// build) into the system's temporary directory.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startServerProcess, median } from "./sections.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const icDir = path.join(here, "..", "icechunk");
const run = promisify(execFile);
const runs = Number(process.env.RUNS ?? 5);
const W = 1000;

async function write(dir) {
  const { Repository, dirStorage, zarritaStore } = await import(pathToFileURL(path.join(icDir, "common.mjs")).href);
  const zarr = await import(pathToFileURL(path.join(icDir, "node_modules", "zarrita", "dist", "src", "index.js")).href);
  // 4,096 chunks of 32x32 float32 (zstd)
  {
    const repo = await Repository.create(dirStorage(path.join(dir, "grid")), null, 2);
    const s = await repo.writableSession("main");
    const N = 2048;
    const a = await zarr.create(new zarr.Location(zarritaStore(s.store), "/grid"), {
      shape: [N, N],
      chunkShape: [32, 32],
      dtype: "float32",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }],
    });
    const data = new Float32Array(N * N).map((_, k) => Math.round(Math.sin((k >> 11) / 100) * Math.cos((k & 2047) / 80) * 4096) / 16 + ((k * 2654435761) % 97) / 97);
    await zarr.set(a, null, { data, shape: [N, N], stride: [N, 1] });
    await s.commit("4,096 chunks");
  }
  // one manifest of 10,000 native references
  {
    const repo = await Repository.create(dirStorage(path.join(dir, "refs10k")), { inlineChunkThresholdBytes: 0 }, 2);
    const s = await repo.writableSession("main");
    const a = await zarr.create(new zarr.Location(zarritaStore(s.store), "/many"), {
      shape: [100, 100 * 4],
      chunkShape: [1, 4],
      dtype: "int16",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    });
    await zarr.set(a, null, { data: new Int16Array(40000).map((_, i) => i), shape: [100, 400], stride: [400, 1] });
    await s.commit("10,000 chunks");
  }
}

/** The repositories (written once per version of this script and the lockfile). */
async function repos() {
  const h = crypto.createHash("sha256").update(fs.readFileSync(fileURLToPath(import.meta.url))).update(fs.readFileSync(path.join(icDir, "package-lock.json")));
  const dir = path.join(os.tmpdir(), `zarr-wasm-icechunk-bench-${h.digest("hex").slice(0, 12)}`);
  if (fs.existsSync(path.join(dir, "done"))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  await run(process.execPath, ["--no-warnings", fileURLToPath(import.meta.url), "--write", dir], { env: { ...process.env, NAPI_RS_FORCE_WASI: "1" } });
  fs.writeFileSync(path.join(dir, "done"), "");
  return dir;
}

const sha = (d) => crypto.createHash("sha256").update(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)).digest("hex").slice(0, 16);

/** One timed open + read in this (fresh) process: {ms, sha}. */
async function readOnce(who, url) {
  const t0 = performance.now();
  let data;
  if (who === "zarr-wasm") {
    const zarr = await import(pathToFileURL(path.join(here, "..", "..", "npm", "index.js")).href);
    const ic = await zarr.IcechunkStore.open(url);
    const arr = await zarr.open(ic, { path: "grid", kind: "array" });
    ({ data } = await arr.get([zarr.slice(0, W), zarr.slice(0, W)]));
  } else {
    const { Repository } = await import(pathToFileURL(path.join(icDir, "common.mjs")).href);
    const { createFetchStorage } = await import(pathToFileURL(path.join(icDir, "node_modules", "@earthmover", "icechunk", "fetch-storage.mjs")).href);
    const zarr = await import(pathToFileURL(path.join(icDir, "node_modules", "zarrita", "dist", "src", "index.js")).href);
    const { zarritaStore } = await import(pathToFileURL(path.join(icDir, "common.mjs")).href);
    const repo = await Repository.open(createFetchStorage(url));
    const s = await repo.readonlySession({ branch: "main" });
    const arr = await zarr.open(new zarr.Location(zarritaStore(s.store), "/grid"), { kind: "array" });
    ({ data } = await zarr.get(arr, [zarr.slice(0, W), zarr.slice(0, W)]));
  }
  return { ms: performance.now() - t0, sha: sha(data) };
}

/**
 * The manifest's decoding, in this process: per round a fresh store, the
 * first read of a chunk (which fetches, decompresses and checks the
 * manifest) less the median of 20 reads of other chunks of it; wall time
 * and this process's CPU time (less disturbed by other processes).
 */
async function manifestOnce(dir) {
  const zarr = await import(pathToFileURL(path.join(here, "..", "..", "npm", "index.js")).href);
  const mem = new zarr.MemoryStore();
  const root = path.join(dir, "refs10k");
  for (const f of fs.readdirSync(root, { recursive: true })) {
    const p = path.join(root, f);
    if (fs.statSync(p).isFile()) await mem.set(`/${f.split(path.sep).join("/")}`, new Uint8Array(fs.readFileSync(p)));
  }
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const wall = [];
  const cpuMs = [];
  for (let i = 0; i < runs + 1; i++) {
    const ic = await zarr.IcechunkStore.open(mem);
    const [w0, c0] = [performance.now(), cpu()];
    await ic.get("/many/c/0/0");
    const [w1, c1] = [performance.now(), cpu()];
    const rest = { w: [], c: [] };
    for (let k = 1; k <= 20; k++) {
      const [a, b] = [performance.now(), cpu()];
      await ic.get(`/many/c/${k * 4}/${k * 3}`);
      rest.w.push(performance.now() - a);
      rest.c.push(cpu() - b);
    }
    if (i === 0) continue; // (the first round warms the engine up)
    wall.push(w1 - w0 - median(rest.w));
    cpuMs.push(c1 - c0 - median(rest.c));
  }
  const man = fs.readdirSync(path.join(root, "manifests")).map((f) => fs.statSync(path.join(root, "manifests", f)).size);
  return { wall, cpu: cpuMs, manifestBytes: man };
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "--write") {
  await write(rest[0]);
  process.exit(0);
} else if (mode === "--read") {
  const r = await readOnce(rest[0], rest[1]);
  process.stdout.write(JSON.stringify(r), () => process.exit(0));
} else if (mode === "--manifest") {
  console.log(JSON.stringify(await manifestOnce(rest[0])));
} else {
  const dir = await repos();
  const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  const server = await startServerProcess(dir, 20);
  const rows = { "zarr-wasm": [], official: [] };
  const env = { official: { ...process.env, NAPI_RS_FORCE_WASI: "1" }, "zarr-wasm": process.env };
  const ratios = [];
  for (let i = 0; i < runs; i++) {
    const round = {};
    for (const who of i % 2 ? ["official", "zarr-wasm"] : ["zarr-wasm", "official"]) {
      const before = await server.requests();
      const { stdout } = await run(process.execPath, ["--no-warnings", fileURLToPath(import.meta.url), "--read", who, `${server.url}/grid`], { env: env[who], maxBuffer: 1 << 20 });
      const r = JSON.parse(stdout);
      r.requests = (await server.requests()) - before;
      rows[who].push(r);
      round[who] = r.ms;
    }
    ratios.push(round["zarr-wasm"] / round.official);
  }
  await server.close();
  const same = new Set([...rows["zarr-wasm"], ...rows.official].map((r) => r.sha)).size === 1;
  console.log(`Open + first read of a ${W}x${W} window (1,024 of 4,096 chunks, 32x32 float32, zstd) over HTTP, 20 ms added per request, a fresh Node process each, median of ${runs}:`);
  console.log("");
  console.log("| reader | ms | requests |");
  console.log("|---|---:|---:|");
  for (const who of ["zarr-wasm", "official"]) {
    const name = who === "official" ? "@earthmover/icechunk 2.2.2 (WASI) + zarrita 0.7.5" : "zarr-wasm IcechunkStore";
    console.log(`| ${name} | ${median(rows[who].map((r) => r.ms)).toFixed(0)} | ${median(rows[who].map((r) => r.requests))} |`);
  }
  console.log("");
  console.log(`time ratio zarr-wasm / official: median ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(", ")}); same values: ${same}`);
  const { stdout } = await run(process.execPath, ["--no-warnings", fileURLToPath(import.meta.url), "--manifest", dir]);
  const m = JSON.parse(stdout);
  console.log("");
  const list = (xs) => xs.map((x) => x.toFixed(1)).join(", ");
  console.log(`Decoding a 10,000-reference manifest (${m.manifestBytes.join(", ")} bytes on disk) in Node: median ${median(m.wall).toFixed(1)} ms wall (${list(m.wall)}), ${median(m.cpu).toFixed(1)} ms CPU (${list(m.cpu)})`);
  console.log("");
  console.log(`Node ${process.version}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}; load average before ${load}, after ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
}
