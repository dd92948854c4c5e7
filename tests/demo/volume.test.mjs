// The 3D view (WebGL2 on Chromium's software GL), on an OME-Zarr volume
// zarr-python writes (tests/demo/volume_zarr_python.py: 2 channels of
// 40 × 96 × 128 uint16, 3 levels, z voxels 4× as deep as wide). Pixels are
// checked against projections this test computes from the script's
// formula: maximum-intensity projections along z (as opened), along x (a
// quarter turn), over half the depth (the crop box), at the level the
// GPU-memory budget allows, with one channel hidden; the channels composited
// in their omero colours and windows. Mouse drags rotate, the wheel zooms,
// alpha compositing draws something else than the projection, and a link
// reopens the same 3D picture.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { close, composite, here, missingParts, outDir, python, required, rgbOf, startViewer } from "./harness.mjs";

const missing = await missingParts();
const [NC, NZ, NY, NX] = [2, 40, 96, 128];

/** volume_zarr_python.py's value() at level-0 voxel (c, z, y, x). */
function value(c, z, y, x) {
  const peak = (x + 2 * y + 13 * c) % NZ;
  return 100 + ((3 * x + 5 * y + 11 * z + 7 * c) % 97) * 4 + (z === peak ? 2000 : 0);
}

describe("3D view (Debian chromium, software WebGL2, a volume written by zarr-python)", { skip: missing.length ? `missing: ${missing.join(", ")}` : false }, () => {
  let s;
  let dir;
  let summary;
  let skipReason = null;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-volume-"));
    try {
      summary = JSON.parse(execFileSync(python, [path.join(here, "volume_zarr_python.py"), dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
    } catch (e) {
      if (required) throw e;
      skipReason = `zarr-python is not available: ${String(e.stderr ?? e).split("\n")[0]}`;
    }
    // A small window: software GL marches every pixel's ray on the CPU.
    s = await startViewer({ viewport: { width: 1024, height: 640 }, serveArgs: ["-mount", `/extra/=${dir}`] });
  });
  after(async () => {
    await s?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const vol = () => s.page.evaluate(() => window.zarrDemo.volume);
  /** Runs action, then waits for a new 3D frame (and cond on the view's description v). */
  async function drawn(action, cond = "true") {
    const n = (await vol())?.draws ?? 0;
    await action();
    await s.page.waitForFunction(([n, c]) => { const v = window.zarrDemo.volume; return v && v.draws > n && eval(c); }, [n, cond], { timeout: 60_000 }).catch(async (e) => {
      throw new Error(`${e.message}; the 3D view: ${JSON.stringify(await vol())}, channels ${JSON.stringify(await s.page.evaluate(() => window.zarrDemo.channels))}`);
    });
    return vol();
  }

  // The physical extent (level 0's voxels × the script's scale), largest side 1.
  const ext = (() => {
    const e = [NX * 0.5, NY * 0.5, NZ * 2];
    const m = Math.max(...e);
    return e.map((x) => x / m);
  })();

  /** The screen point of a voxel's centre (fractions of the level's x, y and z) for a yaw of 0 (along z) or 90° (along x). */
  function screenPoint(v, fx, fy, fz, yaw) {
    const { cw, ch } = v.camera;
    const k = 0.9 * v.state.zoom * Math.min(cw / ext[0], ch / ext[1]);
    const wy = (0.5 - fy) * ext[1];
    const h = yaw === 0 ? (fx - 0.5) * ext[0] : (0.5 - fz) * ext[2];
    return [cw / 2 + h * k, ch / 2 - wy * k];
  }

  /**
   * Checks the picture against a projection: at each (a, y) of a grid,
   * the composite of each channel's maximum over the voxels `along` runs
   * through (level lv, kept voxels by keep(z)), in omero's colours.
   */
  async function checkProjection(v, { lv, yaw = 0, keepZ = () => true, visible = [true, true], what }) {
    const f = 2 ** lv;
    const [nx, ny, nz] = [NX / f, NY / f, NZ / f];
    assert.deepEqual(v.shape, [nx, ny, nz], `${what}: level ${lv}`);
    const om = summary.omero.channels.map((c) => ({ color: rgbOf(c.color), lo: c.window.start, hi: c.window.end }));
    const pts = [];
    const want = [];
    const across = yaw === 0 ? nx : nz;
    for (let i = 0; i < 9; i++)
      for (let j = 0; j < 7; j++) {
        const a = Math.floor(((i + 0.5) / 9) * across);
        const y = Math.floor(((j + 0.5) / 7) * ny);
        const ch = om
          .map((o, c) => {
            let m = -Infinity;
            if (yaw === 0) for (let z = 0; z < nz; z++) if (keepZ(z, nz)) m = Math.max(m, value(c, z * f, y * f, a * f));
            if (yaw !== 0) for (let x = 0; x < nx; x++) m = Math.max(m, value(c, a * f, y * f, x * f));
            return { ...o, v: m };
          })
          .filter((_, c) => visible[c]);
        pts.push(yaw === 0 ? screenPoint(v, (a + 0.5) / nx, (y + 0.5) / ny, 0, 0) : screenPoint(v, 0, (y + 0.5) / ny, (a + 0.5) / nz, 90));
        want.push({ rgb: composite(ch), label: `${what}: ${yaw === 0 ? `x ${a}` : `z ${a}`}, y ${y}` });
      }
    const got = await s.pixels(pts, ".volume-canvas");
    got.forEach((g, n) => close(g, want[n].rgb, 2, want[n].label));
  }

  /** How many of a grid of points over the canvas are not black, and a digest of the picture. */
  async function content() {
    const d = await s.canvasDigest(".volume-canvas");
    const pts = [];
    for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) pts.push([((i + 0.5) / 20) * (d.width - 1), ((j + 0.5) / 20) * (d.height - 1)]);
    const px = await s.pixels(pts, ".volume-canvas");
    return { sha256: d.sha256, lit: px.filter((p) => Math.max(...p) > 30).length };
  }

  test("a volume in 3D: the finest level in the budget, projections along z, along x and cropped, channels, mouse, alpha", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { page } = s;
    await s.goto("?url=extra/volume.zarr");
    assert.equal(await page.$eval("#view-3d", (b) => b.hidden), false, "the 3D button is offered for a z/y/x image");
    let v = await drawn(() => page.click("#view-3d"));
    assert.deepEqual([v.level, v.channels, v.dims], [0, 2, { x: 3, y: 2, z: 1 }]);
    assert.equal(v.bytes, NC * NZ * NY * NX * 4);
    assert.ok(v.bytes <= v.state.budgetMiB * 2 ** 20);
    await checkProjection(v, { lv: 0, what: "MIP along z, level 0" });
    await page.screenshot({ path: path.join(outDir, "volume-mip.png") });

    // A 1 MiB budget: level 0 (3.75 MiB) does not fit, level 1 (0.47 MiB) does.
    v = await drawn(() => page.selectOption("#vol-budget", "1"), "v.level === 1");
    assert.ok(v.bytes <= 2 ** 20 && v.bytes === (NC * NZ * NY * NX * 4) / 8, `${v.bytes} bytes at level 1`);
    await checkProjection(v, { lv: 1, what: "MIP along z, level 1 (1 MiB)" });
    v = await drawn(() => page.selectOption("#vol-budget", "16"), "v.level === 0");

    // The crop box: the front half of the depth only (voxel centres up to 0.5).
    v = await drawn(() => page.evaluate(() => window.zarrDemo.volumeSet({ crop: { lo: [0, 0, 0], hi: [1, 1, 0.5] } })));
    await checkProjection(v, { lv: 0, keepZ: (z, nz) => (z + 0.5) / nz <= 0.5, what: "MIP along z, z cropped to its first half" });
    // The same through the bar's range input.
    v = await drawn(() => page.$eval("#vol-crop-z-hi", (e) => { e.value = "1"; e.dispatchEvent(new Event("input")); }));
    assert.deepEqual(v.state.crop.hi, [1, 1, 1]);

    // A channel hidden in the colour panel: the picture follows.
    v = await drawn(() => page.click('#channel-list input[data-channel="1"]'));
    await checkProjection(v, { lv: 0, visible: [true, false], what: "MIP along z, magenta hidden" });
    v = await drawn(() => page.click('#channel-list input[data-channel="1"]'));

    // A quarter turn about the vertical: the projection along x, depth across the screen.
    v = await drawn(() => page.evaluate(() => window.zarrDemo.volumeSet({ yaw: Math.PI / 2 })));
    await checkProjection(v, { lv: 0, yaw: 90, what: "MIP along x (yaw 90°)" });
    await page.screenshot({ path: path.join(outDir, "volume-mip-side.png") });

    // The mouse: a drag turns it, the wheel zooms.
    v = await drawn(() => page.evaluate(() => window.zarrDemo.volumeSet({ yaw: 0, pitch: 0, zoom: 1 })));
    const front = await content();
    const box = await page.$eval(".volume-canvas", (c) => { const r = c.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
    v = await drawn(async () => {
      await page.mouse.move(box.x, box.y);
      await page.mouse.down();
      await page.mouse.move(box.x + 60, box.y + 40, { steps: 4 });
      await page.mouse.up();
    });
    assert.ok(Math.abs(v.state.yaw - 0.6) < 0.05 && Math.abs(v.state.pitch - 0.4) < 0.05, `drag turned it to yaw ${v.state.yaw}, pitch ${v.state.pitch}`);
    const turned = await content();
    assert.notEqual(turned.sha256, front.sha256, "a turned volume looks different");
    assert.ok(turned.lit > 60, `the turned volume covers the view (${turned.lit} of 400 points lit)`);
    await page.screenshot({ path: path.join(outDir, "volume-turned.png") });
    v = await drawn(async () => {
      await page.mouse.move(box.x, box.y);
      await page.mouse.wheel(0, -300);
    });
    assert.ok(v.state.zoom > 1.5, `the wheel zoomed in (${v.state.zoom})`);

    // Alpha compositing: another picture, still with content.
    v = await drawn(() => page.selectOption("#vol-mode", "alpha"));
    assert.equal(v.state.mode, "alpha");
    const alpha = await content();
    assert.notEqual(alpha.sha256, turned.sha256);
    assert.ok(alpha.lit > 60, `alpha compositing draws the volume (${alpha.lit} of 400 points lit)`);
    await page.screenshot({ path: path.join(outDir, "volume-alpha.png") });

    // The link: the same 3D picture (mode, rotation, zoom, crop box, level,
    // channels) in a new page.
    v = await drawn(() => page.evaluate(() => window.zarrDemo.volumeSet({ crop: { lo: [0.25, 0, 0], hi: [1, 0.75, 0.5] }, budgetMiB: 1 })), "v.level === 1");
    v = await drawn(() => page.click('#channel-list input[data-channel="1"]'));
    await page.waitForFunction(() => {
      const q = new URLSearchParams(location.search);
      return /^alpha,/.test(q.get("3d") ?? "") && q.get("3d").includes("level:1") && q.get("3d").includes("crop:") && q.get("channels") === "0";
    });
    const link = await page.evaluate(() => location.href);
    const want = await s.canvasDigest(".volume-canvas");
    const other = await s.newPage();
    try {
      await other.goto(link);
      await other.waitForFunction(() => window.zarrDemo?.volume?.draws > 0 && window.zarrDemo.status === "rendered", null, { timeout: 60_000 });
      const w = await other.evaluate(() => window.zarrDemo.volume);
      const pick = (x) => ({ mode: x.state.mode, yaw: x.state.yaw, pitch: x.state.pitch, zoom: x.state.zoom, crop: x.state.crop, level: x.level, budget: x.state.budgetMiB, depth: x.state.depth, shape: x.shape });
      assert.deepEqual(pick(w), pick(v), "the link's 3D view");
      assert.deepEqual(await other.evaluate(() => window.zarrDemo.channels.map((c) => c.visible)), [true, false]);
      // (the view follows the colour panel within 200 ms: the last frame is the one to compare)
      let got = null;
      for (let i = 0; i < 20 && got?.sha256 !== want.sha256; i++) {
        if (i) await other.waitForTimeout(250);
        got = await s.canvasDigest(".volume-canvas", other);
      }
      assert.deepEqual(got, want, "the link draws the same 3D picture");
      await other.screenshot({ path: path.join(outDir, "volume-link.png") });
    } finally {
      await other.close();
    }

    // Back to 2D.
    await s.rendered(() => page.click("#view-3d"));
    assert.equal(await page.evaluate(() => window.zarrDemo.volume), null);
    assert.deepEqual(s.errors, []);
  });
});
