// Loads the Go WebAssembly module once, on first use (or when init() is
// called), and hands out the bridge's API object.
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
import { loadCodecs, hostDecoders } from "./codecs.js";

const Go = globalThis.Go;

/** @type {Promise<any> | null} */
let starting = null;
/** The running engine: {api, death (a promise rejected when it stops), dead}. */
let current = null;
/** @type {WebAssembly.Module | null} */
let compiled = null;
/** Engines started so far (each gets its own range of handle ids). */
let generation = 0;
/** Functions run with the API of every engine that starts (workers re-attach). */
const setups = new Set();
/** Engines that stopped, with why (for tests and diagnostics). */
export const engineLog = { starts: 0, stops: [] };

export const isNode = typeof process === "object" && process !== null && !!process.versions?.node;

function defaultSource() {
  return new URL("../zarr.wasm", import.meta.url);
}

/**
 * Starts the engine. Called automatically by the first API call; call it
 * yourself to choose where the .wasm comes from (a URL, a Response, bytes or
 * a compiled WebAssembly.Module) or to start early.
 * @param {string | URL | Response | Promise<Response> | ArrayBuffer | ArrayBufferView | WebAssembly.Module} [source]
 */
export function init(source) {
  if (!starting) {
    starting = start(source).catch((e) => {
      starting = null;
      throw e;
    });
  }
  return starting.then(() => undefined);
}

/** The compiled module (after init), so workers can instantiate it again. */
export function wasmModule() {
  return compiled;
}

/** Runs fn(api) now (if an engine runs) and for every engine started later. */
export function onEngineStart(fn) {
  setups.add(fn);
  const eng = current;
  if (eng && !eng.dead) fn(eng.api);
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

async function start(source) {
  if (typeof Go !== "function") {
    throw new ZarrError("INTERNAL", "wasm_exec.js did not define Go; the package is incomplete (run `make wasm`)");
  }
  const go = new Go();
  const gen = ++generation;
  const eng = { api: null, dead: null, death: null };
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
    if (current === eng) {
      current = null;
      starting = null;
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
  const codecsReady = loadCodecs();
  const module = source === undefined && compiled ? compiled : await compile(source ?? defaultSource());
  compiled = module;
  const instance = await WebAssembly.instantiate(module, go.importObject);
  go.run(instance).then(
    () => die("the Go program ended"),
    (e) => die(`WebAssembly trap: ${e?.message ?? e}`),
  );
  const api = await Promise.race([ready, eng.death]);
  if (api.version !== 1) throw new ZarrError("INTERNAL", `zarr.wasm speaks bridge version ${api.version}, this wrapper 1`);
  api.setHelpers(helpers);
  // Decoders the host does faster than Go compiled to WebAssembly.
  if (await codecsReady) api.setHostDecoders(hostDecoders);
  for (const fn of setups) fn(api);
  if (eng.dead) throw eng.dead;
  eng.api = api;
  current = eng;
  engineLog.starts++;
  return api;
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  if (typeof source === "string" || source instanceof URL) {
    const url = source instanceof URL ? source : new URL(source, globalThis.location?.href ?? import.meta.url);
    if (url.protocol === "file:") {
      if (!isNode) throw new ZarrError("STORE", `cannot read ${url.href} outside Node`);
      const fsName = "node:fs/promises";
      const urlName = "node:url";
      const [{ readFile }, { fileURLToPath }] = await Promise.all([
        import(/* @vite-ignore */ fsName),
        import(/* @vite-ignore */ urlName),
      ]);
      return WebAssembly.compile(await readFile(fileURLToPath(url)));
    }
    source = fetch(url);
  }
  const res = await source;
  if (typeof Response !== "undefined" && res instanceof Response) {
    if (!res.ok) throw new ZarrError("STORE", `cannot load zarr.wasm: HTTP ${res.status} for ${res.url}`);
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

/** The running engine, started if needed. */
async function running() {
  for (;;) {
    const eng = current;
    if (eng && !eng.dead) return eng;
    await init();
    if (current && !current.dead) return current;
  }
}

/** Returns the bridge, starting the engine if needed. */
export async function bridge() {
  return (await running()).api;
}

/**
 * Calls a bridge function and turns its rejection into a ZarrError. If the
 * engine stops before the call settles, the call rejects with
 * ENGINE_EXITED.
 */
export async function callBridge(name, ...args) {
  const eng = await running();
  try {
    const p = eng.api[name](...args);
    if (eng.dead) throw eng.dead; // it stopped during the call's synchronous part
    return await Promise.race([p, eng.death]);
  } catch (e) {
    throw toZarrError(e);
  }
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
  return current && !current.dead ? current.api : null;
}
