// The plate overview's benchmark: a 96-well plate written with zarr-python
// (tests/demo/plate_zarr_python.py: 2 fields per well, 3 levels of
// 2 × 512² uint16, 2 channels, blosc), served by web/demo/serve with 20 ms
// added to every answer, opened in Chromium (HTTP/1.1: 6 connections to
// the server). For each run, in a fresh browser context (an empty cache):
//
// - viewer: the page opens the plate (?url=…) and draws every well; the
//   time from navigation, and from the plate's selection, to the first
//   complete picture; the requests the page sent (the page's own files
//   apart) and the requests for chunks;
// - per-well-image reader: the same page's package opens each well's
//   first field as an image viewer does (the well, the image, every level's
//   metadata, its labels) and reads the lowest level one channel at a time,
//   16 wells at once — the way a viewer that knows only images shows a
//   plate; its time and requests are measured the same way;
// - zarrita.js (Node, counts only): the same per-well-image reading with
//   zarrita.js, the library vizarr reads with (its requests do not depend
//   on the browser; its time is Node's and is not comparable).
//
// - viewer in a plain Chromium: the same page, in a Chromium started
//   without a DevTools connection (a page of tests/demo/pages frames the
//   viewer and prints its figures to the console, which Chromium writes to
//   stderr). Playwright's connection records every request the page sends,
//   which costs Chromium's main thread time for each: this is what a user
//   without developer tools open sees. Its requests are the ones the
//   package's store counts.
//
// On a shared machine the wall clock measures the load as much as the
// page, so the CPU time the browser's processes used for each viewer run
// (from /proc, Linux; every thread of every Chromium process this script
// started) is reported beside it, with the page's main-thread task time.
//
//   node tests/demo/plate-bench.mjs [--runs 3] [--latency 20ms] [--viewer-only]
//
// Prints a table and a JSON line (medians).
import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chromiumPath, flags, python, repoRoot, startDemoServer } from "./harness.mjs";
import { zarrita, ZarritaFetchStore } from "../../npm/dev/deps.mjs";

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const runs = Number(opt("runs", "3"));
const latency = opt("latency", "20ms");
const viewerOnly = args.includes("--viewer-only");

// The plate is written once per version of its script.
const script = path.join(repoRoot, "tests", "demo", "plate_zarr_python.py");
const stamp = (await fs.stat(script)).mtimeMs.toFixed(0);
const dir = path.join(os.tmpdir(), `zarr-wasm-plate96-${stamp}`);
const summaryFile = path.join(dir, "summary.json");
let summary;
try {
  summary = JSON.parse(await fs.readFile(summaryFile, "utf8"));
} catch {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  console.error(`writing the 96-well plate with zarr-python into ${dir} …`);
  const out = execFileSync(python, [script, dir, "--rows", "8", "--columns", "12", "--fields", "2", "--size", "512", "--levels", "3", "--chunk", "256"], { encoding: "utf8" });
  await fs.writeFile(summaryFile, out);
  summary = JSON.parse(out);
}

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-plate-bench-"));
const server = await startDemoServer(tmp, ["-latency", latency, "-mount", `/bench/=${dir}`, "-mount", `/bench-pages/=${path.join(repoRoot, "tests", "demo", "pages")}`]);
const require = createRequire(path.join(repoRoot, "npm", "package.json"));
const { chromium } = require("playwright-core");
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: flags });

/** CPU seconds used so far by the Chromium processes this script started (Linux /proc). */
async function browserCpuSeconds() {
  const tick = 100; // USER_HZ
  const procs = [];
  for (const d of await fs.readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(d)) continue;
    const stat = await fs.readFile(`/proc/${d}/stat`, "utf8").catch(() => null);
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    procs.push({ pid: Number(d), ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / tick, comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) });
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) if (!mine.has(p.pid) && mine.has(p.ppid)) (mine.add(p.pid), (grew = true));
  }
  return procs.filter((p) => p.pid !== process.pid && mine.has(p.pid) && /chrom/i.test(p.comm)).reduce((s, p) => s + p.cpu, 0);
}

/** Counts a page's requests for the plate: all, and chunks (a path ending in a chunk key). */
function countRequests(page) {
  const c = { all: 0, chunks: 0, metadata: 0 };
  page.on("request", (r) => {
    const p = new URL(r.url()).pathname;
    if (!p.startsWith("/bench/")) return;
    c.all++;
    if (/\/\d+\/\d+\/\d+$/.test(p) && !/\/\.z/.test(p)) c.chunks++;
    else c.metadata++;
  });
  return c;
}

