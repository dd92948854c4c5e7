// The zarr-wasm command (bin/zarr-wasm.js runs it; cmd/zarr is the same
// command in Go, and both print with the engine's internal/clitext, here
// through the bridge in the engine's full build):
//   zarr-wasm info <path-or-url> [node-path]   the hierarchy as a tree: shape, dtype, chunks, codecs, attributes
//   zarr-wasm cat <array-path-or-url> [selection] [--all]   the values (NumPy-style selection, e.g. "0:5, ::2")
//   zarr-wasm log <icechunk-repository>   the ancestry of a version: id, time, message
// A location may be a reference set (kerchunk / fsspec): a .json file or a
// .parq/.parquet directory, local or a URL, followed by the path inside it
// (refs.json/temperature); a URL pipeline
// (https://host/data.zip|zip:path/in/zip|zarr3:group/array); an object
// store's (s3://bucket/prefix, gs://bucket/prefix) with the AWS CLI's
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION or AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL), as cmd/zarr; or an Icechunk repository (told by its
// files when the location holds no Zarr node; --branch, --tag or --snapshot
// choose the version, the branch main by default).
import { promises as fs } from "node:fs";
import * as nodePath from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import * as zarr from "../node.js";
import { callBridge } from "./runtime.js";
import { nearest } from "./options.js";

const usage = `usage: zarr-wasm info <path-or-url> [node-path] [--branch B | --tag T | --snapshot ID]
       zarr-wasm cat <array-path-or-url> [selection] [--all] [--branch B | --tag T | --snapshot ID]
       zarr-wasm log <icechunk-repository> [--branch B | --tag T | --snapshot ID]

  info  prints the hierarchy as a tree with shape, dtype, chunks, codecs and attributes
  cat   prints the values of an array (selection like "0:10, ::2, -1"; --all: no summarising)
  log   prints an Icechunk version's ancestry, newest first: id, time, message

  A reference set (kerchunk JSON, .json; Parquet, .parq/.parquet directory)
  is opened as a store; a path inside it follows: refs.json/temperature.
  An Icechunk repository opens at the branch main, or the version given.

  Object stores: s3://bucket/prefix, gs://bucket/prefix, with the AWS CLI's
  environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
  AWS_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL)`;

/** FetchStore options from the AWS CLI's environment variables. */
function envOptions() {
  const env = process.env;
  const o = {};
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
  if (region) o.region = region;
  if (endpoint) o.endpoint = endpoint;
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    o.credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN || undefined };
  }
  return o;
}

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
  // http(s), s3:// and gs://; another scheme is refused by the engine with the near one named
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !/^file:/i.test(location)) return { store: new zarr.FetchStore(location, envOptions()), path: "" };
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
        await zarr.open(new zarr.FetchStore(base, envOptions()), { ...options, path: rest });
      } catch (a) {
        if (a.code === "NOT_FOUND" && a.suggest) throw a;
      }
    }
    throw e;
  }
}

/**
 * The Icechunk repository at store (inner: the node's path inside it), or,
 * for an http(s) location, at an ancestor of the URL (the rest of the URL
 * is then the node's path): {store, path}. Virtual chunks are not read (no
 * prefix is allowed).
 */
