// The npm bin: zarr-wasm info (tree with shape, dtype, chunks, codecs,
// attributes; local paths and URLs) and zarr-wasm cat (values).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { npmDir, fixturesV2, startServer, repoRoot } from "./helpers.mjs";

const bin = path.join(npmDir, "bin", "zarr-wasm.js");

function run(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

describe("zarr-wasm CLI", () => {
  const consolidated = path.join(fixturesV2, "data", "consolidated.zarr");
  test("info prints the hierarchy as a tree", async () => {
    const r = await run("info", consolidated);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^consolidated\.zarr\/ {2}group v2 \(consolidated\) {2}attrs \{"description":"consolidated store","nan":"NaN"\}$/);
    assert.ok(lines.includes("│   │   └── y  array v2  shape (4, 5)  dtype int16 (>i2)  chunks (2, 2)  codecs bytes(endian=big), numcodecs.zlib(level=1)"), r.stdout);
    assert.ok(lines.some((l) => /^│   └── x {2}array v2 {2}shape \(8,\) {2}dtype float64 \(<f8\) {2}chunks \(3,\) {2}codecs bytes\(endian=little\), numcodecs\.zlib\(level=1\) {2}attrs \{"units":"K"\}$/.test(l)), r.stdout);
    assert.ok(lines.includes("└── z  array v2  shape (6,)  dtype v2:U3 (<U3)  chunks (4,)  codecs bytes(endian=little), numcodecs.zlib(level=1)"), r.stdout);
  });
  test("info over HTTP (consolidated metadata lists the tree)", async () => {
    const server = await startServer(path.join(fixturesV2, "data"));
    try {
      const r = await run("info", `${server.url}/consolidated.zarr`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /with space\/ {2}group v2/);
      assert.match(r.stdout, /arr {2}array v2 {2}shape \(3, 3\) {2}dtype uint32 \(<u4\)/);
    } finally {
      await server.close();
    }
  });
  test("cat prints values, with a selection", async () => {
    const r = await run("cat", path.join(consolidated, "a", "b", "y"), "1:3, ::2");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^shape \(2, 3\) {2}dtype int16 \(>i2\)\n\[\[-?\d+ -?\d+ -?\d+\]\n \[-?\d+ -?\d+ -?\d+\]\]\n$/);
    const s = await run("cat", path.join(consolidated, "z"));
    assert.match(s.stdout, /^shape \(6,\) {2}dtype v2:U3 \(<U3\)\n\[".*"\]\n$/);
  });
  test("reference sets, local and over HTTP: info and cat (refs.json/path)", async () => {
    const refs = path.join(repoRoot, "tests", "refs", "data");
    const r = await run("info", path.join(refs, "json", "v1.json"));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^v1\.json\/ {2}group v2 {2}attrs \{"Conventions":"CF-1\.6"/);
    assert.ok(r.stdout.includes("├── temp  array v2  shape (10, 12)  dtype float32 (<f4)  chunks (4, 5)  codecs bytes(endian=little), numcodecs.shuffle(elementsize=4), numcodecs.zlib(level=5)"), r.stdout);
    const c = await run("cat", `${path.join(refs, "json", "v0.json")}/counts`, "0:5");
    assert.equal(c.stdout, "shape (5,)  dtype int16 (>i2)\n[-300 -293 -286 -279 -272]\n", c.stderr);
    const server = await startServer(refs);
    try {
      const q = await run("info", `${server.url}/json/v1_gen.json`);
      assert.equal(q.code, 0, q.stderr);
      assert.match(q.stdout, /counts {2}array v2 {2}shape \(100,\)/);
      const h = await run("cat", `${server.url}/json/v1_gen.json/counts`, "0:5");
      assert.equal(h.stdout, c.stdout, h.stderr);
      assert.deepEqual(server.stats.log.filter((l) => l.path === "/json/t1.bin").map((l) => l.range), ["bytes=1000-1019"]);
    } finally {
      await server.close();
    }
  });
  test("errors: message with the code, exit status 1; usage: 2", async () => {
    const r = await run("cat", path.join(consolidated, "nope"));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^zarr-wasm: NOT_FOUND: .*nope/);
    assert.equal((await run("frobnicate", "x")).code, 2);
  });
  test("suggestions wherever a name is not found: cat path form, info node path, over HTTP from consolidated metadata", async () => {
    const typo = await run("cat", path.join(consolidated, "a", "b", "yy"));
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /NOT_FOUND: .*did you mean "y"\?/);
    const info = await run("info", consolidated, "a/bb");
    assert.match(info.stderr, /did you mean "a\/b"\?/);
    const server = await startServer(path.join(fixturesV2, "data"));
    try {
      const h = await run("info", `${server.url}/consolidated.zarr`, "a/bb");
      assert.equal(h.code, 1);
      assert.match(h.stderr, /NOT_FOUND: .*did you mean "a\/b"\?/);
    } finally {
      await server.close();
    }
  });
});