async function viewerRun() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const c = countRequests(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const cpu0 = await browserCpuSeconds();
  await page.goto(`${server.url}?url=bench/plate.zarr`);
  // (polled every 50 ms, not every frame: polling on frames makes the page draw frames)
  await page.waitForFunction(() => window.zarrDemo?.grid?.complete && window.zarrDemo.status === "rendered", null, { timeout: 300_000, polling: 50 });
  const cpuMs = ((await browserCpuSeconds()) - cpu0) * 1000;
  const metrics = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  // performance.now() counts from the navigation's start.
  const r = await page.evaluate(() => {
    const g = window.zarrDemo.grid;
    return { plate: g.plate, cells: g.cells.length, ready: g.cells.filter((x) => x.state === "ready").length };
  });
  await context.close();
  return { requests: c.all, chunks: c.chunks, metadata: c.metadata, ready: r.ready, cells: r.cells, level: r.plate.level, levelShape: r.plate.levelShape, sincePlateMs: r.plate.firstPictureMs, sinceNavigationMs: r.plate.firstPictureAt, mainThreadMs: metrics.TaskDuration * 1000, scriptMs: metrics.ScriptDuration * 1000, browserCpuMs: cpuMs };
}

/** The viewer in a Chromium without a DevTools connection: its console line (see the top). */
async function plainViewerRun(i) {
  const child = spawn(chromiumPath, [...flags, "--enable-logging=stderr", "--v=0", "--window-size=1440,900", `--user-data-dir=${path.join(tmp, `plain-${i}`)}`, `${server.url}bench-pages/plate-bench.html?url=bench/plate.zarr`], { stdio: ["ignore", "ignore", "pipe"] });
  try {
    const line = await new Promise((resolve, reject) => {
      let buf = "";
      const timer = setTimeout(() => reject(new Error("plain Chromium: no PLATEBENCH line in 300 s")), 300_000);
      child.stderr.on("data", (d) => {
        buf += d;
        const m = /PLATEBENCH (\{[^}]*\})/.exec(buf);
        if (m) {
          clearTimeout(timer);
          resolve(JSON.parse(m[1]));
        }
        if (buf.length > 1 << 20) buf = buf.slice(-4096);
      });
      child.on("exit", (code) => reject(new Error(`plain Chromium exited (${code}) before the picture`)));
    });
    return line;
  } finally {
    child.kill();
    await new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));
  }
}

async function perWellRun() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  // The page and its engine first (not counted: the same for both readers).
  await page.goto(`${server.url}?url=bench/plate.zarr&path=A/1/0/2`);
  await page.waitForFunction(() => window.zarrDemo?.status === "rendered", null, { timeout: 120_000 });
  const c = countRequests(page);
  const r = await page.evaluate(async (url) => {
    const zarr = window.zarrDemo.zarr;
    const t0 = performance.now();
    const store = new zarr.FetchStore(url);
    const plate = await zarr.open(store, { kind: "group" });
    const wells = plate.attrs.plate.wells.map((w) => w.path);
    let next = 0;
    let ready = 0;
    const one = async (well) => {
      const w = await plate.open(well, { kind: "group" });
      const field = w.attrs.well.images[0].path;
      const img = await w.open(field, { kind: "group" });
      const ms = img.attrs.multiscales[0];
      const levels = await Promise.all(ms.datasets.map((d) => img.open(d.path, { kind: "array" })));
      await img.open("labels", { kind: "group" }).catch(() => null);
      const low = levels[levels.length - 1];
      // One read per channel, as an image viewer's tiles are.
      await Promise.all([0, 1].map((c) => low.get([c, null, null])));
      ready++;
    };
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < wells.length) await one(wells[next++]);
      }),
    );
    return { ms: performance.now() - t0, ready };
  }, `${server.url}bench/plate.zarr`);
  await context.close();
  return { requests: c.all, chunks: c.chunks, metadata: c.metadata, ready: r.ready, sincePlateMs: r.ms };
}

