// The bench's sections beyond the in-memory reads (tests/bench/bench.mjs
// runs them after its own): startup in fresh Node processes, the download a
// read-only program needs, and reads over HTTP from a server that adds
// 20 ms to every request — zarr-wasm and zarrita.js in the same run,
// interleaved, medians.
import { execFileSync, fork } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { zarrita, ZarritaFetchStore } from "../../npm/dev/deps.mjs";
import { npmDir, startServer } from "../node/helpers.mjs";

/**
 * The machine's busy CPU time so far, ms (/proc/stat: every state but idle
 * and iowait, in USER_HZ 100 ticks), or null where there is no /proc/stat:
 * the pooled-read benches keep a read only while other processes left the
 * cores to it.
 */
export function machineBusyMs() {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    return (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) * 10;
  } catch {
    return null;
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const f = (x, d = 0) => x.toFixed(d);

/** Writes the bench arrays to a directory (v2 and v3 as in bench.mjs) and returns it. */
export async function writeToDisk(data, N, C, codecs) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-bench-"));
  const store = new FileSystemStore(dir);
  for (const [name, opts] of codecs) {
    const arr = await zarr.create(store, { path: name, shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, ...opts });
    await arr.set(null, { data, shape: [N, N] });
  }
  return dir;
}

/**
 * Startup: a fresh Node process imports the library, opens an array on disk
 * (zstd, v2) and reads one element; the figure is the process's own clock
 * at the end (performance.now(), from the process's start, Node's own
 * start included for both). Alternately zarr-wasm and zarrita.js, and in
 * the same alternation the floor under any engine written in Go (goFloor).
 */
export async function startup(dir, runs) {
  const ours = `
    const z = await import(${JSON.stringify(path.join(npmDir, "index.js"))});
    const { FileSystemStore } = await import(${JSON.stringify(path.join(npmDir, "node.js"))});
    const t = performance.now();
    const a = await z.open(new FileSystemStore(${JSON.stringify(dir)}), { path: "zstd", kind: "array" });
    const v = (await a.get([5, 7])).data[0];
    console.log(JSON.stringify([t, performance.now(), v]));`;
  const theirs = `
    const { zarrita, ZarritaFileSystemStore } = await import(${JSON.stringify(path.join(npmDir, "dev", "deps.mjs"))});
    const t = performance.now();
    const a = await zarrita.open(zarrita.root(new ZarritaFileSystemStore(${JSON.stringify(dir)})).resolve("zstd"), { kind: "array" });
    const r = await zarrita.get(a, [5, 7]); // (a scalar for integer indices)
    const v = typeof r === "object" ? r.data[0] : r;
    console.log(JSON.stringify([t, performance.now(), v]));`;
  const run = (code) => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" }).trim().split("\n").pop());
  const floor = await goFloor(dir).catch((e) => ({ failed: String(e?.message ?? e).split("\n")[0] }));
  const w = [], z = [], g = [];
  run(ours), run(theirs), floor.code && run(floor.code); // warm the file cache
  for (let i = 0; i < runs; i++) {
    const a = i % 2 ? null : run(ours);
    const b = run(theirs);
    const c = a ?? run(ours);
    if (c[2] !== b[2]) throw new Error(`startup: the libraries read ${c[2]} and ${b[2]}`);
    w.push(c), z.push(b);
    if (floor.code) {
      const e = run(floor.code);
      if (e[2] !== true) throw new Error("startup: the empty Go program's main did not run");
      g.push(e);
    }
  }
  const row = (name, xs) => `| ${name} | ${f(median(xs.map((x) => x[0])), 1)} | ${f(median(xs.map((x) => x[1] - x[0])), 1)} | ${f(median(xs.map((x) => x[1])), 1)} |`;
  return [
    `Startup in a fresh Node process (ms from the process's start, median of ${runs}, alternately): import, then open an array on disk (zstd) and read one element`,
    "",
    "| library | import done | open + first read | total |",
    "|---|---:|---:|---:|",
    row("zarr-wasm", w),
    row(`zarrita.js`, z),
    "",
    `ratio of totals (zarr-wasm / zarrita.js): ${f(median(w.map((x) => x[1])) / median(z.map((x) => x[1])), 2)}`,
    "",
    floor.code
      ? `the floor under any engine written in Go: an empty Go program (GOOS=js, built as the engine is) runs its main ${f(median(g.map((x) => x[1] - x[0])), 1)} ms after Go's wasm_exec.js is imported (read, compile, instantiate, Go's runtime starting), against zarrita.js's whole open + first read ${f(median(z.map((x) => x[1] - x[0])), 1)} ms`
      : `(the empty Go program was not built: ${floor.failed})`,
  ];
}

