// What the demo viewer's browser suites share: Debian's chromium (never a
// downloaded browser) driven by playwright-core from npm/'s
// devDependencies, the page served by web/demo/serve with the sample data
// web/demo/gen writes (make demo-data), and helpers that read what the page
// drew: canvas pixels at CSS points, the point of a data pixel on screen.
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..", "..");
export const outDir = path.join(here, "out");
export const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** CI sets this: a missing peer (chromium, zarr-python, …) fails rather than skips. */
export const required = process.env.ZARR_WASM_REQUIRE_PEERS === "1";
export const python = process.env.PYTHON ?? "/usr/bin/python3";

// Chromium's flags. WebGL2 runs on SwiftShader (software) in headless mode
// without a GPU; --enable-unsafe-swiftshader keeps it allowed where a
// Chromium release requires the opt-in for software WebGL.
export const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--enable-unsafe-swiftshader",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function exists(p) {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

/** What the suites need and is missing (empty when all is there); throws under ZARR_WASM_REQUIRE_PEERS=1. */
export async function missingParts() {
  const missing = [];
  if (!(await exists(chromiumPath))) missing.push(`${chromiumPath} (apt-get install -y chromium)`);
  if (!(await exists(path.join(repoRoot, "npm", "node_modules", "playwright-core")))) missing.push("npm/node_modules/playwright-core (make npm-deps)");
  if (!(await exists(path.join(repoRoot, "npm", "zarr.wasm")))) missing.push("npm/zarr.wasm (make wasm)");
  if (!(await exists(path.join(repoRoot, "web", "demo", "data", "sample.zarr")))) missing.push("web/demo/data (make demo-data)");
  if (!(await exists(path.join(repoRoot, "web", "demo", "node_modules", "world-atlas")))) missing.push("web/demo/node_modules (make demo-deps)");
  if (missing.length && required) throw new Error(`missing: ${missing.join(", ")}`);
  return missing;
}

/** Starts web/demo/serve on a free port (args: more flags); resolves to {url, close}. */
export async function startDemoServer(binDir, args = []) {
  const bin = path.join(binDir, "demo-serve");
  execFileSync(process.env.GO ?? "go", ["build", "-o", bin, "./web/demo/serve"], { cwd: repoRoot, stdio: "inherit" });
  const child = spawn(bin, ["-addr", "127.0.0.1:0", ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      const line = buf.split("\n")[0];
      if (buf.includes("\n")) resolve(line.trim());
    });
    child.on("exit", (code) => reject(new Error(`web/demo/serve exited (${code})`)));
  });
  return { url, close: () => child.kill() };
}

/**
 * Starts the demo server and chromium; resolves to a session: {server,
 * context, page, errors (script errors seen), tmp, newPage(), rendered(),
 * pixels(), close()}.
 */
