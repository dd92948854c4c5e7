// The read table measured in Chromium: Debian's chromium (never a
// downloaded browser) driven by playwright-core loads tests/bench/reads.html
// from a server on 127.0.0.1, which runs tests/bench/reads.mjs in the page
// (zarr-wasm and zarrita.js interleaved, in one run) and hands back the
// medians; the table is printed here.
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { fileURLToPath } from "node:url";
import { startServer, exists } from "../node/helpers.mjs";
import { N, C, readTable, readSummary, pairTargetMs, maxPairs } from "./reads.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(here, "..", "..", "npm");
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The lines of the Chromium read section. */
export async function chromiumReads(runs, only = null) {
  if (!(await exists(chromiumPath))) return [`Chromium reads: ${chromiumPath} is not installed (not measured)`];
  const { chromium } = await import("../../npm/dev/browser-deps.mjs");
  const server = await startServer(here, { mounts: { "/npm": npmDir, "/nm": path.join(npmDir, "node_modules"), "/bench": here } });
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-bench-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.url}/bench/reads.html`);
    await page.waitForFunction(() => document.title === "ready", null, { timeout: 60_000 });
    const t0 = performance.now();
    const { rows, stored, userAgent } = await page.evaluate(([r, o]) => globalThis.runReads(r, o), [runs, only]);
    if (errors.length) throw new Error(errors.join("\n"));
    const version = /Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? userAgent;
    return [
      `Chromium ${version} (headless), the same reads measured in the page (${N}×${N} in ${C}×${C} chunks, in-memory store, median of ${runs} interleaved rounds after a warm-up, reads under ${pairTargetMs} ms in up to ${maxPairs} pairs a round; ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      "",
      ...readTable(rows, stored),
      "",
      `Chromium reads: ${readSummary(rows)}`,
    ];
  } finally {
    await context?.close();
    await server.close();
    await fs.rm(userDataDir, { recursive: true, force: true });
  }
}
