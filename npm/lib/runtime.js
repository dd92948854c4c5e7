// Loads the Go WebAssembly engine on first use (or when init() is called)
// and hands out the bridge's API.
//
// The engine comes in three builds: zarr-core.wasm reads arrays with the
// common codecs and is what a page downloads and compiles first;
// zarr-icechunk.wasm is the core build and Icechunk repositories, started
// by IcechunkStore.open (instead of the core build when nothing runs yet:
// a page that opens a repository first downloads 49 KB more, not the full
// build); zarr.wasm has everything (writing, bz2, lzma, pcodec, ZFP, TIFF codecs,
// reference sets, TensorStore specs, and Go's own zstd and zlib decoders
// for what the package's libzstd and zlib decline). The full build starts
// when something needs it: a bridge function the core build lacks, or an
// error the core (or Icechunk) build marks `otherBuild`. From then on new
// nodes open in the full build; nodes opened in a smaller build stay there
// (core.js moves one when it is written to). A handle's engine, and so its build, is known
// from its range.
//
// An engine that stops (a Go panic outside a call, the Go runtime running
// out of memory, a WebAssembly trap) rejects every call in flight with a
// ZarrError ENGINE_EXITED, and the next call starts a fresh engine from the
// same compiled module. Arrays, groups and stores (reference sets, zips)
// opened by the stopped engine are not reopened behind the caller's back:
// their calls fail with ENGINE_EXITED and they must be opened again (their
// handles are numbered per engine, so they never reach another object).
import "../wasm_exec.js"; // Go's JS support for GOOS=js (defines globalThis.Go)
import { ZarrError, toZarrError } from "./errors.js";
import { loadCodecs, loadEncoders, useCodecsModule } from "./codecs.js";
import { makeHost, engineResult } from "./host.js";
import { checkOptions } from "./options.js";

const Go = globalThis.Go;

/** One build of the engine: where it comes from, its module, its running engine. */
class Build {
  constructor(name, defaultSource) {
    this.name = name;
    this.defaultSource = defaultSource;
    /** @type {any} what init() was given */
    this.source = undefined;
    /** @type {Promise<WebAssembly.Module> | null} */
    this.compiling = null;
    /** @type {Promise<any> | null} */
    this.starting = null;
    /** The running engine: {api, death (a promise rejected when it stops), dead}. */
    this.current = null;
  }
  module() {
    this.compiling ??= this.#compile().catch((e) => {
      this.compiling = null;
      throw e;
    });
    return this.compiling;
  }
  #compile() {
    // The core module's compilation started as the package loaded (Node's
    // main thread, the default file): taken when init() named no other source.
    if (this !== builds.core) return compile(this.source ?? this.defaultSource(), this.source === undefined);
    const early = this.source === undefined ? earlyCore : null;
    earlyCore = null;
    if (early) return early.then((m) => m ?? compile(this.defaultSource(), true), () => compile(this.defaultSource(), true));
    return compile(this.source ?? this.defaultSource(), this.source === undefined);
  }
  start() {
    this.starting ??= start(this).catch((e) => {
      this.starting = null;
      throw e;
    });
    return this.starting;
  }
  alive() {
    return this.current && !this.current.dead ? this.current : null;
  }
}

// (Literal new URL(..., import.meta.url) forms, so bundlers emit the files.)
const builds = {
  core: new Build("core", () => new URL("../zarr-core.wasm", import.meta.url)),
  icechunk: new Build("icechunk", () => new URL("../zarr-icechunk.wasm", import.meta.url)),
  full: new Build("full", () => new URL("../zarr.wasm", import.meta.url)),
};
/** The build init() starts. */
let first = builds.core;
/** Engines started so far (each gets its own range of handle ids). */
let generation = 0;
/** The build of each engine started, by generation. */
const buildOfGeneration = new Map();
/** The last call of each setting made through bridge() (setCacheBytes, ...), replayed on engines that start later. */
const settings = new Map();
/** Functions run with the API of every engine that starts (workers re-attach). */
const setups = new Set();
/** Engines that stopped, with why (for tests and diagnostics). */
export const engineLog = { starts: 0, stops: [] };

export const isNode = typeof process === "object" && process !== null && !!process.versions?.node;

