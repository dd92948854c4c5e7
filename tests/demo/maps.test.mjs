// Maps in the viewer, on CF-style data zarr-python writes (tests/demo/
// maps_zarr_python.py): coastlines drawn where the script (numpy for
// latitude–longitude grids, pyproj for the polar stereographic ones) puts
// Natural Earth's 1:110m coast, nothing in open ocean, degree labels where
// the grid's coordinates put their parallels and meridians, row 0 at the
// bottom when latitudes rise, dates from cftime on the time slider, and
// long_name and units on the colour bar.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { close, here, missingParts, outDir, python, repoRoot, required, startViewer, viridisAt } from "./harness.mjs";

const missing = await missingParts();

describe("maps (Debian chromium, CF data written by zarr-python, pyproj and cftime as oracles)", { skip: missing.length ? `missing: ${missing.join(", ")}` : false }, () => {
  let s;
  let dir;
  let want;
  let skipReason = null;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-maps-"));
    try {
      const land = path.join(repoRoot, "web", "demo", "node_modules", "world-atlas", "land-110m.json");
      want = JSON.parse(execFileSync(python, [path.join(here, "maps_zarr_python.py"), dir, land], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
    } catch (e) {
      if (required) throw e;
      skipReason = `zarr-python, cftime or pyproj is not available: ${String(e.stderr ?? e).split("\n").filter(Boolean).at(-1)}`;
    }
    s = await startViewer({ viewport: { width: 1280, height: 800 }, serveArgs: ["-mount", `/extra/=${dir}`] });
  });
  after(async () => {
    await s?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** Opens a map and waits until its coastlines are drawn; resolves to the view state and the map's description. */
  async function openMap(p, query = "") {
    await s.goto(`?url=extra/maps.zarr&path=${p}${query}`, "window.zarrDemo.map?.coast === '110m'");
    // The overlay draws on the view's next frame.
    await s.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const [vs, map] = await s.page.evaluate(() => [window.zarrDemo.viewState, window.zarrDemo.map]);
    await s.page.screenshot({ path: path.join(outDir, `map-${p.replace("/", "-")}.png`) });
    return { vs, map };
  }

  /** The screen point (CSS px) of fractional array index (row, col). */
  const screen = (vs, row, col) => {
    const y = vs.flip ? vs.H - row - 0.5 : row + 0.5;
    return [(col + 0.5 - vs.cx) * vs.z + vs.cw / 2, (y - vs.cy) * vs.z + vs.ch / 2];
  };

  /** The overlay's strongest pixel (alpha, then RGB) within r CSS px of each point. */
  function overlayAt(points, r) {
    return s.page.evaluate(
      ([pts, r]) => {
        const c = document.querySelector("canvas.map-overlay");
        const g = c.getContext("2d");
        const dpr = window.devicePixelRatio || 1;
        return pts.map(([x, y]) => {
          const x0 = Math.floor((x - r) * dpr);
          const y0 = Math.floor((y - r) * dpr);
          const n = Math.ceil(2 * r * dpr) + 1;
          const d = g.getImageData(x0, y0, n, n).data;
          let best = [0, 0, 0, 0];
          for (let k = 0; k < d.length; k += 4) if (d[k + 3] > best[3]) best = [d[k], d[k + 1], d[k + 2], d[k + 3]];
          return best;
        });
      },
      [points, r],
    );
  }

  /** Coast points the script computed: nearly all on a coastline pixel (white, nearly opaque); open ocean bare. */
  async function checkCoast(p, vs) {
    const w = want[p];
    const coast = await overlayAt(w.coast.map(([, , r, c]) => screen(vs, r, c)), 1.5);
    const missed = w.coast.filter((_, k) => !(coast[k][3] >= 150 && Math.min(...coast[k].slice(0, 3)) >= 200));
    assert.ok(w.coast.length >= 100, `${p}: ${w.coast.length} coast points`);
    assert.ok(missed.length <= w.coast.length * 0.03, `${p}: ${missed.length} of ${w.coast.length} coast points have no coastline drawn, e.g. ${JSON.stringify(missed.slice(0, 5))}`);
    const ocean = await overlayAt(w.ocean.map(([, , r, c]) => screen(vs, r, c)), 3);
    w.ocean.forEach(([lon, lat], k) => assert.ok(ocean[k][3] < 20, `${p}: open ocean at ${lon}°, ${lat}° has a line drawn over it (alpha ${ocean[k][3]})`));
  }

  test("0–360° longitudes, latitudes rising from the south: coast, labels, row 0 at the bottom, dates, colour bar", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { vs, map } = await openMap("era/t2m");
    assert.equal(map.kind, "latlon");
    assert.equal(vs.flip, true, "rising latitudes put row 0 at the bottom");
    assert.equal(await s.page.isChecked("#flip"), true);
    await checkCoast("era/t2m", vs);

    // Labels: each parallel's at its latitude's row, each meridian's at its longitude's column.
    const lat = want["era/t2m"].lat;
    const texts = map.labels.map((l) => l.text);
    for (const t of ["60°N", "30°N", "0°", "30°S", "60°S", "30°E", "90°E", "180°", "90°W", "30°W"]) assert.ok(texts.includes(t), `label ${t} among ${texts}`);
    for (const l of map.labels) {
      if (l.axis === "lat") {
        const row = (l.value - lat[0]) / (lat[1] - lat[0]);
        assert.ok(Math.abs(screen(vs, row, 0)[1] - l.y) <= 1.5, `label ${l.text} at y ${l.y}, latitude ${l.value} at ${screen(vs, row, 0)[1]}`);
      } else {
        const col = (((l.value % 360) + 360) % 360) / 2;
        assert.ok(Math.abs(screen(vs, 0, col)[0] - l.x) <= 1.5, `label ${l.text} at x ${l.x}, longitude ${l.value} at ${screen(vs, 0, col)[0]}`);
      }
    }

    // North up: the data's top rows are the northern ones (value 250 + 0.4 lat + 2 t).
    const d = await s.page.evaluate(() => window.zarrDemo.display);
    const rows = [[90, 80], [80, 10], [45, 100], [2, 170]];
    const got = await s.pixels(rows.map(([r, c]) => screen(vs, r, c)));
    rows.forEach(([r, c], k) => close(got[k], viridisAt((250 + 0.4 * lat[r] - d.lo) / (d.hi - d.lo)), 3, `t2m[0, ${r}, ${c}] (latitude ${lat[r]})`));
    assert.ok(screen(vs, 90, 0)[1] < screen(vs, 0, 0)[1], "latitude 90 above latitude -90");

    // The colour bar: long_name, units and the limits.
    const bar = await s.page.evaluate(() => window.zarrDemo.colorbar);
    assert.equal(bar.title, "2 metre temperature (K)");
    assert.ok(Math.abs(Number(bar.lo) - d.lo) < 1e-3 * Math.abs(d.lo) && Math.abs(Number(bar.hi) - d.hi) < 1e-3 * Math.abs(d.hi), `colour bar ${bar.lo}–${bar.hi}, limits ${d.lo}–${d.hi}`);

    // Dates (cftime, noleap) on the slider, each step.
    const dates = want["era/t2m"].dates;
    const sliderText = () => s.page.$eval("[data-val]", (e) => e.textContent);
    assert.match(await sliderText(), new RegExp(`· ${dates[0]}$`));
    for (let k = 1; k < dates.length; k++) {
      await s.rendered(() => s.page.click("button.step[title^='next']"));
      assert.match(await sliderText(), new RegExp(`^${k} / 3 · ${dates[k]}$`));
    }
  });

  test("only _ARRAY_DIMENSIONS names lat and lon, latitudes falling, −180–180°", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { vs, map } = await openMap("plain/sst");
    assert.equal(map.kind, "latlon");
    assert.equal(vs.flip, false, "falling latitudes keep row 0 at the top");
    await checkCoast("plain/sst", vs);
    const bar = await s.page.evaluate(() => window.zarrDemo.colorbar);
    assert.equal(bar.title, "sst", "no long_name or units: the array's name");
  });

  test("a polar stereographic grid (CF grid_mapping): the coast reprojected, as pyproj places it", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { vs, map } = await openMap("polar/ice");
    assert.deepEqual([map.kind, map.crsSource], ["projected", "grid_mapping polar_stereographic"]);
    await checkCoast("polar/ice", vs);
    assert.ok(map.labels.some((l) => /°N$/.test(l.text)) && map.labels.some((l) => /°[EW]$/.test(l.text)), `degree labels: ${map.labels.map((l) => l.text)}`);
    const bar = await s.page.evaluate(() => window.zarrDemo.colorbar);
    assert.equal(bar.title, "sea ice area fraction (1)");
  });

  test("the same grid described by GeoZarr (proj:code, spatial:transform, no coordinate arrays)", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const { vs, map } = await openMap("geozarr/ice");
    assert.deepEqual([map.kind, map.crsSource], ["projected", "proj:code EPSG:3413"]);
    await checkCoast("geozarr/ice", vs);
  });

  test("zoomed in, the 1:50m coast replaces the 1:110m one", async (t) => {
    if (skipReason) return t.skip(skipReason);
    await openMap("era/t2m");
    // Zoom until less than 60° of longitude is in view (2° a column).
    for (let k = 0; k < 12; k++) {
      const vs = await s.page.evaluate(() => window.zarrDemo.viewState);
      if ((vs.cw / vs.z) * 2 < 50) break;
      await s.rendered(() => s.page.keyboard.press("+"));
    }
    await s.page.waitForFunction(() => window.zarrDemo.map?.coast === "50m", null, { timeout: 30_000 });
    const map = await s.page.evaluate(() => window.zarrDemo.map);
    assert.ok(map.step < 30, `a finer graticule zoomed in (${map.step}°)`);
    assert.deepEqual(s.errors, []);
  });
});
