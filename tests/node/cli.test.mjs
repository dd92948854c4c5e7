// The npm bin: zarr-wasm info (tree with shape, dtype, chunks, codecs,
// attributes; local paths and URLs) and zarr-wasm cat (values); and the Go
// command (cmd/zarr) beside it: the same arguments give the same output
// for every fixture array, reference sets, URLs and mistyped names (both
// print with the engine's internal/clitext; what differs is how each finds
// its store, reads it and reports errors), and the values cat prints read
// back as those zarr-python wrote (the fixtures' cases.json).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { npmDir, fixturesV2, startServer, repoRoot, loadCases } from "./helpers.mjs";
import { main as cliMain } from "../../npm/lib/cli.js";

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
    // a misspelt command or flag names the nearest
    const cmd = await run("cta", consolidated);
    assert.equal(cmd.code, 2);
    assert.match(cmd.stderr, /^zarr-wasm: INVALID_ARGUMENT: "cta": unknown command \(did you mean "cat"\?\)/);
    const flag = await run("cat", path.join(consolidated, "a", "b", "y"), "--al");
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^zarr-wasm: INVALID_ARGUMENT: "--al": unknown flag \(did you mean "--all"\?\)/);
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

describe("the Go command (cmd/zarr) and zarr-wasm side by side", () => {
  let dir;
  let goBin;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-cli-"));
    goBin = path.join(dir, "zarr");
    await new Promise((resolve, reject) =>
      execFile("go", ["build", "-o", goBin, "./cmd/zarr"], { cwd: repoRoot }, (err, _o, stderr) => (err ? reject(new Error(stderr)) : resolve())),
    );
  });
  after(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** Both commands with the same arguments: {go, js} of {code, stdout, stderr}. */
  async function both(...args) {
    const go = await new Promise((resolve) =>
      execFile(goBin, args, { encoding: "utf8", maxBuffer: 1 << 26 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr })),
    );
    const out = [];
    const err = [];
    const code = await cliMain(args, (l) => out.push(l), (l) => err.push(l));
    const text = (lines) => lines.map((l) => `${l}\n`).join("");
    return { go, js: { code, stdout: text(out), stderr: text(err) } };
  }

  /** The same exit status and output; messages compared with the command's name left out. */
  function same(r, what) {
    const name = (s) => s.replace(/^zarr(-wasm)?: /gm, "").replaceAll("zarr-wasm", "zarr");
    assert.equal(r.go.code, r.js.code, `${what}: exit ${r.go.code} (Go) vs ${r.js.code} (JS)\n${r.go.stderr}\n${r.js.stderr}`);
    assert.equal(r.go.stdout, r.js.stdout, what);
    assert.equal(name(r.go.stderr), name(r.js.stderr), what);
  }

  const fixtureSets = ["v2", "v3"].map((v) => path.join(repoRoot, "tests", "fixtures", v));

  test("info of every fixture store", async () => {
    let n = 0;
    for (const set of fixtureSets) {
      for (const store of await fs.readdir(path.join(set, "data"))) {
        // v2/data/v1 holds Zarr v1 arrays, not a hierarchy: both say so.
        const where = path.join(set, "data", store);
        const r = await both("info", where);
        same(r, `info ${store}`);
        if (r.js.code === 0) n++;
        else assert.match(r.js.stderr, /NOT_FOUND/, where);
      }
    }
    assert.ok(n >= 9, `${n} stores`);
  });

  test("cat of every fixture case (each array, each selection): the same text, and the values zarr-python wrote", async () => {
    let n = 0;
    let checked = 0;
    for (const set of fixtureSets) {
      for (const c of await loadCases(path.join(set, "cases.json"))) {
        const where = path.join(set, "data", c.store, ...c.path.split("/").filter(Boolean));
        const r = await both("cat", where, ...(c.selection ? [c.selection] : []));
        const what = `cat ${c.store}/${c.path} ${c.selection}`;
        same(r, what);
        if (checkPrinted(r.js.stdout, c, what)) checked++;
        n++;
      }
    }
    assert.ok(n >= 400, `${n} cases`);
    assert.ok(checked >= 300, `${checked} cases' values checked`);
  });

  test("URL pipelines: a zip's hierarchy by zip: and zarr3:/zarr2:, and their errors", async () => {
    const zip = path.join(dir, "data.zip");
    const compat = path.join(repoRoot, "tests", "compat", "data", "zarrs");
    const code = "import sys, os, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\n" +
      "for name, d in zip(sys.argv[2::2], sys.argv[3::2]):\n" +
      "    for root, _, files in os.walk(d):\n" +
      "        for f in files:\n" +
      "            z.write(os.path.join(root, f), name + '/' + os.path.relpath(os.path.join(root, f), d))\n";
    await new Promise((resolve, reject) =>
      execFile("/usr/bin/python3", ["-c", code, zip, "v3/array_blosc.zarr", path.join(compat, "v3", "array_blosc.zarr"), "v2/array_zstd_C.zarr", path.join(compat, "v2", "array_zstd_C.zarr")],
        (err, _o, stderr) => (err ? reject(new Error(stderr)) : resolve())),
    );
    for (const args of [
      ["info", `${zip}|zip:v3|zarr3:`],
      ["cat", `${zip}|zip:v3/array_blosc.zarr|zarr3:`, "0:2, ::3"],
      ["cat", `${zip}|zip:v2|zarr2:array_zstd_C.zarr`],
      ["cat", `${zip}|zip:v3/array_blosc.zarr|zarr2:`],
      ["cat", `${zip}|zip:v3/array_blosc.zarr|zar3:`],
    ]) {
      const r = await both(...args);
      same(r, args.join(" "));
    }
    const ok = await both("cat", `${zip}|zip:v3/array_blosc.zarr|zarr3:`);
    assert.equal(ok.js.code, 0, ok.js.stderr);
    assert.match(ok.js.stdout, /^shape \(10, 10\)/);
    const wrong = await both("cat", `${zip}|zip:v3/array_blosc.zarr|zarr2:`);
    assert.match(wrong.js.stderr, /NOT_FOUND.*not v2/);
  });

  test("cat --all, usage and bad arguments", async () => {
    const big = path.join(fixturesV2, "data", "v2.zarr");
    for (const args of [["cat", path.join(big, "codecs", "blosc_zstd_blocksize1024_f8"), "--all"], [], ["frobnicate", "x"], ["--help"], ["cat", path.join(big, "codecs", "blosc_zstd_blocksize1024_f8"), "1:2:0"], ["info"],
      ["ifno", big], ["cat", big, "--al"], ["info", big, "--verbose"], ["info", big, "a", "b"]]) {
      same(await both(...args), args.join(" "));
    }
  });

  test("reference sets (JSON and Parquet), local and over HTTP", async () => {
    const refs = path.join(repoRoot, "tests", "refs", "data");
    const server = await startServer(refs);
    try {
      for (const where of [refs, server.url]) {
        const j = (...p) => (where === refs ? path.join(where, ...p) : `${where}/${p.join("/")}`);
        for (const args of [
          ["info", j("json", "v1.json")],
          ["cat", `${j("json", "v0.json")}/counts`, "0:5"],
          ["cat", `${j("json", "v1_target.json")}/temp`],
          ["info", j("pq", "hyp_zstd")],
          ["cat", `${j("json", "v1.json")}/tmp`],
        ]) {
          same(await both(...args), args.join(" "));
        }
      }
    } finally {
      await server.close();
    }
  });

  test("URLs (zarr/store/http in Go), and names not found: local, node path, HTTP from consolidated metadata", async () => {
    const data = path.join(fixturesV2, "data");
    const consolidated = path.join(data, "consolidated.zarr");
    const server = await startServer(data);
    try {
      const url = `${server.url}/consolidated.zarr`;
      const cases = [
        ["info", url],
        ["cat", `${url}/a/b/y`, "1:3, ::2"],
        ["cat", path.join(consolidated, "a", "b", "yy")],
        ["info", consolidated, "a/bb"],
        ["info", url, "a/bb"],
        ["cat", `${url}/a/b/yy`],
        ["cat", `${url}/zz`],
        ["cat", path.join(data, "nowhere.zarr", "x")],
      ];
      for (const args of cases) {
        const r = await both(...args);
        same(r, args.join(" "));
      }
      // the suggestions themselves
      assert.match((await both("cat", `${url}/a/b/yy`)).go.stderr, /did you mean "a\/b\/y"\?/);
      assert.match((await both("cat", path.join(consolidated, "a", "b", "yy"))).go.stderr, /did you mean "y"\?/);
      assert.match((await both("info", url, "a/bb")).go.stderr, /did you mean "a\/b"\?/);
    } finally {
      await server.close();
    }
  });
});

