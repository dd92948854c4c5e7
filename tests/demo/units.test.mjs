// The viewer's pure modules (no DOM) in Node: statistics and OME-Zarr
// metadata. Expected values come from direct computations here (a full
// sort for the percentiles), not from the modules under test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { summarize } from "../../web/demo/js/stats.js";
import { describeImage, imageLabelOf, labelColor, labelNames, multiscalesOf, niceLength, plateOf, unitInfo, wellOf } from "../../web/demo/js/ome.js";

/** A deterministic generator (xorshift32). */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

function byRank(values, p) {
  const s = Float64Array.from(values.filter((x) => Number.isFinite(x))).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
}

test("summarize: the 1st and 99th percentiles are the nearest-rank values of a full sort", () => {
  const r = rng(7);
  const cases = {
    "uniform floats": Array.from({ length: 200_000 }, () => r() * 1000 - 500),
    "uint16 with ties": Array.from({ length: 300_000 }, () => Math.floor(r() ** 3 * 65536)),
    "mostly one value": Array.from({ length: 100_000 }, (_, i) => (i % 1000 === 0 ? r() : 42)),
    "heavy tail": Array.from({ length: 50_000 }, () => Math.exp(r() * 40)),
    "with NaN and Inf": Array.from({ length: 20_000 }, (_, i) => (i % 7 === 0 ? NaN : i % 11 === 0 ? Infinity : r())),
    "tiny values apart": Array.from({ length: 70_000 }, () => 1 + Math.floor(r() * 5) * Number.EPSILON),
    "clustered, one far outlier": Array.from({ length: 200_000 }, (_, i) => (i === 777 ? 1e9 : r())),
    "few": [3, 1, 2],
  };
  for (const [name, v] of Object.entries(cases)) {
    const tiles = [Float64Array.from(v.slice(0, v.length >> 1)), Float64Array.from(v.slice(v.length >> 1))];
    const st = summarize(tiles);
    const finite = v.filter((x) => Number.isFinite(x));
    assert.equal(st.count, finite.length, name);
    assert.equal(st.nan, v.length - finite.length, name);
    assert.equal(st.min, finite.reduce((a, b) => Math.min(a, b)), name);
    assert.equal(st.max, finite.reduce((a, b) => Math.max(a, b)), name);
    assert.equal(st.p1, byRank(v, 0.01), `${name}: p1`);
    assert.equal(st.p99, byRank(v, 0.99), `${name}: p99`);
    assert.equal(st.bins.reduce((a, b) => a + b, 0), finite.length, `${name}: histogram counts`);
  }
});

test("summarize: over a million values, every step-th value of each array", () => {
  const a = Float64Array.from({ length: 1_500_000 }, (_, i) => (i * 7919) % 10007);
  const st = summarize([a]);
  assert.equal(st.sampled, false);
  assert.equal(st.count, a.length);
  const b = Float64Array.from({ length: 2_500_000 }, (_, i) => (i * 7919) % 10007);
  const st2 = summarize([b]);
  const kept2 = Array.from(b).filter((_, i) => i % 2 === 0);
  assert.equal(st2.sampled, true);
  assert.equal(st2.count, kept2.length);
  assert.equal(st2.p99, byRank(kept2, 0.99));
  assert.equal(summarize([]), null);
  assert.equal(summarize([new Float64Array([NaN])]).count, 0);
});

// ---- OME-Zarr metadata ---------------------------------------------------

const ngff = async (name) => JSON.parse(await readFile(new URL(`./ngff/${name}`, import.meta.url), "utf8"));

test("describeImage: axes, units, scale and translation, omero channels and defaults (NGFF 0.4 example)", async () => {
  const attrs = await ngff("image_omero.json");
  const ms = multiscalesOf({ attrs });
  const im = describeImage(attrs, ms, [1, 2, 5, 100, 100]);
  assert.deepEqual(im.axes.map((a) => a.name), ["t", "c", "z", "y", "x"]);
  assert.deepEqual(im.axes.map((a) => a.unit), [undefined, undefined, "micrometer", "micrometer", "micrometer"]);
  assert.deepEqual(im.scale, [1, 1, 0.5, 0.13, 0.13]);
  assert.deepEqual(im.translation, [0, 9, 0.5, 25.74, 21.58]);
  assert.equal(im.channelAxis, 1);
  assert.deepEqual(im.channels.map((c) => [c.label, c.color, c.window.start, c.window.end]), [
    ["FITC", [0, 255, 0], 82, 813],
    ["RD-TR-PE", [255, 0, 0], 78, 815],
  ]);
  assert.deepEqual([im.defaultT, im.defaultZ, im.version, im.name], [0, 2, "0.4", "image_with_omero_metadata"]);
});

