// The zarr-wasm command (bin/zarr-wasm.js runs it; cmd/zarr is the same
// command in Go):
//   zarr-wasm info <path-or-url> [node-path]   the hierarchy as a tree: shape, dtype, chunks, codecs, attributes
//   zarr-wasm cat <array-path-or-url> [selection] [--all]   the values (NumPy-style selection, e.g. "0:5, ::2")
// A location may be a reference set (kerchunk / fsspec): a .json file or a
// .parq/.parquet directory, local or a URL, followed by the path inside it
// (refs.json/temperature), or a URL pipeline
// (https://host/data.zip|zip:path/in/zip|zarr3:group/array).
import { promises as fs } from "node:fs";
import * as nodePath from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import * as zarr from "../node.js";

const usage = `usage: zarr-wasm info <path-or-url> [node-path]
       zarr-wasm cat <array-path-or-url> [selection] [--all]

  info  prints the hierarchy as a tree with shape, dtype, chunks, codecs and attributes
  cat   prints the values of an array (selection like "0:10, ::2, -1"; --all: no summarising)

  A reference set (kerchunk JSON, .json; Parquet, .parq/.parquet directory)
  is opened as a store; a path inside it follows: refs.json/temperature`;

const refsRe = /^(.*?\.(?:json(?:\.gz|\.zst)?|parq|parquet))(?:\/+(.*))?$/i;

/**
 * {store, path, zarrFormat?}: path is the node inside a reference set or a
 * URL pipeline ("" otherwise); a pipeline's zarr2:/zarr3: gives zarrFormat.
 */