/**
 * In Node's main thread, zarr-core.wasm is read as soon as the package
 * loads (on libuv's threads) and compiled when the read is done (see
 * compileForStart), so a program's first call finds it compiled, or
 * nearly. Not in worker threads (the decode workers load this file too),
 * not outside Node (a page's init() streams the module); init(source)
 * with another source, or the full build first, drops it. A promise of
 * the module, or of null (not available: compile as usual).
 */
let earlyCore = null;
/** Whether init() chose another source (the early compilation, if not begun, is not begun). */
let earlyDropped = false;
if (isNode) {
  const names = ["node:worker_threads", "node:fs/promises", "node:url", "node:v8"];
  // (node:v8 is optional: runtimes that imitate Node may lack it.)
  earlyCore = Promise.all(names.map((n) => import(/* @vite-ignore */ n).catch((e) => (n === "node:v8" ? null : Promise.reject(e))))).then(async ([{ isMainThread }, fsp, { fileURLToPath }, v8]) => {
    const url = builds.core.defaultSource();
    if (!isMainThread || earlyDropped || url.protocol !== "file:") return null;
    const bytes = await readWhole(fsp, fileURLToPath(url));
    return earlyDropped ? null : compileForStart(bytes, v8, true);
  });
  earlyCore.catch(() => {});
}
/**
 * Reads a file in one read after a stat (fsp: node:fs/promises).
 * readFile takes 512 KiB a read: a dozen trips through libuv's threads for
 * zarr-core.wasm, each waiting for the main thread, which at startup is
 * busy loading the program's modules.
 */
async function readWhole(fsp, path) {
  const fh = await fsp.open(path, "r");
  try {
    const { size } = await fh.stat();
    const bytes = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    // (A file changed while it is read fails to compile, as with readFile.)
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    await fh.close();
  }
}
/** Settles when the early compilation of zarr-core.wasm is over: true when it gave a module (for tests). */
const earlyCoreDone = earlyCore ? earlyCore.then((m) => !!m, () => false) : Promise.resolve(false);
export function earlyCompilation() {
  return earlyCoreDone;
}

/**
 * V8 compiles a module's functions lazily (Liftoff, on their first call)
 * and compiles again with TurboFan each function that has run about 1.8 MB
 * of code (Node 20's V8 11.3: --wasm-tiering-budget=1800000, read when a
 * module is compiled). Starting the Go runtime and a first open and read
 * pass that budget in about 30 functions of Go's runtime (scheduler,
 * allocator, maps, stack copying, finalizers): their TurboFan compilations,
 * 100-150 ms of CPU on V8's threads, compete with the main thread (on 2
 * cores the first value came 1.5-2.5x later). So the engine's modules
 * (read from their files in Node's main thread) are compiled with a budget
 * 11x larger (the hot loops of reads still tier up,
 * a few ms later), the flag set and set back around the synchronous
 * compilation (no other JavaScript runs between; the flag only counts when
 * a module is compiled). Only where that default was checked (V8 11.3),
 * and not when the process was given V8 flags about WebAssembly tiering.
 * Likewise --wasm-lazy-validation (off by default in V8 11.3): each function
 * is validated when first compiled instead of all 3,500 up front, which
 * cuts this synchronous compile from about 17 to 5 ms of CPU. Only for the
 * package's own files (the default sources), which CI validates eagerly
 * (WebAssembly.validate in tests/node/startup): with the flag set back, a
 * function body that fails validation when first called aborts the process
 * (a V8 check) instead of rejecting the load, so a file damaged on disk
 * inside a function body is caught late and hard.
 */
const startBudget = 20_000_000;
const defaultBudget = isNode ? { "11.3": 1_800_000 }[String(process.versions.v8).split(".").slice(0, 2).join(".")] : undefined;
function compileForStart(bytes, v8, own) {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => /wasm-tier|wasm-dynamic-tiering|liftoff|wasm-lazy-validation/.test(a));
  if (!defaultBudget || given || typeof v8?.setFlagsFromString !== "function") return WebAssembly.compile(bytes);
  v8.setFlagsFromString(`--wasm-tiering-budget=${startBudget}`);
  if (own) v8.setFlagsFromString("--wasm-lazy-validation");
  try {
    return new WebAssembly.Module(bytes);
  } finally {
    if (own) v8.setFlagsFromString("--no-wasm-lazy-validation");
    v8.setFlagsFromString(`--wasm-tiering-budget=${defaultBudget}`);
  }
}

