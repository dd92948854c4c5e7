// Shared by the Node suites: paths, a local HTTP server that honours Range
// (and counts requests), and the fixture comparison (the JS mirror of
// tests/conformance: cases.json expectations vs what zarr-wasm returns).
import * as http from "node:http";
import { promises as fs, createReadStream } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const npmDir = path.join(repoRoot, "npm");
export const sharedDir = path.resolve(repoRoot, "..", "shared");
export const fixturesV2 = path.join(repoRoot, "tests", "fixtures", "v2");

/** Whether a missing peer (../shared, zarrita) must fail instead of skip. */
export const peersRequired = process.env.ZARR_WASM_REQUIRE_PEERS === "1";

export async function exists(p) {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}

const mime = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".css": "text/css",
};

/**
 * Serves root on 127.0.0.1 (a random port). Options:
 *  - ignoreRange: answer ranged requests with 200 and the whole body
 *  - failFirst: answer the first N requests of each path with 503
 *  - delayMs: wait before answering (to observe concurrency)
 *  - routes: {"/path": (req, res) => void} handlers tried first
 * stats: requests, rangeRequests, inFlight, maxInFlight, byStatus, paths.
 */
export async function startServer(root, options = {}) {
  const stats = { requests: 0, rangeRequests: 0, inFlight: 0, maxInFlight: 0, byStatus: {}, paths: [] };
  const failures = new Map();
  const server = http.createServer(async (req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    res.on("close", () => stats.inFlight--);
    const finish = (status, headers, body) => {
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      res.writeHead(status, headers);
      res.end(body);
    };
    try {
      const url = new URL(req.url, "http://127.0.0.1");
      const pathname = decodeURIComponent(url.pathname);
      stats.paths.push(pathname);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (options.routes?.[pathname]) return options.routes[pathname](req, res, finish);
      if (options.failFirst) {
        const n = failures.get(pathname) ?? 0;
        if (n < options.failFirst) {
          failures.set(pathname, n + 1);
          return finish(503, {}, "try again");
        }
      }
      const file = path.join(root, ...pathname.split("/").filter(Boolean));
      if (!file.startsWith(root)) return finish(403, {}, "");
      let st;
      try {
        st = await fs.stat(file);
      } catch {
        return finish(404, {}, "");
      }
      if (!st.isFile()) return finish(404, {}, "");
      const headers = {
        "Content-Type": mime[path.extname(file)] ?? "application/octet-stream",
        "Accept-Ranges": "bytes",
        "Cache-Control": "no-store",
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": "Content-Range",
      };
      const range = req.headers.range;
      if (range) stats.rangeRequests++;
      if (range && !options.ignoreRange) {
        const m = /^bytes=(\d*)-(\d*)$/.exec(range);
        if (!m || (m[1] === "" && m[2] === "")) return finish(416, { "Content-Range": `bytes */${st.size}` }, "");
        let start;
        let end;
        if (m[1] === "") {
          const n = Number(m[2]);
          start = Math.max(0, st.size - n);
          end = st.size - 1;
        } else {
          start = Number(m[1]);
          end = m[2] === "" ? st.size - 1 : Math.min(Number(m[2]), st.size - 1);
        }
        if (start >= st.size || start > end) return finish(416, { "Content-Range": `bytes */${st.size}` }, "");
        const body = Buffer.alloc(end - start + 1);
        const fh = await fs.open(file, "r");
        try {
          await fh.read(body, 0, body.length, start);
        } finally {
          await fh.close();
        }
        return finish(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${st.size}`, "Content-Length": body.length }, body);
      }
      stats.byStatus[200] = (stats.byStatus[200] ?? 0) + 1;
      res.writeHead(200, { ...headers, "Content-Length": st.size });
      createReadStream(file).pipe(res);
    } catch (e) {
      finish(500, {}, String(e));
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    reset() {
      Object.assign(stats, { requests: 0, rangeRequests: 0, inFlight: 0, maxInFlight: 0, byStatus: {}, paths: [] });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

// ---- fixture comparison ------------------------------------------------

export async function loadCases(file) {
  return parseJSONBig(await fs.readFile(file, "utf8"));
}

const bigMark = "\u0000bigint:";

/**
 * JSON.parse, except that integers beyond Number.MAX_SAFE_INTEGER become
 * BigInt (JSON.parse would round them).
 */
export function parseJSONBig(text) {
  let out = "";
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      continue;
    }
    if (ch === "-" || (ch >= "0" && ch <= "9")) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++;
      const tok = text.slice(i, j);
      if (/^-?\d+$/.test(tok) && !Number.isSafeInteger(Number(tok))) {
        out += text.slice(last, i) + JSON.stringify(bigMark + tok);
        last = j;
      }
      i = j - 1;
    }
  }
  out += text.slice(last);
  return JSON.parse(out, (k, v) => (typeof v === "string" && v.startsWith(bigMark) ? BigInt(v.slice(bigMark.length)) : v));
}

const typestrRe = /^([<>|=])([a-zA-Z])(\d*)(\[.*\])?$/;

/** Element size of a v2 dtype (typestr or descr list). */
export function itemsize(dt) {
  if (typeof dt === "string") {
    const m = typestrRe.exec(dt);
    if (!m) throw new Error(`bad typestr ${dt}`);
    if (m[2] === "O") return 0;
    return Number(m[3]) * (m[2] === "U" ? 4 : 1);
  }
  let n = 0;
  for (const [, t, shape] of dt) n += itemsize(t) * (shape ?? []).reduce((a, b) => a * b, 1);
  return n;
}

function typedBytes(ta) {
  return new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);
}

/** Packs zarr-wasm's JS data for n elements of dt into little-endian element bytes. */
export function pack(dt, data, n) {
  const size = itemsize(dt);
  if (Array.isArray(dt)) {
    const out = new Uint8Array(size * n);
    let offset = 0;
    for (const [name, t, shape] of dt) {
      const count = (shape ?? []).reduce((a, b) => a * b, 1);
      const fsize = itemsize(t);
      if (!(name in data)) throw new Error(`field ${name} missing from the result`);
      const fb = pack(t, data[name], n * count);
      for (let i = 0; i < n; i++) {
        out.set(fb.subarray(i * count * fsize, (i + 1) * count * fsize), i * size + offset);
      }
      offset += fsize * count;
    }
    return out;
  }
  const kind = typestrRe.exec(dt)[2];
  switch (kind) {
    case "S": {
      const out = new Uint8Array(size * n);
      data.forEach((s, i) => {
        for (let k = 0; k < s.length; k++) out[i * size + k] = s.charCodeAt(k);
      });
      return out;
    }
    case "U": {
      const out = new Uint8Array(size * n);
      const dv = new DataView(out.buffer);
      data.forEach((s, i) => {
        let k = 0;
        for (const ch of s) dv.setUint32(i * size + 4 * k++, ch.codePointAt(0), true);
      });
      return out;
    }
    case "V": {
      const out = new Uint8Array(size * n);
      data.forEach((b, i) => out.set(b, i * size));
      return out;
    }
    default:
      return typedBytes(data);
  }
}

function b64(s) {
  return new Uint8Array(Buffer.from(s, "base64"));
}

function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function sameNumber(a, b) {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
}

function floatBitsEqualAnyNaN(have, want, width) {
  if (have.length !== want.length) return false;
  const dh = new DataView(have.buffer, have.byteOffset, have.byteLength);
  const dw = new DataView(want.buffer, want.byteOffset, want.byteLength);
  for (let i = 0; i < have.length; i += width) {
    const h = width === 4 ? dh.getFloat32(i, true) : dh.getFloat64(i, true);
    const w = width === 4 ? dw.getFloat32(i, true) : dw.getFloat64(i, true);
    let same = true;
    for (let k = 0; k < width; k++) if (have[i + k] !== want[i + k]) same = false;
    if (!same && !(Number.isNaN(h) && Number.isNaN(w))) return false;
  }
  return true;
}

function sameObject(have, want) {
  if (want === null) return have === null;
  if (typeof want === "object" && !Array.isArray(want)) {
    const keys = Object.keys(want);
    if (keys.length === 1 && keys[0] === "base64") {
      if (!(have instanceof Uint8Array)) return false;
      return Buffer.from(have).toString("base64") === want.base64;
    }
    if (have === null || typeof have !== "object") return false;
    if (Object.keys(have).length !== keys.length) return false;
    return keys.every((k) => sameObject(have[k], want[k]));
  }
  if (Array.isArray(want)) {
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => sameObject(have[i], w));
  }
  if (typeof want === "number") {
    if (typeof have === "bigint") return Number.isInteger(want) && BigInt(want) === have;
    return sameNumber(have, want);
  }
  if (typeof want === "bigint") return typeof have === "bigint" && have === want;
  return have === want;
}

/**
 * Compares a zarr-wasm get() result with a case of cases.json. Returns null
 * when they agree, else a description of the first difference.
 */
export function compareCase(c, res, { anyNaN = false } = {}) {
  if (JSON.stringify(res.shape) !== JSON.stringify(c.shape)) return `shape ${JSON.stringify(res.shape)}, want ${JSON.stringify(c.shape)}`;
  const n = c.shape.reduce((a, b) => a * b, 1);
  const dt = c.dtype;
  if (c.bytes !== undefined) {
    const want = b64(c.bytes);
    if (typeof dt === "string" && /^[<>]f2$/.test(dt)) {
      if (!(res.data instanceof Float32Array)) return `float16 data is ${res.data?.constructor?.name}, want Float32Array`;
      const dv = new DataView(want.buffer);
      for (let i = 0; i < n; i++) {
        const w = halfToNumber(dv.getUint16(2 * i, true));
        if (!sameNumber(res.data[i], w)) return `element ${i}: ${res.data[i]}, want ${w}`;
      }
      return null;
    }
    const have = pack(dt, res.data, n);
    if (have.length !== want.length) return `${have.length} bytes, want ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      if (have[i] !== want[i]) {
        if (anyNaN && typeof dt === "string") {
          const width = /c8|f4/.test(dt) ? 4 : 8;
          if (floatBitsEqualAnyNaN(have, want, width)) return null;
        }
        const size = itemsize(dt) || 1;
        const e = Math.floor(i / size);
        return `element ${e}: bytes ${[...have.subarray(e * size, (e + 1) * size)]} want ${[...want.subarray(e * size, (e + 1) * size)]}`;
      }
    }
    return null;
  }
  if (c.strings !== undefined) {
    if (!Array.isArray(res.data)) return `data is ${res.data?.constructor?.name}, want string[]`;
    for (let i = 0; i < c.strings.length; i++) {
      if (res.data[i] !== c.strings[i]) return `string ${i}: ${JSON.stringify(res.data[i])}, want ${JSON.stringify(c.strings[i])}`;
    }
    return res.data.length === c.strings.length ? null : `${res.data.length} strings, want ${c.strings.length}`;
  }
  if (c.objects !== undefined) {
    if (!Array.isArray(res.data)) return `data is ${res.data?.constructor?.name}, want an array`;
    if (res.data.length !== c.objects.length) return `${res.data.length} objects, want ${c.objects.length}`;
    for (let i = 0; i < c.objects.length; i++) {
      if (!sameObject(res.data[i], c.objects[i])) return `object ${i}: ${fmt(res.data[i])}, want ${JSON.stringify(c.objects[i])}`;
    }
    return null;
  }
  return "case has no expected values";
}

function fmt(v) {
  try {
    return JSON.stringify(v, (k, x) => (typeof x === "bigint" ? `${x}n` : x instanceof Uint8Array ? `Uint8Array(${[...x]})` : x));
  } catch {
    return String(v);
  }
}

/** The JS TypedArray (or kind) zarr-wasm must return for a v2 typestr. */
export function expectedJSType(dt) {
  if (Array.isArray(dt)) return "object";
  const [, , k, sz] = typestrRe.exec(dt);
  const s = Number(sz);
  switch (k) {
    case "b":
      return "Uint8Array";
    case "i":
      return { 1: "Int8Array", 2: "Int16Array", 4: "Int32Array", 8: "BigInt64Array" }[s];
    case "u":
      return { 1: "Uint8Array", 2: "Uint16Array", 4: "Uint32Array", 8: "BigUint64Array" }[s];
    case "f":
      return s === 8 ? "Float64Array" : "Float32Array";
    case "c":
      return s === 16 ? "Float64Array" : "Float32Array";
    case "M":
    case "m":
      return "BigInt64Array";
    default:
      return "Array";
  }
}