/**
 * An empty Go program built for GOOS=js as the engine is (-trimpath, no
 * symbols) in dir, and the code a fresh Node process runs to start it the
 * plain way (Go's wasm_exec.js, read, compile, instantiate, run): what any
 * Zarr engine written in Go pays before its first line runs.
 */
async function goFloor(dir) {
  const src = path.join(dir, "go-floor");
  await fs.mkdir(src, { recursive: true });
  await fs.writeFile(path.join(src, "go.mod"), "module gofloor\n\ngo 1.21\n");
  await fs.writeFile(path.join(src, "main.go"), 'package main\n\nimport "syscall/js"\n\nfunc main() {\n\tjs.Global().Set("goMainRan", true)\n\tselect {}\n}\n');
  execFileSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", "floor.wasm", "."], { cwd: src, env: { ...process.env, GOOS: "js", GOARCH: "wasm" }, stdio: ["ignore", "ignore", "pipe"] });
  const code = `
    await import(${JSON.stringify(path.join(npmDir, "wasm_exec.js"))});
    const { readFileSync } = await import("node:fs");
    const t = performance.now();
    const go = new Go();
    // (synchronously: in these processes quicker than WebAssembly.instantiate)
    const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(${JSON.stringify(path.join(src, "floor.wasm"))})), go.importObject);
    go.run(instance); // (main runs before run returns: it blocks in select)
    console.log(JSON.stringify([t, performance.now(), globalThis.goMainRan === true]));`;
  return { code };
}

const brotli = (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

async function jsFiles(dir, skip = /__tests__|\.d\.ts$|\.map$/) {
  const out = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath ?? e.path, e.name);
    if (e.isFile() && /\.(js|mjs|wasm)$/.test(e.name) && !skip.test(p)) out.push(p);
  }
  return out;
}

async function brotliOf(files) {
  let raw = 0, br = 0;
  for (const p of files) {
    const b = await fs.readFile(p);
    raw += b.length;
    br += brotli(b);
  }
  return { raw, br };
}

/**
 * Download: what a read-only program fetches before its first read (each
 * file brotli q11, summed; no bundler), for zarr-wasm (its JavaScript, the
 * core build and the decoders' module, lib/codecs.wasm) and zarrita.js (its
 * JavaScript, and numcodecs.js's zstd module, fetched when a zstd array is
 * first read; every codec for the second row).
 */
export async function download() {
  // (The encoders' module comes with the full build, for writing.)
  const lib = [path.join(npmDir, "index.js"), path.join(npmDir, "wasm_exec.js"), ...(await jsFiles(path.join(npmDir, "lib"))).filter((p) => p.endsWith(".js"))];
  const ourJS = await brotliOf(lib);
  const coreOnly = await brotliOf([path.join(npmDir, "zarr-core.wasm")]);
  const decoders = await brotliOf([path.join(npmDir, "lib", "codecs.wasm")]);
  const core = { raw: coreOnly.raw + decoders.raw, br: coreOnly.br + decoders.br };
  const full = await brotliOf([path.join(npmDir, "zarr.wasm"), path.join(npmDir, "lib", "codecs-encode.wasm")]);
  const nm = path.join(npmDir, "node_modules");
  const zJS = await brotliOf([...(await jsFiles(path.join(nm, "zarrita", "dist"))), ...(await jsFiles(path.join(nm, "@zarrita", "storage", "dist")))]);
  const ncDir = path.join(nm, "numcodecs", "dist");
  const ncShared = (await jsFiles(ncDir)).filter((p) => /index\.js$|chunk-/.test(p));
  const zZstd = await brotliOf([...ncShared, path.join(ncDir, "zstd.js")]);
  const zAll = await brotliOf(await jsFiles(ncDir));
  const kb = (x) => f(x / 1024, 0);
  return [
    "Download before the first read (brotli q11 of each file, summed; KB = 1024 bytes)",
    "",
    "| what | zarr-wasm | zarrita.js |",
    "|---|---:|---:|",
    `| JavaScript | ${kb(ourJS.br)} | ${kb(zJS.br)} |`,
    `| WebAssembly compiled before a zstd read (zarr-wasm: zarr-core.wasm and the decoders, lib/codecs.wasm; zarrita: numcodecs' zstd module with its loader) | ${kb(core.br)} | ${kb(zZstd.br)} |`,
    `| total for a zstd read | ${kb(ourJS.br + core.br)} | ${kb(zJS.br + zZstd.br)} |`,
    `| loaded later when needed (zarr-wasm: zarr.wasm, the full build, and the encoders; zarrita: every numcodecs module) | ${kb(full.br)} | ${kb(zAll.br)} |`,
    "",
    `zarr-core.wasm ${coreOnly.raw.toLocaleString("en")} bytes raw, ${coreOnly.br.toLocaleString("en")} brotli; lib/codecs.wasm ${decoders.raw.toLocaleString("en")} raw, ${decoders.br.toLocaleString("en")} brotli; WebAssembly before a first read ${(core.br / 1e6).toFixed(3)} MB brotli (goal ≤ 1.0 MB); zarr.wasm and the encoders ${full.raw.toLocaleString("en")} raw`,
  ];
}

