// The read benchmark, shared by Node (bench.mjs) and Chromium (chromium.mjs
// runs it in a page, reads.html): the same 4096×4096 float32 array in
// 256×256 chunks (raw, blosc-lz4, blosc-zstd, zstd, blosc-zlib, zlib, and v3
// zstd in 1024×1024 shards) and a 4096×4096 uint16 image (zstd), read from
// one in-memory store by zarr-wasm and by zarrita.js alternately: the whole
// array, a 1000×1000 window and a [::4, ::4] stride, and for some codecs
// the window again with caches. zarr-wasm is timed as a program gets it
// (its decode workers on, by default where there are 2 cores or more) and
// on the calling thread alone (get(sel, {workers: false})), zarrita.js as
// it comes (one thread). No Node APIs here.

export const N = 4096;
export const C = 256;

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// A smooth field plus a little noise, quantised to 1/16 (compresses like real data).
export function makeData() {
  const data = new Float32Array(N * N);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      const v = 100 * Math.sin(i / 300) * Math.cos(j / 200) + 20 * Math.sin((i + j) / 50) + (rnd() - 0.5) * 4;
      data[i * N + j] = Math.round(v * 16) / 16;
    }
  }
  return data;
}

export const codecs = [
  ["raw", { compressor: null }],
  ["blosc-lz4", { compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 } }],
  ["blosc-zstd", { compressor: { id: "blosc", cname: "zstd", clevel: 5, shuffle: 1, blocksize: 0 } }],
  ["zstd", { compressor: { id: "zstd", level: 3 } }],
  ["blosc-zlib", { compressor: { id: "blosc", cname: "zlib", clevel: 5, shuffle: 1, blocksize: 0 } }],
  ["zlib", { compressor: { id: "zlib", level: 1 } }],
  // Zarr v3 as zarr-python 3 writes it by default, in 1024×1024 shards.
  ["v3 sharded zstd", { zarrFormat: 3, shardShape: [1024, 1024], codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3 } }] }],
  // A 16-bit image (microscopy-like: blobs on a dark background, noise), zstd.
  ["uint16 image zstd", { dtype: "<u2", compressor: { id: "zstd", level: 3 } }],
];

// The 15 cells the geometric mean is over.
export const meanCodecs = ["raw", "blosc-lz4", "blosc-zstd", "zstd", "zlib"];

export function makeImage() {
  const img = new Uint16Array(N * N);
  let seed = 777;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const blobs = Array.from({ length: 300 }, () => [rnd() * N, rnd() * N, 10 + rnd() * 40, 500 + rnd() * 3000]);
  for (const [y, x, r, v] of blobs) {
    for (let i = Math.max(0, Math.floor(y - 3 * r)); i < Math.min(N, y + 3 * r); i++) {
      for (let j = Math.max(0, Math.floor(x - 3 * r)); j < Math.min(N, x + 3 * r); j++) {
        img[i * N + j] += v * Math.exp(-((i - y) ** 2 + (j - x) ** 2) / (2 * r * r));
      }
    }
  }
  for (let k = 0; k < img.length; k++) img[k] = Math.min(65535, img[k] + 100 + Math.floor(rnd() * 20));
  return img;
}

// Codecs whose repeated window read is also timed with caches on.
export const cachedCodecs = ["blosc-lz4", "zstd", "v3 sharded zstd"];

/** The three reads: [label, zarr-wasm selection, zarrita selection, float32 output bytes]. */
export function readSpecs(zarr, zarrita) {
  return [
    ["whole array", null, [null, null], N * N * 4],
    ["1000×1000 window", [zarr.slice(1500, 2500), zarr.slice(1200, 2200)], [zarrita.slice(1500, 2500), zarrita.slice(1200, 2200)], 1000 * 1000 * 4],
    ["[::4, ::4]", [zarr.slice(null, null, 4), zarr.slice(null, null, 4)], [zarrita.slice(null, null, 4), zarrita.slice(null, null, 4)], (N / 4) * (N / 4) * 4],
  ];
}

/**
 * Writes every array into store (a zarr-wasm MemoryStore), checks that
 * both libraries read the same values, opens everything and returns the
 * timed reads: {data, image, stored (bytes per codec), jobs}.
 */
