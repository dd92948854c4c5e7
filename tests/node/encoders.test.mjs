// The package's encoders (npm/codecs/encode.c: libzstd's compressor and
// libdeflate's zlib/gzip compressor compiled to WebAssembly, a module
// loaded when the engine's full build starts) and the decoders' unknown-size forms. Checked: every
// numcodecs 0.11 input (zarr/codec/testdata/numcodecs) encoded at its
// vector's settings decodes back here and in numcodecs itself (Debian's
// python3-numcodecs); arrays the engine writes with zstd, zlib and gzip go
// through these encoders and zarr-python 2.13 reads their values; a chunk
// whose decoded size the chain does not know (filters before zlib, strings
// with zstd) decodes in the core build with the growing decoders.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as os from "node:os";
import { promises as fs } from "node:fs";
import { execFileSync } from "node:child_process";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { hostDecoders, hostEncoders, encodeStats, loadCodecs, loadEncoders } from "../../npm/lib/codecs.js";
import { callBuild } from "../../npm/lib/runtime.js";
import { zarrita, ZarritaFileSystemStore } from "../../npm/dev/deps.mjs";
import { repoRoot, fixturesV2, loadCases, compareCase, peersRequired } from "./helpers.mjs";

const vectorDir = path.join(repoRoot, "zarr", "codec", "testdata", "numcodecs");
const index = JSON.parse(await fs.readFile(path.join(vectorDir, "index.json"), "utf8"));
const read = async (f) => new Uint8Array(await fs.readFile(path.join(vectorDir, f)));

function havePython() {
  try {
    execFileSync("/usr/bin/python3", ["-c", "import numcodecs, zarr"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const python = havePython();

test("numcodecs' inputs encoded here decode back, here and in numcodecs", async (t) => {
  assert.equal(await loadCodecs(), true);
  assert.equal(await loadEncoders(), true);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-enc-"));
  const manifest = [];
  let same = 0;
  for (const v of index.vectors.filter((x) => ["zstd", "zlib", "gzip"].includes(x.config.id))) {
    const input = await read(v.input);
    const { id, level } = v.config;
    const out = hostEncoders[id](input, id === "zstd" ? (level || 3) : (level ?? 1), false);
    assert.ok(out instanceof Uint8Array, `${v.name}: encoded`);
    assert.deepEqual(hostDecoders[id](out, Math.max(1, input.length)) ?? new Uint8Array(0), input, `${v.name}: decodes back`);
    if (v.exact && Buffer.compare(Buffer.from(out), Buffer.from(await read(v.encoded))) === 0) same++;
    const file = `${manifest.length}.bin`;
    await fs.writeFile(path.join(dir, file), out);
    manifest.push({ config: v.config, file, input: path.join(vectorDir, v.input) });
  }
  t.diagnostic(`${manifest.length} streams; ${same} equal numcodecs' bytes`);
  if (!python) {
    if (peersRequired) assert.fail("python3 with numcodecs is missing");
    t.skip("no python3 numcodecs");
    return;
  }
  await fs.writeFile(path.join(dir, "manifest.json"), JSON.stringify(manifest));
  const script = `
import json, sys, numcodecs
d = sys.argv[1]
bad = []
for m in json.load(open(d + "/manifest.json")):
    c = numcodecs.get_codec(m["config"])
    if bytes(c.decode(open(d + "/" + m["file"], "rb").read())) != open(m["input"], "rb").read():
        bad.append(m["file"])
print(json.dumps(bad))`;
  const bad = JSON.parse(execFileSync("/usr/bin/python3", ["-c", script, dir], { encoding: "utf8" }));
  await fs.rm(dir, { recursive: true, force: true });
  assert.deepEqual(bad, [], "numcodecs decodes every stream");
});

test("arrays written with zstd, zlib and gzip go through the encoders, and zarr-python reads them", async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-enc-arr-"));
  const store = new FileSystemStore(dir);
  const data = Float64Array.from({ length: 60 * 50 }, (_, i) => Math.sin(i / 7) * 100 + (i % 13));
  const before = encodeStats.encoded;
  const placedBefore = encodeStats.placed;
  for (const [name, compressor] of [
    ["zstd", { id: "zstd", level: 5 }],
    ["zlib", { id: "zlib", level: 6 }],
    ["gzip", { id: "gzip", level: 9 }],
  ]) {
    const a = await zarr.create(store, { path: name, shape: [60, 50], chunks: [16, 16], dtype: "<f8", zarrFormat: 2, compressor });
    await a.set(null, { data, shape: [60, 50] });
    assert.deepEqual(Array.from((await a.get()).data), Array.from(data), `${name}: read back`);
  }
  // A v3 zstd array with checksums (numcodecs 0.11 has no checksum option): zarrita.js reads it.
  const v3 = await zarr.create(store, { path: "zstd_checksum", shape: [60, 50], chunks: [16, 16], dtype: "float64", zarrFormat: 3, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: true } }] });
  await v3.set(null, { data, shape: [60, 50] });
  const theirs = await zarrita.get(await zarrita.open(zarrita.root(new ZarritaFileSystemStore(dir)).resolve("zstd_checksum"), { kind: "array" }));
  assert.deepEqual(Array.from(theirs.data), Array.from(data), "zarrita.js reads the checksummed zstd array");
  assert.ok(encodeStats.encoded - before >= 4 * 16, `${encodeStats.encoded - before} chunks through the package's encoders`);
  // Straight from and into the engine's memory (the placer), not through JS copies.
  assert.equal(encodeStats.placed - placedBefore, encodeStats.encoded - before, "every chunk encoded in place");
  if (!python) {
    if (peersRequired) assert.fail("python3 with zarr is missing");
    t.skip("no python3 zarr");
    return;
  }
  const script = `
import sys, json, zarr, numpy as np
d = sys.argv[1]
print(json.dumps({n: np.asarray(zarr.open_array(d + "/" + n, mode="r")[:]).ravel().tolist() for n in ["zstd", "zlib", "gzip"]}))`;
  const got = JSON.parse(execFileSync("/usr/bin/python3", ["-c", script, dir], { encoding: "utf8", maxBuffer: 64 << 20 }));
  for (const [name, values] of Object.entries(got)) assert.deepEqual(values, Array.from(data), `zarr-python reads ${name}`);
  await fs.rm(dir, { recursive: true, force: true });
});

