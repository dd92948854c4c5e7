// The engine's two builds (npm/lib/runtime.js): zarr-core.wasm, which a
// read-only program loads first, and zarr.wasm, loaded when something
// needs it. Checked here: the core build alone reads zarr-python's and the
// v3 fixtures' values, refusing only what it leaves out (marked
// otherBuild, never a wrong value); through the public API a read-only
// program never starts the full build, and reading a bz2 array, writing to
// an array opened in the core build, a group's bz2 child and a corrupt
// zstd chunk all reach the full build with the full build's answers.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { FileSystemStore } from "../../npm/node.js";
import { callBuild } from "../../npm/lib/runtime.js";
import { repoRoot, npmDir, loadCases, compareCase } from "./helpers.mjs";

// Codecs the core build leaves out (zarr/codec/builds.go), and the chunks
// whose decoded size the chain does not know (the package's libzstd and
// zlib decode only chunks of a known size; the full build's Go decoders
// take the rest).
const fullOnly = /bz2|lzma/;

describe("the core build alone", () => {
  for (const v of ["v2", "v3"]) {
    test(`reads the ${v} fixtures, refusing only what it leaves out`, async () => {
      const dir = path.join(repoRoot, "tests", "fixtures", v);
      let read = 0;
      const refused = [];
      for (const c of await loadCases(path.join(dir, "cases.json"))) {
        const store = new FileSystemStore(path.join(dir, "data", c.store));
        let res;
        try {
          const info = await callBuild("core", "open", store, c.path, "array");
          res = await callBuild("core", "get", info.id, c.selection ?? null);
        } catch (e) {
          assert.ok(e.otherBuild === true || e.cause?.otherBuild === true || /full build/.test(e.message), `${c.name}: ${e.message}`);
          refused.push(c.name);
          continue;
        }
        const diff = compareCase(c, res, { anyNaN: c.name === "fill/c8_nan_inf" });
        assert.equal(diff, null, `${c.name}: ${diff}`);
        read++;
      }
      assert.ok(read > 100, `${read} cases read`);
      if (v === "v2") {
        for (const name of ["codecs/bz2_1", "codecs/lzma_default", "v1/bz2_u2_be"]) assert.ok(refused.includes(name), `${name} refused`);
      }
      assert.ok(refused.length < read / 4, `refused: ${refused.join(", ")}`);
    });
  }
});

// Each scenario in a fresh process, so that which builds start is its own.
function scenario(code) {
  const prelude = `
    import * as zarr from ${JSON.stringify(path.join(npmDir, "index.js"))};
    import { FileSystemStore } from ${JSON.stringify(path.join(npmDir, "node.js"))};
    import { engines, buildOfHandle } from ${JSON.stringify(path.join(npmDir, "lib", "runtime.js"))};
    const v2 = new FileSystemStore(${JSON.stringify(path.join(repoRoot, "tests", "fixtures", "v2", "data", "v2.zarr"))});
    const out = {};
  `;
  const text = execFileSync(process.execPath, ["--input-type=module", "-e", `${prelude}\n${code}\nconsole.log(JSON.stringify(out));`], { encoding: "utf8" });
  return JSON.parse(text.trim().split("\n").pop());
}

describe("through the public API", () => {
  test("a read-only program runs the core build only", () => {
    const out = scenario(`
      for (const p of ["codecs/zstd_default", "codecs/blosc_lz4_shuffle", "codecs/zlib_1", "codecs/gzip_9", "codecs/blosc_zstd_shuffle"]) {
        const a = await zarr.open(v2, { path: p, kind: "array" });
        out[p] = (await a.get("0:2")).data.length;
      }
      out.engines = engines();
    `);
    assert.deepEqual(out.engines, { core: true, icechunk: false, full: false });
  });

  test("a bz2 array starts the full build and reads there", () => {
    const out = scenario(`
      const a = await zarr.open(v2, { path: "codecs/zstd_default", kind: "array" });
      out.before = engines();
      const b = await zarr.open(v2, { path: "codecs/bz2_1", kind: "array" });
      out.inFull = buildOfHandle(b._info.id) === "full";
      out.same = JSON.stringify(Array.from((await b.get()).data, Number)) === JSON.stringify(Array.from((await a.get()).data, Number));
      out.after = engines();
    `);
    assert.deepEqual(out.before, { core: true, icechunk: false, full: false });
    assert.equal(out.inFull, true);
    assert.equal(out.same, true, "zarr-python wrote the same values with bz2 and zstd");
    assert.deepEqual(out.after, { core: true, icechunk: false, full: true });
  });

  test("writing to an array opened in the core build moves it to the full build", () => {
    const out = scenario(`
      const mem = new zarr.MemoryStore();
      for (const [k, v] of [["/a/.zarray", JSON.stringify({ zarr_format: 2, shape: [6], chunks: [3], dtype: "<i4", compressor: null, fill_value: 0, order: "C", filters: null })]]) {
        await mem.set(k, new TextEncoder().encode(v));
      }
      const a = await zarr.open(mem, { path: "a", kind: "array" });
      out.openedInCore = buildOfHandle(a._info.id) === "core";
      await a.set([zarr.slice(1, 4)], Int32Array.of(7, 8, 9));
      out.movedToFull = buildOfHandle(a._info.id) === "full";
      out.values = Array.from((await a.get()).data);
      const again = await zarr.open(mem, { path: "a", kind: "array" });
      out.reread = Array.from((await again.get()).data);
    `);
    assert.equal(out.openedInCore, true);
    assert.equal(out.movedToFull, true);
    assert.deepEqual(out.values, [0, 7, 8, 9, 0, 0]);
    assert.deepEqual(out.reread, [0, 7, 8, 9, 0, 0]);
  });

  test("a group's children that only the full build reads are opened there", () => {
    const out = scenario(`
      const g = await zarr.open(v2, { path: "codecs", kind: "group" });
      const kids = await g.children();
      const bz2 = kids.find((k) => k.name === "bz2_1");
      out.kind = bz2.kind;
      out.inFull = buildOfHandle(bz2.node._info.id) === "full";
      out.unknown = kids.filter((k) => k.kind === "unknown").map((k) => k.name + ": " + k.error.message);
      out.child = (await (await g.open("lzma_default")).get("0:3")).data.length;
    `);
    assert.equal(out.kind, "array");
    assert.equal(out.inFull, true);
    assert.deepEqual(out.unknown, []);
    assert.equal(out.child, 3 * 30, "three rows of lzma_default");
  });

  test("a corrupt zstd chunk gets the full build's CODEC error", () => {
    const out = scenario(`
      const mem = new zarr.MemoryStore();
      await mem.set("/z/.zarray", await v2.get("/codecs/zstd_default/.zarray"));
      // A frame whose headers are whole and whose compressed block is not.
      const chunk = (await v2.get("/codecs/zstd_default/0.0")).slice();
      for (let i = 12; i < chunk.length - 4; i += 7) chunk[i] ^= 0x5a;
      await mem.set("/z/0.0", chunk);
      const a = await zarr.open(mem, { path: "z", kind: "array" });
      try { await a.get("0:10, 0:16"); out.code = "none"; } catch (e) { out.code = e.code; out.message = e.message; }
      out.engines = engines();
    `);
    assert.equal(out.code, "CODEC", out.message);
    assert.match(out.message, /zstd/);
    assert.deepEqual(out.engines, { core: true, icechunk: false, full: true });
  });
});