export async function setupReads(zarr, zarrita, store, only = null) {
  const data = makeData();
  const image = makeImage();
  const stored = {};
  const chosen = codecs.filter(([name]) => !only || only.includes(name));
  for (const [name, opts] of chosen) {
    const arr = await zarr.create(store, { path: name, shape: [N, N], chunks: [C, C], dtype: "<f4", zarrFormat: 2, ...opts });
    await arr.set(null, { data: opts.dtype === "<u2" ? image : data, shape: [N, N] });
    let bytes = 0;
    for (const [k, v] of store.map) if (k.startsWith(`/${name}/`) && !k.endsWith(".zarray") && !k.endsWith("zarr.json")) bytes += v.length;
    stored[name] = bytes;
  }
  // Both libraries must agree before anything is timed.
  for (const [name] of chosen) {
    const ours = await (await zarr.open(store, { path: name, kind: "array" })).get([zarr.slice(0, 300), zarr.slice(0, 300)]);
    const theirs = await zarrita.get(await zarrita.open(zarrita.root(store).resolve(name), { kind: "array" }), [zarrita.slice(0, 300), zarrita.slice(0, 300)]);
    for (let i = 0; i < ours.data.length; i++) {
      if (!Object.is(ours.data[i], theirs.data[i])) throw new Error(`${name}: element ${i} differs`);
    }
  }
  const reads = readSpecs(zarr, zarrita);
  const jobs = [];
  for (const [name] of chosen) {
    const ours = await zarr.open(store, { path: name, kind: "array" });
    const theirs = await zarrita.open(zarrita.root(store).resolve(name), { kind: "array" });
    const itemSize = ours.dtype === "uint16" ? 2 : 4;
    for (const [label, selW, selZ, outBytes] of reads) {
      jobs.push({ codec: name, read: label, outBytes: (outBytes / 4) * itemSize, wasm: () => ours.get(selW), wasm1: () => ours.get(selW, { workers: false }), zarrita: () => zarrita.get(theirs, selZ), tw: [], t1: [], tz: [] });
    }
    // The same window read again and again with a cache: zarr-wasm's
    // decoded-chunk cache (recheck false: no store request; recheck true:
    // each chunk confirmed with the store, which answers "not modified")
    // beside zarrita.js with withByteCaching (it keeps the stored bytes and
    // decodes them again).
    if (cachedCodecs.includes(name)) {
      const [, selW, selZ, outBytes] = reads[1];
      const cachedZ = await zarrita.open(zarrita.root(zarrita.withByteCaching(store)).resolve(name), { kind: "array" });
      for (const recheck of [false, true]) {
        const cachedW = await zarr.open(store, { path: name, kind: "array", cacheBytes: 256 << 20, recheck });
        jobs.push({ codec: name, read: `1000×1000 window again, cached (recheck ${recheck})`, outBytes, wasm: () => cachedW.get(selW), zarrita: () => zarrita.get(cachedZ, selZ), tw: [], tz: [] });
      }
    }
  }
  return { data, image, stored, jobs };
}

/** A round times a read shorter than this (ms) several times, in pairs. */
export const pairTargetMs = 250;
/** At most this many pairs per read and round. */
export const maxPairs = 8;

/** Pairs per round for a read of t ms: 1 from pairTargetMs on, else an even number up to maxPairs. */
export function pairsFor(t) {
  if (!(t > 0) || t >= pairTargetMs) return 1;
  return Math.min(maxPairs, 2 * Math.ceil(pairTargetMs / t / 2));
}

/**
 * Warms up every read of both libraries twice (V8 tiers the module up while
 * it runs), then times them interleaved — zarr-wasm and zarrita.js
 * alternately, in alternating order — so both see the same machine load.
 * A read that took less than pairTargetMs in a warm-up (the slower
 * library's time, the quicker of the two warm-ups) is timed in several
 * pairs each round (pairsFor: an even number, so each library goes first
 * in half of them): a few-ms read's median then rests on tens of samples
 * instead of `runs`, and the garbage the previous read left (a 64 MB
 * whole-array result) is collected in the first pair rather than in one
 * library's sample of a few.
 */
