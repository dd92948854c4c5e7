// Pooled reads in Chromium (Debian's, through playwright-core): a page
// that is not cross-origin isolated gets the transfer fallback (decoded
// chunks come back from the workers and are copied into an ArrayBuffer);
// the same page served with COOP/COEP headers is isolated and the workers
// write into a SharedArrayBuffer. Both must run, and agree with the engine
// reading on the page's thread (values, and the error of a corrupt chunk).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as http from "node:http";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs, createReadStream } from "node:fs";
import { fileURLToPath } from "node:url";
import { npmDir, exists, peersRequired } from "../node/helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const haveChromium = await exists(chromiumPath);
if (!haveChromium && peersRequired) throw new Error(`${chromiumPath} is missing (apt-get install -y chromium)`);

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves page.html and the npm package at / and, cross-origin isolated, at /iso/. */
async function serve() {
  const server = http.createServer(async (req, res) => {
    let p = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const headers = { "Cache-Control": "no-store" };
    if (p.startsWith("/iso/")) {
      p = p.slice(4);
      headers["Cross-Origin-Opener-Policy"] = "same-origin";
      headers["Cross-Origin-Embedder-Policy"] = "require-corp";
    }
    const file = p === "/page.html" ? path.join(here, "pooled", "page.html") : p.startsWith("/pkg/") ? path.join(npmDir, p.slice(5)) : null;
    if (!file || file.includes("..") || !(await exists(file))) {
      res.writeHead(404, headers);
      return res.end();
    }
    res.writeHead(200, { ...headers, "Content-Type": types[path.extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

describe("pooled reads in Chromium", { skip: !haveChromium && "no chromium" }, () => {
  let srv;
  let context;
  let dataDir;
  before(async () => {
    const { chromium } = await import("../../npm/dev/browser-deps.mjs");
    srv = await serve();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-pooled-"));
    context = await chromium.launchPersistentContext(dataDir, { executablePath: chromiumPath, headless: true, args: flags });
  });
  after(async () => {
    await context?.close();
    srv?.server.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  for (const iso of [false, true]) {
    const mode = iso ? "shared" : "transfer";
    test(`${iso ? "a cross-origin isolated page: workers write into a SharedArrayBuffer" : "a page without isolation: the transfer fallback"}`, async (t) => {
      const p = await context.newPage();
      const errors = [];
      p.on("pageerror", (e) => errors.push(String(e)));
      try {
        await p.goto(`${srv.url}${iso ? "/iso" : ""}/page.html`);
        await p.waitForFunction(() => document.title === "ready", null, { timeout: 60_000 });
        const r = await p.evaluate(() => globalThis.pooledProbe());
        t.diagnostic(`crossOriginIsolated ${r.crossOriginIsolated}; reads ${r.stats.reads}; chunks per worker ${r.stats.decoded.join(", ")}; on the page's thread ${r.stats.here}`);
        assert.equal(r.crossOriginIsolated, iso);
        assert.equal(r.shared, iso);
        for (const [name, a] of Object.entries(r.arrays)) {
          assert.ok(a.same, `${name}: pooled and one-thread reads differ`);
          assert.deepEqual(a.buffers, Array(3).fill(iso ? "SharedArrayBuffer" : "ArrayBuffer"), name);
          assert.deepEqual(a.error, ["CODEC", "CODEC", true, true], name);
        }
        assert.ok(r.stats.reads >= 12, `reads through the pool (${mode}): ${r.stats.reads}`);
        assert.ok(r.stats.decoded.every((n) => n > 0), "both workers decoded chunks");
        assert.ok(r.stats.here > 0, "the page's thread decoded chunks of pooled reads too");
        assert.deepEqual(errors, []);
      } finally {
        await p.close();
      }
    });
  }
});
