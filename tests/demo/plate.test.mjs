// The plate overview, on a plate zarr-python writes (tests/demo/
// plate_zarr_python.py: 3 rows × 4 columns with two wells left out, two
// acquisitions of two fields each, 3 levels of (t, c, z, y, x) uint16, omero
// colours and windows): every well side by side, labelled as the plate
// names rows and columns, empty wells empty, each well's first field from
// the lowest-resolution level that fits its cell in the omero colours
// (pixel colours computed here from the script's formula; one well chunked
// unlike the others, so read through its own metadata), the requests it
// takes, the acquisitions menu, a well's fields, a field's image, and a link
// reopening the same picture.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { close, composite, here, missingParts, outDir, python, required, rgbOf, startViewer } from "./harness.mjs";

const missing = await missingParts();

const SIZE = 256;
const LEVELS = 3;
const rows = ["A", "B", "C"];
const columns = ["1", "2", "3", "4"];
const empty = ["A3", "C2"];
const halfChunks = "B/1"; // a well whose arrays are chunked unlike the others'

/** plate_zarr_python.py's value(), with its z = 1 plane adding 1000 (the viewer shows z = 0). */
function value(channel, well, field, acquisition, y, x) {
  const base = 200 + 37 * well + 400 * field + 900 * acquisition + 1500 * channel;
  return base + 120 * ((Math.floor(y / 32) + Math.floor(x / 32)) % 2) + channel * (x % 64);
}