async function openIcechunk(location, store, inner, version) {
  const notARepo = (e) => e.code === "NOT_FOUND" && /no Icechunk repository/.test(e.message);
  try {
    return { store: await zarr.IcechunkStore.open(store, version), path: inner };
  } catch (e) {
    if (!notARepo(e) || !/^https?:\/\//i.test(location) || location.includes("|")) throw e;
    const u = new URL(location);
    const segs = u.pathname.replace(/^\/+|\/+$/g, "").split("/");
    for (let i = segs.length - 1; i >= 0 && segs.length - i <= maxAncestors; i--) {
      const base = new URL(u);
      base.pathname = `/${segs.slice(0, i).join("/")}`;
      try {
        const ic = await zarr.IcechunkStore.open(new zarr.FetchStore(base, envOptions()), version);
        return { store: ic, path: [...segs.slice(i), ...inner.split("/")].filter(Boolean).join("/") };
      } catch (a) {
        if (!notARepo(a)) throw a;
      }
    }
    throw e;
  }
}

/** The command's arguments: {args, all, version (branch/tag/snapshot given), versioned, bad}. */
function parseArgs(argv) {
  const out = { args: [], all: false, version: {}, versioned: false, bad: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--all") {
      out.all = true;
      continue;
    }
    const m = /^--(branch|tag|snapshot)(?:=(.*))?$/.exec(a);
    if (!m) {
      out.args.push(a);
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      if (i + 1 >= argv.length) {
        out.bad = true;
        break;
      }
      value = argv[++i];
    }
    out.version[m[1]] = value;
    out.versioned = true;
  }
  return out;
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

// The command's words: a misspelt one is refused naming the nearest (as cmd/zarr does).
const commands = ["info", "cat", "log"];
const flags = ["--all", "--help", "--branch", "--tag", "--snapshot"];

/** cmd/zarr's message for a word that is not one of accepted (errs.Unknown). */
function unknownWord(what, word, accepted) {
  const near = nearest(word, accepted);
  const rest = near ? ` (did you mean ${JSON.stringify(near)}?)` : `; it takes ${accepted.map((a) => JSON.stringify(a)).join(", ")}`;
  return `zarr-wasm: INVALID_ARGUMENT: ${JSON.stringify(word)}: unknown ${what}${rest}`;
}

async function command(argv, log, error) {
  if (argv.includes("-h") || argv.includes("--help")) {
    error(usage);
    return 0;
  }
  const { args, all, version, versioned, bad } = parseArgs(argv);
  // (one dash may start a selection: "-1", "-3:")
  const flag = args.find((a) => a.startsWith("--"));
  if (flag !== undefined) {
    error(unknownWord("flag", flag.split("=")[0], flags));
    error(usage);
    return 2;
  }
  const [cmd, location, third] = args;
  if (cmd !== undefined && !commands.includes(cmd)) {
    error(unknownWord("command", cmd, commands));
    error(usage);
    return 2;
  }
  if (bad || !location || args.length > 3) {
    error(usage);
    return 2;
  }
  // What the command prints is written by the engine's full build: start
  // that one alone.
  await zarr.init(undefined, { engine: "full" });
  let { store, path: inner, zarrFormat } = await storeFor(location);
  let icechunk = false;
  if (versioned || cmd === "log") {
    // an Icechunk repository, surely
    try {
      ({ store, path: inner } = await openIcechunk(location, store, inner, version));
    } catch (e) {
      e.message = `${location}: ${e.message}`;
      throw e;
    }
    if (cmd === "log") {
      const text = await callBridge("cliLog", store._id);
      if (text) log(text);
      return 0;
    }
    icechunk = true;
  } else {
    // a location that holds no Zarr node may be an Icechunk repository
    const probe = cmd === "info" && third !== undefined ? third : inner;
    const missing = await zarr.open(store, { path: probe, zarrFormat }).then(
      () => false,
      (e) => e.code === "NOT_FOUND",
    );
    if (missing) {
      const ic = await openIcechunk(location, store, inner, {}).catch(() => null);
      if (ic) ({ store, path: inner, icechunk } = { ...ic, icechunk: true });
    }
  }
  if (cmd === "info") {
    let node;
    try {
      node = await openNode(icechunk ? "" : location, store, third ?? inner, { zarrFormat });
    } catch (e) {
      e.message = `${location}: ${e.message}`;
      throw e;
    }
    const name = third || location.replace(/\/+$/, "").split("/").pop() || location;
    log(await node._call("cliInfo", name));
    return 0;
  }
  let arr;
  try {
    arr = await openNode(icechunk ? "" : location, store, inner, { kind: "array", zarrFormat });
  } catch (e) {
    e.message = `${location}: ${e.message}`;
    throw e;
  }
  log(await arr._call("cliCat", third ?? "", all));
  return 0;
}

