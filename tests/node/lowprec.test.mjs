// The small float types (bfloat16, float8_*, float6_*, float4_e2m1fn)
// through the package, against ml_dtypes (tests/testdata/ml_dtypes, the
// implementation zarr-python uses for them): a chunk holding every bit
// pattern reads as the Float32Array of ml_dtypes' values, and a
// Float32Array of ml_dtypes' float32 test points writes the bits ml_dtypes
// casts them to.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { testData } from "./helpers.mjs";

const dir = path.join(testData, "ml_dtypes");

// A table entry: a number, "nan", "-nan", "inf", "-inf", "-0.0" or a hex
// float ("0x1.8p-3", as Python's float.hex writes it).
function tableFloat(v) {
  if (typeof v === "number") return v;
  switch (v) {
    case "nan": return NaN;
    case "-nan": return -NaN; // the sign is set on the float32 bits below
    case "inf": return Infinity;
    case "-inf": return -Infinity;
    case "-0.0": return -0;
  }
  const m = /^(-?)0x([01])\.([0-9a-f]+)p([+-]\d+)$/.exec(v);
  if (!m) throw new Error(`table entry ${v}`);
  // at most 13 hex digits: 53 bits, exact in a double; float32 points stay
  // far above the float64 subnormals, so the scaling is exact too
  const frac = parseInt(m[3], 16) / 16 ** m[3].length;
  const x = (Number(m[2]) + frac) * 2 ** Number(m[4]);
  return m[1] ? -x : x;
}

// float32 bits of a table entry (a NaN's sign from the entry's text)
function float32Bits(v) {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  if (v === "nan" || v === "-nan") {
    u[0] = v === "nan" ? 0x7fc00000 : 0xffc00000;
    return u[0];
  }
  f[0] = tableFloat(v);
  return u[0];
}

const isNaN32 = (bits) => (bits & 0x7fffffff) > 0x7f800000;

const formats = (await fs.readdir(dir)).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();

test("ml_dtypes' tables are all here", () => {
  assert.equal(formats.length, 12, formats.join(", "));
});

for (const format of formats) {
  test(`${format}: every bit pattern reads, float32 values write, as ml_dtypes`, async () => {
    const tab = JSON.parse(await fs.readFile(path.join(dir, `${format}.json`), "utf8"));
    const size = tab.finfo.bits === 16 ? 2 : 1;
    const n = tab.values.length;
    const doc = {
      zarr_format: 3, node_type: "array", shape: [n], data_type: format,
      chunk_grid: { name: "regular", configuration: { chunk_shape: [n] } },
      chunk_key_encoding: { name: "default" }, fill_value: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    };
    const chunk = new Uint8Array(n * size);
    const view = new DataView(chunk.buffer);
    for (let c = 0; c < n; c++) size === 2 ? view.setUint16(2 * c, c, true) : view.setUint8(c, c);
    const store = new Map([["/r/zarr.json", new TextEncoder().encode(JSON.stringify(doc))], ["/r/c/0", chunk]]);
    const got = await zarr.get(await zarr.open(zarr.root(store).resolve("r"), { kind: "array" }));
    assert.ok(got.data instanceof Float32Array);
    const gotBits = new Uint32Array(got.data.buffer, got.data.byteOffset, n);
    let bad = 0;
    for (let c = 0; c < n; c++) {
      const want = float32Bits(tab.values[c]);
      const same = gotBits[c] === want || (isNaN32(gotBits[c]) && isNaN32(want) && gotBits[c] >>> 31 === want >>> 31);
      if (!same && bad++ < 5) assert.fail(`${format} ${c.toString(16)}: read ${got.data[c]} (bits ${gotBits[c].toString(16)}), ml_dtypes ${tab.values[c]}`);
    }

    // write ml_dtypes' float32 points
    const pts = tab.from_float32;
    const xs = new Float32Array(pts.length);
    const xBits = new Uint32Array(xs.buffer);
    pts.forEach(([x], i) => { xBits[i] = float32Bits(x); });
    const out = new Map();
    const a = await zarr.create(out, {
      path: "w", shape: [pts.length], chunks: [pts.length], dtype: format, zarrFormat: 3,
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    });
    await a.set(null, { data: xs, shape: [pts.length] });
    const stored = out.get("/w/c/0");
    assert.ok(stored, `chunk written (keys: ${[...out.keys()].join(", ")})`);
    assert.equal(stored.length, pts.length * size);
    const sv = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
    let wrong = [];
    pts.forEach(([x, want], i) => {
      const b = size === 2 ? sv.getUint16(2 * i, true) : sv.getUint8(i);
      if (b !== want) wrong.push(`${x} → ${b.toString(16)}, ml_dtypes ${want.toString(16)}`);
    });
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${pts.length} float32 points written unlike ml_dtypes`);
  });
}
