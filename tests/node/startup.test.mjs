// Starting the engine in Node (npm/lib/runtime.js): zarr-core.wasm is read
// and compiled as the package loads, in the main thread only, and init()
// with another source drops that compilation; the decoders' module
// (lib/codecs.wasm) is compiled early too, and handed to workers. Each case
// runs in a fresh Node process on a copy of the package (so its files can
// be removed).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { execFileSync } from "node:child_process";
import { npmDir, repoRoot } from "./helpers.mjs";

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
    const { earlyCompilation } = await import(Z.replace("index.js", "lib/runtime.js"));
    if (!(await earlyCompilation())) throw new Error("no early compilation");
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
  assert.deepEqual(run(code), { core: true, icechunk: false, full: false });
});

test("init(source) drops the early compilation, before or after it finished", () => {
  for (const after of [false, true]) {
    const code = `
      const zarr = await import(Z);
      const { engines, earlyCompilation } = await import(Z.replace("index.js", "lib/runtime.js"));
      const { readFile } = await import("node:fs/promises");
      const full = await readFile(Z.replace("index.js", "zarr.wasm"));
      const finished = ${after} ? await earlyCompilation() : null;
      await zarr.init(full);
      console.log(JSON.stringify({ engines: engines(), finished }));`;
    assert.deepEqual(run(code), { engines: { core: false, icechunk: false, full: true }, finished: after ? true : null }, after ? "init after the early compilation" : "init before it may finish");
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
        const { earlyCompilation } = await import(\${JSON.stringify(Z.replace("index.js", "lib/runtime.js"))});
        await earlyCompilation(); // (settled: the worker's early path is over)
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

test("the engine's modules are compiled with a larger V8 tiering budget; modules compiled after them keep V8's default", () => {
  // (Node 20's V8 11.3 only: elsewhere the package leaves the flags alone.)
  if (!process.versions.v8.startsWith("11.3.")) return;
  // Opens a v2 zstd array and reads it, then runs a small module's loop
  // long enough to tier up at V8's default budget (1.8 MB of code run)
  // and not at the core module's (20 MB). Lines of --trace-wasm-compilation-times:
  // "Compiled function <module>#<index> using TurboFan, ...".
  const fixture = path.join(repoRoot, "tests", "fixtures", "v2", "data", "v2.zarr");
  const code = `
    const zarr = await import(Z);
    const { FileSystemStore } = await import(Z.replace("index.js", "node.js"));
    const a = await zarr.open(new FileSystemStore(${JSON.stringify(fixture)}), { path: "codecs/zstd_default", kind: "array" });
    await a.get(null);
    await new Promise((r) => setTimeout(r, 1000)); // (background compilations finish)
    const leb = (n) => { const o = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; o.push(b); } while (n); return o; };
    // (func (param i32) (result i32) (loop: i -= 1; br_if i) 700 nops (local.get 0)): bodysize 716
    const body = [0, 0x03, 0x40, 0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b, ...Array(700).fill(1), 0x20, 0, 0x0b];
    const sec = [1, ...leb(body.length), ...body];
    const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 10, ...leb(sec.length), ...sec]);
    new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f(200000);
    await new Promise((r) => setTimeout(r, 500));`;
  const trace = (flags, engine = "core") => {
    const start = engine === "full" ? `await (await import(Z)).init(undefined, { engine: "full" });` : "";
    const out = execFileSync(process.execPath, [...flags, "--trace-wasm-compilation-times", "--input-type=module", "-e", `const Z = ${JSON.stringify(path.join(copy, "index.js"))};` + start + code], { encoding: "utf8", cwd: copy });
    const small = out.match(/function (\S+#0) using Liftoff.*bodysize 716 /)?.[1];
    assert.ok(small, "the small module's function was compiled");
    const turbofan = [...out.matchAll(/function (\S+#\d+) using TurboFan/g)].map((m) => m[1]);
    return { small: turbofan.includes(small), others: turbofan.filter((f) => f !== small).length };
  };
  const ours = trace([]);
  // (A tiering flag given to the process: the package leaves the budget alone.)
  const given = trace(["--wasm-tiering-budget=1800000"]);
  assert.equal(ours.small, true, "a module compiled after the package started tiers up at V8's default budget");
  assert.equal(given.small, true);
  assert.ok(ours.others * 2 < given.others, `TurboFan compilations of the package's modules: ${ours.others} with the larger budget, ${given.others} without`);
  // The full build (zarr.wasm, read from its file) likewise.
  const full = trace([], "full");
  const fullGiven = trace(["--wasm-tiering-budget=1800000"], "full");
  assert.equal(full.small, true);
  assert.ok(full.others * 2 < fullGiven.others, `full build: ${full.others} TurboFan compilations with the larger budget, ${fullGiven.others} without`);
});

test("the decoders' module (lib/codecs.wasm) compiles as the package loads, and a worker can be handed it", () => {
  // Main thread: compiled early, so the decoders load after their file is
  // gone. A worker thread does not compile it early: handed the main
  // thread's module (as decode workers are), it loads without the file.
  const code = `
    const zarr = await import(Z);
    const codecs = await import(Z.replace("index.js", "lib/codecs.js"));
    if (!(await codecs.earlyCodecsCompilation())) throw new Error("no early compilation of the decoders");
    const file = Z.replace("index.js", "lib/codecs.wasm");
    const { rename } = await import("node:fs/promises");
    await rename(file, file + ".away");
    const out = {};
    try {
      out.main = await codecs.loadCodecs();
      const module = await codecs.codecsModule();
      const { Worker } = await import("node:worker_threads");
      const worker = new Worker(\`
        (async () => {
          const { parentPort } = await import("node:worker_threads");
          const codecs = await import(\${JSON.stringify(Z.replace("index.js", "lib/codecs.js"))});
          parentPort.once("message", async (m) => {
            if (m) codecs.useCodecsModule(m);
            parentPort.postMessage(await codecs.loadCodecs());
          });
          parentPort.postMessage("loaded");
        })();\`, { eval: true });
      await new Promise((r) => worker.once("message", r));
      worker.postMessage(module);
      out.handed = await new Promise((r) => worker.once("message", r));
      await worker.terminate();
      const alone = new Worker(\`
        (async () => {
          const { parentPort } = await import("node:worker_threads");
          const codecs = await import(\${JSON.stringify(Z.replace("index.js", "lib/codecs.js"))});
          parentPort.postMessage(await codecs.loadCodecs());
        })();\`, { eval: true });
      out.alone = await new Promise((r) => alone.once("message", r));
      await alone.terminate();
    } finally {
      await rename(file + ".away", file);
    }
    console.log(JSON.stringify(out));`;
  assert.deepEqual(run(code), { main: true, handed: true, alone: false });
});

test("init(source, {codecs}) takes the decoders' module from there (without it and without lib/codecs.wasm, zstd goes to the full build)", () => {
  const array = path.join(npmDir, "..", "tests", "fixtures", "v2", "data", "v2.zarr");
  const results = [true, false].map((given) => {
    const code = `
      const file = Z.replace("index.js", "lib/codecs.wasm");
      const { rename, readFile } = await import("node:fs/promises");
      const bytes = await readFile(file);
      await rename(file, file + ".away");
      let out;
      try {
        const zarr = await import(Z.replace("index.js", "node.js"));
        const { engines } = await import(Z.replace("index.js", "lib/runtime.js"));
        await zarr.init(undefined, ${given ? "{ codecs: bytes }" : "{}"});
        const arr = await zarr.open(new zarr.FileSystemStore(${JSON.stringify(array)}), { path: "codecs/zstd_default", kind: "array" });
        const r = await arr.get();
        out = { engines: engines(), n: r.data.length };
      } finally {
        await rename(file + ".away", file);
      }
      console.log(JSON.stringify(out));`;
    return run(code);
  });
  assert.deepEqual(results, [
    { engines: { core: true, icechunk: false, full: false }, n: 600 },
    { engines: { core: true, icechunk: false, full: true }, n: 600 },
  ]);
});

test("the shipped modules pass V8's eager validation (the package compiles its own files with lazy validation)", async () => {
  // With --wasm-lazy-validation (set around the engine's synchronous
  // compile, runtime.js) a function body is only validated when first
  // called: a bad build must fail here instead.
  for (const f of ["zarr-core.wasm", "zarr.wasm", "lib/codecs.wasm", "lib/codecs-encode.wasm"]) {
    const bytes = await fs.readFile(path.join(npmDir, f));
    assert.equal(WebAssembly.validate(bytes), true, `${f} validates`);
  }
});

test("lazy validation is scoped to the package's own files: a module compiled afterwards is validated eagerly", () => {
  if (!process.versions.v8.startsWith("11.3.")) return;
  // A module with an invalid function body (i32.add on an empty stack),
  // compiled after the package's engine started: rejected at compile time
  // (with the flag left on it would compile, and abort the process when called).
  const code = `
    const zarr = await import(Z);
    await zarr.init();
    const bad = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7f, 3, 2, 1, 0, 7, 5, 1, 1, 0x62, 0, 0, 10, 6, 1, 4, 0, 0x6a, 0x0b, 0x0b]);
    let out;
    try {
      new WebAssembly.Module(bad);
      out = "compiled";
    } catch (e) {
      out = e.constructor.name;
    }
    console.log(JSON.stringify(out));`;
  assert.equal(run(code), "CompileError");
});