let configured = false;

/**
 * Starts the engine. Called automatically by the first API call; call it
 * yourself to choose where the .wasm files come from (a URL, a Response,
 * bytes or a compiled WebAssembly.Module) or to start early. By default the
 * core build (zarr-core.wasm) starts, and the full build (zarr.wasm beside
 * it) when it is needed; `source` replaces the first, `options.full` the
 * second, `options.icechunk` the Icechunk build (zarr-icechunk.wasm, which
 * IcechunkStore.open starts), and `options.engine: "full"` starts the full
 * build at once (then `source`, when given, is the full build).
 * `options.codecs` replaces the decoders' module (lib/codecs.wasm beside
 * this file).
 * @param {string | URL | Response | Promise<Response> | ArrayBuffer | ArrayBufferView | WebAssembly.Module} [source]
 * @param {{full?: any, icechunk?: any, engine?: "core" | "full", codecs?: any}} [options]
 */
export function init(source, options = {}) {
  options = checkOptions("init", options);
  if (!configured) {
    configured = true;
    useCodecsModule(options.codecs);
    if (options.engine === "full") {
      first = builds.full;
      builds.full.source = source ?? options.full;
      earlyCore = null;
      earlyDropped = true;
    } else {
      if (source !== undefined) {
        builds.core.source = source;
        earlyCore = null;
        earlyDropped = true;
      }
      if (options.full !== undefined) builds.full.source = options.full;
    }
    if (options.icechunk !== undefined) builds.icechunk.source = options.icechunk;
  }
  return first.start().then(() => undefined);
}

/** The compiled module of the build new nodes open in (after init), to instantiate it again elsewhere. */
export function wasmModule() {
  return preferred().compiled ?? null;
}

/** Runs fn(api) now (for each running engine) and for every engine started later. */
export function onEngineStart(fn) {
  setups.add(fn);
  for (const b of Object.values(builds)) {
    const eng = b.alive();
    if (eng) fn(eng.api);
  }
  return () => setups.delete(fn);
}

// The first line the Go runtime wrote to stderr that says why it stopped
// ("fatal error: ...", "panic: ..."), before its goroutine dump.
let stderrLine = "";
let fatalLine = null;
const fsShim = globalThis.fs;
if (fsShim && typeof fsShim.writeSync === "function" && !fsShim.__zarrWasmTail) {
  const write = fsShim.writeSync.bind(fsShim);
  const decoder = new TextDecoder();
  fsShim.writeSync = (fd, buf) => {
    if (fd === 2 && fatalLine === null) {
      const lines = (stderrLine + decoder.decode(buf)).split("\n");
      stderrLine = lines.pop().slice(-1024);
      fatalLine = lines.find((l) => /^(fatal error|panic|runtime: out of memory)/.test(l))?.trim() ?? null;
    }
    return write(fd, buf);
  };
  fsShim.__zarrWasmTail = true;
}

function stopReason(fallback) {
  const line = fatalLine;
  fatalLine = null;
  stderrLine = "";
  return line ?? fallback;
}

