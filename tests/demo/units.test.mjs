// The viewer's pure modules (no DOM) in Node: statistics and OME-Zarr
// metadata. Expected values come from direct computations here (a full
// sort for the percentiles), not from the modules under test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { summarize } from "../../web/demo/js/stats.js";

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
