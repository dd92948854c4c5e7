// What `npm pack` would publish: the .wasm and Go's wasm_exec.js inside,
// the entry points, types and bin; nothing from dev/ or node_modules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
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
  for (const need of ["zarr.wasm", "wasm_exec.js", "index.js", "index.d.ts", "node.js", "node.d.ts", "bin/zarr-wasm.js", "package.json", "README.md", "LICENSE", "THIRD_PARTY_NOTICES.md", "codecs/LICENSE-zstd", "codecs/LICENSE-libdeflate", "codecs/LICENSE-wasi-libc", "lib/codecs.wasm", "lib/codecs-encode.wasm"]) {
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