describe("plate overview (Debian chromium, a plate written by zarr-python)", { skip: missing.length ? `missing: ${missing.join(", ")}` : false }, () => {
  let s;
  let dir;
  let summary;
  let skipReason = null;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-plate-"));
    try {
      const out = execFileSync(python, [path.join(here, "plate_zarr_python.py"), dir, "--rows", "3", "--columns", "4", "--fields", "2", "--size", String(SIZE), "--levels", String(LEVELS), "--chunk", "64", "--empty", empty.join(","), "--acquisitions", "2", "--tczyx", "--half-chunks", halfChunks], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      summary = JSON.parse(out);
    } catch (e) {
      if (required) throw e;
      skipReason = `zarr-python is not available: ${String(e.stderr ?? e).split("\n")[0]}`;
    }
    s = await startViewer({ viewport: { width: 1280, height: 800 }, serveArgs: ["-mount", `/extra/=${dir}`] });
  });
  after(async () => {
    await s?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const omero = () => summary.omero.channels.map((c) => ({ color: rgbOf(c.color), lo: c.window.start, hi: c.window.end }));

  /**
   * Checks each well's picture: its cell holds the level that fits (the
   * lowest resolution at least as large as the cell), and its colours at the
   * centres of the 32-pixel checks are the composite of the field's values.
   */
  async function checkWells(grid, { field, acquisition, what }) {
    const cells = grid.cells.filter((c) => c.state === "ready");
    const boxPx = Math.ceil(Math.max(...cells.map((c) => Math.max(c.w, c.h))));
    // Level k is SIZE / 2^k wide: the coarsest at least as wide as the cell.
    let k = 0;
    for (let j = 0; j < LEVELS; j++) if (SIZE / 2 ** j >= boxPx) k = j;
    assert.equal(grid.plate?.level ?? String(k), String(k), `${what}: level ${k} fits cells of ${boxPx} px`);
    const step = 2 ** k;
    for (const c of cells) assert.deepEqual([c.ny, c.nx], [SIZE / step, SIZE / step], `${what}: ${c.label} is level ${k}`);
    const pts = [];
    const want = [];
    for (const c of cells) {
      const well = summary.wells.indexOf(c.key);
      for (const [cy, cx] of [[16, 16], [48, 80], [144, 208], [240, 112], [112, 176]]) {
        // The centre of a check at level 0, then where its level pixel lies on screen.
        const ly = Math.floor(cy / step);
        const lx = Math.floor(cx / step);
        pts.push([c.x + ((lx + 0.5) / c.nx) * c.w, c.y + ((ly + 0.5) / c.ny) * c.h]);
        const ch = omero().map((o, n) => ({ ...o, v: value(n, well, field, acquisition, ly * step, lx * step) }));
        want.push({ rgb: composite(ch), label: `${what}: well ${c.label} at (${ly * step}, ${lx * step})` });
      }
    }
    const got = await s.pixels(pts, ".grid-canvas");
    // (a channel's ramp varies within a check: the picture is drawn
    // smaller than the level, smoothed)
    got.forEach((g, n) => close(g, want[n].rgb, 4, want[n].label));
  }

  test("every well side by side: labels, empty wells, the level that fits, omero colours, few requests", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { page } = s;
    const seen = [];
    const onRequest = (r) => {
      const p = new URL(r.url()).pathname;
      if (p.startsWith("/extra/")) seen.push(p);
    };
    page.on("request", onRequest);
    try {
      await s.goto("?url=extra/plate.zarr", "window.zarrDemo.grid?.complete");
    } finally {
      page.off("request", onRequest);
    }
    await page.screenshot({ path: path.join(outDir, "plate-overview.png") });
    const grid = await page.evaluate(() => window.zarrDemo.grid);
    assert.deepEqual(grid.rows, rows);
    assert.deepEqual(grid.columns, columns);
    const labels = grid.cells.map((c) => c.label).sort();
    const all = rows.flatMap((r) => columns.map((c) => r + c)).filter((w) => !empty.includes(w)).sort();
    assert.deepEqual(labels, all, "a cell per listed well, none for the empty ones");
    assert.ok(grid.cells.every((c) => c.state === "ready"));
    // Cells sit in their row and column.
    for (const c of grid.cells) assert.equal(`${rows[c.row]}${columns[c.col]}`, c.label);
    assert.equal(grid.plate.acquisition, 0);
    assert.equal(grid.plate.field, "0");
    await checkWells(grid, { field: 0, acquisition: 0, what: "acquisition 0" });
    // Chunks of the chosen level only, each once; about four requests a well.
    const level = grid.plate.level;
    const chunkRe = /\/plate\.zarr\/([A-C]\/\d)\/(\d)\/(\d)\/\d+\/\d+\/\d+\/\d+\/\d+$/;
    const chunks = seen.map((p) => chunkRe.exec(p)).filter(Boolean);
    assert.ok(chunks.length > 0 && chunks.every((m) => m[3] === level && m[2] === "0"), `chunks of field 0, level ${level} only: ${chunks.map((m) => m[0]).join(" ")}`);
    assert.equal(new Set(chunks.map((m) => m[0])).size, chunks.length, "no chunk twice");
    const wells = grid.cells.length;
    const perWell = (side) => 2 * Math.ceil(SIZE / 2 ** Number(level) / side) ** 2; // 2 channels, side² chunks
    assert.equal(chunks.length, (wells - 1) * perWell(64) + perWell(32), "every chunk of each well's level plane");
    const metadata = seen.length - chunks.length;
    t.diagnostic(`${seen.length} requests for ${wells} wells: ${chunks.length} chunks, ${metadata} metadata`);
    // The template well's metadata (the plate, the well, the field, its
    // levels), then two documents a well: its attributes and its level's.
    assert.ok(metadata <= 2 * wells + 30, `${metadata} metadata requests for ${wells} wells`);
    // Every well but the first and the one chunked otherwise has the
    // first's level metadata: its chunks are decoded with the first's
    // array, no array opened for it.
    assert.deepEqual(grid.plate.reads, { decoded: wells - 2, opened: 2 });
    // The status line and the hover name the well.
    const box = await page.locator(".grid-canvas").boundingBox();
    const b2 = grid.cells.find((c) => c.label === "B2");
    await page.mouse.move(box.x + b2.x + 2.5 * (b2.w / b2.nx), box.y + b2.y + 1.5 * (b2.h / b2.ny));
    const hover = await page.textContent("#hover");
    const step = SIZE / b2.nx;
    const well = summary.wells.indexOf("B/2");
    assert.ok(hover.includes("well B2") && hover.includes(`DAPI ${value(0, well, 0, 0, step, 2 * step)}`) && hover.includes(`GFP ${value(1, well, 0, 0, step, 2 * step)}`), hover);
  });

  test("the acquisitions menu shows the other acquisition's first fields; the link reopens it", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { page } = s;
    assert.equal(await page.isVisible("#acquisition"), true);
    assert.deepEqual(await page.$$eval("#acquisition option", (os) => os.map((o) => o.textContent)), ["run 1", "run 2"]);
    await s.rendered(() => page.selectOption("#acquisition", "1"), "window.zarrDemo.grid?.complete && window.zarrDemo.grid.plate.acquisition === 1");
    const grid = await page.evaluate(() => window.zarrDemo.grid);
    assert.equal(grid.plate.field, "2", "acquisition 1's first field");
    await checkWells(grid, { field: 0, acquisition: 1, what: "acquisition 1" });
    await page.waitForFunction(() => /[?&]acq=1(&|$)/.test(location.search));
    const want = await s.canvasDigest(".grid-canvas");
    const link = await page.evaluate(() => location.href);
    const other = await s.newPage();
    try {
      await other.goto(link);
      await other.waitForFunction(() => window.zarrDemo?.grid?.complete && window.zarrDemo.status === "rendered", null, { timeout: 60_000 });
      assert.deepEqual(await s.canvasDigest(".grid-canvas", other), want, "the link draws the same plate");
    } finally {
      await other.close();
    }
  });

  test("a click on a well shows its fields; a click on a field opens its image at full resolution", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { page } = s;
    const grid = await page.evaluate(() => window.zarrDemo.grid);
    const c = grid.cells.find((x) => x.label === "C4");
    const box = await page.locator(".grid-canvas").boundingBox();
    await s.rendered(() => page.mouse.click(box.x + c.x + c.w / 2, box.y + c.y + c.h / 2), 'window.zarrDemo.path === "C/4" && window.zarrDemo.grid?.complete');
    const wellGrid = await page.evaluate(() => window.zarrDemo.grid);
    assert.deepEqual(wellGrid.cells.map((x) => x.label), ["field 2", "field 3"], "acquisition 1's fields");
    const well = summary.wells.indexOf("C/4");
    // Each field from the level that fits its (larger) cell.
    const pts = [];
    const want = [];
    for (const [f, cell] of wellGrid.cells.entries()) {
      const step = SIZE / cell.nx;
      for (const [y, x] of [[16, 16], [80, 48], [200, 240]]) {
        const ly = Math.floor(y / step);
        const lx = Math.floor(x / step);
        pts.push([cell.x + ((lx + 0.5) / cell.nx) * cell.w, cell.y + ((ly + 0.5) / cell.ny) * cell.h]);
        want.push(composite(omero().map((o, n) => ({ ...o, v: value(n, well, f, 1, ly * step, lx * step) }))));
      }
    }
    const got = await s.pixels(pts, ".grid-canvas");
    got.forEach((g, n) => close(g, want[n], 4, `well C4 field ${n >= 3 ? 3 : 2} point ${n}`));
    await page.screenshot({ path: path.join(outDir, "plate-well.png") });
    const f3 = wellGrid.cells[1];
    await s.rendered(() => page.mouse.click(box.x + f3.x + f3.w / 2, box.y + f3.y + f3.h / 2), 'window.zarrDemo.path === "C/4/3"');
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    assert.deepEqual([vs.H, vs.W], [SIZE, SIZE]);
    assert.deepEqual(await page.evaluate(() => window.zarrDemo.slice.index), [0, 0, 0, 0, 0]);
  });
});
