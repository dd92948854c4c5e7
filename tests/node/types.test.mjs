// The TypeScript declarations: tsc --strict compiles the documented usage,
// a file that relies on the narrowed types (narrowed.ts) and the table of
// what each data type reads as (dtypes.ts); negative.ts, the same code
// without the narrowing, must fail on each marked line; and the table,
// compiled, runs against the package, so the declarations match what the
// runtime returns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as zarr from "../../npm/index.js";
import { npmDir, repoRoot } from "./helpers.mjs";

const typesDir = path.join(repoRoot, "tests", "node", "types");
const tsc = path.join(npmDir, "node_modules", ".bin", "tsc");

function run(args) {
  return new Promise((resolve) => {
    execFile(tsc, args, { encoding: "utf8" }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, out: stdout + stderr }));
  });
}

test("index.d.ts and node.d.ts type-check the documented usage and the narrowed types (tsc --strict)", async () => {
  const r = await run(["-p", path.join(typesDir, "tsconfig.json")]);
  assert.equal(r.code, 0, r.out);
});

test("without the narrowing, negative.ts fails on exactly the marked lines", async () => {
  const r = await run(["-p", path.join(typesDir, "tsconfig.negative.json")]);
  assert.notEqual(r.code, 0);
  const lines = (await fs.readFile(path.join(typesDir, "negative.ts"), "utf8")).split("\n");
  const marked = lines.flatMap((l, i) => (l.endsWith("// error") ? [i + 1] : []));
  const failed = [...new Set([...r.out.matchAll(/negative\.ts\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1])))];
  assert.ok(marked.length >= 6);
  assert.deepEqual(failed.sort((a, b) => a - b), marked, r.out);
});

test("every data type reads as its declaration says (dtypes.ts, compiled and run)", async () => {
  const out = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-types-"));
  try {
    const r = await run(["-p", path.join(typesDir, "tsconfig.emit.json"), "--outDir", out]);
    assert.equal(r.code, 0, r.out);
    // The compiled table imports "zarr-wasm": resolve it to the package.
    await fs.mkdir(path.join(out, "node_modules"));
    await fs.symlink(npmDir, path.join(out, "node_modules", "zarr-wasm"), "dir");
    await fs.writeFile(path.join(out, "package.json"), '{"type": "module"}');
    const { rows } = await import(pathToFileURL(path.join(out, "dtypes.js")).href);
    assert.ok(rows.length >= 26);
    for (const r of rows) {
      const store = new zarr.MemoryStore();
      const filters = r.create === "|O" ? [{ id: "json2" }] : undefined;
      const arr = await zarr.create(store, { shape: [2], dtype: r.create, zarrFormat: r.zarrFormat, filters });
      assert.deepEqual(arr.dtype, r.dtype, `dtype of ${r.create}`);
      const value = r.create === "|O" ? [{ a: 1 }, "x"] : null;
      if (value) await arr.set(null, value);
      const res = await arr.get();
      assert.ok(r.data(res.data), `${r.dtype}: get() data is ${res.data?.constructor?.name}`);
      const one = await zarr.get(arr, [1]);
      assert.ok(r.scalar(one), `${r.dtype}: zarr.get() of one element is ${typeof one} ${one?.constructor?.name}`);
      assert.ok(arr.is(r.dtype), `is(${r.dtype})`);
    }
  } finally {
    await fs.rm(out, { recursive: true, force: true });
  }
});
