// A link reopens the same picture: the address bar carries the node and the
// view (slice positions, zoom and pan, channels shown, their limits and
// colours), so the page a copied link opens draws exactly the pixels the
// first one showed. And zipped OME-Zarr (.ozx) opens like a .zip, from a
// URL and from a local file.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { close, composite, missingParts, outDir, required, rgbOf, screenOf, settledAddress, startViewer } from "./harness.mjs";
import { H, W, ozxOmero, ozxValue, writeOzx } from "./ozx.mjs";

const missing = await missingParts();

describe("links and zipped OME-Zarr (Debian chromium)", { skip: missing.length ? `missing: ${missing.join(", ")}` : false }, () => {
  let s;
  let extra; // served at /extra/
  before(async () => {
    extra = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-link-"));
    s = await startViewer({ viewport: { width: 1280, height: 800 }, serveArgs: ["-mount", `/extra/=${extra}`] });
  });
  after(async () => {
    await s?.close();
    if (extra) await fs.rm(extra, { recursive: true, force: true });
  });

  /** Zooms with the wheel at a canvas point, then drags, each time waiting for the frame. */
  async function zoomAndPan(page, { at, wheel, drag }) {
    const box = await page.locator(".view-canvas").boundingBox();
    await s.rendered(async () => {
      await page.mouse.move(box.x + at[0], box.y + at[1]);
      await page.mouse.wheel(0, wheel);
    }, "true", page);
    await s.rendered(async () => {
      await page.mouse.move(box.x + 300, box.y + 300);
      await page.mouse.down();
      await page.mouse.move(box.x + 300 + drag[0], box.y + 300 + drag[1], { steps: 4 });
      await page.mouse.up();
    }, "true", page);
  }

  /** Opens link in a new tab: the same pixels, slice and view as on page. */
  async function sameOnReopen(page, link, what) {
    const want = await s.canvasDigest(".view-canvas", page);
    const state = await page.evaluate(() => ({ path: window.zarrDemo.path, slice: window.zarrDemo.slice, view: window.zarrDemo.viewState, channels: window.zarrDemo.channels, display: window.zarrDemo.display }));
    const other = await s.newPage();
    try {
      await other.goto(link);
      await other.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.renders > 0, null, { timeout: 60_000 });
      // Let late tiles and the labels arrive.
      await other.waitForTimeout(300);
      await other.waitForFunction(() => window.zarrDemo.status === "rendered");
      const again = await other.evaluate(() => ({ path: window.zarrDemo.path, slice: window.zarrDemo.slice, view: window.zarrDemo.viewState, channels: window.zarrDemo.channels, display: window.zarrDemo.display }));
      assert.equal(again.path, state.path, what);
      assert.deepEqual(again.slice, state.slice, what);
      for (const k of ["cx", "cy", "z"]) assert.ok(Math.abs(again.view[k] - state.view[k]) <= 1e-6 * Math.max(1, Math.abs(state.view[k])), `${what}: view ${k} ${again.view[k]} vs ${state.view[k]}`);
      assert.deepEqual(again.channels, state.channels, what);
      if (!state.channels) assert.deepEqual([again.display.cmap, again.display.lo, again.display.hi], [state.display.cmap, state.display.lo, state.display.hi], what);
      const got = await s.canvasDigest(".view-canvas", other);
      await other.screenshot({ path: path.join(outDir, `link-${what.replace(/\W+/g, "-")}.png`) });
      assert.deepEqual(got, want, `${what}: the reopened link draws the same pixels`);
    } finally {
      await other.close();
    }
  }

  test("a climate field: month, zoom and pan, colormap and typed limits reopen as the same pixels", async () => {
    const { page } = s;
    await s.goto("?url=data/sample.zarr&path=climate/temperature", 'window.zarrDemo.path === "climate/temperature"');
    await s.rendered(() => page.fill('input[type=range][data-dim="0"]', "3"), "window.zarrDemo.slice.index[0] === 3");
    await s.rendered(() => page.selectOption("#cmap", "magma"));
    await s.rendered(async () => {
      await page.fill("#lo", "255");
      await page.fill("#hi", "305");
    }, "window.zarrDemo.display.hi === 305");
    await zoomAndPan(page, { at: [500, 300], wheel: -400, drag: [-70, 45] });
    const link = await settledAddress(page);
    assert.match(link, /[?&]view=[-\d.e]+,[-\d.e]+,[\d.e]+/);
    assert.match(link, /[?&]index=3,0,0/);
    await sameOnReopen(page, link, "climate temperature");
  });

  test("an OME-Zarr image: a hidden channel, the other's limits and colour, labels off, zoom and pan reopen as the same pixels", async () => {
    const { page } = s;
    await s.goto("?url=data/sample-ome.zarr", 'window.zarrDemo.path === "" && window.zarrDemo.labels.ready');
    await s.rendered(() => page.click('#channel-list input[data-channel="1"]'), "!window.zarrDemo.channels[1].visible");
    await s.rendered(async () => {
      await page.fill("#lo", "400");
      await page.fill("#hi", "5000");
    }, "window.zarrDemo.channels[0].hi === 5000");
    await s.rendered(() => page.fill('#channel-list li[data-index="0"] input[type=color]', "#ff8800"), "window.zarrDemo.channels[0].color[1] === 136");
    await s.rendered(() => page.selectOption("#label-select", ""), "window.zarrDemo.labels.shown === null");
    await zoomAndPan(page, { at: [640, 380], wheel: -600, drag: [120, -60] });
    const link = await settledAddress(page);
    for (const re of [/[?&]channels=0(&|$)/, /[?&]clims=400:5000,/, /[?&]colors=FF8800,/, /[?&]labels=(&|$)/, /[?&]view=/]) assert.match(link, re);
    await sameOnReopen(page, link, "OME-Zarr image");
  });

  /** Checks the zipped image's composite at points spread over it. */
  async function checkOzxPixels(what) {
    const { page } = s;
    const ch = await page.evaluate(() => window.zarrDemo.channels);
    assert.deepEqual(ch.map((c) => [c.label, c.color, c.lo, c.hi]), ozxOmero.map((c) => [c.label, rgbOf(c.color), c.window.start, c.window.end]));
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    assert.deepEqual([vs.H, vs.W, vs.stride], [H, W, 1], JSON.stringify(vs));
    const pts = [];
    for (let y = 3; y < H; y += 17) for (let x = 5; x < W; x += 23) pts.push([y, x]);
    const got = await s.pixels(pts.map(([y, x]) => screenOf(vs, y, x)).map((p) => [p.px, p.py]));
    pts.forEach(([y, x], n) => {
      const want = composite(ozxOmero.map((c, k) => ({ v: ozxValue(k, y, x), color: rgbOf(c.color), lo: c.window.start, hi: c.window.end })));
      close(got[n], want, 1, `${what} (${y}, ${x})`);
    });
  }

  test("a zipped OME-Zarr (.ozx: zarrita.js's v3 image, zipped by Python's zipfile with Zip64 records) opens from a URL and from a local file", async (t) => {
    try {
      await writeOzx(extra);
    } catch (e) {
      if (required) throw e;
      t.skip(`cannot write the .ozx: ${String(e.stderr ?? e).split("\n")[0]}`);
      return;
    }
    const { page } = s;
    const seen = [];
    const onRequest = (r) => {
      if (/\/extra\//.test(r.url())) seen.push({ path: new URL(r.url()).pathname, range: r.headers().range ?? null });
    };
    page.on("request", onRequest);
    try {
      await s.goto(`?url=extra/img.ozx`, 'window.zarrDemo.path === "" && window.zarrDemo.channels?.length === 2');
    } finally {
      page.off("request", onRequest);
    }
    assert.ok(seen.length > 0 && seen.every((r) => r.path === "/extra/img.ozx" && r.range), `only range requests of the .ozx: ${JSON.stringify(seen)}`);
    assert.equal((await page.evaluate(() => window.zarrDemo.requests)).kind, "zip");
    await checkOzxPixels("URL");
    await page.screenshot({ path: path.join(outDir, "ozx-url.png") });
    await s.rendered(() => page.setInputFiles("#zip-input", path.join(extra, "img.ozx")), '/local file img\\.ozx/.test(document.getElementById("source-label").textContent) && window.zarrDemo.channels?.length === 2');
    await checkOzxPixels("local file");
  });
});
