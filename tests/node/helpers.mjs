// Shared by the Node suites: paths, a local HTTP server that honours Range
// (and counts requests), and the fixture comparison (the JS mirror of
// tests/conformance: cases.json expectations vs what zarr-wasm returns).
import * as http from "node:http";
import * as http2 from "node:http2";
import * as os from "node:os";
import { promises as fs, createReadStream, rmSync } from "node:fs";
import { spawn, execFileSync } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const npmDir = path.join(repoRoot, "npm");
/** Data other projects wrote, copied in with their licences (tests/testdata/README.md). */
export const testData = path.join(repoRoot, "tests", "testdata");
export const fixturesV2 = path.join(repoRoot, "tests", "fixtures", "v2");

/** Whether a missing peer (zarr-python, zarrita.js) must fail instead of skip. */
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
 *  - delayMs: wait before answering (to observe concurrency); a number, or
 *    a function of the decoded path giving one
 *  - routes: {"/path": (req, res) => void} handlers tried first
 *  - mounts: {"/prefix": dir} serve dir under /prefix (root serves the rest)
 *  - keepAliveTimeout: ms an idle connection is kept (Node's default: 5000)
 *  - hold: a function of the decoded path giving a promise awaited before answering (a gate's wait)
 *  - slots: requests answered at once, the rest queued (delay included): a client's connections
 * stats: requests, connections (TCP connections accepted), rangeRequests, inFlight, maxInFlight, bytes (of bodies sent), byStatus, paths,
 * log ({path, range, headers} per request).
 */
export async function startServer(root, options = {}) {
  const stats = { requests: 0, connections: 0, rangeRequests: 0, inFlight: 0, maxInFlight: 0, bytes: 0, byStatus: {}, paths: [], log: [] };
  const failures = new Map();
  // slots: requests answered at once (the rest wait their turn, delay included)
  let free = options.slots ?? Infinity;
  const waiting = [];
  const handler = async (req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    if (free > 0) free--;
    else await new Promise((r) => waiting.push(r));
    res.on("close", () => {
      stats.inFlight--;
      if (waiting.length) waiting.shift()();
      else free++;
    });
    const finish = (status, headers, body) => {
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      stats.bytes += body?.length ?? 0;
      // CORS on every answer (404s too, as S3 and most servers send it), so pages on other origins see them.
      res.writeHead(status, { "Access-Control-Allow-Origin": "*", ...headers });
      res.end(body);
    };
    try {
      const url = new URL(req.url, "http://127.0.0.1");
      const pathname = decodeURIComponent(url.pathname);
      stats.paths.push(pathname);
      stats.log.push({ path: pathname, range: req.headers.range ?? null, headers: req.headers });
      const delay = typeof options.delayMs === "function" ? options.delayMs(pathname) : options.delayMs;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      if (options.hold) await options.hold(pathname);
      if (options.routes?.[pathname]) return options.routes[pathname](req, res, finish);
      if (options.failFirst) {
        const n = failures.get(pathname) ?? 0;
        if (n < options.failFirst) {
          failures.set(pathname, n + 1);
          return finish(503, {}, "try again");
        }
      }
      let base = root;
      let rel = pathname;
      for (const [prefix, dir] of Object.entries(options.mounts ?? {})) {
        if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
          base = dir;
          rel = pathname.slice(prefix.length);
          break;
        }
      }
      const parts = rel.split("/").filter(Boolean);
      if (parts.includes("..")) return finish(403, {}, "");
      const file = path.join(base, ...parts);
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
      stats.bytes += req.method === "HEAD" ? 0 : st.size;
      res.writeHead(200, { ...headers, "Content-Length": st.size });
      createReadStream(file).pipe(res);
    } catch (e) {
      finish(500, {}, String(e));
    }
  };
  // tls: HTTPS with HTTP/2 (and HTTP/1.1 for clients that ask), with tests/node/tls's certificate.
  const sessions = new Set();
  let server;
  if (options.tls) {
    const [key, cert] = await Promise.all(["key.pem", "cert.pem"].map((f) => fs.readFile(path.join(repoRoot, "tests", "node", "tls", f))));
    server = http2.createSecureServer({ key, cert, allowHTTP1: true }, handler);
    server.on("session", (s) => (sessions.add(s), s.on("close", () => sessions.delete(s))));
  } else server = http.createServer(handler);
  if (options.keepAliveTimeout) server.keepAliveTimeout = options.keepAliveTimeout;
  server.on(options.tls ? "secureConnection" : "connection", () => stats.connections++);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    stats,
    reset() {
      Object.assign(stats, { requests: 0, connections: 0, rangeRequests: 0, inFlight: 0, maxInFlight: 0, bytes: 0, byStatus: {}, paths: [], log: [] });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A gate for tests that check an event happened before something else answered (an abort seen
 * before the store or server answers) instead of bounding wall time: wait() resolves once open()
 * is called. It opens by itself after safetyMs, so a test whose behaviour is broken (a read that
 * waits for the answer) fails on `opened` (or on until's 10 s) instead of hanging; open it at the end of a test.
 */
export function gate(safetyMs = 15_000) {
  let open;
  const p = new Promise((r) => (open = r));
  const g = {
    opened: false,
    wait: () => p,
    open() {
      clearTimeout(t);
      g.opened = true;
      open();
    },
  };
  const t = setTimeout(g.open, safetyMs);
  return g;
}

/** A seeded generator of integers (mulberry32): rnd(n) is in [0, n), the same sequence for a seed. */
export function randomInts(seed) {
  return (n) => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let z = seed;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) % n;
  };
}

/** Resolves once cond() is true (polled every 5 ms); rejects after 10 s. */
export async function until(cond, what = "the condition") {
  for (let i = 0; !cond(); i++) {
    if (i >= 2000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
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

/**
 * Normalises a dtype as cases.json gives it (v2 typestr, v2 descr list, v3
 * name or {name, configuration}) to {kind, size, fields?, format?}.
 * kind: bool int uint float complex datetime bytes(S) unicode void struct
 * object string varbytes.
 */
export function normDType(dt) {
  if (Array.isArray(dt)) {
    let offset = 0;
    const fields = dt.map(([name, t, shape]) => {
      const type = normDType(t);
      const count = (shape ?? []).reduce((a, b) => a * b, 1);
      const f = { name, type, count, offset };
      offset += type.size * count;
      return f;
    });
    return { kind: "struct", size: offset, fields };
  }
  if (typeof dt === "object" && dt !== null) {
    const cfg = dt.configuration ?? {};
    switch (dt.name) {
      case "fixed_length_utf32":
        return { kind: "unicode", size: cfg.length_bytes };
      case "null_terminated_bytes":
        return { kind: "bytes", size: cfg.length_bytes };
      case "raw_bytes":
        return { kind: "void", size: cfg.length_bytes };
      case "numpy.datetime64":
        return { kind: "datetime", size: 8 };
      case "numpy.timedelta64":
        return { kind: "datetime", size: 8 };
      case "struct":
        return normDType(cfg.fields.map((f) => [f.name, f.data_type]));
      case "structured":
        return normDType(cfg.fields);
      default:
        return normDType(dt.name);
    }
  }
  const m = typestrRe.exec(dt);
  if (m && dt.length > 1 && "<>|=".includes(dt[0])) {
    const size = Number(m[3]);
    switch (m[2]) {
      case "b":
        return { kind: "bool", size: 1 };
      case "i":
        return { kind: "int", size };
      case "u":
        return { kind: "uint", size };
      case "f":
        return { kind: "float", size, format: size === 2 ? "float16" : "" };
      case "c":
        return { kind: "complex", size };
      case "M":
      case "m":
        return { kind: "datetime", size: 8 };
      case "S":
        return { kind: "bytes", size };
      case "U":
        return { kind: "unicode", size: 4 * size };
      case "V":
        return { kind: "void", size };
      case "O":
        return { kind: "object", size: 0 };
    }
  }
  let r;
  if (dt === "bool") return { kind: "bool", size: 1 };
  if ((r = /^(u?)int(\d+)$/.exec(dt))) {
    const bits = Number(r[2]);
    return { kind: r[1] ? "uint" : "int", size: Math.max(1, bits / 8) };
  }
  if ((r = /^float(16|32|64)$/.exec(dt))) return { kind: "float", size: Number(r[1]) / 8, format: r[1] === "16" ? "float16" : "" };
  if (dt === "bfloat16") return { kind: "float", size: 2, format: "bfloat16" };
  if (/^float[468]_/.test(dt)) return { kind: "float", size: 1, format: dt };
  if ((r = /^complex(64|128)$/.exec(dt))) return { kind: "complex", size: Number(r[1]) / 8 };
  if ((r = /^r(\d+)$/.exec(dt))) return { kind: "void", size: Number(r[1]) / 8 };
  if (dt === "string") return { kind: "string", size: 0 };
  if (dt === "bytes" || dt === "variable_length_bytes") return { kind: "varbytes", size: 0 };
  throw new Error(`unknown dtype ${JSON.stringify(dt)}`);
}

/** Element size of a dtype (0 for variable-size types). */
export function itemsize(dt) {
  return normDType(dt).size;
}

function typedBytes(ta) {
  return new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);
}

/** Packs zarr-wasm's JS data for n elements of t (normalised) into little-endian element bytes. */
function packNorm(t, data, n) {
  const size = t.size;
  switch (t.kind) {
    case "struct": {
      const out = new Uint8Array(size * n);
      for (const f of t.fields) {
        if (!(f.name in data)) throw new Error(`field ${f.name} missing from the result`);
        const fsize = f.type.size;
        const fb = packNorm(f.type, data[f.name], n * f.count);
        for (let i = 0; i < n; i++) {
          out.set(fb.subarray(i * f.count * fsize, (i + 1) * f.count * fsize), i * size + f.offset);
        }
      }
      return out;
    }
    case "bytes": {
      const out = new Uint8Array(size * n);
      data.forEach((s, i) => {
        for (let k = 0; k < s.length; k++) out[i * size + k] = s.charCodeAt(k);
      });
      return out;
    }
    case "unicode": {
      const out = new Uint8Array(size * n);
      const dv = new DataView(out.buffer);
      data.forEach((s, i) => {
        let k = 0;
        for (const ch of s) dv.setUint32(i * size + 4 * k++, ch.codePointAt(0), true);
      });
      return out;
    }
    case "void": {
      const out = new Uint8Array(size * n);
      data.forEach((b, i) => out.set(b, i * size));
      return out;
    }
    default:
      return typedBytes(data);
  }
}

export function pack(dt, data, n) {
  return packNorm(normDType(dt), data, n);
}

// Small float formats, decoded from their definitions (independently of
// the Go code): [exponent bits, mantissa bits, bias, special].
const smallFloats = {
  float8_e3m4: [3, 4, 3, "ieee"],
  float8_e4m3: [4, 3, 7, "ieee"],
  float8_e4m3fn: [4, 3, 7, "fn"],
  float8_e4m3fnuz: [4, 3, 8, "fnuz"],
  float8_e4m3b11fnuz: [4, 3, 11, "fnuz"],
  float8_e5m2: [5, 2, 15, "ieee"],
  float8_e5m2fnuz: [5, 2, 16, "fnuz"],
  float6_e2m3fn: [2, 3, 1, "none"],
  float6_e3m2fn: [3, 2, 3, "none"],
  float4_e2m1fn: [2, 1, 1, "none"],
};

/** The value of one stored element of a float16/bfloat16/float8-like format. */
export function smallFloatValue(format, bits) {
  if (format === "float16") return halfToNumber(bits);
  if (format === "bfloat16") {
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, bits << 16, false);
    return dv.getFloat32(0, false);
  }
  if (format === "float8_e8m0fnu") return bits === 0xff ? NaN : 2 ** (bits - 127);
  const [eb, mb, bias, special] = smallFloats[format];
  const width = 1 + eb + mb;
  bits &= (1 << width) - 1;
  const sign = bits >> (width - 1);
  const e = (bits >> mb) & ((1 << eb) - 1);
  const m = bits & ((1 << mb) - 1);
  const rest = bits & ((1 << (width - 1)) - 1);
  if (special === "fnuz" && sign && rest === 0) return NaN;
  if (special === "fn" && rest === (1 << (width - 1)) - 1) return NaN;
  if (special === "ieee" && e === (1 << eb) - 1) return m ? NaN : sign ? -Infinity : Infinity;
  const v = e === 0 ? m * 2 ** (1 - bias - mb) : (1 + m / 2 ** mb) * 2 ** (e - bias);
  return sign ? -v : v;
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
  const t = normDType(c.dtype);
  if (c.strings !== undefined) {
    if (!Array.isArray(res.data)) return `data is ${res.data?.constructor?.name}, want string[]`;
    for (let i = 0; i < c.strings.length; i++) {
      if (res.data[i] !== c.strings[i]) return `string ${i}: ${JSON.stringify(res.data[i])}, want ${JSON.stringify(c.strings[i])}`;
    }
    return res.data.length === c.strings.length ? null : `${res.data.length} strings, want ${c.strings.length}`;
  }
  if (c.bytes !== undefined) {
    const want = b64(c.bytes);
    if (t.kind === "float" && t.format) {
      // float16, bfloat16, float8…: zarr-wasm gives the values as a Float32Array.
      if (!(res.data instanceof Float32Array)) return `${t.format} data is ${res.data?.constructor?.name}, want Float32Array`;
      const dv = new DataView(want.buffer);
      for (let i = 0; i < n; i++) {
        const bits = t.size === 2 ? dv.getUint16(2 * i, true) : want[i];
        const w = Math.fround(smallFloatValue(t.format, bits));
        if (!sameNumber(res.data[i], w)) return `element ${i}: ${res.data[i]}, want ${w} (bits ${bits.toString(16)})`;
      }
      return null;
    }
    const have = packNorm(t, res.data, n);
    if (have.length !== want.length) return `${have.length} bytes, want ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      if (have[i] !== want[i]) {
        if (anyNaN && (t.kind === "float" || t.kind === "complex")) {
          const width = t.kind === "complex" ? t.size / 2 : t.size;
          if (floatBitsEqualAnyNaN(have, want, width)) return null;
        }
        const size = t.size || 1;
        const e = Math.floor(i / size);
        return `element ${e}: bytes ${[...have.subarray(e * size, (e + 1) * size)]} want ${[...want.subarray(e * size, (e + 1) * size)]}`;
      }
    }
    return null;
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

/** The JS TypedArray (or "Array"/"object") zarr-wasm must return for a dtype. */
export function expectedJSType(dt) {
  const t = normDType(dt);
  switch (t.kind) {
    case "bool":
      return "Uint8Array";
    case "int":
      return { 1: "Int8Array", 2: "Int16Array", 4: "Int32Array", 8: "BigInt64Array" }[t.size];
    case "uint":
      return { 1: "Uint8Array", 2: "Uint16Array", 4: "Uint32Array", 8: "BigUint64Array" }[t.size];
    case "float":
      return t.size === 8 ? "Float64Array" : "Float32Array";
    case "complex":
      return t.size === 16 ? "Float64Array" : "Float32Array";
    case "datetime":
      return "BigInt64Array";
    case "struct":
      return "object";
    default:
      return "Array";
  }
}

/** A Markdown text's fenced code blocks: {lang, line (of the first line of code), code}. */
export function codeBlocks(text) {
  const lines = text.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("```")) continue;
    const b = { lang: lines[i].slice(3).trim(), line: i + 2, code: [] };
    for (i++; i < lines.length && !lines[i].startsWith("```"); i++) b.code.push(lines[i]);
    out.push({ ...b, code: `${b.code.join("\n")}\n` });
  }
  return out;
}

let s3ServeBin;
/** Builds tests/s3/serve once per process (removed when the process exits). */
export function s3ServeBinary() {
  if (!s3ServeBin) {
    s3ServeBin = path.join(os.tmpdir(), `zarr-wasm-s3-serve-${process.pid}`);
    execFileSync("go", ["build", "-o", s3ServeBin, "./tests/s3/serve"], { cwd: repoRoot, stdio: "inherit" });
    process.on("exit", () => rmSync(s3ServeBin, { force: true }));
  }
  return s3ServeBin;
}

/**
 * Starts an S3 server, tests/s3/serve with args (the fake, or SeaweedFS with
 * -weed); resolves to {endpoint, bucket, admin, reader, control(settings),
 * log(), stop()}.
 */
export async function startS3Server(args) {
  const proc = spawn(s3ServeBinary(), args, { stdio: ["pipe", "pipe", "inherit"] });
  const info = await new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    proc.on("exit", (code) => reject(new Error(`tests/s3/serve ${args.join(" ")} exited (${code})`)));
  });
  info.control = async (settings) => {
    const q = new URLSearchParams(Object.entries(settings).map(([k, v]) => [k, String(v)]));
    const r = await fetch(`${info.endpoint}/_control?${q}`);
    if (r.status !== 200) throw new Error(`tests/s3/serve control ${q}: ${r.status} ${await r.text()}`);
  };
  info.log = async () => (await (await fetch(`${info.endpoint}/_log`)).text()).split("\n").filter(Boolean);
  info.stop = () => {
    proc.stdin.end();
    return new Promise((resolve) => (proc.exitCode !== null ? resolve() : proc.on("exit", resolve)));
  };
  return info;
}
