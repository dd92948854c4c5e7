// Starting the engine in Node (npm/lib/runtime.js): zarr-core.wasm is read
// and compiled as the package loads, in the main thread only, and init()
// with another source drops that compilation. Each case runs in a fresh
// Node process on a copy of the package (so its files can be removed).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { execFileSync } from "node:child_process";
import { npmDir } from "./helpers.mjs";

let copy;
before(async () => {
  copy = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-startup-"));
  for (const f of ["index.js", "node.js", "package.json", "wasm_exec.js", "zarr-core.wasm", "zarr.wasm"]) await fs.copyFile(path.join(npmDir, f), path.join(copy, f));
  await fs.cp(path.join(npmDir, "lib"), path.join(copy, "lib"), { recursive: true });
});
after(async () => {
  await fs.rm(copy, { recursive: true, force: true });
});

/** Runs an ES module's code in a fresh Node process (Z: the copy's index.js); what it prints last, parsed. */
function run(code) {
  const prelude = `const Z = ${JSON.stringify(path.join(copy, "index.js"))};`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", prelude + code], { encoding: "utf8", cwd: copy });
  return JSON.parse(out.trim().split("\n").pop());
}

test("the core module compiles as the package loads: a first call after its file is gone still starts", () => {
  const code = `
    const zarr = await import(Z);
    await new Promise((r) => setTimeout(r, 1500)); // (the early compilation has finished)
    const { rename } = await import("node:fs/promises");
    const core = Z.replace("index.js", "zarr-core.wasm");
    await rename(core, core + ".away");
    try {
      await zarr.init();
    } finally {
      await rename(core + ".away", core);
    }
    const { engines } = await import(Z.replace("index.js", "lib/runtime.js"));
    console.log(JSON.stringify(engines()));`;
  assert.deepEqual(run(code), { core: true, full: false });
});

test("init(source) drops the early compilation, before or after it finished", () => {
  for (const wait of [0, 1500]) {
    const code = `
      const zarr = await import(Z);
      const { readFile } = await import("node:fs/promises");
      const full = await readFile(Z.replace("index.js", "zarr.wasm"));
      await new Promise((r) => setTimeout(r, ${wait}));
      await zarr.init(full);
      const { engines } = await import(Z.replace("index.js", "lib/runtime.js"));
      console.log(JSON.stringify(engines()));`;
    assert.deepEqual(run(code), { core: false, full: true }, `init after ${wait} ms`);
  }
});

test("a worker thread that loads the package does not read zarr-core.wasm", () => {
  // The worker loads the package, then its file is removed; an engine the
  // worker starts must then fail to read it (it was not compiled early).
  const code = `
    const { Worker } = await import("node:worker_threads");
    const worker = new Worker(\`
      (async () => {
        const { parentPort } = await import("node:worker_threads");
        const zarr = await import(\${JSON.stringify(Z)});
        parentPort.postMessage("loaded");
        await new Promise((r) => parentPort.once("message", r));
        try {
          await zarr.init();
          parentPort.postMessage("started");
        } catch (e) {
          parentPort.postMessage("failed: " + e.code);
        }
      })();\`, { eval: true });
    await new Promise((r) => worker.once("message", r));
    await new Promise((r) => setTimeout(r, 1500));
    const core = Z.replace("index.js", "zarr-core.wasm");
    const { rename } = await import("node:fs/promises");
    await rename(core, core + ".away");
    worker.postMessage("go");
    const answer = await new Promise((r) => worker.once("message", r));
    await rename(core + ".away", core);
    await worker.terminate();
    console.log(JSON.stringify(answer));`;
  assert.match(run(code), /^failed: /);
});