test("unknown decoded sizes: the growing decoders, bounded", async () => {
  assert.equal(await loadCodecs(), true);
  for (const id of ["zstd", "zlib", "gzip"]) {
    const v = index.vectors.find((x) => x.config.id === id && x.name.endsWith("/text"));
    const [enc, dec] = [await read(v.encoded), await read(v.decoded)];
    assert.deepEqual(hostDecoders[id](enc, 0, dec.length * 2), dec, `${id}: decoded without the size`);
    assert.deepEqual(hostDecoders[id](enc, 0, dec.length), dec, `${id}: a limit of exactly the size`);
    assert.equal(hostDecoders[id](enc, 0, dec.length - 1), null, `${id}: past the limit`);
    assert.equal(hostDecoders[id](enc.subarray(0, enc.length - 3), 0, dec.length * 2), null, `${id}: truncated`);
  }
  // A 13-byte zstd frame that declares a gigabyte, given a small limit.
  const bomb = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0x40, 0x01, 0, 0, 0x61);
  assert.equal(hostDecoders.zstd(bomb, 0, 4096), null);
});

test("the core build reads chunks of unknown decoded size (filters before zlib, strings with zstd) itself", async () => {
  const v3 = path.join(repoRoot, "tests", "fixtures", "v3");
  const all = [
    ...(await loadCases(path.join(fixturesV2, "cases.json"))).map((c) => ({ ...c, dir: fixturesV2 })),
    ...(await loadCases(path.join(v3, "cases.json"))).map((c) => ({ ...c, dir: v3 })),
  ];
  const names = ["filters/shuffle_4", "filters/chain_delta_shuffle_zlib", "objects/vlen_utf8", "objects/json2", "codecs/vlen_utf8_zstd"];
  let n = 0;
  for (const c of all.filter((x) => names.includes(x.name))) {
    const info = await callBuild("core", "open", new FileSystemStore(path.join(c.dir, "data", c.store)), c.path, "array");
    const diff = compareCase(c, await callBuild("core", "get", info.id, c.selection ?? null));
    assert.equal(diff, null, `${c.name}: ${diff}`);
    n++;
  }
  assert.equal(n, names.length);
});