test("describeImage: the multiscale's own transform applies after the dataset's", async () => {
  const attrs = await ngff("multiscales_transformations.json");
  const im = describeImage(attrs, multiscalesOf({ attrs }), [64, 64]);
  assert.deepEqual(im.scale, [10, 10]);
  assert.equal(im.translation, null);
  assert.equal(im.channelAxis, -1);
  assert.deepEqual(im.channels.map((c) => c.color), [[255, 255, 255]], "one channel without omero: white");
  // Translations: dataset (i·s0 + t0), then the multiscale's (·s1 + t1).
  const both = { multiscales: [{ axes: ["y", "x"], datasets: [{ path: "0", coordinateTransformations: [{ type: "scale", scale: [2, 3] }, { type: "translation", translation: [1, 1] }] }], coordinateTransformations: [{ type: "scale", scale: [10, 10] }, { type: "translation", translation: [5, 7] }] }] };
  const im2 = describeImage(both, multiscalesOf({ attrs: both }), [4, 4]);
  assert.deepEqual(im2.scale, [20, 30]);
  assert.deepEqual(im2.translation, [15, 17]);
});

test("NGFF 0.5 keeps everything under \"ome\"; 0.3's axes are names", () => {
  const attrs = {
    ome: {
      version: "0.5",
      multiscales: [{ axes: [{ name: "c", type: "channel" }, { name: "y", type: "space", unit: "nanometer" }, { name: "x", type: "space", unit: "nanometer" }], datasets: [{ path: "s0", coordinateTransformations: [{ type: "scale", scale: [1, 40, 40] }] }] }],
      omero: { channels: [{ label: "DAPI" }, { label: "GFP", color: "00ff00" }, { label: "x" }], rdefs: { defaultZ: 3 } },
    },
  };
  const im = describeImage(attrs, multiscalesOf({ attrs }), [3, 10, 10]);
  assert.equal(im.version, "0.5");
  assert.deepEqual(im.scale, [1, 40, 40]);
  assert.deepEqual(im.channels.map((c) => [c.label, c.color, c.colored]), [
    ["DAPI", [0, 255, 0], false],
    ["GFP", [0, 255, 0], true],
    ["x", [0, 255, 255], false],
  ]);
  assert.equal(im.defaultZ, 3);
  const old = { multiscales: [{ version: "0.3", axes: ["t", "c", "z", "y", "x"], datasets: [{ path: "0" }] }] };
  const im3 = describeImage(old, multiscalesOf({ attrs: old }), [2, 3, 4, 5, 6]);
  assert.deepEqual(im3.axes.map((a) => a.type), ["time", "channel", "space", "space", "space"]);
  assert.equal(im3.channelAxis, 1);
  assert.equal(im3.scale, null);
});

test("labels, image-label colours, plates and wells (NGFF 0.4 examples)", async () => {
  const il = imageLabelOf(await ngff("colors_properties.json"));
  assert.deepEqual([...il.colors], [[1, [255, 255, 255, 1]], [4, [0, 255, 255, 128]]]);
  assert.equal(imageLabelOf({ multiscales: [] }), null);
  assert.deepEqual(labelNames({ labels: ["cells", "nuclei", "../escape"] }), ["cells", "nuclei"]);
  assert.deepEqual(labelNames({ ome: { labels: ["a"] } }), ["a"]);
  const plate = plateOf(await ngff("plate_6wells.json"));
  assert.equal(plate.name, "test");
  assert.deepEqual(plate.rows, ["A", "B"]);
  assert.deepEqual(plate.columns, ["1", "2", "3"]);
  assert.deepEqual(plate.wells.map((w) => `${w.path}:${w.row}${w.column}`), ["A/1:A1", "A/2:A2", "A/3:A3", "B/1:B1", "B/2:B2", "B/3:B3"]);
  assert.deepEqual(wellOf(await ngff("well_2fields.json")).images, [{ path: "0", acquisition: 0 }, { path: "1", acquisition: 3 }]);
  // Distinct, opaque colours for unlisted label values.
  const seen = new Set(Array.from({ length: 50 }, (_, i) => labelColor(i + 1).join(",")));
  assert.equal(seen.size, 50);
});

test("units: symbols, and scale-bar lengths of 1, 2 or 5 × 10^k in a fitting SI prefix", () => {
  assert.deepEqual(unitInfo("micrometer"), { symbol: "µm", si: true, base: "m", factor: 1e-6 });
  assert.equal(unitInfo("millisecond").symbol, "ms");
  assert.equal(unitInfo("inch").symbol, "in");
  assert.equal(unitInfo("parsnip").symbol, "parsnip");
  const cases = [
    [37, "micrometer", 20, "20 µm"],
    [1234, "micrometer", 1000, "1 mm"],
    [0.73, "micrometer", 0.5, "500 nm"],
    [4.2, "second", 2, "2 s"],
    [0.07, "second", 0.05, "50 ms"],
    [7, "minute", 5, "5 min"],
    [3, undefined, 2, "2"],
  ];
  for (const [about, unit, value, text] of cases) {
    const n = niceLength(about, unit);
    assert.ok(Math.abs(n.value - value) < 1e-12 * value, `${about} ${unit}: ${n.value}`);
    assert.equal(n.text, text);
  }
  assert.equal(niceLength(0, "meter"), null);
});

test("summarize without ranks: the same histogram, no percentiles", () => {
  const a = Float64Array.from({ length: 100_000 }, (_, i) => Math.sin(i) * 100);
  const full = summarize([a]);
  const quick = summarize([a], { ranks: false });
  assert.deepEqual([quick.min, quick.max, quick.count, Array.from(quick.bins)], [full.min, full.max, full.count, Array.from(full.bins)]);
  assert.equal(quick.p1, undefined);
});
