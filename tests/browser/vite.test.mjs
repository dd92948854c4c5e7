// A Vite app (tests/browser/spa) under `vite` (dev server), `vite preview`
// and `vite build` served plainly, in Debian's chromium: it opens a v2 and
// a v3 array from its own origin. Vite's SPA fallback answers 200 with
// index.html for the metadata keys a store does not have (zarr.json of a
// v2 store, .zarray/.zgroup of a v3 one); the package must take that HTML
// for an absent key, by its content type (FetchStore) and, when the type is
// hidden, by the engine's own check. Values are compared with cases.json.
// (Vite's static server also answers a suffix range "bytes=-N" with the
// first bytes; FetchStore asks again by offset, which the sharded v3 array
// needs.)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { fileURLToPath } from "node:url";
import { repoRoot, npmDir, startServer, loadCases, compareCase, exists, peersRequired } from "../node/helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const haveChromium = await exists(chromiumPath);
if (!haveChromium && peersRequired) throw new Error(`${chromiumPath} is missing (apt-get install -y chromium)`);

const picks = [
  { v: "v2", name: "v2.zarr:dtypes/i4_le" },
  { v: "v3", name: "v3.zarr:sharding/end_crc" },
];
const cases = [];
for (const p of picks) {
  const all = await loadCases(path.join(repoRoot, "tests", "fixtures", p.v, "cases.json"));
  const c = all.find((x) => `${x.store}:${x.path}` === p.name && x.selection === "");
  assert.ok(c, p.name);
  cases.push({ ...c, base: `/${p.v}/data/${c.store}/` });
}

const config = (extra) => ({
  root: path.join(here, "spa"),
  publicDir: path.join(repoRoot, "tests", "fixtures"),
  logLevel: "warn",
  configFile: false,
  // Vite's dependency cache, outside the repository.
  cacheDir: path.join(os.tmpdir(), "zarr-wasm-spa-vite-cache"),
  resolve: {
    alias: [
      { find: /^zarr-wasm$/, replacement: path.join(npmDir, "index.js") },
      { find: /^zarr-wasm\/(.*)$/, replacement: `${npmDir}/$1` },
    ],
  },
  server: { host: "127.0.0.1", port: 0, strictPort: false, fs: { allow: [repoRoot] } },
  preview: { host: "127.0.0.1", port: 0 },
  ...extra,
});

describe("a Vite app opens v2 and v3 stores from its own origin (SPA fallback)", { skip: haveChromium ? false : `${chromiumPath} not installed` }, () => {
  let vite;
  let context;
  let userDataDir;
  let outDir;
  const servers = {};

  before(async () => {
    const deps = await import("../../npm/dev/browser-deps.mjs");
    vite = deps.vite;
    userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-chromium-"));
    context = await deps.chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, headless: true, args: flags });
    outDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-spa-"));
    await vite.build(config({ build: { outDir, emptyOutDir: true, target: "es2022", copyPublicDir: true } }));
  });

  after(async () => {
    await context?.close();
    for (const s of Object.values(servers)) await s?.close?.();
    for (const d of [userDataDir, outDir]) if (d) await fs.rm(d, { recursive: true, force: true });
  });

  const modes = {
    dev: async () => {
      const s = await vite.createServer(config({}));
      await s.listen();
      servers.dev = s;
      return s.resolvedUrls.local[0];
    },
    preview: async () => {
      const s = await vite.preview(config({ build: { outDir } }));
      servers.preview = { close: () => new Promise((r) => s.httpServer.close(r)) };
      return s.resolvedUrls.local[0];
    },
    // The built app on a plain static server (404 for missing files): the
    // control, where nothing depends on the HTML rule.
    build: async () => {
      const s = await startServer(outDir);
      servers.build = s;
      return `${s.url}/index.html`;
    },
  };

  for (const [mode, start] of Object.entries(modes)) {
    test(`${mode}: v2 and v3 arrays read as the writers wrote them`, async () => {
      const url = await start();
      const page = await context.newPage();
      try {
        await page.goto(url);
        await page.waitForFunction(() => document.title === "ready", null, { timeout: 60_000 });
        if (mode !== "build") {
          // The fallback really answers HTML for a metadata key the v2 store lacks.
          const probe = await page.evaluate(async (u) => {
            const r = await fetch(u);
            return { status: r.status, type: r.headers.get("content-type"), start: (await r.text()).trimStart().slice(0, 1) };
          }, new URL(`${cases[0].base}zarr.json`, url).href);
          assert.equal(probe.status, 200);
          assert.match(probe.type, /text\/html/);
          assert.equal(probe.start, "<");
        }
        // The decoders' module (lib/codecs.wasm) loaded: served by Vite's dev server, or emitted as an asset.
        const wasm = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => ({ name: e.name, status: e.responseStatus })).filter((e) => /\.wasm(\?|$)/.test(e.name)));
        assert.ok(wasm.some((e) => /\/codecs[-.][^/]*wasm/.test(e.name) && !/codecs-encode/.test(e.name) && e.status === 200), JSON.stringify(wasm));
        for (const c of cases) {
          for (const hideType of [false, true]) {
            const r = await page.evaluate(([b, p, h]) => globalThis.readFixture(b, p, h), [c.base, c.path, hideType]);
            assert.equal(r.error, undefined, `${c.name} (content type ${hideType ? "hidden" : "shown"}): ${JSON.stringify(r.error)}`);
            assert.equal(r.zarrFormat, c.zarr_format);
            const diff = compareCase(c, { shape: r.shape, data: Int32Array.from(r.data) });
            assert.equal(diff, null, `${c.name}: ${diff}`);
          }
        }
      } finally {
        await page.close();
      }
    });
  }
});
