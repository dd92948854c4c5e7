// This checkout's package against another build of it (a checkout of an
// earlier commit, built with `make wasm`), on the read benchmark's arrays,
// interleaved in one process so both see the same machine: each read by the
// other build, by this one as a program gets it (decode workers on where
// there are 2 cores or more) and by this one on the calling thread alone,
// each in turn first. Prints medians (ms) and the ratios.
//
//   node tests/bench/compare.mjs ../old-checkout/npm        (RUNS=9, READ_CODECS=zstd,raw)
import * as path from "node:path";
import * as os from "node:os";
import { pathToFileURL } from "node:url";
import * as zarr from "../../npm/index.js";
import { zarrita } from "../../npm/dev/deps.mjs";
import { codecs, readSpecs, setupReads, median } from "./reads.mjs";

const otherDir = process.argv[2];
if (!otherDir) {
  console.error("usage: node tests/bench/compare.mjs <npm directory of the other build>");
  process.exit(2);
}
const other = await import(pathToFileURL(path.resolve(otherDir, "index.js")).href);
const RUNS = Number(process.env.RUNS ?? 7);
const only = process.env.READ_CODECS ? process.env.READ_CODECS.split(",") : codecs.map(([n]) => n);

const store = new zarr.MemoryStore();
await setupReads(zarr, zarrita, store, only);
const reads = readSpecs(zarr, zarrita);
const jobs = [];
for (const name of only) {
  const ours = await zarr.open(store, { path: name, kind: "array" });
  const theirs = await other.open(store, { path: name, kind: "array" });
  for (const [label, sel] of reads) {
    jobs.push({
      name,
      label,
      fns: [
        ["other", () => theirs.get(sel)],
        ["this", () => ours.get(sel)],
        ["this, one thread", () => ours.get(sel, { workers: false })],
      ],
      t: [[], [], []],
    });
  }
}
// Both builds must read the same values.
for (const j of jobs) {
  const [a, b] = await Promise.all([j.fns[0][1](), j.fns[1][1]()]);
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  if (x.length !== y.length || !x.every((v, i) => v === y[i])) throw new Error(`${j.name} ${j.label}: the builds read different values`);
}
for (let r = -2; r < RUNS; r++) {
  for (const j of jobs) {
    for (let i = 0; i < 3; i++) {
      const k = (r + 3 + i) % 3;
      const t0 = performance.now();
      await j.fns[k][1]();
      if (r >= 0) j.t[k].push(performance.now() - t0);
    }
  }
  process.stderr.write(".");
}
process.stderr.write("\n");
const f = (x, d = 1) => x.toFixed(d);
console.log(`this checkout against ${otherDir}: medians of ${RUNS} interleaved rounds (ms), Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log("");
console.log("| codec | read | other | this | this, one thread | other / this | other / this, one thread |");
console.log("|---|---|---:|---:|---:|---:|---:|");
const ratios = [[], []];
for (const j of jobs) {
  const [o, t, t1] = j.t.map(median);
  const r = j.t[0].map((x, i) => x / j.t[1][i]);
  const r1 = j.t[0].map((x, i) => x / j.t[2][i]);
  ratios[0].push(median(r));
  ratios[1].push(median(r1));
  console.log(`| ${j.name} | ${j.label} | ${f(o)} | ${f(t)} | ${f(t1)} | ${f(median(r), 2)} | ${f(median(r1), 2)} |`);
}
const geo = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
console.log("");
console.log(`geometric mean of other / this: ${f(geo(ratios[0]), 2)}; on one thread: ${f(geo(ratios[1]), 2)} (above 1: this checkout is faster)`);
process.exit(0);
