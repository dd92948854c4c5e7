// The compatibility corpus's checks for JavaScript (Node, and the browser
// suite's results brought back to Node): the same rules as
// zarr/compat_test.go. An array read with other values is a failure; a
// refusal must be in refused.txt with its code; a listed array that reads
// must leave the list.
import * as path from "node:path";
import { promises as fs } from "node:fs";
import { fileURLToPath } from "node:url";
import { smallFloatValue } from "../node/helpers.mjs";

export const compatDir = path.dirname(fileURLToPath(import.meta.url));
export const compatData = path.join(compatDir, "data");

export async function loadCompat() {
  // gen.py's cases and gen_extra.py's
  const cases = [];
  for (const name of ["cases.json", "cases-extra.json"]) cases.push(...JSON.parse(await fs.readFile(path.join(compatDir, name), "utf8")));
  const refused = new Map();
  for (const line of (await fs.readFile(path.join(compatDir, "refused.txt"), "utf8")).split("\n")) {
    const l = line.trim();
    if (!l || l.startsWith("#")) continue;
    const [key, code] = l.split(/\s+/);
    refused.set(key, code);
  }
  const cache = new Map();
  const expected = async (name) => {
    if (!cache.has(name)) cache.set(name, new Uint8Array(await fs.readFile(path.join(compatData, "expected", name))));
    return cache.get(name);
  };
  return { cases, refused, expected };
}

export const caseKey = (c) => `${c.store}/${c.path}`;

// Low-precision floats come back as Float32Array: their stored bits are
// decoded for the comparison.
// (complex ones as their parts, interleaved)
const smallFormats = { "<f2": "float16", ">f2": "float16", float16: "float16", bfloat16: "bfloat16", float8_e4m3: "float8_e4m3", float8_e5m2: "float8_e5m2",
  complex_float16: "float16", complex_bfloat16: "bfloat16", complex_float8_e4m3: "float8_e4m3", complex_float8_e5m2: "float8_e5m2" };

function sameNumber(a, b) {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** numbers of the expected raw bytes, read as the result's element type. */
function expectedNumbers(c, raw, data, decimal) {
  if (decimal !== undefined) return Array.from(new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)));
  const fmt = smallFormats[c.dtype];
  if (fmt && data instanceof Float32Array) {
    const width = raw.length / data.length;
    const out = [];
    for (let i = 0; i < data.length; i++) out.push(smallFloatValue(fmt, width === 2 ? raw[2 * i] | (raw[2 * i + 1] << 8) : raw[i]));
    return out;
  }
  const Ctor = data.constructor;
  if (raw.length !== data.length * Ctor.BYTES_PER_ELEMENT) return null;
  return Array.from(new Ctor(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)), Number);
}