export async function timeReads(jobs, runs, tick = () => {}) {
  const warm = new Map();
  for (let w = 0; w < 2; w++) {
    for (const j of jobs) {
      const t0 = performance.now();
      await j.wasm();
      const t1 = performance.now();
      await j.zarrita();
      const t = Math.max(t1 - t0, performance.now() - t1);
      warm.set(j, Math.min(t, warm.get(j) ?? t));
      if (j.wasm1) await j.wasm1();
    }
  }
  for (const j of jobs) j.pairs = pairsFor(warm.get(j));
  const timed = async (fn, into) => {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  };
  for (let r = 0; r < runs; r++) {
    for (const j of jobs) {
      // (each in turn first: zarr-wasm, zarrita.js, zarr-wasm on one thread)
      const order = [
        [j.wasm, j.tw],
        [j.zarrita, j.tz],
      ];
      if (j.wasm1) order.push([j.wasm1, j.t1]);
      for (let p = 0; p < (j.pairs ?? 1); p++) {
        const k = (r + p) % order.length;
        for (let i = 0; i < order.length; i++) await timed(...order[(k + i) % order.length]);
      }
    }
    tick();
  }
}

/** The medians: {codec, read, wasmMs, oneMs, zarritaMs, wasm, one, zarrita} (MB/s; one: zarr-wasm on one thread, when timed). */
export function readRows(jobs) {
  return jobs.map((j) => {
    const tw = median(j.tw);
    const tz = median(j.tz);
    const t1 = j.t1?.length ? median(j.t1) : NaN;
    const mbs = (ms) => j.outBytes / 1e6 / (ms / 1000);
    return { codec: j.codec, read: j.read, wasmMs: tw, oneMs: t1, zarritaMs: tz, wasm: mbs(tw), one: mbs(t1), zarrita: mbs(tz) };
  });
}

const f = (x, d = 0) => x.toFixed(d);

/** The read table (markdown lines). */
export function readTable(rows, stored) {
  const lines = [
    "| codec (stored MB) | read | zarr-wasm MB/s | zarr-wasm, one thread MB/s | zarrita.js MB/s | ratio | ratio, one thread |",
    "|---|---|---:|---:|---:|---:|---:|",
  ];
  const one = (r) => (Number.isFinite(r.oneMs) ? `${f(r.one)} (${f(r.oneMs, 1)} ms)` : "—");
  for (const r of rows) {
    lines.push(`| ${r.codec} (${f(stored[r.codec] / 1e6, 1)}) | ${r.read} | ${f(r.wasm)} (${f(r.wasmMs, 1)} ms) | ${one(r)} | ${f(r.zarrita)} (${f(r.zarritaMs, 1)} ms) | ${f(r.wasm / r.zarrita, 2)} | ${Number.isFinite(r.oneMs) ? f(r.one / r.zarrita, 2) : "—"} |`);
  }
  return lines;
}

/** The geometric mean over the 15 cells, the lowest cell, the strided range. */
export function readSummary(rows) {
  const cells = rows.filter((r) => meanCodecs.includes(r.codec) && !r.read.includes("cached"));
  if (!cells.length) return "(no cells of the geometric mean were read)";
  const ratio = (r) => r.wasm / r.zarrita;
  const geomean = Math.exp(cells.reduce((a, r) => a + Math.log(ratio(r)), 0) / cells.length);
  const worst = cells.reduce((a, r) => (ratio(r) < ratio(a) ? r : a));
  const plain = rows.filter((r) => !r.read.includes("cached"));
  const below = plain.filter((r) => ratio(r) < 1).map((r) => `${r.codec} ${r.read} ${f(ratio(r), 2)}`);
  const strided = plain.filter((r) => r.read === "[::4, ::4]").map(ratio);
  const oneCells = cells.filter((r) => Number.isFinite(r.oneMs));
  const oneRatio = (r) => r.one / r.zarrita;
  const oneMean = oneCells.length ? Math.exp(oneCells.reduce((a, r) => a + Math.log(oneRatio(r)), 0) / oneCells.length) : NaN;
  const oneWorst = oneCells.length ? oneCells.reduce((a, r) => (oneRatio(r) < oneRatio(a) ? r : a)) : null;
  return (
    `geometric mean of the ratios over the ${cells.length} cells of ${meanCodecs.join(", ")}: ${f(geomean, 2)}; lowest ${f(ratio(worst), 2)} (${worst.codec}, ${worst.read}); ` +
    `below 1.0: ${below.length ? below.join(", ") : "none"}; strided ${f(Math.min(...strided), 2)}–${f(Math.max(...strided), 2)}` +
    (oneWorst ? `; on one thread: geometric mean ${f(oneMean, 2)}, lowest ${f(oneRatio(oneWorst), 2)} (${oneWorst.codec}, ${oneWorst.read})` : "")
  );
}
