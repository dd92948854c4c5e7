// What `npm pack` would publish: the .wasm and Go's wasm_exec.js inside,
// the entry points, types and bin; nothing from dev/ or node_modules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as zlib from "node:zlib";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { npmDir } from "./helpers.mjs";

test("npm pack contents", async () => {
  const out = await new Promise((resolve, reject) => {
    execFile("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: npmDir, encoding: "utf8" }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
  const [info] = JSON.parse(out);
  const files = info.files.map((f) => f.path).sort();
  for (const need of ["zarr.wasm", "zarr-core.wasm", "zarr-icechunk.wasm", "wasm_exec.js", "index.js", "index.d.ts", "node.js", "node.d.ts", "bin/zarr-wasm.js", "package.json", "README.md", "LICENSE", "THIRD_PARTY_NOTICES.md", "codecs/LICENSE-zstd", "codecs/LICENSE-libdeflate", "codecs/LICENSE-wasi-libc", "lib/codecs.wasm", "lib/codecs-encode.wasm"]) {
    assert.ok(files.includes(need), `${need} is not in the package`);
  }
  assert.ok(!files.some((f) => f.startsWith("dev/") || f.startsWith("node_modules/")), files.join(" "));
  const pkg = JSON.parse(await fs.readFile(path.join(npmDir, "package.json"), "utf8"));
  assert.equal(pkg.license, "MIT");
  assert.match(await fs.readFile(path.join(npmDir, "LICENSE"), "utf8"), /^MIT License/);
  for (const k of ["repository", "homepage", "bugs"]) assert.ok(pkg[k], `package.json has no ${k}`);
  // Keywords name only formats the package reads.
  for (const k of ["n5", "hdf5"]) assert.ok(!pkg.keywords.includes(k), `keyword ${k}`);
  assert.equal(pkg.name, "zarr-wasm");
  assert.equal(pkg.type, "module");
  assert.ok(pkg.exports["."] && pkg.exports["./node"]);
  // Every file an entry point names exists.
  for (const f of [pkg.exports["."].default, pkg.exports["."].types, pkg.exports["./node"].node, pkg.exports["./node"].types, pkg.bin["zarr-wasm"]]) {
    await fs.access(path.join(npmDir, f));
  }
  // wasm_exec.js comes from the toolchain that built the .wasm (Go's JS glue changes between versions).
  const glue = await fs.readFile(path.join(npmDir, "wasm_exec.js"), "utf8");
  assert.match(glue, /globalThis\.Go = class/);
});

// The download budgets (docs/performance.md): what a read-only page
// compiles before its first read (the core build and the decoders) stays
// under 1.0 MB brotli, and what Icechunk adds to it (the Icechunk build
// instead of the core build) under 150 KB. Brotli q11, as a server
// precompresses them.
test("download budgets: core build and decoders ≤ 1.0 MB, Icechunk ≤ 150 KB more (brotli)", async () => {
  const brotli = async (name) => {
    const bytes = await fs.readFile(path.join(npmDir, name));
    return zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length;
  };
  const core = await brotli("zarr-core.wasm");
  const decoders = await brotli("lib/codecs.wasm");
  const icechunk = await brotli("zarr-icechunk.wasm");
  assert.ok(core + decoders <= 1_000_000, `zarr-core.wasm ${core} + lib/codecs.wasm ${decoders} bytes brotli: over 1.0 MB`);
  assert.ok(icechunk - core <= 150_000, `zarr-icechunk.wasm ${icechunk} bytes brotli: ${icechunk - core} more than the core build`);
});