/**
 * Starts tests/bench/http-server.mjs (a Node process of its own serving
 * dir on 127.0.0.1, waiting delayMs before every answer, answering slots
 * requests at once if given) and returns {url, requests(): the requests it
 * has received, counts(), close()}.
 */
export async function startServerProcess(dir, delayMs, slots = undefined) {
  const args = [dir, String(delayMs), ...(slots ? [String(slots)] : [])];
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), "http-server.mjs"), args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the bench's HTTP server exited (${code})`));
      child.once("exit", onExit);
      child.once("message", (m) => (child.off("exit", onExit), resolve(m)));
    });
  const { url } = await next();
  return {
    url,
    pid: child.pid,
    requests: async () => (child.send("requests"), (await next()).requests),
    /** {requests, connections, bytes} so far. */
    counts: async () => (child.send("requests"), await next()),
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send("close");
      await exited;
    },
  };
}

/**
 * Over HTTP: a local server on 127.0.0.1 (another process) that waits 20
 * ms before every answer; each library reads with its own FetchStore (wall
 * time of open + read, and of open alone, median of RUNS, alternately), and
 * the server counts the requests of one open + read. zarr-wasm is timed on
 * this thread (get(sel, {workers: false})) and with useWorkers(2) (its
 * decode workers; "—" when that read fails).
 */
export async function overHTTP(dir, N, runs) {
  const server = await startServerProcess(dir, 20);
  const lines = [
    "Over HTTP (a server in another process on 127.0.0.1 adding 20 ms to every request; each library's own FetchStore; wall time of open + read, of which open, median of " + runs + ", alternately; time ratio: the median of the rounds' ratios)",
    "",
    "| array | read | zarr-wasm ms (open; requests) | with useWorkers(2) ms | zarrita.js ms (open; requests) | time ratio | with useWorkers(2) |",
    "|---|---|---:|---:|---:|---:|---:|",
  ];
  const reads = [
    ["whole array", null, [null, null]],
    ["1000×1000 window", [zarr.slice(1500, 2500), zarr.slice(1200, 2200)], [zarrita.slice(1500, 2500), zarrita.slice(1200, 2200)]],
  ];
  await zarr.useWorkers(2);
  try {
    for (const name of ["blosc-lz4", "zstd", "v3 sharded zstd"]) {
      const url = `${server.url}/${encodeURIComponent(name)}`;
      for (const [label, selW, selZ] of reads) {
        // A fresh store and array per read, so no library keeps bytes between reads.
        const ours = (workers) => async () => {
          const a = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
          const t = performance.now();
          await a.get(selW, { workers });
          return t;
        };
        const theirs = async () => {
          const a = await zarrita.open(zarrita.root(new ZarritaFetchStore(url)), { kind: "array" });
          const t = performance.now();
          await zarrita.get(a, selZ);
          return t;
        };
        const counted = async (fn) => {
          const before = await server.requests();
          const t = performance.now();
          const opened = await fn();
          const end = performance.now();
          return { ms: end - t, open: opened - t, requests: (await server.requests()) - before };
        };
        let pooledFailed = false;
        const pooled = async () => {
          if (pooledFailed) return null;
          try {
            return await counted(ours(undefined));
          } catch (e) {
            pooledFailed = true;
            process.stderr.write(`over HTTP, ${name} ${label} with useWorkers(2): ${e?.message ?? e}\n`);
            return null;
          }
        };
        await counted(ours(false)), await pooled(), await counted(theirs);
        const w = [], p = [], z = [];
        for (let i = 0; i < runs; i++) {
          if (i % 2) z.push(await counted(theirs)), p.push(await pooled()), w.push(await counted(ours(false)));
          else w.push(await counted(ours(false))), p.push(await pooled()), z.push(await counted(theirs));
        }
        const ms = (xs) => median(xs.map((x) => x.ms));
        const cell = (xs) => `${f(ms(xs))} (${f(median(xs.map((x) => x.open)))}; ${xs[0].requests})`;
        // The ratio: the median of each round's (reads timed next to each other, so a change in the machine's load moves both).
        const ratio = (xs) => f(median(xs.map((x, i) => x.ms / z[i].ms)), 2);
        const pooledCells = pooledFailed ? ["—", "—"] : [f(ms(p)), ratio(p)];
        lines.push(`| ${name} | ${label} | ${cell(w)} | ${pooledCells[0]} | ${cell(z)} | ${ratio(w)} | ${pooledCells[1]} |`);
      }
    }
  } finally {
    await zarr.useWorkers(0);
    await server.close();
  }
  return lines;
}