async function start(build) {
  if (typeof Go !== "function") {
    throw new ZarrError("INTERNAL", "wasm_exec.js did not define Go; the package is incomplete (run `make wasm`)");
  }
  const go = new Go();
  const gen = ++generation;
  const eng = { api: null, dead: null, death: null, inFlight: new Set() };
  let rejectDeath;
  eng.death = new Promise((_, reject) => (rejectDeath = reject));
  eng.death.catch(() => {});
  const die = (why) => {
    if (eng.dead) return;
    const reason = stopReason(why);
    eng.dead = new ZarrError(
      "ENGINE_EXITED",
      `the zarr-wasm engine stopped (${reason}); calls in flight were lost, the next call starts a fresh engine, and arrays, groups and stores opened before must be opened again`,
    );
    engineLog.stops.push(reason);
    rejectDeath(eng.dead);
    for (const reject of eng.inFlight) reject(eng.dead);
    eng.inFlight.clear();
    if (build.current === eng) {
      build.current = null;
      build.starting = null;
    }
  };
  // After the engine stops, JS may still call into it (a store's promise
  // settling, a timer): wasm_exec.js would throw "Go program has already
  // exited" into whoever called, often as an uncaught error. A trap
  // inside the module (a RuntimeError) stops the engine the same way.
  const resume = go._resume.bind(go);
  go._resume = () => {
    if (eng.dead || go.exited) return;
    try {
      resume();
    } catch (e) {
      die(`WebAssembly trap: ${e?.message ?? e}`);
    }
  };
  go.exit = (code) => die(`the Go runtime exited with code ${code}`);
  const name = `__zarrWasmReady_${Math.random().toString(36).slice(2)}`;
  const ready = new Promise((resolve) => {
    globalThis[name] = (a) => {
      delete globalThis[name];
      resolve(a);
    };
  });
  go.argv = ["zarr-wasm", name, String(gen * 2 ** 32)];
  go.env = {};
  // The engine's module and the decoders' (lib/codecs.wasm), fetched and
  // compiled side by side in the background.
  const compiling = build.module();
  const codecsReady = loadCodecs();
  const module = await compiling;
  build.compiled = module;
  const instance = await WebAssembly.instantiate(module, go.importObject);
  go.run(instance).then(
    () => die("the Go program ended"),
    (e) => die(`WebAssembly trap: ${e?.message ?? e}`),
  );
  const raw = await Promise.race([ready, eng.death]);
  if (raw.version !== 2) throw new ZarrError("INTERNAL", `zarr.wasm speaks bridge version ${raw.version}, this wrapper 2`);
  const api = bridgeFunctions(raw);
  api.setHelpers(helpers);
  // The host (lib/host.js): the decoders and encoders the package runs
  // faster than Go compiled to WebAssembly, and results allocated here for
  // the engine's own reads (get answers with the result's id, and hands
  // over the data here). The full build writes: it waits for the encoders.
  await codecsReady;
  if (api.build === "full") await loadEncoders();
  api.setHost(makeHost(instance.exports.mem));
  const get = api.get;
  api.get = (...args) => get(...args).then(engineResult);
  for (const [name, args] of settings) api[name]?.(...args);
  for (const fn of setups) fn(api);
  if (eng.dead) throw eng.dead;
  // init(source) may have been handed the other build (code written for
  // one build passes zarr.wasm): file the engine where its build is.
  const real = builds[api.build] ?? builds.full;
  if (real !== build) {
    real.compiled = module;
    real.starting = build.starting;
    if (first === build) first = real;
    build.starting = null;
    build.source = undefined;
    build.compiling = null;
  }
  eng.api = api;
  eng.memory = instance.exports.mem;
  real.current = eng;
  buildOfGeneration.set(gen, real);
  engineLog.starts++;
  return api;
}

/**
 * The bridge's functions by name, from what the engine hands over: the names
 * of its async and sync functions and one call(i, ...args) for them all.
 */
function bridgeFunctions(raw) {
  const api = { version: raw.version, build: raw.build };
  const call = raw.call;
  const list = (s) => (s ? s.split(",") : []);
  [...list(raw.async), ...list(raw.sync)].forEach((name, i) => {
    api[name] = (...args) => call(i, ...args);
  });
  return api;
}

/** own: the package's own file (the default source), compiled with lazy validation in Node's main thread. */
async function compile(source, own = false) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  if (typeof source === "string" || source instanceof URL) {
    const url = source instanceof URL ? source : new URL(source, globalThis.location?.href ?? import.meta.url);
    if (url.protocol === "file:") {
      if (!isNode) throw new ZarrError("STORE", `cannot read ${url.href} outside Node`);
      const names = ["node:fs/promises", "node:url", "node:worker_threads", "node:v8"];
      const [fsp, { fileURLToPath }, threads, v8] = await Promise.all(names.map((n, i) => (i < 2 ? import(/* @vite-ignore */ n) : import(/* @vite-ignore */ n).catch(() => null))));
      const bytes = await readWhole(fsp, fileURLToPath(url));
      // (The engine's own files: compiled for a quick start, as the early core.)
      return threads?.isMainThread ? compileForStart(bytes, v8, own) : WebAssembly.compile(bytes);
    }
    source = fetch(url);
  }
  const res = await source;
  if (typeof Response !== "undefined" && res instanceof Response) {
    if (!res.ok) throw new ZarrError("STORE", `cannot load the zarr-wasm engine: HTTP ${res.status} for ${res.url}`);
    const type = res.headers.get("Content-Type") || "";
    if (typeof WebAssembly.compileStreaming === "function" && type.startsWith("application/wasm")) {
      return WebAssembly.compileStreaming(res);
    }
    return WebAssembly.compile(await res.arrayBuffer());
  }
  throw new ZarrError("STORE", "init(): pass a URL, a Response, bytes or a WebAssembly.Module");
}