export async function startViewer({ viewport = { width: 1440, height: 900 }, serveArgs = [] } = {}) {
  await fs.mkdir(outDir, { recursive: true });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-demo-"));
  const server = await startDemoServer(tmp, serveArgs);
  const require = createRequire(path.join(repoRoot, "npm", "package.json"));
  const { chromium } = require("playwright-core");
  const context = await chromium.launchPersistentContext(path.join(tmp, "profile"), {
    executablePath: chromiumPath,
    headless: true,
    args: flags,
    viewport,
    deviceScaleFactor: 1,
  });
  const errors = [];
  const watch = (p) => {
    p.on("pageerror", (e) => errors.push(String(e)));
    p.on("console", (m) => {
      // Absent keys are 404s by design (the engine probes zarr.json, .zarray, .zgroup).
      if (m.type() === "error" && !/status of 404/.test(m.text())) errors.push(m.text());
    });
    return p;
  };
  const s = {
    server,
    context,
    tmp,
    errors,
    page: watch(await context.newPage()),
    /** Another tab, its errors watched too. */
    async newPage() {
      return watch(await context.newPage());
    },
    /** Runs action, then waits until the viewer has drawn a complete new frame (and cond holds, evaluated in the page). */
    async rendered(action, cond = "true", page = s.page) {
      const before = await page.evaluate(() => window.zarrDemo?.renders ?? 0);
      await action();
      await page.waitForFunction(
        ([n, c]) => window.zarrDemo?.status === "rendered" && window.zarrDemo.renders > n && eval(c),
        [before, cond],
        { timeout: 60_000 },
      );
    },
    /** Opens the page at query (?url=…) and waits for a complete frame (and cond). */
    async goto(query, cond = "true", page = s.page) {
      await page.goto(`${server.url}${query}`);
      await page.waitForFunction((c) => window.zarrDemo?.status === "rendered" && window.zarrDemo.renders > 0 && eval(c), cond, { timeout: 60_000 });
    },
    /** Pixels (RGB) at CSS points of a canvas (default: the slice view's). */
    pixels(points, selector = ".view-canvas", page = s.page) {
      return page.evaluate(
        ([pts, sel]) => {
          const c = document.querySelector(sel);
          let g = c.getContext("2d");
          if (!g) {
            // A WebGL canvas: copy it into a 2D one (it keeps its drawing buffer).
            const copy = new OffscreenCanvas(c.width, c.height);
            g = copy.getContext("2d");
            g.drawImage(c, 0, 0);
          }
          const dpr = window.devicePixelRatio || 1;
          return pts.map(([x, y]) => Array.from(g.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data.slice(0, 3)));
        },
        [points, selector],
      );
    },
    /** Every pixel of a canvas, as a hash and the RGBA bytes' length (to compare two pictures). */
    canvasDigest(selector = ".view-canvas", page = s.page) {
      return page.evaluate(async (sel) => {
        const c = document.querySelector(sel);
        const copy = new OffscreenCanvas(c.width, c.height);
        copy.getContext("2d").drawImage(c, 0, 0);
        const data = copy.getContext("2d").getImageData(0, 0, c.width, c.height).data;
        const digest = await crypto.subtle.digest("SHA-256", data);
        return { sha256: Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""), bytes: data.length, width: c.width, height: c.height };
      }, selector);
    },
    async close() {
      await context.close().catch(() => {});
      server.close();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
  return s;
}

/** Screen point (CSS px) of the centre of data pixel (row, col) of a slice view state, and whether it is on the canvas. */
/** Waits until the page's address has caught up with the view (it is saved 300 ms after a change), returns it. */
export async function settledAddress(page) {
  let last = "";
  for (;;) {
    await page.waitForTimeout(400);
    const now = await page.evaluate(() => location.href);
    if (now === last) return now;
    last = now;
  }
}

export function screenOf(vs, row, col) {
  const px = (col + 0.5 - vs.cx) * vs.z + vs.cw / 2;
  const py = (row + 0.5 - vs.cy) * vs.z + vs.ch / 2;
  return { px, py, inside: px >= 1 && py >= 1 && px < vs.cw - 1 && py < vs.ch - 1 };
}

/** Asserts that a colour is within tol of the expected one in each component. */
export function close(actual, expected, tol, what) {
  const diff = Math.max(...actual.map((a, k) => Math.abs(a - expected[k])));
  assert.ok(diff <= tol, `${what}: got rgb(${actual}), expected about rgb(${expected.map((x) => x.toFixed(1))})`);
}

/** The additive composite of channels [{v, color, lo, hi}]: each adds color·clamp((v-lo)/(hi-lo)), capped at 255. */
export function composite(channels) {
  return [0, 1, 2].map((k) => Math.min(255, channels.reduce((acc, c) => acc + c.color[k] * Math.min(1, Math.max(0, (c.v - c.lo) / (c.hi - c.lo))), 0)));
}

/** "FF8000" → [255, 128, 0]. */
export function rgbOf(hex) {
  return [0, 2, 4].map((k) => parseInt(hex.replace(/^#/, "").slice(k, k + 2), 16));
}

// viridis: the ten published anchors (viridisLite, n = 10), linear in between.
const viridis = ["#440154", "#482878", "#3e4a89", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6dcd59", "#b4de2c", "#fde725"].map((h) => {
  const n = parseInt(h.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
});

export function viridisAt(t) {
  t = Math.min(1, Math.max(0, t)) * 9;
  const i = Math.min(8, Math.floor(t));
  const f = t - i;
  return [0, 1, 2].map((k) => viridis[i][k] + (viridis[i + 1][k] - viridis[i][k]) * f);
}
