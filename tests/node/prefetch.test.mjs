// open() on an engine that is not yet running asks the store for the
// node's metadata itself, while the engine starts (npm/lib/core.js,
// earlyReads), and the engine takes those answers in place of asking
// (jsbridge/store.go, early). Each case opens a node twice through a store
// that logs its requests: once with the engine stopped (so the early reads
// happen) and once with it running (Go's open asks the store itself). Both
// must make the same requests (keys and options, none more) and give the
// same node or the same error. The fixtures were written by zarr-python
// (tests/fixtures/v2, v3). The engine is stopped between cases through the
// bridge's _crash("exit"), the hook the restart tests use.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { bridge, engines } from "../../npm/lib/runtime.js";
import { repoRoot } from "./helpers.mjs";

const v2 = new FileSystemStore(path.join(repoRoot, "tests", "fixtures", "v2", "data"));
const v3 = new FileSystemStore(path.join(repoRoot, "tests", "fixtures", "v3", "data"));

const running = () => engines().core || engines().full;

/** Stops every running engine (the next call starts a fresh one). */
async function stopEngines() {
  while (running()) {
    (await bridge())._crash("exit");
    for (let i = 0; i < 200 && running(); i++) await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * A store over base that logs each get and getRange: the key, the options'
 * shape, and whether an engine ran when it was asked. fail(key, options)
 * may answer instead of base (a value, or a function that throws).
 */
function logged(base, fail = () => undefined) {
  const log = [];
  const note = (method, key, options) => {
    const { signal, ...rest } = options ?? {};
    log.push({ method, key, options: JSON.stringify({ ...rest, signal: !!signal }), early: !running() });
  };
  return {
    log,
    get(key, options) {
      note("get", key, options);
      const f = fail(key, options);
      if (typeof f === "function") return f();
      return f ?? base.get(key, options);
    },
    getRange(key, range, options) {
      note("getRange", key, options);
      return base.getRange(key, range, options);
    },
    list(prefix) {
      log.push({ method: "list", key: prefix, early: !running() });
      return base.list(prefix);
    },
  };
}

/** What an open gives: the node's description or the error's code and message. */
async function outcome(store, options) {
  try {
    const n = await zarr.open(store, options);
    return { kind: n.kind, path: n.path, zarrFormat: n.zarrFormat, shape: n.shape ?? null, dtype: n.dtype ?? null, attrs: n.attrs };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}

const requests = (log) => log.map(({ method, key, options }) => `${method} ${key} ${options ?? ""}`).sort();

/**
 * Opens with the engine stopped, then running; early: whether the first
 * open is expected to read before the engine runs.
 */
async function compare(makeStore, options, early) {
  await stopEngines();
  const first = makeStore();
  const got = await outcome(first, options);
  assert.ok(running(), "the open started the engine");
  // (The same engines as the first open found, started: the core build.)
  await stopEngines();
  await zarr.init();
  const second = makeStore();
  const want = await outcome(second, options);
  assert.deepEqual(got, want, "the same node or error");
  assert.deepEqual(requests(first.log), requests(second.log), "the same requests of the store");
  assert.ok(second.log.every((r) => !r.early));
  const before = first.log.filter((r) => r.early);
  if (early) {
    const n = options.kind === "array" || options.kind === "group" ? 3 : 4;
    assert.equal(before.length, n, `the metadata reads went out before the engine ran: ${JSON.stringify(first.log)}`);
  } else {
    assert.deepEqual(before, [], "no read before the engine ran");
  }
  return got;
}

const cases = [
  // [name, store, options, early reads expected, properties of the logging store]
  ["v2 array", v2, { path: "v2.zarr/fill/i4_42" }, true],
  ["v2 array, kind array", v2, { path: "v2.zarr/fill/i4_42", kind: "array" }, true],
  ["v2 array, kind group (NOT_FOUND)", v2, { path: "v2.zarr/fill/i4_42", kind: "group" }, true],
  ["v2 array, path with slashes to normalise", v2, { path: "/v2.zarr//fill/i4_42/" }, true],
  ["v2 array, path with backslashes", v2, { path: "v2.zarr\\fill\\i4_42" }, true],
  ["v3 array", v3, { path: "v3.zarr/fill/i1_min" }, true],
  ["v3 array, kind array", v3, { path: "v3.zarr/fill/i1_min", kind: "array" }, true],
  ["v2 group", v2, { path: "v2.zarr" }, true],
  ["v2 group, kind group", v2, { path: "v2.zarr", kind: "group" }, true],
  ["v2 group, kind array (.zgroup read afterwards)", v2, { path: "v2.zarr", kind: "array" }, true],
  ["v3 group at the root", v3, { path: "v3.zarr", kind: "group" }, true],
  ["v2 consolidated group", v2, { path: "consolidated.zarr" }, true],
  ["v1 array (meta read afterwards)", v2, { path: "v1/zlib_i4_fill42" }, true],
  ["nothing there (NOT_FOUND, a suggestion from list)", v2, { path: "v2.zarr/fil" }, true],
  ["the store's root", v2, {}, true],
  ["a bz2 array (the full build)", v2, { path: "v2.zarr/codecs/bz2_1" }, true],
  ["a path with .. (refused before reading)", v2, { path: "v2.zarr/../v2.zarr" }, false],
  ["cache options (no early reads)", v2, { path: "v2.zarr/fill/i4_42", cacheBytes: 1 << 20 }, false],
  ["bad cache options (refused before reading)", v2, { path: "v2.zarr/fill/i4_42", cacheBytes: -1 }, false],
  // A store that lives in the engine (a zip, a reference set: an object
  // with _zarrWasmHandle) is read in Go, and exists only while its engine
  // runs; with a handle no engine knows, the engine reads it as a JS store.
  ["an object with _zarrWasmHandle (no early reads)", v2, { path: "v2.zarr/fill/i4_42" }, false, { _zarrWasmHandle: 2 ** 40 + 7 }],
];

// A bad kind is refused by the options check (npm/lib/options.js), before
// the engine starts or the store is read.
test("open before the engine runs: a bad kind is refused before the engine starts", async () => {
  await stopEngines();
  const store = logged(v2);
  const got = await outcome(store, { path: "v2.zarr", kind: "table" });
  assert.equal(got.code, "INVALID_ARGUMENT", got.message);
  assert.match(got.message, /kind/);
  assert.ok(!running(), "the engine did not start");
  assert.deepEqual(store.log, [], "nothing was read");
});

for (const [name, base, options, early, extra] of cases) {
  test(`open before the engine runs: ${name}`, async () => {
    await compare(() => Object.assign(logged(base), extra), options, early);
  });
}

test("open before the engine runs: a failing get fails the open the same way (rejected, thrown, not bytes)", async () => {
  const failures = {
    ".zarray rejects": (key) => (key.endsWith("/.zarray") ? () => Promise.reject(new Error("disk on fire")) : undefined),
    "zarr.json throws": (key) => (key.endsWith("/zarr.json") ? () => {
      throw new TypeError("no such thing");
    } : undefined),
    ".zattrs is a string": (key) => (key.endsWith("/.zattrs") ? "not bytes" : undefined),
    ".zgroup rejects (kind array: read afterwards)": (key) => (key.endsWith("/.zgroup") ? () => Promise.reject(new Error("gone")) : undefined),
  };
  for (const [name, fail] of Object.entries(failures)) {
    for (const [p, kind] of [["v2.zarr/fill/i4_42", undefined], ["v2.zarr/fill/i4_42", "array"], ["v2.zarr", "array"]]) {
      const got = await compare(() => logged(v2, fail), { path: p, kind }, true);
      if (name.startsWith(".zarray") && p !== "v2.zarr") assert.equal(got.code, "STORE", `${name}: ${JSON.stringify(got)}`);
    }
  }
});

test("open before the engine runs: an abort during the engine's start", async () => {
  // A store that answers only when its request is aborted.
  const asked = [];
  const hanging = {
    get(key, options) {
      asked.push({ key, signal: options?.signal, running: running() });
      return new Promise((_, reject) => options?.signal?.addEventListener("abort", () => reject(options.signal.reason), { once: true }));
    },
  };
  await stopEngines();
  const ac = new AbortController();
  const opening = zarr.open(hanging, { path: "a", signal: ac.signal });
  assert.equal(asked.length, 4, "the metadata reads went out at once");
  assert.ok(asked.every((r) => !r.running && r.signal && !r.signal.aborted));
  ac.abort(new Error("enough"));
  await assert.rejects(opening, (e) => e.code === "ABORTED");
  assert.ok(asked.every((r) => r.signal.aborted), "the early reads saw the abort");
  assert.equal(asked.length, 4, "and no more reads");
  // The engine is fine: the next open reads.
  const a = await zarr.open(v2, { path: "v2.zarr/fill/i4_42", kind: "array" });
  assert.equal(a.kind, "array");

  // Aborted before open: no read at all.
  await stopEngines();
  asked.length = 0;
  await assert.rejects(zarr.open(hanging, { path: "a", signal: AbortSignal.abort() }), (e) => e.code === "ABORTED");
  assert.equal(asked.length, 0);
});