/**
 * Startup in Chromium (Debian's, through playwright-core): a page bundled
 * by Vite imports the library (a dynamic import, its own chunk), starts it
 * (zarr-wasm: init(), which compiles zarr-core.wasm while it streams in),
 * opens the zstd array over HTTP from 127.0.0.1 (FetchStore) and reads one
 * element. A fresh page for every run (files served with no-store, so
 * nothing comes from the HTTP cache), alternately zarr-wasm and zarrita.js;
 * ms from the page's navigation start, medians. Skipped without Chromium.
 */
export async function browserStartup(dir, runs) {
  const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
  try {
    await fs.access(chromiumPath);
  } catch {
    return [`Startup in Chromium: skipped (no ${chromiumPath})`];
  }
  const { chromium, vite } = await import("../../npm/dev/browser-deps.mjs");
  const app = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-startup-app-"));
  const out = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-startup-out-"));
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-startup-chromium-"));
  const page = (lib) => `<!doctype html><meta charset="utf-8"><title>startup</title><script type="module" src="./${lib}.js"></script>`;
  // Each page reports [import done, started, opened, first value read] (ms from navigation start) and the value.
  const ours = `
    const t0 = performance.now();
    const zarr = await import("zarr-wasm");
    const t1 = performance.now();
    await zarr.init();
    const t2 = performance.now();
    const a = await zarr.open(new zarr.FetchStore(location.origin + "/data/zstd"), { kind: "array" });
    const t3 = performance.now();
    const v = (await a.get([5, 7])).data[0];
    globalThis.result = [t0, t1, t2, t3, performance.now(), v];`;
  // As zarrita's users write it: open() without init(); the engine starts
  // inside the open, which asks the store for the metadata meanwhile.
  const lazy = `
    const t0 = performance.now();
    const zarr = await import("zarr-wasm");
    const t1 = performance.now();
    const t2 = t1; // (init() not called)
    const a = await zarr.open(new zarr.FetchStore(location.origin + "/data/zstd"), { kind: "array" });
    const t3 = performance.now();
    const v = (await a.get([5, 7])).data[0];
    globalThis.result = [t0, t1, t2, t3, performance.now(), v];`;
  const theirs = `
    const t0 = performance.now();
    const zarrita = await import("zarrita");
    const t1 = performance.now();
    const t2 = t1; // (nothing to start)
    const a = await zarrita.open(zarrita.root(new zarrita.FetchStore(location.origin + "/data/zstd")), { kind: "array" });
    const t3 = performance.now();
    const r = await zarrita.get(a, [5, 7]);
    const v = typeof r === "object" ? r.data[0] : r;
    globalThis.result = [t0, t1, t2, t3, performance.now(), v];`;
  const pages = { ours, lazy, theirs };
  for (const [name, code] of Object.entries(pages)) {
    await fs.writeFile(path.join(app, `${name}.html`), page(name));
    await fs.writeFile(path.join(app, `${name}.js`), code);
  }
  let server, context;
  try {
    await vite.build({
      root: app,
      base: "/app/",
      logLevel: "warn",
      configFile: false,
      build: { outDir: out, emptyOutDir: true, target: "es2022", rollupOptions: { input: Object.fromEntries(Object.keys(pages).map((name) => [name, path.join(app, `${name}.html`)])) } },
      resolve: {
        alias: [
          { find: /^zarr-wasm$/, replacement: path.join(npmDir, "index.js") },
          { find: /^zarrita$/, replacement: path.join(npmDir, "node_modules", "zarrita", "dist", "src", "index.js") },
        ],
      },
    });
    // BENCH_WASM_ENCODING=br or gzip: the bundle's .wasm files are sent
    // compressed (beforehand: brotli q11, gzip -9), as a deployment would
    // serve them; unset: raw.
    const encoding = process.env.BENCH_WASM_ENCODING ?? "";
    const routes = {};
    if (encoding) {
      const compress = { br: (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }), gzip: (b) => zlib.gzipSync(b, { level: 9 }) }[encoding];
      if (!compress) throw new Error(`BENCH_WASM_ENCODING: br or gzip, not ${encoding}`);
      for (const e of await fs.readdir(path.join(out, "assets"))) {
        if (!e.endsWith(".wasm")) continue;
        const body = compress(await fs.readFile(path.join(out, "assets", e)));
        routes[`/app/assets/${e}`] = (req, res, finish) => finish(200, { "Content-Type": "application/wasm", "Content-Encoding": encoding, "Content-Length": body.length, "Cache-Control": "no-store" }, body);
      }
      if (!Object.keys(routes).length) throw new Error("BENCH_WASM_ENCODING: no .wasm in the bundle's assets");
    }
    server = await startServer(dir, { mounts: { "/app": out, "/data": dir }, routes });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const run = async (lib) => {
      const p = await context.newPage();
      try {
        await p.goto(`${server.url}/app/${lib}.html`);
        await p.waitForFunction(() => globalThis.result, null, { timeout: 60_000 });
        return await p.evaluate(() => globalThis.result);
      } finally {
        await p.close();
      }
    };
    await run("ours"), await run("lazy"), await run("theirs"); // (Chromium's first pages)
    const w = [], l = [], z = [];
    for (let i = 0; i < runs; i++) {
      // (The order turns each run: ours, lazy, theirs; lazy, theirs, ours; ...)
      const order = ["ours", "lazy", "theirs"].map((_, j, names) => names[(i + j) % 3]);
      const got = {};
      for (const name of order) got[name] = await run(name);
      if (got.ours[5] !== got.theirs[5] || got.lazy[5] !== got.theirs[5]) throw new Error(`browser startup: the libraries read ${got.ours[5]}, ${got.lazy[5]} and ${got.theirs[5]}`);
      w.push(got.ours), l.push(got.lazy), z.push(got.theirs);
    }
    const m = (xs, i, j) => f(median(xs.map((x) => x[j] - (i < 0 ? 0 : x[i]))), 1);
    const row = (name, xs) => `| ${name} | ${m(xs, -1, 0)} | ${m(xs, 0, 1)} | ${m(xs, 1, 2)} | ${m(xs, 2, 3)} | ${m(xs, 1, 3)} | ${m(xs, 3, 4)} | ${m(xs, -1, 4)} |`;
    return [
      `Startup in Chromium ${context.browser()?.version() ?? ""} (a fresh page per run, bundled by Vite, the array over HTTP from 127.0.0.1, .wasm files sent ${encoding ? `with Content-Encoding ${encoding}` : "raw"}; ms, median of ${runs}, in turn): the library's dynamic import, init(), open, then one element read; "open() without init()" starts the engine inside the open, as zarrita's users write it (its open is import → opened)`,
      "",
      "| library | page script starts | import | init | open | init + open | first read | total from navigation |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      row("zarr-wasm", w),
      row("zarr-wasm, open() without init()", l),
      row("zarrita.js", z),
    ];
  } finally {
    await context?.close();
    await server?.close();
    for (const d of [app, out, profile]) await fs.rm(d, { recursive: true, force: true });
  }
}