function sameTagged(h, w) {
  const v = w.v;
  switch (w.t) {
    case "none":
      return h === null || h === undefined || h === "";
    case "str":
      return h === v || ((h === null || h === undefined) && v === "");
    case "bool":
      return h === v;
    case "bytes": {
      const want = Buffer.from(v, "base64");
      return h instanceof Uint8Array && Buffer.compare(Buffer.from(h), want) === 0;
    }
    case "int":
      return (typeof h === "bigint" && h === BigInt(v)) || (typeof h === "number" && h === Number(v));
    case "float":
      return typeof h === "number" && sameNumber(h, v === "nan" || v === "-nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : parseHexFloat(v));
    case "list": {
      const l = Array.isArray(h) ? h : ArrayBuffer.isView(h) ? Array.from(h) : null;
      return !!l && l.length === v.length && v.every((x, i) => sameTagged(l[i], x));
    }
    case "dict":
      return !!h && typeof h === "object" && Object.keys(h).length === v.length && v.every(([k, x]) => sameTagged(h[k], x));
  }
  return false;
}

function parseHexFloat(s) {
  const m = /^(-?)0x([0-9a-f])\.?([0-9a-f]*)p([+-]\d+)$/i.exec(s);
  if (!m) return NaN;
  const mant = parseInt(m[2], 16) + (m[3] ? parseInt(m[3], 16) / 16 ** m[3].length : 0);
  return (m[1] ? -1 : 1) * mant * 2 ** Number(m[4]);
}

/**
 * Compares one result ({shape, data}) with the case: null when right, a
 * string saying what differs, or "unchecked: ..." when the values are not
 * compared.
 */
export async function checkResult(c, res, expected) {
  if (JSON.stringify(res.shape) !== JSON.stringify(c.shape)) return `shape ${JSON.stringify(res.shape)}, want ${JSON.stringify(c.shape)}`;
  const e = c.expect;
  if (e.unchecked) return `unchecked: ${e.unchecked}`;
  const data = res.data;
  if (e.mask && e.values) {
    // optional of a variable-size type: null exactly where the mask is 0
    const mask = await expected(e.mask);
    if (!Array.isArray(data) || data.length !== mask.length) return "optional values are not an array of the mask's length";
    for (let i = 0; i < mask.length; i++) {
      if ((data[i] !== null && data[i] !== undefined) !== (mask[i] === 1)) return `value ${i} is ${String(data[i])}, the mask says present=${mask[i] === 1}`;
    }
  } else if (e.mask) {
    // optional: {data, mask}, values compared where present
    const mask = await expected(e.mask);
    const raw = await expected(e.raw);
    if (!data || !ArrayBuffer.isView(data.mask) || !ArrayBuffer.isView(data.data)) return "optional data is not {data, mask}";
    const m = new Uint8Array(data.mask.buffer, data.mask.byteOffset, data.mask.byteLength);
    if (Buffer.compare(Buffer.from(m), Buffer.from(mask)) !== 0) return "mask differs";
    const d = new Uint8Array(data.data.buffer, data.data.byteOffset, data.data.byteLength);
    if (d.length !== raw.length) return `${d.length} bytes of values, want ${raw.length}`;
    const size = raw.length / mask.length;
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) continue;
      for (let k = 0; k < size; k++) if (d[i * size + k] !== raw[i * size + k]) return `value ${i} differs`;
    }
    return null;
  }
  if (e.values) {
    const want = JSON.parse(Buffer.from(await expected(e.values)).toString("utf8"));
    const have = Array.isArray(data) ? data : ArrayBuffer.isView(data) ? Array.from(data) : null;
    if (!have || have.length !== want.length) return `${have?.length} values, want ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      if (!sameTagged(have[i], want[i])) return `value ${i} = ${String(have[i])}, want ${JSON.stringify(want[i])}`;
    }
    return null;
  }
  const raw = await expected(e.raw);
  if (Array.isArray(data) && data.every((x) => x instanceof Uint8Array)) {
    // opaque elements (v2 "V", v3 "r*") come back one Uint8Array each
    const flat = Buffer.concat(data.map((x) => Buffer.from(x)));
    return Buffer.compare(flat, Buffer.from(raw)) === 0 ? null : "opaque element bytes differ";
  }
  if (!ArrayBuffer.isView(data)) return `data is ${typeof data}, want a typed array`;
  const tolKind = ["decimal", "atol", "rtol", "relerr"].find((k) => k in e);
  const fmt = smallFormats[c.dtype];
  if (tolKind || (fmt && data instanceof Float32Array)) {
    const want = expectedNumbers(c, raw, data, e.decimal);
    if (!want) return "unchecked: lossy codec on a type compared only as numbers";
    const have = Array.from(data, Number);
    if (have.length !== want.length) return `${have.length} values, want ${want.length}`;
    let tol = 0;
    if (tolKind === "decimal") tol = 1.5 * 10 ** -e.decimal;
    else if (tolKind === "atol" || tolKind === "relerr") tol = e[tolKind];
    else if (tolKind === "rtol") tol = e.rtol * Math.max(0, ...want.filter(Number.isFinite).map(Math.abs));
    for (let i = 0; i < want.length; i++) {
      const lim = tolKind === "relerr" ? tol * Math.abs(want[i]) : tol;
      if (!sameNumber(have[i], want[i]) && !(Math.abs(have[i] - want[i]) <= lim) && !(tolKind === "decimal" && Math.abs(have[i] - want[i]) < lim)) {
        return `value ${i} = ${have[i]}, want ${want[i]}${tolKind ? ` within ${tolKind} ${e[tolKind]}` : ""}`;
      }
    }
    return null;
  }
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length !== raw.length) return `${bytes.length} bytes, want ${raw.length}`;
  for (let i = 0; i < raw.length; i++) if (bytes[i] !== raw[i]) return `bytes differ from byte ${i} of ${raw.length}`;
  return null;
}

/**
 * Tallies outcomes ({res} or {error: {code, message}}, one per case): counts
 * by source, wrong values, refusals missing from refused.txt (or with another
 * code), listed arrays that now read.
 */
export async function tally(compat, outcomes) {
  const { cases, refused, expected } = compat;
  const by = {};
  const wrong = [];
  const newRefusals = [];
  const nowRead = [];
  const reasons = {};
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const o = outcomes[i];
    const t = (by[c.source] ??= { total: 0, read: 0, unchecked: 0, refused: 0 });
    t.total++;
    const key = caseKey(c);
    if (o.error) {
      t.refused++;
      const reason = `${o.error.code}: ${String(o.error.message).replace(/"[^"]*": /, "").slice(0, 100)}`;
      reasons[`${c.source}: ${reason}`] = (reasons[`${c.source}: ${reason}`] ?? 0) + 1;
      if (refused.get(key) !== o.error.code) newRefusals.push(`${key} ${o.error.code} ${o.error.message}`);
      continue;
    }
    const diff = await checkResult(c, o.res, expected);
    if (diff && !diff.startsWith("unchecked: ")) {
      wrong.push(`${key} (${c.source}): ${diff}`);
      continue;
    }
    t.read++;
    if (diff) t.unchecked++;
    if (refused.has(key)) nowRead.push(key);
  }
  const total = Object.values(by).reduce((a, t) => ({ total: a.total + t.total, read: a.read + t.read, refused: a.refused + t.refused }), { total: 0, read: 0, refused: 0 });
  const lines = Object.entries(by)
    .sort()
    .map(([s, t]) => `${s}: ${t.read} of ${t.total} arrays read (${t.unchecked} without a value check), ${t.refused} refused`);
  lines.push(`all: ${total.read} of ${total.total} arrays read, ${total.refused} refused`);
  return { summary: lines, reasons, wrong, newRefusals, nowRead };
}
