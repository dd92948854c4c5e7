// Loads the Go WebAssembly module once, on first use (or when init() is
// called), and hands out the bridge's API object.
import "../wasm_exec.js"; // Go's JS support for GOOS=js (defines globalThis.Go)
import { ZarrError, toZarrError } from "./errors.js";
import { loadCodecs, hostDecoders } from "./codecs.js";

const Go = globalThis.Go;

/** @type {Promise<any> | null} */
let starting = null;
let api = null;
let exitedError = null;
/** @type {WebAssembly.Module | null} */
let compiled = null;

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

async function start(source) {
  if (typeof Go !== "function") {
    throw new ZarrError("INTERNAL", "wasm_exec.js did not define Go; the package is incomplete (run `make wasm`)");
  }
  const go = new Go();
  const name = `__zarrWasmReady_${Math.random().toString(36).slice(2)}`;
  const ready = new Promise((resolve) => {
    globalThis[name] = (a) => {
      delete globalThis[name];
      resolve(a);
    };
  });
  go.argv = ["zarr-wasm", name];
  go.env = {};
  const codecsReady = loadCodecs();
  const module = await compile(source ?? defaultSource());
  compiled = module;
  const instance = await WebAssembly.instantiate(module, go.importObject);
  const exited = go.run(instance).then(() => {
    exitedError = new ZarrError("INTERNAL", "the zarr-wasm engine has exited");
    api = null;
    starting = null;
  });
  api = await Promise.race([
    ready,
    exited.then(() => {
      throw new ZarrError("INTERNAL", "the zarr-wasm engine exited while starting");
    }),
  ]);
  if (api.version !== 1) throw new ZarrError("INTERNAL", `zarr.wasm speaks bridge version ${api.version}, this wrapper 1`);
  api.setHelpers(helpers);
  // Decoders the host does faster than Go compiled to WebAssembly.
  if (await codecsReady) api.setHostDecoders(hostDecoders);
  exitedError = null;
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

/** Returns the bridge, starting the engine if needed. */
export async function bridge() {
  if (api) return api;
  if (exitedError) throw exitedError;
  await init();
  if (!api) throw exitedError ?? new ZarrError("INTERNAL", "the zarr-wasm engine is not running");
  return api;
}

/** Calls a bridge function and turns its rejection into a ZarrError. */
export async function callBridge(name, ...args) {
  const b = await bridge();
  try {
    return await b[name](...args);
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
  return api;
}
