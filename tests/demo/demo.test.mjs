// The demo viewer in Debian's chromium (never a downloaded browser), driven
// by playwright-core from npm/'s devDependencies. The page is served by
// web/demo/serve with the sample data web/demo/gen writes (make demo-data).
//
// Colours are checked against values this test computes itself
// (sample.mjs mirrors the generator's formulas), the contrast limits, and
// colormap anchors written out below, never against an earlier screenshot.
// Screenshots are kept in tests/demo/out/ for people to look at.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { temperature, temperatureSlice, cells, cellCentre, cellOf, nuclei, cellLabel, labelRGBA, plateValue, percentile, nLat, nLon, cellsSize, movie, movieSize } from "./sample.mjs";
import { startServer, loadCases } from "../node/helpers.mjs";
import { close, composite, here, viridisAt, missingParts, outDir, python, repoRoot, required, screenOf, startViewer } from "./harness.mjs";

const refCases = await loadCases(path.join(repoRoot, "tests", "refs", "cases.json"));
const missing = await missingParts();

function grayAt(t) {
  const g = Math.round(Math.min(1, Math.max(0, t)) * 255);
  return [g, g, g];
}

describe("demo viewer (Debian chromium via playwright-core)", { skip: missing.length ? `missing: ${missing.join(", ")}` : false }, () => {
  let s;
  let page;
  let server;
  let errors;

  before(async () => {
    s = await startViewer();
    ({ page, server, errors } = s);
  });

  after(async () => {
    await s?.close();
  });

  const rendered = (action, extra) => s.rendered(action, extra);
  const pixels = (points) => s.pixels(points);

  const t0 = temperatureSlice(0);
  const t0sorted = Float64Array.from(t0).sort();

  test("first render: the default sample's temperature in viridis, contrast from the 1st/99th percentiles", async () => {
    await page.goto(server.url);
    await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "climate/temperature", null, { timeout: 60_000 });
    await page.screenshot({ path: path.join(outDir, "1-first-render.png") });
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.equal(d.cmap, "viridis");
    assert.equal(d.lo, percentile(t0sorted, 0.01));
    assert.equal(d.hi, percentile(t0sorted, 0.99));
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    assert.equal(vs.stride, 1);
    const pts = [];
    for (const i of [3, 40, 90, 120, 176]) for (const j of [2, 95, 180, 250, 357]) pts.push([i, j]);
    const scr = pts.map(([i, j]) => screenOf(vs, i, j));
    assert.ok(scr.every((s) => s.inside), "the whole array is in view");
    const got = await pixels(scr.map((s) => [s.px, s.py]));
    pts.forEach(([i, j], k) => {
      const v = temperature(0, i, j);
      close(got[k], viridisAt((v - d.lo) / (d.hi - d.lo)), 3, `temperature[0, ${i}, ${j}] = ${v}`);
    });
    // The metadata panel shows the array's facts.
    const details = await page.textContent("#details");
    for (const s of ["12 × 180 × 360", "float32", "1 × 90 × 90", "blosc", "NaN", "Near-surface air temperature"]) {
      assert.ok(details.includes(s), `details mention ${s}`);
    }
  });

  test("histogram and statistics describe the data in view", async () => {
    const st = await page.evaluate(() => window.zarrDemo.stats);
    assert.equal(st.count, nLat * nLon);
    assert.equal(st.min, t0sorted[0]);
    assert.equal(st.max, t0sorted[t0sorted.length - 1]);
    const bins = new Array(st.bins.length).fill(0);
    const w = (st.max - st.min) / bins.length;
    for (const v of t0) bins[Math.min(bins.length - 1, Math.floor((v - st.min) / w))]++;
    assert.deepEqual(st.bins, bins);
  });

  test("gray colormap with typed contrast limits", async () => {
    await rendered(() => page.selectOption("#cmap", "gray"));
    await rendered(async () => {
      await page.fill("#lo", "250");
      await page.fill("#hi", "300");
    }, "window.zarrDemo.display.hi === 300");
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.cmap, d.lo, d.hi], ["gray", 250, 300]);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const pts = [];
    for (const i of [0, 30, 60, 89, 110, 150, 179]) for (const j of [0, 77, 200, 359]) pts.push([i, j]);
    const got = await pixels(pts.map(([i, j]) => screenOf(vs, i, j)).map((s) => [s.px, s.py]));
    let black = 0;
    let white = 0;
    pts.forEach(([i, j], k) => {
      const v = temperature(0, i, j);
      const want = grayAt((v - 250) / 50);
      if (want[0] === 0) black++;
      if (want[0] === 255) white++;
      close(got[k], want, 1, `temperature[0, ${i}, ${j}] = ${v}`);
    });
    assert.ok(black > 0 && white > 0, "the points include clipped values at both ends");
  });

  test("moving the time slider changes the picture to the new month", async () => {
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const pts = [];
    for (const i of [20, 45, 135, 160]) for (const j of [10, 130, 300]) pts.push([i, j]);
    const scr = pts.map(([i, j]) => screenOf(vs, i, j)).map((s) => [s.px, s.py]);
    const beforePx = await pixels(scr);
    await rendered(() => page.fill('input[type=range][data-dim="0"]', "6"), "window.zarrDemo.slice.index[0] === 6");
    assert.equal(await page.textContent('[data-val="0"]').then((s) => s.trim().startsWith("6 / 11")), true);
    const after = await pixels(scr);
    let changed = 0;
    pts.forEach(([i, j], k) => {
      const v = temperature(6, i, j);
      close(after[k], grayAt((v - 250) / 50), 1, `temperature[6, ${i}, ${j}] = ${v}`);
      if (after[k][0] !== beforePx[k][0]) changed++;
    });
    assert.ok(changed >= pts.length / 2, `${changed} of ${pts.length} points changed`);
    await page.screenshot({ path: path.join(outDir, "2-slider-gray.png") });
  });

  test("the value under the cursor", async () => {
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const s = screenOf(vs, 44, 120);
    const box = await page.locator(".view-canvas").boundingBox();
    await page.mouse.move(box.x + s.px, box.y + s.py);
    const text = await page.textContent("#hover");
    const v = temperature(6, 44, 120);
    assert.ok(text.includes("lat 44") && text.includes("lon 120") && text.includes("time 6"), text);
    assert.ok(text.includes(`= ${Number(v.toPrecision(6))} K`), `${text} shows ${v}`);
    assert.ok(text.includes("(45.5)") && text.includes("(-59.5)"), `coordinates from lat/lon arrays: ${text}`);
  });

  test("Auto resets the contrast limits to the percentiles of the data in view", async () => {
    await rendered(() => page.click("#auto"), "window.zarrDemo.display.hi !== 300");
    const d = await page.evaluate(() => window.zarrDemo.display);
    const s6 = Float64Array.from(temperatureSlice(6)).sort();
    assert.deepEqual([d.lo, d.hi], [percentile(s6, 0.01), percentile(s6, 0.99)]);
    assert.equal(Number(await page.inputValue("#hi")), Number(d.hi.toPrecision(7)));
  });

  test("clicking the sharded uint16 image in the tree: strided when zoomed out, exact at 1:1", async () => {
    await rendered(() => page.click('#tree button.row[data-path="microscopy/cells"]'), 'window.zarrDemo.path === "microscopy/cells"');
    await page.screenshot({ path: path.join(outDir, "3-cells-fit.png") });
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    assert.ok(vs.z < 0.5 && vs.stride === 2, `zoomed out to ${vs.z}: stride ${vs.stride}`);
    // Auto contrast from what the strided view read: every 2nd row and column.
    const sample = new Float64Array((cellsSize / 2) ** 2);
    let k = 0;
    for (let y = 0; y < cellsSize; y += 2) for (let x = 0; x < cellsSize; x += 2) sample[k++] = cells(y, x);
    sample.sort();
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.equal(d.cmap, "gray");
    assert.deepEqual([d.lo, d.hi], [percentile(sample, 0.01), percentile(sample, 0.99)]);
    const details = await page.textContent("#details");
    for (const s of ["2048 × 2048", "uint16", "shards1024 × 1024", "256 × 256 (inside shards)", "sharding_indexed", "zstd"]) {
      assert.ok(details.replace(/\s+/g, " ").includes(s) || details.includes(s), `details mention ${s}`);
    }

    await rendered(() => page.click("#zoom-1"), "window.zarrDemo.viewState.z === 1");
    const v1 = await page.evaluate(() => window.zarrDemo.viewState);
    assert.equal(v1.stride, 1);
    // Sample the screen on a grid plus the centres of cells in view.
    const pts = [];
    for (let sy = 40; sy < v1.ch - 40; sy += 97) for (let sx = 40; sx < v1.cw - 40; sx += 101) pts.push([sy + 0.5, sx + 0.5]);
    for (let ci = 0; ci < 16; ci++) {
      for (let cj = 0; cj < 16; cj++) {
        const c = cellCentre(ci, cj);
        const s = screenOf(v1, Math.round(c.y), Math.round(c.x));
        if (s.inside) pts.push([s.py, s.px]);
      }
    }
    const got = await pixels(pts.map(([py, px]) => [px, py]));
    let bright = 0;
    pts.forEach(([py, px], n) => {
      const y = Math.floor(v1.cy + (py - v1.ch / 2) / v1.z);
      const x = Math.floor(v1.cx + (px - v1.cw / 2) / v1.z);
      const v = cells(y, x);
      const want = grayAt((v - d.lo) / (d.hi - d.lo));
      if (want[0] > 128) bright++;
      close(got[n], want, 1, `cells[${y}, ${x}] = ${v}`);
    });
    assert.ok(bright >= 3, `${bright} bright (cell) points checked`);
    await page.screenshot({ path: path.join(outDir, "4-cells-1to1.png") });
  });

  test("a v3 group with OME-Zarr 0.5 attributes (\"ome\": {multiscales}) shows its image", async () => {
    await rendered(() => page.click('#tree button.row[data-path="microscopy"]'), 'window.zarrDemo.path === "microscopy"');
    const title = (await page.textContent("#stage-title")).replace(/\s+/g, " ");
    assert.ok(title.includes("2048 × 2048") && title.includes("multiscale image, 1 level") && title.includes("cells"), title);
    const details = (await page.textContent("#details")).replace(/\s+/g, " ");
    assert.ok(details.includes("y (micrometer), x (micrometer)"), details);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    assert.deepEqual([vs.H, vs.W, vs.source.level], [cellsSize, cellsSize, 0]);
    const box = await page.locator(".view-canvas").boundingBox();
    const p = screenOf(vs, 1000, 1500);
    await page.mouse.move(box.x + p.px, box.y + p.py);
    const hover = await page.textContent("#hover");
    const [iy, ix] = [hover.match(/y (\d+)/)?.[1], hover.match(/x (\d+)/)?.[1]].map(Number);
    assert.ok(hover.includes(`= ${cells(iy, ix)}`), `${hover}: want cells(${iy}, ${ix})`);
  });

  /** Requests the page sends while action runs, whose path matches re: [{path, range}]. */
  async function requestsDuring(re, action) {
    const seen = [];
    const onRequest = (r) => {
      const p = new URL(r.url()).pathname;
      if (re.test(p)) seen.push({ path: p, range: r.headers().range ?? null });
    };
    page.on("request", onRequest);
    try {
      await action();
    } finally {
      page.off("request", onRequest);
    }
    return seen;
  }

  test("the zipped v2 example opens through range requests, counted by the package's store", async () => {
    const zipReqs = await requestsDuring(/sample-v2\.zarr\.zip$/, () =>
      rendered(() => page.selectOption("#examples", "2"), 'window.zarrDemo.path === "temperature" && /\\.zip$/.test(document.getElementById("url").value)'),
    );
    assert.ok(zipReqs.length > 0 && zipReqs.every((r) => r.range), "only range requests for the zip");
    const r = await page.evaluate(() => window.zarrDemo.requests);
    assert.equal(r.kind, "zip");
    assert.equal(r.requests, zipReqs.length, "the ZipStore's count is the page's requests for the zip file");
    assert.match(await page.textContent("#status"), new RegExp(`${zipReqs.length} requests`));
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.lo, d.hi], [percentile(t0sorted, 0.01), percentile(t0sorted, 0.99)]);
    const details = await page.textContent("#details");
    assert.ok(details.includes("Zarr v2") && details.includes("blosc"), details);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const pts = [[10, 10], [90, 200], [170, 340]];
    const got = await pixels(pts.map(([i, j]) => screenOf(vs, i, j)).map((s) => [s.px, s.py]));
    pts.forEach(([i, j], k) => {
      const v = temperature(0, i, j);
      close(got[k], grayAt((v - d.lo) / (d.hi - d.lo)), 1, `zip temperature[0, ${i}, ${j}]`);
    });
  });

  test("the v1 example (a lone array, zlib) opens", async () => {
    await rendered(() => page.selectOption("#examples", "3"), '/sample-v1\\.zarr$/.test(document.getElementById("url").value) && window.zarrDemo.path === ""');
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.lo, d.hi], [percentile(t0sorted, 0.01), percentile(t0sorted, 0.99)]);
    assert.ok((await page.textContent("#details")).includes("Zarr v1"));
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const pts = [[5, 5], [100, 100], [179, 359]];
    const got = await pixels(pts.map(([i, j]) => screenOf(vs, i, j)).map((s) => [s.px, s.py]));
    pts.forEach(([i, j], k) => {
      const v = temperature(0, i, j);
      close(got[k], grayAt((v - d.lo) / (d.hi - d.lo)), 1, `v1 temperature[${i}, ${j}]`);
    });
  });

  test("the kerchunk JSON example reads the v2 data out of one binary file, neighbouring chunks merged", async (t) => {
    const refReqs = await requestsDuring(/\/refs\/sample\.(json|bin)$/, () =>
      rendered(() => page.selectOption("#examples", "4"), 'window.zarrDemo.path === "temperature" && /refs\\/sample\\.json$/.test(document.getElementById("url").value)'),
    );
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.lo, d.hi], [percentile(t0sorted, 0.01), percentile(t0sorted, 0.99)]);
    const details = await page.textContent("#details");
    assert.ok(details.includes("Zarr v2") && details.includes("blosc") && details.includes("12 × 180 × 360"), details);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const pts = [[10, 10], [90, 200], [170, 340], [45, 300]];
    const got = await pixels(pts.map(([i, j]) => screenOf(vs, i, j)).map((s) => [s.px, s.py]));
    pts.forEach(([i, j], k) => {
      const v = temperature(0, i, j);
      close(got[k], grayAt((v - d.lo) / (d.hi - d.lo)), 1, `refs temperature[0, ${i}, ${j}]`);
    });
    const r = await page.evaluate(() => window.zarrDemo.requests);
    const bin = refReqs.filter((q) => q.path.endsWith(".bin"));
    // Month 0 is 2 × 4 chunks of 90 × 90 (each over 64 bytes, so in the binary file).
    t.diagnostic(`8 chunks in view read with ${bin.length} ranged requests of sample.bin; ${r.requests} HTTP requests in all`);
    assert.equal(r.kind, "references");
    assert.ok(bin.length > 0 && bin.length < 8 && bin.every((q) => q.range), `${bin.length} requests for 8 chunks`);
    assert.equal(r.requests, refReqs.length, "the ReferenceStore's count is the page's requests");
    assert.ok((await page.textContent("#status")).includes(`${r.requests} HTTP requests`));
    await page.screenshot({ path: path.join(outDir, "6-references-json.png") });
  });

  test("Parquet reference directories open by URL: the .parq example, and a cross-origin one told by its .zmetadata", async (t) => {
    const big = refCases.find((c) => c.store === "pq/refs.json" && c.path === "a/big" && c.selection === "");
    const want = new Int32Array(new Uint8Array(Buffer.from(big.bytes, "base64")).buffer);
    const check = async (label) => {
      const d = await page.evaluate(() => window.zarrDemo.display);
      const details = await page.textContent("#details");
      assert.ok(details.includes("50 × 37") && details.includes("<i4"), details);
      const vs = await page.evaluate(() => window.zarrDemo.viewState);
      const pts = [[0, 0], [7, 20], [25, 3], [49, 36], [33, 18]];
      const got = await pixels(pts.map(([i, j]) => screenOf(vs, i, j)).map((s) => [s.px, s.py]));
      pts.forEach(([i, j], k) => {
        const v = want[i * 37 + j];
        const cmap = d.cmap === "gray" ? grayAt : viridisAt;
        close(got[k], cmap((v - d.lo) / (d.hi - d.lo)), d.cmap === "gray" ? 1 : 3, `${label} a/big[${i}, ${j}] = ${v} (${d.cmap})`);
      });
    };
    await rendered(() => page.selectOption("#examples", "5"), 'window.zarrDemo.path === "a/big" && /refs\\.parq$/.test(document.getElementById("url").value)');
    await check("refs.parq");
    await page.screenshot({ path: path.join(outDir, "7-references-parquet.png") });
    const other = await startServer(path.join(repoRoot, "tests", "refs", "data"));
    try {
      const url = `${other.url}/pq/pqgo_v1_zstd`;
      await page.goto(`${server.url}?url=${encodeURIComponent(url)}&path=a/big`);
      await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "a/big", null, { timeout: 60_000 });
      await check("cross-origin pqgo_v1_zstd");
      const tree = await page.textContent("#tree");
      for (const name of ["deep", "empty", "scalar"]) assert.ok(tree.includes(name), `the tree lists ${name}: ${tree}`);
      const parq = other.stats.paths.filter((p) => p.endsWith(".parq"));
      t.diagnostic(`cross-origin Parquet set: ${other.stats.requests} requests (${parq.length} record files, ${other.stats.rangeRequests} ranged)`);
      assert.ok(other.stats.paths.includes("/pq/pqgo_v1_zstd/.zmetadata"));
      assert.equal(new Set(parq).size, parq.length, "each record file fetched once");
      assert.ok(other.stats.rangeRequests > 0);
    } finally {
      await other.close();
    }
  });

  test("a local folder and a local zip open through the file pickers", async () => {
    await rendered(
      () => page.setInputFiles("#folder-input", path.join(repoRoot, "web", "demo", "data", "sample-v2.zarr")),
      'window.zarrDemo.path === "temperature" && /local folder/.test(document.getElementById("source-label").textContent)',
    );
    const names = await page.$$eval("#tree .row .name", (els) => els.map((e) => e.textContent));
    assert.deepEqual(names, ["/", "january_bz2", "land", "lat", "lon", "temperature", "time"]);
    await rendered(
      () => page.setInputFiles("#zip-input", path.join(repoRoot, "web", "demo", "data", "sample-v2.zarr.zip")),
      'window.zarrDemo.path === "temperature" && /local file/.test(document.getElementById("source-label").textContent)',
    );
  });

  test("the address restores a view: colormap, contrast limits, month, row 0 at the bottom", async () => {
    await page.goto(`${server.url}?url=data/sample.zarr&path=climate/temperature&index=9,0,0&cmap=gray&clim=240,310&flip=1`);
    await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "climate/temperature", null, { timeout: 60_000 });
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.cmap, d.lo, d.hi], ["gray", 240, 310]);
    assert.equal(await page.isChecked("#flip"), true);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const pts = [[0, 10], [1, 200], [90, 90], [178, 300], [179, 5]];
    // Flipped: row i's centre is at display row H - i - 0.5.
    const scr = pts.map(([i, j]) => [(j + 0.5 - vs.cx) * vs.z + vs.cw / 2, (vs.H - i - 0.5 - vs.cy) * vs.z + vs.ch / 2]);
    const got = await pixels(scr);
    pts.forEach(([i, j], k) => {
      const v = temperature(9, i, j);
      close(got[k], grayAt((v - 240) / 70), 1, `flipped temperature[9, ${i}, ${j}] = ${v}`);
    });
    assert.ok(scr[0][1] > scr[4][1], "row 0 is below row 179");
  });

  test("a typo in &path= gets the engine's suggestion, offered as a button", async () => {
    await page.goto(`${server.url}?url=data/sample.zarr&path=climate/temprature`);
    await page.waitForSelector("#banner:not([hidden])");
    const detail = await page.textContent("#banner-detail");
    assert.ok(detail.includes("climate/temprature") && detail.includes("did you mean “climate/temperature”"), detail);
    assert.equal((await page.textContent("#banner-action")).trim(), "Open climate/temperature");
    await rendered(() => page.click("#banner-action"), 'window.zarrDemo.path === "climate/temperature"');
    assert.equal(await page.isHidden("#banner"), true);
    // The path box under the tree asks the engine too.
    await page.fill("#path-input", "climate/lnd");
    await page.click("#path-form button[type=submit]");
    await page.waitForSelector("#banner:not([hidden])");
    assert.ok((await page.textContent("#banner-detail")).includes("did you mean “climate/land”"));
  });

  test("a URL pipeline in the address opens its node (zip: then zarr2:)", async () => {
    const url = "data/sample-v2.zarr.zip|zip:|zarr2:temperature";
    await page.goto(`${server.url}?url=${encodeURIComponent(url)}`);
    await page.waitForFunction('window.zarrDemo.path === "temperature"');
    assert.ok((await page.inputValue("#url")).endsWith("/sample-v2.zarr.zip|zip:|zarr2:temperature"), "the pipeline stays in the address box, its root made absolute");
    assert.equal(await page.isHidden("#banner"), true);
  });

  test("a 1-D array is plotted and a bool mask drawn", async () => {
    await page.goto(`${server.url}?url=data/sample.zarr&path=climate/lat`);
    await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "climate/lat", null, { timeout: 60_000 });
    assert.equal(await page.isVisible(".plot-canvas"), true);
    await rendered(() => page.click('#tree button.row[data-path="climate/land"]'), 'window.zarrDemo.path === "climate/land"');
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.lo, d.hi], [0, 1]);
  });

  test("errors are shown in the page in plain words", async () => {
    await page.fill("#url", `${server.url}data/no-such.zarr`);
    await page.click("#open-form button[type=submit]");
    await page.waitForSelector("#banner:not([hidden])");
    assert.equal((await page.textContent("#banner-title")).trim(), "No Zarr data found at this address");
    assert.ok((await page.textContent("#banner-hint")).includes("zarr.json"));
    await page.screenshot({ path: path.join(outDir, "5-error.png") });
  });

  /** Text of the hover line with the cursor over data pixel (y, x) of viewState vs. */
  async function hoverAt(vs, y, x) {
    const box = await page.locator(".view-canvas").boundingBox();
    const p = screenOf(vs, y, x);
    await page.mouse.move(box.x + p.px, box.y + p.py);
    return page.textContent("#hover");
  }

  /** A colour laid over another at opacity a. */
  function over(top, under, a) {
    return [0, 1, 2].map((k) => top[k] * a + under[k] * (1 - a));
  }

  test("an OME-Zarr image with two channels and labels: the composite in the omero colours, limits from omero's window and from percentiles, labels over it, a scale bar from the transforms, and only the chunks of the level in view", async (t) => {
    const chunks = []; // {labels, level, channel} of the chunks the page fetched
    const onRequest = (r) => {
      const m = /\/sample-ome\.zarr\/(labels\/cells\/)?(\d)\/(?:(\d)\.)?\d+\.\d+$/.exec(new URL(r.url()).pathname);
      if (m) chunks.push({ labels: !!m[1], level: Number(m[2]), channel: m[3] === undefined ? null : Number(m[3]) });
    };
    page.on("request", onRequest);
    const zattrs = JSON.parse(await fs.readFile(path.join(repoRoot, "web", "demo", "data", "sample-ome.zarr", ".zattrs"), "utf8"));
    const scaleX = zattrs.multiscales[0].datasets[0].coordinateTransformations[0].scale[2];
    const window0 = zattrs.omero.channels[0].window;
    const colors = zattrs.omero.channels.map((c) => [0, 2, 4].map((k) => parseInt(c.color.slice(k, k + 2), 16)));
    try {
      await rendered(
        () => page.selectOption("#examples", "6"),
        '/sample-ome\\.zarr$/.test(document.getElementById("url").value) && window.zarrDemo.path === "" && window.zarrDemo.labels.ready',
      );
      const vs = await page.evaluate(() => window.zarrDemo.viewState);
      const fitChunks = [...chunks];
      t.diagnostic(`fit: zoom ${vs.z.toFixed(3)}, stride ${vs.stride}, pyramid level ${vs.source.level}; ${fitChunks.length} chunks`);
      assert.ok(vs.stride >= 2 && vs.source.level === Math.log2(vs.stride) && vs.source.stride === 1, JSON.stringify(vs));
      assert.ok(fitChunks.length > 0 && fitChunks.every((c) => c.level === vs.source.level), "zoomed out, only the coarser level's chunks");
      const per = (f) => fitChunks.filter(f).length;
      assert.equal(per((c) => c.channel === 0), per((c) => c.channel === 1), "each channel's chunks once");
      assert.equal(per((c) => c.labels), per((c) => c.channel === 0), "the label image's chunks, at the same level");
      assert.equal(per((c) => c.channel === 0), (2048 / vs.stride / 256) ** 2, "every chunk of the level once");

      // Limits: channel 0 from omero's window, channel 1 (no window) from the
      // 1st and 99th percentiles of the level in view (every 2nd pixel).
      const ch = await page.evaluate(() => window.zarrDemo.channels);
      assert.deepEqual(ch.map((c) => [c.label, c.color, c.visible]), [["cells", colors[0], true], ["nuclei", colors[1], true]]);
      assert.deepEqual([ch[0].lo, ch[0].hi], [window0.start, window0.end]);
      const nucl = new Float64Array((2048 / vs.stride) ** 2);
      let k = 0;
      for (let y = 0; y < 2048; y += vs.stride) for (let x = 0; x < 2048; x += vs.stride) nucl[k++] = nuclei(y, x);
      nucl.sort();
      assert.deepEqual([ch[1].lo, ch[1].hi], [percentile(nucl, 0.01), percentile(nucl, 0.99)], "channel 1's limits are its own percentiles");

      // The scale bar: a 1, 2 or 5 × 10^k µm length, as long on screen as the transforms say.
      const sb = await page.evaluate(() => window.zarrDemo.scaleBar);
      const value = Number(/^([\d.]+) µm$/.exec(sb.text)?.[1]);
      assert.ok([1, 2, 5].includes(value / 10 ** Math.floor(Math.log10(value))), sb.text);
      const want = (value / scaleX) * vs.z;
      assert.ok(Math.abs(sb.exact - want) < 1e-9 && Math.abs(sb.px - want) <= 1, `scale bar ${sb.px} px for ${sb.text}, want ${want}`);
      assert.deepEqual((await pixels([[(sb.x0 + sb.x1) / 2, sb.y + 2]]))[0], [255, 255, 255], "the bar is drawn");
      await page.screenshot({ path: path.join(outDir, "9-ome-composite-fit.png") });

      // Over plain HTTP the store cannot list, but the image names its levels.
      const rows = await page.$$eval("#tree button.row", (bs) => bs.map((b) => b.dataset.path));
      assert.ok(["0", "1", "2"].every((p) => rows.includes(p)), `tree rows: ${rows}`);
      const details = (await page.textContent("#details")).replace(/\s+/g, " ");
      for (const w of ["c, y (micrometer), x (micrometer)", "2 × 2048 × 2048 · 2 × 1024 × 1024 · 2 × 512 × 512"]) assert.ok(details.includes(w), `details mention ${w}`);
      assert.match(await page.textContent("#status"), /pyramid level 1/);

      // At 1:1: level 0 only, exact colours.
      chunks.length = 0;
      await rendered(() => page.click("#zoom-1"), "window.zarrDemo.viewState.z === 1");
      const v1 = await page.evaluate(() => window.zarrDemo.viewState);
      assert.equal(v1.source.level, 0);
      assert.ok(chunks.length > 0 && chunks.every((c) => c.level === 0), "at 1:1, level 0 chunks");
      const sb1 = await page.evaluate(() => window.zarrDemo.scaleBar);
      const value1 = Number(/^([\d.]+) µm$/.exec(sb1.text)?.[1]);
      assert.ok(Math.abs(sb1.exact - value1 / scaleX) < 1e-9, `at 1:1 the bar is ${sb1.exact} px for ${sb1.text}`);

      // Points: cell centres and rims in view, and a grid of background.
      const pts = [];
      for (let ci = 0; ci < 16; ci++) {
        for (let cj = 0; cj < 16; cj++) {
          const c = cellOf(ci, cj);
          for (const [dy, dx] of [[0, 0], [0, c.r * 0.6], [c.r * 1.3, 0]]) {
            const y = Math.round(c.y + dy);
            const x = Math.round(c.x + dx);
            const s = screenOf(v1, y, x);
            if (s.inside && s.px > 60 && s.py > 30 && s.px < v1.cw - 160 && s.py < v1.ch - 50) pts.push([y, x, s]);
          }
        }
      }
      assert.ok(pts.length > 30, `${pts.length} points in view`);
      const comp = (y, x) =>
        composite([
          { v: cells(y, x), color: colors[0], lo: ch[0].lo, hi: ch[0].hi },
          { v: nuclei(y, x), color: colors[1], lo: ch[1].lo, hi: ch[1].hi },
        ]);
      // Labels shown (at opacity 0.5): listed colours over the composite, nothing on the background.
      const withLabels = await pixels(pts.map(([, , s]) => [s.px, s.py]));
      let listed = 0;
      let unlisted = 0;
      pts.forEach(([y, x], n) => {
        const lab = cellLabel(y, x);
        const rgba = lab ? labelRGBA(lab) : null;
        if (!lab) close(withLabels[n], comp(y, x), 1, `background at (${y}, ${x})`);
        else if (rgba) {
          close(withLabels[n], over(rgba, comp(y, x), 0.5 * (rgba[3] / 255)), 2, `label ${lab} at (${y}, ${x})`);
          listed++;
        } else {
          const c = comp(y, x);
          assert.ok(Math.max(...withLabels[n].map((v, q) => Math.abs(v - c[q]))) > 8, `label ${lab} (no listed colour) at (${y}, ${x}) is coloured`);
          unlisted++;
        }
      });
      assert.ok(listed >= 5 && unlisted >= 5, `${listed} points on listed labels, ${unlisted} on others`);
      const hover = await hoverAt(v1, pts[0][0], pts[0][1]);
      const [hy, hx] = [pts[0][0], pts[0][1]];
      assert.ok(hover.includes(`cells ${cells(hy, hx)} · nuclei ${nuclei(hy, hx)}`) && hover.includes(`label ${cellLabel(hy, hx)}`), hover);
      assert.ok(hover.includes(`y ${hy} (${Number((hy * scaleX).toPrecision(10))} µm)`), `physical position in the hover: ${hover}`);
      await page.screenshot({ path: path.join(outDir, "10-ome-labels-1to1.png") });

      // Labels off: the composite alone.
      await rendered(() => page.selectOption("#label-select", ""), "window.zarrDemo.labels.shown === null");
      const plain = await pixels(pts.map(([, , s]) => [s.px, s.py]));
      pts.forEach(([y, x], n) => close(plain[n], comp(y, x), 1, `composite at (${y}, ${x})`));
      // Nuclei hidden: cells alone, read from the tiles already there.
      chunks.length = 0;
      await rendered(() => page.click('#channel-list input[data-channel="1"]'), "!window.zarrDemo.channels[1].visible");
      const green = await pixels(pts.map(([, , s]) => [s.px, s.py]));
      pts.forEach(([y, x], n) => close(green[n], composite([{ v: cells(y, x), color: colors[0], lo: ch[0].lo, hi: ch[0].hi }]), 1, `cells alone at (${y}, ${x})`));
      assert.equal(chunks.length, 0, "hiding a channel reads nothing");
      await rendered(() => page.click('#channel-list input[data-channel="1"]'), "window.zarrDemo.channels[1].visible");
      assert.equal(chunks.length, 0, "showing it again reads nothing (its tiles are cached)");
      // One channel through a colormap instead: the channel axis gets a slider.
      await rendered(() => page.click("#composite"), "window.zarrDemo.channels === null");
      assert.equal(await page.isVisible('input[type=range][data-dim="0"]'), true);
      await rendered(() => page.click("#composite"), "window.zarrDemo.channels !== null");
    } finally {
      page.off("request", onRequest);
    }
  });

  test("an OME-Zarr 0.4 image written by zarr-python 2.13 (NGFF attributes by hand): composite and label colours, physical positions with a translation, the scale bar, every chunk read once", async (t) => {
    const py = python;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-ome-"));
    try {
      try {
        execFileSync(py, [path.join(here, "ome_zarr_python.py"), dir], { stdio: ["ignore", "ignore", "pipe"] });
      } catch (e) {
        if (required) throw e;
        t.skip(`zarr-python is not available: ${String(e.stderr ?? e).split("\n")[0]}`);
        return;
      }
      const other = await startServer(dir);
      const seen = [];
      const onRequest = (r) => {
        const m = /\/img\.zarr\/(labels\/squares\/)?(\d)\/(\d+)\/(\d+)(?:\/(\d+))?$/.exec(new URL(r.url()).pathname);
        if (m) seen.push(`${m[1] ? "labels" : `c${m[3]}`}:${m[2]}/${m.slice(3).filter(Boolean).join("/")}`);
      };
      page.on("request", onRequest);
      try {
        await page.goto(`${server.url}?url=${encodeURIComponent(`${other.url}/img.zarr`)}`);
        await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "" && window.zarrDemo.labels.ready, null, { timeout: 60_000 });
        await page.waitForFunction(() => window.zarrDemo.status === "rendered");
        const zattrs = JSON.parse(await fs.readFile(path.join(dir, "img.zarr", ".zattrs"), "utf8"));
        const tr = zattrs.multiscales[0].datasets[0].coordinateTransformations;
        const [sy, sx] = tr[0].scale.slice(1);
        const [ty] = tr[1].translation.slice(1);
        const om = zattrs.omero.channels;
        const colors = om.map((c) => [0, 2, 4].map((k) => parseInt(c.color.slice(k, k + 2), 16)));
        const ch = await page.evaluate(() => window.zarrDemo.channels);
        assert.deepEqual(ch.map((c) => [c.label, c.color, c.lo, c.hi]), om.map((c, i) => [c.label, colors[i], c.window.start, c.window.end]));
        const vs = await page.evaluate(() => window.zarrDemo.viewState);
        assert.ok(vs.z >= 1 && vs.stride === 1, JSON.stringify(vs));
        // Every chunk of level 0 (4 × 4 per channel, and of the labels) once, nothing of level 1.
        const count = (p) => seen.filter((k) => k.startsWith(p)).length;
        assert.deepEqual([count("c0:0/"), count("c1:0/"), count("labels:0/"), seen.filter((k) => /:1\//.test(k)).length], [16, 16, 16, 0], seen.join(" "));
        assert.equal(new Set(seen).size, seen.length, "no chunk twice");
        const ch0 = (y, x) => ((y * 7 + x * 3) % 1000) + 100;
        const ch1 = (y, x) => ((Math.floor(y / 32) + Math.floor(x / 32)) % 4) * 900 + (x % 50) * 4;
        const lab = (y, x) => (y % 32 >= 4 && y % 32 < 28 && x % 32 >= 4 && x % 32 < 28 ? Math.floor(y / 32) * 8 + Math.floor(x / 32) + 1 : 0);
        const labColor = (v) => [(v * 37) % 256, (v * 91) % 256, (v * 53) % 256];
        const sb = await page.evaluate(() => window.zarrDemo.scaleBar);
        const pts = [];
        for (let y = 1; y < 256; y += 23) {
          for (let x = 2; x < 256; x += 19) {
            const p = screenOf(vs, y, x);
            // Not under the scale bar.
            if (!(p.px > Math.min(sb.x0, sb.x1 - 80) - 12 && p.py > sb.y - 26)) pts.push([y, x]);
          }
        }
        const scr = pts.map(([y, x]) => screenOf(vs, y, x));
        const got = await pixels(scr.map((p) => [p.px, p.py]));
        let labelled = 0;
        pts.forEach(([y, x], n) => {
          const comp = composite([
            { v: ch0(y, x), color: colors[0], lo: om[0].window.start, hi: om[0].window.end },
            { v: ch1(y, x), color: colors[1], lo: om[1].window.start, hi: om[1].window.end },
          ]);
          const l = lab(y, x);
          if (l) labelled++;
          close(got[n], l ? over(labColor(l), comp, 0.5) : comp, l ? 2 : 1, `(${y}, ${x}) label ${l}`);
        });
        assert.ok(labelled > 20 && labelled < pts.length - 20, `${labelled} of ${pts.length} points on labels`);
        const hover = await hoverAt(vs, 100, 37);
        assert.ok(hover.includes(`y 100 (${100 * sy + ty} µm)`) && hover.includes(`ramp ${ch0(100, 37)} · squares ${ch1(100, 37)}`) && hover.includes(`label ${lab(100, 37)}`), hover);
        const value = Number(/^([\d.]+) µm$/.exec(sb.text)?.[1]);
        assert.ok(Math.abs(sb.exact - (value / sx) * vs.z) < 1e-9, `scale bar ${sb.exact} px for ${sb.text} at zoom ${vs.z}`);
        // Ticks in physical coordinates start from the translation.
        await rendered(() => page.selectOption("#ticks", "physical"));
        await page.screenshot({ path: path.join(outDir, "13-zarr-python-ome.png") });
      } finally {
        page.off("request", onRequest);
        await other.close();
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test("the address restores an OME-Zarr view: channels shown, labels, ticks; the details name channels, pixel size and labels", async () => {
    await page.goto(`${server.url}?url=data/sample-ome.zarr&channels=0&labels=&ticks=physical`);
    await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "", null, { timeout: 60_000 });
    const ch = await page.evaluate(() => window.zarrDemo.channels);
    assert.deepEqual(ch.map((c) => c.visible), [true, false]);
    assert.equal((await page.evaluate(() => window.zarrDemo.labels)).shown, null);
    assert.equal(await page.inputValue("#ticks"), "physical");
    const details = (await page.textContent("#details")).replace(/\s+/g, " ");
    // (textContent runs each <dt> into its <dd>.)
    for (const w of ["pixel sizey 0.325 µm · x 0.325 µm", "channelscells (300–6000), nuclei", "labelscells", "NGFF0.4"]) assert.ok(details.includes(w), `details mention ${w}: ${details}`);
    // Showing the hidden channel puts it back in the address.
    await rendered(() => page.click('#channel-list input[data-channel="1"]'), "window.zarrDemo.channels[1].visible");
    await page.waitForFunction(() => !/channels=/.test(location.search));
  });

  test("an OME-Zarr plate opens on its wells side by side (limits shared by every well); a well shows its fields, a field its image; rows and wells listed from the metadata", async () => {
    await rendered(() => page.selectOption("#examples", "8"), '/sample-plate\\.zarr$/.test(document.getElementById("url").value) && window.zarrDemo.path === "" && window.zarrDemo.grid?.complete');
    const grid = await page.evaluate(() => window.zarrDemo.grid);
    assert.deepEqual([grid.rows, grid.columns], [["A", "B"], ["1", "2", "3"]]);
    assert.deepEqual(grid.cells.map((c) => c.label).sort(), ["A1", "A2", "A3", "B1", "B2", "B3"]);
    // Two channels without omero: the default palette; limits from the
    // percentiles of every well's values together.
    const ch = await page.evaluate(() => window.zarrDemo.channels);
    assert.deepEqual(ch.map((c) => c.color), [[0, 255, 0], [255, 0, 255]]);
    for (const c of [0, 1]) {
      const all = [];
      for (let r = 0; r < 2; r++) for (let k = 0; k < 3; k++) for (let y = 0; y < 128; y++) for (let x = 0; x < 128; x++) all.push(plateValue(r, k, 0, c, y, x));
      const sorted = Float64Array.from(all).sort();
      assert.deepEqual([ch[c].lo, ch[c].hi], [percentile(sorted, 0.01), percentile(sorted, 0.99)], `channel ${c}'s shared limits`);
    }
    // Each well's colours, at the centres of its 16-pixel checks.
    const pts = [];
    const want = [];
    for (const cell of grid.cells) {
      const [r, k] = [cell.row, cell.col];
      for (const [y, x] of [[8, 8], [8, 24], [72, 40], [120, 120]]) {
        pts.push([cell.x + ((x + 0.5) / cell.nx) * cell.w, cell.y + ((y + 0.5) / cell.ny) * cell.h]);
        want.push({ rgb: composite(ch.map((c, n) => ({ v: plateValue(r, k, 0, n, y, x), color: c.color, lo: c.lo, hi: c.hi }))), what: `well ${cell.label} (${y}, ${x})` });
      }
    }
    const got = await s.pixels(pts, ".grid-canvas");
    got.forEach((g, n) => close(g, want[n].rgb, 3, want[n].what));
    await page.screenshot({ path: path.join(outDir, "12-plate.png") });
    // The tree lists the rows from the plate's metadata, and a row's wells.
    await page.click('#tree button.row[data-path="A"] .caret');
    await page.waitForSelector('#tree button.row[data-path="A/3"]');
    const rows = await page.$$eval("#tree button.row", (bs) => bs.map((b) => b.dataset.path));
    for (const p of ["A", "B", "A/1", "A/2", "A/3"]) assert.ok(rows.includes(p), `the tree lists ${p}: ${rows}`);
    // A click on well A1: its two fields; on field 1: its image.
    const a1 = grid.cells.find((c) => c.label === "A1");
    const box = await page.locator(".grid-canvas").boundingBox();
    await rendered(() => page.mouse.click(box.x + a1.x + a1.w / 2, box.y + a1.y + a1.h / 2), 'window.zarrDemo.path === "A/1" && window.zarrDemo.grid?.complete');
    const well = await page.evaluate(() => window.zarrDemo.grid);
    assert.deepEqual(well.cells.map((c) => c.label), ["field 0", "field 1"]);
    const f1 = well.cells[1];
    await rendered(() => page.mouse.click(box.x + f1.x + f1.w / 2, box.y + f1.y + f1.h / 2), 'window.zarrDemo.path === "A/1/1" && window.zarrDemo.viewState.W === 128');
    const hover = await hoverAt(await page.evaluate(() => window.zarrDemo.viewState), 3, 3);
    assert.ok(hover.includes(`channel 0 ${plateValue(0, 0, 1, 0, 3, 3)}`), hover);
  });

  test("a bz2 array reads (its chunk decoded by the engine); the view's small reads start no decode workers", async () => {
    await rendered(() => page.selectOption("#examples", "1"), 'window.zarrDemo.path === "temperature"');
    await rendered(() => page.click('#tree button.row[data-path="january_bz2"]'), 'window.zarrDemo.path === "january_bz2"');
    // (the decode workers start on a read that decodes 16 MiB or more with
    // the package's decoders: none of the views here)
    assert.equal(await page.evaluate(() => window.zarrDemo.workers), null, "no decode workers for small reads");
    assert.doesNotMatch(await page.textContent("#status"), /decode worker/);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const box = await page.locator(".view-canvas").boundingBox();
    const p = screenOf(vs, 44, 120);
    await page.mouse.move(box.x + p.px, box.y + p.py);
    const hover = await page.textContent("#hover");
    assert.ok(hover.includes(`= ${Number(temperature(0, 44, 120).toPrecision(6))} K`), hover);
  });

  /**
   * Runs script(i) in the page n times, each time until a new frame is
   * drawn, pausing pauseMs after each (as a person stepping does); the
   * times (ms) from the action to the frame drawn.
   */
  function timed(script, n = 10, pauseMs = 0) {
    return page.evaluate(
      async ([script, n, pauseMs]) => {
        const done = (k) =>
          new Promise((res) => {
            const f = () => (window.zarrDemo.status === "rendered" && window.zarrDemo.renders > k ? res() : requestAnimationFrame(f));
            f();
          });
        const act = new Function("i", script);
        const out = [];
        for (let i = 0; i < n; i++) {
          const k = window.zarrDemo.renders;
          const t0 = performance.now();
          act(i);
          await done(k);
          out.push(performance.now() - t0);
          if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
        }
        return out;
      },
      [script, n, pauseMs],
    );
  }

  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const summary = (a) => `median ${median(a).toFixed(0)} ms (${a.map((x) => x.toFixed(0)).join(", ")})`;

  test("the OME-Zarr movie (20 × 10 × 1024² uint16): omero's defaultZ and window, the right frame after each step, 16 chunk reads per new frame, the scale bar; step, zoom and pan medians", async (t) => {
    let chunks = [];
    const onRequest = (r) => {
      const m = /\/sample-movie\.zarr\/0\/(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(new URL(r.url()).pathname);
      if (m) chunks.push(m.slice(1).map(Number));
    };
    page.on("request", onRequest);
    const zattrs = JSON.parse(await fs.readFile(path.join(repoRoot, "web", "demo", "data", "sample-movie.zarr", ".zattrs"), "utf8"));
    try {
      await page.goto(`${server.url}?url=data/sample-movie.zarr`);
      await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "", null, { timeout: 60_000 });
      const vs = await page.evaluate(() => window.zarrDemo.viewState);
      assert.equal(vs.stride, 1, "the frame fits at full resolution");
      const z = (await page.evaluate(() => window.zarrDemo.slice)).index[1];
      assert.equal(z, zattrs.omero.rdefs.defaultZ, "starts at omero's defaultZ");
      const [ch] = await page.evaluate(() => window.zarrDemo.channels);
      assert.deepEqual([ch.label, ch.color, ch.lo, ch.hi], ["GFP", [0, 255, 0], zattrs.omero.channels[0].window.start, zattrs.omero.channels[0].window.end]);
      const sb = await page.evaluate(() => window.zarrDemo.scaleBar);
      const scaleX = zattrs.multiscales[0].datasets[0].coordinateTransformations[0].scale[3];
      const value = Number(/^([\d.]+) µm$/.exec(sb.text)?.[1]);
      assert.ok(Math.abs(sb.exact - (value / scaleX) * vs.z) < 1e-9, `scale bar ${sb.exact} px for ${sb.text}`);
      const secs = zattrs.multiscales[0].datasets[0].coordinateTransformations[0].scale[0];
      assert.ok((await page.textContent('[data-val="0"]')).includes(`0 / 19 · 0 s`));
      assert.ok((await page.textContent('[data-val="1"]')).includes(`${z} / 9 · ${z * 2} µm`));

      // Steps to the next frame a quarter second apart (each next frame is
      // read ahead while one shows), then jumps (nothing read ahead).
      chunks = [];
      const steps = await timed('const r = document.querySelector(\'input[type=range][data-dim="0"]\'); r.value = String(i + 1); r.dispatchEvent(new Event("input"));', 10, 250);
      const frames = new Set(chunks.map(([ct, cz]) => `${ct},${cz}`));
      for (let i = 1; i <= 10; i++) assert.ok(frames.has(`${i},${z}`), `frame t=${i} read`);
      assert.equal(chunks.filter(([ct, cz]) => ct === 5 && cz === z).length, 16, "a 1024² frame in 256² chunks: 16 chunk reads, once");
      assert.ok((await page.textContent('[data-val="0"]')).trim().startsWith(`10 / 19 · ${10 * secs} s`));
      for (const [y, x] of [[70, 70], [512, 300], [1000, 1010], [333, 901]]) {
        const hover = await hoverAt(vs, y, x);
        assert.ok(hover.includes(`t 10 (${10 * secs} s)`) && hover.includes(`y ${y}`) && hover.includes(`x ${x}`), hover);
        assert.ok(hover.includes(`GFP ${movie(10, z, y, x)}`), `${hover}: want movie(10, ${z}, ${y}, ${x}) = ${movie(10, z, y, x)}`);
      }
      const jumps = await timed('const r = document.querySelector(\'input[type=range][data-dim="1"]\'); r.value = String([0, 9, 1, 8, 2, 7, 3, 6, 5, 4][i]); r.dispatchEvent(new Event("input"));');
      await page.screenshot({ path: path.join(outDir, "8-movie.png") });

      // Zoom out from the fit three times (strides 2 and 4) and back, twice;
      // pan at 3.4× through new tiles.
      chunks = [];
      const before = await page.evaluate(() => window.zarrDemo.cacheStats());
      const zooms = await timed('document.getElementById(i % 6 < 3 ? "zoom-out" : "zoom-in").click();');
      const after = await page.evaluate(() => window.zarrDemo.cacheStats());
      // Strided reads of the frame shown come from the engine's decoded-chunk cache.
      assert.equal(chunks.length, 0, `zooming out and in on a frame already read: ${chunks.length} chunk requests`);
      assert.ok(after.hits > before.hits && after.misses === before.misses, `engine cache: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
      await rendered(() => page.click("#zoom-1"), "window.zarrDemo.viewState.z === 1");
      for (let k = 0; k < 3; k++) await rendered(() => page.click("#zoom-in"));
      // A frame not read yet, so that panning reaches tiles not read yet.
      await rendered(() => page.fill('input[type=range][data-dim="0"]', "15"), "window.zarrDemo.slice.index[0] === 15");
      const pans = await timed(
        'const key = ["ArrowRight", "ArrowRight", "ArrowDown", "ArrowDown", "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowUp", "ArrowUp", "ArrowUp"][i]; const c = document.querySelector(".view-canvas"); for (let k = 0; k < 8; k++) c.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));',
      );
      t.diagnostic(`slider step to the next frame, 250 ms after the last (read ahead meanwhile): ${summary(steps)}`);
      t.diagnostic(`slider jump to a frame not read yet (16 chunks): ${summary(jumps)}`);
      t.diagnostic(`zoom (×1.5 steps between the fit and a quarter of it): ${summary(zooms)}`);
      t.diagnostic(`pan (480 px at 3.4×): ${summary(pans)}`);
      t.diagnostic(`load average while measuring: ${os.loadavg().map((x) => x.toFixed(1)).join(", ")} on ${os.cpus().length} CPUs`);
    } finally {
      page.off("request", onRequest);
    }
  });

  test("playback: space on a focused slider plays its axis at the chosen rate, reading frames ahead; shortcuts work with a slider focused", async (t) => {
    await page.goto(`${server.url}?url=data/sample-movie.zarr`);
    await page.waitForFunction(() => window.zarrDemo?.status === "rendered" && window.zarrDemo.path === "", null, { timeout: 60_000 });
    const slider = page.locator('input[type=range][data-dim="0"]');
    await slider.focus();
    // "+" zooms and "." steps t although the slider has the focus.
    const z0 = (await page.evaluate(() => window.zarrDemo.viewState)).z;
    await rendered(() => page.keyboard.press("+"));
    assert.ok(Math.abs((await page.evaluate(() => window.zarrDemo.viewState)).z - z0 * 1.5) < 1e-9, "+ zooms with a slider focused");
    await rendered(() => page.keyboard.press("0"));
    await rendered(() => page.keyboard.press("."), "window.zarrDemo.slice.index[0] === 1");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.dim), "0", "the slider keeps the focus");
    await page.selectOption("#fps", "10");
    await slider.focus();
    // In the page's clock: when each t was first shown (the slider's label
    // changes as the step is made) and when each frame's first chunk was requested.
    await page.evaluate(() => {
      window.__shown = [];
      const label = document.querySelector('[data-val="0"]');
      new MutationObserver(() => window.__shown.push([parseInt(label.textContent, 10), performance.now()])).observe(label, { childList: true, characterData: true, subtree: true });
      performance.clearResourceTimings();
      performance.setResourceTimingBufferSize(10000);
    });
    await page.keyboard.press(" ");
    await page.waitForFunction(() => window.zarrDemo.slice.index[0] >= 8, null, { timeout: 30_000 });
    const st = await page.evaluate(() => window.zarrDemo.playback);
    await page.keyboard.press(" ");
    const stopped = await page.evaluate(() => window.zarrDemo.playback);
    assert.equal(st.dim, 0, "playing t");
    assert.equal(stopped.dim, null, "space again stops");
    const { shown, requested } = await page.evaluate(() => {
      const requested = {};
      for (const e of performance.getEntriesByType("resource")) {
        const m = /\/sample-movie\.zarr\/0\/(\d+)\/\d+\/\d+\/\d+$/.exec(new URL(e.name).pathname);
        if (m && !(m[1] in requested)) requested[m[1]] = e.startTime;
      }
      return { shown: window.__shown, requested };
    });
    const firstShown = (f) => shown.find(([v]) => v === f)?.[1];
    const frames = [3, 4, 5, 6, 7, 8].filter((f) => firstShown(f) !== undefined);
    const ahead = frames.filter((f) => requested[f] !== undefined && requested[f] < firstShown(f));
    t.diagnostic(`played t at 10 frames/s: ${st.achieved?.toFixed(1)} frames/s achieved; frames ${ahead} of ${frames} requested before they were shown`);
    assert.ok(frames.length >= 4 && ahead.length === frames.length, `frames read ahead: ${ahead} of ${frames}; requested ${JSON.stringify(requested)}, shown ${JSON.stringify(shown)}`);
    await page.screenshot({ path: path.join(outDir, "11-movie-playback.png") });
  });

  test("no script errors in the page", () => {
    assert.deepEqual(errors, []);
  });
});
