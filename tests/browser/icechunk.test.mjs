// IcechunkStore in Debian's chromium (playwright-core): a page served
// without COOP/COEP headers (not cross-origin isolated) opens repositories
// the official package (@earthmover/icechunk 2.2.2) wrote, over HTTP with
// Range requests, at branches, tags and snapshots, and reads virtual chunks
// from a server on another origin; every array's values equal what the
// official package reads (tests/icechunk/oracle.mjs).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs, existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { repoRoot, npmDir, startServer, exists, peersRequired } from "../node/helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const icDir = path.join(repoRoot, "tests", "icechunk");
const haveChromium = await exists(chromiumPath);
const havePackage = existsSync(path.join(icDir, "node_modules", "@earthmover", "icechunk-wasm32-wasi"));
if (peersRequired && !haveChromium) throw new Error(`${chromiumPath} is missing (apt-get install -y chromium)`);
if (peersRequired && !havePackage) throw new Error("tests/icechunk/node_modules is missing (make npm-deps)");

const skip = !haveChromium ? `${chromiumPath} not installed` : !havePackage ? "the official Icechunk package is not installed" : false;

describe("IcechunkStore in chromium", { skip }, () => {
  let server, target, context, userDataDir, page, dir;
  const errors = [];

  before(async () => {
    const { fixtures } = await import("../icechunk/fixtures.mjs");
    dir = await fixtures();
    const { serveTarget } = await import("../icechunk/target-server.mjs");
    target = await serveTarget();
    server = await startServer(here, {
      mounts: { "/pkg": npmDir, "/repos": path.join(dir, "repos"), "/virtual": path.join(icDir, "virtual") },
    });
    const { chromium } = await import("../../npm/dev/browser-deps.mjs");
    userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-chromium-ic-"));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = await context.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.url}/pages/icechunk.html`);
    await page.waitForFunction(() => document.title === "ready", null, { timeout: 60_000 });
  });

  after(async () => {
    await context?.close();
    await server?.close();
    await target?.close();
    if (userDataDir) await fs.rm(userDataDir, { recursive: true, force: true });
  });

  const oracle = (...p) => JSON.parse(readFileSync(path.join(dir, "oracle", ...p), "utf8"));
  const option = (v) => (v.kind === "branch" ? { branch: v.name } : v.kind === "tag" ? { tag: v.name } : { snapshot: v.name });

  /** Reads every array of every version in the page; compares with the oracle. */
  async function check(url, o, virtualChunks) {
    const byId = new Map(o.versions.filter((v) => !v.same).map((v) => [v.snapshot, v]));
    let n = 0;
    for (const entry of o.versions) {
      const v = entry.same ? byId.get(entry.snapshot) : entry;
      const names = Object.entries(v.arrays).filter(([, a]) => a.dtype !== "float16").map(([p]) => p);
      const r = await page.evaluate(([u, ver, a, vc]) => globalThis.readRepo(u, ver, a, vc), [url, option(entry), names, virtualChunks]);
      const name = `${entry.kind} ${entry.name}`;
      assert.equal(r.isolated, false, "the page is not cross-origin isolated");
      assert.equal(r.snapshotId, entry.snapshot, name);
      assert.deepEqual(r.ancestry, v.ancestry, `${name}: ancestry`);
      for (const p of names) {
        assert.equal(r.arrays[p].sha256, v.arrays[p].sha256, `${name}: ${p} ${r.arrays[p].code ?? ""} ${r.arrays[p].message ?? ""}`);
        n++;
      }
    }
    return n;
  }

  test("reads every version of a spec-2 and a spec-1 repository over HTTP", async () => {
    assert.ok((await check(`${server.url}/repos/features-v2`, oracle("features-v2.json"))) > 100);
    // IcechunkStore.open came first: the page downloaded the Icechunk build
    // (the core build and Icechunk) instead of the core build
    const engines = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name.split("/").pop()).filter((n) => n.endsWith(".wasm")));
    assert.ok(engines.includes("zarr-icechunk.wasm"), engines.join(", "));
    assert.ok(!engines.includes("zarr-core.wasm"), engines.join(", "));
    assert.ok((await check(`${server.url}/repos/features-v1`, oracle("features-v1.json"))) > 100);
    assert.deepEqual(errors, []);
  });

  test("reads virtual chunks from another origin, only from the allowed prefix", async () => {
    const { targetPrefix } = await import("../icechunk/target-server.mjs");
    const o = oracle("virtual", "repo-v2.json");
    assert.ok((await check(`${server.url}/virtual/repo-v2`, o, { [targetPrefix]: target.url })) >= 6);
    const r = await page.evaluate(([u]) => globalThis.readRepo(u, {}, ["virt/plain"]), [`${server.url}/virtual/repo-v2`]);
    assert.equal(r.arrays["virt/plain"].code, "STORE");
    assert.match(r.arrays["virt/plain"].message, /outside the prefixes/);
    assert.deepEqual(errors, []);
  });
});