// ---- the printed values against the fixtures' ----------------------------

/**
 * Reads back the values `cat` printed and compares them with the case's
 * (zarr-python's: little-endian element bytes in C order, or strings).
 * Returns whether the case's data type and size could be checked (numbers,
 * booleans, complex numbers, datetimes and strings; not summarised).
 */
function checkPrinted(stdout, c, what) {
  const [head, ...rest] = stdout.split("\n");
  const shape = /^shape \(([^)]*)\)/.exec(head)?.[1].split(",").map((d) => d.trim()).filter(Boolean).map(Number);
  assert.deepEqual(shape, c.shape, `${what}: shape in ${head}`);
  const tokens = rest.join("\n").match(/"(?:[^"\\]|\\.)*"|[^\s[\]]+/g) ?? [];
  const count = c.shape.reduce((a, b) => a * b, 1);
  if (tokens.length !== count) return false; // summarised ("...")
  if (c.strings) {
    assert.deepEqual(tokens.map((t) => JSON.parse(t)), c.strings, what);
    return true;
  }
  const read = elementReader(c.dtype);
  if (!read || typeof c.bytes !== "string") return false;
  const bytes = Buffer.from(c.bytes, "base64");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  assert.equal(bytes.length, count * read.size, what);
  for (let i = 0; i < count; i++) {
    const want = read.value(view, i * read.size);
    const got = read.parse(tokens[i]);
    const equal = typeof want === "object" ? Object.is(got.re, want.re) && Object.is(got.im, want.im) : Object.is(got, want);
    assert.ok(equal, `${what}: element ${i} printed ${tokens[i]}, zarr-python wrote ${typeof want === "object" ? JSON.stringify(want) : want}`);
  }
  return true;
}

