// The startup and download sections alone (`make bench-startup`): a fresh
// Node process and a fresh Chromium page import, start, open a zstd array
// and read one element, beside zarrita.js; and the download before a first
// read. (`make bench` runs the same sections after the reads.)
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { startup, browserStartup, download, writeToDisk } from "./sections.mjs";

const runs = Number(process.env.RUNS ?? 7);
const N = 4096, C = 256;
const data = new Float32Array(N * N);
for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) data[i * N + j] = Math.round((Math.sin(i / 300) * Math.cos(j / 200) + ((i * 7 + j * 13) % 17) / 64) * 16) / 16;
const dir = await writeToDisk(data, N, C, [["zstd", { compressor: { id: "zstd", level: 3 } }]]);
const loadBefore = os.loadavg().map((x) => x.toFixed(1)).join(" ");
try {
  for (const section of [() => startup(dir, runs), () => browserStartup(dir, runs), download]) {
    const lines = await section().catch((e) => [`section failed: ${e?.stack ?? e}`]);
    for (const l of lines) console.log(l);
    console.log("");
  }
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
console.log(`Node ${process.version}; machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average (1, 5, 15 min) before ${loadBefore}, at the end ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