async function storeFor(location) {
  if (location.includes("|")) {
    // a URL pipeline: its root an http(s) URL or a local path
    const rootStore = (dir) => (/^https?:\/\//i.test(dir) ? new zarr.FetchStore(dir) : new zarr.FileSystemStore(dir.startsWith("file:") ? fileURLToPath(dir) : nodePath.resolve(dir)));
    return zarr.locate(location, { rootStore });
  }
  const m = refsRe.exec(location);
  if (m) {
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(m[1]) ? m[1] : pathToFileURL(nodePath.resolve(m[1])).href;
    return { store: await zarr.ReferenceStore.fromUrl(url, { fetch: fileFetch }), path: m[2] ?? "" };
  }
  if (/^https?:\/\//i.test(location)) return { store: new zarr.FetchStore(location), path: "" };
  // A path that does not exist (a typo in the array's name, say) opens the
  // nearest directory that does, with the rest as the path inside, so the
  // engine can name what is there ("did you mean").
  let base = nodePath.resolve(location);
  const rest = [];
  while (!(await isDir(base)) && nodePath.dirname(base) !== base) {
    rest.unshift(nodePath.basename(base));
    base = nodePath.dirname(base);
  }
  return rest.length ? { store: new zarr.FileSystemStore(base), path: rest.join("/") } : { store: new zarr.FileSystemStore(location), path: "" };
}

/** How far up an http(s) URL openNode looks for the hierarchy that can name a mistyped node. */
const maxAncestors = 8;

/**
 * Opens path in store. Where an http(s) location names nothing, the URL's
 * ancestors are tried as the store with the rest as the path: a hierarchy
 * root with consolidated metadata then names what is there.
 */
async function openNode(location, store, path, options) {
  try {
    return await zarr.open(store, { ...options, path });
  } catch (e) {
    if (e.code !== "NOT_FOUND" || e.suggest || !/^https?:\/\//i.test(location) || refsRe.test(location)) throw e;
    const u = new URL(location);
    const segs = u.pathname.replace(/^\/+|\/+$/g, "").split("/");
    for (let i = segs.length - 1; i >= 0 && segs.length - i <= maxAncestors; i--) {
      const base = new URL(u);
      base.pathname = `/${segs.slice(0, i).join("/")}`;
      const rest = [...segs.slice(i), ...path.split("/")].filter(Boolean).join("/");
      try {
        await zarr.open(new zarr.FetchStore(base), { ...options, path: rest });
      } catch (a) {
        if (a.code === "NOT_FOUND" && a.suggest) throw a;
      }
    }
    throw e;
  }
}

async function isDir(p) {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** fetch, plus file: URLs read from disk (with Range), for local reference sets and targets. */
async function fileFetch(req) {
  const u = new URL(req.url);
  if (u.protocol !== "file:") return fetch(req);
  let fh;
  try {
    fh = await fs.open(fileURLToPath(u));
    const st = await fh.stat();
    if (!st.isFile()) return new Response(null, { status: 404 });
    const size = st.size;
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.get("Range") ?? "");
    if (!range) return new Response(await fh.readFile(), { status: 200 });
    const start = range[1] === "" ? Math.max(0, size - Number(range[2])) : Number(range[1]);
    const end = range[1] === "" || range[2] === "" ? size - 1 : Math.min(Number(range[2]), size - 1);
    if (start > end) return new Response(null, { status: 416, headers: { "Content-Range": `bytes */${size}` } });
    const buf = Buffer.alloc(end - start + 1);
    await fh.read(buf, 0, buf.length, start);
    return new Response(buf, { status: 206, headers: { "Content-Range": `bytes ${start}-${end}/${size}` } });
  } catch (e) {
    if (["ENOENT", "ENOTDIR", "EISDIR"].includes(e.code)) return new Response(null, { status: 404 });
    throw e;
  } finally {
    await fh?.close();
  }
}

function tuple(a) {
  return `(${a.join(", ")}${a.length === 1 ? "," : ""})`;
}

function codecText(c) {
  const cfg = c.configuration ?? {};
  const parts = Object.entries(cfg)
    .filter(([k]) => k !== "id")
    .map(([k, v]) => `${k}=${typeof v === "object" && v !== null ? JSON.stringify(v, big) : String(v)}`);
  return parts.length ? `${c.name}(${parts.join(", ")})` : c.name;
}

function big(_k, v) {
  return typeof v === "bigint" ? v.toString() : v;
}

function attrText(attrs) {
  if (!attrs || Object.keys(attrs).length === 0) return "";
  return `  attrs ${JSON.stringify(attrs, (k, v) => (typeof v === "bigint" ? v.toString() : typeof v === "number" && !Number.isFinite(v) ? String(v) : v))}`;
}

/** The data type's name, with the stored v2 typestr beside it when it says more (byte order). */
function dtypeText(arr) {
  const name = typeof arr.dtype === "string" ? arr.dtype : arr.dtype.name;
  const stored = arr.dataType.stored;
  if (stored === undefined || stored === name) return name;
  return `${name} (${typeof stored === "string" ? stored : JSON.stringify(stored)})`;
}

function describe(node) {
  if (node.kind === "group") {
    return `group v${node.zarrFormat}${node.consolidated ? " (consolidated)" : ""}${attrText(node.attrs)}`;
  }
  const chunks = node.chunks ? tuple(node.chunks) : JSON.stringify(node.chunkSizes);
  return `array v${node.zarrFormat}  shape ${tuple(node.shape)}  dtype ${dtypeText(node)}  chunks ${chunks}${node.shards ? `  shards ${tuple(node.shards)}` : ""}  codecs ${node.codecs.map(codecText).join(", ")}${attrText(node.attrs)}`;
}

async function printTree(node, name, prefix, childPrefix, out) {
  out.push(`${prefix}${name}${node.kind === "group" ? "/" : ""}  ${describe(node)}`);
  if (node.kind !== "group") return;
  let kids;
  try {
    kids = await node.children();
  } catch (e) {
    out.push(`${childPrefix}└── (children not listed: ${e.code}: ${e.message})`);
    return;
  }
  for (let i = 0; i < kids.length; i++) {
    const last = i === kids.length - 1;
    if (!kids[i].node) {
      out.push(`${childPrefix}${last ? "└── " : "├── "}${kids[i].name}  (cannot be opened: ${kids[i].error.code}: ${kids[i].error.message})`);
      continue;
    }
    await printTree(kids[i].node, kids[i].name, childPrefix + (last ? "└── " : "├── "), childPrefix + (last ? "    " : "│   "), out);
  }
}

// ---- values ---------------------------------------------------------------

/** The shortest decimal that reads back as the same float32. */
function fmtFloat32(x) {
  if (!Number.isFinite(x) || x === 0) return fmtNumber(x);
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

function fmtNumber(x) {
  if (typeof x === "bigint") return x.toString();
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Object.is(x, -0)) return "-0.0";
  return String(x);
}

/**
 * A function giving element i as text, for the array's data type (type:
 * dataType, how values look in JS; dtype: the type's name or description).
 */
function elementText(type, data, dtype) {
  switch (type.js) {
    case "string":
      return (i) => JSON.stringify(data[i]);
    case "bytes":
      return (i) => `b'${[...data[i]].map((b) => (b >= 32 && b < 127 && b !== 39 && b !== 92 ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("")}'`;
    case "object":
      return (i) => {
        const v = data[i];
        if (v instanceof Uint8Array) return `<${v.length} bytes>`;
        return JSON.stringify(v, big) ?? String(v);
      };
    case "struct": {
      const parts = type.fields.map((f, k) => {
        const n = f.shape.reduce((a, b) => a * b, 1);
        const inner = elementText(f.type, data[f.name], dtype?.fields?.[k]?.dtype);
        return n === 1 && f.shape.length === 0 ? inner : (i) => `[${Array.from({ length: n }, (_, k) => inner(i * n + k)).join(", ")}]`;
      });
      return (i) => `(${parts.map((p) => p(i)).join(", ")})`;
    }
  }
  const num = data instanceof Float32Array ? fmtFloat32 : fmtNumber;
  if (type.items === 2) {
    return (i) => {
      const re = data[2 * i];
      const im = data[2 * i + 1];
      const sign = im < 0 || Object.is(im, -0) ? "-" : "+";
      return `${num(re)}${sign}${num(Math.abs(im))}j`;
    };
  }
  if (dtype === "bool") return (i) => (data[i] ? "True" : "False");
  return (i) => num(data[i]);
}

/** NumPy-like nested brackets; long dimensions are summarised with "...". */
function formatArray(shape, text, all) {
  const total = shape.reduce((a, b) => a * b, 1);
  const edge = 3;
  const summarise = !all && total > 1000;
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const rec = (d, offset, indent) => {
    if (d === shape.length) return text(offset);
    const n = shape[d];
    const idx = summarise && n > 2 * edge ? [...Array(edge).keys(), -1, ...Array.from({ length: edge }, (_, k) => n - edge + k)] : [...Array(n).keys()];
    const parts = idx.map((i) => (i < 0 ? "..." : rec(d + 1, offset + i * strides[d], `${indent} `)));
    if (d === shape.length - 1) return `[${parts.join(" ")}]`;
    const sep = `\n${"\n".repeat(Math.max(0, shape.length - d - 2))}${indent} `;
    return `[${parts.join(sep)}]`;
  };
  if (shape.length === 0) return text(0);
  return rec(0, 0, "");
}

/**
 * Runs the command with argv (without node and the script); out and err
 * take lines of text. Resolves to the exit status: 0, 1 for an error, 2 for
 * a usage error.
 */
export async function main(argv, out = console.log, err = console.error) {
  try {
    return await command(argv, out, err);
  } catch (e) {
    err(`zarr-wasm: ${e.code ? `${e.code}: ` : ""}${e.message}${e.suggest && !e.message.includes("did you mean") ? ` (did you mean ${JSON.stringify(e.suggest)}?)` : ""}`);
    return 1;
  }
}

async function command(argv, log, error) {
  const args = argv.filter((a) => a !== "--all");
  const all = args.length !== argv.length;
  const [cmd, location, third] = args;
  if (!cmd || cmd === "-h" || cmd === "--help" || !location || !["info", "cat"].includes(cmd)) {
    error(usage);
    return cmd === "-h" || cmd === "--help" ? 0 : 2;
  }
  const { store, path: inner, zarrFormat } = await storeFor(location);
  if (cmd === "info") {
    let node;
    try {
      node = await openNode(location, store, third ?? inner, { zarrFormat });
    } catch (e) {
      e.message = `${location}: ${e.message}`;
      throw e;
    }
    const name = third || location.replace(/\/+$/, "").split("/").pop() || location;
    const out = [];
    await printTree(node, name, "", "", out);
    log(out.join("\n"));
    return 0;
  }
  let arr;
  try {
    arr = await openNode(location, store, inner, { kind: "array", zarrFormat });
  } catch (e) {
    e.message = `${location}: ${e.message}`;
    throw e;
  }
  const res = await arr.get(third ?? null);
  log(`shape ${tuple(res.shape)}  dtype ${dtypeText(arr)}`);
  log(formatArray(res.shape, elementText(arr.dataType, res.data, arr.dtype), all));
  return 0;
}