/** A float as cat prints it (NumPy's nan, inf, -inf, -0.0). */
function parseFloatText(t) {
  return { nan: NaN, inf: Infinity, "-inf": -Infinity, "-0.0": -0 }[t] ?? Number(t);
}

/** How to read and parse an element of a data type (a v2 typestr or a v3 name), or null. */
function elementReader(dtype) {
  if (typeof dtype !== "string") return null;
  const m = /^[<>|]?([biufcMm])(\d+)/.exec(dtype);
  const names = { bool: ["b", 1], int8: ["i", 1], int16: ["i", 2], int32: ["i", 4], int64: ["i", 8], uint8: ["u", 1], uint16: ["u", 2], uint32: ["u", 4], uint64: ["u", 8], float32: ["f", 4], float64: ["f", 8], complex64: ["c", 8], complex128: ["c", 16] };
  const [kind, size] = m ? [m[1], Number(m[2])] : (names[dtype] ?? []);
  const ints = { 1: ["getInt8", "getUint8"], 2: ["getInt16", "getUint16"], 4: ["getInt32", "getUint32"], 8: ["getBigInt64", "getBigUint64"] };
  switch (kind) {
    case "b":
      return { size: 1, value: (v, o) => v.getUint8(o) !== 0, parse: (t) => ({ True: true, False: false })[t] };
    case "i":
    case "u":
    case "M":
    case "m": {
      const getter = ints[size]?.[kind === "u" ? 1 : 0];
      return getter && { size, value: (v, o) => BigInt(v[getter](o, true)), parse: (t) => BigInt(t) };
    }
    case "f":
      if (size === 4) return { size, value: (v, o) => v.getFloat32(o, true), parse: (t) => Math.fround(parseFloatText(t)) };
      if (size === 8) return { size, value: (v, o) => v.getFloat64(o, true), parse: parseFloatText };
      return null;
    case "c": {
      const half = size / 2;
      const get = half === 4 ? (v, o) => v.getFloat32(o, true) : (v, o) => v.getFloat64(o, true);
      const round = half === 4 ? Math.fround : (x) => x;
      return {
        size,
        value: (v, o) => ({ re: get(v, o), im: get(v, o + half) }),
        parse: (t) => {
          const p = /^(-?(?:[^+-]|[eE][+-])+)([+-])((?:[^+-]|[eE][+-])+)j$/.exec(t);
          const im = parseFloatText(p[3]);
          return { re: round(parseFloatText(p[1])), im: round(p[2] === "-" ? -im : im) };
        },
      };
    }
  }
  return null;
}