/** zarrita.js reading each well's first field as an image viewer does (Node): its requests. */
async function zarritaRun() {
  const c = { all: 0, chunks: 0, metadata: 0 };
  const store = new ZarritaFetchStore(`${server.url}bench/plate.zarr`, {
    fetch(request) {
      const p = new URL(request.url).pathname;
      c.all++;
      if (/\/\d+\/\d+\/\d+$/.test(p) && !/\/\.z/.test(p)) c.chunks++;
      else c.metadata++;
      return fetch(request);
    },
  });
  const t0 = performance.now();
  const root = zarrita.root(store);
  const plate = await zarrita.open.v2(root, { kind: "group" });
  const wells = plate.attrs.plate.wells.map((w) => w.path);
  let next = 0;
  const one = async (well) => {
    const w = await zarrita.open.v2(root.resolve(well), { kind: "group" });
    const field = w.attrs.well.images[0].path;
    const img = await zarrita.open.v2(root.resolve(`${well}/${field}`), { kind: "group" });
    const ms = img.attrs.multiscales[0];
    const levels = await Promise.all(ms.datasets.map((d) => zarrita.open.v2(root.resolve(`${well}/${field}/${d.path}`), { kind: "array" })));
    await zarrita.open.v2(root.resolve(`${well}/${field}/labels`), { kind: "group" }).catch(() => null);
    const low = levels[levels.length - 1];
    await Promise.all([0, 1].map((ch) => zarrita.get(low, [ch, null, null])));
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < wells.length) await one(wells[next++]);
    }),
  );
  return { requests: c.all, chunks: c.chunks, metadata: c.metadata, sincePlateMs: performance.now() - t0 };
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};

const viewer = [];
const plain = [];
const perWell = [];
let zr = null;
try {
  zr = await zarritaRun();
  for (let i = 0; i < runs; i++) {
    viewer.push(await viewerRun());
    plain.push(await plainViewerRun(i));
    if (!viewerOnly) perWell.push(await perWellRun());
    console.error(`run ${i + 1}: viewer ${JSON.stringify(viewer.at(-1))}; plain ${JSON.stringify(plain.at(-1))}; per-well ${JSON.stringify(perWell.at(-1) ?? null)}`);
  }
} finally {
  await browser.close();
  server.close();
  await fs.rm(tmp, { recursive: true, force: true });
}

const row = (name, rs, nav) =>
  `${name.padEnd(34)} ${String(median(rs.map((r) => r.requests))).padStart(8)} ${String(median(rs.map((r) => r.chunks))).padStart(7)} ${String(median(rs.map((r) => r.metadata))).padStart(9)} ${(median(rs.map((r) => r.sincePlateMs)) / 1000).toFixed(2).padStart(10)} s${nav ? ` ${(median(rs.map((r) => r.sinceNavigationMs)) / 1000).toFixed(2).padStart(10)} s` : ""}`;
console.log(`96-well plate (zarr-python ${summary.wells.length} wells, ${summary.fields} fields, ${summary.levels} levels of 2 × ${summary.size}² uint16), ${latency} per request, Chromium HTTP/1.1 (6 connections); medians of ${runs} runs; load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log(`${"".padEnd(34)} requests  chunks  metadata   plate→all   navigation→all`);
console.log(row("viewer (plate overview)", viewer, true));
console.log(`${"viewer, plain Chromium".padEnd(34)} ${String(median(plain.map((r) => r.requests))).padStart(8)} ${"".padStart(7)} ${"".padStart(9)} ${(median(plain.map((r) => r.sincePlateMs)) / 1000).toFixed(2).padStart(10)} s ${(median(plain.map((r) => r.sinceNavigationMs)) / 1000).toFixed(2).padStart(10)} s`);
if (perWell.length) console.log(row("per-well-image reader (same engine)", perWell, false));
console.log(`${"per-well-image reader (zarrita.js)".padEnd(34)} ${String(zr.requests).padStart(8)} ${String(zr.chunks).padStart(7)} ${String(zr.metadata).padStart(9)}   (Node: ${(zr.sincePlateMs / 1000).toFixed(2)} s, not comparable)`);
console.log(`viewer, navigation to the picture: Chromium's processes used ${(median(viewer.map((r) => r.browserCpuMs)) / 1000).toFixed(2)} s of CPU; the page's main thread ran tasks for ${(median(viewer.map((r) => r.mainThreadMs)) / 1000).toFixed(2)} s (script ${(median(viewer.map((r) => r.scriptMs)) / 1000).toFixed(2)} s), wall time`);
console.log(JSON.stringify({ latency, runs, viewer, plain, perWell, zarrita: zr }));
