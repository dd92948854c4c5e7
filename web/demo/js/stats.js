// Statistics of the data in view: count, NaNs, min, max, the 1st and 99th
// percentiles (nearest rank: sorted[round(p·(n-1))]) and a histogram, in
// linear time. Sorting a million values on every slider step took most of
// the step's time; the ranks are found by counting instead: a fine
// histogram narrows each rank to one bin, which is often a single value
// (its min equals its max); otherwise only that bin's values are sorted.

const FINE = 4096; // bins that narrow a rank
const SMALL = 1 << 16; // at most this many values: just sort them

/** Count, NaNs (and infinities), min and max of every step-th value of each array. */
function finiteRange(arrays, step) {
  let m = 0;
  let nan = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i += step) {
      const x = a[i];
      if (x - x !== 0) {
        nan++; // NaN or ±Infinity
        continue;
      }
      m++;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  }
  return { m, nan, min, max };
}

/**
 * Values of the given ranks (0-based, ascending) among the finite values
 * (every step-th of each array), which lie in [min, max]: {values, bins},
 * bins the coarse histogram ({nbins, w}: bin floor((x-min)/w)) when asked.
 */
function valuesOfRanks(arrays, step, ranks, min, max, coarse = null) {
  // The coarse histogram (summarize's) is counted in the same pass.
  const bins = new Uint32Array(coarse?.nbins ?? 0);
  if (!(max > min)) {
    if (coarse) for (const a of arrays) for (let i = 0; i < a.length; i += step) if (a[i] - a[i] === 0) bins[0]++;
    return { values: ranks.map(() => min), bins };
  }
  const nb = bins.length;
  const w = coarse?.w ?? 1;
  if (!ranks.length) {
    for (const a of arrays) {
      for (let i = 0; i < a.length; i += step) {
        const x = a[i];
        if (x - x !== 0) continue;
        const c = Math.floor((x - min) / w);
        bins[c >= nb ? nb - 1 : c]++;
      }
    }
    return { values: [], bins };
  }
  const scale = FINE / (max - min);
  const counts = new Uint32Array(FINE);
  const lo = new Float64Array(FINE).fill(Infinity);
  const hi = new Float64Array(FINE).fill(-Infinity);
  for (const a of arrays) {
    for (let i = 0; i < a.length; i += step) {
      const x = a[i];
      if (x - x !== 0) continue;
      let b = Math.floor((x - min) * scale);
      if (b >= FINE) b = FINE - 1;
      counts[b]++;
      if (x < lo[b]) lo[b] = x;
      if (x > hi[b]) hi[b] = x;
      if (nb) {
        const c = Math.floor((x - min) / w);
        bins[c >= nb ? nb - 1 : c]++;
      }
    }
  }
  // The bin of each rank, and the rank within it.
  const want = ranks.map((k) => {
    let bin = 0;
    let before = 0;
    while (before + counts[bin] <= k) before += counts[bin++];
    return { bin, k: k - before };
  });
  const out = new Array(ranks.length);
  const open = [];
  want.forEach((w, i) => {
    if (lo[w.bin] === hi[w.bin]) out[i] = lo[w.bin];
    else open.push(i);
  });
  for (const i of open) {
    const { bin, k } = want[i];
    const vals = new Float64Array(counts[bin]);
    let n = 0;
    for (const a of arrays) {
      for (let j = 0; j < a.length; j += step) {
        const x = a[j];
        if (x - x !== 0) continue;
        let b = Math.floor((x - min) * scale);
        if (b >= FINE) b = FINE - 1;
        if (b === bin) vals[n++] = x;
      }
    }
    out[i] = vals.length <= SMALL ? vals.sort()[k] : valuesOfRanks([vals], 1, [k], lo[bin], hi[bin]).values[0];
  }
  return { values: out, bins };
}

/**
 * Summarises the values of several arrays (the tiles in view), reading
 * every step-th value of each when there are more than maxSamples;
 * without ranks, p1 and p99 are left undefined (the histogram is cheaper).
 * @param {ArrayLike<number>[]} arrays
 * @returns {null | {count, nan, min, max, p1, p99, bins: Uint32Array, binWidth, sampled}}
 */
export function summarize(arrays, { maxSamples = 1_000_000, nbins = 128, ranks = true } = {}) {
  let n = 0;
  for (const a of arrays) n += a.length;
  if (n === 0) return null;
  const step = Math.max(1, Math.floor(n / maxSamples));
  const { m, nan, min, max } = finiteRange(arrays, step);
  if (m === 0) return { count: 0, nan, min: NaN, max: NaN, p1: NaN, p99: NaN, bins: new Uint32Array(0), binWidth: 1, sampled: step > 1 };
  const w = max > min ? (max - min) / nbins : 1;
  const rank = (p) => Math.min(m - 1, Math.max(0, Math.round(p * (m - 1))));
  const { values: [p1, p99], bins } = valuesOfRanks(arrays, step, ranks ? [rank(0.01), rank(0.99)] : [], min, max, { nbins, w });
  return { count: m, nan, min, max, p1, p99, bins, binWidth: w, sampled: step > 1 };
}