// Lists of strings and byte strings come from Go in bulk: one buffer and
// offsets (UTF-16 code units for strings), split here.
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
const helpers = {
  splitStrings(utf8, offsets) {
    const all = textDecoder.decode(utf8);
    const n = offsets.length - 1;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = all.slice(offsets[i], offsets[i + 1]);
    return out;
  },
  splitBytes(bytes, offsets) {
    const n = offsets.length - 1;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = bytes.slice(offsets[i], offsets[i + 1]);
    return out;
  },
};

/** The running engine of a build, started if needed. */
async function running(build) {
  for (;;) {
    const eng = build.alive();
    if (eng) return eng;
    await init();
    await build.start();
    if (build.alive()) return build.current;
  }
}

/** The build new nodes open in: the full build once it runs, else the first. */
function preferred() {
  return builds.full.alive() || builds.full.starting ? builds.full : first;
}

/**
 * The build Icechunk's calls go to: the full build if it runs, else the
 * Icechunk build, which becomes the first build when no engine has
 * started yet (then the core build is never downloaded: the Icechunk
 * build reads everything the core build reads).
 */
function icechunkBuild() {
  if (builds.full.alive() || builds.full.starting) return builds.full;
  if (first === builds.core && !builds.core.starting && !builds.core.alive()) {
    first = builds.icechunk;
    earlyCore = null;
    earlyDropped = true;
  }
  return builds.icechunk;
}

/** The build of a handle (by its engine's range of ids). */
function buildOf(id) {
  return buildOfGeneration.get(Math.floor(id / 2 ** 32)) ?? preferred();
}

/** The build a call goes to: its handle's, a Go store's among its arguments, else the preferred one. */
function buildFor(args) {
  if (typeof args[0] === "number") return buildOf(args[0]);
  for (const a of args) {
    const h = a?._zarrWasmHandle;
    if (typeof h === "number") return buildOf(h);
  }
  return preferred();
}

/**
 * Raised for a call on a node of the core build that only the full build
 * can answer; core.js opens the node again in the full build and repeats it.
 */
export class OtherBuildError extends Error {}

/** Calls name on a build's engine; ENGINE_EXITED when it stops meanwhile. */
async function invoke(build, name, args) {
  const eng = await running(build);
  if (typeof eng.api[name] !== "function") throw Object.assign(new Error(`${name} is not in the ${build.name} build`), { otherBuild: true });
  const p = eng.api[name](...args);
  if (eng.dead) throw eng.dead; // it stopped during the call's synchronous part
  // (Not Promise.race with eng.death: each race would stay attached to
  // that never-settled promise, and with it every call's result, a read's
  // whole TypedArray included, for as long as the engine runs.)
  return await new Promise((resolve, reject) => {
    eng.inFlight.add(reject);
    Promise.resolve(p).then(
      (v) => {
        eng.inFlight.delete(reject);
        resolve(v);
      },
      (e) => {
        eng.inFlight.delete(reject);
        reject(e);
      },
    );
  });
}

/**
 * Calls a bridge function and turns its rejection into a ZarrError. If the
 * engine stops before the call settles, the call rejects with
 * ENGINE_EXITED. What the core build cannot do goes to the full build (a
 * call on a handle of the core build throws OtherBuildError for core.js).
 */
export async function callBridge(name, ...args) {
  await init();
  const build = buildFor(args);
  try {
    return await invoke(build, name, args);
  } catch (e) {
    if (!(e?.otherBuild && build !== builds.full)) throw toZarrError(e);
    if (typeof args[0] === "number") throw new OtherBuildError(name);
  }
  try {
    return await invoke(builds.full, name, args);
  } catch (e) {
    throw toZarrError(e);
  }
}

