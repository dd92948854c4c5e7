// Large metadata in WebAssembly beside native Go: opening a group whose
// consolidated .zmetadata is 200 MB, and parsing a kerchunk reference set
// of 10^6 references (then listing it), from the same files
// (tests/bench/bigmeta writes them). Prints wall and CPU seconds of this
// process (median of RUNS; on a busy machine wall time is mostly waiting
// for a core, CPU time is what the work costs), the same for native Go
// (tests/bench/bigmeta/cmd -time), and the ratio of CPU times.
//
//   node tests/bench/metadata.mjs          (part of make bench-js)
//   RUNS=5 node tests/bench/metadata.mjs
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "../../npm/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const RUNS = Number(process.env.RUNS ?? 3);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function timed(fn) {
  const walls = [];
  const cpus = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    walls.push((performance.now() - t0) / 1000);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1e6);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-bigmeta-"));
try {
  execFileSync("go", ["run", "./tests/bench/bigmeta/cmd", "-out", dir], { cwd: root, stdio: "inherit" });
  const zmeta = new Uint8Array(await fs.readFile(path.join(dir, "zmetadata", ".zmetadata")));
  const refsJSON = new Uint8Array(await fs.readFile(path.join(dir, "refs.json")));
  await zarr.init();

  const consolidated = await timed(async () => {
    const store = new zarr.MemoryStore({ "/.zmetadata": zmeta, "/.zgroup": new TextEncoder().encode('{"zarr_format": 2}') });
    const g = await zarr.open(store, { kind: "group" });
    if (!g.consolidated) throw new Error("not read through .zmetadata");
    await g.open("group_3/var_7", { kind: "array" });
  });
  let listed = [];
  const kerchunk = await timed(async () => {
    const rs = await zarr.ReferenceStore.fromJSON(refsJSON, { baseUrl: "https://host/refs.json" });
    await rs.get("/data/.zarray");
    const t0 = performance.now();
    const names = await rs.list("/");
    listed.push((performance.now() - t0) / 1000);
    if (names.length !== 2) throw new Error(`listed ${names}`);
  });

  // native Go on the same documents, timed the same way
  const native = JSON.parse(
    execFileSync("go", ["run", "./tests/bench/bigmeta/cmd", "-out", dir, "-time", "-runs", String(RUNS)], { cwd: root, encoding: "utf8" }),
  );
  const rows = [
    [`open a group with a ${(zmeta.length / 1e6).toFixed(0)} MB .zmetadata`, consolidated, native.consolidated],
    [`parse ${(refsJSON.length / 1e6).toFixed(0)} MB of kerchunk JSON (10^6 references) and list it`, kerchunk, native.kerchunk],
  ];
  console.log("| task | WebAssembly in Node: wall s | CPU s | native Go: wall s | CPU s | WebAssembly / native (CPU) |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const [what, w, n] of rows) {
    console.log(`| ${what} | ${w.wall.toFixed(2)} | ${w.cpu.toFixed(2)} | ${n.wall.toFixed(2)} | ${n.cpu.toFixed(2)} | ${(w.cpu / n.cpu).toFixed(1)} |`);
  }
  console.log(`(of which listing the 10^6 keys the first time: ${median(listed).toFixed(2)} s)`);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