/** Calls an Icechunk bridge function that takes no handle (icOpen): see icechunkBuild. */
export async function callIcechunk(name, ...args) {
  const build = icechunkBuild();
  try {
    return await invoke(build, name, args);
  } catch (e) {
    throw toZarrError(e);
  }
}

/** Calls a bridge function in one build ("core" or "full"), starting it if need be. */
export async function callBuild(buildName, name, ...args) {
  await init();
  try {
    return await invoke(builds[buildName], name, args);
  } catch (e) {
    throw toZarrError(e);
  }
}

/** The running engine of a handle's build ({dead, inFlight}: a read run outside it still ends with ENGINE_EXITED when it stops), or null. */
export function engineOfHandle(id) {
  return buildOf(id).alive();
}

/** The build ("core", "icechunk" or "full") of a handle. */
export function buildOfHandle(id) {
  return buildOf(id).name;
}

/** The linear memory of the engine new nodes open in, when it runs (decode workers read decoded chunks from it). */
export function engineMemory() {
  return preferred().alive()?.memory ?? null;
}

/** Which builds have an engine running: {core, icechunk, full}. */
export function engines() {
  return { core: !!builds.core.alive(), icechunk: !!builds.icechunk.alive(), full: !!builds.full.alive() };
}

// Synchronous calls: those on a handle go to its build; settings go to
// every running engine (and are replayed on engines that start later);
// storeStats adds up what each engine counted; the rest go to the build
// new nodes open in.
const onHandle = new Set(["release", "arraySpec", "cacheStats", "clearCache", "planRead", "planLocated", "expandShards", "decodeInPlace", "decodeInnerInPlace"]);
const syncBridge = new Proxy(
  {},
  {
    get(_, name) {
      if (typeof name !== "string" || name === "then") return undefined; // (not a promise)
      return (...args) => {
        const live = Object.values(builds).map((b) => b.alive()).filter(Boolean);
        if (name.startsWith("set")) {
          settings.set(name, args);
          let out;
          for (const eng of live) out = eng.api[name]?.(...args);
          return out;
        }
        if (name === "storeStats") return sumStats(live.map((eng) => eng.api.storeStats(...args)));
        const build = onHandle.has(name) && typeof args[0] === "number" ? buildOf(args[0]) : preferred();
        // (what the core build lacks, the full build answers when it runs: startBuild("full") first)
        const fn = build.alive()?.api?.[name] ?? builds.full.alive()?.api?.[name];
        if (typeof fn === "function") return fn(...args);
        if (name === "release") return undefined;
        return { error: { code: "UNSUPPORTED", message: `${name} needs the full build of the engine: start it with zarr.init(undefined, { engine: "full" }) before opening the array` } };
      };
    },
  },
);

function sumStats(list) {
  const found = list.filter((s) => s && typeof s === "object");
  if (found.length <= 1) return found[0] ?? null;
  const out = { ...found[0] };
  for (const s of found.slice(1)) for (const [k, v] of Object.entries(s)) if (typeof v === "number") out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * Starts a build's engine ("core" or "full") if it does not run yet: the
 * synchronous bridge then answers the calls only that build has (the
 * object-store signing and listing calls are the full build's).
 */
export async function startBuild(name) {
  await init();
  await running(builds[name]);
}

/**
 * Returns the bridge, starting the engine if needed (calls on a handle go
 * to its build, see syncBridge).
 */
export async function bridge() {
  await init();
  await running(preferred());
  return syncBridge;
}

let setMaxListeners = null;
if (isNode) {
  const eventsName = "node:events";
  import(/* @vite-ignore */ eventsName).then(
    (m) => (setMaxListeners = m.setMaxListeners),
    () => {},
  );
}

/** Lifts Node's listener limit on a signal many requests listen to. */
export function unlimitedListeners(signal) {
  setMaxListeners?.(0, signal);
}

/** Synchronous access once started (for release from finalizers). */
export function bridgeIfRunning() {
  return Object.values(builds).some((b) => b.alive()) ? syncBridge : null;
}
